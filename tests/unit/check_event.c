/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Tests of the event module: perf-syntax event strings <-> pm_attr. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"
#include "pm_check.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static struct pm_event_error err;
static pm_event_list *list;

/* Parse; return the code, keep the list in `list` and the error in `err`. */
static int parse(const pm_pmu_list *pmus, const char *s)
{
	pm_event_list_free(list);
	list = NULL;
	memset(&err, 0, sizeof(err));
	err.sz = sizeof(err);
	return pm_event_parse(&list, pmus, s, &err);
}

/* Parse one event that must succeed; return its attr. */
static struct pm_attr attr_of(const pm_pmu_list *pmus, const char *s)
{
	struct pm_attr a;
	int rc = parse(pmus, s);

	ck_assert_msg(rc == 0, "'%s' failed: %d %s (pos %zu)", s, rc, err.message, err.position);
	ck_assert_uint_ge(pm_event_list_count(list), 1);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	ck_assert_uint_eq(a.size, PM_ATTR_SIZE_KNOWN);
	return a;
}

static unsigned flags_of(size_t i)
{
	return pm_event_flags(pm_event_list_get(list, i));
}

/* Expect a failure with the given code at the given byte offset. */
#define expect_err(pmus, s, code_, pos)                                                   \
	do {                                                                             \
		int rc_ = parse((pmus), (s));                                            \
		ck_assert_msg(rc_ == -(code_), "'%s': rc %d, want %d (%s)", (s), rc_,     \
			      -(code_), err.message);                                     \
		ck_assert_int_eq(err.code, -(code_));                                     \
		ck_assert_msg(err.position == (size_t)(pos), "'%s': position %zu, want %zu (%s)", \
			      (s), err.position, (size_t)(pos), err.message);            \
		ck_assert_ptr_null(list);                                                \
		ck_assert_msg(err.message[0] != 0, "no message");                        \
	} while (0)

#define HAS(a, bit) (((a).flags & (bit)) != 0)

static char tree[256];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (char *s = path + strlen(tree) + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(path, 0755);
			*s = '/';
		}
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

#define DEV "bus/event_source/devices/"

/* A private sysfs tree with PMUs whose every file the tests choose:
 *   cpu     type 4, event config:0-7, umask config:8-15, edge config:18,
 *           inv config:23, cmask config:24-31, ldlat config1:0-15;
 *           events mem-loads, cycles-ct (with in_tx), thresh (cmask=?)
 *   amdx    type 9, event config:0-7,32-35 (split), umask config:8-15
 *   uncore_imc type 12, event config:0-7, umask config:8-15, cpumask;
 *           events cas_count_read
 *   alpha   type 13 with a profileme format (config:8) and caps/max_precise 2
 */
static pm_pmu_list *make_tree(void)
{
	pm_pmu_list *pmus = NULL;

	snprintf(tree, sizeof(tree), "/tmp/pm_check_event.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tree));
	put(DEV "cpu/type", "4\n");
	put(DEV "cpu/format/event", "config:0-7\n");
	put(DEV "cpu/format/umask", "config:8-15\n");
	put(DEV "cpu/format/edge", "config:18\n");
	put(DEV "cpu/format/inv", "config:23\n");
	put(DEV "cpu/format/cmask", "config:24-31\n");
	put(DEV "cpu/format/ldlat", "config1:0-15\n");
	put(DEV "cpu/format/in_tx", "config:32\n");
	put(DEV "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put(DEV "cpu/events/cycles-ct", "event=0x3c,in_tx=1\n");
	put(DEV "cpu/events/thresh", "event=0x11,cmask=?\n");
	put(DEV "amdx/type", "9\n");
	put(DEV "amdx/format/event", "config:0-7,32-35\n");
	put(DEV "amdx/format/umask", "config:8-15\n");
	put(DEV "uncore_imc/type", "12\n");
	put(DEV "uncore_imc/cpumask", "0\n");
	put(DEV "uncore_imc/format/event", "config:0-7\n");
	put(DEV "uncore_imc/format/umask", "config:8-15\n");
	put(DEV "uncore_imc/events/cas_count_read", "event=0x04,umask=0x03\n");
	put(DEV "alpha/type", "13\n");
	put(DEV "alpha/format/event", "config:0-7\n");
	put(DEV "alpha/format/profileme", "config:8\n");
	put(DEV "alpha/caps/max_precise", "2\n");
	ck_assert_int_eq(pm_pmu_scan(&pmus, tree), 0);
	return pmus;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void drop_tree(pm_pmu_list *pmus)
{
	pm_pmu_list_free(pmus);
	if (strncmp(tree, "/tmp/pm_check_event.", 20) == 0) {
		ck_assert_int_eq(nftw(tree, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
		tree[0] = 0;
	}
	pm_event_list_free(list);
	list = NULL;
}

/* ------------------------------------------------------------------ */
/* Generic, raw                                                        */

START_TEST(test_generic_names)
{
	/* Values from the perf ABI (perf_hw_id / perf_sw_ids). */
	static const struct { const char *s; uint32_t type; uint64_t config; } g[] = {
		{ "cycles", 0, 0 }, { "cpu-cycles", 0, 0 }, { "instructions", 0, 1 },
		{ "cache-references", 0, 2 }, { "cache-misses", 0, 3 },
		{ "branch-instructions", 0, 4 }, { "branches", 0, 4 }, { "branch-misses", 0, 5 },
		{ "bus-cycles", 0, 6 }, { "stalled-cycles-frontend", 0, 7 },
		{ "stalled-cycles-backend", 0, 8 }, { "ref-cycles", 0, 9 },
		{ "cpu-clock", 1, 0 }, { "task-clock", 1, 1 }, { "page-faults", 1, 2 },
		{ "faults", 1, 2 }, { "context-switches", 1, 3 }, { "cs", 1, 3 },
		{ "cpu-migrations", 1, 4 }, { "migrations", 1, 4 }, { "minor-faults", 1, 5 },
		{ "major-faults", 1, 6 }, { "alignment-faults", 1, 7 },
		{ "emulation-faults", 1, 8 }, { "dummy", 1, 9 }, { "bpf-output", 1, 10 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(g); i++) {
		struct pm_attr a = attr_of(NULL, g[i].s);

		ck_assert_uint_eq(a.type, g[i].type);
		ck_assert_uint_eq(a.config, g[i].config);
		ck_assert_uint_eq(a.flags, PM_ATTR_EXCLUDE_GUEST); /* perf's default */
		ck_assert_uint_eq(a.sample_period, 0);
		ck_assert_uint_eq(flags_of(0), 0);
		ck_assert_ptr_null(pm_event_pmu(pm_event_list_get(list, 0)));
		ck_assert_str_eq(pm_event_string(pm_event_list_get(list, 0)), g[i].s);
	}
}
END_TEST

START_TEST(test_generic_terms)
{
	struct pm_attr a = attr_of(NULL, "cycles/period=100/");

	ck_assert_uint_eq(a.type, 0);
	ck_assert_uint_eq(a.sample_period, 100);
	ck_assert(!HAS(a, PM_ATTR_FREQ));
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PERIOD_SET);

	a = attr_of(NULL, "instructions/freq=4000/u");
	ck_assert_uint_eq(a.config, 1);
	ck_assert_uint_eq(a.sample_period, 4000);
	ck_assert(HAS(a, PM_ATTR_FREQ));
	ck_assert_uint_eq(flags_of(0), PM_EVENT_FREQ_SET);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL) && HAS(a, PM_ATTR_EXCLUDE_HV));
	ck_assert(!HAS(a, PM_ATTR_EXCLUDE_USER));

	/* the last of period/freq wins */
	a = attr_of(NULL, "cycles/freq=10,period=0x20/");
	ck_assert_uint_eq(a.sample_period, 0x20);
	ck_assert(!HAS(a, PM_ATTR_FREQ));

	a = attr_of(NULL, "task-clock/name=mine,config1=7,config2=0x8,config3=9/:k");
	ck_assert_uint_eq(a.type, 1);
	ck_assert_uint_eq(a.config, 1);
	ck_assert_uint_eq(a.config1, 7);
	ck_assert_uint_eq(a.config2, 8);
	ck_assert_uint_eq(a.config3, 9);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "mine");
	ck_assert_str_eq(pm_event_string(pm_event_list_get(list, 0)),
			 "task-clock/name=mine,config1=7,config2=0x8,config3=9/:k");

	a = attr_of(NULL, "cycles/name='a b',config=5/");
	ck_assert_uint_eq(a.config, 5);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "a b");

	/* no period/freq: both 0 */
	a = attr_of(NULL, "cycles//");
	ck_assert_uint_eq(a.sample_period, 0);
	ck_assert(!HAS(a, PM_ATTR_FREQ));
}
END_TEST

START_TEST(test_raw)
{
	struct pm_attr a = attr_of(NULL, "r1a");

	ck_assert_uint_eq(a.type, PM_TYPE_RAW);
	ck_assert_uint_eq(a.config, 0x1a);
	a = attr_of(NULL, "r0x1A2b");
	ck_assert_uint_eq(a.config, 0x1a2b);
	a = attr_of(NULL, "rffffffffffffffff:u");
	ck_assert_uint_eq(a.config, UINT64_MAX);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	a = attr_of(NULL, "r3c/period=5/");
	ck_assert_uint_eq(a.config, 0x3c);
	ck_assert_uint_eq(a.sample_period, 5);
	/* 17 hex digits: out of range (64-bit config) */
	expect_err(NULL, "r1ffffffffffffffff", PM_ERR_RANGE, 0);
	expect_err(NULL, "rxyz", PM_ERR_SYNTAX, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Modifiers                                                           */

START_TEST(test_modifiers_ukh)
{
	static const struct { const char *m; int eu, ek, eh; } t[] = {
		{ "u", 0, 1, 1 }, { "k", 1, 0, 1 }, { "h", 1, 1, 0 }, { "uk", 0, 0, 1 },
		{ "ku", 0, 0, 1 }, { "kh", 1, 0, 0 }, { "ukh", 0, 0, 0 }, { "uh", 0, 1, 0 },
	};
	char s[32];

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_attr a;

		snprintf(s, sizeof(s), "cycles:%s", t[i].m);
		a = attr_of(NULL, s);
		ck_assert_int_eq(HAS(a, PM_ATTR_EXCLUDE_USER), t[i].eu);
		ck_assert_int_eq(HAS(a, PM_ATTR_EXCLUDE_KERNEL), t[i].ek);
		ck_assert_int_eq(HAS(a, PM_ATTR_EXCLUDE_HV), t[i].eh);
		/* perf 6.1: modifiers start from nothing excluded; u sets exclude_guest */
		ck_assert_int_eq(HAS(a, PM_ATTR_EXCLUDE_GUEST), !t[i].eu);
		ck_assert(!HAS(a, PM_ATTR_EXCLUDE_HOST));
	}
}
END_TEST

START_TEST(test_modifiers_other)
{
	struct pm_attr a = attr_of(NULL, "cycles:G");

	ck_assert(HAS(a, PM_ATTR_EXCLUDE_HOST) && !HAS(a, PM_ATTR_EXCLUDE_GUEST));
	a = attr_of(NULL, "cycles:H");
	ck_assert(!HAS(a, PM_ATTR_EXCLUDE_HOST) && HAS(a, PM_ATTR_EXCLUDE_GUEST));
	a = attr_of(NULL, "cycles:GH");
	ck_assert(!HAS(a, PM_ATTR_EXCLUDE_HOST) && !HAS(a, PM_ATTR_EXCLUDE_GUEST));
	a = attr_of(NULL, "cycles:I");
	ck_assert_uint_eq(a.flags, PM_ATTR_EXCLUDE_IDLE);
	a = attr_of(NULL, "cycles:p");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 1);
	a = attr_of(NULL, "cycles:pp");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 2);
	a = attr_of(NULL, "cycles:ppp");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 3);
	a = attr_of(NULL, "cycles:upkp");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 2);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_HV) && !HAS(a, PM_ATTR_EXCLUDE_USER));
	/* P without PMU information: precise_ip 3, to be probed down by the caller */
	a = attr_of(NULL, "cycles:P");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 3);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PRECISE_MAX);
	a = attr_of(NULL, "cycles:S");
	ck_assert_uint_eq(flags_of(0), PM_EVENT_SAMPLE_READ);
	ck_assert_uint_eq(a.flags, 0);
	a = attr_of(NULL, "cycles:D");
	ck_assert_uint_eq(a.flags, PM_ATTR_PINNED);
	a = attr_of(NULL, "cycles:e");
	ck_assert_uint_eq(a.flags, PM_ATTR_EXCLUSIVE);
	a = attr_of(NULL, "cycles:uDeI");
	ck_assert_uint_eq(a.flags, PM_ATTR_PINNED | PM_ATTR_EXCLUSIVE | PM_ATTR_EXCLUDE_IDLE |
					   PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_HV |
					   PM_ATTR_EXCLUDE_GUEST);
}
END_TEST

