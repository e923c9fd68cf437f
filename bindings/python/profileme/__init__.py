# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""libprofileme for Python: PMUs, event strings, perf.data files, ProfileMe
and IBS payloads, and live sampling -- with bulk decoding into numpy.

    import profileme
    with profileme.open("perf.data") as rec:
        s = rec.samples()            # numpy structured array, one row per sample
        df = rec.to_pandas()         # the same as a DataFrame

The bulk path (``samples()``, ``to_pandas()``) decodes in C, in batches,
straight into the rows of the returned array, with the GIL released: there is
no Python object per sample.  ``records()`` is the detailed, slow path: one
dict per record with every field.
"""

import contextlib
import io
import os
import re
import stat
import sys
import warnings

import numpy as np

from . import _glue as _c
from . import _lib
from . import capi

# Exceptions: profileme.Error (an OSError: .errno is the errno value or the
# library code, .strerror the library's message, .filename the recording) and
# its subclasses by kind.  A failure with an errno that has a builtin OSError
# subclass raises a class deriving from both profileme.Error and that builtin
# (a missing file is a FileNotFoundError and a profileme.Error).
from ._errors import (  # noqa: E402  (the classes, and the library codes as constants)
    Error, EventError, FormatError, TruncatedError, CorruptError, UnsupportedError, VersionError,
    NoDecoderError, NotProfileMeError, StructSizeError,
    ERR_FORMAT, ERR_TRUNCATED, ERR_VERSION, ERR_SYNTAX, ERR_NO_PMU, ERR_UNKNOWN_TERM, ERR_RANGE,
    ERR_PROFILEME, ERR_UNSUPPORTED, ERR_NO_DECODER, ERR_STRUCT_SIZE, ERR_NOT_PROFILEME, ERR_CORRUPT)


class DamageWarning(UserWarning):
    """Samples were left out: a damaged recording read with ``partial=True``
    (the rows before the damage are returned), or samples that could not be
    parsed and were skipped.  The message says how many and why."""


__version__, _version_number = _lib.version()
__all__ = [
    "CorruptError", "DamageWarning", "Error", "EventError", "FormatError", "NoDecoderError",
    "NotProfileMeError", "PMU", "PerfData", "Session", "StructSizeError", "TruncatedError",
    "UnsupportedError", "VersionError", "__version__", "decode_profileme", "decode_raw", "encode",
    "library_version", "open", "pmus", "raw_decoders", "read_many", "CPUMODES",
]


def _renamed(exc, name):
    """The same exception with the recording's name as .filename and the
    library's own naming of the file (the path, or "<fd N>" / "<stdin>" when
    it was opened from a descriptor) dropped from the message."""
    msg = exc.strerror if isinstance(exc.strerror, str) else str(exc)
    if msg.startswith(name + ": "):
        msg = msg[len(name) + 2:]
    else:
        msg = re.sub(r"^(?:<fd \d+>|<stdin>|perf\.data): ", "", msg)
    new = type(exc)(exc.errno, msg, name)
    for k in ("position", "event"):
        if hasattr(exc, k):
            setattr(new, k, getattr(exc, k))
    return new


@contextlib.contextmanager
def _named(name):
    """Library errors raised inside name the recording."""
    try:
        yield
    except Error as e:
        if name is None or e.filename is not None:
            raise
        raise _renamed(e, name).with_traceback(e.__traceback__) from None


def _no_nul(value, what):
    if "\0" in value:
        raise ValueError("%s contains a NUL character (at %d)" % (what, value.index("\0")))
    return value


def library_version():
    """The loaded C library's version: (string, number)."""
    return _lib.version()


def _opt_str(value, what):
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError("%s must be a string or None, not %s" % (what, type(value).__name__))
    return _no_nul(value, what)


# ---------------------------------------------------------------- PMUs and events

class PMU:
    """One PMU from sysfs: name, type, formats, events (aliases), caps, cpus."""

    __slots__ = ("name", "type", "formats", "events", "caps", "cpus", "uncore", "profileme",
                 "diagnostics")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    def __repr__(self):
        return "PMU(name=%r, type=%r, formats=%d, events=%d)" % (
            self.name, self.type, len(self.formats), len(self.events))


def pmus(sysfs=None):
    """The PMUs under a sysfs root (default: $PROFILEME_SYSFS or /sys)."""
    return [PMU(d) for d in _lib.pmus(_opt_str(sysfs, "sysfs"))]


_ENCODE_KEYS = ("event", "type", "config", "config1", "config2", "config3", "precise_ip",
                "exclude_user", "exclude_kernel", "exclude_hv", "exclude_host", "exclude_guest",
                "exclude_idle", "freq")


def encode(event, sysfs=None):
    """Encode a perf-style event string into its perf_event_attr.

    Returns a dict with the keys of ``profileme encode --json`` (plus
    ``sample_type``, ``flags``, ``name``, ``group``).  A string with several
    events returns a list of such dicts.  Raises EventError (with
    ``.position``) when the string does not encode.
    """
    if not isinstance(event, str):
        raise TypeError("event must be a string, not %s" % type(event).__name__)
    if "\0" in event:
        # the C string would end there: refuse rather than encode a prefix
        e = EventError(ERR_SYNTAX, "a NUL character in the event string (at %d)" % event.index("\0"))
        e.position = event.index("\0")
        e.event = event
        raise e
    res = _lib.encode(event, _opt_str(sysfs, "sysfs"))
    return res[0] if len(res) == 1 else res


def raw_decoders():
    """Names of the registered raw-payload decoders."""
    return _lib.raw_decoders()


def decode_raw(data, decoder):
    """Decode one PERF_SAMPLE_RAW payload (bytes-like) with the named decoder
    ("alpha_profileme", "ibs_fetch", "ibs_op"): a dict of field name -> value
    (codes as their names, flags as bool; fields the hardware marked invalid
    are left out)."""
    if not isinstance(decoder, str):
        raise TypeError("decoder must be a string")
    if capi.pm_raw_decoder_find(decoder) is None:
        raise ValueError("no raw decoder named %r (known: %r)" % (decoder, _lib.raw_decoders()))
    return _lib.decode_raw(memoryview(data), decoder)


def decode_profileme(data):
    """Decode an Alpha ProfileMe payload (struct alpha_profileme_sample).
    The raw ``trp``, ``mis`` and ``trap_type`` are stale for an instruction
    that was killed (``killed``): use the derived ``trapped``,
    ``mispredicted`` and ``trap`` (docs/raw.md)."""
    return decode_raw(data, "alpha_profileme")


# ---------------------------------------------------------------- perf.data

# Magic numbers of compressed files that are not perf.data (perf's own -z
# compresses records inside a perf.data and is read as usual).
_COMPRESSED = ((b"\x1f\x8b", "gzip", "gzip -d", "gzip.open(path)"),
               (b"\x28\xb5\x2f\xfd", "zstd", "zstd -d", None),
               (b"\xfd7zXZ\x00", "xz", "xz -d", "lzma.open(path)"),
               (b"BZh", "bzip2", "bzip2 -d", "bz2.open(path)"))

_BASE_COLUMNS = capi.PM_COLUMNS_NBASE   # time .. raw_ok; decoded raw fields follow


def _compressed_error(head, name):
    for magic, kind, cmd, py in _COMPRESSED:
        if head.startswith(magic):
            how = "decompress it first (%s)" % cmd
            if py:
                how += " or pass profileme.open(%s)" % py
            return FormatError(ERR_FORMAT, "a %s-compressed file, not a perf.data file: %s" %
                               (kind, how), name)
    return None


# The payload registers each decoder's attribution reads, in payload order
# (the first is a u32, the others u64): the rows' payloads are rebuilt from
# these columns and handed to the library's rule (pm_profileme_attribute(),
# pm_ibs_attribute()), so any subset of the rows of samples() can be charged.
_ATTR_REGS = {
    "alpha_profileme": ("version", "pmpc", "i_stat", "pctr_ctl"),
    "ibs_op": ("caps", "op_ctl", "op_rip", "op_data"),
    "ibs_fetch": ("caps", "fetch_ctl", "fetch_linaddr"),
}
_ATTR_NAMES = _lib.attribution_names()     # {"charge": [...], "mode": [...], "trap": [...]}
_ATTR_DTYPE = np.dtype([("charge_ip", "u8"), ("charge", "u1"), ("charge_mode", "u1"),
                        ("trap", "u1"), ("skid", "i8"), ("skid_valid", "?"), ("exact", "?"),
                        ("ip_differs", "?"), ("attributed", "?")])


