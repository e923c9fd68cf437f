/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * perf's tracing data (HEADER_TRACING_DATA feature, PERF_RECORD_HEADER_
 * TRACING_DATA record): the tracefs texts perf copies into a recording.
 *
 *   "\027\010\104tracing" (10 bytes), a NUL-terminated version ("0.5",
 *   "0.6"), u8 big endian, u8 sizeof(long), u32 page size;
 *   "header_page\0" u64 size + text, "header_event\0" u64 size + text;
 *   u32 count, count x (u64 size + ftrace event format);
 *   u32 systems, per system: name\0, u32 count, count x (u64 size + format);
 *   u32 size + kallsyms; u32 size + printk formats;
 *   version >= 0.6: u64 size + saved cmdlines.
 * Numbers are in the byte order the stream's own endian byte gives.
 *
 * A format text: `name: X`, `ID: N`, `format:`, one line per field
 *   `\tfield:TYPE NAME[LEN];\toffset:N;\tsize:N;\tsigned:N;`
 * (common fields, a blank line, the event's fields), `print fmt: ...`.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal/json_int.h"
#include "reader_int.h"

#define PMF_TP_MAX_FIELDS 4096

struct tcur {
	const uint8_t *p;
	size_t len, pos;
	bool be;
	uint64_t base; /* file offset of p[0] */
	const char *bad; /* what was cut short */
};

static bool tc_need(struct tcur *c, size_t n, const char *what)
{
	if (c->bad)
		return false;
	if (!pm__fits(c->pos, n, c->len)) {
		c->bad = what;
		return false;
	}
	return true;
}

static uint32_t tc_u32(struct tcur *c, const char *what)
{
	uint32_t v;

	if (!tc_need(c, 4, what))
		return 0;
	v = pm__ld32(c->p + c->pos, c->be);
	c->pos += 4;
	return v;
}

static uint64_t tc_u64(struct tcur *c, const char *what)
{
	uint64_t v;

	if (!tc_need(c, 8, what))
		return 0;
	v = pm__ld64(c->p + c->pos, c->be);
	c->pos += 8;
	return v;
}

/* a block of n bytes: a pointer to them, or NULL (c->bad set) */
static const char *tc_bytes(struct tcur *c, uint64_t n, const char *what)
{
	const char *p;

	if (c->bad)
		return NULL;
	if (n > c->len - c->pos) {
		c->bad = what;
		return NULL;
	}
	p = (const char *)c->p + c->pos;
	c->pos += (size_t)n;
	return p;
}

static char *dup_text(const char *p, size_t n)
{
	return pm__strndup(p ? p : "", p ? n : 0);
}

/* ------------------------------------------------------------------ */
/* format text */

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* the number after "key:" within [s, e), or false */
static bool field_num(const char *s, const char *e, const char *key, unsigned long long *v)
{
	size_t kl = strlen(key);

	for (const char *q = s; q + kl <= e; q++) {
		if (!memcmp(q, key, kl) && (q == s || q[-1] == '\t' || q[-1] == ' ' || q[-1] == ';')) {
			char tmp[32];
			size_t n = 0;

			q = skip_ws(q + kl, e);
			while (q < e && n + 1 < sizeof(tmp) && (isdigit((unsigned char)*q) || *q == '-'))
				tmp[n++] = *q++;
			tmp[n] = 0;
			if (!n)
				return false;
			*v = strtoull(tmp, NULL, 10);
			return true;
		}
	}
	return false;
}

/* element size of a type for a dynamic array, from its name */
static uint32_t type_elem_size(const char *type, uint32_t long_size)
{
	static const struct { const char *name; uint32_t size; } tab[] = {
		{ "char", 1 }, { "u8", 1 }, { "s8", 1 }, { "bool", 1 },
		{ "short", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "long long", 8 }, { "u64", 8 }, { "s64", 8 },
		{ "long", 0 }, { "int", 4 }, { "u32", 4 }, { "s32", 4 }, { "pid_t", 4 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strstr(type, tab[i].name))
			return tab[i].size ? tab[i].size : long_size;
	return 1;
}

static bool is_string_type(const char *type)
{
	return strstr(type, "char") || strstr(type, "u8") || strstr(type, "s8");
}

/*
 * One "field:" line [s, e).  Returns 1 with a field, 0 for a line that is
 * not a field, -ENOMEM.
 */
static int parse_field(const char *s, const char *e, uint32_t long_size, struct pmf_tpfield *fd)
{
	const char *decl, *semi, *ne, *nb, *lb = NULL;
	unsigned long long off = 0, size = 0, sgn = 0;
	char *type;

	s = skip_ws(s, e);
	if ((size_t)(e - s) < 6 || memcmp(s, "field", 5))
		return 0;
	decl = memchr(s, ':', (size_t)(e - s));
	if (!decl)
		return 0;
	decl++;
	semi = memchr(decl, ';', (size_t)(e - decl));
	if (!semi || !field_num(semi, e, "offset:", &off) || !field_num(semi, e, "size:", &size))
		return 0;
	(void)field_num(semi, e, "signed:", &sgn);
	/* the name is the last identifier of the declaration, before any [..] */
	ne = semi;
	while (ne > decl && (ne[-1] == ' ' || ne[-1] == '\t'))
		ne--;
	if (ne > decl && ne[-1] == ']') {
		lb = ne - 1;
		while (lb > decl && *lb != '[')
			lb--;
		if (*lb != '[')
			return 0;
		ne = lb;
	}
	nb = ne;
	while (nb > decl && (isalnum((unsigned char)nb[-1]) || nb[-1] == '_'))
		nb--;
	if (nb == ne)
		return 0;
	memset(fd, 0, sizeof(*fd));
	fd->offset = (uint32_t)off;
	fd->size = (uint32_t)size;
	if (off > UINT32_MAX || size > UINT32_MAX)
		return 0;
	if (sgn)
		fd->flags |= PM_TP_FIELD_SIGNED;
	fd->name = pm__strndup(nb, (size_t)(ne - nb));
	{
		const char *tb = skip_ws(decl, nb), *te = nb;

		while (te > tb && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		type = pm__strndup(tb, (size_t)(te - tb));
	}
	fd->type = type;
	if (!fd->name || !type) {
		free(fd->name);
		free(type);
		return -ENOMEM;
	}
	if (!strncmp(fd->name, "common_", 7))
		fd->flags |= PM_TP_FIELD_COMMON;
	fd->elem_size = fd->size;
	if (!strncmp(type, "__data_loc", 10) || !strncmp(type, "__rel_loc", 9)) {
		fd->flags |= PM_TP_FIELD_ARRAY | PM_TP_FIELD_DYNAMIC;
		if (type[2] == 'r')
			fd->flags |= PM_TP_FIELD_RELATIVE;
		fd->elem_size = type_elem_size(type + 10, long_size);
		if (is_string_type(type + 10))
			fd->flags |= PM_TP_FIELD_STRING;
	} else if (lb) {
		unsigned long long n = 0;
		char *end;

		fd->flags |= PM_TP_FIELD_ARRAY;
		n = strtoull(lb + 1, &end, 10);
		if (end == lb + 1 || *end != ']' || !n) {
			/* a length named by a macro (old kernels): from the size */
			uint32_t es = type_elem_size(type, long_size);

			n = es ? fd->size / es : 0;
		}
		fd->array_len = (uint32_t)n;
		fd->elem_size = n ? fd->size / (uint32_t)n : fd->size;
		if (is_string_type(type))
			fd->flags |= PM_TP_FIELD_STRING;
	}
	return 1;
}

static void tpfmt_free(struct pmf_tpfmt *t)
{
	for (size_t i = 0; i < t->nfields; i++) {
		free(t->fields[i].name);
		free(t->fields[i].type);
	}
	free(t->fields);
	free(t->sys);
	free(t->name);
	free(t->full);
	free(t->print_fmt);
}

/* Parse one format text.  Returns 0, -PM_ERR_FORMAT (no name / ID) or -ENOMEM. */
static int parse_format(const char *text, size_t len, const char *sys, uint32_t long_size,
			struct pmf_tpfmt *t)
{
	const char *p = text, *end = text + len;
	bool have_id = false;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		const char *s = skip_ws(p, e);

		if ((size_t)(e - s) >= 5 && !memcmp(s, "name:", 5) && !t->name) {
			const char *v = skip_ws(s + 5, e), *ve = e;

			while (ve > v && isspace((unsigned char)ve[-1]))
				ve--;
			t->name = pm__strndup(v, (size_t)(ve - v));
			if (!t->name)
				rc = -ENOMEM;
		} else if ((size_t)(e - s) >= 3 && !memcmp(s, "ID:", 3) && !have_id) {
			char tmp[32];
			size_t n = 0;
			const char *v = skip_ws(s + 3, e);

			while (v < e && n + 1 < sizeof(tmp) && isdigit((unsigned char)*v))
				tmp[n++] = *v++;
			tmp[n] = 0;
			if (n) {
				t->id = strtoull(tmp, NULL, 10);
				have_id = true;
			}
		} else if ((size_t)(e - s) >= 10 && !memcmp(s, "print fmt:", 10)) {
			const char *v = skip_ws(s + 10, end), *ve = end;

			while (ve > v && isspace((unsigned char)ve[-1]))
				ve--;
			free(t->print_fmt);
			t->print_fmt = pm__strndup(v, (size_t)(ve - v));
			if (!t->print_fmt)
				rc = -ENOMEM;
			break; /* the rest is the print format */
		} else if ((size_t)(e - s) >= 6 && !memcmp(s, "field", 5)) {
			struct pmf_tpfield fd;
			int r = parse_field(s, e, long_size, &fd);

			if (r < 0) {
				rc = r;
			} else if (r > 0) {
				struct pmf_tpfield *n;

				if (t->nfields >= PMF_TP_MAX_FIELDS ||
				    !(n = pm__reallocarray(t->fields, t->nfields + 1, sizeof(*n)))) {
					free(fd.name);
					free(fd.type);
					rc = -ENOMEM;
				} else {
					t->fields = n;
					t->fields[t->nfields++] = fd;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!rc && (!t->name || !have_id))
		rc = -PM_ERR_FORMAT;
	if (!rc) {
		t->sys = pm__strndup(sys, strlen(sys));
		t->full = malloc(strlen(sys) + strlen(t->name) + 2);
		if (!t->sys || !t->full)
			rc = -ENOMEM;
		else
			sprintf(t->full, "%s:%s", sys, t->name);
	}
	if (rc)
		tpfmt_free(t);
	return rc;
}

/* ------------------------------------------------------------------ */

void pmf_tracing_free(struct pmf_tracing *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfmts; i++)
		tpfmt_free(&t->fmts[i]);
	free(t->fmts);
	for (int i = 0; i < PMF_TR_NTEXT; i++)
		free(t->text[i]);
	free(t->errmsg);
	free(t);
}

static int add_format(struct pmf_tracing *t, struct tcur *c, const char *sys, uint64_t at)
{
	uint64_t size = tc_u64(c, "an event format size");
	const char *text = tc_bytes(c, size, "an event format");
	struct pmf_tpfmt fmt, *n;
	int rc;

	if (!text)
		return -PM_ERR_TRUNCATED;
	rc = parse_format(text, (size_t)size, sys, t->long_size, &fmt);
	if (rc == -PM_ERR_FORMAT) {
		/* an unreadable format names nothing; the others still do */
		pm__warn("%s: tracing data: the %s event format at offset %" PRIu64
			 " has no name or ID line; ignored", t->name, sys, at);
		return 0;
	}
	if (rc)
		return rc;
	n = pm__reallocarray(t->fmts, t->nfmts + 1, sizeof(*n));
	if (!n) {
		tpfmt_free(&fmt);
		return -ENOMEM;
	}
	t->fmts = n;
	t->fmts[t->nfmts++] = fmt;
	return 0;
}

static int keep_text(struct pmf_tracing *t, int which, const char *p, size_t n)
{
	t->text[which] = dup_text(p, n);
	t->text_len[which] = p ? n : 0;
	return t->text[which] ? 0 : -ENOMEM;
}

/*
 * Parse a tracing data stream of @len bytes at @data; @base is its file
 * offset (for messages).  Returns the parsed data (with t->err < 0 and an
 * error message when it is damaged: what was parsed before stays usable),
 * or NULL without memory.
 */
struct pmf_tracing *pmf_tracing_parse(const uint8_t *data, size_t len, uint64_t base,
				      const char *name)
{
	static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct pmf_tracing *t = pm__calloc(1, sizeof(*t));
	struct tcur c = { data, len, 0, false, base, NULL };
	const char *p, *why = NULL;
	uint64_t sz;
	uint32_t n;
	int rc = 0;

	if (!t)
		return NULL;
	t->name = name ? name : "perf.data";
	if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic))) {
		why = "no tracing magic (\\027\\010\\104tracing)";
		rc = -PM_ERR_FORMAT;
		c.pos = 0;
		goto out;
	}
	c.pos = sizeof(magic);
	p = memchr(data + c.pos, 0, PM_MIN(len - c.pos, sizeof(t->version)));
	if (!p) {
		why = "the version string is not terminated";
		rc = -PM_ERR_FORMAT;
		goto out;
	}
	memcpy(t->version, data + c.pos, (size_t)(p - (const char *)data) - c.pos + 1);
	c.pos = (size_t)(p - (const char *)data) + 1;
	if (!tc_need(&c, 6, "the endian, long size and page size"))
		goto cut;
	t->be = data[c.pos] != 0;
	t->long_size = data[c.pos + 1];
	c.pos += 2;
	c.be = t->be;
	if (t->long_size != 4 && t->long_size != 8) {
		why = "sizeof(long) is neither 4 nor 8";
		rc = -PM_ERR_FORMAT;
		goto out;
	}
	t->page_size = tc_u32(&c, "the page size");
	/* header_page and header_event, each named */
	for (int h = 0; h < 2; h++) {
		const char *want = h ? "header_event" : "header_page";
		size_t wl = strlen(want) + 1;
		const char *nm = tc_bytes(&c, wl, want);

		if (!nm)
			goto cut;
		if (memcmp(nm, want, wl)) {
			c.pos -= wl;
			why = h ? "\"header_event\" expected" : "\"header_page\" expected";
			rc = -PM_ERR_FORMAT;
			goto out;
		}
		sz = tc_u64(&c, want);
		p = tc_bytes(&c, sz, want);
		if (!p)
			goto cut;
		if ((rc = keep_text(t, h ? PMF_TR_HEADER_EVENT : PMF_TR_HEADER_PAGE, p, (size_t)sz)))
			goto out;
	}
	/* ftrace's own formats */
	n = tc_u32(&c, "the ftrace format count");
	for (uint32_t i = 0; i < n && !c.bad && !rc; i++)
		rc = add_format(t, &c, "ftrace", base + c.pos);
	if (rc && rc != -PM_ERR_TRUNCATED)
		goto out;
	if (c.bad)
		goto cut;
	/* the systems */
	n = tc_u32(&c, "the system count");
	for (uint32_t s = 0; s < n && !c.bad && !rc; s++) {
		const char *sys = (const char *)data + c.pos;
		const char *nul = c.pos < len ? memchr(sys, 0, len - c.pos) : NULL;
		uint32_t cnt;

		if (!nul) {
			c.bad = "a system name";
			break;
		}
		c.pos += (size_t)(nul - sys) + 1;
		cnt = tc_u32(&c, "an event count");
		for (uint32_t i = 0; i < cnt && !c.bad && !rc; i++)
			rc = add_format(t, &c, sys, base + c.pos);
	}
	if (rc && rc != -PM_ERR_TRUNCATED)
		goto out;
	if (c.bad)
		goto cut;
	/* kallsyms (empty from perf >= 4.x; old files carry /proc/kallsyms) */
	sz = tc_u32(&c, "the kallsyms size");
	p = tc_bytes(&c, sz, "kallsyms");
	if (!p || (rc = keep_text(t, PMF_TR_KALLSYMS, p, (size_t)sz)))
		goto cut;
	sz = tc_u32(&c, "the printk formats size");
	p = tc_bytes(&c, sz, "printk formats");
	if (!p || (rc = keep_text(t, PMF_TR_PRINTK, p, (size_t)sz)))
		goto cut;
	if (strtod(t->version, NULL) >= 0.6) {
		sz = tc_u64(&c, "the saved cmdlines size");
		p = tc_bytes(&c, sz, "saved cmdlines");
		if (!p || (rc = keep_text(t, PMF_TR_CMDLINES, p, (size_t)sz)))
			goto cut;
	}
	t->end = c.pos;
	return t;
cut:
	if (rc == -ENOMEM)
		goto out;
	if (c.bad) {
		rc = -PM_ERR_TRUNCATED;
		why = c.bad;
	}
out:
	if (rc == -ENOMEM) {
		pmf_tracing_free(t);
		return NULL;
	}
	t->err = rc ? rc : -PM_ERR_FORMAT;
	t->err_off = base + c.pos;
	{
		char msg[256];

		snprintf(msg, sizeof(msg), "%s: tracing data (version %s) at offset %" PRIu64
			 ": %s%s at offset %" PRIu64, t->name, t->version[0] ? t->version : "?", base,
			 rc == -PM_ERR_TRUNCATED ? "cut short in " : "", why ? why : "damaged",
			 t->err_off);
		t->errmsg = strdup(msg);
	}
	t->end = c.pos;
	return t;
}

const struct pmf_tpfmt *pmf_tracing_find(const struct pmf_tracing *t, uint64_t id)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->nfmts; i++)
		if (t->fmts[i].id == id)
			return &t->fmts[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* public API */

int pm_file_tracing_info(const pm_file *f, const char **version, int *big_endian,
			 uint32_t *long_size, uint32_t *page_size)
{
	const struct pmf_tracing *t = f ? f->tracing : NULL;

	if (!t)
		return -ENOENT;
	if (t->err && !t->nfmts && !t->page_size)
		return t->err;
	if (version)
		*version = t->version;
	if (big_endian)
		*big_endian = t->be;
	if (long_size)
		*long_size = t->long_size;
	if (page_size)
		*page_size = t->page_size;
	return 0;
}

const char *pm_file_tracing_error(const pm_file *f)
{
	return f && f->tracing ? f->tracing->errmsg : NULL;
}

const char *pm_file_tracing_text(const pm_file *f, int which, size_t *len)
{
	const struct pmf_tracing *t = f ? f->tracing : NULL;

	if (len)
		*len = 0;
	if (!t || which < 0 || which >= PMF_TR_NTEXT || !t->text[which])
		return NULL;
	if (len)
		*len = t->text_len[which];
	return t->text[which];
}

size_t pm_file_nr_tp_formats(const pm_file *f)
{
	return f && f->tracing ? f->tracing->nfmts : 0;
}

static const struct pmf_tpfmt *fmt_at(const pm_file *f, size_t i)
{
	return f && f->tracing && i < f->tracing->nfmts ? &f->tracing->fmts[i] : NULL;
}

int pm_file_tp_format(const pm_file *f, size_t i, uint64_t *id, const char **system,
		      const char **name, size_t *nr_fields)
{
	const struct pmf_tpfmt *t = fmt_at(f, i);

	if (!t)
		return -ENOENT;
	if (id)
		*id = t->id;
	if (system)
		*system = t->sys;
	if (name)
		*name = t->name;
	if (nr_fields)
		*nr_fields = t->nfields;
	return 0;
}

int pm_file_tp_format_of_attr(const pm_file *f, size_t idx)
{
	const struct pmf_tpfmt *t;

	if (!f || idx >= f->nr_ev || f->ev[idx].attr.type != PM_TYPE_TRACEPOINT)
		return -ENOENT;
	t = pmf_tracing_find(f->tracing, f->ev[idx].attr.config);
	return t ? (int)(t - f->tracing->fmts) : -ENOENT;
}

const char *pm_file_tp_print_fmt(const pm_file *f, size_t i)
{
	const struct pmf_tpfmt *t = fmt_at(f, i);

	return t ? t->print_fmt : NULL;
}

int pm_file_tp_field(const pm_file *f, size_t i, size_t k, struct pm_tp_field *out)
{
	const struct pmf_tpfmt *t = fmt_at(f, i);
	struct pm_tp_field o;
	int rc;

	if (!out)
		return pm__err(EINVAL, "pm_file_tp_field: NULL argument");
	rc = PM__SZ_VALID(out, pm_tp_field, PM_TP_FIELD_SZ_V1);
	if (rc)
		return rc;
	if (!t || k >= t->nfields)
		return -ENOENT;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.name = t->fields[k].name;
	o.type = t->fields[k].type;
	o.offset = t->fields[k].offset;
	o.size = t->fields[k].size;
	o.flags = t->fields[k].flags;
	o.array_len = t->fields[k].array_len;
	o.elem_size = t->fields[k].elem_size;
	pm__struct_copy_out(out, out->sz, &o, sizeof(o));
	return 0;
}

static uint64_t ld_n(const uint8_t *p, uint32_t n, bool be, bool sgn)
{
	uint64_t v;

	switch (n) {
	case 1: v = p[0]; break;
	case 2: v = pm__ld16(p, be); break;
	case 4: v = pm__ld32(p, be); break;
	case 8: return pm__ld64(p, be);
	default: return 0;
	}
	if (sgn && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	return v;
}

/* printable as perf's script engines take a char array: text up to its
 * first NUL, nothing after it but NULs, no control characters */
static bool printable(const uint8_t *p, size_t len, size_t *tlen)
{
	size_t n = 0;

	while (n < len && p[n])
		n++;
	if (!n && len)
		{ *tlen = 0; return true; }
	for (size_t i = 0; i < n; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	*tlen = n;
	return true;
}

static int tp_value(const struct pmf_tracing *tr, const struct pmf_tpfield *fd, const uint8_t *raw,
		    size_t raw_len, struct pm_tp_value *v)
{
	bool be = tr->be, sgn = fd->flags & PM_TP_FIELD_SIGNED;
	size_t off = fd->offset, len = fd->size;

	if (!pm__fits(off, len, raw_len))
		return -PM_ERR_TRUNCATED;
	v->big_endian = be;
	v->is_signed = sgn;
	if (fd->flags & PM_TP_FIELD_DYNAMIC) {
		uint32_t loc;

		if (len < 4)
			return -PM_ERR_CORRUPT;
		loc = pm__ld32(raw + off, be);
		len = loc >> 16;
		off = loc & 0xffff;
		if (fd->flags & PM_TP_FIELD_RELATIVE)
			off += (size_t)fd->offset + fd->size;
		if (!pm__fits(off, len, raw_len))
			return -PM_ERR_TRUNCATED;
	}
	if (fd->flags & PM_TP_FIELD_ARRAY) {
		size_t tl;
		uint32_t es = fd->elem_size;

		if ((fd->flags & PM_TP_FIELD_STRING) && printable(raw + off, len, &tl)) {
			v->kind = PM_TP_VALUE_STRING;
			v->data = raw + off;
			v->len = tl;
			return 0;
		}
		if (es != 1 && es != 2 && es != 4 && es != 8)
			es = 1;
		v->kind = PM_TP_VALUE_ARRAY;
		v->data = raw + off;
		v->len = len;
		v->elem_size = es;
		v->nelem = (uint32_t)(len / es);
		return 0;
	}
	if (len != 1 && len != 2 && len != 4 && len != 8) {
		v->kind = PM_TP_VALUE_ARRAY;
		v->data = raw + off;
		v->len = len;
		v->elem_size = 1;
		v->nelem = (uint32_t)len;
		return 0;
	}
	v->u = ld_n(raw + off, (uint32_t)len, be, sgn);
	v->i = (int64_t)v->u;
	v->kind = sgn ? PM_TP_VALUE_INT : PM_TP_VALUE_UINT;
	return 0;
}

int pm_file_tp_value(const pm_file *f, size_t i, size_t k, const void *raw, size_t raw_len,
		     struct pm_tp_value *out)
{
	const struct pmf_tpfmt *t = fmt_at(f, i);
	struct pm_tp_value o;
	int rc;

	if (!out || (!raw && raw_len))
		return pm__err(EINVAL, "pm_file_tp_value: NULL argument");
	rc = PM__SZ_VALID(out, pm_tp_value, PM_TP_VALUE_SZ_V1);
	if (rc)
		return rc;
	if (!t || k >= t->nfields)
		return -ENOENT;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	rc = tp_value(f->tracing, &t->fields[k], raw, raw_len, &o);
	if (rc)
		return pm__err(-rc, "tracepoint %s: field %s at offset %u lies past the %zu-byte "
			       "payload", t->full, t->fields[k].name, t->fields[k].offset, raw_len);
	pm__struct_copy_out(out, out->sz, &o, sizeof(o));
	return 0;
}

uint64_t pm_tp_value_elem(const struct pm_tp_value *v, size_t n)
{
	if (!v || v->kind != PM_TP_VALUE_ARRAY || n >= v->nelem || !v->data)
		return 0;
	return ld_n((const uint8_t *)v->data + n * v->elem_size, v->elem_size, v->big_endian,
		    v->is_signed);
}

int pm_file_tp_format_json(const pm_file *f, size_t i, const void *raw, size_t raw_len, char *buf,
			   size_t cap)
{
	const struct pmf_tpfmt *t = fmt_at(f, i);
	struct pm__jw w = { buf, cap, 0 };
	bool first = true;

	if ((!buf && cap) || (!raw && raw_len))
		return pm__err(EINVAL, "pm_file_tp_format_json: NULL argument");
	if (!t)
		return pm__err(ENOENT, "pm_file_tp_format_json: no format %zu", i);
	pm__jw_ch(&w, '{');
	for (size_t k = 0; k < t->nfields; k++) {
		const struct pmf_tpfield *fd = &t->fields[k];
		struct pm_tp_value v;

		if (fd->flags & PM_TP_FIELD_COMMON)
			continue;
		if (!first)
			pm__jw_ch(&w, ',');
		first = false;
		pm__jw_str(&w, fd->name, strlen(fd->name));
		pm__jw_ch(&w, ':');
		memset(&v, 0, sizeof(v));
		if (tp_value(f->tracing, fd, raw, raw_len, &v)) {
			pm__jw_mem(&w, "null", 4);
			continue;
		}
		switch (v.kind) {
		case PM_TP_VALUE_INT:
			pm__jw_i64(&w, (int64_t)v.u);
			break;
		case PM_TP_VALUE_UINT:
			pm__jw_u64(&w, v.u);
			break;
		case PM_TP_VALUE_STRING:
			pm__jw_str(&w, v.data, v.len);
			break;
		default:
			pm__jw_ch(&w, '[');
			for (uint32_t e = 0; e < v.nelem; e++) {
				uint64_t u = pm_tp_value_elem(&v, e);

				if (e)
					pm__jw_ch(&w, ',');
				if (v.is_signed)
					pm__jw_i64(&w, (int64_t)u);
				else
					pm__jw_u64(&w, u);
			}
			pm__jw_ch(&w, ']');
		}
	}
	pm__jw_ch(&w, '}');
	pm__jw_finish(&w);
	if (w.len > INT32_MAX)
		return pm__err(ERANGE, "pm_file_tp_format_json: text longer than 2 GiB");
	return (int)w.len;
}
