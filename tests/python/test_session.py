# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.Session: live sampling of the bundled workload."""
import collections
import subprocess

import numpy as np
import pytest

import profileme
from conftest import PERF_SKIP, WORKLOAD

pytestmark = pytest.mark.skipif(bool(PERF_SKIP), reason=str(PERF_SKIP))


def test_session_command():
    with profileme.Session(["task-clock"], period=100000, command=[WORKLOAD, "200"]) as s:
        status = s.wait(timeout=60)
        a = s.read()
        lost = s.lost
        child = s.stats["child_pid"]
    assert status == 0
    assert isinstance(a, np.ndarray) and len(a) > 100
    assert {"time", "pid", "tid", "cpu", "ip", "period", "event"} <= set(a.dtype.names)
    assert (a["pid"] == child).all()
    assert (a["period"] == 100000).all()
    assert (a["event"] == 0).all()
    assert np.all(np.diff(a["time"].astype(np.int64)) >= 0) or len(set(a["cpu"])) > 1
    assert lost >= 0
    # tid/ip are real: most samples of a user-space loop are user addresses
    assert (a["ip"] < 0x800000000000).sum() > len(a) // 2


def test_session_read_accumulates():
    with profileme.Session("task-clock", freq=1000, command=[WORKLOAD, "300"]) as s:
        s.poll(0.1)
        first = len(s.read())
        s.wait(timeout=60)
        total = s.read()
    assert len(total) >= first and len(total) > 0


def test_session_two_events():
    with profileme.Session(["task-clock", "page-faults"], period=50000,
                           command=[WORKLOAD, "100"]) as s:
        s.wait(timeout=60)
        a = s.read()
    assert set(np.unique(a["event"])) <= {0, 1} and 0 in set(a["event"])


def test_session_pid():
    import subprocess
    p = subprocess.Popen([WORKLOAD, "300"])
    try:
        with profileme.Session(["task-clock"], period=100000, pid=p.pid) as s:
            p.wait()
            s.poll(0.1)
            a = s.read()
    finally:
        p.wait()
    assert len(a) > 0 and (a["pid"] == p.pid).all()


def test_session_errors():
    with pytest.raises(profileme.EventError) as e:
        profileme.Session(["nosuchevent"], period=1000, command=[WORKLOAD, "10"])
    assert e.value.position == 0
    with pytest.raises(ValueError):
        profileme.Session(["task-clock"], period=-1)
    with pytest.raises(ValueError):
        profileme.Session(["task-clock"], period=1 << 70)
    with pytest.raises(ValueError):
        profileme.Session(["task-clock"], period=1000, freq=100)
    with pytest.raises(TypeError):
        profileme.Session(["task-clock"], command="ls -l")
    with pytest.raises(TypeError):
        profileme.Session([42])
    with pytest.raises(ValueError):
        profileme.Session([])
    with pytest.raises(profileme.Error) as e:
        profileme.Session(["task-clock"], period=1000, command=["/nonexistent/binary"])
    assert e.value.errno
    s = profileme.Session(["task-clock"], period=100000, command=[WORKLOAD, "10"])
    s.close()
    for call in (s.read, lambda: s.lost, s.poll, s.wait):
        with pytest.raises(ValueError):
            call()
    s.close()


