# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Versions, PMUs, event encoding, raw decoders, and the error paths."""
import json
import os
import subprocess

import pytest

import profileme
from conftest import PERF_SKIP, PROFILEME, SRC, SYNTH, SYNTH_EXPECTED, SYSFS, WORKLOAD


def test_version():
    s, n = profileme.library_version()
    assert profileme.__version__ == s
    major, minor, patch = (int(x) for x in s.split(".")[:3])
    assert n == major * 10000 + minor * 100 + patch
    # the same version as the CMake project
    with open(os.path.join(SRC, "CMakeLists.txt")) as f:
        assert "VERSION %s" % s in f.read()


def test_pmus_fixture_tree():
    pm = {p.name: p for p in profileme.pmus(os.path.join(SYSFS, "amd"))}
    assert {"cpu", "ibs_op", "ibs_fetch", "software"} <= set(pm)
    for p in pm.values():
        assert isinstance(p.formats, dict) and isinstance(p.events, dict) and isinstance(p.caps, dict)
    root = os.path.join(SYSFS, "amd", "bus", "event_source", "devices")
    assert pm["ibs_op"].type == int(open(os.path.join(root, "ibs_op", "type")).read())
    fmt = os.path.join(root, "cpu", "format")
    for name in os.listdir(fmt):
        assert pm["cpu"].formats[name] == open(os.path.join(fmt, name)).read().strip()
    ev = os.path.join(root, "cpu", "events")
    if os.path.isdir(ev):
        for name in os.listdir(ev):
            if "." not in name:
                assert name in pm["cpu"].events
    caps = os.path.join(root, "ibs_op", "caps")
    if os.path.isdir(caps):
        for name in os.listdir(caps):
            assert pm["ibs_op"].caps[name] == open(os.path.join(caps, name)).read().strip()
    assert "PMU(" in repr(pm["cpu"])


def test_pmus_alpha_profileme():
    pm = {p.name: p for p in profileme.pmus(os.path.join(SYSFS, "alpha"))}
    assert pm["cpu"].profileme and "profileme" in pm["cpu"].formats


def test_pmus_live_system():
    names = [p.name for p in profileme.pmus()]
    assert "software" in names


def test_pmus_errors():
    with pytest.raises(profileme.Error) as e:
        profileme.pmus("/nonexistent/sysfs")
    assert isinstance(e.value, OSError) and e.value.errno
    with pytest.raises(TypeError):
        profileme.pmus(42)


def _cli_encode(ev, sysfs=None):
    cmd = [PROFILEME, "encode", "--json"] + (["--sysfs", sysfs] if sysfs else []) + [ev]
    out = subprocess.run(cmd, stdout=subprocess.PIPE).stdout.decode()
    return [json.loads(l) for l in out.splitlines() if l.strip()]


@pytest.mark.parametrize("ev,sysfs", [
    ("task-clock", None), ("cycles:u", None), ("r1a2", None), ("page-faults:k", None),
    ("cpu/event=0x2,profileme/u", "alpha"), ("ibs_op//", "amd"), ("cpu/event=0xc0/pp", "amd"),
])
def test_encode_matches_cli(ev, sysfs):
    root = os.path.join(SYSFS, sysfs) if sysfs else None
    want = _cli_encode(ev, root)
    assert len(want) == 1 and "error" not in want[0]
    got = profileme.encode(ev, sysfs=root)
    for k, v in want[0].items():
        assert got[k] == v, k


def test_encode_list():
    got = profileme.encode("task-clock,page-faults")
    assert [g["event"] for g in got] == [w["event"] for w in _cli_encode("task-clock,page-faults")]


@pytest.mark.parametrize("ev", ["cpu/bogus=1/", "nosuchevent", "task-clock:zz", "cpu/event=/"])
def test_encode_error(ev):
    root = os.path.join(SYSFS, "alpha")
    want = _cli_encode(ev, root)[0]
    with pytest.raises(profileme.EventError) as e:
        profileme.encode(ev, sysfs=root)
    assert isinstance(e.value, profileme.Error) and isinstance(e.value, ValueError)
    assert e.value.strerror == want["error"]
    assert e.value.position == want["position"]
    assert e.value.errno > 0


