// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* The sample walker of the exporters (see export_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "export/export_int.h"

/* ---- hash set of byte strings ---------------------------------------- */

static uint64_t pmx_hash(const void *key, size_t len)
{
	const uint8_t *p = key;
	uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * 0xff51afd7ed558ccdull);

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = 0;

		memcpy(&v, p, len);
		h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return h;
}

void pmx_set_free(struct pmx_set *s)
{
	free(s->arena);
	free(s->off);
	free(s->len);
	free(s->hash);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static long pmx_set_lookup(const struct pmx_set *s, const void *key, size_t len, uint64_t h,
			   size_t *slot)
{
	size_t mask = s->nslots - 1;

	for (size_t j = (size_t)h & mask;; j = (j + 1) & mask) {
		uint32_t e = s->slots[j];

		if (!e) {
			*slot = j;
			return -1;
		}
		e--;
		if (s->hash[e] == h && s->len[e] == len && !memcmp(s->arena + s->off[e], key, len))
			return (long)e;
	}
}

long pmx_set_find(const struct pmx_set *s, const void *key, size_t len)
{
	size_t slot;

	if (!s->nslots)
		return -1;
	return pmx_set_lookup(s, key, len, pmx_hash(key, len), &slot);
}

static int pmx_set_grow(struct pmx_set *s)
{
	size_t ns = s->nslots ? s->nslots * 2 : 64;
	uint32_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	for (size_t e = 0; e < s->n; e++) {
		size_t j;

		for (j = (size_t)s->hash[e] & (ns - 1); sl[j]; j = (j + 1) & (ns - 1))
			;
		sl[j] = (uint32_t)(e + 1);
	}
	free(s->slots);
	s->slots = sl;
	s->nslots = ns;
	return 0;
}

long pmx_set_add(struct pmx_set *s, const void *key, size_t len, int *added)
{
	uint64_t h = pmx_hash(key, len);
	size_t slot;
	long e;

	if (added)
		*added = 0;
	if (len > UINT32_MAX || s->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((s->n + 1) * 2 > s->nslots && pmx_set_grow(s))
		return -ENOMEM;
	e = pmx_set_lookup(s, key, len, h, &slot);
	if (e >= 0)
		return e;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		size_t *o = pm__reallocarray(s->off, nc, sizeof(*o));

		if (!o)
			return -ENOMEM;
		s->off = o;
		uint32_t *l = pm__reallocarray(s->len, nc, sizeof(*l));
		if (!l)
			return -ENOMEM;
		s->len = l;
		uint64_t *hh = pm__reallocarray(s->hash, nc, sizeof(*hh));
		if (!hh)
			return -ENOMEM;
		s->hash = hh;
		s->cap = nc;
	}
	if (s->arena_len + len + 1 > s->arena_cap) {
		size_t nc = s->arena_cap ? s->arena_cap : 4096;
		uint8_t *a;

		while (nc < s->arena_len + len + 1)
			nc *= 2;
		a = realloc(s->arena, nc);
		if (!a)
			return -ENOMEM;
		s->arena = a;
		s->arena_cap = nc;
	}
	memcpy(s->arena + s->arena_len, key, len);
	s->arena[s->arena_len + len] = 0;
	s->off[s->n] = s->arena_len;
	s->len[s->n] = (uint32_t)len;
	s->hash[s->n] = h;
	s->arena_len += len + 1;
	s->slots[slot] = (uint32_t)(s->n + 1);
	if (added)
		*added = 1;
	return (long)s->n++;
}

/* ---- options ---------------------------------------------------------- */

int pmx_opts(struct pm_export_opts *o, const struct pm_export_opts *opts, const pm_file *f, const char *who)
{
	int err;

	memset(o, 0, sizeof(*o));
	o->event = -1;
	if (!f)
		return pm__err(EINVAL, "%s: NULL file", who);
	o->sz = sizeof(*o);
	err = PM__SZ_VALID(opts, pm_export_opts, PM_EXPORT_OPTS_SZ_V1);
	if (err)
		return err;
	if (opts)
		pm__opts_copy_in(o, sizeof(*o), opts, opts->sz);
	if (o->event < -1 || (o->event >= 0 && (size_t)o->event >= pm_file_nr_attrs(f)))
		return pm__err(ENOENT, "%s: no event %d (the file has %zu)", who, o->event,
			       pm_file_nr_attrs(f));
	if (o->flags & ~(PM_EXPORT_NO_KERNEL | PM_EXPORT_NO_SYMBOLS | PM_EXPORT_FOLDED_TID))
		return pm__err(EINVAL, "%s: unknown flags 0x%x", who, o->flags);
	return 0;
}

/* ---- strings, comms --------------------------------------------------- */

long pmx_str(struct pmx_walk *w, const char *s, size_t len)
{
	return pmx_set_add(&w->strs, s, len, NULL);
}

static long pmx_cstr(struct pmx_walk *w, const char *s)
{
	return pmx_str(w, s, strlen(s));
}

static int pmx_comm_set(struct pmx_walk *w, uint32_t tid, uint32_t comm)
{
	uint64_t key = (uint64_t)tid + 1;

	if ((w->comm_n + 1) * 2 > w->comm_cap) {
		size_t nc = w->comm_cap ? w->comm_cap * 2 : 256;
		uint64_t *k = calloc(nc, sizeof(*k));
		uint32_t *v = calloc(nc, sizeof(*v));

		if (!k || !v) {
			free(k);
			free(v);
			return -ENOMEM;
		}
		for (size_t i = 0; i < w->comm_cap; i++) {
			size_t j;

			if (!w->comm_keys[i])
				continue;
			for (j = (w->comm_keys[i] * 0x9E3779B97F4A7C15ull >> 20) & (nc - 1); k[j];
			     j = (j + 1) & (nc - 1))
				;
			k[j] = w->comm_keys[i];
			v[j] = w->comm_vals[i];
		}
		free(w->comm_keys);
		free(w->comm_vals);
		w->comm_keys = k;
		w->comm_vals = v;
		w->comm_cap = nc;
	}
	for (size_t j = (key * 0x9E3779B97F4A7C15ull >> 20) & (w->comm_cap - 1);;
	     j = (j + 1) & (w->comm_cap - 1)) {
		if (!w->comm_keys[j]) {
			w->comm_keys[j] = key;
			w->comm_vals[j] = comm;
			w->comm_n++;
			return 0;
		}
		if (w->comm_keys[j] == key) {
			w->comm_vals[j] = comm;
			return 0;
		}
	}
}

static long pmx_comm_get(struct pmx_walk *w, uint32_t tid)
{
	uint64_t key = (uint64_t)tid + 1;
	char buf[24];

	if (w->comm_cap)
		for (size_t j = (key * 0x9E3779B97F4A7C15ull >> 20) & (w->comm_cap - 1);;
		     j = (j + 1) & (w->comm_cap - 1)) {
			if (!w->comm_keys[j])
				break;
			if (w->comm_keys[j] == key)
				return w->comm_vals[j];
		}
	/* perf shows a thread it never saw named as ":tid". */
	snprintf(buf, sizeof(buf), ":%u", tid);
	return pmx_cstr(w, buf);
}

/* ---- processes and their maps ----------------------------------------- */

struct pmx_pid {
	uint32_t pid;
	uint64_t epoch;
	size_t n, cap;
	uint32_t *maps; /* indexes into w->maps, oldest first */
};

static struct pmx_pid *pmx_pid_get(struct pmx_walk *w, uint32_t pid, bool add)
{
	if (add && (w->pid_n + 1) * 2 > w->pid_cap) {
		size_t nc = w->pid_cap ? w->pid_cap * 2 : 64;
		struct pmx_pid **n = calloc(nc, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < w->pid_cap; i++) {
			size_t j;

			if (!w->pids[i])
				continue;
			for (j = ((uint64_t)w->pids[i]->pid * 0x9E3779B97F4A7C15ull >> 20) & (nc - 1); n[j];
			     j = (j + 1) & (nc - 1))
				;
			n[j] = w->pids[i];
		}
		free(w->pids);
		w->pids = n;
		w->pid_cap = nc;
	}
	if (!w->pid_cap)
		return NULL;
	for (size_t j = ((uint64_t)pid * 0x9E3779B97F4A7C15ull >> 20) & (w->pid_cap - 1);;
	     j = (j + 1) & (w->pid_cap - 1)) {
		if (w->pids[j] && w->pids[j]->pid == pid)
			return w->pids[j];
		if (!w->pids[j]) {
			struct pmx_pid *p;

			if (!add)
				return NULL;
			p = calloc(1, sizeof(*p));
			if (!p)
				return NULL;
			p->pid = pid;
			p->epoch = ++w->epoch;
			w->pids[j] = p;
			w->pid_n++;
			return p;
		}
	}
}

static int pmx_pid_push(struct pmx_pid *p, uint32_t map)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		uint32_t *m = pm__reallocarray(p->maps, nc, sizeof(*m));

		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->cap = nc;
	}
	p->maps[p->n++] = map;
	return 0;
}

