#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Side by side: perf record and profileme record sampling the same workload
# at the same event and period (the recorder's own CPU time measured apart
# from the workload's), then the drain rate of the
# ring reader on a saturated in-memory ring.
#
# usage: tests/bench/bench_record.sh BUILDDIR [EVENT] [PERIOD] [MS]
#   e.g. tests/bench/bench_record.sh build task-clock 10000 2000
set -u
B=${1:?usage: bench_record.sh BUILDDIR [EVENT] [PERIOD] [MS]}
EV=${2:-task-clock}
PERIOD=${3:-10000}
MS=${4:-2000}
PM=$B/bin/profileme
WL=$B/bin/workload
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }

# Run a recorder on the workload (as its command); print samples, lost and
# the recorder's own CPU time (utime+stime of its /proc/PID/stat, children
# excluded, read until it exits).
one() { # name, recorder argv...
	local name=$1; shift
	local cpu
	cpu=$(/usr/bin/python3 - "$@" <<'PY'
import os, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
tick, last = os.sysconf("SC_CLK_TCK"), 0.0
while p.poll() is None:
    try:
        with open("/proc/%d/stat" % p.pid) as f:
            f = f.read().rsplit(")", 1)[1].split()
        last = (int(f[11]) + int(f[12])) / tick
    except (OSError, IndexError, ValueError):
        pass
    time.sleep(0.01)
print("%.2f" % last)
PY
)
	local samples lost
	samples=$(perf script -i "$T/$name.data" 2>/dev/null | wc -l)
	lost=$(perf report -D -i "$T/$name.data" 2>/dev/null | awk '/PERF_RECORD_LOST/ {n++} END {print n+0}')
	printf "%-10s samples %8d   lost records %4d   recorder CPU %s s\n" "$name" "$samples" \
		"$lost" "$cpu"
}

echo "event $EV, period $PERIOD, workload $MS ms"
one perf perf record -q -e "$EV" -c "$PERIOD" -o "$T/perf.data" -- "$WL" "$MS"
one profileme "$PM" record -q -e "$EV" -c "$PERIOD" -o "$T/profileme.data" -- "$WL" "$MS"

# Drain rate on a saturated ring: a 1 MiB in-memory ring filled with 64-byte
# records, drained with pm_ring_drain, again and again.
cat >"$T/drain.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <profileme/ring.h>
static int cb(const void *r, size_t n, void *u) { (void)r; *(size_t *)u += n; return 0; }
int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 1 << 20, rsz = 64, bytes = 0;
	unsigned char *m;
	pm_ring *r;
	struct timespec a, b;
	unsigned long long recs = 0;
	if (posix_memalign((void **)&m, page, page + size)) return 1;
	memset(m, 0, page + size);
	for (size_t o = 0; o < size; o += rsz) { /* PERF_RECORD_SAMPLE, host order */
		unsigned t = 9; unsigned short misc = 0, sz = (unsigned short)rsz;
		memcpy(m + page + o, &t, 4); memcpy(m + page + o + 4, &misc, 2); memcpy(m + page + o + 6, &sz, 2);
	}
	if (pm_ring_new_from_memory(&r, m, page, size, 0)) return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long long head = size; head <= 400ULL * size; head += size) {
		__atomic_store_n((unsigned long long *)(m + 1024), head, __ATOMIC_RELEASE);
		recs += (unsigned long long)pm_ring_drain(r, cb, &bytes, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("drain      %llu records of %zu bytes in %.3f s: %.1f M records/s, %.2f GB/s\n",
	       recs, rsz, s, recs / s / 1e6, bytes / s / 1e9);
	pm_ring_free(r);
	return 0;
}
C
if cc -O2 -I"$SRC/include" -I"$B/include" "$T/drain.c" "$B/lib/libprofileme.a" -lpthread \
	$(pkg-config --libs libelf libzstd 2>/dev/null) -o "$T/drain" 2>"$T/cc.err"; then
	"$T/drain"
else
	echo "drain benchmark did not build:"; cat "$T/cc.err"
fi
