/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf.data reader tests on hand-built files (both byte orders, every attr
 * size, several attrs, damage, pipe mode through a descriptor). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profileme/profileme.h>

#include "file/chunks_int.h"
#include "internal/pm_internal.h"
#include "pm_check.h"

/* ------------------------------------------------------------------ */
/* a tiny perf.data builder */

struct fb {
	uint8_t *b;
	size_t len, cap;
	bool be;
};

static void fb_room(struct fb *f, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2 + 256;
		f->b = realloc(f->b, f->cap);
		ck_assert_ptr_nonnull(f->b);
	}
}
static void fb_u16(struct fb *f, uint16_t v) { fb_room(f, 2); pm__st16(f->b + f->len, v, f->be); f->len += 2; }
static void fb_u32(struct fb *f, uint32_t v) { fb_room(f, 4); pm__st32(f->b + f->len, v, f->be); f->len += 4; }
static void fb_u64(struct fb *f, uint64_t v) { fb_room(f, 8); pm__st64(f->b + f->len, v, f->be); f->len += 8; }
static void fb_mem(struct fb *f, const void *p, size_t n) { fb_room(f, n); memcpy(f->b + f->len, p, n); f->len += n; }
static void fb_zero(struct fb *f, size_t n) { fb_room(f, n); memset(f->b + f->len, 0, n); f->len += n; }
static void fb_set64(struct fb *f, size_t at, uint64_t v) { pm__st64(f->b + at, v, f->be); }
/* perf header string: u32 len (64-aligned), bytes */
static void fb_str(struct fb *f, const char *s)
{
	uint32_t n = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);

	fb_u32(f, n);
	fb_room(f, n);
	memset(f->b + f->len, 0, n);
	memcpy(f->b + f->len, s, strlen(s));
	f->len += n;
}
static void fb_hdr(struct fb *f, uint32_t type, uint16_t misc, uint16_t size)
{
	fb_u32(f, type);
	fb_u16(f, misc);
	fb_u16(f, size);
}

/* attr bytes of a given recorded size (sizes past the known ones get zeros) */
static void fb_attr(struct fb *f, const struct pm_attr *a, uint32_t size)
{
	uint8_t buf[256];
	struct pm_attr c = *a;

	memset(buf, 0, sizeof(buf));
	c.size = size > PM_ATTR_SIZE_KNOWN ? PM_ATTR_SIZE_KNOWN : size;
	ck_assert_int_eq(pm_attr_to_bytes(&c, buf, sizeof(buf), f->be), (int)c.size);
	pm__st32(buf + 4, size, f->be);
	fb_mem(f, buf, size);
}

#define ST_BASIC (PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD)

/* SAMPLE with ST_BASIC (+ IDENTIFIER / ID as asked) */
static void fb_sample(struct fb *f, uint64_t st, uint64_t id, uint64_t ip, uint32_t pid,
		      uint32_t tid, uint64_t time, uint32_t cpu, uint64_t period)
{
	uint16_t size = 8;

	size += 8 * !!(st & PM_SAMPLE_IDENTIFIER) + 8 * !!(st & PM_SAMPLE_IP) +
		8 * !!(st & PM_SAMPLE_TID) + 8 * !!(st & PM_SAMPLE_TIME) + 8 * !!(st & PM_SAMPLE_ID) +
		8 * !!(st & PM_SAMPLE_CPU) + 8 * !!(st & PM_SAMPLE_PERIOD);
	fb_hdr(f, PM_RECORD_SAMPLE, PM_RECORD_MISC_USER, size);
	if (st & PM_SAMPLE_IDENTIFIER) fb_u64(f, id);
	if (st & PM_SAMPLE_IP) fb_u64(f, ip);
	if (st & PM_SAMPLE_TID) { fb_u32(f, pid); fb_u32(f, tid); }
	if (st & PM_SAMPLE_TIME) fb_u64(f, time);
	if (st & PM_SAMPLE_ID) fb_u64(f, id);
	if (st & PM_SAMPLE_CPU) { fb_u32(f, cpu); fb_u32(f, 0); }
	if (st & PM_SAMPLE_PERIOD) fb_u64(f, period);
}

/* COMM with a sample_id_all trailer for ST_BASIC: pid/tid, time, cpu */
static void fb_comm(struct fb *f, uint32_t pid, uint32_t tid, const char *comm, uint64_t time)
{
	fb_hdr(f, PM_RECORD_COMM, 0, 8 + 8 + 16 + 8 + 8 + 8);
	fb_u32(f, pid);
	fb_u32(f, tid);
	fb_room(f, 16);
	memset(f->b + f->len, 0, 16);
	memcpy(f->b + f->len, comm, strlen(comm));
	f->len += 16;
	fb_u32(f, pid); fb_u32(f, tid);
	fb_u64(f, time);
	fb_u32(f, 0); fb_u32(f, 0);
}

struct fattr {
	struct pm_attr attr;
	uint32_t size;
	uint64_t ids[4];
	size_t nids;
	const char *name;
};

struct layout_out {
	size_t data_off, data_size, feat_off;
};

/*
 * File mode: header, ids, attrs, data (built by data_fn), features
 * HOSTNAME ARCH NRCPUS CMDLINE EVENT_DESC PMU_MAPPINGS SAMPLE_TIME.
 */
static void fb_file(struct fb *f, const struct fattr *at, size_t nat,
		    void (*data_fn)(struct fb *), struct layout_out *lo)
{
	size_t ids_off[8], attrs_off, asz, data_off, feat_off, tab;
	uint64_t feats = 0;
	static const int fl[] = { PM_FEAT_HOSTNAME, PM_FEAT_ARCH, PM_FEAT_NRCPUS, PM_FEAT_CMDLINE,
				  PM_FEAT_EVENT_DESC, PM_FEAT_PMU_MAPPINGS, PM_FEAT_SAMPLE_TIME };
	const size_t nfl = sizeof(fl) / sizeof(fl[0]);

	fb_mem(f, f->be ? "2ELIFREP" : "PERFILE2", 8);
	fb_u64(f, 104);
	fb_zero(f, 104 - 16);
	/* ids */
	for (size_t i = 0; i < nat; i++) {
		ids_off[i] = f->len;
		for (size_t k = 0; k < at[i].nids; k++)
			fb_u64(f, at[i].ids[k]);
	}
	asz = at[0].size + 16;
	attrs_off = f->len;
	for (size_t i = 0; i < nat; i++) {
		fb_attr(f, &at[i].attr, at[i].size);
		fb_u64(f, ids_off[i]);
		fb_u64(f, at[i].nids * 8);
	}
	data_off = f->len;
	data_fn(f);
	feat_off = f->len;
	/* feature table, then payloads */
	tab = f->len;
	fb_zero(f, 16 * nfl);
	for (size_t k = 0; k < nfl; k++) {
		size_t start = f->len;

		feats |= 1ULL << fl[k];
		switch (fl[k]) {
		case PM_FEAT_HOSTNAME: fb_str(f, "testhost"); break;
		case PM_FEAT_ARCH: fb_str(f, f->be ? "s390x" : "x86_64"); break;
		case PM_FEAT_NRCPUS: fb_u32(f, 8); fb_u32(f, 4); break;
		case PM_FEAT_CMDLINE: fb_u32(f, 2); fb_str(f, "perf"); fb_str(f, "record"); break;
		case PM_FEAT_EVENT_DESC:
			fb_u32(f, (uint32_t)nat);
			fb_u32(f, at[0].size);
			for (size_t i = 0; i < nat; i++) {
				fb_attr(f, &at[i].attr, at[i].size);
				fb_u32(f, (uint32_t)at[i].nids);
				fb_str(f, at[i].name);
				for (size_t j = 0; j < at[i].nids; j++)
					fb_u64(f, at[i].ids[j]);
			}
			break;
		case PM_FEAT_PMU_MAPPINGS:
			fb_u32(f, 2);
			fb_u32(f, 1); fb_str(f, "software");
			fb_u32(f, 4); fb_str(f, "cpu");
			break;
		case PM_FEAT_SAMPLE_TIME: fb_u64(f, 1000); fb_u64(f, 5000); break;
		}
		fb_set64(f, tab + 16 * k, start);
		fb_set64(f, tab + 16 * k + 8, f->len - start);
	}
	fb_set64(f, 16, asz);
	fb_set64(f, 24, attrs_off);
	fb_set64(f, 32, nat * asz);
	fb_set64(f, 40, data_off);
	fb_set64(f, 48, feat_off - data_off);
	fb_set64(f, 72, feats);
	if (lo) {
		lo->data_off = data_off;
		lo->data_size = feat_off - data_off;
		lo->feat_off = feat_off;
	}
}

static char tmpl[64];

static const char *fb_write(const struct fb *f)
{
	int fd;

	snprintf(tmpl, sizeof(tmpl), "/tmp/pm_check_file_XXXXXX");
	fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, f->b, f->len), (ssize_t)f->len);
	close(fd);
	return tmpl;
}

