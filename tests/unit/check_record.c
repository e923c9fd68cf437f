/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Record parser tests: hand-built records in both byte orders, unaligned,
 * truncated at every byte, with hostile sizes.  Expected values are the
 * values written into the bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"
#include "pm_check.h"

/* ------------------------------------------------------------------ builder */

struct bld {
	uint8_t buf[8192];
	size_t n;
	bool be;
};

static void b_init(struct bld *b, uint32_t type, uint16_t misc, bool be)
{
	memset(b, 0, sizeof(*b));
	b->be = be;
	pm__st32(b->buf, type, be);
	pm__st16(b->buf + 4, misc, be);
	b->n = 8;
}
static void b64(struct bld *b, uint64_t v) { pm__st64(b->buf + b->n, v, b->be); b->n += 8; }
static void b32(struct bld *b, uint32_t v) { pm__st32(b->buf + b->n, v, b->be); b->n += 4; }
static void b16(struct bld *b, uint16_t v) { pm__st16(b->buf + b->n, v, b->be); b->n += 2; }
static void b8(struct bld *b, uint8_t v) { b->buf[b->n++] = v; }
static void bmem(struct bld *b, const void *p, size_t n) { memcpy(b->buf + b->n, p, n); b->n += n; }
static void bstr(struct bld *b, const char *s, size_t field) /* NUL-padded field */
{
	memset(b->buf + b->n, 0, field);
	memcpy(b->buf + b->n, s, strlen(s));
	b->n += field;
}
static void b_done(struct bld *b) { pm__st16(b->buf + 6, (uint16_t)b->n, b->be); }

/* A copy at an odd address (freed by the caller via *base). */
static uint8_t *odd_copy(const struct bld *b, uint8_t **base)
{
	*base = malloc(b->n + 1);
	memcpy(*base + 1, b->buf, b->n);
	return *base + 1;
}

/* ---------------------------------------------------------------- values */

#define V_ID 0x1111000000000001ULL
#define V_IP 0xffffffff81000010ULL
#define V_PID 1234u
#define V_TID 1235u
#define V_TIME 0x123456789abcULL
#define V_ADDR 0xdead0000beefULL
#define V_STREAM 0x5555ULL
#define V_CPU 3u
#define V_PERIOD 100003ULL
#define V_WEIGHT 0x0003000200000001ULL
#define V_TRANS 0x77ULL
#define V_PHYS 0x8000ULL
#define V_CGROUP 0x99ULL
#define V_DPS 4096ULL
#define V_CPS (2ULL << 20)

/* data_src composed from chosen fields */
#define DS_OP 0x2ULL
#define DS_LVL 0x1a2ULL
#define DS_SNOOP 0x4ULL
#define DS_LOCK 0x1ULL
#define DS_DTLB 0x11ULL
#define DS_LVLNUM 0xbULL
#define DS_REMOTE 0x1ULL
#define DS_SNOOPX 0x2ULL
#define DS_BLK 0x5ULL
#define DS_HOPS 0x3ULL
#define V_DATA_SRC                                                                        \
	(DS_OP | DS_LVL << 5 | DS_SNOOP << 19 | DS_LOCK << 24 | DS_DTLB << 26 |           \
	 DS_LVLNUM << 33 | DS_REMOTE << 37 | DS_SNOOPX << 38 | DS_BLK << 40 | DS_HOPS << 43)

/* Branch flags laid out bit by bit as GCC lays out the kernel's bitfields:
 * little endian from bit 0 of byte 0 upward; big endian from bit 7 of byte 0
 * downward, each field MSB first. */
struct brf { unsigned mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv; };
static void put_bits(uint8_t *w, unsigned o, unsigned width, uint64_t v, bool be)
{
	for (unsigned j = 0; j < width; j++) {
		unsigned k = o + j;
		unsigned bit = be ? (unsigned)((v >> (width - 1 - j)) & 1) : (unsigned)((v >> j) & 1);

		if (bit)
			w[k / 8] |= (uint8_t)(be ? 0x80 >> (k % 8) : 1 << (k % 8));
	}
}
static void br_flags_bytes(uint8_t w[8], const struct brf *f, bool be)
{
	memset(w, 0, 8);
	put_bits(w, 0, 1, f->mispred, be);
	put_bits(w, 1, 1, f->predicted, be);
	put_bits(w, 2, 1, f->in_tx, be);
	put_bits(w, 3, 1, f->abort, be);
	put_bits(w, 4, 16, f->cycles, be);
	put_bits(w, 20, 4, f->type, be);
	put_bits(w, 24, 2, f->spec, be);
	put_bits(w, 26, 4, f->new_type, be);
	put_bits(w, 30, 3, f->priv, be);
}
static const struct brf BRF[2] = {
	{ 1, 0, 0, 0, 0x1234, PM_BR_CALL, 2, 3, 5 },
	{ 0, 1, 1, 1, 0, PM_BR_RET, 1, 0, 0 },
};

struct opts {
	bool regs_user_none;
	bool stack_zero;
	uint64_t group_nr; /* for READ with GROUP */
};

static void put_read(struct bld *b, uint64_t rf, uint64_t nr)
{
	if (rf & PM_FORMAT_GROUP) {
		b64(b, nr);
		if (rf & PM_FORMAT_TOTAL_TIME_ENABLED) b64(b, 1000);
		if (rf & PM_FORMAT_TOTAL_TIME_RUNNING) b64(b, 900);
		for (uint64_t i = 0; i < nr; i++) {
			b64(b, 10 + i);
			if (rf & PM_FORMAT_ID) b64(b, 20 + i);
			if (rf & PM_FORMAT_LOST) b64(b, 30 + i);
		}
	} else {
		b64(b, 777);
		if (rf & PM_FORMAT_TOTAL_TIME_ENABLED) b64(b, 1000);
		if (rf & PM_FORMAT_TOTAL_TIME_RUNNING) b64(b, 900);
		if (rf & PM_FORMAT_ID) b64(b, V_ID);
		if (rf & PM_FORMAT_LOST) b64(b, 5);
	}
}

/* Writes a sample for attr a, fields in the kernel's order. */
static void build_sample(struct bld *b, const struct pm_attr *a, const struct opts *o, bool be)
{
	uint64_t st = a->sample_type;

	b_init(b, PM_RECORD_SAMPLE, PM_RECORD_MISC_USER | PM_RECORD_MISC_EXACT_IP, be);
	if (st & PM_SAMPLE_IDENTIFIER) b64(b, V_ID);
	if (st & PM_SAMPLE_IP) b64(b, V_IP);
	if (st & PM_SAMPLE_TID) { b32(b, V_PID); b32(b, V_TID); }
	if (st & PM_SAMPLE_TIME) b64(b, V_TIME);
	if (st & PM_SAMPLE_ADDR) b64(b, V_ADDR);
	if (st & PM_SAMPLE_ID) b64(b, V_ID);
	if (st & PM_SAMPLE_STREAM_ID) b64(b, V_STREAM);
	if (st & PM_SAMPLE_CPU) { b32(b, V_CPU); b32(b, 0); }
	if (st & PM_SAMPLE_PERIOD) b64(b, V_PERIOD);
	if (st & PM_SAMPLE_READ) put_read(b, a->read_format, o->group_nr);
	if (st & PM_SAMPLE_CALLCHAIN) {
		b64(b, 4);
		b64(b, PM_CONTEXT_KERNEL);
		b64(b, V_IP);
		b64(b, PM_CONTEXT_USER);
		b64(b, 0x401000);
	}
	if (st & PM_SAMPLE_RAW) {
		b32(b, 12);
		for (int i = 0; i < 12; i++) b8(b, (uint8_t)(0xa0 + i));
	}
	if (st & PM_SAMPLE_BRANCH_STACK) {
		b64(b, 2);
		if (a->branch_sample_type & PM_BRANCH_HW_INDEX) b64(b, 7);
		for (int i = 0; i < 2; i++) {
			uint8_t w[8];

			b64(b, 0x1000 + i);
			b64(b, 0x2000 + i);
			br_flags_bytes(w, &BRF[i], be);
			bmem(b, w, 8);
		}
		if (a->branch_sample_type & PM_BRANCH_COUNTERS) { b64(b, 40); b64(b, 41); }
	}
	if (st & PM_SAMPLE_REGS_USER) {
		if (o->regs_user_none) {
			b64(b, PM_REGS_ABI_NONE);
		} else {
			b64(b, PM_REGS_ABI_64);
			for (int i = 0; i < __builtin_popcountll(a->sample_regs_user); i++) b64(b, 0x100 + i);
		}
	}
	if (st & PM_SAMPLE_STACK_USER) {
		if (o->stack_zero) {
			b64(b, 0);
		} else {
			b64(b, 16);
			for (int i = 0; i < 16; i++) b8(b, (uint8_t)(0x50 + i));
			b64(b, 12);
		}
	}
	if (st & (PM_SAMPLE_WEIGHT | PM_SAMPLE_WEIGHT_STRUCT)) {
		if (st & PM_SAMPLE_WEIGHT_STRUCT) {
			/* the union's struct view in memory order */
			if (be) { b16(b, 3); b16(b, 2); b32(b, 1); }
			else { b32(b, 1); b16(b, 2); b16(b, 3); }
		} else {
			b64(b, V_WEIGHT);
		}
	}
	if (st & PM_SAMPLE_DATA_SRC) b64(b, V_DATA_SRC);
	if (st & PM_SAMPLE_TRANSACTION) b64(b, V_TRANS);
	if (st & PM_SAMPLE_REGS_INTR) {
		b64(b, PM_REGS_ABI_64);
		for (int i = 0; i < __builtin_popcountll(a->sample_regs_intr); i++) b64(b, 0x200 + i);
	}
	if (st & PM_SAMPLE_PHYS_ADDR) b64(b, V_PHYS);
	if (st & PM_SAMPLE_CGROUP) b64(b, V_CGROUP);
	if (st & PM_SAMPLE_DATA_PAGE_SIZE) b64(b, V_DPS);
	if (st & PM_SAMPLE_CODE_PAGE_SIZE) b64(b, V_CPS);
	if (st & PM_SAMPLE_AUX) {
		b64(b, 8);
		for (int i = 0; i < 8; i++) b8(b, (uint8_t)(0xc0 + i));
	}
	b_done(b);
}

