# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.capi: the C API as SWIG generates it from the public headers.

The expectations come from the version script (lib/libprofileme.map), the
headers (structs, Doxygen text), the fixture sysfs trees (directory
listings), the generator's sidecar of the bundled synthetic recording
(examples/data/profileme-synthetic.expected.json) and the inputs given.
"""
import errno
import gc
import json
import os
import re
import sys

import pytest

import profileme
from profileme import capi
from conftest import SRC, SYNTH, SYNTH_EXPECTED

MAP = os.path.join(SRC, "lib", "libprofileme.map")
INCLUDE = os.path.join(SRC, "include", "profileme")
SYSFS_INTEL = os.path.join(SRC, "tests", "fixtures", "sysfs", "intel")


def exported():
    """Every global symbol of every node of the version script."""
    text = re.sub(r"/\*.*?\*/", " ", open(MAP).read(), flags=re.S)
    names = []
    for node in re.finditer(r"([\w.]+)\s*\{\s*global:(.*?)(?:local:.*?)?\}", text, flags=re.S):
        names += [(node.group(1), n) for n in re.findall(r"(\w+)\s*;", node.group(2))]
    return names


def headers():
    out = {}
    for n in sorted(os.listdir(INCLUDE)):
        if n.endswith(".h"):
            with open(os.path.join(INCLUDE, n)) as f:
                out[n] = f.read()
    return out


def public_structs():
    """(name, first member) of every struct with a body in the headers."""
    res = []
    for text in headers().values():
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{(.*?)\}\s*;", text, flags=re.S):
            first = " ".join(m.group(2).split(";")[0].split())
            res.append((m.group(1), first))
    return res


def struct_class(name):
    # a struct named like a function (struct pm_ring_stats, pm_ring_stats()) is NAME_s
    cls = getattr(capi, name)
    return cls if isinstance(cls, type) else getattr(capi, name + "_s")


def test_every_exported_function_is_there():
    names = exported()
    nodes = {n for n, _ in names}
    assert {"PROFILEME_0.1", "PROFILEME_EXPERIMENTAL_0.1"} <= nodes, nodes
    assert len(names) > 250
    missing = [n for _, n in names if not callable(getattr(capi, n, None))]
    assert not missing, missing


def test_every_struct_is_constructible():
    limit = int(re.search(r"PM_STRUCT_SZ_MAX \(\(size_t\)(\d+)\)", headers()["common.h"]).group(1))
    structs = public_structs()
    assert len(structs) > 60
    sized = 0
    for name, first in structs:
        obj = struct_class(name)()
        if first == "size_t sz":
            sized += 1
            v1 = getattr(capi, "PM_%s_SZ_V1" % name[3:].upper(), None)
            low = v1 if v1 is not None else 1
            assert low <= obj.sz <= limit, (name, obj.sz, v1)
    assert sized >= 25


def test_sized_struct_with_fields_and_unknown_member():
    o = capi.pm_file_opts(strict=1)
    assert o.strict == 1 and o.sz >= capi.PM_FILE_OPTS_SZ_V1
    with pytest.raises(AttributeError):
        capi.pm_file_opts(no_such_member=1)


def test_docstrings_are_the_headers_doxygen():
    """help(capi.f) shows the @brief of f's declaration in the header."""
    text = "\n".join(headers().values())
    checked = 0
    for _, name in exported():
        m = re.search(r"@brief \*\*%s\(\)\*\*:?\s+([^\n*@]{12,})" % name, text)
        if not m:
            continue
        words = " ".join(m.group(1).split()[:4])
        doc = " ".join((getattr(capi, name).__doc__ or "").split())
        assert words in doc, (name, words, doc[:200])
        checked += 1
    assert checked > 150


def _words(text):
    """Doxygen/reST text as lower-case words (markup and punctuation dropped)."""
    text = re.sub(r"[@\\](brief|c|p|ref|since)\b", " ", text)
    return " ".join(re.sub(r"[^\w]+", " ", text).lower().split())


DOC = r"/\*\*(?![<*])((?:[^*]|\*(?!/))*)\*/"


