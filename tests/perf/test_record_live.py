#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Live sampling of real workloads with `profileme record` / `profileme sample`,
checked against the workload's own symbols (nm) and the real `perf script`.

usage: test_record_live.py PROFILEME SRCDIR BUILDDIR   (exit 77 = skipped)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from harness import Checks, skip  # noqa: E402

check = Checks(echo=True)

PM, SRC, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]
WORKLOAD = os.path.join(BUILD, "bin", "workload")
HOT = ("matrix_multiply", "hash_buffer", "sort_numbers", "cmp_u32", "main")
# The workload's last line: its rounds and its own CPU time (-r ROUNDS runs a
# fixed amount of work, whatever CPU share the machine's load leaves it).
WORKLOAD_CPU = re.compile(r"^workload: (\d+) rounds, .*, cpu ([\d.]+) ms$", re.M)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def nm_ranges(path):
    """{name: (start, end)} of the workload's functions (file addresses)."""
    out = run(["nm", "-S", "--defined-only", path]).stdout
    r = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            base = f[3].split(".")[0]
            r.setdefault(base, (int(f[0], 16), int(f[0], 16) + int(f[1], 16)))
    return r


def perf_samples(path, extra=()):
    """(pid, tid, cpu, time_ns, period, ip, event) per sample, from perf script."""
    p = run(["perf", "script", "-i", path, "-F", "pid,tid,cpu,time,period,ip,event",
             "--ns", *extra])
    rows = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\d+)\s+(\S+):\s+([0-9a-f]+)",
                     line)
        if m:
            rows.append((int(m[1]), int(m[2]), int(m[3]), int(m[4]) * 10**9 + int(m[5]),
                         int(m[6]), int(m[8], 16), m[7]))
    return rows, p


def workload_maps(path):
    """MMAP2 records of the workload binary from perf script --show-mmap-events."""
    p = run(["perf", "script", "-i", path, "--show-mmap-events", "-F", "pid,tid,event"])
    maps = []
    for line in p.stdout.splitlines():
        m = re.search(r"PERF_RECORD_MMAP2 (\d+)/\d+: \[0x([0-9a-f]+)\((0x[0-9a-f]+)\) @ "
                      r"(0x[0-9a-f]+|\d+).*\]: r-xp (\S+)", line)
        if m and os.path.realpath(m[5]) == os.path.realpath(WORKLOAD):
            maps.append((int(m[1]), int(m[2], 16), int(m[3], 16), int(m[4], 0)))
    return maps


def in_hot(ip, maps, syms):
    for _, start, length, pgoff in maps:
        if start <= ip < start + length:
            off = ip - start + pgoff
            for n in HOT:
                if n in syms and syms[n][0] <= off < syms[n][1]:
                    return True
    return False


def ring_ok(stderr):
    if "does not implement it" in stderr or "not available: the kernel" in stderr:
        skip("perf_event_open is not available here (ENOSYS, e.g. qemu-user)")


def field_offsets(fmt_path):
    """{field: (offset, size)} from a tracefs format file (the kernel's layout)."""
    r = {}
    with open(fmt_path) as f:
        for line in f:
            m = re.search(r"field:[^;]*?(\w+)(\[\d+\])?;\s*offset:(\d+);\s*size:(\d+);", line)
            if m:
                r[m[1]] = (int(m[3]), int(m[4]))
    return r


