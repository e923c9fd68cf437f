/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Columnar batches of samples: see profileme/export.h. */
#include <stdio.h>
#include <stdlib.h>

#include <profileme/export.h>
#include <profileme/pmu.h>
#include <profileme/record.h>
#include <profileme/ring.h>

#include "internal/pm_internal.h"
#include "internal/source_int.h"
#include "export/columns_int.h"

enum {
	COL_TIME, COL_PID, COL_TID, COL_CPU, COL_IP, COL_PERIOD, COL_ADDR, COL_ID, COL_EVENT,
	COL_CPUMODE, COL_CALLCHAIN_NR, COL_CALLCHAIN_MARKERS, COL_RAW_OK,
	/* with pm_columns_opts.record_columns only */
	COL_MISC, COL_RAW_SIZE, COL_RAW_OFFSET, COL_BASE_COUNT
};
#define COL_DEFAULT_COUNT COL_MISC /* the base columns every reader has */

static const struct {
	const char *name;
	int type;
} pm_base_cols[COL_BASE_COUNT] = {
	[COL_TIME] = { "time", PM_COL_U64 },	 [COL_PID] = { "pid", PM_COL_U32 },
	[COL_TID] = { "tid", PM_COL_U32 },	 [COL_CPU] = { "cpu", PM_COL_U32 },
	[COL_IP] = { "ip", PM_COL_U64 },	 [COL_PERIOD] = { "period", PM_COL_U64 },
	[COL_ADDR] = { "addr", PM_COL_U64 },	 [COL_ID] = { "id", PM_COL_U64 },
	[COL_EVENT] = { "event", PM_COL_I32 },	 [COL_CPUMODE] = { "cpumode", PM_COL_U8 },
	[COL_CALLCHAIN_NR] = { "callchain_nr", PM_COL_U32 },
	[COL_RAW_OK] = { "raw_ok", PM_COL_U8 },
	[COL_CALLCHAIN_MARKERS] = { "callchain_markers", PM_COL_U32 },
	[COL_MISC] = { "misc", PM_COL_U32 },
	[COL_RAW_SIZE] = { "raw_size", PM_COL_U32 },
	[COL_RAW_OFFSET] = { "raw_offset", PM_COL_U64 },
};
typedef char pm_columns_nbase_matches[COL_DEFAULT_COUNT == PM_COLUMNS_NBASE ? 1 : -1];

static size_t pm_col_width(int type)
{
	switch (type) {
	case PM_COL_U64: return 8;
	case PM_COL_U32:
	case PM_COL_I32: return 4;
	default: return 1;
	}
}

int pm_raw_ctx_new_from_file(pm_raw_ctx **out, const pm_file *f)
{
	struct pm_file_info info = { .sz = sizeof(info) };
	pm_raw_ctx *ctx;
	const char *s;
	int err;

	if (out)
		*out = NULL;
	if (!out || !f)
		return pm__err(EINVAL, "pm_raw_ctx_new_from_file: NULL argument");
	err = pm_raw_ctx_new(&ctx);
	if (err)
		return err;
	s = pm_file_feature_string(f, PM_FEAT_ARCH);
	if (s && *s)
		err = pm_raw_ctx_set_arch(ctx, s);
	if (!err && pm_file_get_info(f, &info) == 0)
		err = pm_raw_ctx_set_big_endian(ctx, info.big_endian);
	s = pm_file_feature_string(f, PM_FEAT_CPUID);
	if (!err && s && *s)
		err = pm_raw_ctx_set_cpuid(ctx, s);
	for (size_t i = 0; !err; i++) {
		uint32_t type;
		const char *name;

		if (pm_file_pmu_mapping(f, i, &type, &name))
			break;
		err = pm_raw_ctx_add_pmu(ctx, type, name);
	}
	for (size_t i = 0; !err; i++) {
		const char *pmu, *name, *value;

		if (pm_file_pmu_cap(f, i, &pmu, &name, &value))
			break;
		err = pm_raw_ctx_set_pmu_cap(ctx, pmu, name, value);
	}
	if (err) {
		pm_raw_ctx_free(ctx);
		return err;
	}
	*out = ctx;
	return 0;
}

static int pm_columns_add(pm_columns *c, const char *name, size_t name_len, int type, int base,
			  int field, int valid_of)
{
	struct pm_column *col;
	struct pm_column *cols;

	if (c->ncols >= PM_COLUMNS_MAX)
		return pm__err(PM_ERR_RANGE, "more than %d columns", PM_COLUMNS_MAX);
	cols = pm__reallocarray(c->cols, c->ncols + 1, sizeof(*cols));
	if (!cols)
		return -ENOMEM;
	c->cols = cols;
	col = &cols[c->ncols];
	col->name = pm__strndup(name, name_len);
	if (!col->name)
		return -ENOMEM;
	col->type = type;
	col->base = base;
	col->field = field;
	col->valid_of = valid_of;
	c->ncols++;
	return 0;
}

