#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# PM_DEPRECATED(msg) makes the compiler warn at a use, with the message, and
# is silent for a program that does not use the declaration.
#   check_deprecated.sh CC INCLUDE_DIR...
set -eu
CC=$1
shift
inc=
for d in "$@"; do inc="$inc -I$d"; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/decl.h" <<'H'
#include <profileme/common.h>
PM_DEPRECATED("use pm_new_thing() instead") int pm_old_thing(void);
int pm_new_thing(void);
H
printf '#include "decl.h"\nint use_new(void) { return pm_new_thing(); }\n' > "$tmp/ok.c"
printf '#include "decl.h"\nint use_old(void) { return pm_old_thing(); }\n' > "$tmp/old.c"
# shellcheck disable=SC2086
$CC -std=c99 -Wall -Werror -fsyntax-only $inc "$tmp/ok.c" \
	|| { echo "FAIL: a program not using the deprecated declaration does not compile cleanly"; exit 1; }
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Werror=deprecated-declarations -fsyntax-only $inc "$tmp/old.c" 2> "$tmp/err"; then
	echo "FAIL: a use of a PM_DEPRECATED declaration gave no warning"; exit 1
fi
grep -q "use pm_new_thing() instead" "$tmp/err" || { cat "$tmp/err"; echo "FAIL: the warning lacks the message"; exit 1; }
echo "OK: PM_DEPRECATED warns at a use, with its message"
