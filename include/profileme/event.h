/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/event.h
 * @brief Perf-style event strings to ::pm_attr, and back.
 *
 * Syntax (perf's): a comma-separated list of events and groups.
 *   - `pmu/term=val,term,.../mods` and `pmu//mods`; a term that is not a format
 *     field names an alias from the PMU's `events/` directory;
 *   - generic names: `cycles`, `instructions`, `cache-references`,
 *     `cache-misses`, `branch-instructions`/`branches`, `branch-misses`,
 *     `bus-cycles`, `stalled-cycles-frontend`, `stalled-cycles-backend`,
 *     `ref-cycles`, `cpu-clock`, `task-clock`, `page-faults`/`faults`,
 *     `context-switches`/`cs`, `cpu-migrations`/`migrations`,
 *     `minor-faults`, `major-faults`, `alignment-faults`,
 *     `emulation-faults`, `dummy`, `bpf-output`; optionally followed by
 *     `/terms/`;
 *   - raw `rNNN` or `r0xNNN` (hex config, PERF_TYPE_RAW);
 *   - hardware cache events `<cache>[-<op>][-<result>]` (PERF_TYPE_HW_CACHE,
 *     config = cache | op << 8 | result << 16) with perf's names: caches
 *     `L1-dcache` (`l1-d`, `l1d`, `L1-data`), `L1-icache` (`l1-i`, `l1i`,
 *     `L1-instruction`), `LLC` (`L2`), `dTLB` (`d-tlb`, `Data-TLB`), `iTLB`
 *     (`i-tlb`, `Instruction-TLB`), `branch` (`bpu`, `btb`, `bpc`), `node`;
 *     ops `load`(s)/`read`, `store`(s)/`write`, `prefetch`(es)/
 *     `speculative-read`/`speculative-load` (default load); results
 *     `refs`/`Reference`/`ops`/`access` (default) and `misses`/`miss`;
 *     names are case-insensitive, and an op a cache lacks is refused
 *     (L1-icache: load and prefetch; iTLB and branch: load).  Generic names
 *     win (`branches`, `branch-misses` are PERF_TYPE_HARDWARE);
 *   - tracepoints `sys:event` (PERF_TYPE_TRACEPOINT, config = the id in
 *     `<tracefs>/events/<sys>/<event>/id`), with sample_period 1
 *     (::PM_EVENT_DEFAULT_PERIOD) and PERF_SAMPLE_RAW, TIME, CPU and PERIOD
 *     in sample_type, as perf sets them.  tracefs is $PROFILEME_TRACEFS when
 *     set, else `<sysfs>/kernel/tracing` or `<sysfs>/kernel/debug/tracing`
 *     with `<sysfs>` the root @p pmus were scanned from (`/sys` when @p pmus
 *     is NULL).  No glob patterns;
 *   - numeric `TYPE:CONFIG` (both decimal or 0x hex);
 *   - breakpoints `mem:ADDR[/LEN][:rwx]` (PERF_TYPE_BREAKPOINT, bp_type from
 *     r/w/x, default rw; bp_addr in config1, bp_len in config2, default 4,
 *     or sizeof(long) for x; sample_period 1);
 *   - groups `{e1,e2}:mods` and named groups `name{e1,e2}`; a group's `D` and
 *     `e` pin or make exclusive its leader only, as perf;
 *   - `intel_pt/.../` starts from perf's default config (tsc; mtc and
 *     mtc_period=3 when caps/mtc; psb_period=3 when caps/psb_cyc; pt;
 *     branch), which the user's terms override;
 *   - inside `pmu/.../`: `event=NAME` names an event of the PMU (perf's
 *     term=alias form), a bare `config`..`config3` is 1, and a bare `rNNN` sets
 *     config, as perf does;
 *   - built-in terms `config=`, `config1=`, `config2=`, `config3=`,
 *     `period=`, `freq=`, `name=`, and perf's per-event config terms
 *     (`call-graph=`, `stack-size=`, `max-stack=`, `time=`, `inherit`, ...:
 *     see pm_event_term_count());
 *   - modifiers `u k h G H I p pp ppp P S D e W b` with perf's meaning.
 *
 * ProfileMe: on a PMU that has a `profileme` format, the `profileme` term
 * sets that bit, and precise sampling (`p`, `P`, precise_ip) selects
 * ProfileMe as well (the kernel treats precise_ip as ProfileMe there; config
 * is left alone).  Such an event must sample (an explicit `period=0` is
 * rejected; with neither period= nor freq= it is flagged
 * ::PM_EVENT_NEEDS_PERIOD: the caller's default period or frequency must
 * apply) and must not share a group with another event of the same PMU.
 * The Alpha driver's rules are checked too (-PM_ERR_PROFILEME with the byte
 * position of the event, the message saying whether ProfileMe came from the
 * profileme term or from precise_ip): config may set only the bits of the
 * PMU's formats (config:0-8), the event code must be one the driver maps
 * (1 cycles, 2 instructions, 3 Bcache misses, 4 Mbox replays), and a
 * hardware event must be cycles, instructions or cache-misses.
 * Generic and raw events belong to the core PMU (`cpu`, or the PMU of type
 * PERF_TYPE_RAW) for these rules.
 *
 * Details that perf 6.1 does differently or leaves open:
 *   - a user term replaces the same term of an alias, wherever it is written
 *     (`cpu/mem-loads,ldlat=0x10/` gives ldlat 0x10; perf 6.1 ORs 3|0x10);
 *   - `config=` (config1..3) sets the whole word first, then each format
 *     field replaces the bits of its own mask;
 *   - a bare term is accepted on one-bit fields only; a modifier letter
 *     other than `p` may be given once;
 *   - `P` sets precise_ip to the PMU's `caps/max_precise` when it has one,
 *     else to 3, and flags the event ::PM_EVENT_PRECISE_MAX.  Probing is the
 *     caller's job on a live system: when opening fails with EOPNOTSUPP or
 *     EINVAL, retry with precise_ip one lower, down to 0;
 *   - group modifiers apply on top of each member's own (`{a:k,b}:u`), as in
 *     perf, while an event's own modifiers replace its defaults; `S` only sets ::PM_EVENT_SAMPLE_READ (the attr is left alone);
 *   - period and freq stay 0 unless the string sets them (no tool defaults).
 *
 * exclude_guest: as perf (outside `perf kvm`), an event without modifiers
 * has exclude_guest set.  perf does this because a profiler on the host
 * usually means the host, and because precise sampling (PEBS) cannot sample a
 * guest: the kernel refuses precise_ip on an event that does not exclude the
 * guest on many CPUs.  An event's own modifiers then start from nothing
 * excluded, as in perf: `u` and `p` set exclude_guest again, `k`, `h`, `I`,
 * `D`, ... leave it clear (`cycles:k` counts the guest's kernel too, as
 * perf's does); `G` means guest only (exclude_host set, exclude_guest clear),
 * `H` host only, `GH` both.  A group's modifiers apply on top of each
 * member's.  A caller who wants guest samples by default passes
 * ::PM_EVENT_OPT_GUEST to pm_event_parse_opts() (perf kvm's behaviour): then
 * exclude_guest is not set by default nor by `u`; `p` still sets it unless
 * `G`/`H` were given, as perf does.
 */
#ifndef PROFILEME_EVENT_H
#define PROFILEME_EVENT_H

#include <profileme/attr.h>
#include <profileme/common.h>
#include <profileme/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A parsed event list (opaque). */
typedef struct pm_event_list pm_event_list;
/** @brief One parsed event, borrowed from its list (opaque). */
typedef struct pm_event pm_event;

/**
 * @brief Where and why a string did not parse.  Size-versioned: set @c sz to
 *        sizeof(struct pm_event_error) before the call.
 */
struct pm_event_error {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_event_error). */
	int code;           /**< The negative error code returned. */
	size_t position;    /**< Byte offset in the event string where the problem is. */
	char message[256];  /**< Readable message, NUL-terminated. */
};
/** Frozen minimum @c sz of struct pm_event_error (0.1: the whole 0.1 struct (message included)); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_EVENT_ERROR_SZ_V1 PM_OFFSETOFEND(struct pm_event_error, message)

/** @brief Bits of pm_event_flags(). */
enum pm_event_flag {
	PM_EVENT_PROFILEME = 1 << 0,    /**< The event samples in ProfileMe mode. */
	PM_EVENT_PRECISE_MAX = 1 << 1,  /**< `P` was given: precise_ip to be probed. */
	PM_EVENT_PERIOD_SET = 1 << 2,   /**< The string set `period=`. */
	PM_EVENT_FREQ_SET = 1 << 3,     /**< The string set `freq=`. */
	PM_EVENT_SAMPLE_READ = 1 << 4,  /**< `S`: sample the group's counts. */
	PM_EVENT_GROUP_LEADER = 1 << 5, /**< Leader of a group of two or more. */
	/** The event type samples every event by default (tracepoints and
	 *  breakpoints: sample_period 1 is in the attr, as perf sets it); a
	 *  tool keeps that unless its user asks for another period.  Cleared
	 *  when the string sets `period=` or `freq=`. @since 0.1 */
	PM_EVENT_DEFAULT_PERIOD = 1 << 6,
	/** `W`: a weak group (a tool reopens its members alone when the group
	 *  cannot be scheduled). @since 0.1 */
	PM_EVENT_WEAK_GROUP = 1 << 7,
	/** A ProfileMe event with neither `period=` nor `freq=`: it samples
	 *  only if the caller gives it a period or frequency (its own default,
	 *  as perf record's -c/-F); opened as it is (sample_period 0) the
	 *  driver refuses it with EINVAL. @since 0.1 */
	PM_EVENT_NEEDS_PERIOD = 1 << 8,
	/** `b`: count with a BPF program (perf stat's bpf_counter); no attr
	 *  bit, a tool that has no BPF counting counts as usual. @since 0.1 */
	PM_EVENT_BPF_COUNTER = 1 << 9
};

/**
 * @brief **pm_event_parse()** parses an event string.
 * @param[out] out  the event list; free with pm_event_list_free()
 * @param pmus      the PMUs to resolve `pmu/.../` and aliases against; may be
 *                  NULL when the string uses only generic names and raw events
 * @param str       the event string
 * @param[out] err  optional; filled on failure (message and byte position)
 * @return 0, or a negative code: -PM_ERR_SYNTAX, -PM_ERR_NO_PMU,
 *         -PM_ERR_UNKNOWN_TERM, -PM_ERR_RANGE, -PM_ERR_PROFILEME, -EINVAL,
 *         -ENOENT (no such tracepoint in tracefs), -PM_ERR_FORMAT (a
 *         tracepoint id file that is not a number),
 *         -PM_ERR_STRUCT_SIZE (bad @p err size), -ENOMEM.
 * @since 0.1
 */
PM_API int pm_event_parse(pm_event_list **out, const pm_pmu_list *pmus, const char *str,
			  struct pm_event_error *err);

/** @brief Bits of pm_event_opts::flags. @since 0.1 */
enum pm_event_opt_flag {
	/** Count and sample guests too: exclude_guest is not set by default (nor
	 *  by `u`), as in `perf kvm`; `p` still sets it (precise sampling needs
	 *  it) unless the string gives `G` or `H`. */
	PM_EVENT_OPT_GUEST = 1 << 0,
	/** A sampling tool's defaults (perf record's): every event whose
	 *  string sets neither `period=` nor `freq=` samples at
	 *  pm_event_opts::sample_period when it is set, else at
	 *  pm_event_opts::sample_freq, else at #PM_DEFAULT_SAMPLE_FREQ Hz;
	 *  events that sample every event by default (tracepoints,
	 *  breakpoints: ::PM_EVENT_DEFAULT_PERIOD) keep period 1 unless
	 *  sample_period is set.  ::PM_EVENT_NEEDS_PERIOD is then cleared.
	 *  Without it the attrs are as the string gives them (a counting
	 *  tool's: sample_period 0). @since 0.1 */
	PM_EVENT_OPT_SAMPLING = 1 << 1
};

/** The default sampling frequency of #PM_EVENT_OPT_SAMPLING, in Hz: perf
 *  record's (its -F default, record_opts.freq). */
#define PM_DEFAULT_SAMPLE_FREQ 4000

/**
 * @brief Options of pm_event_parse_opts().  Size-versioned: set @c sz to
 *        sizeof(struct pm_event_opts); zero the rest for the defaults.
 * @since 0.1
 */
struct pm_event_opts {
	size_t sz;       /**< Set by the caller: sizeof(struct pm_event_opts). */
	unsigned flags;  /**< ::pm_event_opt_flag bits. */
	/** With #PM_EVENT_OPT_SAMPLING: the period of every event whose string
	 *  sets none (perf record -c); 0: sample by frequency. @since 0.1 */
	uint64_t sample_period;
	/** With #PM_EVENT_OPT_SAMPLING and no @c sample_period: the frequency
	 *  in Hz (perf record -F); 0: #PM_DEFAULT_SAMPLE_FREQ. @since 0.1 */
	uint64_t sample_freq;
};
/** Frozen minimum @c sz of struct pm_event_opts (0.1: the members up to @c flags); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_EVENT_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_event_opts, flags)

/**
 * @brief **pm_event_parse_opts()** is pm_event_parse() with options.
 * @param[out] out  the event list; free with pm_event_list_free()
 * @param pmus      as for pm_event_parse()
 * @param str       the event string
 * @param opts      options, or NULL for the defaults (those of pm_event_parse())
 * @param[out] err  optional; filled on failure (message and byte position)
 * @return as pm_event_parse(); -PM_ERR_STRUCT_SIZE for a bad @p opts size,
 *         -EINVAL for unknown flags.
 * @since 0.1
 */
PM_API int pm_event_parse_opts(pm_event_list **out, const pm_pmu_list *pmus, const char *str,
			       const struct pm_event_opts *opts, struct pm_event_error *err);

/** @brief **pm_event_list_free()** releases a list.  NULL-safe. @since 0.1 */
PM_API void pm_event_list_free(pm_event_list *list);

/** @brief **pm_event_list_count()**: number of events. @since 0.1 */
PM_API size_t pm_event_list_count(const pm_event_list *list);

/** @brief **pm_event_list_get()**: the event at @p index, or NULL. @since 0.1 */
PM_API const pm_event *pm_event_list_get(const pm_event_list *list, size_t index);

/**
 * @brief **pm_event_attr()** copies the event's attr.
 * @param ev        the event (pm_event_list_get())
 * @param[out] attr the attr; `attr->size` is the kernel size to open it with
 * @since 0.1
 */
PM_API void pm_event_attr(const pm_event *ev, struct pm_attr *attr);

/** @brief **pm_event_string()**: the event's text as the user wrote it. @since 0.1 */
PM_API const char *pm_event_string(const pm_event *ev);

/** @brief **pm_event_name()**: the `name=` term, else the text as written. @since 0.1 */
PM_API const char *pm_event_name(const pm_event *ev);

/** @brief **pm_event_pmu()**: the PMU the event resolved to, or NULL for generic/raw events. @since 0.1 */
PM_API const pm_pmu *pm_event_pmu(const pm_event *ev);

/** @brief **pm_event_flags()**: ::pm_event_flag bits. @since 0.1 */
PM_API unsigned pm_event_flags(const pm_event *ev);

/**
 * @brief **pm_event_group()**: the index of the event's group leader in the
 *        list (its own index when it is not in a group).
 * @since 0.1
 */
PM_API size_t pm_event_group(const pm_event *ev);

/** @brief Kinds of per-event config terms (pm_event_term::kind). @since 0.1 */
enum pm_event_term_kind {
	PM_ETERM_CALL_GRAPH = 1,   /**< `call-graph=fp|dwarf|lbr|no` (value in @c value) */
	PM_ETERM_STACK_SIZE,       /**< `stack-size=N`: user stack bytes for dwarf */
	PM_ETERM_MAX_STACK,        /**< `max-stack=N` */
	PM_ETERM_TIME,             /**< `time` / `time=0|1` (num) */
	PM_ETERM_INHERIT,          /**< `inherit` (num 1) or `no-inherit` (num 0) */
	PM_ETERM_OVERWRITE,        /**< `overwrite` (num 1) or `no-overwrite` (num 0) */
	PM_ETERM_PERCORE,          /**< `percore`: counts summed per core (a counting tool's) */
	PM_ETERM_AUX_OUTPUT,       /**< `aux-output` */
	PM_ETERM_AUX_SAMPLE_SIZE,  /**< `aux-sample-size=N` */
	PM_ETERM_DRV_CFG,          /**< `driver-config=STR` or `@STR` (an AUX sink) */
	PM_ETERM_METRIC_ID,        /**< `metric-id=STR` */
	PM_ETERM_BRANCH_TYPE       /**< `branch_type=any|u|k|hv|any_call|...` */
};

/**
 * @brief One per-event config term.  Size-versioned: set @c sz to
 *        sizeof(struct pm_event_term) before pm_event_term_get().
 * @since 0.1
 */
struct pm_event_term {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_event_term). */
	int kind;           /**< ::pm_event_term_kind. */
	const char *name;   /**< The term as written (`call-graph`, `no-inherit`, `@`). */
	const char *value;  /**< Its value text, or NULL (borrowed from the event). */
	uint64_t num;       /**< Its numeric value (sizes, 0/1 switches), else 0. */
};
/** Frozen minimum @c sz of struct pm_event_term (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_EVENT_TERM_SZ_V1 PM_OFFSETOFEND(struct pm_event_term, num)

/**
 * @brief **pm_event_term_count()**: the per-event config terms of the event.
 *
 * perf carries these per event instead of encoding them: the parser keeps
 * them, in the order written, and already sets the attr bits perf sets for
 * them (perf record's evsel__apply_config_terms):
 *   - `call-graph=fp`: PERF_SAMPLE_CALLCHAIN; `dwarf`: CALLCHAIN, REGS_USER,
 *     STACK_USER, exclude_callchain_user, sample_regs_user = perf's register
 *     mask of the build architecture (x86_64 0xff0fff, aarch64 0x1ffffffff,
 *     else 0) and sample_stack_user = `stack-size=` or 8192; `lbr`:
 *     CALLCHAIN, BRANCH_STACK, branch_sample_type USER|CALL_STACK|NO_FLAGS|
 *     NO_CYCLES|HW_INDEX; `no`: none of them;
 *   - `max-stack=N`: sample_max_stack = N and CALLCHAIN;
 *   - `time=0|1`: PERF_SAMPLE_TIME cleared / set; `inherit`/`no-inherit`:
 *     the inherit bit; `overwrite`/`no-overwrite`: write_backward;
 *   - `aux-output`: aux_output; `aux-sample-size=N`: aux_sample_size and
 *     PERF_SAMPLE_AUX; `branch_type=NAME`: BRANCH_STACK and that filter bit;
 *   - `percore`, `driver-config`/`@sink`, `metric-id`: no attr bits (a
 *     counting tool, the AUX sink setup and metrics use them).
 * What is left to the caller: perf record's other tool defaults (it also
 * turns on sample addresses for dwarf, and inherit and TIME by default).
 * @since 0.1
 */
PM_API size_t pm_event_term_count(const pm_event *ev);

/**
 * @brief **pm_event_term_get()**: the config term at @p index.
 * @return 0, -EINVAL (no such term, NULL argument), -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_event_term_get(const pm_event *ev, size_t index, struct pm_event_term *out);

/**
 * @brief **pm_event_check_freq()**: can the kernel sample at @p freq Hz?
 *
 * The kernel refuses (EINVAL) a frequency above
 * /proc/sys/kernel/perf_event_max_sample_rate (the maximum it accepts now;
 * it lowers the value itself when sampling interrupts take too long; perf
 * record throttles to it with a warning).  pm_event_parse() checks `freq=`
 * terms with it, and a tool checks its own default (`-F`) the same way.
 * The file read can be replaced by $PROFILEME_MAX_SAMPLE_RATE_FILE (tests).
 * @return 0; -PM_ERR_RANGE (message names the maximum); 0 as well when the
 *         sysctl cannot be read (no limit known).
 * @since 0.1
 */
PM_API int pm_event_check_freq(uint64_t freq);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_EVENT_H */