def test_encode_wrong_types():
    with pytest.raises(TypeError):
        profileme.encode(b"task-clock")
    with pytest.raises(TypeError):
        profileme.encode(None)
    with pytest.raises(ValueError):
        profileme.encode("task\0clock")


def test_decode_profileme_sidecar():
    exp = json.load(open(SYNTH_EXPECTED))
    n = 0
    for s in exp["samples"]:
        payload = bytes.fromhex(s["payload"])
        if s.get("raw_error"):
            if s.get("reason") != "short":
                with pytest.raises(profileme.Error):
                    profileme.decode_profileme(payload)
            continue
        d = profileme.decode_profileme(payload)
        assert d["version"] == s["version"] and d["pmpc"] == s["pmpc"]
        for k, v in s["fields"].items():
            assert int(d[k]) == v, k
        x = s["expected"]
        assert d["mode"] == x["mode"] and d["trap"] == x["trap"] and d["pc"] == x["pc"]
        assert d["trapped"] is x["trapped"] and d["mispredicted"] is x["mispredicted"]
        assert d["pctr1_counts"] == x["pctr1_counts"]
        if s["extra"]:
            assert d["extra"].hex() == s["extra"]
        assert profileme.decode_raw(bytearray(payload), "alpha_profileme") == d
        n += 1
    assert n > 150


def test_decode_raw_errors():
    assert "alpha_profileme" in profileme.raw_decoders()
    assert {"ibs_op", "ibs_fetch"} <= set(profileme.raw_decoders())
    with pytest.raises(ValueError):
        profileme.decode_raw(b"\0" * 64, "no_such_decoder")
    with pytest.raises(TypeError):
        profileme.decode_raw("text", "alpha_profileme")
    with pytest.raises(TypeError):
        profileme.decode_raw(b"\0" * 64, 3)
    with pytest.raises(profileme.Error):
        profileme.decode_profileme(b"")
    with pytest.raises(profileme.Error):
        profileme.decode_profileme(b"\x01\0\0\0")
    # a memoryview slice of a bigger buffer works
    p = bytes.fromhex(json.load(open(SYNTH_EXPECTED))["samples"][0]["payload"])
    assert profileme.decode_profileme(memoryview(b"xx" + p)[2:])["pmpc"] > 0


def test_decode_ibs_op_layout():
    # IBS op payload: u32 caps + IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, ...
    d = profileme.decode_raw(b"\0" * 4 + b"\0" * 64, "ibs_op")
    assert isinstance(d, dict)


def test_open_errors(tmp_path):
    with pytest.raises(profileme.Error) as e:
        profileme.open(str(tmp_path / "missing.data"))
    assert e.value.errno == 2 and isinstance(e.value, OSError)
    bad = tmp_path / "bad.data"
    bad.write_bytes(b"NOTAPERF" + b"\0" * 200)
    with pytest.raises(profileme.Error) as e:
        profileme.open(str(bad))
    assert e.value.strerror
    trunc = tmp_path / "trunc.data"
    trunc.write_bytes(open(SYNTH, "rb").read()[:50])
    with pytest.raises(profileme.Error):
        profileme.open(str(trunc))


def test_damaged_data_section(tmp_path):
    data = bytearray(open(SYNTH, "rb").read())
    # damage the size of a record in the middle of the data section
    with profileme.open(SYNTH) as r:
        recs = list(r.records())
    off = recs[100]["offset"]
    data[off + 6:off + 8] = b"\x03\x00"   # header.size = 3: impossible
    p = tmp_path / "damaged.data"
    p.write_bytes(bytes(data))
    with profileme.open(str(p)) as r:
        with pytest.raises(profileme.Error):
            r.samples()


def test_closed_recording():
    r = profileme.open(SYNTH)
    r.close()
    assert r.closed
    for call in (r.samples, r.to_pandas, r.callchains, lambda: list(r.records())):
        with pytest.raises(ValueError):
            call()
    r.close()  # twice is fine
    with profileme.open(SYNTH) as r:
        it = r.records()
        next(it)
    with pytest.raises(ValueError):
        next(it)


