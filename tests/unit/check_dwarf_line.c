/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * unit.dwarf_line: the .debug_line reader (lib/symbol/dwarf_line.c) on line
 * programs assembled here byte by byte, one per DWARF version (2, 3 with the
 * 64-bit format, 4, 5 with its entry formats), whose rows are worked out by
 * hand from the DWARF 5 rules (6.2.5.1: special opcode = (line advance -
 * line_base) + line_range * operation advance + opcode_base); malformed units
 * (each between good ones: only it is dropped, with its reason); every
 * truncation and many byte flips of a good section (no crash, every range
 * well-formed).  Real compilers' output against addr2line is in
 * tests/perf/test_lines.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_check.h"
#include "symbol/sym_internal.h"

/* ---- a byte builder ---- */

struct bb {
	uint8_t b[4096];
	size_t n;
};

static void u8(struct bb *b, unsigned v)
{
	ck_assert(b->n < sizeof(b->b));
	b->b[b->n++] = (uint8_t)v;
}

/* Byte order of the numbers the builder writes (the file's). */
static bool big;

static void un(struct bb *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		u8(b, (unsigned)(v >> (8 * (big ? n - 1 - i : i))) & 0xff);
}

static void uleb(struct bb *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void sleb(struct bb *b, int64_t v)
{
	bool more = true;

	while (more) {
		uint8_t c = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)));
		u8(b, c | (more ? 0x80 : 0));
	}
}

static void str(struct bb *b, const char *s)
{
	do
		u8(b, (unsigned char)*s);
	while (*s++);
}

static void patch32(struct bb *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * (big ? 3 - i : i)));
}

static void patch64(struct bb *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * (big ? 7 - i : i)));
}

/* std opcode lengths of DWARF 3+ (opcodes 1..12) */
static const uint8_t stdlen[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };

enum { LB = -5, LR = 14 };

static unsigned special(int line_adv, unsigned op_adv, unsigned opcode_base)
{
	return (unsigned)(line_adv - LB) + LR * op_adv + opcode_base;
}

/* The common header fields after header_length; returns nothing. */
static void hdr_fields(struct bb *b, int version, unsigned opcode_base)
{
	u8(b, 1);                          /* minimum_instruction_length */
	if (version >= 4)
		u8(b, 1);                  /* maximum_operations_per_instruction */
	u8(b, 1);                          /* default_is_stmt */
	u8(b, (uint8_t)(int8_t)LB);        /* line_base */
	u8(b, LR);                         /* line_range */
	u8(b, opcode_base);
	for (unsigned i = 0; i + 1 < opcode_base; i++)
		u8(b, i < 12 ? stdlen[i] : 1);
}

static void set_address(struct bb *b, uint64_t a, int size)
{
	u8(b, 0);
	uleb(b, 1 + (uint64_t)size);
	u8(b, 2);
	un(b, a, size);
}

static void end_sequence(struct bb *b)
{
	u8(b, 0);
	u8(b, 1);
	u8(b, 1);
}

/* DWARF 4 unit (32-bit): dirs "inc", files a.c (dir 0), b.h (dir 1).
 * Rows: 0x1000 a.c:10, 0x1004 a.c:12, 0x1014 b.h:12, 0x1025 b.h:10, end 0x1028. */
static void unit_v4(struct bb *b)
{
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 4, 2);
	hl = b->n;
	un(b, 0, 4);
	hdr_fields(b, 4, 13);
	str(b, "inc");
	u8(b, 0);
	str(b, "a.c"), uleb(b, 0), uleb(b, 0), uleb(b, 0);
	str(b, "b.h"), uleb(b, 1), uleb(b, 0), uleb(b, 0);
	u8(b, 0);
	patch32(b, hl, b->n - hl - 4);
	set_address(b, 0x1000, 8);
	u8(b, 3), sleb(b, 9);              /* advance_line: 10 */
	u8(b, 1);                          /* copy */
	u8(b, special(2, 4, 13));          /* 0x1004, line 12 */
	u8(b, 4), uleb(b, 2);              /* set_file 2 */
	u8(b, 9), un(b, 0x10, 2);          /* fixed_advance_pc: 0x1014 */
	u8(b, 5), uleb(b, 7);              /* set_column 7 */
	u8(b, 1);                          /* copy */
	u8(b, 8);                          /* const_add_pc: (255 - 13) / 14 = 17: 0x1025 */
	u8(b, 3), sleb(b, -2);             /* line 10 */
	u8(b, 0), uleb(b, 2), u8(b, 4), uleb(b, 3); /* set_discriminator 3 (skipped) */
	u8(b, 1);
	u8(b, 2), uleb(b, 3);              /* advance_pc: 0x1028 */
	end_sequence(b);
	patch32(b, ul, b->n - ul - 4);
}

