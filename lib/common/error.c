/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "internal/pm_internal.h"

static _Thread_local char pm_tls_msg[512];
/* The code pm_tls_msg was recorded for (positive), 0 when none. */
static _Thread_local int pm_tls_code;
/* The text of an errno value outside the table below. */
static _Thread_local char pm_tls_errno_text[128];

static const char *const pm_error_text[] = {
	[PM_ERR_FORMAT - PM_ERR_FIRST] = "Malformed input",
	[PM_ERR_TRUNCATED - PM_ERR_FIRST] = "Input is truncated",
	[PM_ERR_VERSION - PM_ERR_FIRST] = "Unsupported version",
	[PM_ERR_SYNTAX - PM_ERR_FIRST] = "Event syntax error",
	[PM_ERR_NO_PMU - PM_ERR_FIRST] = "No such PMU",
	[PM_ERR_UNKNOWN_TERM - PM_ERR_FIRST] = "Unknown event term",
	[PM_ERR_RANGE - PM_ERR_FIRST] = "Value out of range",
	[PM_ERR_PROFILEME - PM_ERR_FIRST] = "ProfileMe event rule violated",
	[PM_ERR_UNSUPPORTED - PM_ERR_FIRST] = "Not supported by this build or system",
	[PM_ERR_NO_DECODER - PM_ERR_FIRST] = "No decoder for this raw payload",
	[PM_ERR_STRUCT_SIZE - PM_ERR_FIRST] = "Bad struct size or non-zero unknown fields",
	[PM_ERR_NOT_PROFILEME - PM_ERR_FIRST] = "Not a ProfileMe sample",
	[PM_ERR_CORRUPT - PM_ERR_FIRST] = "Corrupt input",
};

const char *pm_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "Success";
	if (err > PM_ERR_FIRST && err < PM_ERR_LAST) {
		const char *s = pm_error_text[err - PM_ERR_FIRST];
		return s ? s : "Unknown libprofileme error";
	}
	if (err >= PM_ERR_FIRST)
		return "Unknown libprofileme error";
	/* strerror() is not thread-safe on every libc; keep our own table for
	 * the errno values the library returns, fall back to a generic text. */
	switch (err) {
	case EPERM: return "Operation not permitted";
	case ENOENT: return "No such file or directory";
	case ESRCH: return "No such process";
	case EINTR: return "Interrupted system call";
	case EIO: return "Input/output error";
	case E2BIG: return "Argument list too long";
	case EBADF: return "Bad file descriptor";
	case ECHILD: return "No child processes";
	case EAGAIN: return "Resource temporarily unavailable";
	case ENOMEM: return "Cannot allocate memory";
	case EACCES: return "Permission denied";
	case EFAULT: return "Bad address";
	case EBUSY: return "Device or resource busy";
	case EEXIST: return "File exists";
	case ENODEV: return "No such device";
	case ENOTDIR: return "Not a directory";
	case EISDIR: return "Is a directory";
	case EINVAL: return "Invalid argument";
	case EMFILE: return "Too many open files";
	case EFBIG: return "File too large";
	case ENOSPC: return "No space left on device";
	case ESPIPE: return "Illegal seek";
	case EPIPE: return "Broken pipe";
	case ERANGE: return "Numerical result out of range";
	case ENAMETOOLONG: return "File name too long";
	case ENOSYS: return "Function not implemented";
	case EOVERFLOW: return "Value too large for defined data type";
	case EOPNOTSUPP: return "Operation not supported";
	case ENODATA: return "No data available";
	case ETIMEDOUT: return "Connection timed out";
	case ELOOP: return "Too many levels of symbolic links";
	case EROFS: return "Read-only file system";
	case ENXIO: return "No such device or address";
	case ENFILE: return "Too many open files in system";
	case ETXTBSY: return "Text file busy";
	case ENOEXEC: return "Exec format error";
	case EXDEV: return "Invalid cross-device link";
	case ENOTTY: return "Inappropriate ioctl for device";
	case EDQUOT: return "Disk quota exceeded";
	default:
		break;
	}
	/* any other errno value: the C library's text (thread-safe form) */
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	return strerror_r(err, pm_tls_errno_text, sizeof(pm_tls_errno_text));
#else
	if (strerror_r(err, pm_tls_errno_text, sizeof(pm_tls_errno_text)) || !pm_tls_errno_text[0])
		snprintf(pm_tls_errno_text, sizeof(pm_tls_errno_text), "Unknown error %d", err);
	return pm_tls_errno_text;
#endif
}

const char *pm_errmsg(void)
{
	return pm_tls_msg;
}

const char *pm_error_string(int err)
{
	if (err < 0)
		err = -err;
	/* The message is the whole text when it was recorded for this very
	 * failure's code; a stale one (another code) is never shown. */
	if (err && pm_tls_msg[0] && pm_tls_code == err)
		return pm_tls_msg;
	return pm_strerror(err);
}

int pm__err(int code, const char *fmt, ...)
{
	va_list ap;

	if (code < 0)
		code = -code;
	va_start(ap, fmt);
	vsnprintf(pm_tls_msg, sizeof(pm_tls_msg), fmt, ap);
	va_end(ap);
	pm_tls_code = code;
	pm__log(PM_LOG_DEBUG, "error %d: %s", code, pm_tls_msg);
	return -code;
}

void pm__err_clear(void)
{
	pm_tls_msg[0] = '\0';
	pm_tls_code = 0;
}