def _attr_decoder(names):
    """The decoder whose attribution applies to an array with these columns."""
    names = set(names or ())
    if "pmpc" in names or "pctr_ctl" in names:
        return "alpha_profileme"
    if "op_ctl" in names:
        return "ibs_op"
    if "fetch_ctl" in names:
        return "ibs_fetch"
    return None


def _attribute(samples, decoder):
    """The attribution of each row (the library's rule), as an _ATTR_DTYPE array."""
    regs = _ATTR_REGS[decoder]
    missing = [k for k in regs + ("ip", "raw_ok") if k not in samples.dtype.names]
    if missing:
        raise ValueError("charging %s samples needs the columns %s (or attributed=False)"
                         % (decoder, missing))
    m = np.empty((len(samples), len(regs)), dtype=np.uint64)
    for j, k in enumerate(regs):
        m[:, j] = samples[k]
    ok = np.ascontiguousarray(samples["raw_ok"], dtype=np.uint8)
    r = _c.attribute_rows(decoder, m, np.ascontiguousarray(samples["ip"], dtype=np.uint64), ok)
    out = np.empty(len(samples), dtype=_ATTR_DTYPE)
    out["charge_ip"] = np.frombuffer(r["addr"], dtype=np.uint64)
    out["skid"] = np.frombuffer(r["skid"], dtype=np.int64)
    for k in ("mode", "charge", "trap"):
        out["charge_mode" if k == "mode" else k] = np.frombuffer(r[k], dtype=np.uint8)
    for k in ("skid_valid", "exact", "ip_differs", "attributed"):
        out[k] = np.frombuffer(r[k], dtype=np.uint8).astype(bool)
    return out


def _real_file(obj):
    """A binary file object whose fileno() is the data itself (not a
    decompressing or otherwise transforming wrapper such as gzip.GzipFile)."""
    if isinstance(obj, io.FileIO):
        return True
    if isinstance(obj, (io.BufferedReader, io.BufferedRandom)):
        return isinstance(getattr(obj, "raw", None), io.FileIO)
    return False


def _memfd_from(source):
    """A memory file holding the bytes of a bytes-like object or of a readable
    binary file object (read to its end), positioned at 0."""
    fd = os.memfd_create("profileme", getattr(os, "MFD_CLOEXEC", 1))
    try:
        def put(buf):
            mv = memoryview(buf).cast("B")
            while len(mv):
                k = os.write(fd, mv)
                mv = mv[k:]
        if isinstance(source, (bytes, bytearray, memoryview)):
            put(source)
        elif isinstance(source, io.BytesIO):
            put(source.getbuffer())
        else:
            if getattr(source, "seekable", lambda: False)():
                source.seek(0)
            while True:
                chunk = source.read(1 << 20)
                if chunk is None:
                    raise TypeError("the file object is non-blocking and has no data now")
                if not isinstance(chunk, (bytes, bytearray, memoryview)):
                    raise TypeError("expected a binary file object: read() returned %s"
                                    % type(chunk).__name__)
                if not chunk:
                    break
                put(chunk)
        os.lseek(fd, 0, os.SEEK_SET)
        return fd
    except BaseException:
        os.close(fd)
        raise


