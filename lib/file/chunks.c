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
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profileme/export.h>

#include "chunks_int.h"
#include "internal/sym_columns_int.h"
#include "reader_int.h"

#define PMC_DEFAULT_CHUNK (64ull << 20)

struct pmc_block {
	uint64_t start;
	uint64_t tmin, tmax; /* UINT64_MAX, 0 when the block has no timed sample */
	bool untimed;        /* it has a sample without a time */
};

struct pm_chunk_index {
	struct pm_file_chunk *c;
	size_t n;
	bool have_times;
	uint64_t first, last;
	uint8_t *sb; /* the sideband (pm_chunk_index_sideband()), NULL: none */
	size_t sb_len;
};

void pm_chunk_index_free(pm_chunk_index *idx)
{
	if (!idx)
		return;
	free(idx->c);
	free(idx->sb);
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
	(*b)[*n] = (struct pmc_block){ start, UINT64_MAX, 0, false };
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

/* A side record the scan kept (the sideband): its bytes at `at` of the
 * scan's arena. */
struct pmc_side {
	uint64_t offset, time;
	int32_t attr_idx;
	uint32_t size;
	size_t at;
};

/* The scan's state: the blocks so far, the side records so far. */
struct pmc_scan {
	struct pmc_block *b;
	size_t nb, cap;
	uint64_t block_max, data_end, blk_start;
	bool whole;
	struct pmc_side *sv;
	size_t nside, capside;
	uint8_t *sbytes;
	size_t nsbytes, capsbytes;
};

static void pmc_scan_free(struct pmc_scan *sc)
{
	free(sc->b);
	free(sc->sv);
	free(sc->sbytes);
	sc->b = NULL;
	sc->sv = NULL;
	sc->sbytes = NULL;
}

/* The records a symbolizer learns from (pm_sym_add_record(), the thread
 * names of pm_sym_resolve_rows()). */
static bool pmc_side_type(uint32_t type)
{
	return type == PM_RECORD_MMAP || type == PM_RECORD_MMAP2 || type == PM_RECORD_COMM ||
	       type == PM_RECORD_FORK || type == PM_RECORD_EXIT;
}

static int pmc_side_add(struct pmc_scan *sc, uint64_t offset, uint64_t time, int32_t attr_idx,
			const uint8_t *data, uint32_t size)
{
	size_t at = sc->nsbytes;

	if (sc->nside == sc->capside) {
		size_t nc = sc->capside ? sc->capside * 2 : 64;
		struct pmc_side *t = pm__reallocarray(sc->sv, nc, sizeof(*t));

		if (!t)
			return -ENOMEM;
		sc->sv = t;
		sc->capside = nc;
	}
	if (at + size > sc->capsbytes) {
		size_t nc = sc->capsbytes ? sc->capsbytes : 4096;
		uint8_t *t;

		while (nc < at + size)
			nc *= 2;
		t = realloc(sc->sbytes, nc);
		if (!t)
			return -ENOMEM;
		sc->sbytes = t;
		sc->capsbytes = nc;
	}
	memcpy(sc->sbytes + at, data, size);
	sc->nsbytes = at + size;
	sc->sv[sc->nside++] = (struct pmc_side){ offset, time, attr_idx, size, at };
	return 0;
}

/* One record of the scan (file order). */
static inline int pmc_rec(struct pmc_scan *sc, const struct pmf_rec *r)
{
	if (pmc_side_type(r->type) && !r->from_comp) {
		int rc = pmc_side_add(sc, r->offset, r->time, r->attr_idx, r->data, r->size);

		if (rc)
			return rc;
	}
	if (r->type == PM_RECORD_SAMPLE) {
		struct pmc_block *cur = &sc->b[sc->nb - 1];

		if (r->time != PM_FILE_NO_TIME && r->time) {
			if (r->time < cur->tmin)
				cur->tmin = r->time;
			if (r->time > cur->tmax)
				cur->tmax = r->time;
		} else {
			cur->untimed = true;
		}
	}
	/* A block ends after a FINISHED_ROUND, or after the record that reaches
	 * a multiple of block_max (file offsets): a rule of the record alone, so
	 * that the pieces of a parallel scan cut where one walk cuts. */
	if (r->type == PM_RECORD_FINISHED_ROUND ||
	    (r->offset + r->size) / sc->block_max != r->offset / sc->block_max) {
		sc->blk_start = r->offset + r->size;
		if (sc->blk_start < sc->data_end)
			return pmc_push(&sc->b, &sc->nb, &sc->cap, sc->blk_start);
	}
	return 0;
}

/* User record types the windowed scan steps over by their size: none of them
 * carries data after it, changes the id map or starts a zstd stream
 * (ID_INDEX: the reader learns nothing from it either, reader_meta.c). */
static bool pmc_plain_user(uint32_t type)
{
	switch (type) {
	case PM_RECORD_HEADER_EVENT_TYPE:
	case PM_RECORD_HEADER_BUILD_ID:
	case PM_RECORD_FINISHED_ROUND:
	case PM_RECORD_ID_INDEX:
	case PM_RECORD_AUXTRACE_INFO:
	case PM_RECORD_AUXTRACE_ERROR:
	case PM_RECORD_THREAD_MAP:
	case PM_RECORD_CPU_MAP:
	case PM_RECORD_STAT_CONFIG:
	case PM_RECORD_STAT:
	case PM_RECORD_STAT_ROUND:
	case PM_RECORD_EVENT_UPDATE:
	case PM_RECORD_TIME_CONV:
	case PM_RECORD_HEADER_FEATURE:
	case PM_RECORD_FINISHED_INIT:
		return true;
	default:
		return false;
	}
}

/* A read window over the data section (pread, PMC_WIN bytes at a time):
 * cheaper than a mapping (no page to map and unmap) and bounded memory. */
#define PMC_WIN (1u << 20)
struct pmc_map {
	const pm_file *f;
	uint8_t *buf;
	uint64_t woff, wlen; /* buf holds the bytes [woff, woff + wlen) */
	uint64_t end;        /* the data end */
	bool ioerr;
};

/* The bytes [off, off + need) (need <= 65536), or NULL past the end or
 * when the file cannot be read. */
static inline const uint8_t *pmc_at(struct pmc_map *m, uint64_t off, size_t need)
{
	if (off >= m->woff && off + need <= m->woff + m->wlen)
		return m->buf + (off - m->woff);
	if (off + need > m->end)
		return NULL;
	m->woff = off;
	m->wlen = 0;
	while (m->wlen < PMC_WIN && off + m->wlen < m->end) {
		ssize_t k = pread(m->f->fd, m->buf + m->wlen,
				  (size_t)PM_MIN((uint64_t)PMC_WIN - m->wlen, m->end - off - m->wlen),
				  (off_t)(off + m->wlen));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			m->ioerr = true;
			break;
		}
		m->wlen += (uint64_t)k;
	}
	return off + need <= m->woff + m->wlen ? m->buf + (off - m->woff) : NULL;
}