void pm_columns_free(pm_columns *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ncols; i++)
		free(c->cols[i].name);
	free(c->cols);
	free(c->vals);
	free(c->present);
	free(c->dec_for_attr);
	free(c->fixed_period);
	free(c->has_fixed);
	pm__columns_mt_free(c->mt);
	pm__columns_side_free(c->side);
	free(c->decoder_name);
	pm_raw_ctx_free(c->ctx);
	if (c->src.fini)
		c->src.fini(c->src.impl);
	free(c);
}

/* The raw decoding context of this machine, for a live source: its
 * architecture (uname), byte order and the PMUs in sysfs (type -> name). */
static int pm_raw_ctx_new_host(pm_raw_ctx **out)
{
	pm_pmu_list *pl = NULL;
	pm_raw_ctx *ctx;
	int err = pm_raw_ctx_new(&ctx);

	if (err)
		return err;
	err = pm_raw_ctx_set_arch(ctx, NULL);
	if (!err)
		err = pm_raw_ctx_set_big_endian(ctx, pm__host_big_endian());
	if (!err && pm_pmu_scan(&pl, NULL) == 0) {
		for (size_t i = 0; !err && i < pm_pmu_list_count(pl); i++) {
			const pm_pmu *p = pm_pmu_list_get(pl, i);
			uint32_t type;

			if (p && pm_pmu_type(p, &type) == 0)
				err = pm_raw_ctx_add_pmu(ctx, type, pm_pmu_name(p));
		}
	}
	pm_pmu_list_free(pl);
	pm__err_clear();
	if (err) {
		pm_raw_ctx_free(ctx);
		return err;
	}
	*out = ctx;
	return 0;
}

/* The columns of a reader whose c->src and c->ctx are set, from the options
 * and the source's attrs. */
static int pm_columns_setup(pm_columns *c, const struct pm_columns_opts *opts)
{
	struct pm_columns_opts o = { .sz = sizeof(o), .event = -1 };
	int err;

	if (opts)
		pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
	c->event = o.event;
	c->threads = o.threads > 1 && c->file ? PM_MIN(o.threads, 256) : 1;
	c->chunk_bytes = o.chunk_bytes ? o.chunk_bytes : (8ull << 20);
	c->no_raw = o.no_raw;
	c->record_columns = o.record_columns;
	if (o.decoder && !(c->decoder_name = strdup(o.decoder)))
		return -ENOMEM;
	c->nattrs = c->src.nr_attrs(c->src.impl);
	if (o.event >= 0 && (size_t)o.event >= c->nattrs)
		return pm__err(ENOENT, "event index %d out of range (the %s has %zu events)", o.event,
			       c->file ? "file" : "event list", c->nattrs);
	c->dec_for_attr = calloc(c->nattrs ? c->nattrs : 1, 1);
	c->has_fixed = calloc(c->nattrs ? c->nattrs : 1, 1);
	c->fixed_period = calloc(c->nattrs ? c->nattrs : 1, sizeof(*c->fixed_period));
	if (!c->dec_for_attr || !c->has_fixed || !c->fixed_period)
		return -ENOMEM;
	for (size_t i = 0; i < c->nattrs; i++) {
		/* a fixed period lives in the attr (as perf script shows it) */
		const struct pm_attr *a = c->src.attr(c->src.impl, i);

		if (a && !(a->flags & PM_ATTR_FREQ)) {
			c->has_fixed[i] = 1;
			c->fixed_period[i] = a->sample_period;
		}
	}
	if (!o.no_raw) {
		if (o.decoder) {
			c->dec = pm_raw_decoder_find(o.decoder);
			if (!c->dec)
				return pm__err(ENOENT, "no raw decoder named '%s'", o.decoder);
		}
		for (size_t i = 0; i < c->nattrs; i++) {
			const pm_raw_decoder *d = NULL;
			const struct pm_attr *a = c->src.attr(c->src.impl, i);

			if (o.event >= 0 && (size_t)o.event != i)
				continue;
			if (!a || !(a->sample_type & PM_SAMPLE_RAW))
				continue;
			if (o.decoder) {
				c->dec_for_attr[i] = 1;
				continue;
			}
			if (pm_raw_ctx_select(c->ctx, a, &d) || !d)
				continue;
			if (!c->dec)
				c->dec = d;
			if (d == c->dec)
				c->dec_for_attr[i] = 1;
		}
	}
	for (size_t i = 0; i < (o.record_columns ? COL_BASE_COUNT : COL_DEFAULT_COUNT); i++) {
		err = pm_columns_add(c, pm_base_cols[i].name, strlen(pm_base_cols[i].name),
				     pm_base_cols[i].type, (int)i, -1, -1);
		if (err)
			return err;
	}
	if (c->dec) {
		/* Decoders whose hardware marks fields invalid get `_valid` columns. */
		bool validity = strcmp(pm_raw_decoder_name(c->dec), "alpha_profileme") != 0;

		c->nfields = pm_raw_field_count(c->dec);
		c->vals = calloc(c->nfields ? c->nfields : 1, sizeof(*c->vals));
		c->present = calloc(c->nfields ? c->nfields : 1, 1);
		if (!c->vals || !c->present)
			return -ENOMEM;
		for (size_t i = 0; i < c->nfields; i++) {
			const char *name = pm_raw_field_name(c->dec, i);
			int kind = pm_raw_field_kind(c->dec, i);
			int type = (kind == PM_RAW_KIND_BOOL || kind == PM_RAW_KIND_CODE) ? PM_COL_U8 : PM_COL_U64;

			err = pm_columns_add(c, name, strlen(name), type, -1, (int)i, -1);
			if (!err && validity) {
				char vname[128];
				int n = snprintf(vname, sizeof(vname), "%s_valid", name);

				err = pm_columns_add(c, vname, (size_t)PM_MIN(n, (int)sizeof(vname) - 1),
						     PM_COL_U8, -1, -1, (int)i);
			}
			if (err)
				return err;
		}
	}
	/* pm_columns_opts.sym: the side records kept (columns_side.c) */
	return o.sym ? pm__columns_side_init(c, o.sym) : 0;
}

