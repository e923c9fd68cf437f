/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The ring reader: perf's mmap'ed ring (control page + 2^n data pages).
 *
 * Protocol (the producer is the kernel, or a test thread):
 *   producer: read data_tail -> write record bytes -> (write barrier) -> store data_head
 *   reader:   load data_head (acquire) -> read records -> store data_tail (release)
 * The acquire load orders the record reads after the head load; the release
 * store orders them before the tail store, so the producer never overwrites
 * bytes still being read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "ring/ring_int.h"

#include <profileme/ring.h>

/* Offsets in struct perf_event_mmap_page. */
#define PM_MMAP_DATA_HEAD 1024
#define PM_MMAP_DATA_TAIL 1032
#define PM_MMAP_DATA_OFFSET 1040
#define PM_MMAP_DATA_SIZE 1048

static inline uint64_t ring_load_head(const pm_ring *r)
{
	return __atomic_load_n(r->head_p, __ATOMIC_ACQUIRE);
}

static inline void ring_store_tail(pm_ring *r, uint64_t v)
{
	__atomic_store_n(r->tail_p, v, __ATOMIC_RELEASE);
}

static bool is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

int pm__ring_init(pm_ring **out, void *base, size_t page_size, size_t data_size, unsigned flags,
		  int fd, size_t map_len)
{
	pm_ring *r;
	uint8_t *b = base;
	uint64_t doff, dsz, tail;

	*out = NULL;
	if (!base || ((uintptr_t)base & 7) || !is_pow2(page_size) || page_size < 2048)
		return pm__err(EINVAL, "ring: control page %p of %zu bytes is not usable", base,
			       page_size);
	/* data_offset/data_size are filled by kernels since 4.1; the caller's
	 * values are authoritative when they are 0. */
	doff = *(volatile uint64_t *)(void *)(b + PM_MMAP_DATA_OFFSET);
	dsz = *(volatile uint64_t *)(void *)(b + PM_MMAP_DATA_SIZE);
	if (!doff || !dsz) {
		doff = page_size;
		dsz = data_size;
	}
	if (!is_pow2((size_t)dsz) || dsz < 4096 || (doff & 7) ||
	    (data_size && dsz != data_size))
		return pm__err(EINVAL, "ring: data area of %llu bytes at offset %llu is not a power "
				       "of two of at least 4096 bytes (expected %zu)",
			       (unsigned long long)dsz, (unsigned long long)doff, data_size);
	/* Records are multiples of 8 bytes, so 8-aligned from an 8-aligned tail. */
	tail = __atomic_load_n((uint64_t *)(void *)(b + PM_MMAP_DATA_TAIL), __ATOMIC_RELAXED);
	if (!(flags & PM_RING_OVERWRITE) && (tail & 7))
		return pm__err(EINVAL, "ring: data_tail %llu is not a multiple of 8",
			       (unsigned long long)tail);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base = b;
	r->data = b + doff;
	r->size = (size_t)dsz;
	r->mask = r->size - 1;
	r->head_p = (uint64_t *)(void *)(b + PM_MMAP_DATA_HEAD);
	r->tail_p = (uint64_t *)(void *)(b + PM_MMAP_DATA_TAIL);
	r->overwrite = !!(flags & PM_RING_OVERWRITE);
	r->fd = fd;
	r->map_len = map_len;
	if (r->overwrite) {
		r->prev = ring_load_head(r);
	} else {
		r->pos = tail;
		r->head = r->pos;
	}
	*out = r;
	return 0;
}

int pm_ring_new_from_memory(pm_ring **out, void *base, size_t page_size, size_t data_size,
			  unsigned flags)
{
	if (!out)
		return pm__err(EINVAL, "ring: no output pointer");
	if (flags & ~(unsigned)PM_RING_OVERWRITE) {
		*out = NULL;
		return pm__err(EINVAL, "ring: unknown flags 0x%x", flags);
	}
	return pm__ring_init(out, base, page_size, data_size, flags, -1, 0);
}

/* Copy len bytes from ring offset off (masked) into dst, wrapping. */
static void ring_copy(const pm_ring *r, void *dst, uint64_t off, size_t len)
{
	size_t o = (size_t)(off & r->mask), first = PM_MIN(len, r->size - o);

	memcpy(dst, r->data + o, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, r->data, len - first);
}

