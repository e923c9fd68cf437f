#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Fleet-scale reading: the same recordings read by profileme.dask on 1 and 2
workers and by the C reader (pm_columns_opts.threads) on 1 and 2 threads.
Not a ctest (it records about 2 x MB of perf.data).

    PYTHONPATH=BUILD/python /usr/bin/python3 tests/bench/bench_dask.py BUILD [--mb 1024]
        [--files 16] [--kind dwarf|g|plain] [--dir DIR] [--reps 3]

Two sets of real perf recordings of two spinning processes (task-clock):
`many` (FILES files of MB/FILES each) and `large` (one file of MB), kept in
DIR (default /tmp/pm-bench-dask) and reused when present.  KIND: `dwarf`
(perf record --call-graph dwarf,512: ~750-byte samples, the default, so that
a GB records in about 30 s), `g` (frame-pointer callchains) or `plain`
(~56-byte samples; slow to grow).  Prints, per set and leg: wall seconds
(best of REPS), MB/s, samples/s, speed-up over one worker/thread, peak RSS
per worker (the C reader: the process), and for Dask the CPU time of the
busiest worker: on a machine shared with other work, the CPU speed-up (one
worker's CPU time over the busiest of two) is what two idle cores would
give, the wall-time speed-up what this machine gave.  The Dask legs count every
partition's rows (`ddf.map_partitions(len)`: every column decoded and
converted to pandas), with `divisions=False` (each file's chunk index is
a task on a worker); the time of read_samples() itself (headers only, on
the client) is given apart and included in the total; the workers import
profileme before the clock starts (as long-lived workers have).  Each
line ends with the load average before and after the leg.
"""
import argparse
import os
import resource
import subprocess
import sys
import time


def record(path, mb, kind, spin):
    """Grow one recording of two spinning processes to about mb MB."""
    ev = ["-e", "task-clock", "-c", "20000"]
    extra = {"dwarf": ["--call-graph", "dwarf,512"], "g": ["-g"], "plain": []}[kind]
    rate = {"dwarf": 55.0, "g": 3.0, "plain": 2.5}[kind]     # MB per second of spinning, guessed
    secs = max(mb / rate / 2, 0.5)
    for _ in range(6):
        n = int(secs * 400e6)
        subprocess.run(["perf", "record", "-q", "-o", path] + ev + extra +
                       ["--", "sh", "-c", '"$0" %d & "$0" %d & wait' % (n, n), spin],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        got = os.path.getsize(path) / 1048576.0
        if got >= 0.9 * mb:
            return
        secs *= mb / max(got, 0.1) * 1.1
    raise SystemExit("cannot grow %s to %d MB" % (path, mb))


def c_leg(bench, threads, paths, reps):
    best = None
    for _ in range(reps):
        out = subprocess.run([bench, str(threads)] + paths, check=True,
                             stdout=subprocess.PIPE).stdout.decode().split()
        d = dict(zip(out[0::2], out[1::2]))
        if best is None or float(d["wall_s"]) < float(best["wall_s"]):
            best = d
    return best


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def dask_leg(paths, workers, reps, chunk_bytes):
    import dask
    import distributed
    import profileme.dask as pmd
    best = None
    with dask.config.set({"distributed.comm.timeouts.connect": "120s"}):
        for _ in range(reps):
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                          dashboard_address=None, silence_logs=40,
                                          memory_limit=0) as cl, \
                    distributed.Client(cl) as client:
                # long-lived workers have the modules loaded: not timed
                client.run(lambda: __import__("profileme.dask"))
                cpu0 = client.run(_cpu)
                t0 = time.monotonic()
                # the chunk indexes are tasks on the workers (no scan on the client)
                ddf = pmd.read_samples(paths, chunk_bytes=chunk_bytes, divisions=False)
                t1 = time.monotonic()
                n = int(ddf.map_partitions(len).compute().sum())
                t2 = time.monotonic()
                rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
                cpu = [v - cpu0[k] for k, v in client.run(_cpu).items()]
            r = {"scan_s": t1 - t0, "wall_s": t2 - t0, "samples": n, "cpu_max": max(cpu),
                 "cpu_sum": sum(cpu), "parts": ddf.npartitions, "peak_rss_kb": max(rss.values())}
            if best is None or r["wall_s"] < best["wall_s"]:
                best = r
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--kind", default="dwarf", choices=["dwarf", "g", "plain"])
    ap.add_argument("--dir", default="/tmp/pm-bench-dask")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--chunk-mb", type=int, default=64)
    a = ap.parse_args()
    bench = os.path.join(a.build, "tests", "bench", "bench_chunks")
    if not os.path.exists(bench):
        raise SystemExit("build bench_chunks first: cmake --build %s --target bench_chunks" % a.build)
    os.makedirs(a.dir, exist_ok=True)
    spin = os.path.join(a.dir, "spin")
    if not os.path.exists(spin):
        src = spin + ".c"
        with open(src, "w") as f:
            f.write("#include <stdlib.h>\nstatic volatile long sink;\nint main(int c, char **v) "
                    "{ long n = c > 1 ? atol(v[1]) : 1; for (long i = 0; i < n; i++) sink += i; "
                    "return 0; }\n")
        subprocess.run(["cc", "-O0", "-o", spin, src], check=True)
    sets = {"many": [os.path.join(a.dir, "%s-%02d.data" % (a.kind, i)) for i in range(a.files)],
            "large": [os.path.join(a.dir, "%s-large.data" % a.kind)]}
    for name, paths in sets.items():
        each = a.mb // len(paths)
        for p in paths:
            if not os.path.exists(p) or os.path.getsize(p) < 0.9 * each * 1048576:
                print("recording %s (%d MB)" % (p, each), file=sys.stderr)
                record(p, each, a.kind, spin)
    print("kind %s, %d MB chunks for Dask, 8 MiB chunks for the C reader; machine: %d CPUs, "
          "load average %.1f (shared: figures vary with its load)"
          % (a.kind, a.chunk_mb, os.cpu_count(), os.getloadavg()[0]))
    print("%-6s %-14s %8s %9s %12s %8s %12s" % ("set", "leg", "wall_s", "MB/s", "samples/s",
                                                 "speedup", "peak_rss_MB"))
    for name, paths in sets.items():
        mb = sum(os.path.getsize(p) for p in paths) / 1048576.0
        base = None
        for t in (1, 2):
            l0 = os.getloadavg()[0]
            r = c_leg(bench, t, paths, a.reps)
            w = float(r["wall_s"])
            base = base or w
            print("%-6s %-14s %8.3f %9.1f %12.0f %8.2f %12.1f   (CPU %.3f s; load %.1f-%.1f)" % (
                name, "C -j%d" % t, w, mb / w, int(r["samples"]) / w, base / w,
                int(r["peak_rss_kb"]) / 1024.0, float(r["cpu_s"]), l0, os.getloadavg()[0]))
            sys.stdout.flush()
        base = cbase = None
        for wk in (1, 2):
            l0 = os.getloadavg()[0]
            r = dask_leg(paths, wk, a.reps, a.chunk_mb << 20)
            w = r["wall_s"]
            base = base or w
            cbase = cbase or r["cpu_max"]
            print("%-6s %-14s %8.3f %9.1f %12.0f %8.2f %12.1f   (%d partitions, build %.3f s; "
                  "worker CPU max %.3f s sum %.3f s: CPU speed-up %.2f; load %.1f-%.1f)" % (
                      name, "dask %d worker%s" % (wk, "s" if wk > 1 else ""), w, mb / w,
                      r["samples"] / w, base / w, r["peak_rss_kb"] / 1024.0, r["parts"],
                      r["scan_s"], r["cpu_max"], r["cpu_sum"], cbase / r["cpu_max"], l0,
                      os.getloadavg()[0]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
