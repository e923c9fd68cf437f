/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "report_agg.h"

static uint64_t rep_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h;
}

static size_t rep_hash_ptr(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32);
}

static uint64_t rep_strhash_of(const char *s)
{
	uint64_t x = 1469598103934665603ull;

	while (*s)
		x = (x ^ (unsigned char)*s++) * 1099511628211ull;
	return x;
}

/* The hash of a string's bytes, remembered by its address: the names a
 * sample carries are borrowed from the symbolizer or interned, so one
 * address keeps its text until the report ends (rep_agg.h), and a row's
 * key is hashed from integers after the first sample of each name.  Equal
 * texts at different addresses still hash alike (the bytes are hashed). */
static uint64_t rep_strhash_memo(struct rep_agg *a, const char *s)
{
	size_t j;

	if (!a->memo_cap || (a->memo_n + 1) * 2 > a->memo_cap) {
		size_t ncap = a->memo_cap ? a->memo_cap * 2 : 1024;
		struct rep_strmemo *t = calloc(ncap, sizeof(*t));

		if (!t)
			return rep_strhash_of(s); /* no memo: the same value, computed */
		for (size_t i = 0; i < a->memo_cap; i++) {
			if (!a->memo[i].p)
				continue;
			for (j = rep_hash_ptr(a->memo[i].p) & (ncap - 1); t[j].p; j = (j + 1) & (ncap - 1))
				;
			t[j] = a->memo[i];
		}
		free(a->memo);
		a->memo = t;
		a->memo_cap = ncap;
	}
	for (j = rep_hash_ptr(s) & (a->memo_cap - 1); a->memo[j].p; j = (j + 1) & (a->memo_cap - 1))
		if (a->memo[j].p == s)
			return a->memo[j].h;
	a->memo[j].p = s;
	a->memo[j].h = rep_strhash_of(s);
	a->memo_n++;
	return a->memo[j].h;
}

static uint64_t rep_strhash(struct rep_agg *a, uint64_t h, const char *s)
{
	return rep_mix(h, a->no_memo ? rep_strhash_of(s) : rep_strhash_memo(a, s));
}

static uint64_t rep_key_hash(struct rep_agg *a, const struct rep_sample *s)
{
	unsigned k = a->keys;
	uint64_t h = (uint64_t)(s->event_idx + 1);

	if (k & (REP_K_SYM | REP_K_PC | REP_K_DSO))
		h = rep_strhash(a, h, s->dso);
	if (k & REP_K_SYM)
		h = rep_strhash(a, h, s->sym);
	if (k & REP_K_PC)
		h = rep_mix(h, s->dso_addr);
	if (k & REP_K_COMM)
		h = rep_strhash(a, h, s->comm);
	if (k & REP_K_PID)
		h = rep_mix(h, s->pid);
	return h;
}

static bool rep_key_eq(unsigned k, const struct rep_entry *e, const struct rep_sample *s)
{
	if (e->event_idx != s->event_idx)
		return false;
	if ((k & (REP_K_SYM | REP_K_PC | REP_K_DSO)) && e->dso != s->dso && strcmp(e->dso, s->dso))
		return false;
	if ((k & REP_K_SYM) && e->sym != s->sym && strcmp(e->sym, s->sym))
		return false;
	if ((k & REP_K_PC) && e->pc != s->dso_addr)
		return false;
	if ((k & REP_K_COMM) && e->comm != s->comm && strcmp(e->comm, s->comm))
		return false;
	if ((k & REP_K_PID) && e->pid != s->pid)
		return false;
	return true;
}

/* The keys of e are those of s, names compared by address. */
static bool rep_key_same(unsigned k, const struct rep_entry *e, const struct rep_sample *s)
{
	return e->event_idx == s->event_idx &&
	       (!(k & (REP_K_SYM | REP_K_PC | REP_K_DSO)) || e->dso == s->dso) &&
	       (!(k & REP_K_SYM) || e->sym == s->sym) && (!(k & REP_K_PC) || e->pc == s->dso_addr) &&
	       (!(k & REP_K_COMM) || e->comm == s->comm) && (!(k & REP_K_PID) || e->pid == s->pid);
}

