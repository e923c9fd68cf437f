/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Scanning <root>/bus/event_source/devices/ * and the PMU accessors. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pmu/pmu_int.h"

#define PM_DEVICES_DIR "/bus/event_source/devices"

/* Flags for read_text(). */
#define RT_OPTIONAL 0x1   /* a missing file is not a diagnostic */
#define RT_FIRST_LINE 0x2 /* keep only the first line */
#define RT_ALLOW_EMPTY 0x4

struct scan {
	struct pm_pmu *p;
	const char *dir; /* the PMU directory */
	int oom;
};

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

static char *dup_str(const char *s)
{
	return pm__strndup(s, strlen(s));
}

static void diag(struct scan *sc, const char *file, int code, const char *fmt, ...) PM_PRINTF(4, 5);

static void diag(struct scan *sc, const char *file, int code, const char *fmt, ...)
{
	struct pm_pmu *p = sc->p;
	struct pm_pmu_diag *d;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d = pm__reallocarray(p->diags, p->ndiags + 1, sizeof(*d));
	if (!d) {
		sc->oom = 1;
		return;
	}
	p->diags = d;
	d += p->ndiags;
	d->file = dup_str(file);
	d->msg = dup_str(msg);
	d->code = code;
	if (!d->file || !d->msg) {
		free(d->file);
		free(d->msg);
		sc->oom = 1;
		return;
	}
	p->ndiags++;
	pm__debug("pmu %s: %s: %s", p->name, file, msg);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Read <pmu dir>/<rel> into a trimmed, NUL-terminated string.  Returns 0 with
 * *out set, or a negative code with *out NULL; every problem except an
 * allowed missing file is recorded as a diagnostic.
 */
static int read_text(struct scan *sc, const char *rel, int flags, char **out)
{
	char *path, *buf = NULL;
	size_t len = 0, s = 0, e;
	int err;

	*out = NULL;
	path = join(sc->dir, rel);
	if (!path) {
		sc->oom = 1;
		return -ENOMEM;
	}
	err = pm__read_small_file(path, PM_PMU_FILE_MAX, &buf, &len);
	free(path);
	if (err == -ENOMEM) {
		sc->oom = 1;
		return err;
	}
	if (err == -ENOENT && (flags & RT_OPTIONAL))
		return err;
	if (err == -EFBIG) {
		diag(sc, rel, err, "file is larger than %u bytes", PM_PMU_FILE_MAX);
		return err;
	}
	if (err) {
		diag(sc, rel, err, "cannot read: %s", pm_strerror(err));
		return err;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) {
			diag(sc, rel, -PM_ERR_FORMAT, "binary content (byte 0x%02x at offset %zu)", c, i);
			free(buf);
			return -PM_ERR_FORMAT;
		}
	}
	while (s < len && is_space(buf[s]))
		s++;
	e = s;
	if (flags & RT_FIRST_LINE) {
		while (e < len && buf[e] != '\n')
			e++;
	} else {
		e = len;
	}
	while (e > s && is_space(buf[e - 1]))
		e--;
	if (e == s && !(flags & RT_ALLOW_EMPTY)) {
		diag(sc, rel, -PM_ERR_FORMAT, "file is empty");
		free(buf);
		return -PM_ERR_FORMAT;
	}
	memmove(buf, buf + s, e - s);
	buf[e - s] = '\0';
	*out = buf;
	return 0;
}

