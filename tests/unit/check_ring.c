/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The ring reader against an in-memory ring fed by a producer thread that
 * follows the kernel's protocol (read tail, write bytes, release-store head),
 * then live tests of perf_event_open (skipped where it is missing).
 *
 * ThreadSanitizer: tests/perf/CMakeLists.txt builds this file a second time
 * with -fsanitize=thread as test unit.ring_tsan (see docs/ring.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "pm_check.h"
#include "sw_events.h"
#include "ring/ring_int.h"

#include <profileme/raw.h>

#include <profileme/ring.h>

#define HEAD_OFF 1024
#define TAIL_OFF 1032

struct fake {
	uint8_t *mem;
	size_t page, size;
	uint64_t *head, *tail;
	const uint32_t *sizes;
	size_t n;
	int stop;
};

static uint8_t pat(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 31u + i * 7u + (i >> 8));
}

static void fake_init(struct fake *f, size_t data_size)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *m = NULL;

	f->page = ps > 0 ? (size_t)ps : 4096;
	f->size = data_size;
	ck_assert_int_eq(posix_memalign(&m, f->page, f->page + data_size), 0);
	memset(m, 0, f->page + data_size);
	f->mem = m;
	f->head = (uint64_t *)(void *)(f->mem + HEAD_OFF);
	f->tail = (uint64_t *)(void *)(f->mem + TAIL_OFF);
}

/* Write len bytes at free-running position pos, wrapping. */
static void fake_put(struct fake *f, uint64_t pos, const uint8_t *src, size_t len)
{
	uint8_t *data = f->mem + f->page;
	size_t o = (size_t)(pos & (f->size - 1)), first = len < f->size - o ? len : f->size - o;

	memcpy(data + o, src, first);
	if (first < len)
		memcpy(data, src + first, len - first);
}

static void make_record(uint8_t *buf, uint64_t seq, uint32_t size, uint32_t type)
{
	pm__st32(buf, type, pm__host_big_endian());
	pm__st16(buf + 4, (uint16_t)seq, pm__host_big_endian());
	pm__st16(buf + 6, (uint16_t)size, pm__host_big_endian());
	for (size_t i = 8; i < size; i++)
		buf[i] = pat(seq, i);
}

/* The producer: the kernel's side of the protocol. */
static void *producer(void *arg)
{
	struct fake *f = arg;
	static uint8_t buf[PM_RING_MAX_RECORD];
	uint64_t head = 0;

	for (size_t seq = 0; seq < f->n; seq++) {
		uint32_t sz = f->sizes[seq];

		/* Wait for room: the acquire load of the tail orders our
		 * writes after the reader's last reads. */
		while (head + sz - __atomic_load_n(f->tail, __ATOMIC_ACQUIRE) > f->size) {
			if (__atomic_load_n(&f->stop, __ATOMIC_RELAXED))
				return NULL;
			sched_yield();
		}
		make_record(buf, seq, sz, PM_RECORD_SAMPLE);
		fake_put(f, head, buf, sz);
		head += sz;
		__atomic_store_n(f->head, head, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void check_record(const void *rec, size_t size, uint64_t seq, uint32_t want)
{
	const uint8_t *b = rec;

	ck_assert_msg(((uintptr_t)rec & 7) == 0, "record %llu not 8-aligned",
		      (unsigned long long)seq);
	ck_assert_uint_eq(size, want);
	ck_assert_uint_eq(pm__ld32(b, pm__host_big_endian()), PM_RECORD_SAMPLE);
	ck_assert_uint_eq(pm__ld16(b + 4, pm__host_big_endian()), (uint16_t)seq);
	for (size_t i = 8; i < size; i++)
		if (b[i] != pat(seq, i))
			ck_abort_msg("record %llu (size %zu): byte %zu is 0x%02x, want 0x%02x",
				     (unsigned long long)seq, size, i, b[i], pat(seq, i));
}

static void run_producer_consumer(const uint32_t *sizes, size_t n, size_t data_size,
				  bool wait_full)
{
	struct fake f;
	pm_ring *r = NULL;
	pthread_t th;
	const void *rec;
	size_t size, got = 0;
	uint64_t bytes = 0;
	struct pm_ring_stats st = { .sz = sizeof(st) };

	memset(&f, 0, sizeof(f));
	fake_init(&f, data_size);
	f.sizes = sizes;
	f.n = n;
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, producer, &f), 0);
	if (wait_full) {
		/* Let the producer fill the ring until it must wait. */
		for (int spin = 0; spin < 200000; spin++) {
			/* The first records fill the ring exactly. */
			if (__atomic_load_n(f.head, __ATOMIC_ACQUIRE) >= f.size)
				break;
			sched_yield();
		}
	}
	while (got < n) {
		int rc = pm_ring_next(r, &rec, &size);

		ck_assert_int_ge(rc, 0);
		if (!rc) {
			pm_ring_consume(r);
			sched_yield();
			continue;
		}
		check_record(rec, size, got, sizes[got]);
		bytes += size;
		got++;
		if (got % 3 == 0)
			pm_ring_consume(r);
	}
	pm_ring_consume(r);
	pthread_join(th, NULL);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 0);
	ck_assert_int_eq(pm_ring_stats(r, &st), 0);
	ck_assert_uint_eq(st.records, n);
	ck_assert_uint_eq(st.samples, n);
	ck_assert_uint_eq(st.bytes, bytes);
	ck_assert_uint_eq(st.lost, 0);
	ck_assert_uint_gt(st.wrapped, 0);
	pm_ring_free(r);
	free(f.mem);
}

START_TEST(test_every_size)
{
	/* Every record size up to the 64 KiB maximum, through a 128 KiB ring
	 * (with PM_TEST_LIGHT every 13th size, and the maximum). */
	size_t step = pm_test_scale(8, 8 * 13);
	size_t n = (65528 - 8) / step + 2;
	uint32_t *sizes = malloc(n * sizeof(*sizes));

	for (size_t i = 0; i < n - 1; i++)
		sizes[i] = (uint32_t)(8 + step * i);
	sizes[n - 1] = 65528;
	if (sizes[n - 2] == 65528)
		n--;
	run_producer_consumer(sizes, n, 128 * 1024, false);
#ifndef PM_RING_MEMORY_ONLY /* the TSan build: once is enough */
	/* And from the largest down. */
	for (size_t i = 0; i < n; i++)
		sizes[i] = (uint32_t)(65528 - step * i < 8 ? 8 : 65528 - step * i);
	run_producer_consumer(sizes, n, 128 * 1024, false);
#endif
	free(sizes);
}
END_TEST

START_TEST(test_small_records_full_ring)
{
	/* Many small records through a small ring that the producer fills
	 * before the reader starts: the reader sees a ring with no free byte. */
	size_t n = pm_test_scale(60000, 10000);
	uint32_t *sizes = malloc(n * sizeof(*sizes));
	uint32_t x = 12345;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		sizes[i] = 8 * (1 + (x >> 16) % 12);
	}
	sizes[0] = 8; /* 4096 / 8 records fill the ring exactly */
	for (size_t i = 1; i < 512; i++)
		sizes[i] = 8;
	run_producer_consumer(sizes, n, 4096, true);
	free(sizes);
}
END_TEST

