/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the live readers of an event list, over rings in memory.
 * A list of 1-4 events is "opened" on 1-4 memory rings without the kernel
 * (pm__evlist_open_memory(): ids chosen here, the list's defaults applied
 * to the attrs as pm_evlist_open() applies them), then a fuzzed producer
 * writes records into the rings and the list is read by one of
 *   - the live sample source behind pm_columns_new_from_evlist()
 *     (lib/ring/source.c) through pm_columns_read(), with a tee
 *     (pm_columns_tee()) that sees every record taken out of the rings, or
 *   - the public time-ordered drain pm_evlist_drain_ordered() (its engine
 *     is fuzz_drain's; here its argument checks and its time function: the
 *     event of each record by its id, the layout of that event).
 *
 * Input:
 *   byte 0: bits 0-1 rings - 1, bit 2 data areas of 8192 bytes (else 4096),
 *           bits 3-4 events - 1, bit 5 PM_EVLIST_NO_DEFAULTS (sample_type
 *           and sample_id_all from bytes 1-9), bit 6 the ordered drain
 *           (else the columns), bit 7 free-running positions that start
 *           just below 2^64 (else 0)
 *   bytes 1-8: sample_type with NO_DEFAULTS (every event); byte 9: bit 0
 *           sample_id_all, bit 1 the columns of event 0 only
 *           (pm_columns_opts.event), bit 2 PERIOD by frequency (PM_ATTR_FREQ)
 *   then operations, one byte each (op = bits 0-2, ring = bits 3-4,
 *   x = bits 5-7) with their arguments:
 *     0 SAMPLE   +event byte (% events; 0xff: an id no event has) +s16 time
 *                delta: the fields of that event's sample_type in the perf
 *                ABI order as far as this generator writes them (IDENTIFIER,
 *                IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD; a later bit
 *                leaves the record short of its layout), x more u64 of
 *                padding (longer than its layout)
 *     1 OTHER    +s16 delta: a COMM (x odd) or MMAP of 8x bytes with the
 *                sample_id trailer of event 0
 *     2 RAW      +u16 length + bytes, written as they are
 *     3 PUBLISH  x 0: this ring's data_head; 1: every ring; 2: 4 bytes short
 *                (a record cut by data_head; never below the data_head before)
 *     4 READ     columns: +u16 cap (1..512) rows; ordered drain: +flags
 *                (bit 0 PM_DRAIN_FLUSH, bit 1 an unknown flag bit, bits 2-4
 *                a PM_DRAIN_STOP at that callback, bits 5-7 max)
 *     5 TIME     +u64 the generator's clock (a SAMPLE at it follows)
 *   The producer writes only into space data_tail has given back (the
 *   kernel's side of the protocol) and nothing moves during a read.  At the
 *   end every ring is published and read until a read finds nothing.
 *
 * Before each read the harness walks each ring from its own reading
 * position to data_head by header.size (the perf ABI).  Checked:
 *   - every record handed out (a tee call, a drain callback) is the next of
 *     its ring in place (inside the data area with its full length) or, when
 *     it wraps the end, in the ring's copy buffer, with the ring's bytes;
 *     nothing skipped or repeated, nothing of a ring reported broken;
 *   - columns: the rows are the SAMPLE records the tee saw, in order, each
 *     equal to pm_evlist_sample() / pm_evlist_event_of() of the same bytes
 *     (time, ip, pid, tid, cpu, period or the attr's fixed one, id, event,
 *     cpumode); a record pm_evlist_sample() refuses ends the read with its
 *     error, the rows before it delivered, pm_columns_skipped() one more; a
 *     ring whose framing is impossible gives -PM_ERR_CORRUPT naming it,
 *     once; a read with fewer rows than asked and no error has emptied every
 *     ring that is not broken;
 *   - ordered drain: an unknown flag is -EINVAL with nothing handed out; an
 *     impossible record in any ring is -PM_ERR_CORRUPT with nothing handed
 *     out; the return is the number of callbacks (a stop: *stopped, the
 *     count with it), at most max; a flush not stopped empties every ring;
 *     when every record in the rings has a time (the harness's own id ->
 *     event -> layout) and the rings keep perf's assumption, the records of
 *     a flush come out in time order.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include <profileme/attr.h>
#include <profileme/common.h>
#include <profileme/export.h>
#include <profileme/record.h>
#include <profileme/ring.h>

#include "fuzz_common.h"
#include "internal/pm_internal.h"
#include "ring/ring_int.h"

#define LV_MAX_RINGS 4
#define LV_MAX_EV 4
#define LV_MAX_RECS (8192 / 8 + 1)
#define LV_CAP 512

struct lv_ring {
	uint8_t *mem, *data;
	size_t size;
	pm_ring *r;
	uint64_t prod;   /* producer's next write position (unpublished) */
	uint64_t pos;    /* harness: next position the reader must hand out */
	bool dead;       /* reported broken by the columns reader */
	bool broken;     /* the walk from pos to data_head is impossible */
	/* it was so at some read since pos: a columns read that ended at a
	 * sample goes on with the visit's snapshot of data_head, so a data_head
	 * that cut a record then is reported against that snapshot later */
	bool broken_seen;
	uint64_t good_to; /* columns: the framing is good from pos to here */
	/* drain mode: this drain's records, cur = next to hand out */
	uint64_t rpos[LV_MAX_RECS];
	uint64_t rtime[LV_MAX_RECS];
	bool rtimed[LV_MAX_RECS];
	size_t n, cur;
};

struct lv_row {
	int rc, event;
	uint64_t time, ip, period, id;
	uint32_t pid, tid, cpu;
	uint8_t cpumode;
	bool counted; /* a row is expected or an error (the event filter) */
};

struct lv_state {
	struct lv_ring ring[LV_MAX_RINGS];
	size_t nr, nev;
	pm_evlist *el;
	struct pm_attr attr[LV_MAX_EV];
	pm_sample_layout *layout[LV_MAX_EV];
	uint64_t ids[LV_MAX_EV * LV_MAX_RINGS];
	int filter;      /* pm_columns_opts.event */
	uint64_t clock, tag;
	/* one read */
	struct lv_row seen[LV_MAX_RINGS * LV_MAX_RECS + 8]; /* a read takes what the rings hold */
	size_t nseen;    /* SAMPLE records the tee saw (bounded: see tee) */
	bool overflow;
	/* ordered drain */
	long calls;
	unsigned stop_at;
	unsigned long max;
	bool sorted_ok;  /* the order check applies to this drain */
	bool have_last;
	uint64_t last_time;
	bool have_out;
	uint64_t max_out;
	bool honest;
	bool drain_corrupt; /* an impossible record was refused: sticky */
	struct pm_sample s;
	uint8_t lin[PM_RING_MAX_RECORD];
};

static bool host_be(void)
{
	return pm__host_big_endian();
}

static void ring_read(const struct lv_ring *g, uint64_t p, void *dst, size_t len)
{
	for (size_t i = 0; i < len; i++)
		((uint8_t *)dst)[i] = g->data[(p + i) & (g->size - 1)];
}

static void ring_write(struct lv_ring *g, uint64_t p, const void *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		g->data[(p + i) & (g->size - 1)] = ((const uint8_t *)src)[i];
}

static void produce(struct lv_ring *g, const uint8_t *rec, size_t len)
{
	uint64_t tail = __atomic_load_n(g->r->tail_p, __ATOMIC_ACQUIRE);

	if (len > g->size || g->prod + len - tail > g->size)
		return; /* the kernel drops it */
	ring_write(g, g->prod, rec, len);
	g->prod += len;
}

static uint64_t head_of(const struct lv_ring *g)
{
	return __atomic_load_n(g->r->head_p, __ATOMIC_ACQUIRE);
}

/* The event (harness's own map) of the id of a record: -1 none. */
static int lv_event_of_id(const struct lv_state *st, uint64_t id)
{
	for (size_t i = 0; i < st->nev; i++)
		for (size_t c = 0; c < st->nr; c++)
			if (st->ids[i * st->nr + c] == id)
				return (int)i;
	return -1;
}

/* The harness's time of a record: its event by id (one event: that one),
 * the layout of that event; false when it has none. */
static bool lv_time(struct lv_state *st, const uint8_t *rec, size_t size, uint64_t *t)
{
	int e = 0;

	if (st->nev > 1) {
		uint64_t id;
		const pm_sample_layout *l = NULL;

		for (size_t i = 0; i < st->nev && !l; i++)
			l = st->layout[i];
		if (!l || pm_record_peek_id(l, rec, size, host_be(), &id))
			return false;
		e = lv_event_of_id(st, id);
		if (e < 0)
			return false;
	}
	if (!st->layout[e])
		return false;
	return pm_record_peek_time(st->layout[e], rec, size, host_be(), t) == 0;
}

/* Walk each ring from the harness's position to data_head: the records
 * (drain mode) and whether the framing is impossible. */
static void model_snapshot(struct lv_state *st)
{
	bool be = host_be();

	for (size_t i = 0; i < st->nr; i++) {
		struct lv_ring *g = &st->ring[i];
		uint64_t head = head_of(g);

		g->n = g->cur = 0;
		g->broken = false;
		if (g->dead)
			continue;
		if (head - g->pos > g->size) {
			g->broken = g->broken_seen = true;
			continue;
		}
		for (uint64_t p = g->pos; p != head;) {
			uint8_t hdr[8];
			size_t sz;

			if (head - p < 8) {
				g->broken = g->broken_seen = true;
				break;
			}
			ring_read(g, p, hdr, 8);
			sz = pm__ld16(hdr + 6, be);
			if (sz < 8 || (sz & 7) || sz > head - p || sz > g->size) {
				g->broken = g->broken_seen = true;
				break;
			}
			PM_FUZZ_ASSERT(g->n < LV_MAX_RECS);
			ring_read(g, p, st->lin, sz);
			g->rpos[g->n] = p;
			g->rtimed[g->n] = lv_time(st, st->lin, sz, &g->rtime[g->n]);
			g->n++;
			p += sz;
		}
	}
}

/* The columns reader's check of the framing, incremental: the published
 * bytes do not change until they are consumed, so the walk goes on from
 * where it stopped (good_to, a record boundary at or after pos). */
static void model_frame(struct lv_state *st)
{
	bool be = host_be();

	for (size_t i = 0; i < st->nr; i++) {
		struct lv_ring *g = &st->ring[i];
		uint64_t head = head_of(g), p;

		g->broken = false;
		if (g->dead)
			continue;
		if (head - g->pos > g->size) {
			g->broken = g->broken_seen = true;
			continue;
		}
		if (g->good_to - g->pos > head - g->pos)
			g->good_to = g->pos; /* behind the reader, or past a head set back */
		for (p = g->good_to; p != head;) {
			uint8_t hdr[8];
			size_t sz;

			if (head - p < 8) {
				g->broken = g->broken_seen = true;
				break;
			}
			ring_read(g, p, hdr, 8);
			sz = pm__ld16(hdr + 6, be);
			if (sz < 8 || (sz & 7) || sz > head - p || sz > g->size) {
				g->broken = g->broken_seen = true;
				break;
			}
			p += sz;
		}
		g->good_to = p;
	}
}

/* A record handed out: the next of its ring, with the ring's bytes.
 * Returns the ring. */
static struct lv_ring *lv_handed(struct lv_state *st, const void *rec, size_t size)
{
	const uint8_t *p = rec;
	struct lv_ring *g = NULL;
	bool copied = false, be = host_be();
	uint8_t hdr[8];

	PM_FUZZ_ASSERT(((uintptr_t)rec & 7) == 0);
	for (size_t i = 0; i < st->nr && !g; i++) {
		struct lv_ring *c = &st->ring[i];
		const uint8_t *cp = (const uint8_t *)c->r->copy;

		if (p >= c->data && p < c->data + c->size) {
			g = c;
		} else if (p >= cp && p < cp + sizeof(c->r->copy)) {
			g = c;
			copied = true;
		}
	}
	PM_FUZZ_ASSERT(g != NULL);
	PM_FUZZ_ASSERT(!g->dead);
	PM_FUZZ_ASSERT(head_of(g) - g->pos >= 8 && head_of(g) - g->pos <= g->size);
	ring_read(g, g->pos, hdr, 8);
	PM_FUZZ_ASSERT(pm__ld16(hdr + 6, be) == size);
	PM_FUZZ_ASSERT(size >= 8 && size % 8 == 0 && size <= head_of(g) - g->pos);
	if (copied) {
		PM_FUZZ_ASSERT((g->pos & (g->size - 1)) + size > g->size);
		PM_FUZZ_ASSERT(p == (const uint8_t *)g->r->copy);
	} else {
		PM_FUZZ_ASSERT((size_t)(p - g->data) == (g->pos & (g->size - 1)));
		PM_FUZZ_ASSERT((size_t)(p - g->data) + size <= g->size);
	}
	ring_read(g, g->pos, st->lin, size);
	PM_FUZZ_ASSERT(memcmp(st->lin, p, size) == 0);
	g->pos += size;
	return g;
}

/* ---------------------------------------------------------------- columns */

static int tee_cb(const void *rec, size_t size, void *user)
{
	struct lv_state *st = user;
	struct lv_row *w;
	uint16_t misc;
	int ev;

	lv_handed(st, rec, size);
	if (pm__ld32(rec, host_be()) != PM_RECORD_SAMPLE)
		return 0;
	/* the reader stops at its cap: at most cap rows and one bad record */
	PM_FUZZ_ASSERT(st->nseen < sizeof(st->seen) / sizeof(st->seen[0]));
	w = &st->seen[st->nseen++];
	memset(w, 0, sizeof(*w));
	st->s.sz = sizeof(st->s);
	ev = pm_evlist_event_of(st->el, rec, size);
	w->counted = st->filter < 0 || ev == st->filter;
	w->rc = pm_evlist_sample(st->el, rec, size, &st->s);
	PM_FUZZ_ASSERT(w->rc <= 0);
	if (w->rc == 0) {
		const struct pm_attr *a;

		PM_FUZZ_ASSERT(ev >= 0 && (size_t)ev < st->nev);
		a = &st->attr[ev];
		w->event = ev;
		w->time = st->s.time;
		w->ip = st->s.ip;
		w->pid = st->s.pid;
		w->tid = st->s.tid;
		w->cpu = st->s.cpu;
		w->id = st->s.id;
		w->period = (a->sample_type & PM_SAMPLE_PERIOD) || (a->flags & PM_ATTR_FREQ) ?
				    st->s.period : a->sample_period;
		memcpy(&misc, (const uint8_t *)rec + 4, 2);
		w->cpumode = misc & 7;
	}
	return 0;
}

struct lv_cols {
	uint64_t time[LV_CAP], ip[LV_CAP], period[LV_CAP], id[LV_CAP];
	uint32_t pid[LV_CAP], tid[LV_CAP], cpu[LV_CAP];
	int32_t event[LV_CAP];
	uint8_t cpumode[LV_CAP];
};

/* One read of at most cap rows, checked; true when it emptied the rings. */
static bool lv_read(struct lv_state *st, pm_columns *c, size_t cap)
{
	static struct lv_cols r;
	void *bufs[PM_COLUMNS_NBASE] = { 0 };
	const struct {
		const char *name;
		void *p;
	} want[] = { { "time", r.time }, { "ip", r.ip },   { "period", r.period },
		     { "id", r.id },	 { "pid", r.pid }, { "tid", r.tid },
		     { "cpu", r.cpu },	 { "event", r.event }, { "cpumode", r.cpumode } };
	uint64_t skipped = pm_columns_skipped(c);
	size_t n = SIZE_MAX, k = 0, rows = 0;
	bool bad_seen = false;
	int rc;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		long idx = pm_columns_index(c, want[i].name);

		PM_FUZZ_ASSERT(idx >= 0 && idx < PM_COLUMNS_NBASE);
		bufs[idx] = want[i].p;
	}
	model_frame(st);
	st->nseen = 0;
	rc = pm_columns_read(c, bufs, PM_COLUMNS_NBASE, cap, &n);
	PM_FUZZ_ASSERT(n <= cap);
	/* the rows: the counted SAMPLE records the tee saw, each as
	 * pm_evlist_sample() parses it; a refused one is the read's end */
	for (size_t i = 0; i < st->nseen; i++) {
		const struct lv_row *w = &st->seen[i];

		if (!w->counted)
			continue;
		if (w->rc < 0) {
			bad_seen = true;
			PM_FUZZ_ASSERT(i == st->nseen - 1);
			PM_FUZZ_ASSERT(rc == w->rc);
			PM_FUZZ_ASSERT(pm_columns_skipped(c) == skipped + 1);
			break;
		}
		PM_FUZZ_ASSERT(k < n);
		PM_FUZZ_ASSERT(r.time[k] == w->time);
		PM_FUZZ_ASSERT(r.ip[k] == w->ip);
		PM_FUZZ_ASSERT(r.period[k] == w->period);
		PM_FUZZ_ASSERT(r.id[k] == w->id);
		PM_FUZZ_ASSERT(r.pid[k] == w->pid);
		PM_FUZZ_ASSERT(r.tid[k] == w->tid);
		PM_FUZZ_ASSERT(r.cpu[k] == w->cpu);
		PM_FUZZ_ASSERT(r.event[k] == w->event);
		PM_FUZZ_ASSERT(r.cpumode[k] == w->cpumode);
		k++;
		rows++;
	}
	PM_FUZZ_ASSERT(rows == n);
	if (rc == 0) {
		PM_FUZZ_ASSERT(!bad_seen && pm_columns_skipped(c) == skipped);
		if (n < cap) {
			/* a round found every ring empty: nothing left, nothing broken */
			for (size_t i = 0; i < st->nr; i++) {
				const struct lv_ring *g = &st->ring[i];

				PM_FUZZ_ASSERT(g->dead || g->pos == head_of(g));
			}
			return true;
		}
	} else if (rc == -PM_ERR_CORRUPT && pm_columns_skipped(c) == skipped) {
		/* a ring's framing: the one the message names, not read again */
		const char *m = strstr(pm_errmsg(), "ring ");
		unsigned long ri;

		PM_FUZZ_ASSERT(m != NULL && !bad_seen);
		ri = strtoul(m + 5, NULL, 10);
		PM_FUZZ_ASSERT(ri < st->nr && st->ring[ri].broken_seen && !st->ring[ri].dead);
		st->ring[ri].dead = true;
	} else {
		/* a sample refused: the tee saw it, the read ends at it */
		PM_FUZZ_ASSERT(rc < 0 && bad_seen && pm_columns_skipped(c) == skipped + 1);
	}
	return false;
}

