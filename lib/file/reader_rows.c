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