int rep_agg_init(struct rep_agg *a, unsigned keys, size_t nr_events)
{
	memset(a, 0, sizeof(*a));
	a->keys = keys;
	a->nr_events = nr_events ? nr_events : 1;
	a->ev_samples = calloc(a->nr_events, sizeof(uint64_t));
	a->ev_period = calloc(a->nr_events, sizeof(uint64_t));
	a->ev_pm = calloc(a->nr_events, sizeof(uint64_t));
	a->ev_ibs = calloc(a->nr_events, sizeof(uint64_t));
	a->ev_inexact = calloc(a->nr_events, sizeof(uint64_t));
	a->ev_ip_differs = calloc(a->nr_events, sizeof(uint64_t));
	a->ev_skid_undef = calloc(a->nr_events, sizeof(uint64_t));
	a->tab_cap = 1024;
	a->tab = calloc(a->tab_cap, sizeof(size_t));
	/* PROFILEME_REPORT_NO_MEMO=1: hash every name's bytes per sample (the
	 * general path the memo must agree with; tests/cli compare both). */
	a->no_memo = getenv("PROFILEME_REPORT_NO_MEMO") != NULL;
	return a->ev_samples && a->ev_period && a->ev_pm && a->ev_ibs && a->ev_inexact &&
			       a->ev_ip_differs && a->ev_skid_undef && a->tab ?
		       0 :
		       -1;
}

static int rep_grow(struct rep_agg *a)
{
	size_t ncap = a->tab_cap * 2;
	size_t *t = calloc(ncap, sizeof(size_t));

	if (!t)
		return -1;
	for (size_t i = 0; i < a->n; i++) {
		struct rep_sample s;
		size_t j;

		memset(&s, 0, sizeof(s));
		s.event_idx = a->e[i].event_idx;
		s.sym = a->e[i].sym;
		s.dso = a->e[i].dso;
		s.comm = a->e[i].comm;
		s.pid = a->e[i].pid;
		s.dso_addr = a->e[i].pc;
		for (j = rep_key_hash(a, &s) & (ncap - 1); t[j]; j = (j + 1) & (ncap - 1))
			;
		t[j] = i + 1;
	}
	free(a->tab);
	a->tab = t;
	a->tab_cap = ncap;
	return 0;
}

static int rep_skid_bucket(uint64_t d)
{
	static const uint64_t lim[] = { 0, 4, 16, 64, 256, 4096, 65536 };

	for (int i = 0; i < 7; i++)
		if (d <= lim[i])
			return i;
	return 7;
}

const char *rep_skid_bucket_name(int i)
{
	static const char *const n[] = { "0", "1-4", "5-16", "17-64", "65-256", "257-4K",
					 "4K-64K", ">64K" };

	return i >= 0 && i < 8 ? n[i] : "?";
}

static int rep_vals_add(struct rep_vals *v, uint32_t x)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 16;
		uint32_t *nv = realloc(v->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		v->v = nv;
		v->cap = nc;
	}
	v->v[v->n++] = x;
	v->sum += x;
	v->sorted = false;
	return 0;
}

static int rep_u32cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

double rep_vals_mean(const struct rep_vals *v)
{
	return v->n ? v->sum / (double)v->n : 0.0;
}

uint32_t rep_vals_quartile(struct rep_vals *v, int q)
{
	size_t rank;

	if (!v->n)
		return 0;
	if (!v->sorted) {
		qsort(v->v, v->n, sizeof(uint32_t), rep_u32cmp);
		v->sorted = true;
	}
	if (q >= 4)
		return v->v[v->n - 1];
	rank = (v->n * (size_t)q + 3) / 4; /* nearest rank: ceil(q/4 * n), 1-based */
	return v->v[(rank < 1 ? 1 : rank) - 1];
}

