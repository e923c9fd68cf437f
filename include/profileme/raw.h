/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/raw.h
 * @brief Versioned decoders for PERF_SAMPLE_RAW payloads: Alpha ProfileMe,
 *        AMD IBS fetch and IBS op.
 *
 * Two ways in:
 *
 * - **Typed, ProfileMe only**: pm_profileme_decode() fills a
 *   ::pm_profileme_sample from a payload.
 * - **Generic, every decoder**: a ::pm_raw_decoder (found by name with
 *   pm_raw_decoder_find(), or chosen for a sample's attr with
 *   pm_raw_ctx_select()) describes its fields in a table
 *   (pm_raw_field_count(), pm_raw_field_name(), pm_raw_field_kind()), and
 *   pm_raw_decode() / pm_raw_decode_row() fill caller arrays in that order.
 *   pm_raw_format_json() and pm_raw_format_text() print a decoded payload.
 *
 * Payloads are read byte by byte: no alignment is assumed (in a sample
 * record they start 4 bytes past an 8-byte boundary) and the host byte order
 * does not matter.  A ProfileMe payload is little endian by definition,
 * whatever the byte order of the recording around it; an IBS payload is in
 * the recording's byte order (pm_raw_ctx_set_big_endian()).
 *
 * Versioning: a payload newer than this library decodes its known prefix and
 * exposes the appended bytes (`extra`); a payload version that cannot be read
 * is an error, never a guess.  Structs that cross the ABI start with
 * `size_t sz`, set by the caller; the library never writes past it.
 *
 * The decoder objects are static and immutable; every function here is
 * thread-safe except for writes to one ::pm_raw_ctx.
 */
#ifndef PROFILEME_RAW_H
#define PROFILEME_RAW_H

