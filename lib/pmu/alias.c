/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* events/ aliases: term lists, .scale, CPU lists. */
#include <locale.h>
#include <math.h>
#include <stdlib.h>

#include "pmu/pmu_int.h"

static int is_alpha_(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void pm__alias_clear(struct pm_alias *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nterms; i++)
		free(a->terms[i].name);
	free(a->terms);
	free(a->name);
	free(a->text);
	free(a->unit);
	memset(a, 0, sizeof(*a));
}

/* Parse a number (decimal or 0x hex) at t[*i]; 0 or -PM_ERR_FORMAT. */
static int parse_u64(const char *t, size_t *i, uint64_t *out)
{
	uint64_t v = 0;
	size_t s;

	if (t[*i] == '0' && (t[*i + 1] == 'x' || t[*i + 1] == 'X')) {
		*i += 2;
		s = *i;
		while (hexval(t[*i]) >= 0) {
			if (v >> 60)
				return -PM_ERR_RANGE;
			v = (v << 4) | (uint64_t)hexval(t[*i]);
			(*i)++;
		}
	} else {
		s = *i;
		while (is_digit(t[*i])) {
			unsigned d = (unsigned)(t[*i] - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -PM_ERR_RANGE;
			v = v * 10 + d;
			(*i)++;
		}
	}
	if (*i == s)
		return -PM_ERR_FORMAT;
	*out = v;
	return 0;
}

int pm__alias_parse_terms(struct pm_alias *a, const char *text)
{
	size_t i = 0, cap = 0;

	if (!*text)
		return pm__err(PM_ERR_FORMAT, "empty term list");
	for (;;) {
		struct pm_alias_term term = { 0 };
		size_t ns = i, nlen;
		int err;

		if (!is_alpha_(text[i]))
			return pm__err(PM_ERR_FORMAT, "expected a term name at column %zu", i + 1);
		while (is_alpha_(text[i]) || is_digit(text[i]) || text[i] == '-' || text[i] == '.')
			i++;
		nlen = i - ns;
		if (text[i] == '=') {
			size_t vs = ++i;

			if (text[i] == '?') {
				term.is_param = 1;
				i++;
			} else {
				err = parse_u64(text, &i, &term.value);
				if (err == -PM_ERR_RANGE)
					return pm__err(PM_ERR_FORMAT,
						       "value of term '%.*s' at column %zu does not fit in 64 bits",
						       (int)PM_MIN(nlen, (size_t)64), text + ns, vs + 1);
				if (err)
					return pm__err(PM_ERR_FORMAT,
						       "expected a number or '?' at column %zu", vs + 1);
			}
		} else {
			term.value = 1; /* bare term */
		}
		if (text[i] != ',' && text[i] != '\0')
			return pm__err(PM_ERR_FORMAT, "unexpected character at column %zu", i + 1);
		if (a->nterms == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			struct pm_alias_term *n = pm__reallocarray(a->terms, ncap, sizeof(*n));

			if (!n)
				return -ENOMEM;
			a->terms = n;
			cap = ncap;
		}
		term.name = pm__strndup(text + ns, nlen);
		if (!term.name)
			return -ENOMEM;
		a->terms[a->nterms++] = term;
		if (text[i] == '\0')
			return 0;
		i++; /* ',' */
	}
}

int pm__parse_scale(const char *text, double *out)
{
	locale_t c, old;
	char *end = NULL;
	double v;

	/* Only a plain decimal number: no hex floats, inf or nan. */
	if (!*text)
		return -PM_ERR_FORMAT;
	for (const char *p = text; *p; p++)
		if (!is_digit(*p) && *p != '.' && *p != 'e' && *p != 'E' && *p != '+' && *p != '-')
			return -PM_ERR_FORMAT;
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return -ENOMEM;
	old = uselocale(c);
	errno = 0;
	v = strtod(text, &end);
	uselocale(old);
	freelocale(c);
	if (end == text || *end || !isfinite(v) || errno == ERANGE)
		return -PM_ERR_FORMAT;
	*out = v;
	return 0;
}

static int read_cpu(const char *t, size_t *i, long *out)
{
	long v = 0;
	size_t s = *i;

	while (is_digit(t[*i])) {
		v = v * 10 + (t[*i] - '0');
		if (v > 0x7fffffffL)
			return -1;
		(*i)++;
	}
	if (*i == s)
		return -1;
	*out = v;
	return 0;
}

int pm__parse_cpulist(const char *text, int *cpus, size_t cap, size_t *n)
{
	size_t i = 0, count = 0;

	*n = 0;
	if (!*text)
		return 0;
	for (;;) {
		long a, b;

		if (read_cpu(text, &i, &a))
			return -PM_ERR_FORMAT;
		b = a;
		if (text[i] == '-') {
			i++;
			if (read_cpu(text, &i, &b) || b < a)
				return -PM_ERR_FORMAT;
		}
		for (long c = a; c <= b && count < cap; c++)
			cpus[count++] = (int)c;
		*n += (size_t)(b - a) + 1;
		if (text[i] == '\0')
			break;
		if (text[i] != ',')
			return -PM_ERR_FORMAT;
		i++;
	}
	return 0;
}

PM_API const char *pm_alias_name(const pm_alias *alias)
{
	return alias ? alias->name : NULL;
}

PM_API const char *pm_alias_text(const pm_alias *alias)
{
	return alias ? alias->text : NULL;
}

PM_API size_t pm_alias_term_count(const pm_alias *alias)
{
	return alias ? alias->nterms : 0;
}

PM_API const char *pm_alias_term_name(const pm_alias *alias, size_t index)
{
	return alias && index < alias->nterms ? alias->terms[index].name : NULL;
}

PM_API int pm_alias_term_value(const pm_alias *alias, size_t index, uint64_t *value)
{
	if (value)
		*value = 0;
	if (!alias || index >= alias->nterms)
		return pm__err(ERANGE, "alias term %zu does not exist", index);
	if (alias->terms[index].is_param)
		return 1;
	if (value)
		*value = alias->terms[index].value;
	return 0;
}

PM_API const char *pm_alias_unit(const pm_alias *alias)
{
	return alias && alias->unit ? alias->unit : "";
}

PM_API double pm_alias_scale(const pm_alias *alias)
{
	return alias ? alias->scale : 1.0;
}

PM_API int pm_alias_per_pkg(const pm_alias *alias)
{
	return alias ? alias->per_pkg : 0;
}

PM_API int pm_alias_snapshot(const pm_alias *alias)
{
	return alias ? alias->snapshot : 0;
}
