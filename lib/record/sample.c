/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* PERF_RECORD_SAMPLE: every PERF_SAMPLE_* field, in the order the kernel
 * writes them (perf_output_sample): ..., REGS_INTR, PHYS_ADDR, CGROUP,
 * DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX. */
#include "record_internal.h"

int pm__read_parse(struct pm_read *r, const pm_sample_layout *l, const uint8_t *rec, size_t pos,
		   size_t end, bool be, size_t *used, size_t *bad)
{
	uint64_t rf = l->read_format;
	size_t p;

	r->format = rf;
	r->big_endian = be;
	if (!pm__fits(pos, l->read_fixed, end)) {
		*bad = pos;
		return -1;
	}
	r->data = rec + pos;
	if (rf & PM_FORMAT_GROUP) {
		uint64_t nr = pm__ld64(rec + pos, be);

		p = pos + 8;
		if (rf & PM_FORMAT_TOTAL_TIME_ENABLED) {
			r->time_enabled = pm__ld64(rec + p, be);
			p += 8;
		}
		if (rf & PM_FORMAT_TOTAL_TIME_RUNNING) {
			r->time_running = pm__ld64(rec + p, be);
			p += 8;
		}
		if (nr > (end - p) / l->read_entry) {
			*bad = pos; /* the nr field */
			return -1;
		}
		r->nr = nr;
		p += (size_t)nr * l->read_entry;
	} else {
		p = pos + 8;
		if (rf & PM_FORMAT_TOTAL_TIME_ENABLED) {
			r->time_enabled = pm__ld64(rec + p, be);
			p += 8;
		}
		if (rf & PM_FORMAT_TOTAL_TIME_RUNNING) {
			r->time_running = pm__ld64(rec + p, be);
			p += 8;
		}
		r->nr = 1;
		p = pos + l->read_fixed;
	}
	r->size = (uint32_t)(p - pos);
	*used = p - pos;
	return 0;
}

/* Registers: abi, then popcount(mask) u64 unless abi is NONE. */
static int parse_regs(struct pm_regs *rg, uint64_t mask, uint32_t nr, const uint8_t *b,
		      size_t *pos, size_t end, bool be)
{
	if (!pm__fits(*pos, 8, end))
		return -1;
	rg->abi = pm__ld64(b + *pos, be);
	rg->mask = mask;
	if (rg->abi == PM_REGS_ABI_NONE) {
		*pos += 8;
		return 0;
	}
	if (!pm__fits(*pos + 8, (size_t)nr * 8, end))
		return -1;
	rg->nr = nr;
	rg->regs = nr ? b + *pos + 8 : NULL;
	*pos += 8 + (size_t)nr * 8;
	return 0;
}