/* Step over the record at *off (accounted in sc).  0; 1: this scan cannot
 * step over it (damaged, or a record for the reader); -ENOMEM. */
static inline int pmc_step(struct pmc_scan *sc, struct pmc_map *m, uint64_t *off)
{
	const pm_file *f = m->f;
	const uint8_t *p = pmc_at(m, *off, 8);
	struct pmf_rec r;
	int rc;

	if (!p)
		return 1;
	r.type = pm__ld32(p, f->be);
	r.size = pm__ld16(p + 6, f->be);
	if (r.size < 8 || r.size > sc->data_end - *off)
		return 1;
	if (r.type >= PM_RECORD_USER_TYPE_START && !pmc_plain_user(r.type))
		return 1;
	p = pmc_at(m, *off, r.size);
	if (!p)
		return 1;
	r.misc = pm__ld16(p + 4, f->be);
	r.data = p;
	r.offset = *off;
	r.from_comp = false;
	pmf_classify(f, &r);
	rc = pmc_rec(sc, &r);
	if (!rc)
		*off += r.size;
	return rc;
}

/* Could a record start at off?  PMC_CHAIN headers from there look like
 * records' (known type and cpumode, size a multiple of 8), or reach the
 * end exactly.  Only a guess: the merge confirms it. */
#define PMC_CHAIN 16
static bool pmc_chain(struct pmc_map *m, uint64_t off, uint64_t end)
{
	const pm_file *f = m->f;

	for (int k = 0; k < PMC_CHAIN && off < end; k++) {
		const uint8_t *p = pmc_at(m, off, 8);
		uint32_t type, size;

		if (!p)
			return false;
		type = pm__ld32(p, f->be);
		size = pm__ld16(p + 6, f->be);
		if (size < 8 || size % 8 || size > end - off)
			return false;
		if (type >= PM_RECORD_USER_TYPE_START ? !pmc_plain_user(type)
						       : (!type || type > PM_RECORD_CALLCHAIN_DEFERRED ||
							  (pm__ld16(p + 4, f->be) & PM_RECORD_MISC_CPUMODE_MASK) > 5))
			return false;
		off += size;
	}
	return true;
}

