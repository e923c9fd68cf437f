/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * unit.kcache: the kernel symbol cache (lib/symbol/kcache.c, kallsyms.c).
 *
 * The file format in every build: an image of a hand-made table parses back
 * to that table; every truncation, every flipped byte, a wrong version and
 * inconsistent counts are refused.
 *
 * With libelf (the symbolizer), on fake kallsyms / modules / boot id files
 * whose symbols and sizes are written out here: cold (read, cache written
 * 0600) and warm (from the cache) give the answers the fake inputs say; an
 * address the cache must not answer (the last symbol of a region, a BPF
 * program or trampoline that appeared after the cache was made, a module
 * loaded elsewhere) gets the fresh read's answer; another boot id, a changed
 * kallsyms head (hidden addresses), a damaged, truncated, foreign-writable or
 * wrong-version file are not used; the off switches; an unwritable cache
 * directory is no error.  And this machine's /proc/kallsyms: every text
 * symbol's address and the byte after it give the same answer cold, warm and
 * without a cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pm_check.h"
#include "symbol/sym_internal.h"

/* ---- helpers ---- */

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/pm-kcache-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

static void write_str(const char *path, const char *s)
{
	write_file(path, s, strlen(s));
}

/* ---- the file format ---- */

/* A small table as kallsyms.c builds it: core symbols then one module's. */
static void small_table(struct pm__symtab *t, struct pm__kgroup g[2])
{
	static const struct {
		uint64_t start, size;
		const char *name;
		int mod;
	} syms[] = {
		{ 0xffffffff81000000ull, 0x100, "_stext", 0 },
		{ 0xffffffff81000100ull, 0x100, "core_a", 0 },
		{ 0xffffffff81000200ull, 0x1000, "core_last", 0 },
		{ 0xffffffffc0010000ull, 0x100, "moda_f", 1 },
		{ 0xffffffffc0010100ull, 0x1000, "moda_last", 1 },
	};
	uint32_t mods[2];

	memset(t, 0, sizeof(*t));
	ck_assert_int_eq(pm__symtab_addstr(t, "[kernel.kallsyms]", 17, &mods[0]), 0);
	ck_assert_int_eq(pm__symtab_addstr(t, "[moda]", 6, &mods[1]), 0);
	t->v = calloc(PM_ARRAY_SIZE(syms), sizeof(*t->v));
	ck_assert_ptr_nonnull(t->v);
	for (size_t i = 0; i < PM_ARRAY_SIZE(syms); i++) {
		t->v[i].start = syms[i].start;
		t->v[i].size = syms[i].size;
		t->v[i].mod = mods[syms[i].mod];
		ck_assert_int_eq(pm__symtab_addstr(t, syms[i].name, strlen(syms[i].name), &t->v[i].name), 0);
	}
	t->n = PM_ARRAY_SIZE(syms);
	g[0] = (struct pm__kgroup){ .first = syms[0].start, .last = syms[2].start, .mod = mods[0],
				    .lo = 0, .hi = 3, .kind = 0 };
	g[1] = (struct pm__kgroup){ .first = syms[3].start, .last = syms[4].start,
				    .maddr = 0xffffffffc0010000ull, .msize = 0x3000, .mod = mods[1],
				    .lo = 3, .hi = 5, .kind = 1 };
}

static const char small_boot[] = "0f3c6c55-2b8e-4b59-9f43-8f9a2e1d7c11";
static const char small_head[] = "0000000000000000 A fixed_percpu_data\n"
				 "ffffffff81000000 T _stext\n";

static struct pm__buf small_image(void)
{
	struct pm__symtab t;
	struct pm__kgroup g[2];
	struct pm__buf img = {0};

	small_table(&t, g);
	ck_assert_int_eq(pm__kcache_encode(&t, g, 2, small_boot, strlen(small_boot), small_head,
					   strlen(small_head), &img), 0);
	pm__symtab_free(&t);
	return img;
}

START_TEST(test_format_roundtrip)
{
	struct pm__buf img = small_image();
	struct pm__kcache kc;
	char why[200] = "";

	ck_assert_int_eq(pm__kcache_parse((const uint8_t *)img.data, img.len, &kc, why, sizeof(why)), 0);
	ck_assert_uint_eq(kc.tab.n, 5);
	ck_assert_uint_eq(kc.ng, 2);
	ck_assert_uint_eq(kc.boot_id_len, strlen(small_boot));
	ck_assert(memcmp(kc.boot_id, small_boot, kc.boot_id_len) == 0);
	ck_assert_uint_eq(kc.head_len, strlen(small_head));
	ck_assert(memcmp(kc.head, small_head, kc.head_len) == 0);
	ck_assert_str_eq(pm__symtab_str(&kc.tab, kc.tab.v[1].name), "core_a");
	ck_assert_uint_eq(kc.tab.v[1].start, 0xffffffff81000100ull);
	ck_assert_uint_eq(kc.tab.v[1].size, 0x100);
	ck_assert_str_eq(pm__symtab_str(&kc.tab, kc.tab.v[1].mod), "[kernel.kallsyms]");
	ck_assert_str_eq(pm__symtab_str(&kc.tab, kc.tab.v[4].name), "moda_last");
	ck_assert_str_eq(pm__symtab_str(&kc.tab, kc.tab.v[4].mod), "[moda]");
	ck_assert_uint_eq(kc.g[1].maddr, 0xffffffffc0010000ull);
	ck_assert_uint_eq(kc.g[1].msize, 0x3000);
	ck_assert_uint_eq(kc.g[1].kind, 1);
	{
		const struct pm__sym *p = pm__symtab_find(&kc.tab, 0xffffffff81000150ull);

		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(pm__symtab_str(&kc.tab, p->name), "core_a");
	}
	pm__kcache_free(&kc);
	pm__buf_free(&img);
}
END_TEST

