#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# report -j N (issue 20) gives what report -j 1 gives, byte for byte (stdout,
# stderr, exit status), on real perf recordings made here (task-clock flat,
# -g, -z, pipe mode), on SYNTHETIC ProfileMe and IBS recordings of tests/gen
# (little and big endian, pipe), on the bundled recordings and on every
# input of the file reader's fuzz corpus (damaged files among them), with
# small chunks (PROFILEME_JOBS_CHUNK_BYTES) so that the small files have
# several; PROFILEME_JOBS_VERBOSE=1 says which files were read in chunks on
# threads, and the test checks that the file-mode recordings were (the flat
# and -g perf recordings, the synthetic file-mode ones) and that pipe and -z
# ones were read by one thread.
# usage: test_report_jobs.sh <profileme> <source dir>
set -u
PM=$1
SRC=$2
B=${PM_TEST_BINDIR:-.}
TMP=${TMPDIR:-/tmp}/pm-cli-jobs.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
fails=0
n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
PY=/usr/bin/python3
SYMFS=$SRC/examples/data/symfs

windowed=""  # files that must be read in windows
onethread="" # files that must be read by one thread
k=0
for f in "$SRC"/tests/fuzz/corpus/file/*; do
	k=$((k + 1))
	tail -c +2 "$f" >"$TMP/corpus-$k.data" # byte 0 is the harness's flags
done
cp "$SRC"/examples/data/*.data "$TMP/" 2>/dev/null
if [ -x "$PY" ]; then
	for s in 1 2; do
		"$PY" "$SRC/tests/gen/gen_profileme.py" "$TMP/gen-pm$s.data" --samples 3000 --seed $s >/dev/null &&
			windowed="$windowed gen-pm$s.data"
		"$PY" "$SRC/tests/gen/gen_ibs.py" "$TMP/gen-ibs$s.data" --samples 3000 --seed $s >/dev/null &&
			windowed="$windowed gen-ibs$s.data"
	done
	"$PY" "$SRC/tests/gen/gen_profileme.py" "$TMP/gen-pm-be.data" --samples 3000 --big-endian >/dev/null &&
		windowed="$windowed gen-pm-be.data"
	"$PY" "$SRC/tests/gen/gen_profileme.py" "$TMP/gen-pm-pipe.data" --samples 3000 --pipe >/dev/null &&
		onethread="$onethread gen-pm-pipe.data"
fi
WL=$B/bin/workload
if command -v perf >/dev/null && [ -x "$WL" ] &&
   perf record -q -e task-clock -c 10000 -o "$TMP/perf-flat.data" -- "$WL" 400 >/dev/null 2>&1; then
	windowed="$windowed perf-flat.data"
	perf record -q -g -e task-clock -c 10000 -o "$TMP/perf-g.data" -- "$WL" 300 >/dev/null 2>&1 &&
		windowed="$windowed perf-g.data"
	perf record -q -z -e task-clock -c 10000 -o "$TMP/perf-z.data" -- "$WL" 300 >/dev/null 2>&1 &&
		onethread="$onethread perf-z.data"
	perf record -q -e task-clock -c 10000 -o - -- "$WL" 300 >"$TMP/perf-pipe.data" 2>/dev/null &&
		onethread="$onethread perf-pipe.data"
else
	echo "note: no perf recording made here (perf missing or not permitted)"
fi

export PROFILEME_JOBS_CHUNK_BYTES=65536
for d in "$TMP"/*.data; do
	case $(basename "$d") in
	gen-*) in="-i $d --symfs $SYMFS --kallsyms $SYMFS/kallsyms" ;;
	*) in="-i $d" ;;
	esac
	for sort in comm,dso,sym "dso,comm,pid,sym,pc --json" "sym,pc --skid"; do
		"$PM" report -q $in --sort $sort >"$TMP/one" 2>"$TMP/one.err"
		a=$?
		for j in 2 3; do
			"$PM" report -q -j $j $in --sort $sort >"$TMP/par" 2>"$TMP/par.err"
			b=$?
			n=$((n + 1))
			[ $a = $b ] || fail "$(basename "$d") -j $j --sort $sort: exit $b, -j 1 $a"
			cmp -s "$TMP/one" "$TMP/par" || fail "$(basename "$d") -j $j --sort $sort: output differs"
			cmp -s "$TMP/one.err" "$TMP/par.err" || fail "$(basename "$d") -j $j --sort $sort: stderr differs"
		done
	done
done
echo "report -j: $n runs compared with -j 1"

# the windows were used where they must be, and not where they must not
for f in $windowed; do
	case $f in
	gen-*) in="-i $TMP/$f --symfs $SYMFS --kallsyms $SYMFS/kallsyms" ;;
	*) in="-i $TMP/$f" ;;
	esac
	PROFILEME_JOBS_VERBOSE=1 "$PM" report -q -j 2 $in >/dev/null 2>"$TMP/dbg"
	grep -q "^profileme report: [0-9]* chunks on 2 threads (stream)" "$TMP/dbg" ||
		fail "$f: -j 2 not read in chunks on 2 threads: $(cat "$TMP/dbg")"
done
for f in $onethread; do
	PROFILEME_JOBS_VERBOSE=1 "$PM" report -q -j 2 -i "$TMP/$f" >/dev/null 2>"$TMP/dbg"
	! grep -q "chunks on" "$TMP/dbg" ||
		fail "$f: -j 2 read in chunks (pipe or -z): $(cat "$TMP/dbg")"
done
echo "chunks: $(echo $windowed | wc -w) files in chunks on threads, $(echo $onethread | wc -w) by one thread"

# the option's values
for bad in "-j 0" "-j x" "--jobs=2000" "-j"; do
	"$PM" report $bad -i "$TMP/perf-flat.data" >/dev/null 2>"$TMP/err"
	[ $? = 2 ] && grep -q "^profileme report: -.*threads\|^profileme report: -j wants a value" "$TMP/err" || fail "report $bad: $(cat "$TMP/err")"
done
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "report -j N agrees with -j 1"