#include <profileme/common.h>
#include <profileme/attr.h>
#include <profileme/file.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/** @name Alpha ProfileMe
 *  @{ */

/** Size of a version 1 ProfileMe payload: u32 version, u64 pmpc, i_stat, pctr_ctl (packed, LE). */
#define PM_PROFILEME_V1_SIZE 28
/** The newest payload version this library decodes in full. */
#define PM_PROFILEME_VERSION 1
/** attr.config bit that selects ProfileMe on the Alpha `cpu` PMU (format `profileme` = config:8). */
#define PM_PROFILEME_CONFIG_BIT (1ULL << 8)

/** @brief Mode of the profiled instruction, from PMPC (codes of pm_profileme_sample::mode). */
enum pm_profileme_mode {
	PM_PROFILEME_MODE_USER = 0,   /**< "user": PMPC bit 63 clear, not PALmode. */
	PM_PROFILEME_MODE_KERNEL = 1, /**< "kernel": PMPC bit 63 set, not PALmode. */
	PM_PROFILEME_MODE_PAL = 2,    /**< "PAL": PMPC bit 0 set (a PALcode physical address). */
	PM_PROFILEME_MODE_COUNT = 3   /**< Number of codes. */
};

/** @brief What happened to the profiled instruction (codes of pm_profileme_sample::trap). */
enum pm_profileme_trap {
	PM_PROFILEME_TRAP_NONE = 0,             /**< "none": not trapped, or mispredicted. */
	PM_PROFILEME_TRAP_REPLAY = 1,           /**< "replay" (TRAP_TYPE 0). */
	PM_PROFILEME_TRAP_DTB_DOUBLE_3 = 2,     /**< "DTB double miss (3 level)" (TRAP_TYPE 2). */
	PM_PROFILEME_TRAP_DTB_DOUBLE_4 = 3,     /**< "DTB double miss (4 level)" (TRAP_TYPE 3). */
	PM_PROFILEME_TRAP_FP_DISABLED = 4,      /**< "FP disabled" (TRAP_TYPE 4). */
	PM_PROFILEME_TRAP_UNALIGNED = 5,        /**< "unaligned" (TRAP_TYPE 5). */
	PM_PROFILEME_TRAP_DTB_SINGLE = 6,       /**< "DTB single miss" (TRAP_TYPE 6). */
	PM_PROFILEME_TRAP_DSTREAM_FAULT = 7,    /**< "Dstream fault" (TRAP_TYPE 7). */
	PM_PROFILEME_TRAP_OPCDEC = 8,           /**< "OPCDEC" (TRAP_TYPE 8). */
	PM_PROFILEME_TRAP_MACHINE_CHECK = 9,    /**< "machine check" (TRAP_TYPE 10). */
	PM_PROFILEME_TRAP_ARITHMETIC = 10,      /**< "arithmetic" (TRAP_TYPE 12). */
	PM_PROFILEME_TRAP_MT_FPCR = 11,         /**< "MT_FPCR" (TRAP_TYPE 14). */
	PM_PROFILEME_TRAP_RESET = 12,           /**< "reset" (TRAP_TYPE 15). */
	PM_PROFILEME_TRAP_OTHER = 13,           /**< "other (see PMPC)" (TRAP_TYPE 1, 9, 11, 13). */
	PM_PROFILEME_TRAP_ISTREAM_ACV = 14,     /**< "Istream access violation" (PALmode PMPC entry 0x481). */
	PM_PROFILEME_TRAP_ITB_MISS = 15,        /**< "ITB miss" (PALmode PMPC entry 0x581). */
	PM_PROFILEME_TRAP_INTERRUPT = 16,       /**< "interrupt" (PALmode PMPC entry 0x681). */
	PM_PROFILEME_TRAP_COUNT = 17            /**< Number of codes. */
};

/** @brief What a ProfileMe counter counted (codes of pctr0_counts / pctr1_counts). */
enum pm_profileme_counts {
	PM_PROFILEME_COUNTS_CYCLES = 0,        /**< "cycles" */
	PM_PROFILEME_COUNTS_INSTRUCTIONS = 1,  /**< "instructions" */
	PM_PROFILEME_COUNTS_RETIRE_DELAY = 2,  /**< "retire delay" */
	PM_PROFILEME_COUNTS_BCACHE_MISSES = 3, /**< "bcache misses" */
	PM_PROFILEME_COUNTS_MBOX_REPLAYS = 4,  /**< "mbox replays" */
	PM_PROFILEME_COUNTS_COUNT = 5          /**< Number of codes. */
};

/**
 * @brief A decoded Alpha ProfileMe payload (the kernel's
 *        `struct alpha_profileme_sample` plus every field of its registers).
 *
 * Set `sz = sizeof(struct pm_profileme_sample)` before decoding.  Field names
 * are the same in C, JSON and Python.
 *
 * Counting note: when PCTR0 counts instructions (`pctr0_counts` ==
 * PM_PROFILEME_COUNTS_INSTRUCTIONS), up to 7 instructions are counted after
 * the overflow and before the window opens; `ovr` is that overcount, which a
 * consumer summing PCTR0 subtracts.  (The Alpha kernel driver already
 * subtracts it from the event count.)  In ProfileMe mode PCTR0 counts valid
 * fetched instructions: the wrong path, squashed NOPs and both halves of
 * each CMOV (about twice the Aggregate-mode count).
 *
 * Stale fields: the raw `trp`, `mis` and `trap_type` are stale for a killed
 * instruction (KILLED set); read the derived `trapped`, `mispredicted` and
 * `trap` instead, which apply that rule.
 */
struct pm_profileme_sample {
	size_t sz;            /**< Set by the caller: sizeof(struct pm_profileme_sample). */
	uint32_t version;     /**< Payload version (1, or newer). */
	uint64_t pmpc;        /**< PMPC register: the profiled instruction's PC (bit 0 = PALmode). */
	uint64_t i_stat;      /**< I_STAT register (bits 40:30 meaningful). */
	uint64_t pctr_ctl;    /**< PCTR_CTL register (bits 47:0 meaningful). */
	/* I_STAT fields */
	uint32_t ovr;         /**< I_STAT 32:30: PCTR0 instruction overcount (subtract it). */
	uint32_t icm;         /**< I_STAT 33: Icache miss. */
	uint32_t trap_type;   /**< I_STAT 37:34: TRAP_TYPE code, raw: stale for a killed instruction (use `trap`). */
	uint32_t lso;         /**< I_STAT 38: load/store order trap. */
	uint32_t trp;         /**< I_STAT 39: TRP, raw: stale for a killed instruction (use `trapped`). */
	uint32_t mis;         /**< I_STAT 40: MIS, raw: stale for a killed instruction (use `mispredicted`). */
	/* PCTR_CTL fields */
	uint32_t tak;         /**< PCTR_CTL 0: branch taken. */
	uint32_t val;         /**< PCTR_CTL 1: valid. */
	uint32_t sl1;         /**< PCTR_CTL 3:2: SL1, selects what the counters count. */
	uint32_t sl0;         /**< PCTR_CTL 4: SL0 (1 = ProfileMe mode). */
	uint32_t pctr1;       /**< PCTR_CTL 25:6: PCTR1 (counts pctr1_counts during the window). */
	uint32_t killed;      /**< PCTR_CTL 26: instruction killed. */
	uint32_t stalled;     /**< PCTR_CTL 27: instruction stalled. */
	uint32_t pctr0;       /**< PCTR_CTL 47:28: PCTR0. */
	/* PMPC fields */
	uint32_t pal;         /**< PMPC 0: PALmode address. */
	uint64_t pc;          /**< PMPC with bits 1:0 cleared. */
	int mode;             /**< ::pm_profileme_mode code. */
	/* derived */
	int trapped;          /**< trp && !killed (TRP is stale for a killed instruction). */
	int trap;             /**< ::pm_profileme_trap code. */
	int mispredicted;     /**< trapped && mis. */
	int pctr0_counts;     /**< ::pm_profileme_counts: cycles when sl1 is odd, else instructions. */
	int pctr1_counts;     /**< ::pm_profileme_counts by sl1: cycles, retire delay, bcache misses, mbox replays. */
	/* newer payloads */
	const uint8_t *extra; /**< Bytes past the v1 fields in a newer payload (points into the payload), or NULL. */
	size_t extra_len;     /**< Length of @c extra. */
};
/** Frozen minimum @c sz of struct pm_profileme_sample (0.1: the members up to @c pmpc); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_PROFILEME_SAMPLE_SZ_V1 PM_OFFSETOFEND(struct pm_profileme_sample, pmpc)

/**
 * @brief **pm_profileme_decode()** decodes an Alpha ProfileMe payload.
 *
 * The payload is read as little endian at any alignment.  Version 1 is
 * decoded in full; a newer version decodes the v1 fields and points
 * `extra`/`extra_len` at the bytes that follow them.
 * @param payload     the PERF_SAMPLE_RAW data (not its u32 size)
 * @param len         bytes at @p payload
 * @param[out] out    the decoded sample; `out->sz` set by the caller.  Never
 *                    written past `out->sz`; on error it is left unchanged.
 * @return 0; -PM_ERR_NOT_PROFILEME when the payload is shorter than
 *         PM_PROFILEME_V1_SIZE or its version is 0 (pm_errmsg() says
 *         which); -EINVAL when @p payload or @p out is NULL;
 *         -PM_ERR_STRUCT_SIZE when `out->sz` is below
 *         #PM_PROFILEME_SAMPLE_SZ_V1, absurd, or larger with a non-zero tail.
 * @since 0.1
 */
PM_API int pm_profileme_decode(const void *payload, size_t len, struct pm_profileme_sample *out);

/**
 * @brief **pm_profileme_ips()** gives both instruction pointers of a sample.
 *
 * The sample's `ip` is where the kernel attributed it: the profiled PC, or,
 * for a PALmode PMPC (a physical PALcode address) and for a user PMPC
 * sampled in a kernel thread, the interrupted PC.  The profiled PC is `pc`.
 * A profile may want either (the "skid IP" idea); where to charge a sample,
 * and whether the two are comparable, is pm_profileme_attribute()'s rule.
 * @param s          a decoded sample
 * @param sample_ip  the sample's PERF_SAMPLE_IP value
 * @param[out] pc    the profiled PC (PMPC with bits 1:0 cleared); may be NULL
 * @param[out] ip    the sample IP, as given; may be NULL
 * @return 1 when the two differ, 0 when they are the same, -EINVAL if @p s is NULL.
 * @since 0.1
 */
PM_API int pm_profileme_ips(const struct pm_profileme_sample *s, uint64_t sample_ip, uint64_t *pc,
			    uint64_t *ip);

/**
 * @brief **pm_profileme_trap_name()** names a ::pm_profileme_trap code.
 * @return the name (for example "ITB miss"), or NULL for a code out of range.
 * @since 0.1
 */
PM_API const char *pm_profileme_trap_name(int code);

/**
 * @brief **pm_profileme_mode_name()** names a ::pm_profileme_mode code ("user", "kernel", "PAL").
 * @return the name, or NULL for a code out of range.
 * @since 0.1
 */
PM_API const char *pm_profileme_mode_name(int code);

/**
 * @brief **pm_profileme_counts_name()** names a ::pm_profileme_counts code ("cycles", ...).
 * @return the name, or NULL for a code out of range.
 * @since 0.1
 */
PM_API const char *pm_profileme_counts_name(int code);

/**
 * @brief **pm_profileme_event_map()** says, as the Alpha driver decides it,
 *        whether an attr samples in ProfileMe mode, which event code it
 *        programs, and what PCTR0 and PCTR1 then count.
 *
 * The driver (EV67 and later) maps raw event codes 1..4 only: 1 cycles
 * (PCTR0 cycles, PCTR1 the inum retire delay: SL1 1), 2 instructions
 * (instructions / cycles: SL1 0), 3 Bcache misses (instructions / Bcache
 * misses: SL1 2), 4 Mbox replays (cycles / Mbox replay traps: SL1 3); a raw
 * config with bits other than 0-8 set is rejected.  Generic hardware events
 * map cycles → 1, instructions → 2, cache-misses → 3; the others are
 * unsupported.  ProfileMe is selected by config bit 8 (a PERF_TYPE_RAW attr,
 * the `cpu` PMU's type on Alpha) or by precise_ip > 0 (raw or hardware), so
 * perf's default `cycles:P` is ProfileMe on cycles, event code 1.  Whether
 * the event samples (the driver also requires that) is not checked here.
 * @param attr                the attr
 * @param[out] event          the event code 1..4; may be NULL
 * @param[out] pctr0_counts   ::pm_profileme_counts of PCTR0; may be NULL
 * @param[out] pctr1_counts   ::pm_profileme_counts of PCTR1; may be NULL
 * @return 1 for a ProfileMe event the driver accepts; 0 when the attr does
 *         not select ProfileMe (type other than raw/hardware, or neither the
 *         bit nor precise_ip); -PM_ERR_PROFILEME when it selects ProfileMe
 *         but the driver would reject it (pm_errmsg() says which rule:
 *         config bits outside 0-8, an unmapped event code, an unsupported
 *         hardware event); -EINVAL for a NULL attr.
 * @since 0.1
 */
PM_API int pm_profileme_event_map(const struct pm_attr *attr, int *event, int *pctr0_counts,
				  int *pctr1_counts);

/**
 * @brief Where a ProfileMe sample is charged (pm_profileme_attribution::charge).
 *
 * The Alpha kernel driver writes the PMPC as the sample's ip, except in two
 * cases where it keeps the interrupted PC: a PALmode PMPC (a physical
 * PALcode address that perf cannot resolve), and a user PMPC sampled in a
 * kernel thread (which has no user frame).  For the PAL redirect entries
 * (0x481, 0x581, 0x681) the interrupted PC is the instruction that trapped.
 */
enum pm_profileme_charge {
	PM_PROFILEME_CHARGE_PC = 0,       /**< "pc": the profiled PC (PMPC), which the kernel also wrote as the ip. */
	PM_PROFILEME_CHARGE_REDIRECT = 1, /**< "redirect": PALmode PMPC at a redirect entry: the sample ip, the instruction that trapped (`trap` names the redirect). */
	PM_PROFILEME_CHARGE_PALCODE = 2,  /**< "PALcode": any other PALmode PMPC (inside PALcode): `[PALcode]` at `pc`, a physical address. */
	PM_PROFILEME_CHARGE_IP = 3,       /**< "ip": a user PMPC with a kernel sample ip (sampled in a kernel thread): the sample ip, as the kernel charged it. */
	PM_PROFILEME_CHARGE_COUNT = 4     /**< Number of codes. */
};

/**
 * @brief Where to charge one ProfileMe sample, and whether its two IPs can
 *        be compared (filled by pm_profileme_attribute()).
 *
 * Set `sz = sizeof(struct pm_profileme_attribution)` before the call.
 */
struct pm_profileme_attribution {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_profileme_attribution). */
	uint64_t addr;      /**< The address to charge (a virtual address, except for PM_PROFILEME_CHARGE_PALCODE: the PALcode physical address `pc`). */
	int mode;           /**< ::pm_profileme_mode of @c addr: PAL for PM_PROFILEME_CHARGE_PALCODE, else kernel when bit 63 of @c addr is set, else user. */
	int charge;         /**< ::pm_profileme_charge: which rule chose @c addr. */
	int trap;           /**< ::pm_profileme_trap of the sample (for a redirect, the redirect's name: "ITB miss", ...). */
	int skid_valid;     /**< 1 when the profiled pc and the sample ip are virtual addresses of the same address space (neither PALmode, both user or both kernel), so that their distance means something. */
	int64_t skid;       /**< ip - pc in bytes when @c skid_valid, else 0.  With the Alpha driver it is 0: the kernel writes the PMPC as the ip. */
	uint64_t pc;        /**< The profiled PC (PMPC with bits 1:0 cleared). */
	uint64_t ip;        /**< The sample ip, as given. */
};
/** Frozen minimum @c sz of struct pm_profileme_attribution (0.1: the members up to
 *  @c addr); accepted by every later release.  See PM_OFFSETOFEND(). */
