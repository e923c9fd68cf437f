/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Columnar batches (profileme/export.h), checked against an independent pass
 * over the same file with pm_file_next / pm_file_sample / pm_profileme_decode. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <profileme/profileme.h>

#include "pm_check.h"

#define SYNTH PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data"

/* The expected rows, gathered the slow way. */
struct want {
	uint64_t time, ip, period, pc, pctr_ctl;
	uint32_t pid, tid, cpu;
	int32_t event;
	int raw_ok, trap, mode;
};

static size_t collect(struct want **out)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct want *w = NULL;
	size_t n = 0;
	pm_file *f;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	while (pm_file_next(f, &rec) == 1) {
		struct pm_sample s = { .sz = sizeof(s) };
		struct pm_profileme_sample p = { .sz = sizeof(p) };

		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(pm_file_sample(f, &rec, &s), 0);
		w = realloc(w, (n + 1) * sizeof(*w));
		ck_assert_ptr_nonnull(w);
		memset(&w[n], 0, sizeof(w[n]));
		w[n].time = s.time;
		w[n].ip = s.ip;
		w[n].period = s.period;
		w[n].pid = s.pid;
		w[n].tid = s.tid;
		w[n].cpu = s.cpu;
		w[n].event = rec.attr_idx;
		if (pm_profileme_decode(s.raw.data, s.raw.size, &p) == 0) {
			w[n].raw_ok = 1;
			w[n].pc = p.pc;
			w[n].pctr_ctl = p.pctr_ctl;
			w[n].trap = p.trap;
			w[n].mode = p.mode;
		}
		n++;
	}
	pm_file_close(f);
	*out = w;
	return n;
}

static int col_index(const pm_columns *c, const char *name)
{
	for (size_t i = 0; i < pm_columns_count(c); i++)
		if (!strcmp(pm_columns_name(c, i), name))
			return (int)i;
	return -1;
}

START_TEST(test_schema)
{
	static const char *const base[] = { "time", "pid", "tid", "cpu", "ip", "period", "addr", "id",
					    "event", "cpumode", "callchain_nr", "callchain_markers", "raw_ok" };
	pm_file *f;
	pm_columns *c;

	ck_assert_uint_eq(sizeof(base) / sizeof(base[0]), PM_COLUMNS_NBASE);
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, NULL), 0);
	for (size_t i = 0; i < (sizeof(base) / sizeof(base[0])); i++)
		ck_assert_str_eq(pm_columns_name(c, i), base[i]);
	ck_assert_ptr_nonnull(pm_columns_decoder(c));
	ck_assert_str_eq(pm_raw_decoder_name(pm_columns_decoder(c)), "alpha_profileme");
	/* every decoder field is a column, codes and flags one byte wide */
	ck_assert_uint_eq(pm_columns_count(c), (sizeof(base) / sizeof(base[0])) + pm_raw_field_count(pm_columns_decoder(c)));
	ck_assert_int_eq(pm_columns_type(c, (size_t)col_index(c, "pc")), PM_COL_U64);
	ck_assert_int_eq(pm_columns_type(c, (size_t)col_index(c, "trap")), PM_COL_U8);
	ck_assert_int_eq(pm_columns_type(c, (size_t)col_index(c, "killed")), PM_COL_U8);
	ck_assert_uint_eq(pm_columns_width(c, (size_t)col_index(c, "pid")), 4);
	ck_assert_int_eq(pm_columns_type(c, 9999), -EINVAL);
	ck_assert_ptr_null(pm_columns_name(c, 9999));
	ck_assert_uint_eq(pm_columns_width(c, 9999), 0);
	/* no ProfileMe "_valid" twins: the hardware never marks them invalid */
	ck_assert_int_eq(col_index(c, "pc_valid"), -1);
	pm_columns_free(c);
	pm_file_close(f);
}
END_TEST

