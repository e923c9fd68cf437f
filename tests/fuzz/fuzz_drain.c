/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the time-ordered drain across per-CPU rings
 * (pm_evlist_drain_ordered(); its engine pm__ring_drain_ordered() in
 * lib/ring/order.c, run here on rings in memory, pm_ring_new_from_memory(),
 * with the time function pm_evlist_drain_ordered() uses for a list of one
 * event: pm_record_peek_time() with the layout of its attr, or no time at
 * all when the layout is unknown).
 *
 * Input:
 *   byte 0: bits 0-1 rings - 1 (1..4), bit 2 data areas of 8192 bytes (else
 *           4096), bit 3 control pages of 2048 bytes (else 4096), bit 4 the
 *           control page's data_offset/data_size filled in (else 0), bit 5
 *           initial data_tail values taken as they are (else 8-aligned; an
 *           odd one must be refused with -EINVAL)
 *   byte 1: the attr: value % 6 picks IP|TID|TIME|CPU, IDENTIFIER|IP|TID|
 *           TIME|CPU|PERIOD, IP|TID|TIME|PERIOD (all with sample_id_all),
 *           IP|TID|CPU|PERIOD, TIME (without), or a raw one: sample_type =
 *           bytes 2-9, sample_id_all = bit 0 of byte 10
 *   bytes 11..: one u64 per ring, its initial data_tail (= data_head), so
 *           free-running positions can start just below 2^64 and wrap
 *   then operations, one byte each (op = bits 0-2, ring = bits 3-4,
 *   x = bits 5-7) with their arguments:
 *     0 SAMPLE   +s16 time delta from the clock of the generator (a delta
 *                >= 0 moves the clock: CPUs share one clock, so rings keep
 *                time order; a negative one makes a misordered record)
 *     1 OTHER    +s16 delta: a COMM-like record (x: body 8x bytes) with the
 *                sample_id trailer of the attr (its time there)
 *     2 TIMELESS a perf-tool type 64 + x (68: a FINISHED_ROUND) of 8 bytes
 *     3 RAW      +u16 length + bytes: written as they are (header included:
 *                size 0, odd sizes, sizes past data_head or over the ring)
 *     4 PUBLISH  x 0: this ring's data_head; 1: every ring; 2: 4 bytes
 *                short of it (a record cut by data_head); 3: two rings' worth
 *                past data_tail (impossible)
 *     5 DRAIN    +flags (bit 0 PM_DRAIN_FLUSH, bits 1-3 the callback's stop
 *                value, bits 4-7 max) +k (the stop happens at the k-th
 *                record of the call): stop values 0 none, 1 PM_DRAIN_STOP,
 *                7, INT_MAX, -ENOMEM, -1, INT_MIN, -PM_ERR_CORRUPT; x bit 0:
 *                the producer goes on during the drain (the callback writes
 *                a sample into this ring and publishes it: not for this
 *                drain, which reads up to the data_head it loaded)
 *     6 BIG      +u16 size: a SAMPLE at the clock padded to that size
 *     7 ABSTIME  +u64 time: a SAMPLE at that time (the clock moves there)
 *   The producer keeps the kernel's side of the protocol: it writes only
 *   into space data_tail has given back (a record that does not fit is
 *   dropped, as the kernel drops it), and nothing moves during a drain.
 *   At the end every ring is published and flushed.
 *
 * Before each drain the harness walks each ring's bytes from its own
 * reading position to data_head by header.size (the perf ABI) and knows
 * what the drain must do.  Checked:
 *   - an impossible record (size < 8, not a multiple of 8, past data_head,
 *     bigger than the ring) or a data_head more than a ring past the reader
 *     anywhere: -PM_ERR_CORRUPT, no record handed out, nothing consumed;
 *     then every later drain says the same;
 *   - every record handed out is the next one of its ring (ring order kept,
 *     nothing skipped or repeated), its size is header.size, its bytes are
 *     the ring's, it lies inside the ring's data area with its full length
 *     (or, when it wraps the end, in the ring's copy buffer), 8-aligned;
 *   - merge: its time (pm_record_peek_time(), else the time of the record
 *     before it in its ring, 0 at the start) is at most the limit (the
 *     previous drains' latest time seen; none before the first drain;
 *     everything with PM_DRAIN_FLUSH) and no later than the next record of
 *     every other ring still eligible (strictly earlier than a lower ring's:
 *     equal times go by ring index);
 *   - when the rings keep perf's assumption (each ring in time order, no
 *     record published with a time before one already handed out), the
 *     whole stream over all drains is in time order;
 *   - the return: the count of callbacks (a positive stop value: the count,
 *     this record included, *stopped set; a negative one: that value), at
 *     most max; a drain not stopped leaves in each ring only records later
 *     than the limit; data_tail = the end of the records handed out;
 *     pm_ring_stats() records and wrapped match the callbacks;
 *   - each record is parsed in the callback with one pm_sample / pm_record
 *     for the whole input (as pm_evlist_sample() does for a consumer).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include <profileme/attr.h>
