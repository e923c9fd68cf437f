/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/pmu.h
 * @brief The sysfs PMU enumerator.
 *
 * pm_pmu_scan() reads `<root>/bus/event_source/devices/ *` once and returns a
 * ::pm_pmu_list that owns everything it found.  PMUs, formats and aliases
 * are borrowed pointers, valid until pm_pmu_list_free().  A list is
 * immutable after the scan, so it may be read from several threads.
 *
 * Damage is local: a PMU whose `type` cannot be read, or a format, alias or
 * cap file that is missing, unreadable, empty, too large or malformed, is
 * recorded as a *diagnostic* on that PMU (pm_pmu_diag_count()); the rest of
 * the PMU and the other PMUs are still listed.
 */
#ifndef PROFILEME_PMU_H
#define PROFILEME_PMU_H

#include <profileme/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The result of one scan: all PMUs under a sysfs root (opaque). */
typedef struct pm_pmu_list pm_pmu_list;
/** @brief One PMU, borrowed from its ::pm_pmu_list (opaque). */
typedef struct pm_pmu pm_pmu;
/** @brief One `format/` field of a PMU (opaque, borrowed). */
typedef struct pm_format pm_format;
/** @brief One `events/` alias of a PMU (opaque, borrowed). */
typedef struct pm_alias pm_alias;

/** @brief Which attr word a format field lives in. */
enum pm_config_word {
	PM_CONFIG = 0,  /**< attr.config */
	PM_CONFIG1 = 1, /**< attr.config1 */
	PM_CONFIG2 = 2, /**< attr.config2 */
	PM_CONFIG3 = 3  /**< attr.config3 */
};

/**
 * @brief **pm_pmu_scan()** enumerates the PMUs under a sysfs root.
 * @param[out] out   the list; free with pm_pmu_list_free()
 * @param sysfs_root the sysfs mount point (the PMUs are under
 *                   `sysfs_root/bus/event_source/devices`); NULL means the
 *                   environment variable `PROFILEME_SYSFS` if set, else "/sys"
 * @return 0 (also when some PMUs carry diagnostics), -ENOENT if the devices
 *         directory does not exist, -ENOMEM.
 * @since 0.1
 */
PM_API int pm_pmu_scan(pm_pmu_list **out, const char *sysfs_root);

/** @brief **pm_pmu_list_free()** releases a list and every PMU in it.  NULL-safe. @since 0.1 */
PM_API void pm_pmu_list_free(pm_pmu_list *list);

/** @brief **pm_pmu_list_root()**: the sysfs root that was scanned. @since 0.1 */
PM_API const char *pm_pmu_list_root(const pm_pmu_list *list);

/** @brief **pm_pmu_list_count()**: number of PMUs (sorted by name). @since 0.1 */
PM_API size_t pm_pmu_list_count(const pm_pmu_list *list);

/** @brief **pm_pmu_list_get()**: the PMU at @p index, or NULL past the end. @since 0.1 */
PM_API const pm_pmu *pm_pmu_list_get(const pm_pmu_list *list, size_t index);

/**
 * @brief **pm_pmu_find()** looks a PMU up by name.
 *
 * Exact name first, then with an `uncore_` prefix added.
 * @return the PMU, or NULL.
 * @since 0.1
 */
PM_API const pm_pmu *pm_pmu_find(const pm_pmu_list *list, const char *name);

/**
 * @brief **pm_pmu_find_by_type()**: the PMU whose `type` is @p type, or NULL.
 * @since 0.1
 */
PM_API const pm_pmu *pm_pmu_find_by_type(const pm_pmu_list *list, uint32_t type);

/** @brief **pm_pmu_name()**: the PMU's directory name. @since 0.1 */
PM_API const char *pm_pmu_name(const pm_pmu *pmu);
/**
 * @brief **pm_pmu_alt_name()**: the PMU's other name from its sysfs `alias`
 *        file (x86 uncore PMUs found by discovery: `uncore_type_0_0` has
 *        `uncore_cha_0`), or NULL.  pm_pmu_find() and event strings accept
 *        it as perf 6.1 does. @since 0.1
 */
PM_API const char *pm_pmu_alt_name(const pm_pmu *pmu);

/**
 * @brief **pm_pmu_type()** gives the value for attr.type.
 *
 * Read from the `type` file; when it is missing, the well-known names fall
 * back: software 1, tracepoint 2, breakpoint 5.
 * @param pmu       the PMU
 * @param[out] type the type
 * @return 0, or a negative error (see the PMU's diagnostics) when the PMU has
 *         no usable type.
 * @since 0.1
 */