static void check_read(const struct pm_read *r, uint64_t rf, uint64_t nr)
{
	struct pm_read_value v = { .sz = sizeof(v) };

	ck_assert_uint_eq(r->format, rf);
	ck_assert_uint_eq(r->time_enabled, (rf & PM_FORMAT_TOTAL_TIME_ENABLED) ? 1000 : 0);
	ck_assert_uint_eq(r->time_running, (rf & PM_FORMAT_TOTAL_TIME_RUNNING) ? 900 : 0);
	if (rf & PM_FORMAT_GROUP) {
		ck_assert_uint_eq(r->nr, nr);
		for (uint64_t i = 0; i < nr; i++) {
			ck_assert_int_eq(pm_read_value_get(r, i, &v), 0);
			ck_assert_uint_eq(v.value, 10 + i);
			ck_assert_uint_eq(v.id, (rf & PM_FORMAT_ID) ? 20 + i : 0);
			ck_assert_uint_eq(v.lost, (rf & PM_FORMAT_LOST) ? 30 + i : 0);
		}
		ck_assert_int_eq(pm_read_value_get(r, nr, &v), -ERANGE);
	} else {
		ck_assert_uint_eq(r->nr, 1);
		ck_assert_int_eq(pm_read_value_get(r, 0, &v), 0);
		ck_assert_uint_eq(v.value, 777);
		ck_assert_uint_eq(v.id, (rf & PM_FORMAT_ID) ? V_ID : 0);
		ck_assert_uint_eq(v.lost, (rf & PM_FORMAT_LOST) ? 5 : 0);
		ck_assert_int_eq(pm_read_value_get(r, 1, &v), -ERANGE);
	}
}

static void check_sample(const struct pm_sample *s, const struct pm_attr *a, const struct opts *o,
			 size_t size)
{
	uint64_t st = a->sample_type, u;

	ck_assert_uint_eq(s->present, st);
	ck_assert_uint_eq(s->size, size);
	ck_assert_uint_eq(s->misc, PM_RECORD_MISC_USER | PM_RECORD_MISC_EXACT_IP);
	ck_assert_uint_eq(s->id, (st & (PM_SAMPLE_ID | PM_SAMPLE_IDENTIFIER)) ? V_ID : 0);
	ck_assert_uint_eq(s->ip, (st & PM_SAMPLE_IP) ? V_IP : 0);
	ck_assert_uint_eq(s->pid, (st & PM_SAMPLE_TID) ? V_PID : 0);
	ck_assert_uint_eq(s->tid, (st & PM_SAMPLE_TID) ? V_TID : 0);
	ck_assert_uint_eq(s->time, (st & PM_SAMPLE_TIME) ? V_TIME : 0);
	ck_assert_uint_eq(s->addr, (st & PM_SAMPLE_ADDR) ? V_ADDR : 0);
	ck_assert_uint_eq(s->stream_id, (st & PM_SAMPLE_STREAM_ID) ? V_STREAM : 0);
	ck_assert_uint_eq(s->cpu, (st & PM_SAMPLE_CPU) ? V_CPU : 0);
	ck_assert_uint_eq(s->period, (st & PM_SAMPLE_PERIOD) ? V_PERIOD : 0);
	if (st & PM_SAMPLE_READ)
		check_read(&s->read, a->read_format, o->group_nr);
	if (st & PM_SAMPLE_CALLCHAIN) {
		ck_assert_uint_eq(s->callchain.nr, 4);
		ck_assert_int_eq(pm_sample_callchain_ip(s, 0, &u), 0);
		ck_assert_uint_eq(u, PM_CONTEXT_KERNEL);
		ck_assert(PM_CONTEXT_IS_MARKER(u));
		ck_assert_int_eq(pm_sample_callchain_ip(s, 1, &u), 0);
		ck_assert_uint_eq(u, V_IP);
		ck_assert(!PM_CONTEXT_IS_MARKER(u));
		ck_assert_int_eq(pm_sample_callchain_ip(s, 2, &u), 0);
		ck_assert_uint_eq(u, PM_CONTEXT_USER);
		ck_assert_int_eq(pm_sample_callchain_ip(s, 3, &u), 0);
		ck_assert_uint_eq(u, 0x401000);
		ck_assert_int_eq(pm_sample_callchain_ip(s, 4, &u), -ERANGE);
	} else {
		ck_assert_uint_eq(s->callchain.nr, 0);
		ck_assert_ptr_null(s->callchain.ips);
	}
	if (st & PM_SAMPLE_RAW) {
		ck_assert_uint_eq(s->raw.size, 12);
		for (int i = 0; i < 12; i++) ck_assert_uint_eq(s->raw.data[i], 0xa0 + i);
	} else {
		ck_assert_ptr_null(s->raw.data);
	}
	if (st & PM_SAMPLE_BRANCH_STACK) {
		struct pm_branch_entry e = { .sz = sizeof(e) };
		bool hw = a->branch_sample_type & PM_BRANCH_HW_INDEX;
		bool cn = a->branch_sample_type & PM_BRANCH_COUNTERS;

		ck_assert_uint_eq(s->branch_stack.nr, 2);
		ck_assert_int_eq(s->branch_stack.has_hw_idx, hw);
		ck_assert_uint_eq(s->branch_stack.hw_idx, hw ? 7 : 0);
		ck_assert_int_eq(s->branch_stack.has_counters, cn);
		for (int i = 0; i < 2; i++) {
			ck_assert_int_eq(pm_sample_branch_entry(s, (uint64_t)i, &e), 0);
			ck_assert_uint_eq(e.from, 0x1000 + i);
			ck_assert_uint_eq(e.to, 0x2000 + i);
			ck_assert_uint_eq(e.mispred, BRF[i].mispred);
			ck_assert_uint_eq(e.predicted, BRF[i].predicted);
			ck_assert_uint_eq(e.in_tx, BRF[i].in_tx);
			ck_assert_uint_eq(e.abort, BRF[i].abort);
			ck_assert_uint_eq(e.cycles, BRF[i].cycles);
			ck_assert_uint_eq(e.type, BRF[i].type);
			ck_assert_uint_eq(e.spec, BRF[i].spec);
			ck_assert_uint_eq(e.new_type, BRF[i].new_type);
			ck_assert_uint_eq(e.priv, BRF[i].priv);
			ck_assert_uint_eq(e.counter, cn ? 40u + (unsigned)i : 0);
		}
		ck_assert_int_eq(pm_sample_branch_entry(s, 2, &e), -ERANGE);
	}
	if (st & PM_SAMPLE_REGS_USER) {
		if (o->regs_user_none) {
			ck_assert_uint_eq(s->regs_user.abi, PM_REGS_ABI_NONE);
			ck_assert_uint_eq(s->regs_user.nr, 0);
			ck_assert_ptr_null(s->regs_user.regs);
			ck_assert_int_eq(pm_sample_reg(s, PM_REGS_USER, 0, &u), -ERANGE);
		} else {
			ck_assert_uint_eq(s->regs_user.abi, PM_REGS_ABI_64);
			ck_assert_uint_eq(s->regs_user.mask, a->sample_regs_user);
			ck_assert_uint_eq(s->regs_user.nr, 2);
			ck_assert_int_eq(pm_sample_reg(s, PM_REGS_USER, 1, &u), 0);
			ck_assert_uint_eq(u, 0x101);
			/* mask 0x5: register 2 is the second recorded */
			ck_assert_int_eq(pm_sample_reg_by_num(s, PM_REGS_USER, 2, &u), 0);
			ck_assert_uint_eq(u, 0x101);
			ck_assert_int_eq(pm_sample_reg_by_num(s, PM_REGS_USER, 0, &u), 0);
			ck_assert_uint_eq(u, 0x100);
			ck_assert_int_eq(pm_sample_reg_by_num(s, PM_REGS_USER, 1, &u), -ENOENT);
		}
	}
	if (st & PM_SAMPLE_STACK_USER) {
		if (o->stack_zero) {
			ck_assert_uint_eq(s->stack_user.size, 0);
			ck_assert_ptr_null(s->stack_user.data);
			ck_assert_uint_eq(s->stack_user.dyn_size, 0);
		} else {
			ck_assert_uint_eq(s->stack_user.size, 16);
			ck_assert_uint_eq(s->stack_user.data[15], 0x5f);
			ck_assert_uint_eq(s->stack_user.dyn_size, 12);
		}
	}
	if (st & (PM_SAMPLE_WEIGHT | PM_SAMPLE_WEIGHT_STRUCT)) {
		ck_assert_uint_eq(s->weight, V_WEIGHT);
		ck_assert_uint_eq(s->weight_var1_dw, 1);
		ck_assert_uint_eq(s->weight_var2_w, 2);
		ck_assert_uint_eq(s->weight_var3_w, 3);
	}
	ck_assert_uint_eq(s->data_src, (st & PM_SAMPLE_DATA_SRC) ? V_DATA_SRC : 0);
	ck_assert_uint_eq(s->transaction, (st & PM_SAMPLE_TRANSACTION) ? V_TRANS : 0);
	if (st & PM_SAMPLE_REGS_INTR) {
		ck_assert_uint_eq(s->regs_intr.nr, 2);
		ck_assert_int_eq(pm_sample_reg(s, PM_REGS_INTR, 0, &u), 0);
		ck_assert_uint_eq(u, 0x200);
		ck_assert_int_eq(pm_sample_reg_by_num(s, PM_REGS_INTR, 1, &u), 0);
		ck_assert_uint_eq(u, 0x201);
	}
	ck_assert_uint_eq(s->phys_addr, (st & PM_SAMPLE_PHYS_ADDR) ? V_PHYS : 0);
	ck_assert_uint_eq(s->cgroup, (st & PM_SAMPLE_CGROUP) ? V_CGROUP : 0);
	ck_assert_uint_eq(s->data_page_size, (st & PM_SAMPLE_DATA_PAGE_SIZE) ? V_DPS : 0);
	ck_assert_uint_eq(s->code_page_size, (st & PM_SAMPLE_CODE_PAGE_SIZE) ? V_CPS : 0);
	if (st & PM_SAMPLE_AUX) {
		ck_assert_uint_eq(s->aux.size, 8);
		ck_assert_uint_eq(s->aux.data[7], 0xc7);
	}
}