/* Every shorter file, every file with one byte changed: refused, with a reason. */
START_TEST(test_format_damage)
{
	struct pm__buf img = small_image();
	uint8_t *b = malloc(img.len + 1);
	struct pm__kcache kc;
	char why[200];

	ck_assert_ptr_nonnull(b);
	for (size_t n = 0; n < img.len; n++) {
		memcpy(b, img.data, n);
		why[0] = '\0';
		ck_assert_int_eq(pm__kcache_parse(b, n, &kc, why, sizeof(why)), -PM_ERR_FORMAT);
		ck_assert_msg(why[0], "no reason for a %zu-byte file", n);
	}
	/* one more byte */
	memcpy(b, img.data, img.len);
	b[img.len] = 0;
	ck_assert_int_eq(pm__kcache_parse(b, img.len + 1, &kc, NULL, 0), -PM_ERR_FORMAT);
	for (size_t i = 0; i < img.len; i++)
		for (unsigned bit = 0; bit < 8; bit += 3) {
			memcpy(b, img.data, img.len);
			b[i] ^= (uint8_t)(1u << bit);
			ck_assert_msg(pm__kcache_parse(b, img.len, &kc, why, sizeof(why)) == -PM_ERR_FORMAT,
				      "byte %zu bit %u flipped: accepted", i, bit);
		}
	free(b);
	pm__buf_free(&img);
}
END_TEST

/* Checksum made right again: the other checks still refuse. */
static int parse_fixed(uint8_t *b, size_t n, char *why, size_t cap)
{
	struct pm__kcache kc;
	int rc;

	pm__st64(b + 24, pm__kcache_checksum(b, n), false);
	rc = pm__kcache_parse(b, n, &kc, why, cap);
	if (rc == 0)
		pm__kcache_free(&kc);
	return rc;
}

START_TEST(test_format_semantics)
{
	struct pm__buf img = small_image();
	size_t n = img.len;
	uint8_t *b = malloc(n);
	size_t syms = 64 + strlen(small_boot) + strlen(small_head) + 2 * 48; /* first symbol */
	char why[200];

	ck_assert_ptr_nonnull(b);
	memcpy(b, img.data, n);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), 0);
	/* wrong version */
	pm__st32(b + 8, PM__KCACHE_VERSION + 1, false);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(why, "version"));
	/* symbols out of order: swap the starts of symbols 0 and 1 */
	memcpy(b, img.data, n);
	memcpy(b + syms, img.data + syms + 24, 8);
	memcpy(b + syms + 24, img.data + syms, 8);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	/* a symbol overlapping the next (size 0x101) */
	memcpy(b, img.data, n);
	pm__st64(b + syms + 8, 0x101, false);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	/* a name offset past the strings */
	memcpy(b, img.data, n);
	pm__st32(b + syms + 16, 0x7fffffff, false);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	/* a module region whose last symbol is past the module's size */
	memcpy(b, img.data, n);
	pm__st64(b + syms - 48 + 24, 0x100, false);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	/* two core regions */
	memcpy(b, img.data, n);
	pm__st32(b + syms - 48 + 44, 0, false);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	/* a head whose last line has a zero address (what a hidden kallsyms shows) */
	memcpy(b, img.data, n);
	memset(b + 64 + strlen(small_boot) + strlen("0000000000000000 A fixed_percpu_data\n"), '0', 16);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(why, "head"));
	/* symbol count one larger than the file holds */
	memcpy(b, img.data, n);
	pm__st32(b + 32, 6, false);
	ck_assert_int_eq(parse_fixed(b, n, why, sizeof(why)), -PM_ERR_FORMAT);
	free(b);
	pm__buf_free(&img);
}
END_TEST