static struct pm_attr basic_attr(uint64_t st)
{
	struct pm_attr a;

	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.config = 1;
	a.sample_period = 1000;
	a.sample_type = st;
	a.flags = PM_ATTR_SAMPLE_ID_ALL | PM_ATTR_DISABLED | PM_ATTR_COMM | (2ULL << PM_ATTR_PRECISE_IP_SHIFT);
	return a;
}

/* ------------------------------------------------------------------ */

static void data_basic(struct fb *f)
{
	fb_comm(f, 100, 101, "worker", 900);
	/* round 1: times 3000, 1000 */
	fb_sample(f, ST_BASIC, 0, 0x401000, 100, 101, 3000, 1, 500);
	fb_sample(f, ST_BASIC, 0, 0x401010, 100, 101, 1000, 0, 501);
	fb_hdr(f, PM_RECORD_FINISHED_ROUND, 0, 8);
	/* round 2: 2000 (older than the first round's max), 5000 */
	fb_sample(f, ST_BASIC, 0, 0x401020, 0x12345678, 0x9abcdef0, 2000, 3, 502);
	fb_sample(f, ST_BASIC, 0, 0x401030, 100, 101, 5000, 2, 503);
	fb_hdr(f, PM_RECORD_FINISHED_ROUND, 0, 8);
}

START_TEST(test_basic_both_orders)
{
	struct fb f = { .be = _i != 0 };
	struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER7,
			    .ids = { 7 }, .nids = 1, .name = "task-clock:pp" };
	struct pm_file_info info;
	struct pm_file_record rec;
	struct pm_sample s;
	pm_file *pf;
	uint32_t a, b;
	uint64_t times[8];
	int n = 0, rc;
	const char *path;

	fb_file(&f, &at, 1, data_basic, NULL);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	info.sz = sizeof(info);
	ck_assert_int_eq(pm_file_get_info(pf, &info), 0);
	ck_assert_int_eq(info.big_endian, _i != 0);
	ck_assert_int_eq(info.pipe_mode, 0);
	ck_assert_uint_eq(pm_file_nr_attrs(pf), 1);
	ck_assert_uint_eq(pm_file_attr(pf, 0)->sample_type, ST_BASIC);
	ck_assert_uint_eq(pm_file_attr(pf, 0)->size, PM_ATTR_SIZE_VER7);
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(pm_file_attr(pf, 0)), 2);
	ck_assert(pm_file_attr(pf, 0)->flags & PM_ATTR_SAMPLE_ID_ALL);
	ck_assert_str_eq(pm_file_event_name(pf, 0), "task-clock:pp");
	ck_assert_str_eq(pm_file_feature_string(pf, PM_FEAT_HOSTNAME), "testhost");
	ck_assert_str_eq(pm_file_feature_string(pf, PM_FEAT_ARCH), _i ? "s390x" : "x86_64");
	ck_assert_int_eq(pm_file_nrcpus(pf, &a, &b), 0);
	ck_assert_uint_eq(a, 8);
	ck_assert_uint_eq(b, 4);
	ck_assert_str_eq(pm_file_cmdline(pf, 1), "record");
	ck_assert_ptr_null(pm_file_cmdline(pf, 2));
	{
		uint32_t t;
		const char *nm;

		ck_assert_int_eq(pm_file_pmu_mapping(pf, 1, &t, &nm), 0);
		ck_assert_uint_eq(t, 4);
		ck_assert_str_eq(nm, "cpu");
		ck_assert_int_eq(pm_file_pmu_mapping(pf, 2, &t, &nm), -ENOENT);
	}
	{
		uint64_t x, y;

		ck_assert_int_eq(pm_file_sample_time(pf, &x, &y), 0);
		ck_assert_uint_eq(x, 1000);
		ck_assert_uint_eq(y, 5000);
		ck_assert_int_eq(pm_file_clockid_res(pf, &x), -ENOENT);
	}
	ck_assert_int_eq(pm_file_has_feature(pf, PM_FEAT_HOSTNAME), 1);
	ck_assert_int_eq(pm_file_has_feature(pf, PM_FEAT_CPUID), 0);

	rec.sz = sizeof(rec);
	s.sz = sizeof(s);
	while ((rc = pm_file_next(pf, &rec)) > 0) {
		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(rec.attr_idx, 0);
		ck_assert_int_eq(pm_file_sample(pf, &rec, &s), 0);
		ck_assert_uint_eq(s.time, rec.time);
		times[n++] = s.time;
		if (s.time == 2000) {
			/* the u32 pairs are per field in either byte order */
			ck_assert_uint_eq(s.pid, 0x12345678);
			ck_assert_uint_eq(s.tid, 0x9abcdef0);
			ck_assert_uint_eq(s.cpu, 3);
			ck_assert_uint_eq(s.ip, 0x401020);
			ck_assert_uint_eq(s.period, 502);
		}
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(n, 4);
	/* perf's order: round 1 flushes nothing, round 2 flushes <= 3000, the
	 * end flushes the rest */
	ck_assert_uint_eq(times[0], 1000);
	ck_assert_uint_eq(times[1], 2000);
	ck_assert_uint_eq(times[2], 3000);
	ck_assert_uint_eq(times[3], 5000);
	pm_file_close(pf);

	/* raw order */
	{
		struct pm_file_opts o = { .sz = sizeof(o), .raw_order = 1 };
		uint32_t types[8];
		int k = 0;

		ck_assert_int_eq(pm_file_open(&pf, path, &o), 0);
		while ((rc = pm_file_next(pf, &rec)) > 0 && k < 8)
			types[k++] = rec.type == PM_RECORD_SAMPLE ? (uint32_t)rec.time : rec.type;
		ck_assert_int_eq(k, 7);
		ck_assert_uint_eq(types[0], PM_RECORD_COMM);
		ck_assert_uint_eq(types[1], 3000);
		ck_assert_uint_eq(types[2], 1000);
		ck_assert_uint_eq(types[3], PM_RECORD_FINISHED_ROUND);
		ck_assert_uint_eq(types[4], 2000);
		pm_file_close(pf);
	}
	unlink(path);
	free(f.b);
}
END_TEST

/* every attr size, VER0 .. one larger than known */
static void data_one(struct fb *f)
{
	fb_sample(f, PM_SAMPLE_IP | PM_SAMPLE_TID, 0, 0xabc0, 5, 6, 0, 0, 0);
}

START_TEST(test_attr_sizes)
{
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 144, 160 };
	uint32_t sz = sizes[_i % 11];
	struct fb f = { .be = _i >= 11 };
	struct pm_attr a = basic_attr(PM_SAMPLE_IP | PM_SAMPLE_TID);
	struct fattr at;
	struct pm_file_record rec;
	struct pm_sample s;
	pm_file *pf;
	const char *path;

	a.config2 = 0x1111; /* VER1+ */
	a.branch_sample_type = 0; /* keep the layout simple */
	memset(&at, 0, sizeof(at));
	at.attr = a;
	at.size = sz;
	at.ids[0] = 42;
	at.nids = 1;
	at.name = "e";
	fb_file(&f, &at, 1, data_one, NULL);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_uint_eq(pm_file_attr(pf, 0)->size, sz);
	ck_assert_uint_eq(pm_file_attr(pf, 0)->sample_type, PM_SAMPLE_IP | PM_SAMPLE_TID);
	ck_assert_uint_eq(pm_file_attr(pf, 0)->config2, (sz >= 72 ? 0x1111 : 0));
	ck_assert_int_eq(pm_file_attr_of_id(pf, 42), 0);
	rec.sz = sizeof(rec);
	s.sz = sizeof(s);
	ck_assert_int_eq(pm_file_next(pf, &rec), 1);
	ck_assert_int_eq(pm_file_sample(pf, &rec, &s), 0);
	ck_assert_uint_eq(s.ip, 0xabc0);
	ck_assert_uint_eq(s.tid, 6);
	ck_assert_int_eq(pm_file_next(pf, &rec), 0);
	pm_file_close(pf);
	unlink(path);
	free(f.b);
}
END_TEST

/* several attrs matched by IDENTIFIER (_i = 0) or by ID (_i = 1) */
static uint64_t g_st;
static void data_multi(struct fb *f)
{
	fb_sample(f, g_st, 20, 20, 1, 1, 10, 0, 1);
	fb_sample(f, g_st, 10, 10, 1, 1, 11, 0, 1);
	fb_sample(f, g_st, 11, 11, 1, 1, 12, 0, 1);
	fb_sample(f, g_st, 99, 99, 1, 1, 13, 0, 1); /* an id no attr owns */
}

