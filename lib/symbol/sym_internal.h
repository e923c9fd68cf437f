/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internals of the symbol module.  Never installed. */
#ifndef PM_SYM_INTERNAL_H
#define PM_SYM_INTERNAL_H

#include <pthread.h>

#include <profileme/symbol.h>

#include "internal/pm_internal.h"
#include "internal/sym_columns_int.h"

/* One function symbol, final form: file address, size, name offset into the
 * owning table's string arena, module-name offset (kernel only). */
struct pm__sym {
	uint64_t start;
	uint64_t size;
	uint32_t name;
	uint32_t mod;
};

/* A sorted symbol table.  Names live in `str`; offsets stay valid when the
 * arena grows, pointers are made only after loading is finished. */
struct pm__symtab {
	struct pm__sym *v;
	size_t n;
	struct pm__buf str;
	uint64_t lo, hi; /* [lo, hi): covered file addresses (kernel range check) */
};

/* Collection-time symbol, before sorting and sizing. */
struct pm__rawsym {
	uint64_t start;
	uint64_t size;
	uint64_t limit; /* end of the containing section (UINT64_MAX: none) */
	uint32_t name;
	uint32_t mod;
	uint32_t seq;
	uint32_t prio;   /* higher wins among symbols at the same address (after size) */
	uint32_t uscore; /* leading underscores of the name (fewer wins); set by push */
	uint32_t nlen;   /* length of the name (longer wins); set by push */
};

struct pm__rawvec {
	struct pm__rawsym *v;
	size_t n, cap;
};

/* A loaded PT_LOAD segment. */
struct pm__seg {
	uint64_t vaddr, off, filesz, memsz;
};

/* The line table of one file: address ranges [start, end) sorted by start,
 * each with a source file (offset into `names`, UINT32_MAX: none), a line
 * and a column.  maxend is the largest end of the ranges up to this one
 * (sequences of a file may overlap). */
struct pm__lrange {
	uint64_t start, end, maxend;
	uint32_t file, line, column;
};

struct pm__linetab {
	struct pm__lrange *v;
	size_t n, cap;
	struct pm__buf names;
};

/* The sections the line reader reads (any may be absent: NULL, 0).
 * .debug_info and .debug_abbrev give each DWARF 2-4 line table its
 * compilation directory (DW_AT_comp_dir of the unit whose DW_AT_stmt_list
 * points at it), which those versions leave out of .debug_line. */
struct pm__dwarf_secs {
	const uint8_t *line, *line_str, *str, *info, *abbrev;
	size_t line_len, line_str_len, str_len, info_len, abbrev_len;
	bool be; /* the file's byte order */
};

enum { PM__DSO_NEW, PM__DSO_LOADED, PM__DSO_FAILED, PM__DSO_SPECIAL };

struct pm__dso {
	char *path;           /* as given in the maps */
	struct pm__dso *hnext;
	int state;
	struct pm__symtab tab;
	struct pm__seg *segs;
	size_t nsegs;
	int lstate; /* PM__DSO_NEW: line table not read yet; LOADED; FAILED: none */
	struct pm__linetab lines;
};

struct pm__map {
	uint64_t start, end, pgoff;
	struct pm__dso *dso;
};

struct pm__proc {
	int32_t pid;
	bool dead;
	uint64_t gen; /* changes whenever the maps do (pm_sym_resolve_file() caches by it) */
	struct pm__map *maps;
	size_t n, cap;
};

struct pm__diag {
	char *file;
	char *message;
	int32_t code;
	int32_t err;
};

/* string tables of pm_sym_resolve_rows() */
struct pm__strtab {
	char **v;
	size_t n, cap;
	uint32_t *slots; /* index + 1, 0: empty */
	size_t nslots;
};

/* Where the cache is and what it is checked against (paths; tests fake them). */
struct pm__kcfg {
	char *dir;     /* NULL: no cache */
	char *live;    /* the kallsyms that is cached: "/proc/kallsyms" */
	char *boot_id; /* "/proc/sys/kernel/random/boot_id" */
	char *modules; /* "/proc/modules" */
};