#include <profileme/common.h>
#include <profileme/record.h>
#include <profileme/ring.h>

#include "fuzz_common.h"
#include "internal/pm_internal.h"
#include "ring/ring_int.h"

#define FD_MAX_RINGS 4
#define FD_MAX_RECS 8192 /* per ring per drain: 8192 / 8 records at most */

struct fd_rec {
	uint64_t pos;
	size_t size;
	uint64_t time; /* effective: its own, else the one before it */
};

struct fd_ring {
	uint8_t *mem, *data;
	size_t page, size;
	uint64_t *head_p, *tail_p;
	pm_ring *r;
	uint64_t prod;     /* producer's next write position (unpublished) */
	uint64_t pos;      /* harness: next position the reader must hand out */
	uint64_t last;     /* harness: time of the last record handed out */
	uint64_t seen_head;/* data_head of the previous drain's snapshot */
	uint64_t snap;     /* data_head of this drain's */
	uint64_t handed, wrapped;
	/* this drain: the records of the snapshot, cur = next to hand out */
	struct fd_rec recs[FD_MAX_RECS / 8 + 1];
	size_t n, cur;
};

struct fd_state {
	struct fd_ring ring[FD_MAX_RINGS];
	pm_ring *rings[FD_MAX_RINGS];
	size_t nr;
	pm_sample_layout *layout;
	uint64_t sample_type;
	bool id_all;
	struct pm__order order;
	/* the drain's state as the documentation describes it */
	bool have_wm;
	uint64_t wm;
	bool corrupt;    /* an impossible record was seen: the rings are unusable */
	bool honest;     /* perf's assumption held so far */
	bool have_out;
	uint64_t max_out; /* latest time handed out */
	uint64_t tag;
	uint64_t clock;  /* the generator's */
	/* one call */
	uint64_t limit;
	bool none;       /* no limit yet and no flush: nothing may go out */
	unsigned long max;
	long calls;
	unsigned stop_k;
	int stop_ret;
	struct fd_ring *inject; /* the producer writes here during the drain */
	/* the consumer's structs, reused for every record */
	struct pm_sample s;
	struct pm_record rec;
	uint8_t lin[PM_RING_MAX_RECORD];
};

static bool host_be(void)
{
	return pm__host_big_endian();
}

static int fd_time(const void *rec, size_t size, void *ctx, uint64_t *t)
{
	const pm_sample_layout *l = ctx;

	if (!l)
		return 1;
	return pm_record_peek_time(l, rec, size, host_be(), t) ? 1 : 0;
}

/* Copy len ring bytes from free-running position p (wrapping). */
static void ring_read(const struct fd_ring *g, uint64_t p, void *dst, size_t len)
{
	for (size_t i = 0; i < len; i++)
		((uint8_t *)dst)[i] = g->data[(p + i) & (g->size - 1)];
}

static void ring_write(struct fd_ring *g, uint64_t p, const void *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		g->data[(p + i) & (g->size - 1)] = ((const uint8_t *)src)[i];
}