START_TEST(test_multi_attr)
{
	struct fb f = { .be = (_i & 2) != 0 };
	struct fattr at[2];
	struct pm_file_record rec;
	struct pm_sample s;
	pm_file *pf;
	const char *path;
	int seen[4] = { 0 }, k = 0, rc;

	g_st = (_i & 1) ? (ST_BASIC | PM_SAMPLE_ID) : (ST_BASIC | PM_SAMPLE_IDENTIFIER);
	memset(at, 0, sizeof(at));
	at[0].attr = basic_attr(g_st);
	at[0].size = PM_ATTR_SIZE_VER8;
	at[0].ids[0] = 10;
	at[0].ids[1] = 11;
	at[0].nids = 2;
	at[0].name = "first";
	at[1] = at[0];
	at[1].attr.config = 2;
	at[1].ids[0] = 20;
	at[1].nids = 1;
	at[1].name = "second";
	fb_file(&f, at, 2, data_multi, NULL);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_uint_eq(pm_file_nr_attrs(pf), 2);
	ck_assert_str_eq(pm_file_event_name(pf, 1), "second");
	rec.sz = sizeof(rec);
	s.sz = sizeof(s);
	while ((rc = pm_file_next(pf, &rec)) > 0) {
		seen[k++] = rec.attr_idx;
		if (rec.attr_idx >= 0) {
			ck_assert_int_eq(pm_file_sample(pf, &rec, &s), 0);
			ck_assert_uint_eq(s.ip, s.id); /* built so */
		}
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(k, 4);
	ck_assert_int_eq(seen[0], 1);
	ck_assert_int_eq(seen[1], 0);
	ck_assert_int_eq(seen[2], 0);
	ck_assert_int_eq(seen[3], -1);
	pm_file_close(pf);
	unlink(path);
	free(f.b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* damage */

static void data_three(struct fb *f)
{
	fb_sample(f, ST_BASIC, 0, 1, 1, 1, 10, 0, 1);
	fb_sample(f, ST_BASIC, 0, 2, 1, 1, 20, 0, 1);
	fb_sample(f, ST_BASIC, 0, 3, 1, 1, 30, 0, 1);
}

static struct fb damaged_base(struct layout_out *lo)
{
	struct fb f = { .be = false };
	struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER8,
			    .ids = { 1 }, .nids = 1, .name = "e" };

	fb_file(&f, &at, 1, data_three, lo);
	return f;
}

/* reads records, returns how many came before the error */
static int read_until_error(pm_file *pf, int *rc_out)
{
	struct pm_file_record rec;
	int n = 0, rc;

	rec.sz = sizeof(rec);
	while ((rc = pm_file_next(pf, &rec)) > 0)
		n++;
	*rc_out = rc;
	return n;
}

START_TEST(test_damage_short_header)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	pm_file *pf = NULL;
	const char *path;

	f.len = 50;
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), -PM_ERR_TRUNCATED);
	ck_assert_ptr_null(pf);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "header"));
	f.len = 10;
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), -PM_ERR_TRUNCATED);
	unlink(path);
	free(f.b);
}
END_TEST

START_TEST(test_damage_attr_size_zero)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	pm_file *pf = NULL;
	const char *path;

	fb_set64(&f, 16, 0);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), -PM_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "attr_size is 0"));
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "offset 16"));
	unlink(path);
	free(f.b);
}
END_TEST

START_TEST(test_damage_record_size_zero)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	size_t third = lo.data_off + 2 * 48;
	pm_file *pf = NULL;
	const char *path;
	char want[64];
	int rc, n;

	pm__st16(f.b + third + 6, 0, false);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	n = read_until_error(pf, &rc);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(rc, -PM_ERR_CORRUPT);
	ck_assert_uint_eq(pm_file_error_offset(pf), third);
	snprintf(want, sizeof(want), "offset %zu", third);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), want));
	/* sticky */
	{
		struct pm_file_record rec = { .sz = sizeof(rec) };

		ck_assert_int_eq(pm_file_next(pf, &rec), -PM_ERR_CORRUPT);
	}
	pm_file_close(pf);
	/* the same in raw order */
	{
		struct pm_file_opts o = { .sz = sizeof(o), .raw_order = 1 };

		ck_assert_int_eq(pm_file_open(&pf, path, &o), 0);
		ck_assert_int_eq(read_until_error(pf, &rc), 2);
		ck_assert_int_eq(rc, -PM_ERR_CORRUPT);
		pm_file_close(pf);
	}
	unlink(path);
	free(f.b);
}
END_TEST

START_TEST(test_damage_record_past_end)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	size_t third = lo.data_off + 2 * 48;
	pm_file *pf = NULL;
	const char *path;
	int rc;

	/* the third sample claims more bytes than the data section has */
	pm__st16(f.b + third + 6, 48 + 64, false);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_int_eq(read_until_error(pf, &rc), 2);
	ck_assert_int_eq(rc, -PM_ERR_TRUNCATED);
	ck_assert_uint_eq(pm_file_error_offset(pf), third);
	pm_file_close(pf);

	/* a file cut in the middle of the third record (data size intact) */
	pm__st16(f.b + third + 6, 48, false);
	f.len = third + 20;
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_int_eq(pm_file_header_status(pf, NULL), -PM_ERR_TRUNCATED);
	ck_assert_int_eq(read_until_error(pf, &rc), 2);
	ck_assert_int_eq(rc, -PM_ERR_TRUNCATED);
	ck_assert_uint_eq(pm_file_error_offset(pf), third);
	pm_file_close(pf);
	unlink(path);
	free(f.b);
}
END_TEST

/* A file cut exactly between records before the data size of its header is
 * damage: the records before the cut, then the error at the cut (issue 12
 * item 2). */
START_TEST(test_damage_cut_at_record_boundary)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	const size_t full = f.len;

	for (int k = 0; k < 3; k++) {
		size_t cut = lo.data_off + 48 * (size_t)k;

		for (int raw = 0; raw < 2; raw++) {
			struct pm_file_opts o = { .sz = sizeof(o), .raw_order = raw };
			pm_file *pf = NULL;
			const char *path;
			char want[48];
			int rc;

			f.len = cut;
			path = fb_write(&f);
			ck_assert_int_eq(pm_file_open(&pf, path, &o), 0);
			ck_assert_int_eq(read_until_error(pf, &rc), k);
			ck_assert_int_eq(rc, -PM_ERR_TRUNCATED);
			ck_assert_uint_eq(pm_file_error_offset(pf), cut);
			snprintf(want, sizeof(want), "ends at offset %zu", cut);
			ck_assert_msg(strstr(pm_errmsg(), want), "%s", pm_errmsg());
			pm_file_close(pf);
			unlink(path);
		}
	}
	f.len = full;
	free(f.b);
}
END_TEST

static void data_none(struct fb *f)
{
	(void)f;
}

/* Data size 0: a finished file without records (its feature table at the
 * data offset), or an unfinished one (records to the end of the file, the
 * feature bits set but no sections) (issue 12 item 6). */
START_TEST(test_data_size_zero)
{
	struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER8,
			    .ids = { 1 }, .nids = 1, .name = "e" };
	struct fb f = { .be = false };
	struct layout_out lo;
	pm_file *pf = NULL;
	const char *path;
	int rc;

	fb_file(&f, &at, 1, data_none, &lo);
	ck_assert_uint_eq(lo.data_size, 0);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_int_eq(pm_file_header_status(pf, NULL), 0);
	ck_assert_int_eq(pm_file_has_feature(pf, PM_FEAT_HOSTNAME), 1);
	ck_assert_int_eq(read_until_error(pf, &rc), 0);
	ck_assert_int_eq(rc, 0);
	pm_file_close(pf);
	unlink(path);
	free(f.b);

	/* unfinished: data size 0, feature bits set, records to the end */
	f = damaged_base(&lo);
	fb_set64(&f, 48, 0);
	f.len = lo.feat_off;
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_int_eq(pm_file_has_feature(pf, PM_FEAT_HOSTNAME), 0);
	ck_assert_int_eq(read_until_error(pf, &rc), 3);
	ck_assert_int_eq(rc, 0);
	pm_file_close(pf);
	unlink(path);
	free(f.b);
}
END_TEST

/* An attr with sample_type / read_format bits the library does not know:
 * the reason is exposed once per attr, naming the bits (issue 12 item 7). */
