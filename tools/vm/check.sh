#!/bin/bash
# check.sh - the test run of `make check` (which builds everything first):
# the host tests (`make check` of every tools/<name>/Makefile that has a
# check: rule), then the selftests in VMs with every socpmu module loaded,
# both through selftests/run_all.sh, plus the results of the RISC-V VM bench
# that `make check-riscv` ran before (.build/riscv-vm{,-intree}/summary; a missing
# summary is a failure unless RISCV_VM=0). Prints the time of every phase and, as
# its last line, the sum "N passed, N failed" (+ ", N skipped" if any);
# fails if a test failed, a VM run went wrong (kernel problem, timeout, no
# summary) or no test ran.
#
# The VM selftests are split into suites by group (selftests/<group>/), and
# VM_JOBS suites (default: the number of CPUs) run at once, each in its own
# VM and work directory (.build/vm-<n>); the groups are dealt out by their
# usual run time (GROUP_SECONDS below, longest first, to the suite with the
# least so far). Each suite's console is kept in .build/vm-<n>/console.log
# and shown when the suite ends. VM_JOBS=1 runs them all in one VM, as
# before, in .build/vm.
#
# Other checks that run a VM can add a suite of their own: a function that
# runs it and prints "LABEL: N passed, N failed, N skipped" as its last
# line, listed in EXTRA_SUITES (see run_vm_suite).
#
# Environment: VM_TIMEOUT (seconds for each VM run, default 1800), VM_JOBS,
# PHASE_TIMES (the file tools/vm/phase.sh adds the build phases to), and
# KVER, CACHE as for run-vm.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
summary='[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'
jobs=${VM_JOBS:-$(nproc)}
((jobs >= 1)) || jobs=1

# Usual seconds per group in the VM (2-core TCG host), to balance the
# suites; a group not listed counts as 20.
declare -A GROUP_SECONDS=(
	[reliability]=72 [perf_record]=40 [pulp]=28 [sifive_perf]=12 [esp]=9
	[tensix_card]=27 [tensix]=8 [sifive_hpm]=25 [tensix_perf]=6 [sifive_trace]=1
	[pmu_events]=6
)

passed=0 failed=0 skipped=0 problems=() phases=()

# add LINE: add the counts of a run_all.sh summary line.
add() {
	local n
	read -ra n <<<"${1//[!0-9]/ }"
	((passed += n[0], failed += n[1], skipped += n[2])) || true
}

# timed NAME CMD...: run CMD and keep its time for the table at the end.
timed() {
	local name=$1 t0=$EPOCHREALTIME rc=0
	shift
	"$@" || rc=$?
	phases+=("$name $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')")
	return "$rc"
}