/* DWARF 5 unit: dirs "/comp" (line_strp), "sub" (line_strp); files m.c
 * (dir 0), h.h (dir 1), with MD5 (data16) and a block.  The file register
 * starts at 1: 0x2000 /comp/sub/h.h:1, 0x2002 /comp/m.c:1, end 0x2004. */
static void unit_v5(struct bb *b)
{
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 5, 2);
	u8(b, 8);                          /* address_size */
	u8(b, 0);                          /* segment_selector_size */
	hl = b->n;
	un(b, 0, 4);
	hdr_fields(b, 5, 13);
	u8(b, 1);                          /* directory formats: path line_strp */
	uleb(b, 1), uleb(b, 0x1f);
	uleb(b, 2);
	un(b, 0, 4);                       /* "/comp" */
	un(b, 6, 4);                       /* "sub" */
	u8(b, 4);                          /* file formats */
	uleb(b, 1), uleb(b, 0x08);         /* path string */
	uleb(b, 2), uleb(b, 0x0f);         /* directory_index udata */
	uleb(b, 5), uleb(b, 0x1e);         /* MD5 data16 */
	uleb(b, 4), uleb(b, 0x09);         /* size block */
	uleb(b, 2);
	str(b, "m.c"), uleb(b, 0), un(b, 0x1111, 8), un(b, 0x2222, 8), uleb(b, 2), u8(b, 0xaa), u8(b, 0xbb);
	str(b, "h.h"), uleb(b, 1), un(b, 0, 8), un(b, 0, 8), uleb(b, 0);
	patch32(b, hl, b->n - hl - 4);
	set_address(b, 0x2000, 8);
	u8(b, 1);
	u8(b, 4), uleb(b, 0);              /* file 0: m.c */
	u8(b, special(0, 2, 13));          /* 0x2002 */
	u8(b, 2), uleb(b, 2);
	end_sequence(b);
	patch32(b, ul, b->n - ul - 4);
}

static const char line_str[] = "/comp\0sub";

/* DWARF 2 unit: opcode_base 10 (bytes 10.. are special), 4-byte addresses,
 * DW_LNE_define_file.  0x3000 d.c:5, 0x3001 d.c:3 (two rows at 0x3001:
 * the last counts), end 0x3002. */
static void unit_v2(struct bb *b)
{
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 2, 2);
	hl = b->n;
	un(b, 0, 4);
	hdr_fields(b, 2, 10);
	u8(b, 0);
	str(b, "x.c"), uleb(b, 0), uleb(b, 0), uleb(b, 0);
	u8(b, 0);
	patch32(b, hl, b->n - hl - 4);
	u8(b, 0), uleb(b, 8), u8(b, 3), str(b, "d.c"), uleb(b, 0), uleb(b, 0), uleb(b, 0);
	set_address(b, 0x3000, 4);
	u8(b, 4), uleb(b, 2);              /* set_file 2: d.c */
	u8(b, 3), sleb(b, 4);              /* line 5 */
	u8(b, 1);
	u8(b, special(1, 1, 10));          /* 0x3001 line 6 */
	u8(b, special(-3, 0, 10));         /* 0x3001 line 3 */
	u8(b, 2), uleb(b, 1);
	end_sequence(b);
	patch32(b, ul, b->n - ul - 4);
}

/* DWARF 3 unit in the 64-bit format: 0x4000 y.c:1, end 0x4008. */
static void unit_v3_64(struct bb *b)
{
	size_t ul, hl, start;

	un(b, 0xffffffffu, 4);
	ul = b->n;
	un(b, 0, 8);
	start = b->n;
	un(b, 3, 2);
	hl = b->n;
	un(b, 0, 8);
	hdr_fields(b, 3, 13);
	u8(b, 0);
	str(b, "y.c"), uleb(b, 0), uleb(b, 0), uleb(b, 0);
	u8(b, 0);
	patch64(b, hl, b->n - hl - 8);
	set_address(b, 0x4000, 8);
	u8(b, 1);
	u8(b, 2), uleb(b, 8);
	end_sequence(b);
	patch64(b, ul, b->n - start);
}

