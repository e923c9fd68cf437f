/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Shared by the fuzz harnesses.  Each harness defines the libFuzzer entry
 * point LLVMFuzzerTestOneInput(); it is linked either with libFuzzer (clang,
 * -DPROFILEME_FUZZ=ON) or with replay.c (any compiler: replays the corpus
 * and the regression inputs as a plain ctest).
 */
#ifndef PM_FUZZ_COMMON_H
#define PM_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the library that the input broke: report and abort, so
 * both libFuzzer and the replay ctest see a crash. */
#define PM_FUZZ_ASSERT(cond)                                                          \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                     \
			abort();                                                      \
		}                                                                     \
	} while (0)

/* A NUL-terminated heap copy of the input (the parsers take C strings). */
static inline char *pm_fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
