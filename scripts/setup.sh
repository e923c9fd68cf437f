#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Installs the Debian 12 packages that building, testing, cross testing and
# the docs of libprofileme need.  Runs apt only when something is missing,
# so a rerun costs a second.  Run as root (or set SUDO=sudo).
set -eu
PACKAGES="build-essential cmake pkg-config libelf-dev libzstd-dev check swig
python3-dev python3-numpy python3-pandas python3-pytest linux-perf python3-dask python3-distributed
gcc-alpha-linux-gnu libc6.1-dev-alpha-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user
clang llvm libclang-rt-14-dev valgrind abigail-tools doxygen
jupyter-nbconvert python3-ipykernel python3-matplotlib gcovr
golang-go graphviz libprotobuf-c-dev protobuf-c-compiler zlib1g-dev"

missing=
for p in $PACKAGES; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case $st in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "setup: all $(echo $PACKAGES | wc -w) packages are installed"
	exit 0
fi
echo "setup: installing$missing"
SUDO=${SUDO:-}
if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
	echo "setup: not root; run as root or with SUDO=sudo" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
