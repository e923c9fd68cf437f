/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Every non-sample record type: kernel PERF_RECORD_* and the perf tool's
 * user types.  Strings are bounded by the record, never by a NUL alone. */
#include "record_internal.h"

struct pm__ctx {
	const uint8_t *b;
	size_t end;    /* end of the body (trailer excluded) */
	bool be;
	uint32_t type;
	size_t *err_off;
};

#define NEED(off_, n_, what_)                                                          \
	do {                                                                            \
		if (!pm__fits((off_), (n_), c->end))                                    \
			return pm__bad(PM_ERR_CORRUPT, PM_MIN((size_t)(off_), c->end),   \
				       c->err_off, (what_), c->type);                       \
	} while (0)

static inline uint64_t L64(const struct pm__ctx *c, size_t off) { return pm__ld64(c->b + off, c->be); }
static inline uint32_t L32(const struct pm__ctx *c, size_t off) { return pm__ld32(c->b + off, c->be); }
static inline uint16_t L16(const struct pm__ctx *c, size_t off) { return pm__ld16(c->b + off, c->be); }

/* A string field from off to the end of the body, at most max bytes. */
static void str_field(const struct pm__ctx *c, size_t off, size_t max, const char **s, uint32_t *n)
{
	size_t avail = off < c->end ? c->end - off : 0;

	if (avail > max)
		avail = max;
	*s = (const char *)c->b + (off < c->end ? off : c->end);
	*n = avail ? pm__strnlen32(c->b + off, avail) : 0;
}

static void parse_trailer(struct pm_sample_id *id, const pm_sample_layout *l, const uint8_t *p,
			  bool be)
{
	uint64_t st = l->sample_type;

	if (st & PM_SAMPLE_TID) {
		id->pid = pm__ld32(p, be);
		id->tid = pm__ld32(p + 4, be);
		p += 8;
	}
	if (st & PM_SAMPLE_TIME) {
		id->time = pm__ld64(p, be);
		p += 8;
	}
	if (st & PM_SAMPLE_ID) {
		id->id = pm__ld64(p, be);
		p += 8;
	}
	if (st & PM_SAMPLE_STREAM_ID) {
		id->stream_id = pm__ld64(p, be);
		p += 8;
	}
	if (st & PM_SAMPLE_CPU) {
		id->cpu = pm__ld32(p, be);
		id->cpu_res = pm__ld32(p + 4, be);
		p += 8;
	}
	if (st & PM_SAMPLE_IDENTIFIER)
		id->id = pm__ld64(p, be);
	id->present = st & (PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_ID | PM_SAMPLE_STREAM_ID |
			    PM_SAMPLE_CPU | PM_SAMPLE_IDENTIFIER);
}

/* perf_record_cpu_map_data at off (packed layout). */
static int parse_cpu_map(const struct pm__ctx *c, size_t off, struct pm_cpu_map *m)
{
	NEED(off, 2, "cpu map type");
	m->type = L16(c, off);
	m->big_endian = c->be;
	switch (m->type) {
	case PM_CPU_MAP_CPUS:
		NEED(off + 2, 2, "cpu map nr");
		m->nr = L16(c, off + 2);
		NEED(off + 4, (size_t)m->nr * 2, "cpu list past the end");
		m->data = c->b + off + 4;
		break;
	case PM_CPU_MAP_MASK:
		NEED(off + 2, 4, "cpu mask nr/long_size");
		m->nr = L16(c, off + 2);
		m->long_size = L16(c, off + 4);
		if (m->long_size == 4) {
			NEED(off + 6, (size_t)m->nr * 4, "cpu mask past the end");
			m->data = c->b + off + 6;
		} else if (m->long_size == 8) {
			/* 4 bytes of legacy padding before the u64 words */
			NEED(off + 10, (size_t)m->nr * 8, "cpu mask past the end");
			m->data = c->b + off + 10;
		} else {
			return pm__bad(PM_ERR_CORRUPT, off + 4, c->err_off,
				       "cpu mask long_size is neither 4 nor 8", c->type);
		}
		break;
	case PM_CPU_MAP_RANGE_CPUS:
		NEED(off + 2, 6, "cpu range");
		m->any_cpu = c->b[off + 2];
		m->start_cpu = L16(c, off + 4);
		m->end_cpu = L16(c, off + 6);
		m->data = c->b + off + 2;
		break;
	default:
		/* Unknown encoding: exposed, not an error. */
		m->data = c->b + off + 2;
		break;
	}
	return 0;
}

