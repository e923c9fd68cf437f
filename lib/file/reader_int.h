/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf.data reader internals (lib/file/reader*.c).  Never installed. */
#ifndef PM_FILE_READER_INT_H
#define PM_FILE_READER_INT_H

#include <profileme/file.h>
#include <profileme/record.h>

#include "internal/pm_internal.h"
#include "record/record_internal.h"

/* One attr (evsel) of the file. */
struct pmf_evsel {
	struct pm_attr attr;
	pm_sample_layout *layout; /* NULL if the attr's sample_type is unknowable */
	uint64_t *ids;
	size_t nr_ids, cap_ids;
	char *name;
	/* time stamp position: in samples, byte offset after the header (or -1);
	 * in non-sample records, u64 slots back from the end (or 0 = none) */
	int time_off_sample;
	int time_slots_trailer;
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

/* A record buffered for time sorting.  data points into the file mapping
 * (chunk NULL) or into a chunk copy (pipes, decompressed records, records
 * of a mapping that was moved on). */
struct pmf_qent {
	uint64_t ts;
	const uint8_t *data;
	struct pmf_chunk *chunk;
	uint64_t offset;
	uint32_t size;
	int32_t attr_idx;
	uint16_t misc;
	uint8_t from_comp;
};

/* A run: queued records [head, end) of f->q in time order. */
struct pmf_run {
	size_t head, end;
	uint64_t seq; /* creation number */
};

/* heap slot over runs: key = time of the run's head, then run creation order */
struct pmf_rhent {
	uint64_t ts, seq;
	size_t run;
};

struct pmf_cap { char *pmu, *name, *value; };
struct pmf_bid { int32_t pid; uint16_t misc; uint8_t id[20]; size_t len; char *file; };
struct pmf_pmumap { uint32_t type; char *name; };
struct pmf_group { char *name; uint32_t leader, nr; };

struct pm_file {
	int fd;
	bool own_fd;
	bool seekable;
	bool be; /* file written big endian */
	struct pm_file_info info;

	/* read window over the data stream: bytes [win_pos, win_end) of win
	 * are stream bytes starting at offset win_off + win_pos */
	uint8_t *win;
	size_t win_cap, win_pos, win_end;
	uint64_t win_off;
	uint64_t data_end; /* UINT64_MAX: until EOF */

	/* decompressed records (COMPRESSED / COMPRESSED2) */
	uint8_t *dbuf;
	size_t dcap, dpos, dend;
	uint64_t d_rec_off;
	void *zds;

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

	/* file mapping (regular files): [map, map + map_len) maps file offset
	 * win_off; win == map */
	bool mapped;
	uint8_t *map;
	size_t map_len, map_window;
	size_t page_size;

	/* metadata records at offsets below this were processed already */
	uint64_t meta_done;

	/* errors */
	int err;
	uint64_t err_off;
	int hdr_err;
	uint64_t hdr_err_off;
};

/* reader_feat.c */
PM_HIDDEN void pmf_feat_decode(pm_file *f, unsigned feat);
PM_HIDDEN void pmf_feat_free(pm_file *f);
PM_HIDDEN int pmf_add_build_id(pm_file *f, const uint8_t *rec, size_t len, bool be);

/* reader.c */
PM_HIDDEN int pmf_evsel_by_id(const pm_file *f, uint64_t id);
PM_HIDDEN int pmf_add_id(pm_file *f, size_t idx, uint64_t id);
PM_HIDDEN int pmf_add_evsel(pm_file *f, const struct pm_attr *attr, const uint8_t *ids, size_t nr_ids);
PM_HIDDEN int pmf_set_name(pm_file *f, size_t idx, const char *name, size_t len);
PM_HIDDEN int pmf_load_feature(pm_file *f, unsigned feat);
PM_HIDDEN int pmf_next(pm_file *f, struct pmf_rec *r);
PM_HIDDEN void pmf_out(const pm_file *f, struct pm_file_record *rec, const struct pmf_rec *r);

/* reader_rows.c: the fields of a SAMPLE for bulk readers; 0, or <0 from
 * pm_file_sample() (no attr, unknown layout, damaged record) */
PM_HIDDEN int pmf_sample_core(const pm_file *f, const struct pmf_rec *r, struct pm__score *o,
			      uint64_t *present);

#define PMF_TEST_BIT(words, n) (((words)[(n) / 64] >> ((n) % 64)) & 1)
#define PMF_SET_BIT(words, n) ((words)[(n) / 64] |= 1ULL << ((n) % 64))

#endif /* PM_FILE_READER_INT_H */