START_TEST(test_exactly_full)
{
	struct fake f;
	pm_ring *r = NULL;
	const void *rec;
	size_t size;
	uint8_t buf[64];
	uint64_t head = 0;

	fake_init(&f, 4096);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	for (uint64_t seq = 0; head < 4096; seq++) {
		make_record(buf, seq, 64, PM_RECORD_SAMPLE);
		fake_put(&f, head, buf, 64);
		head += 64;
	}
	__atomic_store_n(f.head, head, __ATOMIC_RELEASE);
	for (uint64_t seq = 0; seq < 64; seq++) {
		ck_assert_int_eq(pm_ring_next(r, &rec, &size), 1);
		check_record(rec, size, seq, 64);
	}
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 0);
	ck_assert_uint_eq(__atomic_load_n(f.tail, __ATOMIC_ACQUIRE), 0); /* not yet consumed */
	pm_ring_consume(r);
	ck_assert_uint_eq(__atomic_load_n(f.tail, __ATOMIC_ACQUIRE), 4096);
	pm_ring_free(r);
	free(f.mem);
}
END_TEST

/* The drain's stop convention: 0 goes on, a positive value stops after the
 * record (the drain returns the count, never the callback's value), a
 * negative value aborts and is returned. */
struct stop_at {
	uint64_t seen, at;
	int ret;
};

static int stop_cb(const void *rec, size_t size, void *user)
{
	struct stop_at *sa = user;

	check_record(rec, size, sa->seen, 64);
	return ++sa->seen == sa->at ? sa->ret : PM_DRAIN_CONTINUE;
}

START_TEST(test_drain_stop)
{
	struct fake f;
	pm_ring *r = NULL;
	struct stop_at sa = { .at = 3, .ret = 7 };
	uint8_t buf[64];
	uint64_t head = 0;

	fake_init(&f, 4096);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	for (uint64_t seq = 0; seq < 10; seq++) {
		make_record(buf, seq, 64, PM_RECORD_SAMPLE);
		fake_put(&f, head, buf, 64);
		head += 64;
	}
	__atomic_store_n(f.head, head, __ATOMIC_RELEASE);
	/* a stop with 7: the drain says 3 records, and consumed them */
	ck_assert_int_eq(pm_ring_drain(r, stop_cb, &sa, 0), 3);
	ck_assert_uint_eq(__atomic_load_n(f.tail, __ATOMIC_ACQUIRE), 3 * 64);
	/* PM_DRAIN_STOP on the 5th: 2 more */
	sa.at = 5;
	sa.ret = PM_DRAIN_STOP;
	ck_assert_int_eq(pm_ring_drain(r, stop_cb, &sa, 0), 2);
	/* an error on the 6th: returned as is, the record consumed */
	sa.at = 6;
	sa.ret = -ENOMEM;
	ck_assert_int_eq(pm_ring_drain(r, stop_cb, &sa, 0), -ENOMEM);
	ck_assert_uint_eq(__atomic_load_n(f.tail, __ATOMIC_ACQUIRE), 6 * 64);
	/* the rest, no stop */
	sa.at = 0;
	ck_assert_int_eq(pm_ring_drain(r, stop_cb, &sa, 0), 4);
	ck_assert_uint_eq(sa.seen, 10);
	ck_assert_int_eq(pm_ring_drain(r, stop_cb, &sa, 0), 0);
	pm_ring_free(r);
	free(f.mem);
}
END_TEST