class PerfData:
    """A perf.data recording (file or pipe format, either byte order,
    compressed).  Use as a context manager; see profileme.open()."""

    def __init__(self, source, strict=False):
        self._strict = 1 if strict else 0
        self._path = None
        self._fd = None           # the descriptor this object opened (and closes)
        self._seekable = False
        self._file = None
        self._consumed = False
        self._samples = None
        self.name = None
        self.events = []
        self.features = {}
        self.decoder = None
        self.codes = {}
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if isinstance(path, bytes):
                path = os.fsdecode(path)
            _no_nul(path, "path")
            self._path = self.name = path
            self._file = self._open_path(path)
        else:
            if isinstance(source, io.TextIOBase):
                raise TypeError("open the perf.data file in binary mode")
            if isinstance(source, (bytes, bytearray, memoryview)):
                self.name = "<%s of %d bytes>" % (type(source).__name__, memoryview(source).nbytes)
                self._fd = _memfd_from(source)
                self._seekable = True
            elif _real_file(source) or (hasattr(source, "fileno") and not hasattr(source, "read")):
                try:
                    fd = source.fileno()
                except (io.UnsupportedOperation, OSError, ValueError) as e:
                    raise TypeError("expected a path or a readable binary file (%s)" % e) from None
                if not isinstance(fd, int) or isinstance(fd, bool) or fd < 0:
                    raise TypeError("fileno() did not return a file descriptor")
                nm = getattr(source, "name", None)
                self.name = nm if isinstance(nm, str) else "<fd %d>" % fd
                self._seekable = stat.S_ISREG(os.fstat(fd).st_mode)
                self._fd = os.dup(fd)
            elif hasattr(source, "read"):
                nm = getattr(source, "name", None)
                self.name = nm if isinstance(nm, str) else "<%s>" % type(source).__name__
                self._fd = _memfd_from(source)
                self._seekable = True
            else:
                raise TypeError("expected a path, bytes or a readable binary file object, not %s"
                                % type(source).__name__)
            try:
                self._file = self._open_fd()
            except BaseException:
                os.close(self._fd)
                self._fd = None
                raise
        with _named(self.name):
            self.features = _lib.file_features(self._file)
            self.events = _lib.file_events(self._file)
            # code names known before any sample is read (no record is consumed)
            cols = _lib.columns_new(self._file, -1, None)
            try:
                self._schema(cols)
            finally:
                _lib.columns_free(cols)

    def _open_path(self, path):
        try:
            with _named(path):
                return _lib.file_open(path, self._strict)
        except FormatError:
            try:
                with io.open(path, "rb") as fh:
                    exc = _compressed_error(fh.read(8), path)
            except OSError:
                exc = None
            if exc is not None:
                raise exc from None
            raise

    def _open_fd(self):
        """A pm_file on our descriptor; a regular file is read from offset 0
        (the object's own position is left as it was)."""
        fd = self._fd
        pos = None
        if self._seekable:
            pos = os.lseek(fd, 0, os.SEEK_CUR)
            os.lseek(fd, 0, os.SEEK_SET)
        try:
            with _named(self.name):
                return _lib.file_open_fd(fd, self._strict)
        except FormatError:
            exc = _compressed_error(os.pread(fd, 8, 0), self.name) if self._seekable else None
            if exc is not None:
                raise exc from None
            raise
        finally:
            if pos is not None:
                os.lseek(fd, pos, os.SEEK_SET)

    # context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Close the recording and the descriptor it opened; later calls raise
        ValueError.  The caller's file object stays open (close it too)."""
        if self._file is not None:
            _lib.file_close(self._file)
            self._file = None
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def closed(self):
        return self._file is None

    def __repr__(self):
        return "<profileme.PerfData %s, %d events%s>" % (
            self.name, len(self.events), ", closed" if self.closed else "")

    def _fresh(self):
        """A pm_file positioned at the first record, and whether the caller
        closes it."""
        if self._file is None:
            raise ValueError("I/O operation on a closed recording")
        if not self._consumed:
            self._consumed = True
            return self._file, False
        if self._path is not None:
            return self._open_path(self._path), True
        if self._seekable:
            return self._open_fd(), True
        raise ValueError("a recording read from a pipe can be read only once "
                         "(samples() caches its result; call it first)")

    def _event_index(self, event):
        if event is None:
            return -1
        if isinstance(event, int) and not isinstance(event, bool):
            if not 0 <= event < len(self.events):
                raise ValueError("event index %d out of range" % event)
            return event
        for e in self.events:
            if e["name"] == event:
                return e["index"]
        raise ValueError("no event named %r (events: %s)" % (event, [e["name"] for e in self.events]))

    @staticmethod
    def _fields(fields):
        if fields is None:
            return None
        if isinstance(fields, str):
            return [fields]           # one field, not its letters
        try:
            fields = list(fields)
        except TypeError:
            raise TypeError("fields must be a column name or a list of names, not %s"
                            % type(fields).__name__) from None
        bad = [f for f in fields if not isinstance(f, str)]
        if bad:
            raise TypeError("fields must be column names (strings), not %r" % (bad[0],))
        return fields

    def samples(self, fields=None, event=None, partial=False):
        """All samples as a numpy structured array, one row per sample.

        Columns (dtypes and units in docs/python.md): time, pid, tid, cpu,
        ip, period, addr, id, event (index into .events), cpumode,
        callchain_nr (the frames of the callchain), callchain_markers (its
        PERF_CONTEXT_* markers), raw_ok (bool), then -- for a ProfileMe or IBS
        recording -- every decoded field (flags as bool, codes as small
        integers whose names are in ``.codes``, numbers as uint64).  In a row
        whose payload did not decode (``raw_ok`` False) the decoded columns
        hold 0 and mean nothing: ``to_pandas()`` gives them as NA.  The raw
        ProfileMe ``trp``, ``mis`` and ``trap_type`` are stale for a killed
        instruction: the derived ``trapped``, ``mispredicted`` and ``trap``
        are not.

        ``fields`` selects columns (a name or a list of names); ``event``
        (index or name) selects one event's samples.  A damaged recording
        raises the error (a profileme.Error subclass naming the file);
        ``partial=True`` returns the rows before the damage instead, with a
        DamageWarning.  Samples that could not be parsed are never dropped
        without a DamageWarning saying how many; samples of an attr whose
        layout this library does not know raise UnsupportedError (or, with
        ``partial=True``, are left out with a DamageWarning).
        """
        fields = self._fields(fields)
        key = (tuple(fields) if fields is not None else None, event)
        if self._samples is not None and self._samples[0] == key:
            return self._samples[1]
        ev = self._event_index(event)
        f, own = self._fresh()
        try:
            with _named(self.name):
                cols = _lib.columns_new(f, ev, None)
            try:
                arr = self._read_columns(cols, fields, ev, partial)
                end = _lib.file_end_status(f)
                if end is not None:
                    # a pipe stream that ended early: tolerated as perf does, said here
                    warnings.warn(DamageWarning("%s: %s: the stream ends there (%d samples read)"
                                                % (self.name, end[2], len(arr))), stacklevel=2)
            finally:
                _lib.columns_free(cols)
        finally:
            if own:
                _lib.file_close(f)
        if self._path is None and not self._seekable:
            self._samples = (key, arr)
        return arr

    def _schema(self, cols):
        schema, decoder = _lib.columns_schema(cols)
        self.decoder = decoder
        self.codes = {name: codes for name, _, codes in schema if codes}
        self._decoded = [s[0] for s in schema[_BASE_COLUMNS:]]
        return schema

    def _read_columns(self, cols, fields, ev, partial, stacklevel=3):
        schema = self._schema(cols)
        names = [s[0] for s in schema]
        if fields is not None:
            unknown = [f for f in fields if f not in names]
            if unknown:
                raise ValueError("unknown fields %s (available: %s)" % (unknown, names))
        wanted = [s for s in schema if fields is None or s[0] in fields]
        dtype = np.dtype([(n, t) for n, t, _ in wanted])
        offs = {n: dtype.fields[n][1] for n, _, _ in wanted}
        offsets = [offs.get(n) for n in names]
        # First guess of the row count from the data size; grow if needed.
        data_size = self.features.get("data_size") or 0
        # the library's bound: the smallest SAMPLE record the attrs allow
        smallest = max(capi.pm_file_min_sample_size(self._file), 16)
        cap = max(1024, data_size // smallest + 1) if data_size else 1 << 16
        arr = np.empty(cap, dtype=dtype)
        n = 0
        row = max(dtype.itemsize, 1)
        damage = None
        if dtype.itemsize == 0:
            # no columns wanted: still count rows through a 1-byte scratch row
            scratch = np.empty(cap, dtype=np.uint8)
        while True:
            if n == len(arr):
                arr.resize(len(arr) * 2, refcheck=False)
                if dtype.itemsize == 0:
                    scratch = np.empty(len(arr), dtype=np.uint8)
            target = arr[n:] if dtype.itemsize else scratch[n:]
            got, err, exc = _c.columns_read_rows(cols, target, offsets if dtype.itemsize else
                                                 [None] * len(names), row, len(arr) - n)
            n += got
            if exc is not None:
                damage = exc
                break
            if n < len(arr):
                break
        arr.resize(n, refcheck=False)
        skipped = _lib.columns_skipped(cols)
        bad_layout = [e for e in self.events if e.get("layout_error") and ev in (-1, e["index"])]
        if damage is not None:
            exc = _renamed(damage, self.name) if damage.filename is None else damage
            if not partial:
                raise type(exc)(exc.errno, "%s (%d samples were read before it: "
                                "samples(partial=True) returns them)" % (exc.strerror, n),
                                exc.filename)
            warnings.warn(DamageWarning("%s: %s: returning the %d samples before the damage"
                                        % (self.name, exc.strerror, n)), stacklevel=stacklevel)
        if skipped and bad_layout:
            what = "; ".join("event %d (%s): %s" % (e["index"], e["name"], e["layout_error"])
                             for e in bad_layout)
            msg = "%d samples cannot be read: %s" % (skipped, what)
            if not partial:
                raise UnsupportedError(ERR_UNSUPPORTED, msg, self.name)
            warnings.warn(DamageWarning("%s: %s: left out" % (self.name, msg)), stacklevel=stacklevel)
        elif skipped:
            warnings.warn(DamageWarning("%s: %d samples could not be parsed and are left out"
                                        % (self.name, skipped)), stacklevel=stacklevel)
        return arr

    def to_pandas(self, fields=None, event=None, partial=False, attribution=True, symbols=False,
                  symfs=None, kallsyms=None, time_as=None, _arr=None):
        """The samples as a pandas DataFrame (columns as ``samples()``, dtypes
        in docs/python.md): ``event`` is a categorical of the event names,
        code columns are categoricals of their names, flags are bool, and the
        decoded columns of a row whose payload did not decode (``raw_ok``
        False), or that the hardware marked invalid (IBS ``<field>_valid``
        False), are NA (pandas nullable dtypes: boolean, UInt64, categorical
        NaN).  ``callchain_nr`` and ``callchain_markers`` are uint64 so that
        sums cannot wrap.

        For ProfileMe and IBS rows (with all columns), ``attribution`` adds
        where the library's rule charges each row (see ``attribute()``):
        ``charge_ip`` (UInt64), and for ProfileMe ``charge`` and
        ``charge_mode`` (categoricals) and ``skid`` (Int64 bytes, NA unless
        both IPs are virtual addresses of one address space: NA for every
        PAL sample); for IBS ``exact`` and ``ip_differs`` (boolean).  In a
        recording of ibs_op and ibs_fetch events the op decoder's columns
        apply to the op rows (the fetch rows are NA there): ``event=`` gives
        one event's own columns.

        ``symbols=True`` (or any of these names in ``fields``) adds ``comm``
        (the thread's command name at the sample's time, from COMM and FORK
        records; ":tid" as perf before any), ``dso`` (the basename of the
        mapped file, "[kernel.kallsyms]" for the kernel, "[unknown]"),
        ``sym`` and ``symoff`` (uint64, the offset in the symbol), the first
        three categoricals; charged and looked up as ``symbolize()`` does
        (``symfs``, ``kallsyms``), and cached per recording.

        ``time_as="timedelta"`` turns ``time`` (nanoseconds of the clock the
        recording used, perf's default the monotonic clock) into
        timedelta64[ns]; ``time_as="datetime"`` into datetime64[ns] of the
        wall clock, for a recording with a clock reference (perf record
        -k / --clockid, the CLOCK_DATA feature), else ValueError."""
        import pandas as pd
        fields = self._fields(fields)
        sym_cols = [c for c in _SYM_COLUMNS if symbols or (fields is not None and c in fields)]
        if fields is not None and sym_cols:
            fields = [f for f in fields if f not in _SYM_COLUMNS]
        if sym_cols:
            data = self._with_symbols(fields, event, partial, attribution, sym_cols, symfs,
                                      kallsyms)
        else:
            arr = (self.samples(fields=self._masked_fields(fields), event=event, partial=partial)
                   if _arr is None else _arr)
            data = self._frame_columns(arr, fields, attribution)
        if "time" in data and time_as is not None:
            data["time"] = self._time_as(np.asarray(data["time"]), time_as)
        # one frame of the final columns: nothing copied, nothing re-derived
        return pd.DataFrame(data, copy=False)

    def _masked_fields(self, fields):
        """fields and the columns the frame masks them with (raw_ok, the
        fields' _valid flags); None for every column."""
        if fields is None:
            return None
        extra = ["raw_ok"] + [f + "_valid" for f in fields]
        return fields + [x for x in extra if x not in fields and x in self._all_names()]

    def _frame_columns(self, arr, fields, attribution):
        """The frame's columns of the samples arr (fields: the ones wanted,
        None: every column), by name, in arr's order, then the attribution's."""
        import pandas as pd
        names = arr.dtype.names
        decoded = set(self._decoded)
        bad = ~arr["raw_ok"] if "raw_ok" in names and decoded & set(names) else None
        made = _converted_columns(arr, [n for n in ("event", "cpumode", "callchain_nr",
                                                    "callchain_markers")
                                        if n in names and (fields is None or n in fields)],
                                  len(self.events))
        data = {}
        for name in names:
            if fields is not None and name not in fields:
                continue
            if name in made:
                col = made[name]
                if name == "event":
                    col = _categorical(col, _unique_names([e["name"] for e in self.events]))
                elif name == "cpumode":
                    col = _categorical(col, _CPUMODE_NAMES)
                data[name] = col
                continue
            col = arr[name]
            mask = None
            if name in decoded and bad is not None:
                mask = bad
                if not name.endswith("_valid") and name + "_valid" in names:
                    mask = bad | ~arr[name + "_valid"]
            if name == "event":
                cats = [e["name"] for e in self.events]
                data[name] = _categorical(_category_codes(col, len(cats)), _unique_names(cats))
            elif name in self.codes:
                cats = self.codes[name]
                data[name] = _categorical(_category_codes(col, len(cats), mask), _unique_codes(cats))
            elif col.dtype == np.bool_:
                data[name] = col if mask is None else pd.arrays.BooleanArray(col.copy(), mask.copy())
            elif name in ("callchain_nr", "callchain_markers"):
                data[name] = col.astype(np.uint64)
            elif name == "cpumode":
                data[name] = _cpumode_categorical(col)
            elif mask is not None:
                data[name] = pd.arrays.IntegerArray(np.ascontiguousarray(col), mask.copy())
            else:
                data[name] = col
        dec = _attr_decoder(names) if attribution else None
        if dec is not None and all(k in names for k in _ATTR_REGS[dec] + ("ip", "raw_ok")):
            a = _attribute(arr, dec)
            no = ~a["attributed"]
            data["charge_ip"] = pd.arrays.IntegerArray(a["charge_ip"], no.copy())
            if dec == "alpha_profileme":
                for k, col in (("charge", "charge"), ("charge_mode", "mode")):
                    codes = a[k].astype(np.int64)
                    codes[no] = -1
                    data[k] = pd.Categorical.from_codes(codes, categories=ATTRIBUTION_CODES[col])
                data["skid"] = pd.arrays.IntegerArray(a["skid"], ~a["skid_valid"])
            else:
                data["exact"] = pd.arrays.BooleanArray(a["exact"], no.copy())
                data["ip_differs"] = pd.arrays.BooleanArray(a["ip_differs"], no.copy())
        return data

    def _time_as(self, t, how):
        if how == "timedelta":
            return t.astype(np.int64).astype("timedelta64[ns]")
        if how == "datetime":
            ref = self.features.get("clock_data") if isinstance(self.features, dict) else None
            if not ref:
                raise ValueError("%s has no clock reference (record with perf record -k / "
                                 "--clockid): time_as='timedelta' gives the time since the "
                                 "clock's origin" % self.name)
            tod, clk = int(ref["tod_ns"]), int(ref["clockid_ns"])
            return (t.astype(np.int64) - clk + tod).astype("datetime64[ns]")
        raise ValueError("time_as must be None, 'timedelta' or 'datetime', not %r" % (how,))

    def _with_symbols(self, fields, event, partial, attribution, sym_cols, symfs, kallsyms):
        """to_pandas()'s columns with the symbol columns sym_cols (by name)."""
        need = ["pid", "tid", "time", "ip", "cpumode", "raw_ok"]
        dec = _attr_decoder(self._decoded)
        if dec is not None and attribution:
            need += list(_ATTR_REGS[dec])
        need = [n for n in need if n in self._all_names()]
        get = None if fields is None else fields + [n for n in need if n not in fields]
        cache = self.__dict__.setdefault("_symcache", {})
        ckey = (event, symfs, kallsyms, bool(attribution))
        arr = out = None
        if not any(k[:4] == ckey for k in cache) and (self._samples is None or self._path is not None
                                                      or self._seekable):
            # one read of the file gives the rows and their symbols
            arr, out = self._read_symbolized(self._masked_fields(get), event, partial, symfs,
                                             kallsyms, attribution)
        else:
            arr = self.samples(fields=self._masked_fields(get), event=event, partial=partial)
        data = self._frame_columns(arr, get, attribution)
        # the library's columns as it gave them (immutable bytes: frames get their own)
        key = ckey + (len(arr),)
        if out is not None:
            cache[key] = out
        if key not in cache:
            cache[key] = self._symbol_rows(arr, symfs, kallsyms, attribution, partial)
        if fields is not None:
            data = {k: v for k, v in data.items() if k in fields}
        data.update(_symbol_frame_columns(cache[key], len(arr), sym_cols))
        return data

    def _read_symbolized(self, fields, event, partial, symfs, kallsyms, attributed):
        """samples(fields, event, partial) and _symbol_columns() of its rows
        from one read of the file: the column reader keeps the side records
        (pm_columns_opts.sym) and pm_columns_resolve_rows() replays them,
        with the result of pm_sym_resolve_rows() over a second read."""
        fields = self._fields(fields)
        ev = self._event_index(event)
        symfs, kallsyms = _opt_str(symfs, "symfs"), _opt_str(kallsyms, "kallsyms")
        f, own = self._fresh()
        sym = None
        try:
            with _named(self.name):
                sym = _lib.sym_new_from_file(f, symfs, kallsyms, self._path)
                cols = _lib.columns_new(f, ev, None, sym)
            try:
                # (to_pandas -> _with_symbols -> here -> _read_columns)
                arr = self._read_columns(cols, fields, ev, partial, stacklevel=5)
                end = _lib.file_end_status(f)
                if end is not None:
                    warnings.warn(DamageWarning("%s: %s: the stream ends there (%d samples read)"
                                                % (self.name, end[2], len(arr))), stacklevel=4)
                pid, ip, mode, time = self._charged_rows(arr, attributed)
                with _named(self.name):
                    # partial: the rows end where the read met damage, and so does the replay
                    out = _c.columns_symbol_rows(cols, sym, pid, arr["tid"], ip, mode, time, 1,
                                                 int(bool(partial)))
            finally:
                _lib.columns_free(cols)
        finally:
            if sym is not None:
                _lib.sym_free(sym)
            if own:
                _lib.file_close(f)
        if self._path is None and not self._seekable:
            self._samples = ((tuple(fields) if fields is not None else None, event), arr)
        return arr, out

    def _symbol_columns(self, arr, symfs, kallsyms, attributed, partial=False):
        """comm, dso, sym, symoff of each row: one library call
        (pm_sym_resolve_rows()) fills the columns as codes into its sorted
        tables of names, which become the categories."""
        return _symbol_frame_columns(self._symbol_rows(arr, symfs, kallsyms, attributed, partial),
                                     len(arr), _SYM_COLUMNS)

    def _symbol_rows(self, arr, symfs, kallsyms, attributed, partial):
        """The binding's symbol_rows() of the rows of arr over a fresh
        read (partial: arr holds the rows before the file's damage)."""
        pid, ip, mode, time = self._charged_rows(arr, attributed)
        f, own = self._fresh()
        try:
            with _named(self.name):
                return _c.symbol_rows(f, pid, arr["tid"], ip, mode, time, _opt_str(symfs, "symfs"),
                                      _opt_str(kallsyms, "kallsyms"), self._path, 1,
                                      int(bool(partial)))
        finally:
            if own:
                _lib.file_close(f)

    def _charged_rows(self, samples, attributed):
        """pid, address, cpumode and time of each row as the library's
        symbolizer takes them: a ProfileMe or IBS row at its charged address
        (attribute(); PALcode: cpumode 255, PM_SYM_CPUMODE_PALCODE), time
        None unless every event has sample times."""
        ip = samples["ip"]
        mode = samples["cpumode"]
        dec = _attr_decoder(samples.dtype.names) if attributed else None
        if dec is not None:
            a = _attribute(samples, dec)
            ip = a["charge_ip"]
            if dec == "alpha_profileme":
                # the charged address's own mode: 1 kernel, 2 user, 255 PALcode
                by_mode = np.array([2, 1, 255] + [0] * 253, dtype=np.uint8)
                mode = np.where(a["attributed"], by_mode[a["charge_mode"]], mode)
        time = samples["time"] if "time" in samples.dtype.names and self._all_timed() else None
        # the columns as they are (the binding reads strided ones in place)
        return (_as_type(samples["pid"], np.int32), _as_type(ip, np.uint64),
                _as_type(mode, np.uint8), None if time is None else _as_type(time, np.uint64))

    def _all_names(self):
        return ["time", "pid", "tid", "cpu", "ip", "period", "addr", "id", "event", "cpumode",
                "callchain_nr", "callchain_markers", "raw_ok"] + list(self._decoded)

    def records(self):
        """Every record, in time order, as a dict with every decoded field
        (samples: ip, pid, tid, time, cpu, period, addr, callchain, raw and
        the decoded payload under the decoder's key -- "profileme" for Alpha
        ProfileMe, "ibs_op" / "ibs_fetch" for AMD IBS -- as in
        ``profileme script --json``, or "raw_error" when the payload does
        not decode; other records: their fields and "bytes").  The detailed,
        slow path."""
        f, own = self._fresh()
        with _named(self.name):
            ctx = _lib.raw_ctx_from_file(f)
        name, next_record = self.name, _lib.file_next
        try:
            while True:
                if not own and self._file is None:
                    raise ValueError("I/O operation on a closed recording")
                try:                    # as _named(), without a context manager per record
                    r = next_record(f, ctx)
                except Error as e:
                    if name is None or e.filename is not None:
                        raise
                    raise _renamed(e, name).with_traceback(e.__traceback__) from None
                if r is None:
                    return
                yield r
        finally:
            _lib.raw_ctx_free(ctx)
            if own:
                _lib.file_close(f)

    def tracepoints(self, event=None):
        """The named fields of a tracepoint event's samples as a DataFrame:
        ``time``, ``pid``, ``tid``, ``cpu``, then one column per field of
        the event's format *as the recording describes it* (its tracing
        data, never this machine's tracefs), decoded in C
        (``pm_file_tp_value()``): numbers as int64/uint64 (signed fields
        sign-extended), ``char[]`` and ``__data_loc char[]`` as str, other
        arrays as lists -- the values of ``profileme script --json``'s
        ``"tp"`` object.  ``event``: name or index (default: the first
        tracepoint event).  ValueError when the event is no tracepoint the
        recording has a format for."""
        import pandas as pd
        if event is None:
            idx = next((i for i, e in enumerate(self.events)
                        if (e.get("attr") or {}).get("type") == 2), None)
            if idx is None:
                raise ValueError("%s has no tracepoint event" % self.name)
        else:
            idx = self._event_index(event)
        f, own = self._fresh()
        try:
            with _named(self.name):
                got = _lib.file_tracepoints(f, idx)
        finally:
            if own:
                _lib.file_close(f)
        if got is None:
            raise ValueError("event %r of %s is no tracepoint with a format in the recording"
                             % (event if event is not None else idx, self.name))
        names, rows = got
        cols = ["time", "pid", "tid", "cpu"] + [n if n not in ("time", "pid", "tid", "cpu")
                                                 else "tp_" + n for n in names]
        df = pd.DataFrame.from_records(rows, columns=cols)
        for c, t in (("time", np.uint64), ("pid", np.int32), ("tid", np.int32), ("cpu", np.uint32)):
            df[c] = df[c].astype(t)
        return df

    def _export(self, fmt, path, fd, event, symfs, kallsyms):
        ev = self._event_index(event)
        f, own = self._fresh()
        try:
            with _named(self.name):
                _lib.export(f, fmt, path or "", fd, ev, symfs or "", kallsyms or "", self._path)
        finally:
            if own:
                _lib.file_close(f)

    def to_pprof(self, path, event=None, symfs=None, kallsyms=None):
        """Write the recording as a gzipped pprof ``profile.proto`` at
        ``path`` (what ``go tool pprof`` and the tools that import its
        format read), through the library's exporter (``pm_export_pprof()``,
        the same file ``profileme convert --to pprof`` writes): symbolized
        stacks leaf first, comm/pid/tid/cpu labels, ``samples/count`` and
        ``<event>/<unit>`` values, and the ProfileMe and IBS value types
        (docs/export.md).  ``event`` limits it to one event.  Raises
        ``UnsupportedError`` when the library was built without protobuf-c
        and zlib."""
        path = os.fspath(path)
        if "\0" in path:
            raise ValueError("embedded NUL character in path")
        self._export("pprof", path, -1, event, symfs, kallsyms)

    def folded(self, event=None, symfs=None, kallsyms=None):
        """Collapsed stacks as Brendan Gregg's stackcollapse tools write them
        (``comm;root;...;leaf count`` per line, sorted), for flamegraph.pl,
        inferno and speedscope: the library's ``pm_export_folded()``, the
        same text as ``profileme script --folded``.  Returns a str."""
        import tempfile
        with tempfile.TemporaryFile() as tmp:
            self._export("folded", None, tmp.fileno(), event, symfs, kallsyms)
            tmp.seek(0)
            return tmp.read().decode("utf-8", "replace")

    def callchains(self, event=None, frame=False, symbols=True, symfs=None, kallsyms=None):
        """Callchains of the samples as (ips, offsets): ips is one flat uint64
        array, and the chain of sample i (in the order of ``samples()`` with
        the same ``event``) is ips[offsets[i]:offsets[i+1]].  Context markers
        (PERF_CONTEXT_*) are dropped, as in ``profileme script --json``.
        Decoded in C, no Python object per entry.

        ``frame=True`` gives a long pandas DataFrame instead, one row per
        frame: ``row`` (int64, the sample's row in ``samples()``), ``depth``
        (int32, 0 for the first entry -- the sampled ip -- then its
        callers), ``ip`` (uint64), ``cpumode`` (categorical, from the last
        context marker before the frame, the sample's own mode before any)
        and, with ``symbols`` (default), ``sym`` and ``dso`` (categoricals,
        as ``symbolize()`` names them, with ``symfs``/``kallsyms``).  The
        number of frames of a sample is ``samples()``'s ``callchain_nr``
        (``df.groupby("row").size()``); ``callchain_markers`` counts the
        context markers, which are no frames."""
        if frame:
            return self._callchain_frame(event, symbols, symfs, kallsyms)
        ev = self._event_index(event)
        f, own = self._fresh()
        try:
            with _named(self.name):
                ips, offs = _c.file_callchains(f, ev)
        finally:
            if own:
                _lib.file_close(f)
        return (np.frombuffer(ips, dtype=np.uint64).copy(),
                np.frombuffer(offs, dtype=np.int64).copy())

    def _callchain_frame(self, event, symbols, symfs, kallsyms):
        import pandas as pd
        ev = self._event_index(event)
        f, own = self._fresh()
        try:
            with _named(self.name):
                ips, modes, offs = _c.file_callchain_frames(f, ev)
        finally:
            if own:
                _lib.file_close(f)
        ips = np.frombuffer(ips, dtype=np.uint64)
        modes = np.frombuffer(modes, dtype=np.uint8)
        offs = np.frombuffer(offs, dtype=np.int64)
        lens = np.diff(offs)
        row = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
        depth = (np.arange(len(ips), dtype=np.int64) - offs[:-1][row]).astype(np.int32)
        data = {"row": row, "depth": depth, "ip": ips.copy(), "cpumode": _cpumode_categorical(modes)}
        if symbols:
            timed = self._all_timed()
            s = self.samples(fields=["pid", "time"] if timed else ["pid"], event=event)
            if len(s) != len(lens):
                raise ValueError("%d callchains for %d samples" % (len(lens), len(s)))
            # each frame with the maps of its sample's time, as symbolize()
            inv, sym, dso, _ = self._lookup_codes(s["pid"][row], ips, modes, symfs, kallsyms,
                                                  s["time"][row] if timed else None)
            data["sym"] = _table_categorical(inv, sym)
            data["dso"] = _basename_categorical(_table_categorical(inv, dso))
        return pd.DataFrame(data, copy=False)


    def _neighbours(self, sym, step, event, dso, symfs, kallsyms):
        """Shares of the frames next to ``sym`` (step +1: its callers, -1:
        its callees) in the samples whose chain holds it."""
        import pandas as pd
        fr = self.callchains(event=event, frame=True, symfs=symfs, kallsyms=kallsyms)
        period = self.samples(fields=["period"], event=event)["period"].astype(np.float64)
        total = float(period.sum()) or 1.0
        hit = (fr["sym"] == sym).to_numpy()
        if dso is not None:
            hit &= (fr["dso"] == dso).to_numpy()
        # the leaf-most frame of sym in each chain, as perf --children keeps it
        first = pd.Series(np.flatnonzero(hit)).groupby(fr["row"].to_numpy()[hit]).min()
        idx = first.to_numpy()
        rows = fr["row"].to_numpy()
        nb = idx + step
        ok = (nb >= 0) & (nb < len(fr))
        ok[ok] = rows[nb[ok]] == rows[idx[ok]]
        names = np.where(ok, fr["sym"].to_numpy(dtype=object)[np.where(ok, nb, 0)], None)
        dsos = np.where(ok, fr["dso"].to_numpy(dtype=object)[np.where(ok, nb, 0)], None)
        w = period[rows[idx]]
        col = "caller" if step > 0 else "callee"
        t = pd.DataFrame({col: names, "dso": dsos, "period": w})
        t = t.groupby([col, "dso"], dropna=False, sort=False).agg(
            samples=("period", "size"), period=("period", "sum")).reset_index()
        t["overhead"] = 100.0 * t["period"] / total
        t["share"] = 100.0 * t["period"] / (float(w.sum()) or 1.0)
        t = t.sort_values(["overhead", "samples"], ascending=False, kind="stable")
        t["period"] = t["period"].astype(np.uint64)
        return t[[col, "dso", "overhead", "share", "samples", "period"]].reset_index(drop=True)

    def callers(self, sym, event=None, dso=None, symfs=None, kallsyms=None):
        """Who calls ``sym`` (a symbol name; ``dso`` narrows it): a DataFrame
        with one row per immediate caller of the samples whose callchain
        holds ``sym`` (its frame nearest the leaf counts, once per sample):
        ``caller`` and ``dso`` (None where ``sym`` is the chain's last
        frame), ``overhead`` (percent of the total period, what
        ``perf report --children -g callee`` shows under ``sym``),
        ``share`` (percent of the period of the samples through ``sym``),
        ``samples`` and ``period``.  Sorted by overhead."""
        return self._neighbours(sym, 1, event, dso, symfs, kallsyms)

    def callees(self, sym, event=None, dso=None, symfs=None, kallsyms=None):
        """Whom ``sym`` calls, as ``callers()`` (``callee`` column; None for
        the samples in ``sym`` itself): ``overhead`` is what
        ``perf report --children -g caller`` shows under ``sym``."""
        return self._neighbours(sym, -1, event, dso, symfs, kallsyms)

    def attribute(self, samples=None):
        """Where each row of ``samples`` (default: ``self.samples()``) is
        charged, by the library's one rule (pm_profileme_attribute(),
        pm_ibs_attribute(); docs/raw.md): a numpy structured array with
        ``charge_ip`` (uint64, the address to charge), and for ProfileMe
        ``charge`` (code: "pc", "redirect" -- a PAL redirect 0x481/0x581/0x681
        charged to the sample ip, the instruction that trapped --, "PALcode",
        "ip"), ``charge_mode`` (code: "user", "kernel", "PAL"), ``trap``
        (code, the redirect's name for a redirect), ``skid`` (int64 bytes,
        ip - pc) and ``skid_valid`` (only when both IPs are virtual addresses
        of one address space: never for a PAL sample); for IBS ``exact``
        (charged to a valid IbsOpRip / IbsFetchLinAd) and ``ip_differs``;
        ``attributed`` is False for a row whose payload did not decode (its
        ``charge_ip`` is the sample ip).  Code names are in
        ``profileme.ATTRIBUTION_CODES``."""
        if samples is None:
            samples = self.samples()
        _check_samples(samples, "attribute()")
        dec = _attr_decoder(samples.dtype.names)
        if dec is None:
            raise ValueError("attribute() applies to ProfileMe and IBS samples (with their "
                             "decoded columns)")
        return _attribute(samples, dec)

    def symbolize(self, samples=None, symfs=None, kallsyms=None, attributed=True, codes=False):
        """Symbols of the samples: a tuple (sym, dso, offset) of numpy arrays
        (object, object, uint64), one entry per row of ``samples`` (default:
        ``self.samples()``; a numpy structured array from ``samples()`` with
        its pid, ip and cpumode columns: a DataFrame raises TypeError,
        missing columns ValueError).

        A ProfileMe or IBS row is charged where the library's rule charges
        it (``attribute()``; ``attributed=False``: at its ip): a PAL redirect
        at the trapping instruction, any other PALcode sample as
        ``[PALcode]``, an IBS op at a valid IbsOpRip.  Uses the recording's
        MMAP/MMAP2 records and the ELF files they name (under ``symfs`` when
        given, as the CLI's --symfs), and kallsyms for kernel addresses
        (``kallsyms``: another file than /proc/kallsyms; this machine's only
        for a recording of the running kernel).  The library's one policy
        (docs/symbol.md), the one ``profileme script`` and ``report`` use:
        each row sees the maps as they were at its time (a process that
        execs is charged to the old program before the exec, to the new one
        after), each distinct (pid, maps, address, mode) is looked up once.
        A recording without sample times uses the maps at its end.

        ``codes=True`` returns (index, sym, dso, offset) instead: ``index``
        (uint32, one per row) into the distinct results ``sym``, ``dso``
        (object arrays) and ``offset`` (uint64; a PALcode row's offset is
        its address, not in the table: use ``symbolize()`` for those)."""
        if samples is None:
            samples = self.samples()
        _check_samples(samples, "symbolize()")
        missing = [k for k in ("pid", "ip", "cpumode") if k not in (samples.dtype.names or ())]
        if missing:
            raise ValueError("symbolize() needs the columns %s" % missing)
        pid, ip, mode, time = self._charged_rows(samples, attributed)
        if codes:
            return self._lookup_codes(pid, ip, mode, symfs, kallsyms, time)
        return self._lookup(pid, ip, mode, symfs, kallsyms, time)

    def _all_timed(self):
        """Do the samples of every event carry PERF_SAMPLE_TIME?  Then a row
        is symbolized with the maps of its time; otherwise with those at the
        end of the recording."""
        return bool(self.events) and all(
            e is not None and e.get("attr") is not None and
            int(e["attr"]["sample_type"], 16) & (1 << 2)
            for e in self.events)

    def _lookup(self, pid, ip, mode, symfs, kallsyms, time=None):
        inverse, sym, dso, off = self._lookup_codes(pid, ip, mode, symfs, kallsyms, time)
        off = off[inverse]
        pal = np.asarray(mode) == 255
        if pal.any():
            off[pal] = np.asarray(ip)[pal]   # a PALcode address is its own offset
        return sym[inverse], dso[inverse], off

    def _lookup_codes(self, pid, ip, mode, symfs, kallsyms, time=None):
        # One C call: the library replays the records and resolves each row
        # with the maps of its time, each distinct (pid, maps, ip) once.
        pid = np.ascontiguousarray(pid, dtype=np.int32)
        ip = np.ascontiguousarray(ip, dtype=np.uint64)
        mode = np.ascontiguousarray(mode, dtype=np.uint8)
        if time is not None:
            time = np.ascontiguousarray(time, dtype=np.uint64)
        f, own = self._fresh()
        try:
            with _named(self.name):
                idx, table = _c.symbolize(f, pid, ip, mode, time,
                                          _opt_str(symfs, "symfs"), _opt_str(kallsyms, "kallsyms"),
                                          self._path)
        finally:
            if own:
                _lib.file_close(f)
        inverse = np.frombuffer(idx, dtype=np.uint32)
        sym = np.array([r[0] for r in table], dtype=object)
        dso = np.array([r[1] for r in table], dtype=object)
        off = np.array([r[2] for r in table], dtype=np.uint64)
        return inverse, sym, dso, off

    def hotspots(self, top=20, samples=None, weight="period", by=("symbol", "dso"), symfs=None,
                 kallsyms=None, event=None):
        """A hot-spot table (pandas DataFrame), one row per symbol and DSO
        (or per the columns ``by`` names: "symbol", "dso", and for ProfileMe
        "trap" and "charge"): ``overhead`` (percent of the total period, what
        ``perf report`` shows as Overhead), ``samples``, ``samples_percent``
        (percent of the samples) and ``period`` (the sum of the periods);
        for ProfileMe also ``redirects`` (samples charged to the trapping
        instruction of a PAL redirect), for IBS ``exact`` (samples charged to
        the address IBS tagged).  Rows are charged as ``symbolize()`` charges
        them.  Sorted by overhead (``weight="period"``, perf's default) or by
        sample count (``weight="samples"``); the ``top`` first rows.
        ``samples`` is an array from ``samples()``; ``event`` (index or name)
        selects one event.  In a recording of several events each event is
        its own table, as in ``perf report``: the rows carry an ``event``
        column, shares are within the event, and ``top`` applies per event."""
        import pandas as pd
        if weight not in ("period", "samples"):
            raise ValueError("weight must be 'period' or 'samples', not %r" % (weight,))
        if isinstance(by, str):
            by = (by,)
        by = list(by)
        ev = self._event_index(event)
        if samples is None:
            if ev < 0 and len(self.events) > 1 and (self._path is not None or self._seekable):
                # each event with its own decoder (ibs_op and ibs_fetch decode apart)
                arrays = [self.samples(event=i) for i in range(len(self.events))]
            else:
                fields = ["pid", "ip", "cpumode", "period", "raw_ok", "event"]
                self._schema_for(ev)
                dec = _attr_decoder(self._decoded)
                if dec is not None:
                    fields += list(_ATTR_REGS[dec])
                arrays = [self.samples(fields=[f for f in fields if f in self._all_names()],
                                       event=event)]
        else:
            arrays = [samples]
            if ev >= 0:
                if "event" not in samples.dtype.names:
                    raise ValueError("hotspots(event=...) with samples needs their 'event' column")
                arrays = [samples[samples["event"] == ev]]
        parts = [self._charged(a, symfs, kallsyms) for a in arrays]
        keys = set(parts[0]).intersection(*parts[1:]) if parts else set()
        cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k in keys}
        extra = [k for k in ("redirects", "exact") if k in cols]
        bad = [b for b in by if b not in cols or b in ("period", "event") + tuple(extra)]
        if bad:
            raise ValueError("hotspots(by=...) groups by %s, not %s"
                             % ([k for k in ("symbol", "dso", "trap", "charge") if k in cols], bad))
        df = pd.DataFrame(cols)
        split = "event" in cols and len(np.unique(cols["event"])) > 1
        tables = []
        for evi, d in (df.groupby("event", sort=True) if split else [(None, df)]):
            agg = {"samples": ("period", "size"), "period": ("period", "sum")}
            agg.update({k: (k, "sum") for k in extra})
            t = d.groupby(by, sort=False, dropna=False).agg(**agg)
            total = float(d["period"].sum())
            t["overhead"] = 100.0 * t["period"].astype(np.float64) / (total or 1.0)
            t["samples_percent"] = 100.0 * t["samples"] / max(len(d), 1)
            key = ["overhead", "samples"] if weight == "period" else ["samples", "overhead"]
            t = t.sort_values(key, ascending=False, kind="stable").head(top).reset_index()
            if split:
                t.insert(0, "event", self.events[int(evi)]["name"] if 0 <= evi < len(self.events)
                         else "[unknown]")
            tables.append(t)
        t = pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
        for k in extra:
            t[k] = t[k].astype(np.int64)
        return t[(["event"] if split else []) + by +
                 ["overhead", "samples", "samples_percent", "period"] + extra]

    def _schema_for(self, ev):
        """Read the column schema of one event (sets .decoder, .codes and the
        decoded names) without consuming the recording."""
        if self._file is None:
            raise ValueError("I/O operation on a closed recording")
        with _named(self.name):
            cols = _lib.columns_new(self._file, ev, None)
        try:
            self._schema(cols)
        finally:
            _lib.columns_free(cols)

    def _charged(self, samples, symfs, kallsyms):
        """symbol, dso, period (and trap, charge, redirects / exact) per row."""
        _check_samples(samples, "hotspots()")
        if "period" not in samples.dtype.names:
            raise ValueError("hotspots() needs the column 'period'")
        dec = _attr_decoder(samples.dtype.names)
        sym, dso, _ = self.symbolize(samples, symfs=symfs, kallsyms=kallsyms)
        cols = {"symbol": sym, "dso": dso, "period": samples["period"].astype(np.uint64)}
        if "event" in samples.dtype.names:
            cols["event"] = samples["event"].astype(np.int64)
        if dec == "alpha_profileme":
            a = _attribute(samples, dec)
            names = ATTRIBUTION_CODES
            cols["trap"] = _code_names(a["trap"], names["trap"], a["attributed"])
            cols["charge"] = _code_names(a["charge"], names["charge"], a["attributed"])
            cols["redirects"] = a["charge"] == names["charge"].index("redirect")
        elif dec is not None:
            cols["exact"] = _attribute(samples, dec)["exact"]
        return cols


