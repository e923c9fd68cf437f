/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the kernel symbol cache file reader, pm__kcache_parse()
 * (lib/symbol/kcache.c), and what is done with an accepted file.
 *
 * Input: a cache file.  It is parsed as it is, and once more with its
 * checksum field made right (so that the fuzzer reaches the checks behind
 * the checksum).  Each parse gets a buffer of the input's exact size (a read
 * past it is seen by ASan).  For an accepted file:
 *   - every symbol is found by its first and last byte, and nothing is
 *     found one byte before the first symbol;
 *   - the trusted ranges, with no modules and with the modules the file
 *     itself names, are sorted, inside the table, and cover the region
 *     starts they should;
 *   - encoding the parsed table again gives a file that parses to the same
 *     symbols, names and regions.
 */
#include "fuzz_common.h"
#include "symbol/sym_internal.h"

static void check_ranges(const struct pm__kcache *kc, const struct pm__kmods *m)
{
	struct pm__krange *r = NULL;
	size_t n = 0;

	if (pm__kcache_trust(kc, m, &r, &n) != 0)
		return; /* out of memory */
	PM_FUZZ_ASSERT(n <= kc->ng);
	for (size_t i = 0; i < n; i++) {
		PM_FUZZ_ASSERT(r[i].lo < r[i].hi);
		PM_FUZZ_ASSERT(i == 0 || r[i - 1].hi <= r[i].lo);
		PM_FUZZ_ASSERT(r[i].lo >= kc->tab.lo && r[i].hi <= kc->tab.hi);
		PM_FUZZ_ASSERT(pm__krange_has(r, n, r[i].lo));
		PM_FUZZ_ASSERT(!pm__krange_has(r, n, r[i].hi) || (i + 1 < n && r[i + 1].lo == r[i].hi));
	}
	/* the core region is trusted whatever the modules say */
	for (size_t i = 0; i < kc->ng; i++)
		if (kc->g[i].kind == 0 && kc->g[i].first < kc->g[i].last)
			PM_FUZZ_ASSERT(pm__krange_has(r, n, kc->g[i].first));
	free(r);
}

static void check(const struct pm__kcache *kc)
{
	const struct pm__symtab *t = &kc->tab;
	struct pm__kmods none = { .ok = true }, named = { .ok = true };

	for (size_t i = 0; i < t->n; i++) {
		const struct pm__sym *v = &t->v[i], *p;

		p = pm__symtab_find(t, v->start);
		PM_FUZZ_ASSERT(p == v);
		p = pm__symtab_find(t, v->start + v->size - 1);
		PM_FUZZ_ASSERT(p == v);
		PM_FUZZ_ASSERT(strlen(pm__symtab_str(t, v->name)) < t->str.len);
	}
	if (t->v[0].start)
		PM_FUZZ_ASSERT(pm__symtab_find(t, t->v[0].start - 1) == NULL);
	check_ranges(kc, &none);
	/* the file's own modules, as /proc/modules would list them */
	named.v = calloc(kc->ng, sizeof(*named.v));
	if (!named.v)
		return;
	for (size_t i = 0; i < kc->ng; i++) {
		const char *m = pm__symtab_str(t, kc->g[i].mod);
		size_t ml = strlen(m);

		if (kc->g[i].kind != 1 || ml - 2 >= sizeof(named.v[0].name))
			continue;
		memcpy(named.v[named.n].name, m + 1, ml - 2);
		named.v[named.n].name[ml - 2] = '\0';
		named.v[named.n].addr = kc->g[i].maddr;
		named.v[named.n].size = kc->g[i].msize;
		named.v[named.n].live = true;
		named.n++;
	}
	check_ranges(kc, &named);
	free(named.v);
}

static void roundtrip(const struct pm__kcache *kc)
{
	struct pm__buf img = {0};
	struct pm__kcache again;

	if (pm__kcache_encode(&kc->tab, kc->g, kc->ng, kc->boot_id, kc->boot_id_len, kc->head,
			      kc->head_len, &img) != 0) {
		pm__buf_free(&img);
		return; /* out of memory */
	}
	PM_FUZZ_ASSERT(pm__kcache_parse((const uint8_t *)img.data, img.len, &again, NULL, 0) == 0);
	PM_FUZZ_ASSERT(again.tab.n == kc->tab.n && again.ng == kc->ng);
	PM_FUZZ_ASSERT(again.head_len == kc->head_len && memcmp(again.head, kc->head, kc->head_len) == 0);
	for (size_t i = 0; i < kc->tab.n; i++) {
		PM_FUZZ_ASSERT(again.tab.v[i].start == kc->tab.v[i].start);
		PM_FUZZ_ASSERT(again.tab.v[i].size == kc->tab.v[i].size);
		PM_FUZZ_ASSERT(strcmp(pm__symtab_str(&again.tab, again.tab.v[i].name),
				      pm__symtab_str(&kc->tab, kc->tab.v[i].name)) == 0);
		PM_FUZZ_ASSERT(strcmp(pm__symtab_str(&again.tab, again.tab.v[i].mod),
				      pm__symtab_str(&kc->tab, kc->tab.v[i].mod)) == 0);
	}
	for (size_t i = 0; i < kc->ng; i++)
		PM_FUZZ_ASSERT(again.g[i].first == kc->g[i].first && again.g[i].last == kc->g[i].last &&
			       again.g[i].kind == kc->g[i].kind && again.g[i].maddr == kc->g[i].maddr &&
			       again.g[i].msize == kc->g[i].msize);
	pm__kcache_free(&again);
	pm__buf_free(&img);
}

static void one(const uint8_t *p, size_t n)
{
	struct pm__kcache kc;
	char why[200];

	if (pm__kcache_parse(p, n, &kc, why, sizeof(why)) != 0) {
		PM_FUZZ_ASSERT(kc.tab.v == NULL && kc.g == NULL && kc.head == NULL);
		return;
	}
	check(&kc);
	roundtrip(&kc);
	pm__kcache_free(&kc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *b = calloc(size ? size : 1, 1); /* the input's size exactly */

	if (!b)
		abort();
	if (size)
		memcpy(b, data, size);
	one(b, size);
	if (size >= 64) {
		pm__st64(b + 24, pm__kcache_checksum(b, size), false);
		one(b, size);
	}
	free(b);
	return 0;
}
