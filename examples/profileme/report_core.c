/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Shared engine of profileme report / annotate (see report_core.h). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "report_agg.h"
#include "report_core.h"
#include "jobs.h"
#include "symmemo.h"

/* ---- interned strings and tid -> comm ------------------------------ */

/* A message of a window kept for the merge (rep_run_jobs): an undecodable
 * attr's (printed once per attr) or a damaged sample's (the first 10 of the
 * whole run printed). */
struct rep_msg {
	bool undec;
	size_t attr;
	char *text;
};


struct rep_str {
	struct rep_str *next;
	char s[];
};

struct rep_comm {
	uint32_t tid;
	uint32_t used;
	const char *comm;
};

struct rep_ctx {
	struct rep_opts o;
	pm_file *f;
	pm_sym *sym;
	pm_raw_ctx *raw;
	size_t nr_attrs;
	bool *is_pm;
	const pm_raw_decoder **ibs;  /* per attr: the IBS decoder, or NULL */
	const pm_raw_decoder *ibs_op, *ibs_fetch;
	int fi_op[24], fi_fetch[16]; /* field indexes (see rep_ibs_fields) */
	uint64_t bad_ibs;
	struct rep_str *strs;       /* every interned string (freed at close) */
	struct rep_comm *comms;     /* open addressing, power of two */
	size_t comm_cap, comm_n;
	struct cli_symmemo memo;    /* lookups by (pid, addr, how) */
	uint32_t last_tid;          /* rep_get_comm's last answer (NULL: none) */
	const char *last_comm;
	uint64_t bad_payloads, lost;
	uint64_t nsamples, bad_samples; /* samples read; not counted (damaged, undecodable) */
	uint64_t ndamaged;              /* of them damaged (said up to 10 times) */
	uint64_t *undec;                /* per attr: samples of an undecodable layout */
	uint64_t *fixed_period;         /* per attr: the period of a sample without PERIOD */
	bool no_core;                   /* PROFILEME_REPORT_NO_CORE: pm_file_sample() whole */
	bool no_preagg;                 /* PROFILEME_REPORT_NO_SUM: every sample to cb alone */
	struct rep_pre *pre;            /* rep_run_n(): samples alike (open addressing) */
	uint16_t *pre_order;            /* their slots in the order of their first sample */
	size_t pre_n;
	size_t nundec;
	/* a chunk of a -j run (rep_run_jobs): the records from a chunk of
	 * jobs.h (owned or state only), messages kept in log, not printed */
	bool win;
	bool f_borrowed;                /* f is a worker's stream reader (jobs.h) */
	bool stopped;                   /* a callback said stop (no memory) */
	struct cli_jobs_chunk *chunk;
	int win_rc;                     /* 0, the reader's error, -ENOMEM (log) */
	char *win_err;                  /* the reader's error message (copy) */
	char *win_end_msg;              /* pm_file_end_status()'s message (copy) */
	struct rep_msg *log;
	size_t log_n, log_cap;
	bool synthetic;
	char arch[128];
	char tid_buf[32];
};

static const char *rep_intern(struct rep_ctx *c, const char *s, size_t n)
{
	/* Few distinct comms: a linear scan of the recent ones would do, but
	 * a program that renames its threads often should not go quadratic.
	 * Keep it simple: compare with the last 64 interned strings. */
	size_t k = 0;
	struct rep_str *p;

	for (p = c->strs; p && k < 64; p = p->next, k++)
		if (!strncmp(p->s, s, n) && p->s[n] == 0)
			return p->s;
	p = malloc(sizeof(*p) + n + 1);
	if (!p)
		return "?";
	memcpy(p->s, s, n);
	p->s[n] = 0;
	p->next = c->strs;
	c->strs = p;
	return p->s;
}

static size_t rep_hash32(uint32_t v)
{
	uint64_t h = (uint64_t)v * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32);
}

static struct rep_comm *rep_comm_slot(struct rep_ctx *c, uint32_t tid, bool add)
{
	if (add && (c->comm_n + 1) * 2 > c->comm_cap) {
		size_t ncap = c->comm_cap ? c->comm_cap * 2 : 256;
		struct rep_comm *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < c->comm_cap; i++) {
			size_t j;

			if (!c->comms[i].used)
				continue;
			for (j = rep_hash32(c->comms[i].tid) & (ncap - 1); n[j].used; j = (j + 1) & (ncap - 1))
				;
			n[j] = c->comms[i];
		}
		free(c->comms);
		c->comms = n;
		c->comm_cap = ncap;
	}
	if (!c->comm_cap)
		return NULL;
	for (size_t j = rep_hash32(tid) & (c->comm_cap - 1);; j = (j + 1) & (c->comm_cap - 1)) {
		if (c->comms[j].used && c->comms[j].tid == tid)
			return &c->comms[j];
		if (!c->comms[j].used) {
			if (!add)
				return NULL;
			c->comms[j].used = 1;
			c->comms[j].tid = tid;
			c->comms[j].comm = NULL;
			c->comm_n++;
			return &c->comms[j];
		}
	}
}

static void rep_set_comm(struct rep_ctx *c, uint32_t tid, const char *comm)
{
	struct rep_comm *e = rep_comm_slot(c, tid, true);

	c->last_comm = NULL; /* names may change: the next sample asks the table */
	if (e)
		e->comm = comm;
}

