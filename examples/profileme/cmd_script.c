/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * profileme script: print the samples of a perf.data file like `perf script`,
 * as JSON lines (--json, --all), the header (--header) or a record dump (-D).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>
#include <profileme/fmt.h>

#include "cli.h"
#include "jobs.h"
#include "progress.h"
#include "symmemo.h"

#define PM_MIN_(a, b) ((a) < (b) ? (a) : (b))

/* ------------------------------------------------------------------ */
/* fast output buffer */

/* Where the output goes: a 64 KiB buffer flushed to stdout (-j 1), or, in
 * a -j worker thread, the growing buffer of the chunk being formatted. */
static char ob_stdout[1 << 16];
static __thread char *ob = ob_stdout;
static __thread size_t obn, obcap = sizeof(ob_stdout);
static __thread bool obgrow, ob_oom;

static void o_flush(void)
{
	if (obgrow)
		return; /* a chunk's buffer: the calling thread writes it */
	if (obn && fwrite(ob, 1, obn, stdout) != obn)
		cli_out_note();
	obn = 0;
}

/* Room for n more bytes in a chunk's buffer (false without memory: what
 * the chunk formatted is then dropped and the chunk fails). */
static bool o_grow(size_t n)
{
	size_t nc = obcap * 2;
	char *t;

	if (nc < obn + n)
		nc = obn + n;
	t = ob_oom ? NULL : realloc(ob, nc);
	if (!t) {
		ob_oom = true;
		obn = 0;
		return obcap >= n;
	}
	ob = t;
	obcap = nc;
	return true;
}

static void o_room(size_t n)
{
	if (obn + n > obcap) {
		if (obgrow)
			(void)o_grow(n);
		else
			o_flush();
	}
}

static void o_mem(const char *s, size_t n)
{
	if (!obgrow && n > obcap / 2) {
		o_flush();
		if (fwrite(s, 1, n, stdout) != n)
			cli_out_note();
		return;
	}
	o_room(n);
	if (obn + n > obcap)
		return; /* no memory (ob_oom) */
	pm_fmt_copy(ob + obn, s, n);
	obn += n;
}

static void o_str(const char *s)
{
	o_mem(s, strlen(s));
}

static void o_ch(char c)
{
	o_room(1);
	ob[obn++] = c;
}

static void o_pad(int n)
{
	if (n <= 0)
		return;
	if ((size_t)n > obcap / 2) {
		while (n-- > 0)
			o_ch(' ');
		return;
	}
	o_room((size_t)n);
	memset(ob + obn, ' ', (size_t)n);
	obn += (size_t)n;
}

/* Digits go straight into the buffer, counted first: a copy of bytes
 * just stored would stall. */
static void o_digits(uint64_t v, int n)
{
	o_room((size_t)n);
	pm_fmt_dec_fixed(ob + obn, v, (unsigned)n);
	obn += (size_t)n;
}

/* right-aligned decimal in width w */
static void o_dec(uint64_t v, int w)
{
	int n = (int)pm_fmt_dec_len(v);

	if (w > n)
		o_pad(w - n);
	o_digits(v, n);
}

static void o_dec_left(uint64_t v, int w)
{
	int n = (int)pm_fmt_dec_len(v);

	o_digits(v, n);
	o_pad(w - n);
}

static inline void hex16_at(char *o, uint64_t v);

static void o_hex(uint64_t v, int w)
{
	int n = (int)pm_fmt_hex_len(v);

	if (w == 16) {
		o_room(16);
		hex16_at(ob + obn, v);
		obn += n > 16 ? (size_t)n : 16;
		return;
	}

	if (w > n)
		o_pad(w - n);
	o_room(16);
	obn += pm_fmt_hex(ob + obn, v);
}

/* v in hex right-aligned in 16 columns (spaces before it), as o_hex(v, 16):
 * the 16 digits computed side by side, 8 in a word. */
static inline void hex16_at(char *o, uint64_t v)
{
	uint64_t w[2];
	unsigned n = pm_fmt_hex_len(v);

	for (int h = 0; h < 2; h++) {
		uint64_t x = h ? (v & 0xffffffffu) : (v >> 32), m;

		x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
		x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
		x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
		/* 'a'-'9'-1 more for the nibbles above 9 */
		m = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
		x += 0x3030303030303030ULL + m * 39;
		w[h] = __builtin_bswap64(x);
	}
	memcpy(o, w, 16);
	if (n < 16)
		memset(o, ' ', 16 - n);
}

static void o_time(uint64_t t, bool ns)
{
	uint64_t r = t % 1000000000ULL;

	o_dec(t / 1000000000ULL, 5);
	o_room(10);
	ob[obn++] = '.';
	if (!ns)
		r /= 1000;
	pm_fmt_dec_fixed(ob + obn, r, ns ? 9 : 6);
	obn += ns ? 9 : 6;
}

/* ------------------------------------------------------------------ */
/* comm per tid */

struct comm_ent {
	uint32_t tid;
	bool used;
	uint8_t len;
	char comm[17];
};

static __thread struct comm_ent *ctab;
static __thread size_t ccap, ccount;

static struct comm_ent *comm_slot(uint32_t tid, bool create)
{
	size_t i;

	if (!ccap) {
		if (!create)
			return NULL;
		ccap = 1024;
		ctab = calloc(ccap, sizeof(*ctab));
		if (!ctab)
			return NULL;
	}
	if (create && (ccount + 1) * 2 > ccap) {
		struct comm_ent *old = ctab;
		size_t ocap = ccap;

		ctab = calloc(ccap * 2, sizeof(*ctab));
		if (!ctab) {
			ctab = old;
			return NULL;
		}
		ccap *= 2;
		ccount = 0;
		for (size_t k = 0; k < ocap; k++)
			if (old[k].used) {
				struct comm_ent *e = comm_slot(old[k].tid, true);

				*e = old[k];
			}
		free(old);
	}
	for (i = (tid * 2654435761u) & (ccap - 1); ctab[i].used; i = (i + 1) & (ccap - 1))
		if (ctab[i].tid == tid)
			return &ctab[i];
	if (!create)
		return NULL;
	ctab[i].used = true;
	ctab[i].tid = tid;
	ctab[i].comm[0] = 0;
	ccount++;
	return &ctab[i];
}

static void comm_set(uint32_t tid, const char *s, size_t n)
{
	struct comm_ent *e = comm_slot(tid, true);

	if (!e)
		return;
	n = strnlen(s, n);
	if (n > 16)
		n = 16;
	memcpy(e->comm, s, n);
	e->comm[n] = 0;
	e->len = (uint8_t)n;
}

/* comm_get() and its length */
static const char *comm_get_len(uint32_t tid, size_t *len)
{
	struct comm_ent *e = comm_slot(tid, false);

	if (e && e->comm[0]) {
		*len = e->len;
		return e->comm;
	}
	*len = 1;
	return ":";
}

static const char *comm_get(uint32_t tid)
{
	struct comm_ent *e = comm_slot(tid, false);

	return e && e->comm[0] ? e->comm : ":" ;
}

/* ------------------------------------------------------------------ */
/* options */

enum {
	F_COMM = 1 << 0, F_PID = 1 << 1, F_TID = 1 << 2, F_CPU = 1 << 3, F_TIME = 1 << 4,
	F_EVENT = 1 << 5, F_IP = 1 << 6, F_SYM = 1 << 7, F_SYMOFF = 1 << 8, F_DSO = 1 << 9,
	F_ADDR = 1 << 10, F_PERIOD = 1 << 11, F_PHYS = 1 << 12, F_RAW = 1 << 13,
	F_WEIGHT = 1 << 14, F_DATA_SRC = 1 << 15, F_IREGS = 1 << 16, F_UREGS = 1 << 17,
};

static const struct {
	const char *name;
	unsigned bit;
} fnames[] = {
	{ "comm", F_COMM }, { "pid", F_PID }, { "tid", F_TID }, { "cpu", F_CPU },
	{ "time", F_TIME }, { "event", F_EVENT }, { "ip", F_IP }, { "sym", F_SYM },
	{ "symoff", F_SYMOFF }, { "dso", F_DSO }, { "addr", F_ADDR }, { "period", F_PERIOD },
	{ "phys_addr", F_PHYS }, { "raw", F_RAW }, { "weight", F_WEIGHT },
	{ "data_src", F_DATA_SRC }, { "iregs", F_IREGS }, { "uregs", F_UREGS },
	{ "trace", F_RAW },
};

struct script {
	pm_file *f;
	bool json, all, ns, header, dump, user_fields;
	unsigned fields;
	int name_width;
	char **names; /* per attr */
	size_t nnames;
	pm_raw_ctx *rctx;
	const pm_raw_decoder **dec; /* per attr */
	size_t ndec;
	void *sym; /* pm_sym */
	struct cli_symmemo memo; /* its lookups by (pid, addr, how) */
	const char *symfs, *kallsyms, *input;
	bool has_read;  /* some attr's samples carry PERF_SAMPLE_READ values with ids */
	bool want_sym;  /* the fields want symbols */
	bool mute;      /* a sample before the chunk (-j): its counters only */
	bool core_ok;   /* text of the core fields: sample_text_core() where it applies */
	/* sample_text_core()'s memory: the last seconds formatted, the last event name */
	uint64_t sec_v;
	unsigned sec_n;
	char sec_s[24 + 8];
	int ev_idx;
	const char *ev;
	size_t evn;
	uint8_t *kind; /* per attr: CORE_* (0: not known yet) */
	struct sym_tail_ent *tails; /* sym_tail()'s texts */
	size_t nkind;
	struct pm_sample sm;
	struct pm_sample_core core;
};