#define PM_PROFILEME_ATTRIBUTION_SZ_V1 PM_OFFSETOFEND(struct pm_profileme_attribution, addr)

/**
 * @brief **pm_profileme_attribute()** applies the kernel's attribution rule
 *        to one decoded sample: the address a profile charges it to, that
 *        address's mode, and whether a skid distance is meaningful.
 *
 * - PMPC not PALmode, and not (PMPC user and ip kernel): the profiled pc
 *   (PM_PROFILEME_CHARGE_PC).
 * - PMPC user, ip kernel and different: the ip (PM_PROFILEME_CHARGE_IP; the
 *   kernel's "user PMPC in a kernel thread" case).
 * - PALmode PMPC at entry 0x481, 0x581 or 0x681 (PMPC & 0x7fff): the ip, the
 *   trapping instruction (PM_PROFILEME_CHARGE_REDIRECT).
 * - Any other PALmode PMPC: the PALcode address `pc`, mode PAL
 *   (PM_PROFILEME_CHARGE_PALCODE); a profile shows it as `[PALcode]`.
 *
 * The distance between a PALcode physical address and a virtual PC is not
 * skid: `skid_valid` is 0 for every PALmode sample and for the kernel-thread
 * case.  `report`, `annotate` and the Python `hotspots()` use this rule.
 * @param s          a decoded sample (pm_profileme_decode())
 * @param sample_ip  the sample's PERF_SAMPLE_IP value
 * @param[out] out   the attribution; `out->sz` set by the caller, never written past it
 * @return 0; -EINVAL for a NULL argument; -PM_ERR_STRUCT_SIZE when `s->sz`
 *         does not reach `pctr_ctl` or `out->sz` is too small.
 * @since 0.1
 */
