/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The progress line of long commands (report, script, convert): on a
 * terminal, one line on stderr rewritten in place, "profileme CMD: 12.3 of
 * 45.6 MB (27%), 80.1 MB/s, 123456 samples", shown after the first second
 * and at most four times a second, erased at the end.  Nothing when stderr
 * is not a terminal or with -q.  Not part of the library.
 */
#ifndef PM_CLI_PROGRESS_H
#define PM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct cli_progress {
	const char *cmd;
	bool on, shown, force;
	double t0, last;
};

/* on = !quiet && stderr is a terminal (PM_PROGRESS=1 in the environment
 * forces it on and shows every update, for tests). */
void cli_progress_init(struct cli_progress *p, const char *cmd, bool quiet);
/* offset: bytes of the file read so far; size: the file's size (0: a pipe). */
void cli_progress_update(struct cli_progress *p, uint64_t offset, uint64_t size, uint64_t samples);
/* Erases the line if one was shown. */
void cli_progress_done(struct cli_progress *p);
/* A pm_export_progress_fn whose user pointer is a struct cli_progress. */
void cli_progress_cb(void *user, uint64_t offset, uint64_t size, uint64_t samples);

#endif