# perf's PERF_RECORD_MISC_CPUMODE_* names (perf report's symbol levels:
# [k] kernel, [.] user, [H] hypervisor, [g] guest kernel, [u] guest user)
CPUMODES = ("unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user")


_SYM_COLUMNS = ("comm", "dso", "sym", "symoff")


def _as_type(col, dtype):
    """col with the elements of dtype: a view when the sizes match (pid's
    uint32 read as the symbolizer's int32), else a converted copy."""
    col = np.asarray(col)
    if col.dtype == dtype:
        return col
    if col.dtype.itemsize == np.dtype(dtype).itemsize and col.dtype.kind in "uib":
        return col.view(dtype)
    return col.astype(dtype)


def _codes_categorical(codes, n, names):
    """A categorical of the n codes (bytes, as the binding's symbol_rows()
    gives them: native int8 or int16 when that is pandas' code type for that
    many names, else uint32) into names: a copy of its own (the bytes stay
    in the per-recording cache), nothing converted or checked again."""
    width = len(codes) // n if n else 1
    if width in (1, 2):
        c = np.frombuffer(codes, dtype=np.int8 if width == 1 else np.int16).copy()
    else:
        c = np.frombuffer(codes, dtype=np.uint32).astype(_code_dtype(len(names)))
    return _categorical(c, names)


