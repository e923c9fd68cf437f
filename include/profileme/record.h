/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/record.h
 * @brief The one parser of perf records: header, samples (every
 *        PERF_SAMPLE_* field), every PERF_RECORD_* type, sample_id_all
 *        trailers.
 *
 * Everything here works on a byte span (`const void *`, `size_t`) plus a
 * byte-order flag (`big_endian`: 1 if the bytes were written by a big-endian
 * machine, 0 for little endian).  The parser knows nothing about where the
 * bytes came from (perf.data file, pipe, live ring buffer), never assumes
 * alignment and never reads outside the span: every length is checked, and a
 * corrupt record gives an error code plus the byte offset of the problem
 * (relative to the start of the record).
 *
 * Speed: the sample layout (what follows what, fixed offsets, sizes) is
 * computed once per attr by pm_sample_layout_new(); pm_sample_parse() then
 * only loads values.  Nothing is copied: variable parts (callchain, raw data,
 * branch stack, registers, user stack, AUX data, strings) are pointers into
 * the caller's span, and multi-byte values behind those pointers stay in the
 * recorded byte order; use the helpers (pm_sample_callchain_ip(),
 * pm_sample_branch_entry(), pm_sample_reg(), pm_read_value_get(), ...) to get
 * host values.  The pointers are valid as long as the caller's span is.
 *
 * Error codes (negated):
 * - PM_ERR_TRUNCATED: the span is shorter than the record's header.size (or
 *   than a header); a ring reader may retry with more bytes.
 * - PM_ERR_CORRUPT: a length or count inside the record points past the end
 *   of the record, or header.size is smaller than the header.
 * - PM_ERR_UNSUPPORTED: an attr with sample_type / read_format bits this
 *   library does not know (their layout cannot be known).
 * - PM_ERR_STRUCT_SIZE: a caller struct with a bad `sz`.
 * - EINVAL: a NULL argument that must not be NULL.
 */
#ifndef PROFILEME_RECORD_H
#define PROFILEME_RECORD_H