/* A callchain context marker: true, and the mode of the entries after it
 * where the marker is KERNEL or USER (others leave the mode as it was). */
static bool chain_marker(uint64_t ip, int *mode)
{
	if (!PM_CONTEXT_IS_MARKER(ip))
		return false;
	if (ip == PM_CONTEXT_KERNEL)
		*mode = PM_RECORD_MISC_KERNEL;
	else if (ip == PM_CONTEXT_USER)
		*mode = PM_RECORD_MISC_USER;
	return true;
}

/* perf script's default fields for a sample with these present fields: comm, tid,
 * time, event, ip, sym, symoff, dso, and cpu / period / addr where the
 * sample carries them. */
static unsigned script_default_fields(uint64_t present)
{
	unsigned fl = F_COMM | F_TID | F_TIME | F_EVENT | F_IP | F_SYM | F_SYMOFF | F_DSO;

	if (present & PM_SAMPLE_CPU)
		fl |= F_CPU;
	if (present & PM_SAMPLE_PERIOD)
		fl |= F_PERIOD;
	if (present & PM_SAMPLE_ADDR)
		fl |= F_ADDR;
	return fl;
}

static int parse_fields(struct script *s, const char *arg)
{
	char *dup = strdup(arg), *save = NULL, *tok;
	unsigned set = 0, add = 0, del = 0;
	bool mod = false;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *c = strchr(tok, ':');
		int sign = 0;
		size_t i;

		if (c) /* "type:fields": the type selector is ignored */
			tok = c + 1;
		if (*tok == '+' || *tok == '-') {
			sign = *tok == '+' ? 1 : -1;
			tok++;
			mod = true;
		}
		if (!*tok)
			continue;
		for (i = 0; i < sizeof(fnames) / sizeof(fnames[0]); i++)
			if (!strcmp(tok, fnames[i].name))
				break;
		if (i == sizeof(fnames) / sizeof(fnames[0])) {
			cli_error("script", "unknown field '%s' in -F", tok);
			free(dup);
			return -EINVAL;
		}
		if (sign > 0)
			add |= fnames[i].bit;
		else if (sign < 0)
			del |= fnames[i].bit;
		else
			set |= fnames[i].bit;
	}
	free(dup);
	if (mod && !set) {
		s->fields = (s->fields | add) & ~del;
	} else {
		s->fields = (set | add) & ~del;
		s->user_fields = true;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* symbols */

#ifdef PM_HAVE_LIBELF
/* The library's policy decides what each record means (docs/symbol.md). */
static void sym_record(struct script *s, const struct pm_file_record *rec)
{
	struct pm_record r = { .sz = sizeof(r) };

	if (s->sym && pm_file_record_parse(s->f, rec, &r) == 0) {
		pm_sym_add_record(s->sym, &r);
		cli_symmemo_changed(&s->memo);
	}
}
#endif

static __thread uint64_t last_dso_addr;
static __thread bool last_user_map;

/* the lengths of the last sym_lookup() answer's strings */
static __thread struct cli_sym_lens last_lens;

static bool sym_lookup(struct script *s, uint32_t pid, uint64_t addr, int cpumode,
		       const char **name, uint64_t *off, const char **dso)
{
#ifdef PM_HAVE_LIBELF
	struct pm_sym_result res;
	uint32_t how = 0;

	if (!s->sym)
		return false;
	how = pm_sym_lookup_how(cpumode);
	if (cli_sym_lookup_lens(&s->memo, s->sym, (int32_t)pid, addr, how, &res, &last_lens) < 0)
		return false;
	*name = res.name;
	*off = res.offset;
	*dso = res.dso;
	last_dso_addr = res.dso_addr;
	last_user_map = !(res.flags & (PM_SYM_KERNEL | PM_SYM_NO_MAP));
	return true;
#else
	(void)s; (void)pid; (void)addr; (void)cpumode; (void)name; (void)off; (void)dso;
	return false;
#endif
}

/* " sym+0xoff (dso)" as perf prints it, of a lookup already made (found:
 * by sym_lookup(), whose last_lens hold the lengths of name and dso) */
static void o_symbol_of(unsigned fl, bool found, const char *name, uint64_t off, const char *dso)
{
	size_t nl = last_lens.name_len, dl = last_lens.dso_len;

	if (found && name && dso && nl + dl < 2048) {
		/* the common case written through a local pointer after one check */
		char *o;

		o_room(nl + dl + 32);
		if (obn + nl + dl + 32 > obcap)
			return; /* no memory (ob_oom): the chunk fails */
		o = ob + obn;
		if (fl & F_SYM) {
			*o++ = ' ';
			pm_fmt_copy(o, name, nl);
			o += nl;
			if ((fl & F_SYMOFF) && !last_lens.name_unknown) {
				memcpy(o, "+0x", 3);
				o += 3;
				o += pm_fmt_hex(o, off);
			}
		}
		if (fl & F_DSO) {
			*o++ = ' ';
			*o++ = '(';
			pm_fmt_copy(o, dso, dl);
			o += dl;
			*o++ = ')';
		}
		obn = (size_t)(o - ob);
		return;
	}
	if (fl & F_SYM) {
		o_ch(' ');
		if (found && name) {
			o_mem(name, last_lens.name_len);
			if ((fl & F_SYMOFF) && !last_lens.name_unknown) {
				o_mem("+0x", 3);
				o_hex(off, 0);
			}
		} else {
			o_str(name);
			if ((fl & F_SYMOFF) && found && strcmp(name, "[unknown]")) {
				o_str("+0x");
				o_hex(off, 0);
			}
		}
	}
	if (fl & F_DSO) {
		o_mem(" (", 2);
		if (found && dso)
			o_mem(dso, last_lens.dso_len);
		else
			o_str(dso);
		o_ch(')');
	}
}

static void o_symbol(struct script *s, uint32_t pid, uint64_t addr, int cpumode, unsigned fl)
{
	const char *name = "[unknown]", *dso = "[unknown]";
	uint64_t off = 0;
	bool found = false;

	if (fl & (F_SYM | F_DSO))
		found = sym_lookup(s, pid, addr, cpumode, &name, &off, &dso);
	o_symbol_of(fl, found, name, off, dso);
}

/* ------------------------------------------------------------------ */
/* event names */

static void make_names(struct script *s)
{
	size_t n = pm_file_nr_attrs(s->f);

	if (n <= s->nnames)
		return;
	s->names = realloc(s->names, n * sizeof(*s->names));
	for (size_t i = s->nnames; i < n; i++) {
		/* the library names every event as perf does, from the file only */
		const char *nm = pm_file_event_name(s->f, i);
		char buf[32];

		if (!nm) {
			snprintf(buf, sizeof(buf), "unknown-%zu", i);
			nm = buf;
		}
		s->names[i] = strdup(nm);
		if ((int)strlen(nm) > s->name_width)
			s->name_width = (int)strlen(nm);
	}
	s->nnames = n;
}

static const char *ev_name(struct script *s, int idx)
{
	if (idx < 0)
		return "[unknown]";
	if ((size_t)idx >= s->nnames)
		make_names(s);
	return (size_t)idx < s->nnames ? s->names[idx] : "[unknown]";
}

/* raw decoders (Alpha ProfileMe, AMD IBS), chosen per attr */
static void setup_raw(struct script *s)
{
	const char *pmu, *name, *value, *str;
	uint32_t type;
	struct pm_file_info info;

	if (pm_raw_ctx_new(&s->rctx) < 0) {
		s->rctx = NULL;
		return;
	}
	info.sz = sizeof(info);
	pm_file_get_info(s->f, &info);
	pm_raw_ctx_set_big_endian(s->rctx, info.big_endian);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_ARCH)))
		pm_raw_ctx_set_arch(s->rctx, str);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_CPUID)))
		pm_raw_ctx_set_cpuid(s->rctx, str);
	for (size_t i = 0; !pm_file_pmu_mapping(s->f, i, &type, &name); i++)
		pm_raw_ctx_add_pmu(s->rctx, type, name);
	for (size_t i = 0; !pm_file_pmu_cap(s->f, i, &pmu, &name, &value); i++)
		pm_raw_ctx_set_pmu_cap(s->rctx, pmu, name, value);
}

static const pm_raw_decoder *raw_decoder(struct script *s, int idx)
{
	size_t n = pm_file_nr_attrs(s->f);

	if (!s->rctx || idx < 0)
		return NULL;
	if ((size_t)idx >= s->ndec) {
		const pm_raw_decoder **d = realloc(s->dec, n * sizeof(*d));

		if (!d)
			return NULL;
		s->dec = d;
		for (size_t i = s->ndec; i < n; i++) {
			const struct pm_attr *a = pm_file_attr(s->f, i);

			d[i] = NULL;
			if (a && (a->sample_type & PM_SAMPLE_RAW))
				pm_raw_ctx_select(s->rctx, a, &d[i]);
		}
		s->ndec = n;
	}
	return (size_t)idx < s->ndec ? s->dec[idx] : NULL;
}

/* ------------------------------------------------------------------ */
/* sample output */

static void o_hexbytes(const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		o_room(2);
		ob[obn++] = hx[p[i] >> 4];
		ob[obn++] = hx[p[i] & 15];
	}
}

/* Append one JSON object written by the library (pm_json_sample(),
 * pm_json_record()) and a newline: straight into the output buffer, into
 * the flushed buffer when it did not fit in what was left, or into a heap
 * buffer of the exact size when it is larger than the whole buffer. */
