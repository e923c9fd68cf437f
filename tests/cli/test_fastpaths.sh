#!/bin/sh
# The fast paths give what the general paths give (issue 18), on the bundled
# recordings, on every input of the fuzz corpus of the file reader, and on
# real perf recordings made here (task-clock with and without -g):
#  - report: row keys hashed by the names' addresses (a memo), symbol
#    lookups remembered by (pid, address) until the symbolizer learns
#    something, the core fields of each sample (pm_file_sample_core()) and
#    samples alike summed between two side records before they are resolved
#    (rep_run_n), against the bytes hashed per sample, every lookup asked,
#    every sample parsed whole by pm_file_sample() and resolved alone
#    (PROFILEME_REPORT_NO_MEMO=1 PROFILEME_SYM_NO_MEMO=1
#    PROFILEME_REPORT_NO_CORE=1 PROFILEME_REPORT_NO_SUM=1), every sort key;
#  - script: the same lookup memo against none (PROFILEME_SYM_NO_MEMO=1),
#    and the line of a sample's core fields (pm_file_sample_core(), written
#    through one pointer: sample_text_core) against the general formatter
#    (PROFILEME_SCRIPT_NO_FAST=1), for perf's default fields, -F tid,time,ip,
#    -F with symbols and every core field, --ns, and --json with symbols
#    (the name and dso lengths the memo keeps with an answer against strlen);
#  - the C API's time-sorted rows (the bulk reader pm_columns_read_rows, its
#    direct field loads) against pm_file_next + pm_file_sample, and file order against
#    file order (bench_parse rows / next / raw vs rawnext, every field summed);
#    and both against the reader's general path (PROFILEME_FILE_NO_FAST=1: no
#    batches of records, no pushes into the sort queue in one go).
# usage: test_fastpaths.sh <profileme> <source dir>
set -u
PM=$1
SRC=$2
B=${PM_TEST_BINDIR:-.}
TMP=${TMPDIR:-/tmp}/pm-cli-fast.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
fails=0
n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A cross build runs profileme through its emulator (bin/profileme-run):
# C API programs get the same emulator, and a quarter of the corpus is used.
RUN=
every=1
case $PM in
*/profileme-run)
	RUN=$(sed -n "s|^exec \(.*\)'$B/bin/profileme' \"\$@\"\$|\1|p" "$PM")
	every=4
	;;
