/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * perf.data reader: header, attrs, read window, decompression, metadata
 * records, id -> attr matching, time ordering.
 *
 * Stages of pm_file_next():
 *   src_next()   raw records from the read window (file: pread, pipe: read)
 *   rec_next()   + records decompressed out of COMPRESSED/COMPRESSED2
 *   meta_next()  + metadata taken into account (HEADER_ATTR, EVENT_UPDATE,
 *                  ID_INDEX, HEADER_FEATURE, ...), attr and time attached
 *   pm_file_next()  + time ordering (heap between FINISHED_ROUND markers)
 */
#include <fcntl.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PM_HAVE_ZSTD
#include <zstd.h>
#endif

#include <profileme/event.h>

#include "reader_int.h"

#define PMF_DEFAULT_WINDOW (256u << 10)
#define PMF_MIN_WINDOW (64u << 10)
#define PMF_DEFAULT_REORDER (64u << 20)
#define PMF_MAX_RECORD (1u << 30)     /* records with out-of-band data */
#define PMF_MAX_HEADER_SECTION (256u << 20)
#define PMF_PRIME_MAX (64u << 20)
/* decompressed bytes in memory at once: a record (<= 64 KiB) and room */
#define PMF_DBUF_CAP ((size_t)256 << 10)
/* the most one COMPRESSED record may decompress to: twice HEADER_COMPRESSED's
 * mmap_len, within these */
#define PMF_ZOUT_MIN ((uint64_t)16 << 20)
#define PMF_ZOUT_MAX ((uint64_t)1 << 30)

#define PMF_HDR_SIZE 104
#define PMF_HDR_SIZE_OLD 72
#define PMF_PIPE_HDR_SIZE 16

/* ------------------------------------------------------------------ */
/* id map */

static size_t pmf_hash(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

int pmf_evsel_by_id(const pm_file *f, uint64_t id)
{
	if (!f->hcap)
		return -ENOENT;
	for (size_t i = pmf_hash(id, f->hcap);; i = (i + 1) & (f->hcap - 1)) {
		if (f->hval[i] < 0)
			return -ENOENT;
		if (f->hkey[i] == id)
			return f->hval[i];
	}
}

static void pmf_map_put(pm_file *f, uint64_t id, int32_t idx)
{
	size_t i = pmf_hash(id, f->hcap);

	while (f->hval[i] >= 0 && f->hkey[i] != id)
		i = (i + 1) & (f->hcap - 1);
	if (f->hval[i] < 0)
		f->hcount++;
	f->hkey[i] = id;
	f->hval[i] = idx;
}

static int pmf_map_grow(pm_file *f)
{
	size_t ncap = f->hcap ? f->hcap * 2 : 64;
	uint64_t *ok = f->hkey;
	int32_t *ov = f->hval;
	size_t ocap = f->hcap;

	f->hkey = calloc(ncap, sizeof(*f->hkey));
	f->hval = malloc(ncap * sizeof(*f->hval));
	if (!f->hkey || !f->hval) {
		free(f->hkey);
		free(f->hval);
		f->hkey = ok;
		f->hval = ov;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ncap; i++)
		f->hval[i] = -1;
	f->hcap = ncap;
	f->hcount = 0;
	for (size_t i = 0; i < ocap; i++)
		if (ov[i] >= 0)
			pmf_map_put(f, ok[i], ov[i]);
	free(ok);
	free(ov);
	return 0;
}

int pmf_add_id(pm_file *f, size_t idx, uint64_t id)
{
	struct pmf_evsel *e = &f->ev[idx];
	int cur = pmf_evsel_by_id(f, id);

	if (cur == (int)idx)
		return 0;
	if ((f->hcount + 1) * 2 > f->hcap && pmf_map_grow(f))
		return -ENOMEM;
	pmf_map_put(f, id, (int32_t)idx);
	if (cur >= 0) /* moved from another attr: keep its list as is */
		pm__debug("%s: id %" PRIu64 " moves from attr %d to %zu", PMF_NAME(f), id, cur, idx);
	if (e->nr_ids == e->cap_ids) {
		size_t nc = e->cap_ids ? e->cap_ids * 2 : 8;
		uint64_t *n = pm__reallocarray(e->ids, nc, sizeof(*n));

		if (!n)
			return -ENOMEM;
		e->ids = n;
		e->cap_ids = nc;
	}
	e->ids[e->nr_ids++] = id;
	return 0;
}

/* ------------------------------------------------------------------ */
/* attrs */

static void pmf_evsel_positions(struct pmf_evsel *e)
{
	uint64_t st = e->attr.sample_type;
	int n = 0;

	e->time_off_sample = -1;
	if (st & PM_SAMPLE_TIME) {
		n += !!(st & PM_SAMPLE_IDENTIFIER) + !!(st & PM_SAMPLE_IP) + !!(st & PM_SAMPLE_TID);
		e->time_off_sample = 8 + 8 * n;
	}
	e->time_slots_trailer = 0;
	if ((e->attr.flags & PM_ATTR_SAMPLE_ID_ALL) && (st & PM_SAMPLE_TIME))
		e->time_slots_trailer = 1 + !!(st & PM_SAMPLE_ID) + !!(st & PM_SAMPLE_STREAM_ID) +
					!!(st & PM_SAMPLE_CPU) + !!(st & PM_SAMPLE_IDENTIFIER);
}

/*
 * The name perf builds from an attr alone, for files that name none of
 * their events (old perf, simpleperf, pipe streams without EVENT_UPDATE).
 * Tracepoints are named from the file's tracing data when the name is
 * asked for (pm_file_event_name()), never from this machine's tracefs.
 */
static void pmf_auto_name(struct pmf_evsel *e)
{
	char buf[256];

	e->autoname = NULL;
	if (e->attr.type == PM_TYPE_TRACEPOINT)
		return;
	/* no PMU list: this machine's PMU types are not the recording's */
	if (pm_attr_perf_name(&e->attr, NULL, buf, sizeof(buf)) >= 0)
		e->autoname = strdup(buf);
}

/*
 * A dynamic PMU type (not one of perf's fixed ones) that the file's
 * PMU_MAPPINGS names: `pmu/config=0x../` with perf's modifiers (the file
 * carries no format fields to split the config words by).
 */
static char *pmf_pmu_name(const pm_file *f, const struct pm_attr *a)
{
	static const char *const word[4] = { "config", "config1", "config2", "config3" };
	const uint64_t w[4] = { a->config, a->config1, a->config2, a->config3 };
	struct pm_attr raw = *a;
	char mods[64], out[320];
	const char *pmu = NULL, *colon;
	size_t n;
	bool first = true;

	for (size_t i = 0; i < f->npmumap && !pmu; i++)
		if (f->pmumap[i].type == a->type && f->pmumap[i].name)
			pmu = f->pmumap[i].name;
	if (!pmu)
		return NULL;
	/* perf's modifier letters, as pm_attr_perf_name() writes them */
	raw.type = PM_TYPE_RAW;
	raw.config = 0;
	mods[0] = 0;
	if (pm_attr_perf_name(&raw, NULL, out, sizeof(out)) >= 0 && (colon = strchr(out, ':')))
		snprintf(mods, sizeof(mods), "%s", colon + 1);
	n = (size_t)snprintf(out, sizeof(out), "%s/", pmu);
	for (int k = 0; k < 4 && n < sizeof(out); k++) {
		if (!w[k])
			continue;
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s=0x%" PRIx64, first ? "" : ",",
				      word[k], w[k]);
		first = false;
	}
	if (n < sizeof(out))
		snprintf(out + n, sizeof(out) - n, "/%s", mods);
	return strdup(out);
}

