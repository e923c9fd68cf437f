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
	bool skid;            /* attribute to the sample ip instead of the profiled pc? no: see .c */
	bool quiet;           /* no progress, no notes */
};

struct rep_sample {
	int event_idx;
	uint32_t pid, tid;
	const char *comm;     /* interned, valid until rep_close() */
	uint64_t ip;          /* the sample's ip */
	uint64_t addr;        /* the attributed address: profiled pc for ProfileMe, else ip */
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
	bool skid;            /* profiled pc != sample ip */
	int64_t skid_dist;    /* ip - pc when skid */
	struct pm_profileme_sample pm;
};

struct rep_ctx;
typedef int (*rep_cb)(void *user, const struct rep_sample *s);

/* Opens the file and the symbolizer; prints why it fails on stderr. */
int rep_open(struct rep_ctx **out, const struct rep_opts *o);
/* Reads every record, calling cb for each sample; returns 0 or 1 (error printed). */
int rep_run(struct rep_ctx *c, rep_cb cb, void *user);
void rep_close(struct rep_ctx *c);

pm_file *rep_file(struct rep_ctx *c);
pm_symbolizer *rep_symbolizer(struct rep_ctx *c);
/* The symbolizer's path for a dso name (symfs applied), in buf. */
const char *rep_dso_path(struct rep_ctx *c, const char *dso, char *buf, size_t cap);
/* "(synthetic)" when the recording says it is synthetic, else "". */
bool rep_is_synthetic(struct rep_ctx *c);
/* True when the event's samples are ProfileMe samples. */
bool rep_event_is_pm(struct rep_ctx *c, int event_idx);
const char *rep_event_name(struct rep_ctx *c, int event_idx);
/* Samples seen per event, samples whose ProfileMe payload did not decode. */
uint64_t rep_bad_payloads(struct rep_ctx *c);
uint64_t rep_lost(struct rep_ctx *c);
/* Base name of a path ("[kernel.kallsyms]" stays). */
const char *rep_basename(const char *dso);
/* The recording's architecture (ARCH feature, else the host's). */
const char *rep_arch(struct rep_ctx *c);

#endif /* PM_REPORT_CORE_H */
