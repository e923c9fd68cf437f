/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * JSON export: samples and records as `profileme script --json` prints them,
 * and the library's one string escaper.  Everything is written straight into
 * the caller's buffer with snprintf() semantics; numbers are formatted two
 * digits at a time, strings copied in runs of bytes that need no escape.
 * docs/json.md says why this is not json-c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <profileme/export.h>

#include "internal/json_int.h"
#include "internal/pm_internal.h"

/* ------------------------------------------------------------------ */
/* the writer */

/* 1: the byte is copied as is inside a string literal */
static const unsigned char plain[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
	R16(0), R16(0),                                   /* 0x00-0x1f: control */
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   /* 0x20-0x2f: '"' */
	R16(1), R16(1),                                   /* 0x30-0x4f */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,   /* 0x50-0x5f: '\\' */
	R16(1),                                           /* 0x60-0x6f */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,   /* 0x70-0x7f: DEL */
	R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), /* 0x80-0xff: UTF-8 check */
#undef R16
};

static const char hexd[] = "0123456789abcdef";

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t k;
	uint32_t cp;

	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, past U+10FFFF */
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

void pm__jw_str(struct pm__jw *w, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	pm__jw_ch(w, '"');
	while (p < end) {
		const unsigned char *run = p;

		while (p < end && plain[*p])
			p++;
		if (p > run)
			pm__jw_mem(w, run, (size_t)(p - run));
		if (p == end)
			break;
		if (*p == '"' || *p == '\\') {
			char e[2] = { '\\', (char)*p };

			pm__jw_mem(w, e, 2);
			p++;
		} else if (*p >= 0x80 && (n = utf8_len(p, (size_t)(end - p))) > 0) {
			pm__jw_mem(w, p, n);
			p += n;
		} else {
			char e[6] = { '\\', 'u', '0', '0', hexd[*p >> 4], hexd[*p & 15] };

			pm__jw_mem(w, e, 6);
			p++;
		}
	}
	pm__jw_ch(w, '"');
}

void pm__jw_finish(struct pm__jw *w)
{
	if (w->cap)
		w->buf[PM_MIN(w->len, w->cap - 1)] = '\0';
}

static int jw_done(struct pm__jw *w)
{
	pm__jw_finish(w);
	if (w->len > INT32_MAX)
		return pm__err(ERANGE, "JSON text longer than 2 GiB");
	return (int)w->len;
}

/* ------------------------------------------------------------------ */
/* helpers for objects */

/* `,"key":` (the comma unless first) */
static inline void key(struct pm__jw *w, bool *first, const char *k, size_t klen)
{
	if (!*first)
		pm__jw_ch(w, ',');
	*first = false;
	pm__jw_ch(w, '"');
	pm__jw_mem(w, k, klen);
	pm__jw_mem(w, "\":", 2);
}
#define KEY(w, first, lit) key((w), (first), lit, sizeof(lit) - 1)

static void jhex(struct pm__jw *w, uint64_t v)
{
	pm__jw_ch(w, '"');
	pm__jw_hex(w, v);
	pm__jw_ch(w, '"');
}

static void jcstr(struct pm__jw *w, const char *s)
{
	pm__jw_str(w, s, strlen(s));
}

static void hexbytes(struct pm__jw *w, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char e[2] = { hexd[p[i] >> 4], hexd[p[i] & 15] };

		pm__jw_mem(w, e, 2);
	}
}

/* The name of attr idx: opts->event, the file's name, "unknown-N", "[unknown]". */
static void event_name(struct pm__jw *w, const pm_file *f, int idx, const struct pm_json_opts *o)
{
	const char *nm = o->event;

	if (!nm && idx >= 0 && f)
		nm = pm_file_event_name(f, (size_t)idx);
	if (nm) {
		jcstr(w, nm);
	} else if (idx >= 0) {
		pm__jw_mem(w, "\"unknown-", 9);
		pm__jw_u64(w, (uint64_t)idx);
		pm__jw_ch(w, '"');
	} else {
		pm__jw_mem(w, "\"[unknown]\"", 11);
	}
}

