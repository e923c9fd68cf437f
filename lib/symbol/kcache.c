/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The kernel symbol cache: a binary copy of the parts of /proc/kallsyms that
 * cannot change while they are used (docs/symbol.md, "Kernel symbol cache",
 * has the argument; this comment is its short form).
 *
 * What is cached: the core kernel's text symbols inside the image's text
 * (_text/_stext to _etext/_einittext, as kallsyms lists them), and the text symbols of each
 * module that /proc/modules listed as Live, with the same size and a non-zero
 * load address, before and after the read that made the cache.  Each such
 * group ("region") is kept only when its symbols form one run in the table:
 * no symbol of anything else (another module, a BPF program, an ftrace or
 * kprobe trampoline) starts between its first and its last symbol.
 *
 * What is trusted, later: [first, last) of each region, the start of its first
 * symbol up to the start of its last, when the key still matches:
 *   - the boot (/proc/sys/kernel/random/boot_id): the core kernel's table is
 *     fixed for one boot;
 *   - what this reader is shown: the first lines of /proc/kallsyms, up to the
 *     first non-zero address, read now and compared byte for byte (they are
 *     zeros when kptr_restrict or the reader's privileges hide addresses, and
 *     their addresses move with KASLR);
 *   - for a module: its /proc/modules line now (Live, name, size, address).
 * Inside [first, last) of a region only that region's own symbols can start:
 * the core kernel's text, or a loaded module's text, is memory that nothing
 * else (no BPF program, no trampoline, no other module) can be placed in
 * while that kernel runs or that module stays loaded.  So a fresh read gives
 * the same symbol at an address there, with the same start and size (the size
 * runs to the next symbol, which is the region's own).  The last symbol's size
 * depends on what follows it (a later BPF program may start within its page),
 * and addresses outside every region may be dynamic entries: those, and
 * pm_sym_find(), use a fresh read (symbol.c, kernel_view()).
 *
 * The file format (little-endian; every field checked by pm__kcache_parse()):
 *   header, 64 bytes: magic "PMKSYMC\n", u32 version (1), u32 header size
 *   (64), u64 file size, u64 checksum (of the whole file with this field
 *   zero), u32 symbols, u32 regions, u32 string bytes, u32 head bytes, u32
 *   boot id bytes, u32 zero, u64 zero;
 *   then the boot id, the head (the first lines of kallsyms), the regions
 *   (48 bytes: u64 first, last, module address, module size; u32 name offset,
 *   first symbol, end symbol, kind 0 core / 1 module), the symbols (24 bytes:
 *   u64 start, size; u32 name offset, module-name offset) and the strings
 *   (NUL-terminated).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/sym_internal.h"

#define KC_MAGIC "PMKSYMC\n"
#define KC_HDR 64u
#define KC_GROUP 48u
#define KC_SYM 24u
#define KC_MAX_SYMS (1u << 24)
#define KC_MAX_GROUPS (1u << 16)
#define KC_MAX_HEAD (1u << 16)
#define KC_MAX_STR (1u << 30)
#define KC_FILE "kallsyms.cache"

static const char core_name[] = "[kernel.kallsyms]";

/* ---- checksum: 64-bit words, multiply and rotate (integrity, not security) ---- */

struct kc_sum {
	uint64_t h;
	uint8_t tail[8];
	size_t ntail, len;
};

static void sum_word(struct kc_sum *c, uint64_t w)
{
	uint64_t h = c->h ^ w;

	h = (h << 31 | h >> 33) * 0x9E3779B97F4A7C15ULL;
	c->h = h ^ (h >> 29);
}

static void sum_add(struct kc_sum *c, const uint8_t *p, size_t n)
{
	c->len += n;
	while (n && c->ntail) {
		c->tail[c->ntail++] = *p++;
		n--;
		if (c->ntail == 8) {
			sum_word(c, pm__ld64(c->tail, false));
			c->ntail = 0;
		}
	}
	for (; n >= 8; p += 8, n -= 8)
		sum_word(c, pm__ld64(p, false));
	while (n--)
		c->tail[c->ntail++] = *p++;
}

static uint64_t sum_end(struct kc_sum *c)
{
	if (c->ntail) {
		memset(c->tail + c->ntail, 0, 8 - c->ntail);
		sum_word(c, pm__ld64(c->tail, false));
	}
	sum_word(c, (uint64_t)c->len);
	return c->h;
}

/* The checksum of a file image (its checksum field taken as zero). */
uint64_t pm__kcache_checksum(const uint8_t *p, size_t n)
{
	struct kc_sum c = { .h = 0x6b63616368650001ULL };
	uint8_t hdr[KC_HDR];

	if (n < KC_HDR) {
		sum_add(&c, p, n);
		return sum_end(&c);
	}
	memcpy(hdr, p, KC_HDR);
	memset(hdr + 24, 0, 8);
	sum_add(&c, hdr, KC_HDR);
	sum_add(&c, p + KC_HDR, n - KC_HDR);
	return sum_end(&c);
}

/* ---- parse ---- */

void pm__kcache_free(struct pm__kcache *kc)
{
	pm__symtab_free(&kc->tab);
	free(kc->g);
	free(kc->head);
	memset(kc, 0, sizeof(*kc));
}

static int bad(char *why, size_t cap, const char *fmt, ...) PM_PRINTF(3, 4);
static int bad(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (why && cap) {
		va_start(ap, fmt);
		vsnprintf(why, cap, fmt, ap);
		va_end(ap);
	}
	return -PM_ERR_FORMAT;
}

/* A hexadecimal address at the start of the line [p, end), 0 if none. */
static uint64_t line_addr(const char *p, const char *end)
{
	uint64_t v = 0;
	int nd = 0;

	for (; p < end && nd < 16; p++, nd++) {
		char ch = *p;

		if (ch >= '0' && ch <= '9')
			v = v << 4 | (uint64_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v = v << 4 | (uint64_t)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v = v << 4 | (uint64_t)(ch - 'A' + 10);
		else
			break;
	}
	return v;
}

/* Is [p, p+n) a head: lines, the last one (only) with a non-zero address? */
static bool head_ok(const char *p, size_t n)
{
	const char *last;

	if (n == 0 || p[n - 1] != '\n' || memchr(p, '\0', n))
		return false;
	last = p + n - 1;
	while (last > p && last[-1] != '\n')
		last--;
	return line_addr(last, p + n) != 0;
}

int pm__kcache_parse(const uint8_t *p, size_t n, struct pm__kcache *kc, char *why, size_t whylen)
{
	uint32_t version, hlen, nsyms, ngroups, slen, headlen, bootlen;
	uint64_t flen, sum, need;
	const uint8_t *q;
	char *str;
	int rc;

	memset(kc, 0, sizeof(*kc));
	if (n < KC_HDR)
		return bad(why, whylen, "%zu bytes, shorter than the %u-byte header", n, KC_HDR);
	if (memcmp(p, KC_MAGIC, 8) != 0)
		return bad(why, whylen, "not a kernel symbol cache (magic)");
	version = pm__ld32(p + 8, false);
	hlen = pm__ld32(p + 12, false);
	flen = pm__ld64(p + 16, false);
	sum = pm__ld64(p + 24, false);
	nsyms = pm__ld32(p + 32, false);
	ngroups = pm__ld32(p + 36, false);
	slen = pm__ld32(p + 40, false);
	headlen = pm__ld32(p + 44, false);
	bootlen = pm__ld32(p + 48, false);
	if (version != PM__KCACHE_VERSION)
		return bad(why, whylen, "version %" PRIu32 ", this library reads %d", version,
			   PM__KCACHE_VERSION);
	if (hlen != KC_HDR || pm__ld32(p + 52, false) || pm__ld64(p + 56, false))
		return bad(why, whylen, "bad header (size %" PRIu32 " or reserved fields)", hlen);
	if (flen != n)
		return bad(why, whylen, "says %" PRIu64 " bytes, is %zu (truncated or extended)", flen, n);
	if (nsyms == 0 || nsyms > KC_MAX_SYMS || ngroups == 0 || ngroups > KC_MAX_GROUPS ||
	    slen == 0 || slen > KC_MAX_STR || headlen == 0 || headlen > KC_MAX_HEAD || bootlen == 0 ||
	    bootlen > sizeof(kc->boot_id))
		return bad(why, whylen, "a count out of range");
	need = (uint64_t)KC_HDR + bootlen + headlen + (uint64_t)ngroups * KC_GROUP +
	       (uint64_t)nsyms * KC_SYM + slen;
	if (need != flen)
		return bad(why, whylen, "the counts add up to %" PRIu64 " bytes, the file has %" PRIu64,
			   need, flen);
	if (pm__kcache_checksum(p, n) != sum)
		return bad(why, whylen, "checksum mismatch (damaged)");

	q = p + KC_HDR;
	memcpy(kc->boot_id, q, bootlen);
	kc->boot_id_len = bootlen;
	q += bootlen;
	if (!head_ok((const char *)q, headlen))
		return bad(why, whylen, "the kallsyms head does not end in a non-zero address");
	kc->head = malloc(headlen);
	kc->g = pm__calloc(ngroups, sizeof(*kc->g));
	kc->tab.v = pm__calloc(nsyms, sizeof(*kc->tab.v));
	str = malloc(slen);
	if (!kc->head || !kc->g || !kc->tab.v || !str) {
		free(str);
		pm__kcache_free(kc);
		return -ENOMEM;
	}
	memcpy(kc->head, q, headlen);
	kc->head_len = headlen;
	q += headlen;
	for (uint32_t i = 0; i < ngroups; i++, q += KC_GROUP) {
		struct pm__kgroup *g = &kc->g[i];

		g->first = pm__ld64(q, false);
		g->last = pm__ld64(q + 8, false);
		g->maddr = pm__ld64(q + 16, false);
		g->msize = pm__ld64(q + 24, false);
		g->mod = pm__ld32(q + 32, false);
		g->lo = pm__ld32(q + 36, false);
		g->hi = pm__ld32(q + 40, false);
		g->kind = pm__ld32(q + 44, false);
	}
	for (uint32_t i = 0; i < nsyms; i++, q += KC_SYM) {
		struct pm__sym *v = &kc->tab.v[i];

		v->start = pm__ld64(q, false);
		v->size = pm__ld64(q + 8, false);
		v->name = pm__ld32(q + 16, false);
		v->mod = pm__ld32(q + 20, false);
	}
	memcpy(str, q, slen);
	kc->tab.str.data = str;
	kc->tab.str.len = kc->tab.str.cap = slen;
	kc->tab.n = nsyms;
	kc->ng = ngroups;
	rc = -PM_ERR_FORMAT;
	if (str[slen - 1] != '\0') {
		bad(why, whylen, "the strings do not end in NUL");
		goto fail;
	}
	/* symbols: sorted, disjoint, names inside the strings */
	for (uint32_t i = 0; i < nsyms; i++) {
		const struct pm__sym *v = &kc->tab.v[i];

		if (v->size == 0 || v->start + v->size < v->start || v->name >= slen || v->mod >= slen ||
		    (i + 1 < nsyms && (v->start >= v[1].start || v->start + v->size > v[1].start))) {
			bad(why, whylen, "symbol %" PRIu32 " is out of order, empty, overlapping or named "
				    "outside the strings", i);
			goto fail;
		}
	}
	/* regions: one core, in order, covering the symbols, each of one module name */
	{
		uint32_t ncore = 0, at = 0;

		for (uint32_t i = 0; i < ngroups; i++) {
			const struct pm__kgroup *g = &kc->g[i];
			const char *m = g->mod < slen ? str + g->mod : NULL;
			size_t ml = m ? strlen(m) : 0;

			if (!m || g->lo != at || g->hi <= g->lo || g->hi > nsyms || g->kind > 1 ||
			    g->first != kc->tab.v[g->lo].start || g->last != kc->tab.v[g->hi - 1].start) {
				bad(why, whylen, "region %" PRIu32 " does not match its symbols", i);
				goto fail;
			}
			if (g->kind == 0 ? (strcmp(m, core_name) != 0 || g->maddr || g->msize)
					 : (ml < 3 || m[0] != '[' || m[ml - 1] != ']' || strcmp(m, core_name) == 0 ||
					    g->msize == 0 || g->maddr + g->msize < g->maddr || g->first < g->maddr ||
					    g->last >= g->maddr + g->msize)) {
				bad(why, whylen, "region %" PRIu32 " has a bad name or module range", i);
				goto fail;
			}
			ncore += g->kind == 0;
			for (uint32_t j = g->lo; j < g->hi; j++)
				if (kc->tab.v[j].mod != g->mod) {
					bad(why, whylen, "symbol %" PRIu32 " is not of its region's module", j);
					goto fail;
				}
			at = g->hi;
		}
		if (at != nsyms || ncore != 1) {
			bad(why, whylen, "%" PRIu32 " core regions, symbols %" PRIu32 " of %" PRIu32
				    " in regions", ncore, at, nsyms);
			goto fail;
		}
	}
	kc->tab.lo = kc->tab.v[0].start;
	kc->tab.hi = kc->tab.v[nsyms - 1].start + kc->tab.v[nsyms - 1].size;
	return 0;
fail:
	pm__kcache_free(kc);
	return rc;
}

/* ---- encode ---- */

static int put(struct pm__buf *b, const void *p, size_t n)
{
	return pm__buf_append(b, p, n);
}

static int put32(struct pm__buf *b, uint32_t v)
{
	uint8_t x[4];

	pm__st32(x, v, false);
	return put(b, x, 4);
}

static int put64(struct pm__buf *b, uint64_t v)
{
	uint8_t x[8];

	pm__st64(x, v, false);
	return put(b, x, 8);
}

int pm__kcache_encode(const struct pm__symtab *t, const struct pm__kgroup *g, size_t ng,
		      const char *boot_id, size_t boot_len, const char *head, size_t head_len,
		      struct pm__buf *out)
{
	struct pm__buf str = {0};
	uint32_t nsyms = 0, *goff = NULL;
	int rc = -ENOMEM;

	out->len = 0;
	if (!ng || ng > KC_MAX_GROUPS || !boot_len || boot_len > 64 || !head_len ||
	    head_len > KC_MAX_HEAD)
		return -EINVAL;
	goff = pm__calloc(ng, sizeof(*goff));
	if (!goff)
		return -ENOMEM;
	/* strings: region names first, then symbol names in order */
	for (size_t i = 0; i < ng; i++) {
		const char *m = pm__symtab_str(t, g[i].mod);

		goff[i] = (uint32_t)str.len;
		if (put(&str, m, strlen(m) + 1))
			goto out;
		nsyms += g[i].hi - g[i].lo;
	}
	if (nsyms == 0 || nsyms > KC_MAX_SYMS)
		goto inval;
	if (put(out, KC_MAGIC, 8) || put32(out, PM__KCACHE_VERSION) || put32(out, KC_HDR) ||
	    put64(out, 0) || put64(out, 0) || put32(out, nsyms) || put32(out, (uint32_t)ng) ||
	    put32(out, 0) || put32(out, (uint32_t)head_len) || put32(out, (uint32_t)boot_len) ||
	    put32(out, 0) || put64(out, 0) || put(out, boot_id, boot_len) || put(out, head, head_len))
		goto out;
	{
		uint32_t at = 0;

		for (size_t i = 0; i < ng; i++) {
			uint32_t cnt = g[i].hi - g[i].lo;

			if (put64(out, g[i].first) || put64(out, g[i].last) || put64(out, g[i].maddr) ||
			    put64(out, g[i].msize) || put32(out, goff[i]) || put32(out, at) ||
			    put32(out, at + cnt) || put32(out, g[i].kind))
				goto out;
			at += cnt;
		}
	}
	for (size_t i = 0; i < ng; i++)
		for (uint32_t j = g[i].lo; j < g[i].hi; j++) {
			const struct pm__sym *v = &t->v[j];
			const char *name = pm__symtab_str(t, v->name);
			uint32_t noff = (uint32_t)str.len;

			if (str.len + strlen(name) + 1 > KC_MAX_STR)
				goto inval;
			if (put(&str, name, strlen(name) + 1) || put64(out, v->start) ||
			    put64(out, v->size) || put32(out, noff) || put32(out, goff[i]))
				goto out;
		}
	if (put(out, str.data, str.len))
		goto out;
	pm__st32(out->data + 40, (uint32_t)str.len, false);
	pm__st64(out->data + 16, (uint64_t)out->len, false);
	pm__st64(out->data + 24, pm__kcache_checksum((const uint8_t *)out->data, out->len), false);
	rc = 0;
	goto out;
inval:
	rc = -EINVAL;
out:
	free(goff);
	pm__buf_free(&str);
	return rc;
}

/* ---- the files it is checked against ---- */

/* Up to cap bytes of a small file; the count or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t have = 0;

	if (fd < 0)
		return -errno;
	while (have < cap) {
		ssize_t n = read(fd, buf + have, cap - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	return (ssize_t)have;
}

int pm__kcache_boot_id(const char *path, char *buf, size_t cap)
{
	ssize_t n = read_small(path, buf, cap);

	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (n == 0 || (size_t)n >= cap || memchr(buf, '\0', (size_t)n))
		return -PM_ERR_FORMAT; /* empty, too long for a boot id, or binary */
	return (int)n;
}

void pm__kmods_free(struct pm__kmods *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* /proc/modules: "name size refs deps state address [taints]" per line.  A
 * missing file (a kernel without modules) is an empty list; a line that does
 * not read so makes the list unusable (ok false: no module is trusted). */
int pm__kmods_read(const char *path, struct pm__kmods *m)
{
	FILE *f;
	char line[4096];

	memset(m, 0, sizeof(*m));
	f = fopen(path, "re");
	if (!f) {
		m->ok = errno == ENOENT;
		return m->ok ? 0 : -errno;
	}
	m->ok = true;
	while (fgets(line, sizeof(line), f)) {
		struct pm__kmod x = {0};
		char state[16];
		unsigned long long size, addr;
		int pos = 0;

		if (!strchr(line, '\n') && !feof(f)) {
			m->ok = false; /* a line longer than any module line */
			break;
		}
		if (sscanf(line, "%63s %llu %*s %*s %15s 0x%llx%n", x.name, &size, state, &addr, &pos) != 4 ||
		    pos == 0) {
			m->ok = false;
			break;
		}
		x.size = size;
		x.addr = addr;
		x.live = strcmp(state, "Live") == 0;
		if (m->n == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 64;
			struct pm__kmod *v = pm__reallocarray(m->v, cap, sizeof(*v));

			if (!v) {
				fclose(f);
				pm__kmods_free(m);
				return -ENOMEM;
			}
			m->v = v;
			m->cap = cap;
		}
		m->v[m->n++] = x;
	}
	if (ferror(f))
		m->ok = false;
	fclose(f);
	return 0;
}

/* The module "[name]" (bracketed, as kallsyms tags it) in m, or NULL. */
static const struct pm__kmod *kmod_find(const struct pm__kmods *m, const char *tag)
{
	size_t tl = strlen(tag);

	if (!m->ok || tl < 3 || tag[0] != '[' || tag[tl - 1] != ']')
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->v[i].name) == tl - 2 && memcmp(m->v[i].name, tag + 1, tl - 2) == 0)
			return &m->v[i];
	return NULL;
}

