#!/bin/sh
# The demo of `make run`, run inside the VM: load the socpmu modules, start
# the simulator's matmul workload on tensix0 and count it with perf, count
# ESP, PULP and SiFive HPM events, and trace a program through the SiFive
# trace encoder with perf record and sifive-perf.
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

perf list tensix >/tmp/perf-list.txt 2>/dev/null
step "perf list tensix (the first of $(grep -c '^  [a-z]' /tmp/perf-list.txt) Tensix events and metrics)"
grep -A 1 '^  [a-z]' /tmp/perf-list.txt | head -n 12
grep -q '^  fpu_instruction$' /tmp/perf-list.txt || die "perf list tensix shows no fpu_instruction"

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

step "ESP: a simulated 2x2 ESP SoC (cpu mem / acc io) at 1 GHz; modprobe esp_pmu"
echo "esp name=esp0 clock_mhz=1000" >/sys/devices/socpmu_sim/new_device || die "cannot create esp0"
modprobe esp_pmu || die "modprobe esp_pmu"
esp=$(ls -d /sys/bus/event_source/devices/esp_* | head -n 1)
[ -n "$esp" ] || die "no esp_<n> PMU"
esp=${esp##*/}
echo "$esp: tiles $(cat /sys/bus/event_source/devices/$esp/tiles), $(ls /sys/bus/event_source/devices/$esp/events | wc -l) events"
echo on >/sys/kernel/debug/socpmu_sim/esp0/workload || die "cannot start the ESP workload"
echo "workload: $(cat /sys/kernel/debug/socpmu_sim/esp0/workload)"

step "perf stat -a -e <ESP events, a group on the cpu tile> sleep 1"
perf stat -a -e $esp/ddr_accesses/,$esp/llc_miss,tile=1/,$esp/acc_tot_cycles,tile=2/ \
	-e "{$esp/l2_hit,tile=0,bytile=1/,$esp/l2_miss,tile=0,bytile=1/}" \
	-e $esp/noc_inject_p0/ sleep 1 || die "perf stat on $esp"

step "esp-monitor -m ddr,llc,acc -- sleep 0.1 (the ESP Monitors API on perf, libespmon.so)"
esp-monitor -p "$esp" -m ddr,llc,acc -A 0 -- sleep 0.1 || die "esp-monitor"

step "PULP: a simulated 2-core ZERO-RISCY cluster, ASIC build (one counter a core); modprobe pulp_pmu"
echo "pulp name=pulp0 cores=2 mode=asic" >/sys/devices/socpmu_sim/new_device || die "cannot create pulp0"
modprobe pulp_pmu || die "modprobe pulp_pmu"
pulp=$(ls -d /sys/bus/event_source/devices/pulp_* | head -n 1)
[ -n "$pulp" ] || die "no pulp_<n> PMU"
pulp=${pulp##*/}
echo "$pulp: $(cat /sys/bus/event_source/devices/$pulp/num_cores) cores," \
	"counters: $(cat /sys/bus/event_source/devices/$pulp/counters)"

step "perf stat: imiss OR ld on core 0 (mask=0x30: 300 + 20 + 30), instr on core 1 (1000)"
inj=/sys/kernel/debug/socpmu_sim/pulp0/inject
perf stat -a -e $pulp/mask=0x30,bycore=1/,$pulp/instr,core=1/ -- sh -c \
	"echo '0 imiss,ld 300' >$inj; echo '0 imiss 20' >$inj; echo '0 ld 30' >$inj;
	 echo '0 instr 5000' >$inj; echo '1 instr 1000' >$inj" || die "perf stat on $pulp"

step "SiFive: simulated harts (HPM counters, 8 programmable) and trace encoders + funnel + SRAM sink; modprobe sifive_hpm sifive_trace"
echo "hpm name=hpm0 counters=8" >/sys/devices/socpmu_sim/new_device || die "cannot create hpm0"
echo "trace name=trace0" >/sys/devices/socpmu_sim/new_device || die "cannot create trace0"
modprobe sifive_hpm || die "modprobe sifive_hpm"
modprobe sifive_trace || die "modprobe sifive_trace"
hpm=$(ls -d /sys/bus/event_source/devices/sifive_hpm* | head -n 1)
[ -n "$hpm" ] || die "no sifive_hpm PMU"
hpm=${hpm##*/}
echo "$hpm: harts $(cat /sys/bus/event_source/devices/$hpm/harts); trace encoders:"
cat /sys/bus/event_source/devices/sifive_trace/encoders

step "perf stat -e $hpm/cycles/,$hpm/instructions/,$hpm/dcache_miss/ (per us on every hart: 20 instructions, 10 misses) -- sleep 0.2"
echo "all instret 20" >/sys/kernel/debug/socpmu_sim/hpm0/rate || die "hpm0 rate"
echo "all dcache_miss 10" >/sys/kernel/debug/socpmu_sim/hpm0/rate || die "hpm0 rate"
perf stat -e $hpm/cycles/,$hpm/instructions/,$hpm/dcache_miss/ -- sleep 0.2 || die "perf stat on $hpm"

step "perf record -e sifive_trace// -- fib (the SiFive library's example: a record per call); perf report --itrace=o"
lib=/usr/lib/sifive-perf
SIFIVE_PERF_MODE=perf-record SIFIVE_PERF_HPM_PMU=$hpm perf record -q -e sifive_trace// -m,16M \
	-o /tmp/fib.data -- $lib/examples/fib || die "perf record"
perf report -i /tmp/fib.data --stdio --itrace=o --sort sym 2>/dev/null | grep -v '^$' | head -n 12

step "sifive-perf record --func -e cycles,instructions -- fibi 15 (an unmodified, instrumented program); decode"
cd /tmp || die "cd /tmp"
SIFIVE_PERF_HPM_PMU=$hpm sifive-perf record --func -e cycles,instructions -o fibi.rtd -- \
	$lib/tests/fibi 15 || die "sifive-perf record"
sifive-perf decode fibi.rtd --elf $lib/tests/fibi --format summary || die "sifive-perf decode"
