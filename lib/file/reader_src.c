/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * perf.data reader, stages 1 and 2: the byte source.  The read window over
 * the data stream (file: pread, pipe: read), record extents, a pipe
 * stream's tolerated tail, and the records decompressed out of
 * COMPRESSED/COMPRESSED2 (zstd, streamed through a bounded buffer).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef PM_HAVE_ZSTD
#include <zstd.h>
#endif

#include "reader_int.h"

#define PMF_MAX_RECORD (1u << 30)     /* records with out-of-band data */
/* decompressed bytes in memory at once: a record (<= 64 KiB) and room */
#define PMF_DBUF_CAP ((size_t)256 << 10)
/* the most one COMPRESSED record may decompress to: twice HEADER_COMPRESSED's
 * mmap_len, within these */
#define PMF_ZOUT_MIN ((uint64_t)16 << 20)
#define PMF_ZOUT_MAX ((uint64_t)1 << 30)

/* ------------------------------------------------------------------ */
/* low-level reads */

int pmf_pread_full(pm_file *f, void *buf, size_t len, uint64_t off, const char *what)
{
	uint8_t *b = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(f->fd, b + got, len - got, (off_t)(off + got));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return pm__err(errno, "%s: reading %s at offset %" PRIu64 ": %s", PMF_NAME(f), what,
				       off + got, strerror(errno));
		}
		if (r == 0)
			return pm__err(PM_ERR_TRUNCATED,
				       "%s: %s at offset %" PRIu64 " (%zu bytes) is cut short at "
				       "offset %" PRIu64 " (end of file)", PMF_NAME(f), what, off, len, off + got);
		got += (size_t)r;
	}
	return 0;
}

/*
 * Make [win_pos, win_pos + need) available.  Returns 1 if it is, 0 if the
 * stream ends before, <0 on a read error.  Pointers into the window are
 * invalidated (the window may be compacted or moved).
 */
int pmf_fill(pm_file *f, size_t need)
{
	if (f->win_end - f->win_pos >= need)
		return 1;
	if (f->qend) {
		/* queued records may point into the window: continue in the
		 * other buffer, after copying out what still points into it */
		size_t left = f->win_end - f->win_pos, cap = PM_MAX(need, f->win_cap);
		uint8_t *t;
		int rc = pmf_q_evacuate(f, f->alt, f->alt_cap);

		if (rc)
			return rc;
		if (f->alt_cap < cap) {
			t = realloc(f->alt, cap);
			if (!t)
				return pm__err(ENOMEM, "%s: no memory for a %zu-byte window", PMF_NAME(f), cap);
			f->alt = t;
			f->alt_cap = cap;
		}
		memcpy(f->alt, f->win + f->win_pos, left);
		t = f->win;
		f->win = f->alt;
		f->alt = t;
		cap = f->win_cap;
		f->win_cap = f->alt_cap;
		f->alt_cap = cap;
		f->win_off += f->win_pos;
		f->win_end = left;
		f->win_pos = 0;
	} else if (f->win_pos) {
		memmove(f->win, f->win + f->win_pos, f->win_end - f->win_pos);
		f->win_off += f->win_pos;
		f->win_end -= f->win_pos;
		f->win_pos = 0;
	}
	if (need > f->win_cap) {
		size_t nc = PM_MAX(need, f->win_cap * 2);
		uint8_t *n;
		int rc = pmf_q_evacuate(f, f->win, f->win_cap);

		if (rc)
			return rc;
		n = realloc(f->win, nc);
		if (!n)
			return pm__err(ENOMEM, "%s: no memory for a %zu-byte window", PMF_NAME(f), nc);
		f->win = n;
		f->win_cap = nc;
	}
	while (f->win_end < need) {
		uint64_t off = f->win_off + f->win_end;
		size_t want = f->win_cap - f->win_end;
		ssize_t r;

		if (f->data_end != UINT64_MAX) {
			if (off >= f->data_end)
				break;
			if (want > f->data_end - off)
				want = (size_t)(f->data_end - off);
		}
		if (f->seekable)
			r = pread(f->fd, f->win + f->win_end, want, (off_t)off);
		else
			r = read(f->fd, f->win + f->win_end, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return pm__err(errno, "%s: read error at offset %" PRIu64 ": %s", PMF_NAME(f), off,
				       strerror(errno));
		}
		if (r == 0)
			break;
		f->win_end += (size_t)r;
	}
	return f->win_end - f->win_pos >= need;
}