int pmf_add_evsel(pm_file *f, const struct pm_attr *attr, const uint8_t *ids, size_t nr_ids)
{
	struct pmf_evsel *e;
	int rc;

	if (f->nr_ev == f->cap_ev) {
		size_t nc = f->cap_ev ? f->cap_ev * 2 : 4;
		struct pmf_evsel *n = pm__reallocarray(f->ev, nc, sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->ev = n;
		f->cap_ev = nc;
	}
	e = &f->ev[f->nr_ev];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	rc = pm_sample_layout_new(&e->layout, attr);
	if (rc < 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "attr %zu: %s", f->nr_ev,
			 pm_errmsg()[0] ? pm_errmsg() : pm_strerror(rc));
		pm__warn("%s: %s", PMF_NAME(f), msg);
		e->layout = NULL;
		e->layout_err = strdup(msg);
		if (!e->layout_err)
			return -ENOMEM;
	}
	pmf_evsel_positions(e);
	pmf_auto_name(e);
	f->nr_ev++;
	for (size_t i = 0; i < nr_ids; i++) {
		rc = pmf_add_id(f, f->nr_ev - 1, pm__ld64(ids + 8 * i, f->be));
		if (rc)
			return rc;
	}
	return 0;
}

int pmf_set_name(pm_file *f, size_t idx, const char *name, size_t len)
{
	char *n = pm__strndup(name, strnlen(name, len));

	if (!n)
		return -ENOMEM;
	free(f->ev[idx].name);
	f->ev[idx].name = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* low-level reads */

static int pmf_pread_full(pm_file *f, void *buf, size_t len, uint64_t off, const char *what)
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

static int pmf_q_evacuate(pm_file *f, const uint8_t *buf, size_t len);

/*
 * Make [win_pos, win_pos + need) available.  Returns 1 if it is, 0 if the
 * stream ends before, <0 on a read error.  Pointers into the window are
 * invalidated (the window may be compacted or moved).
 */
static int pmf_fill(pm_file *f, size_t need)
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

static int pmf_fail(pm_file *f, int rc, uint64_t off)
{
	f->err = rc;
	f->err_off = off;
	return rc;
}

/* Total length of a record in the stream, out-of-band data included. */
static int pmf_rec_extent(pm_file *f, const uint8_t *p, size_t avail, uint64_t off, uint64_t *total)
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
static int pmf_rec_next(pm_file *f, struct pmf_rec *r)
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

/* ------------------------------------------------------------------ */
/* metadata records */

static void pmf_names_from_event_desc(pm_file *f);

/* Parse the loaded TRACING_DATA bytes (feature or record); damage is a
 * warning naming the offset: what came before it still names events. */
static int pmf_tracing_load(pm_file *f)
{
	struct pmf_feat *ft = &f->feat[PM_FEAT_TRACING_DATA];
	struct pmf_tracing *t;

	if (!ft->loaded)
		return 0;
	t = pmf_tracing_parse(ft->raw, ft->len, ft->off, PMF_NAME(f));
	if (!t)
		return -ENOMEM;
	if (t->err)
		pm__warn("%s", t->errmsg);
	pmf_tracing_free(f->tracing);
	f->tracing = t;
	return 0;
}

static int pmf_meta(pm_file *f, const uint8_t *p, uint32_t size, uint32_t type, uint64_t off)
{
	bool be = f->be;

	switch (type) {
	case PM_RECORD_HEADER_ATTR: {
		struct pm_attr a;
		size_t asz, nids;
		int rc;

		if (size < 8 + PM_ATTR_SIZE_VER0)
			goto bad;
		rc = pm_attr_from_bytes(&a, p + 8, size - 8, be);
		if (rc < 0)
			goto bad;
		asz = a.size;
		nids = (size - 8 - asz) / 8;
		return pmf_add_evsel(f, &a, p + 8 + asz, nids);
	}
	case PM_RECORD_EVENT_UPDATE: {
		int idx;

		if (size < 24)
			goto bad;
		idx = pmf_evsel_by_id(f, pm__ld64(p + 16, be));
		if (idx >= 0 && pm__ld64(p + 8, be) == PM_EVENT_UPDATE_NAME)
			return pmf_set_name(f, (size_t)idx, (const char *)p + 24, size - 24);
		return 0;
	}
	case PM_RECORD_ID_INDEX:
		/* {id, idx, cpu, tid}: idx is the id's slot within its event (the
		 * fd index), not an attr index: ids are owned through the attr
		 * section / HEADER_ATTR.  Nothing to learn for matching. */
		return 0;
	case PM_RECORD_HEADER_FEATURE: {
		uint64_t feat;
		struct pmf_feat *ft;
		uint8_t *copy;

		if (size < 16)
			goto bad;
		feat = pm__ld64(p + 8, be);
		if (feat >= PM_FEAT_BITS)
			return 0;
		copy = malloc(size - 16 + 1u);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, p + 16, size - 16);
		ft = &f->feat[feat];
		free(ft->raw);
		ft->raw = copy;
		ft->len = size - 16;
		ft->present = ft->loaded = true;
		ft->err = 0;
		ft->off = off + 16;
		ft->size = size - 16;
		PMF_SET_BIT(f->info.features, feat);
		pmf_feat_decode(f, (unsigned)feat);
		if (feat == PM_FEAT_EVENT_DESC)
			pmf_names_from_event_desc(f);
		return 0;
	}
	case PM_RECORD_HEADER_TRACING_DATA: {
		/* the data follows the record's header.size bytes (12 in perf
		 * 6.1, 16 where later perf pads the struct) */
		struct pmf_feat *ft = &f->feat[PM_FEAT_TRACING_DATA];
		uint32_t hs = pm__ld16(p + 6, be);
		uint8_t *copy;

		if (hs < 12 || hs > size)
			goto bad;
		copy = malloc(size - hs + 1u);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, p + hs, size - hs);
		free(ft->raw);
		ft->raw = copy;
		ft->len = size - hs;
		ft->present = ft->loaded = true;
		ft->off = off + hs;
		ft->size = size - hs;
		PMF_SET_BIT(f->info.features, PM_FEAT_TRACING_DATA);
		return pmf_tracing_load(f);
	}
	case PM_RECORD_HEADER_BUILD_ID:
		return pmf_add_build_id(f, p, size, be);
	default:
		return 0;
	}
