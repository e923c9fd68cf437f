/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* format/ files: "config[N]:A-B,C,..." and placing values into split fields. */
#include <stdio.h>

#include "pmu/pmu_int.h"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A printable excerpt of untrusted text for messages. */
static void excerpt(char *dst, size_t cap, const char *s, size_t len)
{
	size_t j = 0;

	for (size_t i = 0; i < len && j + 4 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
		if (i == 40 && len > 44) {
			dst[j++] = '.';
			dst[j++] = '.';
			dst[j++] = '.';
			break;
		}
	}
	dst[j] = '\0';
}

/* Read a decimal number of at most 4 digits at text[*i]; -1 when none. */
static long read_num(const char *t, size_t len, size_t *i)
{
	long v = 0;
	size_t start = *i;

	while (*i < len && is_digit(t[*i])) {
		if (*i - start >= 4)
			return -2; /* absurdly long: certainly > 63 */
		v = v * 10 + (t[*i] - '0');
		(*i)++;
	}
	return *i == start ? -1 : v;
}

PM_API int pm_format_parse(const char *text, size_t len, int *word, uint64_t *mask)
{
	char ex[64];
	size_t i = 0, end = len;
	uint64_t m = 0;
	int w;

	if (word)
		*word = 0;
	if (mask)
		*mask = 0;
	if (!text)
		return pm__err(PM_ERR_FORMAT, "format: no text");
	for (size_t k = 0; k < len; k++)
		if (text[k] == '\0')
			return pm__err(PM_ERR_FORMAT, "format: binary content (NUL byte at offset %zu)", k);
	while (i < end && is_space(text[i]))
		i++;
	while (end > i && is_space(text[end - 1]))
		end--;
	excerpt(ex, sizeof(ex), text + i, end - i);
	if (i == end)
		return pm__err(PM_ERR_FORMAT, "format: empty");

	/* The word: "config" followed by nothing, 1, 2 or 3. */
	{
		size_t ws = i;

		while (i < end && text[i] != ':' && !is_space(text[i]) && text[i] != ',')
			i++;
		if (i - ws == 6 && !memcmp(text + ws, "config", 6))
			w = PM_CONFIG;
		else if (i - ws == 7 && !memcmp(text + ws, "config", 6) && text[ws + 6] >= '1' &&
			 text[ws + 6] <= '3')
			w = text[ws + 6] - '0';
		else
			return pm__err(PM_ERR_FORMAT,
				       "format '%s': unknown word '%.*s' (expected config, config1, config2 or config3)",
				       ex, (int)PM_MIN(i - ws, (size_t)32), text + ws);
	}
	if (i >= end || text[i] != ':')
		return pm__err(PM_ERR_FORMAT, "format '%s': expected ':' after the config word", ex);
	i++;

	for (;;) {
		long a, b;
		uint64_t bits;

		a = read_num(text, end, &i);
		if (a == -1)
			return pm__err(PM_ERR_FORMAT, "format '%s': expected a bit number at offset %zu",
				       ex, i);
		b = a;
		if (i < end && text[i] == '-') {
			i++;
			b = read_num(text, end, &i);
			if (b == -1)
				return pm__err(PM_ERR_FORMAT,
					       "format '%s': expected the end of a range at offset %zu", ex, i);
		}
		if (a == -2 || b == -2)
			return pm__err(PM_ERR_FORMAT, "format '%s': bit number too long near offset %zu",
				       ex, i);
		if (a > 63 || b > 63)
			return pm__err(PM_ERR_FORMAT, "format '%s': bit %ld is beyond 63", ex,
				       a > 63 ? a : b);
		if (b < a)
			return pm__err(PM_ERR_FORMAT, "format '%s': range %ld-%ld ends before it starts",
				       ex, a, b);
		bits = (b == 63 ? ~(uint64_t)0 : (((uint64_t)1 << (b + 1)) - 1)) &
		       ~(((uint64_t)1 << a) - 1);
		if (m & bits)
			return pm__err(PM_ERR_FORMAT, "format '%s': bits %ld-%ld overlap earlier bits",
				       ex, a, b);
		m |= bits;
		if (i == end)
			break;
		if (text[i] != ',')
			return pm__err(PM_ERR_FORMAT, "format '%s': unexpected '%c' at offset %zu", ex,
				       (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?', i);
		i++;
	}
	if (word)
		*word = w;
	if (mask)
		*mask = m;
	return 0;
}

PM_API const char *pm_format_name(const pm_format *fmt)
{
	return fmt ? fmt->name : NULL;
}

PM_API const char *pm_format_spec(const pm_format *fmt)
{
	return fmt ? fmt->spec : NULL;
}

PM_API int pm_format_word(const pm_format *fmt)
{
	return fmt ? fmt->word : 0;
}

PM_API uint64_t pm_format_mask(const pm_format *fmt)
{
	return fmt ? fmt->mask : 0;
}

PM_API unsigned pm_format_width(const pm_format *fmt)
{
	return fmt ? fmt->width : 0;
}

PM_API int pm_format_encode(const pm_format *fmt, uint64_t value, uint64_t *bits)
{
	uint64_t max, out = 0;
	unsigned k = 0;

	if (bits)
		*bits = 0;
	if (!fmt || !bits)
		return pm__err(EINVAL, "pm_format_encode: NULL argument");
	max = fmt->width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << fmt->width) - 1);
	if (value > max)
		return pm__err(PM_ERR_RANGE, "format '%s': value 0x%llx too big, maximum is 0x%llx",
			       fmt->name, (unsigned long long)value, (unsigned long long)max);
	for (unsigned b = 0; b < 64; b++) {
		if (!(fmt->mask & ((uint64_t)1 << b)))
			continue;
		if (value & ((uint64_t)1 << k))
			out |= (uint64_t)1 << b;
		k++;
	}
	*bits = out;
	return 0;
}

PM_API uint64_t pm_format_decode(const pm_format *fmt, uint64_t word)
{
	uint64_t v = 0;
	unsigned k = 0;

	if (!fmt)
		return 0;
	for (unsigned b = 0; b < 64; b++) {
		if (!(fmt->mask & ((uint64_t)1 << b)))
			continue;
		if (word & ((uint64_t)1 << b))
			v |= (uint64_t)1 << k;
		k++;
	}
	return v;
}