static void o_json(int (*into)(void *, char *, size_t), void *arg)
{
	char *big;
	int n;

	o_room(4096);
	n = into(arg, ob + obn, obcap - obn);
	if (n >= 0 && (size_t)n >= obcap - obn) {
		if (obgrow) {
			if (o_grow((size_t)n + 2) && obn + (size_t)n + 1 <= obcap)
				n = into(arg, ob + obn, obcap - obn);
		} else if ((size_t)n < obcap) {
			o_flush();
			n = into(arg, ob, obcap);
		}
	}
	if (n >= 0 && (size_t)n < obcap - obn) {
		obn += (size_t)n;
		o_ch('\n');
		return;
	}
	big = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (big)
		n = into(arg, big, (size_t)n + 1);
	if (!big || n < 0) {
		cli_error("script", "%s", n < 0 ? pm_errmsg() : "out of memory for a JSON object");
		free(big);
		return;
	}
	o_mem(big, (size_t)n);
	o_ch('\n');
	free(big);
}

struct json_sample_call {
	struct script *s;
	const struct pm_file_record *rec;
	const struct pm_sample *sm;
	struct pm_json_opts o;
};

static int json_sample_into(void *arg, char *buf, size_t cap)
{
	struct json_sample_call *c = arg;

	return pm_json_sample(c->s->f, c->rec->attr_idx, c->sm, &c->o, buf, cap);
}

static void sample_json(struct script *s, const struct pm_file_record *rec, const struct pm_sample *sm)
{
	struct json_sample_call c = { s, rec, sm, { 0 } };

	c.o.sz = sizeof(c.o);
	c.o.flags = s->all ? PM_JSON_TYPE : 0;
	c.o.event = ev_name(s, rec->attr_idx);
	if (sm->present & PM_SAMPLE_TID)
		c.o.comm = comm_get(sm->tid);
	if (sm->present & PM_SAMPLE_RAW) {
		c.o.raw_decoder = raw_decoder(s, rec->attr_idx);
		c.o.raw_ctx = s->rctx;
	}
	if ((sm->present & PM_SAMPLE_IP) && s->user_fields && (s->fields & (F_SYM | F_DSO))) {
		c.o.flags |= PM_JSON_SYM;
		c.o.sym = c.o.dso = "[unknown]";
		sym_lookup(s, sm->pid, sm->ip, sm->misc & PM_RECORD_MISC_CPUMODE_MASK, &c.o.sym,
			   &c.o.symoff, &c.o.dso);
	}
	o_json(json_sample_into, &c);
}

/* perf script's text line */
static void sample_text(struct script *s, const struct pm_file_record *rec, const struct pm_sample *sm)
{
	uint64_t p = sm->present;
	unsigned fl = s->fields;
	int cpumode = sm->misc & PM_RECORD_MISC_CPUMODE_MASK;
	bool chain = (p & PM_SAMPLE_CALLCHAIN) && (fl & F_IP);

	if (!s->user_fields)
		fl = script_default_fields(p);
	if (fl & F_COMM) {
		const char *c = (p & PM_SAMPLE_TID) ? comm_get(sm->tid) : ":";

		size_t cn = strlen(c);

		if (!chain)
			o_pad(16 - (int)cn);
		o_mem(c, cn);
		o_ch(' ');
	}
	if ((fl & F_PID) && (fl & F_TID)) {
		o_dec(sm->pid, 5);
		o_ch('/');
		o_dec_left(sm->tid, 5);
		o_ch(' ');
	} else if (fl & F_PID) {
		o_dec(sm->pid, 5);
		o_ch(' ');
	} else if (fl & F_TID) {
		o_dec(sm->tid, 5);
		o_ch(' ');
	}
	if ((fl & F_CPU) && (p & PM_SAMPLE_CPU)) {
		char b[16];

		snprintf(b, sizeof(b), "[%03u] ", sm->cpu);
		o_str(b);
	}
	if ((fl & F_TIME) && (p & PM_SAMPLE_TIME)) {
		o_time(sm->time, s->ns);
		o_mem(": ", 2);
	}
	if (fl & F_PERIOD) {
		o_dec(sm->period, 10);
		o_ch(' ');
	}
	if (fl & F_EVENT) {
		const char *n = ev_name(s, rec->attr_idx);
		size_t nn = strlen(n);

		o_pad(s->name_width - (int)nn);
		o_mem(n, nn);
		o_mem(": ", 2);
	}
	if ((fl & F_ADDR) && (p & PM_SAMPLE_ADDR)) {
		o_hex(sm->addr, 16);
	}
	if ((fl & F_PHYS) && (p & PM_SAMPLE_PHYS_ADDR)) {
		o_ch(' ');
		o_hex(sm->phys_addr, 16);
	}
	if ((fl & F_WEIGHT) && (p & (PM_SAMPLE_WEIGHT | PM_SAMPLE_WEIGHT_STRUCT))) {
		o_dec(sm->weight, 16);
	}
	if ((fl & F_DATA_SRC) && (p & PM_SAMPLE_DATA_SRC)) {
		o_ch(' ');
		o_hex(sm->data_src, 16);
	}
	if (fl & F_IP) {
		if (chain) {
			int mode = cpumode;

			o_ch('\n');
			for (uint64_t i = 0; i < sm->callchain.nr; i++) {
				uint64_t ip;

				if (pm_sample_callchain_ip(sm, i, &ip) < 0)
					break;
				if (chain_marker(ip, &mode))
					continue;
				/* perf prints user entries of a chain module-relative;
				 * one lookup gives both the address shown and the name */
				{
					const char *nm = "[unknown]", *dso = "[unknown]";
					uint64_t off = 0, shown = ip;
					bool found = false;

					last_user_map = false;
					if (fl & (F_SYM | F_DSO))
						found = sym_lookup(s, sm->pid, ip, mode, &nm, &off, &dso);
					if (found && last_user_map)
						shown = last_dso_addr;
					o_ch('\t');
					o_hex(shown, 16);
					o_symbol_of(fl, found, nm, off, dso);
				}
				o_ch('\n');
			}
		} else if (p & PM_SAMPLE_IP) {
			o_ch(' ');
			o_hex(sm->ip, 16);
			o_symbol(s, sm->pid, sm->ip, cpumode, fl);
		}
	}
	if ((fl & F_RAW) && (p & PM_SAMPLE_RAW)) {
		const pm_raw_decoder *d = raw_decoder(s, rec->attr_idx);
		char buf[4096];
		int n = d ? pm_raw_format_json(d, s->rctx, sm->raw.data, sm->raw.size, buf, sizeof(buf)) : -1;

		o_ch(' ');
		if (n > 0 && (size_t)n < sizeof(buf))
			o_mem(buf, (size_t)n);
		else
			o_hexbytes(sm->raw.data, sm->raw.size);
	}
	if ((fl & F_IREGS) && (p & PM_SAMPLE_REGS_INTR)) {
		for (uint32_t k = 0; k < sm->regs_intr.nr; k++) {
			uint64_t v;

			if (pm_sample_reg(sm, PM_REGS_INTR, k, &v) < 0)
				break;
			o_str(" r:0x");
			o_hex(v, 0);
		}
	}
	if (chain)
		o_ch('\n');
	else
		o_ch('\n');
}

/* The text o_symbol() writes for (pid, address, mode), kept until the
 * symbolizer learns something (the memo's epoch): most samples repeat a few
 * thousand addresses.  Only texts that fit an entry are kept. */
struct sym_tail_ent {
	uint64_t ip, epoch;
	int32_t pid;
	uint16_t key; /* cpumode and the fields of the text */
	uint8_t len;
	bool used;
	char text[104];
};
#define SYM_TAILS 1024

static void sym_tail(struct script *s, uint32_t pid, uint64_t ip, int cpumode, unsigned fl)
{
	uint16_t key = (uint16_t)((unsigned)cpumode | ((fl & (F_SYM | F_SYMOFF | F_DSO)) >> 4));
	struct sym_tail_ent *e;
	size_t at;

	if (!s->tails && !(s->tails = calloc(SYM_TAILS, sizeof(*s->tails)))) {
		o_symbol(s, pid, ip, cpumode, fl);
		return;
	}
	e = &s->tails[((ip >> 2) ^ (ip >> 13) ^ pid) & (SYM_TAILS - 1)];
	if (e->used && e->ip == ip && e->pid == (int32_t)pid && e->key == key &&
	    e->epoch == s->memo.epoch) {
		o_room(sizeof(e->text));
		if (obn + sizeof(e->text) <= obcap) {
			memcpy(ob + obn, e->text, sizeof(e->text));
			obn += e->len;
		}
		return;
	}
	o_room(4096); /* no flush inside o_symbol() below for a text of this size */
	at = obn;
	o_symbol(s, pid, ip, cpumode, fl);
	if (obn >= at && obn - at <= sizeof(e->text) && !ob_oom) {
		memcpy(e->text, ob + at, obn - at);
		e->len = (uint8_t)(obn - at);
		e->ip = ip;
		e->pid = (int32_t)pid;
		e->key = key;
		e->epoch = s->memo.epoch;
		e->used = true;
	}
}

/* The fast path of sample_text() (tests/cli/test_fastpaths.sh compares it
 * with PROFILEME_SCRIPT_NO_FAST=1): a sample of the core fields only (no
 * callchain, no READ values, no field but the core ones), its line written
 * through a local pointer after one check for room. */
