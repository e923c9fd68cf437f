/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"
#include "pm_check.h"

START_TEST(test_version)
{
	char buf[32];

	ck_assert_uint_eq(pm_version_number(), PM_VERSION_NUMBER);
	ck_assert_str_eq(pm_version_string(), PM_VERSION_STRING);
	snprintf(buf, sizeof(buf), "%d.%d.%d", PM_VERSION_MAJOR, PM_VERSION_MINOR, PM_VERSION_PATCH);
	ck_assert_str_eq(buf, PM_VERSION_STRING);
}
END_TEST

START_TEST(test_strerror)
{
	ck_assert_str_eq(pm_strerror(0), "Success");
	ck_assert_str_eq(pm_strerror(-ENOENT), "No such file or directory");
	ck_assert_str_eq(pm_strerror(ENOENT), "No such file or directory");
	for (int e = PM_ERR_FIRST + 1; e < PM_ERR_LAST; e++) {
		const char *s = pm_strerror(-e);
		ck_assert_ptr_nonnull(s);
		ck_assert_str_ne(s, "Unknown libprofileme error");
	}
	ck_assert_str_eq(pm_strerror(-PM_ERR_LAST), "Unknown libprofileme error");
	ck_assert_str_eq(pm_strerror(-99999), "Unknown libprofileme error");
	ck_assert_ptr_nonnull(strstr(pm_strerror(-1234), "Unknown error"));
	/* every errno value has its text, as the C library says it (issue 12:
	 * ELOOP was "Unknown error") */
	ck_assert_str_eq(pm_strerror(-ELOOP), "Too many levels of symbolic links");
	for (int e = 1; e < 134; e++) {
		const char *want = strerror(e);

		if (!strncmp(want, "Unknown error", 13))
			continue;
		ck_assert_msg(!strcmp(pm_strerror(-e), want), "errno %d: '%s', the C library says '%s'",
			      e, pm_strerror(-e), want);
	}
}
END_TEST

START_TEST(test_errmsg)
{
	int rc = pm__err(PM_ERR_FORMAT, "bad %s at %d", "thing", 7);

	ck_assert_int_eq(rc, -PM_ERR_FORMAT);
	ck_assert_str_eq(pm_errmsg(), "bad thing at 7");
	pm__err_clear();
	ck_assert_str_eq(pm_errmsg(), "");
}
END_TEST

static int log_calls;
static char log_last[128];
static void log_cb(int level, const char *msg, void *user)
{
	(void)user;
	log_calls += level + 1;
	snprintf(log_last, sizeof(log_last), "%s", msg);
}

START_TEST(test_log)
{
	ck_assert_ptr_null(pm_set_log(log_cb, NULL, PM_LOG_INFO));
	pm__log(PM_LOG_WARN, "w %d", 1);
	ck_assert_int_eq(log_calls, PM_LOG_WARN + 1);
	ck_assert_str_eq(log_last, "w 1");
	pm__log(PM_LOG_DEBUG, "dropped");
	ck_assert_int_eq(log_calls, PM_LOG_WARN + 1);
	ck_assert_ptr_eq(pm_set_log(NULL, NULL, 0), log_cb);
	pm__log(PM_LOG_ERROR, "silent");
	ck_assert_int_eq(log_calls, PM_LOG_WARN + 1);
}
END_TEST

START_TEST(test_byteorder)
{
	const unsigned char b[9] = { 0xff, 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned char o[8];

	/* deliberately unaligned */
	ck_assert_uint_eq(pm__ld16(b + 1, false), 0x0201);
	ck_assert_uint_eq(pm__ld16(b + 1, true), 0x0102);
	ck_assert_uint_eq(pm__ld32(b + 1, false), 0x04030201u);
	ck_assert_uint_eq(pm__ld32(b + 1, true), 0x01020304u);
	ck_assert_uint_eq(pm__ld64(b + 1, false), 0x0807060504030201ull);
	ck_assert_uint_eq(pm__ld64(b + 1, true), 0x0102030405060708ull);
	pm__st64(o, 0x0102030405060708ull, true);
	ck_assert_mem_eq(o, b + 1, 8);
	pm__st32(o, 0x04030201u, false);
	ck_assert_mem_eq(o, b + 1, 4);
	ck_assert(pm__fits(0, 8, 8));
	ck_assert(!pm__fits(1, 8, 8));
	ck_assert(!pm__fits(4, SIZE_MAX, 8));
	ck_assert(!pm__fits(9, 0, 8));
}
END_TEST

START_TEST(test_attr_roundtrip)
{
	struct pm_attr a, b;
	unsigned char buf[PM_ATTR_SIZE_KNOWN + 8];

	for (int be = 0; be < 2; be++) {
		pm_attr_init(&a);
		a.type = 8;
		a.config = 0x1ff;
		a.sample_period = 4000;
		a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_RAW;
		a.flags = PM_ATTR_DISABLED | PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_SAMPLE_ID_ALL |
			  (1ULL << PM_ATTR_PRECISE_IP_SHIFT) | PM_ATTR_SIGTRAP;
		a.config1 = 0x11;
		a.sample_max_stack = 127;
		a.clockid = -1;
		a.config3 = 0xdeadbeef;
		ck_assert_int_eq(pm_attr_to_bytes(&a, buf, sizeof(buf), be), PM_ATTR_SIZE_KNOWN);
		ck_assert_int_eq(pm_attr_from_bytes(&b, buf, sizeof(buf), be), 0);
		ck_assert_mem_eq(&a, &b, sizeof(a));
		ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&b), 1);
	}
}
END_TEST

