/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * perf.data reader, stage 4: time ordering.  Records pushed in file order
 * form runs of non-decreasing time (one per CPU ring within a round,
 * typically), merged through a small heap of runs; FINISHED_ROUND and the
 * reorder bound decide when queued records are due (pmf_next()).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "reader_int.h"

/* ------------------------------------------------------------------ */
/* time ordering */


/* copy space for a queued record: the chunk's live count is taken */
static uint8_t *pmf_q_alloc(pm_file *f, size_t size, struct pmf_chunk **chunk)
{
	size_t need = (size + 7) & ~(size_t)7;
	struct pmf_chunk *c = f->cur_chunk;
	uint8_t *p;

	if (!c || c->cap - c->used < need) {
		size_t cap = PM_MAX(need, PMF_CHUNK);

		if (c && !c->live && c->cap >= need) {
			c->used = 0; /* nothing of it is in use: rewind */
		} else {
			if (c && !c->live)
				free(c);
			if (f->spare_chunk && f->spare_chunk->cap >= need) {
				c = f->spare_chunk;
				f->spare_chunk = NULL;
			} else {
				c = malloc(sizeof(*c) + cap);
				if (!c)
					return NULL;
				c->cap = cap;
			}
			c->used = 0;
			c->live = 0;
			f->cur_chunk = c;
		}
	}
	p = c->data + c->used;
	c->used += need;
	c->live++;
	*chunk = c;
	return p;
}




