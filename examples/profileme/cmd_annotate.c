/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * profileme annotate SYMBOL: per-address sample counts of one symbol (and
 * the ProfileMe columns when the samples carry them), interleaved with the
 * disassembly of `objdump -d --start-address --stop-address` when an objdump
 * for the recording's architecture is installed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "report_agg.h"

struct ann {
	const char *name;
	const char *dso;     /* restrict to this module (basename or path), or NULL */
	struct rep_agg agg;  /* keyed by dso + pc */
	uint64_t total;
	uint64_t inexact;    /* of the shown event: IBS samples whose ip is not the tagged op's */
	uint64_t *inexact_ev; /* per event */
	size_t nr_ev;
	int ibs;             /* IBS columns: PM_IBS_KIND_OP / _FETCH, or 0 */
	const char *event;   /* --event NAME, or NULL */
	size_t shown_n;      /* agg entries of the shown event (the first ones after selection) */
	uint64_t other;      /* samples of the symbol in other events */
	int event_idx;
};

static bool ann_dso_match(const char *want, const char *dso)
{
	return !want || !strcmp(want, dso) || !strcmp(want, rep_basename(dso));
}

static int ann_cb(void *user, const struct rep_sample *s)
{
	struct ann *a = user;

	if (strcmp(s->sym, a->name) || !ann_dso_match(a->dso, s->dso))
		return 0;
	if (s->is_ibs && !s->ibs.exact) {
		/* Not an instruction-level fact: the ip is where the interrupt
		 * landed (RipInvalid).  Counted apart, never by address. */
		if (s->event_idx >= 0 && (size_t)s->event_idx < a->nr_ev)
			a->inexact_ev[s->event_idx]++;
		return 0;
	}
	a->total++;
	return rep_agg_add(&a->agg, s) ? 1 : 0;
}

static const char *ann_objdump(const char *arch, char *buf, size_t cap)
{
	static const struct {
		const char *arch, *tool;
	} t[] = { { "x86_64", "x86_64-linux-gnu-objdump" },
			       { "alpha", "alpha-linux-gnu-objdump" },
			       { "s390x", "s390x-linux-gnu-objdump" },
			       { "aarch64", "aarch64-linux-gnu-objdump" } };
	const char *path = getenv("PATH");
	struct utsname u;
	const char *host = uname(&u) == 0 ? u.machine : "";

	/* The host objdump handles the host architecture. */
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]) + 1; i++) {
		const char *tool;
		char dirs[4096];
		char *save = NULL;

		if (i < sizeof(t) / sizeof(t[0])) {
			if (strcmp(t[i].arch, arch))
				continue;
			tool = t[i].tool;
		} else {
			if (strcmp(host, arch))
				break;
			tool = "objdump";
		}
		snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
		for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(buf, cap, "%s/%s", d, tool);
			if (!access(buf, X_OK))
				return buf;
		}
	}
	return NULL;
}