def _symbol_frame_columns(out, n, which):
    """The columns which (names of _SYM_COLUMNS) of the binding's
    symbol_rows() answer out for n rows, as the frame's own arrays."""
    sym, dso, off, comm, syms, dsos, comms = out
    cols = {}
    for c in which:
        if c == "symoff":
            cols[c] = np.frombuffer(off, dtype=np.uint64).copy()
        else:
            codes, names = {"sym": (sym, syms), "dso": (dso, dsos), "comm": (comm, comms)}[c]
            cols[c] = _codes_categorical(codes, n, names)
    return cols


_FROM_CODES_VALIDATE = None


def _categorical(codes, categories):
    """pd.Categorical of codes that are right by construction (-1 or an
    index into categories, in pandas' code type for that many categories),
    without pandas checking every code again (from_codes() computes their
    minimum and maximum): from_codes(validate=False) where pandas has it
    (2.1), else the constructor's fast path, which older pandas take for
    codes."""
    import pandas as pd
    global _FROM_CODES_VALIDATE
    if _FROM_CODES_VALIDATE is None:
        import inspect
        _FROM_CODES_VALIDATE = "validate" in inspect.signature(pd.Categorical.from_codes).parameters
    dtype = pd.CategoricalDtype(categories)
    if _FROM_CODES_VALIDATE:
        return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)
    return pd.Categorical(codes, dtype=dtype, fastpath=True)