/* The producer: room is what data_tail has given back. */
static void produce(struct fd_ring *g, const uint8_t *rec, size_t len)
{
	uint64_t tail = __atomic_load_n(g->tail_p, __ATOMIC_ACQUIRE);

	if (len > g->size || g->prod + len - tail > g->size)
		return; /* the kernel drops it (a LOST record would say so) */
	ring_write(g, g->prod, rec, len);
	g->prod += len;
}

/* The u64 fields of a sample in the perf ABI order (IDENTIFIER, IP, TID,
 * TIME, ADDR, ID, STREAM_ID, CPU, PERIOD), up to the first bit this
 * generator does not write. */
static size_t put_sample_fields(const struct fd_state *st, uint8_t *b, uint64_t time,
				uint64_t tag, uint32_t ring)
{
	static const int order[] = { 16, 0, 1, 2, 3, 6, 9, 7, 8 };
	bool be = host_be();
	size_t off = 0;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint64_t bit = 1ULL << order[i], v = 0;

		if (!(st->sample_type & bit))
			continue;
		switch (order[i]) {
		case 0: v = tag; break;
		case 1: v = ((uint64_t)ring << 32) | ring; break;
		case 2: v = time; break;
		case 7: v = ring; break;
		case 8: v = 1; break;
		default: v = 0; break;
		}
		pm__st64(b + off, v, be);
		off += 8;
	}
	return off;
}

/* The sample_id trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static size_t put_trailer(const struct fd_state *st, uint8_t *b, uint64_t time, uint32_t ring)
{
	static const int order[] = { 1, 2, 6, 9, 7, 16 };
	bool be = host_be();
	size_t off = 0;

	if (!st->id_all)
		return 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st->sample_type & (1ULL << order[i])))
			continue;
		pm__st64(b + off, order[i] == 2 ? time : order[i] == 1 || order[i] == 7 ? ring : 0,
			 be);
		off += 8;
	}
	return off;
}

static void gen_sample(struct fd_state *st, struct fd_ring *g, uint32_t ring, uint64_t time,
		       size_t pad_to)
{
	static uint8_t b[PM_RING_MAX_RECORD];
	size_t len = 8 + put_sample_fields(st, b + 8, time, ++st->tag, ring);

	if (pad_to > len) {
		pad_to &= ~(size_t)7;
		if (pad_to > 65528)
			pad_to = 65528;
		if (pad_to > len) {
			memset(b + len, 0xa5, pad_to - len);
			len = pad_to;
		}
	}
	pm__st32(b, PM_RECORD_SAMPLE, host_be());
	pm__st16(b + 4, 0, host_be());
	pm__st16(b + 6, (uint16_t)len, host_be());
	produce(g, b, len);
}

static void gen_other(struct fd_state *st, struct fd_ring *g, uint32_t ring, uint64_t time,
		      unsigned x)
{
	uint8_t b[8 + 56 + 48];
	size_t body = 8 * (size_t)x, len;

	memset(b, 0, sizeof(b));
	pm__st32(b + 8, ring, host_be());
	memcpy(b + 12, "fuzzcomm", body >= 12 ? 8 : 0);
	len = 8 + body;
	len += put_trailer(st, b + len, time, ring);
	pm__st32(b, x & 1 ? PM_RECORD_COMM : PM_RECORD_MMAP, host_be());
	pm__st16(b + 6, (uint16_t)len, host_be());
	produce(g, b, len);
}

/* The generator's time: clock + delta; a delta >= 0 moves the clock. */
static uint64_t gen_time(struct fd_state *st, int16_t delta)
{
	uint64_t t = st->clock + (uint64_t)(int64_t)delta;

	if (delta >= 0)
		st->clock = t;
	return t;
}

/* Before a drain: what each ring holds from the harness's reading position
 * to data_head, and whether anything is impossible. */
