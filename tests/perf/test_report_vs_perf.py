#!/usr/bin/python3
"""profileme report --sort sym --json against perf report --stdio -n.

Records build/bin/workload 800 with the real perf tool and with
`profileme record` (perf record -e task-clock -c 100000), then compares the
per-symbol sample counts: exact equality for the workload's own symbols, its
shared libraries, PLT slots (`name@plt`, `@plt`), the vDSO and (when kallsyms
is readable) the kernel (docs/symbol.md).  usage: test_report_vs_perf.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from harness import Checks, skip  # noqa: E402

check = Checks()

PM, SRC, BLD = sys.argv[1:4]
WORKLOAD = os.path.join(BLD, "bin", "workload")


if not shutil.which("perf"):
    skip("no perf tool")
if not os.path.exists(WORKLOAD):
    skip("no %s" % WORKLOAD)

ROW = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(.*?)\s*$")


def perf_rows(data, sort):
    """perf report --stdio -n rows as lists of column strings."""
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "-n", "--sort", sort],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = ROW.match(line)
        if m:
            rows.append((int(m.group(2)), m.group(3)))
    return rows


def pm_json(data, sort):
    p = subprocess.run([PM, "report", "-q", "-i", data, "--sort", sort, "--json"],
                       capture_output=True, text=True)
    check(p.returncode == 0, "profileme report %s exited %d: %s" % (sort, p.returncode, p.stderr))
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def compare(data, label):
    # perf: dso,sym gives the module of each symbol; sym alone the counts asked for.
    module_of, multi = {}, set()
    for n, rest in perf_rows(data, "dso,sym"):
        m = re.match(r"(\S+)\s+\[(.)\]\s+(.*)$", rest)
        if m:
            if module_of.setdefault(m.group(3), (m.group(1), m.group(2)))[0] != m.group(1):
                multi.add(m.group(3))   # e.g. _start in the program and in ld.so
    perf_sym = {}
    for n, rest in perf_rows(data, "sym"):
        m = re.match(r"\[(.)\]\s+(.*)$", rest)
        if m:
            perf_sym[m.group(2)] = perf_sym.get(m.group(2), 0) + n
    rows = pm_json(data, "sym")
    check(rows and all(set(r) >= {"samples", "overhead", "sym"} for r in rows),
          "%s: json rows lack samples/overhead/sym" % label)
    pm_sym = {}
    for r in rows:
        pm_sym[r["sym"]] = pm_sym.get(r["sym"], 0) + r["samples"]
    check(sum(pm_sym.values()) == sum(perf_sym.values()),
          "%s: total %d vs perf %d" % (label, sum(pm_sym.values()), sum(perf_sym.values())))
    # kallsyms readable by us?  (perf runs as the same user)
    kernel_ok = True
    try:
        with open("/proc/kallsyms") as f:
            kernel_ok = any(not l.startswith("0000000000000000") for l in f)
    except OSError:
        kernel_ok = False
    n_work = n_lib = n_kern = 0
    aliases = []
    for name, n in sorted(perf_sym.items()):
        dso, level = module_of.get(name, ("?", "?"))
        if name in multi:
            continue        # module totals below
        if name.startswith("0x"):
            continue        # raw addresses
        if name == "_init":
            # documented: _init has size 0; perf stretches it to the next
            # symbol, over .plt and .plt.got, while profileme stops it at the
            # end of .init (a .plt.got sample is `[unknown]` in the module);
            # the module totals below still cover these samples.
            continue
        if level == "k" and not kernel_ok:
            continue
        got = pm_sym.get(name, 0)
        if dso == "workload":
            n_work += 1
        elif level == "k":
            n_kern += 1
        else:
            n_lib += 1
        if got == 0 and dso != "workload" and level != "k":
            # perf and profileme name this address differently (alias choice,
            # e.g. __GI___libc_write / write): the module totals below cover it.
            aliases.append(name)
            continue
        check(got == n, "%s: %s (%s) profileme %d, perf %d" % (label, name, dso, got, n))
    check(n_work >= 4, "%s: only %d workload symbols compared" % (label, n_work))
    for hot in ("matrix_multiply", "cmp_u32"):
        check(pm_sym.get(hot, 0) > 0, "%s: no samples in %s" % (label, hot))
    print("%s: %d workload, %d library, %d kernel symbols equal to perf" %
          (label, n_work, n_lib, n_kern))
    if aliases:
        print("%s: named differently by perf (aliases): %s" % (label, ", ".join(aliases)))
    # Per module: exact totals (PLT stubs, aliases and unknowns stay in their module).
    perf_mod = {}
    for n, rest in perf_rows(data, "dso"):
        perf_mod[rest.split()[0]] = perf_mod.get(rest.split()[0], 0) + n
    pm_mod = {}
    for r in pm_json(data, "dso"):
        pm_mod[r["dso"]] = pm_mod.get(r["dso"], 0) + r["samples"]
    # perf resolves kernel addresses only through a kernel MMAP record, which
    # profileme record does not write: perf shows them in [unknown], profileme
    # (kallsyms) in [kernel.kallsyms].  Compare the two together.
    for d in (perf_mod, pm_mod):
        d["[kernel.kallsyms]"] = d.get("[kernel.kallsyms]", 0) + d.pop("[unknown]", 0)
    for mod, n in sorted(perf_mod.items()):
        if mod.startswith("[kernel") and not kernel_ok:
            continue
        check(pm_mod.get(mod, 0) == n, "%s: module %s profileme %d, perf %d" %
              (label, mod, pm_mod.get(mod, 0), n))
    # dso,sym rows name the module by its basename, like perf
    mods = {r["dso"] for r in pm_json(data, "dso,sym")}
    check("workload" in mods and "libc.so.6" in mods, "%s: modules %s" % (label, sorted(mods)))


tmp = tempfile.mkdtemp(prefix="pm-report-")
try:
    d1 = os.path.join(tmp, "perf.data")
    p = subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", d1,
                        "--", WORKLOAD, "800"], capture_output=True, text=True)
    if p.returncode:
        skip("perf record failed: " + p.stderr[-500:])
    compare(d1, "perf record")
    d2 = os.path.join(tmp, "pm.data")
    p = subprocess.run([PM, "record", "-q", "-e", "task-clock", "-c", "100000", "-o", d2,
                        "--", WORKLOAD, "800"], capture_output=True, text=True)
    check(p.returncode == 0, "profileme record failed: " + p.stderr[-500:])
    if p.returncode == 0:
        compare(d2, "profileme record")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
