#!/usr/bin/python3
"""The one symbolization policy (docs/symbol.md): `profileme script -F sym`,
`profileme report` and Python `symbolize()` give the same symbol for every
sample of the same recordings, and perf is the oracle where it names them.

Recordings: a real `perf record` of a shell script that execs
build/bin/workload (the shell's samples before the exec belong to dash, the
later ones of the same pid to workload: perf script says which, per sample),
of pm_symwork (PLT slots: perf report shows `ffs@plt`; the vDSO: perf shows
`__vdso_clock_gettime` in `[vdso]`), and the bundled synthetic recordings of
examples/data.  A copy of the exec recording whose OSRELEASE feature names
another kernel must not be symbolized with this machine's kallsyms, by
script, report or Python.
usage: test_symbols_agree.py PROFILEME SRCDIR BUILDDIR
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import json

from harness import Checks, import_binding, skip  # noqa: E402

check = Checks()

PM, SRC, BLD = sys.argv[1:4]
WORKLOAD = os.path.join(BLD, "bin", "workload")
SYMWORK = os.path.join(BLD, "bin", "pm_symwork")


for need in (WORKLOAD, SYMWORK):
    if not os.path.exists(need):
        skip("no %s" % need)
profileme = import_binding(BLD)
import numpy as np  # noqa: E402 - after import_binding, which skips without numpy

LINE = re.compile(r"^\s*(\d+)\s+(\d+)\.(\d+):\s+([0-9a-f]+)\s+(.*) \((.*)\)$")


def script_rows(data, extra=()):
    """(pid, time ns, ip) -> (sym, dso) from profileme script, per sample."""
    p = subprocess.run([PM, "script", "-i", data, "-F", "pid,time,ip,sym,dso", "--ns"] + list(extra),
                       capture_output=True, text=True)
    check(p.returncode == 0, "script %s: exit %d %s" % (data, p.returncode, p.stderr[-300:]))
    rows = []
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if check(m is not None, "script line not parsed: %r" % line):
            rows.append(((int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3)), int(m.group(4), 16)),
                         (m.group(5), m.group(6))))
    return rows


def perf_script_rows(data):
    p = subprocess.run(["perf", "script", "-i", data, "-F", "pid,time,ip,sym,dso", "--ns"],
                       capture_output=True, text=True)
    rows = []
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if m:
            rows.append(((int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3)), int(m.group(4), 16)),
                         (m.group(5), m.group(6))))
    return rows


def report_counts(data, extra=()):
    """(pid, sym, dso basename) -> samples from profileme report."""
    p = subprocess.run([PM, "report", "-q", "-i", data, "--sort", "pid,sym,dso", "--json"] + list(extra),
                       capture_output=True, text=True)
    check(p.returncode == 0, "report %s: exit %d %s" % (data, p.returncode, p.stderr[-300:]))
    c = collections.Counter()
    for line in p.stdout.splitlines():
        if line.strip():
            r = json.loads(line)
            c[(r["pid"], r["sym"], r["dso"])] += r["samples"]
    return c


def base(dso):
    return dso if dso.startswith("[") else os.path.basename(dso)


def python_syms(data, attributed=False, **kw):
    rec = profileme.open(data)
    s = rec.samples()
    sym, dso, _ = rec.symbolize(s, attributed=attributed, **kw)
    return s, sym, dso


def agree(data, label, symfs=None, kallsyms=None, attributed_report=False):
    """script == Python per sample; report == Python (pid, sym, dso) counts."""
    extra = []
    kw = {}
    if symfs:
        extra += ["--symfs", symfs]
        kw["symfs"] = symfs
    if kallsyms:
        extra += ["--kallsyms", kallsyms]
        kw["kallsyms"] = kallsyms
    srows = script_rows(data, extra)
    s, sym, dso = python_syms(data, **kw)
    py = collections.Counter()
    for i in range(len(s)):
        py[((int(s["pid"][i]), int(s["time"][i]), int(s["ip"][i])), (sym[i], dso[i]))] += 1
    sc = collections.Counter(srows)
    check(len(srows) == len(s) and len(s) > 0, "%s: script %d rows, python %d" % (label, len(srows), len(s)))
    diff = (sc - py) + (py - sc)
    ok = check(not diff, "%s: script and python differ on %d samples, e.g. %s" %
          (label, sum(diff.values()), list(diff.items())[:3]))
    # report charges ProfileMe samples at the profiled pc: Python's attributed rule
    if attributed_report:
        s, sym, dso = python_syms(data, attributed=True, **kw)
    pyc = collections.Counter((int(s["pid"][i]), sym[i], base(dso[i])) for i in range(len(s)))
    rc = report_counts(data, extra)
    diff = (rc - pyc) + (pyc - rc)
    check(not diff, "%s: report and python differ: %s" % (label, list(diff.items())[:4]))
    if ok and not diff:
        print("%s: %d samples, script == python == report" % (label, len(s)))
    return srows


tmp = tempfile.mkdtemp(prefix="pm-symagree-")
try:
    have_perf = shutil.which("perf") is not None
    if have_perf:
        # 1. a process that execs: dash spins, then execs workload (same pid)
        sh = os.path.join(tmp, "ex.sh")
        with open(sh, "w") as f:
            f.write("i=0\nwhile [ $i -lt 30000 ]; do i=$((i+1)); done\nexec %s 300\n" % WORKLOAD)
        ex = os.path.join(tmp, "ex.data")
        p = subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", ex,
                            "--", "/bin/sh", sh], capture_output=True, text=True)
        if p.returncode:
            have_perf = False
            print("perf record failed (%s): perf legs skipped" % p.stderr[-200:])
    if have_perf:
        srows = agree(ex, "exec recording")
        # perf script is the oracle for the module of every user sample
        prow = dict(perf_script_rows(ex))
        mods = collections.Counter()
        bad = 0
        for key, (sym, dso) in srows:
            if key[2] >> 63 or key not in prow:
                continue
            mods[base(dso)] += 1
            if prow[key][1] != dso:
                bad += 1
                if bad <= 3:
                    print("  perf %s, profileme %s at %s" % (prow[key], (sym, dso), key))
        check(bad == 0, "exec recording: %d user samples in another module than perf's" % bad)
        check(mods["dash"] > 0 and mods["workload"] > 0,
              "exec recording: samples before (dash) and after (workload) the exec: %s" % dict(mods))
        # the pre-exec samples are charged to dash in Python too (time matters)
        s, sym, dso = python_syms(ex)
        pids = {int(p_) for p_, d in zip(s["pid"], dso) if d.endswith("/workload")}
        both = [d for p_, d in zip(s["pid"], dso) if int(p_) in pids]
        check(any(d.endswith("/dash") for d in both),
              "exec recording: Python charges no sample of the exec'ing pid to dash")

        # 2. PLT slots and the vDSO, named as perf report names them
        for what, want, wdso in (("plt", "ffs@plt", "pm_symwork"),
                                 ("vdso", "__vdso_clock_gettime", "[vdso]")):
            d = os.path.join(tmp, what + ".data")
            p = subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "50000", "-o", d,
                                "--", SYMWORK, what, "300"], capture_output=True, text=True)
            if not check(p.returncode == 0, "perf record %s: %s" % (what, p.stderr[-200:])):
                continue
            out = subprocess.run(["perf", "report", "-i", d, "--stdio", "-n", "--sort", "dso,sym"],
                                 capture_output=True, text=True).stdout
            perf_n = 0
            for line in out.splitlines():
                m = re.match(r"^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[.\]\s+(.*?)\s*$", line)
                if m and m.group(2) == wdso and m.group(3) == want:
                    perf_n = int(m.group(1))
            pm_n = sum(n for (pid, sym, dso), n in report_counts(d).items() if sym == want and dso == wdso)
            if what == "plt" and perf_n == 0:
                print("perf report shows no %s sample (too few samples in the slot): count unchecked" % want)
            else:
                check(perf_n > 0 and pm_n == perf_n, "%s: profileme %d, perf %d samples in %s (%s)" %
                      (what, pm_n, perf_n, want, wdso))
            agree(d, what + " recording")

        # 3. a foreign kernel: the same recording, OSRELEASE rewritten
        rel = os.uname().release.encode()
        blob = open(ex, "rb").read()
        fake = bytes(reversed(rel)) if bytes(reversed(rel)) != rel else b"x" * len(rel)
        check(blob.count(rel) >= 1, "exec recording: OSRELEASE %r not found" % rel)
        fx = os.path.join(tmp, "foreign.data")
        with open(fx, "wb") as f:
            f.write(blob.replace(rel, fake))
        kernel_named = [k for k, (sym, dso) in srows if k[2] >> 63 and sym != "[unknown]"]
        readable = bool(kernel_named)
        frows = script_rows(fx)
        fk = [(k, v) for k, v in frows if k[2] >> 63]
        check(fk and all(v[0] == "[unknown]" for k, v in fk),
              "foreign recording: script names kernel samples with this machine's kallsyms: %s" %
              [v for k, v in fk if v[0] != "[unknown]"][:3])
        rc = report_counts(fx)
        check(not [k for k in rc if k[2] == "[kernel.kallsyms]" and k[1] != "[unknown]"],
              "foreign recording: report names kernel samples")
        s, sym, dso = python_syms(fx)
        kern = s["ip"] >> np.uint64(63) == 1
        check(kern.any() and all(x == "[unknown]" for x in sym[kern]),
              "foreign recording: Python names kernel samples")
        agree(fx, "foreign recording")
        print("foreign recording: %d kernel samples [unknown] (named in the original: %s)" %
              (len(fk), "yes" if readable else "kallsyms unreadable here"))
    else:
        print("no perf: only the bundled recordings")

    # 4. the bundled synthetic recordings, with their symfs
    data = os.path.join(SRC, "examples", "data")
    symfs = os.path.join(data, "symfs")
    ks = os.path.join(symfs, "kallsyms")
    for name in ("profileme-synthetic.data", "ibs-synthetic.data"):
        agree(os.path.join(data, name), name, symfs=symfs, kallsyms=ks if os.path.exists(ks) else None,
              attributed_report=True)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
