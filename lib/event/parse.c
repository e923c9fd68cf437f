/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Perf-syntax event strings to pm_attr.
 *
 * A hand-written recursive-descent parser over the byte string: every token
 * keeps its byte offset so that errors can point at it.  Semantics follow
 * perf's (see docs in profileme/event.h), with these deliberate choices:
 *   - `config=` (and config1..3) set the whole word first; format fields are
 *     then placed into it, each replacing the bits of its own mask;
 *   - a user term replaces the same term of an alias wherever it is written
 *     (perf 6.1 ORs the two values);
 *   - a bare term is accepted only on a one-bit field;
 *   - a modifier letter other than `p` may appear only once per list.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "event_int.h"

/* ------------------------------------------------------------------ */
/* Generic names                                                       */

static const struct pm__generic pm_generic[] = {
	{ "cycles", PM_TYPE_HARDWARE, 0 },
	{ "cpu-cycles", PM_TYPE_HARDWARE, 0 },
	{ "instructions", PM_TYPE_HARDWARE, 1 },
	{ "cache-references", PM_TYPE_HARDWARE, 2 },
	{ "cache-misses", PM_TYPE_HARDWARE, 3 },
	{ "branch-instructions", PM_TYPE_HARDWARE, 4 },
	{ "branches", PM_TYPE_HARDWARE, 4 },
	{ "branch-misses", PM_TYPE_HARDWARE, 5 },
	{ "bus-cycles", PM_TYPE_HARDWARE, 6 },
	{ "stalled-cycles-frontend", PM_TYPE_HARDWARE, 7 },
	{ "idle-cycles-frontend", PM_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", PM_TYPE_HARDWARE, 8 },
	{ "idle-cycles-backend", PM_TYPE_HARDWARE, 8 },
	{ "ref-cycles", PM_TYPE_HARDWARE, 9 },
	{ "cpu-clock", PM_TYPE_SOFTWARE, 0 },
	{ "task-clock", PM_TYPE_SOFTWARE, 1 },
	{ "page-faults", PM_TYPE_SOFTWARE, 2 },
	{ "faults", PM_TYPE_SOFTWARE, 2 },
	{ "context-switches", PM_TYPE_SOFTWARE, 3 },
	{ "cs", PM_TYPE_SOFTWARE, 3 },
	{ "cpu-migrations", PM_TYPE_SOFTWARE, 4 },
	{ "migrations", PM_TYPE_SOFTWARE, 4 },
	{ "minor-faults", PM_TYPE_SOFTWARE, 5 },
	{ "major-faults", PM_TYPE_SOFTWARE, 6 },
	{ "alignment-faults", PM_TYPE_SOFTWARE, 7 },
	{ "emulation-faults", PM_TYPE_SOFTWARE, 8 },
	{ "dummy", PM_TYPE_SOFTWARE, 9 },
	{ "bpf-output", PM_TYPE_SOFTWARE, 10 },
};

const struct pm__generic *pm__generic_find(const char *name, size_t len)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(pm_generic); i++)
		if (strlen(pm_generic[i].name) == len && !memcmp(pm_generic[i].name, name, len))
			return &pm_generic[i];
	return NULL;
}

const char *pm__generic_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(pm_generic); i++)
		if (pm_generic[i].type == type && pm_generic[i].config == config)
			return pm_generic[i].name;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Hardware cache events: <type>[-<op>][-<result>] (perf's name tables) */

#define HWC_NAMES 5
static const char *const hwc_type[][HWC_NAMES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data", NULL },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction", NULL },
	{ "LLC", "L2", NULL },
	{ "dTLB", "d-tlb", "Data-TLB", NULL },
	{ "iTLB", "i-tlb", "Instruction-TLB", NULL },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node", NULL },
};
/* [0] is the singular used with "-misses", [1] the plural used alone. */
static const char *const hwc_op[][HWC_NAMES] = {
	{ "load", "loads", "read", NULL },
	{ "store", "stores", "write", NULL },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load", NULL },
};
static const char *const hwc_result[][HWC_NAMES] = {
	{ "refs", "Reference", "ops", "access", NULL },
	{ "misses", "miss", NULL },
};
/* Which ops each cache type has (bit = op), as perf's validity table. */
static const unsigned hwc_valid_ops[] = { 7, 5, 7, 7, 1, 1, 7 };

/* The longest name of table[] that [s, s+n) starts with, followed by the
 * end or '-'.  Returns the row, or -1; *used gets the name's length. */
static int hwc_match(const char *const (*table)[HWC_NAMES], size_t rows, const char *s,
		     size_t n, size_t *used)
{
	int best = -1;

	*used = 0;
	for (size_t r = 0; r < rows; r++) {
		for (size_t k = 0; k < HWC_NAMES && table[r][k]; k++) {
			size_t l = strlen(table[r][k]);

			if (l > n || l <= *used || strncasecmp(s, table[r][k], l) != 0)
				continue;
			if (l < n && s[l] != '-')
				continue;
			best = (int)r;
			*used = l;
		}
	}
	return best;
}

int pm__hw_cache_parse(const char *s, size_t n, uint64_t *config)
{
	int type, op = -1, result = -1;
	size_t used, i;

	type = hwc_match(hwc_type, PM_ARRAY_SIZE(hwc_type), s, n, &used);
	if (type < 0)
		return -1;
	i = used;
	while (i < n) {
		int r;

		i++; /* '-' */
		if (op < 0 && (r = hwc_match(hwc_op, PM_ARRAY_SIZE(hwc_op), s + i, n - i, &used)) >= 0) {
			op = r;
		} else if (result < 0 && (r = hwc_match(hwc_result, PM_ARRAY_SIZE(hwc_result), s + i,
							 n - i, &used)) >= 0) {
			result = r;
		} else {
			return -1;
		}
		i += used;
	}
	if (op < 0)
		op = 0;   /* load */
	if (result < 0)
		result = 0; /* access */
	if (!(hwc_valid_ops[type] & (1u << op)))
		return -2;
	*config = (uint64_t)type | (uint64_t)op << 8 | (uint64_t)result << 16;
	return 0;
}

bool pm__hw_cache_name(uint64_t config, char *buf, size_t cap)
{
	uint64_t type = config & 0xff, op = (config >> 8) & 0xff, result = (config >> 16) & 0xff;

	if ((config >> 24) || type >= PM_ARRAY_SIZE(hwc_type) || op >= PM_ARRAY_SIZE(hwc_op) ||
	    result >= PM_ARRAY_SIZE(hwc_result) || !(hwc_valid_ops[type] & (1u << op)))
		return false;
	if (result == 1)
		snprintf(buf, cap, "%s-%s-%s", hwc_type[type][0], hwc_op[op][0], hwc_result[1][0]);
	else
		snprintf(buf, cap, "%s-%s", hwc_type[type][0], hwc_op[op][1]);
	return true;
}

const pm_pmu *pm__core_pmu(const pm_pmu_list *pmus)
{
	const pm_pmu *pmu;

	if (!pmus)
		return NULL;
	pmu = pm_pmu_find(pmus, "cpu");
	if (!pmu)
		pmu = pm_pmu_find_by_type(pmus, PM_TYPE_RAW);
	return pmu;
}

/* ------------------------------------------------------------------ */
/* Parser state and errors                                             */

struct parser {
	const char *s;
	size_t len;
	size_t i;
	const pm_pmu_list *pmus;
	struct pm_event_list *list;
	unsigned opts;     /* PM_EVENT_OPT_* */
	int code;          /* positive PM_ERR_* / errno of the failure */
	size_t epos;
	char emsg[256];
};

static int perr(struct parser *p, size_t pos, int code, const char *fmt, ...) PM_PRINTF(4, 5);
static int perr(struct parser *p, size_t pos, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->emsg, sizeof(p->emsg), fmt, ap);
	va_end(ap);
	p->code = code;
	p->epos = pos;
	return pm__err(code, "%s (at byte %zu)", p->emsg, pos);
}

static bool is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hexval(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	return (unsigned)(c - 'A' + 10);
}

/* Parse a number (decimal, or 0x-prefixed hex) filling exactly [s, s+n).
 * Returns 0, -EINVAL (not a number) or -ERANGE (more than 64 bits). */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t k = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		k = 2;
		if (n == 2)
			return -EINVAL;
		for (; k < n; k++) {
			if (!is_hex(s[k]))
				return -EINVAL;
			if (v >> 60)
				return -ERANGE;
			v = (v << 4) | hexval(s[k]);
		}
	} else {
		if (n == 0)
			return -EINVAL;
		for (; k < n; k++) {
			unsigned d;

			if (s[k] < '0' || s[k] > '9')
				return -EINVAL;
			d = (unsigned)(s[k] - '0');
			if (v > (UINT64_MAX - d) / 10)
				return -ERANGE;
			v = v * 10 + d;
		}
	}
	*out = v;
	return 0;
}

