#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Time commands side by side: each leg runs REPEAT times, the legs
interleaved (leg1, leg2, ..., leg1, leg2, ...), each run in a fresh process
with its output thrown away.  CPU time (user + system) and peak RSS come from
wait4()'s rusage (microsecond resolution, unlike /usr/bin/time's 10 ms) and
/usr/bin/time's %M.
The fastest run of each leg counts: on a shared machine the minimum is the
least disturbed run, and the same rule applies to every leg.

usage: cputime.py REPEAT LABEL=CMD [LABEL=CMD ...]
CMD is split on spaces.  Prints one line per leg:
    LABEL MIN_CPU_S MEDIAN_CPU_S MIN_WALL_S MAX_RSS_KB EXIT_STATUS
"""
import os
import sys
import tempfile
import time


def run(cmd, rss_file):
    # Peak RSS comes from /usr/bin/time (%M): rusage maxrss of a process
    # started from Python also counts this Python's pages (the kernel keeps
    # the high-water mark across exec).  CPU time comes from wait4() on
    # /usr/bin/time, which includes the command it waited for (time's own
    # share is well under a millisecond).
    t0 = time.perf_counter()
    argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    rss = 0
    with open(rss_file) as f:
        for line in f:
            if line.strip().isdigit():
                rss = int(line)
    return ru.ru_utime + ru.ru_stime, wall, rss, os.waitstatus_to_exitcode(status)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    repeat = max(1, int(sys.argv[1]))
    legs = []
    for arg in sys.argv[2:]:
        label, _, cmd = arg.partition("=")
        legs.append((label, cmd.split()))
    res = {label: [] for label, _ in legs}
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as tf:
        for _ in range(repeat):
            for label, cmd in legs:
                res[label].append(run(cmd, tf.name))
    for label, _ in legs:
        r = res[label]
        cpu = sorted(x[0] for x in r)
        print("%s %.4f %.4f %.4f %d %d" % (label, cpu[0], cpu[len(cpu) // 2],
                                          min(x[1] for x in r), max(x[2] for x in r),
                                          max(abs(x[3]) for x in r)))


if __name__ == "__main__":
    main()