struct pm_sym {
	char *sysroot;   /* "" when none */
	char *debug_dir;
	char *kallsyms;
	uint32_t flags;

	struct pm__dso **buckets;
	size_t nbuckets;
	struct pm__dso **dsos; /* insertion order */
	size_t ndsos, capdsos;

	struct pm__proc **procs; /* sorted by pid */
	size_t nprocs, capprocs;
	struct pm__proc *last_proc;

	struct pm__symtab ktab;
	int kstate;   /* enum pm_sym_kernel_state */
	/* the kernel symbol cache: when kcached, ktab came from it and answers
	 * the ranges ktrust only; kfresh (read when first needed) the rest */
	struct pm__kcfg kc;
	bool kcached;
	bool kstale; /* the cache lacks a module loaded now: a fresh read rewrites it */
	struct pm__krange *ktrust;
	size_t nktrust;
	struct pm__symtab kfresh;
	int kfresh_state;
	bool kfresh_loaded;
	bool kloaded; /* tried */
	struct pm__kload *kpending; /* being read by kthread (pm__kallsyms_start()) */
	pthread_t kthread;

	struct pm__diag *diags;
	size_t ndiags, capdiags;

	uint64_t gen;        /* last map generation handed out */
	char *vdso_build_id; /* hex build id of the recording's [vdso], or NULL */
	bool local_kernel;   /* this machine's kernel may stand for the recorded one (vDSO image) */

	/* pm_sym_resolve_file(): distinct results, and the (pid, gen, addr, how) hash */
	struct pm_sym_result *rtab;
	size_t nrtab, caprtab;
	struct pm__rkey *rhash;
	size_t caprhash;

	/* pm_sym_resolve_rows(): sym, dso and comm string tables */
	struct pm__strtab rows_tab[3];
};

struct pm__rkey {
	uint64_t gen, addr;
	int32_t pid;
	uint32_t how;
	uint32_t idx; /* into rtab, +1 (0: empty slot) */
};

/* symtab.c */
PM_HIDDEN int pm__rawvec_push(struct pm__rawvec *rv, const struct pm__rawsym *r, const char *name);
PM_HIDDEN int pm__symtab_build(struct pm__symtab *t, struct pm__rawvec *rv, uint64_t last_extent);
PM_HIDDEN const struct pm__sym *pm__symtab_find(const struct pm__symtab *t, uint64_t addr);
PM_HIDDEN void pm__symtab_free(struct pm__symtab *t);
static inline const char *pm__symtab_str(const struct pm__symtab *t, uint32_t off)
{
	return t->str.data + off;
}
/* Append a NUL-terminated string to the arena; its offset in *off. */
PM_HIDDEN int pm__symtab_addstr(struct pm__symtab *t, const char *s, size_t n, uint32_t *off);

/* symbol.c */
PM_HIDDEN uint64_t pm__sym_proc_gen(pm_sym *s, int32_t pid);
PM_HIDDEN void pm__sym_diag(pm_sym *s, const char *file, int code, int err,
			    const char *fmt, ...) PM_PRINTF(5, 6);

/* elf.c: load a file's symbols; failures become diagnostics. */
PM_HIDDEN void pm__dso_load(pm_sym *s, struct pm__dso *d);

/* elf.c: read a file's line table (once; lstate says how it went). */
PM_HIDDEN void pm__dso_load_lines(pm_sym *s, struct pm__dso *d);

/* dwarf_line.c: parse every unit of .debug_line into t (sorted).  Returns
 * the number of units dropped as malformed (>= 0; the first one's reason
 * in err) or -ENOMEM (t empty). */
PM_HIDDEN int pm__dwarf_lines_parse(const struct pm__dwarf_secs *s, struct pm__linetab *t,
				    char *err, size_t errlen);
/* The range covering addr, or NULL. */
PM_HIDDEN const struct pm__lrange *pm__linetab_find(const struct pm__linetab *t, uint64_t addr);
/* The range's file path, or NULL. */
PM_HIDDEN const char *pm__linetab_file(const struct pm__linetab *t, const struct pm__lrange *r);
PM_HIDDEN void pm__linetab_free(struct pm__linetab *t);