static uint32_t pmx_build_id_of(struct pmx_walk *w, const char *filename)
{
	for (size_t i = 0;; i++) {
		int32_t pid;
		uint16_t misc;
		const uint8_t *id;
		size_t idlen;
		const char *fn;
		char hex[2 * 64 + 1];
		long s;

		if (pm_file_build_id(w->f, i, &pid, &misc, &id, &idlen, &fn) != 0)
			return 0;
		if (!fn || strcmp(fn, filename) || !idlen)
			continue;
		if (idlen > 64)
			idlen = 64;
		for (size_t k = 0; k < idlen; k++)
			snprintf(hex + 2 * k, 3, "%02x", id[k]);
		s = pmx_str(w, hex, 2 * idlen);
		return s > 0 ? (uint32_t)s : 0;
	}
}

static int pmx_add_map(struct pmx_walk *w, const struct pm_record_mmap *m)
{
	char name[4096];
	size_t n = PM_MIN((size_t)m->filename_len, sizeof(name) - 1);
	struct { uint64_t start, limit, pgoff, fn; } key;
	struct pmx_pid *p;
	bool kernel;
	long fn, mi;
	int added;

	memcpy(name, m->filename, n);
	name[n] = 0;
	/* The kernel's own map is recorded as [kernel.kallsyms]_text (or _stext);
	 * its module name, and its BUILD_ID entry, are [kernel.kallsyms]. */
	kernel = !strncmp(name, "[kernel.kallsyms]", 17);
	if (kernel)
		name[17] = 0, n = 17;
	fn = pmx_str(w, name, n);
	if (fn < 0)
		return (int)fn;
	memset(&key, 0, sizeof(key));
	key.start = m->addr;
	key.limit = m->addr + m->len < m->addr ? UINT64_MAX : m->addr + m->len;
	key.pgoff = kernel ? 0 : m->pgoff;
	key.fn = (uint64_t)fn;
	mi = pmx_set_add(&w->mapset, &key, sizeof(key), &added);
	if (mi < 0)
		return (int)mi;
	if (added) {
		struct pmx_map *mp;

		if (w->nmaps == w->maps_cap) {
			size_t nc = w->maps_cap ? w->maps_cap * 2 : 64;
			struct pmx_map *a = pm__reallocarray(w->maps, nc, sizeof(*a));

			if (!a)
				return -ENOMEM;
			w->maps = a;
			w->maps_cap = nc;
		}
		mp = &w->maps[w->nmaps++];
		memset(mp, 0, sizeof(*mp));
		mp->start = key.start;
		mp->limit = key.limit;
		mp->pgoff = key.pgoff;
		mp->filename = (uint32_t)fn;
		mp->kernel = kernel || m->pid == UINT32_MAX;
		if (m->has_build_id && m->build_id && m->build_id_size) {
			char hex[41];
			size_t bl = PM_MIN((size_t)m->build_id_size, (size_t)20);
			long s;

			for (size_t k = 0; k < bl; k++)
				snprintf(hex + 2 * k, 3, "%02x", m->build_id[k]);
			s = pmx_str(w, hex, 2 * bl);
			mp->build_id = s > 0 ? (uint32_t)s : 0;
		} else {
			mp->build_id = pmx_build_id_of(w, name);
		}
	}
	p = pmx_pid_get(w, m->pid, true);
	if (!p || pmx_pid_push(p, (uint32_t)mi))
		return -ENOMEM;
	p->epoch = ++w->epoch;
	return 0;
}

