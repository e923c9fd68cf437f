/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * pm_columns over a live event list (pm_columns_new_from_evlist()): real
 * software events on this process, the rows compared with what
 * pm_evlist_sample() gives for the same records (through pm_columns_tee(),
 * an independent parse), reads that find nothing now but more later, lost
 * records, and records damaged in the kernel's ring before the read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "pm_check.h"
#include "sw_events.h"
#include "ring/ring_int.h"

#include <profileme/event.h>
#include <profileme/export.h>
#include <profileme/record.h>
#include <profileme/ring.h>






/* What the tee saw: every record, and each SAMPLE parsed by pm_evlist_sample(). */
#define TEE_MAX 100000
struct tee {
	pm_evlist *el;
	size_t records, samples, others;
	size_t n;
	struct {
		int ok, event;
		uint64_t time, ip, period, id;
		uint32_t pid, tid, cpu, raw_size, misc;
		uint8_t cpumode;
	} s[TEE_MAX];
	int fail_at; /* return -ECANCELED at this record (1-based), 0: never */
};

static int tee_cb(const void *rec, size_t size, void *user)
{
	struct tee *t = user;
	struct pm_sample smp = { .sz = sizeof(smp) };
	uint32_t type;
	uint16_t misc;

	t->records++;
	if (t->fail_at && (int)t->records == t->fail_at)
		return -ECANCELED;
	memcpy(&type, rec, 4);
	memcpy(&misc, (const uint8_t *)rec + 4, 2);
	if (type != PM_RECORD_SAMPLE) {
		t->others++;
		return 0;
	}
	t->samples++;
	if (t->n == TEE_MAX)
		return 0;
	t->s[t->n].ok = pm_evlist_sample(t->el, rec, size, &smp) == 0;
	t->s[t->n].event = pm_evlist_event_of(t->el, rec, size);
	t->s[t->n].time = smp.time;
	t->s[t->n].ip = smp.ip;
	t->s[t->n].period = smp.period;
	t->s[t->n].id = smp.id;
	t->s[t->n].pid = smp.pid;
	t->s[t->n].tid = smp.tid;
	t->s[t->n].cpu = smp.cpu;
	t->s[t->n].cpumode = misc & 7;
	t->s[t->n].misc = misc;
	t->s[t->n].raw_size = smp.raw.data ? smp.raw.size : 0;
	t->n++;
	return 0;
}

#define CAP 4096
struct rows {
	uint64_t time[CAP], ip[CAP], period[CAP], id[CAP];
	uint32_t pid[CAP], tid[CAP], cpu[CAP];
	int32_t event[CAP];
	uint8_t cpumode[CAP];
};

/* One read of at most cap rows into r (base columns by name). */
static int read_rows(pm_columns *c, struct rows *r, size_t cap, size_t *n)
{
	void *bufs[PM_COLUMNS_NBASE] = { 0 };
	const struct {
		const char *name;
		void *p;
	} want[] = { { "time", r->time }, { "ip", r->ip },   { "period", r->period },
		     { "id", r->id },	  { "pid", r->pid }, { "tid", r->tid },
		     { "cpu", r->cpu },	  { "event", r->event }, { "cpumode", r->cpumode } };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		long k = pm_columns_index(c, want[i].name);

		ck_assert_int_ge(k, 0);
		ck_assert_int_lt(k, PM_COLUMNS_NBASE);
		bufs[k] = want[i].p;
	}
	return pm_columns_read(c, bufs, PM_COLUMNS_NBASE, cap, n);
}