/* The constructors' shared checks and allocation: *cp is a zeroed reader,
 * or the error (out cleared, NULL src or a bad opts size). */
static int pm_columns_alloc(pm_columns **out, const void *src, const struct pm_columns_opts *opts,
			    const char *fn, pm_columns **cp)
{
	int err;

	*cp = NULL;
	if (out)
		*out = NULL;
	if (!out || !src)
		return pm__err(EINVAL, "%s: NULL argument", fn);
	err = PM__SZ_VALID(opts, pm_columns_opts, PM_COLUMNS_OPTS_SZ_V1);
	if (err)
		return err;
	*cp = calloc(1, sizeof(**cp));
	return *cp ? 0 : -ENOMEM;
}

/* The constructors' end: the reader set up by opts and handed out, or freed. */
static int pm_columns_finish(pm_columns **out, pm_columns *c, int err,
			     const struct pm_columns_opts *opts)
{
	if (!err)
		err = pm_columns_setup(c, opts);
	if (err) {
		pm_columns_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int pm_columns_new_from_file(pm_columns **out, pm_file *f, const struct pm_columns_opts *opts)
{
	pm_columns *c;
	int err = pm_columns_alloc(out, f, opts, "pm_columns_new_from_file", &c);

	if (err)
		return err;
	pm__source_file(&c->src, f);
	c->file = f;
	return pm_columns_finish(out, c, pm_raw_ctx_new_from_file(&c->ctx, f), opts);
}

int pm_columns_new_from_evlist(pm_columns **out, pm_evlist *el, const struct pm_columns_opts *opts)
{
	pm_columns *c;
	int err = pm_columns_alloc(out, el, opts, "pm_columns_new_from_evlist", &c);

	if (err)
		return err;
	err = pm__source_evlist(&c->src, el);
	if (!err)
		err = pm_raw_ctx_new_host(&c->ctx);
	return pm_columns_finish(out, c, err, opts);
}

int pm_columns_tee(pm_columns *c, pm_ring_record_fn tee, void *tee_user)
{
	if (!c)
		return pm__err(EINVAL, "pm_columns_tee: NULL reader");
	if (!c->src.tee)
		return pm__err(EINVAL, "pm_columns_tee: a file reader hands out no ring records "
				       "(only a reader from pm_columns_new_from_evlist() does)");
	return c->src.tee(c->src.impl, tee, tee_user);
}

size_t pm_columns_count(const pm_columns *c)
{
	return c ? c->ncols : 0;
}

const char *pm_columns_name(const pm_columns *c, size_t i)
{
	return c && i < c->ncols ? c->cols[i].name : NULL;
}

long pm_columns_index(const pm_columns *c, const char *name)
{
	if (!c || !name)
		return pm__err(EINVAL, "pm_columns_index: NULL argument");
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->cols[i].name, name))
			return (long)i;
	return -ENOENT;
}

int pm_columns_type(const pm_columns *c, size_t i)
{
	return c && i < c->ncols ? c->cols[i].type : -EINVAL;
}

size_t pm_columns_width(const pm_columns *c, size_t i)
{
	return c && i < c->ncols ? pm_col_width(c->cols[i].type) : 0;
}

const pm_raw_decoder *pm_columns_decoder(const pm_columns *c)
{
	return c ? c->dec : NULL;
}

const pm_raw_ctx *pm_columns_raw_ctx(const pm_columns *c)
{
	return c ? c->ctx : NULL;
}

uint64_t pm_columns_skipped(const pm_columns *c)
{
	return c ? c->skipped : 0;
}

/* Rows of a structured array need not be aligned: every store below goes
 * through memcpy or is one byte. */

