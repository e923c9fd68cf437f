/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme report -g: the call graph of a recording with callchains, as
 * `perf report --stdio -g` (perf 6.1, graph mode) prints it, byte for byte
 * but the comment lines: entries (comm, dso, sym) with their children
 * (inclusive) and self shares of the total period, in perf's order, each
 * with the tree of its call chains in perf's drawing (ui/stdio/hist.c's
 * rules, written again here: see the functions below for each one).  The
 * stacks come from pm_export_stacks(). */
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

/* One frame of perf's callchain tree: a function (dso, symbol), or an
 * address when no symbol covers it, as perf's match_chain() tells frames
 * apart (CCKEY_FUNCTION: dso and symbol start; else dso and ip). */
struct cg_node {
	const char *name;             /* interned symbol, NULL when unknown */
	const char *dso;              /* interned module */
	uint64_t addr;                /* unknown: the frame's address; known: the first one seen */
	uint64_t period;              /* cumulative: every chain through this node */
	uint64_t hit;                 /* chains that end here */
	uint32_t dso_order;           /* first appearance of the module (ties) */
	struct cg_node *child, *next;
	size_t nchild;
};

struct cg_entry {
	const char *comm, *dso, *sym; /* interned; sym NULL when unknown */
	uint64_t addr;                /* unknown symbol: its address (perf keys such entries by ip) */
	char level;
	uint32_t tid;                 /* of the first sample (perf: the entry's thread) */
	uint64_t self, children, self_n, children_n;
	uint64_t max_depth;           /* longest chain appended (perf's callchain max_depth) */
	struct cg_node root;          /* call chains through this entry */
	uint64_t seen;                /* last sample that counted it (children once per sample) */
};

#define CG_MAX(a, b) ((a) > (b) ? (a) : (b))

struct cg_str {
	struct cg_str *next;
	uint32_t order;
	char s[];
};

struct cg {
	bool children_mode, caller, json;
	double limit;                 /* entries below it (%) are hidden */
	double tree_limit;            /* tree nodes below it (%) are hidden */
	uint64_t min_hit;             /* tree nodes below it (period) are hidden */
	struct cg_entry *e;
	size_t n, cap;
	size_t *slots;                /* open addressing on (comm, dso, sym, addr): entry index + 1 */
	size_t nslots;
	struct cg_str **strs;         /* interned strings, hashed */
	size_t nstrs;
	uint32_t nstr_order;
	uint64_t total, samples, sample_no;
	size_t *idx;                  /* per frame: entry index (scratch) */
	size_t idx_cap;
	const char **fsym, **fdso;    /* per frame: interned symbol (NULL unknown), module */
	size_t f_cap;
	bool oom;
};

static uint64_t cg_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct cg_str *cg_intern_s(struct cg *g, const char *s)
{
	size_t b;
	struct cg_str *p;

	if (!g->strs) {
		g->nstrs = 4096;
		g->strs = calloc(g->nstrs, sizeof(*g->strs));
		if (!g->strs) {
			g->oom = true;
			return NULL;
		}
	}
	b = cg_hash(s) & (g->nstrs - 1);
	for (p = g->strs[b]; p; p = p->next)
		if (!strcmp(p->s, s))
			return p;
	p = malloc(sizeof(*p) + strlen(s) + 1);
	if (!p) {
		g->oom = true;
		return NULL;
	}
	strcpy(p->s, s);
	p->order = g->nstr_order++;
	p->next = g->strs[b];
	g->strs[b] = p;
	return p;
}

static const char *cg_intern(struct cg *g, const char *s)
{
	struct cg_str *p = cg_intern_s(g, s);

	return p ? p->s : "?";
}

/* The order in which a string was first interned (modules: first seen). */
static uint32_t cg_order(const char *interned)
{
	return ((const struct cg_str *)(const void *)(interned - offsetof(struct cg_str, s)))->order;
}

