#!/usr/bin/python3
"""A synthetic recording's sidecar (pm_sym_opts.path, docs/symbol.md): with
no --symfs / --kallsyms, `profileme script -F sym`, `profileme report` and
Python `to_pandas(symbols=True)` all take the symbols from
<directory of the recording>/symfs and its kallsyms, and name every sample
of the synthetic ProfileMe and IBS recordings the same (and so do the
folded export of `script --folded` and Python `folded()`).  The expectations
come from each generator's sidecar (.expected.json): the function of
`meta.functions` that holds the sample ip (script, unattributed Python) and
the generator's charged function (report, attributed Python).

A real perf recording placed next to a symfs directory does not use it: no
notice, and Python names its samples as a copy of it without the directory.
usage: test_synthetic_sidecar.py PROFILEME SRCDIR BUILDDIR
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import Checks, import_binding  # noqa: E402

check = Checks()

PM, SRC, BLD = sys.argv[1:4]
profileme = import_binding(BLD)
DATA = os.path.join(SRC, "examples", "data")
SYMFS = os.path.abspath(os.path.join(DATA, "symfs"))


def fn_of(meta, ip):
    """The generator's function holding ip, or "[unknown]"."""
    for f in meta["functions"]:
        if f["start"] <= ip < f["end"]:
            return f["name"]
    return "[unknown]"


def charged(s):
    """The generator's charged function of a sample (what report sorts by)."""
    if "attribution" in s:  # ProfileMe
        if s["attribution"]["charge"] == "PALcode":
            return "[PALcode]"
        return s["symbol"] or "[unknown]"
    if "expected" in s:  # IBS
        return s["expected"]["charge_symbol"] or "[unknown]"
    return s["symbol"] or "[unknown]"


def notice(cmd, d):
    sd = os.path.join(d, "symfs")
    return "profileme %s: synthetic recording: symbols from %s and %s" % (cmd, sd, os.path.join(sd, "kallsyms"))


