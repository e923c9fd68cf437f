/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * perf.data reader: open (header, attrs, feature table), close, the record
 * iteration (pm_file_next()) and the accessors.
 *
 * Stages of pm_file_next():
 *   src_next()   raw records from the read window (file: pread, pipe: read)
 *   rec_next()   + records decompressed out of COMPRESSED/COMPRESSED2
 *                  (reader_src.c)
 *   meta_next()  + metadata taken into account (HEADER_ATTR, EVENT_UPDATE,
 *                  ID_INDEX, HEADER_FEATURE, ...), attr and time attached
 *                  (reader_meta.c)
 *   pmf_next()   + time ordering (runs merged between FINISHED_ROUND
 *                  markers; reader_order.c)
 * Feature sections: reader_feat.c; samples and rows: reader_rows.c.
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

#include "reader_int.h"

#define PMF_DEFAULT_WINDOW (256u << 10)
#define PMF_MIN_WINDOW (64u << 10)
#define PMF_DEFAULT_REORDER (64u << 20)

#define PMF_HDR_SIZE 104
#define PMF_HDR_SIZE_OLD 72
#define PMF_PIPE_HDR_SIZE 16

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
	f->no_fast = getenv("PROFILEME_FILE_NO_FAST") != NULL;
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