/* Is [s, s+n) a raw event `rHEX` / `r0xHEX`?  Gives the config. */
static bool parse_raw(const char *s, size_t n, uint64_t *config)
{
	uint64_t v = 0;
	size_t k = 1;

	if (n < 2 || s[0] != 'r')
		return false;
	if (n > 3 && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
		k = 3;
	if (n - k > 16) {
		for (size_t q = k; q < n; q++)
			if (!is_hex(s[q]))
				return false;
		*config = UINT64_MAX; /* the caller reports it out of range */
		return true;
	}
	for (; k < n; k++) {
		if (!is_hex(s[k]))
			return false;
		v = (v << 4) | hexval(s[k]);
	}
	*config = v;
	return true;
}

/* ------------------------------------------------------------------ */
/* Terms                                                               */

struct term {
	const char *name;
	size_t nlen;
	const char *sval;  /* value text, NULL for a bare term */
	size_t slen;
	size_t pos;        /* of the name */
	size_t vpos;       /* of the value */
};

struct terms {
	struct term *t;
	size_t n;
	size_t cap;
};

static int terms_add(struct terms *ts, const struct term *t)
{
	if (ts->n == ts->cap) {
		size_t ncap = ts->cap ? ts->cap * 2 : 8;
		struct term *nt = pm__reallocarray(ts->t, ncap, sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		ts->t = nt;
		ts->cap = ncap;
	}
	ts->t[ts->n++] = *t;
	return 0;
}

/* Parse `term[=value],...` up to (not including) the closing '/'. */
static int parse_terms(struct parser *p, struct terms *ts)
{
	for (;;) {
		struct term t = { 0 };
		int rc;

		if (p->i >= p->len)
			return perr(p, p->i, PM_ERR_SYNTAX, "missing closing '/'");
		if (p->s[p->i] == '/')
			return 0;
		t.pos = p->i;
		t.name = p->s + p->i;
		if (p->s[p->i] == '@') {
			/* perf's driver-config form @SINK[=VALUE]: SINK of
			 * [A-Za-z0-9_.], VALUE of [A-Za-z0-9_*?.:] */
			bool eq = false;

			t.nlen = 1;
			t.vpos = ++p->i;
			t.sval = p->s + p->i;
			for (; p->i < p->len; p->i++) {
				char c = p->s[p->i];
				bool w = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					 (c >= '0' && c <= '9') || c == '_' || c == '.';

				if (c == '=' && !eq && p->i > t.vpos && p->i + 1 < p->len &&
				    p->s[p->i + 1] != ',' && p->s[p->i + 1] != '/') {
					eq = true;
					continue;
				}
				if (!w && !(eq && (c == '*' || c == '?' || c == ':')))
					break;
			}
			t.slen = (size_t)(p->s + p->i - t.sval);
			if (!t.slen)
				return perr(p, t.vpos, PM_ERR_SYNTAX,
					    "'@' needs a driver config (a sink name: @tmc_etr0)");
		} else {
			while (p->i < p->len && is_ident_char(p->s[p->i]))
				p->i++;
			t.nlen = (size_t)(p->s + p->i - t.name);
		}
		if (!t.nlen)
			return perr(p, p->i, PM_ERR_SYNTAX, "expected a term name, found '%c'",
				    p->i < p->len ? p->s[p->i] : ' ');
		if (p->i < p->len && p->s[p->i] == '=') {
			p->i++;
			t.vpos = p->i;
			if (p->i < p->len && p->s[p->i] == '\'') {
				/* quoted value (for name=) */
				p->i++;
				t.sval = p->s + p->i;
				while (p->i < p->len && p->s[p->i] != '\'')
					p->i++;
				if (p->i >= p->len)
					return perr(p, t.vpos, PM_ERR_SYNTAX, "unterminated quote");
				t.slen = (size_t)(p->s + p->i - t.sval);
				p->i++;
			} else {
				t.sval = p->s + p->i;
				while (p->i < p->len && p->s[p->i] != ',' && p->s[p->i] != '/')
					p->i++;
				t.slen = (size_t)(p->s + p->i - t.sval);
				if (!t.slen)
					return perr(p, t.vpos, PM_ERR_SYNTAX,
						    "term '%.*s' has an empty value", (int)t.nlen,
						    t.name);
			}
		}
		rc = terms_add(ts, &t);
		if (rc)
			return perr(p, t.pos, ENOMEM, "out of memory");
		if (p->i < p->len && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->len && p->s[p->i] == '/')
			return 0;
		if (p->i >= p->len)
			return perr(p, p->i, PM_ERR_SYNTAX, "missing closing '/'");
		return perr(p, p->i, PM_ERR_SYNTAX, "unexpected '%c' in term list", p->s[p->i]);
	}
}

/* The numeric value of a term (which must have one). */
static int term_number(struct parser *p, const struct term *t, uint64_t *v)
{
	int rc = parse_u64(t->sval, t->slen, v);

	if (rc == -ERANGE)
		return perr(p, t->vpos, PM_ERR_RANGE, "value '%.*s' of '%.*s' does not fit in 64 bits",
			    (int)t->slen, t->sval, (int)t->nlen, t->name);
	if (rc)
		return perr(p, t->vpos, PM_ERR_SYNTAX,
			    "value '%.*s' of '%.*s' is not a number (decimal or 0x hex)",
			    (int)t->slen, t->sval, (int)t->nlen, t->name);
	return 0;
}

static const char *const builtin_terms[] = { "config", "config1", "config2", "config3",
					     "period", "freq", "name" };

static int builtin_index(const char *name, size_t len)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(builtin_terms); i++)
		if (strlen(builtin_terms[i]) == len && !memcmp(builtin_terms[i], name, len))
			return (int)i;
	return -1;
}

