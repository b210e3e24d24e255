#!/bin/bash
# riscv-vm.sh - the RISC-V VM bench of `make check-riscv`: run the riscv64
# selftests on a real SBI (OpenSBI) with riscv_pmu_sbi next to our modules.
#
# Usage: tools/vm/riscv-vm.sh [--timeout S] [--no-sscofpmf] [--intree] [--only TESTS] [--dir DIR]
#                           [--args ARGS] [--prepare-only]
#
#  1. the test kernel: tools/vm/riscv-kernel.sh (built once into
#     $CACHE/riscv-vm/build);
#  2. every socpmu module built against it (sources copied to
#     .build/riscv-prep/src, W=1 -Werror, modpost against its Module.symvers);
#  3. the tests, static riscv64 programs on the kselftest harness
#     ($CACHE/kselftest): selftests/*/riscv/*.c become
#     /selftests/<group>/<name>, and the selftests listed in RISCV_SHARED
#     below are cross-built from the x86 suite's sources;
#  4. /init: tools/vm/riscv-init.c (loads the modules, runs every test,
#     adds up the kselftest Totals);
#  5. qemu-system-riscv64 -M virt with Debian's OpenSBI (fw_dynamic.bin of
#     the opensbi package), 2 harts, -cpu rv64,sscofpmf=true (counter
#     overflow interrupt and privilege-mode filtering; left out with
#     --no-sscofpmf or when this QEMU does not know the property), and
#     no4lvl on the kernel's command line: Sv39 paging, the only mode of
#     SiFive's U74, instead of the Sv57 that QEMU offers. Each refill of
#     QEMU's TLB, which every satp write empties, then walks 3 levels
#     instead of 5: the bench took about 5% less CPU time (both at once,
#     three times). And norandmaps: without address space randomization
#     every process maps libc and the test programs where the last one
#     did, so QEMU reuses their translations (it looks them up by virtual
#     address; tools/vm/check.sh has the x86 figures): the bench took
#     11% and 15% less CPU (two pairs, one after the other).
#
# Steps 1-4 are cached: they run again only when what they are made of
# changed (sources, headers, the kernel, the compilers), under a lock, so
# that several benches can run at once. --only "group/name ..." puts only
# those tests in the guest, --dir DIR keeps the VM's files there instead of
# .build/riscv-vm (tools/vm/check-riscv.sh runs one VM per test that way);
# --args ARGS gives every test program those arguments (a kselftest
# harness filter: --only sifive_hpm/hpm_sbi_test --args "-f pair");
# --prepare-only stops after the preparation.
#
# --intree boots the in-tree variant instead (riscv-kernel.sh --intree:
# socpmu_core and sifive_hpm built into the kernel, which can sample;
# sifive_hpm.any_vendor=1 on the command line), loads no module and runs
# selftests/*/riscv-intree/*.c; its files are in .build/riscv-vm-intree.
#
# The console is shown and kept in .build/riscv-vm/console.log; the guest's
# last line "RISCV: N passed, N failed, N skipped" is copied to
# .build/riscv-vm/summary, which tools/vm/check.sh adds to `make check`'s
# total. Like run-vm.sh, the run fails (status 125) when the kernel logs a
# problem (BUG, WARNING, Oops, hung task, ...; stopped GRACE seconds after
# it), and with 124 when the guest prints no exit marker within the time
# limit (default 900 s). Otherwise the status is 1 if a test failed, else 0.
#
# Environment: CACHE (default /var/cache/socpmu), SELFTEST_TIMEOUT (seconds
# per test program in the guest, default 600, as run_all.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/vm/vm-watch.sh
. "$here/vm-watch.sh"
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
CROSS=riscv64-linux-gnu-
FIRMWARE=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
KSELFTEST=$CACHE/kselftest
# Tests of the x86 suite that also run here, with the simulator's models
# (group/name, from selftests/<group>/<name>.c).
RISCV_SHARED=${RISCV_SHARED:-tensix/tensix_test esp/esp_test pulp/pulp_test}

vm=$top/.build/riscv-vm
# Kernel log lines that make a run untrustworthy (as in run-vm.sh), and a
# hart that did not come online: the kernel waits 1 s for it, and a host so
# loaded that it starved that hart's thread for as long (seen once, with
# five emulators on 2 CPUs) leaves the tests one CPU, which skips theirs.
KERNEL_PROBLEM='\[ *[0-9]+\.[0-9]+\] .*(BUG:|WARNING:|Oops|Call Trace|blocked for more than|Kernel panic|Unable to handle|UBSAN:|INFO: trying to register non-static key|CPU[0-9]+: failed to come online)'
GRACE=60
# Seconds without console output after which the VM counts as stopped
STALL=${STALL:-120}

