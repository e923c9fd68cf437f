/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/file.h
 * @brief Reading perf.data files: file and pipe mode, header, attrs, feature
 *        sections, records in file or time order, zstd-compressed records.
 *
 * A ::pm_file streams its records through a bounded read window: the file is
 * never mapped or read whole, so memory does not grow with the file size.
 * Records are handed out in place in the window when possible (pointers stay
 * valid until the next pm_file_next() call).
 *
 * Order.  By default records come out sorted by time the way `perf script`
 * and `perf report` sort them: records that carry a time stamp are buffered
 * and released at each FINISHED_ROUND marker up to the largest time stamp of
 * the round *before*, at the end of the file all are released.  Records
 * without a time stamp (and the perf tool's own metadata records, types
 * >= 64) are handed out as they are read.  The buffer is bounded by
 * pm_file_opts::reorder_max_bytes (default 64 MiB): when it is exceeded the
 * older half (by time) is released early, as perf does with its
 * `ordered_events` memory limit.  The bound counts each record's bytes + 32;
 * with the queue entries and chunk slack a full buffer takes about 2.1 times
 * that (docs/file.md has the measured figures).  With pm_file_opts::raw_order the records
 * come out in file order and no buffering happens.
 *
 * Byte order.  A file written on a machine of the other byte order is read
 * transparently: attrs and feature payloads are converted; the record bytes
 * handed out stay in the file's byte order (pm_file_info::big_endian tells
 * it) and the record parser converts each field.
 *
 * Errors.  A damaged file (truncated, a size past the end, a zero record
 * size, ...) gives a negative code with a message (pm_errmsg()) that names
 * the file offset; pm_file_error_offset() gives the offset as a number.
 * Records before the damage are all handed out first.
 */
#ifndef PROFILEME_FILE_H
#define PROFILEME_FILE_H

#include <profileme/attr.h>
#include <profileme/common.h>
#include <profileme/record.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief An open perf.data file or stream (opaque). */
typedef struct pm_file pm_file;

/** @name Feature section numbers (HEADER_* feature bits of perf.data)
 *  @{ */
#define PM_FEAT_TRACING_DATA 1
#define PM_FEAT_BUILD_ID 2
#define PM_FEAT_HOSTNAME 3
#define PM_FEAT_OSRELEASE 4
#define PM_FEAT_VERSION 5
#define PM_FEAT_ARCH 6
#define PM_FEAT_NRCPUS 7
#define PM_FEAT_CPUDESC 8
#define PM_FEAT_CPUID 9
#define PM_FEAT_TOTAL_MEM 10
#define PM_FEAT_CMDLINE 11
#define PM_FEAT_EVENT_DESC 12
#define PM_FEAT_CPU_TOPOLOGY 13
#define PM_FEAT_NUMA_TOPOLOGY 14
#define PM_FEAT_BRANCH_STACK 15
#define PM_FEAT_PMU_MAPPINGS 16
#define PM_FEAT_GROUP_DESC 17
#define PM_FEAT_AUXTRACE 18
#define PM_FEAT_STAT 19
#define PM_FEAT_CACHE 20
#define PM_FEAT_SAMPLE_TIME 21
#define PM_FEAT_MEM_TOPOLOGY 22
#define PM_FEAT_CLOCKID 23
#define PM_FEAT_DIR_FORMAT 24
#define PM_FEAT_BPF_PROG_INFO 25
#define PM_FEAT_BPF_BTF 26
#define PM_FEAT_COMPRESSED 27
#define PM_FEAT_CPU_PMU_CAPS 28
#define PM_FEAT_CLOCK_DATA 29
#define PM_FEAT_HYBRID_TOPOLOGY 30
#define PM_FEAT_PMU_CAPS 31
/** Number of feature bits in a perf.data header. */
#define PM_FEAT_BITS 256
/** @} */

/** @brief pm_file_record::time when the record carries no time stamp. */
#define PM_FILE_NO_TIME UINT64_MAX

/**
 * @brief Options of pm_file_open() / pm_file_open_fd().  Size-versioned: set
 *        @c sz to sizeof(struct pm_file_opts); NULL means all defaults.
 */
struct pm_file_opts {
	size_t sz;                /**< Set by the caller: sizeof(struct pm_file_opts). */
	int raw_order;            /**< 1: records in file order; 0 (default): sorted by time like perf. */
	size_t window_size;       /**< Read window in bytes; 0: 256 KiB.  It grows only to fit one record. */
	size_t reorder_max_bytes; /**< Bound of the time-sorting buffer; 0: 64 MiB. */
	int keep_compressed;      /**< 1: also hand out each COMPRESSED record (before the records it holds). */
	/** 1: a pipe stream whose last record is cut, or that has junk after its
	 *  last record, is an error (-PM_ERR_TRUNCATED / -PM_ERR_CORRUPT) as any
	 *  damage is.  0 (default): as perf does, the stream ends there: every
	 *  record before it is handed out, pm_file_next() returns 0 and
	 *  pm_file_end_status() tells the offset.  Damage elsewhere, and in file
	 *  mode, is always an error.  @since 0.1 */
	int strict;
};
/** Frozen minimum @c sz of struct pm_file_opts (0.1: the members up to @c raw_order); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_FILE_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_file_opts, raw_order)

/**
 * @brief What the file header says.  Size-versioned: set @c sz to
 *        sizeof(struct pm_file_info) before calling pm_file_get_info().
 */
