/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A small, source-compatible subset of the Check unit-test API, used where
 * Check is not available (cross builds for alpha and s390x run under
 * qemu-user, and Debian does not package Check for those targets).  The test
 * files are written once against Check's API; they include pm_check.h, which
 * picks Check when PM_HAVE_CHECK is defined and this header otherwise.
 *
 * Like Check in CK_FORK mode, every test runs in a child process, so a
 * crashing test is reported as a failure and the run goes on.
 */
#ifndef PM_MINICHECK_H
#define PM_MINICHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mc_test {
	const char *name;
	void (*fn)(int);
	const char *file;
	int line;
} TTest;

typedef struct Suite Suite;
typedef struct TCase TCase;
typedef struct SRunner SRunner;

enum print_output { CK_SILENT, CK_MINIMAL, CK_NORMAL, CK_VERBOSE, CK_ENV };

#define START_TEST(__testname)                                                        \
	static void __testname##_fn(int _i __attribute__((unused)));                \
	static const TTest __testname##_ttest = { #__testname, __testname##_fn,       \
						   __FILE__, __LINE__ };              \
	static const TTest *__testname = &__testname##_ttest;                         \
	static void __testname##_fn(int _i __attribute__((unused)))
#define END_TEST

Suite *suite_create(const char *name);
TCase *tcase_create(const char *name);
void suite_add_tcase(Suite *s, TCase *tc);
void mc_tcase_add(TCase *tc, const TTest *t, int start, int end);
#define tcase_add_test(tc, t) mc_tcase_add((tc), (t), 0, 1)
#define tcase_add_loop_test(tc, t, s, e) mc_tcase_add((tc), (t), (s), (e))
void tcase_set_timeout(TCase *tc, double timeout);
void tcase_add_checked_fixture(TCase *tc, void (*setup)(void), void (*teardown)(void));
void tcase_add_unchecked_fixture(TCase *tc, void (*setup)(void), void (*teardown)(void));
SRunner *srunner_create(Suite *s);
void srunner_add_suite(SRunner *sr, Suite *s);
void srunner_run_all(SRunner *sr, enum print_output mode);
int srunner_ntests_failed(SRunner *sr);
void srunner_free(SRunner *sr);
void srunner_set_fork_status(SRunner *sr, int status);
enum fork_status { CK_FORK_GETENV, CK_NOFORK, CK_FORK };

void mc_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

#define ck_assert_msg(expr, ...)                                                      \
	do {                                                                          \
		if (!(expr))                                                          \
			mc_fail(__FILE__, __LINE__, "Assertion '" #expr "' failed: " __VA_ARGS__); \
	} while (0)
#define ck_assert(expr) ck_assert_msg(expr, "%s", "")
#define ck_abort_msg(...) mc_fail(__FILE__, __LINE__, __VA_ARGS__)
#define ck_abort() ck_abort_msg("%s", "explicit abort")

#define MC_CMP(T, F, X, OP, Y)                                                        \
	do {                                                                          \
		T _x = (X), _y = (Y);                                                 \
		if (!(_x OP _y))                                                      \
			mc_fail(__FILE__, __LINE__, "Assertion '%s' failed: %s == %" F ", %s == %" F, \
				#X " " #OP " " #Y, #X, _x, #Y, _y);                   \
	} while (0)
#define ck_assert_int_eq(X, Y) MC_CMP(intmax_t, PRIdMAX, X, ==, Y)
#define ck_assert_int_ne(X, Y) MC_CMP(intmax_t, PRIdMAX, X, !=, Y)
#define ck_assert_int_lt(X, Y) MC_CMP(intmax_t, PRIdMAX, X, <, Y)
#define ck_assert_int_le(X, Y) MC_CMP(intmax_t, PRIdMAX, X, <=, Y)
#define ck_assert_int_gt(X, Y) MC_CMP(intmax_t, PRIdMAX, X, >, Y)
#define ck_assert_int_ge(X, Y) MC_CMP(intmax_t, PRIdMAX, X, >=, Y)
#define ck_assert_uint_eq(X, Y) MC_CMP(uintmax_t, PRIuMAX, X, ==, Y)
#define ck_assert_uint_ne(X, Y) MC_CMP(uintmax_t, PRIuMAX, X, !=, Y)
#define ck_assert_uint_lt(X, Y) MC_CMP(uintmax_t, PRIuMAX, X, <, Y)
#define ck_assert_uint_le(X, Y) MC_CMP(uintmax_t, PRIuMAX, X, <=, Y)
#define ck_assert_uint_gt(X, Y) MC_CMP(uintmax_t, PRIuMAX, X, >, Y)
#define ck_assert_uint_ge(X, Y) MC_CMP(uintmax_t, PRIuMAX, X, >=, Y)
#define ck_assert_double_eq_tol(X, Y, T)                                              \
	do {                                                                          \
		double _x = (X), _y = (Y), _t = (T);                                  \
		if (!((_x - _y) <= _t && (_y - _x) <= _t))                            \
			mc_fail(__FILE__, __LINE__, "Assertion '%s ~= %s' failed: %g vs %g", #X, #Y, _x, _y); \
	} while (0)
#define MC_STR(X, OP, Y)                                                              \
	do {                                                                          \
		const char *_x = (X), *_y = (Y);                                      \
		if (!_x || !_y || !(strcmp(_x, _y) OP 0))                             \
			mc_fail(__FILE__, __LINE__, "Assertion '%s' failed: %s == \"%s\", %s == \"%s\"", \
				#X " " #OP " " #Y, #X, _x ? _x : "(null)", #Y, _y ? _y : "(null)"); \
	} while (0)
#define ck_assert_str_eq(X, Y) MC_STR(X, ==, Y)
#define ck_assert_str_ne(X, Y) MC_STR(X, !=, Y)
#define ck_assert_pstr_eq(X, Y) MC_STR(X, ==, Y)
#define ck_assert_ptr_eq(X, Y) ck_assert_msg((const void *)(X) == (const void *)(Y), "pointers differ")
#define ck_assert_ptr_ne(X, Y) ck_assert_msg((const void *)(X) != (const void *)(Y), "pointers equal")
#define ck_assert_ptr_null(X) ck_assert_msg((const void *)(X) == NULL, "%s is not NULL", #X)
#define ck_assert_ptr_nonnull(X) ck_assert_msg((const void *)(X) != NULL, "%s is NULL", #X)
#define ck_assert_mem_eq(X, Y, L) ck_assert_msg(memcmp((X), (Y), (L)) == 0, "memory differs")
#define ck_assert_mem_ne(X, Y, L) ck_assert_msg(memcmp((X), (Y), (L)) != 0, "memory equal")

#endif /* PM_MINICHECK_H */
