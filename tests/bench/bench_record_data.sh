#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Helper of the benchmarks (sourced): bench_data OUT MIN_MB [perf record options]
# records the bundled workload with `perf record -e task-clock -c 5000` (plus
# the options, e.g. -g) into OUT, longer and longer until OUT holds at least
# MIN_MB MB.  $WORKLOAD is the workload program (BUILD/bin/workload).
bench_data() {
	out=$1; min=$2; shift 2
	ms=4000
	while :; do
		perf record -q -e task-clock -c 5000 "$@" -o "$out" -- "$WORKLOAD" $ms >/dev/null 2>&1 ||
			{ echo "perf record failed"; return 1; }
		sz=$(stat -c %s "$out")
		[ "$sz" -ge $((min * 1048576)) ] && break
		# the workload runs for wall-clock milliseconds: on a busy machine it
		# gets less CPU, so grow by what is missing and a fifth more, at
		# most 4 times per step
		f=$((min * 1048576 * 6 / 5 / (sz + 1) + 1))
		[ $f -gt 4 ] && f=4
		ms=$((ms * f))
		[ $ms -gt 600000 ] && { echo "cannot reach $min MB (got $sz bytes)"; return 1; }
	done
	rm -f "$out.old"
	echo "$(basename "$out"): $((sz / 1048576)) MB, perf record -e task-clock -c 5000 $* -- workload $ms"
}