static int32_t pmx_map_in(const struct pmx_walk *w, const struct pmx_pid *p, uint64_t addr)
{
	if (!p)
		return -1;
	for (size_t i = p->n; i-- > 0;) {
		const struct pmx_map *m = &w->maps[p->maps[i]];

		if (addr >= m->start && addr < m->limit)
			return (int32_t)p->maps[i];
	}
	return -1;
}

static void pmx_side_record(struct pmx_walk *w, const struct pm_file_record *rec)
{
	struct pm_record r;

	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	if (pm_file_record_parse(w->f, rec, &r) < 0)
		return;
	if (w->sym)
		pm_sym_add_record(w->sym, &r); /* the library's one policy (docs/symbol.md) */
	switch (rec->type) {
	case PM_RECORD_MMAP:
	case PM_RECORD_MMAP2:
		if (r.mmap.len && !(rec->misc & PM_RECORD_MISC_MMAP_DATA))
			pmx_add_map(w, &r.mmap);
		break;
	case PM_RECORD_COMM: {
		long s = pmx_str(w, r.comm.comm, r.comm.comm_len);

		if ((rec->misc & PM_RECORD_MISC_COMM_EXEC) && r.comm.pid == r.comm.tid) {
			struct pmx_pid *p = pmx_pid_get(w, r.comm.pid, false);

			if (p) {
				p->n = 0;
				p->epoch = ++w->epoch;
			}
		}
		if (s >= 0)
			pmx_comm_set(w, r.comm.tid, (uint32_t)s);
		break;
	}
	case PM_RECORD_FORK: {
		long pc = pmx_comm_get(w, r.task.ptid);

		if (r.task.pid != r.task.ppid) {
			struct pmx_pid *pp = pmx_pid_get(w, r.task.ppid, false);
			struct pmx_pid *cp = pmx_pid_get(w, r.task.pid, true);

			if (cp) {
				cp->n = 0;
				for (size_t i = 0; pp && i < pp->n; i++)
					if (pmx_pid_push(cp, pp->maps[i]))
						break;
				cp->epoch = ++w->epoch;
			}
		}
		/* A thread the parent never named keeps ":tid". */
		if (pc >= 0 && pmx_strget(w, (uint32_t)pc)[0] != ':')
			pmx_comm_set(w, r.task.tid, (uint32_t)pc);
		break;
	}
	default:
		break;
	}
}

