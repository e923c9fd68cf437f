#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Benchmark (not a ctest): the C API parse (tests/bench/bench_parse, the bulk
# row reader) against perf script -F tid,time,ip and against cat, side by
# side on the same perf.data, for two recordings of at least MIN_MB MB made
# here (task-clock, without and with -g), issue 18's goals:
#   time-sorted parse >= 30x perf script -F tid,time,ip
#   file-order parse (pm_file_opts.raw_order) within 2x of cat FILE >/dev/null
#   usage: tests/bench/bench_parse.sh BUILDDIR [MIN_MB]   (default 50)
# Each leg runs PM_BENCH_REPEAT times (default 5), the legs interleaved; the
# fastest CPU time counts (tests/bench/cputime.py), medians beside it.
# PM_BENCH_OLD_PARSE=OLD/tests/bench/bench_parse adds an older build's parse
# legs (before and after in one run); PM_BENCH_DATA=DIR takes DIR/flat.data
# and DIR/g.data instead of recording them (kept afterwards).
set -eu
B=$(cd "${1:?usage: bench_parse.sh BUILDDIR [MIN_MB]}" && pwd)
MIN=${2:-50}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORKLOAD=$B/bin/workload
R=${PM_BENCH_REPEAT:-5}
OLD=${PM_BENCH_OLD_PARSE:-}
command -v perf >/dev/null || { echo "perf missing"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)"; exit 1; }
BP=$B/tests/bench/bench_parse
[ -x "$BP" ] || { echo "$BP missing (build the benchmarks)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/pm-bench-parse.XXXXXX")
trap 'rm -rf "$T"' EXIT
if [ -n "${PM_BENCH_DATA:-}" ]; then
	D0=$PM_BENCH_DATA
else
	D0=$T
	. "$SRC/tests/bench/bench_record_data.sh"
	bench_data "$T/flat.data" "$MIN"
	bench_data "$T/g.data" "$MIN" -g
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for d in flat g; do
	D=$D0/$d.data
	[ -f "$D" ] || { echo "$D missing"; exit 1; }
	echo "== $d.data: $(($(stat -c %s "$D") / 1048576)) MB, $("$BP" "$D" | cut -d' ' -f1) samples"
	if [ -n "$OLD" ]; then
		# the same rows before and after (the checksum covers every field)
		for m in rows raw; do
			[ "$("$OLD" "$D" $m)" = "$("$BP" "$D" $m)" ] ||
				echo "  WARNING: $m: the older build's rows differ"
		done
	fi
	perf script -i "$D" -F tid,time,ip >/dev/null 2>&1 # page cache
	/usr/bin/python3 "$SRC/tests/bench/cputime.py" "$R" \
		"perf_tti=perf script -i $D -F tid,time,ip" \
		"parse_sorted=$BP $D" \
		"parse_file_order=$BP $D raw" \
		${OLD:+"old_sorted=$OLD $D"} \
		${OLD:+"old_file_order=$OLD $D raw"} \
		"cat=cat $D" >"$T/$d.times" 2>"$T/$d.err"
	sort -u "$T/$d.err" | grep -v '^$' | sed 's/^/  (stderr) /' || true
	awk '{ c[$1] = $2; m[$1] = $3; r[$1] = $5; n[NR] = $1 }
	END {
		printf "  %-18s %9s %9s %10s\n", "leg", "cpu best", "median", "peak RSS";
		for (i = 1; i <= NR; i++)
			printf "  %-18s %8.4fs %8.4fs %8d KB\n", n[i], c[n[i]], m[n[i]], r[n[i]];
		printf "  C API parse, time-sorted:  %5.1fx perf script -F tid,time,ip (goal >= 30x; medians %.1fx)\n",
		       c["perf_tti"] / c["parse_sorted"], m["perf_tti"] / m["parse_sorted"];
		printf "  C API parse, file order:   %5.2fx the time of cat (goal <= 2x; medians %.2fx)\n",
		       c["parse_file_order"] / c["cat"], m["parse_file_order"] / m["cat"];
		if ("old_sorted" in c)
			printf "  before (PM_BENCH_OLD_PARSE): time-sorted %.1fx perf script, file order %.2fx cat\n",
			       c["perf_tti"] / c["old_sorted"], c["old_file_order"] / c["cat"] }' "$T/$d.times"
done
