#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Cost of ProfileMe decoding per sample through `profileme script --json`.
#
#   tests/bench/bench_raw_script.sh [BUILD_DIR] [SAMPLES]
#
# Generates a SYNTHETIC Alpha ProfileMe recording (tests/gen/gen_profileme.py)
# of SAMPLES samples (default 300000) and times, side by side:
#   - `profileme script --json` (every sample with its "profileme" object),
#   - `profileme script -F ...,raw` (text, decoded payload) against the same
#     fields without raw: the difference is the decoding cost per sample,
# and prints the time per sample of each.  Also runs bench_raw (decoding
# alone, per payload).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
n=${2:-300000}
pm=$build/bin/profileme
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

/usr/bin/python3 "$root/tests/gen/gen_profileme.py" --samples "$n" --seed 11 "$tmp/pm.data"
size=$(stat -c %s "$tmp/pm.data")
echo "synthetic ProfileMe recording: $n samples, $size bytes"

cpu() { # cpu seconds (user+sys) of a command, output discarded
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" > /dev/null
	awk '{ printf "%.3f", $1 + $2 }' "$tmp/t"
}
json=$(cpu "$pm" script --json -i "$tmp/pm.data")
full=$(cpu "$pm" script -F event,pid,tid,time,cpu,ip,period,raw -i "$tmp/pm.data")
base=$(cpu "$pm" script -F event,pid,tid,time,cpu,ip,period -i "$tmp/pm.data")
awk -v j="$json" -v f="$full" -v b="$base" -v n="$n" 'BEGIN {
	printf "script --json (with the profileme object): %.3f s  (%.0f ns/sample)\n", j, j * 1e9 / n
	printf "script -F ...,raw (decoded, text):         %.3f s  (%.0f ns/sample)\n", f, f * 1e9 / n
	printf "script -F ... (no raw):                    %.3f s  (%.0f ns/sample)\n", b, b * 1e9 / n
	printf "ProfileMe decoding + formatting per sample: %.0f ns\n", (f - b) * 1e9 / n
}'
if [ -x "$build/tests/bench/bench_raw" ]; then
	echo "decoding alone (bench_raw):"
	"$build/tests/bench/bench_raw" 2
fi
