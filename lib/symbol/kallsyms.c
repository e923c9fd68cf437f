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
};

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

/* Read and parse @p path into @p L; touches no symbolizer, so that it can
 * run on a thread of its own (pm__kallsyms_start()). */
static void kallsyms_read(const char *path, struct pm__kload *L)
{
	struct pm__symtab *t = &L->tab;
	struct kparse k;
	int rc;

	memset(L, 0, sizeof(*L));
	memset(&k, 0, sizeof(k));
	L->state = PM_SYM_KERNEL_UNREADABLE;
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
		return;
	}
	if (k.ntext && k.nzero == k.ntext) {
		L->state = PM_SYM_KERNEL_RESTRICTED;
		kdiag(L, PM_SYM_DIAG_KPTR_RESTRICT, -EPERM,
			     "all %zu kernel text addresses read as zero (kernel.kptr_restrict "
			     "hides them; run as root or set kernel.kptr_restrict=0)",
			     k.ntext);
		free(k.rv.v);
		pm__symtab_free(t);
		return;
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
		return;
	}
	L->state = PM_SYM_KERNEL_OK;
	return;
oom:
	free(k.rv.v);
	pm__symtab_free(t);
	kdiag(L, PM_SYM_DIAG_NO_KALLSYMS, -ENOMEM, "out of memory");
}

/* Hand the load's result to the symbolizer: its kernel table, state and
 * diagnostic. */
static void kallsyms_install(pm_sym *s, struct pm__kload *L)
{
	pm__symtab_free(&s->ktab);
	s->ktab = L->tab;
	memset(&L->tab, 0, sizeof(L->tab));
	s->kstate = L->state;
	if (L->diag_code)
		pm__sym_diag(s, s->kallsyms, L->diag_code, L->diag_err, "%s", L->diag);
}

void pm__kallsyms_load(pm_sym *s)
{
	struct pm__kload *L = malloc(sizeof(*L));

	if (!L) {
		s->kstate = PM_SYM_KERNEL_UNREADABLE;
		pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_NO_KALLSYMS, -ENOMEM, "out of memory");
		return;
	}
	kallsyms_read(s->kallsyms, L);
	kallsyms_install(s, L);
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
	L = malloc(sizeof(*L));
	if (!L)
		return; /* loaded when first needed */
	L->path = s->kallsyms;
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
