#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# session.sh - the interactive VM session (`make shell`, or
# tools/vm/run-vm.sh --interactive): every socpmu module loaded from the
# installed tree, a simulated device of every type, then a shell on the
# console. Leaving the shell powers the VM off.
SIM=/sys/devices/socpmu_sim

for m in /lib/modules/"$(uname -r)"/updates/socpmu/*.ko; do
	modprobe "$(basename "$m" .ko)" || echo "session: modprobe $(basename "$m" .ko) failed"
done
# socpmu_sim creates tensix0 by itself; one device of every other type
for spec in "esp name=esp0 clock_mhz=1000" "pulp name=pulp0 cores=2 mode=asic" \
	    "hpm name=hpm0 counters=8" "trace name=trace0"; do
	echo "$spec" > $SIM/new_device || echo "session: cannot create '$spec'"
done
sleep 1	# the drivers bind and register their PMUs

echo
echo "socpmu VM: modules loaded, simulated devices:"
for d in /sys/kernel/debug/socpmu_sim/*/; do printf ' %s' "$(basename "$d")"; done
echo
echo "PMUs: $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
cat <<'TRY'
Nothing runs on the simulated devices until you start a workload or inject
activity (Documentation/sim.rst). Try:
  echo "matmul fpu=60 unpack=40 pack=30" > /sys/kernel/debug/socpmu_sim/tensix0/workload
  perf stat -a -e tensix_0/fpu_instruction/,tensix_0/fpu_cycles/ -- sleep 1
  tensix-perf stat -a sleep 1
  perf list tensix
  SIFIVE_PERF_MODE=perf-record perf record -e sifive_trace// -o /tmp/fib.data -- /usr/lib/sifive-perf/examples/fib
  perf report -i /tmp/fib.data --stdio --itrace=o --sort sym
TRY
echo "Leave with 'exit' (powers the VM off)."