PM_API int pm_profileme_attribute(const struct pm_profileme_sample *s, uint64_t sample_ip,
				  struct pm_profileme_attribution *out);

/**
 * @brief **pm_profileme_charge_name()** names a ::pm_profileme_charge code
 *        ("pc", "redirect", "PALcode", "ip").
 * @return the name, or NULL for a code out of range.
 * @since 0.1
 */
PM_API const char *pm_profileme_charge_name(int code);

/** @} */

/* ------------------------------------------------------------------------ */
/** @name Decoder registry and generic access
 *  @{ */

/** @brief A raw payload decoder (static, immutable; never freed). */
typedef struct pm_raw_decoder pm_raw_decoder;
/** @brief What a recording says about its machine, for choosing and running decoders (opaque). */
typedef struct pm_raw_ctx pm_raw_ctx;

/** @brief How a decoded field is represented (pm_raw_field_kind()). */
enum pm_raw_kind {
	PM_RAW_KIND_U64 = 0,   /**< An unsigned number (JSON number). */
	PM_RAW_KIND_BOOL = 1,  /**< 0 or 1 (JSON true/false). */
	PM_RAW_KIND_HEX = 2,   /**< A register or address (JSON "0x..." string). */
	PM_RAW_KIND_CODE = 3,  /**< A small integer code with a name (JSON string of the name). */
	PM_RAW_KIND_BYTES = 4  /**< Bytes (u = length; JSON hex string).  */
};

