#!/bin/bash
# run-vm.sh - run one command in a throw-away VM and pass its exit status on.
#
# Usage: tools/vm/run-vm.sh [--timeout S] [--append ARGS] [--dir DIR] [--quiet]
#                           [--queue FILE] [--pcp] [--net PORT] -- CMD [ARG...]
#        tools/vm/run-vm.sh --interactive [--append ARGS] [--dir DIR]
#   --timeout S    give up after S seconds (default 300)
#   --append ARGS  more kernel command line, e.g. loglevel=8 to see every
#                  kernel message (the default shows warnings and worse)
#   --dir DIR      the VM's work directory (default .build/vm; $VM_DIR):
#                  several VMs with their own directories can run at once
#   --quiet        do not show the console as it grows (it is still kept)
#   --queue FILE   the guest's /dev/ttyS1 hands out FILE's lines: each line
#                  the guest writes there is answered with the next line of
#                  FILE, which is taken out of it (under a lock: VMs can
#                  share FILE), then with an empty line once FILE is empty
#                  (suites.sh's serve_queue; run_all.sh -q). The lines
#                  handed out are kept in DIR/handed.
#   --pcp          add the host's Performance Co-Pilot (Debian's pcp: pmcd,
#                  the perfevent PMDA, pminfo, pmval, their configuration
#                  and libraries; see add_pcp) for selftests/pcp
#   --net PORT     a network card (QEMU user networking, virtio) whose guest
#                  port 44321 (pmcd) is forwarded from 127.0.0.1:PORT on the
#                  host; its modules (failover, net_failover, virtio_net,
#                  decompressed) are in the guest's /etc/socpmu/net/ for the
#                  command to insmod in that order
#   --interactive  a shell on the console (this terminal, or stdin's lines)
#                  with every module loaded and a simulated device of every
#                  type (tools/vm/session.sh); `exit` powers the VM off
#
# The VM: the Debian kernel that `make deps` extracted into $CACHE (the ELF
# of its bzImage, through the PVH entry: deps.sh's vmlinux_of), booted by
# qemu-system-x86_64 (TCG, 2 CPUs, 1 GiB, serial console) from a busybox
# initramfs made in .build/vm/root (DIR/root), kept as DIR/initramfs-base.cpio
# and made again whenever one of its files changed, with
#   /lib/modules/$KVER/updates/socpmu  the modules as `make install` installs
#                             them (.build/tools-root, `make`) + depmod, so
#                             `modprobe socpmu_sim` pulls in socpmu_core
#   /usr/bin/perf             $CACHE/perf-build/perf (`make perf`: perf with
#                             tools/perf/patches; required)
#   /usr/bin/perf-debian      the host's Debian perf (linux-perf), if any
#   /selftests                run_all.sh, .build/selftests/* and selftests/*/*.sh
#   /usr                      .build/tools-root/usr (the tools, `make tools`)
#   /demo.sh                  tools/vm/demo.sh
# and, at their host paths, the shared libraries of every dynamic program;
# each run adds its command and markers' token (/etc/socpmu).
# CMD runs as root in / with stdin from /dev/null; words are passed as
# they are (use `sh -c '...'` for shell syntax). debugfs is mounted.
#
# The console is shown and kept in DIR/console.log. Exit status: CMD's;
# 124 if the guest printed no exit marker (timeout, panic); 125 if the kernel
# logged a problem (see KERNEL_PROBLEM) or the VM could not be set up.
#
# Environment: KVER (default: tools/vm/kver.sh), CACHE (default /var/cache/socpmu).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/vm/vm-watch.sh
. "$here/vm-watch.sh"
# shellcheck source=tools/vm/suites.sh
. "$here/suites.sh"
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
KVER=${KVER:-$("$here/kver.sh")}
PATH=$PATH:/usr/sbin:/sbin # depmod

vmdir=${VM_DIR:-$top/.build/vm}
image=$CACHE/linux-image-$KVER
vmlinux=$image/boot/vmlinux-$KVER
busybox=/bin/busybox

