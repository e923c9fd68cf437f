#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Benchmark (not a ctest): perf script vs profileme script vs the C API on a
# perf.data of at least 50 MB recorded here.
#   usage: tests/bench/bench_script.sh BUILDDIR [PROFILEME]
# Prints wall time and peak RSS (from /usr/bin/time -v) of:
#   perf script      -F event,tid,time,ip,period
#   profileme script -F event,tid,time,ip,period
#   bench_parse (pm_file_read_samples, every sample, no output)
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

run() { # label, command...   (ratios use CPU time: wall time is noisy on a shared machine)
	label=$1; shift
	/usr/bin/time -v "$@" >/dev/null 2>"$W/time.txt"
	t=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$W/time.txt")
	u=$(sed -n 's/.*User time (seconds): //p' "$W/time.txt")
	sy=$(sed -n 's/.*System time (seconds): //p' "$W/time.txt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$W/time.txt")
	secs=$(echo "$t" | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
	cpu=$(awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }')
	printf '%-34s %9.2f s %9.2f s %10d KB\n' "$label" "$secs" "$cpu" "$rss"
	echo "$cpu" > "$W/t.$label"
}
F=event,tid,time,ip,period
printf '%-34s %11s %11s %13s\n' "" "wall" "cpu" "peak RSS"
run perf_script perf script -i "$DATA" -F $F
run profileme_script "$PROF" script -i "$DATA" -F $F
run c_api_parse "$W/bench_parse" "$DATA"
run c_api_parse_raw_order "$W/bench_parse" "$DATA" raw
tp=$(cat "$W/t.perf_script"); tm=$(cat "$W/t.profileme_script"); tc=$(cat "$W/t.c_api_parse")
tr=$(cat "$W/t.c_api_parse_raw_order")
awk -v p="$tp" -v m="$tm" -v c="$tc" -v r="$tr" 'BEGIN {
	if (m < 0.01) m = 0.01; if (c < 0.01) c = 0.01; if (r < 0.01) r = 0.01;
	printf "profileme script vs perf script:      %.1fx faster (goal >= 3x)\n", p / m;
	printf "C API parse (time-sorted) vs perf:    %.1fx faster (goal >= 30x)\n", p / c;
	printf "C API parse (file order) vs perf:     %.1fx faster\n", p / r }'