bad:
	pm__warn("%s: malformed %s record at offset %" PRIu64 " ignored", PMF_NAME(f),
		 pm_record_type_name(type), off);
	return 0;
}



/* Stage 3: records with metadata processed and attr/time attached. */
static int pmf_meta_next(pm_file *f, struct pmf_rec *r)
{
	int rc;

	if (f->err)
		return f->err;
	rc = pmf_rec_next(f, r);
	if (rc <= 0)
		return rc;
	if (r->type >= PM_RECORD_USER_TYPE_START &&
	    (r->from_comp || r->offset >= f->meta_done)) {
		rc = pmf_meta(f, r->data, r->size, r->type, r->offset);
		if (rc < 0)
			return pmf_fail(f, rc, r->offset);
		if (!r->from_comp)
			f->meta_done = r->offset + r->size;
	}
	pmf_classify(f, r);
	return 1;
}

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
	if (!r->from_comp) {
		e->data = r->data; /* stays in the window until it moves on */
		e->chunk = NULL;
	} else {
		uint8_t *p = pmf_q_alloc(f, r->size, &e->chunk);

		if (!p)
			return -ENOMEM;
		memcpy(p, r->data, r->size);
		e->data = p;
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
	if (e->chunk)
		pmf_chunk_release(f, e->chunk);
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
	e->data = r->data;
	e->chunk = NULL;
	e->offset = r->offset;
	e->size = r->size;
	e->attr_idx = r->attr_idx;
	e->misc = r->misc;
	e->type = (uint8_t)r->type;
	e->from_comp = 0;
	run->end++;
	f->qbytes += PMF_QENT_BYTES(r->size);
	if (r->time > f->max_ts)
		f->max_ts = r->time;
	return true;
}


/*
 * Before the read buffer [buf, buf + len) is reused: copy out the queued
 * records that point into it.  Within a run, records pointing into a buffer
 * were pushed after those pointing into the buffer used before it, so each
 * run is scanned from its done mark to its first record in another buffer.
 */
static int pmf_q_evacuate(pm_file *f, const uint8_t *buf, size_t len)
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

			if (e->chunk)
				continue;
			if ((uintptr_t)e->data < lo || (uintptr_t)e->data >= hi)
				break;
			p = pmf_q_alloc(f, e->size, &e->chunk);
			if (!p)
				return pm__err(ENOMEM, "%s: no memory to sort records", PMF_NAME(f));
			memcpy(p, e->data, e->size);
			e->data = p;
		}
		run->done = k;
	}
	return 0;
}

static void pmf_q_free(pm_file *f)
{
	for (size_t i = 0; i < f->nruns; i++)
		for (size_t k = f->runs[i].head; k < f->runs[i].end; k++)
			if (f->q[k].chunk)
				pmf_chunk_release(f, f->q[k].chunk);
	if (f->last_out)
		pmf_chunk_release(f, f->last_out);
	free(f->q);
	free(f->runs);
	free(f->rheap);
	free(f->cur_chunk);
	free(f->spare_chunk);
}