START_TEST(test_attr_be_layout)
{
	/* Kernel bitfields on a big-endian host start at the most significant
	 * bit: disabled is bit 63 and precise_ip = 1 is bit 47. */
	struct pm_attr a;
	unsigned char buf[PM_ATTR_SIZE_VER0];

	pm_attr_init(&a);
	a.size = PM_ATTR_SIZE_VER0;
	a.flags = PM_ATTR_DISABLED | (1ULL << PM_ATTR_PRECISE_IP_SHIFT);
	ck_assert_int_eq(pm_attr_to_bytes(&a, buf, sizeof(buf), 1), PM_ATTR_SIZE_VER0);
	ck_assert_uint_eq(pm__ld64(buf + 40, true), (1ULL << 63) | (1ULL << 47));
	ck_assert_int_eq(pm_attr_to_bytes(&a, buf, sizeof(buf), 0), PM_ATTR_SIZE_VER0);
	ck_assert_uint_eq(pm__ld64(buf + 40, false), 1ULL | (1ULL << 15));
	ck_assert_uint_eq(pm__ld32(buf + 4, false), PM_ATTR_SIZE_VER0);
}
END_TEST

START_TEST(test_attr_sizes)
{
	struct pm_attr a;
	unsigned char buf[256];

	memset(buf, 0xab, sizeof(buf));
	/* size 0 means VER0 */
	pm__st32(buf + 4, 0, false);
	ck_assert_int_eq(pm_attr_from_bytes(&a, buf, 64, 0), 0);
	ck_assert_uint_eq(a.size, 64);
	ck_assert_uint_eq(a.config1, 0xababababababababull); /* last field of VER0 */
	ck_assert_uint_eq(a.config2, 0); /* beyond VER0 */
	/* larger than known: unknown tail ignored */
	pm__st32(buf + 4, 200, false);
	ck_assert_int_eq(pm_attr_from_bytes(&a, buf, 200, 0), 0);
	ck_assert_uint_eq(a.size, 200);
	ck_assert_uint_eq(a.config3, 0xababababababababull);
	/* truncated */
	ck_assert_int_eq(pm_attr_from_bytes(&a, buf, 199, 0), -PM_ERR_TRUNCATED);
	ck_assert_int_eq(pm_attr_from_bytes(&a, buf, 10, 0), -PM_ERR_TRUNCATED);
	pm__st32(buf + 4, 12, false);
	ck_assert_int_eq(pm_attr_from_bytes(&a, buf, 200, 0), -PM_ERR_FORMAT);
	/* writing: bad sizes */
	pm_attr_init(&a);
	a.size = 60;
	ck_assert_int_eq(pm_attr_to_bytes(&a, buf, sizeof(buf), 0), -EINVAL);
	a.size = 72;
	ck_assert_int_eq(pm_attr_to_bytes(&a, buf, 71, 0), -PM_ERR_RANGE);
}
END_TEST