#include <profileme/common.h>
#include <profileme/attr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Record types (PERF_RECORD_*): kernel types
 *  @{ */
/** The kernel's PERF_RECORD_* type of the same name (one comment for the group). */
#define PM_RECORD_MMAP 1
#define PM_RECORD_LOST 2
#define PM_RECORD_COMM 3
#define PM_RECORD_EXIT 4
#define PM_RECORD_THROTTLE 5
#define PM_RECORD_UNTHROTTLE 6
#define PM_RECORD_FORK 7
#define PM_RECORD_READ 8
#define PM_RECORD_SAMPLE 9
#define PM_RECORD_MMAP2 10
#define PM_RECORD_AUX 11
#define PM_RECORD_ITRACE_START 12
#define PM_RECORD_LOST_SAMPLES 13
#define PM_RECORD_SWITCH 14
#define PM_RECORD_SWITCH_CPU_WIDE 15
#define PM_RECORD_NAMESPACES 16
#define PM_RECORD_KSYMBOL 17
#define PM_RECORD_BPF_EVENT 18
#define PM_RECORD_CGROUP 19
#define PM_RECORD_TEXT_POKE 20
#define PM_RECORD_AUX_OUTPUT_HW_ID 21
#define PM_RECORD_CALLCHAIN_DEFERRED 22
/** @} */

/** @name Record types written by the perf tool (>= PM_RECORD_USER_TYPE_START)
 *  @{ */
#define PM_RECORD_USER_TYPE_START 64
#define PM_RECORD_HEADER_ATTR 64
#define PM_RECORD_HEADER_EVENT_TYPE 65
#define PM_RECORD_HEADER_TRACING_DATA 66
#define PM_RECORD_HEADER_BUILD_ID 67
#define PM_RECORD_FINISHED_ROUND 68
#define PM_RECORD_ID_INDEX 69
#define PM_RECORD_AUXTRACE_INFO 70
#define PM_RECORD_AUXTRACE 71
#define PM_RECORD_AUXTRACE_ERROR 72
#define PM_RECORD_THREAD_MAP 73
#define PM_RECORD_CPU_MAP 74
#define PM_RECORD_STAT_CONFIG 75
#define PM_RECORD_STAT 76
#define PM_RECORD_STAT_ROUND 77
#define PM_RECORD_EVENT_UPDATE 78
#define PM_RECORD_TIME_CONV 79
#define PM_RECORD_HEADER_FEATURE 80
#define PM_RECORD_COMPRESSED 81
#define PM_RECORD_FINISHED_INIT 82
#define PM_RECORD_COMPRESSED2 83
#define PM_RECORD_BPF_METADATA 84     /**< perf 6.16: BPF program metadata (handed out as bytes). */
#define PM_RECORD_SCHEDSTAT_CPU 85    /**< perf 6.16 `perf sched stats` (handed out as bytes). */
#define PM_RECORD_SCHEDSTAT_DOMAIN 86 /**< perf 6.16 `perf sched stats` (handed out as bytes). */
/** @} */

/** @name header.misc bits (PERF_RECORD_MISC_*)
 *  @{ */
#define PM_RECORD_MISC_CPUMODE_MASK 0x7
#define PM_RECORD_MISC_CPUMODE_UNKNOWN 0
#define PM_RECORD_MISC_KERNEL 1
#define PM_RECORD_MISC_USER 2
#define PM_RECORD_MISC_HYPERVISOR 3
#define PM_RECORD_MISC_GUEST_KERNEL 4
#define PM_RECORD_MISC_GUEST_USER 5
#define PM_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT (1 << 12)
#define PM_RECORD_MISC_MMAP_DATA (1 << 13)   /**< MMAP/MMAP2: a data mapping. */
#define PM_RECORD_MISC_COMM_EXEC (1 << 13)   /**< COMM: the comm changed by exec. */
#define PM_RECORD_MISC_FORK_EXEC (1 << 13)   /**< FORK: from exec. */
#define PM_RECORD_MISC_SWITCH_OUT (1 << 13)  /**< SWITCH*: switch out (else in). */
#define PM_RECORD_MISC_EXACT_IP (1 << 14)    /**< SAMPLE: ip is exact. */
#define PM_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14) /**< SWITCH*: preempted. */
#define PM_RECORD_MISC_MMAP_BUILD_ID (1 << 14) /**< MMAP2: build id instead of maj/min/ino. */
#define PM_RECORD_MISC_EXT_RESERVED (1 << 15)
#define PM_RECORD_MISC_BUILD_ID_SIZE (1 << 15) /**< HEADER_BUILD_ID: size byte valid. */
/** @} */

/** @name Callchain context markers (PERF_CONTEXT_*), as u64 entries
 *  @{ */
#define PM_CONTEXT_HV ((uint64_t)-32)
#define PM_CONTEXT_KERNEL ((uint64_t)-128)
#define PM_CONTEXT_USER ((uint64_t)-512)
#define PM_CONTEXT_USER_DEFERRED ((uint64_t)-640)
#define PM_CONTEXT_GUEST ((uint64_t)-2048)
#define PM_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PM_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define PM_CONTEXT_MAX ((uint64_t)-4095)
/** @brief True if callchain entry @p ip is a context marker. */
#define PM_CONTEXT_IS_MARKER(ip) ((uint64_t)(ip) >= PM_CONTEXT_MAX)
/** @} */

/** @name Register ABI of REGS_USER / REGS_INTR (PERF_SAMPLE_REGS_ABI_*)
 *  @{ */
/** The kernel's PERF_SAMPLE_REGS_ABI_* value of the same name (one comment for the group). */
#define PM_REGS_ABI_NONE 0
#define PM_REGS_ABI_32 1
#define PM_REGS_ABI_64 2
/** @} */

/** @name Which register set, for pm_sample_reg()
 *  @{ */
/** PM_REGS_USER: the REGS_USER set; PM_REGS_INTR: the REGS_INTR set. */
#define PM_REGS_USER 0
#define PM_REGS_INTR 1
/** @} */

/** @name Branch types (PERF_BR_*), pm_branch_entry::type
 *  @{ */
/** The kernel's PERF_BR_* type of the same name (one comment for the group). */
#define PM_BR_UNKNOWN 0
#define PM_BR_COND 1
#define PM_BR_UNCOND 2
#define PM_BR_IND 3
#define PM_BR_CALL 4
#define PM_BR_IND_CALL 5
#define PM_BR_RET 6
#define PM_BR_SYSCALL 7
#define PM_BR_SYSRET 8
#define PM_BR_COND_CALL 9
#define PM_BR_COND_RET 10
#define PM_BR_ERET 11
#define PM_BR_IRQ 12
#define PM_BR_SERROR 13
#define PM_BR_NO_TX 14
#define PM_BR_EXTEND_ABI 15
/** @} */

/** @name EVENT_UPDATE types (PERF_EVENT_UPDATE__*)
 *  @{ */
/** perf's PERF_EVENT_UPDATE__* type of the same name (one comment for the group). */
#define PM_EVENT_UPDATE_UNIT 0
#define PM_EVENT_UPDATE_SCALE 1
#define PM_EVENT_UPDATE_NAME 2
#define PM_EVENT_UPDATE_CPUS 3
/** @} */

/** @name CPU_MAP encodings (PERF_CPU_MAP__*)
 *  @{ */
/** perf's PERF_CPU_MAP__* encoding of the same name (one comment for the group). */
#define PM_CPU_MAP_CPUS 0
#define PM_CPU_MAP_MASK 1
#define PM_CPU_MAP_RANGE_CPUS 2
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Sample layout (one per attr)
 *  @{ */

/**
 * @brief Opaque: the layout of PERF_RECORD_SAMPLE and of the sample_id_all
 *        trailer for one attr, computed once.  Immutable after creation, so
 *        it may be shared between threads.
 */
typedef struct pm_sample_layout pm_sample_layout;

/**
 * @brief **pm_sample_layout_new()** computes the sample layout of an attr.
 *
 * Validates the attr's sample_type and read_format (bits this library does
 * not know make the layout unknowable) and precomputes the offsets of the
 * fixed-size leading fields, the read_format entry sizes, the register
 * counts, the branch stack entry size and the sample_id_all trailer.  The
 * attr is copied; it may be freed after the call.
 * @param[out] out  the new layout (NULL on error)
 * @param attr      the attr (from pm_attr_from_bytes() for recorded attrs)
 * @return 0; -EINVAL on a NULL argument; -PM_ERR_UNSUPPORTED for unknown
 *         sample_type bits (>= PM_SAMPLE_MAX) or read_format bits; -ENOMEM.
 * @since 0.1
 */
PM_API int pm_sample_layout_new(pm_sample_layout **out, const struct pm_attr *attr);

/**
 * @brief **pm_sample_layout_free()** releases a layout.
 * @param layout the layout, or NULL (no-op)
 * @since 0.1
 */
PM_API void pm_sample_layout_free(pm_sample_layout *layout);

/**
 * @brief **pm_sample_layout_attr()** gives the layout's copy of its attr.
 * @param layout the layout (not NULL)
 * @return a pointer valid as long as the layout.
 * @since 0.1
 */
PM_API const struct pm_attr *pm_sample_layout_attr(const pm_sample_layout *layout);

/**
 * @brief **pm_sample_layout_id_pos()** gives where the event id sits in a
 *        PERF_RECORD_SAMPLE body, in u64 slots after the header (perf's
 *        id_pos).
 * @param layout the layout (not NULL)
 * @return 0 with PM_SAMPLE_IDENTIFIER; else, with PM_SAMPLE_ID, the number
 *         of IP, TID, TIME, ADDR fields before it; -1 if samples carry no id.
 * @since 0.1
 */
PM_API int pm_sample_layout_id_pos(const pm_sample_layout *layout);

/**
 * @brief **pm_sample_layout_is_pos()** gives where the event id sits in the
 *        sample_id_all trailer of a non-sample record, counted in u64 slots
 *        back from the record's end (perf's is_pos).
 * @param layout the layout (not NULL)
 * @return 1 with PM_SAMPLE_IDENTIFIER; else, with PM_SAMPLE_ID,
 *         1 + [CPU] + [STREAM_ID]; -1 if there is no id.  (Meaningful only
 *         when the attr has PM_ATTR_SAMPLE_ID_ALL.)
 * @since 0.1
 */
PM_API int pm_sample_layout_is_pos(const pm_sample_layout *layout);

/**
 * @brief **pm_sample_layout_trailer_size()** gives the size in bytes of the
 *        sample_id_all trailer of non-sample records of this attr.
 * @param layout the layout (not NULL)
 * @return 0 if the attr does not set PM_ATTR_SAMPLE_ID_ALL.
 * @since 0.1
 */
PM_API size_t pm_sample_layout_trailer_size(const pm_sample_layout *layout);

/**
 * @brief **pm_sample_layout_fixed_size()** gives the number of bytes (after
 *        the 8-byte header) that every sample of this attr has at least.
 * @param layout the layout (not NULL)
 * @return the minimum body size.
 * @since 0.1
 */
PM_API size_t pm_sample_layout_fixed_size(const pm_sample_layout *layout);

/**
 * @brief **pm_sample_layout_min_size()** gives the size of the smallest
 *        PERF_RECORD_SAMPLE of this layout, header included: the 8-byte
 *        header and pm_sample_layout_fixed_size(), rounded up to 8 (the
 *        kernel pads every record to 8 bytes).  A bulk reader divides a
 *        data size by it to bound the number of samples.
 * @param layout the layout
 * @return bytes (>= 8); 0 if @p layout is NULL.
 * @since 0.1
 */
PM_API size_t pm_sample_layout_min_size(const pm_sample_layout *layout);

/** @} */

/* ------------------------------------------------------------------------ */
/** @name Record header
 *  @{ */

/**
 * @brief The 8-byte header of every perf record, in host byte order.
 *
 * This mirrors a fixed kernel ABI and so carries no size field.
 */
struct pm_record_header {
	uint32_t type; /**< PM_RECORD_*. */
	uint16_t misc; /**< PM_RECORD_MISC_* bits. */
	uint16_t size; /**< Size of the whole record, header included. */
};

/**
 * @brief **pm_record_header_parse()** decodes a record header.
 *
 * Does not require the whole record to be in the span (a ring reader uses
 * the size to know how much to copy).
 * @param[out] out    the header
 * @param buf         the record's first bytes (any alignment)
 * @param len         bytes available at @p buf
 * @param big_endian  1 if the bytes are big-endian
 * @return 0; -EINVAL on NULL; -PM_ERR_TRUNCATED if @p len < 8;
 *         -PM_ERR_CORRUPT if header.size < 8.
 * @since 0.1
 */
PM_API int pm_record_header_parse(struct pm_record_header *out, const void *buf, size_t len,
				  int big_endian);

/**
 * @brief **pm_record_type_name()** names a record type.
 * @param type a PM_RECORD_* value
 * @return "MMAP", "SAMPLE", "FINISHED_ROUND", ... (perf's names without the
 *         PERF_RECORD_ prefix), or "UNKNOWN" for a type this library does not
 *         know.  Static string.
 * @since 0.1
 */
PM_API const char *pm_record_type_name(uint32_t type);

/**
 * @brief **pm_record_peek_id()** extracts the event id of a record, to find
 *        its attr among several (uses id_pos for samples, is_pos for other
 *        kernel records).  The layout only needs the same id_pos/is_pos as the
 *        record's real attr (perf requires all attrs of a file to agree).
 * @param layout      a layout of the file/ring (not NULL)
 * @param rec         the whole record
 * @param len         bytes available at @p rec
 * @param big_endian  byte order of the bytes
 * @param[out] id     the id
 * @return 0; -ENOENT if the record carries no id (no ID/IDENTIFIER, a
 *         non-sample record without sample_id_all, or a perf-tool record);
 *         -PM_ERR_TRUNCATED / -PM_ERR_CORRUPT on bad sizes.
 * @since 0.1
 */
PM_API int pm_record_peek_id(const pm_sample_layout *layout, const void *rec, size_t len,
			     int big_endian, uint64_t *id);

/**
 * @brief **pm_record_peek_time()** extracts the time of a record without
 *        parsing it (PERF_SAMPLE_TIME of a sample; the sample_id trailer's
 *        time of another kernel record), as a time-ordering queue needs it.
 * @param layout      the layout of the record's attr (not NULL)
 * @param rec         the whole record
 * @param len         bytes available at @p rec
 * @param big_endian  byte order of the bytes
 * @param[out] time   the time
 * @return 0; -ENOENT if the record carries no time (the attr has no
 *         PERF_SAMPLE_TIME, a non-sample record without sample_id_all, or a
 *         perf-tool record); -PM_ERR_TRUNCATED / -PM_ERR_CORRUPT on bad sizes.
 * @since 0.1
 */
PM_API int pm_record_peek_time(const pm_sample_layout *layout, const void *rec, size_t len,
			       int big_endian, uint64_t *time);

/** @} */

/* ------------------------------------------------------------------------ */
/** @name Samples
 *  @{ */

/**
 * @brief read_format values (PERF_SAMPLE_READ in a sample, or a READ record).
 *
 * Without PM_FORMAT_GROUP there is one value (`nr` = 1).  Get each with
 * pm_read_value_get().
 */
struct pm_read {
	uint64_t format;       /**< The attr's read_format (PM_FORMAT_*). */
	uint64_t nr;           /**< Number of values (group members; 1 without GROUP). */
	uint64_t time_enabled; /**< With PM_FORMAT_TOTAL_TIME_ENABLED, else 0. */
	uint64_t time_running; /**< With PM_FORMAT_TOTAL_TIME_RUNNING, else 0. */
	const uint8_t *data;   /**< Start of the read_format bytes in the record. */
	uint32_t size;         /**< Bytes of read_format data at @p data. */
	int32_t big_endian;    /**< Byte order of @p data. */
};

/** @brief One read_format value (see pm_read_value_get()). */
struct pm_read_value {
	size_t sz;      /**< Set by the caller: sizeof(struct pm_read_value). */
	uint64_t value; /**< The counter value. */
	uint64_t id;    /**< With PM_FORMAT_ID, else 0. */
	uint64_t lost;  /**< With PM_FORMAT_LOST, else 0. */
};
/** Frozen minimum @c sz of struct pm_read_value (0.1: the members up to @c value); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_READ_VALUE_SZ_V1 PM_OFFSETOFEND(struct pm_read_value, value)

/** @brief PERF_SAMPLE_CALLCHAIN: `nr` u64 entries at `ips` (recorded byte order). */
struct pm_callchain {
	uint64_t nr;        /**< Number of entries, context markers included. */
	const uint8_t *ips; /**< nr u64 values; use pm_sample_callchain_ip(). */
};

/** @brief PERF_SAMPLE_RAW: payload (layout defined by the PMU/tracepoint). */
struct pm_raw {
	uint32_t size;       /**< Bytes at @p data (may include padding). */
	const uint8_t *data; /**< The payload. */
};

/** @brief PERF_SAMPLE_BRANCH_STACK. */
struct pm_branch_stack {
	uint64_t nr;              /**< Number of entries. */
	uint64_t hw_idx;          /**< With PM_BRANCH_HW_INDEX in branch_sample_type. */
	int32_t has_hw_idx;       /**< 1 if @p hw_idx was recorded. */
	int32_t has_counters;     /**< 1 if @p counters was recorded (PM_BRANCH_COUNTERS). */
	const uint8_t *entries;   /**< nr entries of 24 bytes {from, to, flags}. */
	const uint8_t *counters;  /**< nr u64 counters, or NULL. */
};

/** @brief One decoded branch entry (see pm_sample_branch_entry()). */
struct pm_branch_entry {
	size_t sz;         /**< Set by the caller: sizeof(struct pm_branch_entry). */
	uint64_t from;     /**< Branch source. */
	uint64_t to;       /**< Branch target. */
	uint64_t flags;    /**< The flags word as recorded (in host order, bits not reinterpreted). */
	uint8_t mispred;   /**< Mispredicted. */
	uint8_t predicted; /**< Predicted. */
	uint8_t in_tx;     /**< In a transaction. */
	uint8_t abort;     /**< Transaction abort. */
	uint16_t cycles;   /**< Cycles since the previous branch (0: unknown). */
	uint8_t type;      /**< PM_BR_*. */
	uint8_t spec;      /**< Speculation outcome (PERF_BR_SPEC_*). */
	uint8_t new_type;  /**< Extended type when type == PM_BR_EXTEND_ABI. */
	uint8_t priv;      /**< Privilege level (PERF_BR_PRIV_*). */
	uint64_t counter;  /**< With PM_BRANCH_COUNTERS, else 0. */
};
/** Frozen minimum @c sz of struct pm_branch_entry (0.1: the members up to @c flags); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_BRANCH_ENTRY_SZ_V1 PM_OFFSETOFEND(struct pm_branch_entry, flags)

/** @brief PERF_SAMPLE_REGS_USER / PERF_SAMPLE_REGS_INTR. */
struct pm_regs {
	uint64_t abi;         /**< PM_REGS_ABI_*; NONE means no registers follow. */
	uint64_t mask;        /**< The attr's register mask (bit n = register n). */
	uint32_t nr;          /**< Registers recorded (popcount(mask), or 0 with ABI_NONE). */
	const uint8_t *regs;  /**< nr u64 values in mask-bit order, or NULL. */
};

/** @brief PERF_SAMPLE_STACK_USER. */
struct pm_stack_user {
	uint64_t size;        /**< Bytes reserved; 0 means nothing else was recorded. */
	const uint8_t *data;  /**< @p size bytes (only dyn_size are valid), or NULL. */
	uint64_t dyn_size;    /**< Bytes actually copied (0 when size is 0). */
};

/** @brief PERF_SAMPLE_AUX. */
struct pm_aux_sample {
	uint64_t size;        /**< Bytes at @p data. */
	const uint8_t *data;  /**< The AUX snapshot, or NULL. */
};

/**
 * @brief A decoded PERF_RECORD_SAMPLE.
 *
 * `present` has the PM_SAMPLE_* bit of every field that was recorded
 * (PM_SAMPLE_IDENTIFIER and PM_SAMPLE_ID both fill `id`).  Fields not present
 * are 0 / NULL.  Members are in the order the kernel writes them.
 */
struct pm_sample {
	size_t sz;             /**< Set by the caller: sizeof(struct pm_sample). */
	uint64_t present;      /**< PM_SAMPLE_* bits of the fields recorded. */
	uint16_t misc;         /**< header.misc (cpumode, EXACT_IP). */
	uint16_t size;         /**< header.size. */
	int32_t big_endian;    /**< Byte order of the record (for the helpers). */
	uint64_t id;           /**< IDENTIFIER or ID. */
	uint64_t ip;           /**< IP. */
	uint32_t pid;          /**< TID: process id. */
	uint32_t tid;          /**< TID: thread id. */
	uint64_t time;         /**< TIME. */
	uint64_t addr;         /**< ADDR. */
	uint64_t stream_id;    /**< STREAM_ID. */
	uint32_t cpu;          /**< CPU. */
	uint32_t cpu_res;      /**< CPU: the reserved word after cpu. */
	uint64_t period;       /**< PERIOD. */
	struct pm_read read;   /**< READ. */
	struct pm_callchain callchain;    /**< CALLCHAIN. */
	struct pm_raw raw;                /**< RAW. */
	struct pm_branch_stack branch_stack; /**< BRANCH_STACK. */
	struct pm_regs regs_user;         /**< REGS_USER. */
	struct pm_stack_user stack_user;  /**< STACK_USER. */
	uint64_t weight;       /**< WEIGHT or WEIGHT_STRUCT: the full u64. */
	uint32_t weight_var1_dw; /**< WEIGHT_STRUCT: low 32 bits (e.g. latency). */
	uint16_t weight_var2_w;  /**< WEIGHT_STRUCT: bits 32-47. */
	uint16_t weight_var3_w;  /**< WEIGHT_STRUCT: bits 48-63. */
	uint64_t data_src;     /**< DATA_SRC (decode with pm_data_src_decode()). */
	uint64_t transaction;  /**< TRANSACTION. */
	struct pm_regs regs_intr;         /**< REGS_INTR. */
	uint64_t phys_addr;    /**< PHYS_ADDR. */
	uint64_t cgroup;       /**< CGROUP (cgroup id). */
	uint64_t data_page_size; /**< DATA_PAGE_SIZE. */
	uint64_t code_page_size; /**< CODE_PAGE_SIZE. */
	struct pm_aux_sample aux; /**< AUX (last in the record). */
};
/** Frozen minimum @c sz of struct pm_sample (0.1: the members up to @c period); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_SAMPLE_SZ_V1 PM_OFFSETOFEND(struct pm_sample, period)

/**
 * @brief **pm_sample_parse()** decodes a whole PERF_RECORD_SAMPLE.
 *
 * @param[out] out     the sample; `out->sz` set by the caller (at least
 *                     #PM_SAMPLE_SZ_V1); nothing past it is written
 * @param layout       the layout of the record's attr
 * @param rec          the record, header included (any alignment)
 * @param len          bytes available at @p rec (may be more than the record)
 * @param big_endian   byte order of the bytes
 * @param[out] err_off on error, the offset in the record of the problem
 *                     (may be NULL)
 * @return 0; -EINVAL on NULL or a non-SAMPLE record; -PM_ERR_STRUCT_SIZE;
 *         -PM_ERR_TRUNCATED if @p len < header.size (err_off = @p len);
 *         -PM_ERR_CORRUPT if a field runs past header.size (err_off = the
 *         offset of the field whose length or count does not fit, never more
 *         than header.size), or if header.size is longer than the fields
 *         of @p layout (err_off = the first unaccounted byte): a SAMPLE is
 *         exactly its fields, so this means @p layout is not the record's
 *         attr's (for a live ring use pm_evlist_attr() after open, not the
 *         attr passed to pm_evlist_add()).  On error the contents of @p out (but not its
 *         sz) are unspecified.
 * @since 0.1
 */
PM_API int pm_sample_parse(struct pm_sample *out, const pm_sample_layout *layout, const void *rec,
			   size_t len, int big_endian, size_t *err_off);

/**
 * @brief **pm_read_value_get()** gets value @p i of a read_format block.
 * @param r        the block (pm_sample::read or pm_record_read::values)
 * @param i        index, < r->nr
 * @param[out] out the value; `out->sz` set by the caller
 * @return 0; -EINVAL on NULL; -ERANGE if @p i >= nr; -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_read_value_get(const struct pm_read *r, uint64_t i, struct pm_read_value *out);

/**
 * @brief **pm_sample_read_value()** gets value @p i of a sample's READ block
 *        (same as pm_read_value_get(&s->read, i, out)).
 * @param s        the sample
 * @param i        index, < s->read.nr
 * @param[out] out the value; `out->sz` set by the caller
 * @return as pm_read_value_get(); -ENOENT if the sample has no READ.
 * @since 0.1
 */
PM_API int pm_sample_read_value(const struct pm_sample *s, uint64_t i, struct pm_read_value *out);

/**
 * @brief **pm_sample_callchain_ip()** gets callchain entry @p i in host order.
 * @param s        the sample
 * @param i        index, < s->callchain.nr
 * @param[out] ip  the entry (may be a PM_CONTEXT_* marker)
 * @return 0; -EINVAL on NULL; -ERANGE if out of range.
 * @since 0.1
 */
PM_API int pm_sample_callchain_ip(const struct pm_sample *s, uint64_t i, uint64_t *ip);

/**
 * @brief **pm_sample_branch_entry()** decodes branch stack entry @p i,
 *        flag bitfields included (in the bit order of the recording machine).
 * @param s        the sample
 * @param i        index, < s->branch_stack.nr
 * @param[out] out the entry; `out->sz` set by the caller
 * @return 0; -EINVAL on NULL; -ERANGE; -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_sample_branch_entry(const struct pm_sample *s, uint64_t i,
				  struct pm_branch_entry *out);

/**
 * @brief **pm_sample_reg()** gets a sampled register value.
 * @param s        the sample
 * @param which    PM_REGS_USER or PM_REGS_INTR
 * @param i        index into the recorded registers, < regs.nr (the k-th
 *                 set bit of the mask)
 * @param[out] val the value
 * @return 0; -EINVAL; -ERANGE if out of range (or ABI_NONE).
 * @since 0.1
 */
PM_API int pm_sample_reg(const struct pm_sample *s, int which, uint32_t i, uint64_t *val);

/**
 * @brief **pm_sample_reg_by_num()** gets a sampled register by its
 *        register number (its bit in sample_regs_user / sample_regs_intr).
 * @param s        the sample
 * @param which    PM_REGS_USER or PM_REGS_INTR
 * @param regnum   register number, 0..63
 * @param[out] val the value
 * @return 0; -EINVAL; -ENOENT if that register was not recorded.
 * @since 0.1
 */
PM_API int pm_sample_reg_by_num(const struct pm_sample *s, int which, unsigned regnum,
				uint64_t *val);

/** @brief PERF_SAMPLE_DATA_SRC fields (see pm_data_src_decode()). */
struct pm_data_src {
	size_t sz;         /**< Set by the caller: sizeof(struct pm_data_src). */
	uint32_t mem_op;   /**< PERF_MEM_OP_* bits (5 bits). */
	uint32_t mem_lvl;  /**< PERF_MEM_LVL_* bits (14 bits). */
	uint32_t snoop;    /**< PERF_MEM_SNOOP_* bits (5 bits). */
	uint32_t lock;     /**< PERF_MEM_LOCK_* (2 bits). */
	uint32_t dtlb;     /**< PERF_MEM_TLB_* bits (7 bits). */
	uint32_t lvl_num;  /**< PERF_MEM_LVLNUM_* (4 bits). */
	uint32_t remote;   /**< Remote (1 bit). */
	uint32_t snoopx;   /**< PERF_MEM_SNOOPX_* (2 bits). */
	uint32_t blk;      /**< PERF_MEM_BLK_* (3 bits). */
	uint32_t hops;     /**< PERF_MEM_HOPS_* (3 bits). */
};
/** Frozen minimum @c sz of struct pm_data_src (0.1: the members up to @c mem_op); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_DATA_SRC_SZ_V1 PM_OFFSETOFEND(struct pm_data_src, mem_op)

/**
 * @brief **pm_data_src_decode()** splits a data_src value (pm_sample::data_src,
 *        already in host order) into its fields.
 * @param data_src the value
 * @param[out] out the fields; `out->sz` set by the caller
 * @return 0; -EINVAL on NULL; -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_data_src_decode(uint64_t data_src, struct pm_data_src *out);

/** @} */

/* ------------------------------------------------------------------------ */
/** @name Non-sample records
 *  @{ */

/** @brief The sample_id_all trailer of a non-sample record. */
struct pm_sample_id {
	uint64_t present;    /**< PM_SAMPLE_TID/TIME/ID/STREAM_ID/CPU/IDENTIFIER bits found. */
	uint32_t pid;        /**< TID. */
	uint32_t tid;        /**< TID. */
	uint64_t time;       /**< TIME. */
	uint64_t id;         /**< ID or IDENTIFIER. */
	uint64_t stream_id;  /**< STREAM_ID. */
	uint32_t cpu;        /**< CPU. */
	uint32_t cpu_res;    /**< CPU: reserved word. */
};

/** @brief MMAP and MMAP2. */
struct pm_record_mmap {
	uint32_t pid, tid;
	uint64_t addr;          /**< Start address. */
	uint64_t len;           /**< Length. */
	uint64_t pgoff;         /**< File offset. */
	uint32_t maj, min;      /**< MMAP2 without build id: device. */
	uint64_t ino, ino_generation; /**< MMAP2 without build id. */
	uint32_t has_build_id;  /**< MMAP2 with PM_RECORD_MISC_MMAP_BUILD_ID. */
	uint32_t build_id_size; /**< Bytes of @p build_id that are valid (<= 20). */
	const uint8_t *build_id;/**< 20 bytes, or NULL. */
	uint32_t prot, flags;   /**< MMAP2: PROT_*, MAP_*. */
	const char *filename;   /**< Not necessarily NUL-terminated: use filename_len. */
	uint32_t filename_len;  /**< Length up to the first NUL or the end of the field. */
};

/** @brief COMM. */
struct pm_record_comm {
	uint32_t pid, tid;
	const char *comm;       /**< Not necessarily NUL-terminated: use comm_len. */
	uint32_t comm_len;
};

/** @brief FORK and EXIT. */
struct pm_record_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/** @brief LOST (id, lost) and LOST_SAMPLES (lost). */
struct pm_record_lost {
	uint64_t id;
	uint64_t lost;
};

/** @brief THROTTLE and UNTHROTTLE. */
struct pm_record_throttle {
	uint64_t time, id, stream_id;
};

/** @brief READ (needs a layout for the read_format). */
struct pm_record_read {
	uint32_t pid, tid;
	struct pm_read values;  /**< nr = 0 when parsed without a layout. */
};

/** @brief AUX. */
struct pm_record_aux {
	uint64_t aux_offset, aux_size, flags;
};

/** @brief ITRACE_START. */
struct pm_record_itrace_start {
	uint32_t pid, tid;
};

/** @brief SWITCH (nothing but misc) and SWITCH_CPU_WIDE. */
struct pm_record_switch {
	uint32_t next_prev_pid, next_prev_tid; /**< SWITCH_CPU_WIDE only. */
	uint32_t out;                          /**< 1 for a switch out (misc bit). */
	uint32_t preempt;                      /**< 1 if switched out preempted. */
};

/** @brief NAMESPACES: nr {dev, inode} pairs (use pm_record_namespace()). */
struct pm_record_namespaces {
	uint32_t pid, tid;
	uint64_t nr;
	const uint8_t *entries; /**< nr * 16 bytes. */
};

/** @brief KSYMBOL. */
struct pm_record_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;
	uint16_t flags;         /**< bit 0: unregister. */
	const char *name;       /**< Not necessarily NUL-terminated. */
	uint32_t name_len;
};

/** @brief BPF_EVENT. */
struct pm_record_bpf_event {
	uint16_t type, flags;
	uint32_t id;
	const uint8_t *tag;     /**< 8 bytes. */
};

/** @brief CGROUP. */
struct pm_record_cgroup {
	uint64_t id;
	const char *path;       /**< Not necessarily NUL-terminated. */
	uint32_t path_len;
};

/** @brief TEXT_POKE. */
struct pm_record_text_poke {
	uint64_t addr;
	uint16_t old_len, new_len;
	const uint8_t *old_bytes; /**< old_len bytes. */
	const uint8_t *new_bytes; /**< new_len bytes (right after old_bytes). */
};

/** @brief AUX_OUTPUT_HW_ID. */
struct pm_record_aux_output_hw_id {
	uint64_t hw_id;
};

/** @brief CALLCHAIN_DEFERRED. */
struct pm_record_callchain_deferred {
	uint64_t cookie;
	struct pm_callchain callchain;
};

/** @brief HEADER_ATTR: an attr and its ids. */
struct pm_record_header_attr {
	struct pm_attr attr;       /**< Decoded with pm_attr_from_bytes(). */
	const uint8_t *attr_bytes; /**< The attr as recorded. */
	uint32_t attr_size;        /**< Its recorded size. */
	uint64_t nr_ids;
	const uint8_t *ids;        /**< nr_ids u64 (use pm_record_u64()). */
};

/** @brief HEADER_EVENT_TYPE (deprecated). */
struct pm_record_event_type {
	uint64_t event_id;
	const char *name;
	uint32_t name_len;
};

/** @brief HEADER_TRACING_DATA: the data (size bytes) FOLLOWS the record. */
struct pm_record_tracing_data {
	uint32_t size;
};

/** @brief HEADER_BUILD_ID. */
struct pm_record_build_id {
	int32_t pid;
	const uint8_t *build_id;   /**< 20 bytes. */
	uint32_t build_id_size;    /**< From the record with MISC_BUILD_ID_SIZE, else 20. */
	const char *filename;
	uint32_t filename_len;
};

/** @brief ID_INDEX (use pm_record_id_index_entry()). */
struct pm_record_id_index {
	uint64_t nr;
	const uint8_t *entries;    /**< nr * 32 bytes {id, idx, cpu, tid}. */
	const uint8_t *entries2;   /**< nr * 16 bytes {machine_pid, vcpu}, or NULL. */
};

/** @brief One ID_INDEX entry. */
struct pm_id_index_entry {
	size_t sz;                 /**< Set by the caller. */
	uint64_t id, idx, cpu, tid;
	uint64_t machine_pid, vcpu; /**< 0 when the record has no second table. */
};
/** Frozen minimum @c sz of struct pm_id_index_entry (0.1: the members up to @c id); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_ID_INDEX_ENTRY_SZ_V1 PM_OFFSETOFEND(struct pm_id_index_entry, id)

/** @brief AUXTRACE_INFO. */
struct pm_record_auxtrace_info {
	uint32_t type;
	uint64_t nr_priv;
	const uint8_t *priv;       /**< nr_priv u64. */
};

/** @brief AUXTRACE: the trace data (size bytes) FOLLOWS the record. */
struct pm_record_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
};

