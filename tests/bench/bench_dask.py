#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Fleet-scale reading: the same recordings read by profileme.dask on 1 and 2
workers and by the C reader (pm_columns_opts.threads) on 1 and 2 threads.
Not a ctest (it records about 2 x MB of perf.data).

    PYTHONPATH=BUILD/python /usr/bin/python3 tests/bench/bench_dask.py BUILD [--mb 1024]
        [--files 16] [--kind dwarf|g|plain] [--dir DIR] [--reps 5] [--no-dask]

Two sets of real perf recordings of two spinning processes (task-clock):
`many` (FILES files of MB/FILES each) and `large` (one file of MB), kept in
DIR (default /tmp/pm-bench-dask) and reused when present.  KIND: `dwarf`
(perf record --call-graph dwarf,512: ~750-byte samples, the default, so that
a GB records in about 30 s), `g` (frame-pointer callchains) or `plain`
(~56-byte samples; slow to grow).

Legs, per set: the C reader (bench_chunks) with 1 and 2 threads, and its two
floors: `io` (pread of the data bytes only, 1 and 2 threads: what any reader
of the page cache pays) and `scan` (the chunk index alone, 1 and 2 pieces:
the pass the threaded reader makes before it decodes); Dask read_samples()
on a LocalCluster of 1 and of 2 worker processes (one thread each, both
clusters started and warmed before the clock: long-lived workers), every
partition's rows counted with map_partitions(len) (every column decoded
and converted to pandas), divisions as the default "auto" chooses them (the
16 files: False, each file's chunk index a task on a worker; the one file:
True, its index built by the client in one piece per CPU, in the time counted).  The legs are interleaved: each of REPS rounds runs every leg
once, in an order rotated from round to round, so that a change of the
machine's load hits every leg alike.

Per leg: wall seconds (fastest and median of the rounds), CPU seconds
(user + system; fastest round; Dask: every worker plus this process, which
runs the client and the scheduler; and the busiest worker), MB/s and
samples/s of the fastest wall, peak RSS (the process; Dask: the largest
worker), the load average over the leg.  Per set and pair of legs: the wall
speed-up 1 -> 2, and the CPU bound: the best wall speed-up two idle cores
can give with the CPU the legs took (one-leg CPU over the larger of half
the two-leg CPU and its busiest worker), which a loaded machine does not
distort much.  The wall speed-up is only meaningful on an idle machine
(compare the load figures).
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


