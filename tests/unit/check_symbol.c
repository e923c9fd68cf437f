/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * unit.symbol: the symbolizer against real oracles: the run-time addresses
 * of functions (this program's own, a dlopen'ed library's, and those the
 * test workloads print), `nm -S` of the same files for file addresses and
 * sizes, hand-written kallsyms fixtures and the real /proc/kallsyms.
 */
#include <profileme/common.h>
#include <profileme/export.h>
#include <profileme/file.h>
#include <profileme/record.h>
#include <profileme/symbol.h>
#include <profileme/writer.h>

#include <stdio.h>
#include <stdlib.h>

#ifdef PM_HAVE_LIBELF

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "pm_check.h"

#define NOPIE PM_SYMTEST_NOPIE
#define PIE PM_SYMTEST_PIE
#define PIE_STRIPPED PM_SYMTEST_PIE ".stripped"
#define PIE_DBGLINK PM_SYMTEST_PIE ".dbglink"
#define PIE_DEBUG PM_SYMTEST_PIE ".debug"

/* ---- helpers ---- */

__attribute__((noinline, used)) int pm_symcheck_marker(int x);
__attribute__((noinline, used)) int pm_symcheck_marker(int x)
{
	static volatile int v;

	for (int i = 0; i < x; i++)
		v += i;
	return v;
}

/* nm -S oracle: address and size of a defined symbol.  nm runs once per
 * file (its output is kept: the test asks many questions of few files). */
static struct {
	char file[PATH_MAX];
	struct pm__buf out;
} nm_cache[16];

static const char *nm_output(const char *file)
{
	char cmd[PATH_MAX + 64], line[512];
	size_t i;
	FILE *p;

	for (i = 0; i < PM_ARRAY_SIZE(nm_cache) && nm_cache[i].file[0]; i++)
		if (strcmp(nm_cache[i].file, file) == 0)
			return nm_cache[i].out.data ? nm_cache[i].out.data : "";
	ck_assert_uint_lt(i, PM_ARRAY_SIZE(nm_cache));
	snprintf(nm_cache[i].file, sizeof(nm_cache[i].file), "%s", file);
	snprintf(cmd, sizeof(cmd), "'%s' -S --defined-only '%s' 2>/dev/null", PM_TEST_NM, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		ck_assert_int_eq(pm__buf_append(&nm_cache[i].out, line, strlen(line)), 0);
	pclose(p);
	return nm_cache[i].out.data ? nm_cache[i].out.data : "";
}

static bool nm_sym(const char *file, const char *name, uint64_t *addr, uint64_t *size)
{
	const char *text = nm_output(file);

	while (*text) {
		const char *eol = strchr(text, '\n');
		unsigned long long a, sz = 0;
		char type, sym[400];

		if (sscanf(text, "%llx %llx %c %399s", &a, &sz, &type, sym) == 4 ||
		    (sz = 0, sscanf(text, "%llx %c %399s", &a, &type, sym) == 3)) {
			if (strcmp(sym, name) == 0) {
				*addr = a;
				*size = sz;
				return true;
			}
		}
		if (!eol)
			break;
		text = eol + 1;
	}
	return false;
}

static void nm_must(const char *file, const char *name, uint64_t *addr, uint64_t *size)
{
	ck_assert_msg(nm_sym(file, name, addr, size), "nm finds no %s in %s", name, file);
}

static pm_sym *open_sym(const char *debug_dir, const char *kallsyms, uint32_t flags)
{
	struct pm_sym_opts o;
	pm_sym *s = NULL;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.debug_dir = debug_dir;
	o.kallsyms = kallsyms;
	o.flags = flags;
	ck_assert_int_eq(pm_sym_new(&s, &o), 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

static struct pm_sym_result lookup(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how)
{
	struct pm_sym_result r;

	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	ck_assert_int_eq(pm_sym_lookup(s, pid, addr, how, &r), 0);
	ck_assert_ptr_nonnull(r.name);
	ck_assert_ptr_nonnull(r.dso);
	return r;
}

/* The first diagnostic about `file` (its code, or 0 when none); *count gets
 * how many there are. */
static int diag_for(pm_sym *s, const char *file, struct pm_sym_diag *out, int *count)
{
	int n = pm_sym_diag_count(s), code = 0, c = 0;

	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++) {
		struct pm_sym_diag d;

		memset(&d, 0, sizeof(d));
		d.sz = sizeof(d);
		ck_assert_int_eq(pm_sym_diag_get(s, (size_t)i, &d), 0);
		if (strcmp(d.file, file) == 0) {
			if (!c++) {
				code = d.code;
				if (out)
					*out = d;
			}
		}
	}
	if (count)
		*count = c;
	return code;
}

static void must_realpath(const char *p, char *out)
{
	ck_assert_msg(realpath(p, out) != NULL, "realpath %s: %s", p, strerror(errno));
}

/* A running workload that printed its function addresses. */
struct child {
	pid_t pid;
	int in;
	uint64_t alpha, stat, beta;
};

static void child_start(struct child *c, const char *exe)
{
	int to[2], from[2];
	char line[256];
	void *a, *st, *b;
	FILE *f;

	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	f = fdopen(from[0], "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(fgets(line, sizeof(line), f) != NULL, "workload %s printed nothing", exe);
	fclose(f);
	ck_assert_int_eq(sscanf(line, "%p %p %p", &a, &st, &b), 3);
	c->alpha = (uintptr_t)a;
	c->stat = (uintptr_t)st;
	c->beta = (uintptr_t)b;
}

static void child_stop(struct child *c)
{
	int status = 0;

	close(c->in);
	ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
	ck_assert(WIFEXITED(status));
}

/* Expect `addr` (a run-time address `off` bytes into `name`) to resolve with
 * file address and size from nm of `oracle_file`. */
static void expect_sym(pm_sym *s, int32_t pid, uint64_t rt, uint64_t off, const char *name,
		       const char *oracle_file, const char *dso_real)
{
	struct pm_sym_result r = lookup(s, pid, rt + off, 0);
	uint64_t a, sz;
	char real[PATH_MAX];

	nm_must(oracle_file, name, &a, &sz);
	ck_assert_msg(!(r.flags & PM_SYM_UNKNOWN), "0x%llx (%s+%llu) unknown in %s",
		      (unsigned long long)(rt + off), name, (unsigned long long)off, r.dso);
	ck_assert_str_eq(r.name, name);
	ck_assert_uint_eq(r.offset, off);
	ck_assert_uint_eq(r.sym_start, a);
	ck_assert_uint_eq(r.dso_addr, a + off);
	if (sz)
		ck_assert_uint_eq(r.sym_size, sz);
	ck_assert_uint_eq(r.flags & (PM_SYM_KERNEL | PM_SYM_NO_MAP), 0);
	must_realpath(r.dso, real);
	ck_assert_str_eq(real, dso_real);
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pm_symtest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void copy_file(const char *src, const char *dst, long max)
{
	char buf[8192];
	long done = 0;
	size_t n;
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	while ((max < 0 || done < max) && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (max >= 0 && (long)n > max - done)
			n = (size_t)(max - done);
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
		done += (long)n;
	}
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

static long file_size(const char *p)
{
	struct stat st;

	ck_assert_int_eq(stat(p, &st), 0);
	return (long)st.st_size;
}

/* ---- tests ---- */

START_TEST(test_self)
{
	pm_sym *s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	char self[PATH_MAX];
	struct pm_sym_result r;

	must_realpath("/proc/self/exe", self);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, getpid()), 0);
	/* This program's own function, and a library function linked into it. */
	expect_sym(s, getpid(), (uintptr_t)pm_symcheck_marker, 2, "pm_symcheck_marker", self, self);
	expect_sym(s, getpid(), (uintptr_t)pm_sym_lookup, 0, "pm_sym_lookup", self, self);
	/* An address no map covers. */
	r = lookup(s, getpid(), 8, PM_SYM_LOOKUP_USER);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN | PM_SYM_NO_MAP);
	ck_assert_str_eq(r.name, "[unknown]");
	ck_assert_str_eq(r.dso, "[unknown]");
	pm_sym_free(s);
}
END_TEST

START_TEST(test_shared_lib)
{
	void *h = dlopen(PM_SYMTEST_LIB, RTLD_NOW);
	pm_sym *s;
	char real[PATH_MAX];
	struct pm_sym_def d;
	uint64_t a, sz;
	void *f1, *f2;

	ck_assert_msg(h != NULL, "dlopen: %s", dlerror());
	f1 = dlsym(h, "pm_symlib_one");
	f2 = dlsym(h, "pm_symlib_two");
	ck_assert_ptr_nonnull(f1);
	ck_assert_ptr_nonnull(f2);
	must_realpath(PM_SYMTEST_LIB, real);
	s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, getpid()), 0);
	expect_sym(s, getpid(), (uintptr_t)f1, 0, "pm_symlib_one", real, real);
	expect_sym(s, getpid(), (uintptr_t)f2, 5, "pm_symlib_two", real, real);

	/* By name: the file address and size nm shows. */
	{
		struct pm_sym_result r = lookup(s, getpid(), (uintptr_t)f1, 0);

		memset(&d, 0, sizeof(d));
		d.sz = sizeof(d);
		ck_assert_int_eq(pm_sym_find(s, r.dso, "pm_symlib_one", 0, &d), 1);
		nm_must(real, "pm_symlib_one", &a, &sz);
		ck_assert_str_eq(d.name, "pm_symlib_one");
		ck_assert_str_eq(d.dso, r.dso);
		ck_assert_uint_eq(d.start, a);
		ck_assert_uint_eq(d.size, sz);
		ck_assert_uint_eq(d.flags, 0);
		ck_assert_int_eq(pm_sym_find(s, r.dso, "no_such_function", 0, &d), 0);
		ck_assert_int_ge(pm_sym_find(s, NULL, "pm_symlib_two", 0, NULL), 1);
	}
	pm_sym_free(s);
	dlclose(h);
}
END_TEST

