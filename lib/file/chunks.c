/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Chunk index: a recording cut into pieces that decode independently
 * (profileme/file.h, "Chunks"; docs/file.md "Chunks").
 *
 * The scan reads the data once in file order (its own reader on the file's
 * descriptor) and summarises blocks of records: a block ends at each
 * FINISHED_ROUND, or after block_max bytes at a record boundary.  For each
 * block: its start offset and the smallest and largest time stamp of its
 * samples.  Chunks are runs of whole blocks.  A cut
 * before block j gets the time bound T = min time of every record from
 * block j on (a suffix minimum): no sample after the cut is earlier than T,
 * so the samples earlier than T all lie before the cut.  Chunk k hands out
 * the samples with T_k <= time < T_k+1; it reads from the first block whose
 * samples reach T_k (a prefix maximum) to its end.  Other records are
 * handed out by every chunk whose bytes hold them: the chunks overlap in
 * [read_start, start).  This uses no property
 * of perf's rounds, so it is exact for any file whose samples all carry a
 * time; the rounds only keep the overlap (read_start .. start) small.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "reader_int.h"

#define PMC_DEFAULT_CHUNK (64ull << 20)

struct pmc_block {
	uint64_t start;
	uint64_t tmin, tmax; /* UINT64_MAX, 0 when the block has no timed sample */
};

struct pm_chunk_index {
	struct pm_file_chunk *c;
	size_t n;
	bool have_times;
	uint64_t first, last;
};

void pm_chunk_index_free(pm_chunk_index *idx)
{
	if (!idx)
		return;
	free(idx->c);
	free(idx);
}

size_t pm_chunk_index_count(const pm_chunk_index *idx)
{
	return idx ? idx->n : 0;
}

int pm_chunk_index_get(const pm_chunk_index *idx, size_t i, struct pm_file_chunk *out)
{
	int rc;

	if (!idx || !out)
		return pm__err(EINVAL, "pm_chunk_index_get: NULL argument");
	rc = PM__SZ_VALID(out, pm_file_chunk, PM_FILE_CHUNK_SZ_V1);
	if (rc)
		return rc;
	if (i >= idx->n)
		return pm__err(ENOENT, "chunk %zu out of range (the index has %zu)", i, idx->n);
	pm__struct_copy_out(out, out->sz, &idx->c[i], sizeof(idx->c[i]));
	return 0;
}

int pm_chunk_index_time_range(const pm_chunk_index *idx, uint64_t *first, uint64_t *last)
{
	if (!idx || !first || !last)
		return pm__err(EINVAL, "pm_chunk_index_time_range: NULL argument");
	if (!idx->have_times)
		return pm__err(ENOENT, "no sample times known (no timed samples, or not scanned)");
	*first = idx->first;
	*last = idx->last;
	return 0;
}

static int pmc_one(pm_chunk_index *idx, const pm_file *f, uint64_t data_end)
{
	struct pm_file_chunk *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->sz = sizeof(*c);
	c->start = c->read_start = f->info.data_offset;
	c->end = data_end;
	c->time_lo = 0;
	c->time_hi = UINT64_MAX;
	c->flags = PM_CHUNK_WHOLE;
	if (idx->have_times) {
		c->flags |= PM_CHUNK_TIME_KNOWN;
		c->time_min = idx->first;
		c->time_max = idx->last;
	}
	c->data_offset = f->info.data_offset;
	c->data_end = data_end;
	idx->c = c;
	idx->n = 1;
	return 0;
}

static int pmc_push(struct pmc_block **b, size_t *n, size_t *cap, uint64_t start)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct pmc_block *t = pm__reallocarray(*b, nc, sizeof(*t));

		if (!t)
			return -ENOMEM;
		*b = t;
		*cap = nc;
	}
	(*b)[*n] = (struct pmc_block){ start, UINT64_MAX, 0 };
	(*n)++;
	return 0;
}

