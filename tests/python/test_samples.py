# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.open(): .samples() equals `profileme script --json` on the same
files (recorded by perf, by `profileme record`, and generated ProfileMe files
in both byte orders), and equals the generator's chosen values."""
import io
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import profileme
from conftest import SYNTH, SYNTH_EXPECTED, script_json

BASE = ("time", "pid", "tid", "cpu", "ip", "period", "addr", "id")


def _num(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    return v


def compare_with_script(path, rec=None):
    """Every column of samples() against every key `profileme script --json`
    prints; returns the number of samples compared."""
    expected = script_json(path)
    with profileme.open(path) as r:
        s = r.samples()
        names = [e["name"] for e in r.events]
        codes = getattr(r, "codes", {})
        decoder = r.decoder
    assert len(s) == len(expected), "row count differs from profileme script --json"
    assert len(s) > 0
    for i, j in enumerate(expected):
        row = s[i]
        for k in BASE:
            if k in j:
                assert int(row[k]) == _num(j[k]) & 0xFFFFFFFFFFFFFFFF if k in ("pid", "tid") and j[k] < 0 \
                    else int(row[k]) == _num(j[k]), (i, k, row[k], j[k])
        assert names[row["event"]] == j["event"], i
        # script --json names the object by the decoder's JSON key
        key = {"alpha_profileme": "profileme"}.get(decoder, decoder)
        if decoder and key in j:
            dec = j[key]
            assert row["raw_ok"] == 1, i
            for k, v in dec.items():
                if k not in s.dtype.names:
                    continue
                col = int(row[k])
                if k in codes:
                    assert codes[k][col] == v, (i, k)
                elif isinstance(v, str) and not v.startswith("0x"):
                    assert col == len(v) // 2, (i, k)  # bytes: the column holds the length
                else:
                    assert col == _num(v), (i, k, col, v)
            # fields script does not print were absent: their columns are 0
            for k in s.dtype.names[s.dtype.names.index("raw_ok") + 1:]:
                if k not in dec and not k.endswith("_valid"):
                    assert int(row[k]) == 0, (i, k)
        elif decoder:
            assert row["raw_ok"] == 0, i
    return len(s)


def test_perf_file(perf_files):
    assert compare_with_script(perf_files["file"]) > 100


def test_perf_pipe(perf_files):
    assert compare_with_script(perf_files["pipe"]) > 100
    with profileme.open(perf_files["pipe"]) as r:
        assert r.features["pipe_mode"] is True


def test_perf_zstd(perf_files):
    if "zstd" not in perf_files:
        pytest.skip("perf here cannot record with -z")
    assert compare_with_script(perf_files["zstd"]) > 100


def test_perf_callchain(perf_files):
    path = perf_files["callchain"]
    expected = script_json(path)
    with profileme.open(path) as r:
        s = r.samples()
        ips, offs = r.callchains()
    assert len(offs) == len(s) + 1 == len(expected) + 1
    assert offs[0] == 0 and offs[-1] == len(ips) and np.all(np.diff(offs) >= 0)
    assert ips.dtype == np.uint64 and offs.dtype == np.int64
    for i, j in enumerate(expected):
        want = [int(x, 16) for x in j.get("callchain", [])]
        assert list(ips[offs[i]:offs[i + 1]]) == want, i
        assert s["callchain_nr"][i] >= len(want)
    assert len(ips) > len(s)


def test_profileme_record(pm_recorded):
    assert compare_with_script(pm_recorded) > 10


def test_synthetic_bundled():
    assert compare_with_script(SYNTH) == 202


@pytest.mark.parametrize("name", ["le", "be", "le_pipe", "be_pipe"])
def test_generated_vs_script(gen_files, name):
    path, exp = gen_files[name]
    assert compare_with_script(path) == len(exp["samples"]) > 300


@pytest.mark.parametrize("name", ["le", "be", "le_pipe", "be_pipe"])
def test_generated_vs_sidecar(gen_files, name):
    """Values the generator chose, independent of any decoder of ours."""
    path, exp = gen_files[name]
    with profileme.open(path) as r:
        s = r.samples()
        codes = r.codes
        assert r.decoder == "alpha_profileme"
        assert r.features["big_endian"] == name.startswith("be")
        assert r.features["pipe_mode"] == name.endswith("pipe")
        assert r.features["arch"] == "alpha"
    # the sidecar lists samples in time order like samples()
    smp = sorted(exp["samples"], key=lambda x: x["time"])
    assert len(s) == len(smp)
    for row, e in zip(s, smp):
        for k in ("time", "tid", "cpu", "ip", "period"):
            assert int(row[k]) == e[k], k
        if e.get("reason") == "short":
            # The generator's "short" payload (20 bytes + 4 zero bytes) is
            # padded by the PERF_SAMPLE_RAW layout to the 28 bytes of a v1
            # sample, so it decodes (as in `profileme script --json`).
            continue
        if e.get("raw_error"):
            assert row["raw_ok"] == 0
            continue
        assert row["raw_ok"] == 1
        assert row["version"] == e["version"]
        assert row["pmpc"] == e["pmpc"]
        assert row["i_stat"] == e["i_stat"] and row["pctr_ctl"] == e["pctr_ctl"]
        for k, v in e["fields"].items():
            assert int(row[k]) == v, k
        x = e["expected"]
        assert row["pc"] == x["pc"] and row["pal"] == x["pal"]
        assert bool(row["trapped"]) == x["trapped"] and bool(row["mispredicted"]) == x["mispredicted"]
        assert codes["mode"][row["mode"]] == x["mode"]
        assert codes["trap"][row["trap"]] == x["trap"]
        assert codes["pctr1_counts"][row["pctr1_counts"]] == x["pctr1_counts"]
        assert row["extra"] == len(e["extra"]) // 2


def test_byte_orders_agree(gen_files):
    with profileme.open(gen_files["le"][0]) as a, profileme.open(gen_files["be"][0]) as b:
        assert np.array_equal(a.samples(), b.samples())


def test_fields_and_event_selection():
    with profileme.open(SYNTH) as r:
        all_ = r.samples()
        sub = r.samples(fields=["time", "ip", "trap"])
        assert sub.dtype.names == ("time", "ip", "trap")
        assert np.array_equal(sub["ip"], all_["ip"]) and np.array_equal(sub["trap"], all_["trap"])
        assert len(r.samples(event=0)) == len(all_)
        assert len(r.samples(event=r.events[0]["name"])) == len(all_)
        with pytest.raises(ValueError):
            r.samples(fields=["nope"])
        with pytest.raises(ValueError):
            r.samples(event=5)
        with pytest.raises(ValueError):
            r.samples(event="no-such-event")
        assert r.samples(fields=[]).shape == (len(all_),)


def test_dtypes():
    with profileme.open(SYNTH) as r:
        s = r.samples()
    dt = s.dtype
    assert dt["time"] == np.uint64 and dt["ip"] == np.uint64 and dt["tid"] == np.uint32
    assert dt["event"] == np.int32 and dt["trap"] == np.uint8 and dt["pctr1"] == np.uint64


def test_features_and_events():
    with profileme.open(SYNTH) as r:
        f = r.features
        assert f["arch"] == "alpha" and f["hostname"] == "pm-synthetic"
        assert f["cmdline"][:2] == ["perf", "record"]
        assert f["pmu_mappings"][4] == "cpu"
        assert f["nrcpus_online"] == 2
        (ev,) = r.events
        assert ev["index"] == 0
        assert ev["name"] == "cpu/event=0x2,profileme/u"
        assert ev["attr"]["type"] == 4 and ev["attr"]["config"] == "0x102"
        assert ev["attr"]["precise_ip"] == 2 and ev["attr"]["sample_period"] == 10000


def test_to_pandas():
    pd = pytest.importorskip("pandas")
    with profileme.open(SYNTH) as r:
        s = r.samples()
        df = r.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == len(s)
    assert isinstance(df["trap"].dtype, pd.CategoricalDtype)
    assert isinstance(df["mode"].dtype, pd.CategoricalDtype)
    assert set(df["mode"].dropna().unique()) <= {"user", "kernel", "PAL"}
    assert (df["event"] == "cpu/event=0x2,profileme/u").all()
    assert (df["ip"].to_numpy() == s["ip"]).all()
    exp = json_load(SYNTH_EXPECTED)
    good = sorted((x for x in exp["samples"] if not x.get("raw_error")), key=lambda x: x["time"])
    short = [x["time"] for x in exp["samples"] if x.get("reason") == "short"]  # see above
    got = df[(df["raw_ok"] == 1) & ~df["time"].isin(short)]
    assert list(got["trap"].astype(str)) == [x["expected"]["trap"] for x in good]


def json_load(p):
    import json
    with open(p) as f:
        return json.load(f)


def test_records():
    with profileme.open(SYNTH) as r:
        recs = list(r.records())
    types = [x["type"] for x in recs]
    assert types.count("SAMPLE") == 202 and "COMM" in types and "MMAP2" in types
    comm = next(x for x in recs if x["type"] == "COMM")
    assert comm["comm"] == "pmdemo" and comm["pid"] == 4242
    mm = next(x for x in recs if x["type"] == "MMAP2")
    assert mm["filename"] == "/usr/bin/pmdemo" and mm["start"] == 0x120000000
    expected = script_json(SYNTH)
    samples = [x for x in recs if x["type"] == "SAMPLE"]
    for rec, j in zip(samples, expected):
        assert rec["ip"] == int(j["ip"], 16) and rec["time"] == j["time"]
        assert rec["raw"].hex() == j["raw"]
        if "profileme" in j:
            d = rec["profileme"]
            for k, v in j["profileme"].items():
                if isinstance(d[k], bytes):
                    assert d[k].hex() == v
                else:
                    assert d[k] == _num(v) or d[k] == v, k


def test_binary_file_object_and_pipe(gen_files):
    path = gen_files["le_pipe"][0]
    with open(path, "rb") as fh, profileme.open(fh) as r:
        s = r.samples()
        assert len(s) == len(gen_files["le_pipe"][1]["samples"])
        # a pipe-format stream in a regular file is read again from offset 0
        assert np.array_equal(r.samples(), s)
    # a real pipe
    with open(path, "rb") as src:
        p = subprocess.Popen(["cat"], stdin=src, stdout=subprocess.PIPE)
        with profileme.open(p.stdout) as r:
            assert len(r.samples()) == len(gen_files["le_pipe"][1]["samples"])
        p.stdout.close()
        p.wait()


def test_text_file_rejected(tmp_path):
    with open(SYNTH, "r", encoding="latin-1") as fh:
        with pytest.raises(TypeError):
            profileme.open(fh)
    with pytest.raises(TypeError):
        profileme.open(42)
    with pytest.raises(profileme.TruncatedError):
        profileme.open(io.BytesIO(b"PERFILE2"))  # contents: a header cut short


def test_samples_repeatable_and_after_records():
    with profileme.open(SYNTH) as r:
        a = r.samples()
        list(r.records())
        b = r.samples(fields=["ip"])
        assert np.array_equal(a["ip"], b["ip"])


GIL_FEEDER = r"""
import os, sys, threading
import profileme
data = open(sys.argv[1], "rb").read()
r, w = os.pipe()

def feed():                      # needs the GIL after every 4 KiB it writes
    v = memoryview(data)
    for i in range(0, len(v), 4096):
        os.write(w, v[i:i + 4096])
    os.close(w)

t = threading.Thread(target=feed)
t.start()
with profileme.open(os.fdopen(r, "rb")) as rec:
    n = len(rec.samples())       # reads the pipe from C while feed() fills it
t.join()
print(n)
"""


def test_gil_released_in_bulk_decoding(tmp_path):
    """samples() lets other Python threads run while C reads and decodes.
    No timing: the recording comes through a pipe that a Python thread of the
    same process fills 4 KiB at a time, far more than the pipe holds.  With the
    GIL held while C waits for data, that thread can never write the rest and
    the read never ends (a deadlock, seen as the timeout); with it released,
    every sample arrives."""
    big = str(tmp_path / "big.data")
    subprocess.run([os.environ.get("PYTHON", "/usr/bin/python3"),
                    os.path.join(os.path.dirname(SYNTH), "..", "..", "tests", "gen", "gen_profileme.py"),
                    big, "--samples", "20000", "--pipe", "--expected", big + ".json"], check=True)
    with open(big + ".json") as f:
        want = len(json.load(f)["samples"])
    assert os.path.getsize(big) > 16 * 65536          # many times a pipe's capacity
    prog = tmp_path / "feeder.py"
    prog.write_text(GIL_FEEDER)
    try:
        p = subprocess.run([sys.executable, str(prog), big], capture_output=True, text=True,
                           timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail("samples() held the GIL while it waited for data (deadlock)")
    assert p.returncode == 0, p.stderr
    assert int(p.stdout) == want                      # the generator's samples (its sidecar)


def test_threads_decode_in_parallel(gen_files):
    path = gen_files["be"][0]
    with profileme.open(path) as r:
        want = r.samples()
    out = [None] * 4

    def work(i):
        with profileme.open(path) as r:
            out[i] = r.samples()

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for o in out:
        assert np.array_equal(o, want)


def test_symbolize_matches_script(perf_files):
    path = perf_files["file"]
    want = script_json(path, "-F", "pid,tid,ip,sym")
    with profileme.open(path) as r:
        s = r.samples()
        sym, dso, off = r.symbolize(s)
        hot = r.hotspots(5)
    assert len(sym) == len(want)
    agree = sum(1 for a, j in zip(sym, want) if a == j.get("sym"))
    assert agree == len(want), "%d of %d symbols differ" % (len(want) - agree, len(want))
    assert hot["samples"].is_monotonic_decreasing and hot["samples"].iloc[0] > 0
    from collections import Counter
    top = Counter(j.get("sym") for j in want).most_common(1)[0]
    assert hot["symbol"].iloc[0] == top[0] and hot["samples"].iloc[0] == top[1]
    with pytest.raises(ValueError):
        r2 = profileme.open(path)
        r2.symbolize(r2.samples(fields=["ip"]))
