#!/bin/sh
# run_all.sh - run every test in DIR/*/ and print the sum (busybox sh; this
# is how `make check` runs the selftests inside the VM).
#
# Usage: run_all.sh [-m] [-l LABEL] [-g GROUPS | -q DEVICE] [DIR]
#                                                   (defaults: VM, /selftests)
#   -m  first modprobe every module in /lib/modules/$(uname -r)/updates/socpmu (the
#       socpmu modules in the VM); a module that fails to load counts as 1 failed
#   -g  only the groups (DIR/<group>/) and tests (DIR/<group>/<test>) named in
#       GROUPS (separated by spaces); one that does not exist counts as 1 failed
#   -q  take them one at a time from a queue at the other end of the serial
#       port DEVICE instead (tools/vm/run-vm.sh --queue): write "next", read
#       a line, GROUPS' one word; an empty line ends the run. The VMs of
#       `make check` share one queue, so that they end together.
#
# A test is an executable file or a *.sh script in DIR/<group>/; programs
# named *_bench are benchmarks, not tests, and are left to `make bench`. It must print
# kselftest "# Totals: pass:N fail:N xfail:N xpass:N skip:N error:N" lines
# (the kselftest harness prints one; all of them are added up). xfail counts
# as passed, xpass and error as failed. A test that prints no Totals line
# (crash, timeout) counts as 1 failed, and so does one that exits with a
# failure status although its Totals report no failure. Each test gets
# $SELFTEST_TIMEOUT seconds (default 600: a guard against hangs, not a
# bound on speed; the harness's own per-case limits go up to 300 s, and on
# a 2-CPU host loaded by make check perf_record_test took 112 s and once
# more than 120).
# Each test's line of counts ends with the seconds it took and, where
# /proc/stat is readable, the CPU seconds the whole system was busy meanwhile
# (all CPUs added; in a TCG guest this shows how much host CPU a test costs).
# Last line: "LABEL: N passed, N failed, N skipped"; exit status 1 if any failed.

label=VM load= groups= queue=
while [ $# -gt 0 ]; do
	case $1 in
	-m) load=1; shift ;;
	-l) label=$2; shift 2 ;;
	-g) groups=$2; shift 2 ;;
	-q) queue=$2; shift 2 ;;
	*) break ;;
	esac
done
dir=${1:-/selftests}
limit=${SELFTEST_TIMEOUT:-600}

passed=0 failed=0 skipped=0

if [ -n "$load" ]; then
	for ko in /lib/modules/"$(uname -r)"/updates/socpmu/*.ko; do
		[ -f "$ko" ] || continue
		m=$(basename "$ko" .ko)
		if ! modprobe "$m"; then
			echo "# ===== modprobe $m failed: 1 failed"
			failed=$((failed + 1))
		fi
	done
fi
# busy: the jiffies (USER_HZ) all CPUs spent busy since boot, from /proc/stat.
busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat 2>/dev/null
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run_test FILE: run one test, print its output and its line of counts, and
# add them up.
run_test() {
	t=$1
	if [ ! -f "$t" ]; then
		return
	elif [ "${t%_bench}" != "$t" ]; then
		return	# benchmarks print figures, `make bench` runs them
	elif [ "${t%.sh}" != "$t" ]; then
		set -- sh "$t"
	elif [ -x "$t" ]; then
		set -- "$t"
	else
		return
	fi
	name=${t#"$dir"/}
	echo "# ===== $name"
	t0=$(date +%s)
	b0=$(busy)
	timeout "$limit" "$@" >"$out" 2>&1 </dev/null 3>&-
	rc=$?
	secs=$(($(date +%s) - t0))
	b1=$(busy)
	cpu=
	[ -n "$b0" ] && [ -n "$b1" ] && cpu=", busy $(((b1 - b0) / 100)).$(((b1 - b0) % 100 / 10)) s"
	cat "$out"

	# n Totals lines adding up to p passed, f failed, s skipped
	counts=$(awk '/^# Totals: / {
			n++
			for (i = 3; i <= NF; i++) { split($i, kv, ":"); t[kv[1]] += kv[2] }
		}
		END { print n + 0, t["pass"] + t["xfail"], t["fail"] + t["xpass"] + t["error"], t["skip"] + 0 }' "$out")
	read -r n p f s <<EOF
$counts
EOF
	if [ "$n" -eq 0 ]; then
		echo "# ===== $name: no Totals line (exit status $rc): 1 failed ($secs s)"
		failed=$((failed + 1))
		return
	fi
	# kselftest exit codes: 0 pass, 4 all skipped; anything else is a failure.
	if [ "$f" -eq 0 ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
		echo "# ===== $name: exit status $rc without failed tests: 1 failed"
		f=1
	fi
	echo "# ===== $name: $p passed, $f failed, $s skipped ($secs s$cpu)"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# run_group G: the tests of group or test G (DIR/<group>/, DIR/<group>/<test>).
run_group() {
	if [ -d "$dir/$1" ]; then
		for tf in "$dir/$1"/*; do run_test "$tf"; done
	elif [ -f "$dir/$1" ]; then
		run_test "$dir/$1"
	else
		echo "# ===== group $1: not found: 1 failed"
		failed=$((failed + 1))
	fi
}

if [ -n "$queue" ]; then
	# (a failed redirection of exec would end the shell: the check first)
	if [ -c "$queue" ] && exec 3<>"$queue" && stty -F "$queue" raw -echo; then
		while echo next >&3 && IFS= read -r g <&3 && [ -n "$g" ]; do
			run_group "$g"
		done
		exec 3>&-
	else
		echo "# ===== queue $queue: cannot be opened: 1 failed"
		failed=$((failed + 1))
	fi
elif [ -n "$groups" ]; then
	for g in $groups; do run_group "$g"; done
else
	for tf in "$dir"/*/*; do run_test "$tf"; done
fi

echo "$label: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
