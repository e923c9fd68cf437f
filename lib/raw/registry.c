/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Raw decoder registry, selection context, generic decoding and printing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include "internal/json_int.h"
#include "raw_int.h"

static const struct pm_raw_decoder *const decoders[] = {
	&pm__raw_alpha_profileme,
	&pm__raw_ibs_fetch,
	&pm__raw_ibs_op,
};

size_t pm_raw_decoder_count(void)
{
	return PM_ARRAY_SIZE(decoders);
}

const pm_raw_decoder *pm_raw_decoder_get(size_t i)
{
	return i < PM_ARRAY_SIZE(decoders) ? decoders[i] : NULL;
}

const pm_raw_decoder *pm_raw_decoder_find(const char *name)
{
	if (!name) {
		pm__err(EINVAL, "pm_raw_decoder_find: NULL name");
		return NULL;
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(decoders); i++)
		if (!strcmp(decoders[i]->name, name))
			return decoders[i];
	pm__err(PM_ERR_NO_DECODER, "no raw decoder named '%s' (known: alpha_profileme, ibs_fetch, ibs_op)",
		name);
	return NULL;
}

const char *pm_raw_decoder_name(const pm_raw_decoder *d)
{
	return d ? d->name : NULL;
}

const char *pm_raw_decoder_key(const pm_raw_decoder *d)
{
	return d ? d->key : NULL;
}

size_t pm_raw_field_count(const pm_raw_decoder *d)
{
	return d ? d->nfields : 0;
}

const char *pm_raw_field_name(const pm_raw_decoder *d, size_t i)
{
	return d && i < d->nfields ? d->fields[i].name : NULL;
}

int pm_raw_field_kind(const pm_raw_decoder *d, size_t i)
{
	return d && i < d->nfields ? d->fields[i].kind : -EINVAL;
}

int pm_raw_field_flags(const pm_raw_decoder *d, size_t i)
{
	return d && i < d->nfields ? d->fields[i].flags : -EINVAL;
}

int pm_raw_field_index(const pm_raw_decoder *d, const char *name)
{
	if (d && name)
		for (size_t i = 0; i < d->nfields; i++)
			if (!strcmp(d->fields[i].name, name))
				return (int)i;
	return -ENOENT;
}

/* ---- context ---- */

struct pm_raw_pmu {
	uint32_t type;
	char *name;
};

struct pm_raw_cap {
	char *pmu;
	char *cap;
	char *value;
};

struct pm_raw_ctx {
	char *arch;
	char *cpuid;
	bool big_endian;
	struct pm_raw_pmu *pmus;
	size_t npmus;
	struct pm_raw_cap *caps;
	size_t ncaps;
	struct pm__raw_opts opts; /* derived from the above */
};

static void ctx_update_opts(pm_raw_ctx *ctx)
{
	struct pm__raw_opts *o = &ctx->opts;
	unsigned fam = 0, model = 0;

	memset(o, 0, sizeof(*o));
	o->big_endian = ctx->big_endian;
	for (size_t i = 0; i < ctx->ncaps; i++) {
		const struct pm_raw_cap *c = &ctx->caps[i];
		bool on = c->value[0] && strcmp(c->value, "0") != 0;

		if (strncmp(c->pmu, "ibs_op", 6) != 0)
			continue;
		if (!strcmp(c->cap, "zen4_ibs_extensions"))
			o->zen4 = on;
		else if (!strcmp(c->cap, "ldlat"))
			o->ldlat = on;
		else if (!strcmp(c->cap, "strmst"))
			o->strmst = on;
		else if (!strcmp(c->cap, "rmtsocket"))
			o->rmtsocket = on;
	}
	/* "AuthenticAMD,family,model,stepping" */
	if (ctx->cpuid && !strncmp(ctx->cpuid, "AuthenticAMD,", 13) &&
	    sscanf(ctx->cpuid + 13, "%u,%u", &fam, &model) == 2)
		o->fam19_early = fam == 0x19 && model < 0x10;
}