/* Apply a built-in term with numeric/string value to the event. */
static int apply_builtin(struct parser *p, struct pm_event *ev, int bi, const struct term *t,
			 uint64_t words[4], bool from_alias)
{
	uint64_t v = 0;
	int rc;

	if (!t->sval && bi <= 3) { /* a bare config word is 1, as in perf */
		words[bi] = 1;
		return 0;
	}
	if (!t->sval)
		return perr(p, t->pos, PM_ERR_SYNTAX, "term '%s' needs a value", builtin_terms[bi]);
	if (bi == 6) { /* name */
		if (from_alias)
			return 0;
		free(ev->name);
		ev->name = pm__strndup(t->sval, t->slen);
		if (!ev->name)
			return perr(p, t->pos, ENOMEM, "out of memory");
		return 0;
	}
	rc = term_number(p, t, &v);
	if (rc)
		return rc;
	switch (bi) {
	case 0: case 1: case 2: case 3:
		words[bi] = v;
		break;
	case 4: /* period */
		if (from_alias && (ev->flags & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET)))
			break;
		ev->attr.sample_period = v;
		ev->attr.flags &= ~PM_ATTR_FREQ;
		ev->flags = (ev->flags | PM_EVENT_PERIOD_SET) & ~(unsigned)PM_EVENT_FREQ_SET;
		ev->period_pos = t->pos;
		break;
	case 5: /* freq */
		if (from_alias && (ev->flags & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET)))
			break;
		if (pm_event_check_freq(v) < 0)
			return perr(p, t->vpos, PM_ERR_RANGE, "%s", pm_errmsg());
		ev->attr.sample_period = v;
		ev->attr.flags |= PM_ATTR_FREQ;
		ev->flags = (ev->flags | PM_EVENT_FREQ_SET) & ~(unsigned)PM_EVENT_PERIOD_SET;
		ev->period_pos = t->pos;
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Per-event config terms (perf's evsel config terms)                   */

static const struct {
	const char *name;
	int kind;
	int val;    /* 0: none, 1: number, 2: string, 3: optional number */
	uint64_t num; /* for the valueless forms */
} cterm_names[] = {
	{ "call-graph", PM_ETERM_CALL_GRAPH, 2, 0 }, { "stack-size", PM_ETERM_STACK_SIZE, 1, 0 },
	{ "max-stack", PM_ETERM_MAX_STACK, 1, 0 },   { "time", PM_ETERM_TIME, 3, 1 },
	{ "inherit", PM_ETERM_INHERIT, 0, 1 },       { "no-inherit", PM_ETERM_INHERIT, 0, 0 },
	{ "overwrite", PM_ETERM_OVERWRITE, 0, 1 },   { "no-overwrite", PM_ETERM_OVERWRITE, 0, 0 },
	{ "percore", PM_ETERM_PERCORE, 3, 1 },       { "aux-output", PM_ETERM_AUX_OUTPUT, 3, 1 },
	{ "aux-sample-size", PM_ETERM_AUX_SAMPLE_SIZE, 1, 0 },
	{ "driver-config", PM_ETERM_DRV_CFG, 2, 0 }, { "metric-id", PM_ETERM_METRIC_ID, 2, 0 },
	{ "branch_type", PM_ETERM_BRANCH_TYPE, 2, 0 }, { "@", PM_ETERM_DRV_CFG, 2, 0 },
};

/* perf's branch filter names (PERF_SAMPLE_BRANCH_*) */
static const struct {
	const char *name;
	uint64_t bit;
} branch_names[] = {
	{ "u", 1ULL << 0 },          { "k", 1ULL << 1 },         { "hv", 1ULL << 2 },
	{ "any", 1ULL << 3 },        { "any_call", 1ULL << 4 },  { "any_ret", 1ULL << 5 },
	{ "ind_call", 1ULL << 6 },   { "abort_tx", 1ULL << 7 },  { "in_tx", 1ULL << 8 },
	{ "no_tx", 1ULL << 9 },      { "cond", 1ULL << 10 },     { "call_stack", 1ULL << 11 },
	{ "ind_jmp", 1ULL << 12 },   { "call", 1ULL << 13 },     { "save_type", 1ULL << 16 },
};

#if defined(__x86_64__)
#define PM_DWARF_REGS 0xff0fffULL   /* perf's PERF_REGS_MASK on x86_64 */
#elif defined(__aarch64__)
#define PM_DWARF_REGS 0x1ffffffffULL
#else
#define PM_DWARF_REGS 0ULL
#endif

static int cterm_add(struct parser *p, struct pm_event *ev, int kind, const char *name,
		     const struct term *t, uint64_t num)
{
	struct pm__cterm *nt = pm__reallocarray(ev->terms, ev->nterms + 1, sizeof(*nt));

	if (!nt)
		return perr(p, t->pos, ENOMEM, "out of memory");
	ev->terms = nt;
	nt = &ev->terms[ev->nterms];
	nt->kind = kind;
	nt->name = name;
	nt->num = num;
	nt->value = NULL;
	if (t->sval) {
		nt->value = pm__strndup(t->sval, t->slen);
		if (!nt->value)
			return perr(p, t->pos, ENOMEM, "out of memory");
	}
	ev->nterms++;
	return 0;
}

/* A per-event config term: kept on the event, with perf's attr bits.
 * *handled false when the term is not one of them. */
static int config_term(struct parser *p, struct pm_event *ev, const struct term *t, bool *handled)
{
	struct pm_attr *a = &ev->attr;
	uint64_t num = 0;
	int rc;

	*handled = false;
	for (size_t i = 0; i < PM_ARRAY_SIZE(cterm_names); i++) {
		if (strlen(cterm_names[i].name) != t->nlen ||
		    memcmp(cterm_names[i].name, t->name, t->nlen))
			continue;
		*handled = true;
		switch (cterm_names[i].val) {
		case 0:
			if (t->sval)
				return perr(p, t->vpos, PM_ERR_SYNTAX, "term '%s' takes no value",
					    cterm_names[i].name);
			num = cterm_names[i].num;
			break;
		case 1:
		case 3:
			if (!t->sval && cterm_names[i].val == 3) {
				num = cterm_names[i].num;
				break;
			}
			if (!t->sval)
				return perr(p, t->pos, PM_ERR_SYNTAX, "term '%s' needs a value",
					    cterm_names[i].name);
			rc = term_number(p, t, &num);
			if (rc)
				return rc;
			break;
		default:
			if (!t->sval)
				return perr(p, t->pos, PM_ERR_SYNTAX, "term '%s' needs a value",
					    cterm_names[i].name);
			break;
		}
		switch (cterm_names[i].kind) {
		case PM_ETERM_CALL_GRAPH:
			a->sample_type &= ~(PM_SAMPLE_CALLCHAIN | PM_SAMPLE_REGS_USER |
					    PM_SAMPLE_STACK_USER | PM_SAMPLE_BRANCH_STACK);
			a->flags &= ~PM_ATTR_EXCLUDE_CALLCHAIN_USER;
			a->sample_regs_user = 0;
			a->branch_sample_type = 0;
			if (t->slen == 2 && !memcmp(t->sval, "fp", 2)) {
				a->sample_type |= PM_SAMPLE_CALLCHAIN;
			} else if (t->slen == 5 && !memcmp(t->sval, "dwarf", 5)) {
				a->sample_type |= PM_SAMPLE_CALLCHAIN | PM_SAMPLE_REGS_USER |
						  PM_SAMPLE_STACK_USER;
				a->flags |= PM_ATTR_EXCLUDE_CALLCHAIN_USER;
				a->sample_regs_user = PM_DWARF_REGS;
				a->sample_stack_user = 8192;
				for (size_t k = 0; k < ev->nterms; k++) /* an earlier stack-size= */
					if (ev->terms[k].kind == PM_ETERM_STACK_SIZE)
						a->sample_stack_user = (uint32_t)ev->terms[k].num;
			} else if (t->slen == 3 && !memcmp(t->sval, "lbr", 3)) {
				a->sample_type |= PM_SAMPLE_CALLCHAIN | PM_SAMPLE_BRANCH_STACK;
				a->branch_sample_type = (1ULL << 0) | (1ULL << 11) | (1ULL << 14) |
							(1ULL << 15) | PM_BRANCH_HW_INDEX;
			} else if (!(t->slen == 2 && !memcmp(t->sval, "no", 2))) {
				return perr(p, t->vpos, PM_ERR_SYNTAX,
					    "call-graph '%.*s': expected fp, dwarf, lbr or no",
					    (int)t->slen, t->sval);
			}
			break;
		case PM_ETERM_STACK_SIZE:
			if (num > UINT32_MAX)
				return perr(p, t->vpos, PM_ERR_RANGE,
					    "stack-size %llu does not fit in 32 bits",
					    (unsigned long long)num);
			if (a->sample_type & PM_SAMPLE_STACK_USER)
				a->sample_stack_user = (uint32_t)num;
			break;
		case PM_ETERM_MAX_STACK:
			if (num > UINT16_MAX)
				return perr(p, t->vpos, PM_ERR_RANGE, "max-stack %llu is above 65535",
					    (unsigned long long)num);
			a->sample_max_stack = (uint16_t)num;
			a->sample_type |= PM_SAMPLE_CALLCHAIN;
			break;
		case PM_ETERM_TIME:
			if (num)
				a->sample_type |= PM_SAMPLE_TIME;
			else
				a->sample_type &= ~PM_SAMPLE_TIME;
			break;
		case PM_ETERM_INHERIT:
			a->flags = num ? a->flags | PM_ATTR_INHERIT : a->flags & ~PM_ATTR_INHERIT;
			break;
		case PM_ETERM_OVERWRITE:
			a->flags = num ? a->flags | PM_ATTR_WRITE_BACKWARD
				       : a->flags & ~PM_ATTR_WRITE_BACKWARD;
			break;
		case PM_ETERM_AUX_OUTPUT:
			a->flags = num ? a->flags | PM_ATTR_AUX_OUTPUT : a->flags & ~PM_ATTR_AUX_OUTPUT;
			break;
		case PM_ETERM_AUX_SAMPLE_SIZE:
			if (num > UINT32_MAX)
				return perr(p, t->vpos, PM_ERR_RANGE,
					    "aux-sample-size %llu does not fit in 32 bits",
					    (unsigned long long)num);
			a->aux_sample_size = (uint32_t)num;
			a->sample_type |= PM_SAMPLE_AUX;
			break;
		case PM_ETERM_BRANCH_TYPE: {
			uint64_t bit = 0;

			for (size_t k = 0; k < PM_ARRAY_SIZE(branch_names); k++)
				if (strlen(branch_names[k].name) == t->slen &&
				    !memcmp(branch_names[k].name, t->sval, t->slen))
					bit = branch_names[k].bit;
			if (!bit)
				return perr(p, t->vpos, PM_ERR_SYNTAX,
					    "branch_type '%.*s' is not one of perf's branch filters "
					    "(any, u, k, hv, any_call, any_ret, ind_call, call, cond, ...)",
					    (int)t->slen, t->sval);
			a->branch_sample_type |= bit;
			a->sample_type |= PM_SAMPLE_BRANCH_STACK;
			break;
		}
		default:
			break;
		}
		return cterm_add(p, ev, cterm_names[i].kind, cterm_names[i].name, t, num);
	}
	return 0;
}

/* "valid terms: ..." for an unknown-term message. */
static void valid_terms(const pm_pmu *pmu, char *buf, size_t cap)
{
	struct pm__buf b = { 0 };
	size_t n;

	for (size_t i = 0; i < PM_ARRAY_SIZE(builtin_terms); i++)
		pm__buf_printf(&b, "%s%s", i ? "," : "", builtin_terms[i]);
	if (pmu) {
		n = pm_pmu_format_count(pmu);
		for (size_t i = 0; i < n; i++)
			pm__buf_printf(&b, ",%s", pm_format_name(pm_pmu_format_get(pmu, i)));
		n = pm_pmu_alias_count(pmu);
		if (n)
			pm__buf_printf(&b, "; events:");
		for (size_t i = 0; i < n; i++)
			pm__buf_printf(&b, "%s%s", i ? "," : " ",
				       pm_alias_name(pm_pmu_alias_get(pmu, i)));
	}
	snprintf(buf, cap, "%s", b.data ? b.data : "");
	pm__buf_free(&b);
}

/* One field assignment, from the user or from an alias. */
struct assign {
	const pm_format *fmt;
	uint64_t val;
	size_t pos;
	bool user;
	const char *alias;  /* the alias it came from, or NULL */
};

static int assign_set(struct assign *as, size_t *n, size_t cap, const struct assign *a)
{
	for (size_t i = 0; i < *n; i++) {
		if (as[i].fmt != a->fmt)
			continue;
		if (as[i].user && !a->user)
			return 0; /* the user's term wins over an alias's */
		as[i] = *a;
		return 0;
	}
	if (*n >= cap)
		return -ENOMEM;
	as[(*n)++] = *a;
	return 0;
}

/* Build an event on a PMU from its terms. */
static int build_pmu_event(struct parser *p, struct pm_event *ev, const pm_pmu *pmu,
			   const struct terms *ts)
{
	uint64_t words[4] = { 0, 0, 0, 0 };
	struct assign *as = NULL;
	const pm_alias **aliases = NULL;
	size_t *alias_pos = NULL;
	size_t nas = 0, cap = 0, nal = 0;
	uint32_t type;
	int rc;

	if (pm_pmu_type(pmu, &type) < 0)
		return perr(p, ev->pos, PM_ERR_NO_PMU, "PMU '%s' has no usable type",
			    pm_pmu_name(pmu));
	ev->attr.type = type;
	ev->pmu = pmu;

	/* Room for every user term plus every alias term. */
	cap = ts->n;
	for (size_t i = 0; i < ts->n; i++) {
		const struct term *t = &ts->t[i];
		char name[128];
		const pm_alias *al;

		if (t->nlen >= sizeof(name) || (t->sval && t->slen >= sizeof(name)))
			continue;
		if (t->sval) { /* event=NAME */
			memcpy(name, t->sval, t->slen);
			name[t->slen] = 0;
			al = pm_pmu_alias_find(pmu, name);
			if (al)
				cap += pm_alias_term_count(al);
			continue;
		}
		memcpy(name, t->name, t->nlen);
		name[t->nlen] = 0;
		al = pm_pmu_format_find(pmu, name) ? NULL : pm_pmu_alias_find(pmu, name);
		if (al)
			cap += pm_alias_term_count(al);
	}
	as = pm__calloc(cap ? cap : 1, sizeof(*as));
	aliases = pm__calloc(ts->n ? ts->n : 1, sizeof(*aliases));
	alias_pos = pm__calloc(ts->n ? ts->n : 1, sizeof(*alias_pos));
	if (!as || !aliases || !alias_pos) {
		rc = perr(p, ev->pos, ENOMEM, "out of memory");
		goto out;
	}

	/* Pass 1: the user's terms. */
	for (size_t i = 0; i < ts->n; i++) {
		const struct term *t = &ts->t[i];
		char name[128];
		const pm_format *fmt;
		const pm_alias *al;
		int bi = builtin_index(t->name, t->nlen);

		if (bi >= 0) {
			rc = apply_builtin(p, ev, bi, t, words, false);
			if (rc)
				goto out;
			continue;
		}
		{
			bool handled;

			rc = config_term(p, ev, t, &handled);
			if (rc)
				goto out;
			if (handled)
				continue;
		}
		if (t->nlen >= sizeof(name)) {
			rc = perr(p, t->pos, PM_ERR_UNKNOWN_TERM, "term name too long");
			goto out;
		}
		memcpy(name, t->name, t->nlen);
		name[t->nlen] = 0;
		fmt = pm_pmu_format_find(pmu, name);
		if (t->sval && !strcmp(name, "event") && t->slen < sizeof(name)) {
			uint64_t num;
			char an[128];

			memcpy(an, t->sval, t->slen);
			an[t->slen] = 0;
			/* event=NAME names an event of the PMU (perf's term=ALIAS) */
			if (parse_u64(t->sval, t->slen, &num) == -EINVAL &&
			    (al = pm_pmu_alias_find(pmu, an)) != NULL) {
				aliases[nal] = al;
				alias_pos[nal++] = t->vpos;
				continue;
			}
		}
		if (!fmt && !t->sval && !pm_pmu_alias_find(pmu, name)) {
			uint64_t raw;

			if (parse_raw(t->name, t->nlen, &raw)) { /* rNNN: the config, as perf */
				words[0] = raw;
				continue;
			}
		}
		if (fmt) {
			struct assign a = { fmt, 1, t->pos, true, NULL };

			if (!t->sval) {
				if (pm_format_width(fmt) != 1) {
					rc = perr(p, t->pos, PM_ERR_SYNTAX,
						  "term '%s' needs a value: it is a %u-bit field (%s)",
						  name, pm_format_width(fmt), pm_format_spec(fmt));
					goto out;
				}
			} else {
				if (t->slen == 1 && t->sval[0] == '?') {
					rc = perr(p, t->vpos, PM_ERR_SYNTAX,
						  "term '%s': '?' is only for aliases, give a number",
						  name);
					goto out;
				}
				rc = term_number(p, t, &a.val);
				if (rc)
					goto out;
				a.pos = t->vpos;
			}
			rc = assign_set(as, &nas, cap, &a);
			if (rc) {
				rc = perr(p, t->pos, ENOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		al = pm_pmu_alias_find(pmu, name);
		if (al) {
			if (t->sval) {
				rc = perr(p, t->vpos, PM_ERR_SYNTAX,
					  "'%s' is an event of PMU '%s' and takes no value", name,
					  pm_pmu_name(pmu));
				goto out;
			}
			aliases[nal] = al;
			alias_pos[nal++] = t->pos;
			continue;
		}
		{
			char valid[200];

			valid_terms(pmu, valid, sizeof(valid));
			rc = perr(p, t->pos, PM_ERR_UNKNOWN_TERM,
				  "unknown term '%s' for PMU '%s'; valid terms: %s", name,
				  pm_pmu_name(pmu), valid);
			goto out;
		}
	}

	/* Pass 2: the aliases' terms, under the user's. */
	for (size_t k = 0; k < nal; k++) {
		const pm_alias *al = aliases[k];
		size_t n = pm_alias_term_count(al);

		for (size_t j = 0; j < n; j++) {
			const char *tn = pm_alias_term_name(al, j);
			uint64_t v = 0;
			int r = pm_alias_term_value(al, j, &v);
			const pm_format *fmt;
			int bi;

			if (!tn || r < 0) {
				rc = perr(p, alias_pos[k], PM_ERR_FORMAT,
					  "event '%s' of PMU '%s' has an unreadable term %zu",
					  pm_alias_name(al), pm_pmu_name(pmu), j);
				goto out;
			}
			fmt = pm_pmu_format_find(pmu, tn);
			if (r == 1) {
				bool given = false;

				for (size_t i = 0; i < nas; i++)
					if (as[i].user && fmt && as[i].fmt == fmt)
						given = true;
				if (!given) {
					rc = perr(p, alias_pos[k], EINVAL,
						  "event '%s' needs a value for its parameter '%s' "
						  "(write %s,%s=N)",
						  pm_alias_name(al), tn, pm_alias_name(al), tn);
					goto out;
				}
				continue;
			}
			bi = builtin_index(tn, strlen(tn));
			if (bi >= 0 && bi != 6) {
				char num[24];
				struct term t = { tn, strlen(tn), num, 0, alias_pos[k], alias_pos[k] };

				snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
				t.slen = strlen(num);
				if (bi <= 3) {
					words[bi] |= v;
					continue;
				}
				rc = apply_builtin(p, ev, bi, &t, words, true);
				if (rc)
					goto out;
				continue;
			}
			if (!fmt) {
				rc = perr(p, alias_pos[k], PM_ERR_UNKNOWN_TERM,
					  "event '%s' of PMU '%s' uses term '%s', which the PMU "
					  "has no format for",
					  pm_alias_name(al), pm_pmu_name(pmu), tn);
				goto out;
			}
			{
				struct assign a = { fmt, v, alias_pos[k], false, pm_alias_name(al) };

				rc = assign_set(as, &nas, cap, &a);
				if (rc) {
					rc = perr(p, alias_pos[k], ENOMEM, "out of memory");
					goto out;
				}
			}
		}
	}

	/* A PMU's default config, under the user's terms: intel_pt gets perf's
	 * tsc, mtc and mtc_period=3 (when caps/mtc), psb_period=3 (when
	 * caps/psb_cyc), pt and branch. */
	if (!strcmp(pm_pmu_name(pmu), "intel_pt")) {
		const char *mtc = pm_pmu_cap_find(pmu, "mtc");
		const char *psb = pm_pmu_cap_find(pmu, "psb_cyc");
		static const struct {
			const char *name;
			uint64_t val;
			int cap; /* 0 always, 1 caps/mtc, 2 caps/psb_cyc */
		} def[] = { { "tsc", 1, 0 },	    { "mtc", 1, 1 }, { "mtc_period", 3, 1 },
			    { "psb_period", 3, 2 }, { "pt", 1, 0 },  { "branch", 1, 0 } };
		struct assign *nas_arr = pm__reallocarray(as, nas + PM_ARRAY_SIZE(def), sizeof(*as));

		if (!nas_arr) {
			rc = perr(p, ev->pos, ENOMEM, "out of memory");
			goto out;
		}
		as = nas_arr;
		cap = nas + PM_ARRAY_SIZE(def);
		for (size_t k = 0; k < PM_ARRAY_SIZE(def); k++) {
			const pm_format *fmt = pm_pmu_format_find(pmu, def[k].name);
			const char *c = def[k].cap == 1 ? mtc : def[k].cap == 2 ? psb : "1";
			struct assign a = { fmt, def[k].val, ev->pos, false, "intel_pt default" };

			if (!fmt || !c || !strtoull(c, NULL, 0))
				continue;
			if (assign_set(as, &nas, cap, &a)) {
				rc = perr(p, ev->pos, ENOMEM, "out of memory");
				goto out;
			}
		}
	}

	/* Encode, each field replacing the bits of its mask. */
	for (size_t i = 0; i < nas; i++) {
		uint64_t bits = 0, mask = pm_format_mask(as[i].fmt);
		unsigned width = pm_format_width(as[i].fmt);
		int w = pm_format_word(as[i].fmt);

		if (w < 0 || w > 3) {
			rc = perr(p, as[i].pos, PM_ERR_FORMAT, "format '%s' has a bad word",
				  pm_format_name(as[i].fmt));
			goto out;
		}
		if (pm_format_encode(as[i].fmt, as[i].val, &bits) < 0) {
			uint64_t max = width >= 64 ? UINT64_MAX : (1ULL << width) - 1;

			if (as[i].alias)
				rc = perr(p, as[i].pos, PM_ERR_RANGE,
					  "event '%s': value 0x%llx too big for '%s' (%s), "
					  "maximum is 0x%llx",
					  as[i].alias, (unsigned long long)as[i].val,
					  pm_format_name(as[i].fmt), pm_format_spec(as[i].fmt),
					  (unsigned long long)max);
			else
				rc = perr(p, as[i].pos, PM_ERR_RANGE,
					  "value 0x%llx too big for '%s' (%s), maximum is 0x%llx",
					  (unsigned long long)as[i].val, pm_format_name(as[i].fmt),
					  pm_format_spec(as[i].fmt), (unsigned long long)max);
			goto out;
		}
		words[w] = (words[w] & ~mask) | bits;
	}
	ev->attr.config = words[0];
	ev->attr.config1 = words[1];
	ev->attr.config2 = words[2];
	ev->attr.config3 = words[3];
	rc = 0;
out:
	free(as);
	free(aliases);
	free(alias_pos);
	return rc;
}

/* Generic or raw event with (built-in) terms. */
static int build_plain_event(struct parser *p, struct pm_event *ev, const struct terms *ts)
{
	uint64_t words[4] = { ev->attr.config, ev->attr.config1, ev->attr.config2,
			      ev->attr.config3 };

	for (size_t i = 0; i < ts->n; i++) {
		const struct term *t = &ts->t[i];
		int bi = builtin_index(t->name, t->nlen);
		bool handled;
		int rc;

		if (bi < 0) {
			char valid[200];

			rc = config_term(p, ev, t, &handled);
			if (rc)
				return rc;
			if (handled)
				continue;

			valid_terms(NULL, valid, sizeof(valid));
			return perr(p, t->pos, PM_ERR_UNKNOWN_TERM,
				    "unknown term '%.*s' for event '%.*s'; valid terms: %s",
				    (int)t->nlen, t->name, (int)(t->pos - ev->pos - 1),
				    p->s + ev->pos, valid);
		}
		rc = apply_builtin(p, ev, bi, t, words, false);
		if (rc)
			return rc;
	}
	ev->attr.config = words[0];
	ev->attr.config1 = words[1];
	ev->attr.config2 = words[2];
	ev->attr.config3 = words[3];
	return 0;
}

/* ------------------------------------------------------------------ */
/* Modifiers                                                           */

static int apply_mods(struct parser *p, struct pm_event *ev, size_t pos, size_t n, bool group)
{
	const char *m = p->s + pos;
	uint64_t f = ev->attr.flags;

	/* perf: an event's own modifiers start from nothing excluded (the
	 * default exclude_guest goes too); a group's apply on top of each
	 * member's. */
	if (!group) {
		f &= ~(PM_ATTR_EXCLUDE_USER | PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_HV |
		       PM_ATTR_EXCLUDE_GUEST | PM_ATTR_EXCLUDE_HOST | PM_ATTR_EXCLUDE_IDLE |
		       PM_ATTR_PRECISE_IP_MASK | PM_ATTR_PINNED | PM_ATTR_EXCLUSIVE);
		ev->gh_set = false;
	}
	bool eu, ek, eh, eg, eH, ukh, gh = ev->gh_set;
	bool guest = p->opts & PM_EVENT_OPT_GUEST;
	unsigned precise = (unsigned)((f & PM_ATTR_PRECISE_IP_MASK) >> PM_ATTR_PRECISE_IP_SHIFT);

	eu = f & PM_ATTR_EXCLUDE_USER;
	ek = f & PM_ATTR_EXCLUDE_KERNEL;
	eh = f & PM_ATTR_EXCLUDE_HV;
	eg = f & PM_ATTR_EXCLUDE_GUEST;
	eH = f & PM_ATTR_EXCLUDE_HOST;
	ukh = eu || ek || eh;
	/* perf's rules: the first of u/k/h excludes the other two contexts
	 * (and `u` keeps the guest excluded), the first of G/H the other one;
	 * `p` needs exclude_guest unless G/H said otherwise. */
	for (size_t k = 0; k < n; k++) {
		char c = m[k];

		if (c != 'p' && memchr(m, c, k))
			return perr(p, pos + k, PM_ERR_SYNTAX, "modifier '%c' given twice", c);
		switch (c) {
		case 'u': case 'k': case 'h':
			if (!ukh)
				eu = ek = eh = ukh = true;
			if (c == 'u') {
				eu = false;
				if (!gh && !guest)
					eg = true;
			} else if (c == 'k') {
				ek = false;
			} else {
				eh = false;
			}
			break;
		case 'G': case 'H':
			if (!gh)
				eg = eH = gh = true;
			if (c == 'G')
				eg = false;
			else
				eH = false;
			break;
		case 'I':
			f |= PM_ATTR_EXCLUDE_IDLE;
			break;
		case 'p':
			if (++precise > 3)
				return perr(p, pos + k, PM_ERR_RANGE,
					    "too many 'p' modifiers: precise_ip is at most 3");
			if (!gh)
				eg = true;
			break;
		case 'P':
			ev->flags |= PM_EVENT_PRECISE_MAX;
			break;
		case 'S':
			ev->flags |= PM_EVENT_SAMPLE_READ;
			break;
		case 'W':
			ev->flags |= PM_EVENT_WEAK_GROUP;
			break;
		case 'b':
			ev->flags |= PM_EVENT_BPF_COUNTER;
			break;
		case 'D':
			f |= PM_ATTR_PINNED;
			break;
		case 'e':
			f |= PM_ATTR_EXCLUSIVE;
			break;
		default:
			return perr(p, pos + k, PM_ERR_SYNTAX,
				    "unknown modifier '%c' (valid: u k h G H I p P S D e W b)", c);
		}
	}
	ev->gh_set = gh;
	f &= ~(PM_ATTR_EXCLUDE_USER | PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_HV |
	       PM_ATTR_EXCLUDE_GUEST | PM_ATTR_EXCLUDE_HOST | PM_ATTR_PRECISE_IP_MASK);
	f |= (eu ? PM_ATTR_EXCLUDE_USER : 0) | (ek ? PM_ATTR_EXCLUDE_KERNEL : 0) |
	     (eh ? PM_ATTR_EXCLUDE_HV : 0) | (eg ? PM_ATTR_EXCLUDE_GUEST : 0) |
	     (eH ? PM_ATTR_EXCLUDE_HOST : 0) | ((uint64_t)precise << PM_ATTR_PRECISE_IP_SHIFT);
	ev->attr.flags = f;
	return 0;
}

/* Read modifier letters at p->i; pos and n give them. */
static int read_mods(struct parser *p, size_t *pos, size_t *n, bool need)
{
	*pos = p->i;
	while (p->i < p->len && ((p->s[p->i] >= 'a' && p->s[p->i] <= 'z') ||
				 (p->s[p->i] >= 'A' && p->s[p->i] <= 'Z')))
		p->i++;
	*n = p->i - *pos;
	if (need && !*n)
		return perr(p, p->i, PM_ERR_SYNTAX, "expected modifiers after ':'");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static struct pm_event *list_add(struct pm_event_list *l)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 4;
		struct pm_event *nv = pm__reallocarray(l->ev, ncap, sizeof(*nv));

		if (!nv)
			return NULL;
		l->ev = nv;
		l->cap = ncap;
	}
	memset(&l->ev[l->n], 0, sizeof(l->ev[0]));
	return &l->ev[l->n++];
}

/* The PMU whose rules apply to the event (its own, or the core PMU). */
static const pm_pmu *rule_pmu(const struct parser *p, const struct pm_event *ev)
{
	if (ev->pmu)
		return ev->pmu;
	if (ev->attr.type == PM_TYPE_HARDWARE || ev->attr.type == PM_TYPE_HW_CACHE ||
	    ev->attr.type == PM_TYPE_RAW)
		return pm__core_pmu(p->pmus);
	return NULL;
}

static uint64_t attr_word(const struct pm_attr *a, int w)
{
	switch (w) {
	case 0: return a->config;
	case 1: return a->config1;
	case 2: return a->config2;
	default: return a->config3;
	}
}

/* After all modifiers: precise max, ProfileMe selection and its rules. */
static int finish_event(struct parser *p, struct pm_event *ev)
{
	const pm_pmu *pmu = rule_pmu(p, ev);

	if (ev->flags & PM_EVENT_PRECISE_MAX) {
		int mp = pmu ? pm_pmu_max_precise(pmu) : -1;
		unsigned pi = mp < 0 ? 3 : (unsigned)PM_MIN(mp, 3);

		ev->attr.flags = (ev->attr.flags & ~PM_ATTR_PRECISE_IP_MASK) |
				 ((uint64_t)pi << PM_ATTR_PRECISE_IP_SHIFT);
	}
	if (pmu && pm_pmu_is_profileme(pmu)) {
		const pm_format *fmt = pm_pmu_format_find(pmu, "profileme");
		bool bit = fmt && pm_format_word(fmt) >= 0 && pm_format_word(fmt) <= 3 &&
			   pm_format_decode(fmt, attr_word(&ev->attr, pm_format_word(fmt)));
		bool precise = PM_ATTR_PRECISE_IP(&ev->attr) || (ev->flags & PM_EVENT_PRECISE_MAX);
		const char *via = bit ? (precise ? "the profileme term (config:8) and precise_ip"
						 : "the profileme term (config:8)")
				      : "precise_ip (p/P)";
		uint32_t t;

		if (bit || precise)
			ev->flags |= PM_EVENT_PROFILEME;
		/* the Alpha driver's rules for what it can sample in ProfileMe mode */
		if ((ev->flags & PM_EVENT_PROFILEME) && ev->attr.type == PM_TYPE_HARDWARE &&
		    ev->attr.config != 0 && ev->attr.config != 1 && ev->attr.config != 3)
			return perr(p, ev->pos, PM_ERR_PROFILEME,
				    "ProfileMe event (selected by %s) on PMU '%s': the driver maps "
				    "only the hardware events cycles, instructions and cache-misses, "
				    "not %llu",
				    via, pm_pmu_name(pmu), (unsigned long long)ev->attr.config);
		if ((ev->flags & PM_EVENT_PROFILEME) && pm_pmu_type(pmu, &t) == 0 &&
		    ev->attr.type == t) {
			const pm_format *efmt = pm_pmu_format_find(pmu, "event");
			uint64_t allowed = 0, code;
			size_t nf = pm_pmu_format_count(pmu);

			for (size_t i = 0; i < nf; i++) {
				const pm_format *f = pm_pmu_format_get(pmu, i);

				if (pm_format_word(f) == 0)
					allowed |= pm_format_mask(f);
			}
			if (ev->attr.config & ~allowed)
				return perr(p, ev->pos, PM_ERR_PROFILEME,
					    "ProfileMe event (selected by %s) on PMU '%s': config 0x%llx "
					    "sets bits 0x%llx outside the PMU's formats (0x%llx), which "
					    "the driver rejects",
					    via, pm_pmu_name(pmu), (unsigned long long)ev->attr.config,
					    (unsigned long long)(ev->attr.config & ~allowed),
					    (unsigned long long)allowed);
			code = efmt && pm_format_word(efmt) == 0
				       ? pm_format_decode(efmt, ev->attr.config)
				       : ev->attr.config & 0xff;
			if (code < 1 || code > 4)
				return perr(p, ev->pos, PM_ERR_PROFILEME,
					    "ProfileMe event (selected by %s) on PMU '%s': event code "
					    "%llu is not one the driver maps (1 cycles, 2 instructions, "
					    "3 Bcache misses, 4 Mbox replays)",
					    via, pm_pmu_name(pmu), (unsigned long long)code);
		}
		if ((ev->flags & PM_EVENT_PROFILEME) &&
		    !(ev->flags & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET)))
			ev->flags |= PM_EVENT_NEEDS_PERIOD;
	}
	if ((ev->flags & PM_EVENT_PROFILEME) &&
	    (ev->flags & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET)) && !ev->attr.sample_period)
		return perr(p, ev->period_pos, PM_ERR_PROFILEME,
			    "ProfileMe event on PMU '%s' must sample: %s=0 makes it a counting "
			    "event; give a non-zero period or freq, or drop the profileme "
			    "term and precise modifiers",
			    pm_pmu_name(pmu), (ev->flags & PM_EVENT_FREQ_SET) ? "freq" : "period");
	return 0;
}

/* Key of "the same PMU" for the group rule. */
static uint64_t pmu_key(const struct parser *p, const struct pm_event *ev)
{
	const pm_pmu *pmu = rule_pmu(p, ev);
	uint32_t type;

	if (pmu && pm_pmu_type(pmu, &type) == 0)
		return type;
	return ev->attr.type;
}

/* ------------------------------------------------------------------ */
/* Forms with a ':' that does not start modifiers                      */

static bool all_modifier_letters(const char *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!strchr("ukhGHIpPSDeW", s[k]) || !s[k])
			return false;
	return n > 0;
}

