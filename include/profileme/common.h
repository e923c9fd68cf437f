/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/common.h
 * @brief Export macro, error codes, error text, logging and version queries.
 *
 * Every function of libprofileme that can fail returns 0 (or a documented
 * non-negative value) on success and a negative error code on failure: either
 * a negated errno value (-ENOENT, -EINVAL, ...) or one of the negated library
 * codes of ::pm_error.  pm_strerror() turns either kind into text, and
 * pm_errmsg() gives the detailed message of the calling thread's last failure.
 */
#ifndef PROFILEME_COMMON_H
#define PROFILEME_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifndef PM_API
# if defined(_WIN32)
#  if defined(PM_BUILDING_LIBRARY)
#   define PM_API __declspec(dllexport)
#  else
#   define PM_API __declspec(dllimport)
#  endif
# elif defined(__GNUC__) && __GNUC__ >= 4
/** Marks a declaration as part of the public ABI (default visibility). */
#  define PM_API __attribute__((visibility("default")))
# else
#  define PM_API
# endif
#endif

/**
 * @brief End offset of @p member in @p type: the smallest `sz` that holds it.
 *
 * Size-versioned structs (first member `size_t sz`, set by the caller) each
 * have a frozen minimum `PM_<STRUCT>_SZ_V1` written with this macro: the
 * library of every later release accepts any `sz` of at least that value.
 * See docs/conventions.md, "Sized structs".
 */
#define PM_OFFSETOFEND(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/**
 * @brief Largest `sz` any size-versioned struct may declare (64 KiB).  A
 *        larger `sz` (typically an uninitialised one) is refused with
 *        -PM_ERR_STRUCT_SIZE and nothing is read or written through it.
 */
#define PM_STRUCT_SZ_MAX ((size_t)65536)

/**
 * @brief Marks a declaration as deprecated: the compiler warns at each use
 *        (with @p msg, which names the replacement).  A deprecated function
 *        stays exported, in its version node, until the SONAME changes.
 */
#ifndef PM_DEPRECATED
# if defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))
#  define PM_DEPRECATED(msg) __attribute__((deprecated(msg)))
# elif defined(__clang__)
#  define PM_DEPRECATED(msg) __attribute__((deprecated(msg)))
# elif defined(_MSC_VER)
#  define PM_DEPRECATED(msg) __declspec(deprecated(msg))
# else
#  define PM_DEPRECATED(msg)
# endif
#endif

/**
 * @brief Marks a declaration of the **experimental tier** (written before
 *        PM_API): not settled for 0.1.  Its symbol lives in the version node
 *        `PROFILEME_EXPERIMENTAL_0.1`, not in a release node, and it may
 *        change or go in any minor release; a program that used it then
 *        fails to load with a missing symbol version instead of misbehaving.
 *        `profileme/experimental.h` lists the tier.  See
 *        docs/api-stability.md.
 */
#define PM_EXPERIMENTAL

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Library-specific error codes.
 *
 * Functions return these negated (for example `-PM_ERR_FORMAT`).  They live
 * above 4000 so they never collide with errno values.
 */
enum pm_error {
	PM_ERR_FIRST = 4000,        /**< Lowest library error code. */
	PM_ERR_FORMAT = 4001,       /**< Input is malformed (bad syntax or bad field). */
	PM_ERR_TRUNCATED = 4002,    /**< Input ends before a length it declares. */
	PM_ERR_VERSION = 4003,      /**< A version this library cannot read. */
	PM_ERR_SYNTAX = 4004,       /**< Event string syntax error. */
	PM_ERR_NO_PMU = 4005,       /**< No PMU of that name. */
	PM_ERR_UNKNOWN_TERM = 4006, /**< A term the PMU does not define. */
	PM_ERR_RANGE = 4007,        /**< A value too large for its field. */
	PM_ERR_PROFILEME = 4008,    /**< A ProfileMe rule is broken (must sample, alone in its group). */
	PM_ERR_UNSUPPORTED = 4009,  /**< Feature not built into this library (e.g. zstd) or not on this system. */
	PM_ERR_NO_DECODER = 4010,   /**< No raw decoder applies to this payload. */
	PM_ERR_STRUCT_SIZE = 4011,  /**< A size-versioned struct has a bad size or non-zero unknown tail. */
	PM_ERR_NOT_PROFILEME = 4012,/**< A raw payload that is not a ProfileMe sample. */
	PM_ERR_CORRUPT = 4013,      /**< Input is internally inconsistent (corrupt). */
	PM_ERR_LAST = 4014          /**< One past the highest library error code. */
};