void pmf_out(const pm_file *f, struct pm_file_record *rec, const struct pmf_rec *r)
{
	struct pm_file_record o;

	if (rec->sz == sizeof(o)) {
		rec->type = r->type;
		rec->misc = r->misc;
		rec->reserved = 0;
		rec->size = r->size;
		rec->attr_idx = r->attr_idx;
		rec->data = r->data;
		rec->offset = r->offset;
		rec->time = r->time;
		rec->from_compressed = r->from_comp;
		rec->big_endian = f->be;
		return;
	}
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.type = r->type;
	o.misc = r->misc;
	o.size = r->size;
	o.attr_idx = r->attr_idx;
	o.data = r->data;
	o.offset = r->offset;
	o.time = r->time;
	o.from_compressed = r->from_comp;
	o.big_endian = f->be;
	pm__struct_copy_out(rec, rec->sz, &o, sizeof(o));
}

/* pm_file_next() without the public struct: the next record in order. */
int pmf_next(pm_file *f, struct pmf_rec *r)
{
	int rc;

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

int pm_file_next(pm_file *f, struct pm_file_record *rec)
{
	struct pmf_rec r;
	int rc;

	if (!f || !rec)
		return pm__err(EINVAL, "pm_file_next: NULL argument");
	if (rec->sz != sizeof(*rec)) {
		rc = PM__SZ_VALID(rec, pm_file_record, PM_FILE_RECORD_SZ_V1);
		if (rc)
			return rc;
	}
	rc = pmf_next(f, &r);
	if (rc > 0)
		pmf_out(f, rec, &r);
	return rc;
}

int pm_file_end_status(const pm_file *f, uint64_t *offset, const char **msg)
{
	if (offset)
		*offset = f && f->tail_err ? f->tail_off : UINT64_MAX;
	if (msg)
		*msg = f && f->tail_err ? f->tail_msg : NULL;
	return f ? f->tail_err : -EINVAL;
}

uint64_t pm_file_error_offset(const pm_file *f)
{
	return f && f->err ? f->err_off : UINT64_MAX;
}

int pm_file_header_status(const pm_file *f, uint64_t *offset)
{
	if (!f)
		return -EINVAL;
	if (offset)
		*offset = f->hdr_err ? f->hdr_err_off : UINT64_MAX;
	return f->hdr_err;
}

/* ------------------------------------------------------------------ */
/* open */

static int pmf_read_attrs(pm_file *f)
{
	uint64_t asz = f->info.attr_size, off = f->info.attrs_offset, size = f->info.attrs_size;
	uint8_t *buf;
	int rc = 0;

	if (!asz)
		return pm__err(PM_ERR_FORMAT, "%s: attr_size is 0 (header offset 16)", PMF_NAME(f));
	if (asz < PM_ATTR_SIZE_VER0 + 16 || asz > (1u << 16))
		return pm__err(PM_ERR_FORMAT, "%s: attr_size %" PRIu64 " is impossible "
			       "(header offset 16)", PMF_NAME(f), asz);
	if (!pm__fits(off, size, f->info.file_size))
		return pm__err(PM_ERR_TRUNCATED, "%s: attr section [%" PRIu64 ", +%" PRIu64
			       ") runs past the end of the file (%" PRIu64 " bytes)", PMF_NAME(f), off, size,
			       f->info.file_size);
	if (size > PMF_MAX_HEADER_SECTION)
		return pm__err(PM_ERR_FORMAT, "%s: attr section of %" PRIu64 " bytes", PMF_NAME(f), size);
	if (size % asz)
		pm__warn("%s: attr section size %" PRIu64 " is not a multiple of %" PRIu64, PMF_NAME(f),
			 size, asz);
	buf = malloc(size ? size : 1);
	if (!buf)
		return -ENOMEM;
	rc = pmf_pread_full(f, buf, size, off, "attr section");
	for (uint64_t i = 0; !rc && i < size / asz; i++) {
		const uint8_t *a = buf + i * asz;
		uint64_t eoff = off + i * asz, ids_off, ids_size;
		struct pm_attr attr;
		uint8_t *ids = NULL;

		rc = pm_attr_from_bytes(&attr, a, asz - 16, f->be);
		if (rc < 0) {
			rc = pm__err(PM_ERR_FORMAT, "%s: attr %" PRIu64 " at offset %" PRIu64
				     ": %s", PMF_NAME(f), i, eoff, pm_errmsg());
			break;
		}
		ids_off = pm__ld64(a + asz - 16, f->be);
		ids_size = pm__ld64(a + asz - 8, f->be);
		if (!pm__fits(ids_off, ids_size, f->info.file_size) ||
		    ids_size > PMF_MAX_HEADER_SECTION) {
			rc = pm__err(PM_ERR_TRUNCATED, "%s: ids of attr %" PRIu64
				     " (entry at offset %" PRIu64 ") at [%" PRIu64 ", +%" PRIu64
				     ") run past the end of the file", PMF_NAME(f), i, eoff, ids_off, ids_size);
			break;
		}
		if (ids_size) {
			ids = malloc(ids_size);
			if (!ids) {
				rc = -ENOMEM;
				break;
			}
			rc = pmf_pread_full(f, ids, ids_size, ids_off, "attr ids");
		}
		if (!rc)
			rc = pmf_add_evsel(f, &attr, ids, ids_size / 8);
		free(ids);
	}
	free(buf);
	return rc;
}

int pmf_load_feature(pm_file *f, unsigned feat)
{
	struct pmf_feat *ft = &f->feat[feat];
	int rc;

	if (!ft->present)
		return -ENOENT;
	if (ft->loaded)
		return 0;
	if (ft->err)
		return ft->err;
	if (!f->seekable)
		return -ENOENT;
	ft->raw = malloc(ft->size + 1);
	if (!ft->raw)
		return -ENOMEM;
	rc = pmf_pread_full(f, ft->raw, ft->size, ft->off, "feature section");
	if (rc) {
		free(ft->raw);
		ft->raw = NULL;
		return rc;
	}
	ft->raw[ft->size] = 0;
	ft->len = ft->size;
	ft->loaded = true;
	return 0;
}

static void pmf_hdr_damage(pm_file *f, int rc, uint64_t off)
{
	if (!f->hdr_err) {
		f->hdr_err = rc;
		f->hdr_err_off = off;
	}
}

static int pmf_read_features(pm_file *f)
{
	uint64_t nr = 0, toff = f->info.feat_offset;
	uint8_t *tab;
	size_t k = 0;
	int rc;

	for (unsigned i = 0; i < PM_FEAT_BITS; i++)
		nr += PMF_TEST_BIT(f->info.features, i);
	if (!nr)
		return 0;
	if (!pm__fits(toff, nr * 16, f->info.file_size)) {
		pmf_hdr_damage(f, pm__err(PM_ERR_TRUNCATED,
			"%s: feature table at offset %" PRIu64 " (%" PRIu64 " entries) runs "
			"past the end of the file (%" PRIu64 " bytes)", PMF_NAME(f), toff, nr, f->info.file_size),
			toff);
		memset(f->info.features, 0, sizeof(f->info.features));
		return 0;
	}
	tab = malloc(nr * 16);
	if (!tab)
		return -ENOMEM;
	rc = pmf_pread_full(f, tab, nr * 16, toff, "feature table");
	if (rc) {
		free(tab);
		return rc;
	}
	for (unsigned i = 0; i < PM_FEAT_BITS; i++) {
		struct pmf_feat *ft = &f->feat[i];

		if (!PMF_TEST_BIT(f->info.features, i))
			continue;
		ft->present = true;
		ft->off = pm__ld64(tab + 16 * k, f->be);
		ft->size = pm__ld64(tab + 16 * k + 8, f->be);
		if (!pm__fits(ft->off, ft->size, f->info.file_size)) {
			ft->err = pm__err(PM_ERR_TRUNCATED,
				"%s: feature %u section [%" PRIu64 ", +%" PRIu64 ") (table entry "
				"at offset %" PRIu64 ") runs past the end of the file", PMF_NAME(f), i, ft->off,
				ft->size, toff + 16 * k);
			pmf_hdr_damage(f, ft->err, toff + 16 * k);
		} else if (ft->size <= PMF_MAX_HEADER_SECTION) {
			rc = pmf_load_feature(f, i);
			if (!rc && i == PM_FEAT_TRACING_DATA)
				rc = pmf_tracing_load(f);
			if (rc == -ENOMEM) {
				free(tab);
				return rc;
			}
			if (!rc)
				pmf_feat_decode(f, i);
		}
		k++;
	}
	free(tab);
	return 0;
}

/*
 * Data size 0 means two things: perf record did not finish (records run to
 * the end of the file; the feature bits were written at the start, the
 * sections never), or a finished recording has no records (the feature
 * table starts at the data offset).  A record header read as a table entry
 * has its size in the top 16 bits of the "offset", so a table whose every
 * entry lies after it and inside the file is the second case.
 */
static bool pmf_feat_table_at(pm_file *f, uint64_t toff)
{
	uint64_t nr = 0, tend;
	uint8_t e[16];

	for (unsigned i = 0; i < PM_FEAT_BITS; i++)
		nr += PMF_TEST_BIT(f->info.features, i);
	if (!nr || !pm__fits(toff, nr * 16, f->info.file_size))
		return false;
	tend = toff + nr * 16;
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t off, size;

		if (pmf_pread_full(f, e, sizeof(e), toff + 16 * k, "feature table"))
			return false;
		off = pm__ld64(e, f->be);
		size = pm__ld64(e + 8, f->be);
		if (off < tend || !pm__fits(off, size, f->info.file_size))
			return false;
	}
	return true;
}