START_TEST(test_unknown_layout_bits)
{
	for (int which = 0; which < 2; which++) {
		struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER8,
				    .ids = { 1 }, .nids = 1, .name = "e" };
		struct fb f = { .be = false };
		struct pm_file_record rec = { .sz = sizeof(rec) };
		struct pm_sample s = { .sz = sizeof(s) };
		const char *why, *bits = which ? "(0x40)" : "(0x10000000000)";
		pm_file *pf = NULL;
		const char *path;
		int n = 0, rc;

		if (which)
			at.attr.read_format |= 1ULL << 6;
		else
			at.attr.sample_type |= 1ULL << 40;
		fb_file(&f, &at, 1, data_three, NULL);
		path = fb_write(&f);
		ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
		why = pm_file_attr_layout_error(pf, 0);
		ck_assert_ptr_nonnull(why);
		ck_assert_msg(strstr(why, "attr 0: ") == why && strstr(why, bits), "%s", why);
		ck_assert_ptr_null(pm_file_attr_layout_error(pf, 1));
		while ((rc = pm_file_next(pf, &rec)) > 0) {
			if (rec.type != PM_RECORD_SAMPLE)
				continue;
			n++;
			ck_assert_int_eq(pm_file_sample(pf, &rec, &s), -PM_ERR_UNSUPPORTED);
			ck_assert_msg(strstr(pm_errmsg(), bits), "%s", pm_errmsg());
		}
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(n, 3);
		pm_file_close(pf);
		unlink(path);
		free(f.b);
	}
	{
		struct fb f = damaged_base(NULL);
		pm_file *pf = NULL;
		const char *path = fb_write(&f);

		ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
		ck_assert_ptr_null(pm_file_attr_layout_error(pf, 0));
		ck_assert_ptr_null(pm_file_attr_layout_error(NULL, 0));
		pm_file_close(pf);
		unlink(path);
		free(f.b);
	}
}
END_TEST

START_TEST(test_damage_feature_table)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	pm_file *pf = NULL;
	const char *path;
	uint64_t off;
	int rc;

	f.len = lo.feat_off + 8; /* the table is cut */
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	ck_assert_int_eq(pm_file_header_status(pf, &off), -PM_ERR_TRUNCATED);
	ck_assert_uint_eq(off, lo.feat_off);
	ck_assert_int_eq(pm_file_has_feature(pf, PM_FEAT_HOSTNAME), 0);
	ck_assert_int_eq(read_until_error(pf, &rc), 3);
	ck_assert_int_eq(rc, 0);
	pm_file_close(pf);
	unlink(path);
	free(f.b);
}
END_TEST

START_TEST(test_bad_magic)
{
	struct layout_out lo;
	struct fb f = damaged_base(&lo);
	pm_file *pf = NULL;
	const char *path;

	memcpy(f.b, "NOTPERF!", 8);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), -PM_ERR_FORMAT);
	unlink(path);
	free(f.b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* pipe mode through a descriptor */

static void fb_header_attr(struct fb *f, const struct pm_attr *a, uint64_t id)
{
	fb_hdr(f, PM_RECORD_HEADER_ATTR, 0, (uint16_t)(8 + PM_ATTR_SIZE_VER8 + 8));
	fb_attr(f, a, PM_ATTR_SIZE_VER8);
	fb_u64(f, id);
}

static void fb_event_update_name(struct fb *f, uint64_t id, const char *name)
{
	fb_hdr(f, PM_RECORD_EVENT_UPDATE, 0, 8 + 16 + 16);
	fb_u64(f, PM_EVENT_UPDATE_NAME);
	fb_u64(f, id);
	fb_room(f, 16);
	memset(f->b + f->len, 0, 16);
	memcpy(f->b + f->len, name, strlen(name));
	f->len += 16;
}

START_TEST(test_pipe_fd)
{
	struct fb f = { .be = _i != 0 };
	struct pm_attr a = basic_attr(ST_BASIC | PM_SAMPLE_IDENTIFIER);
	struct pm_file_record rec;
	struct pm_file_info info;
	struct pm_sample s;
	pm_file *pf;
	int p[2], rc, n = 0, ids[4];

	fb_mem(&f, f.be ? "2ELIFREP" : "PERFILE2", 8);
	fb_u64(&f, 16);
	fb_header_attr(&f, &a, 100);
	a.config = 2;
	fb_header_attr(&f, &a, 200);
	fb_event_update_name(&f, 100, "alpha");
	fb_event_update_name(&f, 200, "beta");
	/* HEADER_FEATURE HOSTNAME */
	fb_hdr(&f, PM_RECORD_HEADER_FEATURE, 0, 8 + 8 + 4 + 64);
	fb_u64(&f, PM_FEAT_HOSTNAME);
	fb_str(&f, "pipehost");
	/* ID_INDEX: idx is a per-event slot, it must not move id 200 to attr 0 */
	fb_hdr(&f, PM_RECORD_ID_INDEX, 0, 8 + 8 + 32);
	fb_u64(&f, 1);
	fb_u64(&f, 200); fb_u64(&f, 0); fb_u64(&f, 0); fb_u64(&f, 0);
	fb_sample(&f, ST_BASIC | PM_SAMPLE_IDENTIFIER, 200, 1, 1, 1, 30, 0, 1);
	fb_sample(&f, ST_BASIC | PM_SAMPLE_IDENTIFIER, 100, 2, 1, 1, 10, 0, 1);
	fb_sample(&f, ST_BASIC | PM_SAMPLE_IDENTIFIER, 200, 3, 1, 1, 20, 0, 1);
	ck_assert_uint_lt(f.len, 4096); /* fits in the pipe buffer */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], f.b, f.len), (ssize_t)f.len);
	close(p[1]);
	ck_assert_int_eq(pm_file_open_fd(&pf, p[0], NULL), 0);
	info.sz = sizeof(info);
	pm_file_get_info(pf, &info);
	ck_assert_int_eq(info.pipe_mode, 1);
	ck_assert_int_eq(info.big_endian, _i != 0);
	/* the metadata at the start of the stream is known right after open */
	ck_assert_uint_eq(pm_file_nr_attrs(pf), 2);
	ck_assert_str_eq(pm_file_event_name(pf, 0), "alpha");
	ck_assert_str_eq(pm_file_event_name(pf, 1), "beta");
	ck_assert_str_eq(pm_file_feature_string(pf, PM_FEAT_HOSTNAME), "pipehost");
	ck_assert_int_eq(pm_file_attr_of_id(pf, 200), 1);
	rec.sz = sizeof(rec);
	s.sz = sizeof(s);
	while ((rc = pm_file_next(pf, &rec)) > 0) {
		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(pm_file_sample(pf, &rec, &s), 0);
		ck_assert_int_lt(n, 3);
		ids[n++] = rec.attr_idx;
		ck_assert_uint_eq(s.time, (uint64_t)n * 10); /* time order */
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(ids[0], 0);
	ck_assert_int_eq(ids[1], 1);
	ck_assert_int_eq(ids[2], 1);
	pm_file_close(pf);
	close(p[0]);
	free(f.b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* a file much larger than the window, read in bounded memory, in rows */

/* 100000 samples (30000 with PM_TEST_LIGHT): either way many 64 KiB windows. */
static uint64_t n_many;

static void data_many(struct fb *f)
{
	for (uint64_t i = 0; i < n_many; i++) {
		fb_sample(f, ST_BASIC, 0, 0x1000 + i, 7, 8, 1000 + i, (uint32_t)(i & 3), i);
		if (i % 1000 == 999)
			fb_hdr(f, PM_RECORD_FINISHED_ROUND, 0, 8);
	}
}

/* The base columns these tests read, through the one bulk reader. */
struct brow {
	uint64_t time, ip, period;
	uint32_t tid, cpu;
	int32_t event;
};

static pm_columns *brow_reader(pm_file *pf, size_t *off, size_t noff)
{
	static const struct { const char *name; size_t off; } cols[] = {
		{ "time", offsetof(struct brow, time) }, { "ip", offsetof(struct brow, ip) },
		{ "period", offsetof(struct brow, period) }, { "tid", offsetof(struct brow, tid) },
		{ "cpu", offsetof(struct brow, cpu) }, { "event", offsetof(struct brow, event) },
	};
	pm_columns *c = NULL;

	ck_assert_int_eq(pm_columns_new_from_file(&c, pf, NULL), 0);
	ck_assert_uint_le(pm_columns_count(c), noff);
	for (size_t i = 0; i < noff; i++)
		off[i] = SIZE_MAX;
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		long k = pm_columns_index(c, cols[i].name);

		ck_assert_int_ge(k, 0);
		off[k] = cols[i].off;
	}
	return c;
}

START_TEST(test_stream_rows)
{
	struct fb f = { .be = _i != 0 };
	struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER8,
			    .ids = { 1 }, .nids = 1, .name = "e" };
	struct pm_file_opts o = { .sz = sizeof(o), .window_size = 64 << 10,
				  .reorder_max_bytes = 1 << 20 };
	static struct brow rows[1000];
	size_t off[64];
	pm_columns *c;
	pm_file *pf;
	const char *path;
	uint64_t total = 0, last = 0;
	size_t n;
	int rc;

	n_many = pm_test_scale(100000, 30000);
	fb_file(&f, &at, 1, data_many, NULL);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, &o), 0);
	c = brow_reader(pf, off, 64);
	do {
		rc = pm_columns_read_rows(c, rows, sizeof(rows[0]), off, 64, 1000, &n);
		ck_assert_int_eq(rc, 0);
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(rows[i].ip, 0x1000 + total);
			ck_assert_uint_eq(rows[i].period, total);
			ck_assert_uint_eq(rows[i].cpu, total & 3);
			ck_assert_uint_eq(rows[i].tid, 8);
			ck_assert_int_eq(rows[i].event, 0);
			ck_assert_uint_ge(rows[i].time, last);
			last = rows[i].time;
			total++;
		}
	} while (n == 1000);
	ck_assert_uint_eq(total, n_many);
	/* the end: 0 rows, no error */
	ck_assert_int_eq(pm_columns_read_rows(c, rows, sizeof(rows[0]), off, 64, 1000, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(pm_columns_skipped(c), 0);
	pm_columns_free(c);
	pm_file_close(pf);
	unlink(path);
	free(f.b);
}
END_TEST

/* A SAMPLE longer than its layout accounts for: pm_file_sample() refuses it,
 * and the bulk reader skips (and counts) it on its direct path and on its
 * general one alike, giving the rows of the samples around it. */
static void data_long(struct fb *f)
{
	size_t at;

	fb_sample(f, ST_BASIC, 0, 0x10, 7, 8, 100, 0, 1);
	at = f->len;
	fb_sample(f, ST_BASIC, 0, 0x20, 7, 8, 200, 0, 2);
	fb_u64(f, 0xdeadbeef);
	pm__st16(f->b + at + 6, (uint16_t)(f->len - at), f->be);
	fb_sample(f, ST_BASIC, 0, 0x30, 7, 8, 300, 0, 3);
}

START_TEST(test_long_sample)
{
	struct fb f = { .be = _i != 0 };
	struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER8,
			    .ids = { 1 }, .nids = 1, .name = "e" };
	struct pm_file_record rec = { .sz = sizeof(rec) };
	const char *path;
	pm_file *pf;
	int bad = 0, good = 0;

	fb_file(&f, &at, 1, data_long, NULL);
	path = fb_write(&f);
	ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
	while (pm_file_next(pf, &rec) == 1) {
		struct pm_sample s = { .sz = sizeof(s) };

		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		if (pm_file_sample(pf, &rec, &s) == 0)
			good++;
		else
			bad++;
	}
	ck_assert_int_eq(good, 2);
	ck_assert_int_eq(bad, 1);
	pm_file_close(pf);
	for (int record_columns = 0; record_columns < 2; record_columns++) {
		struct pm_columns_opts o = { .sz = sizeof(o), .event = -1,
					     .record_columns = record_columns };
		uint64_t ip[4] = { 0 };
		void *bufs[32] = { 0 };
		pm_columns *c;
		size_t n;

		ck_assert_int_eq(pm_file_open(&pf, path, NULL), 0);
		ck_assert_int_eq(pm_columns_new_from_file(&c, pf, &o), 0);
		bufs[pm_columns_index(c, "ip")] = ip;
		if (record_columns) { /* misc: a record column (the header's misc) */
			static uint32_t misc[4];

			bufs[pm_columns_index(c, "misc")] = misc;
		}
		ck_assert_int_eq(pm_columns_read(c, bufs, pm_columns_count(c), 4, &n), 0);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(ip[0], 0x10);
		ck_assert_uint_eq(ip[1], 0x30);
		ck_assert_uint_eq(pm_columns_skipped(c), 1);
		pm_columns_free(c);
		pm_file_close(pf);
	}
	unlink(path);
	free(f.b);
}
END_TEST

