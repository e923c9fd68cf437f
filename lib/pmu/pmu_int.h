/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal layout of the PMU enumerator (lib/pmu).  Never installed. */
#ifndef PM_PMU_INT_H
#define PM_PMU_INT_H

#include <profileme/pmu.h>

#include "internal/pm_internal.h"

/* Largest sysfs file we read.  Real ones are at most one page (64 KiB pages
 * exist); anything larger is damage. */
#define PM_PMU_FILE_MAX (64u * 1024u)

struct pm_format {
	char *name;
	char *spec;
	int word;
	uint64_t mask;
	unsigned width;
};

struct pm_alias_term {
	char *name;
	uint64_t value;
	int is_param; /* written as `name=?` */
};

struct pm_alias {
	char *name;
	char *text;
	struct pm_alias_term *terms;
	size_t nterms;
	char *unit;
	double scale;
	int per_pkg;
	int snapshot;
};

struct pm_pmu_cap {
	char *name;
	char *value;
};

struct pm_pmu_diag {
	char *file;
	int code;
	char *msg;
};

struct pm_pmu {
	char *name;
	char *alt_name; /* the `alias` file's name (perf's alias_name), or NULL */
	uint32_t type;
	int type_err; /* 0 when type is usable, else a negative code */
	char *cpus;   /* text of cpumask or cpus, NULL when neither */
	int has_cpumask;
	long mux_interval_ms;
	long rdpmc;
	int max_precise;
	struct pm_format *formats;
	size_t nformats;
	struct pm_alias *aliases;
	size_t naliases;
	struct pm_pmu_cap *caps;
	size_t ncaps;
	struct pm_pmu_diag *diags;
	size_t ndiags;
};

struct pm_pmu_list {
	char *root;
	struct pm_pmu *pmus;
	size_t npmus;
};

/* Parse an alias term list into a->terms.  On failure returns -PM_ERR_FORMAT
 * with the reason (and column) in pm_errmsg(). */
PM_HIDDEN int pm__alias_parse_terms(struct pm_alias *a, const char *text);
PM_HIDDEN void pm__alias_clear(struct pm_alias *a);
/* Parse a `.scale` text, independent of the locale. */
PM_HIDDEN int pm__parse_scale(const char *text, double *out);
/* Parse a CPU list "0-3,8"; stores up to cap CPUs, counts all. */
PM_HIDDEN int pm__parse_cpulist(const char *text, int *cpus, size_t cap, size_t *n);

#endif /* PM_PMU_INT_H */
