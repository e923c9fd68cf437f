/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the symbolizer's file readers, through the public API
 * (lib/symbol: the ELF loader's sections, segments, .symtab/.dynsym,
 * .rela.plt (name@plt), build-id notes, .gnu_debuglink, compressed debug
 * sections and line tables; the kallsyms parser).
 *
 * Input: byte 0 = flags: bit 0 kallsyms text (else an ELF image), bit 1
 * (ELF) map the file at 0x7f0000000000 as a shared object would be (else at
 * 0x400000, where an ET_EXEC has its code), bit 2 a second, overlapping
 * map of the same file at a page offset; the rest is the file, written to
 * a memfd (no disk) that the symbolizer opens by its /proc/self/fd path.
 * Separate debug files are not looked for (PM_SYM_OPT_NO_DEBUG_FILES), so
 * nothing outside the input is read.
 *
 * Looked up: for every 8-aligned u64 of the file (symbol values, entry
 * points, section addresses are among them) and every hexadecimal address
 * at the start of a kallsyms line, that address and the one after it, as a
 * file address and as a run-time address of the map; plus a stride over
 * the map.  Checked for every lookup, with one pm_sym_result for all:
 *   - it succeeds, with a NUL-terminated name and module;
 *   - a symbol found: offset = dso_addr - sym_start, inside the symbol when
 *     it is sized (docs/symbol.md: sized symbols cover exactly their size);
 *     pm_sym_find() finds it back by module and name with that start;
 *   - the same lookup again (from the cache) gives the same answer;
 *   - pm_sym_lookup_line() returns 0 or 1 and a readable file name;
 * and every diagnostic can be read.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include <profileme/common.h>
#include <profileme/symbol.h>

#include "fuzz_common.h"

#define FS_PID 4242
#define FS_MAX_LOOKUPS 8192

static void check_str(const char *s)
{
	PM_FUZZ_ASSERT(s != NULL);
	volatile size_t n = strlen(s); /* ASan: the string ends inside its block */
	(void)n;
}

struct fs_ctx {
	pm_sym *s;
	uint32_t how;
	unsigned lookups;
	struct pm_sym_result r, again;
	struct pm_sym_def def;
	struct pm_sym_line line;
};

