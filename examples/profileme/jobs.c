/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* -j N: the chunks of one recording on N threads (jobs.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jobs.h"

enum { JS_PENDING, JS_DONE };

struct jslot {
	void *result;
	int rc;
	int state;
};

struct jrun {
	struct cli_jobs *j;
	struct pm_file_chunk *chunks;
	size_t n;
	struct jslot *slot;
	size_t next, cur, window;
	bool stop;
	int fail;
	char msg[512];
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* A worker's reader of the whole stream (CLI_JOBS_STREAM). */
struct jstream {
	pm_file *g;
	struct pm_file_record rec; /* the record read and not handed out yet */
	bool pending, ended;
	int end_rc;
	size_t seg, end_seg; /* segment of the pending record; where the stream ended */
};

struct cli_jobs_chunk {
	struct jrun *run;
	size_t k;
	pm_file *g;         /* CLI_JOBS_CHUNKS: the chunk's reader */
	int open_rc;        /* CLI_JOBS_CHUNKS: its open failed (said by cli_jobs_next()) */
	struct jstream *st; /* CLI_JOBS_STREAM */
	bool err_given;
};

/* Does sample r start segment k of the stream? */
static bool j_starts(const struct pm_file_chunk *c, const struct pm_file_record *r)
{
	if (c->flags & PM_CHUNK_TIME_WINDOW)
		return r->time != PM_FILE_NO_TIME && r->time >= c->time_lo;
	return r->offset >= c->start;
}

int cli_jobs_next(struct cli_jobs_chunk *c, struct pm_file_record *rec, bool *owned)
{
	struct jstream *w = c->st;
	int rc;

	if (!w) {
		if (c->open_rc) {
			rc = c->open_rc;
			c->open_rc = 0;
			c->err_given = true;
			return rc;
		}
		if (c->err_given)
			return 0;
		rc = pm_file_next(c->g, rec);
		if (rc < 0)
			c->err_given = true;
		*owned = rc > 0 && rec->type == PM_RECORD_SAMPLE;
		return rc;
	}
	for (;;) {
		if (!w->pending) {
			if (w->ended) {
				if (w->end_rc < 0 && w->end_seg == c->k && !c->err_given) {
					c->err_given = true;
					return w->end_rc;
				}
				return 0;
			}
			rec->sz = sizeof(*rec);
			w->rec.sz = sizeof(w->rec);
			rc = pm_file_next(w->g, &w->rec);
			if (rc <= 0) {
				w->ended = true;
				w->end_rc = rc;
				w->end_seg = w->seg;
				continue;
			}
			if (w->rec.type == PM_RECORD_SAMPLE)
				while (w->seg + 1 < c->run->n && j_starts(&c->run->chunks[w->seg + 1], &w->rec))
					w->seg++;
			w->pending = true;
		}
		if (w->seg > c->k)
			return 0; /* the next segment's first record: kept for it */
		w->pending = false;
		*rec = w->rec;
		*owned = w->seg == c->k;
		return 1;
	}
}

pm_file *cli_jobs_file(const struct cli_jobs_chunk *c)
{
	return c->st ? c->st->g : c->g;
}

size_t cli_jobs_index(const struct cli_jobs_chunk *c)
{
	return c->k;
}

const struct pm_file_chunk *cli_jobs_desc(const struct cli_jobs_chunk *c)
{
	return &c->run->chunks[c->k];
}

bool cli_jobs_last(const struct cli_jobs_chunk *c)
{
	return c->k + 1 == c->run->n;
}

static void j_fail(struct jrun *r, int rc)
{
	pthread_mutex_lock(&r->mu);
	if (!r->fail) {
		r->fail = rc ? rc : -EIO;
		snprintf(r->msg, sizeof(r->msg), "%s", pm_errmsg()[0] ? pm_errmsg() : pm_strerror(rc));
	}
	r->stop = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static void *j_worker(void *arg)
{
	struct jrun *r = arg;
	struct cli_jobs *j = r->j;
	struct jstream st = { 0 };
	void *ws = NULL;
	int rc;

	if (j->mode == CLI_JOBS_STREAM) {
		rc = pm_file_open(&st.g, j->path, j->fopts);
		if (rc < 0) {
			j_fail(r, rc);
			return NULL;
		}
	}
	rc = j->worker_init ? j->worker_init(j->user, st.g, &ws) : 0;
	if (rc) {
		j_fail(r, rc);
		pm_file_close(st.g);
		return NULL;
	}
	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct cli_jobs_chunk c = { .run = r };
		void *res = NULL;
		size_t k;

		while (!r->stop && r->next < r->n && r->next >= r->cur + r->window)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop || r->next >= r->n)
			break;
		k = r->next++;
		pthread_mutex_unlock(&r->mu);
		c.k = k;
		if (j->mode == CLI_JOBS_STREAM) {
			c.st = &st;
		} else {
			c.open_rc = pm_file_open(&c.g, j->path, j->fopts);
			if (!c.open_rc)
				c.open_rc = pm_file_select_chunk(c.g, &r->chunks[k]);
		}
		rc = j->run(j->user, ws, &c, &res);
		pm_file_close(c.g);
		pthread_mutex_lock(&r->mu);
		r->slot[k].result = res;
		r->slot[k].rc = rc;
		r->slot[k].state = JS_DONE;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	if (j->worker_fini)
		j->worker_fini(j->user, ws);
	pm_file_close(st.g);
	return NULL;
}

int cli_jobs_run(struct cli_jobs *j, size_t *nchunks)
{
	struct pm_chunk_index_opts io = { .sz = sizeof(io) };
	pm_chunk_index *idx = NULL;
	struct jrun r = { .j = j };
	pthread_t *th = NULL;
	const char *env;
	int nth = 0, rc, ret = 0;

	if (nchunks)
		*nchunks = 1;
	io.chunk_bytes = j->chunk_bytes ? j->chunk_bytes : CLI_JOBS_CHUNK_BYTES;
	if (!j->chunk_bytes && (env = getenv("PROFILEME_JOBS_CHUNK_BYTES")) && *env) {
		/* for tests: many chunks of a small file */
		unsigned long long v = strtoull(env, NULL, 0);

		if (v)
			io.chunk_bytes = v;
	}
	io.threads = j->jobs;
	if (j->jobs <= 1)
		return 1;
	rc = pm_chunk_index_new_from_file(&idx, j->f, &io);
	if (rc < 0) {
		/* a file the index cannot scan (damage): -j 1 reads it and says where */
		return 1;
	}
	r.n = pm_chunk_index_count(idx);
	if (nchunks)
		*nchunks = r.n;
	if (r.n <= 1) {
		pm_chunk_index_free(idx);
		return 1;
	}
	r.chunks = calloc(r.n, sizeof(*r.chunks));
	r.slot = calloc(r.n, sizeof(*r.slot));
	nth = j->jobs < (int)r.n ? j->jobs : (int)r.n;
	th = calloc((size_t)nth, sizeof(*th));
	if (!r.chunks || !r.slot || !th) {
		cli_error(j->cmd, "out of memory for %zu chunks", r.n);
		ret = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < r.n; k++) {
		r.chunks[k].sz = sizeof(r.chunks[k]);
		if (pm_chunk_index_get(idx, k, &r.chunks[k]) < 0) {
			cli_error(j->cmd, "%s", pm_errmsg());
			ret = -EINVAL;
			goto out;
		}
	}
	r.window = 2 * (size_t)nth;
	if ((env = getenv("PROFILEME_JOBS_VERBOSE")) && *env == '1')
		fprintf(stderr, "%s %s: %zu chunks on %d threads (%s)\n", cli_prog, j->cmd, r.n, nth,
			j->mode == CLI_JOBS_STREAM ? "stream" : "chunks");
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	for (int i = 0; i < nth; i++) {
		if (pthread_create(&th[i], NULL, j_worker, &r)) {
			nth = i;
			j_fail(&r, -EAGAIN);
			break;
		}
	}
	while (r.cur < r.n) {
		struct jslot *s = &r.slot[r.cur];

		pthread_mutex_lock(&r.mu);
		while (s->state != JS_DONE && !r.fail)
			pthread_cond_wait(&r.cv, &r.mu);
		pthread_mutex_unlock(&r.mu);
		if (s->state != JS_DONE)
			break;
		rc = j->done(j->user, r.cur, s->result, s->rc);
		s->result = NULL;
		pthread_mutex_lock(&r.mu);
		r.cur++;
		if (rc)
			r.stop = true;
		pthread_cond_broadcast(&r.cv);
		pthread_mutex_unlock(&r.mu);
		if (rc) {
			ret = rc;
			break;
		}
	}
	pthread_mutex_lock(&r.mu);
	r.stop = true;
	pthread_cond_broadcast(&r.cv);
	pthread_mutex_unlock(&r.mu);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (r.fail && !ret) {
		cli_error(j->cmd, "%s", r.msg);
		ret = r.fail < 0 ? r.fail : -EIO;
	}
	for (size_t k = r.cur; k < r.n; k++)
		if (r.slot[k].state == JS_DONE && r.slot[k].result && j->discard)
			j->discard(j->user, r.slot[k].result);
	pthread_mutex_destroy(&r.mu);
	pthread_cond_destroy(&r.cv);
out:
	free(th);
	free(r.slot);
	free(r.chunks);
	pm_chunk_index_free(idx);
	return ret;
}