/** @brief AUXTRACE_ERROR. */
struct pm_record_auxtrace_error {
	uint32_t type, code, cpu, pid, tid, fmt;
	uint64_t ip, time;         /**< time valid when fmt >= 1. */
	const char *msg;
	uint32_t msg_len;
	uint32_t machine_pid, vcpu; /**< When the record is long enough (fmt >= 2), else 0. */
};

/** @brief THREAD_MAP (use pm_record_thread_map_entry()). */
struct pm_record_thread_map {
	uint64_t nr;
	const uint8_t *entries;    /**< nr * 24 bytes {u64 pid; char comm[16]}. */
};

/**
 * @brief CPU_MAP, and the CPUS payload of EVENT_UPDATE.
 *
 * type CPUS: `nr` u16 cpu numbers at `data`; MASK: `nr` words of
 * `long_size` (4 or 8) bytes at `data`; RANGE_CPUS: start_cpu..end_cpu
 * (plus -1 if any_cpu).  Use pm_cpu_map_has().
 */
struct pm_cpu_map {
	uint16_t type;
	uint16_t nr;
	uint16_t long_size;
	uint8_t any_cpu;
	uint8_t pad_;              /**< Reserved. */
	uint16_t start_cpu, end_cpu;
	const uint8_t *data;
	int32_t big_endian;
};