/* Batches of 7 rows through separate column buffers. */
START_TEST(test_columns_match)
{
	struct want *w;
	size_t nw = collect(&w), got = 0, n;
	uint64_t time[7], ip[7], pc[7], period[7];
	uint32_t pid[7], cpu[7];
	int32_t event[7];
	uint8_t raw_ok[7], trap[7], mode[7];
	pm_file *f;
	pm_columns *c;
	void *bufs[64] = { 0 };
	int rc;

	ck_assert_uint_gt(nw, 100);
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, NULL), 0);
	ck_assert_uint_le(pm_columns_count(c), (sizeof(bufs) / sizeof(bufs[0])));
	bufs[col_index(c, "time")] = time;
	bufs[col_index(c, "ip")] = ip;
	bufs[col_index(c, "pc")] = pc;
	bufs[col_index(c, "period")] = period;
	bufs[col_index(c, "pid")] = pid;
	bufs[col_index(c, "cpu")] = cpu;
	bufs[col_index(c, "event")] = event;
	bufs[col_index(c, "raw_ok")] = raw_ok;
	bufs[col_index(c, "trap")] = trap;
	bufs[col_index(c, "mode")] = mode;
	do {
		rc = pm_columns_read(c, bufs, pm_columns_count(c), 7, &n);
		ck_assert_int_eq(rc, 0);
		for (size_t i = 0; i < n; i++) {
			const struct want *e = &w[got + i];

			ck_assert_uint_lt(got + i, nw);
			ck_assert_uint_eq(time[i], e->time);
			ck_assert_uint_eq(ip[i], e->ip);
			ck_assert_uint_eq(period[i], e->period);
			ck_assert_uint_eq(pid[i], e->pid);
			ck_assert_uint_eq(cpu[i], e->cpu);
			ck_assert_int_eq(event[i], e->event);
			ck_assert_uint_eq(raw_ok[i], e->raw_ok);
			ck_assert_uint_eq(pc[i], e->raw_ok ? e->pc : 0);
			ck_assert_uint_eq(trap[i], e->raw_ok ? e->trap : 0);
			ck_assert_uint_eq(mode[i], e->raw_ok ? e->mode : 0);
		}
		got += n;
	} while (n == 7);
	ck_assert_uint_eq(got, nw);
	ck_assert_uint_eq(pm_columns_skipped(c), 0);
	/* at the end: 0 rows, no error */
	ck_assert_int_eq(pm_columns_read(c, bufs, pm_columns_count(c), 7, &n), 0);
	ck_assert_uint_eq(n, 0);
	pm_columns_free(c);
	pm_file_close(f);
	free(w);
}
END_TEST

/* Rows of a packed, unaligned record layout; a subset of the columns. */
START_TEST(test_rows_match)
{
	/* row: u8 pad | u64 time @1 | u64 pctr_ctl @9 | u32 tid @17 : 21 bytes */
	enum { ROW = 21, CAP = 50 };
	struct want *w;
	size_t nw = collect(&w), got = 0, n, offs[512];
	unsigned char *rows = malloc((size_t)ROW * CAP + 1);
	pm_file *f;
	pm_columns *c;

	ck_assert_ptr_nonnull(rows);
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, NULL), 0);
	for (size_t i = 0; i < pm_columns_count(c); i++)
		offs[i] = SIZE_MAX;
	offs[col_index(c, "time")] = 1;
	offs[col_index(c, "pctr_ctl")] = 9;
	offs[col_index(c, "tid")] = 17;
	do {
		/* an odd base address: nothing may assume alignment */
		ck_assert_int_eq(pm_columns_read_rows(c, rows + 1, ROW, offs, pm_columns_count(c), CAP, &n), 0);
		for (size_t i = 0; i < n; i++) {
			const unsigned char *r = rows + 1 + i * ROW;
			uint64_t t, pc;
			uint32_t tid;

			memcpy(&t, r + 1, 8);
			memcpy(&pc, r + 9, 8);
			memcpy(&tid, r + 17, 4);
			ck_assert_uint_eq(t, w[got + i].time);
			ck_assert_uint_eq(pc, w[got + i].raw_ok ? w[got + i].pctr_ctl : 0);
			ck_assert_uint_eq(tid, w[got + i].tid);
		}
		got += n;
	} while (n == CAP);
	ck_assert_uint_eq(got, nw);
	pm_columns_free(c);
	pm_file_close(f);
	free(rows);
	free(w);
}
END_TEST