static uint64_t cg_ekey(const char *comm, const char *dso, const char *sym, uint64_t addr)
{
	return (sym ? cg_hash(sym) : addr * 0x9e3779b97f4a7c15ull) ^ (uintptr_t)comm ^
	       ((uintptr_t)dso << 1);
}

static size_t cg_entry_of(struct cg *g, const char *comm, const char *dso, const char *sym,
			  uint64_t addr, char level, uint32_t tid)
{
	uint64_t h;

	if (sym)
		addr = 0;
	if ((g->n + 1) * 2 > g->nslots) {
		size_t ns = g->nslots ? g->nslots * 2 : 1024;
		size_t *sl = calloc(ns, sizeof(*sl));

		if (!sl) {
			g->oom = true;
			return SIZE_MAX;
		}
		for (size_t i = 0; i < g->n; i++) {
			size_t j = cg_ekey(g->e[i].comm, g->e[i].dso, g->e[i].sym, g->e[i].addr) & (ns - 1);

			while (sl[j])
				j = (j + 1) & (ns - 1);
			sl[j] = i + 1;
		}
		free(g->slots);
		g->slots = sl;
		g->nslots = ns;
	}
	h = cg_ekey(comm, dso, sym, addr);
	for (size_t j = h & (g->nslots - 1);; j = (j + 1) & (g->nslots - 1)) {
		struct cg_entry *e;

		if (g->slots[j]) {
			e = &g->e[g->slots[j] - 1];
			if (e->comm == comm && e->dso == dso && e->sym == sym && e->addr == addr)
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
		e->addr = addr;
		e->level = level;
		e->tid = tid;
		e->seen = UINT64_MAX;
		g->slots[j] = ++g->n;
		return g->n - 1;
	}
}

static struct cg_node *cg_child(struct cg *g, struct cg_node *n, const char *sym, const char *dso,
				uint64_t addr)
{
	struct cg_node *c;

	for (c = n->child; c; c = c->next)
		if (c->dso == dso && c->name == sym && (sym || c->addr == addr))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		g->oom = true;
		return NULL;
	}
	c->name = sym;
	c->dso = dso;
	c->addr = addr;
	/* perf's dso pointers: none (NULL) for no map, then the kernel's (made
	 * before any MMAP), then the others in about the order they appear */
	c->dso_order = !strcmp(dso, "[unknown]") ? 0 : dso[0] == '[' && strcmp(dso, "[vdso]") ? 1 :
										2 + cg_order(dso);
	c->next = n->child;
	n->child = c;
	n->nchild++;
	return c;
}

/* Appends the chain frames[from], frames[from + step], ... (to, exclusive),
 * as perf's callchain_append() does for one hist entry. */
static void cg_path(struct cg *g, struct cg_entry *e, const struct pm_stack *s, long from, long to,
		    long step, uint64_t p)
{
	struct cg_node *n = &e->root;
	uint64_t depth = 0;

	n->period += p;
	for (long i = from; i != to; i += step) {
		n = cg_child(g, n, g->fsym[i], g->fdso[i], s->addrs[i]);
		if (!n)
			return;
		n->period += p;
		depth++;
	}
	n->hit += p;
	if (depth > e->max_depth)
		e->max_depth = depth;
}

/* perf's hist entries of one sample (hist_entry_iter, cumulative mode):
 * the leaf's entry with the whole chain, then in the callchain cursor's
 * order (callee: leaf to root; caller: root to leaf) every other entry not
 * seen yet in this sample, with the chain from it onwards (callee: it and
 * its callers; caller: it and its callees down to the leaf).  Without
 * --children only the leaf's entry, with the whole chain. */
