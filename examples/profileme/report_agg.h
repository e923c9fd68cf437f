/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Aggregation of resolved samples by sort keys (profileme report/annotate). */
#ifndef PM_REPORT_AGG_H
#define PM_REPORT_AGG_H

#include "report_core.h"

enum { REP_K_SYM = 1, REP_K_DSO = 2, REP_K_PC = 4, REP_K_COMM = 8, REP_K_PID = 16 };

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
	uint64_t counts[PM_PROFILEME_COUNTS_COUNT];
	uint32_t *pctr1;
	size_t pctr1_n, pctr1_cap;
	double pctr1_sum;
	/* skid: samples whose ip differs from the profiled pc */
	uint64_t skid_n, skid_max;
	double skid_sum;
};

struct rep_agg {
	unsigned keys;               /* REP_K_* */
	struct rep_entry *e;
	size_t n, cap;
	size_t *tab;                 /* open addressing: entry index + 1 */
	size_t tab_cap;
	uint64_t *ev_samples, *ev_period, *ev_pm;
	uint64_t skid_hist[8];       /* per report: 0, 1-4, 5-16, 17-64, 65-256, 257-4K, 4K-64K, more */
	size_t nr_events;
};

int rep_agg_init(struct rep_agg *a, unsigned keys, size_t nr_events);
int rep_agg_add(struct rep_agg *a, const struct rep_sample *s);
/* Sort the entries: per event, then period, samples, names. */
void rep_agg_sort(struct rep_agg *a);
void rep_agg_free(struct rep_agg *a);
/* Quartile p (1..3) of an entry's PCTR1 values (nearest rank); sorts them. */
uint32_t rep_entry_quartile(struct rep_entry *e, int q);
/* The most frequent pctr1_counts code of an entry. */
int rep_entry_counts(const struct rep_entry *e);
const char *rep_skid_bucket_name(int i);

#endif
