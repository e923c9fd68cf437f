// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* pprof export: a gzipped perftools.profiles.Profile (profile.proto) built
 * with protobuf-c and zlib.  See docs/export.md for what goes where. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export_int.h"

#ifdef PM_HAVE_PPROF
#include <zlib.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

#define PPX_MAXV 32

struct ppx_vt {
	uint32_t type, unit;
	bool extra;             /* a raw-payload type (not samples or an event's period) */
};

/* Labels of a sample, in the order of the key. */
enum { L_COMM, L_PID, L_TID, L_CPU, L_EVENT, L_TRAP, L_DSRC, L_NR };

/* Raw fields whose values become sample values or labels. */
struct ppx_rawf {
	const char *decoder, *field, *type, *unit;
	bool count;             /* a boolean: count the samples that have it */
};
static const struct ppx_rawf ppx_rawfs[] = {
	{ "ibs_op", "tag_to_ret_ctr", "tag_to_retire", "cycles", false },
	{ "ibs_op", "dc_miss_lat", "dc_miss_latency", "cycles", false },
	{ "ibs_op", "dc_miss", "dc_misses", "count", true },
	{ "ibs_op", "op_brn_misp", "mispredicted_branches", "count", true },
	{ "ibs_fetch", "fetch_lat", "fetch_latency", "cycles", false },
	{ "ibs_fetch", "ic_miss", "ic_misses", "count", true },
};
#define PPX_NRAWF (sizeof(ppx_rawfs) / sizeof(ppx_rawfs[0]))

struct ppx {
	struct pmx_walk *w;
	struct ppx_vt vt[PPX_MAXV];
	size_t nvt;
	int *vt_event;          /* per attr: index of its period type */
	size_t nevents;         /* attrs vt_event covers */
	int vt_pm[4];           /* trapped, killed, mispredicted, stalled; -1 until seen */
	int vt_pctr[2][PM_PROFILEME_COUNTS_COUNT];
	int vt_raw[PPX_NRAWF];
	int rawf_idx[PPX_NRAWF];  /* field index in its decoder, -1 absent */
	int dsrc_idx;             /* ibs_op data_src field */
	const pm_raw_decoder *ibs_op, *ibs_fetch;
	uint32_t lkey[L_NR];
	bool multi_event;
	struct pmx_set funcs;   /* key {sym, dso} */
	struct pmx_set locs;    /* key {map + 1, addr, func} */
	struct pmx_set samples; /* key: labels then locations */
	int64_t *vals;          /* PPX_MAXV per sample entry */
	size_t vals_cap;
	uint64_t *key;          /* scratch */
	size_t key_cap;
	uint64_t *map_hits;     /* samples whose leaf is in each map */
	size_t map_hits_cap;
};

static long ppx_str(struct ppx *p, const char *s)
{
	return pmx_str(p->w, s, strlen(s));
}

/* A value type by name; a raw-payload type whose name an event already
 * uses gets the decoder's prefix (a "cycles" event and PCTR cycles). */
static int ppx_vtype(struct ppx *p, const char *name, const char *unit, bool extra, const char *prefix)
{
	char buf[128];
	long t = ppx_str(p, name), u = ppx_str(p, unit);

	if (t < 0 || u < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->nvt; i++) {
		if (p->vt[i].type != (uint32_t)t)
			continue;
		if (p->vt[i].extra == extra && p->vt[i].unit == (uint32_t)u)
			return (int)i;
		if (extra && prefix) {
			snprintf(buf, sizeof(buf), "%s%s", prefix, name);
			return ppx_vtype(p, buf, unit, extra, NULL);
		}
	}
	if (p->nvt == PPX_MAXV)
		return pm__err(ENOMEM, "pm_export_pprof: too many value types");
	p->vt[p->nvt].type = (uint32_t)t;
	p->vt[p->nvt].unit = (uint32_t)u;
	p->vt[p->nvt].extra = extra;
	return (int)p->nvt++;
}

static bool ppx_clock_event(const struct pm_attr *a)
{
	/* cpu-clock (0) and task-clock (1) count nanoseconds. */
	return a && a->type == PM_TYPE_SOFTWARE && (a->config == 0 || a->config == 1);
}