static const char *rep_get_comm(struct rep_ctx *c, uint32_t tid)
{
	struct rep_comm *e;

	/* Samples come in runs of one thread: the last answer, until a COMM
	 * or FORK record changes the table (rep_set_comm). */
	if (c->last_comm && c->last_tid == tid)
		return c->last_comm;
	e = rep_comm_slot(c, tid, false);
	if (e && e->comm) {
		c->last_tid = tid;
		c->last_comm = e->comm;
		return e->comm;
	}
	/* perf shows a thread it never saw named as ":tid". */
	snprintf(c->tid_buf, sizeof(c->tid_buf), ":%u", tid);
	c->last_tid = tid;
	c->last_comm = rep_intern(c, c->tid_buf, strlen(c->tid_buf));
	return c->last_comm;
}

/* ---- open ---------------------------------------------------------- */

const char *rep_basename(const char *dso)
{
	const char *b;

	if (!dso || dso[0] == '[')
		return dso ? dso : "[unknown]";
	b = strrchr(dso, '/');
	return b && b[1] ? b + 1 : dso;
}

/* The IBS fields the report reads, by name (the decoders' tables). */
static const char *const op_names[] = {
	"op_data", "tag_to_ret_ctr", "comp_to_ret_ctr", "op_brn_ret", "op_brn_taken", "op_brn_misp",
	"op_data3", "ld_op", "st_op", "dc_miss", "dc_l1tlb_miss", "dc_l2tlb_miss", "dc_miss_lat",
	"data_src", "valid",
};
enum { IO_DATA, IO_TAG, IO_COMP, IO_BRET, IO_BTAK, IO_BMISP, IO_DATA3, IO_LD, IO_ST, IO_DCMISS,
       IO_L1TLB, IO_L2TLB, IO_DCLAT, IO_SRC, IO_VALID, IO_N };
static const char *const fetch_names[] = {
	"fetch_lat", "fetch_comp", "ic_miss", "l1tlb_miss", "l2tlb_miss", "fetch_l2_miss",
	"fetch_l3_miss", "fetch_oc_miss", "l1tlb_pgsz", "valid",
};
enum { IF_LAT, IF_COMP, IF_ICM, IF_L1TLB, IF_L2TLB, IF_L2, IF_L3, IF_OC, IF_PGSZ, IF_VALID, IF_N };

static void rep_ibs_fields(struct rep_ctx *c)
{
	for (int i = 0; i < IO_N; i++)
		c->fi_op[i] = c->ibs_op ? pm_raw_field_index(c->ibs_op, op_names[i]) : -1;
	for (int i = 0; i < IF_N; i++)
		c->fi_fetch[i] = c->ibs_fetch ? pm_raw_field_index(c->ibs_fetch, fetch_names[i]) : -1;
}

int rep_event_ibs(struct rep_ctx *c, int i)
{
	if (i < 0 || (size_t)i >= c->nr_attrs || !c->ibs[i])
		return 0;
	return c->ibs[i] == c->ibs_op ? PM_IBS_KIND_OP : PM_IBS_KIND_FETCH;
}

const pm_raw_ctx *rep_raw_ctx(struct rep_ctx *c) { return c->raw; }
uint64_t rep_bad_ibs(struct rep_ctx *c) { return c->bad_ibs; }

const char *rep_ibs_data_src_name(struct rep_ctx *c, int code)
{
	const char *n = c->ibs_op && c->fi_op[IO_SRC] >= 0 ?
				pm_raw_field_code_name(c->ibs_op, c->raw, (size_t)c->fi_op[IO_SRC], (uint64_t)code) :
				NULL;

	return n ? n : "?";
}

const char *rep_ibs_pgsz_name(struct rep_ctx *c, int code)
{
	const char *n = c->ibs_fetch && c->fi_fetch[IF_PGSZ] >= 0 ?
				pm_raw_field_code_name(c->ibs_fetch, c->raw, (size_t)c->fi_fetch[IF_PGSZ],
						       (uint64_t)code) :
				NULL;

	return n ? n : "?";
}

/* Decode an IBS payload into s->ibs and charge it (pm_ibs_attribute). */
static int rep_ibs_decode(struct rep_ctx *c, const pm_raw_decoder *d, const struct pm_sample_core *smp,
			  struct rep_sample *s)
{
	struct pm_ibs_attribution a = { .sz = sizeof(a) };
	uint64_t v[128];
	uint8_t pr[128];
	struct rep_ibs *b = &s->ibs;

	if (pm_ibs_attribute(d, c->raw, smp->raw, smp->raw_size, smp->ip, &a) ||
	    pm_raw_decode_row(d, c->raw, smp->raw, smp->raw_size, v, pr, 128) < 0)
		return -1;
	memset(b, 0, sizeof(*b));
	b->kind = a.kind;
	b->valid = a.valid;
	b->exact = a.exact;
	b->ip_differs = a.ip_differs;
	s->addr = a.addr;
#define P(fi, k) ((fi)[k] >= 0 && pr[(fi)[k]])
#define V(fi, k) (P(fi, k) ? v[(fi)[k]] : 0)
#define T(fi, k) (P(fi, k) ? (int)(v[(fi)[k]] != 0) : -1)
	if (a.kind == PM_IBS_KIND_OP) {
		const int *f = c->fi_op;

		b->has_data = P(f, IO_DATA);
		b->tag_to_ret = (uint32_t)V(f, IO_TAG);
		b->comp_to_ret = (uint32_t)V(f, IO_COMP);
		b->brn_ret = V(f, IO_BRET) != 0;
		b->brn_taken = V(f, IO_BTAK) != 0;
		b->brn_misp = V(f, IO_BMISP) != 0;
		b->has_data3 = P(f, IO_DATA3);
		b->ld = V(f, IO_LD) != 0;
		b->st = V(f, IO_ST) != 0;
		b->dc_miss = V(f, IO_DCMISS) != 0;
		b->dc_l1tlb_miss = V(f, IO_L1TLB) != 0;
		b->dc_l2tlb_miss = V(f, IO_L2TLB) != 0;
		b->dc_miss_lat = (uint32_t)V(f, IO_DCLAT);
		b->data_src = P(f, IO_SRC) ? (int)V(f, IO_SRC) : -1;
	} else {
		const int *f = c->fi_fetch;

		b->fetch_lat = (uint32_t)V(f, IF_LAT);
		b->fetch_comp = V(f, IF_COMP) != 0;
		b->ic_miss = T(f, IF_ICM);
		b->l1tlb_miss = T(f, IF_L1TLB);
		b->l2tlb_miss = T(f, IF_L2TLB);
		b->l2_miss = T(f, IF_L2);
		b->l3_miss = T(f, IF_L3);
		b->oc_miss = T(f, IF_OC);
		b->pgsz = P(f, IF_PGSZ) ? (int)V(f, IF_PGSZ) : -1;
	}
#undef P
#undef V
#undef T
	return 0;
}

