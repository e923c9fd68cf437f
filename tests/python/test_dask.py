# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Chunked decoding (pm_chunk_index, pm_file_select_chunk) and profileme.dask.

Expectations: the whole-file decode of the same recordings (real perf
recordings: task-clock over two concurrent processes, -g, -z, pipe mode),
`profileme report --json` for the SYNTHETIC ProfileMe and IBS recordings
(tests/gen), and pandas over read_many() on the concatenation.
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import profileme
from conftest import GEN, PERF_SKIP, PROFILEME, SRC, SYNTH, WORKLOAD

dd = pytest.importorskip("dask.dataframe")
import profileme.dask as pmd  # noqa: E402

SYMFS = os.path.join(SRC, "examples", "data", "symfs")
SYM = dict(symfs=SYMFS, kallsyms=os.path.join(SYMFS, "kallsyms"))
IBS = os.path.join(SRC, "examples", "data", "ibs-synthetic.data")
SMALL = 24 << 10     # chunk_bytes for the synthetic and threaded cases


def _index_model(path, chunk_bytes):
    """The chunks docs/file.md "Chunks" says a file-mode recording gets, from
    this file's own records (read here with struct, not by the library): a
    block ends after each FINISHED_ROUND and after the record that reaches a
    multiple of chunk_bytes / 8 (at least 4096); the cut before block j has
    the bound T = the smallest sample time from block j on and is made when
    the chunk so far has chunk_bytes, the rest has a quarter of that and T
    is later than the bound before.  [(start, end, read_start, time_lo,
    time_hi)] of every chunk; None for a pipe stream or a zstd recording
    (one chunk, the whole stream)."""
    with open(path, "rb") as fh:
        data = fh.read()
    assert data[:8] == b"PERFILE2", "a little-endian recording"
    if struct.unpack_from("<Q", data, 8)[0] == 16:
        return None                         # the pipe header
    attr_size, attrs_off, attrs_sz, doff, dsz = struct.unpack_from("<5Q", data, 16)
    types = {struct.unpack_from("<Q", data, o + 24)[0]
             for o in range(attrs_off, attrs_off + attrs_sz, attr_size)}
    assert len(types) == 1, "one sample_type (a recording of one event)"
    st = types.pop()
    assert st & 4, "samples carry PERF_SAMPLE_TIME"
    # TIME follows IDENTIFIER, IP and TID in a sample
    time_at = 8 + 8 * sum(1 for bit in (1 << 16, 1, 2) if st & bit)
    block_max = max(chunk_bytes // 8, 4096)
    end = doff + dsz
    blocks = [[doff, None, None]]           # start, min, max sample time
    off = doff
    while off < end:
        typ, size = struct.unpack_from("<I2xH", data, off)
        assert size >= 8
        if typ in (81, 83):                 # PERF_RECORD_COMPRESSED, COMPRESSED2
            return None
        if typ == 9:                        # PERF_RECORD_SAMPLE
            t = struct.unpack_from("<Q", data, off + time_at)[0]
            b = blocks[-1]
            b[1] = t if b[1] is None else min(b[1], t)
            b[2] = t if b[2] is None else max(b[2], t)
        if (typ == 68 or (off + size) // block_max != off // block_max) and off + size < end:
            blocks.append([off + size, None, None])   # 68: FINISHED_ROUND
        off += size
    assert off == end
    inf = 2 ** 64 - 1
    first = min(b[1] for b in blocks if b[1] is not None)
    smin = [inf] * (len(blocks) + 1)
    for j in reversed(range(len(blocks))):
        smin[j] = min(smin[j + 1], inf if blocks[j][1] is None else blocks[j][1])
    cuts = [0]
    for j in range(1, len(blocks)):
        start = blocks[j][0]
        if start - blocks[cuts[-1]][0] < chunk_bytes or end - start < chunk_bytes // 4:
            continue
        if smin[j] == inf or smin[j] <= (smin[cuts[-1]] if len(cuts) > 1 else first):
            continue
        cuts.append(j)
    out = []
    for k, j in enumerate(cuts):
        lo = smin[j] if k else 0
        # read from the first block whose samples reach time_lo
        i, reach = 0, 0
        while k and i < j and max(reach, blocks[i][2] or 0) < lo:
            reach = max(reach, blocks[i][2] or 0)
            i += 1
        out.append((blocks[j][0] if k else doff,
                    blocks[cuts[k + 1]][0] if k + 1 < len(cuts) else end,
                    min(blocks[i][0], blocks[j][0]) if k else doff,
                    lo, smin[cuts[k + 1]] if k + 1 < len(cuts) else inf))
    return out


def _small(path):
    """chunk_bytes giving several chunks, by the model of the index above:
    about 8 where the file allows (its size and its rounds depend on the
    machine's load: the workloads run for a wall time)."""
    with profileme.open(path) as rec:
        size = int(rec.features.get("data_size") or 0)
    for parts in (8, 16, 32, 64):
        cb = max(size // parts, 4096)
        model = _index_model(path, cb)
        if model is None or len(model) >= 2:
            return cb
    return max(size // 8, 4096)


def _model_keys(lst):
    return [(c["start"], c["end"], c["read_start"], c["time_lo"], c["time_hi"]) for c in lst]


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    """Real perf recordings of two concurrent workloads (two CPU rings: the
    rings' records overlap in time within a round)."""
    if PERF_SKIP:
        pytest.skip(PERF_SKIP)
    d = tmp_path_factory.mktemp("chunks")
    cmd = ["sh", "-c", '"$0" 700 & "$0" 700 & wait', WORKLOAD]
    base = ["perf", "record", "-q", "-e", "task-clock", "-c", "50000"]
    out = {}
    for name, extra in (("file", []), ("callchain", ["-g"]), ("zstd", ["-z"])):
        out[name] = str(d / (name + ".data"))
        r = subprocess.run(base + extra + ["-o", out[name], "--"] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            assert name == "zstd", "perf record %s failed" % extra
            del out[name]   # perf without zstd
    out["pipe"] = str(d / "pipe.data")
    with open(out["pipe"], "wb") as fh:
        subprocess.run(base + ["-o", "-", "--"] + cmd, check=True, stdout=fh,
                       stderr=subprocess.DEVNULL)
    return out


def _chunk_samples(path, chunk_bytes, **kw):
    lst, rng = pmd.chunks(path, chunk_bytes)
    parts = []
    with profileme.open(path) as rec:
        for c in lst:
            rec._schema_for(-1)
            parts.append(pmd._chunk_array(rec, path, c["key"], None, -1))
    return lst, rng, parts


@pytest.mark.parametrize("kind", ["file", "callchain", "zstd", "pipe"])
def test_chunks_equal_whole_file(recs, kind):
    if kind not in recs:
        pytest.skip("perf cannot record with -z here")
    path = recs[kind]
    lst, rng, parts = _chunk_samples(path, _small(path))
    # the scan in several pieces gives the same index (the threads reach C)
    assert pmd.chunks(path, _small(path), threads=3) == (lst, rng)
    with pytest.raises(profileme.Error):
        pmd.chunks(path, _small(path), threads=-1)
    with profileme.open(path) as rec:
        whole = rec.samples()
    got = np.concatenate(parts)
    assert len(whole) > 1000
    assert got.dtype == whole.dtype
    for name in whole.dtype.names:          # column for column, in order
        assert np.array_equal(got[name], whole[name]), name
    if kind in ("zstd", "pipe"):
        assert len(lst) == 1 and lst[0]["flags"] & pmd.CHUNK_WHOLE
        return
    # the chunks the rules give for this file's rounds and times (how many
    # depends on how perf laid out the two rings' data in its rounds), and
    # several of them
    assert _model_keys(lst) == _index_model(path, _small(path))
    assert len(lst) >= 2
    assert rng == (int(whole["time"].min()), int(whole["time"].max()))
    data_off = lst[0]["data_offset"]
    assert lst[0]["start"] == data_off and lst[-1]["end"] == lst[0]["data_end"]
    for a, b in zip(lst, lst[1:]):
        assert a["end"] == b["start"] and a["time_hi"] == b["time_lo"] and a["time_lo"] < b["time_lo"]
    for c, p in zip(lst, parts):
        assert c["flags"] & pmd.CHUNK_TIME_WINDOW and c["read_start"] <= c["start"]
        assert len(p) and (p["time"] >= c["time_lo"]).all() and (p["time"] < c["time_hi"]).all()
        assert c["time_min"] <= p["time"].min() and p["time"].max() <= c["time_max"]


def test_chunks_overlap_is_needed(recs):
    """Two rings per round: some chunk reads from before its start, and the
    samples it finds there are its own (by time), not its predecessor's."""
    path = recs["file"]
    lst, _, parts = _chunk_samples(path, _small(path))
    over = [c for c in lst if c["read_start"] < c["start"]]
    if not over:
        pytest.skip("the workloads ran on one CPU: no overlap between rings to test")
    # decoded as plain byte ranges, the samples of these chunks would differ
    with profileme.open(path) as rec:
        whole = rec.samples(fields=["time"])["time"]
    for c in over:
        inside = whole[(whole >= c["time_lo"]) & (whole < c["time_hi"])]
        assert len(parts[c["index"]]) == len(inside)


def test_select_chunk_errors(recs):
    from profileme import _glue as c
    path = recs["file"]
    lst, _ = pmd.chunks(path, _small(path))
    f = c.file_open(path, 0)
    try:
        c.file_next(f, None)
        with pytest.raises(profileme.Error, match="after records were read"):
            c.file_select_chunk(f, lst[1]["key"])
    finally:
        c.file_close(f)
    other = pmd.chunks(recs["callchain"], _small(recs["callchain"]))[0]
    f = c.file_open(path, 0)
    try:
        bad = list(other[-1]["key"])
        bad[9] += 8                         # another data offset
        with pytest.raises(profileme.Error, match="not a chunk of this file"):
            c.file_select_chunk(f, tuple(bad))
    finally:
        c.file_close(f)
    f = c.file_open(recs["pipe"], 0)
    try:
        with pytest.raises(profileme.Error, match="pipe stream is one chunk"):
            c.file_select_chunk(f, lst[1]["key"])
    finally:
        c.file_close(f)


def _side_counts(path):
    """MMAP, MMAP2, COMM, FORK, EXIT records of a recording, as perf report
    -D counts them (the oracle of the sideband)."""
    out = subprocess.run(["perf", "report", "-D", "-i", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True).stdout.decode(errors="replace")
    import re
    # TIME 0xOFFSET [0xSIZE]: PERF_RECORD_TYPE ...
    pat = re.compile(r"^\S+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_(MMAP2?|COMM|FORK|EXIT)\b")
    return sum(1 for line in out.splitlines() if pat.match(line))


@pytest.mark.parametrize("kind", ["file", "callchain", "zstd", "pipe"])
def test_chunk_sideband(recs, kind):
    """The index keeps the file's side records once (its sideband): as many
    as perf report -D shows, in time order; none for -z and pipe (one chunk).
    A damaged sideband is a clear error."""
    if kind not in recs:
        pytest.skip("perf cannot record with -z here")
    path = recs[kind]
    lst, rng, sb = pmd.chunks(path, _small(path), sideband=True)
    if kind in ("zstd", "pipe"):
        assert sb is None and len(lst) == 1
        return
    assert sb[:4] == b"PMSB" and struct.unpack_from("<I", sb, 4)[0] == 1
    count = struct.unpack_from("<I", sb, 12)[0]
    assert count == _side_counts(path) and count >= 3
    keys, at = [], 32
    for _ in range(count):
        key, size = struct.unpack_from("<Q", sb, at)[0], struct.unpack_from("<I", sb, at + 28)[0]
        keys.append(key)
        at += 32 + (size + 7) // 8 * 8
    assert at == len(sb) and keys == sorted(keys)
    # the same for every number of scan pieces
    assert pmd.chunks(path, _small(path), threads=3, sideband=True)[2] == sb
    with profileme.open(path) as rec:
        rec._schema_for(-1)
        arr = pmd._chunk_array(rec, path, lst[1]["key"], None, -1)
        for bad, msg in ((sb[:len(sb) - 8], "sideband"), (b"PMSX" + sb[4:], "not a sideband"),
                         (sb[:12] + struct.pack("<I", count + 1) + sb[16:], "sideband cut")):
            with pytest.raises(profileme.Error, match=msg):
                pmd._chunk_symbols(rec, path, arr, lst[1]["key"], bad, None, None, True)
        other = pmd.chunks(recs["callchain" if kind == "file" else "file"], _small(path),
                           sideband=True)[2]
        with pytest.raises(profileme.Error, match="not of this file"):
            pmd._chunk_symbols(rec, path, arr, lst[1]["key"], other, None, None, True)


@pytest.mark.parametrize("divisions", [True, False])
@pytest.mark.parametrize("kind", ["file", "callchain", "zstd", "pipe"])
def test_read_samples_equals_to_pandas(recs, kind, divisions, monkeypatch):
    """Chunked decode with symbols equals the whole-file decode column for
    column; a chunk of several is symbolized from the index's sideband (the
    whole file's replay is not used), -z and pipe files are one chunk."""
    if kind not in recs:
        pytest.skip("perf cannot record with -z here")
    path = recs[kind]
    with profileme.open(path) as rec:
        want = rec.to_pandas(symbols=True).set_index("time")
    whole = kind in ("zstd", "pipe")
    if not whole:
        def no_file_replay(*a, **k):
            raise AssertionError("a chunk was symbolized with a replay of the whole file")
        monkeypatch.setattr(profileme.PerfData, "_symbol_columns", no_file_replay)
    ddf = pmd.read_samples(path, chunk_bytes=_small(path), symbols=True, divisions=divisions)
    assert ddf.npartitions >= 2 or whole
    # known both ways for a file the header describes (divisions=False: from
    # SAMPLE_TIME, partitions on time windows), never for -z and pipe
    assert ddf.known_divisions == (not whole)
    got = ddf.compute()
    assert list(got.columns) == ["source"] + list(want.columns)
    assert (got["source"] == path).all()
    for c in want.columns:
        a, b = got[c], want[c]
        if hasattr(b, "cat"):
            a, b = a.astype(object), b.astype(object)
        assert a.dtype == b.dtype, c
        assert a.reset_index(drop=True).equals(b.reset_index(drop=True)), c
    assert np.array_equal(got.index.to_numpy(), want.index.to_numpy())
    if not ddf.known_divisions:
        return
    # known divisions: loc on time reads only the partitions that hold it
    t = int(want.index[len(want) // 2])
    assert len(ddf.loc[t:t].compute()) == int((want.index == t).sum())


def test_read_samples_fields_and_mixed_files(recs):
    paths = [recs["file"], recs["pipe"]]
    ddf = pmd.read_samples(paths, fields=["tid", "ip", "event"], chunk_bytes=SMALL)
    assert list(ddf.columns) == ["source", "tid", "ip", "event"]
    assert not ddf.known_divisions          # the two recordings overlap in time
    got = ddf.compute()
    want = profileme.read_many(paths, fields=["time", "tid", "ip", "event"])
    assert got["source"].astype(str).tolist() == want["source"].astype(str).tolist()
    assert np.array_equal(got.index.to_numpy(), want["time"].to_numpy())
    for c in ("tid", "ip"):
        assert np.array_equal(got[c].to_numpy(), want[c].to_numpy()), c
    assert got["event"].astype(str).tolist() == want["event"].astype(str).tolist()


def test_read_samples_lazy_index(recs, monkeypatch):
    """Several files: building the frame reads headers only (no chunk index
    here); each file's index is a task its partitions depend on, and the
    frame is read_many()'s.  divisions=True makes the index here."""
    paths = [recs["file"], recs["callchain"], recs["pipe"]]
    calls = []
    real = pmd.chunks
    monkeypatch.setattr(pmd, "chunks", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    cb = _small(recs["file"])
    ddf = pmd.read_samples(paths, fields=["tid", "ip"], chunk_bytes=cb)
    assert calls == [] and not ddf.known_divisions
    # a partition per chunk_bytes of data, at least the chunks each file has
    nchunks = [len(real(p, cb)[0]) for p in paths]
    # the chunks of the index's rules for cb, from each file's own rounds
    # and times (the pipe stream is one chunk); the first file has several
    assert nchunks == [len(_index_model(recs["file"], cb)),
                       len(_index_model(recs["callchain"], cb)), 1]
    assert nchunks[0] > 1
    assert ddf.npartitions >= sum(nchunks)
    got = ddf.compute(scheduler="sync")
    assert sorted(calls) == sorted(paths)       # one index task per file
    want = profileme.read_many(paths, fields=["time", "tid", "ip"])
    assert got["source"].astype(str).tolist() == want["source"].astype(str).tolist()
    assert np.array_equal(got.index.to_numpy(), want["time"].to_numpy())
    for c in ("tid", "ip"):
        assert np.array_equal(got[c].to_numpy(), want[c].to_numpy()), c
    del calls[:]
    eager = pmd.read_samples(paths, fields=["tid", "ip"], chunk_bytes=cb, divisions=True)
    assert sorted(calls) == sorted(paths) and eager.npartitions == sum(nchunks)
    with pytest.raises(ValueError):
        pmd.read_samples(paths, divisions="yes")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """20 SYNTHETIC ProfileMe recordings (tests/gen/gen_profileme.py, one seed each)."""
    d = tmp_path_factory.mktemp("fleet")
    paths = []
    for i in range(20):
        p = str(d / ("host%02d.data" % i))
        subprocess.run([sys.executable, GEN, p, "--samples", "400", "--seed", str(1000 + i)],
                       check=True, stdout=subprocess.DEVNULL)
        paths.append(p)
    return paths


def _report(path):
    out = subprocess.run([PROFILEME, "report", "--json", "-i", path], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def test_profileme_summary_equals_report():
    """One SYNTHETIC file, several chunks: the numbers of profileme report."""
    ddf = pmd.read_samples(SYNTH, symbols=True, chunk_bytes=4096, **SYM)
    assert ddf.npartitions > 1
    got = pmd.profileme_summary(ddf)
    hot = pmd.hotspots(ddf, by=["comm", "dso", "sym"], top=None)
    rows = _report(SYNTH)
    assert len(got) == len(rows) == len(hot)
    by = {(r["comm"], r["dso"], r["sym"]): r for r in rows}
    for g in got.to_dict("records"):
        r = by[(g["comm"], g["dso"], g["sym"])]
        for k in ("samples", "period", "profileme", "not_killed", "killed", "stalled", "trapped",
                  "mispredicted", "pal_redirects", "pctr1_min", "pctr1_q1", "pctr1_median",
                  "pctr1_q3", "pctr1_max"):
            assert g[k] == r[k], (k, g, r)
        for k in ("overhead", "stalled_pct", "trapped_pct", "mispredicted_pct",
                  "icache_miss_pct", "pctr1_mean"):
            assert abs(g[k] - r[k]) < 1e-4, k
        assert g["traps"] == r["traps"]
    for h in hot.to_dict("records"):
        r = by[(h["comm"], h["dso"], h["sym"])]
        assert (h["samples"], h["period"], h["redirects"]) == \
            (r["samples"], r["period"], r["pal_redirects"])
        assert abs(h["overhead"] - r["overhead"]) < 1e-4


@pytest.mark.parametrize("kind", ["ibs_op", "ibs_fetch"])
def test_ibs_summary_equals_report(kind):
    """The SYNTHETIC IBS recording's ibs_op / ibs_fetch rows of profileme
    report: counts, distributions, tallies, and the data_src / page_size
    objects of its JSON."""
    with profileme.open(IBS) as rec:
        ev = [e["name"] for e in rec.events if e["name"].startswith(kind)][0]
    ddf = pmd.read_samples(IBS, event=ev, symbols=True, chunk_bytes=4096, **SYM)
    assert ddf.npartitions > 1
    got = pmd.ibs_summary(ddf)
    rows = [r for r in _report(IBS) if r["event"] == ev]
    by = {(r["comm"], r["dso"], r["sym"]): r for r in rows}
    assert len(got) == len(rows) and rows
    if kind == "ibs_op":
        counts = ("samples", "period", "ibs_op", "exact", "inexact", "ip_differs", "ops",
                  "branches", "branch_taken", "branch_mispredicted", "loads", "stores",
                  "dc_miss", "dtlb_l1_miss", "dtlb_l2_miss")
        dists = ("tag_to_ret", "comp_to_ret", "dc_miss_lat")
        pcts = ("branch_taken_pct", "branch_mispredicted_pct", "dc_miss_pct")
        obj = "data_src"
    else:
        counts = ("samples", "period", "ibs_fetch", "exact", "inexact", "ip_differs",
                  "fetch_completed")
        dists = ("fetch_lat",)
        pcts = ()
        obj = "page_size"
    seen = set()
    for g in got.to_dict("records"):
        r = by[(g["comm"], g["dso"], g["sym"])]
        for k in counts:
            assert g[k] == r[k], (k, g, r)
        for q in dists:
            for s in ("q1", "median", "q3", "max"):
                k = "%s_%s" % (q, s)
                if k in r:
                    assert g[k] == r[k], (k, g, r)
                    seen.add(k)
            if q + "_mean" in r:
                assert abs(g[q + "_mean"] - r[q + "_mean"]) < 1e-4
        for k in pcts:
            if k in r:
                assert abs(g[k] - r[k]) < 1e-4, k
                seen.add(k)
        if kind == "ibs_fetch":
            for k in ("ic_miss", "itlb_l1_miss", "itlb_l2_miss", "l2_miss", "l3_miss", "oc_miss"):
                if k in r:   # the report gives a tally only where some fetch has the bit
                    assert g[k] == r[k] and abs(g[k + "_pct"] - r[k + "_pct"]) < 1e-4, (k, g, r)
                    seen.add(k)
        assert g[obj] == r.get(obj, {}), (obj, g, r)
        seen |= {obj} if g[obj] else set()
    # the comparisons above were made, not skipped
    want = {"ibs_op": {"dc_miss_lat_median", "dc_miss_pct", "data_src"},
            "ibs_fetch": {"fetch_lat_median", "ic_miss", "oc_miss", "page_size"}}[kind]
    assert want <= seen, want - seen


def test_local_cluster_fleet(fleet):
    """A LocalCluster of 2 workers over 20 recordings: the hotspots and the
    ProfileMe aggregates pandas gives on the concatenation (read_many)."""
    distributed = pytest.importorskip("distributed")
    import pandas as pd
    ddf = pmd.read_samples(fleet, symbols=True, chunk_bytes=8192, **SYM)
    assert ddf.npartitions > len(fleet)
    import dask
    with dask.config.set({"distributed.comm.timeouts.connect": "120s"}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None, silence_logs=40) as cl, \
            distributed.Client(cl, timeout="120s") as client:
        assert len(client.scheduler_info()["workers"]) == 2
        hot = pmd.hotspots(ddf, by=["sym", "dso"], top=None)
        summ = pmd.profileme_summary(ddf, by=["sym"])
        n = int(ddf.map_partitions(len).compute().sum())
    df = profileme.read_many(fleet, symbols=True, **SYM)
    assert n == len(df)
    total = df["period"].sum()
    g = df.groupby(["sym", "dso"], observed=True).agg(samples=("period", "size"),
                                                      period=("period", "sum"))
    assert len(hot) == len(g)
    for h in hot.to_dict("records"):
        w = g.loc[(h["sym"], h["dso"])]
        assert (h["samples"], h["period"]) == (w["samples"], w["period"])
        assert abs(h["overhead"] - 100.0 * w["period"] / total) < 1e-9
    ok = df["raw_ok"]
    for s in summ.to_dict("records"):
        d = df[df["sym"] == s["sym"]]
        dec = d[d["raw_ok"]]
        assert s["samples"] == len(d) and s["profileme"] == len(dec)
        for k in ("killed", "stalled", "trapped", "mispredicted", "icm"):
            assert s[k] == int(dec[k].sum()), k
        assert s["pal_redirects"] == int((d["charge"] == "redirect").sum())
        v = np.sort(dec["pctr1"].to_numpy(dtype=np.int64))
        assert s["pctr1_median"] == v[(len(v) * 2 + 3) // 4 - 1]
        assert s["pctr1_q3"] == v[(len(v) * 3 + 3) // 4 - 1]
        assert abs(s["pctr1_mean"] - v.mean()) < 1e-9
        traps = dec["trap"][dec["trap"] != "none"].value_counts()
        assert s["traps"] == {k: int(c) for k, c in traps.items() if c}
    assert ok.any() and isinstance(df["sym"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize("kind", ["file", "callchain", "zstd", "pipe"])
def test_threads_equal_one_thread(recs, kind):
    """pm_columns_opts.threads = 2 (chunks decoded by two threads) gives the
    rows of one thread, every column, in order; fields asked for stay asked."""
    from profileme import _glue as c
    if kind not in recs:
        pytest.skip("perf cannot record with -z here")
    path = recs[kind]
    with profileme.open(path) as rec:
        one = rec.samples()
        for fields in (None, ["time", "ip", "tid"]):
            f = c.file_open(path, 0)
            try:
                cols = c.columns_new_mt(f, -1, 2, _small(path))
                try:
                    two = rec._read_columns(cols, fields, -1, False)
                finally:
                    c.columns_free(cols)
            finally:
                c.file_close(f)
            assert len(two) == len(one)
            for name in two.dtype.names:
                assert np.array_equal(two[name], one[name]), name


def test_threads_separate_buffers(recs):
    """pm_columns_read() into one buffer per column (the strided copy-out of
    the threaded reader), and a later read asking for other columns: an
    error, not other rows."""
    from profileme import _glue as c
    path = recs["callchain"]
    with profileme.open(path) as rec:
        one = rec.samples()
        f = c.file_open(path, 0)
        try:
            cols = c.columns_new_mt(f, -1, 2, _small(path))
            try:
                schema = c.columns_schema(cols)[0]
                names = [s[0] for s in schema]
                want = {"time", "tid", "cpumode", "ip"}
                cap = 200
                got = {n: [] for n in want}
                while True:
                    bufs = [np.empty(cap, dtype=t) if n in want else None for n, t, _ in schema]
                    n, err = c.columns_read(cols, bufs, cap)
                    assert err == 0
                    for name, b in zip(names, bufs):
                        if b is not None:
                            got[name].append(b[:n])
                    if n < cap:
                        break
                    if sum(len(x) for x in got["time"]) > 3 * cap:
                        bufs = [np.empty(cap, dtype=t) if n == "time" else None
                                for n, t, _ in schema]
                        with pytest.raises(profileme.Error, match="same columns"):
                            c.columns_read(cols, bufs, cap)
                        break
            finally:
                c.columns_free(cols)
        finally:
            c.file_close(f)
    k = sum(len(x) for x in got["time"])
    assert k > 3 * 200
    for name in want:
        assert np.array_equal(np.concatenate(got[name]), one[name][:k].astype(got[name][0].dtype)), name


def test_threads_freed_before_the_file(recs):
    """A threaded pm_columns made by the binding is owned by its Python
    object: freeing it joins its decoding threads, so closing the file after
    it is safe (the threads read the file; a pm_columns the binding did not
    own stayed alive with them, and ASan saw them read the closed file)."""
    from profileme import _glue as c
    path = recs["callchain"]
    f = c.file_open(path, 0)
    try:
        cols = c.columns_new_mt(f, -1, 2, _small(path))
        assert cols.thisown
        schema = c.columns_schema(cols)[0]
        n, err = c.columns_read(cols, [np.empty(50, dtype=t) for _n, t, _ in schema], 50)
        assert n == 50 and err == 0
        running = len(os.listdir("/proc/self/task"))        # with the two decoding threads
        c.columns_free(cols)
        assert len(os.listdir("/proc/self/task")) <= running - 2
    finally:
        c.file_close(f)


def _set_sample_time(src, dst, first, last):
    """A copy of recording src whose SAMPLE_TIME feature says first, last
    (the feature table: one {offset, size} per feature bit set in the
    header's bitmap, in bit order, after the data section)."""
    with open(src, "rb") as fh:
        data = bytearray(fh.read())
    doff, dsz = struct.unpack_from("<2Q", data, 40)
    bits = int.from_bytes(data[72:104], "little")
    assert bits >> 21 & 1, "perf wrote SAMPLE_TIME"
    k = bin(bits & ((1 << 21) - 1)).count("1")
    off, size = struct.unpack_from("<2Q", data, doff + dsz + 16 * k)
    assert size == 16
    struct.pack_into("<2Q", data, off, first, last)
    with open(dst, "wb") as fh:
        fh.write(data)


def test_read_samples_known_divisions_from_headers(recs, monkeypatch, tmp_path):
    """Several files whose headers give their time ranges (SAMPLE_TIME, file
    mode, not -z, every sample timed) that do not overlap: known divisions
    without an index made here; the partitions in time order, each a time
    window of its file; the frame is the files' to_pandas() in time order.
    A pipe or -z file among them: unknown.  A header whose range the
    samples leave: a clear error, nothing dropped."""
    paths = [recs["callchain"], recs["file"]]      # recorded file first
    real = pmd.chunks
    driver = []

    def counting(*a, **k):
        driver.append(a[0])
        return real(*a, **k)
    monkeypatch.setattr(pmd, "chunks", counting)
    cb = _small(recs["file"])
    ddf = pmd.read_samples(paths, fields=["tid", "ip", "event"], chunk_bytes=cb)
    assert driver == [] and ddf.known_divisions
    spans = []
    for p in (recs["file"], recs["callchain"]):
        with profileme.open(p) as rec:
            spans.append(rec.features["sample_time"])
    assert ddf.divisions[0] == spans[0][0] and ddf.divisions[-1] == spans[1][1]
    assert spans[1][0] in ddf.divisions          # a file's first time opens its partitions
    assert ddf.npartitions >= 4
    got = ddf.compute(scheduler="sync")
    assert sorted(driver) == sorted(paths)       # one index task per file
    frames = []
    for p in (recs["file"], recs["callchain"]):
        with profileme.open(p) as rec:
            frames.append(rec.to_pandas(fields=["time", "tid", "ip", "event"]).set_index("time"))
    n0 = len(frames[0])
    assert len(got) == n0 + len(frames[1])
    assert (got["source"].astype(str).to_numpy()[:n0] == recs["file"]).all()
    assert (got["source"].astype(str).to_numpy()[n0:] == recs["callchain"]).all()
    for c in ("tid", "ip"):
        want = np.concatenate([f[c].to_numpy() for f in frames])
        assert np.array_equal(got[c].to_numpy(), want), c
    assert np.array_equal(got.index.to_numpy(), np.concatenate([f.index.to_numpy() for f in frames]))
    # every partition within its divisions (Dask's contract), loc reads the right rows
    for k in range(ddf.npartitions):
        part = ddf.get_partition(k).compute(scheduler="sync")
        if len(part):
            assert part.index.min() >= ddf.divisions[k]
            assert part.index.max() < ddf.divisions[k + 1] or k == ddf.npartitions - 1
    t = int(frames[1].index[len(frames[1]) // 2])
    assert len(ddf.loc[t:t].compute(scheduler="sync")) == int((frames[1].index == t).sum())
    # files the headers do not describe
    for other in ("pipe", "zstd"):
        if other in recs:
            assert not pmd.read_samples(paths + [recs[other]], chunk_bytes=cb).known_divisions
    # a header that says the samples start later than they do
    bad = str(tmp_path / "bad.data")
    _set_sample_time(recs["file"], bad, spans[0][0] + (spans[0][1] - spans[0][0]) // 2,
                     spans[0][1])
    ddf = pmd.read_samples([bad, recs["callchain"]], fields=["ip"], chunk_bytes=cb)
    assert ddf.known_divisions
    with pytest.raises(ValueError, match="outside the range its header gives"):
        ddf.compute(scheduler="sync")