START_TEST(test_nopie_and_process_events)
{
	pm_sym *s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	const int32_t fake = 0x7ffffff0;
	struct pm_sym_result r;
	struct child c;
	char real[PATH_MAX];

	must_realpath(NOPIE, real);
	child_start(&c, NOPIE);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, c.pid), 0);
	expect_sym(s, c.pid, c.alpha, 1, "pm_symtest_alpha", real, real);
	expect_sym(s, c.pid, c.stat, 3, "pm_symtest_static", real, real);
	expect_sym(s, c.pid, c.beta, 0, "pm_symtest_beta", real, real);
	/* ET_EXEC: file address == run-time address. */
	r = lookup(s, c.pid, c.beta + 4, 0);
	ck_assert_uint_eq(r.dso_addr, c.beta + 4);

	/* fork copies the maps, exec clears them. */
	ck_assert_int_eq(pm_sym_fork(s, c.pid, fake), 0);
	expect_sym(s, fake, c.alpha, 2, "pm_symtest_alpha", real, real);
	ck_assert_int_eq(pm_sym_fork(s, fake, fake), 0); /* a thread: nothing changes */
	expect_sym(s, fake, c.alpha, 2, "pm_symtest_alpha", real, real);
	ck_assert_int_eq(pm_sym_exec(s, fake), 0);
	r = lookup(s, fake, c.alpha, PM_SYM_LOOKUP_USER);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN | PM_SYM_NO_MAP);
	/* The parent is unaffected; after exit its maps still serve late samples. */
	ck_assert_int_eq(pm_sym_exit(s, c.pid), 0);
	expect_sym(s, c.pid, c.alpha, 2, "pm_symtest_alpha", real, real);
	/* A reused pid starts from nothing. */
	ck_assert_int_eq(pm_sym_add_map(s, c.pid, 0x1000, 0x1000, 0, "//anon"), 0);
	r = lookup(s, c.pid, c.alpha, PM_SYM_LOOKUP_USER);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN | PM_SYM_NO_MAP);
	r = lookup(s, c.pid, 0x1800, PM_SYM_LOOKUP_USER);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN);
	ck_assert_str_eq(r.dso, "//anon");
	ck_assert_int_eq(pm_sym_diag_count(s), 0); /* all files good, anon is no file */
	child_stop(&c);
	pm_sym_free(s);
}
END_TEST

START_TEST(test_pie)
{
	pm_sym *s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	struct child c;
	char real[PATH_MAX];
	uint64_t a, sz;

	must_realpath(PIE, real);
	child_start(&c, PIE);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, c.pid), 0);
	nm_must(real, "pm_symtest_alpha", &a, &sz);
	ck_assert_uint_ne(a, c.alpha); /* really relocated: the bias matters */
	expect_sym(s, c.pid, c.alpha, 0, "pm_symtest_alpha", real, real);
	expect_sym(s, c.pid, c.stat, 1, "pm_symtest_static", real, real);
	expect_sym(s, c.pid, c.beta, 7, "pm_symtest_beta", real, real);
	child_stop(&c);
	pm_sym_free(s);
}
END_TEST

/* Stripped: .dynsym (exported with -rdynamic) still names the global
 * functions; the static one is [unknown] in its module, with a diagnostic. */
START_TEST(test_stripped)
{
	pm_sym *s;
	struct pm_sym_result r;
	struct pm_sym_diag d;
	struct child c;
	char real[PATH_MAX], orig[PATH_MAX];
	uint64_t a, sz;
	int n;

	make_tmpdir();
	s = open_sym(tmpdir, NULL, PM_SYM_OPT_NO_KERNEL);
	must_realpath(PIE_STRIPPED, real);
	must_realpath(PIE, orig);
	ck_assert(!nm_sym(real, "pm_symtest_alpha", &a, &sz)); /* really stripped */
	child_start(&c, PIE_STRIPPED);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, c.pid), 0);
	expect_sym(s, c.pid, c.alpha, 3, "pm_symtest_alpha", orig, real);
	expect_sym(s, c.pid, c.beta, 0, "pm_symtest_beta", orig, real);
	r = lookup(s, c.pid, c.stat + 1, 0);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN);
	ck_assert_str_eq(r.name, "[unknown]");
	nm_must(orig, "pm_symtest_static", &a, &sz);
	ck_assert_uint_eq(r.dso_addr, a + 1); /* still the right file address */
	ck_assert_int_eq(diag_for(s, r.dso, &d, &n), PM_SYM_DIAG_STRIPPED);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(d.err, 0);
	ck_assert_ptr_nonnull(strstr(d.message, ".dynsym"));
	child_stop(&c);
	pm_sym_free(s);
	remove_tmpdir();
}
END_TEST

START_TEST(test_debuglink)
{
	pm_sym *s;
	struct pm_sym_result r;
	struct pm_sym_diag d;
	struct child c;
	char real[PATH_MAX], orig[PATH_MAX];

	make_tmpdir();
	s = open_sym(tmpdir, NULL, PM_SYM_OPT_NO_KERNEL);
	must_realpath(PIE_DBGLINK, real);
	must_realpath(PIE, orig);
	child_start(&c, PIE_DBGLINK);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, c.pid), 0);
	expect_sym(s, c.pid, c.stat, 2, "pm_symtest_static", orig, real);
	expect_sym(s, c.pid, c.alpha, 0, "pm_symtest_alpha", orig, real);
	r = lookup(s, c.pid, c.alpha, 0);
	ck_assert_int_eq(diag_for(s, r.dso, &d, NULL), PM_SYM_DIAG_DEBUG_FILE);
	ck_assert_ptr_nonnull(strstr(d.message, ".debug"));
	child_stop(&c);
	pm_sym_free(s);
	remove_tmpdir();
}
END_TEST

/* The build id of an ELF file, read with libelf (test setup, not oracle). */
static size_t build_id_of(const char *path, unsigned char *id, size_t max)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t len = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert(elf_version(EV_CURRENT) != EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	while (!len && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, next, no, dof;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (next = gelf_getnote(data, off, &nh, &no, &dof)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= max) {
				memcpy(id, (char *)data->d_buf + dof, nh.n_descsz);
				len = nh.n_descsz;
				break;
			}
			off = next;
		}
	}
	elf_end(e);
	close(fd);
	return len;
}

START_TEST(test_build_id_debug_dir)
{
	pm_sym *s;
	struct pm_sym_result r;
	struct pm_sym_diag d;
	struct child c;
	unsigned char id[64];
	char real[PATH_MAX], orig[PATH_MAX], dbg[PATH_MAX], path[PATH_MAX + 200];
	size_t n, len;

	len = build_id_of(PIE, id, sizeof(id));
	if (len < 2)
		pm_test_skip("%s has no build id (linker without --build-id)", PIE);
	make_tmpdir();
	n = (size_t)snprintf(path, sizeof(path), "%s/.build-id", tmpdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	n += (size_t)snprintf(path + n, sizeof(path) - n, "/%02x", id[0]);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	n += (size_t)snprintf(path + n, sizeof(path) - n, "/");
	for (size_t i = 1; i < len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	must_realpath(PIE_DEBUG, dbg);
	copy_file(dbg, path, -1);

	must_realpath(PIE_STRIPPED, real);
	must_realpath(PIE, orig);
	child_start(&c, PIE_STRIPPED);

	/* Without debug files: the static function is unknown. */
	s = open_sym(tmpdir, NULL, PM_SYM_OPT_NO_KERNEL | PM_SYM_OPT_NO_DEBUG_FILES);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, c.pid), 0);
	r = lookup(s, c.pid, c.stat, 0);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN);
	pm_sym_free(s);

	/* With the debug dir: found by build id. */
	s = open_sym(tmpdir, NULL, PM_SYM_OPT_NO_KERNEL);
	ck_assert_int_gt(pm_sym_load_proc_maps(s, c.pid), 0);
	expect_sym(s, c.pid, c.stat, 4, "pm_symtest_static", orig, real);
	expect_sym(s, c.pid, c.beta, 1, "pm_symtest_beta", orig, real);
	r = lookup(s, c.pid, c.stat, 0);
	ck_assert_int_eq(diag_for(s, r.dso, &d, NULL), PM_SYM_DIAG_DEBUG_FILE);
	ck_assert_ptr_nonnull(strstr(d.message, ".build-id/"));
	child_stop(&c);
	pm_sym_free(s);
	remove_tmpdir();
}
END_TEST