int pm_raw_ctx_new(pm_raw_ctx **out)
{
	pm_raw_ctx *ctx;

	if (!out)
		return pm__err(EINVAL, "pm_raw_ctx_new: NULL out");
	*out = NULL;
	ctx = pm__calloc(1, sizeof(*ctx));
	if (!ctx)
		return pm__err(ENOMEM, "out of memory");
	ctx->big_endian = pm__host_big_endian();
	if (pm_raw_ctx_set_arch(ctx, NULL) < 0) {
		pm_raw_ctx_free(ctx);
		return -ENOMEM;
	}
	ctx_update_opts(ctx);
	*out = ctx;
	return 0;
}

void pm_raw_ctx_free(pm_raw_ctx *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->npmus; i++)
		free(ctx->pmus[i].name);
	for (size_t i = 0; i < ctx->ncaps; i++) {
		free(ctx->caps[i].pmu);
		free(ctx->caps[i].cap);
		free(ctx->caps[i].value);
	}
	free(ctx->pmus);
	free(ctx->caps);
	free(ctx->arch);
	free(ctx->cpuid);
	free(ctx);
}

static int set_str(char **dst, const char *s)
{
	char *c = NULL;

	if (s) {
		c = pm__strndup(s, strlen(s));
		if (!c)
			return pm__err(ENOMEM, "out of memory");
	}
	free(*dst);
	*dst = c;
	return 0;
}

int pm_raw_ctx_set_arch(pm_raw_ctx *ctx, const char *arch)
{
	struct utsname u;

	if (!ctx)
		return pm__err(EINVAL, "pm_raw_ctx_set_arch: NULL ctx");
	if (!arch) {
		if (uname(&u) == 0)
			return set_str(&ctx->arch, u.machine);
		return set_str(&ctx->arch, "");
	}
	return set_str(&ctx->arch, arch);
}

const char *pm_raw_ctx_arch(const pm_raw_ctx *ctx)
{
	return ctx && ctx->arch ? ctx->arch : "";
}

int pm_raw_ctx_set_big_endian(pm_raw_ctx *ctx, int big_endian)
{
	if (!ctx)
		return pm__err(EINVAL, "pm_raw_ctx_set_big_endian: NULL ctx");
	ctx->big_endian = big_endian != 0;
	ctx_update_opts(ctx);
	return 0;
}

int pm_raw_ctx_set_cpuid(pm_raw_ctx *ctx, const char *cpuid)
{
	int rc;

	if (!ctx)
		return pm__err(EINVAL, "pm_raw_ctx_set_cpuid: NULL ctx");
	rc = set_str(&ctx->cpuid, cpuid);
	ctx_update_opts(ctx);
	return rc;
}

int pm_raw_ctx_add_pmu(pm_raw_ctx *ctx, uint32_t type, const char *name)
{
	struct pm_raw_pmu *n;

	if (!ctx || !name)
		return pm__err(EINVAL, "pm_raw_ctx_add_pmu: NULL %s", ctx ? "name" : "ctx");
	for (size_t i = 0; i < ctx->npmus; i++)
		if (ctx->pmus[i].type == type)
			return set_str(&ctx->pmus[i].name, name);
	n = pm__reallocarray(ctx->pmus, ctx->npmus + 1, sizeof(*n));
	if (!n)
		return pm__err(ENOMEM, "out of memory");
	ctx->pmus = n;
	n[ctx->npmus].type = type;
	n[ctx->npmus].name = NULL;
	if (set_str(&n[ctx->npmus].name, name) < 0)
		return -ENOMEM;
	ctx->npmus++;
	return 0;
}

int pm_raw_ctx_set_pmu_cap(pm_raw_ctx *ctx, const char *pmu, const char *cap, const char *value)
{
	struct pm_raw_cap *n, *c = NULL;

	if (!ctx || !pmu || !cap || !value)
		return pm__err(EINVAL, "pm_raw_ctx_set_pmu_cap: NULL argument");
	for (size_t i = 0; i < ctx->ncaps; i++)
		if (!strcmp(ctx->caps[i].pmu, pmu) && !strcmp(ctx->caps[i].cap, cap))
			c = &ctx->caps[i];
	if (!c) {
		n = pm__reallocarray(ctx->caps, ctx->ncaps + 1, sizeof(*n));
		if (!n)
			return pm__err(ENOMEM, "out of memory");
		ctx->caps = n;
		c = &n[ctx->ncaps];
		memset(c, 0, sizeof(*c));
		if (set_str(&c->pmu, pmu) < 0 || set_str(&c->cap, cap) < 0) {
			free(c->pmu);
			free(c->cap);
			return -ENOMEM;
		}
		ctx->ncaps++;
	}
	if (set_str(&c->value, value) < 0)
		return -ENOMEM;
	ctx_update_opts(ctx);
	return 0;
}