/** @brief Field flags (pm_raw_field_flags()). */
enum pm_raw_field_flag {
	PM_RAW_FIELD_REGISTER = 1 /**< A whole register; the fields after it (up to the next register) are its parts. */
};

/**
 * @brief One decoded field, as filled by pm_raw_decode().
 */
struct pm_raw_value {
	size_t sz;           /**< Set by the caller: sizeof(struct pm_raw_value). */
	uint64_t u;          /**< The value (BOOL 0/1, CODE the code, BYTES the length). */
	const char *str;     /**< CODE: the code's name; else NULL.  Static storage. */
	const uint8_t *bytes;/**< BYTES: the bytes (inside the payload); else NULL. */
	int present;         /**< 1 if the field is present; 0 if the hardware marked it invalid, or the payload lacks it. */
	int kind;            /**< ::pm_raw_kind of the field. */
};
/** Frozen minimum @c sz of struct pm_raw_value (0.1: the members up to @c u); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_RAW_VALUE_SZ_V1 PM_OFFSETOFEND(struct pm_raw_value, u)

/** @brief **pm_raw_decoder_count()**: number of registered decoders. @since 0.1 */
PM_API size_t pm_raw_decoder_count(void);

/** @brief **pm_raw_decoder_get()**: decoder number @p i, or NULL when out of range. @since 0.1 */
PM_API const pm_raw_decoder *pm_raw_decoder_get(size_t i);

