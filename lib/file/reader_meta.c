/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * perf.data reader, stage 3: attrs and metadata.  The id -> attr map, the
 * attrs (evsels) with their names, the metadata records (HEADER_ATTR,
 * EVENT_UPDATE, ID_INDEX, HEADER_FEATURE, HEADER_TRACING_DATA,
 * HEADER_BUILD_ID) taken into account as they pass, and a pipe stream's
 * leading metadata read ahead at open.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <profileme/event.h>

#include "reader_int.h"

#define PMF_PRIME_MAX (64u << 20)

/* ------------------------------------------------------------------ */
/* id map */

static size_t pmf_hash(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

int pmf_evsel_by_id(const pm_file *f, uint64_t id)
{
	if (!f->hcap)
		return -ENOENT;
	for (size_t i = pmf_hash(id, f->hcap);; i = (i + 1) & (f->hcap - 1)) {
		if (f->hval[i] < 0)
			return -ENOENT;
		if (f->hkey[i] == id)
			return f->hval[i];
	}
}

static void pmf_map_put(pm_file *f, uint64_t id, int32_t idx)
{
	size_t i = pmf_hash(id, f->hcap);

	while (f->hval[i] >= 0 && f->hkey[i] != id)
		i = (i + 1) & (f->hcap - 1);
	if (f->hval[i] < 0)
		f->hcount++;
	f->hkey[i] = id;
	f->hval[i] = idx;
}

static int pmf_map_grow(pm_file *f)
{
	size_t ncap = f->hcap ? f->hcap * 2 : 64;
	uint64_t *ok = f->hkey;
	int32_t *ov = f->hval;
	size_t ocap = f->hcap;

	f->hkey = calloc(ncap, sizeof(*f->hkey));
	f->hval = malloc(ncap * sizeof(*f->hval));
	if (!f->hkey || !f->hval) {
		free(f->hkey);
		free(f->hval);
		f->hkey = ok;
		f->hval = ov;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ncap; i++)
		f->hval[i] = -1;
	f->hcap = ncap;
	f->hcount = 0;
	for (size_t i = 0; i < ocap; i++)
		if (ov[i] >= 0)
			pmf_map_put(f, ok[i], ov[i]);
	free(ok);
	free(ov);
	return 0;
}

int pmf_add_id(pm_file *f, size_t idx, uint64_t id)
{
	struct pmf_evsel *e = &f->ev[idx];
	int cur = pmf_evsel_by_id(f, id);

	if (cur == (int)idx)
		return 0;
	if ((f->hcount + 1) * 2 > f->hcap && pmf_map_grow(f))
		return -ENOMEM;
	pmf_map_put(f, id, (int32_t)idx);
	if (cur >= 0) /* moved from another attr: keep its list as is */
		pm__debug("%s: id %" PRIu64 " moves from attr %d to %zu", PMF_NAME(f), id, cur, idx);
	if (e->nr_ids == e->cap_ids) {
		size_t nc = e->cap_ids ? e->cap_ids * 2 : 8;
		uint64_t *n = pm__reallocarray(e->ids, nc, sizeof(*n));

		if (!n)
			return -ENOMEM;
		e->ids = n;
		e->cap_ids = nc;
	}
	e->ids[e->nr_ids++] = id;
	return 0;
}

/* ------------------------------------------------------------------ */
/* attrs */

/*
 * The name perf builds from an attr alone, for files that name none of
 * their events (old perf, simpleperf, pipe streams without EVENT_UPDATE).
 * Tracepoints are named from the file's tracing data when the name is
 * asked for (pm_file_event_name()), never from this machine's tracefs.
 */
static void pmf_auto_name(struct pmf_evsel *e)
{
	char buf[256];

	e->autoname = NULL;
	if (e->attr.type == PM_TYPE_TRACEPOINT)
		return;
	/* no PMU list: this machine's PMU types are not the recording's */
	if (pm_attr_perf_name(&e->attr, NULL, buf, sizeof(buf)) >= 0)
		e->autoname = strdup(buf);
}

/*
 * A dynamic PMU type (not one of perf's fixed ones) that the file's
 * PMU_MAPPINGS names: `pmu/config=0x../` with perf's modifiers (the file
 * carries no format fields to split the config words by).
 */
char *pmf_pmu_name(const pm_file *f, const struct pm_attr *a)
{
	static const char *const word[4] = { "config", "config1", "config2", "config3" };
	const uint64_t w[4] = { a->config, a->config1, a->config2, a->config3 };
	struct pm_attr raw = *a;
	char mods[64], out[320];
	const char *pmu = NULL, *colon;
	size_t n;
	bool first = true;

	for (size_t i = 0; i < f->npmumap && !pmu; i++)
		if (f->pmumap[i].type == a->type && f->pmumap[i].name)
			pmu = f->pmumap[i].name;
	if (!pmu)
		return NULL;
	/* perf's modifier letters, as pm_attr_perf_name() writes them */
	raw.type = PM_TYPE_RAW;
	raw.config = 0;
	mods[0] = 0;
	if (pm_attr_perf_name(&raw, NULL, out, sizeof(out)) >= 0 && (colon = strchr(out, ':')))
		snprintf(mods, sizeof(mods), "%s", colon + 1);
	n = (size_t)snprintf(out, sizeof(out), "%s/", pmu);
	for (int k = 0; k < 4 && n < sizeof(out); k++) {
		if (!w[k])
			continue;
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s=0x%" PRIx64, first ? "" : ",",
				      word[k], w[k]);
		first = false;
	}
	if (n < sizeof(out))
		snprintf(out + n, sizeof(out) - n, "/%s", mods);
	return strdup(out);
}