/* `TYPE:CONFIG`, `mem:ADDR[/LEN][:rwx]` or `sys:event`, with p->i at the ':'
 * after the first identifier.  Fills *a and *eflags and moves p->i past the
 * form; *handled false means "not one of these" (p->i is left alone). */
static int parse_colon_form(struct parser *p, size_t start, const char *ident, size_t nlen,
			    struct pm_attr *a, unsigned *eflags, bool *handled)
{
	size_t tstart = p->i + 1, j = tstart, tlen;
	uint64_t v, num;

	*handled = false;
	*eflags = 0;
	while (j < p->len && is_ident_char(p->s[j]))
		j++;
	tlen = j - tstart;
	pm_attr_init(a);

	/* TYPE:CONFIG (decimal or 0x hex) */
	if (parse_u64(ident, nlen, &v) == 0 && tlen && parse_u64(p->s + tstart, tlen, &num) == 0) {
		*handled = true;
		if (v > UINT32_MAX)
			return perr(p, start, PM_ERR_RANGE, "type %.*s does not fit in 32 bits",
				    (int)nlen, ident);
		a->type = (uint32_t)v;
		a->config = num;
		p->i = j;
		return 0;
	}

	/* mem:ADDR[/LEN][:rwx] */
	if (nlen == 3 && !memcmp(ident, "mem", 3)) {
		uint64_t len = 0;
		unsigned bp = 0;
		int rc;

		*handled = true;
		rc = parse_u64(p->s + tstart, tlen, &num);
		if (rc)
			return perr(p, tstart, rc == -ERANGE ? PM_ERR_RANGE : PM_ERR_SYNTAX,
				    rc == -ERANGE ? "mem: the address is out of range (64 bits)"
						  : "mem: needs an address (mem:ADDR[/LEN][:rwx])");
		p->i = j;
		if (p->i < p->len && p->s[p->i] == '/') {
			size_t ls = ++p->i;

			while (p->i < p->len && is_ident_char(p->s[p->i]))
				p->i++;
			rc = parse_u64(p->s + ls, p->i - ls, &len);
			if (rc == -ERANGE)
				return perr(p, ls, PM_ERR_RANGE,
					    "mem: the length '%.*s' is out of range (64 bits)",
					    (int)(p->i - ls), p->s + ls);
			if (rc || !len)
				return perr(p, ls, PM_ERR_SYNTAX,
					    "mem: the length after '/' must be a non-zero number");
		}
		if (p->i < p->len && p->s[p->i] == ':') {
			size_t ks = p->i + 1, k = ks;

			while (k < p->len && (p->s[k] == 'r' || p->s[k] == 'w' || p->s[k] == 'x'))
				k++;
			if (k > ks && (k == p->len || !is_ident_char(p->s[k]))) {
				for (size_t q = ks; q < k; q++) {
					unsigned bit = p->s[q] == 'r' ? 1 : p->s[q] == 'w' ? 2 : 4;

					if (bp & bit)
						return perr(p, q, PM_ERR_SYNTAX,
							    "breakpoint type '%c' given twice", p->s[q]);
					bp |= bit;
				}
				p->i = k;
			}
		}
		if (!bp)
			bp = 3; /* rw */
		if (!len)
			len = bp == 4 ? sizeof(long) : 4;
		a->type = PM_TYPE_BREAKPOINT;
		a->bp_type = bp;
		a->config1 = num; /* bp_addr */
		a->config2 = len; /* bp_len */
		a->sample_period = 1;
		*eflags = PM_EVENT_DEFAULT_PERIOD;
		return 0;
	}