int pm_sample_parse(struct pm_sample *out, const pm_sample_layout *l, const void *rec, size_t len,
		    int big_endian, size_t *err_off)
{
	const uint8_t *b = rec;
	const bool be = big_endian != 0;
	struct pm_sample tmp, *s;
	size_t caller_sz, pos, end;
	uint64_t st;
	uint32_t type;
	const char *what = "sample";

	if (!out || !l || !rec)
		return pm__err(EINVAL, "pm_sample_parse: NULL argument");
	caller_sz = out->sz;
	if (caller_sz != sizeof(*out)) {
		int rc = PM__SZ_VALID(out, pm_sample, PM_SAMPLE_SZ_V1);
		if (rc)
			return rc;
	}
	if (len < 8)
		return pm__bad(PM_ERR_TRUNCATED, len, err_off, "header cut short", PM_RECORD_SAMPLE);
	type = pm__ld32(b, be);
	if (type != PM_RECORD_SAMPLE)
		return pm__err(EINVAL, "pm_sample_parse: record type %u (%s) is not SAMPLE", type,
			       pm_record_type_name(type));
	end = pm__ld16(b + 6, be);
	if (end < 8)
		return pm__bad(PM_ERR_CORRUPT, 6, err_off, "header.size smaller than the header",
			       type);
	if (end > len)
		return pm__bad(PM_ERR_TRUNCATED, len, err_off, "record cut short", type);

	s = caller_sz >= sizeof(*s) ? out : &tmp;
	/* One memset of this size becomes `rep stos`, which cost half of a
	 * typical sample; fixed 64-byte pieces become plain vector stores. */
	pm__zero_struct(s, sizeof(*s));
	s->misc = pm__ld16(b + 4, be);
	s->size = (uint16_t)end;
	s->big_endian = be;
	st = l->sample_type;

	/* Fixed prefix at precomputed offsets. */
	if (l->prefix_end > end) {
		for (uint32_t i = 0; i < l->nslots; i++)
			if (l->slots[i].off + 8 > end) {
				pos = l->slots[i].off;
				what = "fixed field past the end";
				goto corrupt;
			}
	}
	for (uint32_t i = 0; i < l->nslots; i++) {
		const struct pm__slot *sl = &l->slots[i];
		const uint8_t *p = b + sl->off;

		switch (sl->dst) {
		case PM__DST_ID: s->id = pm__ld64(p, be); break;
		case PM__DST_IP: s->ip = pm__ld64(p, be); break;
		case PM__DST_TID:
			s->pid = pm__ld32(p, be);
			s->tid = pm__ld32(p + 4, be);
			break;
		case PM__DST_TIME: s->time = pm__ld64(p, be); break;
		case PM__DST_ADDR: s->addr = pm__ld64(p, be); break;
		case PM__DST_STREAM_ID: s->stream_id = pm__ld64(p, be); break;
		case PM__DST_CPU:
			s->cpu = pm__ld32(p, be);
			s->cpu_res = pm__ld32(p + 4, be);
			break;
		default: s->period = pm__ld64(p, be); break;
		}
	}
	pos = l->prefix_end;

#define NEED(n, w)                                                                    \
	do {                                                                           \
		if (!pm__fits(pos, (n), end)) {                                        \
			what = (w);                                                    \
			goto corrupt;                                                  \
		}                                                                      \
	} while (0)
/* One u64 field of the sample body, present when `bit` is in sample_type. */
#define U64_FIELD(bit, field)                                                         \
	do {                                                                           \
		if (st & (bit)) {                                                      \
			NEED(8, #field);                                               \
			s->field = pm__ld64(b + pos, be);                              \
			pos += 8;                                                      \
		}                                                                      \
	} while (0)

	if (st & PM_SAMPLE_READ) {
		size_t used, bad;

		if (pm__read_parse(&s->read, l, b, pos, end, be, &used, &bad)) {
			pos = bad;
			what = "read_format block past the end";
			goto corrupt;
		}
		pos += used;
	}
	if (st & PM_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8, "callchain nr");
		nr = pm__ld64(b + pos, be);
		if (nr > (end - pos - 8) / 8) {
			what = "callchain past the end";
			goto corrupt;
		}
		s->callchain.nr = nr;
		s->callchain.ips = b + pos + 8;
		pos += 8 + (size_t)nr * 8;
	}
	if (st & PM_SAMPLE_RAW) {
		uint32_t sz;

		NEED(4, "raw size");
		sz = pm__ld32(b + pos, be);
		if (!pm__fits(pos + 4, sz, end)) {
			what = "raw data past the end";
			goto corrupt;
		}
		s->raw.size = sz;
		s->raw.data = b + pos + 4;
		pos += 4 + (size_t)sz;
	}
	if (st & PM_SAMPLE_BRANCH_STACK) {
		struct pm_branch_stack *bs = &s->branch_stack;
		uint64_t nr;
		size_t per = 24 + (l->branch_counters ? 8 : 0), p;

		NEED(8, "branch stack nr");
		nr = pm__ld64(b + pos, be);
		p = pos + 8;
		if (l->branch_hw_idx) {
			if (!pm__fits(p, 8, end)) {
				pos = p;
				what = "branch hw_idx";
				goto corrupt;
			}
			bs->hw_idx = pm__ld64(b + p, be);
			bs->has_hw_idx = 1;
			p += 8;
		}
		if (nr > (end - p) / per) {
			what = "branch stack past the end";
			goto corrupt;
		}
		bs->nr = nr;
		bs->entries = b + p;
		p += (size_t)nr * 24;
		if (l->branch_counters) {
			bs->has_counters = 1;
			bs->counters = b + p;
			p += (size_t)nr * 8;
		}
		pos = p;
	}
	if (st & PM_SAMPLE_REGS_USER) {
		if (parse_regs(&s->regs_user, l->attr.sample_regs_user, l->regs_user_nr, b, &pos, end,
			       be)) {
			what = "user registers past the end";
			goto corrupt;
		}
	}
	if (st & PM_SAMPLE_STACK_USER) {
		uint64_t sz;

		NEED(8, "user stack size");
		sz = pm__ld64(b + pos, be);
		s->stack_user.size = sz;
		if (sz) {
			if (sz > end - pos - 8 || end - pos - 8 - sz < 8) {
				what = "user stack past the end";
				goto corrupt;
			}
			s->stack_user.data = b + pos + 8;
			s->stack_user.dyn_size = pm__ld64(b + pos + 8 + sz, be);
			if (s->stack_user.dyn_size > sz) {
				pos += 8 + (size_t)sz;
				what = "user stack dyn_size larger than size";
				goto corrupt;
			}
			pos += 16 + (size_t)sz;
		} else {
			pos += 8;
		}
	}
	if (st & (PM_SAMPLE_WEIGHT | PM_SAMPLE_WEIGHT_STRUCT)) {
		uint64_t w;

		NEED(8, "weight");
		w = pm__ld64(b + pos, be);
		s->weight = w;
		/* The union's struct view, as values: independent of byte order
		 * once the u64 is loaded in the recorded order. */
		s->weight_var1_dw = (uint32_t)w;
		s->weight_var2_w = (uint16_t)(w >> 32);
		s->weight_var3_w = (uint16_t)(w >> 48);
		pos += 8;
	}
	U64_FIELD(PM_SAMPLE_DATA_SRC, data_src);
	U64_FIELD(PM_SAMPLE_TRANSACTION, transaction);
	if (st & PM_SAMPLE_REGS_INTR) {
		if (parse_regs(&s->regs_intr, l->attr.sample_regs_intr, l->regs_intr_nr, b, &pos, end,
			       be)) {
			what = "interrupt registers past the end";
			goto corrupt;
		}
	}
	U64_FIELD(PM_SAMPLE_PHYS_ADDR, phys_addr);
	U64_FIELD(PM_SAMPLE_CGROUP, cgroup);
	U64_FIELD(PM_SAMPLE_DATA_PAGE_SIZE, data_page_size);
	U64_FIELD(PM_SAMPLE_CODE_PAGE_SIZE, code_page_size);
	if (st & PM_SAMPLE_AUX) {
		uint64_t sz;

		NEED(8, "aux size");
		sz = pm__ld64(b + pos, be);
		if (sz > end - pos - 8) {
			what = "aux data past the end";
			goto corrupt;
		}
		s->aux.size = sz;
		s->aux.data = sz ? b + pos + 8 : NULL;
		pos += 8 + (size_t)sz;
	}
#undef NEED
#undef U64_FIELD
	/* A SAMPLE is exactly its fields: the kernel sizes it from sample_type
	 * (perf_prepare_sample), pads RAW so that its u32 size plus data end on
	 * 8 bytes and the user stack to 8, and appends no sample_id trailer.
	 * Bytes left over mean the layout is not the one the record was written
	 * with (e.g. built from the attr passed in, not the one opened). */
	if (pos != end) {
		what = "record longer than its layout accounts for (layout of another attr?)";
		goto corrupt;
	}
	s->present = st;
	if (s == &tmp) {
		pm__struct_copy_out(out, caller_sz, &tmp, sizeof(tmp));
	} else {
		out->sz = caller_sz;
	}
	return 0;

corrupt:
	/* Every error after the struct was zeroed comes here: the caller's
	 * struct keeps its size, so the next call with it works. */
	if (s == out)
		out->sz = caller_sz;
	return pm__bad(PM_ERR_CORRUPT, pos, err_off, what, type);
}