/**
 * @brief **pm_raw_decoder_find()** finds a decoder by name: "alpha_profileme", "ibs_fetch", "ibs_op".
 * @return the decoder, or NULL (pm_errmsg() then says so).
 * @since 0.1
 */
PM_API const pm_raw_decoder *pm_raw_decoder_find(const char *name);

/** @brief **pm_raw_decoder_name()**: the decoder's name ("alpha_profileme"). @since 0.1 */
PM_API const char *pm_raw_decoder_name(const pm_raw_decoder *d);

/**
 * @brief **pm_raw_decoder_key()**: the JSON key for a sample's decoded
 *        payload: "profileme", "ibs_fetch" or "ibs_op".
 * @since 0.1
 */
PM_API const char *pm_raw_decoder_key(const pm_raw_decoder *d);

/** @brief **pm_raw_field_count()**: number of fields the decoder reports. @since 0.1 */
PM_API size_t pm_raw_field_count(const pm_raw_decoder *d);

/** @brief **pm_raw_field_name()**: name of field @p i (C/JSON/Python name), or NULL. @since 0.1 */
PM_API const char *pm_raw_field_name(const pm_raw_decoder *d, size_t i);

/** @brief **pm_raw_field_kind()**: ::pm_raw_kind of field @p i, or -EINVAL. @since 0.1 */
PM_API int pm_raw_field_kind(const pm_raw_decoder *d, size_t i);

/** @brief **pm_raw_field_flags()**: ::pm_raw_field_flag bits of field @p i, or -EINVAL. @since 0.1 */
PM_API int pm_raw_field_flags(const pm_raw_decoder *d, size_t i);

/**
 * @brief **pm_raw_field_index()** finds a field by name.
 * @return the index, or -ENOENT.
 * @since 0.1
 */
PM_API int pm_raw_field_index(const pm_raw_decoder *d, const char *name);

/**
 * @brief **pm_raw_field_code_name()** names a code of a CODE field.
 * @param d     the decoder
 * @param ctx   the context the payloads were decoded with (some tables depend
 *              on the PMU caps, e.g. IBS data_src); may be NULL
 * @param i     the field index
 * @param code  the code
 * @return the name, or NULL when the field is not a CODE field or the code is unnamed.
 * @since 0.1
 */
PM_API const char *pm_raw_field_code_name(const pm_raw_decoder *d, const pm_raw_ctx *ctx, size_t i,
					  uint64_t code);

/**
 * @brief **pm_raw_ctx_new()** creates a context: the host's architecture
 *        (uname machine) and byte order, no PMUs, no caps.
 * @param[out] out the context; free with pm_raw_ctx_free()
 * @return 0 or -ENOMEM.
 * @since 0.1
 */
PM_API int pm_raw_ctx_new(pm_raw_ctx **out);

/** @brief **pm_raw_ctx_free()** releases a context.  NULL-safe. @since 0.1 */
PM_API void pm_raw_ctx_free(pm_raw_ctx *ctx);

/**
 * @brief **pm_raw_ctx_new_from_file()** builds the raw decoding context of a
 *        recording in one call: ARCH, byte order, PMU_MAPPINGS, PMU_CAPS
 *        and CPUID, as the file's features give them.
 * @param[out] out the context; free with pm_raw_ctx_free()
 * @param f        the file
 * @return 0, -EINVAL, -ENOMEM.
 * @since 0.1
 */
PM_API int pm_raw_ctx_new_from_file(pm_raw_ctx **out, const pm_file *f);

/**
 * @brief **pm_raw_ctx_set_arch()** sets the recording's architecture
 *        (the perf.data ARCH feature, e.g. "alpha", "x86_64").
 * @param ctx  the context
 * @param arch the architecture; NULL means the host's (uname machine)
 * @return 0, -EINVAL, -ENOMEM.
 * @since 0.1
 */
PM_API int pm_raw_ctx_set_arch(pm_raw_ctx *ctx, const char *arch);

/** @brief **pm_raw_ctx_arch()**: the architecture string in use. @since 0.1 */
PM_API const char *pm_raw_ctx_arch(const pm_raw_ctx *ctx);

/**
 * @brief **pm_raw_ctx_set_big_endian()** sets the recording's byte order
 *        (used for IBS payloads; ProfileMe payloads are always little endian).
 * @return 0 or -EINVAL.
 * @since 0.1
 */
PM_API int pm_raw_ctx_set_big_endian(pm_raw_ctx *ctx, int big_endian);

