/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Test workload for check_symbol: prints the run-time addresses of its own
 * functions (the oracle), then waits for stdin to close so the test can read
 * /proc/PID/maps.  Built non-PIE, PIE, stripped and with a debug link. */
#include <stdio.h>

#define PM_NOINLINE __attribute__((noinline, noclone, used))

volatile int pm_symtest_sink;

int pm_symtest_alpha(int x);
int pm_symtest_beta(int x);

PM_NOINLINE int pm_symtest_alpha(int x)
{
	for (int i = 0; i < x; i++)
		pm_symtest_sink += i * 3;
	return pm_symtest_sink;
}

/* Local: only in .symtab (and the debug file), never in .dynsym. */
PM_NOINLINE static int pm_symtest_static(int x)
{
	for (int i = 0; i < x; i++)
		pm_symtest_sink ^= i + 7;
	return pm_symtest_sink;
}

PM_NOINLINE int pm_symtest_beta(int x)
{
	for (int i = 0; i < x; i++)
		pm_symtest_sink -= i;
	return pm_symtest_static(x) + 1;
}

int main(void)
{
	char buf[64];
	int (*volatile fa)(int) = pm_symtest_alpha;
	int (*volatile fs)(int) = pm_symtest_static;
	int (*volatile fb)(int) = pm_symtest_beta;

	printf("%p %p %p\n", (void *)fa, (void *)fs, (void *)fb);
	fflush(stdout);
	while (fgets(buf, sizeof(buf), stdin))
		;
	return (fa(3) + fs(2) + fb(1)) == 12345 ? 1 : 0;
}
