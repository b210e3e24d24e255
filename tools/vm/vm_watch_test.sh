#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vm_watch_test.sh - what decides that a VM run went wrong, on scripted
# consoles (kselftest TAP, no VM booted):
#  1 problem_patterns  run-vm.sh's and riscv-vm.sh's KERNEL_PROBLEM match
#                      the kernel's reports (BUG, WARNING, a hung task, a
#                      far-off APIC calibration on x86) and not the kernel's
#                      echo of the command line, which it prints from
#                      loglevel 6 on: `run-vm.sh --append loglevel=8`, as
#                      its usage suggests, must not fail on the word
#                      hung_task_timeout_secs of its own command line; on
#                      riscv64 a hart that did not come online is one
#  2 apic_calibration  x86: 0 and 49 ms of 100 are a problem, 95 and 102 ms
#                      (which the kernel corrects) are not
#  3 watch_boot_retry  vm_watch stops a VM at once when a problem comes
#                      before the start marker (run-vm.sh then boots again)
#  4 watch_grace       ... and GRACE seconds after a problem that came after
#                      it, also one whose line came in two pieces; a VM that
#                      ends by itself is not "stopped"
#  5 watch_timeout     ... and when the time limit is up
#  6 boot_retry        boot_retrying boots again once after a problem before
#                      the start marker (keeping that console), never after
#                      one that came after it, and not a third time
#  7 watch_comma       vm_watch's time limit holds in a locale whose decimal
#                      point is a comma (bash's EPOCHREALTIME follows it;
#                      de_DE, made with localedef; skipped without it)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# shellcheck source=tools/vm/tap.sh
. "$here/tap.sh"

# the definitions of both scripts, as they are
x86=$(eval "$(grep -E '^KERNEL_PROBLEM=' "$here/run-vm.sh")"; echo "$KERNEL_PROBLEM")
riscv=$(eval "$(grep -E '^KERNEL_PROBLEM=' "$here/riscv-vm.sh")"; echo "$KERNEL_PROBLEM")
cmdline=$(eval "$(grep -E '^CMDLINE\+?=' "$here/run-vm.sh")"; echo "$CMDLINE")
# shellcheck source=tools/vm/vm-watch.sh
. "$here/vm-watch.sh"

tap_plan 7

# matches PATTERN LINE: 0 if the console line is a problem
matches() { grep -qE "$1" <<<"$2"; }

# 1
st=0
[[ -n $x86 && -n $riscv && $cmdline == *hung_task* ]] ||
	{ echo "KERNEL_PROBLEM or CMDLINE not found" | diag; st=1; }
for p in "$x86" "$riscv"; do
	for l in "[    0.000000] Command line: $cmdline loglevel=8" \
		 "[    0.058873] Kernel command line: $cmdline loglevel=8" \
		 "[    3.149434] clk: Disabling unused clocks"; do
		! matches "$p" "$l" || { echo "a problem: $l" | diag; st=1; }
	done
	for l in "[  123.456789] INFO: task perf:123 blocked for more than 30 seconds." \
		 "[   52.000001] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [stress_test:80]" \
		 "[    5.000000] WARNING: CPU: 1 PID: 1 at drivers/perf/x.c:10 f+0x1/0x2" \
		 "[    9.100000] Kernel panic - not syncing: hung_task: blocked tasks" \
		 "[    7.000000] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"; do
		matches "$p" "$l" || { echo "not a problem: $l" | diag; st=1; }
	done
done
l="[    1.800355] CPU1: failed to come online"
matches "$riscv" "$l" || { echo "riscv64: not a problem: $l" | diag; st=1; }
result problem_patterns $st

# 2
st=0
for ms in 0 9 49 201 350 1000; do
	l="[    0.5] APIC calibration not consistent with PM-Timer: ${ms}ms instead of 100ms"
	matches "$x86" "$l" || { echo "not a problem: $l" | diag; st=1; }
done
for ms in 50 95 100 102 200; do
	l="[    0.5] APIC calibration not consistent with PM-Timer: ${ms}ms instead of 100ms"
	! matches "$x86" "$l" || { echo "a problem: $l" | diag; st=1; }
done
result apic_calibration $st

# watch NAME TIMEOUT GRACE SCRIPT: run vm_watch over a fake VM (a subshell
# that writes the console lines of SCRIPT to its log and then lingers, as
# qemu would); prints $stopped and the seconds vm_watch took
watch() {
	local log=$tmp/$1.log t0
	: >"$log"
	(eval "$4") >>"$log" &
	t0=${EPOCHREALTIME/,/.}
	vm_watch $! "$log" "$2" "$x86" "$3" '^SOCPMU-VM-START abc$'
	wait 2>/dev/null
	awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" -v s="$stopped" 'BEGIN { printf "%s|%.1f\n", s, b - a }'
}
# took LINE MIN MAX: the seconds of a watch() line are in [MIN, MAX]
took() { awk -F'|' -v lo="$2" -v hi="$3" '{ exit !($2 >= lo && $2 <= hi) }' <<<"$1"; }