START_TEST(test_struct_check)
{
	struct { size_t sz; int a; int b; } s = { sizeof(s), 1, 0 };
	unsigned char big[64] = { 0 };

	ck_assert_int_eq(pm__struct_check(NULL, 0, 8, 16, "x"), 0);
	ck_assert_int_eq(pm__struct_check(&s, sizeof(s), sizeof(size_t), sizeof(s), "x"), 0);
	ck_assert_int_eq(pm__struct_check(&s, 4, 8, sizeof(s), "x"), -PM_ERR_STRUCT_SIZE);
	ck_assert_int_eq(pm__struct_check(big, sizeof(big), 8, 16, "x"), 0);
	big[40] = 1;
	ck_assert_int_eq(pm__struct_check(big, sizeof(big), 8, 16, "x"), -PM_ERR_STRUCT_SIZE);

	/* The bound: PM_STRUCT_SZ_MAX is accepted (zero tail), one more is
	 * absurd even when every byte is zero; the inline fast path agrees. */
	unsigned char *huge = calloc(1, PM_STRUCT_SZ_MAX + 1);
	ck_assert_ptr_nonnull(huge);
	ck_assert_int_eq(pm__struct_check(huge, PM_STRUCT_SZ_MAX, 8, 16, "x"), 0);
	ck_assert_int_eq(pm__struct_check(huge, PM_STRUCT_SZ_MAX + 1, 8, 16, "x"),
			 -PM_ERR_STRUCT_SIZE);
	ck_assert_int_eq(pm__sz_valid(huge, PM_STRUCT_SZ_MAX + 1, 8, 16, "x"), -PM_ERR_STRUCT_SIZE);
	ck_assert_int_eq(pm__sz_valid(huge, 16, 8, 16, "x"), 0);
	ck_assert_int_eq(pm__sz_valid(huge, 7, 8, 16, "x"), -PM_ERR_STRUCT_SIZE);
	ck_assert_int_eq(pm__sz_valid(NULL, 7, 8, 16, "x"), 0);
	free(huge);

	/* Copy in / out: min of both sizes, sz members kept, nothing past. */
	struct t { size_t sz; uint32_t a, b, c, d; };
	struct t lib = { sizeof(lib), 1, 2, 3, 4 }, def = { sizeof(def), 9, 9, 9, 9 };
	unsigned char caller[sizeof(struct t) + 8];
	memset(caller, 0x77, sizeof(caller));
	size_t csz = offsetof(struct t, c);
	memcpy(caller, &csz, sizeof(csz));
	pm__struct_copy_out(caller, csz, &lib, sizeof(lib));
	struct t got;
	memcpy(&got, caller, sizeof(got));
	ck_assert_uint_eq(got.sz, csz);
	ck_assert_uint_eq(got.a, 1);
	ck_assert_uint_eq(got.b, 2);
	for (size_t i = csz; i < sizeof(caller); i++)
		ck_assert_uint_eq(caller[i], 0x77);
	pm__opts_copy_in(&def, sizeof(def), caller, csz);
	ck_assert_uint_eq(def.sz, sizeof(def));
	ck_assert_uint_eq(def.a, 1);
	ck_assert_uint_eq(def.b, 2);
	ck_assert_uint_eq(def.c, 9); /* past the caller's sz: the default */
	ck_assert_uint_eq(def.d, 9);
}
END_TEST

/* The one text to show for a failure: the message when it belongs to this
 * failure, the code's text otherwise; a real failure's text holds its cause
 * exactly once. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

START_TEST(test_error_string)
{
	ck_assert_int_eq(pm__err(ENOENT, "thing 'x': No such file or directory"), -ENOENT);
	ck_assert_str_eq(pm_error_string(-ENOENT), "thing 'x': No such file or directory");
	ck_assert_str_eq(pm_error_string(ENOENT), "thing 'x': No such file or directory");
	/* A stale message (another code) is not shown for this failure. */
	ck_assert_str_eq(pm_error_string(-EINVAL), "Invalid argument");
	ck_assert_str_eq(pm_error_string(-PM_ERR_FORMAT), pm_strerror(-PM_ERR_FORMAT));
	ck_assert_str_eq(pm_error_string(0), "Success");
	pm__err_clear();
	ck_assert_str_eq(pm_error_string(-ENOENT), "No such file or directory");

	/* Real failures: the cause once, and what failed on. */
	pm_file *f = NULL;
	int rc = pm_file_open(&f, "/nonexistent/pm-dir/rec.data", NULL);
	ck_assert_int_eq(rc, -ENOENT);
	const char *t = pm_error_string(rc);
	ck_assert_uint_eq(count_of(t, "No such file or directory"), 1);
	ck_assert_ptr_nonnull(strstr(t, "/nonexistent/pm-dir/rec.data"));
	pm_writer *w = NULL;
	rc = pm_writer_open(&w, "/nonexistent/pm-dir/out.data", NULL);
	ck_assert_int_lt(rc, 0);
	t = pm_error_string(rc);
	ck_assert_uint_eq(count_of(t, pm_strerror(rc)), 1);
	ck_assert_ptr_nonnull(strstr(t, "/nonexistent/pm-dir/out.data"));
}
END_TEST