static int opts_in(const struct pm_json_opts *opts, struct pm_json_opts *o)
{
	int rc = PM__SZ_VALID(opts, pm_json_opts, PM_JSON_OPTS_SZ_V1);

	if (rc)
		return rc;
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	if (opts)
		pm__opts_copy_in(o, sizeof(*o), opts, opts->sz);
	return 0;
}

/* ------------------------------------------------------------------ */
/* public */

int pm_json_escape(const char *s, size_t n, char *buf, size_t cap)
{
	struct pm__jw w = { buf, cap, 0 };

	if ((!s && n) || (!buf && cap))
		return pm__err(EINVAL, "pm_json_escape: NULL argument");
	pm__jw_str(&w, s ? s : "", n);
	return jw_done(&w);
}

static void regs(struct pm__jw *w, bool *first, const char *k, size_t klen, const struct pm_sample *sm,
		 int which, const struct pm_regs *r)
{
	uint32_t i = 0;

	key(w, first, k, klen);
	pm__jw_mem(w, "{\"abi\":", 7);
	pm__jw_u64(w, r->abi);
	for (unsigned b = 0; b < 64; b++) {
		uint64_t v;

		if (!(r->mask & (1ULL << b)) || i >= r->nr)
			continue;
		if (pm_sample_reg(sm, which, i++, &v) < 0)
			break;
		pm__jw_mem(w, ",\"r", 3);
		pm__jw_u64(w, b);
		pm__jw_mem(w, "\":", 2);
		jhex(w, v);
	}
	pm__jw_ch(w, '}');
}

/* The decoded payload (or why it does not decode), written in place. */
static void raw_decoded(struct pm__jw *w, bool *first, const struct pm_sample *sm,
			const struct pm_json_opts *o)
{
	const char *k = pm_raw_decoder_key(o->raw_decoder);
	size_t mark = w->len;
	bool f0 = *first;
	int n;

	key(w, first, k, strlen(k));
	n = pm_raw_format_json(o->raw_decoder, o->raw_ctx, sm->raw.data, sm->raw.size,
			       w->len < w->cap ? w->buf + w->len : NULL,
			       w->len < w->cap ? w->cap - w->len : 0);
	if (n > 0) {
		w->len += (size_t)n;
		return;
	}
	/* The event's decoder applies but this payload does not decode
	 * (ProfileMe version 0 or short, IBS without its control register,
	 * ...): say why, never only "raw". */
	w->len = mark;
	*first = f0;
	KEY(w, first, "raw_error");
	jcstr(w, n < 0 ? pm_errmsg() : "empty decoded payload");
}

static void tracepoint(struct pm__jw *w, bool *first, const pm_file *f, int idx,
		       const struct pm_sample *sm)
{
	int fi = pm_file_tp_format_of_attr(f, (size_t)idx);
	size_t mark;
	bool f0;
	int n;

	if (fi < 0)
		return;
	mark = w->len;
	f0 = *first;
	KEY(w, first, "tp");
	n = pm_file_tp_format_json(f, (size_t)fi, sm->raw.data, sm->raw.size,
				   w->len < w->cap ? w->buf + w->len : NULL,
				   w->len < w->cap ? w->cap - w->len : 0);
	if (n > 0) {
		w->len += (size_t)n;
	} else {
		w->len = mark;
		*first = f0;
	}
}