static int parse_kernel(struct pm_record *r, const pm_sample_layout *l, const struct pm__ctx *c)
{
	uint16_t misc = r->header.misc;

	switch (c->type) {
	case PM_RECORD_MMAP:
	case PM_RECORD_MMAP2: {
		struct pm_record_mmap *m = &r->mmap;
		size_t fn;

		NEED(8, 32, "mmap fields");
		m->pid = L32(c, 8);
		m->tid = L32(c, 12);
		m->addr = L64(c, 16);
		m->len = L64(c, 24);
		m->pgoff = L64(c, 32);
		fn = 40;
		if (c->type == PM_RECORD_MMAP2) {
			NEED(40, 32, "mmap2 fields");
			if (misc & PM_RECORD_MISC_MMAP_BUILD_ID) {
				m->has_build_id = 1;
				m->build_id_size = c->b[40];
				if (m->build_id_size > 20)
					return pm__bad(PM_ERR_CORRUPT, 40, c->err_off,
						       "build id size larger than 20", c->type);
				m->build_id = c->b + 44;
			} else {
				m->maj = L32(c, 40);
				m->min = L32(c, 44);
				m->ino = L64(c, 48);
				m->ino_generation = L64(c, 56);
			}
			m->prot = L32(c, 64);
			m->flags = L32(c, 68);
			fn = 72;
		}
		str_field(c, fn, SIZE_MAX, &m->filename, &m->filename_len);
		return 0;
	}
	case PM_RECORD_LOST:
		NEED(8, 16, "lost fields");
		r->lost.id = L64(c, 8);
		r->lost.lost = L64(c, 16);
		return 0;
	case PM_RECORD_LOST_SAMPLES:
		NEED(8, 8, "lost count");
		r->lost.lost = L64(c, 8);
		return 0;
	case PM_RECORD_COMM:
		NEED(8, 8, "comm pid/tid");
		r->comm.pid = L32(c, 8);
		r->comm.tid = L32(c, 12);
		str_field(c, 16, SIZE_MAX, &r->comm.comm, &r->comm.comm_len);
		return 0;
	case PM_RECORD_EXIT:
	case PM_RECORD_FORK:
		NEED(8, 24, "task fields");
		r->task.pid = L32(c, 8);
		r->task.ppid = L32(c, 12);
		r->task.tid = L32(c, 16);
		r->task.ptid = L32(c, 20);
		r->task.time = L64(c, 24);
		return 0;
	case PM_RECORD_THROTTLE:
	case PM_RECORD_UNTHROTTLE:
		NEED(8, 24, "throttle fields");
		r->throttle.time = L64(c, 8);
		r->throttle.id = L64(c, 16);
		r->throttle.stream_id = L64(c, 24);
		return 0;
	case PM_RECORD_READ:
		NEED(8, 8, "read pid/tid");
		r->read.pid = L32(c, 8);
		r->read.tid = L32(c, 12);
		if (l) {
			size_t used, bad;

			if (pm__read_parse(&r->read.values, l, c->b, 16, c->end, c->be, &used, &bad))
				return pm__bad(PM_ERR_CORRUPT, bad, c->err_off,
					       "read_format block past the end", c->type);
		}
		return 0;
	case PM_RECORD_AUX:
		NEED(8, 24, "aux fields");
		r->aux.aux_offset = L64(c, 8);
		r->aux.aux_size = L64(c, 16);
		r->aux.flags = L64(c, 24);
		return 0;
	case PM_RECORD_ITRACE_START:
		NEED(8, 8, "itrace_start pid/tid");
		r->itrace_start.pid = L32(c, 8);
		r->itrace_start.tid = L32(c, 12);
		return 0;
	case PM_RECORD_SWITCH_CPU_WIDE:
		NEED(8, 8, "switch next/prev pid/tid");
		r->switch_.next_prev_pid = L32(c, 8);
		r->switch_.next_prev_tid = L32(c, 12);
		/* fall through */
	case PM_RECORD_SWITCH:
		r->switch_.out = !!(misc & PM_RECORD_MISC_SWITCH_OUT);
		r->switch_.preempt = !!(misc & PM_RECORD_MISC_SWITCH_OUT_PREEMPT);
		return 0;
	case PM_RECORD_NAMESPACES: {
		uint64_t nr;

		NEED(8, 16, "namespaces fields");
		r->namespaces.pid = L32(c, 8);
		r->namespaces.tid = L32(c, 12);
		nr = L64(c, 16);
		if (nr > (c->end - 24) / 16)
			return pm__bad(PM_ERR_CORRUPT, 16, c->err_off, "namespaces past the end",
				       c->type);
		r->namespaces.nr = nr;
		r->namespaces.entries = c->b + 24;
		return 0;
	}
	case PM_RECORD_KSYMBOL:
		NEED(8, 16, "ksymbol fields");
		r->ksymbol.addr = L64(c, 8);
		r->ksymbol.len = L32(c, 16);
		r->ksymbol.ksym_type = L16(c, 20);
		r->ksymbol.flags = L16(c, 22);
		str_field(c, 24, SIZE_MAX, &r->ksymbol.name, &r->ksymbol.name_len);
		return 0;
	case PM_RECORD_BPF_EVENT:
		NEED(8, 16, "bpf_event fields");
		r->bpf_event.type = L16(c, 8);
		r->bpf_event.flags = L16(c, 10);
		r->bpf_event.id = L32(c, 12);
		r->bpf_event.tag = c->b + 16;
		return 0;
	case PM_RECORD_CGROUP:
		NEED(8, 8, "cgroup id");
		r->cgroup.id = L64(c, 8);
		str_field(c, 16, SIZE_MAX, &r->cgroup.path, &r->cgroup.path_len);
		return 0;
	case PM_RECORD_TEXT_POKE:
		NEED(8, 12, "text_poke fields");
		r->text_poke.addr = L64(c, 8);
		r->text_poke.old_len = L16(c, 16);
		r->text_poke.new_len = L16(c, 18);
		if (!pm__fits(20, (size_t)r->text_poke.old_len + r->text_poke.new_len, c->end))
			return pm__bad(PM_ERR_CORRUPT, 16, c->err_off, "text_poke bytes past the end",
				       c->type);
		r->text_poke.old_bytes = c->b + 20;
		r->text_poke.new_bytes = c->b + 20 + r->text_poke.old_len;
		return 0;
	case PM_RECORD_AUX_OUTPUT_HW_ID:
		NEED(8, 8, "hw_id");
		r->aux_output_hw_id.hw_id = L64(c, 8);
		return 0;
	case PM_RECORD_CALLCHAIN_DEFERRED: {
		uint64_t nr;

		NEED(8, 16, "deferred callchain fields");
		r->callchain_deferred.cookie = L64(c, 8);
		nr = L64(c, 16);
		if (nr > (c->end - 24) / 8)
			return pm__bad(PM_ERR_CORRUPT, 16, c->err_off, "callchain past the end",
				       c->type);
		r->callchain_deferred.callchain.nr = nr;
		r->callchain_deferred.callchain.ips = c->b + 24;
		return 0;
	}
	default:
		return 0;
	}
}