/* Bad files: each reported once, addresses stay [unknown] in their module. */
START_TEST(test_bad_files)
{
	static const struct {
		const char *name;
		long size; /* -1: special */
		int code;
	} cases[] = {
		{"notelf.txt", -1, PM_SYM_DIAG_NOT_ELF},
		{"empty", 0, PM_SYM_DIAG_NOT_ELF},
		{"trunc10", 10, PM_SYM_DIAG_TRUNCATED},
		{"trunc40", 40, PM_SYM_DIAG_TRUNCATED},
		{"trunc100", 100, PM_SYM_DIAG_TRUNCATED},
		{"trunc3000", 3000, PM_SYM_DIAG_TRUNCATED},
		{"trunchalf", -2, PM_SYM_DIAG_TRUNCATED},
		{"truncm1", -3, PM_SYM_DIAG_TRUNCATED},
		{"garbage", -4, 0},
		{"missing", -5, PM_SYM_DIAG_MISSING},
		{"adir", -6, PM_SYM_DIAG_NOT_ELF},
	};
	char paths[PM_ARRAY_SIZE(cases)][PATH_MAX];
	long pie_size = file_size(PIE);
	pm_sym *s;

	make_tmpdir();
	s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		long sz = cases[i].size;
		char *p = paths[i];

		snprintf(p, PATH_MAX, "%s/%s", tmpdir, cases[i].name);
		if (sz == -1) {
			FILE *f = fopen(p, "w");

			ck_assert_ptr_nonnull(f);
			fputs("#!/bin/sh\necho this is not ELF\n", f);
			fclose(f);
		} else if (sz == -4) {
			/* ELF magic, then deterministic noise. */
			FILE *f = fopen(p, "wb");
			uint32_t x = 12345;

			ck_assert_ptr_nonnull(f);
			fwrite("\177ELF\002\001\001", 1, 7, f);
			for (int k = 0; k < 8192; k++) {
				x = x * 1103515245u + 12345u;
				fputc((int)(x >> 16) & 0xff, f);
			}
			fclose(f);
		} else if (sz == -6) {
			ck_assert_int_eq(mkdir(p, 0755), 0);
		} else if (sz != -5) {
			copy_file(PIE, p, sz == -2 ? pie_size / 2 : sz == -3 ? pie_size - 1 : sz);
		}
		/* Two processes map each file: it is loaded and reported once. */
		ck_assert_int_eq(pm_sym_add_map(s, 42, 0x100000 * (i + 1), 0x10000, 0x1000, p), 0);
		ck_assert_int_eq(pm_sym_add_map(s, 43, 0x200000 * (i + 1), 0x10000, 0, p), 0);
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		struct pm_sym_result r = lookup(s, 42, 0x100000 * (i + 1) + 0x1234, 0);
		struct pm_sym_diag d;
		int n, code;

		ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN);
		ck_assert_str_eq(r.name, "[unknown]");
		ck_assert_str_eq(r.dso, paths[i]);
		r = lookup(s, 43, 0x200000 * (i + 1) + 0x1234, 0);
		ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN);
		code = diag_for(s, paths[i], &d, &n);
		ck_assert_msg(n == 1, "%s: %d diagnostics", cases[i].name, n);
		if (cases[i].code)
			ck_assert_msg(code == cases[i].code, "%s: code %d, want %d (%s)", cases[i].name,
				      code, cases[i].code, d.message);
		else
			ck_assert_msg(code == PM_SYM_DIAG_TRUNCATED || code == PM_SYM_DIAG_CORRUPT ||
					      code == PM_SYM_DIAG_NO_SYMBOLS,
				      "%s: code %d (%s)", cases[i].name, code, d.message);
		ck_assert_msg(d.err < 0 || code == PM_SYM_DIAG_NO_SYMBOLS, "%s: err %d", cases[i].name,
			      d.err);
		ck_assert(d.message[0] != '\0');
		if (cases[i].code == PM_SYM_DIAG_MISSING)
			ck_assert_int_eq(d.err, -ENOENT);
		if (cases[i].code == PM_SYM_DIAG_TRUNCATED)
			ck_assert_int_eq(d.err, -PM_ERR_TRUNCATED);
	}
	ck_assert_int_eq(pm_sym_preload(s), (int)PM_ARRAY_SIZE(cases));
	ck_assert_int_eq(pm_sym_diag_count(s), (int)PM_ARRAY_SIZE(cases));
	pm_sym_free(s);
	remove_tmpdir();
}
END_TEST

/* Whether this process has a vDSO mapped (not under valgrind). */
static int self_has_vdso(void)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[512];
	int found = 0;

	if (!m)
		return 0;
	while (!found && fgets(line, sizeof(line), m))
		found = strstr(line, "[vdso]") != NULL;
	fclose(m);
	return found;
}

START_TEST(test_map_overlap)
{
	pm_sym *s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	struct pm_sym_result r;

	ck_assert_int_eq(pm_sym_add_map(s, 7, 0x10000, 0x10000, 0, "/nonexistent/a"), 0);
	ck_assert_int_eq(pm_sym_add_map(s, 7, 0x30000, 0x1000, 0, "[vdso]"), 0);
	/* Punch a hole into a. */
	ck_assert_int_eq(pm_sym_add_map(s, 7, 0x12000, 0x1000, 0x5000, "/nonexistent/b"), 0);
	r = lookup(s, 7, 0x11000, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/a");
	ck_assert_uint_eq(r.dso_addr, 0x1000);
	r = lookup(s, 7, 0x12800, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/b");
	ck_assert_uint_eq(r.dso_addr, 0x5800);
	r = lookup(s, 7, 0x13000, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/a");
	ck_assert_uint_eq(r.dso_addr, 0x3000);
	r = lookup(s, 7, 0x1ffff, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/a");
	r = lookup(s, 7, 0x20000, PM_SYM_LOOKUP_USER);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN | PM_SYM_NO_MAP);
	/* Replace across two maps. */
	ck_assert_int_eq(pm_sym_add_map(s, 7, 0x11000, 0x1f000, 0, "/nonexistent/c"), 0);
	r = lookup(s, 7, 0x10800, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/a");
	r = lookup(s, 7, 0x12800, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/c");
	ck_assert_uint_eq(r.dso_addr, 0x1800);
	r = lookup(s, 7, 0x2f800, 0);
	ck_assert_str_eq(r.dso, "/nonexistent/c");
	r = lookup(s, 7, 0x30800, 0);
	ck_assert_str_eq(r.dso, "[vdso]");
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN);
	/* Missing files reported; [vdso] is read from this process's own image
	 * (a recording of this kernel), so it is reported only where this
	 * process has none (valgrind maps no vDSO). */
	ck_assert_int_eq(diag_for(s, "/nonexistent/a", NULL, NULL), PM_SYM_DIAG_MISSING);
	ck_assert_int_eq(diag_for(s, "[vdso]", NULL, NULL),
			 self_has_vdso() ? 0 : PM_SYM_DIAG_MISSING);
	/* Bad arguments. */
	ck_assert_int_eq(pm_sym_add_map(s, 7, 0x1000, 0, 0, "/x"), -EINVAL);
	ck_assert_int_eq(pm_sym_add_map(s, 7, UINT64_MAX - 10, 100, 0, "/x"), -EINVAL);
	ck_assert_int_eq(pm_sym_add_map(s, 7, 0x1000, 1, 0, NULL), -EINVAL);
	ck_assert_int_eq(pm_sym_add_map(NULL, 7, 0x1000, 1, 0, "/x"), -EINVAL);
	pm_sym_free(s);
}
END_TEST

START_TEST(test_kallsyms_fixture)
{
	pm_sym *s = open_sym(NULL, PM_FIXTURES "/kallsyms/kallsyms", 0);
	const uint64_t k = 0xffffffff81000000ULL;
	struct pm_sym_result r;
	struct pm_sym_def d;

	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	ck_assert_int_eq(pm_sym_diag_count(s), 0);
	r = lookup(s, 1, k + 0x10, 0); /* no maps for pid 1: the kernel range decides */
	ck_assert_uint_eq(r.flags, PM_SYM_KERNEL);
	ck_assert_str_eq(r.name, "_stext"); /* the last line at one address, as perf names it */
	ck_assert_str_eq(r.dso, "[kernel.kallsyms]");
	r = lookup(s, 1, k + 0x150, PM_SYM_LOOKUP_KERNEL);
	ck_assert_str_eq(r.name, "do_one_initcall");
	ck_assert_uint_eq(r.offset, 0x50);
	ck_assert_uint_eq(r.sym_start, k + 0x100);
	ck_assert_uint_eq(r.sym_size, 0x80);
	ck_assert_uint_eq(r.dso_addr, k + 0x150);
	r = lookup(s, 1, k + 0x1a0, 0);
	ck_assert_str_eq(r.name, "helper_local");
	r = lookup(s, 1, k + 0x350, 0); /* the data symbol at 0x300 is not text */
	ck_assert_str_eq(r.name, "weak_func");
	ck_assert_uint_eq(r.offset, 0x150);
	ck_assert_uint_eq(r.sym_size, 0x200);
	r = lookup(s, 1, k + 0x400, 0);
	ck_assert_str_eq(r.name, "schedule");
	ck_assert_uint_eq(r.offset, 0);
	r = lookup(s, 1, 0xffffffffc0001050ULL, 0);
	ck_assert_str_eq(r.name, "ext4_file_read_iter");
	ck_assert_str_eq(r.dso, "[ext4]");
	ck_assert_uint_eq(r.offset, 0x10);
	r = lookup(s, 1, 0xffffffffc0002010ULL, 0);
	ck_assert_str_eq(r.name, "xfs_thing");
	ck_assert_str_eq(r.dso, "[xfs]");
	r = lookup(s, 1, 0xffffffffc0002000ULL + 4096, PM_SYM_LOOKUP_KERNEL);
	ck_assert_uint_eq(r.flags, PM_SYM_KERNEL | PM_SYM_UNKNOWN);
	ck_assert_str_eq(r.name, "[unknown]");
	/* User lookups never give kernel symbols. */
	r = lookup(s, 1, k + 0x400, PM_SYM_LOOKUP_USER);
	ck_assert_uint_eq(r.flags, PM_SYM_UNKNOWN | PM_SYM_NO_MAP);
	/* By name. */
	memset(&d, 0, sizeof(d));
	d.sz = sizeof(d);
	ck_assert_int_eq(pm_sym_find(s, NULL, "schedule", 0, &d), 1);
	ck_assert_uint_eq(d.start, k + 0x400);
	ck_assert_uint_eq(d.size, 0x100);
	ck_assert_uint_eq(d.flags, PM_SYM_KERNEL);
	ck_assert_str_eq(d.dso, "[kernel.kallsyms]");
	ck_assert_int_eq(pm_sym_find(s, "[ext4]", "ext4_local_fn", 0, &d), 1);
	ck_assert_uint_eq(d.start, 0xffffffffc0001000ULL);
	ck_assert_uint_eq(d.size, 0x40);
	ck_assert_int_eq(pm_sym_find(s, "[xfs]", "schedule", 0, &d), 0);
	ck_assert_int_eq(pm_sym_find(s, NULL, "some_data", 0, &d), 0);
	pm_sym_free(s);
}
END_TEST

/* kallsyms read in blocks and put in order by insertion (kallsyms.c,
 * symtab.c): lines in every form the reader takes, a name longer than a
 * block, a last line without newline, aliases out of order, and the same
 * symbols in reverse order (the sort's general path): each lookup gives
 * the symbol the generator placed there. */
static void write_ksyms(const char *path, int reverse, size_t n)
{
	FILE *f = fopen(path, "w");
	const uint64_t base = 0xffffffff81000000ULL;

	ck_assert_ptr_nonnull(f);
	for (size_t k = 0; k < n; k++) {
		size_t i = reverse ? n - 1 - k : k;
		uint64_t a = base + i * 0x40;

		/* an alias first at every 7th address: the T one (higher prio) wins */
		if (i % 7 == 0)
			fprintf(f, "%016llx t alias_%zu\n", (unsigned long long)a, i);
		if (i % 5 == 1)
			fprintf(f, "%016llX T f_%zu\n", (unsigned long long)a, i); /* upper-case hex */
		else if (i % 5 == 2)
			fprintf(f, "%llx T f_%zu\n", (unsigned long long)a, i); /* no leading zeros */
		else if (i % 5 == 3)
			fprintf(f, "%llx T f_%zu\t[mod%zu]\n", (unsigned long long)a, i, i % 3);
		else
			fprintf(f, "%016llx T f_%zu\n", (unsigned long long)a, i);
		if (i % 11 == 0) /* not text, and junk lines: skipped */
			fprintf(f, "%016llx d data_%zu\n\nffffffffffffffffff%zu T too_long\n",
				(unsigned long long)a + 8, i, i);
	}
	/* a name longer than the reader's block, then a last line without newline */
	fprintf(f, "%016llx T ", (unsigned long long)(base + n * 0x40));
	for (int j = 0; j < 300000; j++)
		fputc('x', f);
	fprintf(f, "\n%016llx T last_one", (unsigned long long)(base + (n + 1) * 0x40));
	fclose(f);
}

START_TEST(test_kallsyms_forms_and_order)
{
	const uint64_t base = 0xffffffff81000000ULL;
	const size_t n = 3000;
	char path[128];

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	for (int reverse = 0; reverse < 2; reverse++) {
		pm_sym *s;
		struct pm_sym_result r;
		char want[32];

		write_ksyms(path, reverse, n);
		s = open_sym(NULL, path, 0);
		for (size_t i = 0; i < n; i++) {
			r = lookup(s, 1, base + i * 0x40 + 0x10, PM_SYM_LOOKUP_KERNEL);
			snprintf(want, sizeof(want), "f_%zu", i);
			ck_assert_msg(!strcmp(r.name, want), "reverse %d: at %zu: %s, not %s", reverse, i,
				      r.name, want);
			ck_assert_uint_eq(r.sym_start, base + i * 0x40);
			ck_assert_uint_eq(r.offset, 0x10);
			snprintf(want, sizeof(want), "[mod%zu]", i % 3);
			ck_assert_str_eq(r.dso, i % 5 == 3 ? want : "[kernel.kallsyms]");
		}
		r = lookup(s, 1, base + n * 0x40 + 1, PM_SYM_LOOKUP_KERNEL);
		ck_assert_uint_eq(strlen(r.name), 300000);
		r = lookup(s, 1, base + (n + 1) * 0x40 + 1, PM_SYM_LOOKUP_KERNEL);
		ck_assert_str_eq(r.name, "last_one");
		ck_assert_int_eq(pm_sym_find(s, NULL, "too_long", 0, NULL), 0);
		pm_sym_free(s);
	}
	remove_tmpdir();
}
END_TEST

START_TEST(test_kallsyms_restricted)
{
	pm_sym *s = open_sym(NULL, PM_FIXTURES "/kallsyms/kallsyms-restricted", 0);
	struct pm_sym_result r;
	struct pm_sym_diag d;

	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_RESTRICTED);
	ck_assert_int_eq(diag_for(s, PM_FIXTURES "/kallsyms/kallsyms-restricted", &d, NULL),
			 PM_SYM_DIAG_KPTR_RESTRICT);
	ck_assert_ptr_nonnull(strstr(d.message, "kptr_restrict"));
	r = lookup(s, 1, 0xffffffff81000400ULL, PM_SYM_LOOKUP_KERNEL);
	ck_assert_uint_eq(r.flags, PM_SYM_KERNEL | PM_SYM_UNKNOWN);
	ck_assert_str_eq(r.dso, "[kernel.kallsyms]");
	r = lookup(s, 1, 0xffffffff81000400ULL, 0); /* upper half: still called kernel */
	ck_assert_uint_eq(r.flags, PM_SYM_KERNEL | PM_SYM_UNKNOWN);
	ck_assert_int_eq(pm_sym_find(s, NULL, "schedule", 0, NULL), 0);
	pm_sym_free(s);

	s = open_sym(NULL, PM_FIXTURES "/kallsyms/no-such-file", 0);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_UNREADABLE);
	ck_assert_int_eq(diag_for(s, PM_FIXTURES "/kallsyms/no-such-file", &d, NULL),
			 PM_SYM_DIAG_NO_KALLSYMS);
	ck_assert_int_eq(d.err, -ENOENT);
	pm_sym_free(s);

	s = open_sym(NULL, PM_FIXTURES "/kallsyms/kallsyms", PM_SYM_OPT_NO_KERNEL);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_DISABLED);
	r = lookup(s, 1, 0xffffffff81000400ULL, PM_SYM_LOOKUP_KERNEL);
	ck_assert_uint_eq(r.flags, PM_SYM_KERNEL | PM_SYM_UNKNOWN);
	pm_sym_free(s);
}
END_TEST

START_TEST(test_kallsyms_real)
{
	pm_sym *s = open_sym(NULL, NULL, 0);
	unsigned long long want = 0;
	char line[512];
	struct pm_sym_result r;
	int st = pm_sym_kernel_status(s);
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		pm_sym_free(s);
		ck_assert_int_eq(st, PM_SYM_KERNEL_UNREADABLE);
		pm_test_skip("/proc/kallsyms cannot be opened");
	}
	/* Oracle: the file itself, read here with sscanf. */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && (t == 'T' || t == 't') &&
		    strcmp(name, "schedule") == 0) {
			want = a;
			break;
		}
	}
	fclose(f);
	if (want == 0) {
		ck_assert_int_ne(st, PM_SYM_KERNEL_OK == st && 0 ? 0 : -1);
		pm_sym_free(s);
		if (st == PM_SYM_KERNEL_RESTRICTED)
			pm_test_skip("kernel.kptr_restrict hides kallsyms addresses (status says so)");
		pm_test_skip("no 'schedule' text symbol in /proc/kallsyms");
	}
	ck_assert_int_eq(st, PM_SYM_KERNEL_OK);
	r = lookup(s, getpid(), want + 1, PM_SYM_LOOKUP_KERNEL);
	ck_assert_uint_eq(r.flags & (PM_SYM_KERNEL | PM_SYM_UNKNOWN), PM_SYM_KERNEL);
	ck_assert_uint_eq(r.sym_start, want);
	ck_assert_uint_eq(r.offset, 1);
	ck_assert_int_ge(pm_sym_find(s, "[kernel.kallsyms]", "schedule", 0, NULL), 1);
	pm_sym_free(s);
}
END_TEST

