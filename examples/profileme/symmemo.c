/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* pm_sym_lookup() answers remembered until the symbolizer changes (symmemo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symmemo.h"

#define CLI_SYMMEMO_N 1024u

struct cli_symmemo_ent {
	uint64_t epoch, addr;
	int32_t pid;
	uint32_t how;
	int rc;
	struct pm_sym_result r;
	struct cli_sym_lens lens;
};

int cli_symmemo_init(struct cli_symmemo *m)
{
	memset(m, 0, sizeof(*m));
	m->epoch = 1;
	m->off = getenv("PROFILEME_SYM_NO_MEMO") != NULL;
	if (!m->off) {
		m->e = calloc(CLI_SYMMEMO_N, sizeof(*m->e));
		if (!m->e) {
			m->off = true;
			return -1;
		}
	}
	return 0;
}

void cli_symmemo_free(struct cli_symmemo *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

static void sym_lens(const struct pm_sym_result *r, int rc, struct cli_sym_lens *l)
{
	l->name_len = rc >= 0 && r->name ? strlen(r->name) : 0;
	l->dso_len = rc >= 0 && r->dso ? strlen(r->dso) : 0;
	l->name_unknown = rc < 0 || !r->name || !strcmp(r->name, "[unknown]");
}

int cli_sym_lookup_lens(struct cli_symmemo *m, pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
			struct pm_sym_result *res, struct cli_sym_lens *lens)
{
	struct cli_symmemo_ent *e;
	uint64_t h;
	int rc;

	if (m->off || !m->e) {
		res->sz = sizeof(*res);
		rc = pm_sym_lookup(s, pid, addr, how, res);
		if (lens)
			sym_lens(res, rc, lens);
		return rc;
	}
	h = (addr ^ ((uint64_t)(uint32_t)pid << 32 | how)) * 0x9E3779B97F4A7C15ull;
	e = &m->e[(h >> 40) & (CLI_SYMMEMO_N - 1)];
	if (e->epoch != m->epoch || e->addr != addr || e->pid != pid || e->how != how) {
		e->r.sz = sizeof(e->r);
		e->rc = pm_sym_lookup(s, pid, addr, how, &e->r);
		e->epoch = m->epoch;
		e->addr = addr;
		e->pid = pid;
		e->how = how;
		sym_lens(&e->r, e->rc, &e->lens);
	}
	*res = e->r;
	if (lens)
		*lens = e->lens;
	return e->rc;
}

int cli_sym_lookup(struct cli_symmemo *m, pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
		   struct pm_sym_result *res)
{
	return cli_sym_lookup_lens(m, s, pid, addr, how, res, NULL);
}

const char *cli_sym_sidecar(const char *cmd, const pm_sym *s, bool quiet)
{
	int n = pm_sym_diag_count(s);

	for (int i = 0; i < n; i++) {
		struct pm_sym_diag d = { .sz = sizeof(d) };

		if (pm_sym_diag_get(s, (size_t)i, &d) || d.code != PM_SYM_DIAG_SIDECAR)
			continue;
		if (!quiet)
			fprintf(stderr, "profileme %s: %s\n", cmd, d.message);
		return d.file;
	}
	return NULL;
}