static void lookup(struct fs_ctx *c, uint64_t addr)
{
	int rc, n;
	bool found = false;

	if (c->lookups >= FS_MAX_LOOKUPS)
		return;
	c->lookups++;
	PM_FUZZ_ASSERT(c->r.sz == sizeof(c->r));
	rc = pm_sym_lookup(c->s, FS_PID, addr, c->how, &c->r);
	PM_FUZZ_ASSERT(rc == 0);
	check_str(c->r.name);
	check_str(c->r.dso);
	if (!(c->r.flags & PM_SYM_UNKNOWN)) {
		PM_FUZZ_ASSERT(c->r.dso_addr - c->r.sym_start == c->r.offset);
		if (c->r.sym_size)
			PM_FUZZ_ASSERT(c->r.offset < c->r.sym_size);
		n = pm_sym_find(c->s, c->r.dso, c->r.name, 0, NULL);
		PM_FUZZ_ASSERT(n >= 1);
		for (int i = 0; i < n && i < 64 && !found; i++) {
			PM_FUZZ_ASSERT(pm_sym_find(c->s, c->r.dso, c->r.name, (size_t)i, &c->def) == n);
			check_str(c->def.name);
			check_str(c->def.dso);
			PM_FUZZ_ASSERT(strcmp(c->def.name, c->r.name) == 0);
			found = c->def.start == c->r.sym_start;
		}
		PM_FUZZ_ASSERT(found || n > 64);
	} else {
		PM_FUZZ_ASSERT(c->r.offset == 0 && c->r.sym_start == 0 && c->r.sym_size == 0);
	}
	/* again: the loaded file is searched, not read */
	rc = pm_sym_lookup(c->s, FS_PID, addr, c->how, &c->again);
	PM_FUZZ_ASSERT(rc == 0);
	PM_FUZZ_ASSERT(strcmp(c->again.name, c->r.name) == 0 &&
		       strcmp(c->again.dso, c->r.dso) == 0 && c->again.offset == c->r.offset &&
		       c->again.sym_start == c->r.sym_start && c->again.sym_size == c->r.sym_size &&
		       c->again.dso_addr == c->r.dso_addr && c->again.flags == c->r.flags);
	rc = pm_sym_lookup_line(c->s, FS_PID, addr, c->how, &c->line);
	PM_FUZZ_ASSERT(rc == 0 || rc == 1);
	PM_FUZZ_ASSERT(c->line.sz == sizeof(c->line));
	if (c->line.file)
		check_str(c->line.file);
	if (rc == 0)
		PM_FUZZ_ASSERT(c->line.file == NULL && c->line.line == 0);
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_sym_opts o = { .sz = sizeof(o), .flags = PM_SYM_OPT_NO_DEBUG_FILES };
	struct fs_ctx c;
	char path[64];
	unsigned flags;
	int fd, rc;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	fd = memfd_create("fuzz_sym", MFD_CLOEXEC);
	if (fd < 0)
		return 0; /* no memfd here (qemu-user): nothing to test */
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	memset(&c, 0, sizeof(c));
	c.r.sz = sizeof(c.r);
	c.again.sz = sizeof(c.again);
	c.def.sz = sizeof(c.def);
	c.line.sz = sizeof(c.line);
	if (flags & 1)
		o.kallsyms = path;
	else
		o.flags |= PM_SYM_OPT_NO_KERNEL;
	rc = pm_sym_new(&c.s, &o);
	if (rc == -PM_ERR_UNSUPPORTED) { /* built without libelf */
		close(fd);
		return 0;
	}
	PM_FUZZ_ASSERT(rc == 0);

	if (flags & 1) {
		/* kallsyms: the address of every line, and the one after it */
		c.how = PM_SYM_LOOKUP_KERNEL;
		for (size_t i = 0; i < size; i++) {
			uint64_t v = 0;
			size_t j = i, digits = 0;

			while (j < size && digits < 16) {
				uint8_t ch = data[j];
				int d = ch >= '0' && ch <= '9' ? ch - '0'
					: ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
					: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
				if (d < 0)
					break;
				v = v << 4 | (uint64_t)d;
				j++;
				digits++;
			}
			if (digits) {
				lookup(&c, v);
				lookup(&c, v + 1);
			}
			while (j < size && data[j] != '\n')
				j++;
			i = j;
		}
		(void)pm_sym_kernel_status(c.s);
	} else {
		uint64_t start = flags & 2 ? 0x7f0000000000ULL : 0x400000ULL, len = 1ULL << 24;

		c.how = PM_SYM_LOOKUP_USER;
		PM_FUZZ_ASSERT(pm_sym_add_map(c.s, FS_PID, start, len, 0, path) == 0);
		if (flags & 4)
			PM_FUZZ_ASSERT(pm_sym_add_map(c.s, FS_PID, start + len / 2, 4096 * 4, 4096,
						      path) == 0);
		for (size_t i = 0; i + 8 <= size && i < 65536; i += 8) {
			uint64_t v = ld64(data + i);

			if (v - start < len) {
				lookup(&c, v);
				lookup(&c, v + 1);
			} else if (v < len) {
				lookup(&c, start + v);
				lookup(&c, start + v + 1);
			}
		}
		for (uint64_t a = start; a < start + 65536; a += 509)
			lookup(&c, a);
		(void)pm_sym_preload(c.s);
	}
	rc = pm_sym_diag_count(c.s);
	PM_FUZZ_ASSERT(rc >= 0);
	for (int i = 0; i < rc; i++) {
		struct pm_sym_diag d;

		memset(&d, 0, sizeof(d));
		d.sz = sizeof(d);
		PM_FUZZ_ASSERT(pm_sym_diag_get(c.s, (size_t)i, &d) == 0);
		check_str(d.file);
		check_str(d.message);
		PM_FUZZ_ASSERT(d.err <= 0);
	}
	pm_sym_free(c.s);
	close(fd);
	return 0;
}