/* ----------------------------------------------------------- ordered drain */

static int drain_cb(const void *rec, size_t size, void *user)
{
	struct lv_state *st = user;
	struct lv_ring *g;
	size_t gi;
	bool timed;
	uint64_t t = 0;

	st->calls++;
	PM_FUZZ_ASSERT(!st->max || (unsigned long)st->calls <= st->max);
	g = lv_handed(st, rec, size);
	gi = (size_t)(g - st->ring);
	PM_FUZZ_ASSERT(g->cur < g->n);
	timed = g->rtimed[g->cur];
	if (timed)
		t = g->rtime[g->cur];
	g->cur++;
	(void)gi;
	if (st->sorted_ok && timed) {
		PM_FUZZ_ASSERT(!st->have_last || t >= st->last_time);
		st->have_last = true;
		st->last_time = t;
	}
	if (timed && (!st->have_out || t > st->max_out)) {
		st->max_out = t;
		st->have_out = true;
	}
	return st->stop_at && (unsigned)st->calls == st->stop_at ? PM_DRAIN_STOP : 0;
}

static void lv_drain(struct lv_state *st, unsigned fl)
{
	unsigned flags = (fl & 1) ? PM_DRAIN_FLUSH : 0;
	bool bad_flag = fl & 2, corrupt = st->drain_corrupt, all_timed = true;
	int stopped = -1;
	long n;

	if (bad_flag)
		flags |= 1u << 9;
	st->stop_at = (fl >> 2) & 7;
	st->max = (fl >> 5) & 7;
	st->calls = 0;
	model_snapshot(st);
	for (size_t i = 0; i < st->nr; i++) {
		const struct lv_ring *g = &st->ring[i];
		uint64_t prev = 0;

		corrupt |= g->broken;
		for (size_t j = 0; j < g->n; j++) {
			if (!g->rtimed[j]) {
				all_timed = false;
				continue;
			}
			/* perf's assumption: a ring in time order, nothing new
			 * earlier than what went out */
			if ((j && g->rtime[j] < prev) || (st->have_out && g->rtime[j] < st->max_out))
				st->honest = false;
			prev = g->rtime[j];
		}
	}
	st->sorted_ok = (flags & PM_DRAIN_FLUSH) && all_timed && st->honest;
	st->have_last = false;
	n = pm_evlist_drain_ordered(st->el, drain_cb, st, st->max, flags, &stopped);
	if (bad_flag) {
		PM_FUZZ_ASSERT(n == -EINVAL && st->calls == 0 && stopped == 0);
		return;
	}
	if (corrupt) {
		/* and every later drain: the rings are unusable */
		PM_FUZZ_ASSERT(n == -PM_ERR_CORRUPT && st->calls == 0);
		st->drain_corrupt = true;
		return;
	}
	PM_FUZZ_ASSERT(n >= 0 && n == st->calls);
	PM_FUZZ_ASSERT(stopped == (st->stop_at && (unsigned)st->calls == st->stop_at));
	if ((flags & PM_DRAIN_FLUSH) && !stopped && (!st->max || (unsigned long)n < st->max))
		for (size_t i = 0; i < st->nr; i++)
			PM_FUZZ_ASSERT(st->ring[i].pos == head_of(&st->ring[i]));
}