/* Rows [0, n) of r equal the tee's good samples from *k on. */
static void same_as_tee(const struct rows *r, size_t n, const struct tee *t, size_t *k)
{
	for (size_t i = 0; i < n; i++, (*k)++) {
		while (*k < t->n && !t->s[*k].ok)
			(*k)++;
		ck_assert_uint_lt(*k, t->n);
		ck_assert_uint_eq(r->time[i], t->s[*k].time);
		ck_assert_uint_eq(r->ip[i], t->s[*k].ip);
		ck_assert_uint_eq(r->period[i], t->s[*k].period);
		ck_assert_uint_eq(r->id[i], t->s[*k].id);
		ck_assert_uint_eq(r->pid[i], t->s[*k].pid);
		ck_assert_uint_eq(r->tid[i], t->s[*k].tid);
		ck_assert_uint_eq(r->cpu[i], t->s[*k].cpu);
		ck_assert_int_eq(r->event[i], t->s[*k].event);
		ck_assert_uint_eq(r->cpumode[i], t->s[*k].cpumode);
	}
}

static pm_evlist *two_events(const struct pm_evlist_opts *o, uint64_t p0, uint64_t p1)
{
	struct pm_attr a, b;
	pm_evlist *el = NULL;

	sw_attr(&a, SW_TASK_CLOCK, p0);
	sw_attr(&b, SW_CPU_CLOCK, p1);
	ck_assert_int_eq(pm_evlist_new(&el, o), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_add(el, &b, "cpu-clock", -1), 1);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	return el;
}

START_TEST(test_live_columns_match_evlist_sample)
{
	static struct tee t;
	static struct rows r;
	struct pm_ring_stats st = { .sz = sizeof(st) };
	pm_columns *c = NULL;
	pm_evlist *el;
	size_t n, total = 0, k = 0, reads = 0;
	uint64_t per[2] = { 0, 0 };
	int rc;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here");
	el = two_events(NULL, 200000, 300000);
	/* arguments */
	ck_assert_int_eq(pm_columns_new_from_evlist(NULL, el, NULL), -EINVAL);
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(c);
	{
		struct pm_columns_opts bad = { .sz = sizeof(bad), .event = 2 };

		ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, &bad), -ENOENT);
		ck_assert_ptr_null(c);
	}
	ck_assert_int_eq(pm_columns_tee(NULL, tee_cb, &t), -EINVAL);

	memset(&t, 0, sizeof(t));
	t.el = el;
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), 0);
	ck_assert_uint_eq(pm_columns_count(c), PM_COLUMNS_NBASE); /* software events: no decoder */
	ck_assert_ptr_null(pm_columns_decoder(c));
	ck_assert_int_eq(pm_columns_tee(c, tee_cb, &t), 0);
	/* nothing sampled yet: 0 rows, and that is no end */
	ck_assert_int_eq(read_rows(c, &r, CAP, &n), 0);
	ck_assert_uint_eq(n, 0);

	ck_assert_int_eq(pm_evlist_start(el), 0);
	for (int round = 0; round < 2; round++) {
		if (round)
			ck_assert_int_eq(pm_evlist_enable(el), 0);
		burn_ms(60);
		/* stopped while reading: the reads of this (self-sampling)
		 * thread make no new samples, so the reads get to the end of
		 * what is there (slowly read, under valgrind, a running event
		 * would refill the ring as fast) */
		ck_assert_int_eq(pm_evlist_disable(el), 0);
		/* small batches: a read stops at cap, the next one goes on */
		for (;;) {
			rc = read_rows(c, &r, 16, &n);
			ck_assert_int_eq(rc, 0);
			same_as_tee(&r, n, &t, &k);
			for (size_t i = 0; i < n; i++) {
				ck_assert_int_ge(r.event[i], 0);
				ck_assert_int_le(r.event[i], 1);
				per[r.event[i]]++;
				ck_assert_uint_eq(r.pid[i], (uint32_t)getpid());
				ck_assert_uint_eq(r.period[i], r.event[i] ? 300000 : 200000);
				ck_assert_uint_ne(r.ip[i], 0);
			}
			total += n;
			reads++;
			if (n < 16)
				break;
		}
		/* the rows of round 0 came; round 1 brings more after an empty read */
		ck_assert_uint_gt(total, round ? 60 : 20);
	}
	for (;;) {
		ck_assert_int_eq(read_rows(c, &r, CAP, &n), 0);
		same_as_tee(&r, n, &t, &k);
		total += n;
		if (!n)
			break;
	}
	ck_assert_uint_gt(per[0], 30);
	ck_assert_uint_gt(per[1], 20);
	ck_assert_uint_eq(pm_columns_skipped(c), 0);
	/* every SAMPLE the tee saw is a row, in the same order */
	ck_assert_uint_eq(t.samples, total);
	ck_assert_uint_eq(k, total);
	ck_assert_uint_gt(reads, 4);
	/* the non-sample records went through too (COMM/MMAP2 of nothing new
	 * may be absent, but the counts agree with the rings' counters) */
	ck_assert_int_eq(pm_evlist_stats(el, &st), 0);
	ck_assert_uint_eq(st.records, t.records);
	ck_assert_uint_eq(st.samples, t.samples);
	pm_columns_free(c);
	pm_evlist_free(el);
}
END_TEST

