#!/bin/sh
# Rebuilds the SYNTHETIC program's Alpha executable from pmdemo.c:
#   examples/data/symfs/usr/bin/pmdemo   (the path its MMAP2 record names)
# Needs alpha-linux-gnu-gcc (Debian: gcc-alpha-linux-gnu).  The binary is
# committed, so the generator and the tests do not need the compiler.
# Reproducible: the same compiler gives the same bytes.  Afterwards
# regenerate the recording (see examples/data/README.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-alpha-linux-gnu-gcc}
out=$here/symfs/usr/bin/pmdemo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"
# compiled by name in its own directory: no temporary file name in .symtab
cp "$here/pmdemo.c" "$tmp/pmdemo.c"
(cd "$tmp" && "$CC" -O2 -ffreestanding -fno-builtin -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-ident -Wall -Wextra -c -o pmdemo.o pmdemo.c)
"$CC" -static -nostdlib -Wl,--build-id=none -Wl,-z,max-page-size=0x2000 \
	-Wl,-z,noexecstack -Wl,-e,_start -o "$out" "$tmp/pmdemo.o"
# keep .symtab (the point of the file); drop what only bloats it
"${CC%gcc}objcopy" --remove-section=.comment "$out" 2>/dev/null || true
ls -l "$out"
