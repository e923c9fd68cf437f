/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Shared engine of `profileme report` and `profileme annotate`: reads a
 * perf.data file in time order, feeds MMAP/MMAP2/COMM/FORK/EXIT to the
 * symbolizer, tracks thread names, decodes ProfileMe payloads and hands out
 * one resolved sample at a time.  Not part of the library.
 */
#ifndef PM_REPORT_CORE_H
#define PM_REPORT_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include <profileme/profileme.h>

struct rep_opts {
	const char *cmd;      /* "report" or "annotate", for messages */
	const char *input;    /* perf.data path */
	const char *symfs;    /* prefix for mapped files (NULL: none) */
	const char *kallsyms; /* kernel symbols file (NULL: /proc/kallsyms when usable) */
	bool skid;            /* unused by the engine (report --skid) */
	bool quiet;           /* no progress, no notes */
	bool strict;          /* a pipe stream cut short is an error, not a warning */
};

/* The IBS fields a report aggregates, from one decoded payload (absent
 * fields: the matching has_* / *_present flag is false). */
struct rep_ibs {
	int kind;                 /* PM_IBS_KIND_OP / PM_IBS_KIND_FETCH */
	bool valid, exact, ip_differs;
	/* op */
	bool has_data;            /* IBS_OP_DATA present: the two latencies */
	uint32_t tag_to_ret, comp_to_ret;
	bool brn_ret, brn_taken, brn_misp;
	bool has_data3;           /* IBS_OP_DATA3 present */
	bool ld, st, dc_miss, dc_l1tlb_miss, dc_l2tlb_miss;
	uint32_t dc_miss_lat;
	int data_src;             /* -1 when absent */
	/* fetch */
	uint32_t fetch_lat;
	bool fetch_comp;
	int ic_miss, l1tlb_miss, l2tlb_miss, l2_miss, l3_miss, oc_miss; /* -1 absent, else 0/1 */
	int pgsz;                 /* l1tlb_pgsz code, -1 absent */
};

struct rep_sample {
	int event_idx;
	uint32_t pid, tid;
	const char *comm;     /* interned, valid until rep_close() */
	uint64_t ip;          /* the sample's ip */
	uint64_t addr;        /* the charged address: pm_profileme_attribute / pm_ibs_attribute, else ip */
	uint64_t period;
	int cpumode;          /* PM_RECORD_MISC_* cpumode */
	char level;           /* '.', 'k', 'g', 'H', 'u'? as perf prints it */
	const char *sym;      /* "[unknown]" when unknown; borrowed */
	const char *dso;      /* full module name; borrowed */
	uint64_t dso_addr;    /* module-relative file address */
	uint64_t sym_start;   /* file address of the symbol (0 when unknown) */
	bool sym_known;
	bool is_pm;           /* a decoded ProfileMe payload */
	bool pm_bad;          /* a ProfileMe event whose payload did not decode */
	bool skid_valid;      /* ProfileMe: pc and ip in one address space (pm_profileme_attribute) */
	bool skid;            /* skid_valid and the profiled pc != sample ip */
	int64_t skid_dist;    /* ip - pc when skid */
	int pm_charge;        /* ProfileMe: ::pm_profileme_charge of addr */
	struct pm_profileme_sample pm;
	bool is_ibs;          /* a decoded IBS payload */
	bool ibs_bad;         /* an IBS event whose payload did not decode */
	struct rep_ibs ibs;
};

struct rep_ctx;
typedef int (*rep_cb)(void *user, const struct rep_sample *s);

/* Opens the file and the symbolizer; prints why it fails on stderr. */
int rep_open(struct rep_ctx **out, const struct rep_opts *o);
/* Reads every record, calling cb for each sample; returns 0 or 1 (error printed). */
int rep_run(struct rep_ctx *c, rep_cb cb, void *user);
/* n samples alike (the same sample but for their periods, which sum to period). */
typedef int (*rep_cb_n)(void *user, const struct rep_sample *s, uint64_t n, uint64_t period);
/* rep_run() for a caller that only sums samples: samples without a ProfileMe
 * or IBS payload that are alike (event, pid, tid, ip, cpumode) between two
 * records of another type are handed out once to cbn, in the order of their
 * first sample; the others one at a time to cb, in their order. */
int rep_run_n(struct rep_ctx *c, rep_cb cb, rep_cb_n cbn, void *user);
void rep_close(struct rep_ctx *c);

struct rep_agg;
struct rep_jobs;
/* -j N: the chunks of a file-mode recording (jobs.h, CLI_JOBS_STREAM) on N
 * worker threads, each with its own reader of the whole stream, symbolizer
 * and names: a worker applies every record before its chunk as one thread
 * applies it (state only: the samples before it are not decoded) and
 * aggregates its chunk's samples into a table of the chunk; the tables are
 * merged into @p agg in chunk order, the chunks' messages said in their
 * order by the rules of one thread, the counts summed, the end said as one
 * thread says it.  Returns 0 when done (*damaged as rep_run()'s 1; *keep
 * holds the workers' names until rep_jobs_free(), after the output); 1 when
 * the file is one chunk (a pipe, zstd, no index: read it with rep_run_n();
 * nothing said, *cp untouched); -1 after an error message. */
int rep_run_jobs(struct rep_ctx **cp, int jobs, struct rep_agg *agg, struct rep_jobs **keep, bool *damaged);
void rep_jobs_free(struct rep_jobs *keep);

pm_file *rep_file(struct rep_ctx *c);
pm_sym *rep_symbolizer(struct rep_ctx *c);
/* The symbolizer's path for a dso name (symfs applied), in buf. */
const char *rep_dso_path(struct rep_ctx *c, const char *dso, char *buf, size_t cap);
/* "(synthetic)" when the recording says it is synthetic, else "". */
bool rep_is_synthetic(struct rep_ctx *c);
/* True when the event's samples are ProfileMe samples. */
bool rep_event_is_pm(struct rep_ctx *c, int event_idx);
/* PM_IBS_KIND_OP / PM_IBS_KIND_FETCH for an IBS event, else 0. */
int rep_event_ibs(struct rep_ctx *c, int event_idx);
/* The context the payloads are decoded with (data source names). */
const pm_raw_ctx *rep_raw_ctx(struct rep_ctx *c);
/* Name of an IBS op data source / fetch page size code. */
const char *rep_ibs_data_src_name(struct rep_ctx *c, int code);
const char *rep_ibs_pgsz_name(struct rep_ctx *c, int code);
/* Samples of IBS events whose payload did not decode. */
uint64_t rep_bad_ibs(struct rep_ctx *c);
const char *rep_event_name(struct rep_ctx *c, int event_idx);
/* Samples seen per event, samples whose ProfileMe payload did not decode. */
uint64_t rep_bad_payloads(struct rep_ctx *c);
uint64_t rep_lost(struct rep_ctx *c);
/* Base name of a path ("[kernel.kallsyms]" stays). */
const char *rep_basename(const char *dso);
/* The recording's architecture (ARCH feature, else the host's). */
const char *rep_arch(struct rep_ctx *c);

#endif /* PM_REPORT_CORE_H */
