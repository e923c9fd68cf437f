#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Line coverage of the library (lib/) by the test suite.
#   scripts/coverage.sh [BUILD_DIR]      (default ./build-coverage)
# Configures -DPROFILEME_COVERAGE=ON (gcc --coverage -O0), builds, runs
# ctest, then gcovr over lib/ only: prints the per-file table and the total,
# and writes BUILD_DIR/coverage.html and coverage.txt.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-coverage}
jobs=${PM_JOBS:-2}
command -v gcovr >/dev/null || { echo "coverage.sh: gcovr not installed (apt-get install gcovr)"; exit 2; }

mkdir -p "$build"
cmake -S "$root" -B "$build" -DPROFILEME_COVERAGE=ON -DCMAKE_C_COMPILER=gcc \
	-DCMAKE_BUILD_TYPE=Debug >"$build/coverage-configure.log" 2>&1 || { cat "$build/coverage-configure.log"; exit 2; }
cmake --build "$build" -j"$jobs" >"$build/coverage-build.log" 2>&1 || { tail -n 40 "$build/coverage-build.log"; exit 2; }
find "$build" -name '*.gcda' -delete
(cd "$build" && ctest -j"$jobs" --timeout 900 >"$build/coverage-ctest.log" 2>&1)
grep -E '[0-9]+% tests passed' "$build/coverage-ctest.log"
gcovr --root "$root" --filter "$root/lib/" --object-directory "$build" \
	--txt "$build/coverage.txt" --html-details "$build/coverage.html" --print-summary "$build" |
	tail -n 3
cat "$build/coverage.txt"
echo "library line coverage: $(grep -E '^TOTAL' "$build/coverage.txt" | awk '{print $NF}')"