static int parse_user(struct pm_record *r, const struct pm__ctx *c)
{
	switch (c->type) {
	case PM_RECORD_HEADER_ATTR: {
		struct pm_record_header_attr *a = &r->attr;
		size_t asz;
		int rc;

		NEED(8, PM_ATTR_SIZE_VER0, "attr");
		asz = L32(c, 12);
		if (!asz)
			asz = PM_ATTR_SIZE_VER0;
		if (asz < PM_ATTR_SIZE_VER0 || !pm__fits(8, asz, c->end))
			return pm__bad(PM_ERR_CORRUPT, 12, c->err_off, "attr size past the end",
				       c->type);
		rc = pm_attr_from_bytes(&a->attr, c->b + 8, asz, c->be);
		if (rc)
			return pm__bad(PM_ERR_CORRUPT, 8, c->err_off, "bad attr", c->type);
		a->attr_bytes = c->b + 8;
		a->attr_size = (uint32_t)asz;
		a->nr_ids = (c->end - 8 - asz) / 8;
		a->ids = a->nr_ids ? c->b + 8 + asz : NULL;
		return 0;
	}
	case PM_RECORD_HEADER_EVENT_TYPE:
		NEED(8, 8, "event_id");
		r->event_type.event_id = L64(c, 8);
		str_field(c, 16, 64, &r->event_type.name, &r->event_type.name_len);
		return 0;
	case PM_RECORD_HEADER_TRACING_DATA:
		NEED(8, 4, "tracing data size");
		r->tracing_data.size = L32(c, 8);
		return 0;
	case PM_RECORD_HEADER_BUILD_ID:
		NEED(8, 28, "build id fields");
		r->build_id.pid = (int32_t)L32(c, 8);
		r->build_id.build_id = c->b + 12;
		r->build_id.build_id_size = 20;
		if (r->header.misc & PM_RECORD_MISC_BUILD_ID_SIZE) {
			r->build_id.build_id_size = c->b[32];
			if (r->build_id.build_id_size > 20)
				return pm__bad(PM_ERR_CORRUPT, 32, c->err_off,
					       "build id size larger than 20", c->type);
		}
		str_field(c, 36, SIZE_MAX, &r->build_id.filename, &r->build_id.filename_len);
		return 0;
	case PM_RECORD_FINISHED_ROUND:
	case PM_RECORD_FINISHED_INIT:
		return 0;
	case PM_RECORD_ID_INDEX: {
		uint64_t nr;
		size_t rest;

		NEED(8, 8, "id index nr");
		nr = L64(c, 8);
		if (nr > (c->end - 16) / 32)
			return pm__bad(PM_ERR_CORRUPT, 8, c->err_off, "id index past the end", c->type);
		r->id_index.nr = nr;
		r->id_index.entries = c->b + 16;
		rest = c->end - 16 - (size_t)nr * 32;
		if (nr && rest / 16 >= nr)
			r->id_index.entries2 = c->b + 16 + (size_t)nr * 32;
		return 0;
	}
	case PM_RECORD_AUXTRACE_INFO:
		NEED(8, 8, "auxtrace info type");
		r->auxtrace_info.type = L32(c, 8);
		r->auxtrace_info.nr_priv = (c->end - 16) / 8;
		r->auxtrace_info.priv = c->b + 16;
		return 0;
	case PM_RECORD_AUXTRACE:
		NEED(8, 40, "auxtrace fields");
		r->auxtrace.size = L64(c, 8);
		r->auxtrace.offset = L64(c, 16);
		r->auxtrace.reference = L64(c, 24);
		r->auxtrace.idx = L32(c, 32);
		r->auxtrace.tid = L32(c, 36);
		r->auxtrace.cpu = L32(c, 40);
		return 0;
	case PM_RECORD_AUXTRACE_ERROR: {
		struct pm_record_auxtrace_error *e = &r->auxtrace_error;

		NEED(8, 32, "auxtrace error fields");
		e->type = L32(c, 8);
		e->code = L32(c, 12);
		e->cpu = L32(c, 16);
		e->pid = L32(c, 20);
		e->tid = L32(c, 24);
		e->fmt = L32(c, 28);
		e->ip = L64(c, 32);
		if (e->fmt == 0) {
			/* the original layout: no time, msg right after ip */
			str_field(c, 40, 64, &e->msg, &e->msg_len);
			return 0;
		}
		NEED(40, 8, "auxtrace error time");
		e->time = L64(c, 40);
		str_field(c, 48, 64, &e->msg, &e->msg_len);
		if (e->fmt >= 2 && pm__fits(112, 8, c->end)) {
			e->machine_pid = L32(c, 112);
			e->vcpu = L32(c, 116);
		}
		return 0;
	}
	case PM_RECORD_THREAD_MAP: {
		uint64_t nr;

		NEED(8, 8, "thread map nr");
		nr = L64(c, 8);
		if (nr > (c->end - 16) / 24)
			return pm__bad(PM_ERR_CORRUPT, 8, c->err_off, "thread map past the end",
				       c->type);
		r->thread_map.nr = nr;
		r->thread_map.entries = c->b + 16;
		return 0;
	}
	case PM_RECORD_CPU_MAP:
		return parse_cpu_map(c, 8, &r->cpu_map);
	case PM_RECORD_STAT_CONFIG: {
		uint64_t nr;

		NEED(8, 8, "stat config nr");
		nr = L64(c, 8);
		if (nr > (c->end - 16) / 16)
			return pm__bad(PM_ERR_CORRUPT, 8, c->err_off, "stat config past the end",
				       c->type);
		r->stat_config.nr = nr;
		r->stat_config.entries = c->b + 16;
		return 0;
	}
	case PM_RECORD_STAT:
		NEED(8, 40, "stat fields");
		r->stat.id = L64(c, 8);
		r->stat.cpu = L32(c, 16);
		r->stat.thread = L32(c, 20);
		r->stat.val = L64(c, 24);
		r->stat.ena = L64(c, 32);
		r->stat.run = L64(c, 40);
		return 0;
	case PM_RECORD_STAT_ROUND:
		NEED(8, 16, "stat round fields");
		r->stat_round.type = L64(c, 8);
		r->stat_round.time = L64(c, 16);
		return 0;
	case PM_RECORD_EVENT_UPDATE: {
		struct pm_record_event_update *u = &r->event_update;

		NEED(8, 16, "event update type/id");
		u->type = L64(c, 8);
		u->id = L64(c, 16);
		u->data = c->b + 24;
		u->data_size = (uint32_t)(c->end - 24);
		switch (u->type) {
		case PM_EVENT_UPDATE_SCALE: {
			uint64_t bits;

			NEED(24, 8, "event update scale");
			bits = L64(c, 24);
			memcpy(&u->scale, &bits, sizeof(u->scale));
			break;
		}
		case PM_EVENT_UPDATE_UNIT:
		case PM_EVENT_UPDATE_NAME:
			str_field(c, 24, SIZE_MAX, &u->str, &u->str_len);
			break;
		case PM_EVENT_UPDATE_CPUS:
			return parse_cpu_map(c, 24, &u->cpus);
		default:
			break;
		}
		return 0;
	}
	case PM_RECORD_TIME_CONV:
		NEED(8, 24, "time conv fields");
		r->time_conv.time_shift = L64(c, 8);
		r->time_conv.time_mult = L64(c, 16);
		r->time_conv.time_zero = L64(c, 24);
		if (c->end > 32) {
			NEED(32, 24, "time conv extension");
			r->time_conv.time_cycles = L64(c, 32);
			r->time_conv.time_mask = L64(c, 40);
			r->time_conv.cap_user_time_zero = c->b[48];
			r->time_conv.cap_user_time_short = c->b[49];
			r->time_conv.has_ext = 1;
		}
		return 0;
	case PM_RECORD_HEADER_FEATURE:
		NEED(8, 8, "feature id");
		r->feature.feat_id = L64(c, 8);
		r->feature.data = c->b + 16;
		r->feature.size = c->end - 16;
		return 0;
	case PM_RECORD_COMPRESSED:
		r->compressed.data = c->b + 8;
		r->compressed.size = c->end - 8;
		return 0;
	case PM_RECORD_COMPRESSED2: {
		uint64_t ds;

		NEED(8, 8, "compressed data size");
		ds = L64(c, 8);
		if (ds > c->end - 16)
			return pm__bad(PM_ERR_CORRUPT, 8, c->err_off, "compressed data past the end",
				       c->type);
		r->compressed.data = c->b + 16;
		r->compressed.size = ds;
		return 0;
	}
	default:
		return 0;
	}
}

