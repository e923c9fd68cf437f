#!/usr/bin/python3
"""C++ symbols named as perf names them: demangled, without parameters.

Builds a small C++ program with g++ (a member function, a const member,
a function template instance, a function in an anonymous namespace and
an operator), records it with the real perf tool (task-clock) and
compares the per-symbol sample counts of `profileme report --sort sym
--json` with `perf report --stdio -n --sort sym` for the program's own
symbols: the same names (perf 6.1 demangles without parameters unless -v)
and the same counts.  usage: test_cxx_names.py PROFILEME SRCDIR BUILDDIR
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

PROG = r"""
#include <cstdio>
namespace ns {
struct K {
	long f(long x) const;
	long operator()(long x);
};
long K::f(long x) const { volatile long s = 0; for (long i = 0; i < 60000000L; i++) s += i * x; return s; }
long K::operator()(long x) { volatile long s = 0; for (long i = 0; i < 40000000L; i++) s += i ^ x; return s; }
}
template <typename T> T twice(T a) { volatile T s = 0; for (long i = 0; i < 50000000L; i++) s += a; return s; }
namespace { long hidden(long a) { volatile long s = 0; for (long i = 0; i < 30000000L; i++) s -= a; return s; } }
int main() { ns::K k; std::printf("%ld %ld %d %ld\n", k.f(3), k(5), twice<int>(2), hidden(7)); return 0; }
"""
WANT = {"ns::K::f", "ns::K::operator()", "twice<int>", "(anonymous namespace)::hidden"}


for tool in ("perf", "g++"):
    if not shutil.which(tool):
        skip("no %s" % tool)
if os.environ.get("PM_HAVE_LIBELF", "1") == "0":
    skip("library built without libelf")

ROW = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+\[\.\]\s+(.*?)\s*$")
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "cxx.cpp")
    exe = os.path.join(tmp, "cxxprog")
    data = os.path.join(tmp, "cxx.data")
    with open(src, "w") as f:
        f.write(PROG)
    subprocess.run(["g++", "-O0", "-fno-inline", "-o", exe, src], check=True)
    r = subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "250000", "-o", data,
                        exe], capture_output=True, text=True)
    if r.returncode != 0:
        skip("perf record failed: %s" % r.stderr.strip()[-200:])
    r = subprocess.run(["perf", "report", "-i", data, "--stdio", "-n", "--sort", "sym",
                        "--comm", "cxxprog"], capture_output=True, text=True)
    perf = {}
    for line in r.stdout.splitlines():
        m = ROW.match(line)
        if m:
            perf[m.group(3)] = int(m.group(2))
    r = subprocess.run([PM, "report", "-i", data, "--sort", "comm,sym", "--json"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "profileme report: %s" % r.stderr[-300:])
    ours = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            if row.get("comm") == "cxxprog":
                ours[row["sym"]] = ours.get(row["sym"], 0) + row["samples"]
    for name in sorted(WANT):
        check(name in perf, "perf names %r (perf: %s)" % (name, sorted(perf)[:12]))
        check(ours.get(name) == perf.get(name),
              "%s: profileme %s samples, perf %s" % (name, ours.get(name), perf.get(name)))
    check(not [n for n in ours if n.startswith("_Z")],
          "no mangled names left: %s" % [n for n in ours if n.startswith("_Z")][:5])
    print("compared %d C++ symbols with perf report" % len(WANT))

check.finish()
print("OK")