/* ---- helpers ---- */

int pm_read_value_get(const struct pm_read *r, uint64_t i, struct pm_read_value *out)
{
	struct pm_read_value v = { 0 };
	size_t ntimes, p;
	uint64_t f;

	if (!r || !out)
		return pm__err(EINVAL, "pm_read_value: NULL argument");
	if (PM__SZ_VALID(out, pm_read_value, PM_READ_VALUE_SZ_V1))
		return -PM_ERR_STRUCT_SIZE;
	if (i >= r->nr || !r->data)
		return pm__err(ERANGE, "read value %llu of %llu", (unsigned long long)i,
			       (unsigned long long)r->nr);
	f = r->format;
	ntimes = !!(f & PM_FORMAT_TOTAL_TIME_ENABLED) + !!(f & PM_FORMAT_TOTAL_TIME_RUNNING);
	if (f & PM_FORMAT_GROUP) {
		size_t entry = 8 * (1 + !!(f & PM_FORMAT_ID) + !!(f & PM_FORMAT_LOST));

		p = 8 + 8 * ntimes + (size_t)i * entry;
		v.value = pm__ld64(r->data + p, r->big_endian);
		p += 8;
	} else {
		v.value = pm__ld64(r->data, r->big_endian);
		p = 8 + 8 * ntimes;
	}
	if (f & PM_FORMAT_ID) {
		v.id = pm__ld64(r->data + p, r->big_endian);
		p += 8;
	}
	if (f & PM_FORMAT_LOST)
		v.lost = pm__ld64(r->data + p, r->big_endian);
	pm__struct_copy_out(out, out->sz, &v, sizeof(v));
	return 0;
}