# Host tests: run_all.sh runs .build/host-tests/tools/<name>.sh, which is
# `make check` in tools/<name>.
host_tests() {
	local hosttests=$top/.build/host-tests mk log line
	rm -rf "$hosttests"
	for mk in "$top"/tools/*/Makefile; do
		grep -q '^check:' "$mk" || continue
		mkdir -p "$hosttests/tools"
		printf "#!/bin/sh\nexec make -s --no-print-directory -C '%s' check\n" "${mk%/Makefile}" \
			>"$hosttests/tools/$(basename "${mk%/Makefile}").sh"
	done
	[[ -d $hosttests ]] || return 0
	echo "### host tests"
	log=$top/.build/host-tests.log
	"$top/selftests/run_all.sh" -l host "$hosttests" | tee "$log" || true
	line=$(grep -E "^host: $summary\$" "$log" | tail -n 1) || true
	if [[ -n $line ]]; then add "$line"; else problems+=("host tests: no summary line"); fi
}

# The groups the VM gets: the directories of .build/selftests and the
# groups with *.sh tests (as run-vm.sh installs them).
vm_groups() {
	local f
	for f in "$top"/.build/selftests/*/* "$top"/selftests/*/*.sh; do
		[[ -f $f && ($f == *.sh || -x $f) && $f != *_bench ]] || continue
		basename "$(dirname "$f")"
	done | sort -u
}

# run_vm_suite N GROUPS: run_all.sh over GROUPS in a VM of its own; its
# output goes to .build/vm-N/suite.out, its status to .build/vm-N/status.
run_vm_suite() {
	local n=$1 groups=$2 dir rc=0
	dir=$top/.build/vm-$n
	((jobs > 1)) || dir=$top/.build/vm
	mkdir -p "$dir"
	rm -f "$dir/status" "$dir/console.log"
	VM_DIR=$dir "$here/run-vm.sh" --quiet --timeout "${VM_TIMEOUT:-1800}" -- \
		/selftests/run_all.sh -m -l "VM" -g "$groups" >"$dir/suite.out" 2>&1 || rc=$?
	echo "$rc" >"$dir/status"
}

vm_tests() {
	local groups=() g i best load=() suite=() pids=() dir rc line n
	mapfile -t groups < <(vm_groups)
	if ((${#groups[@]} == 0)); then
		problems+=("VM: no selftests built (make selftests)")
		return
	fi
	((jobs <= ${#groups[@]})) || jobs=${#groups[@]}
	for ((i = 0; i < jobs; i++)); do load[i]=0 suite[i]=; done
	# longest first, each to the least loaded suite
	for g in $(for g in "${groups[@]}"; do echo "${GROUP_SECONDS[$g]:-20} $g"; done |
		sort -k1,1nr -k2 | cut -d' ' -f2); do
		best=0
		for ((i = 1; i < jobs; i++)); do ((load[i] < load[best])) && best=$i; done
		((load[best] += ${GROUP_SECONDS[$g]:-20})) || true
		suite[best]+="${suite[best]:+ }$g"
	done
	echo "### selftests in $jobs VM(s)"
	for ((i = 0; i < jobs; i++)); do
		echo "### VM suite $((i + 1)): ${suite[i]}"
		run_vm_suite "$((i + 1))" "${suite[i]}" &
		pids[i]=$!
	done
	for ((i = 0; i < jobs; i++)); do
		wait "${pids[i]}" || true
		n=$((i + 1))
		dir=$top/.build/vm-$n
		((jobs > 1)) || dir=$top/.build/vm
		echo "### VM suite $n (${suite[i]}): console"
		tr -d '\r' <"$dir/console.log" 2>/dev/null || true
		grep -E '^run-vm' "$dir/suite.out" || true
		rc=$(cat "$dir/status" 2>/dev/null || echo 125)
		line=$(tr -d '\r' <"$dir/console.log" 2>/dev/null | grep -E "^VM: $summary\$" | tail -n 1) || true
		if [[ -n $line ]]; then
			add "$line"
		else
			problems+=("VM suite $n (${suite[i]}): no summary line from run_all.sh")
		fi
		if ((rc == 124 || rc == 125)); then
			problems+=("VM suite $n: run-vm.sh failed with status $rc (kernel problem, timeout or set-up; see above)")
		fi
	done
}

# The RISC-V VM bench's results (tools/vm/riscv-vm.sh, run by check-riscv)
riscv_tests() {
	local line d
	[[ ${RISCV_VM:-1} != 0 ]] || return 0
	for d in riscv-vm riscv-vm-intree; do
		line=$(grep -E "^RISCV: $summary\$" "$top/.build/$d/summary" 2>/dev/null | tail -n 1) || true
		if [[ -n $line ]]; then
			echo "### RISC-V VM bench $d (make check-riscv): $line"
			add "$line"
		else
			problems+=("RISC-V VM: no summary in .build/$d/summary (make check-riscv)")
		fi
	done
}

timed "host tests" host_tests
timed "VM selftests ($jobs at once)" vm_tests
riscv_tests
((passed + failed + skipped)) || problems+=("no test ran")

echo "### phase times"
if [[ -n ${PHASE_TIMES:-} && -f $PHASE_TIMES ]]; then
	while read -r name secs; do printf '#   %-28s %7s s\n' "$name" "$secs"; done <"$PHASE_TIMES"
fi
for p in "${phases[@]}"; do printf '#   %-28s %7s s\n' "${p% *}" "${p##* }"; done

for p in "${problems[@]}"; do echo "check: FAILED: $p" >&2; done
result="$passed passed, $failed failed"
((skipped == 0)) || result+=", $skipped skipped"
echo "$result"
((failed == 0 && ${#problems[@]} == 0))