struct pm_file_info {
	size_t sz;              /**< Set by the caller: sizeof(struct pm_file_info). */
	int pipe_mode;          /**< 1 for the pipe format (`perf record -o -`). */
	int big_endian;         /**< 1 if the file was written by a big-endian machine. */
	uint64_t header_size;   /**< Header size field (104, 72 for old files, 16 for pipes). */
	uint64_t attr_size;     /**< Bytes per attr entry in the attr section (0 in pipe mode). */
	uint64_t attrs_offset;  /**< Attr section offset (file mode). */
	uint64_t attrs_size;    /**< Attr section size. */
	uint64_t data_offset;   /**< Data section offset (16 in pipe mode: just after the header). */
	uint64_t data_size;     /**< Data section size; 0 when unknown (pipe, or unclean exit). */
	uint64_t feat_offset;   /**< Offset of the feature table (data_offset + data_size). */
	uint64_t features[4];   /**< Feature bitmap: bit n of word n/64 set when feature n is present. */
	uint64_t file_size;     /**< Size of a regular file; 0 for a pipe. */
	uint32_t version;       /**< 2 for PERFILE2, 1 for an old PERFFILE file (its byte order
	                             taken from attr_size, as perf does). @since 0.1 */
	uint32_t reserved;      /**< Zero. */
};
/** Frozen minimum @c sz of struct pm_file_info (0.1: the members up to @c big_endian); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_FILE_INFO_SZ_V1 PM_OFFSETOFEND(struct pm_file_info, big_endian)

/**
 * @brief One record handed out by pm_file_next().  Size-versioned: set @c sz
 *        to sizeof(struct pm_file_record).
 */
struct pm_file_record {
	size_t sz;             /**< Set by the caller: sizeof(struct pm_file_record). */
	uint32_t type;         /**< Record type (PERF_RECORD_*: 9 = SAMPLE, 68 = FINISHED_ROUND, ...). */
	uint16_t misc;         /**< header.misc. */
	uint16_t reserved;     /**< Zero. */
	uint32_t size;         /**< Bytes at @c data (header.size; for HEADER_TRACING_DATA the
	                            out-of-band tracing data is included). */
	int32_t attr_idx;      /**< Index of the record's attr, -1 when no attr matches. */
	const void *data;      /**< The record bytes, header included, in the file's byte order;
	                            valid until the next call on the file. */
	uint64_t offset;       /**< File (stream) offset of the record; for a record that came out
	                            of a compressed record, the offset of that COMPRESSED record. */
	uint64_t time;         /**< Time stamp, or PM_FILE_NO_TIME. */
	int from_compressed;   /**< 1 if the record was decompressed from a COMPRESSED record. */
	int big_endian;        /**< Byte order of @c data (the file's). */
};
/** Frozen minimum @c sz of struct pm_file_record (0.1: the members up to @c offset); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_FILE_RECORD_SZ_V1 PM_OFFSETOFEND(struct pm_file_record, offset)

/**
 * @brief **pm_file_open()** opens a perf.data file (file or pipe format).
 *
 * Reads and checks the header, the attrs with their ids and the feature
 * sections (file mode), or the metadata records at the start of a pipe
 * stream (pipe mode: HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE, ID_INDEX).
 * @param[out] out  the new handle
 * @param path      file name; "-" reads standard input
 * @param opts      options, or NULL
 * @return 0; -errno when the file cannot be opened or read;
 *         -PM_ERR_FORMAT (bad magic, attr_size 0, ...), -PM_ERR_TRUNCATED
 *         (short header, sections past the end), -PM_ERR_STRUCT_SIZE (opts),
 *         -ENOMEM.  pm_errmsg() names the offset.
 * @since 0.1
 */
PM_API int pm_file_open(pm_file **out, const char *path, const struct pm_file_opts *opts);

/**
 * @brief **pm_file_open_fd()** reads a perf.data stream from a file
 *        descriptor: a regular file (read with pread) or a pipe/socket (read
 *        sequentially).  The descriptor is not closed by pm_file_close().
 * @param[out] out  the new handle
 * @param fd        an open, readable file descriptor
 * @param opts      options, or NULL
 * @return as pm_file_open().
 * @since 0.1
 */
PM_API int pm_file_open_fd(pm_file **out, int fd, const struct pm_file_opts *opts);

/**
 * @brief **pm_file_close()** releases a file (NULL is fine).
 * @param f the file
 * @since 0.1
 */
PM_API void pm_file_close(pm_file *f);

/**
 * @brief **pm_file_get_info()** copies the header facts.
 * @param f         the file
 * @param[out] info caller struct with @c sz set
 * @return 0 or -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_file_get_info(const pm_file *f, struct pm_file_info *info);

/**
 * @brief **pm_file_nr_attrs()** gives the number of attrs (events) known so
 *        far (in pipe mode HEADER_ATTR records met later add more).
 * @param f the file
 * @return the count.
 * @since 0.1
 */
PM_API size_t pm_file_nr_attrs(const pm_file *f);

/**
 * @brief **pm_file_attr()** gives attr @p idx.
 * @param f   the file
 * @param idx 0 .. pm_file_nr_attrs() - 1
 * @return the attr (owned by the file), or NULL if @p idx is out of range.
 * @since 0.1
 */
PM_API const struct pm_attr *pm_file_attr(const pm_file *f, size_t idx);

/**
 * @brief **pm_file_event_name()** gives the name of attr @p idx from
 *        EVENT_DESC (file mode) or EVENT_UPDATE (pipe mode).
 * @param f   the file
 * @param idx attr index
 * @return the name, or NULL when the file names none (or @p idx is out of range).
 * @since 0.1
 */
PM_API const char *pm_file_event_name(const pm_file *f, size_t idx);

