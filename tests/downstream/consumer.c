/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* A program outside the project that uses an installed libprofileme: it
 * must compile against the installed headers only (the umbrella header pulls
 * every one of them in), link, and find the library it was built for. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

int main(void)
{
	int fail = 0;

	printf("libprofileme %s (headers %s, ABI %d)\n", pm_version_string(), PM_VERSION_STRING,
	       PM_ABI_MAJOR);
	if (strcmp(pm_version_string(), PM_VERSION_STRING) != 0) {
		printf("FAIL: pm_version_string() != PM_VERSION_STRING\n");
		fail = 1;
	}
#ifdef PM_EXPECT_VERSION
	/* The version of the build tree that was installed. */
	if (strcmp(PM_VERSION_STRING, PM_EXPECT_VERSION) != 0) {
		printf("FAIL: installed headers say %s, the build is %s\n", PM_VERSION_STRING,
		       PM_EXPECT_VERSION);
		fail = 1;
	}
#endif
	if (pm_version_number() != PM_VERSION_NUMBER) {
		printf("FAIL: pm_version_number() %u != PM_VERSION_NUMBER %u\n", pm_version_number(),
		       (unsigned)PM_VERSION_NUMBER);
		fail = 1;
	}
	if (strcmp(pm_strerror(-PM_ERR_FORMAT), "Unknown libprofileme error") == 0) {
		printf("FAIL: pm_strerror(-PM_ERR_FORMAT) has no text\n");
		fail = 1;
	}
	(void)ENOENT;
	if (!fail)
		printf("OK\n");
	return fail;
}
