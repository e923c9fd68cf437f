/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A source of SAMPLE records for the bulk readers (internal, never
 * installed): what lib/export/columns.c needs of a perf.data file
 * (lib/file/reader_rows.c: pm__source_file()) or of a live evlist
 * (lib/ring/source.c: pm__source_evlist()), and nothing of their internals.
 *
 * A source hands out SAMPLE records one at a time, each with its attr
 * index and the sample plan of that attr (lib/record/plan.h); every other
 * record is taken into account by the source (metadata, attrs learnt from
 * a pipe) and not handed out.
 */
#ifndef PM_SOURCE_INT_H
#define PM_SOURCE_INT_H

#include <profileme/file.h>
#include <profileme/record.h>
#include <profileme/ring.h>

#include "internal/pm_internal.h"
#include "record/plan.h"

/* A SAMPLE record as a source hands it out; valid until the next call. */
struct pm__srec {
	const uint8_t *data;          /* the record, header included, in the source's byte order */
	const pm_sample_layout *plan; /* of its attr; NULL: no attr, or its layout is unknowable */
	uint64_t offset;              /* file offset (of its COMPRESSED record); live: 0 */
	uint32_t size;                /* bytes at data */
	int32_t attr_idx;             /* -1: matches no attr */
	uint16_t misc;                /* header.misc */
	bool from_comp;               /* decompressed (a file's COMPRESSED record) */
};

struct pm__source {
	void *impl;
	bool be;           /* byte order of the records */
	bool file_offsets; /* pm__srec.offset is a file offset */
	/* A sample that cannot be decoded is an error of the read (the rows
	 * before it are delivered; the next read goes on after it), not only
	 * a skip: live, where nothing else would report it. */
	bool strict;
	/* The next SAMPLE: 1; 0 at the end (live: nothing more in the rings
	 * now); <0 an error of the source (records before it were handed out;
	 * the next call goes on after the bad one). */
	int (*next)(void *impl, struct pm__srec *r);
	/* Optional (NULL: next() one at a time): up to cap (> 0) SAMPLE
	 * records, those next() would give, into r[0, n); returns n > 0, 0
	 * at the end or <0 an error met before any record of this call (an
	 * error after some is returned by the next call, with its message;
	 * the records are valid until that call).  A source that wraps
	 * another clears it unless it wraps it too. */
	int (*next_batch)(void *impl, struct pm__srec *r, size_t cap);
	/* The attrs known now (a pipe stream learns more as it goes). */
	size_t (*nr_attrs)(const void *impl);
	const struct pm_attr *(*attr)(const void *impl, size_t idx);
	/* The sample plan of attr idx; NULL: its layout is unknowable. */
	const pm_sample_layout *(*plan)(const void *impl, size_t idx);
	/* pm_sample_parse() of the record with the source's message on error
	 * (no attr, unknowable layout, damage: named as the source names it). */
	int (*sample)(const void *impl, const struct pm__srec *r, struct pm_sample *out);
	/* Optional (NULL: nothing to do / not offered). */
	void (*fini)(void *impl);
	/* Live: every record taken out of the rings (every type) also goes to
	 * fn before it is handed out; fn NULL: none. */
	int (*tee)(void *impl, pm_ring_record_fn fn, void *user);
};

/* lib/file/reader_rows.c */
PM_HIDDEN void pm__source_file(struct pm__source *s, pm_file *f);
/* lib/ring/source.c: the rings of an opened list (allocates: src->fini);
 * 0, -EINVAL (not open), -ENOMEM. */
PM_HIDDEN int pm__source_evlist(struct pm__source *s, pm_evlist *el);

#endif /* PM_SOURCE_INT_H */
