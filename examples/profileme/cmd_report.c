/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * profileme report: summarise a perf.data file by symbol, module, pc,
 * command and pid, like `perf report --stdio`; for ProfileMe recordings also
 * what happened to the profiled instructions (not killed/killed, stalls,
 * traps, mispredicts, PCTR1); for AMD IBS latencies, branches, data cache
 * and TLB misses, data sources.  With a command, records it first with the engine of
 * `profileme record`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record_engine.h"
#include "report_agg.h"
#include "report_callgraph.h"

struct rpt {
	struct rep_agg agg;
	unsigned keys;
	unsigned order[8];   /* sort keys in the order given */
	int nkeys;
	bool json, skid;
};

static void rpt_usage(FILE *f)
{
	fprintf(f,
		"usage: profileme report [-i FILE] [--sort KEYS] [--json] [--skid] [-j N]\n"
		"                        [--symfs DIR] [--kallsyms FILE] [-q] [--strict]\n"
		"                        [-e EVENT] [-c PERIOD | -F FREQ] [-o FILE] [-- CMD ARGS...]\n"
		"  -i FILE          perf.data file (default ./perf.data)\n"
		"  --sort KEYS      comma-separated: sym, dso, pc, comm, pid (default comm,dso,sym)\n"
		"  --json           one JSON object per row\n"
		"  --skid           ProfileMe: where the sample ip and the profiled pc differ within one\n"
		"                   address space, how far (PAL samples have no distance)\n"
		"  --symfs DIR      look for the mapped files under DIR\n"
		"  --kallsyms FILE  kernel symbols from FILE\n"
		"  --strict         a pipe stream cut short is an error (default: a warning)\n"
		"  -j N, --jobs N   read a file-mode recording on N threads, chunk by chunk, the\n"
		"                   same output; pipe streams and perf record -z files are read\n"
		"                   by one thread\n"
		"  -g [ORDER], --call-graph ORDER, --children, --no-children, --percent-limit PCT\n"
		"                   the call-graph tree of a recording with callchains, as perf\n"
		"                   report --stdio -g (`profileme report -g --help`)\n"
		"  -- CMD ARGS...   record CMD first (as profileme record: -e/-c/-F apply), into a\n"
		"                   temporary file removed afterwards, or into -o FILE (kept)\n");
}

static int rpt_parse_sort(struct rpt *r, const char *v)
{
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", v);
	r->keys = 0;
	r->nkeys = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned k;

		if (!strcmp(t, "sym") || !strcmp(t, "symbol"))
			k = REP_K_SYM;
		else if (!strcmp(t, "dso"))
			k = REP_K_DSO;
		else if (!strcmp(t, "pc") || !strcmp(t, "ip"))
			k = REP_K_PC;
		else if (!strcmp(t, "comm"))
			k = REP_K_COMM;
		else if (!strcmp(t, "pid"))
			k = REP_K_PID;
		else {
			cli_error("report", "unknown sort key '%s' (sym, dso, pc, comm, pid)", t);
			return -1;
		}
		if (r->keys & k)
			continue;
		r->keys |= k;
		r->order[r->nkeys++] = k;
	}
	if (!r->nkeys) {
		cli_error("report", "empty --sort");
		return -1;
	}
	return 0;
}

static int rpt_cb(void *user, const struct rep_sample *s)
{
	struct rpt *r = user;

	return rep_agg_add(&r->agg, s) ? 1 : 0;
}

static int rpt_cb_n(void *user, const struct rep_sample *s, uint64_t n, uint64_t period)
{
	struct rpt *r = user;

	return rep_agg_add_n(&r->agg, s, n, period) ? 1 : 0;
}