/* A module whose symbols may be cached and trusted: Live, its address shown,
 * the same in both lists, and not a name kallsyms uses for dynamic entries. */
static const struct pm__kmod *kmod_usable(const struct pm__kmods *a, const struct pm__kmods *b,
					  const char *tag)
{
	const struct pm__kmod *x = kmod_find(a, tag), *y = b ? kmod_find(b, tag) : x;

	if (!x || !y || !x->live || !y->live || x->addr == 0 || x->size == 0 ||
	    x->addr + x->size < x->addr || x->addr != y->addr || x->size != y->size)
		return NULL;
	if (strcmp(tag, "[bpf]") == 0 || strncmp(tag, "[__builtin__", 12) == 0)
		return NULL;
	return x;
}

/* The run key of symbol i: its module's name, or "" (never cached) for a
 * core symbol outside the kernel image's text [img->lo, img->hi]. */
static const char *run_key(const struct pm__symtab *t, size_t i, const struct pm__krange *img)
{
	const char *m = pm__symtab_str(t, t->v[i].mod);

	if (strcmp(m, core_name) == 0 && (t->v[i].start < img->lo || t->v[i].start > img->hi))
		return "";
	return m;
}

size_t pm__kmods_usable(const struct pm__kmods *m)
{
	size_t n = 0;

	for (size_t i = 0; m->ok && i < m->n; i++) {
		char tag[sizeof(m->v[i].name) + 2];

		snprintf(tag, sizeof(tag), "[%s]", m->v[i].name);
		n += kmod_usable(m, NULL, tag) != NULL;
	}
	return n;
}