/*
 * A piece of the parallel scan: [lo, hi) of the data.  Piece 0 starts at
 * the data offset; the others look for an offset where records seem to
 * start (pmc_chain()) and walk from there, keeping the offsets of their
 * first PMC_SYNC records.  The merge walks on from the piece before into
 * the piece until the two walks meet at one of these records (from there on
 * they are one walk), walks on to the piece's first block start after the
 * meeting point and takes the piece's blocks from there (the block rule is
 * a rule of each record: the same blocks as one walk's).  A piece the walk
 * before it never meets is walked again by the merge.  So the blocks are
 * those of one walk from the data offset, whatever the guesses were.
 */
#define PMC_SYNC 256
struct pmc_piece {
	struct pmc_map m;
	uint64_t lo, hi;
	uint64_t c;    /* where its walk starts; hi: no record start found */
	uint64_t off;  /* where its walk stopped: the first record at or after hi, or the record
	                  it could not step over */
	int rc;        /* pmc_step()'s */
	uint64_t sync[PMC_SYNC];
	size_t nsync;
	struct pmc_scan sc;
};

static void *pmc_piece_run(void *arg)
{
	struct pmc_piece *p = arg;
	uint64_t off = p->lo, align = p->m.f->info.data_offset % 8;
	int rc = 0;

	if (p->lo != p->m.f->info.data_offset) {
		if (off % 8 != align)
			off += (8 + align - off % 8) % 8;
		while (off < p->hi && !pmc_chain(&p->m, off, p->sc.data_end))
			off += 8;
	}
	p->c = off < p->hi ? off : p->hi;
	if (off < p->hi)
		rc = pmc_push(&p->sc.b, &p->sc.nb, &p->sc.cap, off);
	p->sc.blk_start = off;
	while (!rc && off < p->hi) {
		if (p->nsync < PMC_SYNC)
			p->sync[p->nsync++] = off;
		rc = pmc_step(&p->sc, &p->m, &off);
	}
	p->off = off;
	p->rc = rc;
	return NULL;
}

/* Merge the pieces (pmc_piece_run() done) into sc: 0, 1 (the reader's scan
 * is needed), -ENOMEM. */