/* Account the record types that report lost data or throttling. */
static void ring_account(pm_ring *r, const uint8_t *rec, size_t size)
{
	uint32_t type = pm__ld32(rec, pm__host_big_endian());

	r->st.records++;
	r->st.bytes += size;
	switch (type) {
	case PM_RECORD_SAMPLE:
		r->st.samples++;
		break;
	case PM_RECORD_LOST:
		r->st.lost_records++;
		if (size >= 24)
			r->st.lost += pm__ld64(rec + 16, pm__host_big_endian());
		break;
	case PM_RECORD_LOST_SAMPLES:
		if (size >= 16)
			r->st.lost_samples += pm__ld64(rec + 8, pm__host_big_endian());
		break;
	case PM_RECORD_THROTTLE:
		r->st.throttles++;
		break;
	case PM_RECORD_UNTHROTTLE:
		r->st.unthrottles++;
		break;
	default:
		break;
	}
}

/* The record at ring position `at` whose bytes end no later than `end`,
 * without handing it out (a wrapped record is copied to r->copy). */
static int ring_peek(pm_ring *r, uint64_t at, uint64_t end, const void **rec, size_t *size)
{
	uint8_t hdr[8];
	size_t sz, o;

	if (end - at < 8)
		goto corrupt;
	ring_copy(r, hdr, at, 8);
	sz = pm__ld16(hdr + 6, pm__host_big_endian());
	/* the kernel's records are multiples of 8 bytes (and so 8-aligned) */
	if (sz < 8 || (sz & 7) || sz > end - at || sz > r->size)
		goto corrupt;
	o = (size_t)(at & r->mask);
	if (o + sz <= r->size) {
		*rec = r->data + o;
	} else {
		ring_copy(r, r->copy, at, sz);
		*rec = r->copy;
	}
	*size = sz;
	return 1;
corrupt:
	r->broken = true;
	return pm__err(PM_ERR_CORRUPT,
		       "ring: impossible record at position %llu (size field %u, %llu bytes "
		       "available, ring of %zu bytes)",
		       (unsigned long long)at, end - at >= 8 ? pm__ld16(hdr + 6, pm__host_big_endian()) : 0u,
		       (unsigned long long)(end - at), r->size);
}

/* Hand out the record at r->pos (peeked there), counting it. */
static void ring_advance(pm_ring *r, const void *rec, size_t size)
{
	size_t o = (size_t)(r->pos & r->mask);

	if (o + size > r->size)
		r->st.wrapped++;
	r->pos += size;
	ring_account(r, rec, size);
}

/* Hand out the record at r->pos whose bytes end no later than `end`. */
static int ring_take(pm_ring *r, uint64_t end, const void **rec, size_t *size)
{
	int rc = ring_peek(r, r->pos, end, rec, size);

	if (rc == 1)
		ring_advance(r, *rec, *size);
	return rc;
}

/* Forward rings: load data_head once (the snapshot the caller walks). */
static int ring_load_snapshot(pm_ring *r)
{
	r->head = ring_load_head(r);
	if (r->head - r->pos > r->size) {
		r->broken = true;
		return pm__err(PM_ERR_CORRUPT,
			       "ring: data_head %llu is more than the ring size (%zu) past "
			       "the reader (%llu)",
			       (unsigned long long)r->head, r->size, (unsigned long long)r->pos);
	}
	return 0;
}

int pm__ring_snapshot(pm_ring *r)
{
	if (r->broken)
		return pm__err(PM_ERR_CORRUPT, "ring: unusable after an impossible record");
	if (r->overwrite)
		return pm__err(EINVAL, "ring: an overwrite ring has no forward snapshot");
	return ring_load_snapshot(r);
}

int pm__ring_peek_at(pm_ring *r, uint64_t at, const void **rec, size_t *size)
{
	if (at == r->head)
		return 0;
	return ring_peek(r, at, r->head, rec, size);
}

uint64_t pm__ring_pos(const pm_ring *r)
{
	return r->pos;
}

void pm__ring_advance(pm_ring *r, const void *rec, size_t size)
{
	ring_advance(r, rec, size);
}

/* Overwrite rings: the kernel writes backwards, head decreasing; the
 * newest record is at head, older ones follow at increasing positions. */