/* ---- frames ----------------------------------------------------------- */

/* The source positions of a resolved user-space frame: of the address (the
 * call instruction, addr - 1, for a return address) and of its symbol's start. */
static void pmx_lines(struct pmx_walk *w, uint32_t pid, uint64_t addr, bool ret, uint32_t how,
		      const struct pm_sym_result *r, struct pmx_frame *out)
{
	struct pm_sym_line l = { .sz = sizeof(l) };
	long s;

	if (pm_sym_lookup_line(w->sym, (int32_t)pid, ret && addr ? addr - 1 : addr, how, &l) == 1) {
		out->line = l.line;
		out->column = l.column;
		if (l.file && (s = pmx_cstr(w, l.file)) > 0)
			out->file = (uint32_t)s;
	}
	l.file = NULL;
	if (r->dso && pm_sym_dso_line(w->sym, r->dso, r->sym_start, &l) == 1) {
		out->fn_line = l.line;
		if (l.file && (s = pmx_cstr(w, l.file)) > 0)
			out->fn_file = (uint32_t)s;
	}
	pm__err_clear();
}

static int pmx_resolve(struct pmx_walk *w, uint32_t pid, uint64_t addr, uint32_t how, bool ret,
		       struct pmx_frame *out)
{
	struct pmx_pid *p = pmx_pid_get(w, pid, false);
	struct pmx_pid *k = pmx_pid_get(w, UINT32_MAX, false);
	uint64_t key[5] = { pid, p ? p->epoch : 0, k ? k->epoch : 0, addr, how | (ret ? 1ull << 32 : 0) };
	long e;
	int added;

