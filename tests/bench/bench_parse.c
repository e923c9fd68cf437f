/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Parse every sample of a perf.data file through the C API, no output.
 * usage: bench_parse FILE [rows|next|raw|rawnext]
 *   rows (default): pm_file_read_samples, time-sorted like perf script
 *   next: pm_file_next + pm_file_sample, time-sorted, each sample made into
 *         the row pm_file_read_samples gives (the general path)
 *   raw / rawnext: the same two in file order (pm_file_opts.raw_order)
 * Prints the number of samples and a checksum over every field of every row
 * in order: rows and next (raw and rawnext) must print the same
 * (tests/cli/test_fastpaths.sh); errors end the reading in both. */
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

/* Sums of every field, independent (cheap next to the parse being timed),
 * and one weighted by the row's position, so that order counts too. */
struct sums {
	uint64_t n, f[9], ord;
};

static void row_sum(struct sums *c, const struct pm_sample_row *r)
{
	c->f[0] += r->time;
	c->f[1] += r->ip;
	c->f[2] += r->addr;
	c->f[3] += r->period;
	c->f[4] += r->id;
	c->f[5] += r->raw_offset;
	c->f[6] += (uint64_t)r->pid << 32 | r->tid;
	c->f[7] += (uint64_t)r->cpu << 32 | (uint32_t)r->event_idx;
	c->f[8] += (uint64_t)r->raw_size << 16 | r->misc;
	c->ord += ++c->n * (r->time ^ r->ip);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "rows";
	pm_file *f;
	struct sums c = { 0 };
	uint64_t sum = 0;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_parse FILE [rows|next|raw|rawnext]\n");
		return 2;
	}
	struct pm_file_opts o = { .sz = sizeof(o) };

	o.raw_order = !strncmp(mode, "raw", 3);
	rc = pm_file_open(&f, argv[1], &o);
	if (rc < 0) {
		fprintf(stderr, "bench_parse: %s\n", pm_errmsg());
		return 1;
	}
	if (!strcmp(mode, "next") || !strcmp(mode, "rawnext")) {
		struct pm_file_record rec = { .sz = sizeof(rec) };
		struct pm_sample s = { .sz = sizeof(s) };

		while ((rc = pm_file_next(f, &rec)) > 0) {
			struct pm_sample_row r;
			uint64_t p;

			if (rec.type != PM_RECORD_SAMPLE || rec.attr_idx < 0)
				continue;
			rc = pm_file_sample(f, &rec, &s);
			if (rc < 0)
				break;
			p = s.present;
			memset(&r, 0, sizeof(r));
			r.time = (p & PM_SAMPLE_TIME) ? s.time : PM_FILE_NO_TIME;
			r.ip = s.ip;
			r.addr = s.addr;
			r.period = s.period;
			r.id = s.id;
			r.raw_offset = UINT64_MAX;
			r.pid = (p & PM_SAMPLE_TID) ? s.pid : UINT32_MAX;
			r.tid = (p & PM_SAMPLE_TID) ? s.tid : UINT32_MAX;
			r.cpu = (p & PM_SAMPLE_CPU) ? s.cpu : UINT32_MAX;
			r.event_idx = rec.attr_idx;
			r.misc = s.misc;
			if (p & PM_SAMPLE_RAW) {
				r.raw_size = s.raw.size;
				if (!rec.from_compressed && s.raw.data)
					r.raw_offset = rec.offset + (uint64_t)((const uint8_t *)s.raw.data -
									   (const uint8_t *)rec.data);
			}
			row_sum(&c, &r);
		}
	} else {
		static struct pm_sample_row rows[256]; /* 16 KiB: stays in the L1 cache */
		size_t k;

		do {
			rc = pm_file_read_samples(f, rows, 256, &k);
			for (size_t i = 0; i < k; i++)
				row_sum(&c, &rows[i]);
		} while (rc > 0);
	}
	if (rc < 0)
		fprintf(stderr, "bench_parse: %s\n", pm_errmsg());
	for (int i = 0; i < 9; i++)
		sum = (sum ^ c.f[i]) * 0x100000001b3ULL;
	sum ^= c.ord;
	printf("%llu samples (checksum %llx)\n", (unsigned long long)c.n, (unsigned long long)sum);
	pm_file_close(f);
	return rc < 0;
}
