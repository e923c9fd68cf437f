#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Benchmark (not a ctest): profileme report against perf report --stdio with
# the same sort keys, side by side on the same perf.data, for two recordings
# of at least MIN_MB MB made here (task-clock, without and with -g).
#   usage: tests/bench/bench_report.sh [BUILD_DIR] [MIN_MB]   (default build, 50)
# Each leg runs PM_BENCH_REPEAT times (default 5), the legs interleaved (a
# -j 2 leg too: its CPU and fastest wall time beside -j 1's); the
# fastest CPU time (user + system) counts (tests/bench/cputime.py), peak RSS
# is the largest seen.  Goal (issue 18): >= 8x, peak RSS no larger than before.
# PM_BENCH_OLD=PROFILEME adds an older build's report as one more leg (before
# and after in one run).
set -eu
B=$(cd "${1:-build}" && pwd)
MIN=${2:-50}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PM=$B/bin/profileme
WORKLOAD=$B/bin/workload
R=${PM_BENCH_REPEAT:-5}
command -v perf >/dev/null || { echo "perf missing"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/pm-bench-report.XXXXXX")
trap 'rm -rf "$T"' EXIT
# Kernel symbols (docs/symbol.md, "Kernel symbol cache"): a cache of this
# run's own, made by the warm-up run, so the timed runs use a warm cache
# (PROFILEME_CACHE_DIR= in the environment: none, every run reads kallsyms).
export PROFILEME_CACHE_DIR="${PROFILEME_CACHE_DIR-$T/kcache}"
echo "kernel symbols: ${PROFILEME_CACHE_DIR:+timed runs use a warm cache in $PROFILEME_CACHE_DIR (made by the warm-up run)}${PROFILEME_CACHE_DIR:-no cache (PROFILEME_CACHE_DIR empty): every run reads /proc/kallsyms}"
. "$SRC/tests/bench/bench_record_data.sh"
bench_data "$T/flat.data" "$MIN"
bench_data "$T/g.data" "$MIN" -g
S=comm,dso,sym
for d in flat g; do
	D=$T/$d.data
	perf report -i "$D" --stdio --no-children --sort $S >/dev/null 2>&1 || true # page cache, build-id cache
	"$PM" report -q -i "$D" --sort $S >/dev/null
	/usr/bin/python3 "$SRC/tests/bench/cputime.py" "$R" \
		"perf_report=perf report -i $D --stdio --no-children --sort $S" \
		"profileme_report=$PM report -q -i $D --sort $S" \
		"profileme_report_j2=$PM report -q -j 2 -i $D --sort $S" \
		${PM_BENCH_OLD:+"old_report=$PM_BENCH_OLD report -q -i $D --sort $S"} >"$T/$d.times" 2>"$T/$d.err"
	sort -u "$T/$d.err" | grep -v '^$' | sed 's/^/  (stderr) /' || true
	echo "== $d.data (best of $R interleaved runs)"
	awk -v S=$S '{ cpu[$1] = $2; med[$1] = $3; wall[$1] = $4; rss[$1] = $5 }
	END {
		printf "  %-48s %9s %9s %10s\n", "", "cpu best", "median", "peak RSS";
		printf "  %-48s %8.3fs %8.3fs %8d KB\n", "perf report --stdio --no-children --sort " S,
		       cpu["perf_report"], med["perf_report"], rss["perf_report"];
		printf "  %-48s %8.3fs %8.3fs %8d KB\n", "profileme report --sort " S,
		       cpu["profileme_report"], med["profileme_report"], rss["profileme_report"];
		printf "  report: %.1fx perf report (goal >= 8x; medians %.1fx)   peak RSS %d KB\n",
		       cpu["perf_report"] / cpu["profileme_report"],
		       med["perf_report"] / med["profileme_report"], rss["profileme_report"];
		printf "  report -j 2: cpu %.3fs (-j 1 %.3fs), fastest wall %.3fs (-j 1 %.3fs): %.2fx, peak RSS %d KB\n",
		       cpu["profileme_report_j2"], cpu["profileme_report"], wall["profileme_report_j2"],
		       wall["profileme_report"], wall["profileme_report"] / wall["profileme_report_j2"],
		       rss["profileme_report_j2"];
		if ("old_report" in cpu)
			printf "  before (PM_BENCH_OLD): %.3fs, %.1fx perf report, peak RSS %d KB\n",
			       cpu["old_report"], cpu["perf_report"] / cpu["old_report"], rss["old_report"] }' "$T/$d.times"
done
