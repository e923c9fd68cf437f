#!/usr/bin/python3
"""profileme report -g against perf report --stdio -g.

1. Byte for byte: a small multi-function C program written and compiled here
   (gcc -O0 -fno-omit-frame-pointer), recorded with `perf record -g -e
   task-clock` and with `-e task-clock:u`; `profileme report -g` and `perf
   report --stdio` print the same text in the graph mode of perf 6.1: both
   orders (caller, callee, and each mode's default), --children and
   --no-children, --percent-limit 5 and 0.  Normalised, as docs/report.md
   says: the comment lines ("#") other than the two column header lines;
   a symbol that perf names and libprofileme does not (a NOTYPE label such
   as ld.so's _dl_start_user, shown as its address) or names by another
   alias at the same address (mmap64/mmap), never a function of the test
   program; and, at --percent-limit 0 only, the order of siblings with
   exactly equal periods in different modules (perf orders them by the
   address of its dso structs), where the same lines must come in another
   order.
2. On build/bin/workload (`-c 100000`), the children and self percentages
   of `report -g --json` equal perf's within rounding for the top entries;
   --percent-limit hides what is below it; caller order is callee order
   reversed (--no-children).
usage: test_report_callgraph.py PROFILEME SRCDIR BUILDDIR
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks, skip  # noqa: E402

PM, SRC, BLD = sys.argv[1:4]
WORKLOAD = os.path.join(BLD, "bin", "workload")
check = Checks()


if not shutil.which("perf"):
    skip("no perf tool")
if not os.path.exists(WORKLOAD):
    skip("no %s" % WORKLOAD)

ENV = dict(os.environ)
ENV.pop("PM_PROGRESS", None)
CH = re.compile(r"^\s+([\d.]+)%\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$")
NOCH = re.compile(r"^\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$")


def perf_entries(data, children):
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "comm,dso,sym",
                          "--children" if children else "--no-children", "-g", "none"],
                         capture_output=True, text=True, env=ENV)
    check(out.returncode == 0, "perf report failed: %s" % out.stderr[-300:])
    rows = {}
    for line in out.stdout.splitlines():
        if line.startswith("#"):
            continue
        m = (CH if children else NOCH).match(line)
        if not m:
            continue
        g = m.groups()
        if children:
            rows[(g[2], g[3], g[5])] = (float(g[0]), float(g[1]))
        else:
            rows[(g[1], g[2], g[4])] = (None, float(g[0]))
    return rows


def pm_entries(data, *opts):
    p = subprocess.run([PM, "report", "-q", "-i", data, "-g", "--json"] + list(opts),
                       capture_output=True, text=True, env=ENV)
    check(p.returncode == 0, "profileme report -g %s exited %d: %s" % (opts, p.returncode, p.stderr))
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def paths(tree, prefix=()):
    out = {}
    for n in tree:
        here = prefix + (n["sym"],)
        sub = paths(n["children"], here)
        inner = sum(c["period"] for c in n["children"])
        if n["period"] > inner:
            out[here] = n["period"] - inner
        for k, v in sub.items():
            out[k] = out.get(k, 0) + v
    return out


CG_C = r"""volatile unsigned long sink;
__attribute__((noinline)) void leaf_a(int n) { for (long i = 0; i < n * 300000L; i++) sink += i; }
__attribute__((noinline)) void leaf_b(int n) { for (long i = 0; i < n * 300000L; i++) sink ^= i; }
__attribute__((noinline)) void mid_1(int n) { leaf_a(n); leaf_b(2 * n); }
__attribute__((noinline)) void mid_2(int n) { leaf_b(n); for (long i = 0; i < n * 1200000L; i++) sink -= i; }
__attribute__((noinline)) void top(int n) { mid_1(n); mid_2(n); leaf_a(4 * n); }
int main(void) { for (int r = 0; r < 60; r++) top(3); return 0; }
"""
VARIANTS = [[], ["-g", "callee"], ["-g", "caller"], ["--no-children"], ["--no-children", "-g", "caller"],
            ["--percent-limit", "5"], ["--no-children", "--percent-limit", "5"],
            ["--percent-limit", "0"], ["--percent-limit", "0", "-g", "callee"],
            ["--no-children", "--percent-limit", "0"]]
HEAD = re.compile(r"^# (Children|Overhead|\.\.\.)")


def norm(text):
    """The lines compared: all but perf's comment lines; the column headers stay."""
    return [l for l in text.split("\n") if not l.startswith("#") or HEAD.match(l)]