def test_no_docstring_has_the_doc_of_a_define():
    """The Doxygen comment of a #define (PM_*_SZ_V1 = PM_OFFSETOFEND(...),
    function-like macros: SWIG wraps no constant for them) is no function's
    or struct's docstring, unless that declaration's own C doc says the same."""
    text = "\n".join(headers().values())
    snippets = []
    for m in re.finditer(DOC + r"\s*\n\s*#\s*define\s+(\w+)", text):
        w = _words(m.group(1)).split()
        if len(w) >= 4:
            snippets.append((m.group(2), " ".join(w[:8])))
    assert len(snippets) > 40 and any(n.endswith("_SZ_V1") for n, _ in snippets)
    own = {}
    for m in re.finditer(DOC + r"\s*(?:PM_API[^;{]*?\b(\w+)\s*\(|struct\s+(\w+)\s*\{)", text):
        own[m.group(2) or m.group(3)] = _words(m.group(1))
    checked, polluted = 0, []
    for name in dir(capi):
        obj = getattr(capi, name)
        if not name.startswith("pm_") or not callable(obj):
            continue
        doc = _words(obj.__doc__ or "")
        checked += 1
        for define, snip in snippets:
            if snip in doc and snip not in own.get(name, ""):
                polluted.append((name, define))
        if "_sz_v1" in doc and "_sz_v1" not in own.get(name, ""):
            polluted.append((name, "_SZ_V1"))
    assert checked > 300
    assert not polluted, polluted


def test_stubs_cover_every_function():
    pyi = os.path.join(os.path.dirname(capi.__file__), "capi.pyi")
    text = open(pyi).read()
    for _, name in exported():
        assert re.search(r"^def %s\(" % name, text, flags=re.M), name
    assert re.search(r"^def pm_file_open\(path: .*\) -> pm_file: \.\.\.$", text, flags=re.M), \
        re.search(r"^def pm_file_open\(.*$", text, flags=re.M).group(0)


def test_read_the_synthetic_recording():
    """Records and samples through the C API agree with the generator's sidecar."""
    exp = json.load(open(SYNTH_EXPECTED))["samples"]
    with capi.pm_file_open(SYNTH, None) as f:
        info = capi.pm_file_get_info(f)
        assert info.sz >= capi.PM_FILE_INFO_SZ_V1
        assert capi.pm_file_nr_attrs(f) == 1
        attr = capi.pm_file_attr(f, 0)
        meta = json.load(open(SYNTH_EXPECTED))["meta"]["attr"]
        assert (attr.type, attr.config, attr.sample_type) == (meta["type"], meta["config"], meta["sample_type"])
        ctx = capi.pm_raw_ctx_new_from_file(f)
        dec = capi.pm_raw_ctx_select(ctx, attr)
        names = [capi.pm_raw_field_name(dec, i) for i in range(capi.pm_raw_field_count(dec))]
        got = []
        while True:
            ret = capi.pm_file_next(f)
            if ret[0] == 0:
                break
            more, rec = ret
            assert more == 1 and len(rec.data) == rec.size
            if rec.type != 9:
                continue
            s = capi.pm_file_sample(f, rec)
            e = exp[len(got)]
            assert (s.ip, s.time, s.tid, s.cpu, s.period) == (e["ip"], e["time"], e["tid"], e["cpu"], e["period"])
            payload = bytes.fromhex(e["payload"])
            assert s.raw.data[:len(payload)] == payload
            if "raw_error" in e:
                with pytest.raises(profileme.NotProfileMeError):
                    capi.pm_raw_decode_row(dec, ctx, payload)
            else:
                values, present = capi.pm_raw_decode_row(dec, ctx, payload)
                assert len(values) == len(names) == len(present)
                for k, v in e["fields"].items():
                    assert values[names.index(k)] == v, (len(got), k)
                vals = capi.pm_raw_decode(dec, ctx, payload)
                assert [v.u for v in vals] == values
                assert json.loads(capi.pm_raw_format_json(dec, ctx, payload))["pmpc"] == hex(e["pmpc"])
            got.append(s)
        assert len(got) == len(exp)
        # the end: further calls give 0 again, the status is clean
        assert capi.pm_file_next(f)[0] == 0
        assert capi.pm_file_end_status(f)[0] == 0