/* The record columns (misc, raw_size, raw_offset) and the absent-field
 * convention (0), checked against pm_file_next() / pm_file_sample() and
 * against the file's own bytes at raw_offset. */
START_TEST(test_record_columns)
{
	struct pm_columns_opts o = { .sz = sizeof(o), .event = -1, .record_columns = 1 };
	struct pm_file_record rec = { .sz = sizeof(rec) };
	enum { CAP = 5 };
	uint64_t time[CAP], addr[CAP], raw_offset[CAP];
	uint32_t misc[CAP], raw_size[CAP], cpu[CAP];
	uint8_t cpumode[CAP], payload[512];
	void *bufs[64] = { 0 };
	pm_file *f, *g;
	pm_columns *c;
	size_t n, got = 0, min_seen = SIZE_MAX;
	FILE *raw;
	int rc;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_file_open(&g, SYNTH, NULL), 0);
	raw = fopen(SYNTH, "rb");
	ck_assert_ptr_nonnull(raw);
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, &o), 0);
	/* after raw_ok, before the decoded fields */
	ck_assert_int_eq(pm_columns_index(c, "raw_ok"), PM_COLUMNS_NBASE - 1);
	ck_assert_int_eq(pm_columns_index(c, "misc"), PM_COLUMNS_NBASE);
	ck_assert_int_eq(pm_columns_index(c, "raw_size"), PM_COLUMNS_NBASE + 1);
	ck_assert_int_eq(pm_columns_index(c, "raw_offset"), PM_COLUMNS_NBASE + 2);
	ck_assert_ptr_nonnull(pm_columns_decoder(c));
	ck_assert_int_eq(pm_columns_index(c, pm_raw_field_name(pm_columns_decoder(c), 0)), PM_COLUMNS_NBASE + 3);
	ck_assert_int_eq(pm_columns_index(c, "no such column"), -ENOENT);
	ck_assert_int_eq(pm_columns_index(NULL, "pc"), -EINVAL);
	ck_assert_int_eq(pm_columns_type(c, PM_COLUMNS_NBASE), PM_COL_U32);
	ck_assert_int_eq(pm_columns_type(c, PM_COLUMNS_NBASE + 2), PM_COL_U64);
	ck_assert_uint_le(pm_columns_count(c), 64);
	bufs[pm_columns_index(c, "time")] = time;
	bufs[pm_columns_index(c, "addr")] = addr;
	bufs[pm_columns_index(c, "cpu")] = cpu;
	bufs[pm_columns_index(c, "cpumode")] = cpumode;
	bufs[PM_COLUMNS_NBASE] = misc;
	bufs[PM_COLUMNS_NBASE + 1] = raw_size;
	bufs[PM_COLUMNS_NBASE + 2] = raw_offset;
	do {
		rc = pm_columns_read(c, bufs, pm_columns_count(c), CAP, &n);
		ck_assert_int_eq(rc, 0);
		for (size_t i = 0; i < n; i++) {
			struct pm_sample smp = { .sz = sizeof(smp) };
			const struct pm_attr *a;

			do
				ck_assert_int_eq(pm_file_next(g, &rec), 1);
			while (rec.type != PM_RECORD_SAMPLE);
			ck_assert_int_eq(pm_file_sample(g, &rec, &smp), 0);
			if (rec.size < min_seen)
				min_seen = rec.size;
			a = pm_file_attr(g, (size_t)rec.attr_idx);
			ck_assert_uint_eq(misc[i], rec.misc);
			ck_assert_uint_eq(cpumode[i], rec.misc & 7);
			ck_assert_uint_eq(raw_size[i], smp.raw.size);
			ck_assert_uint_eq(time[i], (a->sample_type & PM_SAMPLE_TIME) ? smp.time : 0);
			ck_assert_uint_eq(cpu[i], (a->sample_type & PM_SAMPLE_CPU) ? smp.cpu : 0);
			/* absent: 0 */
			if (!(a->sample_type & PM_SAMPLE_ADDR))
				ck_assert_uint_eq(addr[i], 0);
			ck_assert_uint_gt(raw_offset[i], 0);
			ck_assert_uint_le(raw_size[i], sizeof(payload));
			ck_assert_int_eq(fseek(raw, (long)raw_offset[i], SEEK_SET), 0);
			ck_assert_uint_eq(fread(payload, 1, raw_size[i], raw), raw_size[i]);
			ck_assert_int_eq(memcmp(payload, smp.raw.data, raw_size[i]), 0);
		}
		got += n;
	} while (n == CAP);
	ck_assert_uint_gt(got, 100);
	while ((rc = pm_file_next(g, &rec)) == 1)
		ck_assert_uint_ne(rec.type, PM_RECORD_SAMPLE);
	ck_assert_int_eq(rc, 0);
	/* the size bound of the bulk reader: no SAMPLE is smaller */
	ck_assert_uint_ge(pm_file_min_sample_size(f), 16);
	ck_assert_uint_le(pm_file_min_sample_size(f), min_seen);
	ck_assert_uint_eq(pm_file_min_sample_size(f) % 8, 0);
	ck_assert_uint_eq(pm_file_min_sample_size(NULL), 0);
	pm_columns_free(c);
	/* without the option: not there, the decoded fields follow raw_ok */
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, NULL), 0);
	ck_assert_int_eq(pm_columns_index(c, "misc"), -ENOENT);
	ck_assert_int_eq(pm_columns_index(c, pm_raw_field_name(pm_columns_decoder(c), 0)), PM_COLUMNS_NBASE);
	pm_columns_free(c);
	fclose(raw);
	pm_file_close(g);
	pm_file_close(f);
}
END_TEST

