/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the DWARF line-table reader, pm__dwarf_lines_parse()
 * (lib/symbol/dwarf_line.c), with .debug_info/.debug_abbrev for the
 * compilation directories.
 *
 * Input: byte 0 flags (bit 0: big-endian), then four little-endian u16
 * lengths: .debug_line_str, .debug_str, .debug_info, .debug_abbrev, those
 * sections in that order, and the rest is .debug_line.  Lengths past the end
 * are cut; an empty section is passed as NULL (absent), as lib/symbol/elf.c
 * passes it.  Each section is copied into a buffer of its exact size, so a read
 * past any of them is seen by ASan.  Then a few lookups.
 */
#include "fuzz_common.h"
#include "symbol/sym_internal.h"

static uint8_t *take(const uint8_t **p, size_t *left, size_t want, size_t *len)
{
	size_t n = want < *left ? want : *left;
	uint8_t *b = malloc(n ? n : 1);

	if (!b)
		abort();
	if (n)
		memcpy(b, *p, n);
	*p += n;
	*left -= n;
	*len = n;
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm__dwarf_secs s = { 0 };
	struct pm__linetab t;
	uint8_t *bufs[5];
	size_t lens[4], left;
	const uint8_t *p;
	char err[256];
	int rc;

	if (size < 9)
		return 0;
	s.be = data[0] & 1;
	for (int i = 0; i < 4; i++)
		lens[i] = (size_t)data[1 + 2 * i] | (size_t)data[2 + 2 * i] << 8;
	p = data + 9;
	left = size - 9;
	bufs[0] = take(&p, &left, lens[0], &s.line_str_len);
	bufs[1] = take(&p, &left, lens[1], &s.str_len);
	bufs[2] = take(&p, &left, lens[2], &s.info_len);
	bufs[3] = take(&p, &left, lens[3], &s.abbrev_len);
	bufs[4] = take(&p, &left, left, &s.line_len);
	/* an empty section is absent, NULL, as lib/symbol/elf.c passes it */
	s.line_str = s.line_str_len ? bufs[0] : NULL;
	s.str = s.str_len ? bufs[1] : NULL;
	s.info = s.info_len ? bufs[2] : NULL;
	s.abbrev = s.abbrev_len ? bufs[3] : NULL;
	s.line = bufs[4];
	rc = pm__dwarf_lines_parse(&s, &t, err, sizeof(err));
	PM_FUZZ_ASSERT(rc >= 0 || rc == -ENOMEM);
	PM_FUZZ_ASSERT(rc != 0 || err[0] == '\0');
	PM_FUZZ_ASSERT(rc <= 0 || err[0] != '\0');
	for (size_t i = 0; i < t.n; i++) {
		const struct pm__lrange *r = &t.v[i];
		const char *f;

		PM_FUZZ_ASSERT(r->start < r->end && r->maxend >= r->end);
		PM_FUZZ_ASSERT(i == 0 || t.v[i - 1].start <= r->start);
		PM_FUZZ_ASSERT(r->file == UINT32_MAX || r->file < t.names.len);
		f = pm__linetab_file(&t, r);
		PM_FUZZ_ASSERT(!f || memchr(f, 0, t.names.len - r->file));
		if (i < 64) {
			PM_FUZZ_ASSERT(pm__linetab_find(&t, r->start) != NULL);
			PM_FUZZ_ASSERT(pm__linetab_find(&t, r->end - 1) != NULL);
		}
	}
	pm__linetab_free(&t);
	for (int i = 0; i < 5; i++)
		free(bufs[i]);
	return 0;
}
