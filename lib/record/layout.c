/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Sample layout: computed once per attr. */
#include <stdlib.h>

#include "record_internal.h"

#define PM__KNOWN_FORMAT                                                                 \
	(PM_FORMAT_TOTAL_TIME_ENABLED | PM_FORMAT_TOTAL_TIME_RUNNING | PM_FORMAT_ID |   \
	 PM_FORMAT_GROUP | PM_FORMAT_LOST)

static uint32_t pm_popcount64(uint64_t v)
{
	uint32_t n = 0;

	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

void pm__plan_positions(const struct pm_attr *attr, struct pm__plan_pos *pos)
{
	uint64_t st = attr->sample_type;

	/* SAMPLE: IDENTIFIER first, else ID after IP, TID, TIME, ADDR */
	if (st & PM_SAMPLE_IDENTIFIER)
		pos->id_pos = 0;
	else if (st & PM_SAMPLE_ID)
		pos->id_pos = !!(st & PM_SAMPLE_IP) + !!(st & PM_SAMPLE_TID) +
			      !!(st & PM_SAMPLE_TIME) + !!(st & PM_SAMPLE_ADDR);
	else
		pos->id_pos = -1;
	/* trailer (written in the order TID TIME ID STREAM_ID CPU IDENTIFIER):
	 * IDENTIFIER last, else ID before STREAM_ID and CPU */
	if (st & PM_SAMPLE_IDENTIFIER)
		pos->is_pos = 1;
	else if (st & PM_SAMPLE_ID)
		pos->is_pos = 1 + !!(st & PM_SAMPLE_CPU) + !!(st & PM_SAMPLE_STREAM_ID);
	else
		pos->is_pos = -1;
	pos->time_off = -1;
	if (st & PM_SAMPLE_TIME)
		pos->time_off = 8 + 8 * (!!(st & PM_SAMPLE_IDENTIFIER) + !!(st & PM_SAMPLE_IP) +
					 !!(st & PM_SAMPLE_TID));
	pos->time_slots = 0;
	if ((attr->flags & PM_ATTR_SAMPLE_ID_ALL) && (st & PM_SAMPLE_TIME))
		pos->time_slots = 1 + !!(st & PM_SAMPLE_ID) + !!(st & PM_SAMPLE_STREAM_ID) +
				  !!(st & PM_SAMPLE_CPU) + !!(st & PM_SAMPLE_IDENTIFIER);
}

int pm_sample_layout_new(pm_sample_layout **out, const struct pm_attr *attr)
{
	static const struct {
		uint64_t bit;
		uint8_t kind, dst;
	} prefix[] = {
		{ PM_SAMPLE_IDENTIFIER, PM__SLOT_U64, PM__DST_ID },
		{ PM_SAMPLE_IP, PM__SLOT_U64, PM__DST_IP },
		{ PM_SAMPLE_TID, PM__SLOT_PAIR32, PM__DST_TID },
		{ PM_SAMPLE_TIME, PM__SLOT_U64, PM__DST_TIME },
		{ PM_SAMPLE_ADDR, PM__SLOT_U64, PM__DST_ADDR },
		{ PM_SAMPLE_ID, PM__SLOT_U64, PM__DST_ID },
		{ PM_SAMPLE_STREAM_ID, PM__SLOT_U64, PM__DST_STREAM_ID },
		{ PM_SAMPLE_CPU, PM__SLOT_PAIR32, PM__DST_CPU },
		{ PM_SAMPLE_PERIOD, PM__SLOT_U64, PM__DST_PERIOD },
	};
	struct pm__plan_pos pos;
	pm_sample_layout *l;
	uint64_t st, rf;
	uint32_t off = 8, fixed;

	if (!out || !attr)
		return pm__err(EINVAL, "pm_sample_layout_new: NULL argument");
	*out = NULL;
	st = attr->sample_type;
	rf = attr->read_format;
	if (st & ~(PM_SAMPLE_MAX - 1))
		return pm__err(PM_ERR_UNSUPPORTED,
			       "sample_type 0x%llx has bits this library does not know (0x%llx)",
			       (unsigned long long)st,
			       (unsigned long long)(st & ~(PM_SAMPLE_MAX - 1)));
	if (rf & ~(uint64_t)PM__KNOWN_FORMAT)
		return pm__err(PM_ERR_UNSUPPORTED,
			       "read_format 0x%llx has bits this library does not know (0x%llx)",
			       (unsigned long long)rf,
			       (unsigned long long)(rf & ~(uint64_t)PM__KNOWN_FORMAT));
	l = pm__calloc(1, sizeof(*l));
	if (!l)
		return pm__err(ENOMEM, "out of memory");
	l->attr = *attr;
	l->sample_type = st;
	l->read_format = rf;
	pm__plan_positions(attr, &pos);
	l->id_pos = pos.id_pos;
	l->is_pos = pos.is_pos;
	for (size_t i = 0; i < PM_ARRAY_SIZE(prefix); i++) {
		if (!(st & prefix[i].bit))
			continue;
		l->slots[l->nslots].bit = prefix[i].bit;
		l->slots[l->nslots].off = off;
		l->slots[l->nslots].kind = prefix[i].kind;
		l->slots[l->nslots].dst = prefix[i].dst;
		l->nslots++;
		off += 8;
	}
	l->prefix_end = off;

	l->read_ntimes = !!(rf & PM_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PM_FORMAT_TOTAL_TIME_RUNNING);
	if (rf & PM_FORMAT_GROUP) {
		l->read_fixed = 8 + 8 * l->read_ntimes;
		l->read_entry = 8 + 8 * (!!(rf & PM_FORMAT_ID) + !!(rf & PM_FORMAT_LOST));
	} else {
		l->read_fixed = 8 + 8 * (l->read_ntimes + !!(rf & PM_FORMAT_ID) + !!(rf & PM_FORMAT_LOST));
		l->read_entry = 0;
	}

	/* Minimum body: prefix + every fixed-size or length-prefixed field's minimum. */
	fixed = off - 8;
	if (st & PM_SAMPLE_READ)
		fixed += l->read_fixed;
	if (st & PM_SAMPLE_CALLCHAIN)
		fixed += 8;
	if (st & PM_SAMPLE_RAW)
		fixed += 4;
	l->branch_hw_idx = (attr->branch_sample_type & PM_BRANCH_HW_INDEX) != 0;
	l->branch_counters = (attr->branch_sample_type & PM_BRANCH_COUNTERS) != 0;
	if (st & PM_SAMPLE_BRANCH_STACK)
		fixed += 8 + (l->branch_hw_idx ? 8 : 0);
	l->regs_user_nr = pm_popcount64(attr->sample_regs_user);
	l->regs_intr_nr = pm_popcount64(attr->sample_regs_intr);
	if (st & PM_SAMPLE_REGS_USER)
		fixed += 8;
	if (st & PM_SAMPLE_STACK_USER)
		fixed += 8;
	if (st & (PM_SAMPLE_WEIGHT | PM_SAMPLE_WEIGHT_STRUCT))
		fixed += 8;
	fixed += 8 * (!!(st & PM_SAMPLE_DATA_SRC) + !!(st & PM_SAMPLE_TRANSACTION));
	if (st & PM_SAMPLE_REGS_INTR)
		fixed += 8;
	fixed += 8 * (!!(st & PM_SAMPLE_PHYS_ADDR) + !!(st & PM_SAMPLE_CGROUP) +
		      !!(st & PM_SAMPLE_DATA_PAGE_SIZE) + !!(st & PM_SAMPLE_CODE_PAGE_SIZE));
	if (st & PM_SAMPLE_AUX)
		fixed += 8;
	l->fixed_size = fixed;

	l->sample_id_all = (attr->flags & PM_ATTR_SAMPLE_ID_ALL) != 0;
	if (l->sample_id_all)
		l->trailer_size = 8 * (uint32_t)(!!(st & PM_SAMPLE_TID) + !!(st & PM_SAMPLE_TIME) +
						 !!(st & PM_SAMPLE_ID) + !!(st & PM_SAMPLE_STREAM_ID) +
						 !!(st & PM_SAMPLE_CPU) + !!(st & PM_SAMPLE_IDENTIFIER));
	l->core_ok = !(st & ~(uint64_t)(PM_SAMPLE_IDENTIFIER | PM_SAMPLE_IP | PM_SAMPLE_TID |
					PM_SAMPLE_TIME | PM_SAMPLE_ADDR | PM_SAMPLE_ID |
					PM_SAMPLE_STREAM_ID | PM_SAMPLE_CPU | PM_SAMPLE_PERIOD |
					PM_SAMPLE_READ | PM_SAMPLE_CALLCHAIN | PM_SAMPLE_RAW)) &&
		     !((st & PM_SAMPLE_READ) && (rf & PM_FORMAT_GROUP));
	for (uint32_t i = 0; i < l->nslots; i++) {
		uint16_t o = (uint16_t)l->slots[i].off;

		switch (l->slots[i].dst) {
		case PM__DST_ID: l->off_id = o; break; /* ID after IDENTIFIER: the later wins */
		case PM__DST_IP: l->off_ip = o; break;
		case PM__DST_TID: l->off_tid = o; break;
		case PM__DST_TIME: l->off_time = o; break;
		case PM__DST_ADDR: l->off_addr = o; break;
		case PM__DST_CPU: l->off_cpu = o; break;
		case PM__DST_PERIOD: l->off_period = o; break;
		default: break;
		}
	}
	*out = l;
	return 0;
}

void pm_sample_layout_free(pm_sample_layout *layout)
{
	free(layout);
}

const struct pm_attr *pm_sample_layout_attr(const pm_sample_layout *layout)
{
	return layout ? &layout->attr : NULL;
}

int pm_sample_layout_id_pos(const pm_sample_layout *layout)
{
	return layout ? layout->id_pos : -1;
}

int pm_sample_layout_is_pos(const pm_sample_layout *layout)
{
	return layout ? layout->is_pos : -1;
}

size_t pm_sample_layout_trailer_size(const pm_sample_layout *layout)
{
	return layout ? layout->trailer_size : 0;
}

size_t pm_sample_layout_fixed_size(const pm_sample_layout *layout)
{
	return layout ? layout->fixed_size : 0;
}

size_t pm_sample_layout_min_size(const pm_sample_layout *layout)
{
	return layout ? ((size_t)8 + layout->fixed_size + 7) & ~(size_t)7 : 0;
}
