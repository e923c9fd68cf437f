/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal to lib/record. */
#ifndef PM_RECORD_INTERNAL_H
#define PM_RECORD_INTERNAL_H

#include <profileme/record.h>

#include "internal/pm_internal.h"
#include "record/plan.h"

/* Bounded, never-NUL-trusting string length in [p, p+max). */
static inline uint32_t pm__strnlen32(const uint8_t *p, size_t max)
{
	const void *z = memchr(p, 0, max);
	size_t n = z ? (size_t)((const uint8_t *)z - p) : max;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Zero a struct in 64-byte pieces: a single large memset compiles to
 * `rep stos`, which dominated the cost of parsing a typical sample. */
static inline void pm__zero_struct(void *p, size_t n)
{
	uint8_t *b = p;
	size_t i = 0;

	for (; i + 64 <= n; i += 64)
		memset(b + i, 0, 64);
	memset(b + i, 0, n - i);
}

/* Shared helpers (sample.c, header.c). */
PM_HIDDEN int pm__read_parse(struct pm_read *r, const pm_sample_layout *l, const uint8_t *rec,
			     size_t pos, size_t end, bool be, size_t *used, size_t *bad);
PM_HIDDEN int pm__bad(int code, size_t off, size_t *err_off, const char *what, uint32_t type);

#endif
