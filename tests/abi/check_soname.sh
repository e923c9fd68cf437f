#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# libprofileme.so's SONAME must be libprofileme.so.<ABI major>, and the
# development symlink chain must lead to the real file.
#   check_soname.sh READELF|OBJDUMP LIBRARY ABI_MAJOR
set -eu
TOOL=$1 LIB=$2 ABI=$3
want="libprofileme.so.$ABI"
case "$TOOL" in
*objdump*) soname=$("$TOOL" -p "$LIB" | awk '$1 == "SONAME" { print $2 }') ;;
*) soname=$("$TOOL" -d "$LIB" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p') ;;
esac
echo "SONAME of $LIB: '${soname}' (expected '$want')"
[ "$soname" = "$want" ] || { echo "FAIL: wrong SONAME"; exit 1; }
dir=$(dirname "$LIB")
[ -e "$dir/$want" ] || { echo "FAIL: $dir/$want (the runtime name) does not exist"; exit 1; }
real=$(readlink -f "$dir/libprofileme.so")
[ "$real" = "$(readlink -f "$dir/$want")" ] || { echo "FAIL: libprofileme.so and $want differ"; exit 1; }
echo "OK: SONAME $want -> $(basename "$real")"