/* EVENT_DESC names the attrs (matched by id, else by position). */
static void pmf_names_from_event_desc(pm_file *f)
{
	const struct pmf_feat *ft = &f->feat[PM_FEAT_EVENT_DESC];
	const uint8_t *p = ft->raw;
	size_t len = ft->len, pos = 8;
	uint32_t nr, asz;

	if (!ft->loaded || len < 8)
		return;
	nr = pm__ld32(p, f->be);
	asz = pm__ld32(p + 4, f->be);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids, slen;
		const char *name;
		int idx = -1;

		if (!pm__fits(pos, (size_t)asz + 8, len))
			return;
		pos += asz;
		nids = pm__ld32(p + pos, f->be);
		slen = pm__ld32(p + pos + 4, f->be);
		pos += 8;
		if (!pm__fits(pos, slen, len))
			return;
		name = (const char *)p + pos;
		pos += slen;
		if ((uint64_t)nids * 8 > len - pos)
			return;
		if (nids)
			idx = pmf_evsel_by_id(f, pm__ld64(p + pos, f->be));
		if (idx < 0 && i < f->nr_ev)
			idx = (int)i;
		if (idx >= 0)
			pmf_set_name(f, (size_t)idx, name, slen);
		pos += (size_t)nids * 8;
	}
}

/* Pipe mode: take the metadata at the start of the stream into account
 * without consuming it (it is still handed out by pm_file_next()). */
