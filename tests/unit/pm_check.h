/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Test support: Check when available, minicheck otherwise, plus helpers. */
#ifndef PM_CHECK_H
#define PM_CHECK_H

#ifdef PM_HAVE_CHECK
#include <check.h>
#else
#include "minicheck.h"
#endif

#include <stdio.h>
#include <stdlib.h>

/* Source tree paths, from CMake. */
#ifndef PM_TEST_SRCDIR
#define PM_TEST_SRCDIR "."
#endif
#define PM_FIXTURES PM_TEST_SRCDIR "/tests/fixtures"

/* A test that cannot run here passes after saying why on stdout. */
#define pm_test_skip(...)                                                             \
	do {                                                                          \
		printf("SKIPPED %s: ", __func__);                                     \
		printf(__VA_ARGS__);                                                  \
		printf("\n");                                                         \
		fflush(stdout);                                                       \
		return;                                                               \
	} while (0)

/* Stress tests shrink their repetitions when PM_TEST_LIGHT is set (the
 * valgrind run in CI): the same code paths, fewer rounds. */
static inline size_t pm_test_scale(size_t full, size_t light)
{
	const char *e = getenv("PM_TEST_LIGHT");

	return e && *e && *e != '0' ? light : full;
}

/* One main() for every test program: run the suite, exit non-zero on failure. */
#define PM_TEST_MAIN(suite_fn)                                                        \
	int main(void)                                                                \
	{                                                                             \
		SRunner *sr = srunner_create(suite_fn());                             \
		int failed;                                                           \
		srunner_run_all(sr, CK_NORMAL);                                       \
		failed = srunner_ntests_failed(sr);                                   \
		srunner_free(sr);                                                     \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                          \
	}

#endif /* PM_CHECK_H */