/* An error about the input, naming it once (the library's messages about
 * opening a path already start with it). */
static void rep_file_error(const struct rep_opts *o, const char *msg)
{
	size_t n = strlen(o->input);

	if (!strncmp(msg, o->input, n) && msg[n] == ':')
		cli_error(o->cmd, "%s", msg);
	else
		cli_error(o->cmd, "%s: %s", o->input, msg);
}

/* A message kept (a chunk); without memory the chunk fails (win_rc). */
static void rep_log(struct rep_ctx *c, bool undec, size_t attr, const char *text)
{
	char *t = strdup(text);

	if (c->log_n == c->log_cap) {
		size_t nc = c->log_cap ? c->log_cap * 2 : 16;
		struct rep_msg *n = realloc(c->log, nc * sizeof(*n));

		if (!n) {
			free(t);
			c->win_rc = -ENOMEM;
			return;
		}
		c->log = n;
		c->log_cap = nc;
	}
	if (!t) {
		c->win_rc = -ENOMEM;
		return;
	}
	c->log[c->log_n].undec = undec;
	c->log[c->log_n].attr = attr;
	c->log[c->log_n++].text = t;
}

/* A sample that is not counted: said (an undecodable attr once, damaged
 * samples up to 10 times), and counted for the summary of rep_run(). */
static void rep_bad_sample(struct rep_ctx *c, const struct pm_file_record *rec)
{
	const char *why = rec->attr_idx >= 0 ?
		pm_file_attr_layout_error(c->f, (size_t)rec->attr_idx) : NULL;

	c->bad_samples++;
	if (why) {
		size_t i = (size_t)rec->attr_idx;

		if (i >= c->nundec) {
			uint64_t *n = realloc(c->undec, (i + 8) * sizeof(*n));

			if (!n)
				return;
			memset(n + c->nundec, 0, (i + 8 - c->nundec) * sizeof(*n));
			c->undec = n;
			c->nundec = i + 8;
		}
		if (!c->undec[i]++) {
			if (c->win)
				rep_log(c, true, i, why);
			else
				cli_error(c->o.cmd, "%s; its samples are not counted", why);
		}
		return;
	}
	++c->ndamaged;
	if (c->win) {
		if (c->ndamaged <= 11)
			rep_log(c, false, 0, pm_errmsg());
	} else if (c->ndamaged <= 10) {
		cli_error(c->o.cmd, "%s", pm_errmsg());
	} else if (c->ndamaged == 11) {
		cli_error(c->o.cmd, "(further damaged samples not listed)");
	}
}

static int rep_open_on(struct rep_ctx **out, const struct rep_opts *o, pm_file *borrow);

int rep_open(struct rep_ctx **out, const struct rep_opts *o)
{
	return rep_open_on(out, o, NULL);
}