def check_tracepoint_file(tmp):
    """A sched:sched_switch recording written by profileme opens in perf script
    (HEADER_TRACING_DATA), with the same samples profileme's reader sees, and
    perf's decoded next_pid/prev_pid equal the raw bytes at the kernel's offsets."""
    fmt = None
    for root in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.path.exists(root + "/events/sched/sched_switch/format"):
            fmt = field_offsets(root + "/events/sched/sched_switch/format")
            break
    out = os.path.join(tmp, "tp.data")
    p = run([PM, "record", "-e", "sched:sched_switch", "-a", "-o", out, "--", "sleep", "0.2"])
    check(p.returncode == 0, "record -e sched:sched_switch -a (%s)" % p.stderr.strip()[-200:])
    m = re.search(r"(\d+) samples written", p.stderr)
    hdr = run(["perf", "report", "-i", out, "--header-only"])
    check("incompatible" not in hdr.stderr, "perf accepts the tracepoint file's header (%s)"
          % hdr.stderr.strip()[:200])
    rows, pp = perf_samples(out)
    check(pp.returncode == 0, "perf script reads the tracepoint file (%s)"
          % pp.stderr.strip()[:200])
    # perf script drops an event whose time lies below the last flushed round
    # (a sched_switch written late into another CPU's ring) and says so:
    # "N out of order events recorded".  profileme keeps it.
    ooo = re.search(r"(\d+) out of order events", pp.stderr)
    dropped = int(ooo[1]) if ooo else 0
    # A task that is being reaped switches out one last time with pid/tid -1
    # (the kernel's answer once the task is no longer alive); perf prints
    # "-1/-1" for it, so every sample written must be there.
    check(m and len(rows) + dropped == int(m[1]) and len(rows) >= 2,
          "perf script shows the %s sched_switch samples written (%d, %d out of order)"
          % (m[1] if m else "?", len(rows), dropped))
    check(all(r[6] == "sched:sched_switch" and r[4] == 1 for r in rows),
          "perf: every sample is sched:sched_switch with period 1")
    ours = run([PM, "script", "--json", "-i", out])
    js = [json.loads(l) for l in ours.stdout.splitlines() if l.startswith("{")]
    key = lambda t: sorted(t)
    theirs = key((r[1], r[2], r[3]) for r in rows)
    mine = key((s["tid"], s["cpu"], s["time"]) for s in js)
    extra = list(mine)
    for t in theirs:
        if t in extra:
            extra.remove(t)
    check(m and len(mine) == int(m[1]) and len(extra) == len(mine) - len(theirs),
          "every (tid, cpu, time) sample perf script lists is one profileme script lists, "
          "and profileme lists all %s written (perf: %d)" % (m[1] if m else "?", len(theirs)))
    # perf decodes the fields with the formats we embedded; check them against
    # the raw bytes at the offsets of the kernel's format file.
    pt = run(["perf", "script", "-i", out, "-F", "time,trace", "--ns"])
    decoded = []
    for line in pt.stdout.splitlines():
        mm = re.match(r"\s*(\d+)\.(\d+):\s+prev_comm=.*prev_pid=(\d+) .*next_pid=(\d+) ", line)
        if mm:
            decoded.append((int(mm[1]) * 10**9 + int(mm[2]), int(mm[3]), int(mm[4])))
    ooo2 = re.search(r"(\d+) out of order events", pt.stderr)
    dropped2 = int(ooo2[1]) if ooo2 else 0
    check(m and len(decoded) + dropped2 == int(m[1]),
          "perf decodes every sample's fields (%d of %s, %d out of order)"
          % (len(decoded), m[1] if m else "?", dropped2))
    if fmt and "prev_pid" in fmt and "next_pid" in fmt and js and "raw" in js[0]:
        little = sys.byteorder == "little"

        def field(raw, name):
            off, size = fmt[name]
            return int.from_bytes(bytes.fromhex(raw)[off:off + size],
                                  "little" if little else "big", signed=True)
        mine = sorted((s["time"], field(s["raw"], "prev_pid"), field(s["raw"], "next_pid"))
                      for s in js)
        left = list(mine)
        for d in decoded:
            if d in left:
                left.remove(d)
        check(len(left) == len(mine) - len(decoded),
              "perf's prev_pid/next_pid equal the raw payload at the format's offsets")


