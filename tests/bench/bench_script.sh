#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Benchmark (not a ctest): perf script vs profileme script vs the C API on a
# perf.data of at least 50 MB recorded here.
#   usage: tests/bench/bench_script.sh BUILDDIR [PROFILEME]
# Prints CPU time (best and median of PM_BENCH_REPEAT runs) and peak RSS of:
#   perf script      -F event,tid,time,ip,period
#   profileme script -F event,tid,time,ip,period
#   bench_parse (pm_file_read_samples, every sample, no output), time-sorted
#   like perf script and in file order (pm_file_opts.raw_order)
set -eu
B=$(cd "${1:?usage: bench_script.sh BUILDDIR [PROFILEME]}" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PROF=${2:-$B/bin/profileme}
W=$B/bench_script
mkdir -p "$W"
command -v perf >/dev/null || { echo "perf missing"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)"; exit 1; }

cc -O2 -I"$SRC/include" -I"$B/include" -o "$W/bench_parse" "$SRC/tests/bench/bench_parse.c" \
   "$B/lib/libprofileme.a" $(pkg-config --libs libzstd libelf 2>/dev/null) -lpthread
cat > "$W/spin.c" <<'C'
#include <stdlib.h>
static volatile long sink;
int main(int c, char **v) { long n = c > 1 ? atol(v[1]) : 1; for (long i = 0; i < n; i++) sink += i; return 0; }
C
cc -O0 -o "$W/spin" "$W/spin.c"

DATA=$W/big.data
if [ ! -f "$DATA" ] || [ "$(stat -c %s "$DATA")" -lt 52428800 ]; then
	# ~56-byte samples at a high rate: grow the file to >= 50 MB
	secs=2
	while :; do
		perf record -q -o "$DATA" -e task-clock -c 20000 --sample-cpu -- "$W/spin" $((secs * 400000000)) \
			>/dev/null 2>&1 || true
		sz=$(stat -c %s "$DATA" 2>/dev/null || echo 0)
		[ "$sz" -ge 52428800 ] && break
		secs=$((secs * 2))
		[ $secs -gt 128 ] && { echo "cannot grow perf.data past 50 MB"; exit 1; }
	done
fi
echo "perf.data: $(($(stat -c %s "$DATA") / 1048576)) MB, $("$W/bench_parse" "$DATA" | cut -d' ' -f1) samples"

# Every leg runs PM_BENCH_REPEAT times (default 5), the legs interleaved;
# CPU time (user + system, from rusage) of the fastest run counts, the same
# rule for every leg (tests/bench/cputime.py).  One warm-up pass first, so
# that every leg reads the file from the page cache.
F=event,tid,time,ip,period
"$W/bench_parse" "$DATA" >/dev/null
perf script -i "$DATA" -F $F >/dev/null 2>&1
/usr/bin/python3 "$SRC/tests/bench/cputime.py" "${PM_BENCH_REPEAT:-5}" \
	"perf_script=perf script -i $DATA -F $F" \
	"profileme_script=$PROF script -i $DATA -F $F" \
	"c_api_parse=$W/bench_parse $DATA" \
	"c_api_parse_raw_order=$W/bench_parse $DATA raw" > "$W/times.txt"
printf '%-24s %12s %12s %12s\n' "" "cpu (best)" "cpu (median)" "peak RSS"
while read -r label cpu med wall rss st; do
	printf '%-24s %10.3f s %10.3f s %9d KB%s\n' "$label" "$cpu" "$med" "$rss" \
		"$([ "$st" = 0 ] || echo "  (exit status $st)")"
done < "$W/times.txt"
awk '{ t[$1] = $2 } END {
	p = t["perf_script"]; m = t["profileme_script"]; c = t["c_api_parse"]; r = t["c_api_parse_raw_order"];
	printf "profileme script vs perf script:           %.1fx faster (goal >= 3x)\n", p / m;
	printf "C API parse, file order, vs perf script:   %.1fx faster (goal >= 30x)\n", p / r;
	printf "C API parse, time-sorted, vs perf script:  %.1fx faster\n", p / c }' "$W/times.txt"
