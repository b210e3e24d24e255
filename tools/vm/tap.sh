# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# tap.sh - sourced by the bash host tests (tools/vm/*_test.sh,
# tools/install/install_test.sh, tools/docs/doccheck.sh, tools/tt-kmd/patch_test.sh,
# tools/sifive-perf/cli_test.sh): kselftest TAP output.

n=0 pass=0 fail=0 skip=0

# tap_plan N: the header, N tests to come.
tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

# ok NAME: "ok N NAME".
ok() {
	n=$((n + 1))
	pass=$((pass + 1))
	echo "ok $n $1"
}

# not_ok NAME [FILE...]: "not ok N NAME", then each FILE there is as
# diagnostics ("#   FILE: " before each of its lines).
not_ok() {
	local f

	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n $1"
	shift
	for f in "$@"; do
		if [[ -f $f ]]; then sed "s|^|#   $f: |" "$f"; fi
	done
}

# result NAME STATUS: ok NAME if STATUS is 0, else not_ok NAME.
result() {
	if [[ $2 == 0 ]]; then ok "$1"; else not_ok "$1"; fi
}

# skip_test NAME WHY: "ok N NAME # SKIP WHY", counted as a skip.
skip_test() {
	n=$((n + 1))
	skip=$((skip + 1))
	echo "ok $n $1 # SKIP $2"
}

# diag: stdin as diagnostics ("# " before each line).
diag() { sed 's/^/# /'; }

# tap_totals: the Totals line; the status is 0 if no test failed.
tap_totals() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
	((fail == 0))
}