static double pct_of(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static struct rep_entry *ann_find(struct rep_agg *a, size_t n, const char *dso, uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (a->e[i].pc == pc && !strcmp(a->e[i].dso, dso))
			return &a->e[i];
	return NULL;
}

static void ann_counts(const struct ann *an, struct rep_entry *e, bool pm)
{
	if (!e) {
		printf("%8s %6s", "", "");
		if (pm)
			printf(" %5s %5s %5s %5s %8s", "", "", "", "", "");
		if (an->ibs == PM_IBS_KIND_OP)
			printf(" %7s %6s %5s %7s", "", "", "", "");
		if (an->ibs == PM_IBS_KIND_FETCH)
			printf(" %8s %6s %6s", "", "", "");
		printf(" :");
		return;
	}
	if (an->ibs == PM_IBS_KIND_FETCH) {
		struct rep_ibs_agg *g = e->ibs;

		printf("%7.2f%% %6" PRIu64, 100.0 * (double)e->samples / (double)an->total, e->samples);
		if (g && g->flat.n)
			printf(" %8.1f", rep_vals_mean(&g->flat));
		else
			printf(" %8s", "-");
		if (g && g->icm[0])
			printf(" %5.0f%%", pct_of(g->icm[1], g->icm[0]));
		else
			printf(" %6s", "-");
		if (g && g->itlb1[0])
			printf(" %5.0f%%", pct_of(g->itlb1[1], g->itlb1[0]));
		else
			printf(" %6s", "-");
		printf(" :");
		return;
	}
	if (an->ibs == PM_IBS_KIND_OP) {
		struct rep_ibs_agg *g = e->ibs;

		printf("%7.2f%% %6" PRIu64, 100.0 * (double)e->samples / (double)an->total, e->samples);
		if (g && g->ops)
			printf(" %7.1f", rep_vals_mean(&g->tag));
		else
			printf(" %7s", "-");
		if (g && g->brn)
			printf(" %5.0f%%", pct_of(g->brn_misp, g->brn));
		else
			printf(" %6s", "-");
		if (g && g->ld + g->st)
			printf(" %4.0f%%", pct_of(g->dc_miss, g->ld + g->st));
		else
			printf(" %5s", "-");
		if (g && g->dclat.n)
			printf(" %7.1f", rep_vals_mean(&g->dclat));
		else
			printf(" %7s", "-");
		printf(" :");
		return;
	}
	printf("%7.2f%% %6" PRIu64, 100.0 * (double)e->samples / (double)an->total, e->samples);
	if (pm) {
		if (e->pm_n)
			printf(" %5" PRIu64 " %4.0f%% %4.0f%% %4.0f%% %8.1f", e->killed,
			       100.0 * (double)e->stalled / (double)e->pm_n,
			       100.0 * (double)e->trapped / (double)e->pm_n,
			       100.0 * (double)e->mispred / (double)e->pm_n,
			       e->pctr1_sum / (double)e->pm_n);
		else
			printf(" %5s %5s %5s %5s %8s", "-", "-", "-", "-", "-");
	}
	printf(" :");
}

int cmd_annotate(int argc, char **argv)
{
	struct rep_opts o = { .cmd = "annotate", .input = "perf.data" };
	struct rep_ctx *c = NULL;
	struct ann an;
	bool no_disasm = false;
	int ret = 1;

	memset(&an, 0, sizeof(an));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: profileme annotate SYMBOL [-i FILE] [--dso MODULE] [--symfs DIR]\n"
			       "                          [--kallsyms FILE] [--stdio] [--no-disasm] [--event NAME]\n"
			       "  per-address sample counts of SYMBOL, with objdump disassembly when an\n"
			       "  objdump for the recording's architecture is installed\n");
			return 0;
		}
		int in = cli_input_opt("annotate", argc, argv, &i, &o.input, &o.symfs, &o.kallsyms);

		if (in < 0)
			return 2;
		if (in)
			continue;
		if (v && (!strcmp(a, "--dso") || !strcmp(a, "-d"))) {
			an.dso = v;
			i++;
		} else if (v && (!strcmp(a, "--event") || !strcmp(a, "-e"))) {
			an.event = v;
			i++;
		} else if (!strcmp(a, "--no-disasm")) {
			no_disasm = true;
		} else if (!strcmp(a, "--stdio") || !strcmp(a, "-q")) {
			o.quiet = o.quiet || a[1] == 'q';
		} else if (a[0] != '-' && !an.name) {
			an.name = a;
		} else {
			cli_error("annotate", "unknown option or missing value: %s", a);
			return 2;
		}
	}
	if (!an.name) {
		cli_error("annotate", "which symbol? usage: profileme annotate SYMBOL [-i FILE]");
		return 2;
	}
	if (rep_open(&c, &o))
		return 1;
	an.nr_ev = pm_file_nr_attrs(rep_file(c));
	an.inexact_ev = calloc(an.nr_ev ? an.nr_ev : 1, sizeof(uint64_t));
	if (!an.inexact_ev || rep_agg_init(&an.agg, REP_K_DSO | REP_K_PC, 1) || rep_run(c, ann_cb, &an))
		goto out;
	for (size_t k = 0; k < an.nr_ev; k++)
		an.inexact += an.inexact_ev[k];
	if (!an.total) {
		if (an.inexact)
			cli_error("annotate", "symbol '%s': only %" PRIu64 " inexact IBS samples (RipInvalid: "
				  "no instruction to show them at)", an.name, an.inexact);
		else
			cli_error("annotate", "no samples in symbol '%s'%s%s", an.name, an.dso ? " of " : "",
				  an.dso ? an.dso : "");
		goto out;
	}
	rep_agg_sort(&an.agg);
	/* One event: the one asked for (--event), else the one with the most
	 * samples in the symbol; the others are only counted. */
	{
		size_t ne = pm_file_nr_attrs(rep_file(c)), best = 0, kept = 0;
		uint64_t *tot = calloc(ne ? ne : 1, sizeof(uint64_t)), other = 0;
		bool found = !an.event;

		if (!tot)
			goto out;
		for (size_t i = 0; i < an.agg.n; i++)
			if (an.agg.e[i].event_idx >= 0 && (size_t)an.agg.e[i].event_idx < ne)
				tot[an.agg.e[i].event_idx] += an.agg.e[i].samples;
		for (size_t k = 0; k < ne; k++) {
			if (an.event) {
				if (!found && !strcmp(rep_event_name(c, (int)k), an.event)) {
					best = k;
					found = true;
				}
			} else if (tot[k] > tot[best]) {
				best = k;
			}
		}
		if (!found || !tot[best]) {
			cli_error("annotate", "no samples of event '%s' in symbol '%s'", an.event ? an.event : "?",
				  an.name);
			free(tot);
			goto out;
		}
		for (size_t i = 0; i < an.agg.n; i++) {
			if (an.agg.e[i].event_idx == (int)best) {
				struct rep_entry t = an.agg.e[kept];

				an.agg.e[kept++] = an.agg.e[i];
				an.agg.e[i] = t;
			} else {
				other += an.agg.e[i].samples;
			}
		}
		/* the other events' entries stay after `kept` (freed with the agg) */
		an.shown_n = kept;
		an.total = tot[best];
		an.other = other;
		an.event_idx = (int)best;
		an.inexact = an.inexact_ev[best];
		an.ibs = rep_event_ibs(c, (int)best);
		free(tot);
	}
	/* The module with the most samples (the first entry after sorting is
	 * its hottest address); the others are listed after it. */
	{
		const char *dso = an.agg.e[0].dso;
		bool pm = false;
		struct pm_sym_def def = { .sz = sizeof(def) };
		bool have_def = false;
		uint64_t in_dso = 0;
		char tool[4096], path[4096];
		const char *objdump = no_disasm ? NULL : ann_objdump(rep_arch(c), tool, sizeof(tool));
		bool printed_disasm = false;

		for (size_t i = 0; i < an.shown_n; i++) {
			pm |= an.agg.e[i].pm_n > 0;
			if (!strcmp(an.agg.e[i].dso, dso))
				in_dso += an.agg.e[i].samples;
		}
		if (rep_symbolizer(c) && pm_sym_find(rep_symbolizer(c), dso, an.name, 0, &def) > 0)
			have_def = true;
		printf("# profileme annotate%s: %s in %s: %" PRIu64 " samples of event '%s' (%" PRIu64
		       " in this module)\n",
		       rep_is_synthetic(c) ? " (synthetic)" : "", an.name, dso, an.total,
		       rep_event_name(c, an.event_idx), in_dso);
		if (an.other)
			printf("# %" PRIu64 " samples of other events in this symbol (--event NAME shows "
			       "one)\n", an.other);
		if (have_def)
			printf("# symbol at 0x%" PRIx64 " size %" PRIu64 "\n", def.start, def.size);
		if (an.inexact)
			printf("# %" PRIu64 " inexact IBS samples (RipInvalid: the ip is where the interrupt "
			       "landed) are not shown by address\n", an.inexact);
		if (an.ibs == PM_IBS_KIND_FETCH)
			printf("# IBS fetch, exact samples: fetch latency mean (cycles), IC miss %%, L1 ITLB "
			       "miss %%\n");
		if (an.ibs == PM_IBS_KIND_OP)
			printf("# IBS op, exact samples: tag-to-retire mean (cycles), branch mispredict %%, "
			       "DC miss %% of loads/stores, DC miss latency mean (cycles)\n");
		printf("#\n# %7s %6s", "Percent", "Samples");
		if (pm)
			printf(" %5s %5s %5s %5s %8s", "Kill", "Stall", "Trap", "Misp", "PCTR1");
		if (an.ibs == PM_IBS_KIND_OP)
			printf(" %7s %6s %5s %7s", "TagRet", "Misp", "DCmis", "MissLat");
		if (an.ibs == PM_IBS_KIND_FETCH)
			printf(" %8s %6s %6s", "FetchLat", "ICmiss", "ITLB1");
		printf(" : Address / disassembly\n");
		if (objdump && have_def && def.size && dso[0] == '/') {
			int fds[2];
			pid_t pid;
			char sa[40], so[40];

			rep_dso_path(c, dso, path, sizeof(path));
			snprintf(sa, sizeof(sa), "--start-address=0x%" PRIx64, def.start);
			snprintf(so, sizeof(so), "--stop-address=0x%" PRIx64, def.start + def.size);
			if (pipe(fds) == 0 && (pid = fork()) >= 0) {
				if (pid == 0) {
					close(fds[0]);
					dup2(fds[1], 1);
					execl(objdump, objdump, "-d", "--no-show-raw-insn", sa, so, path,
					      (char *)NULL);
					_exit(127);
				}
				close(fds[1]);
				{
					FILE *p = fdopen(fds[0], "r");
					char line[1024];
					int st = 0;

					while (p && fgets(line, sizeof(line), p)) {
						char *end;
						unsigned long long addr;
						const char *s = line;

						while (*s == ' ')
							s++;
						addr = strtoull(s, &end, 16);
						if (end != s && *end == ':' && end[1] == '\t') {
							ann_counts(&an, ann_find(&an.agg, an.shown_n, dso, addr), pm);
							printf(" %s", line);
							printed_disasm = true;
						}
					}
					if (p)
						fclose(p);
					waitpid(pid, &st, 0);
				}
			}
		}
		if (!printed_disasm) {
			if (!no_disasm)
				printf("# (no disassembly: %s)\n",
				       !objdump ? "no objdump for this architecture" :
				       !have_def ? "symbol not found in a readable file" :
						   "objdump printed nothing");
			/* Plain list, by address. */
			for (int pass = 0; pass < 1; pass++) {
				uint64_t last = 0;
				bool any = true;

				while (any) {
					struct rep_entry *best = NULL;

					any = false;
					for (size_t i = 0; i < an.shown_n; i++) {
						struct rep_entry *e = &an.agg.e[i];

						if (strcmp(e->dso, dso) || (e->pc < last) ||
						    (e->pc == last && e->samples == 0))
							continue;
						if (!best || e->pc < best->pc)
							best = e;
					}
					if (best) {
						ann_counts(&an, best, pm);
						printf(" %" PRIx64 "\n", best->pc);
						last = best->pc + 1;
						any = true;
						if (!last)
							break;
					}
				}
			}
		}
		for (size_t i = 0; i < an.shown_n; i++)
			if (strcmp(an.agg.e[i].dso, dso))
				printf("# also %" PRIu64 " samples at %s+0x%" PRIx64 "\n",
				       an.agg.e[i].samples, an.agg.e[i].dso, an.agg.e[i].pc);
		/* The traps by address (PAL redirects are charged to the instruction
		 * that trapped: named here). */
		for (size_t i = 0; pm && i < an.shown_n; i++) {
			struct rep_entry *e = &an.agg.e[i];
			bool first = true;

			for (int t = 1; t < PM_PROFILEME_TRAP_COUNT; t++) {
				if (!e->traps[t])
					continue;
				if (first)
					printf("# traps at %s0x%" PRIx64 ":", strcmp(e->dso, dso) ? e->dso : "",
					       e->pc);
				printf("%s %s %" PRIu64, first ? "" : ",", pm_profileme_trap_name(t), e->traps[t]);
				first = false;
			}
			if (!first)
				printf(e->redirects ? " (%" PRIu64 " PAL redirects: charged to the trapping "
						      "instruction)\n" : "\n", e->redirects);
		}
	}
	ret = cli_flush() ? 1 : 0;
out:
	rep_agg_free(&an.agg);
	free(an.inexact_ev);
	rep_close(c);
	return ret;
}