PM_API int pm_pmu_type(const pm_pmu *pmu, uint32_t *type);

/** @brief **pm_pmu_is_profileme()**: 1 if the PMU has a `profileme` format field, else 0. @since 0.1 */
PM_API int pm_pmu_is_profileme(const pm_pmu *pmu);

/**
 * @brief **pm_pmu_cpus()**: the PMU's CPU list as written in `cpumask` or
 *        `cpus` (e.g. "0-3,8"), or NULL when it has neither (all CPUs).
 * @since 0.1
 */
PM_API const char *pm_pmu_cpus(const pm_pmu *pmu);

/** @brief **pm_pmu_is_uncore()**: 1 when the PMU has a `cpumask` file (perf's rule), else 0. @since 0.1 */
PM_API int pm_pmu_is_uncore(const pm_pmu *pmu);

/**
 * @brief **pm_pmu_cpu_list()** parses the CPU list into numbers.
 * @param pmu        the PMU
 * @param[out] cpus  caller buffer (may be NULL when @p cap is 0)
 * @param cap        entries available at @p cpus
 * @param[out] n     number of CPUs in the list (may exceed @p cap)
 * @return 0, -ENOENT when the PMU has no CPU list, -PM_ERR_FORMAT.
 * @since 0.1
 */
PM_API int pm_pmu_cpu_list(const pm_pmu *pmu, int *cpus, size_t cap, size_t *n);

/** @brief **pm_pmu_mux_interval_ms()**: `perf_event_mux_interval_ms`, or -1 when absent. @since 0.1 */
PM_API long pm_pmu_mux_interval_ms(const pm_pmu *pmu);

/** @brief **pm_pmu_rdpmc()**: the `rdpmc` setting, or -1 when absent. @since 0.1 */
PM_API long pm_pmu_rdpmc(const pm_pmu *pmu);

/** @brief **pm_pmu_max_precise()**: `caps/max_precise`, or -1 when absent. @since 0.1 */
PM_API int pm_pmu_max_precise(const pm_pmu *pmu);

/** @name Formats (`format/`)
 *  @{ */
/** @brief **pm_pmu_format_count()**: number of usable format fields (sorted by name). @since 0.1 */
PM_API size_t pm_pmu_format_count(const pm_pmu *pmu);
/** @brief **pm_pmu_format_get()**: the format at @p index, or NULL. @since 0.1 */
PM_API const pm_format *pm_pmu_format_get(const pm_pmu *pmu, size_t index);
/** @brief **pm_pmu_format_find()**: the format named @p name, or NULL. @since 0.1 */
PM_API const pm_format *pm_pmu_format_find(const pm_pmu *pmu, const char *name);
/** @brief **pm_format_name()**: the field's name (its file name). @since 0.1 */
PM_API const char *pm_format_name(const pm_format *fmt);
/** @brief **pm_format_spec()**: the file's text, trimmed (e.g. "config:0-7,32-35"). @since 0.1 */
PM_API const char *pm_format_spec(const pm_format *fmt);
/** @brief **pm_format_word()**: the ::pm_config_word the field lives in. @since 0.1 */
PM_API int pm_format_word(const pm_format *fmt);
/** @brief **pm_format_mask()**: the field's bits in its word. @since 0.1 */
PM_API uint64_t pm_format_mask(const pm_format *fmt);
/** @brief **pm_format_width()**: number of bits in the field (1..64). @since 0.1 */
PM_API unsigned pm_format_width(const pm_format *fmt);
/**
 * @brief **pm_format_encode()** places a value into the field's bits.
 *
 * Value bit k goes to the k-th set bit of the mask (lowest first), so split
 * fields such as `config:0-7,32-35` work.
 * @param fmt        the format field
 * @param value      the value
 * @param[out] bits  the bits to OR into the word (other bits zero)
 * @return 0, or -PM_ERR_RANGE when @p value has more bits than the field
 *         (pm_errmsg() names the field and its maximum).
 * @since 0.1
 */
PM_API int pm_format_encode(const pm_format *fmt, uint64_t value, uint64_t *bits);
/** @brief **pm_format_decode()**: the inverse of pm_format_encode() on a whole word. @since 0.1 */
PM_API uint64_t pm_format_decode(const pm_format *fmt, uint64_t word);
/** @} */

/** @name Event aliases (`events/`)
 *  @{ */
