# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.Session: live sampling, in Python over the generated
profileme.capi (no hand-written C of its own).

The library does the work and keeps the policy: the sampling defaults
(PM_EVENT_OPT_SAMPLING), the attrs as opened (pm_evlist_open()), matching
each ring sample to its event and parsing it with that attr's layout
(pm_columns_new_from_evlist(): the bulk column reader over the rings, the
columns and dtypes of a file's), the command it starts
(pm_evlist_prepare_command()), and the perf.data writer.  The samples go
into numpy through the same array transfer as PerfData.samples()
(glue.c columns_read_rows(), GIL released).

Every record the reader takes out of the rings is also written, by C
(pm_columns_tee() into a pm_writer), to a pipe-mode stream in memory (a
memfd): save() and recording() copy those records into a perf.data file.
"""
import io
import os
import struct
import time

import numpy as np

from . import _glue as _c
from . import _lib
from . import capi as _C
from ._errors import ERR_SYNTAX, Error, EventError

# rows per read of the live columns
_BATCH = 1 << 14
# records of the spool with a type from here on are the stream's own
# (PERF_RECORD_HEADER_ATTR, HEADER_FEATURE, ...), not ring records
_USER_TYPE_START = _C.PM_RECORD_USER_TYPE_START
_HDR = struct.Struct("=IHH")


def _check_args(events, period, freq, command, pid):
    if isinstance(events, str):
        events = [events]
    try:
        events = list(events)
    except TypeError:
        raise TypeError("events must be a list of event strings") from None
    if not events:
        raise ValueError("at least one event is needed")
    for ev in events:
        if not isinstance(ev, str):
            raise TypeError("events must be event strings, not %s" % type(ev).__name__)
        if "\0" in ev:
            e = EventError(ERR_SYNTAX, "a NUL character in the event string (at %d)"
                           % ev.index("\0"))
            e.position = ev.index("\0")
            e.event = ev
            raise e
    for name, v in (("period", period), ("freq", freq), ("pid", pid)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise ValueError("%s must be a non-negative integer" % name)
        if v is not None and v > (1 << 62):
            raise ValueError("%s is too large" % name)
    if period and freq:
        raise ValueError("give period or freq, not both")
    if command is not None:
        if isinstance(command, (str, bytes)):
            raise TypeError("command must be a list of strings")
        from . import _no_nul
        command = [_no_nul(os.fsdecode(os.fspath(a)), "command argument") for a in command]
        if not command:
            raise ValueError("command is empty")
    return events, command


def _evlist(events, period, freq, command, pid, cpus, sysfs):
    """The opened (not started) pm_evlist of the events, on the command,
    the pid, or system-wide on cpus."""
    flags = 0
    if cpus:
        flags |= _C.PM_EVLIST_SYSTEM_WIDE
    elif not pid or command is not None:
        flags |= _C.PM_EVLIST_INHERIT
    o = _C.pm_evlist_opts(flags=flags, pid=pid or 0)
    if cpus:
        o.cpus = cpus
    el = _C.pm_evlist_new(o)
    try:
        pmus = _C.pm_pmu_scan(sysfs)
    except Error:
        pmus = None    # PMUs are optional for generic names
    # the sampling defaults are the library's (PM_EVENT_OPT_SAMPLING: period
    # or frequency for the events whose string sets neither, else
    # PM_DEFAULT_SAMPLE_FREQ; tracepoints every event)
    eo = _C.pm_event_opts(flags=_C.PM_EVENT_OPT_SAMPLING, sample_period=period or 0,
                          sample_freq=freq or 0)
    for s in events:
        try:
            lst = _C.pm_event_parse_opts(pmus, s, eo)
        except EventError as e:
            e.event = s
            raise
        for k in range(_C.pm_event_list_count(lst)):
            ev = _C.pm_event_list_get(lst, k)
            _C.pm_evlist_add(el, _C.pm_event_attr(ev), _C.pm_event_name(ev), -1)
    if command is not None:
        _C.pm_evlist_prepare_command(el, command)
    _C.pm_evlist_open(el)
    return el


class Session:
    """Live sampling with perf_event_open, as a context manager.

        with profileme.Session(["task-clock"], period=100000, command=["./app"]) as s:
            s.wait()
            samples = s.read()

    ``events`` is a list of event strings (or one string); ``period`` or
    ``freq`` set the sampling rate of the events whose string sets neither
    ``period=`` nor ``freq=`` (the library's sampling defaults, perf
    record's: without either, capi.PM_DEFAULT_SAMPLE_FREQ Hz, 4000;
    tracepoints every event); ``command`` (a list) is started and sampled from exec on;
    ``pid`` samples a running process; ``cpus`` ("0-1") samples system-wide.
    """

    def __init__(self, events, period=None, freq=None, command=None, pid=None, cpus=None,
                 sysfs=None):
        self._el = self._cols = self._spool = None
        self._spool_fd = -1
        self._chunks = []
        events, command = _check_args(events, period, freq, command, pid)
        from . import _opt_str
        cpus = _opt_str(cpus, "cpus")
        sysfs = _opt_str(sysfs, "sysfs")
        try:
            self._el = _evlist(events, period, freq, command, pid, cpus, sysfs)
            # the bulk reader of the rings, and every record it takes into
            # the spool (C to C: pm_writer_ring_cb)
            self._cols = _C.pm_columns_new_from_evlist(self._el, None)
            schema, _ = _lib.columns_schema(self._cols)
            self._names = [s[0] for s in schema]
            self._dtype = np.dtype([(n, t) for n, t, _ in schema])
            self._spool_fd = os.memfd_create("profileme-session-spool",
                                             getattr(os, "MFD_CLOEXEC", 1))
            self._spool = _C.pm_writer_open_fd(self._spool_fd, _C.pm_writer_opts(
                flags=_C.PM_WRITER_PIPE | _C.PM_WRITER_NO_FEATURES))
            _C.pm_writer_add_evlist(self._spool, self._el)
            _C.pm_writer_begin(self._spool)
            _C.pm_columns_tee(self._cols, self._spool)
            _C.pm_evlist_start(self._el)
        except BaseException:
            self.close()
            raise
        self.events = list(events)
        self._exited = None

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
        if self._el is None:
            raise ValueError("the session is closed")

    def _drain(self):
        """Every sample the rings hold now, as rows (appended to the
        gathered ones); the number of rows."""
        total = 0
        offsets = [self._dtype.fields[n][1] for n in self._names]
        while True:
            arr = np.empty(_BATCH, dtype=self._dtype)
            skipped = _C.pm_columns_skipped(self._cols)
            got, err, exc = _c.columns_read_rows(self._cols, arr, offsets, self._dtype.itemsize,
                                                 _BATCH)
            if got:
                arr.resize(got, refcheck=False)
                self._chunks.append(arr)
                total += got
            if exc is not None and _C.pm_columns_skipped(self._cols) == skipped:
                raise exc       # not a bad sample (which is counted in stats["skipped"])
            if exc is None and got < _BATCH:
                return total

    def poll(self, timeout=0.1):
        """Wait up to ``timeout`` seconds for data, then drain the rings."""
        self._check()
        if timeout:
            try:
                _C.pm_evlist_poll(self._el, int(timeout * 1000))
            except Error:
                pass    # the target is gone (-EPIPE), a signal: drain anyway
        return self._drain()

    def wait(self, timeout=None):
        """Wait for the started command to exit, draining meanwhile; returns its
        wait status (or None on timeout)."""
        self._check()
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            done, status = self._child_status()
            self.poll(0.05)
            if done:
                self.poll(0)
                return status
            if end is not None and time.monotonic() > end:
                return None

    def _child_status(self):
        """(exited, wait status) of the command the session started."""
        if self._exited is None:
            rc, status = _C.pm_evlist_wait_child(self._el, 0)
            if rc <= 0:
                return False, status
            self._exited = status
        return True, self._exited

    def read(self):
        """The samples gathered so far (since the session started) as a numpy
        structured array, with the columns and dtypes of ``PerfData.samples()``
        (time, pid, tid, cpu, ip, period, addr, id, event, ...).  Rows come
        ring by ring (each ring, one per CPU, in time order)."""
        self._check()
        self.poll(0)
        if not self._chunks:
            return np.empty(0, dtype=self._dtype)
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0]

    def _records(self):
        """The records the session took out of the rings so far (memoryviews
        of the spool, in the order they were read)."""
        _C.pm_writer_sync(self._spool)
        size = os.fstat(self._spool_fd).st_size
        data = memoryview(os.pread(self._spool_fd, size, 0))
        off = 16        # the pipe-mode header
        while off + 8 <= size:
            typ, _, sz = _HDR.unpack_from(data, off)
            if sz < 8 or off + sz > size:
                raise Error(_C.PM_ERR_CORRUPT, "the session's record spool is damaged at %d" % off)
            if typ < _USER_TYPE_START:
                yield data[off:off + sz]
            off += sz

    def _write(self, path, fd):
        w = _C.pm_writer_open(path, None) if path is not None else \
            _C.pm_writer_open_fd(fd, None)
        n = 0
        try:
            _C.pm_writer_add_evlist(w, self._el)
            _C.pm_writer_begin(w)
            for rec in self._records():
                _C.pm_writer_write(w, rec)
                n += 1
            _C.pm_writer_finished_round(w)
            _C.pm_writer_finish(w)
        finally:
            _C.pm_writer_close(w)
        return n

    def save(self, path):
        """Write every record the session has seen so far (samples, MMAP,
        COMM, FORK, ...) as a perf.data file through the library's writer
        (pm_writer_*): ``perf report -i path`` and ``profileme.open(path)``
        read it.  Returns the number of records written."""
        from . import _no_nul
        self._check()
        self.poll(0)
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        return self._write(_no_nul(path, "path"), -1)

    def recording(self):
        """What the session has gathered so far as a ``PerfData`` (written
        by the library's writer into memory): everything ``profileme.open()``
        gives -- ``samples()`` with the same dtypes, ``to_pandas()``,
        ``symbolize()`` with the maps the session saw, ``callchains()``,
        ``hotspots()``.  Close it when done."""
        from . import PerfData
        self._check()
        self.poll(0)
        fd = os.memfd_create("profileme-session", getattr(os, "MFD_CLOEXEC", 1))
        try:
            self._write(None, fd)
            with io.FileIO(fd, "rb", closefd=False) as fh:
                rec = PerfData(fh)
        finally:
            os.close(fd)
        rec.name = "<session>"
        return rec

    def _gathered(self, what, *args, **kw):
        with self.recording() as rec:
            return getattr(rec, what)(*args, **kw)

    def to_pandas(self, *args, **kw):
        """``recording().to_pandas(...)``: the gathered samples as a DataFrame."""
        return self._gathered("to_pandas", *args, **kw)

    def samples(self, *args, **kw):
        """``recording().samples(...)``: every column, the dtypes of ``PerfData.samples()``."""
        return self._gathered("samples", *args, **kw)

    def symbolize(self, *args, **kw):
        """``recording().symbolize(...)``: symbols with the maps the session saw."""
        return self._gathered("symbolize", *args, **kw)

    def callchains(self, *args, **kw):
        """``recording().callchains(...)`` (the events need callchains sampled)."""
        return self._gathered("callchains", *args, **kw)

    def hotspots(self, *args, **kw):
        """``recording().hotspots(...)``."""
        return self._gathered("hotspots", *args, **kw)

    @property
    def lost(self):
        """Records the kernel dropped (PERF_RECORD_LOST + LOST_SAMPLES)."""
        st = self.stats
        return st["lost"] + st["lost_samples"]

    @property
    def stats(self):
        """The rings' counters (pm_evlist_stats()): records, samples, lost,
        lost_samples, throttles; skipped (samples that could not be decoded,
        pm_columns_skipped()); child_pid."""
        self._check()
        st = _C.pm_evlist_stats(self._el)
        return {"records": st.records, "samples": st.samples, "lost": st.lost,
                "lost_samples": st.lost_samples, "throttles": st.throttles,
                "skipped": _C.pm_columns_skipped(self._cols),
                "child_pid": _C.pm_evlist_child_pid(self._el)}

    def close(self):
        # the reader and the spool point into the list: they go first
        if self._cols is not None:
            _C.pm_columns_free(self._cols)
            self._cols = None
        if self._spool is not None:
            _C.pm_writer_close(self._spool)
            self._spool = None
        if self._spool_fd >= 0:
            os.close(self._spool_fd)
            self._spool_fd = -1
        if self._el is not None:
            _C.pm_evlist_free(self._el)
            self._el = None
        self._chunks = []