def _table_categorical(inverse, table):
    """A categorical of table[inverse] without a Python object per row."""
    import pandas as pd
    cats, remap = np.unique(np.array([str(x) for x in table], dtype=object), return_inverse=True)
    codes = remap[inverse] if len(table) else np.full(len(inverse), -1, dtype=np.int64)
    return pd.Categorical.from_codes(codes, categories=list(cats))


def _basename_categorical(cat):
    """A categorical of paths as their basenames ("[kernel.kallsyms]" and
    the other bracketed names stay)."""
    import pandas as pd
    base = [c if c.startswith("[") else os.path.basename(c) for c in cat.categories]
    new, remap = np.unique(np.array(base, dtype=object), return_inverse=True)
    codes = np.asarray(cat.codes, dtype=np.int64)
    codes = np.where(codes >= 0, remap[np.maximum(codes, 0)] if len(remap) else -1, -1)
    return pd.Categorical.from_codes(codes, categories=list(new))


def _converted_columns(arr, which, nevents):
    """The codes of event (nevents categories) and cpumode (those of
    _cpumode_categorical()) and callchain_nr, callchain_markers as uint64,
    of the names in which, from one pass of C over the rows of arr (each
    numpy pass over a field reads every row); only those it can make ({}
    when arr is not one contiguous block of rows)."""
    if not which or not arr.flags.c_contiguous or arr.dtype.itemsize == 0:
        return {}
    n = len(arr)
    specs, made = [], {}
    for name in which:
        t, off = arr.dtype.fields[name][:2]
        if t.kind not in "iu" or t.byteorder == (">" if sys.byteorder == "little" else "<"):
            continue
        if name == "event":
            out = np.empty(n, dtype=_code_dtype(nevents))
            specs.append((off, t.itemsize, int(t.kind == "i"), 1, nevents, out))
        elif name == "cpumode":
            if t.itemsize != 1:
                continue
            out = np.empty(n, dtype=np.int8)
            specs.append((off, 1, 0, 2, 9, out))
        else:
            if t.kind != "u":
                continue
            out = np.empty(n, dtype=np.uint64)
            specs.append((off, t.itemsize, 0, 0, 0, out))
        made[name] = out
    if specs:
        _c.frame_convert(arr, arr.dtype.itemsize, specs)
    return made