/**
 * @brief **pm_raw_ctx_set_cpuid()** sets the recording's CPUID string (the
 *        perf.data CPUID feature, e.g. "AuthenticAMD,25,1,1"), used for
 *        AMD errata 1238, 1293 and 1347 (family 0x19, model < 0x10).
 * @param ctx   the context
 * @param cpuid the string, or NULL to forget it
 * @return 0, -EINVAL, -ENOMEM.
 * @since 0.1
 */
PM_API int pm_raw_ctx_set_cpuid(pm_raw_ctx *ctx, const char *cpuid);

/**
 * @brief **pm_raw_ctx_add_pmu()** records that attr.type @p type is the PMU
 *        @p name (a perf.data PMU_MAPPINGS entry "type:name", or sysfs).
 *        A later entry for the same type replaces the earlier one.
 * @return 0, -EINVAL, -ENOMEM.
 * @since 0.1
 */
PM_API int pm_raw_ctx_add_pmu(pm_raw_ctx *ctx, uint32_t type, const char *name);

/**
 * @brief **pm_raw_ctx_set_pmu_cap()** records a PMU capability (perf.data
 *        PMU_CAPS, or sysfs caps/), e.g. ("ibs_op", "zen4_ibs_extensions", "1").
 *        IBS decoding honours `zen4_ibs_extensions`, `ldlat`, `strmst` and
 *        `rmtsocket` of `ibs_op`; a cap whose value is "0" or "" is off.
 * @return 0, -EINVAL, -ENOMEM.
 * @since 0.1
 */
PM_API int pm_raw_ctx_set_pmu_cap(pm_raw_ctx *ctx, const char *pmu, const char *cap, const char *value);

/**
 * @brief **pm_raw_ctx_select()** chooses the decoder for a sample's attr.
 *
 * - attr.type is the type of a PMU named `ibs_fetch*` or `ibs_op*`: that IBS decoder.
 * - The architecture is Alpha ("alpha..."), attr.type is PERF_TYPE_RAW,
 *   PERF_TYPE_HARDWARE or the `cpu` PMU's type, and the attr selects
 *   ProfileMe (config bit 8 with a raw/cpu type, or precise_ip > 0):
 *   alpha_profileme.
 *
 * The attr must sample PM_SAMPLE_RAW.
 * @param ctx       the context
 * @param attr      the sample's attr
 * @param[out] out  the decoder
 * @return 0; -PM_ERR_NO_DECODER when none applies (*out = NULL); -EINVAL.
 * @since 0.1
 */
PM_API int pm_raw_ctx_select(const pm_raw_ctx *ctx, const struct pm_attr *attr, const pm_raw_decoder **out);

/**
 * @brief **pm_raw_decode_row()** decodes a payload into plain arrays, one
 *        entry per field in table order (the bulk path for columns).
 * @param d          the decoder
 * @param ctx        byte order, caps and cpuid; NULL means host byte order, no caps
 * @param payload    the PERF_SAMPLE_RAW data
 * @param len        bytes at @p payload
 * @param[out] values  @p n values (CODE: the code; BOOL: 0/1; BYTES: the length); absent fields 0
 * @param[out] present @p n flags (1 present, 0 absent); may be NULL
 * @param n          entries available; fields past @p n are not written
 * @return the decoder's field count (may exceed @p n); -EINVAL;
 *         -PM_ERR_NOT_PROFILEME (ProfileMe: short payload or version 0);
 *         -PM_ERR_TRUNCATED (IBS: no control register).
 * @since 0.1
 */
PM_API int pm_raw_decode_row(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
			     uint64_t *values, uint8_t *present, size_t n);

/**
 * @brief **pm_raw_decode()** decodes a payload into ::pm_raw_value entries,
 *        one per field in table order.
 * @param d        the decoder
 * @param ctx      as for pm_raw_decode_row()
 * @param payload  the PERF_SAMPLE_RAW data
 * @param len      bytes at @p payload
 * @param[out] vals  an array of @p n entries; set `vals[0].sz` to
 *                 sizeof(struct pm_raw_value): it is also the array stride.
 *                 No entry is written past that size.
 * @param n        entries available
 * @return as pm_raw_decode_row(); -PM_ERR_STRUCT_SIZE for a bad `vals[0].sz`.
 * @since 0.1
 */
PM_API int pm_raw_decode(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
			 struct pm_raw_value *vals, size_t n);

