/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal to lib/record. */
#ifndef PM_RECORD_INTERNAL_H
#define PM_RECORD_INTERNAL_H

#include <profileme/record.h>

#include "internal/pm_internal.h"

/* A fixed-offset u64/u32-pair slot of the sample prefix. */
enum pm__slot_kind { PM__SLOT_U64, PM__SLOT_PAIR32 };

struct pm__slot {
	uint64_t bit;    /* PM_SAMPLE_* */
	uint32_t off;    /* offset from the start of the record (header included) */
	uint8_t kind;    /* pm__slot_kind */
	uint8_t dst;     /* which field (enum pm__dst) */
};

enum pm__dst {
	PM__DST_ID, PM__DST_IP, PM__DST_TID, PM__DST_TIME, PM__DST_ADDR, PM__DST_STREAM_ID,
	PM__DST_CPU, PM__DST_PERIOD
};

struct pm_sample_layout {
	struct pm_attr attr;
	uint64_t sample_type;
	uint64_t read_format;
	int id_pos;
	int is_pos;
	/* Fixed-size prefix: slots at constant offsets. */
	struct pm__slot slots[10];
	uint32_t nslots;
	/* Offset (from record start) where READ begins (if present) or the
	 * variable part begins; the prefix is [8, prefix_end). */
	uint32_t prefix_end;
	/* read_format sizes */
	uint32_t read_fixed;    /* bytes of a non-group read block, or group header bytes */
	uint32_t read_entry;    /* bytes per group entry (value[,id][,lost]) */
	uint32_t read_ntimes;   /* number of time fields */
	/* minimum body size (bytes after header) */
	uint32_t fixed_size;
	uint32_t regs_user_nr;
	uint32_t regs_intr_nr;
	bool branch_hw_idx;
	bool branch_counters;
	/* sample_id_all trailer */
	bool sample_id_all;
	uint32_t trailer_size;
};

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