/* /proc/modules lines, and what makes a module usable. */
START_TEST(test_modules_file)
{
	struct pm__kmods m;
	char path[300];

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/modules", tmpdir);
	write_str(path, "moda 12288 0 - Live 0xffffffffc0010000\n"
			"modb 8192 1 moda, Live 0xffffffffc0020000 (OE)\n"
			"modc 4096 0 - Loading 0xffffffffc0030000\n");
	ck_assert_int_eq(pm__kmods_read(path, &m), 0);
	ck_assert(m.ok);
	ck_assert_uint_eq(m.n, 3);
	ck_assert_str_eq(m.v[1].name, "modb");
	ck_assert_uint_eq(m.v[1].size, 8192);
	ck_assert_uint_eq(m.v[1].addr, 0xffffffffc0020000ull);
	ck_assert(m.v[1].live);
	ck_assert(!m.v[2].live);
	pm__kmods_free(&m);
	/* not a modules file: nothing trusted */
	write_str(path, "moda twelve 0 - Live 0xffffffffc0010000\n");
	ck_assert_int_eq(pm__kmods_read(path, &m), 0);
	ck_assert(!m.ok);
	pm__kmods_free(&m);
	/* none (a kernel without modules): an empty list */
	snprintf(path, sizeof(path), "%s/no-modules", tmpdir);
	ck_assert_int_eq(pm__kmods_read(path, &m), 0);
	ck_assert(m.ok);
	ck_assert_uint_eq(m.n, 0);
	pm__kmods_free(&m);
	rm_tmpdir();
}
END_TEST

#ifdef PM_LIB_HAS_LIBELF

/* ---- the symbolizer on fake inputs ---- */

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long len;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	ck_assert_int_ge(len, 0);
	rewind(f);
	b = malloc((size_t)len + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}


#define CORE 0xffffffff81000000ull
#define MODA 0xffffffffc0010000ull
#define MODB 0xffffffffc0020000ull

/* The fake kallsyms: sizes are to the next text symbol (the D line does not
 * count), the last of each module's run at most a page. */
static const char fake_kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n" /* an alias: the later line names the address */
	"ffffffff81000100 T core_a\n"
	"ffffffff81000200 t core_b\n"
	"ffffffff81000300 D core_data\n"
	"ffffffff81001000 T core_c\n"
	"ffffffff81002000 T core_d\n"
	"ffffffff81003000 T _etext\n" /* the image's text ends: the core region's last symbol */
	"ffffffff81f00000 t outside_image\n" /* a core line past _etext: never cached */
	"ffffffffc0010000 t moda_x\t[moda]\n"
	"ffffffffc0010100 T moda_f\t[moda]\n"
	"ffffffffc0010400 t moda_last\t[moda]\n"
	"ffffffffc0020000 T modb_f\t[modb]\n"
	"ffffffffc0020080 T modb_g\t[modb]\n"
	"ffffffffc0020200 T modb_last\t[modb]\n"
	"ffffffffc0005000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0030000 t bpf_prog_6deef7357e7b4530_foo\t[bpf]\n";
static const char fake_modules[] = "moda 12288 0 - Live 0xffffffffc0010000\n"
				   "modb 8192 1 moda, Live 0xffffffffc0020000 (OE)\n";
static const char boot1[] = "8d0b3a7e-5c39-4e0a-a7a4-1f6f1c3a9b20\n";
static const char boot2[] = "13f2c4d5-0a1b-4c2d-8e3f-9a8b7c6d5e4f\n";

struct fake {
	char dir[300], kallsyms[300], boot[300], modules[300], cache[320];
};

static void fake_setup(struct fake *f)
{
	make_tmpdir();
	snprintf(f->dir, sizeof(f->dir), "%s/cache", tmpdir);
	snprintf(f->kallsyms, sizeof(f->kallsyms), "%s/kallsyms", tmpdir);
	snprintf(f->boot, sizeof(f->boot), "%s/boot_id", tmpdir);
	snprintf(f->modules, sizeof(f->modules), "%s/modules", tmpdir);
	snprintf(f->cache, sizeof(f->cache), "%s/kallsyms.cache", f->dir);
	write_str(f->kallsyms, fake_kallsyms);
	write_str(f->boot, boot1);
	write_str(f->modules, fake_modules);
}

static pm_sym *fake_sym(const struct fake *f, const char *dir)
{
	struct pm_sym_opts o = { .sz = sizeof(o) };
	pm_sym *s = NULL;

	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	ck_assert_int_eq(pm__sym_kcache_paths(s, dir, f->kallsyms, f->boot, f->modules), 0);
	return s;
}

static struct pm_sym_result klook(pm_sym *s, uint64_t addr)
{
	struct pm_sym_result r = { .sz = sizeof(r) };

	ck_assert_int_eq(pm_sym_lookup(s, 1, addr, PM_SYM_LOOKUP_KERNEL, &r), 0);
	return r;
}

static void expect(pm_sym *s, uint64_t addr, const char *name, const char *dso, uint64_t start,
		   uint64_t size)
{
	struct pm_sym_result r = klook(s, addr);

	ck_assert_msg(strcmp(r.name, name) == 0, "0x%llx: %s, want %s", (unsigned long long)addr,
		      r.name, name);
	ck_assert_str_eq(r.dso, dso);
	ck_assert_uint_eq(r.sym_start, start);
	ck_assert_uint_eq(r.sym_size, size);
	ck_assert_uint_eq(r.offset, name[0] == '[' ? 0 : addr - start);
}

