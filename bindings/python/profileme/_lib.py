# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""The parts of the idiomatic layer that are plain calls of the C API: the
generated profileme.capi (every library function under its C name), with
no hand-written C.  Each function returns what the package builds its
objects from (dicts, lists, tuples); the bulk array transfers stay in the
hand-written glue (docs/python.md, "Hand-written C").
"""
import struct
import sys

from . import capi as _C
from ._errors import Error

_ENOENT_ERRORS = (Error,)


def version():
    """(version string, version number) of the loaded library."""
    return _C.pm_version_string(), _C.pm_version_number()


# ---------------------------------------------------------------- files

def file_open(path, strict=False):
    return _C.pm_file_open(path, _C.pm_file_opts(strict=1 if strict else 0))


def file_open_fd(fd, strict=False):
    # The caller owns fd (PerfData opens its own descriptor and closes it
    # after file_close()): the library does not take it over.
    if fd < 0:
        raise ValueError("negative file descriptor")
    return _C.pm_file_open_fd(fd, _C.pm_file_opts(strict=1 if strict else 0))


def file_close(f):
    _C.pm_file_close(f)


def file_end_status(f):
    """None for a clean end, else (code, offset, message) of a pipe stream
    that ended early (pm_file_end_status())."""
    rc, off, msg = _C.pm_file_end_status(f)
    return None if rc == 0 else (-rc, off, msg)


def _optional(fn, *args):
    """fn(*args), or None where the library says the item is absent."""
    try:
        return fn(*args)
    except _ENOENT_ERRORS:
        return None


def _items(fn, f):
    """fn(f, 0), fn(f, 1), ... until the library says there is no more."""
    out = []
    while True:
        got = _optional(fn, f, len(out))
        if got is None:
            return out
        out.append(got)


_FEATURE_STRINGS = (("hostname", "PM_FEAT_HOSTNAME"), ("osrelease", "PM_FEAT_OSRELEASE"),
                    ("version", "PM_FEAT_VERSION"), ("arch", "PM_FEAT_ARCH"),
                    ("cpudesc", "PM_FEAT_CPUDESC"), ("cpuid", "PM_FEAT_CPUID"))


def file_features(f):
    """The header and feature sections as a dict (docs/python.md)."""
    d = {}
    info = _C.pm_file_get_info(f)
    d["pipe_mode"] = bool(info.pipe_mode)
    d["big_endian"] = bool(info.big_endian)
    d["data_size"] = info.data_size
    for key, feat in _FEATURE_STRINGS:
        s = _C.pm_file_feature_string(f, getattr(_C, feat))
        if s is not None:
            d[key] = s
    got = _optional(_C.pm_file_nrcpus, f)
    if got is not None:
        d["nrcpus_avail"], d["nrcpus_online"] = got
    got = _optional(_C.pm_file_total_mem, f)
    if got is not None:
        d["total_mem"] = got
    got = _optional(_C.pm_file_sample_time, f)
    if got is not None:
        d["sample_time"] = tuple(got)
    got = _optional(_C.pm_file_clock_data, f)
    if got is not None:
        # the reference pair that turns sample times into wall-clock time
        d["clock_data"] = {"clockid": got[0], "tod_ns": got[1], "clockid_ns": got[2]}
    if _C.pm_file_has_feature(f, _C.PM_FEAT_CMDLINE) > 0:
        args = []
        while True:
            s = _C.pm_file_cmdline(f, len(args))
            if s is None:
                break
            args.append(s)
        d["cmdline"] = args
    d["pmu_mappings"] = {t: name for t, name in _items(_C.pm_file_pmu_mapping, f)}
    caps = {}
    for pmu, name, value in _items(_C.pm_file_pmu_cap, f):
        caps.setdefault(pmu, {})[name] = value
    d["pmu_caps"] = caps
    return d


def attr_dict(a):
    """A perf_event_attr as a dict, the keys of `profileme encode --json`."""
    flags = a.flags
    freq = bool(flags & _C.PM_ATTR_FREQ)
    d = {"type": a.type, "size": a.size, "config": hex(a.config), "config1": hex(a.config1),
         "config2": hex(a.config2), "config3": hex(a.config3),
         "precise_ip": (flags & _C.PM_ATTR_PRECISE_IP_MASK) >> _C.PM_ATTR_PRECISE_IP_SHIFT}
    for key in ("exclude_user", "exclude_kernel", "exclude_hv", "exclude_host", "exclude_guest",
                "exclude_idle"):
        d[key] = int(bool(flags & getattr(_C, "PM_ATTR_" + key.upper())))
    d["freq"] = int(freq)
    d["sample_freq" if freq else "sample_period"] = a.sample_period
    d["sample_type"] = hex(a.sample_type)
    d["bp_type"] = a.bp_type
    d["read_format"] = a.read_format
    d["flags"] = flags
    return d


def file_events(f):
    """[{index, name, layout_error, attr}] of the recording's attrs."""
    out = []
    for i in range(_C.pm_file_nr_attrs(f)):
        a = _C.pm_file_attr(f, i)
        # the library's name (EVENT_DESC / EVENT_UPDATE, else its canonical
        # string of the attr, as `profileme script` shows)
        name = _C.pm_file_event_name(f, i)
        if name is None:
            name = _optional(_C.pm_attr_format, a, None) if a is not None else None
            if name is None:
                name = "unknown-%d" % i
        out.append({"index": i, "name": name,
                    # samples this library cannot lay out: the library says why, once
                    "layout_error": _C.pm_file_attr_layout_error(f, i),
                    "attr": attr_dict(a) if a is not None else None})
    return out