static const char *rpt_trap_list(const struct rep_entry *e, char *buf, size_t cap)
{
	size_t used = 0;
	bool done[PM_PROFILEME_TRAP_COUNT] = { false };

	buf[0] = 0;
	for (int k = 0; k < 3; k++) {
		int best = -1;

		for (int i = 0; i < PM_PROFILEME_TRAP_COUNT; i++)
			if (i != PM_PROFILEME_TRAP_NONE && !done[i] && e->traps[i] && (best < 0 || e->traps[i] > e->traps[best]))
				best = i;
		if (best < 0)
			break;
		done[best] = true;
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s %" PRIu64,
					 used ? ", " : "", pm_profileme_trap_name(best), e->traps[best]);
		if (used >= cap)
			break;
	}
	return buf;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* The row's JSON is the library's (pm_json_report_row()); this only fills
 * in the row from the aggregate. */
static void rpt_jdist(struct pm_report_dist *d, struct rep_vals *v)
{
	d->n = v->n;
	if (!v->n)
		return;
	d->mean = rep_vals_mean(v);
	d->q1 = rep_vals_quartile(v, 1);
	d->median = rep_vals_quartile(v, 2);
	d->q3 = rep_vals_quartile(v, 3);
	d->max = rep_vals_quartile(v, 4);
}

static void rpt_tally(struct pm_report_tally *t, const uint64_t v[2])
{
	t->total = v[0];
	t->hits = v[1];
}

static void rpt_json_row(struct rpt *r, struct rep_ctx *c, struct rep_entry *e)
{
	static const int key_of[] = { [REP_K_SYM] = PM_REPORT_KEY_SYM, [REP_K_DSO] = PM_REPORT_KEY_DSO,
				      [REP_K_PC] = PM_REPORT_KEY_PC, [REP_K_COMM] = PM_REPORT_KEY_COMM,
				      [REP_K_PID] = PM_REPORT_KEY_PID };
	size_t ev = e->event_idx >= 0 ? (size_t)e->event_idx : 0;
	struct pm_report_row row = { .sz = sizeof(row) };
	struct pm_report_profileme pm = { 0 };
	struct pm_report_ibs ib = { 0 };
	const char *src_names[32], *pgsz_names[4];
	int keys[8];
	char tmp[4096], *big = NULL;
	int n;

	row.event = rep_event_name(c, e->event_idx);
	row.samples = e->samples;
	row.period = e->period;
	row.event_period = r->agg.ev_period[ev];
	for (int i = 0; i < r->nkeys; i++)
		keys[i] = key_of[r->order[i]];
	row.keys = keys;
	row.nr_keys = (size_t)r->nkeys;
	row.sym = e->sym;
	row.dso = rep_basename(e->dso);
	row.pc = e->pc;
	row.comm = e->comm;
	row.pid = e->pid;
	if (e->pm_n) {
		/* Only what the bits say: KILLED, trapped = TRP && !KILLED, ... */
		pm.n = e->pm_n;
		pm.killed = e->killed;
		pm.stalled = e->stalled;
		pm.trapped = e->trapped;
		pm.mispredicted = e->mispred;
		pm.pal_redirects = e->redirects;
		pm.icache_miss = e->icm;
		pm.traps = e->traps;
		pm.pctr0_counts = rep_entry_counts0(e);
		pm.pctr1_counts = rep_entry_counts(e);
		pm.pctr1_mean = e->pctr1_sum / (double)e->pm_n;
		pm.pctr1_min = rep_entry_quartile(e, 0);
		pm.pctr1_q1 = rep_entry_quartile(e, 1);
		pm.pctr1_median = rep_entry_quartile(e, 2);
		pm.pctr1_q3 = rep_entry_quartile(e, 3);
		pm.pctr1_max = e->pctr1[e->pctr1_n - 1];
		pm.skid = r->skid;
		pm.skid_samples = e->skid_n;
		pm.skid_mean = e->skid_n ? e->skid_sum / (double)e->skid_n : 0.0;
		pm.skid_max = e->skid_max;
		pm.skid_undefined = e->skid_undef;
		row.profileme = &pm;
	}
	if (e->ibs) {
		struct rep_ibs_agg *g = e->ibs;

		ib.op = rep_event_ibs(c, e->event_idx) == PM_IBS_KIND_OP;
		ib.n = g->n;
		ib.exact = g->exact;
		ib.inexact = g->inexact;
		ib.ip_differs = g->ip_differs;
		ib.ops = g->ops;
		rpt_jdist(&ib.tag_to_ret, &g->tag);
		rpt_jdist(&ib.comp_to_ret, &g->comp);
		ib.branches = g->brn;
		ib.branch_taken = g->brn_taken;
		ib.branch_mispredicted = g->brn_misp;
		ib.loads = g->ld;
		ib.stores = g->st;
		ib.dc_miss = g->dc_miss;
		ib.dtlb_l1_miss = g->dtlb_l1;
		ib.dtlb_l2_miss = g->dtlb_l2;
		rpt_jdist(&ib.dc_miss_lat, &g->dclat);
		for (int i = 0; i < 32; i++)
			src_names[i] = g->src[i] ? rep_ibs_data_src_name(c, i) : NULL;
		ib.nr_data_src = 32;
		ib.data_src = g->src;
		ib.data_src_names = src_names;
		rpt_jdist(&ib.fetch_lat, &g->flat);
		ib.fetch_completed = g->fetch_comp;
		rpt_tally(&ib.ic_miss, g->icm);
		rpt_tally(&ib.itlb_l1_miss, g->itlb1);
		rpt_tally(&ib.itlb_l2_miss, g->itlb2);
		rpt_tally(&ib.l2_miss, g->l2);
		rpt_tally(&ib.l3_miss, g->l3);
		rpt_tally(&ib.oc_miss, g->oc);
		for (int i = 0; i < 4; i++)
			pgsz_names[i] = g->pgsz[i] ? rep_ibs_pgsz_name(c, i) : NULL;
		ib.nr_page_size = 4;
		ib.page_size = g->pgsz;
		ib.page_size_names = pgsz_names;
		row.ibs = &ib;
	}
	n = pm_json_report_row(&row, tmp, sizeof(tmp));
	if (n >= (int)sizeof(tmp) && (big = malloc((size_t)n + 1)))
		n = pm_json_report_row(&row, big, (size_t)n + 1);
	if (n < 0 || (n >= (int)sizeof(tmp) && !big)) {
		if (n >= 0)
			errno = ENOMEM;
		cli_out_note(); /* the output is incomplete; main() says why */
	} else {
		fwrite(big ? big : tmp, 1, (size_t)n, stdout);
		putchar('\n');
	}
	free(big);
}

