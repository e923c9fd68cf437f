# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""rec.tracepoints(): a tracepoint's named fields from the recording's own
formats, equal to `profileme script --json`'s "tp" objects (which
tests/perf/test_tracepoints_vs_perf.py checks against perf); and
open(strict=...): a pipe stream cut in its last record ends with a
warning by default and is an error with strict=True."""
import json
import subprocess
import warnings

import pytest

import profileme
from conftest import PERF_SKIP, PROFILEME, WORKLOAD


@pytest.fixture(scope="module")
def tp_file(tmp_path_factory):
    if PERF_SKIP:
        pytest.skip(PERF_SKIP)
    path = str(tmp_path_factory.mktemp("tp") / "tp.data")
    r = subprocess.run(["perf", "record", "-q", "-e", "sched:sched_switch", "-e",
                        "sched:sched_process_exec", "-o", path, "--", WORKLOAD, "50"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        pytest.skip("perf cannot record tracepoints here: %s" % r.stderr.decode()[-200:])
    return path


def test_tracepoint_fields_equal_script_json(tp_file):
    out = subprocess.run([PROFILEME, "script", "--json", "-i", tp_file], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    want = {}
    for line in out.splitlines():
        d = json.loads(line)
        want.setdefault(d["event"], []).append(d)
    with profileme.open(tp_file) as rec:
        for ev in ("sched:sched_switch", "sched:sched_process_exec"):
            df = rec.tracepoints(ev)
            exp = want.get(ev, [])
            assert len(df) == len(exp) and len(df) > 0, ev
            got = df.sort_values(["time", "cpu"], kind="stable").to_dict("records")
            exp = sorted(exp, key=lambda d: (d["time"], d["cpu"]))
            for g, e in zip(got, exp):
                assert (g["time"], g["pid"], g["tid"], g["cpu"]) == \
                    (e["time"], e["pid"], e["tid"], e["cpu"])
                for k, v in e["tp"].items():
                    col = k if k not in ("time", "pid", "tid", "cpu") else "tp_" + k
                    assert g[col] == v, (ev, k, g[col], v)
        with pytest.raises(ValueError):
            rec.tracepoints("dummy:HG") if any(e["name"] == "dummy:HG" for e in rec.events) \
                else rec.tracepoints(len(rec.events) + 5)


def test_tracepoints_not_a_tracepoint(perf_files):
    with profileme.open(perf_files["file"]) as rec:
        with pytest.raises(ValueError):
            rec.tracepoints()
        with pytest.raises(ValueError):
            rec.tracepoints(0)


def test_strict_pipe_cut(perf_files, tmp_path):
    with open(perf_files["pipe"], "rb") as f:
        data = f.read()
    with profileme.open(perf_files["pipe"]) as rec:
        n_all = len(rec.samples(fields=["time"]))
    cut = tmp_path / "cut.data"
    cut.write_bytes(data[:-5])        # the last record cut short
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with profileme.open(str(cut)) as rec:
            n = len(rec.samples(fields=["time"]))
    assert n_all - 1 <= n <= n_all
    msgs = [str(x.message) for x in w if issubclass(x.category, profileme.DamageWarning)]
    assert len(msgs) == 1 and "offset" in msgs[0], msgs
    with pytest.raises(profileme.Error):
        with profileme.open(str(cut), strict=True) as rec:
            rec.samples(fields=["time"])