static void attr_for(struct pm_attr *a, uint64_t st)
{
	pm_attr_init(a);
	a->sample_type = st;
	a->read_format = PM_FORMAT_TOTAL_TIME_ENABLED | PM_FORMAT_ID;
	a->sample_regs_user = 0x5;
	a->sample_regs_intr = 0x3;
	a->branch_sample_type = PM_BRANCH_HW_INDEX;
}

/* Parse b in its byte order, aligned and at an odd address; check. */
static void roundtrip(const struct pm_attr *a, const struct opts *o)
{
	pm_sample_layout *l;
	static struct bld b;

	ck_assert_int_eq(pm_sample_layout_new(&l, a), 0);
	for (int be = 0; be < 2; be++) {
		struct pm_sample s = { .sz = sizeof(s) };
		uint8_t *base, *p;
		size_t off = 99;

		build_sample(&b, a, o, be);
		ck_assert_int_ge(b.n - 8, pm_sample_layout_fixed_size(l));
		ck_assert_int_ge(b.n, pm_sample_layout_min_size(l));
		ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, be, &off), 0);
		check_sample(&s, a, o, b.n);
		p = odd_copy(&b, &base);
		memset(&s, 0xee, sizeof(s));
		s.sz = sizeof(s);
		ck_assert_int_eq(pm_sample_parse(&s, l, p, b.n, be, &off), 0);
		check_sample(&s, a, o, b.n);
		free(base);
	}
	pm_sample_layout_free(l);
}

#define ALL_BITS (PM_SAMPLE_MAX - 1)

START_TEST(test_each_bit_alone)
{
	struct opts o = { .group_nr = 2 };
	struct pm_attr a;

	for (int bit = 0; bit < 25; bit++) {
		attr_for(&a, 1ULL << bit);
		roundtrip(&a, &o);
	}
}
END_TEST

START_TEST(test_all_bits)
{
	struct opts o = { .group_nr = 3 };
	struct pm_attr a;

	attr_for(&a, ALL_BITS);
	roundtrip(&a, &o);
	attr_for(&a, ALL_BITS & ~PM_SAMPLE_WEIGHT_STRUCT);
	a.branch_sample_type = PM_BRANCH_COUNTERS;
	roundtrip(&a, &o);
	o.regs_user_none = true;
	o.stack_zero = true;
	attr_for(&a, ALL_BITS & ~PM_SAMPLE_WEIGHT);
	a.branch_sample_type = 0;
	roundtrip(&a, &o);
}
END_TEST

START_TEST(test_read_formats)
{
	struct pm_attr a;

	for (uint64_t rf = 0; rf < 32; rf++)
		for (uint64_t nr = 0; nr < 3; nr++) {
			struct opts o = { .group_nr = nr };

			attr_for(&a, PM_SAMPLE_READ | PM_SAMPLE_TID);
			a.read_format = rf;
			roundtrip(&a, &o);
			attr_for(&a, ALL_BITS);
			a.read_format = rf;
			roundtrip(&a, &o);
		}
}
END_TEST

/* The smallest SAMPLE of a layout, counted by hand from the kernel's
 * record format (perf_event.h): the header, each fixed u64, a READ block,
 * the callchain's nr, RAW's u32 size padded to 8. */
START_TEST(test_min_size)
{
	static const struct {
		uint64_t st, rf;
		size_t want;
	} cases[] = {
		{ PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME, 0, 8 + 3 * 8 },
		{ PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_RAW, 0, 8 + 3 * 8 + 8 },
		{ PM_SAMPLE_IP | PM_SAMPLE_CALLCHAIN, 0, 8 + 8 + 8 },
		{ PM_SAMPLE_IP | PM_SAMPLE_READ, PM_FORMAT_TOTAL_TIME_ENABLED | PM_FORMAT_ID, 8 + 8 + 3 * 8 },
		{ PM_SAMPLE_IDENTIFIER | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD | PM_SAMPLE_STREAM_ID, 0,
		  8 + 4 * 8 },
		{ 0, 0, 8 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pm_attr a;
		pm_sample_layout *l;

		pm_attr_init(&a);
		a.sample_type = cases[i].st;
		a.read_format = cases[i].rf;
		ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
		ck_assert_uint_eq(pm_sample_layout_min_size(l), cases[i].want);
		pm_sample_layout_free(l);
	}
	ck_assert_uint_eq(pm_sample_layout_min_size(NULL), 0);
}
END_TEST

START_TEST(test_layout)
{
	pm_sample_layout *l = (void *)1;
	struct pm_attr a;

	attr_for(&a, PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_ID | PM_SAMPLE_CPU);
	a.flags |= PM_ATTR_SAMPLE_ID_ALL;
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	ck_assert_int_eq(pm_sample_layout_id_pos(l), 3);
	ck_assert_int_eq(pm_sample_layout_is_pos(l), 2);
	ck_assert_uint_eq(pm_sample_layout_trailer_size(l), 32);
	ck_assert_uint_eq(pm_sample_layout_attr(l)->sample_type, a.sample_type);
	pm_sample_layout_free(l);

	attr_for(&a, PM_SAMPLE_IDENTIFIER | PM_SAMPLE_IP | PM_SAMPLE_ID | PM_SAMPLE_STREAM_ID);
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	ck_assert_int_eq(pm_sample_layout_id_pos(l), 0);
	ck_assert_int_eq(pm_sample_layout_is_pos(l), 1);
	ck_assert_uint_eq(pm_sample_layout_trailer_size(l), 0); /* no sample_id_all */
	pm_sample_layout_free(l);

	attr_for(&a, PM_SAMPLE_IP | PM_SAMPLE_ADDR | PM_SAMPLE_ID | PM_SAMPLE_STREAM_ID | PM_SAMPLE_CPU);
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	ck_assert_int_eq(pm_sample_layout_id_pos(l), 2);
	ck_assert_int_eq(pm_sample_layout_is_pos(l), 3);
	pm_sample_layout_free(l);

	attr_for(&a, PM_SAMPLE_IP);
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	ck_assert_int_eq(pm_sample_layout_id_pos(l), -1);
	ck_assert_int_eq(pm_sample_layout_is_pos(l), -1);
	pm_sample_layout_free(l);

	attr_for(&a, PM_SAMPLE_IP | PM_SAMPLE_MAX);
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), -PM_ERR_UNSUPPORTED);
	ck_assert_ptr_null(l);
	attr_for(&a, PM_SAMPLE_IP | (1ULL << 63));
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), -PM_ERR_UNSUPPORTED);
	attr_for(&a, PM_SAMPLE_READ);
	a.read_format = 1ULL << 5;
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), -PM_ERR_UNSUPPORTED);
	ck_assert_int_eq(pm_sample_layout_new(NULL, &a), -EINVAL);
	pm_sample_layout_free(NULL);
}
END_TEST

/* Every prefix of a sample must fail cleanly, both as a short span and as a
 * short header.size; run under ASan, the exact-size heap copy catches any
 * overread. */
static void cut_everywhere(const pm_sample_layout *l, const struct bld *b, bool be)
{
	for (size_t cut = 0; cut < b->n; cut++) {
		struct pm_sample s = { .sz = sizeof(s) };
		uint8_t *p = malloc(cut ? cut : 1);
		size_t off = 12345;
		int rc;

		memcpy(p, b->buf, cut);
		rc = pm_sample_parse(&s, l, p, cut, be, &off);
		ck_assert_int_eq(rc, -PM_ERR_TRUNCATED);
		ck_assert_uint_eq(off, cut);
		if (cut >= 8) {
			pm__st16(p + 6, (uint16_t)cut, be);
			off = 12345;
			rc = pm_sample_parse(&s, l, p, cut, be, &off);
			ck_assert_msg(rc == (cut < 8 ? -PM_ERR_TRUNCATED : -PM_ERR_CORRUPT),
				      "cut %zu: rc %d", cut, rc);
			ck_assert_msg(off <= cut, "cut %zu: off %zu", cut, off);
		}
		/* The same struct parses the next, intact sample: no error
		 * path leaves it unusable (issue 12 item 1). */
		ck_assert_msg(s.sz == sizeof(s), "cut %zu: sz %zu after the error", cut, s.sz);
		ck_assert_int_eq(pm_sample_parse(&s, l, b->buf, b->n, be, &off), 0);
		ck_assert_uint_eq(s.size, b->n);
		free(p);
	}
}