static void rep_vals_free(struct rep_vals *v)
{
	free(v->v);
	memset(v, 0, sizeof(*v));
}

static void tally(uint64_t c[2], int v)
{
	if (v >= 0) {
		c[0]++;
		c[1] += v != 0;
	}
}

/* IBS fields of an exact sample into its row. */
static int rep_ibs_add(struct rep_ibs_agg *g, const struct rep_ibs *b)
{
	if (b->kind == PM_IBS_KIND_OP) {
		if (b->has_data) {
			g->ops++;
			if (rep_vals_add(&g->tag, b->tag_to_ret) || rep_vals_add(&g->comp, b->comp_to_ret))
				return -1;
			if (b->brn_ret) {
				g->brn++;
				g->brn_taken += b->brn_taken;
				g->brn_misp += b->brn_misp;
			}
		}
		if (b->has_data3) {
			g->mem_n++;
			g->ld += b->ld;
			g->st += b->st;
			if (b->ld || b->st) {
				g->dc_miss += b->dc_miss;
				g->dtlb_l1 += b->dc_l1tlb_miss;
				g->dtlb_l2 += b->dc_l2tlb_miss;
			}
			if (b->ld && b->dc_miss && rep_vals_add(&g->dclat, b->dc_miss_lat))
				return -1;
			if (b->ld && b->data_src >= 0 && b->data_src < 32) {
				g->src[b->data_src]++;
				g->src_n++;
			}
		}
	} else {
		if (rep_vals_add(&g->flat, b->fetch_lat))
			return -1;
		g->fetch_comp += b->fetch_comp;
		tally(g->icm, b->ic_miss);
		tally(g->itlb1, b->l1tlb_miss);
		tally(g->itlb2, b->l2tlb_miss);
		tally(g->l2, b->l2_miss);
		tally(g->l3, b->l3_miss);
		tally(g->oc, b->oc_miss);
		if (b->pgsz >= 0 && b->pgsz < 4) {
			g->pgsz[b->pgsz]++;
			g->pgsz_n++;
		}
	}
	return 0;
}

int rep_agg_add(struct rep_agg *a, const struct rep_sample *s_in)
{
	return rep_agg_add_n(a, s_in, 1, s_in->period);
}

