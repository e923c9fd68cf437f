/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Chunk index internals (lib/file/chunks.c), for the fuzz harness and the
 * unit tests.  Never installed. */
#ifndef PM_FILE_CHUNKS_INT_H
#define PM_FILE_CHUNKS_INT_H

#include <stdint.h>

#include <profileme/file.h>

#include "internal/pm_internal.h"

/* how pm__chunk_index_new() scans */
enum {
	PMC_SCAN_AUTO,    /* its own read windows, the reader for what they cannot step over */
	PMC_SCAN_READER,  /* the reader only (the reference) */
	PMC_SCAN_WINDOWS, /* the windows only: -EAGAIN where they cannot step over a record */
};

/* pm_chunk_index_new_from_file() with the scan chosen, and the pieces of
 * the parallel scan at least min_piece bytes (the public call: 1 MiB). */
PM_HIDDEN int pm__chunk_index_new(pm_chunk_index **out, pm_file *f, const struct pm_chunk_index_opts *opts,
				  int how, uint64_t min_piece);

#endif /* PM_FILE_CHUNKS_INT_H */