static bool cache_exists(const struct fake *f)
{
	return access(f->cache, F_OK) == 0;
}

/* The cache file's inode (a rewrite renames a new file over it). */
static ino_t cache_ino(const struct fake *f)
{
	struct stat st;

	ck_assert_int_eq(stat(f->cache, &st), 0);
	return st.st_ino;
}

/* The answers of the fake table that a cache may give (inside its regions). */
static void expect_regions(pm_sym *s)
{
	expect(s, CORE, "startup_64", "[kernel.kallsyms]", CORE, 0x100);
	expect(s, CORE + 0xff, "startup_64", "[kernel.kallsyms]", CORE, 0x100);
	expect(s, CORE + 0x100, "core_a", "[kernel.kallsyms]", CORE + 0x100, 0x100);
	expect(s, CORE + 0x2ff, "core_b", "[kernel.kallsyms]", CORE + 0x200, 0xe00);
	expect(s, CORE + 0x1fff, "core_c", "[kernel.kallsyms]", CORE + 0x1000, 0x1000);
	expect(s, CORE + 0x2fff, "core_d", "[kernel.kallsyms]", CORE + 0x2000, 0x1000);
	expect(s, MODA + 0x10, "moda_x", "[moda]", MODA, 0x100);
	expect(s, MODA + 0x3ff, "moda_f", "[moda]", MODA + 0x100, 0x300);
	expect(s, MODB + 0x80, "modb_g", "[modb]", MODB + 0x80, 0x180);
}

