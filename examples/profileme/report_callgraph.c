/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme report -g: the call graph of a recording with callchains, as
 * `perf report --stdio -g` shows it: entries (comm, dso, sym) with their
 * children (inclusive) and self shares of the total period, each with the
 * tree of its call chains.  The stacks come from pm_export_stacks(). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#include "cli.h"
#include "progress.h"
#include "report_callgraph.h"
#include "report_core.h"

struct cg_node {
	const char *name;
	uint64_t period;
	struct cg_node *child, *next;
};

struct cg_entry {
	const char *comm, *dso, *sym; /* interned */
	char level;
	uint64_t self, children, self_n, children_n;
	struct cg_node root;          /* call chains through this entry */
	uint64_t seen;                /* last sample that counted it (children once per sample) */
};

struct cg_str {
	struct cg_str *next;
	char s[];
};

struct cg {
	bool children_mode, caller, json;
	double limit;                 /* entries below it (%) are hidden */
	double tree_limit;            /* tree nodes below it (%) are hidden */
	struct cg_entry *e;
	size_t n, cap;
	size_t *slots;                /* open addressing on (comm, dso, sym): entry index + 1 */
	size_t nslots;
	struct cg_str **strs;         /* interned strings, hashed */
	size_t nstrs;
	uint64_t total, samples, sample_no;
	size_t *idx;                  /* per frame: entry index (scratch) */
	size_t idx_cap;
	bool oom;
};

static uint64_t cg_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static const char *cg_intern(struct cg *g, const char *s)
{
	size_t b;
	struct cg_str *p;

	if (!g->strs) {
		g->nstrs = 4096;
		g->strs = calloc(g->nstrs, sizeof(*g->strs));
		if (!g->strs) {
			g->oom = true;
			return "?";
		}
	}
	b = cg_hash(s) & (g->nstrs - 1);
	for (p = g->strs[b]; p; p = p->next)
		if (!strcmp(p->s, s))
			return p->s;
	p = malloc(sizeof(*p) + strlen(s) + 1);
	if (!p) {
		g->oom = true;
		return "?";
	}
	strcpy(p->s, s);
	p->next = g->strs[b];
	g->strs[b] = p;
	return p->s;
}

static size_t cg_entry_of(struct cg *g, const char *comm, const char *dso, const char *sym, char level)
{
	uint64_t h;

	if ((g->n + 1) * 2 > g->nslots) {
		size_t ns = g->nslots ? g->nslots * 2 : 1024;
		size_t *sl = calloc(ns, sizeof(*sl));

		if (!sl) {
			g->oom = true;
			return SIZE_MAX;
		}
		for (size_t i = 0; i < g->n; i++) {
			size_t j = (cg_hash(g->e[i].sym) ^ (uintptr_t)g->e[i].comm ^ ((uintptr_t)g->e[i].dso << 1)) & (ns - 1);

			while (sl[j])
				j = (j + 1) & (ns - 1);
			sl[j] = i + 1;
		}
		free(g->slots);
		g->slots = sl;
		g->nslots = ns;
	}
	h = cg_hash(sym) ^ (uintptr_t)comm ^ ((uintptr_t)dso << 1);
	for (size_t j = h & (g->nslots - 1);; j = (j + 1) & (g->nslots - 1)) {
		struct cg_entry *e;

		if (g->slots[j]) {
			e = &g->e[g->slots[j] - 1];
			if (e->comm == comm && e->dso == dso && e->sym == sym)
				return g->slots[j] - 1;
			continue;
		}
		if (g->n == g->cap) {
			size_t nc = g->cap ? g->cap * 2 : 256;
			struct cg_entry *a = realloc(g->e, nc * sizeof(*a));

			if (!a) {
				g->oom = true;
				return SIZE_MAX;
			}
			g->e = a;
			g->cap = nc;
		}
		e = &g->e[g->n];
		memset(e, 0, sizeof(*e));
		e->comm = comm;
		e->dso = dso;
		e->sym = sym;
		e->level = level;
		e->seen = UINT64_MAX;
		g->slots[j] = ++g->n;
		return g->n - 1;
	}
}

static struct cg_node *cg_child(struct cg *g, struct cg_node *n, const char *name)
{
	struct cg_node *c;

