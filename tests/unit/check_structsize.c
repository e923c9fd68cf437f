/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Size-versioned structs (first member `size_t sz`), both ways, for every
 * such struct of the public headers (docs/conventions.md, "Sized structs"):
 *   - a smaller caller: sz = the frozen PM_<STRUCT>_SZ_V1 of the header, and
 *     sz = offsetof(last member) when that is larger (the struct as a caller
 *     built against a header with fewer members has it).  The call works,
 *     and the library writes nothing at or past sz: the struct is followed
 *     by a guard region filled with a pattern, and it is also run in an
 *     exact-size heap block so ASan/valgrind see any access past sz;
 *   - below V1 (V1 - 1, and sizeof(size_t)): refused with
 *     -PM_ERR_STRUCT_SIZE, nothing written;
 *   - a newer caller: sizeof + 16 bytes.  A zero unknown tail is accepted
 *     (and nothing is written past sizeof).  A non-zero byte in it is
 *     rejected with -PM_ERR_STRUCT_SIZE, input and output structs alike,
 *     and an output struct is left untouched;
 *   - an absurd sz (uninitialised memory, > PM_STRUCT_SZ_MAX): refused,
 *     nothing written.
 * structsize_old.c (compiled separately, linked in by tests/abi) does the
 * same with real smaller struct definitions.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"
#include "pm_check.h"

#define GUARD 64
#define PAT 0xa5
#define EXTRA 16
#define SYNTH PM_TEST_SRCDIR "/examples/data/profileme-synthetic.data"

/* A call through the struct at p.  Returns 0 when the call behaved as it
 * must for a valid struct, else the library's return value.  A struct the
 * test cannot exercise here returns 77 (skip, with the reason printed). */
typedef int (*call_fn)(void *p);

struct case_ {
	const char *name;
	size_t full;  /* sizeof */
	size_t small; /* offsetof the last member */
	size_t v1;    /* the header's frozen PM_<STRUCT>_SZ_V1 */
	int output;   /* the library fills it (else: options read by the library) */
	call_fn call;
};

/* ---- fixtures ----------------------------------------------------------- */

static int be_host(void)
{
	return pm__host_big_endian();
}

/* The first record of a given type from the synthetic recording. */
static pm_file *open_at(uint32_t type, struct pm_file_record *rec)
{
	pm_file *f = NULL;
	if (pm_file_open(&f, SYNTH, NULL) != 0)
		return NULL;
	for (;;) {
		memset(rec, 0, sizeof(*rec));
		rec->sz = sizeof(*rec);
		if (pm_file_next(f, rec) != 1) {
			pm_file_close(f);
			return NULL;
		}
		if (type == UINT32_MAX || rec->type == type)
			return f;
	}
}

/* A sample of a hand-built attr: header + body. */
static int hand_sample(uint64_t sample_type, const uint8_t *body, size_t blen,
		       pm_sample_layout **lay, uint8_t *rec, struct pm_sample *s)
{
	struct pm_attr a;
	pm_attr_init(&a);
	a.sample_type = sample_type;
	if (pm_sample_layout_new(lay, &a) != 0)
		return -1;
	pm__st32(rec, PM_RECORD_SAMPLE, be_host());
	pm__st16(rec + 4, 0, be_host());
	pm__st16(rec + 6, (uint16_t)(8 + blen), be_host());
	memcpy(rec + 8, body, blen);
	memset(s, 0, sizeof(*s));
	s->sz = sizeof(*s);
	return pm_sample_parse(s, *lay, rec, 8 + blen, be_host(), NULL);
}

/* ---- one call per struct ------------------------------------------------- */

static int call_event_error(void *p)
{
	pm_event_list *l = NULL;
	int rc = pm_event_parse(&l, NULL, "cycles:z", p);
	pm_event_list_free(l);
	return rc == -PM_ERR_SYNTAX ? 0 : rc;
}

static int call_event_opts(void *p)
{
	pm_event_list *l = NULL;
	int rc = pm_event_parse_opts(&l, NULL, "cycles", p, NULL);
	pm_event_list_free(l);
	return rc;
}

