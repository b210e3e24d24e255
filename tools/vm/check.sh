#!/bin/bash
# check.sh - the test run of `make check` (which builds everything first):
#   - the host tests: `make check` of every tools/<name>/Makefile that has a
#     check: rule, through selftests/run_all.sh,
#   - at the same time, the selftests in x86 VMs with every socpmu module
#     loaded (run_all.sh), each VM keeping at most one host CPU busy,
#   - and the RISC-V VM bench (tools/vm/check-riscv.sh --bench; `make check`
#     has run its builds, --build, before), whose summaries it lists in
#     .build/riscv-suites (RISCV_VM=0 skips the bench, CHECK_RISCV=0 all of
#     check-riscv).
# Every job's output is shown when it ends, then the time of every phase
# and, as the last line, the sum "N passed, N failed" (+ ", N skipped" if
# any). Fails if a test failed, a VM run went wrong (kernel problem,
# timeout, no summary), check-riscv failed or no test ran.
#
# The x86 test programs (selftests/<group>/<test>) and the RISC-V bench
# (one unit, riscv/bench) are dealt out by their cost, costliest first, to
# VM_JOBS slots (default 3), which run at once, each in a VM and work
# directory of its own (.build/vm-<n>); a slot that got the bench runs it
# first, then its x86 tests. A slot runs the tests that sleep the most
# first and its CPU-bound ones last, so that the CPUs stay busy to the end
# (suites.sh's deal). The costs are those of the last run
# (.build/test-seconds): an x86 test's CPU time (the "busy B s" that
# run_all.sh prints, at most its "N s"; see suites.sh's keep_times) and the
# bench's wall time, as its slot can run nothing else meanwhile; else
# TEST_SECONDS below. The bench, the costliest unit, usually gets a slot of
# its own. Each suite's console is kept in
# .build/vm-<n>/console.log; VM_JOBS=1 runs them all in one VM, in .build/vm.
#
# The run is bound by CPU: the emulators keep both CPUs of a 2-CPU machine
# busy, so it takes at least its CPU time / 2. On the machine of 2026-11-25
# that took about 113 s warm (107-135 s seen, 176-240 CPU seconds). The
# machine of 2026-11-26 ran the same emulated work ~1.45x slower and its
# speed changed by up to 2x within minutes (a fixed host loop took 0.20 to
# 0.45 s), with CPU taken by its neighbours: 152-275 s warm, 287-455 CPU
# seconds, most runs 170-210 s. Of that, the RISC-V bench takes 77-104 CPU
# seconds (-O2 kernel), the x86 VMs 170-215, the rest (host tests, scripts) 30-45.
# RISCV_ALONGSIDE=0 runs the bench alone after the x86 suites instead (the
# schedule before: about 150 s on the first machine).
#
# Environment: VM_TIMEOUT (seconds for each VM run, default 1800), VM_JOBS,
# RISCV_ALONGSIDE (default 1), PHASE_TIMES (the file tools/vm/phase.sh adds
# the build phases to), and KVER, CACHE as for run-vm.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
summary='[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'
alongside=${RISCV_ALONGSIDE:-1}
jobs=${VM_JOBS:-3}
((jobs >= 1)) || jobs=1
times=$top/.build/test-seconds

# Usual costs: CPU seconds per test in the VM with the other slots running
# (2-core TCG host), and the whole RISC-V bench's seconds, to balance the
# slots on a first run; a test not listed counts as 10.
declare -A TEST_SECONDS=(
	[perf_record/perf_record_test]=55 [tensix_card/tensix_card_test]=30
	[reliability/stress_test]=24 [sifive_perf/sifive_perf_tool_test.sh]=21
	[tensix_perf/tensix_perf_test.sh]=14 [reliability/socpmu_fuzz]=11
	[reliability/module_test]=9 [pmu_events/pmu_events_test.sh]=9 [esp/esp_api_test]=7
	[pulp/pulp_test]=6 [tensix/tensix_test]=5 [sifive_perf/sifive_perf_test]=5
	[esp/esp_test]=3 [sifive_hpm/sifive_hpm_test]=3 [tensix_card/tensix_card_tool_test.sh]=3
	[reliability/refusal_log_test.sh]=3 [sifive_trace/sifive_trace_test]=1
	[reliability/security_test]=1 [reliability/atomic_regmap_test]=1
	[riscv/bench]=125
)
RISCV_UNIT=riscv/bench
# shellcheck source=tools/vm/suites.sh
. "$here/suites.sh"

passed=0 failed=0 skipped=0 problems=() phases=()

# add LINE: add the counts of a run_all.sh summary line.
add() {
	local n
	read -ra n <<<"${1//[!0-9]/ }"
	((passed += n[0], failed += n[1], skipped += n[2])) || true
}