/* The base column values of one parsed sample. */
/* The sample core of r (the fast decode of its plan, else the source's
 * full parse): 0, or <0 when the sample cannot be decoded. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int pm_columns_core_slow(const pm_columns *c, const struct pm__srec *r, struct pm__score *o,
				uint64_t *present)
{
	struct pm_sample smp;
	int rc;

	smp.sz = sizeof(smp);
	rc = c->src.sample(c->src.impl, r, &smp);
	if (rc < 0)
		return rc;
	pm__score_from_sample(&smp, o, present);
	return 0;
}

static inline int pm_columns_core(const pm_columns *c, const struct pm__srec *r, struct pm__score *o,
				  uint64_t *present)
{
	if (r->plan && !pm__sample_core(r->plan, r->data, r->size, c->src.be, o)) {
		*present = r->plan->sample_type;
		return 0;
	}
	return pm_columns_core_slow(c, r, o, present);
}

static inline void pm_columns_base_vals(const pm_columns *c, const struct pm__srec *r,
					const struct pm__score *s, uint64_t present, uint64_t *v)
{
	v[COL_TIME] = s->time;
	v[COL_PID] = s->pid;
	v[COL_TID] = s->tid;
	v[COL_CPU] = s->cpu;
	v[COL_IP] = s->ip;
	v[COL_PERIOD] = s->period;
	if (!(present & PM_SAMPLE_PERIOD) && r->attr_idx >= 0) {
		/* a fixed period lives in the attr (as perf script shows it) */
		if ((size_t)r->attr_idx < c->nattrs) {
			if (c->has_fixed[r->attr_idx])
				v[COL_PERIOD] = c->fixed_period[r->attr_idx];
		} else {
			/* an attr that arrived after pm_columns_new_from_file() (pipe mode) */
			const struct pm_attr *a = c->src.attr(c->src.impl, (size_t)r->attr_idx);

			if (a && !(a->flags & PM_ATTR_FREQ))
				v[COL_PERIOD] = a->sample_period;
		}
	}
	v[COL_ADDR] = s->addr;
	v[COL_ID] = s->id;
	v[COL_EVENT] = (uint64_t)(int64_t)r->attr_idx;
	v[COL_CPUMODE] = r->misc & 7;
	v[COL_CALLCHAIN_NR] = s->callchain_nr;
	v[COL_CALLCHAIN_MARKERS] = s->callchain_markers;
	v[COL_RAW_OK] = 0;
	v[COL_MISC] = r->misc;
	v[COL_RAW_SIZE] = s->raw ? s->raw_size : 0;
	/* 0 = none: no RAW, a decompressed record, a live source */
	v[COL_RAW_OFFSET] = s->raw && c->src.file_offsets && !r->from_comp ?
				    r->offset + (uint64_t)(s->raw - r->data) : 0;
}

/* One wanted base column of the fast path: where the next row's value goes. */
struct pm_col_op {
	uint8_t *p;
	size_t stride;
	size_t src; /* COL_* */
};

/* One store of the direct path: row r's value goes to p + r * stride; v is
 * the record offset of a load, the constant of a constant (v2: the second
 * 8 bytes of a 16-byte one), the mask of misc of a 1-byte op (cpumode 7,
 * else 0). */
struct pm_col_dop {
	uint8_t *p;
	size_t stride;
	uint64_t v, v2;
};

/* The kinds of pm_col_dop, in the order of pm_col_plan.d.  K128: two
 * 8-byte constants side by side in the row. */
enum { DOP_LD64, DOP_K64, DOP_K128, DOP_LD32, DOP_K32, DOP_MISC32, DOP_U8, DOP_KINDS };

static size_t pm_dop_width(int kind)
{
	switch (kind) {
	case DOP_K128: return 16;
	case DOP_LD64:
	case DOP_K64: return 8;
	case DOP_U8: return 1;
	default: return 4;
	}
}

/*
 * Stores of a row that lie side by side (the same stride, one's bytes
 * right after the other's) made one: two 4-byte constants an 8-byte one,
 * two 8-byte constants a 16-byte one, two 4-byte loads of fields side by
 * side in the record an 8-byte load when the record's byte order is the
 * host's (the bytes are then copied as they are).  Nothing is merged when
 * any two columns overlap (the store order would change).
 */
