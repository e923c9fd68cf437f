# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Numbers a pandas user can trust (issue 16, "Wrong without a word"):
flags are bool, sums do not wrap, undecoded rows are NA, and hotspots()
weights like `perf report`.  Expectations come from the generator's chosen
inputs (the JSON sidecar) and from the real perf tool's report."""
import collections
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import profileme
from conftest import GEN, PERF_SKIP, SYNTH, WORKLOAD

pd = pytest.importorskip("pandas")

FLAGS = ("icm", "killed", "lso", "mis", "stalled", "tak", "trp", "val")


@pytest.fixture(scope="module")
def big_gen(tmp_path_factory):
    """A SYNTHETIC ProfileMe recording of 3000 samples with its sidecar."""
    d = tmp_path_factory.mktemp("trust")
    data, exp = str(d / "g.data"), str(d / "g.json")
    subprocess.run([sys.executable, GEN, data, "--expected", exp, "--samples", "3000",
                    "--seed", "11"], check=True)
    with open(exp) as f:
        return data, json.load(f)


def test_flags_are_bool(big_gen):
    with profileme.open(big_gen[0]) as r:
        s = r.samples()
        df = r.to_pandas()
    for k in FLAGS + ("raw_ok", "trapped", "mispredicted", "pal"):
        assert s.dtype[k] == np.bool_, k
    assert df["raw_ok"].dtype == np.bool_
    assert str(df["killed"].dtype) == "boolean"
    # boolean indexing works (it raised KeyError on uint8 flags)
    killed = df[df.killed]
    want = [x for x in big_gen[1]["samples"] if "fields" in x and x["fields"]["killed"]]
    assert len(killed) == len(want) > 0
    assert sorted(killed["time"]) == sorted(x["time"] for x in want)


def test_flag_sums_do_not_wrap(big_gen):
    """groupby sums of flags (the 8/244/44 of uint8 wrap-around) equal the
    generator's counts, also scaled as a percentage would be."""
    with profileme.open(big_gen[0]) as r:
        df = r.to_pandas()
    dec = [x for x in big_gen[1]["samples"] if "fields" in x]
    for k in FLAGS:
        want = collections.Counter(x["expected"]["mode"] for x in dec if x["fields"][k])
        got = df.groupby("mode", observed=True)[k].sum()
        assert {m: int(v) for m, v in got.items() if v} == dict(want), k
        assert {m: int(v) for m, v in (got * 100).items() if v} == {m: 100 * v for m, v in want.items()}
    # at least one flag's sum is past what a uint8 holds: the check above could fail
    assert max(sum(1 for x in dec if x["fields"][k]) for k in FLAGS) > 255
    assert df["callchain_nr"].dtype == np.uint64


def test_undecoded_rows_are_na(big_gen):
    """Rows whose payload did not decode (raw_ok False) carry NA in every
    decoded column, not zeros that read as 'user mode, trap none'."""
    with profileme.open(big_gen[0]) as r:
        df = r.to_pandas()
        names = r.samples().dtype.names
        dec_cols = list(names[names.index("raw_ok") + 1:])   # the decoded columns follow raw_ok
    bad_times = {x["time"] for x in big_gen[1]["samples"] if x.get("raw_error")}
    assert bad_times
    bad = df[~df["raw_ok"]]
    assert set(bad["time"]) == bad_times
    for c in dec_cols:
        assert bad[c].isna().all(), c
        assert not df[df["raw_ok"]][c].isna().any(), c
    # and the aggregates ignore them: the mean of pctr1 is over decoded rows
    dec = [x for x in big_gen[1]["samples"] if "fields" in x]
    assert df["pctr1"].mean() == pytest.approx(np.mean([x["fields"]["pctr1"] for x in dec]))
    assert df["mode"].value_counts().sum() == len(dec)


def test_bundled_decoded_rows_are_na_only_where_undecoded():
    with profileme.open(SYNTH) as r:
        df = r.to_pandas(fields=["time", "mode", "killed"])
    assert list(df.columns) == ["time", "mode", "killed"]   # raw_ok asked for internally only
    assert df["mode"].isna().sum() == 2 and df["killed"].isna().sum() == 2


# ---------------------------------------------------------------- perf's weights

_ROW = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.+?)\s*$")


def perf_report(path):
    """{(dso basename, symbol): overhead percent} from `perf report`."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q", "--percent-limit", "0",
                          "--sort", "dso,sym", "-F", "overhead,dso,sym"], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    res = {}
    for line in out.splitlines():
        m = _ROW.match(line)
        if m:
            res[(m.group(2), m.group(4))] = res.get((m.group(2), m.group(4)), 0.0) + float(m.group(1))
    return res


def ours(path):
    with profileme.open(path) as r:
        hot = r.hotspots(top=1 << 30)
    res = {}
    for _, row in hot.iterrows():
        key = (os.path.basename(row["dso"]) if not row["dso"].startswith("[") else row["dso"],
               row["symbol"])
        res[key] = res.get(key, 0.0) + row["overhead"]
    return res, hot


def compare(path):
    want = perf_report(path)
    got, hot = ours(path)
    assert abs(sum(got.values()) - 100.0) < 1e-6
    assert hot["overhead"].is_monotonic_decreasing
    named = [k for k in want if not k[1].startswith("0x") and k in got]
    # perf's named rows that we name the same carry >= 95% of its overhead
    assert sum(want[k] for k in named) >= 0.95 * sum(want.values())
    for k in named:
        assert abs(got[k] - want[k]) <= 0.006, (k, got[k], want[k])   # perf prints 2 decimals
    top = [k for k in sorted(want, key=want.get, reverse=True) if k in named][:3]
    ours_top = [k for k in sorted(got, key=got.get, reverse=True) if k in named][:3]
    assert [round(want[k], 2) for k in top] == [round(want[k], 2) for k in ours_top]
    return hot


@pytest.mark.skipif(PERF_SKIP is not None, reason=str(PERF_SKIP))
def test_hotspots_overhead_like_perf_report_task_clock(tmp_path):
    """A frequency-mode task-clock recording: overhead per symbol as perf's."""
    path = str(tmp_path / "freq.data")
    subprocess.run(["perf", "record", "-q", "-F", "4000", "-e", "task-clock", "-o", path, "--",
                    WORKLOAD, "300"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hot = compare(path)
    assert list(hot.columns) == ["symbol", "dso", "overhead", "samples", "samples_percent", "period"]
    assert hot["samples"].sum() > 20     # task-clock counts on-CPU time only: fewer on a busy machine


@pytest.mark.skipif(PERF_SKIP is not None, reason=str(PERF_SKIP))
def test_hotspots_overhead_like_perf_report_varying_periods(tmp_path):
    """A frequency-mode recording whose periods vary (page faults: the kernel
    adjusts the period as it goes), where weighting by count would be wrong."""
    path = str(tmp_path / "pf.data")
    subprocess.run(["perf", "record", "-q", "-F", "20000", "-e", "page-faults", "-o", path, "--",
                    sys.executable, "-c", "x = [bytearray(1 << 16) for _ in range(3000)]"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with profileme.open(path) as r:
        assert len(np.unique(r.samples(fields="period")["period"])) > 3
    hot = compare(path)
    # weighting by count differs here, so the comparison above can fail: with
    # equal periods the two shares would be equal to the last digit
    assert (abs(hot["overhead"] - hot["samples_percent"]) > 0.1).any()
    by_count = profileme.open(path).hotspots(top=1 << 30, weight="samples")
    assert by_count["samples"].is_monotonic_decreasing
