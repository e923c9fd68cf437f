/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* pm_sym_resolve_rows(): whole symbol, module, offset and thread-name
 * columns of a recording's samples in one replay, names as indexes into
 * sorted tables of distinct strings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <profileme/file.h>

#include "symbol/sym_internal.h"

/* ---- tables of distinct strings ---- */

static uint64_t str_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ULL;
	return h ^ (h >> 31);
}

static void strtab_free(struct pm__strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int strtab_rehash(struct pm__strtab *t, size_t nslots)
{
	uint32_t *sl = pm__calloc(nslots, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	for (size_t e = 0; e < t->n; e++) {
		size_t j = (size_t)str_hash(t->v[e], strlen(t->v[e])) & (nslots - 1);

		while (sl[j])
			j = (j + 1) & (nslots - 1);
		sl[j] = (uint32_t)(e + 1);
	}
	free(t->slots);
	t->slots = sl;
	t->nslots = nslots;
	return 0;
}

/* The index of the @p len bytes at @p p (no NUL inside) in @p t, added when
 * new; negative errno on failure. */
static int64_t strtab_add(struct pm__strtab *t, const char *p, size_t len)
{
	uint64_t h = str_hash(p, len);
	size_t j;

	if ((t->n + 1) * 2 > t->nslots && strtab_rehash(t, t->nslots ? t->nslots * 2 : 256))
		return -ENOMEM;
	for (j = (size_t)h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const char *e = t->v[t->slots[j] - 1];

		if (!strncmp(e, p, len) && e[len] == '\0')
			return t->slots[j] - 1;
	}
	if (t->n >= UINT32_MAX - 1)
		return pm__err(EOVERFLOW, "pm_sym_resolve_rows: too many distinct strings");
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **v = pm__reallocarray(t->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = pm__strndup(p, len);
	if (!t->v[t->n])
		return -ENOMEM;
	t->slots[j] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* Sort @p t by strcmp(); remap[old index] is the new index. */
static int strtab_sort(struct pm__strtab *t, uint32_t **remap)
{
	char ***pp = pm__reallocarray(NULL, t->n ? t->n : 1, sizeof(*pp));
	uint32_t *rm = pm__reallocarray(NULL, t->n ? t->n : 1, sizeof(*rm));
	char **v = pm__reallocarray(NULL, t->n ? t->n : 1, sizeof(*v));

	if (!pp || !rm || !v) {
		free(pp);
		free(rm);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		pp[i] = &t->v[i];
	qsort(pp, t->n, sizeof(*pp), cmp_strp);
	for (size_t k = 0; k < t->n; k++) {
		rm[pp[k] - t->v] = (uint32_t)k;
		v[k] = *pp[k];
	}
	free(pp);
	free(t->v);
	t->v = v;
	t->cap = t->n ? t->n : 1;
	*remap = rm;
	return strtab_rehash(t, t->nslots ? t->nslots : 256);
}

void pm__sym_rows_free(pm_sym *s)
{
	for (size_t i = 0; i < sizeof(s->rows_tab) / sizeof(s->rows_tab[0]); i++)
		strtab_free(&s->rows_tab[i]);
}

/* ---- thread names during the replay ---- */

struct comm_map {
	uint64_t *keys; /* tid + 1, 0: empty */
	uint32_t *vals; /* index into the comm table */
	size_t n, cap;
};

static int64_t comm_get(const struct comm_map *m, uint32_t tid)
{
	uint64_t key = (uint64_t)tid + 1;

	if (!m->cap)
		return -1;
	for (size_t j = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) & (m->cap - 1); m->keys[j];
	     j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return m->vals[j];
	return -1;
}

static int comm_set(struct comm_map *m, uint32_t tid, uint32_t comm)
{
	uint64_t key = (uint64_t)tid + 1;
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *k = pm__calloc(cap, sizeof(*k));
		uint32_t *v = pm__calloc(cap, sizeof(*v));

		if (!k || !v) {
			free(k);
			free(v);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			for (j = (size_t)(m->keys[i] * 0x9E3779B97F4A7C15ULL >> 20) & (cap - 1); k[j];
			     j = (j + 1) & (cap - 1))
				;
			k[j] = m->keys[i];
			v[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = k;
		m->vals = v;
		m->cap = cap;
	}
	for (j = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) & (m->cap - 1); m->keys[j];
	     j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			break;
	if (!m->keys[j])
		m->n++;
	m->keys[j] = key;
	m->vals[j] = comm;
	return 0;
}

struct rows_ctx {
	const struct pm_sym_rows *rows;
	struct comm_map comms;
	/* the last row's thread and its name's index (rows of one thread come
	 * in runs); forgotten at every COMM and FORK */
	bool memo;
	uint32_t memo_tid, memo_k;
	size_t stid; /* the tid column's stride */
};

/* COMM names a thread; FORK gives a new thread its parent's name when it
 * has none of its own. */
static int rows_record(pm_sym *s, const struct pm_record *r, void *user)
{
	struct rows_ctx *c = user;
	int64_t k;

	c->memo = false;
	if (r->header.type == PM_RECORD_COMM) {
		k = strtab_add(&s->rows_tab[PM_SYM_TABLE_COMM], r->comm.comm,
			       strnlen(r->comm.comm, r->comm.comm_len));
		return k < 0 ? (int)k : comm_set(&c->comms, r->comm.tid, (uint32_t)k);
	}
	if (r->header.type == PM_RECORD_FORK && comm_get(&c->comms, r->task.tid) < 0 &&
	    (k = comm_get(&c->comms, r->task.ptid)) >= 0)
		return comm_set(&c->comms, r->task.tid, (uint32_t)k);
	return 0;
}

/* The thread's name when its row is resolved: ":TID" for a thread never named. */
static int rows_query(pm_sym *s, size_t i, void *user)
{
	struct rows_ctx *c = user;
	uint32_t tid = pm__rq_u32(c->rows->tid, c->stid, i);
	int64_t k;

	if (c->memo && c->memo_tid == tid) {
		c->rows->comm[i] = c->memo_k;
		return 0;
	}
	k = comm_get(&c->comms, tid);
	if (k < 0) {
		char b[16];
		int len = snprintf(b, sizeof(b), ":%" PRIu32, tid);

		k = strtab_add(&s->rows_tab[PM_SYM_TABLE_COMM], b, (size_t)len);
		if (k < 0)
			return (int)k;
	}
	c->rows->comm[i] = (uint32_t)k;
	c->memo = true;
	c->memo_tid = tid;
	c->memo_k = (uint32_t)k;
	return 0;
}

static const char *basename_of(const char *dso)
{
	const char *sl;

	if (dso[0] == '[')
		return dso;
	sl = strrchr(dso, '/');
	return sl ? sl + 1 : dso;
}

/* The stride of input column k of @p r (pm_sym_rows::stride): @p size when 0. */
static int rows_stride(const struct pm_sym_rows *r, int k, size_t size, size_t *out)
{
	static const char *const names[] = { "pid", "addr", "cpumode", "when", "tid" };

	*out = r->stride[k] ? r->stride[k] : size;
	if (*out < size || (r->n && *out > SIZE_MAX / r->n))
		return pm__err(EINVAL, "pm_sym_resolve_rows: stride %zu of %s (elements of %zu bytes, %zu rows)",
			       r->stride[k], names[k], size, r->n);
	return 0;
}

int pm__sym_resolve_rows_from(pm_sym *s, pm_file *f, const struct pm_sym_rows *caller,
			       int (*next)(void *it, struct pm_file_record *rec, uint64_t *nsamples),
			       void *it)
{
	/* the caller's struct copied in: fields it does not have are zero */
	struct pm_sym_rows in = { .sz = sizeof(in) };
	const struct pm_sym_rows *rows = &in;
	struct rows_ctx c = { .rows = rows };
	struct pm__replay q = { 0 };
	struct pm__strtab *ts, *td;
	uint32_t *idx = NULL, *rsym = NULL, *rdso = NULL, *remap[3] = { 0 };
	uint32_t pal_sym = 0, pal_dso = 0;
	bool pal = false;
	size_t n;
	int rc;

	if (!s || !f || !caller)
		return pm__err(EINVAL, "pm_sym_resolve_rows: NULL argument");
	rc = PM__SZ_VALID(caller, pm_sym_rows, PM_SYM_ROWS_SZ_V1);
	if (rc)
		return rc;
	pm__opts_copy_in(&in, sizeof(in), caller, caller->sz);
	n = rows->n;
	if (rows->flags & ~(PM_SYM_WHEN_TIME | PM_SYM_ROWS_DSO_BASENAME | PM_SYM_ROWS_PARTIAL))
		return pm__err(EINVAL, "pm_sym_resolve_rows: unknown flags 0x%" PRIx32, rows->flags);
	if ((rc = rows_stride(rows, 0, sizeof(int32_t), &q.spid)) ||
	    (rc = rows_stride(rows, 1, sizeof(uint64_t), &q.saddr)) ||
	    (rc = rows_stride(rows, 2, sizeof(uint8_t), &q.smode)) ||
	    (rc = rows_stride(rows, 3, sizeof(uint64_t), &q.swhen)) ||
	    (rc = rows_stride(rows, 4, sizeof(uint32_t), &c.stid)))
		return rc;
	if (n && (!rows->pid || !rows->addr || (rows->comm && !rows->tid)))
		return pm__err(EINVAL, "pm_sym_resolve_rows: %s missing",
			       !rows->pid ? "pid" : !rows->addr ? "addr" : "tid (for comm)");
	pm__sym_rows_free(s);
	ts = &s->rows_tab[PM_SYM_TABLE_SYM];
	td = &s->rows_tab[PM_SYM_TABLE_DSO];
	/* the distinct result of each row; in the row's sym column when there is
	 * one (read back before it is overwritten with the name's index) */
	idx = rows->sym ? NULL : pm__reallocarray(NULL, n ? n : 1, sizeof(*idx));
	if (!rows->sym && !idx)
		return -ENOMEM;
	q.n = n;
	q.pid = rows->pid;
	q.addr = rows->addr;
	q.cpumode = rows->cpumode;
	q.when = rows->when;
	q.flags = rows->flags & (PM_SYM_WHEN_TIME | PM_SYM_ROWS_PARTIAL);
	q.palcode = true;
	q.out_idx = rows->sym ? rows->sym : idx;
	q.next = next;
	q.it = it;
	if (rows->comm) {
		q.on_query = rows_query;
		q.on_record = rows_record;
		q.user = &c;
	}
	/* Kernel symbols are read on a thread of their own during the replay
	 * when rows need them (kernel rows are resolved after it). */
	for (size_t i = 0; rows->cpumode && i < n && !q.ndefer_cap; i++)
		if (pm_sym_lookup_how(pm__rq_u8(rows->cpumode, q.smode, i)) == PM_SYM_LOOKUP_KERNEL)
			q.ndefer_cap = n;
	/* (or are being read already: pm_columns_opts.sym started them) */
	if (q.ndefer_cap && (s->kpending || (!s->kloaded && !(s->flags & PM_SYM_OPT_NO_KERNEL)))) {
		q.defer = pm__reallocarray(NULL, n, sizeof(*q.defer));
		if (q.defer)
			pm__kallsyms_start(s);
	}
	if (!q.defer || !s->kpending)
		q.ndefer_cap = 0;
	rc = pm__sym_replay(s, f, &q);
	free(q.defer);
	if (rc < 0)
		goto out;
	/* the distinct results' names, then the rows */
	rsym = pm__reallocarray(NULL, s->nrtab ? s->nrtab : 1, sizeof(*rsym));
	rdso = pm__reallocarray(NULL, s->nrtab ? s->nrtab : 1, sizeof(*rdso));
	if (!rsym || !rdso) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < s->nrtab; k++) {
		const char *nm = s->rtab[k].name ? s->rtab[k].name : "[unknown]";
		const char *dso = s->rtab[k].dso ? s->rtab[k].dso : "[unknown]";
		int64_t a, b;

		if (rows->flags & PM_SYM_ROWS_DSO_BASENAME)
			dso = basename_of(dso);
		a = strtab_add(ts, nm, strlen(nm));
		b = strtab_add(td, dso, strlen(dso));
		if (a < 0 || b < 0) {
			rc = (int)(a < 0 ? a : b);
			goto out;
		}
		rsym[k] = (uint32_t)a;
		rdso[k] = (uint32_t)b;
	}
	for (size_t i = 0; i < n && !pal; i++)
		pal = q.out_idx[i] == UINT32_MAX;
	if (pal) {
		int64_t a = strtab_add(ts, "[PALcode]", 9), b = strtab_add(td, "[PALcode]", 9);

		if (a < 0 || b < 0) {
			rc = (int)(a < 0 ? a : b);
			goto out;
		}
		pal_sym = (uint32_t)a;
		pal_dso = (uint32_t)b;
	}
	for (int t = 0; t < 3; t++)
		if ((rc = strtab_sort(&s->rows_tab[t], &remap[t])))
			goto out;
	for (size_t k = 0; k < s->nrtab; k++) {
		rsym[k] = remap[PM_SYM_TABLE_SYM][rsym[k]];
		rdso[k] = remap[PM_SYM_TABLE_DSO][rdso[k]];
	}
	if (pal) {
		pal_sym = remap[PM_SYM_TABLE_SYM][pal_sym];
		pal_dso = remap[PM_SYM_TABLE_DSO][pal_dso];
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t k = q.out_idx[i];

		if (k == UINT32_MAX) {
			if (rows->sym)
				rows->sym[i] = pal_sym;
			if (rows->dso)
				rows->dso[i] = pal_dso;
			if (rows->symoff)
				rows->symoff[i] = pm__rq_u64(rows->addr, q.saddr, i);
		} else {
			if (rows->sym)
				rows->sym[i] = rsym[k];
			if (rows->dso)
				rows->dso[i] = rdso[k];
			if (rows->symoff)
				rows->symoff[i] = s->rtab[k].offset;
		}
		if (rows->comm)
			rows->comm[i] = remap[PM_SYM_TABLE_COMM][rows->comm[i]];
	}
	rc = 0;
out:
	if (rc < 0)
		pm__sym_rows_free(s);
	for (int t = 0; t < 3; t++)
		free(remap[t]);
	free(c.comms.keys);
	free(c.comms.vals);
	free(rsym);
	free(rdso);
	free(idx);
	return rc;
}

int pm_sym_resolve_rows(pm_sym *s, pm_file *f, const struct pm_sym_rows *rows)
{
	return pm__sym_resolve_rows_from(s, f, rows, NULL, NULL);
}

void pm__sym_kernel_prefetch(pm_sym *s)
{
	pm__kallsyms_start(s);
}

static int table_check(const pm_sym *s, int table, const char *fn)
{
	if (!s)
		return pm__err(EINVAL, "%s: NULL symbolizer", fn);
	if (table < PM_SYM_TABLE_SYM || table > PM_SYM_TABLE_COMM)
		return pm__err(EINVAL, "%s: no table %d", fn, table);
	return 0;
}

const char *pm_sym_rows_string(const pm_sym *s, int table, size_t idx)
{
	if (table_check(s, table, __func__))
		return NULL;
	if (idx >= s->rows_tab[table].n) {
		pm__err(ERANGE, "pm_sym_rows_string: index %zu, table %d holds %zu", idx, table,
			s->rows_tab[table].n);
		return NULL;
	}
	return s->rows_tab[table].v[idx];
}

int64_t pm_sym_rows_count(const pm_sym *s, int table)
{
	int rc = table_check(s, table, __func__);

	return rc ? rc : (int64_t)s->rows_tab[table].n;
}