	/* sys:event (tracepoint) */
	{
		char root[PATH_MAX_TRACEFS];
		uint64_t cfg;
		int rc;

		if (!tlen || pm__generic_find(ident, nlen) || pm__hw_cache_parse(ident, nlen, &cfg) != -1 ||
		    parse_raw(ident, nlen, &cfg))
			return 0;
		int rrc = pm__tracefs_root(p->pmus ? pm_pmu_list_root(p->pmus) : NULL, root,
					   sizeof(root));

		rc = rrc ? rrc : pm__tracepoint_id(root, ident, nlen, p->s + tstart, tlen, &num);
		if (rc) {
			if (all_modifier_letters(p->s + tstart, tlen))
				return 0; /* `name:mods`: an unknown name, reported by the caller */
			*handled = true;
			if (rc == -EINVAL || rc == -ERANGE)
				return perr(p, start, PM_ERR_FORMAT,
					    "tracepoint '%.*s:%.*s': %s/events/%.*s/%.*s/id is not a "
					    "decimal id",
					    (int)nlen, ident, (int)tlen, p->s + tstart, root, (int)nlen,
					    ident, (int)tlen, p->s + tstart);
			if (rrc)
				return perr(p, start, ENOENT,
					    "unknown event or tracepoint '%.*s:%.*s': no tracefs at %s "
					    "(nor under kernel/debug/tracing; set PROFILEME_TRACEFS, or "
					    "mount -t tracefs nodev /sys/kernel/tracing)",
					    (int)nlen, ident, (int)tlen, p->s + tstart,
					    root[0] ? root : "(path too long)");
			return perr(p, start, ENOENT,
				    "unknown event or tracepoint '%.*s:%.*s' (%s/events/%.*s/%.*s/id: %s)",
				    (int)nlen, ident, (int)tlen, p->s + tstart, root, (int)nlen, ident,
				    (int)tlen, p->s + tstart, pm_strerror(rc));
		}
		*handled = true;
		a->type = PM_TYPE_TRACEPOINT;
		a->config = num;
		a->sample_period = 1;
		/* as perf's tracepoint events: the raw record, time, cpu and period */
		a->sample_type |= PM_SAMPLE_RAW | PM_SAMPLE_TIME | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD;
		*eflags = PM_EVENT_DEFAULT_PERIOD;
		p->i = j;
		return 0;
	}
}

