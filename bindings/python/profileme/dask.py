# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Fleet-scale analysis on Dask: many recordings, many cores, many machines.

    import profileme.dask as pmd
    ddf = pmd.read_samples("/data/perf/*/perf.data", symbols=True)
    pmd.hotspots(ddf, by=["sym", "dso"])          # perf report's overhead table
    pmd.profileme_summary(ddf)                    # report's ProfileMe columns

Each partition is one chunk of one recording (``chunks()``: the library's
chunk index, pm_chunk_index_new_from_file()), decoded in C where the task
runs: with a ``distributed.Client`` on its workers (the paths must be
visible there), else in Dask's default scheduler.  docs/dask.md has the
rules and a worked example.
"""

import glob as _glob
import os

import numpy as np

import profileme
from profileme import _lib

DEFAULT_CHUNK_BYTES = 64 << 20

# flags of a chunk (include/profileme/file.h)
CHUNK_TIME_WINDOW = 1
CHUNK_WHOLE = 2
CHUNK_TIME_KNOWN = 4

_CHUNK_KEYS = ("start", "end", "read_start", "time_lo", "time_hi", "time_min", "time_max",
               "flags", "index", "data_offset", "data_end")
_SYM_COLUMNS = ("comm", "dso", "sym", "symoff")

__all__ = ["read_samples", "chunks", "hotspots", "profileme_summary", "ibs_summary",
           "DEFAULT_CHUNK_BYTES"]


def chunks(path, chunk_bytes=DEFAULT_CHUNK_BYTES, threads=None, sideband=False, windows=None):
    """The chunk index of one recording: (list of dicts, (first, last) sample
    time or None).  Each dict has start, end (the bytes the chunk stands for),
    read_start, time_lo, time_hi (its samples: time_lo <= time < time_hi when
    flags has CHUNK_TIME_WINDOW), time_min/time_max (bounds, CHUNK_TIME_KNOWN),
    flags, index, and a ``key`` to hand to the reader.  The scan runs in
    ``threads`` pieces at once (default: one per CPU; the index is the same
    for any number).  ``sideband=True``: a third item, the bytes the
    symbolization of any chunk replays instead of the file (the file's
    MMAP/COMM/FORK/EXIT records kept by the same scan,
    pm_chunk_index_sideband()), or None (a pipe stream or ``perf record -z``
    file: one chunk).  ``windows=[(lo, hi), ...]``: instead of the index's
    chunks, one chunk per time window lo <= time < hi
    (pm_chunk_index_window(); the file's chunks must be time windows)."""
    path = os.fspath(path)
    if threads is None:
        threads = os.cpu_count() or 1
    f = _lib.file_open(path, 0)
    try:
        with profileme._named(path):
            lst, rng, sb = _lib.chunk_index(f, int(chunk_bytes or 0), int(threads), True, windows)
    finally:
        _lib.file_close(f)
    out = []
    for t in lst:
        d = dict(zip(_CHUNK_KEYS, t))
        d["key"] = tuple(t)
        out.append(d)
    return (out, rng, sb) if sideband else (out, rng)


def _expand(paths_or_glob):
    if isinstance(paths_or_glob, (str, bytes, os.PathLike)):
        items = [paths_or_glob]
    else:
        items = list(paths_or_glob)
    out = []
    for p in items:
        p = os.fsdecode(os.fspath(p))
        if _glob.has_magic(p):
            hits = sorted(_glob.glob(p))
            if not hits:
                raise FileNotFoundError("no recording matches %r" % p)
            out += hits
        else:
            out.append(p)
    if not out:
        raise ValueError("read_samples() needs at least one recording")
    return out


def _wanted(rec, fields, symbols, attribution):
    """The columns to decode for to_pandas(fields) (+ what symbols need)."""
    if fields is None:
        return None
    names = rec._all_names()
    get = ["time"] + list(fields) + ["raw_ok"] + [f + "_valid" for f in fields]
    if symbols:
        get += ["pid", "tid", "ip", "cpumode"]
        dec = profileme._attr_decoder(rec._decoded)
        if dec is not None and attribution:
            get += list(profileme._ATTR_REGS[dec])
    return [g for g in dict.fromkeys(get) if g in names]


def _chunk_array(rec, path, key, get, ev):
    """The samples of one chunk as samples() gives them."""
    f = _lib.file_open(path, 0)
    try:
        with profileme._named(path):
            _lib.file_select_chunk(f, key)
            cols = _lib.columns_new(f, ev, None)
        try:
            feats = rec.features
            if not key[7] & CHUNK_WHOLE:
                # the first guess of the row count: the chunk's bytes, not the file's
                rec.features = dict(feats, data_size=max(int(key[1]) - int(key[2]), 1))
            try:
                return rec._read_columns(cols, get, ev, False)
            finally:
                rec.features = feats
        finally:
            _lib.columns_free(cols)
    finally:
        _lib.file_close(f)


def _chunk_symbols(rec, path, arr, key, sideband, symfs, kallsyms, attribution):
    """rec._symbol_columns(arr) of the rows of one chunk: the file's sideband
    replayed up to the chunk's end (pm_sym_resolve_chunk_rows()), not the file."""
    pid, ip, mode, time = rec._charged_rows(arr, attribution)
    f = _lib.file_open(path, 0)
    try:
        with profileme._named(path):
            out = profileme._c.chunk_symbol_rows(
                f, sideband, int(key[9]), int(key[10]), int(key[4]), int(key[7]), pid, arr["tid"],
                ip, mode, time, profileme._opt_str(symfs, "symfs"),
                profileme._opt_str(kallsyms, "kallsyms"), path, 1)
    finally:
        _lib.file_close(f)
    return profileme._symbol_frame_columns(out, len(arr), profileme._SYM_COLUMNS)


def _frame(rec, arr, fields, event, symbols, attribution, symfs, kallsyms, sym=None):
    """to_pandas(fields, event, symbols=...) of the rows in arr (sym: a
    function of arr giving the symbol columns; None: rec._symbol_columns)."""
    user = None if fields is None else [f for f in fields if f not in _SYM_COLUMNS]
    df = rec.to_pandas(fields=user, event=event, attribution=attribution, _arr=arr)
    if symbols:
        cols = sym(arr) if sym is not None else \
            rec._symbol_columns(arr, symfs, kallsyms, attribution)
        if fields is not None:
            df = df[[c for c in df.columns if c in fields]]
        df = df.copy()
        for c in _SYM_COLUMNS:
            if fields is None or c in fields or symbols is True:
                df[c] = cols[c]
    return df


def _read_chunk(path, key, fields, event, symbols, attribution, symfs, kallsyms, source, meta,
                sideband=None):
    """One partition: the chunk's samples, conformed to meta, time as index.
    With symbols and the file's sideband (a chunk of several), the symbol
    columns come from the sideband's replay, not from a read of the file."""
    with profileme.open(path) as rec:
        ev = rec._event_index(event)
        rec._schema_for(ev)
        get = _wanted(rec, fields, symbols, attribution)
        arr = _chunk_array(rec, path, key, get, ev)
        sym = None
        if symbols and sideband is not None and not key[7] & CHUNK_WHOLE:
            def sym(a):
                return _chunk_symbols(rec, path, a, key, sideband, symfs, kallsyms, attribution)
        df = _frame(rec, arr, fields, event, symbols, attribution, symfs, kallsyms, sym)
        times = arr["time"]
    return _conform(df, times, source, meta)


def _conform(df, times, source, meta):
    import pandas as pd
    n = len(df)
    data = {}
    for c in meta.columns:
        dt = meta[c].dtype
        if c == "source":
            data[c] = pd.Categorical.from_codes(np.full(n, source, dtype=np.int64),
                                                categories=dt.categories)
        elif c in df.columns:
            col = df[c]
            if isinstance(dt, pd.CategoricalDtype):
                if _known(dt):
                    col = col.cat.set_categories(dt.categories) if \
                        isinstance(col.dtype, pd.CategoricalDtype) else \
                        pd.Categorical(col, categories=dt.categories)
                data[c] = col.array if isinstance(col, pd.Series) else col
            elif col.dtype != dt:
                data[c] = col.astype(dt).array
            else:
                data[c] = col.array
        else:
            data[c] = pd.array([None] * n, dtype=dt) if not isinstance(dt, pd.CategoricalDtype) \
                else pd.Categorical([None] * n, categories=dt.categories if _known(dt) else [])
    out = pd.DataFrame(data, index=pd.Index(np.asarray(times, dtype=np.uint64), name="time"),
                       copy=False)
    return out


def _known(dt):
    from dask.dataframe.utils import UNKNOWN_CATEGORIES
    return UNKNOWN_CATEGORIES not in list(dt.categories)


def _file_meta(path, fields, event, symbols, attribution):
    """Empty frame with the file's columns and dtypes (no sample read)."""
    import pandas as pd
    with profileme.open(path) as rec:
        ev = rec._event_index(event)
        rec._schema_for(ev)
        get = _wanted(rec, fields, symbols, attribution)
        names = rec._all_names()
        dtype = np.dtype([(n, t) for n, t, _ in _c_schema(rec, ev) if get is None or n in get])
        arr = np.empty(0, dtype=dtype)
        user = None if fields is None else [f for f in fields if f not in _SYM_COLUMNS]
        if fields is not None:
            bad = [f for f in fields if f not in names and f not in _SYM_COLUMNS]
            if bad:
                raise ValueError("%s: unknown fields %s (available: %s)" % (path, bad, names))
        df = rec.to_pandas(fields=user, event=event, attribution=attribution, _arr=arr)
        size = _data_bytes(rec, path)
        span = _header_span(rec)
    if symbols:
        if fields is not None:
            df = df[[c for c in df.columns if c in fields]]
        df = df.copy()
        for c in _SYM_COLUMNS:
            if fields is None or c in fields or symbols is True:
                df[c] = np.zeros(0, dtype=np.uint64) if c == "symoff" else pd.Categorical([])
    return df.drop(columns=[c for c in ("time",) if c in df.columns]), size, span


_FEAT_COMPRESSED = 27   # PM_FEAT_COMPRESSED


def _header_span(rec):
    """(first, last) sample time of a recording from its header alone, when
    its time windows can be read without an index made beforehand: a
    file-mode recording (not a pipe stream), not zstd-compressed (one chunk),
    every event sampling the time, and the SAMPLE_TIME feature that perf
    record writes; else None."""
    feats = rec.features
    st = feats.get("sample_time")
    if feats.get("pipe_mode") or not st or not rec._all_timed() or st[0] > st[1]:
        return None
    if profileme.capi.pm_file_has_feature(rec._file, _FEAT_COMPRESSED):
        return None
    return int(st[0]), int(st[1])


def _data_bytes(rec, path):
    """Bytes of the data section from the header (None: a pipe stream, one
    chunk)."""
    feats = rec.features
    if feats.get("pipe_mode"):
        return None
    # an unclean exit leaves data_size 0: the data runs to the end of the file
    return int(feats.get("data_size") or 0) or os.path.getsize(path)


def _c_schema(rec, ev):
    cols = _lib.columns_new(rec._file, ev, None)
    try:
        return _lib.columns_schema(cols)[0]
    finally:
        _lib.columns_free(cols)


def _union_meta(metas, paths, symbols):
    """One meta over the files: categories unioned (symbol names unknown),
    a column absent somewhere made nullable (uint64 -> UInt64, bool ->
    boolean), as read_many() does."""
    import pandas as pd
    from dask.dataframe.utils import UNKNOWN_CATEGORIES
    names = []
    for m in metas:
        names += [c for c in m.columns if c not in names]
    data = {"source": pd.Categorical([], categories=profileme._unique_names(paths))}
    for c in names:
        have = [m[c] for m in metas if c in m.columns]
        everywhere = len(have) == len(metas)
        dt = have[0].dtype
        if isinstance(dt, pd.CategoricalDtype):
            if symbols and c in ("comm", "dso", "sym"):
                cats = [UNKNOWN_CATEGORIES]
            else:
                cats = []
                for h in have:
                    cats += [x for x in h.cat.categories if x not in cats]
            data[c] = pd.Categorical([], categories=cats)
            continue
        kinds = {str(h.dtype) for h in have}
        if everywhere and len(kinds) == 1:
            data[c] = pd.Series([], dtype=dt)
            continue
        k = {h.dtype.kind for h in have if isinstance(h.dtype, np.dtype)} | \
            {getattr(h.dtype, "kind", "O") for h in have if not isinstance(h.dtype, np.dtype)}
        if k <= {"u"}:
            target = "UInt64"
        elif k <= {"u", "i"}:
            target = "Int64"
        elif k <= {"b"}:
            target = "boolean"
        else:
            target = dt
        data[c] = pd.Series([], dtype=target)
    meta = pd.DataFrame({k: (v.array if isinstance(v, pd.Series) else v)
                         for k, v in data.items()})
    meta.index = pd.Index(np.zeros(0, dtype=np.uint64), name="time")
    return meta


def read_samples(paths_or_glob, fields=None, event=None, symbols=False,
                 chunk_bytes=DEFAULT_CHUNK_BYTES, attribution=True, symfs=None, kallsyms=None,
                 divisions="auto"):
    """The samples of many recordings as one ``dask.dataframe.DataFrame``.

    ``paths_or_glob``: a path, a glob pattern, or a list of them (files
    visible where the tasks run).  One partition per chunk of each file
    (``chunks()``; ``chunk_bytes`` of data each, cut at FINISHED_ROUND; pipe
    streams and ``perf record -z`` files are one chunk).  The columns are
    those of ``PerfData.to_pandas(fields, event, symbols=..., attribution,
    symfs, kallsyms)``, typed as it types them (categoricals for names,
    code columns as categoricals of their names, nullable dtypes for
    decoded fields), after a ``source`` categorical naming the file; the
    index is ``time``.  Event names and code columns share one set of
    categories over all files; ``comm``, ``dso`` and ``sym`` have categories
    per partition (unknown to Dask: ``.cat.as_known()`` to set them).

    ``divisions``: where the chunk index of each file is made.

    - ``False``: in the tasks.  Building the frame reads only each file's
      header, here; each file's index is one task (a pass over its record
      headers) that the file's partitions depend on, so the scans run on the
      workers, in parallel, and a file's partitions can start as soon as its
      own scan is done.  Each file gets ``data_size // chunk_bytes + 1``
      partitions (an upper bound of its chunk count: the partitions past
      the last chunk are empty).  Divisions are known where the headers
      allow it: every file a file-mode recording, not ``-z``, every sample
      timed, with the SAMPLE_TIME feature (first and last sample time,
      written by perf record), and the files' ranges disjoint; then the
      partitions are equal spans of each file's time range (each a time
      window of the file's index task), the files in time order, and a
      partition whose samples leave its header's range raises ValueError.
      Otherwise divisions are unknown; the partitions are in the order of
      the paths, each file's chunks in time order.
    - ``True``: here, before the frame is built (one thread per CPU), so
      that divisions can be known (on time): when every file's samples carry
      times and the files' time ranges do not overlap (one file, or the
      hourly files of one machine); the partitions are then in time order.
    - ``"auto"`` (default): ``True`` for one file, ``False`` for more.

    Times of different machines are on different clocks: never join on them.

    ``symbols=True`` symbolizes each chunk with the recording's whole
    history, as ``to_pandas`` does (each row looked up with the maps of its
    time): the chunk index's scan keeps the file's MMAP/COMM/FORK/EXIT
    records once per file (its sideband, ``chunks(sideband=True)``), and each
    chunk replays them up to its own end instead of reading the file again
    (a pipe stream or ``-z`` file is one chunk, symbolized with the file).
    """
    import dask
    import dask.dataframe as dd
    paths = _expand(paths_or_glob)
    fields = profileme.PerfData._fields(fields)
    if divisions == "auto":
        divisions = len(paths) == 1
    elif not isinstance(divisions, bool):
        raise ValueError("divisions must be True, False or 'auto', not %r" % (divisions,))
    metas, sizes, spans = [], [], []
    for p in paths:
        m, size, span = _file_meta(p, fields, event, symbols, attribution)
        metas.append(m)
        sizes.append(size)
        spans.append(span)
    meta = _union_meta(metas, paths, symbols)
    fn = _Partition(fields, event, symbols, attribution, symfs, kallsyms, meta)
    if not divisions:
        cb = int(chunk_bytes or DEFAULT_CHUNK_BYTES)
        known = _known_windows(paths, sizes, spans, cb, fn, symbols)
        if known is not None:
            parts, divs = known
            return dd.from_delayed(parts, meta=meta, divisions=divs, verify_meta=False)
        parts = []
        for i, p in enumerate(paths):
            idx = dask.delayed(_index, pure=True)(p, cb, bool(symbols),
                                                  dask_key_name="profileme-index-%s" %
                                                  dask.base.tokenize(p, cb, i, bool(symbols)))
            n = 1 if sizes[i] is None else sizes[i] // cb + 1
            for j in range(n):
                parts.append(dask.delayed(fn.lazy, pure=True)(
                    p, idx, j, j == n - 1, i,
                    dask_key_name="profileme-read-%s" % dask.base.tokenize(p, cb, i, j, fn.token)))
        return dd.from_delayed(parts, meta=meta, divisions=None, verify_meta=False)
    # the index scans release the GIL: one per CPU at a time
    from concurrent.futures import ThreadPoolExecutor
    ncpu = os.cpu_count() or 1
    each = max(1, ncpu // max(1, len(paths)))    # one file: its scan in one piece per CPU
    with ThreadPoolExecutor(max_workers=max(1, min(len(paths), ncpu))) as ex:
        indexes = list(ex.map(lambda p: chunks(p, chunk_bytes, each, sideband=True), paths))
    # known divisions: every chunk windowed with known times, files disjoint
    order = list(range(len(paths)))
    divs = None
    if all(rng is not None and all(c["flags"] & CHUNK_TIME_WINDOW and
                                   c["flags"] & CHUNK_TIME_KNOWN for c in lst)
           for lst, rng, _ in indexes):
        order.sort(key=lambda i: indexes[i][1][0])
        ok = all(indexes[order[i]][1][1] < indexes[order[i + 1]][1][0]
                 for i in range(len(order) - 1))
        if ok:
            divs = []
            for i in order:
                divs += [c["time_min"] for c in indexes[i][0]]
            divs.append(indexes[order[-1]][1][1])
            if any(a >= b for a, b in zip(divs[:-2], divs[1:-1])) or divs[-2] > divs[-1]:
                divs = None
        if divs is None:
            order = list(range(len(paths)))
    args = []
    for i in order:
        sb = indexes[i][2] if symbols else None
        for c in indexes[i][0]:
            args.append((paths[i], c["key"], i, sb))
    return dd.from_map(fn, args, meta=meta, divisions=divs, label="profileme-read",
                       enforce_metadata=False)


def _index(path, chunk_bytes, symbols=False, windows=None):
    """The task of a file's chunk index (read_samples(divisions=False)): the
    chunks' keys (with windows: the keys of those time windows,
    pm_chunk_index_window()), and the sideband (None without symbols).  The
    scan takes every CPU of the worker's machine: the file's partitions wait
    for it."""
    lst, rng, sb = chunks(path, chunk_bytes, sideband=True, windows=windows)
    return [c["key"] for c in lst], (sb if symbols else None)


_NO_END = 2 ** 64 - 1


def _known_windows(paths, sizes, spans, cb, fn, symbols):
    """read_samples(divisions=False) with known divisions, where the files
    allow it: every file's time range known from its header (_header_span())
    and the ranges disjoint.  Each file gets data_size // chunk_bytes + 1
    partitions on equal spans of its time range (the divisions), each read
    as one time window of the file's index (a task, as without divisions:
    pm_chunk_index_window()), the files in time order.  (parts, divisions),
    or None."""
    import dask
    if any(s is None for s in spans):
        return None
    order = sorted(range(len(paths)), key=lambda i: spans[i])
    if any(spans[a][1] >= spans[b][0] for a, b in zip(order, order[1:])):
        return None
    parts, divs = [], []
    for i in order:
        p, (first, last) = paths[i], spans[i]
        n = max(1, min(sizes[i] // cb + 1, last - first + 1))
        cuts = [first + (last - first + 1) * j // n for j in range(n)]
        # the first and last windows open-ended: a sample outside the header's
        # range is found (and reported) by its partition, not dropped
        wins = [(0 if j == 0 else cuts[j], cuts[j + 1] if j + 1 < n else _NO_END)
                for j in range(n)]
        idx = dask.delayed(_index, pure=True)(p, cb, bool(symbols), wins,
                                              dask_key_name="profileme-windex-%s" %
                                              dask.base.tokenize(p, cb, i, bool(symbols), wins))
        for j in range(n):
            parts.append(dask.delayed(fn.window, pure=True)(
                p, idx, j, i, (first, last),
                dask_key_name="profileme-wread-%s" % dask.base.tokenize(p, cb, i, j, wins,
                                                                        fn.token)))
        divs += cuts
    divs.append(spans[order[-1]][1])
    return parts, divs


class _Partition:
    """The partition function (picklable for distributed workers)."""

    def __init__(self, fields, event, symbols, attribution, symfs, kallsyms, meta):
        self.a = (fields, event, symbols, attribution, symfs, kallsyms)
        self.meta = meta
        import dask.base
        self.token = dask.base.tokenize(repr(self.a), list(meta.columns),
                                        [str(t) for t in meta.dtypes])

    def __call__(self, arg):
        path, key, source = arg[:3]
        sideband = arg[3] if len(arg) > 3 else None
        fields, event, symbols, attribution, symfs, kallsyms = self.a
        return _read_chunk(path, key, fields, event, symbols, attribution, symfs, kallsyms,
                           source, self.meta, sideband)

    def window(self, path, index, j, source, span):
        """Partition j of a file of _known_windows(): its window j, checked
        against the header's time range (the divisions were made from it)."""
        keys, sb = index
        df = self((path, keys[j], source, sb))
        if len(df):
            lo, hi = int(df.index.min()), int(df.index.max())
            if lo < span[0] or hi > span[1]:
                raise ValueError("%s: samples from time %d to %d, outside the range its header "
                                 "gives (SAMPLE_TIME %d-%d), from which the divisions were made: "
                                 "read it with divisions=True" % (path, lo, hi, span[0], span[1]))
        return df

    def lazy(self, path, index, j, last, source):
        """Partition j of a file of read_samples(divisions=False): its chunk j
        (the last partition: every chunk from j on), or nothing.  index:
        the _index() task's (keys, sideband)."""
        import pandas as pd
        keys, sb = index
        take = keys[j:] if last else keys[j:j + 1]
        if not take:
            return self.meta.iloc[:0].copy()
        frames = [self((path, k, source, sb)) for k in take]
        return frames[0] if len(frames) == 1 else pd.concat(frames)


# ---------------------------------------------------------------- reductions

def _keys(df, by):
    """Group keys as plain objects (categoricals of different partitions
    have different categories)."""
    out = {}
    for k in by:
        col = df[k]
        out[k] = col.astype(object).where(col.notna(), None) if hasattr(col, "cat") else col
    return out


def _partial_hot(df, by, extra):
    import pandas as pd
    keys = _keys(df, ["event"] + by)
    d = pd.DataFrame(keys)
    d["period"] = df["period"].to_numpy(dtype=np.uint64)
    for k in extra:
        d[k] = df[k].fillna(False).to_numpy(dtype=np.int64)
    g = d.groupby(["event"] + by, sort=False, dropna=False)
    out = g.agg(samples=("period", "size"), period=("period", "sum"),
                **{k: (k, "sum") for k in extra})
    return out.reset_index()


def _reduce(ddf, fn, *args):
    """fn over every partition, the results concatenated (one pandas frame)."""
    import dask
    import pandas as pd
    parts = [dask.delayed(fn)(p, *args) for p in ddf.to_delayed()]
    res = dask.compute(*parts)
    res = [r for r in res if len(r)]
    return pd.concat(res, ignore_index=True) if res else fn(ddf._meta, *args)


def hotspots(ddf, by=("sym", "dso"), weight="period", top=20):
    """perf report's hot-spot table over a read_samples() frame (one table
    per event, as perf report): ``samples``, ``period``, ``overhead``
    (percent of the event's period), ``samples_percent``, per group of the
    ``by`` columns (``symbols=True`` for sym/dso/comm), sorted by overhead
    (or ``weight="samples"``), the ``top`` first rows of each event (None:
    all).  For ProfileMe also ``redirects`` (samples charged to the
    trapping instruction of a PAL redirect).  Computed as a Dask reduction:
    a group-by per partition, summed."""
    import pandas as pd
    if weight not in ("period", "samples"):
        raise ValueError("weight must be 'period' or 'samples', not %r" % (weight,))
    by = [by] if isinstance(by, str) else list(by)
    missing = [k for k in by + ["event", "period"] if k not in ddf.columns]
    if missing:
        raise ValueError("hotspots() needs the columns %s (read_samples(symbols=True) "
                         "gives sym, dso and comm)" % missing)
    extra = []
    if "charge" in ddf.columns:
        extra.append("_redirect")
        ddf = ddf.assign(_redirect=ddf["charge"] == "redirect")
    part = _reduce(ddf, _partial_hot, by, extra)
    t = part.groupby(["event"] + by, sort=False, dropna=False).sum(numeric_only=True)
    t = t.reset_index()
    tables = []
    for ev, d in t.groupby("event", sort=True, dropna=False):
        total = float(d["period"].sum())
        d = d.copy()
        d["overhead"] = 100.0 * d["period"].astype(np.float64) / (total or 1.0)
        d["samples_percent"] = 100.0 * d["samples"] / max(int(d["samples"].sum()), 1)
        key = ["overhead", "samples"] if weight == "period" else ["samples", "overhead"]
        d = d.sort_values(key + by, ascending=[False, False] + [True] * len(by), kind="stable")
        tables.append(d if top is None else d.head(top))
    out = pd.concat(tables, ignore_index=True) if tables else t
    if "_redirect" in out.columns:
        out = out.rename(columns={"_redirect": "redirects"})
    cols = ["event"] + by + ["overhead", "samples", "samples_percent", "period"] + \
        (["redirects"] if "redirects" in out.columns else [])
    out["samples"] = out["samples"].astype(np.int64)
    out["period"] = out["period"].astype(np.uint64)
    return out[cols].reset_index(drop=True)


def _nearest_rank(values, counts, q):
    """perf-free nearest rank over a histogram: the value at rank
    ceil(q/4 * n) (1-based) of the sorted values, as profileme report."""
    order = np.argsort(values, kind="stable")
    v, c = np.asarray(values)[order], np.asarray(counts)[order]
    cum = np.cumsum(c)
    n = int(cum[-1])
    rank = max((n * q + 3) // 4, 1) if q < 4 else n
    return int(v[np.searchsorted(cum, rank)])


def _partial_flags(df, by, flags, hists):
    """Per group: samples, period, count of each flag; per (group, value) of
    each histogram column: count.  One frame, a `_kind` column telling which."""
    import pandas as pd
    keys = _keys(df, ["event"] + by)
    d = pd.DataFrame(keys)
    d["period"] = df["period"].to_numpy(dtype=np.uint64)
    for name, expr in flags.items():
        d[name] = expr(df).to_numpy(dtype=np.int64)
    g = d.groupby(["event"] + by, sort=False, dropna=False)
    base = g.agg(samples=("period", "size"), period=("period", "sum"),
                 **{k: (k, "sum") for k in flags}).reset_index()
    base["_kind"] = "base"
    out = [base]
    for name, expr in hists.items():
        vals, sel = expr(df)
        h = pd.DataFrame({k: v[sel.to_numpy()] for k, v in keys.items()})
        h["_value"] = np.asarray(vals[sel], dtype=np.int64) if sel.any() else \
            np.zeros(0, dtype=np.int64)
        h["samples"] = 1
        h = h.groupby(["event"] + by + ["_value"], sort=False, dropna=False)["samples"] \
            .sum().reset_index()
        h["_kind"] = name
        out.append(h)
    return pd.concat(out, ignore_index=True)


def _summary(ddf, by, flags, hists, pcts, decoded):
    import pandas as pd
    by = [by] if isinstance(by, str) else list(by)
    missing = [k for k in by + ["event", "period"] if k not in ddf.columns]
    if missing:
        raise ValueError("needs the columns %s (read_samples(symbols=True) gives sym, dso "
                         "and comm)" % missing)
    part = _reduce(ddf, _partial_flags, by, flags, hists)
    gk = ["event"] + by
    base = part[part["_kind"] == "base"].drop(columns=["_kind", "_value"], errors="ignore")
    t = base.groupby(gk, sort=False, dropna=False).sum(numeric_only=True).reset_index()
    ev_period = t.groupby("event", dropna=False)["period"].transform("sum").astype(np.float64)
    t["overhead"] = 100.0 * t["period"].astype(np.float64) / ev_period.where(ev_period > 0, 1.0)
    for name, (num, den) in pcts.items():
        # 0 where no sample has the field, as the report prints it
        t[name] = np.where(t[den] > 0, 100.0 * t[num] / t[den].where(t[den] > 0, 1), 0.0)
    for name in hists:
        h = part[part["_kind"] == name]
        stats = {}
        for key, g in h.groupby(gk, sort=False, dropna=False):
            v, c = g["_value"].to_numpy(), g["samples"].to_numpy()
            n = int(c.sum())
            if not n:
                continue
            stats[key if isinstance(key, tuple) else (key,)] = (
                float((v * c).sum()) / n, int(v.min()), _nearest_rank(v, c, 1),
                _nearest_rank(v, c, 2), _nearest_rank(v, c, 3), int(v.max()))
        rows = [stats.get(tuple(r)) for r in t[gk].itertuples(index=False, name=None)]
        for j, suffix in enumerate(("mean", "min", "q1", "median", "q3", "max")):
            t["%s_%s" % (name, suffix)] = pd.array(
                [r[j] if r is not None else None for r in rows],
                dtype="Float64" if suffix == "mean" else "Int64")
    for k in ["samples"] + list(flags):
        t[k] = t[k].astype(np.int64)
    t["period"] = t["period"].astype(np.uint64)
    t = t.sort_values(["event", "overhead"] + by, ascending=[True, False] + [True] * len(by),
                      kind="stable")
    return t.reset_index(drop=True)


def _flag(col):
    return lambda df: df[col].fillna(False).astype(bool)


def profileme_summary(ddf, by=("comm", "dso", "sym")):
    """The ProfileMe columns of ``profileme report`` (docs/report.md) per
    group of ``by`` (default: report's comm, dso, sym) and event, over a
    read_samples(symbols=True) frame of ProfileMe recordings: samples,
    period, overhead, profileme (decoded samples), not_killed, killed,
    stalled, trapped, mispredicted, pal_redirects, icm, their _pct over
    the decoded samples (stalled_pct, trapped_pct, mispredicted_pct,
    icache_miss_pct), pctr1 mean/min/q1/median/q3/max (nearest rank), and
    ``traps``: a dict trap name -> count of every trap other than "none"
    (the report's JSON "traps").
    Computed as Dask reductions (counts summed, PCTR1 as a value histogram
    per group, so the quartiles are exact)."""
    need = ["raw_ok", "killed", "stalled", "trapped", "mispredicted", "icm", "trap", "pctr1",
            "charge"]
    missing = [k for k in need if k not in ddf.columns]
    if missing:
        raise ValueError("profileme_summary() needs the ProfileMe columns %s" % missing)
    trap_names = [t for t in ddf["trap"].cat.categories if t != "none"] \
        if ddf["trap"].cat.known else []
    flags = {"profileme": lambda df: df["raw_ok"].astype(bool),
             "killed": _flag("killed"), "stalled": _flag("stalled"),
             "trapped": _flag("trapped"), "mispredicted": _flag("mispredicted"),
             "icm": _flag("icm"),
             "pal_redirects": lambda df: (df["charge"] == "redirect").fillna(False)}
    for t in trap_names:
        flags["trap:" + t] = (lambda name: lambda df: (df["trap"] == name).fillna(False))(t)
    hists = {"pctr1": lambda df: (df["pctr1"].to_numpy(dtype=np.int64, na_value=0),
                                  df["raw_ok"].astype(bool))}
    pcts = {"stalled_pct": ("stalled", "profileme"), "trapped_pct": ("trapped", "profileme"),
            "mispredicted_pct": ("mispredicted", "profileme"),
            "icache_miss_pct": ("icm", "profileme")}
    t = _summary(ddf, by, flags, hists, pcts, "profileme")
    t.insert(t.columns.get_loc("killed"), "not_killed", t["profileme"] - t["killed"])
    tc = ["trap:" + n for n in trap_names]
    t["traps"] = [{n: int(c) for n, c in zip(trap_names, row) if c}
                  for row in t[tc].itertuples(index=False, name=None)] if tc else \
        [{} for _ in range(len(t))]
    return t.drop(columns=tc)


def _counts(t, prefix, names, col):
    """The flag columns prefix+name of t as one column of dicts name -> count
    (the report's JSON objects: non-zero counts only), the flags dropped."""
    cols = [prefix + n for n in names]
    t[col] = [{n: int(c) for n, c in zip(names, row) if c}
              for row in t[cols].itertuples(index=False, name=None)] if cols else \
        [{} for _ in range(len(t))]
    return t.drop(columns=cols)


def _code_names(ddf, col):
    dt = ddf[col].dtype
    return [str(x) for x in dt.categories] if _known(dt) else []


def ibs_summary(ddf, by=("comm", "dso", "sym")):
    """The IBS columns of ``profileme report`` per group and event, over a
    read_samples(event=..., symbols=True) frame of one IBS event.

    ``ibs_op``: ibs_op (decoded samples), exact, inexact, ip_differs, ops
    (exact with IBS_OP_DATA), branches, branch_taken, branch_mispredicted
    (+ _pct), loads, stores, dc_miss (+ dc_miss_pct over loads and stores),
    dtlb_l1_miss, dtlb_l2_miss, tag_to_ret / comp_to_ret / dc_miss_lat
    mean/min/q1/median/q3/max (nearest rank; dc_miss_lat of loads that
    missed), and ``data_src``: a dict data source name -> loads (the
    report's JSON "data_src").

    ``ibs_fetch``: ibs_fetch, exact, inexact, ip_differs, fetch_lat
    mean/min/q1/median/q3/max, fetch_completed, ic_miss, itlb_l1_miss,
    itlb_l2_miss, l2_miss, l3_miss, oc_miss (each + _pct over the samples
    whose fetch has the bit), and ``page_size``: a dict page size -> count.

    Aggregates are over the exact samples, as the report's."""
    if "fetch_lat" in ddf.columns and "op_data_valid" not in ddf.columns:
        return _ibs_fetch_summary(ddf, by)
    need = ["raw_ok", "exact", "ip_differs", "op_data_valid", "tag_to_ret_ctr",
            "comp_to_ret_ctr", "op_brn_ret", "op_brn_taken", "op_brn_misp", "op_data3_valid",
            "ld_op", "st_op", "dc_miss", "dc_l1tlb_miss", "dc_l2tlb_miss", "dc_miss_lat",
            "data_src"]
    missing = [k for k in need if k not in ddf.columns]
    if missing:
        raise ValueError("ibs_summary() needs the ibs_op or ibs_fetch columns %s "
                         "(read_samples(event=the IBS event))" % missing)

    def ex(df):
        return df["exact"].fillna(False).astype(bool)

    def data(df):
        return ex(df) & df["op_data_valid"].fillna(False).astype(bool)

    def d3(df):
        return ex(df) & df["op_data3_valid"].fillna(False).astype(bool)

    def f(df, c):
        return df[c].fillna(False).astype(bool)

    def mem(df):
        return d3(df) & (f(df, "ld_op") | f(df, "st_op"))

    flags = {
        "ibs_op": lambda df: df["raw_ok"].astype(bool),
        "exact": ex,
        "inexact": lambda df: df["raw_ok"].astype(bool) & ~ex(df),
        "ip_differs": lambda df: df["ip_differs"].fillna(False).astype(bool),
        "ops": data,
        "branches": lambda df: data(df) & f(df, "op_brn_ret"),
        "branch_taken": lambda df: data(df) & f(df, "op_brn_ret") & f(df, "op_brn_taken"),
        "branch_mispredicted": lambda df: data(df) & f(df, "op_brn_ret") & f(df, "op_brn_misp"),
        "loads": lambda df: d3(df) & f(df, "ld_op"),
        "stores": lambda df: d3(df) & f(df, "st_op"),
        "_mem": mem,
        "dc_miss": lambda df: mem(df) & f(df, "dc_miss"),
        "dtlb_l1_miss": lambda df: mem(df) & f(df, "dc_l1tlb_miss"),
        "dtlb_l2_miss": lambda df: mem(df) & f(df, "dc_l2tlb_miss"),
    }
    hists = {
        "tag_to_ret": lambda df: (df["tag_to_ret_ctr"].to_numpy(dtype=np.int64, na_value=0),
                                  data(df)),
        "comp_to_ret": lambda df: (df["comp_to_ret_ctr"].to_numpy(dtype=np.int64, na_value=0),
                                   data(df)),
        "dc_miss_lat": lambda df: (df["dc_miss_lat"].to_numpy(dtype=np.int64, na_value=0),
                                   d3(df) & f(df, "ld_op") & f(df, "dc_miss")),
    }
    # data sources of the exact loads with IBS_OP_DATA3 whose source is known
    srcs = _code_names(ddf, "data_src")
    for name in srcs:
        flags["src:" + name] = (lambda n: lambda df: d3(df) & f(df, "ld_op") &
                                (df["data_src"] == n).fillna(False))(name)
    pcts = {"branch_taken_pct": ("branch_taken", "branches"),
            "branch_mispredicted_pct": ("branch_mispredicted", "branches"),
            "dc_miss_pct": ("dc_miss", "_mem")}
    t = _summary(ddf, by, flags, hists, pcts, "ibs_op")
    return _counts(t.drop(columns=["_mem"]), "src:", srcs, "data_src")


_FETCH_TALLIES = (("ic_miss", "ic_miss"), ("itlb_l1_miss", "l1tlb_miss"),
                  ("itlb_l2_miss", "l2tlb_miss"), ("l2_miss", "fetch_l2_miss"),
                  ("l3_miss", "fetch_l3_miss"), ("oc_miss", "fetch_oc_miss"))


def _ibs_fetch_summary(ddf, by):
    need = ["raw_ok", "exact", "ip_differs", "fetch_lat", "fetch_comp", "l1tlb_pgsz"] + \
        [c for _, c in _FETCH_TALLIES]
    missing = [k for k in need if k not in ddf.columns]
    if missing:
        raise ValueError("ibs_summary() needs the ibs_fetch columns %s (read_samples(event="
                         "the ibs_fetch event))" % missing)

    def ex(df):
        return df["exact"].fillna(False).astype(bool)

    flags = {
        "ibs_fetch": lambda df: df["raw_ok"].astype(bool),
        "exact": ex,
        "inexact": lambda df: df["raw_ok"].astype(bool) & ~ex(df),
        "ip_differs": lambda df: df["ip_differs"].fillna(False).astype(bool),
        "fetch_completed": lambda df: ex(df) & df["fetch_comp"].fillna(False).astype(bool),
    }
    pcts = {}
    for name, col in _FETCH_TALLIES:
        # of the exact samples whose fetch has the bit (the report's tally)
        flags["_n_" + name] = (lambda c: lambda df: ex(df) & df[c].notna())(col)
        flags[name] = (lambda c: lambda df: ex(df) & df[c].fillna(False).astype(bool))(col)
        pcts[name + "_pct"] = (name, "_n_" + name)
    sizes = _code_names(ddf, "l1tlb_pgsz")
    for n in sizes:
        flags["pgsz:" + n] = (lambda n: lambda df: ex(df) & (df["l1tlb_pgsz"] == n)
                              .fillna(False))(n)
    # the fetch latency of every exact sample (0 where the fetch has none)
    hists = {"fetch_lat": lambda df: (df["fetch_lat"].to_numpy(dtype=np.int64, na_value=0),
                                      ex(df))}
    t = _summary(ddf, by, flags, hists, pcts, "ibs_fetch")
    t = t.drop(columns=["_n_" + n for n, _ in _FETCH_TALLIES])
    return _counts(t, "pgsz:", sizes, "page_size")