static void pm_columns_plan_merge(uint8_t *kind, uint8_t **p, const size_t *stride, uint64_t *v,
				  uint64_t *v2, bool *alive, size_t nop, bool same_order)
{
	bool changed = true;

	for (size_t i = 0; i < nop; i++)
		for (size_t j = i + 1; j < nop; j++)
			if (p[i] < p[j] + pm_dop_width(kind[j]) && p[j] < p[i] + pm_dop_width(kind[i]))
				return;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < nop; i++)
			for (size_t j = 0; alive[i] && j < nop; j++) {
				if (j == i || !alive[j] || stride[i] != stride[j] ||
				    p[j] != p[i] + pm_dop_width(kind[i]))
					continue;
				if (kind[i] == DOP_K32 && kind[j] == DOP_K32) {
					uint32_t x[2] = { (uint32_t)v[i], (uint32_t)v[j] };

					memcpy(&v[i], x, 8);
					kind[i] = DOP_K64;
				} else if (kind[i] == DOP_K64 && kind[j] == DOP_K64) {
					v2[i] = v[j];
					kind[i] = DOP_K128;
				} else if (kind[i] == DOP_LD32 && kind[j] == DOP_LD32 && same_order &&
					   v[j] == v[i] + 4) {
					kind[i] = DOP_LD64;
				} else {
					continue;
				}
				alive[j] = false;
				changed = true;
			}
	}
}

/*
 * Per attr, how the direct path fills a row: the wanted columns sorted by
 * kind (n[k] of kind k, one after another in d), so that a row is a few
 * straight loops with no per-column test.  Valid for attrs whose layout the
 * sample core handles with nothing past the fixed prefix (no READ,
 * CALLCHAIN, RAW): then a record of exactly prefix_end bytes holds every
 * field, with no further check to make (another size takes the general
 * path, where pm_sample_parse() refuses it).
 */
struct pm_col_plan {
	bool ok;
	uint32_t size;
	uint8_t n[DOP_KINDS];
	struct pm_col_dop d[COL_BASE_COUNT];
};

/* op: the wanted columns, n64 of 8 bytes, then n32 of 4, nmisc misc, then
 * 1-byte ones (pm_columns_fill_base()). */
static void pm_columns_plan(const pm_columns *c, size_t attr, const struct pm_col_op *op, size_t n64,
			    size_t n32, size_t nmisc, size_t nop, struct pm_col_plan *pl)
{
	const struct pm_attr *a = c->src.attr(c->src.impl, attr);
	struct pm__plan_direct d;
	uint16_t off[COL_BASE_COUNT] = { 0 };
	uint64_t k[COL_BASE_COUNT] = { 0 };
	uint8_t kind[COL_BASE_COUNT];
	uint8_t *dp[COL_BASE_COUNT];
	size_t dst[COL_BASE_COUNT];
	uint64_t v[COL_BASE_COUNT], v2[COL_BASE_COUNT] = { 0 };
	bool alive[COL_BASE_COUNT];
	size_t nd = 0;

	memset(pl, 0, sizeof(*pl));
	pm__plan_direct(c->src.plan(c->src.impl, attr), &d);
	if (!d.ok || !a)
		return;
	pl->ok = true;
	pl->size = d.size;
	for (size_t j = 0; j < nop; j++) {
		switch (op[j].src) {
		case COL_TIME: off[j] = d.off_time; break;
		case COL_PID: off[j] = d.off_tid; break;
		case COL_TID: off[j] = d.off_tid ? (uint16_t)(d.off_tid + 4) : 0; break;
		case COL_CPU: off[j] = d.off_cpu; break;
		case COL_IP: off[j] = d.off_ip; break;
		case COL_PERIOD:
			off[j] = d.off_period;
			if (!d.off_period && !(a->flags & PM_ATTR_FREQ))
				k[j] = a->sample_period;
			break;
		case COL_ADDR: off[j] = d.off_addr; break;
		case COL_ID: off[j] = d.off_id; break;
		case COL_EVENT: k[j] = (uint64_t)attr; break;
		case COL_CPUMODE: k[j] = 7; break; /* the mask of misc */
		/* misc from the header (its own kind); raw_size, raw_offset,
		 * callchain_nr, callchain_markers, raw_ok 0 (a direct layout
		 * has no RAW nor CALLCHAIN) */
		default: break;
		}
		if (j < n64)
			kind[j] = off[j] ? DOP_LD64 : DOP_K64;
		else if (j < n64 + n32)
			kind[j] = off[j] ? DOP_LD32 : DOP_K32;
		else if (j < n64 + n32 + nmisc)
			kind[j] = DOP_MISC32;
		else
			kind[j] = DOP_U8;
	}
	for (size_t j = 0; j < nop; j++) {
		dp[j] = op[j].p;
		dst[j] = op[j].stride;
		v[j] = off[j] ? off[j] : k[j];
		alive[j] = true;
	}
	pm_columns_plan_merge(kind, dp, dst, v, v2, alive, nop, c->src.be == pm__host_big_endian());
	for (int kd = 0; kd < DOP_KINDS; kd++)
		for (size_t j = 0; j < nop; j++)
			if (alive[j] && kind[j] == kd) {
				pl->d[nd++] = (struct pm_col_dop){ dp[j], dst[j], v[j], v2[j] };
				pl->n[kd]++;
			}
}