/**
 * @brief **pm_file_attr_ids()** gives the sample ids of attr @p idx (from
 *        the attr section, HEADER_ATTR and ID_INDEX).
 * @param f       the file
 * @param idx     attr index
 * @param[out] nr number of ids
 * @return the ids (owned by the file, valid until the next call), or NULL.
 * @since 0.1
 */
PM_API const uint64_t *pm_file_attr_ids(const pm_file *f, size_t idx, size_t *nr);

/**
 * @brief **pm_file_attr_layout_error()** says why the samples of attr
 *        @p idx cannot be decoded: its sample_type or read_format has bits
 *        this library does not know (the message names them).
 * @param f   the file
 * @param idx attr index
 * @return "attr N: sample_type 0x... has bits this library does not know
 *         (0x...)" or the like (owned by the file), or NULL when the attr's
 *         samples decode (or @p idx is out of range).  pm_file_sample() of
 *         such an attr's samples fails with -PM_ERR_UNSUPPORTED and the
 *         same text; pm_columns count them in pm_columns_skipped().
 * @since 0.1
 */
PM_API const char *pm_file_attr_layout_error(const pm_file *f, size_t idx);

/**
 * @brief **pm_file_attr_of_id()** finds the attr that owns a sample id.
 * @param f  the file
 * @param id the id
 * @return the attr index, or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_attr_of_id(const pm_file *f, uint64_t id);

/**
 * @brief **pm_file_has_feature()** tells whether feature @p feat is present.
 * @param f    the file
 * @param feat PM_FEAT_* (0..255)
 * @return 1 or 0.
 * @since 0.1
 */
PM_API int pm_file_has_feature(const pm_file *f, unsigned feat);

/**
 * @brief **pm_file_feature_raw()** gives the bytes of a feature section as
 *        recorded (the file's byte order), for any feature, known or not.
 * @param f          the file
 * @param feat       PM_FEAT_* (0..255)
 * @param[out] data  the bytes (owned by the file)
 * @param[out] len   their length
 * @return 0; -ENOENT if absent; -PM_ERR_TRUNCATED if its section lies
 *         past the end of the file; -errno on a read error.
 * @since 0.1
 */
PM_API int pm_file_feature_raw(pm_file *f, unsigned feat, const void **data, size_t *len);

/**
 * @brief **pm_file_feature_string()** gives a one-string feature: HOSTNAME,
 *        OSRELEASE, VERSION, ARCH, CPUDESC or CPUID.
 * @param f    the file
 * @param feat one of those PM_FEAT_* values
 * @return the string (owned by the file), or NULL if absent or not such a feature.
 * @since 0.1
 */
PM_API const char *pm_file_feature_string(const pm_file *f, unsigned feat);

/**
 * @brief **pm_file_nrcpus()** gives NRCPUS.
 * @param f            the file
 * @param[out] avail   CPUs available (may be NULL)
 * @param[out] online  CPUs online (may be NULL)
 * @return 0 or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_nrcpus(const pm_file *f, uint32_t *avail, uint32_t *online);

/**
 * @brief **pm_file_total_mem()** gives TOTAL_MEM.
 * @param f       the file
 * @param[out] kb total memory in KiB
 * @return 0 or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_total_mem(const pm_file *f, uint64_t *kb);

/**
 * @brief **pm_file_cmdline()** gives argument @p i of CMDLINE.
 * @param f the file
 * @param i 0-based argument index
 * @return the argument, or NULL past the last one (or if absent).
 * @since 0.1
 */
PM_API const char *pm_file_cmdline(const pm_file *f, size_t i);

/**
 * @brief **pm_file_is_synthetic()** says whether the recording says it is
 *        synthetic (made by a generator such as tests/gen): its HOSTNAME or
 *        CPUDESC feature or its first CMDLINE argument contains "synthetic".
 *        The one test behind the `(synthetic)` labels and the sidecar symbols
 *        of pm_sym_opts.path.
 * @param f the file
 * @return 1 when it says so; 0 otherwise or for NULL.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_file_is_synthetic(const pm_file *f);

/** @brief Lists of CPU_TOPOLOGY, for pm_file_cpu_topology(). */
enum pm_file_topology_list {
	PM_TOPO_CORE_SIBLINGS = 0,   /**< Per package: the CPUs of one socket. */
	PM_TOPO_THREAD_SIBLINGS = 1, /**< Per core: the CPUs sharing a core. */
	PM_TOPO_DIE_SIBLINGS = 2     /**< Per die (newer files). */
};

/**
 * @brief **pm_file_cpu_topology()** gives entry @p i of a CPU_TOPOLOGY list.
 * @param f    the file
 * @param list a ::pm_file_topology_list value
 * @param i    0-based index
 * @return a cpu list string such as "0-3", or NULL past the last one.
 * @since 0.1
 */
PM_API const char *pm_file_cpu_topology(const pm_file *f, int list, size_t i);

/**
 * @brief **pm_file_cpu_ids()** gives CPU_TOPOLOGY's per-CPU ids.
 * @param f               the file
 * @param cpu             CPU number
 * @param[out] core_id    core id (may be NULL)
 * @param[out] socket_id  socket id (may be NULL)
 * @param[out] die_id     die id, UINT32_MAX when not recorded (may be NULL)
 * @return 0, or -ENOENT when the file has no ids for @p cpu.
 * @since 0.1
 */
PM_API int pm_file_cpu_ids(const pm_file *f, uint32_t cpu, uint32_t *core_id, uint32_t *socket_id,
			   uint32_t *die_id);

/**
 * @brief **pm_file_pmu_mapping()** gives entry @p i of PMU_MAPPINGS.
 * @param f          the file
 * @param i          0-based index
 * @param[out] type  the PMU's attr.type
 * @param[out] name  the PMU name (owned by the file)
 * @return 0, or -ENOENT past the last entry.
 * @since 0.1
 */