# timed NAME CMD...: run CMD and keep its time in .build/check-phases/NAME.
timed() {
	local name=$1 t0=$EPOCHREALTIME rc=0
	shift
	"$@" || rc=$?
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' \
		>"$top/.build/check-phases/${name// /_}"
	return "$rc"
}

# phase NAME: the time timed() kept for NAME, into the table at the end.
phase() {
	phases+=("$1 $(cat "$top/.build/check-phases/${1// /_}" 2>/dev/null || echo -)")
}

# Host tests: run_all.sh runs .build/host-tests/tools/<name>.sh, which is
# `make check` in tools/<name>.
host_tests() {
	local hosttests=$top/.build/host-tests mk
	rm -rf "$hosttests"
	for mk in "$top"/tools/*/Makefile; do
		grep -q '^check:' "$mk" || continue
		mkdir -p "$hosttests/tools"
		printf "#!/bin/sh\nexec make -s --no-print-directory -C '%s' check\n" "${mk%/Makefile}" \
			>"$hosttests/tools/$(basename "${mk%/Makefile}").sh"
	done
	[[ -d $hosttests ]] || return 0
	"$top/selftests/run_all.sh" -l host "$hosttests" || true
}

# The tests the VM gets, as group/test: the programs of .build/selftests and
# the *.sh tests of selftests/ (as run-vm.sh installs them).
vm_units() {
	local f
	for f in "$top"/.build/selftests/*/* "$top"/selftests/*/*.sh; do
		[[ -f $f && ($f == *.sh || -x $f) && $f != *_bench ]] || continue
		echo "$(basename "$(dirname "$f")")/$(basename "$f")"
	done | sort -u
}

# suite_dir N: the work directory of suite N.
suite_dir() {
	if ((jobs > 1)); then echo "$top/.build/vm-$1"; else echo "$top/.build/vm"; fi
}

# run_vm_suite N TESTS: run_all.sh over TESTS in a VM of its own; its
# output goes to DIR/suite.out, its status to DIR/status.
run_vm_suite() {
	local dir rc=0
	dir=$(suite_dir "$1")
	mkdir -p "$dir"
	rm -f "$dir/status" "$dir/console.log"
	VM_DIR=$dir "$here/run-vm.sh" --quiet --timeout "${VM_TIMEOUT:-1800}" -- \
		/selftests/run_all.sh -m -l "VM" -g "$2" >"$dir/suite.out" 2>&1 || rc=$?
	echo "$rc" >"$dir/status"
}

# riscv_bench: the RISC-V bench, its output in .build/check-riscv.log, its
# exit status in .build/check-riscv.status.
riscv_bench() {
	local rc=0
	timed "RISC-V bench" "$here/check-riscv.sh" --bench >"$top/.build/check-riscv.log" 2>&1 ||
		rc=$?
	echo "$rc" >"$top/.build/check-riscv.status"
}

# run_slot N UNITS: the RISC-V bench if it is one of UNITS, then the x86
# tests of UNITS (x86[N-1]) in VM suite N.
run_slot() {
	[[ " $2 " != *" $RISCV_UNIT "* ]] || riscv_bench
	[[ -z ${x86[$1 - 1]} ]] || run_vm_suite "$1" "${x86[$1 - 1]}"
}

# Every slot at once; the results are read by vm_results and riscv_results.
suites=() x86=()
vm_tests() {
	local units=() i pids=() u
	mapfile -t units < <(vm_units)
	((!riscv || !alongside)) || units+=("$RISCV_UNIT")
	((${#units[@]})) || return 0
	((jobs <= ${#units[@]})) || jobs=${#units[@]}
	mapfile -t suites < <(deal "$jobs" "$times" 10 "${units[@]}")
	if ! dealt_all "${units[*]}" "${suites[@]}"; then
		problems+=("cannot deal the tests to the VM slots (above)")
		suites=()
		return 0
	fi
	for ((i = 0; i < jobs; i++)); do
		x86[i]=
		for u in ${suites[i]}; do
			[[ $u == "$RISCV_UNIT" ]] || x86[i]+="${x86[i]:+ }$u"
		done
	done
	for ((i = 0; i < jobs; i++)); do
		run_slot "$((i + 1))" "${suites[i]}" &
		pids[i]=$!
	done
	for ((i = 0; i < jobs; i++)); do wait "${pids[i]}" || true; done
}

# Show the suites' consoles, add their counts, keep their tests' times.
vm_results() {
	local i n dir rc line logs
	if ((${#suites[@]} == 0)); then
		((${#problems[@]})) || problems+=("VM: no selftests built (make selftests)")
		return
	fi
	echo "### selftests in x86 VMs"
	for i in "${!suites[@]}"; do
		[[ -n ${x86[i]} ]] || continue
		n=$((i + 1))
		dir=$(suite_dir "$n")
		echo "### VM suite $n (${x86[i]}): console"
		tr -d '\r' <"$dir/console.log" 2>/dev/null || true
		grep -E '^run-vm' "$dir/suite.out" || true
		rc=$(cat "$dir/status" 2>/dev/null || echo 125)
		line=$(tr -d '\r' <"$dir/console.log" 2>/dev/null | grep -E "^VM: $summary\$" | tail -n 1) || true
		if [[ -n $line ]]; then
			add "$line"
		else
			problems+=("VM suite $n (${x86[i]}): no summary line from run_all.sh")
		fi
		if ((rc == 124 || rc == 125)); then
			problems+=("VM suite $n: run-vm.sh failed with status $rc (kernel problem, timeout or set-up; see above)")
		fi
	done
	logs=()
	for i in "${!suites[@]}"; do
		[[ -z ${x86[i]} ]] || logs+=("$(suite_dir $((i + 1)))/console.log")
	done
	keep_times "$times" "${logs[@]}"
	# the bench's time, if it ran through (a failed one stops early)
	if [[ -s $top/.build/check-phases/RISC-V_bench && -f $times &&
	      $(cat "$top/.build/check-riscv.status" 2>/dev/null) == 0 ]]; then
		printf '%s %.0f\n' "$RISCV_UNIT" "$(cat "$top/.build/check-phases/RISC-V_bench")" \
			>>"$times"
	fi
}

# check-riscv's results: its summaries (.build/riscv-suites lists them).
riscv_results() {
	local rc=$1 line d
	echo "### the RISC-V VM bench (check-riscv.sh --bench)"
	cat "$top/.build/check-riscv.log"
	((rc == 0)) || problems+=("the RISC-V VM bench failed (status $rc, output above)")
	[[ ${RISCV_VM:-1} != 0 ]] || return 0
	[[ -s $top/.build/riscv-suites ]] || { problems+=("RISC-V VM: no bench ran"); return; }
	while read -r d; do
		line=$(grep -E "^RISCV: $summary\$" "$top/$d/summary" 2>/dev/null | tail -n 1) || true
		if [[ -n $line ]]; then
			echo "### RISC-V VM bench $d: $line"
			add "$line"
		else
			problems+=("RISC-V VM: no summary in $d/summary")
		fi
	done <"$top/.build/riscv-suites"
}

# The host tests and the slots at once (the host tests' output is kept and
# shown afterwards).
rm -rf "$top/.build/check-phases"
mkdir -p "$top/.build/check-phases"
rm -f "$top/.build/check-riscv.status"
riscv=${CHECK_RISCV:-1}
timed "host tests" host_tests >"$top/.build/host-tests.log" 2>&1 &
host_pid=$!
if ((alongside)); then
	echo "### $jobs slots (x86 VM suites, the RISC-V bench) and the host tests at once"
else
	echo "### $jobs x86 VM suites and the host tests at once, then the RISC-V bench"
fi
timed "VM selftests" vm_tests
((!riscv || alongside)) || riscv_bench
vm_results

wait "$host_pid" || true
echo "### host tests"
cat "$top/.build/host-tests.log"
line=$(grep -E "^host: $summary\$" "$top/.build/host-tests.log" | tail -n 1) || true
if [[ -n $line ]]; then add "$line"; else problems+=("host tests: no summary line"); fi

((!riscv)) || riscv_results "$(cat "$top/.build/check-riscv.status" 2>/dev/null || echo 125)"
((passed + failed + skipped)) || problems+=("no test ran")

echo "### phase times"
if [[ -n ${PHASE_TIMES:-} && -f $PHASE_TIMES ]]; then
	while read -r name secs; do printf '#   %-28s %7s s\n' "$name" "$secs"; done <"$PHASE_TIMES"
fi
phase "VM selftests"
phase "host tests"
((riscv)) && phase "RISC-V bench"
for p in "${phases[@]}"; do printf '#   %-28s %7s s\n' "${p% *}" "${p##* }"; done
if ((alongside)); then
	echo "#   (the host tests ran during the VM selftests, which include the RISC-V bench)"
else
	echo "#   (the host tests ran during the VM selftests, the RISC-V bench after them)"
fi

for p in "${problems[@]}"; do echo "check: FAILED: $p" >&2; done
result="$passed passed, $failed failed"
((skipped == 0)) || result+=", $skipped skipped"
echo "$result"
((failed == 0 && ${#problems[@]} == 0))