/* ---------------------------------------------------------------- producer */

/* The u64 fields of a sample in the perf ABI order, up to the first bit
 * this generator does not write. */
static size_t put_fields(struct lv_state *st, uint8_t *b, uint64_t st_type, uint64_t id,
			 uint64_t time, uint32_t ring)
{
	static const int order[] = { 16, 0, 1, 2, 3, 6, 9, 7, 8 };
	bool be = host_be();
	size_t off = 0;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint64_t bit = 1ULL << order[i], v;

		if (!(st_type & bit))
			continue;
		switch (order[i]) {
		case 16: case 6: v = id; break;
		case 0: v = 0x400000 + 8 * ++st->tag; break;
		case 1: v = ((uint64_t)(100 + ring) << 32) | (200 + ring); break;
		case 2: v = time; break;
		case 7: v = ring; break;
		case 8: v = 1000 + ring; break;
		default: v = st->tag; break;
		}
		pm__st64(b + off, v, be);
		off += 8;
	}
	return off;
}

static void gen_sample(struct lv_state *st, struct lv_ring *g, uint32_t ring, int ev, unsigned pad)
{
	static uint8_t b[8 + 9 * 8 + 7 * 8];
	const struct pm_attr *a = &st->attr[ev < 0 ? 0 : ev];
	uint64_t id = ev < 0 ? 0xdead0000beefULL : st->ids[(size_t)ev * st->nr + ring % st->nr];
	size_t len = 8 + put_fields(st, b + 8, a->sample_type, id, st->clock, ring);

	memset(b + len, 0x5a, 8 * (size_t)pad);
	len += 8 * (size_t)pad;
	pm__st32(b, PM_RECORD_SAMPLE, host_be());
	pm__st16(b + 4, (uint16_t)(1 + ring % 2), host_be()); /* cpumode kernel / user */
	pm__st16(b + 6, (uint16_t)len, host_be());
	produce(g, b, len);
}