static void pmf_rh_up(pm_file *f, size_t i)
{
	struct pmf_rhent *h = f->rheap, x = h[i];

	while (i) {
		size_t p = (i - 1) / 2;

		if (!pmf_rh_less(&x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

/* Drop exhausted runs and move the live records of q to its start; the
 * run heap is rebuilt (run indices change). */
static void pmf_q_compact(pm_file *f)
{
	size_t w = 0, nr = 0;

	for (size_t i = 0; i < f->nruns; i++) {
		struct pmf_run *r = &f->runs[i];
		size_t n = r->end - r->head;

		if (!n)
			continue;
		if (r->head != w)
			memmove(&f->q[w], &f->q[r->head], n * sizeof(*f->q));
		f->runs[nr].done = w + (r->done > r->head ? r->done - r->head : 0);
		f->runs[nr].head = w;
		f->runs[nr].end = w + n;
		f->runs[nr].seq = r->seq; /* runs keep their order */
		f->rheap[nr].ts = f->q[w].ts;
		f->rheap[nr].seq = r->seq;
		f->rheap[nr].run = nr;
		w += n;
		nr++;
	}
	f->nruns = nr;
	f->qend = w;
	f->rhn = nr;
	for (size_t i = nr / 2; i-- > 0;)
		pmf_rh_down(f, i);
}

static int pmf_q_push(pm_file *f, const struct pmf_rec *r)
{
	struct pmf_run *run = f->nruns ? &f->runs[f->nruns - 1] : NULL;
	struct pmf_qent *e;

	if (f->qend == f->qcap) {
		size_t live = 0;

		for (size_t i = 0; i < f->nruns; i++)
			live += f->runs[i].end - f->runs[i].head;
		if (f->qcap && live <= f->qcap / 2) {
			pmf_q_compact(f);
		} else {
			size_t nc = f->qcap ? f->qcap * 2 : 4096;
			struct pmf_qent *n = pm__reallocarray(f->q, nc, sizeof(*n));

			if (!n)
				return -ENOMEM;
			f->q = n;
			f->qcap = nc;
		}
		run = f->nruns ? &f->runs[f->nruns - 1] : NULL;
	}
	e = &f->q[f->qend];
	e->ts = r->time;
	e->offset = r->offset;
	e->size = r->size;
	e->attr_idx = r->attr_idx;
	e->misc = r->misc;
	e->type = (uint8_t)r->type;
	e->from_comp = r->from_comp;
	e->inl = r->size <= PMF_QENT_INLINE;
	if (e->inl) {
		memcpy(e->u.bytes, r->data, r->size);
	} else if (!r->from_comp) {
		e->u.p.data = r->data; /* stays in the window until it moves on */
		e->u.p.chunk = NULL;
	} else {
		uint8_t *p = pmf_q_alloc(f, r->size, &e->u.p.chunk);

		if (!p)
			return -ENOMEM;
		memcpy(p, r->data, r->size);
		e->u.p.data = p;
	}
	if (run && run->end == f->qend && run->head < run->end && r->time >= f->q[run->end - 1].ts) {
		run->end++; /* the open run goes on */
	} else {
		struct pmf_rhent *h;

		if (f->nruns == f->cap_runs) {
			size_t nc = f->cap_runs ? f->cap_runs * 2 : 64;
			struct pmf_run *n = pm__reallocarray(f->runs, nc, sizeof(*n));

			if (!n)
				goto nomem;
			f->runs = n;
			f->cap_runs = nc;
		}
		if (f->rhn == f->cap_rheap) {
			size_t nc = f->cap_rheap ? f->cap_rheap * 2 : 64;
			struct pmf_rhent *n = pm__reallocarray(f->rheap, nc, sizeof(*n));

			if (!n)
				goto nomem;
			f->rheap = n;
			f->cap_rheap = nc;
		}
		f->runs[f->nruns].head = f->qend;
		f->runs[f->nruns].done = f->qend;
		f->runs[f->nruns].end = f->qend + 1;
		f->runs[f->nruns].seq = f->runs_seq;
		h = &f->rheap[f->rhn++];
		h->ts = r->time;
		h->seq = f->runs_seq++;
		h->run = f->nruns++;
		pmf_rh_up(f, f->rhn - 1);
	}
	f->qend++;
	f->qbytes += PMF_QENT_BYTES(r->size);
	if (r->time > f->max_ts)
		f->max_ts = r->time;
	return 0;
nomem:
	if (PMF_QENT_CHUNK(e))
		pmf_chunk_release(f, e->u.p.chunk);
	return -ENOMEM;
}

/* pmf_q_push() when the record continues the open run and q has room. */
static inline bool pmf_q_push_fast(pm_file *f, const struct pmf_rec *r)
{
	struct pmf_run *run;
	struct pmf_qent *e;

	if (f->qend == f->qcap || !f->nruns || r->from_comp)
		return false;
	run = &f->runs[f->nruns - 1];
	if (run->end != f->qend || run->head == run->end || r->time < f->q[run->end - 1].ts)
		return false;
	e = &f->q[f->qend++];
	e->ts = r->time;
	e->offset = r->offset;
	e->size = r->size;
	e->attr_idx = r->attr_idx;
	e->misc = r->misc;
	e->type = (uint8_t)r->type;
	e->from_comp = 0;
	e->inl = r->size <= PMF_QENT_INLINE;
	if (e->inl) {
		memcpy(e->u.bytes, r->data, r->size);
	} else {
		e->u.p.data = r->data;
		e->u.p.chunk = NULL;
	}
	run->end++;
	f->qbytes += PMF_QENT_BYTES(r->size);
	if (r->time > f->max_ts)
		f->max_ts = r->time;
	return true;
}


/*
 * pmf_next()'s reading for its common records, in one loop: SAMPLE records
 * lying wholly in the window (no decompressed bytes pending) whose time
 * stamp continues the open run, while q has room, pushed as pmf_q_push()
 * would, and the reorder bound checked after each as pmf_next() does.  It
 * stops before any other record (which the general loop then reads) and
 * when the bound starts a drain.
 */
static void pmf_q_push_window(pm_file *f)
{
	const uint8_t *w = f->win;
	size_t pos = f->win_pos, end = f->win_end, qend = f->qend, qbytes = f->qbytes;
	uint64_t last, max_ts = f->max_ts;
	struct pmf_run *run;
	bool be = f->be;

	if (f->no_fast || f->err || f->twin || !f->nr_ev || !f->nruns || f->dpos < f->dend ||
	    f->zin_pos < f->zin_size || f->zmore)
		return;
	run = &f->runs[f->nruns - 1];
	if (run->end != qend || run->head == run->end)
		return;
	last = f->q[qend - 1].ts;
	while (qend < f->qcap && end - pos >= 8) {
		const uint8_t *p = w + pos;
		uint32_t type = pm__ld32(p, be);
		uint16_t size = pm__ld16(p + 6, be);
		const struct pmf_evsel *ev;
		struct pmf_qent *e;
		int32_t idx;
		uint64_t ts;

		if (type != PM_RECORD_SAMPLE || size < 8 || size > end - pos)
			break;
		idx = pmf_sample_attr(f, p, size);
		ev = &f->ev[idx < 0 ? 0 : idx];
		if (ev->pos.time_off < 0 || (uint64_t)ev->pos.time_off + 8 > size)
			break;
		ts = pm__ld64(p + ev->pos.time_off, be);
		if (!ts || ts == PM_FILE_NO_TIME || ts < last)
			break;
#if defined(__GNUC__) || defined(__clang__)
		__builtin_prefetch(p + 2048);
#endif
		e = &f->q[qend++];
		e->ts = ts;
		e->offset = f->win_off + pos;
		e->size = size;
		e->attr_idx = idx;
		e->misc = pm__ld16(p + 4, be);
		e->type = PM_RECORD_SAMPLE;
		e->from_comp = 0;
		e->inl = size <= PMF_QENT_INLINE;
		if (e->inl) {
			/* a copy of constant size (one or two stores) when the
			 * window holds that many bytes; those past the record
			 * are never read */
			if (end - pos >= PMF_QENT_INLINE)
				memcpy(e->u.bytes, p, PMF_QENT_INLINE);
			else
				memcpy(e->u.bytes, p, size);
		} else {
			e->u.p.data = p;
			e->u.p.chunk = NULL;
		}
		pos += size;
		last = ts;
		if (ts > max_ts)
			max_ts = ts;
		qbytes += PMF_QENT_BYTES(size);
		if (qbytes > f->reorder_max) {
			uint64_t lo = f->rheap[0].ts;

			f->limit = lo + (max_ts - lo) / 2;
			f->draining = true;
			break;
		}
	}
	run->end += qend - f->qend;
	f->qend = qend;
	f->qbytes = qbytes;
	f->max_ts = max_ts;
	f->win_pos = pos;
}

/*
 * Before the read buffer [buf, buf + len) is reused: copy out the queued
 * records that point into it.  Within a run, records pointing into a buffer
 * were pushed after those pointing into the buffer used before it, so each
 * run is scanned from its done mark to its first record in another buffer.
 */
int pmf_q_evacuate(pm_file *f, const uint8_t *buf, size_t len)
{
	uintptr_t lo = (uintptr_t)buf, hi = lo + len;

	if (!buf)
		return 0;
	for (size_t i = 0; i < f->nruns; i++) {
		struct pmf_run *run = &f->runs[i];
		size_t k = PM_MAX(run->head, run->done);

		for (; k < run->end; k++) {
			struct pmf_qent *e = &f->q[k];
			uint8_t *p;

			if (e->inl || e->u.p.chunk)
				continue;
			if ((uintptr_t)e->u.p.data < lo || (uintptr_t)e->u.p.data >= hi)
				break;
			p = pmf_q_alloc(f, e->size, &e->u.p.chunk);
			if (!p)
				return pm__err(ENOMEM, "%s: no memory to sort records", PMF_NAME(f));
			memcpy(p, e->u.p.data, e->size);
			e->u.p.data = p;
		}
		run->done = k;
	}
	return 0;
}

void pmf_q_free(pm_file *f)
{
	for (size_t i = 0; i < f->nruns; i++)
		for (size_t k = f->runs[i].head; k < f->runs[i].end; k++)
			if (PMF_QENT_CHUNK(&f->q[k]))
				pmf_chunk_release(f, f->q[k].u.p.chunk);
	pmf_q_release_deferred(f);
	if (f->last_out)
		pmf_chunk_release(f, f->last_out);
	free(f->q);
	free(f->runs);
	free(f->rheap);
	free(f->cur_chunk);
	free(f->spare_chunk);
}
/* pm_file_next() without the public struct: the next record in order. */
int pmf_next(pm_file *f, struct pmf_rec *r)
{
	int rc;

	pmf_q_release_deferred(f);
	if (f->last_out) {
		pmf_chunk_release(f, f->last_out);
		f->last_out = NULL;
	}
	if (f->raw_order)
		return !f->err && pmf_fast_next(f, r) ? 1 : pmf_meta_next(f, r);
	for (;;) {
		if (f->draining) {
			if (f->rhn && f->rheap[0].ts <= f->limit) {
				pmf_pop_out(f, r);
				return 1;
			}
			f->draining = false;
			if (f->held) {
				f->held = false;
				*r = f->held_rec;
				return 1;
			}
			if (f->final)
				return f->err; /* 0 at a clean end */
		}
		/* the common samples pushed in one go */
		pmf_q_push_window(f);
		if (f->draining)
			continue;
		/* the common record (a kernel record in the window) inline */
		if (f->err || !pmf_fast_next(f, r)) {
			rc = pmf_meta_next(f, r);
			if (rc <= 0) {
				f->final = f->draining = true;
				f->limit = UINT64_MAX;
				continue;
			}
		}
		if (r->type < PM_RECORD_USER_TYPE_START && r->time != PM_FILE_NO_TIME && r->time) {
			if (f->twin && r->type == PM_RECORD_SAMPLE &&
			    (r->time < f->twin_lo || r->time >= f->twin_hi))
				continue; /* another chunk's sample (chunks.c) */
			if (!pmf_q_push_fast(f, r) && (rc = pmf_q_push(f, r)) != 0)
				return pmf_fail(f, pm__err(-rc, "%s: no memory to sort records", PMF_NAME(f)),
						r->offset);
			if (f->qbytes > f->reorder_max) {
				uint64_t lo = f->rheap[0].ts;

				f->limit = lo + (f->max_ts - lo) / 2;
				f->draining = true;
			}
			continue;
		}
		if (r->type == PM_RECORD_FINISHED_ROUND) {
			f->limit = f->next_flush;
			f->next_flush = f->max_ts;
			f->held = true;
			f->held_rec = *r;
			f->draining = true;
			continue;
		}
		return 1;
	}
}
