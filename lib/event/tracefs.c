/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * tracefs lookups for tracepoint events: where tracefs is, and the id of
 * <tracefs>/events/<sys>/<event>/id.
 *
 * The root: $PROFILEME_TRACEFS when set; otherwise <sysfs>/kernel/tracing,
 * then <sysfs>/kernel/debug/tracing, <sysfs> being the root the PMUs were
 * scanned from ("/sys" by default), so fixture trees carry their own tracefs.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "event_int.h"

static bool has_events_dir(const char *root)
{
	char path[PATH_MAX_TRACEFS + 16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", root);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int pm__tracefs_root(const char *sysfs_root, char *buf, size_t cap)
{
	static const char *const sub[] = { "/kernel/tracing", "/kernel/debug/tracing" };
	const char *env = getenv("PROFILEME_TRACEFS");
	char cand[PATH_MAX_TRACEFS];

	if (!buf || cap == 0)
		return -EINVAL;
	buf[0] = 0;
	if (env && *env) {
		if (strlen(env) >= cap || strlen(env) >= sizeof(cand))
			return -ENAMETOOLONG;
		snprintf(buf, cap, "%s", env);
		return has_events_dir(buf) ? 0 : -ENOENT;
	}
	if (!sysfs_root || !*sysfs_root)
		sysfs_root = "/sys";
	for (size_t i = 0; i < PM_ARRAY_SIZE(sub); i++) {
		int n = snprintf(cand, sizeof(cand), "%s%s", sysfs_root, sub[i]);

		if (n < 0 || (size_t)n >= sizeof(cand) || (size_t)n >= cap)
			return -ENAMETOOLONG;
		if (i == 0)
			snprintf(buf, cap, "%s", cand); /* named in messages when none exists */
		if (has_events_dir(cand)) {
			snprintf(buf, cap, "%s", cand);
			return 0;
		}
	}
	return -ENOENT;
}

/* A name component of events/: no '/', not "." or "..", not empty. */
static bool safe_component(const char *s, size_t n)
{
	if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	return memchr(s, '/', n) == NULL && memchr(s, 0, n) == NULL;
}

int pm__tracepoint_id(const char *tracefs, const char *sys, size_t slen, const char *ev,
		      size_t elen, uint64_t *id)
{
	char path[PATH_MAX_TRACEFS + 512];
	char *text = NULL;
	size_t len = 0, k = 0;
	uint64_t v = 0;
	int n, rc;

	if (!safe_component(sys, slen) || !safe_component(ev, elen))
		return -ENOENT;
	n = snprintf(path, sizeof(path), "%s/events/%.*s/%.*s/id", tracefs, (int)slen, sys,
		     (int)elen, ev);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	rc = pm__read_small_file(path, 64, &text, &len);
	if (rc)
		return rc;
	while (k < len && text[k] >= '0' && text[k] <= '9') {
		if (v > (UINT64_MAX - 9) / 10) {
			free(text);
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(text[k] - '0');
		k++;
	}
	rc = 0;
	if (k == 0)
		rc = -EINVAL;
	while (!rc && k < len && (text[k] == '\n' || text[k] == ' '))
		k++;
	if (!rc && k != len)
		rc = -EINVAL;
	free(text);
	if (!rc)
		*id = v;
	return rc;
}

int pm__tracepoint_find(const char *tracefs, uint64_t id, struct pm__buf *out)
{
	char path[PATH_MAX_TRACEFS + 16];
	struct dirent *sd;
	DIR *d;
	int rc = -ENOENT;

	snprintf(path, sizeof(path), "%s/events", tracefs);
	d = opendir(path);
	if (!d)
		return -errno;
	while (rc == -ENOENT && (sd = readdir(d))) {
		char sub[PATH_MAX_TRACEFS + 300];
		struct dirent *ed;
		DIR *e;

		if (sd->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, sd->d_name);
		e = opendir(sub);
		if (!e)
			continue;
		while ((ed = readdir(e))) {
			uint64_t v;

			if (ed->d_name[0] == '.')
				continue;
			if (pm__tracepoint_id(tracefs, sd->d_name, strlen(sd->d_name), ed->d_name,
					      strlen(ed->d_name), &v) == 0 && v == id) {
				rc = pm__buf_printf(out, "%s:%s", sd->d_name, ed->d_name) < 0 ?
					     -ENOMEM : 0;
				break;
			}
		}
		closedir(e);
	}
	closedir(d);
	return rc;
}

int pm__tracepoint_glob(const char *tracefs, const char *sys_pat, const char *ev_pat,
			uint64_t **ids, size_t *n)
{
	char path[PATH_MAX_TRACEFS], sub[PATH_MAX_TRACEFS];
	struct dirent *sd, *ed;
	DIR *d, *e;
	size_t cap = 0;
	int rc = 0;

	*ids = NULL;
	*n = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/events", tracefs) >= sizeof(path))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	/* directory order, as perf walks it */
	while (!rc && (sd = readdir(d))) {
		if (sd->d_name[0] == '.' || !strcmp(sd->d_name, "enable") ||
		    !strcmp(sd->d_name, "header_page") || !strcmp(sd->d_name, "header_event") ||
		    fnmatch(sys_pat, sd->d_name, 0))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, sd->d_name) >= sizeof(sub))
			continue;
		e = opendir(sub);
		if (!e)
			continue;
		while (!rc && (ed = readdir(e))) {
			uint64_t id;

			if (ed->d_name[0] == '.' || !strcmp(ed->d_name, "enable") ||
			    !strcmp(ed->d_name, "filter") || fnmatch(ev_pat, ed->d_name, 0))
				continue;
			if (pm__tracepoint_id(tracefs, sd->d_name, strlen(sd->d_name), ed->d_name,
					      strlen(ed->d_name), &id))
				continue; /* not an event directory, or no readable id */
			if (*n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				uint64_t *ni = pm__reallocarray(*ids, ncap, sizeof(*ni));

				if (!ni) {
					rc = -ENOMEM;
					break;
				}
				*ids = ni;
				cap = ncap;
			}
			(*ids)[(*n)++] = id;
		}
		closedir(e);
	}
	closedir(d);
	if (rc) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return rc;
}