static int pmc_merge(struct pmc_scan *sc, struct pmc_piece *pc, size_t n)
{
	uint64_t off;
	int rc;

	if (pc[0].rc)
		return pc[0].rc;
	*sc = pc[0].sc;
	pc[0].sc.b = NULL;
	pc[0].sc.sv = NULL;
	pc[0].sc.sbytes = NULL;
	off = pc[0].off;
	for (size_t i = 1; i < n; i++) {
		struct pmc_piece *p = &pc[i];
		bool met = false;
		size_t j = 0;

		if (p->rc < 0)
			return p->rc;
		if (p->c < p->hi) {
			while (off < p->c)
				if ((rc = pmc_step(sc, &p->m, &off)))
					return rc;
			for (;;) {
				while (j < p->nsync && p->sync[j] < off)
					j++;
				if (j == p->nsync)
					break;
				if (p->sync[j] == off) {
					met = true;
					break;
				}
				if ((rc = pmc_step(sc, &p->m, &off)))
					return rc;
			}
		}
		if (!met) {
			/* never met: walk the piece here */
			while (off < p->hi)
				if ((rc = pmc_step(sc, &p->m, &off)))
					return rc;
			continue;
		}
		/* one walk from here: on to the piece's first block after the meeting point */
		j = 0;
		while (j < p->sc.nb && p->sc.b[j].start <= off)
			j++;
		if (j == p->sc.nb) {
			/* none: the piece ends in the merge's block */
			while (off < p->hi)
				if ((rc = pmc_step(sc, &p->m, &off)))
					return rc;
			continue;
		}
		while (off < p->sc.b[j].start)
			if ((rc = pmc_step(sc, &p->m, &off)))
				return rc;
		/* the walk here began that block (the same rule): its copy holds nothing */
		if (!sc->nb || sc->b[sc->nb - 1].start != p->sc.b[j].start || off != p->sc.b[j].start)
			return 1; /* cannot be: the reader's scan decides */
		sc->nb--;
		/* and its side records from there on (the same walk's) */
		for (size_t k = 0; k < p->sc.nside; k++) {
			const struct pmc_side *e = &p->sc.sv[k];

			if (e->offset >= p->sc.b[j].start &&
			    (rc = pmc_side_add(sc, e->offset, e->time, e->attr_idx, p->sc.sbytes + e->at, e->size)))
				return rc;
		}
		for (; j < p->sc.nb; j++) {
			if ((rc = pmc_push(&sc->b, &sc->nb, &sc->cap, p->sc.b[j].start)))
				return rc;
			sc->b[sc->nb - 1] = p->sc.b[j];
		}
		sc->blk_start = p->sc.blk_start;
		off = p->off;
		if (p->rc)
			return p->rc; /* its walk is the file's: the reader says what is there */
	}
	return off == sc->data_end ? 0 : 1;
}

/*
 * The scan with windows of its own over the data (record headers and the
 * id / time words of each record only, none of the reader's stages); with
 * threads > 1 in pieces at once.  1: this file needs the reader's scan (a
 * record this scan does not step over, a damaged header: the reader says
 * what and where), 0 done, <0 -ENOMEM.
 */