PM_API int pm_file_pmu_mapping(const pm_file *f, size_t i, uint32_t *type, const char **name);

/**
 * @brief **pm_file_group_desc()** gives entry @p i of GROUP_DESC.
 * @param f                the file
 * @param i                0-based index
 * @param[out] name        group name ("{anon_group}" style names as recorded; may be "")
 * @param[out] leader_idx  attr index of the leader
 * @param[out] nr_members  number of events in the group
 * @return 0, or -ENOENT past the last entry.
 * @since 0.1
 */
PM_API int pm_file_group_desc(const pm_file *f, size_t i, const char **name, uint32_t *leader_idx,
			      uint32_t *nr_members);

/**
 * @brief **pm_file_sample_time()** gives SAMPLE_TIME.
 * @param f           the file
 * @param[out] first  time of the first sample
 * @param[out] last   time of the last sample
 * @return 0 or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_sample_time(const pm_file *f, uint64_t *first, uint64_t *last);

/**
 * @brief **pm_file_clockid_res()** gives CLOCKID: the resolution of the
 *        clock used for time stamps.
 * @param f           the file
 * @param[out] res_ns resolution in ns
 * @return 0 or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_clockid_res(const pm_file *f, uint64_t *res_ns);

/**
 * @brief **pm_file_clock_data()** gives CLOCK_DATA (the reference pair that
 *        converts sample times to wall-clock time).
 * @param f                the file
 * @param[out] clockid     the clock id
 * @param[out] wall_ns     wall-clock time (ns since the epoch)
 * @param[out] clockid_ns  the same instant on the sample clock
 * @return 0 or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_clock_data(const pm_file *f, uint32_t *clockid, uint64_t *wall_ns,
			      uint64_t *clockid_ns);

/**
 * @brief **pm_file_compression()** gives COMPRESSED.
 * @param f             the file
 * @param[out] type     compressor (1 = zstd)
 * @param[out] level    compression level
 * @param[out] ratio    recorded compression ratio
 * @param[out] mmap_len ring size used when recording
 * @return 0 or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_compression(const pm_file *f, uint32_t *type, uint32_t *level, uint32_t *ratio,
			       uint32_t *mmap_len);

/**
 * @brief **pm_file_pmu_cap()** gives capability @p i of PMU_CAPS and
 *        CPU_PMU_CAPS (the latter with PMU name "cpu"), flattened.
 * @param f           the file
 * @param i           0-based index over all PMUs' capabilities
 * @param[out] pmu    PMU name
 * @param[out] name   capability name
 * @param[out] value  capability value (text)
 * @return 0, or -ENOENT past the last one.
 * @since 0.1
 */
PM_API int pm_file_pmu_cap(const pm_file *f, size_t i, const char **pmu, const char **name,
			   const char **value);

/**
 * @brief **pm_file_build_id()** gives entry @p i of BUILD_ID (or of
 *        HEADER_BUILD_ID records met so far in pipe mode).
 * @param f              the file
 * @param i              0-based index
 * @param[out] pid       pid (-1 for the host kernel / any)
 * @param[out] misc      header.misc of the entry (cpumode)
 * @param[out] id        build-id bytes (owned by the file)
 * @param[out] id_len    their number (20 unless the entry says otherwise)
 * @param[out] filename  the file name
 * @return 0, or -ENOENT past the last one.
 * @since 0.1
 */
PM_API int pm_file_build_id(const pm_file *f, size_t i, int32_t *pid, uint16_t *misc,
			    const uint8_t **id, size_t *id_len, const char **filename);

/**
 * @brief **pm_file_next()** hands out the next record.
 * @param f         the file
 * @param[out] rec  the record (caller struct with @c sz set)
 * @return 1 with a record, 0 at the end, or a negative code on damage
 *         (-PM_ERR_TRUNCATED, -PM_ERR_CORRUPT, -PM_ERR_FORMAT), a read
 *         error (-errno), or a COMPRESSED record without zstd support
 *         (-PM_ERR_UNSUPPORTED).  After an error further calls return it again.
 * @since 0.1
 */
PM_API int pm_file_next(pm_file *f, struct pm_file_record *rec);

/**
 * @brief **pm_file_end_status()** tells whether a pipe stream ended early:
 *        its last record cut, or junk (fewer than 64 KiB, up to the end of
 *        the stream) after its last record, tolerated because
 *        pm_file_opts::strict was 0.
 * @param f           the file
 * @param[out] offset offset of the cut record or of the junk, UINT64_MAX
 *                    for a clean end (may be NULL)
 * @param[out] msg    what was found there, naming the offset once (owned
 *                    by the file; NULL for a clean end; may be NULL)
 * @return 0 for a clean end (or not at the end yet), else the negative code
 *         the damage would have given with pm_file_opts::strict.
 * @since 0.1
 */
PM_API int pm_file_end_status(const pm_file *f, uint64_t *offset, const char **msg);

/**
 * @brief **pm_file_error_offset()** gives the file offset of the damage
 *        behind the last error of pm_file_next() (or of a damaged feature
 *        table at open).
 * @param f the file
 * @return the offset, or UINT64_MAX when there was no error.
 * @since 0.1
 */
PM_API uint64_t pm_file_error_offset(const pm_file *f);

/**
 * @brief **pm_file_header_status()** tells whether the header had damage that
 *        did not stop the data from being read (for example a feature table
 *        past the end of the file: features are then absent).
 * @param f           the file
 * @param[out] offset offset of the damage (may be NULL)
 * @return 0, or the negative code of the damage.
 * @since 0.1
 */
