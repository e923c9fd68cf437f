/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the sysfs alias parsers of lib/pmu (internal entry points):
 * the term list of an events/<name> file, the .scale text and a CPU list.
 * The first byte chooses the parser.
 */
#include "pmu/pmu_int.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned which = data[0] % 3;
	char *s = pm_fuzz_strdup(data + 1, size - 1);
	if (which == 0) {
		struct pm_alias a;
		memset(&a, 0, sizeof(a));
		int rc = pm__alias_parse_terms(&a, s);
		if (rc == 0) {
			for (size_t i = 0; i < a.nterms; i++)
				PM_FUZZ_ASSERT(a.terms[i].name != NULL);
		} else {
			PM_FUZZ_ASSERT(rc < 0);
		}
		pm__alias_clear(&a);
	} else if (which == 1) {
		double d = 0;
		(void)pm__parse_scale(s, &d);
	} else {
		int cpus[64];
		size_t n = 0;
		int rc = pm__parse_cpulist(s, cpus, 64, &n);
		if (rc == 0)
			for (size_t i = 0; i < n && i < 64; i++)
				PM_FUZZ_ASSERT(cpus[i] >= 0);
	}
	free(s);
	return 0;
}