/* rep_open() on an open file (not closed by rep_close()), or on its own. */
static int rep_open_on(struct rep_ctx **out, const struct rep_opts *o, pm_file *borrow)
{
	struct rep_ctx *c = calloc(1, sizeof(*c));
	struct pm_sym_opts so = { .sz = sizeof(so) };
	struct utsname u;
	const char *farch;
	int rc;

	*out = NULL;
	if (!c)
		return 1;
	c->o = *o;
	cli_symmemo_init(&c->memo); /* without memory: no memo, the same answers */
	{
		struct pm_file_opts fo = { .sz = sizeof(fo), .strict = o->strict };

		if (borrow) {
			c->f = borrow;
			c->f_borrowed = true;
			rc = 0;
		} else {
			rc = pm_file_open(&c->f, o->input, &fo);
		}
	}
	if (rc) {
		rep_file_error(o, pm_errmsg());
		cli_symmemo_free(&c->memo);
		free(c);
		return 1;
	}
	c->nr_attrs = pm_file_nr_attrs(c->f);
	c->is_pm = calloc(c->nr_attrs ? c->nr_attrs : 1, sizeof(bool));
	if (!c->is_pm || pm_raw_ctx_new_from_file(&c->raw, c->f)) {
		rep_close(c);
		return 1;
	}
	c->ibs = calloc(c->nr_attrs ? c->nr_attrs : 1, sizeof(*c->ibs));
	if (!c->ibs) {
		rep_close(c);
		return 1;
	}
	c->fixed_period = calloc(c->nr_attrs ? c->nr_attrs : 1, sizeof(*c->fixed_period));
	if (!c->fixed_period) {
		rep_close(c);
		return 1;
	}
	for (size_t i = 0; i < c->nr_attrs; i++) {
		/* A fixed period (-c) is not written in each sample. */
		const struct pm_attr *at = pm_file_attr(c->f, i);

		c->fixed_period[i] = at && !(at->flags & PM_ATTR_FREQ) && at->sample_period ?
					     at->sample_period : 1;
	}
	/* PROFILEME_REPORT_NO_CORE=1: every sample parsed whole by
	 * pm_file_sample() (the general path tests/cli compare with). */
	c->no_core = getenv("PROFILEME_REPORT_NO_CORE") != NULL;
	/* PROFILEME_REPORT_NO_SUM=1: rep_run_n() hands every sample to cb
	 * alone (the general path of the sums; tests/cli). */
	c->no_preagg = getenv("PROFILEME_REPORT_NO_SUM") != NULL;
	c->ibs_op = pm_raw_decoder_find("ibs_op");
	c->ibs_fetch = pm_raw_decoder_find("ibs_fetch");
	rep_ibs_fields(c);
	for (size_t i = 0; i < c->nr_attrs; i++) {
		const pm_raw_decoder *d = NULL;

		if (pm_raw_ctx_select(c->raw, pm_file_attr(c->f, i), &d) || !d)
			continue;
		if (!strcmp(pm_raw_decoder_name(d), "alpha_profileme"))
			c->is_pm[i] = true;
		else if (d == c->ibs_op || d == c->ibs_fetch)
			c->ibs[i] = d;
	}

	uname(&u);
	farch = pm_file_feature_string(c->f, PM_FEAT_ARCH);
	snprintf(c->arch, sizeof(c->arch), "%s", farch ? farch : u.machine);
	c->synthetic = pm_file_is_synthetic(c->f);
	o = &c->o;

	so.sysroot = o->symfs;
	so.kallsyms = o->kallsyms;
	so.path = o->input; /* a synthetic recording's sidecar (the library decides) */
	/* The library decides whether this machine's kallsyms fits the recording. */
	rc = pm_sym_new_from_file(&c->sym, c->f, &so);
	if (rc && rc != -PM_ERR_UNSUPPORTED) {
		cli_error(o->cmd, "symbols: %s", pm_errmsg());
		rep_close(c);
		return 1;
	}
	if (c->sym) {
		const char *side = cli_sym_sidecar(o->cmd, c->sym, o->quiet);

		if (side && !c->o.symfs)
			c->o.symfs = side; /* annotate reads the files there too */
	}
	if (c->sym && !o->quiet) {
		switch (pm_sym_kernel_status(c->sym)) {
		case PM_SYM_KERNEL_FOREIGN:
			for (int i = 0; i < pm_sym_diag_count(c->sym); i++) {
				struct pm_sym_diag d = { .sz = sizeof(d) };

				if (pm_sym_diag_get(c->sym, (size_t)i, &d) == 0 &&
				    d.code == PM_SYM_DIAG_FOREIGN_KERNEL)
					fprintf(stderr, "profileme %s: %s (--kallsyms FILE gives some)\n",
						o->cmd, d.message);
			}
			break;
		case PM_SYM_KERNEL_OK:
			fprintf(stderr, "profileme %s: kernel symbols from %s\n", o->cmd,
				pm_sym_kallsyms_path(c->sym));
			break;
		case PM_SYM_KERNEL_RESTRICTED:
			fprintf(stderr, "profileme %s: kernel addresses hidden (kernel.kptr_restrict); "
					"kernel samples show as [unknown]\n", o->cmd);
			break;
		case PM_SYM_KERNEL_UNREADABLE:
			fprintf(stderr, "profileme %s: kernel symbols unreadable (%s); kernel samples "
					"show as [unknown]\n", o->cmd, pm_sym_kallsyms_path(c->sym));
			break;
		default:
			break;
		}
	}
	*out = c;
	return 0;
}

void rep_close(struct rep_ctx *c)
{
	if (!c)
		return;
	pm_sym_free(c->sym);
	pm_raw_ctx_free(c->raw);
	if (!c->f_borrowed)
		pm_file_close(c->f);
	cli_symmemo_free(&c->memo);
	free(c->is_pm);
	free(c->ibs);
	free(c->undec);
	free(c->fixed_period);
	for (size_t i = 0; i < c->log_n; i++)
		free(c->log[i].text);
	free(c->log);
	free(c->win_end_msg);
	free(c->win_err);
	free(c->pre);
	free(c->pre_order);
	free(c->comms);
	while (c->strs) {
		struct rep_str *n = c->strs->next;

		free(c->strs);
		c->strs = n;
	}
	free(c);
}

pm_file *rep_file(struct rep_ctx *c) { return c->f; }
pm_sym *rep_symbolizer(struct rep_ctx *c) { return c->sym; }
bool rep_is_synthetic(struct rep_ctx *c) { return c->synthetic; }
uint64_t rep_bad_payloads(struct rep_ctx *c) { return c->bad_payloads; }
uint64_t rep_lost(struct rep_ctx *c) { return c->lost; }
const char *rep_arch(struct rep_ctx *c) { return c->arch; }

bool rep_event_is_pm(struct rep_ctx *c, int i)
{
	return i >= 0 && (size_t)i < c->nr_attrs && c->is_pm[i];
}

const char *rep_event_name(struct rep_ctx *c, int i)
{
	const char *n = i >= 0 ? pm_file_event_name(c->f, (size_t)i) : NULL;

	return n ? n : "?";
}

const char *rep_dso_path(struct rep_ctx *c, const char *dso, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", c->o.symfs ? c->o.symfs : "", dso);
	return buf;
}

/* ---- the loop ------------------------------------------------------ */

