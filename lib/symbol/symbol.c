/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The symbolizer: processes and their maps, the file cache, lookups. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <libelf.h>

#include "symbol/sym_internal.h"

static const char unknown_str[] = "[unknown]";
static const char kernel_str[] = "[kernel.kallsyms]";

static char *dup_or(const char *s, const char *dflt)
{
	const char *v = s ? s : dflt;

	return pm__strndup(v, strlen(v));
}

int pm_sym_new(pm_sym **out, const struct pm_sym_opts *opts)
{
	struct pm_sym_opts o = { .sz = sizeof(o) };
	pm_sym *s;
	int rc;

	if (!out)
		return pm__err(EINVAL, "pm_sym_new: NULL out");
	*out = NULL;
	rc = PM__SZ_VALID(opts, pm_sym_opts, PM_SYM_OPTS_SZ_V1);
	if (rc)
		return rc;
	if (opts)
		pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pm__err(PM_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));

	s = pm__calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->flags = o.flags;
	s->sysroot = dup_or(o.sysroot, "");
	s->kallsyms = dup_or(o.kallsyms, "/proc/kallsyms");
	if (o.debug_dir) {
		s->debug_dir = dup_or(o.debug_dir, "");
	} else if (s->sysroot) {
		struct pm__buf b = {0};

		if (pm__buf_printf(&b, "%s/usr/lib/debug", s->sysroot) == 0)
			s->debug_dir = b.data;
		else
			pm__buf_free(&b);
	}
	s->nbuckets = 256;
	s->buckets = pm__calloc(s->nbuckets, sizeof(*s->buckets));
	if (!s->sysroot || !s->kallsyms || !s->debug_dir || !s->buckets) {
		pm_sym_free(s);
		return -ENOMEM;
	}
	/* the kernel symbol cache: pm_sym_opts.cache_dir, else the default
	 * ($PROFILEME_CACHE_DIR, $XDG_CACHE_HOME/profileme, ~/.cache/profileme);
	 * "" turns it off.  Only /proc/kallsyms is cached. */
	if (o.cache_dir)
		s->kc.dir = o.cache_dir[0] ? pm__strndup(o.cache_dir, strlen(o.cache_dir)) : NULL;
	else
		s->kc.dir = pm__kcache_default_dir();
	s->kc.live = dup_or(NULL, "/proc/kallsyms");
	s->kc.boot_id = dup_or(NULL, "/proc/sys/kernel/random/boot_id");
	s->kc.modules = dup_or(NULL, "/proc/modules");
	if (!s->kc.live || !s->kc.boot_id || !s->kc.modules || (o.cache_dir && o.cache_dir[0] && !s->kc.dir)) {
		pm_sym_free(s);
		return -ENOMEM;
	}
	s->kstate = (s->flags & PM_SYM_OPT_NO_KERNEL) ? PM_SYM_KERNEL_DISABLED : PM_SYM_KERNEL_UNREADABLE;
	s->local_kernel = true;
	*out = s;
	return 0;
}

static void proc_free(struct pm__proc *p)
{
	if (p) {
		free(p->maps);
		free(p);
	}
}

void pm_sym_free(pm_sym *s)
{
	if (!s)
		return;
	pm__kallsyms_join(s);
	for (size_t i = 0; i < s->ndsos; i++) {
		struct pm__dso *d = s->dsos[i];

		pm__symtab_free(&d->tab);
		pm__linetab_free(&d->lines);
		free(d->segs);
		free(d->path);
		free(d);
	}
	free(s->dsos);
	free(s->buckets);
	for (size_t i = 0; i < s->nprocs; i++)
		proc_free(s->procs[i]);
	free(s->procs);
	pm__symtab_free(&s->ktab);
	pm__symtab_free(&s->kfresh);
	free(s->ktrust);
	free(s->kc.dir);
	free(s->kc.live);
	free(s->kc.boot_id);
	free(s->kc.modules);
	for (size_t i = 0; i < s->ndiags; i++) {
		free(s->diags[i].file);
		free(s->diags[i].message);
	}
	free(s->diags);
	free(s->sysroot);
	free(s->debug_dir);
	free(s->kallsyms);
	free(s->vdso_build_id);
	free(s->rtab);
	free(s->rhash);
	pm__sym_rows_free(s);
	free(s);
}