static void sample_text_core(struct script *s, const struct pm_file_record *rec,
			     const struct pm_sample_core *c, const struct pm_sample *chain)
{
	uint64_t p = c->present, period = c->period;
	unsigned fl = s->fields;
	const char *ev = NULL;
	size_t evn = 0;
	char *o;

	if (!(p & PM_SAMPLE_PERIOD)) {
		/* a fixed period from the attr, as emit_sample() gives it */
		const struct pm_attr *a = pm_file_attr(s->f, (size_t)rec->attr_idx);

		if (a && !(a->flags & PM_ATTR_FREQ)) {
			period = a->sample_period;
			p |= PM_SAMPLE_PERIOD;
		}
	}
	if (!s->user_fields)
		fl = script_default_fields(p);
	if (!(fl & F_IP))
		chain = NULL; /* not printed: the line as without one */
	if (fl & F_EVENT) {
		if (rec->attr_idx != s->ev_idx || !s->ev) {
			s->ev = ev_name(s, rec->attr_idx);
			s->evn = strlen(s->ev);
			s->ev_idx = rec->attr_idx;
		}
		ev = s->ev;
		evn = s->evn;
	}
	/* comm 17, pid/tid 22, cpu 14, time 32, period 21, event, addr 16, ip 17, '\n' */
	o_room(160 + (size_t)(s->name_width > 0 ? s->name_width : 0) + evn);
	if (obn + 160 + evn > obcap)
		return; /* no memory (ob_oom): the chunk fails */
	o = ob + obn;
	if (fl & F_COMM) {
		size_t cn = 1;
		const char *cm = (p & PM_SAMPLE_TID) ? comm_get_len(c->tid, &cn) : ":";

		if (!chain && cn < 16) {
			memset(o, ' ', 16); /* the padding: stores of a fixed size */
			o += 16 - cn;
		}
		pm_fmt_copy(o, cm, cn);
		o += cn;
		*o++ = ' ';
	}
	if (fl & (F_PID | F_TID)) {
		uint64_t v = (fl & F_PID) ? c->pid : c->tid;
		unsigned n = pm_fmt_dec_len(v);

		memset(o, ' ', 8);
		if (n < 5)
			o += 5 - n;
		pm_fmt_dec_fixed(o, v, n);
		o += n;
		if ((fl & F_PID) && (fl & F_TID)) {
			*o++ = '/';
			n = pm_fmt_dec_len(c->tid);
			memset(o, ' ', 8);
			pm_fmt_dec_fixed(o, c->tid, n);
			o += n < 5 ? 5 : n;
		}
		*o++ = ' ';
	}
	if ((fl & F_CPU) && (p & PM_SAMPLE_CPU)) {
		unsigned n = pm_fmt_dec_len(c->cpu);

		*o++ = '[';
		pm_fmt_dec_fixed(o, c->cpu, n < 3 ? 3 : n);
		o += n < 3 ? 3 : n;
		*o++ = ']';
		*o++ = ' ';
	}
	if ((fl & F_TIME) && (p & PM_SAMPLE_TIME)) {
		uint64_t sec = c->time / 1000000000ULL, r = c->time % 1000000000ULL;

		if (sec != s->sec_v || !s->sec_n) {
			/* the seconds change seldom: kept formatted */
			unsigned n = pm_fmt_dec_len(sec), k = 0;

			for (; k + n < 5; k++)
				s->sec_s[k] = ' ';
			pm_fmt_dec_fixed(s->sec_s + k, sec, n);
			s->sec_s[k + n] = '.';
			s->sec_n = k + n + 1;
			s->sec_v = sec;
		}
		memcpy(o, s->sec_s, 24);
		o += s->sec_n;
		if (s->ns) {
			pm_fmt_dec_fixed(o, r, 9);
			o += 9;
		} else {
			pm_fmt_dec_fixed(o, r / 1000, 6);
			o += 6;
		}
		*o++ = ':';
		*o++ = ' ';
	}
	if (fl & F_PERIOD) {
		unsigned n = pm_fmt_dec_len(period);

		memset(o, ' ', 16);
		if (n < 10)
			o += 10 - n;
		pm_fmt_dec_fixed(o, period, n);
		o += n;
		*o++ = ' ';
	}
	if (fl & F_EVENT) {
		if ((int)evn < s->name_width) {
			memset(o, ' ', (size_t)s->name_width - evn);
			o += (size_t)s->name_width - evn;
		}
		pm_fmt_copy(o, ev, evn);
		o += evn;
		*o++ = ':';
		*o++ = ' ';
	}
	if ((fl & F_ADDR) && (p & PM_SAMPLE_ADDR)) {
		hex16_at(o, c->addr);
		o += 16;
	}
	if (chain && (fl & F_IP)) {
		/* one entry a line, as sample_text() writes them */
		int mode = c->misc & PM_RECORD_MISC_CPUMODE_MASK;

		*o++ = '\n';
		obn = (size_t)(o - ob);
		for (uint64_t i = 0; i < chain->callchain.nr; i++) {
			const char *nm = "[unknown]", *dso = "[unknown]";
			uint64_t ip, off = 0, shown;
			bool found = false;

			if (pm_sample_callchain_ip(chain, i, &ip) < 0)
				break;
			if (chain_marker(ip, &mode))
				continue;
			shown = ip;
			last_user_map = false;
			if (fl & (F_SYM | F_DSO))
				found = sym_lookup(s, c->pid, ip, mode, &nm, &off, &dso);
			if (found && last_user_map)
				shown = last_dso_addr;
			o_room(18);
			ob[obn] = '\t';
			hex16_at(ob + obn + 1, shown);
			obn += 17;
			if (fl & (F_SYM | F_DSO))
				o_symbol_of(fl, found, nm, off, dso);
			o_ch('\n');
		}
		o_ch('\n');
		return;
	}
	if ((fl & F_IP) && (p & PM_SAMPLE_IP)) {
		*o++ = ' ';
		hex16_at(o, c->ip);
		o += 16;
		obn = (size_t)(o - ob);
		if (fl & (F_SYM | F_DSO))
			sym_tail(s, c->pid, c->ip, c->misc & PM_RECORD_MISC_CPUMODE_MASK, fl);
		o_ch('\n');
		return;
	}
	*o++ = '\n';
	obn = (size_t)(o - ob);
}

/* Can the samples take sample_text_core()?  Text with the core fields
 * only; PROFILEME_SCRIPT_NO_FAST=1: never (the general path). */
static bool core_fields_only(const struct script *s)
{
	const char *e = getenv("PROFILEME_SCRIPT_NO_FAST");

	if (e && *e == '1')
		return false;
	if (s->json || s->all || s->dump)
		return false;
	return !(s->fields & (F_PHYS | F_RAW | F_WEIGHT | F_DATA_SRC | F_IREGS | F_UREGS)) ||
	       !s->user_fields;
}

/* ------------------------------------------------------------------ */
/* samples as perf delivers them: a fixed period from the attr, and
 * PERF_SAMPLE_READ expanded into one sample per counter (period = the
 * counter's increase since its previous sample, none when it did not move) */

struct last_val {
	uint64_t id, value;
	bool used;
};

static __thread struct last_val *lv;
static __thread size_t lvcap, lvcount;

static uint64_t *last_value(uint64_t id)
{
	size_t i;

	if ((lvcount + 1) * 2 > lvcap) {
		struct last_val *old = lv;
		size_t ocap = lvcap;

		lvcap = lvcap ? lvcap * 2 : 256;
		lv = calloc(lvcap, sizeof(*lv));
		if (!lv) {
			lv = old;
			lvcap = ocap;
			return NULL;
		}
		lvcount = 0;
		for (size_t k = 0; k < ocap; k++)
			if (old[k].used) {
				uint64_t *v = last_value(old[k].id);

				*v = old[k].value;
			}
		free(old);
	}
	for (i = (size_t)(id * 0x9e3779b97f4a7c15ULL) & (lvcap - 1); lv[i].used; i = (i + 1) & (lvcap - 1))
		if (lv[i].id == id)
			return &lv[i].value;
	lv[i].used = true;
	lv[i].id = id;
	lv[i].value = 0;
	lvcount++;
	return &lv[i].value;
}

static void emit_one(struct script *s, const struct pm_file_record *rec, const struct pm_sample *sm)
{
	if (s->mute)
		return;
	if (s->json)
		sample_json(s, rec, sm);
	else
		sample_text(s, rec, sm);
}

static void emit_sample(struct script *s, const struct pm_file_record *rec, struct pm_sample *sm)
{
	const struct pm_attr *a = pm_file_attr(s->f, (size_t)rec->attr_idx);

	if (a && !(sm->present & PM_SAMPLE_PERIOD) && !(a->flags & PM_ATTR_FREQ)) {
		sm->period = a->sample_period;
		sm->present |= PM_SAMPLE_PERIOD;
	}
	if (!s->all && (sm->present & PM_SAMPLE_READ) && (sm->read.format & PM_FORMAT_ID)) {
		for (uint64_t i = 0; i < sm->read.nr; i++) {
			struct pm_read_value v;
			struct pm_file_record r2 = *rec;
			struct pm_sample s2 = *sm;
			uint64_t *last;
			int idx;

			v.sz = sizeof(v);
			if (pm_read_value_get(&sm->read, i, &v) < 0)
				break;
			idx = pm_file_attr_of_id(s->f, v.id);
			last = last_value(v.id);
			if (idx < 0 || !last)
				continue;
			s2.period = v.value - *last;
			*last = v.value;
			if (!s2.period)
				continue;
			s2.id = v.id;
			s2.present |= PM_SAMPLE_PERIOD | PM_SAMPLE_ID;
			r2.attr_idx = idx;
			emit_one(s, &r2, &s2);
		}
		return;
	}
	emit_one(s, rec, sm);
}