START_TEST(test_truncated_everywhere)
{
	struct opts o = { .group_nr = 2 };
	static struct bld b;
	pm_sample_layout *l;
	struct pm_attr a;

	attr_for(&a, ALL_BITS & ~PM_SAMPLE_WEIGHT_STRUCT);
	a.read_format = PM_FORMAT_GROUP | PM_FORMAT_ID | PM_FORMAT_TOTAL_TIME_RUNNING;
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	for (int be = 0; be < 2; be++) {
		build_sample(&b, &a, &o, be);
		cut_everywhere(l, &b, be);
	}
	pm_sample_layout_free(l);
}
END_TEST

/* Set a u64 at byte offset off in the record and expect CORRUPT at want_off. */
static void hostile(const struct pm_attr *a, size_t field_off, uint64_t v, size_t want_off,
		    bool be)
{
	struct opts o = { .group_nr = 1 };
	struct pm_sample s = { .sz = sizeof(s) };
	static struct bld b;
	pm_sample_layout *l;
	size_t off = 0;

	ck_assert_int_eq(pm_sample_layout_new(&l, a), 0);
	build_sample(&b, a, &o, be);
	pm__st64(b.buf + field_off, v, be);
	ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
	ck_assert_uint_eq(off, want_off);
	ck_assert_uint_eq(s.sz, sizeof(s));
	build_sample(&b, a, &o, be);
	ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, be, &off), 0);
	pm_sample_layout_free(l);
}

START_TEST(test_hostile_sizes)
{
	struct pm_attr a;

	for (int be = 0; be < 2; be++) {
		/* IP then CALLCHAIN: nr at 16 */
		attr_for(&a, PM_SAMPLE_IP | PM_SAMPLE_CALLCHAIN);
		hostile(&a, 16, 1ULL << 61, 16, be);
		hostile(&a, 16, UINT64_MAX, 16, be);
		hostile(&a, 16, 5, 16, be);
		/* RAW: size u32 at 8 (write as u64 over size+first data bytes) */
		attr_for(&a, PM_SAMPLE_RAW);
		{
			struct opts o = { 0 };
			static struct bld b;
			struct pm_sample s = { .sz = sizeof(s) };
			pm_sample_layout *l;
			size_t off = 0;

			ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
			build_sample(&b, &a, &o, be);
			pm__st32(b.buf + 8, 0xffffffffu, be);
			ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 8);
			pm__st32(b.buf + 8, 13, be);
			ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			pm_sample_layout_free(l);
		}
		/* BRANCH_STACK nr at 8 */
		attr_for(&a, PM_SAMPLE_BRANCH_STACK);
		hostile(&a, 8, 1ULL << 60, 8, be);
		hostile(&a, 8, 3, 8, be);
		/* STACK_USER size at 8 (after ABI... no: alone) */
		attr_for(&a, PM_SAMPLE_STACK_USER);
		hostile(&a, 8, UINT64_MAX - 4, 8, be);
		hostile(&a, 8, 24, 8, be);
		/* dyn_size > size */
		hostile(&a, 8 + 8 + 16, 17, 32, be);
		/* AUX size at 8 */
		attr_for(&a, PM_SAMPLE_AUX);
		hostile(&a, 8, UINT64_MAX, 8, be);
		hostile(&a, 8, 9, 8, be);
		/* READ GROUP nr at 8 */
		attr_for(&a, PM_SAMPLE_READ);
		a.read_format = PM_FORMAT_GROUP | PM_FORMAT_ID;
		hostile(&a, 8, 1ULL << 62, 8, be);
		hostile(&a, 8, 2, 8, be);
		/* REGS_USER with 2 regs but abi NONE->64 mismatch is fine; a
		 * REGS_INTR abi set with regs missing: cut the record instead */
	}
}
END_TEST

START_TEST(test_sample_api_errors)
{
	struct pm_sample s = { .sz = sizeof(s) };
	struct opts o = { 0 };
	static struct bld b;
	pm_sample_layout *l;
	struct pm_attr a;
	size_t off = 0;

	attr_for(&a, PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_PERIOD);
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	build_sample(&b, &a, &o, false);
	ck_assert_int_eq(pm_sample_parse(NULL, l, b.buf, b.n, 0, &off), -EINVAL);
	ck_assert_int_eq(pm_sample_parse(&s, NULL, b.buf, b.n, 0, &off), -EINVAL);
	/* not a sample */
	pm__st32(b.buf, PM_RECORD_COMM, false);
	ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, 0, &off), -EINVAL);
	pm__st32(b.buf, PM_RECORD_SAMPLE, false);
	/* header.size < 8 */
	pm__st16(b.buf + 6, 4, false);
	ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n, 0, &off), -PM_ERR_CORRUPT);
	ck_assert_uint_eq(off, 6);
	b_done(&b);
	/* header.size past what the layout accounts for: a layout built from
	 * another attr (fewer sample_type bits) must not parse "successfully"
	 * with every field 0; the offset is where the unaccounted bytes start
	 * and the caller's struct keeps its size */
	{
		pm_sample_layout *l2;
		struct pm_attr a2;

		attr_for(&a2, PM_SAMPLE_IP);
		ck_assert_int_eq(pm_sample_layout_new(&l2, &a2), 0);
		off = 0;
		ck_assert_int_eq(pm_sample_parse(&s, l2, b.buf, b.n, 0, &off), -PM_ERR_CORRUPT);
		ck_assert_uint_eq(off, 16);
		ck_assert_uint_eq(s.sz, sizeof(s));
		ck_assert_ptr_nonnull(strstr(pm_errmsg(), "longer than its layout"));
		pm_sample_layout_free(l2);
		/* 8 extra bytes after the right layout's fields */
		pm__st16(b.buf + 6, (uint16_t)(b.n + 8), false);
		ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, b.n + 8, 0, &off), -PM_ERR_CORRUPT);
		ck_assert_uint_eq(off, b.n);
		b_done(&b);
	}
	/* a longer span than the record is fine */
	ck_assert_int_eq(pm_sample_parse(&s, l, b.buf, sizeof(b.buf), 0, &off), 0);
	ck_assert_uint_eq(s.ip, V_IP);
	/* an old, smaller struct: nothing past its sz is written */
	{
		unsigned char raw[sizeof(struct pm_sample) + 16];
		struct pm_sample *sp = (struct pm_sample *)(void *)raw;
		size_t small = offsetof(struct pm_sample, read);

		memset(raw, 0xab, sizeof(raw));
		sp->sz = small;
		ck_assert_int_eq(pm_sample_parse(sp, l, b.buf, b.n, 0, &off), 0);
		ck_assert_uint_eq(sp->sz, small);
		ck_assert_uint_eq(sp->ip, V_IP);
		ck_assert_uint_eq(sp->tid, V_TID);
		for (size_t i = small; i < sizeof(raw); i++)
			ck_assert_uint_eq(raw[i], 0xab);
		sp->sz = 4;
		ck_assert_int_eq(pm_sample_parse(sp, l, b.buf, b.n, 0, &off), -PM_ERR_STRUCT_SIZE);
	}
	/* a larger struct (a caller built with a newer header): a non-zero
	 * unknown tail is refused and nothing is written; a zero tail is
	 * accepted and the library still writes nothing past its own sizeof */
	{
		unsigned char raw[sizeof(struct pm_sample) + 16 + 64];
		struct pm_sample *sp = (struct pm_sample *)(void *)raw;
		size_t big = sizeof(struct pm_sample) + 16;

		memset(raw, 0xab, sizeof(raw));
		sp->sz = big;
		ck_assert_int_eq(pm_sample_parse(sp, l, b.buf, b.n, 0, &off), -PM_ERR_STRUCT_SIZE);
		for (size_t i = sizeof(size_t); i < sizeof(raw); i++)
			ck_assert_uint_eq(raw[i], 0xab);
		memset(raw + sizeof(struct pm_sample), 0, 16);
		ck_assert_int_eq(pm_sample_parse(sp, l, b.buf, b.n, 0, &off), 0);
		ck_assert_uint_eq(sp->sz, big);
		ck_assert_uint_eq(sp->period, V_PERIOD);
		for (size_t i = sizeof(struct pm_sample); i < big; i++)
			ck_assert_uint_eq(raw[i], 0);
		for (size_t i = big; i < sizeof(raw); i++)
			ck_assert_uint_eq(raw[i], 0xab);
		/* an uninitialised (absurd) sz: refused, nothing written */
		memset(raw, 0xab, sizeof(raw));
		ck_assert_int_eq(pm_sample_parse(sp, l, b.buf, b.n, 0, &off), -PM_ERR_STRUCT_SIZE);
		for (size_t i = sizeof(size_t); i < sizeof(raw); i++)
			ck_assert_uint_eq(raw[i], 0xab);
	}
	pm_sample_layout_free(l);
}
END_TEST

START_TEST(test_data_src)
{
	struct pm_data_src d = { .sz = sizeof(d) };

	ck_assert_int_eq(pm_data_src_decode(V_DATA_SRC, &d), 0);
	ck_assert_uint_eq(d.mem_op, DS_OP);
	ck_assert_uint_eq(d.mem_lvl, DS_LVL);
	ck_assert_uint_eq(d.snoop, DS_SNOOP);
	ck_assert_uint_eq(d.lock, DS_LOCK);
	ck_assert_uint_eq(d.dtlb, DS_DTLB);
	ck_assert_uint_eq(d.lvl_num, DS_LVLNUM);
	ck_assert_uint_eq(d.remote, DS_REMOTE);
	ck_assert_uint_eq(d.snoopx, DS_SNOOPX);
	ck_assert_uint_eq(d.blk, DS_BLK);
	ck_assert_uint_eq(d.hops, DS_HOPS);
	/* all ones: each field at its maximum */
	ck_assert_int_eq(pm_data_src_decode(UINT64_MAX, &d), 0);
	ck_assert_uint_eq(d.mem_op, 0x1f);
	ck_assert_uint_eq(d.mem_lvl, 0x3fff);
	ck_assert_uint_eq(d.dtlb, 0x7f);
	ck_assert_uint_eq(d.hops, 7);
	d.sz = 2;
	ck_assert_int_eq(pm_data_src_decode(0, &d), -PM_ERR_STRUCT_SIZE);
}
END_TEST

