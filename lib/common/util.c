/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/pm_internal.h"

bool pm__tail_is_zero(const void *p, size_t known, size_t given)
{
	const unsigned char *b = p;

	for (size_t i = known; i < given; i++)
		if (b[i])
			return false;
	return true;
}

int pm__struct_check(const void *p, size_t given, size_t min, size_t known, const char *what)
{
	if (!p)
		return 0;
	if (given < min)
		return pm__err(PM_ERR_STRUCT_SIZE, "%s: size %zu is smaller than the minimum %zu",
			       what, given, min);
	/* An absurd size (an uninitialised sz, a pointer): not even the tail is
	 * read, so nothing past a stack struct is touched. */
	if (given > PM_STRUCT_SZ_MAX)
		return pm__err(PM_ERR_STRUCT_SIZE,
			       "%s: size %zu is larger than any struct (%zu): sz not set?", what,
			       given, (size_t)PM_STRUCT_SZ_MAX);
	if (given > known && !pm__tail_is_zero(p, known, given))
		return pm__err(PM_ERR_STRUCT_SIZE,
			       "%s: size %zu has non-zero fields this library (knows %zu bytes) cannot honour",
			       what, given, known);
	return 0;
}

void pm__opts_copy_in(void *dst, size_t dst_sz, const void *src, size_t src_sz)
{
	size_t skip = sizeof(size_t);
	size_t n = PM_MIN(dst_sz, src_sz);

	if (n > skip)
		memcpy((char *)dst + skip, (const char *)src + skip, n - skip);
}

void pm__struct_copy_out(void *dst, size_t dst_sz, const void *src, size_t src_sz)
{
	/* The size member is the first member, and stays the caller's.  Past
	 * src_sz the caller's bytes are its own (validated zero): not written. */
	size_t skip = sizeof(size_t);
	size_t n = PM_MIN(dst_sz, src_sz);

	if (n > skip)
		memcpy((char *)dst + skip, (const char *)src + skip, n - skip);
}

void *pm__calloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

void *pm__reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, (n && size) ? n * size : 1);
}

char *pm__strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int pm__buf_reserve(struct pm__buf *b, size_t extra)
{
	size_t need, cap;
	char *d;

	if (extra > SIZE_MAX - b->len - 1)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int pm__buf_append(struct pm__buf *b, const void *p, size_t n)
{
	int err = pm__buf_reserve(b, n);

	if (err)
		return err;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int pm__buf_printf(struct pm__buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	err = pm__buf_reserve(b, (size_t)n);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void pm__buf_free(struct pm__buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int pm__read_small_file(const char *path, size_t max, char **out, size_t *len)
{
	struct pm__buf b = { 0 };
	char chunk[4096];
	int fd, err = 0;

	*out = NULL;
	if (len)
		*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return pm__err(errno, "%s: cannot open: %s", path, pm_strerror(errno));
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = pm__err(errno, "%s: cannot read: %s", path, pm_strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			err = pm__err(EFBIG, "%s: larger than %zu bytes", path, max);
			break;
		}
		err = pm__buf_append(&b, chunk, (size_t)n);
		if (err)
			break;
	}
	close(fd);
	if (err) {
		pm__buf_free(&b);
		return err;
	}
	if (!b.data) {
		b.data = calloc(1, 1);
		if (!b.data)
			return -ENOMEM;
	}
	*out = b.data;
	if (len)
		*len = b.len;
	return 0;
}