/* A decimal number that fits in [0, max]. */
static int parse_dec(const char *t, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*t)
		return -PM_ERR_FORMAT;
	for (; *t; t++) {
		unsigned d;

		if (*t < '0' || *t > '9')
			return -PM_ERR_FORMAT;
		d = (unsigned)(*t - '0');
		if (v > (max - d) / 10)
			return -PM_ERR_RANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Read an optional small decimal file; -1 when absent or bad. */
static long read_long(struct scan *sc, const char *rel)
{
	unsigned long long v;
	char *t;
	int err;

	if (read_text(sc, rel, RT_OPTIONAL, &t))
		return -1;
	err = parse_dec(t, 0x7fffffffULL, &v);
	if (err)
		diag(sc, rel, -PM_ERR_FORMAT, "'%.40s' is not a decimal number", t);
	free(t);
	return err ? -1 : (long)v;
}

static void scan_type(struct scan *sc)
{
	static const struct {
		const char *name;
		uint32_t type;
	} known[] = { { "software", 1 }, { "tracepoint", 2 }, { "breakpoint", 5 } };
	struct pm_pmu *p = sc->p;
	unsigned long long v;
	char *t;
	int err;

	err = read_text(sc, "type", RT_OPTIONAL, &t);
	if (!err) {
		err = parse_dec(t, 0xffffffffULL, &v);
		if (err) {
			diag(sc, "type", -PM_ERR_FORMAT, "'%.40s' is not a decimal number below 2^32", t);
			err = -PM_ERR_FORMAT;
		} else {
			p->type = (uint32_t)v;
		}
		free(t);
	}
	p->type_err = err;
	if (!err)
		return;
	for (size_t i = 0; i < PM_ARRAY_SIZE(known); i++) {
		if (!strcmp(p->name, known[i].name)) {
			p->type = known[i].type;
			p->type_err = 0;
			pm__info("pmu %s: no usable type file, using %u", p->name, p->type);
			return;
		}
	}
	if (err == -ENOENT)
		diag(sc, "type", -ENOENT, "missing: the PMU has no type and cannot be used");
}

static void scan_cpus(struct scan *sc)
{
	static const char *const files[] = { "cpumask", "cpus" };
	struct pm_pmu *p = sc->p;

	for (size_t i = 0; i < PM_ARRAY_SIZE(files); i++) {
		char *t;
		size_t n;
		int err = read_text(sc, files[i], RT_OPTIONAL | RT_FIRST_LINE | RT_ALLOW_EMPTY, &t);

		if (err == -ENOMEM)
			return;
		if (err == -ENOENT)
			continue;
		if (i == 0)
			p->has_cpumask = 1;
		if (err)
			return;
		if (pm__parse_cpulist(t, NULL, 0, &n))
			diag(sc, files[i], -PM_ERR_FORMAT, "'%.40s' is not a CPU list", t);
		p->cpus = t;
		return;
	}
}

/* Names in a sub-directory, or NULL with *n = 0 (missing dir is fine). */
static char **list_dir(struct scan *sc, const char *rel, size_t *n)
{
	char *path = join(sc->dir, rel);
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	if (!path) {
		sc->oom = 1;
		return NULL;
	}
	d = opendir(path);
	free(path);
	if (!d) {
		if (errno != ENOENT)
			diag(sc, rel, -errno, "cannot open directory: %s", pm_strerror(errno));
		return NULL;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nn = pm__reallocarray(names, nc, sizeof(*nn));

			if (!nn) {
				sc->oom = 1;
				break;
			}
			names = nn;
			cap = nc;
		}
		names[*n] = dup_str(de->d_name);
		if (!names[*n]) {
			sc->oom = 1;
			break;
		}
		(*n)++;
	}
	closedir(d);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static char *rel2(const char *dir, const char *name, const char *suffix)
{
	size_t ld = strlen(dir), ln = strlen(name), ls = strlen(suffix);
	char *s = malloc(ld + ln + ls + 2);

	if (!s)
		return NULL;
	memcpy(s, dir, ld);
	s[ld] = '/';
	memcpy(s + ld + 1, name, ln);
	memcpy(s + ld + 1 + ln, suffix, ls + 1);
	return s;
}

static void scan_formats(struct scan *sc)
{
	struct pm_pmu *p = sc->p;
	size_t n;
	char **names = list_dir(sc, "format", &n);

	if (!n)
		goto out;
	p->formats = pm__calloc(n, sizeof(*p->formats));
	if (!p->formats) {
		sc->oom = 1;
		goto out;
	}
	for (size_t i = 0; i < n && !sc->oom; i++) {
		struct pm_format *f = &p->formats[p->nformats];
		char *rel = rel2("format", names[i], ""), *t;
		int word, err;
		uint64_t mask;

		if (!rel) {
			sc->oom = 1;
			break;
		}
		if (!read_text(sc, rel, 0, &t)) {
			err = pm_format_parse(t, strlen(t), &word, &mask);
			if (err) {
				diag(sc, rel, err, "%s", pm_errmsg());
				free(t);
			} else {
				f->name = names[i];
				names[i] = NULL;
				f->spec = t;
				f->word = word;
				f->mask = mask;
				f->width = (unsigned)__builtin_popcountll(mask);
				p->nformats++;
			}
		}
		free(rel);
	}
out:
	free_names(names, n);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t ls = strlen(s), lf = strlen(suf);

	return ls > lf && !strcmp(s + ls - lf, suf);
}

static int is_side_file(const char *name)
{
	return has_suffix(name, ".scale") || has_suffix(name, ".unit") ||
	       has_suffix(name, ".per-pkg") || has_suffix(name, ".snapshot");
}

static int side_exists(struct scan *sc, const char *rel)
{
	char *path = join(sc->dir, rel);
	struct stat st;
	int r;

	if (!path) {
		sc->oom = 1;
		return 0;
	}
	r = stat(path, &st) == 0;
	free(path);
	return r;
}

static void scan_alias_info(struct scan *sc, struct pm_alias *a)
{
	static const char *const sfx[] = { ".unit", ".scale", ".per-pkg", ".snapshot" };
	char *t;

	a->scale = 1.0;
	for (size_t i = 0; i < PM_ARRAY_SIZE(sfx) && !sc->oom; i++) {
		char *rel = rel2("events", a->name, sfx[i]);

		if (!rel) {
			sc->oom = 1;
			return;
		}
		switch (i) {
		case 0:
			if (!read_text(sc, rel, RT_OPTIONAL | RT_FIRST_LINE | RT_ALLOW_EMPTY, &t))
				a->unit = t;
			break;
		case 1:
			if (!read_text(sc, rel, RT_OPTIONAL | RT_FIRST_LINE, &t)) {
				if (pm__parse_scale(t, &a->scale)) {
					diag(sc, rel, -PM_ERR_FORMAT, "'%.40s' is not a decimal number", t);
					a->scale = 1.0;
				}
				free(t);
			}
			break;
		case 2:
			a->per_pkg = side_exists(sc, rel);
			break;
		default:
			a->snapshot = side_exists(sc, rel);
			break;
		}
		free(rel);
	}
}

static void scan_aliases(struct scan *sc)
{
	struct pm_pmu *p = sc->p;
	size_t n;
	char **names = list_dir(sc, "events", &n);

	if (!n)
		goto out;
	p->aliases = pm__calloc(n, sizeof(*p->aliases));
	if (!p->aliases) {
		sc->oom = 1;
		goto out;
	}
	for (size_t i = 0; i < n && !sc->oom; i++) {
		struct pm_alias *a = &p->aliases[p->naliases];
		char *rel, *t;
		int err;

		if (is_side_file(names[i]))
			continue;
		rel = rel2("events", names[i], "");
		if (!rel) {
			sc->oom = 1;
			break;
		}
		if (!read_text(sc, rel, 0, &t)) {
			a->text = t;
			a->name = names[i];
			names[i] = NULL;
			err = pm__alias_parse_terms(a, t);
			if (err == -ENOMEM) {
				sc->oom = 1;
			} else if (err) {
				diag(sc, rel, err, "'%.60s': %s", t, pm_errmsg());
			} else {
				scan_alias_info(sc, a);
				p->naliases++;
			}
			if (err)
				pm__alias_clear(a);
		}
		free(rel);
	}
out:
	free_names(names, n);
}

static void scan_caps(struct scan *sc)
{
	struct pm_pmu *p = sc->p;
	size_t n;
	char **names = list_dir(sc, "caps", &n);

	if (!n)
		goto out;
	p->caps = pm__calloc(n, sizeof(*p->caps));
	if (!p->caps) {
		sc->oom = 1;
		goto out;
	}
	for (size_t i = 0; i < n && !sc->oom; i++) {
		char *rel = rel2("caps", names[i], ""), *t;

		if (!rel) {
			sc->oom = 1;
			break;
		}
		if (!read_text(sc, rel, RT_FIRST_LINE, &t)) {
			p->caps[p->ncaps].name = names[i];
			p->caps[p->ncaps].value = t;
			names[i] = NULL;
			p->ncaps++;
			if (!strcmp(p->caps[p->ncaps - 1].name, "max_precise")) {
				unsigned long long v;

				if (parse_dec(t, 0x7fffffffULL, &v))
					diag(sc, rel, -PM_ERR_FORMAT, "'%.40s' is not a decimal number", t);
				else
					p->max_precise = (int)v;
			}
		}
		free(rel);
	}
out:
	free_names(names, n);
}

static int cmp_format(const void *a, const void *b)
{
	return strcmp(((const struct pm_format *)a)->name, ((const struct pm_format *)b)->name);
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct pm_alias *)a)->name, ((const struct pm_alias *)b)->name);
}