START_TEST(test_modifier_errors)
{
	expect_err(NULL, "cycles:pppp", PM_ERR_RANGE, 10);
	expect_err(NULL, "cycles:z", PM_ERR_SYNTAX, 7);
	expect_err(NULL, "cycles:uZ", PM_ERR_SYNTAX, 8);
	expect_err(NULL, "cycles:uu", PM_ERR_SYNTAX, 8);
	expect_err(NULL, "cycles:kuk", PM_ERR_SYNTAX, 9);
	expect_err(NULL, "cycles:", PM_ERR_SYNTAX, 7);
	expect_err(NULL, "cycles/period=1/:", PM_ERR_SYNTAX, 17);
	expect_err(NULL, "{cycles}:pppp", PM_ERR_RANGE, 12);
	/* group p adds to the member's own */
	expect_err(NULL, "{cycles:pp}:pp", PM_ERR_RANGE, 13);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Groups and lists                                                    */

START_TEST(test_groups)
{
	struct pm_attr a, b;

	ck_assert_int_eq(parse(NULL, "{cycles,instructions:k}:u,cs"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 3);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	pm_event_attr(pm_event_list_get(list, 1), &b);
	/* cycles: fresh, so u sets exclude_kernel|hv */
	ck_assert(!HAS(a, PM_ATTR_EXCLUDE_USER) && HAS(a, PM_ATTR_EXCLUDE_KERNEL) &&
		  HAS(a, PM_ATTR_EXCLUDE_HV));
	/* instructions:k already excluded user|hv; the group's u clears user */
	ck_assert(!HAS(b, PM_ATTR_EXCLUDE_USER) && !HAS(b, PM_ATTR_EXCLUDE_KERNEL) &&
		  HAS(b, PM_ATTR_EXCLUDE_HV));
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 0)), 0);
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 1)), 0);
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 2)), 2);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_GROUP_LEADER);
	ck_assert_uint_eq(flags_of(1), 0);
	ck_assert_uint_eq(flags_of(2), 0);
	ck_assert_str_eq(pm_event_string(pm_event_list_get(list, 1)), "instructions:k");
	ck_assert_ptr_null(pm_event_list_get(list, 3));

	/* a group of one is not flagged as leader */
	ck_assert_int_eq(parse(NULL, "{cycles}:S"), 0);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_SAMPLE_READ);

	ck_assert_int_eq(parse(NULL, "cs,{cycles,branches},{faults,dummy}"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 5);
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 2)), 1);
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 4)), 3);
}
END_TEST

START_TEST(test_syntax_errors)
{
	expect_err(NULL, "", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "cycles,", PM_ERR_SYNTAX, 7);
	expect_err(NULL, ",cycles", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "cycles instructions", PM_ERR_SYNTAX, 6);
	expect_err(NULL, "cycles/period=1", PM_ERR_SYNTAX, 15);
	expect_err(NULL, "cycles/period=/", PM_ERR_SYNTAX, 14);
	expect_err(NULL, "cycles/period=12abc/", PM_ERR_SYNTAX, 14);
	expect_err(NULL, "cycles/period=0x/", PM_ERR_SYNTAX, 14);
	expect_err(NULL, "cycles/period=99999999999999999999/", PM_ERR_RANGE, 14);
	expect_err(NULL, "cycles/period=0x10000000000000000/", PM_ERR_RANGE, 14);
	expect_err(NULL, "cycles/period/", PM_ERR_SYNTAX, 7);
	expect_err(NULL, "cycles/,period=1/", PM_ERR_SYNTAX, 7);
	expect_err(NULL, "cycles/name='x/", PM_ERR_SYNTAX, 12);
	expect_err(NULL, "cycles/bogus=1/", PM_ERR_UNKNOWN_TERM, 7);
	expect_err(NULL, "cycles/period=1,umask=1/", PM_ERR_UNKNOWN_TERM, 16);
	expect_err(NULL, "nosuchevent", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "cycles,nosuchevent:u", PM_ERR_SYNTAX, 7);
	expect_err(NULL, "nopmu/event=1/", PM_ERR_NO_PMU, 0);
	expect_err(NULL, "cs,nopmu//", PM_ERR_NO_PMU, 3);
	expect_err(NULL, "{cycles,instructions", PM_ERR_SYNTAX, 20);
	expect_err(NULL, "{cycles,{cs}}", PM_ERR_SYNTAX, 8);
	expect_err(NULL, "{}", PM_ERR_SYNTAX, 1);
	expect_err(NULL, "{cycles}x", PM_ERR_SYNTAX, 8);
	expect_err(NULL, "cycles}", PM_ERR_SYNTAX, 6);
	expect_err(NULL, "cycles/period=1/x/", PM_ERR_SYNTAX, 17);
	/* the unknown-term message lists the valid built-ins */
	expect_err(NULL, "cycles/bogus=1/", PM_ERR_UNKNOWN_TERM, 7);
	ck_assert_ptr_nonnull(strstr(err.message, "period"));
	ck_assert_ptr_nonnull(strstr(err.message, "config1"));
	ck_assert_ptr_nonnull(strstr(err.message, "bogus"));
}
END_TEST

START_TEST(test_error_struct)
{
	struct { struct pm_event_error e; char extra[16]; } big;
	pm_event_list *l = (pm_event_list *)1;

	/* NULL err is fine */
	ck_assert_int_eq(pm_event_parse(&l, NULL, "cycles:z", NULL), -PM_ERR_SYNTAX);
	ck_assert_ptr_null(l);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "modifier"));
	/* too small */
	memset(&err, 0, sizeof(err));
	err.sz = sizeof(err) - 1;
	ck_assert_int_eq(pm_event_parse(&l, NULL, "cycles", &err), -PM_ERR_STRUCT_SIZE);
	/* larger with a zero tail: accepted, tail stays zero */
	memset(&big, 0, sizeof(big));
	big.e.sz = sizeof(big);
	ck_assert_int_eq(pm_event_parse(&l, NULL, "cycles:q", &big.e), -PM_ERR_SYNTAX);
	ck_assert_uint_eq(big.e.sz, sizeof(big));
	ck_assert_uint_eq(big.e.position, 7);
	for (size_t i = 0; i < sizeof(big.extra); i++)
		ck_assert_int_eq(big.extra[i], 0);
	/* larger with a non-zero tail: refused */
	big.extra[3] = 1;
	ck_assert_int_eq(pm_event_parse(&l, NULL, "cycles", &big.e), -PM_ERR_STRUCT_SIZE);
	ck_assert_int_eq(pm_event_parse(NULL, NULL, "cycles", NULL), -EINVAL);
	ck_assert_int_eq(pm_event_parse(&l, NULL, NULL, NULL), -EINVAL);
	/* NULL-safe accessors */
	pm_event_list_free(NULL);
	ck_assert_uint_eq(pm_event_list_count(NULL), 0);
	ck_assert_ptr_null(pm_event_list_get(NULL, 0));
	ck_assert_uint_eq(pm_event_flags(NULL), 0);
	ck_assert_ptr_null(pm_event_string(NULL));
}
END_TEST

/* ------------------------------------------------------------------ */
/* PMU events (private tree)                                           */

START_TEST(test_pmu_terms)
{
	pm_pmu_list *pmus = make_tree();
	struct pm_attr a;

	a = attr_of(pmus, "cpu/event=0x3c,umask=0x1/uk");
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0x013c);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_HV) && !HAS(a, PM_ATTR_EXCLUDE_USER));
	ck_assert_str_eq(pm_pmu_name(pm_event_pmu(pm_event_list_get(list, 0))), "cpu");

	/* bare one-bit fields, cmask, config1 field */
	a = attr_of(pmus, "cpu/event=0xc0,edge,inv,cmask=2,ldlat=0x20/");
	ck_assert_uint_eq(a.config, 0xc0 | (1u << 18) | (1u << 23) | (2u << 24));
	ck_assert_uint_eq(a.config1, 0x20);

	/* config= first, then fields replace their bits */
	a = attr_of(pmus, "cpu/umask=0x2,config=0xffff/");
	ck_assert_uint_eq(a.config, 0x02ff);

	/* the last of two user terms wins */
	a = attr_of(pmus, "cpu/event=1,event=2/");
	ck_assert_uint_eq(a.config, 2);

	/* pmu// and pmu//mods */
	a = attr_of(pmus, "cpu//");
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0);
	a = attr_of(pmus, "cpu//k");
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_USER));

	/* uncore_ prefix may be left out */
	a = attr_of(pmus, "imc/event=0x4/");
	ck_assert_uint_eq(a.type, 12);
	ck_assert_uint_eq(a.config, 4);

	/* split field: event bits 8-11 go to config:32-35 */
	a = attr_of(pmus, "amdx/event=0x1d6,umask=0x3/");
	ck_assert_uint_eq(a.type, 9);
	ck_assert_uint_eq(a.config, 0xd6 | (0x3u << 8) | (1ULL << 32));
	a = attr_of(pmus, "amdx/event=0xfff/");
	ck_assert_uint_eq(a.config, 0xff | (0xfULL << 32));

	/* a generic name with a PMU list still is generic */
	a = attr_of(pmus, "cycles");
	ck_assert_uint_eq(a.type, 0);
	drop_tree(pmus);
}
END_TEST

