#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Cross build for one target and its test suite under qemu-user.
#   scripts/cross.sh alpha-linux-gnu|s390x-linux-gnu [BUILD_DIR]
# A plain CMake cross build: the compiler is <triple>-gcc, the target's libc
# is in /usr/<triple>, the optional dependencies are off (Check too: the unit
# tests use minicheck), and CTest runs every test program through
# "qemu-<arch> -L /usr/<triple>" (CMAKE_CROSSCOMPILING_EMULATOR, set by
# cmake/toolchain-<triple>.cmake).  Needs the Debian packages of
# scripts/setup.sh (gcc-<arch>-linux-gnu, libc6*-dev-<arch>-cross, qemu-user).
# Extra arguments for cmake can be given in PM_CMAKE_ARGS.
set -eu
triple=${1:?usage: cross.sh TRIPLE [BUILD_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build-cross-${triple%%-*}}
toolchain=$root/cmake/toolchain-$triple.cmake
[ -f "$toolchain" ] || { echo "cross.sh: no $toolchain"; exit 2; }
jobs=${PM_JOBS:-2}

echo "== cross build $triple in $build"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
	-DPROFILEME_WERROR=ON \
	-DPROFILEME_WITH_LIBELF=OFF -DPROFILEME_WITH_ZSTD=OFF \
	-DPROFILEME_WITH_CHECK=OFF -DPROFILEME_WITH_PYTHON=OFF -DPROFILEME_PPROF=OFF \
	${PM_CMAKE_ARGS:-}
cmake --build "$build" -j"$jobs"
cd "$build"
ctest -j"$jobs" --output-on-failure --timeout 600
