/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the event-string parser, pm_event_parse(), against the fixed
 * sysfs fixture trees (tests/fixtures/sysfs/<tree>).  The first input byte
 * picks the tree (or none); the rest is the event string.  Every parsed event
 * is formatted back with pm_attr_format() and the canonical string parsed
 * again.
 */
#include <profileme/attr.h>
#include <profileme/event.h>
#include <profileme/pmu.h>

#include "fuzz_common.h"

#ifndef PM_FUZZ_SRCDIR
#define PM_FUZZ_SRCDIR "."
#endif

static const char *const trees[] = { "intel", "alpha", "amd", "uncore", "hybrid" };
#define NTREES (sizeof(trees) / sizeof(trees[0]))
static pm_pmu_list *pmus[NTREES];
static int loaded;

static void load(void)
{
	const char *src = getenv("PROFILEME_SRCDIR");
	if (!src)
		src = PM_FUZZ_SRCDIR;
	/* tracepoints from the fixture tracefs, not this machine's: a glob such
	 * as `*:*` over a real tracefs (thousands of events, each formatted and
	 * parsed again) timed the harness out, and the input must not depend
	 * on the machine */
	char tfs[4096];
	snprintf(tfs, sizeof(tfs), "%s/tests/fixtures/sysfs/grammar/kernel/tracing", src);
	setenv("PROFILEME_TRACEFS", tfs, 1);
	for (size_t i = 0; i < NTREES; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/tests/fixtures/sysfs/%s", src, trees[i]);
		if (pm_pmu_scan(&pmus[i], path) != 0) {
			fprintf(stderr, "fuzz_event: cannot scan %s: %s\n", path, pm_errmsg());
			abort();
		}
	}
	loaded = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!loaded)
		load();
	if (size < 1)
		return 0;
	const pm_pmu_list *pl = data[0] % (NTREES + 1) < NTREES ? pmus[data[0] % (NTREES + 1)] : NULL;
	char *s = pm_fuzz_strdup(data + 1, size - 1);
	pm_event_list *list = NULL;
	struct pm_event_error err;
	memset(&err, 0xa5, sizeof(err));
	err.sz = sizeof(err);
	int rc = pm_event_parse(&list, pl, s, &err);
	if (rc != 0) {
		PM_FUZZ_ASSERT(rc < 0);
		PM_FUZZ_ASSERT(err.code == rc);
		PM_FUZZ_ASSERT(memchr(err.message, '\0', sizeof(err.message)) != NULL);
		PM_FUZZ_ASSERT(err.position <= size - 1);
		free(s);
		return 0;
	}
	size_t n = pm_event_list_count(list);
	for (size_t i = 0; i < n; i++) {
		const pm_event *ev = pm_event_list_get(list, i);
		PM_FUZZ_ASSERT(ev != NULL);
		PM_FUZZ_ASSERT(pm_event_string(ev) != NULL && pm_event_name(ev) != NULL);
		PM_FUZZ_ASSERT(pm_event_group(ev) <= i);
		(void)pm_event_flags(ev);
		(void)pm_event_pmu(ev);
		struct pm_attr attr;
		pm_event_attr(ev, &attr);
		char small[8], buf[1024];
		int len = pm_attr_format(&attr, pl, buf, sizeof(buf));
		int len2 = pm_attr_format(&attr, pl, small, sizeof(small));
		PM_FUZZ_ASSERT(len == len2);
		if (len >= 0) {
			PM_FUZZ_ASSERT(strlen(small) == (size_t)(len < 8 ? len : 7));
			if ((size_t)len < sizeof(buf)) {
				PM_FUZZ_ASSERT(strlen(buf) == (size_t)len);
				/* The canonical text must parse again. */
				pm_event_list *again = NULL;
				if (pm_event_parse(&again, pl, buf, NULL) == 0)
					pm_event_list_free(again);
			}
		}
	}
	PM_FUZZ_ASSERT(pm_event_list_get(list, n) == NULL);
	pm_event_list_free(list);
	free(s);
	return 0;
}
