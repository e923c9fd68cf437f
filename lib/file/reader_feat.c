/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf.data feature sections: the table, loading, decoding and accessors. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "reader_int.h"

/* A bounds-checked cursor over a feature payload. */
struct pmf_cur {
	const uint8_t *p;
	size_t len, pos;
	bool be, bad;
};

static uint32_t cur_u32(struct pmf_cur *c)
{
	uint32_t v;

	if (c->bad || !pm__fits(c->pos, 4, c->len)) {
		c->bad = true;
		return 0;
	}
	v = pm__ld32(c->p + c->pos, c->be);
	c->pos += 4;
	return v;
}

static uint64_t cur_u64(struct pmf_cur *c)
{
	uint64_t v;

	if (c->bad || !pm__fits(c->pos, 8, c->len)) {
		c->bad = true;
		return 0;
	}
	v = pm__ld64(c->p + c->pos, c->be);
	c->pos += 8;
	return v;
}

/* perf header string: u32 len, then len bytes (NUL padded). */
static char *cur_str(struct pmf_cur *c)
{
	uint32_t len = cur_u32(c);
	char *s;

	if (c->bad || !pm__fits(c->pos, len, c->len)) {
		c->bad = true;
		return NULL;
	}
	s = pm__strndup((const char *)c->p + c->pos, strnlen((const char *)c->p + c->pos, len));
	if (!s)
		c->bad = true;
	c->pos += len;
	return s;
}

static char **cur_strlist(struct pmf_cur *c, size_t *n)
{
	uint32_t nr = cur_u32(c);
	char **v;

	*n = 0;
	if (c->bad || nr > (c->len - c->pos) / 4) {
		c->bad = true;
		return NULL;
	}
	v = pm__calloc(nr, sizeof(*v));
	if (!v) {
		c->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		v[i] = cur_str(c);
		if (!c->bad)
			*n = i + 1;
	}
	return v;
}

static void strlist_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int pmf_add_cap(pm_file *f, const char *pmu, char *name, char *value)
{
	struct pmf_cap *n = pm__reallocarray(f->caps, f->ncaps + 1, sizeof(*n));
	char *p = pm__strndup(pmu, strlen(pmu));

	if (!n || !p || !name || !value) {
		if (n)
			f->caps = n;
		free(p);
		free(name);
		free(value);
		return -ENOMEM;
	}
	f->caps = n;
	n[f->ncaps].pmu = p;
	n[f->ncaps].name = name;
	n[f->ncaps].value = value;
	f->ncaps++;
	return 0;
}

/*
 * Very old perf wrote BUILD_ID entries without the pid: header(8)
 * build_id[24] filename[].  Read as the current layout, the filename
 * "[kernel.kallsyms]" then starts 4 bytes in, "nel.kallsyms]", which is
 * how perf tells them apart (perf_header__read_build_ids).
 */
static bool bid_old_layout(const uint8_t *raw, size_t len, bool be)
{
	for (size_t pos = 0; pm__fits(pos, 8, len);) {
		uint16_t size = pm__ld16(raw + pos + 6, be);

		if (size < 8 || !pm__fits(pos, size, len))
			return false;
		if (size >= 36 + 13 && !memcmp(raw + pos + 36, "nel.kallsyms]", 13))
			return true;
		pos += size;
	}
	return false;
}

