/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/symbol.h
 * @brief Address → (symbol, offset, module) for the processes of a profile.
 *
 * A ::pm_symbolizer learns, per process, which files are mapped where (from
 * PERF_RECORD_MMAP/MMAP2 records with pm_sym_add_map(), or from
 * `/proc/PID/maps` with pm_sym_load_proc_maps() when sampling live), follows
 * the processes through fork, exec and exit, and turns a sampled address into
 * the function that contains it.  User-space symbols come from each file's
 * `.symtab` (or `.dynsym` when the file is stripped, or a separate debug file
 * found by build id or `.gnu_debuglink`); kernel symbols come from
 * `/proc/kallsyms`.
 *
 * Each file is opened once, its function symbols copied into a sorted array
 * and the file closed again; files are shared by every process that maps
 * them.  A lookup is a binary search and allocates nothing.
 *
 * Nothing fails as a whole because one file is bad: a file that is gone,
 * stripped, truncated or not ELF is reported once through the diagnostics
 * API (pm_sym_diag_count(), pm_sym_diag_get()) and its addresses resolve to
 * "[unknown]" within their module.
 *
 * The symbolizer needs libelf.  A library built without it keeps the same
 * ABI: every function here exists and returns -PM_ERR_UNSUPPORTED
 * (pm_sym_close() does nothing).
 *
 * A ::pm_symbolizer is not thread-safe; strings it returns are borrowed and
 * stay valid until pm_sym_close().
 */
#ifndef PROFILEME_SYMBOL_H
#define PROFILEME_SYMBOL_H

#include <profileme/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque symbolizer: maps of processes, cache of files, kernel symbols. */
typedef struct pm_symbolizer pm_symbolizer;

/** @name pm_sym_opts.flags
 *  @{ */
/** Never read kernel symbols (kernel addresses stay "[unknown]"). */
#define PM_SYM_OPT_NO_KERNEL (1u << 0)
/** Do not look for separate debug files. */
#define PM_SYM_OPT_NO_DEBUG_FILES (1u << 1)
/** @} */

/**
 * @brief Options of pm_sym_open(); size-versioned (set @c sz to
 *        sizeof(struct pm_sym_opts)).  NULL means all defaults.
 */
struct pm_sym_opts {
	size_t sz;             /**< sizeof(struct pm_sym_opts), set by the caller. */
	const char *sysroot;   /**< Prefix for every mapped file name when opening it (NULL: none). */
	const char *debug_dir; /**< Global debug directory (NULL: `<sysroot>/usr/lib/debug`). */
	const char *kallsyms;  /**< Kernel symbol file (NULL: `/proc/kallsyms`). */
	uint32_t flags;        /**< PM_SYM_OPT_* bits. */
	uint32_t reserved;     /**< Zero. */
};
/** Frozen minimum @c sz of struct pm_sym_opts (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_SYM_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_sym_opts, reserved)

/** @name pm_sym_result.flags
 *  @{ */
/** The address is a kernel address (symbol from kallsyms). */
#define PM_SYM_KERNEL (1u << 0)
/** No symbol covers the address: name is "[unknown]". */
#define PM_SYM_UNKNOWN (1u << 1)
/** Not even a module covers the address: dso is "[unknown]" too. */
#define PM_SYM_NO_MAP (1u << 2)
/** @} */

/**
 * @brief What pm_sym_lookup() found; size-versioned (set @c sz).
 *
 * Addresses: @c offset is from the symbol's start; @c sym_start and
 * @c dso_addr are *file* addresses, the ones `nm` and `objdump -d` show for
 * the module (for the kernel, the run-time addresses).  The symbol's run-time
 * start in the process is `addr - offset`, and `dso_addr == sym_start +
 * offset` whenever a symbol was found.
 */
struct pm_sym_result {
	size_t sz;          /**< sizeof(struct pm_sym_result), set by the caller. */
	const char *name;   /**< Symbol name, or "[unknown]"; borrowed. */
	const char *dso;    /**< Module: the mapped path, "[kernel.kallsyms]", "[ext4]", "[vdso]", or "[unknown]"; borrowed. */
	uint64_t offset;    /**< addr - symbol start (0 when unknown). */
	uint64_t sym_start; /**< Symbol start, file address (0 when unknown). */
	uint64_t sym_size;  /**< Symbol size in bytes (0 when unknown). */
	uint64_t dso_addr;  /**< Module-relative file address of addr (what objdump shows). */
	uint32_t flags;     /**< PM_SYM_KERNEL / PM_SYM_UNKNOWN / PM_SYM_NO_MAP. */
	uint32_t reserved;  /**< Zero. */
};
/** Frozen minimum @c sz of struct pm_sym_result (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_SYM_RESULT_SZ_V1 PM_OFFSETOFEND(struct pm_sym_result, reserved)

/**
 * @brief One definition found by pm_sym_find(); size-versioned (set @c sz).
 */
