/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The C reader on N threads (pm_columns_opts::threads over the file's
 * chunks): bench_chunks [--raw|--scan|--io] [--chunk-mb M] THREADS FILE... reads every
 * sample of each file (columns time pid tid cpu ip period event; --raw: every
 * column, the decoded ProfileMe/IBS fields included) and prints one line:
 *
 *   threads N files F bytes B samples S wall_s W cpu_s C MB_per_s R peak_rss_kb K sum X read_bytes Y first_rows_s Z
 *
 * (wall and CPU time of the whole run, the scan included; `sum` is a
 * checksum of the rows, equal for every thread count; read_bytes what
 * the process read with read()/pread(), /proc/self/io rchar; first_rows_s
 * when the first rows came: the scan before the threads start decoding).  The two floors of
 * the same files, for the arithmetic of what N threads can give:
 * --scan only builds each file's chunk index (pm_chunk_index_new_from_file()
 * in N pieces: the pass the threaded reader makes before it decodes;
 * samples = chunks), --io only reads the data section's bytes with N
 * threads (pread of 1 MiB windows, N equal parts: what any reader of the
 * page cache pays; samples = 0).  Run by tests/bench/bench_dask.py; not a
 * ctest.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* --io: one thread's part of the bytes */
struct io_part {
	int fd;
	uint64_t lo, hi, sum;
};

static void *io_run(void *arg)
{
	struct io_part *p = arg;
	size_t win = 1u << 20;
	uint8_t *b = malloc(win);

	for (uint64_t o = p->lo; b && o < p->hi;) {
		ssize_t k = pread(p->fd, b, (size_t)(p->hi - o < win ? p->hi - o : win), (off_t)o);

		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k; i += 4096)
			p->sum += b[i];
		o += (uint64_t)k;
	}
	free(b);
	return NULL;
}

static int io_file(const char *path, int threads, uint64_t lo, uint64_t hi, uint64_t *sum)
{
	struct io_part part[64];
	pthread_t th[64];
	int fd = open(path, O_RDONLY), n = threads < 1 ? 1 : threads > 64 ? 64 : threads;

	if (fd < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		part[i] = (struct io_part){ fd, lo + (hi - lo) / n * i, i + 1 < n ? lo + (hi - lo) / n * (i + 1) : hi, 0 };
		if (i && pthread_create(&th[i], NULL, io_run, &part[i]))
			return -1;
	}
	io_run(&part[0]);
	for (int i = 1; i < n; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < n; i++)
		*sum += part[i].sum;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static struct row rows[1 << 16];
	uint8_t *wide = NULL;
	int raw = argc > 1 && !strcmp(argv[1], "--raw"), scan = argc > 1 && !strcmp(argv[1], "--scan"),
	    io = argc > 1 && !strcmp(argv[1], "--io");
	uint64_t samples = 0, bytes = 0, sum = 0, chunk_bytes = 0, rchar = 0;
	long hwm = -1;
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), w, c, first_s = -1;
	struct rusage ru;
	int threads;

	argc -= raw + scan + io;
	argv += raw + scan + io;
	if (argc > 2 && !strcmp(argv[1], "--chunk-mb")) {
		chunk_bytes = strtoull(argv[2], NULL, 10) << 20;
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: bench_chunks [--raw|--scan|--io] [--chunk-mb M] THREADS FILE...\n");
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
		if (scan || io) {
			struct pm_chunk_index_opts io_ = { .sz = sizeof(io_), .threads = threads,
							   .chunk_bytes = chunk_bytes ? chunk_bytes : 8u << 20 };
			struct pm_file_info fi = { .sz = sizeof(fi) };
			pm_chunk_index *idx;

			pm_columns_free(cols);
			if (io) {
				if (pm_file_get_info(f, &fi) ||
				    io_file(argv[a], threads, fi.data_offset,
					    fi.data_offset + (fi.data_size ? fi.data_size : (uint64_t)st.st_size - fi.data_offset), &sum)) {
					fprintf(stderr, "%s: cannot read it\n", argv[a]);
					return 1;
				}
			} else if (pm_chunk_index_new_from_file(&idx, f, &io_)) {
				fprintf(stderr, "%s: %s\n", argv[a], pm_errmsg());
				return 1;
			} else {
				samples += pm_chunk_index_count(idx);
				pm_chunk_index_free(idx);
			}
			pm_file_close(f);
			continue;
		}
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
			if (first_s < 0)
				first_s = now(CLOCK_MONOTONIC) - w0;
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
	{
		/* bytes read by read()/pread() (the reader's windows, the scan's,
		 * the chunks' overlaps): /proc/self/io rchar */
		FILE *pio = fopen("/proc/self/io", "r");
		char line[128];

		while (pio && fgets(line, sizeof(line), pio))
			if (!strncmp(line, "rchar: ", 7))
				rchar = strtoull(line + 7, NULL, 10);
		if (pio)
			fclose(pio);
		/* peak RSS of this program (VmHWM: ru_maxrss keeps the high-water
		 * mark of the process before exec, e.g. a Python parent's) */
		pio = fopen("/proc/self/status", "r");
		while (pio && fgets(line, sizeof(line), pio))
			if (!strncmp(line, "VmHWM:", 6))
				hwm = strtol(line + 6, NULL, 10);
		if (pio)
			fclose(pio);
	}
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	getrusage(RUSAGE_SELF, &ru);
	printf("threads %d files %d bytes %llu samples %llu wall_s %.3f cpu_s %.3f MB_per_s %.1f "
	       "peak_rss_kb %ld sum %llx read_bytes %llu first_rows_s %.3f\n", threads, argc - 2, (unsigned long long)bytes,
	       (unsigned long long)samples, w, c, bytes / 1048576.0 / w, hwm >= 0 ? hwm : ru.ru_maxrss,
	       (unsigned long long)sum, (unsigned long long)rchar, first_s);
	return 0;
}