/* The period type of every attr not seen yet (a pipe stream may add attrs). */
static int ppx_events(struct ppx *p)
{
	struct pmx_walk *w = p->w;
	int t;

	if (w->nattrs > p->nevents) {
		int *a = pm__reallocarray(p->vt_event, w->nattrs, sizeof(int));

		if (!a)
			return -ENOMEM;
		p->vt_event = a;
	}
	for (size_t i = p->nevents; i < w->nattrs; i++) {
		const struct pm_attr *a = pm_file_attr(w->f, i);
		const char *n = pm_file_event_name(w->f, i);
		char buf[32];

		p->vt_event[i] = -1;
		if (w->o.event >= 0 && (size_t)w->o.event != i)
			continue;
		if (!n || !n[0]) {
			snprintf(buf, sizeof(buf), "event_%zu", i);
			n = buf;
		}
		if ((t = ppx_vtype(p, n, ppx_clock_event(a) ? "nanoseconds" : "count", false, NULL)) < 0)
			return t;
		p->vt_event[i] = t;
	}
	if (w->nattrs > p->nevents)
		p->nevents = w->nattrs;
	p->multi_event = w->o.event < 0 && w->nattrs > 1;
	return 0;
}

static int ppx_init(struct ppx *p, struct pmx_walk *w)
{
	static const char *const lk[L_NR] = { "comm", "pid", "tid", "cpu", "event", "trap", "data_src" };
	int t;

	memset(p, 0, sizeof(*p));
	p->w = w;
	memset(p->vt_pm, -1, sizeof(p->vt_pm));
	memset(p->vt_pctr, -1, sizeof(p->vt_pctr));
	memset(p->vt_raw, -1, sizeof(p->vt_raw));
	p->dsrc_idx = -1;
	for (size_t i = 0; i < L_NR; i++) {
		long s = ppx_str(p, lk[i]);

		if (s < 0)
			return -ENOMEM;
		p->lkey[i] = (uint32_t)s;
	}
	p->vt_event = calloc(w->nattrs ? w->nattrs : 1, sizeof(int));
	if (!p->vt_event)
		return -ENOMEM;
	if ((t = ppx_vtype(p, "samples", "count", false, NULL)) < 0)
		return t;
	if ((t = ppx_events(p)) < 0)
		return t;
	p->ibs_op = pm_raw_decoder_find("ibs_op");
	p->ibs_fetch = pm_raw_decoder_find("ibs_fetch");
	pm__err_clear();
	for (size_t i = 0; i < PPX_NRAWF; i++) {
		const pm_raw_decoder *d = pm_raw_decoder_find(ppx_rawfs[i].decoder);

		p->rawf_idx[i] = d ? pm_raw_field_index(d, ppx_rawfs[i].field) : -1;
	}
	if (p->ibs_op)
		p->dsrc_idx = pm_raw_field_index(p->ibs_op, "data_src");
	pm__err_clear();
	return 0;
}

static void ppx_fini(struct ppx *p)
{
	free(p->vt_event);
	pmx_set_free(&p->funcs);
	pmx_set_free(&p->locs);
	pmx_set_free(&p->samples);
	free(p->vals);
	free(p->key);
	free(p->map_hits);
}

static int ppx_key_room(struct ppx *p, size_t n)
{
	if (n > p->key_cap) {
		size_t nc = p->key_cap ? p->key_cap : 64;
		uint64_t *k;

		while (nc < n)
			nc *= 2;
		k = pm__reallocarray(p->key, nc, sizeof(*k));
		if (!k)
			return -ENOMEM;
		p->key = k;
		p->key_cap = nc;
	}
	return 0;
}

static long ppx_location(struct ppx *p, const struct pmx_frame *fr)
{
	uint64_t fk[4] = { fr->sym, fr->dso, fr->fn_file, fr->fn_line };
	uint64_t lk[6];
	long fi = pmx_set_add(&p->funcs, fk, sizeof(fk), NULL);

	if (fi < 0)
		return fi;
	lk[0] = (uint64_t)(fr->map + 1);
	lk[1] = fr->addr;
	lk[2] = (uint64_t)fi;
	lk[3] = fr->line;
	lk[4] = fr->column;
	lk[5] = fr->file;
	return pmx_set_add(&p->locs, lk, sizeof(lk), NULL);
}