static int cmp_cap(const void *a, const void *b)
{
	return strcmp(((const struct pm_pmu_cap *)a)->name, ((const struct pm_pmu_cap *)b)->name);
}

static int cmp_diag(const void *a, const void *b)
{
	return strcmp(((const struct pm_pmu_diag *)a)->file, ((const struct pm_pmu_diag *)b)->file);
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pm_pmu *)a)->name, ((const struct pm_pmu *)b)->name);
}

/* The PMU's `alias` file (x86 uncore PMUs named by discovery): its first
 * word is another name of the PMU, as perf 6.1 reads it (fscanf "%s").  A
 * word that cannot be a PMU name is a diagnostic and no name. */
static void scan_alt_name(struct scan *sc)
{
	char *t;
	size_t n = 0;

	if (read_text(sc, "alias", RT_OPTIONAL, &t))
		return;
	while (t[n] && t[n] != ' ' && t[n] != '\t' && t[n] != '\n')
		n++;
	t[n] = 0;
	for (size_t k = 0; k < n; k++) {
		char c = t[k];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) {
			diag(sc, "alias", -PM_ERR_FORMAT, "'%.40s' is not a PMU name", t);
			free(t);
			return;
		}
	}
	if (!n) {
		diag(sc, "alias", -PM_ERR_FORMAT, "empty alias file");
		free(t);
		return;
	}
	sc->p->alt_name = t;
}