/* Rounds of two or three interleaved time runs (as from several CPU rings)
 * over many 64 KiB windows: queued records are copied out of a read buffer
 * before it is reused; every record must come out whole and in time order.
 * _i = 0: regular file; 1: a pipe-mode stream through a pipe. */
static void data_runs(struct fb *f)
{
	uint64_t nrounds = pm_test_scale(120, 40);

	for (uint64_t r = 0; r < nrounds; r++) {
		uint64_t base = 1000000 + r * 10000, nstreams = 2 + r % 2;

		for (uint64_t st = 0; st < nstreams; st++)
			for (uint64_t j = 0; j < 1000; j++) {
				uint64_t t = base + j * nstreams + st;

				fb_sample(f, ST_BASIC, 0, 0x100000 + t, 7, 8, t, (uint32_t)st, 3 * t);
			}
		fb_hdr(f, PM_RECORD_FINISHED_ROUND, 0, 8);
	}
}

START_TEST(test_stream_runs)
{
	struct fb f = { 0 };
	struct fattr at = { .attr = basic_attr(ST_BASIC), .size = PM_ATTR_SIZE_VER8,
			    .ids = { 1 }, .nids = 1, .name = "e" };
	struct pm_file_opts o = { .sz = sizeof(o), .window_size = 64 << 10 };
	static struct brow rows[777];
	size_t coff[64];
	pm_columns *c;
	uint64_t total = 0, last = 0, want = 0;
	pm_file *pf;
	const char *path;
	pid_t child = -1;
	size_t n;
	int rc, fd = -1;

	if (_i == 0) {
		fb_file(&f, &at, 1, data_runs, NULL);
	} else {
		fb_mem(&f, "PERFILE2", 8);
		fb_u64(&f, 16);
		fb_header_attr(&f, &at.attr, 1);
		data_runs(&f);
	}
	path = fb_write(&f);
	for (uint64_t r = 0; r < pm_test_scale(120, 40); r++)
		want += 1000 * (2 + r % 2);
	if (_i == 0) {
		ck_assert_int_eq(pm_file_open(&pf, path, &o), 0);
	} else {
		int p[2];

		ck_assert_int_eq(pipe(p), 0);
		child = fork();
		ck_assert_int_ge(child, 0);
		if (child == 0) {
			size_t off = 0;

			close(p[0]);
			while (off < f.len) {
				ssize_t w = write(p[1], f.b + off, f.len - off);

				if (w <= 0)
					_exit(1);
				off += (size_t)w;
			}
			_exit(0);
		}
		close(p[1]);
		fd = p[0];
		ck_assert_int_eq(pm_file_open_fd(&pf, fd, &o), 0);
	}
	c = brow_reader(pf, coff, 64);
	do {
		rc = pm_columns_read_rows(c, rows, sizeof(rows[0]), coff, 64, 777, &n);
		ck_assert_int_eq(rc, 0);
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_gt(rows[i].time, last);
			last = rows[i].time;
			ck_assert_uint_eq(rows[i].ip, 0x100000 + last);
			ck_assert_uint_eq(rows[i].period, 3 * last);
			ck_assert_uint_eq(rows[i].tid, 8);
			total++;
		}
	} while (n == 777);
	ck_assert_uint_eq(total, want);
	pm_columns_free(c);
	pm_file_close(pf);
	if (child > 0) {
		int st;

		close(fd);
		ck_assert_int_eq(waitpid(child, &st, 0), child);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	unlink(path);
	free(f.b);
}
END_TEST


/* Rounds of three runs (as from three CPU rings) whose time stamps tie, in
 * threes within a run and across the runs: time order is the file's
 * records stably sorted by time (the earlier run first on a tie; the rounds
 * do not overlap in time).  ip names each record (round, run, index).
 * _i bit 0: IP|TID|TIME (32-byte records, kept in their queue entry) or
 * ST_BASIC (48 bytes, pointing into the window or copied out of it); bit 1:
 * pm_file_next() + pm_file_sample() instead of the bulk reader. */
static uint64_t ties_st;

static void data_ties(struct fb *f)
{
	uint64_t nrounds = pm_test_scale(60, 20);

	for (uint64_t r = 0; r < nrounds; r++)
		for (uint64_t st = 0; st < 3; st++) {
			for (uint64_t j = 0; j < 600; j++) {
				uint64_t t = 1000000 + r * 10000 + (j / 3) * 2 + (st == 2);

				fb_sample(f, ties_st, 0, r << 20 | st << 16 | j, 7, 8, t, 0, 1);
			}
			if (st == 1)
				fb_hdr(f, PM_RECORD_FINISHED_ROUND, 0, 8);
		}
}

struct tie_rec {
	uint64_t time, ip;
	size_t pos; /* in the file */
};