START_TEST(test_pmu_errors)
{
	pm_pmu_list *pmus = make_tree();

	expect_err(pmus, "cpu/event=0x100/", PM_ERR_RANGE, 10);
	ck_assert_ptr_nonnull(strstr(err.message, "event"));
	ck_assert_ptr_nonnull(strstr(err.message, "0xff"));
	expect_err(pmus, "amdx/event=0x1000/", PM_ERR_RANGE, 11);
	ck_assert_ptr_nonnull(strstr(err.message, "0xfff"));
	ck_assert_ptr_nonnull(strstr(err.message, "config:0-7,32-35"));
	/* bare term on a multi-bit field */
	expect_err(pmus, "cpu/event=1,umask/", PM_ERR_SYNTAX, 12);
	ck_assert_ptr_nonnull(strstr(err.message, "umask"));
	/* unknown term: lists formats and aliases */
	expect_err(pmus, "cpu/event=1,bogus=3/", PM_ERR_UNKNOWN_TERM, 12);
	ck_assert_ptr_nonnull(strstr(err.message, "bogus"));
	ck_assert_ptr_nonnull(strstr(err.message, "umask"));
	ck_assert_ptr_nonnull(strstr(err.message, "mem-loads"));
	expect_err(pmus, "nopmu/event=1/", PM_ERR_NO_PMU, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "nopmu"));
	/* an alias takes no value */
	expect_err(pmus, "cpu/mem-loads=1/", PM_ERR_SYNTAX, 14);
	/* '?' is not a user value */
	expect_err(pmus, "cpu/event=?/", PM_ERR_SYNTAX, 10);
	/* the ProfileMe bit only where the PMU has it */
	expect_err(pmus, "cpu/event=1,profileme/", PM_ERR_UNKNOWN_TERM, 12);
	drop_tree(pmus);
}
END_TEST

START_TEST(test_aliases)
{
	pm_pmu_list *pmus = make_tree();
	struct pm_attr a;

	a = attr_of(pmus, "cpu/mem-loads/");
	ck_assert_uint_eq(a.config, 0x01cd);
	ck_assert_uint_eq(a.config1, 3);
	/* case-insensitive */
	a = attr_of(pmus, "cpu/MEM-LOADS/pp");
	ck_assert_uint_eq(a.config, 0x01cd);
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 2);
	/* alias mixed with terms; the user's ldlat replaces the alias's (perf 6.1 ORs: 3|0x10) */
	a = attr_of(pmus, "cpu/mem-loads,ldlat=0x10/");
	ck_assert_uint_eq(a.config1, 0x10);
	/* wherever the user's term is written */
	a = attr_of(pmus, "cpu/umask=0x2,mem-loads/");
	ck_assert_uint_eq(a.config, 0x02cd);
	a = attr_of(pmus, "cpu/mem-loads,cmask=1,period=1000/");
	ck_assert_uint_eq(a.config, 0x01cd | (1u << 24));
	ck_assert_uint_eq(a.sample_period, 1000);
	a = attr_of(pmus, "cpu/cycles-ct/");
	ck_assert_uint_eq(a.config, 0x3c | (1ULL << 32));
	/* '?' parameter: needed */
	a = attr_of(pmus, "cpu/thresh,cmask=5/");
	ck_assert_uint_eq(a.config, 0x11 | (5u << 24));
	expect_err(pmus, "cpu/thresh/", EINVAL, 4);
	ck_assert_ptr_nonnull(strstr(err.message, "cmask"));
	expect_err(pmus, "cpu/event=1,thresh/u", EINVAL, 12);
	/* bare alias name, and the uncore alias */
	a = attr_of(pmus, "mem-loads:u");
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0x01cd);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	a = attr_of(pmus, "uncore_imc/cas_count_read/");
	ck_assert_uint_eq(a.type, 12);
	ck_assert_uint_eq(a.config, 0x0304);
	/* an alias whose value does not fit */
	put(DEV "cpu/events/toobig", "event=0x1ff\n");
	{
		pm_pmu_list *p2 = NULL;

		ck_assert_int_eq(pm_pmu_scan(&p2, tree), 0);
		expect_err(p2, "cpu/umask=1,toobig/", PM_ERR_RANGE, 12);
		ck_assert_ptr_nonnull(strstr(err.message, "toobig"));
		/* unless the user's term replaces it */
		a = attr_of(p2, "cpu/toobig,event=0x12/");
		ck_assert_uint_eq(a.config, 0x12);
		pm_event_list_free(list);
		list = NULL;
		pm_pmu_list_free(p2);
	}
	drop_tree(pmus);
}
END_TEST

/* ------------------------------------------------------------------ */
/* ProfileMe                                                           */

START_TEST(test_profileme)
{
	pm_pmu_list *pmus = make_tree();
	struct pm_attr a;

	a = attr_of(pmus, "alpha/event=0x2,profileme/");
	ck_assert_uint_eq(a.type, 13);
	ck_assert_uint_eq(a.config, 0x102);
	/* no period set: left 0, and the caller's default must give one */
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	ck_assert_uint_eq(a.sample_period, 0);

	/* precise selects ProfileMe, config left alone */
	a = attr_of(pmus, "alpha/event=0x2/p");
	ck_assert_uint_eq(a.config, 0x2);
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 1);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	/* P: caps/max_precise (2) */
	a = attr_of(pmus, "alpha/event=0x2/P");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 2);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_PRECISE_MAX |
					 PM_EVENT_NEEDS_PERIOD);
	/* not ProfileMe without the bit or precise */
	a = attr_of(pmus, "alpha/event=0x2,period=1000/u");
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PERIOD_SET);
	/* config= that sets the bit counts too */
	a = attr_of(pmus, "alpha/config=0x101/");
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	/* never on a PMU without the format */
	a = attr_of(pmus, "cpu/event=0x2/ppp");
	ck_assert_uint_eq(flags_of(0), 0);

	/* must sample */
	a = attr_of(pmus, "alpha/event=0x2,profileme,period=10000/");
	ck_assert_uint_eq(a.sample_period, 10000);
	expect_err(pmus, "alpha/event=0x2,profileme,period=0/", PM_ERR_PROFILEME, 26);
	ck_assert_ptr_nonnull(strstr(err.message, "sample"));
	expect_err(pmus, "alpha/event=0x2,period=0/pp", PM_ERR_PROFILEME, 16);
	expect_err(pmus, "alpha/freq=0,event=1/P", PM_ERR_PROFILEME, 6);
	expect_err(pmus, "cs,{alpha/event=1,period=0/}:p", PM_ERR_PROFILEME, 18);

	/* alone in its group on its PMU */
	expect_err(pmus, "{alpha/event=0x2,profileme/,alpha/event=0x3/}", PM_ERR_PROFILEME, 28);
	ck_assert_ptr_nonnull(strstr(err.message, "group"));
	expect_err(pmus, "{alpha/event=0x3/,alpha/event=0x2/p}", PM_ERR_PROFILEME, 18);
	expect_err(pmus, "{alpha/event=0x3/,alpha/event=0x2/}:p", PM_ERR_PROFILEME, 18);
	/* beside events of other PMUs: fine */
	ck_assert_int_eq(parse(pmus, "{alpha/event=0x2,profileme/,cs,cpu/event=1/}"), 0);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_GROUP_LEADER |
					 PM_EVENT_NEEDS_PERIOD);
	/* two separate events are not a group */
	ck_assert_int_eq(parse(pmus, "alpha/event=0x2,profileme/,alpha/event=0x3/"), 0);
	drop_tree(pmus);
}
END_TEST

/* Alpha's core PMU (type 4, "cpu"): generic and raw events are its too. */
START_TEST(test_profileme_core)
{
	pm_pmu_list *pmus = NULL;
	struct pm_attr a;

	snprintf(tree, sizeof(tree), "/tmp/pm_check_event.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tree));
	put(DEV "cpu/type", "4\n");
	put(DEV "cpu/format/event", "config:0-7\n");
	put(DEV "cpu/format/profileme", "config:8\n");
	put(DEV "software/type", "1\n");
	ck_assert_int_eq(pm_pmu_scan(&pmus, tree), 0);

	a = attr_of(pmus, "cycles:p");
	ck_assert_uint_eq(a.type, 0);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	/* P without caps/max_precise: 3 (the caller probes down on a live system) */
	a = attr_of(pmus, "instructions:P");
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 3);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_PRECISE_MAX |
					 PM_EVENT_NEEDS_PERIOD);
	a = attr_of(pmus, "r102");
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	a = attr_of(pmus, "r8");
	ck_assert_uint_eq(flags_of(0), 0);
	a = attr_of(pmus, "cs:p");
	ck_assert_uint_eq(flags_of(0), 0);
	expect_err(pmus, "{cycles:p,instructions}", PM_ERR_PROFILEME, 10);
	expect_err(pmus, "{r2,cpu/event=2,profileme/}", PM_ERR_PROFILEME, 4);
	expect_err(pmus, "cycles/period=0/p", PM_ERR_PROFILEME, 7);
	ck_assert_int_eq(parse(pmus, "{cycles:p,cs,task-clock}"), 0);
	drop_tree(pmus);
}
END_TEST

/* ------------------------------------------------------------------ */
/* pm_attr_format and round trips                                      */

static void round_trip(const pm_pmu_list *pmus, const char *s, const char *canon)
{
	struct pm_attr a, b;
	char buf[512];
	int n;

	a = attr_of(pmus, s);
	n = pm_attr_format(&a, pmus, buf, sizeof(buf));
	ck_assert_msg(n > 0 && (size_t)n < sizeof(buf), "format '%s': %d", s, n);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	if (canon)
		ck_assert_str_eq(buf, canon);
	b = attr_of(pmus, buf);
	ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0, "'%s' -> '%s' gives another attr", s, buf);
}

