/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Parse every sample of a perf.data file through the C API, no output.
 * usage: bench_parse FILE [rows|next|raw]
 *   rows (default): pm_file_read_samples, time-sorted like perf script
 *   next: pm_file_next + pm_file_sample, time-sorted
 *   raw: pm_file_read_samples in file order (no sorting) */
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

int main(int argc, char **argv)
{
	pm_file *f;
	uint64_t n = 0, sum = 0;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_parse FILE [rows|next|raw]\n");
		return 2;
	}
	struct pm_file_opts o = { .sz = sizeof(o) };

	o.raw_order = argc > 2 && !strcmp(argv[2], "raw");
	rc = pm_file_open(&f, argv[1], &o);
	if (rc < 0) {
		fprintf(stderr, "bench_parse: %s\n", pm_errmsg());
		return 1;
	}
	if (argc > 2 && !strcmp(argv[2], "next")) {
		struct pm_file_record rec = { .sz = sizeof(rec) };
		struct pm_sample s = { .sz = sizeof(s) };

		while ((rc = pm_file_next(f, &rec)) > 0) {
			if (rec.type != PM_RECORD_SAMPLE || pm_file_sample(f, &rec, &s) < 0)
				continue;
			sum += s.ip + s.time + s.period + s.tid;
			n++;
		}
	} else {
		static struct pm_sample_row rows[4096];
		size_t k;

		do {
			rc = pm_file_read_samples(f, rows, 4096, &k);
			for (size_t i = 0; i < k; i++)
				sum += rows[i].ip + rows[i].time + rows[i].period + rows[i].tid;
			n += k;
		} while (rc > 0);
	}
	if (rc < 0)
		fprintf(stderr, "bench_parse: %s\n", pm_errmsg());
	printf("%llu samples (checksum %llx)\n", (unsigned long long)n, (unsigned long long)sum);
	pm_file_close(f);
	return rc < 0;
}
