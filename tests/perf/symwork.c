/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A workload for the symbol tests (tests/perf/test_symbols_agree.py) that
 * spends its time where perf names code specially:
 *   pm_symwork plt MS    calls a libc function through its PLT slot (ffs@plt)
 *   pm_symwork vdso MS   calls clock_gettime(), which runs in the vDSO
 * Built with -fno-builtin so that ffs() is a real call through the PLT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 2 ? atof(argv[2]) : 300, end = now_ms() + ms;
	unsigned long sum = 0;

	if (argc < 2 || (strcmp(argv[1], "plt") && strcmp(argv[1], "vdso"))) {
		fprintf(stderr, "usage: pm_symwork plt|vdso [MS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "plt")) {
		while (now_ms() < end)
			for (int i = 1; i < 200000; i++)
				sum += (unsigned long)ffs(i);
	} else {
		while (now_ms() < end)
			sum++;
	}
	printf("%lu\n", sum);
	return 0;
}