static int call_event_term(void *p)
{
	pm_event_list *l = NULL;
	int rc = pm_event_parse(&l, NULL, "cycles/call-graph=dwarf,no-inherit/", NULL);
	const pm_event *ev = rc == 0 ? pm_event_list_get(l, 0) : NULL;
	if (rc == 0 && (!ev || pm_event_term_count(ev) == 0))
		rc = -1;
	if (rc == 0)
		rc = pm_event_term_get(ev, 0, p);
	pm_event_list_free(l);
	return rc;
}

static int call_file_opts(void *p)
{
	pm_file *f = NULL;
	int rc = pm_file_open(&f, SYNTH, p);
	if (rc == 0) {
		struct pm_file_record r = { .sz = sizeof(r) };
		rc = pm_file_next(f, &r);
		rc = rc == 1 ? 0 : rc;
	}
	pm_file_close(f);
	return rc;
}

static int call_file_info(void *p)
{
	pm_file *f = NULL;
	int rc = pm_file_open(&f, SYNTH, NULL);
	if (rc == 0)
		rc = pm_file_get_info(f, p);
	pm_file_close(f);
	return rc;
}

static int call_file_record(void *p)
{
	pm_file *f = NULL;
	int rc = pm_file_open(&f, SYNTH, NULL);
	if (rc == 0) {
		rc = pm_file_next(f, p);
		rc = rc == 1 ? 0 : rc;
	}
	pm_file_close(f);
	return rc;
}

static int call_sample(void *p)
{
	struct pm_file_record rec;
	pm_file *f = open_at(PM_RECORD_SAMPLE, &rec);
	if (!f)
		return -1;
	int rc = pm_file_sample(f, &rec, p);
	pm_file_close(f);
	return rc;
}

static int call_sample_core(void *p)
{
	struct pm_file_record rec;
	pm_file *f = open_at(PM_RECORD_SAMPLE, &rec);
	if (!f)
		return -1;
	int rc = pm_file_sample_core(f, &rec, p);
	pm_file_close(f);
	return rc;
}

static int call_record(void *p)
{
	struct pm_file_record rec;
	pm_file *f = open_at(UINT32_MAX, &rec);
	if (!f)
		return -1;
	int rc = pm_file_record_parse(f, &rec, p);
	pm_file_close(f);
	return rc;
}

static int call_read_value(void *p)
{
	uint8_t body[8], rec[64];
	struct pm_sample s;
	pm_sample_layout *lay = NULL;
	pm__st64(body, 12345, be_host());
	int rc = hand_sample(PM_SAMPLE_READ, body, sizeof(body), &lay, rec, &s);
	if (rc == 0)
		rc = pm_sample_read_value(&s, 0, p);
	if (rc == 0)
		rc = pm_read_value_get(&s.read, 0, p);
	pm_sample_layout_free(lay);
	return rc;
}

static int call_branch_entry(void *p)
{
	uint8_t body[8 + 24], rec[64];
	struct pm_sample s;
	pm_sample_layout *lay = NULL;
	pm__st64(body, 1, be_host());
	pm__st64(body + 8, 0x1000, be_host());
	pm__st64(body + 16, 0x2000, be_host());
	pm__st64(body + 24, 1, be_host()); /* mispred */
	int rc = hand_sample(PM_SAMPLE_BRANCH_STACK, body, sizeof(body), &lay, rec, &s);
	if (rc == 0)
		rc = pm_sample_branch_entry(&s, 0, p);
	pm_sample_layout_free(lay);
	return rc;
}

static int call_data_src(void *p)
{
	return pm_data_src_decode(0x68100142ULL, p);
}

static int call_id_index_entry(void *p)
{
	uint8_t rec[8 + 8 + 32];
	memset(rec, 0, sizeof(rec));
	pm__st32(rec, PM_RECORD_ID_INDEX, be_host());
	pm__st16(rec + 6, sizeof(rec), be_host());
	pm__st64(rec + 8, 1, be_host());
	pm__st64(rec + 16, 77, be_host());
	struct pm_record r;
	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	int rc = pm_record_parse(&r, NULL, rec, sizeof(rec), be_host(), NULL);
	if (rc == 0)
		rc = pm_record_id_index_entry(&r, 0, p);
	return rc;
}

/* The RAW payload of the first sample of the synthetic recording (v1). */
static uint8_t pm_payload[256];
static size_t pm_payload_len;