# ---------------------------------------------------------------- columns

def columns_new(f, event, decoder, sym=None):
    o = _C.pm_columns_opts(event=event)
    if decoder is not None:
        o.decoder = decoder
    if sym is not None:
        # the reader keeps the side records for pm_columns_resolve_rows()
        o.sym = sym
    return _C.pm_columns_new_from_file(f, o)


def sym_new_from_file(f, symfs, kallsyms, path=None):
    o = _C.pm_sym_opts()
    if symfs is not None:
        o.sysroot = symfs
    if kallsyms is not None:
        o.kallsyms = kallsyms
    if path is not None:
        o.path = path
    return _C.pm_sym_new_from_file(f, o)


def sym_free(s):
    _C.pm_sym_free(s)


def columns_free(c):
    _C.pm_columns_free(c)


def columns_skipped(c):
    return _C.pm_columns_skipped(c)


_DTYPES = ("u8", "u4", "i4", "u1")
_ORDER = "<" if sys.byteorder == "little" else ">"
_BIG_HOST = sys.byteorder == "big"


def columns_schema(c):
    """([(name, numpy dtype string, code names or None)], decoder name)."""
    dec = _C.pm_columns_decoder(c)
    ctx = _C.pm_columns_raw_ctx(c)
    nbase = _C.PM_COLUMNS_NBASE
    out = []
    for i in range(_C.pm_columns_count(c)):
        name = _C.pm_columns_name(c, i)
        typ = _C.pm_columns_type(c, i)
        fi = _optional(_C.pm_raw_field_index, dec, name) if dec is not None and i >= nbase else None
        kind = _C.pm_raw_field_kind(dec, fi) if fi is not None else None
        dtype = _DTYPES[typ]
        # flags as numpy bool (one byte, 0/1)
        if typ == _C.PM_COL_U8 and (name == "raw_ok" or kind == _C.PM_RAW_KIND_BOOL or
                                    (fi is None and i >= nbase and name.endswith("_valid"))):
            dtype = "?"
        elif dtype != "u1":
            dtype = _ORDER + dtype
        codes = None
        if kind == _C.PM_RAW_KIND_CODE:
            codes = []
            for k in range(256):
                cn = _C.pm_raw_field_code_name(dec, ctx, fi, k)
                if cn is None:
                    break
                codes.append(cn)
        out.append((name, dtype, codes))
    return out, (_C.pm_raw_decoder_name(dec) if dec is not None else None)


# ---------------------------------------------------------------- raw payloads

def raw_decoders():
    return [_C.pm_raw_decoder_name(_C.pm_raw_decoder_get(i)) for i in range(_C.pm_raw_decoder_count())]


# per decoder name: ((field name, kind), ...); code names per context
_RAW_FIELDS = {}
_RAW_CODES = {}      # of the default context (ctx None)
_BOOL, _CODE, _BYTES = _C.PM_RAW_KIND_BOOL, _C.PM_RAW_KIND_CODE, _C.PM_RAW_KIND_BYTES


