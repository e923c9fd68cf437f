#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Runs one example program of examples/ on real inputs and checks its output.

usage: test_examples.py NAME EXAMPLE_BINARY WORKLOAD_BINARY SRCDIR
  count             count the bundled workload; compared with `perf stat` when perf is here
  sample            sample the workload; the top ips must fall in its hot functions (nm)
  read_perf_data    the bundled synthetic recording (counts from its sidecar) and a
                    recording made here by `perf record` (counts from `perf script`)
  decode_profileme  the bundled synthetic recording; histogram from its sidecar
Exit 77 (skipped, reason printed) where perf_event_open is not available.
$PM_EMULATOR ("qemu|-L|root") runs the binaries of a cross build.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NAME, EXE, WORKLOAD, SRC = sys.argv[1:5]
EMU = [a for a in os.environ.get("PM_EMULATOR", "").split("|") if a]
DATA = os.path.join(SRC, "examples", "data", "profileme-synthetic.data")
SIDECAR = os.path.join(SRC, "examples", "data", "profileme-synthetic.expected.json")
HOT = ("matrix_multiply", "hash_buffer", "sort_numbers", "cmp_u32")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=240, **kw)


def example(*args):
    p = run(EMU + [EXE] + list(args))
    if p.returncode == 77:
        print("SKIPPED: " + (p.stdout + p.stderr).strip())
        sys.exit(77)
    return p


def perf_usable():
    return not EMU and shutil.which("perf") is not None


# The workload runs a fixed number of rounds (-r), not a wall time: its CPU
# time is the same whatever the load, so two runs of it (ours and perf stat's)
# can be compared.  It prints its own CPU time (CLOCK_PROCESS_CPUTIME_ID) last.
ROUNDS = "120"
WORKLOAD_CPU = re.compile(r"^workload: (\d+) rounds, .*, cpu ([\d.]+) ms$", re.M)


def test_count():
    p = example(WORKLOAD, "-r", ROUNDS)
    check(p.returncode == 0, "count runs (rc %d: %s)" % (p.returncode, p.stderr.strip()))
    vals = {}
    for line in p.stdout.splitlines():
        m = re.match(r"(\S+)\s+(\d+)\s+scaled\s+(\d+)\s+enabled (\d+) ns\s+running (\d+) ns", line)
        if m:
            vals[m[1]] = [int(x) for x in m.groups()[1:]]
    check(set(vals) == {"task-clock", "page-faults"}, "both counts printed: %s" % sorted(vals))
    own = WORKLOAD_CPU.search(p.stdout)
    check(own is not None and own[1] == ROUNDS, "the workload ran its %s rounds: %s"
          % (ROUNDS, own and own[0]))
    if set(vals) != {"task-clock", "page-faults"} or own is None:
        return
    tc, pf = vals["task-clock"], vals["page-faults"]
    # task-clock counts the command's CPU time from its exec to its exit; the
    # workload's own clock read at the end of main() is that time less the
    # exec and exit (well under a millisecond of CPU each, whatever the load)
    self_ms, ms = float(own[2]), tc[0] / 1e6
    check(self_ms - 2 <= ms <= self_ms * 1.05 + 5,
          "task-clock %.2f ms == the workload's own CPU time %.2f ms (+ exec, exit)"
          % (ms, self_ms))
    check(pf[0] > 10, "page-faults %d" % pf[0])
    for name, (v, scaled, en, runn) in vals.items():
        want = v * en // runn if runn else 0
        check(abs(scaled - want) <= 1, "%s scaled %d == value * enabled / running %d"
              % (name, scaled, want))
        check(0 < runn <= en, "%s running %d <= enabled %d" % (name, runn, en))
    if perf_usable():
        q = run(["perf", "stat", "--no-inherit", "-x,", "-e", "task-clock,page-faults", WORKLOAD,
                 "-r", ROUNDS])  # count follows the process only, not its children
        ref = {}
        for line in q.stderr.splitlines():
            f = line.split(",")
            if len(f) > 2 and f[2] in ("task-clock", "page-faults"):
                ref[f[2]] = float(f[0])
        check(len(ref) == 2, "perf stat counts the same workload: %s" % q.stderr.strip()[-200:])
        if len(ref) == 2:
            check(abs(pf[0] - ref["page-faults"]) <= 0.3 * ref["page-faults"] + 20,
                  "page-faults %d close to perf stat's %d" % (pf[0], ref["page-faults"]))
            # the same work in another run: the same CPU time up to the
            # machine's noise (caches, frequency), not up to its load
            check(ref["task-clock"] / 2 <= ms <= ref["task-clock"] * 2,
                  "task-clock %.1f ms within 2x of perf stat's %.1f ms" % (ms, ref["task-clock"]))


def nm_ranges(path):
    out = run(["nm", "-S", "--defined-only", path]).stdout
    r = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            r.setdefault(f[3].split(".")[0], (int(f[0], 16), int(f[0], 16) + int(f[1], 16)))
    return r