/* Rows [row, row + n) from records r[0, n) of one direct layout (the plan's
 * attr and size): column by column, each a straight loop over the records.
 * be is a constant at each call. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void pm_columns_direct_rows(const struct pm_col_plan *pl, const struct pm__srec *r,
					  size_t n, size_t row, bool be)
{
	const struct pm_col_dop *d = pl->d;
	size_t j = 0, e = 0;

	/* stride and value in locals: the stores (bytes) could alias them */
	for (e += pl->n[DOP_LD64]; j < e; j++) {
		size_t st = d[j].stride, off = (size_t)d[j].v;
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st) {
			uint64_t x = pm__ld64(r[i].data + off, be);

			memcpy(p, &x, 8);
		}
	}
	for (e += pl->n[DOP_K64]; j < e; j++) {
		size_t st = d[j].stride;
		uint64_t x = d[j].v;
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st)
			memcpy(p, &x, 8);
	}
	for (e += pl->n[DOP_K128]; j < e; j++) {
		size_t st = d[j].stride;
		uint64_t x[2] = { d[j].v, d[j].v2 };
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st)
			memcpy(p, x, 16);
	}
	for (e += pl->n[DOP_LD32]; j < e; j++) {
		size_t st = d[j].stride, off = (size_t)d[j].v;
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st) {
			uint32_t x = pm__ld32(r[i].data + off, be);

			memcpy(p, &x, 4);
		}
	}
	for (e += pl->n[DOP_K32]; j < e; j++) {
		size_t st = d[j].stride;
		uint32_t x = (uint32_t)d[j].v;
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st)
			memcpy(p, &x, 4);
	}
	for (e += pl->n[DOP_MISC32]; j < e; j++) {
		size_t st = d[j].stride;
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st) {
			uint32_t x = r[i].misc;

			memcpy(p, &x, 4);
		}
	}
	for (e += pl->n[DOP_U8]; j < e; j++) {
		size_t st = d[j].stride;
		uint8_t m = (uint8_t)d[j].v;
		uint8_t *p = d[j].p + row * st;

		for (size_t i = 0; i < n; i++, p += st)
			*p = (uint8_t)(r[i].misc & m);
	}
}

/* records a batch of the source holds (pm__source.next_batch) */
#define PM_COL_BATCH 256

/*
 * The common case: only base columns wanted (no decoded raw field, no
 * raw_ok with a decoder), so nothing is decoded past the sample core.  The
 * wanted columns are grouped by width so that each row is a few straight
 * stores, with no per-column type switch; for plain layouts the wanted
 * fields are loaded straight from the record at per-attr offsets.
 */
static int pm_columns_fill_base(pm_columns *c, uint8_t *const *base, const size_t *stride,
				const size_t *act, size_t nact, size_t cap, size_t *n)
{
	const struct pm__source *src = &c->src;
	struct pm_col_op op[COL_BASE_COUNT];
	struct pm_col_plan *plans = NULL;
	size_t nplans = 0;
	size_t n64 = 0, n32 = 0, nmisc = 0, n8 = 0, nop;
	size_t rows = 0;
	bool be = src->be;
	int rc = 0;

	/* [0, n64): 8 bytes; then 4 bytes; then misc (4 bytes, from the
	 * header); then 1 byte: each row is a few straight loops, with no
	 * per-column test of where the value comes from */
	for (int pass = 0; pass < 4; pass++) {
		for (size_t j = 0; j < nact; j++) {
			size_t i = act[j];
			size_t w = pm_col_width(c->cols[i].type);
			bool misc = c->cols[i].base == COL_MISC;

			if ((pass == 0 && w != 8) || (pass == 1 && (w != 4 || misc)) ||
			    (pass == 2 && !misc) || (pass == 3 && w != 1))
				continue;
			op[n64 + n32 + nmisc + n8] = (struct pm_col_op){ base[i], stride[i],
									 (size_t)c->cols[i].base };
			if (w == 8)
				n64++;
			else if (misc)
				nmisc++;
			else if (w == 4)
				n32++;
			else
				n8++;
		}
	}
	nop = n64 + n32 + nmisc + n8;
	while (rows < cap) {
		struct pm__srec batch[PM_COL_BATCH];
		size_t nb;

		/* no more records than rows wanted: a record taken is used (a
		 * strict source, whose bad sample ends the read, one at a time) */
		bool batched = src->next_batch && !src->strict;

		if (batched)
			rc = src->next_batch(src->impl, batch, PM_MIN(cap - rows, (size_t)PM_COL_BATCH));
		else
			rc = src->next(src->impl, &batch[0]);
		if (rc <= 0)
			break;
		nb = batched ? (size_t)rc : 1;
		rc = 0;
		for (size_t i = 0; i < nb;) {
			const struct pm__srec *rp = &batch[i];
			struct pm__score s;
			uint64_t present;
			size_t j;

			if (c->event >= 0 && rp->attr_idx != c->event) {
				i++;
				continue;
			}
			if (rp->attr_idx >= 0 && (size_t)rp->attr_idx >= nplans) {
				/* plans for the attrs known now (more may come in pipe mode) */
				size_t nr = src->nr_attrs(src->impl);
				struct pm_col_plan *np = (size_t)rp->attr_idx < nr ?
					pm__reallocarray(plans, nr, sizeof(*np)) : NULL;

				if (np) {
					plans = np;
					for (; nplans < nr; nplans++)
						pm_columns_plan(c, nplans, op, n64, n32, nmisc, nop,
								&plans[nplans]);
				}
			}
			if (rp->attr_idx >= 0 && (size_t)rp->attr_idx < nplans && plans[rp->attr_idx].ok &&
			    rp->size == plans[rp->attr_idx].size) {
				/* the records of the batch from here of this attr and
				 * size, in one go; the byte order resolved once per
				 * run of records, not per field */
				const struct pm_col_plan *pl = &plans[rp->attr_idx];
				size_t k = i + 1;

				while (k < nb && batch[k].attr_idx == rp->attr_idx && batch[k].size == pl->size)
					k++;
				if (be)
					pm_columns_direct_rows(pl, rp, k - i, rows, true);
				else
					pm_columns_direct_rows(pl, rp, k - i, rows, false);
				rows += k - i;
				i = k;
				continue;
			}
			i++;
			rc = pm_columns_core(c, rp, &s, &present);
			if (rc) {
				c->skipped++;
				if (src->strict)
					break;
				rc = 0;
				continue;
			}
			{
				uint64_t v[COL_BASE_COUNT];

				pm_columns_base_vals(c, rp, &s, present, v);
				for (j = 0; j < n64; j++)
					memcpy(op[j].p + rows * op[j].stride, &v[op[j].src], 8);
				for (; j < n64 + n32 + nmisc; j++) {
					/* COL_EVENT (I32) keeps its low 32 bits, as a U32 does */
					uint32_t x = (uint32_t)v[op[j].src];

					memcpy(op[j].p + rows * op[j].stride, &x, 4);
				}
				for (; j < nop; j++)
					op[j].p[rows * op[j].stride] = (uint8_t)v[op[j].src];
			}
			rows++;
		}
		if (rc < 0)
			break;
	}
	free(plans);
	*n = rows;
	return rc < 0 ? rc : 0;
}