/* Chunks over the blocks: windowed (every sample timed) or plain ranges. */
static int pmc_cut(pm_chunk_index *idx, const pm_file *f, struct pmc_block *b, size_t nb,
		   uint64_t data_end, uint64_t chunk_bytes, bool windows)
{
	uint64_t *smin = NULL, *pmax = NULL;
	size_t *cuts = NULL, ncut = 0;
	int rc = -ENOMEM;

	smin = calloc(nb + 1, sizeof(*smin));
	pmax = calloc(nb, sizeof(*pmax));
	cuts = calloc(nb, sizeof(*cuts));
	if (!smin || !pmax || !cuts)
		goto out;
	smin[nb] = UINT64_MAX;
	for (size_t j = nb; j-- > 0;)
		smin[j] = PM_MIN(smin[j + 1], b[j].tmin);
	for (size_t j = 0; j < nb; j++)
		pmax[j] = PM_MAX(j ? pmax[j - 1] : 0, b[j].tmax);
	/* cuts[]: the first block of each chunk */
	cuts[ncut++] = 0;
	for (size_t j = 1; j < nb; j++) {
		uint64_t from = b[cuts[ncut - 1]].start;

		if (b[j].start - from < chunk_bytes || data_end - b[j].start < chunk_bytes / 4)
			continue; /* too small, or leaves a tail too small to be worth a chunk */
		if (windows && (smin[j] == UINT64_MAX || smin[j] <= (ncut > 1 ? smin[cuts[ncut - 1]] : idx->first)))
			continue; /* no later sample, or no later time bound */
		cuts[ncut++] = j;
	}
	idx->c = calloc(ncut, sizeof(*idx->c));
	if (!idx->c)
		goto out;
	idx->n = ncut;
	for (size_t k = 0; k < ncut; k++) {
		struct pm_file_chunk *c = &idx->c[k];
		size_t j = cuts[k];

		c->sz = sizeof(*c);
		c->index = (uint32_t)k;
		c->start = k ? b[j].start : f->info.data_offset;
		c->end = k + 1 < ncut ? b[cuts[k + 1]].start : data_end;
		c->read_start = c->start;
		c->time_lo = 0;
		c->time_hi = UINT64_MAX;
		c->data_offset = f->info.data_offset;
		c->data_end = data_end;
		if (windows) {
			c->flags = PM_CHUNK_TIME_WINDOW;
			if (k) {
				size_t i = 0;

				c->time_lo = smin[j];
				/* the first block holding a record not earlier than time_lo */
				while (i < j && pmax[i] < c->time_lo)
					i++;
				c->read_start = PM_MIN(b[i].start, c->start);
			}
			if (k + 1 < ncut)
				c->time_hi = smin[cuts[k + 1]];
			if (idx->have_times) {
				c->flags |= PM_CHUNK_TIME_KNOWN;
				c->time_min = PM_MAX(c->time_lo, idx->first);
				c->time_max = c->time_hi == UINT64_MAX ? idx->last
								       : PM_MIN(c->time_hi - 1, idx->last);
			}
		}
	}
	rc = 0;
out:
	free(smin);
	free(pmax);
	free(cuts);
	return rc;
}

