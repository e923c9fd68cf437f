/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The DWARF line-number programs of .debug_line (DWARF 2 to 5) turned into
 * a sorted table of address ranges -> (file, line, column).
 *
 * Input is untrusted: every read is checked against the end of its unit
 * (itself checked against the section), strings must be NUL-terminated
 * inside their section, and a unit that breaks a rule is dropped whole with
 * a message naming its offset; the units before and after it stay.  No
 * libelf here: the caller hands in the section bytes (lib/symbol/elf.c, the
 * fuzz harness tests/fuzz/fuzz_dwarf_line.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbol/sym_internal.h"

/* DW_LNS_*, DW_LNE_*, DW_LNCT_*, DW_FORM_* used here (DWARF 5, 6.2 and 7.5.6). */
enum {
	LNS_copy = 1, LNS_advance_pc, LNS_advance_line, LNS_set_file, LNS_set_column,
	LNS_negate_stmt, LNS_set_basic_block, LNS_const_add_pc, LNS_fixed_advance_pc,
	LNS_set_prologue_end, LNS_set_epilogue_begin, LNS_set_isa
};
enum { LNE_end_sequence = 1, LNE_set_address, LNE_define_file, LNE_set_discriminator };
enum { LNCT_path = 1, LNCT_directory_index, LNCT_timestamp, LNCT_size, LNCT_MD5 };
enum {
	FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05, FORM_data4 = 0x06,
	FORM_data8 = 0x07, FORM_string = 0x08, FORM_block = 0x09, FORM_block1 = 0x0a,
	FORM_data1 = 0x0b, FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f,
	FORM_data16 = 0x1e, FORM_line_strp = 0x1f
};

/* A bounded reader: [p, end) of one unit; `bad` is sticky. */
struct rd {
	const uint8_t *base; /* section start (for offsets in messages) */
	const uint8_t *p, *end;
	bool be, bad;
};

static size_t rd_off(const struct rd *r)
{
	return (size_t)(r->p - r->base);
}

static bool rd_need(struct rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static uint64_t rd_u(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (!rd_need(r, n))
		return 0;
	switch (n) {
	case 1: v = r->p[0]; break;
	case 2: v = pm__ld16(r->p, r->be); break;
	case 4: v = pm__ld32(r->p, r->be); break;
	case 8: v = pm__ld64(r->p, r->be); break;
	default: /* 3, 5, 6, 7 bytes (an odd DW_LNE_set_address) */
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)r->p[r->be ? n - 1 - i : i] << (8 * i);
	}
	r->p += n;
	return v;
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if (n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return;
	}
	if (!r->bad)
		r->p += n;
}

/* LEB128: more than 10 bytes, or bits past 64, are an error. */
static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; !r->bad; shift += 7) {
		uint8_t b;

		if (!rd_need(r, 1))
			break;
		b = *r->p++;
		if (shift == 63 && (b & 0x7e)) {
			r->bad = true;
			break;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift == 63) {
			r->bad = true;
			break;
		}
	}
	return 0;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	do {
		if (!rd_need(r, 1) || shift > 63) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A NUL-terminated string inside the reader's bounds. */
static const char *rd_str(struct rd *r)
{
	const uint8_t *z;
	const char *s;

	if (r->bad)
		return NULL;
	z = memchr(r->p, 0, (size_t)(r->end - r->p));
	if (!z) {
		r->bad = true;
		return NULL;
	}
	s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

/* A string at an offset of a string section (.debug_line_str, .debug_str). */
static const char *sec_str(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, 0, len - (size_t)off))
		return NULL;
	return (const char *)sec + off;
}

/* ---- compilation directories from .debug_info ------------------------- */

struct cudir {
	uint64_t stmt_list;
	const char *comp_dir;
};

struct cudirs {
	struct cudir *v;
	size_t n, cap;
};

/* Skip one attribute value of form `form`; its value in *num, a string
 * form's string in *str.  false when the form is unknown or runs out. */