static int rpt_width(struct rep_agg *a, size_t from, size_t to, unsigned k, int min)
{
	int w = min;

	for (size_t i = from; i < to; i++) {
		int l = 0;
		char buf[32];

		switch (k) {
		case REP_K_SYM: l = (int)strlen(a->e[i].sym) + 4; break;
		case REP_K_DSO: l = (int)strlen(rep_basename(a->e[i].dso)); break;
		case REP_K_COMM: l = (int)strlen(a->e[i].comm); break;
		case REP_K_PID: l = snprintf(buf, sizeof(buf), "%u", a->e[i].pid); break;
		case REP_K_PC: l = snprintf(buf, sizeof(buf), "0x%" PRIx64, a->e[i].pc); break;
		}
		if (l > w)
			w = l;
	}
	return w > 60 ? 60 : w;
}

static const char *rpt_key_title(unsigned k)
{
	switch (k) {
	case REP_K_SYM: return "Symbol";
	case REP_K_DSO: return "Shared Object";
	case REP_K_COMM: return "Command";
	case REP_K_PID: return "Pid";
	default: return "Address";
	}
}

static void rpt_dots(int w)
{
	for (int i = 0; i < w; i++)
		putchar('.');
}

/* "mean q1/med/q3" of a value list, or "-". */
static const char *rpt_dist(struct rep_vals *v, char *buf, size_t cap)
{
	if (!v->n)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.0f %u/%u/%u", rep_vals_mean(v), rep_vals_quartile(v, 1),
			 rep_vals_quartile(v, 2), rep_vals_quartile(v, 3));
	return buf;
}

