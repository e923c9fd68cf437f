#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Benchmark (not a ctest): profileme script and the C API parse against perf
# script, side by side on the same perf.data, for two recordings of at least
# MIN_MB MB made here (task-clock, without and with -g).
#   usage: tests/bench/bench_script.sh BUILDDIR [MIN_MB] [PROFILEME]   (default 50)
# Legs (each PM_BENCH_REPEAT times, default 5, interleaved; the fastest CPU
# time counts, tests/bench/cputime.py):
#   perf script / profileme script -F tid,time,ip
#   perf script / profileme script with perf's default fields
#   perf script -F comm,pid,tid,time,period,event,ip (the fields --json has)
#       / profileme script --json
#   bench_parse: the bulk reader (pm_columns_read_rows), every sample, no output: time-sorted
#       (like perf script) and in file order (pm_file_opts.raw_order)
#   cat FILE (to /dev/null): reading the file
#   profileme script -j 2 for each field set (issue 20): CPU and wall time
#       against -j 1 (the wall time is what -j is for; on a loaded machine
#       it says little, the CPU time says what the second thread costs)
# Goals (issue 18): script >= 10x perf script for each field set; time-sorted
# parse >= 30x perf script -F tid,time,ip; file-order parse within 2x of cat.
# PM_BENCH_OLD=PROFILEME adds an older build's script legs (before and after
# in one run).
set -eu
B=$(cd "${1:?usage: bench_script.sh BUILDDIR [MIN_MB] [PROFILEME]}" && pwd)
MIN=${2:-50}
PROF=${3:-$B/bin/profileme}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORKLOAD=$B/bin/workload
R=${PM_BENCH_REPEAT:-5}
command -v perf >/dev/null || { echo "perf missing"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/pm-bench-script.XXXXXX")
trap 'rm -rf "$T"' EXIT
# Kernel symbols (docs/symbol.md, "Kernel symbol cache"): a cache of this
# run's own, made by the warm-up run, so the timed runs use a warm cache
# (PROFILEME_CACHE_DIR= in the environment: none, every run reads kallsyms).
export PROFILEME_CACHE_DIR="${PROFILEME_CACHE_DIR-$T/kcache}"
echo "kernel symbols: ${PROFILEME_CACHE_DIR:+timed runs use a warm cache in $PROFILEME_CACHE_DIR (made by the warm-up run)}${PROFILEME_CACHE_DIR:-no cache (PROFILEME_CACHE_DIR empty): every run reads /proc/kallsyms}"
BP=$B/tests/bench/bench_parse
[ -x "$BP" ] || { echo "$BP missing (build the benchmarks)"; exit 1; }
. "$SRC/tests/bench/bench_record_data.sh"
bench_data "$T/flat.data" "$MIN"
bench_data "$T/g.data" "$MIN" -g
J=comm,pid,tid,time,period,event,ip
# the default fields also with the kernel's symbols from a copy of kallsyms
# (--kallsyms FILE: no read of /proc/kallsyms, no symbol cache)
cp /proc/kallsyms "$T/kallsyms"
for d in flat g; do
	D=$T/$d.data
	echo "== $d.data: $("$BP" "$D" | cut -d' ' -f1) samples"
	for w in "" "-F tid,time,ip"; do perf script -i "$D" $w >/dev/null 2>&1; done # page cache
	"$PROF" script -i "$D" >/dev/null # warm-up: the kernel symbol cache
	/usr/bin/python3 "$SRC/tests/bench/cputime.py" "$R" \
		"perf_tti=perf script -i $D -F tid,time,ip" \
		"pm_tti=$PROF script -i $D -F tid,time,ip" \
		"perf_default=perf script -i $D" \
		"pm_default=$PROF script -i $D" \
		"perf_default_k=perf script -i $D --kallsyms $T/kallsyms" \
		"pm_default_k=$PROF script -i $D --kallsyms $T/kallsyms" \
		"perf_jsonfields=perf script -i $D -F $J" \
		"pm_json=$PROF script -i $D --json" \
		"parse_sorted=$BP $D" \
		"parse_file_order=$BP $D raw" \
		"cat=cat $D" \
		"pm_tti_j2=$PROF script -i $D -F tid,time,ip -j 2" \
		"pm_default_j2=$PROF script -i $D -j 2" \
		"pm_json_j2=$PROF script -i $D --json -j 2" \
		${PM_BENCH_OLD:+"old_tti=$PM_BENCH_OLD script -i $D -F tid,time,ip"} \
		${PM_BENCH_OLD:+"old_default=$PM_BENCH_OLD script -i $D"} \
		${PM_BENCH_OLD:+"old_json=$PM_BENCH_OLD script -i $D --json"} >"$T/$d.times" 2>"$T/$d.err"
	# perf's "lost N chunks" warnings (the machine was busy while recording) once
	sort -u "$T/$d.err" | grep -v '^$' | sed 's/^/  (stderr) /' || true
	awk -v R="$R" '{ c[$1] = $2; m[$1] = $3; w[$1] = $4; r[$1] = $5; n[NR] = $1 }
	END {
		printf "  %-18s %9s %9s %9s %10s\n", "leg", "cpu best", "median", "wall best", "peak RSS";
		for (i = 1; i <= NR; i++)
			printf "  %-18s %8.4fs %8.4fs %8.4fs %8d KB\n", n[i], c[n[i]], m[n[i]], w[n[i]], r[n[i]];
		printf "  script -F tid,time,ip:          %5.1fx perf script (goal >= 10x; medians %.1fx)\n",
		       c["perf_tti"] / c["pm_tti"], m["perf_tti"] / m["pm_tti"];
		printf "  script, default fields:         %5.1fx perf script (goal >= 10x; medians %.1fx)\n",
		       c["perf_default"] / c["pm_default"], m["perf_default"] / m["pm_default"];
		printf "  script, default, --kallsyms FILE: %5.1fx perf script --kallsyms FILE (goal >= 10x; medians %.1fx)\n",
		       c["perf_default_k"] / c["pm_default_k"], m["perf_default_k"] / m["pm_default_k"];
		printf "  script --json:                  %5.1fx perf script -F the same fields (goal >= 10x; medians %.1fx)\n",
		       c["perf_jsonfields"] / c["pm_json"], m["perf_jsonfields"] / m["pm_json"];
		printf "  C API parse, time-sorted:       %5.1fx perf script -F tid,time,ip (goal >= 30x; medians %.1fx)\n",
		       c["perf_tti"] / c["parse_sorted"], m["perf_tti"] / m["parse_sorted"];
		printf "  C API parse, file order:        %5.2fx the time of cat (goal <= 2x; medians %.2fx)\n",
		       c["parse_file_order"] / c["cat"], m["parse_file_order"] / m["cat"];
		printf "  script -j 2 / -j 1, wall (CPU): -F tid,time,ip %.2fx (%.2fx), default %.2fx (%.2fx), --json %.2fx (%.2fx)\n",
		       w["pm_tti"] / w["pm_tti_j2"], c["pm_tti_j2"] / c["pm_tti"],
		       w["pm_default"] / w["pm_default_j2"], c["pm_default_j2"] / c["pm_default"],
		       w["pm_json"] / w["pm_json_j2"], c["pm_json_j2"] / c["pm_json"];
		if ("old_tti" in c)
			printf "  before (PM_BENCH_OLD): -F tid,time,ip %.1fx, default %.1fx, --json %.1fx\n",
			       c["perf_tti"] / c["old_tti"], c["perf_default"] / c["old_default"],
			       c["perf_jsonfields"] / c["old_json"] }' "$T/$d.times"
done