int rep_agg_add_n(struct rep_agg *a, const struct rep_sample *s_in, uint64_t n, uint64_t period)
{
	struct rep_entry *e = NULL;
	struct rep_sample moved;
	const struct rep_sample *s = s_in;
	size_t j = 0; /* set by the probe whenever e stays NULL (the compiler cannot see it) */
	size_t ev = s->event_idx >= 0 && (size_t)s->event_idx < a->nr_events ? (size_t)s->event_idx : 0;

	/* Instruction-level rows keep inexact IBS samples apart: their ip is
	 * where the interrupt landed, not the op IBS tagged. */
	if ((a->keys & REP_K_PC) && s->is_ibs && !s->ibs.exact) {
		moved = *s_in;
		moved.sym = "[inexact]";
		moved.dso_addr = 0;
		moved.sym_known = false;
		s = &moved;
	}

	/* Samples come in runs of one row: the row of the last sample when
	 * every key is the same (the same names at the same addresses). */
	if (a->last && !a->no_memo && rep_key_same(a->keys, &a->e[a->last - 1], s))
		e = &a->e[a->last - 1];
	else
		for (j = rep_key_hash(a, s) & (a->tab_cap - 1); a->tab[j]; j = (j + 1) & (a->tab_cap - 1))
			if (rep_key_eq(a->keys, &a->e[a->tab[j] - 1], s)) {
				e = &a->e[a->tab[j] - 1];
				break;
			}
	if (!e) {
		if (a->n == a->cap) {
			size_t nc = a->cap ? a->cap * 2 : 256;
			struct rep_entry *ne = realloc(a->e, nc * sizeof(*ne));

			if (!ne)
				return -1;
			a->e = ne;
			a->cap = nc;
		}
		e = &a->e[a->n];
		memset(e, 0, sizeof(*e));
		e->event_idx = s->event_idx;
		e->sym = s->sym;
		e->dso = s->dso;
		e->comm = s->comm;
		e->pid = s->pid;
		e->pc = s->dso_addr;
		e->sym_known = s->sym_known;
		e->level = s->level;
		a->tab[j] = ++a->n;
		if (a->n * 2 > a->tab_cap) {
			if (rep_grow(a))
				return -1;
		}
		e = &a->e[a->n - 1];
	}
	a->last = (size_t)(e - a->e) + 1;
	e->samples += n;
	e->period += period;
	a->ev_samples[ev] += n;
	a->ev_period[ev] += period;
	if (s->is_pm) {
		const struct pm_profileme_sample *p = &s->pm;

		a->ev_pm[ev]++;
		e->pm_n++;
		e->killed += p->killed != 0;
		e->stalled += p->stalled != 0;
		e->trapped += p->trapped != 0;
		e->mispred += p->mispredicted != 0;
		e->icm += p->icm != 0;
		if (p->trap > 0 && p->trap < PM_PROFILEME_TRAP_COUNT)
			e->traps[p->trap]++;
		if (p->pctr1_counts >= 0 && p->pctr1_counts < PM_PROFILEME_COUNTS_COUNT)
			e->counts[p->pctr1_counts]++;
		if (p->pctr0_counts >= 0 && p->pctr0_counts < PM_PROFILEME_COUNTS_COUNT)
			e->counts0[p->pctr0_counts]++;
		if (e->pctr1_n == e->pctr1_cap) {
			size_t nc = e->pctr1_cap ? e->pctr1_cap * 2 : 16;
			uint32_t *nv = realloc(e->pctr1, nc * sizeof(*nv));

			if (!nv)
				return -1;
			e->pctr1 = nv;
			e->pctr1_cap = nc;
		}
		e->pctr1[e->pctr1_n++] = p->pctr1;
		e->pctr1_sum += p->pctr1;
		e->redirects += s->pm_charge == PM_PROFILEME_CHARGE_REDIRECT;
		if (!s->skid_valid) {
			/* PALmode, or a user PMPC in a kernel thread: no distance. */
			e->skid_undef++;
			a->ev_skid_undef[ev]++;
		} else {
			uint64_t d = s->skid ? (uint64_t)(s->skid_dist < 0 ? -s->skid_dist : s->skid_dist) : 0;

			a->skid_hist[s->skid ? rep_skid_bucket(d) : 0]++;
			if (s->skid) {
				e->skid_n++;
				e->skid_sum += (double)d;
				if (d > e->skid_max)
					e->skid_max = d;
			}
		}
	}
	if (s->is_ibs) {
		struct rep_ibs_agg *g = e->ibs;

		if (!g) {
			g = e->ibs = calloc(1, sizeof(*g));
			if (!g)
				return -1;
		}
		a->ev_ibs[ev]++;
		g->n++;
		if (s->ibs.exact) {
			g->exact++;
			if (s->ibs.ip_differs) {
				g->ip_differs++;
				a->ev_ip_differs[ev]++;
			}
			if (rep_ibs_add(g, &s->ibs))
				return -1;
		} else {
			g->inexact++;
			a->ev_inexact[ev]++;
		}
	}
	return 0;
}

static int rep_vals_cat(struct rep_vals *d, struct rep_vals *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (rep_vals_add(d, v->v[i]))
			return -1;
	return 0;
}

