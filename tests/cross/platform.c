/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* What the target really is, as the tests run: the page size, the byte
 * order and the word size, checked against what the build expects (the
 * cross toolchain files say alpha has 8 KiB pages and s390x is big endian).
 * It also runs the library's byte-order-explicit loads on an odd address,
 * which traps or misreads on a strict-alignment or big-endian target if they
 * are done wrong.
 *   platform [EXPECT_PAGE_SIZE|0] [big|little|any]                          */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"

static const char *arch(void)
{
#if defined(__alpha__)
	return "alpha";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "aarch64";
#else
	return "other";
#endif
}

int main(int argc, char **argv)
{
	long want_page = argc > 1 ? strtol(argv[1], NULL, 0) : 0;
	const char *want_order = argc > 2 ? argv[2] : "any";
	long page = sysconf(_SC_PAGESIZE);
	const uint32_t one = 1;
	unsigned char first;
	int big, fail = 0;
	unsigned char buf[16];

	memcpy(&first, &one, 1);
	big = first == 0;
	printf("arch=%s page_size=%ld byte_order=%s pointer_bits=%d long_bits=%d library=%s\n", arch(),
	       page, big ? "big" : "little", (int)(sizeof(void *) * 8), (int)(sizeof(long) * 8),
	       pm_version_string());
	if (want_page > 0 && page != want_page) {
		printf("FAIL: page size %ld, expected %ld\n", page, want_page);
		fail = 1;
	}
	if ((!strcmp(want_order, "big") && !big) || (!strcmp(want_order, "little") && big)) {
		printf("FAIL: byte order %s, expected %s\n", big ? "big" : "little", want_order);
		fail = 1;
	}
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__)
	if ((__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != big) {
		printf("FAIL: __BYTE_ORDER__ disagrees with the run-time byte order\n");
		fail = 1;
	}
#endif
	if (pm__host_big_endian() != (big != 0)) {
		printf("FAIL: pm__host_big_endian() disagrees with the run-time byte order\n");
		fail = 1;
	}
	/* Explicit-order loads from an odd address give the same value on
	 * every target. */
	for (int i = 0; i < 16; i++)
		buf[i] = (unsigned char)(0x10 + i);
	if (pm__ld32(buf + 1, 0) != 0x14131211u || pm__ld32(buf + 1, 1) != 0x11121314u ||
	    pm__ld64(buf + 3, 0) != UINT64_C(0x1a19181716151413) ||
	    pm__ld16(buf + 5, 1) != 0x1516) {
		printf("FAIL: pm__ld16/32/64 give host-dependent values\n");
		fail = 1;
	}
	if (!fail)
		printf("OK\n");
	return fail;
}