def wait_for(cond, what, timeout=120):
    """Polls cond() until it is true (a condition, not a guess at a time);
    False, after saying so, when it never became true."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    print("FAIL waiting %d s for: %s" % (timeout, what))
    return False


def in_poll(pid, out):
    """The process is blocked in poll(): the recorder's loop, after its
    events were enabled (cmd_record.c starts them, then polls).  Where the
    kernel hides wchan ("0"), the nearest condition it shows: the recorder
    wrote its file header (just before it enables the events)."""
    try:
        with open("/proc/%d/wchan" % pid) as f:
            w = f.read().strip()
    except OSError:
        return False
    if w in ("", "0"):
        return os.path.exists(out) and os.path.getsize(out) > 0
    return "poll" in w


def data_flushed(path):
    """The writer flushed records: perf.data's header data.size (offset 48)
    is kept current at each flush of its buffer, so a killed writer's file
    holds them."""
    try:
        with open(path, "rb") as f:
            h = f.read(56)
    except OSError:
        return False
    return len(h) == 56 and int.from_bytes(h[48:56], sys.byteorder) > 0


def main():
    if not os.path.exists(WORKLOAD):
        skip("the bundled workload was not built: " + WORKLOAD)
    have_perf = shutil.which("perf") is not None
    syms = nm_ranges(WORKLOAD)
    check(all(n in syms for n in HOT), "nm finds the workload's hot functions")
    tmp = tempfile.mkdtemp(prefix="pm_rec_")
    try:
        # 1. By command, profileme sample --json: pid/tid, period, times.
        p = run([PM, "sample", "--json", "-e", "task-clock:u", "-c", "100000", "--", WORKLOAD,
                 "-r", "200"])
        ring_ok(p.stderr)
        check(p.returncode == 0, "profileme sample runs (rc %d: %s)" % (p.returncode,
                                                                        p.stderr.strip()[-300:]))
        js = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        # one sample per 0.1 ms of the workload's CPU time in user mode (nearly
        # all of it), by its own clock: the same whatever the machine's load
        own = WORKLOAD_CPU.search(p.stdout)
        cpu = float(own[2]) if own else 0
        check(own is not None and own[1] == "200", "the workload ran its 200 rounds")
        check(len(js) >= 50 and cpu / 0.1 * 0.5 <= len(js) <= cpu / 0.1 + 20,
              "sample --json printed %d samples for %.1f ms of the workload's CPU time"
              % (len(js), cpu))
        if js:
            pids = {s["pid"] for s in js}
            check(len(pids) == 1, "one process sampled: %s" % pids)
            check(all(s["tid"] == s["pid"] for s in js), "tid == pid (single-threaded)")
            check(all(s["period"] == 100000 for s in js), "every period == -c 100000")
            check(all(isinstance(s["time"], int) and isinstance(s["cpu"], int) for s in js),
                  "time/cpu are JSON numbers")
            check(all(re.fullmatch(r"0x[0-9a-f]+", s["ip"]) for s in js), "ip is a 0x string")
            bycpu = {}
            mono = True
            for s in js:
                if s["time"] < bycpu.get(s["cpu"], 0):
                    mono = False
                bycpu[s["cpu"]] = s["time"]
            check(mono, "times increase within each CPU's ring")
            times = [s["time"] for s in js]
            check(times == sorted(times), "times increase over the whole stream (the ordered "
                  "drain merges the per-CPU rings)")
            m = re.search(r"(\d+) samples printed", p.stderr)
            check(m and int(m[1]) == len(js), "printed count matches the summary line")

        if not have_perf:
            skip("no perf tool to read the files back (the sample checks above passed)")

        # 2. By command into a file, read back by perf script.
        out = os.path.join(tmp, "cmd.data")
        p = run([PM, "record", "-e", "task-clock:u", "-c", "100000", "-o", out, "--",
                 WORKLOAD, "-r", "250"])
        check(p.returncode == 0, "profileme record of a command")
        m = re.search(r"(\d+) samples written .*?, (\d+) lost", p.stderr)
        check(m is not None, "record prints samples written and lost: " + p.stderr.strip())
        rows, pp = perf_samples(out)
        check(pp.returncode == 0, "perf script reads the file (%s)" % pp.stderr.strip()[:200])
        check(m and len(rows) == int(m[1]), "perf script shows the %s samples written (%d)"
              % (m[1] if m else "?", len(rows)))
        if rows:
            check(len({r[0] for r in rows}) == 1, "perf: one pid")
            check(all(r[4] == 100000 for r in rows), "perf: every period == 100000")
            maps = workload_maps(out)
            check(len(maps) >= 1, "MMAP2 of the workload binary in the file")
            hot = sum(in_hot(r[5], maps, syms) for r in rows)
            check(hot >= len(rows) * 0.3, "%d of %d ips inside the workload's hot functions"
                  % (hot, len(rows)))
            rep = run(["perf", "report", "-i", out, "--stdio", "--sort", "sym"])
            check("matrix_multiply" in rep.stdout, "perf report shows matrix_multiply")
            hdr = run(["perf", "report", "-i", out, "--header-only"]).stdout
            for k in ("hostname", "os release", "arch", "nrcpus online", "cpudesc", "cmdline",
                      "event : name = task-clock", "pmu mappings"):
                check(k in hdr, "feature in header: " + k)

        # 3. By pid: attach to a running workload; synthesized maps.  The
        # workload waits on its stdin (-w) until the recorder is in its poll
        # loop (its events enabled), then runs a fixed amount of work.
        wl = subprocess.Popen([WORKLOAD, "-w", "-r", "300"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
        out = os.path.join(tmp, "pid.data")
        rec = subprocess.Popen([PM, "record", "-e", "task-clock:u", "-c", "200000", "-p",
                                str(wl.pid), "-o", out], stderr=subprocess.PIPE, text=True)
        polling = wait_for(lambda: in_poll(rec.pid, out) or rec.poll() is not None,
                           "record -p to reach its poll loop")
        check(polling and rec.poll() is None, "record -p attached and polls")
        wl.stdin.close()  # go
        wl_out = wl.stdout.read()
        wl.wait()
        try:
            rec_err = rec.communicate(timeout=120)[1]
        except subprocess.TimeoutExpired:
            rec.kill()
            rec_err = rec.communicate()[1] + " (killed: it did not end with its target)"
        p = subprocess.CompletedProcess(rec.args, rec.returncode, "", rec_err)
        check(p.returncode == 0, "record -p ends when the target exits (%s)" % p.stderr.strip())
        own = WORKLOAD_CPU.search(wl_out)
        cpu = float(own[2]) if own else 0
        rows, pp = perf_samples(out)
        # every round ran while the events were enabled: one sample per 0.2 ms
        # of its CPU time (user mode, nearly all of it)
        check(len(rows) >= 20 and cpu / 0.2 * 0.5 <= len(rows) <= cpu / 0.2 + 20,
              "record -p: %d samples for %.1f ms of the workload's CPU time" % (len(rows), cpu))
        check(all(r[0] == wl.pid for r in rows), "record -p: every sample has pid %d" % wl.pid)
        maps = workload_maps(out)
        check(any(m[0] == wl.pid for m in maps), "synthesized MMAP2 of the running workload")
        hot = sum(in_hot(r[5], maps, syms) for r in rows)
        check(rows and hot >= len(rows) * 0.3, "record -p: %d of %d ips in hot functions"
              % (hot, len(rows)))

        # 4. System-wide while a command runs.
        out = os.path.join(tmp, "sys.data")
        p = run([PM, "record", "-a", "-e", "cpu-clock", "-c", "1000000", "-o", out, "--",
                 WORKLOAD, "300"])
        check(p.returncode == 0, "record -a (%s)" % p.stderr.strip()[-200:])
        rows, _ = perf_samples(out)
        ncpu = os.cpu_count()
        check(len(rows) >= 100, "record -a: %d samples" % len(rows))
        check(all(0 <= r[2] < ncpu for r in rows), "record -a: cpus within 0..%d" % (ncpu - 1))
        check(len({r[2] for r in rows}) == ncpu or ncpu == 1, "record -a: every CPU sampled")

        # 5. page-faults, every fault.
        out = os.path.join(tmp, "pf.data")
        p = run([PM, "record", "-e", "page-faults", "-c", "1", "-o", out, "--", WORKLOAD, "50"])
        rows, _ = perf_samples(out)
        check(len(rows) >= 20 and all(r[4] == 1 for r in rows),
              "page-faults -c 1: %d samples of period 1" % len(rows))

        # 6. Tracepoints (file read back by profileme sample; perf needs TRACING_DATA).
        if os.path.isdir("/sys/kernel/tracing/events/sched") or \
                os.path.isdir("/sys/kernel/debug/tracing/events/sched"):
            p = run([PM, "sample", "--json", "-a", "-e", "sched:sched_switch", "--", "sleep",
                     "0.2"])
            js = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
            check(len(js) >= 2 and all(s["period"] == 1 for s in js),
                  "sched:sched_switch -a: %d samples, period 1" % len(js))
            p = run([PM, "sample", "--json", "-e", "syscalls:sys_enter_write", "--", WORKLOAD,
                     "10"])
            js = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
            check(len(js) >= 1, "syscalls:sys_enter_write: the workload's printf (%d)" % len(js))
            check_tracepoint_file(tmp)
        else:
            print("SKIPPED tracepoints: tracefs is not mounted (mount -t tracefs nodev "
                  "/sys/kernel/tracing)")

        # 7. An interrupted recorder leaves a readable file: killed once it
        # has flushed records (not after a guessed time), while its workload
        # still runs (a minute of wall time, ended below).
        out = os.path.join(tmp, "killed.data")
        rec = subprocess.Popen([PM, "record", "-e", "task-clock:u", "-c", "20000", "-o", out,
                                "--", WORKLOAD, "60000"], stderr=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL)
        check(wait_for(lambda: data_flushed(out) or rec.poll() is not None,
                       "the recorder to flush records") and rec.poll() is None,
              "the recorder flushed records and still runs")
        kids = []
        for t in os.listdir("/proc/%d/task" % rec.pid):
            try:
                with open("/proc/%d/task/%s/children" % (rec.pid, t)) as f:
                    kids += [int(x) for x in f.read().split()]
            except OSError:
                pass
        rec.send_signal(signal.SIGKILL)
        rec.wait()
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        rows, pp = perf_samples(out)
        check(pp.returncode == 0 and len(rows) > 0,
              "perf script reads a killed recorder's file: %d samples" % len(rows))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    check.finish()


main()