/* The test's bit-by-bit branch flag encoder agrees with the host compiler's
 * own bitfield layout (so on s390x this checks the big-endian path). */
struct host_brflags {
	uint64_t mispred : 1, predicted : 1, in_tx : 1, abort : 1, cycles : 16, type : 4,
		spec : 2, new_type : 4, priv : 3, reserved : 31;
};
START_TEST(test_branch_flags_host_layout)
{
	struct host_brflags h;
	uint8_t w[8], hw[8];

	memset(&h, 0, sizeof(h));
	h.mispred = 1;
	h.cycles = 0x1234;
	h.type = PM_BR_CALL;
	h.spec = 2;
	h.new_type = 3;
	h.priv = 5;
	memcpy(hw, &h, 8);
	br_flags_bytes(w, &BRF[0], pm__host_big_endian());
	ck_assert_mem_eq(w, hw, 8);
}
END_TEST

/* ------------------------------------------------------------ other records */

static pm_sample_layout *trailer_layout(void)
{
	pm_sample_layout *l;
	struct pm_attr a;

	attr_for(&a, PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_ID |
			     PM_SAMPLE_STREAM_ID | PM_SAMPLE_CPU | PM_SAMPLE_IDENTIFIER);
	a.read_format = PM_FORMAT_GROUP | PM_FORMAT_ID;
	a.flags |= PM_ATTR_SAMPLE_ID_ALL;
	ck_assert_int_eq(pm_sample_layout_new(&l, &a), 0);
	ck_assert_uint_eq(pm_sample_layout_trailer_size(l), 48);
	return l;
}

static void put_trailer(struct bld *b)
{
	b32(b, 11); b32(b, 12);   /* TID */
	b64(b, 0x7777);           /* TIME */
	b64(b, V_ID);             /* ID */
	b64(b, 0x88);             /* STREAM_ID */
	b32(b, 5); b32(b, 0);     /* CPU */
	b64(b, V_ID);             /* IDENTIFIER */
}

static void check_trailer(const struct pm_record *r)
{
	ck_assert_uint_eq(r->sample_id.present,
			  PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_ID | PM_SAMPLE_STREAM_ID |
				  PM_SAMPLE_CPU | PM_SAMPLE_IDENTIFIER);
	ck_assert_uint_eq(r->sample_id.pid, 11);
	ck_assert_uint_eq(r->sample_id.tid, 12);
	ck_assert_uint_eq(r->sample_id.time, 0x7777);
	ck_assert_uint_eq(r->sample_id.id, V_ID);
	ck_assert_uint_eq(r->sample_id.stream_id, 0x88);
	ck_assert_uint_eq(r->sample_id.cpu, 5);
}

/* Parse aligned, at an odd address; also every truncation (span and size). */
static void parse_rec(struct pm_record *r, const pm_sample_layout *l, const struct bld *b)
{
	uint8_t *base, *p;
	size_t off = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->sz = sizeof(*r);
	p = odd_copy(b, &base);
	rc = pm_record_parse(r, l, p, b->n, b->be, &off);
	ck_assert_msg(rc == 0, "%s: rc %d (%s) off %zu", pm_record_type_name(pm__ld32(b->buf, b->be)),
		      rc, pm_errmsg(), off);
	ck_assert_ptr_eq(r->bytes, p);
	for (size_t cut = 0; cut < b->n; cut++) {
		struct pm_record t = { .sz = sizeof(t) };
		uint8_t *q = malloc(cut ? cut : 1);

		memcpy(q, b->buf, cut);
		off = 999;
		ck_assert_int_eq(pm_record_parse(&t, l, q, cut, b->be, &off), -PM_ERR_TRUNCATED);
		ck_assert_uint_eq(off, cut);
		if (cut >= 8) {
			pm__st16(q + 6, (uint16_t)cut, b->be);
			off = 999;
			rc = pm_record_parse(&t, l, q, cut, b->be, &off);
			ck_assert_msg(rc == 0 || (rc == -PM_ERR_CORRUPT && off <= cut),
				      "cut %zu rc %d off %zu", cut, rc, off);
		}
		free(q);
	}
	/* parse the odd copy again last so pointers stay valid for checks */
	memset(r, 0, sizeof(*r));
	r->sz = sizeof(*r);
	ck_assert_int_eq(pm_record_parse(r, l, p, b->n, b->be, &off), 0);
	/* leak p's base deliberately into a static slot freed next call */
	{
		static uint8_t *prev;

		free(prev);
		prev = base;
	}
}