/* ------------------------------------------------------------------ */
/* other records */

struct json_record_call {
	struct script *s;
	const struct pm_file_record *rec;
	const struct pm_record *r;
	struct pm_json_opts o;
};

static int json_record_into(void *arg, char *buf, size_t cap)
{
	struct json_record_call *c = arg;

	return pm_json_record(c->s->f, c->rec, c->r, &c->o, buf, cap);
}

static void record_json(struct script *s, const struct pm_file_record *rec, const struct pm_record *r,
			bool parsed)
{
	struct json_record_call c = { s, rec, parsed ? r : NULL, { 0 } };

	c.o.sz = sizeof(c.o);
	if (rec->attr_idx >= 0)
		c.o.event = ev_name(s, rec->attr_idx);
	o_json(json_record_into, &c);
}

static void dump_hex(const uint8_t *p, size_t n)
{
	char line[128];

	for (size_t i = 0; i < n; i += 16) {
		int k = snprintf(line, sizeof(line), ".  %04zx: ", i);

		for (size_t j = 0; j < 16; j++)
			k += i + j < n ? snprintf(line + k, sizeof(line) - (size_t)k, " %02x", p[i + j])
				       : snprintf(line + k, sizeof(line) - (size_t)k, "   ");
		k += snprintf(line + k, sizeof(line) - (size_t)k, "  ");
		for (size_t j = 0; j < 16 && i + j < n; j++)
			line[k++] = (p[i + j] >= 0x20 && p[i + j] < 0x7f) ? (char)p[i + j] : '.';
		line[k++] = '\n';
		o_mem(line, (size_t)k);
	}
}

static void record_dump(struct script *s, const struct pm_file_record *rec, const struct pm_sample *sm)
{
	char b[256];
	const char *tn = pm_record_type_name(rec->type);

	snprintf(b, sizeof(b), "\n%#" PRIx64 "%s [%#x]: event: %u\n.\n. ... raw event: size %u bytes\n",
		 rec->offset, rec->from_compressed ? " (compressed)" : "", rec->size, rec->type,
		 rec->size);
	o_str(b);
	dump_hex(rec->data, rec->size > 4096 ? 4096 : rec->size);
	o_ch('\n');
	if (rec->time != PM_FILE_NO_TIME)
		o_dec(rec->time, 0);
	else
		o_ch('0');
	snprintf(b, sizeof(b), " %#" PRIx64 " [%#x]: PERF_RECORD_%s", rec->offset, rec->size, tn);
	o_str(b);
	if (sm) {
		snprintf(b, sizeof(b), "(IP, %#x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64
			 "\n", sm->misc, (int32_t)sm->pid, (int32_t)sm->tid, sm->ip, sm->period,
			 sm->addr);
		o_str(b);
		if (sm->present & PM_SAMPLE_CALLCHAIN) {
			snprintf(b, sizeof(b), "... FP chain: nr:%" PRIu64 "\n", sm->callchain.nr);
			o_str(b);
			for (uint64_t i = 0; i < sm->callchain.nr; i++) {
				uint64_t ip = 0;

				pm_sample_callchain_ip(sm, i, &ip);
				snprintf(b, sizeof(b), "..... %2" PRIu64 ": %016" PRIx64 "\n", i, ip);
				o_str(b);
			}
		}
		if (sm->present & PM_SAMPLE_RAW) {
			const pm_raw_decoder *d = raw_decoder(s, rec->attr_idx);
			static __thread char buf[8192];

			snprintf(b, sizeof(b), "... raw size %u\n", sm->raw.size);
			o_str(b);
			if (d) {
				int n = pm_raw_format_text(d, s->rctx, sm->raw.data, sm->raw.size, "  ",
							   buf, sizeof(buf));

				if (n > 0 && (size_t)n < sizeof(buf))
					o_mem(buf, (size_t)n);
			}
		}
	} else {
		o_ch('\n');
	}
}

/* ------------------------------------------------------------------ */
/* --header */

static const char *feat_names[] = {
	"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
	"NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY",
	"NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE",
	"SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF",
	"COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

static void print_header(struct script *s)
{
	struct pm_file_info info;
	const char *str;
	uint32_t a, b, c;
	uint64_t x, y;
	FILE *o = stdout;

	info.sz = sizeof(info);
	pm_file_get_info(s->f, &info);
	fprintf(o, "# ========\n");
	fprintf(o, "# %s mode, %s endian%s\n", info.pipe_mode ? "pipe" : "file",
		info.big_endian ? "big" : "little",
		info.version == 1 ? ", version 1 (PERFFILE)" : "");
	if (!info.pipe_mode) {
		fprintf(o, "# data offset    : %" PRIu64 "\n", info.data_offset);
		fprintf(o, "# data size      : %" PRIu64 "\n", info.data_size);
		fprintf(o, "# feat offset    : %" PRIu64 "\n", info.feat_offset);
	}
	if ((str = pm_file_feature_string(s->f, PM_FEAT_HOSTNAME)))
		fprintf(o, "# hostname : %s\n", str);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_OSRELEASE)))
		fprintf(o, "# os release : %s\n", str);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_VERSION)))
		fprintf(o, "# perf version : %s\n", str);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_ARCH)))
		fprintf(o, "# arch : %s\n", str);
	if (!pm_file_nrcpus(s->f, &a, &b))
		fprintf(o, "# nrcpus online : %u\n# nrcpus avail : %u\n", b, a);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_CPUDESC)))
		fprintf(o, "# cpudesc : %s\n", str);
	if ((str = pm_file_feature_string(s->f, PM_FEAT_CPUID)))
		fprintf(o, "# cpuid : %s\n", str);
	if (!pm_file_total_mem(s->f, &x))
		fprintf(o, "# total memory : %" PRIu64 " kB\n", x);
	if (pm_file_cmdline(s->f, 0)) {
		fprintf(o, "# cmdline :");
		for (size_t i = 0; (str = pm_file_cmdline(s->f, i)); i++)
			fprintf(o, " %s", str);
		fprintf(o, " \n");
	}
	make_names(s);
	for (size_t i = 0; i < pm_file_nr_attrs(s->f); i++) {
		const struct pm_attr *at = pm_file_attr(s->f, i);
		size_t nids;
		const uint64_t *ids = pm_file_attr_ids(s->f, i, &nids);

		fprintf(o, "# event : name = %s, , id = {", s->names[i]);
		for (size_t k = 0; k < nids; k++)
			fprintf(o, "%s %" PRIu64, k ? "," : "", ids[k]);
		fprintf(o, " }, type = %u, size = %u, config = %#" PRIx64 ", sample_period/freq = %" PRIu64
			", sample_type = %#" PRIx64 ", read_format = %#" PRIx64 ", flags = %#" PRIx64 "\n",
			at->type, at->size, at->config, at->sample_period, at->sample_type,
			at->read_format, at->flags);
	}
	{
		const char *ver, *sys, *nm;
		int tbe;
		uint32_t lsz, psz;
		uint64_t id;

		if (!pm_file_tracing_info(s->f, &ver, &tbe, &lsz, &psz))
			fprintf(o, "# tracing data : version %s, %s endian, long %u, page %u, %zu event "
				"formats\n", ver, tbe ? "big" : "little", lsz, psz,
				pm_file_nr_tp_formats(s->f));
		for (size_t i = 0; !pm_file_tp_format(s->f, i, &id, &sys, &nm, NULL); i++)
			fprintf(o, "# tracepoint : %s:%s, id = %" PRIu64 "\n", sys, nm, id);
		if ((str = pm_file_tracing_error(s->f)))
			fprintf(o, "# tracing data damage: %s\n", str);
	}
	if (pm_file_cpu_topology(s->f, PM_TOPO_CORE_SIBLINGS, 0)) {
		for (size_t i = 0; (str = pm_file_cpu_topology(s->f, PM_TOPO_CORE_SIBLINGS, i)); i++)
			fprintf(o, "# sibling sockets : %s\n", str);
		for (size_t i = 0; (str = pm_file_cpu_topology(s->f, PM_TOPO_DIE_SIBLINGS, i)); i++)
			fprintf(o, "# sibling dies    : %s\n", str);
		for (size_t i = 0; (str = pm_file_cpu_topology(s->f, PM_TOPO_THREAD_SIBLINGS, i)); i++)
			fprintf(o, "# sibling threads : %s\n", str);
		for (uint32_t cpu = 0; !pm_file_cpu_ids(s->f, cpu, &a, &b, &c); cpu++)
			fprintf(o, "# CPU %u: Core ID %u, Socket ID %u\n", cpu, a, b);
	}
	if (!pm_file_pmu_mapping(s->f, 0, &a, &str)) {
		fprintf(o, "# pmu mappings:");
		for (size_t i = 0; !pm_file_pmu_mapping(s->f, i, &a, &str); i++)
			fprintf(o, "%s %s = %u", i ? "," : "", str, a);
		fprintf(o, "\n");
	}
	for (size_t i = 0; !pm_file_group_desc(s->f, i, &str, &a, &b); i++)
		fprintf(o, "# group: %s{%s..} leader %u, %u members\n", str && *str ? str : "",
			a < s->nnames ? s->names[a] : "?", a, b);
	if (!pm_file_sample_time(s->f, &x, &y)) {
		fprintf(o, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", x / (uint64_t)1000000000,
			(x % (uint64_t)1000000000) / 1000);
		fprintf(o, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", y / (uint64_t)1000000000,
			(y % (uint64_t)1000000000) / 1000);
		fprintf(o, "# sample duration : %10.3f ms\n", (double)(y - x) / 1e6);
	}
	if (!pm_file_clockid_res(s->f, &x))
		fprintf(o, "# clockid frequency: %" PRIu64 " MHz\n", x ? 1000 / x : 0);
	if (!pm_file_clock_data(s->f, &a, &x, &y))
		fprintf(o, "# clockid: %u\n# reference time: %" PRIu64 " ns (wall), %" PRIu64
			" ns (clock)\n", a, x, y);
	if (!pm_file_compression(s->f, &a, &b, &c, NULL))
		fprintf(o, "# compressed : %s, level = %u, ratio = %u\n", a == 1 ? "Zstd" : "Unknown",
			b, c);
	{
		const char *pmu, *name, *value, *last = NULL;

		for (size_t i = 0; !pm_file_pmu_cap(s->f, i, &pmu, &name, &value); i++) {
			if (!last || strcmp(last, pmu))
				fprintf(o, "%s# %s pmu capabilities: ", last ? "\n" : "", pmu);
			else
				fprintf(o, ", ");
			fprintf(o, "%s=%s", name, value);
			last = pmu;
		}
		if (last)
			fprintf(o, "\n");
	}
	{
		int32_t pid;
		uint16_t misc;
		const uint8_t *id;
		size_t len;

		for (size_t i = 0; !pm_file_build_id(s->f, i, &pid, &misc, &id, &len, &str); i++) {
			fprintf(o, "# build id: ");
			for (size_t k = 0; k < len; k++)
				fprintf(o, "%02x", id[k]);
			fprintf(o, " %s (pid %d)\n", str, pid);
		}
	}
	fprintf(o, "# features:");
	for (unsigned i = 1; i < PM_FEAT_BITS; i++)
		if (pm_file_has_feature(s->f, i)) {
			if (i < sizeof(feat_names) / sizeof(feat_names[0]))
				fprintf(o, " %s", feat_names[i]);
			else
				fprintf(o, " FEAT_%u", i);
		}
	fprintf(o, "\n");
	{
		uint64_t off;
		int rc = pm_file_header_status(s->f, &off);

		if (rc)
			fprintf(o, "# header damage at offset %" PRIu64 ": %s\n", off, pm_strerror(rc));
	}
	fprintf(o, "# ========\n#\n");
}