/**
 * @brief **pm_raw_format_json()** writes a decoded payload as one JSON object
 *        (`{"version":1,"pmpc":"0x...",...}`, absent fields omitted;
 *        registers and addresses as "0x..." strings, BOOL as true/false,
 *        CODE as its name, U64 as a number, BYTES as a hex string).
 * @param d        the decoder
 * @param ctx      as for pm_raw_decode_row()
 * @param payload  the payload
 * @param len      its length
 * @param[out] buf destination (NUL-terminated when @p cap > 0; truncated if short)
 * @param cap      bytes at @p buf
 * @return the length of the full text (as snprintf: >= @p cap means
 *         truncated), or a negative error as pm_raw_decode_row().
 * @since 0.1
 */
PM_API int pm_raw_format_json(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
			      char *buf, size_t cap);

/**
 * @brief **pm_raw_format_text()** writes a decoded payload as readable
 *        lines (for `script -D`): one line per register with its fields as
 *        `name value`, each line starting with @p prefix and ending in '\\n'.
 * @param d        the decoder
 * @param ctx      as for pm_raw_decode_row()
 * @param payload  the payload
 * @param len      its length
 * @param prefix   text at the start of each line (e.g. "  "); NULL for none
 * @param[out] buf destination, as for pm_raw_format_json()
 * @param cap      bytes at @p buf
 * @return as pm_raw_format_json().
 * @since 0.1
 */
PM_API int pm_raw_format_text(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
			      const char *prefix, char *buf, size_t cap);

/** @} */

/* ------------------------------------------------------------------------ */
/** @name AMD IBS attribution
 *  @{ */

/** @brief Which IBS unit a sample came from (pm_ibs_attribution::kind). */
enum pm_ibs_kind {
	PM_IBS_KIND_FETCH = 1, /**< `ibs_fetch`: a sampled instruction fetch. */
	PM_IBS_KIND_OP = 2     /**< `ibs_op`: a sampled (tagged) micro-op. */
};

/**
 * @brief Where to charge one IBS sample (filled by pm_ibs_attribute()).
 *
 * The upstream driver writes the tagged address as the sample ip and sets
 * PERF_RECORD_MISC_EXACT_IP: IbsOpRip for an op, unless the hardware marks it
 * invalid (IBS_OP_DATA RipInvalid), in which case the sample carries the
 * interrupted ip and no exact flag; IbsFetchLinAd for a fetch.  IBS records
 * no interrupted ip for an exact sample, so there is no skid to measure.
 * Set `sz = sizeof(struct pm_ibs_attribution)` before the call.
 */
struct pm_ibs_attribution {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_ibs_attribution). */
	int kind;           /**< ::pm_ibs_kind. */
	int valid;          /**< The sample is valid (En and Val set in the control register). */
	int exact;          /**< @c addr is the address IBS tagged: op: a valid IbsOpRip (RipInvalid clear); fetch: IbsFetchLinAd. */
	int ip_differs;     /**< @c exact and the sample ip differs from the tagged address (the tagged one is trusted). */
	uint64_t addr;      /**< The address to charge: the tagged address when @c exact, else the sample ip. */
	uint64_t tagged;    /**< IbsOpRip / IbsFetchLinAd when present, else 0. */
	uint64_t ip;        /**< The sample ip, as given. */
};
/** Frozen minimum @c sz of struct pm_ibs_attribution (0.1: the members up to
 *  @c addr); accepted by every later release.  See PM_OFFSETOFEND(). */
#define PM_IBS_ATTRIBUTION_SZ_V1 PM_OFFSETOFEND(struct pm_ibs_attribution, addr)

/**
 * @brief **pm_ibs_attribute()** decodes an IBS payload just enough to say
 *        where its sample is charged and whether that is exact.
 *
 * Instruction-level views (per-pc rows, annotate) keep inexact samples
 * apart: their ip is wherever the interrupt landed.
 * @param d          the `ibs_op` or `ibs_fetch` decoder (pm_raw_ctx_select())
 * @param ctx        byte order, caps and cpuid of the recording; may be NULL
 * @param payload    the PERF_SAMPLE_RAW data
 * @param len        bytes at @p payload
 * @param sample_ip  the sample's PERF_SAMPLE_IP value
 * @param[out] out   the attribution; `out->sz` set by the caller, never written past it
 * @return 0; -EINVAL for a NULL argument; -PM_ERR_NO_DECODER when @p d is
 *         not an IBS decoder; -PM_ERR_TRUNCATED for a payload without the
 *         control register (pm_errmsg() says why); -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_ibs_attribute(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
			    uint64_t sample_ip, struct pm_ibs_attribution *out);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_RAW_H */