START_TEST(test_format_round_trip)
{
	pm_pmu_list *pmus = make_tree();
	static const char *const s[] = {
		"cycles", "instructions:u", "cache-misses:kh", "ref-cycles:GI",
		"branches:H", "cpu-clock:ppp", "task-clock/period=1000/", "faults/freq=99/k",
		"cs:De", "r1a", "r0xffffffffffffffff:u", "cycles/config1=3,config3=0x40/",
		"cpu/event=0x3c,umask=0x1/uk", "cpu/mem-loads,ldlat=7/pp",
		"cpu/event=0xc0,edge,inv,cmask=2/", "cpu/thresh,cmask=5/",
		"cpu/config=0xff00000000000000/", "amdx/event=0xfd6,umask=0x81/G",
		"uncore_imc/cas_count_read/", "alpha/event=0x2,profileme,period=9999/p",
		"alpha/event=0x4,freq=1000/ukI", "cycles:uk", "cycles:ukh",
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(s); i++)
		round_trip(pmus, s[i], NULL);
	/* canonical forms (field order: the PMU's formats sorted by name) */
	round_trip(pmus, "cycles", "cycles");
	round_trip(pmus, "cycles:ku", "cycles:uk");
	round_trip(pmus, "instructions/period=0x10/Hp", "instructions/period=16/:p");
	round_trip(pmus, "cycles:GH", "cycles:GH");
	round_trip(pmus, "cycles:G", "cycles:G");
	round_trip(pmus, "cpu/umask=0x1,event=0x3c/uk", "cpu/event=0x3c,umask=0x1/uk");
	round_trip(pmus, "cpu/cycles-ct/", "cpu/event=0x3c,in_tx/");
	round_trip(pmus, "cpu/mem-loads/", "cpu/event=0xcd,ldlat=0x3,umask=0x1/");
	round_trip(pmus, "alpha/profileme,event=2/", "alpha/event=0x2,profileme/");
	round_trip(pmus, "amdx/event=0x1d6/", "amdx/event=0x1d6/");
	round_trip(pmus, "r1a", "cpu/event=0x1a/"); /* cpu is type 4 here */
	round_trip(NULL, "r1a:k", "r1a:k");
	round_trip(NULL, "r1a/config1=2/", "r1a/config1=0x2/");
	/* bits no format covers */
	round_trip(pmus, "cpu/config=0x1000000000000ff/", "cpu/config=0x100000000000000,event=0xff/");
	drop_tree(pmus);
}
END_TEST

START_TEST(test_format_edges)
{
	struct pm_attr a;
	char buf[8];
	int n;

	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.config = 3;
	a.flags = PM_ATTR_EXCLUDE_GUEST; /* the parser's default: no G/H written */
	n = pm_attr_format(&a, NULL, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen("context-switches"));
	ck_assert_str_eq(buf, "context"); /* the canonical name, truncated */
	/* truncation: snprintf-like */
	a.type = PM_TYPE_HARDWARE;
	a.config = 7;
	n = pm_attr_format(&a, NULL, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen("stalled-cycles-frontend"));
	ck_assert_str_eq(buf, "stalled");
	ck_assert_int_eq(pm_attr_format(&a, NULL, NULL, 0), n);
	/* nothing to name it with */
	a.type = 77;
	ck_assert_int_eq(pm_attr_format(&a, NULL, buf, sizeof(buf)), -PM_ERR_NO_PMU);
	ck_assert_str_eq(buf, "");
	a.type = PM_TYPE_HARDWARE;
	a.config = 99;
	ck_assert_int_eq(pm_attr_format(&a, NULL, buf, sizeof(buf)), -PM_ERR_NO_PMU);
	ck_assert_int_eq(pm_attr_format(NULL, NULL, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The shared fixture trees (tests/fixtures/sysfs)                     */

static pm_pmu_list *fixture(const char *name)
{
	pm_pmu_list *pmus = NULL;
	char root[512];

	snprintf(root, sizeof(root), "%s/sysfs/%s", PM_FIXTURES, name);
	ck_assert_int_eq(pm_pmu_scan(&pmus, root), 0);
	return pmus;
}

START_TEST(test_fixture_amd_split)
{
	pm_pmu_list *pmus = fixture("amd");
	struct pm_attr a;

	/* cpu event = config:0-7,32-35 */
	a = attr_of(pmus, "cpu/event=0x1d6/");
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0xd6 | (1ULL << 32));
	a = attr_of(pmus, "cpu/event=0xfff,umask=0xff/");
	ck_assert_uint_eq(a.config, 0xff | (0xffULL << 8) | (0xfULL << 32));
	expect_err(pmus, "cpu/event=0x1000/", PM_ERR_RANGE, 10);
	ck_assert_ptr_nonnull(strstr(err.message, "0xfff"));
	/* amd_df event = config:0-7,32-35,59-60 (three ranges) */
	a = attr_of(pmus, "amd_df/event=0x3fff/");
	ck_assert_uint_eq(a.type, 12);
	ck_assert_uint_eq(a.config, 0xff | (0xfULL << 32) | (3ULL << 59));
	a = attr_of(pmus, "amd_df/event=0x1ff,umask=3/");
	ck_assert_uint_eq(a.config, 0xff | (3u << 8) | (1ULL << 32));
	expect_err(pmus, "amd_df/event=0x4000/", PM_ERR_RANGE, 13);
	ck_assert_ptr_nonnull(strstr(err.message, "0x3fff"));
	/* IBS: not a ProfileMe format, so precise does not flag ProfileMe */
	a = attr_of(pmus, "ibs_op/cnt_ctl=1,l3missonly/p");
	ck_assert_uint_eq(a.type, 11);
	ck_assert_uint_eq(a.config, (1u << 19) | (1u << 16));
	ck_assert_uint_eq(flags_of(0), 0);
	a = attr_of(pmus, "ibs_fetch/rand_en/");
	ck_assert_uint_eq(a.config, 1ULL << 57);
	round_trip(pmus, "amd_df/event=0x3fff,umask=0x1/", "amd_df/event=0x3fff,umask=0x1/");
	round_trip(pmus, "cpu/cpu-cycles/k", "cpu/event=0x76/k");
	drop_tree(pmus);
}
END_TEST

START_TEST(test_fixture_alpha_profileme)
{
	pm_pmu_list *pmus = fixture("alpha");
	struct pm_attr a;

	a = attr_of(pmus, "cpu/event=2,profileme/");
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0x102);
	ck_assert_uint_eq(a.sample_period, 0);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	a = attr_of(pmus, "cpu/event=2,period=1000/p");
	ck_assert_uint_eq(a.config, 0x2);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_PERIOD_SET);
	a = attr_of(pmus, "cycles:P"); /* no caps/max_precise: 3 */
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 3);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_PRECISE_MAX |
					 PM_EVENT_NEEDS_PERIOD);
	a = attr_of(pmus, "r102");
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_NEEDS_PERIOD);
	a = attr_of(pmus, "instructions:u");
	ck_assert_uint_eq(flags_of(0), 0);
	expect_err(pmus, "cpu/event=2,profileme,period=0/", PM_ERR_PROFILEME, 22);
	expect_err(pmus, "instructions/freq=0/pp", PM_ERR_PROFILEME, 13);
	expect_err(pmus, "{cpu/event=2,profileme/,cpu/event=3/}", PM_ERR_PROFILEME, 24);
	expect_err(pmus, "{cycles,instructions}:p", PM_ERR_PROFILEME, 8);
	ck_assert_int_eq(parse(pmus, "{cpu/event=2,profileme/,task-clock,cs}:u"), 0);
	ck_assert_uint_eq(flags_of(0), PM_EVENT_PROFILEME | PM_EVENT_GROUP_LEADER |
					 PM_EVENT_NEEDS_PERIOD);
	ck_assert_uint_eq(flags_of(1), 0);
	round_trip(pmus, "cpu/profileme,event=2,period=4000/u", "cpu/event=0x2,profileme,period=4000/u");
	drop_tree(pmus);
}
END_TEST

START_TEST(test_fixture_intel_uncore)
{
	pm_pmu_list *pmus = fixture("intel");
	struct pm_attr a;

	a = attr_of(pmus, "cpu/mem-loads,ldlat=0x10/");
	ck_assert_uint_eq(a.config, 0x1cd);
	ck_assert_uint_eq(a.config1, 0x10); /* replaced, not ORed (perf 6.1: 0x13) */
	a = attr_of(pmus, "cpu/cycles-t,in_tx=0/");
	ck_assert_uint_eq(a.config, 0x3c);
	a = attr_of(pmus, "cycles:P"); /* caps/max_precise = 3 */
	ck_assert_uint_eq(PM_ATTR_PRECISE_IP(&a), 3);
	a = attr_of(pmus, "imc_0/cas_count_read/");
	ck_assert_uint_eq(a.type, 13);
	ck_assert_uint_eq(a.config, 0x304);
	drop_tree(pmus);

	pmus = fixture("uncore");
	a = attr_of(pmus, "hv_24x7/PM_PB_CYC,core=3/");
	ck_assert_uint_eq(a.type, 10);
	ck_assert_uint_eq(a.config, 2 | (3u << 16) | (0x10ULL << 32));
	ck_assert_uint_eq(a.config1, 0);
	expect_err(pmus, "hv_24x7/PM_PB_CYC/", EINVAL, 8);
	ck_assert_ptr_nonnull(strstr(err.message, "core"));
	expect_err(pmus, "hv_24x7/PM_PB_INT_DATA_XFER,core=1/", EINVAL, 8);
	a = attr_of(pmus, "uncore_fabric_0/write_bw,filter=0x2/");
	ck_assert_uint_eq(a.config1, 0x2);
	ck_assert_uint_eq(a.config2, 0xf | (0xfULL << 32));
	a = attr_of(pmus, "uncore_fabric_0/stall/");
	ck_assert_uint_eq(a.config, 0x10 | (1u << 18));
	ck_assert_uint_eq(a.config2, 4u << 8);
	a = attr_of(pmus, "uncore_fabric_0/event=1,opc=0x3ff/");
	ck_assert_uint_eq(a.config3, 0x3ff);
	expect_err(pmus, "uncore_fabric_0/opc=0x400/", PM_ERR_RANGE, 20);
	round_trip(pmus, "uncore_fabric_0/read_bw,filter=0xffff/", NULL);
	drop_tree(pmus);
}
END_TEST


/* ------------------------------------------------------------------ */
/* Hardware cache, tracepoints, TYPE:CONFIG, breakpoints                */

