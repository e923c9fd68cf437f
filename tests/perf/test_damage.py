#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Damage is never silent and never contagious; faults are reported
(issue 12).  Files recorded here with the real perf tool, then damaged
byte by byte; the expectations come from the recording (the samples perf
wrote, counted by walking the records) and from the damage done, never
from profileme's own output on the intact file alone.

usage: test_damage.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata  # noqa: E402

from harness import Checks, skip  # noqa: E402

check = Checks(echo=True)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", **kw)


def samples_json(prof, path, *extra):
    r = run([prof, "script", "-i", path, "--json"] + list(extra))
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    return [(s["time"], s["ip"], s["tid"]) for s in rows], r


def sample_keys_from_bytes(b, stop=None):
    """(time, ip, tid) of the samples in file order, read from the bytes for
    sample_type IP|TID|TIME|PERIOD (+ID/IDENTIFIER not used here)."""
    out = []
    for off, t, sz in perfdata.records(b):
        if stop is not None and off >= stop:
            break
        if t != 9 or sz < 32:
            continue
        ip, _pid, tid, tm = struct.unpack_from("<QIIQ", b, off + 8)
        out.append((tm, "0x%x" % ip, tid))
    return out


def item1_corrupt_sample(prof, work, b):
    """One corrupt sample is reported and skipped; it poisons nothing."""
    recs = perfdata.records(b)
    smp = [r for r in recs if r[1] == 9]
    want = sample_keys_from_bytes(b)
    vi = len(smp) // 3
    victim = smp[vi]
    # a short but well-framed sample (16 of its 32+ bytes; the file shrinks)
    short = bytearray(b[victim[0]:victim[0] + 16])
    struct.pack_into("<H", short, 6, 16)
    path = os.path.join(work, "short_sample.data")
    with open(path, "wb") as f:
        f.write(perfdata.splice(b, victim[0], victim[2], bytes(short)))
    kv = want[:vi] + want[vi + 1:]
    for extra in ([], ["--raw-order"]):
        got, r = samples_json(prof, path, *extra)
        check(sorted(got) == sorted(kv) and len(got) == len(smp) - 1,
              "item 1: short sample %s: %d of %d good samples printed" %
              (extra, len(got), len(smp) - 1))
        check(r.returncode != 0 and r.stderr.count("offset %d" % victim[0]) == 1,
              "item 1: short sample %s: reported once at its offset, exit %d: %r" %
              (extra, r.returncode, r.stderr[:300]))
    # the sample's size field says 16 (framing broken after it): the samples
    # before it are printed, then the error
    nb = bytearray(b)
    struct.pack_into("<H", nb, victim[0] + 6, 16)
    path = os.path.join(work, "size16.data")
    with open(path, "wb") as f:
        f.write(nb)
    before = sample_keys_from_bytes(b, stop=victim[0])
    for extra in ([], ["--raw-order"]):
        got, r = samples_json(prof, path, *extra)
        check(sorted(got) == sorted(before),
              "item 1: size 16 %s: the %d samples before it printed (got %d)" %
              (extra, len(before), len(got)))
        check(r.returncode != 0 and "offset" in r.stderr,
              "item 1: size 16 %s: error with an offset, exit %d" % (extra, r.returncode))