START_TEST(test_api_contract)
{
	pm_sym *s = NULL;
	struct pm_sym_opts o;
	struct {
		struct pm_sym_result r;
		uint64_t tail;
	} big;
	struct pm_sym_result r;
	struct pm_sym_diag d;

	ck_assert_int_eq(pm_sym_new(NULL, NULL), -EINVAL);
	memset(&o, 0, sizeof(o));
	o.sz = 4;
	ck_assert_int_eq(pm_sym_new(&s, &o), -PM_ERR_STRUCT_SIZE);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(pm_sym_new(&s, NULL), 0);
	pm_sym_free(NULL);

	memset(&r, 0, sizeof(r));
	r.sz = 8;
	ck_assert_int_eq(pm_sym_lookup(s, 1, 0x1000, 0, &r), -PM_ERR_STRUCT_SIZE);
	ck_assert_int_eq(pm_sym_lookup(s, 1, 0x1000, 0, NULL), -EINVAL);
	/* A larger caller struct with a zero tail: accepted, tail left zero. */
	memset(&big, 0, sizeof(big));
	big.r.sz = sizeof(big);
	ck_assert_int_eq(pm_sym_lookup(s, 1, 0x1000, PM_SYM_LOOKUP_USER, &big.r), 0);
	ck_assert_uint_eq(big.r.sz, sizeof(big));
	ck_assert_uint_eq(big.tail, 0);
	ck_assert_str_eq(big.r.name, "[unknown]");
	big.tail = 1;
	ck_assert_int_eq(pm_sym_lookup(s, 1, 0x1000, 0, &big.r), -PM_ERR_STRUCT_SIZE);

	memset(&d, 0, sizeof(d));
	d.sz = sizeof(d);
	ck_assert_int_eq(pm_sym_diag_count(s), 0);
	ck_assert_int_eq(pm_sym_diag_get(s, 0, &d), -ERANGE);
	ck_assert_int_eq(pm_sym_find(s, NULL, NULL, 0, NULL), -EINVAL);
	ck_assert_int_eq(pm_sym_exec(NULL, 1), -EINVAL);
	ck_assert_int_eq(pm_sym_load_proc_maps(s, -5), -ENOENT);
	pm_sym_free(s);
}
END_TEST


/* pm_sym_add_record(): the policy of docs/symbol.md, record by record.  The
 * maps are "//anon"-style names (no file is opened): the dso of a lookup
 * says which map covers the address. */
static struct pm_record mk_mmap(uint32_t type, uint16_t misc, uint32_t pid, uint64_t addr, uint64_t len,
				uint32_t prot, const char *name, uint32_t name_len)
{
	struct pm_record r;

	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	r.header.type = type;
	r.header.misc = misc;
	r.mmap.pid = r.mmap.tid = pid;
	r.mmap.addr = addr;
	r.mmap.len = len;
	r.mmap.prot = prot;
	r.mmap.filename = name;
	r.mmap.filename_len = name_len;
	return r;
}

static struct pm_record mk_task(uint32_t type, uint16_t misc, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	struct pm_record r;

	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	r.header.type = type;
	r.header.misc = misc;
	if (type == PM_RECORD_COMM) {
		r.comm.pid = pid;
		r.comm.tid = tid;
		r.comm.comm = "x";
		r.comm.comm_len = 1;
	} else {
		r.task.pid = pid;
		r.task.ppid = ppid;
		r.task.tid = tid;
		r.task.ptid = ppid;
	}
	return r;
}

static const char *dso_at(pm_sym *s, int32_t pid, uint64_t addr)
{
	return lookup(s, pid, addr, PM_SYM_LOOKUP_USER).dso;
}

