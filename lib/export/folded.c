// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Folded (collapsed) stacks, as stackcollapse-perf.pl writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export_int.h"

struct fdx {
	struct pmx_set stacks;  /* key: the folded text */
	uint64_t *counts;
	size_t counts_cap;
	struct pm__buf line;
};

/* stackcollapse's tidying of one frame name. */
static int fdx_put_name(struct pm__buf *b, const char *s)
{
	size_t n = strlen(s);
	const char *paren = strchr(s, '(');

	/* Cut C++/Java argument lists, but keep "(anonymous namespace)". */
	while (paren && !strncmp(paren, "(anonymous namespace)", 21))
		paren = strchr(paren + 21, '(');
	if (paren && paren != s)
		n = (size_t)(paren - s);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int err;

		if (c == '"' || c == '\'')
			continue;
		if (c == ';')
			c = ':';
		if ((err = pm__buf_append(b, &c, 1)))
			return err;
	}
	return 0;
}

static int fdx_put_frame(struct fdx *d, struct pmx_walk *w, const struct pmx_frame *fr)
{
	const char *dso;

	if (fr->known || fr->sym != w->s_unknown)
		return fdx_put_name(&d->line, pmx_strget(w, fr->sym));
	/* An unknown symbol: the module's base name in brackets. */
	dso = pmx_strget(w, fr->dso);
	if (fr->dso != w->s_unknown && dso[0]) {
		const char *b = dso[0] == '[' ? NULL : strrchr(dso, '/');
		char tmp[4096];
		size_t bl;

		b = b && b[1] ? b + 1 : dso;
		if (b[0] == '[') /* already bracketed: [kernel.kallsyms], [vdso] */
			return fdx_put_name(&d->line, b);
		bl = strlen(b);
		if (bl > sizeof(tmp) - 3)
			bl = sizeof(tmp) - 3;
		tmp[0] = '[';
		memcpy(tmp + 1, b, bl);
		tmp[bl + 1] = ']';
		tmp[bl + 2] = 0;
		return fdx_put_name(&d->line, tmp);
	}
	return pm__buf_append(&d->line, "[unknown]", 9);
}

static int fdx_on_sample(void *user, struct pmx_walk *w, const struct pmx_sample *s)
{
	struct fdx *d = user;
	const char *comm = pmx_strget(w, s->comm);
	int added, err;
	long e;

	d->line.len = 0;
	for (const char *c = comm; *c; c++) {
		char ch = *c == ' ' ? '_' : *c;

		if ((err = pm__buf_append(&d->line, &ch, 1)))
			return err;
	}
	if (w->o.flags & PM_EXPORT_FOLDED_TID) {
		char b[32];
		int n = snprintf(b, sizeof(b), "-%u/%u", s->pid, s->tid);

		if ((err = pm__buf_append(&d->line, b, (size_t)n)))
			return err;
	}
	for (size_t i = s->nframes; i-- > 0;) {
		if ((err = pm__buf_append(&d->line, ";", 1)) || (err = fdx_put_frame(d, w, &s->frames[i])))
			return err;
	}
	e = pmx_set_add(&d->stacks, d->line.data, d->line.len, &added);
	if (e < 0)
		return (int)e;
	if ((size_t)e >= d->counts_cap) {
		size_t nc = d->counts_cap ? d->counts_cap * 2 : 1024;
		uint64_t *a = pm__reallocarray(d->counts, nc, sizeof(*a));

		if (!a)
			return -ENOMEM;
		d->counts = a;
		d->counts_cap = nc;
	}
	if (added)
		d->counts[e] = 0;
	d->counts[e]++;
	return 0;
}

static int fdx_cmp(const void *a, const void *b, void *set)
{
	size_t la, lb;
	const char *ka = pmx_set_key(set, *(const size_t *)a, &la);
	const char *kb = pmx_set_key(set, *(const size_t *)b, &lb);
	int c = memcmp(ka, kb, PM_MIN(la, lb));

	return c ? c : (la > lb) - (la < lb);
}