int pmf_fail(pm_file *f, int rc, uint64_t off)
{
	f->err = rc;
	f->err_off = off;
	return rc;
}

/* Total length of a record in the stream, out-of-band data included. */
int pmf_rec_extent(pm_file *f, const uint8_t *p, size_t avail, uint64_t off, uint64_t *total)
{
	uint32_t type = pm__ld32(p, f->be);
	uint16_t size = pm__ld16(p + 6, f->be);
	uint64_t extra = 0;

	if (size < 8)
		return pm__err(PM_ERR_CORRUPT,
			       "%s: record at offset %" PRIu64 " (type %u) has size %u, "
			       "smaller than its 8-byte header", PMF_NAME(f), off, type, size);
	if (type == PM_RECORD_HEADER_TRACING_DATA || type == PM_RECORD_AUXTRACE) {
		size_t need = type == PM_RECORD_AUXTRACE ? 16 : 12;

		if (size < need)
			return pm__err(PM_ERR_CORRUPT,
				       "%s: %s record at offset %" PRIu64 " has size %u < %zu", PMF_NAME(f),
				       pm_record_type_name(type), off, size, need);
		if (avail < need)
			return 0; /* caller fills more and retries */
		extra = type == PM_RECORD_AUXTRACE ? pm__ld64(p + 8, f->be) : pm__ld32(p + 8, f->be);
		if (extra > PMF_MAX_RECORD)
			return pm__err(PM_ERR_CORRUPT,
				       "%s: %s record at offset %" PRIu64 " claims %" PRIu64
				       " bytes of data", PMF_NAME(f), pm_record_type_name(type), off, extra);
	}
	*total = size + extra;
	return 1;
}

/* trailing bytes after the last record that may be junk rather than damage */
#define PMF_JUNK_MAX (64u << 10)

/*
 * Damage rc at offset off of a pipe stream, at its end: the last record cut
 * (cut: the stream ended inside it) or junk after the last record (fewer
 * than PMF_JUNK_MAX bytes up to the end of the stream).  Unless strict, the
 * stream ends there: the records before it are all handed out, the message
 * is kept for pm_file_end_status() and 0 is returned.  Anything else is the
 * error it is.
 */
static int pmf_tail(pm_file *f, int rc, uint64_t off, bool cut)
{
	char msg[sizeof(f->tail_msg)];

	if (f->strict || !f->info.pipe_mode || rc >= 0 || rc == -ENOMEM)
		return pmf_fail(f, rc, off);
	snprintf(msg, sizeof(msg), "%s", pm_errmsg());
	if (!cut) {
		/* junk only when the stream ends within PMF_JUNK_MAX bytes of it */
		int more = pmf_fill(f, PMF_JUNK_MAX + 1);

		if (more != 0) {
			pm__err(-rc, "%s", msg);
			return pmf_fail(f, rc, off);
		}
	}
	snprintf(f->tail_msg, sizeof(f->tail_msg), "%s", msg);
	f->tail_err = rc;
	f->tail_off = off;
	f->win_pos = f->win_end;
	return 0;
}

