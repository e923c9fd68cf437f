/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The C reader on N threads (pm_columns_opts::threads over the file's
 * chunks): bench_chunks [--raw] [--chunk-mb M] THREADS FILE... reads every sample of each
 * file (columns time pid tid cpu ip period event; --raw: every column, the
 * decoded ProfileMe/IBS fields included) and prints one line:
 *
 *   threads N files F bytes B samples S wall_s W cpu_s C MB_per_s R peak_rss_kb K sum X
 *
 * (wall and CPU time of the whole run, the scan included; `sum` is a
 * checksum of the rows, equal for every thread count).  Run by
 * tests/bench/bench_dask.py; not a ctest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <profileme/profileme.h>

struct row {
	uint64_t time, ip, period;
	uint32_t pid, tid, cpu;
	int32_t event;
};

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct row rows[1 << 16];
	uint8_t *wide = NULL;
	int raw = argc > 1 && !strcmp(argv[1], "--raw");
	uint64_t samples = 0, bytes = 0, sum = 0, chunk_bytes = 0;
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), w, c;
	struct rusage ru;
	int threads;

	argc -= raw;
	argv += raw;
	if (argc > 2 && !strcmp(argv[1], "--chunk-mb")) {
		chunk_bytes = strtoull(argv[2], NULL, 10) << 20;
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: bench_chunks [--raw] [--chunk-mb M] THREADS FILE...\n");
		return 2;
	}
	threads = atoi(argv[1]);
	for (int a = 2; a < argc; a++) {
		struct pm_columns_opts o = { .sz = sizeof(o), .event = -1, .no_raw = !raw, .threads = threads,
						.chunk_bytes = chunk_bytes };
		const char *want[] = { "time", "ip", "period", "pid", "tid", "cpu", "event" };
		const size_t at[] = { offsetof(struct row, time), offsetof(struct row, ip),
				      offsetof(struct row, period), offsetof(struct row, pid),
				      offsetof(struct row, tid), offsetof(struct row, cpu),
				      offsetof(struct row, event) };
		size_t offs[64], n;
		pm_file *f;
		pm_columns *cols;
		struct stat st;
		int rc;

		if (pm_file_open(&f, argv[a], NULL) || pm_columns_new_from_file(&cols, f, &o)) {
			fprintf(stderr, "%s: %s\n", argv[a], pm_errmsg());
			return 1;
		}
		if (!stat(argv[a], &st))
			bytes += (uint64_t)st.st_size;
		for (size_t i = 0; i < 64; i++) {
			const char *nm = pm_columns_name(cols, i);

			offs[i] = SIZE_MAX;
			for (size_t j = 0; nm && j < sizeof(want) / sizeof(want[0]); j++)
				if (!strcmp(nm, want[j]))
					offs[i] = at[j];
		}
		if (raw) {
			/* every column, packed */
			size_t rs = 0, nc = pm_columns_count(cols);

			for (size_t i = 0; i < nc && i < 64; i++) {
				offs[i] = rs;
				rs += pm_columns_width(cols, i);
			}
			free(wide);
			wide = malloc((rs ? rs : 1) << 16);
			while ((rc = pm_columns_read_rows(cols, wide, rs, offs, nc < 64 ? nc : 64, 1 << 16,
							  &n)) == 0 && n) {
				for (size_t i = 0; i < n; i++) {
					uint64_t t, ip;

					memcpy(&t, wide + i * rs + offs[0], 8);
					memcpy(&ip, wide + i * rs + offs[4], 8);
					sum += t ^ (ip * 31) ^ wide[i * rs + rs - 1];
				}
				samples += n;
			}
			goto done;
		}
		while ((rc = pm_columns_read_rows(cols, rows, sizeof(rows[0]), offs,
						  (pm_columns_count(cols) < 64 ? pm_columns_count(cols) : 64), 1 << 16, &n)) == 0 && n) {
			for (size_t i = 0; i < n; i++)
				sum += rows[i].time ^ (rows[i].ip * 31) ^ rows[i].tid ^ ((uint64_t)rows[i].cpu << 40);
			samples += n;
		}
done:
		if (rc) {
			fprintf(stderr, "%s: %s\n", argv[a], pm_errmsg());
			return 1;
		}
		pm_columns_free(cols);
		pm_file_close(f);
	}
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	getrusage(RUSAGE_SELF, &ru);
	printf("threads %d files %d bytes %llu samples %llu wall_s %.3f cpu_s %.3f MB_per_s %.1f "
	       "peak_rss_kb %ld sum %llx\n", threads, argc - 2, (unsigned long long)bytes,
	       (unsigned long long)samples, w, c, bytes / 1048576.0 / w, ru.ru_maxrss,
	       (unsigned long long)sum);
	return 0;
}