static int ppx_pm_values(struct ppx *p, const struct pm_profileme_sample *pm, int64_t *v, uint64_t *trap)
{
	static const char *const nm[4] = { "trapped", "killed", "mispredicted", "stalled" };
	int64_t pc0;

	if (p->vt_pm[0] < 0)
		for (int i = 0; i < 4; i++) {
			int t = ppx_vtype(p, nm[i], "count", true, "profileme_");

			if (t < 0)
				return t;
			p->vt_pm[i] = t;
		}
	v[p->vt_pm[0]] += pm->trapped ? 1 : 0;
	v[p->vt_pm[1]] += pm->killed ? 1 : 0;
	v[p->vt_pm[2]] += pm->mispredicted ? 1 : 0;
	v[p->vt_pm[3]] += pm->stalled ? 1 : 0;
	pc0 = pm->pctr0;
	if (pm->pctr0_counts == PM_PROFILEME_COUNTS_INSTRUCTIONS)
		pc0 = pc0 > (int64_t)pm->ovr ? pc0 - (int64_t)pm->ovr : 0;
	for (int c = 0; c < 2; c++) {
		int code = c ? pm->pctr1_counts : pm->pctr0_counts;
		char name[64];
		const char *cn = pm_profileme_counts_name(code);

		if (!cn || code < 0 || code >= PM_PROFILEME_COUNTS_COUNT)
			continue;
		if (p->vt_pctr[c][code] < 0) {
			size_t k;
			int t;

			for (k = 0; cn[k] && k < sizeof(name) - 1; k++)
				name[k] = cn[k] == ' ' ? '_' : cn[k];
			name[k] = 0;
			t = ppx_vtype(p, name, code == PM_PROFILEME_COUNTS_CYCLES ||
							  code == PM_PROFILEME_COUNTS_RETIRE_DELAY ? "cycles" : "count",
				      true, "profileme_");
			if (t < 0)
				return t;
			p->vt_pctr[c][code] = t;
		}
		v[p->vt_pctr[c][code]] += c ? (int64_t)pm->pctr1 : pc0;
	}
	if (pm->trap != PM_PROFILEME_TRAP_NONE) {
		const char *tn = pm_profileme_trap_name(pm->trap);
		long s = tn ? ppx_str(p, tn) : 0;

		if (s < 0)
			return (int)s;
		*trap = (uint64_t)s;
	}
	return 0;
}

static int ppx_raw_values(struct ppx *p, const struct pmx_sample *s, int64_t *v, uint64_t *dsrc)
{
	const char *dn = pm_raw_decoder_name(s->dec);
	uint64_t vals[128];
	uint8_t present[128];
	int n = pm_raw_decode_row(s->dec, p->w->raw, s->smp->raw.data, s->smp->raw.size, vals, present, 128);

	if (n < 0) {
		pm__err_clear();
		return 0;
	}
	for (size_t i = 0; i < PPX_NRAWF; i++) {
		int fi = p->rawf_idx[i];

		if (strcmp(ppx_rawfs[i].decoder, dn) || fi < 0)
			continue;
		if (p->vt_raw[i] < 0) {
			/* All types of a decoder at once, in table order. */
			for (size_t j = 0; j < PPX_NRAWF; j++) {
				int t;

				if (strcmp(ppx_rawfs[j].decoder, dn) || p->rawf_idx[j] < 0)
					continue;
				t = ppx_vtype(p, ppx_rawfs[j].type, ppx_rawfs[j].unit, true, "ibs_");
				if (t < 0)
					return t;
				p->vt_raw[j] = t;
			}
		}
		if (fi >= n || fi >= 128 || !present[fi])
			continue;
		v[p->vt_raw[i]] += ppx_rawfs[i].count ? (vals[fi] ? 1 : 0) : (int64_t)vals[fi];
	}
	if (s->dec == p->ibs_op && p->dsrc_idx >= 0 && p->dsrc_idx < n && p->dsrc_idx < 128 &&
	    present[p->dsrc_idx]) {
		const char *nm = pm_raw_field_code_name(s->dec, p->w->raw, (size_t)p->dsrc_idx,
							vals[p->dsrc_idx]);

		if (nm) {
			long st = ppx_str(p, nm);

			if (st < 0)
				return (int)st;
			*dsrc = (uint64_t)st;
		}
	}
	return 0;
}