def _code_dtype(ncats):
    """The integer type pandas keeps the codes of ncats categories in (a
    categorical made from codes of another type is converted first)."""
    return (np.int8 if ncats < 127 else np.int16 if ncats < 32767 else
            np.int32 if ncats < 2**31 - 1 else np.int64)


def _category_codes(col, ncats, mask=None):
    """Codes of a categorical of ncats categories from the integer column
    col: its values, -1 where out of range or masked, in pandas' code type."""
    col = np.asarray(col)
    if mask is None and len(col) and col.max() < ncats and (col.dtype.kind != "i" or col.min() >= 0):
        return col.astype(_code_dtype(ncats))   # every value in range: one conversion
    bad = col >= ncats
    if col.dtype.kind == "i":
        bad |= col < 0
    if mask is not None:
        bad |= mask
    codes = col.astype(_code_dtype(ncats))
    codes[bad] = -1
    return codes


# cpumode value -> code: 0-7 as they are, 255 (PALcode) the ninth category
_CPUMODE_CODES = np.full(256, -1, dtype=np.int8)
_CPUMODE_CODES[:8] = np.arange(8)
_CPUMODE_CODES[255] = 8


_CPUMODE_NAMES = list(CPUMODES) + ["cpumode 6", "cpumode 7", "PALcode"]


