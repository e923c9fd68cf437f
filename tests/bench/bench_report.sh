#!/bin/sh
# profileme report vs perf report --stdio on the same perf.data (>= 50 MB):
# wall time and peak RSS (/usr/bin/time -v), and the ratios.
# usage: bench_report.sh [BUILD_DIR] [MIN_MB]   (default build, 50)
# Goal: profileme >= 3x faster, memory no larger.
set -eu
B=${1:-build}
MIN=${2:-50}
PM=$B/bin/profileme
W=$B/bin/workload
T=${TMPDIR:-/tmp}/pm-bench-report.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
D=$T/perf.data
n=3000
c=10000
while :; do
	perf record -q -g -e task-clock -c $c -o "$D" -- "$W" $n >/dev/null 2>&1
	mb=$(( $(stat -c %s "$D") / 1048576 ))
	[ "$mb" -ge "$MIN" ] && break
	c=$((c / 2))
	[ $c -lt 1000 ] && { echo "cannot reach $MIN MB (got $mb)"; exit 1; }
done
echo "perf.data: $mb MB (workload $n, -g, task-clock -c $c)"
measure() { # name cmd...: prints "secs kb"
	name=$1; shift
	/usr/bin/time -v "$@" >"$T/$name.out" 2>"$T/$name.time"
	s=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/$name.time" |
		awk -F: '{ t = 0; for (i = 1; i <= NF; i++) t = t * 60 + $i; print t }')
	k=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/$name.time")
	echo "$s $k"
}
perf report -i "$D" --stdio --sort comm,dso,sym >/dev/null 2>&1 || true   # warm the caches
set -- $(measure perf perf report -i "$D" --stdio --no-children --sort comm,dso,sym)
ps=$1; pk=$2
set -- $(measure pm "$PM" report -q -i "$D" --sort comm,dso,sym)
ms=$1; mk=$2
printf '%-28s %10s %12s\n' "" "time (s)" "peak RSS (KB)"
printf '%-28s %10s %12s\n' "perf report --stdio" "$ps" "$pk"
printf '%-28s %10s %12s\n' "profileme report" "$ms" "$mk"
awk -v ps="$ps" -v ms="$ms" -v pk="$pk" -v mk="$mk" 'BEGIN {
	printf "speed-up: %.1fx (goal >= 3x)   memory: %.2fx of perf (goal <= 1)\n",
	       (ms > 0 ? ps / ms : 0), (pk > 0 ? mk / pk : 0) }'