static void rep_side_record(struct rep_ctx *c, const struct pm_file_record *rec, bool owned)
{
	struct pm_record r;

	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	if (pm_file_record_parse(c->f, rec, &r) < 0)
		return;
	if (c->sym) {
		pm_sym_add_record(c->sym, &r); /* the library's policy: docs/symbol.md */
		cli_symmemo_changed(&c->memo);
	}
	switch (rec->type) {
	case PM_RECORD_COMM:
		rep_set_comm(c, r.comm.tid, rep_intern(c, r.comm.comm, r.comm.comm_len));
		break;
	case PM_RECORD_FORK: {
		struct rep_comm *p = rep_comm_slot(c, r.task.ptid, false);

		if (p && p->comm)
			rep_set_comm(c, r.task.tid, p->comm);
		break;
	}
	case PM_RECORD_LOST:
	case PM_RECORD_LOST_SAMPLES:
		if (owned) /* -j: a record before the chunk is an earlier chunk's */
			c->lost += r.lost.lost;
		break;
	default:
		break;
	}
}

static char rep_level(int cpumode)
{
	switch (cpumode) {
	case PM_RECORD_MISC_KERNEL: return 'k';
	case PM_RECORD_MISC_GUEST_KERNEL: return 'g';
	case PM_RECORD_MISC_HYPERVISOR: return 'H';
	default: return '.';
	}
}

/* The first n bytes of p zeroed in fixed 32-byte pieces: vector stores,
 * where one memset of this size became `rep stos` (slow to start, and a
 * fifth of the loop's time). */
static inline void rep_zero(void *p, size_t n)
{
	char *b = p;
	size_t i;

	for (i = 0; i + 32 <= n; i += 32)
		memset(b + i, 0, 32);
	memset(b + i, 0, n - i);
}

/* The symbol, module and level of a sample, from its charged address. */
static void rep_resolve(struct rep_ctx *c, struct rep_sample *s, bool memo)
{
	s->sym = "[unknown]";
	s->dso = "[unknown]";
	s->dso_addr = s->addr;
	if (s->is_pm && s->pm_charge == PM_PROFILEME_CHARGE_PALCODE) {
		/* A physical PALcode address: no symbol table covers it. */
		s->dso = "[PALcode]";
		s->sym = "[PALcode]";
		s->level = 'k';
	} else if (c->sym) {
		struct pm_sym_result r = { .sz = sizeof(r) };
		uint32_t how = 0;
		int mode = s->cpumode, lrc;

		if (s->is_pm)
			mode = (s->addr >> 63) ? PM_RECORD_MISC_KERNEL : PM_RECORD_MISC_USER;
		s->level = rep_level(mode);
		how = pm_sym_lookup_how(mode);
		if (memo) {
			lrc = cli_sym_lookup(&c->memo, c->sym, (int32_t)s->pid, s->addr, how, &r);
		} else {
			r.sz = sizeof(r);
			lrc = pm_sym_lookup(c->sym, (int32_t)s->pid, s->addr, how, &r);
		}
		if (lrc == 0) {
			s->sym = r.name ? r.name : "[unknown]";
			s->dso = r.dso ? r.dso : "[unknown]";
			s->dso_addr = r.dso_addr;
			s->sym_start = r.sym_start;
			s->sym_known = !(r.flags & PM_SYM_UNKNOWN);
			if (r.flags & PM_SYM_NO_MAP)
				s->dso_addr = s->addr;
		}
	} else if (s->level == 'k') {
		s->dso = "[kernel.kallsyms]";
	}
}

/* The fields of a sample the report reads: pm_file_sample_core(), or
 * (no_core) the same fields of pm_file_sample()'s whole parse. */
static int rep_sample_core(struct rep_ctx *c, const struct pm_file_record *rec, struct pm_sample_core *o)
{
	struct pm_sample smp;

	if (!c->no_core)
		return pm_file_sample_core(c->f, rec, o);
	smp.sz = sizeof(smp); /* pm_sample_parse() zeroes the rest */
	if (pm_file_sample(c->f, rec, &smp) < 0)
		return -1;
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->present = smp.present;
	o->misc = smp.misc;
	o->id = smp.id;
	o->ip = smp.ip;
	o->time = smp.time;
	o->addr = smp.addr;
	o->period = smp.period;
	o->pid = smp.pid;
	o->tid = smp.tid;
	o->cpu = smp.cpu;
	if (smp.present & PM_SAMPLE_RAW) {
		o->raw = smp.raw.data;
		o->raw_size = smp.raw.size;
	}
	return 0;
}

/* ---- samples alike, summed between two other records (rep_run_n) ---- */

#define REP_PRE_SLOTS 4096u  /* power of two */
#define REP_PRE_MAX 2048u    /* entries before a flush: half the slots */

/* One slot of the table, the sums in it (one memory access per sample);
 * attr_mode: the attr index << 8 | the cpumode (attr indexes below 2^24),
 * n = 0: an empty slot. */
struct rep_pre {
	uint64_t ip, period;
	uint32_t pid, tid;
	uint32_t n, attr_mode;
};

static size_t rep_pre_slot(uint64_t ip, uint32_t pid, uint32_t tid, uint32_t attr_mode)
{
	uint64_t h = ip ^ ((uint64_t)pid << 32 | tid) * 0xC2B2AE3D27D4EB4Full ^
		     (uint64_t)attr_mode * 0x165667B19E3779F9ull;

	/* the finaliser of MurmurHash3 (public domain), on 64 bits */
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDull;
	h ^= h >> 33;
	return (size_t)h & (REP_PRE_SLOTS - 1);
}

/* Hand out every summed entry, in the order of its first sample, and empty
 * the table; returns the first nonzero answer of cbn. */
