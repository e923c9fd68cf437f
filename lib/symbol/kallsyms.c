/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Kernel symbols from /proc/kallsyms (or a copy of it). */
#include <stdio.h>
#include <stdlib.h>

#include "symbol/sym_internal.h"

/* Lines read "ADDRESS TYPE NAME" with an optional "\t[MODULE]".  Text
 * symbols (t, T, w, W) are kept; a module's symbols get "[MODULE]" as their
 * dso, the core kernel's "[kernel.kallsyms]". */
void pm__kallsyms_load(pm_sym *s)
{
	struct pm__symtab *t = &s->ktab;
	struct pm__rawvec rv = {0};
	char *line = NULL;
	size_t cap = 0, ntext = 0, nzero = 0, lineno = 0;
	ssize_t len;
	uint32_t kmod, lastmod;
	char lastmodname[128] = "";
	FILE *f;
	int rc = 0;

	s->kstate = PM_SYM_KERNEL_UNREADABLE;
	f = fopen(s->kallsyms, "re");
	if (!f) {
		int e = errno;

		pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_NO_KALLSYMS, -e,
			     "cannot read kernel symbols: %s", strerror(e));
		return;
	}
	pm__symtab_free(t);
	if (pm__symtab_addstr(t, "[kernel.kallsyms]", 17, &kmod) != 0)
		goto oom;
	lastmod = kmod;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct pm__rawsym r = {0};
		char *p = line, *end, *name, *mod;
		unsigned long long addr;
		char type;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		errno = 0;
		addr = strtoull(p, &end, 16);
		if (end == p || errno || *end != ' ' || !end[1] || end[2] != ' ')
			continue; /* not a symbol line: ignore, kallsyms has no other kind */
		type = end[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = end + 3;
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
	free(line);
	line = NULL;
	fclose(f);
	f = NULL;
	if (ntext && nzero == ntext) {
		s->kstate = PM_SYM_KERNEL_RESTRICTED;
		pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_KPTR_RESTRICT, -EPERM,
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
		pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_NO_KALLSYMS, -PM_ERR_FORMAT,
			     "no kernel text symbols in %zu lines", lineno);
		pm__symtab_free(t);
		return;
	}
	s->kstate = PM_SYM_KERNEL_OK;
	return;
oom:
	free(line);
	if (f)
		fclose(f);
	free(rv.v);
	pm__symtab_free(t);
	pm__sym_diag(s, s->kallsyms, PM_SYM_DIAG_NO_KALLSYMS, -ENOMEM, "out of memory");
}
