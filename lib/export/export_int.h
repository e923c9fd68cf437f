/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal: the sample walker shared by the pprof and folded exporters.
 * It reads a pm_file to the end, follows processes (comm, maps) and hands
 * out each sample with its symbolized stack, leaf first. */
#ifndef PM_EXPORT_INT_H
#define PM_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"

/* ---- a hash set of byte strings: each distinct key gets an index ------- */
struct pmx_set {
	uint8_t *arena;          /* keys, each followed by a NUL byte */
	size_t arena_len, arena_cap;
	size_t *off;             /* per entry: offset of its key in arena */
	uint32_t *len;           /* per entry: key length */
	uint64_t *hash;          /* per entry */
	size_t n, cap;           /* entries */
	uint32_t *slots;         /* open addressing: entry index + 1, 0 empty */
	size_t nslots;           /* power of two */
};

PM_HIDDEN void pmx_set_free(struct pmx_set *s);
/* Index of the key (added when new, *added set to 1); -ENOMEM. */
PM_HIDDEN long pmx_set_add(struct pmx_set *s, const void *key, size_t len, int *added);
/* Index of the key or -1. */
PM_HIDDEN long pmx_set_find(const struct pmx_set *s, const void *key, size_t len);
static inline const void *pmx_set_key(const struct pmx_set *s, size_t i, size_t *len)
{
	if (len)
		*len = s->len[i];
	return s->arena + s->off[i];
}

/* ---- the walker ------------------------------------------------------- */

/* A mapping learnt from MMAP/MMAP2 (deduplicated). */
struct pmx_map {
	uint64_t start, limit, pgoff;
	uint32_t filename;       /* string index */
	uint32_t build_id;       /* string index of the hex build id, 0 none */
	bool kernel;
};

/* What one address resolved to. */
struct pmx_frame {
	uint64_t addr;
	uint32_t sym;            /* string index of the symbol name ("[unknown]" when unknown) */
	uint32_t dso;            /* string index of the module ("[unknown]") */
	int32_t map;             /* index in walker maps, -1 none */
	bool known;              /* a symbol covers it */
	/* with want_lines: source position of the address (of the call for a
	 * return address) and of the symbol's start; string index 0: none */
	uint32_t file, line, column;
	uint32_t fn_file, fn_line;
};

struct pmx_sample {
	int event;
	uint32_t pid, tid, cpu;
	bool has_cpu;
	uint32_t comm;           /* string index */
	uint64_t period;
	const struct pm_sample *smp;
	const pm_raw_decoder *dec;   /* decoder of the event, or NULL */
	bool is_pm;                  /* ProfileMe payload decoded into pm */
	struct pm_profileme_sample pm;
	size_t nframes;              /* >= 1: frames[0] is the leaf */
	const struct pmx_frame *frames;
};

struct pmx_walk;
typedef int (*pmx_sample_fn)(void *user, struct pmx_walk *w, const struct pmx_sample *s);

struct pmx_pid;

struct pmx_walk {
	pm_file *f;
	struct pm_export_opts o;
	pm_sym *sym;
	bool own_sym, have_sym;
	pm_raw_ctx *raw;
	size_t nattrs;
	const pm_raw_decoder **dec;  /* per attr */
	struct pmx_set strs;         /* string table: index 0 is "" */
	uint32_t s_unknown;          /* "[unknown]" */
	/* tid -> comm string index */
	uint64_t *comm_keys;         /* tid + 1, 0 empty */
	uint32_t *comm_vals;
	size_t comm_cap, comm_n;
	/* maps */
	struct pmx_set mapset;       /* key: struct of start, limit, pgoff, filename */
	struct pmx_map *maps;
	size_t nmaps, maps_cap;
	struct pmx_pid **pids;       /* open addressing by pid */
	size_t pid_cap, pid_n;
	uint64_t epoch;
	/* frame cache: key {pid, epoch, addr, how} -> frame */
	struct pmx_set fcache;
	struct pmx_frame *fvals;
	size_t fvals_cap;
	/* per-sample scratch */
	struct pmx_frame *frames;
	size_t frames_cap;
	uint64_t nsamples, skipped;
	bool synthetic;
	bool want_lines;             /* fill pmx_frame file/line (pm_sym_lookup_line()) */
};

/* Opens the walker on f with the (already validated) options. */
PM_HIDDEN int pmx_walk_init(struct pmx_walk *w, pm_file *f, const struct pm_export_opts *opts,
			    const char *who);
PM_HIDDEN void pmx_walk_fini(struct pmx_walk *w);
/* Reads to the end; cb's nonzero return stops with that value. */
PM_HIDDEN int pmx_walk_run(struct pmx_walk *w, pmx_sample_fn cb, void *user);
/* String table. */
PM_HIDDEN long pmx_str(struct pmx_walk *w, const char *s, size_t len);
static inline const char *pmx_strget(const struct pmx_walk *w, uint32_t i)
{
	return (const char *)pmx_set_key(&w->strs, i, NULL);
}
/* Validates and copies caller options (NULL: defaults). */
PM_HIDDEN int pmx_opts(struct pm_export_opts *o, const struct pm_export_opts *opts, const pm_file *f,
		       const char *who);

#endif /* PM_EXPORT_INT_H */
