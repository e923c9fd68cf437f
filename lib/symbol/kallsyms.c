/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Kernel symbols from /proc/kallsyms (or a copy of it). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbol/sym_internal.h"

/* Lines read "ADDRESS TYPE NAME" with an optional "\t[MODULE]".  Text
 * symbols (t, T, w, W) are kept; a module's symbols get "[MODULE]" as their
 * dso, the core kernel's "[kernel.kallsyms]". */
/* A hexadecimal number at @p p (at most 16 digits); its end in *end (== p: none). */
static uint64_t parse_hex(const char *p, const char **end)
{
	uint64_t v = 0;
	int nd = 0;

	for (;; p++, nd++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (nd == 16) {
			*end = NULL; /* out of range */
			return 0;
		}
		v = v << 4 | d;
	}
	*end = p;
	return v;
}

/* Record the load's diagnostic (one at most) for pm__kallsyms_install(). */
static void kdiag(struct pm__kload *L, int code, int err, const char *fmt, ...) PM_PRINTF(4, 5);
static void kdiag(struct pm__kload *L, int code, int err, const char *fmt, ...)
{
	va_list ap;

	L->diag_code = code;
	L->diag_err = err;
	va_start(ap, fmt);
	vsnprintf(L->diag, sizeof(L->diag), fmt, ap);
	va_end(ap);
}

/* What kallsyms_read() has gathered so far. */
struct kparse {
	struct pm__symtab *t;
	struct pm__rawvec rv;
	size_t ntext, nzero, lineno;
	uint32_t kmod, lastmod;
	char lastmodname[128];
	/* the cache's head: the lines up to the first non-zero address */
	bool want_head, head_done;
	struct pm__buf head;
	/* the kernel image's text, from the core lines _text/_stext (start) and
	 * _etext/_einittext (end): only core symbols inside it are cached */
	struct pm__krange img;
	bool img_lo, img_hi;
};

/* Keep the raw line [line, nl] (nl: its newline) in the head until one
 * has a non-zero address. */
static int head_line(struct kparse *k, const char *line, const char *nl)
{
	const char *end;

	if (!k->want_head || k->head_done)
		return 0;
	if (k->head.len + (size_t)(nl + 1 - line) > (64u << 10)) {
		k->want_head = false; /* no such line near the start: no cache */
		return 0;
	}
	if (pm__buf_append(&k->head, line, (size_t)(nl + 1 - line)))
		return -ENOMEM;
	if (parse_hex(line, &end) != 0 && end && end != line)
		k->head_done = true;
	return 0;
}

