/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Sorted symbol tables: build once, binary-search many times. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/sym_internal.h"

/* How many leading underscores: fewer reads better ("malloc" over "__libc_malloc"). */
static uint32_t underscores(const char *s)
{
	uint32_t n = 0;

	while (s[n] == '_' && n < 255)
		n++;
	return n;
}

int pm__rawvec_push(struct pm__rawvec *rv, const struct pm__rawsym *r, const char *name)
{
	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 256;
		struct pm__rawsym *v = pm__reallocarray(rv->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		rv->v = v;
		rv->cap = cap;
	}
	rv->v[rv->n] = *r;
	rv->v[rv->n].seq = (uint32_t)rv->n;
	rv->v[rv->n].uscore = underscores(name);
	rv->v[rv->n].nlen = (uint32_t)strnlen(name, UINT32_MAX);
	rv->n++;
	return 0;
}

int pm__symtab_addstr(struct pm__symtab *t, const char *s, size_t n, uint32_t *off)
{
	int rc;

	if (t->str.len > UINT32_MAX - n - 1)
		return -ENOMEM;
	*off = (uint32_t)t->str.len;
	rc = pm__buf_append(&t->str, s, n);
	if (rc == 0)
		rc = pm__buf_append(&t->str, "", 1);
	return rc;
}

/*
 * Which of the symbols at one address names it: perf's choice
 * (tools/perf/util/symbol.c, choose_best_symbol), so that a report names an
 * alias as perf report does: one with a size, then the binding's rank
 * (prio: for ELF global, then local, then weak; for kallsyms the line's
 * position, see kallsyms.c), fewer leading underscores, the longer name,
 * and the first in the input.
 */
static int rawcmp(const void *a, const void *b)
{
	const struct pm__rawsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->uscore != y->uscore)
		return x->uscore < y->uscore ? -1 : 1;
	if (x->nlen != y->nlen)
		return x->nlen > y->nlen ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/* kallsyms lists the kernel by address, with aliases at one address in no
 * particular order: an insertion sort puts such input in order in about n
 * steps.  rawcmp is a total order (seq is unique), so the result is the
 * array qsort gives.  False when the input is far from sorted (more than
 * 4n element moves so far): the array is then still a permutation of the
 * input, to be sorted by qsort. */
static bool sort_nearly_sorted(struct pm__rawsym *v, size_t n)
{
	size_t budget = 4 * n + 64, moves = 0;

	for (size_t i = 1; i < n; i++) {
		struct pm__rawsym x;
		size_t j = i;

		if (rawcmp(&v[i - 1], &v[i]) < 0)
			continue;
		if (moves > budget)
			return false;
		x = v[i];
		while (j > 0 && rawcmp(&v[j - 1], &x) > 0) {
			v[j] = v[j - 1];
			j--;
			moves++;
		}
		v[j] = x;
	}
	return true;
}

/*
 * Sort, keep one symbol per address, give zero-sized symbols the room up to
 * the next symbol (bounded by their section), and the last zero-sized one
 * `last_extent` bytes.  Frees rv's array.
 */
int pm__symtab_build(struct pm__symtab *t, struct pm__rawvec *rv, uint64_t last_extent)
{
	size_t n = 0;

	free(t->v);
	t->v = NULL;
	t->n = 0;
	t->lo = t->hi = 0;
	if (rv->n) {
		if (!sort_nearly_sorted(rv->v, rv->n))
			qsort(rv->v, rv->n, sizeof(rv->v[0]), rawcmp);

		t->v = pm__calloc(rv->n, sizeof(*t->v));
		if (!t->v) {
			free(rv->v);
			rv->v = NULL;
			rv->n = rv->cap = 0;
			return -ENOMEM;
		}
		for (size_t i = 0; i < rv->n; i++) {
			const struct pm__rawsym *r = &rv->v[i];
			uint64_t size = r->size;

			if (n && t->v[n - 1].start == r->start)
				continue; /* an alias: the better name came first */
			if (!size) {
				uint64_t next = UINT64_MAX;

				for (size_t j = i + 1; j < rv->n; j++)
					if (rv->v[j].start != r->start) {
						next = rv->v[j].start;
						break;
					}
				if (next == UINT64_MAX)
					next = r->start + last_extent < r->start ? UINT64_MAX
										 : r->start + last_extent;
				if (next > r->limit && r->limit > r->start)
					next = r->limit;
				size = next - r->start;
			}
			t->v[n].start = r->start;
			t->v[n].size = size;
			t->v[n].name = r->name;
			t->v[n].mod = r->mod;
			n++;
		}
		t->n = n;
		t->lo = t->v[0].start;
		for (size_t i = 0; i < n; i++) {
			uint64_t end = t->v[i].start + t->v[i].size;

			if (end < t->v[i].start)
				end = UINT64_MAX;
			if (end > t->hi)
				t->hi = end;
		}
	}
	free(rv->v);
	rv->v = NULL;
	rv->n = rv->cap = 0;
	return 0;
}

const struct pm__sym *pm__symtab_find(const struct pm__symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* Last symbol with start <= addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A symbol may sit inside a larger one: look back a few. */
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct pm__sym *p = &t->v[lo - 1 - k];

		if (addr - p->start < p->size)
			return p;
	}
	return NULL;
}

void pm__symtab_free(struct pm__symtab *t)
{
	free(t->v);
	pm__buf_free(&t->str);
	memset(t, 0, sizeof(*t));
}