int pm_json_sample(const pm_file *f, int attr_idx, const struct pm_sample *sm,
		   const struct pm_json_opts *opts, char *buf, size_t cap)
{
	struct pm__jw w0 = { buf, cap, 0 }, *w = &w0;
	struct pm_json_opts o;
	uint64_t p;
	bool first = true;
	int rc;

	if (!sm || (!buf && cap))
		return pm__err(EINVAL, "pm_json_sample: NULL argument");
	if ((rc = opts_in(opts, &o)))
		return rc;
	p = sm->present;
	pm__jw_ch(w, '{');
	if (o.flags & PM_JSON_TYPE) {
		KEY(w, &first, "type");
		pm__jw_mem(w, "\"SAMPLE\"", 8);
	}
	KEY(w, &first, "event");
	event_name(w, f, attr_idx, &o);
	if (p & PM_SAMPLE_TID) {
		KEY(w, &first, "pid");
		pm__jw_i64(w, (int32_t)sm->pid);
		KEY(w, &first, "tid");
		pm__jw_i64(w, (int32_t)sm->tid);
		KEY(w, &first, "comm");
		jcstr(w, o.comm ? o.comm : ":");
	}
	if (p & PM_SAMPLE_TIME) {
		KEY(w, &first, "time");
		pm__jw_u64(w, sm->time);
	}
	if (p & PM_SAMPLE_CPU) {
		KEY(w, &first, "cpu");
		pm__jw_u64(w, sm->cpu);
	}
	if (p & PM_SAMPLE_PERIOD) {
		KEY(w, &first, "period");
		pm__jw_u64(w, sm->period);
	}
	if (p & (PM_SAMPLE_ID | PM_SAMPLE_IDENTIFIER)) {
		KEY(w, &first, "id");
		pm__jw_u64(w, sm->id);
	}
	if (p & PM_SAMPLE_STREAM_ID) {
		KEY(w, &first, "stream_id");
		pm__jw_u64(w, sm->stream_id);
	}
	if (p & PM_SAMPLE_IP) {
		KEY(w, &first, "ip");
		jhex(w, sm->ip);
		if (o.flags & PM_JSON_SYM) {
			KEY(w, &first, "sym");
			jcstr(w, o.sym ? o.sym : "[unknown]");
			KEY(w, &first, "symoff");
			pm__jw_u64(w, o.symoff);
			KEY(w, &first, "dso");
			jcstr(w, o.dso ? o.dso : "[unknown]");
		}
	}
	if (p & PM_SAMPLE_ADDR) {
		KEY(w, &first, "addr");
		jhex(w, sm->addr);
	}
	if (p & PM_SAMPLE_PHYS_ADDR) {
		KEY(w, &first, "phys_addr");
		jhex(w, sm->phys_addr);
	}
	if (p & PM_SAMPLE_CALLCHAIN) {
		bool f2 = true;

		KEY(w, &first, "callchain");
		pm__jw_ch(w, '[');
		for (uint64_t i = 0; i < sm->callchain.nr; i++) {
			uint64_t ip;

			if (pm_sample_callchain_ip(sm, i, &ip) < 0 || PM_CONTEXT_IS_MARKER(ip))
				continue;
			if (!f2)
				pm__jw_ch(w, ',');
			f2 = false;
			jhex(w, ip);
		}
		pm__jw_ch(w, ']');
	}
	if (p & PM_SAMPLE_READ) {
		bool f3 = true;

		KEY(w, &first, "read");
		pm__jw_ch(w, '{');
		if (sm->read.format & PM_FORMAT_TOTAL_TIME_ENABLED) {
			KEY(w, &f3, "time_enabled");
			pm__jw_u64(w, sm->read.time_enabled);
		}
		if (sm->read.format & PM_FORMAT_TOTAL_TIME_RUNNING) {
			KEY(w, &f3, "time_running");
			pm__jw_u64(w, sm->read.time_running);
		}
		KEY(w, &f3, "values");
		pm__jw_ch(w, '[');
		for (uint64_t i = 0; i < sm->read.nr; i++) {
			struct pm_read_value v;

			v.sz = sizeof(v);
			if (pm_read_value_get(&sm->read, i, &v) < 0)
				break;
			if (i)
				pm__jw_ch(w, ',');
			pm__jw_mem(w, "{\"value\":", 9);
			pm__jw_u64(w, v.value);
			if (sm->read.format & PM_FORMAT_ID) {
				pm__jw_mem(w, ",\"id\":", 6);
				pm__jw_u64(w, v.id);
			}
			if (sm->read.format & PM_FORMAT_LOST) {
				pm__jw_mem(w, ",\"lost\":", 8);
				pm__jw_u64(w, v.lost);
			}
			pm__jw_ch(w, '}');
		}
		pm__jw_mem(w, "]}", 2);
	}
	if (p & PM_SAMPLE_RAW) {
		KEY(w, &first, "raw");
		pm__jw_ch(w, '"');
		hexbytes(w, sm->raw.data, sm->raw.size);
		pm__jw_ch(w, '"');
		if (o.raw_decoder)
			raw_decoded(w, &first, sm, &o);
		if (f && attr_idx >= 0)
			tracepoint(w, &first, f, attr_idx, sm);
	}
	if (p & PM_SAMPLE_BRANCH_STACK) {
		KEY(w, &first, "brstack");
		pm__jw_ch(w, '[');
		for (uint64_t i = 0; i < sm->branch_stack.nr; i++) {
			struct pm_branch_entry be;

			be.sz = sizeof(be);
			if (pm_sample_branch_entry(sm, i, &be) < 0)
				break;
			if (i)
				pm__jw_ch(w, ',');
			pm__jw_mem(w, "{\"from\":", 8);
			jhex(w, be.from);
			pm__jw_mem(w, ",\"to\":", 6);
			jhex(w, be.to);
			pm__jw_mem(w, ",\"flags\":", 9);
			jhex(w, be.flags);
			pm__jw_ch(w, '}');
		}
		pm__jw_ch(w, ']');
	}
	if (p & PM_SAMPLE_REGS_USER)
		regs(w, &first, "uregs", 5, sm, PM_REGS_USER, &sm->regs_user);
	if (p & PM_SAMPLE_STACK_USER) {
		KEY(w, &first, "stack_user");
		pm__jw_mem(w, "{\"size\":", 8);
		pm__jw_u64(w, sm->stack_user.size);
		pm__jw_mem(w, ",\"dyn_size\":", 12);
		pm__jw_u64(w, sm->stack_user.dyn_size);
		pm__jw_ch(w, '}');
	}
	if (p & (PM_SAMPLE_WEIGHT | PM_SAMPLE_WEIGHT_STRUCT)) {
		KEY(w, &first, "weight");
		pm__jw_u64(w, sm->weight);
	}
	if (p & PM_SAMPLE_DATA_SRC) {
		KEY(w, &first, "data_src");
		jhex(w, sm->data_src);
	}
	if (p & PM_SAMPLE_TRANSACTION) {
		KEY(w, &first, "transaction");
		jhex(w, sm->transaction);
	}
	if (p & PM_SAMPLE_REGS_INTR)
		regs(w, &first, "iregs", 5, sm, PM_REGS_INTR, &sm->regs_intr);
	if (p & PM_SAMPLE_CGROUP) {
		KEY(w, &first, "cgroup");
		pm__jw_u64(w, sm->cgroup);
	}
	if (p & PM_SAMPLE_DATA_PAGE_SIZE) {
		KEY(w, &first, "data_page_size");
		pm__jw_u64(w, sm->data_page_size);
	}
	if (p & PM_SAMPLE_CODE_PAGE_SIZE) {
		KEY(w, &first, "code_page_size");
		pm__jw_u64(w, sm->code_page_size);
	}
	if (p & PM_SAMPLE_AUX) {
		KEY(w, &first, "aux_size");
		pm__jw_u64(w, sm->aux.size);
	}
	pm__jw_ch(w, '}');
	return jw_done(w);
}