int pmf_add_evsel(pm_file *f, const struct pm_attr *attr, const uint8_t *ids, size_t nr_ids)
{
	struct pmf_evsel *e;
	int rc;

	if (f->nr_ev == f->cap_ev) {
		size_t nc = f->cap_ev ? f->cap_ev * 2 : 4;
		struct pmf_evsel *n = pm__reallocarray(f->ev, nc, sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->ev = n;
		f->cap_ev = nc;
	}
	e = &f->ev[f->nr_ev];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	rc = pm_sample_layout_new(&e->layout, attr);
	if (rc < 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "attr %zu: %s", f->nr_ev,
			 pm_errmsg()[0] ? pm_errmsg() : pm_strerror(rc));
		pm__warn("%s: %s", PMF_NAME(f), msg);
		e->layout = NULL;
		e->layout_err = strdup(msg);
		if (!e->layout_err)
			return -ENOMEM;
	}
	pm__plan_positions(attr, &e->pos);
	pmf_auto_name(e);
	f->nr_ev++;
	for (size_t i = 0; i < nr_ids; i++) {
		rc = pmf_add_id(f, f->nr_ev - 1, pm__ld64(ids + 8 * i, f->be));
		if (rc)
			return rc;
	}
	return 0;
}

int pmf_set_name(pm_file *f, size_t idx, const char *name, size_t len)
{
	char *n = pm__strndup(name, strnlen(name, len));

	if (!n)
		return -ENOMEM;
	free(f->ev[idx].name);
	f->ev[idx].name = n;
	return 0;
}
/* ------------------------------------------------------------------ */
/* metadata records */

/* Parse the loaded TRACING_DATA bytes (feature or record); damage is a
 * warning naming the offset: what came before it still names events. */
int pmf_tracing_load(pm_file *f)
{
	struct pmf_feat *ft = &f->feat[PM_FEAT_TRACING_DATA];
	struct pmf_tracing *t;

	if (!ft->loaded)
		return 0;
	t = pmf_tracing_parse(ft->raw, ft->len, ft->off, PMF_NAME(f));
	if (!t)
		return -ENOMEM;
	if (t->err)
		pm__warn("%s", t->errmsg);
	pmf_tracing_free(f->tracing);
	f->tracing = t;
	return 0;
}

static int pmf_meta(pm_file *f, const uint8_t *p, uint32_t size, uint32_t type, uint64_t off)
{
	bool be = f->be;

	switch (type) {
	case PM_RECORD_HEADER_ATTR: {
		struct pm_attr a;
		size_t asz, nids;
		int rc;

		if (size < 8 + PM_ATTR_SIZE_VER0)
			goto bad;
		rc = pm_attr_from_bytes(&a, p + 8, size - 8, be);
		if (rc < 0)
			goto bad;
		asz = a.size;
		nids = (size - 8 - asz) / 8;
		return pmf_add_evsel(f, &a, p + 8 + asz, nids);
	}
	case PM_RECORD_EVENT_UPDATE: {
		int idx;

		if (size < 24)
			goto bad;
		idx = pmf_evsel_by_id(f, pm__ld64(p + 16, be));
		if (idx >= 0 && pm__ld64(p + 8, be) == PM_EVENT_UPDATE_NAME)
			return pmf_set_name(f, (size_t)idx, (const char *)p + 24, size - 24);
		return 0;
	}
	case PM_RECORD_ID_INDEX:
		/* {id, idx, cpu, tid}: idx is the id's slot within its event (the
		 * fd index), not an attr index: ids are owned through the attr
		 * section / HEADER_ATTR.  Nothing to learn for matching. */
		return 0;
	case PM_RECORD_HEADER_FEATURE: {
		uint64_t feat;
		struct pmf_feat *ft;
		uint8_t *copy;

		if (size < 16)
			goto bad;
		feat = pm__ld64(p + 8, be);
		if (feat >= PM_FEAT_BITS)
			return 0;
		copy = malloc(size - 16 + 1u);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, p + 16, size - 16);
		ft = &f->feat[feat];
		free(ft->raw);
		ft->raw = copy;
		ft->len = size - 16;
		ft->present = ft->loaded = true;
		ft->err = 0;
		ft->off = off + 16;
		ft->size = size - 16;
		PMF_SET_BIT(f->info.features, feat);
		pmf_feat_decode(f, (unsigned)feat);
		if (feat == PM_FEAT_EVENT_DESC)
			pmf_names_from_event_desc(f);
		return 0;
	}
	case PM_RECORD_HEADER_TRACING_DATA: {
		/* the data follows the record's header.size bytes (12 in perf
		 * 6.1, 16 where later perf pads the struct) */
		struct pmf_feat *ft = &f->feat[PM_FEAT_TRACING_DATA];
		uint32_t hs = pm__ld16(p + 6, be);
		uint8_t *copy;

		if (hs < 12 || hs > size)
			goto bad;
		copy = malloc(size - hs + 1u);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, p + hs, size - hs);
		free(ft->raw);
		ft->raw = copy;
		ft->len = size - hs;
		ft->present = ft->loaded = true;
		ft->off = off + hs;
		ft->size = size - hs;
		PMF_SET_BIT(f->info.features, PM_FEAT_TRACING_DATA);
		return pmf_tracing_load(f);
	}
	case PM_RECORD_HEADER_BUILD_ID:
		return pmf_add_build_id(f, p, size, be);
	default:
		return 0;
	}