void pm__sym_diag(pm_sym *s, const char *file, int code, int err, const char *fmt, ...)
{
	struct pm__buf b = {0};
	struct pm__diag *d;
	va_list ap;
	char *msg;
	int n;

	if (s->ndiags == s->capdiags) {
		size_t cap = s->capdiags ? s->capdiags * 2 : 16;

		d = pm__reallocarray(s->diags, cap, sizeof(*d));
		if (!d)
			return; /* out of memory: the diagnostic is lost, nothing else */
		s->diags = d;
		s->capdiags = cap;
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || pm__buf_reserve(&b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b.data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	msg = b.data;
	d = &s->diags[s->ndiags];
	d->file = pm__strndup(file, strlen(file));
	d->message = msg;
	d->code = code;
	d->err = err;
	if (!d->file) {
		free(msg);
		return;
	}
	s->ndiags++;
	pm__log(code == PM_SYM_DIAG_DEBUG_FILE || code == PM_SYM_DIAG_SIDECAR ? PM_LOG_INFO : PM_LOG_WARN, "%s: %s", file, msg);
}

/* ---- file cache ---- */

static uint64_t hash_mem(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static uint64_t hash_str(const char *p)
{
	return hash_mem(p, strlen(p));
}

/* Names that are no file: no symbols (the vDSO is loaded its own way). */
static bool special_name(const char *p)
{
	if (strcmp(p, "[vdso]") == 0)
		return false;
	return p[0] == '\0' || p[0] == '[' || strncmp(p, "//anon", 6) == 0 ||
	       strncmp(p, "anon_inode:", 11) == 0 || strcmp(p, "/dev/zero") == 0 ||
	       strncmp(p, "/SYSV", 5) == 0;
}

static int dso_rehash(pm_sym *s)
{
	size_t nb = s->nbuckets * 2;
	struct pm__dso **b = pm__calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < s->ndsos; i++) {
		struct pm__dso *d = s->dsos[i];
		size_t h = (size_t)(hash_str(d->path) & (nb - 1));

		d->hnext = b[h];
		b[h] = d;
	}
	free(s->buckets);
	s->buckets = b;
	s->nbuckets = nb;
	return 0;
}

static struct pm__dso *dso_lookup(const pm_sym *s, const char *path, size_t n)
{
	struct pm__dso *d = s->buckets[hash_mem(path, n) & (s->nbuckets - 1)];

	while (d && (strncmp(d->path, path, n) != 0 || d->path[n] != '\0'))
		d = d->hnext;
	return d;
}

static struct pm__dso *dso_get(pm_sym *s, const char *path, size_t n)
{
	struct pm__dso *d = dso_lookup(s, path, n);
	size_t h;

	if (d)
		return d;
	if (s->ndsos >= s->nbuckets && dso_rehash(s))
		return NULL;
	if (s->ndsos == s->capdsos) {
		size_t cap = s->capdsos ? s->capdsos * 2 : 64;
		struct pm__dso **v = pm__reallocarray(s->dsos, cap, sizeof(*v));

		if (!v)
			return NULL;
		s->dsos = v;
		s->capdsos = cap;
	}
	d = pm__calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = pm__strndup(path, n);
	if (!d->path) {
		free(d);
		return NULL;
	}
	d->state = special_name(d->path) ? PM__DSO_SPECIAL : PM__DSO_NEW;
	h = (size_t)(hash_str(d->path) & (s->nbuckets - 1));
	d->hnext = s->buckets[h];
	s->buckets[h] = d;
	s->dsos[s->ndsos++] = d;
	return d;
}

static void dso_ensure(pm_sym *s, struct pm__dso *d)
{
	if (d->state == PM__DSO_NEW)
		pm__dso_load(s, d);
}

/* ---- processes ---- */

static size_t proc_pos(const pm_sym *s, int32_t pid)
{
	size_t lo = 0, hi = s->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->procs[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct pm__proc *proc_find(pm_sym *s, int32_t pid)
{
	size_t i;

	if (s->last_proc && s->last_proc->pid == pid)
		return s->last_proc;
	i = proc_pos(s, pid);
	if (i < s->nprocs && s->procs[i]->pid == pid)
		return s->last_proc = s->procs[i];
	return NULL;
}

static struct pm__proc *proc_get(pm_sym *s, int32_t pid)
{
	struct pm__proc *p = proc_find(s, pid);
	size_t i;

	if (p)
		return p;
	if (s->nprocs == s->capprocs) {
		size_t cap = s->capprocs ? s->capprocs * 2 : 64;
		struct pm__proc **v = pm__reallocarray(s->procs, cap, sizeof(*v));

		if (!v)
			return NULL;
		s->procs = v;
		s->capprocs = cap;
	}
	p = pm__calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	i = proc_pos(s, pid);
	memmove(&s->procs[i + 1], &s->procs[i], (s->nprocs - i) * sizeof(*s->procs));
	s->procs[i] = p;
	s->nprocs++;
	return s->last_proc = p;
}

static int proc_reserve(struct pm__proc *p, size_t extra)
{
	if (p->n + extra > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct pm__map *v;

		while (cap < p->n + extra)
			cap *= 2;
		v = pm__reallocarray(p->maps, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->maps = v;
		p->cap = cap;
	}
	return 0;
}

/* First map whose end is above addr. */
static size_t map_pos(const struct pm__proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert a map, cutting away whatever part of older maps it covers. */
static int proc_insert(struct pm__proc *p, const struct pm__map *m)
{
	struct pm__map piece[3];
	size_t lo, hi, np = 0;
	int rc = proc_reserve(p, 3);

	if (rc)
		return rc;
	lo = map_pos(p, m->start);
	hi = lo;
	while (hi < p->n && p->maps[hi].start < m->end)
		hi++;
	if (hi > lo && p->maps[lo].start < m->start) {
		piece[np] = p->maps[lo];
		piece[np].end = m->start;
		np++;
	}
	piece[np++] = *m;
	if (hi > lo && p->maps[hi - 1].end > m->end) {
		struct pm__map r = p->maps[hi - 1];

		r.pgoff += m->end - r.start;
		r.start = m->end;
		piece[np++] = r;
	}
	memmove(&p->maps[lo + np], &p->maps[hi], (p->n - hi) * sizeof(*p->maps));
	memcpy(&p->maps[lo], piece, np * sizeof(*piece));
	p->n = p->n - (hi - lo) + np;
	return 0;
}

static void proc_revive(struct pm__proc *p)
{
	if (p->dead) {
		p->n = 0;
		p->dead = false;
	}
}

/* The maps of p changed: lookups cached under its old generation are stale. */
static void proc_touch(pm_sym *s, struct pm__proc *p)
{
	p->gen = ++s->gen;
}

uint64_t pm__sym_proc_gen(pm_sym *s, int32_t pid)
{
	struct pm__proc *p = proc_find(s, pid);

	return p ? p->gen : 0;
}

int pm_sym_add_map_len(pm_sym *s, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		       const char *name, size_t name_len)
{
	struct pm__proc *p;
	struct pm__map m;

	if (!s || (!name && name_len))
		return pm__err(EINVAL, "pm_sym_add_map: NULL argument");
	if (!len || start + len < start)
		return pm__err(EINVAL, "pm_sym_add_map: bad range 0x%" PRIx64 "+0x%" PRIx64, start, len);
	if (name_len > PM_SYM_NAME_MAX)
		return pm__err(EINVAL, "pm_sym_add_map: name of %zu bytes (at most %u)", name_len,
			       (unsigned)PM_SYM_NAME_MAX);
	if (name && memchr(name, '\0', name_len))
		name_len = strlen(name);
	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	proc_revive(p);
	m.start = start;
	m.end = start + len;
	m.pgoff = pgoff;
	m.dso = dso_get(s, name ? name : "", name_len);
	if (!m.dso)
		return -ENOMEM;
	proc_touch(s, p);
	return proc_insert(p, &m);
}

int pm_sym_add_map(pm_sym *s, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *filename)
{
	if (!s || !filename)
		return pm__err(EINVAL, "pm_sym_add_map: NULL argument");
	return pm_sym_add_map_len(s, pid, start, len, pgoff, filename, strlen(filename));
}

int pm_sym_load_proc_maps(pm_sym *s, int32_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int added = 0, rc = 0;

	if (!s)
		return pm__err(EINVAL, "pm_sym_load_proc_maps: NULL symbolizer");
	snprintf(path, sizeof(path), "/proc/%" PRId32 "/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return pm__err(errno, "%s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) > 0) {
		unsigned long long lo, hi, off;
		char perms[8];
		int pos = 0;
		char *name;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &off, &pos) != 4 ||
		    pos == 0 || hi <= lo) {
			rc = pm__err(PM_ERR_FORMAT, "%s: cannot parse '%s'", path, line);
			break;
		}
		if (!strchr(perms, 'x'))
			continue;
		name = line + pos;
		while (*name == ' ' || *name == '\t')
			name++;
		rc = pm_sym_add_map(s, pid, lo, hi - lo, off, *name ? name : "//anon");
		if (rc)
			break;
		added++;
	}
	free(line);
	fclose(f);
	return rc ? rc : added;
}

int pm_sym_fork(pm_sym *s, int32_t parent, int32_t child)
{
	struct pm__proc *pp, *cp;
	int rc;

	if (!s)
		return pm__err(EINVAL, "pm_sym_fork: NULL symbolizer");
	if (parent == child)
		return 0;
	cp = proc_get(s, child);
	if (!cp)
		return -ENOMEM;
	pp = proc_find(s, parent);
	cp->n = 0;
	cp->dead = false;
	proc_touch(s, cp);
	if (!pp)
		return 0;
	rc = proc_reserve(cp, pp->n);
	if (rc)
		return rc;
	if (pp->n)
		memcpy(cp->maps, pp->maps, pp->n * sizeof(*pp->maps));
	cp->n = pp->n;
	return 0;
}

int pm_sym_exec(pm_sym *s, int32_t pid)
{
	struct pm__proc *p;

	if (!s)
		return pm__err(EINVAL, "pm_sym_exec: NULL symbolizer");
	p = proc_find(s, pid);
	if (p) {
		p->n = 0;
		p->dead = false;
		proc_touch(s, p);
	}
	return 0;
}

int pm_sym_exit(pm_sym *s, int32_t pid)
{
	struct pm__proc *p;

	if (!s)
		return pm__err(EINVAL, "pm_sym_exit: NULL symbolizer");
	p = proc_find(s, pid);
	if (p)
		p->dead = true;
	return 0;
}

/* ---- lookups ---- */

static void kernel_ensure(pm_sym *s)
{
	if (s->kpending)
		pm__kallsyms_join(s);
	if (!s->kloaded && !(s->flags & PM_SYM_OPT_NO_KERNEL)) {
		s->kloaded = true;
		pm__kallsyms_load(s);
	}
}

/* The file address of a run-time address in a map. */
static uint64_t file_addr(const struct pm__map *m, uint64_t addr)
{
	const struct pm__dso *d = m->dso;
	uint64_t off = addr - m->start + m->pgoff;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->nsegs; i++) {
			const struct pm__seg *g = &d->segs[i];
			uint64_t sz = pass ? g->memsz : g->filesz;

			if (off >= g->off && off - g->off < sz)
				return off - g->off + g->vaddr;
		}
	return off;
}

int pm__sym_kcache_paths(pm_sym *s, const char *dir, const char *live, const char *boot_id,
			 const char *modules)
{
	char *d = dir ? pm__strndup(dir, strlen(dir)) : NULL, *l = pm__strndup(live, strlen(live)),
	     *k = pm__strndup(live, strlen(live)), *b = pm__strndup(boot_id, strlen(boot_id)),
	     *m = pm__strndup(modules, strlen(modules));

	if ((dir && !d) || !l || !k || !b || !m) {
		free(d);
		free(l);
		free(k);
		free(b);
		free(m);
		return -ENOMEM;
	}
	free(s->kc.dir);
	free(s->kc.live);
	free(s->kc.boot_id);
	free(s->kc.modules);
	free(s->kallsyms);
	s->kc.dir = d;
	s->kc.live = l;
	s->kc.boot_id = b;
	s->kc.modules = m;
	s->kallsyms = k;
	return 0;
}

/*
 * The kernel table (and its state) that answers addr.  From the cache
 * (kcached) only inside its trusted ranges, where a fresh read gives the same
 * symbol, start and size (kcache.c, docs/symbol.md); and below every cached
 * symbol in the lower half of the address space when the cached kernel is in
 * the upper half (no kernel symbol, dynamic or not, is there: the answer is
 * "no symbol", "not a kernel address", as a fresh read's).  Anything else
 * from a fresh read, made once, when first needed.
 */
static const struct pm__symtab *kernel_view(pm_sym *s, uint64_t addr, int *state)
{
	if (!s->kcached || pm__krange_has(s->ktrust, s->nktrust, addr) ||
	    (addr < s->ktab.lo && !(addr >> 63) && (s->ktab.lo >> 63))) {
		*state = s->kstate;
		return &s->ktab;
	}
	pm__kallsyms_fresh(s);
	*state = s->kfresh_state;
	return &s->kfresh;
}

static void lookup_kernel(const struct pm__symtab *t, int state, uint64_t addr,
			  struct pm_sym_result *r)
{
	const struct pm__sym *sym = NULL;

	r->flags = PM_SYM_KERNEL | PM_SYM_UNKNOWN;
	r->dso = kernel_str;
	r->dso_addr = addr;
	if (state == PM_SYM_KERNEL_OK)
		sym = pm__symtab_find(t, addr);
	if (sym) {
		r->flags = PM_SYM_KERNEL;
		r->name = pm__symtab_str(t, sym->name);
		r->dso = pm__symtab_str(t, sym->mod);
		r->sym_start = sym->start;
		r->sym_size = sym->size;
		r->offset = addr - sym->start;
	}
}

int pm_sym_lookup(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
		  struct pm_sym_result *res)
{
	struct pm_sym_result r;
	int rc;

	if (!s || !res)
		return pm__err(EINVAL, "pm_sym_lookup: NULL argument");
	rc = PM__SZ_VALID(res, pm_sym_result, PM_SYM_RESULT_SZ_V1);
	if (rc)
		return rc;
	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	r.name = unknown_str;
	r.dso = unknown_str;
	r.dso_addr = addr;
	r.flags = PM_SYM_UNKNOWN | PM_SYM_NO_MAP;

	if (!(how & PM_SYM_LOOKUP_KERNEL)) {
		struct pm__proc *p = proc_find(s, pid);

		if (p) {
			size_t i = map_pos(p, addr);

			if (i < p->n && p->maps[i].start <= addr) {
				const struct pm__map *m = &p->maps[i];
				const struct pm__sym *sym;

				dso_ensure(s, m->dso);
				r.flags = PM_SYM_UNKNOWN;
				r.dso = m->dso->path;
				r.dso_addr = file_addr(m, addr);
				sym = pm__symtab_find(&m->dso->tab, r.dso_addr);
				if (sym) {
					r.flags = 0;
					r.name = pm__symtab_str(&m->dso->tab, sym->name);
					r.sym_start = sym->start;
					r.sym_size = sym->size;
					r.offset = r.dso_addr - sym->start;
				}
				goto out;
			}
		}
	}
	if (!(how & PM_SYM_LOOKUP_USER)) {
		const struct pm__symtab *t;
		int st;

		kernel_ensure(s);
		t = kernel_view(s, addr, &st);
		if (how & PM_SYM_LOOKUP_KERNEL)
			lookup_kernel(t, st, addr, &r);
		else if (st == PM_SYM_KERNEL_OK && addr >= t->lo && addr < t->hi)
			lookup_kernel(t, st, addr, &r);
		else if (st != PM_SYM_KERNEL_OK && (addr >> 63))
			lookup_kernel(t, st, addr, &r); /* upper half: kernel on most 64-bit ABIs */
	}
out:
	pm__struct_copy_out(res, res->sz, &r, sizeof(r));
	return 0;
}

/* ---- line numbers ---- */

static int dso_line(pm_sym *s, struct pm__dso *d, uint64_t dso_addr, struct pm_sym_line *l)
{
	const struct pm__lrange *r;

	if (d->lstate == PM__DSO_NEW)
		pm__dso_load_lines(s, d);
	if (d->lstate != PM__DSO_LOADED)
		return 0;
	r = pm__linetab_find(&d->lines, dso_addr);
	if (!r)
		return 0;
	l->file = pm__linetab_file(&d->lines, r);
	l->line = r->line;
	l->column = r->column;
	return l->file || l->line ? 1 : 0;
}

static int line_out(struct pm_sym_line *out, const struct pm_sym_line *l, int found)
{
	pm__struct_copy_out(out, out->sz, l, sizeof(*l));
	return found;
}

int pm_sym_lookup_line(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
		       struct pm_sym_line *out)
{
	struct pm_sym_line l = { .sz = sizeof(l) };
	struct pm__proc *p;
	int rc;

	if (!s || !out)
		return pm__err(EINVAL, "pm_sym_lookup_line: NULL argument");
	rc = PM__SZ_VALID(out, pm_sym_line, PM_SYM_LINE_SZ_V1);
	if (rc)
		return rc;
	if (how & PM_SYM_LOOKUP_KERNEL)
		return line_out(out, &l, 0);
	p = proc_find(s, pid);
	if (p) {
		size_t i = map_pos(p, addr);

		if (i < p->n && p->maps[i].start <= addr) {
			const struct pm__map *m = &p->maps[i];

			/* the segments come with the symbols */
			dso_ensure(s, m->dso);
			return line_out(out, &l, dso_line(s, m->dso, file_addr(m, addr), &l));
		}
	}
	return line_out(out, &l, 0);
}

int pm_sym_dso_line(pm_sym *s, const char *dso, uint64_t dso_addr, struct pm_sym_line *out)
{
	struct pm_sym_line l = { .sz = sizeof(l) };
	struct pm__dso *d;
	int rc;

	if (!s || !dso || !out)
		return pm__err(EINVAL, "pm_sym_dso_line: NULL argument");
	rc = PM__SZ_VALID(out, pm_sym_line, PM_SYM_LINE_SZ_V1);
	if (rc)
		return rc;
	if (strlen(dso) > PM_SYM_NAME_MAX)
		return pm__err(EINVAL, "pm_sym_dso_line: name of %zu bytes (at most %u)", strlen(dso),
			       (unsigned)PM_SYM_NAME_MAX);
	d = dso_get(s, dso, strlen(dso));
	if (!d)
		return -ENOMEM;
	return line_out(out, &l, dso_line(s, d, dso_addr, &l));
}

static int def_match(const struct pm__symtab *t, const char *name, const char *moddso, size_t *count,
		     size_t idx, struct pm_sym_def *d, const char *dso, uint32_t flags)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct pm__sym *sym = &t->v[i];

		if (strcmp(pm__symtab_str(t, sym->name), name) != 0)
			continue;
		if (moddso && strcmp(pm__symtab_str(t, sym->mod), moddso) != 0)
			continue;
		if (*count == idx && d) {
			d->name = pm__symtab_str(t, sym->name);
			d->dso = dso ? dso : pm__symtab_str(t, sym->mod);
			d->start = sym->start;
			d->size = sym->size;
			d->flags = flags;
		}
		if (*count == INT32_MAX)
			return -ERANGE;
		(*count)++;
	}
	return 0;
}

