/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * pm_columns over N threads (pm_columns_opts::threads): the file's chunks
 * (pm_chunk_index) are decoded by worker threads, each with its own
 * pm_file and pm_columns on the file's descriptor, into packed rows of the
 * wanted columns; pm_columns_read*() hands the rows out chunk after chunk.
 * The chunks' samples in chunk order are the file's (profileme/file.h,
 * "Chunks"), so the rows are those of one thread.  At most `window` chunks
 * are decoded ahead of the one being handed out (bounded memory).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <profileme/export.h>

#include "internal/pm_internal.h"
#include "file/reader_twin.h"
#include "export/columns_int.h"

enum { PMCM_PENDING, PMCM_RUNNING, PMCM_DONE };

struct pmcm_out {
	uint8_t *rows;
	size_t n, cap;
	uint64_t skipped;
	int err;
	char msg[512];
	int state;
};

struct pm__columns_mt {
	pm_columns *c;
	struct pm_file_chunk *chunks;
	struct pmcm_out *out;
	size_t nchunks;
	size_t next, cur, cur_pos, window;
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t *th;
	int nth;
	size_t ncols;
	uint8_t want[PM_COLUMNS_MAX_];
	size_t off[PM_COLUMNS_MAX_], width[PM_COLUMNS_MAX_];
	size_t row_size;
	/* the caller's rows are exactly the wanted columns (pm_columns_read_rows
	 * as the Python binding calls it): the workers write rows in the
	 * caller's layout and a batch is handed out with one memcpy */
	bool rowmode;
	size_t first; /* the wanted column at offset 0 of a row (rowmode) */
};

static void pmcm_decode(struct pm__columns_mt *m, size_t k)
{
	struct pmcm_out *o = &m->out[k];
	const pm_columns *c = m->c;
	struct pm_columns_opts co = { .sz = sizeof(co), .event = c->event, .decoder = c->decoder_name,
				      .no_raw = c->no_raw, .record_columns = c->record_columns };
	size_t offs[PM_COLUMNS_MAX_];
	pm_file *g = NULL;
	pm_columns *s = NULL;
	int rc;

	for (size_t i = 0; i < m->ncols; i++)
		offs[i] = m->want[i] ? m->off[i] : SIZE_MAX;
	rc = pm__file_open_twin(&g, c->file);
	if (!rc)
		rc = pm_file_select_chunk(g, &m->chunks[k]);
	if (!rc)
		rc = pm_columns_new_from_file(&s, g, &co);
	while (!rc) {
		size_t got = 0;

		if (o->cap - o->n < 4096) {
			size_t nc = o->cap ? o->cap * 2 : 65536;
			uint8_t *t = pm__reallocarray(o->rows, nc, PM_MAX(m->row_size, 1));

			if (!t) {
				rc = pm__err(ENOMEM, "no memory for the rows of chunk %zu", k);
				break;
			}
			o->rows = t;
			o->cap = nc;
		}
		if (m->row_size)
			rc = pm_columns_read_rows(s, o->rows + o->n * m->row_size, m->row_size, offs,
						  m->ncols, o->cap - o->n, &got);
		else
			rc = pm_columns_read(s, NULL, 0, o->cap - o->n, &got);
		o->n += got;
		if (!rc && got == 0)
			break;
	}
	if (rc < 0) {
		o->err = rc;
		snprintf(o->msg, sizeof(o->msg), "%s", pm_errmsg());
	}
	o->skipped = pm_columns_skipped(s);
	pm_columns_free(s);
	pm_file_close(g);
}