static void parse(const struct bb *line, const struct bb *info, const struct bb *abbrev,
		  struct pm__linetab *t, int want_bad, char *err, size_t errlen)
{
	struct pm__dwarf_secs s = { 0 };
	int rc;

	s.be = big;
	s.line = line->b;
	s.line_len = line->n;
	s.line_str = (const uint8_t *)line_str;
	s.line_str_len = sizeof(line_str);
	if (info) {
		s.info = info->b;
		s.info_len = info->n;
		s.abbrev = abbrev->b;
		s.abbrev_len = abbrev->n;
	}
	rc = pm__dwarf_lines_parse(&s, t, err, errlen);
	ck_assert_int_eq(rc, want_bad);
}

static void expect(const struct pm__linetab *t, uint64_t addr, const char *file, uint32_t line)
{
	const struct pm__lrange *r = pm__linetab_find(t, addr);

	if (!file) {
		ck_assert_msg(r == NULL, "0x%llx: want no line, got %u", (unsigned long long)addr,
			      r ? r->line : 0);
		return;
	}
	ck_assert_msg(r != NULL, "0x%llx: no line, want %s:%u", (unsigned long long)addr, file, line);
	ck_assert_str_eq(pm__linetab_file(t, r), file);
	ck_assert_uint_eq(r->line, line);
}

static void expect_good(const struct pm__linetab *t, const char *cdir)
{
	char a[64], bh[64];

	snprintf(a, sizeof(a), "%s%sa.c", cdir ? cdir : "", cdir ? "/" : "");
	snprintf(bh, sizeof(bh), "%s%sinc/b.h", cdir ? cdir : "", cdir ? "/" : "");
	expect(t, 0xfff, NULL, 0);
	expect(t, 0x1000, a, 10);
	expect(t, 0x1003, a, 10);
	expect(t, 0x1004, a, 12);
	expect(t, 0x1013, a, 12);
	expect(t, 0x1014, bh, 12);
	ck_assert_uint_eq(pm__linetab_find(t, 0x1014)->column, 7);
	expect(t, 0x1024, bh, 12);
	expect(t, 0x1025, bh, 10);
	expect(t, 0x1027, bh, 10);
	expect(t, 0x1028, NULL, 0);
	expect(t, 0x2000, "/comp/sub/h.h", 1);
	expect(t, 0x2001, "/comp/sub/h.h", 1);
	expect(t, 0x2002, "/comp/m.c", 1);
	expect(t, 0x2003, "/comp/m.c", 1);
	expect(t, 0x2004, NULL, 0);
	expect(t, 0x3000, "d.c", 5);
	expect(t, 0x3001, "d.c", 3);
	expect(t, 0x3002, NULL, 0);
	expect(t, 0x4000, "y.c", 1);
	expect(t, 0x4007, "y.c", 1);
	expect(t, 0x4008, NULL, 0);
}

static void good_section(struct bb *b)
{
	memset(b, 0, sizeof(*b));
	unit_v4(b);
	unit_v5(b);
	unit_v2(b);
	unit_v3_64(b);
}

START_TEST(test_versions)
{
	struct bb b;
	struct pm__linetab t;
	char err[200];

	good_section(&b);
	parse(&b, NULL, NULL, &t, 0, err, sizeof(err));
	ck_assert_str_eq(err, "");
	expect_good(&t, NULL);
	pm__linetab_free(&t);
}
END_TEST

/* The same units written big-endian (an s390x or SPARC file): the same rows. */
START_TEST(test_big_endian)
{
	struct bb b;
	struct pm__linetab t;
	char err[200];

	big = true;
	good_section(&b);
	parse(&b, NULL, NULL, &t, 0, err, sizeof(err));
	big = false;
	ck_assert_str_eq(err, "");
	expect_good(&t, NULL);
	pm__linetab_free(&t);
	/* and read in the wrong byte order: units refused, no crash */
	{
		struct pm__dwarf_secs s = { 0 };

		big = true;
		good_section(&b);
		big = false;
		s.line = b.b;
		s.line_len = b.n;
		ck_assert_int_gt(pm__dwarf_lines_parse(&s, &t, err, sizeof(err)), 0);
		ck_assert(pm__linetab_find(&t, 0x1000) == NULL);
		pm__linetab_free(&t);
	}
}
END_TEST

/* DWARF 2-4 name no compilation directory: it comes from the unit's
 * DW_AT_comp_dir in .debug_info (found by DW_AT_stmt_list). */
