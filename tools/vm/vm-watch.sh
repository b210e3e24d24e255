#!/bin/bash
# vm-watch.sh - sourced by run-vm.sh and riscv-vm.sh: the watch over a
# running VM that both benches share.
#
# vm_watch PID LOG TIMEOUT PROBLEM GRACE: wait for the VM process PID while
# its console goes to LOG. Kill it after TIMEOUT seconds, or GRACE seconds
# after a console line matched the regex PROBLEM (a kernel problem: let the
# guest print the rest of the report first). Sets $stopped to why it killed
# the VM ("" if the VM ended by itself).
vm_watch() {
	local pid=$1 log=$2 timeout_s=$3 problem=$4 grace=$5
	local end=$((SECONDS + timeout_s)) grace_end=''

	stopped=''
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= end)); then
			stopped="timed out after $timeout_s s"
		elif [[ -z $grace_end ]] && grep -qE "$problem" "$log"; then
			grace_end=$((SECONDS + grace))
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
