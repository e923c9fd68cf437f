/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * An opened event list as a source of SAMPLE records for the bulk readers
 * (internal/source_int.h): what pm_columns_new_from_evlist() reads.
 *
 * Order: the rings are visited in turn (ring 0, 1, ... and round again);
 * a visit takes a snapshot of the ring's data_head and hands out the
 * records up to it, so a busy ring cannot starve the others.  Within a ring
 * the records are in the ring's (time) order; across rings they are not
 * merged (pm_evlist_drain_ordered() is the time-ordered reader).  A read is
 * over when one round finds every ring empty: it returned what the rings
 * held then, and a later read gets what the kernel wrote since.
 *
 * Records stay in place: a record handed out is given back to the kernel
 * (data_tail) at the next call, when the reader is done with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/source_int.h"
#include "ring/ring_int.h"

struct pm__evsrc {
	pm_evlist *el;
	size_t nr_rings;
	size_t ring;          /* the ring being visited */
	bool in_visit;        /* its snapshot is taken */
	bool visit_got;       /* the visit handed out a record */
	size_t empty;         /* consecutive visits that found nothing */
	long pending;         /* ring of the record handed out last, -1: none */
	bool overwrite;
	bool *dead;           /* per ring: impossible framing, reported once */
	struct pm_attr *attrs; /* as opened */
	size_t nr_attrs;
	pm_ring_record_fn tee;
	void *tee_user;
};

static void evsrc_next_ring(struct pm__evsrc *s)
{
	if (!s->visit_got)
		s->empty++;
	s->in_visit = false;
	s->visit_got = false;
	s->ring = (s->ring + 1) % s->nr_rings;
}

static int evsrc_next(void *impl, struct pm__srec *o)
{
	struct pm__evsrc *s = impl;
	const void *rec;
	size_t size;
	int rc;

	if (!pm__evlist_is_open(s->el) || pm_evlist_nr_rings(s->el) != s->nr_rings)
		return pm__err(EINVAL, "live samples: the event list was closed under its reader");
	if (s->pending >= 0) {
		pm_ring_consume(pm_evlist_ring(s->el, (size_t)s->pending));
		s->pending = -1;
	}
	while (s->nr_rings && s->empty < s->nr_rings) {
		size_t i = s->ring;
		pm_ring *r = pm_evlist_ring(s->el, i);
		uint32_t type;

		if (s->dead[i]) {
			evsrc_next_ring(s);
			continue;
		}
		if (s->overwrite) {
			s->in_visit = true;
			rc = pm_ring_next(r, &rec, &size);
		} else {
			if (!s->in_visit) {
				rc = pm__ring_snapshot(r);
				if (rc)
					goto broken;
				s->in_visit = true;
			}
			rc = pm__ring_peek_at(r, pm__ring_pos(r), &rec, &size);
			if (rc == 1)
				pm__ring_advance(r, rec, size);
		}
		if (rc < 0)
			goto broken;
		if (rc == 0) {
			evsrc_next_ring(s);
			continue;
		}
		s->pending = (long)i;
		s->visit_got = true;
		s->empty = 0;
		if (s->tee) {
			rc = s->tee(rec, size, s->tee_user);
			if (rc < 0)
				return rc;
		}
		type = pm__ld32(rec, pm__host_big_endian());
		if (type != PM_RECORD_SAMPLE)
			continue;
		o->data = rec;
		o->size = (uint32_t)size;
		o->misc = pm__ld16((const uint8_t *)rec + 4, pm__host_big_endian());
		o->offset = 0;
		o->from_comp = false;
		rc = pm_evlist_event_of(s->el, rec, size);
		o->attr_idx = rc >= 0 ? rc : -1;
		o->plan = rc >= 0 ? pm__evlist_layout(s->el, (size_t)rc) : NULL;
		return 1;
	}
	/* A round found every ring empty: the next read starts a new one. */
	s->empty = 0;
	return 0;
broken:
	{
		char why[256];
		size_t bad = s->ring;

		snprintf(why, sizeof(why), "%s", pm_errmsg());
		s->dead[bad] = true;
		evsrc_next_ring(s);
		/* A read that ends here did not find every ring empty: the next
		 * one starts a round of its own (the other rings may hold records
		 * it has not visited; fuzz_live). */
		s->empty = 0;
		return pm__err(PM_ERR_CORRUPT, "live samples: ring %zu is not read any more: %s", bad,
			       why);
	}
}

static size_t evsrc_nr_attrs(const void *impl)
{
	return ((const struct pm__evsrc *)impl)->nr_attrs;
}

static const struct pm_attr *evsrc_attr(const void *impl, size_t idx)
{
	const struct pm__evsrc *s = impl;

	return idx < s->nr_attrs ? &s->attrs[idx] : NULL;
}

static const pm_sample_layout *evsrc_plan(const void *impl, size_t idx)
{
	const struct pm__evsrc *s = impl;

	return idx < s->nr_attrs ? pm__evlist_layout(s->el, idx) : NULL;
}

static int evsrc_sample(const void *impl, const struct pm__srec *r, struct pm_sample *out)
{
	const struct pm__evsrc *s = impl;
	char why[256];
	int rc = pm_evlist_sample(s->el, r->data, r->size, out);

	if (rc >= 0)
		return rc;
	snprintf(why, sizeof(why), "%s", pm_errmsg());
	return pm__err(-rc, "live sample in ring %ld: %s", s->pending, why);
}

static void evsrc_fini(void *impl)
{
	struct pm__evsrc *s = impl;

	/* The list is not touched (it may be gone): the record handed out
	 * last is past the ring's read position already, and the next
	 * consume of that ring (a drain, another reader) gives it back. */
	if (!s)
		return;
	free(s->dead);
	free(s->attrs);
	free(s);
}

static int evsrc_tee(void *impl, pm_ring_record_fn fn, void *user)
{
	struct pm__evsrc *s = impl;

	s->tee = fn;
	s->tee_user = fn ? user : NULL;
	return 0;
}

int pm__source_evlist(struct pm__source *src, pm_evlist *el)
{
	struct pm__evsrc *s;

	if (!pm__evlist_is_open(el))
		return pm__err(EINVAL, "live samples: the event list is not open (pm_evlist_open())");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->el = el;
	s->pending = -1;
	s->nr_rings = pm_evlist_nr_rings(el);
	s->overwrite = pm__evlist_overwrite(el);
	s->nr_attrs = pm_evlist_count(el);
	s->dead = calloc(s->nr_rings ? s->nr_rings : 1, sizeof(*s->dead));
	s->attrs = calloc(s->nr_attrs ? s->nr_attrs : 1, sizeof(*s->attrs));
	if (!s->dead || !s->attrs) {
		evsrc_fini(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_attrs; i++)
		pm_evlist_attr(el, i, &s->attrs[i]);
	memset(src, 0, sizeof(*src));
	src->impl = s;
	src->be = pm__host_big_endian();
	src->file_offsets = false;
	src->strict = true;
	src->next = evsrc_next;
	src->nr_attrs = evsrc_nr_attrs;
	src->attr = evsrc_attr;
	src->plan = evsrc_plan;
	src->sample = evsrc_sample;
	src->fini = evsrc_fini;
	src->tee = evsrc_tee;
	return 0;
}