def test_low_level_misuse():
    from profileme import _glue as capi
    with pytest.raises((TypeError, ValueError)):
        capi.file_features(None)
    with pytest.raises(TypeError):
        capi.file_features("not a handle")
    f = capi.file_open(SYNTH)
    try:
        c = capi.columns_new(f, -1, None)
        import numpy as np
        arr = np.empty(4, dtype=np.uint8)
        with pytest.raises(ValueError):
            capi.columns_read_rows(c, arr, [0], 8, 4)        # buffer too small
        with pytest.raises(ValueError):
            capi.columns_read_rows(c, arr, [0], 1, -1)       # negative size
        with pytest.raises((ValueError, OverflowError)):
            capi.columns_read_rows(c, arr, [0], 1, 1 << 62)  # huge
        with pytest.raises(ValueError):
            capi.columns_read_rows(c, arr, [7], 4, 1)        # offset outside the row
        with pytest.raises((TypeError, BufferError)):
            capi.columns_read_rows(c, b"readonly", [0], 8, 1)
        with pytest.raises(ValueError):
            capi.columns_read(c, [arr], 1 << 62)
        with pytest.raises(ValueError):
            capi.columns_read(c, [bytearray(1)], 4)
        with pytest.raises(profileme.Error):
            capi.columns_new(f, 9, None)
        with pytest.raises(profileme.Error):
            capi.columns_new(f, -1, "nope")
        capi.columns_free(c)
    finally:
        capi.file_close(f)


def test_symbol_columns_of_unequal_length():
    """The hand-written symbol transfers check that their query columns
    (pids, tids, ips, cpumodes, times) have one length, each column in
    turn, and hold no buffer afterwards (a bytearray whose buffer is still
    exported cannot grow: BufferError)."""
    from profileme import _glue as c
    n = 3
    item = {"pids": 4, "tids": 4, "ips": 8, "modes": 1, "times": 8}
    f = c.file_open(SYNTH)
    try:
        for bad in item:
            a = {k: bytearray(w * (n + (k == bad))) for k, w in item.items()}
            with pytest.raises(ValueError, match="same length"):
                c.symbol_rows(f, a["pids"], a["tids"], a["ips"], a["modes"], a["times"], None, None, None, 1, 0)
            if bad != "tids":
                with pytest.raises(ValueError, match="same length"):
                    c.symbolize(f, a["pids"], a["ips"], a["modes"], a["times"], None, None, None)
            for k, b in a.items():
                b.extend(b"\0" * item[k])                   # released: may grow
        a = {k: bytearray(w * n) for k, w in item.items()}
        got = c.symbol_rows(f, a["pids"], None, a["ips"], a["modes"], None, None, None, None, 1, 0)
        # codes in pandas' code type for the table's size: int8 for fewer than 127 names
        assert got[3] is None and len(got[4]) < 127 and len(got[0]) == n and len(got[2]) == 8 * n
        idx, table = c.symbolize(f, a["pids"], a["ips"], a["modes"], a["times"], None, None, None)
        assert len(idx) == 4 * n and len(table) >= 1
        for k, b in a.items():
            b.extend(b"\0" * item[k])
    finally:
        c.file_close(f)


def test_records_callchains_as_the_library_reads_them(tmp_path, monkeypatch):
    """records()' callchain of each sample (markers included) is what
    pm_sample_callchain_ip() reads entry by entry, in both of the binding's
    ways: the bytes at once in this machine's byte order, and the library's
    call per entry (taken for a recording of the other byte order)."""
    import subprocess
    from profileme import _lib, capi
    if PERF_SKIP:
        pytest.skip(PERF_SKIP)
    path = str(tmp_path / "cc.data")
    subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "200000", "-g", "-o", path,
                    "--", WORKLOAD, "100"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    want = []
    with capi.pm_file_open(path, None) as f:
        while True:
            more, rec = capi.pm_file_next(f)
            if not more:
                break
            if rec.type == capi.PM_RECORD_SAMPLE:
                s = capi.pm_file_sample(f, rec)
                want.append([capi.pm_sample_callchain_ip(s, i) for i in range(s.callchain.nr)])
    assert len(want) > 5 and max(len(c) for c in want) > 2
    for foreign in (False, True):
        if foreign:
            monkeypatch.setattr(_lib, "_BIG_HOST", not _lib._BIG_HOST)
        with profileme.open(path) as r:
            got = [x["callchain"] for x in r.records() if x["type"] == "SAMPLE"]
        assert got == want, foreign


