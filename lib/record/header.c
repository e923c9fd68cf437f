/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Record header, type names, id extraction, small helpers. */
#include "record_internal.h"

int pm__bad(int code, size_t off, size_t *err_off, const char *what, uint32_t type)
{
	if (err_off)
		*err_off = off;
	return pm__err(code, "%s record: %s at offset %zu", pm_record_type_name(type), what, off);
}

int pm_record_header_parse(struct pm_record_header *out, const void *buf, size_t len,
			   int big_endian)
{
	const uint8_t *b = buf;

	if (!out || !buf)
		return pm__err(EINVAL, "pm_record_header_parse: NULL argument");
	if (len < 8)
		return pm__err(PM_ERR_TRUNCATED, "record header: %zu bytes, need 8", len);
	out->type = pm__ld32(b, big_endian);
	out->misc = pm__ld16(b + 4, big_endian);
	out->size = pm__ld16(b + 6, big_endian);
	if (out->size < 8)
		return pm__err(PM_ERR_CORRUPT, "record header: size %u is smaller than the header",
			       out->size);
	return 0;
}

static const char *const pm_kernel_names[] = {
	[0] = NULL,
	[PM_RECORD_MMAP] = "MMAP",
	[PM_RECORD_LOST] = "LOST",
	[PM_RECORD_COMM] = "COMM",
	[PM_RECORD_EXIT] = "EXIT",
	[PM_RECORD_THROTTLE] = "THROTTLE",
	[PM_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PM_RECORD_FORK] = "FORK",
	[PM_RECORD_READ] = "READ",
	[PM_RECORD_SAMPLE] = "SAMPLE",
	[PM_RECORD_MMAP2] = "MMAP2",
	[PM_RECORD_AUX] = "AUX",
	[PM_RECORD_ITRACE_START] = "ITRACE_START",
	[PM_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PM_RECORD_SWITCH] = "SWITCH",
	[PM_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PM_RECORD_NAMESPACES] = "NAMESPACES",
	[PM_RECORD_KSYMBOL] = "KSYMBOL",
	[PM_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PM_RECORD_CGROUP] = "CGROUP",
	[PM_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PM_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PM_RECORD_CALLCHAIN_DEFERRED] = "CALLCHAIN_DEFERRED",
};

static const char *const pm_user_names[] = {
	[PM_RECORD_HEADER_ATTR - 64] = "HEADER_ATTR",
	[PM_RECORD_HEADER_EVENT_TYPE - 64] = "HEADER_EVENT_TYPE",
	[PM_RECORD_HEADER_TRACING_DATA - 64] = "HEADER_TRACING_DATA",
	[PM_RECORD_HEADER_BUILD_ID - 64] = "HEADER_BUILD_ID",
	[PM_RECORD_FINISHED_ROUND - 64] = "FINISHED_ROUND",
	[PM_RECORD_ID_INDEX - 64] = "ID_INDEX",
	[PM_RECORD_AUXTRACE_INFO - 64] = "AUXTRACE_INFO",
	[PM_RECORD_AUXTRACE - 64] = "AUXTRACE",
	[PM_RECORD_AUXTRACE_ERROR - 64] = "AUXTRACE_ERROR",
	[PM_RECORD_THREAD_MAP - 64] = "THREAD_MAP",
	[PM_RECORD_CPU_MAP - 64] = "CPU_MAP",
	[PM_RECORD_STAT_CONFIG - 64] = "STAT_CONFIG",
	[PM_RECORD_STAT - 64] = "STAT",
	[PM_RECORD_STAT_ROUND - 64] = "STAT_ROUND",
	[PM_RECORD_EVENT_UPDATE - 64] = "EVENT_UPDATE",
	[PM_RECORD_TIME_CONV - 64] = "TIME_CONV",
	[PM_RECORD_HEADER_FEATURE - 64] = "FEATURE",
	[PM_RECORD_COMPRESSED - 64] = "COMPRESSED",
	[PM_RECORD_FINISHED_INIT - 64] = "FINISHED_INIT",
	[PM_RECORD_COMPRESSED2 - 64] = "COMPRESSED2",
	[PM_RECORD_BPF_METADATA - 64] = "BPF_METADATA",
	[PM_RECORD_SCHEDSTAT_CPU - 64] = "SCHEDSTAT_CPU",
	[PM_RECORD_SCHEDSTAT_DOMAIN - 64] = "SCHEDSTAT_DOMAIN",
};

