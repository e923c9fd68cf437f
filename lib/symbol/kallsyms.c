/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Kernel symbols from /proc/kallsyms (or a copy of it). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbol/sym_internal.h"

/* Lines read "ADDRESS TYPE NAME" with an optional "\t[MODULE]".  Text
 * symbols (t, T, w, W) are kept; a module's symbols get "[MODULE]" as their
 * dso, the core kernel's "[kernel.kallsyms]". */
/* The whole file in memory, NUL-terminated: /proc/kallsyms reports no size
 * and is read in large blocks (the kernel formats it as it is read; small
 * reads only add system calls).  NULL with errno set on failure. */
static char *read_all(const char *path, size_t *len)
{
	size_t cap = 8u << 20, n = 0;
	char *buf = malloc(cap), *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		int e = fd < 0 ? errno : ENOMEM;

		if (fd >= 0)
			close(fd);
		free(buf);
		errno = e;
		return NULL;
	}
	for (;;) {
		ssize_t k;

		if (cap - n < (1u << 20)) {
			p = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
		k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

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

/* Read and parse @p path into @p L; touches no symbolizer, so that it can
 * run on a thread of its own (pm__kallsyms_start()). */
static void kallsyms_read(const char *path, struct pm__kload *L)
{
	struct pm__symtab *t = &L->tab;
	struct pm__rawvec rv = {0};
	char *data, *line, *next;
	size_t size = 0, ntext = 0, nzero = 0, lineno = 0;
	uint32_t kmod, lastmod;
	char lastmodname[128] = "";
	int rc = 0;

	memset(L, 0, sizeof(*L));
	L->state = PM_SYM_KERNEL_UNREADABLE;
	data = read_all(path, &size);
	if (!data) {
		int e = errno;

		kdiag(L, PM_SYM_DIAG_NO_KALLSYMS, -e,
			     "cannot read kernel symbols: %s", strerror(e));
		return;
	}
	pm__symtab_free(t);
	if (pm__symtab_addstr(t, "[kernel.kallsyms]", 17, &kmod) != 0)
		goto oom;
	lastmod = kmod;
	for (line = data; line < data + size; line = next) {
		struct pm__rawsym r = {0};
		char *nl = memchr(line, '\n', (size_t)(data + size - line)), *name, *mod;
		const char *end;
		uint64_t addr;
		char type;

		if (nl) {
			*nl = '\0';
			next = nl + 1;
		} else {
			next = data + size;
		}
		lineno++;
		addr = parse_hex(line, &end);
		if (!end || end == line || *end != ' ' || !end[1] || end[2] != ' ')
			continue; /* not a symbol line: ignore, kallsyms has no other kind */
		type = end[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = (char *)end + 3;
		mod = strchr(name, '\t');
		if (mod)
			*mod++ = '\0';
		if (!*name)
			continue;
		ntext++;
		if (addr == 0) {
			nzero++;
			continue;
		}
		r.start = addr;
		r.limit = UINT64_MAX;
		r.prio = (type == 'T') ? 2 : (type == 'W' || type == 'w') ? 1 : 0;
		r.mod = kmod;
		if (mod && *mod == '[') {
			size_t n = strcspn(mod, "]");

			if (mod[n] == ']' && n + 1 < sizeof(lastmodname)) {
				if (strncmp(lastmodname, mod, n + 1) != 0 || lastmodname[n + 1]) {
					memcpy(lastmodname, mod, n + 1);
					lastmodname[n + 1] = '\0';
					if (pm__symtab_addstr(t, mod, n + 1, &lastmod) != 0)
						goto oom;
				}
				r.mod = lastmod;
			}
		}
		rc = pm__symtab_addstr(t, name, strlen(name), &r.name);
		if (rc == 0)
			rc = pm__rawvec_push(&rv, &r, name);
		if (rc)
			goto oom;
	}
	free(data);
	data = NULL;
	if (ntext && nzero == ntext) {
		L->state = PM_SYM_KERNEL_RESTRICTED;
		kdiag(L, PM_SYM_DIAG_KPTR_RESTRICT, -EPERM,
			     "all %zu kernel text addresses read as zero (kernel.kptr_restrict "
			     "hides them; run as root or set kernel.kptr_restrict=0)",
			     ntext);
		free(rv.v);
		pm__symtab_free(t);
		return;
	}
	/* The last symbol of all gets one page. */
	rc = pm__symtab_build(t, &rv, 4096);
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
			     "no kernel text symbols in %zu lines", lineno);
		pm__symtab_free(t);
		return;
	}
	L->state = PM_SYM_KERNEL_OK;
	return;
oom:
	free(data);
	free(rv.v);
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