int pm__kcache_regions(const struct pm__symtab *t, const struct pm__krange *img,
		       const struct pm__kmods *before, const struct pm__kmods *after,
		       struct pm__kgroup **out, size_t *nout)
{
	struct pm__kgroup *g = NULL;
	size_t ng = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	/* runs of one module name, in address order */
	for (size_t i = 0; i < t->n;) {
		const char *m = run_key(t, i, img);
		size_t j = i + 1;

		while (j < t->n && strcmp(run_key(t, j, img), m) == 0)
			j++;
		if (ng == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct pm__kgroup *v = pm__reallocarray(g, nc, sizeof(*v));

			if (!v) {
				free(g);
				return -ENOMEM;
			}
			g = v;
			cap = nc;
		}
		g[ng] = (struct pm__kgroup){ .first = t->v[i].start, .last = t->v[j - 1].start,
					     .mod = t->v[i].mod, .lo = (uint32_t)i, .hi = (uint32_t)j };
		ng++;
		i = j;
	}
	/* keep the core (one run) and the usable modules (one run each, inside
	 * their module's range) */
	{
		size_t k = 0;

		for (size_t i = 0; i < ng; i++) {
			const char *m = run_key(t, g[i].lo, img);
			bool once = true, keep = false;

			for (size_t j = 0; j < ng && once; j++)
				if (j != i && strcmp(run_key(t, g[j].lo, img), m) == 0)
					once = false;
			if (!once || !*m)
				continue;
			if (strcmp(m, core_name) == 0) {
				g[i].kind = 0;
				keep = true;
			} else {
				const struct pm__kmod *x = kmod_usable(before, after, m);

				if (x && g[i].first >= x->addr && g[i].last < x->addr + x->size &&
				    t->v[g[i].hi - 1].start - x->addr < x->size) {
					g[i].kind = 1;
					g[i].maddr = x->addr;
					g[i].msize = x->size;
					keep = true;
				}
			}
			if (keep)
				g[k++] = g[i];
		}
		ng = k;
	}
	{
		size_t ncore = 0;

		for (size_t i = 0; i < ng; i++)
			ncore += g[i].kind == 0;
		if (ncore != 1) {
			free(g);
			return 0; /* no core kernel run: nothing worth caching */
		}
	}
	*out = g;
	*nout = ng;
	return 0;
}