/* The tee's error ends the read; the next read goes on. */
START_TEST(test_live_columns_tee_error)
{
	static struct tee t;
	static struct rows r;
	pm_columns *c = NULL;
	pm_evlist *el;
	size_t n, total = 0;
	int rc;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here");
	el = two_events(NULL, 200000, 300000);
	memset(&t, 0, sizeof(t));
	t.el = el;
	t.fail_at = 10;
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), 0);
	ck_assert_int_eq(pm_columns_tee(c, tee_cb, &t), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(80);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	rc = read_rows(c, &r, CAP, &n);
	ck_assert_int_eq(rc, -ECANCELED);
	ck_assert_uint_le(n, 9);
	total = n;
	do {
		ck_assert_int_eq(read_rows(c, &r, CAP, &n), 0);
		total += n;
	} while (n);
	/* the record the tee refused is not a row, every other sample is */
	ck_assert_uint_ge(total + 1, t.samples);
	ck_assert_uint_le(total, t.samples);
	ck_assert_uint_gt(total, 30);
	/* the tee goes */
	ck_assert_int_eq(pm_columns_tee(c, NULL, NULL), 0);
	pm_columns_free(c);
	pm_evlist_free(el);
	/* a file reader takes no ring records: no tee */
	{
		pm_file *f = NULL;

		ck_assert_int_eq(pm_file_open(&f, PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data",
					      NULL), 0);
		ck_assert_int_eq(pm_columns_new_from_file(&c, f, NULL), 0);
		ck_assert_int_eq(pm_columns_tee(c, tee_cb, &t), -EINVAL);
		ck_assert_msg(strstr(pm_errmsg(), "file"), "%s", pm_errmsg());
		pm_columns_free(c);
		pm_file_close(f);
	}
}
END_TEST

/* A ring of one page, a fast event and nobody reading: the kernel drops
 * samples and says so in PERF_RECORD_LOST, which the read counts. */
START_TEST(test_live_columns_lost)
{
	static struct rows r;
	struct pm_evlist_opts o = { .sz = sizeof(o), .mmap_pages = 1 };
	struct pm_ring_stats st = { .sz = sizeof(st) };
	struct pm_attr a;
	pm_columns *c = NULL;
	pm_evlist *el = NULL;
	size_t n, total = 0;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here");
	sw_attr(&a, SW_TASK_CLOCK, 20000);
	ck_assert_int_eq(pm_evlist_new(&el, &o), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_evlist_open(el), 0);
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(100); /* ~5000 samples of 48 bytes for a 4 KiB ring */
	/* the event runs on: a few reads make room (not until empty, which a
	 * slow reader, under valgrind, may never see) */
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(read_rows(c, &r, CAP, &n), 0);
		total += n;
	}
	/* the kernel says what it dropped when the ring has room again */
	burn_ms(50);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	do {
		ck_assert_int_eq(read_rows(c, &r, CAP, &n), 0);
		total += n;
	} while (n);
	ck_assert_int_eq(pm_evlist_stats(el, &st), 0);
	ck_assert_uint_gt(total, 0);
	ck_assert_uint_eq(total, st.samples);
	ck_assert_uint_ge(st.lost_records, 1);
	ck_assert_uint_gt(st.lost, 100);
	ck_assert_uint_eq(pm_columns_skipped(c), 0);
	pm_columns_free(c);
	pm_evlist_free(el);
}
END_TEST