static void sample_id(struct pm__jw *w, bool *first, const struct pm_sample_id *id)
{
	if (id->present & PM_SAMPLE_TID) {
		KEY(w, first, "sample_pid");
		pm__jw_i64(w, (int32_t)id->pid);
		KEY(w, first, "sample_tid");
		pm__jw_i64(w, (int32_t)id->tid);
	}
	if (id->present & PM_SAMPLE_TIME) {
		KEY(w, first, "time");
		pm__jw_u64(w, id->time);
	}
	if (id->present & (PM_SAMPLE_ID | PM_SAMPLE_IDENTIFIER)) {
		KEY(w, first, "id");
		pm__jw_u64(w, id->id);
	}
	if (id->present & PM_SAMPLE_STREAM_ID) {
		KEY(w, first, "stream_id");
		pm__jw_u64(w, id->stream_id);
	}
	if (id->present & PM_SAMPLE_CPU) {
		KEY(w, first, "cpu");
		pm__jw_u64(w, id->cpu);
	}
}

int pm_json_record(const pm_file *f, const struct pm_file_record *rec, const struct pm_record *r,
		   const struct pm_json_opts *opts, char *buf, size_t cap)
{
	struct pm__jw w0 = { buf, cap, 0 }, *w = &w0;
	struct pm_json_opts o;
	const char *tn;
	bool first = true;
	int rc;

	if (!rec || (!buf && cap))
		return pm__err(EINVAL, "pm_json_record: NULL argument");
	if ((rc = opts_in(opts, &o)))
		return rc;
	tn = pm_record_type_name(rec->type);
	pm__jw_ch(w, '{');
	KEY(w, &first, "type");
	if (!strcmp(tn, "UNKNOWN")) {
		pm__jw_mem(w, "\"UNKNOWN_", 9);
		pm__jw_u64(w, rec->type);
		pm__jw_ch(w, '"');
	} else {
		jcstr(w, tn);
	}
	KEY(w, &first, "offset");
	pm__jw_u64(w, rec->offset);
	KEY(w, &first, "size");
	pm__jw_u64(w, rec->size);
	KEY(w, &first, "misc");
	pm__jw_u64(w, rec->misc);
	if (rec->attr_idx >= 0 && rec->type < PM_RECORD_USER_TYPE_START) {
		KEY(w, &first, "event");
		event_name(w, f, rec->attr_idx, &o);
	}
	if (r) {
		switch (rec->type) {
		case PM_RECORD_MMAP:
		case PM_RECORD_MMAP2:
			KEY(w, &first, "pid");
			pm__jw_i64(w, (int32_t)r->mmap.pid);
			KEY(w, &first, "tid");
			pm__jw_i64(w, (int32_t)r->mmap.tid);
			KEY(w, &first, "start");
			jhex(w, r->mmap.addr);
			KEY(w, &first, "len");
			jhex(w, r->mmap.len);
			KEY(w, &first, "pgoff");
			jhex(w, r->mmap.pgoff);
			KEY(w, &first, "filename");
			pm__jw_str(w, r->mmap.filename ? r->mmap.filename : "",
				   r->mmap.filename ? r->mmap.filename_len : 0);
			break;
		case PM_RECORD_COMM:
			KEY(w, &first, "pid");
			pm__jw_i64(w, (int32_t)r->comm.pid);
			KEY(w, &first, "tid");
			pm__jw_i64(w, (int32_t)r->comm.tid);
			KEY(w, &first, "comm");
			pm__jw_str(w, r->comm.comm ? r->comm.comm : "",
				   r->comm.comm ? r->comm.comm_len : 0);
			break;
		case PM_RECORD_FORK:
		case PM_RECORD_EXIT:
			KEY(w, &first, "pid");
			pm__jw_i64(w, (int32_t)r->task.pid);
			KEY(w, &first, "ppid");
			pm__jw_i64(w, (int32_t)r->task.ppid);
			KEY(w, &first, "tid");
			pm__jw_i64(w, (int32_t)r->task.tid);
			KEY(w, &first, "ptid");
			pm__jw_i64(w, (int32_t)r->task.ptid);
			break;
		case PM_RECORD_LOST:
		case PM_RECORD_LOST_SAMPLES:
			KEY(w, &first, "lost");
			pm__jw_u64(w, r->lost.lost);
			break;
		case PM_RECORD_HEADER_ATTR:
			KEY(w, &first, "attr_type");
			pm__jw_u64(w, r->attr.attr.type);
			KEY(w, &first, "config");
			jhex(w, r->attr.attr.config);
			KEY(w, &first, "sample_type");
			jhex(w, r->attr.attr.sample_type);
			break;
		case PM_RECORD_HEADER_FEATURE:
			KEY(w, &first, "feat_id");
			pm__jw_u64(w, r->feature.feat_id);
			break;
		default:
			break;
		}
		sample_id(w, &first, &r->sample_id);
	}
	pm__jw_ch(w, '}');
	return jw_done(w);
}

