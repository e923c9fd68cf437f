# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""to_pandas(symbols=True, partial=True) of a damaged recording (issue 16):
a real perf recording cut inside a record, or with a record whose size is
broken, gives the rows before the damage with their symbols and a
DamageWarning naming the file and the offset, as samples(partial=True)
does; without partial it raises the reader's error.  The rows expected are
those of the records wholly before the damage, read from the bytes
(tests/perf/perfdata.py); their names (comm, sym, dso) are perf script's on
the intact prefix: the records before the damage as a well-formed file.
(Not the intact recording's names: perf writes each CPU's ring as it
drains, so the workload's exec COMM and MMAP2 records can lie in the file
after the damage, and then no reader of the damaged file can know them.)"""
import os
import re
import struct
import subprocess
import sys
import warnings

import numpy as np
import pytest

import profileme
from conftest import SRC

pd = pytest.importorskip("pandas")
sys.path.insert(0, os.path.join(SRC, "tests", "perf"))
import perfdata  # noqa: E402

IDENTIFIER, IP, TID, TIME = 1 << 16, 1 << 0, 1 << 1, 1 << 2


def sample_keys(b, stop):
    """(time, tid, ip) of the SAMPLE records that end at or before stop."""
    (_off, attr) = perfdata.attr_at(b, 0)
    (st,) = struct.unpack_from("<Q", attr, 24)
    assert st & IP and st & TID and st & TIME
    out = []
    for off, t, sz in perfdata.records(b):
        if off + sz > stop:
            break
        if t != 9:
            continue
        p = off + 8 + (8 if st & IDENTIFIER else 0)
        (ip,) = struct.unpack_from("<Q", b, p)
        (_pid, tid) = struct.unpack_from("<II", b, p + 8)
        (tm,) = struct.unpack_from("<Q", b, p + 16)
        out.append((tm, tid, ip))
    return sorted(out)


def prefix_names(b, stop, tmp_path):
    """perf script's (comm, sym, dso basename) by (time, tid, ip) of every
    sample of the recording's records before offset stop, written as a
    well-formed file (data size set to the prefix, no feature sections)."""
    data = bytearray(b[:stop])
    (doff,) = struct.unpack_from("<Q", data, 40)
    struct.pack_into("<Q", data, 48, stop - doff)      # data.size
    data[72:104] = bytes(32)                           # adds_features: none
    path = str(tmp_path / ("prefix-%d.data" % stop))
    with open(path, "wb") as f:
        f.write(data)
    out = subprocess.run(["perf", "script", "-i", path, "--ns", "-F",
                          "comm,tid,time,ip,sym,dso"], check=True, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode(errors="replace")
    line_re = re.compile(r"^\s*(.*?)\s+(\d+)\s+(\d+)\.(\d{9}):\s+([0-9a-f]+)\s+(.*)\s+\((.*)\)$")
    names = {}
    for ln in out.splitlines():
        if not ln.strip():
            continue
        m = line_re.match(ln.rstrip())
        assert m, ln
        comm, tid, sec, ns, ip, sym, dso = m.groups()
        key = (int(sec) * 10**9 + int(ns), int(tid), int(ip, 16))
        names[key] = (comm, sym.strip(), os.path.basename(dso) if dso.startswith("/") else dso)
    return names


def _damaged(perf_files, tmp_path, how, where):
    """The recording damaged at record number where (a fraction of them):
    cut inside that record, or its size field broken.  (path, offset of the
    damage, the bytes of the intact recording)."""
    b = open(perf_files["file"], "rb").read()
    recs = perfdata.records(b)
    samples = [r for r in recs if r[1] == 9]
    off, _t, sz = samples[int(len(samples) * where)]
    path = str(tmp_path / ("%s-%d.data" % (how, off)))
    if how == "cut":
        data = b[:off + sz // 2]
    else:
        data = bytearray(b)
        struct.pack_into("<H", data, off + 6, 4)      # smaller than its header
    with open(path, "wb") as f:
        f.write(data)
    return path, off, b


@pytest.mark.parametrize("how", ["cut", "size"])
@pytest.mark.parametrize("where", [0.3, 0.9])
def test_partial_rows_and_symbols(perf_files, tmp_path, how, where):
    path, off, b = _damaged(perf_files, tmp_path, how, where)
    want = sample_keys(b, off)
    assert len(want) > 10
    with profileme.open(path) as r:
        with pytest.raises(profileme.Error) as e:
            r.to_pandas(symbols=True)
        assert e.value.filename == path and "offset %d" % off in str(e.value)
    with profileme.open(path) as r:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            df = r.to_pandas(symbols=True, partial=True)
    damage = [x for x in w if issubclass(x.category, profileme.DamageWarning)]
    assert len(damage) == 1, [str(x.message) for x in w]
    msg = str(damage[0].message)
    assert msg.startswith(path + ": ") and "offset %d" % off in msg, msg
    assert damage[0].filename == __file__        # reported at the caller's line
    # the rows of the records wholly before the damage, in time order
    got = list(zip(df["time"].tolist(), df["tid"].tolist(), df["ip"].tolist()))
    assert sorted(got) == want and got == sorted(got, key=lambda k: k[0])
    # each with perf's names for that sample of the intact prefix
    perf_names = prefix_names(b, off, tmp_path)
    assert sorted(perf_names) == want
    names = list(zip(df["comm"].astype(str), df["sym"].astype(str), df["dso"].astype(str)))
    assert [perf_names[k] for k in got] == names
    assert (df["sym"].astype(str) != "[unknown]").any()
    # the same rows as samples(partial=True), every other column too
    with profileme.open(path) as r:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = r.to_pandas(partial=True)
    pd.testing.assert_frame_equal(df.drop(columns=["comm", "dso", "sym", "symoff"]), plain)


def test_partial_general_path(perf_files, tmp_path):
    """The general path (pm_sym_resolve_rows() over a second read,
    PM_SYM_ROWS_PARTIAL) gives the one-read path's columns for the rows
    before the damage; a field list and a repeated call (the cache) too."""
    path, off, _b = _damaged(perf_files, tmp_path, "cut", 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profileme.open(path) as r:
            df = r.to_pandas(symbols=True, partial=True)
            again = r.to_pandas(fields=["ip", "sym", "symoff"], partial=True)
        with profileme.open(path) as r:
            cols = r._symbol_columns(r.samples(partial=True), None, None, True, partial=True)
    for c in ("sym", "dso", "comm"):
        assert list(df[c].cat.categories) == list(cols[c].categories), c
        assert np.array_equal(df[c].cat.codes.to_numpy(), cols[c].codes), c
    assert np.array_equal(df["symoff"].to_numpy(), cols["symoff"])
    assert list(again.columns) == ["ip", "sym", "symoff"]
    assert (again["sym"].astype(str).to_numpy() == df["sym"].astype(str).to_numpy()).all()
    assert np.array_equal(again["symoff"].to_numpy(), df["symoff"].to_numpy())