static bool known_type(uint32_t t)
{
	return (t >= PM_RECORD_MMAP && t <= PM_RECORD_CALLCHAIN_DEFERRED) ||
	       (t >= PM_RECORD_HEADER_ATTR && t <= PM_RECORD_SCHEDSTAT_DOMAIN);
}

int pm_record_parse(struct pm_record *out, const pm_sample_layout *l, const void *rec, size_t len,
		    int big_endian, size_t *err_off)
{
	struct pm__ctx ctx, *c = &ctx;
	struct pm_record *r, tmpbuf, *tmp = NULL;
	size_t caller_sz, end;
	int rc;

	if (!out || !rec)
		return pm__err(EINVAL, "pm_record_parse: NULL argument");
	caller_sz = out->sz;
	if (caller_sz != sizeof(*out)) {
		rc = PM__SZ_VALID(out, pm_record, PM_RECORD_SZ_V1);
		if (rc)
			return rc;
	}
	if (len < 8)
		return pm__bad(PM_ERR_TRUNCATED, len, err_off, "header cut short",
			       len >= 4 ? pm__ld32(rec, big_endian) : 0);
	if (caller_sz >= sizeof(*r)) {
		r = out;
	} else {
		tmp = &tmpbuf;
		r = tmp;
	}
	pm__zero_struct(r, sizeof(*r));
	ctx.b = rec;
	ctx.be = big_endian != 0;
	ctx.err_off = err_off;
	r->header.type = ctx.type = L32(c, 0);
	r->header.misc = L16(c, 4);
	r->header.size = L16(c, 6);
	r->big_endian = ctx.be;
	r->bytes = ctx.b;
	end = r->header.size;
	if (end < 8) {
		rc = pm__bad(PM_ERR_CORRUPT, 6, err_off, "header.size smaller than the header",
			     ctx.type);
		goto out;
	}
	if (end > len) {
		rc = pm__bad(PM_ERR_TRUNCATED, len, err_off, "record cut short", ctx.type);
		goto out;
	}
	r->known = known_type(ctx.type);
	if (r->known && ctx.type < PM_RECORD_USER_TYPE_START && ctx.type != PM_RECORD_SAMPLE && l &&
	    l->trailer_size) {
		if (end - 8 < l->trailer_size) {
			rc = pm__bad(PM_ERR_CORRUPT, 8, err_off, "no room for the sample_id trailer",
				     ctx.type);
			goto out;
		}
		end -= l->trailer_size;
		parse_trailer(&r->sample_id, l, ctx.b + end, ctx.be);
	}
	ctx.end = end;
	r->body = ctx.b + 8;
	r->body_size = (uint32_t)(end - 8);
	if (!r->known)
		rc = 0;
	else if (ctx.type < PM_RECORD_USER_TYPE_START)
		rc = parse_kernel(r, l, c);
	else
		rc = parse_user(r, c);
out:
	if (tmp) {
		if (!rc)
			pm__struct_copy_out(out, caller_sz, tmp, sizeof(*tmp));
	} else {
		out->sz = caller_sz;
	}
	return rc;
}

