/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the column reader (lib/export/columns_side.c) asks of the symbolizer
 * (lib/symbol/rows.c; lib/common/symbol_stub.c without libelf) for
 * pm_columns_opts.sym and pm_columns_resolve_rows().  Never installed.
 */
#ifndef PM_SYM_COLUMNS_INT_H
#define PM_SYM_COLUMNS_INT_H

#include <profileme/file.h>
#include <profileme/symbol.h>

#include "internal/pm_internal.h"

/* pm_sym_resolve_rows() with the records @p next hands out (each a side
 * record, with the number of SAMPLE records before it in the file in
 * *nsamples; the end or the reading error as pm_file_next() gives them)
 * instead of a read of @p f; NULL @p next: the records of @p f. */
PM_HIDDEN int pm__sym_resolve_rows_from(pm_sym *s, pm_file *f, const struct pm_sym_rows *rows,
					int (*next)(void *it, struct pm_file_record *rec,
						    uint64_t *nsamples),
					void *it);

/* Start reading the kernel's symbols on a thread of their own (once; not
 * for a symbolizer without kernel symbols). */
PM_HIDDEN void pm__sym_kernel_prefetch(pm_sym *s);

#endif /* PM_SYM_COLUMNS_INT_H */