bad:
	pm__warn("%s: malformed %s record at offset %" PRIu64 " ignored", PMF_NAME(f),
		 pm_record_type_name(type), off);
	return 0;
}



/* Stage 3: records with metadata processed and attr/time attached. */
int pmf_meta_next(pm_file *f, struct pmf_rec *r)
{
	int rc;

	if (f->err)
		return f->err;
	rc = pmf_rec_next(f, r);
	if (rc <= 0)
		return rc;
	if (r->type >= PM_RECORD_USER_TYPE_START &&
	    (r->from_comp || r->offset >= f->meta_done)) {
		rc = pmf_meta(f, r->data, r->size, r->type, r->offset);
		if (rc < 0)
			return pmf_fail(f, rc, r->offset);
		if (!r->from_comp)
			f->meta_done = r->offset + r->size;
	}
	pmf_classify(f, r);
	return 1;
}
/* EVENT_DESC names the attrs (matched by id, else by position). */
void pmf_names_from_event_desc(pm_file *f)
{
	const struct pmf_feat *ft = &f->feat[PM_FEAT_EVENT_DESC];
	const uint8_t *p = ft->raw;
	size_t len = ft->len, pos = 8;
	uint32_t nr, asz;

	if (!ft->loaded || len < 8)
		return;
	nr = pm__ld32(p, f->be);
	asz = pm__ld32(p + 4, f->be);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids, slen;
		const char *name;
		int idx = -1;

		if (!pm__fits(pos, (size_t)asz + 8, len))
			return;
		pos += asz;
		nids = pm__ld32(p + pos, f->be);
		slen = pm__ld32(p + pos + 4, f->be);
		pos += 8;
		if (!pm__fits(pos, slen, len))
			return;
		name = (const char *)p + pos;
		pos += slen;
		if ((uint64_t)nids * 8 > len - pos)
			return;
		if (nids)
			idx = pmf_evsel_by_id(f, pm__ld64(p + pos, f->be));
		if (idx < 0 && i < f->nr_ev)
			idx = (int)i;
		if (idx >= 0)
			pmf_set_name(f, (size_t)idx, name, slen);
		pos += (size_t)nids * 8;
	}
}

/* Pipe mode: take the metadata at the start of the stream into account
 * without consuming it (it is still handed out by pm_file_next()). */
void pmf_prime_pipe(pm_file *f)
{
	size_t rel = 0;

	for (;;) {
		uint64_t total = 0;
		const uint8_t *p;
		uint32_t type;
		int rc;

		if (rel > PMF_PRIME_MAX || pmf_fill(f, rel + 16) < 0)
			return;
		if (f->win_end - f->win_pos < rel + 8)
			return;
		p = f->win + f->win_pos + rel;
		type = pm__ld32(p, f->be);
		if (type < PM_RECORD_USER_TYPE_START || type == PM_RECORD_FINISHED_ROUND ||
		    type == PM_RECORD_COMPRESSED || type == PM_RECORD_COMPRESSED2)
			return;
		rc = pmf_rec_extent(f, p, f->win_end - f->win_pos - rel, 0, &total);
		if (rc <= 0 || total > PMF_PRIME_MAX)
			return;
		if (pmf_fill(f, rel + (size_t)total) <= 0)
			return;
		p = f->win + f->win_pos + rel;
		if (pmf_meta(f, p, (uint32_t)total, type, f->win_off + f->win_pos + rel) < 0)
			return;
		rel += (size_t)total;
		f->meta_done = f->win_off + f->win_pos + rel;
	}
}
