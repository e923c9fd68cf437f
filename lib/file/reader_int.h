/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf.data reader internals (lib/file/reader*.c).  Never installed. */
#ifndef PM_FILE_READER_INT_H
#define PM_FILE_READER_INT_H

#include <stdlib.h>

#include <profileme/file.h>
#include <profileme/record.h>

#include "internal/pm_internal.h"
#include "record/record_internal.h"

/* One attr (evsel) of the file. */
struct pmf_evsel {
	struct pm_attr attr;
	pm_sample_layout *layout; /* NULL if the attr's sample_type is unknowable */
	char *layout_err;         /* why layout is NULL ("attr N: ...") */
	uint64_t *ids;
	size_t nr_ids, cap_ids;
	char *name;     /* named by the file: EVENT_DESC / EVENT_UPDATE */
	char *autoname; /* built from the attr as perf does (no tracepoints) */
	char *pmuname;  /* a dynamic type named by PMU_MAPPINGS: pmu/config=../ */
	/* where the id and the time stamp lie (from the attr alone: known
	 * when the layout is not) */
	struct pm__plan_pos pos;
};

/* A feature section as recorded. */
struct pmf_feat {
	bool present;  /* bit set (file) or HEADER_FEATURE met (pipe) */
	bool loaded;   /* raw bytes read */
	int err;       /* <0: its section is damaged */
	uint64_t off, size;
	uint8_t *raw;
	size_t len;
};

/* A record as passed between the reader's stages. */
struct pmf_rec {
	const uint8_t *data;
	uint32_t size;
	uint32_t type;
	uint16_t misc;
	bool from_comp;
	uint64_t offset;
	int32_t attr_idx;
	uint64_t time;
};

/* Record copies buffered for time sorting live in chunks; a chunk is freed
 * when every copy in it has been handed out. */
struct pmf_chunk {
	struct pmf_chunk *next;
	size_t used, cap, live;
	uint8_t data[];
};

/* records of at most this many bytes are kept in their queue entry */
#define PMF_QENT_INLINE 32

/* A record buffered for time sorting.  A record of at most PMF_QENT_INLINE
 * bytes is copied into the entry at push time (inl: the record is read
 * once, while it is hot, and never evacuated); else data points into the
 * read window or file mapping (chunk NULL) or into a chunk copy
 * (decompressed records, and records copied out before the window moved
 * on: pmf_q_evacuate()). */
struct pmf_qent {
	uint64_t ts;
	uint64_t offset;
	uint32_t size;
	int32_t attr_idx;
	uint16_t misc;
	uint8_t type; /* kernel record types only are queued (< 64) */
	uint8_t from_comp;
	uint8_t inl;  /* the record is in u.bytes */
	union {
		struct {
			const uint8_t *data;
			struct pmf_chunk *chunk;
		} p;
		uint8_t bytes[PMF_QENT_INLINE];
	} u;
};

/* the record's bytes and its chunk (NULL: none to release) */
#define PMF_QENT_DATA(e) ((e)->inl ? (const uint8_t *)(e)->u.bytes : (e)->u.p.data)
#define PMF_QENT_CHUNK(e) ((e)->inl ? (struct pmf_chunk *)NULL : (e)->u.p.chunk)

/* A run: queued records [head, end) of f->q in time order. */
struct pmf_run {
	size_t head, end;
	size_t done;  /* q[head, done) hold no pointer into the window */
	uint64_t seq; /* creation number */
};

/* heap slot over runs: key = time of the run's head, then run creation order */
struct pmf_rhent {
	uint64_t ts, seq;
	size_t run;
};

/* tracing data (lib/file/tracing.c) */
struct pmf_tpfield {
	char *name, *type;
	uint32_t offset, size, flags, array_len, elem_size;
};

struct pmf_tpfmt {
	uint64_t id;
	char *sys, *name, *full; /* full: "sys:name" */
	struct pmf_tpfield *fields;
	size_t nfields;
	char *print_fmt;
};

enum { PMF_TR_HEADER_PAGE, PMF_TR_HEADER_EVENT, PMF_TR_KALLSYMS, PMF_TR_PRINTK, PMF_TR_CMDLINES,
       PMF_TR_NTEXT };