def _cpumode_categorical(col):
    """cpumode codes (header.misc & 7; PALcode 255) as a categorical of their names."""
    import pandas as pd
    cats = _CPUMODE_NAMES
    col = np.asarray(col)
    if col.dtype == np.uint8 and len(col) and col.max() < 8:
        codes = col.astype(np.int8)          # every value its own code: one conversion
    elif col.dtype == np.uint8:
        codes = _CPUMODE_CODES[col]          # one lookup per row, in pandas' code type
    else:
        codes = col.astype(np.int64)
        codes = np.where(codes == 255, len(cats) - 1, codes)
        codes[(codes < 0) | (codes >= len(cats))] = -1
    return _categorical(codes, cats)


def _code_names(codes, names, ok):
    table = np.array(list(names) + [None] * (256 - len(names)), dtype=object)
    out = table[codes]
    out[~ok] = None
    return out


ATTRIBUTION_CODES = _ATTR_NAMES


def _check_samples(samples, what):
    if not isinstance(samples, np.ndarray) or samples.dtype.names is None:
        raise TypeError("%s expects the numpy structured array of samples(), not %s "
                        "(for a DataFrame df use df.to_records(index=False))"
                        % (what, type(samples).__name__))


def _unique_codes(names):
    """Categories of a code column: a name that several codes share (IBS
    "(reserved)") gets its code, so that every code keeps its own category."""
    count = {}
    for n in names:
        count[n] = count.get(n, 0) + 1
    return [n if count[n] == 1 else "%s (%d)" % (n, i) for i, n in enumerate(names)]


def _unique_names(names):
    """Category names for the event column: duplicates get a #index suffix."""
    seen = {}
    out = []
    for i, n in enumerate(names):
        if n in seen:
            n = "%s#%d" % (n, i)
        seen[n] = i
        out.append(n)
    return out


def open(source, strict=False):
    """Open a perf.data recording: a path (str or os.PathLike), the
    recording's contents (bytes, bytearray, memoryview, io.BytesIO), or a
    readable binary file object.  A real file is read from offset 0 whatever
    its position; a pipe (such as sys.stdin.buffer) is read as it comes
    (perf's pipe format) and only once; another readable object (a
    gzip.GzipFile, ...) is read to its end into memory first.  The recording
    opens its own descriptor and closes it in close(); the caller's file
    object is left open.

    ``strict``: a pipe stream whose last record is cut, or that has junk
    after its last record (an interrupted ``perf record -o -``), ends there
    by default, as perf reads it: every record before the damage is read
    and a ``DamageWarning`` names the offset once.  With ``strict=True`` it
    is the error it is (``TruncatedError``/``CorruptError``), as
    ``profileme script --strict``.  Damage in the middle of a file is
    always an error."""
    return PerfData(source, strict=strict)


def read_many(paths, fields=None, event=None, partial=False, symbols=False, **kw):
    """Several recordings (of one machine) as one DataFrame: each
    recording's ``to_pandas(fields, event, partial, symbols, **kw)`` with a
    ``source`` column first (a categorical of the paths, in order; a path
    given twice gets a "#k" suffix).  Categoricals are unioned (``event``,
    code columns, ``sym``, ...), and a column that some recordings lack is
    NA there without changing its kind: uint64 columns become ``UInt64``
    (never float64, which would corrupt addresses), flags ``boolean``,
    categoricals NaN.  Columns present everywhere with one dtype keep it."""
    import pandas as pd
    from pandas.api.types import union_categoricals
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("read_many() needs at least one recording")
    frames = []
    for p in paths:
        with PerfData(p) as rec:
            frames.append(rec.to_pandas(fields=fields, event=event, partial=partial,
                                        symbols=symbols, **kw))
    names = []
    for df in frames:
        names += [c for c in df.columns if c not in names]
    lens = [len(df) for df in frames]
    data = {"source": pd.Categorical.from_codes(
        np.repeat(np.arange(len(paths)), lens), categories=_unique_names(paths))}
    for c in names:
        pieces = [df[c] if c in df.columns else None for df in frames]
        have = [x for x in pieces if x is not None]
        if any(isinstance(x.dtype, pd.CategoricalDtype) for x in have):
            cats = [pd.Categorical(x) if x is not None else
                    pd.Categorical([None] * n, categories=pd.Index([], dtype=object))
                    for x, n in zip(pieces, lens)]
            data[c] = union_categoricals(cats)
            continue
        same = len(have) == len(pieces) and len({str(x.dtype) for x in have}) == 1
        if same and isinstance(have[0].dtype, np.dtype):
            data[c] = np.concatenate([x.to_numpy() for x in have])
            continue
        kinds = {x.dtype.kind if isinstance(x.dtype, np.dtype) else
                 getattr(x.dtype, "kind", "O") for x in have}
        if kinds <= {"u", "i"}:
            signed = "i" in kinds
            target = "Int64" if signed else "UInt64"
        elif kinds <= {"b"}:
            target = "boolean"
        else:
            target = None
        parts = []
        for x, n in zip(pieces, lens):
            if x is None:
                parts.append(pd.Series([None] * n, dtype=target or have[0].dtype))
            else:
                parts.append(x.astype(target) if target else x)
        data[c] = pd.concat(parts, ignore_index=True)
    return pd.DataFrame({k: (v.to_numpy() if isinstance(v, pd.Series) and
                             isinstance(v.dtype, np.dtype) else
                             (v.array if isinstance(v, pd.Series) else v))
                         for k, v in data.items()}, copy=False)


# ---------------------------------------------------------------- live sampling

from ._session import Session  # noqa: E402  (Python over profileme.capi)