START_TEST(test_kernel_records)
{
	pm_sample_layout *l = trailer_layout();

	for (int be = 0; be < 2; be++) {
		static struct bld b;
		struct pm_record r;
		uint64_t u, v;

		/* MMAP */
		b_init(&b, PM_RECORD_MMAP, PM_RECORD_MISC_USER, be);
		b32(&b, 100); b32(&b, 101); b64(&b, 0x400000); b64(&b, 0x1000); b64(&b, 0x200);
		bstr(&b, "/bin/true", 16); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_int_eq(r.known, 1);
		ck_assert_uint_eq(r.mmap.pid, 100);
		ck_assert_uint_eq(r.mmap.tid, 101);
		ck_assert_uint_eq(r.mmap.addr, 0x400000);
		ck_assert_uint_eq(r.mmap.len, 0x1000);
		ck_assert_uint_eq(r.mmap.pgoff, 0x200);
		ck_assert_uint_eq(r.mmap.filename_len, 9);
		ck_assert(memcmp(r.mmap.filename, "/bin/true", 9) == 0);
		check_trailer(&r);

		/* MMAP without a NUL in the filename: bounded by the trailer */
		b_init(&b, PM_RECORD_MMAP, 0, be);
		b32(&b, 1); b32(&b, 1); b64(&b, 0); b64(&b, 0); b64(&b, 0);
		bmem(&b, "ABCDEFGH", 8); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.mmap.filename_len, 8);
		check_trailer(&r);

		/* MMAP2 with maj/min/ino */
		b_init(&b, PM_RECORD_MMAP2, PM_RECORD_MISC_USER, be);
		b32(&b, 100); b32(&b, 101); b64(&b, 0x400000); b64(&b, 0x1000); b64(&b, 0x200);
		b32(&b, 8); b32(&b, 1); b64(&b, 4242); b64(&b, 7); b32(&b, 5); b32(&b, 2);
		bstr(&b, "/lib/libc.so.6", 16); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.mmap.maj, 8);
		ck_assert_uint_eq(r.mmap.min, 1);
		ck_assert_uint_eq(r.mmap.ino, 4242);
		ck_assert_uint_eq(r.mmap.ino_generation, 7);
		ck_assert_uint_eq(r.mmap.prot, 5);
		ck_assert_uint_eq(r.mmap.flags, 2);
		ck_assert_uint_eq(r.mmap.has_build_id, 0);
		ck_assert_uint_eq(r.mmap.filename_len, 14);
		check_trailer(&r);

		/* MMAP2 with build id */
		b_init(&b, PM_RECORD_MMAP2, PM_RECORD_MISC_USER | PM_RECORD_MISC_MMAP_BUILD_ID, be);
		b32(&b, 100); b32(&b, 101); b64(&b, 0x400000); b64(&b, 0x1000); b64(&b, 0x200);
		b8(&b, 20); b8(&b, 0); b16(&b, 0);
		for (int i = 0; i < 20; i++) b8(&b, (uint8_t)(0xb0 + i));
		b32(&b, 5); b32(&b, 2);
		bstr(&b, "/x", 8); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.mmap.has_build_id, 1);
		ck_assert_uint_eq(r.mmap.build_id_size, 20);
		ck_assert_uint_eq(r.mmap.build_id[19], 0xb0 + 19);
		ck_assert_uint_eq(r.mmap.ino, 0);
		ck_assert_uint_eq(r.mmap.prot, 5);
		/* build id size > 20 is corrupt */
		b.buf[40] = 21;
		{
			struct pm_record t = { .sz = sizeof(t) };
			size_t off = 0;

			ck_assert_int_eq(pm_record_parse(&t, l, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 40);
		}

		/* LOST */
		b_init(&b, PM_RECORD_LOST, 0, be);
		b64(&b, V_ID); b64(&b, 17); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.lost.id, V_ID);
		ck_assert_uint_eq(r.lost.lost, 17);

		/* COMM (exec) */
		b_init(&b, PM_RECORD_COMM, PM_RECORD_MISC_COMM_EXEC, be);
		b32(&b, 5); b32(&b, 6); bstr(&b, "bash", 8); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.comm.pid, 5);
		ck_assert_uint_eq(r.comm.tid, 6);
		ck_assert_uint_eq(r.comm.comm_len, 4);
		ck_assert(memcmp(r.comm.comm, "bash", 4) == 0);
		ck_assert(r.header.misc & PM_RECORD_MISC_COMM_EXEC);
		check_trailer(&r);

		/* EXIT, FORK */
		for (uint32_t t = PM_RECORD_EXIT; t <= PM_RECORD_FORK; t += 3) {
			b_init(&b, t, 0, be);
			b32(&b, 1); b32(&b, 2); b32(&b, 3); b32(&b, 4); b64(&b, 999);
			put_trailer(&b); b_done(&b);
			parse_rec(&r, l, &b);
			ck_assert_uint_eq(r.task.pid, 1);
			ck_assert_uint_eq(r.task.ppid, 2);
			ck_assert_uint_eq(r.task.tid, 3);
			ck_assert_uint_eq(r.task.ptid, 4);
			ck_assert_uint_eq(r.task.time, 999);
			check_trailer(&r);
		}

		/* THROTTLE, UNTHROTTLE */
		for (uint32_t t = PM_RECORD_THROTTLE; t <= PM_RECORD_UNTHROTTLE; t++) {
			b_init(&b, t, 0, be);
			b64(&b, 31); b64(&b, 32); b64(&b, 33); put_trailer(&b); b_done(&b);
			parse_rec(&r, l, &b);
			ck_assert_uint_eq(r.throttle.time, 31);
			ck_assert_uint_eq(r.throttle.id, 32);
			ck_assert_uint_eq(r.throttle.stream_id, 33);
		}

		/* READ (group of 2 with ids) */
		b_init(&b, PM_RECORD_READ, 0, be);
		b32(&b, 40); b32(&b, 41);
		b64(&b, 2); b64(&b, 10); b64(&b, 20); b64(&b, 11); b64(&b, 21);
		put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.read.pid, 40);
		ck_assert_uint_eq(r.read.values.nr, 2);
		{
			struct pm_read_value rv = { .sz = sizeof(rv) };

			ck_assert_int_eq(pm_read_value_get(&r.read.values, 1, &rv), 0);
			ck_assert_uint_eq(rv.value, 11);
			ck_assert_uint_eq(rv.id, 21);
		}
		check_trailer(&r);

		/* AUX */
		b_init(&b, PM_RECORD_AUX, 0, be);
		b64(&b, 0x100); b64(&b, 0x200); b64(&b, 1); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.aux.aux_offset, 0x100);
		ck_assert_uint_eq(r.aux.aux_size, 0x200);
		ck_assert_uint_eq(r.aux.flags, 1);

		/* ITRACE_START */
		b_init(&b, PM_RECORD_ITRACE_START, 0, be);
		b32(&b, 50); b32(&b, 51); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.itrace_start.pid, 50);
		ck_assert_uint_eq(r.itrace_start.tid, 51);

		/* LOST_SAMPLES */
		b_init(&b, PM_RECORD_LOST_SAMPLES, 0, be);
		b64(&b, 12345); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.lost.lost, 12345);

		/* SWITCH (out, preempt) and SWITCH_CPU_WIDE */
		b_init(&b, PM_RECORD_SWITCH,
		       PM_RECORD_MISC_SWITCH_OUT | PM_RECORD_MISC_SWITCH_OUT_PREEMPT, be);
		put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.switch_.out, 1);
		ck_assert_uint_eq(r.switch_.preempt, 1);
		ck_assert_uint_eq(r.body_size, 0);
		check_trailer(&r);
		b_init(&b, PM_RECORD_SWITCH_CPU_WIDE, 0, be);
		b32(&b, 60); b32(&b, 61); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.switch_.out, 0);
		ck_assert_uint_eq(r.switch_.next_prev_pid, 60);
		ck_assert_uint_eq(r.switch_.next_prev_tid, 61);

		/* NAMESPACES */
		b_init(&b, PM_RECORD_NAMESPACES, 0, be);
		b32(&b, 70); b32(&b, 71); b64(&b, 2);
		b64(&b, 0xd0); b64(&b, 0x10); b64(&b, 0xd1); b64(&b, 0x11);
		put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.namespaces.nr, 2);
		ck_assert_int_eq(pm_record_namespace(&r, 1, &u, &v), 0);
		ck_assert_uint_eq(u, 0xd1);
		ck_assert_uint_eq(v, 0x11);
		ck_assert_int_eq(pm_record_namespace(&r, 2, &u, &v), -ERANGE);
		/* hostile nr */
		pm__st64(b.buf + 16, 1ULL << 60, be);
		{
			struct pm_record t = { .sz = sizeof(t) };
			size_t off = 0;

			ck_assert_int_eq(pm_record_parse(&t, l, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 16);
		}

		/* KSYMBOL */
		b_init(&b, PM_RECORD_KSYMBOL, 0, be);
		b64(&b, 0xffffffffa0000000ULL); b32(&b, 0x80); b16(&b, 1); b16(&b, 0);
		bstr(&b, "bpf_prog_x", 16); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.ksymbol.addr, 0xffffffffa0000000ULL);
		ck_assert_uint_eq(r.ksymbol.len, 0x80);
		ck_assert_uint_eq(r.ksymbol.ksym_type, 1);
		ck_assert_uint_eq(r.ksymbol.name_len, 10);

		/* BPF_EVENT */
		b_init(&b, PM_RECORD_BPF_EVENT, 0, be);
		b16(&b, 1); b16(&b, 0); b32(&b, 77);
		for (int i = 0; i < 8; i++) b8(&b, (uint8_t)i);
		put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.bpf_event.type, 1);
		ck_assert_uint_eq(r.bpf_event.id, 77);
		ck_assert_uint_eq(r.bpf_event.tag[7], 7);

		/* CGROUP */
		b_init(&b, PM_RECORD_CGROUP, 0, be);
		b64(&b, 0xc6); bstr(&b, "/sys/fs", 8); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.cgroup.id, 0xc6);
		ck_assert_uint_eq(r.cgroup.path_len, 7);

		/* TEXT_POKE */
		b_init(&b, PM_RECORD_TEXT_POKE, 0, be);
		b64(&b, 0xffff0000); b16(&b, 2); b16(&b, 3);
		b8(&b, 1); b8(&b, 2); b8(&b, 3); b8(&b, 4); b8(&b, 5); b8(&b, 0); b8(&b, 0); b8(&b, 0);
		b8(&b, 0); b8(&b, 0); b8(&b, 0); b8(&b, 0);
		put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.text_poke.addr, 0xffff0000);
		ck_assert_uint_eq(r.text_poke.old_len, 2);
		ck_assert_uint_eq(r.text_poke.new_len, 3);
		ck_assert_uint_eq(r.text_poke.old_bytes[1], 2);
		ck_assert_uint_eq(r.text_poke.new_bytes[0], 3);
		ck_assert_uint_eq(r.text_poke.new_bytes[2], 5);

		/* AUX_OUTPUT_HW_ID */
		b_init(&b, PM_RECORD_AUX_OUTPUT_HW_ID, 0, be);
		b64(&b, 0x42); put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.aux_output_hw_id.hw_id, 0x42);

		/* CALLCHAIN_DEFERRED */
		b_init(&b, PM_RECORD_CALLCHAIN_DEFERRED, 0, be);
		b64(&b, 0xc00c1e); b64(&b, 2); b64(&b, PM_CONTEXT_USER_DEFERRED); b64(&b, 0x401234);
		put_trailer(&b); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_uint_eq(r.callchain_deferred.cookie, 0xc00c1e);
		ck_assert_uint_eq(r.callchain_deferred.callchain.nr, 2);
		ck_assert_uint_eq(pm_record_u64(r.callchain_deferred.callchain.ips, 1, be), 0x401234);

		/* SAMPLE through pm_record_parse: header and body only */
		b_init(&b, PM_RECORD_SAMPLE, 0, be);
		b64(&b, V_ID); b64(&b, V_IP); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_int_eq(r.known, 1);
		ck_assert_uint_eq(r.body_size, 16);
		ck_assert_uint_eq(r.sample_id.present, 0);

		/* unknown types: raw bytes, never an error */
		b_init(&b, 50, 0, be);
		b64(&b, 1); b64(&b, 2); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_int_eq(r.known, 0);
		ck_assert_uint_eq(r.body_size, 16);
		b_init(&b, 4000, 0, be);
		b32(&b, 1); b_done(&b);
		parse_rec(&r, l, &b);
		ck_assert_int_eq(r.known, 0);
		ck_assert_uint_eq(r.body_size, 4);

		/* a kernel record too short for its trailer */
		{
			struct pm_record t = { .sz = sizeof(t) };
			size_t off = 0;

			b_init(&b, PM_RECORD_LOST_SAMPLES, 0, be);
			b64(&b, 1); b_done(&b);
			ck_assert_int_eq(pm_record_parse(&t, l, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 8);
			/* without a layout it parses (no trailer) */
			ck_assert_int_eq(pm_record_parse(&t, NULL, b.buf, b.n, be, &off), 0);
			ck_assert_uint_eq(t.lost.lost, 1);
		}
	}
	pm_sample_layout_free(l);
}
END_TEST

