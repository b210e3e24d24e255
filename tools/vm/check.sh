#!/bin/bash
# check.sh - the test run of `make check` (which builds everything first):
# the host tests (`make check` of every tools/<name>/Makefile that has a
# check: rule), then the selftests in the VM with every socpmu module loaded,
# both through selftests/run_all.sh, plus the results of the RISC-V VM bench
# that `make check-riscv` ran before (.build/riscv-vm/summary; missing
# summary = failure unless RISCV_VM=0). Prints, as its last line, the sum
# "N passed, N failed" (+ ", N skipped" if any) and fails if a test failed,
# the VM run went wrong (kernel problem, timeout, no summary) or no test ran.
#
# Environment: VM_TIMEOUT (seconds for the VM run, default 1800), and KVER,
# CACHE as for run-vm.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
summary='[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'

passed=0 failed=0 skipped=0 problems=()

# add LINE: add the counts of a run_all.sh summary line.
add() {
	local n
	read -ra n <<<"${1//[!0-9]/ }"
	((passed += n[0], failed += n[1], skipped += n[2])) || true
}

# Host tests: run_all.sh runs .build/host-tests/tools/<name>.sh, which is
# `make check` in tools/<name>.
hosttests=$top/.build/host-tests
rm -rf "$hosttests"
for mk in "$top"/tools/*/Makefile; do
	grep -q '^check:' "$mk" || continue
	mkdir -p "$hosttests/tools"
	printf "#!/bin/sh\nexec make -s --no-print-directory -C '%s' check\n" "${mk%/Makefile}" \
		>"$hosttests/tools/$(basename "${mk%/Makefile}").sh"
done
if [[ -d $hosttests ]]; then
	echo "### host tests"
	log=$top/.build/host-tests.log
	"$top/selftests/run_all.sh" -l host "$hosttests" | tee "$log" || true
	line=$(grep -E "^host: $summary\$" "$log" | tail -n 1) || true
	if [[ -n $line ]]; then add "$line"; else problems+=("host tests: no summary line"); fi
fi

echo "### selftests in the VM"
vm_rc=0
"$here/run-vm.sh" --timeout "${VM_TIMEOUT:-1800}" -- /selftests/run_all.sh -m || vm_rc=$?
line=$(tr -d '\r' <"$top/.build/vm/console.log" | grep -E "^VM: $summary\$" | tail -n 1) || true
if [[ -n $line ]]; then add "$line"; else problems+=("VM: no summary line from run_all.sh"); fi
if ((vm_rc == 124 || vm_rc == 125)); then
	problems+=("VM: run-vm.sh failed with status $vm_rc (kernel problem, timeout or set-up; see above)")
fi
if [[ ${RISCV_VM:-1} != 0 ]]; then
	line=$(grep -E "^RISCV: $summary\$" "$top/.build/riscv-vm/summary" 2>/dev/null | tail -n 1) || true
	if [[ -n $line ]]; then
		echo "### RISC-V VM bench (make check-riscv): $line"
		add "$line"
	else
		problems+=("RISC-V VM: no summary in .build/riscv-vm/summary (make check-riscv)")
	fi
fi
((passed + failed + skipped)) || problems+=("no test ran")

for p in "${problems[@]}"; do echo "check: FAILED: $p" >&2; done
result="$passed passed, $failed failed"
((skipped == 0)) || result+=", $skipped skipped"
echo "$result"
((failed == 0 && ${#problems[@]} == 0))
