#!/bin/sh
# The demo of `make run`, run inside the VM: load the socpmu modules, start
# the simulator's matmul workload on tensix0 and count it with perf.
pmu=/sys/bus/event_source/devices/tensix_0
sim=/sys/kernel/debug/socpmu_sim/tensix0

step() { printf '\n### %s\n' "$*"; }
die() {
	echo "demo: FAILED: $*"
	exit 1
}

step "modprobe socpmu_sim (pulls in socpmu_core, creates tensix0); modprobe tensix_pmu"
modprobe socpmu_sim || die "modprobe socpmu_sim"
modprobe tensix_pmu || die "modprobe tensix_pmu"
lsmod

step "perf list | grep tensix"
perf list 2>/dev/null | grep tensix || die "perf lists no tensix events"

step "start the simulated matmul workload"
echo "matmul fpu=60 unpack=40 pack=30" >"$sim/workload" || die "cannot write $sim/workload"
echo "$sim/workload: $(cat "$sim/workload")"

step "perf stat -a -e <4 tensix events> sleep 1"
perf stat -a -e tensix_0/fpu_instruction/,tensix_0/fpu_cycles/,tensix_0/unpack0_busy_thread0/,tensix_0/packer_busy/ \
	sleep 1 || die "perf stat"

step "tensix-perf stat -a sleep 1 (every counter, derived metrics, bound classification)"
tensix-perf stat -a sleep 1 || die "tensix-perf"

step "sysfs: $pmu"
cd "$pmu" || die "no $pmu"
for f in identifier cpumask poll_interval_us; do
	echo "$f: $(cat "$f")"
done
grep . format/*
set -- events/*
echo "events/: $# files, for example:"
grep . events/* | head -n 8
echo "/sys/devices/socpmu_sim/devices:"
cat /sys/devices/socpmu_sim/devices

