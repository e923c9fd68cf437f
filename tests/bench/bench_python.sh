#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The Python binding against the tools people use instead, on the same
# perf.data of at least 50 MB: the time to get every sample's time, tid and ip
# into numpy with profileme.open(...).samples(), with perf's own Python
# scripting (`perf script -s` with an empty process_event), and with a
# hand-written struct loop (tests/bench/bench_python.py).  Prints ratios.
#   tests/bench/bench_python.sh [BUILD_DIR] [PERF_DATA]
# Without PERF_DATA a recording of the bundled workload is made (task-clock,
# period 10 us, two copies of the workload) in a temporary directory.
# PM_BENCH_REPEAT (default 3): timed runs per leg, the fastest counts.
# Goals: >= 100x faster than perf's Python scripting, >= 20x faster than the
# struct loop, peak memory <= 1.5x the arrays returned; to_pandas(symbols=True)
# (comm, dso, sym, symoff by the library's symbolizer) under 3x samples() of
# every column (the CPU times of both legs are printed beside: kallsyms is
# read on a thread of its own, which a busy machine does not overlap).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build}
build=$(cd "$build" && pwd)
py=/usr/bin/python3
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Kernel symbols (docs/symbol.md, "Kernel symbol cache"): a cache of this
# run's own, made by the warm-up run, so the timed runs use a warm cache
# (PROFILEME_CACHE_DIR= in the environment: none, every run reads kallsyms).
export PROFILEME_CACHE_DIR="${PROFILEME_CACHE_DIR-$tmp/kcache}"
echo "kernel symbols: ${PROFILEME_CACHE_DIR:+timed runs use a warm cache in $PROFILEME_CACHE_DIR (made by the warm-up run)}${PROFILEME_CACHE_DIR:-no cache (PROFILEME_CACHE_DIR empty): every run reads /proc/kallsyms}"
data=${2:-}
if [ -z "$data" ]; then
	data=$tmp/big.data
	echo "recording $data ..."
	perf record -q -e task-clock -c 10000 -o "$data" -- \
		sh -c "'$build/bin/workload' 8000 & '$build/bin/workload' 8000; wait" >/dev/null 2>&1
fi
size=$(stat -c %s "$data")
echo "file: $data ($((size / 1048576)) MB)"
[ "$size" -ge $((50 * 1048576)) ] || echo "WARNING: the file is smaller than 50 MB"

# Every leg: one warm-up run (page cache), then REPEAT timed runs, each in a
# fresh process; the fastest counts (the machine may be shared: the minimum
# is the least disturbed run).  Same rule for every leg.
repeat=${PM_BENCH_REPEAT:-3}
run() {
	"$py" "$here/bench_python.py" "$1" "$data" >/dev/null
	best=""
	i=0
	while [ "$i" -lt "$repeat" ]; do
		out=$("$py" "$here/bench_python.py" "$1" "$data")
		t=$(echo "$out" | cut -d' ' -f2)
		if [ -z "$best" ] || [ "$(echo "$t < $(echo "$best" | cut -d' ' -f2)" | bc -l)" = 1 ]; then
			best=$out
		fi
		i=$((i + 1))
	done
	echo "$best"
}
pm=$(run profileme)
st=$(run struct)
sa=$(run samples)
sy=$(run symbols)
echo "$pm"
echo "$st"
echo "$sa"
echo "$sy"

perf_t=""
if perf version --build-options 2>/dev/null | grep -q 'libpython: \[ on'; then
	printf 'def process_event(param_dict):\n    pass\n' > "$tmp/empty.py"
	perf script -i "$data" -s "$tmp/empty.py" >/dev/null 2>&1 || true   # warm
	i=0
	while [ "$i" -lt "$repeat" ]; do
		t0=$(date +%s.%N)
		perf script -i "$data" -s "$tmp/empty.py" >/dev/null 2>"$tmp/perf.err" || { cat "$tmp/perf.err"; exit 1; }
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$perf_t" ] || [ "$(echo "$t < $perf_t" | bc -l)" = 1 ]; then
			perf_t=$t
		fi
		i=$((i + 1))
	done
	echo "perf-script-python $perf_t"
else
	echo "perf here has no Python scripting (libpython off): that leg is skipped"
fi

"$py" - "$pm" "$st" "$perf_t" "$sa" "$sy" <<'PY'
import sys
pm, st, perf_t = sys.argv[1].split(), sys.argv[2].split(), sys.argv[3]
sa, sy = sys.argv[4].split(), sys.argv[5].split()
t_pm, n_pm, peak, arr = float(pm[1]), int(pm[2]), int(pm[3]), int(pm[4])
t_st, n_st = float(st[1]), int(st[2])
ok = True
print("samples: profileme %d, struct loop %d%s" % (n_pm, n_st, "" if n_pm == n_st else "  MISMATCH"))
if pm[5] != st[5]:
    print("checksums differ: profileme %s, struct loop %s" % (pm[5], st[5])); ok = False
print("profileme.samples(): %.3f s (%.1f M samples/s)" % (t_pm, n_pm / t_pm / 1e6))
r = t_st / t_pm
print("struct loop:         %.3f s  -> profileme is %.0fx faster (goal >= 20x) %s" % (t_st, r, "ok" if r >= 20 else "MISSED"))
ok &= r >= 20
if perf_t:
    r = float(perf_t) / t_pm
    print("perf script -s:      %.3f s  -> profileme is %.0fx faster (goal >= 100x) %s" % (float(perf_t), r, "ok" if r >= 100 else "MISSED"))
    ok &= r >= 100
m = peak / arr
print("peak traced memory %.1f MB for arrays of %.1f MB: %.2fx (goal <= 1.5x) %s" % (peak / 1e6, arr / 1e6, m, "ok" if m <= 1.5 else "MISSED"))
ok &= m <= 1.5
t_sa, t_sy = float(sa[1]), float(sy[1])
if int(sa[2]) != int(sy[2]):
    print("rows differ: samples() %s, to_pandas(symbols=True) %s" % (sa[2], sy[2])); ok = False
r = t_sy / t_sa
c_sa, c_sy = float(sa[6]), float(sy[6])
print("samples() (every column):  %.3f s (CPU %.3f s)" % (t_sa, c_sa))
print("to_pandas(symbols=True):   %.3f s (CPU %.3f s)  -> %.2fx samples() (goal < 3x) %s; CPU %.2fx"
      % (t_sy, c_sy, r, "ok" if r < 3 else "MISSED", c_sy / c_sa))
ok &= r < 3
sys.exit(0 if ok else 1)
PY