/* Fill *p from the directory devdir/name.  Returns 0 or -ENOMEM. */
static int scan_pmu(struct pm_pmu *p, const char *devdir, const char *name)
{
	struct scan sc = { p, NULL, 0 };
	char *dir;
	struct stat st;

	p->mux_interval_ms = -1;
	p->rdpmc = -1;
	p->max_precise = -1;
	p->name = dup_str(name);
	dir = join(devdir, name);
	if (!p->name || !dir) {
		free(dir);
		return -ENOMEM;
	}
	sc.dir = dir;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		int e;

		if (stat(dir, &st))
			e = errno;
		else
			e = ENOTDIR;
		p->type_err = -e;
		diag(&sc, ".", -e, "not a usable PMU directory: %s", pm_strerror(e));
		free(dir);
		return sc.oom ? -ENOMEM : 0;
	}
	scan_type(&sc);
	scan_cpus(&sc);
	scan_alt_name(&sc);
	p->mux_interval_ms = read_long(&sc, "perf_event_mux_interval_ms");
	p->rdpmc = read_long(&sc, "rdpmc");
	scan_formats(&sc);
	scan_aliases(&sc);
	scan_caps(&sc);
	free(dir);
	if (sc.oom)
		return -ENOMEM;
	if (p->nformats)
		qsort(p->formats, p->nformats, sizeof(*p->formats), cmp_format);
	if (p->naliases)
		qsort(p->aliases, p->naliases, sizeof(*p->aliases), cmp_alias);
	if (p->ncaps)
		qsort(p->caps, p->ncaps, sizeof(*p->caps), cmp_cap);
	if (p->ndiags)
		qsort(p->diags, p->ndiags, sizeof(*p->diags), cmp_diag);
	return 0;
}

static void pmu_clear(struct pm_pmu *p)
{
	free(p->name);
	free(p->alt_name);
	free(p->cpus);
	for (size_t i = 0; i < p->nformats; i++) {
		free(p->formats[i].name);
		free(p->formats[i].spec);
	}
	free(p->formats);
	for (size_t i = 0; i < p->naliases; i++)
		pm__alias_clear(&p->aliases[i]);
	free(p->aliases);
	for (size_t i = 0; i < p->ncaps; i++) {
		free(p->caps[i].name);
		free(p->caps[i].value);
	}
	free(p->caps);
	for (size_t i = 0; i < p->ndiags; i++) {
		free(p->diags[i].file);
		free(p->diags[i].msg);
	}
	free(p->diags);
}

PM_API void pm_pmu_list_free(pm_pmu_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->npmus; i++)
		pmu_clear(&list->pmus[i]);
	free(list->pmus);
	free(list->root);
	free(list);
}