static bool at_end_of_event(const struct parser *p, bool in_group);

/* The rest of a colon form: optional /terms/ and :mods, then the event. */
static int parse_special_tail(struct parser *p, bool in_group, size_t start,
			      const struct pm_attr *a, unsigned eflags)
{
	struct terms ts = { 0 };
	size_t mpos = 0, mn = 0;
	struct pm_event *ev;
	int rc = 0;

	if (p->i < p->len && p->s[p->i] == '/') {
		p->i++;
		rc = parse_terms(p, &ts);
		if (rc)
			goto out;
		p->i++; /* the closing '/' */
		if (p->i < p->len && p->s[p->i] == ':')
			p->i++;
		rc = read_mods(p, &mpos, &mn, p->s[p->i - 1] == ':');
	} else if (p->i < p->len && p->s[p->i] == ':') {
		p->i++;
		rc = read_mods(p, &mpos, &mn, true);
	}
	if (rc)
		goto out;
	if (!at_end_of_event(p, in_group)) {
		rc = perr(p, p->i, PM_ERR_SYNTAX, "unexpected '%c' after event '%.*s'", p->s[p->i],
			  (int)(p->i - start), p->s + start);
		goto out;
	}
	ev = list_add(p->list);
	if (!ev) {
		rc = perr(p, start, ENOMEM, "out of memory");
		goto out;
	}
	ev->attr = *a;
	ev->attr.size = PM_ATTR_SIZE_KNOWN;
	if (!(p->opts & PM_EVENT_OPT_GUEST))
		ev->attr.flags |= PM_ATTR_EXCLUDE_GUEST; /* perf's default */
	ev->pos = start;
	ev->group = p->list->n - 1;
	ev->flags = eflags;
	ev->str = pm__strndup(p->s + start, p->i - start);
	if (!ev->str) {
		rc = perr(p, start, ENOMEM, "out of memory");
		goto out;
	}
	rc = build_plain_event(p, ev, &ts);
	if (rc)
		goto out;
	if (ev->flags & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET))
		ev->flags &= ~(unsigned)PM_EVENT_DEFAULT_PERIOD;
	if (mn)
		rc = apply_mods(p, ev, mpos, mn, false);
out:
	free(ts.t);
	return rc;
}

static bool at_end_of_event(const struct parser *p, bool in_group)
{
	return p->i >= p->len || p->s[p->i] == ',' || (in_group && p->s[p->i] == '}');
}

/* Hybrid core PMUs (cpu_atom, cpu_core: perf's names), in list (name)
 * order; 0 when the machine is not hybrid (it has a `cpu` PMU or neither). */
static size_t hybrid_pmus(const struct parser *p, const pm_pmu *out[4])
{
	size_t n = 0, count = p->pmus ? pm_pmu_list_count(p->pmus) : 0;

	if (!count || pm_pmu_find(p->pmus, "cpu"))
		return 0;
	for (size_t i = 0; i < count && n < 4; i++) {
		const pm_pmu *c = pm_pmu_list_get(p->pmus, i);

		if (!strcmp(pm_pmu_name(c), "cpu_core") || !strcmp(pm_pmu_name(c), "cpu_atom"))
			out[n++] = c;
	}
	return n;
}

static bool is_hybrid_pmu(const pm_pmu *pmu)
{
	return !strcmp(pm_pmu_name(pmu), "cpu_core") || !strcmp(pm_pmu_name(pmu), "cpu_atom");
}

/* perf's PMU wildcard: does PMU `name` match `tok` written as a PMU?  The
 * name is tok, or tok followed by `_<digits>`; an `uncore_` prefix of the
 * name may be left out. */
static bool pmu_wildcard_match(const char *name, const char *tok, size_t tlen, bool strip)
{
	size_t k;

	if (!name)
		return false;
	if (strip && strncmp(tok, "uncore_", 7) && !strncmp(name, "uncore_", 7))
		name += 7;
	if (strncmp(name, tok, tlen))
		return false;
	name += tlen;
	if (!*name)
		return true;
	if (*name != '_' || !name[1])
		return false;
	for (k = 1; name[k]; k++)
		if (name[k] < '0' || name[k] > '9')
			return false;
	return true;
}

/* A copy of the event at index src appended to the list (owned strings
 * duplicated); NULL when out of memory. */
static struct pm_event *event_dup(struct parser *p, size_t src)
{
	struct pm_event *ev = list_add(p->list), *from;

	if (!ev)
		return NULL;
	from = &p->list->ev[src];
	*ev = *from;
	ev->str = pm__strndup(from->str, strlen(from->str));
	ev->name = from->name ? pm__strndup(from->name, strlen(from->name)) : NULL;
	ev->group = p->list->n - 1;
	ev->terms = NULL;
	ev->nterms = 0;
	if (ev->str && (!from->name || ev->name) && from->nterms) {
		ev->terms = pm__calloc(from->nterms, sizeof(*ev->terms));
		for (size_t k = 0; ev->terms && k < from->nterms; k++) {
			ev->terms[k] = from->terms[k];
			ev->terms[k].value = NULL;
			ev->nterms = k + 1;
			if (from->terms[k].value &&
			    !(ev->terms[k].value = pm__strndup(from->terms[k].value,
							       strlen(from->terms[k].value))))
				break;
		}
	}
	if (!ev->str || (from->name && !ev->name) ||
	    (from->nterms && (!ev->terms || ev->nterms != from->nterms ||
			      (from->terms[ev->nterms - 1].value &&
			       !ev->terms[ev->nterms - 1].value)))) {
		free(ev->str);
		free(ev->name);
		for (size_t k = 0; k < ev->nterms; k++)
			free(ev->terms[k].value);
		free(ev->terms);
		p->list->n--;
		return NULL;
	}
	return ev;
}

/* On a hybrid machine a generic, cache or raw event is one event per core
 * PMU, as perf: the PMU type in config's upper 32 bits (hardware and cache)
 * or as the type (raw). */
static int hybrid_expand(struct parser *p, size_t idx)
{
	const pm_pmu *hp[4];
	size_t n = hybrid_pmus(p, hp), first_copy = p->list->n;
	const struct pm_event *ev = &p->list->ev[idx];
	uint32_t type0 = ev->attr.type;

	if (!n || ev->pmu || (type0 != PM_TYPE_HARDWARE && type0 != PM_TYPE_HW_CACHE &&
			      type0 != PM_TYPE_RAW) ||
	    (type0 != PM_TYPE_RAW && (ev->attr.config >> 32)))
		return 0;
	for (size_t k = 1; k < n; k++)
		if (!event_dup(p, idx))
			return perr(p, p->list->ev[idx].pos, ENOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		struct pm_event *e = &p->list->ev[k ? first_copy + k - 1 : idx];
		uint32_t t;

		if (pm_pmu_type(hp[k], &t) < 0)
			return perr(p, e->pos, PM_ERR_NO_PMU, "PMU '%s' has no usable type",
				    pm_pmu_name(hp[k]));
		if (type0 == PM_TYPE_RAW)
			e->attr.type = t;
		else
			e->attr.config |= (uint64_t)t << 32;
		e->pmu = hp[k];
	}
	return 0;
}

/* `sys:event` with fnmatch(3) patterns (`sched:sched_*`, `sched:*`,
 * `*:sched_switch`): one tracepoint event per match, in tracefs directory
 * order as perf.  *handled false: not such a form (p->i is left alone). */
static int parse_tracepoint_glob(struct parser *p, bool in_group, bool *handled)
{
	size_t start = p->i, j = p->i, es, ee;
	char sys[128], evn[128], root[PATH_MAX_TRACEFS];
	uint64_t *ids = NULL;
	size_t n = 0;
	bool glob = false;
	int rc;

	*handled = false;
	for (; j < p->len && (is_ident_char(p->s[j]) || p->s[j] == '*' || p->s[j] == '?'); j++)
		if (p->s[j] == '*' || p->s[j] == '?')
			glob = true;
	if (j == start || j >= p->len || p->s[j] != ':' || j - start >= sizeof(sys))
		return 0;
	memcpy(sys, p->s + start, j - start);
	sys[j - start] = 0;
	es = ee = j + 1;
	for (; ee < p->len && (is_ident_char(p->s[ee]) || p->s[ee] == '*' || p->s[ee] == '?'); ee++)
		if (p->s[ee] == '*' || p->s[ee] == '?')
			glob = true;
	if (!glob || ee == es || ee - es >= sizeof(evn))
		return 0;
	memcpy(evn, p->s + es, ee - es);
	evn[ee - es] = 0;
	*handled = true;
	rc = pm__tracefs_root(p->pmus ? pm_pmu_list_root(p->pmus) : NULL, root, sizeof(root));
	if (!rc)
		rc = pm__tracepoint_glob(root, sys, evn, &ids, &n);
	if (rc == -ENOMEM)
		return perr(p, start, ENOMEM, "out of memory");
	if (rc)
		return perr(p, start, ENOENT, "tracepoint pattern '%s:%s': no tracefs events at %s (%s)",
			    sys, evn, root, pm_strerror(rc));
	if (!n)
		return perr(p, start, ENOENT, "tracepoint pattern '%s:%s' matches no tracepoint in %s",
			    sys, evn, root);
	for (size_t k = 0; k < n && !rc; k++) {
		struct pm_attr a;

		pm_attr_init(&a);
		a.type = PM_TYPE_TRACEPOINT;
		a.config = ids[k];
		a.sample_period = 1;
		a.sample_type |= PM_SAMPLE_RAW | PM_SAMPLE_TIME | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD;
		p->i = ee;
		rc = parse_special_tail(p, in_group, start, &a, PM_EVENT_DEFAULT_PERIOD);
	}
	free(ids);
	return rc;
}