START_TEST(test_cold_warm)
{
	struct fake f;
	struct stat st;
	pm_sym *s;

	fake_setup(&f);
	s = fake_sym(&f, f.dir);
	expect_regions(s);
	ck_assert(!s->kcached);
	ck_assert(cache_exists(&f));
	ck_assert_int_eq(stat(f.cache, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(stat(f.dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	/* the last symbols, the dynamic entries */
	expect(s, CORE + 0x3000, "_etext", "[kernel.kallsyms]", CORE + 0x3000, 0xefd000);
	expect(s, CORE + 0xf00000, "outside_image", "[kernel.kallsyms]", CORE + 0xf00000, 0x1000);
	expect(s, MODA + 0x400, "moda_last", "[moda]", MODA + 0x400, 0x1000);
	expect(s, 0xffffffffc0005010ull, "ftrace_trampoline", "[__builtin__ftrace]", 0xffffffffc0005000ull, 0x1000);
	expect(s, 0xffffffffc0030000ull, "bpf_prog_6deef7357e7b4530_foo", "[bpf]", 0xffffffffc0030000ull, 0x1000);
	pm_sym_free(s);

	/* warm: the same answers, without reading kallsyms inside the regions */
	s = fake_sym(&f, f.dir);
	expect_regions(s);
	ck_assert(s->kcached);
	ck_assert(!s->kfresh_loaded);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	/* the byte after a region's last but one symbol is in the region */
	expect(s, CORE + 0x1fff, "core_c", "[kernel.kallsyms]", CORE + 0x1000, 0x1000);
	ck_assert(!s->kfresh_loaded);
	/* a user-half address is nobody's */
	{
		struct pm_sym_result r = { .sz = sizeof(r) };

		ck_assert_int_eq(pm_sym_lookup(s, 1, 0x401000, 0, &r), 0);
		ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN | PM_SYM_NO_MAP);
		ck_assert(!s->kfresh_loaded);
	}
	/* the last symbol of a region: a fresh read answers (and leaves the
	 * cache, which holds every current region, as it is) */
	{
		ino_t ino = cache_ino(&f);

		expect(s, CORE + 0x3000, "_etext", "[kernel.kallsyms]", CORE + 0x3000, 0xefd000);
		ck_assert(s->kfresh_loaded);
		ck_assert(cache_ino(&f) == ino);
	}
	expect(s, 0xffffffffc0030000ull, "bpf_prog_6deef7357e7b4530_foo", "[bpf]", 0xffffffffc0030000ull, 0x1000);
	expect_regions(s);
	/* pm_sym_find(): from the fresh read (a name may be a dynamic one) */
	ck_assert_int_eq(pm_sym_find(s, NULL, "bpf_prog_6deef7357e7b4530_foo", 0, NULL), 1);
	pm_sym_free(s);
	/* a core symbol outside the image's text (_stext.._etext): not cached */
	s = fake_sym(&f, f.dir);
	expect(s, CORE + 0x100, "core_a", "[kernel.kallsyms]", CORE + 0x100, 0x100);
	ck_assert(s->kcached && !s->kfresh_loaded);
	expect(s, CORE + 0xf00010, "outside_image", "[kernel.kallsyms]", CORE + 0xf00000, 0x1000);
	ck_assert(s->kfresh_loaded);
	pm_sym_free(s);
	rm_tmpdir();
}
END_TEST

/* Entries that appear after the cache was made, where a cached copy would
 * answer differently: the fresh read's answer, computed from the new lines. */
START_TEST(test_dynamic_entries_later)
{
	struct fake f;
	char k2[sizeof(fake_kallsyms) + 200];
	pm_sym *s;

	fake_setup(&f);
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	ck_assert(cache_exists(&f));
	/* a BPF program 0x40 after _etext, one in moda's [address, +size)
	 * after its last symbol, a trampoline below the core */
	snprintf(k2, sizeof(k2), "%s%s", fake_kallsyms,
		 "ffffffff81003040 t bpf_prog_1_near\t[bpf]\n"
		 "ffffffffc0012000 t bpf_prog_2_inmod\t[bpf]\n"
		 "ffffffff80ff0000 t bpf_trampoline_3\t[bpf]\n");
	write_str(f.kallsyms, k2);
	s = fake_sym(&f, f.dir);
	expect_regions(s);
	ck_assert(s->kcached);
	ck_assert(!s->kfresh_loaded);
	/* _etext now ends at the program (a cached copy says 0xefd000) */
	expect(s, CORE + 0x2010, "core_d", "[kernel.kallsyms]", CORE + 0x2000, 0x1000);
	ck_assert(!s->kfresh_loaded);
	expect(s, CORE + 0x3010, "_etext", "[kernel.kallsyms]", CORE + 0x3000, 0x40);
	ck_assert(s->kfresh_loaded);
	expect(s, CORE + 0x3040, "bpf_prog_1_near", "[bpf]", CORE + 0x3040, 0x1000);
	/* moda_last is cut to a page, the program inside moda's range is found */
	expect(s, 0xffffffffc0012010ull, "bpf_prog_2_inmod", "[bpf]", 0xffffffffc0012000ull, 0x1000);
	expect(s, 0xffffffff80ff0000ull, "bpf_trampoline_3", "[bpf]", 0xffffffff80ff0000ull, 0x1000);
	pm_sym_free(s);
	rm_tmpdir();
}
END_TEST

START_TEST(test_key_changes)
{
	struct fake f;
	pm_sym *s;

	fake_setup(&f);
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	/* another boot: not used, made again */
	write_str(f.boot, boot2);
	s = fake_sym(&f, f.dir);
	expect_regions(s);
	ck_assert(!s->kcached);
	pm_sym_free(s);
	s = fake_sym(&f, f.dir);
	expect_regions(s);
	ck_assert(s->kcached); /* the new boot's file */
	pm_sym_free(s);
	/* no boot id: no cache at all */
	unlink(f.boot);
	s = fake_sym(&f, f.dir);
	expect_regions(s);
	ck_assert(!s->kcached);
	pm_sym_free(s);
	write_str(f.boot, boot2);

	/* kallsyms now hidden from this reader (all zeros): not used; nothing cached */
	{
		char hidden[sizeof(fake_kallsyms)];

		memcpy(hidden, fake_kallsyms, sizeof(hidden));
		for (char *l = hidden; *l; l = strchr(l, '\n') + 1)
			memset(l, '0', 16);
		write_str(f.kallsyms, hidden);
		unlink(f.cache);
		s = fake_sym(&f, f.dir);
		ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_RESTRICTED);
		pm_sym_free(s);
		ck_assert(!cache_exists(&f));
		/* a cache of the real addresses is not served to a hidden reader */
		write_str(f.kallsyms, fake_kallsyms);
		s = fake_sym(&f, f.dir);
		ck_assert_int_eq(pm_sym_preload(s), 0);
		pm_sym_free(s);
		ck_assert(cache_exists(&f));
		write_str(f.kallsyms, hidden);
		s = fake_sym(&f, f.dir);
		ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_RESTRICTED);
		ck_assert(!s->kcached);
		expect(s, CORE + 0x100, "[unknown]", "[kernel.kallsyms]", 0, 0);
		pm_sym_free(s);
		write_str(f.kallsyms, fake_kallsyms);
	}
	rm_tmpdir();
}
END_TEST

START_TEST(test_modules_change)
{
	struct fake f;
	char k2[sizeof(fake_kallsyms) + 64];
	pm_sym *s;
	char *p;

	fake_setup(&f);
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	/* modb unloaded and loaded again at 0xffffffffc0040000 */
	snprintf(k2, sizeof(k2), "%s", fake_kallsyms);
	while ((p = strstr(k2, "ffffffffc002")) != NULL)
		p[11] = '4';
	write_str(f.kallsyms, k2);
	write_str(f.modules, "modb 8192 1 moda, Live 0xffffffffc0040000 (OE)\n"
			     "moda 12288 0 - Live 0xffffffffc0010000\n");
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	ck_assert(s->kcached);
	expect(s, MODA + 0x3ff, "moda_f", "[moda]", MODA + 0x100, 0x300);
	expect(s, CORE + 0x100, "core_a", "[kernel.kallsyms]", CORE + 0x100, 0x100);
	ck_assert(!s->kfresh_loaded);
	/* the old place is nobody's (a cached copy says modb_g), the new one is
	 * modb's; the fresh read rewrote the cache (modb's region was stale) */
	{
		ino_t ino = cache_ino(&f);

		expect(s, MODB + 0x80, "[unknown]", "[kernel.kallsyms]", 0, 0);
		ck_assert(s->kfresh_loaded);
		ck_assert(cache_ino(&f) != ino);
	}
	expect(s, 0xffffffffc0040080ull, "modb_g", "[modb]", 0xffffffffc0040080ull, 0x180);
	pm_sym_free(s);

	/* a module of the same name and address but another size: not trusted */
	write_str(f.kallsyms, fake_kallsyms);
	write_str(f.modules, fake_modules);
	unlink(f.cache);
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	write_str(f.modules, "moda 16384 0 - Live 0xffffffffc0010000\n"
			     "modb 8192 1 moda, Live 0xffffffffc0020000 (OE)\n");
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	ck_assert(s->kcached);
	expect(s, MODB + 0x80, "modb_g", "[modb]", MODB + 0x80, 0x180);
	ck_assert(!s->kfresh_loaded);
	expect(s, MODA + 0x3ff, "moda_f", "[moda]", MODA + 0x100, 0x300);
	ck_assert(s->kfresh_loaded);
	pm_sym_free(s);

	/* no /proc/modules (this VM's kernel): modules are never trusted,
	 * the core is */
	unlink(f.modules);
	unlink(f.cache);
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	ck_assert(cache_exists(&f));
	s = fake_sym(&f, f.dir);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	ck_assert(s->kcached);
	expect(s, CORE + 0x1fff, "core_c", "[kernel.kallsyms]", CORE + 0x1000, 0x1000);
	ck_assert(!s->kfresh_loaded);
	expect(s, MODA + 0x3ff, "moda_f", "[moda]", MODA + 0x100, 0x300);
	ck_assert(s->kfresh_loaded);
	pm_sym_free(s);
	rm_tmpdir();
}
END_TEST

/* A cache file that fails a check is not used, and is made again. */
static void damaged_is_ignored(const struct fake *f, void (*damage)(const char *path))
{
	pm_sym *s = fake_sym(f, f->dir);

	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	damage(f->cache);
	s = fake_sym(f, f->dir);
	expect_regions(s);
	ck_assert(!s->kcached);
	pm_sym_free(s);
	s = fake_sym(f, f->dir);
	ck_assert_int_eq(pm_sym_preload(s), 0);
	ck_assert(s->kcached); /* rewritten */
	pm_sym_free(s);
}

static void flip_middle(const char *path)
{
	size_t n;
	uint8_t *b = read_all(path, &n);

	b[n / 2] ^= 0x20;
	write_file(path, b, n);
	free(b);
}

static void cut_last(const char *path)
{
	ck_assert_int_eq(truncate(path, 1000), 0);
}

static void other_version(const char *path)
{
	size_t n;
	uint8_t *b = read_all(path, &n);

	pm__st32(b + 8, PM__KCACHE_VERSION + 1, false);
	pm__st64(b + 24, pm__kcache_checksum(b, n), false);
	write_file(path, b, n);
	free(b);
}

static void group_writable(const char *path)
{
	ck_assert_int_eq(chmod(path, 0620), 0);
}

static void not_a_file(const char *path)
{
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("/proc/self/cmdline", path), 0);
}