struct pmf_tracing {
	char version[16];
	bool be;
	uint8_t long_size;
	uint32_t page_size;
	char *text[PMF_TR_NTEXT];
	size_t text_len[PMF_TR_NTEXT];
	struct pmf_tpfmt *fmts;
	size_t nfmts;
	size_t end;     /* bytes parsed */
	int err;        /* <0: damaged at err_off (what came before is kept) */
	uint64_t err_off;
	char *errmsg;
	const char *name; /* the file's name for messages (borrowed from the pm_file) */
};

struct pmf_cap { char *pmu, *name, *value; };
struct pmf_bid { int32_t pid; uint16_t misc; uint8_t id[20]; size_t len; char *file; };
struct pmf_pmumap { uint32_t type; char *name; };
struct pmf_group { char *name; uint32_t leader, nr; };

/* the most records pmf_source_next_batch() hands out at once */
#define PMF_BATCH_MAX 256

struct pm_file {
	int fd;
	/* How messages name the file: the path given to pm_file_open(),
	 * "<stdin>" for "-", "<fd N>" for pm_file_open_fd(). */
	char *name;
	bool own_fd;
	bool seekable;
	bool be; /* file written big endian */
	struct pm_file_info info;

	/* read window over the data stream: bytes [win_pos, win_end) of win
	 * are stream bytes starting at offset win_off + win_pos */
	uint8_t *win;
	size_t win_cap, win_pos, win_end;
	/* the other read buffer (time sorting): the window moves there while
	 * queued records may still point into the current one */
	uint8_t *alt;
	size_t alt_cap;
	uint64_t win_off;
	uint64_t data_end; /* UINT64_MAX: until EOF */

	/* decompressed records (COMPRESSED / COMPRESSED2), streamed: the
	 * compressed bytes of the current record (zin, in the read window,
	 * which does not move until they are used up) are decompressed into
	 * the bounded dbuf as records are taken from it */
	uint8_t *dbuf;
	size_t dcap, dpos, dend;
	uint64_t d_rec_off;
	void *zds;
	const uint8_t *zin;
	size_t zin_size, zin_pos;
	bool zmore;         /* zstd may hold output for the current input */
	uint64_t zout_rec;  /* bytes the current COMPRESSED record gave so far */
	uint64_t zout_max;  /* the most one COMPRESSED record may give */

	/* attrs */
	struct pmf_evsel *ev;
	size_t nr_ev, cap_ev;
	/* id -> attr index: open addressing */
	uint64_t *hkey;
	int32_t *hval; /* -1 = empty */
	size_t hcap, hcount;

	/* features */
	struct pmf_feat feat[PM_FEAT_BITS];
	uint64_t decoded[4];
	char *fstr[PM_FEAT_BITS];
	uint32_t nr_avail, nr_online;
	uint64_t total_mem;
	char **cmdline;
	size_t ncmd;
	char **topo[3];
	size_t ntopo[3];
	uint32_t *core_id, *socket_id, *die_id;
	size_t ncpu_ids;
	bool has_die_ids;
	struct pmf_pmumap *pmumap;
	size_t npmumap;
	struct pmf_group *groups;
	size_t ngroups;
	uint64_t st_first, st_last;
	uint64_t clockid_res;
	uint32_t cd_clockid;
	uint64_t cd_wall, cd_clk;
	uint32_t comp[5];
	struct pmf_cap *caps;
	size_t ncaps;
	struct pmf_bid *bids;
	size_t nbids;

	/* order: records pushed in file order form runs of non-decreasing
	 * time (one per CPU ring within a round, typically); they are merged
	 * through a small heap of runs keyed by each run's head */
	bool raw_order;
	bool keep_compressed;
	size_t reorder_max;
	struct pmf_qent *q;       /* queued records, runs contiguous */
	size_t qend, qcap;        /* q[0, qend) used (popped heads included) */
	struct pmf_run *runs;     /* in creation order (= order in q) */
	size_t nruns, cap_runs;
	uint64_t runs_seq;        /* next run creation number */
	struct pmf_rhent *rheap;  /* non-empty runs */
	size_t rhn, cap_rheap;
	struct pmf_chunk *cur_chunk, *spare_chunk;
	size_t qbytes;
	uint64_t max_ts, next_flush, limit;
	bool draining, final;
	struct pmf_chunk *last_out;
	bool held;
	struct pmf_rec held_rec;
	/* PROFILEME_FILE_NO_FAST set at open: no batches
	 * (pmf_source_next_batch()) and no pushes in one go
	 * (pmf_q_push_window()), the general path that tests compare them
	 * with */
	bool no_fast;
	/* chunks of records handed out in a batch (pmf_source_next_batch()),
	 * released at the next call: every record of a batch stays valid
	 * until then */
	struct pmf_chunk *deferred[PMF_BATCH_MAX];
	size_t ndeferred;