/* One wanted column of the general path: row r's value goes to
 * p + r * stride; idx is its COL_* (base kinds) or its raw field index. */
struct pm_col_gop {
	uint8_t *p;
	size_t stride;
	size_t idx;
};

/* The kinds of pm_col_gop, in the order the general path sorts them. */
enum { GOP_BASE64, GOP_BASE32, GOP_BASE8, GOP_FIELD64, GOP_FIELD8, GOP_VALID8, GOP_KINDS };

/* Column i lands at base[i] + row * stride[i]. */
static int pm_columns_fill(pm_columns *c, uint8_t *const *base, const size_t *stride, size_t ncols,
			   size_t cap, size_t *n)
{
	const struct pm__source *src = &c->src;
	struct pm__srec r;
	size_t act[PM_COLUMNS_MAX], nact = 0;
	struct pm_col_gop *gop = NULL;
	size_t ng[GOP_KINDS] = { 0 }, nbase, nall;
	size_t rows = 0;
	bool need_raw = false;
	int rc = 0;

	if (c->threads > 1) {
		rc = pm__columns_mt_fill(c, base, stride, ncols, cap, n);
		if (rc <= 0)
			return rc;
	}
	ncols = PM_MIN(ncols, c->ncols);
	for (size_t i = 0; i < ncols; i++)
		if (base[i]) {
			act[nact++] = i;
			int b = c->cols[i].base;

			/* decoded fields and raw_ok with a decoder take the
			 * general path */
			if (b < 0 || (b == COL_RAW_OK && c->dec))
				need_raw = true;
		}
	if (!need_raw)
		return pm_columns_fill_base(c, base, stride, act, nact, cap, n);
	/* The wanted columns sorted by kind once, so that a row is a few
	 * straight loops with no per-column test of where its value comes
	 * from nor of its type. */
	gop = malloc(nact * sizeof(*gop));
	if (!gop)
		return -ENOMEM;
	{
		uint8_t kind[PM_COLUMNS_MAX];
		size_t at = 0;

		for (size_t j = 0; j < nact; j++) {
			const struct pm_column *col = &c->cols[act[j]];
			size_t w = pm_col_width(col->type);

			if (col->base >= 0)
				kind[j] = w == 8 ? GOP_BASE64 : w == 4 ? GOP_BASE32 : GOP_BASE8;
			else if (col->valid_of >= 0)
				kind[j] = GOP_VALID8;
			else
				kind[j] = w == 8 ? GOP_FIELD64 : GOP_FIELD8;
		}
		for (int kd = 0; kd < GOP_KINDS; kd++)
			for (size_t j = 0; j < nact; j++) {
				const struct pm_column *col = &c->cols[act[j]];

				if (kind[j] != kd)
					continue;
				gop[at++] = (struct pm_col_gop){
					base[act[j]], stride[act[j]],
					(size_t)(col->base >= 0 ? col->base :
						 col->valid_of >= 0 ? col->valid_of : col->field) };
				ng[kd]++;
			}
	}
	nbase = ng[GOP_BASE64] + ng[GOP_BASE32] + ng[GOP_BASE8];
	nall = nact;
	while (rows < cap) {
		uint64_t base_vals[COL_BASE_COUNT];
		struct pm__score s;
		uint64_t present;
		bool raw_ok = false;
		size_t j = 0, e = 0;

		rc = src->next(src->impl, &r);
		if (rc <= 0)
			break;
		rc = 0;
		if (c->event >= 0 && r.attr_idx != c->event)
			continue;
		rc = pm_columns_core(c, &r, &s, &present);
		if (rc) {
			c->skipped++;
			if (src->strict)
				break;
			rc = 0;
			continue;
		}
		pm_columns_base_vals(c, &r, &s, present, base_vals);
		if (c->dec && r.attr_idx >= 0 && (size_t)r.attr_idx < c->nattrs &&
		    c->dec_for_attr[r.attr_idx] && s.raw)
			raw_ok = pm_raw_decode_row(c->dec, c->ctx, s.raw, s.raw_size, c->vals,
						   c->present, c->nfields) >= 0;
		base_vals[COL_RAW_OK] = raw_ok;
		for (e += ng[GOP_BASE64]; j < e; j++)
			memcpy(gop[j].p + rows * gop[j].stride, &base_vals[gop[j].idx], 8);
		for (e += ng[GOP_BASE32]; j < e; j++) {
			/* COL_EVENT (I32) keeps its low 32 bits, as a U32 does */
			uint32_t x = (uint32_t)base_vals[gop[j].idx];

			memcpy(gop[j].p + rows * gop[j].stride, &x, 4);
		}
		for (e += ng[GOP_BASE8]; j < e; j++)
			gop[j].p[rows * gop[j].stride] = (uint8_t)base_vals[gop[j].idx];
		if (!raw_ok) {
			/* every decoded and _valid column 0 */
			for (j = nbase; j < nbase + ng[GOP_FIELD64]; j++)
				memset(gop[j].p + rows * gop[j].stride, 0, 8);
			for (; j < nall; j++)
				gop[j].p[rows * gop[j].stride] = 0;
			rows++;
			continue;
		}
		for (e += ng[GOP_FIELD64]; j < e; j++) {
			uint64_t v = c->present[gop[j].idx] ? c->vals[gop[j].idx] : 0;

			memcpy(gop[j].p + rows * gop[j].stride, &v, 8);
		}
		for (e += ng[GOP_FIELD8]; j < e; j++)
			gop[j].p[rows * gop[j].stride] =
				c->present[gop[j].idx] ? (uint8_t)c->vals[gop[j].idx] : 0;
		for (e += ng[GOP_VALID8]; j < e; j++)
			gop[j].p[rows * gop[j].stride] = c->present[gop[j].idx];
		rows++;
	}
	free(gop);
	*n = rows;
	return rc < 0 ? rc : 0;
}

