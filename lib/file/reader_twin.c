/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* A file's twin readers for the threaded bulk reader (reader_twin.h). */
#include <stdlib.h>
#include <string.h>

#include "reader_int.h"
#include "reader_twin.h"

bool pm__file_cuttable(const pm_file *f, uint64_t chunk_bytes)
{
	return f && !f->info.pipe_mode && f->seekable && !f->win_end && !f->qend &&
	       f->win_off == f->info.data_offset &&
	       f->data_end - f->info.data_offset > chunk_bytes;
}

int pm__file_open_twin(pm_file **out, const pm_file *f)
{
	struct pm_file_opts fo = { .sz = sizeof(fo), .window_size = f->win_cap,
				   .reorder_max_bytes = f->reorder_max, .strict = f->strict };
	pm_file *g = NULL;
	char *name;
	int rc;

	*out = NULL;
	rc = pm_file_open_fd(&g, f->fd, &fo);
	if (rc)
		return rc;
	name = strdup(PMF_NAME(f));
	if (!name) {
		pm_file_close(g);
		return -ENOMEM;
	}
	free(g->name);
	g->name = name;
	*out = g;
	return 0;
}