def _raw_fields(d):
    name = _C.pm_raw_decoder_name(d)
    got = _RAW_FIELDS.get(name)
    if got is None:
        got = _RAW_FIELDS[name] = tuple((_C.pm_raw_field_name(d, i), _C.pm_raw_field_kind(d, i))
                                        for i in range(_C.pm_raw_field_count(d)))
    return name, got


def _ctx_cache(ctx, key):
    """A dict kept by the raw context object (its options decide code names
    and decoders), or the default context's."""
    if ctx is None:
        return _RAW_CODES.setdefault(key, {})
    return ctx.__dict__.setdefault("_pm_" + key, {})


def raw_dict(d, ctx, payload):
    """A decoded payload as {field: value}, absent fields left out: flags
    bool, codes their names (the number where a code has none), BYTES
    fields bytes.  One pm_raw_decode_row() call (numbers as lists); the
    names are asked once per decoder, context and code."""
    values, present = _C.pm_raw_decode_row(d, ctx, payload)
    dname, fields = _raw_fields(d)
    out = {}
    vals = None
    codes = None
    for i, (name, kind) in enumerate(fields):
        if not present[i]:
            continue
        v = values[i]
        if kind == _BOOL:
            v = bool(v)
        elif kind == _CODE:
            if codes is None:
                codes = _ctx_cache(ctx, "codes")
            key = (dname, i, v)
            cn = codes.get(key, codes)
            if cn is codes:
                cn = codes[key] = _C.pm_raw_field_code_name(d, ctx, i, v)
            if cn is not None:
                v = cn
        elif kind == _BYTES:
            if vals is None:
                vals = _C.pm_raw_decode(d, ctx, payload)
            v = vals[i].bytes
        out[name] = v
    return out


def decode_raw(data, decoder):
    d = _C.pm_raw_decoder_find(decoder)
    if d is None:
        raise ValueError("no raw decoder named %r (known: %r)" % (decoder, raw_decoders()))
    return raw_dict(d, None, data)


def raw_ctx_from_file(f):
    """The raw-decoding context of a recording (pm_raw_ctx_new_from_file())."""
    return _C.pm_raw_ctx_new_from_file(f)


def raw_ctx_free(ctx):
    _C.pm_raw_ctx_free(ctx)


# ---------------------------------------------------------------- records

# (present bits, key, member) of a sample, in the order of the dict
_SAMPLE_U64 = tuple((getattr(_C, b) if isinstance(b, str) else b[0] | b[1], k, m) for b, k, m in (
    ("PM_SAMPLE_IP", "ip", "ip"), ("PM_SAMPLE_TID", "pid", "pid"), ("PM_SAMPLE_TID", "tid", "tid"),
    ("PM_SAMPLE_TIME", "time", "time"), ("PM_SAMPLE_ADDR", "addr", "addr"),
    ((_C.PM_SAMPLE_ID, _C.PM_SAMPLE_IDENTIFIER), "id", "id"),
    ("PM_SAMPLE_STREAM_ID", "stream_id", "stream_id"), ("PM_SAMPLE_CPU", "cpu", "cpu"),
    ("PM_SAMPLE_PERIOD", "period", "period"),
    ((_C.PM_SAMPLE_WEIGHT, _C.PM_SAMPLE_WEIGHT_STRUCT), "weight", "weight"),
    ("PM_SAMPLE_DATA_SRC", "data_src", "data_src"), ("PM_SAMPLE_TRANSACTION", "transaction", "transaction"),
    ("PM_SAMPLE_PHYS_ADDR", "phys_addr", "phys_addr"), ("PM_SAMPLE_CGROUP", "cgroup", "cgroup"),
    ("PM_SAMPLE_DATA_PAGE_SIZE", "data_page_size", "data_page_size"),
    ("PM_SAMPLE_CODE_PAGE_SIZE", "code_page_size", "code_page_size")))