struct pm_sym_def {
	size_t sz;         /**< sizeof(struct pm_sym_def), set by the caller. */
	const char *name;  /**< Symbol name; borrowed. */
	const char *dso;   /**< Module path (as mapped) or kernel module name; borrowed. */
	uint64_t start;    /**< File address of the symbol's first byte. */
	uint64_t size;     /**< Size in bytes (zero-sized symbols extend to the next one). */
	uint32_t flags;    /**< PM_SYM_KERNEL for kernel symbols. */
	uint32_t reserved; /**< Zero. */
};
/** Frozen minimum @c sz of struct pm_sym_def (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_SYM_DEF_SZ_V1 PM_OFFSETOFEND(struct pm_sym_def, reserved)

/** @name pm_sym_lookup() flags: what the caller knows of the address
 *  (from the sample's cpumode).  0: user maps first, then the kernel.
 *  @{ */
#define PM_SYM_LOOKUP_USER (1u << 0)   /**< A user-space address: never the kernel. */
#define PM_SYM_LOOKUP_KERNEL (1u << 1) /**< A kernel address: kallsyms only. */
/** @} */

/** @brief Diagnostic codes of ::pm_sym_diag. */
enum pm_sym_diag_code {
	PM_SYM_DIAG_MISSING = 1,      /**< The file cannot be opened (gone, no permission). */
	PM_SYM_DIAG_NOT_ELF = 2,      /**< The file is not ELF. */
	PM_SYM_DIAG_TRUNCATED = 3,    /**< The ELF file ends before its headers or sections do. */
	PM_SYM_DIAG_CORRUPT = 4,      /**< libelf cannot read the file. */
	PM_SYM_DIAG_STRIPPED = 5,     /**< No .symtab and no debug file: only .dynsym was used. */
	PM_SYM_DIAG_NO_SYMBOLS = 6,   /**< No function symbols at all. */
	PM_SYM_DIAG_DEBUG_FILE = 7,   /**< Information: symbols came from a separate debug file. */
	PM_SYM_DIAG_KPTR_RESTRICT = 8,/**< kallsyms readable but every address is zero (kptr_restrict). */
	PM_SYM_DIAG_NO_KALLSYMS = 9   /**< The kallsyms file cannot be read. */
};

/**
 * @brief One per-file report; size-versioned (set @c sz).
 */
struct pm_sym_diag {
	size_t sz;           /**< sizeof(struct pm_sym_diag), set by the caller. */
	const char *file;    /**< The file as named in the maps (or the kallsyms path); borrowed. */
	const char *message; /**< Human-readable detail; borrowed. */
	int32_t code;        /**< A ::pm_sym_diag_code. */
	int32_t err;         /**< The underlying error (negative errno or -PM_ERR_*), 0 for information. */
};
/** Frozen minimum @c sz of struct pm_sym_diag (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_SYM_DIAG_SZ_V1 PM_OFFSETOFEND(struct pm_sym_diag, err)

/** @brief Kernel symbol states returned by pm_sym_kernel_status(). */
enum pm_sym_kernel_state {
	PM_SYM_KERNEL_DISABLED = 0,   /**< PM_SYM_OPT_NO_KERNEL was given. */
	PM_SYM_KERNEL_OK = 1,         /**< Kernel symbols loaded. */
	PM_SYM_KERNEL_RESTRICTED = 2, /**< kallsyms shows only zero addresses (kptr_restrict). */
	PM_SYM_KERNEL_UNREADABLE = 3  /**< kallsyms missing, unreadable or without text symbols. */
};

/**
 * @brief **pm_sym_open()** creates an empty symbolizer.
 * @param[out] out  the new symbolizer (NULL on failure)
 * @param opts      options, or NULL for the defaults
 * @return 0; -EINVAL (NULL @p out), -PM_ERR_STRUCT_SIZE, -ENOMEM,
 *         -PM_ERR_UNSUPPORTED (built without libelf).
 * @since 0.1
 */
PM_API int pm_sym_open(pm_symbolizer **out, const struct pm_sym_opts *opts);

/**
 * @brief **pm_sym_close()** frees a symbolizer and every string it returned.
 * @param s  the symbolizer, or NULL
 * @since 0.1
 */
PM_API void pm_sym_close(pm_symbolizer *s);

