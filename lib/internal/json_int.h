/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The library's one JSON writer (lib/export/json.c): a string escaper and
 * decimal/hex formatters that write into a caller's buffer without printf.
 * Every JSON the library writes (pm_json_*, pm_raw_format_json(),
 * pm_file_tp_format_json()) goes through these.
 */
#ifndef PM_JSON_INT_H
#define PM_JSON_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <profileme/fmt.h>

#include "internal/pm_internal.h"

/* Bytes pm__json_escape() needs at most for n input bytes (quotes included). */
#define PM__JSON_ESC_MAX(n) (6 * (size_t)(n) + 2)

/* An snprintf-like sink: writes what fits in [buf, buf + cap) (no NUL),
 * counts everything in len. */
struct pm__jw {
	char *buf;
	size_t cap;
	size_t len;
};

/* Copy n bytes; the short copies a JSON line is made of (keys, digits)
 * as a few fixed-size moves (the public pm_fmt_copy()). */
#define pm__copy_short pm_fmt_copy

static inline void pm__jw_mem(struct pm__jw *w, const void *p, size_t n)
{
	if (w->len <= w->cap && n <= w->cap - w->len)
		pm__copy_short(w->buf + w->len, p, n);
	else if (w->len < w->cap)
		memcpy(w->buf + w->len, p, w->cap - w->len);
	w->len += n;
}

static inline void pm__jw_ch(struct pm__jw *w, char c)
{
	if (w->len < w->cap)
		w->buf[w->len] = c;
	w->len++;
}

/* Write n bytes at s as a JSON string literal, quotes included (see
 * pm_json_escape() for the rules). */
PM_HIDDEN void pm__jw_str(struct pm__jw *w, const char *s, size_t n);
/* Unsigned and signed decimal, hex "0x..." (unquoted); inline, as a
 * JSON line is mostly numbers. */
static inline void pm__jw_u64(struct pm__jw *w, uint64_t v)
{
	char t[24];

	if (w->len <= w->cap && w->cap - w->len >= 20) {
		/* straight into the sink: digits counted first, so that no
		 * byte is stored twice (a copy of bytes just stored stalls) */
		w->len += pm_fmt_dec(w->buf + w->len, v);
		return;
	}
	pm__jw_mem(w, t, pm_fmt_dec(t, v));
}

static inline void pm__jw_i64(struct pm__jw *w, int64_t v)
{
	if (v < 0) {
		pm__jw_ch(w, '-');
		pm__jw_u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		pm__jw_u64(w, (uint64_t)v);
	}
}

static inline void pm__jw_hex(struct pm__jw *w, uint64_t v)
{
	char t[20] = { '0', 'x' };

	if (w->len <= w->cap && w->cap - w->len >= 18) {
		/* straight into the sink (see pm__jw_u64) */
		w->buf[w->len] = '0';
		w->buf[w->len + 1] = 'x';
		w->len += 2 + pm_fmt_hex(w->buf + w->len + 2, v);
		return;
	}
	pm__jw_mem(w, t, 2 + pm_fmt_hex(t + 2, v));
}
/* NUL-terminate the sink (at len, or at cap - 1 when it did not fit). */
PM_HIDDEN void pm__jw_finish(struct pm__jw *w);

#endif /* PM_JSON_INT_H */
