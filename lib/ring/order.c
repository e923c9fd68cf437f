// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The time-ordered drain of several forward rings (pm_evlist_drain_ordered()).
 *
 * Each ring is already in time order (one CPU writes it); the drain merges
 * the rings' heads by time.  Records are never copied: one that may not go
 * out yet stays in its ring (not consumed) until a later drain, so the
 * memory is the rings' own plus one scratch entry per ring.
 *
 * Which records may go out is perf's rule for rounds: a drain hands out the
 * records whose time is at most the latest time the previous drain saw in
 * any ring.  A record later than that may still be overtaken by one another
 * CPU has not written yet; by the next drain it has been.  PM_DRAIN_FLUSH
 * (the last drain) hands out everything.
 */
#include <errno.h>
#include <stdlib.h>
#include "internal/pm_internal.h"
#include "ring/ring_int.h"

struct pm__order_head {
	const void *rec; /* NULL: the ring has nothing more in this drain */
	size_t size;
	uint64_t pos;    /* ring position of rec */
	uint64_t time;   /* its time (a timeless record: the one before it) */
};

void pm__order_fini(struct pm__order *o)
{
	if (!o)
		return;
	free(o->last);
	free(o->heads);
	o->last = NULL;
	o->heads = NULL;
	o->cap = 0;
}

static int order_reserve(struct pm__order *o, size_t n)
{
	uint64_t *last;
	struct pm__order_head *heads;

	if (n <= o->cap)
		return 0;
	last = pm__calloc(n, sizeof(*last));
	heads = pm__calloc(n, sizeof(*heads));
	if (!last || !heads) {
		free(last);
		free(heads);
		return pm__err(ENOMEM, "ordered drain: out of memory for %zu rings", n);
	}
	for (size_t i = 0; i < o->cap; i++)
		last[i] = o->last[i];
	free(o->last);
	free(o->heads);
	o->last = last;
	o->heads = heads;
	o->cap = n;
	return 0;
}

/* The head of ring i at position `at`, its time from the record or the one
 * before it; h->rec NULL at the end of the snapshot. */
static int order_peek(pm_ring *r, uint64_t at, uint64_t before, pm__rec_time_fn tf, void *tctx,
		      struct pm__order_head *h)
{
	int rc = pm__ring_peek_at(r, at, &h->rec, &h->size);

	if (rc <= 0) {
		h->rec = NULL;
		return rc;
	}
	h->pos = at;
	if (tf(h->rec, h->size, tctx, &h->time))
		h->time = before;
	return 0;
}

long pm__ring_drain_ordered(pm_ring **rings, size_t n, struct pm__order *o, pm__rec_time_fn tf,
			    void *tctx, pm_ring_record_fn fn, void *user, unsigned long max,
			    unsigned flags, bool *stopped)
{
	uint64_t seen = o->watermark, limit;
	bool have_seen = o->have_watermark;
	long count = 0;
	int rc = 0;

	*stopped = false;
	if (!fn || !tf || (n && !rings))
		return pm__err(EINVAL, "ordered drain: NULL argument");
	rc = order_reserve(o, n);
	if (rc)
		return rc;
	/* Snapshot every ring and find the latest time in it (the watermark
	 * of the next drain); then peek each ring's head. */
	for (size_t i = 0; i < n; i++) {
		struct pm__order_head *h = &o->heads[i];
		uint64_t t = o->last[i];

		rc = pm__ring_snapshot(rings[i]);
		if (rc)
			return rc;
		h->rec = NULL;
		for (uint64_t at = pm__ring_pos(rings[i]);;) {
			rc = order_peek(rings[i], at, t, tf, tctx, h);
			if (rc)
				return rc;
			if (!h->rec)
				break;
			t = h->time;
			if (!have_seen || t > seen)
				seen = t;
			have_seen = true;
			at += h->size;
		}
		rc = order_peek(rings[i], pm__ring_pos(rings[i]), o->last[i], tf, tctx, h);
		if (rc)
			return rc;
	}
	/* The first drain without PM_DRAIN_FLUSH only sets the watermark. */
	limit = (flags & PM_DRAIN_FLUSH) ? UINT64_MAX : o->watermark;
	while ((!max || (unsigned long)count < max) &&
	       ((flags & PM_DRAIN_FLUSH) || o->have_watermark)) {
		struct pm__order_head *best = NULL;
		size_t bi = 0;
		for (size_t i = 0; i < n; i++) {
			struct pm__order_head *h = &o->heads[i];

			if (h->rec && h->time <= limit && (!best || h->time < best->time)) {
				best = h;
				bi = i;
			}
		}
		if (!best)
			break;
		pm__ring_advance(rings[bi], best->rec, best->size);
		o->last[bi] = best->time;
		count++;
		rc = fn(best->rec, best->size, user);
		if (rc)
			break;
		rc = order_peek(rings[bi], pm__ring_pos(rings[bi]), o->last[bi], tf, tctx, best);
		if (rc)
			break;
	}
	for (size_t i = 0; i < n; i++)
		pm_ring_consume(rings[i]);
	if (have_seen) {
		o->watermark = seen;
		o->have_watermark = true;
	}
	if (rc > 0) { /* PM_DRAIN_STOP: a stop, reported as the count */
		*stopped = true;
		return count;
	}
	return rc < 0 ? rc : count;
}
