/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <profileme/attr.h>

#include "internal/pm_internal.h"

void pm_attr_init(struct pm_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = PM_ATTR_SIZE_KNOWN;
}

/*
 * The kernel declares the attr flags as bitfields of a __u64.  GCC allocates
 * bitfields from the least significant bit on little-endian machines and from
 * the most significant bit on big-endian ones.  So, read as a big-endian u64,
 * logical flag n sits at bit 63 - n, and the 2-bit precise_ip field (logical
 * bits 15-16, value LSB at 15) sits at bits 48-47 with its LSB at bit 47.
 * Reversing all 64 bits therefore maps single-bit flags correctly and swaps
 * the two bits of precise_ip, which we swap back.  (perf's own cross-endian
 * swap reverses the bits and leaves precise_ip's two bits swapped.)
 */
static uint64_t pm_bitrev64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++)
		if (v & (1ULL << i))
			r |= 1ULL << (63 - i);
	return r;
}

static uint64_t pm_swap_precise(uint64_t v)
{
	uint64_t p = (v >> PM_ATTR_PRECISE_IP_SHIFT) & 3;

	p = ((p & 1) << 1) | (p >> 1);
	return (v & ~PM_ATTR_PRECISE_IP_MASK) | (p << PM_ATTR_PRECISE_IP_SHIFT);
}

/* big-endian kernel word -> logical flags */
static uint64_t pm_flags_from_be(uint64_t v)
{
	return pm_swap_precise(pm_bitrev64(v));
}

/* logical flags -> big-endian kernel word */
static uint64_t pm_flags_to_be(uint64_t v)
{
	return pm_bitrev64(pm_swap_precise(v));
}

struct pm_attr_field {
	uint16_t off;
	uint8_t width; /* bytes */
	uint16_t member;
};

#define F(name, w) { 0, w, (uint16_t)offsetof(struct pm_attr, name) }
/* Kernel layout order; offsets are computed by accumulating widths. */
static const struct pm_attr_field pm_attr_fields[] = {
	F(type, 4), F(size, 4), F(config, 8), F(sample_period, 8), F(sample_type, 8),
	F(read_format, 8), F(flags, 8), F(wakeup_events, 4), F(bp_type, 4), F(config1, 8),
	F(config2, 8), F(branch_sample_type, 8), F(sample_regs_user, 8),
	F(sample_stack_user, 4), F(clockid, 4), F(sample_regs_intr, 8), F(aux_watermark, 4),
	F(sample_max_stack, 2), F(reserved_2, 2), F(aux_sample_size, 4), F(reserved_3, 4),
	F(sig_data, 8), F(config3, 8),
};
#undef F

int pm_attr_from_bytes(struct pm_attr *attr, const void *buf, size_t len, int big_endian)
{
	const uint8_t *b = buf;
	size_t size, off = 0;
	uint32_t recorded;

	if (len < PM_ATTR_SIZE_VER0)
		return pm__err(PM_ERR_TRUNCATED, "attr: %zu bytes, need at least %d", len,
			       PM_ATTR_SIZE_VER0);
	memset(attr, 0, sizeof(*attr));
	recorded = pm__ld32(b + 4, big_endian);
	size = recorded ? recorded : PM_ATTR_SIZE_VER0;
	if (size < PM_ATTR_SIZE_VER0)
		return pm__err(PM_ERR_FORMAT, "attr: size %zu is smaller than the first version (%d)",
			       size, PM_ATTR_SIZE_VER0);
	if (size > len)
		return pm__err(PM_ERR_TRUNCATED, "attr: size %zu but only %zu bytes", size, len);
	for (size_t i = 0; i < PM_ARRAY_SIZE(pm_attr_fields); i++) {
		const struct pm_attr_field *f = &pm_attr_fields[i];
		char *m = (char *)attr + f->member;

		if (off + f->width > size)
			break;
		switch (f->width) {
		case 2: { uint16_t v = pm__ld16(b + off, big_endian); memcpy(m, &v, 2); break; }
		case 4: { uint32_t v = pm__ld32(b + off, big_endian); memcpy(m, &v, 4); break; }
		default: { uint64_t v = pm__ld64(b + off, big_endian); memcpy(m, &v, 8); break; }
		}
		off += f->width;
	}
	attr->size = (uint32_t)size;
	if (big_endian)
		attr->flags = pm_flags_from_be(attr->flags);
	return 0;
}

int pm_attr_to_bytes(const struct pm_attr *attr, void *buf, size_t cap, int big_endian)
{
	uint8_t *b = buf;
	size_t size = attr->size ? attr->size : PM_ATTR_SIZE_KNOWN, off = 0;

	if (size < PM_ATTR_SIZE_VER0 || size > PM_ATTR_SIZE_KNOWN || size % 8)
		return pm__err(EINVAL, "attr: cannot write size %zu", size);
	if (cap < size)
		return pm__err(PM_ERR_RANGE, "attr: %zu bytes needed, %zu available", size, cap);
	for (size_t i = 0; i < PM_ARRAY_SIZE(pm_attr_fields) && off < size; i++) {
		const struct pm_attr_field *f = &pm_attr_fields[i];
		const char *m = (const char *)attr + f->member;

		switch (f->width) {
		case 2: { uint16_t v; memcpy(&v, m, 2); pm__st16(b + off, v, big_endian); break; }
		case 4: { uint32_t v; memcpy(&v, m, 4); pm__st32(b + off, v, big_endian); break; }
		default: {
			uint64_t v;
			memcpy(&v, m, 8);
			if (f->member == offsetof(struct pm_attr, flags) && big_endian)
				v = pm_flags_to_be(v);
			pm__st64(b + off, v, big_endian);
			break;
		}
		}
		off += f->width;
	}
	pm__st32(b + 4, (uint32_t)size, big_endian);
	return (int)size;
}
