#!/bin/sh
# profileme list on the fixture sysfs trees and on the real /sys.
# usage: test_list.sh <profileme> <source dir>
set -u
PM=$1
SRC=$2
FX=$SRC/tests/fixtures/sysfs
PY=/usr/bin/python3
TMP=${TMPDIR:-/tmp}/pm-cli-list.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
unset PROFILEME_SYSFS
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# has FILE TEXT: FILE contains the fixed string TEXT.
has() {
	grep -qF -- "$2" "$1" || fail "'$2' not in $1: $(head -c 2000 "$1")"
}

# --- text output on the Intel tree ---
"$PM" list --sysfs "$FX/intel" >"$TMP/out" 2>"$TMP/err" || fail "list intel exited $?"
[ -s "$TMP/err" ] && fail "warnings on a clean tree: $(cat "$TMP/err")"
has "$TMP/out" "cpu  type 4"
has "$TMP/out" "software  type 1"
has "$TMP/out" "tracepoint  type 2"
has "$TMP/out" "breakpoint  type 5"
has "$TMP/out" "uncore_imc_0  type 13  uncore"
has "$TMP/out" "cpus: 0,28"
has "$TMP/out" "event=0xcd,umask=0x1,ldlat=3"
has "$TMP/out" "config1:0-15"
has "$TMP/out" "max_precise = 3"
has "$TMP/out" "pmu_name = skylake"
grep -E -q '^ +cas_count_read +event=0x04,umask=0x03  unit MiB  scale 6.103515625e-05$' "$TMP/out" ||
	fail "cas_count_read line"
grep -E -q '^ +topdown-total-slots +event=0x3c,umask=0x0  scale 4$' "$TMP/out" ||
	fail "topdown-total-slots line"
grep -E -q '^ +cpu_thermal_margin +event=0x05  unit C  snapshot$' "$TMP/out" ||
	fail "cpu_thermal_margin line"
# PMUs in name order
grep -E '^[a-z]' "$TMP/out" | cut -d' ' -f1 >"$TMP/names"
sort -c "$TMP/names" 2>/dev/null || fail "PMUs not sorted: $(tr '\n' ' ' <"$TMP/names")"
[ "$(wc -l <"$TMP/names")" -eq 7 ] || fail "expected 7 PMUs on intel"

# --- JSON on the AMD tree: one valid object per PMU per line ---
"$PM" list --sysfs "$FX/amd" --json >"$TMP/json" 2>"$TMP/err" || fail "list --json amd exited $?"
[ "$(wc -l <"$TMP/json")" -eq 7 ] || fail "expected 7 JSON lines, got $(wc -l <"$TMP/json")"
"$PY" - "$TMP/json" <<'PYEOF' || fail "JSON content (amd)"
import json, sys
pmus = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    pmus[o["name"]] = o
cpu = pmus["cpu"]
assert cpu["type"] == 4, cpu["type"]
ev = {f["name"]: f for f in cpu["formats"]}["event"]
assert ev == {"name": "event", "spec": "config:0-7,32-35", "word": "config",
              "mask": "0xf000000ff", "width": 12}, ev
cm = {e["name"]: e for e in cpu["events"]}["cache-misses"]
assert cm["terms"] == [{"name": "event", "value": "0x64"}, {"name": "umask", "value": "0x9"}], cm
assert cm["scale"] == 1 and cm["unit"] == "" and cm["per_pkg"] is False
assert pmus["ibs_op"]["type"] == 11 and pmus["ibs_fetch"]["type"] == 10
assert pmus["ibs_op"]["caps"] == {"zen4_ibs_extensions": "1"}
assert pmus["amd_df"]["uncore"] is True and pmus["amd_df"]["cpus"] == "0"
assert pmus["software"]["type"] == 1 and pmus["software"]["diagnostics"] == []
assert list(pmus) == sorted(pmus)
PYEOF