/* ------------------------------------------------------------------ */

static uint64_t prog_size(pm_file *f)
{
	struct pm_file_info fi = { .sz = sizeof(fi) };

	return pm_file_get_info(f, &fi) == 0 ? fi.file_size : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: profileme script [-i FILE|-] [-F FIELDS] [--ns] [--json] [--all]\n"
		"                        [--raw-order] [--header] [-D] [--strict] [--folded] [-q]\n"
		"                        [--symfs DIR] [--kallsyms FILE] [-j N]\n"
		"  -i FILE      perf.data file to read (default perf.data; - for stdin)\n"
		"  -F FIELDS    comma-separated perf field names: comm,pid,tid,cpu,time,event,\n"
		"               ip,sym,symoff,dso,addr,period,phys_addr,weight,data_src,iregs,raw\n"
		"               (+field / -field add to / remove from the defaults)\n"
		"  --ns         times with nanoseconds\n"
		"  --json       one JSON object per sample\n"
		"  --all        with --json: one object per record, with a \"type\" key\n"
		"  --raw-order  records in file order (default: sorted by time like perf)\n"
		"  --header     print the header and features\n"
		"  -D           dump every record (hex, decoded sample and raw payload)\n"
		"  --symfs DIR  look for mapped files under DIR\n"
		"  --kallsyms FILE  kernel symbols from FILE (default: /proc/kallsyms, only for a\n"
		"               recording of the running kernel)\n"
		"  --strict     a pipe stream whose last record is cut (or with junk after it)\n"
		"               is an error (default: a warning, the records before it are read)\n"
		"  --folded     collapsed stacks for flame graphs: comm;root;...;leaf count\n"
		"  -q           no progress line on a terminal\n"
		"  -j N, --jobs N  format on N threads, chunk by chunk, the output exactly that\n"
		"               of one thread (default 1; a pipe, a -z recording or a file that\n"
		"               is one chunk is read by one; --header and --folded ignore it)\n");
}

/* Count one more undecodable sample of attr i; the new count (0: no memory). */
static uint64_t undec_count(uint64_t **cnt, size_t *n, size_t i)
{
	if (i >= *n) {
		size_t nn = i + 8;
		uint64_t *c = realloc(*cnt, nn * sizeof(*c));

		if (!c)
			return 0;
		memset(c + *n, 0, (nn - *n) * sizeof(*c));
		*cnt = c;
		*n = nn;
	}
	return ++(*cnt)[i];
}

/* ------------------------------------------------------------------ */
/* what a reading (the whole file, or one chunk of -j) counted and said */

enum { MSG_PLAIN, MSG_NOATTR, MSG_UNDEC };

struct smsg {
	size_t pos; /* of the chunk's output before which it is said */
	int kind;   /* MSG_NOATTR, MSG_UNDEC: said only for the first of the file */
	size_t attr;
	char *text;
};

struct tally {
	uint64_t nsamples, nbad, nnoattr;
	uint64_t *undec; /* per attr */
	size_t nundec;
	int ret;
	bool defer; /* -j: messages kept with their place in the chunk's output */
	struct smsg *msg;
	size_t nmsg, msgcap;
};

/* Say a message on stderr, after the output before it (stdout flushed, so
 * that a terminal or one file for both shows it in its place), or keep it
 * for the calling thread (-j). */