static bool skip_form(struct rd *r, const struct pm__dwarf_secs *s, uint64_t form, size_t offsz,
		      uint8_t asz, int version, int depth, uint64_t *num, const char **str)
{
	uint64_t off;

	*num = 0;
	*str = NULL;
	switch (form) {
	case 0x01: *num = rd_u(r, asz); break;                                   /* addr */
	case 0x03: rd_skip(r, rd_u(r, 2)); break;                                /* block2 */
	case 0x04: rd_skip(r, rd_u(r, 4)); break;                                /* block4 */
	case 0x05: *num = rd_u(r, 2); break;                                     /* data2 */
	case 0x06: *num = rd_u(r, 4); break;                                     /* data4 */
	case 0x07: *num = rd_u(r, 8); break;                                     /* data8 */
	case 0x08: *str = rd_str(r); break;                                      /* string */
	case 0x09: case 0x18: rd_skip(r, rd_uleb(r)); break;                     /* block, exprloc */
	case 0x0a: rd_skip(r, rd_u(r, 1)); break;                                /* block1 */
	case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29: *num = rd_u(r, 1); break;
	case 0x12: case 0x26: case 0x2a: *num = rd_u(r, 2); break;               /* ref2, strx2, addrx2 */
	case 0x27: case 0x2b: *num = rd_u(r, 3); break;                          /* strx3, addrx3 */
	case 0x13: case 0x1c: case 0x28: case 0x2c: *num = rd_u(r, 4); break;   /* ref4, ref_sup4, strx4, addrx4 */
	case 0x14: case 0x20: case 0x24: *num = rd_u(r, 8); break;               /* ref8, ref_sig8, ref_sup8 */
	case 0x0d: *num = (uint64_t)rd_sleb(r); break;                           /* sdata */
	case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23:
	case 0x1f01: case 0x1f02:
		*num = rd_uleb(r); /* udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU index forms */
		break;
	case 0x10: *num = rd_u(r, version <= 2 ? asz : offsz); break;           /* ref_addr */
	case 0x17: case 0x1d: case 0x1f20: case 0x1f21: *num = rd_u(r, offsz); break;
	case 0x0e: case 0x1f:                                                    /* strp, line_strp */
		off = rd_u(r, offsz);
		*num = off;
		if (!r->bad)
			*str = form == 0x0e ? sec_str(s->str, s->str_len, off)
					    : sec_str(s->line_str, s->line_str_len, off);
		break;
	case 0x1e: rd_skip(r, 16); break;                                        /* data16 */
	case 0x19: case 0x21: break;                                             /* flag_present, implicit_const */
	case 0x16:                                                               /* indirect */
		if (depth > 2)
			return false;
		return skip_form(r, s, rd_uleb(r), offsz, asz, version, depth + 1, num, str);
	default:
		return false;
	}
	return !r->bad;
}

/* The attribute list of abbreviation `code` in the table at abbrev_off. */
static bool find_abbrev(const struct pm__dwarf_secs *s, uint64_t abbrev_off, uint64_t code,
			struct rd *out)
{
	struct rd a = { s->abbrev, s->abbrev, NULL, s->be, false };

	if (!s->abbrev || abbrev_off >= s->abbrev_len)
		return false;
	a.end = s->abbrev + s->abbrev_len; /* not before: an absent section is NULL */
	a.p += abbrev_off;
	for (;;) {
		uint64_t c = rd_uleb(&a);

		if (a.bad || c == 0)
			return false;
		rd_uleb(&a);    /* tag */
		rd_u(&a, 1);    /* children */
		if (c == code) {
			*out = a;
			return !a.bad;
		}
		for (;;) { /* skip the attribute specifications */
			uint64_t at = rd_uleb(&a), form = rd_uleb(&a);

			if (form == 0x21)
				rd_sleb(&a);
			if (a.bad)
				return false;
			if (at == 0 && form == 0)
				break;
		}
	}
}

/* DW_AT_stmt_list and DW_AT_comp_dir of the first DIE of every unit of
 * .debug_info.  A unit this cannot read is passed over (its line table then
 * has no compilation directory); only out of memory is an error. */