START_TEST(test_hw_cache)
{
	/* config = cache | op << 8 | result << 16 (perf's numbering) */
	static const struct {
		const char *s;
		uint64_t config;
	} ok[] = {
		{ "L1-dcache-load-misses", 0x10000 },  { "L1-dcache-loads", 0x0 },
		{ "L1-dcache-stores", 0x100 },         { "L1-dcache-store-misses", 0x10100 },
		{ "L1-dcache-prefetches", 0x200 },     { "L1-dcache", 0x0 },
		{ "L1-dcache-misses", 0x10000 },       { "l1d-read-miss", 0x10000 },
		{ "L1-data-write-access", 0x100 },     { "L1-icache-load-misses", 0x10001 },
		{ "l1i-prefetches", 0x201 },           { "LLC-loads", 0x2 },
		{ "LLC-load-misses", 0x10002 },        { "L2-stores", 0x102 },
		{ "LLC-prefetch-misses", 0x10202 },    { "dTLB-load-misses", 0x10003 },
		{ "d-tlb-stores", 0x103 },             { "Data-TLB-store-misses", 0x10103 },
		{ "iTLB-loads", 0x4 },                 { "iTLB-load-misses", 0x10004 },
		{ "i-tlb-misses", 0x10004 },           { "branch-loads", 0x5 },
		{ "branch-load-misses", 0x10005 },     { "bpu-misses", 0x10005 },
		{ "btb-loads", 0x5 },                  { "node-loads", 0x6 },
		{ "node-store-misses", 0x10106 },      { "LLC-speculative-read-misses", 0x10202 },
		{ "dtlb-LOAD-MISSES", 0x10003 },       { "L1-dcache-misses-loads", 0x10000 },
	};
	struct pm_attr a;

	for (size_t i = 0; i < PM_ARRAY_SIZE(ok); i++) {
		a = attr_of(NULL, ok[i].s);
		ck_assert_msg(a.type == PM_TYPE_HW_CACHE, "%s: type %u", ok[i].s, a.type);
		ck_assert_msg(a.config == ok[i].config, "%s: config 0x%llx want 0x%llx", ok[i].s,
			      (unsigned long long)a.config, (unsigned long long)ok[i].config);
	}
	/* generic names win */
	a = attr_of(NULL, "branches");
	ck_assert_uint_eq(a.type, PM_TYPE_HARDWARE);
	a = attr_of(NULL, "branch-misses");
	ck_assert_uint_eq(a.type, PM_TYPE_HARDWARE);
	/* modifiers and terms */
	a = attr_of(NULL, "LLC-load-misses:u");
	ck_assert_uint_eq(a.config, 0x10002);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL) && !HAS(a, PM_ATTR_EXCLUDE_USER));
	a = attr_of(NULL, "dTLB-load-misses/period=1000/k");
	ck_assert_uint_eq(a.sample_period, 1000);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_USER));
	/* ops a cache lacks, unknown and repeated parts */
	expect_err(NULL, "L1-icache-stores", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "iTLB-prefetches", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "cycles,branch-stores", PM_ERR_SYNTAX, 7);
	expect_err(NULL, "L1-dcache-load-bogus", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "L1-dcache-load-store", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "L1-dcache-misses-refs", PM_ERR_SYNTAX, 0);
	expect_err(NULL, "L1-dcachex", PM_ERR_SYNTAX, 0);
}
END_TEST

static pm_pmu_list *tracing_tree(void)
{
	pm_pmu_list *pmus = NULL;

	ck_assert_int_eq(pm_pmu_scan(&pmus, PM_FIXTURES "/sysfs/tracing"), 0);
	return pmus;
}

START_TEST(test_tracepoint)
{
	pm_pmu_list *pmus;
	struct pm_attr a;
	uint64_t st = PM_SAMPLE_RAW | PM_SAMPLE_TIME | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD;

	unsetenv("PROFILEME_TRACEFS");
	pmus = tracing_tree();
	/* ids from the fixture's events/<sys>/<event>/id files */
	a = attr_of(pmus, "sched:sched_switch");
	ck_assert_uint_eq(a.type, PM_TYPE_TRACEPOINT);
	ck_assert_uint_eq(a.config, 372);
	ck_assert_uint_eq(a.sample_period, 1);
	ck_assert(!HAS(a, PM_ATTR_FREQ));
	ck_assert_uint_eq(a.sample_type & st, st);
	ck_assert_uint_eq(flags_of(0) & (PM_EVENT_DEFAULT_PERIOD | PM_EVENT_PERIOD_SET),
			  PM_EVENT_DEFAULT_PERIOD);
	ck_assert_str_eq(pm_event_string(pm_event_list_get(list, 0)), "sched:sched_switch");
	ck_assert_ptr_null(pm_event_pmu(pm_event_list_get(list, 0)));

	a = attr_of(pmus, "sched:sched_wakeup/period=10,name=wake/");
	ck_assert_uint_eq(a.config, 374);
	ck_assert_uint_eq(a.sample_period, 10);
	ck_assert_uint_eq(flags_of(0) & (PM_EVENT_DEFAULT_PERIOD | PM_EVENT_PERIOD_SET),
			  PM_EVENT_PERIOD_SET);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "wake");

	a = attr_of(pmus, "irq:irq_handler_entry:k");
	ck_assert_uint_eq(a.config, 225);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_USER) && !HAS(a, PM_ATTR_EXCLUDE_KERNEL));

	/* in lists and groups, next to other events */
	ck_assert_int_eq(parse(pmus, "cycles:u,sched:sched_process_exec,{task-clock,sched:sched_switch}"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 4);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.config, 365);
	pm_event_attr(pm_event_list_get(list, 3), &a);
	ck_assert_uint_eq(a.config, 372);
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 3)), 2);

	/* errors: no such event, a bad id file, a missing id file, unsafe names */
	expect_err(pmus, "sched:nosuch", ENOENT, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "sched/nosuch/id"));
	expect_err(pmus, "cycles,bad:junkid", PM_ERR_FORMAT, 7);
	expect_err(pmus, "bad:noid", ENOENT, 0);
	expect_err(pmus, "..:sched", ENOENT, 0);
	expect_err(pmus, "sched:..", ENOENT, 0);
	expect_err(pmus, "sched:sched_switch/bogus=1/", PM_ERR_UNKNOWN_TERM, 19);
	expect_err(pmus, "sched:sched_switch:q", PM_ERR_SYNTAX, 19);
	/* `name:mods` with an unknown name stays an unknown-event error */
	expect_err(pmus, "foo:u", PM_ERR_SYNTAX, 0);

	/* $PROFILEME_TRACEFS overrides the root */
	setenv("PROFILEME_TRACEFS", PM_FIXTURES "/sysfs/tracing/kernel/tracing", 1);
	a = attr_of(NULL, "sched:sched_switch");
	ck_assert_uint_eq(a.config, 372);
	setenv("PROFILEME_TRACEFS", PM_FIXTURES "/sysfs/intel", 1);
	expect_err(NULL, "sched:sched_switch", ENOENT, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "no tracefs"));
	unsetenv("PROFILEME_TRACEFS");
	pm_pmu_list_free(pmus);

	/* a tree without tracefs: a clear error, never the host's tracefs */
	ck_assert_int_eq(pm_pmu_scan(&pmus, PM_FIXTURES "/sysfs/intel"), 0);
	expect_err(pmus, "sched:sched_switch", ENOENT, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "intel/kernel/tracing"));
	pm_pmu_list_free(pmus);
}
END_TEST

START_TEST(test_numeric_and_breakpoint)
{
	struct pm_attr a;

	a = attr_of(NULL, "1:1");
	ck_assert_uint_eq(a.type, 1);
	ck_assert_uint_eq(a.config, 1);
	a = attr_of(NULL, "4:0x3c:u");
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0x3c);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	a = attr_of(NULL, "0x10:7/config1=3,period=5/");
	ck_assert_uint_eq(a.type, 16);
	ck_assert_uint_eq(a.config, 7);
	ck_assert_uint_eq(a.config1, 3);
	ck_assert_uint_eq(a.sample_period, 5);
	expect_err(NULL, "4294967296:1", PM_ERR_RANGE, 0);

	a = attr_of(NULL, "mem:0x1000");
	ck_assert_uint_eq(a.type, PM_TYPE_BREAKPOINT);
	ck_assert_uint_eq(a.bp_type, 3);
	ck_assert_uint_eq(a.config1, 0x1000);
	ck_assert_uint_eq(a.config2, 4);
	ck_assert_uint_eq(a.sample_period, 1);
	ck_assert(flags_of(0) & PM_EVENT_DEFAULT_PERIOD);
	a = attr_of(NULL, "mem:4096/8:w");
	ck_assert_uint_eq(a.bp_type, 2);
	ck_assert_uint_eq(a.config1, 4096);
	ck_assert_uint_eq(a.config2, 8);
	a = attr_of(NULL, "mem:0x400000:x:u");
	ck_assert_uint_eq(a.bp_type, 4);
	ck_assert_uint_eq(a.config2, sizeof(long));
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	a = attr_of(NULL, "mem:0x10:rw,cycles");
	ck_assert_uint_eq(a.bp_type, 3);
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	expect_err(NULL, "mem:zz", PM_ERR_SYNTAX, 4);
	expect_err(NULL, "mem:0x10/0", PM_ERR_SYNTAX, 9);
	expect_err(NULL, "mem:0x10:rr", PM_ERR_SYNTAX, 10);
}
END_TEST

/* Canonical strings of the new kinds parse back to the same attr. */
START_TEST(test_format_new_kinds)
{
	static const char *const in[] = { "L1-dcache-load-misses", "LLC-loads:u",
					   "dTLB-store-misses/period=7/", "sched:sched_switch",
					   "sched:sched_wakeup/period=3/k", "mem:0x1000/8:w",
					   "mem:0x2000:x:u", "3:0x7", "2:0x9999" };
	static const char *const want[] = { "L1-dcache-load-misses", "LLC-loads:u",
					     "dTLB-store-misses/period=7/", "sched:sched_switch",
					     "sched:sched_wakeup/period=3/:k", "mem:0x1000/8:w",
					     NULL, "3:0x7", "2:0x9999" };
	pm_pmu_list *pmus;
	char buf[256];

	unsetenv("PROFILEME_TRACEFS");
	pmus = tracing_tree();
	for (size_t i = 0; i < PM_ARRAY_SIZE(in); i++) {
		struct pm_attr a = attr_of(pmus, in[i]), b;

		ck_assert_int_gt(pm_attr_format(&a, pmus, buf, sizeof(buf)), 0);
		if (want[i])
			ck_assert_msg(!strcmp(buf, want[i]), "%s -> %s, want %s", in[i], buf, want[i]);
		b = attr_of(pmus, buf);
		ck_assert_msg(a.type == b.type && a.config == b.config && a.config1 == b.config1 &&
				      a.config2 == b.config2 && a.bp_type == b.bp_type &&
				      a.sample_period == b.sample_period && a.flags == b.flags,
			      "%s -> %s does not round-trip", in[i], buf);
	}
	pm_pmu_list_free(pmus);
}
END_TEST

