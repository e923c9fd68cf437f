/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal helpers shared by the modules.  Never installed. */
#ifndef PM_INTERNAL_H
#define PM_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <profileme/common.h>

#define PM_HIDDEN __attribute__((visibility("hidden")))
#define PM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PM_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Record a detailed message for pm_errmsg() and return -code (code > 0). */
PM_HIDDEN int pm__err(int code, const char *fmt, ...) PM_PRINTF(2, 3);
/* Clear the thread's message. */
PM_HIDDEN void pm__err_clear(void);
/* Deliver a message to the installed log callback, if any. */
PM_HIDDEN void pm__log(int level, const char *fmt, ...) PM_PRINTF(2, 3);
#define pm__warn(...) pm__log(PM_LOG_WARN, __VA_ARGS__)
#define pm__info(...) pm__log(PM_LOG_INFO, __VA_ARGS__)
#define pm__debug(...) pm__log(PM_LOG_DEBUG, __VA_ARGS__)

/* Host byte order. */
static inline bool pm__host_big_endian(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return true;
#else
	return false;
#endif
}

/* Unaligned loads from bytes of a given byte order (big_endian = 1: BE).
 * With GCC/clang: one load (memcpy) and a byte swap when the orders differ;
 * otherwise byte by byte. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define PM__SWAP(big_endian) ((big_endian) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
static inline uint16_t pm__ld16(const void *p, bool big_endian)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return PM__SWAP(big_endian) ? __builtin_bswap16(v) : v;
}
static inline uint32_t pm__ld32(const void *p, bool big_endian)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return PM__SWAP(big_endian) ? __builtin_bswap32(v) : v;
}
static inline uint64_t pm__ld64(const void *p, bool big_endian)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return PM__SWAP(big_endian) ? __builtin_bswap64(v) : v;
}
#undef PM__SWAP
#else
static inline uint16_t pm__ld16(const void *p, bool big_endian)
{
	const uint8_t *b = p;
	return big_endian ? (uint16_t)((b[0] << 8) | b[1]) : (uint16_t)((b[1] << 8) | b[0]);
}
static inline uint32_t pm__ld32(const void *p, bool big_endian)
{
	const uint8_t *b = p;
	if (big_endian)
		return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
	return ((uint32_t)b[3] << 24) | ((uint32_t)b[2] << 16) | ((uint32_t)b[1] << 8) | b[0];
}
static inline uint64_t pm__ld64(const void *p, bool big_endian)
{
	const uint8_t *b = p;
	uint64_t hi = pm__ld32(b + (big_endian ? 0 : 4), big_endian);
	uint64_t lo = pm__ld32(b + (big_endian ? 4 : 0), big_endian);
	return (hi << 32) | lo;
}
#endif
static inline void pm__st16(void *p, uint16_t v, bool big_endian)
{
	uint8_t *b = p;
	b[big_endian ? 0 : 1] = (uint8_t)(v >> 8);
	b[big_endian ? 1 : 0] = (uint8_t)v;
}
static inline void pm__st32(void *p, uint32_t v, bool big_endian)
{
	uint8_t *b = p;
	for (int i = 0; i < 4; i++)
		b[big_endian ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}
static inline void pm__st64(void *p, uint64_t v, bool big_endian)
{
	uint8_t *b = p;
	for (int i = 0; i < 8; i++)
		b[big_endian ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Overflow-safe "does [off, off+len) fit in size". */
static inline bool pm__fits(size_t off, size_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/*
 * Size-versioned structs (libbpf's OPTS_VALID / OPTS_GET model, one mechanism
 * for every public struct whose first member is `size_t sz`):
 *   - the caller sets sz; the library accepts any sz in
 *     [PM_<STRUCT>_SZ_V1, PM_STRUCT_SZ_MAX] (V1 is frozen in the public
 *     header, so a struct that grows never rejects an older caller);
 *   - sz larger than the library's sizeof: the unknown tail must be all zero
 *     (input: a request this library cannot honour; output: the caller did not
 *     zero-initialise), else -PM_ERR_STRUCT_SIZE;
 *   - nothing is read or written at or past min(sz, sizeof): options are
 *     copied in with pm__opts_copy_in(), results out with pm__struct_copy_out()
 *     (which never touches the caller's tail, not even to zero it).
 * PM__SZ_VALID() is the check; the common case (sz == sizeof) costs one compare.
 */
PM_HIDDEN bool pm__tail_is_zero(const void *p, size_t known, size_t given);
/* NULL p is fine (defaults).  sz < min, sz > PM_STRUCT_SZ_MAX or a non-zero
 * unknown tail gives -PM_ERR_STRUCT_SIZE with a message naming `what`. */
PM_HIDDEN int pm__struct_check(const void *p, size_t given, size_t min, size_t known,
			       const char *what);
static inline int pm__sz_valid(const void *p, size_t given, size_t min, size_t known,
			       const char *what)
{
	if (given == known || !p)
		return 0;
	return pm__struct_check(p, given, min, known, what);
}
/* PM__SZ_VALID(ptr, pm_sym_opts, PM_SYM_OPTS_SZ_V1): 0 or -PM_ERR_STRUCT_SIZE
 * (NULL ptr: 0). */
#define PM__SZ_VALID(p, type, v1) \
	pm__sz_valid((p), (p) ? (p)->sz : 0, (v1), sizeof(struct type), "struct " #type)
/* OPTS_GET: does the caller's struct (validated) hold `field`? */
#define PM__SZ_HAS(p, type, field) ((p) && (p)->sz >= PM_OFFSETOFEND(struct type, field))
/* Copy a validated caller options struct into the library's own copy `dst`
 * (prefilled with defaults): only min(src_sz, dst_sz) bytes are read; the
 * fields past the caller's sz keep their defaults; dst's sz stays dst_sz. */
PM_HIDDEN void pm__opts_copy_in(void *dst, size_t dst_sz, const void *src, size_t src_sz);
/* Copy a library-filled struct out to a (validated) caller struct of `dst_sz`
 * bytes: min(dst_sz, src_sz) bytes, the caller's sz member preserved, nothing
 * written at or past either size. */
PM_HIDDEN void pm__struct_copy_out(void *dst, size_t dst_sz, const void *src, size_t src_sz);

/* Allocation helpers (NULL on overflow or OOM). */
PM_HIDDEN void *pm__calloc(size_t n, size_t size);
PM_HIDDEN void *pm__reallocarray(void *p, size_t n, size_t size);
PM_HIDDEN char *pm__strndup(const char *s, size_t n);

/* Growable byte buffer. */
struct pm__buf {
	char *data;
	size_t len;
	size_t cap;
};
PM_HIDDEN int pm__buf_reserve(struct pm__buf *b, size_t extra);
PM_HIDDEN int pm__buf_append(struct pm__buf *b, const void *p, size_t n);
PM_HIDDEN int pm__buf_printf(struct pm__buf *b, const char *fmt, ...) PM_PRINTF(2, 3);
PM_HIDDEN void pm__buf_free(struct pm__buf *b);

/* Read a whole small file (e.g. a sysfs file) into a NUL-terminated buffer,
 * refusing files larger than max bytes.  Returns 0 or -errno/-PM_ERR_*. */
PM_HIDDEN int pm__read_small_file(const char *path, size_t max, char **out, size_t *len);

#endif /* PM_INTERNAL_H */
