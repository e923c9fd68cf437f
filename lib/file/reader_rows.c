/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf.data reader: samples decoded per attr, and fixed-layout rows. */
#include <inttypes.h>
#include <stdio.h>

#include "internal/source_int.h"
#include "reader_int.h"

int pm_file_sample(const pm_file *f, const struct pm_file_record *rec, struct pm_sample *out)
{
	const struct pmf_evsel *e;
	size_t err_off = 0;
	int rc;

	if (!f || !rec || !out || rec->type != PM_RECORD_SAMPLE)
		return pm__err(EINVAL, "pm_file_sample: NULL argument or not a SAMPLE record");
	if (rec->attr_idx < 0 || (size_t)rec->attr_idx >= f->nr_ev)
		return pm__err(ENOENT, "%s: sample at offset %" PRIu64 " matches no attr", PMF_NAME(f),
			       rec->offset);
	e = &f->ev[rec->attr_idx];
	if (!e->layout)
		return pm__err(PM_ERR_UNSUPPORTED, "%s: sample at offset %" PRIu64
			       " not decoded: %s", PMF_NAME(f), rec->offset,
			       e->layout_err ? e->layout_err : "no sample layout");
	rc = pm_sample_parse(out, e->layout, rec->data, rec->size, f->be, &err_off);
	if (rc < 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", pm_errmsg());
		return pm__err(-rc, "%s: sample at offset %" PRIu64 "%s (+%zu in the record): %s", PMF_NAME(f),
			       rec->offset, rec->from_compressed ? " (compressed)" : "", err_off, msg);
	}
	return 0;
}

const char *pm_file_attr_layout_error(const pm_file *f, size_t idx)
{
	if (!f || idx >= f->nr_ev || f->ev[idx].layout)
		return NULL;
	return f->ev[idx].layout_err ? f->ev[idx].layout_err : "no sample layout";
}

/* ------------------------------------------------------------------ */
/* the file as a source of samples for the bulk readers (source_int.h) */

static int pmf_source_next(void *impl, struct pm__srec *o)
{
	pm_file *f = impl;
	struct pmf_rec r;
	int rc;

	do {
		rc = pmf_next_inl(f, &r);
		if (rc <= 0)
			return rc;
	} while (r.type != PM_RECORD_SAMPLE);
	o->data = r.data;
	o->plan = r.attr_idx >= 0 && (size_t)r.attr_idx < f->nr_ev ? f->ev[r.attr_idx].layout : NULL;
	o->offset = r.offset;
	o->size = r.size;
	o->attr_idx = r.attr_idx;
	o->misc = r.misc;
	o->from_comp = r.from_comp;
	return 1;
}

/* One SAMPLE record of the batch, as pmf_source_next() hands it out. */
static inline void pmf_source_out(const pm_file *f, const struct pmf_rec *r, struct pm__srec *o)
{
	o->data = r->data;
	o->plan = r->attr_idx >= 0 && (size_t)r->attr_idx < f->nr_ev ? f->ev[r->attr_idx].layout : NULL;
	o->offset = r->offset;
	o->size = r->size;
	o->attr_idx = r->attr_idx;
	o->misc = r->misc;
	o->from_comp = r->from_comp;
}

/*
 * The due records of the earliest run (rhn > 0, its head due) that come
 * before every other run's head, as pmf_pop_defer() would pop them one by
 * one, with the heap put right once: the SAMPLE ones into o[n, cap); the
 * new n.
 */
static size_t pmf_pop_span(pm_file *f, struct pm__srec *o, size_t n, size_t cap)
{
	struct pmf_run *run = &f->runs[f->rheap[0].run];
	uint64_t bound = f->limit, seq = f->rheap[0].seq;
	size_t k = run->head, qbytes = 0;

	if (f->rhn > 1) {
		/* the head of the next run in order: a record of this run comes
		 * first while its time is earlier, or the same and this run is
		 * the older */
		const struct pmf_rhent *s = &f->rheap[1];

		if (f->rhn > 2 && pmf_rh_less(&f->rheap[2], s))
			s = &f->rheap[2];
		uint64_t sb = s->seq < seq ? s->ts - 1 : s->ts; /* ts > 0: queued records have one */

		if (sb < bound)
			bound = sb;
	}
	while (k < run->end && n < cap && f->ndeferred < PMF_BATCH_MAX && f->q[k].ts <= bound) {
		const struct pmf_qent *e = &f->q[k++];

#if defined(__GNUC__) || defined(__clang__)
		if (k + PMF_POP_AHEAD < run->end && !f->q[k + PMF_POP_AHEAD].inl)
			__builtin_prefetch(f->q[k + PMF_POP_AHEAD].u.p.data);
#endif
		if (f->last_out)
			f->deferred[f->ndeferred++] = f->last_out;
		f->last_out = PMF_QENT_CHUNK(e);
		qbytes += PMF_QENT_BYTES(e->size);
		if (e->type == PM_RECORD_SAMPLE) {
			struct pm__srec *x = &o[n++];

			x->data = PMF_QENT_DATA(e);
			x->plan = e->attr_idx >= 0 && (size_t)e->attr_idx < f->nr_ev ?
					  f->ev[e->attr_idx].layout : NULL;
			x->offset = e->offset;
			x->size = e->size;
			x->attr_idx = e->attr_idx;
			x->misc = e->misc;
			x->from_comp = e->from_comp;
		}
	}
	f->qbytes -= qbytes;
	run->head = k;
	if (k < run->end) {
		f->rheap[0].ts = f->q[k].ts;
		if (f->rhn > 1)
			pmf_rh_down(f, 0);
	} else if (--f->rhn) {
		f->rheap[0] = f->rheap[f->rhn];
		pmf_rh_down(f, 0);
	}
	return n;
}

