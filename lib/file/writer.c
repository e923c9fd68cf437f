/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The perf.data writer.  Layout (file mode, host byte order):
 *   0    header (104 bytes): magic, size, attr_size, attrs{off,size},
 *        data{off,size}, event_types{0,0}, 256-bit feature bitmap
 *   104  each attr's u64 id array
 *   ...  attr section: {attr (attr_sz bytes), ids{off,size}} per attr
 *   ...  data (records)
 *   ...  feature table {off,size} per set bit, then the feature payloads
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "event/event_int.h" /* tracefs lookups */

#include <profileme/version.h>
#include <profileme/writer.h>

#define W_HEADER_SIZE 104
#define W_PIPE_HEADER_SIZE 16
#define W_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */

#define W_REC_MMAP2 10
#define W_REC_COMM 3
#define W_REC_SAMPLE 9
#define W_REC_HEADER_ATTR 64
#define W_REC_FINISHED_ROUND 68
#define W_REC_HEADER_FEATURE 80
#define W_MISC_USER 2

#define W_FEAT_TRACING_DATA 1
#define W_FEAT_HOSTNAME 3
#define W_FEAT_OSRELEASE 4
#define W_FEAT_VERSION 5
#define W_FEAT_ARCH 6
#define W_FEAT_NRCPUS 7
#define W_FEAT_CPUDESC 8
#define W_FEAT_CMDLINE 11
#define W_FEAT_EVENT_DESC 12
#define W_FEAT_PMU_MAPPINGS 16