static int ppx_on_sample(void *user, struct pmx_walk *w, const struct pmx_sample *s)
{
	struct ppx *p = user;
	int64_t v[PPX_MAXV];
	uint64_t trap = 0, dsrc = 0;
	size_t nk = L_NR + 1 + s->nframes;
	long e;
	int added, err;

	if ((size_t)s->event >= p->nevents && (err = ppx_events(p)))
		return err;
	memset(v, 0, sizeof(v));
	v[0] = 1;
	if (s->frames[0].map >= 0) {
		size_t m = (size_t)s->frames[0].map;

		if (m >= p->map_hits_cap) {
			size_t nc = p->map_hits_cap ? p->map_hits_cap : 64;
			uint64_t *a;

			while (nc <= m)
				nc *= 2;
			a = pm__reallocarray(p->map_hits, nc, sizeof(*a));
			if (!a)
				return -ENOMEM;
			memset(a + p->map_hits_cap, 0, (nc - p->map_hits_cap) * sizeof(*a));
			p->map_hits = a;
			p->map_hits_cap = nc;
		}
		p->map_hits[m]++;
	}
	if (p->vt_event[s->event] >= 0)
		v[p->vt_event[s->event]] = (int64_t)s->period;
	if (s->is_pm) {
		if ((err = ppx_pm_values(p, &s->pm, v, &trap)))
			return err;
	} else if (s->dec && (s->dec == p->ibs_op || s->dec == p->ibs_fetch) &&
		   (s->smp->present & PM_SAMPLE_RAW)) {
		if ((err = ppx_raw_values(p, s, v, &dsrc)))
			return err;
	}
	if ((err = ppx_key_room(p, nk)))
		return err;
	p->key[L_COMM] = s->comm;
	p->key[L_PID] = s->pid;
	p->key[L_TID] = s->tid;
	p->key[L_CPU] = s->has_cpu ? (uint64_t)s->cpu + 1 : 0;
	p->key[L_EVENT] = p->multi_event ? (uint64_t)s->event + 1 : 0;
	p->key[L_TRAP] = trap;
	p->key[L_DSRC] = dsrc;
	p->key[L_NR] = s->nframes;
	for (size_t i = 0; i < s->nframes; i++) {
		long li = ppx_location(p, &s->frames[i]);

		if (li < 0)
			return (int)li;
		p->key[L_NR + 1 + i] = (uint64_t)li;
	}
	e = pmx_set_add(&p->samples, p->key, nk * sizeof(uint64_t), &added);
	if (e < 0)
		return (int)e;
	if ((size_t)e >= p->vals_cap) {
		size_t nc = p->vals_cap ? p->vals_cap * 2 : 1024;
		int64_t *a;

		a = pm__reallocarray(p->vals, nc, PPX_MAXV * sizeof(int64_t));
		if (!a)
			return -ENOMEM;
		p->vals = a;
		p->vals_cap = nc;
	}
	if (added)
		memset(p->vals + (size_t)e * PPX_MAXV, 0, PPX_MAXV * sizeof(int64_t));
	for (size_t i = 0; i < p->nvt; i++)
		p->vals[(size_t)e * PPX_MAXV + i] += v[i];
	(void)w;
	return 0;
}

/* ---- serialisation ----------------------------------------------------- */

static int ppx_gzip_write(int fd, const uint8_t *buf, size_t len)
{
	z_stream z;
	uint8_t out[65536];
	int zr, ret = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return pm__err(ENOMEM, "pm_export_pprof: zlib: %s", z.msg ? z.msg : "deflateInit2 failed");
	z.next_in = (Bytef *)(uintptr_t)buf;
	do {
		size_t chunk = PM_MIN(len, (size_t)1 << 30);

		z.avail_in = (uInt)chunk;
		len -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (zr == Z_STREAM_ERROR) {
				ret = pm__err(EIO, "pm_export_pprof: zlib deflate failed");
				goto out;
			}
			for (size_t off = 0, n = sizeof(out) - z.avail_out; off < n;) {
				ssize_t wr = write(fd, out + off, n - off);

				if (wr < 0) {
					if (errno == EINTR)
						continue;
					ret = pm__err(errno, "pm_export_pprof: write: %s", strerror(errno));
					goto out;
				}
				off += (size_t)wr;
			}
		} while (z.avail_out == 0);
	} while (len);
	if (zr != Z_STREAM_END)
		ret = pm__err(EIO, "pm_export_pprof: zlib did not finish the stream");