PM_API int pm_pmu_scan(pm_pmu_list **out, const char *sysfs_root)
{
	struct pm_pmu_list *l;
	struct dirent *de;
	char *devdir;
	size_t cap = 0;
	DIR *d;
	int err = 0;

	if (!out)
		return pm__err(EINVAL, "pm_pmu_scan: out is NULL");
	*out = NULL;
	if (!sysfs_root || !*sysfs_root) {
		sysfs_root = getenv("PROFILEME_SYSFS");
		if (!sysfs_root || !*sysfs_root)
			sysfs_root = "/sys";
	}
	l = pm__calloc(1, sizeof(*l));
	if (!l)
		return pm__err(ENOMEM, "out of memory");
	l->root = dup_str(sysfs_root);
	devdir = malloc(strlen(sysfs_root) + sizeof(PM_DEVICES_DIR));
	if (!l->root || !devdir) {
		free(devdir);
		pm_pmu_list_free(l);
		return pm__err(ENOMEM, "out of memory");
	}
	strcpy(devdir, sysfs_root);
	strcat(devdir, PM_DEVICES_DIR);
	d = opendir(devdir);
	if (!d) {
		err = pm__err(errno, "%s: cannot open: %s", devdir, pm_strerror(errno));
		free(devdir);
		pm_pmu_list_free(l);
		return err;
	}
	while ((de = readdir(d))) {
		struct pm_pmu *p;

		if (de->d_name[0] == '.')
			continue;
		if (l->npmus == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct pm_pmu *np = pm__reallocarray(l->pmus, nc, sizeof(*np));

			if (!np) {
				err = -ENOMEM;
				break;
			}
			l->pmus = np;
			cap = nc;
		}
		p = &l->pmus[l->npmus];
		memset(p, 0, sizeof(*p));
		l->npmus++;
		err = scan_pmu(p, devdir, de->d_name);
		if (err)
			break;
	}
	closedir(d);
	free(devdir);
	if (err) {
		pm_pmu_list_free(l);
		return pm__err(ENOMEM, "out of memory while scanning %s", sysfs_root);
	}
	if (l->npmus)
		qsort(l->pmus, l->npmus, sizeof(*l->pmus), cmp_pmu);
	pm__err_clear();
	*out = l;
	return 0;
}

PM_API const char *pm_pmu_list_root(const pm_pmu_list *list)
{
	return list ? list->root : NULL;
}

PM_API size_t pm_pmu_list_count(const pm_pmu_list *list)
{
	return list ? list->npmus : 0;
}

PM_API const pm_pmu *pm_pmu_list_get(const pm_pmu_list *list, size_t index)
{
	return list && index < list->npmus ? &list->pmus[index] : NULL;
}

static const pm_pmu *find_exact(const pm_pmu_list *list, const char *name)
{
	struct pm_pmu key;

	key.name = (char *)name;
	return bsearch(&key, list->pmus, list->npmus, sizeof(*list->pmus), cmp_pmu);
}

PM_API const pm_pmu *pm_pmu_find(const pm_pmu_list *list, const char *name)
{
	const pm_pmu *p;
	char *un;

	if (!list || !name || !list->npmus)
		return NULL;
	p = find_exact(list, name);
	if (p)
		return p;
	un = malloc(strlen(name) + sizeof("uncore_"));
	if (!un)
		return NULL;
	strcpy(un, "uncore_");
	strcat(un, name);
	p = find_exact(list, un);
	free(un);
	for (size_t i = 0; !p && i < list->npmus; i++) /* the alias file's name */
		if (list->pmus[i].alt_name && !strcmp(list->pmus[i].alt_name, name))
			p = &list->pmus[i];
	return p;
}

PM_API const pm_pmu *pm_pmu_find_by_type(const pm_pmu_list *list, uint32_t type)
{
	for (size_t i = 0; list && i < list->npmus; i++)
		if (!list->pmus[i].type_err && list->pmus[i].type == type)
			return &list->pmus[i];
	return NULL;
}

PM_API const char *pm_pmu_name(const pm_pmu *pmu)
{
	return pmu ? pmu->name : NULL;
}

PM_API const char *pm_pmu_alt_name(const pm_pmu *pmu)
{
	return pmu ? pmu->alt_name : NULL;
}

PM_API int pm_pmu_type(const pm_pmu *pmu, uint32_t *type)
{
	if (type)
		*type = 0;
	if (!pmu || !type)
		return pm__err(EINVAL, "pm_pmu_type: NULL argument");
	if (pmu->type_err)
		return pm__err(-pmu->type_err, "pmu '%s' has no usable type", pmu->name);
	*type = pmu->type;
	return 0;
}