static const char *rpt_pct(uint64_t a, uint64_t b, char *buf, size_t cap)
{
	if (!b)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.1f%%", pct(a, b));
	return buf;
}

/* The most frequent data source of loads (or page size of fetches). */
static const char *rpt_top(struct rep_ctx *c, const struct rep_ibs_agg *g, bool op, char *buf, size_t cap)
{
	const uint64_t *t = op ? g->src : g->pgsz;
	int n = op ? 32 : 4, best = -1;
	uint64_t tot = op ? g->src_n : g->pgsz_n;

	for (int i = 0; i < n; i++)
		if (t[i] && (best < 0 || t[i] > t[best]))
			best = i;
	if (best < 0)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%s %.0f%%", op ? rep_ibs_data_src_name(c, best) : rep_ibs_pgsz_name(c, best),
			 pct(t[best], tot));
	return buf;
}

static const char *const ibs_op_cols[] = { "Exact", "Tag-to-retire", "Comp-to-retire", "Br", "Taken",
					   "Misp", "Ld/St", "DCmiss", "DC miss latency", "DTLB L1/L2" };
static const int ibs_op_w[] = { 6, 17, 17, 5, 6, 6, 9, 7, 17, 10 };
static const char *const ibs_fetch_cols[] = { "Exact", "Fetch latency", "ICmiss", "ITLB L1", "ITLB L2",
					      "L2miss", "L3miss" };
static const int ibs_fetch_w[] = { 6, 17, 7, 7, 7, 7, 7 };

static void rpt_ibs_cells(struct rep_ctx *c, struct rep_entry *e, bool op)
{
	struct rep_ibs_agg *g = e->ibs;
	char b[10][64];

	if (!g) {
		for (size_t k = 0; k < (op ? 10u : 7u); k++)
			printf("  %*s", op ? ibs_op_w[k] : ibs_fetch_w[k], "-");
		return;
	}
	if (op) {
		snprintf(b[0], 64, "%" PRIu64, g->exact);
		rpt_dist(&g->tag, b[1], 64);
		rpt_dist(&g->comp, b[2], 64);
		snprintf(b[3], 64, "%" PRIu64, g->brn);
		rpt_pct(g->brn_taken, g->brn, b[4], 64);
		rpt_pct(g->brn_misp, g->brn, b[5], 64);
		snprintf(b[6], 64, "%" PRIu64 "/%" PRIu64, g->ld, g->st);
		rpt_pct(g->dc_miss, g->ld + g->st, b[7], 64);
		rpt_dist(&g->dclat, b[8], 64);
		snprintf(b[9], 64, "%" PRIu64 "/%" PRIu64, g->dtlb_l1, g->dtlb_l2);
		for (int k = 0; k < 10; k++)
			printf("  %*s", ibs_op_w[k], b[k]);
	} else {
		snprintf(b[0], 64, "%" PRIu64, g->exact);
		rpt_dist(&g->flat, b[1], 64);
		rpt_pct(g->icm[1], g->icm[0], b[2], 64);
		rpt_pct(g->itlb1[1], g->itlb1[0], b[3], 64);
		rpt_pct(g->itlb2[1], g->itlb2[0], b[4], 64);
		rpt_pct(g->l2[1], g->l2[0], b[5], 64);
		rpt_pct(g->l3[1], g->l3[0], b[6], 64);
		for (int k = 0; k < 7; k++)
			printf("  %*s", ibs_fetch_w[k], b[k]);
	}
	(void)c;
}

