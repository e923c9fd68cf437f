/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The sample plan (internal; owned by lib/record, never installed).
 *
 * For each attr, once: where every PERF_SAMPLE_* field of a SAMPLE lies,
 * the minimum size of a SAMPLE, where the id and time stamp lie in a SAMPLE
 * and in the sample_id_all trailer of other records.  It is computed in
 * lib/record/layout.c (pm_sample_layout_new(), pm__plan_positions()) and
 * nowhere else: the file reader (lib/file), the live evlist (lib/ring), the
 * bulk readers (lib/file/reader_rows.c, lib/export/columns.c) and, through
 * pm_sample_layout_min_size(), the Python binding all read it from here.
 * The public face of a plan is the opaque pm_sample_layout.
 */
#ifndef PM_RECORD_PLAN_H
#define PM_RECORD_PLAN_H

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
	uint64_t id, ip, time, addr, period;
	uint64_t callchain_nr;      /* frames: callchain entries that are no PERF_CONTEXT_* marker */
	uint64_t callchain_markers; /* the PERF_CONTEXT_* markers among the entries */
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
	o->callchain_markers = 0;
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
		for (uint64_t k = 0; k < nr; k++)
			o->callchain_markers += PM_CONTEXT_IS_MARKER(pm__ld64(b + pos + 8 + 8 * k, be));
		o->callchain_nr = nr - o->callchain_markers;
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
		pos += 4 + (size_t)sz;
	}
	/* a SAMPLE is exactly its fields: a longer one is pm_sample_parse()'s
	 * to refuse */
	return pos != end;
}

/*
 * Where the event id and the time stamp lie, from the attr's sample_type
 * and sample_id_all alone: known even when the rest of the layout is not
 * (a sample_type with bits this library does not know), which is all a
 * reader needs to match a record to its attr and to order it in time.
 */
struct pm__plan_pos {
	int id_pos;     /* SAMPLE: the id is u64 number id_pos after the header; -1: none */
	int is_pos;     /* other records (sample_id_all): the id is u64 slot is_pos back from
			 * the end; -1: none */
	int time_off;   /* SAMPLE: byte offset of the time from the record start; -1: none */
	int time_slots; /* other records (sample_id_all): the time is u64 slot time_slots back
			 * from the end; 0: none */
};

PM_HIDDEN void pm__plan_positions(const struct pm_attr *attr, struct pm__plan_pos *pos);

/*
 * Direct loads for bulk readers: when a layout has nothing past the fixed
 * prefix (no READ, CALLCHAIN, RAW, nor any later field), a SAMPLE of exactly
 * size bytes holds every field at these offsets from the record start (0:
 * the field is absent); no further check is needed (any other size is
 * pm_sample_parse()'s to refuse).  ok is false otherwise (then
 * pm__sample_core() or pm_sample_parse() decode it).
 */
struct pm__plan_direct {
	bool ok;
	uint32_t size;
	uint16_t off_id, off_ip, off_tid, off_time, off_addr, off_cpu, off_period;
};

static inline void pm__plan_direct(const pm_sample_layout *l, struct pm__plan_direct *d)
{
	memset(d, 0, sizeof(*d));
	if (!l || !l->core_ok ||
	    (l->sample_type & (PM_SAMPLE_READ | PM_SAMPLE_CALLCHAIN | PM_SAMPLE_RAW)))
		return;
	d->ok = true;
	d->size = l->prefix_end;
	d->off_id = l->off_id;
	d->off_ip = l->off_ip;
	d->off_tid = l->off_tid;
	d->off_time = l->off_time;
	d->off_addr = l->off_addr;
	d->off_cpu = l->off_cpu;
	d->off_period = l->off_period;
}

/* The pm__score of a sample parsed by pm_sample_parse() (for the slow path
 * of the bulk readers); *present = s->present. */
static inline void pm__score_from_sample(const struct pm_sample *s, struct pm__score *o,
					 uint64_t *present)
{
	o->id = s->id;
	o->ip = s->ip;
	o->time = s->time;
	o->addr = s->addr;
	o->period = s->period;
	o->pid = s->pid;
	o->tid = s->tid;
	o->cpu = s->cpu;
	o->callchain_nr = 0;
	o->callchain_markers = 0;
	if (s->present & PM_SAMPLE_CALLCHAIN) {
		for (uint64_t k = 0; k < s->callchain.nr; k++) {
			uint64_t ip = 0;

			if (pm_sample_callchain_ip(s, k, &ip) == 0)
				o->callchain_markers += PM_CONTEXT_IS_MARKER(ip);
		}
		o->callchain_nr = s->callchain.nr - o->callchain_markers;
	}
	o->raw = (s->present & PM_SAMPLE_RAW) ? s->raw.data : NULL;
	o->raw_size = (s->present & PM_SAMPLE_RAW) ? s->raw.size : 0;
	*present = s->present;
}

#endif /* PM_RECORD_PLAN_H */