/* ------------------------------------------------------------------ */
/* report rows (`profileme report --json`) */

static void jnstr(struct pm__jw *w, const char *s)
{
	if (s)
		jcstr(w, s);
	else
		pm__jw_mem(w, "null", 4);
}

/* a double as printf's `%.<prec>f` writes it */
static void jdbl(struct pm__jw *w, int prec, double v)
{
	char t[512];
	int n = snprintf(t, sizeof(t), "%.*f", prec, v);

	if (n > 0)
		pm__jw_mem(w, t, PM_MIN((size_t)n, sizeof(t) - 1));
}

static double row_pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* `,"<k><suffix>":` */
static void rkey(struct pm__jw *w, const char *k, const char *suffix)
{
	pm__jw_mem(w, ",\"", 2);
	pm__jw_mem(w, k, strlen(k));
	pm__jw_mem(w, suffix, strlen(suffix));
	pm__jw_mem(w, "\":", 2);
}

static void ru64(struct pm__jw *w, const char *k, uint64_t v)
{
	rkey(w, k, "");
	pm__jw_u64(w, v);
}

static void rpct(struct pm__jw *w, const char *k, uint64_t a, uint64_t b)
{
	rkey(w, k, "");
	jdbl(w, 4, row_pct(a, b));
}

static void rdist(struct pm__jw *w, const char *k, const struct pm_report_dist *d)
{
	if (!d->n)
		return;
	rkey(w, k, "_mean");
	jdbl(w, 4, d->mean);
	rkey(w, k, "_q1");
	pm__jw_u64(w, d->q1);
	rkey(w, k, "_median");
	pm__jw_u64(w, d->median);
	rkey(w, k, "_q3");
	pm__jw_u64(w, d->q3);
	rkey(w, k, "_max");
	pm__jw_u64(w, d->max);
}