# 3: the problem comes first; vm_watch must not wait out the grace
st=0
r=$(watch boot 30 20 'sleep 0.3; echo "[    0.4] APIC calibration not consistent with PM-Timer: 0ms instead of 100ms"
		      sleep 0.3; echo "SOCPMU-VM-START abc"; sleep 25')
[[ ${r%|*} == "stopped: the kernel reported a problem while booting" ]] && took "$r" 0 5 ||
	{ echo "vm_watch: '$r'" | diag; st=1; }
result watch_boot_retry $st

# 4
st=0
r=$(watch grace 30 2 'echo "SOCPMU-VM-START abc"; sleep 0.3; echo "[    9.0] BUG: x"; sleep 25')
[[ ${r%|*} == "stopped 2 s after the kernel reported a problem" ]] && took "$r" 2 8 ||
	{ echo "vm_watch, a problem after the start: '$r'" | diag; st=1; }
r=$(watch pieces 30 2 'echo "SOCPMU-VM-START abc"; sleep 0.3; printf "[    9.0] BU"; sleep 0.5
		       echo "G: soft lockup"; sleep 25')
[[ ${r%|*} == "stopped 2 s after the kernel reported a problem" ]] && took "$r" 2 8 ||
	{ echo "vm_watch, a problem line in two pieces: '$r'" | diag; st=1; }
r=$(watch clean 30 2 'echo "SOCPMU-VM-START abc"; sleep 0.5; echo "SOCPMU-VM-EXIT abc status=0"')
[[ ${r%|*} == "" ]] && took "$r" 0 5 || { echo "vm_watch, a clean run: '$r'" | diag; st=1; }
result watch_grace $st

# 5
st=0
r=$(watch timeout 2 60 'echo "SOCPMU-VM-START abc"; sleep 25')
[[ ${r%|*} == "timed out after 2 s" ]] && took "$r" 2 8 ||
	{ echo "vm_watch, past the time limit: '$r'" | diag; st=1; }
result watch_timeout $st

# 6: boot() as run-vm.sh's and riscv-vm.sh's, scripted: each call takes the
# next console of $boots
# shellcheck disable=SC2034 # boot_retrying reads console, problems and log
boot() {
	boots_done=$((boots_done + 1))
	console=${boots[boots_done - 1]}
	echo "$console" >"$log"
	problems=$(grep -E "$x86" <<<"$console") || true
}
# retries CONSOLE...: how many times boot_retrying booted for these consoles
retries() {
	boots=("$@") boots_done=0
	rm -f "$log.boot-failure"
	boot_retrying vm_watch_test abc 2>/dev/null
	echo "$boots_done"
}
st=0
log=$tmp/boot.log
bad="[    0.4] APIC calibration not consistent with PM-Timer: 0ms instead of 100ms"
ok="SOCPMU-VM-START abc"
b=$(retries "$bad" "$ok")
[[ $b == 2 && -f $log.boot-failure && $(cat "$log") == "$ok" ]] ||
	{ echo "a boot failure then a good boot: $b boots" | diag; st=1; }
b=$(retries "$ok
[    9.0] BUG: x" "$ok")
[[ $b == 1 ]] || { echo "a problem after the start marker: $b boots" | diag; st=1; }
b=$(retries "$bad" "$bad" "$ok")
[[ $b == 2 ]] || { echo "two boot failures: $b boots" | diag; st=1; }
b=$(retries "$ok" "$ok")
[[ $b == 1 ]] || { echo "a good boot: $b boots" | diag; st=1; }
result boot_retry $st

# 7: in a bash started in de_DE (set in a running shell, LOCPATH is not
# looked at again)
mkdir -p "$tmp/locale"
if localedef -i de_DE -f ISO-8859-1 "$tmp/locale/de_DE" >/dev/null 2>&1 ||
	[[ -f $tmp/locale/de_DE/LC_NUMERIC ]]; then
	st=0
	# watch() and what it uses, in the new bash
	export -f watch vm_watch
	export tmp x86
	# shellcheck disable=SC2016 # expanded by the inner bash
	r=$(LOCPATH=$tmp/locale LC_ALL=de_DE bash -c '
		[[ $EPOCHREALTIME == *,* ]] || { echo "no comma in EPOCHREALTIME: $EPOCHREALTIME"; exit; }
		watch comma 2 60 "echo SOCPMU-VM-START abc; sleep 25"' 2>&1)
	[[ ${r%|*} == "timed out after 2 s" ]] && took "${r/,/.}" 2 8 ||
		{ echo "vm_watch in de_DE: '$r'" | diag; st=1; }
	result watch_comma $st
else
	skip_test watch_comma "localedef cannot make de_DE (no locales package)"
fi

tap_totals
