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

import io
import os

import numpy as np

from . import capi as _c
from . import _capi as _ext

Error = _ext.Error
EventError = _ext.EventError

__version__, _version_number = _c.version()
__all__ = [
    "Error", "EventError", "PMU", "PerfData", "Session", "__version__", "decode_profileme",
    "decode_raw", "encode", "library_version", "open", "pmus", "raw_decoders",
]


def library_version():
    """The loaded C library's version: (string, number)."""
    return _c.version()


def _opt_str(value, what):
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError("%s must be a string or None, not %s" % (what, type(value).__name__))
    return value


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
    return [PMU(d) for d in _c.pmus(_opt_str(sysfs, "sysfs"))]


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
    res = _c.encode(event, _opt_str(sysfs, "sysfs"))
    return res[0] if len(res) == 1 else res


def raw_decoders():
    """Names of the registered raw-payload decoders."""
    return _c.raw_decoders()


def decode_raw(data, decoder):
    """Decode one PERF_SAMPLE_RAW payload (bytes-like) with the named decoder
    ("alpha_profileme", "ibs_fetch", "ibs_op"): a dict of field name -> value
    (codes as their names, flags as bool; fields the hardware marked invalid
    are left out)."""
    if not isinstance(decoder, str):
        raise TypeError("decoder must be a string")
    return _c.decode_raw(memoryview(data), decoder)


def decode_profileme(data):
    """Decode an Alpha ProfileMe payload (struct alpha_profileme_sample)."""
    return decode_raw(data, "alpha_profileme")


# ---------------------------------------------------------------- perf.data

def _min_sample_size(attrs):
    """The smallest a SAMPLE record of these attrs can be: bounds the rows."""
    fixed = (0, 1, 2, 3, 6, 7, 8, 9, 16)  # IP TID TIME ADDR ID CPU PERIOD STREAM_ID IDENTIFIER
    best = None
    for a in attrs:
        if a is None:
            continue
        st = int(a["sample_type"], 16)
        size = 8 + 8 * sum(1 for b in fixed if st & (1 << b))
        if st & (1 << 10):
            size += 8                     # RAW: u32 size + padding, at least
        best = size if best is None else min(best, size)
    return max(best or 16, 16)


