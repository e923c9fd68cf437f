#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The ABI guard (ctest abi.abidiff) and the way to record a release's ABI.
#
#   abidiff.sh check  LIB HEADERS_DIR ABI_DIR   compare LIB with the last recorded release
#   abidiff.sh record LIB HEADERS_DIR ABI_DIR   write ABI_DIR/<soname>.abi (at a release)
#
# The dumps are abi/libprofileme.so.<SONAME major>.abi, written by abidw
# with --headers-dir include/profileme so that only types reachable from
# the public headers count.  check takes the dump with the highest major:
#   - same major as LIB's SONAME: abidiff must report neither an
#     incompatible change (exit bit 8: a removed function or variable) nor a
#     harmful change (bit 4: libabigail sets only this bit for type changes
#     such as a moved struct member, which break callers just as well).  Two
#     kinds of change are compatible by design and pass: added functions or
#     variables, and members appended at the end of a size-versioned struct
#     (one whose first member is `size_t sz`; the list is taken from the
#     headers and given to abidiff as a suppression specification);
#   - a lower major: the SONAME moved, so incompatible changes are allowed
#     (record the new major's dump at the release);
#   - no dump at all: failure.
# Exit 77 (skipped) when LIB has no debug information (abidw needs DWARF).
set -u
mode=${1:?usage: abidiff.sh check|record LIB HEADERS_DIR ABI_DIR}
lib=${2:?LIB}
hdrs=${3:?HEADERS_DIR}
abidir=${4:?ABI_DIR}

for t in abidw abidiff readelf; do
	command -v $t >/dev/null 2>&1 || { echo "abidiff.sh: $t not found (apt-get install abigail-tools binutils)"; exit 77; }
done
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$soname" ] || { echo "abidiff.sh: $lib has no SONAME"; exit 1; }
major=${soname##*.so.}
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
	echo "abidiff.sh: $lib has no debug info (build type without -g): cannot compare types"
	exit 77
fi

case $mode in
record)
	out=$abidir/$soname.abi
	mkdir -p "$abidir"
	abidw --headers-dir "$hdrs" --no-corpus-path --out-file "$out" "$lib" || exit 1
	echo "recorded the ABI of $lib ($soname) in $out"
	exit 0
	;;
check) ;;
*) echo "abidiff.sh: unknown mode '$mode'"; exit 2 ;;
esac

last=
last_major=-1
for f in "$abidir"/*.so.*.abi; do
	[ -f "$f" ] || continue
	m=${f%.abi}
	m=${m##*.so.}
	case $m in *[!0-9]*) continue ;; esac
	if [ "$m" -gt "$last_major" ]; then last_major=$m; last=$f; fi
done
[ -n "$last" ] || { echo "abidiff.sh: no recorded ABI in $abidir (run: $0 record $lib $hdrs $abidir)"; exit 1; }

if [ "$last_major" -lt "$major" ]; then
	echo "SONAME major moved from $last_major to $major: incompatible changes allowed."
	echo "Record the new release: $0 record $lib $hdrs $abidir"
	exit 0
fi
if [ "$last_major" -gt "$major" ]; then
	echo "abidiff.sh: recorded ABI $last is newer (major $last_major) than $soname"
	exit 1
fi

# Size-versioned structs may grow at their end (pm__struct_check /
# pm__struct_copy_out make old and new callers work).
supp=$(mktemp "${TMPDIR:-/tmp}/pm_abidiff.XXXXXX") || exit 1
trap 'rm -f "$supp"' EXIT
names=$(awk '/^struct pm_[a-z0-9_]+ \{/ {n=$2; getline; if ($0 ~ /^[ \t]*size_t sz;/) print n}' \
	"$hdrs"/*.h | sort -u | paste -sd '|' -)
if [ -n "$names" ]; then
	printf '[suppress_type]\n  label = size-versioned structs grow at their end\n' >"$supp"
	printf '  type_kind = struct\n  name_regexp = ^(%s)$\n  has_data_member_inserted_at = end\n' \
		"$names" >>"$supp"
fi
echo "abidiff $last $lib (size-versioned structs may grow: $names)"
abidiff --headers-dir2 "$hdrs" --suppressions "$supp" "$last" "$lib"
rc=$?
if [ $((rc & 12)) -eq 4 ]; then
	# Bit 4 alone: compatible if nothing but additions remain once added
	# symbols are hidden.
	abidiff --headers-dir2 "$hdrs" --suppressions "$supp" --no-added-syms "$last" "$lib" >/dev/null
	rc2=$?
	[ $((rc2 & 12)) -eq 0 ] && rc=$(( (rc & 3) | 16 ))
fi
# abidiff status bits: 1 tool error, 2 usage error, 4 ABI change, 8 incompatible change.
if [ $((rc & 3)) -ne 0 ]; then
	echo "abidiff.sh: abidiff failed (status $rc)"
	exit 1
fi
if [ $((rc & 12)) -ne 0 ]; then
	echo "INCOMPATIBLE (or harmful, bit 4) ABI change against $last while the SONAME is still $soname."
	echo "Undo it, or bump PROFILEME_ABI_MAJOR (CMakeLists.txt) and record the new ABI at the release."
	exit 1
fi
if [ $((rc & 16)) -ne 0 ]; then
	echo "compatible ABI change (additions) against $last: record it at the next release"
else
	echo "ABI identical to $last"
fi
exit 0