static void model_snapshot(struct fd_state *st)
{
	bool be = host_be();

	for (size_t i = 0; i < st->nr && !st->corrupt; i++) {
		struct fd_ring *g = &st->ring[i];
		uint64_t head = __atomic_load_n(g->head_p, __ATOMIC_ACQUIRE), t = g->last;

		g->n = g->cur = 0;
		g->snap = head;
		if (head - g->pos > g->size) {
			st->corrupt = true;
			break;
		}
		for (uint64_t p = g->pos; p != head;) {
			uint8_t hdr[8];
			size_t sz;
			uint64_t rt;

			if (head - p < 8) {
				st->corrupt = true;
				break;
			}
			ring_read(g, p, hdr, 8);
			sz = pm__ld16(hdr + 6, be);
			if (sz < 8 || (sz & 7) || sz > head - p || sz > g->size) {
				st->corrupt = true;
				break;
			}
			PM_FUZZ_ASSERT(g->n < sizeof(g->recs) / sizeof(g->recs[0]));
			ring_read(g, p, st->lin, sz);
			if (!fd_time(st->lin, sz, st->layout, &rt))
				t = rt;
			/* perf's assumption: time order within the ring; a record
			 * new in this drain no earlier than what went out */
			if (t < (g->n ? g->recs[g->n - 1].time : g->last))
				st->honest = false;
			if (p - g->pos >= g->seen_head - g->pos && st->have_out && t < st->max_out)
				st->honest = false;
			g->recs[g->n].pos = p;
			g->recs[g->n].size = sz;
			g->recs[g->n].time = t;
			g->n++;
			p += sz;
		}
	}
}

static int drain_cb(const void *rec, size_t size, void *user)
{
	struct fd_state *st = user;
	const uint8_t *p = rec;
	struct fd_ring *g = NULL;
	const struct fd_rec *want;
	size_t ri = 0;
	bool copied = false;
	bool be = host_be();

	st->calls++;
	/* an impossible record in a ring: the drain must refuse, not hand out */
	PM_FUZZ_ASSERT(!st->corrupt);
	PM_FUZZ_ASSERT(!st->none);
	PM_FUZZ_ASSERT(!st->max || (unsigned long)st->calls <= st->max);
	PM_FUZZ_ASSERT(((uintptr_t)rec & 7) == 0);
	/* Whose record: in place in a data area, or in a ring's copy buffer. */
	for (size_t i = 0; i < st->nr && !g; i++) {
		struct fd_ring *c = &st->ring[i];
		const uint8_t *cp = (const uint8_t *)c->r->copy;

		if (p >= c->data && p < c->data + c->size) {
			g = c;
			ri = i;
		} else if (p >= cp && p < cp + sizeof(c->r->copy)) {
			g = c;
			ri = i;
			copied = true;
		}
	}
	PM_FUZZ_ASSERT(g != NULL);
	PM_FUZZ_ASSERT(g->cur < g->n);
	want = &g->recs[g->cur];
	PM_FUZZ_ASSERT(size == want->size);
	PM_FUZZ_ASSERT(size >= 8 && pm__ld16(p + 6, be) == size);
	if (copied) {
		/* only a record that wraps the end is copied, to the buffer's start */
		PM_FUZZ_ASSERT((want->pos & (g->size - 1)) + size > g->size);
		PM_FUZZ_ASSERT(p == (const uint8_t *)g->r->copy);
		PM_FUZZ_ASSERT(size <= sizeof(g->r->copy));
		g->wrapped++;
	} else {
		PM_FUZZ_ASSERT((size_t)(p - g->data) == (want->pos & (g->size - 1)));
		PM_FUZZ_ASSERT((size_t)(p - g->data) + size <= g->size);
	}
	ring_read(g, want->pos, st->lin, size);
	PM_FUZZ_ASSERT(memcmp(st->lin, p, size) == 0);

	/* The merge: within the limit, no later than any other ring's next
	 * eligible record, ties to the lower ring. */
	PM_FUZZ_ASSERT(want->time <= st->limit);
	for (size_t j = 0; j < st->nr; j++) {
		const struct fd_ring *o = &st->ring[j];
		uint64_t ot;

		if (j == ri || o->cur >= o->n)
			continue;
		ot = o->recs[o->cur].time;
		if (ot > st->limit)
			continue;
		if (j < ri)
			PM_FUZZ_ASSERT(want->time < ot);
		else
			PM_FUZZ_ASSERT(want->time <= ot);
	}
	if (st->honest && st->have_out)
		PM_FUZZ_ASSERT(want->time >= st->max_out);
	if (!st->have_out || want->time > st->max_out)
		st->max_out = want->time;
	st->have_out = true;
	g->last = want->time;
	g->pos += size;
	g->cur++;
	g->handed++;

	/* The consumer parses it, with the same structs every time. */
	if (pm__ld32(p, be) == PM_RECORD_SAMPLE && st->layout) {
		size_t eoff = SIZE_MAX;
		int rc = pm_sample_parse(&st->s, st->layout, rec, size, be, &eoff);

		PM_FUZZ_ASSERT(st->s.sz == sizeof(st->s));
		PM_FUZZ_ASSERT(rc <= 0);
		if (rc == 0)
			PM_FUZZ_ASSERT(st->s.size == size);
		else
			PM_FUZZ_ASSERT(eoff == SIZE_MAX || eoff <= size);
	} else {
		int rc = pm_record_parse(&st->rec, st->layout, rec, size, be, NULL);

		PM_FUZZ_ASSERT(st->rec.sz == sizeof(st->rec));
		PM_FUZZ_ASSERT(rc <= 0);
	}
	if (st->inject) {
		gen_sample(st, st->inject, (uint32_t)(st->inject - st->ring), st->clock, 0);
		__atomic_store_n(st->inject->head_p, st->inject->prod, __ATOMIC_RELEASE);
	}
	if (st->stop_k && (unsigned long)st->calls == st->stop_k)
		return st->stop_ret;
	return PM_DRAIN_CONTINUE;
}

