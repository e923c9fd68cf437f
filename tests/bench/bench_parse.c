/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Parse every sample of a perf.data file through the C API, no output.
 * usage: bench_parse FILE [rows|next|raw|rawnext]
 *   rows (default): the bulk reader (pm_columns_read_rows with the record
 *         columns, into a C struct), time-sorted like perf script
 *   next: pm_file_next + pm_file_sample, time-sorted, each sample made into
 *         the row the bulk reader gives (the general path; the conventions
 *         of docs/conventions.md "Bulk reads": absent fields 0, samples that
 *         cannot be decoded skipped and counted)
 *   raw / rawnext: the same two in file order (pm_file_opts.raw_order)
 * Prints the number of samples, the number skipped and a checksum over
 * every field of every row in order: rows and next (raw and rawnext) must
 * print the same (tests/cli/test_fastpaths.sh); errors end the reading in
 * both. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

struct row {
	uint64_t time, ip, addr, period, id, raw_offset;
	uint32_t pid, tid, cpu, raw_size, misc;
	int32_t event;
};

/* Sums of every field, independent, and one weighted by the row's
 * position, so that order counts too.  Every value of every row is read,
 * as a consumer of the rows would, in a loop over the rows with its sums
 * in registers (written back once per array), so that the check costs what
 * a consumer's use would and not a store-to-load round trip per field. */
struct sums {
	uint64_t n, f[9], ord;
};

static void rows_sum(struct sums *c, const struct row *rows, size_t nrows)
{
	uint64_t f0 = c->f[0], f1 = c->f[1], f2 = c->f[2], f3 = c->f[3], f4 = c->f[4];
	uint64_t f5 = c->f[5], f6 = c->f[6], f7 = c->f[7], f8 = c->f[8], n = c->n, ord = c->ord;

	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		f0 += r->time;
		f1 += r->ip;
		f2 += r->addr;
		f3 += r->period;
		f4 += r->id;
		f5 += r->raw_offset;
		f6 += (uint64_t)r->pid << 32 | r->tid;
		f7 += (uint64_t)r->cpu << 32 | (uint32_t)r->event;
		f8 += (uint64_t)r->raw_size << 16 | r->misc;
		ord += ++n * (r->time ^ r->ip);
	}
	c->f[0] = f0;
	c->f[1] = f1;
	c->f[2] = f2;
	c->f[3] = f3;
	c->f[4] = f4;
	c->f[5] = f5;
	c->f[6] = f6;
	c->f[7] = f7;
	c->f[8] = f8;
	c->n = n;
	c->ord = ord;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "rows";
	pm_file *f;
	struct sums c = { 0 };
	uint64_t sum = 0, skipped = 0;
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
			const struct pm_attr *a;
			struct row r;
			uint64_t p;

			if (rec.type != PM_RECORD_SAMPLE)
				continue;
			if (rec.attr_idx < 0 || pm_file_sample(f, &rec, &s) < 0) {
				skipped++;
				continue;
			}
			p = s.present;
			a = pm_file_attr(f, (size_t)rec.attr_idx);
			memset(&r, 0, sizeof(r));
			r.time = s.time;
			r.ip = s.ip;
			r.addr = s.addr;
			r.period = s.period;
			if (!(p & PM_SAMPLE_PERIOD) && !(a->flags & PM_ATTR_FREQ))
				r.period = a->sample_period;
			r.id = s.id;
			r.pid = s.pid;
			r.tid = s.tid;
			r.cpu = s.cpu;
			r.event = rec.attr_idx;
			r.misc = rec.misc;
			if (p & PM_SAMPLE_RAW) {
				r.raw_size = s.raw.size;
				if (!rec.from_compressed)
					r.raw_offset = rec.offset + (uint64_t)((const uint8_t *)s.raw.data -
									   (const uint8_t *)rec.data);
			}
			rows_sum(&c, &r, 1);
		}
	} else {
		static const struct { const char *name; size_t off; } cols[] = {
			{ "time", offsetof(struct row, time) },
			{ "ip", offsetof(struct row, ip) },
			{ "addr", offsetof(struct row, addr) },
			{ "period", offsetof(struct row, period) },
			{ "id", offsetof(struct row, id) },
			{ "raw_offset", offsetof(struct row, raw_offset) },
			{ "pid", offsetof(struct row, pid) },
			{ "tid", offsetof(struct row, tid) },
			{ "cpu", offsetof(struct row, cpu) },
			{ "raw_size", offsetof(struct row, raw_size) },
			{ "misc", offsetof(struct row, misc) },
			{ "event", offsetof(struct row, event) },
		};
		struct pm_columns_opts co = { .sz = sizeof(co), .event = -1, .no_raw = 1,
					      .record_columns = 1 };
		static struct row rows[256]; /* 18 KiB: stays in the L1 cache */
		size_t k, off[32];
		pm_columns *cols_r;

		rc = pm_columns_new_from_file(&cols_r, f, &co);
		if (rc < 0 || pm_columns_count(cols_r) > 32) {
			fprintf(stderr, "bench_parse: %s\n", pm_errmsg());
			return 1;
		}
		for (size_t i = 0; i < 32; i++)
			off[i] = SIZE_MAX;
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			off[pm_columns_index(cols_r, cols[i].name)] = cols[i].off;
		do {
			rc = pm_columns_read_rows(cols_r, rows, sizeof(rows[0]), off,
						  pm_columns_count(cols_r), 256, &k);
			rows_sum(&c, rows, k);
		} while (rc == 0 && k == 256);
		skipped = pm_columns_skipped(cols_r);
		pm_columns_free(cols_r);
	}
	if (rc < 0)
		fprintf(stderr, "bench_parse: %s\n", pm_errmsg());
	for (int i = 0; i < 9; i++)
		sum = (sum ^ c.f[i]) * 0x100000001b3ULL;
	sum ^= c.ord;
	printf("%llu samples, %llu skipped (checksum %llx)\n", (unsigned long long)c.n,
	       (unsigned long long)skipped, (unsigned long long)sum);
	pm_file_close(f);
	return rc < 0;
}