START_TEST(test_lost_and_throttle)
{
	struct fake f;
	pm_ring *r = NULL;
	uint8_t buf[32];
	uint64_t head = 0;
	bool be = pm__host_big_endian();
	struct pm_ring_stats st = { .sz = sizeof(st) };
	const void *rec;
	size_t size;
	long n;

	fake_init(&f, 4096);
	/* LOST {hdr, id, lost=5} x2, LOST_SAMPLES {hdr, lost=3}, THROTTLE, UNTHROTTLE */
	for (int i = 0; i < 2; i++) {
		memset(buf, 0, sizeof(buf));
		pm__st32(buf, PM_RECORD_LOST, be);
		pm__st16(buf + 6, 24, be);
		pm__st64(buf + 8, 77, be);
		pm__st64(buf + 16, 5, be);
		fake_put(&f, head, buf, 24);
		head += 24;
	}
	memset(buf, 0, sizeof(buf));
	pm__st32(buf, PM_RECORD_LOST_SAMPLES, be);
	pm__st16(buf + 6, 16, be);
	pm__st64(buf + 8, 3, be);
	fake_put(&f, head, buf, 16);
	head += 16;
	memset(buf, 0, sizeof(buf));
	pm__st32(buf, PM_RECORD_THROTTLE, be);
	pm__st16(buf + 6, 32, be);
	fake_put(&f, head, buf, 32);
	head += 32;
	pm__st32(buf, PM_RECORD_UNTHROTTLE, be);
	fake_put(&f, head, buf, 32);
	head += 32;
	__atomic_store_n(f.head, head, __ATOMIC_RELEASE);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	n = 0;
	while (pm_ring_next(r, &rec, &size) == 1)
		n++;
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(pm_ring_stats(r, &st), 0);
	ck_assert_uint_eq(st.lost_records, 2);
	ck_assert_uint_eq(st.lost, 10);
	ck_assert_uint_eq(st.lost_samples, 3);
	ck_assert_uint_eq(st.throttles, 1);
	ck_assert_uint_eq(st.unthrottles, 1);
	ck_assert_uint_eq(st.samples, 0);
	pm_ring_free(r);
	free(f.mem);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The time-ordered merge of several rings (pm_evlist_drain_ordered()'s
 * engine), on rings in memory whose records carry IP TID TIME CPU and a
 * sample_id_all trailer (TID TIME CPU), times read by pm_record_peek_time(). */

#define OFIX_RINGS 3
#define OFIX_SAMPLE_SZ 40 /* header ip pid/tid time cpu/res */
#define OFIX_COMM_SZ 48   /* header pid/tid comm[8] | tid time cpu */

struct ofix {
	struct fake f[OFIX_RINGS];
	pm_ring *r[OFIX_RINGS];
	uint64_t head[OFIX_RINGS];
	pm_sample_layout *layout;
	struct pm__order order;
};

static void ofix_init(struct ofix *x, size_t data_size)
{
	struct pm_attr a;

	memset(x, 0, sizeof(*x));
	for (int i = 0; i < OFIX_RINGS; i++) {
		fake_init(&x->f[i], data_size);
		ck_assert_int_eq(pm_ring_new_from_memory(&x->r[i], x->f[i].mem, x->f[i].page,
							 x->f[i].size, 0), 0);
	}
	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.sample_period = 1;
	a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_CPU;
	a.flags = PM_ATTR_SAMPLE_ID_ALL;
	ck_assert_int_eq(pm_sample_layout_new(&x->layout, &a), 0);
}

static void ofix_fini(struct ofix *x)
{
	for (int i = 0; i < OFIX_RINGS; i++) {
		pm_ring_free(x->r[i]);
		free(x->f[i].mem);
	}
	pm_sample_layout_free(x->layout);
	pm__order_fini(&x->order);
}

static void ofix_put(struct ofix *x, int ring, const uint8_t *rec, size_t size)
{
	struct fake *f = &x->f[ring];
	uint64_t tail = __atomic_load_n(f->tail, __ATOMIC_ACQUIRE);

	ck_assert_msg(x->head[ring] + size - tail <= f->size, "fixture: ring %d is full", ring);
	fake_put(f, x->head[ring], rec, size);
	x->head[ring] += size;
}

static void ofix_publish(struct ofix *x)
{
	for (int i = 0; i < OFIX_RINGS; i++)
		__atomic_store_n(x->f[i].head, x->head[i], __ATOMIC_RELEASE);
}

/* A SAMPLE whose ip is the tag. */
static void ofix_sample(struct ofix *x, int ring, uint64_t time, uint64_t tag)
{
	uint8_t b[OFIX_SAMPLE_SZ] = { 0 };
	int be = pm__host_big_endian();

	pm__st32(b, PM_RECORD_SAMPLE, be);
	pm__st16(b + 6, OFIX_SAMPLE_SZ, be);
	pm__st64(b + 8, tag, be);
	pm__st32(b + 16, 42, be);
	pm__st32(b + 20, 42, be);
	pm__st64(b + 24, time, be);
	pm__st32(b + 32, (uint32_t)ring, be);
	ofix_put(x, ring, b, sizeof(b));
}

/* A COMM whose pid is the tag, its time in the trailer. */
static void ofix_comm(struct ofix *x, int ring, uint64_t time, uint64_t tag)
{
	uint8_t b[OFIX_COMM_SZ] = { 0 };
	int be = pm__host_big_endian();

	pm__st32(b, PM_RECORD_COMM, be);
	pm__st16(b + 6, OFIX_COMM_SZ, be);
	pm__st32(b + 8, (uint32_t)tag, be);
	pm__st32(b + 12, (uint32_t)tag, be);
	memcpy(b + 16, "fixture", 8);
	pm__st32(b + 24, (uint32_t)tag, be);
	pm__st64(b + 32, time, be);
	pm__st32(b + 40, (uint32_t)ring, be);
	ofix_put(x, ring, b, sizeof(b));
}

/* A record without a time (a perf-tool type), its tag in misc. */
static void ofix_timeless(struct ofix *x, int ring, uint16_t tag)
{
	uint8_t b[8];
	int be = pm__host_big_endian();

	pm__st32(b, PM_RECORD_USER_TYPE_START + 4, be);
	pm__st16(b + 4, tag, be);
	pm__st16(b + 6, 8, be);
	ofix_put(x, ring, b, sizeof(b));
}

static int ofix_time(const void *rec, size_t size, void *ctx, uint64_t *t)
{
	return pm_record_peek_time(ctx, rec, size, pm__host_big_endian(), t) ? 1 : 0;
}

struct ocollect {
	const pm_sample_layout *layout;
	uint64_t tag[4096], time[4096];
	size_t n;
	size_t stop_at; /* 1-based; 0: never */
	int stop_ret;
};

static int ocollect_cb(const void *rec, size_t size, void *user)
{
	struct ocollect *c = user;
	const uint8_t *b = rec;
	int be = pm__host_big_endian();
	uint32_t type = pm__ld32(b, be);
	uint64_t t;

	ck_assert_uint_lt(c->n, 4096);
	if (type == PM_RECORD_SAMPLE)
		c->tag[c->n] = pm__ld64(b + 8, be);
	else if (type == PM_RECORD_COMM)
		c->tag[c->n] = pm__ld32(b + 8, be);
	else
		c->tag[c->n] = pm__ld16(b + 4, be);
	c->time[c->n] = pm_record_peek_time(c->layout, rec, size, be, &t) ? UINT64_MAX : t;
	c->n++;
	return c->stop_at && c->n == c->stop_at ? c->stop_ret : PM_DRAIN_CONTINUE;
}

static long ofix_drain(struct ofix *x, struct ocollect *c, unsigned long max, unsigned flags,
		       bool *stopped)
{
	return pm__ring_drain_ordered(x->r, OFIX_RINGS, &x->order, ofix_time, x->layout,
				      ocollect_cb, c, max, flags, stopped);
}

START_TEST(test_ordered_merge)
{
	static struct ofix x;
	static struct ocollect c;
	bool stopped;
	/* ring, time, tag of the first batch; the order they must come out */
	static const uint64_t want1[] = { 0x100, 0x200, 0x101, 0x300, 0x102, 0x201, 0x202,
					  0x301, 0x203, 0x103, 0x302, 0x303 };
	static const uint64_t want2[] = { 0x204, 0x104, 0x304 };

	ofix_init(&x, 4096);
	memset(&c, 0, sizeof(c));
	c.layout = x.layout;
	ofix_sample(&x, 0, 10, 0x100);
	ofix_comm(&x, 0, 25, 0x101);
	ofix_sample(&x, 0, 40, 0x102);
	ofix_sample(&x, 0, 100, 0x103);
	ofix_sample(&x, 1, 20, 0x200);
	ofix_sample(&x, 1, 50, 0x201);
	ofix_timeless(&x, 1, 0x202); /* goes right after 50, before ring 2's 60 */
	ofix_sample(&x, 1, 80, 0x203);
	ofix_sample(&x, 2, 30, 0x300);
	ofix_sample(&x, 2, 60, 0x301);
	ofix_sample(&x, 2, 100, 0x302); /* equal to ring 0's 100: after it */
	ofix_sample(&x, 2, 130, 0x303);
	ofix_publish(&x);
	/* the first drain only looks (its watermark: 130) */
	ck_assert_int_eq(ofix_drain(&x, &c, 0, 0, &stopped), 0);
	ck_assert_int_eq(stopped, 0);
	for (int i = 0; i < OFIX_RINGS; i++)
		ck_assert_uint_eq(__atomic_load_n(x.f[i].tail, __ATOMIC_ACQUIRE), 0);
	/* later records arrive; the next drain hands out up to 130 only */
	ofix_sample(&x, 0, 140, 0x104);
	ofix_sample(&x, 1, 135, 0x204);
	ofix_sample(&x, 2, 150, 0x304);
	ofix_publish(&x);
	ck_assert_int_eq(ofix_drain(&x, &c, 0, 0, &stopped), 12);
	ck_assert_uint_eq(c.n, 12);
	for (size_t i = 0; i < 12; i++)
		ck_assert_msg(c.tag[i] == want1[i], "record %zu: tag 0x%llx, want 0x%llx", i,
			      (unsigned long long)c.tag[i], (unsigned long long)want1[i]);
	/* the held records stay in their rings, not consumed */
	ck_assert_uint_eq(__atomic_load_n(x.f[0].tail, __ATOMIC_ACQUIRE),
			  3 * OFIX_SAMPLE_SZ + OFIX_COMM_SZ);
	ck_assert_uint_eq(__atomic_load_n(x.f[1].tail, __ATOMIC_ACQUIRE), 3 * OFIX_SAMPLE_SZ + 8);
	ck_assert_uint_eq(__atomic_load_n(x.f[2].tail, __ATOMIC_ACQUIRE), 4 * OFIX_SAMPLE_SZ);
	/* the last drain flushes them, in order */
	c.n = 0;
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_uint_eq(c.tag[i], want2[i]);
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), 0);
	for (int i = 0; i < OFIX_RINGS; i++)
		ck_assert_uint_eq(__atomic_load_n(x.f[i].tail, __ATOMIC_ACQUIRE), x.head[i]);
	ofix_fini(&x);
}
END_TEST

