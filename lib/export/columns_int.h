/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* pm_columns internals (lib/export/columns*.c).  Never installed. */
#ifndef PM_EXPORT_COLUMNS_INT_H
#define PM_EXPORT_COLUMNS_INT_H

#include <profileme/export.h>

#include "internal/pm_internal.h"
#include "internal/source_int.h"

/* More columns than any decoder has fields (with their _valid twins). */
#define PM_COLUMNS_MAX 512
#define PM_COLUMNS_MAX_ PM_COLUMNS_MAX

struct pm_column {
	char *name;
	int type;
	int base;	/* COL_* of a base column, -1 for a decoded one */
	int field;	/* raw field index, -1 for base columns */
	int valid_of;	/* for a `_valid` column: the raw field index, else -1 */
};

struct pm_columns {
	struct pm__source src;	/* where the samples come from */
	pm_file *file;		/* the source's file (NULL: a live source) */
	int event;
	pm_raw_ctx *ctx;
	const pm_raw_decoder *dec;
	uint8_t *dec_for_attr;	/* per attr: 1 if the column decoder applies */
	size_t nattrs;
	struct pm_column *cols;
	size_t ncols;
	size_t nfields;
	uint64_t *vals;		/* nfields scratch values */
	uint8_t *present;	/* nfields scratch flags */
	uint64_t *fixed_period;	/* per attr: the period of a non-freq attr */
	uint8_t *has_fixed;	/* per attr: 1 if fixed_period applies */
	uint64_t skipped;
	/* pm_columns_opts::threads (columns_mt.c) */
	int threads;
	uint64_t chunk_bytes;
	char *decoder_name; /* the forced decoder (opts.decoder), or NULL */
	int no_raw;
	int record_columns;
	struct pm__columns_mt *mt;
	struct pm__columns_side *side; /* pm_columns_opts.sym (columns_side.c), or NULL */
};

/* columns_mt.c: rows of the chunks decoded by c->threads threads.  Returns
 * 1 when the file is one chunk (c->threads is then set to 1: read it in the
 * calling thread), else as pm_columns_read(). */
PM_HIDDEN int pm__columns_mt_fill(pm_columns *c, uint8_t *const *base, const size_t *stride,
				  size_t ncols, size_t cap, size_t *n);
PM_HIDDEN void pm__columns_mt_free(struct pm__columns_mt *m);

/* columns_side.c: pm_columns_opts.sym.  _init() puts the side-record keeper
 * between the reader and its file source (c->src). */
PM_HIDDEN int pm__columns_side_init(pm_columns *c, pm_sym *sym);
PM_HIDDEN void pm__columns_side_free(struct pm__columns_side *sd);

#endif /* PM_EXPORT_COLUMNS_INT_H */