/* The kernel maps a ring's data pages read-only to the reader (a write is
 * SIGBUS): damage is made in a copy.  The records of ring 0 are drained
 * into a memory ring (pm_ring_new_from_memory()) that takes ring 0's place
 * in the list, so the list's own event matching and layouts read them. */
struct memring {
	uint8_t *mem;
	size_t page, data_size, used;
	pm_ring *r, *orig;
	uint8_t *recs[4096]; /* the SAMPLE records in it */
	size_t nsamples;
};

static int memring_cb(const void *rec, size_t size, void *user)
{
	struct memring *m = user;
	uint8_t *p = m->mem + m->page + m->used;
	uint32_t type;

	ck_assert_uint_le(m->used + size, m->data_size);
	memcpy(p, rec, size);
	memcpy(&type, rec, 4);
	if (type == PM_RECORD_SAMPLE && m->nsamples < 4096)
		m->recs[m->nsamples++] = p;
	m->used += size;
	return 0;
}

static void memring_take(struct memring *m, pm_evlist *el)
{
	uint64_t head;

	memset(m, 0, sizeof(*m));
	m->page = 4096;
	m->data_size = 1u << 20;
	m->mem = aligned_alloc(4096, m->page + m->data_size);
	ck_assert_ptr_nonnull(m->mem);
	memset(m->mem, 0, m->page + m->data_size);
	ck_assert_int_ge(pm_ring_drain(pm_evlist_ring(el, 0), memring_cb, m, 0), 0);
	ck_assert_int_eq(pm_ring_new_from_memory(&m->r, m->mem, m->page, m->data_size, 0), 0);
	head = m->used;
	memcpy(m->mem + 1024, &head, 8); /* data_head: the records are published */
	m->orig = pm__evlist_swap_ring(el, 0, m->r);
	ck_assert_ptr_nonnull(m->orig);
}

static void memring_give_back(struct memring *m, pm_evlist *el)
{
	ck_assert_ptr_eq(pm__evlist_swap_ring(el, 0, m->orig), m->r);
	pm_ring_free(m->r);
	free(m->mem);
}

/* Records damaged in the ring before the read: each bad sample is its own
 * error, the reads go on after it. */