static void pmf_prime_pipe(pm_file *f)
{
	size_t rel = 0;

	for (;;) {
		uint64_t total = 0;
		const uint8_t *p;
		uint32_t type;
		int rc;

		if (rel > PMF_PRIME_MAX || pmf_fill(f, rel + 16) < 0)
			return;
		if (f->win_end - f->win_pos < rel + 8)
			return;
		p = f->win + f->win_pos + rel;
		type = pm__ld32(p, f->be);
		if (type < PM_RECORD_USER_TYPE_START || type == PM_RECORD_FINISHED_ROUND ||
		    type == PM_RECORD_COMPRESSED || type == PM_RECORD_COMPRESSED2)
			return;
		rc = pmf_rec_extent(f, p, f->win_end - f->win_pos - rel, 0, &total);
		if (rc <= 0 || total > PMF_PRIME_MAX)
			return;
		if (pmf_fill(f, rel + (size_t)total) <= 0)
			return;
		p = f->win + f->win_pos + rel;
		if (pmf_meta(f, p, (uint32_t)total, type, f->win_off + f->win_pos + rel) < 0)
			return;
		rel += (size_t)total;
		f->meta_done = f->win_off + f->win_pos + rel;
	}
}

/*
 * PERFFILE (version 1, perf before 2.6.37-ish and its successors until
 * PERFILE2): the magic is the same bytes in either byte order, so the order
 * comes, as in perf's try_all_file_abis(), from a pipe header size of 16 or
 * from attr_size, which must be an attr size perf wrote (VER0..VER4) + 16,
 * as written or byte-swapped.
 */
static int pmf_v1_order(pm_file *f, uint64_t start)
{
	static const uint64_t sizes[] = { 80, 88, 96, 112, 120 };
	const uint8_t *p = f->win + f->win_pos;
	uint64_t asz_le, asz_be;
	int rc;

	f->info.version = 1;
	if (pm__ld64(p + 8, false) == PMF_PIPE_HDR_SIZE || pm__ld64(p + 8, true) == PMF_PIPE_HDR_SIZE) {
		f->be = pm__ld64(p + 8, false) != PMF_PIPE_HDR_SIZE;
		return 0;
	}
	rc = pmf_fill(f, 24);
	if (rc < 0)
		return rc;
	if (!rc)
		return pm__err(PM_ERR_TRUNCATED, "%s: PERFFILE (version 1) header cut short "
			       "at offset %" PRIu64, PMF_NAME(f), start + (f->win_end - f->win_pos));
	p = f->win + f->win_pos;
	asz_le = pm__ld64(p + 16, false);
	asz_be = pm__ld64(p + 16, true);
	for (size_t i = 0; i < PM_ARRAY_SIZE(sizes); i++) {
		if (asz_le == sizes[i]) {
			f->be = false;
			return 0;
		}
		if (asz_be == sizes[i]) {
			f->be = true;
			return 0;
		}
	}
	return pm__err(PM_ERR_VERSION, "%s: PERFFILE (version 1) file whose attr_size "
		       "%" PRIu64 " (offset %" PRIu64 ") is none of the sizes perf wrote (80, 88, 96, "
		       "112, 120) in either byte order: its byte order cannot be known", PMF_NAME(f),
		       asz_le, start + 16);
}

/*
 * simpleperf (Android) writes the PERFILE2 header but its own records
 * (types >= 32768, records over 64 KiB split, a size split over the misc
 * field) and features 128 and up (META_INFO 129 with simpleperf_version).
 * Walking into its data as perf records would misread it: refuse it.
 */
static int pmf_refuse_simpleperf(pm_file *f)
{
	const struct pmf_feat *meta = &f->feat[129];
	char ver[64] = "";
	bool any = false;

	for (unsigned i = 128; i < PM_FEAT_BITS; i++)
		any |= f->feat[i].present;
	if (!any)
		return 0;
	if (meta->loaded) {
		const char *k = (const char *)meta->raw, *end = k + meta->len;

		while (k < end) {
			size_t kl = strnlen(k, (size_t)(end - k));
			const char *v = k + kl + 1;
			size_t vl;

			if (v >= end)
				break;
			vl = strnlen(v, (size_t)(end - v));
			if (!strcmp(k, "simpleperf_version")) {
				snprintf(ver, sizeof(ver), ", simpleperf_version %.*s", (int)vl, v);
				break;
			}
			k = v + vl + 1;
		}
	}
	return pm__err(PM_ERR_UNSUPPORTED, "%s: a simpleperf file (feature %s%s at the "
		       "feature table, offset %" PRIu64 "): its records are simpleperf's, not perf's, "
		       "and are not read", PMF_NAME(f), meta->present ? "129 META_INFO" : "bits 128+",
		       ver, f->info.feat_offset);
}