# the fields of the other records that records() gives: (key, member)
_TASK = (("pid", "pid"), ("ppid", "ppid"), ("tid", "tid"), ("ptid", "ptid"), ("time", "time"))
_RECORD_FIELDS = {
    _C.PM_RECORD_COMM: ("comm", (("pid", "pid"), ("tid", "tid"), ("comm", "comm"))),
    _C.PM_RECORD_MMAP: ("mmap", (("pid", "pid"), ("tid", "tid"), ("start", "addr"), ("len", "len"),
                                 ("pgoff", "pgoff"), ("filename", "filename"))),
    _C.PM_RECORD_FORK: ("task", _TASK),
    _C.PM_RECORD_LOST: ("lost", (("lost", "lost"),)),
}
_RECORD_FIELDS[_C.PM_RECORD_MMAP2] = _RECORD_FIELDS[_C.PM_RECORD_MMAP]
_RECORD_FIELDS[_C.PM_RECORD_EXIT] = _RECORD_FIELDS[_C.PM_RECORD_FORK]
_RECORD_FIELDS[_C.PM_RECORD_LOST_SAMPLES] = _RECORD_FIELDS[_C.PM_RECORD_LOST]


def _text(s):
    """A name the library read (undecodable bytes as surrogates) as records()
    gives it: undecodable bytes replaced."""
    if s is None:
        return None
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


_TYPE_NAMES = {}     # record type -> pm_record_type_name() (static names)


def file_next(f, ctx):
    """The next record of f as a dict with every field (records(): the
    detailed, slow path), None at the end; the payload decoded with ctx
    (a raw_ctx_from_file(), or None: not decoded)."""
    more, rec = _C.pm_file_next(f)
    if not more:
        return None
    typ = rec.type
    tname = _TYPE_NAMES.get(typ, _TYPE_NAMES)
    if tname is _TYPE_NAMES:
        tname = _TYPE_NAMES[typ] = _C.pm_record_type_name(typ)
    d = {"type": tname, "type_id": typ, "misc": rec.misc, "offset": rec.offset, "size": rec.size}
    idx = rec.attr_idx
    if idx >= 0:
        d["event_index"] = idx
        d["event"] = _C.pm_file_event_name(f, idx)
    if typ != _C.PM_RECORD_SAMPLE:
        r = _optional(_C.pm_file_record_parse, f, rec)
        if r is not None:
            got = _RECORD_FIELDS.get(typ)
            if got is not None:
                part = getattr(r, got[0])
                for key, m in got[1]:
                    v = getattr(part, m)
                    d[key] = _text(v) if isinstance(v, str) else v
            sid = r.sample_id
            if sid.present & _C.PM_SAMPLE_TIME:
                d["time"] = sid.time
        d["bytes"] = rec.data
        return d
    try:
        s = _C.pm_file_sample(f, rec)
    except Error:
        d["error"] = _C.pm_errmsg()
        return d
    p = s.present
    for bit, key, m in _SAMPLE_U64:
        if p & bit:
            d[key] = getattr(s, m)
    if p & _C.PM_SAMPLE_CALLCHAIN:
        cc = s.callchain
        if bool(s.big_endian) == _BIG_HOST:
            # nr u64 in this machine's order: what pm_sample_callchain_ip() reads, at once
            d["callchain"] = list(struct.unpack("=%dQ" % cc.nr, cc.ips or b""))
        else:
            d["callchain"] = [_C.pm_sample_callchain_ip(s, i) for i in range(cc.nr)]
    if p & _C.PM_SAMPLE_RAW:
        raw = s.raw.data or b""
        d["raw"] = raw
        if ctx is not None and idx >= 0:
            decs = _ctx_cache(ctx, "decoders")       # attr index -> (decoder, key) or None
            got = decs.get(idx, decs)
            if got is decs:
                dec = _optional(_C.pm_raw_ctx_select, ctx, _C.pm_file_attr(f, idx))
                got = decs[idx] = (dec, _C.pm_raw_decoder_key(dec)) if dec is not None else None
            if got is not None:
                dec, key = got
                try:
                    d[key] = raw_dict(dec, ctx, raw)
                except Error:
                    d["raw_error"] = _C.pm_errmsg()
    return d


# ---------------------------------------------------------------- chunks (profileme.dask)

_CHUNK_FIELDS = ("start", "end", "read_start", "time_lo", "time_hi", "time_min", "time_max",
                 "flags", "index", "data_offset", "data_end")