START_TEST(test_options_and_errors)
{
	struct pm_columns_opts o = { .sz = sizeof(o), .event = 0 };
	unsigned char big[sizeof(o) + 16] = { 0 };
	size_t offs[1] = { 4 }, n = 99;
	uint64_t row[2];
	pm_file *f;
	pm_columns *c = (pm_columns *)1;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_columns_new_from_file(NULL, f, NULL), -EINVAL);
	ck_assert_int_eq(pm_columns_new_from_file(&c, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(c);
	o.event = 5;
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, &o), -ENOENT);
	ck_assert_ptr_null(c);
	o.event = -1;
	o.decoder = "no-such-decoder";
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, &o), -ENOENT);
	/* a larger struct: zero tail accepted, non-zero tail rejected */
	o.decoder = NULL;
	memcpy(big, &o, sizeof(o));
	((struct pm_columns_opts *)(void *)big)->sz = sizeof(big);
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, (struct pm_columns_opts *)(void *)big), 0);
	pm_columns_free(c);
	big[sizeof(o) + 3] = 1;
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, (struct pm_columns_opts *)(void *)big), -PM_ERR_STRUCT_SIZE);
	/* no_raw: base columns only */
	o.no_raw = 1;
	ck_assert_int_eq(pm_columns_new_from_file(&c, f, &o), 0);
	ck_assert_uint_eq(pm_columns_count(c), PM_COLUMNS_NBASE);
	ck_assert_ptr_null(pm_columns_decoder(c));
	/* a column that does not fit its row */
	ck_assert_int_eq(pm_columns_read_rows(c, row, 8, offs, 1, 1, &n), -EINVAL);
	ck_assert_int_eq(pm_columns_read(c, NULL, 3, 1, &n), -EINVAL);
	ck_assert_int_eq(pm_columns_read(NULL, NULL, 0, 1, &n), -EINVAL);
	pm_columns_free(c);
	pm_columns_free(NULL);
	ck_assert_uint_eq(pm_columns_count(NULL), 0);
	pm_file_close(f);
}
END_TEST

