# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# tap.sh - sourced by the bash host tests (tools/vm/*_test.sh,
# tools/install/install_test.sh): kselftest TAP output.

n=0 pass=0 fail=0 skip=0

# tap_plan N: the header, N tests to come.
tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

# result NAME STATUS: "ok N NAME" if STATUS is 0, else "not ok N NAME".
result() {
	n=$((n + 1))
	if [[ $2 == 0 ]]; then
		pass=$((pass + 1))
		echo "ok $n $1"
	else
		fail=$((fail + 1))
		echo "not ok $n $1"
	fi
}

# skip_test NAME WHY: "ok N NAME # SKIP WHY", counted as a skip (the same as
# the copies in tools/docs/doccheck.sh and tools/sifive-perf/cli_test.sh).
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