START_TEST(test_comp_dir)
{
	struct bb b, info = { { 0 }, 0 }, abbrev = { { 0 }, 0 };
	struct pm__linetab t;
	char err[200];

	good_section(&b);
	uleb(&abbrev, 1), uleb(&abbrev, 0x11), u8(&abbrev, 0);
	uleb(&abbrev, 0x03), uleb(&abbrev, 0x08);   /* DW_AT_name string */
	uleb(&abbrev, 0x10), uleb(&abbrev, 0x17);   /* DW_AT_stmt_list sec_offset */
	uleb(&abbrev, 0x1b), uleb(&abbrev, 0x08);   /* DW_AT_comp_dir string */
	uleb(&abbrev, 0), uleb(&abbrev, 0);
	u8(&abbrev, 0);
	un(&info, 0, 4);
	un(&info, 4, 2);
	un(&info, 0, 4);                            /* abbrev offset */
	u8(&info, 8);
	uleb(&info, 1);
	str(&info, "a.c");
	un(&info, 0, 4);                            /* stmt_list: the v4 unit at 0 */
	str(&info, "/src");
	patch32(&info, 0, info.n - 4);
	parse(&b, &info, &abbrev, &t, 0, err, sizeof(err));
	expect_good(&t, "/src");
	pm__linetab_free(&t);
}
END_TEST

/* Absent sections are NULL with length 0, as lib/symbol/elf.c passes them:
 * .debug_info without .debug_abbrev (and no string sections) still gives
 * the line table, without compilation directories.  (The reader computed
 * NULL + 0 for an absent .debug_info or .debug_abbrev, undefined behaviour
 * that clang's UBSan reports: fuzz_sym found it, and the fuzz regressions
 * sym/debug-line-without-debug-info and dwarf_line/no-debug-info replay it.) */
START_TEST(test_absent_sections)
{
	struct bb b, info = { { 0 }, 0 };
	struct pm__dwarf_secs s = { 0 };
	struct pm__linetab t;
	char err[200];

	good_section(&b);
	un(&info, 0, 4);
	un(&info, 4, 2);
	un(&info, 0, 4);
	u8(&info, 8);
	uleb(&info, 1);
	patch32(&info, 0, info.n - 4);
	s.be = big;
	s.line = b.b;
	s.line_len = b.n;
	s.line_str = (const uint8_t *)line_str;
	s.line_str_len = sizeof(line_str);
	s.info = info.b;
	s.info_len = info.n;
	ck_assert_int_eq(pm__dwarf_lines_parse(&s, &t, err, sizeof(err)), 0);
	expect_good(&t, NULL);
	pm__linetab_free(&t);
	s.info = NULL;
	s.info_len = 0;
	ck_assert_int_eq(pm__dwarf_lines_parse(&s, &t, err, sizeof(err)), 0);
	expect_good(&t, NULL);
	pm__linetab_free(&t);
}
END_TEST

/* Overlapping sequences (a discarded function's rows at its old address):
 * a range that starts before a smaller one still covers what follows it. */
START_TEST(test_overlap)
{
	struct bb b = { { 0 }, 0 };
	struct pm__linetab t;
	size_t ul, hl;
	char err[200];

	ul = b.n;
	un(&b, 0, 4);
	un(&b, 4, 2);
	hl = b.n;
	un(&b, 0, 4);
	hdr_fields(&b, 4, 13);
	u8(&b, 0);
	str(&b, "o.c"), uleb(&b, 0), uleb(&b, 0), uleb(&b, 0);
	u8(&b, 0);
	patch32(&b, hl, b.n - hl - 4);
	set_address(&b, 0x100, 8);
	u8(&b, 1);                                  /* 0x100 line 1 */
	u8(&b, 2), uleb(&b, 0x100);
	end_sequence(&b);                           /* to 0x200 */
	set_address(&b, 0x110, 8);
	u8(&b, 3), sleb(&b, 1);
	u8(&b, 1);                                  /* 0x110 line 2 */
	u8(&b, 2), uleb(&b, 0x10);
	end_sequence(&b);                           /* to 0x120 */
	patch32(&b, ul, b.n - ul - 4);
	parse(&b, NULL, NULL, &t, 0, err, sizeof(err));
	expect(&t, 0x100, "o.c", 1);
	expect(&t, 0x115, "o.c", 2);
	expect(&t, 0x150, "o.c", 1);
	expect(&t, 0x1ff, "o.c", 1);
	expect(&t, 0x200, NULL, 0);
	pm__linetab_free(&t);
}
END_TEST