/** @brief STAT_CONFIG: nr {tag, val} (use pm_record_u64(entries, 2*i [+1])). */
struct pm_record_stat_config {
	uint64_t nr;
	const uint8_t *entries;
};

/** @brief STAT. */
struct pm_record_stat {
	uint64_t id;
	uint32_t cpu, thread;
	uint64_t val, ena, run;
};

/** @brief STAT_ROUND. */
struct pm_record_stat_round {
	uint64_t type, time;
};

/** @brief EVENT_UPDATE. */
struct pm_record_event_update {
	uint64_t type;             /**< PM_EVENT_UPDATE_*. */
	uint64_t id;
	const uint8_t *data;       /**< Payload (unit/name string, scale, cpus). */
	uint32_t data_size;
	double scale;              /**< PM_EVENT_UPDATE_SCALE. */
	const char *str;           /**< UNIT / NAME: the string (not necessarily NUL-terminated). */
	uint32_t str_len;
	struct pm_cpu_map cpus;    /**< PM_EVENT_UPDATE_CPUS. */
};

/** @brief TIME_CONV. */
struct pm_record_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	uint64_t time_cycles, time_mask; /**< When has_ext. */
	uint8_t cap_user_time_zero, cap_user_time_short; /**< When has_ext. */
	uint8_t has_ext;           /**< 1 if the record has the fields after time_zero. */
	uint8_t pad_;              /**< Reserved. */
};