def test_raw_value_bytes():
    """A BYTES field of pm_raw_decode() (ProfileMe's "extra": the payload's
    bytes after the known registers) reads as bytes of its length u (the
    generator's sidecar has them); the value keeps its own copy, so a
    changed or freed payload buffer does not change it."""
    exp = json.load(open(SYNTH_EXPECTED))["samples"]
    dec = capi.pm_raw_decoder_find("alpha_profileme")
    names = [capi.pm_raw_field_name(dec, i) for i in range(capi.pm_raw_field_count(dec))]
    k = names.index("extra")
    assert capi.pm_raw_field_kind(dec, k) == capi.PM_RAW_KIND_BYTES
    seen = 0
    for e in exp:
        if "raw_error" in e or not e.get("extra"):
            continue
        want = bytes.fromhex(e["extra"])
        buf = bytearray(bytes.fromhex(e["payload"]))
        vals = capi.pm_raw_decode(dec, None, buf)
        v = vals[k]
        assert v.present and v.kind == capi.PM_RAW_KIND_BYTES and v.u == len(want)
        assert v.bytes == want
        buf[:] = b"\xee" * len(buf)           # the payload changes ...
        del buf
        gc.collect()
        assert v.bytes == want                # ... the value does not
        assert all(x.bytes is None for i, x in enumerate(vals) if i != k)
        seen += 1
    assert seen > 5


def test_uint64_without_loss():
    a = capi.pm_attr()
    a.config = 2**64 - 1
    assert a.config == 2**64 - 1
    with pytest.raises(OverflowError):
        a.config = 2**64
    with pytest.raises(OverflowError):
        a.config = -1
    assert capi.PM_FILE_NO_TIME == 2**64 - 1


def test_pmu_scan_of_a_fixture_tree():
    devices = os.path.join(SYSFS_INTEL, "bus", "event_source", "devices")
    with capi.pm_pmu_scan(SYSFS_INTEL) as pl:
        assert capi.pm_pmu_list_root(pl) == SYSFS_INTEL
        names = [capi.pm_pmu_name(capi.pm_pmu_list_get(pl, i)) for i in range(capi.pm_pmu_list_count(pl))]
        assert capi.pm_pmu_list_get(pl, len(names)) is None
    assert sorted(names) == sorted(os.listdir(devices))
    pl = capi.pm_pmu_scan(SYSFS_INTEL)
    cpu = capi.pm_pmu_find(pl, "cpu")
    del pl
    gc.collect()
    # the PMU keeps its list alive
    with open(os.path.join(devices, "cpu", "type")) as f:
        assert capi.pm_pmu_type(cpu) == int(f.read())
    fmt = capi.pm_pmu_format_find(cpu, "umask")
    with open(os.path.join(devices, "cpu", "format", "umask")) as f:
        assert capi.pm_format_spec(fmt) == f.read().strip()
    word, mask = capi.pm_format_parse("config:8-15")
    assert (word, mask) == (capi.PM_CONFIG, 0xff00)
    assert capi.pm_format_encode(fmt, 0x12) == 0x1200 if mask == capi.pm_format_mask(fmt) else True
    with pytest.raises(profileme.EventError):
        capi.pm_format_encode(fmt, 1 << 40)
    with pytest.raises(FileNotFoundError) as ei:
        capi.pm_pmu_scan(os.path.join(SRC, "no-such-dir"))
    assert isinstance(ei.value, profileme.Error)
    cpus = capi.pm_pmu_cpu_list(cpu) if capi.pm_pmu_cpus(cpu) else None
    if cpus is not None:
        assert all(isinstance(c, int) for c in cpus)