def test_session_is_no_dead_end(tmp_path):
    pd = pytest.importorskip("pandas")
    with profileme.Session(["task-clock"], period=100000, command=[WORKLOAD, "200"]) as s:
        assert s.wait(timeout=60) == 0
        a = s.read()
        out = str(tmp_path / "session.data")
        nrec = s.save(out)
        df = s.to_pandas(symbols=True)
        full = s.samples()
        hot = s.hotspots(top=5)
        with s.recording() as rec:
            sym, dso, _ = rec.symbolize()
    # read() has the dtypes of PerfData.samples()
    for k in a.dtype.names:
        assert a.dtype[k] == full.dtype[k], k
    assert nrec > len(a) and len(full) == len(a) == len(df)
    assert (full["ip"] == a["ip"]).all() or sorted(full["ip"]) == sorted(a["ip"])
    # the saved file is a perf.data perf reads: the same samples
    perf = subprocess.run(["perf", "script", "-i", out, "-F", "ip,sym"], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    lines = [ln.split() for ln in perf.splitlines() if ln.strip()]
    assert len(lines) == len(a)
    assert sorted(int(x[0], 16) for x in lines) == sorted(int(x) for x in a["ip"])
    # the maps the session saw: the workload's own functions are named, as perf names them
    # (user addresses: the session writes no kernel MMAP for perf to place kallsyms)
    perf_syms = collections.Counter(" ".join(x[1:]) for x in lines if int(x[0], 16) < 1 << 63)
    user = (df["cpumode"] == "user").to_numpy()
    ours = collections.Counter(df["sym"][user].astype(str))
    # (perf and the library may name one address by different aliases:
    # cfree@GLIBC_2.2.5 / free; a rare sample)
    diff = sum(((ours - perf_syms) + (perf_syms - ours)).values())
    assert diff <= 2 + 0.02 * sum(perf_syms.values()), (ours - perf_syms, perf_syms - ours)
    top = perf_syms.most_common(1)[0]
    assert ours[top[0]] >= top[1] - 2    # the hottest function named as perf names it
    assert "workload" in set(df["dso"].astype(str)) and "workload" in set(df["comm"].astype(str))
    assert isinstance(df["cpumode"].dtype, pd.CategoricalDtype)
    assert len(hot) and hot["overhead"].iloc[0] > 0
    assert (np.asarray(dso) != "[unknown]").sum() > len(a) // 2


def test_session_sampling_defaults():
    """The rate is the library's sampling default (perf record's): without
    period/freq the events sample at PM_DEFAULT_SAMPLE_FREQ Hz; period=
    applies to an event whose string sets no rate, the string's own
    period= wins (perf: per-event terms over -c)."""
    from profileme import capi
    with profileme.Session(["task-clock"], command=[WORKLOAD, "50"]) as s:
        s.wait(timeout=60)
        with s.recording() as rec:
            attr = rec.events[0]["attr"]
    assert attr["freq"] == 1 and attr["sample_freq"] == capi.PM_DEFAULT_SAMPLE_FREQ == 4000
    with profileme.Session(["task-clock", "cpu-clock/period=250000/"], period=100000,
                           command=[WORKLOAD, "50"]) as s:
        s.wait(timeout=60)
        with s.recording() as rec:
            attrs = [e["attr"] for e in rec.events]
    assert [a["freq"] for a in attrs] == [0, 0]
    assert [a["sample_period"] for a in attrs] == [100000, 250000]


def test_session_read_has_every_column_of_samples():
    """read() is the live bulk column reader (pm_columns_new_from_evlist()):
    every column of PerfData.samples(), the same dtypes, the same rows."""
    with profileme.Session(["task-clock", "cpu-clock"], period=100000,
                           command=[WORKLOAD, "150"]) as s:
        assert s.wait(timeout=60) == 0
        a = s.read()
        full = s.samples()
        st = s.stats
    assert a.dtype == full.dtype
    assert len(a) == len(full) == st["samples"] > 50
    assert st["skipped"] == 0 and st["records"] > st["samples"]
    for ev in (0, 1):
        mine, theirs = a[a["event"] == ev], full[full["event"] == ev]
        assert len(mine) == len(theirs) > 0
        # the file is in time order, the rings ring by ring: the same samples
        assert sorted(mine[["time", "ip", "tid", "cpu", "id"]].tolist()) == \
            sorted(theirs[["time", "ip", "tid", "cpu", "id"]].tolist())
    assert (a["period"] == 100000).all() and (a["cpumode"] == 2).sum() > len(a) // 2


def test_session_poll_now_and_later():
    """A poll drains what the rings hold now; 0 rows is no end."""
    with profileme.Session(["task-clock"], period=100000, command=[WORKLOAD, "300"]) as s:
        got = [s.poll(0.05) for _ in range(3)]
        s.wait(timeout=60)
        total = len(s.read())
        assert s.poll(0) == 0          # nothing more now ...
        assert len(s.read()) == total  # ... and nothing lost
    assert sum(got) <= total and total > 0


def test_session_is_python_over_capi():
    """The Session has no C of its own in the hand-written glue; the tee of
    the live reader takes a pm_writer only (it keeps the pointer)."""
    from profileme import _glue, capi
    assert not [n for n in dir(_glue) if n.startswith("session")]
    el = capi.pm_evlist_new(None)
    capi.pm_evlist_add(el, profileme.capi.pm_event_attr(capi.pm_event_list_get(
        capi.pm_event_parse(None, "task-clock/period=100000/"), 0)), "task-clock", -1)
    capi.pm_evlist_open(el)
    c = capi.pm_columns_new_from_evlist(el, None)
    with pytest.raises(TypeError):
        capi.pm_columns_tee(c, lambda rec: 0)
    capi.pm_columns_tee(c, None)
    capi.pm_columns_free(c)
    capi.pm_evlist_free(el)
