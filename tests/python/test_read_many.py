# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.read_many(): one frame of several recordings, source column,
unioned categoricals, uint64 columns kept exactly (issue 16)."""

import numpy as np
import pytest

import profileme

pd = pytest.importorskip("pandas")


def test_read_many(perf_files, gen_files):
    gen = gen_files["le"][0]            # SYNTHETIC ProfileMe recording (tests/gen)
    paths = [perf_files["file"], gen, perf_files["file"]]
    df = profileme.read_many(paths)
    parts = []
    for p in paths:
        with profileme.open(p) as r:
            parts.append(r.to_pandas())
    assert len(df) == sum(len(x) for x in parts)
    assert list(df.columns[:1]) == ["source"]
    assert list(df["source"].cat.categories) == [paths[0], gen, paths[0] + "#2"]
    assert (df["source"].cat.codes.to_numpy() ==
            np.repeat([0, 1, 2], [len(x) for x in parts])).all()
    # present everywhere with one dtype: kept (uint64 stays uint64, exact)
    assert df["ip"].dtype == np.uint64 and df["time"].dtype == np.uint64
    assert (df["ip"].to_numpy() == np.concatenate([x["ip"].to_numpy() for x in parts])).all()
    # a ProfileMe register the perf recordings lack: UInt64 with NA there, not float64
    assert str(df["pmpc"].dtype) == "UInt64"
    lo, hi = len(parts[0]), len(parts[0]) + len(parts[1])
    assert df["pmpc"][:lo].isna().all() and df["pmpc"][hi:].isna().all()
    want = parts[1]["pmpc"]
    got = df["pmpc"][lo:hi].reset_index(drop=True)
    assert (got.isna() == want.isna()).all()
    assert (got[~got.isna()].astype("uint64").to_numpy() ==
            want[~want.isna()].astype("uint64").to_numpy()).all()
    # flags: boolean with NA; categoricals unioned
    assert str(df["killed"].dtype) == "boolean"
    ev = set(df["event"].cat.categories)
    assert set(parts[0]["event"].cat.categories) <= ev
    assert set(parts[1]["event"].cat.categories) <= ev
    assert (df["event"][:lo].astype(str).to_numpy() == parts[0]["event"].astype(str).to_numpy()).all()
    assert isinstance(df["cpumode"].dtype, pd.CategoricalDtype)


def test_read_many_symbols_and_errors(perf_files, tmp_path):
    df = profileme.read_many([perf_files["file"], perf_files["callchain"]],
                             fields=["ip", "sym", "dso"])
    assert list(df.columns) == ["source", "ip", "dso", "sym"]
    assert isinstance(df["sym"].dtype, pd.CategoricalDtype)
    full = profileme.read_many([perf_files["file"]], symbols=True)
    assert {"comm", "dso", "sym", "symoff"} <= set(full.columns)
    for p in (perf_files["file"], perf_files["callchain"]):
        with profileme.open(p) as r:
            one = r.to_pandas(fields=["sym"])["sym"].astype(str).to_numpy()
        assert (df.loc[df["source"] == p, "sym"].astype(str).to_numpy() == one).all()
    with pytest.raises(FileNotFoundError):
        profileme.read_many([perf_files["file"], str(tmp_path / "missing.data")])
    with pytest.raises(ValueError):
        profileme.read_many([])