int pm_sym_find(pm_sym *s, const char *dso, const char *name, size_t idx,
		struct pm_sym_def *out)
{
	struct pm_sym_def d;
	size_t count = 0;
	bool found = false;
	int rc;

	if (!s || !name)
		return pm__err(EINVAL, "pm_sym_find: NULL argument");
	if (out) {
		rc = PM__SZ_VALID(out, pm_sym_def, PM_SYM_DEF_SZ_V1);
		if (rc)
			return rc;
	}
	memset(&d, 0, sizeof(d));
	d.sz = sizeof(d);
	for (size_t i = 0; i < s->ndsos; i++) {
		struct pm__dso *x = s->dsos[i];

		if (dso && strcmp(dso, x->path) != 0)
			continue;
		dso_ensure(s, x);
		rc = def_match(&x->tab, name, NULL, &count, idx, &d, x->path, 0);
		if (rc)
			return rc;
	}
	if (!dso || dso[0] == '[') {
		const struct pm__symtab *t = &s->ktab;
		int st;

		kernel_ensure(s);
		st = s->kstate;
		if (s->kcached) { /* a name may be anywhere, dynamic entries too */
			pm__kallsyms_fresh(s);
			t = &s->kfresh;
			st = s->kfresh_state;
		}
		if (st == PM_SYM_KERNEL_OK) {
			rc = def_match(t, name, dso, &count, idx, &d, NULL, PM_SYM_KERNEL);
			if (rc)
				return rc;
		}
	}
	found = idx < count;
	if (out && found)
		pm__struct_copy_out(out, out->sz, &d, sizeof(d));
	return (int)count;
}