	e = pmx_set_add(&w->fcache, key, sizeof(key), &added);
	if (e < 0)
		return (int)e;
	if (!added) {
		*out = w->fvals[e];
		return 0;
	}
	if ((size_t)e >= w->fvals_cap) {
		size_t nc = w->fvals_cap ? w->fvals_cap * 2 : 256;
		struct pmx_frame *a;

		while (nc <= (size_t)e)
			nc *= 2;
		a = pm__reallocarray(w->fvals, nc, sizeof(*a));
		if (!a)
			return -ENOMEM;
		w->fvals = a;
		w->fvals_cap = nc;
	}
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->sym = w->s_unknown;
	out->dso = w->s_unknown;
	out->map = how == PM_SYM_LOOKUP_KERNEL ? -1 : pmx_map_in(w, p, addr);
	if (out->map < 0)
		out->map = pmx_map_in(w, k, addr);
	if (out->map >= 0)
		out->dso = w->maps[out->map].filename;
	if (w->sym) {
		struct pm_sym_result r = { .sz = sizeof(r) };

		if (pm_sym_lookup(w->sym, (int32_t)pid, addr, how, &r) == 0) {
			long s;

			if (r.name && !(r.flags & PM_SYM_UNKNOWN)) {
				s = pmx_cstr(w, r.name);
				if (s >= 0) {
					out->sym = (uint32_t)s;
					out->known = true;
				}
				if (w->want_lines && !(r.flags & PM_SYM_KERNEL))
					pmx_lines(w, pid, addr, ret, how, &r, out);
			}
			if (r.dso && !(r.flags & PM_SYM_NO_MAP)) {
				s = pmx_cstr(w, r.dso);
				if (s >= 0)
					out->dso = (uint32_t)s;
			}
		}
	}
	w->fvals[e] = *out;
	return 0;
}

static int pmx_frame_push(struct pmx_walk *w, size_t *n)
{
	if (*n == w->frames_cap) {
		size_t nc = w->frames_cap ? w->frames_cap * 2 : 64;
		struct pmx_frame *a = pm__reallocarray(w->frames, nc, sizeof(*a));

		if (!a)
			return -ENOMEM;
		w->frames = a;
		w->frames_cap = nc;
	}
	return 0;
}

/* ---- init / run ------------------------------------------------------- */

int pmx_walk_init(struct pmx_walk *w, pm_file *f, const struct pm_export_opts *opts, const char *who)
{
	int err;
	long s;

	memset(w, 0, sizeof(*w));
	err = pmx_opts(&w->o, opts, f, who);
	if (err)
		return err;
	w->f = f;
	w->nattrs = pm_file_nr_attrs(f);
	w->dec = calloc(w->nattrs ? w->nattrs : 1, sizeof(*w->dec));
	if (!w->dec)
		return -ENOMEM;
	err = pm_raw_ctx_new_from_file(&w->raw, f);
	if (err)
		goto fail;
	for (size_t i = 0; i < w->nattrs; i++) {
		const pm_raw_decoder *d = NULL;
		const struct pm_attr *a = pm_file_attr(f, i);

		if (a && (a->sample_type & PM_SAMPLE_RAW) && pm_raw_ctx_select(w->raw, a, &d) == 0)
			w->dec[i] = d;
	}
	pm__err_clear();
	if (pmx_str(w, "", 0) != 0 || (s = pmx_cstr(w, "[unknown]")) < 0) {
		err = -ENOMEM;
		goto fail;
	}
	w->s_unknown = (uint32_t)s;
	w->synthetic = pm_file_is_synthetic(f);
	if (w->o.sym) {
		w->sym = w->o.sym;
	} else if (!(w->o.flags & PM_EXPORT_NO_SYMBOLS)) {
		struct pm_sym_opts so = { .sz = sizeof(so) };

		so.sysroot = w->o.symfs;
		so.kallsyms = w->o.kallsyms;
		so.path = w->o.path; /* a synthetic recording's sidecar */
		if (w->o.flags & PM_EXPORT_NO_KERNEL)
			so.flags |= PM_SYM_OPT_NO_KERNEL;
		/* the library decides whether this machine's kallsyms fits the recording */
		err = pm_sym_new_from_file(&w->sym, f, &so);
		if (err == -PM_ERR_UNSUPPORTED) {
			w->sym = NULL;
			pm__err_clear();
		} else if (err) {
			goto fail;
		} else {
			w->own_sym = true;
		}
	}
	w->have_sym = w->sym != NULL;
	return 0;
fail:
	pmx_walk_fini(w);
	return err;
}