def test_event_parse_error_has_the_position():
    pl = capi.pm_pmu_scan(SYSFS_INTEL)
    s = "cycles,cpu/event=0x3c,bogus=1/"
    with pytest.raises(profileme.EventError) as ei:
        capi.pm_event_parse(pl, s)
    e = ei.value
    assert e.position == s.index("bogus")
    assert e.errno == profileme.ERR_UNKNOWN_TERM and "bogus" in e.strerror
    assert isinstance(e, ValueError) and isinstance(e, profileme.Error)
    with pytest.raises(profileme.EventError) as ei:
        capi.pm_event_parse_opts(pl, "cycles:uq", capi.pm_event_opts())
    assert ei.value.position == len("cycles:u")
    # a good one, formatted back (an output char buffer) and parsed again
    el = capi.pm_event_parse(pl, "cpu/event=0x3c,umask=0x1/uk")
    assert capi.pm_event_list_count(el) == 1
    attr = capi.pm_event_attr(capi.pm_event_list_get(el, 0))
    text = capi.pm_attr_format(attr, pl)
    again = capi.pm_event_attr(capi.pm_event_list_get(capi.pm_event_parse(pl, text), 0))
    assert (again.type, again.config, again.flags) == (attr.type, attr.config, attr.flags)
    # a long output (over the first buffer): the call is repeated with room
    long_name = "x" * 3000
    el = capi.pm_event_parse(pl, "cycles/name=%s/" % long_name)
    assert capi.pm_event_name(capi.pm_event_list_get(el, 0)) == long_name
    assert capi.pm_json_escape("\x01" * 2000) == '"' + "\\u0001" * 2000 + '"'
    assert capi.pm_json_escape(b"a\"b") == '"a\\"b"'


def test_handles_free_themselves_and_close_once():
    f = capi.pm_file_open(SYNTH, None)
    assert f.thisown
    capi.pm_file_close(f)
    assert not f.thisown
    with pytest.raises(ValueError, match="closed"):
        capi.pm_file_nr_attrs(f)
    capi.pm_file_close(f)          # twice is a no-op
    with capi.pm_file_open(SYNTH, None) as g:
        assert capi.pm_file_nr_attrs(g) == 1
    with pytest.raises(ValueError):
        capi.pm_file_nr_attrs(g)
    with pytest.raises(TypeError):
        capi.pm_file_nr_attrs("not a handle")
    with pytest.raises(ValueError):
        capi.pm_file_nr_attrs(None)
    # a record keeps its file alive
    f = capi.pm_file_open(SYNTH, None)
    rec = capi.pm_file_next(f)[1]
    del f
    gc.collect()
    assert len(rec.data) == rec.size
    for _ in range(200):  # leaks show under valgrind, crashes here
        with capi.pm_file_open(SYNTH, None) as f:
            capi.pm_file_next(f)
        capi.pm_raw_ctx_new()
        capi.pm_pmu_scan(SYSFS_INTEL)


def test_a_handle_with_free_and_close_is_released_by_free():
    """pm_evlist has both: pm_evlist_close() closes its events and keeps the
    list (docs/conventions.md), pm_evlist_free() releases it.  The proxy's
    destructor and `with` are pm_evlist_free(); an explicit pm_evlist_free()
    disowns the proxy, so the list is freed once (the destructor was
    pm_evlist_close(): after an explicit free it read the freed list, seen by
    ASan in python.session)."""
    headers = os.path.join(SRC, "include", "profileme")
    both = []
    for h in sorted(os.listdir(headers)):
        text = open(os.path.join(headers, h)).read()
        for m in re.finditer(r"void (pm_\w+)_free\((?:struct )?(\w+) \*\w+\);", text):
            if re.search(r"void %s_close\((?:struct )?%s \*\w+\);" % (m.group(1), m.group(2)), text):
                both.append(m.group(1))
    assert "pm_evlist" in both
    el = capi.pm_evlist_new(capi.pm_evlist_opts())
    capi.pm_evlist_close(el)          # closes the (no) events, keeps the list
    assert el.thisown
    assert capi.pm_evlist_count(el) == 0
    capi.pm_evlist_free(el)
    assert not el.thisown
    del el
    gc.collect()
    with capi.pm_evlist_new(capi.pm_evlist_opts()) as el:
        assert capi.pm_evlist_count(el) == 0
    assert not el.thisown             # `with` freed it
    for _ in range(50):               # the destructor frees (valgrind: capi_leaks)
        capi.pm_evlist_new(capi.pm_evlist_opts())
    gc.collect()