static void t_say(struct tally *t, int kind, size_t attr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void t_say(struct tally *t, int kind, size_t attr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!t->defer) {
		o_flush();
		if (fflush(stdout))
			cli_out_note();
		fprintf(stderr, "%s script: ", cli_prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		char *text = NULL;

		if (t->nmsg == t->msgcap) {
			size_t nc = t->msgcap ? 2 * t->msgcap : 8;
			struct smsg *m = realloc(t->msg, nc * sizeof(*m));

			if (m) {
				t->msg = m;
				t->msgcap = nc;
			}
		}
		if (t->nmsg < t->msgcap && vasprintf(&text, fmt, ap) >= 0)
			t->msg[t->nmsg++] = (struct smsg){ obn, kind, attr, text };
		else
			t->ret = 1; /* no memory for the message */
	}
	va_end(ap);
}

static void tally_free(struct tally *t)
{
	for (size_t i = 0; i < t->nmsg; i++)
		free(t->msg[i].text);
	free(t->msg);
	free(t->undec);
}

enum { CORE_GENERAL = 1, CORE_FLAT, CORE_CHAIN };

/* How the samples of attr i are written: their layout says whether they
 * carry a callchain or READ values (kept per attr). */
static int core_kind(struct script *s, size_t i)
{
	if (i >= s->nkind) {
		size_t n = pm_file_nr_attrs(s->f);
		uint8_t *k = i < n ? realloc(s->kind, n) : NULL;

		if (!k)
			return CORE_GENERAL;
		memset(k + s->nkind, 0, n - s->nkind);
		s->kind = k;
		s->nkind = n;
	}
	if (!s->kind[i]) {
		const struct pm_attr *a = pm_file_attr(s->f, i);

		s->kind[i] = !a || (a->sample_type & PM_SAMPLE_READ) ? CORE_GENERAL
			     : (a->sample_type & PM_SAMPLE_CALLCHAIN) ? CORE_CHAIN : CORE_FLAT;
	}
	return s->kind[i];
}

/* One record of the stream.  owned: print it; else (-j, a record before
 * the chunk being formatted) only what it changes (thread names, maps,
 * the counters of PERF_SAMPLE_READ). */
static inline void one_record(struct script *s, struct tally *t, const struct pm_file_record *rec,
			      bool owned)
{
	bool is_sample = rec->type == PM_RECORD_SAMPLE;
	bool have_sample = false;
	struct pm_sample *sm = &s->sm;
	struct pm_record r;
	int rc;

	if (rec->type == PM_RECORD_HEADER_ATTR || rec->type == PM_RECORD_EVENT_UPDATE)
		make_names(s);
	if (rec->type == PM_RECORD_COMM || rec->type == PM_RECORD_FORK ||
	    (owned && !is_sample && (s->all || s->dump))) {
		memset(&r, 0, sizeof(r));
		r.sz = sizeof(r);
		if (pm_file_record_parse(s->f, rec, &r) == 0) {
			if (rec->type == PM_RECORD_COMM)
				comm_set(r.comm.tid, r.comm.comm, r.comm.comm_len);
			else if (rec->type == PM_RECORD_FORK) {
				struct comm_ent *pe = comm_slot(r.task.ptid, false);

				if (pe && pe->comm[0])
					comm_set(r.task.tid, pe->comm, sizeof(pe->comm));
			}
		}
	}
#ifdef PM_HAVE_LIBELF
	if (!is_sample) /* the symbolizer learns nothing from a sample */
		sym_record(s, rec);
#endif
	if (!owned) {
		/* the counters a later PERF_SAMPLE_READ sample is the increase of */
		if (is_sample && s->has_read && rec->attr_idx >= 0 && pm_file_sample(s->f, rec, sm) == 0) {
			s->mute = true;
			emit_sample(s, rec, sm);
			s->mute = false;
		}
		return;
	}
	if (is_sample && rec->attr_idx < 0) {
		/* an id no attr owns: its layout is unknown */
		if (!t->nnoattr++)
			t_say(t, MSG_NOATTR, 0, "perf.data: sample at offset %" PRIu64 " matches no "
			      "attr of the file; such samples are not printed", rec->offset);
		t->nbad++;
		t->ret = 1;
	}
	if (is_sample && rec->attr_idx >= 0 && s->core_ok) {
		struct pm_sample_core *c = &s->core;
		int kind = core_kind(s, (size_t)rec->attr_idx);

		/* a sample without callchain or READ values: its core fields only
		 * (an error, or any other sample: the general path below) */
		if (kind == CORE_FLAT && pm_file_sample_core(s->f, rec, c) == 0 &&
		    !(c->present & (PM_SAMPLE_CALLCHAIN | PM_SAMPLE_READ))) {
			t->nsamples++;
			sample_text_core(s, rec, c, NULL);
			return;
		}
		/* with a callchain: parsed whole, written as fast */
		if (kind == CORE_CHAIN && pm_file_sample(s->f, rec, sm) == 0) {
			t->nsamples++;
			if ((sm->present & PM_SAMPLE_READ) || !(sm->present & PM_SAMPLE_CALLCHAIN)) {
				emit_sample(s, rec, sm);
				return;
			}
			c->present = sm->present;
			c->misc = sm->misc;
			c->ip = sm->ip;
			c->time = sm->time;
			c->addr = sm->addr;
			c->period = sm->period;
			c->pid = sm->pid;
			c->tid = sm->tid;
			c->cpu = sm->cpu;
			sample_text_core(s, rec, c, sm);
			return;
		}
	}
	if (is_sample && rec->attr_idx >= 0) {
		rc = pm_file_sample(s->f, rec, sm);
		if (rc < 0) {
			const char *why = pm_file_attr_layout_error(s->f, (size_t)rec->attr_idx);

			t->ret = 1;
			t->nbad++;
			if (why) {
				/* said once per attr, counted at the end */
				if (undec_count(&t->undec, &t->nundec, (size_t)rec->attr_idx) == 1)
					t_say(t, MSG_UNDEC, (size_t)rec->attr_idx,
					      "%s; its samples are not printed", why);
				return;
			}
			t_say(t, MSG_PLAIN, 0, "%s", pm_errmsg());
			return;
		}
		have_sample = true;
		t->nsamples++;
	}
	if (s->dump) {
		record_dump(s, rec, have_sample ? sm : NULL);
		return;
	}
	if (have_sample) {
		emit_sample(s, rec, sm);
	} else if (s->json && s->all) {
		memset(&r, 0, sizeof(r));
		r.sz = sizeof(r);
		rc = pm_file_record_parse(s->f, rec, &r);
		record_json(s, rec, &r, rc == 0);
	}
}

/* How the stream ended: the reading error (rc < 0), or a pipe stream's
 * cut end (a warning). */
static void end_msgs(struct script *s, struct tally *t, int rc)
{
	if (rc < 0) {
		/* the library's message names the offset */
		if (pm_errmsg()[0])
			t_say(t, MSG_PLAIN, 0, "%s", pm_errmsg());
		else
			t_say(t, MSG_PLAIN, 0, "%s at offset %" PRIu64, pm_strerror(rc),
			      pm_file_error_offset(s->f));
		t->ret = 1;
	} else {
		const char *msg;

		if (pm_file_end_status(s->f, NULL, &msg) < 0)
			t_say(t, MSG_PLAIN, 0, "warning: %s; the stream ends there (--strict makes this "
			      "an error)", msg);
	}
}

static void script_free(struct script *s)
{
#ifdef PM_HAVE_LIBELF
	pm_sym_free(s->sym);
	if (s->sym)
		cli_symmemo_free(&s->memo);
#endif
	s->sym = NULL;
	pm_raw_ctx_free(s->rctx);
	s->rctx = NULL;
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	s->names = NULL;
	s->nnames = 0;
	free(s->dec);
	s->dec = NULL;
	s->ndec = 0;
	free(s->kind);
	s->kind = NULL;
	s->nkind = 0;
	free(s->tails);
	s->tails = NULL;
	/* this thread's tables */
	free(ctab);
	ctab = NULL;
	free(lv);
	lv = NULL;
	lvcap = lvcount = 0;
	ccap = ccount = 0;
}

#ifdef PM_HAVE_LIBELF
/* A symbolizer for s->f (the library decides whether this machine's
 * kallsyms fits the recording, and where a synthetic recording's symbols
 * are: its sidecar, whose notice is said unless quiet). */
static void sym_setup(struct script *s, bool quiet)
{
	pm_sym *sy = NULL;
	struct pm_sym_opts so = { .sz = sizeof(so), .sysroot = s->symfs, .kallsyms = s->kallsyms };

	so.path = s->input;
	if (pm_sym_new_from_file(&sy, s->f, &so) == 0) {
		(void)cli_sym_sidecar("script", sy, quiet);
		s->sym = sy;
		cli_symmemo_init(&s->memo); /* without memory: no memo, the same answers */
	}
}
#endif

/* ------------------------------------------------------------------ */
/* -j N: the chunks formatted by worker threads (jobs.h) */

/* Output buffers written and given back (no fresh pages for every chunk). */
struct bufpool {
	pthread_mutex_t mu;
	struct {
		char *p;
		size_t cap;
	} b[16];
	size_t n;
};

static void pool_get(struct bufpool *pl, char **p, size_t *cap)
{
	pthread_mutex_lock(&pl->mu);
	if (pl->n) {
		pl->n--;
		*p = pl->b[pl->n].p;
		*cap = pl->b[pl->n].cap;
	} else {
		*p = NULL;
		*cap = 0;
	}
	pthread_mutex_unlock(&pl->mu);
	if (!*p) {
		*p = malloc(1 << 20);
		*cap = *p ? 1 << 20 : 0;
	}
}

static void pool_put(struct bufpool *pl, char *p, size_t cap)
{
	if (!p)
		return;
	pthread_mutex_lock(&pl->mu);
	if (pl->n < sizeof(pl->b) / sizeof(pl->b[0])) {
		pl->b[pl->n].p = p;
		pl->b[pl->n].cap = cap;
		pl->n++;
		p = NULL;
	}
	pthread_mutex_unlock(&pl->mu);
	free(p);
}

static void pool_free(struct bufpool *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->b[i].p);
	pl->n = 0;
}

struct sjob {
	const struct script *base; /* the options */
	struct bufpool pool;
	int mode;
	struct tally all;          /* the whole file's counts (calling thread) */
	uint64_t nchunks_done;
	struct cli_progress *prog;
	uint64_t size;
	bool failed; /* a chunk failed (no memory): the output is incomplete */
};

struct sres {
	char *buf;
	size_t n, cap;
	bool oom, stream_error;
	uint64_t end; /* the chunk's last byte (progress) */
	struct tally t;
};

static int sj_init(void *user, pm_file *g, void **ws)
{
	struct sjob *j = user;
	struct script *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	*w = *j->base;
	w->f = g;
	w->names = NULL;
	w->nnames = 0;
	w->name_width = 0;
	w->rctx = NULL;
	w->dec = NULL;
	w->ndec = 0;
	w->sym = NULL;
	w->sm.sz = sizeof(w->sm);
	w->core.sz = sizeof(w->core);
	w->ev = NULL;
	w->sec_n = 0;
	w->kind = NULL;
	w->nkind = 0;
	w->tails = NULL;
	if (g) {
		make_names(w);
		setup_raw(w);
#ifdef PM_HAVE_LIBELF
		if (w->want_sym)
			sym_setup(w, true); /* the calling thread said the notice */
#endif
	}
	obgrow = true;
	ob = NULL;
	obn = obcap = 0;
	*ws = w;
	return 0;
}

static void sj_fini(void *user, void *ws)
{
	struct script *w = ws;

	(void)user;
	script_free(w);
	free(ob);
	ob = NULL;
	obn = obcap = 0;
	free(w);
}

static int sj_run(void *user, void *ws, struct cli_jobs_chunk *c, void **result)
{
	struct sjob *j = user;
	struct script *w = ws;
	struct sres *res = calloc(1, sizeof(*res));
	struct pm_file_record rec = { .sz = sizeof(rec) };
	uint64_t n = 0;
	bool owned;
	int rc;

	if (!res)
		return -ENOMEM;
	if (j->mode == CLI_JOBS_CHUNKS) {
		/* a reader of this chunk alone: its attrs are the file's */
		w->f = cli_jobs_file(c);
		pm_raw_ctx_free(w->rctx);
		w->rctx = NULL;
		free(w->dec);
		w->dec = NULL;
		w->ndec = 0;
		if (w->f) {
			make_names(w);
			setup_raw(w);
		}
	}
	res->t.defer = true;
	pool_get(&j->pool, &ob, &obcap);
	obn = 0;
	ob_oom = !ob;
	while ((rc = cli_jobs_next(c, &rec, &owned)) > 0) {
		if (!owned && j->mode == CLI_JOBS_CHUNKS)
			continue; /* nothing from before is needed (the fields chosen) */
		if (!(++n & 1023) && cli_out_failed())
			break; /* stdout is gone: the calling thread stops */
		one_record(w, &res->t, &rec, owned);
	}
	if (rc < 0)
		res->stream_error = true;
	if (rc < 0 || cli_jobs_last(c))
		end_msgs(w, &res->t, rc);
	res->buf = ob;
	res->n = obn;
	res->cap = obcap;
	res->oom = ob_oom;
	res->end = cli_jobs_desc(c)->end;
	ob = NULL;
	obn = obcap = 0;
	ob_oom = false;
	if (j->mode == CLI_JOBS_CHUNKS)
		w->f = NULL;
	*result = res;
	return 0;
}