# Kernel log lines that make a run untrustworthy. Only lines with a printk
# time stamp count, so a program that prints "WARNING:" does not trip it.
# "APIC calibration not consistent with PM-Timer: Nms instead of 100ms"
# with N under 50 or over 200: the kernel scales its local APIC timer by
# the PM timer's 100/N, and a TCG guest booting while the host's CPUs are
# all busy can read a PM timer that barely moved ("0ms", seen with six
# emulators starting at once): its timer ticks then come at a wrong rate,
# and soft lockups followed during the boot. A few percent off (95 or
# 102 ms, seen under the same load) is what the scaling is for.
KERNEL_PROBLEM='\[ *[0-9]+\.[0-9]+\] .*(BUG:|WARNING:|Oops|Call Trace|blocked for more than|Kernel panic|general protection fault|UBSAN:|APIC calibration not consistent with PM-Timer: ([0-9]|[1-4][0-9]|20[1-9]|2[1-9][0-9]|[3-9][0-9][0-9]|[0-9]{4,})ms)'
# Seconds the guest may go on after the first such line.
GRACE=60

# Console: ttyS0. loglevel=5 keeps boot chatter off the console but still
# shows warnings, oopses and hung tasks. panic=-1 + -no-reboot: a panic ends
# qemu at once. Hung tasks are reported after 30 s instead of 120 s.
# rcupdate.rcu_expedited=1: synchronize_rcu() and friends take expedited
# grace periods, as they wait on every module unload, PMU and device
# removal: reliability/module_test's 50 unload/load cycles take 4 s
# instead of 19 s. Only how long a grace period lasts changes, not what
# RCU guarantees. cryptomgr.notests: the kernel does not self-test its
# crypto algorithms while booting (nothing here uses them), which took
# about 1 of the boot's 6-7 CPU seconds under TCG.
CMDLINE="console=ttyS0 panic=-1 printk.time=1 loglevel=5 sysctl.kernel.hung_task_timeout_secs=30"
CMDLINE+=" rcupdate.rcu_expedited=1 cryptomgr.notests"

usage() {
	sed -n '3,15s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 125
}
fail() {
	printf '\n%s\nrun-vm: FAILED: %s\n%s\n' "==========" "$*" "==========" >&2
}
die() { fail "$@"; exit 125; }

timeout_s=300
append=
quiet=
interactive=
queue=
pcp=
net=
while (($#)); do
	case $1 in
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--append) append=${2:?}; shift 2 ;;
	--dir) vmdir=${2:?}; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--interactive) interactive=1; shift ;;
	--queue) queue=${2:?}; shift 2 ;;
	--pcp) pcp=1; shift ;;
	--net) net=${2:?}; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