static int pmf_open(pm_file *f, const struct pm_file_opts *opts)
{
	uint8_t hdr[PMF_HDR_SIZE];
	struct stat st;
	uint64_t hsize, start;
	struct pm_file_opts o = { 0 };
	int rc;

	f->win_cap = PMF_DEFAULT_WINDOW;
	f->reorder_max = PMF_DEFAULT_REORDER;
	/* Read only the caller's sz bytes (an older caller's struct is shorter). */
	if (opts) {
		o.sz = sizeof(o);
		pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
		opts = &o;
	}
	if (opts) {
		f->raw_order = opts->raw_order != 0;
		f->keep_compressed = opts->keep_compressed != 0;
		f->strict = opts->strict != 0;
		if (opts->window_size)
			f->win_cap = PM_MAX(opts->window_size, PMF_MIN_WINDOW);
		if (opts->reorder_max_bytes)
			f->reorder_max = opts->reorder_max_bytes;
	}
	f->data_end = UINT64_MAX;
	f->err_off = UINT64_MAX;
	f->info.sz = sizeof(f->info);
	if (fstat(f->fd, &st) < 0)
		return pm__err(errno, "%s: fstat: %s", PMF_NAME(f), strerror(errno));
	f->seekable = S_ISREG(st.st_mode);
	if (f->seekable) {
		off_t cur = lseek(f->fd, 0, SEEK_CUR);
		/* a regular file given as a descriptor is read from its position */
		f->win_off = cur > 0 ? (uint64_t)cur : 0;
		f->info.file_size = (uint64_t)st.st_size;
	}
	f->win = malloc(f->win_cap);
	if (!f->win)
		return -ENOMEM;

	rc = pmf_fill(f, PMF_PIPE_HDR_SIZE);
	if (rc < 0)
		return rc;
	start = f->win_off + f->win_pos;
	if (!rc)
		return pm__err(PM_ERR_TRUNCATED, "%s: header cut short: %zu bytes at offset %"
			       PRIu64 ", need at least %d", PMF_NAME(f), f->win_end - f->win_pos, start,
			       PMF_PIPE_HDR_SIZE);
	if (!memcmp(f->win + f->win_pos, "PERFILE2", 8))
		f->be = false;
	else if (!memcmp(f->win + f->win_pos, "2ELIFREP", 8))
		f->be = true;
	else if (!memcmp(f->win + f->win_pos, "PERFFILE", 8)) {
		rc = pmf_v1_order(f, start);
		if (rc)
			return rc;
	} else
		return pm__err(PM_ERR_FORMAT, "%s: bad magic at offset %" PRIu64
			       " (not a perf.data file)", PMF_NAME(f), start);
	if (!f->info.version)
		f->info.version = 2;
	f->info.big_endian = f->be;
	hsize = pm__ld64(f->win + f->win_pos + 8, f->be);
	f->info.header_size = hsize;

	if (hsize == PMF_PIPE_HDR_SIZE) {
		f->info.pipe_mode = 1;
		f->info.data_offset = start + PMF_PIPE_HDR_SIZE;
		f->win_pos += PMF_PIPE_HDR_SIZE;
		pmf_prime_pipe(f);
		return 0;
	}
	if (hsize != PMF_HDR_SIZE && hsize != PMF_HDR_SIZE_OLD)
		return pm__err(PM_ERR_FORMAT, "%s: header size %" PRIu64 " (offset 8) is "
			       "neither %d (file) nor %d (pipe)", PMF_NAME(f), hsize, PMF_HDR_SIZE,
			       PMF_PIPE_HDR_SIZE);
	if (!f->seekable)
		return pm__err(PM_ERR_UNSUPPORTED, "%s: a file-mode perf.data must be read "
			       "from a regular file (use perf record -o - for pipes)", PMF_NAME(f));
	if (start)
		return pm__err(PM_ERR_UNSUPPORTED, "%s: a file-mode perf.data must start at "
			       "offset 0 of its descriptor", PMF_NAME(f));
	if (f->info.file_size < hsize)
		return pm__err(PM_ERR_TRUNCATED, "%s: header cut short: the file has %" PRIu64
			       " bytes, the header needs %" PRIu64, PMF_NAME(f), f->info.file_size, hsize);
	rc = pmf_pread_full(f, hdr, (size_t)hsize, 0, "file header");
	if (rc)
		return rc;
	f->info.attr_size = pm__ld64(hdr + 16, f->be);
	f->info.attrs_offset = pm__ld64(hdr + 24, f->be);
	f->info.attrs_size = pm__ld64(hdr + 32, f->be);
	f->info.data_offset = pm__ld64(hdr + 40, f->be);
	f->info.data_size = pm__ld64(hdr + 48, f->be);
	if (hsize == PMF_HDR_SIZE)
		for (int i = 0; i < 4; i++)
			f->info.features[i] = pm__ld64(hdr + 72 + 8 * i, f->be);
	rc = pmf_read_attrs(f);
	if (rc)
		return rc;
	if (f->info.data_offset > f->info.file_size)
		return pm__err(PM_ERR_TRUNCATED, "%s: data section offset %" PRIu64
			       " (header offset 40) is past the end of the file (%" PRIu64 " bytes)", PMF_NAME(f),
			       f->info.data_offset, f->info.file_size);
	if (f->info.data_size) {
		if (f->info.data_size > UINT64_MAX - f->info.data_offset)
			return pm__err(PM_ERR_FORMAT, "%s: data size %" PRIu64 " overflows", PMF_NAME(f),
				       f->info.data_size);
		f->data_end = f->info.data_offset + f->info.data_size;
		f->info.feat_offset = f->data_end;
		rc = pmf_read_features(f);
		if (rc)
			return rc;
		rc = pmf_refuse_simpleperf(f);
		if (rc)
			return rc;
	} else if (pmf_feat_table_at(f, f->info.data_offset)) {
		/* A finished file with no records: its feature table follows
		 * the (empty) data section. */
		f->data_end = f->info.data_offset;
		f->info.feat_offset = f->data_end;
		rc = pmf_read_features(f);
		if (rc)
			return rc;
		rc = pmf_refuse_simpleperf(f);
		if (rc)
			return rc;
	} else {
		/* perf did not finish writing (the feature bits are set at the
		 * start, the sections only at the end): read to the end, no
		 * features */
		pm__warn("%s: data size is 0 (perf record did not exit cleanly?); "
			 "reading to the end of the file", PMF_NAME(f));
		f->info.feat_offset = 0;
		memset(f->info.features, 0, sizeof(f->info.features));
		f->data_end = f->info.file_size;
	}
	pmf_names_from_event_desc(f);
	f->win_off = f->info.data_offset;
	f->win_pos = f->win_end = 0;
	return 0;
}