def chunk_index(f, chunk_bytes, threads=1, sideband=False, windows=None):
    """([chunk tuple of _CHUNK_FIELDS, ...], (first, last) sample time or
    None): the chunk index of f (pm_chunk_index_new_from_file(), the GIL
    released while it scans, in `threads` pieces at once); with sideband,
    a third item: the bytes of pm_chunk_index_sideband() (None: none).
    windows: [(lo, hi), ...]: the chunks of these time windows
    (pm_chunk_index_window()) instead of the index's."""
    opts = _C.pm_chunk_index_opts(chunk_bytes=chunk_bytes, threads=threads)
    with _C.pm_chunk_index_new_from_file(f, opts) as idx:
        out = []
        if windows is not None:
            for lo, hi in windows:
                c = _C.pm_chunk_index_window(idx, lo, hi)
                out.append(tuple(getattr(c, k) for k in _CHUNK_FIELDS))
        for i in range(_C.pm_chunk_index_count(idx) if windows is None else 0):
            c = _C.pm_chunk_index_get(idx, i)
            out.append(tuple(getattr(c, k) for k in _CHUNK_FIELDS))
        rng = _optional(_C.pm_chunk_index_time_range, idx)
        sb = _optional(_C.pm_chunk_index_sideband, idx) if sideband else None
    rng = tuple(rng) if rng is not None else None
    return (out, rng, sb) if sideband else (out, rng)


def file_select_chunk(f, chunk):
    """Restrict a fresh f to a chunk (a tuple of chunk_index())."""
    if not isinstance(chunk, tuple) or len(chunk) != len(_CHUNK_FIELDS):
        raise TypeError("a chunk of chunk_index() (a tuple of %d ints) is needed" % len(_CHUNK_FIELDS))
    _C.pm_file_select_chunk(f, _C.pm_file_chunk(**dict(zip(_CHUNK_FIELDS, chunk))))


def columns_new_mt(f, event, threads, chunk_bytes):
    """A pm_columns decoding f's chunks in `threads` threads
    (pm_columns_opts.threads), owned by the returned object: its end (or
    pm_columns_free()) joins the threads."""
    return _C.pm_columns_new_from_file(f, _C.pm_columns_opts(event=event, threads=threads,
                                                             chunk_bytes=chunk_bytes))


def attribution_names():
    """{"charge": [...], "mode": [...], "trap": [...]}: the names of the
    attribution codes."""
    out = {}
    for key, fn in (("charge", _C.pm_profileme_charge_name), ("mode", _C.pm_profileme_mode_name),
                    ("trap", _C.pm_profileme_trap_name)):
        names = []
        for code in range(255):
            n = fn(code)
            if n is None:
                break
            names.append(n)
        out[key] = names
    return out


# ---------------------------------------------------------------- PMUs and events

def _pmu_dict(p):
    formats = {}
    for i in range(_C.pm_pmu_format_count(p)):
        fm = _C.pm_pmu_format_get(p, i)
        formats[_C.pm_format_name(fm)] = _C.pm_format_spec(fm)
    events = {}
    for i in range(_C.pm_pmu_alias_count(p)):
        a = _C.pm_pmu_alias_get(p, i)
        events[_C.pm_alias_name(a)] = {
            "terms": _C.pm_alias_text(a), "unit": _C.pm_alias_unit(a),
            "scale": _C.pm_alias_scale(a), "per_pkg": bool(_C.pm_alias_per_pkg(a)),
            "snapshot": bool(_C.pm_alias_snapshot(a))}
    return {"name": _C.pm_pmu_name(p), "type": _optional(_C.pm_pmu_type, p),
            "cpus": _C.pm_pmu_cpus(p), "uncore": bool(_C.pm_pmu_is_uncore(p)),
            "profileme": bool(_C.pm_pmu_is_profileme(p)), "formats": formats, "events": events,
            "caps": {_C.pm_pmu_cap_name(p, i): _C.pm_pmu_cap_value(p, i)
                     for i in range(_C.pm_pmu_cap_count(p))},
            "diagnostics": [(_C.pm_pmu_diag_file(p, i), _C.pm_pmu_diag_message(p, i))
                            for i in range(_C.pm_pmu_diag_count(p))]}