out:
	deflateEnd(&z);
	return ret;
}

static int ppx_emit(struct ppx *p, const char *path)
{
	struct pmx_walk *w = p->w;
	PProfile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	PValueType *vts = NULL, **vtp = NULL, period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	PSample *ss = NULL, **ssp = NULL;
	PLabel *ls = NULL, **lsp = NULL;
	PMapping *ms = NULL, **msp = NULL;
	PLocation *locs = NULL, **locp = NULL;
	PLine *lines = NULL, *linep = NULL;
	PFunction *fs = NULL, **fsp = NULL;
	uint64_t *locids = NULL, first = 0, last = 0;
	int64_t *svals = NULL, comments[3];
	char **strs = NULL;
	uint8_t *buf = NULL;
	size_t ns = p->samples.n, nl = 0, nloc_total = 0, len, ncomm = 0, main_map = 0;
	int fd, ret = -ENOMEM;
	long s;

	/* Strings the profile needs are interned before the table is taken. */
	{
		char text[256];

		snprintf(text, sizeof(text), "libprofileme %s", pm_version_string());
		if ((s = ppx_str(p, text)) < 0)
			return (int)s;
		comments[ncomm++] = s;
		if (w->synthetic) {
			if ((s = ppx_str(p, "SYNTHETIC recording (made by a generator, not measured)")) < 0)
				return (int)s;
			comments[ncomm++] = s;
		}
	}
	strs = calloc(w->strs.n ? w->strs.n : 1, sizeof(*strs));
	vts = calloc(p->nvt, sizeof(*vts));
	vtp = calloc(p->nvt, sizeof(*vtp));
	ss = calloc(ns ? ns : 1, sizeof(*ss));
	ssp = calloc(ns ? ns : 1, sizeof(*ssp));
	ls = calloc(ns * L_NR + 1, sizeof(*ls));
	lsp = calloc(ns * L_NR + 1, sizeof(*lsp));
	svals = calloc(ns * p->nvt + 1, sizeof(*svals));
	ms = calloc(w->nmaps + 1, sizeof(*ms));
	msp = calloc(w->nmaps + 1, sizeof(*msp));
	locs = calloc(p->locs.n + 1, sizeof(*locs));
	locp = calloc(p->locs.n + 1, sizeof(*locp));
	lines = calloc(p->locs.n + 1, sizeof(*lines));
	fs = calloc(p->funcs.n + 1, sizeof(*fs));
	fsp = calloc(p->funcs.n + 1, sizeof(*fsp));
	for (size_t i = 0; i < ns; i++) {
		size_t kl;
		const uint64_t *k = pmx_set_key(&p->samples, i, &kl);
		uint64_t nf;

		memcpy(&nf, (const uint8_t *)k + L_NR * sizeof(uint64_t), sizeof(nf));
		nloc_total += nf;
	}
	locids = calloc(nloc_total + 1, sizeof(*locids));
	if (!strs || !vts || !vtp || !ss || !ssp || !ls || !lsp || !svals || !ms || !msp || !locs ||
	    !locp || !lines || !fs || !fsp || !locids)
		goto out;

	for (size_t i = 0; i < w->strs.n; i++)
		strs[i] = (char *)pmx_set_key(&w->strs, i, NULL);
	prof.n_string_table = w->strs.n;
	prof.string_table = strs;

	for (size_t i = 0; i < p->nvt; i++) {
		perftools__profiles__value_type__init(&vts[i]);
		vts[i].type = p->vt[i].type;
		vts[i].unit = p->vt[i].unit;
		vtp[i] = &vts[i];
	}
	prof.n_sample_type = p->nvt;
	prof.sample_type = vtp;

	/* Samples: labels then locations, from the aggregation key. */
	for (size_t i = 0, lo = 0; i < ns; i++) {
		size_t kl;
		const uint8_t *kb = pmx_set_key(&p->samples, i, &kl);
		uint64_t k[L_NR + 1];
		PSample *sm = &ss[i];

		memcpy(k, kb, sizeof(k));
		perftools__profiles__sample__init(sm);
		memcpy(locids + lo, kb + sizeof(k), k[L_NR] * sizeof(uint64_t));
		for (size_t j = 0; j < k[L_NR]; j++)
			locids[lo + j] += 1; /* ids start at 1 */
		sm->n_location_id = k[L_NR];
		sm->location_id = locids + lo;
		lo += k[L_NR];
		for (size_t j = 0; j < p->nvt; j++)
			svals[i * p->nvt + j] = p->vals[i * PPX_MAXV + j];
		sm->n_value = p->nvt;
		sm->value = svals + i * p->nvt;
		sm->label = lsp + nl;
		for (int j = 0; j < L_NR; j++) {
			PLabel *lb = &ls[nl];

			perftools__profiles__label__init(lb);
			lb->key = p->lkey[j];
			switch (j) {
			case L_COMM:
			case L_TRAP:
			case L_DSRC:
				if (!k[j])
					continue;
				lb->str = (int64_t)k[j];
				break;
			case L_PID:
			case L_TID:
				lb->num = (int64_t)(int32_t)(uint32_t)k[j];
				break;
			case L_CPU:
				if (!k[j])
					continue;
				lb->num = (int64_t)k[j] - 1;
				break;
			case L_EVENT: {
				const char *en;

				if (!k[j])
					continue;
				en = pm_file_event_name(w->f, (size_t)(k[j] - 1));
				s = ppx_str(p, en ? en : "?");
				/* Interning may move the string table: retake it at the end. */
				if (s < 0)
					goto out;
				lb->str = s;
				break;
			}
			}
			lsp[nl++] = lb;
			sm->n_label++;
		}
		ssp[i] = sm;
	}
	prof.n_sample = ns;
	prof.sample = ssp;

	/* mapping[0] is the main binary for pprof: the user-space map with the
	 * most samples goes first (ids follow the array order). */
	main_map = 0;
	for (size_t i = 0, best = 0; i < w->nmaps && i < p->map_hits_cap; i++)
		if (!w->maps[i].kernel && p->map_hits[i] > best) {
			best = p->map_hits[i];
			main_map = i;
		}
	for (size_t i = 0; i < w->nmaps; i++) {
		/* array slot of map i: main first, the others in order */
		size_t slot = i == main_map ? 0 : i < main_map ? i + 1 : i;
		PMapping *m = &ms[slot];

		perftools__profiles__mapping__init(m);
		m->id = slot + 1;
		m->memory_start = w->maps[i].start;
		m->memory_limit = w->maps[i].limit;
		m->file_offset = w->maps[i].pgoff;
		m->filename = w->maps[i].filename;
		m->build_id = w->maps[i].build_id;
		m->has_functions = w->have_sym;
		msp[slot] = m;
	}
	prof.n_mapping = w->nmaps;
	prof.mapping = msp;

	for (size_t i = 0; i < p->funcs.n; i++) {
		uint64_t fk[4];

		memcpy(fk, pmx_set_key(&p->funcs, i, NULL), sizeof(fk));
		perftools__profiles__function__init(&fs[i]);
		fs[i].id = i + 1;
		fs[i].name = (int64_t)fk[0];
		fs[i].system_name = (int64_t)fk[0];
		fs[i].filename = (int64_t)fk[2];
		fs[i].start_line = (int64_t)fk[3];
		fsp[i] = &fs[i];
	}
	prof.n_function = p->funcs.n;
	prof.function = fsp;

	for (size_t i = 0; i < p->locs.n; i++) {
		uint64_t lk[6];

		memcpy(lk, pmx_set_key(&p->locs, i, NULL), sizeof(lk));
		perftools__profiles__location__init(&locs[i]);
		locs[i].id = i + 1;
		/* lk[0] is map + 1, 0 for none */
		locs[i].mapping_id = !lk[0] ? 0 : lk[0] - 1 == main_map ? 1 : lk[0] - 1 < main_map ? lk[0] + 1 : lk[0];
		locs[i].address = lk[1];
		if (w->have_sym) {
			perftools__profiles__line__init(&lines[i]);
			lines[i].function_id = lk[2] + 1;
			lines[i].line = (int64_t)lk[3];
			lines[i].column = (int64_t)lk[4];
			if (lk[3] && locs[i].mapping_id) {
				ms[locs[i].mapping_id - 1].has_line_numbers = true;
				if (lk[5])
					ms[locs[i].mapping_id - 1].has_filenames = true;
			}
			linep = &lines[i];
			locs[i].n_line = 1;
			locs[i].line = (PLine **)calloc(1, sizeof(PLine *));
			if (!locs[i].line)
				goto out;
			locs[i].line[0] = linep;
		}
		locp[i] = &locs[i];
	}
	prof.n_location = p->locs.n;
	prof.location = locp;

	/* The period type: the first event exported. */
	for (size_t i = 0; i < p->nevents; i++) {
		const struct pm_attr *a = pm_file_attr(w->f, i);

		if (p->vt_event[i] < 0)
			continue;
		period_type.type = p->vt[p->vt_event[i]].type;
		period_type.unit = p->vt[p->vt_event[i]].unit;
		prof.period_type = &period_type;
		if (a && !(a->flags & PM_ATTR_FREQ))
			prof.period = (int64_t)a->sample_period;
		prof.default_sample_type = p->vt[p->vt_event[i]].type;
		break;
	}
	if (pm_file_sample_time(w->f, &first, &last) == 0 && last >= first)
		prof.duration_nanos = (int64_t)(last - first);
	pm__err_clear();
	prof.n_comment = ncomm;
	prof.comment = comments;

	/* The event labels may have added strings: take the table again. */
	if (prof.n_string_table != w->strs.n) {
		char **ns2 = pm__reallocarray(strs, w->strs.n, sizeof(*strs));

		if (!ns2)
			goto out;
		strs = ns2;
	}
	for (size_t i = 0; i < w->strs.n; i++)
		strs[i] = (char *)pmx_set_key(&w->strs, i, NULL);
	prof.n_string_table = w->strs.n;
	prof.string_table = strs;

	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	perftools__profiles__profile__pack(&prof, buf);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = pm__err(errno, "pm_export_pprof: %s: %s", path, strerror(errno));
		goto out;
	}
	ret = ppx_gzip_write(fd, buf, len);
	if (close(fd) && !ret)
		ret = pm__err(errno, "pm_export_pprof: %s: %s", path, strerror(errno));