static int cg_on_stack(void *user, const struct pm_stack *s)
{
	struct cg *g = user;
	const char *comm = cg_intern(g, s->comm);
	long nf = (long)s->nframes;

	if (s->nframes > g->idx_cap || s->nframes > g->f_cap) {
		size_t nc = g->idx_cap ? g->idx_cap * 2 : 64;
		size_t *a;
		const char **fs, **fd;

		while (nc < s->nframes)
			nc *= 2;
		a = realloc(g->idx, nc * sizeof(*a));
		if (a)
			g->idx = a;
		fs = realloc(g->fsym, nc * sizeof(*fs));
		if (fs)
			g->fsym = fs;
		fd = realloc(g->fdso, nc * sizeof(*fd));
		if (fd)
			g->fdso = fd;
		if (!a || !fs || !fd)
			return -ENOMEM;
		g->idx_cap = g->f_cap = nc;
	}
	g->total += s->period;
	g->samples++;
	g->sample_no++;
	for (long i = 0; i < nf; i++) {
		g->fsym[i] = strcmp(s->syms[i], "[unknown]") ? cg_intern(g, s->syms[i]) : NULL;
		g->fdso[i] = cg_intern(g, rep_basename(s->dsos[i]));
	}
	/* Entries are made as perf makes them: the leaf's, then in the cursor's
	 * order.  The level of a frame outside every map is the one before it
	 * in that order (perf's fill_callchain_info() leaves it as it was). */
	{
		char level = s->addrs[0] >> 63 ? 'k' : '.';

		g->idx[0] = cg_entry_of(g, comm, g->fdso[0], g->fsym[0], s->addrs[0], level, s->tid);
		if (g->idx[0] == SIZE_MAX)
			return -ENOMEM;
		for (long k = 0; k < nf; k++) {
			long i = g->caller ? nf - 1 - k : k;

			if (strcmp(g->fdso[i], "[unknown]"))
				level = s->addrs[i] >> 63 ? 'k' : '.';
			if (i == 0)
				continue;
			g->idx[i] = cg_entry_of(g, comm, g->fdso[i], g->fsym[i], s->addrs[i], level, s->tid);
			if (g->idx[i] == SIZE_MAX)
				return -ENOMEM;
		}
	}
	{
		struct cg_entry *e = &g->e[g->idx[0]];

		e->self += s->period;
		e->self_n++;
		e->children += s->period;
		e->children_n++;
		e->seen = g->sample_no;
		if (g->caller)
			cg_path(g, e, s, nf - 1, -1, -1, s->period);
		else
			cg_path(g, e, s, 0, nf, 1, s->period);
	}
	if (!g->children_mode)
		return g->oom ? -ENOMEM : 0;
	for (long k = 1; k < nf; k++) {
		long i = g->caller ? nf - k : k; /* the cursor: root first in caller order */
		struct cg_entry *e = &g->e[g->idx[i]];

		if (e->seen == g->sample_no)
			continue; /* already an entry of this sample (the leaf, recursion) */
		e->seen = g->sample_no;
		e->children += s->period;
		e->children_n++;
		if (g->caller)
			cg_path(g, e, s, i, -1, -1, s->period);
		else
			cg_path(g, e, s, i, nf, 1, s->period);
	}
	return g->oom ? -ENOMEM : 0;
}

static double cg_pct(const struct cg *g, uint64_t v)
{
	return g->total ? 100.0 * (double)v / (double)g->total : 0.0;
}

/* perf's order of siblings: cumulative period, larger first; ties in the
 * order of its rb_root_in, descending (dso, symbol start) (match_chain()):
 * the dso pointer's order guessed (cg_child()), functions of a module by
 * address. */
static int cg_cmp_nodes(const void *a, const void *b)
{
	const struct cg_node *x = *(const struct cg_node *const *)a, *y = *(const struct cg_node *const *)b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->dso_order != y->dso_order)
		return x->dso_order > y->dso_order ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr > y->addr ? -1 : 1;
	return 0;
}

/* Children of n at or above the tree limit, sorted, in a malloc'd array. */
static struct cg_node **cg_sorted(const struct cg *g, const struct cg_node *n, size_t *cnt)
{
	size_t k = 0;
	struct cg_node **v = calloc(n->nchild + 1, sizeof(*v));