	for (c = n->child; c; c = c->next)
		if (c->name == name)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		g->oom = true;
		return NULL;
	}
	c->name = name;
	c->next = n->child;
	n->child = c;
	return c;
}

/* Adds the path frames[from], frames[from + step], ... (to, exclusive). */
static void cg_path(struct cg *g, struct cg_node *n, const struct pm_stack *s, long from, long to, long step,
		    uint64_t p)
{
	for (long i = from; i != to; i += step) {
		n = cg_child(g, n, cg_intern(g, s->syms[i]));
		if (!n)
			return;
		n->period += p;
	}
}

static int cg_on_stack(void *user, const struct pm_stack *s)
{
	struct cg *g = user;
	const char *comm = cg_intern(g, s->comm);
	long nf = (long)s->nframes;

	if (s->nframes > g->idx_cap) {
		size_t nc = g->idx_cap ? g->idx_cap * 2 : 64;
		size_t *a;

		while (nc < s->nframes)
			nc *= 2;
		a = realloc(g->idx, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		g->idx = a;
		g->idx_cap = nc;
	}
	g->total += s->period;
	g->samples++;
	g->sample_no++;
	for (long i = 0; i < nf; i++) {
		char level = s->addrs[i] >> 63 ? 'k' : '.';

		g->idx[i] = cg_entry_of(g, comm, cg_intern(g, rep_basename(s->dsos[i])),
					cg_intern(g, s->syms[i]), level);
		if (g->idx[i] == SIZE_MAX)
			return -ENOMEM;
	}
	g->e[g->idx[0]].self += s->period;
	g->e[g->idx[0]].self_n++;
	for (long i = 0; i < nf; i++) {
		struct cg_entry *e = &g->e[g->idx[i]];

		if (e->seen == g->sample_no)
			continue; /* recursion: once per sample */
		e->seen = g->sample_no;
		e->children += s->period;
		e->children_n++;
		if (!g->children_mode && i > 0)
			continue;
		e->root.period += s->period;
		if (g->children_mode) {
			/* callee order: the entry's callers, outwards; caller order:
			 * its callees, down to the leaf. */
			if (g->caller)
				cg_path(g, &e->root, s, i - 1, -1, -1, s->period);
			else
				cg_path(g, &e->root, s, i + 1, nf, 1, s->period);
		} else {
			/* self: the chains of its own samples, its callers (callee
			 * order) or from the outermost caller down (caller order). */
			if (g->caller)
				cg_path(g, &e->root, s, nf - 1, 0, -1, s->period);
			else
				cg_path(g, &e->root, s, 1, nf, 1, s->period);
		}
	}
	return g->oom ? -ENOMEM : 0;
}

static double cg_pct(const struct cg *g, uint64_t v)
{
	return g->total ? 100.0 * (double)v / (double)g->total : 0.0;
}

static int cg_cmp_nodes(const void *a, const void *b)
{
	const struct cg_node *x = *(const struct cg_node *const *)a, *y = *(const struct cg_node *const *)b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Children of n sorted by period, in a malloc'd array. */
static struct cg_node **cg_sorted(const struct cg_node *n, size_t *cnt)
{
	size_t k = 0;
	struct cg_node **v;

	for (struct cg_node *c = n->child; c; c = c->next)
		k++;
	v = calloc(k + 1, sizeof(*v));
	if (!v) {
		*cnt = 0;
		return NULL;
	}
	k = 0;
	for (struct cg_node *c = n->child; c; c = c->next)
		v[k++] = c;
	qsort(v, k, sizeof(*v), cg_cmp_nodes);
	*cnt = k;
	return v;
}

static void cg_print_tree(const struct cg *g, const struct cg_node *n, int depth)
{
	size_t k;
	struct cg_node **v = cg_sorted(n, &k);

	for (size_t i = 0; i < k; i++) {
		if (cg_pct(g, v[i]->period) < g->tree_limit)
			continue;
		printf("%*s--%.2f%%--%s\n", 12 + 4 * depth, "", cg_pct(g, v[i]->period), v[i]->name);
		cg_print_tree(g, v[i], depth + 1);
	}
	free(v);
}

static void cg_json_tree(const struct cg *g, const struct cg_node *n)
{
	size_t k;
	struct cg_node **v = cg_sorted(n, &k);
	bool first = true;

	fputc('[', stdout);
	for (size_t i = 0; i < k; i++) {
		if (cg_pct(g, v[i]->period) < g->tree_limit)
			continue;
		if (!first)
			fputc(',', stdout);
		first = false;
		fputs("{\"sym\":", stdout);
		cli_json_str(stdout, v[i]->name);
		printf(",\"period\":%" PRIu64 ",\"percent\":%.4f,\"children\":", v[i]->period,
		       cg_pct(g, v[i]->period));
		cg_json_tree(g, v[i]);
		fputc('}', stdout);
	}
	fputc(']', stdout);
	free(v);
}

static int cg_cmp_entries(const void *a, const void *b, void *ctx)
{
	const struct cg *g = ctx;
	const struct cg_entry *x = &g->e[*(const size_t *)a], *y = &g->e[*(const size_t *)b];
	uint64_t kx = g->children_mode ? x->children : x->self, ky = g->children_mode ? y->children : y->self;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->sym, y->sym);
}

static void cg_free(struct cg *g)
{
	for (size_t i = 0; i < g->n; i++) {
		/* free the trees, iteratively by a stack of nodes */
		struct cg_node *stack = g->e[i].root.child;

		while (stack) {
			struct cg_node *n = stack;

			stack = n->next;
			for (struct cg_node *c = n->child, *nx; c; c = nx) {
				nx = c->next;
				c->next = stack;
				stack = c;
			}
			free(n);
		}
	}
	free(g->e);
	free(g->slots);
	free(g->idx);
	for (size_t b = 0; g->strs && b < g->nstrs; b++)
		while (g->strs[b]) {
			struct cg_str *n = g->strs[b]->next;

			free(g->strs[b]);
			g->strs[b] = n;
		}
	free(g->strs);
}

static void cg_usage(FILE *f)
{
	fprintf(f,
		"usage: profileme report -g [caller|callee] [--children|--no-children]\n"
		"                        [--percent-limit PCT] [--json] [-i FILE] [--symfs DIR]\n"
		"                        [--kallsyms FILE] [-q]\n"
		"  -g [ORDER]       the call graph (recordings with callchains: perf record -g);\n"
		"                   ORDER caller or callee (default: callee)\n"
		"  --call-graph ORDER  the same as -g ORDER\n"
		"  --children       entries sorted by inclusive share, with their callers/callees\n"
		"                   (the default)\n"
		"  --no-children    entries sorted by self share, with their own samples' chains\n"
		"  --percent-limit PCT  hide entries and chains under PCT %% (default: entries 0,\n"
		"                   chains 0.5)\n"
		"  --json           one object per entry with its call tree\n");
}

bool rpt_callgraph_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-g") || !strncmp(argv[i], "--call-graph", 12) ||
		    !strcmp(argv[i], "--children") || !strcmp(argv[i], "--no-children"))
			return true;
	}
	return false;
}