struct w_attr {
	struct pm_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pm_writer {
	int fd;
	bool own_fd, pipe, begun, finished, no_features;
	bool be;
	int err;                 /* first write error (negative) */
	struct w_attr *attrs;
	size_t nr_attrs;
	uint32_t attr_sz;        /* bytes per attr written */
	char **argv;
	int argc;
	uint8_t *buf;
	size_t buf_len, buf_cap;
	uint64_t data_offset;    /* file offset of the data section */
	uint64_t data_flushed;   /* data bytes written to the fd */
	uint64_t records, samples, bytes;
	size_t trailer_size;     /* sample_id_all trailer of synthesized records */
	char *tracefs;           /* tracefs root for TRACING_DATA, or NULL: the default */
};

/* ------------------------------------------------------------------ I/O */

static int w_write_all(pm_writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t k = write(w->fd, b, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return pm__err(errno, "writing perf.data: %s", strerror(errno));
		}
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int w_pwrite_all(pm_writer *w, const void *p, size_t n, uint64_t off)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t k = pwrite(w->fd, b, n, (off_t)off);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return pm__err(errno, "writing perf.data: %s", strerror(errno));
		}
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static void w_header(pm_writer *w, uint8_t *h, uint64_t data_size, const uint8_t *features)
{
	uint64_t attrs_size = (uint64_t)w->nr_attrs * (w->attr_sz + 16);

	memset(h, 0, W_HEADER_SIZE);
	pm__st64(h, W_MAGIC, w->be);
	pm__st64(h + 8, W_HEADER_SIZE, w->be);
	pm__st64(h + 16, w->attr_sz + 16, w->be);
	pm__st64(h + 24, w->data_offset - attrs_size, w->be);
	pm__st64(h + 32, attrs_size, w->be);
	pm__st64(h + 40, w->data_offset, w->be);
	pm__st64(h + 48, data_size, w->be);
	/* event_types {0, 0} at 56; the bitmap at 72 */
	if (features)
		memcpy(h + 72, features, 32);
}

static int w_flush(pm_writer *w)
{
	uint8_t h[W_HEADER_SIZE];
	int rc;

	if (w->err)
		return w->err;
	if (!w->buf_len)
		return 0;
	rc = w_write_all(w, w->buf, w->buf_len);
	if (rc) {
		w->err = rc;
		return rc;
	}
	w->data_flushed += w->buf_len;
	w->buf_len = 0;
	if (!w->pipe && w->begun && !w->finished) {
		/* Keep data.size current: a killed writer leaves a readable file. */
		w_header(w, h, w->data_flushed, NULL);
		rc = w_pwrite_all(w, h, sizeof(h), 0);
		if (rc)
			w->err = rc;
	}
	return w->err;
}

static int w_append(pm_writer *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (w->buf_len + n > w->buf_cap) {
		int rc = w_flush(w);

		if (rc)
			return rc;
		if (n > w->buf_cap) {
			rc = w_write_all(w, p, n);
			if (rc)
				return w->err = rc;
			w->data_flushed += n;
			return 0;
		}
	}
	memcpy(w->buf + w->buf_len, p, n);
	w->buf_len += n;
	return 0;
}

/* ------------------------------------------------------------ open/close */


static int w_new(pm_writer **out, int fd, bool own, const struct pm_writer_opts *opts)
{
	pm_writer *w;
	struct stat st;
	int rc;

	struct pm_writer_opts o = { .sz = sizeof(o) };

	if (opts) {
		rc = PM__SZ_VALID(opts, pm_writer_opts, PM_WRITER_OPTS_SZ_V1);
		if (rc)
			return rc;
		pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
		opts = &o;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	if (opts && opts->tracefs) {
		w->tracefs = strdup(opts->tracefs);
		if (!w->tracefs) {
			free(w);
			return -ENOMEM;
		}
	}
	w->fd = fd;
	w->own_fd = own;
	w->be = pm__host_big_endian();
	w->buf_cap = opts && opts->buffer_bytes ? PM_MAX(opts->buffer_bytes, (size_t)4096) :
						  256 * 1024;
	w->buf = malloc(w->buf_cap);
	if (!w->buf) {
		free(w->tracefs);
		free(w);
		return -ENOMEM;
	}
	w->pipe = (opts && (opts->flags & PM_WRITER_PIPE)) ||
		  (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) || lseek(fd, 0, SEEK_CUR) < 0;
	w->no_features = opts && (opts->flags & PM_WRITER_NO_FEATURES);
	*out = w;
	return 0;
}

int pm_writer_open_fd(pm_writer **out, int fd, const struct pm_writer_opts *opts)
{
	if (!out || fd < 0)
		return pm__err(EINVAL, "pm_writer_open_fd: bad arguments");
	*out = NULL;
	return w_new(out, fd, false, opts);
}

int pm_writer_open(pm_writer **out, const char *path, const struct pm_writer_opts *opts)
{
	struct pm_writer_opts o = { .sz = sizeof(o) };
	int fd, rc;

	if (!out || !path)
		return pm__err(EINVAL, "pm_writer_open: bad arguments");
	*out = NULL;
	if (!strcmp(path, "-")) {
		if (opts) {
			rc = PM__SZ_VALID(opts, pm_writer_opts, PM_WRITER_OPTS_SZ_V1);
			if (rc)
				return rc;
			pm__opts_copy_in(&o, sizeof(o), opts, opts->sz);
		}
		o.flags |= PM_WRITER_PIPE;
		return w_new(out, 1, false, &o);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return pm__err(errno, "cannot create '%s': %s", path, strerror(errno));
	rc = w_new(out, fd, true, opts);
	if (rc)
		close(fd);
	return rc;
}

int pm_writer_add_attr(pm_writer *w, const struct pm_attr *attr, const char *name,
		       const uint64_t *ids, size_t nr_ids)
{
	struct w_attr *a, *n;

	if (!w || !attr || (nr_ids && !ids))
		return pm__err(EINVAL, "pm_writer_add_attr: bad arguments");
	if (w->begun)
		return pm__err(EBUSY, "pm_writer_add_attr: the header is already written");
	if (nr_ids > 4096)
		return pm__err(EINVAL, "pm_writer_add_attr: %zu ids is too many", nr_ids);
	n = pm__reallocarray(w->attrs, w->nr_attrs + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->attrs = n;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->attr = *attr;
	a->name = strdup(name ? name : "");
	a->ids = pm__calloc(nr_ids ? nr_ids : 1, sizeof(uint64_t));
	if (!a->name || !a->ids) {
		free(a->name);
		free(a->ids);
		return -ENOMEM;
	}
	if (nr_ids)
		memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
	a->nr_ids = nr_ids;
	w->nr_attrs++;
	return 0;
}

int pm_writer_add_evlist(pm_writer *w, const pm_evlist *el)
{
	size_t n = pm_evlist_count(el);

	if (!w || !el)
		return pm__err(EINVAL, "pm_writer_add_evlist: bad arguments");
	for (size_t i = 0; i < n; i++) {
		struct pm_attr a;
		long nid = pm_evlist_ids(el, i, NULL, 0);
		uint64_t *ids;
		int rc;

		if (nid < 0)
			return (int)nid;
		ids = pm__calloc(nid ? (size_t)nid : 1, sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		pm_evlist_ids(el, i, ids, (size_t)nid);
		pm_evlist_attr(el, i, &a);
		rc = pm_writer_add_attr(w, &a, pm_evlist_name(el, i), ids, (size_t)nid);
		free(ids);
		if (rc)
			return rc;
	}
	return 0;
}

int pm_writer_set_cmdline(pm_writer *w, int argc, char *const argv[])
{
	if (!w || argc < 0 || (argc && !argv))
		return pm__err(EINVAL, "pm_writer_set_cmdline: bad arguments");
	for (int i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	w->argc = 0;
	w->argv = pm__calloc((size_t)argc + 1, sizeof(char *));
	if (!w->argv)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		w->argv[i] = strdup(argv[i] ? argv[i] : "");
		if (!w->argv[i])
			return -ENOMEM;
		w->argc = i + 1;
	}
	return 0;
}

/* ------------------------------------------------------------- features */

/* perf's string: u32 len (strlen+1 rounded up to 64), bytes, zero padded. */
static int feat_string(struct pm__buf *b, const char *s, bool be)
{
	size_t n = strlen(s) + 1, len = (n + 63) & ~(size_t)63;
	uint8_t l[4];
	int rc;

	pm__st32(l, (uint32_t)len, be);
	rc = pm__buf_append(b, l, 4);
	if (!rc)
		rc = pm__buf_append(b, s, n);
	for (size_t i = n; !rc && i < len; i++)
		rc = pm__buf_append(b, "", 1);
	return rc;
}

static int feat_u32(struct pm__buf *b, uint32_t v, bool be)
{
	uint8_t x[4];

	pm__st32(x, v, be);
	return pm__buf_append(b, x, 4);
}

static int feat_u64(struct pm__buf *b, uint64_t v, bool be)
{
	uint8_t x[8];

	pm__st64(x, v, be);
	return pm__buf_append(b, x, 8);
}

static void cpu_desc(char *out, size_t cap, const char *fallback)
{
	static const char *const keys[] = { "model name", "cpu model", "Processor", "cpu\t" };
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(out, cap, "%s", fallback);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		for (size_t k = 0; k < PM_ARRAY_SIZE(keys); k++) {
			char *c = strchr(line, ':');

			if (strncmp(line, keys[k], strlen(keys[k])) || !c)
				continue;
			c++;
			while (*c == ' ' || *c == '\t')
				c++;
			c[strcspn(c, "\n")] = 0;
			if (*c) {
				snprintf(out, cap, "%s", c);
				fclose(f);
				return;
			}
		}
	}
	fclose(f);
}

static int feat_pmu_mappings(struct pm__buf *b, bool be)
{
	const char *root = "/sys/bus/event_source/devices";
	DIR *d = opendir(root);
	struct dirent *de;
	struct pm__buf body = { 0 };
	uint32_t nr = 0;
	int rc = 0;

	if (d) {
		while (!rc && (de = readdir(d))) {
			char path[512], *s = NULL;
			size_t len;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/type", root, de->d_name);
			if (pm__read_small_file(path, 64, &s, &len))
				continue;
			rc = feat_u32(&body, (uint32_t)strtoul(s, NULL, 10), be);
			if (!rc)
				rc = feat_string(&body, de->d_name, be);
			free(s);
			nr++;
		}
		closedir(d);
	}
	if (!rc)
		rc = feat_u32(b, nr, be);
	if (!rc && body.len)
		rc = pm__buf_append(b, body.data, body.len);
	pm__buf_free(&body);
	return rc;
}

static int attr_bytes(const pm_writer *w, const struct pm_attr *attr, uint8_t *out)
{
	struct pm_attr a = *attr;
	int n;

	a.size = w->attr_sz;
	memset(out, 0, PM_ATTR_SIZE_KNOWN);
	n = pm_attr_to_bytes(&a, out, PM_ATTR_SIZE_KNOWN, w->be);
	return n < 0 ? n : 0;
}

/* ------------------------------------------------------- tracing data */
/*
 * HEADER_TRACING_DATA, the layout perf's trace-event reader expects:
 *   "\027\010\104tracing", version "0.6\0", u8 big-endian, u8 sizeof(long),
 *   u32 page size;
 *   "header_page\0" u64 size + <tracefs>/events/header_page,
 *   "header_event\0" u64 size + <tracefs>/events/header_event;
 *   u32 count + (u64 size + format) of the ftrace/ events used;
 *   u32 number of systems, then per system: name\0, u32 count,
 *   (u64 size + format) per event used;
 *   u32 kallsyms size (0: none written);
 *   u32 printk formats size + <tracefs>/printk_formats (0 when unreadable);
 *   u64 saved cmdlines size (0: none written).
 * Numbers in the recording's byte order.  Only the events of the recorded
 * tracepoint attrs are described.
 */
#define W_TRACE_FILE_MAX (16u << 20)

struct w_tp {
	char *sys, *name;
};

static int trace_file(struct pm__buf *b, const char *path, bool u64size, bool be)
{
	char *text = NULL;
	size_t len = 0;
	int rc = pm__read_small_file(path, W_TRACE_FILE_MAX, &text, &len);

	if (rc)
		return rc;
	rc = u64size ? feat_u64(b, len, be) : feat_u32(b, (uint32_t)len, be);
	if (!rc && len)
		rc = pm__buf_append(b, text, len);
	free(text);
	return rc;
}

/* The tracepoints of the recorded attrs, each once, as (sys, name). */
static int trace_events(pm_writer *w, const char *root, struct w_tp **out, size_t *n)
{
	struct w_tp *tp = pm__calloc(w->nr_attrs ? w->nr_attrs : 1, sizeof(*tp));
	size_t k = 0;
	int rc = 0;

	if (!tp)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < w->nr_attrs; i++) {
		const struct w_attr *a = &w->attrs[i];
		const char *colon = strchr(a->name, ':');
		struct pm__buf nb = { 0 };
		const char *full = NULL;
		uint64_t id;
		bool dup = false;

		if (a->attr.type != PM_TYPE_TRACEPOINT)
			continue;
		/* the event's name when it is "sys:event" of the same id, else a scan */
		if (colon) {
			size_t sl = (size_t)(colon - a->name), el = strcspn(colon + 1, ":/");

			if (pm__tracepoint_id(root, a->name, sl, colon + 1, el, &id) == 0 &&
			    id == a->attr.config && pm__buf_printf(&nb, "%.*s:%.*s", (int)sl,
								   a->name, (int)el, colon + 1) >= 0)
				full = nb.data;
		}
		if (!full) {
			rc = pm__tracepoint_find(root, a->attr.config, &nb);
			if (rc) {
				rc = pm__err(-rc == ENOENT ? ENOENT : -rc,
					     "tracing data: no tracepoint of id %llu in %s/events",
					     (unsigned long long)a->attr.config, root);
				pm__buf_free(&nb);
				break;
			}
			full = nb.data;
		}
		colon = strchr(full, ':');
		for (size_t j = 0; j < k && !dup; j++)
			dup = !strncmp(tp[j].sys, full, (size_t)(colon - full)) &&
			      !tp[j].sys[colon - full] && !strcmp(tp[j].name, colon + 1);
		if (!dup) {
			tp[k].sys = pm__strndup(full, (size_t)(colon - full));
			tp[k].name = strdup(colon + 1);
			if (!tp[k].sys || !tp[k].name)
				rc = -ENOMEM;
			k++;
		}
		pm__buf_free(&nb);
	}
	*out = tp;
	*n = k;
	return rc;
}

static int feat_tracing_data(pm_writer *w, struct pm__buf *b)
{
	static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char root[PATH_MAX_TRACEFS], path[PATH_MAX_TRACEFS + 600];
	struct w_tp *tp = NULL;
	size_t ntp = 0, nsys = 0;
	bool be = w->be, any = false;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t hdr[2];
	int rc;

	for (size_t i = 0; i < w->nr_attrs; i++)
		any |= w->attrs[i].attr.type == PM_TYPE_TRACEPOINT;
	if (!any)
		return 1;
	if (w->tracefs) {
		snprintf(root, sizeof(root), "%s", w->tracefs);
	} else if (pm__tracefs_root(NULL, root, sizeof(root))) {
		return pm__err(ENOENT, "tracing data: no tracefs at %s", root);
	}
	rc = trace_events(w, root, &tp, &ntp);
	if (!rc)
		rc = pm__buf_append(b, magic, sizeof(magic));
	if (!rc)
		rc = pm__buf_append(b, "0.6", 4);
	hdr[0] = be ? 1 : 0;
	hdr[1] = (uint8_t)sizeof(long);
	if (!rc)
		rc = pm__buf_append(b, hdr, 2);
	if (!rc)
		rc = feat_u32(b, (uint32_t)(page > 0 ? page : 4096), be);
	if (!rc)
		rc = pm__buf_append(b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if (!rc)
		rc = trace_file(b, path, true, be);
	if (!rc)
		rc = pm__buf_append(b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	if (!rc)
		rc = trace_file(b, path, true, be);
	/* ftrace's own events, then the other systems in order of first use */
	{
		uint32_t nft = 0;

		for (size_t i = 0; i < ntp; i++)
			nft += !strcmp(tp[i].sys, "ftrace");
		if (!rc)
			rc = feat_u32(b, nft, be);
		for (size_t i = 0; !rc && i < ntp; i++) {
			if (strcmp(tp[i].sys, "ftrace"))
				continue;
			snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", root, tp[i].name);
			rc = trace_file(b, path, true, be);
		}
	}
	for (size_t i = 0; i < ntp; i++) {
		bool seen = !strcmp(tp[i].sys, "ftrace");

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(tp[j].sys, tp[i].sys);
		nsys += !seen;
	}
	if (!rc)
		rc = feat_u32(b, (uint32_t)nsys, be);
	for (size_t i = 0; !rc && i < ntp; i++) {
		bool seen = !strcmp(tp[i].sys, "ftrace");
		uint32_t cnt = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(tp[j].sys, tp[i].sys);
		if (seen)
			continue;
		for (size_t j = i; j < ntp; j++)
			cnt += !strcmp(tp[j].sys, tp[i].sys);
		rc = pm__buf_append(b, tp[i].sys, strlen(tp[i].sys) + 1);
		if (!rc)
			rc = feat_u32(b, cnt, be);
		for (size_t j = i; !rc && j < ntp; j++) {
			if (strcmp(tp[j].sys, tp[i].sys))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, tp[j].sys,
				 tp[j].name);
			rc = trace_file(b, path, true, be);
		}
	}
	if (!rc)
		rc = feat_u32(b, 0, be); /* kallsyms: none */
	if (!rc) {
		size_t mark = b->len;

		snprintf(path, sizeof(path), "%s/printk_formats", root);
		if (trace_file(b, path, false, be)) {
			b->len = mark; /* unreadable: none */
			rc = feat_u32(b, 0, be);
		}
	}
	if (!rc)
		rc = feat_u64(b, 0, be); /* saved cmdlines: none */
	for (size_t i = 0; i < ntp; i++) {
		free(tp[i].sys);
		free(tp[i].name);
	}
	free(tp);
	return rc;
}

/* Build feature `id`'s payload into b.  Returns 0, 1 (skip), or -errno. */
static int feat_build(pm_writer *w, int id, struct pm__buf *b)
{
	struct utsname u;
	char s[512];
	bool be = w->be;
	int rc = 0;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	switch (id) {
	case W_FEAT_TRACING_DATA:
		return feat_tracing_data(w, b);
	case W_FEAT_HOSTNAME:
		return feat_string(b, u.nodename, be);
	case W_FEAT_OSRELEASE:
		return feat_string(b, u.release, be);
	case W_FEAT_VERSION:
		return feat_string(b, PM_VERSION_STRING, be);
	case W_FEAT_ARCH:
		return feat_string(b, u.machine, be);
	case W_FEAT_NRCPUS: {
		long conf = sysconf(_SC_NPROCESSORS_CONF), onl = sysconf(_SC_NPROCESSORS_ONLN);

		rc = feat_u32(b, (uint32_t)(conf > 0 ? conf : 1), be); /* available */
		return rc ? rc : feat_u32(b, (uint32_t)(onl > 0 ? onl : 1), be); /* online */
	}
	case W_FEAT_CPUDESC:
		cpu_desc(s, sizeof(s), u.machine);
		return feat_string(b, s, be);
	case W_FEAT_CMDLINE: {
		char exe[512];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = 0;
		rc = feat_u32(b, (uint32_t)w->argc + 1, be);
		if (!rc)
			rc = feat_string(b, exe, be);
		for (int i = 0; !rc && i < w->argc; i++)
			rc = feat_string(b, w->argv[i], be);
		return rc;
	}
	case W_FEAT_EVENT_DESC: {
		uint8_t ab[PM_ATTR_SIZE_KNOWN];

		rc = feat_u32(b, (uint32_t)w->nr_attrs, be);
		if (!rc)
			rc = feat_u32(b, w->attr_sz, be);
		for (size_t i = 0; !rc && i < w->nr_attrs; i++) {
			const struct w_attr *a = &w->attrs[i];

			rc = attr_bytes(w, &a->attr, ab);
			if (!rc)
				rc = pm__buf_append(b, ab, w->attr_sz);
			if (!rc)
				rc = feat_u32(b, (uint32_t)a->nr_ids, be);
			if (!rc)
				rc = feat_string(b, a->name, be);
			for (size_t k = 0; !rc && k < a->nr_ids; k++)
				rc = feat_u64(b, a->ids[k], be);
		}
		return rc;
	}
	case W_FEAT_PMU_MAPPINGS:
		return feat_pmu_mappings(b, be);
	default:
		return 1;
	}
}

static const int w_features[] = { W_FEAT_TRACING_DATA, W_FEAT_HOSTNAME, W_FEAT_OSRELEASE, W_FEAT_VERSION,
				   W_FEAT_ARCH,     W_FEAT_NRCPUS,    W_FEAT_CPUDESC,
				   W_FEAT_CMDLINE,  W_FEAT_EVENT_DESC, W_FEAT_PMU_MAPPINGS };

/* ----------------------------------------------------------------- begin */

static size_t trailer_size(const struct pm_attr *a)
{
	size_t n = 0;

	if (!(a->flags & PM_ATTR_SAMPLE_ID_ALL))
		return 0;
	if (a->sample_type & PM_SAMPLE_TID)
		n += 8;
	if (a->sample_type & PM_SAMPLE_TIME)
		n += 8;
	if (a->sample_type & PM_SAMPLE_ID)
		n += 8;
	if (a->sample_type & PM_SAMPLE_STREAM_ID)
		n += 8;
	if (a->sample_type & PM_SAMPLE_CPU)
		n += 8;
	if (a->sample_type & PM_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

int pm_writer_begin(pm_writer *w)
{
	uint8_t h[W_HEADER_SIZE], ab[PM_ATTR_SIZE_KNOWN];
	uint64_t off;
	int rc;

	if (!w)
		return pm__err(EINVAL, "pm_writer_begin: NULL writer");
	if (w->begun)
		return pm__err(EBUSY, "pm_writer_begin: already begun");
	if (!w->nr_attrs)
		return pm__err(EINVAL, "pm_writer_begin: no attrs");
	w->attr_sz = PM_ATTR_SIZE_VER7;
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.config3)
			w->attr_sz = PM_ATTR_SIZE_VER8;
	w->trailer_size = trailer_size(&w->attrs[0].attr);

	if (w->pipe) {
		uint8_t ph[W_PIPE_HEADER_SIZE];

		pm__st64(ph, W_MAGIC, w->be);
		pm__st64(ph + 8, W_PIPE_HEADER_SIZE, w->be);
		rc = w_write_all(w, ph, sizeof(ph));
		if (rc)
			return w->err = rc;
		w->begun = true;
		for (size_t i = 0; i < w->nr_attrs; i++) {
			const struct w_attr *a = &w->attrs[i];
			size_t sz = 8 + w->attr_sz + 8 * a->nr_ids;
			uint8_t hdr[8];

			if (sz > 65535)
				return pm__err(PM_ERR_RANGE, "too many ids for a HEADER_ATTR record");
			pm__st32(hdr, W_REC_HEADER_ATTR, w->be);
			pm__st16(hdr + 4, 0, w->be);
			pm__st16(hdr + 6, (uint16_t)sz, w->be);
			rc = attr_bytes(w, &a->attr, ab);
			if (!rc)
				rc = w_append(w, hdr, 8);
			if (!rc)
				rc = w_append(w, ab, w->attr_sz);
			for (size_t k = 0; !rc && k < a->nr_ids; k++) {
				uint8_t x[8];

				pm__st64(x, a->ids[k], w->be);
				rc = w_append(w, x, 8);
			}
			if (rc)
				return rc;
		}
		for (size_t f = 0; !w->no_features && f < PM_ARRAY_SIZE(w_features); f++) {
			struct pm__buf b = { 0 };
			uint8_t hdr[16];

			if (w_features[f] == W_FEAT_EVENT_DESC || w_features[f] == W_FEAT_PMU_MAPPINGS ||
			    w_features[f] == W_FEAT_TRACING_DATA)
				continue; /* pipe readers take names from the attrs */
			rc = feat_build(w, w_features[f], &b);
			while (rc == 0 && (b.len & 7)) /* records are 8-byte multiples */
				rc = pm__buf_append(&b, "", 1);
			if (rc == 0 && b.len + 16 <= 65535) {
				pm__st32(hdr, W_REC_HEADER_FEATURE, w->be);
				pm__st16(hdr + 4, 0, w->be);
				pm__st16(hdr + 6, (uint16_t)(b.len + 16), w->be);
				pm__st64(hdr + 8, (uint64_t)w_features[f], w->be);
				rc = w_append(w, hdr, 16);
				if (!rc)
					rc = w_append(w, b.data, b.len);
			}
			pm__buf_free(&b);
			if (rc < 0)
				return rc;
		}
		return 0;
	}

	/* File mode: ids arrays, then the attr section, then data. */
	off = W_HEADER_SIZE;
	for (size_t i = 0; i < w->nr_attrs; i++)
		off += 8 * w->attrs[i].nr_ids;
	w->data_offset = off + (uint64_t)w->nr_attrs * (w->attr_sz + 16);
	w_header(w, h, 0, NULL);
	rc = w_write_all(w, h, sizeof(h));
	for (size_t i = 0; !rc && i < w->nr_attrs; i++)
		for (size_t k = 0; !rc && k < w->attrs[i].nr_ids; k++) {
			uint8_t x[8];

			pm__st64(x, w->attrs[i].ids[k], w->be);
			rc = w_write_all(w, x, 8);
		}
	off = W_HEADER_SIZE;
	for (size_t i = 0; !rc && i < w->nr_attrs; i++) {
		const struct w_attr *a = &w->attrs[i];
		uint8_t sec[16];

		rc = attr_bytes(w, &a->attr, ab);
		if (!rc)
			rc = w_write_all(w, ab, w->attr_sz);
		pm__st64(sec, a->nr_ids ? off : 0, w->be);
		pm__st64(sec + 8, 8 * a->nr_ids, w->be);
		if (!rc)
			rc = w_write_all(w, sec, 16);
		off += 8 * a->nr_ids;
	}
	if (rc)
		return w->err = rc;
	w->begun = true;
	return 0;
}

/* --------------------------------------------------------------- records */

int pm_writer_write(pm_writer *w, const void *rec, size_t size)
{
	int rc;

	if (!w || !rec || size < 8 || size > 65535 ||
	    pm__ld16((const uint8_t *)rec + 6, w ? w->be : 0) != size)
		return pm__err(EINVAL, "pm_writer_write: bad record (size %zu)", size);
	if (!w->begun || w->finished)
		return pm__err(EINVAL, "pm_writer_write: not between begin and finish");
	rc = w_append(w, rec, size);
	if (rc)
		return rc;
	w->records++;
	w->bytes += size;
	if (pm__ld32(rec, w->be) == W_REC_SAMPLE)
		w->samples++;
	return 0;
}

int pm_writer_ring_cb(const void *rec, size_t size, void *user)
{
	return pm_writer_write(user, rec, size);
}

int pm_writer_finished_round(pm_writer *w)
{
	uint8_t r[8];

	if (!w || !w->begun || w->finished)
		return pm__err(EINVAL, "pm_writer_finished_round: not writing");
	pm__st32(r, W_REC_FINISHED_ROUND, w->be);
	pm__st16(r + 4, 0, w->be);
	pm__st16(r + 6, 8, w->be);
	return w_append(w, r, 8);
}

/* Append the sample_id_all trailer matching attr 0. */
static int w_trailer(pm_writer *w, uint8_t *p, int pid, int tid)
{
	const struct w_attr *a = &w->attrs[0];
	uint64_t st = a->attr.sample_type, id = a->nr_ids ? a->ids[0] : 0;
	size_t o = 0;

	if (!(a->attr.flags & PM_ATTR_SAMPLE_ID_ALL))
		return 0;
	if (st & PM_SAMPLE_TID) {
		pm__st32(p + o, (uint32_t)pid, w->be);
		pm__st32(p + o + 4, (uint32_t)tid, w->be);
		o += 8;
	}
	if (st & PM_SAMPLE_TIME) {
		pm__st64(p + o, 0, w->be);
		o += 8;
	}
	if (st & PM_SAMPLE_ID) {
		pm__st64(p + o, id, w->be);
		o += 8;
	}
	if (st & PM_SAMPLE_STREAM_ID) {
		pm__st64(p + o, id, w->be);
		o += 8;
	}
	if (st & PM_SAMPLE_CPU) {
		pm__st64(p + o, 0, w->be);
		o += 8;
	}
	if (st & PM_SAMPLE_IDENTIFIER) {
		pm__st64(p + o, id, w->be);
		o += 8;
	}
	return (int)o;
}

static int w_comm(pm_writer *w, int pid, int tid, const char *comm)
{
	uint8_t r[128];
	size_t n = strlen(comm) + 1, o;

	if (n > 32)
		n = 32;
	memset(r, 0, sizeof(r));
	o = 16 + ((n + 7) & ~(size_t)7);
	pm__st32(r, W_REC_COMM, w->be);
	pm__st16(r + 4, W_MISC_USER, w->be);
	pm__st32(r + 8, (uint32_t)pid, w->be);
	pm__st32(r + 12, (uint32_t)tid, w->be);
	memcpy(r + 16, comm, n - 1);
	o += (size_t)w_trailer(w, r + o, pid, tid);
	pm__st16(r + 6, (uint16_t)o, w->be);
	return pm_writer_write(w, r, o);
}

static int w_mmap2(pm_writer *w, int pid, const char *line)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8], path[4096];
	uint8_t r[4096 + 256];
	size_t n, o;
	uint32_t prot = 0;
	int k;

	path[0] = 0;
	k = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, path);
	if (k < 7)
		return 0;
	if (strlen(perms) < 4 || perms[2] != 'x')
		return 0; /* only code needs symbols */
	{
		char *p = path;

		while (*p == ' ')
			p++;
		memmove(path, p, strlen(p) + 1);
	}
	if (!path[0])
		snprintf(path, sizeof(path), "//anon");
	if (perms[0] == 'r')
		prot |= 1;
	if (perms[1] == 'w')
		prot |= 2;
	prot |= 4;
	n = strlen(path) + 1;
	memset(r, 0, 80 + ((n + 7) & ~(size_t)7) + 64);
	o = 72 + ((n + 7) & ~(size_t)7);
	pm__st32(r, W_REC_MMAP2, w->be);
	pm__st16(r + 4, W_MISC_USER, w->be);
	pm__st32(r + 8, (uint32_t)pid, w->be);
	pm__st32(r + 12, (uint32_t)pid, w->be);
	pm__st64(r + 16, start, w->be);
	pm__st64(r + 24, end - start, w->be);
	pm__st64(r + 32, pgoff, w->be);
	pm__st32(r + 40, maj, w->be);
	pm__st32(r + 44, min, w->be);
	pm__st64(r + 48, ino, w->be);
	pm__st64(r + 56, 0, w->be);
	pm__st32(r + 64, prot, w->be);
	pm__st32(r + 68, perms[3] == 's' ? 1 : 2, w->be); /* MAP_SHARED / MAP_PRIVATE */
	memcpy(r + 72, path, n);
	o += (size_t)w_trailer(w, r + o, pid, pid);
	pm__st16(r + 6, (uint16_t)o, w->be);
	k = pm_writer_write(w, r, o);
	return k < 0 ? k : 1;
}

int pm_writer_synthesize(pm_writer *w, int pid)
{
	char path[128], line[4096 + 256];
	DIR *d;
	struct dirent *de;
	FILE *f;
	int n = 0, rc;

	if (!w || pid <= 0)
		return pm__err(EINVAL, "pm_writer_synthesize: bad arguments");
	if (!w->begun || w->finished)
		return pm__err(EINVAL, "pm_writer_synthesize: not writing");
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return pm__err(errno == ENOENT ? ESRCH : errno, "process %d: %s", pid,
			       strerror(errno));
	while ((de = readdir(d))) {
		char *comm = NULL;
		size_t len;
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
		if (pm__read_small_file(path, 256, &comm, &len))
			continue;
		comm[strcspn(comm, "\n")] = 0;
		rc = w_comm(w, pid, tid, comm);
		free(comm);
		if (rc) {
			closedir(d);
			return rc;
		}
		n++;
	}
	closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return pm__err(errno == ENOENT ? ESRCH : errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		rc = w_mmap2(w, pid, line);
		if (rc < 0) {
			fclose(f);
			return rc;
		}
		n += rc;
	}
	fclose(f);
	return n;
}

int pm_writer_sync(pm_writer *w)
{
	if (!w)
		return pm__err(EINVAL, "pm_writer_sync: NULL writer");
	if (!w->begun)
		return 0;
	if (w->buf_len)
		return w_flush(w);
	if (!w->pipe && !w->finished && !w->err) {
		uint8_t h[W_HEADER_SIZE];

		w_header(w, h, w->data_flushed, NULL);
		return w_pwrite_all(w, h, sizeof(h), 0);
	}
	return w->err;
}

int pm_writer_finish(pm_writer *w)
{
	uint8_t h[W_HEADER_SIZE], bits[32];
	struct pm__buf table = { 0 }, payload = { 0 };
	uint64_t feat_off, off;
	size_t nfeat = 0;
	int rc;

	if (!w)
		return pm__err(EINVAL, "pm_writer_finish: NULL writer");
	if (!w->begun)
		return pm__err(EINVAL, "pm_writer_finish: not begun");
	if (w->finished)
		return w->err;
	rc = w_flush(w);
	w->finished = true;
	if (rc || w->pipe)
		return rc;
	memset(bits, 0, sizeof(bits));
	feat_off = w->data_offset + w->data_flushed;
	if (!w->no_features) {
		struct pm__buf parts[PM_ARRAY_SIZE(w_features)];
		bool have[PM_ARRAY_SIZE(w_features)];

		memset(parts, 0, sizeof(parts));
		for (size_t i = 0; i < PM_ARRAY_SIZE(w_features); i++) {
			int fr = feat_build(w, w_features[i], &parts[i]);

			if (fr < 0)
				pm__log(PM_LOG_WARN, "perf.data feature %d not written: %s",
					w_features[i], pm_errmsg());
			have[i] = fr == 0;
			nfeat += have[i];
		}
		off = feat_off + 16 * nfeat;
		for (size_t i = 0; i < PM_ARRAY_SIZE(w_features); i++) {
			if (!have[i])
				continue;
			/* The 64-bit bitmap words in host order. */
			{
				int id = w_features[i];
				uint64_t word = pm__ld64(bits + 8 * (id / 64), w->be);

				word |= 1ULL << (id % 64);
				pm__st64(bits + 8 * (id / 64), word, w->be);
			}
			rc = rc ? rc : feat_u64(&table, off, w->be);
			rc = rc ? rc : feat_u64(&table, parts[i].len, w->be);
			if (!rc && parts[i].len)
				rc = pm__buf_append(&payload, parts[i].data, parts[i].len);
			off += parts[i].len;
		}
		for (size_t i = 0; i < PM_ARRAY_SIZE(w_features); i++)
			pm__buf_free(&parts[i]);
		if (rc)
			goto out;
		rc = w_pwrite_all(w, table.data, table.len, feat_off);
		if (!rc && payload.len)
			rc = w_pwrite_all(w, payload.data, payload.len, feat_off + table.len);
		if (rc)
			goto out;
	}
	w_header(w, h, w->data_flushed, bits);
	rc = w_pwrite_all(w, h, sizeof(h), 0);
	if (!rc && fsync(w->fd) && errno != EINVAL && errno != EROFS)
		rc = pm__err(errno, "fsync of perf.data: %s", strerror(errno));
out:
	pm__buf_free(&table);
	pm__buf_free(&payload);
	if (rc && !w->err)
		w->err = rc;
	return rc;
}

void pm_writer_counts(const pm_writer *w, uint64_t *records, uint64_t *samples, uint64_t *bytes)
{
	if (records)
		*records = w ? w->records : 0;
	if (samples)
		*samples = w ? w->samples : 0;
	if (bytes)
		*bytes = w ? w->bytes : 0;
}

void pm_writer_close(pm_writer *w)
{
	if (!w)
		return;
	if (w->begun && !w->finished)
		pm_writer_finish(w);
	if (w->own_fd)
		close(w->fd);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (int i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->buf);
	free(w->tracefs);
	free(w);
}