static const int stop_values[8] = { 0, PM_DRAIN_STOP, 7, INT_MAX, -ENOMEM, -1, INT_MIN,
				    -PM_ERR_CORRUPT };

static void do_drain(struct fd_state *st, unsigned flags, unsigned long max, int stop_ret,
		     unsigned stop_k, struct fd_ring *inject)
{
	uint64_t tails[FD_MAX_RINGS];
	bool flush = flags & PM_DRAIN_FLUSH, stopped = true;
	bool have_seen = st->have_wm;
	uint64_t seen = st->wm;
	long n;

	for (size_t i = 0; i < st->nr; i++)
		tails[i] = __atomic_load_n(st->ring[i].tail_p, __ATOMIC_ACQUIRE);
	model_snapshot(st);
	st->limit = flush ? UINT64_MAX : st->have_wm ? st->wm : 0;
	st->max = max;
	st->calls = 0;
	st->stop_k = stop_ret ? stop_k : 0;
	st->stop_ret = stop_ret;
	st->inject = inject;
	/* the latest time of the snapshot: the next drain's limit */
	for (size_t i = 0; i < st->nr && !st->corrupt; i++) {
		struct fd_ring *g = &st->ring[i];

		for (size_t k = 0; k < g->n; k++) {
			if (!have_seen || g->recs[k].time > seen)
				seen = g->recs[k].time;
			have_seen = true;
		}
	}
	/* Before a drain has set a limit, nothing may go out (not even time 0). */
	st->none = !flush && !st->have_wm;

	n = pm__ring_drain_ordered(st->rings, st->nr, &st->order, fd_time, st->layout, drain_cb,
				   st, max, flags, &stopped);
	if (st->corrupt) {
		PM_FUZZ_ASSERT(n == -PM_ERR_CORRUPT);
		PM_FUZZ_ASSERT(st->calls == 0 && !stopped);
		for (size_t i = 0; i < st->nr; i++)
			PM_FUZZ_ASSERT(__atomic_load_n(st->ring[i].tail_p, __ATOMIC_ACQUIRE) ==
				       tails[i]);
		return;
	}
	if (st->stop_k && st->calls >= (long)st->stop_k) {
		if (stop_ret > 0) {
			PM_FUZZ_ASSERT(n == st->calls && stopped);
		} else {
			PM_FUZZ_ASSERT(n == stop_ret && !stopped);
		}
	} else {
		PM_FUZZ_ASSERT(n == st->calls && !stopped);
		PM_FUZZ_ASSERT(!max || (unsigned long)n <= max);
		/* not stopped, not at max: only records past the limit stay */
		if (!st->none && (!max || (unsigned long)n < max)) {
			for (size_t i = 0; i < st->nr; i++) {
				const struct fd_ring *g = &st->ring[i];

				if (g->cur < g->n)
					PM_FUZZ_ASSERT(g->recs[g->cur].time > st->limit);
			}
		}
	}
	for (size_t i = 0; i < st->nr; i++) {
		struct fd_ring *g = &st->ring[i];
		struct pm_ring_stats rs = { .sz = sizeof(rs) };

		PM_FUZZ_ASSERT(__atomic_load_n(g->tail_p, __ATOMIC_ACQUIRE) == g->pos);
		PM_FUZZ_ASSERT(pm_ring_stats(g->r, &rs) == 0);
		PM_FUZZ_ASSERT(rs.records == g->handed && rs.wrapped == g->wrapped);
		g->seen_head = g->snap;
	}
	st->wm = seen;
	st->have_wm = have_seen;
}