START_TEST(test_user_records)
{
	for (int be = 0; be < 2; be++) {
		static struct bld b;
		struct pm_record r;
		char comm[17];
		uint64_t u;

		/* HEADER_ATTR at every attr size, plus a larger unknown one */
		for (uint32_t sz = PM_ATTR_SIZE_VER0; sz <= PM_ATTR_SIZE_VER8 + 16; sz += 8) {
			struct pm_attr a;
			uint8_t ab[256];

			pm_attr_init(&a);
			a.type = PM_TYPE_RAW;
			a.config = 0x1234;
			a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_ID;
			a.flags = PM_ATTR_SAMPLE_ID_ALL | PM_ATTR_DISABLED;
			a.size = sz > PM_ATTR_SIZE_VER8 ? PM_ATTR_SIZE_VER8 : sz;
			memset(ab, 0x5a, sizeof(ab));
			ck_assert_int_eq(pm_attr_to_bytes(&a, ab, sizeof(ab), be), (int)a.size);
			pm__st32(ab + 4, sz, be); /* larger than known: tail of 0x5a ignored */
			b_init(&b, PM_RECORD_HEADER_ATTR, 0, be);
			bmem(&b, ab, sz); b64(&b, 1001); b64(&b, 1002); b64(&b, 1003); b_done(&b);
			parse_rec(&r, NULL, &b);
			ck_assert_uint_eq(r.attr.attr_size, sz);
			ck_assert_uint_eq(r.attr.attr.size, sz);
			ck_assert_uint_eq(r.attr.attr.type, PM_TYPE_RAW);
			ck_assert_uint_eq(r.attr.attr.config, 0x1234);
			ck_assert_uint_eq(r.attr.attr.flags, PM_ATTR_SAMPLE_ID_ALL | PM_ATTR_DISABLED);
			ck_assert_uint_eq(r.attr.nr_ids, 3);
			ck_assert_uint_eq(pm_record_u64(r.attr.ids, 2, be), 1003);
		}
		/* attr size past the end */
		{
			struct pm_record t = { .sz = sizeof(t) };
			size_t off = 0;

			pm__st32(b.buf + 12, 4096, be);
			ck_assert_int_eq(pm_record_parse(&t, NULL, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 12);
		}

		/* HEADER_EVENT_TYPE */
		b_init(&b, PM_RECORD_HEADER_EVENT_TYPE, 0, be);
		b64(&b, 0x99); bstr(&b, "sched:sched_switch", 64); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.event_type.event_id, 0x99);
		ck_assert_uint_eq(r.event_type.name_len, 18);

		/* HEADER_TRACING_DATA */
		b_init(&b, PM_RECORD_HEADER_TRACING_DATA, 0, be);
		b32(&b, 4096); b32(&b, 0); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.tracing_data.size, 4096);

		/* HEADER_BUILD_ID with size */
		b_init(&b, PM_RECORD_HEADER_BUILD_ID, PM_RECORD_MISC_BUILD_ID_SIZE | 1, be);
		b32(&b, (uint32_t)-1);
		for (int i = 0; i < 20; i++) b8(&b, (uint8_t)(0x10 + i));
		b8(&b, 16); b8(&b, 0); b16(&b, 0);
		bstr(&b, "[kernel.kallsyms]", 20); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(r.build_id.pid, -1);
		ck_assert_uint_eq(r.build_id.build_id_size, 16);
		ck_assert_uint_eq(r.build_id.build_id[0], 0x10);
		ck_assert_uint_eq(r.build_id.filename_len, 17);

		/* FINISHED_ROUND, FINISHED_INIT */
		b_init(&b, PM_RECORD_FINISHED_ROUND, 0, be);
		b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(r.known, 1);
		ck_assert_str_eq(pm_record_type_name(r.header.type), "FINISHED_ROUND");
		b_init(&b, PM_RECORD_FINISHED_INIT, 0, be);
		b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(r.known, 1);

		/* ID_INDEX with the second table */
		b_init(&b, PM_RECORD_ID_INDEX, 0, be);
		b64(&b, 2);
		b64(&b, 500); b64(&b, 0); b64(&b, 1); b64(&b, 77);
		b64(&b, 501); b64(&b, 1); b64(&b, 2); b64(&b, 78);
		b64(&b, 9000); b64(&b, 3); b64(&b, 9001); b64(&b, 4);
		b_done(&b);
		parse_rec(&r, NULL, &b);
		{
			struct pm_id_index_entry e = { .sz = sizeof(e) };

			ck_assert_uint_eq(r.id_index.nr, 2);
			ck_assert_ptr_nonnull(r.id_index.entries2);
			ck_assert_int_eq(pm_record_id_index_entry(&r, 1, &e), 0);
			ck_assert_uint_eq(e.id, 501);
			ck_assert_uint_eq(e.idx, 1);
			ck_assert_uint_eq(e.cpu, 2);
			ck_assert_uint_eq(e.tid, 78);
			ck_assert_uint_eq(e.machine_pid, 9001);
			ck_assert_uint_eq(e.vcpu, 4);
			ck_assert_int_eq(pm_record_id_index_entry(&r, 2, &e), -ERANGE);
		}
		/* without the second table; hostile nr */
		b.n = 16 + 64;
		b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_ptr_null(r.id_index.entries2);
		pm__st64(b.buf + 8, 3, be);
		{
			struct pm_record t = { .sz = sizeof(t) };
			size_t off = 0;

			ck_assert_int_eq(pm_record_parse(&t, NULL, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 8);
		}

		/* AUXTRACE_INFO */
		b_init(&b, PM_RECORD_AUXTRACE_INFO, 0, be);
		b32(&b, 4); b32(&b, 0); b64(&b, 0xa1); b64(&b, 0xa2); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.auxtrace_info.type, 4);
		ck_assert_uint_eq(r.auxtrace_info.nr_priv, 2);
		ck_assert_uint_eq(pm_record_u64(r.auxtrace_info.priv, 1, be), 0xa2);

		/* AUXTRACE */
		b_init(&b, PM_RECORD_AUXTRACE, 0, be);
		b64(&b, 0x4000); b64(&b, 0x100); b64(&b, 0xabc); b32(&b, 1); b32(&b, 2); b32(&b, 3);
		b32(&b, 0); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.auxtrace.size, 0x4000);
		ck_assert_uint_eq(r.auxtrace.offset, 0x100);
		ck_assert_uint_eq(r.auxtrace.reference, 0xabc);
		ck_assert_uint_eq(r.auxtrace.idx, 1);
		ck_assert_uint_eq(r.auxtrace.tid, 2);
		ck_assert_uint_eq(r.auxtrace.cpu, 3);

		/* AUXTRACE_ERROR fmt 0 (no time), fmt 2 (machine_pid, vcpu) */
		b_init(&b, PM_RECORD_AUXTRACE_ERROR, 0, be);
		b32(&b, 1); b32(&b, 2); b32(&b, 3); b32(&b, 4); b32(&b, 5); b32(&b, 0);
		b64(&b, 0x1234); bstr(&b, "overflow", 64); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.auxtrace_error.code, 2);
		ck_assert_uint_eq(r.auxtrace_error.ip, 0x1234);
		ck_assert_uint_eq(r.auxtrace_error.time, 0);
		ck_assert_uint_eq(r.auxtrace_error.msg_len, 8);
		ck_assert(memcmp(r.auxtrace_error.msg, "overflow", 8) == 0);
		b_init(&b, PM_RECORD_AUXTRACE_ERROR, 0, be);
		b32(&b, 1); b32(&b, 2); b32(&b, 3); b32(&b, 4); b32(&b, 5); b32(&b, 2);
		b64(&b, 0x1234); b64(&b, 0x5678); bstr(&b, "decoder error", 64); b32(&b, 42);
		b32(&b, 7); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.auxtrace_error.fmt, 2);
		ck_assert_uint_eq(r.auxtrace_error.time, 0x5678);
		ck_assert_uint_eq(r.auxtrace_error.msg_len, 13);
		ck_assert_uint_eq(r.auxtrace_error.machine_pid, 42);
		ck_assert_uint_eq(r.auxtrace_error.vcpu, 7);

		/* THREAD_MAP (comm without NUL) */
		b_init(&b, PM_RECORD_THREAD_MAP, 0, be);
		b64(&b, 2); b64(&b, 300); bstr(&b, "init", 16); b64(&b, 301);
		bmem(&b, "0123456789abcdef", 16); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.thread_map.nr, 2);
		ck_assert_int_eq(pm_record_thread_map_entry(&r, 0, &u, comm), 0);
		ck_assert_uint_eq(u, 300);
		ck_assert_str_eq(comm, "init");
		ck_assert_int_eq(pm_record_thread_map_entry(&r, 1, &u, comm), 0);
		ck_assert_str_eq(comm, "0123456789abcdef");
		ck_assert_int_eq(pm_record_thread_map_entry(&r, 2, &u, comm), -ERANGE);

		/* CPU_MAP: list, 32-bit mask, 64-bit mask, range */
		b_init(&b, PM_RECORD_CPU_MAP, 0, be);
		b16(&b, PM_CPU_MAP_CPUS); b16(&b, 3); b16(&b, 0); b16(&b, 2); b16(&b, 5); b16(&b, 0);
		b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.cpu_map.nr, 3);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 2), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 5), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 1), 0);
		b_init(&b, PM_RECORD_CPU_MAP, 0, be);
		b16(&b, PM_CPU_MAP_MASK); b16(&b, 2); b16(&b, 4); b32(&b, 0x5); b32(&b, 0x1);
		b16(&b, 0); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 0), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 1), 0);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 2), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 32), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 64), 0);
		b_init(&b, PM_RECORD_CPU_MAP, 0, be);
		b16(&b, PM_CPU_MAP_MASK); b16(&b, 1); b16(&b, 8); b32(&b, 0);
		b64(&b, 1ULL << 40); b16(&b, 0); b32(&b, 0); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 40), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 0), 0);
		b_init(&b, PM_RECORD_CPU_MAP, 0, be);
		b16(&b, PM_CPU_MAP_RANGE_CPUS); b8(&b, 1); b8(&b, 0); b16(&b, 4); b16(&b, 7);
		b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 4), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 7), 1);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, 8), 0);
		ck_assert_int_eq(pm_cpu_map_has(&r.cpu_map, -1), 1);

		/* STAT_CONFIG, STAT, STAT_ROUND */
		b_init(&b, PM_RECORD_STAT_CONFIG, 0, be);
		b64(&b, 2); b64(&b, 0); b64(&b, 3); b64(&b, 1); b64(&b, 1000); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.stat_config.nr, 2);
		ck_assert_uint_eq(pm_record_u64(r.stat_config.entries, 3, be), 1000);
		b_init(&b, PM_RECORD_STAT, 0, be);
		b64(&b, 9); b32(&b, 1); b32(&b, 2); b64(&b, 100); b64(&b, 200); b64(&b, 150); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.stat.id, 9);
		ck_assert_uint_eq(r.stat.cpu, 1);
		ck_assert_uint_eq(r.stat.thread, 2);
		ck_assert_uint_eq(r.stat.val, 100);
		ck_assert_uint_eq(r.stat.ena, 200);
		ck_assert_uint_eq(r.stat.run, 150);
		b_init(&b, PM_RECORD_STAT_ROUND, 0, be);
		b64(&b, 1); b64(&b, 5555); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.stat_round.type, 1);
		ck_assert_uint_eq(r.stat_round.time, 5555);

		/* EVENT_UPDATE: scale, unit, cpus */
		{
			double sc = 0.25;
			uint64_t bits;

			memcpy(&bits, &sc, 8);
			b_init(&b, PM_RECORD_EVENT_UPDATE, 0, be);
			b64(&b, PM_EVENT_UPDATE_SCALE); b64(&b, 33); b64(&b, bits); b_done(&b);
			parse_rec(&r, NULL, &b);
			ck_assert_uint_eq(r.event_update.id, 33);
			ck_assert(r.event_update.scale == 0.25);
		}
		b_init(&b, PM_RECORD_EVENT_UPDATE, 0, be);
		b64(&b, PM_EVENT_UPDATE_UNIT); b64(&b, 33); bstr(&b, "MiB", 8); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.event_update.str_len, 3);
		b_init(&b, PM_RECORD_EVENT_UPDATE, 0, be);
		b64(&b, PM_EVENT_UPDATE_CPUS); b64(&b, 33);
		b16(&b, PM_CPU_MAP_CPUS); b16(&b, 1); b16(&b, 9); b16(&b, 0); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_int_eq(pm_cpu_map_has(&r.event_update.cpus, 9), 1);

		/* TIME_CONV: short and full */
		b_init(&b, PM_RECORD_TIME_CONV, 0, be);
		b64(&b, 10); b64(&b, 20); b64(&b, 30); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.time_conv.time_zero, 30);
		ck_assert_uint_eq(r.time_conv.has_ext, 0);
		b_init(&b, PM_RECORD_TIME_CONV, 0, be);
		b64(&b, 10); b64(&b, 20); b64(&b, 30); b64(&b, 40); b64(&b, 50);
		b8(&b, 1); b8(&b, 1); b16(&b, 0); b32(&b, 0); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.time_conv.has_ext, 1);
		ck_assert_uint_eq(r.time_conv.time_cycles, 40);
		ck_assert_uint_eq(r.time_conv.time_mask, 50);
		ck_assert_uint_eq(r.time_conv.cap_user_time_short, 1);

		/* HEADER_FEATURE, COMPRESSED, COMPRESSED2 */
		b_init(&b, PM_RECORD_HEADER_FEATURE, 0, be);
		b64(&b, 7); b32(&b, 3); bstr(&b, "x86", 4); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.feature.feat_id, 7);
		ck_assert_uint_eq(r.feature.size, 8);
		b_init(&b, PM_RECORD_COMPRESSED, 0, be);
		b64(&b, 0x28b52ffd); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.compressed.size, 8);
		b_init(&b, PM_RECORD_COMPRESSED2, 0, be);
		b64(&b, 5); b64(&b, 0x28b52ffd); b_done(&b);
		parse_rec(&r, NULL, &b);
		ck_assert_uint_eq(r.compressed.size, 5);
		pm__st64(b.buf + 8, 9, be);
		{
			struct pm_record t = { .sz = sizeof(t) };
			size_t off = 0;

			ck_assert_int_eq(pm_record_parse(&t, NULL, b.buf, b.n, be, &off), -PM_ERR_CORRUPT);
			ck_assert_uint_eq(off, 8);
		}
	}
}
END_TEST