static int rep_pre_flush(struct rep_ctx *c, rep_cb_n cbn, void *user)
{
	struct rep_sample s;
	int stop = 0;

	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < c->pre_n; i++) {
		struct rep_pre *p = &c->pre[c->pre_order[i]];

		if (!stop) {
			rep_zero(&s, offsetof(struct rep_sample, pm));
			s.event_idx = (int)(p->attr_mode >> 8);
			s.pid = p->pid;
			s.tid = p->tid;
			s.ip = s.addr = p->ip;
			s.period = p->period;
			s.cpumode = (int)(p->attr_mode & 0xff);
			s.level = rep_level(s.cpumode);
			s.comm = rep_get_comm(c, p->tid);
			/* the entries of one flush are distinct and the memo forgets
			 * at the side record that ends it: asked directly (the memo's
			 * pages stay untouched for recordings without payloads) */
			rep_resolve(c, &s, false);
			stop = cbn(user, &s, p->n, p->period);
		}
		p->n = 0;
	}
	c->pre_n = 0;
	return stop;
}

/* One more sample of the table (0), or -1 when it is full (flush first). */
static int rep_pre_add(struct rep_ctx *c, const struct pm_sample_core *smp, uint32_t attr_mode,
		       uint64_t period)
{
	size_t j = rep_pre_slot(smp->ip, smp->pid, smp->tid, attr_mode);
	struct rep_pre *p;

	for (;; j = (j + 1) & (REP_PRE_SLOTS - 1)) {
		p = &c->pre[j];
		if (!p->n)
			break;
		if (p->ip == smp->ip && p->pid == smp->pid && p->tid == smp->tid &&
		    p->attr_mode == attr_mode) {
			if (p->n == UINT32_MAX || p->period > UINT64_MAX - period)
				return -1; /* handed out, then counted afresh */
			p->n++;
			p->period += period;
			return 0;
		}
	}
	if (c->pre_n >= REP_PRE_MAX)
		return -1;
	c->pre_order[c->pre_n++] = (uint16_t)j;
	p->ip = smp->ip;
	p->pid = smp->pid;
	p->tid = smp->tid;
	p->attr_mode = attr_mode;
	p->n = 1;
	p->period = period;
	return 0;
}

int rep_run(struct rep_ctx *c, rep_cb cb, void *user)
{
	return rep_run_n(c, cb, NULL, user);
}

int rep_run_n(struct rep_ctx *c, rep_cb cb, rep_cb_n cbn, void *user)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct pm_file_info fi = { .sz = sizeof(fi) };
	struct pm_sample_core smp = { .sz = sizeof(smp) };
	struct rep_sample s;
	struct cli_progress prog;
	uint64_t nrec = 0, nsamples = 0;
	bool tail_dirty = false;
	int rc;

	memset(&s, 0, sizeof(s));
	if (c->no_preagg)
		cbn = NULL;
	if (cbn && !c->pre) {
		c->pre = calloc(REP_PRE_SLOTS, sizeof(*c->pre));
		c->pre_order = malloc(REP_PRE_MAX * sizeof(*c->pre_order));
		if (!c->pre || !c->pre_order)
			cbn = NULL; /* no memory: one sample at a time, the same sums */
	}
	pm_file_get_info(c->f, &fi);
	cli_progress_init(&prog, c->o.cmd, c->o.quiet || c->win);
	for (;;) {
		bool owned = true;

		rc = c->chunk ? cli_jobs_next(c->chunk, &rec, &owned) : pm_file_next(c->f, &rec);
		if (rc <= 0)
			break;
		if (prog.on && !(++nrec & 0xfff))
			cli_progress_update(&prog, rec.offset, fi.file_size, nsamples);
		if (rec.type != PM_RECORD_SAMPLE) {
			if (rec.type < PM_RECORD_USER_TYPE_START) {
				/* the summed samples saw the maps and names before it */
				if (c->pre_n && rep_pre_flush(c, cbn, user)) {
					c->stopped = true;
					break;
				}
				rep_side_record(c, &rec, owned);
			}
			continue;
		}
		if (!owned)
			continue; /* -j: an earlier chunk's sample */
		c->nsamples++;
		if (rep_sample_core(c, &rec, &smp) < 0) {
			rep_bad_sample(c, &rec);
			continue;
		}
		nsamples++;
		if (cbn && !c->is_pm[rec.attr_idx] && !c->ibs[rec.attr_idx] && rec.attr_idx < (1 << 24)) {
			uint64_t period = (smp.present & PM_SAMPLE_PERIOD) ? smp.period :
									      c->fixed_period[rec.attr_idx];
			uint32_t am = (uint32_t)rec.attr_idx << 8 | (smp.misc & PM_RECORD_MISC_CPUMODE_MASK);

			if (rep_pre_add(c, &smp, am, period) == 0)
				continue;
			if (rep_pre_flush(c, cbn, user)) {
				c->stopped = true;
				break;
			}
			rep_pre_add(c, &smp, am, period); /* an empty table has room */
			continue;
		}
		/* a sample handed out alone comes after the summed ones before it */
		if (c->pre_n && rep_pre_flush(c, cbn, user)) {
			c->stopped = true;
			break;
		}
		/* The ProfileMe and IBS parts are zeroed only after a sample that
		 * wrote them (most samples have neither): a few hundred bytes less
		 * to clear per sample. */
		rep_zero(&s, offsetof(struct rep_sample, pm));
		if (tail_dirty) {
			memset(&s.pm, 0, sizeof(s) - offsetof(struct rep_sample, pm));
			tail_dirty = false;
		}
		s.event_idx = rec.attr_idx;
		s.pid = smp.pid;
		s.tid = smp.tid;
		s.ip = s.addr = smp.ip;
		/* rec.attr_idx is an attr's: pm_file_sample_core() decoded it */
		s.period = (smp.present & PM_SAMPLE_PERIOD) ? smp.period : c->fixed_period[rec.attr_idx];
		s.cpumode = smp.misc & PM_RECORD_MISC_CPUMODE_MASK;
		s.level = rep_level(s.cpumode);
		s.comm = rep_get_comm(c, smp.tid);
		if (rep_event_is_pm(c, rec.attr_idx) && (smp.present & PM_SAMPLE_RAW)) {
			tail_dirty = true;
			s.pm.sz = sizeof(s.pm);
			if (pm_profileme_decode(smp.raw, smp.raw_size, &s.pm) == 0) {
				struct pm_profileme_attribution a = { .sz = sizeof(a) };

				/* The kernel's rule (pm_profileme_attribute): the profiled
				 * pc; for a PAL redirect the trapping instruction (the ip);
				 * [PALcode] for other PALmode PMPCs; the ip for a user PMPC
				 * sampled in a kernel thread. */
				pm_profileme_attribute(&s.pm, smp.ip, &a);
				s.is_pm = true;
				s.addr = a.addr;
				s.pm_charge = a.charge;
				s.skid_valid = a.skid_valid;
				if (a.skid_valid && a.skid) {
					s.skid = true;
					s.skid_dist = a.skid;
				}
			} else {
				s.pm_bad = true;
				c->bad_payloads++;
			}
		} else if (rep_event_ibs(c, rec.attr_idx) && (smp.present & PM_SAMPLE_RAW)) {
			tail_dirty = true;
			if (rep_ibs_decode(c, c->ibs[rec.attr_idx], &smp, &s) == 0) {
				s.is_ibs = true;
			} else {
				s.ibs_bad = true;
				c->bad_ibs++;
			}
		}
		rep_resolve(c, &s, true);
		if (cb(user, &s)) {
			c->stopped = true;
			break;
		}
	}
	if (c->pre_n && rep_pre_flush(c, cbn, user)) /* the samples before the end, or damage, count */
		c->stopped = true;
	if (c->win) {
		const char *msg = NULL;

		if (rc < 0 && !c->win_rc) {
			c->win_rc = rc;
			c->win_err = strdup(pm_errmsg());
		}
		if (rc >= 0 && cli_jobs_last(c->chunk) && pm_file_end_status(c->f, NULL, &msg) < 0 && msg)
			c->win_end_msg = strdup(msg);
		return 0; /* said by rep_run_jobs() */
	}
	if (prog.on)
		cli_progress_update(&prog, fi.file_size ? fi.file_size : rec.offset, fi.file_size, nsamples);
	cli_progress_done(&prog);
	if (rc < 0) {
		rep_file_error(&c->o, pm_errmsg());
	} else {
		const char *msg;

		if (pm_file_end_status(c->f, NULL, &msg) < 0)
			cli_error(c->o.cmd, "warning: %s: %s; the stream ends there (--strict makes "
				  "this an error)", c->o.input, msg);
	}
	if (c->bad_samples)
		cli_error(c->o.cmd, "%" PRIu64 " of %" PRIu64 " samples not counted (damaged or not "
			  "decodable)", c->bad_samples, c->nsamples);
	/* the report of what was read is still printed; the exit says damage */
	return rc < 0 || c->bad_samples ? 1 : 0;
}

