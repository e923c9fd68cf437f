#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# The main job of libprofileme, on this machine:
#   1. install the Debian packages it needs (only when missing), build the
#      library, the `profileme` tool, the bundled workload and the Python
#      binding (build-ci/native, the tree scripts/test.sh uses too), and
#      install them under /usr/local (so `python3 -c "import profileme"` and
#      `pkg-config --libs profileme` work afterwards);
#   2. list the PMUs of this machine (`profileme list`);
#   3. encode a ProfileMe event for the Alpha PMU of a bundled sysfs tree;
#   4. profile the bundled workload for real (`profileme report -- workload`):
#      where it spends its time, by command, module and symbol;
#   5. show what a ProfileMe report looks like, on the bundled SYNTHETIC
#      Alpha recording (examples/data/profileme-synthetic.data): per-symbol
#      and per-pc retired/killed, stalled, trapped (by trap name),
#      mispredicted, PCTR1 latency distribution, and the skid the ProfileMe
#      PC removes (0 with the seed's driver: its sample ip is the PMPC);
#   6. the same for the bundled SYNTHETIC AMD Zen 4 IBS recording
#      (examples/data/ibs-synthetic.data): report and annotate;
#   7. the ProfileMe facts in pprof (`go tool pprof -top`, when go is there);
#   8. the recording as a pandas DataFrame through the installed Python
#      binding (only when installing).
# Environment: PM_JOBS (default 2), PM_BUILD_ROOT (default ./build-ci),
# PM_PREFIX (default /usr/local; empty: do not install), PM_SKIP_SETUP=1.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${PM_JOBS:-2}
build=${PM_BUILD_ROOT:-$root/build-ci}/native
prefix=${PM_PREFIX-/usr/local}
[ "${PM_SKIP_SETUP:-0}" = 1 ] || "$root/scripts/setup.sh"

echo "== build ($build)"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DPROFILEME_WERROR=ON > "$build/demo-configure.log" 2>&1 \
	|| { cat "$build/demo-configure.log"; exit 1; }
cmake --build "$build" -j"$jobs" > "$build/demo-build.log" 2>&1 \
	|| { tail -n 40 "$build/demo-build.log"; exit 1; }
if [ -n "$prefix" ]; then
	cmake --install "$build" --prefix "$prefix" > "$build/demo-install.log" 2>&1 \
		|| { cat "$build/demo-install.log"; exit 1; }
	command -v ldconfig > /dev/null && ldconfig
	echo "installed under $prefix (library, headers, profileme.pc, CMake package, profileme, Python package)"
fi
pm=$build/bin/profileme
"$pm" --version

run() { echo; echo "\$ profileme $*"; "$pm" "$@"; }
run list
fixture=tests/fixtures/sysfs/alpha
event='cpu/event=0x1,profileme/u'
run encode --sysfs "$fixture" "$event"
run encode --sysfs "$fixture" --json "$event"

echo
echo "== a real profile of the bundled workload (examples/workload) on this machine"
run report -- "$build/bin/workload" 1500

echo
echo "== a ProfileMe report: the bundled SYNTHETIC Alpha recording (no Alpha hardware here)"
run report --skid -i examples/data/profileme-synthetic.data

echo
echo "== an AMD IBS report: the bundled SYNTHETIC Zen 4 recording (ibs_op and ibs_fetch)"
run report -i examples/data/ibs-synthetic.data
run annotate pointer_chase -i examples/data/ibs-synthetic.data

echo
echo "== the ProfileMe facts in pprof (go tool pprof), from the SYNTHETIC recording"
pb=$(mktemp /tmp/profileme-demo-XXXXXX.pb.gz)
run convert --to pprof -i examples/data/profileme-synthetic.data -o "$pb"
if command -v go > /dev/null; then
	echo "\$ go tool pprof -top -sample_index=trapped $pb"
	go tool pprof -top -nodecount=8 -sample_index=trapped "$pb" 2>&1 | sed -n '1,16p'
else
	echo "(go is not installed: go tool pprof skipped)"
fi
rm -f "$pb"

if [ -n "$prefix" ]; then
	echo
	echo "== the Python binding (installed for /usr/bin/python3)"
	echo "\$ python3 -c 'import profileme; ...'"
	cd /tmp && /usr/bin/python3 -c "
import profileme
with profileme.open('$root/examples/data/profileme-synthetic.data') as rec:
    df = rec.to_pandas()
misp = df.mispredicted.fillna(False).astype(bool)
print('profileme', profileme.__version__, '-', len(df), 'synthetic ProfileMe samples,',
      int(misp.sum()), 'mispredicted; the other traps:')
print(df[(df.trapped == 1) & ~misp].trap.value_counts().head(5).to_string())
"
fi