static int rep_ibs_merge(struct rep_ibs_agg *d, struct rep_ibs_agg *g)
{
	d->n += g->n;
	d->exact += g->exact;
	d->inexact += g->inexact;
	d->ip_differs += g->ip_differs;
	d->ops += g->ops;
	d->brn += g->brn;
	d->brn_taken += g->brn_taken;
	d->brn_misp += g->brn_misp;
	d->mem_n += g->mem_n;
	d->ld += g->ld;
	d->st += g->st;
	d->dc_miss += g->dc_miss;
	d->dtlb_l1 += g->dtlb_l1;
	d->dtlb_l2 += g->dtlb_l2;
	for (int i = 0; i < 32; i++)
		d->src[i] += g->src[i];
	d->src_n += g->src_n;
	d->fetch_comp += g->fetch_comp;
	for (int i = 0; i < 2; i++) {
		d->icm[i] += g->icm[i];
		d->itlb1[i] += g->itlb1[i];
		d->itlb2[i] += g->itlb2[i];
		d->l2[i] += g->l2[i];
		d->l3[i] += g->l3[i];
		d->oc[i] += g->oc[i];
	}
	for (int i = 0; i < 4; i++)
		d->pgsz[i] += g->pgsz[i];
	d->pgsz_n += g->pgsz_n;
	return rep_vals_cat(&d->tag, &g->tag) || rep_vals_cat(&d->comp, &g->comp) ||
	       rep_vals_cat(&d->dclat, &g->dclat) || rep_vals_cat(&d->flat, &g->flat) ? -1 : 0;
}

/* The row of b in a (a new one, a copy of b's fields, when a has none). */
static struct rep_entry *rep_row_of(struct rep_agg *a, const struct rep_entry *b)
{
	struct rep_sample s;
	size_t j;

	memset(&s, 0, sizeof(s));
	s.event_idx = b->event_idx;
	s.sym = b->sym;
	s.dso = b->dso;
	s.comm = b->comm;
	s.pid = b->pid;
	s.dso_addr = b->pc;
	for (j = rep_key_hash(a, &s) & (a->tab_cap - 1); a->tab[j]; j = (j + 1) & (a->tab_cap - 1))
		if (rep_key_eq(a->keys, &a->e[a->tab[j] - 1], &s))
			return &a->e[a->tab[j] - 1];
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 256;
		struct rep_entry *ne = realloc(a->e, nc * sizeof(*ne));

		if (!ne)
			return NULL;
		a->e = ne;
		a->cap = nc;
	}
	memset(&a->e[a->n], 0, sizeof(a->e[a->n]));
	a->e[a->n].event_idx = b->event_idx;
	a->e[a->n].sym = b->sym;
	a->e[a->n].dso = b->dso;
	a->e[a->n].comm = b->comm;
	a->e[a->n].pid = b->pid;
	a->e[a->n].pc = b->pc;
	a->e[a->n].sym_known = b->sym_known;
	a->e[a->n].level = b->level;
	a->tab[j] = ++a->n;
	if (a->n * 2 > a->tab_cap && rep_grow(a))
		return NULL;
	return &a->e[a->n - 1];
}

