#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The exported symbol set of libprofileme.so must equal the names in the
# linker version script: nothing exported that is not listed (a leak past
# hidden visibility / `local: *`), nothing listed that is not exported (a
# missing PM_API or a removed function).  The script has release nodes
# (PROFILEME_<MAJOR>.<MINOR>) and the experimental tier's node
# (PROFILEME_EXPERIMENTAL_<MAJOR>.<MINOR>); every exported symbol must carry
# the version of the node that lists it, no name may be in two nodes, and,
# given the public headers, the experimental node must hold exactly the
# declarations marked PM_EXPERIMENTAL (so no experimental symbol is ever in
# a release node, and no stable one in the experimental node).
#   check_exports.sh NM LIBRARY MAPFILE [HEADERS_DIR]
set -eu
NM=$1 LIB=$2 MAP=$3 HDRS=${4:-}
[ -r "$LIB" ] || { echo "FAIL: $LIB not found"; exit 1; }
[ -r "$MAP" ] || { echo "FAIL: $MAP not found"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "node name" for every name in the version script: drop /* */ and #
# comments, drop the inherited node after a closing brace ("} PROFILEME_0.1;"),
# mark each "NODE {", take the identifiers that end with ';' inside a
# "global:" part, never a wildcard.
sed -e 's|#.*$||' "$MAP" | tr '\n' ' ' | sed -e 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/| |g' \
	-e 's|}[ \t]*PROFILEME_[A-Z0-9_.]*[ \t]*;|};|g' \
	-e 's|\(PROFILEME_[A-Z0-9_.]*\)[ \t]*{|;@node \1;|g' \
	| tr ';{}' '\n\n\n' | awk '
	{ gsub(/^[ \t]+|[ \t]+$/, ""); }
	/^$/ { next }
	/^@node / { node = $2; sect = ""; next }
	/:/ { split($0, a, ":"); sect = a[1]; gsub(/[ \t]/, "", sect);
	      $0 = substr($0, index($0, ":") + 1); gsub(/^[ \t]+/, ""); if ($0 == "") next }
	sect == "global" && node == "" { print "a name outside any node: " $0 > "/dev/stderr"; bad = 1; next }
	sect == "global" && $0 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ { print node, $0; next }
	sect == "global" { print "unsupported entry in version script: " $0 > "/dev/stderr"; bad = 1 }
	END { exit bad }' | LC_ALL=C sort -u > "$tmp/map.nodes"
awk '{ print $2 }' "$tmp/map.nodes" | LC_ALL=C sort -u > "$tmp/map"

# Defined dynamic symbols of the library with their version.  nm prints
# "value type name@@VERSION" (older binutils: no version); version node
# names show up as absolute (type A) symbols and are not functions of ours.
"$NM" -D --defined-only "$LIB" > "$tmp/nm.raw"
awk 'NF >= 2 { name = $NF; type = $(NF-1); ver = "";
	if (index(name, "@")) { ver = substr(name, index(name, "@")); gsub(/@/, "", ver); sub(/@.*/, "", name) }
	if (type == "A" || name ~ /^PROFILEME_[A-Z0-9_.]+$/) next; print ver, name }' "$tmp/nm.raw" \
	| LC_ALL=C sort -u > "$tmp/lib.versions"
awk '{ print $2 }' "$tmp/lib.versions" | LC_ALL=C sort -u > "$tmp/lib"

nmap=$(wc -l < "$tmp/map") nlib=$(wc -l < "$tmp/lib")
nodes=$(awk '{ print $1 }' "$tmp/map.nodes" | LC_ALL=C sort | uniq -c | awk '{ printf "%s%s: %s", sep, $2, $1; sep = ", " }')
echo "version script: $nmap names ($nodes); $LIB: $nlib exported"
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
twice=$(awk '{ print $2 }' "$tmp/map.nodes" | LC_ALL=C sort | uniq -d)
if [ -n "$twice" ]; then
	echo "FAIL: in more than one version node:"; echo "$twice" | sed 's/^/  /'; status=1
fi
# Each symbol carries the version of its node (when nm shows versions).
if awk '$1 != "" { found = 1 } END { exit !found }' "$tmp/lib.versions"; then
	wrong=$(LC_ALL=C join -1 2 -2 2 "$tmp/map.nodes" "$tmp/lib.versions" 2>/dev/null \
		| awk '$2 != $3 { print $1 " is " $3 ", the version script says " $2 }')
	if [ -n "$wrong" ]; then
		echo "FAIL: symbol in the wrong version node:"; echo "$wrong" | sed 's/^/  /'; status=1
	fi
fi
# The experimental tier: the node == the PM_EXPERIMENTAL declarations.
awk '$1 ~ /^PROFILEME_EXPERIMENTAL_/ { print $2 }' "$tmp/map.nodes" | LC_ALL=C sort -u > "$tmp/map.exp"
awk '$1 !~ /^PROFILEME_EXPERIMENTAL_/ { print $2 }' "$tmp/map.nodes" | LC_ALL=C sort -u > "$tmp/map.stable"
if [ -n "$HDRS" ]; then
	# "PM_EXPERIMENTAL PM_API <type> name(" possibly over two lines.
	cat "$HDRS"/*.h | tr '\n' ' ' | sed 's/;/;\n/g' \
		| sed -n 's/.*PM_EXPERIMENTAL[ \t]\+PM_API[^(]*[ \t*]\([A-Za-z_][A-Za-z0-9_]*\)[ \t]*(.*/\1/p' \
		| LC_ALL=C sort -u > "$tmp/hdr.exp"
	nexp=$(wc -l < "$tmp/hdr.exp")
	echo "headers: $nexp PM_EXPERIMENTAL declarations; experimental node: $(wc -l < "$tmp/map.exp") names"
	leaked=$(LC_ALL=C comm -12 "$tmp/hdr.exp" "$tmp/map.stable")
	if [ -n "$leaked" ]; then
		echo "FAIL: experimental (PM_EXPERIMENTAL) but in a release node:"; echo "$leaked" | sed 's/^/  /'; status=1
	fi
	unmarked=$(LC_ALL=C comm -13 "$tmp/hdr.exp" "$tmp/map.exp")
	if [ -n "$unmarked" ]; then
		echo "FAIL: in the experimental node but not declared PM_EXPERIMENTAL:"; echo "$unmarked" | sed 's/^/  /'; status=1
	fi
	unlisted=$(LC_ALL=C comm -23 "$tmp/hdr.exp" "$tmp/map")
	if [ -n "$unlisted" ]; then
		echo "FAIL: declared PM_EXPERIMENTAL but in no version node:"; echo "$unlisted" | sed 's/^/  /'; status=1
	fi
fi
[ $status -eq 0 ] && echo "OK: exported symbols == version script, each in its node; experimental tier apart"
exit $status
