/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What a reader of a file needs to read it again in other threads (the
 * threaded column reader, lib/export/columns_mt.c), and nothing else of the
 * reader's internals (reader_int.h stays lib/file's own).  Never installed.
 */
#ifndef PM_FILE_READER_TWIN_H
#define PM_FILE_READER_TWIN_H

#include <profileme/file.h>

#include "internal/pm_internal.h"

/* True when f can be cut into chunks of chunk_bytes for other readers: a
 * seekable file-mode recording with more data than one chunk, from which
 * nothing has been read yet. */
PM_HIDDEN bool pm__file_cuttable(const pm_file *f, uint64_t chunk_bytes);

/* Another reader of f's descriptor (not duplicated: f must outlive it) with
 * f's options (window, reorder limit, strictness) and f's name in its
 * messages. */
PM_HIDDEN int pm__file_open_twin(pm_file **out, const pm_file *f);

#endif /* PM_FILE_READER_TWIN_H */