START_TEST(test_add_record_policy)
{
	pm_sym *s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	/* a name field that is not NUL-terminated: only name_len bytes count */
	static const char field[] = { '/', '/', 'a', 'n', 'o', 'n', 'X', 'Y' };
	struct pm_record r;

	r = mk_mmap(PM_RECORD_MMAP, 0, 10, 0x1000, 0x1000, 0, field, 6);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 1);
	ck_assert_str_eq(dso_at(s, 10, 0x1800), "//anon");
	/* data mappings are no code: MMAP_DATA, or an MMAP2 without PROT_EXEC */
	r = mk_mmap(PM_RECORD_MMAP, PM_RECORD_MISC_MMAP_DATA, 10, 0x1000, 0x1000, 0, "//data", 6);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0);
	r = mk_mmap(PM_RECORD_MMAP2, 0, 10, 0x1400, 0x100, 0x1 | 0x2, "//rw", 4);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0);
	ck_assert_str_eq(dso_at(s, 10, 0x1450), "//anon");
	r = mk_mmap(PM_RECORD_MMAP2, 0, 10, 0x3000, 0x1000, 0x1 | 0x4, "//code2", 7);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 1);
	ck_assert_str_eq(dso_at(s, 10, 0x3000), "//code2");
	r = mk_mmap(PM_RECORD_MMAP, 0, 10, 0x5000, 0, 0, "//empty", 7);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0); /* length 0 */
	/* fork of a process inherits; a new thread changes nothing */
	r = mk_task(PM_RECORD_FORK, 0, 11, 10, 11);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 1);
	ck_assert_str_eq(dso_at(s, 11, 0x1800), "//anon");
	r = mk_task(PM_RECORD_FORK, 0, 10, 10, 12);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0);
	/* a thread's exit keeps the process; a COMM without exec changes nothing */
	r = mk_task(PM_RECORD_EXIT, 0, 10, 10, 12);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0);
	r = mk_task(PM_RECORD_COMM, 0, 10, 0, 10);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0);
	ck_assert_str_eq(dso_at(s, 10, 0x1800), "//anon");
	/* exec of the process: its maps are gone, the child's stay */
	r = mk_task(PM_RECORD_COMM, PM_RECORD_MISC_COMM_EXEC, 10, 0, 10);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 1);
	ck_assert_str_eq(dso_at(s, 10, 0x1800), "[unknown]");
	ck_assert_str_eq(dso_at(s, 11, 0x1800), "//anon");
	/* the process's exit: maps kept for late samples, dropped on reuse */
	r = mk_task(PM_RECORD_EXIT, 0, 11, 10, 11);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 1);
	ck_assert_str_eq(dso_at(s, 11, 0x1800), "//anon");
	r = mk_mmap(PM_RECORD_MMAP, 0, 11, 0x9000, 0x1000, 0, "//new", 5);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 1);
	ck_assert_str_eq(dso_at(s, 11, 0x1800), "[unknown]");
	/* other records are ignored; bad arguments refused */
	r = mk_task(PM_RECORD_LOST, 0, 1, 1, 1);
	ck_assert_int_eq(pm_sym_add_record(s, &r), 0);
	ck_assert_int_eq(pm_sym_add_record(NULL, &r), -EINVAL);
	ck_assert_int_eq(pm_sym_add_record(s, NULL), -EINVAL);
	r.sz = 8;
	ck_assert_int_eq(pm_sym_add_record(s, &r), -EINVAL);
	/* pm_sym_add_map_len: names too long refused, an embedded NUL ends the name */
	ck_assert_int_eq(pm_sym_add_map_len(s, 12, 0x1000, 0x10, 0, "//a\0bc", 6), 0);
	ck_assert_str_eq(dso_at(s, 12, 0x1000), "//a");
	ck_assert_int_eq(pm_sym_add_map_len(s, 12, 0x1000, 0x10, 0, field, PM_SYM_NAME_MAX + 1), -EINVAL);
	ck_assert_int_eq(pm_sym_add_map_len(s, 12, 0x1000, 0, 0, field, 6), -EINVAL);
	pm_sym_free(s);
}
END_TEST

/* PLT slots are named "name@plt" at the addresses objdump labels them. */
START_TEST(test_plt_symbols)
{
	pm_sym *s = open_sym(NULL, NULL, PM_SYM_OPT_NO_KERNEL);
	char cmd[PATH_MAX + 64], line[512], real[PATH_MAX];
	unsigned checked = 0;
	FILE *p;

	must_realpath(NOPIE, real);
	/* ET_EXEC: file addresses are run-time addresses; map the whole file at 0x400000 */
	ck_assert_int_eq(pm_sym_add_map(s, 1, 0x400000, 0x100000, 0, real), 0);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec '%s' 2>/dev/null", real);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char name[256];
		struct pm_sym_result r;

		size_t nl;

		/* "<x@plt>:" is a slot; objdump labels PLT0 "<x@plt-0x10>" */
		if (sscanf(line, "%llx <%255[^>]>:", &a, name) != 2 || (nl = strlen(name)) < 4 ||
		    strcmp(name + nl - 4, "@plt") != 0)
			continue;
		r = lookup(s, 1, a + 2, PM_SYM_LOOKUP_USER);
		ck_assert_str_eq(r.name, name);
		ck_assert_uint_eq(r.offset, 2);
		checked++;
	}
	pclose(p);
	/* the workload calls printf(): at least that slot */
	ck_assert_msg(checked > 0, "objdump shows no @plt slot in %s", real);
	pm_sym_free(s);
}
END_TEST


/* pm_sym_new_from_file(): the bundled synthetic recording says it is of an Alpha
 * kernel "6.12.0-alpha-synthetic": this machine's kallsyms is refused unless
 * a kallsyms file is given.  pm_sym_resolve_file() gives what feeding the
 * records and looking up as one goes gives, by time and by sample ordinal. */
#define SYN_DATA PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data"
#define SYN_SYMFS PM_TEST_SRCDIR "/examples/data/symfs"

struct q {
	int32_t *pid;
	uint64_t *ip, *time, *ord;
	uint8_t *mode;
	const char **name, **dso;
	size_t n;
};

/* pm_sym_opts.path: a synthetic recording's symbols come from the symfs and
 * kallsyms next to it unless given; no path (or "-") uses none. */
static int sidecar_diag(pm_sym *s, struct pm_sym_diag *out)
{
	int n = 0;

	for (int i = 0; i < pm_sym_diag_count(s); i++) {
		struct pm_sym_diag d = { .sz = sizeof(d) };

		if (pm_sym_diag_get(s, (size_t)i, &d) == 0 && d.code == PM_SYM_DIAG_SIDECAR) {
			*out = d;
			n++;
		}
	}
	return n;
}

START_TEST(test_synthetic_sidecar)
{
	struct pm_sym_opts o = { .sz = sizeof(o), .path = SYN_DATA };
	struct pm_sym_diag d = { .sz = sizeof(d) };
	struct pm_sym_result r;
	pm_sym *s = NULL;
	pm_file *f = NULL;

	ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
	ck_assert_int_eq(pm_file_is_synthetic(f), 1); /* HOSTNAME pm-synthetic */
	ck_assert_int_eq(pm_file_is_synthetic(NULL), 0);
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 1);
	ck_assert_str_eq(d.file, SYN_SYMFS);
	ck_assert_str_eq(d.message, "synthetic recording: symbols from " SYN_SYMFS " and " SYN_SYMFS
				    "/kallsyms");
	ck_assert_int_eq(d.err, 0);
	ck_assert_str_eq(pm_sym_kallsyms_path(s), SYN_SYMFS "/kallsyms");
	/* the recorded kernel is foreign, but the sidecar's kallsyms is given for it */
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	/* the user maps come from the symfs: main at 0x120000170 (profileme-synthetic.expected.json) */
	ck_assert_int_eq(pm_sym_add_map(s, 4242, 0x120000000ull, 8192, 0, "/usr/bin/pmdemo"), 0);
	r = lookup(s, 4242, 0x120000170ull, PM_SYM_LOOKUP_USER);
	ck_assert_str_eq(r.name, "main");
	pm_sym_free(s);

	/* an explicit kallsyms wins; the symfs still comes from the sidecar */
	o.kallsyms = "/nonexistent/kallsyms";
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 1);
	ck_assert_str_eq(d.message, "synthetic recording: symbols from " SYN_SYMFS);
	ck_assert_str_eq(pm_sym_kallsyms_path(s), "/nonexistent/kallsyms");
	pm_sym_free(s);
	/* both explicit: nothing from the sidecar */
	o.sysroot = "/nonexistent";
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 0);
	pm_sym_free(s);
	/* no path, or standard input: nothing */
	o.sysroot = o.kallsyms = NULL;
	o.path = NULL;
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 0);
	ck_assert_str_eq(pm_sym_kallsyms_path(s), "/proc/kallsyms");
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_FOREIGN);
	pm_sym_free(s);
	o.path = "-";
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 0);
	pm_sym_free(s);
	/* a 0.1-sized struct (no path member) is accepted and uses none */
	o.path = SYN_DATA;
	o.sz = PM_SYM_OPTS_SZ_V1;
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 0);
	pm_sym_free(s);
	/* a directory without symfs: nothing */
	o.sz = sizeof(o);
	o.path = "/nonexistent-dir/x.data";
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(sidecar_diag(s, &d), 0);
	pm_sym_free(s);
	ck_assert_ptr_null(pm_sym_kallsyms_path(NULL));
	pm_file_close(f);
}
END_TEST

