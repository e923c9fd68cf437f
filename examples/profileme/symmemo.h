/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The last answers of pm_sym_lookup() by (pid, address, how), for the
 * commands that resolve every sample (report, annotate, script): most
 * samples repeat a few thousand addresses.  Every answer is forgotten when
 * the symbolizer learns something (cli_symmemo_changed() after each
 * pm_sym_add_record()), so an answer is always the one pm_sym_lookup()
 * would give now.  PROFILEME_SYM_NO_MEMO=1 asks the symbolizer every time
 * (the general path, compared in tests/cli/test_fastpaths.sh).
 */
#ifndef PM_CLI_SYMMEMO_H
#define PM_CLI_SYMMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <profileme/profileme.h>

struct cli_symmemo_ent;

struct cli_symmemo {
	struct cli_symmemo_ent *e; /* direct-mapped, CLI_SYMMEMO_N entries */
	uint64_t epoch;            /* entries of an older epoch are empty */
	bool off;
};

/* The sidecar of a synthetic recording (pm_sym_opts.path): prints the
 * library's one-line notice "profileme CMD: synthetic recording: symbols
 * from ..." to stderr unless @p quiet, and returns the symfs directory it
 * used (borrowed from @p s), or NULL when none. */
const char *cli_sym_sidecar(const char *cmd, const pm_sym *s, bool quiet);

/* 0, or -1 without memory (the memo is then off: every lookup is asked). */
int cli_symmemo_init(struct cli_symmemo *m);
void cli_symmemo_free(struct cli_symmemo *m);
/* The symbolizer learnt something: forget every answer. */
static inline void cli_symmemo_changed(struct cli_symmemo *m) { m->epoch++; }
/* pm_sym_lookup() through the memo; res->sz is set here. */
int cli_sym_lookup(struct cli_symmemo *m, pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
		   struct pm_sym_result *res);

/* The lengths of an answer's strings (0 for a NULL one or a failed lookup),
 * remembered with it, and whether its name is missing or "[unknown]". */
struct cli_sym_lens {
	size_t name_len, dso_len;
	bool name_unknown;
};

/* cli_sym_lookup() and the lengths of the answer's name and dso (lens NULL:
 * none wanted; then an unmemoized lookup computes none). */
int cli_sym_lookup_lens(struct cli_symmemo *m, pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
			struct pm_sym_result *res, struct cli_sym_lens *lens);

#endif