static const char *ctx_pmu_name(const pm_raw_ctx *ctx, uint32_t type)
{
	for (size_t i = 0; i < ctx->npmus; i++)
		if (ctx->pmus[i].type == type)
			return ctx->pmus[i].name;
	return NULL;
}

static bool ctx_pmu_type(const pm_raw_ctx *ctx, const char *name, uint32_t *type)
{
	for (size_t i = 0; i < ctx->npmus; i++)
		if (!strcmp(ctx->pmus[i].name, name)) {
			*type = ctx->pmus[i].type;
			return true;
		}
	return false;
}

int pm_raw_ctx_select(const pm_raw_ctx *ctx, const struct pm_attr *attr, const pm_raw_decoder **out)
{
	const char *pmu;
	uint32_t cpu_type;
	bool cpu_pmu;

	if (out)
		*out = NULL;
	if (!ctx || !attr || !out)
		return pm__err(EINVAL, "pm_raw_ctx_select: NULL argument");
	if (!(attr->sample_type & PM_SAMPLE_RAW))
		return pm__err(PM_ERR_NO_DECODER, "the event does not sample PERF_SAMPLE_RAW");

	/* AMD IBS: the attr type is the ibs_fetch / ibs_op PMU's type. */
	pmu = ctx_pmu_name(ctx, attr->type);
	if (pmu && !strncmp(pmu, "ibs_fetch", 9)) {
		*out = &pm__raw_ibs_fetch;
		return 0;
	}
	if (pmu && !strncmp(pmu, "ibs_op", 6)) {
		*out = &pm__raw_ibs_op;
		return 0;
	}

	/* Alpha ProfileMe: the cpu PMU (PERF_TYPE_RAW, or its mapped type) with
	 * the profileme config bit, or a precise hardware/raw event. */
	if (ctx->arch && !strncmp(ctx->arch, "alpha", 5)) {
		cpu_pmu = attr->type == PM_TYPE_RAW ||
			  (ctx_pmu_type(ctx, "cpu", &cpu_type) && attr->type == cpu_type);
		if ((cpu_pmu && (attr->config & PM_PROFILEME_CONFIG_BIT)) ||
		    ((cpu_pmu || attr->type == PM_TYPE_HARDWARE) && PM_ATTR_PRECISE_IP(attr) > 0)) {
			*out = &pm__raw_alpha_profileme;
			return 0;
		}
		return pm__err(PM_ERR_NO_DECODER,
			       "Alpha event type %" PRIu32 " config 0x%" PRIx64 " is not a ProfileMe event",
			       attr->type, attr->config);
	}
	return pm__err(PM_ERR_NO_DECODER, "no raw decoder for event type %" PRIu32 " (%s) on '%s'",
		       attr->type, pmu ? pmu : "unknown PMU", ctx->arch ? ctx->arch : "");
}

/* ---- generic decoding ---- */

static void default_opts(struct pm__raw_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->big_endian = pm__host_big_endian();
}

static int run(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
	       struct pm__raw_out *out, const struct pm__raw_opts **opts, struct pm__raw_opts *defopts)
{
	if (!d || (!payload && len))
		return pm__err(EINVAL, "raw decode: NULL %s", d ? "payload" : "decoder");
	if (ctx) {
		*opts = &ctx->opts;
	} else {
		default_opts(defopts);
		*opts = defopts;
	}
	memset(out->present, 0, sizeof(out->present));
	memset(out->v, 0, d->nfields * sizeof(out->v[0]));
	out->bytes = NULL;
	return d->decode(*opts, payload ? payload : (const void *)"", len, out);
}