int rep_agg_merge(struct rep_agg *a, struct rep_agg *b)
{
	size_t nev = a->nr_events < b->nr_events ? a->nr_events : b->nr_events;

	if (a->keys != b->keys || !a->tab)
		return -1;
	for (size_t k = 0; k < b->n; k++) {
		struct rep_entry *f = &b->e[k], *e = rep_row_of(a, f);

		if (!e)
			return -1;
		e->samples += f->samples;
		e->period += f->period;
		e->pm_n += f->pm_n;
		e->killed += f->killed;
		e->stalled += f->stalled;
		e->trapped += f->trapped;
		e->mispred += f->mispred;
		e->icm += f->icm;
		for (int i = 0; i < PM_PROFILEME_TRAP_COUNT; i++)
			e->traps[i] += f->traps[i];
		for (int i = 0; i < PM_PROFILEME_COUNTS_COUNT; i++) {
			e->counts[i] += f->counts[i];
			e->counts0[i] += f->counts0[i];
		}
		if (f->pctr1_n) {
			size_t need = e->pctr1_n + f->pctr1_n;

			if (need > e->pctr1_cap) {
				uint32_t *nv = realloc(e->pctr1, need * sizeof(*nv));

				if (!nv)
					return -1;
				e->pctr1 = nv;
				e->pctr1_cap = need;
			}
			memcpy(e->pctr1 + e->pctr1_n, f->pctr1, f->pctr1_n * sizeof(*e->pctr1));
			e->pctr1_n = need;
		}
		e->pctr1_sum += f->pctr1_sum;
		e->redirects += f->redirects;
		e->skid_n += f->skid_n;
		e->skid_undef += f->skid_undef;
		e->skid_sum += f->skid_sum;
		if (f->skid_max > e->skid_max)
			e->skid_max = f->skid_max;
		if (f->ibs) {
			if (!e->ibs) {
				e->ibs = f->ibs; /* moved */
				f->ibs = NULL;
			} else if (rep_ibs_merge(e->ibs, f->ibs)) {
				return -1;
			}
		}
	}
	for (size_t i = 0; i < nev; i++) {
		a->ev_samples[i] += b->ev_samples[i];
		a->ev_period[i] += b->ev_period[i];
		a->ev_pm[i] += b->ev_pm[i];
		a->ev_ibs[i] += b->ev_ibs[i];
		a->ev_inexact[i] += b->ev_inexact[i];
		a->ev_ip_differs[i] += b->ev_ip_differs[i];
		a->ev_skid_undef[i] += b->ev_skid_undef[i];
	}
	for (int i = 0; i < 8; i++)
		a->skid_hist[i] += b->skid_hist[i];
	a->last = 0;
	return 0;
}

static int rep_cmp(const void *pa, const void *pb)
{
	const struct rep_entry *a = pa, *b = pb;
	int c;

	if (a->event_idx != b->event_idx)
		return a->event_idx < b->event_idx ? -1 : 1;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if ((c = strcmp(a->dso, b->dso)))
		return c;
	if ((c = strcmp(a->sym, b->sym)))
		return c;
	if (a->pc != b->pc)
		return a->pc < b->pc ? -1 : 1;
	if ((c = strcmp(a->comm, b->comm)))
		return c;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

void rep_agg_sort(struct rep_agg *a)
{
	if (a->n)
		qsort(a->e, a->n, sizeof(*a->e), rep_cmp);
	/* The hash table indexes are stale now. */
	a->last = 0;
	free(a->tab);
	a->tab = NULL;
	a->tab_cap = 0;
}

void rep_agg_free(struct rep_agg *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct rep_ibs_agg *g = a->e[i].ibs;

		free(a->e[i].pctr1);
		if (g) {
			rep_vals_free(&g->tag);
			rep_vals_free(&g->comp);
			rep_vals_free(&g->dclat);
			rep_vals_free(&g->flat);
			free(g);
		}
	}
	free(a->e);
	free(a->tab);
	free(a->memo);
	free(a->ev_samples);
	free(a->ev_period);
	free(a->ev_pm);
	free(a->ev_ibs);
	free(a->ev_inexact);
	free(a->ev_ip_differs);
	free(a->ev_skid_undef);
	memset(a, 0, sizeof(*a));
}

uint32_t rep_entry_quartile(struct rep_entry *e, int q)
{
	size_t rank;

	if (!e->pctr1_n)
		return 0;
	qsort(e->pctr1, e->pctr1_n, sizeof(uint32_t), rep_u32cmp);
	/* nearest rank: ceil(q/4 * n), 1-based */
	rank = (e->pctr1_n * (size_t)q + 3) / 4;
	if (rank < 1)
		rank = 1;
	return e->pctr1[rank - 1];
}

int rep_entry_counts(const struct rep_entry *e)
{
	int best = 0;

	for (int i = 1; i < PM_PROFILEME_COUNTS_COUNT; i++)
		if (e->counts[i] > e->counts[best])
			best = i;
	return best;
}

int rep_entry_counts0(const struct rep_entry *e)
{
	int best = 0;

	for (int i = 1; i < PM_PROFILEME_COUNTS_COUNT; i++)
		if (e->counts0[i] > e->counts0[best])
			best = i;
	return best;
}