START_TEST(test_open_file_and_resolve)
{
	struct pm_sym_opts o = { .sz = sizeof(o), .sysroot = SYN_SYMFS };
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct pm_sym_diag dg = { .sz = sizeof(dg) };
	struct pm_sym_result r;
	pm_sym *s = NULL;
	pm_file *f = NULL;
	struct q q = {0};
	uint32_t *idx;
	bool foreign_diag = false;
	int64_t nu;
	size_t cap = 1024;

	ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_FOREIGN);
	for (int i = 0; i < pm_sym_diag_count(s); i++)
		if (pm_sym_diag_get(s, (size_t)i, &dg) == 0 && dg.code == PM_SYM_DIAG_FOREIGN_KERNEL)
			foreign_diag = strstr(dg.message, "alpha") != NULL;
	ck_assert_msg(foreign_diag, "no foreign-kernel diagnostic naming the recorded arch");
	r = lookup(s, -1, 0xffffffff81000000ull, PM_SYM_LOOKUP_KERNEL);
	ck_assert_str_eq(r.name, "[unknown]");
	pm_sym_free(s);
	/* a kallsyms file given is used whatever the recording says */
	o.kallsyms = SYN_SYMFS "/kallsyms";
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
	pm_sym_free(s);
	ck_assert_int_eq(pm_sym_new_from_file(&s, NULL, &o), -EINVAL);
	ck_assert_ptr_null(s);
	/* as one goes */
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	q.pid = calloc(cap, 4); q.ip = calloc(cap, 8); q.time = calloc(cap, 8); q.ord = calloc(cap, 8);
	q.mode = calloc(cap, 1); q.name = calloc(cap, sizeof(char *)); q.dso = calloc(cap, sizeof(char *));
	while (pm_file_next(f, &rec) > 0) {
		struct pm_record pr = { .sz = sizeof(pr) };
		struct pm_sample sm = { .sz = sizeof(sm) };

		if (rec.type != PM_RECORD_SAMPLE) {
			if (pm_file_record_parse(f, &rec, &pr) == 0)
				ck_assert_int_ge(pm_sym_add_record(s, &pr), 0);
			continue;
		}
		ck_assert_uint_lt(q.n, cap);
		if (pm_file_sample(f, &rec, &sm) == 0) {
			q.pid[q.n] = (int32_t)sm.pid;
			q.ip[q.n] = sm.ip;
			q.time[q.n] = sm.time;
			q.mode[q.n] = (uint8_t)(sm.misc & PM_RECORD_MISC_CPUMODE_MASK);
			r = lookup(s, q.pid[q.n], sm.ip, q.mode[q.n] == PM_RECORD_MISC_KERNEL ?
				   PM_SYM_LOOKUP_KERNEL : q.mode[q.n] == PM_RECORD_MISC_USER ?
				   PM_SYM_LOOKUP_USER : 0);
			q.name[q.n] = r.name;
			q.dso[q.n] = r.dso;
			q.ord[q.n] = q.n;
			q.n++;
		}
	}
	ck_assert_uint_gt(q.n, 100);
	pm_file_close(f);
	/* in bulk, by time and by ordinal, each with a fresh file */
	idx = calloc(q.n, sizeof(*idx));
	for (int pass = 0; pass < 2; pass++) {
		pm_sym *b = NULL;
		size_t known = 0;

		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&b, f, &o), 0);
		nu = pm_sym_resolve_file(b, f, q.n, q.pid, q.ip, q.mode, pass ? q.ord : q.time,
					 pass ? 0 : PM_SYM_WHEN_TIME, idx);
		ck_assert_int_gt(nu, 0);
		ck_assert_int_lt(nu, (int64_t)q.n); /* repeated addresses share a result */
		for (size_t i = 0; i < q.n; i++) {
			struct pm_sym_result br = { .sz = sizeof(br) };

			ck_assert_int_eq(pm_sym_resolved_get(b, idx[i], &br), 0);
			ck_assert_str_eq(br.name, q.name[i]);
			ck_assert_str_eq(br.dso, q.dso[i]);
			known += strcmp(br.name, "[unknown]") != 0;
		}
		ck_assert_uint_gt(known, q.n / 2);
		ck_assert_int_eq(pm_sym_resolved_get(b, (size_t)nu, &r), -ERANGE);
		pm_sym_free(b);
		pm_file_close(f);
	}
	ck_assert_int_eq(pm_sym_resolve_file(s, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL), -EINVAL);
	pm_sym_free(s);
	free(idx);
	free(q.pid); free(q.ip); free(q.time); free(q.ord); free(q.mode); free(q.name); free(q.dso);
}
END_TEST


/* pm_sym_resolve_rows(): the columns agree with looking up as one goes
 * (pm_sym_add_record() then pm_sym_lookup() at each sample), names are
 * indexes into sorted tables of distinct strings, the thread names follow
 * the COMM and FORK records (computed here from the records), a PALcode row
 * is "[PALcode]" at its address, and rows given out of time order (the sort
 * path) or without times give the same or the end-of-recording answer. */
START_TEST(test_resolve_rows)
{
	struct pm_sym_opts o = { .sz = sizeof(o), .sysroot = SYN_SYMFS, .kallsyms = SYN_SYMFS "/kallsyms" };
	struct pm_file_record rec = { .sz = sizeof(rec) };
	enum { CAP = 1024, NT = 64 };
	static int32_t pid[CAP];
	static uint32_t tid[CAP], sym[CAP], dso[CAP], comm[CAP], rev_sym[CAP], rev_comm[CAP];
	static uint64_t ip[CAP], tm[CAP], off[CAP], rtm[CAP];
	static uint8_t mode[CAP];
	static char *want_sym[CAP], *want_dso[CAP], *want_comm[CAP];
	struct { uint32_t tid; char comm[32]; } names[NT];
	size_t nn = 0, n = 0, nkernel = 0;
	pm_sym *s = NULL;
	pm_file *f = NULL;

	ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
	ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
	while (pm_file_next(f, &rec) > 0) {
		struct pm_record pr = { .sz = sizeof(pr) };
		struct pm_sample sm = { .sz = sizeof(sm) };
		struct pm_sym_result r;
		const char *c = NULL;
		char b[32];

		if (rec.type != PM_RECORD_SAMPLE) {
			if (pm_file_record_parse(f, &rec, &pr) != 0)
				continue;
			ck_assert_int_ge(pm_sym_add_record(s, &pr), 0);
			if (rec.type == PM_RECORD_COMM || rec.type == PM_RECORD_FORK) {
				uint32_t t = rec.type == PM_RECORD_COMM ? pr.comm.tid : pr.task.tid;
				size_t k, p = 0;

				for (k = 0; k < nn && names[k].tid != t; k++)
					;
				if (rec.type == PM_RECORD_FORK) {
					for (p = 0; p < nn && names[p].tid != pr.task.ptid; p++)
						;
					if (k < nn || p == nn)
						continue; /* named already, or a parent without a name */
				}
				ck_assert_uint_lt(k, NT);
				names[k].tid = t;
				if (rec.type == PM_RECORD_COMM)
					snprintf(names[k].comm, sizeof(names[k].comm), "%.*s",
						 (int)strnlen(pr.comm.comm, pr.comm.comm_len), pr.comm.comm);
				else
					memcpy(names[k].comm, names[p].comm, sizeof(names[k].comm));
				nn += k == nn;
			}
			continue;
		}
		if (pm_file_sample(f, &rec, &sm) != 0)
			continue;
		ck_assert_uint_lt(n, CAP - 1);
		pid[n] = (int32_t)sm.pid;
		tid[n] = sm.tid;
		ip[n] = sm.ip;
		tm[n] = sm.time;
		mode[n] = (uint8_t)(sm.misc & PM_RECORD_MISC_CPUMODE_MASK);
		nkernel += mode[n] == PM_RECORD_MISC_KERNEL;
		r = lookup(s, pid[n], ip[n], pm_sym_lookup_how(mode[n]));
		want_sym[n] = strdup(r.name);
		want_dso[n] = strdup(r.dso[0] == '[' || !strrchr(r.dso, '/') ? r.dso : strrchr(r.dso, '/') + 1);
		for (size_t k = 0; k < nn; k++)
			if (names[k].tid == sm.tid)
				c = names[k].comm;
		if (!c) {
			snprintf(b, sizeof(b), ":%u", sm.tid);
			c = b;
		}
		want_comm[n] = strdup(c);
		n++;
	}
	pm_file_close(f);
	pm_sym_free(s);
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_gt(nkernel, 0); /* the kernel rows take the kallsyms thread */
	/* one more row: a PALcode address */
	pid[n] = pid[0];
	tid[n] = tid[0];
	ip[n] = 0x1a100;
	tm[n] = tm[n - 1];
	mode[n] = PM_SYM_CPUMODE_PALCODE;
	want_sym[n] = strdup("[PALcode]");
	want_dso[n] = strdup("[PALcode]");
	want_comm[n] = strdup(want_comm[0]);
	n++;
	for (int pass = 0; pass < 2; pass++) {
		struct pm_sym_rows rows = { .sz = sizeof(rows), .n = n, .pid = pid, .addr = ip, .cpumode = mode,
					    .when = tm, .tid = tid, .flags = PM_SYM_WHEN_TIME | PM_SYM_ROWS_DSO_BASENAME,
					    .sym = sym, .dso = dso, .symoff = off, .comm = comm };
		int64_t cnt[3];

		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
		if (pass) {
			/* the kernel table loaded already: no thread, same answers */
			ck_assert_int_eq(pm_sym_kernel_status(s), PM_SYM_KERNEL_OK);
		}
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), 0);
		for (int t = 0; t < 3; t++) {
			cnt[t] = pm_sym_rows_count(s, t);
			ck_assert_int_gt(cnt[t], 0);
			for (int64_t k = 1; k < cnt[t]; k++)
				ck_assert_int_lt(strcmp(pm_sym_rows_string(s, t, (size_t)k - 1),
							pm_sym_rows_string(s, t, (size_t)k)), 0);
		}
		ck_assert_ptr_null(pm_sym_rows_string(s, PM_SYM_TABLE_SYM, (size_t)cnt[0]));
		ck_assert_ptr_null(pm_sym_rows_string(s, 3, 0));
		ck_assert_int_eq(pm_sym_rows_count(s, -1), -EINVAL);
		for (size_t i = 0; i < n; i++) {
			ck_assert_int_lt(sym[i], cnt[0]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_SYM, sym[i]), want_sym[i]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_DSO, dso[i]), want_dso[i]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_COMM, comm[i]), want_comm[i]);
		}
		ck_assert_uint_eq(off[n - 1], 0x1a100);
		pm_sym_free(s);
		pm_file_close(f);
	}
	/* the same rows in reverse time order: the sort path, the same names */
	{
		static int32_t rpid[CAP];
		static uint32_t rtid[CAP];
		static uint64_t rip[CAP];
		static uint8_t rmode[CAP];
		struct pm_sym_rows rows = { .sz = sizeof(rows), .n = n, .pid = rpid, .addr = rip, .cpumode = rmode,
					    .when = rtm, .tid = rtid, .flags = PM_SYM_WHEN_TIME,
					    .sym = rev_sym, .comm = rev_comm };

		for (size_t i = 0; i < n; i++) {
			rpid[i] = pid[n - 1 - i];
			rtid[i] = tid[n - 1 - i];
			rip[i] = ip[n - 1 - i];
			rmode[i] = mode[n - 1 - i];
			rtm[i] = tm[n - 1 - i];
		}
		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), 0);
		for (size_t i = 0; i < n; i++) {
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_SYM, rev_sym[i]), want_sym[n - 1 - i]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_COMM, rev_comm[i]),
					 want_comm[n - 1 - i]);
		}
		/* bad arguments */
		rows.tid = NULL;
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), -EINVAL);
		rows.tid = rtid;
		rows.flags = 1u << 7;
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), -EINVAL);
		rows.flags = 0;
		rows.sz = 8;
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), -PM_ERR_STRUCT_SIZE);
		ck_assert_int_eq(pm_sym_resolve_rows(NULL, f, &rows), -EINVAL);
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, NULL), -EINVAL);
		pm_sym_free(s);
		pm_file_close(f);
	}
	/* the same rows as the fields of an array of structures, read in place
	 * (pm_sym_rows::stride): the same names; an older caller's struct
	 * (PM_SYM_ROWS_SZ_V1) has no strides, and a stride below the element's
	 * size is refused */
	{
		/* rows of 25 bytes: mode, ip (unaligned), pid, tid, time */
		enum { RS = 25 };
		static uint8_t aos[CAP * RS];
		const void *at[5] = { aos + 9, aos + 1, aos, aos + 17, aos + 13 };
		struct pm_sym_rows rows = { .sz = sizeof(rows), .n = n, .pid = at[0], .addr = at[1], .cpumode = at[2],
					    .when = at[3], .tid = at[4],
					    .flags = PM_SYM_WHEN_TIME | PM_SYM_ROWS_DSO_BASENAME,
					    .sym = sym, .dso = dso, .symoff = off, .comm = comm,
					    .stride = { RS, RS, RS, RS, RS } };

		for (size_t i = 0; i < n; i++) {
			uint8_t *r = aos + i * RS;

			r[0] = mode[i];
			memcpy(r + 1, &ip[i], 8);
			memcpy(r + 9, &pid[i], 4);
			memcpy(r + 13, &tid[i], 4);
			memcpy(r + 17, &tm[i], 8);
		}
		memset(sym, 0xff, sizeof(sym));
		memset(off, 0, sizeof(off));
		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), 0);
		for (size_t i = 0; i < n; i++) {
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_SYM, sym[i]), want_sym[i]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_DSO, dso[i]), want_dso[i]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_COMM, comm[i]), want_comm[i]);
		}
		ck_assert_uint_eq(off[n - 1], 0x1a100);
		pm_sym_free(s);
		pm_file_close(f);
		/* a stride of 4 for the 8-byte addresses */
		rows.stride[1] = 4;
		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), -EINVAL);
		ck_assert_ptr_nonnull(strstr(pm_errmsg(), "stride 4 of addr"));
		pm_sym_free(s);
		pm_file_close(f);
		/* an older caller: its struct ends before the strides (left set
		 * here: they must not be read), plain arrays */
		rows.pid = pid;
		rows.addr = ip;
		rows.cpumode = mode;
		rows.when = tm;
		rows.tid = tid;
		rows.sz = PM_SYM_ROWS_SZ_V1;
		memset(sym, 0xff, sizeof(sym));
		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
		ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), 0);
		for (size_t i = 0; i < n; i++)
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_SYM, sym[i]), want_sym[i]);
		pm_sym_free(s);
		pm_file_close(f);
	}
	/* PM_SYM_ROWS_PARTIAL: the recording cut inside a sample past its
	 * middle; the rows before the cut resolve as in the whole recording,
	 * where without the flag the replay ends in the reading error */
	{
		char cut[] = "/tmp/pm_cut_XXXXXX";
		int fd = mkstemp(cut);
		FILE *in = fopen(SYN_DATA, "rb");
		static uint8_t bytes[4 << 20];
		size_t len, at = 0;
		struct pm_sym_rows rows = { .sz = sizeof(rows), .pid = pid, .addr = ip, .cpumode = mode,
					    .when = tm, .tid = tid, .sym = sym, .dso = dso, .symoff = off,
					    .comm = comm };

		ck_assert_int_ge(fd, 0);
		ck_assert_ptr_nonnull(in);
		len = fread(bytes, 1, sizeof(bytes), in);
		fclose(in);
		ck_assert_uint_gt(len, 0);
		ck_assert_uint_lt(len, sizeof(bytes));
		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		while (pm_file_next(f, &rec) > 0) {
			if (rec.type != PM_RECORD_SAMPLE)
				continue;
			if (rec.offset > len / 2) {
				at = (size_t)rec.offset + rec.size / 2;
				break;
			}
			rows.n++;
		}
		pm_file_close(f);
		ck_assert_uint_gt(at, 0);
		ck_assert_uint_gt(rows.n, 10);
		ck_assert_uint_lt(rows.n, n - 1);
		ck_assert_int_eq(write(fd, bytes, at), (ssize_t)at);
		close(fd);
		for (int partial = 0; partial < 2; partial++) {
			rows.flags = PM_SYM_WHEN_TIME | PM_SYM_ROWS_DSO_BASENAME | (partial ? PM_SYM_ROWS_PARTIAL : 0);
			memset(sym, 0xff, sizeof(sym));
			ck_assert_int_eq(pm_file_open(&f, cut, NULL), 0);
			ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
			if (!partial) {
				ck_assert_int_lt(pm_sym_resolve_rows(s, f, &rows), 0);
			} else {
				ck_assert_int_eq(pm_sym_resolve_rows(s, f, &rows), 0);
				for (size_t i = 0; i < rows.n; i++) {
					ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_SYM, sym[i]), want_sym[i]);
					ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_DSO, dso[i]), want_dso[i]);
					ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_COMM, comm[i]),
							 want_comm[i]);
				}
			}
			pm_sym_free(s);
			pm_file_close(f);
		}
		unlink(cut);
	}
	for (size_t i = 0; i < n; i++) {
		free(want_sym[i]);
		free(want_dso[i]);
		free(want_comm[i]);
	}
}
END_TEST