int pm_chunk_index_new_from_file(pm_chunk_index **out, pm_file *f, const struct pm_chunk_index_opts *opts)
{
	struct pm_chunk_index_opts o = { .sz = sizeof(o) };
	struct pm_file_opts so = { .sz = sizeof(so), .raw_order = 1, .keep_compressed = 1,
				   .window_size = 1u << 20 };
	pm_chunk_index *idx;
	pm_file *s = NULL;
	struct pmc_block *b = NULL;
	size_t nb = 0, cap = 0;
	uint64_t block_max, data_end, blk_bytes_start;
	bool timed = false, untimed = false, whole = false;
	struct pmf_rec r;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !f)
		return pm__err(EINVAL, "pm_chunk_index_new_from_file: NULL argument");
	rc = PM__SZ_VALID(opts, pm_chunk_index_opts, PM_CHUNK_INDEX_OPTS_SZ_V1);
	if (rc)
		return rc;
	if (opts)
		pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
	if (!o.chunk_bytes)
		o.chunk_bytes = PMC_DEFAULT_CHUNK;
	block_max = PM_MAX(o.chunk_bytes / 8, 4096);
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	data_end = f->data_end;
	if (f->info.pipe_mode || !f->seekable) {
		/* a pipe stream is read once, as it comes */
		rc = pmc_one(idx, f, data_end);
		goto done;
	}
	rc = pm_file_open_fd(&s, f->fd, &so);
	if (rc)
		goto done;
	free(s->name);
	s->name = strdup(PMF_NAME(f));
	rc = pmc_push(&b, &nb, &cap, f->info.data_offset);
	blk_bytes_start = f->info.data_offset;
	while (!rc && (rc = pmf_next_inl(s, &r)) > 0) {
		rc = 0;
		if (r.type == PM_RECORD_COMPRESSED || r.type == PM_RECORD_COMPRESSED2 || r.from_comp) {
			/* the zstd stream runs through every COMPRESSED record */
			whole = true;
			break;
		}
		if (r.type == PM_RECORD_SAMPLE && r.time != PM_FILE_NO_TIME && r.time) {
			struct pmc_block *cur = &b[nb - 1];

			cur->tmin = PM_MIN(cur->tmin, r.time);
			cur->tmax = PM_MAX(cur->tmax, r.time);
			if (!timed || r.time < idx->first)
				idx->first = r.time;
			if (!timed || r.time > idx->last)
				idx->last = r.time;
			timed = true;
		} else if (r.type == PM_RECORD_SAMPLE) {
			untimed = true;
		}
		if (r.type == PM_RECORD_FINISHED_ROUND ||
		    r.offset + r.size - blk_bytes_start >= block_max) {
			/* the next block starts after this record */
			blk_bytes_start = r.offset + r.size;
			if (blk_bytes_start < data_end)
				rc = pmc_push(&b, &nb, &cap, blk_bytes_start);
		}
	}
	if (rc < 0)
		goto done;
	rc = 0;
	idx->have_times = timed && !whole;
	if (whole || (timed && untimed) || nb <= 1)
		rc = pmc_one(idx, f, data_end);
	else
		rc = pmc_cut(idx, f, b, nb, data_end, o.chunk_bytes, timed);
	if (!rc && idx->n == 1 && timed && !untimed && !whole)
		idx->c[0].flags |= PM_CHUNK_TIME_WINDOW;
done:
	free(b);
	pm_file_close(s);
	if (rc) {
		pm_chunk_index_free(idx);
		return rc;
	}
	*out = idx;
	return 0;
}

int pm_file_select_chunk(pm_file *f, const struct pm_file_chunk *c)
{
	int rc;

	if (!f || !c)
		return pm__err(EINVAL, "pm_file_select_chunk: NULL argument");
	rc = PM__SZ_VALID(c, pm_file_chunk, PM_FILE_CHUNK_SZ_V1);
	if (rc)
		return rc;
	if (c->flags & PM_CHUNK_WHOLE)
		return 0;
	if (f->info.pipe_mode || !f->seekable)
		return pm__err(EINVAL, "%s: a pipe stream is one chunk", PMF_NAME(f));
	if (f->win_end || f->qend || f->err || f->win_off != f->info.data_offset)
		return pm__err(EINVAL, "%s: pm_file_select_chunk() after records were read", PMF_NAME(f));
	if (c->data_offset != f->info.data_offset || c->data_end > f->data_end ||
	    c->read_start < c->data_offset || c->read_start > c->start || c->start > c->end ||
	    c->end > c->data_end || c->time_lo > c->time_hi)
		return pm__err(EINVAL, "%s: chunk %u (bytes %" PRIu64 "-%" PRIu64 ") is not a chunk of "
			       "this file (data %" PRIu64 "-%" PRIu64 ")", PMF_NAME(f), c->index,
			       c->start, c->end, f->info.data_offset, f->data_end);
	if ((c->flags & PM_CHUNK_TIME_WINDOW) && f->raw_order)
		return pm__err(EINVAL, "%s: a time-windowed chunk is read in time order (not raw_order)",
			       PMF_NAME(f));
	f->win_off = c->read_start;
	f->data_end = c->end;
	if (c->flags & PM_CHUNK_TIME_WINDOW) {
		f->twin = true;
		f->twin_lo = c->time_lo;
		f->twin_hi = c->time_hi;
	}
	return 0;
}