START_TEST(test_raw_ctx_from_file)
{
	const pm_raw_decoder *d = NULL;
	pm_raw_ctx *ctx;
	pm_file *f;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_raw_ctx_new_from_file(&ctx, f), 0);
	ck_assert_str_eq(pm_raw_ctx_arch(ctx), "alpha");
	ck_assert_int_eq(pm_raw_ctx_select(ctx, pm_file_attr(f, 0), &d), 0);
	ck_assert_str_eq(pm_raw_decoder_name(d), "alpha_profileme");
	pm_raw_ctx_free(ctx);
	ck_assert_int_eq(pm_raw_ctx_new_from_file(NULL, f), -EINVAL);
	ck_assert_int_eq(pm_raw_ctx_new_from_file(&ctx, NULL), -EINVAL);
	pm_file_close(f);
}
END_TEST


/* ---- pm_export_folded / pm_export_pprof -------------------------------- */

static char *folded_of(const struct pm_export_opts *o, int *rc)
{
	char path[] = "/tmp/pm-folded-XXXXXX";
	int fd = mkstemp(path);
	pm_file *f;
	char *buf;
	long n;
	FILE *fp;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	*rc = pm_export_folded(f, o, fd);
	pm_file_close(f);
	fp = fdopen(fd, "r");
	ck_assert_ptr_nonnull(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	return buf;
}

struct prog_seen {
	uint64_t calls, last_off, size, samples;
};

static void prog_cb(void *user, uint64_t off, uint64_t size, uint64_t samples)
{
	struct prog_seen *p = user;

	p->calls++;
	p->last_off = off;
	p->size = size;
	p->samples = samples;
}

START_TEST(test_folded)
{
	struct prog_seen ps = { 0 };
	struct pm_export_opts o = { .sz = sizeof(o), .event = -1,
				    .symfs = PM_TEST_SRCDIR "/examples/data/symfs",
				    .kallsyms = PM_TEST_SRCDIR "/examples/data/symfs/kallsyms",
				    .progress = prog_cb, .progress_user = &ps };
	uint64_t total = 0, lines = 0;
	char *prev = NULL, *text, *line, *save = NULL;
	int rc;

	text = folded_of(&o, &rc);
	ck_assert_int_eq(rc, 0);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		ck_assert_ptr_nonnull(sp);
		/* comm;frames: pmdemo, or the kernel thread a user PMPC was sampled in */
		ck_assert_msg(strchr(line, ';') && strchr(line, ';') < sp && line[0] != ';', "line %s", line);
		total += strtoull(sp + 1, NULL, 10);
		*sp = 0;
		if (prev)
			ck_assert_msg(strcmp(prev, line) < 0, "not sorted: %s / %s", prev, line);
		prev = line;
		lines++;
	}
	/* 200 decodable samples and the 2 the decoder refuses, no callchains. */
	ck_assert_uint_eq(total, 202);
#ifdef PM_LIB_HAS_LIBELF
	ck_assert_uint_ge(lines, 5);
#else
	ck_assert_uint_ge(lines, 2); /* no symbols: modules only */
#endif
	ck_assert_uint_ge(ps.calls, 1);
	ck_assert_uint_eq(ps.samples, 202);
	ck_assert_uint_eq(ps.last_off, ps.size);
	free(text);

	/* The symbols of the symfs: user PCs land in pmdemo's functions; without
	 * symbols every user frame is [pmdemo] (its module) or [unknown]. */
	o.progress = NULL;
	text = folded_of(&o, &rc);
#ifdef PM_LIB_HAS_LIBELF
	ck_assert_ptr_nonnull(strstr(text, "pmdemo;parse_branchy "));
#endif
	ck_assert_ptr_nonnull(strstr(text, "pmdemo;[PALcode] "));
	free(text);
	o.flags = PM_EXPORT_NO_SYMBOLS;
	text = folded_of(&o, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_null(strstr(text, "parse_branchy"));
	ck_assert_ptr_nonnull(strstr(text, "pmdemo;[pmdemo] "));
	free(text);
	o.flags = PM_EXPORT_FOLDED_TID;
	text = folded_of(&o, &rc);
#ifdef PM_LIB_HAS_LIBELF
	ck_assert_ptr_nonnull(strstr(text, "pmdemo-4242/4242;parse_branchy "));
#else
	ck_assert_ptr_nonnull(strstr(text, "pmdemo-4242/4242;"));
#endif
	free(text);
}
END_TEST

START_TEST(test_export_errors)
{
	struct pm_export_opts o = { .sz = sizeof(o), .event = -1 };
	pm_file *f;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_export_folded(NULL, NULL, 1), -EINVAL);
	ck_assert_int_eq(pm_export_folded(f, NULL, -1), -EINVAL);
	ck_assert_int_eq(pm_export_pprof(f, NULL, NULL), -EINVAL);
	o.sz = 4;
	ck_assert_int_eq(pm_export_folded(f, &o, 1), -PM_ERR_STRUCT_SIZE);
	o.sz = sizeof(o);
	o.event = 1;
	ck_assert_int_eq(pm_export_folded(f, &o, 1), -ENOENT);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "no event 1"));
	o.event = -1;
	o.flags = 1u << 30;
	ck_assert_int_eq(pm_export_folded(f, &o, 1), -EINVAL);
	pm_file_close(f);
}
END_TEST

