/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* pm_columns_opts.sym: the column reader keeps the records a symbolizer
 * learns from while it reads the samples, and pm_columns_resolve_rows()
 * replays those instead of reading the file a second time. */
#include <stdio.h>
#include <stdlib.h>

#include <profileme/export.h>
#include <profileme/record.h>

#include "internal/pm_internal.h"
#include "internal/source_int.h"
#include "internal/sym_columns_int.h"
#include "export/columns_int.h"

/* One kept record: the fields of its pm_file_record, its bytes at data_off
 * of the arena, and the SAMPLE records before it in the file. */
struct side_rec {
	uint64_t offset, time, nsamples;
	size_t data_off;
	uint32_t type, size;
	int32_t attr_idx;
	uint16_t misc;
	bool from_comp;
};

struct pm__columns_side {
	struct pm__source inner; /* the file's own source */
	pm_file *file;
	pm_sym *sym;
	struct side_rec *v;
	size_t n, cap;
	uint8_t *bytes;
	size_t nbytes, capbytes;
	uint64_t nsamples; /* SAMPLE records handed out or not */
	bool ended;	   /* the file's end (or error) was reached */
	int end_rc;	   /* 0, or the reading error */
	char *end_msg;	   /* its message */
	bool kernel;	   /* a kernel sample was seen: kernel symbols requested */
	size_t pos;	   /* the replay's next record */
	bool replayed;	   /* pm_columns_resolve_rows() ran (once: it teaches the symbolizer) */
};

void pm__columns_side_free(struct pm__columns_side *sd)
{
	if (!sd)
		return;
	free(sd->v);
	free(sd->bytes);
	free(sd->end_msg);
	free(sd);
}

static bool side_type(uint32_t type)
{
	/* the records pm_sym_add_record() and the thread names learn from */
	return type == PM_RECORD_MMAP || type == PM_RECORD_MMAP2 || type == PM_RECORD_COMM ||
	       type == PM_RECORD_FORK || type == PM_RECORD_EXIT;
}

