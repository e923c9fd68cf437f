#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# check_exports.sh must fail when the tiers are mixed up: an experimental
# (PM_EXPERIMENTAL) function listed in the release node, and a function of
# the experimental node whose declaration lost its PM_EXPERIMENTAL marker.
#   check_exports_selftest.sh NM LIBRARY MAPFILE HEADERS_DIR
set -eu
NM=$1 LIB=$2 MAP=$3 HDRS=$4
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_fail() { # what map hdrs pattern
	if sh "$here/check_exports.sh" "$NM" "$LIB" "$2" "$3" > "$tmp/out" 2>&1; then
		cat "$tmp/out"; echo "FAIL: check_exports.sh passed with $1"; exit 1
	fi
	grep -q "$4" "$tmp/out" || { cat "$tmp/out"; echo "FAIL: $1: no '$4' in the report"; exit 1; }
	echo "OK: $1 is caught ($4)"
}

# The real inputs pass.
sh "$here/check_exports.sh" "$NM" "$LIB" "$MAP" "$HDRS" > "$tmp/out" 2>&1 \
	|| { cat "$tmp/out"; echo "FAIL: the real version script does not pass"; exit 1; }

# 1. pm_writer_open moved into the release node.
grep -q '^[[:space:]]*pm_writer_open;' "$MAP" || { echo "FAIL: pm_writer_open not in $MAP"; exit 1; }
sed -e '/^[[:space:]]*pm_writer_open;/d' "$MAP" \
	| sed -e '0,/^[[:space:]]*global:/s//\tglobal:\n\t\tpm_writer_open;/' > "$tmp/moved.map"
expect_fail "an experimental symbol in the release node" "$tmp/moved.map" "$HDRS" \
	"experimental (PM_EXPERIMENTAL) but in a release node"

# 2. pm_columns_new_from_file without its marker.
mkdir "$tmp/hdrs"
cp "$HDRS"/*.h "$tmp/hdrs/"
sed -i 's/PM_EXPERIMENTAL PM_API int pm_columns_new_from_file(/PM_API int pm_columns_new_from_file(/' "$tmp/hdrs/export.h"
grep -q '^PM_API int pm_columns_new_from_file(' "$tmp/hdrs/export.h" || { echo "FAIL: marker edit did not apply"; exit 1; }
expect_fail "an unmarked declaration in the experimental node" "$MAP" "$tmp/hdrs" \
	"in the experimental node but not declared PM_EXPERIMENTAL"
echo "OK: check_exports.sh keeps the tiers apart"