/* exclude_guest is perf's default; PM_EVENT_OPT_GUEST drops it as perf kvm. */
START_TEST(test_guest_option)
{
	struct pm_event_opts o = { .sz = sizeof(o), .flags = PM_EVENT_OPT_GUEST };
	struct pm_event_opts bad = { .sz = sizeof(bad), .flags = 0x80 };
	pm_event_list *l = NULL;
	struct pm_attr a;
	static const struct {
		const char *s;
		bool eg, eH;
	} t[] = {
		{ "cycles", false, false }, { "cycles:u", false, false },
		{ "cycles:k", false, false }, { "cycles:p", true, false },
		{ "cycles:Gp", false, true }, { "cycles:H", true, false },
		{ "cycles:I", false, false },
		{ "{cycles,instructions}:u", false, false },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		ck_assert_int_eq(pm_event_parse_opts(&l, NULL, t[i].s, &o, NULL), 0);
		pm_event_attr(pm_event_list_get(l, 0), &a);
		ck_assert_msg(HAS(a, PM_ATTR_EXCLUDE_GUEST) == t[i].eg &&
				      HAS(a, PM_ATTR_EXCLUDE_HOST) == t[i].eH,
			      "%s: guest %d host %d", t[i].s, HAS(a, PM_ATTR_EXCLUDE_GUEST),
			      HAS(a, PM_ATTR_EXCLUDE_HOST));
		pm_event_list_free(l);
		l = NULL;
	}
	/* default and NULL opts: set */
	ck_assert_int_eq(pm_event_parse_opts(&l, NULL, "cycles:Gp", NULL, NULL), 0);
	pm_event_attr(pm_event_list_get(l, 0), &a);
	ck_assert(!HAS(a, PM_ATTR_EXCLUDE_GUEST) && HAS(a, PM_ATTR_EXCLUDE_HOST));
	pm_event_list_free(l);
	l = NULL;
	ck_assert_int_eq(pm_event_parse_opts(&l, NULL, "mem:0x10", NULL, NULL), 0);
	pm_event_attr(pm_event_list_get(l, 0), &a);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_GUEST));
	pm_event_list_free(l);
	l = NULL;
	ck_assert_int_eq(pm_event_parse_opts(&l, NULL, "cycles", &bad, NULL), -EINVAL);
	ck_assert_ptr_null(l);
	bad.sz = 2;
	bad.flags = 0;
	ck_assert_int_eq(pm_event_parse_opts(&l, NULL, "cycles", &bad, NULL),
			 -PM_ERR_STRUCT_SIZE);
}
END_TEST

/* PM_EVENT_OPT_SAMPLING: perf record's -c / -F / 4000 Hz for events whose
 * string sets no period= / freq= (perf record -vv prints freq 1,
 * sample_freq 4000 for `-e cycles`; the string's own term wins, and a
 * breakpoint keeps period 1 unless -c). */
START_TEST(test_sampling_option)
{
	static const struct {
		const char *s;
		uint64_t period, freq; /* the options */
		uint64_t want;
		bool want_freq;
	} t[] = {
		{ "cycles", 0, 0, 4000, true },
		{ "cycles", 0, 999, 999, true },
		{ "cycles", 12345, 0, 12345, false },
		{ "cycles", 12345, 999, 12345, false },
		{ "cycles/period=777/", 0, 999, 777, false },
		{ "cycles/freq=50/", 100, 0, 50, true },
		{ "mem:0x1000", 0, 999, 1, false },
		{ "mem:0x1000", 100, 0, 100, false },
		{ "{cycles,instructions}:u", 0, 0, 4000, true },
	};
	pm_event_list *l = NULL;
	struct pm_attr a;

	ck_assert_int_eq(PM_DEFAULT_SAMPLE_FREQ, 4000);
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_event_opts o = { .sz = sizeof(o), .flags = PM_EVENT_OPT_SAMPLING,
					   .sample_period = t[i].period, .sample_freq = t[i].freq };

		ck_assert_int_eq(pm_event_parse_opts(&l, NULL, t[i].s, &o, NULL), 0);
		for (size_t k = 0; k < pm_event_list_count(l); k++) {
			pm_event_attr(pm_event_list_get(l, k), &a);
			ck_assert_msg(a.sample_period == t[i].want &&
					      HAS(a, PM_ATTR_FREQ) == t[i].want_freq,
				      "%s (-c %llu -F %llu) event %zu: period %llu freq %d", t[i].s,
				      (unsigned long long)t[i].period, (unsigned long long)t[i].freq,
				      k, (unsigned long long)a.sample_period, HAS(a, PM_ATTR_FREQ));
		}
		pm_event_list_free(l);
		l = NULL;
	}
	/* without the flag: the attr as the string gives it (counting) */
	{
		struct pm_event_opts o = { .sz = sizeof(o), .sample_freq = 999 };

		ck_assert_int_eq(pm_event_parse_opts(&l, NULL, "cycles", &o, NULL), 0);
		pm_event_attr(pm_event_list_get(l, 0), &a);
		ck_assert_uint_eq(a.sample_period, 0);
		ck_assert(!HAS(a, PM_ATTR_FREQ));
		pm_event_list_free(l);
		l = NULL;
	}
	/* a 0.1 caller's struct (up to flags) gets the default frequency */
	{
		struct pm_event_opts o = { .sz = PM_EVENT_OPTS_SZ_V1, .flags = PM_EVENT_OPT_SAMPLING,
					   .sample_period = 5 /* beyond sz: not read */ };

		ck_assert_int_eq(pm_event_parse_opts(&l, NULL, "cycles", &o, NULL), 0);
		pm_event_attr(pm_event_list_get(l, 0), &a);
		ck_assert_uint_eq(a.sample_period, 4000);
		ck_assert(HAS(a, PM_ATTR_FREQ));
		pm_event_list_free(l);
	}
}
END_TEST

static const char *perf_name_of(const pm_pmu_list *pmus, const char *s)
{
	static char buf[256];
	struct pm_attr a = attr_of(pmus, s);
	int n = pm_attr_perf_name(&a, pmus, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq((size_t)n, strlen(buf));
	return buf;
}

/* evsel-roundtrip-name: perf 6.1's hardware, software and cache names parse
 * and print back as themselves; other names as perf's evsel__name(). */
START_TEST(test_perf_name)
{
	/* perf 6.1's evsel__hw_names and evsel__sw_names */
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
					  "cache-misses", "branches", "branch-misses",
					  "bus-cycles", "stalled-cycles-frontend",
					  "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
					  "context-switches", "cpu-migrations", "minor-faults",
					  "major-faults", "alignment-faults", "emulation-faults",
					  "dummy" };
	/* perf's cache tables: type, op (singular, plural), valid ops */
	static const char *const ctype[] = { "L1-dcache", "L1-icache", "LLC", "dTLB",
					     "iTLB", "branch", "node" };
	static const char *const cop[][2] = { { "load", "loads" }, { "store", "stores" },
					      { "prefetch", "prefetches" } };
	static const unsigned valid[] = { 7, 5, 7, 7, 1, 1, 7 };
	static const struct {
		const char *in, *name;
	} t[] = {
		{ "cycles:u", "cycles:uH" },   { "cycles:k", "cycles:k" },
		{ "cycles:pp", "cycles:ppH" }, { "cycles:ukp", "cycles:kupH" },
		{ "cycles:h", "cycles:h" },   { "cycles:G", "cycles:G" },
		{ "cycles:H", "cycles" }, { "cycles:I", "cycles:HG" },      { "cycles:GH", "cycles:HG" },
		{ "cycles:uG", "cycles:uG" },  { "instructions:kp", "instructions:kpH" },
		{ "r1a", "raw 0x1a" },         { "r3c:u", "raw 0x3c:uH" },
		{ "bpf-output", "unknown-software" }, { "cs", "context-switches" },
		{ "L1-dcache-load-misses:u", "L1-dcache-load-misses:uH" },
		{ "mem:0x1000:w", "mem:0x1000:w" }, { "mem:0x2000", "mem:0x2000:rw" },
		{ "mem:0x10:x:u", "mem:0x10:x:uH" }, { "0:99", "unknown-hardware" },
		{ "3:0x7", "unknown-ext-hardware-cache-type" },
		{ "3:0x304", "unknown-ext-hardware-cache-op" },
		{ "3:0x20000", "unknown-ext-hardware-cache-result" },
		{ "3:0x104", "invalid-cache" }, { "77:1", "unknown attr type: 77" },
		{ "0:0x800000000", "cpu/cycles/" },
	};
	char want[128];
	struct pm_attr a;

	for (size_t i = 0; i < PM_ARRAY_SIZE(hw); i++)
		ck_assert_str_eq(perf_name_of(NULL, hw[i]), hw[i]);
	for (size_t i = 0; i < PM_ARRAY_SIZE(sw); i++)
		ck_assert_str_eq(perf_name_of(NULL, sw[i]), sw[i]);
	for (size_t ty = 0; ty < PM_ARRAY_SIZE(ctype); ty++) {
		for (size_t op = 0; op < 3; op++) {
			if (!(valid[ty] & (1u << op)))
				continue;
			for (int res = 0; res < 2; res++) {
				if (res)
					snprintf(want, sizeof(want), "%s-%s-misses", ctype[ty],
						 cop[op][0]);
				else
					snprintf(want, sizeof(want), "%s-%s", ctype[ty], cop[op][1]);
				ck_assert_str_eq(perf_name_of(NULL, want), want);
			}
		}
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++)
		ck_assert_str_eq(perf_name_of(NULL, t[i].in), t[i].name);
	/* a dynamic PMU type: its format fields */
	{
		pm_pmu_list *pl = fixture("intel");
		char buf[8];

		/* cpu is type 4 (PERF_TYPE_RAW) there: perf says raw */
		ck_assert_str_eq(perf_name_of(pl, "cpu/event=0x3c,umask=0x1/"), "raw 0x13c");
		ck_assert_str_eq(perf_name_of(pl, "uncore_imc_0/event=0x4,umask=0x3/u"),
				 "uncore_imc_0/event=0x4,umask=0x3/uH");
		ck_assert_str_eq(perf_name_of(pl, "uncore_imc_0/config=0x100000004/"),
				 "uncore_imc_0/event=0x4,config=0x100000000/");
		pm_attr_init(&a);
		a.type = PM_TYPE_RAW;
		a.config = 0x1a;
		/* exclude_guest clear: perf prints both contexts (raw 0x1a:HG) */
		ck_assert_int_eq(pm_attr_perf_name(&a, pl, buf, sizeof(buf)), 11);
		ck_assert_str_eq(buf, "raw 0x1");
		pm_pmu_list_free(pl);
	}
	ck_assert_int_eq(pm_attr_perf_name(NULL, NULL, want, sizeof(want)), -EINVAL);
}
END_TEST