/* Stage 1: the next raw record of the stream (in place in the window). */
static int pmf_src_next(pm_file *f, struct pmf_rec *r)
{
	uint64_t off, total = 0;
	int rc;

	if (f->tail_err)
		return 0;
	rc = pmf_fill(f, 8);
	if (rc < 0)
		return pmf_fail(f, rc, f->win_off + f->win_pos);
	off = f->win_off + f->win_pos;
	if (!rc) {
		size_t left = f->win_end - f->win_pos;

		if (!left && f->data_end != UINT64_MAX && off < f->data_end)
			/* file mode: the header says how much data there is */
			return pmf_fail(f, pm__err(PM_ERR_TRUNCATED,
					   "%s: the data ends at offset %" PRIu64 ", %" PRIu64
					   " bytes before the end the header gives (data offset %"
					   PRIu64 " + size %" PRIu64 "): the file is cut short", PMF_NAME(f), off,
					   f->data_end - off, f->info.data_offset,
					   f->info.data_size), off);
		if (!left)
			return 0;
		return pmf_tail(f, pm__err(PM_ERR_TRUNCATED,
					   "%s: record header at offset %" PRIu64
					   " is cut short (%zu bytes left)", PMF_NAME(f), off, left), off, true);
	}
	rc = pmf_rec_extent(f, f->win + f->win_pos, f->win_end - f->win_pos, off, &total);
	if (rc == 0) {
		rc = pmf_fill(f, 16);
		if (rc < 0)
			return pmf_fail(f, rc, off);
		if (rc == 0)
			return pmf_tail(f, pm__err(PM_ERR_TRUNCATED,
				"%s: record at offset %" PRIu64 " is cut short (%zu bytes left)", PMF_NAME(f),
				off, f->win_end - f->win_pos), off, true);
		rc = pmf_rec_extent(f, f->win + f->win_pos, f->win_end - f->win_pos, off, &total);
	}
	if (rc < 0)
		return pmf_tail(f, rc, off, false);
	rc = pmf_fill(f, (size_t)total);
	if (rc < 0)
		return pmf_fail(f, rc, off);
	if (!rc) {
		const uint8_t *p = f->win + f->win_pos;

		return pmf_tail(f, pm__err(PM_ERR_TRUNCATED,
					   "%s: record at offset %" PRIu64 " (type %u, size %" PRIu64
					   ") runs past the end of the data (%zu bytes left)", PMF_NAME(f),
					   off, pm__ld32(p, f->be), total, f->win_end - f->win_pos), off, true);
	}
	r->data = f->win + f->win_pos;
#if defined(__GNUC__) || defined(__clang__)
	/* the data is read once, front to back: ask for it ahead (a hint
	 * only; never faults, even past the end of the mapping) */
	__builtin_prefetch(r->data + 2048);
#endif
	r->size = (uint32_t)total;
	r->type = pm__ld32(r->data, f->be);
	r->misc = pm__ld16(r->data + 4, f->be);
	r->offset = off;
	r->from_comp = false;
	f->win_pos += (size_t)total;
	return 1;
}

/* ------------------------------------------------------------------ */
/* decompression */

/* Take the compressed bytes of a COMPRESSED record as the next input of the
 * decompression stream; pmf_inflate() turns them into records. */
static int pmf_decompress(pm_file *f, const struct pmf_rec *r)
{
	const uint8_t *src = r->data + 8;
	size_t n = r->size - 8;

	if (r->type == PM_RECORD_COMPRESSED2) {
		uint64_t dsz;

		if (r->size < 16)
			return pm__err(PM_ERR_CORRUPT, "%s: COMPRESSED2 record at offset %" PRIu64
				       " is too short", PMF_NAME(f), r->offset);
		dsz = pm__ld64(r->data + 8, f->be);
		if (dsz > r->size - 16u)
			return pm__err(PM_ERR_CORRUPT, "%s: COMPRESSED2 record at offset %" PRIu64
				       " claims %" PRIu64 " bytes in %u", PMF_NAME(f), r->offset, dsz, r->size);
		src = r->data + 16;
		n = (size_t)dsz;
	}
#ifdef PM_HAVE_ZSTD
	if (!f->zds) {
		f->zds = ZSTD_createDStream();
		if (!f->zds)
			return pm__err(ENOMEM, "zstd: cannot create a decompression stream");
		ZSTD_initDStream(f->zds);
	}
	if (!f->dbuf) {
		f->dbuf = malloc(PMF_DBUF_CAP);
		if (!f->dbuf)
			return -ENOMEM;
		f->dcap = PMF_DBUF_CAP;
	}
	if (!f->zout_max) {
		/* perf decompresses one record into a buffer of the ring's
		 * size (HEADER_COMPRESSED mmap_len): allow twice that */
		uint64_t m = 2 * (uint64_t)f->comp[4];

		f->zout_max = m > PMF_ZOUT_MIN ? (m < PMF_ZOUT_MAX ? m : PMF_ZOUT_MAX) : PMF_ZOUT_MIN;
	}
	f->zin = src;
	f->zin_size = n;
	f->zin_pos = 0;
	f->zout_rec = 0;
	f->d_rec_off = r->offset;
	return 0;
#else
	(void)src;
	(void)n;
	return pm__err(PM_ERR_UNSUPPORTED,
		       "%s: record at offset %" PRIu64 " is zstd-compressed (perf record -z) "
		       "and this libprofileme was built without zstd", PMF_NAME(f), r->offset);
#endif
}

