/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The perf.data writer's byte layout, checked field by field against the
 * documented format (perf-abi-facts §5), in file and pipe mode, and the
 * header of a writer that never finished. */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "pm_check.h"

#include <profileme/writer.h>

static bool be;

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	uint8_t *b;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	ck_assert_int_eq(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void test_attr(struct pm_attr *a)
{
	pm_attr_init(a);
	a->type = PM_TYPE_SOFTWARE;
	a->config = 1;
	a->sample_period = 12345;
	a->sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_IDENTIFIER;
	a->flags = PM_ATTR_SAMPLE_ID_ALL | PM_ATTR_MMAP2 | PM_ATTR_COMM;
}

/* A sample for test_attr: id, ip, pid/tid, time. */
static void make_sample(uint8_t *r, uint64_t i)
{
	memset(r, 0, 40);
	pm__st32(r, 9, be);
	pm__st16(r + 6, 40, be);
	pm__st64(r + 8, 77, be);
	pm__st64(r + 16, 0x400000 + i, be);
	pm__st32(r + 24, 10, be);
	pm__st32(r + 28, 11, be);
	pm__st64(r + 32, 1000 + i, be);
}

START_TEST(test_file_layout)
{
	char path[] = "/tmp/pm_writer_XXXXXX";
	int fd = mkstemp(path);
	pm_writer *w = NULL;
	struct pm_attr a;
	uint64_t ids[2] = { 77, 78 }, recs, samples, bytes;
	uint8_t rec[40], *f;
	size_t len;
	char *argv[] = { (char *)"prog", (char *)"arg one" };
	struct utsname u;
	int n;

	be = pm__host_big_endian();
	ck_assert_int_ge(fd, 0);
	close(fd);
	test_attr(&a);
	ck_assert_int_eq(pm_writer_open(&w, path, NULL), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "task-clock", ids, 2), 0);
	ck_assert_int_eq(pm_writer_set_cmdline(w, 2, argv), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "late", NULL, 0), -EBUSY);
	n = pm_writer_synthesize(w, getpid());
	ck_assert_int_ge(n, 2); /* COMM + at least our own code mapping */
	for (uint64_t i = 0; i < 3; i++) {
		make_sample(rec, i);
		ck_assert_int_eq(pm_writer_write(w, rec, sizeof(rec)), 0);
	}
	ck_assert_int_eq(pm_writer_write(w, rec, 39), -EINVAL);
	ck_assert_int_eq(pm_writer_finished_round(w), 0);
	pm_writer_counts(w, &recs, &samples, &bytes);
	ck_assert_uint_eq(samples, 3);
	ck_assert_uint_eq(recs, (uint64_t)n + 3);
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);

	f = slurp(path, &len);
	ck_assert_mem_eq(f, be ? "2ELIFREP" : "PERFILE2", 8);
	ck_assert_uint_eq(pm__ld64(f + 8, be), 104);
	ck_assert_uint_eq(pm__ld64(f + 16, be), 128 + 16); /* VER7 attrs for perf 6.1 */
	{
		uint64_t aoff = pm__ld64(f + 24, be), asz = pm__ld64(f + 32, be);
		uint64_t doff = pm__ld64(f + 40, be), dsz = pm__ld64(f + 48, be);
		uint64_t idoff, idsz, bits = pm__ld64(f + 72, be), foff;
		struct pm_attr back;
		int nbits = 0;

		ck_assert_uint_eq(asz, 144);
		ck_assert_uint_eq(pm__ld64(f + 56, be), 0); /* event_types */
		ck_assert_int_eq(pm_attr_from_bytes(&back, f + aoff, 128, be), 0);
		ck_assert_uint_eq(back.size, 128);
		ck_assert_uint_eq(back.sample_period, 12345);
		ck_assert_uint_eq(back.sample_type, a.sample_type);
		idoff = pm__ld64(f + aoff + 128, be);
		idsz = pm__ld64(f + aoff + 136, be);
		ck_assert_uint_eq(idsz, 16);
		ck_assert_uint_eq(pm__ld64(f + idoff, be), 77);
		ck_assert_uint_eq(pm__ld64(f + idoff + 8, be), 78);
		ck_assert_uint_eq(doff, aoff + asz);
		/* The data: first the COMM of our process, with the trailer. */
		ck_assert_uint_eq(pm__ld32(f + doff, be), 3);
		ck_assert_uint_eq(pm__ld32(f + doff + 8, be), (uint32_t)getpid());
		{
			size_t sz = pm__ld16(f + doff + 6, be);

			/* trailer: TID, TIME, IDENTIFIER (= the first id) */
			ck_assert_uint_eq(pm__ld64(f + doff + sz - 8, be), 77);
		}
		/* The samples just before FINISHED_ROUND at the end of the data. */
		ck_assert_uint_eq(pm__ld32(f + doff + dsz - 8, be), 68);
		for (uint64_t i = 0; i < 3; i++) {
			make_sample(rec, i);
			ck_assert_mem_eq(f + doff + dsz - 8 - 120 + 40 * i, rec, 40);
		}
		/* Features: HOSTNAME..CPUDESC (3-8), CMDLINE 11, EVENT_DESC 12, PMU_MAPPINGS 16. */
		ck_assert_uint_eq(bits, (0x3fULL << 3) | (1ULL << 11) | (1ULL << 12) | (1ULL << 16));
		for (int b = 0; b < 64; b++)
			nbits += (int)((bits >> b) & 1);
		foff = doff + dsz;
		for (int i = 0; i < nbits; i++) {
			uint64_t o = pm__ld64(f + foff + 16 * i, be), s = pm__ld64(f + foff + 16 * i + 8, be);

			ck_assert(pm__fits((size_t)o, (size_t)s, len));
			if (i == 0) { /* HOSTNAME: u32 len (64-aligned) + string */
				ck_assert_int_eq(uname(&u), 0);
				ck_assert_uint_eq(pm__ld32(f + o, be) % 64, 0);
				ck_assert_str_eq((const char *)f + o + 4, u.nodename);
			}
			if (i == 6) { /* CMDLINE: nr = argc + 1 (the exe), then strings */
				uint32_t l0 = pm__ld32(f + o + 4, be);

				ck_assert_uint_eq(pm__ld32(f + o, be), 3);
				ck_assert_str_eq((const char *)f + o + 8 + l0 + 4, "prog");
			}
			if (i == 7) { /* EVENT_DESC: nr 1, attr_size 128, attr, nr_ids 2, name, ids */
				uint32_t l;

				ck_assert_uint_eq(pm__ld32(f + o, be), 1);
				ck_assert_uint_eq(pm__ld32(f + o + 4, be), 128);
				ck_assert_uint_eq(pm__ld32(f + o + 8 + 128, be), 2);
				l = pm__ld32(f + o + 8 + 132, be);
				ck_assert_str_eq((const char *)f + o + 8 + 136, "task-clock");
				ck_assert_uint_eq(pm__ld64(f + o + 8 + 136 + l, be), 77);
			}
		}
	}
	free(f);
	unlink(path);
}
END_TEST

