/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/fmt.h
 * @brief Decimal and hex digits written straight into a buffer, without
 *        printf: the formatters of the library's JSON writer and of the
 *        `profileme` tool's text output (one implementation for both).
 *
 * Every function here is `static inline` (compiled into the caller: a
 * number per call is too small a piece of work for a call into the shared
 * library) and writes no NUL; the caller makes room first (at most 20
 * bytes for a decimal, 16 for hex).  Numbers are formatted eight digits at
 * a time in 32-bit arithmetic and two digits per table load, so that the
 * digits of a 64-bit time stamp do not wait on one long chain of
 * 64-bit divisions.
 */
#ifndef PROFILEME_FMT_H
#define PROFILEME_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief **pm_fmt_dec_len()**: how many decimal digits v has (1 for 0).
 * @param v  the number
 * @return 1 to 20.
 * @since 0.1
 */
static inline unsigned pm_fmt_dec_len(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned bits, t;

#if defined(__GNUC__) || defined(__clang__)
	bits = 64u - (unsigned)__builtin_clzll(v | 1);
#else
	uint64_t x = v | 1;

	for (bits = 0; x; x >>= 1)
		bits++;
#endif
	/* floor(log10(2^bits)) estimates the digits - 1; 1233 / 4096 ~ log10(2) */
	t = (bits * 1233u) >> 12;
	return t + ((v | 1) >= p10[t] ? 1u : 0u);
}

/**
 * @brief **pm_fmt_dec_fixed()**: exactly @p n decimal digits of @p v, leading
 *        zeros included (a fraction such as the microseconds of a time).
 * @param out  where the digits go (@p n bytes; no NUL)
 * @param v    the number; only its last @p n digits are written
 * @param n    how many digits (0 to 20)
 * @since 0.1
 */
static inline void pm_fmt_dec_fixed(char *out, uint64_t v, unsigned n)
{
	static const char d2[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char *e = out + n;
	uint32_t u;

	while (n > 8) {
		/* eight digits of the low part, four pairs computed side by side */
		uint64_t q = v / 100000000u;
		uint32_t r = (uint32_t)(v - q * 100000000u), hi = r / 10000u, lo = r - hi * 10000u;
		uint32_t a = hi / 100u, b = hi - a * 100u, c = lo / 100u, d = lo - c * 100u;

		e -= 8;
		memcpy(e, d2 + 2 * a, 2);
		memcpy(e + 2, d2 + 2 * b, 2);
		memcpy(e + 4, d2 + 2 * c, 2);
		memcpy(e + 6, d2 + 2 * d, 2);
		v = q;
		n -= 8;
	}
	u = (uint32_t)(v % 100000000u);
	if (n > 4) {
		/* the last four digits and the rest side by side */
		uint32_t hi = u / 10000u, lo = u - hi * 10000u, c = lo / 100u;

		e -= 4;
		memcpy(e, d2 + 2 * c, 2);
		memcpy(e + 2, d2 + 2 * (lo - c * 100u), 2);
		u = hi;
		n -= 4;
	}
	if (n > 2) {
		uint32_t q = u / 100u;

		e -= 2;
		memcpy(e, d2 + 2 * (u - q * 100u), 2);
		u = q;
		n -= 2;
	}
	if (n == 2)
		memcpy(e - 2, d2 + 2 * (u % 100u), 2);
	else if (n == 1)
		*--e = (char)('0' + u % 10u);
}

/**
 * @brief **pm_fmt_dec()**: the decimal digits of @p v (no sign, no leading
 *        zeros; "0" for 0).
 * @param out  where the digits go (pm_fmt_dec_len(v) bytes, at most 20; no NUL)
 * @param v    the number
 * @return how many bytes were written.
 * @since 0.1
 */
static inline unsigned pm_fmt_dec(char *out, uint64_t v)
{
	unsigned n = pm_fmt_dec_len(v);

	pm_fmt_dec_fixed(out, v, n);
	return n;
}

/**
 * @brief **pm_fmt_hex_len()**: how many hex digits @p v has (1 for 0).
 * @param v  the number
 * @return 1 to 16.
 * @since 0.1
 */
static inline unsigned pm_fmt_hex_len(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
	return (67u - (unsigned)__builtin_clzll(v | 1)) / 4u;
#else
	unsigned n = 1;

	while (n < 16 && (v >> (4 * n)))
		n++;
	return n;
#endif
}

/**
 * @brief **pm_fmt_hex()**: the lower-case hex digits of @p v (no "0x", no
 *        leading zeros; "0" for 0).
 * @param out  where the digits go (pm_fmt_hex_len(v) bytes, at most 16; no NUL)
 * @param v    the number
 * @return how many bytes were written.
 * @since 0.1
 */
static inline unsigned pm_fmt_hex(char *out, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	unsigned n = pm_fmt_hex_len(v);
	char *e = out + n;

	/* the digits depend on v only, not on one another */
	for (unsigned i = 0; i < n; i++)
		*--e = hx[(v >> (4 * i)) & 15];
	return n;
}

/**
 * @brief **pm_fmt_copy()**: @p n bytes from @p src to @p out (not
 *        overlapping), a short copy (a key, a name) done as one or two
 *        fixed-size moves instead of a call into the C library.
 * @param out  destination (@p n bytes)
 * @param src  source (@p n bytes)
 * @param n    how many bytes
 * @since 0.1
 */
static inline void pm_fmt_copy(char *out, const void *src, size_t n)
{
	const char *s = (const char *)src;

	if (n > 16) {
		memcpy(out, s, n);
	} else if (n >= 8) {
		memcpy(out, s, 8);
		memcpy(out + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(out, s, 4);
		memcpy(out + n - 4, s + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			out[i] = s[i];
	}
}

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_FMT_H */