int pm_record_id_index_entry(const struct pm_record *r, uint64_t i, struct pm_id_index_entry *out)
{
	struct pm_id_index_entry e = { 0 };
	const uint8_t *p;
	bool be;

	if (!r || !out || r->header.type != PM_RECORD_ID_INDEX)
		return pm__err(EINVAL, "pm_record_id_index_entry: bad argument");
	if (PM__SZ_VALID(out, pm_id_index_entry, PM_ID_INDEX_ENTRY_SZ_V1))
		return -PM_ERR_STRUCT_SIZE;
	if (i >= r->id_index.nr)
		return pm__err(ERANGE, "id index entry %llu of %llu", (unsigned long long)i,
			       (unsigned long long)r->id_index.nr);
	be = r->big_endian != 0;
	p = r->id_index.entries + 32 * i;
	e.id = pm__ld64(p, be);
	e.idx = pm__ld64(p + 8, be);
	e.cpu = pm__ld64(p + 16, be);
	e.tid = pm__ld64(p + 24, be);
	if (r->id_index.entries2) {
		p = r->id_index.entries2 + 16 * i;
		e.machine_pid = pm__ld64(p, be);
		e.vcpu = pm__ld64(p + 8, be);
	}
	pm__struct_copy_out(out, out->sz, &e, sizeof(e));
	return 0;
}