if [[ -n $interactive ]]; then
	(($# == 0)) || usage
	set -- /bin/sh /session.sh
fi
(($#)) || usage
stage=$vmdir/root
initrd=$vmdir/initramfs.cpio
base=$vmdir/initramfs-base.cpio
log=$vmdir/console.log

[[ -n $KVER ]] || die "no /usr/src/linux-headers-6.12.*-amd64: run 'make deps'"
[[ -f $vmlinux ]] || die "$vmlinux is missing: run 'make deps'"
[[ -x $busybox ]] || die "$busybox is missing: run 'make deps'"

is_elf() { [[ $(head -c 4 "$1") == $'\x7fELF' ]]; }

# The perf of `make perf`: the VM's /usr/bin/perf. There is no fallback:
# the demo (perf record -e sifive_trace//) and the tests need its patches,
# and a stock perf in its place made `make run` fail on a new machine.
find_perf() {
	local p=$CACHE/perf-build/perf
	[[ -f $p ]] && is_elf "$p" || return 1
	echo "$p"
}

# Debian's linux-perf (6.1 on bookworm), which ships perf as /usr/bin/perf
# or as /usr/bin/perf_X.Y behind a /usr/bin/perf wrapper script: the newest
# perf_X.Y binary, else /usr/bin/perf if that is the binary. The VM has it as
# /usr/bin/perf-debian, so that tests can check what a user's stock perf does.
find_debian_perf() {
	local p
	for p in $(compgen -G '/usr/bin/perf_[0-9]*' | sort -rV) /usr/bin/perf; do
		[[ -f $p ]] && is_elf "$p" && { echo "$p"; return; }
	done
	return 1
}

# Copy the libraries (and the dynamic loader) of program $1 to their host paths.
copy_libs() {
	local out lib
	out=$(ldd "$1" 2>/dev/null) || return 0 # static
	if grep -q 'not found' <<<"$out"; then
		die "$1 needs libraries that are not installed: $(grep 'not found' <<<"$out" | tr -s ' \t\n' ' ')"
	fi
	grep -o '/[^ ]*' <<<"$out" | while read -r lib; do
		[[ $lib == "$stage"/* ]] && continue # found in the VM tree itself ($ORIGIN)
		[[ -z ${base_root:-} || ! -e $base_root$lib ]] || continue # in the base archive
		[[ -e $stage$lib ]] || install -D -m 0755 "$lib" "$stage$lib"
	done
}

# Single-quote every word of the command for the guest's sh.
quote_words() {
	local w out=()
	for w; do out+=("'${w//\'/\'\\\'\'}'"); done
	printf '%s\n' "${out[*]}"
}

# base_key PERF: what the base archive is made of: the contents of this
# script and of the programs, tests, tools and module lists it copies (`make`
# installs the tools afresh each time: their times change, not their
# contents), the perf binary chosen and the host's packages (the shared
# libraries come from them). ~0.1 s.
base_key() {
	local perf=$1 inputs
	inputs=("${BASH_SOURCE[0]}" "$here"/{init,demo,session}.sh "$busybox" "$perf"
		"$top/selftests/run_all.sh" "$top"/selftests/*/*.sh "$top"/selftests/lib/*.shlib "$top/.build/selftests"
		"$top/.build/tools-root" "$image/lib/modules/$KVER"/modules.{builtin,builtin.modinfo,order})
	{
		echo "$KVER $perf"
		stat -c '%n %s %Y' /var/lib/dpkg/status
		find "${inputs[@]}" \( -type f -o -type l \) -printf '%p %m %l\n' 2>/dev/null | LC_ALL=C sort
		find "${inputs[@]}" -type f -print0 2>/dev/null | LC_ALL=C sort -z | xargs -0r b2sum
	} | b2sum | cut -c1-32
}

# build_base PERF: the VM's root in $stage without this run's own files, and
# its archive $base.
build_base() {
	local f applet perf=$1 moddir=$stage/lib/modules/$KVER

	rm -rf "$stage" "$base" "$base.key"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc/socpmu,selftests} \
		"$moddir"
	install -m 0755 "$busybox" "$stage/bin/busybox"
	for applet in $("$busybox" --list-full); do
		[[ -e $stage/$applet ]] || ln -s /bin/busybox "$stage/$applet"
	done
	install -m 0755 "$here/init.sh" "$stage/init"
	install -m 0755 "$here/demo.sh" "$stage/demo.sh"

	install -m 0755 "$perf" "$stage/usr/bin/perf"
	if f=$(find_debian_perf); then
		install -m 0755 "$f" "$stage/usr/bin/perf-debian"
	fi
	install -m 0755 "$top/selftests/run_all.sh" "$stage/selftests/"
	for f in "$top"/.build/selftests/*/* "$top"/selftests/*/*.sh; do
		[[ -f $f && ($f == *.sh || -x $f) ]] || continue # skips the .d files
		install -D -m 0755 "$f" "$stage/selftests/$(basename "$(dirname "$f")")/${f##*/}"
	done
	# the shell tests' library, sourced, never run (run_all.sh runs *.sh and
	# executables only)
	for f in "$top"/selftests/lib/*.shlib; do
		install -D -m 0644 "$f" "$stage/selftests/lib/${f##*/}"
	done
	if [[ -d $top/.build/tools-root ]]; then
		cp -a "$top/.build/tools-root/." "$stage/"
	fi
	# Our modules as installed there, plus the kernel's lists of built-in
	# modules so that depmod and modprobe know about them (no other kernel
	# module is needed).
	compgen -G "$moddir/updates/socpmu/*.ko" >/dev/null ||
		echo "run-vm: note: no modules in .build/tools-root (make)" >&2
	cp "$image/lib/modules/$KVER"/modules.{builtin,builtin.modinfo,order} "$moddir/"
	depmod -b "$stage" "$KVER"
	install -m 0755 "$here/session.sh" "$stage/session.sh"

	while IFS= read -r -d '' f; do
		if is_elf "$f"; then copy_libs "$f"; fi
	done < <(find "$stage" -type f -perm -u+x -print0)

	newc_of "$stage" >"$base"
}

# PCP_FILES: what --pcp adds of the host's pcp package (its libraries come
# along); /etc/pcp/perfevent/perfevent.conf is Debian's, which the test
# merges the socpmu lines into (socpmu-pcp-setup), as a user would.
PCP_FILES=(/etc/pcp.conf /etc/pcp.env /etc/pcp/perfevent/perfevent.conf
	/usr/lib/pcp/bin/pmcd /usr/lib/pcp/bin/pmcpp /usr/lib/pcp/pmdas/perfevent/pmdaperfevent
	/usr/lib/pcp/pmdas/perfevent/help /usr/lib/pcp/pmdas/perfevent/pmns
	/usr/lib/pcp/pmdas/perfevent/domain.h /var/lib/pcp/pmdas/perfevent/perfevent.conf
	/usr/bin/pminfo /usr/bin/pmval /usr/bin/pmprobe
	/usr/lib/pcp/pmdas/pmcd/pmda_pmcd.so /var/lib/pcp/pmdas/pmcd/pmda_pmcd.so
	/var/lib/pcp/pmns/root_pmcd /usr/lib/pcp/pmns/root_pmcd)

# add_pcp DIR: PCP_FILES (links as links) and their libraries into DIR, or,
# if the host has no pcp, DIR/etc/socpmu/no-pcp saying why (the test skips);
# on Debian 12, where the package is there to install, that is an error.
# Kept as DIR.cpio, made again when the host's packages change. It is an
# archive of its own, so the VMs that do not ask for it boot as before.
add_pcp() {
	local dir=$1 f key
	# the host's packages, this script, the base (libraries it has are left out)
	key=$({ stat -c '%n %s %Y' /var/lib/dpkg/status "${BASH_SOURCE[0]}"; cat "$base.key"; } |
		b2sum | cut -c1-32)
	[[ -f $dir.cpio && $(cat "$dir.key" 2>/dev/null) == "$key" ]] && return 0
	rm -rf "$dir" "$dir.cpio" "$dir.key"
	mkdir -p "$dir/etc/socpmu"
	if [[ ! -x /usr/lib/pcp/bin/pmcd || ! -x /usr/lib/pcp/pmdas/perfevent/pmdaperfevent ]]; then
		if grep -qs '^VERSION_ID="12"' /etc/os-release && grep -qs '^ID=debian' /etc/os-release; then
			die "--pcp: the host has no pcp (Debian 12 has it: run 'make deps')"
		fi
		echo "the host has no Debian pcp package (pmcd, perfevent PMDA)" >"$dir/etc/socpmu/no-pcp"
	else
		for f in "${PCP_FILES[@]}"; do
			mkdir -p "$dir$(dirname "$f")"
			cp -a "$f" "$dir$f"
			if is_elf "$f"; then (stage=$dir base_root=$vmdir/root; copy_libs "$f"); fi
		done
	fi
	newc_of "$dir" >"$dir.cpio"
	echo "$key" >"$dir.key"
}

# build_initramfs CMD...: the base archive (built again only when what it is
# made of changed: it takes a second, most of it in ldd) followed by an
# archive of this run's own files in /etc/socpmu: the token of its start and
# exit markers, the command, --interactive's flag. The kernel unpacks both.
build_initramfs() {
	local perf key own=$vmdir/run

	perf=$(find_perf) || die "no $CACHE/perf-build/perf: run 'make perf' (make run, shell and check do)"
	key=$(base_key "$perf")
	if [[ ! -f $base || $(cat "$base.key" 2>/dev/null) != "$key" ]]; then
		build_base "$perf"
		echo "$key" >"$base.key"
	fi
	rm -rf "$own"
	mkdir -p "$own/etc/socpmu"
	echo "$token" >"$own/etc/socpmu/token"
	quote_words "$@" >"$own/etc/socpmu/cmd"
	[[ -z $interactive ]] || touch "$own/etc/socpmu/interactive"
	if [[ -n $net ]]; then
		local m ko
		mkdir -p "$own/etc/socpmu/net"
		for m in net/core/failover drivers/net/net_failover drivers/net/virtio_net; do
			ko=$image/lib/modules/$KVER/kernel/$m.ko
			if [[ -f $ko.xz ]]; then
				xz -dc "$ko.xz" >"$own/etc/socpmu/net/${m##*/}.ko"
			else
				cp "$ko" "$own/etc/socpmu/net/" || die "--net: no $ko"
			fi
		done
	fi
	[[ -z $pcp ]] || add_pcp "$vmdir/pcp"
	{
		cat "$base"
		[[ -z $pcp ]] || cat "$vmdir/pcp.cpio"
		newc_of "$own"
	} >"$initrd"
}

mkdir -p "$vmdir"
shopt -s nullglob
token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
t0=${EPOCHREALTIME/,/.}
build_initramfs "$@"
t1=${EPOCHREALTIME/,/.}

# One TCG thread for both vCPUs (thread=single): with a thread per vCPU,
# qemu 7.2 lets a vCPU run code another vCPU has just patched with
# text_poke_bp() and hit its int3 after the patch is complete, an "Oops:
# int3" whenever a static key flips (the first per-task perf event, a
# tracepoint); opening and closing a per-task page-faults event in a loop
# does it within seconds. One thread does not, and is not slower on a
# 2-CPU host.
#
# qemu writes the console to $log and tail shows it as it grows. The loop
# stops the VM at the time limit, or GRACE seconds after the kernel first
# reported a problem: a soft lockup or a hung task would otherwise hold it
# until the time limit, while the grace lets a run with a mere warning finish.
qemu_args() {
	local nic="-nic none"
	# user networking: only 127.0.0.1 of the host reaches the guest's pmcd
	[[ -z $net ]] || nic="-nic user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$net-:44321"
	echo -M q35 -accel tcg,thread=single -bios qboot.rom -vga none $nic -smp 2 -m 1G \
		-nographic -no-reboot
	# ttyS0 as -nographic has it alone, ttyS1 the queue's
	[[ -z $queue ]] || echo -serial mon:stdio -serial "pipe:$vmdir/queue"
}

boot() {
	: >"$log"	# there before tail looks for it
	# shellcheck disable=SC2046 # the arguments are words
	qemu-system-x86_64 $(qemu_args) \
		-kernel "$vmlinux" -initrd "$initrd" -append "$CMDLINE $append" \
		</dev/null >"$log" 2>&1 &
	qemu_pid=$!
	if [[ -z $quiet ]]; then
		tail -s 0.2 -n +1 -f --pid="$qemu_pid" "$log" &
		tail_pid=$!
	else
		tail_pid=
	fi
	trap 'kill "$qemu_pid" $tail_pid $server_pid 2>/dev/null || true' EXIT

	vm_watch "$qemu_pid" "$log" "$timeout_s" "$KERNEL_PROBLEM" "$GRACE" "^SOCPMU-VM-START $token"
	qemu_rc=0
	wait "$qemu_pid" || qemu_rc=$?
	[[ -z $tail_pid ]] || wait "$tail_pid" || true

	console=$(tr -d '\r' <"$log")
	problems=$(grep -E "$KERNEL_PROBLEM" <<<"$console" | head -n 20) || true
	marker=$(grep -E "^SOCPMU-VM-EXIT $token status=[0-9]+\$" <<<"$console") || true
}

# The Debian kernel under TCG very rarely oopses while booting (an int3 left
# by live text patching, seen once in hundreds of boots), or calibrates its
# APIC timer wrong when the host is overloaded (see KERNEL_PROBLEM), before
# anything of ours runs. vm_watch stops such a boot at once and it is tried
# once more; a problem after the start marker is never retried.
if [[ -n $interactive ]]; then
	# shellcheck disable=SC2046 # the arguments are words
	exec qemu-system-x86_64 $(qemu_args) -kernel "$vmlinux" -initrd "$initrd" \
		-append "$CMDLINE $append"
fi
# --queue: the server of the guest's /dev/ttyS1, whose host end is the
# FIFOs DIR/queue.in (to the guest) and DIR/queue.out (from it) that QEMU's
# pipe chardev opens. It stops when the VM has ended.
server_pid=
if [[ -n $queue ]]; then
	rm -f "$vmdir/queue.in" "$vmdir/queue.out"
	mkfifo "$vmdir/queue.in" "$vmdir/queue.out"
	: >"$vmdir/handed"
	serve_queue "$queue" "$vmdir/queue.in" "$vmdir/queue.out" "$vmdir/handed" &
	server_pid=$!
fi
boot_retrying run-vm "$token"
if [[ -n $server_pid ]]; then
	kill "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
fi
t2=${EPOCHREALTIME/,/.}
times=$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "initramfs %.1f s, VM %.1f s", b - a, c - b }')

if [[ -n $problems ]]; then
	printf '%s\n' "$problems" >&2
	what="the kernel reported a problem (lines above)"
	[[ -n $marker ]] || what+=" and the command did not finish${stopped:+ ($stopped)}"
	die "$what; console in $log"
fi
if [[ -z $marker ]]; then
	fail "no exit marker: ${stopped:-the VM stopped (qemu status $qemu_rc)} before the command finished; console in $log"
	exit 124
fi
status=${marker##*status=}
echo "run-vm: '$*' exited with status $status ($times)" >&2
exit "$status"