int pm__kcache_trust(const struct pm__kcache *kc, const struct pm__kmods *now,
		     struct pm__krange **out, size_t *nout)
{
	struct pm__krange *r = pm__calloc(kc->ng, sizeof(*r));
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < kc->ng; i++) {
		const struct pm__kgroup *g = &kc->g[i];

		if (g->kind == 1) {
			const struct pm__kmod *x =
				kmod_usable(now, NULL, pm__symtab_str(&kc->tab, g->mod));

			if (!x || x->addr != g->maddr || x->size != g->msize)
				continue; /* unloaded, reloaded, or not shown: a fresh read answers */
		}
		if (g->first < g->last) {
			r[n].lo = g->first;
			r[n].hi = g->last;
			n++;
		}
	}
	*out = r;
	*nout = n;
	return 0;
}

bool pm__krange_has(const struct pm__krange *r, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].lo <= addr;
}

/* ---- the cache directory ---- */

char *pm__kcache_default_dir(void)
{
	const char *env = getenv("PROFILEME_CACHE_DIR"), *xdg, *home;
	struct pm__buf b = {0};

	if (env)
		return *env ? pm__strndup(env, strlen(env)) : NULL;
	xdg = getenv("XDG_CACHE_HOME");
	home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		pm__buf_printf(&b, "%s/profileme", xdg);
	else if (home && home[0] == '/')
		pm__buf_printf(&b, "%s/.cache/profileme", home);
	return b.data;
}