const char *pm_raw_field_code_name(const pm_raw_decoder *d, const pm_raw_ctx *ctx, size_t i, uint64_t code)
{
	struct pm__raw_opts def;

	if (!d || i >= d->nfields || d->fields[i].kind != PM_RAW_KIND_CODE)
		return NULL;
	if (!ctx)
		default_opts(&def);
	return d->code_name(ctx ? &ctx->opts : &def, i, code);
}

int pm_raw_decode_row(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
		      uint64_t *values, uint8_t *present, size_t n)
{
	struct pm__raw_out out;
	struct pm__raw_opts def;
	const struct pm__raw_opts *o;
	int rc;

	if (n && !values)
		return pm__err(EINVAL, "pm_raw_decode_row: NULL values");
	rc = run(d, ctx, payload, len, &out, &o, &def);
	if (rc < 0)
		return rc;
	n = PM_MIN(n, d->nfields);
	for (size_t i = 0; i < n; i++) {
		values[i] = out.present[i] ? out.v[i] : 0;
		if (present)
			present[i] = out.present[i];
	}
	return (int)d->nfields;
}

int pm_raw_decode(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
		  struct pm_raw_value *vals, size_t n)
{
	struct pm__raw_out out;
	struct pm__raw_opts def;
	const struct pm__raw_opts *o;
	size_t stride;
	int rc;

	if (n && !vals)
		return pm__err(EINVAL, "pm_raw_decode: NULL vals");
	stride = n ? vals[0].sz : sizeof(struct pm_raw_value);
	n = d ? PM_MIN(n, d->nfields) : n;
	/* vals[0].sz is the stride of the whole array: every entry written is
	 * checked the same way (a grown caller's unknown tails must be zero). */
	for (size_t i = 0; i < n; i++) {
		const void *e = (const char *)vals + i * stride;
		rc = pm__sz_valid(e, stride, PM_RAW_VALUE_SZ_V1, sizeof(struct pm_raw_value),
				  "struct pm_raw_value");
		if (rc)
			return rc;
		if (stride <= sizeof(struct pm_raw_value))
			break;
	}
	rc = run(d, ctx, payload, len, &out, &o, &def);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		struct pm_raw_value v;
		int kind = d->fields[i].kind;

		memset(&v, 0, sizeof(v));
		v.sz = sizeof(v);
		v.kind = kind;
		v.present = out.present[i];
		if (v.present) {
			v.u = out.v[i];
			if (kind == PM_RAW_KIND_CODE)
				v.str = d->code_name(o, i, v.u);
			else if (kind == PM_RAW_KIND_BYTES)
				v.bytes = out.bytes;
		}
		pm__struct_copy_out((char *)vals + i * stride, stride, &v, sizeof(v));
	}
	return (int)d->nfields;
}

/* ---- printing ---- */

struct sink {
	char *buf;
	size_t cap;
	size_t len; /* full length, even past cap */
};

static void put(struct sink *s, const char *fmt, ...) PM_PRINTF(2, 3);
static void put(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *dst = s->len < s->cap ? s->buf + s->len : NULL;
	size_t room = s->len < s->cap ? s->cap - s->len : 0;

	va_start(ap, fmt);
	n = vsnprintf(dst, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->len += (size_t)n;
}

/* Append n bytes without printf (the JSON path is hot in `script --json`). */
static void put_mem(struct sink *s, const char *p, size_t n)
{
	if (s->len < s->cap)
		memcpy(s->buf + s->len, p, PM_MIN(n, s->cap - s->len));
	s->len += n;
}

static void put_cstr(struct sink *s, const char *p)
{
	put_mem(s, p, strlen(p));
}

/* The library's JSON writer (lib/export/json.c) on this sink: same
 * snprintf-like contract (write what fits, count everything). */
#define SINK_JW(s, call)                                          \
	do {                                                      \
		struct pm__jw w_ = { (s)->buf, (s)->cap, (s)->len }; \
		call;                                             \
		(s)->len = w_.len;                                \
	} while (0)

static void put_u64(struct sink *s, uint64_t v)
{
	SINK_JW(s, pm__jw_u64(&w_, v));
}

static void put_hex(struct sink *s, uint64_t v)
{
	SINK_JW(s, pm__jw_hex(&w_, v));
}

static void put_json_str(struct sink *s, const char *str)
{
	SINK_JW(s, pm__jw_str(&w_, str, strlen(str)));
}

static void put_hexbytes(struct sink *s, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		char e[2] = { hx[p[i] >> 4], hx[p[i] & 15] };

		put_mem(s, e, 2);
	}
}