/* Reader messages name the file: the path it was opened with, "<fd N>" for
 * a descriptor; never the literal "perf.data:" whatever the file is called.
 * The file is a real recording cut short: a header error at open (first
 * 40 bytes) and a record error while reading (the data cut mid-record). */
static void cut_copy(const char *src, const char *dst, long keep_from_end, long keep)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	fseek(in, 0, SEEK_END);
	long n = ftell(in);
	fseek(in, 0, SEEK_SET);
	long want = keep ? keep : keep_from_end < 0 ? n / 2 : n - keep_from_end;
	for (long i = 0; i < want; i++) {
		int c = fgetc(in);
		ck_assert_int_ne(c, EOF);
		fputc(c, out);
	}
	fclose(in);
	fclose(out);
}

START_TEST(test_reader_names_file)
{
	const char *src = PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data";
	char path[] = "/tmp/pm_named_recording.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);

	/* At open: the header is cut. */
	cut_copy(src, path, 0, 40);
	pm_file *f = NULL;
	int rc = pm_file_open(&f, path, NULL);
	ck_assert_int_lt(rc, 0);
	const char *t = pm_error_string(rc);
	ck_assert_msg(strncmp(t, path, strlen(path)) == 0 && t[strlen(path)] == ':',
		      "message does not start with the path: %s", t);
	ck_assert_msg(strstr(t, "perf.data:") == NULL, "literal perf.data: in %s", t);
	ck_assert_uint_eq(count_of(t, path), 1);

	/* The same through a descriptor. */
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	char want[32];
	snprintf(want, sizeof(want), "<fd %d>: ", fd);
	rc = pm_file_open_fd(&f, fd, NULL);
	ck_assert_int_lt(rc, 0);
	t = pm_error_string(rc);
	ck_assert_msg(strncmp(t, want, strlen(want)) == 0, "not named %s: %s", want, t);
	close(fd);

	/* While reading: cut in the middle of the data (raw order, so each
	 * record is handed out as read).  The error names the file too. */
	cut_copy(src, path, -1, 0);
	struct pm_file_opts o = { .sz = sizeof(o), .raw_order = 1 };
	rc = pm_file_open(&f, path, &o);
	if (rc == 0) {
		struct pm_file_record r = { .sz = sizeof(r) };
		while ((rc = pm_file_next(f, &r)) == 1)
			;
		const char *msg = NULL;
		uint64_t off;
		int st = pm_file_end_status(f, &off, &msg);
		if (rc < 0)
			t = pm_error_string(rc);
		else
			t = msg ? msg : "";
		ck_assert_msg(rc < 0 || st < 0, "a cut recording read to its end cleanly");
		ck_assert_msg(strncmp(t, path, strlen(path)) == 0, "not named: %s", t);
		ck_assert_msg(strstr(t, "perf.data:") == NULL, "literal perf.data: in %s", t);
		pm_file_close(f);
	} else {
		t = pm_error_string(rc);
		ck_assert_msg(strncmp(t, path, strlen(path)) == 0, "not named: %s", t);
	}
	unlink(path);
}
END_TEST

START_TEST(test_buf)
{
	struct pm__buf b = { 0 };

	ck_assert_int_eq(pm__buf_printf(&b, "%s-%d", "abc", 42), 0);
	ck_assert_int_eq(pm__buf_append(&b, "xyz", 3), 0);
	ck_assert_str_eq(b.data, "abc-42xyz");
	ck_assert_uint_eq(b.len, 9);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(pm__buf_append(&b, "0123456789", 10), 0);
	ck_assert_uint_eq(b.len, 10009);
	pm__buf_free(&b);
	ck_assert_ptr_null(b.data);
}
END_TEST

static Suite *common_suite(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_strerror);
	tcase_add_test(tc, test_errmsg);
	tcase_add_test(tc, test_log);
	tcase_add_test(tc, test_byteorder);
	tcase_add_test(tc, test_attr_roundtrip);
	tcase_add_test(tc, test_attr_be_layout);
	tcase_add_test(tc, test_attr_sizes);
	tcase_add_test(tc, test_struct_check);
	tcase_add_test(tc, test_error_string);
	tcase_add_test(tc, test_reader_names_file);
	tcase_add_test(tc, test_buf);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(common_suite)
