/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Software events for the unit tests that sample for real (check_ring.c,
 * check_live_columns.c): their attrs, whether perf_event_open works here,
 * and a CPU-time busy loop for them to sample. */
#ifndef PM_TEST_SW_EVENTS_H
#define PM_TEST_SW_EVENTS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <profileme/attr.h>

#define SW_CPU_CLOCK 0
#define SW_TASK_CLOCK 1
#define SW_PAGE_FAULTS 2

/* A user-space-only software event of @p config sampled every @p period. */
static inline void sw_attr(struct pm_attr *a, uint64_t config, uint64_t period)
{
	pm_attr_init(a);
	a->type = PM_TYPE_SOFTWARE;
	a->config = config;
	a->sample_period = period;
	a->flags = PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_HV;
}

/* Returns false (and the test should skip) without perf_event_open. */
static inline bool have_perf(void)
{
	struct pm_attr a;
	int fd;

	sw_attr(&a, SW_TASK_CLOCK, 0);
	fd = pm_attr_open(&a, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return fd != -ENOSYS;
}

static volatile uint64_t sw_sink;

/* Burns @p ms of this thread's CPU time. */
static inline void burn_ms(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sw_sink = sw_sink * 6364136223846793005ULL + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

#endif /* PM_TEST_SW_EVENTS_H */