/* One line (NUL-terminated in place, without its newline); 0 or -ENOMEM. */
static int kallsyms_line(struct kparse *k, char *line)
{
	struct pm__rawsym r = {0};
	char *name, *mod;
	const char *end;
	uint64_t addr;
	char type;
	int rc;

	k->lineno++;
	addr = parse_hex(line, &end);
	if (!end || end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return 0; /* not a symbol line: ignore, kallsyms has no other kind */
	type = end[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = (char *)end + 3;
	mod = strchr(name, '\t');
	if (mod)
		*mod++ = '\0';
	if (!*name)
		return 0;
	k->ntext++;
	if (addr == 0) {
		k->nzero++;
		return 0;
	}
	r.start = addr;
	r.limit = UINT64_MAX;
	/* perf sizes kallsyms entries before it picks among aliases, so of the
	 * lines at one address only the last has a size and wins: the line's
	 * position ranks it, and later lines win. */
	r.prio = (uint32_t)k->ntext;
	r.mod = k->kmod;
	if (!mod && k->want_head) {
		if (strcmp(name, "_text") == 0 || strcmp(name, "_stext") == 0) {
			if (!k->img_lo || addr < k->img.lo)
				k->img.lo = addr;
			k->img_lo = true;
		} else if (strcmp(name, "_etext") == 0 || strcmp(name, "_einittext") == 0) {
			if (!k->img_hi || addr > k->img.hi)
				k->img.hi = addr;
			k->img_hi = true;
		}
	}
	if (mod && *mod == '[') {
		size_t n = strcspn(mod, "]");

		if (mod[n] == ']' && n + 1 < sizeof(k->lastmodname)) {
			if (strncmp(k->lastmodname, mod, n + 1) != 0 || k->lastmodname[n + 1]) {
				memcpy(k->lastmodname, mod, n + 1);
				k->lastmodname[n + 1] = '\0';
				if (pm__symtab_addstr(k->t, mod, n + 1, &k->lastmod) != 0)
					return -ENOMEM;
			}
			r.mod = k->lastmod;
		}
	}
	rc = pm__symtab_addstr(k->t, name, strlen(name), &r.name);
	if (rc == 0)
		rc = pm__rawvec_push(&k->rv, &r, name);
	return rc ? -ENOMEM : 0;
}

/* The lines of the file, read in blocks of KBLOCK (more for a longer line):
 * /proc/kallsyms reports no size and is formatted by the kernel as it is
 * read, in large reads; a block keeps the peak memory at the symbol table
 * (the file was read whole before: 5 MB more at the peak).  0, -errno of
 * open/read, or -ENOMEM. */
#define KBLOCK (64u << 10)
static int kallsyms_lines(const char *path, struct kparse *k)
{
	size_t cap = KBLOCK, have = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	bool eof = false;

	if (fd < 0 || !buf) {
		rc = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	while (!eof || have) {
		char *line = buf, *lim;

		if (!eof) {
			ssize_t n = read(fd, buf + have, cap - have - 1);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				rc = -errno;
				goto out;
			}
			if (n == 0)
				eof = true;
			have += (size_t)n;
		}
		lim = buf + have;
		for (char *nl; (nl = memchr(line, '\n', (size_t)(lim - line))) != NULL; line = nl + 1) {
			if ((rc = head_line(k, line, nl)) != 0)
				goto out;
			*nl = '\0';
			if ((rc = kallsyms_line(k, line)) != 0)
				goto out;
		}
		if (eof && line < lim) { /* the last line, without newline */
			*lim = '\0';
			if ((rc = kallsyms_line(k, line)) != 0)
				goto out;
			line = lim;
		}
		have = (size_t)(lim - line);
		memmove(buf, line, have);
		if (have == cap - 1) { /* a line longer than the block */
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* The cache's answer, when it has one that holds now (kcache.c has why it
 * is then the answer a fresh read gives): true and L filled. */
static bool kcache_load(struct pm__kload *L)
{
	const struct pm__kcfg *c = L->kc;
	struct pm__kcache kc;
	struct pm__kmods now;
	char boot[64], why[200];
	uint8_t *img;
	size_t len;
	int rc, nb;

	rc = pm__kcache_read(c->dir, &img, &len);
	if (rc) {
		snprintf(L->note, sizeof(L->note), "no usable cache file in %s: %s", c->dir,
			 rc == -EPERM ? "not a private regular file of this user" : pm_strerror(-rc));
		return false;
	}
	rc = pm__kcache_parse(img, len, &kc, why, sizeof(why));
	free(img);
	if (rc) {
		snprintf(L->note, sizeof(L->note), "cache file in %s ignored: %s", c->dir,
			 rc == -ENOMEM ? "out of memory" : why);
		return false;
	}
	nb = pm__kcache_boot_id(c->boot_id, boot, sizeof(boot));
	if (nb <= 0 || (size_t)nb != kc.boot_id_len || memcmp(boot, kc.boot_id, (size_t)nb) != 0) {
		snprintf(L->note, sizeof(L->note), "cache file in %s ignored: %s", c->dir,
			 nb <= 0 ? "no boot id" : "made in another boot");
		pm__kcache_free(&kc);
		return false;
	}
	if (!pm__kcache_head_matches(L->path, kc.head, kc.head_len)) {
		snprintf(L->note, sizeof(L->note), "cache file in %s ignored: %s does not begin as it did "
			 "(other addresses, or hidden from this reader)", c->dir, L->path);
		pm__kcache_free(&kc);
		return false;
	}
	if (pm__kmods_read(c->modules, &now) != 0)
		now.ok = false;
	rc = pm__kcache_trust(&kc, &now, &L->trust, &L->ntrust);
	/* a region no longer current, or a module (with symbols, perhaps) not cached */
	L->stale = L->ntrust < kc.ng || pm__kmods_usable(&now) > kc.ng - 1;
	pm__kmods_free(&now);
	if (rc) {
		pm__kcache_free(&kc);
		snprintf(L->note, sizeof(L->note), "out of memory");
		return false;
	}
	L->tab = kc.tab;
	memset(&kc.tab, 0, sizeof(kc.tab));
	snprintf(L->note, sizeof(L->note), "kernel symbols from the cache in %s (%zu of %zu regions "
		 "current)", c->dir, L->ntrust, kc.ng);
	pm__kcache_free(&kc);
	L->cached = true;
	L->state = PM_SYM_KERNEL_OK;
	return true;
}

/* After a fresh read of the cached kallsyms: write what may be cached. */
static void kcache_store(struct pm__kload *L, struct kparse *k, const char *boot, int nb,
			 const struct pm__kmods *before)
{
	struct pm__kmods after;
	struct pm__kgroup *g = NULL;
	struct pm__buf img = {0};
	size_t ng = 0;
	int rc;

	if (nb <= 0 || !k->head_done || !before->ok || !k->img_lo || !k->img_hi || k->img.lo >= k->img.hi) {
		snprintf(L->note, sizeof(L->note), "kernel symbols not cached: %s",
			 nb <= 0 ? "no boot id" : !k->head_done ? "no address near the start of kallsyms"
			 : !before->ok ? "the modules list is unreadable"
				       : "no _text/_stext and _etext/_einittext lines (the image's bounds)");
		return;
	}
	if (pm__kmods_read(L->kc->modules, &after) != 0)
		after.ok = false;
	rc = pm__kcache_regions(&L->tab, &k->img, before, &after, &g, &ng);
	pm__kmods_free(&after);
	if (rc == 0 && ng == 0) {
		snprintf(L->note, sizeof(L->note), "kernel symbols not cached: no core kernel run");
		return;
	}
	if (rc == 0)
		rc = pm__kcache_encode(&L->tab, g, ng, boot, (size_t)nb, k->head.data, k->head.len, &img);
	if (rc == 0)
		rc = pm__kcache_write(L->kc->dir, img.data, img.len);
	if (rc)
		snprintf(L->note, sizeof(L->note), "kernel symbols not cached in %s: %s", L->kc->dir,
			 pm_strerror(-rc));
	else
		snprintf(L->note, sizeof(L->note), "kernel symbols cached in %s (%zu regions, %zu bytes)",
			 L->kc->dir, ng, img.len);
	free(g);
	pm__buf_free(&img);
}

/* Read and parse @p path into @p L; touches no symbolizer, so that it can
 * run on a thread of its own (pm__kallsyms_start()).  The cached kallsyms
 * (L->kc) is answered from the cache when it holds, and else read and
 * cached. */
static void kallsyms_read(const char *path, struct pm__kload *L)
{
	const struct pm__kcfg *kc = L->kc;
	bool fresh = L->fresh, nostore = L->nostore, cacheable;
	struct pm__symtab *t = &L->tab;
	struct pm__kmods before = {0};
	char boot[64];
	struct kparse k;
	int rc, nb = 0;

	memset(L, 0, sizeof(*L));
	L->path = path;
	L->kc = kc;
	L->fresh = fresh;
	L->nostore = nostore;
	memset(&k, 0, sizeof(k));
	L->state = PM_SYM_KERNEL_UNREADABLE;
	cacheable = kc && kc->dir && kc->live && strcmp(path, kc->live) == 0;
	if (cacheable && !fresh && kcache_load(L))
		return;
	if (cacheable) {
		nb = pm__kcache_boot_id(kc->boot_id, boot, sizeof(boot));
		if (pm__kmods_read(kc->modules, &before) != 0)
			before.ok = false;
		k.want_head = true;
	}
	k.t = t;
	pm__symtab_free(t);
	if (pm__symtab_addstr(t, "[kernel.kallsyms]", 17, &k.kmod) != 0)
		goto oom;
	k.lastmod = k.kmod;
	rc = kallsyms_lines(path, &k);
	if (rc == -ENOMEM)
		goto oom;
	if (rc) {
		free(k.rv.v);
		pm__symtab_free(t);
		kdiag(L, PM_SYM_DIAG_NO_KALLSYMS, rc, "cannot read kernel symbols: %s", strerror(-rc));
		goto out;
	}
	if (k.ntext && k.nzero == k.ntext) {
		L->state = PM_SYM_KERNEL_RESTRICTED;
		kdiag(L, PM_SYM_DIAG_KPTR_RESTRICT, -EPERM,
			     "all %zu kernel text addresses read as zero (kernel.kptr_restrict "
			     "hides them; run as root or set kernel.kptr_restrict=0)",
			     k.ntext);
		free(k.rv.v);
		pm__symtab_free(t);
		goto out;
	}
	/* The last symbol of all gets one page. */
	rc = pm__symtab_build(t, &k.rv, 4096);
	if (rc)
		goto oom;
	/* kallsyms has no sizes: a symbol runs to the next one, but not across
	 * the gap between the core kernel and a module or between modules,
	 * where one page is as far as it is believed to go. */
	for (size_t i = 0; i + 1 < t->n; i++)
		if (t->v[i].mod != t->v[i + 1].mod && t->v[i].size > 4096)
			t->v[i].size = 4096;
	if (!t->n) {
		kdiag(L, PM_SYM_DIAG_NO_KALLSYMS, -PM_ERR_FORMAT,
			     "no kernel text symbols in %zu lines", k.lineno);
		pm__symtab_free(t);
		goto out;
	}
	L->state = PM_SYM_KERNEL_OK;
	if (cacheable && nostore)
		snprintf(L->note, sizeof(L->note), "the cache holds every current region: not rewritten");
	else if (cacheable) {
		char why[sizeof(L->note)];

		memcpy(why, L->note, sizeof(why)); /* why the cache was not used */
		kcache_store(L, &k, boot, nb, &before);
		if (why[0]) {
			char both[sizeof(L->note)];

			snprintf(both, sizeof(both), "%.290s; %.290s", why, L->note);
			memcpy(L->note, both, sizeof(both));
		}
	}
	goto out;
oom:
	free(k.rv.v);
	pm__symtab_free(t);
	kdiag(L, PM_SYM_DIAG_NO_KALLSYMS, -ENOMEM, "out of memory");
out:
	pm__kmods_free(&before);
	pm__buf_free(&k.head);
}

/* Hand the load's result to the symbolizer: its kernel table, state and
 * diagnostic, and what the cache did. */
static void kallsyms_install(pm_sym *s, struct pm__kload *L)
{
	pm__symtab_free(&s->ktab);
	s->ktab = L->tab;
	memset(&L->tab, 0, sizeof(L->tab));
	s->kstate = L->state;
	free(s->ktrust);
	s->kcached = L->cached;
	s->kstale = L->stale;
	s->ktrust = L->trust;
	s->nktrust = L->ntrust;
	L->trust = NULL;
	if (L->diag_code)
		pm__sym_diag(s, s->kallsyms, L->diag_code, L->diag_err, "%s", L->diag);
	if (L->note[0])
		pm__debug("%s: %s", s->kallsyms, L->note);
}

static struct pm__kload *kload_new(pm_sym *s, bool fresh)
{
	struct pm__kload *L = malloc(sizeof(*L));

	if (L) {
		L->path = s->kallsyms;
		L->kc = &s->kc;
		L->fresh = fresh;
		/* a read for what a current cache does not answer leaves it be */
		L->nostore = fresh && s->kcached && !s->kstale;
	}
	return L;
}

void pm__kallsyms_load(pm_sym *s)
{
	struct pm__kload *L = kload_new(s, false);

	if (!L) {
		s->kstate = PM_SYM_KERNEL_UNREADABLE;
		pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_NO_KALLSYMS, -ENOMEM, "out of memory");
		return;
	}
	kallsyms_read(s->kallsyms, L);
	kallsyms_install(s, L);
	free(L);
}

void pm__kallsyms_fresh(pm_sym *s)
{
	struct pm__kload *L;

	if (s->kfresh_loaded)
		return;
	s->kfresh_loaded = true;
	s->kfresh_state = PM_SYM_KERNEL_UNREADABLE;
	L = kload_new(s, true);
	if (!L) {
		pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_NO_KALLSYMS, -ENOMEM, "out of memory");
		return;
	}
	kallsyms_read(s->kallsyms, L);
	s->kfresh = L->tab;
	s->kfresh_state = L->state;
	if (L->diag_code)
		pm__sym_diag(s, s->kallsyms, L->diag_code, L->diag_err, "%s", L->diag);
	pm__debug("%s: read again for an address the cache does not answer%s%s", s->kallsyms,
		  L->note[0] ? "; " : "", L->note);
	free(L);
}

static void *kallsyms_thread(void *arg)
{
	struct pm__kload *L = arg;

	kallsyms_read(L->path, L);
	return NULL;
}

void pm__kallsyms_start(pm_sym *s)
{
	struct pm__kload *L;

	if (s->kloaded || s->kpending || (s->flags & PM_SYM_OPT_NO_KERNEL))
		return;
	L = kload_new(s, false);
	if (!L)
		return; /* loaded when first needed */
	if (pthread_create(&s->kthread, NULL, kallsyms_thread, L) != 0) {
		free(L);
		return;
	}
	s->kpending = L;
	s->kloaded = true;
}

void pm__kallsyms_join(pm_sym *s)
{
	struct pm__kload *L = s->kpending;

	if (!L)
		return;
	pthread_join(s->kthread, NULL);
	s->kpending = NULL;
	kallsyms_install(s, L);
	free(L);
}
