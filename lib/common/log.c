/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <stdio.h>

#include "internal/pm_internal.h"

/* The one piece of process-wide state: the log sink, swapped atomically. */
struct pm_log_sink {
	pm_log_fn fn;
	void *user;
	int max_level;
};

static struct pm_log_sink pm_sinks[2];
static int pm_sink_cur; /* index of the active sink, read/written atomically */

pm_log_fn pm_set_log(pm_log_fn fn, void *user, int max_level)
{
	int cur = __atomic_load_n(&pm_sink_cur, __ATOMIC_ACQUIRE);
	int next = !cur;
	pm_log_fn prev = pm_sinks[cur].fn;

	pm_sinks[next].fn = fn;
	pm_sinks[next].user = user;
	pm_sinks[next].max_level = max_level;
	__atomic_store_n(&pm_sink_cur, next, __ATOMIC_RELEASE);
	return prev;
}

void pm__log(int level, const char *fmt, ...)
{
	const struct pm_log_sink *s = &pm_sinks[__atomic_load_n(&pm_sink_cur, __ATOMIC_ACQUIRE)];
	char msg[1024];
	va_list ap;

	if (!s->fn || level > s->max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->fn(level, msg, s->user);
}
