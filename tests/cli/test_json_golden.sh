#!/bin/sh
# JSON from the library (pm_json_sample(), pm_json_record(), pm_json_escape())
# as `profileme script --json` prints it:
#  1. byte for byte what the CLI printed before the JSON writer moved into
#     the library (sha256 in json_golden.sha256, captured from the old CLI),
#     on the bundled recordings examples/data/*.data and on real perf 6.1
#     recordings in tests/fixtures/json (callchains, user/intr regs, data
#     addresses, tracepoints; a group with PERF_SAMPLE_READ);
#  2. every line is strict JSON, also with --all;
#  3. a real recording here (perf) of a program whose comm holds a tab, a
#     quote and UTF-8: the comm comes out as perf script names it.
# usage: test_json_golden.sh <profileme> <source dir> [--print]
set -u
PM=$1
SRC=$2
PY=/usr/bin/python3
TMP=${TMPDIR:-/tmp}/pm-cli-json.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

FILES="examples/data/ibs-synthetic.data examples/data/profileme-synthetic.data
tests/fixtures/json/real-callchain-regs-tp.data tests/fixtures/json/real-group-read.data"

if [ "${3:-}" = --print ]; then
	sed -n '/^#/p' "$SRC/tests/cli/json_golden.sha256"
	for f in $FILES; do
		for a in --json --json,--all; do
			h=$("$PM" script $(echo "$a" | tr , ' ') -i "$SRC/$f" 2>/dev/null | sha256sum | cut -c1-64)
			echo "$h $a $f"
		done
	done
	exit 0
fi

# --- 1. byte-identical to the CLI before the move ---
n=0
while read -r want args f; do
	case $want in '#'*|'') continue ;; esac
	"$PM" script $(echo "$args" | tr , ' ') -i "$SRC/$f" >"$TMP/out" 2>"$TMP/err" ||
		fail "script $args -i $f exited $?: $(head -c 500 "$TMP/err")"
	got=$(sha256sum <"$TMP/out" | cut -c1-64)
	if [ "$got" = "$want" ]; then
		echo "ok   script $args -i $f ($(wc -l <"$TMP/out") lines, byte-identical)"
	else
		fail "script $args -i $f: sha256 $got, the CLI printed $want before the move"
	fi
	# --- 2. strict JSON, one object per line ---
	"$PY" -c '
import json, sys
n = 0
for i, line in enumerate(open(sys.argv[1], "rb"), 1):
    try:
        o = json.loads(line.decode("utf-8"))
    except Exception as e:
        sys.exit("line %d: %s: %r" % (i, e, line[:200]))
    if not isinstance(o, dict) or "event" not in o and "type" not in o:
        sys.exit("line %d: not a sample or record object: %r" % (i, line[:200]))
    n += 1
if n == 0:
    sys.exit("no lines")
' "$TMP/out" || fail "script $args -i $f: not strict JSON lines"
	n=$((n + 1))
done <"$SRC/tests/cli/json_golden.sha256"
[ "$n" -ge 8 ] || fail "only $n golden lines checked"

# --- 3. a comm that needs escaping, recorded here ---
if ! command -v perf >/dev/null 2>&1; then
	echo "perf missing: live leg skipped"
elif ! perf record -q -o "$TMP/probe.data" -e task-clock -- true >/dev/null 2>&1; then
	echo "perf record not permitted here: live leg skipped"
else
	# comm is the first 15 bytes of the executable's name
	name=$(printf 'j\t"\303\251\\x')
	cp /bin/true "$TMP/$name" || fail "cannot create a program named with a tab"
	perf record -q -o "$TMP/c.data" -e task-clock -c 10000 -- "$TMP/$name" >/dev/null 2>&1 ||
		fail "perf record of the oddly named program failed"
	perf script -i "$TMP/c.data" -F comm 2>/dev/null | sort -u >"$TMP/perf_comms"
	"$PM" script --json -i "$TMP/c.data" >"$TMP/c.json" 2>"$TMP/err" ||
		fail "script --json exited $?: $(head -c 500 "$TMP/err")"
	"$PY" -c '
import json, sys
want = sys.argv[3]
perf = [l.rstrip("\n").strip() for l in open(sys.argv[2], encoding="utf-8", errors="surrogateescape")]
comms = set()
for line in open(sys.argv[1], "rb"):
    comms.add(json.loads(line.decode("utf-8"))["comm"])
if want not in comms:
    sys.exit("comm %r not among %r" % (want, sorted(comms)))
if not any(p == want.strip() for p in perf):
    sys.exit("perf script names the comm %r, not %r" % (perf, want))
raw = open(sys.argv[1], "rb").read()
if b"\"j\\u0009\\\"\xc3\xa9\\\\x\"" not in raw:
    sys.exit("the escaped comm is not written as j\\u0009\\\"<UTF-8>\\\\x")
print("ok   comm %r escaped (tab as \\u0009, UTF-8 copied) and equal to perf script" % want)
' "$TMP/c.json" "$TMP/perf_comms" "$name" || fail "escaped comm"
	# a byte that is not UTF-8 (0xff): written \u00ff, so the line stays valid JSON
	bad=$(printf 'k\377z')
	cp /bin/true "$TMP/$bad" || fail "cannot create a program named with byte 0xff"
	perf record -q -o "$TMP/b.data" -e task-clock -c 10000 -- "$TMP/$bad" >/dev/null 2>&1 ||
		fail "perf record of the 0xff-named program failed"
	"$PM" script --json -i "$TMP/b.data" >"$TMP/b.json" 2>"$TMP/err" ||
		fail "script --json exited $?: $(head -c 500 "$TMP/err")"
	"$PY" -c '
import json, sys
comms = {json.loads(l.decode("utf-8"))["comm"] for l in open(sys.argv[1], "rb")}
if "k\u00ffz" not in comms:
    sys.exit("comm k<0xff>z not written as k\\u00ffz: %r" % sorted(comms))
print("ok   a comm with byte 0xff is valid JSON (k\\u00ffz)")
' "$TMP/b.json" || fail "comm with a byte that is not UTF-8"
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all ok"