static int parse_event(struct parser *p, bool in_group)
{
	size_t start = p->i, nlen, mpos = 0, mn = 0;
	const char *name = p->s + p->i;
	struct terms ts = { 0 };
	bool slash = false;
	struct pm_event *ev;
	const pm_pmu *pmu = NULL;
	const struct pm__generic *gen;
	uint64_t raw;
	char ident[128];
	size_t idx;
	int rc, hwc;
	bool globbed;

	rc = parse_tracepoint_glob(p, in_group, &globbed);
	if (globbed)
		return rc;
	while (p->i < p->len && is_ident_char(p->s[p->i]))
		p->i++;
	nlen = p->i - start;
	if (!nlen) {
		if (p->i >= p->len)
			return perr(p, p->i, PM_ERR_SYNTAX, "expected an event");
		return perr(p, p->i, PM_ERR_SYNTAX, "expected an event, found '%c'", p->s[p->i]);
	}
	if (nlen >= sizeof(ident))
		return perr(p, start, PM_ERR_SYNTAX, "event name too long");
	memcpy(ident, name, nlen);
	ident[nlen] = 0;

	if (p->i < p->len && p->s[p->i] == ':') {
		struct pm_attr a;
		unsigned eflags;
		bool handled;

		rc = parse_colon_form(p, start, ident, nlen, &a, &eflags, &handled);
		if (handled)
			return rc ? rc : parse_special_tail(p, in_group, start, &a, eflags);
	}

	if (p->i < p->len && p->s[p->i] == '/') {
		slash = true;
		p->i++;
		rc = parse_terms(p, &ts);
		if (rc)
			goto out;
		p->i++; /* the closing '/' */
		if (p->i < p->len && p->s[p->i] == ':')
			p->i++;
		rc = read_mods(p, &mpos, &mn, p->s[p->i - 1] == ':');
		if (rc)
			goto out;
	} else if (p->i < p->len && p->s[p->i] == ':') {
		p->i++;
		rc = read_mods(p, &mpos, &mn, true);
		if (rc)
			goto out;
	}
	if (!at_end_of_event(p, in_group)) {
		rc = perr(p, p->i, PM_ERR_SYNTAX, "unexpected '%c' after event '%s'", p->s[p->i],
			  ident);
		goto out;
	}

	ev = list_add(p->list);
	if (!ev) {
		rc = perr(p, start, ENOMEM, "out of memory");
		goto out;
	}
	pm_attr_init(&ev->attr);
	ev->attr.size = PM_ATTR_SIZE_KNOWN;
	if (!(p->opts & PM_EVENT_OPT_GUEST))
		ev->attr.flags |= PM_ATTR_EXCLUDE_GUEST; /* perf's default */
	ev->pos = start;
	ev->group = p->list->n - 1;
	ev->str = pm__strndup(p->s + start, p->i - start);
	if (!ev->str) {
		rc = perr(p, start, ENOMEM, "out of memory");
		goto out;
	}

	idx = p->list->n - 1;
	if (slash && p->pmus) {
		pmu = pm_pmu_find(p->pmus, ident);
		for (size_t i = 0; !pmu && i < pm_pmu_list_count(p->pmus); i++) {
			const pm_pmu *c = pm_pmu_list_get(p->pmus, i);

			if (pmu_wildcard_match(pm_pmu_name(c), ident, nlen, true) ||
			    pmu_wildcard_match(pm_pmu_alt_name(c), ident, nlen, false))
				pmu = c; /* the first; the others after the modifiers */
		}
	}
	gen = pmu ? NULL : pm__generic_find(name, nlen);
	if (pmu && is_hybrid_pmu(pmu) && ts.n && !ts.t[0].sval && ts.t[0].nlen < sizeof(ident)) {
		/* cpu_core/instructions/, cpu_core/LLC-loads/: a generic or cache
		 * event of that core PMU (perf's hybrid form) */
		char tn[128];
		const struct pm__generic *g;
		uint64_t cc = 0;
		uint32_t pt;

		memcpy(tn, ts.t[0].name, ts.t[0].nlen);
		tn[ts.t[0].nlen] = 0;
		g = pm__generic_find(tn, ts.t[0].nlen);
		if (!pm_pmu_format_find(pmu, tn) && !pm_pmu_alias_find(pmu, tn) &&
		    ((g && g->type == PM_TYPE_HARDWARE) ||
		     pm__hw_cache_parse(tn, ts.t[0].nlen, &cc) == 0) &&
		    pm_pmu_type(pmu, &pt) == 0) {
			struct terms rest = { ts.t + 1, ts.n - 1, 0 };

			ev->attr.type = g && g->type == PM_TYPE_HARDWARE ? PM_TYPE_HARDWARE
									  : PM_TYPE_HW_CACHE;
			ev->attr.config = (g && g->type == PM_TYPE_HARDWARE ? g->config : cc) |
					  (uint64_t)pt << 32;
			ev->pmu = pmu;
			rc = build_plain_event(p, ev, &rest);
			goto built;
		}
	}
	if (pmu) {
		rc = build_pmu_event(p, ev, pmu, &ts);
	} else if (gen) {
		ev->attr.type = gen->type;
		ev->attr.config = gen->config;
		rc = build_plain_event(p, ev, &ts);
	} else if ((hwc = pm__hw_cache_parse(name, nlen, &raw)) != -1) {
		if (hwc == -2) {
			rc = perr(p, start, PM_ERR_SYNTAX,
				  "cache event '%s': this cache has no such operation (L1-icache: "
				  "load, prefetch; iTLB, branch: load only)",
				  ident);
		} else {
			ev->attr.type = PM_TYPE_HW_CACHE;
			ev->attr.config = raw;
			rc = build_plain_event(p, ev, &ts);
		}
	} else if (parse_raw(name, nlen, &raw) && nlen - (nlen > 2 && name[1] == '0' &&
						      (name[2] == 'x' || name[2] == 'X') ? 3 : 1) > 16) {
		rc = perr(p, start, PM_ERR_RANGE,
			  "raw event '%s' is out of range: the config is 64 bits (at most 16 hex "
			  "digits)",
			  ident);
	} else if (parse_raw(name, nlen, &raw)) {
		ev->attr.type = PM_TYPE_RAW;
		ev->attr.config = raw;
		rc = build_plain_event(p, ev, &ts);
	} else if (slash) {
		rc = perr(p, start, PM_ERR_NO_PMU, "unknown PMU '%s'%s", ident,
			  p->pmus ? "" : " (no PMUs were given)");
	} else {
		/* A bare alias name: the first PMU that has it. */
		size_t n = p->pmus ? pm_pmu_list_count(p->pmus) : 0;

		for (size_t i = 0; i < n && !pmu; i++) {
			const pm_pmu *cand = pm_pmu_list_get(p->pmus, i);

			if (pm_pmu_alias_find(cand, ident))
				pmu = cand;
		}
		if (pmu) {
			struct term t = { name, nlen, NULL, 0, start, start };

			rc = terms_add(&ts, &t);
			if (rc)
				rc = perr(p, start, ENOMEM, "out of memory");
			else
				rc = build_pmu_event(p, ev, pmu, &ts);
		} else {
			rc = perr(p, start, PM_ERR_SYNTAX,
				  "unknown event '%s' (not a generic name, raw rNNN, or an event "
				  "of any PMU)",
				  ident);
		}
	}
built:
	if (rc)
		goto out;
	if (mn)
		rc = apply_mods(p, ev, mpos, mn, false);
	if (rc)
		goto out;
	/* more PMUs of a wildcard (uncore_imc/ on uncore_imc_0, _1, ...) */
	if (slash && pmu && strcmp(pm_pmu_name(pmu), ident) &&
	    (!pm_pmu_alt_name(pmu) || strcmp(pm_pmu_alt_name(pmu), ident))) {
		size_t np = pm_pmu_list_count(p->pmus);
		bool past = false;

		for (size_t i = 0; i < np && !rc; i++) {
			const pm_pmu *c = pm_pmu_list_get(p->pmus, i);
			struct pm_event *e;

			if (c == pmu) {
				past = true;
				continue;
			}
			if (!past || (!pmu_wildcard_match(pm_pmu_name(c), ident, nlen, true) &&
				      !pmu_wildcard_match(pm_pmu_alt_name(c), ident, nlen, false)))
				continue;
			e = event_dup(p, idx);
			if (!e) {
				rc = perr(p, start, ENOMEM, "out of memory");
				break;
			}
			for (size_t k = 0; k < e->nterms; k++)
				free(e->terms[k].value);
			free(e->terms);
			e->terms = NULL;
			e->nterms = 0;
			pm_attr_init(&e->attr);
			e->attr.size = PM_ATTR_SIZE_KNOWN;
			if (!(p->opts & PM_EVENT_OPT_GUEST))
				e->attr.flags |= PM_ATTR_EXCLUDE_GUEST;
			e->flags = 0;
			rc = build_pmu_event(p, e, c, &ts);
			if (!rc && mn)
				rc = apply_mods(p, e, mpos, mn, false);
		}
	}
	if (!rc)
		rc = hybrid_expand(p, idx);
out:
	free(ts.t);
	return rc;
}

/* Case-insensitive substring test (perf matches its names with strcasestr). */
static bool name_has(const char *s, const char *word)
{
	size_t wn = strlen(word);

	for (; *s; s++)
		if (strncasecmp(s, word, wn) == 0)
			return true;
	return false;
}

/*
 * perf 6.1's topdown rule (arch_evlist__leader on x86): when the core PMU
 * (PERF_TYPE_RAW) has a `slots` event, a group holding an event named
 * "*slots*" and one named "*topdown*" (names as perf keeps them, of events
 * on a PMU whose name starts with "cpu") is led by that slots event: it
 * moves to the front, the others keep their order.  The kernel refuses
 * topdown metric events in a group that slots does not lead.
 */
static void topdown_reorder(struct parser *p, size_t first)
{
	const pm_pmu *core = p->pmus ? pm_pmu_find_by_type(p->pmus, PM_TYPE_RAW) : NULL;
	size_t slots = SIZE_MAX;
	bool topdown = false;

	if (!core || !pm_pmu_alias_find(core, "slots"))
		return;
	for (size_t k = first; k < p->list->n; k++) {
		const struct pm_event *ev = &p->list->ev[k];
		const char *name = ev->name ? ev->name : ev->str;

		if (!ev->pmu || strncmp(pm_pmu_name(ev->pmu), "cpu", 3) != 0 || !name)
			continue;
		if (slots == SIZE_MAX && name_has(name, "slots")) {
			if (k == first)
				return;
			slots = k;
		}
		if (name_has(name, "topdown"))
			topdown = true;
		if (slots != SIZE_MAX && topdown)
			break;
	}
	if (slots == SIZE_MAX || !topdown)
		return;
	struct pm_event lead = p->list->ev[slots];

	memmove(&p->list->ev[first + 1], &p->list->ev[first],
		(slots - first) * sizeof(p->list->ev[0]));
	p->list->ev[first] = lead;
}

