// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
// The public API used from C++: the umbrella header compiles, and calls link
// (every declaration must sit inside extern "C").
#include <profileme/profileme.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main()
{
	if (std::strcmp(pm_version_string(), PM_VERSION_STRING) != 0) {
		std::printf("FAIL: pm_version_string() = %s, header says %s\n", pm_version_string(),
			    PM_VERSION_STRING);
		return 1;
	}
	if (pm_version_number() != (unsigned)PM_VERSION_NUMBER) {
		std::printf("FAIL: pm_version_number() = %u\n", pm_version_number());
		return 1;
	}
	if (std::strcmp(pm_strerror(-ENOENT), std::strerror(ENOENT)) != 0) {
		std::printf("FAIL: pm_strerror(-ENOENT) = %s\n", pm_strerror(-ENOENT));
		return 1;
	}
	std::printf("OK: C++ consumer of libprofileme %s\n", pm_version_string());
	return 0;
}
