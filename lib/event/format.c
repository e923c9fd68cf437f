/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * pm_attr -> canonical event string (the inverse of pm_event_parse()).
 *
 * Canonical form:
 *   - PERF_TYPE_HARDWARE/SOFTWARE with a known config: the generic name
 *     (`cycles`), with `/config1=..,period=../` when those are set;
 *   - a type with a PMU in the list: `pmu/field=0x..,...,period=N/`, the config
 *     words split into the PMU's format fields (sorted by name; a one-bit field
 *     that is set is written bare), bits no format covers as `configN=0x..`
 *     written first (the parser applies config= before the fields);
 *   - PERF_TYPE_RAW without a PMU of type 4: `rHEX`;
 *   - PERF_TYPE_HW_CACHE: `L1-dcache-load-misses`, `LLC-loads` (perf's names);
 *   - PERF_TYPE_TRACEPOINT: `sys:event`, found by id in tracefs (a period of
 *     1, the tracepoint default, is not written);
 *   - PERF_TYPE_BREAKPOINT: `mem:0xADDR/LEN:rwx`;
 *   - those three when they cannot be named: `TYPE:0xCONFIG`;
 *   - then `:mods` (generic and raw) or `mods` right after the PMU's closing
 *     '/': u/k/h when some but not all of exclude_user/kernel/hv are set
 *     (all three set cannot be written in perf's syntax and is dropped),
 *     G/H when exclude_guest/exclude_host differ from what the parser gives
 *     without them (exclude_guest alone with no modifiers, else set by u or
 *     p; both set cannot be written and is dropped), I, p repeated precise_ip times, D, e.
 */
#include <stdio.h>
#include <stdlib.h>

#include "event_int.h"

static uint64_t word_of(const struct pm_attr *a, int w)
{
	switch (w) {
	case 0: return a->config;
	case 1: return a->config1;
	case 2: return a->config2;
	case 3: return a->config3;
	default: return 0;
	}
}

static const char *const word_name[4] = { "config", "config1", "config2", "config3" };

static void add_sep(struct pm__buf *b, bool *first)
{
	if (!*first)
		pm__buf_append(b, ",", 1);
	*first = false;
}

static void period_terms(struct pm__buf *b, const struct pm_attr *a, bool *first)
{
	if (!a->sample_period)
		return;
	add_sep(b, first);
	pm__buf_printf(b, "%s=%llu", (a->flags & PM_ATTR_FREQ) ? "freq" : "period",
		       (unsigned long long)a->sample_period);
}

static void mods(struct pm__buf *b, const struct pm_attr *a, bool colon)
{
	uint64_t f = a->flags;
	bool eu = f & PM_ATTR_EXCLUDE_USER, ek = f & PM_ATTR_EXCLUDE_KERNEL;
	bool eh = f & PM_ATTR_EXCLUDE_HV, eg = f & PM_ATTR_EXCLUDE_GUEST;
	bool eH = f & PM_ATTR_EXCLUDE_HOST;
	bool implied_eg;
	char m[16];
	size_t n = 0, gpos;

	if ((eu || ek || eh) && !(eu && ek && eh)) {
		if (!eu)
			m[n++] = 'u';
		if (!ek)
			m[n++] = 'k';
		if (!eh)
			m[n++] = 'h';
	}
	gpos = n;
	if (f & PM_ATTR_EXCLUDE_IDLE)
		m[n++] = 'I';
	for (unsigned i = 0; i < PM_ATTR_PRECISE_IP(a); i++)
		m[n++] = 'p';
	if (f & PM_ATTR_PINNED)
		m[n++] = 'D';
	if (f & PM_ATTR_EXCLUSIVE)
		m[n++] = 'e';
	/* What the parser gives without G/H: exclude_guest alone when no
	 * modifier is written, else set by `u` or `p` only. */
	implied_eg = !n || (memchr(m, 'u', n) || memchr(m, 'p', n));
	if ((eg != implied_eg || eH) && !(eg && eH)) {
		char gh[2];
		size_t k = 0;

		if (!eg)
			gh[k++] = 'G';
		if (!eH)
			gh[k++] = 'H';
		memmove(m + gpos + k, m + gpos, n - gpos);
		memcpy(m + gpos, gh, k);
		n += k;
	}
	if (!n)
		return;
	if (colon)
		pm__buf_append(b, ":", 1);
	pm__buf_append(b, m, n);
}

static int format_pmu(struct pm__buf *b, const struct pm_attr *a, const pm_pmu *pmu)
{
	uint64_t covered[4] = { 0, 0, 0, 0 };
	size_t nf = pm_pmu_format_count(pmu);
	bool first = true;

	for (size_t i = 0; i < nf; i++) {
		const pm_format *fmt = pm_pmu_format_get(pmu, i);
		int w = pm_format_word(fmt);

		if (w >= 0 && w <= 3)
			covered[w] |= pm_format_mask(fmt);
	}
	pm__buf_printf(b, "%s/", pm_pmu_name(pmu));
	for (int w = 0; w < 4; w++) {
		uint64_t rest = word_of(a, w) & ~covered[w];

		if (!rest)
			continue;
		add_sep(b, &first);
		pm__buf_printf(b, "%s=0x%llx", word_name[w], (unsigned long long)rest);
	}
	for (size_t i = 0; i < nf; i++) {
		const pm_format *fmt = pm_pmu_format_get(pmu, i);
		int w = pm_format_word(fmt);
		uint64_t v;

		if (w < 0 || w > 3)
			continue;
		v = pm_format_decode(fmt, word_of(a, w));
		if (!v)
			continue;
		add_sep(b, &first);
		if (v == 1 && pm_format_width(fmt) == 1)
			pm__buf_printf(b, "%s", pm_format_name(fmt));
		else
			pm__buf_printf(b, "%s=0x%llx", pm_format_name(fmt), (unsigned long long)v);
	}
	period_terms(b, a, &first);
	pm__buf_append(b, "/", 1);
	mods(b, a, false);
	return 0;
}

static void format_plain(struct pm__buf *b, const struct pm_attr *a, const char *name)
{
	bool first = true;

	pm__buf_printf(b, "%s", name);
	if (a->config1 || a->config2 || a->config3 || a->sample_period) {
		pm__buf_append(b, "/", 1);
		for (int w = 1; w < 4; w++) {
			if (!word_of(a, w))
				continue;
			add_sep(b, &first);
			pm__buf_printf(b, "%s=0x%llx", word_name[w],
				       (unsigned long long)word_of(a, w));
		}
		period_terms(b, a, &first);
		pm__buf_append(b, "/", 1);
	}
	mods(b, a, true);
}

/* The tracepoint of a given id, as "sys:event". */
static bool tracepoint_name(const pm_pmu_list *pmus, uint64_t id, struct pm__buf *b)
{
	char root[PATH_MAX_TRACEFS];

	if (pm__tracefs_root(pmus ? pm_pmu_list_root(pmus) : NULL, root, sizeof(root)))
		return false;
	return pm__tracepoint_find(root, id, b) == 0;
}

/* snprintf's contract for a formatted buffer: up to cap - 1 bytes and a
 * NUL into buf, the full length returned; the buffer is freed. */
static int copy_out(struct pm__buf *b, char *buf, size_t cap, const char *what)
{
	int len;

	if (b->len > (size_t)INT32_MAX) {
		pm__buf_free(b);
		return pm__err(PM_ERR_RANGE, "%s too long", what);
	}
	len = (int)b->len;
	if (cap) {
		size_t n = PM_MIN(b->len, cap - 1);

		memcpy(buf, b->data, n);
		buf[n] = 0;
	}
	pm__buf_free(b);
	return len;
}

int pm_attr_format(const struct pm_attr *attr, const pm_pmu_list *pmus, char *buf, size_t cap)
{
	struct pm__buf b = { 0 };
	const char *gen = NULL;
	const pm_pmu *pmu = NULL;
	struct pm__buf tp = { 0 };
	char cname[64];
	int rc = 0;

	if (!attr || (!buf && cap))
		return pm__err(EINVAL, "pm_attr_format: NULL argument");
	if (attr->type == PM_TYPE_HARDWARE || attr->type == PM_TYPE_SOFTWARE)
		gen = pm__generic_name(attr->type, attr->config);
	if (!gen && pmus)
		pmu = pm_pmu_find_by_type(pmus, attr->type);
	if (pmu && (attr->type == PM_TYPE_TRACEPOINT || attr->type == PM_TYPE_BREAKPOINT ||
		    attr->type == PM_TYPE_HW_CACHE) && !pm_pmu_format_count(pmu))
		pmu = NULL; /* tracepoint/breakpoint PMUs have no formats: use the names */
	if (gen) {
		format_plain(&b, attr, gen);
	} else if (attr->type == PM_TYPE_HW_CACHE &&
		   pm__hw_cache_name(attr->config, cname, sizeof(cname))) {
		format_plain(&b, attr, cname);
	} else if (attr->type == PM_TYPE_TRACEPOINT && tracepoint_name(pmus, attr->config, &tp)) {
		struct pm_attr a = *attr;

		if (a.sample_period == 1 && !(a.flags & PM_ATTR_FREQ))
			a.sample_period = 0; /* the default of a tracepoint */
		format_plain(&b, &a, tp.data);
	} else if (attr->type == PM_TYPE_BREAKPOINT && !attr->config && !attr->config3 &&
		   attr->bp_type && attr->bp_type <= 7 && attr->config2) {
		struct pm_attr a = *attr;
		char bp[64];
		int n = snprintf(bp, sizeof(bp), "mem:0x%llx/%llu:%s%s%s",
				 (unsigned long long)attr->config1,
				 (unsigned long long)attr->config2, (attr->bp_type & 1) ? "r" : "",
				 (attr->bp_type & 2) ? "w" : "", (attr->bp_type & 4) ? "x" : "");

		(void)n;
		a.config1 = a.config2 = 0;
		if (a.sample_period == 1 && !(a.flags & PM_ATTR_FREQ))
			a.sample_period = 0;
		format_plain(&b, &a, bp);
	} else if (pmu) {
		rc = format_pmu(&b, attr, pmu);
	} else if (attr->type == PM_TYPE_RAW) {
		char raw[24];

		snprintf(raw, sizeof(raw), "r%llx", (unsigned long long)attr->config);
		format_plain(&b, attr, raw);
	} else if (attr->type == PM_TYPE_TRACEPOINT || attr->type == PM_TYPE_HW_CACHE ||
		   attr->type == PM_TYPE_BREAKPOINT) {
		char num[40];

		snprintf(num, sizeof(num), "%u:0x%llx", attr->type,
			 (unsigned long long)attr->config);
		format_plain(&b, attr, num);
	} else {
		rc = pm__err(PM_ERR_NO_PMU,
			     "attr type %u config 0x%llx: no generic name and no PMU of that type",
			     attr->type, (unsigned long long)attr->config);
	}
	pm__buf_free(&tp);
	if (!rc && !b.data)
		rc = pm__err(ENOMEM, "out of memory");
	if (rc) {
		pm__buf_free(&b);
		if (cap)
			buf[0] = 0;
		return rc;
	}
	return copy_out(&b, buf, cap, "formatted string");
}

/* ------------------------------------------------------------------ */
/* perf's display names (evsel__name() of perf 6.1)                    */

static const char *const perf_hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
/* perf 6.1's software table ends at dummy (9): bpf-output and later are
 * "unknown-software" there. */
static const char *const perf_sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
};

/* perf's modifier suffix: kuh for the contexts not excluded (when any is),
 * p per precise level, then H/G for host/guest not excluded when
 * exclude_host is set or exclude_guest equals perf's default for the event
 * (true once u/k/h or p is printed). */
static void perf_mods(struct pm__buf *b, const struct pm_attr *a, bool colon)
{
	uint64_t f = a->flags;
	bool guest_default = false;
	char m[16];
	size_t n = 0;

	if (f & (PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_USER | PM_ATTR_EXCLUDE_HV)) {
		if (!(f & PM_ATTR_EXCLUDE_KERNEL))
			m[n++] = 'k';
		if (!(f & PM_ATTR_EXCLUDE_USER))
			m[n++] = 'u';
		if (!(f & PM_ATTR_EXCLUDE_HV))
			m[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < PM_ATTR_PRECISE_IP(a); i++) {
		m[n++] = 'p';
		guest_default = true;
	}
	if ((f & PM_ATTR_EXCLUDE_HOST) || !!(f & PM_ATTR_EXCLUDE_GUEST) == guest_default) {
		if (!(f & PM_ATTR_EXCLUDE_HOST))
			m[n++] = 'H';
		if (!(f & PM_ATTR_EXCLUDE_GUEST))
			m[n++] = 'G';
	}
	if (!n)
		return;
	if (colon)
		pm__buf_append(b, ":", 1);
	pm__buf_append(b, m, n);
}

static void perf_cache_name(struct pm__buf *b, uint64_t config)
{
	uint64_t type = config & 0xff, op = (config >> 8) & 0xff, result = (config >> 16) & 0xff;
	char name[64];

	if (type >= 7)
		pm__buf_printf(b, "unknown-ext-hardware-cache-type");
	else if (op >= 3)
		pm__buf_printf(b, "unknown-ext-hardware-cache-op");
	else if (result >= 2)
		pm__buf_printf(b, "unknown-ext-hardware-cache-result");
	else if (!pm__hw_cache_name(config & 0xffffff, name, sizeof(name)))
		pm__buf_printf(b, "invalid-cache");
	else
		pm__buf_printf(b, "%s", name);
}

/* `pmu/field=0x..,.../` for a dynamic PMU type. */
static void perf_pmu_name(struct pm__buf *b, const struct pm_attr *a, const pm_pmu *pmu)
{
	uint64_t covered[4] = { 0, 0, 0, 0 };
	size_t nf = pm_pmu_format_count(pmu);
	bool first = true;

	pm__buf_printf(b, "%s/", pm_pmu_name(pmu));
	for (size_t i = 0; i < nf; i++) {
		const pm_format *fmt = pm_pmu_format_get(pmu, i);
		int w = pm_format_word(fmt);
		uint64_t v;

		if (w < 0 || w > 3)
			continue;
		covered[w] |= pm_format_mask(fmt);
		v = pm_format_decode(fmt, word_of(a, w));
		if (!v)
			continue;
		add_sep(b, &first);
		pm__buf_printf(b, "%s=0x%llx", pm_format_name(fmt), (unsigned long long)v);
	}
	for (int w = 0; w < 4; w++) {
		uint64_t rest = word_of(a, w) & ~covered[w];

		if (!rest)
			continue;
		add_sep(b, &first);
		pm__buf_printf(b, "%s=0x%llx", word_name[w], (unsigned long long)rest);
	}
	pm__buf_append(b, "/", 1);
}

int pm_attr_perf_name(const struct pm_attr *attr, const pm_pmu_list *pmus, char *buf, size_t cap)
{
	struct pm__buf b = { 0 };
	const pm_pmu *pmu = NULL;

	if (!attr || (!buf && cap))
		return pm__err(EINVAL, "pm_attr_perf_name: NULL argument");
	switch (attr->type) {
	case PM_TYPE_HARDWARE: {
		uint64_t ev = attr->config & 0xffffffffULL, ptype = attr->config >> 32;
		const char *name = ev < PM_ARRAY_SIZE(perf_hw_names) ? perf_hw_names[ev]
								     : "unknown-hardware";

		if (ptype) {
			const pm_pmu *hp = pmus ? pm_pmu_find_by_type(pmus, (uint32_t)ptype) : NULL;

			pm__buf_printf(&b, "%s/%s/", hp ? pm_pmu_name(hp) : "cpu", name);
		} else {
			pm__buf_printf(&b, "%s", name);
		}
		perf_mods(&b, attr, true);
		break;
	}
	case PM_TYPE_SOFTWARE:
		pm__buf_printf(&b, "%s", attr->config < PM_ARRAY_SIZE(perf_sw_names)
						 ? perf_sw_names[attr->config]
						 : "unknown-software");
		perf_mods(&b, attr, true);
		break;
	case PM_TYPE_HW_CACHE:
		perf_cache_name(&b, attr->config);
		perf_mods(&b, attr, true);
		break;
	case PM_TYPE_RAW:
		pm__buf_printf(&b, "raw 0x%llx", (unsigned long long)attr->config);
		perf_mods(&b, attr, true);
		break;
	case PM_TYPE_BREAKPOINT:
		pm__buf_printf(&b, "mem:0x%llx:%s%s%s", (unsigned long long)attr->config1,
			       (attr->bp_type & 1) ? "r" : "", (attr->bp_type & 2) ? "w" : "",
			       (attr->bp_type & 4) ? "x" : "");
		perf_mods(&b, attr, true);
		break;
	case PM_TYPE_TRACEPOINT:
		if (!tracepoint_name(pmus, attr->config, &b)) {
			pm__buf_free(&b);
			memset(&b, 0, sizeof(b));
			pm__buf_printf(&b, "unknown tracepoint");
		}
		break;
	default:
		pmu = pmus ? pm_pmu_find_by_type(pmus, attr->type) : NULL;
		if (pmu) {
			perf_pmu_name(&b, attr, pmu);
			perf_mods(&b, attr, false); /* right after the '/', as written */
		} else {
			pm__buf_printf(&b, "unknown attr type: %u", attr->type);
		}
		break;
	}
	if (!b.data)
		return pm__err(ENOMEM, "out of memory");
	return copy_out(&b, buf, cap, "name");
}
