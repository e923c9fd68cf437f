#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Downstream tests: use libprofileme the way another project would.
#   run.sh install     cmake --install BUILD --prefix WORK/prefix
#   run.sh pkgconfig   build consumer.c with `pkg-config --cflags --libs profileme`
#                      (shared) and `--static` (libprofileme.a), run both
#   run.sh cmake       a CMake project with find_package(profileme), linking
#                      profileme::profileme and profileme::profileme_static, run both
# Environment (set by tests/downstream/CMakeLists.txt): PM_BUILD PM_WORK
# PM_SRC CC CMAKE PKG_CONFIG PM_VERSION PM_ABI PM_CONSUMER_FLAGS PM_SANITIZE
set -eu
mode=$1
prefix=$PM_WORK/prefix
src=$PM_SRC/tests/downstream

say() { printf '%s\n' "$*"; }
fail() { say "FAIL: $*"; exit 1; }
run() { say "+ $*"; "$@"; }

needed() { # the DT_NEEDED entries of an executable
	readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p'
}

find_libdir() {
	pc=$(find "$prefix" -name profileme.pc -path '*/pkgconfig/*' | head -n 1)
	[ -n "$pc" ] || fail "no profileme.pc under $prefix (did downstream.install run?)"
	libdir=$(dirname "$(dirname "$pc")")
}

