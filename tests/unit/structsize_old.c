/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Companion of check_structsize.c, compiled on its own: callers built with
 * OLDER, smaller definitions of size-versioned structs (the leading members
 * only, as an earlier header would have declared them), each followed by a
 * guard.  The library must work with them, fill the same values as for a
 * current caller, and write nothing past sizeof(old struct).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

#ifndef PM_TEST_SRCDIR
#define PM_TEST_SRCDIR "."
#endif

int pm_structsize_old_callers(char *why, size_t cap);

struct old_event_error { /* no message[] */
	size_t sz;
	int code;
	size_t position;
};
struct old_file_opts { /* no reorder_max_bytes, keep_compressed */
	size_t sz;
	int raw_order;
	size_t window_size;
};
struct old_sample { /* up to period: before the pointer members */
	size_t sz;
	uint64_t present;
	uint16_t misc;
	uint16_t size;
	int32_t big_endian;
	uint64_t id;
	uint64_t ip;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint32_t cpu_res;
	uint64_t period;
};
struct old_profileme_sample { /* the registers and I_STAT fields only */
	size_t sz;
	uint32_t version;
	uint64_t pmpc;
	uint64_t i_stat;
	uint64_t pctr_ctl;
	uint32_t ovr;
	uint32_t icm;
	uint32_t trap_type;
	uint32_t lso;
	uint32_t trp;
	uint32_t mis;
};

/* The old layouts are prefixes of the current ones. */
#define SAME(o, n, m) (offsetof(struct o, m) == offsetof(struct n, m))
_Static_assert(SAME(old_event_error, pm_event_error, position), "layout");
_Static_assert(SAME(old_file_opts, pm_file_opts, window_size), "layout");
_Static_assert(SAME(old_sample, pm_sample, period), "layout");
_Static_assert(SAME(old_profileme_sample, pm_profileme_sample, mis), "layout");
_Static_assert(sizeof(struct old_sample) <= offsetof(struct pm_sample, read), "layout");
/* The smallest caller the frozen minimum admits. */
_Static_assert(sizeof(struct old_sample) == PM_SAMPLE_SZ_V1, "V1");
_Static_assert(sizeof(struct old_event_error) < PM_EVENT_ERROR_SZ_V1, "V1");

/* Callers built with NEWER, larger definitions: a member this library does
 * not know follows the current struct. */
struct grown_file_opts {
	struct pm_file_opts cur;
	uint64_t next_release_option;
};
struct grown_profileme_sample {
	struct pm_profileme_sample cur;
	uint64_t next_release_field;
};

#define PAT 0x5a
#define GUARDED(T) struct { T s; unsigned char guard[64]; }
static int guard_ok(const unsigned char *g)
{
	for (size_t i = 0; i < 64; i++)
		if (g[i] != PAT)
			return 0;
	return 1;
}

#define FAIL(...) do { snprintf(why, cap, __VA_ARGS__); return 1; } while (0)

static const char *synth = PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data";