static int read_cu_dirs(const struct pm__dwarf_secs *s, struct cudirs *cd)
{
	/* an absent section is NULL (no arithmetic on it) */
	struct rd sec = { s->info, s->info, s->info ? s->info + s->info_len : NULL, s->be, false };

	while (s->info && sec.p < sec.end) {
		struct rd u, a;
		uint64_t len, abbrev_off, code, stmt = UINT64_MAX;
		const char *comp_dir = NULL;
		size_t offsz = 4;
		uint8_t asz, ut = 1;
		int version;

		len = rd_u(&sec, 4);
		if (len == 0xffffffffu) {
			offsz = 8;
			len = rd_u(&sec, 8);
		} else if (len >= 0xfffffff0u) {
			break;
		}
		if (sec.bad || len > (uint64_t)(sec.end - sec.p))
			break;
		u = sec;
		u.end = sec.p + len;
		sec.p += len;
		version = (int)rd_u(&u, 2);
		if (version < 2 || version > 5)
			continue;
		if (version >= 5) {
			ut = (uint8_t)rd_u(&u, 1);
			asz = (uint8_t)rd_u(&u, 1);
			abbrev_off = rd_u(&u, offsz);
			if (ut == 4 || ut == 5)
				rd_skip(&u, 8);        /* dwo_id */
			else if (ut == 2 || ut == 6)
				continue;               /* type units name no line table of code */
		} else {
			abbrev_off = rd_u(&u, offsz);
			asz = (uint8_t)rd_u(&u, 1);
		}
		if (u.bad || (asz != 1 && asz != 2 && asz != 4 && asz != 8))
			continue;
		code = rd_uleb(&u);
		if (u.bad || code == 0 || !find_abbrev(s, abbrev_off, code, &a))
			continue;
		for (;;) {
			uint64_t at = rd_uleb(&a), form = rd_uleb(&a), num;
			const char *str;

			if (a.bad || (at == 0 && form == 0))
				break;
			if (form == 0x21) {
				num = (uint64_t)rd_sleb(&a);
				str = NULL;
			} else if (!skip_form(&u, s, form, offsz, asz, version, 0, &num, &str)) {
				break;
			}
			if (at == 0x10) /* DW_AT_stmt_list */
				stmt = num;
			else if (at == 0x1b) /* DW_AT_comp_dir */
				comp_dir = str;
		}
		if (stmt == UINT64_MAX || !comp_dir)
			continue;
		if (cd->n == cd->cap) {
			size_t cap = cd->cap ? cd->cap * 2 : 64;
			struct cudir *v = pm__reallocarray(cd->v, cap, sizeof(*v));

			if (!v)
				return -ENOMEM;
			cd->v = v;
			cd->cap = cap;
		}
		cd->v[cd->n].stmt_list = stmt;
		cd->v[cd->n].comp_dir = comp_dir;
		cd->n++;
	}
	return 0;
}

static int cudir_cmp(const void *a, const void *b)
{
	const struct cudir *x = a, *y = b;

	return x->stmt_list < y->stmt_list ? -1 : x->stmt_list > y->stmt_list;
}

static const char *cu_dir_of(const struct cudirs *cd, uint64_t stmt_list)
{
	size_t lo = 0, hi = cd->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cd->v[mid].stmt_list < stmt_list)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cd->n && cd->v[lo].stmt_list == stmt_list ? cd->v[lo].comp_dir : NULL;
}

/* ---- one unit ---------------------------------------------------------- */

struct fent {
	const char *name;
	uint64_t dir;
	uint32_t off; /* full path in the table's arena, UINT32_MAX until used */
};

struct unit {
	const struct pm__dwarf_secs *secs;
	struct pm__linetab *t;
	struct rd r;
	int version;
	size_t offsz;
	uint8_t min_inst, max_ops, line_range, opcode_base;
	int8_t line_base;
	bool default_is_stmt;
	const uint8_t *std_len; /* opcode_base - 1 lengths */
	const char **dirs;
	size_t ndirs, capdirs;
	struct fent *files;
	size_t nfiles, capfiles;
	char *err;
	size_t errlen;
	size_t unit_off;
	const char *comp_dir; /* DWARF 2-4: of the unit whose DW_AT_stmt_list is this table */
};