PM_API int pm_file_header_status(const pm_file *f, uint64_t *offset);

/**
 * @brief **pm_file_sample()** decodes a SAMPLE record handed out by
 *        pm_file_next() with the sample layout of its attr.
 * @param f         the file
 * @param rec       a record of type PM_RECORD_SAMPLE from pm_file_next()
 * @param[out] out  the sample (`out->sz` set by the caller); its pointers
 *                  point into the record and share its lifetime
 * @return 0; -EINVAL (NULL, or not a sample); -ENOENT (no attr matches the
 *         record); -PM_ERR_UNSUPPORTED (the attr's layout is unknowable);
 *         -PM_ERR_CORRUPT / -PM_ERR_TRUNCATED from pm_sample_parse(), with
 *         the file offset in the message.
 * @since 0.1
 */
PM_API int pm_file_sample(const pm_file *f, const struct pm_file_record *rec, struct pm_sample *out);

/**
 * @brief The fields of a SAMPLE most readers need (pm_file_sample_core()):
 *        the values pm_file_sample() gives in the members of the same names
 *        of ::pm_sample (absent fields 0).  Size-versioned: set @c sz.
 */
struct pm_sample_core {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_sample_core). */
	uint64_t present;   /**< PM_SAMPLE_* bits of the fields recorded (pm_sample::present). */
	uint16_t misc;      /**< header.misc (cpumode, EXACT_IP). */
	uint16_t reserved;  /**< Zero. */
	uint32_t raw_size;  /**< RAW: bytes at @c raw (0 without RAW). */
	uint64_t id;        /**< IDENTIFIER or ID. */
	uint64_t ip;        /**< IP. */
	uint64_t time;      /**< TIME. */
	uint64_t addr;      /**< ADDR. */
	uint64_t period;    /**< PERIOD. */
	uint32_t pid;       /**< TID: process id. */
	uint32_t tid;       /**< TID: thread id. */
	uint32_t cpu;       /**< CPU. */
	uint32_t reserved2; /**< Zero. */
	const uint8_t *raw; /**< RAW payload (into the record), NULL without RAW. */
};
/** Frozen minimum @c sz of struct pm_sample_core. */
#define PM_SAMPLE_CORE_SZ_V1 PM_OFFSETOFEND(struct pm_sample_core, raw)

/**
 * @brief **pm_file_sample_core()** decodes the core fields of a SAMPLE
 *        record handed out by pm_file_next(): what pm_file_sample() gives
 *        in the fields of ::pm_sample_core, with the same checks and the
 *        same errors, without filling a whole ::pm_sample (fixed offsets of
 *        the attr's layout where it allows, else pm_file_sample() itself).
 * @param f         the file
 * @param rec       a record of type PM_RECORD_SAMPLE from pm_file_next()
 * @param[out] out  the fields (`out->sz` set by the caller); @c raw points
 *                  into the record and shares its lifetime
 * @return as pm_file_sample(); -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_file_sample_core(const pm_file *f, const struct pm_file_record *rec,
					       struct pm_sample_core *out);

/**
 * @brief **pm_file_record_parse()** decodes any record handed out by
 *        pm_file_next() with the layout of its attr (so the sample_id_all
 *        trailer of non-sample records and READ values are decoded).
 * @param f         the file
 * @param rec       a record from pm_file_next()
 * @param[out] out  the record (`out->sz` set by the caller)
 * @return 0, or an error of pm_record_parse() (message with the file offset).
 * @since 0.1
 */
PM_API int pm_file_record_parse(const pm_file *f, const struct pm_file_record *rec,
				struct pm_record *out);

/**
 * @brief **pm_file_min_sample_size()** gives the size of the smallest SAMPLE
 *        record the file's attrs allow (pm_sample_layout_min_size() of each
 *        attr whose layout is known): data_size / this bounds the number of
 *        samples, for a bulk reader sizing its buffers (pm_columns).
 * @param f  the file
 * @return bytes (>= 8), or 0 when no attr has a known layout (or @p f is NULL).
 * @since 0.1
 */
PM_API size_t pm_file_min_sample_size(const pm_file *f);

/* ------------------------------------------------------------------ */
/** @name Tracepoint formats from the recording (HEADER_TRACING_DATA)
 *
 * A recording with tracepoint events carries the tracefs format of each
 * recorded event: in file mode the TRACING_DATA feature, in pipe mode a
 * PERF_RECORD_HEADER_TRACING_DATA record.  The reader parses it (versions
 * "0.5" and "0.6": header page, header event, ftrace and event formats with
 * their `ID:` lines, kallsyms, printk formats, saved cmdlines) and names each
 * tracepoint attr `system:event` by matching attr.config with `ID:`.  The
 * machine that reads the file is never asked: a tracepoint that neither the
 * tracing data nor EVENT_DESC / EVENT_UPDATE names is `tracepoint:<id>`.
 * @{ */

/** @brief pm_tp_field::flags bits. */
enum pm_tp_field_flag {
	PM_TP_FIELD_SIGNED = 1 << 0,  /**< `signed:1`. */
	PM_TP_FIELD_ARRAY = 1 << 1,   /**< A fixed array `name[N]` (or a dynamic one). */
	PM_TP_FIELD_DYNAMIC = 1 << 2, /**< `__data_loc`: a u32 (len << 16 | offset) locates the data. */
	PM_TP_FIELD_RELATIVE = 1 << 3,/**< `__rel_loc`: the offset counts from the end of the field. */
	PM_TP_FIELD_STRING = 1 << 4,  /**< A char / u8 / s8 array: shown as a string when printable. */
	PM_TP_FIELD_COMMON = 1 << 5   /**< A `common_*` field (type, flags, preempt count, pid). */
};

