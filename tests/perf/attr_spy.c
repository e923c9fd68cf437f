/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * LD_PRELOAD helper of tests/perf/test_grammar_vs_perf.py: every
 * perf_event_open(2) that perf makes succeeds.  The attr perf built is left
 * as it is (perf printed it with -vv before the call); the kernel is given a
 * software dummy event with the same group, read and sample settings
 * instead, so that fixture PMUs which do not exist on this machine still
 * "open" and perf goes on to print and open every event of the list (it
 * stops at the first failure otherwise).
 *
 * A member whose group leader was opened on another CPU is opened without
 * its group: perf 6.1 puts the members of a `{cycles,instructions}` of a
 * hybrid machine in one group across cpu_core and cpu_atom, each event on the
 * CPUs of its own PMU, which the kernel refuses (EINVAL) and perf would not
 * get past.  The attr perf printed is unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, ...);

/* The CPU each event fd was opened on (fds below FD_MAX), +1 (0: unknown). */
#define FD_MAX 4096
static int fd_cpu[FD_MAX];

long syscall(long nr, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	if (nr == __NR_perf_event_open && a[0]) {
		struct perf_event_attr attr;
		const struct perf_event_attr *in = (const struct perf_event_attr *)a[0];

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_DUMMY;
		attr.sample_period = in->sample_period;
		attr.freq = in->freq;
		attr.sample_type = in->sample_type &
				   ~(unsigned long long)(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR |
							 PERF_SAMPLE_AUX);
		attr.read_format = in->read_format;
		attr.disabled = in->disabled;
		attr.inherit = in->inherit;
		attr.enable_on_exec = in->enable_on_exec;
		attr.sample_id_all = in->sample_id_all;
		attr.mmap = in->mmap;
		attr.comm = in->comm;
		attr.task = in->task;
		attr.mmap2 = in->mmap2;
		attr.comm_exec = in->comm_exec;
		attr.watermark = in->watermark;
		attr.wakeup_events = in->wakeup_events;
		attr.write_backward = in->write_backward;
		attr.sample_regs_user = in->sample_regs_user;
		attr.sample_stack_user = in->sample_stack_user;
		attr.sample_max_stack = in->sample_max_stack;
		attr.use_clockid = in->use_clockid;
		attr.clockid = in->clockid;
		long group = a[3], fd;

		if (group >= 0 && group < FD_MAX && fd_cpu[group] && fd_cpu[group] != (int)a[2] + 1)
			group = -1; /* leader on another CPU (hybrid group): open it alone */
		fd = real(nr, (long)&attr, a[1], a[2], group, a[4], a[5]);
		if (fd >= 0 && fd < FD_MAX)
			fd_cpu[fd] = (int)a[2] + 1;
		return fd;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