/* mkdir -p, each new directory 0700. */
static int mkdirs(const char *dir)
{
	char *p = pm__strndup(dir, strlen(dir));
	int rc = 0;

	if (!p)
		return -ENOMEM;
	for (char *c = p + 1;; c++) {
		if (*c == '/' || *c == '\0') {
			char save = *c;

			*c = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST) {
				rc = -errno;
				break;
			}
			*c = save;
			if (!save)
				break;
		}
	}
	free(p);
	return rc;
}

static char *cache_path(const char *dir)
{
	struct pm__buf b = {0};

	if (pm__buf_printf(&b, "%s/" KC_FILE, dir) != 0) {
		pm__buf_free(&b);
		return NULL;
	}
	return b.data;
}

int pm__kcache_read(const char *dir, uint8_t **out, size_t *len)
{
	char *path = cache_path(dir);
	struct stat st;
	uint8_t *buf = NULL;
	size_t have = 0;
	int fd, rc = 0;

	*out = NULL;
	*len = 0;
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return -errno;
	/* someone else's file, or one others may write, is not believed */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size < (off_t)KC_HDR ||
	    (uint64_t)st.st_size > (uint64_t)KC_MAX_STR * 3) {
		rc = -EPERM;
		goto out;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (have < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + have, (size_t)st.st_size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -PM_ERR_TRUNCATED;
			goto out;
		}
		have += (size_t)n;
	}
	*out = buf;
	*len = have;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}

int pm__kcache_write(const char *dir, const void *p, size_t n)
{
	struct pm__buf tmp = {0};
	char *path = NULL;
	size_t done = 0;
	int fd = -1, rc;

	rc = mkdirs(dir);
	if (rc)
		return rc;
	path = cache_path(dir);
	if (!path || pm__buf_printf(&tmp, "%s.XXXXXX", path) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp.data); /* 0600 */
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	while (done < n) {
		ssize_t w = write(fd, (const char *)p + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			goto out;
		}
		done += (size_t)w;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = -errno;
		goto out;
	}
	fd = -1;
	if (rename(tmp.data, path) != 0)
		rc = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp.data)
		unlink(tmp.data);
	pm__buf_free(&tmp);
	free(path);
	return rc;
}

/* Do the first head_len bytes of kallsyms read now equal head? */
bool pm__kcache_head_matches(const char *kallsyms, const char *head, size_t head_len)
{
	char *buf = malloc(head_len + 1);
	ssize_t n;
	bool ok;

	if (!buf)
		return false;
	n = read_small(kallsyms, buf, head_len);
	ok = n == (ssize_t)head_len && memcmp(buf, head, head_len) == 0;
	free(buf);
	return ok;
}