static int ring_next_backward(pm_ring *r, const void **rec, size_t *size)
{
	uint8_t hdr[8];
	size_t sz;

	if (!r->in_snapshot) {
		uint64_t head = ring_load_head(r), span = r->prev - head;

		if (head == r->prev)
			return 0;
		if (span > r->size) {
			span = r->size;
			r->st.overruns++;
		}
		r->pos = head;
		r->end = head + span;
		r->snap_head = head;
		r->in_snapshot = true;
	}
	if (r->end - r->pos >= 8) {
		ring_copy(r, hdr, r->pos, 8);
		sz = pm__ld16(hdr + 6, pm__host_big_endian());
		/* A zero header is space never written; a record running past
		 * the snapshot is the oldest, partly overwritten one; a size
		 * that is not a multiple of 8 is no record's. */
		if (sz >= 8 && !(sz & 7) && sz <= r->end - r->pos)
			return ring_take(r, r->end, rec, size);
	}
	r->prev = r->snap_head;
	r->in_snapshot = false;
	return 0;
}

int pm_ring_next(pm_ring *r, const void **rec, size_t *size)
{
	if (!r || !rec || !size)
		return pm__err(EINVAL, "ring: NULL argument");
	if (r->broken)
		return pm__err(PM_ERR_CORRUPT, "ring: unusable after an impossible record");
	if (r->overwrite)
		return ring_next_backward(r, rec, size);
	if (r->pos == r->head) {
		int rc = ring_load_snapshot(r);

		if (rc)
			return rc;
		if (r->pos == r->head)
			return 0;
	}
	return ring_take(r, r->head, rec, size);
}

void pm_ring_consume(pm_ring *r)
{
	if (!r || r->overwrite || r->broken)
		return;
	ring_store_tail(r, r->pos);
}

long pm__ring_drain(pm_ring *r, pm_ring_record_fn fn, void *user, unsigned long max,
		    bool *stopped)
{
	const void *rec;
	size_t size;
	long n = 0;
	int rc;

	*stopped = false;
	if (!r || !fn)
		return pm__err(EINVAL, "ring: NULL argument");
	while (!max || (unsigned long)n < max) {
		rc = pm_ring_next(r, &rec, &size);
		if (rc < 0) {
			pm_ring_consume(r);
			return rc;
		}
		if (!rc)
			break;
		n++;
		rc = fn(rec, size, user);
		if (rc) {
			pm_ring_consume(r);
			if (rc > 0) { /* PM_DRAIN_STOP: a stop, reported as the count */
				*stopped = true;
				return n;
			}
			return rc;
		}
		/* Give space back as we go on big batches. */
		if (!(n & 1023))
			pm_ring_consume(r);
	}
	pm_ring_consume(r);
	return n;
}

long pm_ring_drain(pm_ring *r, pm_ring_record_fn fn, void *user, unsigned long max)
{
	bool stopped;

	return pm__ring_drain(r, fn, user, max, &stopped);
}

int pm_ring_stats(const pm_ring *r, struct pm_ring_stats *st)
{
	int rc;

	if (!r || !st)
		return pm__err(EINVAL, "ring: NULL argument");
	rc = PM__SZ_VALID(st, pm_ring_stats, PM_RING_STATS_SZ_V1);
	if (rc)
		return rc;
	pm__struct_copy_out(st, st->sz, &r->st, sizeof(r->st));
	return 0;
}

void pm__ring_stats_add(struct pm_ring_stats *acc, const pm_ring *r)
{
	acc->records += r->st.records;
	acc->bytes += r->st.bytes;
	acc->samples += r->st.samples;
	acc->wrapped += r->st.wrapped;
	acc->lost_records += r->st.lost_records;
	acc->lost += r->st.lost;
	acc->lost_samples += r->st.lost_samples;
	acc->throttles += r->st.throttles;
	acc->unthrottles += r->st.unthrottles;
	acc->overruns += r->st.overruns;
}

size_t pm_ring_data_size(const pm_ring *r)
{
	return r ? r->size : 0;
}

int pm_ring_fd(const pm_ring *r)
{
	return r ? r->fd : -1;
}

void pm_ring_free(pm_ring *r)
{
	if (!r)
		return;
	if (r->map_len)
		munmap(r->base, r->map_len);
	free(r);
}