START_TEST(test_unfinished)
{
	char path[] = "/tmp/pm_writer_XXXXXX";
	int fd = mkstemp(path);
	struct pm_writer_opts o = { .sz = sizeof(o), .buffer_bytes = 4096 };
	pm_writer *w = NULL;
	struct pm_attr a;
	uint8_t rec[40], *f;
	size_t len;

	be = pm__host_big_endian();
	test_attr(&a);
	ck_assert_int_eq(pm_writer_open_fd(&w, fd, &o), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "x", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	for (uint64_t i = 0; i < 500; i++) { /* 20000 bytes: several flushes */
		make_sample(rec, i);
		ck_assert_int_eq(pm_writer_write(w, rec, sizeof(rec)), 0);
	}
	/* Not finished: as if killed now.  data.size covers what was flushed. */
	f = slurp(path, &len);
	{
		uint64_t doff = pm__ld64(f + 40, be), dsz = pm__ld64(f + 48, be);

		ck_assert_uint_gt(dsz, 0);
		ck_assert_uint_eq(dsz % 40, 0);
		ck_assert_uint_eq(doff + dsz, len);
		ck_assert_uint_eq(pm__ld64(f + 72, be), 0); /* no features yet */
	}
	free(f);
	ck_assert_int_eq(pm_writer_sync(w), 0);
	f = slurp(path, &len);
	ck_assert_uint_eq(pm__ld64(f + 48, be), 500 * 40);
	free(f);
	pm_writer_close(w); /* finishes */
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(test_pipe)
{
	int p[2];
	pm_writer *w = NULL;
	struct pm_attr a;
	uint64_t id = 5;
	uint8_t buf[65536];
	ssize_t n;

	be = pm__host_big_endian();
	test_attr(&a);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pm_writer_open_fd(&w, p[1], NULL), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "x", &id, 1), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf));
	close(p[0]);
	ck_assert_int_ge(n, 16 + 8 + 128 + 8);
	ck_assert_uint_eq(pm__ld64(buf + 8, be), 16);
	ck_assert_uint_eq(pm__ld32(buf + 16, be), 64);           /* HEADER_ATTR */
	ck_assert_uint_eq(pm__ld16(buf + 22, be), 8 + 128 + 8); /* header + attr + one id */
	ck_assert_uint_eq(pm__ld64(buf + 16 + 8 + 128, be), 5);
	ck_assert_uint_eq(pm__ld32(buf + 16 + 144, be), 80);     /* then HEADER_FEATUREs */
}
END_TEST