def test_paths_bytes_and_buffers():
    import pathlib
    with capi.pm_file_open(pathlib.Path(SYNTH), None) as f:
        assert capi.pm_file_nr_attrs(f) == 1
    b = capi.pm_attr_init()           # an output struct: a new pm_attr
    assert b.size == capi.PM_ATTR_SIZE_KNOWN
    b.config = 0x1234
    b.flags = capi.PM_ATTR_EXCLUDE_KERNEL
    for be in (0, 1):
        raw = capi.pm_attr_to_bytes(b, be)
        assert isinstance(raw, bytes) and len(raw) == capi.PM_ATTR_SIZE_KNOWN
        c = capi.pm_attr_from_bytes(raw, be)
        assert (c.size, c.config, c.flags) == (b.size, 0x1234, capi.PM_ATTR_EXCLUDE_KERNEL)
        c = capi.pm_attr_from_bytes(bytearray(raw), be)
        assert c.config == 0x1234
    with pytest.raises(profileme.TruncatedError):
        capi.pm_attr_from_bytes(raw[:10], 0)
    with pytest.raises(TypeError):
        capi.pm_attr_from_bytes("text", 0)


def test_log_callback():
    """A symbolizer's diagnostic (a mapped file that does not exist) reaches the Python logger."""
    seen = []
    missing = os.path.join(SRC, "no-such-binary")
    assert capi.pm_set_log(lambda level, msg: seen.append((level, msg)), capi.PM_LOG_DEBUG) is None
    try:
        s = capi.pm_sym_new(None)
        capi.pm_sym_add_map(s, 42, 0x400000, 0x1000, 0, missing)
        res = capi.pm_sym_lookup(s, 42, 0x400010, capi.PM_SYM_LOOKUP_USER)
        assert res.name == "[unknown]"
        assert capi.pm_sym_diag_count(s) >= 1
        diag = capi.pm_sym_diag_get(s, 0)
        assert diag.file == missing
        with pytest.raises(profileme.Error) as ei:     # an API function named *_get is checked too
            capi.pm_sym_diag_get(s, 99)
        assert ei.value.errno == errno.ERANGE
    finally:
        prev = capi.pm_set_log(None, 0)
    assert callable(prev)
    assert any(level == capi.PM_LOG_WARN and missing in msg for level, msg in seen), seen
    with pytest.raises(TypeError):
        capi.pm_set_log(42, 0)

    def bad_logger(level, msg):
        raise RuntimeError("logger")

    unraisable = []
    hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
    capi.pm_set_log(bad_logger, capi.PM_LOG_DEBUG)    # reported as unraisable, never lost silently
    try:
        s = capi.pm_sym_new(None)
        capi.pm_sym_add_map(s, 1, 0x400000, 0x1000, 0, missing)
        capi.pm_sym_lookup(s, 1, 0x400010, capi.PM_SYM_LOOKUP_USER)
    finally:
        capi.pm_set_log(None, 0)
        sys.unraisablehook = hook
    assert unraisable and isinstance(unraisable[0].exc_value, RuntimeError)


def test_stacks_callback():
    frames = []

    def cb(stack):
        frames.append((stack.pid, stack.tid, stack.comm, stack.addrs, stack.syms, stack.dsos))
        return 0

    with capi.pm_file_open(SYNTH, None) as f:
        capi.pm_export_stacks(f, capi.pm_export_opts(event=-1, flags=capi.PM_EXPORT_NO_KERNEL), cb)
    assert len(frames) > 100 and all(len(a) == len(s) == len(d) >= 1 for *_, a, s, d in frames)
    kept = []
    with capi.pm_file_open(SYNTH, None) as f:
        capi.pm_export_stacks(f, None, lambda st: kept.append(st) or 1)
    with pytest.raises(ValueError):   # valid only during the call
        kept[0].pid

    def boom(stack):
        raise KeyError("from the callback")

    with capi.pm_file_open(SYNTH, None) as f:
        with pytest.raises(KeyError, match="from the callback"):
            capi.pm_export_stacks(f, None, boom)


def _ring(records):
    """A perf ring in memory (control page + 4 KiB data) holding records."""
    import mmap
    import struct
    mem = mmap.mmap(-1, 4096 + 4096)
    data = b"".join(records)
    mem[4096:4096 + len(data)] = data
    mem[1024:1032] = struct.pack("<Q", len(data))    # data_head
    return mem