int pm_sample_read_value(const struct pm_sample *s, uint64_t i, struct pm_read_value *out)
{
	if (!s)
		return pm__err(EINVAL, "pm_sample_read_value: NULL argument");
	if (!(s->present & PM_SAMPLE_READ))
		return pm__err(ENOENT, "sample has no READ values");
	return pm_read_value_get(&s->read, i, out);
}

int pm_sample_callchain_ip(const struct pm_sample *s, uint64_t i, uint64_t *ip)
{
	if (!s || !ip)
		return pm__err(EINVAL, "pm_sample_callchain_ip: NULL argument");
	if (i >= s->callchain.nr || !s->callchain.ips)
		return pm__err(ERANGE, "callchain entry %llu of %llu", (unsigned long long)i,
			       (unsigned long long)s->callchain.nr);
	*ip = pm__ld64(s->callchain.ips + 8 * i, s->big_endian);
	return 0;
}

/* A bitfield of perf_branch_entry's flags word at logical bit o, width w:
 * GCC allocates bitfields from the LSB on little-endian machines and from
 * the MSB on big-endian ones. */
static inline uint64_t br_field(uint64_t v, unsigned o, unsigned w, bool be)
{
	unsigned shift = be ? 64 - o - w : o;

	return (v >> shift) & ((1ULL << w) - 1);
}