int pm_columns_read(pm_columns *c, void *const *bufs, size_t nbufs, size_t cap, size_t *n)
{
	uint8_t *base[PM_COLUMNS_MAX];
	size_t stride[PM_COLUMNS_MAX];

	if (!c || !n || (nbufs && !bufs))
		return pm__err(EINVAL, "pm_columns_read: NULL argument");
	*n = 0;
	nbufs = PM_MIN(nbufs, c->ncols);
	for (size_t i = 0; i < nbufs; i++) {
		base[i] = bufs[i];
		stride[i] = pm_col_width(c->cols[i].type);
	}
	return pm_columns_fill(c, base, stride, nbufs, cap, n);
}

int pm_columns_read_rows(pm_columns *c, void *rows, size_t row_size, const size_t *offsets,
			 size_t noffsets, size_t cap, size_t *n)
{
	uint8_t *base[PM_COLUMNS_MAX];
	size_t stride[PM_COLUMNS_MAX];

	if (!c || !n || !rows || (noffsets && !offsets))
		return pm__err(EINVAL, "pm_columns_read_rows: NULL argument");
	*n = 0;
	noffsets = PM_MIN(noffsets, c->ncols);
	for (size_t i = 0; i < noffsets; i++) {
		if (offsets[i] == SIZE_MAX) {
			base[i] = NULL;
			continue;
		}
		if (offsets[i] > row_size || pm_col_width(c->cols[i].type) > row_size - offsets[i])
			return pm__err(EINVAL, "column '%s' at offset %zu does not fit a row of %zu bytes",
				       c->cols[i].name, offsets[i], row_size);
		base[i] = (uint8_t *)rows + offsets[i];
		stride[i] = row_size;
	}
	return pm_columns_fill(c, base, stride, noffsets, cap, n);
}
