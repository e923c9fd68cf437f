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
	/* pm__sample_core(): usable when sample_type has nothing past the
	 * prefix but a non-group READ, CALLCHAIN and RAW; offsets of the
	 * prefix fields from the record start, 0 = absent */
	bool core_ok;
	uint16_t off_id, off_ip, off_tid, off_time, off_addr, off_cpu, off_period;
};

/* The fields bulk readers (rows, columns) need from a SAMPLE. */
struct pm__score {
	uint64_t id, ip, time, addr, period, callchain_nr;
	uint32_t pid, tid, cpu, raw_size;
	const uint8_t *raw; /* NULL: no RAW */
};

#define PM__LDF(b, off, be, w) ((off) ? pm__ld##w((b) + (off), (be)) : 0)

/*
 * Fast decode of the fields of struct pm__score, with the bounds checks of
 * pm_sample_parse() for the fields it walks.  @p b is a SAMPLE record of
 * @p len bytes (header.size already checked to be @p len by the caller).
 * Returns 0, or 1 when the layout or the record needs pm_sample_parse()
 * (for the error message, or for the fields this does not walk).
 */
static inline int pm__sample_core(const pm_sample_layout *l, const uint8_t *b, size_t len, bool be,
				  struct pm__score *o)
{
	uint64_t st = l->sample_type;
	size_t pos = l->prefix_end, end = len;

	if (!l->core_ok || pos > end)
		return 1;
	o->id = PM__LDF(b, l->off_id, be, 64);
	o->ip = PM__LDF(b, l->off_ip, be, 64);
	o->time = PM__LDF(b, l->off_time, be, 64);
	o->addr = PM__LDF(b, l->off_addr, be, 64);
	o->period = PM__LDF(b, l->off_period, be, 64);
	o->pid = PM__LDF(b, l->off_tid, be, 32);
	o->tid = PM__LDF(b, l->off_tid + (l->off_tid ? 4 : 0), be, 32);
	o->cpu = PM__LDF(b, l->off_cpu, be, 32);
	o->callchain_nr = 0;
	o->raw = NULL;
	o->raw_size = 0;
	if (st & PM_SAMPLE_READ) {
		if (!pm__fits(pos, l->read_fixed, end))
			return 1;
		pos += l->read_fixed;
	}
	if (st & PM_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (!pm__fits(pos, 8, end))
			return 1;
		nr = pm__ld64(b + pos, be);
		if (nr > (end - pos - 8) / 8)
			return 1;
		o->callchain_nr = nr;
		pos += 8 + (size_t)nr * 8;
	}
	if (st & PM_SAMPLE_RAW) {
		uint32_t sz;

		if (!pm__fits(pos, 4, end))
			return 1;
		sz = pm__ld32(b + pos, be);
		if (!pm__fits(pos + 4, sz, end))
			return 1;
		o->raw = b + pos + 4;
		o->raw_size = sz;
	}
	return 0;
}

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
