#!/usr/bin/python3
"""Which name an address with several symbols gets: perf's choice.

kallsyms lists aliases at one address (memcpy, __memcpy, __pi_memcpy, ...);
perf sizes kallsyms entries before it chooses among aliases, so it names such
an address by the last line at that address.  This test takes a real
`perf record -e task-clock` recording made here, rewrites its samples so that
they land on every alias address of this machine's /proc/kallsyms (kernel
cpumode; the recording already maps the running kernel), and checks that
`profileme script -F ip,sym` names each sample as `perf script -F ip,sym`
does.  The rewritten copy is a test artefact, not a recording.
usage: test_symbol_aliases.py PROFILEME SRCDIR BUILDDIR
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata  # noqa: E402
from harness import Checks, skip  # noqa: E402

check = Checks()
PM, SRC, BLD = sys.argv[1:4]
WORKLOAD = os.path.join(BLD, "bin", "workload")
SAMPLE_IP, SAMPLE_IDENTIFIER = 1, 1 << 16
PERF_RECORD_SAMPLE, MISC_CPUMODE_MASK, MISC_KERNEL = 9, 7, 1

if not shutil.which("perf"):
    skip("no perf tool")
if not os.path.exists(WORKLOAD):
    skip("no %s" % WORKLOAD)


def alias_addresses():
    """Addresses of this kernel's text with two or more kallsyms lines."""
    seen, multi = {}, []
    try:
        lines = open("/proc/kallsyms").read().splitlines()
    except OSError as e:
        skip("no /proc/kallsyms: %s" % e)
    for line in lines:
        f = line.split()
        if len(f) < 3 or f[1] not in "tTwW" or len(f) > 3:   # kernel text, not modules
            continue
        a = int(f[0], 16)
        if a == 0:
            skip("kallsyms addresses are hidden (kptr_restrict)")
        seen[a] = seen.get(a, 0) + 1
        if seen[a] == 2:
            multi.append(a)
    return multi


def names(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    check(p.returncode == 0, "%s exited %d: %s" % (cmd[0], p.returncode, p.stderr[-300:]))
    out = []
    for line in p.stdout.splitlines():
        f = line.split()
        if f:
            out.append((int(f[0], 16), f[1] if len(f) > 1 else ""))
    return out


tmp = tempfile.mkdtemp(prefix="pm-aliases-")
try:
    aliases = alias_addresses()
    if len(aliases) < 10:
        skip("only %d alias addresses in /proc/kallsyms" % len(aliases))
    data = os.path.join(tmp, "rec.data")
    p = subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", data,
                        WORKLOAD, "300"], capture_output=True, text=True)
    if p.returncode != 0:
        skip("perf record failed: %s" % p.stderr[-300:])
    b = bytearray(open(data, "rb").read())
    ao, _an = perfdata.header(b)["attrs"]
    sample_type = struct.unpack_from("<Q", b, ao + 24)[0]
    check(sample_type & SAMPLE_IP and not sample_type & SAMPLE_IDENTIFIER,
          "sample_type %#x: the ip is not the first field" % sample_type)
    k = 0
    for off, typ, _sz in perfdata.records(b):
        if typ != PERF_RECORD_SAMPLE:
            continue
        misc = struct.unpack_from("<H", b, off + 4)[0]
        struct.pack_into("<H", b, off + 4, (misc & ~MISC_CPUMODE_MASK) | MISC_KERNEL)
        struct.pack_into("<Q", b, off + 8, aliases[k % len(aliases)])
        k += 1
    if k < len(aliases):
        print("note: %d samples for %d alias addresses" % (k, len(aliases)))
    moved = os.path.join(tmp, "aliases.data")
    open(moved, "wb").write(b)
    perf = names(["perf", "script", "-i", moved, "-F", "ip,sym"])
    ours = names([PM, "script", "-i", moved, "-F", "ip,sym", "-q"])
    check(len(perf) == k and len(ours) == k, "samples: perf %d, profileme %d, written %d" %
          (len(perf), len(ours), k))
    diff = [(hex(a), x, y) for (a, x), (_b, y) in zip(perf, ours) if x != y]
    check(not diff, "%d of %d samples named otherwise than perf: %s" % (len(diff), k, diff[:6]))
    print("%d samples on %d alias addresses, named as perf names them" % (k, min(k, len(aliases))))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
