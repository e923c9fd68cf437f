/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the record and sample parsers with a fuzzed attr.
 *
 * Input: byte 0 = flags (bit 0: big-endian bytes; bit 1: pm_record_parse
 * without a layout), bytes 1-2 = attr length (u16 little endian, cut to what
 * is there), then the attr in the kernel layout (pm_attr_from_bytes()), then
 * a span of records walked one after another.  Every parsed field that has an
 * accessor is read through it.
 */
#include <profileme/attr.h>
#include <profileme/record.h>

#include "fuzz_common.h"

static void walk_sample(const struct pm_sample *s)
{
	uint64_t v;
	for (uint64_t i = 0; i < s->read.nr && i < 64; i++) {
		struct pm_read_value rv = { .sz = sizeof(rv) };
		PM_FUZZ_ASSERT(pm_sample_read_value(s, i, &rv) == 0);
	}
	if (s->present & PM_SAMPLE_READ) {
		struct pm_read_value rv = { .sz = sizeof(rv) };
		PM_FUZZ_ASSERT(pm_sample_read_value(s, s->read.nr, &rv) < 0);
	}
	for (uint64_t i = 0; i < s->callchain.nr && i < 256; i++)
		PM_FUZZ_ASSERT(pm_sample_callchain_ip(s, i, &v) == 0);
	PM_FUZZ_ASSERT(pm_sample_callchain_ip(s, s->callchain.nr, &v) < 0);
	for (uint64_t i = 0; i < s->branch_stack.nr && i < 64; i++) {
		struct pm_branch_entry be = { .sz = sizeof(be) };
		PM_FUZZ_ASSERT(pm_sample_branch_entry(s, i, &be) == 0);
	}
	for (uint32_t i = 0; i < s->regs_user.nr && i < 64; i++)
		PM_FUZZ_ASSERT(pm_sample_reg(s, PM_REGS_USER, i, &v) == 0);
	for (uint32_t i = 0; i < s->regs_intr.nr && i < 64; i++)
		PM_FUZZ_ASSERT(pm_sample_reg(s, PM_REGS_INTR, i, &v) == 0);
	for (unsigned r = 0; r < 64; r++) {
		(void)pm_sample_reg_by_num(s, PM_REGS_USER, r, &v);
		(void)pm_sample_reg_by_num(s, PM_REGS_INTR, r, &v);
	}
	struct pm_data_src ds = { .sz = sizeof(ds) };
	PM_FUZZ_ASSERT(pm_data_src_decode(s->data_src, &ds) == 0);
	/* Touch every byte the parser pointed at: ASan/valgrind check the bounds. */
	volatile uint8_t sink = 0;
	for (uint32_t i = 0; i < s->raw.size; i++)
		sink ^= s->raw.data[i];
	for (uint64_t i = 0; i < s->stack_user.dyn_size && i < s->stack_user.size; i++)
		sink ^= s->stack_user.data[i];
	for (uint64_t i = 0; i < s->aux.size; i++)
		sink ^= s->aux.data[i];
	(void)sink;
}

static void walk_cpu_map(const struct pm_cpu_map *m)
{
	for (int32_t c = -1; c < 70; c++)
		(void)pm_cpu_map_has(m, c);
	(void)pm_cpu_map_has(m, 65535);
}