/**
 * @brief One field of a tracepoint format.  Size-versioned: set @c sz to
 *        sizeof(struct pm_tp_field) before calling pm_file_tp_field().
 */
struct pm_tp_field {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_tp_field). */
	const char *name;   /**< Field name (without the `[N]`). */
	const char *type;   /**< C type as written (`char`, `pid_t`, `__data_loc char[]`, ...). */
	uint32_t offset;    /**< Byte offset in the RAW payload. */
	uint32_t size;      /**< Bytes at @c offset (4 for a `__data_loc` locator). */
	uint32_t flags;     /**< ::pm_tp_field_flag bits. */
	uint32_t array_len; /**< Elements of a fixed array; 0 otherwise. */
	uint32_t elem_size; /**< Bytes per element (arrays), else @c size. */
	uint32_t reserved;  /**< Zero. */
};
/** Frozen minimum @c sz of struct pm_tp_field (0.1: the members up to @c elem_size); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_TP_FIELD_SZ_V1 PM_OFFSETOFEND(struct pm_tp_field, elem_size)

/** @brief pm_tp_value::kind. */
enum pm_tp_value_kind {
	PM_TP_VALUE_INT = 0,    /**< A signed number in @c i (also in @c u, as a two's complement). */
	PM_TP_VALUE_UINT = 1,   /**< An unsigned number in @c u. */
	PM_TP_VALUE_STRING = 2, /**< Text: @c len bytes at @c data (no NUL included). */
	PM_TP_VALUE_ARRAY = 3   /**< @c nelem numbers of @c elem_size bytes at @c data: pm_tp_value_elem(). */
};

/**
 * @brief A decoded field value (pm_file_tp_value()).  Size-versioned: set
 *        @c sz.  Pointers point into the payload given.
 */
struct pm_tp_value {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_tp_value). */
	int kind;           /**< ::pm_tp_value_kind. */
	int is_signed;      /**< Array elements (and INT values) are signed. */
	int64_t i;          /**< INT value. */
	uint64_t u;         /**< UINT value (INT: the same bits). */
	const void *data;   /**< STRING / ARRAY bytes. */
	size_t len;         /**< STRING length, ARRAY bytes. */
	uint32_t nelem;     /**< ARRAY elements. */
	uint32_t elem_size; /**< ARRAY element size (1, 2, 4 or 8). */
	int big_endian;     /**< Byte order of ARRAY elements. */
};
/** Frozen minimum @c sz of struct pm_tp_value (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_TP_VALUE_SZ_V1 PM_OFFSETOFEND(struct pm_tp_value, big_endian)

/**
 * @brief **pm_file_tracing_info()** tells what the recording's tracing data
 *        says about the recording machine.
 * @param f               the file
 * @param[out] version    tracing data version ("0.5", "0.6"; may be NULL)
 * @param[out] big_endian 1 if the tracing data is big endian (may be NULL)
 * @param[out] long_size  sizeof(long) on the recording machine (may be NULL)
 * @param[out] page_size  its page size (may be NULL)
 * @return 0; -ENOENT when the file has no tracing data (met so far, in pipe
 *         mode); the negative code of the damage when it could not be parsed
 *         (pm_file_tracing_error() names the offset).
 * @since 0.1
 */
PM_API int pm_file_tracing_info(const pm_file *f, const char **version, int *big_endian,
				uint32_t *long_size, uint32_t *page_size);

/**
 * @brief **pm_file_tracing_error()** gives the message of the damage found in
 *        the tracing data (it names the file offset), or NULL.
 * @param f the file
 * @return the message (owned by the file) or NULL.
 * @since 0.1
 */
PM_API const char *pm_file_tracing_error(const pm_file *f);

/**
 * @brief **pm_file_tracing_text()** gives one of the texts of the tracing
 *        data as recorded.
 * @param f         the file
 * @param which     0 header_page, 1 header_event, 2 kallsyms, 3 printk
 *                  formats, 4 saved cmdlines
 * @param[out] len  its length
 * @return the bytes (owned by the file), or NULL when absent.
 * @since 0.1
 */
PM_API const char *pm_file_tracing_text(const pm_file *f, int which, size_t *len);

/**
 * @brief **pm_file_nr_tp_formats()** gives the number of event formats in
 *        the tracing data (ftrace's own first, then each system's).
 * @param f the file
 * @return the count (0 without tracing data).
 * @since 0.1
 */
PM_API size_t pm_file_nr_tp_formats(const pm_file *f);

/**
 * @brief **pm_file_tp_format()** describes event format @p i.
 * @param f              the file
 * @param i              0 .. pm_file_nr_tp_formats() - 1
 * @param[out] id        its `ID:` (attr.config of its events; may be NULL)
 * @param[out] system    its system, e.g. "sched" (may be NULL)
 * @param[out] name      its name, e.g. "sched_switch" (may be NULL)
 * @param[out] nr_fields number of fields, common ones included (may be NULL)
 * @return 0 or -ENOENT past the last one.
 * @since 0.1
 */
PM_API int pm_file_tp_format(const pm_file *f, size_t i, uint64_t *id, const char **system,
			     const char **name, size_t *nr_fields);

/**
 * @brief **pm_file_tp_format_of_attr()** finds the format of attr @p idx (a
 *        PERF_TYPE_TRACEPOINT attr whose config is a format's `ID:`).
 * @param f   the file
 * @param idx attr index
 * @return the format index, or -ENOENT.
 * @since 0.1
 */
PM_API int pm_file_tp_format_of_attr(const pm_file *f, size_t idx);

