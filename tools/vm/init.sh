#!/bin/sh
# /init of the socpmu test VM (busybox sh, built by run-vm.sh): mount the
# pseudo file systems, print the start marker, run /etc/socpmu/cmd, print
# the exit marker that run-vm.sh waits for, power off. With
# /etc/socpmu/interactive (run-vm.sh --interactive) a shell on the console
# comes between the command and the marker.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
exec </dev/null >/dev/console 2>&1

export PATH=/usr/bin:/usr/sbin:/bin:/sbin
export HOME=/root TERM=dumb PAGER=cat
hostname socpmu-vm

# Nothing of ours ran before this line: run-vm.sh tells boot trouble from ours by it.
printf '\nSOCPMU-VM-START %s\n' "$(cat /etc/socpmu/token)"
sh /etc/socpmu/cmd
status=$?
# run-vm.sh --interactive: then a shell on the console, with job control
if [ -f /etc/socpmu/interactive ]; then
	setsid cttyhack sh -i </dev/console >/dev/console 2>&1
	status=$?
fi

# Leading newline: the marker must start a line even if the command's output did not end one.
printf '\nSOCPMU-VM-EXIT %s status=%d\n' "$(cat /etc/socpmu/token)" "$status"
poweroff -f
