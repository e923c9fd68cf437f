#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Run the compiled test programs under valgrind memcheck.
#   scripts/valgrind.sh [BUILD_DIR]      (default ./build-valgrind)
#   PM_VALGRIND_REUSE=1 scripts/valgrind.sh DIR   use an existing build (CI)
# Configures a plain gcc build (no sanitizers: they do not mix with
# valgrind), builds it, then runs every unit test program (unit.*) and every
# fuzz replay (fuzz.replay.*: the seed corpora and crash regressions) with
#   valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
# Nothing is suppressed.  Tests that start other processes (python, perf,
# shell) are not run here; the sanitizer build covers them.  unit.ring_tsan
# is left out: it is a many-thread stress test written for ThreadSanitizer,
# and valgrind runs threads one at a time (it did not finish in 8 minutes).
# CK_FORK=no keeps Check from forking per test, so valgrind sees the tests.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-valgrind}
jobs=${PM_JOBS:-2}
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind not installed"; exit 2; }

if [ "${PM_VALGRIND_REUSE:-0}" = 1 ]; then
	# CI: the native build of scripts/test.sh, already built (plain gcc, -O2 -g).
	[ -f "$build/CMakeCache.txt" ] || { echo "valgrind.sh: $build is not a build dir"; exit 2; }
else
	mkdir -p "$build"
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DPROFILEME_WERROR=ON \
		-DPROFILEME_WITH_PYTHON=OFF >"$build/valgrind-configure.log" 2>&1 ||
		{ cat "$build/valgrind-configure.log"; exit 2; }
	cmake --build "$build" -j"$jobs" >"$build/valgrind-build.log" 2>&1 || { tail -n 40 "$build/valgrind-build.log"; exit 2; }
fi

# PM_TEST_LIGHT: the ring and file stress tests run fewer rounds (same paths).
export CK_FORK=no PROFILEME_SRCDIR=$root PM_TEST_LIGHT=${PM_TEST_LIGHT:-1}
vg=(valgrind --quiet --error-exitcode=1 --leak-check=full
	--errors-for-leak-kinds=definite,indirect --track-origins=yes)
# The commands ctest would run: unit.* and fuzz.replay.*
mapfile -t tests < <(cd "$build" && ctest -N -R '^(unit|fuzz\.replay)\.' -E '^unit\.ring_tsan$' | sed -n 's/^ *Test *#[0-9]*: //p')
pass=0 fail=0 skip=0
failed=()
for t in "${tests[@]}"; do
	cmdline=$(cd "$build" && ctest -R "^${t//./\\.}\$" --show-only=json-v1 |
		/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); t=d["tests"][0]; print("\0".join(t["command"]))' 2>/dev/null | tr '\0' '\n')
	mapfile -t cmd <<<"$cmdline"
	[ ${#cmd[@]} -gt 0 ] && [ -n "${cmd[0]}" ] || { echo "valgrind.sh: no command for $t"; fail=$((fail + 1)); failed+=("$t"); continue; }
	log=$build/valgrind-$t.log
	t0=$(date +%s)
	(cd "$build" && "${vg[@]}" --log-file="$log.vg" "${cmd[@]}") >"$log" 2>&1
	rc=$?
	if [ $rc -eq 77 ]; then
		skip=$((skip + 1)); r=SKIP
	elif [ $rc -eq 0 ] && [ ! -s "$log.vg" ]; then
		pass=$((pass + 1)); r=PASS
	else
		fail=$((fail + 1)); r="FAIL (exit $rc, see $log.vg)"; failed+=("$t")
	fi
	printf '%-32s %4ss  %s\n' "$t" $(( $(date +%s) - t0 )) "$r"
done
echo "valgrind memcheck: $pass passed, $fail failed, $skip skipped out of ${#tests[@]}"
[ $fail -eq 0 ] || { printf '  failed: %s\n' "${failed[@]}"; exit 1; }
