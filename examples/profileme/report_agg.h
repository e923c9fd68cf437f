/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Aggregation of resolved samples by sort keys (profileme report/annotate). */
#ifndef PM_REPORT_AGG_H
#define PM_REPORT_AGG_H

#include "report_core.h"

enum { REP_K_SYM = 1, REP_K_DSO = 2, REP_K_PC = 4, REP_K_COMM = 8, REP_K_PID = 16 };

/* A growing list of u32 values (latencies), for means and quartiles. */
struct rep_vals {
	uint32_t *v;
	size_t n, cap;
	double sum;
	bool sorted;
};

/* IBS aggregates of one row (over its exact samples, see docs/report.md). */
struct rep_ibs_agg {
	uint64_t n, exact, inexact, ip_differs;
	/* op */
	uint64_t ops;                    /* exact ops with IBS_OP_DATA */
	struct rep_vals tag, comp;       /* tag-to-retire, completion-to-retire */
	uint64_t brn, brn_taken, brn_misp;
	uint64_t mem_n;                  /* exact ops with IBS_OP_DATA3 */
	uint64_t ld, st, dc_miss, dtlb_l1, dtlb_l2;
	struct rep_vals dclat;           /* DC miss latency of loads that missed */
	uint64_t src[32], src_n;         /* data source of loads */
	/* fetch */
	struct rep_vals flat;            /* fetch latency */
	uint64_t fetch_comp;             /* completed fetches */
	uint64_t icm[2], itlb1[2], itlb2[2], l2[2], l3[2], oc[2]; /* [0] with the field, [1] set */
	uint64_t pgsz[4], pgsz_n;
};

struct rep_entry {
	int event_idx;
	const char *sym, *dso, *comm;
	uint32_t pid;
	uint64_t pc;          /* dso-relative address (or the address without a map) */
	bool sym_known;
	char level;
	uint64_t samples, period;
	/* ProfileMe */
	uint64_t pm_n, killed, stalled, trapped, mispred, icm;
	uint64_t traps[PM_PROFILEME_TRAP_COUNT];
	uint64_t counts[PM_PROFILEME_COUNTS_COUNT];  /* by pctr1_counts */
	uint64_t counts0[PM_PROFILEME_COUNTS_COUNT]; /* by pctr0_counts */
	uint32_t *pctr1;
	size_t pctr1_n, pctr1_cap;
	double pctr1_sum;
	uint64_t redirects;   /* charged to the trapping instruction of a PAL redirect */
	/* skid: samples whose ip differs from the profiled pc in one address space */
	uint64_t skid_n, skid_max, skid_undef;
	double skid_sum;
	struct rep_ibs_agg *ibs; /* IBS rows only */
};

/* A name's address and the hash of its bytes (rep_agg.memo). */
struct rep_strmemo {
	const char *p;
	uint64_t h;
};

/* The names of the samples added (sym, dso, comm) must stay valid and
 * unchanged until rep_agg_free(): rows keep them, and their hashes are
 * remembered by address. */
struct rep_agg {
	unsigned keys;               /* REP_K_* */
	struct rep_entry *e;
	size_t n, cap;
	size_t *tab;                 /* open addressing: entry index + 1 */
	size_t tab_cap;
	uint64_t *ev_samples, *ev_period, *ev_pm, *ev_ibs;
	uint64_t *ev_inexact, *ev_ip_differs, *ev_skid_undef;
	uint64_t skid_hist[8];       /* per report: 0, 1-4, 5-16, 17-64, 65-256, 257-4K, 4K-64K, more */
	size_t nr_events;
	struct rep_strmemo *memo;    /* open addressing by address */
	size_t memo_n, memo_cap;
	bool no_memo;                /* PROFILEME_REPORT_NO_MEMO: hash the bytes every time */
	size_t last;                 /* entry of the last sample + 1 (0: none) */
};

int rep_agg_init(struct rep_agg *a, unsigned keys, size_t nr_events);
int rep_agg_add(struct rep_agg *a, const struct rep_sample *s);
/* n samples like s of periods summing to period (neither ProfileMe nor IBS:
 * their payloads are added one sample at a time, n = 1). */
int rep_agg_add_n(struct rep_agg *a, const struct rep_sample *s, uint64_t n, uint64_t period);
/* Add the rows and counts of b (the samples after a's, same keys and
 * events) into a, as if they had been added to a after a's own: a row new to
 * a comes after a's rows; a row of both keeps a's first fields (level, the
 * keys not sorted by).  b's names must live as long as a's.  IBS parts are
 * moved out of b.  0, or -1 (no memory). */
int rep_agg_merge(struct rep_agg *a, struct rep_agg *b);
/* Sort the entries: per event, then period, samples, names. */
void rep_agg_sort(struct rep_agg *a);
void rep_agg_free(struct rep_agg *a);
/* Quartile p (1..3) of an entry's PCTR1 values (nearest rank); sorts them. */
uint32_t rep_entry_quartile(struct rep_entry *e, int q);
/* The most frequent pctr1_counts / pctr0_counts code of an entry. */
int rep_entry_counts(const struct rep_entry *e);
int rep_entry_counts0(const struct rep_entry *e);
const char *rep_skid_bucket_name(int i);
/* Mean and quartile q (0 min .. 4 max; nearest rank) of a value list (sorts it). */
double rep_vals_mean(const struct rep_vals *v);
uint32_t rep_vals_quartile(struct rep_vals *v, int q);

#endif