	/* tracing data: the feature, or the last TRACING_DATA record */
	struct pmf_tracing *tracing;

	/* metadata records at offsets below this were processed already */
	uint64_t meta_done;

	/* a pipe stream cut short or with junk after its last record, tolerated
	 * (not strict): the stream ended there */
	bool strict;
	int tail_err;
	uint64_t tail_off;
	char tail_msg[512];

	/* errors */
	int err;
	uint64_t err_off;
	int hdr_err;
	uint64_t hdr_err_off;

	/* pm_file_select_chunk() (chunks.c): samples whose time is outside
	 * [twin_lo, twin_hi) are dropped before they are queued */
	bool twin;
	uint64_t twin_lo, twin_hi;
};

/* reader_feat.c */
PM_HIDDEN void pmf_feat_decode(pm_file *f, unsigned feat);
PM_HIDDEN void pmf_feat_free(pm_file *f);
PM_HIDDEN int pmf_add_build_id(pm_file *f, const uint8_t *rec, size_t len, bool be);

/* tracing.c */
PM_HIDDEN struct pmf_tracing *pmf_tracing_parse(const uint8_t *data, size_t len, uint64_t base,
						  const char *name);
PM_HIDDEN void pmf_tracing_free(struct pmf_tracing *t);
PM_HIDDEN const struct pmf_tpfmt *pmf_tracing_find(const struct pmf_tracing *t, uint64_t id);

/* header sections (attrs, a feature) larger than this are refused */
#define PMF_MAX_HEADER_SECTION (256u << 20)

/* reader_feat.c: the feature table */
PM_HIDDEN int pmf_load_feature(pm_file *f, unsigned feat);
PM_HIDDEN int pmf_read_features(pm_file *f);
PM_HIDDEN bool pmf_feat_table_at(pm_file *f, uint64_t toff);
PM_HIDDEN int pmf_refuse_simpleperf(pm_file *f);

/* reader_src.c: the byte source (stages 1-2) */
PM_HIDDEN int pmf_pread_full(pm_file *f, void *buf, size_t len, uint64_t off, const char *what);
PM_HIDDEN int pmf_fill(pm_file *f, size_t need);
PM_HIDDEN int pmf_fail(pm_file *f, int rc, uint64_t off);
PM_HIDDEN int pmf_rec_extent(pm_file *f, const uint8_t *p, size_t avail, uint64_t off,
			     uint64_t *total);
PM_HIDDEN int pmf_rec_next(pm_file *f, struct pmf_rec *r);

/* reader_meta.c: attrs, ids and metadata records (stage 3) */
PM_HIDDEN int pmf_evsel_by_id(const pm_file *f, uint64_t id);
PM_HIDDEN int pmf_add_id(pm_file *f, size_t idx, uint64_t id);
PM_HIDDEN int pmf_add_evsel(pm_file *f, const struct pm_attr *attr, const uint8_t *ids, size_t nr_ids);
PM_HIDDEN int pmf_set_name(pm_file *f, size_t idx, const char *name, size_t len);
PM_HIDDEN char *pmf_pmu_name(const pm_file *f, const struct pm_attr *a);
PM_HIDDEN int pmf_tracing_load(pm_file *f);
PM_HIDDEN void pmf_names_from_event_desc(pm_file *f);
PM_HIDDEN void pmf_prime_pipe(pm_file *f);
PM_HIDDEN int pmf_meta_next(pm_file *f, struct pmf_rec *r);

/* reader_order.c: time ordering (stage 4) */
PM_HIDDEN int pmf_q_evacuate(pm_file *f, const uint8_t *buf, size_t len);
PM_HIDDEN void pmf_q_free(pm_file *f);
PM_HIDDEN int pmf_next(pm_file *f, struct pmf_rec *r);