#define PMC_MAX_PIECES 64
static int pmc_scan_windows(struct pmc_scan *sc, const pm_file *f, int threads, uint64_t min_piece)
{
	uint64_t off = f->info.data_offset, end = sc->data_end, each;
	struct pmc_piece *pc = NULL;
	pthread_t th[PMC_MAX_PIECES];
	bool started[PMC_MAX_PIECES] = { false };
	struct stat st;
	size_t n;
	int rc = 0;

	/* data past the end of the file: the reader says where it is cut */
	if (end <= off || fstat(f->fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < end)
		return 1;
	/* pieces of at least min_piece bytes */
	n = (size_t)PM_MAX(threads, 1);
	n = PM_MIN(n, PMC_MAX_PIECES);
	n = PM_MAX(PM_MIN(n, (size_t)((end - off) / PM_MAX(min_piece, 64))), 1);
	pc = calloc(n, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	each = (end - off) / n;
	for (size_t i = 0; i < n; i++) {
		struct pmc_piece *p = &pc[i];

		p->m = (struct pmc_map){ .f = f, .end = end };
		p->m.buf = malloc(PMC_WIN);
		if (!p->m.buf)
			rc = -ENOMEM;
		p->lo = off + i * each;
		p->hi = i + 1 < n ? p->lo + each : end;
		p->sc.block_max = sc->block_max;
		p->sc.data_end = end;
		p->sc.blk_start = p->lo;
	}
	pc[0].nsync = PMC_SYNC; /* piece 0 starts at the data offset: no meeting point to keep */
	for (size_t i = 1; !rc && i < n; i++)
		started[i] = !pthread_create(&th[i], NULL, pmc_piece_run, &pc[i]);
	if (!rc)
		pmc_piece_run(&pc[0]);
	for (size_t i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else if (!rc)
			pmc_piece_run(&pc[i]);
	}
	if (!rc)
		rc = pmc_merge(sc, pc, n);
	for (size_t i = 0; i < n; i++) {
		pmc_scan_free(&pc[i].sc);
		free(pc[i].m.buf);
	}
	free(pc);
	return rc;
}

/* The scan with a reader of its own (raw order, keep_compressed). */
static int pmc_scan_reader(struct pmc_scan *sc, pm_file *f)
{
	struct pm_file_opts so = { .sz = sizeof(so), .raw_order = 1, .keep_compressed = 1,
				   .window_size = 1u << 20 };
	pm_file *s = NULL;
	struct pmf_rec r;
	int rc;

	rc = pm_file_open_fd(&s, f->fd, &so);
	if (rc)
		return rc;
	free(s->name);
	s->name = strdup(PMF_NAME(f));
	while ((rc = pmf_next_inl(s, &r)) > 0) {
		if (r.type == PM_RECORD_COMPRESSED || r.type == PM_RECORD_COMPRESSED2 || r.from_comp) {
			/* the zstd stream runs through every COMPRESSED record */
			sc->whole = true;
			rc = 0;
			break;
		}
		rc = pmc_rec(sc, &r);
		if (rc)
			break;
	}
	pm_file_close(s);
	return rc;
}

/*
 * The sideband: the file's side records (MMAP, MMAP2, COMM, FORK, EXIT) in
 * the order a replay takes them, as one byte string that travels with the
 * chunks (to other processes or machines).  Little-endian header fields:
 *
 *   "PMSB" u32 version (1) u32 flags (PMC_SB_BE: the records' bytes are
 *   big-endian) u32 count u64 data_offset u64 data_end
 *   count x { u64 key, u64 time, u64 offset, i32 attr_idx, u32 size,
 *             size bytes of the record, padded to 8 }
 *
 * The order: by key, then file offset, where a record's key is its time,
 * or for a record without one the key of the record before it in the file
 * (0 for the first): pm_file_next() hands timed records out in time order
 * and untimed ones where they are read.
 */
#define PMC_SB_MAGIC "PMSB"
#define PMC_SB_VERSION 1u
#define PMC_SB_BE 1u
#define PMC_SB_HDR 32u
#define PMC_SB_ENT 32u

struct pmc_sbkey {
	uint64_t key, offset;
	size_t i;
};

static int pmc_sbkey_cmp(const void *a, const void *b)
{
	const struct pmc_sbkey *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int pmc_sideband(pm_chunk_index *idx, const pm_file *f, const struct pmc_scan *sc)
{
	struct pmc_sbkey *k = NULL;
	uint64_t key = 0;
	size_t len = PMC_SB_HDR;
	uint8_t *p;

	if (sc->nside > UINT32_MAX)
		return pm__err(EOVERFLOW, "%s: more than 2^32 side records", PMF_NAME(f));
	k = pm__reallocarray(NULL, sc->nside ? sc->nside : 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < sc->nside; i++) {
		const struct pmc_side *e = &sc->sv[i];

		if (e->time != PM_FILE_NO_TIME)
			key = e->time;
		k[i] = (struct pmc_sbkey){ key, e->offset, i };
		len += PMC_SB_ENT + ((e->size + 7u) & ~7u);
	}
	qsort(k, sc->nside, sizeof(*k), pmc_sbkey_cmp);
	idx->sb = p = calloc(1, len);
	if (!p) {
		free(k);
		return -ENOMEM;
	}
	idx->sb_len = len;
	memcpy(p, PMC_SB_MAGIC, 4);
	pm__st32(p + 4, PMC_SB_VERSION, false);
	pm__st32(p + 8, f->be ? PMC_SB_BE : 0, false);
	pm__st32(p + 12, (uint32_t)sc->nside, false);
	pm__st64(p + 16, f->info.data_offset, false);
	pm__st64(p + 24, sc->data_end, false);
	p += PMC_SB_HDR;
	for (size_t j = 0; j < sc->nside; j++) {
		const struct pmc_side *e = &sc->sv[k[j].i];

		pm__st64(p, k[j].key, false);
		pm__st64(p + 8, e->time, false);
		pm__st64(p + 16, e->offset, false);
		pm__st32(p + 24, (uint32_t)e->attr_idx, false);
		pm__st32(p + 28, e->size, false);
		memcpy(p + PMC_SB_ENT, sc->sbytes + e->at, e->size);
		p += PMC_SB_ENT + ((e->size + 7u) & ~7u);
	}
	free(k);
	return 0;
}

int pm_chunk_index_sideband(const pm_chunk_index *idx, const void **data, size_t *len)
{
	if (!idx || !data || !len)
		return pm__err(EINVAL, "pm_chunk_index_sideband: NULL argument");
	*data = NULL;
	*len = 0;
	if (!idx->sb)
		return pm__err(ENOENT, "the index has no sideband (a pipe stream or a zstd-compressed "
				       "file: one chunk, symbolized with the file)");
	*data = idx->sb;
	*len = idx->sb_len;
	return 0;
}

/* The replay of a sideband (pm__sym_resolve_rows_from()'s records). */
struct pmc_sbit {
	const uint8_t *p, *end;
	uint32_t left;
	uint64_t hi; /* records with a key from hi on cannot touch the rows */
	bool be;
};

static int pmc_sb_next(void *arg, struct pm_file_record *rec, uint64_t *nsamples)
{
	struct pmc_sbit *it = arg;
	uint32_t size;

	*nsamples = 0;
	if (!it->left || pm__ld64(it->p, false) >= it->hi)
		return 0;
	size = pm__ld32(it->p + 28, false);
	memset(rec, 0, sizeof(*rec));
	rec->sz = sizeof(*rec);
	rec->data = it->p + PMC_SB_ENT;
	rec->type = pm__ld32(it->p + PMC_SB_ENT, it->be);
	rec->misc = pm__ld16(it->p + PMC_SB_ENT + 4, it->be);
	rec->size = size;
	rec->time = pm__ld64(it->p + 8, false);
	rec->offset = pm__ld64(it->p + 16, false);
	rec->attr_idx = (int32_t)pm__ld32(it->p + 24, false);
	rec->big_endian = it->be;
	it->p += PMC_SB_ENT + ((size + 7u) & ~7u);
	it->left--;
	return 1;
}

int pm_sym_resolve_chunk_rows(pm_sym *s, pm_file *f, const void *sideband, size_t len,
			  const struct pm_file_chunk *c, const struct pm_sym_rows *rows)
{
	struct pm_file_info fi = { .sz = sizeof(fi) };
	const uint8_t *p = sideband, *q;
	struct pmc_sbit it;
	uint64_t doff, dend;
	uint32_t count;
	int rc;

	if (!s || !f || !sideband || !rows)
		return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: NULL argument");
	if (c && (rc = PM__SZ_VALID(c, pm_file_chunk, PM_FILE_CHUNK_SZ_V1)))
		return rc;
	rc = PM__SZ_VALID(rows, pm_sym_rows, PM_SYM_ROWS_SZ_V1);
	if (rc)
		return rc;
	if (rows->when && !(rows->flags & PM_SYM_WHEN_TIME))
		return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: rows with sample ordinals (not "
				       "PM_SYM_WHEN_TIME) need the file's replay (pm_sym_resolve_rows())");
	if (len < PMC_SB_HDR || memcmp(p, PMC_SB_MAGIC, 4))
		return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: not a sideband (%zu bytes)", len);
	if (pm__ld32(p + 4, false) != PMC_SB_VERSION)
		return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: sideband version %u (this library reads %u)",
			       pm__ld32(p + 4, false), PMC_SB_VERSION);
	count = pm__ld32(p + 12, false);
	doff = pm__ld64(p + 16, false);
	dend = pm__ld64(p + 24, false);
	rc = pm_file_get_info(f, &fi);
	if (rc)
		return rc;
	if (doff != fi.data_offset || (c && (c->data_offset != doff || c->data_end != dend)) ||
	    ((pm__ld32(p + 8, false) & PMC_SB_BE) != 0) != (fi.big_endian != 0))
		return pm__err(EINVAL, "%s: the sideband (data %" PRIu64 "-%" PRIu64 ") is not of this file "
			       "or chunk", PMF_NAME(f), doff, dend);
	/* every entry checked before the replay reads one */
	q = p + PMC_SB_HDR;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t size;

		if ((size_t)(p + len - q) < PMC_SB_ENT)
			return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: sideband cut in entry %u of %u", i, count);
		size = pm__ld32(q + 28, false);
		if (size < 8 || (size_t)(p + len - q) - PMC_SB_ENT < ((size + 7ull) & ~7ull) ||
		    pm__ld16(q + PMC_SB_ENT + 6, fi.big_endian) != size ||
		    !pmc_side_type(pm__ld32(q + PMC_SB_ENT, fi.big_endian)) ||
		    (i && pm__ld64(q, false) < pm__ld64(it.p, false)))
			return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: sideband entry %u of %u damaged", i, count);
		it.p = q;
		q += PMC_SB_ENT + ((size + 7u) & ~7u);
	}
	if (q != p + len)
		return pm__err(EINVAL, "pm_sym_resolve_chunk_rows: %zu bytes after the sideband's last entry",
			       (size_t)(p + len - q));
	it = (struct pmc_sbit){ .p = p + PMC_SB_HDR, .end = p + len, .left = count, .hi = UINT64_MAX,
				.be = fi.big_endian != 0 };
	/* rows of a time window: the records from its end on change none of them */
	if (c && (c->flags & PM_CHUNK_TIME_WINDOW) && rows->when)
		it.hi = c->time_hi;
	return pm__sym_resolve_rows_from(s, f, rows, pmc_sb_next, &it);
}

int pm_chunk_index_new_from_file(pm_chunk_index **out, pm_file *f, const struct pm_chunk_index_opts *opts)
{
	/* a piece's scan costs about 0.15 ms a MiB, a thread some 30 us */
	return pm__chunk_index_new(out, f, opts, PMC_SCAN_AUTO, 1u << 20);
}

int pm__chunk_index_new(pm_chunk_index **out, pm_file *f, const struct pm_chunk_index_opts *opts,
			int how, uint64_t min_piece)
{
	struct pm_chunk_index_opts o = { .sz = sizeof(o) };
	struct pmc_scan sc = { 0 };
	pm_chunk_index *idx;
	bool timed = false, untimed = false;
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
	if (o.threads < 0)
		return pm__err(EINVAL, "pm_chunk_index_opts.threads is negative (%d)", o.threads);
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	sc.block_max = PM_MAX(o.chunk_bytes / 8, 4096);
	sc.data_end = f->data_end;
	if (f->info.pipe_mode || !f->seekable) {
		/* a pipe stream is read once, as it comes */
		rc = pmc_one(idx, f, sc.data_end);
		goto done;
	}
	rc = how == PMC_SCAN_READER ? 1 : pmc_scan_windows(&sc, f, o.threads, min_piece);
	if (rc > 0 && how == PMC_SCAN_WINDOWS) {
		rc = -EAGAIN; /* the fuzz harness asked: the scan of windows cannot */
		goto done;
	}
	if (rc > 0) {
		pmc_scan_free(&sc);
		sc = (struct pmc_scan){ .block_max = sc.block_max, .data_end = sc.data_end,
					.blk_start = f->info.data_offset };
		rc = pmc_push(&sc.b, &sc.nb, &sc.cap, f->info.data_offset);
		if (!rc)
			rc = pmc_scan_reader(&sc, f);
	}
	if (rc < 0)
		goto done;
	for (size_t j = 0; j < sc.nb; j++) {
		const struct pmc_block *b = &sc.b[j];

		untimed |= b->untimed;
		if (b->tmin == UINT64_MAX)
			continue;
		if (!timed || b->tmin < idx->first)
			idx->first = b->tmin;
		if (!timed || b->tmax > idx->last)
			idx->last = b->tmax;
		timed = true;
	}
	idx->have_times = timed && !sc.whole;
	if (sc.whole || (timed && untimed) || sc.nb <= 1)
		rc = pmc_one(idx, f, sc.data_end);
	else
		rc = pmc_cut(idx, f, sc.b, sc.nb, sc.data_end, o.chunk_bytes, timed);
	if (!rc && idx->n == 1 && timed && !untimed && !sc.whole)
		idx->c[0].flags |= PM_CHUNK_TIME_WINDOW;
	if (!rc && !sc.whole)
		rc = pmc_sideband(idx, f, &sc);
done:
	pmc_scan_free(&sc);
	if (rc) {
		pm_chunk_index_free(idx);
		return rc;
	}
	*out = idx;
	return 0;
}

int pm_chunk_index_window(const pm_chunk_index *idx, uint64_t lo, uint64_t hi, struct pm_file_chunk *out)
{
	size_t k = 0, m;
	int rc;

	if (!idx || !out)
		return pm__err(EINVAL, "pm_chunk_index_window: NULL argument");
	rc = PM__SZ_VALID(out, pm_file_chunk, PM_FILE_CHUNK_SZ_V1);
	if (rc)
		return rc;
	if (lo >= hi)
		return pm__err(EINVAL, "pm_chunk_index_window: empty window [%" PRIu64 ", %" PRIu64 ")", lo, hi);
	for (size_t i = 0; i < idx->n; i++)
		if (!(idx->c[i].flags & PM_CHUNK_TIME_WINDOW))
			return pm__err(EINVAL, "pm_chunk_index_window: the chunks are not time windows (samples "
					       "without times, a pipe stream or a zstd file)");
	/* the chunks whose windows meet [lo, hi): k .. m (the windows tile the time axis) */
	while (k + 1 < idx->n && idx->c[k].time_hi <= lo)
		k++;
	m = k;
	while (m + 1 < idx->n && idx->c[m + 1].time_lo < hi)
		m++;
	/* chunk k's samples lie from its read_start on, chunk m's before its end,
	 * and read_start grows with the windows: [read_start of k, end of m) holds
	 * every sample of [lo, hi), and the cuts keep their bounds (no sample
	 * before it is from lo on, none after it before hi) */
	{
		struct pm_file_chunk c = idx->c[k];

		c.end = idx->c[m].end;
		c.time_lo = lo;
		c.time_hi = hi;
		c.flags = PM_CHUNK_TIME_WINDOW;
		if (idx->have_times && lo <= idx->last && hi > idx->first) {
			c.flags |= PM_CHUNK_TIME_KNOWN;
			c.time_min = PM_MAX(lo, idx->first);
			c.time_max = PM_MIN(hi - 1, idx->last);
		} else {
			c.time_min = c.time_max = 0;
		}
		pm__struct_copy_out(out, out->sz, &c, sizeof(c));
	}
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
