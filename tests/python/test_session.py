# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.Session: live sampling of the bundled workload."""
import os

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