/* More decompressed bytes into dbuf (bounded: PMF_DBUF_CAP, the partial
 * record at its start kept): 1 when some came, 0 when the current input
 * is used up, or a negative code. */
static int pmf_inflate(pm_file *f)
{
#ifdef PM_HAVE_ZSTD
	ZSTD_inBuffer in = { f->zin, f->zin_size, f->zin_pos };
	ZSTD_outBuffer out;
	size_t ret;

	if (f->zin_pos >= f->zin_size && !f->zmore)
		return 0;
	if (f->dpos) {
		memmove(f->dbuf, f->dbuf + f->dpos, f->dend - f->dpos);
		f->dend -= f->dpos;
		f->dpos = 0;
	}
	out.dst = f->dbuf + f->dend;
	out.size = f->dcap - f->dend;
	out.pos = 0;
	ret = ZSTD_decompressStream(f->zds, &out, &in);
	if (ZSTD_isError(ret))
		return pm__err(PM_ERR_CORRUPT, "%s: COMPRESSED record at offset %" PRIu64
			       ": zstd: %s", PMF_NAME(f), f->d_rec_off, ZSTD_getErrorName(ret));
	f->zin_pos = in.pos;
	f->zmore = out.pos == out.size;
	f->dend += out.pos;
	f->zout_rec += out.pos;
	if (f->zout_rec > f->zout_max)
		return pm__err(PM_ERR_CORRUPT, "%s: COMPRESSED record at offset %" PRIu64
			       " decompresses to more than %" PRIu64 " bytes (HEADER_COMPRESSED "
			       "mmap_len %u)", PMF_NAME(f), f->d_rec_off, f->zout_max, f->comp[4]);
	return out.pos || in.pos < in.size || f->zmore ? 1 : 0;
#else
	(void)f;
	return 0;
#endif
}

/* Stage 2: records, decompressed ones included. */
int pmf_rec_next(pm_file *f, struct pmf_rec *r)
{
	int rc;

	for (;;) {
		if (f->dpos < f->dend || f->zin_pos < f->zin_size || f->zmore) {
			size_t left = f->dend - f->dpos;
			const uint8_t *p = f->dbuf + f->dpos;

			if (left >= 8) {
				uint16_t size = pm__ld16(p + 6, f->be);

				if (size < 8)
					return pmf_fail(f, pm__err(PM_ERR_CORRUPT,
						"%s: a record decompressed from offset %" PRIu64
						" has size %u", PMF_NAME(f), f->d_rec_off, size), f->d_rec_off);
				if (left >= size) {
					r->data = p;
					r->size = size;
					r->type = pm__ld32(p, f->be);
					r->misc = pm__ld16(p + 4, f->be);
					r->offset = f->d_rec_off;
					r->from_comp = true;
					f->dpos += size;
					return 1;
				}
			}
			rc = pmf_inflate(f);
			if (rc < 0)
				return pmf_fail(f, rc, f->d_rec_off);
			if (rc > 0)
				continue;
			/* a record continues in the next COMPRESSED record */
		}
		rc = pmf_src_next(f, r);
		if (rc <= 0) {
			if (rc == 0 && f->dpos < f->dend && !f->tail_err)
				return pmf_tail(f, pm__err(PM_ERR_TRUNCATED,
					"%s: compressed data from offset %" PRIu64
					" ends inside a record", PMF_NAME(f), f->d_rec_off), f->d_rec_off, true);
			return rc;
		}
		if (r->type != PM_RECORD_COMPRESSED && r->type != PM_RECORD_COMPRESSED2)
			return 1;
		rc = pmf_decompress(f, r);
		if (rc < 0)
			return pmf_fail(f, rc, r->offset);
		if (f->keep_compressed)
			return 1;
	}
}