/* An exec recording written here: process 10 ("sh") maps /bin/a, forks
 * 11, execs ("b") and maps /bin/b at the same address; three samples after
 * each record, the first at its time stamp.  Gives the want of each sample
 * (its dso basename and thread name) from these inputs. */
static size_t write_exec_file(const char *path, const char **want_dso, const char **want_comm)
{
	static const struct {
		uint32_t type, misc;
		const char *str;  /* COMM name, MMAP file */
		uint32_t spid;    /* the samples after it */
		const char *dso, *comm;
	} steps[] = {
		{ PM_RECORD_COMM, 0, "sh", 10, "[unknown]", "sh" },
		{ PM_RECORD_MMAP, PM_RECORD_MISC_USER, "/bin/a", 10, "a", "sh" },
		{ PM_RECORD_FORK, 0, NULL, 11, "a", "sh" },
		{ PM_RECORD_COMM, PM_RECORD_MISC_COMM_EXEC, "b", 10, "[unknown]", "b" },
		{ PM_RECORD_MMAP, PM_RECORD_MISC_USER, "/bin/b", 10, "b", "b" },
		{ PM_RECORD_FINISHED_ROUND, 0, NULL, 11, "a", "sh" },
	};
	const bool be = false;
	struct pm_attr a;
	pm_writer *w = NULL;
	uint8_t r[128];
	uint64_t t = 1000;
	size_t n = 0;

	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.config = 1;
	a.sample_period = 1000;
	a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME;
	a.flags = PM_ATTR_SAMPLE_ID_ALL | PM_ATTR_MMAP | PM_ATTR_COMM | PM_ATTR_TASK;
	ck_assert_int_eq(pm_writer_open(&w, path, NULL), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "task-clock", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t len = 8, tr;

		t += 100;
		memset(r, 0, sizeof(r));
		pm__st32(r, steps[i].type, be);
		pm__st16(r + 4, (uint16_t)steps[i].misc, be);
		switch (steps[i].type) {
		case PM_RECORD_COMM: /* pid, tid, name (8 bytes) */
			pm__st32(r + 8, 10, be);
			pm__st32(r + 12, 10, be);
			memcpy(r + 16, steps[i].str, strlen(steps[i].str) + 1);
			len = 24;
			break;
		case PM_RECORD_MMAP: /* pid, tid, addr, len, pgoff, file (8 bytes) */
			pm__st32(r + 8, 10, be);
			pm__st32(r + 12, 10, be);
			pm__st64(r + 16, 0x400000, be);
			pm__st64(r + 24, 0x10000, be);
			memcpy(r + 40, steps[i].str, strlen(steps[i].str) + 1);
			len = 48;
			break;
		case PM_RECORD_FORK: /* pid, ppid, tid, ptid, time */
			pm__st32(r + 8, 11, be);
			pm__st32(r + 12, 10, be);
			pm__st32(r + 16, 11, be);
			pm__st32(r + 20, 10, be);
			pm__st64(r + 24, t, be);
			len = 32;
			break;
		}
		if (steps[i].type != PM_RECORD_FINISHED_ROUND) {
			/* sample_id_all: pid, tid, time */
			tr = len;
			pm__st32(r + tr, steps[i].type == PM_RECORD_FORK ? 11 : 10, be);
			pm__st32(r + tr + 4, steps[i].type == PM_RECORD_FORK ? 11 : 10, be);
			pm__st64(r + tr + 8, t, be);
			len += 16;
		}
		pm__st16(r + 6, (uint16_t)len, be);
		ck_assert_int_eq(pm_writer_write(w, r, len), 0);
		for (int k = 0; k < 3; k++) {
			memset(r, 0, 32);
			pm__st32(r, PM_RECORD_SAMPLE, be);
			pm__st16(r + 4, PM_RECORD_MISC_USER, be);
			pm__st16(r + 6, 32, be);
			pm__st64(r + 8, 0x400100 + (uint64_t)k, be);
			pm__st32(r + 16, steps[i].spid, be);
			pm__st32(r + 20, steps[i].spid, be);
			pm__st64(r + 24, t + (uint64_t)k * 10, be);
			ck_assert_int_eq(pm_writer_write(w, r, 32), 0);
			want_dso[n] = steps[i].dso;
			want_comm[n] = steps[i].comm;
			n++;
		}
	}
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);
	return n;
}

/* Read the samples' pid, tid, ip, time and cpumode columns of @p path with
 * a reader whose pm_columns_opts.sym is @p s (NULL: none) and @p event. */
