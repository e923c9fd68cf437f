/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * read_perf_data: open a perf.data file and count its samples per process.
 *
 *   read_perf_data [FILE]     (default perf.data)
 *
 * One workflow: pm_file_open(), pm_file_next() over every record (sorted by
 * time, as perf does), pm_file_sample() to decode the samples, and a table
 * of samples per pid, printed busiest first as "pid PID COUNT".  Exit
 * status: 0, 1 on an unreadable or damaged file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <profileme/profileme.h>

struct pid_count {
	uint32_t pid;
	uint64_t n;
};

static int by_count(const void *a, const void *b)
{
	const struct pid_count *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : (x->pid > y->pid) - (x->pid < y->pid);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct pid_count *pids = NULL;
	size_t nr = 0, cap = 0;
	uint64_t samples = 0, undecodable = 0;
	pm_file *f = NULL;
	int rc, ret = 1;

	rc = pm_file_open(&f, path, NULL);
	if (rc)
		goto fail;
	while ((rc = pm_file_next(f, &rec)) == 1) {
		struct pm_sample s = { .sz = sizeof(s) };
		size_t i;

		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		if (pm_file_sample(f, &rec, &s)) {
			undecodable++;
			continue;
		}
		samples++;
		for (i = 0; i < nr && pids[i].pid != s.pid; i++)
			;
		if (i == nr) {
			if (nr == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct pid_count *np = realloc(pids, ncap * sizeof(*np));

				if (!np) {
					fprintf(stderr, "read_perf_data: out of memory\n");
					goto out;
				}
				pids = np;
				cap = ncap;
			}
			pids[nr].pid = s.pid;
			pids[nr++].n = 0;
		}
		pids[i].n++;
	}
	if (rc < 0)
		goto fail;

	qsort(pids, nr, sizeof(*pids), by_count);
	printf("%s: %llu samples in %zu processes (%llu not decodable)\n", path,
	       (unsigned long long)samples, nr, (unsigned long long)undecodable);
	for (size_t i = 0; i < nr; i++)
		printf("pid %u %llu\n", pids[i].pid, (unsigned long long)pids[i].n);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "read_perf_data: %s: %s\n", path, pm_error_string(rc));
out:
	pm_file_close(f);
	free(pids);
	return ret;
}
