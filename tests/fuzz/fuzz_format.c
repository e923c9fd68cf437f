/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Fuzz target: the sysfs format/ file parser, pm_format_parse(). */
#include <profileme/pmu.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exact-size buffer, not NUL-terminated: the parser must honour len. */
	char *text = malloc(size ? size : 1);
	if (!text)
		abort();
	if (size)
		memcpy(text, data, size);
	int word = -1;
	uint64_t mask = 0;
	int rc = pm_format_parse(text, size, &word, &mask);
	if (rc == 0) {
		PM_FUZZ_ASSERT(word >= 0 && word <= 3);
		PM_FUZZ_ASSERT(mask != 0);
	} else {
		PM_FUZZ_ASSERT(rc < 0);
	}
	free(text);
	return 0;
}