/* perf's grammar on the fixture tree `grammar` (values from its sysfs files;
 * tests/perf/test_grammar_vs_perf.py checks the same strings against perf). */
START_TEST(test_perf_grammar)
{
	pm_pmu_list *pl = fixture("grammar"), *hy = fixture("hybrid");
	struct pm_attr a;

	/* event=ALIAS is the alias (cycles-t: event=0x3c,in_tx=1) */
	a = attr_of(pl, "cpu/event=cycles-t/u");
	ck_assert_uint_eq(a.config, 0x10000003cULL);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	/* bare config words are 1; a raw term sets config (read is r + ead) */
	a = attr_of(pl, "cpu/config=10,config1,config2=3,period=1000/u");
	ck_assert_uint_eq(a.config, 10);
	ck_assert_uint_eq(a.config1, 1);
	ck_assert_uint_eq(a.config2, 3);
	a = attr_of(pl, "software/r1a/");
	ck_assert_uint_eq(a.type, 1);
	ck_assert_uint_eq(a.config, 0x1a);
	a = attr_of(pl, "software/r0x1a/");
	ck_assert_uint_eq(a.config, 0x1a);
	a = attr_of(pl, "cpu/read/");
	ck_assert_uint_eq(a.config, 0xead);
	/* named groups; D and e of a group on the leader only */
	ck_assert_int_eq(parse(pl, "group1{cycles,instructions:u},group2{cs}:D,faults"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 4);
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 1)), 0);
	pm_event_attr(pm_event_list_get(list, 2), &a);
	ck_assert(HAS(a, PM_ATTR_PINNED));
	ck_assert_int_eq(parse(pl, "{cycles,cache-misses,branch-misses}:e"), 0);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	ck_assert(HAS(a, PM_ATTR_EXCLUSIVE));
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert(!HAS(a, PM_ATTR_EXCLUSIVE));
	ck_assert_int_eq(parse(pl, "{cycles,instructions}:W"), 0);
	ck_assert(flags_of(0) & PM_EVENT_WEAK_GROUP);
	/* intel_pt's default config (tsc, mtc, mtc_period=3, psb_period=3, pt,
	 * branch from the fixture's format/ and caps/), under the user's terms */
	a = attr_of(pl, "intel_pt//u");
	ck_assert_uint_eq(a.config, (1ULL << 10) | (1ULL << 9) | (3ULL << 14) | (3ULL << 24) |
					    1 | (1ULL << 13));
	a = attr_of(pl, "intel_pt/tsc=0,cyc/");
	ck_assert_uint_eq(a.config, (1ULL << 9) | (3ULL << 14) | (3ULL << 24) | 1 | (1ULL << 13) |
					    (1ULL << 1));
	/* PMU wildcard: uncore_imc_0 (type 13) and uncore_imc_1 (14) */
	ck_assert_int_eq(parse(pl, "uncore_imc/clockticks/k"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	ck_assert_uint_eq(a.type, 13);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_USER));
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.type, 14);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_USER));
	ck_assert_int_eq(parse(pl, "imc/clockticks/"), 0); /* uncore_ may be left out */
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	ck_assert_int_eq(parse(pl, "uncore_im/clockticks/"), -PM_ERR_NO_PMU);
	/* tracepoint globs over the fixture tracefs */
	ck_assert_int_eq(parse(pl, "sched:sched_*"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 5);
	ck_assert_int_eq(parse(pl, "syscalls:*:u"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.type, PM_TYPE_TRACEPOINT);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	ck_assert_int_eq(parse(pl, "*:*"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 8);
	ck_assert_int_eq(parse(pl, "sched:nomatch*"), -ENOENT);
	ck_assert_uint_eq(err.position, 0);
	/* hybrid: one event per core PMU (cpu_atom 10, cpu_core 4), type in config */
	ck_assert_int_eq(parse(hy, "cycles:u"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	ck_assert_uint_eq(a.config, 0xa00000000ULL);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.config, 0x400000000ULL);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	ck_assert_int_eq(parse(hy, "r1a"), 0);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.type, 4);
	ck_assert_uint_eq(a.config, 0x1a);
	a = attr_of(hy, "cpu_core/LLC-loads/");
	ck_assert_uint_eq(a.type, PM_TYPE_HW_CACHE);
	ck_assert_uint_eq(a.config, 0x400000002ULL);
	a = attr_of(hy, "cpu_core/instructions/");
	ck_assert_uint_eq(a.config, 0x400000001ULL);
	ck_assert_str_eq(perf_name_of(hy, "cpu_core/instructions/u"), "cpu_core/instructions/:uH");
	pm_pmu_list_free(pl);
	pm_pmu_list_free(hy);
}
END_TEST

/* Per-event config terms: kept on the event, with perf's attr bits. */
START_TEST(test_config_terms)
{
	struct pm_event_term t = { sizeof(t), 0, NULL, NULL, 0 };
	const pm_event *ev;
	struct pm_attr a;

	ck_assert_int_eq(parse(NULL, "cycles/call-graph=dwarf,stack-size=4096,no-inherit,"
				     "max-stack=3,metric-id=x/u"), 0);
	ev = pm_event_list_get(list, 0);
	pm_event_attr(ev, &a);
	ck_assert_uint_eq(a.sample_type, PM_SAMPLE_CALLCHAIN | PM_SAMPLE_REGS_USER |
						 PM_SAMPLE_STACK_USER);
	ck_assert_uint_eq(a.sample_stack_user, 4096);
	ck_assert_uint_eq(a.sample_max_stack, 3);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_CALLCHAIN_USER) && !HAS(a, PM_ATTR_INHERIT));
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	ck_assert_uint_eq(pm_event_term_count(ev), 5);
	ck_assert_int_eq(pm_event_term_get(ev, 0, &t), 0);
	ck_assert_int_eq(t.kind, PM_ETERM_CALL_GRAPH);
	ck_assert_str_eq(t.name, "call-graph");
	ck_assert_str_eq(t.value, "dwarf");
	ck_assert_int_eq(pm_event_term_get(ev, 2, &t), 0);
	ck_assert_int_eq(t.kind, PM_ETERM_INHERIT);
	ck_assert_uint_eq(t.num, 0);
	ck_assert_ptr_null(t.value);
	ck_assert_int_eq(pm_event_term_get(ev, 4, &t), 0);
	ck_assert_str_eq(t.value, "x");
	ck_assert_int_eq(pm_event_term_get(ev, 5, &t), -EINVAL);
	t.sz = 3;
	ck_assert_int_eq(pm_event_term_get(ev, 0, &t), -PM_ERR_STRUCT_SIZE);
	a = attr_of(NULL, "cycles/call-graph=lbr/");
	ck_assert_uint_eq(a.branch_sample_type, 0x2c801);
	a = attr_of(NULL, "cycles/time=0,overwrite,aux-sample-size=4096,branch_type=any/");
	ck_assert(HAS(a, PM_ATTR_WRITE_BACKWARD));
	ck_assert_uint_eq(a.sample_type, PM_SAMPLE_AUX | PM_SAMPLE_BRANCH_STACK);
	ck_assert_uint_eq(a.branch_sample_type, 1 << 3);
	ck_assert_int_eq(parse(NULL, "cycles/call-graph=bogus/"), -PM_ERR_SYNTAX);
	ck_assert_uint_eq(err.position, 18);
	ck_assert_int_eq(parse(NULL, "cycles/max-stack=70000/"), -PM_ERR_RANGE);
	ck_assert_int_eq(parse(NULL, "cycles/inherit=1/"), -PM_ERR_SYNTAX);
	ck_assert_int_eq(parse(NULL, "cycles/branch_type=nope/"), -PM_ERR_SYNTAX);
	/* terms survive a wildcard/hybrid copy */
	{
		pm_pmu_list *hy = fixture("hybrid");

		ck_assert_int_eq(parse(hy, "cycles/call-graph=fp,metric-id=m/"), 0);
		ck_assert_uint_eq(pm_event_list_count(list), 2);
		ck_assert_int_eq(pm_event_term_get(pm_event_list_get(list, 1), 1, &t), -PM_ERR_STRUCT_SIZE);
		t.sz = sizeof(t);
		ck_assert_int_eq(pm_event_term_get(pm_event_list_get(list, 1), 1, &t), 0);
		ck_assert_str_eq(t.value, "m");
		pm_pmu_list_free(hy);
	}
}
END_TEST

/* The Alpha driver's ProfileMe rules (arch/alpha/kernel/perf_event.c with the
 * ProfileMe patch: raw codes 1..4, config bits 0-8, hardware events cycles,
 * instructions, cache-misses) and out-of-range numbers. */
START_TEST(test_pmu_alias_file)
{
	/* a PMU's sysfs alias file names it too (perf 6.1 on x86: pmu lookup by
	 * alias_name, and its PMU wildcard matches the alias without the
	 * uncore_ shortening; expectations from perf record -vv) */
	pm_pmu_list *pl = fixture("grammar");
	const pm_pmu *u = pm_pmu_find(pl, "uncore_cha_1");
	struct pm_attr a;

	ck_assert_ptr_nonnull(u);
	ck_assert_str_eq(pm_pmu_name(u), "uncore_type_0_1");
	ck_assert_str_eq(pm_pmu_alt_name(u), "uncore_cha_1");
	ck_assert_ptr_null(pm_pmu_alt_name(pm_pmu_find(pl, "cpu")));
	ck_assert_ptr_null(pm_pmu_alt_name(NULL));
	a = attr_of(pl, "uncore_cha_0/event=0x1/");
	ck_assert_uint_eq(a.type, 20);
	ck_assert_uint_eq(a.config, 1);
	ck_assert_int_eq(parse(pl, "uncore_cha/event=0x2/u"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.type, 21);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	ck_assert_int_eq(parse(pl, "uncore_cha_0/event=0x3/"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 1);
	ck_assert_int_eq(parse(pl, "cha/event=0x1/"), -PM_ERR_NO_PMU);
	pm_pmu_list_free(pl);
}
END_TEST

START_TEST(test_hybrid_group)
{
	/* perf 6.1 on cpu_core + cpu_atom: a group stays one group whose members
	 * expand in place, per core PMU (cpu_atom first, its directory order), led
	 * by the first (perf record -vv: one group_fd for all four) */
	pm_pmu_list *hy = fixture("hybrid");
	static const uint64_t want[] = { 0xa00000000ULL, 0x400000000ULL, 0xa00000001ULL,
					 0x400000001ULL };
	struct pm_attr a;

	ck_assert_int_eq(parse(hy, "{cycles,instructions}:S"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 4);
	for (size_t i = 0; i < 4; i++) {
		pm_event_attr(pm_event_list_get(list, i), &a);
		ck_assert_uint_eq(a.config, want[i]);
		ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, i)), 0);
		ck_assert(flags_of(i) & PM_EVENT_SAMPLE_READ);
	}
	ck_assert(flags_of(0) & PM_EVENT_GROUP_LEADER);
	ck_assert(!(flags_of(1) & PM_EVENT_GROUP_LEADER));
	pm_pmu_list_free(hy);
}
END_TEST