static int fdx_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return pm__err(errno, "pm_export_folded: write: %s", strerror(errno));
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int fdx_emit(struct fdx *d, int fd)
{
	size_t *order = calloc(d->stacks.n + 1, sizeof(*order));
	struct pm__buf out;
	int err = 0;

	memset(&out, 0, sizeof(out));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < d->stacks.n; i++)
		order[i] = i;
	qsort_r(order, d->stacks.n, sizeof(*order), fdx_cmp, &d->stacks);
	for (size_t i = 0; i < d->stacks.n && !err; i++) {
		size_t kl;
		const char *k = pmx_set_key(&d->stacks, order[i], &kl);
		char num[32];
		int n = snprintf(num, sizeof(num), " %llu\n", (unsigned long long)d->counts[order[i]]);

		if ((err = pm__buf_append(&out, k, kl)) || (err = pm__buf_append(&out, num, (size_t)n)))
			break;
		if (out.len >= 65536) {
			err = fdx_write_all(fd, (const char *)out.data, out.len);
			out.len = 0;
		}
	}
	if (!err && out.len)
		err = fdx_write_all(fd, (const char *)out.data, out.len);
	free(out.data);
	free(order);
	return err;
}

int pm_export_folded(pm_file *f, const struct pm_export_opts *opts, int fd)
{
	struct pmx_walk w;
	struct fdx d;
	int err;

	if (!f || fd < 0)
		return pm__err(EINVAL, "pm_export_folded: NULL file or bad fd");
	err = pmx_walk_init(&w, f, opts, "pm_export_folded");
	if (err)
		return err;
	memset(&d, 0, sizeof(d));
	err = pmx_walk_run(&w, fdx_on_sample, &d);
	if (!err)
		err = fdx_emit(&d, fd);
	if (err == -ENOMEM)
		err = pm__err(ENOMEM, "pm_export_folded: out of memory");
	pmx_set_free(&d.stacks);
	free(d.counts);
	free(d.line.data);
	pmx_walk_fini(&w);
	return err;
}

/* ---- pm_export_stacks ------------------------------------------------- */

struct stx {
	pm_stack_fn fn;
	void *user;
	const char **syms, **dsos;
	uint64_t *addrs;
	size_t cap;
};

static int stx_on_sample(void *user, struct pmx_walk *w, const struct pmx_sample *s)
{
	struct stx *x = user;
	struct pm_stack st;

	if (s->nframes > x->cap) {
		size_t nc = x->cap ? x->cap : 64;
		void *a, *b, *c;

		while (nc < s->nframes)
			nc *= 2;
		a = pm__reallocarray(x->syms, nc, sizeof(*x->syms));
		if (a)
			x->syms = a;
		b = a ? pm__reallocarray(x->dsos, nc, sizeof(*x->dsos)) : NULL;
		if (b)
			x->dsos = b;
		c = b ? pm__reallocarray(x->addrs, nc, sizeof(*x->addrs)) : NULL;
		if (!c)
			return -ENOMEM;
		x->addrs = c;
		x->cap = nc;
	}
	for (size_t i = 0; i < s->nframes; i++) {
		x->addrs[i] = s->frames[i].addr;
		x->syms[i] = pmx_strget(w, s->frames[i].sym);
		x->dsos[i] = pmx_strget(w, s->frames[i].dso);
	}
	memset(&st, 0, sizeof(st));
	st.sz = sizeof(st);
	st.event = s->event;
	st.pid = s->pid;
	st.tid = s->tid;
	st.cpu = s->has_cpu ? s->cpu : 0;
	st.comm = pmx_strget(w, s->comm);
	st.period = s->period;
	st.time = (s->smp->present & PM_SAMPLE_TIME) ? s->smp->time : 0;
	st.nframes = s->nframes;
	st.addrs = x->addrs;
	st.syms = x->syms;
	st.dsos = x->dsos;
	return x->fn(x->user, &st);
}

int pm_export_stacks(pm_file *f, const struct pm_export_opts *opts, pm_stack_fn fn, void *user)
{
	struct pmx_walk w;
	struct stx x = { .fn = fn, .user = user };
	int err;

	if (!f || !fn)
		return pm__err(EINVAL, "pm_export_stacks: NULL argument");
	err = pmx_walk_init(&w, f, opts, "pm_export_stacks");
	if (err)
		return err;
	err = pmx_walk_run(&w, stx_on_sample, &x);
	if (err == -ENOMEM)
		err = pm__err(ENOMEM, "pm_export_stacks: out of memory");
	free(x.syms);
	free(x.dsos);
	free(x.addrs);
	pmx_walk_fini(&w);
	return err;
}