static void rtally(struct pm__jw *w, const char *k, const struct pm_report_tally *t)
{
	if (!t->total)
		return;
	ru64(w, k, t->hits);
	rkey(w, k, "_pct");
	jdbl(w, 4, row_pct(t->hits, t->total));
}

/* `,"<k>":{"name":count,...}` over the non-zero counts */
static int rcounts(struct pm__jw *w, const char *k, const uint64_t *v, const char *const *names,
		   size_t n)
{
	bool first = true;

	if (n && (!v || !names))
		return pm__err(EINVAL, "pm_json_report_row: %s: %zu counts without their array", k, n);
	rkey(w, k, "");
	pm__jw_ch(w, '{');
	for (size_t i = 0; i < n; i++) {
		if (!v[i])
			continue;
		if (!first)
			pm__jw_ch(w, ',');
		first = false;
		jnstr(w, names[i]);
		pm__jw_ch(w, ':');
		pm__jw_u64(w, v[i]);
	}
	pm__jw_ch(w, '}');
	return 0;
}

static void row_profileme(struct pm__jw *w, const struct pm_report_profileme *p)
{
	bool first = true;

	ru64(w, "profileme", p->n);
	ru64(w, "not_killed", p->n - p->killed);
	ru64(w, "killed", p->killed);
	ru64(w, "stalled", p->stalled);
	ru64(w, "trapped", p->trapped);
	ru64(w, "mispredicted", p->mispredicted);
	ru64(w, "pal_redirects", p->pal_redirects);
	rpct(w, "stalled_pct", p->stalled, p->n);
	rpct(w, "trapped_pct", p->trapped, p->n);
	rpct(w, "mispredicted_pct", p->mispredicted, p->n);
	rpct(w, "icache_miss_pct", p->icache_miss, p->n);
	rkey(w, "traps", "");
	pm__jw_ch(w, '{');
	for (int i = 0; p->traps && i < PM_PROFILEME_TRAP_COUNT; i++) {
		if (!p->traps[i])
			continue;
		if (!first)
			pm__jw_ch(w, ',');
		first = false;
		jnstr(w, pm_profileme_trap_name(i));
		pm__jw_ch(w, ':');
		pm__jw_u64(w, p->traps[i]);
	}
	pm__jw_ch(w, '}');
	rkey(w, "pctr0_counts", "");
	jnstr(w, pm_profileme_counts_name(p->pctr0_counts));
	rkey(w, "pctr1_counts", "");
	jnstr(w, pm_profileme_counts_name(p->pctr1_counts));
	rkey(w, "pctr1_mean", "");
	jdbl(w, 4, p->pctr1_mean);
	ru64(w, "pctr1_min", p->pctr1_min);
	ru64(w, "pctr1_q1", p->pctr1_q1);
	ru64(w, "pctr1_median", p->pctr1_median);
	ru64(w, "pctr1_q3", p->pctr1_q3);
	ru64(w, "pctr1_max", p->pctr1_max);
	if (p->skid) {
		ru64(w, "skid_samples", p->skid_samples);
		rkey(w, "skid_mean", "");
		jdbl(w, 1, p->skid_mean);
		ru64(w, "skid_max", p->skid_max);
		ru64(w, "skid_undefined", p->skid_undefined);
	}
}