class PerfData:
    """A perf.data recording (file or pipe format, either byte order,
    compressed).  Use as a context manager; see profileme.open()."""

    def __init__(self, source):
        self._path = None
        self._fh = None
        self._file = None
        self._consumed = False
        self.events = []
        self.features = {}
        self.decoder = None
        self.codes = {}
        if isinstance(source, (str, bytes, os.PathLike)):
            path = os.fsdecode(source)
            self._path = path
            self._file = _c.file_open(path)
        elif hasattr(source, "fileno"):
            if isinstance(source, io.TextIOBase):
                raise TypeError("open the perf.data file in binary mode")
            try:
                fd = source.fileno()
            except (io.UnsupportedOperation, OSError, ValueError) as e:
                raise TypeError("expected a path or a binary file with a file descriptor "
                                "(%s)" % e) from None
            if not isinstance(fd, int) or isinstance(fd, bool) or fd < 0:
                raise TypeError("fileno() did not return a file descriptor")
            self._fh = source
            self._file = _c.file_open_fd(fd)
        else:
            raise TypeError("expected a path or a binary file, not %s" % type(source).__name__)
        self.features = _c.file_features(self._file)
        self.events = _c.file_events(self._file)
        self._samples = None

    # context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Close the recording; later calls raise ValueError."""
        if self._file is not None:
            _c.file_close(self._file)
            self._file = None

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
            self._path or "fd", len(self.events), ", closed" if self.closed else "")

    def _fresh(self):
        """A pm_file positioned at the first record."""
        if self._file is None:
            raise ValueError("I/O operation on a closed recording")
        if not self._consumed:
            self._consumed = True
            return self._file, False
        if self._path is None:
            raise ValueError("a recording read from a pipe can be read only once "
                             "(samples() caches its result; call it first)")
        return _c.file_open(self._path), True

    def _event_index(self, event):
        if event is None:
            return -1
        if isinstance(event, int):
            if not 0 <= event < len(self.events):
                raise ValueError("event index %d out of range" % event)
            return event
        for e in self.events:
            if e["name"] == event:
                return e["index"]
        raise ValueError("no event named %r (events: %s)" % (event, [e["name"] for e in self.events]))

    def samples(self, fields=None, event=None):
        """All samples as a numpy structured array, one row per sample.

        Columns: time, pid, tid, cpu, ip, period, addr, id, event (index into
        .events), cpumode, callchain_nr, raw_ok, then -- for a ProfileMe or
        IBS recording -- every decoded field (codes as small integers; their
        names in ``.codes``).  ``fields`` selects columns; ``event`` (index
        or name) selects one event's samples.
        """
        key = (tuple(fields) if fields is not None else None, event)
        if self._samples is not None and self._samples[0] == key:
            return self._samples[1]
        ev = self._event_index(event)
        f, own = self._fresh()
        try:
            cols = _c.columns_new(f, ev, None)
            try:
                arr = self._read_columns(cols, fields)
            finally:
                _c.columns_free(cols)
        finally:
            if own:
                _c.file_close(f)
        if self._path is None:
            self._samples = (key, arr)
        return arr

    def _read_columns(self, cols, fields):
        schema, decoder = _c.columns_schema(cols)
        self.decoder = decoder
        self.codes = {name: codes for name, _, codes in schema if codes}
        names = [s[0] for s in schema]
        if fields is not None:
            fields = list(fields)
            unknown = [f for f in fields if f not in names]
            if unknown:
                raise ValueError("unknown fields %s (available: %s)" % (unknown, names))
        wanted = [s for s in schema if fields is None or s[0] in fields]
        dtype = np.dtype([(n, t) for n, t, _ in wanted])
        offs = {n: dtype.fields[n][1] for n, _, _ in wanted}
        offsets = [offs.get(n) for n in names]
        # First guess of the row count from the data size; grow if needed.
        data_size = self.features.get("data_size") or 0
        attrs = [e["attr"] for e in self.events]
        cap = max(1024, data_size // _min_sample_size(attrs) + 1) if data_size else 1 << 16
        arr = np.empty(cap, dtype=dtype)
        n = 0
        row = max(dtype.itemsize, 1)
        if dtype.itemsize == 0:
            # no columns wanted: still count rows through a 1-byte scratch row
            scratch = np.empty(cap, dtype=np.uint8)
        while True:
            if n == len(arr):
                arr.resize(len(arr) * 2, refcheck=False)
                if dtype.itemsize == 0:
                    scratch = np.empty(len(arr), dtype=np.uint8)
            target = arr[n:] if dtype.itemsize else scratch[n:]
            got, err = _c.columns_read_rows(cols, target, offsets if dtype.itemsize else [None] * len(names),
                                            row, len(arr) - n)
            n += got
            if err < 0:
                # rows before the damage are kept; the next read raises
                continue
            if n < len(arr):
                break
        arr.resize(n, refcheck=False)
        return arr

    def to_pandas(self, fields=None, event=None):
        """The samples as a pandas DataFrame: code columns become
        categoricals, ``event`` becomes the event name."""
        import pandas as pd
        arr = self.samples(fields=fields, event=event)
        data = {}
        for name in arr.dtype.names:
            col = arr[name]
            if name == "event":
                cats = [e["name"] for e in self.events]
                codes = col.astype(np.int64)
                codes[(codes < 0) | (codes >= len(cats))] = -1
                data[name] = pd.Categorical.from_codes(codes, categories=cats) if cats else col
            elif name in getattr(self, "codes", {}):
                cats = self.codes[name]
                codes = col.astype(np.int64)
                codes[codes >= len(cats)] = -1
                data[name] = pd.Categorical.from_codes(codes, categories=cats)
            else:
                data[name] = col
        return pd.DataFrame(data, copy=False)

    def records(self):
        """Every record, in time order, as a dict with every decoded field
        (samples: ip, pid, tid, time, cpu, period, addr, callchain, raw and
        the decoded payload under the decoder name "alpha_profileme"/"ibs_op"/"ibs_fetch",
        as in ``profileme script --json``; others:
        their fields and "bytes").  The detailed, slow path."""
        f, own = self._fresh()
        ctx = _c.raw_ctx_from_file(f)
        try:
            while True:
                if not own and self._file is None:
                    raise ValueError("I/O operation on a closed recording")
                r = _c.file_next(f, ctx)
                if r is None:
                    return
                yield r
        finally:
            _c.raw_ctx_free(ctx)
            if own:
                _c.file_close(f)

    def callchains(self, event=None):
        """Callchains of the samples as (ips, offsets): ips is one flat uint64
        array, and the chain of sample i (in the order of ``samples()`` with
        the same ``event``) is ips[offsets[i]:offsets[i+1]].  Context markers
        (PERF_CONTEXT_*) are dropped, as in ``profileme script --json``.
        Decoded in C, no Python object per entry."""
        ev = self._event_index(event)
        f, own = self._fresh()
        try:
            ips, offs = _c.file_callchains(f, ev)
        finally:
            if own:
                _c.file_close(f)
        return (np.frombuffer(ips, dtype=np.uint64).copy(),
                np.frombuffer(offs, dtype=np.int64).copy())


    def symbolize(self, samples=None):
        """Symbols of the samples' ips: a tuple (sym, dso, offset) of numpy
        arrays (object, object, uint64), one entry per row of ``samples``
        (default: ``self.samples()``; needs its pid, ip and cpumode columns).

        Uses the recording's MMAP/MMAP2 records and the ELF files they name,
        and kallsyms for kernel addresses (through libprofileme's symbol
        module).  Each distinct (pid, ip, cpumode) is looked up once.  Modest
        by design: the maps are those at the end of the recording."""
        if samples is None:
            samples = self.samples()
        missing = [k for k in ("pid", "ip", "cpumode") if k not in (samples.dtype.names or ())]
        if missing:
            raise ValueError("symbolize() needs the columns %s" % missing)
        keys = np.empty(len(samples), dtype=[("pid", "i4"), ("ip", "u8"), ("cpumode", "u1")])
        keys["pid"] = samples["pid"].astype(np.int32)
        keys["ip"] = samples["ip"]
        keys["cpumode"] = samples["cpumode"]
        uniq, inverse = np.unique(keys, return_inverse=True)
        f, own = self._fresh()
        try:
            res = _c.symbolize(f, np.ascontiguousarray(uniq["pid"]), np.ascontiguousarray(uniq["ip"]),
                               np.ascontiguousarray(uniq["cpumode"]))
        finally:
            if own:
                _c.file_close(f)
        sym = np.array([r[0] for r in res], dtype=object)
        dso = np.array([r[1] for r in res], dtype=object)
        off = np.array([r[2] for r in res], dtype=np.uint64)
        return sym[inverse], dso[inverse], off[inverse]

    def hotspots(self, top=20, samples=None):
        """A hot-spot table (pandas DataFrame): samples per symbol and DSO,
        with their share, most sampled first."""
        import pandas as pd
        if samples is None:
            samples = self.samples(fields=["pid", "ip", "cpumode", "period"])
        sym, dso, _ = self.symbolize(samples)
        df = pd.DataFrame({"symbol": sym, "dso": dso, "period": samples["period"]})
        t = df.groupby(["symbol", "dso"], sort=False).agg(samples=("period", "size"),
                                                          period=("period", "sum"))
        t["percent"] = 100.0 * t["samples"] / max(len(df), 1)
        return t.sort_values("samples", ascending=False).head(top).reset_index()


def open(source):
    """Open a perf.data recording: a path, or a binary file object (a pipe
    such as sys.stdin.buffer works: perf's pipe format)."""
    return PerfData(source)


# ---------------------------------------------------------------- live sampling

class Session:
    """Live sampling with perf_event_open, as a context manager.

        with profileme.Session(["task-clock"], period=100000, command=["./app"]) as s:
            s.wait()
            samples = s.read()

    ``events`` is a list of event strings (or one string); ``period`` or
    ``freq`` set the sampling rate (default: 4000 Hz unless the event string
    says); ``command`` (a list) is started and sampled from exec on;
    ``pid`` samples a running process; ``cpus`` ("0-1") samples system-wide.
    """

    def __init__(self, events, period=None, freq=None, command=None, pid=None, cpus=None,
                 sysfs=None):
        self._s = None
        self._chunks = []
        if isinstance(events, str):
            events = [events]
        for name, v in (("period", period), ("freq", freq), ("pid", pid)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise ValueError("%s must be a non-negative integer" % name)
            if v is not None and v > (1 << 62):
                raise ValueError("%s is too large" % name)
        if period and freq:
            raise ValueError("give period or freq, not both")
        if command is not None:
            if isinstance(command, str):
                raise TypeError("command must be a list of strings")
            command = [os.fspath(a) for a in command]
        self._s = _c.session_new(list(events), period or 0, freq or 0, command, pid or 0,
                                 _opt_str(cpus, "cpus"), _opt_str(sysfs, "sysfs"))
        self.events = list(events)
        self._chunks = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _check(self):
        if self._s is None:
            raise ValueError("the session is closed")

    def poll(self, timeout=0.1):
        """Wait up to ``timeout`` seconds for data, then drain the rings."""
        self._check()
        return _c.session_poll(self._s, int(timeout * 1000))

    def wait(self, timeout=None):
        """Wait for the started command to exit, draining meanwhile; returns its
        wait status (or None on timeout)."""
        import time
        self._check()
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            done, status = _c.session_wait(self._s, 0)
            self.poll(0.05)
            if done:
                self.poll(0)
                return status
            if end is not None and time.monotonic() > end:
                return None

    def read(self):
        """The samples gathered so far (since the session started) as a numpy
        structured array: time, pid, tid, cpu, ip, period, addr, event."""
        self._check()
        self.poll(0)
        cols = _c.session_take(self._s)
        n = len(cols["time"]) // 8
        if n:
            dt = np.dtype([(k, "u8") for k in ("time", "pid", "tid", "cpu", "ip", "period", "addr")]
                          + [("event", "i4")])
            chunk = np.empty(n, dtype=dt)
            for k in cols:
                chunk[k] = np.frombuffer(cols[k], dtype=np.uint64, count=n)
            self._chunks.append(chunk)
        if not self._chunks:
            return np.empty(0, dtype=np.dtype([(k, "u8") for k in ("time", "pid", "tid", "cpu", "ip",
                                                                     "period", "addr")] + [("event", "i4")]))
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0]

    @property
    def lost(self):
        """Records the kernel dropped (PERF_RECORD_LOST + LOST_SAMPLES)."""
        self._check()
        st = _c.session_stats(self._s)
        return st["lost"] + st["lost_samples"]

    @property
    def stats(self):
        self._check()
        return _c.session_stats(self._s)

    def close(self):
        if self._s is not None:
            _c.session_close(self._s)
            self._s = None