const char *pm_record_type_name(uint32_t type)
{
	const char *n = NULL;

	if (type < PM_ARRAY_SIZE(pm_kernel_names))
		n = pm_kernel_names[type];
	else if (type >= 64 && type - 64 < PM_ARRAY_SIZE(pm_user_names))
		n = pm_user_names[type - 64];
	return n ? n : "UNKNOWN";
}

uint64_t pm_record_u64(const uint8_t *p, uint64_t i, int big_endian)
{
	return pm__ld64(p + 8 * i, big_endian);
}

int pm_record_peek_id(const pm_sample_layout *l, const void *rec, size_t len, int big_endian,
		      uint64_t *id)
{
	struct pm_record_header h;
	const uint8_t *b = rec;
	size_t off;
	int rc;

	if (!l || !rec || !id)
		return pm__err(EINVAL, "pm_record_peek_id: NULL argument");
	rc = pm_record_header_parse(&h, rec, len, big_endian);
	if (rc)
		return rc;
	if (h.size > len)
		return pm__err(PM_ERR_TRUNCATED, "record of %u bytes, %zu available", h.size, len);
	if (h.type == PM_RECORD_SAMPLE) {
		if (l->id_pos < 0)
			return pm__err(ENOENT, "samples carry no id");
		off = 8 + 8 * (size_t)l->id_pos;
	} else if (h.type < PM_RECORD_USER_TYPE_START) {
		if (!l->sample_id_all || l->is_pos < 0)
			return pm__err(ENOENT, "non-sample records carry no id");
		if (h.size < 8 + 8 * (size_t)l->is_pos)
			return pm__err(PM_ERR_CORRUPT, "%s record of %u bytes has no room for its id",
				       pm_record_type_name(h.type), h.size);
		off = h.size - 8 * (size_t)l->is_pos;
	} else {
		return pm__err(ENOENT, "perf tool records carry no id");
	}
	if (!pm__fits(off, 8, h.size))
		return pm__err(PM_ERR_CORRUPT, "sample of %u bytes has no room for its id", h.size);
	*id = pm__ld64(b + off, big_endian);
	return 0;
}

int pm_record_peek_time(const pm_sample_layout *l, const void *rec, size_t len, int big_endian,
			uint64_t *time)
{
	struct pm_record_header h;
	struct pm__plan_pos pos;
	const uint8_t *b = rec;
	size_t off;
	int rc;

	if (!l || !rec || !time)
		return pm__err(EINVAL, "pm_record_peek_time: NULL argument");
	rc = pm_record_header_parse(&h, rec, len, big_endian);
	if (rc)
		return rc;
	if (h.size > len)
		return pm__err(PM_ERR_TRUNCATED, "record of %u bytes, %zu available", h.size, len);
	pm__plan_positions(&l->attr, &pos); /* the sample plan's time positions */
	if (h.type == PM_RECORD_SAMPLE) {
		if (pos.time_off < 0)
			return pm__err(ENOENT, "the event's sample_type has no TIME");
		off = (size_t)pos.time_off;
	} else if (h.type < PM_RECORD_USER_TYPE_START) {
		if (!pos.time_slots)
			return pm__err(ENOENT, "non-sample records carry no time (no sample_id_all "
					       "with TIME)");
		if (h.size < 8 + 8 * (size_t)pos.time_slots)
			return pm__err(PM_ERR_CORRUPT, "%s record of %u bytes has no room for its time",
				       pm_record_type_name(h.type), h.size);
		off = h.size - 8 * (size_t)pos.time_slots;
	} else {
		return pm__err(ENOENT, "perf tool records carry no time");
	}
	if (!pm__fits(off, 8, h.size))
		return pm__err(PM_ERR_CORRUPT, "sample of %u bytes has no room for its time", h.size);
	*time = pm__ld64(b + off, big_endian);
	return 0;
}