START_TEST(test_pprof_file)
{
	char path[] = "/tmp/pm-pprof-XXXXXX";
	struct pm_export_opts o = { .sz = sizeof(o), .event = -1 };
	unsigned char magic[2] = { 0, 0 };
	int fd = mkstemp(path), rc;
	pm_file *f;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	rc = pm_export_pprof(f, &o, path);
	pm_file_close(f);
	if (rc == -PM_ERR_UNSUPPORTED) {
		/* Built without protobuf-c/zlib: the error says how to get it. */
		ck_assert_ptr_nonnull(strstr(pm_errmsg(), "PROFILEME_PPROF"));
	} else {
		FILE *fp = fopen(path, "rb");

		ck_assert_int_eq(rc, 0);
		ck_assert_ptr_nonnull(fp);
		ck_assert_int_eq(fread(magic, 1, 2, fp), 2);
		fclose(fp);
		ck_assert_int_eq(magic[0], 0x1f); /* gzip */
		ck_assert_int_eq(magic[1], 0x8b);
	}
	/* An output that cannot be created is an error of its own. */
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	rc = pm_export_pprof(f, &o, "/nonexistent-dir/x.pb.gz");
	ck_assert(rc == -ENOENT || rc == -PM_ERR_UNSUPPORTED);
	pm_file_close(f);
	unlink(path);
}
END_TEST


struct stk_seen {
	uint64_t n, period, stop_at;
	int bad;
};

static int stk_cb(void *user, const struct pm_stack *s)
{
	struct stk_seen *k = user;

	if (s->sz < sizeof(*s) || s->nframes < 1 || !s->syms[0] || !s->dsos[0] || !s->comm)
		k->bad++;
	k->n++;
	k->period += s->period;
	return k->stop_at && k->n == k->stop_at ? 42 : 0;
}

START_TEST(test_stacks)
{
	struct stk_seen k = { 0 };
	struct pm_export_opts o = { .sz = sizeof(o), .event = -1 };
	pm_file *f;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_export_stacks(f, &o, stk_cb, &k), 0);
	pm_file_close(f);
	ck_assert_int_eq(k.bad, 0);
	ck_assert_uint_eq(k.n, 202);
	ck_assert_uint_eq(k.period, 202 * 10000ull); /* the generator's fixed period */
	memset(&k, 0, sizeof(k));
	k.stop_at = 5;
	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_export_stacks(f, &o, stk_cb, &k), 42);
	ck_assert_uint_eq(k.n, 5);
	ck_assert_int_eq(pm_export_stacks(f, &o, NULL, &k), -EINVAL);
	pm_file_close(f);
}
END_TEST

static Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("columns");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_schema);
	tcase_add_test(tc, test_columns_match);
	tcase_add_test(tc, test_rows_match);
	tcase_add_test(tc, test_record_columns);
	tcase_add_test(tc, test_options_and_errors);
	tcase_add_test(tc, test_raw_ctx_from_file);
	tcase_add_test(tc, test_folded);
	tcase_add_test(tc, test_export_errors);
	tcase_add_test(tc, test_pprof_file);
	tcase_add_test(tc, test_stacks);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(export_suite)