START_TEST(test_live_columns_damage)
{
	static struct tee t;
	static struct rows r;
	static struct memring m;
	uint8_t **recs = m.recs;
	pm_columns *c = NULL;
	pm_evlist *el;
	size_t n, ns, total = 0, k = 0;
	uint64_t bad_id = 0xdeadbeefcafeULL;
	uint16_t sz, sz16 = 16;
	uint32_t other = 0x7ff0;
	int rc;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here");
	el = two_events(NULL, 200000, 300000);
	memset(&t, 0, sizeof(t));
	t.el = el;
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), 0);
	ck_assert_int_eq(pm_columns_tee(c, tee_cb, &t), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(60);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	ck_assert_uint_eq(pm_evlist_nr_rings(el), 1);
	memring_take(&m, el);
	ns = m.nsamples;
	ck_assert_uint_ge(ns, 20);
	/* sample 5: an id no event has (IDENTIFIER is right after the header) */
	memcpy(recs[5] + 8, &bad_id, 8);
	/* sample 10: cut to 16 bytes (header + IDENTIFIER), the rest another record */
	memcpy(&sz, recs[10] + 6, 2);
	ck_assert_uint_gt(sz, 24);
	memcpy(recs[10] + 6, &sz16, 2);
	memcpy(recs[10] + 16, &other, 4);
	sz = (uint16_t)(sz - 16);
	memcpy(recs[10] + 16 + 6, &sz, 2);

	rc = read_rows(c, &r, CAP, &n);
	ck_assert_int_eq(rc, -ENOENT);
	ck_assert_uint_eq(n, 5);
	ck_assert_msg(strstr(pm_errmsg(), "ring 0") && strstr(pm_errmsg(), "id"), "%s", pm_errmsg());
	printf("unknown id: %s\n", pm_errmsg());
	same_as_tee(&r, n, &t, &k);
	total += n;
	rc = read_rows(c, &r, CAP, &n);
	/* shorter than its layout: refused by pm_sample_parse(), named */
	ck_assert_msg(rc == -PM_ERR_CORRUPT || rc == -PM_ERR_TRUNCATED, "%d", rc);
	ck_assert_uint_eq(n, 4);
	ck_assert_msg(strstr(pm_errmsg(), "cpu-clock") || strstr(pm_errmsg(), "task-clock"), "%s",
		      pm_errmsg());
	printf("damaged sample: %s\n", pm_errmsg());
	same_as_tee(&r, n, &t, &k);
	total += n;
	do {
		rc = read_rows(c, &r, CAP, &n);
		ck_assert_int_eq(rc, 0);
		same_as_tee(&r, n, &t, &k);
		total += n;
	} while (n);
	ck_assert_uint_eq(pm_columns_skipped(c), 2);
	ck_assert_uint_eq(total + 2, t.samples);
	ck_assert_uint_eq(t.others >= 1, 1); /* the record cut out of sample 10 */
	pm_columns_free(c);
	memring_give_back(&m, el);
	pm_evlist_free(el);
}
END_TEST

/* A record size the ring cannot hold: the ring is reported once, then not read. */
START_TEST(test_live_columns_broken_ring)
{
	static struct rows r;
	static struct memring m;
	pm_columns *c = NULL;
	pm_evlist *el;
	size_t n;
	uint16_t three = 3;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here");
	el = two_events(NULL, 200000, 300000);
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), 0);
	ck_assert_int_eq(pm_evlist_start(el), 0);
	burn_ms(40);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	memring_take(&m, el);
	ck_assert_uint_ge(m.nsamples, 8);
	memcpy(m.recs[7] + 6, &three, 2);
	ck_assert_int_eq(read_rows(c, &r, CAP, &n), -PM_ERR_CORRUPT);
	ck_assert_msg(strstr(pm_errmsg(), "ring 0"), "%s", pm_errmsg());
	printf("broken ring: %s\n", pm_errmsg());
	ck_assert_uint_ge(n, 7);
	ck_assert_int_eq(read_rows(c, &r, CAP, &n), 0);
	ck_assert_uint_eq(n, 0);
	pm_columns_free(c);
	memring_give_back(&m, el);
	pm_evlist_free(el);
}
END_TEST

/* A tracepoint (RAW payloads) read with the record columns (the general
 * path of the reader): one row per call, raw_size as pm_evlist_sample()
 * gives it, raw_offset 0 (no file). */