/** @brief **pm_pmu_alias_count()**: number of aliases (sorted by name). @since 0.1 */
PM_API size_t pm_pmu_alias_count(const pm_pmu *pmu);
/** @brief **pm_pmu_alias_get()**: the alias at @p index, or NULL. @since 0.1 */
PM_API const pm_alias *pm_pmu_alias_get(const pm_pmu *pmu, size_t index);
/** @brief **pm_pmu_alias_find()**: the alias named @p name (case-insensitive), or NULL. @since 0.1 */
PM_API const pm_alias *pm_pmu_alias_find(const pm_pmu *pmu, const char *name);
/** @brief **pm_alias_name()**: the alias's name. @since 0.1 */
PM_API const char *pm_alias_name(const pm_alias *alias);
/** @brief **pm_alias_text()**: the alias's term list as written (e.g. "event=0xc0,umask=0x1"). @since 0.1 */
PM_API const char *pm_alias_text(const pm_alias *alias);
/** @brief **pm_alias_term_count()**: number of terms in the alias. @since 0.1 */
PM_API size_t pm_alias_term_count(const pm_alias *alias);
/** @brief **pm_alias_term_name()**: the name of term @p index, or NULL. @since 0.1 */
PM_API const char *pm_alias_term_name(const pm_alias *alias, size_t index);
/**
 * @brief **pm_alias_term_value()**: the numeric value of term @p index.
 * @param alias      the alias
 * @param index      the term, 0 .. pm_alias_term_count() - 1
 * @param[out] value the value (1 for a bare term)
 * @return 0; 1 when the term is a `?` parameter (no value: the user must give it);
 *         -ERANGE past the end.
 * @since 0.1
 */
PM_API int pm_alias_term_value(const pm_alias *alias, size_t index, uint64_t *value);
/** @brief **pm_alias_unit()**: the `.unit` text, or "" when absent. @since 0.1 */
PM_API const char *pm_alias_unit(const pm_alias *alias);
/** @brief **pm_alias_scale()**: the `.scale` factor, or 1.0 when absent. @since 0.1 */
PM_API double pm_alias_scale(const pm_alias *alias);
/** @brief **pm_alias_per_pkg()**: 1 when a `.per-pkg` file exists. @since 0.1 */
PM_API int pm_alias_per_pkg(const pm_alias *alias);
/** @brief **pm_alias_snapshot()**: 1 when a `.snapshot` file exists. @since 0.1 */
PM_API int pm_alias_snapshot(const pm_alias *alias);
/** @} */

/** @name Capabilities (`caps/`)
 *  @{ */
/** @brief **pm_pmu_cap_count()**: number of `caps/` entries (sorted by name). @since 0.1 */
PM_API size_t pm_pmu_cap_count(const pm_pmu *pmu);
/** @brief **pm_pmu_cap_name()**: the name of cap @p index, or NULL. @since 0.1 */
PM_API const char *pm_pmu_cap_name(const pm_pmu *pmu, size_t index);
/** @brief **pm_pmu_cap_value()**: the first line of cap @p index, or NULL. @since 0.1 */
PM_API const char *pm_pmu_cap_value(const pm_pmu *pmu, size_t index);
/** @brief **pm_pmu_cap_find()**: the value of the cap named @p name, or NULL. @since 0.1 */
PM_API const char *pm_pmu_cap_find(const pm_pmu *pmu, const char *name);
/** @} */

/** @name Diagnostics: what could not be read, per PMU
 *  @{ */
/** @brief **pm_pmu_diag_count()**: number of problems found while reading this PMU. @since 0.1 */
PM_API size_t pm_pmu_diag_count(const pm_pmu *pmu);
/** @brief **pm_pmu_diag_file()**: the file (relative to the PMU directory) of problem @p index. @since 0.1 */
PM_API const char *pm_pmu_diag_file(const pm_pmu *pmu, size_t index);
/** @brief **pm_pmu_diag_code()**: the negative error code of problem @p index (0 past the end). @since 0.1 */
PM_API int pm_pmu_diag_code(const pm_pmu *pmu, size_t index);
/** @brief **pm_pmu_diag_message()**: a readable message for problem @p index. @since 0.1 */
PM_API const char *pm_pmu_diag_message(const pm_pmu *pmu, size_t index);
/** @} */

/**
 * @brief **pm_format_parse()** parses the text of one `format/` file.
 *
 * Exposed for tools and fuzzing; pm_pmu_scan() uses it for every format.
 * @param text      the file's content (need not be NUL-terminated)
 * @param len       its length
 * @param[out] word the ::pm_config_word
 * @param[out] mask the bits
 * @return 0, or -PM_ERR_FORMAT (pm_errmsg() says what is wrong).
 * @since 0.1
 */
PM_API int pm_format_parse(const char *text, size_t len, int *word, uint64_t *mask);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_PMU_H */