START_TEST(test_ordered_stop)
{
	static struct ofix x;
	static struct ocollect c;
	bool stopped;

	ofix_init(&x, 4096);
	memset(&c, 0, sizeof(c));
	c.layout = x.layout;
	for (uint64_t t = 1; t <= 30; t++)
		ofix_sample(&x, (int)(t % OFIX_RINGS), t, t);
	ofix_publish(&x);
	/* a stop (any positive value) on the 4th: the count, consumed up to it */
	c.stop_at = 4;
	c.stop_ret = 7;
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), 4);
	ck_assert_int_eq(stopped, 1);
	ck_assert_uint_eq(__atomic_load_n(x.f[1].tail, __ATOMIC_ACQUIRE), 2 * OFIX_SAMPLE_SZ);
	ck_assert_uint_eq(__atomic_load_n(x.f[2].tail, __ATOMIC_ACQUIRE), 1 * OFIX_SAMPLE_SZ);
	ck_assert_uint_eq(__atomic_load_n(x.f[0].tail, __ATOMIC_ACQUIRE), 1 * OFIX_SAMPLE_SZ);
	/* a limit: 3 more, not a stop */
	ck_assert_int_eq(ofix_drain(&x, &c, 3, PM_DRAIN_FLUSH, &stopped), 3);
	ck_assert_int_eq(stopped, 0);
	/* an error on the 10th record: returned as is */
	c.stop_at = 10;
	c.stop_ret = -ENOMEM;
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), -ENOMEM);
	ck_assert_int_eq(stopped, 0);
	c.stop_at = 0;
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), 20);
	/* one stream 1..30, nothing lost or repeated over the stops */
	ck_assert_uint_eq(c.n, 30);
	for (size_t i = 0; i < 30; i++)
		ck_assert_uint_eq(c.tag[i], i + 1);
	ofix_fini(&x);
}
END_TEST

/* Many rounds on small rings: records wrap the ring ends, the held records
 * of one round share the ring with the next one, and the stream over all
 * drains is the generator's time order. */
START_TEST(test_ordered_rounds)
{
	static struct ofix x;
	static struct ocollect c;
	struct pm_ring_stats st = { .sz = sizeof(st) };
	uint64_t t = 0, rng = 0x9e3779b97f4a7c15ULL, made = 0, next = 0, wrapped = 0;
	uint64_t round_start[OFIX_RINGS];
	bool stopped;

	ofix_init(&x, 4096);
	memset(&c, 0, sizeof(c));
	c.layout = x.layout;
	for (int round = 0; round < 40; round++) {
		long n;

		for (int i = 0; i < OFIX_RINGS; i++)
			round_start[i] = x.head[i];
		for (int k = 0; k < 30; k++) {
			int ring;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			ring = (int)(rng % OFIX_RINGS);
			t += 1 + (rng >> 40) % 3;
			/* numbered in time order: the stream must be 0, 1, 2, ... */
			if ((rng >> 20) % 4 == 0)
				ofix_comm(&x, ring, t, made);
			else
				ofix_sample(&x, ring, t, made);
			made++;
		}
		ofix_publish(&x);
		c.n = 0;
		n = ofix_drain(&x, &c, 0, round == 39 ? PM_DRAIN_FLUSH : 0, &stopped);
		ck_assert_int_ge(n, 0);
		ck_assert_uint_eq((uint64_t)n, c.n);
		for (size_t i = 0; i < c.n; i++, next++)
			ck_assert_msg(c.tag[i] == next, "round %d: record %zu is #%llu, want #%llu",
				      round, i, (unsigned long long)c.tag[i],
				      (unsigned long long)next);
		/* held back: at most this round's records (the rings' memory) */
		if (round && round < 39)
			for (int i = 0; i < OFIX_RINGS; i++)
				ck_assert_uint_ge(__atomic_load_n(x.f[i].tail, __ATOMIC_ACQUIRE),
						  round_start[i]);
	}
	ck_assert_uint_eq(next, made);
	for (int i = 0; i < OFIX_RINGS; i++) {
		ck_assert_int_eq(pm_ring_stats(x.r[i], &st), 0);
		wrapped += st.wrapped;
	}
	ck_assert_uint_gt(wrapped, 0);
	ofix_fini(&x);
}
END_TEST

START_TEST(test_ordered_corrupt)
{
	static struct ofix x;
	static struct ocollect c;
	uint8_t bad[8];
	bool stopped;

	ofix_init(&x, 4096);
	memset(&c, 0, sizeof(c));
	c.layout = x.layout;
	ofix_sample(&x, 0, 5, 1);
	pm__st32(bad, PM_RECORD_SAMPLE, pm__host_big_endian());
	pm__st16(bad + 4, 0, pm__host_big_endian());
	pm__st16(bad + 6, 4, pm__host_big_endian()); /* size 4: impossible */
	ofix_put(&x, 1, bad, 8);
	ofix_publish(&x);
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), -PM_ERR_CORRUPT);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "impossible record"));
	ck_assert_uint_eq(c.n, 0);
	ofix_fini(&x);
}
END_TEST

START_TEST(test_corrupt)
{
	struct fake f;
	pm_ring *r = NULL;
	uint8_t buf[16] = { 0 };
	const void *rec;
	size_t size;

	fake_init(&f, 4096);
	/* A header of size 4 (< 8). */
	pm__st32(buf, PM_RECORD_SAMPLE, pm__host_big_endian());
	pm__st16(buf + 6, 4, pm__host_big_endian());
	fake_put(&f, 0, buf, 16);
	__atomic_store_n(f.head, 16, __ATOMIC_RELEASE);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), -PM_ERR_CORRUPT);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), -PM_ERR_CORRUPT);
	pm_ring_free(r);

	/* A record longer than what data_head says is there. */
	pm__st16(buf + 6, 64, pm__host_big_endian());
	fake_put(&f, 0, buf, 16);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), -PM_ERR_CORRUPT);
	pm_ring_free(r);

	/* data_head more than a ring ahead. */
	__atomic_store_n(f.head, 3 * 4096, __ATOMIC_RELEASE);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), -PM_ERR_CORRUPT);
	ck_assert_msg(strstr(pm_errmsg(), "data_head") != NULL, "message: %s", pm_errmsg());
	pm_ring_free(r);

	/* Bad geometry. */
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, 3000, 0), -EINVAL);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem + 1, f.page, 4096, 0), -EINVAL);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, 4096, 0x100), -EINVAL);
	free(f.mem);
}
END_TEST

/* Kernel records are multiples of 8 bytes, so every record is 8-aligned
 * (pm_ring_next() promises it).  A size that is not a multiple of 8 is as
 * impossible as one below 8, and a data_tail that is not a multiple of 8
 * is refused at attach; found by fuzz_drain (size 13 was handed out, and
 * the record after it at an odd address). */
