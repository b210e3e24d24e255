#!/bin/bash
# vm-watch.sh - sourced by run-vm.sh and riscv-vm.sh: the watch over a
# running VM that both benches share.
#
# vm_watch PID LOG TIMEOUT PROBLEM GRACE [START]: wait for the VM process PID
# while its console goes to LOG. Kill it after TIMEOUT seconds, or GRACE
# seconds after a console line matched the regex PROBLEM (a kernel problem:
# let the guest print the rest of the report first); at once if that line
# came before one matching the regex START (the guest's start marker: a
# boot failure, which the caller may boot again). Sets $stopped to why it
# killed the VM ("" if the VM ended by itself).
vm_watch() {
	local pid=$1 log=$2 timeout_s=$3 problem=$4 grace=$5 start=${6:-}
	local end=$((SECONDS + timeout_s)) grace_end=''

	stopped=''
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= end)); then
			stopped="timed out after $timeout_s s"
		elif [[ -z $grace_end ]] && grep -qE "$problem" "$log"; then
			grace_end=$((SECONDS + grace))
			# the start marker is checked after the problem, so that
			# one printed in between counts as printed before
			[[ -z $start ]] || grep -qE "$start" "$log" ||
				stopped="stopped: the kernel reported a problem while booting"
		elif [[ -n $grace_end ]] && ((SECONDS >= grace_end)); then
			stopped="stopped $grace s after the kernel reported a problem"
		fi
		if [[ -n $stopped ]]; then
			kill "$pid"
			break
		fi
		sleep 0.2
	done
}