static int pmf_add_old_build_id(pm_file *f, const uint8_t *rec, size_t len)
{
	struct pmf_bid *n, *b;

	if (len < 32)
		return 0;
	n = pm__reallocarray(f->bids, f->nbids + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->bids = n;
	b = &n[f->nbids];
	b->misc = pm__ld16(rec + 4, f->be);
	b->pid = -1;
	memcpy(b->id, rec + 8, 20);
	b->len = 20;
	b->file = pm__strndup((const char *)rec + 32, strnlen((const char *)rec + 32, len - 32));
	if (!b->file)
		return -ENOMEM;
	f->nbids++;
	return 0;
}

int pmf_add_build_id(pm_file *f, const uint8_t *rec, size_t len, bool be)
{
	struct pmf_bid *n, *b;
	uint16_t misc;

	/* header(8) pid(4) build_id[24] filename[] */
	if (len < 36)
		return 0;
	n = pm__reallocarray(f->bids, f->nbids + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->bids = n;
	b = &n[f->nbids];
	misc = pm__ld16(rec + 4, be);
	b->misc = misc;
	b->pid = (int32_t)pm__ld32(rec + 8, be);
	memcpy(b->id, rec + 12, 20);
	b->len = 20;
	if ((misc & PM_RECORD_MISC_BUILD_ID_SIZE) && rec[32] <= 20)
		b->len = rec[32];
	b->file = pm__strndup((const char *)rec + 36, strnlen((const char *)rec + 36, len - 36));
	if (!b->file)
		return -ENOMEM;
	f->nbids++;
	return 0;
}

void pmf_feat_decode(pm_file *f, unsigned feat)
{
	struct pmf_feat *ft = &f->feat[feat];
	struct pmf_cur c = { ft->raw, ft->len, 0, f->be, false };

	if (!ft->loaded)
		return;
	switch (feat) {
	case PM_FEAT_HOSTNAME:
	case PM_FEAT_OSRELEASE:
	case PM_FEAT_VERSION:
	case PM_FEAT_ARCH:
	case PM_FEAT_CPUDESC:
	case PM_FEAT_CPUID:
		free(f->fstr[feat]);
		f->fstr[feat] = cur_str(&c);
		break;
	case PM_FEAT_NRCPUS:
		f->nr_avail = cur_u32(&c);
		f->nr_online = cur_u32(&c);
		break;
	case PM_FEAT_TOTAL_MEM:
		f->total_mem = cur_u64(&c);
		break;
	case PM_FEAT_CMDLINE:
		strlist_free(f->cmdline, f->ncmd);
		f->cmdline = cur_strlist(&c, &f->ncmd);
		break;
	case PM_FEAT_CPU_TOPOLOGY: {
		uint32_t n;

		for (int i = 0; i < 3; i++) {
			strlist_free(f->topo[i], f->ntopo[i]);
			f->topo[i] = NULL;
			f->ntopo[i] = 0;
		}
		free(f->core_id);
		free(f->socket_id);
		free(f->die_id);
		f->core_id = f->socket_id = f->die_id = NULL;
		f->ncpu_ids = 0;
		f->has_die_ids = false;
		f->topo[0] = cur_strlist(&c, &f->ntopo[0]);
		f->topo[1] = cur_strlist(&c, &f->ntopo[1]);
		if (c.bad)
			break;
		/* optional: per-CPU core and socket ids (nr_cpus_avail entries) */
		n = f->nr_avail;
		if (!n || c.pos == c.len || (uint64_t)n * 8 > c.len - c.pos)
			break;
		f->core_id = pm__calloc(n, 4);
		f->socket_id = pm__calloc(n, 4);
		f->die_id = pm__calloc(n, 4);
		if (!f->core_id || !f->socket_id || !f->die_id)
			break;
		for (uint32_t i = 0; i < n; i++) {
			f->core_id[i] = cur_u32(&c);
			f->socket_id[i] = cur_u32(&c);
			f->die_id[i] = UINT32_MAX;
		}
		f->ncpu_ids = n;
		/* optional: die siblings and per-CPU die ids */
		if (c.pos == c.len)
			break;
		f->topo[2] = cur_strlist(&c, &f->ntopo[2]);
		if (c.bad || (uint64_t)n * 4 > c.len - c.pos)
			break;
		for (uint32_t i = 0; i < n; i++)
			f->die_id[i] = cur_u32(&c);
		f->has_die_ids = true;
		break;
	}
	case PM_FEAT_PMU_MAPPINGS: {
		uint32_t nr = cur_u32(&c);

		for (size_t i = 0; i < f->npmumap; i++)
			free(f->pmumap[i].name);
		free(f->pmumap);
		f->pmumap = NULL;
		f->npmumap = 0;
		if (c.bad || nr > c.len / 8)
			break;
		f->pmumap = pm__calloc(nr, sizeof(*f->pmumap));
		for (uint32_t i = 0; f->pmumap && i < nr; i++) {
			uint32_t type = cur_u32(&c);
			char *name = cur_str(&c);

			if (c.bad)
				break;
			f->pmumap[i].type = type;
			f->pmumap[i].name = name;
			f->npmumap = i + 1;
		}
		break;
	}
	case PM_FEAT_GROUP_DESC: {
		uint32_t nr = cur_u32(&c);

		for (size_t i = 0; i < f->ngroups; i++)
			free(f->groups[i].name);
		free(f->groups);
		f->groups = NULL;
		f->ngroups = 0;
		if (c.bad || nr > c.len / 12)
			break;
		f->groups = pm__calloc(nr, sizeof(*f->groups));
		for (uint32_t i = 0; f->groups && i < nr; i++) {
			char *name = cur_str(&c);
			uint32_t leader = cur_u32(&c), nrm = cur_u32(&c);

			if (c.bad) {
				free(name);
				break;
			}
			f->groups[i].name = name;
			f->groups[i].leader = leader;
			f->groups[i].nr = nrm;
			f->ngroups = i + 1;
		}
		break;
	}
	case PM_FEAT_SAMPLE_TIME:
		f->st_first = cur_u64(&c);
		f->st_last = cur_u64(&c);
		break;
	case PM_FEAT_CLOCKID:
		f->clockid_res = cur_u64(&c);
		break;
	case PM_FEAT_CLOCK_DATA:
		(void)cur_u32(&c); /* version */
		f->cd_clockid = cur_u32(&c);
		f->cd_wall = cur_u64(&c);
		f->cd_clk = cur_u64(&c);
		break;
	case PM_FEAT_COMPRESSED:
		for (int i = 0; i < 5; i++)
			f->comp[i] = cur_u32(&c);
		break;
	case PM_FEAT_CPU_PMU_CAPS: {
		uint32_t nr = cur_u32(&c);

		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			char *name = cur_str(&c), *value = cur_str(&c);

			if (c.bad) {
				free(name);
				free(value);
				break;
			}
			if (pmf_add_cap(f, "cpu", name, value))
				c.bad = true;
		}
		break;
	}
	case PM_FEAT_PMU_CAPS: {
		uint32_t nr_pmu = cur_u32(&c);

		for (uint32_t p = 0; p < nr_pmu && !c.bad; p++) {
			uint32_t nr = cur_u32(&c);
			size_t first = f->ncaps;
			char *pmu;

			for (uint32_t i = 0; i < nr && !c.bad; i++) {
				char *name = cur_str(&c), *value = cur_str(&c);

				if (c.bad) {
					free(name);
					free(value);
					break;
				}
				if (pmf_add_cap(f, "", name, value))
					c.bad = true;
			}
			pmu = cur_str(&c);
			if (c.bad) {
				free(pmu);
				break;
			}
			/* the PMU name comes after its caps */
			for (size_t i = first; i < f->ncaps; i++) {
				char *d = pm__strndup(pmu, strlen(pmu));

				if (d) {
					free(f->caps[i].pmu);
					f->caps[i].pmu = d;
				}
			}
			free(pmu);
		}
		break;
	}
	case PM_FEAT_BUILD_ID: {
		size_t pos = 0;
		bool old = bid_old_layout(ft->raw, ft->len, f->be);

		while (pm__fits(pos, 8, ft->len)) {
			uint16_t size = pm__ld16(ft->raw + pos + 6, f->be);

			if (size < 8 || !pm__fits(pos, size, ft->len)) {
				c.bad = true;
				break;
			}
			if (old ? pmf_add_old_build_id(f, ft->raw + pos, size)
				: pmf_add_build_id(f, ft->raw + pos, size, f->be))
				break;
			pos += size;
		}
		break;
	}
	default:
		return; /* exposed as raw bytes only */
	}
	if (c.bad)
		pm__warn("%s: feature %u is malformed (offset %" PRIu64 ")", PMF_NAME(f), feat, ft->off);
	else
		PMF_SET_BIT(f->decoded, feat);
}

void pmf_feat_free(pm_file *f)
{
	for (unsigned i = 0; i < PM_FEAT_BITS; i++) {
		free(f->feat[i].raw);
		free(f->fstr[i]);
	}
	strlist_free(f->cmdline, f->ncmd);
	for (int i = 0; i < 3; i++)
		strlist_free(f->topo[i], f->ntopo[i]);
	free(f->core_id);
	free(f->socket_id);
	free(f->die_id);
	for (size_t i = 0; i < f->npmumap; i++)
		free(f->pmumap[i].name);
	free(f->pmumap);
	for (size_t i = 0; i < f->ngroups; i++)
		free(f->groups[i].name);
	free(f->groups);
	for (size_t i = 0; i < f->ncaps; i++) {
		free(f->caps[i].pmu);
		free(f->caps[i].name);
		free(f->caps[i].value);
	}
	free(f->caps);
	for (size_t i = 0; i < f->nbids; i++)
		free(f->bids[i].file);
	free(f->bids);
}

/* ------------------------------------------------------------------ */

static bool pmf_dec(const pm_file *f, unsigned feat)
{
	return f && PMF_TEST_BIT(f->decoded, feat);
}

const char *pm_file_feature_string(const pm_file *f, unsigned feat)
{
	if (!f || feat >= PM_FEAT_BITS)
		return NULL;
	switch (feat) {
	case PM_FEAT_HOSTNAME:
	case PM_FEAT_OSRELEASE:
	case PM_FEAT_VERSION:
	case PM_FEAT_ARCH:
	case PM_FEAT_CPUDESC:
	case PM_FEAT_CPUID:
		return f->fstr[feat];
	default:
		return NULL;
	}
}

int pm_file_nrcpus(const pm_file *f, uint32_t *avail, uint32_t *online)
{
	if (!pmf_dec(f, PM_FEAT_NRCPUS))
		return -ENOENT;
	if (avail)
		*avail = f->nr_avail;
	if (online)
		*online = f->nr_online;
	return 0;
}

int pm_file_total_mem(const pm_file *f, uint64_t *kb)
{
	if (!pmf_dec(f, PM_FEAT_TOTAL_MEM))
		return -ENOENT;
	if (kb)
		*kb = f->total_mem;
	return 0;
}

const char *pm_file_cmdline(const pm_file *f, size_t i)
{
	return f && i < f->ncmd ? f->cmdline[i] : NULL;
}

static bool has_synthetic(const char *s)
{
	return s && strstr(s, "synthetic");
}

int pm_file_is_synthetic(const pm_file *f)
{
	return f && (has_synthetic(pm_file_feature_string(f, PM_FEAT_HOSTNAME)) ||
		     has_synthetic(pm_file_feature_string(f, PM_FEAT_CPUDESC)) ||
		     has_synthetic(pm_file_cmdline(f, 0)));
}

const char *pm_file_cpu_topology(const pm_file *f, int list, size_t i)
{
	if (!f || list < 0 || list > 2 || i >= f->ntopo[list])
		return NULL;
	return f->topo[list][i];
}

int pm_file_cpu_ids(const pm_file *f, uint32_t cpu, uint32_t *core_id, uint32_t *socket_id,
		    uint32_t *die_id)
{
	if (!f || cpu >= f->ncpu_ids)
		return -ENOENT;
	if (core_id)
		*core_id = f->core_id[cpu];
	if (socket_id)
		*socket_id = f->socket_id[cpu];
	if (die_id)
		*die_id = f->die_id[cpu];
	return 0;
}

int pm_file_pmu_mapping(const pm_file *f, size_t i, uint32_t *type, const char **name)
{
	if (!f || i >= f->npmumap)
		return -ENOENT;
	if (type)
		*type = f->pmumap[i].type;
	if (name)
		*name = f->pmumap[i].name;
	return 0;
}

int pm_file_group_desc(const pm_file *f, size_t i, const char **name, uint32_t *leader_idx,
		       uint32_t *nr_members)
{
	if (!f || i >= f->ngroups)
		return -ENOENT;
	if (name)
		*name = f->groups[i].name;
	if (leader_idx)
		*leader_idx = f->groups[i].leader;
	if (nr_members)
		*nr_members = f->groups[i].nr;
	return 0;
}

int pm_file_sample_time(const pm_file *f, uint64_t *first, uint64_t *last)
{
	if (!pmf_dec(f, PM_FEAT_SAMPLE_TIME))
		return -ENOENT;
	if (first)
		*first = f->st_first;
	if (last)
		*last = f->st_last;
	return 0;
}

int pm_file_clockid_res(const pm_file *f, uint64_t *res_ns)
{
	if (!pmf_dec(f, PM_FEAT_CLOCKID))
		return -ENOENT;
	if (res_ns)
		*res_ns = f->clockid_res;
	return 0;
}

int pm_file_clock_data(const pm_file *f, uint32_t *clockid, uint64_t *wall_ns, uint64_t *clockid_ns)
{
	if (!pmf_dec(f, PM_FEAT_CLOCK_DATA))
		return -ENOENT;
	if (clockid)
		*clockid = f->cd_clockid;
	if (wall_ns)
		*wall_ns = f->cd_wall;
	if (clockid_ns)
		*clockid_ns = f->cd_clk;
	return 0;
}

int pm_file_compression(const pm_file *f, uint32_t *type, uint32_t *level, uint32_t *ratio,
			uint32_t *mmap_len)
{
	if (!pmf_dec(f, PM_FEAT_COMPRESSED))
		return -ENOENT;
	if (type)
		*type = f->comp[1];
	if (level)
		*level = f->comp[2];
	if (ratio)
		*ratio = f->comp[3];
	if (mmap_len)
		*mmap_len = f->comp[4];
	return 0;
}

int pm_file_pmu_cap(const pm_file *f, size_t i, const char **pmu, const char **name,
		    const char **value)
{
	if (!f || i >= f->ncaps)
		return -ENOENT;
	if (pmu)
		*pmu = f->caps[i].pmu;
	if (name)
		*name = f->caps[i].name;
	if (value)
		*value = f->caps[i].value;
	return 0;
}

int pm_file_build_id(const pm_file *f, size_t i, int32_t *pid, uint16_t *misc, const uint8_t **id,
		     size_t *id_len, const char **filename)
{
	if (!f || i >= f->nbids)
		return -ENOENT;
	if (pid)
		*pid = f->bids[i].pid;
	if (misc)
		*misc = f->bids[i].misc;
	if (id)
		*id = f->bids[i].id;
	if (id_len)
		*id_len = f->bids[i].len;
	if (filename)
		*filename = f->bids[i].file;
	return 0;
}

/* ------------------------------------------------------------------ */
/* feature sections: the table, loading */

int pmf_load_feature(pm_file *f, unsigned feat)
{
	struct pmf_feat *ft = &f->feat[feat];
	int rc;

	if (!ft->present)
		return -ENOENT;
	if (ft->loaded)
		return 0;
	if (ft->err)
		return ft->err;
	if (!f->seekable)
		return -ENOENT;
	ft->raw = malloc(ft->size + 1);
	if (!ft->raw)
		return -ENOMEM;
	rc = pmf_pread_full(f, ft->raw, ft->size, ft->off, "feature section");
	if (rc) {
		free(ft->raw);
		ft->raw = NULL;
		return rc;
	}
	ft->raw[ft->size] = 0;
	ft->len = ft->size;
	ft->loaded = true;
	return 0;
}

static void pmf_hdr_damage(pm_file *f, int rc, uint64_t off)
{
	if (!f->hdr_err) {
		f->hdr_err = rc;
		f->hdr_err_off = off;
	}
}

int pmf_read_features(pm_file *f)
{
	uint64_t nr = 0, toff = f->info.feat_offset;
	uint8_t *tab;
	size_t k = 0;
	int rc;

	for (unsigned i = 0; i < PM_FEAT_BITS; i++)
		nr += PMF_TEST_BIT(f->info.features, i);
	if (!nr)
		return 0;
	if (!pm__fits(toff, nr * 16, f->info.file_size)) {
		pmf_hdr_damage(f, pm__err(PM_ERR_TRUNCATED,
			"%s: feature table at offset %" PRIu64 " (%" PRIu64 " entries) runs "
			"past the end of the file (%" PRIu64 " bytes)", PMF_NAME(f), toff, nr, f->info.file_size),
			toff);
		memset(f->info.features, 0, sizeof(f->info.features));
		return 0;
	}
	tab = malloc(nr * 16);
	if (!tab)
		return -ENOMEM;
	rc = pmf_pread_full(f, tab, nr * 16, toff, "feature table");
	if (rc) {
		free(tab);
		return rc;
	}
	for (unsigned i = 0; i < PM_FEAT_BITS; i++) {
		struct pmf_feat *ft = &f->feat[i];

		if (!PMF_TEST_BIT(f->info.features, i))
			continue;
		ft->present = true;
		ft->off = pm__ld64(tab + 16 * k, f->be);
		ft->size = pm__ld64(tab + 16 * k + 8, f->be);
		if (!pm__fits(ft->off, ft->size, f->info.file_size)) {
			ft->err = pm__err(PM_ERR_TRUNCATED,
				"%s: feature %u section [%" PRIu64 ", +%" PRIu64 ") (table entry "
				"at offset %" PRIu64 ") runs past the end of the file", PMF_NAME(f), i, ft->off,
				ft->size, toff + 16 * k);
			pmf_hdr_damage(f, ft->err, toff + 16 * k);
		} else if (ft->size <= PMF_MAX_HEADER_SECTION) {
			rc = pmf_load_feature(f, i);
			if (!rc && i == PM_FEAT_TRACING_DATA)
				rc = pmf_tracing_load(f);
			if (rc == -ENOMEM) {
				free(tab);
				return rc;
			}
			if (!rc)
				pmf_feat_decode(f, i);
		}
		k++;
	}
	free(tab);
	return 0;
}

/*
 * Data size 0 means two things: perf record did not finish (records run to
 * the end of the file; the feature bits were written at the start, the
 * sections never), or a finished recording has no records (the feature
 * table starts at the data offset).  A record header read as a table entry
 * has its size in the top 16 bits of the "offset", so a table whose every
 * entry lies after it and inside the file is the second case.
 */
bool pmf_feat_table_at(pm_file *f, uint64_t toff)
{
	uint64_t nr = 0, tend;
	uint8_t e[16];

	for (unsigned i = 0; i < PM_FEAT_BITS; i++)
		nr += PMF_TEST_BIT(f->info.features, i);
	if (!nr || !pm__fits(toff, nr * 16, f->info.file_size))
		return false;
	tend = toff + nr * 16;
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t off, size;

		if (pmf_pread_full(f, e, sizeof(e), toff + 16 * k, "feature table"))
			return false;
		off = pm__ld64(e, f->be);
		size = pm__ld64(e + 8, f->be);
		if (off < tend || !pm__fits(off, size, f->info.file_size))
			return false;
	}
	return true;
}
/*
 * simpleperf (Android) writes the PERFILE2 header but its own records
 * (types >= 32768, records over 64 KiB split, a size split over the misc
 * field) and features 128 and up (META_INFO 129 with simpleperf_version).
 * Walking into its data as perf records would misread it: refuse it.
 */
int pmf_refuse_simpleperf(pm_file *f)
{
	const struct pmf_feat *meta = &f->feat[129];
	char ver[64] = "";
	bool any = false;

	for (unsigned i = 128; i < PM_FEAT_BITS; i++)
		any |= f->feat[i].present;
	if (!any)
		return 0;
	if (meta->loaded) {
		const char *k = (const char *)meta->raw, *end = k + meta->len;

		while (k < end) {
			size_t kl = strnlen(k, (size_t)(end - k));
			const char *v = k + kl + 1;
			size_t vl;

			if (v >= end)
				break;
			vl = strnlen(v, (size_t)(end - v));
			if (!strcmp(k, "simpleperf_version")) {
				snprintf(ver, sizeof(ver), ", simpleperf_version %.*s", (int)vl, v);
				break;
			}
			k = v + vl + 1;
		}
	}
	return pm__err(PM_ERR_UNSUPPORTED, "%s: a simpleperf file (feature %s%s at the "
		       "feature table, offset %" PRIu64 "): its records are simpleperf's, not perf's, "
		       "and are not read", PMF_NAME(f), meta->present ? "129 META_INFO" : "bits 128+",
		       ver, f->info.feat_offset);
}