/* ---- -j N: the chunks of jobs.h, one table each ----------------------- */

/* What one chunk gave (in a worker), for the merge (in the caller). */
struct rep_jres {
	struct rep_agg agg;
	struct rep_msg *log;
	size_t log_n;
	uint64_t nsamples, bad, badpm, badibs, lost;
	int rc;              /* the reader's error met in the chunk */
	char *err, *end_msg;
	bool stopped;
};

struct rep_jobs {
	struct rep_ctx *c0;
	struct rep_agg *agg;           /* the caller's: the merge */
	pthread_mutex_t mu;
	struct rep_ctx **ws;           /* the workers' contexts (names live until rep_jobs_free) */
	size_t nws;
	/* the merge, in chunk order */
	bool *said;                    /* undecodable attrs said */
	uint64_t nd, nsamples, bad, badpm, badibs, lost;
	int rc;
	char *err, *end_msg;
	bool nomem;
};

static int rep_job_cb(void *user, const struct rep_sample *s)
{
	return rep_agg_add(user, s) ? 1 : 0;
}

static int rep_job_cb_n(void *user, const struct rep_sample *s, uint64_t n, uint64_t period)
{
	return rep_agg_add_n(user, s, n, period) ? 1 : 0;
}

static void rep_jres_free(struct rep_jres *r)
{
	if (!r)
		return;
	rep_agg_free(&r->agg);
	for (size_t i = 0; i < r->log_n; i++)
		free(r->log[i].text);
	free(r->log);
	free(r->err);
	free(r->end_msg);
	free(r);
}

/* A worker's context on its stream reader g (its symbolizer, names, memo). */
static int rep_job_init(void *user, pm_file *g, void **ws)
{
	struct rep_jobs *J = user;
	struct rep_opts o = J->c0->o;
	struct rep_ctx *c = NULL, **n;

	o.quiet = true; /* c0 said the notices */
	if (rep_open_on(&c, &o, g))
		return 2;
	c->win = true;
	pthread_mutex_lock(&J->mu);
	n = realloc(J->ws, (J->nws + 1) * sizeof(*n));
	if (n) {
		J->ws = n;
		J->ws[J->nws++] = c;
	}
	pthread_mutex_unlock(&J->mu);
	if (!n) {
		rep_close(c);
		return 2;
	}
	*ws = c;
	return 0;
}