/*
 * The records pmf_source_next() would give, up to cap at once, with no
 * call per record.  The first record comes from the general path (which
 * may move the window, decompress, take metadata into account or free a
 * chunk); the others only from what leaves every earlier record of the
 * batch in place: in file order the records lying wholly in the window
 * (pmf_fast_next(), which only moves win_pos), in time order the queued
 * records due now (pops, their chunks released at the next call:
 * pmf_q_release_deferred()).  The batch ends where neither applies.
 */
static int pmf_source_next_batch(void *impl, struct pm__srec *o, size_t cap)
{
	pm_file *f = impl;
	struct pmf_rec r;
	size_t n = 0;
	int rc;

	if (cap > PMF_BATCH_MAX)
		cap = PMF_BATCH_MAX;
	do {
		rc = pmf_next_inl(f, &r);
		if (rc <= 0)
			return rc;
	} while (r.type != PM_RECORD_SAMPLE);
	pmf_source_out(f, &r, &o[n++]);
	if (f->raw_order) {
		/* pmf_fast_next()'s records, walked here: only win_pos moves */
		const uint8_t *w = f->win;
		size_t pos = f->win_pos, end = f->win_end;
		bool be = f->be;

		if (f->err || !f->nr_ev || f->dpos < f->dend || f->zin_pos < f->zin_size || f->zmore)
			return (int)n;
		while (n < cap && end - pos >= 8) {
			const uint8_t *p = w + pos;
			uint32_t type = pm__ld32(p, be);
			uint16_t size = pm__ld16(p + 6, be);
			struct pm__srec *x;
			int32_t idx;

			if (type >= PM_RECORD_USER_TYPE_START || size < 8 || size > end - pos)
				break;
#if defined(__GNUC__) || defined(__clang__)
			__builtin_prefetch(p + 2048);
#endif
			pos += size;
			if (type != PM_RECORD_SAMPLE)
				continue;
			idx = pmf_sample_attr(f, p, size);
			x = &o[n++];
			x->data = p;
			x->plan = idx >= 0 ? f->ev[idx].layout : NULL;
			x->offset = f->win_off + (size_t)(p - w);
			x->size = size;
			x->attr_idx = idx;
			x->misc = pm__ld16(p + 4, be);
			x->from_comp = false;
		}
		f->win_pos = pos;
	} else {
		/* pmf_next_inl() released the chunks deferred before */
		while (n < cap && f->ndeferred < PMF_BATCH_MAX && f->draining && f->rhn &&
		       f->rheap[0].ts <= f->limit)
			n = pmf_pop_span(f, o, n, cap);
	}
	return (int)n;
}

static size_t pmf_source_nr_attrs(const void *impl)
{
	return ((const pm_file *)impl)->nr_ev;
}

static const struct pm_attr *pmf_source_attr(const void *impl, size_t idx)
{
	return pm_file_attr(impl, idx);
}

static const pm_sample_layout *pmf_source_plan(const void *impl, size_t idx)
{
	const pm_file *f = impl;

	return idx < f->nr_ev ? f->ev[idx].layout : NULL;
}

static int pmf_source_sample(const void *impl, const struct pm__srec *r, struct pm_sample *out)
{
	struct pm_file_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.sz = sizeof(rec);
	rec.type = PM_RECORD_SAMPLE;
	rec.misc = r->misc;
	rec.size = r->size;
	rec.attr_idx = r->attr_idx;
	rec.data = r->data;
	rec.offset = r->offset;
	rec.from_compressed = r->from_comp;
	rec.big_endian = ((const pm_file *)impl)->be;
	return pm_file_sample(impl, &rec, out);
}

void pm__source_file(struct pm__source *s, pm_file *f)
{
	s->impl = f;
	s->be = f->be;
	s->file_offsets = true;
	s->next = pmf_source_next;
	s->next_batch = f->no_fast ? NULL : pmf_source_next_batch;
	s->nr_attrs = pmf_source_nr_attrs;
	s->attr = pmf_source_attr;
	s->plan = pmf_source_plan;
	s->sample = pmf_source_sample;
}

size_t pm_file_min_sample_size(const pm_file *f)
{
	size_t best = 0;

	for (size_t i = 0; f && i < f->nr_ev; i++) {
		size_t n = f->ev[i].layout ? pm_sample_layout_min_size(f->ev[i].layout) : 0;

		if (n && (!best || n < best))
			best = n;
	}
	return best;
}

int pm_file_record_parse(const pm_file *f, const struct pm_file_record *rec, struct pm_record *out)
{
	const pm_sample_layout *l = NULL;
	size_t err_off = 0;
	int rc;

	if (!f || !rec || !out)
		return pm__err(EINVAL, "pm_file_record_parse: NULL argument");
	if (rec->type < PM_RECORD_USER_TYPE_START) {
		if (rec->attr_idx >= 0 && (size_t)rec->attr_idx < f->nr_ev)
			l = f->ev[rec->attr_idx].layout;
		else if (f->nr_ev)
			l = f->ev[0].layout;
	}
	rc = pm_record_parse(out, l, rec->data, rec->size, f->be, &err_off);
	if (rc < 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", pm_errmsg());
		return pm__err(-rc, "%s: record at offset %" PRIu64 " (+%zu): %s", PMF_NAME(f), rec->offset,
			       err_off, msg);
	}
	return 0;
}