def script_pairs(data):
    p = subprocess.run([PM, "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True)
    check(p.returncode == 0, "script %s: exit %d %s" % (data, p.returncode, p.stderr[-300:]))
    rows = collections.Counter()
    for line in p.stdout.splitlines():
        parts = line.split(None, 1)
        if check(len(parts) == 2, "script line not parsed: %r" % line):
            rows[(int(parts[0], 16), parts[1].strip())] += 1
    return rows, p.stderr


def report_counts(data, quiet=True):
    p = subprocess.run([PM, "report", "-i", data, "--sort", "sym", "--json"] + (["-q"] if quiet else []),
                       capture_output=True, text=True)
    check(p.returncode == 0, "report %s: exit %d %s" % (data, p.returncode, p.stderr[-300:]))
    c = collections.Counter()
    for line in p.stdout.splitlines():
        if line.strip():
            r = json.loads(line)
            c[r["sym"]] += r["samples"]
    return c, p.stderr


def sidecar_case(data, side, label):
    exp = json.load(open(side))
    meta, samples = exp["meta"], exp["samples"]
    d = os.path.dirname(data)
    want_ip = collections.Counter((s["ip"], fn_of(meta, s["ip"])) for s in samples)
    want_charge = collections.Counter(charged(s) for s in samples)
    check(sum(1 for (_, n) in want_ip if n != "[unknown]") >= 5,
          "%s: the sidecar names too few functions" % label)

    sc, err = script_pairs(data)
    check(notice("script", d) in err, "%s: script notice missing: %r" % (label, err[-300:]))
    diff = (sc - want_ip) + (want_ip - sc)
    check(not diff, "%s: script -F ip,sym differs from the sidecar on %d samples, e.g. %s"
          % (label, sum(diff.values()), list(diff.items())[:4]))

    rc, _ = report_counts(data)
    diff = (rc - want_charge) + (want_charge - rc)
    check(not diff, "%s: report --sort sym differs from the sidecar: %s" % (label, list(diff.items())[:4]))
    _, err = report_counts(data, quiet=False)
    check(notice("report", d) in err, "%s: report notice missing: %r" % (label, err[-300:]))

    rec = profileme.open(data)
    df = rec.to_pandas(symbols=True, attribution=False)
    py = collections.Counter(zip((int(x) for x in df["ip"]), (str(x) for x in df["sym"])))
    diff = (py - want_ip) + (want_ip - py)
    check(not diff, "%s: to_pandas(symbols=True, attribution=False) differs from the sidecar: %s"
          % (label, list(diff.items())[:4]))
    df = profileme.open(data).to_pandas(symbols=True)
    pyc = collections.Counter(str(x) for x in df["sym"])
    diff = (pyc - rc) + (rc - pyc)
    check(not diff, "%s: to_pandas(symbols=True) and report differ: %s" % (label, list(diff.items())[:4]))
    # the folded export (pm_export_opts.path): leaves charged as report does
    p = subprocess.run([PM, "script", "--folded", "-i", data], capture_output=True, text=True)
    check(p.returncode == 0, "%s: script --folded exit %d %s" % (label, p.returncode, p.stderr[-300:]))
    # the exporters say where the symbols came from, in report's words, once
    check(p.stderr.count(notice("script", d)) == 1 and p.stderr.count("synthetic recording:") == 1,
          "%s: script --folded notice: %r" % (label, p.stderr[-300:]))
    texts = [("script --folded", p.stdout), ("python folded()", profileme.open(data).folded())]
    for to in ("folded", "pprof"):
        out = os.path.join(tmp, "convert.out")
        q = subprocess.run([PM, "convert", "--to", to, "-i", data, "-o", out], capture_output=True,
                           text=True)
        if to == "pprof" and q.returncode and "without pprof support" in q.stderr:
            continue
        check(q.returncode == 0, "%s: convert --to %s exit %d %s"
              % (label, to, q.returncode, q.stderr[-300:]))
        check(q.stderr.count(notice("convert", d)) == 1 and q.stderr.count("synthetic recording:") == 1,
              "%s: convert --to %s notice: %r" % (label, to, q.stderr[-300:]))
        # and whether the output itself is labelled (a pprof comment; folded
        # stacks have no place for one)
        check(("SYNTHETIC recording (%s)" % ("the profile says so in a comment" if to == "pprof" else
                                             "folded stacks have no place to say so")) in q.stderr,
              "%s: convert --to %s says whether the output is labelled: %r" % (label, to, q.stderr[-300:]))
        q = subprocess.run([PM, "convert", "-q", "--to", to, "-i", data, "-o", out],
                           capture_output=True, text=True)
        check(q.returncode == 0 and q.stderr == "", "%s: convert -q --to %s says nothing: %r"
              % (label, to, q.stderr[-300:]))
        if to == "folded":
            with open(out) as fh:
                texts.append(("convert --to folded", fh.read()))
    for who, text in texts:
        fc = collections.Counter()
        for line in text.splitlines():
            stack, n = line.rsplit(" ", 1)
            fc[stack.split(";")[-1]] += int(n)
        diff = (fc - want_charge) + (want_charge - fc)
        check(not diff, "%s: %s leaves differ from the sidecar: %s" % (label, who, list(diff.items())[:4]))
    # opened from a file object: no path, no sidecar (docs/python.md)
    with open(data, "rb") as fh:
        df = profileme.open(fh).to_pandas(symbols=True, attribution=False)
    check(set(str(x) for x in df["sym"]) <= {"[unknown]", "[PALcode]"},
          "%s: a recording opened from a file object used a sidecar" % label)
    print("%s: %d samples checked: script, report, python against the sidecar" % (label, len(samples)))


tmp = tempfile.mkdtemp(prefix="pm-sidecar-")
try:
    # the bundled recordings
    for name in ("profileme", "ibs"):
        sidecar_case(os.path.join(DATA, name + "-synthetic.data"),
                     os.path.join(DATA, name + "-synthetic.expected.json"), "bundled " + name)
    # fresh ones from the generators, with a symfs next to them
    for name, gen in (("profileme", "gen_profileme.py"), ("ibs", "gen_ibs.py")):
        d = os.path.join(tmp, name)
        os.mkdir(d)
        os.symlink(SYMFS, os.path.join(d, "symfs"))
        data, side = os.path.join(d, "x.data"), os.path.join(d, "x.expected.json")
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests", "gen", gen), data,
                        "--expected", side, "--seed", "11"], check=True)
        sidecar_case(data, side, "generated " + name)

    # a real recording next to a symfs directory: not used
    workload = os.path.join(BLD, "bin", "workload")
    if shutil.which("perf") and os.path.exists(workload):
        a, b = os.path.join(tmp, "real-a"), os.path.join(tmp, "real-b")
        os.mkdir(a)
        os.mkdir(b)
        os.symlink(SYMFS, os.path.join(a, "symfs"))
        ra, rb = os.path.join(a, "perf.data"), os.path.join(b, "perf.data")
        p = subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", ra,
                            "--", workload, "200"], capture_output=True, text=True)
        if p.returncode == 0:
            shutil.copy(ra, rb)
            for cmd in (["script", "-F", "ip,sym"], ["report", "--sort", "sym"], ["script", "--folded"],
                        ["convert", "--to", "folded", "-o", os.path.join(tmp, "real.folded")]):
                q = subprocess.run([PM] + cmd + ["-i", ra], capture_output=True, text=True)
                check(q.returncode == 0 and "synthetic recording" not in q.stderr,
                      "real recording: %s used the symfs next to it: %r" % (cmd[0], q.stderr[-300:]))
            sa = [str(x) for x in profileme.open(ra).to_pandas(symbols=True)["sym"]]
            sb = [str(x) for x in profileme.open(rb).to_pandas(symbols=True)["sym"]]
            check(sa == sb and any(x != "[unknown]" for x in sb),
                  "real recording: Python names differ next to a symfs (%d named without it)"
                  % sum(x != "[unknown]" for x in sb))
            print("real recording: the symfs next to it is not used (%d samples)" % len(sa))
        else:
            print("perf record failed (%s): the real-recording case not run" % p.stderr[-200:])
    else:
        print("no perf or workload: the real-recording case not run")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