esac
k=0
for f in "$SRC"/tests/fuzz/corpus/file/*; do
	k=$((k + 1))
	[ $((k % every)) = 0 ] || continue
	tail -c +2 "$f" >"$TMP/corpus-$(basename "$f").data" # byte 0 is the harness's flags
done
cp "$SRC"/examples/data/*.data "$TMP/" 2>/dev/null
if command -v perf >/dev/null && [ -x "$B/bin/workload" ] &&
   perf record -q -e task-clock -c 20000 -o "$TMP/perf-flat.data" -- "$B/bin/workload" 300 >/dev/null 2>&1 &&
   perf record -q -g -e task-clock -c 20000 -o "$TMP/perf-g.data" -- "$B/bin/workload" 300 >/dev/null 2>&1; then
	:
	# one address resolved before and after its map (a stale answer would show)
	/usr/bin/python3 "$SRC/tests/cli/stale_sample.py" "$TMP/perf-flat.data" "$TMP/perf-stale.data" ||
		echo "note: no stale-lookup file made from the recording"
else
	echo "note: no perf recording made here (perf missing or not permitted); corpus and bundled files only"
fi

for d in "$TMP"/*.data; do
	# every key once in a text table and in JSON, and perf's default keys
	for sort in comm,dso,sym "dso,comm,pid,sym,pc --json" "sym,pc"; do
		"$PM" report -q -i "$d" --sort $sort >"$TMP/fast" 2>"$TMP/fast.err"
		a=$?
		PROFILEME_REPORT_NO_MEMO=1 PROFILEME_SYM_NO_MEMO=1 PROFILEME_REPORT_NO_CORE=1 \
			PROFILEME_REPORT_NO_SUM=1 "$PM" report -q -i "$d" --sort $sort >"$TMP/slow" 2>"$TMP/slow.err"
		b=$?
		n=$((n + 1))
		[ $a = $b ] || fail "$(basename "$d") --sort $sort: exit $a, general path $b"
		cmp -s "$TMP/fast" "$TMP/slow" || fail "$(basename "$d") --sort $sort: output differs"
		cmp -s "$TMP/fast.err" "$TMP/slow.err" || fail "$(basename "$d") --sort $sort: stderr differs"
	done
done
echo "report: $n runs compared"

n=0
for d in "$TMP"/*.data; do
	for F in "" "--json -F tid,ip,sym,dso" "-F comm,tid,ip,sym,symoff,dso" "-F tid,time,ip" \
		 "--ns -F comm,pid,tid,cpu,time,period,event,addr,ip,sym,symoff,dso"; do
		"$PM" script -i "$d" $F >"$TMP/fast" 2>"$TMP/fast.err"
		a=$?
		PROFILEME_SYM_NO_MEMO=1 PROFILEME_SCRIPT_NO_FAST=1 "$PM" script -i "$d" $F >"$TMP/slow" 2>"$TMP/slow.err"
		b=$?
		n=$((n + 1))
		[ $a = $b ] || fail "$(basename "$d") script $F: exit $a, general path $b"
		cmp -s "$TMP/fast" "$TMP/slow" || fail "$(basename "$d") script $F: output differs"
		cmp -s "$TMP/fast.err" "$TMP/slow.err" || fail "$(basename "$d") script $F: stderr differs"
	done
done
echo "script: $n runs compared"

BP=$B/tests/bench/bench_parse
if [ -x "$BP" ] && { [ "$(basename "$PM")" != profileme-run ] || [ -n "$RUN" ]; }; then
	m=0
	for d in "$TMP"/*.data; do
		eval "$RUN \"\$BP\" \"\$d\" rows" >"$TMP/rows" 2>&1; a=$?
		eval "$RUN \"\$BP\" \"\$d\" next" >"$TMP/next" 2>&1; b=$?
		eval "$RUN \"\$BP\" \"\$d\" raw" >"$TMP/raw" 2>&1; c=$?
		eval "$RUN \"\$BP\" \"\$d\" rawnext" >"$TMP/rawnext" 2>&1; e=$?
		# the reader's general path: no batches, no pushes in one go
		export PROFILEME_FILE_NO_FAST=1
		eval "$RUN \"\$BP\" \"\$d\" next" >"$TMP/gnext" 2>&1; g=$?
		eval "$RUN \"\$BP\" \"\$d\" rows" >"$TMP/grows" 2>&1; h=$?
		eval "$RUN \"\$BP\" \"\$d\" raw" >"$TMP/graw" 2>&1; i=$?
		unset PROFILEME_FILE_NO_FAST
		m=$((m + 1))
		[ $a = $g ] && cmp -s "$TMP/rows" "$TMP/gnext" ||
			fail "$(basename "$d"): time-sorted rows ($a: $(cat "$TMP/rows")) != next on the general path ($g: $(cat "$TMP/gnext"))"
		[ $a = $h ] && cmp -s "$TMP/rows" "$TMP/grows" ||
			fail "$(basename "$d"): time-sorted rows ($a: $(cat "$TMP/rows")) != rows on the general path ($h: $(cat "$TMP/grows"))"
		[ $c = $i ] && cmp -s "$TMP/raw" "$TMP/graw" ||
			fail "$(basename "$d"): file-order rows ($c: $(cat "$TMP/raw")) != rows on the general path ($i: $(cat "$TMP/graw"))"
		[ $a = $b ] && cmp -s "$TMP/rows" "$TMP/next" ||
			fail "$(basename "$d"): time-sorted rows ($a: $(cat "$TMP/rows")) != next ($b: $(cat "$TMP/next"))"
		[ $c = $e ] && cmp -s "$TMP/raw" "$TMP/rawnext" ||
			fail "$(basename "$d"): file-order rows ($c: $(cat "$TMP/raw")) != next ($e: $(cat "$TMP/rawnext"))"
	done
	echo "C API rows: $m files compared"
else
	echo "note: $BP not built (or no emulator for it); C API rows not compared"
fi
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "all fast paths agree"