def test_frame_convert_against_numpy():
    """to_pandas()'s one C pass over the rows (event and cpumode codes, the
    uint64 counts) against the numpy expressions it replaces, on random
    rows with out-of-range, negative and PALcode values, rows of odd size
    (unaligned fields), blocks cut short and no rows."""
    import numpy as np
    from profileme import _glue as c
    rng = np.random.default_rng(16)
    dt = np.dtype([("pad", "u1"), ("ev", "<i4"), ("mode", "u1"), ("nr", "<u4"), ("w", "<u2"),
                   ("big", "<u8"), ("sev", "i1")])
    assert dt.itemsize == 21
    for n in (0, 1, 255, 256, 257, 1000):
        rows = np.zeros(n, dtype=dt)
        rows["ev"] = rng.integers(-3, 200, n)
        rows["mode"] = rng.choice([0, 1, 2, 3, 5, 7, 8, 100, 254, 255], n)
        rows["nr"] = rng.integers(0, 2**32, n, dtype=np.uint64)
        rows["w"] = rng.integers(0, 2**16, n)
        rows["big"] = rng.integers(0, 2**63, n)
        rows["sev"] = rng.integers(-128, 128, n)
        specs, want = [], []
        for ncats, otype in ((3, np.int8), (150, np.int16), (70000, np.int32), (5, np.int64)):
            out = np.empty(n, otype)
            specs.append((dt.fields["ev"][1], 4, 1, 1, ncats, out))
            v = rows["ev"].astype(np.int64)
            want.append((out, np.where((v >= 0) & (v < ncats), v, -1).astype(otype)))
        out = np.empty(n, np.int8)
        specs.append((dt.fields["sev"][1], 1, 1, 1, 100, out))
        v = rows["sev"].astype(np.int64)
        want.append((out, np.where((v >= 0) & (v < 100), v, -1).astype(np.int8)))
        out = np.empty(n, np.int8)
        specs.append((dt.fields["mode"][1], 1, 0, 2, 9, out))
        m = rows["mode"].astype(np.int64)
        want.append((out, np.where(m < 8, m, np.where(m == 255, 8, -1)).astype(np.int8)))
        for f, size in (("nr", 4), ("w", 2), ("big", 8), ("mode", 1)):
            out = np.empty(n, np.uint64)
            specs.append((dt.fields[f][1], size, 0, 0, 0, out))
            want.append((out, rows[f].astype(np.uint64)))
        assert c.frame_convert(rows, dt.itemsize, specs) is None
        for got, exp in want:
            assert got.dtype == exp.dtype and np.array_equal(got, exp)
    rows = np.zeros(4, dtype=dt)
    for bad in [(0, 3, 0, 0, 0, np.empty(4, np.uint64)),        # no such size
                (20, 4, 0, 0, 0, np.empty(4, np.uint64)),       # past the row
                (0, 4, 0, 0, 0, np.empty(3, np.uint64)),        # too few outputs
                (0, 4, 1, 0, 0, np.empty(4, np.uint64)),        # a signed count
                (0, 1, 0, 2, 9, np.empty(4, np.int16)),         # cpumode codes are int8
                (0, 4, 0, 7, 0, np.empty(4, np.uint64))]:       # no such kind
        with pytest.raises(ValueError, match="bad spec"):
            c.frame_convert(rows, dt.itemsize, [bad])
    with pytest.raises(ValueError, match="whole number"):
        c.frame_convert(rows, 5, [])
