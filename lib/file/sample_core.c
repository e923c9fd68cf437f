/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* perf.data reader: the core fields of a SAMPLE (pm_file_sample_core()). */
#include <string.h>

#include "reader_int.h"
#include "record/plan.h"

int pm_file_sample_core(const pm_file *f, const struct pm_file_record *rec, struct pm_sample_core *out)
{
	const pm_sample_layout *l;
	struct pm_sample_core tmp, *o;
	struct pm__score s;
	struct pm_sample full;
	size_t caller_sz;
	int rc;

	if (!f || !rec || !out || rec->type != PM_RECORD_SAMPLE)
		return pm__err(EINVAL, "pm_file_sample_core: NULL argument or not a SAMPLE record");
	caller_sz = out->sz;
	if (caller_sz != sizeof(*out)) {
		rc = PM__SZ_VALID(out, pm_sample_core, PM_SAMPLE_CORE_SZ_V1);
		if (rc)
			return rc;
	}
	o = caller_sz == sizeof(*out) ? out : &tmp;
	l = rec->attr_idx >= 0 && (size_t)rec->attr_idx < f->nr_ev ? f->ev[rec->attr_idx].layout : NULL;
	/* The plan's loads where they apply (pm__sample_core() checks what it
	 * walks and hands anything else back); every other record, and every
	 * error with its message, is pm_file_sample()'s. */
	if (l && rec->data && rec->size >= 8 &&
	    pm__ld16((const uint8_t *)rec->data + 6, f->be) == rec->size &&
	    !pm__sample_core(l, rec->data, rec->size, f->be, &s)) {
		o->present = l->sample_type;
		o->misc = rec->misc;
		o->id = s.id;
		o->ip = s.ip;
		o->time = s.time;
		o->addr = s.addr;
		o->period = s.period;
		o->pid = s.pid;
		o->tid = s.tid;
		o->cpu = s.cpu;
		o->raw_size = s.raw_size;
		o->raw = s.raw;
	} else {
		full.sz = sizeof(full);
		rc = pm_file_sample(f, rec, &full);
		if (rc < 0)
			return rc;
		o->present = full.present;
		o->misc = full.misc;
		o->id = full.id;
		o->ip = full.ip;
		o->time = full.time;
		o->addr = full.addr;
		o->period = full.period;
		o->pid = full.pid;
		o->tid = full.tid;
		o->cpu = full.cpu;
		o->raw_size = (full.present & PM_SAMPLE_RAW) ? full.raw.size : 0;
		o->raw = (full.present & PM_SAMPLE_RAW) ? full.raw.data : NULL;
	}
	o->reserved = 0;
	o->reserved2 = 0;
	if (o == &tmp)
		pm__struct_copy_out(out, caller_sz, &tmp, sizeof(tmp));
	return 0;
}