int rpt_callgraph(int argc, char **argv)
{
	struct rep_opts o = { .cmd = "report", .input = "perf.data" };
	struct pm_export_opts eo = { .sz = sizeof(eo), .event = -1 };
	struct cli_progress prog;
	struct rep_ctx *c = NULL;
	struct cg g;
	size_t *order = NULL;
	bool tree_limit_set = false;
	int err, ret = 1;

	memset(&g, 0, sizeof(g));
	g.children_mode = true;
	g.tree_limit = 0.5;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cg_usage(stdout);
			return 0;
		} else if (!strcmp(a, "-g")) {
			if (v && (!strcmp(v, "caller") || !strcmp(v, "callee")))
				g.caller = !strcmp(argv[++i], "caller");
		} else if (!strcmp(a, "--call-graph") && v) {
			if (strcmp(v, "caller") && strcmp(v, "callee")) {
				cli_error("report", "--call-graph caller or callee, not '%s'", v);
				return 2;
			}
			g.caller = !strcmp(v, "caller");
			i++;
		} else if (!strncmp(a, "--call-graph=", 13)) {
			if (strcmp(a + 13, "caller") && strcmp(a + 13, "callee")) {
				cli_error("report", "--call-graph caller or callee, not '%s'", a + 13);
				return 2;
			}
			g.caller = !strcmp(a + 13, "caller");
		} else if (!strcmp(a, "--children")) {
			g.children_mode = true;
		} else if (!strcmp(a, "--no-children")) {
			g.children_mode = false;
		} else if (!strcmp(a, "--percent-limit") && v) {
			char *end;

			g.limit = strtod(v, &end);
			if (*end || g.limit < 0 || g.limit > 100) {
				cli_error("report", "--percent-limit wants a percentage, not '%s'", v);
				return 2;
			}
			tree_limit_set = true;
			i++;
		} else if (!strcmp(a, "--json")) {
			g.json = true;
		} else if (!strcmp(a, "-q")) {
			o.quiet = true;
		} else if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && v) {
			o.input = v, i++;
		} else if (!strcmp(a, "--symfs") && v) {
			o.symfs = v, i++;
		} else if (!strcmp(a, "--kallsyms") && v) {
			o.kallsyms = v, i++;
		} else {
			cli_error("report", "-g: unknown option or missing value: %s", a);
			cg_usage(stderr);
			return 2;
		}
	}
	if (tree_limit_set)
		g.tree_limit = g.limit;
	if (rep_open(&c, &o))
		return 1;
	eo.sym = rep_symbolizer(c);
	if (!eo.sym)
		eo.flags |= PM_EXPORT_NO_SYMBOLS;
	cli_progress_init(&prog, "report", o.quiet);
	eo.progress = cli_progress_cb;
	eo.progress_user = &prog;
	err = pm_export_stacks(rep_file(c), &eo, cg_on_stack, &g);
	cli_progress_done(&prog);
	if (err) {
		cli_error("report", "%s: %s", o.input, pm_error_string(err));
		goto out;
	}
	order = calloc(g.n + 1, sizeof(*order));
	if (!order)
		goto out;
	for (size_t i = 0; i < g.n; i++)
		order[i] = i;
	qsort_r(order, g.n, sizeof(*order), cg_cmp_entries, &g);
	if (!g.json) {
		printf("# Samples: %" PRIu64 "  total period %" PRIu64 "%s\n#\n", g.samples, g.total,
		       rep_is_synthetic(c) ? "  (SYNTHETIC recording)" : "");
		if (g.children_mode)
			printf("# Children      Self  Command  Shared Object  Symbol\n");
		else
			printf("# Overhead  Command  Shared Object  Symbol\n");
		printf("#\n");
	}
	for (size_t k = 0; k < g.n; k++) {
		const struct cg_entry *e = &g.e[order[k]];
		double cp = cg_pct(&g, e->children), sp = cg_pct(&g, e->self);

		if ((g.children_mode ? cp : sp) < g.limit || (!g.children_mode && !e->self))
			continue;
		if (g.json) {
			fputs("{\"comm\":", stdout);
			cli_json_str(stdout, e->comm);
			fputs(",\"dso\":", stdout);
			cli_json_str(stdout, e->dso);
			fputs(",\"sym\":", stdout);
			cli_json_str(stdout, e->sym);
			printf(",\"level\":\"%c\",\"children\":%" PRIu64 ",\"self\":%" PRIu64
			       ",\"children_pct\":%.4f,\"self_pct\":%.4f,\"samples\":%" PRIu64
			       ",\"order\":\"%s\",\"callchains\":",
			       e->level, e->children, e->self, cp, sp, e->self_n,
			       g.caller ? "caller" : "callee");
			cg_json_tree(&g, &e->root);
			fputs("}\n", stdout);
			continue;
		}
		if (g.children_mode)
			printf("%10.2f%% %9.2f%%  %s  %s  [%c] %s\n", cp, sp, e->comm, e->dso, e->level, e->sym);
		else
			printf("%9.2f%%  %s  %s  [%c] %s\n", sp, e->comm, e->dso, e->level, e->sym);
		cg_print_tree(&g, &e->root, 0);
		printf("\n");
	}
	ret = cli_flush() ? 1 : 0;
out:
	free(order);
	cg_free(&g);
	rep_close(c);
	return ret;
}