START_TEST(test_corrupt_unaligned)
{
	static struct ofix x;
	static struct ocollect c;
	struct fake f;
	pm_ring *r = NULL;
	uint8_t buf[32] = { 0 };
	const void *rec;
	size_t size;
	bool stopped;
	int be = pm__host_big_endian();

	fake_init(&f, 4096);
	pm__st32(buf, PM_RECORD_SAMPLE, be);
	pm__st16(buf + 6, 12, be); /* 12: >= 8 but not a multiple of 8 */
	pm__st32(buf + 12, PM_RECORD_SAMPLE, be);
	pm__st16(buf + 18, 16, be);
	fake_put(&f, 0, buf, 28);
	__atomic_store_n(f.head, 28, __ATOMIC_RELEASE);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), 0);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), -PM_ERR_CORRUPT);
	ck_assert_msg(strstr(pm_errmsg(), "size field 12") != NULL, "message: %s", pm_errmsg());
	pm_ring_free(r);

	/* A reader starting at an odd data_tail would hand out odd addresses. */
	__atomic_store_n(f.tail, 4, __ATOMIC_RELEASE);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, 0), -EINVAL);
	ck_assert_ptr_null(r);
	ck_assert_msg(strstr(pm_errmsg(), "data_tail 4") != NULL, "message: %s", pm_errmsg());
	/* an overwrite ring never reads data_tail */
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, PM_RING_OVERWRITE), 0);
	pm_ring_free(r);
	free(f.mem);

	/* The ordered drain: an odd size in one ring, nothing handed out. */
	ofix_init(&x, 4096);
	memset(&c, 0, sizeof(c));
	c.layout = x.layout;
	ofix_sample(&x, 0, 5, 1);
	memset(buf, 0, sizeof(buf));
	pm__st32(buf, PM_RECORD_SAMPLE, be);
	pm__st16(buf + 6, 13, be);
	ofix_put(&x, 1, buf, 16);
	ofix_publish(&x);
	ck_assert_int_eq(ofix_drain(&x, &c, 0, PM_DRAIN_FLUSH, &stopped), -PM_ERR_CORRUPT);
	ck_assert_uint_eq(c.n, 0);
	ofix_fini(&x);
}
END_TEST

/* Overwrite ring: the producer writes backwards (head decreasing). */
static uint64_t back_put(struct fake *f, uint64_t head, uint64_t seq, uint32_t sz)
{
	uint8_t buf[512];

	head -= sz;
	make_record(buf, seq, sz, PM_RECORD_SAMPLE);
	fake_put(f, head, buf, sz);
	__atomic_store_n(f->head, head, __ATOMIC_RELEASE);
	return head;
}

static uint32_t back_size(uint64_t seq)
{
	return (uint32_t)(8 * (2 + seq % 29));
}

START_TEST(test_overwrite)
{
	struct fake f;
	pm_ring *r = NULL;
	uint64_t head = 0, seq = 0, last;
	const void *rec;
	size_t size, span = 0;
	struct pm_ring_stats st = { .sz = sizeof(st) };

	fake_init(&f, 4096);
	ck_assert_int_eq(pm_ring_new_from_memory(&r, f.mem, f.page, f.size, PM_RING_OVERWRITE), 0);
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 0);
	/* Ten records: all read, newest first. */
	for (; seq < 10; seq++)
		head = back_put(&f, head, seq, back_size(seq));
	for (int64_t s = 9; s >= 0; s--) {
		ck_assert_int_eq(pm_ring_next(r, &rec, &size), 1);
		check_record(rec, size, (uint64_t)s, back_size((uint64_t)s));
	}
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 0);
	pm_ring_consume(r); /* no-op: overwrite rings never write the tail */
	ck_assert_uint_eq(__atomic_load_n(f.tail, __ATOMIC_ACQUIRE), 0);

	/* Many more: the ring wraps several times; the reader sees the newest
	 * ones down to the oldest record that is still whole. */
	for (; seq < 1000; seq++)
		head = back_put(&f, head, seq, back_size(seq));
	last = seq;
	while (pm_ring_next(r, &rec, &size) == 1) {
		last--;
		check_record(rec, size, last, back_size(last));
		span += size;
	}
	ck_assert_uint_le(span, 4096);
	ck_assert_uint_gt(span + back_size(last - 1), 4096);
	ck_assert_int_eq(pm_ring_stats(r, &st), 0);
	ck_assert_uint_eq(st.overruns, 1);
	/* Nothing new: nothing read. */
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 0);
	head = back_put(&f, head, seq, back_size(seq));
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 1);
	check_record(rec, size, seq, back_size(seq));
	ck_assert_int_eq(pm_ring_next(r, &rec, &size), 0);
	pm_ring_free(r);
	free(f.mem);
}
END_TEST

/* -------------------------------------------------------------- live tests */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}






