/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The one symbolization policy: records -> maps, which kernel may be used,
 * and the bulk resolver that replays a recording. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <profileme/file.h>
#include <profileme/record.h>

#include "symbol/sym_internal.h"

#ifndef PROT_EXEC
#define PROT_EXEC 0x4
#endif

int pm_sym_add_record(pm_sym *s, const struct pm_record *r)
{
	uint16_t misc;
	int rc;

	if (!s || !r)
		return pm__err(EINVAL, "pm_sym_add_record: NULL argument");
	if (r->sz < PM_OFFSETOFEND(struct pm_record, task))
		return pm__err(EINVAL, "pm_sym_add_record: record struct of %zu bytes", r->sz);
	misc = r->header.misc;
	switch (r->header.type) {
	case PM_RECORD_MMAP:
	case PM_RECORD_MMAP2:
		if (!r->mmap.len || (misc & PM_RECORD_MISC_MMAP_DATA))
			return 0;
		/* An MMAP2 tells prot: a mapping that cannot execute holds no code. */
		if (r->header.type == PM_RECORD_MMAP2 && r->mmap.prot && !(r->mmap.prot & PROT_EXEC))
			return 0;
		rc = pm_sym_add_map_len(s, (int32_t)r->mmap.pid, r->mmap.addr, r->mmap.len,
					r->mmap.pgoff, r->mmap.filename, r->mmap.filename_len);
		return rc ? rc : 1;
	case PM_RECORD_COMM:
		if (!(misc & PM_RECORD_MISC_COMM_EXEC) || r->comm.pid != r->comm.tid)
			return 0;
		rc = pm_sym_exec(s, (int32_t)r->comm.pid);
		return rc ? rc : 1;
	case PM_RECORD_FORK:
		if (r->task.pid == r->task.ppid)
			return 0;
		rc = pm_sym_fork(s, (int32_t)r->task.ppid, (int32_t)r->task.pid);
		return rc ? rc : 1;
	case PM_RECORD_EXIT:
		if (r->task.pid != r->task.tid)
			return 0;
		rc = pm_sym_exit(s, (int32_t)r->task.pid);
		return rc ? rc : 1;
	default:
		return 0;
	}
}

/* ---- which kernel ---- */

/* The running kernel's GNU build id from /sys/kernel/notes (a sequence of
 * ELF notes in host byte order).  Returns its length, 0 when unknown. */
static size_t running_kernel_build_id(uint8_t *id, size_t cap)
{
	uint8_t buf[4096];
	ssize_t n;
	size_t off = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return 0;
	while (off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		if (namesz > (size_t)n || descsz > (size_t)n || desc_off > (size_t)n ||
		    descsz > (size_t)n - desc_off)
			return 0;
		if (type == 3 && namesz == 4 && memcmp(buf + name_off, "GNU", 4) == 0) {
			if (!descsz || descsz > cap)
				return 0;
			memcpy(id, buf + desc_off, descsz);
			return descsz;
		}
		off = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
	}
	return 0;
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t k = 0; k < n; k++)
		snprintf(out + 2 * k, 3, "%02x", id[k]);
	out[2 * n] = '\0';
}

/* The recording's build id of the map named @p name (kernel: pid -1). */
static size_t file_build_id(const pm_file *f, const char *name, uint8_t *id, size_t cap)
{
	for (size_t i = 0;; i++) {
		const uint8_t *bid;
		const char *fn;
		size_t len;
		int32_t pid;
		uint16_t misc;

		if (pm_file_build_id(f, i, &pid, &misc, &bid, &len, &fn) != 0)
			return 0;
		if (fn && !strcmp(fn, name) && len && len <= cap) {
			/* perf pads 20-byte ids with zeros in the 24-byte field */
			memcpy(id, bid, len);
			return len;
		}
	}
}

/* Is the recording of another kernel?  A reason in @p why when it is. */
static bool foreign_kernel(const pm_file *f, char *why, size_t cap)
{
	const char *farch = pm_file_feature_string(f, PM_FEAT_ARCH);
	const char *frel = pm_file_feature_string(f, PM_FEAT_OSRELEASE);
	uint8_t fid[64], kid[64];
	size_t fl, kl;
	struct utsname u;

	if (uname(&u) != 0)
		return false;
	if ((farch && strcmp(farch, u.machine)) || (frel && strcmp(frel, u.release))) {
		snprintf(why, cap, "recorded on %s %s, running %s %s", farch ? farch : "?",
			 frel ? frel : "?", u.machine, u.release);
		return true;
	}
	fl = file_build_id(f, "[kernel.kallsyms]", fid, sizeof(fid));
	kl = fl ? running_kernel_build_id(kid, sizeof(kid)) : 0;
	if (fl && kl) {
		/* The recorded id may be zero-padded past the kernel's length. */
		size_t cmp = kl < fl ? kl : fl;
		bool pad_zero = true;

		for (size_t i = cmp; i < fl; i++)
			pad_zero &= fid[i] == 0;
		if (memcmp(fid, kid, cmp) != 0 || !pad_zero) {
			char a[129], b[129];

			hex(a, fid, cmp);
			hex(b, kid, kl);
			snprintf(why, cap, "recorded kernel build id %s, running kernel's %s", a, b);
			return true;
		}
	}
	return false;
}