/* A unit assembled by `mk` is put between the good units: only it goes,
 * with a reason that contains `why`. */
typedef void (*mkfn)(struct bb *);

static void bad_between(mkfn mk, const char *why)
{
	struct bb b;
	struct pm__linetab t;
	char err[200];

	memset(&b, 0, sizeof(b));
	unit_v4(&b);
	unit_v5(&b);
	mk(&b);
	unit_v2(&b);
	unit_v3_64(&b);
	parse(&b, NULL, NULL, &t, 1, err, sizeof(err));
	ck_assert_msg(strstr(err, why) != NULL, "reason '%s' lacks '%s'", err, why);
	ck_assert_msg(strstr(err, ".debug_line unit at 0x") != NULL, "no offset in '%s'", err);
	expect_good(&t, NULL);
	pm__linetab_free(&t);
}

/* A v4 unit with a custom body: header fields then program bytes. */
static void v4_with(struct bb *b, unsigned line_range, const uint8_t *prog, size_t n)
{
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 4, 2);
	hl = b->n;
	un(b, 0, 4);
	u8(b, 1), u8(b, 1), u8(b, 1), u8(b, (uint8_t)(int8_t)LB), u8(b, line_range), u8(b, 13);
	for (int i = 0; i < 12; i++)
		u8(b, stdlen[i]);
	u8(b, 0);
	str(b, "z.c"), uleb(b, 0), uleb(b, 0), uleb(b, 0);
	u8(b, 0);
	patch32(b, hl, b->n - hl - 4);
	set_address(b, 0x9000, 8);
	u8(b, 1);
	for (size_t i = 0; i < n; i++)
		u8(b, prog[i]);
	end_sequence(b);
	patch32(b, ul, b->n - ul - 4);
}

static void mk_version(struct bb *b)
{
	size_t ul = b->n;

	un(b, 0, 4);
	un(b, 7, 2);
	un(b, 0, 8);
	patch32(b, ul, b->n - ul - 4);
}

static void mk_line_range0(struct bb *b)
{
	static const uint8_t p[] = { 40 };

	v4_with(b, 0, p, sizeof(p));
}

static void mk_ext_len(struct bb *b)
{
	static const uint8_t p[] = { 0, 0x7f, 2 };

	v4_with(b, LR, p, sizeof(p));
}

static void mk_backwards(struct bb *b)
{
	static const uint8_t p[] = { 0, 9, 2, 0, 0x10, 0, 0, 0, 0, 0, 0, 1 };

	v4_with(b, LR, p, sizeof(p));
}

static void mk_operand(struct bb *b)
{
	/* fixed_advance_pc's 2-byte operand cut by the unit's end */
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 4, 2);
	hl = b->n;
	un(b, 0, 4);
	hdr_fields(b, 4, 13);
	u8(b, 0);
	u8(b, 0);
	patch32(b, hl, b->n - hl - 4);
	u8(b, 9), u8(b, 1);
	patch32(b, ul, b->n - ul - 4);
}

static void mk_header_len(struct bb *b)
{
	size_t ul = b->n;

	un(b, 0, 4);
	un(b, 4, 2);
	un(b, 1000, 4);
	hdr_fields(b, 4, 13);
	patch32(b, ul, b->n - ul - 4);
}

static void mk_v5_form(struct bb *b, unsigned form)
{
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 5, 2);
	u8(b, 8), u8(b, 0);
	hl = b->n;
	un(b, 0, 4);
	hdr_fields(b, 5, 13);
	u8(b, 1);
	uleb(b, 1), uleb(b, form);
	uleb(b, 1);
	un(b, 0x7777, 4);
	u8(b, 0);
	uleb(b, 0);
	patch32(b, hl, b->n - hl - 4);
	patch32(b, ul, b->n - ul - 4);
}

static void mk_strx(struct bb *b)
{
	mk_v5_form(b, 0x1a);
}

static void mk_line_strp(struct bb *b)
{
	mk_v5_form(b, 0x1f); /* offset 0x7777: outside .debug_line_str */
}

