#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Benchmark (not a ctest): JSON of a real recording.
#   usage: tests/bench/bench_json.sh BUILDDIR [OLD_PROFILEME]
# 1. bench_json: the library's writer (pm_json_sample()) against json-c on
#    every sample of a perf recording made here (task-clock, -g, --sample-cpu),
#    and the ratio (docs/json.md); needs json-c's headers (libjson-c-dev),
#    only for this benchmark: the library does not use json-c.
# 2. `profileme script --json` of the same recording: CPU time (best and
#    median of PM_BENCH_REPEAT runs) of BUILDDIR's CLI and, when given,
#    OLD_PROFILEME (a CLI built before JSON moved into the library).
set -eu
B=$(cd "${1:?usage: bench_json.sh BUILDDIR [OLD_PROFILEME]}" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OLD=${2:-}
W=$B/bench_json
mkdir -p "$W"
command -v perf >/dev/null || { echo "perf missing"; exit 1; }

DATA=$W/json.data
if [ ! -f "$DATA" ]; then
	perf record -q -o "$DATA" -e task-clock -c 50000 -g --sample-cpu -- \
		sh -c 'for i in 1 2 3 4 5 6; do ls -lR /usr/lib >/dev/null 2>&1; done' >/dev/null 2>&1
fi
echo "perf.data: $(($(stat -c %s "$DATA") / 1024)) KB"

if pkg-config --exists json-c; then
	cc -O2 -I"$SRC/include" -I"$B/include" -o "$W/bench_json" "$SRC/tests/bench/bench_json.c" \
	   "$B/lib/libprofileme.a" $(pkg-config --cflags --libs json-c) \
	   $(pkg-config --libs libzstd libelf 2>/dev/null) -lpthread
	"$W/bench_json" "$DATA"
else
	echo "json-c headers missing (libjson-c-dev): writer vs json-c leg skipped"
fi

set -- "new_script_json=$B/bin/profileme script --json -i $DATA"
[ -n "$OLD" ] && set -- "$@" "old_script_json=$OLD script --json -i $DATA"
"$B/bin/profileme" script --json -i "$DATA" >/dev/null
/usr/bin/python3 "$SRC/tests/bench/cputime.py" "${PM_BENCH_REPEAT:-5}" "$@" > "$W/times.txt"
printf '%-24s %12s %12s %12s\n' "" "cpu (best)" "cpu (median)" "peak RSS"
while read -r label cpu med wall rss st; do
	printf '%-24s %10.3f s %10.3f s %9d KB%s\n' "$label" "$cpu" "$med" "$rss" \
		"$([ "$st" = 0 ] || echo "  (exit status $st)")"
done < "$W/times.txt"
if [ -n "$OLD" ]; then
	"$B/bin/profileme" script --json -i "$DATA" | sha256sum > "$W/new.sha"
	"$OLD" script --json -i "$DATA" | sha256sum > "$W/old.sha"
	cmp -s "$W/new.sha" "$W/old.sha" && echo "script --json: old and new output byte-identical" ||
		echo "script --json: old and new output DIFFER"
fi