/* A synthetic recording carries its program and kernel symbols next to it:
 * <directory of path>/symfs holds the mapped files under their recorded
 * paths, and its `kallsyms` the kernel's (docs/symbol.md).  Fills what the
 * caller left NULL; returns the notice to give (0 when nothing was used). */
static int sidecar(pm_file *f, const char *path, struct pm_sym_opts *o, char *symfs, char *kall,
		   size_t cap, char *msg, size_t msgcap)
{
	const char *slash, *dir;
	bool use_s = false, use_k = false;
	struct stat st;
	int dlen, n;

	if (!path || !strcmp(path, "-") || (o->sysroot && o->kallsyms))
		return 0;
	if (!pm_file_is_synthetic(f))
		return 0;
	slash = strrchr(path, '/');
	dir = slash ? path : ".";
	dlen = slash ? (int)(slash - path) : 1;
	n = snprintf(symfs, cap, "%.*s/symfs", dlen, dir);
	if (n < 0 || (size_t)n >= cap || stat(symfs, &st) || !S_ISDIR(st.st_mode))
		return 0;
	n = snprintf(kall, cap, "%s/kallsyms", symfs);
	if (!o->sysroot) {
		o->sysroot = symfs;
		use_s = true;
	}
	if (!o->kallsyms && n > 0 && (size_t)n < cap && !stat(kall, &st) && S_ISREG(st.st_mode)) {
		o->kallsyms = kall;
		use_k = true;
	}
	if (!use_s && !use_k)
		return 0;
	snprintf(msg, msgcap, "synthetic recording: symbols from %s%s%s", use_s ? symfs : "",
		 use_s && use_k ? " and " : "", use_k ? kall : "");
	return 1;
}

const char *pm_sym_kallsyms_path(const pm_sym *s)
{
	return s ? s->kallsyms : NULL;
}

