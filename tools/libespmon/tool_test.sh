#!/bin/bash
# tool_test.sh OUT - host tests of the esp-monitor command line (no PMU
# needed): --help, usage errors that name the bad argument, and a library
# error printed once, saying what is missing; the man page against --help.
# kselftest TAP output.
set -uo pipefail
out=$(cd "${1:?}" && pwd)
tool=$out/esp-monitor
man=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/esp-monitor.1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset ESP_MONITOR_QUIET ESP_MONITOR_PMU

n=0 pass=0 fail=0
# check NAME COND: COND is a shell expression over $rc, o (stdout) and e (stderr)
check() {
	n=$((n + 1))
	if eval "$2"; then
		pass=$((pass + 1))
		echo "ok $n $1"
	else
		fail=$((fail + 1))
		echo "not ok $n $1"
		sed 's/^/#   stdout: /' o
		sed 's/^/#   stderr: /' e
	fi
}
# t ARGS...: run the tool, rc in $rc
t() { "$tool" "$@" >o 2>e; rc=$?; }

echo "TAP version 13"
echo "1..13"

t --help
check "--help: the help on stdout, status 0" '[[ $rc == 0 && ! -s e ]] && grep -q "^Usage: esp-monitor" o'
t -h
check "-h: the same" '[[ $rc == 0 ]] && grep -q "^Usage: esp-monitor" o'

t -s 3x -- true
check "-s 3x: names the argument, one usage line, status 2" \
	'[[ $rc == 2 && ! -s o && $(wc -l <e) == 2 ]] && grep -q "^esp-monitor: -s .3x.: expected TILE:MON" e && grep -q "try .esp-monitor --help." e'
t -s 0:99 -- true
check "-s 0:99: names the monitor" '[[ $rc == 2 ]] && grep -q "^esp-monitor: -s .0:99.: MON .99. is not a monitor (0-58)" e'
t -m ddr,bogus -- true
check "-m ddr,bogus: names the set" '[[ $rc == 2 ]] && grep -q "^esp-monitor: -m .ddr,bogus.: no set .bogus." e'
t -m "$(printf 'ddr,%.0s' $(seq 64))llc" -- true
check "-m too long: refused, not cut" '[[ $rc == 2 ]] && grep -q "^esp-monitor: -m: a list of sets is at most" e'
t -t x -- true
check "-t x: names the value" '[[ $rc == 2 ]] && grep -q "^esp-monitor: -t .x.: not a tile index" e'
t --bogus true
check "--bogus: an unknown option, named" '[[ $rc == 2 ]] && grep -q "^esp-monitor: unknown option --bogus" e'
t
check "no command: said so" '[[ $rc == 2 ]] && grep -q "^esp-monitor: no command to run" e'

# No PMU: one error line (not the library's and then the tool's), saying
# what is missing
mkdir empty
ESP_MONITOR_SYSFS=$work/empty "$tool" -- true >o 2>e
rc=$?
if [[ -e /sys/module/esp_pmu ]]; then
	why="esp_pmu is loaded but has no device"
else
	why="esp_pmu is not loaded (modprobe esp_pmu)"
fi
check "no PMU: one error, what is missing ($why)" \
	'[[ $rc == 1 && $(wc -l <e) == 1 ]] && grep -qF "esp-monitor: no ESP PMU: no esp_<n> in $work/empty; $why" e'
ESP_MONITOR_SYSFS=$work/empty "$tool" -p esp_4 -- true >o 2>e
rc=$?
check "-p esp_4 missing: one error naming it" \
	'[[ $rc == 1 && $(wc -l <e) == 1 ]] && grep -q "^esp-monitor: esp_4: no ESP PMU of that name" e'

# -o FILE that cannot be created: said before the command runs (no PMU
# needed: the file comes first)
t -o "$work/no/such/dir/stats.txt" -- touch "$work/ran"
check "-o unwritable: named, status 1, the command not run" \
	'[[ $rc == 1 && ! -e $work/ran ]] && grep -q "^esp-monitor: .*no/such/dir/stats.txt: " e'

# The man page documents every option of --help
"$tool" --help >help 2>&1
missing=
for o in $(grep -oE '(^|[ ,[])--?[a-zA-Z][a-z-]*' help | sed 's/^[ ,[]//' | grep -v '^-f' | sort -u); do
	grep -qF -- "${o//-/\\-}" "$man" || missing+=" $o"
done
n=$((n + 1))
if [[ -f $man && -z $missing ]]; then
	pass=$((pass + 1))
	echo "ok $n esp-monitor.1 documents every option of --help"
else
	fail=$((fail + 1))
	echo "not ok $n esp-monitor.1 documents every option of --help (missing:${missing:- the page})"
fi

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
((fail == 0))