static void gen_other(struct lv_state *st, struct lv_ring *g, uint32_t ring, unsigned x)
{
	static const int order[] = { 1, 2, 6, 9, 7, 16 };
	uint8_t b[8 + 56 + 48];
	size_t body = 8 * (size_t)x, len;
	const struct pm_attr *a = &st->attr[0];
	bool be = host_be();

	memset(b, 0, sizeof(b));
	pm__st32(b + 8, ring, be);
	len = 8 + body;
	if (a->flags & PM_ATTR_SAMPLE_ID_ALL)
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			if (!(a->sample_type & (1ULL << order[i])))
				continue;
			pm__st64(b + len,
				 order[i] == 2 ? st->clock :
				 order[i] == 16 || order[i] == 6 ? st->ids[ring % st->nr] : ring, be);
			len += 8;
		}
	pm__st32(b, x & 1 ? PM_RECORD_COMM : PM_RECORD_MMAP, be);
	pm__st16(b + 6, (uint16_t)len, be);
	produce(g, b, len);
}

static void publish(struct lv_ring *g, uint64_t head)
{
	__atomic_store_n(g->r->head_p, head, __ATOMIC_RELEASE);
}

/* --------------------------------------------------------------- the input */

static uint16_t rd16(const uint8_t *d, size_t n, size_t *i)
{
	uint16_t v = 0;

	if (*i + 2 <= n)
		memcpy(&v, d + *i, 2);
	*i += 2;
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lv_state st;
	struct pm_evlist_opts eo = { .sz = sizeof(eo) };
	struct pm_columns_opts co = { .sz = sizeof(co), .event = -1, .no_raw = 1 };
	pm_ring *rings[LV_MAX_RINGS] = { 0 };
	pm_columns *c = NULL;
	bool drain_mode;
	uint64_t raw_type = 0;
	size_t i = 10;
	int rc;

	if (size < 10)
		return 0;
	memset(&st, 0, sizeof(st));
	st.nr = (size_t)(data[0] & 3) + 1;
	st.nev = (size_t)((data[0] >> 3) & 3) + 1;
	drain_mode = data[0] & 0x40;
	memcpy(&raw_type, data + 1, 8);
	st.honest = true;
	st.filter = -1;
	if (data[0] & 0x20)
		eo.flags |= PM_EVLIST_NO_DEFAULTS;
	if (pm_evlist_new(&st.el, &eo))
		abort();
	for (size_t e = 0; e < st.nev; e++) {
		struct pm_attr a;

		memset(&a, 0, sizeof(a));
		a.type = 1; /* software: task-clock */
		a.config = 1;
		a.sample_period = 1000 + e;
		if (data[9] & 4) {
			a.flags |= PM_ATTR_FREQ;
			a.sample_period = 4000; /* a frequency */
		}
		if (data[0] & 0x20) {
			a.sample_type = raw_type;
			if (data[9] & 1)
				a.flags |= PM_ATTR_SAMPLE_ID_ALL;
		}
		PM_FUZZ_ASSERT(pm_evlist_add(st.el, &a, "task-clock", -1) == (int)e);
	}
	for (size_t r = 0; r < st.nr; r++) {
		struct lv_ring *g = &st.ring[r];
		uint64_t start = (data[0] & 0x80) ? (uint64_t)0 - 4096 - 64 * r : 0;

		g->size = (data[0] & 4) ? 8192 : 4096;
		g->mem = aligned_alloc(4096, 4096 + g->size);
		if (!g->mem)
			abort();
		memset(g->mem, 0, 4096 + g->size);
		g->data = g->mem + 4096;
		memcpy(g->mem + 1024, &start, 8); /* data_head */
		memcpy(g->mem + 1032, &start, 8); /* data_tail */
		PM_FUZZ_ASSERT(pm_ring_new_from_memory(&rings[r], g->mem, 4096, g->size, 0) == 0);
		g->r = rings[r];
		g->prod = g->pos = start;
	}
	for (size_t e = 0; e < st.nev; e++)
		for (size_t r = 0; r < st.nr; r++)
			st.ids[e * st.nr + r] = 0x1000 * (e + 1) + r + 1;
	rc = pm__evlist_open_memory(st.el, rings, st.nr, st.ids);
	PM_FUZZ_ASSERT(rc == 0);
	for (size_t e = 0; e < st.nev; e++) {
		PM_FUZZ_ASSERT(pm_evlist_attr(st.el, e, &st.attr[e]) == 0);
		if (pm_sample_layout_new(&st.layout[e], &st.attr[e]))
			st.layout[e] = NULL;
	}
	if (!drain_mode) {
		if ((data[9] & 2) && st.nev > 1)
			co.event = st.filter = 0;
		PM_FUZZ_ASSERT(pm_columns_new_from_evlist(&c, st.el, &co) == 0);
		PM_FUZZ_ASSERT(pm_columns_tee(c, tee_cb, &st) == 0);
	}
	st.clock = 1000000;

	while (i < size) {
		uint8_t b = data[i++];
		unsigned op = b & 7, x = b >> 5;
		size_t ri = ((size_t)(b >> 3) & 3) % st.nr;
		struct lv_ring *g = &st.ring[ri];

		switch (op) {
		case 0: {
			uint8_t e = i < size ? data[i++] : 0;
			int16_t d = (int16_t)rd16(data, size, &i);

			st.clock += (uint64_t)(int64_t)d;
			gen_sample(&st, g, (uint32_t)ri, e == 0xff ? -1 : (int)(e % st.nev), x);
			break;
		}
		case 1: {
			int16_t d = (int16_t)rd16(data, size, &i);

			st.clock += (uint64_t)(int64_t)d;
			gen_other(&st, g, (uint32_t)ri, x);
			break;
		}
		case 2: {
			size_t len = rd16(data, size, &i) % 512;

			if (len > size - PM_MIN(i, size))
				len = size - PM_MIN(i, size);
			produce(g, data + i, len);
			i += len;
			break;
		}
		case 3:
			if (x == 1) {
				for (size_t r = 0; r < st.nr; r++)
					publish(&st.ring[r], st.ring[r].prod);
			} else if (x == 2 && g->prod - head_of(g) >= 4) {
				publish(g, g->prod - 4); /* data_head never goes back */
			} else {
				publish(g, g->prod);
			}
			break;
		case 4:
			if (drain_mode) {
				lv_drain(&st, i < size ? data[i++] : 0);
			} else {
				lv_read(&st, c, (size_t)(rd16(data, size, &i) % LV_CAP) + 1);
			}
			break;
		case 5: {
			uint64_t t = 0;

			if (i + 8 <= size)
				memcpy(&t, data + i, 8);
			i += 8;
			st.clock = t;
			break;
		}
		default:
			break;
		}
	}
	/* the end: everything published, read until nothing is left */
	for (size_t r = 0; r < st.nr; r++)
		publish(&st.ring[r], st.ring[r].prod);
	/* each read that does not empty the rings ends at a record it took */
	for (size_t k = 0; k < LV_MAX_RINGS * LV_MAX_RECS + 2; k++) {
		if (drain_mode) {
			lv_drain(&st, 1); /* a flush without max or stop empties them */
			if (k)
				break;
		} else if (lv_read(&st, c, LV_CAP)) {
			break;
		}
	}
	if (!drain_mode) {
		for (size_t r = 0; r < st.nr; r++)
			PM_FUZZ_ASSERT(st.ring[r].dead || st.ring[r].pos == head_of(&st.ring[r]));
	}
	pm_columns_free(c);
	pm_evlist_free(st.el); /* frees the rings (not their memory) */
	for (size_t e = 0; e < st.nev; e++)
		pm_sample_layout_free(st.layout[e]);
	for (size_t r = 0; r < st.nr; r++)
		free(st.ring[r].mem);
	return 0;
}
