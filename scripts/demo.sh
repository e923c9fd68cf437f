#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The main job of libprofileme, as far as it goes today:
#   1. build the library and the `profileme` tool (build-ci/native, the
#      same tree scripts/test.sh uses, so nothing is built twice);
#   2. list the PMUs of this machine (`profileme list`);
#   3. encode a ProfileMe event for the Alpha PMU of a bundled sysfs tree
#      (`profileme encode --sysfs tests/fixtures/sysfs/alpha ...`), as text
#      and as JSON.
# Environment: PM_JOBS (default 2), PM_BUILD_ROOT (default ./build-ci),
# PM_SKIP_SETUP=1 to skip the package check.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${PM_JOBS:-2}
build=${PM_BUILD_ROOT:-$root/build-ci}/native
[ "${PM_SKIP_SETUP:-0}" = 1 ] || "$root/scripts/setup.sh"

echo "== build ($build)"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DPROFILEME_WERROR=ON > "$build/demo-configure.log" 2>&1 \
	|| { cat "$build/demo-configure.log"; exit 1; }
cmake --build "$build" -j"$jobs" --target profileme_cli > /dev/null
pm=$build/bin/profileme
"$pm" --version

run() { echo; echo "\$ profileme $*"; "$pm" "$@"; }
run list
fixture=tests/fixtures/sysfs/alpha
event='cpu/event=0x0,profileme/u'
run encode --sysfs "$fixture" "$event"
run encode --sysfs "$fixture" --json "$event"
