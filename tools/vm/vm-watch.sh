#!/bin/bash
# vm-watch.sh - sourced by run-vm.sh and riscv-vm.sh: what both benches
# share: packing the initramfs, the watch over a running VM, the boot retry.
#
# newc_of DIR: DIR's tree as a newc cpio archive (owned by root, in a
# stable order) on stdout.
newc_of() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet)
}

# vm_watch PID LOG TIMEOUT PROBLEM GRACE [START]: wait for the VM process PID
# while its console goes to LOG. Kill it after TIMEOUT seconds, or GRACE
# seconds after a console line matched the regex PROBLEM (a kernel problem:
# let the guest print the rest of the report first); at once if that line
# came before one matching the regex START (the guest's start marker: a
# boot failure, which the caller may boot again). Sets $stopped to why it
# killed the VM ("" if the VM ended by itself).
vm_watch() {
	local pid=$1 log=$2 timeout_s=$3 problem=$4 grace=$5 start=${6:-}
	local line part='' found='' started='' lfd nap now grace_end=''
	# deadlines in microseconds: $SECONDS counts whole seconds, and a
	# deadline of SECONDS + GRACE may come up to a second early
	local end=$((${EPOCHREALTIME/[.,]/} + timeout_s * 1000000))

	stopped=''
	# Without a process per look (a grep and a sleep 5 times a second cost
	# ~2% of a CPU per VM, and make check watches 4-5 VMs at once): the log
	# is read as it grows through a descriptor of its own, and the naps are
	# read timeouts on a pipe that nobody writes to.
	exec {lfd}<"$log" {nap}<> <(:)
	while kill -0 "$pid" 2>/dev/null; do
		# the lines the VM printed since the last look; a line it is still
		# printing waits in $part
		while IFS= read -r -u "$lfd" line; do
			line=$part$line part=
			[[ -n $found || ! $line =~ $problem ]] || found=1
			[[ -z $start || -n $started || ! $line =~ $start ]] || started=1
		done
		part+=$line
		now=${EPOCHREALTIME/[.,]/}
		if ((now >= end)); then
			stopped="timed out after $timeout_s s"
		elif [[ -z $grace_end && -n $found ]]; then
			grace_end=$((now + grace * 1000000))
			# the start marker counts if it came in the same look as the
			# problem, printed before or after it
			[[ -z $start || -n $started ]] ||
				stopped="stopped: the kernel reported a problem while booting"
		elif [[ -n $grace_end ]] && ((now >= grace_end)); then
			stopped="stopped $grace s after the kernel reported a problem"
		fi
		if [[ -n $stopped ]]; then
			kill "$pid"
			break
		fi
		read -r -t 0.2 -u "$nap" || true
	done
	exec {lfd}<&- {nap}<&-
}

# boot_retrying PROG TOKEN: run the caller's boot() (which boots the VM and
# sets $console, the console as text, and $problems, its kernel problems,
# from the console file $log); a problem before the guest's start marker
# "SOCPMU-VM-START TOKEN" is a boot failure (nothing of ours had run, and
# vm_watch stopped the VM at once): its console is kept as $log.boot-failure
# and the VM boots once more. A problem after the marker is never retried.
# shellcheck disable=SC2154 # boot() sets console and problems
boot_retrying() {
	local prog=$1 token=$2 attempt

	for attempt in 1 2; do
		boot
		[[ -n $problems ]] || return 0
		! grep -qE "^SOCPMU-VM-START $token\$" <<<"$console" || return 0
		((attempt == 1)) || return 0
		cp "$log" "$log.boot-failure"
		echo "$prog: the guest kernel failed while booting, before anything of ours ran" \
			"(console kept in $log.boot-failure): booting again" >&2
	done
}