def c_run(bench, mode, threads, paths):
    argv = [bench] + ([mode] if mode else []) + [str(threads)] + paths
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE).stdout.decode().split()
    d = dict(zip(out[0::2], out[1::2]))
    return {"wall_s": float(d["wall_s"]), "cpu_s": float(d["cpu_s"]),
            "cpu_max": float(d["cpu_s"]), "samples": int(d["samples"]),
            "peak_rss_kb": int(d["peak_rss_kb"]), "read_bytes": int(d.get("read_bytes", 0)),
            "extra": "read %.2f GB" % (int(d.get("read_bytes", 0)) / 1e9)}


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class DaskLeg:
    """A LocalCluster of `workers` worker processes, started and warmed once."""

    def __init__(self, workers):
        import dask
        import distributed
        dask.config.set({"distributed.comm.timeouts.connect": "120s"})
        self.cl = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, dashboard_address=None,
                                           silence_logs=40, memory_limit=0)
        self.client = distributed.Client(self.cl, set_as_default=False)
        # long-lived workers have the modules loaded: not timed
        self.client.run(lambda: __import__("profileme.dask"))

    def run(self, paths, chunk_bytes):
        import profileme.dask as pmd
        c = self.client
        cpu0, me0 = c.run(_cpu), _cpu()
        t0 = time.monotonic()
        with c.as_current():    # two clients are alive: this one computes
            # divisions="auto" (the default): many files, each file's index a task;
            # one file, its index here (in pieces, one per CPU)
            ddf = pmd.read_samples(paths, chunk_bytes=chunk_bytes)
            t1 = time.monotonic()
            n = int(c.compute(ddf.map_partitions(len)).result().sum())
        t2 = time.monotonic()
        cpu = [v - cpu0[k] for k, v in c.run(_cpu).items()]
        me = _cpu() - me0
        rss = c.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        return {"wall_s": t2 - t0, "cpu_s": sum(cpu) + me, "cpu_max": max(cpu), "samples": n,
                "peak_rss_kb": max(rss.values()),
                "extra": "%d partitions, graph %.3f s, client+scheduler CPU %.3f s, "
                         "workers %s s" % (ddf.npartitions, t1 - t0, me,
                                           "/".join("%.3f" % x for x in sorted(cpu)))}

    def close(self):
        self.client.close()
        self.cl.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--kind", default="dwarf", choices=["dwarf", "g", "plain"])
    ap.add_argument("--dir", default="/tmp/pm-bench-dask")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--chunk-mb", type=int, default=64)
    ap.add_argument("--no-dask", action="store_true", help="the C legs only")
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
    # warm the page cache: every leg reads from memory
    for paths in sets.values():
        for p in paths:
            with open(p, "rb") as f:
                while f.read(8 << 20):
                    pass
    legs = []
    for name, paths in sets.items():
        for mode, label in (("--io", "C io"), ("--scan", "C scan"), (None, "C read")):
            for t in (1, 2):
                legs.append((name, "%s -j%d" % (label, t),
                             (lambda paths=paths, mode=mode, t=t: c_run(bench, mode, t, paths))))
    clusters = {}
    if not a.no_dask:
        for wk in (1, 2):
            clusters[wk] = DaskLeg(wk)
        for name, paths in sets.items():
            for wk in (1, 2):
                legs.append((name, "dask %dw" % wk,
                             (lambda paths=paths, wk=wk:
                              clusters[wk].run(paths, a.chunk_mb << 20))))
    print("kind %s, %d MB chunks for Dask, 8 MiB chunks for the C reader; machine: %d CPUs, "
          "%d rounds, legs interleaved; load average %.1f at the start"
          % (a.kind, a.chunk_mb, os.cpu_count(), a.reps, os.getloadavg()[0]))
    res = {k: [] for k in range(len(legs))}
    loads = {k: [] for k in range(len(legs))}
    try:
        for r in range(a.reps):
            order = list(range(len(legs)))
            order = order[r % len(order):] + order[:r % len(order)]
            if r % 2:
                order.reverse()
            for k in order:
                l0 = os.getloadavg()[0]
                res[k].append(legs[k][2]())
                loads[k] += [l0, os.getloadavg()[0]]
    finally:
        for c in clusters.values():
            c.close()
    print("%-6s %-12s %8s %8s %8s %8s %8s %11s %8s  %s" % (
        "set", "leg", "wall_min", "wall_med", "cpu_s", "cpu_max", "MB/s", "samples/s",
        "rss_MB", "load / detail"))
    best = {}
    for k, (name, label, _) in enumerate(legs):
        rs = res[k]
        w = sorted(x["wall_s"] for x in rs)
        b = min(rs, key=lambda x: x["wall_s"])
        cpu = min(x["cpu_s"] for x in rs)
        cmax = min(x["cpu_max"] for x in rs)
        mb = sum(os.path.getsize(p) for p in sets[name]) / 1048576.0
        best[(name, label)] = (w[0], cpu, cmax)
        print("%-6s %-12s %8.3f %8.3f %8.3f %8.3f %8.0f %11.0f %8.1f  load %.1f-%.1f; %s" % (
            name, label, w[0], w[len(w) // 2], cpu, cmax, mb / w[0], b["samples"] / w[0],
            b["peak_rss_kb"] / 1024.0, min(loads[k]), max(loads[k]), b["extra"]))
    print("speed-ups 1 -> 2 (wall: this machine now; CPU bound: what two idle cores can give "
          "with this CPU)")
    for name in sets:
        for one, two in (("C io -j1", "C io -j2"), ("C scan -j1", "C scan -j2"),
                         ("C read -j1", "C read -j2"), ("dask 1w", "dask 2w")):
            if (name, one) not in best or (name, two) not in best:
                continue
            w1, c1, _ = best[(name, one)]
            w2, c2, m2 = best[(name, two)]
            bound = c1 / max(c2 / 2, m2 if two.startswith("dask") else 0)
            print("  %-6s %-22s wall %.2fx   CPU %.3f -> %.3f s: bound %.2fx" % (
                name, one.rsplit(" ", 1)[0] + " 1->2", w1 / w2, c1, c2, bound))


if __name__ == "__main__":
    main()
