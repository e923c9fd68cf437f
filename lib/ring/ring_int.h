/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal view of the ring reader (lib/ring only). */
#ifndef PM_RING_INT_H
#define PM_RING_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <profileme/ring.h>

struct pm_ring {
	uint8_t *base;         /* control page */
	uint8_t *data;         /* data area */
	size_t size, mask;     /* data area size (power of two) */
	uint64_t *head_p, *tail_p;
	uint64_t pos;          /* next byte to read (free-running) */
	uint64_t head;         /* forward: last data_head loaded */
	uint64_t prev;         /* overwrite: head of the previous snapshot */
	uint64_t end;          /* overwrite: end of the current snapshot */
	uint64_t snap_head;    /* overwrite: head of the current snapshot */
	bool overwrite, in_snapshot, broken;
	int fd;                /* perf fd or -1 */
	size_t map_len;        /* bytes to munmap at close, 0: caller memory */
	struct pm_ring_stats st;
	/* A record that wraps the end of the ring is copied here. */
	uint64_t copy[PM_RING_MAX_RECORD / 8];
};

PM_HIDDEN int pm__ring_init(pm_ring **out, void *base, size_t page_size, size_t data_size,
			    unsigned flags, int fd, size_t map_len);
/* pm_ring_drain() that says whether the callback stopped it (PM_DRAIN_STOP). */
PM_HIDDEN long pm__ring_drain(pm_ring *r, pm_ring_record_fn fn, void *user, unsigned long max,
			      bool *stopped);
PM_HIDDEN void pm__ring_stats_add(struct pm_ring_stats *acc, const pm_ring *r);

/* Walking a forward ring without handing records out (the ordered drain):
 * pm__ring_snapshot() loads data_head once; pm__ring_peek_at() gives the
 * record at position @p at (pm__ring_pos() first, then each position plus
 * the record's size) up to that head: 1, 0 at the head, or -PM_ERR_CORRUPT
 * (the ring is then unusable).  A wrapped record is copied into the ring's
 * one buffer, so a peek is valid until the next peek on the same ring.
 * pm__ring_advance() hands out the record at pm__ring_pos() (counts it);
 * pm_ring_consume() then gives back everything before pm__ring_pos(). */
PM_HIDDEN int pm__ring_snapshot(pm_ring *r);
PM_HIDDEN int pm__ring_peek_at(pm_ring *r, uint64_t at, const void **rec, size_t *size);
PM_HIDDEN uint64_t pm__ring_pos(const pm_ring *r);
PM_HIDDEN void pm__ring_advance(pm_ring *r, const void *rec, size_t size);

/* The time-ordered merge of several forward rings (lib/ring/order.c). */

/* A record's time: 0 and *time set, or non-zero when it has none. */
typedef int (*pm__rec_time_fn)(const void *rec, size_t size, void *ctx, uint64_t *time);

/* State kept between ordered drains of one set of rings. */
struct pm__order {
	uint64_t watermark;   /* the latest time the previous drain saw */
	bool have_watermark;
	uint64_t *last;       /* per ring: time of the last record handed out */
	struct pm__order_head *heads; /* scratch, one per ring */
	size_t cap;
};

PM_HIDDEN void pm__order_fini(struct pm__order *o);
PM_HIDDEN long pm__ring_drain_ordered(pm_ring **rings, size_t n, struct pm__order *o,
				      pm__rec_time_fn tf, void *tctx, pm_ring_record_fn fn,
				      void *user, unsigned long max, unsigned flags, bool *stopped);
/* What lib/ring/source.c needs of a list (evlist.c). */
PM_HIDDEN bool pm__evlist_is_open(const pm_evlist *el);
PM_HIDDEN bool pm__evlist_overwrite(const pm_evlist *el);
/* The sample layout of event idx as opened; NULL: unknowable or bad index. */
PM_HIDDEN const pm_sample_layout *pm__evlist_layout(const pm_evlist *el, size_t idx);

/* Tests only: ring i of an opened list becomes @p r (a memory ring with
 * records the test made); returns the ring it replaces, which the test
 * puts back before pm_evlist_close() (NULL: bad index). */
PM_HIDDEN pm_ring *pm__evlist_swap_ring(pm_evlist *el, size_t i, pm_ring *r);

/* Tests only (the fuzz harness `live`): el "opened" without the kernel on
 * nr_rings CPU columns 0..nr_rings-1, each with its ring rings[c] (memory
 * rings, pm_ring_new_from_memory(): the list owns them from a successful
 * call on and frees them at close), event i's id in column c
 * ids[i * nr_rings + c], the list's defaults applied to the attrs as
 * pm_evlist_open() applies them.  No fd, nothing to enable; poll, counts
 * and the child are not for such a list.  0; -EINVAL (open already, no
 * events, no rings); -ENOMEM. */
PM_HIDDEN int pm__evlist_open_memory(pm_evlist *el, pm_ring *const *rings, size_t nr_rings,
				     const uint64_t *ids);

/* Record why perf_event_open(a) failed with errno @p err (pm_errmsg()), the
 * ProfileMe rule it broke when it is one; returns -err. */
PM_HIDDEN int pm__evlist_explain_open(int err, const struct pm_attr *a, const char *name, int pid,
				      int cpu, bool grouped);

#endif /* PM_RING_INT_H */
