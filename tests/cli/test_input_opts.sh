#!/bin/sh
# The options every reading command shares (-i/--input, --symfs, --kallsyms)
# are parsed in one place (cli_input_opt()): each command takes "OPT VALUE"
# and "--OPT=VALUE" alike, the option takes effect, and a missing value is an
# error naming the option.  Recording: the SYNTHETIC ProfileMe file.
# usage: test_input_opts.sh <profileme> <source dir>
set -u
PM=$1
SRC=$2
DATA=$SRC/examples/data/profileme-synthetic.data
TMP=${TMPDIR:-/tmp}/pm-cli-inopts.$$
mkdir -p "$TMP/nosym"
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
printf 'ffffffff81000000 T synthetic_kallsyms_only\n' >"$TMP/kallsyms"
elf=
[ "${PM_HAVE_LIBELF:-1}" = 1 ] || elf=:

# run NAME CMD...: the command's stdout in $TMP/NAME, its status checked
run() {
	n=$1
	shift
	"$@" >"$TMP/$n" 2>"$TMP/$n.err" || fail "$* exited $?: $(head -c 400 "$TMP/$n.err")"
}
# same NAME CMD...: stdout, stderr and status in $TMP/NAME.* (compared, not checked)
same() {
	n=$1
	shift
	"$@" >"$TMP/$n" 2>"$TMP/$n.err"
	echo $? >>"$TMP/$n"
}

for cmd in "script -F ip,sym,dso" "report -q --sort sym,dso" "convert --to folded -o /dev/stdout" \
	"annotate daxpy --no-disasm -q"; do
	set -- $cmd
	name=$1
	# without libelf nothing is named: annotate finds no daxpy (the same
	# answer for each spelling), and --symfs changes nothing
	$elf run "$name.i" "$PM" $cmd -i "$DATA"
	same "$name.i" "$PM" $cmd -i "$DATA"
	same "$name.input" "$PM" $cmd --input "$DATA"
	same "$name.input=" "$PM" $cmd --input="$DATA"
	for v in input input=; do
		cmp -s "$TMP/$name.i" "$TMP/$name.$v" && cmp -s "$TMP/$name.i.err" "$TMP/$name.$v.err" ||
			fail "$name: -i and --$v differ"
	done
	# --symfs DIR and --symfs=DIR: the same output, and not the default one
	# (an empty symfs leaves the synthetic program's functions unnamed)
	# (an empty symfs leaves the synthetic program's functions unnamed: annotate
	# then finds no samples in daxpy and says so)
	same "$name.s" "$PM" $cmd -i "$DATA" --symfs "$TMP/nosym" --kallsyms "$TMP/kallsyms"
	same "$name.s=" "$PM" $cmd -i "$DATA" --symfs="$TMP/nosym" --kallsyms="$TMP/kallsyms"
	cmp -s "$TMP/$name.s" "$TMP/$name.s=" && cmp -s "$TMP/$name.s.err" "$TMP/$name.s=.err" ||
		fail "$name: --symfs DIR and --symfs=DIR differ"
	same "$name.real" "$PM" $cmd -i "$DATA" --symfs "$SRC/examples/data/symfs"
	[ "$elf" = : ] || ! cmp -s "$TMP/$name.real" "$TMP/$name.s" || fail "$name: --symfs had no effect"
	for opt in -i --input --symfs --kallsyms; do
		"$PM" $cmd $opt >"$TMP/m" 2>"$TMP/m.err"
		rc=$?
		[ $rc = 2 ] || fail "$name $opt without a value exited $rc, not 2"
		grep -qF -- "$opt wants a value" "$TMP/m.err" ||
			fail "$name $opt without a value: $(head -c 300 "$TMP/m.err")"
	done
done
# a value is taken as it is, even when it looks like an option
"$PM" script -i --symfs >"$TMP/o" 2>"$TMP/o.err"
[ $? = 1 ] && grep -qF -- "--symfs" "$TMP/o.err" || fail "-i --symfs: $(head -c 300 "$TMP/o.err")"

[ $fails = 0 ] && echo "ok: -i/--input/--symfs/--kallsyms alike in script, report, convert, annotate"
exit $fails