def test_sample():
    p = example(WORKLOAD, "-r", "250")
    check(p.returncode == 0, "sample runs (rc %d: %s)" % (p.returncode, p.stderr.strip()))
    m = re.search(r"^(\d+) samples \(task-clock:u, period 100000 ns\), 0 unparsable", p.stdout, re.M)
    check(m is not None, "summary line printed: %s" % (m.group(0) if m else p.stdout[-300:]))
    total = int(m[1]) if m else 0
    # the workload's CPU time (its own clock, whatever the load) sampled every
    # 0.1 ms of it in user mode, where it spends nearly all of it
    own = WORKLOAD_CPU.search(p.stdout)
    cpu = float(own[2]) if own else 0
    check(own is not None and cpu / 0.1 * 0.5 <= total <= cpu / 0.1 + 20,
          "%d samples for %.1f ms of the workload's CPU time" % (total, cpu))
    rows = re.findall(r"^0x([0-9a-f]+)\s+(\d+)\s+[\d.]+%\s+(\S+)$", p.stdout, re.M)
    check(1 <= len(rows) <= 5, "%d top ips printed" % len(rows))
    counts = [int(r[1]) for r in rows]
    check(counts == sorted(counts, reverse=True) and sum(counts) <= total,
          "top ips sorted by count, summing to at most the total")
    syms = nm_ranges(WORKLOAD)
    hot = 0
    for ip, n, where in rows:
        mm = re.match(r"(.*)\+0x([0-9a-f]+)$", where)
        if mm and os.path.realpath(mm[1]) == os.path.realpath(WORKLOAD):
            off = int(mm[2], 16)
            if any(n in syms and syms[n][0] <= off < syms[n][1] for n in HOT):
                hot += 1
    check(hot >= 1, "%d of the top ips are inside the workload's hot functions (nm)" % hot)


def sidecar():
    with open(SIDECAR) as f:
        return json.load(f)["samples"]


def test_read_perf_data():
    p = example(DATA)
    check(p.returncode == 0, "read_perf_data reads the synthetic recording (%s)" % p.stderr.strip())
    want = collections.Counter(s["tid"] for s in sidecar())  # single-threaded: pid == tid
    got = {int(a): int(b) for a, b in re.findall(r"^pid (\d+) (\d+)$", p.stdout, re.M)}
    check(got == dict(want), "per-pid counts %s == the sidecar's %s" % (got, dict(want)))
    if not perf_usable():
        print("note: no perf here: the perf-recorded input is not checked")
        return
    tmp = tempfile.mkdtemp(prefix="pm_ex_")
    try:
        out = os.path.join(tmp, "perf.data")
        script = "%s 100; %s 100 & %s 60; wait" % (WORKLOAD, WORKLOAD, WORKLOAD)
        r = run(["perf", "record", "-q", "-e", "task-clock", "-c", "200000", "-o", out, "--",
                 "sh", "-c", script])
        if r.returncode != 0:
            print("note: perf record failed here (%s): the perf input is not checked"
                  % r.stderr.strip()[-200:])
            return
        ref = collections.Counter()
        for line in run(["perf", "script", "-i", out, "-F", "pid"]).stdout.split():
            ref[int(line)] += 1
        p = example(out)
        got = {int(a): int(b) for a, b in re.findall(r"^pid (\d+) (\d+)$", p.stdout, re.M)}
        check(p.returncode == 0 and len(got) >= 3, "read_perf_data on perf's file: %d pids"
              % len(got))
        check(got == dict(ref), "per-pid counts equal perf script's (%s vs %s)"
              % (got, dict(ref)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_decode_profileme():
    p = example()  # the default input: the bundled recording
    check(p.returncode == 0, "decode_profileme runs (%s)" % p.stderr.strip())
    check(p.stdout.startswith("SYNTHETIC data"), "the output is labelled synthetic")
    s = sidecar()
    good = [x for x in s if "raw_error" not in x]
    m = re.search(r"^(\d+) samples: (\d+) ProfileMe, (\d+) not ProfileMe", p.stdout, re.M)
    check(m and [int(g) for g in m.groups()] == [len(s), len(good), len(s) - len(good)],
          "sample counts %s == sidecar (%d, %d, %d)" % (m and m.groups(), len(s), len(good),
                                                      len(s) - len(good)))
    want = collections.Counter(x["expected"]["trap"] for x in good)
    got = {}
    for name, n in re.findall(r"^  (.+?)\s+(\d+)$", p.stdout, re.M):
        got[name] = int(n)
    check(got == dict(want), "trap histogram %s == the sidecar's %s" % (got, dict(want)))
    mis = sum(1 for x in good if x["expected"]["mispredicted"])
    kil = sum(1 for x in good if x["fields"]["killed"])
    check(("mispredicted %d, killed %d" % (mis, kil)) in p.stdout,
          "mispredicted %d, killed %d as in the sidecar" % (mis, kil))


{"count": test_count, "sample": test_sample, "read_perf_data": test_read_perf_data,
 "decode_profileme": test_decode_profileme}[NAME]()
if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
