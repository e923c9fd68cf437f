/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the whole sysfs PMU scanner, pm_pmu_scan(), over a tree built
 * in a temporary directory from the input, then event strings that use it.
 *
 * The input is split at NUL bytes into the contents of, in order:
 *   type, cpumask, format/event, format/umask, format/flag, events/ev,
 *   events/ev.scale, events/ev.unit, caps/max_precise,
 *   perf_event_mux_interval_ms, and an event string parsed against the tree.
 * A missing part removes the file.
 */
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profileme/event.h>
#include <profileme/pmu.h>

#include "fuzz_common.h"

static const char *const files[] = {
	"type", "cpumask", "format/event", "format/umask", "format/flag", "events/ev",
	"events/ev.scale", "events/ev.unit", "caps/max_precise", "perf_event_mux_interval_ms",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static char root[256], dev[512];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(p);
}

static void cleanup(void)
{
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/pm_fuzz_sysfs.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	const char *const dirs[] = { "/bus", "/bus/event_source", "/bus/event_source/devices",
				     "/bus/event_source/devices/fz" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(dev, sizeof(dev), "%s%s", root, dirs[i]);
		if (mkdir(dev, 0755) != 0)
			abort();
	}
	const char *const sub[] = { "format", "events", "caps" };
	char p[768];
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dev, sub[i]);
		if (mkdir(p, 0755) != 0)
			abort();
	}
}

static void walk(const pm_pmu_list *l)
{
	for (size_t i = 0; i < pm_pmu_list_count(l); i++) {
		const pm_pmu *p = pm_pmu_list_get(l, i);
		uint32_t type;
		int cpus[8];
		size_t n;
		PM_FUZZ_ASSERT(pm_pmu_name(p) != NULL);
		(void)pm_pmu_type(p, &type);
		(void)pm_pmu_is_profileme(p);
		(void)pm_pmu_cpus(p);
		(void)pm_pmu_is_uncore(p);
		(void)pm_pmu_cpu_list(p, cpus, 8, &n);
		(void)pm_pmu_mux_interval_ms(p);
		(void)pm_pmu_rdpmc(p);
		(void)pm_pmu_max_precise(p);
		for (size_t k = 0; k < pm_pmu_format_count(p); k++) {
			const pm_format *f = pm_pmu_format_get(p, k);
			uint64_t bits = 0;
			PM_FUZZ_ASSERT(pm_format_name(f) && pm_format_spec(f));
			(void)pm_format_word(f);
			(void)pm_format_width(f);
			uint64_t m = pm_format_mask(f);
			if (pm_format_encode(f, 1, &bits) == 0)
				PM_FUZZ_ASSERT((bits & ~m) == 0);
			(void)pm_format_decode(f, ~(uint64_t)0);
		}
		for (size_t k = 0; k < pm_pmu_alias_count(p); k++) {
			const pm_alias *a = pm_pmu_alias_get(p, k);
			PM_FUZZ_ASSERT(pm_alias_name(a) && pm_alias_text(a));
			for (size_t t = 0; t < pm_alias_term_count(a); t++) {
				uint64_t v;
				PM_FUZZ_ASSERT(pm_alias_term_name(a, t) != NULL);
				(void)pm_alias_term_value(a, t, &v);
			}
			(void)pm_alias_unit(a);
			(void)pm_alias_scale(a);
			(void)pm_alias_per_pkg(a);
			(void)pm_alias_snapshot(a);
		}
		for (size_t k = 0; k < pm_pmu_cap_count(p); k++)
			PM_FUZZ_ASSERT(pm_pmu_cap_name(p, k) && pm_pmu_cap_value(p, k));
		for (size_t k = 0; k < pm_pmu_diag_count(p); k++) {
			PM_FUZZ_ASSERT(pm_pmu_diag_message(p, k) != NULL);
			PM_FUZZ_ASSERT(pm_pmu_diag_code(p, k) < 0);
			(void)pm_pmu_diag_file(p, k);
		}
	}
}

static void parse(const pm_pmu_list *l, const char *s)
{
	pm_event_list *ev = NULL;
	if (pm_event_parse(&ev, l, s, NULL) == 0) {
		char buf[512];
		for (size_t i = 0; i < pm_event_list_count(ev); i++) {
			struct pm_attr a;
			pm_event_attr(pm_event_list_get(ev, i), &a);
			(void)pm_attr_format(&a, l, buf, sizeof(buf));
		}
		pm_event_list_free(ev);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	size_t off = 0;
	char path[1024];
	const char *event = NULL;
	char *copy = pm_fuzz_strdup(data, size);
	for (size_t i = 0; i <= NFILES; i++) {
		size_t start = off;
		const uint8_t *z = off < size ? memchr(data + off, 0, size - off) : NULL;
		size_t end = z ? (size_t)(z - data) : size;
		int have = off < size || (i == 0 && size == 0);
		off = z ? end + 1 : size + 1;
		if (i == NFILES) {
			event = have ? copy + start : "fz/ev/";
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dev, files[i]);
		if (!have) {
			(void)unlink(path);
			continue;
		}
		FILE *f = fopen(path, "wb");
		if (!f)
			abort();
		if (end > start)
			fwrite(data + start, 1, end - start, f);
		fclose(f);
	}
	pm_pmu_list *l = NULL;
	if (pm_pmu_scan(&l, root) == 0) {
		PM_FUZZ_ASSERT(strcmp(pm_pmu_list_root(l), root) == 0 || pm_pmu_list_root(l) != NULL);
		walk(l);
		parse(l, event);
		parse(l, "fz/ev/");
		parse(l, "fz/event=1,umask=2,flag/");
		parse(l, "ev");
		pm_pmu_list_free(l);
	}
	free(copy);
	return 0;
}