/** @brief HEADER_FEATURE. */
struct pm_record_feature {
	uint64_t feat_id;
	const uint8_t *data;
	uint64_t size;
};

/** @brief COMPRESSED / COMPRESSED2: zstd data. */
struct pm_record_compressed {
	const uint8_t *data;
	uint64_t size;             /**< Bytes of compressed data. */
};

/**
 * @brief A decoded record of any type.
 *
 * One named member per record family; only the member for `header.type` is
 * filled (the others are zero).  `known` is 0 for a type this library does
 * not decode: then only the header, `bytes` and `body` are set (never an
 * error).  For PM_RECORD_SAMPLE (known = 1) only header/bytes/body are set:
 * decode it with pm_sample_parse().
 */
struct pm_record {
	size_t sz;                     /**< Set by the caller: sizeof(struct pm_record). */
	struct pm_record_header header;
	int32_t big_endian;            /**< Byte order (for helpers). */
	int32_t known;                 /**< 1 if this library knows the type (see above). */
	const uint8_t *bytes;          /**< The whole record (header.size bytes). */
	const uint8_t *body;           /**< After the header, up to the trailer. */
	uint32_t body_size;            /**< Bytes at @p body. */
	struct pm_sample_id sample_id; /**< sample_id_all trailer (present 0 if none). */
	struct pm_record_mmap mmap;                 /**< MMAP, MMAP2. */
	struct pm_record_lost lost;                 /**< LOST, LOST_SAMPLES. */
	struct pm_record_comm comm;                 /**< COMM. */
	struct pm_record_task task;                 /**< FORK, EXIT. */
	struct pm_record_throttle throttle;         /**< THROTTLE, UNTHROTTLE. */
	struct pm_record_read read;                 /**< READ. */
	struct pm_record_aux aux;                   /**< AUX. */
	struct pm_record_itrace_start itrace_start; /**< ITRACE_START. */
	struct pm_record_switch switch_;            /**< SWITCH, SWITCH_CPU_WIDE. */
	struct pm_record_namespaces namespaces;     /**< NAMESPACES. */
	struct pm_record_ksymbol ksymbol;           /**< KSYMBOL. */
	struct pm_record_bpf_event bpf_event;       /**< BPF_EVENT. */
	struct pm_record_cgroup cgroup;             /**< CGROUP. */
	struct pm_record_text_poke text_poke;       /**< TEXT_POKE. */
	struct pm_record_aux_output_hw_id aux_output_hw_id; /**< AUX_OUTPUT_HW_ID. */
	struct pm_record_callchain_deferred callchain_deferred; /**< CALLCHAIN_DEFERRED. */
	struct pm_record_header_attr attr;          /**< HEADER_ATTR. */
	struct pm_record_event_type event_type;     /**< HEADER_EVENT_TYPE. */
	struct pm_record_tracing_data tracing_data; /**< HEADER_TRACING_DATA. */
	struct pm_record_build_id build_id;         /**< HEADER_BUILD_ID. */
	struct pm_record_id_index id_index;         /**< ID_INDEX. */
	struct pm_record_auxtrace_info auxtrace_info; /**< AUXTRACE_INFO. */
	struct pm_record_auxtrace auxtrace;         /**< AUXTRACE. */
	struct pm_record_auxtrace_error auxtrace_error; /**< AUXTRACE_ERROR. */
	struct pm_record_thread_map thread_map;     /**< THREAD_MAP. */
	struct pm_cpu_map cpu_map;                  /**< CPU_MAP. */
	struct pm_record_stat_config stat_config;   /**< STAT_CONFIG. */
	struct pm_record_stat stat;                 /**< STAT. */
	struct pm_record_stat_round stat_round;     /**< STAT_ROUND. */
	struct pm_record_event_update event_update; /**< EVENT_UPDATE. */
	struct pm_record_time_conv time_conv;       /**< TIME_CONV. */
	struct pm_record_feature feature;           /**< HEADER_FEATURE. */
	struct pm_record_compressed compressed;     /**< COMPRESSED, COMPRESSED2. */
};
/** Frozen minimum @c sz of struct pm_record (0.1: the members up to @c body_size); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_RECORD_SZ_V1 PM_OFFSETOFEND(struct pm_record, body_size)

/**
 * @brief **pm_record_parse()** decodes any record.
 *
 * Kernel records (types < 64) carry a sample_id_all trailer when the
 * layout's attr has PM_ATTR_SAMPLE_ID_ALL; it is parsed into `sample_id`
 * and excluded from the body.  Strings are bounded by the record.
 * @param[out] out     the record; `out->sz` set by the caller (at least
 *                     #PM_RECORD_SZ_V1)
 * @param layout       layout of the record's attr (trailer, READ format), or
 *                     NULL: no trailer is parsed and READ values are not decoded
 * @param rec          the record, header included (any alignment)
 * @param len          bytes available at @p rec (may exceed the record)
 * @param big_endian   byte order
 * @param[out] err_off on error, the offset in the record of the problem (may be NULL)
 * @return 0 (also for unknown types, with known = 0); -EINVAL on NULL;
 *         -PM_ERR_STRUCT_SIZE; -PM_ERR_TRUNCATED if @p len < header.size;
 *         -PM_ERR_CORRUPT if a field runs past the record.
 * @since 0.1
 */
