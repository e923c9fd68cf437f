/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/symbol.h
 * @brief Address → (symbol, offset, module) for the processes of a profile.
 *
 * A ::pm_sym learns, per process, which files are mapped where (from
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
 * (pm_sym_free() does nothing).
 *
 * A ::pm_sym is not thread-safe; strings it returns are borrowed and
 * stay valid until pm_sym_free().
 */
#ifndef PROFILEME_SYMBOL_H
#define PROFILEME_SYMBOL_H

#include <profileme/common.h>
#include <profileme/record.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque symbolizer: maps of processes, cache of files, kernel symbols. */
typedef struct pm_sym pm_sym;

/** @name pm_sym_opts.flags
 *  @{ */
/** Never read kernel symbols (kernel addresses stay "[unknown]"). */
#define PM_SYM_OPT_NO_KERNEL (1u << 0)
/** Do not look for separate debug files. */
#define PM_SYM_OPT_NO_DEBUG_FILES (1u << 1)
/** @} */

/**
 * @brief Options of pm_sym_new(); size-versioned (set @c sz to
 *        sizeof(struct pm_sym_opts)).  NULL means all defaults.
 */
struct pm_sym_opts {
	size_t sz;             /**< sizeof(struct pm_sym_opts), set by the caller. */
	const char *sysroot;   /**< Prefix for every mapped file name when opening it (NULL: none). */
	const char *debug_dir; /**< Global debug directory (NULL: `<sysroot>/usr/lib/debug`). */
	const char *kallsyms;  /**< Kernel symbol file (NULL: `/proc/kallsyms`). */
	uint32_t flags;        /**< PM_SYM_OPT_* bits. */
	uint32_t reserved;     /**< Zero. */
	/** The recording's path, for pm_sym_new_from_file() only (pm_sym_new() ignores it;
	 *  NULL or "-": none, e.g. standard input or a pipe).  When the recording says it is synthetic (its
	 *  HOSTNAME or CPUDESC feature or its first CMDLINE argument contains "synthetic")
	 *  and @c sysroot or @c kallsyms is NULL, the sidecar next to it is used:
	 *  `<directory of path>/symfs` as @c sysroot and `<that>/kallsyms` as @c kallsyms,
	 *  each only if it exists (a ::PM_SYM_DIAG_SIDECAR diagnostic says so).  A real
	 *  recording never uses it; a non-NULL @c sysroot / @c kallsyms always wins.
	 *  Since 0.1 (after PM_SYM_OPTS_SZ_V1). */
	const char *path;
	/** Directory of the kernel symbol cache, which spares a process the reading of
	 *  /proc/kallsyms (tens of milliseconds of kernel time) when the kernel's table can be
	 *  shown not to have changed; an answer from it is always the one a fresh read gives
	 *  (docs/symbol.md, "Kernel symbol cache").  NULL: `$PROFILEME_CACHE_DIR` if set (set and
	 *  empty: no cache), else `$XDG_CACHE_HOME/profileme`, else `~/.cache/profileme`; "": no
	 *  cache.  Only `/proc/kallsyms` is cached (never a @c kallsyms file given here, nor a
	 *  sidecar's); a directory that cannot be written is no error (the symbols are read as
	 *  without a cache; a debug log line says why).  Since 0.1 (after @c path). */
	const char *cache_dir;
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

/**
 * @brief **pm_sym_lookup_how()**: the pm_sym_lookup() flags for a sample's
 *        or a callchain frame's cpumode, as every consumer of the library
 *        applies them (kernel and guest kernel: PM_SYM_LOOKUP_KERNEL; user
 *        and guest user: PM_SYM_LOOKUP_USER; hypervisor and unknown: 0).
 * @param cpumode  a PM_RECORD_MISC_* cpumode (misc & PM_RECORD_MISC_CPUMODE_MASK)
 * @return the flags.
 * @since 0.1
 */
static inline uint32_t pm_sym_lookup_how(int cpumode)
{
	switch (cpumode) {
	case PM_RECORD_MISC_KERNEL:
	case PM_RECORD_MISC_GUEST_KERNEL:
		return PM_SYM_LOOKUP_KERNEL;
	case PM_RECORD_MISC_USER:
	case PM_RECORD_MISC_GUEST_USER:
		return PM_SYM_LOOKUP_USER;
	default:
		return 0;
	}
}

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
	PM_SYM_DIAG_NO_KALLSYMS = 9,  /**< The kallsyms file cannot be read. */
	PM_SYM_DIAG_FOREIGN_KERNEL = 10, /**< Information (pm_sym_new_from_file()): the recording is of
	                                     another kernel; this machine's kallsyms and vDSO are not used. */
	PM_SYM_DIAG_BAD_LINES = 11, /**< The file's line table (.debug_line) is malformed or cannot be
	                                decompressed: the addresses it would cover have no line
	                                (pm_sym_lookup_line()); the message names the unit and the rule. */
	PM_SYM_DIAG_SIDECAR = 12 /**< Information (pm_sym_new_from_file() with pm_sym_opts.path): a
	                              synthetic recording's symbols come from the symfs and/or kallsyms
	                              next to it; @c file is the symfs directory, the message is
	                              "synthetic recording: symbols from ..." (as the CLI prints it). */
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
	PM_SYM_KERNEL_UNREADABLE = 3, /**< kallsyms missing, unreadable or without text symbols. */
	PM_SYM_KERNEL_FOREIGN = 4     /**< pm_sym_new_from_file(): the recording is of another kernel
	                                   (architecture, release or kernel build id differ) and no
	                                   kallsyms file was given: this machine's is not used. */
};

/**
 * @brief **pm_sym_new()** creates an empty symbolizer.
 * @param[out] out  the new symbolizer (NULL on failure)
 * @param opts      options, or NULL for the defaults
 * @return 0; -EINVAL (NULL @p out), -PM_ERR_STRUCT_SIZE, -ENOMEM,
 *         -PM_ERR_UNSUPPORTED (built without libelf).
 * @since 0.1
 */
PM_API int pm_sym_new(pm_sym **out, const struct pm_sym_opts *opts);

/**
 * @brief **pm_sym_free()** frees a symbolizer and every string it returned.
 * @param s  the symbolizer, or NULL
 * @since 0.1
 */
PM_API void pm_sym_free(pm_sym *s);

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
PM_API int pm_sym_add_map(pm_sym *s, int32_t pid, uint64_t start, uint64_t len,
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
PM_API int pm_sym_load_proc_maps(pm_sym *s, int32_t pid);

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
PM_API int pm_sym_fork(pm_sym *s, int32_t parent, int32_t child);

/**
 * @brief **pm_sym_exec()** forgets the maps of @p pid (PERF_RECORD_COMM with
 *        the exec flag; the new image's maps arrive next).
 * @param s    the symbolizer
 * @param pid  process id
 * @return 0; -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_exec(pm_sym *s, int32_t pid);

/**
 * @brief **pm_sym_exit()** marks @p pid as exited (PERF_RECORD_EXIT).  Its
 *        maps stay usable for samples that arrive late, and are dropped when
 *        the pid is reused (a map added to it or a fork into it).
 * @param s    the symbolizer
 * @param pid  process id
 * @return 0; -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_exit(pm_sym *s, int32_t pid);

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
PM_API int pm_sym_lookup(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
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
PM_API int pm_sym_find(pm_sym *s, const char *dso, const char *name, size_t idx,
		       struct pm_sym_def *out);

/**
 * @brief **pm_sym_preload()** loads every file known so far (and kallsyms),
 *        so that the diagnostics are complete before the first lookup.
 * @param s  the symbolizer
 * @return the number of files that could not give any symbol (>= 0);
 *         -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_preload(pm_sym *s);

/**
 * @brief **pm_sym_diag_count()** gives the number of per-file diagnostics
 *        so far (files are reported when they are loaded).
 * @param s  the symbolizer
 * @return the count (>= 0); -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_diag_count(const pm_sym *s);

/**
 * @brief **pm_sym_diag_get()** reads diagnostic number @p idx.
 * @param s         the symbolizer
 * @param idx       0 .. pm_sym_diag_count() - 1
 * @param[out] out  the diagnostic; @c out->sz set by the caller
 * @return 0; -EINVAL, -ERANGE (idx too large), -PM_ERR_STRUCT_SIZE,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_diag_get(const pm_sym *s, size_t idx, struct pm_sym_diag *out);

/**
 * @brief **pm_sym_kernel_status()** says whether kernel addresses can be
 *        resolved, loading kallsyms first if that has not happened yet.
 * @param s  the symbolizer
 * @return a ::pm_sym_kernel_state (>= 0); -EINVAL, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_kernel_status(pm_sym *s);

/** Longest map name pm_sym_add_map_len() accepts (PATH_MAX of Linux). */
#define PM_SYM_NAME_MAX 4096u

/**
 * @brief **pm_sym_add_map_len()** is pm_sym_add_map() with a name that need
 *        not be NUL-terminated: @p name_len bytes at @p name (it stops at a
 *        NUL inside them), such as pm_record_mmap::filename and
 *        pm_record_mmap::filename_len.  No copy is needed by the caller.
 * @param s         the symbolizer
 * @param pid       process id (-1: kernel maps)
 * @param start     first mapped address
 * @param len       length in bytes (> 0)
 * @param pgoff     file offset of @p start
 * @param name      the path as recorded (may be NULL when @p name_len is 0)
 * @param name_len  bytes at @p name (at most ::PM_SYM_NAME_MAX)
 * @return 0; -EINVAL (NULL symbolizer, len 0, wrap-around, name too long),
 *         -ENOMEM, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_add_map_len(pm_sym *s, int32_t pid, uint64_t start, uint64_t len,
			      uint64_t pgoff, const char *name, size_t name_len);

/**
 * @brief A source position found by pm_sym_lookup_line(); size-versioned
 *        (set @c sz).
 */
struct pm_sym_line {
	size_t sz;         /**< sizeof(struct pm_sym_line), set by the caller. */
	const char *file;  /**< Source file as the line table names it (directory joined to the
	                        name), or NULL when none; borrowed. */
	uint32_t line;     /**< Line number (1-based; 0: the line table says none). */
	uint32_t column;   /**< Column (1-based), 0 when the line table gives none. */
};
/** Frozen minimum @c sz of struct pm_sym_line (the whole struct as first released);
 *  accepted by every later release.  See PM_OFFSETOFEND(). */
#define PM_SYM_LINE_SZ_V1 PM_OFFSETOFEND(struct pm_sym_line, column)

/**
 * @brief **pm_sym_lookup_line()** gives the source file and line of @p addr
 *        of process @p pid, from the DWARF line table (`.debug_line`,
 *        DWARF 2 to 5, compressed sections too) of the file that maps it,
 *        or of its separate debug file (docs/symbol.md, "Line numbers").
 *
 * The line table is read on the first line lookup in a file and kept with
 * its symbols; a lookup is then a binary search.  A file with a malformed
 * table gives one ::PM_SYM_DIAG_BAD_LINES diagnostic; kernel addresses have
 * no line.  The position is that of the instruction at @p addr: for a
 * callchain's return address pass the call's address (addr - 1), as
 * `addr2line` wants it too.
 * @param s         the symbolizer
 * @param pid       process id
 * @param addr      the run-time address
 * @param how       0 or one of PM_SYM_LOOKUP_USER / PM_SYM_LOOKUP_KERNEL
 * @param[out] out  the position (file NULL and line 0 when none);
 *                  @c out->sz set by the caller
 * @return 1 when a line was found, 0 when none; -EINVAL (NULL argument),
 *         -PM_ERR_STRUCT_SIZE, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_lookup_line(pm_sym *s, int32_t pid, uint64_t addr, uint32_t how,
			      struct pm_sym_line *out);

/**
 * @brief **pm_sym_dso_line()** is pm_sym_lookup_line() by module and file
 *        address (pm_sym_result::dso and pm_sym_result::dso_addr, or the
 *        addresses `objdump -d` and `addr2line -e FILE` use).  The module
 *        need not be mapped by any process: it is opened as
 *        `<sysroot><dso>` (see pm_sym_opts).
 * @param s         the symbolizer
 * @param dso       a module path (the mapped name)
 * @param dso_addr  a file address in it
 * @param[out] out  the position; @c out->sz set by the caller
 * @return 1 when a line was found, 0 when none; -EINVAL, -ENOMEM,
 *         -PM_ERR_STRUCT_SIZE, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_dso_line(pm_sym *s, const char *dso, uint64_t dso_addr,
			   struct pm_sym_line *out);

struct pm_record;
struct pm_file;

/**
 * @brief **pm_sym_add_record()** feeds one parsed record to the symbolizer:
 *        the library's one policy for following processes through a
 *        recording (docs/symbol.md).
 *
 * - MMAP / MMAP2 of code: pm_sym_add_map_len().  A data mapping (misc
 *   PM_RECORD_MISC_MMAP_DATA, or an MMAP2 whose prot lacks PROT_EXEC) is no
 *   code and is skipped, as is a mapping of length 0.
 * - COMM with PM_RECORD_MISC_COMM_EXEC of a process (pid == tid): exec, the
 *   process's maps are dropped (pm_sym_exec()); the new image's follow.
 * - FORK of a new process (pid != ppid): the child inherits the parent's maps
 *   (pm_sym_fork()); a new thread changes nothing.
 * - EXIT of a process (pid == tid): pm_sym_exit().
 * - Any other record: nothing.
 *
 * Feed records in time order (pm_file_next() gives that) and look samples up
 * as they come: a lookup then uses the maps as they were at the sample's
 * time.
 * @param s  the symbolizer
 * @param r  the record from pm_record_parse() or pm_file_record_parse()
 * @return 1 when the record changed what the symbolizer knows, 0 when it was
 *         ignored; -EINVAL (NULL argument, @c r->sz too small), -ENOMEM,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_add_record(pm_sym *s, const struct pm_record *r);

/**
 * @brief **pm_sym_new_from_file()** creates a symbolizer for a recording: like
 *        pm_sym_new(), plus the one decision whether this machine's kernel
 *        symbols may stand for the recorded kernel's.
 *
 * When @c opts->kallsyms is NULL and the recording says it is of another
 * kernel (its ARCH or OSRELEASE feature differs from uname(), or its
 * BUILD_ID table gives a build id of `[kernel.kallsyms]` that differs from
 * this kernel's in /sys/kernel/notes), `/proc/kallsyms` is not read and
 * kernel addresses stay "[unknown]": pm_sym_kernel_status() says
 * ::PM_SYM_KERNEL_FOREIGN and a ::PM_SYM_DIAG_FOREIGN_KERNEL diagnostic
 * says why.  A recording that names no kernel (no such features) is taken
 * as this machine's.  The same decision governs the vDSO image of this
 * machine (docs/symbol.md).  The recording's build id of `[vdso]`, if any,
 * is remembered to find the vDSO in perf's build-id cache.  With
 * pm_sym_opts.path, a synthetic recording's symbols come from the sidecar
 * next to it (see pm_sym_opts.path), so that every consumer names its
 * samples the same.
 * @param[out] out  the new symbolizer (NULL on failure)
 * @param f         the recording (only its header is read)
 * @param opts      options, or NULL for the defaults
 * @return 0; as pm_sym_new(); -EINVAL (NULL @p f).
 * @since 0.1
 */
PM_API int pm_sym_new_from_file(pm_sym **out, struct pm_file *f, const struct pm_sym_opts *opts);

/**
 * @brief **pm_sym_kallsyms_path()** names the kernel symbol file the
 *        symbolizer reads: pm_sym_opts.kallsyms, the sidecar's of a synthetic
 *        recording (pm_sym_opts.path), or "/proc/kallsyms".
 * @param s  the symbolizer
 * @return the path (borrowed, valid until pm_sym_free()); NULL for a NULL @p s
 *         or a library built without libelf.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API const char *pm_sym_kallsyms_path(const pm_sym *s);

/** @name pm_sym_resolve_file() flags
 *  @{ */
/** The @p when values are time stamps (sample time); without it they are
 *  sample ordinals: 0 for the first PERF_RECORD_SAMPLE pm_file_next() gives,
 *  1 for the next, ... */
#define PM_SYM_WHEN_TIME (1u << 0)
/** @} */

/**
 * @brief **pm_sym_resolve_file()** resolves many addresses of a recording
 *        at once, each with the maps as they were at its sample: the
 *        records of @p f are replayed from where the file stands (open it
 *        fresh) through pm_sym_add_record(), and query @c i is looked up once
 *        every record before its sample has been fed (by time:
 *        every record with a time not after @c when[i]; records without a
 *        time are fed in stream order).
 *
 * Each distinct (pid, maps generation, address, mode) is looked up once; the
 * distinct results are kept in the symbolizer and read with
 * pm_sym_resolved_get().  @c cpumode values are PERF_RECORD_MISC cpumodes
 * (user: user maps only; kernel: kallsyms only; other values: user maps
 * first, then the kernel).
 * @param s        a symbolizer from pm_sym_new_from_file() of @p f
 * @param f        the recording, before its first record
 * @param n        number of queries
 * @param pid      n process ids
 * @param addr     n addresses
 * @param cpumode  n cpumodes (NULL: 0 for all)
 * @param when     n time stamps or sample ordinals (see ::PM_SYM_WHEN_TIME);
 *                 NULL: every query sees the maps of the end of the recording
 * @param flags    0 or ::PM_SYM_WHEN_TIME
 * @param[out] out_idx  n indexes into the distinct results
 * @return the number of distinct results (>= 0); -EINVAL, -ENOMEM,
 *         -EOVERFLOW (more than UINT32_MAX results), a reading error of
 *         @p f, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int64_t pm_sym_resolve_file(pm_sym *s, struct pm_file *f, size_t n, const int32_t *pid,
				   const uint64_t *addr, const uint8_t *cpumode, const uint64_t *when,
				   uint32_t flags, uint32_t *out_idx);

/**
 * @brief **pm_sym_resolved_get()** reads distinct result @p idx of the last
 *        pm_sym_resolve_file() (its strings stay valid until pm_sym_free()).
 * @param s         the symbolizer
 * @param idx       below the count pm_sym_resolve_file() returned
 * @param[out] res  the result; @c res->sz set by the caller
 * @return 0; -EINVAL, -ERANGE, -PM_ERR_STRUCT_SIZE, -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_resolved_get(const pm_sym *s, size_t idx, struct pm_sym_result *res);

/** A cpumode value of pm_sym_rows::cpumode (no PERF_RECORD_MISC cpumode):
 *  the address is a PALcode physical address, where pm_profileme_attribute()
 *  charges a sample with ::PM_PROFILEME_CHARGE_PALCODE.  Not looked up: its
 *  symbol and module are `[PALcode]`, its offset the address itself. */
#define PM_SYM_CPUMODE_PALCODE 255u

/** @name pm_sym_rows.flags (with ::PM_SYM_WHEN_TIME)
 *  @{ */
/** The module column holds the file's basename, as `perf report` shows it
 *  (`[kernel.kallsyms]`, `[vdso]` and the other bracketed names as they
 *  are), not the mapped path. */
#define PM_SYM_ROWS_DSO_BASENAME (1u << 1)
/** The rows are those read before a reading error (a cut or damaged
 *  recording read with partial results, such as pm_columns_read_rows()
 *  gives up to its error): the replay ends at that error as at the end of
 *  the recording instead of failing with it, and every row is resolved with
 *  the maps and names known there.  Without it the error is returned. */
#define PM_SYM_ROWS_PARTIAL (1u << 2)
/** @} */

/** @name Tables of pm_sym_rows_string()
 *  @{ */
#define PM_SYM_TABLE_SYM 0  /**< symbol names (pm_sym_rows::sym) */
#define PM_SYM_TABLE_DSO 1  /**< module names (pm_sym_rows::dso) */
#define PM_SYM_TABLE_COMM 2 /**< thread names (pm_sym_rows::comm) */
/** @} */

/**
 * @brief Rows for pm_sym_resolve_rows(): the queries (one per sample) and the
 *        column arrays the results go to; size-versioned (set @c sz).
 * Every output pointer may be NULL (that column is not wanted); each non-NULL
 * one holds @c n elements.
 */
struct pm_sym_rows {
	size_t sz;              /**< sizeof(struct pm_sym_rows), set by the caller. */
	size_t n;               /**< Number of rows. */
	const int32_t *pid;     /**< n process ids. */
	const uint64_t *addr;   /**< n addresses (the charged ones: the ip, or where
				 *   pm_profileme_attribute() / pm_ibs_attribute() charge). */
	const uint8_t *cpumode; /**< n cpumodes, as pm_sym_resolve_file(), or
				 *   ::PM_SYM_CPUMODE_PALCODE (NULL: 0 for all). */
	const uint64_t *when;   /**< n time stamps or sample ordinals, as pm_sym_resolve_file()
				 *   (NULL: the maps and names of the end of the recording). */
	const uint32_t *tid;    /**< n thread ids; needed when @c comm is set. */
	uint32_t flags;         /**< ::PM_SYM_WHEN_TIME, ::PM_SYM_ROWS_DSO_BASENAME,
				 *   ::PM_SYM_ROWS_PARTIAL. */
	uint32_t reserved;      /**< Zero. */
	uint32_t *sym;          /**< Out: n indexes into table ::PM_SYM_TABLE_SYM, or NULL. */
	uint32_t *dso;          /**< Out: n indexes into table ::PM_SYM_TABLE_DSO, or NULL. */
	uint64_t *symoff;       /**< Out: n offsets from the symbol's start (a PALcode row:
				 *   its address; unknown: 0), or NULL. */
	uint32_t *comm;         /**< Out: n indexes into table ::PM_SYM_TABLE_COMM, or NULL. */
	/** Bytes from one row's element of each input column to the next's, in
	 *  the order pid, addr, cpumode, when, tid (the fields of an array of
	 *  structures read in place, no copy); 0: the element's size (a plain
	 *  array).  A stride is 0 or at least the element's size; elements need
	 *  no alignment.  Since 0.1 (after PM_SYM_ROWS_SZ_V1: an older caller's
	 *  struct has plain arrays). */
	size_t stride[5];
};
/** Frozen minimum @c sz of struct pm_sym_rows (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_SYM_ROWS_SZ_V1 PM_OFFSETOFEND(struct pm_sym_rows, comm)

/**
 * @brief **pm_sym_resolve_rows()** gives whole columns of a recording's
 *        samples at once: symbol, module and offset of each row's address
 *        with the maps of its time (the replay and the rules of
 *        pm_sym_resolve_file()), and the name of its thread then.
 *
 * Names are indexes into three tables of distinct strings, each sorted by
 * strcmp() and read with pm_sym_rows_string(): a column is an array of small
 * integers plus a short table, a categorical column as dataframes hold them.
 * The thread's name (`comm`) follows the COMM records replayed: a thread takes
 * its name from its last COMM record not after the row's time, a new thread
 * its parent's name at FORK when it has none of its own, and a thread never
 * named is `:TID`, as perf shows it.  Unknown symbols and modules are
 * `[unknown]`; a ::PM_SYM_CPUMODE_PALCODE row is `[PALcode]`.  Kernel
 * symbols are read only when a row is a kernel address.
 * @param s     a symbolizer from pm_sym_new_from_file() of @p f
 * @param f     the recording, before its first record (open it fresh)
 * @param rows  the rows and the output columns
 * @return 0; -EINVAL (NULL argument, a missing input array, unknown flags),
 *         -PM_ERR_STRUCT_SIZE, -ENOMEM, -EOVERFLOW, a reading error of @p f,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int pm_sym_resolve_rows(pm_sym *s, struct pm_file *f, const struct pm_sym_rows *rows);

/**
 * @brief **pm_sym_rows_string()** reads string @p idx of a table of the last
 *        pm_sym_resolve_rows() (valid until the next one or pm_sym_free()).
 * @param s      the symbolizer
 * @param table  ::PM_SYM_TABLE_SYM, ::PM_SYM_TABLE_DSO or ::PM_SYM_TABLE_COMM
 * @param idx    below pm_sym_rows_count()
 * @return the string; NULL for a bad argument (pm_errmsg() says which).
 * @since 0.1
 */
PM_API const char *pm_sym_rows_string(const pm_sym *s, int table, size_t idx);

/**
 * @brief **pm_sym_rows_count()**: the number of strings of a table of the
 *        last pm_sym_resolve_rows().
 * @param s      the symbolizer
 * @param table  ::PM_SYM_TABLE_SYM, ::PM_SYM_TABLE_DSO or ::PM_SYM_TABLE_COMM
 * @return the count (>= 0; 0 before any pm_sym_resolve_rows()); -EINVAL,
 *         -PM_ERR_UNSUPPORTED.
 * @since 0.1
 */
PM_API int64_t pm_sym_rows_count(const pm_sym *s, int table);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_SYMBOL_H */
