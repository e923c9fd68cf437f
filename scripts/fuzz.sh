#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Build the libFuzzer harnesses (tests/fuzz) with clang and run each of them.
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# SECONDS per harness (default 20; `scripts/fuzz.sh 600` for a long run).
# HARNESS: format alias sysfs event record file chunks raw_alpha_profileme
# raw_ibs_fetch raw_ibs_op dwarf_line drain sym kcache live (default: all).
# Each harness starts from its seeds (tests/fuzz/corpus/<h>) and the crash
# regressions (tests/fuzz/regressions/<h>); new inputs it finds go to
# BUILD/fuzz-work/<h> (not into the repository), a crash, leak, timeout or
# OOM input to BUILD/fuzz-artifacts/<h>/.  Prints executions and findings
# per harness; exit status 1 when any harness found something.
# Environment: PM_FUZZ_BUILD (default ./build-fuzz), PM_JOBS (default 2),
# PM_FUZZ_ARGS (extra libFuzzer flags).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-20}
shift || true
all=(format alias sysfs event record file chunks raw_alpha_profileme raw_ibs_fetch raw_ibs_op dwarf_line drain sym kcache live)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")
build=${PM_FUZZ_BUILD:-$root/build-fuzz}
jobs=${PM_JOBS:-2}

command -v clang >/dev/null || { echo "fuzz.sh: clang is needed"; exit 2; }
echo "== fuzz: configure and build in $build"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DPROFILEME_FUZZ=ON \
	-DPROFILEME_BUILD_TOOLS=OFF -DPROFILEME_WITH_PYTHON=OFF >"$build/fuzz-configure.log" 2>&1 ||
	{ cat "$build/fuzz-configure.log"; echo "fuzz.sh: configure failed"; exit 2; }
cmake --build "$build" -j"$jobs" --target pm_fuzz_all >"$build/fuzz-build.log" 2>&1 ||
	{ tail -n 40 "$build/fuzz-build.log"; echo "fuzz.sh: build failed"; exit 2; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export PROFILEME_SRCDIR=$root
declare -A execs rate result
found=0
for h in "${harnesses[@]}"; do
	bin=$build/tests/fuzz/fuzz_$h
	[ -x "$bin" ] || { echo "fuzz.sh: no harness '$h'"; exit 2; }
	work=$build/fuzz-work/$h
	art=$build/fuzz-artifacts/$h
	mkdir -p "$work" "$art"
	inputs=("$work")
	for d in corpus regressions; do
		[ -d "$root/tests/fuzz/$d/$h" ] && inputs+=("$root/tests/fuzz/$d/$h")
	done
	log=$build/fuzz-$h.log
	echo "== fuzz_$h for ${secs}s (log: $log)"
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art/" ${PM_FUZZ_ARGS:-} "${inputs[@]}" >"$log" 2>&1
	rc=$?
	execs[$h]=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate[$h]=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	n=$(find "$art" -type f | wc -l)
	if [ "$rc" -ne 0 ] || [ "$n" -ne 0 ]; then
		result[$h]="FOUND $n (exit $rc)"
		found=1
		grep -m 3 -E 'ERROR: |runtime error|invariant failed' "$log" | sed 's/^/   /'
		find "$art" -type f | sed 's/^/   artifact: /'
	else
		result[$h]="none"
	fi
done

echo
echo "== fuzz summary (${secs}s per harness)"
printf '%-22s %12s %9s  %s\n' harness executions exec/s findings
for h in "${harnesses[@]}"; do
	printf '%-22s %12s %9s  %s\n' "$h" "${execs[$h]:-?}" "${rate[$h]:-?}" "${result[$h]}"
done
if [ $found -ne 0 ]; then
	echo "FUZZ FINDINGS: keep each artifact in tests/fuzz/regressions/<harness>/ with the fix"
	exit 1
fi
echo "no findings"