static pm_columns *read_sym_columns(pm_file *f, pm_sym *s, int event, size_t cap, int32_t *pid,
				    uint32_t *tid, uint64_t *ip, uint64_t *tm, uint8_t *mode, size_t *n)
{
	struct pm_columns_opts co = { .sz = sizeof(co), .event = event, .sym = s };
	void *bufs[10] = { tm, pid, tid, NULL, ip, NULL, NULL, NULL, NULL, mode };
	pm_columns *c = NULL;
	size_t m = 1;

	ck_assert_int_eq(pm_columns_new_from_file(&c, f, &co), 0);
	*n = 0;
	/* small batches: the reader's end comes in a later call */
	while (m) {
		ck_assert_uint_lt(*n + 7, cap);
		void *b[10];

		for (int k = 0; k < 10; k++)
			b[k] = bufs[k] ? (char *)bufs[k] + *n * (k == 9 ? 1 : (k == 0 || k == 4) ? 8 : 4) : NULL;
		ck_assert_int_eq(pm_columns_read(c, b, 10, 7, &m), 0);
		*n += m;
	}
	return c;
}

/* Both ways over @p path: the names of each row by pm_columns_resolve_rows()
 * after one read and by pm_sym_resolve_rows() over a second read must be
 * the same (columns and tables); @p when 0: by time, 1: by sample ordinal,
 * 2: without times.  With @p want_dso, the rows' dso and comm names too. */
static void check_one_read(const char *path, const struct pm_sym_opts *o, int event, int when,
			   const char **want_dso, const char **want_comm)
{
	enum { CAP = 1024 };
	static int32_t pid[CAP];
	static uint32_t tid[CAP], out[2][3][CAP];
	static uint64_t ip[CAP], tm[CAP], ord[CAP], off[2][CAP];
	static uint8_t mode[CAP];
	char *tab[2][3][64];
	int64_t cnt[2][3];
	size_t n = 0;

	for (int way = 0; way < 2; way++) {
		struct pm_sym_rows rows = { .sz = sizeof(rows), .pid = pid, .addr = ip, .cpumode = mode,
					    .tid = tid, .flags = PM_SYM_ROWS_DSO_BASENAME,
					    .sym = out[way][0], .dso = out[way][1], .symoff = off[way],
					    .comm = out[way][2] };
		pm_columns *c;
		pm_file *f = NULL, *g = NULL;
		pm_sym *s = NULL;

		ck_assert_int_eq(pm_file_open(&f, path, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, o), 0);
		c = read_sym_columns(f, way ? s : NULL, event, CAP, pid, tid, ip, tm, mode, &n);
		ck_assert_uint_gt(n, 10);
		for (size_t i = 0; i < n; i++)
			ord[i] = i; /* every sample is a row (event -1) */
		rows.n = n;
		rows.when = when == 0 ? tm : when == 1 && event < 0 ? ord : NULL;
		rows.flags |= when == 0 ? PM_SYM_WHEN_TIME : 0;
		if (way) {
			ck_assert_int_eq(pm_columns_resolve_rows(c, &rows), 0);
		} else {
			ck_assert_int_eq(pm_columns_resolve_rows(c, &rows), -EINVAL); /* no sym */
			ck_assert_int_eq(pm_file_open(&g, path, NULL), 0);
			ck_assert_int_eq(pm_sym_resolve_rows(s, g, &rows), 0);
			pm_file_close(g);
		}
		for (int t = 0; t < 3; t++) {
			cnt[way][t] = pm_sym_rows_count(s, t);
			ck_assert_int_gt(cnt[way][t], 0);
			ck_assert_int_lt(cnt[way][t], 64);
			for (int64_t k = 0; k < cnt[way][t]; k++)
				tab[way][t][k] = strdup(pm_sym_rows_string(s, t, (size_t)k));
		}
		for (size_t i = 0; want_dso && way && i < n; i++) {
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_DSO, out[way][1][i]), want_dso[i]);
			ck_assert_str_eq(pm_sym_rows_string(s, PM_SYM_TABLE_COMM, out[way][2][i]), want_comm[i]);
		}
		if (way)
			/* once per reader */
			ck_assert_int_eq(pm_columns_resolve_rows(c, &rows), -EINVAL);
		pm_columns_free(c);
		pm_sym_free(s);
		pm_file_close(f);
	}
	for (int t = 0; t < 3; t++) {
		ck_assert_int_eq(cnt[0][t], cnt[1][t]);
		for (int64_t k = 0; k < cnt[0][t]; k++) {
			ck_assert_str_eq(tab[0][t][k], tab[1][t][k]);
			free(tab[0][t][k]);
			free(tab[1][t][k]);
		}
		ck_assert_mem_eq(out[0][t], out[1][t], n * sizeof(out[0][t][0]));
	}
	ck_assert_mem_eq(off[0], off[1], n * sizeof(off[0][0]));
}

/* pm_columns_resolve_rows() (pm_columns_opts.sym: the side records kept
 * during the one read of the samples) gives exactly what
 * pm_sym_resolve_rows() gives over a second read of the file: the same
 * columns and tables, by time, by sample ordinal and without times, for
 * every sample and for one event's, on the synthetic ProfileMe recording
 * (kernel rows) and on an exec recording written here, whose names are
 * checked against its inputs; and says when it cannot. */
START_TEST(test_columns_resolve_rows)
{
	struct pm_sym_opts o = { .sz = sizeof(o), .sysroot = SYN_SYMFS, .kallsyms = SYN_SYMFS "/kallsyms" };
	static const char *want_dso[64], *want_comm[64], *end_dso[64], *end_comm[64];
	char path[] = "/tmp/pm_exec_XXXXXX";
	int fd = mkstemp(path);
	size_t n;

	for (int event = -1; event < 1; event++)
		for (int when = 0; when < 3; when++)
			check_one_read(SYN_DATA, &o, event, when, NULL, NULL);
	ck_assert_int_ge(fd, 0);
	close(fd);
	n = write_exec_file(path, want_dso, want_comm);
	for (size_t i = 0; i < n; i++) {
		/* without times: the maps and names of the end */
		bool child = i >= 6 && (i < 9 || i >= 15);

		end_dso[i] = child ? "a" : "b";
		end_comm[i] = child ? "sh" : "b";
	}
	o.sysroot = NULL;
	o.kallsyms = NULL;
	check_one_read(path, &o, -1, 0, want_dso, want_comm);
	check_one_read(path, &o, -1, 1, want_dso, want_comm);
	check_one_read(path, &o, -1, 2, end_dso, end_comm);
	unlink(path);
	/* what it cannot do */
	{
		static int32_t pid[8];
		static uint32_t tid[8], sym[8];
		static uint64_t ip[8], tm[8];
		static uint8_t mode[8];
		struct pm_sym_rows rows = { .sz = sizeof(rows), .n = 1, .pid = pid, .addr = ip, .cpumode = mode,
					    .sym = sym };
		struct pm_columns_opts co = { .sz = sizeof(co), .event = -1, .threads = 2 };
		void *bufs[10] = { tm, pid, tid, NULL, ip, NULL, NULL, NULL, NULL, mode };
		pm_columns *c = NULL;
		pm_file *f = NULL;
		pm_sym *s = NULL;
		size_t m;

		ck_assert_int_eq(pm_file_open(&f, SYN_DATA, NULL), 0);
		ck_assert_int_eq(pm_sym_new_from_file(&s, f, &o), 0);
		co.sym = s;
		ck_assert_int_eq(pm_columns_new_from_file(&c, f, &co), -EINVAL); /* threads */
		ck_assert_ptr_null(c);
		co.threads = 0;
		ck_assert_int_eq(pm_columns_new_from_file(&c, f, &co), 0);
		ck_assert_int_eq(pm_columns_read(c, bufs, 10, 5, &m), 0);
		ck_assert_uint_eq(m, 5);
		/* not at the end yet */
		ck_assert_int_eq(pm_columns_resolve_rows(c, &rows), -EINVAL);
		ck_assert_ptr_nonnull(strstr(pm_errmsg(), "end"));
		ck_assert_int_eq(pm_columns_resolve_rows(NULL, &rows), -EINVAL);
		ck_assert_int_eq(pm_columns_resolve_rows(c, NULL), -EINVAL);
		pm_columns_free(c);
		pm_sym_free(s);
		pm_file_close(f);
	}
}
END_TEST

static Suite *symbol_suite(void)
{
	Suite *s = suite_create("symbol");
	TCase *tc = tcase_create("symbol");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_shared_lib);
	tcase_add_test(tc, test_nopie_and_process_events);
	tcase_add_test(tc, test_pie);
	tcase_add_test(tc, test_stripped);
	tcase_add_test(tc, test_debuglink);
	tcase_add_test(tc, test_build_id_debug_dir);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_map_overlap);
	tcase_add_test(tc, test_kallsyms_fixture);
	tcase_add_test(tc, test_kallsyms_forms_and_order);
	tcase_add_test(tc, test_kallsyms_restricted);
	tcase_add_test(tc, test_kallsyms_real);
	tcase_add_test(tc, test_api_contract);
	tcase_add_test(tc, test_add_record_policy);
	tcase_add_test(tc, test_plt_symbols);
	tcase_add_test(tc, test_open_file_and_resolve);
	tcase_add_test(tc, test_synthetic_sidecar);
	tcase_add_test(tc, test_resolve_rows);
	tcase_add_test(tc, test_columns_resolve_rows);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(symbol_suite)

#else /* !PM_HAVE_LIBELF */

/* Built without libelf: the API exists (same ABI) and says so. */
int main(void)
{
	pm_sym *s = NULL;
	int rc = pm_sym_new(&s, NULL);

	if (rc != -PM_ERR_UNSUPPORTED || s != NULL) {
		printf("FAIL: pm_sym_new without libelf returned %d, want %d\n", rc,
		       -PM_ERR_UNSUPPORTED);
		return EXIT_FAILURE;
	}
	pm_sym_free(NULL);
	printf("SKIPPED unit.symbol: libprofileme built without libelf "
	       "(pm_sym_* return -PM_ERR_UNSUPPORTED)\n");
	return 77;
}

#endif /* PM_HAVE_LIBELF */
