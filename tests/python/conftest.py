# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Shared fixtures of the Python binding's tests.

Environment (set by tests/python/CMakeLists.txt): PYTHONPATH on the build
tree, PM_PROFILEME (the profileme tool), PM_WORKLOAD (the bundled workload),
PM_SRCDIR, PM_BINDIR.  Expected values come from the real perf tool's
recordings read by `profileme script --json`, or from the generator's sidecar.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

SRC = os.environ.get("PM_SRCDIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BIN = os.environ.get("PM_BINDIR", os.path.join(SRC, "build"))
PROFILEME = os.environ.get("PM_PROFILEME", os.path.join(BIN, "bin", "profileme"))
WORKLOAD = os.environ.get("PM_WORKLOAD", os.path.join(BIN, "bin", "workload"))
GEN = os.path.join(SRC, "tests", "gen", "gen_profileme.py")
SYNTH = os.path.join(SRC, "examples", "data", "profileme-synthetic.data")
SYNTH_EXPECTED = os.path.join(SRC, "examples", "data", "profileme-synthetic.expected.json")
SYSFS = os.path.join(SRC, "tests", "fixtures", "sysfs")


def script_json(path, *extra):
    """The samples of `profileme script --json` (one dict per line)."""
    out = subprocess.run([PROFILEME, "script", "--json", "-i", path, *extra], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def _perf_ok():
    """perf_event_open for a software event works here (not under qemu-user)."""
    if not shutil.which("perf"):
        return "perf is not installed"
    r = subprocess.run(["perf", "stat", "-e", "task-clock", "--", "true"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        return "perf_event_open does not work here: " + r.stderr.decode(errors="replace")[-200:]
    return None


PERF_SKIP = _perf_ok()


@pytest.fixture(scope="session")
def perf_files(tmp_path_factory):
    """Recordings by the real perf tool: file mode, pipe mode, zstd-compressed,
    and one with callchains."""
    if PERF_SKIP:
        pytest.skip(PERF_SKIP)
    d = tmp_path_factory.mktemp("perf")
    base = ["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "--sample-cpu"]
    files = {}
    files["file"] = str(d / "file.data")
    subprocess.run(base + ["-o", files["file"], "--", WORKLOAD, "300"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files["pipe"] = str(d / "pipe.data")
    with open(files["pipe"], "wb") as out:
        subprocess.run(base + ["-o", "-", "--", WORKLOAD, "300"], check=True, stdout=out,
                       stderr=subprocess.DEVNULL)
    files["zstd"] = str(d / "zstd.data")
    r = subprocess.run(base + ["-z", "-o", files["zstd"], "--", WORKLOAD, "300"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        del files["zstd"]  # perf without zstd support
    files["callchain"] = str(d / "cc.data")
    subprocess.run(base + ["-g", "-o", files["callchain"], "--", WORKLOAD, "200"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return files


@pytest.fixture(scope="session")
def pm_recorded(tmp_path_factory):
    """A recording by `profileme record`."""
    if PERF_SKIP:
        pytest.skip(PERF_SKIP)
    d = tmp_path_factory.mktemp("pmrec")
    out = str(d / "pm.data")
    r = subprocess.run([PROFILEME, "record", "-e", "task-clock", "-c", "100000", "-o", out, "--",
                        WORKLOAD, "300"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        pytest.fail("profileme record failed: " + r.stderr.decode(errors="replace"))
    return out


@pytest.fixture(scope="session")
def gen_files(tmp_path_factory):
    """Generated ProfileMe files (both byte orders, file and pipe mode) with
    their sidecars: {name: (data path, expected dict)}."""
    d = tmp_path_factory.mktemp("gen")
    res = {}
    for name, flags in (("le", []), ("be", ["--big-endian"]), ("le_pipe", ["--pipe"]),
                        ("be_pipe", ["--big-endian", "--pipe"])):
        data, exp = str(d / (name + ".data")), str(d / (name + ".json"))
        subprocess.run([sys.executable, GEN, data, "--expected", exp, "--samples", "300",
                        "--seed", "7"] + flags, check=True)
        with open(exp) as f:
            res[name] = (data, json.load(f))
    return res