case $mode in
install)
	rm -rf "$prefix"
	run "$CMAKE" --install "$PM_BUILD" --prefix "$prefix"
	find_libdir
	for f in "$libdir/libprofileme.so.$PM_ABI" "$libdir/libprofileme.a" \
		"$prefix/include/profileme/profileme.h" "$prefix/include/profileme/version.h" \
		"$libdir/cmake/profileme/profilemeConfig.cmake"; do
		[ -e "$f" ] || fail "not installed: $f"
	done
	grep -q "^prefix=$prefix\$" "$pc" || fail "$pc does not point into the install prefix: $(grep ^prefix= "$pc")"
	# Every public header of the source tree is installed.
	for h in "$PM_SRC"/include/profileme/*.h; do
		[ -e "$prefix/include/profileme/$(basename "$h")" ] || fail "header not installed: $(basename "$h")"
	done
	say "OK: installed into $prefix"
	;;
pkgconfig)
	find_libdir
	out=$PM_WORK/pkgconfig
	rm -rf "$out" && mkdir -p "$out"
	export PKG_CONFIG_PATH="$libdir/pkgconfig"
	unset PKG_CONFIG_LIBDIR || true
	"$PKG_CONFIG" --exists --print-errors profileme || fail "pkg-config cannot resolve profileme"
	v=$("$PKG_CONFIG" --modversion profileme)
	[ "$v" = "$PM_VERSION" ] || fail "pkg-config --modversion says $v, the build is $PM_VERSION"
	cflags=$("$PKG_CONFIG" --cflags profileme)
	libs=$("$PKG_CONFIG" --libs profileme)
	say "pkg-config --cflags --libs profileme: $cflags $libs"
	# shellcheck disable=SC2086
	run "$CC" $PM_CONSUMER_FLAGS -DPM_EXPECT_VERSION="\"$PM_VERSION\"" "$src/consumer.c" $cflags $libs \
		-o "$out/consumer_shared"
	needed "$out/consumer_shared" | grep -qx "libprofileme.so.$PM_ABI" \
		|| fail "consumer_shared does not need libprofileme.so.$PM_ABI: $(needed "$out/consumer_shared")"
	LD_LIBRARY_PATH="$libdir" run "$out/consumer_shared"

	# A machine with libprofileme but without the .pc files of its private
	# dependencies (libelf.pc, libzstd.pc): only profileme.pc is
	# on the search path, the system's is not searched.  A shared consumer
	# (--cflags --libs) and a static one (--libs --static, from Libs.private)
	# must both still resolve and link.
	iso=$out/pc-only-profileme
	mkdir -p "$iso"
	cp "$pc" "$iso/"
	isocflags=$(PKG_CONFIG_PATH="$iso" PKG_CONFIG_LIBDIR="$iso" "$PKG_CONFIG" --print-errors --cflags profileme) \
		|| fail "pkg-config --cflags profileme needs other .pc files: $(grep -i '^Requires' "$pc")"
	isolibs=$(PKG_CONFIG_PATH="$iso" PKG_CONFIG_LIBDIR="$iso" "$PKG_CONFIG" --print-errors --libs profileme) \
		|| fail "pkg-config --libs profileme needs other .pc files"
	isostatic=$(PKG_CONFIG_PATH="$iso" PKG_CONFIG_LIBDIR="$iso" "$PKG_CONFIG" --print-errors --libs --static profileme) \
		|| fail "pkg-config --libs --static profileme needs other .pc files"
	say "only profileme.pc: --cflags --libs: $isocflags $isolibs; --static: $isostatic"
	# shellcheck disable=SC2086
	run "$CC" $PM_CONSUMER_FLAGS -DPM_EXPECT_VERSION="\"$PM_VERSION\"" "$src/consumer.c" $isocflags $isolibs \
		-o "$out/consumer_shared_iso"
	LD_LIBRARY_PATH="$libdir" run "$out/consumer_shared_iso"
	isorest=$(printf '%s\n' $isostatic | grep -vx -- -lprofileme | tr '\n' ' ')
	# shellcheck disable=SC2086
	run "$CC" $PM_CONSUMER_FLAGS -DPM_EXPECT_VERSION="\"$PM_VERSION\"" "$src/consumer.c" $isocflags \
		-Wl,--whole-archive "$libdir/libprofileme.a" -Wl,--no-whole-archive $isorest \
		-o "$out/consumer_static_iso"
	run "$out/consumer_static_iso"

	# Static: the whole archive, so every object and so every optional
	# dependency must resolve through Libs.private.
	slibs=$("$PKG_CONFIG" --libs --static profileme)
	say "pkg-config --libs --static profileme: $slibs"
	rest=$(printf '%s\n' $slibs | grep -vx -- -lprofileme | tr '\n' ' ')
	# shellcheck disable=SC2086
	run "$CC" $PM_CONSUMER_FLAGS -DPM_EXPECT_VERSION="\"$PM_VERSION\"" "$src/consumer.c" $cflags \
		-Wl,--whole-archive "$libdir/libprofileme.a" -Wl,--no-whole-archive $rest \
		-o "$out/consumer_static"
	if needed "$out/consumer_static" | grep -q libprofileme; then
		fail "consumer_static still needs the shared library"
	fi
	run "$out/consumer_static"

	# Fully static (-static): every dependency from its .a.  Sanitizer
	# runtimes cannot be linked statically, so that build skips it.
	if [ -n "${PM_SANITIZE:-}" ]; then
		say "fully static link skipped: sanitizer build"
	else
		# shellcheck disable=SC2086
		run "$CC" -static $PM_CONSUMER_FLAGS "$src/consumer.c" $cflags \
			-Wl,--whole-archive "$libdir/libprofileme.a" -Wl,--no-whole-archive \
			$("$PKG_CONFIG" --libs --static profileme | sed 's/-lprofileme//') \
			-o "$out/consumer_fullstatic" 2> "$out/fullstatic.log" \
			|| { cat "$out/fullstatic.log"; fail "fully static link"; }
		grep -v "statically linked applications requires at runtime" "$out/fullstatic.log" \
			| grep -i warning && say "(warnings above are from the static libc)"
		run "$out/consumer_fullstatic"
	fi
	say "OK: pkg-config consumer, shared and static"
	;;
cmake)
	out=$PM_WORK/cmake
	rm -rf "$out"
	run "$CMAKE" -S "$src/project" -B "$out" -DCMAKE_PREFIX_PATH="$prefix" \
		-DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$PM_CONSUMER_FLAGS" \
		-DCMAKE_EXE_LINKER_FLAGS="$PM_CONSUMER_FLAGS" \
		-DPM_CONSUMER_SRC="$src/consumer.c" -DPM_EXPECT_VERSION="$PM_VERSION"
	grep -q "profileme_DIR:PATH=$prefix/" "$out/CMakeCache.txt" \
		|| fail "find_package found a profileme outside $prefix: $(grep profileme_DIR "$out/CMakeCache.txt")"
	run "$CMAKE" --build "$out"
	needed "$out/consumer_shared" | grep -qx "libprofileme.so.$PM_ABI" \
		|| fail "consumer_shared does not need libprofileme.so.$PM_ABI"
	if needed "$out/consumer_static" | grep -q libprofileme; then
		fail "consumer_static still needs the shared library"
	fi
	# The shared consumer finds the library through its build RPATH.
	run "$out/consumer_shared"
	run "$out/consumer_static"
	say "OK: find_package(profileme) consumer, shared and static"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