def sym_diff(a, b):
    """(perf's, ours) when the lines differ in their last token only, a symbol."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    pa, pb = a[i:len(a) - j], b[i:len(b) - j]
    # widen to whole tokens
    while i > 0 and not a[i - 1].isspace() and a[i - 1] not in "-":
        i -= 1
        pa, pb = a[i] + pa, b[i] + pb
    ta, tb = a[i:].split()[0] if a[i:].split() else "", b[i:].split()[0] if b[i:].split() else ""
    # the symbol is the line's last token (entry lines and tree lines alike)
    if a[:i] != b[:i] or a[i + len(ta):] or b[i + len(tb):] or not ta or not tb or "%" in ta + tb:
        return None
    return ta, tb


def exact(tmp):
    if not shutil.which("gcc"):
        print("no gcc: the byte-for-byte part is not run")
        return
    src = os.path.join(tmp, "cg.c")
    exe = os.path.join(tmp, "cg")
    with open(src, "w") as f:
        f.write(CG_C)
    p = subprocess.run(["gcc", "-O0", "-g", "-fno-omit-frame-pointer", src, "-o", exe],
                       capture_output=True, text=True)
    if not check(p.returncode == 0, "gcc: %s" % p.stderr):
        return
    own = set(l.split()[2] for l in subprocess.run(["nm", exe], capture_output=True, text=True).stdout.splitlines()
              if len(l.split()) == 3 and l.split()[1] in "tT")
    for ev in ("task-clock", "task-clock:u"):
        data = os.path.join(tmp, "cg-%s.data" % ev.replace(":", "_"))
        p = subprocess.run(["perf", "record", "-q", "-g", "-e", ev, "-o", data, exe],
                           capture_output=True, text=True, env=ENV)
        if not check(p.returncode == 0, "perf record -g -e %s: %s" % (ev, p.stderr[-300:])):
            continue
        for args in VARIANTS:
            what = "%s %s" % (ev, " ".join(args) or "(defaults)")
            pp = subprocess.run(["perf", "report", "--stdio", "-i", data] + args,
                                capture_output=True, text=True, env=ENV)
            mp = subprocess.run([PM, "report", "-q", "-i", data, "-g"] + args,
                                capture_output=True, text=True, env=ENV)
            if not check(pp.returncode == 0 and mp.returncode == 0,
                         "%s: perf report exited %d, profileme %d: %s" % (what, pp.returncode, mp.returncode,
                                                                          mp.stderr[-300:])):
                continue
            a, b = norm(pp.stdout), norm(mp.stdout)
            check(any("[.] leaf_a" in l for l in b) and any("--%" in l or "---" in l for l in b),
                  "%s: no entry leaf_a or no tree" % what)
            if a == b:
                print("%s: %d lines, identical" % (what, len(a)))
                continue
            if len(a) != len(b):
                diff = [x for x in difflib.unified_diff(a, b, "perf", "profileme", lineterm="", n=1)]
                check(False, "%s: %d lines, perf %d:\n%s" % (what, len(b), len(a), "\n".join(diff[:40])))
                continue
            allowed, bad = [], []
            for la, lb in zip(a, b):
                if la == lb:
                    continue
                d = sym_diff(la, lb)
                if d and d[0] not in own and d[1] not in own:
                    allowed.append(d)
                else:
                    bad.append((la, lb))
            if bad and "0" in args and sorted(la for la, _ in bad) == sorted(lb for _, lb in bad):
                print("%s: %d lines in another order (siblings with equal periods in different "
                      "modules: perf orders them by its dso structs' addresses)" % (what, len(bad)))
                bad = []
            for la, lb in bad[:10]:
                print("  perf:      %r\n  profileme: %r" % (la, lb))
            check(not bad, "%s: %d of %d lines differ" % (what, len(bad), len(a)))
            print("%s: %d lines, equal but for %d symbol names: %s" %
                  (what, len(a), len(allowed), sorted(set(allowed))))


tmp = tempfile.mkdtemp(prefix="pm-callgraph-")
try:
    data = os.path.join(tmp, "g.data")
    p = subprocess.run(["perf", "record", "-q", "-g", "-e", "task-clock", "-c", "100000", "-o", data,
                        "--", WORKLOAD, "400"], capture_output=True, text=True, env=ENV)
    if p.returncode:
        skip("perf record -g failed: %s" % p.stderr[-300:])
    for children in (True, False):
        perf = perf_entries(data, children)
        mine = pm_entries(data, "--children" if children else "--no-children")
        check(len(mine) > 5, "children=%s: only %d entries" % (children, len(mine)))
        by_key = {(r["comm"], r["dso"], r["sym"]): r for r in mine}
        ranked = sorted(perf.items(), key=lambda kv: -(kv[1][0] if children else kv[1][1]))[:12]
        compared = 0
        for key, (cp, sp) in ranked:
            r = by_key.get(key)
            if r is None:
                check(key[1] not in ("workload", "[kernel.kallsyms]"),
                      "children=%s: perf entry %s missing from profileme" % (children, key))
                continue      # a library symbol named differently (alias)
            compared += 1
            check(abs(r["self_pct"] - sp) <= 0.011,
                  "children=%s: %s self %.4f%%, perf %.2f%%" % (children, key, r["self_pct"], sp))
            if children:
                check(abs(r["children_pct"] - cp) <= 0.011,
                      "%s children %.4f%%, perf %.2f%%" % (key, r["children_pct"], cp))
        check(compared >= 5, "children=%s: only %d of perf's top entries compared" % (children, compared))
        print("children=%s: %d of perf's top %d entries equal" % (children, compared, len(ranked)))
        # sorted like perf: by children (or self) share
        keyf = "children_pct" if children else "self_pct"
        check([r[keyf] for r in mine] == sorted((r[keyf] for r in mine), reverse=True),
              "children=%s: entries not sorted by %s" % (children, keyf))

    # --percent-limit: nothing below it, entries or chains.
    lim = pm_entries(data, "--percent-limit", "5")
    check(lim and all(r["children_pct"] >= 5 for r in lim), "--percent-limit 5 shows entries below 5%")

    def tree_min(t):
        return min([n["percent"] for n in t] + [tree_min(n["children"]) for n in t if n["children"]] + [100])
    check(all(tree_min(r["callchains"]) >= 5 for r in lim), "--percent-limit 5 shows chains below 5%")

    # caller order is callee order reversed (self mode: each sample's chain).
    callee = {(r["comm"], r["dso"], r["sym"]): paths(r["callchains"])
              for r in pm_entries(data, "--no-children", "--percent-limit", "0", "-g", "callee")}
    caller = {(r["comm"], r["dso"], r["sym"]): paths(r["callchains"])
              for r in pm_entries(data, "--no-children", "--percent-limit", "0", "-g", "caller")}
    check(callee.keys() == caller.keys(), "caller/callee entries differ")
    deep = 0
    for k in callee:
        rev = {tuple(reversed(p)): v for p, v in callee[k].items()}
        check(rev == caller.get(k), "%s: caller order is not callee order reversed" % (k,))
        deep = max([deep] + [len(p) for p in callee[k]])
    check(deep >= 2, "no call chain deeper than one frame")
    # text output: the header perf prints
    p = subprocess.run([PM, "report", "-q", "-i", data, "-g"], capture_output=True, text=True, env=ENV)
    check("# Children      Self" in p.stdout and "[.] main" in p.stdout, "text -g output lacks header or main")

    exact(tmp)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