say() { printf 'riscv-vm: %s\n' "$*" >&2; }
die() { printf '\n==========\nriscv-vm: FAILED: %s\n==========\n' "$*" >&2; exit 125; }

timeout_s=900 sscofpmf=1 intree=0 only= args= prepare_only=0
while (($#)); do
	case $1 in
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--no-sscofpmf) sscofpmf=0; shift ;;
	--intree) intree=1; shift ;;
	--only) only=${2:?}; shift 2 ;;
	--args) args=${2:?}; shift 2 ;;
	--dir) vm=${2:?}; shift 2 ;;
	--prepare-only) prepare_only=1; shift ;;
	*) sed -n '5,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 125 ;;
	esac
done

tests=riscv append= prep=$top/.build/riscv-prep
if ((intree)); then
	[[ $vm != "$top/.build/riscv-vm" ]] || vm+=-intree
	tests=riscv-intree append=sifive_hpm.any_vendor=1 prep+=-intree
	RISCV_SHARED=" "
fi
stage=$vm/root
log=$vm/console.log
if ((!prepare_only)); then
	rm -rf "$vm"
	mkdir -p "$vm"
fi
command -v qemu-system-riscv64 >/dev/null || die "qemu-system-riscv64 is missing (apt-get install qemu-system-misc)"
[[ -f $FIRMWARE ]] || die "$FIRMWARE is missing (apt-get install opensbi)"
[[ -f $KSELFTEST/kselftest_harness.h ]] || die "$KSELFTEST/kselftest_harness.h is missing: run 'make deps'"
[[ $(${CROSS}gcc -print-file-name=libc.a 2>/dev/null) == /* ]] ||
	die "${CROSS}gcc has no libc.a for static programs (apt-get install libc6-dev-riscv64-cross)"

t0=$SECONDS
# One preparation at a time; a bench that finds it done uses it.
mkdir -p "$top/.build"
exec 7>"$top/.build/.riscv-prep.lock"
flock 7
kdir=$("$here/riscv-kernel.sh" $( ((intree)) && echo --intree))
image=$kdir/arch/riscv/boot/Image

# prepare: the modules (none for the in-tree kernel), every test and /init
# in $prep, from scratch.
prepare() {
	local c t group cflags=(-static -O2 -std=gnu11 -Wall -Wextra -Werror -isystem "$KSELFTEST"
				-I"$top/include" -pthread)

	rm -rf "$prep"
	mkdir -p "$prep/selftests"
	if ((!intree)); then
		mkdir -p "$prep/src"
		(cd "$top" && find Kbuild drivers include \( -name Kbuild -o -name Makefile \
			-o -name '*.[chS]' \) -type f -print0 | cpio -0pdm --quiet "$prep/src")
		make -s -C "$kdir" M="$prep/src" ARCH=riscv CROSS_COMPILE=$CROSS W=1 -j"$(nproc)" \
			modules >"$prep/modules.log" 2>&1 ||
			{ cat "$prep/modules.log" >&2; die "the modules do not build for the test kernel"; }
		if [[ -s $prep/modules.log ]]; then
			cat "$prep/modules.log" >&2
			die "the module build warned (W=1)"
		fi
	fi
	for c in "$top"/selftests/*/"$tests"/*.c; do
		[[ -f $c ]] || continue
		group=$(basename "$(dirname "$(dirname "$c")")")
		mkdir -p "$prep/selftests/$group"
		${CROSS}gcc "${cflags[@]}" -o "$prep/selftests/$group/$(basename "$c" .c)" "$c"
	done
	for t in $RISCV_SHARED; do
		mkdir -p "$prep/selftests/${t%%/*}"
		${CROSS}gcc "${cflags[@]}" -o "$prep/selftests/$t" "$top/selftests/$t.c"
	done
	${CROSS}gcc -static -O2 -Wall -Wextra -Werror -o "$prep/init" "$here/riscv-init.c"
}

# What the preparation is made of: the kernel, the compilers, this script
# and every source and header of the modules and the tests.
prep_key() {
	{
		stat -c '%n %s %Y' "$image" "$kdir/Module.symvers" 2>/dev/null
		${CROSS}gcc --version | head -n 1
		echo "$tests $RISCV_SHARED"
		local paths=(Kbuild drivers include selftests/lib selftests/*/*.h tools/vm/riscv-init.c
			     tools/vm/riscv-vm.sh "$KSELFTEST") t
		for t in "$top"/selftests/*/"$tests"; do paths+=("${t#"$top"/}"); done
		for t in $RISCV_SHARED; do paths+=("selftests/$t.c"); done
		cd "$top" && find "${paths[@]}" -type f \( -name Kbuild -o -name '*.[chS]' \
			-o -name '*.sh' \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
	} | sha256sum | cut -c1-32
}

key=$(prep_key)
if [[ $(cat "$prep/key" 2>/dev/null) != "$key" ]]; then
	prepare
	echo "$key" >"$prep/key"
else
	say "modules and tests unchanged: built before ($prep)"
fi
flock -u 7
((!prepare_only)) || exit 0

# The guest's root: the prepared tests (those of --only), /init, config.
mkdir -p "$stage"/{proc,sys,dev,tmp,etc/socpmu,lib/modules/extra,selftests}
if [[ -n $only ]]; then
	for t in $only; do
		[[ -f $prep/selftests/$t ]] || die "--only: no test $t (in $prep/selftests)"
		mkdir -p "$stage/selftests/${t%%/*}"
		cp "$prep/selftests/$t" "$stage/selftests/$t"
	done
else
	cp -r "$prep/selftests/." "$stage/selftests/"
fi
cp "$prep/init" "$stage/init"
src=$prep/src

# The modules in load order; sifive_hpm binds on QEMU's harts (mvendorid 0) with
# any_vendor=1. None for the in-tree kernel, which has socpmu_core and sifive_hpm.
((intree)) && mods=() || mods=(socpmu_core socpmu_sim tensix_pmu esp_pmu pulp_pmu sifive_hpm sifive_trace)
for m in "${mods[@]}"; do
	install -m 0644 "$src/$m.ko" "$stage/lib/modules/extra/"
	case $m in
	sifive_hpm) echo "/lib/modules/extra/$m.ko any_vendor=1" ;;
	*) echo "/lib/modules/extra/$m.ko" ;;
	esac
done >"$stage/etc/socpmu/modules"
((intree)) || install -m 0644 "$src/socpmu_migrate.ko" "$stage/lib/modules/extra/"
token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
echo "$token" >"$stage/etc/socpmu/token"
echo "${SELFTEST_TIMEOUT:-600}" >"$stage/etc/socpmu/timeout"
echo "$args" >"$stage/etc/socpmu/args"
newc_of "$stage" >"$vm/initramfs.cpio"
t1=$SECONDS

# Whether this QEMU knows sscofpmf: a probe that takes a second, so its
# answer is kept for this QEMU binary (the benches of a run all ask).
cpu=rv64
if ((sscofpmf)); then
	qemu=$(command -v qemu-system-riscv64)
	probed=$CACHE/riscv-vm/sscofpmf
	key="$(stat -c '%s %Y' "$qemu") $(qemu-system-riscv64 --version | head -n 1)"
	if [[ ! -f $probed || $(sed -n 1p "$probed") != "$key" ]]; then
		answer=no
		if qemu-system-riscv64 -M virt -cpu rv64,sscofpmf=true -nographic -bios none \
			-S -monitor none -serial none -display none </dev/null >/dev/null 2>&1 &
		then
			probe=$!
			sleep 1
			if kill -0 "$probe" 2>/dev/null; then
				kill "$probe"; answer=yes
			fi
			wait "$probe" 2>/dev/null || true
		fi
		mkdir -p "${probed%/*}"
		printf '%s\n%s\n' "$key" "$answer" >"$probed.$$" && mv "$probed.$$" "$probed"
	fi
	if [[ $(sed -n 2p "$probed") == yes ]]; then
		cpu=rv64,sscofpmf=true
	else
		say "this QEMU has no sscofpmf: booting without it"
	fi
fi

# no4lvl: Sv39, norandmaps: step 5 above
CMDLINE="console=ttyS0 earlycon=sbi rdinit=/init panic=-1 printk.time=1 loglevel=5 no4lvl"
CMDLINE+=" norandmaps"

# hart_report: where every hart is, from QEMU's monitor (info registers
# -a), each pc and ra with the kernel symbol it is in (System.map).
hart_report() {
	python3 - "$vm/monitor.sock" "$kdir/System.map" <<-'PY'
	import bisect, re, socket, sys, time
	s = socket.socket(socket.AF_UNIX)
	s.connect(sys.argv[1])
	s.settimeout(2)
	s.sendall(b"info registers -a\n")
	out, end = b"", time.time() + 5
	while time.time() < end:
	    try:
	        chunk = s.recv(65536)
	    except socket.timeout:
	        break
	    if not chunk:
	        break
	    out += chunk
	syms = []
	for line in open(sys.argv[2]):
	    a, t, n = line.split()[:3]
	    if t in "tTwW":
	        syms.append((int(a, 16), n))
	syms.sort()
	addrs = [a for a, _ in syms]
	def sym(v):
	    i = bisect.bisect_right(addrs, v) - 1
	    return "%s+%#x" % (syms[i][1], v - syms[i][0]) if i >= 0 and v - syms[i][0] < 1 << 20 else "?"
	text = out.decode(errors="replace")
	for m in re.finditer(r"CPU#(\d+)|\b(pc|mepc|sepc|x1/ra|priv)\s+([0-9a-fA-F]+|[UMS])\b", text):
	    if m.group(1):
	        print("riscv-vm: hart %s:" % m.group(1))
	    elif m.group(2) == "priv":
	        print("riscv-vm:   priv %s" % m.group(3))
	    else:
	        v = int(m.group(3), 16)
	        print("riscv-vm:   %s %#x %s" % (m.group(2), v, sym(v)))
	PY
}

# stall_watch QEMU_PID: a guest that prints nothing for $STALL seconds
# (a stopped system: the tests print a line per run) has its harts reported
# (hart_report, also in $vm/harts) and is stopped.
stall_watch() {
	local pid=$1 size last=-1 quiet=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		size=$(stat -c %s "$log" 2>/dev/null) || return 0
		if ((size == last)); then
			quiet=$((quiet + 5))
		else
			quiet=0 last=$size
		fi
		if ((quiet >= STALL)); then
			say "no console output for $STALL s: the harts, then stopping the VM"
			hart_report >"$vm/harts" 2>&1 || true
			cat "$vm/harts" >&2
			echo "riscv-vm: STALLED: no console output for $STALL s (harts in $vm/harts)" >>"$log"
			sleep 1
			kill "$pid" 2>/dev/null || true
			return 0
		fi
	done
}

boot() {
	: >"$log"	# there before tail looks for it
	rm -f "$vm/monitor.sock" "$vm/harts"
	qemu-system-riscv64 -M virt -cpu "$cpu" -smp 2 -m 512 -nographic -no-reboot -nic none \
		-bios "$FIRMWARE" -kernel "$image" -initrd "$vm/initramfs.cpio" \
		-append "$CMDLINE $append" -monitor unix:"$vm/monitor.sock",server=on,wait=off \
		</dev/null >"$log" 2>&1 &
	qemu_pid=$!
	tail -s 0.2 -n +1 -f --pid="$qemu_pid" "$log" &
	tail_pid=$!
	stall_watch "$qemu_pid" &
	stall_pid=$!
	trap 'kill "$qemu_pid" "$tail_pid" "$stall_pid" 2>/dev/null || true' EXIT

	vm_watch "$qemu_pid" "$log" "$timeout_s" "$KERNEL_PROBLEM" "$GRACE" "^SOCPMU-VM-START $token"
	wait "$qemu_pid" || true
	wait "$tail_pid" || true
	kill "$stall_pid" 2>/dev/null || true
	wait "$stall_pid" 2>/dev/null || true

	console=$(tr -d '\r' <"$log")
	problems=$(grep -E "$KERNEL_PROBLEM" <<<"$console" | head -n 20) || true
}

# A problem before /init's start marker (nothing of ours has run) is a boot
# failure: booted once more (vm-watch.sh), as in run-vm.sh.
boot_retrying riscv-vm "$token"
marker=$(grep -E "^SOCPMU-VM-EXIT $token status=[0-9]+\$" <<<"$console") || true
summary=$(grep -E '^RISCV: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' <<<"$console" | tail -n 1) || true
[[ -n $summary ]] && echo "$summary" >"$vm/summary"
say "build and initramfs $((t1 - t0)) s, VM $((SECONDS - t1)) s (-cpu $cpu)"

if [[ -n $problems ]]; then
	printf '%s\n' "$problems" >&2
	die "the kernel reported a problem (lines above)${stopped:+ ($stopped)}; console in $log"
fi
if [[ -z $marker ]]; then
	printf '\n==========\nriscv-vm: FAILED: no exit marker: %s; console in %s\n==========\n' \
		"${stopped:-the VM stopped before the tests finished}" "$log" >&2
	exit 124
fi
[[ -n $summary ]] || die "no summary line from the guest"
echo "$summary"
exit "${marker##*status=}"
