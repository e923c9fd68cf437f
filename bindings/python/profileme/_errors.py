# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""The exception classes of the binding, shared by every part of the
package (the generated profileme.capi, the hand-written array transfers and
the Python layer): profileme.Error (an OSError) and its subclasses by
library code and by errno (docs/python.md, "Errors").

`from_code(code, message, position=None)` gives the exception for a library
failure: `code` is the positive errno value or library code (PM_ERR_*),
`message` the library's text; `position` (event strings) makes an
EventError carry it as `.position`.  The C modules raise what it returns
for every negative return value.
"""
import errno as _errno

from . import capi as _c

# The library's error codes (include/profileme/common.h), from C.
ERR_FORMAT = _c.PM_ERR_FORMAT
ERR_TRUNCATED = _c.PM_ERR_TRUNCATED
ERR_VERSION = _c.PM_ERR_VERSION
ERR_SYNTAX = _c.PM_ERR_SYNTAX
ERR_NO_PMU = _c.PM_ERR_NO_PMU
ERR_UNKNOWN_TERM = _c.PM_ERR_UNKNOWN_TERM
ERR_RANGE = _c.PM_ERR_RANGE
ERR_PROFILEME = _c.PM_ERR_PROFILEME
ERR_UNSUPPORTED = _c.PM_ERR_UNSUPPORTED
ERR_NO_DECODER = _c.PM_ERR_NO_DECODER
ERR_STRUCT_SIZE = _c.PM_ERR_STRUCT_SIZE
ERR_NOT_PROFILEME = _c.PM_ERR_NOT_PROFILEME
ERR_CORRUPT = _c.PM_ERR_CORRUPT


def _public(cls):
    cls.__module__ = "profileme"
    return cls


@_public
class Error(OSError):
    """A libprofileme failure: an OSError whose errno is the errno value or
    the library's error code (profileme.ERR_*), and whose strerror is the
    library's message; .filename names the recording when there is one.
    Subclasses by kind: FormatError, TruncatedError, CorruptError,
    UnsupportedError, VersionError, NoDecoderError, NotProfileMeError,
    StructSizeError, EventError; errno failures also derive from the builtin
    OSError subclass (FileNotFoundError, IsADirectoryError, ...)."""


@_public
class EventError(Error, ValueError):
    """An event string that does not encode; .position is the byte offset of
    the problem (PM_ERR_SYNTAX, PM_ERR_NO_PMU, PM_ERR_UNKNOWN_TERM,
    PM_ERR_RANGE, PM_ERR_PROFILEME)."""


@_public
class FormatError(Error):
    """The input is malformed: not a perf.data file, a bad field (PM_ERR_FORMAT)."""


@_public
class TruncatedError(FormatError):
    """The input ends before a length it declares (PM_ERR_TRUNCATED)."""


@_public
class CorruptError(FormatError):
    """The input is internally inconsistent (PM_ERR_CORRUPT)."""


@_public
class UnsupportedError(Error):
    """A feature this library or system does not have: zstd not built in,
    unknown sample_type or read_format bits, ... (PM_ERR_UNSUPPORTED)."""


@_public
class VersionError(UnsupportedError):
    """A format version this library cannot read (PM_ERR_VERSION)."""


@_public
class NoDecoderError(Error):
    """No raw decoder applies to this payload (PM_ERR_NO_DECODER)."""


@_public
class NotProfileMeError(NoDecoderError):
    """A raw payload that is not a ProfileMe sample (PM_ERR_NOT_PROFILEME)."""


@_public
class StructSizeError(Error):
    """A size-versioned struct has a bad size (PM_ERR_STRUCT_SIZE): a binding bug."""


BY_CODE = {
    ERR_FORMAT: FormatError,
    ERR_TRUNCATED: TruncatedError,
    ERR_CORRUPT: CorruptError,
    ERR_UNSUPPORTED: UnsupportedError,
    ERR_VERSION: VersionError,
    ERR_NO_DECODER: NoDecoderError,
    ERR_NOT_PROFILEME: NotProfileMeError,
    ERR_STRUCT_SIZE: StructSizeError,
    ERR_SYNTAX: EventError,
    ERR_NO_PMU: EventError,
    ERR_UNKNOWN_TERM: EventError,
    ERR_RANGE: EventError,
    ERR_PROFILEME: EventError,
}


def _both(builtin):
    cls = type(builtin.__name__, (Error, builtin), {
        "__doc__": "A libprofileme failure that is also a %s." % builtin.__name__,
        "__module__": "profileme"})
    return cls


_permission = _both(PermissionError)
# errno values with a builtin OSError subclass: classes deriving from both
# (kept here, not as names of the package, so that `from profileme import *`
# does not shadow the builtins)
BY_ERRNO = {
    _errno.ENOENT: _both(FileNotFoundError),
    _errno.EISDIR: _both(IsADirectoryError),
    _errno.ENOTDIR: _both(NotADirectoryError),
    _errno.EACCES: _permission,
    _errno.EPERM: _permission,
    _errno.EPIPE: _both(BrokenPipeError),
    _errno.EINTR: _both(InterruptedError),
}


def exc_class(code):
    """The class for a positive library code or errno value."""
    return BY_CODE.get(code) or BY_ERRNO.get(code) or Error


def from_code(code, message, position=None):
    """The exception (not raised) for a failure with this code and text."""
    cls = exc_class(code)
    if position is not None and not issubclass(cls, EventError):
        cls = EventError
    exc = cls(code, message)
    if position is not None:
        exc.position = position
    return exc