START_TEST(test_header_names_peek)
{
	struct pm_record_header h;
	static struct bld b;
	pm_sample_layout *l = trailer_layout();
	pm_sample_layout *notime = NULL;
	struct pm_attr na;
	uint64_t id = 0, tm = 0;

	attr_for(&na, PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_ID | PM_SAMPLE_IDENTIFIER);
	na.flags |= PM_ATTR_SAMPLE_ID_ALL;
	ck_assert_int_eq(pm_sample_layout_new(&notime, &na), 0);

	for (int be = 0; be < 2; be++) {
		b_init(&b, PM_RECORD_MMAP2, 0x4002, be);
		b64(&b, 0);
		b_done(&b);
		ck_assert_int_eq(pm_record_header_parse(&h, b.buf + 0, 8, be), 0);
		ck_assert_uint_eq(h.type, PM_RECORD_MMAP2);
		ck_assert_uint_eq(h.misc, 0x4002);
		ck_assert_uint_eq(h.size, 16);
		ck_assert_int_eq(pm_record_header_parse(&h, b.buf, 7, be), -PM_ERR_TRUNCATED);
		pm__st16(b.buf + 6, 7, be);
		ck_assert_int_eq(pm_record_header_parse(&h, b.buf, 8, be), -PM_ERR_CORRUPT);

		/* sample: IDENTIFIER first */
		b_init(&b, PM_RECORD_SAMPLE, 0, be);
		b64(&b, V_ID); b64(&b, V_IP); b32(&b, 1); b32(&b, 2); b64(&b, 3); b64(&b, V_ID);
		b64(&b, 4); b32(&b, 5); b32(&b, 0); b_done(&b);
		ck_assert_int_eq(pm_record_peek_id(l, b.buf, b.n, be, &id), 0);
		ck_assert_uint_eq(id, V_ID);
		/* its time: after IDENTIFIER, IP, TID */
		ck_assert_int_eq(pm_record_peek_time(l, b.buf, b.n, be, &tm), 0);
		ck_assert_uint_eq(tm, 3);
		ck_assert_int_eq(pm_record_peek_time(l, b.buf, b.n - 1, be, &tm), -PM_ERR_TRUNCATED);
		ck_assert_int_eq(pm_record_peek_time(notime, b.buf, b.n, be, &tm), -ENOENT);
		/* non-sample: from the end */
		b_init(&b, PM_RECORD_LOST_SAMPLES, 0, be);
		b64(&b, 1); put_trailer(&b); b_done(&b);
		id = 0;
		ck_assert_int_eq(pm_record_peek_id(l, b.buf, b.n, be, &id), 0);
		ck_assert_uint_eq(id, V_ID);
		/* the trailer's time: 5 slots back (TIME ID STREAM_ID CPU IDENTIFIER) */
		ck_assert_int_eq(pm_record_peek_time(l, b.buf, b.n, be, &tm), 0);
		ck_assert_uint_eq(tm, 0x7777);
		ck_assert_int_eq(pm_record_peek_time(notime, b.buf, b.n, be, &tm), -ENOENT);
		/* a record too short for its trailer */
		b_init(&b, PM_RECORD_LOST_SAMPLES, 0, be);
		b64(&b, 1); b_done(&b);
		ck_assert_int_eq(pm_record_peek_time(l, b.buf, b.n, be, &tm), -PM_ERR_CORRUPT);
		b_init(&b, PM_RECORD_FINISHED_ROUND, 0, be);
		b_done(&b);
		ck_assert_int_eq(pm_record_peek_id(l, b.buf, b.n, be, &id), -ENOENT);
		ck_assert_int_eq(pm_record_peek_time(l, b.buf, b.n, be, &tm), -ENOENT);
		ck_assert_int_eq(pm_record_peek_time(NULL, b.buf, b.n, be, &tm), -EINVAL);
	}
	pm_sample_layout_free(notime);
	ck_assert_str_eq(pm_record_type_name(PM_RECORD_MMAP), "MMAP");
	ck_assert_str_eq(pm_record_type_name(PM_RECORD_SAMPLE), "SAMPLE");
	ck_assert_str_eq(pm_record_type_name(PM_RECORD_AUX_OUTPUT_HW_ID), "AUX_OUTPUT_HW_ID");
	ck_assert_str_eq(pm_record_type_name(PM_RECORD_HEADER_ATTR), "HEADER_ATTR");
	ck_assert_str_eq(pm_record_type_name(PM_RECORD_FINISHED_INIT), "FINISHED_INIT");
	ck_assert_str_eq(pm_record_type_name(0), "UNKNOWN");
	ck_assert_str_eq(pm_record_type_name(23), "UNKNOWN");
	ck_assert_str_eq(pm_record_type_name(63), "UNKNOWN");
	ck_assert_str_eq(pm_record_type_name(1000), "UNKNOWN");
	for (uint32_t t = 1; t <= 22; t++)
		ck_assert_str_ne(pm_record_type_name(t), "UNKNOWN");
	for (uint32_t t = 64; t <= 83; t++)
		ck_assert_str_ne(pm_record_type_name(t), "UNKNOWN");
	pm_sample_layout_free(l);
}
END_TEST

static Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_min_size);
	tcase_add_test(tc, test_each_bit_alone);
	tcase_add_test(tc, test_all_bits);
	tcase_add_test(tc, test_read_formats);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_hostile_sizes);
	tcase_add_test(tc, test_sample_api_errors);
	tcase_add_test(tc, test_data_src);
	tcase_add_test(tc, test_branch_flags_host_layout);
	tcase_add_test(tc, test_kernel_records);
	tcase_add_test(tc, test_user_records);
	tcase_add_test(tc, test_header_names_peek);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(record_suite)