	*cnt = 0;
	if (!v)
		return NULL;
	for (struct cg_node *c = n->child; c; c = c->next)
		if (c->period >= g->min_hit)
			v[k++] = c;
	qsort(v, k, sizeof(*v), cg_cmp_nodes);
	*cnt = k;
	return v;
}

/* A frame as perf's callchain_list__sym_name() prints it. */
static void cg_put_frame(const struct cg_node *n)
{
	if (n->name)
		fputs(n->name, stdout);
	else
		printf("%#" PRIx64, n->addr);
}

/* perf's radix nodes are runs of frames: a node goes on into its child
 * while it has exactly one child and no chain ends in it. */
static const struct cg_node *cg_run_next(const struct cg_node *n)
{
	return n->nchild == 1 && n->hit == 0 ? n->child : NULL;
}

static void cg_margin(int left)
{
	printf("            %*s", left, "");
}

/* ipchain__fprintf_graph_line() */
static void cg_graph_line(int depth, unsigned long long mask, int left)
{
	cg_margin(left);
	for (int i = 0; i < depth; i++)
		fputs(i < 64 && (mask & (1ull << i)) ? "|          " : "           ", stdout);
	fputc('\n', stdout);
}

/* __callchain__fprintf_graph(): the children of the run ending at n. */
static void cg_print_graph(const struct cg *g, const struct cg_node *n, int depth,
			   unsigned long long mask, int left)
{
	size_t k;
	struct cg_node **v = cg_sorted(g, n, &k);
	unsigned long long new_mask = mask;

	for (size_t c = 0; c < k; c++) {
		const struct cg_node *r = v[c], *last = r;
		int pos = 0;

		if (c + 1 == k && depth >= 1 && depth <= 64)
			new_mask &= ~(1ull << (depth - 1));
		cg_graph_line(depth, mask, left);
		for (const struct cg_node *x = r; x; x = cg_run_next(x), pos++) {
			last = x;
			cg_margin(left);
			for (int i = 0; i < depth; i++) {
				fputc(i < 64 && (new_mask & (1ull << i)) ? '|' : ' ', stdout);
				if (pos == 0 && i == depth - 1)
					printf("--%.2f%%--", cg_pct(g, r->period));
				else
					fputs("          ", stdout);
			}
			cg_put_frame(x);
			fputc('\n', stdout);
		}
		cg_print_graph(g, last, depth + 1, new_mask | (depth < 64 ? 1ull << depth : 0), left);
	}
	free(v);
}

/* callchain__fprintf_graph(): one entry's tree (nothing when every chain
 * is under the limit); parent is the entry's share (children or self). */
static void cg_print_tree(const struct cg *g, const struct cg_entry *e, uint64_t parent)
{
	size_t k;
	struct cg_node **v = cg_sorted(g, &e->root, &k);
	const struct cg_node *from = &e->root;
	int left = 0;

	if (k == 0) {
		free(v);
		return;
	}
	if (k == 1 && v[0]->period == parent) {
		/* one chain with the entry's whole share: no percentage, "---" */
		const struct cg_node *x;

		for (x = v[0]; x; x = cg_run_next(x)) {
			if (x == v[0]) {
				cg_margin(0);
				fputs("|\n", stdout);
				cg_margin(0);
				fputs("---", stdout);
				left = 3;
			} else {
				cg_margin(left);
			}
			cg_put_frame(x);
			fputc('\n', stdout);
			from = x;
		}
	}
	free(v);
	cg_print_graph(g, from, 1, 1, left);
	fputc('\n', stdout);
}