/**
 * @brief **pm_sym_add_map()** records that @p filename is mapped at
 *        [@p start, @p start + @p len) of process @p pid from file offset
 *        @p pgoff (the fields of PERF_RECORD_MMAP/MMAP2).  The new map
 *        replaces whatever it overlaps.  The file is not opened until an
 *        address in it is looked up.  Pid -1 holds kernel maps; kernel
 *        addresses are resolved through kallsyms whatever maps say.
 * @param s         the symbolizer
 * @param pid       process id (not thread id)
 * @param start     first mapped address
 * @param len       length in bytes (> 0)
 * @param pgoff     file offset of @p start
 * @param filename  the path as recorded (also "[vdso]", "//anon", ...)
 * @return 0; -EINVAL (NULL argument, len 0, wrap-around), -ENOMEM,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_add_map(pm_symbolizer *s, int32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *filename);

/**
 * @brief **pm_sym_load_proc_maps()** adds every map of a live process from
 *        `/proc/PID/maps` (executable maps only).
 * @param s    the symbolizer
 * @param pid  process id
 * @return the number of maps added (>= 0); -ENOENT (no such process),
 *         -EACCES, -PM_ERR_FORMAT (unparsable line), -ENOMEM,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_load_proc_maps(pm_symbolizer *s, int32_t pid);

/**
 * @brief **pm_sym_fork()** gives @p child a copy of @p parent's maps
 *        (PERF_RECORD_FORK; nothing happens when both are equal, which is a
 *        new thread).
 * @param s       the symbolizer
 * @param parent  parent process id
 * @param child   child process id
 * @return 0; -EINVAL, -ENOMEM, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_fork(pm_symbolizer *s, int32_t parent, int32_t child);

/**
 * @brief **pm_sym_exec()** forgets the maps of @p pid (PERF_RECORD_COMM with
 *        the exec flag; the new image's maps arrive next).
 * @param s    the symbolizer
 * @param pid  process id
 * @return 0; -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_exec(pm_symbolizer *s, int32_t pid);

/**
 * @brief **pm_sym_exit()** marks @p pid as exited (PERF_RECORD_EXIT).  Its
 *        maps stay usable for samples that arrive late, and are dropped when
 *        the pid is reused (a map added to it or a fork into it).
 * @param s    the symbolizer
 * @param pid  process id
 * @return 0; -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_exit(pm_symbolizer *s, int32_t pid);

/**
 * @brief **pm_sym_lookup()** resolves @p addr of process @p pid.
 *
 * An address that no symbol covers still succeeds, with name "[unknown]"
 * and PM_SYM_UNKNOWN (and PM_SYM_NO_MAP when no module covers it either).
 * The first lookup in a file loads the file (and the first kernel lookup
 * kallsyms); later ones only search.
 * @param s          the symbolizer
 * @param pid        process id
 * @param addr       the sampled address
 * @param how        0 or one of PM_SYM_LOOKUP_USER / PM_SYM_LOOKUP_KERNEL
 * @param[out] res   the result; @c res->sz set by the caller
 * @return 0; -EINVAL (NULL argument), -PM_ERR_STRUCT_SIZE,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_lookup(pm_symbolizer *s, int32_t pid, uint64_t addr, uint32_t how,
			 struct pm_sym_result *res);

/**
 * @brief **pm_sym_find()** looks up a symbol by name: every definition of
 *        @p name in module @p dso (or in every module known so far and the
 *        kernel when @p dso is NULL).  Call it with idx 0, 1, ... below the
 *        returned count to read each definition.
 * @param s         the symbolizer
 * @param dso       a module path as given to pm_sym_add_map(),
 *                  "[kernel.kallsyms]", a kernel module name such as "[ext4]",
 *                  or NULL for all
 * @param name      the symbol name (exact)
 * @param idx       which definition to write to @p out
 * @param[out] out  the definition number @p idx (may be NULL to count only);
 *                  @c out->sz set by the caller
 * @return the number of definitions (>= 0; @p out is written only when
 *         @p idx is below it); -EINVAL, -PM_ERR_STRUCT_SIZE,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_find(pm_symbolizer *s, const char *dso, const char *name, size_t idx,
		       struct pm_sym_def *out);

/**
 * @brief **pm_sym_preload()** loads every file known so far (and kallsyms),
 *        so that the diagnostics are complete before the first lookup.
 * @param s  the symbolizer
 * @return the number of files that could not give any symbol (>= 0);
 *         -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_preload(pm_symbolizer *s);

/**
 * @brief **pm_sym_diag_count()** gives the number of per-file diagnostics
 *        so far (files are reported when they are loaded).
 * @param s  the symbolizer
 * @return the count (>= 0); -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_diag_count(const pm_symbolizer *s);

/**
 * @brief **pm_sym_diag_get()** reads diagnostic number @p idx.
 * @param s         the symbolizer
 * @param idx       0 .. pm_sym_diag_count() - 1
 * @param[out] out  the diagnostic; @c out->sz set by the caller
 * @return 0; -EINVAL, -ERANGE (idx too large), -PM_ERR_STRUCT_SIZE,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_diag_get(const pm_symbolizer *s, size_t idx, struct pm_sym_diag *out);

/**
 * @brief **pm_sym_kernel_status()** says whether kernel addresses can be
 *        resolved, loading kallsyms first if that has not happened yet.
 * @param s  the symbolizer
 * @return a ::pm_sym_kernel_state (>= 0); -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_kernel_status(pm_symbolizer *s);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_SYMBOL_H */