# --- PMU selection, the uncore_ prefix rule, '?' parameters ---
"$PM" list --sysfs "$FX/uncore" --json fabric_0 hv_24x7 >"$TMP/json" || fail "list uncore PMUs"
[ "$(wc -l <"$TMP/json")" -eq 2 ] || fail "expected 2 PMUs"
"$PY" - "$TMP/json" <<'PYEOF' || fail "JSON content (uncore)"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [o["name"] for o in lines] == ["uncore_fabric_0", "hv_24x7"]
fab, hv = lines
rb = {e["name"]: e for e in fab["events"]}["read_bw"]
assert rb["terms"][2] == {"name": "filter", "value": "?"}, rb
assert rb["unit"] == "MiB" and rb["scale"] == 6.103515625e-5 and rb["per_pkg"] is True
f = {x["name"]: x for x in fab["formats"]}
assert f["filter"]["word"] == "config1" and f["filter"]["mask"] == "0xff00ff"
assert f["mask"]["word"] == "config2" and f["mask"]["mask"] == "0xf0000000f"
cyc = {e["name"]: e for e in hv["events"]}["PM_PB_CYC"]
assert cyc["text"] == "domain=2,offset=0x10,core=?,lpar=0x0"
PYEOF

# --- Alpha via the environment; the profileme flag ---
PROFILEME_SYSFS="$FX/alpha" "$PM" list cpu >"$TMP/out" || fail "list via PROFILEME_SYSFS"
has "$TMP/out" "cpu  type 4  profileme"
has "$TMP/out" "config:8"

# --- damaged trees: warnings on stderr, still exit 0, other PMUs listed ---
"$PM" list --sysfs "$FX/bad-files" >"$TMP/out" 2>"$TMP/err" || fail "bad-files exited $?"
has "$TMP/err" "warning: notype/type: missing"
has "$TMP/err" "warning: binary/type: binary content"
has "$TMP/err" "warning: misc/caps/max_precise"
has "$TMP/out" "tracepoint  type 2"
has "$TMP/out" "software  type 1"
has "$TMP/out" "notype  type ?"
"$PM" list --sysfs "$FX/bad-format" --json cpu >"$TMP/json" 2>"$TMP/err" || fail "bad-format exited $?"
has "$TMP/err" "warning: cpu/format/reversed"
"$PY" -c 'import json,sys; o=json.loads(open(sys.argv[1]).read()); assert len(o["diagnostics"]) == 13, o["diagnostics"]; assert [f["name"] for f in o["formats"]] == ["event", "split"]' "$TMP/json" ||
	fail "bad-format JSON"

# --- errors ---
"$PM" list --sysfs "$FX/intel" nosuch >/dev/null 2>"$TMP/err" && fail "unknown PMU accepted"
has "$TMP/err" "no PMU 'nosuch'"
"$PM" list --sysfs "$TMP/none" >/dev/null 2>"$TMP/err" && fail "missing sysfs accepted"
"$PM" list --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option should exit 2"
"$PM" list --help >"$TMP/out" || fail "--help"
has "$TMP/out" "usage: profileme list"

# --- the real /sys of this machine ---
DEV=/sys/bus/event_source/devices
if [ -d $DEV ]; then
	"$PM" list --sysfs /sys --json >"$TMP/json" 2>"$TMP/err" || fail "list /sys exited $?"
	# Oracle: the type files themselves, and perf's own list of PMU events.
	for d in $DEV/*; do
		n=${d##*/}
		[ -r "$d/type" ] && echo "$n $(cat "$d/type")"
	done >"$TMP/types"
	if command -v perf >/dev/null 2>&1; then
		perf list pmu 2>/dev/null | grep -oE '^ *[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/' | tr -d ' ' >"$TMP/perf" || true
	else
		: >"$TMP/perf"
	fi
	"$PY" - "$TMP/json" "$TMP/types" "$TMP/perf" <<'PYEOF' || fail "real /sys"
import json, sys
pmus = {o["name"]: o for o in map(json.loads, open(sys.argv[1]))}
assert pmus["software"]["type"] == 1 and pmus["tracepoint"]["type"] == 2
for line in open(sys.argv[2]):
    name, t = line.split()
    assert pmus[name]["type"] == int(t), (name, t, pmus[name]["type"])
checked = 0
for ev in open(sys.argv[3]):
    pmu, name = ev.strip().strip("/").split("/")
    if pmu in pmus:
        names = {e["name"].lower() for e in pmus[pmu]["events"]}
        assert name.lower() in names, (pmu, name, names)
        checked += 1
print("real /sys: %d PMUs, %d perf-listed events matched" % (len(pmus), checked))
PYEOF
else
	echo "note: $DEV absent, real /sys part skipped"
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