PM_API int pm_record_parse(struct pm_record *out, const pm_sample_layout *layout, const void *rec,
			   size_t len, int big_endian, size_t *err_off);

/**
 * @brief **pm_record_u64()** loads u64 number @p i of an array inside a
 *        record (ids, priv, stat config...) in host order.  Bounds are the
 *        caller's (use the nr fields).
 * @param p          array start (a pointer from a pm_record/pm_sample)
 * @param i          index
 * @param big_endian byte order
 * @return the value.
 * @since 0.1
 */
PM_API uint64_t pm_record_u64(const uint8_t *p, uint64_t i, int big_endian);

/**
 * @brief **pm_record_id_index_entry()** gets ID_INDEX entry @p i.
 * @param r        a parsed ID_INDEX record
 * @param i        index, < r->id_index.nr
 * @param[out] out the entry; `out->sz` set by the caller
 * @return 0; -EINVAL (NULL or not ID_INDEX); -ERANGE; -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_record_id_index_entry(const struct pm_record *r, uint64_t i,
				    struct pm_id_index_entry *out);

/**
 * @brief **pm_record_thread_map_entry()** gets THREAD_MAP entry @p i.
 * @param r          a parsed THREAD_MAP record
 * @param i          index, < r->thread_map.nr
 * @param[out] pid   the pid
 * @param[out] comm  buffer of at least 17 bytes, receives the NUL-terminated comm (may be NULL)
 * @return 0; -EINVAL; -ERANGE.
 * @since 0.1
 */
PM_API int pm_record_thread_map_entry(const struct pm_record *r, uint64_t i, uint64_t *pid,
				      char *comm);

/**
 * @brief **pm_record_namespace()** gets NAMESPACES entry @p i.
 * @param r          a parsed NAMESPACES record
 * @param i          index, < r->namespaces.nr
 * @param[out] dev   device
 * @param[out] inode inode
 * @return 0; -EINVAL; -ERANGE.
 * @since 0.1
 */
PM_API int pm_record_namespace(const struct pm_record *r, uint64_t i, uint64_t *dev,
			       uint64_t *inode);

/**
 * @brief **pm_cpu_map_has()** tells whether a CPU_MAP contains @p cpu.
 * @param m    the map (pm_record::cpu_map or event_update.cpus)
 * @param cpu  the cpu number (-1 for "any cpu")
 * @return 1 if present, 0 if not, -EINVAL on NULL or an unknown encoding.
 * @since 0.1
 */
PM_API int pm_cpu_map_has(const struct pm_cpu_map *m, int32_t cpu);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_RECORD_H */