/**
 * @brief **pm_file_tp_print_fmt()** gives the `print fmt:` text of format @p i.
 * @param f the file
 * @param i format index
 * @return the text (owned by the file), or NULL.
 * @since 0.1
 */
PM_API const char *pm_file_tp_print_fmt(const pm_file *f, size_t i);

/**
 * @brief **pm_file_tp_field()** describes field @p k of format @p i.
 * @param f         the file
 * @param i         format index
 * @param k         0 .. nr_fields - 1, in the order of the format (common fields first)
 * @param[out] out  caller struct with @c sz set; its strings are owned by the file
 * @return 0, -ENOENT past the last one, -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_file_tp_field(const pm_file *f, size_t i, size_t k, struct pm_tp_field *out);

/**
 * @brief **pm_file_tp_value()** decodes field @p k of format @p i from a
 *        tracepoint's RAW payload (pm_sample::raw), as `perf script` gives it
 *        to its scripts: numbers (signed ones sign-extended), strings for
 *        printable char arrays and `__data_loc char[]`, arrays of numbers
 *        otherwise.
 * @param f         the file
 * @param i         format index
 * @param k         field index
 * @param raw       the payload (after its u32 size)
 * @param raw_len   its length
 * @param[out] out  caller struct with @c sz set
 * @return 0; -PM_ERR_TRUNCATED when the field lies past the payload (a
 *         `__data_loc` pointing outside it included); -ENOENT; -EINVAL.
 * @since 0.1
 */
PM_API int pm_file_tp_value(const pm_file *f, size_t i, size_t k, const void *raw, size_t raw_len,
			    struct pm_tp_value *out);

/**
 * @brief **pm_tp_value_elem()** gives element @p n of an ARRAY value.
 * @param v the value
 * @param n 0 .. nelem - 1
 * @return the element (signed ones sign-extended to 64 bits), 0 out of range.
 * @since 0.1
 */
PM_API uint64_t pm_tp_value_elem(const struct pm_tp_value *v, size_t n);

/**
 * @brief **pm_file_tp_format_json()** writes the event's own (not common_*)
 *        fields of a tracepoint sample as one JSON object,
 *        `{"prev_comm":"sh","prev_pid":17560,...}` (the `"tp"` object of
 *        `profileme script --json`).  A field that lies past the payload is
 *        null.
 * @param f       the file
 * @param i       format index (pm_file_tp_format_of_attr())
 * @param raw     the payload
 * @param raw_len its length
 * @param buf     output (NUL-terminated when @p cap > 0)
 * @param cap     its size
 * @return the length the object needs (like snprintf), or a negative code.
 * @since 0.1
 */
PM_API int pm_file_tp_format_json(const pm_file *f, size_t i, const void *raw, size_t raw_len,
				  char *buf, size_t cap);
/** @} */

/**
 * @name Chunks: one file decoded in independent pieces (experimental)
 *
 * A ::pm_chunk_index cuts the data section of a file-mode recording into
 * chunks that can be decoded independently (in threads, processes or on
 * other machines), each through its own ::pm_file opened on the same file
 * and restricted with pm_file_select_chunk().  The chunks tile the data
 * section (chunk k's @c end is chunk k+1's @c start).  In a recording whose
 * samples all carry a time stamp, chunk k hands out exactly the samples with
 * @c time_lo <= time < @c time_hi, in time order: the windows are disjoint
 * and increasing, so decoding every chunk (in any order, anywhere) and
 * concatenating the results in chunk order gives the samples of the whole
 * file in the order pm_file_next() gives them.  To find every sample of its
 * window a chunk reads from @c read_start (before @c start: the records of
 * the previous rounds that are not earlier than @c time_lo) to @c end.
 * Without sample times the chunks are plain byte ranges in file order.
 * Pipe streams and zstd-compressed files (perf record -z: the zstd stream
 * runs through every COMPRESSED record, so no record can be decoded without
 * the ones before it) are one chunk.  docs/file.md has the rules.
 * @{
 */

/** @brief A chunk index of one file (opaque). */
typedef struct pm_chunk_index pm_chunk_index;

/** @brief Options of pm_chunk_index_new_from_file().  Size-versioned: set @c sz. */
struct pm_chunk_index_opts {
	size_t sz;            /**< Set by the caller: sizeof(struct pm_chunk_index_opts). */
	uint64_t chunk_bytes; /**< Target bytes of data per chunk; 0: 64 MiB.  Cuts fall at FINISHED_ROUND
	                           records, or (rounds larger than 1/8 of this) at record boundaries. */
	/** Threads of the scan: 0 or 1 one, N: N pieces of the data scanned at once (each from a
	 *  record boundary it finds and the piece before it confirms; the index is the same for
	 *  every N).  @since 0.1 */
	int threads;
};
/** Frozen minimum @c sz of struct pm_chunk_index_opts. */
#define PM_CHUNK_INDEX_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_chunk_index_opts, chunk_bytes)

/** @brief pm_file_chunk::flags: the chunk hands out the samples of a time window. */
#define PM_CHUNK_TIME_WINDOW 1u
/** @brief pm_file_chunk::flags: the chunk is the whole stream (pipe mode, zstd, mixed times). */
#define PM_CHUNK_WHOLE 2u
/** @brief pm_file_chunk::flags: time_min / time_max are known. */
#define PM_CHUNK_TIME_KNOWN 4u

