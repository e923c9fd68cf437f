#!/bin/sh
# Rebuilds the SYNTHETIC program's x86-64 executable from ibsdemo.c:
#   examples/data/symfs/usr/bin/ibsdemo   (the path its MMAP2 record names)
# Needs an x86-64 gcc (the host's on x86-64; else x86_64-linux-gnu-gcc).
# The binary is committed, so the generator and the tests do not need the
# compiler.  Afterwards regenerate the recording (see examples/data/README.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${CC:-}" ]; then
	if [ "$(uname -m)" = x86_64 ]; then CC=gcc; else CC=x86_64-linux-gnu-gcc; fi
fi
out=$here/symfs/usr/bin/ibsdemo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"
cp "$here/ibsdemo.c" "$tmp/ibsdemo.c"
(cd "$tmp" && "$CC" -O2 -ffreestanding -fno-builtin -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-ident -fno-stack-protector -fcf-protection=none -fno-pie \
	-Wall -Wextra -c -o ibsdemo.o ibsdemo.c)
"$CC" -static -nostdlib -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
	-Wl,-z,noexecstack -Wl,-e,_start -o "$out" "$tmp/ibsdemo.o"
objcopy=objcopy
[ "$CC" = gcc ] || objcopy=${CC%gcc}objcopy
"$objcopy" --remove-section=.comment "$out" 2>/dev/null || true
ls -l "$out"