START_TEST(test_damaged_files)
{
	struct fake f;

	fake_setup(&f);
	damaged_is_ignored(&f, flip_middle);
	damaged_is_ignored(&f, cut_last);
	damaged_is_ignored(&f, other_version);
	damaged_is_ignored(&f, group_writable);
	damaged_is_ignored(&f, not_a_file);
	rm_tmpdir();
}
END_TEST

START_TEST(test_off_and_unwritable)
{
	struct fake f;
	char file_dir[400];
	pm_sym *s;

	fake_setup(&f);
	/* off: no directory */
	s = fake_sym(&f, NULL);
	expect_regions(s);
	pm_sym_free(s);
	ck_assert_int_ne(access(f.dir, F_OK), 0);
	/* a directory that cannot be made (its parent is a file): no error */
	snprintf(file_dir, sizeof(file_dir), "%s/sub", f.boot);
	s = fake_sym(&f, file_dir);
	expect_regions(s);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	ck_assert_int_eq(pm_sym_diag_count(s), 0);
	pm_sym_free(s);
	/* a file given as kallsyms is never cached: only the live one is */
	s = fake_sym(&f, f.dir);
	free(s->kc.live);
	s->kc.live = strdup("/proc/kallsyms");
	ck_assert_int_eq(pm_sym_preload(s), 0);
	pm_sym_free(s);
	ck_assert(!cache_exists(&f));
	rm_tmpdir();
}
END_TEST

