#!/bin/bash
# fuzz.sh - `make fuzz` (which builds everything first): the long
# reliability run in the VM, every socpmu module loaded:
#   - selftests/reliability/socpmu_fuzz, FUZZ_ITERATIONS operations (default
#     1000000) from FUZZ_SEED (default: random, printed), at most
#     FUZZ_SECONDS (default: no bound), in 10 passes with a module reload
#     after each and a leak check around the last;
#   - stress_test and module_test at their long sizes: 30 rounds of device
#     removal, 1000 removals during an event's ->destroy, 60 s of the two-CPU
#     poll timer, 50 hotplug cycles, 100 module load/unload cycles with and
#     without events;
#   - security_test.
# Prints the fuzzer's table of calls and errnos, then one line per program
# and the sum; fails if a test failed or the kernel reported a problem
# (run-vm.sh watches the console).
#
# Environment: FUZZ_ITERATIONS, FUZZ_SEED, FUZZ_SECONDS, FUZZ_TIMEOUT (seconds
# for the VM, default 7200), and KVER, CACHE as for run-vm.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
iterations=${FUZZ_ITERATIONS:-1000000}
args="-n $iterations"
args+=" -s ${FUZZ_SEED:-random}"
[[ -z ${FUZZ_SECONDS:-} ]] || args+=" -t $FUZZ_SECONDS"

# The guest's shell: load the modules, run each program, keep its Totals.
script='
for m in /lib/modules/$(uname -r)/updates/socpmu/*.ko; do modprobe $(basename $m .ko) || exit 1; done
export SOCPMU_STRESS_ROUNDS=30 SOCPMU_STRESS_SECONDS=60 SOCPMU_HOTPLUG_CYCLES=50
export SOCPMU_REMOVAL_ROUNDS=1000
export SOCPMU_MODULE_CYCLES=100
rc=0
for t in "socpmu_fuzz -p 10 '"$args"'" stress_test module_test security_test; do
	echo "### $t"
	s=$(date +%s)
	/selftests/reliability/$t || rc=1
	echo "### $t: $(( $(date +%s) - s )) s"
done
exit $rc
'
rc=0
"$here/run-vm.sh" --timeout "${FUZZ_TIMEOUT:-7200}" -- sh -c "$script" || rc=$?

log=$top/.build/vm/console.log
echo
echo "=== make fuzz summary"
tr -d '\r' <"$log" | awk '
	/^### .*: [0-9]+ s$/ { p = $2; sub(/:$/, "", p); t[p] = $(NF - 1); next }
	/^### / { prog = $2 }
	/^# Totals: / { tot[prog] = $0 }
	END {
		for (p in tot)
			printf "%-14s %6s s  %s\n", p, t[p], tot[p]
	}' | sort
grep -E '^# (seed|pass [0-9]+:|iterations|events opened|slab delta|perf stat|device removal|cpu hotplug|poll timer|[0-9]+ modules|AUX|debugfs|sysfs|[0-9]+ refused)' \
	<(tr -d '\r' <"$log") || true
exit "$rc"