START_TEST(test_sink_and_b)
{
	/* perf 6.1: @SINK is a driver-config term (no attr bits); b is the
	 * bpf_counter modifier (no attr bit; it resets exclude_guest as any
	 * modifier list without u/k/h/p: perf record -vv) */
	pm_pmu_list *pl = fixture("grammar");
	struct pm_attr a;
	struct pm_event_term t;
	const pm_event *ev;

	ck_assert_int_eq(parse(pl, "cpu/event=0x3c,@tmc_etr0/u"), 0);
	ev = pm_event_list_get(list, 0);
	pm_event_attr(ev, &a);
	ck_assert_uint_eq(a.config, 0x3c);
	ck_assert_uint_eq(pm_event_term_count(ev), 1);
	memset(&t, 0, sizeof(t));
	t.sz = sizeof(t);
	ck_assert_int_eq(pm_event_term_get(ev, 0, &t), 0);
	ck_assert_int_eq(t.kind, PM_ETERM_DRV_CFG);
	ck_assert_str_eq(t.name, "@");
	ck_assert_str_eq(t.value, "tmc_etr0");
	ck_assert_int_eq(parse(pl, "cpu/config=1,@cfg=abc:1/"), 0);
	ck_assert_int_eq(pm_event_term_get(pm_event_list_get(list, 0), 0, &t), 0);
	ck_assert_str_eq(t.value, "cfg=abc:1");
	ck_assert_int_eq(parse(pl, "cpu/@a-b/"), -PM_ERR_SYNTAX);
	ck_assert_uint_eq(err.position, 6);
	ck_assert_int_eq(parse(pl, "cpu/@,config=2/"), -PM_ERR_SYNTAX);
	ck_assert_uint_eq(err.position, 5);
	ck_assert_int_eq(parse(pl, "cycles:b"), 0);
	ck_assert(flags_of(0) & PM_EVENT_BPF_COUNTER);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	ck_assert(!HAS(a, PM_ATTR_EXCLUDE_GUEST));
	ck_assert_int_eq(parse(pl, "{cycles,instructions}:ub"), 0);
	ck_assert(flags_of(1) & PM_EVENT_BPF_COUNTER);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert(HAS(a, PM_ATTR_EXCLUDE_KERNEL));
	ck_assert_int_eq(parse(pl, "cycles:bb"), -PM_ERR_SYNTAX);
	pm_pmu_list_free(pl);
}
END_TEST

START_TEST(test_topdown_leader)
{
	/* perf 6.1 (x86 arch_evlist__leader): with cpu/events/slots, a group
	 * holding a *slots* and a *topdown* event of cpu is led by the slots
	 * event; the others keep their order (expectations: perf record -vv) */
	pm_pmu_list *pl = fixture("grammar"), *intel = fixture("intel");
	struct pm_attr a;

	ck_assert_int_eq(parse(pl, "{topdown-retiring,slots}:D"), 0);
	ck_assert_uint_eq(pm_event_list_count(list), 2);
	pm_event_attr(pm_event_list_get(list, 0), &a);
	ck_assert_uint_eq(a.config, 0x400);
	ck_assert(HAS(a, PM_ATTR_PINNED)); /* the group's D goes to the new leader */
	ck_assert(flags_of(0) & PM_EVENT_GROUP_LEADER);
	pm_event_attr(pm_event_list_get(list, 1), &a);
	ck_assert_uint_eq(a.config, 0x8000);
	ck_assert(!HAS(a, PM_ATTR_PINNED));
	ck_assert_uint_eq(pm_event_group(pm_event_list_get(list, 1)), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "slots");
	ck_assert_int_eq(parse(pl, "{instructions,topdown-fe-bound:u,cpu/slots/}"), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "cpu/slots/");
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 1)), "instructions");
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 2)), "topdown-fe-bound:u");
	/* perf goes by name: topdown-total-slots is both */
	ck_assert_int_eq(parse(pl, "{cycles,topdown-total-slots}"), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "topdown-total-slots");
	/* not named slots, no topdown event, or not a group: no change */
	ck_assert_int_eq(parse(pl, "{topdown-retiring,cpu/event=0,umask=4/}"), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "topdown-retiring");
	ck_assert_int_eq(parse(pl, "{cycles,slots}"), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "cycles");
	ck_assert_int_eq(parse(pl, "topdown-retiring,slots"), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "topdown-retiring");
	/* a core PMU without events/slots: no change */
	ck_assert_ptr_null(pm_pmu_alias_find(pm_pmu_find(intel, "cpu"), "slots"));
	ck_assert_int_eq(parse(intel, "{cpu/event=0x3c,name=topdown-x/,cpu/event=0,umask=4,name=slots/}"), 0);
	ck_assert_str_eq(pm_event_name(pm_event_list_get(list, 0)), "topdown-x");
	pm_pmu_list_free(pl);
	pm_pmu_list_free(intel);
}
END_TEST

START_TEST(test_profileme_driver_rules)
{
	pm_pmu_list *al = fixture("alpha");
	char path[512];
	FILE *f;

	ck_assert_int_eq(parse(al, "r108"), -PM_ERR_PROFILEME);
	ck_assert_uint_eq(err.position, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "config:8"));
	ck_assert_int_eq(parse(al, "cycles,cpu/event=5/p"), -PM_ERR_PROFILEME);
	ck_assert_uint_eq(err.position, 7);
	ck_assert_ptr_nonnull(strstr(err.message, "precise_ip"));
	ck_assert_int_eq(parse(al, "cpu/config=0x302/p"), -PM_ERR_PROFILEME);
	ck_assert_ptr_nonnull(strstr(err.message, "0x200"));
	ck_assert_int_eq(parse(al, "cache-references:p"), -PM_ERR_PROFILEME);
	ck_assert_int_eq(parse(al, "cache-references"), 0); /* not ProfileMe: the rule is not ours */
	ck_assert_int_eq(parse(al, "r5"), 0);              /* event 5 without ProfileMe */
	ck_assert_int_eq(parse(al, "cpu/event=4,profileme/"), 0);
	ck_assert(flags_of(0) & PM_EVENT_NEEDS_PERIOD);
	ck_assert_int_eq(parse(al, "cpu/event=4,profileme,freq=100/"), 0);
	ck_assert(!(flags_of(0) & PM_EVENT_NEEDS_PERIOD));
	ck_assert_int_eq(parse(al, "cache-misses:pp"), 0);
	ck_assert(flags_of(0) & PM_EVENT_NEEDS_PERIOD);
	pm_pmu_list_free(al);

	ck_assert_int_eq(parse(NULL, "r18446744073709551616"), -PM_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(err.message, "out of range"));
	ck_assert_int_eq(parse(NULL, "mem:0x1/18446744073709551616"), -PM_ERR_RANGE);
	ck_assert_uint_eq(err.position, 8);
	ck_assert_int_eq(parse(NULL, "mem:18446744073709551616"), -PM_ERR_RANGE);
	ck_assert_uint_eq(err.position, 4);
	/* freq= above the kernel's maximum (a file standing in for the sysctl) */
	snprintf(path, sizeof(path), "%s/max_sample_rate.%d", PM_TEST_BINDIR, (int)getpid());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("100000\n", f);
	fclose(f);
	setenv("PROFILEME_MAX_SAMPLE_RATE_FILE", path, 1);
	ck_assert_int_eq(parse(NULL, "cycles/freq=100000000/"), -PM_ERR_RANGE);
	ck_assert_uint_eq(err.position, 12);
	ck_assert_int_eq(parse(NULL, "cycles/freq=100000/"), 0);
	ck_assert_int_eq(pm_event_check_freq(100001), -PM_ERR_RANGE);
	ck_assert_int_eq(pm_event_check_freq(99), 0);
	unsetenv("PROFILEME_MAX_SAMPLE_RATE_FILE");
	unlink(path);
}
END_TEST

static Suite *event_suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60); /* sanitizers and qemu-user are slow */

	tcase_add_test(tc, test_generic_names);
	tcase_add_test(tc, test_generic_terms);
	tcase_add_test(tc, test_raw);
	tcase_add_test(tc, test_modifiers_ukh);
	tcase_add_test(tc, test_modifiers_other);
	tcase_add_test(tc, test_modifier_errors);
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_syntax_errors);
	tcase_add_test(tc, test_error_struct);
	tcase_add_test(tc, test_pmu_terms);
	tcase_add_test(tc, test_pmu_errors);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_profileme);
	tcase_add_test(tc, test_profileme_core);
	tcase_add_test(tc, test_format_round_trip);
	tcase_add_test(tc, test_format_edges);
	tcase_add_test(tc, test_fixture_amd_split);
	tcase_add_test(tc, test_fixture_alpha_profileme);
	tcase_add_test(tc, test_fixture_intel_uncore);
	tcase_add_test(tc, test_hw_cache);
	tcase_add_test(tc, test_tracepoint);
	tcase_add_test(tc, test_numeric_and_breakpoint);
	tcase_add_test(tc, test_format_new_kinds);
	tcase_add_test(tc, test_guest_option);
	tcase_add_test(tc, test_sampling_option);
	tcase_add_test(tc, test_perf_name);
	tcase_add_test(tc, test_perf_grammar);
	tcase_add_test(tc, test_config_terms);
	tcase_add_test(tc, test_profileme_driver_rules);
	tcase_add_test(tc, test_topdown_leader);
	tcase_add_test(tc, test_sink_and_b);
	tcase_add_test(tc, test_hybrid_group);
	tcase_add_test(tc, test_pmu_alias_file);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(event_suite)
