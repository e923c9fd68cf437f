/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <profileme/version.h>

#include "internal/pm_internal.h"

const char *pm_version_string(void)
{
	return PM_VERSION_STRING;
}

unsigned pm_version_number(void)
{
	return PM_VERSION_NUMBER;
}
