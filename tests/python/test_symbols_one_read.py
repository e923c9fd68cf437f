# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""to_pandas(symbols=True) reads a recording once: the column reader keeps
the side records (pm_columns_opts.sym) and pm_columns_resolve_rows() replays
them.  Its symbol columns must be exactly those of the general path
(Recording._symbol_columns(): pm_sym_resolve_rows() over a second read of
the file) on real recordings -- perf's file, pipe, zstd and -g recordings, a
process that forks and execs -- and on the synthetic ProfileMe recording
(charged rows, PALcode) and a generated IBS one; for every event, with
fields chosen, without attribution."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import profileme
from conftest import GEN, PERF_SKIP, SRC, WORKLOAD

pd = pytest.importorskip("pandas")

SYMFS = os.path.join(SRC, "examples", "data", "symfs")
KALLSYMS = os.path.join(SYMFS, "kallsyms")
GEN_IBS = os.path.join(SRC, "tests", "gen", "gen_ibs.py")


def _same(df, cols):
    """The frame's symbol columns are the general path's, category for
    category, code for code (and code type)."""
    assert len(df) == len(cols["symoff"])
    for c in ("sym", "dso", "comm"):
        assert list(df[c].cat.categories) == list(cols[c].categories), c
        assert df[c].cat.codes.dtype == cols[c].codes.dtype, c
        assert np.array_equal(df[c].cat.codes.to_numpy(), cols[c].codes), c
    assert df["symoff"].dtype == np.uint64
    assert np.array_equal(df["symoff"].to_numpy(), cols["symoff"])


def _check(path, event=None, attribution=True, symfs=None, kallsyms=None):
    with profileme.open(path) as r:
        df = r.to_pandas(symbols=True, event=event, attribution=attribution, symfs=symfs,
                         kallsyms=kallsyms)
    with profileme.open(path) as r:
        arr = r.samples(event=event)
        cols = r._symbol_columns(arr, symfs, kallsyms, attribution)
    _same(df, cols)
    # the other columns are those of to_pandas() without symbols
    with profileme.open(path) as r:
        plain = r.to_pandas(event=event, attribution=attribution)
    pd.testing.assert_frame_equal(df.drop(columns=["comm", "dso", "sym", "symoff"]), plain)
    return df


@pytest.fixture(scope="module")
def exec_file(tmp_path_factory):
    """A shell that forks the workload, then execs it: COMM exec, new maps."""
    if PERF_SKIP:
        pytest.skip(PERF_SKIP)
    out = str(tmp_path_factory.mktemp("exec") / "exec.data")
    subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", out, "--",
                    "sh", "-c", "'%s' 150; exec '%s' 150" % (WORKLOAD, WORKLOAD)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


@pytest.mark.parametrize("kind", ["file", "pipe", "zstd", "callchain"])
def test_perf_recordings(perf_files, kind):
    if kind not in perf_files:
        pytest.skip("perf without zstd")
    df = _check(perf_files[kind])
    assert (df["sym"].astype(str) != "[unknown]").any()


def test_exec(exec_file):
    df = _check(exec_file)
    # the shell's rows before its exec and the workload's after it: two
    # names of one pid, each with its own maps
    names = set(df["comm"].astype(str))
    assert {"sh", "workload"} <= names, names
    wl = df[df["comm"].astype(str) == "workload"]
    assert "workload" in set(wl["dso"].astype(str))


def test_fields_and_event(perf_files):
    path = perf_files["callchain"]
    with profileme.open(path) as r:
        df = r.to_pandas(fields=["ip", "sym", "comm"], event=0)
    with profileme.open(path) as r:
        cols = r._symbol_columns(r.samples(event=0), None, None, True)
    assert list(df.columns) == ["ip", "comm", "sym"]   # symbol columns in their own order
    for c in ("sym", "comm"):
        assert list(df[c].cat.categories) == list(cols[c].categories)
        assert np.array_equal(df[c].cat.codes.to_numpy(), cols[c].codes)


def test_profileme_synthetic(tmp_path):
    data = str(tmp_path / "pm.data")
    subprocess.run([sys.executable, GEN, data, "--samples", "1500", "--seed", "23"], check=True)
    for attribution in (True, False):
        df = _check(data, attribution=attribution, symfs=SYMFS, kallsyms=KALLSYMS)
        if attribution:
            assert "[PALcode]" in set(df["sym"].astype(str))


def test_ibs_generated(tmp_path):
    data = str(tmp_path / "ibs.data")
    subprocess.run([sys.executable, GEN_IBS, data, "--samples", "800", "--seed", "5"], check=True)
    for event in (None, 0):
        _check(data, event=event, symfs=SYMFS, kallsyms=KALLSYMS)


def test_read_once(perf_files, monkeypatch):
    """One read of the file: the recording is opened once, and the general
    path's second replay (the binding's symbol_rows()) is not called."""
    with profileme.open(perf_files["callchain"]) as r:
        opened = []
        fresh = r._fresh
        monkeypatch.setattr(r, "_fresh", lambda: opened.append(1) or fresh())
        monkeypatch.setattr(profileme._c, "symbol_rows", None)
        df = r.to_pandas(symbols=True)
        assert len(opened) == 1
        assert len(df) and (df["sym"].astype(str) != "[unknown]").any()


def test_damaged_same_error(perf_files, tmp_path):
    """A truncated recording: the one-read path ends in the error the
    general path's second read meets (the kept records end where the read
    did); with partial=True both give the rows before the damage and the
    same symbol columns (tests/python/test_partial_symbols.py checks them
    against perf)."""
    with open(perf_files["file"], "rb") as f:
        data = f.read()
    cut = str(tmp_path / "cut.data")
    with open(cut, "wb") as out:
        out.write(data[:len(data) * 2 // 3 + 5])

    def outcome(fn):
        try:
            fn()
        except profileme.Error as e:
            return type(e), e.errno, str(e)
        return None

    with profileme.open(cut) as r:
        one = outcome(lambda: r.to_pandas(symbols=True))
    with profileme.open(cut) as r:
        two = outcome(lambda: r._symbol_columns(r.samples(), None, None, True))
    assert one is not None and one == two, (one, two)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # the DamageWarning
        # the replay of the rows before the damage meets it too, an error without partial
        with profileme.open(cut) as r:
            arr = r.samples(partial=True)
            replay = outcome(lambda: r._symbol_columns(arr, None, None, True))
        assert replay is not None and replay[0] is profileme.TruncatedError, replay
        with profileme.open(cut) as r:
            df = r.to_pandas(symbols=True, partial=True)
        with profileme.open(cut) as r:
            arr = r.samples(partial=True)
            cols = r._symbol_columns(arr, None, None, True, partial=True)
    assert len(df) == len(arr) > 0
    _same(df, cols)



def test_frames_own_their_columns(perf_files):
    """Each frame has its own, writable symbol columns: changing one frame
    (in place) changes neither the per-recording cache nor the next frame;
    the event/cpumode codes and the widened counts are the frame's own too."""
    with profileme.open(perf_files["callchain"]) as r:
        df = r.to_pandas(symbols=True)
        want = df.copy(deep=True)
        assert df["symoff"].to_numpy().flags.writeable
        df["symoff"] += 1                                   # in place in pandas 1.5
        df.loc[0, "sym"] = df["sym"].cat.categories[0]
        df.loc[0, "comm"] = df["comm"].cat.categories[-1]
        df.loc[0, "cpumode"] = "hypervisor"
        df["callchain_nr"] += 1
        again = r.to_pandas(symbols=True)
    pd.testing.assert_frame_equal(again, want)