int pm_sample_branch_entry(const struct pm_sample *s, uint64_t i, struct pm_branch_entry *out)
{
	struct pm_branch_entry e = { 0 };
	const uint8_t *p;
	bool be;
	uint64_t f;

	if (!s || !out)
		return pm__err(EINVAL, "pm_sample_branch_entry: NULL argument");
	if (PM__SZ_VALID(out, pm_branch_entry, PM_BRANCH_ENTRY_SZ_V1))
		return -PM_ERR_STRUCT_SIZE;
	if (i >= s->branch_stack.nr || !s->branch_stack.entries)
		return pm__err(ERANGE, "branch entry %llu of %llu", (unsigned long long)i,
			       (unsigned long long)s->branch_stack.nr);
	be = s->big_endian != 0;
	p = s->branch_stack.entries + 24 * i;
	e.from = pm__ld64(p, be);
	e.to = pm__ld64(p + 8, be);
	f = pm__ld64(p + 16, be);
	e.flags = f;
	e.mispred = (uint8_t)br_field(f, 0, 1, be);
	e.predicted = (uint8_t)br_field(f, 1, 1, be);
	e.in_tx = (uint8_t)br_field(f, 2, 1, be);
	e.abort = (uint8_t)br_field(f, 3, 1, be);
	e.cycles = (uint16_t)br_field(f, 4, 16, be);
	e.type = (uint8_t)br_field(f, 20, 4, be);
	e.spec = (uint8_t)br_field(f, 24, 2, be);
	e.new_type = (uint8_t)br_field(f, 26, 4, be);
	e.priv = (uint8_t)br_field(f, 30, 3, be);
	if (s->branch_stack.has_counters && s->branch_stack.counters)
		e.counter = pm__ld64(s->branch_stack.counters + 8 * i, be);
	pm__struct_copy_out(out, out->sz, &e, sizeof(e));
	return 0;
}

static const struct pm_regs *pick_regs(const struct pm_sample *s, int which)
{
	if (which == PM_REGS_USER)
		return &s->regs_user;
	if (which == PM_REGS_INTR)
		return &s->regs_intr;
	return NULL;
}

int pm_sample_reg(const struct pm_sample *s, int which, uint32_t i, uint64_t *val)
{
	const struct pm_regs *r;

	if (!s || !val || !(r = pick_regs(s, which)))
		return pm__err(EINVAL, "pm_sample_reg: bad argument");
	if (i >= r->nr || !r->regs)
		return pm__err(ERANGE, "register index %u of %u", i, r->nr);
	*val = pm__ld64(r->regs + 8 * (size_t)i, s->big_endian);
	return 0;
}

int pm_sample_reg_by_num(const struct pm_sample *s, int which, unsigned regnum, uint64_t *val)
{
	const struct pm_regs *r;
	uint64_t below;
	uint32_t idx = 0;

	if (!s || !val || !(r = pick_regs(s, which)) || regnum > 63)
		return pm__err(EINVAL, "pm_sample_reg_by_num: bad argument");
	if (!r->regs || !(r->mask & (1ULL << regnum)))
		return pm__err(ENOENT, "register %u was not recorded", regnum);
	below = r->mask & ((1ULL << regnum) - 1);
	while (below) {
		below &= below - 1;
		idx++;
	}
	return pm_sample_reg(s, which, idx, val);
}

int pm_data_src_decode(uint64_t v, struct pm_data_src *out)
{
	struct pm_data_src d = { 0 };

	if (!out)
		return pm__err(EINVAL, "pm_data_src_decode: NULL argument");
	if (PM__SZ_VALID(out, pm_data_src, PM_DATA_SRC_SZ_V1))
		return -PM_ERR_STRUCT_SIZE;
	/* The kernel declares the fields in reverse on big-endian machines, so
	 * their positions in the u64 value are the same on both. */
	d.mem_op = (uint32_t)(v & 0x1f);
	d.mem_lvl = (uint32_t)((v >> 5) & 0x3fff);
	d.snoop = (uint32_t)((v >> 19) & 0x1f);
	d.lock = (uint32_t)((v >> 24) & 0x3);
	d.dtlb = (uint32_t)((v >> 26) & 0x7f);
	d.lvl_num = (uint32_t)((v >> 33) & 0xf);
	d.remote = (uint32_t)((v >> 37) & 0x1);
	d.snoopx = (uint32_t)((v >> 38) & 0x3);
	d.blk = (uint32_t)((v >> 40) & 0x7);
	d.hops = (uint32_t)((v >> 43) & 0x7);
	pm__struct_copy_out(out, out->sz, &d, sizeof(d));
	return 0;
}