/**
 * @brief **pm_strerror()** describes an error code.
 * @param err a return value of a libprofileme function (negative), or an
 *            errno or ::pm_error value (positive); 0 gives "Success".
 * @return a static string; never NULL.  Thread-safe.
 * @since 0.1
 */
PM_API const char *pm_strerror(int err);

/**
 * @brief **pm_errmsg()** gives the detailed message of the calling thread's
 *        most recent failure (for example "format 'event': value 0x1ff too
 *        big, maximum is 0xff").
 *
 * The message is complete on its own: it says what failed, on what (the
 * file, the event, the offset), and why, including the system's text for
 * an errno cause ("cannot create 'out.data': Permission denied").  So print
 * it alone, never as `pm_strerror(err): pm_errmsg()` (that shows the cause
 * twice); pm_error_string() does the right thing in one call.
 * @return a thread-local string, valid until the next libprofileme call in
 *         this thread; "" when no message was recorded.
 * @since 0.1
 */
PM_API const char *pm_errmsg(void);

/**
 * @brief **pm_error_string()** gives the one text to show for a failure:
 *        the detailed message (pm_errmsg()) when the calling thread's last
 *        failure recorded one with this same code, else pm_strerror(err).
 *
 * ```c
 * int err = pm_file_open(&f, path, NULL);
 * if (err < 0)
 *     fprintf(stderr, "%s\n", pm_error_string(err));
 * ```
 * @param err the negative return value (or the positive code)
 * @return a thread-local or static string, valid until the next
 *         libprofileme call in this thread; never NULL.
 * @since 0.1
 */
PM_API const char *pm_error_string(int err);

/** @brief Log levels for pm_set_log(). */
enum pm_log_level {
	PM_LOG_ERROR = 0, /**< Failures the library recovered from or reports. */
	PM_LOG_WARN = 1,  /**< Suspicious input that was accepted. */
	PM_LOG_INFO = 2,  /**< What the library chose (fallbacks, defaults). */
	PM_LOG_DEBUG = 3  /**< Detailed tracing. */
};

/**
 * @brief Log callback: receives one formatted message (no trailing newline).
 * @param level a ::pm_log_level value
 * @param msg   the message, valid only during the call
 * @param user  the pointer given to pm_set_log()
 */
typedef void (*pm_log_fn)(int level, const char *msg, void *user);

/**
 * @brief **pm_set_log()** installs a log callback.  The library never prints
 *        on its own; without a callback its messages are dropped.
 * @param fn        callback, or NULL to silence the library (the default)
 * @param user      passed to every call of @p fn
 * @param max_level messages above this ::pm_log_level are not delivered
 * @return the previous callback.  The swap is atomic; call it before other
 *         threads use the library if they must see the new callback.
 * @since 0.1
 */
PM_API pm_log_fn pm_set_log(pm_log_fn fn, void *user, int max_level);

/**
 * @brief **pm_version_string()** gives the run-time library version.
 * @return "MAJOR.MINOR.PATCH" of the loaded library (compare with PM_VERSION_STRING).
 * @since 0.1
 */
PM_API const char *pm_version_string(void);

/**
 * @brief **pm_version_number()** gives the run-time library version as a number.
 * @return MAJOR*10000 + MINOR*100 + PATCH (compare with PM_VERSION_NUMBER).
 * @since 0.1
 */
PM_API unsigned pm_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_COMMON_H */