static int load_payload(void)
{
	if (pm_payload_len)
		return 0;
	struct pm_file_record rec;
	pm_file *f = open_at(PM_RECORD_SAMPLE, &rec);
	if (!f)
		return -1;
	struct pm_sample s;
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	int rc = pm_file_sample(f, &rec, &s);
	if (rc == 0 && s.raw.size <= sizeof(pm_payload) && s.raw.size >= PM_PROFILEME_V1_SIZE) {
		memcpy(pm_payload, s.raw.data, s.raw.size);
		pm_payload_len = s.raw.size;
	} else {
		rc = -1;
	}
	pm_file_close(f);
	return rc;
}

static int call_profileme_sample(void *p)
{
	if (load_payload())
		return -1;
	return pm_profileme_decode(pm_payload, pm_payload_len, p);
}

static int call_profileme_attribution(void *p)
{
	struct pm_profileme_sample s = { .sz = sizeof(s) };

	if (load_payload() || pm_profileme_decode(pm_payload, pm_payload_len, &s))
		return -1;
	return pm_profileme_attribute(&s, s.pc, p);
}

static int call_ibs_attribution(void *p)
{
	uint8_t buf[4 + 8 * 3];

	/* caps 0, IBS_OP_CTL En|Val, IBS_OP_RIP, IBS_OP_DATA 0 (RipInvalid clear) */
	memset(buf, 0, sizeof(buf));
	pm__st64(buf + 4, 1ULL << 17 | 1ULL << 18, be_host());
	pm__st64(buf + 12, 0x401000, be_host());
	return pm_ibs_attribute(pm_raw_decoder_find("ibs_op"), NULL, buf, sizeof(buf), 0x401000, p);
}

/* pm_raw_value: vals[0].sz is the array stride; n entries are written. */
static size_t raw_n(void)
{
	return pm_raw_field_count(pm_raw_decoder_find("alpha_profileme"));
}

static int call_raw_value(void *p)
{
	if (load_payload())
		return -1;
	int rc = pm_raw_decode(pm_raw_decoder_find("alpha_profileme"), NULL, pm_payload,
			       pm_payload_len, p, raw_n());
	return rc == (int)raw_n() ? 0 : rc;
}

static int call_ring_stats(void *p)
{
	size_t page = 4096, data = 4096;
	void *mem = NULL;
	if (posix_memalign(&mem, 64, page + data))
		return -1;
	memset(mem, 0, page + data);
	pm_ring *r = NULL;
	int rc = pm_ring_new_from_memory(&r, mem, page, data, 0);
	if (rc == 0)
		rc = pm_ring_stats(r, p);
	pm_ring_free(r);
	free(mem);
	return rc;
}

static int call_evlist_opts(void *p)
{
	pm_evlist *el = NULL;
	int rc = pm_evlist_new(&el, p);
	pm_evlist_free(el);
	return rc;
}

static int call_count(void *p)
{
	pm_evlist *el = NULL;
	struct pm_evlist_opts o = { .sz = sizeof(o), .flags = PM_EVLIST_NO_TRACKING };
	struct pm_attr a;
	pm_attr_init(&a);
	a.type = PM_TYPE_SOFTWARE;
	a.config = 1; /* task-clock */
	int rc = pm_evlist_new(&el, &o);
	if (rc == 0)
		rc = pm_evlist_add(el, &a, "task-clock", -1) >= 0 ? 0 : -1;
	if (rc == 0 && pm_evlist_open(el) != 0) {
		printf("SKIPPED pm_count: cannot open a software counter (%s)\n", pm_errmsg());
		pm_evlist_free(el);
		return 77;
	}
	if (rc == 0)
		rc = pm_evlist_read_count(el, 0, p);
	pm_evlist_free(el);
	return rc;
}