static int tie_cmp(const void *a, const void *b)
{
	const struct tie_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

START_TEST(test_stream_ties)
{
	struct fb f = { 0 };
	struct fattr at = { .size = PM_ATTR_SIZE_VER8, .ids = { 1 }, .nids = 1, .name = "e" };
	struct pm_file_opts o = { .sz = sizeof(o), .window_size = 64 << 10 };
	uint64_t nrounds = pm_test_scale(60, 20);
	size_t want = nrounds * 3 * 600, got = 0;
	struct tie_rec *exp = malloc(want * sizeof(*exp));
	const char *path;
	pm_file *pf;

	ck_assert_ptr_nonnull(exp);
	ties_st = _i & 1 ? ST_BASIC : PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME;
	at.attr = basic_attr(ties_st);
	fb_file(&f, &at, 1, data_ties, NULL);
	path = fb_write(&f);
	/* the expected order, from the generator's rule */
	for (uint64_t r = 0, k = 0; r < nrounds; r++)
		for (uint64_t st = 0; st < 3; st++)
			for (uint64_t j = 0; j < 600; j++, k++)
				exp[k] = (struct tie_rec){ 1000000 + r * 10000 + (j / 3) * 2 + (st == 2),
							   r << 20 | st << 16 | j, (size_t)k };
	qsort(exp, want, sizeof(*exp), tie_cmp);
	ck_assert_int_eq(pm_file_open(&pf, path, &o), 0);
	if (_i & 2) {
		struct pm_file_record rec = { .sz = sizeof(rec) };
		struct pm_sample s = { .sz = sizeof(s) };
		int rc;

		while ((rc = pm_file_next(pf, &rec)) > 0) {
			if (rec.type != PM_RECORD_SAMPLE)
				continue;
			ck_assert_int_eq(pm_file_sample(pf, &rec, &s), 0);
			ck_assert_uint_lt(got, want);
			ck_assert_uint_eq(s.time, exp[got].time);
			ck_assert_uint_eq(s.ip, exp[got].ip);
			got++;
		}
		ck_assert_int_eq(rc, 0);
	} else {
		static struct brow rows[500];
		size_t coff[64], n;
		pm_columns *c = brow_reader(pf, coff, 64);

		do {
			ck_assert_int_eq(pm_columns_read_rows(c, rows, sizeof(rows[0]), coff, 64, 500, &n), 0);
			for (size_t i = 0; i < n; i++, got++) {
				ck_assert_uint_lt(got, want);
				ck_assert_uint_eq(rows[i].time, exp[got].time);
				ck_assert_uint_eq(rows[i].ip, exp[got].ip);
				ck_assert_uint_eq(rows[i].tid, 8);
			}
		} while (n == 500);
		pm_columns_free(c);
	}
	ck_assert_uint_eq(got, want);
	pm_file_close(pf);
	unlink(path);
	free(exp);
	free(f.b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tracing data: formats from the file, fields, damage */

static const char tp_fmt_a[] =
	"name: alpha\nID: 60001\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:short s;\toffset:8;\tsize:2;\tsigned:1;\n"
	"\tfield:char name[6];\toffset:10;\tsize:6;\tsigned:0;\n"
	"\tfield:__data_loc char[] str;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u16 arr[2];\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"s=%d\", REC->s\n";
static const char tp_fmt_b[] =
	"name: beta\nID: 60002\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	"\tfield:long v;\toffset:8;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"v=%ld\", REC->v\n";

/* tracing data with the two formats; cut: bytes dropped from its end */
static void fb_tracing(struct fb *f, size_t cut)
{
	size_t start = f->len;

	fb_mem(f, "\027\010\104tracing0.6", 14);
	fb_room(f, 1); f->b[f->len++] = f->be;
	fb_room(f, 1); f->b[f->len++] = 8;
	fb_u32(f, 4096);
	fb_mem(f, "header_page", 12); fb_u64(f, 3); fb_mem(f, "hp\n", 3);
	fb_mem(f, "header_event", 13); fb_u64(f, 3); fb_mem(f, "he\n", 3);
	fb_u32(f, 0);
	fb_u32(f, 1);
	fb_mem(f, "sysx", 5);
	fb_u32(f, 2);
	fb_u64(f, sizeof(tp_fmt_a) - 1); fb_mem(f, tp_fmt_a, sizeof(tp_fmt_a) - 1);
	fb_u64(f, sizeof(tp_fmt_b) - 1); fb_mem(f, tp_fmt_b, sizeof(tp_fmt_b) - 1);
	fb_u32(f, 0); /* kallsyms */
	fb_u32(f, 4); fb_mem(f, "pk\n\0", 4);
	fb_u64(f, 6); fb_mem(f, "1 sh\n\0", 6);
	f->len -= cut;
	(void)start;
}

START_TEST(test_tracing_formats)
{
	/* _i: bit 0 big endian, bit 1 tracing data cut inside the second format */
	struct fb f = { .be = (_i & 1) != 0 };
	bool cut = _i & 2;
	struct pm_attr a = basic_attr(ST_BASIC | PM_SAMPLE_IDENTIFIER | PM_SAMPLE_RAW);
	struct pm_file_record rec;
	struct pm_sample sm;
	struct pm_tp_field fd;
	struct pm_tp_value v;
	const char *ver, *sys, *name;
	uint64_t id;
	size_t nf, tstart, tlen;
	pm_file *pf;
	char js[512];
	int rc, fi;

	a.type = PM_TYPE_TRACEPOINT;
	a.config = 60001;
	fb_mem(&f, f.be ? "2ELIFREP" : "PERFILE2", 8);
	fb_u64(&f, 16);
	fb_header_attr(&f, &a, 7);
	a.config = 60002;
	fb_header_attr(&f, &a, 8);
	/* record 66: header, u32 size, the data padded to 8 */
	fb_hdr(&f, PM_RECORD_HEADER_TRACING_DATA, 0, 12);
	fb_u32(&f, 0);
	tstart = f.len;
	fb_tracing(&f, cut ? sizeof(tp_fmt_b) : 0);
	tlen = f.len - tstart;
	fb_zero(&f, -tlen & 7);
	pm__st32(f.b + tstart - 4, (uint32_t)((tlen + 7) & ~(size_t)7), f.be);
	/* a sample of alpha: s=-2, name "ab", str "hello", arr {1, 65535} */
	{
		uint8_t raw[36];

		memset(raw, 0, sizeof(raw));
		pm__st16(raw, 1, f.be);
		pm__st16(raw + 8, 0xfffe, f.be);
		memcpy(raw + 10, "ab", 2);
		pm__st32(raw + 16, 6u << 16 | 24, f.be);
		pm__st16(raw + 20, 1, f.be);
		pm__st16(raw + 22, 0xffff, f.be);
		memcpy(raw + 24, "hello", 6);
		fb_hdr(&f, PM_RECORD_SAMPLE, 2, (uint16_t)(8 + 6 * 8 + 4 + 36));
		fb_u64(&f, 7);
		fb_u64(&f, 0x1000);
		fb_u32(&f, 1); fb_u32(&f, 1);
		fb_u64(&f, 100);
		fb_u32(&f, 0); fb_u32(&f, 0);
		fb_u64(&f, 1);
		fb_u32(&f, 36);
		fb_mem(&f, raw, 36);
	}
	ck_assert_int_eq(pm_file_open(&pf, fb_write(&f), NULL), 0);
	rec.sz = sizeof(rec);
	ck_assert_int_eq(pm_file_next(pf, &rec), 1); /* the metadata records come out too */
	while (rec.type != PM_RECORD_SAMPLE)
		ck_assert_int_eq(pm_file_next(pf, &rec), 1);
	ck_assert_int_eq(pm_file_tracing_info(pf, &ver, NULL, NULL, NULL), 0);
	ck_assert_str_eq(ver, "0.6");
	ck_assert_str_eq(pm_file_event_name(pf, 0), "sysx:alpha");
	if (cut) {
		/* the second format is cut: it names nothing, the damage names its offset */
		ck_assert_str_eq(pm_file_event_name(pf, 1), "tracepoint:60002");
		ck_assert_uint_eq(pm_file_nr_tp_formats(pf), 1);
		ck_assert_ptr_nonnull(pm_file_tracing_error(pf));
		ck_assert_ptr_nonnull(strstr(pm_file_tracing_error(pf), "cut short"));
		ck_assert_ptr_nonnull(strstr(pm_file_tracing_error(pf), "offset"));
	} else {
		size_t len;

		ck_assert_str_eq(pm_file_event_name(pf, 1), "sysx:beta");
		ck_assert_ptr_null(pm_file_tracing_error(pf));
		ck_assert_str_eq(pm_file_tracing_text(pf, 4, &len), "1 sh\n");
		ck_assert_str_eq(pm_file_tp_print_fmt(pf, 1), "\"v=%ld\", REC->v");
	}
	fi = pm_file_tp_format_of_attr(pf, 0);
	ck_assert_int_eq(fi, 0);
	ck_assert_int_eq(pm_file_tp_format(pf, 0, &id, &sys, &name, &nf), 0);
	ck_assert_uint_eq(id, 60001);
	ck_assert_str_eq(sys, "sysx");
	ck_assert_uint_eq(nf, 6);
	fd.sz = sizeof(fd);
	ck_assert_int_eq(pm_file_tp_field(pf, 0, 1, &fd), 0);
	ck_assert_str_eq(fd.name, "common_pid");
	ck_assert_uint_eq(fd.flags, PM_TP_FIELD_SIGNED | PM_TP_FIELD_COMMON);
	ck_assert_int_eq(pm_file_tp_field(pf, 0, 3, &fd), 0);
	ck_assert_str_eq(fd.name, "name");
	ck_assert_uint_eq(fd.array_len, 6);
	ck_assert_uint_eq(fd.flags, PM_TP_FIELD_ARRAY | PM_TP_FIELD_STRING);
	ck_assert_int_eq(pm_file_tp_field(pf, 0, 4, &fd), 0);
	ck_assert_str_eq(fd.type, "__data_loc char[]");
	ck_assert_uint_eq(fd.flags, PM_TP_FIELD_ARRAY | PM_TP_FIELD_DYNAMIC | PM_TP_FIELD_STRING);
	ck_assert_int_eq(pm_file_tp_field(pf, 0, 5, &fd), 0);
	ck_assert_uint_eq(fd.elem_size, 2);
	ck_assert_int_eq(pm_file_tp_field(pf, 0, 6, &fd), -ENOENT);
	sm.sz = sizeof(sm);
	ck_assert_int_eq(pm_file_sample(pf, &rec, &sm), 0);
	ck_assert_uint_eq(sm.raw.size, 36);
	v.sz = sizeof(v);
	ck_assert_int_eq(pm_file_tp_value(pf, 0, 2, sm.raw.data, sm.raw.size, &v), 0);
	ck_assert_int_eq(v.kind, PM_TP_VALUE_INT);
	ck_assert_int_eq(v.i, -2);
	ck_assert_int_eq(pm_file_tp_value(pf, 0, 5, sm.raw.data, sm.raw.size, &v), 0);
	ck_assert_int_eq(v.kind, PM_TP_VALUE_ARRAY);
	ck_assert_uint_eq(v.nelem, 2);
	ck_assert_uint_eq(pm_tp_value_elem(&v, 1), 65535);
	rc = pm_file_tp_format_json(pf, 0, sm.raw.data, sm.raw.size, js, sizeof(js));
	ck_assert_int_gt(rc, 0);
	ck_assert_str_eq(js, "{\"s\":-2,\"name\":\"ab\",\"str\":\"hello\",\"arr\":[1,65535]}");
	/* a __data_loc past the payload: an error, and null in JSON */
	ck_assert_int_eq(pm_file_tp_value(pf, 0, 4, sm.raw.data, 26, &v), -PM_ERR_TRUNCATED);
	rc = pm_file_tp_format_json(pf, 0, sm.raw.data, 26, js, sizeof(js));
	ck_assert_str_eq(js, "{\"s\":-2,\"name\":\"ab\",\"str\":null,\"arr\":[1,65535]}");
	pm_file_close(pf);
	unlink(tmpl);
	free(f.b);
}
END_TEST

/* A pipe stream whose last record is cut (_i 0) or has junk after it (_i 1):
 * the records before it, 0 at the end, pm_file_end_status() names the
 * offset; strict: the error. */
START_TEST(test_pipe_tail)
{
	struct fb f = { .be = false };
	struct pm_attr a = basic_attr(ST_BASIC | PM_SAMPLE_IDENTIFIER);
	struct pm_file_opts o = { .sz = sizeof(o) };
	struct pm_file_record rec;
	const char *msg;
	uint64_t off, bad;
	pm_file *pf;
	int n, rc;

	fb_mem(&f, "PERFILE2", 8);
	fb_u64(&f, 16);
	fb_header_attr(&f, &a, 100);
	for (int i = 0; i < 3; i++)
		fb_sample(&f, ST_BASIC | PM_SAMPLE_IDENTIFIER, 100, 0x1000 + i, 1, 1, 10 + i, 0, 1);
	bad = f.len;
	if (_i == 0) {
		fb_sample(&f, ST_BASIC | PM_SAMPLE_IDENTIFIER, 100, 0x2000, 1, 1, 20, 0, 1);
		f.len -= 3;
	} else {
		fb_zero(&f, 12);
	}
	for (int strict = 0; strict < 2; strict++) {
		o.strict = strict;
		ck_assert_int_eq(pm_file_open(&pf, fb_write(&f), &o), 0);
		rec.sz = sizeof(rec);
		n = 0;
		while ((rc = pm_file_next(pf, &rec)) > 0)
			n += rec.type == PM_RECORD_SAMPLE;
		ck_assert_int_eq(n, 3);
		if (strict) {
			ck_assert_int_eq(rc, _i == 0 ? -PM_ERR_TRUNCATED : -PM_ERR_CORRUPT);
			ck_assert_uint_eq(pm_file_error_offset(pf), bad);
			ck_assert_int_eq(pm_file_end_status(pf, &off, &msg), 0);
			ck_assert_ptr_null(msg);
		} else {
			ck_assert_int_eq(rc, 0);
			ck_assert_int_eq(pm_file_next(pf, &rec), 0);
			ck_assert_int_eq(pm_file_end_status(pf, &off, &msg),
					 _i == 0 ? -PM_ERR_TRUNCATED : -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, bad);
			ck_assert_ptr_nonnull(strstr(msg, "offset"));
			ck_assert_uint_eq(pm_file_error_offset(pf), UINT64_MAX);
		}
		pm_file_close(pf);
		unlink(tmpl);
	}
	free(f.b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the chunk index (lib/file/chunks.c): the parallel scan makes the index
 * the reader's scan makes, and the chunks give the whole file's samples */

#define CK_NSAMP 120000

/* a record of the chunk test file: sample (IDENTIFIER IP TID TIME) or a
 * COMM of a name length that moves the next records' alignment */
static void ck_write_recs(pm_writer *w, bool be)
{
	uint8_t r[80];
	uint64_t t = 1000000;

	for (uint64_t i = 0; i < CK_NSAMP; i++) {
		/* two rings per round: times of the second ring start before the
		 * first one's end (out of order within the round) */
		uint64_t ring = (i / 32) % 2, k = i % 32;
		uint64_t time = t + 2 * k + ring * 23;

		memset(r, 0, sizeof(r));
		pm__st32(r, PM_RECORD_SAMPLE, be);
		pm__st16(r + 6, 40, be);
		pm__st64(r + 8, 77, be);
		pm__st64(r + 16, 0x400000 + i, be);
		pm__st32(r + 24, 10, be);
		pm__st32(r + 28, 11, be);
		pm__st64(r + 32, time, be);
		ck_assert_int_eq(pm_writer_write(w, r, 40), 0);
		if (i % 97 == 0) {
			/* COMM: pid tid name (8 or 16 bytes) + TID TIME IDENTIFIER */
			size_t nl = i % 2 ? 8 : 16, sz = 8 + 8 + nl + 24;

			memset(r, 0, sizeof(r));
			pm__st32(r, PM_RECORD_COMM, be);
			pm__st16(r + 6, (uint16_t)sz, be);
			pm__st32(r + 8, 10, be);
			pm__st32(r + 12, 11, be);
			memcpy(r + 16, "worker-number-7", nl - 1);
			pm__st32(r + 16 + nl, 10, be);
			pm__st32(r + 20 + nl, 11, be);
			pm__st64(r + 24 + nl, time, be);
			pm__st64(r + 32 + nl, 77, be);
			ck_assert_int_eq(pm_writer_write(w, r, sz), 0);
		}
		if (k == 31 && ring == 1) {
			ck_assert_int_eq(pm_writer_finished_round(w), 0);
			t += 50; /* the next round starts before this one ends */
		}
	}
}

/* The sideband of the first index ck_chunks() made, to compare the others' with. */
static uint8_t *ck_sb;
static size_t ck_sb_len;

static size_t ck_chunks(pm_file *f, int how, int threads, struct pm_file_chunk *out, size_t cap)
{
	struct pm_chunk_index_opts o = { .sz = sizeof(o), .chunk_bytes = 512 << 10, .threads = threads };
	pm_chunk_index *idx = NULL;
	const void *sb;
	size_t n, len;

	ck_assert_int_eq(pm__chunk_index_new(&idx, f, &o, how, 4096), 0);
	n = pm_chunk_index_count(idx);
	ck_assert_uint_le(n, cap);
	for (size_t i = 0; i < n; i++) {
		out[i].sz = sizeof(out[i]);
		ck_assert_int_eq(pm_chunk_index_get(idx, i, &out[i]), 0);
	}
	/* every way of scanning keeps the same side records, in the same order */
	ck_assert_int_eq(pm_chunk_index_sideband(idx, &sb, &len), 0);
	if (!ck_sb) {
		ck_sb = malloc(len);
		ck_assert_ptr_nonnull(ck_sb);
		memcpy(ck_sb, sb, len);
		ck_sb_len = len;
	} else {
		ck_assert_uint_eq(len, ck_sb_len);
		ck_assert_mem_eq(sb, ck_sb, len);
	}
	pm_chunk_index_free(idx);
	return n;
}

START_TEST(test_chunk_index_parallel)
{
	char path[] = "/tmp/pm_chunks_XXXXXX";
	int fd = mkstemp(path);
	bool be = pm__host_big_endian();
	static struct pm_file_chunk ref[256], got[256];
	static uint64_t whole[CK_NSAMP], parts[CK_NSAMP];
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct pm_attr a;
	uint64_t id = 77;
	pm_writer *w = NULL;
	pm_file *f = NULL;
	size_t nref, nw = 0, np = 0;
	int rc;

	ck_assert_int_ge(fd, 0);
	close(fd);
	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.config = 1;
	a.sample_period = 1000;
	a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_IDENTIFIER;
	a.flags = PM_ATTR_SAMPLE_ID_ALL | PM_ATTR_COMM;
	ck_assert_int_eq(pm_writer_open(&w, path, NULL), 0);
	ck_assert_int_eq(pm_writer_add_attr(w, &a, "task-clock", &id, 1), 0);
	ck_assert_int_eq(pm_writer_begin(w), 0);
	{
		/* perf record writes an ID_INDEX first: {nr, {id, idx, cpu, tid}} (the
		 * windowed scan once stopped there and every real file took the
		 * reader's scan) */
		uint8_t r[48] = { 0 };

		pm__st32(r, PM_RECORD_ID_INDEX, be);
		pm__st16(r + 6, sizeof(r), be);
		pm__st64(r + 8, 1, be);
		pm__st64(r + 16, id, be);
		pm__st64(r + 40, 11, be);
		ck_assert_int_eq(pm_writer_write(w, r, sizeof(r)), 0);
	}
	ck_write_recs(w, be);
	ck_assert_int_eq(pm_writer_finish(w), 0);
	pm_writer_close(w);

	ck_assert_int_eq(pm_file_open(&f, path, NULL), 0);
	free(ck_sb);
	ck_sb = NULL;
	nref = ck_chunks(f, PMC_SCAN_READER, 1, ref, 256);
	ck_assert_uint_ge(nref, 6);
	/* the sideband: "PMSB", version 1, and one entry per COMM written
	 * (ck_write_recs(): one every 97 samples), each with its record's bytes */
	ck_assert_uint_ge(ck_sb_len, 32);
	ck_assert_mem_eq(ck_sb, "PMSB", 4);
	ck_assert_uint_eq(pm__ld32(ck_sb + 4, false), 1);
	ck_assert_uint_eq(pm__ld32(ck_sb + 12, false), (CK_NSAMP + 96) / 97);
	{
		const uint8_t *e = ck_sb + 32;
		uint64_t prev = 0;

		for (uint32_t i = 0; i < pm__ld32(ck_sb + 12, false); i++) {
			uint32_t size = pm__ld32(e + 28, false);

			ck_assert_uint_eq(pm__ld32(e + 32, be), PM_RECORD_COMM);
			ck_assert_uint_eq(pm__ld16(e + 38, be), size);
			ck_assert_uint_ge(pm__ld64(e, false), prev); /* in time order */
			prev = pm__ld64(e, false);
			e += 32 + ((size + 7u) & ~7u);
		}
		ck_assert_ptr_eq(e, ck_sb + ck_sb_len);
	}
	/* in one piece and in 2, 3, 7 pieces (each guessing where records start) */
	for (int t = 1; t <= 7; t += t < 3 ? 1 : 4) {
		ck_assert_uint_eq(ck_chunks(f, PMC_SCAN_WINDOWS, t, got, 256), nref);
		ck_assert_mem_eq(got, ref, nref * sizeof(ref[0]));
		ck_assert_uint_eq(ck_chunks(f, PMC_SCAN_AUTO, t, got, 256), nref);
		ck_assert_mem_eq(got, ref, nref * sizeof(ref[0]));
	}
	/* the chunks read from the overlap of the rounds before */
	ck_assert(ref[1].read_start < ref[1].start && (ref[1].flags & PM_CHUNK_TIME_WINDOW));
	while ((rc = pm_file_next(f, &rec)) > 0)
		if (rec.type == PM_RECORD_SAMPLE)
			whole[nw++] = rec.offset;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(nw, CK_NSAMP);
	pm_file_close(f);
	/* every chunk through its own pm_file: the whole file's samples, in its order */
	for (size_t i = 0; i < nref; i++) {
		ck_assert_int_eq(pm_file_open(&f, path, NULL), 0);
		ck_assert_int_eq(pm_file_select_chunk(f, &ref[i]), 0);
		while ((rc = pm_file_next(f, &rec)) > 0) {
			if (rec.type != PM_RECORD_SAMPLE)
				continue;
			ck_assert_uint_lt(np, CK_NSAMP);
			ck_assert(rec.time >= ref[i].time_lo && rec.time < ref[i].time_hi);
			parts[np++] = rec.offset;
		}
		ck_assert_int_eq(rc, 0);
		pm_file_close(f);
	}
	ck_assert_uint_eq(np, nw);
	ck_assert_mem_eq(parts, whole, nw * sizeof(whole[0]));
	/* windows of any times (not the index's cuts), tiling the time axis: the
	 * whole file's samples again, each window's in it, reading no more than
	 * the chunks it meets */
	{
		struct pm_chunk_index_opts o = { .sz = sizeof(o), .chunk_bytes = 512 << 10 };
		pm_chunk_index *idx = NULL;
		struct pm_file_chunk wc = { .sz = sizeof(wc) };
		uint64_t first, last, cut[8];
		size_t nc = 7;

		ck_assert_int_eq(pm_file_open(&f, path, NULL), 0);
		ck_assert_int_eq(pm_chunk_index_new_from_file(&idx, f, &o), 0);
		ck_assert_int_eq(pm_chunk_index_time_range(idx, &first, &last), 0);
		pm_file_close(f);
		cut[0] = 0;
		for (size_t i = 1; i < nc; i++)
			cut[i] = first + (last - first) / nc * i + 13 * i; /* off the index's cuts */
		cut[nc] = UINT64_MAX;
		np = 0;
		for (size_t i = 0; i < nc; i++) {
			ck_assert_int_eq(pm_chunk_index_window(idx, cut[i], cut[i + 1], &wc), 0);
			ck_assert(wc.time_lo == cut[i] && wc.time_hi == cut[i + 1]);
			ck_assert(wc.flags & PM_CHUNK_TIME_WINDOW);
			ck_assert_uint_le(wc.read_start, wc.start);
			ck_assert_int_eq(pm_file_open(&f, path, NULL), 0);
			ck_assert_int_eq(pm_file_select_chunk(f, &wc), 0);
			while ((rc = pm_file_next(f, &rec)) > 0) {
				if (rec.type != PM_RECORD_SAMPLE)
					continue;
				ck_assert_uint_lt(np, CK_NSAMP);
				ck_assert(rec.time >= cut[i] && rec.time < cut[i + 1]);
				parts[np++] = rec.offset;
			}
			ck_assert_int_eq(rc, 0);
			pm_file_close(f);
		}
		ck_assert_uint_eq(np, nw);
		ck_assert_mem_eq(parts, whole, nw * sizeof(whole[0]));
		ck_assert_int_eq(pm_chunk_index_window(idx, 5, 5, &wc), -EINVAL);
		ck_assert_int_eq(pm_chunk_index_window(idx, 0, 1, NULL), -EINVAL);
		pm_chunk_index_free(idx);
	}
	free(ck_sb);
	ck_sb = NULL;
	unlink(path);
}
END_TEST

static Suite *file_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("file");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_basic_both_orders, 0, 2);
	tcase_add_loop_test(tc, test_attr_sizes, 0, 22);
	tcase_add_loop_test(tc, test_multi_attr, 0, 4);
	tcase_add_test(tc, test_damage_short_header);
	tcase_add_test(tc, test_damage_attr_size_zero);
	tcase_add_test(tc, test_damage_record_size_zero);
	tcase_add_test(tc, test_damage_record_past_end);
	tcase_add_test(tc, test_damage_feature_table);
	tcase_add_test(tc, test_damage_cut_at_record_boundary);
	tcase_add_test(tc, test_data_size_zero);
	tcase_add_test(tc, test_unknown_layout_bits);
	tcase_add_test(tc, test_bad_magic);
	tcase_add_loop_test(tc, test_pipe_fd, 0, 2);
	tcase_add_loop_test(tc, test_stream_rows, 0, 2);
	tcase_add_loop_test(tc, test_long_sample, 0, 2);
	tcase_add_loop_test(tc, test_stream_runs, 0, 2);
	tcase_add_loop_test(tc, test_stream_ties, 0, 4);
	tcase_add_loop_test(tc, test_tracing_formats, 0, 4);
	tcase_add_loop_test(tc, test_pipe_tail, 0, 2);
	tcase_add_test(tc, test_chunk_index_parallel);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(file_suite)