static int row_ibs(struct pm__jw *w, const struct pm_report_ibs *g)
{
	ru64(w, g->op ? "ibs_op" : "ibs_fetch", g->n);
	ru64(w, "exact", g->exact);
	ru64(w, "inexact", g->inexact);
	ru64(w, "ip_differs", g->ip_differs);
	if (g->op) {
		ru64(w, "ops", g->ops);
		rdist(w, "tag_to_ret", &g->tag_to_ret);
		rdist(w, "comp_to_ret", &g->comp_to_ret);
		ru64(w, "branches", g->branches);
		ru64(w, "branch_taken", g->branch_taken);
		ru64(w, "branch_mispredicted", g->branch_mispredicted);
		rpct(w, "branch_taken_pct", g->branch_taken, g->branches);
		rpct(w, "branch_mispredicted_pct", g->branch_mispredicted, g->branches);
		ru64(w, "loads", g->loads);
		ru64(w, "stores", g->stores);
		ru64(w, "dc_miss", g->dc_miss);
		rpct(w, "dc_miss_pct", g->dc_miss, g->loads + g->stores);
		ru64(w, "dtlb_l1_miss", g->dtlb_l1_miss);
		ru64(w, "dtlb_l2_miss", g->dtlb_l2_miss);
		rdist(w, "dc_miss_lat", &g->dc_miss_lat);
		return rcounts(w, "data_src", g->data_src, g->data_src_names, g->nr_data_src);
	}
	rdist(w, "fetch_lat", &g->fetch_lat);
	ru64(w, "fetch_completed", g->fetch_completed);
	rtally(w, "ic_miss", &g->ic_miss);
	rtally(w, "itlb_l1_miss", &g->itlb_l1_miss);
	rtally(w, "itlb_l2_miss", &g->itlb_l2_miss);
	rtally(w, "l2_miss", &g->l2_miss);
	rtally(w, "l3_miss", &g->l3_miss);
	rtally(w, "oc_miss", &g->oc_miss);
	return rcounts(w, "page_size", g->page_size, g->page_size_names, g->nr_page_size);
}

int pm_json_report_row(const struct pm_report_row *row, char *buf, size_t cap)
{
	struct pm__jw w = { buf, cap, 0 };
	struct pm_report_row r;
	int rc;

	if (!row || (!buf && cap))
		return pm__err(EINVAL, "pm_json_report_row: NULL argument");
	rc = PM__SZ_VALID(row, pm_report_row, PM_REPORT_ROW_SZ_V1);
	if (rc)
		return rc;
	memset(&r, 0, sizeof(r));
	pm__opts_copy_in(&r, sizeof(r), row, row->sz);
	if (r.nr_keys && !r.keys)
		return pm__err(EINVAL, "pm_json_report_row: %zu keys without their array", r.nr_keys);
	pm__jw_mem(&w, "{\"event\":", 9);
	jnstr(&w, r.event);
	ru64(&w, "samples", r.samples);
	ru64(&w, "period", r.period);
	rpct(&w, "overhead", r.period, r.event_period);
	for (size_t i = 0; i < r.nr_keys; i++) {
		switch (r.keys[i]) {
		case PM_REPORT_KEY_SYM:
			rkey(&w, "sym", "");
			jnstr(&w, r.sym);
			break;
		case PM_REPORT_KEY_DSO:
			rkey(&w, "dso", "");
			jnstr(&w, r.dso);
			break;
		case PM_REPORT_KEY_PC:
			rkey(&w, "pc", "");
			jhex(&w, r.pc);
			break;
		case PM_REPORT_KEY_COMM:
			rkey(&w, "comm", "");
			jnstr(&w, r.comm);
			break;
		case PM_REPORT_KEY_PID:
			ru64(&w, "pid", r.pid);
			break;
		default:
			return pm__err(EINVAL, "pm_json_report_row: unknown key %d", r.keys[i]);
		}
	}
	if (r.profileme)
		row_profileme(&w, r.profileme);
	if (r.ibs) {
		rc = row_ibs(&w, r.ibs);
		if (rc)
			return rc;
	}
	pm__jw_ch(&w, '}');
	return jw_done(&w);
}