/* pm_sym_opts.cache_dir and $PROFILEME_CACHE_DIR choose the directory. */
START_TEST(test_dir_choice)
{
	struct pm_sym_opts o = { .sz = sizeof(o) };
	pm_sym *s = NULL;
	char want[400];
	const char *old = getenv("PROFILEME_CACHE_DIR");
	char *saved = old ? strdup(old) : NULL;

	o.cache_dir = "/some/dir";
	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	ck_assert_str_eq(s->kc.dir, "/some/dir");
	pm_sym_free(s);
	o.cache_dir = "";
	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	ck_assert_ptr_null(s->kc.dir);
	pm_sym_free(s);
	o.cache_dir = NULL;
	setenv("PROFILEME_CACHE_DIR", "/env/dir", 1);
	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	ck_assert_str_eq(s->kc.dir, "/env/dir");
	pm_sym_free(s);
	setenv("PROFILEME_CACHE_DIR", "", 1);
	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	ck_assert_ptr_null(s->kc.dir);
	pm_sym_free(s);
	unsetenv("PROFILEME_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	ck_assert_int_eq(pm_sym_new(&s, NULL), 0);
	ck_assert_str_eq(s->kc.dir, "/xdg/profileme");
	pm_sym_free(s);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/u", 1);
	ck_assert_int_eq(pm_sym_new(&s, NULL), 0);
	snprintf(want, sizeof(want), "%s", "/home/u/.cache/profileme");
	ck_assert_str_eq(s->kc.dir, want);
	pm_sym_free(s);
	if (saved)
		setenv("PROFILEME_CACHE_DIR", saved, 1);
	free(saved);
}
END_TEST

/* Processes writing and reading one cache at once: each sees a whole file
 * (temporary file + rename), every answer is right, no temporary is left. */
START_TEST(test_concurrent_writers)
{
	struct fake f;
	pid_t kids[3];
	int rounds = (int)pm_test_scale(40, 8);

	fake_setup(&f);
	for (size_t k = 0; k < PM_ARRAY_SIZE(kids); k++) {
		kids[k] = fork();
		ck_assert_int_ge(kids[k], 0);
		if (kids[k] == 0) {
			for (int i = 0; i < rounds; i++) {
				pm_sym *s;

				if (k == 0)
					unlink(f.cache); /* make the others write too */
				s = fake_sym(&f, f.dir);
				expect_regions(s);
				pm_sym_free(s);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < rounds; i++) {
		pm_sym *s = fake_sym(&f, f.dir);

		expect_regions(s);
		pm_sym_free(s);
	}
	for (size_t k = 0; k < PM_ARRAY_SIZE(kids); k++) {
		int st;

		ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %zu failed", k);
	}
	{
		DIR *d = opendir(f.dir);
		struct dirent *e;
		int n = 0;

		ck_assert_ptr_nonnull(d);
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.') {
				ck_assert_str_eq(e->d_name, "kallsyms.cache");
				n++;
			}
		closedir(d);
		ck_assert_int_le(n, 1);
	}
	rm_tmpdir();
}
END_TEST

/* The real kernel decides what a reader sees: a cache made by root (real
 * addresses), handed to an unprivileged user, is used only if that user
 * would read the same addresses from /proc/kallsyms (read as that user here:
 * the oracle).  Runs as root only (it needs setuid). */
START_TEST(test_real_other_reader)
{
	char dir[300], file[340], line[300];
	struct pm_sym_opts o = { .sz = sizeof(o) };
	const uid_t nobody = 65534;
	pm_sym *s;
	pid_t kid;
	int st;

	if (geteuid() != 0)
		pm_test_skip("not root: cannot hand a cache to another user");
	make_tmpdir();
	snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
	snprintf(file, sizeof(file), "%s/kallsyms.cache", dir);
	o.cache_dir = dir;
	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	if (pm_sym_kernel_status(s) != PM_SYM_KERNEL_OK || access(file, F_OK) != 0) {
		pm_sym_free(s);
		rm_tmpdir();
		pm_test_skip("no cache made of this machine's kallsyms");
	}
	pm_sym_free(s);
	ck_assert_int_eq(chmod(tmpdir, 0755), 0);
	ck_assert_int_eq(chown(dir, nobody, (gid_t)-1), 0);
	ck_assert_int_eq(chown(file, nobody, (gid_t)-1), 0);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		FILE *k;
		bool zeros = true;
		int want, got;

		if (setgid(nobody) != 0 || setuid(nobody) != 0)
			_exit(3);
		k = fopen("/proc/kallsyms", "r");
		if (!k)
			_exit(4);
		while (fgets(line, sizeof(line), k)) {
			unsigned long long a;
			char type;

			if (sscanf(line, "%llx %c", &a, &type) == 2 && strchr("tTwW", type)) {
				zeros = a == 0;
				break;
			}
		}
		fclose(k);
		want = zeros ? PM_SYM_KERNEL_RESTRICTED : PM_SYM_KERNEL_OK;
		if (pm_sym_new(&s, &o) != 0)
			_exit(5);
		got = pm_sym_kernel_status(s);
		printf("unit.kcache: uid %u sees %s kallsyms addresses: status %d (want %d), cache %s\n",
		       (unsigned)nobody, zeros ? "zero" : "real", got, want,
		       s->kcached ? "used" : "not used");
		fflush(stdout);
		if (got != want || (zeros && s->kcached))
			_exit(6);
		pm_sym_free(s);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(kid, &st, 0), kid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the other reader: exit %d",
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	rm_tmpdir();
}
END_TEST

/* ---- this machine's kallsyms: cold, warm and without a cache agree ---- */

static bool same(const struct pm_sym_result *a, const struct pm_sym_result *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->dso, b->dso) == 0 &&
	       a->offset == b->offset && a->sym_start == b->sym_start && a->sym_size == b->sym_size &&
	       a->dso_addr == b->dso_addr && a->flags == b->flags;
}

START_TEST(test_real_kallsyms)
{
	FILE *k = fopen("/proc/kallsyms", "r");
	uint64_t *addr = NULL;
	size_t n = 0, cap = 0, nsame = 0;
	char line[600], dir[300];
	pm_sym *cold, *warm, *off;
	struct pm_sym_opts o = { .sz = sizeof(o) };

	if (!k)
		pm_test_skip("/proc/kallsyms cannot be opened");
	while (fgets(line, sizeof(line), k)) {
		unsigned long long a;
		char type;

		if (sscanf(line, "%llx %c", &a, &type) != 2 || !a || !strchr("tTwW", type))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			addr = realloc(addr, cap * sizeof(*addr));
			ck_assert_ptr_nonnull(addr);
		}
		addr[n++] = a;
	}
	fclose(k);
	if (n == 0)
		pm_test_skip("no kernel text addresses visible (kptr_restrict)");
	make_tmpdir();
	snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
	o.cache_dir = dir;
	ck_assert_int_eq(pm_sym_new(&cold, &o), 0);
	ck_assert_int_eq(pm_sym_kernel_status(cold), PM_SYM_KERNEL_OK);
	ck_assert(!cold->kcached);
	ck_assert_int_eq(pm_sym_new(&warm, &o), 0);
	ck_assert_int_eq(pm_sym_kernel_status(warm), PM_SYM_KERNEL_OK);
	ck_assert_msg(warm->kcached, "the second symbolizer did not use the cache");
	o.cache_dir = "";
	ck_assert_int_eq(pm_sym_new(&off, &o), 0);
	for (size_t i = 0; i < n; i += pm_test_scale(1, 16))
		for (int after = 0; after < 2; after++)
			for (uint32_t how = 0; how <= PM_SYM_LOOKUP_KERNEL; how += PM_SYM_LOOKUP_KERNEL) {
				struct pm_sym_result a = { .sz = sizeof(a) }, b = a, c = a;
				uint64_t x = addr[i];

				ck_assert_int_eq(pm_sym_lookup(off, 1, x, how, &c), 0);
				if (after) /* the byte after the symbol (as the fresh read sizes it) */
					x = c.sym_size ? c.sym_start + c.sym_size : x + 1;
				ck_assert_int_eq(pm_sym_lookup(off, 1, x, how, &c), 0);
				ck_assert_int_eq(pm_sym_lookup(cold, 1, x, how, &a), 0);
				ck_assert_int_eq(pm_sym_lookup(warm, 1, x, how, &b), 0);
				ck_assert_msg(same(&a, &c) && same(&b, &c),
					      "0x%llx: cold %s+%llx (%llx) warm %s+%llx (%llx) fresh %s+%llx (%llx)",
					      (unsigned long long)x, a.name, (unsigned long long)a.offset,
					      (unsigned long long)a.sym_size, b.name,
					      (unsigned long long)b.offset, (unsigned long long)b.sym_size,
					      c.name, (unsigned long long)c.offset,
					      (unsigned long long)c.sym_size);
				nsame++;
			}
	printf("unit.kcache: %zu lookups of %zu kallsyms text addresses agree cold, warm and "
	       "uncached (warm read kallsyms again: %s)\n", nsame, n,
	       warm->kfresh_loaded ? "yes, for addresses outside its regions" : "no");
	pm_sym_free(cold);
	pm_sym_free(warm);
	pm_sym_free(off);
	free(addr);
	rm_tmpdir();
}
END_TEST

#endif /* PM_LIB_HAS_LIBELF */

static Suite *kcache_suite(void)
{
	Suite *s = suite_create("kcache");
	TCase *tc = tcase_create("kcache");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_format_roundtrip);
	tcase_add_test(tc, test_format_damage);
	tcase_add_test(tc, test_format_semantics);
	tcase_add_test(tc, test_modules_file);
#ifdef PM_LIB_HAS_LIBELF
	tcase_add_test(tc, test_cold_warm);
	tcase_add_test(tc, test_dynamic_entries_later);
	tcase_add_test(tc, test_key_changes);
	tcase_add_test(tc, test_modules_change);
	tcase_add_test(tc, test_damaged_files);
	tcase_add_test(tc, test_off_and_unwritable);
	tcase_add_test(tc, test_dir_choice);
	tcase_add_test(tc, test_concurrent_writers);
	tcase_add_test(tc, test_real_kallsyms);
	tcase_add_test(tc, test_real_other_reader);
#endif
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(kcache_suite)