static int rep_job_run(void *user, void *ws, struct cli_jobs_chunk *ch, void **result)
{
	struct rep_jobs *J = user;
	struct rep_ctx *c = ws;
	struct rep_jres *r = calloc(1, sizeof(*r));

	*result = r;
	if (!r || rep_agg_init(&r->agg, J->agg->keys, J->agg->nr_events))
		return -ENOMEM;
	/* the chunk's own counts and messages (a context reads many chunks) */
	c->chunk = ch;
	c->nsamples = c->bad_samples = c->ndamaged = c->bad_payloads = c->bad_ibs = c->lost = 0;
	if (c->undec)
		memset(c->undec, 0, c->nundec * sizeof(*c->undec));
	c->win_rc = 0;
	rep_run_n(c, rep_job_cb, rep_job_cb_n, &r->agg);
	c->chunk = NULL;
	r->log = c->log;
	r->log_n = c->log_n;
	c->log = NULL;
	c->log_n = c->log_cap = 0;
	r->nsamples = c->nsamples;
	r->bad = c->bad_samples;
	r->badpm = c->bad_payloads;
	r->badibs = c->bad_ibs;
	r->lost = c->lost;
	r->rc = c->win_rc;
	r->err = c->win_err;
	r->end_msg = c->win_end_msg;
	c->win_err = c->win_end_msg = NULL;
	r->stopped = c->stopped;
	return 0;
}

/* Chunk k's table and messages, in chunk order (the caller's thread). */
static int rep_job_done(void *user, size_t k, void *result, int rc)
{
	struct rep_jobs *J = user;
	struct rep_jres *r = result;
	struct rep_ctx *c0 = J->c0;

	(void)k;
	if (rc || !r || r->stopped || r->rc == -ENOMEM || rep_agg_merge(J->agg, &r->agg)) {
		rep_jres_free(r);
		J->nomem = true;
		cli_error(c0->o.cmd, "out of memory");
		return 2;
	}
	/* the messages, by the rules of one thread (rep_bad_sample) */
	for (size_t m = 0; m < r->log_n; m++) {
		const struct rep_msg *g = &r->log[m];

		if (g->undec) {
			if (J->said && g->attr < c0->nr_attrs) {
				if (J->said[g->attr])
					continue;
				J->said[g->attr] = true;
			}
			cli_error(c0->o.cmd, "%s; its samples are not counted", g->text);
		} else if (++J->nd <= 10) {
			cli_error(c0->o.cmd, "%s", g->text);
		} else if (J->nd == 11) {
			cli_error(c0->o.cmd, "(further damaged samples not listed)");
		}
	}
	J->nsamples += r->nsamples;
	J->bad += r->bad;
	J->badpm += r->badpm;
	J->badibs += r->badibs;
	J->lost += r->lost;
	if (r->rc < 0 && !J->rc) { /* the stream ends there: later chunks have no records */
		J->rc = r->rc;
		J->err = r->err;
		r->err = NULL;
	}
	if (r->end_msg && !J->end_msg) {
		J->end_msg = r->end_msg;
		r->end_msg = NULL;
	}
	rep_jres_free(r);
	return 0;
}

static void rep_job_discard(void *user, void *result)
{
	(void)user;
	rep_jres_free(result);
}

void rep_jobs_free(struct rep_jobs *J)
{
	if (!J)
		return;
	for (size_t i = 0; i < J->nws; i++)
		rep_close(J->ws[i]);
	free(J->ws);
	free(J->said);
	free(J->err);
	free(J->end_msg);
	pthread_mutex_destroy(&J->mu);
	free(J);
}

int rep_run_jobs(struct rep_ctx **cp, int jobs, struct rep_agg *agg, struct rep_jobs **out, bool *damaged)
{
	struct rep_ctx *c0 = *cp;
	struct pm_file_opts fo = { .sz = sizeof(fo), .strict = c0->o.strict };
	struct cli_jobs j = { 0 };
	struct rep_jobs *J = calloc(1, sizeof(*J));
	int rc;

	*out = NULL;
	if (!J) {
		cli_error(c0->o.cmd, "out of memory");
		return -1;
	}
	pthread_mutex_init(&J->mu, NULL);
	J->c0 = c0;
	J->agg = agg;
	J->said = calloc(c0->nr_attrs ? c0->nr_attrs : 1, sizeof(bool));
	j.cmd = c0->o.cmd;
	j.path = c0->o.input;
	j.f = c0->f;
	j.fopts = &fo; /* as rep_open() opens it */
	j.jobs = jobs;
	j.mode = CLI_JOBS_STREAM;
	j.user = J;
	j.worker_init = rep_job_init;
	j.run = rep_job_run;
	j.done = rep_job_done;
	j.discard = rep_job_discard;
	rc = cli_jobs_run(&j, NULL);
	if (rc == 1 && !J->nws) {
		rep_jobs_free(J); /* one chunk (pipe, zstd, small, damage): as -j 1 */
		return 1;
	}
	if (rc) {
		if (!J->nomem && rc > 1)
			cli_error(c0->o.cmd, "-j: the worker threads could not start");
		*out = J;
		return -1;
	}
	c0->nsamples = J->nsamples;
	c0->bad_samples = J->bad;
	c0->bad_payloads = J->badpm;
	c0->bad_ibs = J->badibs;
	c0->lost = J->lost;
	/* the end of rep_run_n(), for the whole stream */
	if (J->rc < 0) {
		rep_file_error(&c0->o, J->err ? J->err : pm_strerror(J->rc));
	} else if (J->end_msg) {
		cli_error(c0->o.cmd, "warning: %s: %s; the stream ends there (--strict makes "
			  "this an error)", c0->o.input, J->end_msg);
	}
	if (J->bad)
		cli_error(c0->o.cmd, "%" PRIu64 " of %" PRIu64 " samples not counted (damaged or not "
			  "decodable)", J->bad, J->nsamples);
	*damaged = J->rc < 0 || J->bad != 0;
	*out = J;
	return 0;
}