static int parse_group(struct parser *p)
{
	size_t gpos = p->i, first = p->list->n, mpos = 0, mn = 0;
	int rc;

	p->i++; /* '{' */
	for (;;) {
		if (p->i < p->len && p->s[p->i] == '{')
			return perr(p, p->i, PM_ERR_SYNTAX, "groups cannot be nested");
		rc = parse_event(p, true);
		if (rc)
			return rc;
		if (p->i >= p->len)
			return perr(p, p->i, PM_ERR_SYNTAX, "missing '}' for the group at byte %zu",
				    gpos);
		if (p->s[p->i] == '}')
			break;
		p->i++; /* ',' */
	}
	p->i++; /* '}' */
	if (p->i < p->len && p->s[p->i] == ':') {
		p->i++;
		rc = read_mods(p, &mpos, &mn, true);
		if (rc)
			return rc;
	}
	if (p->i < p->len && p->s[p->i] != ',')
		return perr(p, p->i, PM_ERR_SYNTAX, "unexpected '%c' after group", p->s[p->i]);
	topdown_reorder(p, first);
	for (size_t k = first; k < p->list->n; k++) {
		struct pm_event *ev = &p->list->ev[k];

		ev->group = first;
		if (mn) {
			uint64_t own = ev->attr.flags & (PM_ATTR_PINNED | PM_ATTR_EXCLUSIVE);

			rc = apply_mods(p, ev, mpos, mn, true);
			if (rc)
				return rc;
			if (k != first) /* a group's D and e: the leader's, as perf */
				ev->attr.flags = (ev->attr.flags & ~(PM_ATTR_PINNED | PM_ATTR_EXCLUSIVE)) |
						 own;
		}
		rc = finish_event(p, ev);
		if (rc)
			return rc;
	}
	if (p->list->n - first > 1)
		p->list->ev[first].flags |= PM_EVENT_GROUP_LEADER;
	/* ProfileMe events use the whole PMU: nothing else of that PMU beside them. */
	for (size_t a = first; a < p->list->n; a++) {
		for (size_t b = first; b < p->list->n; b++) {
			const struct pm_event *ea = &p->list->ev[a], *eb = &p->list->ev[b];

			if (a == b || !(ea->flags & PM_EVENT_PROFILEME))
				continue;
			if (pmu_key(p, ea) != pmu_key(p, eb))
				continue;
			return perr(p, PM_MAX(ea->pos, eb->pos), PM_ERR_PROFILEME,
				    "ProfileMe event '%s' needs its PMU alone, but its group also "
				    "has '%s' on the same PMU",
				    ea->str, eb->str);
		}
	}
	return 0;
}

static void list_free_events(struct pm_event_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->ev[i].str);
		free(l->ev[i].name);
		for (size_t k = 0; k < l->ev[i].nterms; k++)
			free(l->ev[i].terms[k].value);
		free(l->ev[i].terms);
	}
	free(l->ev);
}

static void fill_error(struct pm_event_error *err, int code, size_t pos, const char *msg)
{
	struct pm_event_error e;

	if (!err)
		return;
	memset(&e, 0, sizeof(e));
	e.sz = sizeof(e);
	e.code = code;
	e.position = pos;
	snprintf(e.message, sizeof(e.message), "%s", msg);
	pm__struct_copy_out(err, err->sz, &e, sizeof(e));
}

int pm_event_parse(pm_event_list **out, const pm_pmu_list *pmus, const char *str,
		   struct pm_event_error *err)
{
	return pm_event_parse_opts(out, pmus, str, NULL, err);
}

/* PM_EVENT_OPT_SAMPLING: a sampling tool's period/frequency for the events
 * whose string chose none (perf record's -c/-F/4000 Hz, as its
 * evsel__config() gives them). */
static void apply_sampling(struct pm_event *ev, uint64_t period, uint64_t freq)
{
	struct pm_attr *a = &ev->attr;

	if (ev->flags & PM_EVENT_DEFAULT_PERIOD) {
		/* tracepoints, breakpoints: every event unless a period is given */
		if (period)
			a->sample_period = period;
		return;
	}
	if (ev->flags & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET))
		return;
	if (period) {
		a->sample_period = period;
		a->flags &= ~PM_ATTR_FREQ;
	} else {
		a->sample_period = freq ? freq : PM_DEFAULT_SAMPLE_FREQ;
		a->flags |= PM_ATTR_FREQ;
	}
	ev->flags &= ~(unsigned)PM_EVENT_NEEDS_PERIOD;
}

int pm_event_parse_opts(pm_event_list **out, const pm_pmu_list *pmus, const char *str,
			const struct pm_event_opts *opts, struct pm_event_error *err)
{
	struct parser p;
	struct pm_event_list *l;
	unsigned flags = 0;
	int rc;

	if (err) {
		rc = PM__SZ_VALID(err, pm_event_error, PM_EVENT_ERROR_SZ_V1);
		if (rc)
			return rc;
	}
	if (opts) {
		rc = PM__SZ_VALID(opts, pm_event_opts, PM_EVENT_OPTS_SZ_V1);
		if (rc) {
			fill_error(err, rc, 0, pm_errmsg());
			return rc;
		}
		flags = opts->flags;
		if (flags & ~(unsigned)(PM_EVENT_OPT_GUEST | PM_EVENT_OPT_SAMPLING)) {
			rc = pm__err(EINVAL, "pm_event_parse_opts: unknown flags 0x%x",
				     flags & ~(unsigned)(PM_EVENT_OPT_GUEST | PM_EVENT_OPT_SAMPLING));
			fill_error(err, rc, 0, pm_errmsg());
			return rc;
		}
	}
	if (!out || !str) {
		rc = pm__err(EINVAL, "pm_event_parse: NULL argument");
		fill_error(err, rc, 0, pm_errmsg());
		return rc;
	}
	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		rc = pm__err(ENOMEM, "out of memory");
		fill_error(err, rc, 0, pm_errmsg());
		return rc;
	}
	memset(&p, 0, sizeof(p));
	p.s = str;
	p.len = strlen(str);
	p.pmus = pmus;
	p.list = l;
	p.opts = flags;

	rc = 0;
	if (!p.len)
		rc = perr(&p, 0, PM_ERR_SYNTAX, "empty event string");
	while (!rc) {
		size_t gn = p.i;

		/* a named group: name{...} (the name is perf's group name) */
		while (gn < p.len && is_ident_char(p.s[gn]))
			gn++;
		if (gn > p.i && gn < p.len && p.s[gn] == '{')
			p.i = gn;
		if (p.s[p.i] == '{') {
			rc = parse_group(&p);
		} else {
			size_t first = l->n;

			rc = parse_event(&p, false);
			for (size_t k = first; !rc && k < l->n; k++)
				rc = finish_event(&p, &l->ev[k]);
		}
		if (rc || p.i >= p.len)
			break;
		p.i++; /* ',' */
		if (p.i >= p.len)
			rc = perr(&p, p.i, PM_ERR_SYNTAX, "expected an event after ','");
	}
	if (rc) {
		fill_error(err, rc, p.epos, p.emsg);
		list_free_events(l);
		free(l);
		return rc;
	}
	if (flags & PM_EVENT_OPT_SAMPLING)
		for (size_t k = 0; k < l->n; k++)
			apply_sampling(&l->ev[k], PM__SZ_HAS(opts, pm_event_opts, sample_period) ?
						  opts->sample_period : 0,
				       PM__SZ_HAS(opts, pm_event_opts, sample_freq) ?
					       opts->sample_freq : 0);
	*out = l;
	return 0;
}

void pm_event_list_free(pm_event_list *list)
{
	if (!list)
		return;
	list_free_events(list);
	free(list);
}

size_t pm_event_list_count(const pm_event_list *list)
{
	return list ? list->n : 0;
}

const pm_event *pm_event_list_get(const pm_event_list *list, size_t index)
{
	if (!list || index >= list->n)
		return NULL;
	return &list->ev[index];
}

void pm_event_attr(const pm_event *ev, struct pm_attr *attr)
{
	if (!attr)
		return;
	if (!ev) {
		pm_attr_init(attr);
		return;
	}
	*attr = ev->attr;
}

const char *pm_event_string(const pm_event *ev)
{
	return ev ? ev->str : NULL;
}

const char *pm_event_name(const pm_event *ev)
{
	if (!ev)
		return NULL;
	return ev->name ? ev->name : ev->str;
}

const pm_pmu *pm_event_pmu(const pm_event *ev)
{
	return ev ? ev->pmu : NULL;
}

unsigned pm_event_flags(const pm_event *ev)
{
	return ev ? ev->flags : 0;
}

size_t pm_event_group(const pm_event *ev)
{
	return ev ? ev->group : 0;
}

size_t pm_event_term_count(const pm_event *ev)
{
	return ev ? ev->nterms : 0;
}

int pm_event_term_get(const pm_event *ev, size_t index, struct pm_event_term *out)
{
	struct pm_event_term t;
	int rc;

	if (!ev || !out)
		return pm__err(EINVAL, "pm_event_term_get: NULL argument");
	rc = PM__SZ_VALID(out, pm_event_term, PM_EVENT_TERM_SZ_V1);
	if (rc)
		return rc;
	if (index >= ev->nterms)
		return pm__err(EINVAL, "pm_event_term_get: index %zu, the event has %zu terms",
			       index, ev->nterms);
	memset(&t, 0, sizeof(t));
	t.sz = sizeof(t);
	t.kind = ev->terms[index].kind;
	t.name = ev->terms[index].name;
	t.value = ev->terms[index].value;
	t.num = ev->terms[index].num;
	pm__struct_copy_out(out, out->sz, &t, sizeof(t));
	return 0;
}

int pm_event_check_freq(uint64_t freq)
{
	char *txt = NULL;
	size_t len;
	uint64_t max = 0;
	const char *path = getenv("PROFILEME_MAX_SAMPLE_RATE_FILE");

	if (!path || !*path)
		path = "/proc/sys/kernel/perf_event_max_sample_rate";
	if (pm__read_small_file(path, 64, &txt, &len) < 0)
		return 0;
	while (len && (txt[len - 1] == '\n' || txt[len - 1] == ' '))
		len--;
	if (parse_u64(txt, len, &max) < 0) {
		free(txt);
		return 0;
	}
	free(txt);
	if (freq > max)
		return pm__err(PM_ERR_RANGE,
			       "frequency %llu Hz is out of range: this kernel samples at most %llu Hz "
			       "(%s)",
			       (unsigned long long)freq, (unsigned long long)max, path);
	return 0;
}