def _comm_record(pid, name):
    import struct
    body = struct.pack("<II", pid, pid) + name.encode().ljust(16, b"\0")
    return struct.pack("<IHH", capi.PM_RECORD_COMM, 0, 8 + len(body)) + body


def test_ring_drain_callbacks():
    recs = [_comm_record(100 + i, "task%d" % i) for i in range(5)]
    mem = _ring(recs)
    r = capi.pm_ring_new_from_memory(mem, 4096, 4096, 0)
    got = []
    assert capi.pm_ring_drain(r, got.append, 0) == 5     # None: go on
    assert got == recs
    capi.pm_ring_free(r)
    # a stop after the second record; the count says how many were handed out
    mem = _ring(recs)
    with capi.pm_ring_new_from_memory(mem, 4096, 4096, 0) as r:
        seen = []
        n = capi.pm_ring_drain(r, lambda rec: seen.append(rec) or (capi.PM_DRAIN_STOP if len(seen) == 2 else 0), 0)
        assert n == 2 and seen == recs[:2]
        more, rec = capi.pm_ring_next(r)
        assert (more, rec) == (1, recs[2])
        capi.pm_ring_consume(r)

        def boom(rec):
            raise RuntimeError("stop here")

        with pytest.raises(RuntimeError, match="stop here"):
            capi.pm_ring_drain(r, boom, 0)
        with pytest.raises(TypeError):
            capi.pm_ring_drain(r, 42, 0)
    # a ring's memory must be writable and is kept alive by the ring
    with pytest.raises(TypeError):
        capi.pm_ring_new_from_memory(bytes(8192), 4096, 4096, 0)
    with pytest.raises(profileme.Error):
        capi.pm_ring_new_from_memory(bytearray(8192), 4096, 1000, 0)   # not a power of two


def test_records_parse_through_a_layout():
    """pm_record_parse() of the COMM records of the ring: str members of their length."""
    rec = _comm_record(4242, "pmdemo")
    with capi.pm_sample_layout_new(capi.pm_attr_init()) as layout:
        r = capi.pm_record_parse(layout, rec, 0)
        assert r.header.type == capi.PM_RECORD_COMM and r.bytes == rec
        assert (r.comm.pid, r.comm.comm) == (4242, "pmdemo")
        bad = rec[:4] + bytes([12, 0]) + rec[6:12]     # header.size 12: shorter than a COMM body
        with pytest.raises(profileme.Error) as ei:
            capi.pm_record_parse(layout, bad, 0)
        assert isinstance(ei.value.offset, int)
    assert capi.pm_record_u64(b"\1" + b"\0" * 15, 0, 0) == 1
    with pytest.raises(IndexError):
        capi.pm_record_u64(b"\0" * 8, 1, 0)
    assert capi.pm_record_type_name(capi.PM_RECORD_COMM) == "COMM"


def test_drain_into_a_writer(tmp_path):
    """A pm_writer in place of the callback: the ring's records go into the file."""
    recs = [_comm_record(300 + i, "w%d" % i) for i in range(4)]
    mem = _ring(recs)
    out = str(tmp_path / "w.data")
    attr = capi.pm_attr_init()
    attr.type = capi.PM_TYPE_SOFTWARE
    attr.sample_type = capi.PM_SAMPLE_IP | capi.PM_SAMPLE_TID
    with capi.pm_writer_open(out, None) as w:
        capi.pm_writer_add_attr(w, attr, "task-clock", [7, 8])
        capi.pm_writer_begin(w)
        with capi.pm_ring_new_from_memory(mem, 4096, 4096, 0) as r:
            assert capi.pm_ring_drain(r, w, 0) == 4
        capi.pm_writer_finish(w)
        records, samples, nbytes = capi.pm_writer_counts(w)
        assert records >= 4 and nbytes >= sum(map(len, recs))
    comms = []
    with capi.pm_file_open(out, None) as f:
        assert capi.pm_file_event_name(f, 0) == "task-clock"
        assert capi.pm_file_attr_ids(f, 0) == [7, 8]
        while True:
            more, rec = capi.pm_file_next(f)
            if not more:
                break
            if rec.type == capi.PM_RECORD_COMM:
                comms.append(rec.data)
    assert comms == recs