int pm_structsize_old_callers(char *why, size_t cap)
{
	/* pm_event_error: in 0.1 the whole struct is the minimum, so an older
	 * (shorter) one is refused cleanly, with nothing written. */
	{
		GUARDED(struct old_event_error) e;
		pm_event_list *l = NULL;
		memset(&e, PAT, sizeof(e));
		e.s.sz = sizeof(e.s);
		int rc = pm_event_parse(&l, NULL, "cycles", (struct pm_event_error *)&e);
		pm_event_list_free(l);
		if (rc != -PM_ERR_STRUCT_SIZE)
			FAIL("event_error: old size gave %d", rc);
		const unsigned char *b = (const unsigned char *)&e;
		for (size_t i = sizeof(size_t); i < sizeof(e); i++)
			if (b[i] != PAT)
				FAIL("event_error: refused struct written at byte %zu", i);
	}
	/* pm_file_opts, pm_sample (through pm_file_sample) */
	{
		GUARDED(struct old_file_opts) o;
		memset(&o, PAT, sizeof(o));
		memset(&o.s, 0, sizeof(o.s));
		o.s.sz = sizeof(o.s);
		o.s.raw_order = 1;
		pm_file *f = NULL;
		int rc = pm_file_open(&f, synth, (const struct pm_file_opts *)&o);
		if (rc)
			FAIL("file_opts: %d %s", rc, pm_errmsg());
		if (!guard_ok(o.guard))
			FAIL("file_opts: written past the old struct");
		struct pm_file_record rec;
		do {
			memset(&rec, 0, sizeof(rec));
			rec.sz = sizeof(rec);
			rc = pm_file_next(f, &rec);
		} while (rc == 1 && rec.type != PM_RECORD_SAMPLE);
		if (rc != 1)
			FAIL("file: no sample (%d)", rc);
		GUARDED(struct old_sample) s;
		struct pm_sample cur;
		memset(&s, PAT, sizeof(s));
		s.s.sz = sizeof(s.s);
		memset(&cur, 0, sizeof(cur));
		cur.sz = sizeof(cur);
		rc = pm_file_sample(f, &rec, (struct pm_sample *)&s);
		int rc2 = pm_file_sample(f, &rec, &cur);
		if (rc || rc2)
			FAIL("sample: %d / %d %s", rc, rc2, pm_errmsg());
		if (s.s.ip != cur.ip || s.s.time != cur.time || s.s.period != cur.period ||
		    s.s.pid != cur.pid || s.s.cpu != cur.cpu || s.s.present != cur.present)
			FAIL("sample: old caller got other values");
		if (!guard_ok(s.guard))
			FAIL("sample: written past the old struct");
		/* pm_profileme_sample on its payload */
		GUARDED(struct old_profileme_sample) p;
		struct pm_profileme_sample pcur;
		memset(&p, PAT, sizeof(p));
		p.s.sz = sizeof(p.s);
		memset(&pcur, 0, sizeof(pcur));
		pcur.sz = sizeof(pcur);
		rc = pm_profileme_decode(cur.raw.data, cur.raw.size, (struct pm_profileme_sample *)&p);
		rc2 = pm_profileme_decode(cur.raw.data, cur.raw.size, &pcur);
		if (rc || rc2)
			FAIL("profileme_sample: %d / %d %s", rc, rc2, pm_errmsg());
		if (p.s.pmpc != pcur.pmpc || p.s.i_stat != pcur.i_stat || p.s.mis != pcur.mis ||
		    p.s.version != pcur.version || p.s.trap_type != pcur.trap_type)
			FAIL("profileme_sample: old caller got other values");
		if (!guard_ok(p.guard))
			FAIL("profileme_sample: written past the old struct");
		/* A grown output struct: zero unknown tail accepted, the same
		 * values, nothing written past the library's struct; a non-zero
		 * tail refused and the struct left untouched. */
		GUARDED(struct grown_profileme_sample) g;
		memset(&g, PAT, sizeof(g));
		memset(&g.s, 0, sizeof(g.s));
		g.s.cur.sz = sizeof(g.s);
		rc = pm_profileme_decode(cur.raw.data, cur.raw.size, &g.s.cur);
		if (rc)
			FAIL("grown profileme_sample: %d %s", rc, pm_errmsg());
		if (g.s.cur.sz != sizeof(g.s) || g.s.cur.pmpc != pcur.pmpc ||
		    g.s.cur.trap != pcur.trap || g.s.cur.pctr0 != pcur.pctr0)
			FAIL("grown profileme_sample: other values");
		if (g.s.next_release_field != 0 || !guard_ok(g.guard))
			FAIL("grown profileme_sample: written past the library's struct");
		memset(&g.s, 0, sizeof(g.s));
		g.s.cur.sz = sizeof(g.s);
		g.s.next_release_field = 7;
		rc = pm_profileme_decode(cur.raw.data, cur.raw.size, &g.s.cur);
		if (rc != -PM_ERR_STRUCT_SIZE)
			FAIL("grown profileme_sample: non-zero tail gave %d", rc);
		if (g.s.cur.pmpc != 0 || g.s.next_release_field != 7)
			FAIL("grown profileme_sample: refused struct written");
		/* An uninitialised sz (the stack garbage of a struct never set):
		 * refused, and nothing written (it used to be written past). */
		memset(&p, PAT, sizeof(p));
		rc = pm_profileme_decode(cur.raw.data, cur.raw.size, (struct pm_profileme_sample *)&p);
		if (rc != -PM_ERR_STRUCT_SIZE)
			FAIL("profileme_sample: garbage sz gave %d", rc);
		for (size_t i = 0; i < sizeof(p); i++)
			if (((const unsigned char *)&p)[i] != PAT)
				FAIL("profileme_sample: garbage sz: byte %zu written", i);
		pm_file_close(f);
	}
	/* A grown options struct: zero tail accepted, non-zero refused. */
	{
		struct grown_file_opts g;
		memset(&g, 0, sizeof(g));
		g.cur.sz = sizeof(g);
		pm_file *f = NULL;
		int rc = pm_file_open(&f, synth, &g.cur);
		pm_file_close(f);
		if (rc)
			FAIL("grown file_opts: zero tail gave %d %s", rc, pm_errmsg());
		g.next_release_option = 1;
		f = NULL;
		rc = pm_file_open(&f, synth, &g.cur);
		pm_file_close(f);
		if (rc != -PM_ERR_STRUCT_SIZE)
			FAIL("grown file_opts: non-zero tail gave %d", rc);
	}
	return 0;
}