static int finish(struct sink *s)
{
	if (s->cap)
		s->buf[PM_MIN(s->len, s->cap - 1)] = '\0';
	if (s->len > INT32_MAX)
		return pm__err(ERANGE, "decoded text too long");
	return (int)s->len;
}

int pm_raw_format_json(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
		       char *buf, size_t cap)
{
	struct pm__raw_out out;
	struct pm__raw_opts def;
	const struct pm__raw_opts *o;
	struct sink s = { buf, buf ? cap : 0, 0 };
	bool first = true;
	int rc;

	rc = run(d, ctx, payload, len, &out, &o, &def);
	if (rc < 0)
		return rc;
	put_mem(&s, "{", 1);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct pm__raw_field *f = &d->fields[i];
		uint64_t v = out.v[i];
		const char *name;

		if (!out.present[i])
			continue;
		if (!first)
			put_mem(&s, ",", 1);
		put_mem(&s, "\"", 1);
		put_cstr(&s, f->name);
		put_mem(&s, "\":", 2);
		first = false;
		switch (f->kind) {
		case PM_RAW_KIND_BOOL:
			put_cstr(&s, v ? "true" : "false");
			break;
		case PM_RAW_KIND_HEX:
			put_mem(&s, "\"", 1);
			put_hex(&s, v);
			put_mem(&s, "\"", 1);
			break;
		case PM_RAW_KIND_CODE:
			name = d->code_name(o, i, v);
			if (name)
				put_json_str(&s, name);
			else
				put_u64(&s, v);
			break;
		case PM_RAW_KIND_BYTES:
			put_mem(&s, "\"", 1);
			put_hexbytes(&s, out.bytes, (size_t)v);
			put_mem(&s, "\"", 1);
			break;
		default:
			put_u64(&s, v);
			break;
		}
	}
	put_mem(&s, "}", 1);
	return finish(&s);
}

int pm_raw_format_text(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
		       const char *prefix, char *buf, size_t cap)
{
	struct pm__raw_out out;
	struct pm__raw_opts def;
	const struct pm__raw_opts *o;
	struct sink s = { buf, buf ? cap : 0, 0 };
	bool line_open = false;
	int rc;

	if (!prefix)
		prefix = "";
	rc = run(d, ctx, payload, len, &out, &o, &def);
	if (rc < 0)
		return rc;
	put(&s, "%s%s:", prefix, d->name);
	line_open = true;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct pm__raw_field *f = &d->fields[i];
		uint64_t v = out.v[i];
		const char *name;

		if (!out.present[i])
			continue;
		if (f->flags & PM_RAW_FIELD_REGISTER) {
			if (line_open)
				put(&s, "\n");
			put(&s, "%s%-18s 0x%016" PRIx64, prefix, f->label ? f->label : f->name, v);
			line_open = true;
			continue;
		}
		switch (f->kind) {
		case PM_RAW_KIND_HEX:
			put(&s, " %s 0x%" PRIx64, f->name, v);
			break;
		case PM_RAW_KIND_CODE:
			name = d->code_name(o, i, v);
			if (name)
				put(&s, strchr(name, ' ') ? " %s \"%s\"" : " %s %s", f->name, name);
			else
				put(&s, " %s %" PRIu64, f->name, v);
			break;
		case PM_RAW_KIND_BYTES:
			put(&s, " %s ", f->name);
			put_hexbytes(&s, out.bytes, (size_t)v);
			break;
		default:
			put(&s, " %s %" PRIu64, f->name, v);
			break;
		}
	}
	if (line_open)
		put(&s, "\n");
	return finish(&s);
}