/* Read a fixture file for comparison with what the writer embedded. */
static uint8_t *fixture_file(const char *rel, size_t *len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/sysfs/tracing/kernel/tracing/%s", PM_FIXTURES, rel);
	return slurp(path, len);
}

/* Expect at *off: a size (u64 or u32) followed by exactly the fixture file. */
static void expect_sized_file(const uint8_t *sec, size_t sec_len, size_t *off, const char *rel,
			      bool u64size)
{
	size_t flen, n;
	uint8_t *want = fixture_file(rel, &flen);

	ck_assert_uint_le(*off + (u64size ? 8 : 4), sec_len);
	n = u64size ? (size_t)pm__ld64(sec + *off, be) : pm__ld32(sec + *off, be);
	*off += u64size ? 8 : 4;
	ck_assert_msg(n == flen, "%s: size %zu, file has %zu", rel, n, flen);
	ck_assert_uint_le(*off + n, sec_len);
	ck_assert_mem_eq(sec + *off, want, n);
	*off += n;
	free(want);
}

/* A tracepoint recording gets HEADER_TRACING_DATA (feature bit 1) with the
 * fixture tracefs's header_page/header_event and the formats of the events
 * used, grouped by system, in perf's trace-event layout. */
START_TEST(test_tracing_data)
{
	char path[] = "/tmp/pm_writer_XXXXXX";
	int fd = mkstemp(path);
	char tracefs[1024];
	struct pm_writer_opts o = { .sz = sizeof(o) };
	pm_writer *w = NULL;
	struct pm_attr a, b, c, d;
	uint64_t id = 5;
	uint8_t *f;
	size_t len;

	be = pm__host_big_endian();
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(tracefs, sizeof(tracefs), "%s/sysfs/tracing/kernel/tracing", PM_FIXTURES);
	o.tracefs = tracefs;
	pm_attr_init(&a);
	a.type = PM_TYPE_TRACEPOINT;
	a.config = 372; /* sched:sched_switch in the fixture */
	a.sample_period = 1;
	a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_RAW;
	b = a;
	b.config = 225; /* irq:irq_handler_entry, named differently: found by id */
	c = a;
	c.config = 374; /* sched:sched_wakeup */
	d = a;          /* sched_switch again: described once */
	ck_assert_int_eq(pm_writer_open(&w, path, &o), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "sched:sched_switch", &id, 1), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &b, "irqs", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &c, "sched:sched_wakeup/period=1/", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &d, "again", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);

	f = slurp(path, &len);
	{
		uint64_t doff = pm__ld64(f + 40, be), dsz = pm__ld64(f + 48, be);
		uint64_t bits = pm__ld64(f + 72, be), soff, ssz;
		const uint8_t *sec;
		size_t off = 0;

		ck_assert(bits & (1ULL << 1));
		/* TRACING_DATA is the lowest set bit: the first table entry */
		soff = pm__ld64(f + doff + dsz, be);
		ssz = pm__ld64(f + doff + dsz + 8, be);
		ck_assert_uint_le(soff + ssz, len);
		sec = f + soff;
		ck_assert_mem_eq(sec, "\027\010\104tracing", 10);
		ck_assert_mem_eq(sec + 10, "0.6", 4);
		ck_assert_uint_eq(sec[14], be ? 1 : 0);
		ck_assert_uint_eq(sec[15], sizeof(long));
		ck_assert_uint_eq(pm__ld32(sec + 16, be), (uint32_t)sysconf(_SC_PAGESIZE));
		off = 20;
		ck_assert_mem_eq(sec + off, "header_page", 12);
		off += 12;
		expect_sized_file(sec, ssz, &off, "events/header_page", true);
		ck_assert_mem_eq(sec + off, "header_event", 13);
		off += 13;
		expect_sized_file(sec, ssz, &off, "events/header_event", true);
		ck_assert_uint_eq(pm__ld32(sec + off, be), 0); /* no ftrace events */
		off += 4;
		ck_assert_uint_eq(pm__ld32(sec + off, be), 2); /* sched, irq */
		off += 4;
		ck_assert_str_eq((const char *)sec + off, "sched");
		off += 6;
		ck_assert_uint_eq(pm__ld32(sec + off, be), 2);
		off += 4;
		expect_sized_file(sec, ssz, &off, "events/sched/sched_switch/format", true);
		expect_sized_file(sec, ssz, &off, "events/sched/sched_wakeup/format", true);
		ck_assert_str_eq((const char *)sec + off, "irq");
		off += 4;
		ck_assert_uint_eq(pm__ld32(sec + off, be), 1);
		off += 4;
		expect_sized_file(sec, ssz, &off, "events/irq/irq_handler_entry/format", true);
		ck_assert_uint_eq(pm__ld32(sec + off, be), 0); /* kallsyms */
		off += 4;
		ck_assert_uint_eq(pm__ld32(sec + off, be), 0); /* no printk_formats in the fixture */
		off += 4;
		ck_assert_uint_eq(pm__ld64(sec + off, be), 0); /* saved cmdlines */
		off += 8;
		ck_assert_uint_eq(off, ssz);
	}
	free(f);

	/* An id tracefs does not have: the feature is left out, the file is fine. */
	a.config = 999999;
	ck_assert_int_eq(pm_writer_open(&w, path, &o), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "gone", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);
	f = slurp(path, &len);
	ck_assert_uint_eq(pm__ld64(f + 72, be) & 2, 0);
	ck_assert(pm__ld64(f + 72, be) & (1ULL << 3)); /* HOSTNAME still there */
	free(f);

	/* No tracepoint: no TRACING_DATA; an old, smaller opts struct is accepted. */
	test_attr(&a);
	o.sz = offsetof(struct pm_writer_opts, tracefs);
	ck_assert_int_eq(pm_writer_open(&w, path, &o), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "task-clock", NULL, 0), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);
	f = slurp(path, &len);
	ck_assert_uint_eq(pm__ld64(f + 72, be) & 2, 0);
	free(f);
	o.sz = 3;
	ck_assert_int_eq(pm_writer_open(&w, path, &o), -PM_ERR_STRUCT_SIZE);
	unlink(path);
}
END_TEST

static Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_file_layout);
	tcase_add_test(tc, test_unfinished);
	tcase_add_test(tc, test_pipe);
	tcase_add_test(tc, test_tracing_data);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(writer_suite)