START_TEST(test_live_columns_tracepoint)
{
	static struct tee t;
	enum { CALLS = 200 };
	struct pm_columns_opts co = { .sz = sizeof(co), .event = -1, .record_columns = 1 };
	pm_event_list *list = NULL;
	struct pm_attr a;
	pm_columns *c = NULL;
	pm_evlist *el = NULL;
	static uint64_t time[CALLS * 2], raw_offset[CALLS * 2];
	static uint32_t pid[CALLS * 2], misc[CALLS * 2], raw_size[CALLS * 2];
	void *bufs[PM_COLUMNS_NBASE + 3] = { 0 };
	size_t n, total = 0;

	if (!have_perf())
		pm_test_skip("perf_event_open is not available here");
	if (pm_event_parse(&list, NULL, "syscalls:sys_enter_getppid", NULL))
		pm_test_skip("no tracepoint syscalls:sys_enter_getppid here: %s", pm_errmsg());
	pm_event_attr(pm_event_list_get(list, 0), &a);
	pm_event_list_free(list);
	a.sample_period = 1;
	a.sample_type |= PM_SAMPLE_RAW;
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "syscalls:sys_enter_getppid", -1), 0);
	if (pm_evlist_open(el)) {
		pm_evlist_free(el);
		pm_test_skip("cannot open the tracepoint: %s", pm_errmsg());
	}
	memset(&t, 0, sizeof(t));
	t.el = el;
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, &co), 0);
	ck_assert_int_eq(pm_columns_tee(c, tee_cb, &t), 0);
	ck_assert_uint_eq(pm_columns_count(c), PM_COLUMNS_NBASE + 3);
	bufs[pm_columns_index(c, "time")] = time;
	bufs[pm_columns_index(c, "pid")] = pid;
	bufs[pm_columns_index(c, "misc")] = misc;
	bufs[pm_columns_index(c, "raw_size")] = raw_size;
	bufs[pm_columns_index(c, "raw_offset")] = raw_offset;
	ck_assert_int_eq(pm_evlist_start(el), 0);
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	ck_assert_int_eq(pm_evlist_disable(el), 0);
	do {
		ck_assert_int_eq(pm_columns_read(c, bufs, PM_COLUMNS_NBASE + 3, CALLS * 2 - total, &n), 0);
		for (size_t i = 0; i < n; i++) {
			size_t k = total + i;

			ck_assert_uint_eq(pid[i], (uint32_t)getpid());
			ck_assert_uint_gt(raw_size[i], 8);
			ck_assert_uint_eq(raw_size[i], t.s[k].raw_size);
			ck_assert_uint_eq(misc[i], t.s[k].misc);
			ck_assert_uint_eq(time[i], t.s[k].time);
			ck_assert_uint_eq(raw_offset[i], 0);
		}
		total += n;
	} while (n);
	ck_assert_uint_eq(total, CALLS);
	ck_assert_uint_eq(t.samples, CALLS);
	pm_columns_free(c);
	pm_evlist_free(el);
}
END_TEST

START_TEST(test_live_columns_not_open)
{
	struct pm_attr a;
	pm_columns *c = NULL;
	pm_evlist *el = NULL;

	sw_attr(&a, SW_TASK_CLOCK, 100000);
	ck_assert_int_eq(pm_evlist_new(&el, NULL), 0);
	ck_assert_int_eq(pm_evlist_add(el, &a, "task-clock", -1), 0);
	ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_msg(strstr(pm_errmsg(), "not open"), "%s", pm_errmsg());
	if (have_perf()) {
		static struct rows r;
		size_t n = 7;

		ck_assert_int_eq(pm_evlist_open(el), 0);
		ck_assert_int_eq(pm_columns_new_from_evlist(&c, el, NULL), 0);
		pm_evlist_close(el);
		/* closed under the reader: an error, no crash */
		ck_assert_int_eq(read_rows(c, &r, CAP, &n), -EINVAL);
		ck_assert_uint_eq(n, 0);
		/* the reader's release does not touch the list (gone first here:
		 * the sanitizer builds check it) */
		pm_evlist_free(el);
		pm_columns_free(c);
		return;
	}
	pm_evlist_free(el);
}
END_TEST

static Suite *live_columns_suite(void)
{
	Suite *s = suite_create("live_columns");
	TCase *tc = tcase_create("live");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_live_columns_match_evlist_sample);
	tcase_add_test(tc, test_live_columns_tee_error);
	tcase_add_test(tc, test_live_columns_lost);
	tcase_add_test(tc, test_live_columns_damage);
	tcase_add_test(tc, test_live_columns_broken_ring);
	tcase_add_test(tc, test_live_columns_tracepoint);
	tcase_add_test(tc, test_live_columns_not_open);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(live_columns_suite)