/* feed.c: the replay of a recording under pm_sym_resolve_file() and
 * pm_sym_resolve_rows(): query i is resolved (out_idx[i]) once every record
 * before its sample has been fed; then on_query(i) runs.  on_record sees each
 * side record after the symbolizer has. */
struct pm__replay {
	size_t n;
	/* the query columns: element i of each at i * its stride in bytes (the
	 * element's size for a plain array; never 0), read with pm__rq_*() */
	const void *pid;     /* int32_t */
	const void *addr;    /* uint64_t */
	const void *cpumode; /* uint8_t, or NULL (0) */
	const void *when;    /* uint64_t, or NULL */
	size_t spid, saddr, smode, swhen;
	uint32_t flags; /* PM_SYM_WHEN_TIME, PM_SYM_ROWS_PARTIAL (a reading error ends the replay) */
	bool palcode; /* PM_SYM_CPUMODE_PALCODE rows: out_idx UINT32_MAX, not looked up */
	size_t *defer; /* room for ndefer_cap kernel queries resolved after the replay (or NULL) */
	size_t ndefer, ndefer_cap;
	uint32_t *out_idx;
	int (*on_query)(pm_sym *s, size_t i, void *user);
	int (*on_record)(pm_sym *s, const struct pm_record *r, void *user);
	void *user;
	/* The records to replay: NULL, every record of the file by
	 * pm_file_next(); else the side records only, each with the number of
	 * SAMPLE records before it in the file (*nsamples), the end as
	 * pm_file_next() reports it (pm_columns_resolve_rows()). */
	int (*next)(void *it, struct pm_file_record *rec, uint64_t *nsamples);
	void *it;
};
PM_HIDDEN int pm__sym_replay(pm_sym *s, struct pm_file *f, struct pm__replay *q);

/* Element i of a strided query column (no alignment needed). */
static inline int32_t pm__rq_i32(const void *p, size_t stride, size_t i)
{
	int32_t v;

	memcpy(&v, (const char *)p + i * stride, sizeof(v));
	return v;
}

static inline uint32_t pm__rq_u32(const void *p, size_t stride, size_t i)
{
	uint32_t v;

	memcpy(&v, (const char *)p + i * stride, sizeof(v));
	return v;
}

static inline uint64_t pm__rq_u64(const void *p, size_t stride, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)p + i * stride, sizeof(v));
	return v;
}

static inline uint8_t pm__rq_u8(const void *p, size_t stride, size_t i)
{
	return p ? ((const uint8_t *)p)[i * stride] : 0;
}

/* rows.c */
PM_HIDDEN void pm__sym_rows_free(pm_sym *s);
/* and pm__sym_resolve_rows_from(), pm__sym_kernel_prefetch(): internal/sym_columns_int.h */

/* kcache.c: the kernel symbol cache (see the comment at its top). */
#define PM__KCACHE_VERSION 1
/* One cached region: the core kernel, or one load of a module. */
struct pm__kgroup {
	uint64_t first, last;  /* starts of its first and last symbol */
	uint64_t maddr, msize; /* a module's load address and size (/proc/modules); core: 0 */
	uint32_t mod;          /* its "[name]" in the table's strings */
	uint32_t lo, hi;       /* its symbols: tab.v[lo, hi) */
	uint32_t kind;         /* 0: the core kernel, 1: a module */
};
/* Addresses [lo, hi) answered from the cache. */
struct pm__krange {
	uint64_t lo, hi;
};
/* A parsed cache file. */
struct pm__kcache {
	struct pm__symtab tab;
	struct pm__kgroup *g;
	size_t ng;
	char boot_id[64];
	size_t boot_id_len;
	char *head; /* the first lines of kallsyms, up to the first non-zero address */
	size_t head_len;
};
/* /proc/modules. */
struct pm__kmod {
	char name[64];
	uint64_t size, addr;
	bool live;
};
struct pm__kmods {
	struct pm__kmod *v;
	size_t n, cap;
	bool ok; /* read (or absent: no modules); false: unreadable or not understood */
};
PM_HIDDEN uint64_t pm__kcache_checksum(const uint8_t *p, size_t n);
/* 0 and *kc filled, or -PM_ERR_FORMAT (why says what failed) or -ENOMEM. */
PM_HIDDEN int pm__kcache_parse(const uint8_t *p, size_t n, struct pm__kcache *kc, char *why,
			       size_t whylen);
