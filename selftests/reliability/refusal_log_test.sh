#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# refusal_log_test.sh - a refused event says why, in the kernel log.
#
# perf shows a refused event only as "<not supported>". For each invalid
# parameter of the issue (core=9 on 4 cores, bank=5, l1mux on the FPU bank,
# a :u modifier, an ESP event undefined for the tile type, esp event=15,
# pulp mask= on an FPGA build) the kernel log must name the reason at info
# level, every time, with dynamic debug off (each PMU's .rst, "Refused
# events"); `perf record` on a counting PMU is refused at once (perf 6.12
# went back and forth between exclude_guest and sampling for ever) with
# perf's "sampling" message and the reason in the log. Run as root in the
# VM with the modules loaded.
# Output: kselftest TAP ending with "# Totals:".
SIM=/sys/devices/socpmu_sim
BUS=/sys/bus/event_source/devices
DDBG=/sys/kernel/debug/dynamic_debug/control
n=0 pass=0 fail=0

result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok $n $1"; else fail=$((fail + 1)); echo "not ok $n $1"; fi
}

# NAME:INODE of every PMU's type file: a dead PMU's name taken again is new
pmus() { for p in "$BUS"/*; do echo "${p##*/}:$(stat -c %i "$p/type" 2>/dev/null)"; done; }

# new_pmu TYPE NAME ARGS: create a simulated device, print its PMU
new_pmu() {
	echo "$2" > $SIM/del_device 2>/dev/null
	before=$(pmus)
	echo "$1 name=$2 $3" > $SIM/new_device || return 1
	i=0
	while [ $i -lt 100 ]; do
		for p in $(pmus); do
			echo "$before" | grep -qx "$p" || { echo "${p%%:*}"; return 0; }
		done
		i=$((i + 1))
		sleep 0.05
	done
	return 1
}

# refused PMU EVENT REASON-REGEX: perf refuses the event and the log says why
refused() {
	dmesg -c > /dev/null
	out=$(perf stat -a -x, -e "$1/$2/" -- true 2>&1)
	if echo "$out" | grep -Eq '^[0-9]+,'; then
		echo "# $1/$2/ counted: $out"
		return 1
	fi
	if ! dmesg -r | grep -Eq "^<6>.*$1: refused: $3"; then
		echo "# $1/$2/: no reason '$3' in the log:"
		dmesg | tail -n 5 | sed 's/^/#   /'
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..5"
[ -w $SIM/new_device ] || { echo "# no simulator"; for t in 1 2 3 4 5; do result "refusal_$t" 1; done; exit 1; }

T=$(new_pmu tensix rl_tx "cores=4") || T=
E=$(new_pmu esp rl_esp "") || E=
P=$(new_pmu pulp rl_pulp "cores=2 mode=fpga") || P=

# 1: a refusal is an info line, without dynamic debug
st=0
[ -n "$T" ] || st=1
[ -w $DDBG ] && echo 'module socpmu_core -p' > $DDBG
[ $st -eq 0 ] && { refused "$T" "event=0,bank=1,core=9" "no core 9 \(device has 4\)" || st=1; }
result first_refusal_info $st

# 2..4: every later reason too, still without dynamic debug
st=0
[ -n "$T" ] || st=1
if [ $st -eq 0 ]; then
	refused "$T" "event=0,bank=1,core=9" "no core 9 \(device has 4\)" || st=1
	refused "$T" "event=0,bank=5" "no bank 5" || st=1
	refused "$T" "event=0,bank=1,l1mux=1" "l1mux=1 invalid for bank 1" || st=1
	dmesg -c > /dev/null
	out=$(perf stat -a -x, -e "$T/event=0,bank=1/u" -- true 2>&1)
	dmesg -r | grep -q "^<6>.*$T: refused: counts every privilege level" ||
		{ echo "# :u: no reason in the log ($out)"; st=1; }
fi
result tensix_reasons $st

st=0
[ -n "$E" ] || st=1
if [ $st -eq 0 ]; then
	refused "$E" "event=15" "no (tile defines )?event 0xf" || st=1
fi
result esp_reasons $st

st=0
[ -n "$P" ] || st=1
if [ $st -eq 0 ]; then
	refused "$P" "mask=0x3" "mask= needs the ASIC's shared counter" || st=1
fi
result pulp_reasons $st

# 5: perf record on each counting PMU returns at once, refused, with the
# reason (every perf in the VM: the project's and Debian's, perf-debian).
# A new Tensix PMU: the tests above used up tensix's 10 log lines a 5 s.
st=0
T2=$(new_pmu tensix rl_tx2 "cores=4") || { T2=tensix_0; echo "# no second tensix PMU"; st=1; }
# sifive_hpm (one PMU for every simulated hart set): per task, no -a
H=
if [ -e "$BUS/sifive_hpm" ] || { echo "hpm name=rl_hpm counters=2" > $SIM/new_device && sleep 0.5; }; then
	[ -e "$BUS/sifive_hpm" ] && H=sifive_hpm
fi
[ -n "$H" ] || { echo "# no sifive_hpm PMU"; st=1; }
for pf in perf perf-debian; do
	command -v $pf > /dev/null || { [ $pf = perf-debian ] && echo "# no $pf in the VM" && st=1; continue; }
	for ev in "$T2/fpu_instruction/" "$E/ddr_accesses/" "$P/instr/" ${H:+"$H/cycles/"}; do
		dmesg -c > /dev/null
		t0=$(cut -d' ' -f1 /proc/uptime)
		a=-a
		[ "$ev" = "$H/cycles/" ] && a=
		out=$(timeout -s KILL 30 $pf record -o /tmp/rl.data $a -e "$ev" -- sleep 0.1 2>&1)
		rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		secs=$(awk "BEGIN { print $t1 - $t0 }")
		rm -f /tmp/rl.data
		if [ $rc -eq 0 ] || [ "${secs%.*}" -ge 10 ]; then
			echo "# $pf record -e $ev: exit $rc after ${secs}s (refusal expected)"; st=1; continue
		fi
		echo "$out" | grep -q "sampling" ||
			{ echo "# $pf record -e $ev: no 'sampling' in: $(echo "$out" | head -n 3)"; st=1; }
		dmesg -r | grep -q "^<6>.*${ev%%/*}: refused: counting only" ||
			{ echo "# $pf record -e $ev: no reason in the log"; st=1; }
		echo "# $pf record -e $ev: refused in ${secs}s: $(echo "$out" | grep -m1 sampling)"
	done
done
result perf_record_refused $st

for d in rl_tx rl_tx2 rl_esp rl_pulp rl_hpm; do echo "$d" > $SIM/del_device 2>/dev/null; done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail -eq 0 ]