START_TEST(test_open_errors_and_fds)
{
	struct pm_attr a, bad;
	pm_evlist *el = NULL;
	int before, fd;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	before = count_fds();
	ck_assert_int_gt(before, 0);

	/* A PMU type that does not exist: explained, no fd left. */
	pm_attr_init(&bad);
	bad.type = 0x7ffffff0;
	fd = pm_attr_open(&bad, 0, -1, -1, 0);
	ck_assert_int_lt(fd, 0);
	ck_assert_msg(fd == -ENOENT || fd == -ENODEV || fd == -EINVAL, "got %d", fd);
	if (fd != -EINVAL)
		ck_assert_msg(strstr(pm_errmsg(), "not available on this machine"), "msg: %s",
			      pm_errmsg());
	ck_assert_int_eq(count_fds(), before);

	/* A good event and then a bad one in one list: all closed on failure. */
	sw_attr(&a, SW_TASK_CLOCK, 100000);
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_add(el, &bad, "bogus", -1), 1);
	ck_assert_int_lt(pm_evlist_open(el), 0);
	ck_assert_msg(strstr(pm_errmsg(), "bogus"), "msg: %s", pm_errmsg());
	ck_assert_int_eq(count_fds(), before);
	pm_evlist_free(el);
	ck_assert_int_eq(count_fds(), before);

	/* A ProfileMe-style (precise) event that does not sample: the rule is named. */
	sw_attr(&bad, SW_TASK_CLOCK, 0);
	bad.flags |= 2ULL << PM_ATTR_PRECISE_IP_SHIFT;
	fd = pm_attr_open(&bad, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
	else if (fd == -EINVAL)
		ck_assert_msg(strstr(pm_errmsg(), "must sample"), "msg: %s", pm_errmsg());

	/* Success: opened, then closed, fds as before; every fd close-on-exec. */
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	sw_attr(&a, SW_PAGE_FAULTS, 1);
	ck_assert_int_eq(pm_evlist_add(el, &a, "page-faults", -1), 1);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_int_gt(count_fds(), before);
	for (size_t i = 0; i < pm_evlist_nr_rings(el); i++) {
		int rfd = pm_ring_fd(pm_evlist_ring(el, i));

		ck_assert_int_ge(rfd, 0);
		ck_assert_msg(fcntl(rfd, F_GETFD) & FD_CLOEXEC, "fd %d not close-on-exec", rfd);
	}
	/* pm_evlist_close() undoes pm_evlist_open(): fds as before, no rings,
	 * the list kept: it opens again (and a second open while open is
	 * refused); closing a closed list does nothing. */
	{
		int open_fds = count_fds();
		size_t rings = pm_evlist_nr_rings(el);

		ck_assert_uint_ge(rings, 1);
		ck_assert_int_eq(pm_evlist_open(el), -EBUSY);
		pm_evlist_close(el);
		ck_assert_int_eq(count_fds(), before);
		ck_assert_uint_eq(pm_evlist_nr_rings(el), 0);
		ck_assert_int_eq(pm_evlist_enable(el), -EINVAL);
		pm_evlist_close(el);
		pm_evlist_close(NULL);
		ck_assert_uint_eq(pm_evlist_count(el), 2);
		ck_assert_int_eq(pm_evlist_open(el), 0);
		ck_assert_int_eq(count_fds(), open_fds);
		ck_assert_uint_eq(pm_evlist_nr_rings(el), rings);
		ck_assert_int_eq(pm_evlist_start(el), 0);
	}
	pm_evlist_free(el);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

START_TEST(test_counting)
{
	struct pm_attr a;
	pm_evlist *el = NULL;
	struct pm_count c = { .sz = sizeof(c) };

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	sw_attr(&a, SW_TASK_CLOCK, 0);
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	sw_attr(&a, SW_PAGE_FAULTS, 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "page-faults", 0), 1); /* grouped */
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_uint_eq(pm_evlist_nr_rings(el), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(50);
	{
		/* Touch fresh pages: page faults. */
		size_t n = 64 * 4096;
		char *p = malloc(n);

		for (size_t i = 0; i < n; i += 4096)
			p[i] = (char)i;
		sw_sink += (uint64_t)p[4096];
		free(p);
	}
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	ck_assert_int_eq(pm_evlist_read_count(el, 0, &c), 0);
	/* task-clock counts nanoseconds: at least 40 ms of the 50 burnt. */
	ck_assert_uint_ge(c.value, 40 * 1000 * 1000ULL);
	ck_assert_uint_gt(c.enabled, 0);
	ck_assert_uint_le(c.running, c.enabled);
	ck_assert_uint_ne(c.id, 0);
	ck_assert_int_eq(c.multiplexed, 0);
	ck_assert(c.scaled >= (double)c.value);
	ck_assert_int_eq(pm_evlist_read_count(el, 1, &c), 0);
	ck_assert_uint_ge(c.value, 1);
	pm_evlist_free(el);
}
END_TEST

/* Why the kernel refused a ProfileMe event: the rule broken, and whether
 * ProfileMe came from the config bit or from precise_ip (the PMU from the
 * Alpha fixture tree; no Alpha here, so the errno is given). */
START_TEST(test_explain_profileme)
{
	struct pm_attr a;
	char *old = getenv("PROFILEME_SYSFS") ? strdup(getenv("PROFILEME_SYSFS")) : NULL;

	setenv("PROFILEME_SYSFS", PM_TEST_SRCDIR "/tests/fixtures/sysfs/alpha", 1);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = 4; /* the fixture's Alpha cpu PMU */
	a.config = PM_PROFILEME_CONFIG_BIT | 0x0;
	a.sample_period = 10000;
	ck_assert_int_eq(pm__evlist_explain_open(EINVAL, &a, "pm", -1, 0, false), -EINVAL);
	ck_assert_msg(strstr(pm_errmsg(), "maps only event codes 1-4") &&
		      strstr(pm_errmsg(), "the profileme config bit (config:8)") &&
		      strstr(pm_errmsg(), "this is 0"), "%s", pm_errmsg());
	a.config = PM_PROFILEME_CONFIG_BIT | 0x201;
	pm__evlist_explain_open(EINVAL, &a, "pm", -1, 0, false);
	ck_assert_msg(strstr(pm_errmsg(), "only config bits 0-8"), "%s", pm_errmsg());
	a.config = PM_PROFILEME_CONFIG_BIT | 0x1;
	pm__evlist_explain_open(EINVAL, &a, "pm", -1, 0, true);
	ck_assert_msg(strstr(pm_errmsg(), "cannot share a group"), "%s", pm_errmsg());
	a.sample_period = 0;
	pm__evlist_explain_open(EINVAL, &a, "pm", -1, 0, false);
	ck_assert_msg(strstr(pm_errmsg(), "must sample"), "%s", pm_errmsg());
	/* selected by precise_ip, raw event 0x1 without the bit */
	a.config = 0x1;
	a.sample_period = 10000;
	a.flags |= 2ULL << PM_ATTR_PRECISE_IP_SHIFT;
	pm__evlist_explain_open(EINVAL, &a, "pm", -1, 0, false);
	ck_assert_msg(strstr(pm_errmsg(), "selected by precise_ip") &&
		      strstr(pm_errmsg(), "precise_ip=2"), "%s", pm_errmsg());
	/* not ProfileMe at all: the generic text */
	a.flags = 0;
	pm__evlist_explain_open(EINVAL, &a, "pm", -1, 0, false);
	ck_assert_msg(!strstr(pm_errmsg(), "ProfileMe") && strstr(pm_errmsg(), "invalid attributes"),
		      "%s", pm_errmsg());
	if (old) {
		setenv("PROFILEME_SYSFS", old, 1);
		free(old);
	} else {
		unsetenv("PROFILEME_SYSFS");
	}
}
END_TEST

/* A task's counting event opened once per CPU (inherit): its times must
 * aggregate as one task's, not as ncpu tasks' (no false multiplexing, and
 * the scaled value equals the raw value for a software event). */
START_TEST(test_counting_inherit_percpu)
{
	struct pm_evlist_opts o = { .sz = sizeof(o), .flags = PM_EVLIST_INHERIT };
	struct pm_attr a;
	pm_evlist *el = NULL;
	struct pm_count c = { .sz = sizeof(c) };

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	sw_attr(&a, SW_TASK_CLOCK, 0);
	ck_assert_int_eq(pm_evlist_new(&el, &o), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(60);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	ck_assert_int_eq(pm_evlist_read_count(el, 0, &c), 0);
	ck_assert_uint_ge(c.value, 40 * 1000 * 1000ULL);
	ck_assert_int_eq(c.multiplexed, 0);
	ck_assert_uint_le(c.running, c.enabled);
	/* software events never multiplex: scaled == value within rounding */
	ck_assert_msg(c.scaled <= (double)c.value * 1.02 && c.scaled >= (double)c.value,
		      "scaled %.0f vs value %llu (enabled %llu running %llu)", c.scaled,
		      (unsigned long long)c.value, (unsigned long long)c.enabled,
		      (unsigned long long)c.running);
	pm_evlist_free(el);
}
END_TEST

struct self_check {
	int pid;
	uint64_t period, last_time, samples, other;
	bool bad;
};

/* Layout chosen by the defaults for one event: IP TID TIME CPU PERIOD. */
static int self_cb(const void *rec, size_t size, void *user)
{
	struct self_check *sc = user;
	const uint8_t *b = rec;
	bool be = pm__host_big_endian();

	if (pm__ld32(b, be) != PM_RECORD_SAMPLE) {
		sc->other++;
		return 0;
	}
	if (size < 48) {
		sc->bad = true;
		return 0;
	}
	sc->samples++;
	if ((int)pm__ld32(b + 16, be) != sc->pid || pm__ld64(b + 40, be) != sc->period ||
	    pm__ld64(b + 24, be) < sc->last_time)
		sc->bad = true;
	sc->last_time = pm__ld64(b + 24, be);
	return 0;
}

START_TEST(test_sampling_self)
{
	struct pm_attr a;
	pm_evlist *el = NULL;
	struct self_check sc = { .pid = getpid(), .period = 200000 };
	struct pm_ring_stats st = { .sz = sizeof(st) };
	long n;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	sw_attr(&a, SW_TASK_CLOCK, sc.period);
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_uint_eq(pm_evlist_nr_rings(el), 1);
	ck_assert_uint_eq(pm_ring_data_size(pm_evlist_ring(el, 0)) % (size_t)sysconf(_SC_PAGESIZE), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(100);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	n = pm_evlist_drain(el, self_cb, &sc);
	ck_assert_int_gt(n, 0);
	/* 100 ms at one sample per 200 us of task time: hundreds. */
	ck_assert_uint_ge(sc.samples, 100);
	ck_assert_msg(!sc.bad, "a sample had the wrong pid, period or time order");
	ck_assert_int_eq(pm_evlist_stats(el, &st), 0);
	ck_assert_uint_eq(st.samples, sc.samples);
	pm_evlist_free(el);
}
END_TEST

/* Two sampling events in one list: every SAMPLE goes through the list's
 * own calls; the layout of the attr given to pm_evlist_add() must not
 * parse them (the library added sample_type bits at open). */
struct two_check {
	pm_evlist *el;
	pm_sample_layout *naive; /* of the attr before open */
	uint64_t period[2];
	uint64_t samples[2], naive_ok, bad, nonzero_ip;
	int pid;
};

static int two_cb(const void *rec, size_t size, void *user)
{
	struct two_check *tc = user;
	struct pm_sample s = { .sz = sizeof(s) };
	struct pm_sample n = { .sz = sizeof(n) };
	uint32_t type;
	int idx;

	memcpy(&type, rec, sizeof(type));
	if (type != PM_RECORD_SAMPLE) {
		/* not a sample: refused with -EINVAL */
		if (pm_evlist_sample(tc->el, rec, size, &s) != -EINVAL)
			tc->bad++;
		return 0;
	}
	idx = pm_evlist_event_of(tc->el, rec, size);
	if (idx < 0 || idx > 1 || pm_evlist_sample(tc->el, rec, size, &s) != 0) {
		tc->bad++;
		return 0;
	}
	tc->samples[idx]++;
	if ((int)s.pid != tc->pid || s.period != tc->period[idx] ||
	    pm_evlist_attr_of_id(tc->el, s.id) != idx || !(s.present & PM_SAMPLE_IDENTIFIER))
		tc->bad++;
	if (s.ip)
		tc->nonzero_ip++;
	if (pm_sample_parse(&n, tc->naive, rec, size, pm__host_big_endian(), NULL) == 0)
		tc->naive_ok++;
	return 0;
}

START_TEST(test_evlist_sample)
{
	struct two_check tc = { .pid = getpid(), .period = { 200000, 300000 } };
	struct pm_attr a, b;
	uint64_t ids[2];
	long nid;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	sw_attr(&a, SW_TASK_CLOCK, tc.period[0]);
	sw_attr(&b, SW_CPU_CLOCK, tc.period[1]);
	ck_assert_int_eq(pm_sample_layout_new(&tc.naive, &a), 0);
	ck_assert_int_eq(pm_evlist_new(&tc.el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(tc.el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_add(tc.el, &b, "cpu-clock", -1), 1);
	/* not open yet */
	ck_assert_int_eq(pm_evlist_attr_of_id(tc.el, 1), -EINVAL);
	ck_assert_int_eq(pm_evlist_open(tc.el), 0);
	for (int i = 0; i < 2; i++) {
		nid = pm_evlist_ids(tc.el, (size_t)i, ids, 2);
		ck_assert_int_ge(nid, 1);
		ck_assert_int_eq(pm_evlist_attr_of_id(tc.el, ids[0]), i);
	}
	ck_assert_int_eq(pm_evlist_attr_of_id(tc.el, 0xfedcba9876543210ULL), -ENOENT);
	ck_assert_int_eq(pm_evlist_sample(NULL, &a, 8, NULL), -EINVAL);
	ck_assert_int_eq(pm_evlist_start(tc.el), 0);
	burn_ms(100);
	ck_assert_int_eq(pm_evlist_disable(tc.el), 0);
	ck_assert_int_gt(pm_evlist_drain(tc.el, two_cb, &tc), 0);
	ck_assert_uint_ge(tc.samples[0], 50);
	ck_assert_uint_ge(tc.samples[1], 30);
	ck_assert_uint_eq(tc.bad, 0);
	ck_assert_uint_eq(tc.nonzero_ip, tc.samples[0] + tc.samples[1]);
	ck_assert_uint_eq(tc.naive_ok, 0);
	pm_sample_layout_free(tc.naive);
	pm_evlist_free(tc.el);
}
END_TEST

static int count_stop_cb(const void *rec, size_t size, void *user)
{
	uint64_t *n = user;

	(void)rec;
	(void)size;
	return ++*n == 5 ? 9 : PM_DRAIN_CONTINUE;
}

START_TEST(test_evlist_drain_stop)
{
	struct self_check sc = { .pid = getpid(), .period = 100000 };
	pm_evlist *el = NULL;
	struct pm_attr a;
	uint64_t n = 0;
	int stopped = -1;
	long got;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	sw_attr(&a, SW_TASK_CLOCK, sc.period);
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(50); /* hundreds of samples */
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	/* a stop with 9 on the 5th record: 5, reported as a stop */
	ck_assert_int_eq(pm_evlist_drain_max(el, count_stop_cb, &n, 0, &stopped), 5);
	ck_assert_int_eq(stopped, 1);
	/* a limit: exactly 10 more, not a stop */
	ck_assert_int_eq(pm_evlist_drain_max(el, self_cb, &sc, 10, &stopped), 10);
	ck_assert_int_eq(stopped, 0);
	got = pm_evlist_drain(el, self_cb, &sc);
	ck_assert_int_gt(got, 0);
	ck_assert_int_eq(pm_evlist_drain_max(el, self_cb, &sc, 0, &stopped), 0);
	ck_assert_int_eq(stopped, 0);
	ck_assert_int_eq(pm_evlist_drain_max(NULL, self_cb, &sc, 0, &stopped), -EINVAL);
	pm_evlist_free(el);
}
END_TEST

/* pm_evlist_drain_ordered() live: the calling thread's task-clock on CPUs 0
 * and 1 (one ring each), the thread hopping between them; drained in order
 * while it runs and flushed at the end: one stream in time order with
 * samples of both CPUs, every sample of the rings handed out once. */
struct ordered_check {
	pm_evlist *el;
	uint64_t last, samples, cpu_samples[2], untimed, bad, backwards, switches;
	int prev_cpu;
};

static int ordered_cb(const void *rec, size_t size, void *user)
{
	struct ordered_check *oc = user;
	struct pm_sample s = { .sz = sizeof(s) };
	uint32_t type;

	memcpy(&type, rec, sizeof(type));
	if (type != PM_RECORD_SAMPLE)
		return PM_DRAIN_CONTINUE;
	if (pm_evlist_sample(oc->el, rec, size, &s) || s.cpu > 1) {
		oc->bad++;
		return PM_DRAIN_CONTINUE;
	}
	if (!(s.present & PM_SAMPLE_TIME))
		oc->untimed++;
	if (s.time < oc->last)
		oc->backwards++;
	oc->last = s.time;
	oc->samples++;
	oc->cpu_samples[s.cpu]++;
	if (oc->prev_cpu >= 0 && (int)s.cpu != oc->prev_cpu)
		oc->switches++;
	oc->prev_cpu = (int)s.cpu;
	return PM_DRAIN_CONTINUE;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

START_TEST(test_evlist_drain_ordered_live)
{
	struct pm_evlist_opts o = { .sz = sizeof(o), .cpus = "0-1" };
	struct ordered_check oc = { .prev_cpu = -1 };
	struct pm_ring_stats st = { .sz = sizeof(st) };
	struct pm_attr a;
	cpu_set_t saved;
	long n, total = 0;
	int stopped;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		pm_test_skip("one CPU online: nothing to merge");
	ck_assert_int_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	if (pin_to(1) || pin_to(0)) {
		sched_setaffinity(0, sizeof(saved), &saved);
		pm_test_skip("cannot run on CPUs 0 and 1 (affinity refused)");
	}
	sw_attr(&a, SW_TASK_CLOCK, 100000);
	ck_assert_int_eq(pm_evlist_new(&oc.el, &o), 0);
	ck_assert_int_eq(pm_evlist_add(oc.el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_open(oc.el), 0);
	ck_assert_uint_eq(pm_evlist_nr_rings(oc.el), 2);
	ck_assert_int_eq(pm_evlist_start(oc.el), 0);
	for (int hop = 0; hop < 20; hop++) {
		ck_assert_int_eq(pin_to(hop & 1), 0);
		burn_ms(5);
		if (hop % 4 != 3)
			continue; /* each drain sees both rings' samples, interleaved */
		n = pm_evlist_drain_ordered(oc.el, ordered_cb, &oc, 0, 0, &stopped);
		ck_assert_int_ge(n, 0);
		ck_assert_int_eq(stopped, 0);
		total += n;
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	ck_assert_int_eq(pm_evlist_disable(oc.el), 0);
	n = pm_evlist_drain_ordered(oc.el, ordered_cb, &oc, 0, PM_DRAIN_FLUSH, &stopped);
	ck_assert_int_gt(n, 0);
	total += n;
	ck_assert_int_eq(pm_evlist_drain_ordered(oc.el, ordered_cb, &oc, 0, PM_DRAIN_FLUSH, NULL),
			 0);
	ck_assert_uint_eq(oc.bad, 0);
	ck_assert_uint_eq(oc.untimed, 0);
	ck_assert_uint_eq(oc.backwards, 0);
	/* 100 ms at one sample per 100 us of task time, on both CPUs */
	ck_assert_uint_ge(oc.samples, 200);
	ck_assert_uint_ge(oc.cpu_samples[0], 20);
	ck_assert_uint_ge(oc.cpu_samples[1], 20);
	ck_assert_uint_ge(oc.switches, 2);
	ck_assert_int_eq(pm_evlist_stats(oc.el, &st), 0);
	ck_assert_uint_eq(st.samples, oc.samples);
	ck_assert_uint_eq(st.records, (uint64_t)total);
	/* the argument checks */
	ck_assert_int_eq(pm_evlist_drain_ordered(oc.el, ordered_cb, &oc, 0, 0x80, NULL), -EINVAL);
	ck_assert_int_eq(pm_evlist_drain_ordered(NULL, ordered_cb, &oc, 0, 0, NULL), -EINVAL);
	pm_evlist_close(oc.el);
	ck_assert_int_eq(pm_evlist_drain_ordered(oc.el, ordered_cb, &oc, 0, 0, NULL), -EINVAL);
	pm_evlist_free(oc.el);
}
END_TEST

START_TEST(test_evlist_drain_ordered_overwrite)
{
	struct pm_evlist_opts o = { .sz = sizeof(o), .flags = PM_EVLIST_OVERWRITE };
	struct ordered_check oc = { .prev_cpu = -1 };
	struct pm_attr a;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	sw_attr(&a, SW_TASK_CLOCK, 100000);
	ck_assert_int_eq(pm_evlist_new(&oc.el, &o), 0);
	ck_assert_int_eq(pm_evlist_add(oc.el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_open(oc.el), 0);
	ck_assert_int_eq(pm_evlist_drain_ordered(oc.el, ordered_cb, &oc, 0, PM_DRAIN_FLUSH, NULL),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "overwrite"));
	pm_evlist_free(oc.el);
}
END_TEST

START_TEST(test_command)
{
	struct pm_attr a;
	pm_evlist *el = NULL;
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
			 (char *)"i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	char *bad[] = { (char *)"/nonexistent/command", NULL };
	struct self_check sc = { .period = 100000 };
	int pid, st = 0, before;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	before = count_fds();
	sw_attr(&a, SW_TASK_CLOCK, sc.period);
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	pid = pm_evlist_prepare_command(el, argv);
	ck_assert_int_gt(pid, 0);
	sc.pid = pid;
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	while (pm_evlist_wait_child(el, &st, 0) == 0) {
		pm_evlist_poll(el, 50);
		pm_evlist_drain(el, self_cb, &sc);
	}
	pm_evlist_drain(el, self_cb, &sc);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_uint_ge(sc.samples, 5);
	ck_assert_uint_ge(sc.other, 1); /* COMM of the exec at least */
	ck_assert_msg(!sc.bad, "a sample had the wrong pid, period or time order");
	pm_evlist_free(el);
	ck_assert_int_eq(count_fds(), before);

	/* A command that does not exist. */
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_gt(pm_evlist_prepare_command(el, bad), 0);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_int_eq(pm_evlist_start(el), -ENOENT);
	pm_evlist_free(el);
	ck_assert_int_eq(count_fds(), before);

	/* Prepared, never started: killed and reaped by close. */
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	pid = pm_evlist_prepare_command(el, argv);
	ck_assert_int_gt(pid, 0);
	pm_evlist_free(el);
	ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), -1);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

START_TEST(test_percpu_set_output)
{
	struct pm_attr a;
	pm_evlist *el = NULL;
	struct pm_evlist_opts o = { .sz = sizeof(o), .flags = PM_EVLIST_SYSTEM_WIDE };
	struct pm_ring_stats st = { .sz = sizeof(st) };
	struct self_check sc = { .pid = -1 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), n;
	int rc;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)");
	ck_assert_int_eq(pm_evlist_new(&el, &o), 0);
	sw_attr(&a, SW_CPU_CLOCK, 1000000);
	a.flags = 0;
	ck_assert_int_eq(pm_evlist_add(el, &a, "cpu-clock", -1), 0);
	sw_attr(&a, SW_TASK_CLOCK, 1000000);
	a.flags = 0;
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 1);
	rc = pm_evlist_open(el);
	if (rc == -EACCES || rc == -EPERM) {
		pm_evlist_free(el);
		pm_test_skip("system-wide events not permitted: %s", pm_errmsg());
	}
	ck_assert_int_eq(rc, 0);
	/* One ring per CPU, the second event redirected into it. */
	ck_assert_uint_eq(pm_evlist_nr_rings(el), (size_t)ncpu);
	ck_assert_int_eq(pm_evlist_ids(el, 1, NULL, 0), ncpu);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(60);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	n = pm_evlist_drain(el, self_cb, &sc);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(pm_evlist_stats(el, &st), 0);
	ck_assert_uint_ge(st.samples, 30);
	pm_evlist_free(el);
}
END_TEST

static Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("memory");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_size);
	tcase_add_test(tc, test_small_records_full_ring);
	tcase_add_test(tc, test_exactly_full);
	tcase_add_test(tc, test_drain_stop);
	tcase_add_test(tc, test_ordered_merge);
	tcase_add_test(tc, test_ordered_stop);
	tcase_add_test(tc, test_ordered_rounds);
	tcase_add_test(tc, test_ordered_corrupt);
	tcase_add_test(tc, test_lost_and_throttle);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_corrupt_unaligned);
	tcase_add_test(tc, test_overwrite);
	suite_add_tcase(s, tc);
#ifndef PM_RING_MEMORY_ONLY
	tc = tcase_create("live");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_open_errors_and_fds);
	tcase_add_test(tc, test_counting);
	tcase_add_test(tc, test_counting_inherit_percpu);
	tcase_add_test(tc, test_explain_profileme);
	tcase_add_test(tc, test_sampling_self);
	tcase_add_test(tc, test_evlist_sample);
	tcase_add_test(tc, test_evlist_drain_stop);
	tcase_add_test(tc, test_evlist_drain_ordered_live);
	tcase_add_test(tc, test_evlist_drain_ordered_overwrite);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_percpu_set_output);
	suite_add_tcase(s, tc);
#endif
	return s;
}

PM_TEST_MAIN(ring_suite)