PM_HIDDEN void pm__kcache_free(struct pm__kcache *kc);
/* The file image of regions g of table t. */
PM_HIDDEN int pm__kcache_encode(const struct pm__symtab *t, const struct pm__kgroup *g, size_t ng,
				const char *boot_id, size_t boot_len, const char *head,
				size_t head_len, struct pm__buf *out);
/* The cacheable regions of a freshly read table: the core kernel's symbols
 * inside its image's text img (from the lines _text/_stext to
 * _etext/_einittext), the modules listed alike before and after the read. */
PM_HIDDEN int pm__kcache_regions(const struct pm__symtab *t, const struct pm__krange *img,
				 const struct pm__kmods *before, const struct pm__kmods *after,
				 struct pm__kgroup **out, size_t *nout);
/* The ranges of kc that modules `now` still vouch for (sorted). */
PM_HIDDEN int pm__kcache_trust(const struct pm__kcache *kc, const struct pm__kmods *now,
			       struct pm__krange **out, size_t *nout);
PM_HIDDEN bool pm__krange_has(const struct pm__krange *r, size_t n, uint64_t addr);
PM_HIDDEN int pm__kcache_boot_id(const char *path, char *buf, size_t cap);
PM_HIDDEN int pm__kmods_read(const char *path, struct pm__kmods *m);
PM_HIDDEN void pm__kmods_free(struct pm__kmods *m);
/* How many modules of m a cache could hold (Live, address shown, a module name). */
PM_HIDDEN size_t pm__kmods_usable(const struct pm__kmods *m);
PM_HIDDEN char *pm__kcache_default_dir(void);
PM_HIDDEN int pm__kcache_read(const char *dir, uint8_t **out, size_t *len);
PM_HIDDEN int pm__kcache_write(const char *dir, const void *p, size_t n);
PM_HIDDEN bool pm__kcache_head_matches(const char *kallsyms, const char *head, size_t head_len);
/* Test hook: the cache in dir (NULL: off) for the kallsyms file live, checked
 * against these boot id and modules files; live becomes the symbolizer's
 * kallsyms.  Before any kernel lookup; 0 or -ENOMEM. */
PM_HIDDEN int pm__sym_kcache_paths(pm_sym *s, const char *dir, const char *live,
				   const char *boot_id, const char *modules);

/* kallsyms.c: pm__kallsyms_load() reads kernel symbols now;
 * pm__kallsyms_start() on a thread of their own, which pm__kallsyms_join()
 * waits for (every use of the kernel table joins first). */
struct pm__kload {
	const char *path;
	const struct pm__kcfg *kc; /* the symbolizer's (read only) */
	bool fresh;                /* do not answer from the cache (but refresh it) */
	bool nostore;              /* do not write the cache either */
	bool stale;                /* (out) the cache lacks a module that is loaded now */
	struct pm__symtab tab;
	int state;
	int diag_code, diag_err;
	char diag[400];
	/* from the cache: tab answers ranges trust[0, ntrust) only */
	bool cached;
	struct pm__krange *trust;
	size_t ntrust;
	char note[600]; /* what the cache did (a debug log line) */
};
PM_HIDDEN void pm__kallsyms_load(pm_sym *s);
PM_HIDDEN void pm__kallsyms_start(pm_sym *s);
PM_HIDDEN void pm__kallsyms_join(pm_sym *s);
/* A fresh read into s->kfresh (once), for what the cache does not answer. */
PM_HIDDEN void pm__kallsyms_fresh(pm_sym *s);

#endif /* PM_SYM_INTERNAL_H */