static int side_keep(struct pm__columns_side *sd, const struct pm_file_record *rec)
{
	size_t at = (sd->nbytes + 7) & ~(size_t)7;
	struct side_rec *e;

	if (sd->n == sd->cap) {
		size_t cap = sd->cap ? sd->cap * 2 : 64;
		struct side_rec *v = pm__reallocarray(sd->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		sd->v = v;
		sd->cap = cap;
	}
	if (rec->size > SIZE_MAX - at)
		return -ENOMEM;
	if (at + rec->size > sd->capbytes) {
		size_t cap = sd->capbytes ? sd->capbytes : 4096;
		uint8_t *b;

		while (cap < at + rec->size)
			cap *= 2;
		b = realloc(sd->bytes, cap);
		if (!b)
			return -ENOMEM;
		sd->bytes = b;
		sd->capbytes = cap;
	}
	memcpy(sd->bytes + at, rec->data, rec->size);
	sd->nbytes = at + rec->size;
	e = &sd->v[sd->n++];
	e->offset = rec->offset;
	e->time = rec->time;
	e->nsamples = sd->nsamples;
	e->data_off = at;
	e->type = rec->type;
	e->size = rec->size;
	e->attr_idx = rec->attr_idx;
	e->misc = rec->misc;
	e->from_comp = rec->from_compressed != 0;
	return 0;
}

static void side_end(struct pm__columns_side *sd, int rc)
{
	if (sd->ended)
		return;
	sd->ended = true;
	sd->end_rc = rc < 0 ? rc : 0;
	if (rc < 0)
		sd->end_msg = pm__strndup(pm_errmsg(), strlen(pm_errmsg()));
}

/* The file's records by pm_file_next(), as the symbolizer's replay reads
 * them: side records kept, SAMPLE records handed out. */
static int side_next(void *impl, struct pm__srec *o)
{
	struct pm__columns_side *sd = impl;
	struct pm_file_record rec = { .sz = sizeof(rec) };
	int rc;

	for (;;) {
		rc = pm_file_next(sd->file, &rec);
		if (rc <= 0) {
			side_end(sd, rc);
			return rc;
		}
		if (rec.type == PM_RECORD_SAMPLE)
			break;
		if (side_type(rec.type) && (rc = side_keep(sd, &rec)) < 0) {
			rc = pm__err(-rc, "pm_columns: keeping the side records: %s", pm_strerror(rc));
			side_end(sd, rc);
			return rc;
		}
	}
	sd->nsamples++;
	if (!sd->kernel && pm_sym_lookup_how(rec.misc & 7) == PM_SYM_LOOKUP_KERNEL) {
		/* read while the rows are: pm_columns_resolve_rows() needs them */
		sd->kernel = true;
		pm__sym_kernel_prefetch(sd->sym);
	}
	o->data = rec.data;
	o->plan = rec.attr_idx >= 0 && (size_t)rec.attr_idx < sd->inner.nr_attrs(sd->inner.impl) ?
			  sd->inner.plan(sd->inner.impl, (size_t)rec.attr_idx) :
			  NULL;
	o->offset = rec.offset;
	o->size = rec.size;
	o->attr_idx = rec.attr_idx;
	o->misc = rec.misc;
	o->from_comp = rec.from_compressed != 0;
	return 1;
}

static size_t side_nr_attrs(const void *impl)
{
	const struct pm__columns_side *sd = impl;

	return sd->inner.nr_attrs(sd->inner.impl);
}

static const struct pm_attr *side_attr(const void *impl, size_t idx)
{
	const struct pm__columns_side *sd = impl;

	return sd->inner.attr(sd->inner.impl, idx);
}

static const pm_sample_layout *side_plan(const void *impl, size_t idx)
{
	const struct pm__columns_side *sd = impl;

	return sd->inner.plan(sd->inner.impl, idx);
}

static int side_sample(const void *impl, const struct pm__srec *r, struct pm_sample *out)
{
	const struct pm__columns_side *sd = impl;

	return sd->inner.sample(sd->inner.impl, r, out);
}

int pm__columns_side_init(pm_columns *c, pm_sym *sym)
{
	struct pm__columns_side *sd;

	if (!c->file)
		return pm__err(EINVAL, "pm_columns_opts.sym: only for a reader of a file");
	if (c->threads > 1)
		return pm__err(EINVAL, "pm_columns_opts.sym: only with one thread (threads %d)", c->threads);
	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return -ENOMEM;
	sd->inner = c->src;
	sd->file = c->file;
	sd->sym = sym;
	c->src.impl = sd;
	c->src.next = side_next;
	c->src.next_batch = NULL; /* side_next() sees every record */
	c->src.nr_attrs = side_nr_attrs;
	c->src.attr = side_attr;
	c->src.plan = side_plan;
	c->src.sample = side_sample;
	c->side = sd;
	return 0;
}

/* The replay's records (pm__sym_resolve_rows_from()): the kept ones, then
 * the end as the read met it. */
static int side_replay_next(void *it, struct pm_file_record *rec, uint64_t *nsamples)
{
	struct pm__columns_side *sd = it;
	const struct side_rec *e;

	if (sd->pos == sd->n) {
		*nsamples = sd->nsamples;
		if (sd->end_rc < 0)
			return pm__err(-sd->end_rc, "%s", sd->end_msg ? sd->end_msg : pm_strerror(sd->end_rc));
		return 0;
	}
	e = &sd->v[sd->pos++];
	memset(rec, 0, sizeof(*rec));
	rec->sz = sizeof(*rec);
	rec->type = e->type;
	rec->misc = e->misc;
	rec->size = e->size;
	rec->attr_idx = e->attr_idx;
	rec->data = sd->bytes + e->data_off;
	rec->offset = e->offset;
	rec->time = e->time;
	rec->from_compressed = e->from_comp;
	rec->big_endian = sd->inner.be;
	*nsamples = e->nsamples;
	return 1;
}

int pm_columns_resolve_rows(pm_columns *c, const struct pm_sym_rows *rows)
{
	if (!c || !rows)
		return pm__err(EINVAL, "pm_columns_resolve_rows: NULL argument");
	if (!c->side)
		return pm__err(EINVAL, "pm_columns_resolve_rows: the reader has no symbolizer "
				       "(pm_columns_opts.sym)");
	if (!c->side->ended)
		return pm__err(EINVAL, "pm_columns_resolve_rows: the reader has not read to the end "
				       "of the file yet");
	if (c->side->replayed)
		return pm__err(EINVAL, "pm_columns_resolve_rows: once per reader (the replay has taught "
				       "the symbolizer the recording's end already)");
	c->side->replayed = true;
	c->side->pos = 0;
	return pm__sym_resolve_rows_from(c->side->sym, c->file, rows, side_replay_next, c->side);
}