static int call_export_opts(void *p)
{
	pm_file *f = NULL;
	int fd = open("/dev/null", O_WRONLY);
	int rc = fd < 0 ? -errno : pm_file_open(&f, SYNTH, NULL);
	if (rc == 0)
		rc = pm_export_folded(f, p, fd);
	pm_file_close(f);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int call_json_opts(void *p)
{
	struct pm_sample sm = { .sz = sizeof(sm) };
	char buf[256];
	int rc = pm_json_sample(NULL, -1, &sm, p, buf, sizeof(buf));

	return rc > 0 ? 0 : rc ? rc : -1;
}

static int call_report_row(void *p)
{
	char buf[256];
	int rc = pm_json_report_row(p, buf, sizeof(buf));

	return rc > 0 ? 0 : rc ? rc : -1;
}

static int call_columns_opts(void *p)
{
	pm_file *f = NULL;
	pm_columns *c = NULL;
	int rc = pm_file_open(&f, SYNTH, NULL);
	if (rc == 0)
		rc = pm_columns_new_from_file(&c, f, p);
	pm_columns_free(c);
	pm_file_close(f);
	return rc;
}

static int call_chunk_index_opts(void *p)
{
	pm_file *f = NULL;
	pm_chunk_index *idx = NULL;
	int rc = pm_file_open(&f, SYNTH, NULL);
	if (rc == 0)
		rc = pm_chunk_index_new_from_file(&idx, f, p);
	if (rc == 0)
		rc = pm_chunk_index_count(idx) >= 1 ? 0 : -1;
	pm_chunk_index_free(idx);
	pm_file_close(f);
	return rc;
}

static int call_file_chunk(void *p)
{
	pm_file *f = NULL;
	pm_chunk_index *idx = NULL;
	int rc = pm_file_open(&f, SYNTH, NULL);
	if (rc == 0)
		rc = pm_chunk_index_new_from_file(&idx, f, NULL);
	if (rc == 0)
		rc = pm_chunk_index_get(idx, 0, p);
	pm_chunk_index_free(idx);
	pm_file_close(f);
	return rc;
}

static int call_writer_opts(void *p)
{
	char path[] = "/tmp/pm_check_structsize.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	pm_writer *w = NULL;
	int rc = pm_writer_open(&w, path, p);
	pm_writer_close(w);
	unlink(path);
	return rc;
}

/* A tracepoint recording written with the fixture tracefs (sched_switch, id
 * 372), so that the file carries its format. */
static int tp_file(pm_file **f, char *path)
{
	struct pm_writer_opts o = { .sz = sizeof(o) };
	struct pm_attr a;
	pm_writer *w = NULL;
	uint64_t id = 1;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return -1;
	close(fd);
	o.tracefs = PM_TEST_SRCDIR "/tests/fixtures/sysfs/tracing/kernel/tracing";
	pm_attr_init(&a);
	a.type = PM_TYPE_TRACEPOINT;
	a.config = 372;
	a.sample_period = 1;
	a.sample_type = PM_SAMPLE_RAW | PM_SAMPLE_TIME;
	rc = pm_writer_open(&w, path, &o);
	if (!rc)
		rc = pm_writer_add_attr(w, &a, "sched:sched_switch", &id, 1);
	if (!rc)
		rc = pm_writer_begin(w);
	if (!rc)
		rc = pm_writer_finish(w);
	pm_writer_close(w);
	if (!rc)
		rc = pm_file_open(f, path, NULL);
	unlink(path);
	return rc;
}

static int call_tp_field(void *p)
{
	char path[] = "/tmp/pm_check_structsize.XXXXXX";
	pm_file *f = NULL;
	int rc = tp_file(&f, path);

	if (rc == 0)
		rc = pm_file_tp_field(f, 0, 4, p);
	pm_file_close(f);
	return rc;
}

static int call_tp_value(void *p)
{
	static const uint8_t raw[256];
	char path[] = "/tmp/pm_check_structsize.XXXXXX";
	pm_file *f = NULL;
	int rc = tp_file(&f, path);

	if (rc == 0)
		rc = pm_file_tp_value(f, 0, 4, raw, sizeof(raw), p);
	pm_file_close(f);
	return rc;
}

/* Symbolizer: this test program's own mappings. */
static int sym_open(pm_sym **s, const void *opts)
{
	struct pm_sym_opts o = { .sz = sizeof(o), .flags = PM_SYM_OPT_NO_KERNEL };
	int rc = pm_sym_new(s, opts ? opts : &o);
	if (rc == -PM_ERR_UNSUPPORTED) {
		printf("SKIPPED symbol structs: library built without libelf\n");
		return 77;
	}
	return rc;
}

static int call_sym_opts(void *p)
{
	pm_sym *s = NULL;
	((struct pm_sym_opts *)p)->flags = PM_SYM_OPT_NO_KERNEL;
	int rc = sym_open(&s, p);
	pm_sym_free(s);
	return rc;
}

static int call_sym_result(void *p)
{
	pm_sym *s = NULL;
	int rc = sym_open(&s, NULL);
	if (rc == 0)
		rc = pm_sym_load_proc_maps(s, (int32_t)getpid()) >= 0 ? 0 : -1;
	if (rc == 0)
		rc = pm_sym_lookup(s, (int32_t)getpid(), (uint64_t)(uintptr_t)&call_sym_result,
				   PM_SYM_LOOKUP_USER, p);
	pm_sym_free(s);
	return rc;
}

static int call_sym_def(void *p)
{
	pm_sym *s = NULL;
	int rc = sym_open(&s, NULL);
	if (rc == 0)
		rc = pm_sym_load_proc_maps(s, (int32_t)getpid()) >= 0 ? 0 : -1;
	if (rc == 0) {
		/* A symbol of libc: pm_sym_find with any module. */
		rc = pm_sym_find(s, NULL, "malloc", 0, p);
		rc = rc > 0 ? 0 : (rc == 0 ? -1 : rc);
	}
	pm_sym_free(s);
	return rc;
}

static int call_sym_diag(void *p)
{
	pm_sym *s = NULL;
	int rc = sym_open(&s, NULL);
	struct pm_sym_result r = { .sz = sizeof(r) };
	if (rc == 0)
		rc = pm_sym_add_map(s, 42, 0x400000, 0x1000, 0, "/nonexistent/pm_structsize");
	if (rc == 0)
		(void)pm_sym_lookup(s, 42, 0x400100, PM_SYM_LOOKUP_USER, &r);
	if (rc == 0)
		rc = pm_sym_diag_count(s) > 0 ? pm_sym_diag_get(s, 0, p) : -1;
	pm_sym_free(s);
	return rc;
}

/* pm_sym_rows (input): no rows of a small recording. */
static int call_sym_rows(void *p)
{
	char path[] = "/tmp/pm_check_structsize.XXXXXX";
	pm_file *f = NULL;
	pm_sym *s = NULL;
	int rc = tp_file(&f, path);

	if (rc == 0)
		rc = sym_open(&s, NULL);
	if (rc == 0)
		rc = pm_sym_resolve_rows(s, f, p);
	pm_sym_free(s);
	pm_file_close(f);
	return rc;
}

static int call_sym_line(void *p)
{
	pm_sym *s = NULL;
	int rc = sym_open(&s, NULL);
	if (rc == 0)
		rc = pm_sym_load_proc_maps(s, (int32_t)getpid()) >= 0 ? 0 : -1;
	if (rc == 0) {
		/* this function's own line (0 when the test is built without -g:
		 * the struct is written all the same) */
		rc = pm_sym_lookup_line(s, (int32_t)getpid(), (uint64_t)(uintptr_t)&call_sym_line,
					PM_SYM_LOOKUP_USER, p);
		rc = rc >= 0 ? 0 : rc;
	}
	pm_sym_free(s);
	return rc;
}

#define C(T, V1, last, out, fn) \
	{ #T, sizeof(struct T), offsetof(struct T, last), V1, out, fn }
static const struct case_ cases[] = {
	C(pm_event_error, PM_EVENT_ERROR_SZ_V1, message, 1, call_event_error),
	C(pm_event_opts, PM_EVENT_OPTS_SZ_V1, sample_freq, 0, call_event_opts),
	C(pm_event_term, PM_EVENT_TERM_SZ_V1, num, 1, call_event_term),
	C(pm_file_opts, PM_FILE_OPTS_SZ_V1, keep_compressed, 0, call_file_opts),
	C(pm_file_info, PM_FILE_INFO_SZ_V1, file_size, 1, call_file_info),
	C(pm_file_record, PM_FILE_RECORD_SZ_V1, big_endian, 1, call_file_record),
	C(pm_sample, PM_SAMPLE_SZ_V1, aux, 1, call_sample),
	C(pm_sample_core, PM_SAMPLE_CORE_SZ_V1, raw, 1, call_sample_core),
	C(pm_record, PM_RECORD_SZ_V1, compressed, 1, call_record),
	C(pm_read_value, PM_READ_VALUE_SZ_V1, lost, 1, call_read_value),
	C(pm_branch_entry, PM_BRANCH_ENTRY_SZ_V1, counter, 1, call_branch_entry),
	C(pm_data_src, PM_DATA_SRC_SZ_V1, hops, 1, call_data_src),
	C(pm_id_index_entry, PM_ID_INDEX_ENTRY_SZ_V1, machine_pid, 1, call_id_index_entry),
	C(pm_profileme_sample, PM_PROFILEME_SAMPLE_SZ_V1, extra_len, 1, call_profileme_sample),
	C(pm_raw_value, PM_RAW_VALUE_SZ_V1, kind, 1, call_raw_value),
	C(pm_profileme_attribution, PM_PROFILEME_ATTRIBUTION_SZ_V1, ip, 1,
	  call_profileme_attribution),
	C(pm_ibs_attribution, PM_IBS_ATTRIBUTION_SZ_V1, ip, 1, call_ibs_attribution),
	C(pm_ring_stats, PM_RING_STATS_SZ_V1, overruns, 1, call_ring_stats),
	C(pm_evlist_opts, PM_EVLIST_OPTS_SZ_V1, wakeup_bytes, 0, call_evlist_opts),
	C(pm_count, PM_COUNT_SZ_V1, multiplexed, 1, call_count),
	C(pm_columns_opts, PM_COLUMNS_OPTS_SZ_V1, chunk_bytes, 0, call_columns_opts),
	C(pm_chunk_index_opts, PM_CHUNK_INDEX_OPTS_SZ_V1, chunk_bytes, 0, call_chunk_index_opts),
	C(pm_file_chunk, PM_FILE_CHUNK_SZ_V1, data_end, 1, call_file_chunk),
	C(pm_export_opts, PM_EXPORT_OPTS_SZ_V1, progress_user, 0, call_export_opts),
	C(pm_json_opts, PM_JSON_OPTS_SZ_V1, dso, 0, call_json_opts),
	C(pm_report_row, PM_REPORT_ROW_SZ_V1, ibs, 0, call_report_row),
	C(pm_writer_opts, PM_WRITER_OPTS_SZ_V1, buffer_bytes, 0, call_writer_opts),
	C(pm_sym_opts, PM_SYM_OPTS_SZ_V1, reserved, 0, call_sym_opts),
	C(pm_sym_result, PM_SYM_RESULT_SZ_V1, reserved, 1, call_sym_result),
	C(pm_sym_def, PM_SYM_DEF_SZ_V1, reserved, 1, call_sym_def),
	C(pm_sym_diag, PM_SYM_DIAG_SZ_V1, err, 1, call_sym_diag),
	C(pm_sym_rows, PM_SYM_ROWS_SZ_V1, comm, 0, call_sym_rows),
	C(pm_sym_line, PM_SYM_LINE_SZ_V1, column, 1, call_sym_line),
	C(pm_tp_field, PM_TP_FIELD_SZ_V1, reserved, 1, call_tp_field),
	C(pm_tp_value, PM_TP_VALUE_SZ_V1, big_endian, 1, call_tp_value),
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Entries of a case: pm_raw_value is an array whose stride is vals[0].sz. */
static size_t entries(const struct case_ *c)
{
	return strcmp(c->name, "pm_raw_value") == 0 ? raw_n() : 1;
}

/* A block of n entries of sz bytes: input structs zeroed, output structs
 * filled with the pattern; each entry's sz set (the library reads only the
 * first one's for arrays).  Followed by `guard` pattern bytes. */
static uint8_t *block(const struct case_ *c, size_t sz, size_t guard)
{
	size_t n = entries(c);
	uint8_t *b = malloc(n * sz + guard + 1);
	ck_assert_ptr_nonnull(b);
	memset(b, PAT, n * sz + guard);
	for (size_t i = 0; i < n; i++) {
		if (!c->output)
			memset(b + i * sz, 0, sz);
		memcpy(b + i * sz, &sz, sizeof(sz));
	}
	return b;
}

/* The known size of every struct is at least its sz member plus one. */
/* Sized structs of the headers that this table does not exercise, and why. */
static const char *const elsewhere[] = {
	"pm_stack", /* filled by the library and handed to a callback: the caller never sets sz */
};

static int in_cases(const char *name, size_t len)
{
	for (size_t i = 0; i < NCASES; i++)
		if (strlen(cases[i].name) == len && !strncmp(cases[i].name, name, len))
			return 1;
	return 0;
}

static int in_elsewhere(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(elsewhere) / sizeof(elsewhere[0]); i++)
		if (strlen(elsewhere[i]) == len && !strncmp(elsewhere[i], name, len))
			return 1;
	return 0;
}

/* Every struct of the public headers whose first member is size_t sz
 * (PM_SIZED_STRUCTS, taken from the headers by tests/abi/CMakeLists.txt)
 * is in cases[] or in elsewhere[], and every case is such a struct. */
START_TEST(test_table_complete)
{
#ifndef PM_SIZED_STRUCTS
#error "PM_SIZED_STRUCTS: the build passes the list of sized structs of the headers"
#endif
	const char *all = PM_SIZED_STRUCTS;
	size_t found = 0;
	for (const char *p = all; *p;) {
		size_t n = strcspn(p, " ");
		if (n) {
			if (!in_cases(p, n) && !in_elsewhere(p, n))
				ck_abort_msg("%.*s: a sized struct of the headers is not tested here", (int)n, p);
			found += in_cases(p, n);
		}
		p += n;
		p += strspn(p, " ");
	}
	ck_assert_uint_eq(found, NCASES); /* and no case is something else */
	ck_assert_uint_gt(NCASES, 20);
	for (size_t i = 0; i < NCASES; i++) {
		ck_assert_uint_gt(cases[i].small, sizeof(size_t) - 1);
		/* V1 holds at least one member after sz, and no more than the
		 * struct; no struct comes near the absurd-size bound. */
		ck_assert_uint_gt(cases[i].v1, sizeof(size_t));
		ck_assert_uint_le(cases[i].v1, cases[i].full);
		ck_assert_uint_lt(cases[i].full + EXTRA, PM_STRUCT_SZ_MAX);
	}
}
END_TEST

START_TEST(test_current_size)
{
	const struct case_ *c = &cases[_i];
	uint8_t *b = block(c, c->full, GUARD);
	int rc = c->call(b);
	if (rc == 77) {
		free(b);
		return;
	}
	if (rc != 0)
		printf("%s: sizeof: %d %s (%s)\n", c->name, rc, pm_strerror(rc), pm_errmsg());
	ck_assert_int_eq(rc, 0);
	for (size_t k = 0; k < GUARD; k++)
		ck_assert_uint_eq(b[entries(c) * c->full + k], PAT);
	free(b);
}
END_TEST

/* One smaller caller of sz bytes (V1 <= sz < sizeof): works, keeps its sz,
 * nothing written at or past sz. */
static void older_caller(const struct case_ *c, size_t sz)
{
	size_t n = entries(c);
	uint8_t *b = block(c, sz, GUARD);
	int rc = c->call(b);
	if (rc == 77) {
		free(b);
		return;
	}
	if (rc != 0)
		printf("%s: sz=%zu: %d %s (%s)\n", c->name, sz, rc, pm_strerror(rc), pm_errmsg());
	ck_assert_int_eq(rc, 0);
	size_t got;
	memcpy(&got, b, sizeof(got));
	ck_assert_uint_eq(got, sz); /* the caller's sz is kept */
	for (size_t k = 0; k < GUARD; k++) {
		if (b[n * sz + k] != PAT)
			printf("%s: sz=%zu: byte %zu past the struct written\n", c->name, sz, k);
		ck_assert_uint_eq(b[n * sz + k], PAT);
	}
	if (c->output && n == 1) {
		/* The library did write something inside sz (not a no-op). */
		int wrote = 0;
		for (size_t k = sizeof(size_t); k < sz; k++)
			wrote |= b[k] != PAT;
		ck_assert(wrote);
	}
	free(b);
	/* In an exact-size block: ASan/valgrind see any read or write past it. */
	b = block(c, sz, 0);
	ck_assert_int_eq(c->call(b), 0);
	free(b);
}

/* A refused size: -PM_ERR_STRUCT_SIZE, and an output struct (with its
 * guard) untouched past the sz member. */
static void refused(const struct case_ *c, size_t sz)
{
	size_t room = c->full * entries(c) + GUARD;
	uint8_t *b = block(c, c->full, GUARD);
	memcpy(b, &sz, sizeof(sz));
	uint8_t *before = malloc(room);
	ck_assert_ptr_nonnull(before);
	memcpy(before, b, room);
	int rc = c->call(b);
	if (rc == 77) {
		free(before);
		free(b);
		return;
	}
	if (rc != -PM_ERR_STRUCT_SIZE)
		printf("%s: sz=%zu: %d, expected -PM_ERR_STRUCT_SIZE\n", c->name, sz, rc);
	ck_assert_int_eq(rc, -PM_ERR_STRUCT_SIZE);
	if (c->output)
		ck_assert_int_eq(memcmp(before, b, room), 0);
	free(before);
	free(b);
}

START_TEST(test_older_caller)
{
	const struct case_ *c = &cases[_i];
	/* The frozen 0.1 minimum, and a size between it and sizeof. */
	if (c->v1 < c->full)
		older_caller(c, c->v1);
	if (c->small > c->v1 && c->small < c->full)
		older_caller(c, c->small);
}
END_TEST

START_TEST(test_below_v1)
{
	const struct case_ *c = &cases[_i];
	/* Arrays (pm_raw_value) are refused by the first entry's sz. */
	refused(c, c->v1 - 1);
	refused(c, sizeof(size_t));
}
END_TEST

/* An uninitialised sz (a stack struct never set): refused before anything
 * is read past the struct or written into it. */
START_TEST(test_garbage_size)
{
	const struct case_ *c = &cases[_i];
	refused(c, (size_t)0xa5a5a5a5a5a5a5a5ULL);
	refused(c, PM_STRUCT_SZ_MAX + 1);
	refused(c, SIZE_MAX);
}
END_TEST

START_TEST(test_newer_caller)
{
	const struct case_ *c = &cases[_i];
	size_t sz = c->full + EXTRA;
	uint8_t *b = block(c, sz, 0);
	/* Unknown tail all zero: accepted. */
	for (size_t i = 0; i < entries(c); i++)
		memset(b + i * sz + c->full, 0, EXTRA);
	if (c->output)
		memset(b + sizeof(size_t), 0, c->full - sizeof(size_t));
	int rc = c->call(b);
	if (rc == 77) {
		free(b);
		return;
	}
	if (rc != 0)
		printf("%s: sz=%zu, zero tail: %d %s (%s)\n", c->name, sz, rc, pm_strerror(rc),
		       pm_errmsg());
	ck_assert_int_eq(rc, 0);
	free(b);

	/* A non-zero byte in the unknown tail (first and last byte): rejected. */
	for (int where = 0; where < 2; where++) {
		b = block(c, sz, 0);
		for (size_t i = 0; i < entries(c); i++)
			memset(b + i * sz + c->full, 0, EXTRA);
		if (c->output)
			memset(b + sizeof(size_t), 0, c->full - sizeof(size_t));
		b[c->full + (where ? EXTRA - 1 : 0)] = 1;
		/* Keep a copy: a refused output struct must be left as it was. */
		uint8_t *before = malloc(entries(c) * sz);
		ck_assert_ptr_nonnull(before);
		memcpy(before, b, entries(c) * sz);
		rc = c->call(b);
		if (rc == -PM_ERR_STRUCT_SIZE && c->output)
			ck_assert_int_eq(memcmp(before, b, entries(c) * sz), 0);
		free(before);
		if (rc != -PM_ERR_STRUCT_SIZE)
			printf("%s: sz=%zu, non-zero tail byte %d: %d %s\n", c->name, sz,
			       where ? EXTRA - 1 : 0, rc, pm_strerror(rc));
		ck_assert_int_eq(rc, -PM_ERR_STRUCT_SIZE);
		free(b);
	}
}
END_TEST

/* structsize_old.c: callers compiled with smaller struct definitions. */
int pm_structsize_old_callers(char *why, size_t cap);

START_TEST(test_old_definitions)
{
	char why[256] = "";
	int rc = pm_structsize_old_callers(why, sizeof(why));
	if (rc)
		printf("structsize_old: %s\n", why);
	ck_assert_int_eq(rc, 0);
}
END_TEST

static Suite *structsize_suite(void)
{
	Suite *s = suite_create("structsize");
	TCase *tc = tcase_create("structs");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_table_complete);
	tcase_add_loop_test(tc, test_current_size, 0, (int)NCASES);
	tcase_add_loop_test(tc, test_older_caller, 0, (int)NCASES);
	tcase_add_loop_test(tc, test_below_v1, 0, (int)NCASES);
	tcase_add_loop_test(tc, test_garbage_size, 0, (int)NCASES);
	tcase_add_loop_test(tc, test_newer_caller, 0, (int)NCASES);
	tcase_add_test(tc, test_old_definitions);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(structsize_suite)