out:
	if (locs)
		for (size_t i = 0; i < p->locs.n; i++)
			free(locs[i].line);
	free(buf);
	free(strs);
	free(vts);
	free(vtp);
	free(ss);
	free(ssp);
	free(ls);
	free(lsp);
	free(svals);
	free(ms);
	free(msp);
	free(locs);
	free(locp);
	free(lines);
	free(fs);
	free(fsp);
	free(locids);
	if (ret == -ENOMEM)
		ret = pm__err(ENOMEM, "pm_export_pprof: out of memory");
	return ret;
}

int pm_export_pprof(pm_file *f, const struct pm_export_opts *opts, const char *path)
{
	struct pmx_walk w;
	struct ppx p;
	int err;

	if (!f || !path)
		return pm__err(EINVAL, "pm_export_pprof: NULL argument");
	err = pmx_walk_init(&w, f, opts, "pm_export_pprof");
	if (err)
		return err;
	w.want_lines = true; /* Line.line and Function.filename from the line tables */
	err = ppx_init(&p, &w);
	if (!err)
		err = pmx_walk_run(&w, ppx_on_sample, &p);
	if (!err)
		err = ppx_emit(&p, path);
	ppx_fini(&p);
	pmx_walk_fini(&w);
	return err;
}

#else /* !PM_HAVE_PPROF */

int pm_export_pprof(pm_file *f, const struct pm_export_opts *opts, const char *path)
{
	(void)opts;
	if (!f || !path)
		return pm__err(EINVAL, "pm_export_pprof: %s is NULL", f ? "path" : "the file");
	return pm__err(PM_ERR_UNSUPPORTED,
		       "pm_export_pprof: this libprofileme was built without pprof support "
		       "(protobuf-c and zlib; the PROFILEME_PPROF build option)");
}

#endif