static uint64_t rd(const uint8_t **d, size_t *left, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && *left; i++, (*d)++, (*left)--)
		v |= (uint64_t)**d << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fd_state st;
	static const uint64_t presets[5] = {
		PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_CPU,
		PM_SAMPLE_IDENTIFIER | PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME |
			PM_SAMPLE_CPU | PM_SAMPLE_PERIOD,
		PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_PERIOD,
		PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD,
		PM_SAMPLE_TIME,
	};
	const uint8_t *d = data;
	size_t left = size;
	struct pm_attr a;
	unsigned cfg, pick;
	uint64_t raw_type;
	unsigned raw_flags;
	int rc;

	if (size < 11)
		return 0;
	memset(&st, 0, sizeof(st));
	st.s.sz = sizeof(st.s);
	st.rec.sz = sizeof(st.rec);
	st.honest = true;
	cfg = (unsigned)rd(&d, &left, 1);
	pick = (unsigned)rd(&d, &left, 1) % 6;
	raw_type = rd(&d, &left, 8);
	raw_flags = (unsigned)rd(&d, &left, 1);
	st.nr = 1 + (cfg & 3);

	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.sample_period = 1;
	if (pick < 5) {
		a.sample_type = presets[pick];
		if (pick < 3)
			a.flags = PM_ATTR_SAMPLE_ID_ALL;
	} else {
		a.sample_type = raw_type;
		if (raw_flags & 1)
			a.flags = PM_ATTR_SAMPLE_ID_ALL;
	}
	st.sample_type = a.sample_type;
	st.id_all = !!(a.flags & PM_ATTR_SAMPLE_ID_ALL);
	if (pm_sample_layout_new(&st.layout, &a) != 0)
		st.layout = NULL; /* an event whose layout is unknown: no times */

	for (size_t i = 0; i < st.nr; i++) {
		struct fd_ring *g = &st.ring[i];
		void *m = NULL;
		uint64_t tail = rd(&d, &left, 8);

		if (!(cfg & 32))
			tail &= ~(uint64_t)7;
		g->page = cfg & 8 ? 2048 : 4096;
		g->size = cfg & 4 ? 8192 : 4096;
		if (posix_memalign(&m, 4096, g->page + g->size) != 0)
			abort();
		g->mem = m;
		memset(g->mem, 0, g->page + g->size);
		g->data = g->mem + g->page;
		g->head_p = (uint64_t *)(void *)(g->mem + 1024);
		g->tail_p = (uint64_t *)(void *)(g->mem + 1032);
		if (cfg & 16) {
			pm__st64(g->mem + 1040, g->page, host_be());
			pm__st64(g->mem + 1048, g->size, host_be());
		}
		*g->head_p = *g->tail_p = tail;
		g->prod = g->pos = g->seen_head = tail;
		rc = pm_ring_new_from_memory(&g->r, g->mem, g->page, g->size, 0);
		/* the geometry is valid: refused exactly when data_tail is odd */
		PM_FUZZ_ASSERT(rc == ((tail & 7) ? -EINVAL : 0));
		if (rc != 0) {
			/* nothing to drain */
			st.nr = i;
			free(g->mem);
			g->mem = NULL;
			break;
		}
		st.rings[i] = g->r;
	}
	if (!st.nr)
		goto out;

	for (int ops = 0; left && ops < 4096; ops++) {
		unsigned op = (unsigned)rd(&d, &left, 1);
		unsigned ri = (op >> 3) & 3, x = op >> 5;
		struct fd_ring *g = &st.ring[ri % st.nr];

		switch (op & 7) {
		case 0:
			gen_sample(&st, g, ri % st.nr, gen_time(&st, (int16_t)rd(&d, &left, 2)), 0);
			break;
		case 1:
			gen_other(&st, g, ri % st.nr, gen_time(&st, (int16_t)rd(&d, &left, 2)), x);
			break;
		case 2: {
			uint8_t b[8] = { 0 };

			pm__st32(b, PM_RECORD_USER_TYPE_START + x, host_be());
			pm__st16(b + 6, 8, host_be());
			produce(g, b, 8);
			break;
		}
		case 3: {
			size_t len = (size_t)rd(&d, &left, 2);

			if (len > left)
				len = left;
			produce(g, d, len);
			d += len;
			left -= len;
			break;
		}
		case 4:
			if (x == 1) {
				for (size_t i = 0; i < st.nr; i++)
					__atomic_store_n(st.ring[i].head_p, st.ring[i].prod,
							 __ATOMIC_RELEASE);
			} else if (x == 2) {
				__atomic_store_n(g->head_p, g->prod - 4, __ATOMIC_RELEASE);
			} else if (x == 3) {
				__atomic_store_n(g->head_p,
						 __atomic_load_n(g->tail_p, __ATOMIC_ACQUIRE) +
							 2 * g->size,
						 __ATOMIC_RELEASE);
			} else {
				__atomic_store_n(g->head_p, g->prod, __ATOMIC_RELEASE);
			}
			break;
		case 5: {
			unsigned f = (unsigned)rd(&d, &left, 1), k = (unsigned)rd(&d, &left, 1);

			do_drain(&st, f & 1, f >> 4, stop_values[(f >> 1) & 7], k ? k : 1,
				 x & 1 ? g : NULL);
			break;
		}
		case 6:
			gen_sample(&st, g, ri % st.nr, st.clock, (size_t)rd(&d, &left, 2));
			break;
		default:
			st.clock = rd(&d, &left, 8);
			gen_sample(&st, g, ri % st.nr, st.clock, 0);
			break;
		}
	}
	/* The end: publish everything the producer wrote (a head cut short or
	 * bogus stays as it was only if nothing was written since), flush. */
	for (size_t i = 0; i < st.nr; i++) {
		struct fd_ring *g = &st.ring[i];

		if (__atomic_load_n(g->head_p, __ATOMIC_ACQUIRE) - g->pos <= g->size)
			__atomic_store_n(g->head_p, g->prod, __ATOMIC_RELEASE);
	}
	for (int k = 0; k < 3; k++)
		do_drain(&st, PM_DRAIN_FLUSH, 0, 0, 0, NULL);
	if (!st.corrupt) {
		/* a flush without a stop hands out everything */
		for (size_t i = 0; i < st.nr; i++)
			PM_FUZZ_ASSERT(st.ring[i].pos ==
				       __atomic_load_n(st.ring[i].head_p, __ATOMIC_ACQUIRE));
	}
out:
	for (size_t i = 0; i < FD_MAX_RINGS; i++) {
		pm_ring_free(st.ring[i].r);
		free(st.ring[i].mem);
	}
	pm_sample_layout_free(st.layout);
	pm__order_fini(&st.order);
	return 0;
}
