/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/export.h
 * @brief Samples for other consumers: columnar batches (bulk readers), pprof
 *        profiles, folded stacks and symbolized stacks (pm_export_*).
 *
 * A ::pm_columns reads the samples of a ::pm_file into caller-owned column
 * buffers, one buffer per column, a batch at a time: no allocation per
 * sample, no object per sample.  The Python binding fills numpy arrays this
 * way.  The columns are:
 *
 * | name      | type | meaning |
 * |-----------|------|---------|
 * | time      | u64  | PERF_SAMPLE_TIME |
 * | pid, tid  | u32  | PERF_SAMPLE_TID |
 * | cpu       | u32  | PERF_SAMPLE_CPU |
 * | ip        | u64  | PERF_SAMPLE_IP |
 * | period    | u64  | PERF_SAMPLE_PERIOD, else the attr's fixed sample_period |
 * | addr      | u64  | PERF_SAMPLE_ADDR |
 * | id        | u64  | PERF_SAMPLE_ID / IDENTIFIER |
 * | event     | i32  | attr index (pm_file_attr()), -1 when unknown |
 * | cpumode   | u8   | header.misc & 7 (PERF_RECORD_MISC_CPUMODE) |
 * | callchain_nr | u32 | callchain frames: the entries that are no PERF_CONTEXT_* marker |
 * | callchain_markers | u32 | the PERF_CONTEXT_* markers among the callchain entries |
 * | raw_ok    | u8   | 1 when the raw payload decoded with the column decoder |
 *
 * (these ::PM_COLUMNS_NBASE base columns first, in this order)
 *
 * and, with pm_columns_opts.record_columns, three more base columns after
 * raw_ok:
 *
 * | name       | type | meaning |
 * |------------|------|---------|
 * | misc       | u32  | header.misc, whole (cpumode, PERF_RECORD_MISC_EXACT_IP, ...) |
 * | raw_size   | u32  | PERF_SAMPLE_RAW payload bytes |
 * | raw_offset | u64  | file offset of the RAW payload (after its u32 size); 0 for a record that came out of a COMPRESSED one and for a live source |
 *
 * followed, when a raw decoder applies to the recording (ProfileMe, IBS),
 * by one column per decoded field (pm_raw_field_name()), u64 for numbers,
 * registers and addresses, u8 for booleans and codes (names via
 * pm_raw_field_code_name()), and for decoders whose fields can be marked
 * invalid by the hardware (IBS) a u8 `<field>_valid` column after each field.
 *
 * Rows come in time order unless the file was opened with raw_order.
 *
 * A ::pm_columns also reads a live ::pm_evlist (pm_columns_new_from_evlist()):
 * the same columns from the SAMPLE records in the rings, each matched to its
 * event by its id and parsed with the layout of the attr as opened.  There a
 * read returns the rows the rings hold now (0 rows: nothing more now, not
 * the end), in ring order: ring by ring, each ring in time order, not
 * merged across rings (sort by the time column, or use
 * pm_evlist_drain_ordered()).
 *
 * **The bulk read convention** (docs/conventions.md, "Bulk reads"): this is
 * the library's one bulk sample reader.  A field the sample does not carry
 * is 0 in its column (time, pid, tid, cpu, addr, ... alike; the period
 * column falls back to the attr's fixed sample_period); which fields a row
 * carries is a property of its event: the `event` column indexes the attrs
 * (pm_file_attr()), whose sample_type says.  A sample that cannot be
 * decoded (no attr matches its id, damage inside it) is not a row: it is
 * counted by pm_columns_skipped().  The end is a call that returns 0 with
 * @c n = 0; a call returns fewer rows than @p cap only at the end (or with
 * an error), so a caller may stop at the first short batch.
 *
 * **Experimental tier** (profileme/experimental.h): the column reader is
 * #PM_EXPERIMENTAL, exported in the node PROFILEME_EXPERIMENTAL_0.1, and
 * may change in any minor release.
 *
 * The pprof and folded-stack exporters (pm_export_pprof(),
 * pm_export_folded()) are stable (node PROFILEME_0.1); see docs/export.md.
 */
#ifndef PROFILEME_EXPORT_H
#define PROFILEME_EXPORT_H

#include <profileme/common.h>
#include <profileme/file.h>
#include <profileme/raw.h>
#include <profileme/ring.h>
#include <profileme/symbol.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The number of base columns, which come first (time ... raw_ok);
 *  the decoded fields of a raw decoder follow them. */
#define PM_COLUMNS_NBASE 13

/** @brief A columnar reader over a ::pm_file or a live ::pm_evlist (opaque). */
typedef struct pm_columns pm_columns;

/** @brief Element types of columns (pm_columns_type()). */
enum pm_column_type {
	PM_COL_U64 = 0, /**< uint64_t */
	PM_COL_U32 = 1, /**< uint32_t */
	PM_COL_I32 = 2, /**< int32_t */
	PM_COL_U8 = 3   /**< uint8_t */
};

/** @brief Options of pm_columns_new_from_file().  Size-versioned: set @c sz. */
struct pm_columns_opts {
	size_t sz;           /**< Set by the caller: sizeof(struct pm_columns_opts). */
	int event;           /**< Only samples of this attr index; -1 (or NULL opts): all. */
	const char *decoder; /**< Force a raw decoder by name; NULL: chosen from the file. */
	int no_raw;          /**< 1: no decoded raw columns at all. */
	/** Decoding threads; 0 or 1: the calling thread.  With N > 1 a file-mode
	 *  recording larger than one chunk is cut with
	 *  pm_chunk_index_new_from_file() (@c chunk_bytes) and its chunks are decoded by N threads,
	 *  each with its own reader on the file's descriptor (the handle must not
	 *  have read records yet; the first read scans the file); the rows are
	 *  the same, in the same order, as with one thread.  Every read must then
	 *  ask for the same columns (-EINVAL otherwise).  At most 2N chunks are
	 *  held decoded ahead of the reader.  @since 0.1 */
	int threads;
	/** With @c threads > 1: bytes of data per chunk; 0: 8 MiB.  @since 0.1 */
	uint64_t chunk_bytes;
	int record_columns;  /**< 1: also the base columns misc, raw_size and raw_offset
	                          (after raw_ok, before the decoded fields). @since 0.1 */
	/** A symbolizer of the same file (pm_sym_new_from_file()) for
	 *  pm_columns_resolve_rows(), or NULL.  The reader then keeps the
	 *  records the symbolizer learns from (MMAP, MMAP2, COMM, FORK, EXIT)
	 *  as it reads the samples, and at the first kernel sample starts
	 *  reading the kernel's symbols on a thread of their own.  Only with
	 *  @c threads <= 1 (-EINVAL otherwise).  Not owned: it must outlive the
	 *  reader.  @since 0.1 */
	pm_sym *sym;
};
/** Frozen minimum @c sz of struct pm_columns_opts (0.1: the members up to @c event); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_COLUMNS_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_columns_opts, event)

/**
 * @brief **pm_columns_new_from_file()** prepares columnar reading of a file's samples.
 *
 * The raw decoder is chosen from the file (ARCH, PMU_MAPPINGS, PMU_CAPS,
 * CPUID and the attrs): the decoder of the selected event, else of the first
 * attr one applies to.  The reader continues from the file's current
 * position; it does not own @p f, which must outlive it.
 * @param[out] out the reader; free with pm_columns_free()
 * @param f        an open file
 * @param opts     options, or NULL for defaults
 * @return 0; -EINVAL; -ENOENT (no decoder of that name, or event index out of
 *         range); -PM_ERR_STRUCT_SIZE; -ENOMEM.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_columns_new_from_file(pm_columns **out, pm_file *f, const struct pm_columns_opts *opts);

/**
 * @brief **pm_columns_new_from_evlist()** prepares columnar reading of the
 *        samples in the rings of an opened event list.
 *
 * Each read takes the records the rings hold at that moment out of them
 * (visiting ring 0, 1, ... in turn, a snapshot of each ring's data_head per
 * visit, until one round finds every ring empty) and gives the kernel their
 * space back; the SAMPLE records become rows, matched to their event by
 * PERF_SAMPLE_ID / IDENTIFIER (pm_evlist_event_of()) and parsed with the
 * sample layout of the attr the kernel got (pm_evlist_attr(): the list's
 * defaults change sample_type), as pm_evlist_sample() parses them.  The
 * `event` column is the list's event index; `raw_offset` is 0.
 *
 * - A read that returns 0 rows means: nothing more in the rings now.  Poll
 *   (pm_evlist_poll()) and read again; the reader never reaches an end.
 * - Rows are in ring order: within a ring in time order (one CPU writes
 *   it), not merged across rings.
 * - The other records (COMM, MMAP2, LOST, ...) are consumed too; they reach
 *   the list's counters (pm_evlist_stats(): PERF_RECORD_LOST and
 *   LOST_SAMPLES are counted there) and a tee (pm_columns_tee()), never a
 *   row.
 * - A SAMPLE record that cannot be decoded (no event has its id, shorter or
 *   longer than its layout) is counted by pm_columns_skipped() and ends the
 *   read with its error (-ENOENT, -PM_ERR_TRUNCATED, -PM_ERR_CORRUPT, ...;
 *   pm_errmsg() names the ring, the event and the offset): the rows before
 *   it are in the buffers (@p n), the bad record is consumed and the next
 *   read goes on after it.  A ring whose framing is impossible (a record
 *   size the ring cannot hold) is reported once with -PM_ERR_CORRUPT and
 *   not read again; the other rings are.
 *
 * The raw decoder is chosen from this machine (its architecture, its PMUs
 * in sysfs) and the attrs.  @c threads in @p opts is ignored (a live reader
 * decodes in the calling thread).  The reader does not own @p el, which
 * must stay open while it is used (a read after pm_evlist_close() is
 * -EINVAL) and is not touched by pm_columns_free(); do not read the rings
 * otherwise (a drain) while it is used.
 * @param[out] out the reader; free with pm_columns_free()
 * @param el       an opened list (pm_evlist_open())
 * @param opts     options, or NULL for defaults
 * @return 0; -EINVAL (NULL, the list is not open); -ENOENT (no decoder of
 *         that name, or event index out of range); -PM_ERR_STRUCT_SIZE;
 *         -ENOMEM.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_columns_new_from_evlist(pm_columns **out, pm_evlist *el,
						      const struct pm_columns_opts *opts);

/**
 * @brief **pm_columns_tee()** a live reader also hands every record it
 *        takes out of the rings (every type, SAMPLE included, before it
 *        becomes a row) to @p tee: for example pm_writer_ring_cb() with a
 *        ::pm_writer as @p tee_user keeps the whole recording while the columns
 *        are read.
 *
 * A negative return of @p tee ends the read with that error (the record is
 * consumed and, when a SAMPLE, not a row); other returns are ignored.  The
 * reader keeps @p tee_user: it must stay valid while the reader reads.
 * @param c         a reader from pm_columns_new_from_evlist()
 * @param tee       the callback; NULL: no more tee
 * @param tee_user  passed to @p tee
 * @return 0; -EINVAL (NULL, or a file reader: it takes no ring records).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_columns_tee(pm_columns *c, pm_ring_record_fn tee, void *tee_user);

/** @brief **pm_columns_free()** releases a reader.  NULL-safe. @since 0.1 */
PM_EXPERIMENTAL PM_API void pm_columns_free(pm_columns *c);

/** @brief **pm_columns_count()**: number of columns. @since 0.1 */
PM_EXPERIMENTAL PM_API size_t pm_columns_count(const pm_columns *c);

/** @brief **pm_columns_name()**: name of column @p i, or NULL. @since 0.1 */
PM_EXPERIMENTAL PM_API const char *pm_columns_name(const pm_columns *c, size_t i);

/**
 * @brief **pm_columns_index()**: the index of the column named @p name.
 * @return the index; -ENOENT when no column has that name; -EINVAL (NULL).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API long pm_columns_index(const pm_columns *c, const char *name);

/** @brief **pm_columns_type()**: ::pm_column_type of column @p i, or -EINVAL. @since 0.1 */
PM_EXPERIMENTAL PM_API int pm_columns_type(const pm_columns *c, size_t i);

/** @brief **pm_columns_width()**: bytes per row of column @p i (8, 4 or 1), 0 if out of range. @since 0.1 */
PM_EXPERIMENTAL PM_API size_t pm_columns_width(const pm_columns *c, size_t i);

/**
 * @brief **pm_columns_decoder()**: the raw decoder whose fields are columns,
 *        or NULL when there are none.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API const pm_raw_decoder *pm_columns_decoder(const pm_columns *c);

/** @brief **pm_columns_raw_ctx()**: the decoding context built from the file (for code names). @since 0.1 */
PM_EXPERIMENTAL PM_API const pm_raw_ctx *pm_columns_raw_ctx(const pm_columns *c);

/**
 * @brief **pm_columns_read()** reads the next batch of samples.
 * @param c        the reader
 * @param bufs     @p nbufs column buffers in column order; each holds @p cap
 *                 rows of pm_columns_width() bytes; a NULL buffer skips its
 *                 column.  Columns past @p nbufs are not written.
 * @param nbufs    number of buffers
 * @param cap      rows available in every buffer
 * @param[out] n   rows written (0 at the end of the file; live: nothing
 *                 more in the rings now)
 * @return 0 (also at the end: @p n = 0); a negative error of the file
 *         (pm_file_next()) after the rows before the damage were delivered
 *         in earlier calls, or (live) of a bad record, see
 *         pm_columns_new_from_evlist(): the rows read before the error in
 *         this call are in the buffers and counted in @p n.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_columns_read(pm_columns *c, void *const *bufs, size_t nbufs, size_t cap, size_t *n);

/**
 * @brief **pm_columns_read_rows()** reads the next batch of samples into
 *        rows of a record layout (a numpy structured array, a C struct
 *        array): column i is stored at `rows + row * row_size + offsets[i]`,
 *        unaligned stores allowed.
 * @param c         the reader
 * @param rows      @p cap rows of @p row_size bytes
 * @param row_size  bytes per row
 * @param offsets   @p noffsets offsets in column order; SIZE_MAX skips a column
 * @param noffsets  number of offsets (columns past it are not written)
 * @param cap       rows available
 * @param[out] n    rows written (0 at the end)
 * @return as pm_columns_read(); -EINVAL when a column does not fit in a row.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_columns_read_rows(pm_columns *c, void *rows, size_t row_size, const size_t *offsets,
				size_t noffsets, size_t cap, size_t *n);

/**
 * @brief **pm_columns_skipped()**: samples that could not be decoded and were
 *        skipped (no matching attr, corrupt sample).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API uint64_t pm_columns_skipped(const pm_columns *c);

/**
 * @brief **pm_columns_resolve_rows()** is pm_sym_resolve_rows() of the
 *        reader's file and symbolizer (pm_columns_opts.sym) without a
 *        second read of the file: the side records the reader kept while
 *        it read the samples are replayed instead, with the same result
 *        (the same columns and tables, read with pm_sym_rows_string() of
 *        the symbolizer; the same error when the read ended in one).
 *
 * Typically the rows are the samples just read (their pid, tid, charged
 * address, cpumode and time columns).  Call it after the read reached the
 * end of the file (a call that returned no rows, or an error); the reader
 * must have started at the file's first record.  Once per reader: like
 * pm_sym_resolve_rows(), the replay leaves the symbolizer with the maps of
 * the recording's end.
 * @param c     a reader made with pm_columns_opts.sym
 * @param rows  the rows and the output columns, as pm_sym_resolve_rows()
 * @return as pm_sym_resolve_rows(); -EINVAL also when the reader has no
 *         symbolizer, has not read to the end or has resolved rows already.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_columns_resolve_rows(pm_columns *c, const struct pm_sym_rows *rows);

/**
 * @brief **pm_sym_resolve_chunk_rows()** is pm_sym_resolve_rows() of the rows
 *        of one chunk with the index's sideband (pm_chunk_index_sideband())
 *        replayed instead of the file: the same columns and tables as the
 *        whole file's replay gives those rows, without reading the file.
 *
 * The replay rule: the sideband's records in their order, up to the first
 * whose time is not earlier than the chunk's @c time_hi when the chunk is a
 * time window (PM_CHUNK_TIME_WINDOW) and the rows have times
 * (::PM_SYM_WHEN_TIME): a later record changes no row of the window (a row
 * sees the records up to its own time).  Rows without times (@c when NULL)
 * get the maps and names of the end of the recording, after every record.
 * @param s         a symbolizer from pm_sym_new_from_file() of the file
 * @param f         the file, open (a fresh handle of the same recording, or
 *                  the chunk's own after pm_file_select_chunk()): its attrs
 *                  parse the records
 * @param sideband  the bytes of pm_chunk_index_sideband() of the file's index
 * @param len       their number
 * @param c         the rows' chunk (of the same index), or NULL: no bound
 * @param rows      the rows and the output columns, as pm_sym_resolve_rows()
 * @return as pm_sym_resolve_rows(); -EINVAL also for a damaged sideband, a
 *         sideband or chunk of another file, rows with sample ordinals
 *         (@c when without ::PM_SYM_WHEN_TIME: they need the file's replay).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_sym_resolve_chunk_rows(pm_sym *s, pm_file *f, const void *sideband, size_t len,
						 const struct pm_file_chunk *c, const struct pm_sym_rows *rows);

/* ------------------------------------------------------------------------ */
/** @name JSON: samples, records, report rows and strings
 *
 * The JSON that `profileme script --json` prints, as library calls: one
 * object per sample (pm_json_sample()) or per record (pm_json_record()),
 * and the string escaper every JSON writer of the library uses
 * (pm_json_escape()).  A decoded raw payload is pm_raw_format_json()
 * (profileme/raw.h), a tracepoint's fields pm_file_tp_format_json()
 * (profileme/file.h); pm_json_sample() embeds both.  Every call writes like
 * snprintf(): at most @c cap bytes including a terminating NUL, and returns
 * the length the whole text needs (without the NUL), so a caller whose
 * buffer was too small retries with a buffer of the returned length + 1.
 * No allocation, no printf per field.  The keys and their order are
 * documented in docs/json.md.
 *
 * **Experimental tier** (profileme/experimental.h): the object layout may
 * still change in a minor release.
 *  @{ */

/** pm_json_opts.flags: start the object with `"type":"SAMPLE"` (pm_json_sample(); `script --all`). */
#define PM_JSON_TYPE (1u << 0)
/** pm_json_opts.flags: after `"ip"`, write `"sym"`, `"symoff"` and `"dso"` from pm_json_opts::sym,
 *  pm_json_opts::symoff and pm_json_opts::dso (NULL: `"[unknown]"`). */
#define PM_JSON_SYM (1u << 1)

/** @brief Options of pm_json_sample() and pm_json_record().  Size-versioned: set @c sz. */
struct pm_json_opts {
	size_t sz;                /**< Set by the caller: sizeof(struct pm_json_opts). */
	uint32_t flags;           /**< PM_JSON_* bits. */
	const char *event;        /**< The `"event"` value; NULL: pm_file_event_name() of the attr
	                               (`"unknown-N"` when it has none, `"[unknown]"` without an attr). */
	const char *comm;         /**< The `"comm"` value of a sample with TID; NULL: `":"` (perf's
	                               placeholder for a thread without a COMM record). */
	const pm_raw_decoder *raw_decoder; /**< Decoder of the sample's raw payload (pm_raw_ctx_select()),
	                               or NULL: no decoded key. */
	const pm_raw_ctx *raw_ctx; /**< Context for @c raw_decoder. */
	const char *sym;          /**< With PM_JSON_SYM: the symbol of the ip, or NULL. */
	uint64_t symoff;          /**< With PM_JSON_SYM: the ip's offset in @c sym. */
	const char *dso;          /**< With PM_JSON_SYM: the module of the ip, or NULL. */
};
/** Frozen minimum @c sz of struct pm_json_opts (0.1: every member up to @c dso). */
#define PM_JSON_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_json_opts, dso)

/**
 * @brief **pm_json_escape()** writes @p n bytes at @p s as a JSON string
 *        literal, quotes included.
 *
 * `"` and `\` are backslash-escaped; control characters (below 0x20) and
 * DEL (0x7f) are written `\u00XX`; valid UTF-8 is copied; a byte that is
 * not part of valid UTF-8 is written `\u00XX` (its Latin-1 reading), so
 * the result is always valid JSON and the bytes can be told apart.
 * @param s    the bytes (need not be NUL-terminated; NULL only with @p n 0)
 * @param n    how many
 * @param buf  output, or NULL with @p cap 0 to measure
 * @param cap  size of @p buf; at most @p cap - 1 bytes and a NUL are written
 * @return the length of the literal (without the NUL); -EINVAL
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_json_escape(const char *s, size_t n, char *buf, size_t cap);

/**
 * @brief **pm_json_sample()** writes one parsed sample as a JSON object
 *        (no newline), exactly as `profileme script --json` prints it.
 *
 * Keys, in this order, each only when the sample carries the field:
 * `type` (PM_JSON_TYPE), `event`, `pid`, `tid`, `comm`, `time`, `cpu`,
 * `period`, `id`, `stream_id`, `ip` (then `sym`, `symoff`, `dso` with
 * PM_JSON_SYM), `addr`, `phys_addr`, `callchain` (context markers left
 * out), `read`, `raw` (hex bytes), the decoder's key
 * (pm_raw_decoder_key(): the decoded payload) or `raw_error` (why the
 * payload does not decode), `tp` (a tracepoint's fields by the
 * recording's formats), `brstack`, `uregs`, `stack_user`, `weight`,
 * `data_src`, `transaction`, `iregs`, `cgroup`, `data_page_size`,
 * `code_page_size`, `aux_size`.  Addresses and bit fields are strings
 * `"0x..."`, counts numbers.  See docs/json.md.
 * @param f     the sample's file (event names, tracepoint formats), or NULL (a live sample)
 * @param attr_idx  the sample's attr index in @p f (pm_file_record::attr_idx), -1 if none
 * @param sm    the sample
 * @param opts  options, or NULL
 * @param buf   output, or NULL with @p cap 0 to measure
 * @param cap   size of @p buf
 * @return the length of the object (without the NUL); -EINVAL; -PM_ERR_STRUCT_SIZE
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_json_sample(const pm_file *f, int attr_idx, const struct pm_sample *sm,
					  const struct pm_json_opts *opts, char *buf, size_t cap);

/**
 * @brief **pm_json_record()** writes a record of a file as a JSON object
 *        (no newline), as `profileme script --json --all` prints a
 *        non-sample record.
 *
 * Keys: `type` (pm_record_type_name(), `UNKNOWN_<n>` for an unknown type),
 * `offset`, `size`, `misc`, `event` (a kernel record with an attr), then,
 * when @p r is given, the parsed fields of MMAP/MMAP2 (`pid`, `tid`,
 * `start`, `len`, `pgoff`, `filename`), COMM (`pid`, `tid`, `comm`),
 * FORK/EXIT (`pid`, `ppid`, `tid`, `ptid`), LOST/LOST_SAMPLES (`lost`),
 * HEADER_ATTR (`attr_type`, `config`, `sample_type`), HEADER_FEATURE
 * (`feat_id`) and the sample_id trailer (`sample_pid`, `sample_tid`,
 * `time`, `id`, `stream_id`, `cpu`).
 * @param f     the record's file (event names), or NULL
 * @param rec   the record (pm_file_next())
 * @param r     the record parsed with pm_record_parse(), or NULL when it did not parse
 * @param opts  options (@c event), or NULL
 * @param buf   output, or NULL with @p cap 0 to measure
 * @param cap   size of @p buf
 * @return the length of the object (without the NUL); -EINVAL; -PM_ERR_STRUCT_SIZE
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_json_record(const pm_file *f, const struct pm_file_record *rec,
					  const struct pm_record *r, const struct pm_json_opts *opts,
					  char *buf, size_t cap);

/** @brief A distribution in a report row (pm_json_report_row()): its
 *  `<key>_mean`, `_q1`, `_median`, `_q3`, `_max`; left out when @c n is 0. */
struct pm_report_dist {
	uint64_t n;        /**< How many values (0: no keys). */
	double mean;       /**< Their mean (`%.4f`). */
	uint32_t q1;       /**< First quartile. */
	uint32_t median;   /**< Median. */
	uint32_t q3;       /**< Third quartile. */
	uint32_t max;      /**< Largest. */
};

/** @brief A share in a report row: `<key>` (@c hits) and `<key>_pct`
 *  (of @c total); left out when @c total is 0. */
struct pm_report_tally {
	uint64_t total;    /**< Samples that carry the bit. */
	uint64_t hits;     /**< Of those, with the bit set. */
};

/** @brief The sort keys of a report row, in the order pm_report_row::keys gives them. */
enum pm_report_key {
	PM_REPORT_KEY_SYM = 0,  /**< `"sym"`: pm_report_row::sym. */
	PM_REPORT_KEY_DSO = 1,  /**< `"dso"`: pm_report_row::dso. */
	PM_REPORT_KEY_PC = 2,   /**< `"pc"`: pm_report_row::pc, `"0x..."`. */
	PM_REPORT_KEY_COMM = 3, /**< `"comm"`: pm_report_row::comm. */
	PM_REPORT_KEY_PID = 4   /**< `"pid"`: pm_report_row::pid. */
};

/** @brief The ProfileMe part of a report row (docs/report.md says what each count is). */
struct pm_report_profileme {
	uint64_t n;             /**< `"profileme"`: ProfileMe samples of the row. */
	uint64_t killed;        /**< `"killed"` (and `"not_killed"`: n - killed). */
	uint64_t stalled;       /**< `"stalled"`, `"stalled_pct"`. */
	uint64_t trapped;       /**< `"trapped"`, `"trapped_pct"`. */
	uint64_t mispredicted;  /**< `"mispredicted"`, `"mispredicted_pct"`. */
	uint64_t pal_redirects; /**< `"pal_redirects"`. */
	uint64_t icache_miss;   /**< `"icache_miss_pct"`. */
	const uint64_t *traps;  /**< `"traps"`: PM_PROFILEME_TRAP_COUNT counts by ::pm_profileme_trap
	                             code, the non-zero ones written; NULL: none. */
	int pctr0_counts;       /**< `"pctr0_counts"`: a ::pm_profileme_counts code. */
	int pctr1_counts;       /**< `"pctr1_counts"`: a ::pm_profileme_counts code. */
	double pctr1_mean;      /**< `"pctr1_mean"`. */
	uint32_t pctr1_min;     /**< `"pctr1_min"`. */
	uint32_t pctr1_q1;      /**< `"pctr1_q1"`. */
	uint32_t pctr1_median;  /**< `"pctr1_median"`. */
	uint32_t pctr1_q3;      /**< `"pctr1_q3"`. */
	uint32_t pctr1_max;     /**< `"pctr1_max"`. */
	int skid;               /**< Non-zero: write the skid keys below (`report --skid`). */
	uint64_t skid_samples;  /**< `"skid_samples"`. */
	double skid_mean;       /**< `"skid_mean"` (`%.1f`). */
	uint64_t skid_max;      /**< `"skid_max"`. */
	uint64_t skid_undefined; /**< `"skid_undefined"`. */
};

/** @brief The IBS part of a report row (docs/report.md), over its exact samples. */
struct pm_report_ibs {
	int op;                       /**< Non-zero: an IBS op row (`"ibs_op"`), else fetch (`"ibs_fetch"`). */
	uint64_t n;                   /**< `"ibs_op"` / `"ibs_fetch"`: IBS samples. */
	uint64_t exact;               /**< `"exact"`. */
	uint64_t inexact;             /**< `"inexact"`. */
	uint64_t ip_differs;          /**< `"ip_differs"`. */
	/* op rows */
	uint64_t ops;                 /**< `"ops"`. */
	struct pm_report_dist tag_to_ret;  /**< `"tag_to_ret_*"`. */
	struct pm_report_dist comp_to_ret; /**< `"comp_to_ret_*"`. */
	uint64_t branches;            /**< `"branches"`. */
	uint64_t branch_taken;        /**< `"branch_taken"`, `"branch_taken_pct"`. */
	uint64_t branch_mispredicted; /**< `"branch_mispredicted"`, `"branch_mispredicted_pct"`. */
	uint64_t loads;               /**< `"loads"`. */
	uint64_t stores;              /**< `"stores"`. */
	uint64_t dc_miss;             /**< `"dc_miss"`, `"dc_miss_pct"` (of loads + stores). */
	uint64_t dtlb_l1_miss;        /**< `"dtlb_l1_miss"`. */
	uint64_t dtlb_l2_miss;        /**< `"dtlb_l2_miss"`. */
	struct pm_report_dist dc_miss_lat; /**< `"dc_miss_lat_*"`. */
	size_t nr_data_src;           /**< Entries of @c data_src and @c data_src_names. */
	const uint64_t *data_src;     /**< `"data_src"`: loads by source, the non-zero ones written. */
	const char *const *data_src_names; /**< Their names. */
	/* fetch rows */
	struct pm_report_dist fetch_lat; /**< `"fetch_lat_*"`. */
	uint64_t fetch_completed;     /**< `"fetch_completed"`. */
	struct pm_report_tally ic_miss;      /**< `"ic_miss"`. */
	struct pm_report_tally itlb_l1_miss; /**< `"itlb_l1_miss"`. */
	struct pm_report_tally itlb_l2_miss; /**< `"itlb_l2_miss"`. */
	struct pm_report_tally l2_miss;      /**< `"l2_miss"`. */
	struct pm_report_tally l3_miss;      /**< `"l3_miss"`. */
	struct pm_report_tally oc_miss;      /**< `"oc_miss"`. */
	size_t nr_page_size;          /**< Entries of @c page_size and @c page_size_names. */
	const uint64_t *page_size;    /**< `"page_size"`: fetches by page size, the non-zero ones written. */
	const char *const *page_size_names; /**< Their names. */
};

/** @brief One row of a report, as `profileme report --json` prints it.
 *  Size-versioned: set @c sz.  The ProfileMe and IBS parts are pointed to. */
struct pm_report_row {
	size_t sz;                /**< Set by the caller: sizeof(struct pm_report_row). */
	const char *event;        /**< `"event"` (NULL: `null`). */
	uint64_t samples;         /**< `"samples"`. */
	uint64_t period;          /**< `"period"`. */
	uint64_t event_period;    /**< The event's total period: `"overhead"` = 100 * period / it (0: 0). */
	const int *keys;          /**< The row's sort keys (::pm_report_key), in output order. */
	size_t nr_keys;           /**< How many. */
	const char *sym;          /**< PM_REPORT_KEY_SYM (NULL: `null`). */
	const char *dso;          /**< PM_REPORT_KEY_DSO, as it is to be shown (NULL: `null`). */
	uint64_t pc;              /**< PM_REPORT_KEY_PC. */
	const char *comm;         /**< PM_REPORT_KEY_COMM (NULL: `null`). */
	uint32_t pid;             /**< PM_REPORT_KEY_PID. */
	const struct pm_report_profileme *profileme; /**< NULL: no ProfileMe keys. */
	const struct pm_report_ibs *ibs;             /**< NULL: no IBS keys. */
};
/** Frozen minimum @c sz of struct pm_report_row (0.1: every member up to @c ibs). */
#define PM_REPORT_ROW_SZ_V1 PM_OFFSETOFEND(struct pm_report_row, ibs)

/**
 * @brief **pm_json_report_row()** writes one report row as a JSON object
 *        (no newline), exactly as `profileme report --json` prints it.
 *
 * Keys, in this order: `event`, `samples`, `period`, `overhead` (percent,
 * `%.4f`), the sort keys in pm_report_row::keys order, then with a
 * ProfileMe part `profileme`, `not_killed`, `killed`, `stalled`, `trapped`,
 * `mispredicted`, `pal_redirects`, `stalled_pct`, `trapped_pct`,
 * `mispredicted_pct`, `icache_miss_pct`, `traps` (an object by trap name),
 * `pctr0_counts`, `pctr1_counts`, `pctr1_mean`, `pctr1_min`, `pctr1_q1`,
 * `pctr1_median`, `pctr1_q3`, `pctr1_max` and the skid keys, and with an
 * IBS part the op or fetch keys of docs/json.md.  Percentages are `%.4f`
 * of their total (0 when it is 0).
 * @param row  the row
 * @param buf  output, or NULL with @p cap 0 to measure
 * @param cap  size of @p buf
 * @return the length of the object (without the NUL); -EINVAL (NULL row,
 *         an unknown key, an array count without its array);
 *         -PM_ERR_STRUCT_SIZE
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_json_report_row(const struct pm_report_row *row, char *buf,
					      size_t cap);

/** @} */


/* ------------------------------------------------------------------------ */
/** @name Profiles for other tools: pprof and folded stacks
 *
 * pm_export_pprof() and pm_export_folded() read the rest of a ::pm_file
 * (every record from its current position), follow its processes (COMM,
 * MMAP/MMAP2, FORK, EXIT, exec) and symbolize each sample's stack with a
 * ::pm_sym, the same way `profileme report` does: a ProfileMe sample
 * is charged to its profiled PC, every other sample to its ip; callchain
 * entries follow leaf first, PERF_CONTEXT_* markers skipped and the entry
 * that repeats the ip dropped.  See docs/export.md.
 *  @{ */

/** pm_export_opts.flags: no kernel symbols (kernel frames stay "[unknown]"). */
#define PM_EXPORT_NO_KERNEL (1u << 0)
/** pm_export_opts.flags: no symbols at all (pprof: mappings only, for pprof to symbolize). */
#define PM_EXPORT_NO_SYMBOLS (1u << 1)
/** pm_export_opts.flags: folded stacks: append `-PID/TID` to the comm (stackcollapse --tid). */
#define PM_EXPORT_FOLDED_TID (1u << 2)

/**
 * @brief Progress callback of the exporters: called every few thousand
 *        records and once at the end.
 * @param user     pm_export_opts::progress_user
 * @param offset   file offset of the record reached
 * @param size     size of the file, 0 for a pipe
 * @param samples  samples read so far
 */
typedef void (*pm_export_progress_fn)(void *user, uint64_t offset, uint64_t size, uint64_t samples);

/** @brief Options of pm_export_pprof() and pm_export_folded().  Size-versioned: set @c sz. */
struct pm_export_opts {
	size_t sz;                /**< Set by the caller: sizeof(struct pm_export_opts). */
	int event;                /**< Only samples of this attr index; -1: all (NULL opts: all). */
	uint32_t flags;           /**< PM_EXPORT_* bits. */
	const char *symfs;        /**< Prefix of every mapped file when reading symbols (NULL: none). */
	const char *kallsyms;     /**< Kernel symbols file (NULL: /proc/kallsyms, only for a recording of this kernel). */
	pm_sym *sym;       /**< A fresh symbolizer of the caller to use (and feed) instead of one
	                               opened from @c symfs / @c kallsyms; NULL: the exporter opens its own. */
	pm_export_progress_fn progress; /**< Progress callback, or NULL. */
	void *progress_user;      /**< Passed to @c progress. */
	/** The recording's path (NULL: none): a synthetic recording's symbols come from the
	 *  symfs and kallsyms next to it unless @c symfs / @c kallsyms are given
	 *  (pm_sym_opts.path; unused with @c sym or PM_EXPORT_NO_SYMBOLS).  Since 0.1 (after
	 *  PM_EXPORT_OPTS_SZ_V1). */
	const char *path;
};
/** Frozen minimum @c sz of struct pm_export_opts (0.1: every member up to @c progress_user);
 *  accepted by every later release.  See PM_OFFSETOFEND(). */
#define PM_EXPORT_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_export_opts, progress_user)

/**
 * @brief **pm_export_pprof()** writes the samples of a recording as a
 *        gzipped pprof `profile.proto` (what `go tool pprof` reads).
 *
 * Value types: `samples/count`, then `<event>/<unit>` for each event (the
 * period: `nanoseconds` for cpu-clock and task-clock, `count` otherwise);
 * for ProfileMe samples `trapped`, `killed`, `mispredicted`, `stalled`
 * (counts) and PCTR0/PCTR1 named by what they counted (`instructions/count`,
 * `cycles/cycles`, `retire_delay/cycles`, `bcache_misses/count`,
 * `mbox_replays/count`; PCTR0 instructions less the `ovr` overcount); for
 * IBS op samples `tag_to_retire/cycles`, `dc_miss_latency/cycles`,
 * `dc_misses/count`, `mispredicted_branches/count`; for IBS fetch samples
 * `fetch_latency/cycles`, `ic_misses/count`.  Labels: `comm`, `pid`,
 * `tid`, `cpu`, `event` (recordings of several events), `trap` (ProfileMe,
 * trapped or redirected samples), `data_src` (IBS op).  Mappings from
 * MMAP/MMAP2 with build ids (MMAP2 or the BUILD_ID feature); functions from
 * the symbolizer.  A synthetic recording says so in a comment.
 * @param f     an open file; read from its current position to the end
 * @param opts  options, or NULL
 * @param path  the output file (created or truncated)
 * @return 0; -EINVAL; -PM_ERR_STRUCT_SIZE; -ENOENT (no such event);
 *         -PM_ERR_UNSUPPORTED when the library was built without
 *         protobuf-c and zlib (the PROFILEME_PPROF build option); an error
 *         of the file (the output is then not written); -errno of the output.
 * @since 0.1
 */
PM_API int pm_export_pprof(pm_file *f, const struct pm_export_opts *opts, const char *path);

/**
 * @brief **pm_export_folded()** writes collapsed stacks, one line per
 *        distinct stack, `comm;root;...;leaf count`, sorted, as Brendan
 *        Gregg's stackcollapse-perf.pl writes them (flamegraph.pl, inferno
 *        and speedscope read them).
 *
 * Counts are samples.  Spaces in the comm become `_`; a frame without a
 * symbol is `[module]` (the module's base name) or `[unknown]`; in a name,
 * `;` becomes `:`, quotes are dropped and C++ argument lists are cut at
 * the first `(` (stackcollapse's tidying).  A sample without a callchain
 * is `comm;leaf`.
 * @param f     an open file; read from its current position to the end
 * @param opts  options, or NULL
 * @param fd    where to write (not closed)
 * @return 0; -EINVAL; -PM_ERR_STRUCT_SIZE; -ENOENT; an error of the file;
 *         -errno of a write.
 * @since 0.1
 */
PM_API int pm_export_folded(pm_file *f, const struct pm_export_opts *opts, int fd);

/**
 * @brief One sample with its symbolized stack, as pm_export_stacks() hands
 *        it out.  Filled by the library (@c sz is the library's size: read
 *        a member only when @c sz reaches it); every pointer is valid only
 *        during the callback.
 */
struct pm_stack {
	size_t sz;                 /**< Set by the library: the size it filled. */
	int event;                 /**< Attr index of the sample. */
	uint32_t pid;              /**< Process id. */
	uint32_t tid;              /**< Thread id. */
	uint32_t cpu;              /**< CPU (0 when not recorded). */
	const char *comm;          /**< Thread name (":tid" when never seen). */
	uint64_t period;           /**< The sample's period (PERF_SAMPLE_PERIOD, else the attr's fixed one, else 1). */
	uint64_t time;             /**< PERF_SAMPLE_TIME, 0 when absent. */
	size_t nframes;            /**< Frames, >= 1; frame 0 is where the sample is charged (the leaf). */
	const uint64_t *addrs;     /**< @c nframes addresses, leaf first. */
	const char *const *syms;   /**< @c nframes symbol names ("[unknown]" when none covers the address). */
	const char *const *dsos;   /**< @c nframes module paths ("[kernel.kallsyms]", "[unknown]", ...). */
};

/** @brief Callback of pm_export_stacks(); a nonzero return stops the walk and is returned. */
typedef int (*pm_stack_fn)(void *user, const struct pm_stack *s);

/**
 * @brief **pm_export_stacks()** reads a recording and calls @p fn with every
 *        sample and its symbolized stack: the stacks pm_export_pprof() and
 *        pm_export_folded() write, for a consumer that aggregates them its
 *        own way (`profileme report -g` builds its call graph from them).
 * @param f     an open file; read from its current position to the end
 * @param opts  options, or NULL
 * @param fn    the callback
 * @param user  passed to @p fn
 * @return 0; -EINVAL; -PM_ERR_STRUCT_SIZE; -ENOENT; an error of the file;
 *         the callback's nonzero return.
 * @since 0.1
 */
PM_API int pm_export_stacks(pm_file *f, const struct pm_export_opts *opts, pm_stack_fn fn, void *user);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_EXPORT_H */