void pmx_walk_fini(struct pmx_walk *w)
{
	if (w->own_sym)
		pm_sym_free(w->sym);
	pm_raw_ctx_free(w->raw);
	free(w->dec);
	pmx_set_free(&w->strs);
	pmx_set_free(&w->mapset);
	pmx_set_free(&w->fcache);
	free(w->maps);
	free(w->fvals);
	free(w->frames);
	free(w->comm_keys);
	free(w->comm_vals);
	for (size_t i = 0; i < w->pid_cap; i++)
		if (w->pids[i]) {
			free(w->pids[i]->maps);
			free(w->pids[i]);
		}
	free(w->pids);
	memset(w, 0, sizeof(*w));
}

static int pmx_sample(struct pmx_walk *w, const struct pm_file_record *rec, struct pm_sample *smp,
		      pmx_sample_fn cb, void *user)
{
	struct pmx_sample s;
	uint64_t leaf;
	uint32_t how;
	size_t n = 0;
	bool skip_dup = true, pal = false;
	int err;

	memset(&s, 0, sizeof(s));
	s.event = rec->attr_idx;
	s.pid = smp->pid;
	s.tid = smp->tid;
	s.cpu = smp->cpu;
	s.has_cpu = (smp->present & PM_SAMPLE_CPU) != 0;
	s.smp = smp;
	s.period = 1;
	if (smp->present & PM_SAMPLE_PERIOD) {
		s.period = smp->period;
	} else {
		/* A fixed period (-c) is not written in each sample. */
		const struct pm_attr *at = pm_file_attr(w->f, (size_t)rec->attr_idx);

		if (at && !(at->flags & PM_ATTR_FREQ) && at->sample_period)
			s.period = at->sample_period;
	}
	s.comm = (uint32_t)PM_MAX(pmx_comm_get(w, smp->tid), 0);
	s.dec = w->dec[rec->attr_idx];
	leaf = smp->ip;
	how = pm_sym_lookup_how(smp->misc & PM_RECORD_MISC_CPUMODE_MASK);
	if (s.dec && !strcmp(pm_raw_decoder_name(s.dec), "alpha_profileme") &&
	    (smp->present & PM_SAMPLE_RAW)) {
		s.pm.sz = sizeof(s.pm);
		if (pm_profileme_decode(smp->raw.data, smp->raw.size, &s.pm) == 0) {
			struct pm_profileme_attribution at = { .sz = sizeof(at) };

			s.is_pm = true;
			/* The kernel's rule (pm_profileme_attribute()): the profiled
			 * pc, the trapping instruction of a PAL redirect, PALcode. */
			if (pm_profileme_attribute(&s.pm, smp->ip, &at) == 0) {
				leaf = at.addr;
				pal = at.charge == PM_PROFILEME_CHARGE_PALCODE;
				how = at.mode == PM_PROFILEME_MODE_KERNEL ? PM_SYM_LOOKUP_KERNEL :
									    PM_SYM_LOOKUP_USER;
			}
		}
		pm__err_clear();
	} else if (s.dec && (smp->present & PM_SAMPLE_RAW) && !strncmp(pm_raw_decoder_name(s.dec), "ibs_", 4)) {
		struct pm_ibs_attribution ia = { .sz = sizeof(ia) };

		/* IbsOpRip / IbsFetchLinAd when the hardware says it is valid. */
		if (pm_ibs_attribute(s.dec, w->raw, smp->raw.data, smp->raw.size, smp->ip, &ia) == 0)
			leaf = ia.addr;
		pm__err_clear();
	}
	if ((err = pmx_frame_push(w, &n)))
		return err;
	if (pal) {
		/* A physical PALcode address: no symbol table covers it. */
		struct pmx_frame *fr = &w->frames[n];
		long ps = pmx_cstr(w, "[PALcode]");

		memset(fr, 0, sizeof(*fr));
		fr->addr = leaf;
		fr->map = -1;
		fr->sym = fr->dso = ps > 0 ? (uint32_t)ps : w->s_unknown;
	} else if ((err = pmx_resolve(w, s.pid, leaf, how, false, &w->frames[n]))) {
		return err;
	}
	n++;
	if (smp->present & PM_SAMPLE_CALLCHAIN) {
		uint32_t chow = 0;

		for (uint64_t i = 0; i < smp->callchain.nr; i++) {
			uint64_t ip;

			if (pm_sample_callchain_ip(smp, i, &ip) < 0)
				break;
			if (PM_CONTEXT_IS_MARKER(ip)) {
				if (ip == PM_CONTEXT_KERNEL || ip == PM_CONTEXT_GUEST_KERNEL)
					chow = PM_SYM_LOOKUP_KERNEL;
				else if (ip == PM_CONTEXT_USER || ip == PM_CONTEXT_GUEST_USER ||
					 ip == PM_CONTEXT_USER_DEFERRED)
					chow = PM_SYM_LOOKUP_USER;
				else
					chow = 0;
				continue;
			}
			if (skip_dup) {
				skip_dup = false;
				if (ip == smp->ip)
					continue; /* the first entry repeats the ip */
			}
			if ((err = pmx_frame_push(w, &n)))
				return err;
			if ((err = pmx_resolve(w, s.pid, ip, chow, true, &w->frames[n])))
				return err;
			n++;
		}
	}
	s.frames = w->frames;
	s.nframes = n;
	return cb(user, w, &s);
}