int pm_sym_preload(pm_sym *s)
{
	int bad = 0;

	if (!s)
		return pm__err(EINVAL, "pm_sym_preload: NULL symbolizer");
	for (size_t i = 0; i < s->ndsos; i++) {
		dso_ensure(s, s->dsos[i]);
		if (s->dsos[i]->state == PM__DSO_FAILED)
			bad++;
	}
	kernel_ensure(s);
	return bad;
}

int pm_sym_diag_count(const pm_sym *s)
{
	if (!s)
		return pm__err(EINVAL, "pm_sym_diag_count: NULL symbolizer");
	return s->ndiags > INT32_MAX ? INT32_MAX : (int)s->ndiags;
}

int pm_sym_diag_get(const pm_sym *s, size_t idx, struct pm_sym_diag *out)
{
	struct pm_sym_diag d;
	int rc;

	if (!s || !out)
		return pm__err(EINVAL, "pm_sym_diag_get: NULL argument");
	rc = PM__SZ_VALID(out, pm_sym_diag, PM_SYM_DIAG_SZ_V1);
	if (rc)
		return rc;
	if (idx >= s->ndiags)
		return pm__err(ERANGE, "pm_sym_diag_get: index %zu, only %zu diagnostics", idx,
			       s->ndiags);
	d.sz = sizeof(d);
	d.file = s->diags[idx].file;
	d.message = s->diags[idx].message;
	d.code = s->diags[idx].code;
	d.err = s->diags[idx].err;
	pm__struct_copy_out(out, out->sz, &d, sizeof(d));
	return 0;
}

int pm_sym_kernel_status(pm_sym *s)
{
	if (!s)
		return pm__err(EINVAL, "pm_sym_kernel_status: NULL symbolizer");
	kernel_ensure(s);
	return s->kstate;
}