static void *pmcm_worker(void *arg)
{
	struct pm__columns_mt *m = arg;

	pthread_mutex_lock(&m->mu);
	for (;;) {
		size_t k;

		while (!m->stop && m->next < m->nchunks && m->next >= m->cur + m->window)
			pthread_cond_wait(&m->cv, &m->mu);
		if (m->stop || m->next >= m->nchunks)
			break;
		k = m->next++;
		m->out[k].state = PMCM_RUNNING;
		pthread_mutex_unlock(&m->mu);
		pmcm_decode(m, k);
		pthread_mutex_lock(&m->mu);
		m->out[k].state = PMCM_DONE;
		pthread_cond_broadcast(&m->cv);
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

void pm__columns_mt_free(struct pm__columns_mt *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->stop = true;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	for (int i = 0; i < m->nth; i++)
		pthread_join(m->th[i], NULL);
	for (size_t k = 0; k < m->nchunks; k++)
		free(m->out[k].rows);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	free(m->th);
	free(m->out);
	free(m->chunks);
	free(m);
}

/* Do the caller's rows hold exactly the wanted columns, side by side?
 * Then keep its layout (off[] relative to the first column's byte). */
static void pmcm_rowmode(struct pm__columns_mt *m, uint8_t *const *base, const size_t *stride)
{
	const uint8_t *lo = NULL;
	size_t s = 0, sum = 0;

	for (size_t i = 0; i < m->ncols; i++) {
		if (!m->want[i])
			continue;
		if (!lo || base[i] < lo) {
			lo = base[i];
			m->first = i;
		}
		if (s && stride[i] != s)
			return;
		s = stride[i];
		sum += m->width[i];
	}
	if (!lo || sum != s)
		return;
	for (size_t i = 0; i < m->ncols; i++)
		if (m->want[i] && (size_t)(base[i] - lo) + m->width[i] > s)
			return;
	/* widths summing to the stride and each inside the row: no overlap
	 * unless two share bytes, which a caller's row layout never does */
	for (size_t i = 0; i < m->ncols; i++)
		if (m->want[i])
			m->off[i] = (size_t)(base[i] - lo);
	m->row_size = s;
	m->rowmode = true;
}

/* The same layout as at the start (rowmode)? */
static bool pmcm_same_rows(const struct pm__columns_mt *m, uint8_t *const *base, const size_t *stride)
{
	const uint8_t *lo = base[m->first];

	for (size_t i = 0; i < m->ncols; i++)
		if (m->want[i] && (stride[i] != m->row_size || base[i] < lo ||
				   (size_t)(base[i] - lo) != m->off[i]))
			return false;
	return true;
}

/* Column i of take rows from the packed rows at src to dst (stride). */
static void pmcm_copy_col(uint8_t *dst, size_t stride, const uint8_t *src, size_t row_size,
			  size_t width, size_t take)
{
	switch (width) {
	case 8:
		for (size_t r = 0; r < take; r++)
			memcpy(dst + r * stride, src + r * row_size, 8);
		break;
	case 4:
		for (size_t r = 0; r < take; r++)
			memcpy(dst + r * stride, src + r * row_size, 4);
		break;
	default:
		for (size_t r = 0; r < take; r++)
			dst[r * stride] = src[r * row_size];
		break;
	}
}

/* 1: the file is one chunk (read it in this thread); 0 / <0 */
static int pmcm_start(pm_columns *c, uint8_t *const *base, const size_t *stride, size_t ncols)
{
	/* chunks of 8 MiB by default: small enough to balance, large enough that
	 * the per-chunk open and the overlap stay negligible */
	struct pm_chunk_index_opts io = { .sz = sizeof(io), .chunk_bytes = c->chunk_bytes,
					  .threads = c->threads };
	pm_chunk_index *idx = NULL;
	struct pm__columns_mt *m;
	pm_file *f = c->file;
	int rc;

	if (!pm__file_cuttable(f, c->chunk_bytes))
		return 1;
	rc = pm_chunk_index_new_from_file(&idx, f, &io);
	if (rc)
		return rc;
	if (pm_chunk_index_count(idx) < 2) {
		pm_chunk_index_free(idx);
		return 1;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		pm_chunk_index_free(idx);
		return -ENOMEM;
	}
	m->c = c;
	m->nchunks = pm_chunk_index_count(idx);
	m->chunks = calloc(m->nchunks, sizeof(*m->chunks));
	m->out = calloc(m->nchunks, sizeof(*m->out));
	m->nth = c->threads;
	m->th = calloc((size_t)m->nth, sizeof(*m->th));
	m->window = 2 * (size_t)m->nth;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	if (!m->chunks || !m->out || !m->th) {
		pm_chunk_index_free(idx);
		m->nth = 0;
		pm__columns_mt_free(m);
		return -ENOMEM;
	}
	for (size_t k = 0; k < m->nchunks; k++) {
		m->chunks[k].sz = sizeof(m->chunks[k]);
		pm_chunk_index_get(idx, k, &m->chunks[k]);
	}
	pm_chunk_index_free(idx);
	m->ncols = PM_MIN(ncols, c->ncols);
	for (size_t i = 0; i < m->ncols; i++) {
		m->want[i] = base[i] != NULL;
		m->width[i] = pm_columns_width(c, i);
		if (m->want[i]) {
			m->off[i] = m->row_size;
			m->row_size += m->width[i];
		}
	}
	pmcm_rowmode(m, base, stride);
	for (int i = 0; i < m->nth; i++) {
		if (pthread_create(&m->th[i], NULL, pmcm_worker, m)) {
			m->nth = i;
			pm__columns_mt_free(m);
			return pm__err(EAGAIN, "cannot start reader thread %d", i);
		}
	}
	c->mt = m;
	return 0;
}

int pm__columns_mt_fill(pm_columns *c, uint8_t *const *base, const size_t *stride, size_t ncols,
			size_t cap, size_t *n)
{
	struct pm__columns_mt *m = c->mt;
	size_t rows = 0;
	int rc = 0;

	*n = 0;
	if (!m) {
		rc = pmcm_start(c, base, stride, ncols);
		if (rc) {
			if (rc > 0)
				c->threads = 1; /* one chunk: read here */
			return rc;
		}
		m = c->mt;
	}
	ncols = PM_MIN(ncols, c->ncols);
	for (size_t i = 0; i < PM_MAX(ncols, m->ncols); i++)
		if ((i < ncols && base[i] != NULL) != (i < m->ncols && m->want[i]))
			return pm__err(EINVAL, "a threaded pm_columns reads the same columns in every call "
				       "(column '%s' changed)", c->cols[i].name);
	while (rows < cap) {
		struct pmcm_out *o;
		size_t take;

		pthread_mutex_lock(&m->mu);
		while (m->cur < m->nchunks && m->out[m->cur].state != PMCM_DONE)
			pthread_cond_wait(&m->cv, &m->mu);
		pthread_mutex_unlock(&m->mu);
		if (m->cur >= m->nchunks)
			break;
		o = &m->out[m->cur];
		take = PM_MIN(cap - rows, o->n - m->cur_pos);
		if (m->rowmode && pmcm_same_rows(m, base, stride)) {
			memcpy(base[m->first] + rows * m->row_size, o->rows + m->cur_pos * m->row_size,
			       take * m->row_size);
		} else {
			for (size_t i = 0; i < ncols; i++) {
				if (!m->want[i])
					continue;
				pmcm_copy_col(base[i] + rows * stride[i], stride[i],
					      o->rows + m->cur_pos * m->row_size + m->off[i], m->row_size,
					      m->width[i], take);
			}
		}
		rows += take;
		m->cur_pos += take;
		if (m->cur_pos < o->n)
			break;
		if (o->err) {
			/* sticky, as the reader's errors: every later call says it again */
			rc = pm__err(-o->err, "%s", o->msg);
			break;
		}
		c->skipped += o->skipped;
		free(o->rows);
		o->rows = NULL;
		pthread_mutex_lock(&m->mu);
		m->cur++;
		m->cur_pos = 0;
		pthread_cond_broadcast(&m->cv);
		pthread_mutex_unlock(&m->mu);
	}
	*n = rows;
	return rc;
}
