/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internals of the event module (never installed). */
#ifndef PM_EVENT_INT_H
#define PM_EVENT_INT_H

#include <profileme/event.h>

#include "internal/pm_internal.h"

struct pm_event {
	struct pm_attr attr;
	char *str;           /* the event's text as written (owned) */
	char *name;          /* the name= term, or NULL (owned) */
	const pm_pmu *pmu;   /* resolved PMU, NULL for generic/raw */
	unsigned flags;      /* PM_EVENT_* */
	size_t group;        /* index of the group leader */
	size_t pos;          /* byte offset of the event in the parsed string */
	size_t period_pos;   /* where period=/freq= was written (ProfileMe errors) */
	bool gh_set;         /* G or H was given (perf's exclude_GH) */
	struct pm__cterm *terms; /* per-event config terms (owned) */
	size_t nterms;
};

/* A per-event config term (pm_event_term). */
struct pm__cterm {
	int kind;
	const char *name;  /* static */
	char *value;       /* owned, or NULL */
	uint64_t num;
};

struct pm_event_list {
	struct pm_event *ev;
	size_t n;
	size_t cap;
};

/* A generic (hardware or software) event name. */
struct pm__generic {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* The table of generic names; the first name of each (type, config) is the
 * canonical one used by pm_attr_format(). */
PM_HIDDEN const struct pm__generic *pm__generic_find(const char *name, size_t len);
PM_HIDDEN const char *pm__generic_name(uint32_t type, uint64_t config);

/* The core PMU (the one that serves PERF_TYPE_HARDWARE/HW_CACHE/RAW), or NULL. */
PM_HIDDEN const pm_pmu *pm__core_pmu(const pm_pmu_list *pmus);

/* tracefs (lib/event/tracefs.c).  Paths are bounded by PATH_MAX_TRACEFS. */
#define PATH_MAX_TRACEFS 1024
/* The tracefs root: $PROFILEME_TRACEFS, else <sysfs_root>/kernel/tracing or
 * <sysfs_root>/kernel/debug/tracing (sysfs_root NULL: "/sys").  buf gets the
 * root found, or the first candidate when none has an events/ directory.
 * Returns 0, -ENOENT (none found), -ENAMETOOLONG or -EINVAL; sets no message. */
PM_HIDDEN int pm__tracefs_root(const char *sysfs_root, char *buf, size_t cap);
/* The id in <tracefs>/events/<sys>/<ev>/id (decimal, optional newline).
 * Returns 0, -errno of the read, -EINVAL (bad name or content), -ERANGE. */
PM_HIDDEN int pm__tracepoint_id(const char *tracefs, const char *sys, size_t slen,
				const char *ev, size_t elen, uint64_t *id);
/* Appends "sys:event" of the tracepoint with this id to out (a scan of
 * <tracefs>/events/<sys>/<event>/id).  Returns 0, -ENOENT, -errno or -ENOMEM. */
PM_HIDDEN int pm__tracepoint_find(const char *tracefs, uint64_t id, struct pm__buf *out);

/* The ids of the tracepoints whose system and name match the fnmatch(3)
 * patterns, in directory order (as perf walks tracefs); *ids is malloc'd.
 * Returns 0 (possibly none), -errno of opening <tracefs>/events or -ENOMEM. */
PM_HIDDEN int pm__tracepoint_glob(const char *tracefs, const char *sys_pat, const char *ev_pat,
				  uint64_t **ids, size_t *n);

/* Hardware cache event names (lib/event/parse.c): "L1-dcache-load-misses" ->
 * config (type | op << 8 | result << 16); 0 or -1 when not a cache name.
 * pm__hw_cache_name() writes the canonical name of a config. */
PM_HIDDEN int pm__hw_cache_parse(const char *s, size_t n, uint64_t *config);
PM_HIDDEN bool pm__hw_cache_name(uint64_t config, char *buf, size_t cap);

#endif /* PM_EVENT_INT_H */