PM_API int pm_pmu_is_profileme(const pm_pmu *pmu)
{
	return pm_pmu_format_find(pmu, "profileme") != NULL;
}

PM_API const char *pm_pmu_cpus(const pm_pmu *pmu)
{
	return pmu ? pmu->cpus : NULL;
}

PM_API int pm_pmu_is_uncore(const pm_pmu *pmu)
{
	return pmu ? pmu->has_cpumask : 0;
}

PM_API int pm_pmu_cpu_list(const pm_pmu *pmu, int *cpus, size_t cap, size_t *n)
{
	size_t dummy;
	int err;

	if (!n)
		n = &dummy;
	*n = 0;
	if (!pmu)
		return pm__err(EINVAL, "pm_pmu_cpu_list: NULL pmu");
	if (!pmu->cpus)
		return pm__err(ENOENT, "pmu '%s' has no cpumask or cpus file", pmu->name);
	if (!cpus)
		cap = 0;
	err = pm__parse_cpulist(pmu->cpus, cpus, cap, n);
	if (err)
		return pm__err(PM_ERR_FORMAT, "pmu '%s': '%s' is not a CPU list", pmu->name, pmu->cpus);
	return 0;
}

PM_API long pm_pmu_mux_interval_ms(const pm_pmu *pmu)
{
	return pmu ? pmu->mux_interval_ms : -1;
}

PM_API long pm_pmu_rdpmc(const pm_pmu *pmu)
{
	return pmu ? pmu->rdpmc : -1;
}

PM_API int pm_pmu_max_precise(const pm_pmu *pmu)
{
	return pmu ? pmu->max_precise : -1;
}

PM_API size_t pm_pmu_format_count(const pm_pmu *pmu)
{
	return pmu ? pmu->nformats : 0;
}

PM_API const pm_format *pm_pmu_format_get(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->nformats ? &pmu->formats[index] : NULL;
}

PM_API const pm_format *pm_pmu_format_find(const pm_pmu *pmu, const char *name)
{
	struct pm_format key;

	if (!pmu || !name || !pmu->nformats)
		return NULL;
	key.name = (char *)name;
	return bsearch(&key, pmu->formats, pmu->nformats, sizeof(*pmu->formats), cmp_format);
}

PM_API size_t pm_pmu_alias_count(const pm_pmu *pmu)
{
	return pmu ? pmu->naliases : 0;
}

PM_API const pm_alias *pm_pmu_alias_get(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->naliases ? &pmu->aliases[index] : NULL;
}

static int ascii_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = (unsigned char)*a, cb = (unsigned char)*b;

		if (ca >= 'A' && ca <= 'Z')
			ca += 'a' - 'A';
		if (cb >= 'A' && cb <= 'Z')
			cb += 'a' - 'A';
		if (ca != cb || !ca)
			return ca - cb;
	}
}

PM_API const pm_alias *pm_pmu_alias_find(const pm_pmu *pmu, const char *name)
{
	if (!pmu || !name)
		return NULL;
	for (size_t i = 0; i < pmu->naliases; i++)
		if (!strcmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	for (size_t i = 0; i < pmu->naliases; i++)
		if (!ascii_casecmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

PM_API size_t pm_pmu_cap_count(const pm_pmu *pmu)
{
	return pmu ? pmu->ncaps : 0;
}

PM_API const char *pm_pmu_cap_name(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->ncaps ? pmu->caps[index].name : NULL;
}

PM_API const char *pm_pmu_cap_value(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->ncaps ? pmu->caps[index].value : NULL;
}

PM_API const char *pm_pmu_cap_find(const pm_pmu *pmu, const char *name)
{
	if (!pmu || !name)
		return NULL;
	for (size_t i = 0; i < pmu->ncaps; i++)
		if (!strcmp(pmu->caps[i].name, name))
			return pmu->caps[i].value;
	return NULL;
}

PM_API size_t pm_pmu_diag_count(const pm_pmu *pmu)
{
	return pmu ? pmu->ndiags : 0;
}

PM_API const char *pm_pmu_diag_file(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->ndiags ? pmu->diags[index].file : NULL;
}

PM_API int pm_pmu_diag_code(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->ndiags ? pmu->diags[index].code : 0;
}

PM_API const char *pm_pmu_diag_message(const pm_pmu *pmu, size_t index)
{
	return pmu && index < pmu->ndiags ? pmu->diags[index].msg : NULL;
}
