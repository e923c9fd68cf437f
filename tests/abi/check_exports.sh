#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The exported symbol set of libprofileme.so must equal the names in the
# linker version script: nothing exported that is not listed (a leak past
# hidden visibility / `local: *`), nothing listed that is not exported (a
# missing PM_API or a removed function).
#   check_exports.sh NM LIBRARY MAPFILE
set -eu
NM=$1 LIB=$2 MAP=$3
[ -r "$LIB" ] || { echo "FAIL: $LIB not found"; exit 1; }
[ -r "$MAP" ] || { echo "FAIL: $MAP not found"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Names in the version script: drop /* */ and # comments, take the
# identifiers that end with ';' inside a "global:" part, never a wildcard.
# Version node names (PROFILEME_0.1 {) and "local: *;" are not symbols.
sed -e 's|#.*$||' "$MAP" | tr '\n' ' ' | sed -e 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/| |g' \
	| tr ';{}' '\n\n\n' | awk '
	{ gsub(/^[ \t]+|[ \t]+$/, ""); }
	/^$/ { next }
	/:/ { split($0, a, ":"); sect = a[1]; gsub(/[ \t]/, "", sect);
	      $0 = substr($0, index($0, ":") + 1); gsub(/^[ \t]+/, ""); if ($0 == "") next }
	sect == "global" && $0 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ { print }
	sect == "global" && $0 !~ /^[A-Za-z_][A-Za-z0-9_]*$/ && $0 !~ /^PROFILEME_/ {
		print "unsupported entry in version script: " $0 > "/dev/stderr"; bad = 1 }
	/^PROFILEME_[0-9.]+/ { sect = "" }
	END { exit bad }' | LC_ALL=C sort -u > "$tmp/map"

# Defined dynamic symbols of the library.  nm prints "value type name"
# (newer binutils append @@VERSION); version node names show up as absolute
# (type A) symbols and are not functions of ours.
"$NM" -D --defined-only "$LIB" > "$tmp/nm.raw"
awk 'NF >= 2 { name = $NF; type = $(NF-1); sub(/@.*/, "", name);
	if (type == "A" || name ~ /^PROFILEME_[0-9.]+$/) next; print name }' "$tmp/nm.raw" \
	| LC_ALL=C sort -u > "$tmp/lib"

nmap=$(wc -l < "$tmp/map") nlib=$(wc -l < "$tmp/lib")
echo "version script: $nmap names; $LIB: $nlib exported"
if [ "$nmap" -eq 0 ]; then
	echo "FAIL: no names parsed from $MAP"; exit 1
fi
status=0
extra=$(LC_ALL=C comm -13 "$tmp/map" "$tmp/lib")
missing=$(LC_ALL=C comm -23 "$tmp/map" "$tmp/lib")
if [ -n "$extra" ]; then
	echo "FAIL: exported but not in the version script:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
	echo "FAIL: in the version script but not exported (missing PM_API or definition?):"
	echo "$missing" | sed 's/^/  /'; status=1
fi
[ $status -eq 0 ] && echo "OK: exported symbols == version script"
exit $status
