#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""`profileme script -j N` (issue 20) gives exactly what -j 1 gives: the same
stdout, the same stderr (damage messages in the same order), the same exit
code, for every output form, on real perf recordings made here (task-clock
flat, -g, -z, pipe mode, two processes at once so that the CPUs' rings
overlap in time), on cut and damaged copies of one, and on SYNTHETIC
ProfileMe and IBS recordings (tests/gen).  PROFILEME_JOBS_CHUNK_BYTES makes
these small files many chunks; PROFILEME_JOBS_VERBOSE=1 makes -j say how many
and how they are read, so that the test knows the threads ran: a file the
library's index makes one chunk (pipe, -z, cut files the index cannot scan)
is read as with -j 1, and the test checks that it says nothing then.

The oracle is -j 1 (itself checked against perf script in
test_script_vs_perf.py).

usage: test_script_jobs.py PROFILEME SRCDIR BUILDDIR
"""
import os
import random
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata  # noqa: E402

from harness import Checks, skip  # noqa: E402

check = Checks()
VERBOSE = re.compile(r"^\S+ script: (\d+) chunks on (\d+) threads \((\w+)\)\n", re.M)

FORMS = [
    ["-F", "tid,time,ip"],
    [],
    ["-F", "tid,time,ip,sym,dso"],
    ["-F", "comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso,raw"],
    ["--json"],
    ["--json", "--all"],
    ["-D"],
    ["--raw-order", "-F", "tid,time,ip"],
    ["--header"],
]


def run(argv, env=None, merged=False):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          env=e)


def compare(prof, path, label, forms, chunk_bytes, want_chunks, jobs=(2,)):
    """-j N against -j 1 for each form.  want_chunks: the file must be
    several chunks (True), one (False), or either (None)."""
    env = {"PROFILEME_JOBS_CHUNK_BYTES": str(chunk_bytes)}
    for form in forms:
        one = run([prof, "script", "-i", path] + form, env)
        for j in jobs:
            r = run([prof, "script", "-i", path, "-j", str(j)] + form,
                    dict(env, PROFILEME_JOBS_VERBOSE="1"))
            err = r.stderr.decode(errors="replace")
            m = VERBOSE.search(err)
            err_plain = VERBOSE.sub("", err)
            what = "%s -j %d %s" % (label, j, " ".join(form) or "(default fields)")
            check(r.stdout == one.stdout,
                  "%s: stdout differs from -j 1 (%d / %d bytes)" %
                  (what, len(r.stdout), len(one.stdout)))
            check(err_plain == one.stderr.decode(errors="replace"),
                  "%s: stderr differs: %r / %r" % (what, err_plain[-300:],
                                                   one.stderr.decode(errors="replace")[-300:]))
            check(r.returncode == one.returncode,
                  "%s: exit %d, -j 1 %d" % (what, r.returncode, one.returncode))
            if "--header" in form:
                check(not m, "%s: --header is read once, not in chunks" % what)
                continue
            if want_chunks is True:
                if check(m is not None and int(m.group(1)) > 1,
                         "%s: not read in chunks (%r)" % (what, err[:200])):
                    threads = min(j, int(m.group(1)))
                    check(int(m.group(2)) == threads, "%s: %s threads, want %d" %
                          (what, m.group(2), threads))
                    stateless = form in (["-F", "tid,time,ip"],)
                    check(m.group(3) == ("chunks" if stateless else "stream"),
                          "%s: read as %s" % (what, m.group(3)))
            elif want_chunks is False:
                check(m is None, "%s: a one-chunk file, read in chunks: %r" % (what, err[:200]))
    # one file for stdout and stderr: the messages in the same places
    one = run([prof, "script", "-i", path], env, merged=True)
    r = run([prof, "script", "-i", path, "-j", "2"], env, merged=True)
    check(r.stdout == one.stdout and r.returncode == one.returncode,
          "%s: stdout and stderr in one file differ from -j 1" % label)


def record(argv, path):
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return r.returncode == 0 and os.path.exists(path) and os.path.getsize(path) > 4096


def damaged_copies(work, name, b, rng):
    """Cuts at record boundaries and inside records, and a record header
    overwritten (a size that is not a multiple of 8, an unknown type)."""
    h = perfdata.header(b)
    do, dn = h["data"]
    recs = [x for x in perfdata.records(b) if do < x[0] < do + dn]
    out = []
    picks = sorted(rng.sample(recs, min(2, len(recs))))
    for i, (off, _t, _s) in enumerate(picks):
        out.append(("%s.cut%d" % (name, i), b[:off]))
        out.append(("%s.cutin%d" % (name, i), b[:off + 12]))
    mid = recs[len(recs) // 2][0]
    bad = bytearray(b)
    struct.pack_into("<H", bad, mid + 6, 13)  # size not a multiple of 8
    out.append(("%s.badsize" % name, bytes(bad)))
    bad = bytearray(b)
    struct.pack_into("<IH", bad, mid, 0x7777, 8)  # unknown type, smallest size
    out.append(("%s.badtype" % name, bytes(bad)))
    bad = bytearray(b)
    late = recs[(3 * len(recs)) // 4][0]
    struct.pack_into("<H", bad, late + 6, 0)  # a zero size late in the file
    out.append(("%s.zerosize" % name, bytes(bad)))
    paths = []
    for n, data in out:
        p = os.path.join(work, n + ".data")
        with open(p, "wb") as f:
            f.write(data)
        paths.append((n, p))
    return paths


def opts(prof, path):
    """The spellings of -j, and the bad values."""
    env = {"PROFILEME_JOBS_CHUNK_BYTES": "200000", "PROFILEME_JOBS_VERBOSE": "1"}
    base = run([prof, "script", "-i", path, "-F", "tid,time,ip"]).stdout
    for sp in (["-j", "2"], ["-j2"], ["--jobs", "2"], ["--jobs=2"]):
        r = run([prof, "script", "-i", path, "-F", "tid,time,ip"] + sp, env)
        check(r.returncode == 0 and r.stdout == base and VERBOSE.search(r.stderr.decode()),
              "script %s: exit %d, same output %s" % (" ".join(sp), r.returncode,
                                                      r.stdout == base))
    for sp in (["-j", "0"], ["-j", "x"], ["-j"], ["--jobs=-1"], ["-j", "2x"], ["-j", "5000"]):
        r = run([prof, "script", "-i", path] + sp)
        check(r.returncode == 2 and (b"-j" in r.stderr or b"--jobs" in r.stderr),
              "script %s: exit %d (want 2 and a message), %r" %
              (" ".join(sp), r.returncode, r.stderr[:200]))
    r = run([prof, "script", "-h"])
    check(b"-j N" in r.stdout, "script -h names -j N")


def main():
    prof, src, build = sys.argv[1:4]
    perf = shutil.which("perf")
    if not perf:
        skip("perf is missing")
    work = os.path.join(build, "tests", "perf", "script_jobs")
    os.makedirs(work, exist_ok=True)
    wl = os.path.join(build, "bin", "workload")
    if not os.access(wl, os.X_OK):
        skip("the workload (%s) is not built" % wl)
    rng = random.Random(int(os.environ.get("PM_JOBS_SEED", "20")))
    rec = [perf, "record", "-q", "-e", "task-clock", "-c", "5000"]
    files = [
        ("flat", rec, True),
        ("g", rec + ["-g"], True),
        ("z", rec + ["-z"], False),
        ("two", rec, True),
    ]
    made = {}
    for name, argv, chunked in files:
        path = os.path.join(work, name + ".data")
        cmd = [wl]
        if name == "two":  # two processes on the CPUs at once
            cmd = ["sh", "-c", "%s >/dev/null & %s >/dev/null; wait" % (wl, wl)]
        if not record(argv + ["-o", path, "--"] + cmd, path):
            print("%s: perf record failed here: skipped" % name)
            continue
        made[name] = path
        compare(prof, path, name, FORMS if name in ("flat", "g") else FORMS[:6], 150000,
                chunked)
    if not made:
        skip("no recording could be made")
    pipe = os.path.join(work, "pipe.data")
    with open(pipe, "wb") as f:
        r = subprocess.run(rec + ["-o", "-", "--", wl], stdout=f, stderr=subprocess.DEVNULL)
    if r.returncode == 0:
        compare(prof, pipe, "pipe", FORMS[:6], 150000, False)
        # and from stdin
        with open(pipe, "rb") as f:
            one = subprocess.run([prof, "script", "-i", "-"], stdin=f, capture_output=True)
        with open(pipe, "rb") as f:
            two = subprocess.run([prof, "script", "-i", "-", "-j", "2"], stdin=f,
                                 capture_output=True)
        check(one.stdout == two.stdout and one.returncode == two.returncode,
              "pipe on stdin: -j 2 differs from -j 1")
    if "flat" in made:
        with open(made["flat"], "rb") as f:
            b = f.read()
        for n, p in damaged_copies(work, "flat", b, rng):
            compare(prof, p, n, [FORMS[0], FORMS[1], FORMS[5]], 150000, None)
        opts(prof, made["flat"])
    # SYNTHETIC recordings: ProfileMe (Alpha) and IBS, their raw payloads decoded
    for gen, n in (("gen_profileme.py", "profileme"), ("gen_ibs.py", "ibs")):
        p = os.path.join(work, "synthetic_%s.data" % n)
        r = subprocess.run(["/usr/bin/python3", os.path.join(src, "tests", "gen", gen), p,
                            "--samples", "6000"], capture_output=True)
        if not check(r.returncode == 0, "%s failed: %r" % (gen, r.stderr[-300:])):
            continue
        compare(prof, p, "synthetic " + n, FORMS, 32768, True, jobs=(2, 3))
    check.finish()


if __name__ == "__main__":
    main()