def pmus(sysfs):
    """The PMUs under a sysfs root (None: the library's default) as dicts."""
    lst = _C.pm_pmu_scan(sysfs)
    return [_pmu_dict(_C.pm_pmu_list_get(lst, i)) for i in range(_C.pm_pmu_list_count(lst))]


def encode(event, sysfs):
    """The attrs of an event string: a list of dicts (attr_dict() plus
    event, name, profileme, group).  EventError (with .position and .event)
    when it does not encode."""
    from ._errors import EventError
    try:
        lst = _C.pm_pmu_scan(sysfs)
    except Error:
        lst = None     # PMUs are optional for generic names
    try:
        el = _C.pm_event_parse(lst, event)
    except EventError as e:
        e.event = event
        raise
    out = []
    for i in range(_C.pm_event_list_count(el)):
        ev = _C.pm_event_list_get(el, i)
        d = attr_dict(_C.pm_event_attr(ev))
        d["event"] = _C.pm_event_string(ev)
        d["name"] = _C.pm_event_name(ev)
        d["profileme"] = bool(_C.pm_event_flags(ev) & _C.PM_EVENT_PROFILEME)
        d["group"] = _C.pm_event_group(ev)
        out.append(d)
    return out


# ---------------------------------------------------------------- exporters

def export(f, fmt, path, fd, event, symfs, kallsyms, rec_path=None):
    """The library's exporters: pprof to a path, folded stacks to a
    descriptor (the GIL released while C reads the recording)."""
    if fmt not in ("pprof", "folded"):
        raise ValueError("unknown export format '%s' (pprof, folded)" % fmt)
    o = _C.pm_export_opts(event=event)
    if symfs:
        o.symfs = symfs
    if kallsyms:
        o.kallsyms = kallsyms
    if rec_path is not None:
        o.path = rec_path  # the recording's: a synthetic one's sidecar symbols
    if fmt == "pprof":
        _C.pm_export_pprof(f, o, path)
    else:
        _C.pm_export_folded(f, o, fd)


# ---------------------------------------------------------------- tracepoints

def _tp_py(v):
    if v.kind == _C.PM_TP_VALUE_INT:
        return v.i
    if v.kind == _C.PM_TP_VALUE_UINT:
        return v.u
    if v.kind == _C.PM_TP_VALUE_STRING:
        data = v.data or b""
        return (data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")) \
            .decode("utf-8", "replace")
    if v.kind == _C.PM_TP_VALUE_ARRAY:
        out = [_C.pm_tp_value_elem(v, n) for n in range(v.nelem)]
        if v.is_signed:
            bits = 8 * v.elem_size
            out = [e - (1 << bits) if 0 < bits <= 64 and e >= 1 << (bits - 1) else e for e in out]
        return out
    return None


def _s32(x):
    return x - (1 << 32) if x >= 1 << 31 else x


def file_tracepoints(f, event):
    """(names, rows) of a tracepoint event's samples, decoded by the
    recording's own formats (pm_file_tp_value()): each row (time, pid, tid,
    cpu, value...).  None when the event is no tracepoint with a format."""
    fmt = _optional(_C.pm_file_tp_format_of_attr, f, event)
    if fmt is None:
        return None
    got = _optional(_C.pm_file_tp_format, f, fmt)
    if got is None:
        return None
    names = []
    for k in range(got[3]):
        fd = _optional(_C.pm_file_tp_field, f, fmt, k)
        if fd is None:
            break
        names.append(fd.name)
    nf = len(names)
    rows = []
    sample = _C.PM_RECORD_SAMPLE
    has_raw = _C.PM_SAMPLE_RAW
    while True:
        more, rec = _C.pm_file_next(f)
        if not more:
            break
        if rec.type != sample or rec.attr_idx != event:
            continue
        s = _optional(_C.pm_file_sample, f, rec)
        if s is None or not (s.present & has_raw):
            continue
        raw = s.raw.data
        row = [s.time, _s32(s.pid), _s32(s.tid), s.cpu]
        for k in range(nf):
            v = _optional(_C.pm_file_tp_value, f, fmt, k, raw)
            row.append(None if v is None else _tp_py(v))
        rows.append(tuple(row))
    return names, rows
