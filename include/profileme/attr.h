/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/attr.h
 * @brief The perf event attribute in a portable form, and the perf ABI constants.
 *
 * ::pm_attr carries every field of the kernel's `struct perf_event_attr` up to
 * and including `config3` (PERF_ATTR_SIZE_VER8, 136 bytes).  The kernel's
 * one-bit and two-bit flags are kept in one `flags` word with *logical* bit
 * numbers (bit 0 = disabled, ..., bits 15-16 = precise_ip), whatever the host
 * byte order: the kernel's bitfield layout differs between little- and
 * big-endian hosts, and this form does not.  pm_attr_to_bytes() and
 * pm_attr_from_bytes() convert to and from the kernel/perf.data byte layout
 * of either byte order.
 *
 * This header does not include `<linux/perf_event.h>`: the library reads
 * perf.data files on any host.
 */
#ifndef PROFILEME_ATTR_H
#define PROFILEME_ATTR_H

#include <profileme/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name perf_event_attr sizes (PERF_ATTR_SIZE_VER0..VER8)
 *  @{ */
#define PM_ATTR_SIZE_VER0 64
#define PM_ATTR_SIZE_VER1 72
#define PM_ATTR_SIZE_VER2 80
#define PM_ATTR_SIZE_VER3 96
#define PM_ATTR_SIZE_VER4 104
#define PM_ATTR_SIZE_VER5 112
#define PM_ATTR_SIZE_VER6 120
#define PM_ATTR_SIZE_VER7 128
#define PM_ATTR_SIZE_VER8 136
/** The largest attr size this library knows every field of. */
#define PM_ATTR_SIZE_KNOWN PM_ATTR_SIZE_VER8
/** @} */

/** @name attr.type values (PERF_TYPE_*)
 *  @{ */
/** The kernel's PERF_TYPE_* of the same name (one comment for the group). */
#define PM_TYPE_HARDWARE 0
#define PM_TYPE_SOFTWARE 1
#define PM_TYPE_TRACEPOINT 2
#define PM_TYPE_HW_CACHE 3
#define PM_TYPE_RAW 4
#define PM_TYPE_BREAKPOINT 5
/** @} */

/** @name attr.sample_type bits (PERF_SAMPLE_*)
 *  @{ */
#define PM_SAMPLE_IP (1ULL << 0)
#define PM_SAMPLE_TID (1ULL << 1)
#define PM_SAMPLE_TIME (1ULL << 2)
#define PM_SAMPLE_ADDR (1ULL << 3)
#define PM_SAMPLE_READ (1ULL << 4)
#define PM_SAMPLE_CALLCHAIN (1ULL << 5)
#define PM_SAMPLE_ID (1ULL << 6)
#define PM_SAMPLE_CPU (1ULL << 7)
#define PM_SAMPLE_PERIOD (1ULL << 8)
#define PM_SAMPLE_STREAM_ID (1ULL << 9)
#define PM_SAMPLE_RAW (1ULL << 10)
#define PM_SAMPLE_BRANCH_STACK (1ULL << 11)
#define PM_SAMPLE_REGS_USER (1ULL << 12)
#define PM_SAMPLE_STACK_USER (1ULL << 13)
#define PM_SAMPLE_WEIGHT (1ULL << 14)
#define PM_SAMPLE_DATA_SRC (1ULL << 15)
#define PM_SAMPLE_IDENTIFIER (1ULL << 16)
#define PM_SAMPLE_TRANSACTION (1ULL << 17)
#define PM_SAMPLE_REGS_INTR (1ULL << 18)
#define PM_SAMPLE_PHYS_ADDR (1ULL << 19)
#define PM_SAMPLE_AUX (1ULL << 20)
#define PM_SAMPLE_CGROUP (1ULL << 21)
#define PM_SAMPLE_DATA_PAGE_SIZE (1ULL << 22)
#define PM_SAMPLE_CODE_PAGE_SIZE (1ULL << 23)
#define PM_SAMPLE_WEIGHT_STRUCT (1ULL << 24)
/** One past the highest sample_type bit this library knows. */
#define PM_SAMPLE_MAX (1ULL << 25)
/** @} */

/** @name attr.read_format bits (PERF_FORMAT_*)
 *  @{ */
/** The kernel's PERF_FORMAT_* bit of the same name (one comment for the group). */
#define PM_FORMAT_TOTAL_TIME_ENABLED (1ULL << 0)
#define PM_FORMAT_TOTAL_TIME_RUNNING (1ULL << 1)
#define PM_FORMAT_ID (1ULL << 2)
#define PM_FORMAT_GROUP (1ULL << 3)
#define PM_FORMAT_LOST (1ULL << 4)
/** @} */

/** @name Logical bit numbers of pm_attr::flags (the kernel's attr bitfields, in order)
 *  @{ */
/** The kernel's attr bitfield of the same name, at its logical bit (one comment for the group). */
#define PM_ATTR_DISABLED (1ULL << 0)
#define PM_ATTR_INHERIT (1ULL << 1)
#define PM_ATTR_PINNED (1ULL << 2)
#define PM_ATTR_EXCLUSIVE (1ULL << 3)
#define PM_ATTR_EXCLUDE_USER (1ULL << 4)
#define PM_ATTR_EXCLUDE_KERNEL (1ULL << 5)
#define PM_ATTR_EXCLUDE_HV (1ULL << 6)
#define PM_ATTR_EXCLUDE_IDLE (1ULL << 7)
#define PM_ATTR_MMAP (1ULL << 8)
#define PM_ATTR_COMM (1ULL << 9)
#define PM_ATTR_FREQ (1ULL << 10)
#define PM_ATTR_INHERIT_STAT (1ULL << 11)
#define PM_ATTR_ENABLE_ON_EXEC (1ULL << 12)
#define PM_ATTR_TASK (1ULL << 13)
#define PM_ATTR_WATERMARK (1ULL << 14)
#define PM_ATTR_PRECISE_IP_SHIFT 15
#define PM_ATTR_PRECISE_IP_MASK (3ULL << 15)
#define PM_ATTR_MMAP_DATA (1ULL << 17)
#define PM_ATTR_SAMPLE_ID_ALL (1ULL << 18)
#define PM_ATTR_EXCLUDE_HOST (1ULL << 19)
#define PM_ATTR_EXCLUDE_GUEST (1ULL << 20)
#define PM_ATTR_EXCLUDE_CALLCHAIN_KERNEL (1ULL << 21)
#define PM_ATTR_EXCLUDE_CALLCHAIN_USER (1ULL << 22)
#define PM_ATTR_MMAP2 (1ULL << 23)
#define PM_ATTR_COMM_EXEC (1ULL << 24)
#define PM_ATTR_USE_CLOCKID (1ULL << 25)
#define PM_ATTR_CONTEXT_SWITCH (1ULL << 26)
#define PM_ATTR_WRITE_BACKWARD (1ULL << 27)
#define PM_ATTR_NAMESPACES (1ULL << 28)
#define PM_ATTR_KSYMBOL (1ULL << 29)
#define PM_ATTR_BPF_EVENT (1ULL << 30)
#define PM_ATTR_AUX_OUTPUT (1ULL << 31)
#define PM_ATTR_CGROUP (1ULL << 32)
#define PM_ATTR_TEXT_POKE (1ULL << 33)
#define PM_ATTR_BUILD_ID (1ULL << 34)
#define PM_ATTR_INHERIT_THREAD (1ULL << 35)
#define PM_ATTR_REMOVE_ON_EXEC (1ULL << 36)
#define PM_ATTR_SIGTRAP (1ULL << 37)
/** @} */

/** @name branch_sample_type bits used by the record parser
 *  @{ */
/** The kernel's PERF_SAMPLE_BRANCH_* bit of the same name (one comment for the group). */
#define PM_BRANCH_HW_INDEX (1ULL << 17)
#define PM_BRANCH_COUNTERS (1ULL << 19)
/** @} */

/**
 * @brief The perf event attribute, every field up to config3, host byte order.
 *
 * Field order and names follow the kernel's `struct perf_event_attr`.  Where
 * the kernel has a union the first member's name is used and the others are
 * noted.  `size` is the size of the attr *as recorded or as to be passed to
 * the kernel* (PM_ATTR_SIZE_VER*), not sizeof(struct pm_attr).
 */
struct pm_attr {
	uint32_t type;               /**< PM_TYPE_* or a PMU's dynamic type. */
	uint32_t size;               /**< Attr size in bytes (PM_ATTR_SIZE_VER*). */
	uint64_t config;             /**< Event selection, encoded by the PMU's formats. */
	uint64_t sample_period;      /**< Period; or sample_freq when PM_ATTR_FREQ is set. */
	uint64_t sample_type;        /**< PM_SAMPLE_* bits. */
	uint64_t read_format;        /**< PM_FORMAT_* bits. */
	uint64_t flags;              /**< PM_ATTR_* bits (logical numbering, see above). */
	uint32_t wakeup_events;      /**< Or wakeup_watermark when PM_ATTR_WATERMARK. */
	uint32_t bp_type;            /**< Breakpoint type. */
	uint64_t config1;            /**< Or bp_addr, kprobe_func, uprobe_path. */
	uint64_t config2;            /**< Or bp_len, kprobe_addr, probe_offset. */
	uint64_t branch_sample_type; /**< PERF_SAMPLE_BRANCH_* bits. */
	uint64_t sample_regs_user;   /**< Mask of user registers to sample. */
	uint32_t sample_stack_user;  /**< Bytes of user stack to sample. */
	int32_t clockid;             /**< Clock for time stamps when PM_ATTR_USE_CLOCKID. */
	uint64_t sample_regs_intr;   /**< Mask of interrupted registers to sample. */
	uint32_t aux_watermark;      /**< AUX area wakeup watermark. */
	uint16_t sample_max_stack;   /**< Maximum callchain depth. */
	uint16_t reserved_2;         /**< Reserved, zero. */
	uint32_t aux_sample_size;    /**< AUX data to sample. */
	uint32_t reserved_3;         /**< Reserved (aux_action bits in newer kernels). */
	uint64_t sig_data;           /**< User data for SIGTRAP. */
	uint64_t config3;            /**< Extension of config2. */
};

/** @brief precise_ip (0..3) of an attr. */
#define PM_ATTR_PRECISE_IP(a) ((unsigned)(((a)->flags & PM_ATTR_PRECISE_IP_MASK) >> PM_ATTR_PRECISE_IP_SHIFT))

/**
 * @brief **pm_attr_init()** zeroes an attr and sets its size to PM_ATTR_SIZE_KNOWN.
 * @param attr the attr to initialise (not NULL)
 * @since 0.1
 */
PM_API void pm_attr_init(struct pm_attr *attr);

/**
 * @brief **pm_attr_from_bytes()** reads an attr in the kernel byte layout.
 *
 * Reads `min(len, attr size)` bytes; fields beyond the recorded size are 0.
 * A recorded size of 0 is read as PM_ATTR_SIZE_VER0 (as perf does).  Bytes of
 * a larger-than-known attr beyond PM_ATTR_SIZE_KNOWN are ignored (the
 * recorded size stays in `attr->size`).  No alignment is assumed.
 * @param[out] attr    the decoded attr
 * @param buf          the bytes
 * @param len          bytes available at @p buf
 * @param big_endian   1 if the bytes were written by a big-endian machine
 * @return 0, or -PM_ERR_TRUNCATED when @p len is shorter than the recorded
 *         size or than PM_ATTR_SIZE_VER0.
 * @since 0.1
 */
PM_API int pm_attr_from_bytes(struct pm_attr *attr, const void *buf, size_t len, int big_endian);

/**
 * @brief **pm_attr_to_bytes()** writes an attr in the kernel byte layout.
 *
 * Writes `attr->size` bytes (at most PM_ATTR_SIZE_KNOWN; 0 means
 * PM_ATTR_SIZE_KNOWN), bitfields laid out as the kernel lays them out on a
 * machine of the given byte order.
 * @param attr        the attr
 * @param[out] buf    destination
 * @param cap         bytes available at @p buf
 * @param big_endian  1 for the big-endian layout
 * @return the number of bytes written, or -PM_ERR_RANGE if @p cap is too small,
 *         -EINVAL on a bad size.
 * @since 0.1
 */
PM_API int pm_attr_to_bytes(const struct pm_attr *attr, void *buf, size_t cap, int big_endian);

/* ------------------------------------------------------------------------ */
/* Every pm_attr_* function is declared here, whichever module defines it
 * (pm_attr_format()/pm_attr_perf_name(): lib/event, pm_attr_open(): lib/ring). */

/* The PMU list of <profileme/pmu.h> (pm_pmu_list), forward-declared so that
 * this header stays self-contained. */
struct pm_pmu_list;

/**
 * @brief **pm_attr_format()** writes an attr back as a canonical event string.
 *
 * With a PMU of the attr's type in @p pmus the config words are split into
 * that PMU's format fields (`cpu/event=0x3c,umask=0x1/uk`); otherwise
 * generic names, cache names (`LLC-load-misses`), `sys:event` for a
 * tracepoint whose id is in tracefs (found as pm_event_parse() does, from
 * @p pmus' root), `mem:0xADDR/LEN:rwx`, `rNNN`, `pmu/config=..`, or
 * `TYPE:0xCONFIG` for a tracepoint, cache or breakpoint attr with no name.  Modifiers follow the attr's
 * exclude bits and precise_ip.
 * @param attr   the attr
 * @param pmus   optional PMUs for names and formats
 * @param[out] buf destination; always NUL-terminated when @p cap > 0
 * @param cap    bytes at @p buf
 * @return the length of the full string (like snprintf), or a negative error.
 * @since 0.1
 */
PM_API int pm_attr_format(const struct pm_attr *attr, const struct pm_pmu_list *pmus,
			  char *buf, size_t cap);

/**
 * @brief **pm_attr_perf_name()** writes the name perf 6.1 gives an attr when
 *        it has no name for it (perf's evsel__name(): a perf.data file
 *        without EVENT_DESC, `perf evlist` of such a file,
 *        evsel-roundtrip-name).
 *
 * Unlike pm_attr_format() (a string that parses back to the attr), this is
 * the display name perf prints:
 *   - hardware: `cycles`, `instructions`, `cache-references`, `cache-misses`,
 *     `branches`, `branch-misses`, `bus-cycles`, `stalled-cycles-frontend`,
 *     `stalled-cycles-backend`, `ref-cycles`, else `unknown-hardware`; with
 *     a PMU type in config's upper 32 bits (hybrid) `cpu_core/cycles/`;
 *   - software: `cpu-clock` ... `dummy` (perf 6.1's table stops there, so
 *     `bpf-output` is `unknown-software`, as perf 6.1 prints it);
 *   - cache: `L1-dcache-load-misses`, `LLC-loads`, ..., or perf's
 *     `invalid-cache`, `unknown-ext-hardware-cache-type|op|result`;
 *   - raw: `raw 0x1a`; breakpoint: `mem:0x1000:rw`;
 *   - tracepoint: `sys:event` when its id is in the tracefs found from
 *     @p pmus (what perf shows from a file's tracing data), else perf's
 *     `unknown tracepoint`;
 *   - another type: with a PMU of that type in @p pmus, `pmu/field=0x..,/`
 *     (the non-zero format fields in the PMU's format order, bits no field
 *     covers as `configN=0x..`, the modifiers right after the '/'; perf
 *     6.1 itself prints `unknown attr type: N` here), else `unknown attr
 *     type: N`;
 *   - then perf's modifiers: `:` and `k`, `u`, `h` for the contexts not
 *     excluded when any is excluded, `p` per precise_ip, and `H`/`G` for
 *     host/guest not excluded when exclude_host is set or exclude_guest
 *     differs from perf's default (set with u/k/h or p, clear otherwise):
 *     `cycles`, `cycles:u` parsed by perf prints `cycles:uH`, `cycles:pp`
 *     `cycles:ppH`.
 * @param attr   the attr
 * @param pmus   optional PMUs (hybrid and dynamic types, tracefs)
 * @param[out] buf destination; always NUL-terminated when @p cap > 0
 * @param cap    bytes at @p buf
 * @return the length of the full name (like snprintf), or -EINVAL.
 * @since 0.1
 */
PM_API int pm_attr_perf_name(const struct pm_attr *attr, const struct pm_pmu_list *pmus,
			     char *buf, size_t cap);

/**
 * @brief **pm_attr_open()** calls perf_event_open for one attr, close-on-exec.
 *
 * The kernel's bytes are built with pm_attr_to_bytes() in the host byte
 * order.  Failures are explained in pm_errmsg(): EACCES/EPERM names
 * kernel.perf_event_paranoid and its value, ENOENT/ENODEV say the PMU or
 * event is not on this machine, ENOSYS says there is no perf_event_open
 * (e.g. qemu-user), EINVAL on a ProfileMe (precise) event names the rule
 * it most likely broke, E2BIG names the attr size.
 * @param attr      the attr (attr->size 0 means PM_ATTR_SIZE_KNOWN)
 * @param pid       -1 (all processes, needs @p cpu >= 0), 0 (self) or a pid/tid
 * @param cpu       -1 (any) or a CPU number
 * @param group_fd  -1 or the group leader's fd
 * @param flags     extra PERF_FLAG_* bits (FD_CLOEXEC is always added)
 * @return the fd (>= 0) or a negative errno.
 * @since 0.1
 */
PM_API int pm_attr_open(const struct pm_attr *attr, int pid, int cpu, int group_fd,
			unsigned long flags);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_ATTR_H */
