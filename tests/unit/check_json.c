/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* JSON export (profileme/export.h): the escaper, snprintf-like buffers, a
 * hand-built sample and record against JSON written out by hand, and every
 * sample of a bundled recording measured, written and re-written. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <endian.h>
#include <string.h>

#include <profileme/profileme.h>

#include "pm_check.h"

#define SYNTH PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data"

static const char *esc(const char *s, size_t n)
{
	static char b[256];
	int k = pm_json_escape(s, n, b, sizeof(b));

	ck_assert_int_ge(k, 2);
	ck_assert_int_eq((int)strlen(b), k);
	return b;
}

START_TEST(test_escape)
{
	char b[8];

	ck_assert_str_eq(esc("plain", 5), "\"plain\"");
	ck_assert_str_eq(esc("", 0), "\"\"");
	ck_assert_str_eq(esc("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	ck_assert_str_eq(esc("\t\n\x01\x1f\x7f", 5), "\"\\u0009\\u000a\\u0001\\u001f\\u007f\"");
	ck_assert_str_eq(esc("nul\0x", 5), "\"nul\\u0000x\"");
	/* valid UTF-8 of 2, 3 and 4 bytes is copied */
	ck_assert_str_eq(esc("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
			 "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* not UTF-8: a lone continuation byte, 0xff, an overlong '/', a
	 * surrogate, a sequence cut short, past U+10FFFF */
	ck_assert_str_eq(esc("\x80", 1), "\"\\u0080\"");
	ck_assert_str_eq(esc("a\xff", 2), "\"a\\u00ff\"");
	ck_assert_str_eq(esc("\xc0\xaf", 2), "\"\\u00c0\\u00af\"");
	ck_assert_str_eq(esc("\xed\xa0\x80", 3), "\"\\u00ed\\u00a0\\u0080\"");
	ck_assert_str_eq(esc("\xe2\x82", 2), "\"\\u00e2\\u0082\"");
	ck_assert_str_eq(esc("\xf4\x90\x80\x80", 4), "\"\\u00f4\\u0090\\u0080\\u0080\"");
	ck_assert_str_eq(esc("\xe0\x80\x80", 3), "\"\\u00e0\\u0080\\u0080\"");
	/* snprintf-like: measure, truncate with a NUL, never past cap */
	ck_assert_int_eq(pm_json_escape("a\tb", 3, NULL, 0), 10);
	memset(b, 'Z', sizeof(b));
	ck_assert_int_eq(pm_json_escape("a\tb", 3, b, 5), 10);
	ck_assert_str_eq(b, "\"a\\u");
	ck_assert_int_eq(b[5], 'Z');
	ck_assert_int_eq(pm_json_escape(NULL, 1, b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(pm_json_escape("x", 1, NULL, 4), -EINVAL);
	ck_assert_int_eq(pm_json_escape(NULL, 0, b, sizeof(b)), 2);
	ck_assert_str_eq(b, "\"\"");
}
END_TEST

START_TEST(test_sample_by_hand)
{
	/* sample_type IP|TID|TIME|ADDR|CPU|PERIOD|CALLCHAIN, little endian */
	uint64_t rec[16];
	pm_sample_layout *lay = NULL;
	struct pm_attr a;
	struct pm_sample s = { .sz = sizeof(s) };
	struct pm_json_opts o = { .sz = sizeof(o) };
	char buf[1024];
	int n;

	memset(&a, 0, sizeof(a));
	a.size = 128;
	a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_ADDR | PM_SAMPLE_CPU |
			PM_SAMPLE_PERIOD | PM_SAMPLE_CALLCHAIN;
	ck_assert_int_eq(pm_sample_layout_new(&lay, &a), 0);
	memset(rec, 0, sizeof(rec));
	rec[0] = (uint64_t)PM_RECORD_SAMPLE | (uint64_t)PM_RECORD_MISC_USER << 32 | (uint64_t)(11 * 8) << 48;
	rec[1] = 0xffffffff81000010ULL;                 /* ip */
	rec[2] = (uint64_t)0xfffffffeu << 32 | 42;      /* pid 42, tid -2 */
	rec[3] = 1234567890123ULL;                      /* time */
	rec[4] = 0xdead0;                               /* addr */
	rec[5] = 3;                                     /* cpu 3, res 0 */
	rec[6] = 100000;                                /* period */
	rec[7] = 3;                                     /* callchain nr */
	rec[8] = (uint64_t)-128;                        /* PERF_CONTEXT_USER: left out */
	rec[9] = 0x401000;
	rec[10] = 0x401234;
	/* the words in the recording's (little-endian) byte order, whatever
	 * the host's (s390x) */
	for (size_t i = 0; i < 11; i++)
		rec[i] = htole64(rec[i]);
	ck_assert_int_eq(pm_sample_parse(&s, lay, rec, 11 * 8, 0, NULL), 0);

	o.comm = "w\"x";
	o.flags = PM_JSON_TYPE | PM_JSON_SYM;
	o.sym = "main";
	o.symoff = 16;
	o.event = "cycles";
	n = pm_json_sample(NULL, -1, &s, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"type\":\"SAMPLE\",\"event\":\"cycles\",\"pid\":42,\"tid\":-2,"
			      "\"comm\":\"w\\\"x\",\"time\":1234567890123,\"cpu\":3,\"period\":100000,"
			      "\"ip\":\"0xffffffff81000010\",\"sym\":\"main\",\"symoff\":16,"
			      "\"dso\":\"[unknown]\",\"addr\":\"0xdead0\","
			      "\"callchain\":[\"0x401000\",\"0x401234\"]}");
	ck_assert_int_eq(n, (int)strlen(buf));
	/* defaults: no event name, no comm */
	n = pm_json_sample(NULL, -1, &s, NULL, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(buf, "{\"event\":\"[unknown]\",\"pid\":42,\"tid\":-2,\"comm\":\":\","));
	n = pm_json_sample(NULL, 7, &s, NULL, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "{\"event\":\"unknown-7\","));
	/* every truncation: the same length, a NUL at cap - 1, the prefix */
	{
		char full[1024], t[1024];
		int len = pm_json_sample(NULL, -1, &s, &o, full, sizeof(full));

		for (size_t cap = 1; cap <= (size_t)len + 1; cap++) {
			memset(t, 'Z', sizeof(t));
			ck_assert_int_eq(pm_json_sample(NULL, -1, &s, &o, t, cap), len);
			ck_assert_int_eq(t[cap - 1], 0);
			ck_assert_int_eq(t[cap], 'Z');
			ck_assert_int_eq(memcmp(t, full, cap - 1), 0);
		}
		ck_assert_int_eq(pm_json_sample(NULL, -1, &s, &o, NULL, 0), len);
	}
	/* bad arguments and sizes */
	ck_assert_int_eq(pm_json_sample(NULL, -1, NULL, NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pm_json_sample(NULL, -1, &s, NULL, NULL, 5), -EINVAL);
	o.sz = 3;
	ck_assert_int_eq(pm_json_sample(NULL, -1, &s, &o, buf, sizeof(buf)), -PM_ERR_STRUCT_SIZE);
	o.sz = PM_JSON_OPTS_SZ_V1;
	ck_assert_int_gt(pm_json_sample(NULL, -1, &s, &o, buf, sizeof(buf)), 0);
	pm_sample_layout_free(lay);
}
END_TEST

START_TEST(test_record_by_hand)
{
	/* a COMM record: pid, tid, "bash" */
	uint8_t data[8 + 8 + 8];
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct pm_record r = { .sz = sizeof(r) };
	char buf[512];

	memset(data, 0, sizeof(data));
	data[0] = PM_RECORD_COMM;
	data[6] = sizeof(data);
	data[8] = 7;   /* pid */
	data[12] = 8;  /* tid */
	memcpy(data + 16, "ba\tsh", 5);
	ck_assert_int_eq(pm_record_parse(&r, NULL, data, sizeof(data), 0, NULL), 0);
	rec.type = PM_RECORD_COMM;
	rec.size = sizeof(data);
	rec.misc = 0x2000;
	rec.offset = 4096;
	rec.attr_idx = -1;
	rec.data = data;
	ck_assert_int_gt(pm_json_record(NULL, &rec, &r, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "{\"type\":\"COMM\",\"offset\":4096,\"size\":24,\"misc\":8192,"
			      "\"pid\":7,\"tid\":8,\"comm\":\"ba\\u0009sh\"}");
	/* not parsed: the header keys only */
	ck_assert_int_gt(pm_json_record(NULL, &rec, NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "{\"type\":\"COMM\",\"offset\":4096,\"size\":24,\"misc\":8192}");
	rec.type = 4000;
	ck_assert_int_gt(pm_json_record(NULL, &rec, NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "{\"type\":\"UNKNOWN_4000\",\"offset\":4096,\"size\":24,\"misc\":8192}");
	ck_assert_int_eq(pm_json_record(NULL, NULL, NULL, NULL, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/* Every sample of the bundled ProfileMe recording: the decoded payload
 * under "profileme" is pm_raw_format_json()'s text, the event the file's
 * name, and a measured length equals the written one. */
START_TEST(test_file_samples)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	pm_raw_ctx *ctx = NULL;
	pm_file *f;
	size_t n = 0, decoded = 0;

	ck_assert_int_eq(pm_file_open(&f, SYNTH, NULL), 0);
	ck_assert_int_eq(pm_raw_ctx_new_from_file(&ctx, f), 0);
	while (pm_file_next(f, &rec) == 1) {
		struct pm_sample s = { .sz = sizeof(s) };
		struct pm_json_opts o = { .sz = sizeof(o) };
		const struct pm_attr *a;
		char buf[8192], raw[4096], want[4200];
		int len, k;

		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(pm_file_sample(f, &rec, &s), 0);
		a = pm_file_attr(f, (size_t)rec.attr_idx);
		ck_assert_ptr_nonnull(a);
		o.raw_ctx = ctx;
		if (pm_raw_ctx_select(ctx, a, &o.raw_decoder) < 0)
			o.raw_decoder = NULL;
		len = pm_json_sample(f, rec.attr_idx, &s, &o, NULL, 0);
		ck_assert_int_gt(len, 0);
		ck_assert_int_lt(len, (int)sizeof(buf));
		ck_assert_int_eq(pm_json_sample(f, rec.attr_idx, &s, &o, buf, sizeof(buf)), len);
		ck_assert_int_eq((int)strlen(buf), len);
		snprintf(want, sizeof(want), "{\"event\":\"%s\",", pm_file_event_name(f, (size_t)rec.attr_idx));
		ck_assert_int_eq(strncmp(buf, want, strlen(want)), 0);
		if (o.raw_decoder && (k = pm_raw_format_json(o.raw_decoder, ctx, s.raw.data, s.raw.size,
							     raw, sizeof(raw))) > 0) {
			ck_assert_int_lt(k, (int)sizeof(raw));
			snprintf(want, sizeof(want), ",\"%s\":%s", pm_raw_decoder_key(o.raw_decoder), raw);
			ck_assert_ptr_nonnull(strstr(buf, want));
			decoded++;
		} else if (o.raw_decoder) {
			ck_assert_ptr_nonnull(strstr(buf, ",\"raw_error\":\""));
		}
		ck_assert_int_eq(buf[len - 1], '}');
		n++;
	}
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_gt(decoded, n / 2);
	pm_raw_ctx_free(ctx);
	pm_file_close(f);
}
END_TEST

/* pm_json_report_row(): rows written by hand, the text expected from
 * `profileme report --json`'s documented layout (docs/json.md). */
static void row_expect(const struct pm_report_row *row, const char *want)
{
	char buf[2048];
	int n = pm_json_report_row(row, buf, sizeof(buf));

	ck_assert_int_eq(n, (int)strlen(want));
	ck_assert_str_eq(buf, want);
	/* measured alone, and cut like snprintf */
	ck_assert_int_eq(pm_json_report_row(row, NULL, 0), n);
	ck_assert_int_eq(pm_json_report_row(row, buf, 10), n);
	ck_assert_uint_eq(strlen(buf), 9);
	ck_assert(!strncmp(buf, want, 9));
}

START_TEST(test_report_row_by_hand)
{
	static const int keys[] = { PM_REPORT_KEY_COMM, PM_REPORT_KEY_PID, PM_REPORT_KEY_DSO,
				    PM_REPORT_KEY_SYM, PM_REPORT_KEY_PC };
	static const char *const src_names[] = { "L1", "DRAM" };
	static const char *const pg_names[] = { "4K", "2M" };
	uint64_t src[2] = { 0, 0 }, pg[2] = { 0, 2 };
	uint64_t traps[PM_PROFILEME_TRAP_COUNT] = { 0 };
	struct pm_report_row row = { .sz = sizeof(row), .event = "cyc\"les", .samples = 3,
				     .period = 30, .event_period = 40, .keys = keys, .nr_keys = 5,
				     .sym = "f", .dso = NULL, .pc = 0x10, .comm = "a", .pid = 7 };
	struct pm_report_profileme pm = {
		.n = 4, .killed = 1, .stalled = 2, .trapped = 1, .icache_miss = 1, .traps = traps,
		.pctr0_counts = 0, .pctr1_counts = 1, .pctr1_mean = 2.5, .pctr1_min = 1,
		.pctr1_q1 = 1, .pctr1_median = 2, .pctr1_q3 = 3, .pctr1_max = 4, .skid = 1,
		.skid_samples = 2, .skid_mean = 1.5, .skid_max = 2,
	};
	struct pm_report_ibs fetch = {
		.n = 2, .exact = 2,
		.fetch_lat = { .n = 2, .mean = 10, .q1 = 5, .median = 10, .q3 = 15, .max = 20 },
		.fetch_completed = 2, .ic_miss = { 2, 1 }, .nr_page_size = 2, .page_size = pg,
		.page_size_names = pg_names,
	};
	struct pm_report_ibs op = {
		.op = 1, .n = 1, .exact = 1, .ops = 1, .loads = 1, .stores = 1, .dc_miss = 1,
		.nr_data_src = 2, .data_src = src, .data_src_names = src_names,
	};
	static const int bad_key[] = { 9 };
	char want[2048];

	row_expect(&row, "{\"event\":\"cyc\\\"les\",\"samples\":3,\"period\":30,\"overhead\":75.0000,"
			 "\"comm\":\"a\",\"pid\":7,\"dso\":null,\"sym\":\"f\",\"pc\":\"0x10\"}");
	/* no keys, no total period: overhead 0 */
	row.nr_keys = 0;
	row.event_period = 0;
	row.event = NULL;
	row_expect(&row, "{\"event\":null,\"samples\":3,\"period\":30,\"overhead\":0.0000}");
	traps[3] = 1;
	row.profileme = &pm;
	snprintf(want, sizeof(want),
		 "{\"event\":null,\"samples\":3,\"period\":30,\"overhead\":0.0000,"
		 "\"profileme\":4,\"not_killed\":3,\"killed\":1,\"stalled\":2,\"trapped\":1,"
		 "\"mispredicted\":0,\"pal_redirects\":0,\"stalled_pct\":50.0000,"
		 "\"trapped_pct\":25.0000,\"mispredicted_pct\":0.0000,\"icache_miss_pct\":25.0000,"
		 "\"traps\":{\"%s\":1},\"pctr0_counts\":\"%s\",\"pctr1_counts\":\"%s\","
		 "\"pctr1_mean\":2.5000,\"pctr1_min\":1,\"pctr1_q1\":1,\"pctr1_median\":2,"
		 "\"pctr1_q3\":3,\"pctr1_max\":4,\"skid_samples\":2,\"skid_mean\":1.5,\"skid_max\":2,"
		 "\"skid_undefined\":0}",
		 pm_profileme_trap_name(3), pm_profileme_counts_name(0), pm_profileme_counts_name(1));
	row_expect(&row, want);
	row.profileme = NULL;
	row.ibs = &fetch;
	row_expect(&row, "{\"event\":null,\"samples\":3,\"period\":30,\"overhead\":0.0000,"
			 "\"ibs_fetch\":2,\"exact\":2,\"inexact\":0,\"ip_differs\":0,"
			 "\"fetch_lat_mean\":10.0000,\"fetch_lat_q1\":5,\"fetch_lat_median\":10,"
			 "\"fetch_lat_q3\":15,\"fetch_lat_max\":20,\"fetch_completed\":2,\"ic_miss\":1,"
			 "\"ic_miss_pct\":50.0000,\"page_size\":{\"2M\":2}}");
	row.ibs = &op;
	row_expect(&row, "{\"event\":null,\"samples\":3,\"period\":30,\"overhead\":0.0000,"
			 "\"ibs_op\":1,\"exact\":1,\"inexact\":0,\"ip_differs\":0,\"ops\":1,"
			 "\"branches\":0,\"branch_taken\":0,\"branch_mispredicted\":0,"
			 "\"branch_taken_pct\":0.0000,\"branch_mispredicted_pct\":0.0000,\"loads\":1,"
			 "\"stores\":1,\"dc_miss\":1,\"dc_miss_pct\":50.0000,\"dtlb_l1_miss\":0,"
			 "\"dtlb_l2_miss\":0,\"data_src\":{}}");
	/* bad input */
	op.data_src = NULL;
	ck_assert_int_eq(pm_json_report_row(&row, want, sizeof(want)), -EINVAL);
	row.ibs = NULL;
	row.keys = bad_key;
	row.nr_keys = 1;
	ck_assert_int_eq(pm_json_report_row(&row, want, sizeof(want)), -EINVAL);
	row.keys = NULL;
	ck_assert_int_eq(pm_json_report_row(&row, want, sizeof(want)), -EINVAL);
	ck_assert_int_eq(pm_json_report_row(NULL, want, sizeof(want)), -EINVAL);
	row.nr_keys = 0;
	row.sz = 4;
	ck_assert_int_eq(pm_json_report_row(&row, want, sizeof(want)), -PM_ERR_STRUCT_SIZE);
}
END_TEST

/* profileme/fmt.h against snprintf: every digit count (powers of 10 and of
 * 2, one below and above), fixed widths, and a run of pseudo-random values */
static void fmt_one(uint64_t v)
{
	char want[32], got[32];
	unsigned n;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, 'Z', sizeof(got));
	n = pm_fmt_dec(got, v);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_uint_eq(pm_fmt_dec_len(v), n);
	ck_assert_int_eq(got[n], 'Z');
	got[n] = 0;
	ck_assert_str_eq(got, want);
	snprintf(want, sizeof(want), "%" PRIx64, v);
	memset(got, 'Z', sizeof(got));
	n = pm_fmt_hex(got, v);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_uint_eq(pm_fmt_hex_len(v), n);
	ck_assert_int_eq(got[n], 'Z');
	got[n] = 0;
	ck_assert_str_eq(got, want);
	for (unsigned w = 0; w <= 20; w++) {
		uint64_t m = 1;

		for (unsigned k = 0; k < w && k < 19; k++)
			m *= 10;
		snprintf(want, sizeof(want), "%0*" PRIu64, (int)w, w >= 20 ? v : v % m);
		if (!w)
			want[0] = 0;
		memset(got, 'Z', sizeof(got));
		pm_fmt_dec_fixed(got, v, w);
		ck_assert_int_eq(got[w], 'Z');
		got[w] = 0;
		ck_assert_str_eq(got, want);
	}
}

START_TEST(test_fmt)
{
	uint64_t p = 1, x = 0x9e3779b97f4a7c15ULL;
	char b[40];

	fmt_one(0);
	fmt_one(UINT64_MAX);
	for (int i = 0; i < 20; i++, p *= 10) {
		fmt_one(p);
		fmt_one(p - 1);
		fmt_one(p + 1);
		if (i == 19)
			break;
	}
	for (int i = 0; i < 64; i++) {
		fmt_one(1ULL << i);
		fmt_one((1ULL << i) - 1);
		fmt_one((1ULL << i) + 1);
	}
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fmt_one(x);
		fmt_one(x >> (i % 64));
	}
	/* pm_fmt_copy: every short length, not one byte past */
	for (size_t n = 0; n <= 33; n++) {
		const char *src = "0123456789abcdefghijklmnopqrstuvwxyz";

		memset(b, 'Z', sizeof(b));
		pm_fmt_copy(b, src, n);
		ck_assert_int_eq(memcmp(b, src, n), 0);
		ck_assert_int_eq(b[n], 'Z');
	}
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_fmt);
	tcase_add_test(tc, test_sample_by_hand);
	tcase_add_test(tc, test_record_by_hand);
	tcase_add_test(tc, test_report_row_by_hand);
	tcase_add_test(tc, test_file_samples);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(json_suite)