static void walk_record(const struct pm_record *r)
{
	volatile uint8_t sink = 0;
	for (uint32_t i = 0; i < r->body_size; i++)
		sink ^= r->body[i];
	(void)sink;
	switch (r->header.type) {
	case PM_RECORD_ID_INDEX:
		for (uint64_t i = 0; i < r->id_index.nr && i < 64; i++) {
			struct pm_id_index_entry e = { .sz = sizeof(e) };
			PM_FUZZ_ASSERT(pm_record_id_index_entry(r, i, &e) == 0);
		}
		break;
	case PM_RECORD_THREAD_MAP:
		for (uint64_t i = 0; i < r->thread_map.nr && i < 64; i++) {
			uint64_t pid;
			char comm[17];
			PM_FUZZ_ASSERT(pm_record_thread_map_entry(r, i, &pid, comm) == 0);
			PM_FUZZ_ASSERT(memchr(comm, '\0', sizeof(comm)) != NULL);
		}
		break;
	case PM_RECORD_NAMESPACES:
		for (uint64_t i = 0; i < r->namespaces.nr && i < 64; i++) {
			uint64_t dev, ino;
			PM_FUZZ_ASSERT(pm_record_namespace(r, i, &dev, &ino) == 0);
		}
		break;
	case PM_RECORD_CPU_MAP:
		walk_cpu_map(&r->cpu_map);
		break;
	default:
		walk_cpu_map(&r->event_update.cpus);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	int be = data[0] & 1;
	int no_layout = (data[0] >> 1) & 1;
	size_t alen = (size_t)data[1] | ((size_t)data[2] << 8);
	data += 3;
	size -= 3;
	if (alen > size)
		alen = size;

	/* The attr and the records each in an exact-size heap block. */
	uint8_t *abuf = malloc(alen ? alen : 1);
	uint8_t *rbuf = malloc(size - alen ? size - alen : 1);
	if (!abuf || !rbuf)
		abort();
	memcpy(abuf, data, alen);
	memcpy(rbuf, data + alen, size - alen);
	size_t rlen = size - alen;

	struct pm_attr attr;
	pm_sample_layout *layout = NULL;
	if (pm_attr_from_bytes(&attr, abuf, alen, be) != 0 ||
	    pm_sample_layout_new(&layout, &attr) != 0)
		goto out;
	(void)pm_sample_layout_id_pos(layout);
	(void)pm_sample_layout_is_pos(layout);
	(void)pm_sample_layout_trailer_size(layout);
	(void)pm_sample_layout_fixed_size(layout);

	size_t off = 0;
	struct pm_sample s;

	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	for (int n = 0; n < 512 && off < rlen; n++) {
		struct pm_record_header h;
		const uint8_t *rec = rbuf + off;
		size_t left = rlen - off;
		if (pm_record_header_parse(&h, rec, left, be) != 0)
			break;
		(void)pm_record_type_name(h.type);
		uint64_t id;
		(void)pm_record_peek_id(layout, rec, left, be, &id);

		struct pm_record r;
		size_t eoff = SIZE_MAX;
		memset(&r, 0, sizeof(r));
		r.sz = sizeof(r);
		int rc = pm_record_parse(&r, no_layout ? NULL : layout, rec, left, be, &eoff);
		if (rc == 0) {
			PM_FUZZ_ASSERT(r.header.size == h.size && r.header.type == h.type);
			walk_record(&r);
		} else {
			PM_FUZZ_ASSERT(rc < 0);
			PM_FUZZ_ASSERT(eoff == SIZE_MAX || eoff <= left);
		}
		if (h.type == PM_RECORD_SAMPLE) {
			/* One struct for every sample of the input, and each
			 * sample parsed twice: no error path may leave the
			 * caller's struct unusable for the next call. */
			for (int again = 0; again < 2; again++) {
				size_t eoff2 = SIZE_MAX;
				int rc2 = pm_sample_parse(&s, layout, rec, left, be, &eoff2);

				PM_FUZZ_ASSERT(s.sz == sizeof(s));
				if (again) {
					PM_FUZZ_ASSERT(rc2 == rc && eoff2 == eoff);
				}
				rc = rc2;
				eoff = eoff2;
				if (rc == 0) {
					PM_FUZZ_ASSERT(s.size == h.size);
					walk_sample(&s);
				} else {
					PM_FUZZ_ASSERT(rc < 0);
					PM_FUZZ_ASSERT(eoff == SIZE_MAX || eoff <= left);
				}
			}
		}
		if (h.size > left)
			break;
		off += h.size;
	}
out:
	pm_sample_layout_free(layout);
	free(abuf);
	free(rbuf);
	return 0;
}