static void rpt_text(struct rpt *r, struct rep_ctx *c)
{
	struct rep_agg *a = &r->agg;
	size_t i = 0;

	printf("# profileme report%s\n#\n", rep_is_synthetic(c) ? " (synthetic)" : "");
	if (rep_is_synthetic(c)) {
		const char *h = pm_file_feature_string(rep_file(c), PM_FEAT_HOSTNAME);
		const char *d = pm_file_feature_string(rep_file(c), PM_FEAT_CPUDESC);

		printf("# SYNTHETIC recording: hostname %s, cpu %s\n#\n", h ? h : "?", d ? d : "?");
	}
	printf("# Total Lost Samples: %" PRIu64 "\n#\n", rep_lost(c));
	while (i < a->n) {
		size_t j = i;
		int ev = a->e[i].event_idx;
		size_t evi = ev >= 0 ? (size_t)ev : 0;
		bool pm = a->ev_pm[evi] > 0;
		int ibs = a->ev_ibs[evi] ? rep_event_ibs(c, ev) : 0;
		bool op = ibs == PM_IBS_KIND_OP;
		int w[8];
		int counts = 0, counts0 = 0;
		uint64_t cnt[PM_PROFILEME_COUNTS_COUNT] = { 0 }, cnt0[PM_PROFILEME_COUNTS_COUNT] = { 0 };

		while (j < a->n && a->e[j].event_idx == ev)
			j++;
		for (size_t k = i; k < j; k++)
			for (int q = 0; q < PM_PROFILEME_COUNTS_COUNT; q++) {
				cnt[q] += a->e[k].counts[q];
				cnt0[q] += a->e[k].counts0[q];
			}
		for (int q = 1; q < PM_PROFILEME_COUNTS_COUNT; q++) {
			if (cnt[q] > cnt[counts])
				counts = q;
			if (cnt0[q] > cnt0[counts0])
				counts0 = q;
		}
		printf("# Samples: %" PRIu64 " of event '%s'%s\n", a->ev_samples[evi],
		       rep_event_name(c, ev), rep_is_synthetic(c) ? " (synthetic)" : "");
		printf("# Event count (approx.): %" PRIu64 "\n", a->ev_period[evi]);
		if (pm) {
			printf("# ProfileMe samples: %" PRIu64 "; PCTR0 sampled on %s%s; PCTR1 counts %s in "
			       "the window (mean and quartiles q1/median/q3 per row)\n",
			       a->ev_pm[evi], pm_profileme_counts_name(counts0),
			       counts0 == PM_PROFILEME_COUNTS_INSTRUCTIONS ?
				       " (fetched, wrong path included: docs/raw.md)" : "",
			       pm_profileme_counts_name(counts));
			{
				const struct pm_attr *at = ev >= 0 ? pm_file_attr(rep_file(c), (size_t)ev) : NULL;
				int code = 0, c0 = 0, c1 = 0;
				int m = at ? pm_profileme_event_map(at, &code, &c0, &c1) : 0;

				if (m == 1)
					printf("# ProfileMe event code %d: the driver samples on %s (PCTR0) and counts "
					       "%s (PCTR1)\n", code, pm_profileme_counts_name(c0),
					       pm_profileme_counts_name(c1));
				else if (m < 0)
					printf("# %s\n", pm_errmsg());
			}
			printf("# Fate, as the bits say: NotKilled = not KILLED (not \"retired\"), Trap%% = TRP "
			       "and not killed, Misp%% = trapped and MIS, Stall%% = STALLED\n");
			printf("# A PAL redirect (ITB miss, Istream access violation, interrupt) is charged to "
			       "the trapping instruction; other PALmode samples to [PALcode]\n");
			if (rep_bad_payloads(c))
				printf("# %" PRIu64 " samples whose raw payload is not a ProfileMe sample "
				       "(counted, no ProfileMe columns)\n", rep_bad_payloads(c));
		}
		if (ibs) {
			printf("# IBS %s samples: %" PRIu64 ", exact (charged to the %s) %" PRIu64
			       ", inexact (%s) %" PRIu64 "\n",
			       op ? "op" : "fetch", a->ev_ibs[evi], op ? "valid IbsOpRip" : "IbsFetchLinAd",
			       a->ev_ibs[evi] - a->ev_inexact[evi],
			       op ? "RipInvalid: the interrupted ip" : "not valid", a->ev_inexact[evi]);
			if (a->ev_ip_differs[evi])
				printf("# %" PRIu64 " exact samples whose sample ip differs from IbsOpRip: "
				       "charged to IbsOpRip\n", a->ev_ip_differs[evi]);
			printf("# Columns over each row's exact samples; latencies in cycles: mean "
			       "q1/median/q3 (docs/report.md)\n");
			if (r->skid)
				printf("# IBS records no interrupted ip for an exact sample: no skid to show\n");
			if (rep_bad_ibs(c))
				printf("# %" PRIu64 " samples whose IBS payload does not decode (counted, no "
				       "IBS columns)\n", rep_bad_ibs(c));
		}
		printf("#\n# Overhead       Samples");
		if (pm) {
			printf("  NotKilled  Killed  Stall%%  Trap%%  Misp%%  %14s  %17s", "PCTR1 mean",
			       "q1/med/q3");
			if (r->skid)
				printf("  %7s %9s", "Skid", "mean/max");
		}
		if (ibs)
			for (size_t k = 0; k < (op ? 10u : 7u); k++)
				printf("  %*s", op ? ibs_op_w[k] : ibs_fetch_w[k], op ? ibs_op_cols[k] : ibs_fetch_cols[k]);
		for (int k = 0; k < r->nkeys; k++) {
			w[k] = rpt_width(a, i, j, r->order[k], (int)strlen(rpt_key_title(r->order[k])));
			if (r->order[k] == REP_K_PC && w[k] < 9)
				w[k] = 9;
			printf("  %-*s", k == r->nkeys - 1 && !pm && !ibs ? 0 : w[k], rpt_key_title(r->order[k]));
		}
		if (pm)
			printf("  Traps");
		if (ibs)
			printf("  %s", op ? "Data source (loads)" : "Page size");
		printf("\n# ........  ............");
		if (pm) {
			printf("  .........  ......  ......  .....  .....  ..............  .................");
			if (r->skid)
				printf("  ....... .........");
		}
		if (ibs)
			for (size_t k = 0; k < (op ? 10u : 7u); k++) {
				printf("  ");
				rpt_dots(op ? ibs_op_w[k] : ibs_fetch_w[k]);
			}
		for (int k = 0; k < r->nkeys; k++) {
			printf("  ");
			rpt_dots(w[k]);
		}
		if (pm || ibs)
			printf("  .....");
		printf("\n#\n");
		for (size_t k = i; k < j; k++) {
			struct rep_entry *e = &a->e[k];

			printf("%9.2f%%  %12" PRIu64, pct(e->period, a->ev_period[evi]), e->samples);
			if (pm) {
				if (e->pm_n) {
					char q[48];

					snprintf(q, sizeof(q), "%u/%u/%u", rep_entry_quartile(e, 1),
						 rep_entry_quartile(e, 2), rep_entry_quartile(e, 3));
					printf("  %9" PRIu64 "  %6" PRIu64 "  %5.1f%%  %4.1f%%  %4.1f%%  %14.1f  %17s",
					       e->pm_n - e->killed, e->killed, pct(e->stalled, e->pm_n),
					       pct(e->trapped, e->pm_n), pct(e->mispred, e->pm_n),
					       e->pctr1_sum / (double)e->pm_n, q);
				} else {
					printf("  %9s  %6s  %6s  %5s  %5s  %14s  %17s", "-", "-", "-", "-",
					       "-", "-", "-");
				}
				if (r->skid) {
					if (e->skid_n)
						printf("  %7" PRIu64 " %#llx/%#llx", e->skid_n,
						       (unsigned long long)(e->skid_sum / (double)e->skid_n),
						       (unsigned long long)e->skid_max);
					else
						printf("  %7s %9s", e->pm_n && e->skid_undef == e->pm_n ? "n/a" : "-", "");
				}
			}
			if (ibs)
				rpt_ibs_cells(c, e, op);
			for (int kk = 0; kk < r->nkeys; kk++) {
				int wd = kk == r->nkeys - 1 && !pm && !ibs ? 0 : w[kk];
				char buf[400];

				switch (r->order[kk]) {
				case REP_K_SYM:
					snprintf(buf, sizeof(buf), "[%c] %s", e->level, e->sym);
					break;
				case REP_K_DSO:
					snprintf(buf, sizeof(buf), "%s", rep_basename(e->dso));
					break;
				case REP_K_COMM:
					snprintf(buf, sizeof(buf), "%s", e->comm);
					break;
				case REP_K_PID:
					snprintf(buf, sizeof(buf), "%u", e->pid);
					break;
				default:
					if (e->ibs && !strcmp(e->sym, "[inexact]"))
						snprintf(buf, sizeof(buf), "[inexact]");
					else
						snprintf(buf, sizeof(buf), "0x%" PRIx64, e->pc);
				}
				if (r->order[kk] == REP_K_PID)
					printf("  %*s", wd, buf);
				else
					printf("  %-*s", wd, buf);
			}
			if (pm && e->pm_n) {
				char t[256];

				printf("  %s", rpt_trap_list(e, t, sizeof(t)));
			}
			if (ibs && e->ibs) {
				char t[128];

				printf("  %s", rpt_top(c, e->ibs, op, t, sizeof(t)));
			}
			printf("\n");
		}
		if (pm && r->skid) {
			printf("#\n# Skid (|sample ip - profiled pc| in bytes, where both are virtual addresses "
			       "of one address space):");
			for (int b = 0; b < 8; b++)
				printf(" %s:%" PRIu64, rep_skid_bucket_name(b), a->skid_hist[b]);
			printf("\n# No distance for %" PRIu64 " samples (PALmode PMPC: a physical address; user "
			       "PMPC in a kernel thread)\n", a->ev_skid_undef[evi]);
		}
		printf("\n");
		i = j;
	}
}