/* Open fd under `name` (NULL: "<fd N>"); every message names it. */
static int pmf_open_named(pm_file **out, int fd, const struct pm_file_opts *opts, const char *name)
{
	char fdname[32];
	pm_file *f;
	int rc;

	if (!out)
		return pm__err(EINVAL, "pm_file_open_fd: NULL out");
	*out = NULL;
	if (fd < 0)
		return pm__err(EBADF, "pm_file_open_fd: bad descriptor %d", fd);
	rc = PM__SZ_VALID(opts, pm_file_opts, PM_FILE_OPTS_SZ_V1);
	if (rc)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return pm__err(ENOMEM, "no memory to open %s", name ? name : "a recording");
	f->fd = fd;
	if (!name) {
		snprintf(fdname, sizeof(fdname), "<fd %d>", fd);
		name = fdname;
	}
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return pm__err(ENOMEM, "no memory to open %s", name);
	}
	rc = pmf_open(f, opts);
	if (rc) {
		pm_file_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

int pm_file_open_fd(pm_file **out, int fd, const struct pm_file_opts *opts)
{
	return pmf_open_named(out, fd, opts, NULL);
}

int pm_file_open(pm_file **out, const char *path, const struct pm_file_opts *opts)
{
	int fd, rc;

	if (!out || !path)
		return pm__err(EINVAL, "pm_file_open: NULL argument");
	*out = NULL;
	if (!strcmp(path, "-"))
		return pmf_open_named(out, STDIN_FILENO, opts, "<stdin>");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pm__err(errno, "%s: %s", path, strerror(errno));
	/* The messages of the reader name the file themselves. */
	rc = pmf_open_named(out, fd, opts, path);
	if (rc) {
		close(fd);
		return rc;
	}
	(*out)->own_fd = true;
	return 0;
}

void pm_file_close(pm_file *f)
{
	if (!f)
		return;
	if (f->own_fd)
		close(f->fd);
	free(f->dbuf);
#ifdef PM_HAVE_ZSTD
	if (f->zds)
		ZSTD_freeDStream(f->zds);
#endif
	for (size_t i = 0; i < f->nr_ev; i++) {
		pm_sample_layout_free(f->ev[i].layout);
		free(f->ev[i].layout_err);
		free(f->ev[i].ids);
		free(f->ev[i].name);
		free(f->ev[i].autoname);
		free(f->ev[i].pmuname);
	}
	pmf_tracing_free(f->tracing);
	free(f->ev);
	free(f->hkey);
	free(f->hval);
	pmf_q_free(f);
	free(f->win);
	free(f->alt);
	pmf_feat_free(f);
	free(f->name);
	free(f);
}

/* ------------------------------------------------------------------ */
/* accessors */

int pm_file_get_info(const pm_file *f, struct pm_file_info *info)
{
	int rc;

	if (!f || !info)
		return pm__err(EINVAL, "pm_file_get_info: NULL argument");
	rc = PM__SZ_VALID(info, pm_file_info, PM_FILE_INFO_SZ_V1);
	if (rc)
		return rc;
	pm__struct_copy_out(info, info->sz, &f->info, sizeof(f->info));
	return 0;
}

size_t pm_file_nr_attrs(const pm_file *f)
{
	return f ? f->nr_ev : 0;
}

const struct pm_attr *pm_file_attr(const pm_file *f, size_t idx)
{
	return f && idx < f->nr_ev ? &f->ev[idx].attr : NULL;
}

const char *pm_file_event_name(const pm_file *f, size_t idx)
{
	const struct pmf_evsel *e;
	const struct pmf_tpfmt *t;

	if (!f || idx >= f->nr_ev)
		return NULL;
	e = &f->ev[idx];
	if (e->name)
		return e->name;
	if (e->attr.type > PM_TYPE_BREAKPOINT && !e->pmuname)
		((pm_file *)f)->ev[idx].pmuname = pmf_pmu_name(f, &e->attr);
	if (e->pmuname)
		return e->pmuname;
	if (e->attr.type != PM_TYPE_TRACEPOINT)
		return e->autoname;
	t = pmf_tracing_find(f->tracing, e->attr.config);
	if (t)
		return t->full;
	if (!e->autoname) {
		/* nothing in the file names it: its id, never a local guess */
		char buf[40];

		snprintf(buf, sizeof(buf), "tracepoint:%" PRIu64, (uint64_t)e->attr.config);
		((pm_file *)f)->ev[idx].autoname = strdup(buf);
	}
	return e->autoname;
}

const uint64_t *pm_file_attr_ids(const pm_file *f, size_t idx, size_t *nr)
{
	if (nr)
		*nr = 0;
	if (!f || idx >= f->nr_ev)
		return NULL;
	if (nr)
		*nr = f->ev[idx].nr_ids;
	return f->ev[idx].ids;
}

int pm_file_attr_of_id(const pm_file *f, uint64_t id)
{
	return f ? pmf_evsel_by_id(f, id) : -EINVAL;
}

int pm_file_has_feature(const pm_file *f, unsigned feat)
{
	return f && feat < PM_FEAT_BITS && f->feat[feat].present;
}

int pm_file_feature_raw(pm_file *f, unsigned feat, const void **data, size_t *len)
{
	int rc;

	if (!f || !data || !len || feat >= PM_FEAT_BITS)
		return pm__err(EINVAL, "pm_file_feature_raw: bad argument");
	rc = pmf_load_feature(f, feat);
	if (rc)
		return rc == -ENOENT ? pm__err(ENOENT, "%s: no feature %u", PMF_NAME(f), feat) : rc;
	*data = f->feat[feat].raw;
	*len = f->feat[feat].len;
	return 0;
}