int pm_sym_new_from_file(pm_sym **out, pm_file *f, const struct pm_sym_opts *opts)
{
	struct pm_sym_opts o = { .sz = sizeof(o) };
	char side_s[4096], side_k[4096 + 16], side_msg[8300];
	bool side;
	char why[400];
	uint8_t vid[64];
	size_t vl;
	bool foreign;
	int rc;

	if (!out)
		return pm__err(EINVAL, "pm_sym_new_from_file: NULL out");
	*out = NULL;
	if (!f)
		return pm__err(EINVAL, "pm_sym_new_from_file: NULL file");
	rc = PM__SZ_VALID(opts, pm_sym_opts, PM_SYM_OPTS_SZ_V1);
	if (rc)
		return rc;
	if (opts)
		pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
	side = sidecar(f, o.path, &o, side_s, side_k, sizeof(side_s), side_msg, sizeof(side_msg));
	foreign = foreign_kernel(f, why, sizeof(why));
	if (foreign && !o.kallsyms)
		o.flags |= PM_SYM_OPT_NO_KERNEL;
	rc = pm_sym_new(out, &o);
	if (rc)
		return rc;
	(*out)->local_kernel = !foreign;
	if (foreign && !o.kallsyms && !(opts && (opts->flags & PM_SYM_OPT_NO_KERNEL))) {
		(*out)->kstate = PM_SYM_KERNEL_FOREIGN;
		pm__sym_diag(*out, "[kernel.kallsyms]", PM_SYM_DIAG_FOREIGN_KERNEL, 0,
			     "%s: this machine's kernel symbols are not used", why);
	}
	if (side)
		pm__sym_diag(*out, side_s, PM_SYM_DIAG_SIDECAR, 0, "%s", side_msg);
	vl = file_build_id(f, "[vdso]", vid, sizeof(vid));
	while (vl > 20 && vid[vl - 1] == 0)
		vl--;
	if (vl) {
		char h[129];

		hex(h, vid, vl);
		(*out)->vdso_build_id = pm__strndup(h, strlen(h));
		if (!(*out)->vdso_build_id) {
			pm_sym_free(*out);
			*out = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* ---- the bulk resolver ---- */

static uint64_t rkey_hash(int32_t pid, uint64_t gen, uint64_t addr, uint32_t how)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ULL;

	h ^= (gen + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;
	h ^= ((uint64_t)(uint32_t)pid << 2 | how) * 0x165667b19e3779f9ULL;
	return h ^ (h >> 29);
}

static int rhash_grow(pm_sym *s)
{
	size_t cap = s->caprhash ? s->caprhash * 2 : 1024;
	struct pm__rkey *t = pm__calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->caprhash; i++) {
		const struct pm__rkey *k = &s->rhash[i];
		size_t j;

		if (!k->idx)
			continue;
		j = (size_t)rkey_hash(k->pid, k->gen, k->addr, k->how) & (cap - 1);
		while (t[j].idx)
			j = (j + 1) & (cap - 1);
		t[j] = *k;
	}
	free(s->rhash);
	s->rhash = t;
	s->caprhash = cap;
	return 0;
}

/* Resolve one query: the cached result of its key, or a new one. */
static int resolve_one(pm_sym *s, int32_t pid, uint64_t addr, uint8_t mode, uint32_t *out)
{
	uint32_t how = pm_sym_lookup_how(mode);
	/* A kernel lookup does not depend on the process's maps. */
	uint64_t gen = how == PM_SYM_LOOKUP_KERNEL ? 0 : pm__sym_proc_gen(s, pid);
	int32_t kpid = how == PM_SYM_LOOKUP_KERNEL ? 0 : pid;
	struct pm__rkey *k;
	size_t j;
	int rc;

	if ((s->nrtab + 1) * 2 > s->caprhash && (rc = rhash_grow(s)))
		return rc;
	j = (size_t)rkey_hash(kpid, gen, addr, how) & (s->caprhash - 1);
	for (;; j = (j + 1) & (s->caprhash - 1)) {
		k = &s->rhash[j];
		if (!k->idx)
			break;
		if (k->addr == addr && k->gen == gen && k->pid == kpid && k->how == how) {
			*out = k->idx - 1;
			return 0;
		}
	}
	if (s->nrtab >= UINT32_MAX - 1)
		return pm__err(EOVERFLOW, "pm_sym_resolve_file: too many distinct results");
	if (s->nrtab == s->caprtab) {
		size_t cap = s->caprtab ? s->caprtab * 2 : 256;
		struct pm_sym_result *v = pm__reallocarray(s->rtab, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->rtab = v;
		s->caprtab = cap;
	}
	s->rtab[s->nrtab].sz = sizeof(s->rtab[0]);
	rc = pm_sym_lookup(s, pid, addr, how, &s->rtab[s->nrtab]);
	if (rc)
		return rc;
	k->addr = addr;
	k->gen = gen;
	k->pid = kpid;
	k->how = how;
	k->idx = (uint32_t)++s->nrtab;
	*out = k->idx - 1;
	return 0;
}

struct when_idx {
	uint64_t when;
	size_t i;
};

static int cmp_when(const void *a, const void *b)
{
	const struct when_idx *x = a, *y = b;

	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Resolve query i of a replay: its result index (UINT32_MAX for a PALcode
 * address when the replay knows them), then the caller's hook. */
static int replay_query(pm_sym *s, struct pm__replay *q, size_t i)
{
	uint8_t mode = pm__rq_u8(q->cpumode, q->smode, i);
	int rc;

	if (q->palcode && mode == PM_SYM_CPUMODE_PALCODE) {
		q->out_idx[i] = UINT32_MAX;
	} else if (q->ndefer_cap && pm_sym_lookup_how(mode) == PM_SYM_LOOKUP_KERNEL) {
		/* kallsyms is being read meanwhile: a kernel lookup depends on no
		 * map, so it waits for the end of the replay */
		if (q->ndefer == q->ndefer_cap)
			return pm__err(EINVAL, "pm_sym_resolve_rows: more deferred queries than rows");
		q->defer[q->ndefer++] = i;
	} else if ((rc = resolve_one(s, pm__rq_i32(q->pid, q->spid, i), pm__rq_u64(q->addr, q->saddr, i), mode,
				     &q->out_idx[i]))) {
		return rc;
	}
	return q->on_query ? q->on_query(s, i, q->user) : 0;
}

int pm__sym_replay(pm_sym *s, pm_file *f, struct pm__replay *q)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct when_idx *order = NULL;
	const void *when = q->when;
	size_t n = q->n, next = 0, sw = q->swhen;
	uint64_t ordinal = 0;
	bool by_time = (q->flags & PM_SYM_WHEN_TIME) != 0, sorted = true;
	int rc = 0;

	s->nrtab = 0;
	if (s->caprhash)
		memset(s->rhash, 0, s->caprhash * sizeof(*s->rhash));
	/* Queries in the order of their time; the samples of a recording come
	 * sorted already (pm_file_next() orders them), and then no sort is needed. */
	for (size_t i = 1; when && sorted && i < n; i++)
		sorted = pm__rq_u64(when, sw, i - 1) <= pm__rq_u64(when, sw, i);
	if (when && n && !sorted) {
		order = pm__reallocarray(NULL, n, sizeof(*order));
		if (!order)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			order[i].when = pm__rq_u64(when, sw, i);
			order[i].i = i;
		}
		qsort(order, n, sizeof(*order), cmp_when);
	}
#define NEXT_WHEN() (order ? order[next].when : pm__rq_u64(when, sw, next))
#define NEXT_I() (order ? order[next].i : next)
	while ((rc = q->next ? q->next(q->it, &rec, &ordinal) : pm_file_next(f, &rec)) > 0) {
		struct pm_record r;

		/* queries of sample k are resolved before sample k + 1: a sample
		 * counts here, or the iterator says how many came before this record */
		if (rec.type == PM_RECORD_SAMPLE || q->next) {
			if (rec.type == PM_RECORD_SAMPLE)
				ordinal++;
			if (!by_time)
				while (when && next < n && NEXT_WHEN() < ordinal) {
					rc = replay_query(s, q, NEXT_I());
					next++;
					if (rc)
						goto out;
				}
			if (rec.type == PM_RECORD_SAMPLE)
				continue;
		}
		if (rec.type != PM_RECORD_MMAP && rec.type != PM_RECORD_MMAP2 &&
		    rec.type != PM_RECORD_COMM && rec.type != PM_RECORD_FORK &&
		    rec.type != PM_RECORD_EXIT)
			continue;
		/* by time: samples before this record see the maps without it */
		if (by_time && rec.time != PM_FILE_NO_TIME)
			while (when && next < n && NEXT_WHEN() < rec.time) {
				rc = replay_query(s, q, NEXT_I());
				next++;
				if (rc)
					goto out;
			}
		memset(&r, 0, sizeof(r));
		r.sz = sizeof(r);
		if (pm_file_record_parse(f, &rec, &r) < 0)
			continue; /* a damaged side record teaches nothing */
		rc = pm_sym_add_record(s, &r);
		if (rc < 0)
			goto out;
		if (q->on_record && (rc = q->on_record(s, &r, q->user)) < 0)
			goto out;
	}
	/* PM_SYM_ROWS_PARTIAL: the rows are those before the reading error,
	 * which ends the replay as the end of the recording would */
	if (rc < 0 && !(q->flags & PM_SYM_ROWS_PARTIAL))
		goto out;
	for (; next < n; next++) {
		rc = replay_query(s, q, when ? NEXT_I() : next);
		if (rc)
			goto out;
	}
#undef NEXT_WHEN
#undef NEXT_I
	pm__kallsyms_join(s);
	for (size_t k = 0; k < q->ndefer; k++) {
		size_t i = q->defer[k];

		rc = resolve_one(s, pm__rq_i32(q->pid, q->spid, i), pm__rq_u64(q->addr, q->saddr, i),
				 pm__rq_u8(q->cpumode, q->smode, i), &q->out_idx[i]);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	pm__kallsyms_join(s);
	free(order);
	return rc;
}

int64_t pm_sym_resolve_file(pm_sym *s, pm_file *f, size_t n, const int32_t *pid,
			    const uint64_t *addr, const uint8_t *cpumode, const uint64_t *when,
			    uint32_t flags, uint32_t *out_idx)
{
	struct pm__replay q = { .n = n, .pid = pid, .addr = addr, .cpumode = cpumode, .when = when,
				.spid = sizeof(*pid), .saddr = sizeof(*addr), .smode = 1, .swhen = sizeof(*when),
				.flags = flags, .out_idx = out_idx };
	int rc;

	if (!s || !f || (n && (!pid || !addr || !out_idx)))
		return pm__err(EINVAL, "pm_sym_resolve_file: NULL argument");
	if (flags & ~PM_SYM_WHEN_TIME)
		return pm__err(EINVAL, "pm_sym_resolve_file: unknown flags 0x%" PRIx32, flags);
	rc = pm__sym_replay(s, f, &q);
	return rc < 0 ? rc : (int64_t)s->nrtab;
}

int pm_sym_resolved_get(const pm_sym *s, size_t idx, struct pm_sym_result *res)
{
	int rc;

	if (!s || !res)
		return pm__err(EINVAL, "pm_sym_resolved_get: NULL argument");
	rc = PM__SZ_VALID(res, pm_sym_result, PM_SYM_RESULT_SZ_V1);
	if (rc)
		return rc;
	if (idx >= s->nrtab)
		return pm__err(ERANGE, "pm_sym_resolved_get: index %zu, only %zu results", idx, s->nrtab);
	pm__struct_copy_out(res, res->sz, &s->rtab[idx], sizeof(s->rtab[idx]));
	return 0;
}