static int rpt_record(int argc, char **argv, int cmd_at, const char *out, char *tmp, size_t tmpcap,
		      char **rec_args, const char **input)
{
	/* argv: the report's options before cmd_at that profileme record knows. */
	char **av = calloc((size_t)argc + 8, sizeof(char *));
	int n = 0, rc;

	if (!av)
		return 1;
	av[n++] = "record";
	for (int i = 0; rec_args[i]; i++)
		av[n++] = rec_args[i];
	if (out) {
		snprintf(tmp, tmpcap, "%s", out);
		fprintf(stderr, "profileme report: recording into %s\n", tmp);
	} else {
		const char *d = getenv("TMPDIR");
		int fd;

		snprintf(tmp, tmpcap, "%s/profileme-report-XXXXXX", d && *d ? d : "/tmp");
		fd = mkstemp(tmp);
		if (fd < 0) {
			cli_error("report", "temporary file: %s", strerror(errno));
			free(av);
			return 1;
		}
		close(fd);
		fprintf(stderr, "profileme report: recording into temporary file %s (removed "
				"after the report; -o FILE keeps it)\n", tmp);
	}
	av[n++] = "-o";
	av[n++] = tmp;
	av[n++] = "--";
	for (int i = cmd_at; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	rc = pm_cli_record_main(n, av, 0);
	free(av);
	*input = tmp;
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct rpt r;
	struct rep_opts o = { .cmd = "report", .input = "perf.data" };
	struct rep_ctx *c = NULL;
	const char *out = NULL;
	char *rec_args[16];
	int nrec = 0, cmd_at = -1, ret = 1;
	char tmp[4096] = "";
	bool tmp_made = false, damaged = false;
	struct rep_jobs *jobs_keep = NULL;
	int jobs = 1;

	if (rpt_callgraph_wanted(argc, argv))
		return rpt_callgraph(argc, argv); /* report_callgraph.c */
	memset(&r, 0, sizeof(r));
	rpt_parse_sort(&r, "comm,dso,sym");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int in;
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			cmd_at = i + 1;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			rpt_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--json")) {
			r.json = true;
		} else if (!strcmp(a, "--skid")) {
			r.skid = true;
		} else if (!strcmp(a, "-q")) {
			o.quiet = true;
		} else if (!strcmp(a, "--strict")) {
			o.strict = true;
		} else if (!strncmp(a, "--sort=", 7) || !strncmp(a, "-s", 2)) {
			const char *val = a[1] == 's' ? (a[2] ? a + 2 : v) : a + 7;

			if (!val || rpt_parse_sort(&r, val))
				return 2;
			if (val == v)
				i++;
		} else if (!strcmp(a, "--sort")) {
			if (!v || rpt_parse_sort(&r, v))
				return 2;
			i++;
		} else if ((in = cli_jobs_opt("report", argc, argv, &i, &jobs))) {
			if (in < 0)
				return 2;
		} else if ((in = cli_input_opt("report", argc, argv, &i, &o.input, &o.symfs,
						&o.kallsyms))) {
			if (in < 0)
				return 2;
		} else if (v && !strcmp(a, "-o")) {
			out = v;
			i++;
		} else if (v && (!strcmp(a, "-e") || !strcmp(a, "-c") || !strcmp(a, "-F")) &&
			   nrec < 12) {
			rec_args[nrec++] = (char *)a;
			rec_args[nrec++] = (char *)v;
			i++;
		} else if (a[0] != '-') {
			cmd_at = i;
			break;
		} else {
			cli_error("report", "unknown option or missing value: %s", a);
			rpt_usage(stderr);
			return 2;
		}
	}
	rec_args[nrec] = NULL;
	if (cmd_at >= 0 && cmd_at < argc) {
		int rc = rpt_record(argc, argv, cmd_at, out, tmp, sizeof(tmp), rec_args, &o.input);

		tmp_made = !out;
		if (rc) {
			ret = rc;
			goto done;
		}
	} else if (nrec || out) {
		cli_error("report", "-e/-c/-F/-o apply only to recording a command (-- CMD)");
		return 2;
	}
	if (rep_open(&c, &o))
		goto done;
	if (rep_agg_init(&r.agg, r.keys, pm_file_nr_attrs(rep_file(c))))
		goto done;
	/* damage: the report of the samples before it, then exit 1 */
	if (jobs > 1) {
		int jr = rep_run_jobs(&c, jobs, &r.agg, &jobs_keep, &damaged);

		if (jr < 0)
			goto done;
		if (jr == 1) /* one thread: a pipe, zstd, no time windows, damage */
			damaged = rep_run_n(c, rpt_cb, rpt_cb_n, &r) != 0;
	} else {
		damaged = rep_run_n(c, rpt_cb, rpt_cb_n, &r) != 0;
	}
	if (!o.quiet && rep_bad_payloads(c))
		fprintf(stderr, "profileme report: %" PRIu64 " samples of a ProfileMe event have a raw "
				"payload that is not a ProfileMe sample\n", rep_bad_payloads(c));
	if (!o.quiet && rep_bad_ibs(c))
		fprintf(stderr, "profileme report: %" PRIu64 " samples of an IBS event have a raw payload "
				"that does not decode (profileme script --json says why)\n", rep_bad_ibs(c));
	rep_agg_sort(&r.agg);
	if (r.json) {
		for (size_t i = 0; i < r.agg.n; i++)
			rpt_json_row(&r, c, &r.agg.e[i]);
	} else {
		rpt_text(&r, c);
	}
	ret = cli_flush() || damaged ? 1 : 0;
done:
	rep_agg_free(&r.agg);
	rep_jobs_free(jobs_keep); /* the windows' names, after the output */
	rep_close(c);
	if (tmp_made)
		unlink(tmp);
	return ret;
}