/* A pipe stream may bring attrs (HEADER_ATTR) after the first records. */
static int pmx_more_attrs(struct pmx_walk *w)
{
	size_t n = pm_file_nr_attrs(w->f);
	const pm_raw_decoder **d;

	if (n <= w->nattrs)
		return 0;
	d = pm__reallocarray(w->dec, n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	w->dec = d;
	for (size_t i = w->nattrs; i < n; i++) {
		const struct pm_attr *a = pm_file_attr(w->f, i);

		d[i] = NULL;
		if (a && (a->sample_type & PM_SAMPLE_RAW) && pm_raw_ctx_select(w->raw, a, &d[i]) != 0)
			d[i] = NULL;
	}
	pm__err_clear();
	w->nattrs = n;
	return 0;
}

int pmx_walk_run(struct pmx_walk *w, pmx_sample_fn cb, void *user)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct pm_file_info fi = { .sz = sizeof(fi) };
	struct pm_sample smp;
	uint64_t nrec = 0, last_off = 0;
	int rc;

	pm_file_get_info(w->f, &fi);
	while ((rc = pm_file_next(w->f, &rec)) > 0) {
		last_off = rec.offset;
		if (w->o.progress && !(++nrec & 0xfff))
			w->o.progress(w->o.progress_user, rec.offset, fi.file_size, w->nsamples);
		if (rec.type != PM_RECORD_SAMPLE) {
			if (rec.type < PM_RECORD_USER_TYPE_START)
				pmx_side_record(w, &rec);
			continue;
		}
		if (rec.attr_idx >= 0 && (size_t)rec.attr_idx >= w->nattrs && (rc = pmx_more_attrs(w)))
			return rc;
		if (rec.attr_idx < 0 || (size_t)rec.attr_idx >= w->nattrs ||
		    (w->o.event >= 0 && rec.attr_idx != w->o.event)) {
			w->skipped++;
			continue;
		}
		memset(&smp, 0, sizeof(smp));
		smp.sz = sizeof(smp);
		if (pm_file_sample(w->f, &rec, &smp) < 0) {
			w->skipped++;
			pm__err_clear();
			continue;
		}
		w->nsamples++;
		rc = pmx_sample(w, &rec, &smp, cb, user);
		if (rc)
			return rc;
	}
	if (w->o.progress)
		w->o.progress(w->o.progress_user, fi.file_size ? fi.file_size : last_off, fi.file_size,
			      w->nsamples);
	return rc < 0 ? rc : 0;
}