static void sj_discard(void *user, void *result)
{
	struct sjob *j = user;
	struct sres *r = result;

	if (!r)
		return;
	tally_free(&r->t);
	pool_put(&j->pool, r->buf, r->cap);
	free(r);
}

/* In the calling thread, chunk after chunk: the output, the messages in
 * their places (those said once per file: only the file's first), the
 * counts. */
static int sj_done(void *user, size_t k, void *result, int rc)
{
	struct sjob *j = user;
	struct sres *r = result;
	struct tally *g = &j->all;
	size_t pos = 0;
	int stop = 0;

	(void)k;
	if (rc < 0 || !r) {
		cli_error("script", "chunk %zu: %s", k, pm_strerror(rc));
		sj_discard(user, r);
		j->failed = true;
		return 3;
	}
	if (r->oom) {
		cli_error("script", "out of memory for the output of chunk %zu", k);
		sj_discard(user, r);
		j->failed = true;
		return 3;
	}
	for (size_t i = 0; i <= r->t.nmsg; i++) {
		size_t to = i < r->t.nmsg ? r->t.msg[i].pos : r->n;
		const struct smsg *m = i < r->t.nmsg ? &r->t.msg[i] : NULL;

		if (to > pos && fwrite(r->buf + pos, 1, to - pos, stdout) != to - pos)
			cli_out_note();
		pos = to;
		if (!m)
			break;
		if ((m->kind == MSG_NOATTR && g->nnoattr) ||
		    (m->kind == MSG_UNDEC && m->attr < g->nundec && g->undec[m->attr]))
			continue; /* said by an earlier chunk */
		if (fflush(stdout))
			cli_out_note();
		cli_error("script", "%s", m->text);
	}
	g->nsamples += r->t.nsamples;
	g->nbad += r->t.nbad;
	g->nnoattr += r->t.nnoattr;
	g->ret |= r->t.ret;
	for (size_t i = 0; i < r->t.nundec; i++)
		if (r->t.undec[i] && undec_count(&g->undec, &g->nundec, i))
			g->undec[i] += r->t.undec[i] - 1;
	if (j->prog->on)
		cli_progress_update(j->prog, r->end, j->size, g->nsamples);
	if (r->stream_error)
		stop = 4; /* nothing after the error, as with -j 1 */
	if (cli_out_failed()) {
		g->ret = 1;
		stop = 2;
	}
	sj_discard(user, r);
	return stop;
}

/* The fields chosen need nothing from before a chunk's records (no thread
 * name, no symbol, no counter of PERF_SAMPLE_READ, no other record)? */
static bool script_stateless(const struct script *s, const struct pm_file_opts *fo)
{
	if (s->json || s->all || s->dump || fo->raw_order || s->has_read || !s->user_fields)
		return false;
	return !(s->fields & (F_COMM | F_SYM | F_DSO));
}

static bool any_read_values(pm_file *f)
{
	for (size_t i = 0; i < pm_file_nr_attrs(f); i++) {
		const struct pm_attr *a = pm_file_attr(f, i);

		if (a && (a->sample_type & PM_SAMPLE_READ) && (a->read_format & PM_FORMAT_ID))
			return true;
	}
	return false;
}

int cmd_script(int argc, char **argv)
{
	struct script s;
	struct pm_file_opts fo;
	struct pm_file_record rec;
	struct tally t = { 0 };
	const char *input = "perf.data";
	uint64_t nrec = 0;
	struct cli_progress prog;
	bool folded = false, quiet = false;
	int rc, ret = 0, jobs = 1;

	memset(&s, 0, sizeof(s));
	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	s.fields = F_COMM | F_TID | F_TIME | F_EVENT | F_IP | F_SYM | F_SYMOFF | F_DSO | F_CPU |
		   F_PERIOD;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int in;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if ((in = cli_input_opt("script", argc, argv, &i, &input, &s.symfs,
						&s.kallsyms))) {
			if (in < 0)
				goto bad_usage;
		} else if ((in = cli_jobs_opt("script", argc, argv, &i, &jobs))) {
			if (in < 0)
				goto bad_usage;
		} else if (!strcmp(a, "-F") || !strcmp(a, "--fields")) {
			if (++i >= argc || parse_fields(&s, argv[i]))
				goto bad_usage;
		} else if (!strncmp(a, "--fields=", 9)) {
			if (parse_fields(&s, a + 9))
				goto bad_usage;
		} else if (!strcmp(a, "--ns")) {
			s.ns = true;
		} else if (!strcmp(a, "--strict")) {
			fo.strict = 1;
		} else if (!strcmp(a, "--json")) {
			s.json = true;
		} else if (!strcmp(a, "--all")) {
			s.all = true;
		} else if (!strcmp(a, "--raw-order")) {
			fo.raw_order = 1;
		} else if (!strcmp(a, "--header") || !strcmp(a, "--header-only")) {
			s.header = true;
		} else if (!strcmp(a, "-D") || !strcmp(a, "--dump-raw-trace")) {
			s.dump = true;
		} else if (!strcmp(a, "--folded")) {
			folded = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = true;
		} else {
			cli_error("script", "unknown option '%s'", a);
			goto bad_usage;
		}
	}
	if (s.all && !s.json && !s.dump)
		s.json = true;
	if (s.all || s.dump)
		fo.keep_compressed = 1;
	s.input = input;

	rc = pm_file_open(&s.f, input, &fo);
	if (rc < 0) {
		cli_error("script", "%s", pm_errmsg()[0] ? pm_errmsg() : pm_strerror(rc));
		return 1;
	}
	cli_progress_init(&prog, "script", quiet);
	if (folded) {
		/* one pass of the library's exporter: -j does not apply */
		struct pm_export_opts eo = { .sz = sizeof(eo), .event = -1, .symfs = s.symfs,
					     .kallsyms = s.kallsyms, .progress = cli_progress_cb,
					     .progress_user = &prog, .path = input };
		struct pm_sym_opts so = { .sz = sizeof(so), .sysroot = s.symfs, .kallsyms = s.kallsyms,
					  .path = input };
		pm_sym *sy = NULL;

		/* the exporter's symbolizer opened here, so that the sidecar of a
		 * synthetic recording is named as script and report name it (on
		 * failure the exporter opens its own and gives the error) */
		if (pm_sym_new_from_file(&sy, s.f, &so) == 0) {
			(void)cli_sym_sidecar("script", sy, quiet);
			eo.sym = sy;
		}
		rc = pm_export_folded(s.f, &eo, 1);
		pm_sym_free(sy);
		cli_progress_done(&prog);
		if (rc < 0)
			cli_error("script", "%s", pm_error_string(rc));
		pm_file_close(s.f);
		return rc < 0;
	}
	if (s.header) {
		/* the header only: -j does not apply */
		print_header(&s);
		script_free(&s);
		pm_file_close(s.f);
		return 0;
	}
	make_names(&s);
	setup_raw(&s);
	s.has_read = !s.all && any_read_values(s.f);
	s.sm.sz = sizeof(s.sm);
	s.core.sz = sizeof(s.core);
	s.core_ok = core_fields_only(&s);
	s.want_sym = (s.fields & (F_SYM | F_DSO)) && !s.dump && (!s.json || s.user_fields);
#ifdef PM_HAVE_LIBELF
	if (s.want_sym)
		sym_setup(&s, quiet);
#endif
	if (jobs > 1) {
		struct sjob sj = { .base = &s, .prog = &prog, .size = prog_size(s.f) };
		struct cli_jobs j = { .cmd = "script", .path = input, .f = s.f, .fopts = &fo,
				      .jobs = jobs, .user = &sj, .worker_init = sj_init,
				      .worker_fini = sj_fini, .run = sj_run, .done = sj_done,
				      .discard = sj_discard };

		sj.mode = j.mode = script_stateless(&s, &fo) ? CLI_JOBS_CHUNKS : CLI_JOBS_STREAM;
		pthread_mutex_init(&sj.pool.mu, NULL);
		rc = cli_jobs_run(&j, NULL);
		pool_free(&sj.pool);
		pthread_mutex_destroy(&sj.pool.mu);
		if (rc != 1) {
			/* every chunk done (or stopped): the counts are sj.all's */
			cli_progress_done(&prog);
			t = sj.all;
			ret = t.ret || rc < 0 || sj.failed || rc == 2;
			goto summary;
		}
		/* one chunk: read as with -j 1 */
	}
	rec.sz = sizeof(rec);
	while ((rc = pm_file_next(s.f, &rec)) > 0) {
		if (!(++nrec & 1023) && cli_out_failed()) {
			/* stdout is gone: main() says so */
			t.ret = 1;
			break;
		}
		if (prog.on && !(nrec & 0xfff))
			cli_progress_update(&prog, rec.offset, prog_size(s.f), t.nsamples);
		one_record(&s, &t, &rec, true);
	}
	o_flush();
	cli_progress_done(&prog);
	end_msgs(&s, &t, rc);
	ret = t.ret;
summary:
	for (size_t i = 0; i < t.nundec; i++)
		if (t.undec[i])
			cli_error("script", "%" PRIu64 " samples of attr %zu (%s) not printed", t.undec[i],
				  i, pm_file_event_name(s.f, i) ? pm_file_event_name(s.f, i) : "?");
	if (t.nbad)
		cli_error("script", "%" PRIu64 " of %" PRIu64 " samples not printed", t.nbad,
			  t.nbad + t.nsamples);
	tally_free(&t);
	cli_flush();
	script_free(&s);
	pm_file_close(s.f);
	return ret;

bad_usage:
	usage(stderr);
	return 2;
}