int pm_record_thread_map_entry(const struct pm_record *r, uint64_t i, uint64_t *pid, char *comm)
{
	const uint8_t *p;

	if (!r || !pid || r->header.type != PM_RECORD_THREAD_MAP)
		return pm__err(EINVAL, "pm_record_thread_map_entry: bad argument");
	if (i >= r->thread_map.nr)
		return pm__err(ERANGE, "thread map entry %llu of %llu", (unsigned long long)i,
			       (unsigned long long)r->thread_map.nr);
	p = r->thread_map.entries + 24 * i;
	*pid = pm__ld64(p, r->big_endian);
	if (comm) {
		uint32_t n = pm__strnlen32(p + 8, 16);

		memcpy(comm, p + 8, n);
		comm[n] = '\0';
	}
	return 0;
}

int pm_record_namespace(const struct pm_record *r, uint64_t i, uint64_t *dev, uint64_t *inode)
{
	const uint8_t *p;

	if (!r || !dev || !inode || r->header.type != PM_RECORD_NAMESPACES)
		return pm__err(EINVAL, "pm_record_namespace: bad argument");
	if (i >= r->namespaces.nr)
		return pm__err(ERANGE, "namespace %llu of %llu", (unsigned long long)i,
			       (unsigned long long)r->namespaces.nr);
	p = r->namespaces.entries + 16 * i;
	*dev = pm__ld64(p, r->big_endian);
	*inode = pm__ld64(p + 8, r->big_endian);
	return 0;
}