static void cg_json_tree(const struct cg *g, const struct cg_node *n)
{
	size_t k;
	struct cg_node **v = cg_sorted(g, n, &k);

	fputc('[', stdout);
	for (size_t i = 0; i < k; i++) {
		char buf[32];

		if (i)
			fputc(',', stdout);
		fputs("{\"sym\":", stdout);
		if (!v[i]->name)
			snprintf(buf, sizeof(buf), "%#" PRIx64, v[i]->addr);
		cli_json_str(stdout, v[i]->name ? v[i]->name : buf);
		fputs(",\"dso\":", stdout);
		cli_json_str(stdout, v[i]->dso);
		printf(",\"period\":%" PRIu64 ",\"percent\":%.4f,\"children\":", v[i]->period,
		       cg_pct(g, v[i]->period));
		cg_json_tree(g, v[i]);
		fputc('}', stdout);
	}
	fputc(']', stdout);
	free(v);
}

/* perf's order of entries.  --children: the children period, then (same
 * thread) the caller above the callee: the smaller largest chain first in
 * callee order, the larger in caller order (__hpp__sort_acc()); then the
 * self period, comm, module and symbol names, ascending (an unknown module
 * or symbol last).  --no-children: self period, then the names. */
static int cg_name_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return a ? -1 : b ? 1 : 0;
	return strcmp(a, b);
}