/* reader.c */
PM_HIDDEN void pmf_out(const pm_file *f, struct pm_file_record *rec, const struct pmf_rec *r);

/* ------------------------------------------------------------------ */
/* hot paths, inline for the record iteration and the sample source (reader_rows.c) */

/* The file's name for messages ("%s: ..."), never NULL. */
#define PMF_NAME(f) ((f)->name ? (const char *)(f)->name : "perf.data")

#define PMF_CHUNK (256u << 10)
#define PMF_POP_AHEAD 8
/* bytes a queued record counts against reorder_max_bytes: its bytes and a
 * 32-byte header, 8-aligned (the accounting of the earlier copying queue,
 * kept so that early releases happen at the same records) */
#define PMF_QENT_BYTES(size) ((32 + (size_t)(size) + 7) & ~(size_t)7)

static inline void pmf_chunk_release(pm_file *f, struct pmf_chunk *c)
{
	if (--c->live || c == f->cur_chunk)
		return;
	if (!f->spare_chunk && c->cap == PMF_CHUNK)
		f->spare_chunk = c;
	else
		free(c);
}

static inline bool pmf_rh_less(const struct pmf_rhent *a, const struct pmf_rhent *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static inline void pmf_rh_down(pm_file *f, size_t i)
{
	struct pmf_rhent *h = f->rheap, x = h[i];
	size_t n = f->rhn;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && pmf_rh_less(&h[c + 1], &h[c]))
			c++;
		if (!pmf_rh_less(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The earliest queued record (rhn > 0); its chunk (if any) is the caller's
 * to release. */
static inline const struct pmf_qent *pmf_q_pop(pm_file *f)
{
	struct pmf_run *run = &f->runs[f->rheap[0].run];
	const struct pmf_qent *e = &f->q[run->head++];

#if defined(__GNUC__) || defined(__clang__)
	/* the record bytes were read a round ago: ask for a later one now
	 * (an entry that holds its record is read in order anyway) */
	if (run->head + PMF_POP_AHEAD < run->end && !f->q[run->head + PMF_POP_AHEAD].inl)
		__builtin_prefetch(f->q[run->head + PMF_POP_AHEAD].u.p.data);
#endif

	f->qbytes -= PMF_QENT_BYTES(e->size);
	if (run->head < run->end) {
		f->rheap[0].ts = f->q[run->head].ts;
		if (f->rhn > 1)
			pmf_rh_down(f, 0);
	} else if (--f->rhn) {
		f->rheap[0] = f->rheap[f->rhn];
		pmf_rh_down(f, 0);
	}
	return e;
}

/* attr index and time stamp of a kernel record */
static inline void pmf_classify(const pm_file *f, struct pmf_rec *r)
{
	const struct pmf_evsel *e;
	int idx = 0;

	r->attr_idx = -1;
	r->time = PM_FILE_NO_TIME;
	if (r->type >= PM_RECORD_USER_TYPE_START || !f->nr_ev)
		return;
	if (f->nr_ev > 1 && f->ev[0].layout) {
		int64_t pos = -1;

		if (r->type == PM_RECORD_SAMPLE) {
			int ip = f->ev[0].pos.id_pos;

			if (ip >= 0)
				pos = 8 + 8 * (int64_t)ip;
		} else if (f->ev[0].attr.flags & PM_ATTR_SAMPLE_ID_ALL) {
			int is = f->ev[0].pos.is_pos;

			if (is > 0)
				pos = (int64_t)r->size - 8 * (int64_t)is;
		}
		if (pos >= 8 && (uint64_t)pos + 8 <= r->size) {
			idx = pmf_evsel_by_id(f, pm__ld64(r->data + pos, f->be));
		}
	}
	/* an id no attr owns: attr -1, time read with the first attr's layout
	 * (perf requires the id and time positions to agree) */
	r->attr_idx = idx < 0 ? -1 : idx;
	e = &f->ev[idx < 0 ? 0 : idx];
	if (r->type == PM_RECORD_SAMPLE) {
		if (e->pos.time_off >= 0 && (uint64_t)e->pos.time_off + 8 <= r->size)
			r->time = pm__ld64(r->data + e->pos.time_off, f->be);
	} else if (e->pos.time_slots) {
		uint64_t back = 8u * (unsigned)e->pos.time_slots;

		if (r->size >= 8 + back)
			r->time = pm__ld64(r->data + r->size - back, f->be);
	}
}

/* pmf_classify()'s attr index of a SAMPLE record of size bytes at p, the
 * file having attrs (its time is not read). */
static inline int32_t pmf_sample_attr(const pm_file *f, const uint8_t *p, uint32_t size)
{
	int ip, idx;

	if (f->nr_ev == 1 || !f->ev[0].layout || (ip = f->ev[0].pos.id_pos) < 0 ||
	    8 + 8 * (uint64_t)ip + 8 > size)
		return 0;
	idx = pmf_evsel_by_id(f, pm__ld64(p + 8 + 8 * (size_t)ip, f->be));
	return idx < 0 ? -1 : idx;
}

/*
 * Stages 1-3 for the common record: a kernel record (no metadata, no
 * out-of-band data) lying wholly in the window, with no decompressed bytes
 * pending.  Anything else (and every error) takes the general path, which
 * gives the same result for these records.
 */
static inline bool pmf_fast_next(pm_file *f, struct pmf_rec *r)
{
	size_t avail = f->win_end - f->win_pos;
	const uint8_t *p = f->win + f->win_pos;
	uint32_t type;
	uint16_t size;

	if (avail < 8 || f->dpos < f->dend || f->zin_pos < f->zin_size || f->zmore)
		return false;
	type = pm__ld32(p, f->be);
	size = pm__ld16(p + 6, f->be);
	if (type >= PM_RECORD_USER_TYPE_START || size < 8 || size > avail)
		return false;
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p + 2048);
#endif
	r->data = p;
	r->size = size;
	r->type = type;
	r->misc = pm__ld16(p + 4, f->be);
	r->offset = f->win_off + f->win_pos;
	r->from_comp = false;
	f->win_pos += size;
	pmf_classify(f, r);
	return true;
}

/* The queue's next record popped into @r; its chunk becomes f->last_out. */
static inline void pmf_q_pop_rec(pm_file *f, struct pmf_rec *r)
{
	const struct pmf_qent *e = pmf_q_pop(f);

	f->last_out = PMF_QENT_CHUNK(e);
	r->data = PMF_QENT_DATA(e);
	r->size = e->size;
	r->type = e->type;
	r->misc = e->misc;
	r->from_comp = e->from_comp;
	r->offset = e->offset;
	r->attr_idx = e->attr_idx;
	r->time = e->ts;
}

/* Hand out the earliest queued record (rhn > 0) as *r. */
static inline void pmf_pop_out(pm_file *f, struct pmf_rec *r)
{
	if (f->last_out) {
		pmf_chunk_release(f, f->last_out);
		f->last_out = NULL;
	}
	pmf_q_pop_rec(f, r);
}

/* The chunks of the last batch's records released (pmf_pop_defer()). */
static inline void pmf_q_release_deferred(pm_file *f)
{
	for (size_t i = 0; i < f->ndeferred; i++)
		pmf_chunk_release(f, f->deferred[i]);
	f->ndeferred = 0;
}

/* pmf_pop_out() for a batch (at most PMF_BATCH_MAX per batch): the chunk of
 * the record handed out before is released only at the next call, so
 * that the records handed out so far stay where they are. */
static inline void pmf_pop_defer(pm_file *f, struct pmf_rec *r)
{
	if (f->last_out) {
		f->deferred[f->ndeferred++] = f->last_out;
		f->last_out = NULL;
	}
	pmf_q_pop_rec(f, r);
}

/* pmf_next(), with its common cases inline: the next record in file order
 * (raw order), or the next queued record due (time order). */
static inline int pmf_next_inl(pm_file *f, struct pmf_rec *r)
{
	if (f->ndeferred)
		pmf_q_release_deferred(f);
	if (f->raw_order) {
		if (!f->err && pmf_fast_next(f, r))
			return 1;
	} else if (f->draining && f->rhn && f->rheap[0].ts <= f->limit) {
		pmf_pop_out(f, r);
		return 1;
	}
	return pmf_next(f, r);
}

#define PMF_TEST_BIT(words, n) (((words)[(n) / 64] >> ((n) % 64)) & 1)
#define PMF_SET_BIT(words, n) ((words)[(n) / 64] |= 1ULL << ((n) % 64))

#endif /* PM_FILE_READER_INT_H */
