/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The symbol API of a library built without libelf: the same functions, so
 * the ABI does not depend on build options, each saying it is unsupported. */
#ifndef PM_HAVE_LIBELF

#include <profileme/symbol.h>

#include "internal/pm_internal.h"
#include "internal/sym_columns_int.h"

static int unsupported(const char *fn)
{
	return pm__err(PM_ERR_UNSUPPORTED, "%s: libprofileme was built without libelf", fn);
}

int pm_sym_new(pm_sym **out, const struct pm_sym_opts *opts)
{
	(void)opts;
	if (out)
		*out = NULL;
	return unsupported(__func__);
}

void pm_sym_free(pm_sym *s)
{
	(void)s;
}

int pm_sym_add_map(pm_sym *s, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *filename)
{
	(void)s, (void)pid, (void)start, (void)len, (void)pgoff, (void)filename;
	return unsupported(__func__);
}

int pm_sym_load_proc_maps(pm_sym *s, int32_t pid)
{
	(void)s, (void)pid;
	return unsupported(__func__);
}

int pm_sym_fork(pm_sym *s, int32_t parent, int32_t child)
{
	(void)s, (void)parent, (void)child;
	return unsupported(__func__);
}

int pm_sym_exec(pm_sym *s, int32_t pid)
{
	(void)s, (void)pid;
	return unsupported(__func__);
}

int pm_sym_exit(pm_sym *s, int32_t pid)
{
	(void)s, (void)pid;
	return unsupported(__func__);
}

int pm_sym_lookup(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
		  struct pm_sym_result *res)
{
	(void)s, (void)pid, (void)addr, (void)how, (void)res;
	return unsupported(__func__);
}

int pm_sym_lookup_line(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
		       struct pm_sym_line *out)
{
	(void)s, (void)pid, (void)addr, (void)how, (void)out;
	return unsupported(__func__);
}

int pm_sym_dso_line(pm_sym *s, const char *dso, uint64_t dso_addr, struct pm_sym_line *out)
{
	(void)s, (void)dso, (void)dso_addr, (void)out;
	return unsupported(__func__);
}

int pm_sym_find(pm_sym *s, const char *dso, const char *name, size_t idx,
		struct pm_sym_def *out)
{
	(void)s, (void)dso, (void)name, (void)idx, (void)out;
	return unsupported(__func__);
}

int pm_sym_preload(pm_sym *s)
{
	(void)s;
	return unsupported(__func__);
}

int pm_sym_diag_count(const pm_sym *s)
{
	(void)s;
	return unsupported(__func__);
}

int pm_sym_diag_get(const pm_sym *s, size_t idx, struct pm_sym_diag *out)
{
	(void)s, (void)idx, (void)out;
	return unsupported(__func__);
}

int pm_sym_kernel_status(pm_sym *s)
{
	(void)s;
	return unsupported(__func__);
}

int pm_sym_add_map_len(pm_sym *s, int32_t pid, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *name, size_t name_len)
{
	(void)s, (void)pid, (void)start, (void)len, (void)pgoff, (void)name, (void)name_len;
	return unsupported(__func__);
}

int pm_sym_add_record(pm_sym *s, const struct pm_record *r)
{
	(void)s, (void)r;
	return unsupported(__func__);
}

int pm_sym_new_from_file(pm_sym **out, struct pm_file *f, const struct pm_sym_opts *opts)
{
	(void)f, (void)opts;
	if (out)
		*out = NULL;
	return unsupported(__func__);
}

int64_t pm_sym_resolve_file(pm_sym *s, struct pm_file *f, size_t n, const int32_t *pid,
			    const uint64_t *addr, const uint8_t *cpumode, const uint64_t *when,
			    uint32_t flags, uint32_t *out_idx)
{
	(void)s, (void)f, (void)n, (void)pid, (void)addr, (void)cpumode, (void)when, (void)flags;
	(void)out_idx;
	return unsupported(__func__);
}

int pm_sym_resolved_get(const pm_sym *s, size_t idx, struct pm_sym_result *res)
{
	(void)s, (void)idx, (void)res;
	return unsupported(__func__);
}

int pm_sym_resolve_rows(pm_sym *s, struct pm_file *f, const struct pm_sym_rows *rows)
{
	(void)s, (void)f, (void)rows;
	return unsupported(__func__);
}

int pm__sym_resolve_rows_from(pm_sym *s, pm_file *f, const struct pm_sym_rows *rows,
			      int (*next)(void *it, struct pm_file_record *rec, uint64_t *nsamples),
			      void *it)
{
	(void)s, (void)f, (void)rows, (void)next, (void)it;
	return unsupported("pm_columns_resolve_rows");
}

void pm__sym_kernel_prefetch(pm_sym *s)
{
	(void)s;
}

const char *pm_sym_rows_string(const pm_sym *s, int table, size_t idx)
{
	(void)s, (void)table, (void)idx;
	unsupported(__func__);
	return NULL;
}

int64_t pm_sym_rows_count(const pm_sym *s, int table)
{
	(void)s, (void)table;
	return unsupported(__func__);
}

const char *pm_sym_kallsyms_path(const pm_sym *s)
{
	(void)s;
	unsupported(__func__);
	return NULL;
}

#else
/* ISO C forbids an empty translation unit. */
typedef int pm__symbol_stub_unused;
#endif /* PM_HAVE_LIBELF */