int pm_cpu_map_has(const struct pm_cpu_map *m, int32_t cpu)
{
	if (!m || !m->data)
		return pm__err(EINVAL, "pm_cpu_map_has: bad argument");
	switch (m->type) {
	case PM_CPU_MAP_CPUS:
		for (uint32_t i = 0; i < m->nr; i++) {
			int32_t v = (int16_t)pm__ld16(m->data + 2 * i, m->big_endian);

			if (v == cpu)
				return 1;
		}
		return 0;
	case PM_CPU_MAP_MASK: {
		uint32_t bits = 8u * m->long_size;
		uint32_t w;
		uint64_t word;

		if (cpu < 0)
			return 0;
		w = (uint32_t)cpu / bits;
		if (w >= m->nr)
			return 0;
		word = m->long_size == 8 ? pm__ld64(m->data + 8 * (size_t)w, m->big_endian)
					 : pm__ld32(m->data + 4 * (size_t)w, m->big_endian);
		return (int)((word >> ((uint32_t)cpu % bits)) & 1);
	}
	case PM_CPU_MAP_RANGE_CPUS:
		if (cpu == -1)
			return m->any_cpu ? 1 : 0;
		return cpu >= m->start_cpu && cpu <= m->end_cpu;
	default:
		return pm__err(EINVAL, "cpu map: unknown encoding %u", m->type);
	}
}