static int cg_cmp_entries(const void *a, const void *b, void *ctx)
{
	const struct cg *g = ctx;
	const struct cg_entry *x = &g->e[*(const size_t *)a], *y = &g->e[*(const size_t *)b];
	int c;

	if (g->children_mode) {
		if (x->children != y->children)
			return x->children > y->children ? -1 : 1;
		if (x->tid == y->tid && x->max_depth != y->max_depth) {
			bool first = g->caller ? x->max_depth > y->max_depth : x->max_depth < y->max_depth;

			return first ? -1 : 1;
		}
	}
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if ((c = strcmp(x->comm, y->comm)))
		return c;
	if ((c = cg_name_cmp(strcmp(x->dso, "[unknown]") ? x->dso : NULL,
			     strcmp(y->dso, "[unknown]") ? y->dso : NULL)))
		return c;
	if ((c = cg_name_cmp(x->sym, y->sym)))
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The entry's symbol column, as perf's _hist_entry__sym_snprintf(). */
static int cg_sym_col(const struct cg_entry *e, char *buf, size_t n)
{
	if (e->sym)
		return snprintf(buf, n, "[%c] %s", e->level, e->sym);
	return snprintf(buf, n, "[%c] %-#.*" PRIx64, e->level, 16, e->addr);
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
	free(g->fsym);
	free(g->fdso);
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
		"  -g [ORDER]       the call graph (recordings with callchains: perf record -g),\n"
		"                   drawn as perf report --stdio -g draws it; ORDER caller or\n"
		"                   callee (default as perf: caller with --children, callee\n"
		"                   with --no-children)\n"
		"  --call-graph ORDER  the same as -g ORDER\n"
		"  --children       entries sorted by inclusive share, with the chains through\n"
		"                   them (the default)\n"
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
	bool tree_limit_set = false, order_set = false;
	size_t wc, wd, ws;
	int err, ret = 1;

	memset(&g, 0, sizeof(g));
	g.children_mode = true;
	g.tree_limit = 0.5;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int in;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cg_usage(stdout);
			return 0;
		} else if (!strcmp(a, "-g")) {
			if (v && (!strcmp(v, "caller") || !strcmp(v, "callee"))) {
				g.caller = !strcmp(argv[++i], "caller");
				order_set = true;
			}
		} else if (!strcmp(a, "--call-graph") && v) {
			if (strcmp(v, "caller") && strcmp(v, "callee")) {
				cli_error("report", "--call-graph caller or callee, not '%s'", v);
				return 2;
			}
			g.caller = !strcmp(v, "caller");
			order_set = true;
			i++;
		} else if (!strncmp(a, "--call-graph=", 13)) {
			if (strcmp(a + 13, "caller") && strcmp(a + 13, "callee")) {
				cli_error("report", "--call-graph caller or callee, not '%s'", a + 13);
				return 2;
			}
			g.caller = !strcmp(a + 13, "caller");
			order_set = true;
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
		} else if ((in = cli_input_opt("report", argc, argv, &i, &o.input, &o.symfs,
						&o.kallsyms))) {
			if (in < 0)
				return 2;
		} else {
			cli_error("report", "-g: unknown option or missing value: %s", a);
			cg_usage(stderr);
			return 2;
		}
	}
	if (tree_limit_set)
		g.tree_limit = g.limit;
	/* perf 6.1's default order: caller with --children, callee without */
	if (!order_set)
		g.caller = g.children_mode;
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
	wc = strlen("Command"), wd = strlen("Shared Object"), ws = strlen("Symbol");
	/* perf: min_callchain_hits = total * (min_percent / 100), as a u64 */
	g.min_hit = (uint64_t)((double)g.total * (g.tree_limit / 100.0));
	if (!g.json) {
		/* column widths as perf's hists__calc_col_len(): every entry */
		char sb[4096];

		for (size_t k = 0; k < g.n; k++) {
			const struct cg_entry *e = &g.e[k];
			size_t l;

			if (!g.children_mode && !e->self)
				continue;
			wc = CG_MAX(wc, strlen(e->comm));
			wd = CG_MAX(wd, strlen(e->dso));
			if (!e->sym)
				wd = CG_MAX(wd, 16);
			l = e->sym ? (size_t)cg_sym_col(e, sb, sizeof(sb)) : 16 + 4 + 2;
			ws = CG_MAX(ws, l);
		}
		printf("# Samples: %" PRIu64 "  total period %" PRIu64 "%s\n#\n", g.samples, g.total,
		       rep_is_synthetic(c) ? "  (SYNTHETIC recording)" : "");
		if (g.children_mode)
			printf("# Children      Self  %-*s  %-*s  %-*s\n", (int)wc, "Command", (int)wd,
			       "Shared Object", (int)ws, "Symbol");
		else
			printf("# Overhead  %-*s  %-*s  %-*s\n", (int)wc, "Command", (int)wd, "Shared Object",
			       (int)ws, "Symbol");
		printf("# ........  %s", g.children_mode ? "........  " : "");
		for (size_t w = 0; w < wc + wd + ws + 4; w++)
			fputc(w == wc || w == wc + 1 || w == wc + wd + 2 || w == wc + wd + 3 ? ' ' : '.', stdout);
		printf("\n#\n");
	}
	for (size_t k = 0; k < g.n; k++) {
		const struct cg_entry *e = &g.e[order[k]];
		double cp = cg_pct(&g, e->children), sp = cg_pct(&g, e->self);
		/* perf's hist_entry__get_percent_limit() is a float */
		float lim = (float)(g.children_mode ? cp : sp);
		char sb[4096];

		if (lim < (float)g.limit || (!g.children_mode && !e->self))
			continue;
		cg_sym_col(e, sb, sizeof(sb));
		if (g.json) {
			fputs("{\"comm\":", stdout);
			cli_json_str(stdout, e->comm);
			fputs(",\"dso\":", stdout);
			cli_json_str(stdout, e->dso);
			fputs(",\"sym\":", stdout);
			cli_json_str(stdout, sb + 4);
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
			printf("%9.2f%%  %7.2f%%  %-*s  %-*s  %s\n", cp, sp, (int)wc, e->comm, (int)wd, e->dso, sb);
		else
			printf("%9.2f%%  %-*s  %-*s  %s\n", sp, (int)wc, e->comm, (int)wd, e->dso, sb);
		cg_print_tree(&g, e, g.children_mode ? e->children : e->self);
	}
	if (!g.json)
		printf("\n\n");
	ret = cli_flush() ? 1 : 0;
out:
	free(order);
	cg_free(&g);
	rep_close(c);
	return ret;
}