/** @brief One chunk (pm_chunk_index_get()).  Size-versioned: set @c sz. */
struct pm_file_chunk {
	size_t sz;            /**< Set by the caller: sizeof(struct pm_file_chunk). */
	uint64_t start;       /**< First byte of the data the chunk stands for (file offset). */
	uint64_t end;         /**< End of it (exclusive); the next chunk's start. */
	uint64_t read_start;  /**< Where decoding the chunk starts reading (<= start). */
	uint64_t time_lo;     /**< Samples with time >= time_lo (PM_CHUNK_TIME_WINDOW). */
	uint64_t time_hi;     /**< ... and time < time_hi; UINT64_MAX for the last chunk. */
	uint64_t time_min;    /**< Bounds of the times of the chunk's samples (PM_CHUNK_TIME_KNOWN). */
	uint64_t time_max;    /**< Inclusive upper bound. */
	uint32_t flags;       /**< PM_CHUNK_* bits. */
	uint32_t index;       /**< Position in the index (0 ..). */
	uint64_t data_offset; /**< The file's data offset (checked by pm_file_select_chunk()). */
	uint64_t data_end;    /**< The file's data end (checked by pm_file_select_chunk()). */
};
/** Frozen minimum @c sz of struct pm_file_chunk. */
#define PM_FILE_CHUNK_SZ_V1 PM_OFFSETOFEND(struct pm_file_chunk, data_end)

/**
 * @brief **pm_chunk_index_new_from_file()** scans a recording once (record
 *        headers and time stamps, in file order, with its own reader on
 *        @p f's descriptor; @p f itself is not moved) and cuts it into chunks.
 * @param[out] out the index; free with pm_chunk_index_free()
 * @param f        an open recording (file mode: regular file whose
 *                 descriptor is at offset 0, as pm_file_open() leaves it; a
 *                 pipe stream gives one chunk without scanning)
 * @param opts     options, or NULL
 * @return 0; the reader's error (with its offset) for a damaged file;
 *         -EINVAL, -PM_ERR_STRUCT_SIZE, -ENOMEM.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_chunk_index_new_from_file(pm_chunk_index **out, pm_file *f,
							const struct pm_chunk_index_opts *opts);

/** @brief **pm_chunk_index_free()** releases an index.  NULL-safe. @since 0.1 */
PM_EXPERIMENTAL PM_API void pm_chunk_index_free(pm_chunk_index *idx);

/** @brief **pm_chunk_index_count()**: number of chunks (at least 1). @since 0.1 */
PM_EXPERIMENTAL PM_API size_t pm_chunk_index_count(const pm_chunk_index *idx);

/**
 * @brief **pm_chunk_index_get()** copies chunk @p i out.
 * @return 0; -ENOENT past the end; -EINVAL; -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_chunk_index_get(const pm_chunk_index *idx, size_t i, struct pm_file_chunk *out);

/**
 * @brief **pm_chunk_index_time_range()**: the earliest and the latest sample
 *        time of the file (seen by the scan).
 * @return 0; -ENOENT when the file has no timed samples or was not scanned
 *         (pipe stream, zstd); -EINVAL.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_chunk_index_time_range(const pm_chunk_index *idx, uint64_t *first,
						     uint64_t *last);

/**
 * @brief **pm_file_select_chunk()** restricts a freshly opened recording to
 *        one chunk of its index: pm_file_next() (and every bulk reader over
 *        @p f) then hands out the records of [read_start, end) in time order,
 *        and of the samples only those of the chunk's window.  Call it before
 *        the first record is read.  A PM_CHUNK_WHOLE chunk changes nothing.
 * @return 0; -EINVAL (records already read, the chunk is of another file,
 *         a time window with pm_file_opts::raw_order, a pipe stream).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_file_select_chunk(pm_file *f, const struct pm_file_chunk *chunk);

/**
 * @brief **pm_chunk_index_window()** makes a chunk for any time window:
 *        the samples with @p lo <= time < @p hi, read from the first chunk
 *        of the index whose window meets it to the last one's end (so a
 *        window reads at most the bytes of the chunks it meets).  Given to
 *        pm_file_select_chunk() like a chunk of the index, it hands out
 *        exactly those samples, in time order; windows that tile the time
 *        axis give the whole file's samples, whatever the index's own cuts
 *        (the Dask reader's partitions on time divisions known beforehand).
 * @param idx  an index whose chunks are time windows (every sample timed; not
 *             a pipe stream or a zstd file)
 * @param lo   the window's first time
 * @param hi   its end (exclusive; UINT64_MAX: to the end)
 * @param out  the chunk (set @c sz); @c index is the first chunk it reads
 * @return 0; -EINVAL (NULL, @p lo >= @p hi, chunks that are not time windows);
 *         -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_chunk_index_window(const pm_chunk_index *idx, uint64_t lo, uint64_t hi,
						 struct pm_file_chunk *out);

/**
 * @brief **pm_chunk_index_sideband()**: the state a chunk's symbolization
 *        needs from the rest of the file, kept by the index's one scan:
 *        the file's side records (MMAP, MMAP2, COMM, FORK, EXIT) in the
 *        order a replay takes them, as one self-describing byte string
 *        (a few dozen bytes per record; it names the file's data bounds and
 *        byte order and can be copied to other processes or machines).
 *        pm_sym_resolve_chunk_rows() replays it for the rows of any chunk of the
 *        index instead of a read of the whole file.
 * @param idx   the index
 * @param data  out: the bytes, owned by @p idx (valid until pm_chunk_index_free())
 * @param len   out: their number
 * @return 0; -ENOENT when the index has none (a pipe stream or a
 *         zstd-compressed file: one chunk, which pm_sym_resolve_rows() of the
 *         file symbolizes); -EINVAL.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_chunk_index_sideband(const pm_chunk_index *idx, const void **data,
						   size_t *len);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_FILE_H */
