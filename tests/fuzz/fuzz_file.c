/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the perf.data reader, file mode and pipe mode (and
 * COMPRESSED records when zstd is built in).
 *
 * Input: byte 0 = flags, the rest is the stream.
 *   bit 0: read through a pipe (sequential reads) instead of a regular file
 *   bit 1: raw_order (no time sorting)
 *   bit 2: keep_compressed
 *   bit 3: a small read window (4 KiB) and reorder bound (64 KiB)
 *   bit 4: read rows with pm_columns_read_rows() (base and record columns,
 *          packed) instead of pm_file_next();
 *          with bit 6 set, the exporters instead (symbols off): bit 7 clear:
 *          pm_export_stacks(); bit 7 set: pm_export_pprof() to /dev/null
 *   bit 5: (with bit 4 clear) read columns with pm_columns (profileme/export.h):
 *          bit 6 clear: every column (decoded raw fields included);
 *          bit 6 set: the base columns only (the direct-load fast path)
 * Every header getter is called, every record is decoded with
 * pm_file_record_parse() and every sample with pm_file_sample().
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <profileme/export.h>
#include <profileme/file.h>
#include <profileme/raw.h>
#include <profileme/record.h>

#include "fuzz_common.h"

static int make_fd(const uint8_t *data, size_t size, int use_pipe)
{
	if (use_pipe) {
		int p[2];
		if (pipe(p) != 0)
			abort();
#ifdef F_SETPIPE_SZ
		(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
#endif
		/* The whole stream must fit the pipe (no second thread): cut
		 * it to the pipe's capacity. */
		fcntl(p[1], F_SETFL, O_NONBLOCK);
		size_t off = 0;
		while (off < size) {
			ssize_t n = write(p[1], data + off, size - off);
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		close(p[1]);
		return p[0];
	}
	FILE *f = tmpfile();
	if (!f)
		abort();
	int fd = dup(fileno(f));
	fclose(f);
	if (fd < 0)
		abort();
	size_t off = 0;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	return fd;
}

static void walk_header(pm_file *f)
{
	struct pm_file_info info;
	memset(&info, 0, sizeof(info));
	info.sz = sizeof(info);
	PM_FUZZ_ASSERT(pm_file_get_info(f, &info) == 0);

	size_t na = pm_file_nr_attrs(f);
	for (size_t i = 0; i < na; i++) {
		PM_FUZZ_ASSERT(pm_file_attr(f, i) != NULL);
		(void)pm_file_event_name(f, i);
		size_t nr = 0;
		const uint64_t *ids = pm_file_attr_ids(f, i, &nr);
		for (size_t k = 0; k < nr && k < 16; k++)
			(void)pm_file_attr_of_id(f, ids[k]);
	}
	PM_FUZZ_ASSERT(pm_file_attr(f, na) == NULL);
	/* tracing data: every format and field */
	(void)pm_file_tracing_info(f, NULL, NULL, NULL, NULL);
	(void)pm_file_tracing_error(f);
	for (int t = 0; t < 6; t++)
		(void)pm_file_tracing_text(f, t, NULL);
	for (size_t i = 0; i < pm_file_nr_tp_formats(f) && i < 64; i++) {
		size_t nf = 0;
		PM_FUZZ_ASSERT(pm_file_tp_format(f, i, NULL, NULL, NULL, &nf) == 0);
		(void)pm_file_tp_print_fmt(f, i);
		for (size_t k = 0; k <= nf && k < 64; k++) {
			struct pm_tp_field fd = { .sz = sizeof(fd) };
			int r = pm_file_tp_field(f, i, k, &fd);
			PM_FUZZ_ASSERT(k < nf ? r == 0 && fd.name && fd.type : r == -ENOENT);
		}
	}

	for (unsigned feat = 0; feat < PM_FEAT_BITS + 2; feat++) {
		(void)pm_file_has_feature(f, feat);
		(void)pm_file_feature_string(f, feat);
		const void *d;
		size_t len;
		if (pm_file_feature_raw(f, feat, &d, &len) == 0) {
			volatile uint8_t sink = 0;
			for (size_t k = 0; k < len; k++)
				sink ^= ((const uint8_t *)d)[k];
			(void)sink;
		}
	}
	uint32_t a, b, c, d32;
	uint64_t u, v;
	const char *s1, *s2, *s3;
	(void)pm_file_nrcpus(f, &a, &b);
	(void)pm_file_total_mem(f, &u);
	for (size_t i = 0; i < 256 && pm_file_cmdline(f, i); i++)
		;
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < 256 && pm_file_cpu_topology(f, l, i); i++)
			;
	for (uint32_t cpu = 0; cpu < 8; cpu++)
		(void)pm_file_cpu_ids(f, cpu, &a, &b, &c);
	for (size_t i = 0; i < 256 && pm_file_pmu_mapping(f, i, &a, &s1) == 0; i++)
		PM_FUZZ_ASSERT(s1 != NULL);
	for (size_t i = 0; i < 256 && pm_file_group_desc(f, i, &s1, &a, &b) == 0; i++)
		;
	(void)pm_file_sample_time(f, &u, &v);
	(void)pm_file_clockid_res(f, &u);
	(void)pm_file_clock_data(f, &a, &u, &v);
	(void)pm_file_compression(f, &a, &b, &c, &d32);
	for (size_t i = 0; i < 256 && pm_file_pmu_cap(f, i, &s1, &s2, &s3) == 0; i++)
		;
	for (size_t i = 0; i < 256; i++) {
		int32_t pid;
		uint16_t misc;
		const uint8_t *id;
		size_t idlen;
		const char *name;
		if (pm_file_build_id(f, i, &pid, &misc, &id, &idlen, &name) != 0)
			break;
	}
	(void)pm_file_header_status(f, &u);
	pm_raw_ctx *ctx = NULL;
	if (pm_raw_ctx_new_from_file(&ctx, f) == 0)
		pm_raw_ctx_free(ctx);
}

static void walk_records(pm_file *f)
{
	struct pm_file_record rec;
	struct pm_sample s;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	pm_raw_ctx *jctx = NULL;
	if (pm_raw_ctx_new_from_file(&jctx, f) < 0)
		jctx = NULL;
	for (int n = 0; n < 200000; n++) {
		memset(&rec, 0, sizeof(rec));
		rec.sz = sizeof(rec);
		rc = pm_file_next(f, &rec);
		if (rc <= 0)
			break;
		PM_FUZZ_ASSERT(rec.data != NULL && rec.size >= 8);
		PM_FUZZ_ASSERT(rec.attr_idx >= -1 && (rec.attr_idx < 0 || (size_t)rec.attr_idx < pm_file_nr_attrs(f)));
		struct pm_record r;
		memset(&r, 0, sizeof(r));
		r.sz = sizeof(r);
		int rpr = pm_file_record_parse(f, &rec, &r);
		{
			/* JSON of the record: measured = written, NUL-terminated */
			char js[256];
			int jm = pm_json_record(f, &rec, rpr == 0 ? &r : NULL, NULL, NULL, 0);
			int jn = pm_json_record(f, &rec, rpr == 0 ? &r : NULL, NULL, js, sizeof(js));

			PM_FUZZ_ASSERT(jm > 0 && jn == jm);
			PM_FUZZ_ASSERT(js[(size_t)jn < sizeof(js) ? (size_t)jn : sizeof(js) - 1] == 0);
		}
		if (rec.type == PM_RECORD_SAMPLE) {
			/* One struct across all samples (see the declaration):
			 * an error on one sample must not spoil the next. */
			int src = pm_file_sample(f, &rec, &s);

			PM_FUZZ_ASSERT(s.sz == sizeof(s));
			PM_FUZZ_ASSERT(pm_file_sample(f, &rec, &s) == src);
			{
				/* the core fields: pm_file_sample()'s, its error too */
				struct pm_sample_core co = { .sz = sizeof(co) };
				char m1[512];
				int crc;

				snprintf(m1, sizeof(m1), "%s", pm_errmsg());
				crc = pm_file_sample_core(f, &rec, &co);
				PM_FUZZ_ASSERT(crc == src);
				if (crc < 0)
					PM_FUZZ_ASSERT(!strcmp(m1, pm_errmsg()));
				else
					PM_FUZZ_ASSERT(co.present == s.present && co.misc == s.misc &&
						       co.id == s.id && co.ip == s.ip && co.time == s.time &&
						       co.addr == s.addr && co.period == s.period &&
						       co.pid == s.pid && co.tid == s.tid && co.cpu == s.cpu &&
						       co.raw_size == ((s.present & PM_SAMPLE_RAW) ? s.raw.size : 0) &&
						       co.raw == ((s.present & PM_SAMPLE_RAW) ? s.raw.data : NULL));
			}
			if (src == 0) {
				volatile uint8_t sink = 0;
				for (uint32_t k = 0; k < s.raw.size; k++)
					sink ^= s.raw.data[k];
				(void)sink;
			}
			/* JSON of the sample, its payload decoded by the file's decoder */
			if (src == 0) {
				const struct pm_attr *at = rec.attr_idx >= 0 ?
					pm_file_attr(f, (size_t)rec.attr_idx) : NULL;
				struct pm_json_opts jo = { .sz = sizeof(jo), .raw_ctx = jctx };
				char js[300];
				int jm, jn;

				if (jctx && at)
					(void)pm_raw_ctx_select(jctx, at, &jo.raw_decoder);
				jm = pm_json_sample(f, rec.attr_idx, &s, &jo, NULL, 0);
				jn = pm_json_sample(f, rec.attr_idx, &s, &jo, js, sizeof(js));
				PM_FUZZ_ASSERT(jm > 0 && jn == jm);
				PM_FUZZ_ASSERT(js[(size_t)jn < sizeof(js) ? (size_t)jn : sizeof(js) - 1] == 0);
			}
			/* a tracepoint's fields from the file's formats */
			int fi = src == 0 && rec.attr_idx >= 0 ?
				 pm_file_tp_format_of_attr(f, (size_t)rec.attr_idx) : -1;
			if (fi >= 0) {
				char js[512];
				size_t nf = 0;
				int jn = pm_file_tp_format_json(f, (size_t)fi, s.raw.data, s.raw.size, js,
								sizeof(js));
				PM_FUZZ_ASSERT(jn < 0 ||
					       js[(size_t)jn < sizeof(js) ? (size_t)jn : sizeof(js) - 1] == 0);
				(void)pm_file_tp_format(f, (size_t)fi, NULL, NULL, NULL, &nf);
				for (size_t k = 0; k < nf && k < 64; k++) {
					struct pm_tp_value tv = { .sz = sizeof(tv) };
					if (pm_file_tp_value(f, (size_t)fi, k, s.raw.data, s.raw.size,
							     &tv) == 0 && tv.kind == PM_TP_VALUE_ARRAY)
						for (uint32_t e = 0; e < tv.nelem && e < 64; e++)
							(void)pm_tp_value_elem(&tv, e);
				}
			}
		}
	}
	if (rc < 0) {
		/* Errors stick. */
		memset(&rec, 0, sizeof(rec));
		rec.sz = sizeof(rec);
		PM_FUZZ_ASSERT(pm_file_next(f, &rec) == rc);
		(void)pm_file_error_offset(f);
	}
	(void)pm_file_end_status(f, NULL, NULL);
	pm_raw_ctx_free(jctx);
}

/* Rows of the base and record columns (no decoded fields) packed one after
 * another in a row, through pm_columns_read_rows(). */
static void walk_rows(pm_file *f)
{
	struct pm_columns_opts o;
	static uint8_t rows[64 * 128];
	size_t off[32], row = 0, ncols;
	pm_columns *c = NULL;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.event = -1;
	o.no_raw = 1;
	o.record_columns = 1;
	if (pm_columns_new_from_file(&c, f, &o) != 0) {
		PM_FUZZ_ASSERT(c == NULL);
		return;
	}
	ncols = pm_columns_count(c);
	PM_FUZZ_ASSERT(ncols == PM_COLUMNS_NBASE + 3);
	for (size_t i = 0; i < ncols; i++) {
		off[i] = row;
		row += pm_columns_width(c, i);
	}
	PM_FUZZ_ASSERT(row <= 128);
	for (int n = 0; n < 10000; n++) {
		size_t got = 0;
		int rc = pm_columns_read_rows(c, rows, row, off, ncols, 64, &got);

		PM_FUZZ_ASSERT(got <= 64);
		if (rc < 0 || got < 64)
			break;
	}
	pm_columns_free(c);
}

static void walk_columns(pm_file *f, int base_only)
{
	enum { CAP = 32 };
	static uint64_t store[512][CAP];
	void *bufs[512];
	pm_columns *c = NULL;
	size_t ncols;

	if (pm_columns_new_from_file(&c, f, NULL) != 0) {
		PM_FUZZ_ASSERT(c == NULL);
		return;
	}
	ncols = pm_columns_count(c);
	PM_FUZZ_ASSERT(ncols >= PM_COLUMNS_NBASE && ncols <= 512);
	for (size_t i = 0; i < ncols; i++) {
		PM_FUZZ_ASSERT(pm_columns_width(c, i) >= 1 && pm_columns_width(c, i) <= 8);
		bufs[i] = base_only && i >= PM_COLUMNS_NBASE - 1 ? NULL : store[i]; /* raw_ok and later */
	}
	for (int n = 0; n < 10000; n++) {
		size_t got = 0;
		int rc = pm_columns_read(c, bufs, ncols, CAP, &got);

		PM_FUZZ_ASSERT(got <= CAP);
		if (rc < 0 || got == 0)
			break;
	}
	pm_columns_free(c);
}

static int stack_cb(void *user, const struct pm_stack *s)
{
	(void)user;
	PM_FUZZ_ASSERT(s->nframes >= 1 && s->addrs && s->syms && s->dsos && s->comm);
	for (size_t i = 0; i < s->nframes; i++)
		PM_FUZZ_ASSERT(s->syms[i] && s->dsos[i]);
	return 0;
}

static void walk_export(pm_file *f, int pprof)
{
	struct pm_export_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.event = -1;
	o.flags = PM_EXPORT_NO_SYMBOLS;
	if (pprof)
		rc = pm_export_pprof(f, &o, "/dev/null");
	else
		rc = pm_export_stacks(f, &o, stack_cb, NULL);
	PM_FUZZ_ASSERT(rc <= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	int fd = make_fd(data + 1, size - 1, flags & 1);
	struct pm_file_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.raw_order = (flags >> 1) & 1;
	opts.keep_compressed = (flags >> 2) & 1;
	if (flags & 8) {
		opts.window_size = 4096;
		opts.reorder_max_bytes = 65536;
	}
	pm_file *f = NULL;
	int rc = pm_file_open_fd(&f, fd, &opts);
	if (rc == 0) {
		walk_header(f);
		if ((flags & 16) && (flags & 64))
			walk_export(f, (flags >> 7) & 1);
		else if (flags & 16)
			walk_rows(f);
		else if (flags & 32)
			walk_columns(f, (flags >> 6) & 1);
		else
			walk_records(f);
		pm_file_close(f);
	} else {
		PM_FUZZ_ASSERT(rc < 0 && f == NULL);
	}
	close(fd);
	return 0;
}