static void mk_files_count(struct bb *b)
{
	size_t ul = b->n, hl;

	un(b, 0, 4);
	un(b, 5, 2);
	u8(b, 8), u8(b, 0);
	hl = b->n;
	un(b, 0, 4);
	hdr_fields(b, 5, 13);
	u8(b, 0), uleb(b, 0);
	u8(b, 1), uleb(b, 1), uleb(b, 0x08);
	uleb(b, 1000000);                  /* a million files in a few bytes */
	patch32(b, hl, b->n - hl - 4);
	patch32(b, ul, b->n - ul - 4);
}

START_TEST(test_malformed_units)
{
	bad_between(mk_version, "version 7");
	bad_between(mk_line_range0, "line_range 0");
	bad_between(mk_ext_len, "extended opcode of length 127");
	bad_between(mk_backwards, "backwards");
	bad_between(mk_operand, "ends past the unit");
	bad_between(mk_header_len, "header length 1000");
	bad_between(mk_strx, "unsupported form 0x1a");
	bad_between(mk_line_strp, "outside .debug_line_str");
	bad_between(mk_files_count, "cannot fit");
}
END_TEST

/* A unit length past the section's end stops the walk: what came before stays. */
START_TEST(test_unit_length)
{
	struct bb b = { { 0 }, 0 };
	struct pm__linetab t;
	char err[200];

	unit_v4(&b);
	un(&b, 0x10000, 4);
	un(&b, 4, 2);
	parse(&b, NULL, NULL, &t, 1, err, sizeof(err));
	ck_assert_msg(strstr(err, "past the end of the section"), "%s", err);
	expect(&t, 0x1000, "a.c", 10);
	pm__linetab_free(&t);
	b.n = 0;
	unit_v4(&b);
	un(&b, 0xfffffff5u, 4);
	parse(&b, NULL, NULL, &t, 1, err, sizeof(err));
	ck_assert_msg(strstr(err, "reserved unit length"), "%s", err);
	pm__linetab_free(&t);
}
END_TEST

static void check_table(const struct pm__linetab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct pm__lrange *r = &t->v[i];

		ck_assert(r->start < r->end);
		ck_assert(r->maxend >= r->end);
		ck_assert(i == 0 || t->v[i - 1].start <= r->start);
		ck_assert(r->file == UINT32_MAX || r->file < t->names.len);
		ck_assert(pm__linetab_find(t, r->start) != NULL);
	}
}

/* Every prefix of a good section and 3000 sections with bytes changed
 * (a fixed LCG): no crash (the ASan run checks reads), every result sane. */
START_TEST(test_cut_and_flipped)
{
	struct bb good, b;
	struct pm__linetab t;
	char err[200];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	good_section(&good);
	for (size_t n = 0; n <= good.n; n++) {
		struct pm__dwarf_secs s = { 0 };
		uint8_t *copy = malloc(n ? n : 1);

		memcpy(copy, good.b, n);
		s.line = copy;
		s.line_len = n;
		s.line_str = (const uint8_t *)line_str;
		s.line_str_len = sizeof(line_str);
		ck_assert_int_ge(pm__dwarf_lines_parse(&s, &t, err, sizeof(err)), 0);
		check_table(&t);
		pm__linetab_free(&t);
		free(copy);
	}
	for (int it = 0; it < 3000; it++) {
		struct pm__dwarf_secs s = { 0 };
		uint8_t *copy;
		int flips;

		b = good;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		flips = 1 + (int)((x >> 33) % 4);
		for (int k = 0; k < flips; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			b.b[(x >> 20) % b.n] = (uint8_t)(x >> 56);
		}
		copy = malloc(b.n);
		memcpy(copy, b.b, b.n);
		s.line = copy;
		s.line_len = b.n;
		s.line_str = (const uint8_t *)line_str;
		s.line_str_len = sizeof(line_str);
		ck_assert_int_ge(pm__dwarf_lines_parse(&s, &t, err, sizeof(err)), 0);
		check_table(&t);
		pm__linetab_free(&t);
		free(copy);
	}
}
END_TEST

static Suite *dwarf_line_suite(void)
{
	Suite *s = suite_create("dwarf_line");
	TCase *tc = tcase_create("dwarf_line");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_versions);
	tcase_add_test(tc, test_big_endian);
	tcase_add_test(tc, test_comp_dir);
	tcase_add_test(tc, test_absent_sections);
	tcase_add_test(tc, test_overlap);
	tcase_add_test(tc, test_malformed_units);
	tcase_add_test(tc, test_unit_length);
	tcase_add_test(tc, test_cut_and_flipped);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(dwarf_line_suite)