def item2_cut_boundary(prof, work, b):
    recs = perfdata.records(b)
    cut = recs[len(recs) // 2][0]
    path = os.path.join(work, "cut_boundary.data")
    with open(path, "wb") as f:
        f.write(b[:cut])
    want = sample_keys_from_bytes(b, stop=cut)
    got, r = samples_json(prof, path, "--raw-order")
    check(got == want, "item 2: cut at a record boundary: %d samples before the cut (got %d)"
          % (len(want), len(got)))
    check(r.returncode != 0 and ("offset %d" % cut) in r.stderr,
          "item 2: cut at a record boundary: error names offset %d, exit %d: %r"
          % (cut, r.returncode, r.stderr[:200]))


def item3_write_errors(prof, work, data):
    """Every command checks its writes: /dev/full is an error, said once."""
    cmds = [["script", "-i", data], ["script", "-i", data, "--json"],
            ["script", "-i", data, "-D"], ["script", "-i", data, "--header"],
            ["report", "-i", data], ["report", "-i", data, "--json"],
            ["list"], ["encode", "task-clock"], ["encode", "--json", "task-clock"],
            ["sample", "-q", "-e", "task-clock", "-c", "100000", "--", "sh", "-c",
             "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"],
            ["--version"], ["script", "--help"]]
    r = run([prof, "report", "-i", data, "--json"])
    syms = [json.loads(x).get("sym") for x in r.stdout.splitlines() if x.startswith("{")]
    syms = [x for x in syms if x and not x.startswith("[")]
    if syms:
        cmds.append(["annotate", "-i", data, syms[0]])
    for c in cmds:
        with open("/dev/full", "w") as full:
            r = subprocess.run([prof] + c, stdout=full, stderr=subprocess.PIPE, text=True,
                               errors="replace")
        check(r.returncode != 0 and
              r.stderr.count("write error: No space left on device") == 1,
              "item 3: %s > /dev/full: exit %d, %r" % (" ".join(x for x in c[:5] if x != data),
                                                      r.returncode,
                                                      r.stderr[-200:]))
    # a reader that goes away ends us quietly (SIGPIPE), even if our parent
    # ignored SIGPIPE
    for ign in (False, True):
        pre = (lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ign else None
        p = subprocess.Popen([prof, "script", "-i", data, "-D"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, preexec_fn=pre)
        p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read().decode(errors="replace")
        rc = p.wait()
        check(rc != 0 and err == "",
              "item 3: script -D | head -1 (SIGPIPE %s): quiet, exit %d, %r" %
              ("ignored" if ign else "default", rc, err[:200]))


def item7_unknown_layout(prof, work, b):
    """Unknown sample_type / read_format bits: said once, naming the attr and
    the bits; script and report fail alike and say how many samples they
    dropped."""
    nsmp = sum(1 for x in perfdata.records(b) if x[1] == 9)
    off, _a = perfdata.attr_at(b, 0)
    for field, at, bit in (("sample_type", 24, 1 << 40), ("read_format", 32, 1 << 6)):
        nb = bytearray(b)
        v, = struct.unpack_from("<Q", nb, off + at)
        struct.pack_into("<Q", nb, off + at, v | bit)
        path = os.path.join(work, "unknown_%s.data" % field)
        with open(path, "wb") as f:
            f.write(nb)
        for cmd in ("script", "report"):
            r = run([prof, cmd, "-i", path])
            said = [x for x in r.stderr.splitlines() if "does not know" in x]
            check(r.returncode != 0 and len(said) == 1 and "attr 0" in said[0] and
                  field in said[0] and "(0x%x)" % bit in said[0],
                  "item 7: %s with an unknown %s bit: said once with the bits, exit %d: %r"
                  % (cmd, field, r.returncode, said[:3]))
            check(("%d of %d samples not" % (nsmp, nsmp)) in r.stderr,
                  "item 7: %s says how many samples it dropped" % cmd)


def item7_report_counts(prof, work):
    """report never drops samples without saying how many; a cut file gives
    the report of the samples before the cut and a non-zero exit."""
    path = os.path.join(work, "short_sample.data")
    r = run([prof, "report", "-i", path])
    check(r.returncode != 0 and "1 of " in r.stderr and "not counted" in r.stderr and
          "%" in r.stdout,
          "item 7: report of a file with a damaged sample: the rest counted, the damaged "
          "one said, exit %d" % r.returncode)
    r = run([prof, "report", "-i", "/nonexistent/x.data"])
    check(r.returncode != 0 and r.stderr.count("/nonexistent/x.data") == 1,
          "item 9: report errors name the path once: %r" % r.stderr.strip())


def zstd_compress(data, level=3):
    """zstd frame of data, through the system libzstd (None without it)."""
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library("zstd")
    if not name:
        return None
    z = ctypes.CDLL(name)
    z.ZSTD_compressBound.restype = ctypes.c_size_t
    z.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    z.ZSTD_compress.restype = ctypes.c_size_t
    z.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_size_t, ctypes.c_int]
    z.ZSTD_isError.argtypes = [ctypes.c_size_t]
    cap = z.ZSTD_compressBound(len(data))
    buf = ctypes.create_string_buffer(cap)
    n = z.ZSTD_compress(buf, cap, data, len(data), level)
    if z.ZSTD_isError(n):
        return None
    return buf.raw[:n]


def comp_records(frame):
    """frame cut into PERF_RECORD_COMPRESSED (81) records of <= 65000 bytes."""
    out = b""
    for i in range(0, len(frame), 65000):
        part = frame[i:i + 65000]
        pad = (-len(part)) % 8
        # trailing zero bytes after a frame would be read as a new frame:
        # keep the record unpadded (perf's reader and ours take any size)
        pad = 0
        out += struct.pack("<IHH", 81, 0, 8 + len(part) + pad) + part
    return out


def peak_rss_kb(argv):
    """exit status, stderr and peak RSS (KiB) of one run, by /usr/bin/time (a
    child of this Python inherits its RSS high-water mark across exec)."""
    r = subprocess.run(["/usr/bin/time", "-f", "PEAK_RSS_KB %M"] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    lines = r.stderr.splitlines()
    rss = [int(x.split()[1]) for x in lines if x.startswith("PEAK_RSS_KB ")]
    err = "\n".join(x for x in lines if not x.startswith("PEAK_RSS_KB ") and
                    not x.startswith("Command exited with non-zero status"))
    return r.returncode, err, rss[-1] if rss else -1


def item5_compressed(prof, work, perf, plain_path, plain):
    """COMPRESSED records are decompressed streaming into a bounded buffer;
    one that expands past a sane bound is an error naming its offset."""
    zdata = os.path.join(work, "z.data")
    r = run([perf, "record", "-z", "-q", "-o", zdata, "-e", "task-clock", "-c", "100000", "--",
             "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
    if r.returncode != 0:
        check(True, "item 5: SKIPPED (perf record -z fails here: %s)" % r.stderr.strip()[:100])
        return
    with open(zdata, "rb") as f:
        zb = f.read()
    # an unknown user record type (99) of 65528 bytes: skipped, never queued
    rec = struct.pack("<IHH", 99, 0, 65528) + bytes(65520)
    zr = run([prof, "script", "-i", zdata])
    pr = run([perf, "script", "-i", zdata])
    check(zr.returncode == 0 and len(zr.stdout.splitlines()) == len(pr.stdout.splitlines()),
          "item 5: the perf -z recording reads: %d samples as perf script" %
          len(zr.stdout.splitlines()))
    # the frames go into a plain recording (perf's own zstd stream may end
    # inside a frame: a new frame after it would be corrupt)
    end = sum(perfdata.header(plain)["data"])
    base_rc, _e, base_rss = peak_rss_kb([prof, "script", "-i", plain_path])
    # many COMPRESSED frames of 15 MiB each: under the per-record bound
    one = zstd_compress(rec * 240)
    if one is None:
        check(True, "item 5: SKIPPED (no libzstd for python)")
        return
    flat = os.path.join(work, "z_flat.data")
    with open(flat, "wb") as f:
        f.write(perfdata.splice(plain, end, 0, comp_records(one) * 20))
    rc, err, rss = peak_rss_kb([prof, "script", "-i", flat])
    check(rc == 0 and rss < base_rss + 8 * 1024,
          "item 5: 300 MiB decompressed in 15 MiB records: exit %d, peak RSS %d KiB "
          "(the small file: %d KiB) %r" % (rc, rss, base_rss, err[-200:]))
    # one compressed stream of 160 MiB in a single record: past the bound
    bomb = zstd_compress(rec * 2560)
    recs = comp_records(bomb)
    path = os.path.join(work, "z_bomb.data")
    with open(path, "wb") as f:
        f.write(perfdata.splice(plain, end, 0, recs))
    rc, err, rss = peak_rss_kb([prof, "script", "-i", path])
    check(rc != 0 and ("COMPRESSED record at offset %d decompresses to more than" % end) in err
          and rss < base_rss + 8 * 1024,
          "item 5: a record that expands to 160 MiB: error at its offset %d, exit %d, peak "
          "RSS %d KiB: %r" % (end, rc, rss, err[-300:]))


def item6_record_leaves(prof, work):
    out = os.path.join(work, "nonexistent.data")
    if os.path.exists(out):
        os.unlink(out)
    r = run([prof, "record", "-e", "task-clock", "-o", out, "--", "/nonexistent/cmd"])
    check(r.returncode != 0, "item 6: record of a command that cannot run fails (%d)"
          % r.returncode)
    if os.path.exists(out):
        # left behind: it must then be finished and readable
        s = run([prof, "script", "-i", out])
        check(s.returncode == 0, "item 6: the file it leaves reads cleanly: %r" % s.stderr)
    else:
        check(True, "item 6: no file left behind")


def item9_record_args(prof, work):
    out = os.path.join(work, "args.data")
    r = run([prof, "record", "-c", "0", "-e", "task-clock", "-o", out, "--", "true"])
    check(r.returncode == 2 and "bad period" in r.stderr and "LeakSanitizer" not in r.stderr,
          "item 9: record -c 0: 'bad period', exit 2, no leak: %d %r" % (r.returncode, r.stderr[-300:]))
    r = run([prof, "record", "-c", "18446744073709551616", "-o", out, "--", "true"])
    check(r.returncode == 2 and "out of range" in r.stderr,
          "item 9: record -c 2^64: out of range: %d %r" % (r.returncode, r.stderr[-200:]))


def item9_list_escapes(prof, work):
    """list prints control characters of PMU and alias names escaped."""
    root = os.path.join(work, "sysfs_ctl")
    shutil.rmtree(root, ignore_errors=True)
    pmu = os.path.join(root, "bus", "event_source", "devices", "ev\x1b[31mil")
    os.makedirs(os.path.join(pmu, "events"))
    os.makedirs(os.path.join(pmu, "format"))
    with open(os.path.join(pmu, "type"), "w") as f:
        f.write("42\n")
    with open(os.path.join(pmu, "format", "event"), "w") as f:
        f.write("config:0-7\n")
    with open(os.path.join(pmu, "events", "cyc\x07les"), "w") as f:
        f.write("event=0x1\n")
    r = subprocess.run([prof, "list", "--sysfs", root], capture_output=True)
    out = r.stdout.decode("latin-1")
    ctl = [c for c in out if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7f]
    check(r.returncode == 0 and not ctl and "ev\\x1b[31mil" in out and "cyc\\x07les" in out,
          "item 9: list escapes control characters of PMU/alias names: %r" % out[:120])


def item9_sigint(prof, work):
    out = os.path.join(work, "sigint.data")
    p = subprocess.Popen([prof, "record", "-q", "-e", "task-clock", "-o", out, "--",
                          "sleep", "60"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    child = None
    # Wait for the workload to exist (a condition, not a time: under load the
    # fork and exec can take seconds); the bound only keeps a hang finite.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.05)
        try:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids = f.read().split()
        except OSError:
            kids = []
        for k in kids:
            try:
                with open("/proc/%s/comm" % k) as f:
                    if f.read().strip() == "sleep":
                        child = int(k)
            except OSError:
                pass
        if child:
            break
    if not child:
        p.kill()
        p.wait()
        check(False, "item 9: SIGINT: the workload did not start")
        return
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    alive = os.path.exists("/proc/%d" % child)
    if alive:
        try:
            with open("/proc/%d/stat" % child) as f:
                alive = f.read().split()[2] != "Z"
        except OSError:
            alive = False
        os.kill(child, signal.SIGKILL)
    check(not alive, "item 9: SIGINT to record alone ends the workload")
    s = run([prof, "script", "-i", out])
    check(s.returncode == 0, "item 9: SIGINT: the file is finished: %r" % s.stderr[:200])


def main():
    prof, _src, build = sys.argv[1:4]
    perf = shutil.which("perf")
    if not perf:
        skip("perf is missing")
    work = os.path.join(build, "tests", "perf", "damage")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "base.data")
    r = run([perf, "record", "-q", "-o", data, "-e", "task-clock", "-c", "100000", "--",
             "sh", "-c", "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done"])
    if r.returncode != 0:
        skip("perf record does not work here: " + r.stderr.strip()[:200])
    with open(data, "rb") as f:
        b = f.read()
    nsmp = sum(1 for x in perfdata.records(b) if x[1] == 9)
    if nsmp < 20:
        skip("only %d samples recorded" % nsmp)
    got, r = samples_json(prof, data, "--raw-order")
    check(got == sample_keys_from_bytes(b) and r.returncode == 0,
          "intact file: %d samples as recorded" % nsmp)

    item1_corrupt_sample(prof, work, b)
    item2_cut_boundary(prof, work, b)
    item3_write_errors(prof, work, data)
    item7_unknown_layout(prof, work, b)
    item7_report_counts(prof, work)
    item5_compressed(prof, work, perf, data, b)
    item6_record_leaves(prof, work)
    item9_record_args(prof, work)
    item9_sigint(prof, work)
    item9_list_escapes(prof, work)

    check.finish()


if __name__ == "__main__":
    main()
