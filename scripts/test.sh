#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The whole test suite of libprofileme, as CI runs it (.ci/run calls this).
#   scripts/test.sh [STEP...]     STEP: native fuzz valgrind asan alpha s390x (default: all)
# Steps, each in its own build dir under build-ci/ (reused when rerun):
#   native  configure with -DPROFILEME_WERROR=ON, build, ctest
#   fuzz    every libFuzzer harness for 5 s (clang build, scripts/fuzz.sh)
#   valgrind  memcheck over the unit tests and fuzz replays of the native build
#           (scripts/valgrind.sh; the stress tests run lighter, PM_TEST_LIGHT)
#   asan    the same with -DPROFILEME_SANITIZE=ON (AddressSanitizer + UBSan), ctest
#   alpha   cross build for alpha-linux-gnu, ctest under qemu-alpha (8 KiB pages)
#   s390x   cross build for s390x-linux-gnu, ctest under qemu-s390x (big endian)
# Every step runs even when an earlier one failed; a summary follows and the
# exit status is non-zero if any step failed.
# Environment: PM_JOBS (default 2), PM_BUILD_ROOT (default ./build-ci),
# PM_SKIP_SETUP=1 to skip the package check.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${PM_JOBS:-2}
broot=${PM_BUILD_ROOT:-$root/build-ci}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(native fuzz valgrind asan alpha s390x)

if [ "${PM_SKIP_SETUP:-0}" != 1 ]; then
	"$root/scripts/setup.sh" || { echo "test.sh: package setup failed"; exit 1; }
fi
mkdir -p "$broot/logs"

native() {
	cmake -S "$root" -B "$broot/native" -DPROFILEME_WERROR=ON &&
		cmake --build "$broot/native" -j"$jobs" &&
		(cd "$broot/native" && ctest -j"$jobs" --output-on-failure --timeout 600)
}
# libFuzzer (clang): every harness for 5 s, findings fail the step.
fuzz() { PM_FUZZ_BUILD="$broot/fuzz" "$root/scripts/fuzz.sh" 5; }
# valgrind memcheck over the unit tests and fuzz replays of the native build.
valgrind_() { PM_VALGRIND_REUSE=1 "$root/scripts/valgrind.sh" "$broot/native"; }
asan() {
	# gcc's sanitizers; abort on the first report of either.
	export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	cmake -S "$root" -B "$broot/asan" -DPROFILEME_WERROR=ON -DPROFILEME_SANITIZE=ON \
		-DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Debug &&
		cmake --build "$broot/asan" -j"$jobs" &&
		(cd "$broot/asan" && ctest -j"$jobs" --output-on-failure --timeout 900)
}
alpha() { PM_JOBS=$jobs "$root/scripts/cross.sh" alpha-linux-gnu "$broot/alpha"; }
s390x() { PM_JOBS=$jobs "$root/scripts/cross.sh" s390x-linux-gnu "$broot/s390x"; }

declare -A result took tests
failed=0
for s in "${steps[@]}"; do
	case $s in native|fuzz|valgrind|asan|alpha|s390x) ;; *) echo "test.sh: unknown step '$s'"; exit 2 ;; esac
	log=$broot/logs/$s.log
	echo "=================== $s (log: $log)"
	t0=$(date +%s)
	fn=$s; [ "$s" = valgrind ] && fn=valgrind_
	( "$fn" ) 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	took[$s]=$(( $(date +%s) - t0 ))
	if [ "$rc" -eq 0 ]; then result[$s]=PASS; else result[$s]=FAIL; failed=1; fi
	# "100% tests passed, 0 tests failed out of 42" and the skipped count
	line=$(grep -E '[0-9]+% tests passed|^valgrind memcheck:|^no findings$|^FUZZ FINDINGS' "$log" | tail -n 1)
	nskip=$(grep -cE '\*\*\*Skipped|Not Run' "$log")
	tests[$s]="${line:-no ctest summary (configure or build failed?)}${line:+, $nskip skipped}"
done

echo
echo "=================== summary"
for s in "${steps[@]}"; do
	printf '%-7s %-4s %4ss  %s\n' "$s" "${result[$s]}" "${took[$s]}" "${tests[$s]}"
	if [ "${result[$s]}" = FAIL ]; then
		grep -E '^\s+[0-9]+ - .*\((Failed|SEGFAULT|Timeout|Not Run|Subprocess aborted|Exception)' \
			"$broot/logs/$s.log" | sed 's/^/          /'
	fi
done
if [ $failed -ne 0 ]; then
	echo "FAILED (logs in $broot/logs)"
	exit 1
fi
echo "ALL PASSED"