static int unit_fail(struct unit *u, const char *fmt, ...) PM_PRINTF(2, 3);
static int unit_fail(struct unit *u, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (u->err && u->errlen && !u->err[0]) {
		n = snprintf(u->err, u->errlen, ".debug_line unit at 0x%zx: ", u->unit_off);
		if (n > 0 && (size_t)n < u->errlen) {
			va_start(ap, fmt);
			vsnprintf(u->err + n, u->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -PM_ERR_CORRUPT;
}

static int add_dir(struct unit *u, const char *d)
{
	if (u->ndirs == u->capdirs) {
		size_t cap = u->capdirs ? u->capdirs * 2 : 16;
		const char **v = pm__reallocarray(u->dirs, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->dirs = v;
		u->capdirs = cap;
	}
	u->dirs[u->ndirs++] = d;
	return 0;
}

static int add_file(struct unit *u, const char *name, uint64_t dir)
{
	if (u->nfiles == u->capfiles) {
		size_t cap = u->capfiles ? u->capfiles * 2 : 32;
		struct fent *v = pm__reallocarray(u->files, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->files = v;
		u->capfiles = cap;
	}
	u->files[u->nfiles].name = name;
	u->files[u->nfiles].dir = dir;
	u->files[u->nfiles].off = UINT32_MAX;
	u->nfiles++;
	return 0;
}

/* One attribute value of a DWARF 5 entry format: a string (path) or a
 * number (directory index); anything else is skipped by its form. */
static int read_form(struct unit *u, uint64_t form, const char **str, uint64_t *num)
{
	struct rd *r = &u->r;
	const struct pm__dwarf_secs *s = u->secs;
	uint64_t off;

	*str = NULL;
	*num = 0;
	switch (form) {
	case FORM_string:
		*str = rd_str(r);
		break;
	case FORM_line_strp:
	case FORM_strp:
		off = rd_u(r, u->offsz);
		if (r->bad)
			break;
		*str = form == FORM_line_strp ? sec_str(s->line_str, s->line_str_len, off)
					      : sec_str(s->str, s->str_len, off);
		if (!*str)
			return unit_fail(u, "string offset 0x%" PRIx64 " outside %s", off,
					 form == FORM_line_strp ? ".debug_line_str" : ".debug_str");
		break;
	case FORM_udata:
		*num = rd_uleb(r);
		break;
	case FORM_sdata:
		*num = (uint64_t)rd_sleb(r);
		break;
	case FORM_data1:
		*num = rd_u(r, 1);
		break;
	case FORM_data2:
		*num = rd_u(r, 2);
		break;
	case FORM_data4:
		*num = rd_u(r, 4);
		break;
	case FORM_data8:
		*num = rd_u(r, 8);
		break;
	case FORM_data16:
		rd_skip(r, 16);
		break;
	case FORM_block:
		rd_skip(r, rd_uleb(r));
		break;
	case FORM_block1:
		rd_skip(r, rd_u(r, 1));
		break;
	case FORM_block2:
		rd_skip(r, rd_u(r, 2));
		break;
	case FORM_block4:
		rd_skip(r, rd_u(r, 4));
		break;
	default:
		return unit_fail(u, "unsupported form 0x%" PRIx64 " in an entry format", form);
	}
	if (r->bad)
		return unit_fail(u, "entry ends past the header");
	return 0;
}

/* DWARF 5 directory or file-name table: a format, then the entries. */
static int read_v5_table(struct unit *u, bool files)
{
	struct rd *r = &u->r;
	uint64_t fmt[32][2], count;
	uint8_t nfmt = (uint8_t)rd_u(r, 1);
	int rc;

	if (nfmt > 32)
		return unit_fail(u, "%u entry-format pairs (at most 32 are read)", nfmt);
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[i][0] = rd_uleb(r);
		fmt[i][1] = rd_uleb(r);
	}
	count = rd_uleb(r);
	if (r->bad)
		return unit_fail(u, "%s table ends past the header", files ? "file" : "directory");
	if (count && !nfmt)
		return unit_fail(u, "%" PRIu64 " entries without a format", count);
	/* each entry takes at least one byte */
	if (count > (uint64_t)(r->end - r->p))
		return unit_fail(u, "%" PRIu64 " %s entries cannot fit", count,
				 files ? "file" : "directory");
	for (uint64_t e = 0; e < count; e++) {
		const char *path = NULL;
		uint64_t dir = 0;

		for (unsigned i = 0; i < nfmt; i++) {
			const char *sv;
			uint64_t nv;

			if ((rc = read_form(u, fmt[i][1], &sv, &nv)))
				return rc;
			if (fmt[i][0] == LNCT_path) {
				if (!sv)
					return unit_fail(u, "DW_LNCT_path in a non-string form 0x%" PRIx64,
							 fmt[i][1]);
				path = sv;
			} else if (fmt[i][0] == LNCT_directory_index) {
				dir = nv;
			}
		}
		if (!path)
			path = "";
		rc = files ? add_file(u, path, dir) : add_dir(u, path);
		if (rc)
			return rc;
	}
	return 0;
}

/* DWARF 2-4: NUL-terminated lists. */
static int read_v4_tables(struct unit *u)
{
	struct rd *r = &u->r;
	const char *s;
	int rc;

	/* index 0: the compilation directory, from .debug_info */
	if ((rc = add_dir(u, u->comp_dir)))
		return rc;
	while ((s = rd_str(r)) != NULL && *s)
		if ((rc = add_dir(u, s)))
			return rc;
	if ((rc = add_file(u, NULL, 0))) /* file numbers start at 1 */
		return rc;
	while ((s = rd_str(r)) != NULL && *s) {
		uint64_t dir = rd_uleb(r);

		rd_uleb(r); /* mtime */
		rd_uleb(r); /* length */
		if (r->bad)
			break;
		if ((rc = add_file(u, s, dir)))
			return rc;
	}
	if (r->bad)
		return unit_fail(u, "directory or file table ends past the header");
	return 0;
}

static int names_add(struct pm__buf *a, const char *s, size_t n, uint32_t *off)
{
	int rc;

	if (a->len >= UINT32_MAX - n - 1)
		return -ENOMEM;
	*off = (uint32_t)a->len;
	rc = pm__buf_append(a, s, n);
	if (rc == 0)
		rc = pm__buf_append(a, "", 1);
	return rc;
}

/* The arena offset of file number f's full path (interned on first use):
 * UINT32_MAX when the unit has no such file. */
static int file_path(struct unit *u, uint64_t f, uint32_t *out)
{
	struct pm__buf b = {0};
	struct fent *fe;
	const char *dir = NULL, *base = NULL;
	int rc;

	*out = UINT32_MAX;
	if (f >= u->nfiles || !u->files[f].name)
		return 0;
	fe = &u->files[f];
	if (fe->off != UINT32_MAX) {
		*out = fe->off;
		return 0;
	}
	/* binutils' and LLVM's rule: a relative directory is relative to the
	 * unit's DW_AT_comp_dir; in DWARF 2-4 directory 0 is that directory */
	if (fe->name[0] != '/' && fe->dir < u->ndirs) {
		dir = u->dirs[fe->dir];
		if (dir && dir[0] != '/' && !(u->version < 5 && fe->dir == 0))
			base = u->comp_dir ? u->comp_dir : u->version >= 5 && fe->dir ? u->dirs[0] : NULL;
	}
	if (base && *base)
		rc = pm__buf_printf(&b, "%s/%s/%s", base, dir, fe->name);
	else if (dir && *dir)
		rc = pm__buf_printf(&b, "%s/%s", dir, fe->name);
	else
		rc = pm__buf_printf(&b, "%s", fe->name);
	if (rc == 0)
		rc = names_add(&u->t->names, b.data, b.len, &fe->off);
	pm__buf_free(&b);
	if (rc)
		return rc;
	*out = fe->off;
	return 0;
}

/* The state machine's registers (DWARF 5, 6.2.2). */
struct regs {
	uint64_t addr;
	uint64_t op_index;
	uint64_t file;
	uint32_t line, column;
	bool is_stmt, end_sequence;
};

static void regs_reset(const struct unit *u, struct regs *g)
{
	memset(g, 0, sizeof(*g));
	g->file = 1;
	g->line = 1;
	g->is_stmt = u->default_is_stmt;
}

/* Rows of the current sequence, turned into ranges at its end. */
struct seqrow {
	uint64_t addr;
	uint32_t file, line, column;
};

struct seq {
	struct seqrow *v;
	size_t n, cap;
};

static int seq_push(struct unit *u, struct seq *q, const struct regs *g)
{
	uint32_t fo;
	int rc;

	if ((rc = file_path(u, g->file, &fo)))
		return rc;
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct seqrow *v = pm__reallocarray(q->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n].addr = g->addr;
	q->v[q->n].file = fo;
	q->v[q->n].line = g->line;
	q->v[q->n].column = g->column;
	q->n++;
	return 0;
}

static int tab_push(struct pm__linetab *t, const struct pm__lrange *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct pm__lrange *v = pm__reallocarray(t->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *r;
	return 0;
}

/* End of a sequence at `end`: each row covers up to the next row's address
 * (rows at one address: the last one counts, as binutils keeps it).  A
 * sequence whose addresses go backwards is malformed. */
static int seq_close(struct unit *u, struct seq *q, uint64_t end)
{
	int rc;

	for (size_t i = 0; i < q->n; i++) {
		uint64_t next = i + 1 < q->n ? q->v[i + 1].addr : end;
		struct pm__lrange lr;

		if (next < q->v[i].addr)
			return unit_fail(u, "addresses go backwards in a sequence (0x%" PRIx64
					 " after 0x%" PRIx64 ")", next, q->v[i].addr);
		if (next == q->v[i].addr)
			continue;
		lr.start = q->v[i].addr;
		lr.end = next;
		lr.file = q->v[i].file;
		lr.line = q->v[i].line;
		lr.column = q->v[i].column;
		if ((rc = tab_push(u->t, &lr)))
			return rc;
	}
	q->n = 0;
	return 0;
}

static void advance(const struct unit *u, struct regs *g, uint64_t op_adv)
{
	if (u->max_ops <= 1) {
		g->addr += (uint64_t)u->min_inst * op_adv;
	} else {
		uint64_t x = g->op_index + op_adv;

		g->addr += (uint64_t)u->min_inst * (x / u->max_ops);
		g->op_index = x % u->max_ops;
	}
}

static int run_program(struct unit *u)
{
	struct rd *r = &u->r;
	struct seq q = {0};
	struct regs g;
	int rc = 0;

	regs_reset(u, &g);
	while (r->p < r->end && !rc) {
		uint8_t op = *r->p++;

		if (op >= u->opcode_base) {
			uint8_t adj = (uint8_t)(op - u->opcode_base);

			if (!u->line_range) {
				rc = unit_fail(u, "special opcode with line_range 0");
				break;
			}
			advance(u, &g, adj / u->line_range);
			g.line += (uint32_t)(int32_t)(u->line_base + (int)(adj % u->line_range));
			rc = seq_push(u, &q, &g);
		} else if (op == 0) {
			uint64_t len = rd_uleb(r);
			const uint8_t *next;
			uint8_t sub;

			if (r->bad || len == 0 || len > (uint64_t)(r->end - r->p)) {
				rc = unit_fail(u, "extended opcode of length %" PRIu64 " at 0x%zx", len,
					       rd_off(r));
				break;
			}
			next = r->p + len;
			sub = *r->p++;
			switch (sub) {
			case LNE_end_sequence:
				g.end_sequence = true;
				rc = seq_close(u, &q, g.addr);
				regs_reset(u, &g);
				break;
			case LNE_set_address:
				if (len - 1 < 1 || len - 1 > 8) {
					rc = unit_fail(u, "DW_LNE_set_address with %" PRIu64 " bytes", len - 1);
					break;
				}
				g.addr = rd_u(r, (size_t)(len - 1));
				g.op_index = 0;
				break;
			case LNE_define_file: {
				struct rd sub_r = *r;
				const char *name;
				uint64_t dir;

				sub_r.end = next;
				name = rd_str(&sub_r);
				dir = rd_uleb(&sub_r);
				if (sub_r.bad || !name) {
					rc = unit_fail(u, "bad DW_LNE_define_file");
					break;
				}
				rc = add_file(u, name, dir);
				break;
			}
			default: /* DW_LNE_set_discriminator and vendor opcodes: skipped */
				break;
			}
			r->p = next;
		} else {
			switch (op) {
			case LNS_copy:
				rc = seq_push(u, &q, &g);
				break;
			case LNS_advance_pc:
				advance(u, &g, rd_uleb(r));
				break;
			case LNS_advance_line:
				g.line += (uint32_t)(uint64_t)rd_sleb(r);
				break;
			case LNS_set_file:
				g.file = rd_uleb(r);
				break;
			case LNS_set_column:
				g.column = (uint32_t)rd_uleb(r);
				break;
			case LNS_negate_stmt:
				g.is_stmt = !g.is_stmt;
				break;
			case LNS_set_basic_block:
			case LNS_set_prologue_end:
			case LNS_set_epilogue_begin:
				break;
			case LNS_const_add_pc:
				if (!u->line_range) {
					rc = unit_fail(u, "DW_LNS_const_add_pc with line_range 0");
					break;
				}
				advance(u, &g, (uint8_t)(255 - u->opcode_base) / u->line_range);
				break;
			case LNS_fixed_advance_pc:
				g.addr += rd_u(r, 2);
				g.op_index = 0;
				break;
			case LNS_set_isa:
				rd_uleb(r);
				break;
			default: /* an opcode this reader does not know: skip its operands */
				for (unsigned i = 0; i < u->std_len[op - 1] && !r->bad; i++)
					rd_uleb(r);
				break;
			}
			if (!rc && r->bad)
				rc = unit_fail(u, "operand of opcode %u ends past the unit", op);
		}
	}
	/* Rows after the last DW_LNE_end_sequence cover nothing (no end address). */
	free(q.v);
	return rc;
}

/* Parse the unit at r (its length included); r->p is moved past it when its
 * length could be read.  Returns 0, -PM_ERR_CORRUPT (unit dropped) or -ENOMEM. */
static int parse_unit(const struct pm__dwarf_secs *s, const struct cudirs *cd,
		      struct pm__linetab *t, struct rd *sec, char *err, size_t errlen, bool *stop)
{
	struct unit u;
	uint64_t len, hlen;
	const uint8_t *prog;
	size_t nrows = t->n, nnames = t->names.len;
	int rc;

	memset(&u, 0, sizeof(u));
	u.secs = s;
	u.t = t;
	u.err = err;
	u.errlen = errlen;
	u.unit_off = rd_off(sec);
	u.comp_dir = cu_dir_of(cd, u.unit_off);
	u.offsz = 4;
	len = rd_u(sec, 4);
	if (len >= 0xfffffff0u) {
		if (len != 0xffffffffu) {
			*stop = true;
			return unit_fail(&u, "reserved unit length 0x%" PRIx64, len);
		}
		u.offsz = 8;
		len = rd_u(sec, 8);
	}
	if (sec->bad || len > (uint64_t)(sec->end - sec->p)) {
		*stop = true;
		return unit_fail(&u, "unit length %" PRIu64 " past the end of the section", len);
	}
	u.r.base = sec->base;
	u.r.p = sec->p;
	u.r.end = sec->p + len;
	u.r.be = sec->be;
	sec->p += len;

	u.version = (int)rd_u(&u.r, 2);
	if (u.r.bad || u.version < 2 || u.version > 5)
		return unit_fail(&u, "version %d (2 to 5 are read)", u.version);
	if (u.version >= 5) {
		uint8_t asz = (uint8_t)rd_u(&u.r, 1);

		rd_u(&u.r, 1); /* segment selector size */
		if (!u.r.bad && asz != 1 && asz != 2 && asz != 4 && asz != 8)
			return unit_fail(&u, "address size %u", asz);
	}
	hlen = rd_u(&u.r, u.offsz);
	if (u.r.bad || hlen > (uint64_t)(u.r.end - u.r.p))
		return unit_fail(&u, "header length %" PRIu64 " past the unit", hlen);
	prog = u.r.p + hlen;
	u.r.end = prog; /* what follows lies inside the header */
	u.min_inst = (uint8_t)rd_u(&u.r, 1);
	u.max_ops = u.version >= 4 ? (uint8_t)rd_u(&u.r, 1) : 1;
	u.default_is_stmt = rd_u(&u.r, 1) != 0;
	u.line_base = (int8_t)(uint8_t)rd_u(&u.r, 1);
	u.line_range = (uint8_t)rd_u(&u.r, 1);
	u.opcode_base = (uint8_t)rd_u(&u.r, 1);
	if (u.r.bad)
		return unit_fail(&u, "header ends early");
	if (u.opcode_base == 0)
		return unit_fail(&u, "opcode_base 0");
	u.std_len = u.r.p;
	rd_skip(&u.r, u.opcode_base - 1u);
	if (u.r.bad)
		return unit_fail(&u, "standard_opcode_lengths past the header");
	rc = u.version >= 5 ? read_v5_table(&u, false) : read_v4_tables(&u);
	if (!rc && u.version >= 5)
		rc = read_v5_table(&u, true);
	if (!rc) {
		u.r.p = prog;
		u.r.end = sec->p;
		rc = run_program(&u);
	}
	free(u.dirs);
	free(u.files);
	if (rc) {
		/* the unit is dropped: its ranges (and names) go */
		t->n = nrows;
		t->names.len = nnames;
	}
	return rc;
}

static int range_cmp(const void *a, const void *b)
{
	const struct pm__lrange *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

int pm__dwarf_lines_parse(const struct pm__dwarf_secs *s, struct pm__linetab *t, char *err,
			  size_t errlen)
{
	struct cudirs cd = {0};
	struct rd sec;
	int rc = 0, bad = 0;
	bool stop = false;

	if (err && errlen)
		err[0] = '\0';
	memset(t, 0, sizeof(*t));
	if (!s->line || !s->line_len)
		return 0;
	if (read_cu_dirs(s, &cd)) {
		free(cd.v);
		return -ENOMEM;
	}
	if (cd.n)
		qsort(cd.v, cd.n, sizeof(*cd.v), cudir_cmp);
	sec.base = s->line;
	sec.p = s->line;
	sec.end = s->line + s->line_len;
	sec.be = s->be;
	sec.bad = false;
	while (sec.p < sec.end && !stop) {
		rc = parse_unit(s, &cd, t, &sec, err, errlen, &stop);
		if (rc == -ENOMEM)
			break;
		if (rc)
			bad++;
		rc = 0;
	}
	free(cd.v);
	if (rc) {
		pm__linetab_free(t);
		return rc;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), range_cmp);
	/* maxend[i]: the largest end among ranges 0..i, for overlapping sequences */
	for (size_t i = 0; i < t->n; i++)
		t->v[i].maxend = i && t->v[i - 1].maxend > t->v[i].end ? t->v[i - 1].maxend : t->v[i].end;
	return bad;
}

const struct pm__lrange *pm__linetab_find(const struct pm__linetab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* the last range starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back over the ranges that start below addr while one of them may still cover it */
	while (lo > 0 && t->v[lo - 1].maxend > addr) {
		const struct pm__lrange *r = &t->v[lo - 1];

		if (addr < r->end)
			return r;
		lo--;
	}
	return NULL;
}

const char *pm__linetab_file(const struct pm__linetab *t, const struct pm__lrange *r)
{
	if (!r || r->file == UINT32_MAX)
		return NULL;
	return t->names.data + r->file;
}

void pm__linetab_free(struct pm__linetab *t)
{
	free(t->v);
	pm__buf_free(&t->names);
	memset(t, 0, sizeof(*t));
}
