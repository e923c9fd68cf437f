#!/bin/sh
# profileme report / annotate command line: --json keys, --sort combinations,
# errors, annotate on the synthetic ProfileMe recording and on a live one.
# usage: test_report.sh <profileme> <source dir>
set -u
PM=$1
SRC=$2
PY=/usr/bin/python3
DATA=$SRC/examples/data/profileme-synthetic.data
TMP=${TMPDIR:-/tmp}/pm-cli-report.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -qF -- "$2" "$1" || fail "'$2' not in $1: $(head -c 1500 "$1")"; }

# --json: every row has samples, overhead and exactly the sort keys asked for
for sort in sym dso pc comm pid sym,dso comm,dso,sym pid,pc dso,comm,pid,sym,pc; do
	"$PM" report -q -i "$DATA" --sort "$sort" --json >"$TMP/j" 2>"$TMP/e" || fail "--sort $sort exited $?"
	$PY - "$TMP/j" "$sort" <<'PYEOF' || fail "json keys for --sort $sort"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = set(sys.argv[2].split(","))
assert rows, "no rows"
for r in rows:
    have = {k for k in ("sym", "dso", "pc", "comm", "pid") if k in r}
    assert have == keys, (have, keys)
    assert isinstance(r["samples"], int) and 0 <= r["overhead"] <= 100
assert sum(r["samples"] for r in rows) == 202, sum(r["samples"] for r in rows)
assert any("not_killed" in r and "pctr1_q1" in r and "traps" in r for r in rows)
assert not any("retired" in r for r in rows)
PYEOF
done
# text table: perf-like header and markers
"$PM" report -q -i "$DATA" --sort comm,dso,sym >"$TMP/t" || fail "text report exited $?"
has "$TMP/t" "# Samples: 202 of event 'cpu/event=0x2,profileme/u' (synthetic)"
has "$TMP/t" "# Overhead       Samples"
has "$TMP/t" "[k] [PALcode]"
has "$TMP/t" "NotKilled  Killed  Stall%  Trap%  Misp%"
has "$TMP/t" "pmdemo"
# the synthetic recording is symbolized from examples/data/symfs (found next to it)
if [ "${PM_HAVE_LIBELF:-1}" = 1 ]; then
	has "$TMP/t" "[.] list_walk"
	has "$TMP/t" "[k] do_page_fault"
else
	echo "SKIPPED symbol checks: this build has no libelf (the cross builds), so no symbols"
fi
# errors
"$PM" report -i "$DATA" --sort bogus >/dev/null 2>"$TMP/e" && fail "bad sort key accepted"
has "$TMP/e" "unknown sort key 'bogus'"
"$PM" report -i "$TMP/none.data" >/dev/null 2>"$TMP/e" && fail "missing file accepted"
# annotate: a function of the synthetic program (its Alpha ELF is in examples/data/symfs)
if [ "${PM_HAVE_LIBELF:-1}" = 1 ]; then
	"$PM" annotate list_walk -i "$DATA" -q >"$TMP/a" || fail "annotate exited $?"
	has "$TMP/a" "Kill Stall  Trap  Misp    PCTR1"
	has "$TMP/a" "(synthetic): list_walk in /usr/bin/pmdemo"
	if command -v alpha-linux-gnu-objdump >/dev/null; then
		grep -qE '^ +[0-9.]+% +[0-9]+ .*: +[0-9a-f]+:	ldq	' "$TMP/a" || fail "no Alpha disassembly: $(head -20 "$TMP/a")"
	fi
fi
# without the symbols (an empty --symfs), per-address counts of [unknown]
mkdir -p "$TMP/nosym"
# (without libelf the symbolizer is a stub that knows no maps: module [unknown])
nodso=pmdemo
[ "${PM_HAVE_LIBELF:-1}" = 1 ] || nodso='[unknown]'
"$PM" annotate '[unknown]' --dso "$nodso" --symfs "$TMP/nosym" -i "$DATA" -q >"$TMP/a2" ||
	fail "annotate [unknown] exited $?"
has "$TMP/a2" "(synthetic)"
"$PM" annotate no_such_symbol -i "$DATA" -q >/dev/null 2>"$TMP/e" && fail "annotate of a missing symbol succeeded"
has "$TMP/e" "no samples in symbol 'no_such_symbol'"

# the default event on a ProfileMe PMU is one the driver maps: event code 1
# (cycles, what perf's cycles:P is there), never code 0
PROFILEME_SYSFS=$SRC/tests/fixtures/sysfs/alpha "$PM" record -o "$TMP/pmdef.data" -- true \
	>/dev/null 2>"$TMP/pmdef"
has "$TMP/pmdef" "no -e given; sampling 'cpu/event=0x1,profileme/'"
grep -q "event=0x0" "$SRC/scripts/demo.sh" "$SRC/README.md" && fail "demo or README uses event code 0"

# live: report -- CMD records first, annotate disassembles with objdump
W=${PM_TEST_BINDIR:-$(dirname "$PM")/..}/bin/workload
if [ -x "$W" ]; then
	if "$PM" report -e task-clock -c 100000 -o "$TMP/live.data" --sort sym --json -- "$W" 300 \
		>"$TMP/lj" 2>"$TMP/le"; then
		has "$TMP/le" "recording into $TMP/live.data"
		has "$TMP/lj" '"sym":"matrix_multiply"'
		if command -v objdump >/dev/null; then
			"$PM" annotate matrix_multiply -i "$TMP/live.data" -q >"$TMP/la" || fail "annotate live exited $?"
			has "$TMP/la" "# profileme annotate: matrix_multiply in"
			grep -qE '^ +[0-9.]+% +[0-9]+ : +[0-9a-f]+:	' "$TMP/la" || fail "no counted disassembly: $(head -20 "$TMP/la")"
		fi
		"$PM" report -e task-clock -- "$W" 100 >"$TMP/lt" 2>"$TMP/le2" || fail "report -- CMD (temp file) exited $?"
		has "$TMP/le2" "recording into temporary file"
		f=$(sed -n 's/.*temporary file \([^ ]*\) .*/\1/p' "$TMP/le2")
		[ -n "$f" ] && [ -e "$f" ] && fail "temporary file $f left behind"
	else
		echo "live part skipped: $(tail -3 "$TMP/le")"
	fi
fi
[ $fails -eq 0 ] && echo OK
exit $fails
