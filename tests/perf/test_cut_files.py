#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Cut files (issue 12): real recordings, made here with `perf record` and
with the project's writer (`profileme record`), cut at record boundaries and
at random offsets inside the data section (file mode: the header says how
much data there is).  For each cut, `profileme script` (file and time
order), `profileme report` and Python `profileme.open(...).samples()` must
give exactly the samples before the cut and fail: non-zero exit, or an
exception (with partial=True: the same samples and a warning); `profileme
report -j 2` must say exactly what `report` says.

The expected samples are read from the recording's bytes (sample_type
IP|TID|TIME, the default of both recorders here), not from profileme.

By default (ctest, CI) a bounded sample of the cut points: 16 record
boundaries and 10 random offsets per recording, seeded (PM_CUT_SEED) so
that failures reproduce.  PM_CUT_ALL=1 cuts at every record boundary and
40 random offsets (about 3 minutes here).

usage: test_cut_files.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata  # noqa: E402

from harness import Checks, skip  # noqa: E402

check = Checks()


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, errors="replace")


def sample_keys(b, stop):
    """(time, ip, tid) of the samples wholly before offset stop, file order."""
    out = []
    for off, t, sz in perfdata.records(b):
        if off + sz > stop:
            break
        if t != 9:
            continue
        ip, _pid, tid, tm = struct.unpack_from("<QIIQ", b, off + 8)
        out.append((tm, ip, tid))
    return out


def sample_type(b):
    off, a = perfdata.attr_at(b, 0)
    return struct.unpack_from("<Q", a, 24)[0]


def script_keys(prof, path, extra):
    r = run([prof, "script", "-i", path, "--json"] + extra)
    keys = []
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            s = json.loads(line)
            keys.append((s["time"], int(s["ip"], 16), s["tid"]))
    return keys, r


def report_total(prof, path):
    r = run([prof, "report", "-i", path, "--json"])
    n = 0
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            n += json.loads(line).get("samples", 0)
    return n, r


def python_check(pm, path, want, label):
    """samples() raises; samples(partial=True) gives the prefix, warning."""
    if pm is None:
        return
    try:
        pm.open(path).samples()
        check(False, "%s: python samples() did not raise" % label)
    except Exception as e:  # the binding's damage error
        check("offset" in str(e), "%s: python error names the offset: %s" % (label, e))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            s = pm.open(path).samples(partial=True)
            got = sorted(zip((int(x) for x in s["time"]), (int(x) for x in s["ip"]),
                             (int(x) for x in s["tid"])))
            check(got == sorted(want) and len(w) >= 1,
                  "%s: python partial=True: %d samples (want %d), %d warnings" %
                  (label, len(got), len(want), len(w)))
        except Exception as e:
            check(False, "%s: python partial=True raised %r" % (label, e))


def cut_and_check(prof, pm, work, name, b, rng, light):
    h = perfdata.header(b)
    do, dn = h["data"]
    recs = perfdata.records(b)
    total = sample_keys(b, do + dn)
    # the intact file first: the oracle of the byte walk must agree
    keys, r = script_keys(prof, os.path.join(work, name + ".data"), ["--raw-order"])
    if keys != total or r.returncode != 0:
        check(False, "%s: intact file: %d samples, %d expected, exit %d %r" %
              (name, len(keys), len(total), r.returncode, r.stderr[-200:]))
        return
    bounds = [off for off, _t, _s in recs[1:]]
    rand = sorted(rng.sample(range(do + 1, do + dn), min(40, dn - 1)))
    if light:
        bounds = sorted(rng.sample(bounds, min(16, len(bounds))))
        rand = sorted(rng.sample(rand, min(10, len(rand))))
    cuts = [("boundary", c) for c in bounds] + [("random", c) for c in rand]
    path = os.path.join(work, name + ".cut.data")
    for kind, cut in cuts:
        with open(path, "wb") as f:
            f.write(b[:cut])
        want = sample_keys(b, cut)
        label = "%s cut at %d (%s)" % (name, cut, kind)
        got, r = script_keys(prof, path, ["--raw-order"])
        check(got == want and r.returncode != 0 and "offset" in r.stderr,
              "%s: script --raw-order: %d samples (want %d), exit %d, %r" %
              (label, len(got), len(want), r.returncode, r.stderr[-200:]))
        got, r = script_keys(prof, path, [])
        check(sorted(got) == sorted(want) and r.returncode != 0,
              "%s: script (time order): %d samples (want %d), exit %d" %
              (label, len(got), len(want), r.returncode))
        n, r = report_total(prof, path)
        check(n == len(want) and r.returncode != 0 and "offset" in r.stderr,
              "%s: report: %d samples (want %d), exit %d, %r" %
              (label, n, len(want), r.returncode, r.stderr[-200:]))
        # report -j 2 (small chunks: several where the file allows)
        # says exactly what -j 1 says
        rj = subprocess.run([prof, "report", "-j", "2", "-i", path, "--json"], capture_output=True,
                            text=True, errors="replace",
                            env=dict(os.environ, PROFILEME_JOBS_CHUNK_BYTES="65536"))
        check((rj.stdout, rj.stderr, rj.returncode) == (r.stdout, r.stderr, r.returncode),
              "%s: report -j 2 differs from -j 1: exit %d, %r" %
              (label, rj.returncode, rj.stderr[-200:]))
        python_check(pm, path, want, label)
    print("%s: %d cuts (%d at record boundaries), %d samples in the file" %
          (name, len(cuts), len(bounds), len(total)))


def main():
    prof, _src, build = sys.argv[1:4]
    perf = shutil.which("perf")
    if not perf:
        skip("perf is missing")
    light = not os.environ.get("PM_CUT_ALL")
    rng = random.Random(int(os.environ.get("PM_CUT_SEED", "12")))
    work = os.path.join(build, "tests", "perf", "cut_files")
    os.makedirs(work, exist_ok=True)
    pm = None
    pydir = os.path.join(build, "python")
    if os.path.isdir(os.path.join(pydir, "profileme")):
        sys.path.insert(0, pydir)
        try:
            import profileme as pm  # noqa: F811
        except Exception as e:  # a build without the binding
            print("python binding not importable (%s): its checks are skipped" % e)
            pm = None
    loop = ["sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"]
    files = {
        "perf": [perf, "record", "-q", "-e", "task-clock", "-c", "100000", "-o"],
        "profileme": [prof, "record", "-q", "-e", "task-clock", "-c", "100000", "-o"],
    }
    done = 0
    for name, argv in files.items():
        path = os.path.join(work, name + ".data")
        r = run(argv + [path, "--"] + loop)
        if r.returncode != 0:
            print("%s record failed here (%s): skipped" % (name, r.stderr.strip()[:200]))
            continue
        with open(path, "rb") as f:
            b = f.read()
        if (sample_type(b) & 7) != 7 or sample_type(b) & (1 << 16):
            # IP, TID, TIME first (what else there is comes after them),
            # or the byte walk above does not know where the fields are
            print("%s: sample_type 0x%x not the expected one: skipped" % (name, sample_type(b)))
            continue
        if sum(1 for x in perfdata.records(b) if x[1] == 9) < 10:
            print("%s: too few samples: skipped" % name)
            continue
        cut_and_check(prof, pm, work, name, b, rng, light)
        done += 1
    if not done:
        skip("no recording could be made")
    check.finish()


if __name__ == "__main__":
    main()
