/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The progress line of long commands (see progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double prog_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void cli_progress_init(struct cli_progress *p, const char *cmd, bool quiet)
{
	const char *force = getenv("PM_PROGRESS");

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->force = force && !strcmp(force, "1");
	p->on = !quiet && (isatty(2) || p->force);
	if (p->on)
		p->t0 = prog_now();
}

void cli_progress_update(struct cli_progress *p, uint64_t offset, uint64_t size, uint64_t samples)
{
	double t, mb = offset / 1048576.0, dt;

	if (!p->on)
		return;
	t = prog_now();
	dt = t - p->t0;
	if (!p->force && (dt < 1.0 || t - p->last < 0.25))
		return;
	if (size)
		fprintf(stderr, "\rprofileme %s: %.1f of %.1f MB (%.0f%%), %.1f MB/s, %llu samples ", p->cmd, mb,
			size / 1048576.0, 100.0 * (double)offset / (double)size, dt > 0 ? mb / dt : 0.0,
			(unsigned long long)samples);
	else
		fprintf(stderr, "\rprofileme %s: %.1f MB, %.1f MB/s, %llu samples ", p->cmd, mb, dt > 0 ? mb / dt : 0.0,
			(unsigned long long)samples);
	p->last = t;
	p->shown = true;
}

void cli_progress_done(struct cli_progress *p)
{
	if (p->on && p->shown)
		fprintf(stderr, "\r%*s\r", 78, "");
	p->shown = false;
}

void cli_progress_cb(void *user, uint64_t offset, uint64_t size, uint64_t samples)
{
	cli_progress_update(user, offset, size, samples);
}
