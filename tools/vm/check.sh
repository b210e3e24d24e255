#!/bin/bash
# check.sh [BUILD...] - the test run of `make check`:
#   - the RISC-V VM bench (tools/vm/check-riscv.sh --bench; `make check`
#     has run its builds, --build, before), whose summaries it lists in
#     .build/riscv-suites (RISCV_VM=0 skips the bench, CHECK_RISCV=0 all of
#     check-riscv), from the start: the builds leave a CPU idle,
#   - at the same time BUILD (`make check` passes `make check-builds`: the
#     x86 modules, tools, selftests, sparse, checkpatch), which must
#     succeed before any other test starts,
#   - then the host tests: `make check` of every tools/<name>/Makefile that
#     has a check: rule, through selftests/run_all.sh,
#   - at the same time, the selftests in x86 VMs with every socpmu module
#     loaded (run_all.sh), each VM keeping at most one host CPU busy.
# Every job's output is shown when it ends, then the time of every phase
# and, as the last line, the sum "N passed, N failed" (+ ", N skipped" if
# any). Fails if a test failed, a VM run went wrong (kernel problem,
# timeout, no summary), check-riscv failed or no test ran.
#
# VM_JOBS slots (default 3) run at once: slot 1 waits for the RISC-V bench,
# then joins the others; slots 2... each run an x86 VM with a work
# directory of its own (.build/vm-<n>; .build/vm with VM_JOBS=1), and slot
# VM_JOBS + 1 joins them once the host tests are done. The x86 VMs
# take the test programs (selftests/<group>/<test>) one at a time from one
# queue (.build/vm-queue, handed out through each guest's second serial port:
# run-vm.sh --queue, run_all.sh -q), longest first by the wall times of the
# last run (.build/test-seconds, else TEST_SECONDS below; suites.sh's
# queue_order), so that they all end within about the length of the last,
# shortest tests. A deal made before the run balanced the slots on the last
# run's times, but those varied by up to 2x from run to run, and the slots
# ended 13-46 s apart, a CPU idle meanwhile. Each VM's console is kept in
# its directory's console.log, the tests it took in its handed file.
#
# The run is bound by CPU: the emulators keep both CPUs of a 2-CPU machine
# busy, so it takes at least its CPU time / 2. On the machine of 2026-11-25
# that took about 113 s warm (107-135 s seen, 176-240 CPU seconds). The
# machine of 2026-11-26 ran the same emulated work ~1.45x slower and its
# speed changed by up to 2x within minutes (a fixed host loop took 0.20 to
# 0.45 s), with CPU taken by its neighbours: 152-275 s warm, 287-455 CPU
# seconds, most runs 170-210 s. Of that, the RISC-V bench takes 77-104 CPU
# seconds (-O2 kernel), the x86 VMs 170-215, the rest (host tests, scripts) 30-45.
# The bench's kernel is the lockdep gate: its Tensix and ESP tests took 27.1
# CPU seconds, 10.5 on the same kernel without PROVE_LOCKING. Where its busy
# harts were, sampled through QEMU's monitor (10,700 samples of the bench
# alone): lockdep with the irq-flag tracing and stack walks it brings 40%,
# hpm_sbi_test's timed busy loops 15%, OpenSBI 4%, socpmu's modules 1%, the
# rest spread over the kernel's syscall paths (the Tensix tests alone make
# 9,400 perf_event_open calls). An idle bench VM keeps 16% of a host CPU
# busy (tinyconfig's periodic tick), but NO_HZ_IDLE, which takes that to
# 0.3%, did not make the bench cheaper (92.9 and 78.8 CPU seconds against
# 80.8 and 78.7, two pairs of the two kernels side by side); a 100 Hz tick
# did (10-13% less, three pairs), and so did Sv39 paging instead of QEMU's
# Sv57 (about 5%, riscv-vm.sh). QEMU's pmp=false for the harts did not (8%
# less in the first of three pairs, nothing in the other two), nor did
# h=false (two pairs), nor apparmor=0 audit=0
# nowatchdog tsc=reliable randomize_kstack_offset=off on the x86 guests'
# command line (169 against 170 CPU seconds for the whole x86 suite), nor
# -M pc instead of q35 for their boots (four pairs). The x86 tests
# in one VM alone took about 130 (perf_record_test 26, stress_test 17,
# sifive_perf_tool_test.sh 15, tensix_card_test 11), each boot about 5
# (booting the kernel's ELF through the PVH entry instead of its bzImage
# took 1.3-2.5 off each: deps.sh's vmlinux_of); mitigations=off on the
# guest's command line saved nothing (128.3 against 129.3, side by side).
# With the queue, the runs of that machine left 17-24 CPU seconds idle
# (50-60 with the deal), about 6 of them in the builds before the tests:
# 140 s at its fastest (253 CPU seconds), 182-191 s when slow (348-361).
# More slots cost more CPU per test (three RISC-V VMs: 434 CPU seconds),
# fewer leave CPUs idle (VM_JOBS=2: 79 s idle); the x86 VMs use one TCG
# thread for two vCPUs (more CPU with a thread each, besides the int3
# problem of run-vm.sh), the RISC-V VM a thread per hart (a single thread
# took 138 instead of 100 CPU seconds for the bench).
# Putting the tests that mostly sleep earlier in the queue did not lower the
# idle time: 22.1 and 20.6 CPU seconds with their sleep counted twice, or
# with sleepers and busy tests in turn, against 15.1-18.0 for four runs
# longest first (sleepers then ran next to each other, or came last anyway).
# To see where a guest's time goes, irq-off code included (perf's cpu-clock
# in the guest puts it where interrupts come back on), sample its program
# counter from the host: QEMU's "-monitor unix:SOCK,server,nowait" and
# "info registers -a" in a loop, the addresses resolved with the guest's
# /proc/kallsyms. A vCPU waiting for the single TCG thread keeps its last PC
# (an MMIO write, a PAUSE) and is sampled too. That is how the Blackhole
# card test that ran 5-9 s was found (its 1 ms poll ran back to back; the
# core now stretches the period to 4 times the poll).
# RISCV_ALONGSIDE=0 runs the bench alone after the x86 suites instead (the
# schedule before: about 150 s on the first machine).
# On the machine of 2026-11-27, warm runs of 844 tests took 2m07-2m15 with
# the builds first (215-242 CPU seconds busy, 20-25 idle). Alone, the x86
# suite used 103 CPU seconds, the bench 46, the host tests 25. Three changes
# followed. The bench starts before the builds (they ran 6 s with a CPU
# idle), at nice 10 until they are done: the build phase took 8.2 s next
# to it at nice 0, 6.6 niced, 3.8 alone. Kbuild runs only when the modules'
# inputs changed (make modules: 2 s less, twice a run). And the host tests'
# job then takes tests from the queue in a VM of its own (slot VM_JOBS + 1):
# idle fell to 11 CPU seconds (1m56.0 against 2m01.8 without that slot, run
# next to each other). The idle left is where every VM runs a test that
# mostly sleeps (tensix_test, pulp_test, esp_api_test: multiplexing and
# workload windows). Host-side samples of a guest's PC (above) put 74% of
# the x86 suite's guest time in the kernel, spread thin: cross-CPU calls to
# read events on the PMU's CPU, the simulator's stalls (ndelay), APIC timer
# writes; perf and its libraries are 80% of the user time. The first of
# those went down: the socpmu core's events are read on the CPU that asks
# (tensix-pmu.rst), and in the Tensix, ESP, PULP, card and pmu-events suites
# the PMU's CPU took 9,200 function call IPIs instead of 15,500.
# The test VMs boot with norandmaps (address space layout randomization
# off). QEMU looks its translations up by virtual address, so with ASLR
# every process that maps a PIE program or a shared library (perf, libc,
# the test programs) has that code translated afresh: the sifive_perf,
# perf_record, tensix_perf and pmu_events suites made 835,000 translation
# blocks with it, 171,000 without, and took 18-24% less host CPU (50.4 and
# 53.4 CPU seconds against 61.5 and 70.0, run in turn). What the tests
# check does not depend on where things are mapped; a PIE still loads away
# from its link address (at 0x555555554000), which the decoders must handle.
# `make run` and `make shell` boot without it, as a user's system would.
# With it, the bench's priority below and fewer processes in the host tests
# (a fork costs 4-6 ms of CPU on that machine), the seven warm runs since took
# 1m39-1m56 (184-220 CPU seconds busy, 8-16 idle): the x86 VMs about 120
# CPU seconds, the bench 48, the rest (host tests, builds, scripts) 35.
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

# Usual wall times of the tests in a VM with the other slots running (2-core
# TCG host), for the order of a first run; a test not listed counts as 10.
declare -A TEST_SECONDS=(
	[perf_record/perf_record_test]=50 [reliability/stress_test]=42
	[tensix_perf/tensix_perf_test.sh]=33 [tensix_card/tensix_card_test]=50
	[sifive_perf/sifive_perf_tool_test.sh]=19 [esp/esp_api_test]=19 [pulp/pulp_test]=16
	[reliability/socpmu_fuzz]=15 [tensix/tensix_test]=14 [sifive_hpm/sifive_hpm_test]=12
	[reliability/module_test]=8 [pmu_events/pmu_events_test.sh]=7 [esp/esp_test]=7
	[tensix_card/tensix_card_tool_test.sh]=4 [sifive_trace/sifive_trace_test]=2
	[sifive_perf/sifive_perf_test]=2 [reliability/security_test]=1
	[reliability/refusal_log_test.sh]=1 [reliability/atomic_regmap_test]=1
)
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
	local name=$1 t0=${EPOCHREALTIME/,/.} rc=0
	shift
	"$@" || rc=$?
	awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f\n", b - a }' \
		>"$top/.build/check-phases/${name// /_}"
	return "$rc"
}

# cpu_times: the host's busy, idle and stolen CPU time since boot, in clock
# ticks (/proc/stat; stolen: the time a hypervisor gave this machine's CPUs to
# others while they had work).
cpu_times() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6, $9; exit }' /proc/stat
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
	if ((jobs > 1 || $1 > 1)); then echo "$top/.build/vm-$1"; else echo "$top/.build/vm"; fi
}

# run_vm_suite N: run_all.sh in a VM of its own, over the tests it takes
# from the queue (.build/vm-queue) until it is empty; its output goes to
# DIR/suite.out, its status to DIR/status, the tests it took to DIR/handed.
run_vm_suite() {
	local dir rc=0
	dir=$(suite_dir "$1")
	mkdir -p "$dir"
	rm -f "$dir/status" "$dir/console.log" "$dir/handed"
	VM_DIR=$dir "$here/run-vm.sh" --quiet --timeout "${VM_TIMEOUT:-1800}" --queue "$queue" \
		--pcp --append norandmaps -- \
		/selftests/run_all.sh -m -l "VM" -q /dev/ttyS1 >"$dir/suite.out" 2>&1 || rc=$?
	echo "$rc" >"$dir/status"
}

# riscv_bench [NICE]: the RISC-V bench, its output in .build/check-riscv.log,
# its exit status in .build/check-riscv.status; at nice level NICE (default
# 0).
riscv_bench() {
	local rc=0
	timed "RISC-V bench" nice -n "${1:-0}" "$here/check-riscv.sh" --bench \
		>"$top/.build/check-riscv.log" 2>&1 || rc=$?
	echo "$rc" >"$top/.build/check-riscv.status"
}

# run_slot N: slot 1 waits for the RISC-V bench (when it runs alongside),
# which started before the builds, then joins the others if tests are left
# in the queue; every other slot runs a VM suite from the start.
run_slot() {
	if (($1 == 1 && riscv && alongside)); then
		wait "$bench_pid" || true
		[[ -s $queue ]] || return 0
	fi
	run_vm_suite "$1"
}

# make_queue: the x86 tests, longest first, in the queue the slots take
# them from.
units=()
queue=$top/.build/vm-queue
make_queue() {
	local i
	mapfile -t units < <(vm_units)
	rm -f "$queue" "$queue.lock"
	for ((i = 1; i <= jobs + 1; i++)); do rm -f "$(suite_dir "$i")/status"; done
	((${#units[@]})) || return 0
	((jobs <= ${#units[@]})) || jobs=${#units[@]}
	queue_order "$times" 10 "${units[@]}" >"$queue"
}

# The host tests, then, if tests are left in the queue, a VM suite in slot
# VM_JOBS + 1: once the host tests are done, the slots left CPU time idle
# whenever two ran tests that mostly sleep (13-24 CPU seconds a run).
host_job() {
	timed "host tests" host_tests >"$top/.build/host-tests.log" 2>&1
	[[ ! -s $queue ]] || run_vm_suite $((jobs + 1))
}

# vm_tests: every slot at once, until they and the host job are done; the
# results are read by vm_results and riscv_results.
vm_tests() {
	local i pids=()
	if ((${#units[@]})); then
		for ((i = 2; i <= jobs; i++)); do
			run_slot "$i" &
			pids+=($!)
		done
		# slot 1 here: only this shell can wait for the bench it started
		run_slot 1
	fi
	for i in "${pids[@]}" "$host_pid"; do wait "$i" || true; done
}

# Show the suites' consoles, add their counts, keep their tests' times;
# every test must have been taken from the queue by exactly one VM.
vm_results() {
	local i dir rc line u console logs=() handed=()
	if ((${#units[@]} == 0)); then
		problems+=("VM: no selftests built (make selftests)")
		return
	fi
	echo "### selftests in x86 VMs"
	for ((i = 1; i <= jobs + 1; i++)); do
		dir=$(suite_dir "$i")
		[[ -f $dir/status ]] || continue
		console=$(tr -d '\r' <"$dir/console.log" 2>/dev/null) || true
		echo "### VM suite $i ($(paste -sd' ' "$dir/handed" 2>/dev/null)): console"
		[[ -z $console ]] || printf '%s\n' "$console"
		grep -E '^run-vm' "$dir/suite.out" || true
		rc=$(cat "$dir/status")
		line=$(grep -E "^VM: $summary\$" <<<"$console" | tail -n 1) || true
		if [[ -n $line ]]; then
			add "$line"
		else
			problems+=("VM suite $i: no summary line from run_all.sh")
		fi
		if ((rc == 124 || rc == 125)); then
			problems+=("VM suite $i: run-vm.sh failed with status $rc (kernel problem, timeout or set-up; see above)")
		fi
		logs+=("$dir/console.log")
		[[ -f $dir/handed ]] || continue
		while read -r u; do
			handed+=("$u")
			[[ $console == *"# ===== $u: "* ]] ||
				problems+=("VM suite $i: no result for $u (the VM ended during it?)")
		done <"$dir/handed"
	done
	dealt_all "${units[*]}" "${handed[@]}" ||
		problems+=("VM: the suites did not take every test exactly once (above)")
	keep_times "$times" "${logs[@]}"
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

# tree_pids PID: PID and every process it started, parents first.
tree_pids() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree_pids "$c"; done
}

# renice_tree N PID: every thread of PID and of the processes it started at
# nice level N (QEMU's vCPU threads included, which renice -p leaves).
renice_tree() {
	local p tids=()
	for p in $(tree_pids "$2"); do
		tids+=(/proc/"$p"/task/*)
	done
	renice -n "$1" -p "${tids[@]##*/}" >/dev/null 2>&1 || true
}

# The RISC-V bench first (it only needs check-riscv.sh --build, which `make
# check` ran before), so that it uses the CPU the builds leave idle; then
# the builds, this script's arguments; then the host tests and the slots at
# once (the host tests' output is kept and shown afterwards). The builds come
# first, though: the x86 VMs wait for them, not for the bench, which ends
# long before the x86 suites do. So as root (who may renice it back) the
# bench runs at nice 10 until the builds are done (the figures are above),
# then at nice -5: it is one VM that runs its tests one after the other,
# the longest chain of the run, while the x86 queue spreads over the slots.
# At nice 0 it took 92-133 s of 1m57-2m36 runs, and when the host was slow
# it ended last, alone (55 CPU seconds idle); at -5 it took 83 s.
read -r busy0 idle0 stolen0 < <(cpu_times)
rm -rf "$top/.build/check-phases"
mkdir -p "$top/.build/check-phases"
rm -f "$top/.build/check-riscv.status"
riscv=${CHECK_RISCV:-1}
bench_pid=
if ((riscv && alongside)); then
	riscv_bench "$(((EUID == 0) * 10))" &
	bench_pid=$!
fi
if (($#)) && ! "$@"; then
	if [[ -n $bench_pid ]]; then
		# shellcheck disable=SC2046 # a word per process
		kill $(tree_pids "$bench_pid") 2>/dev/null || true
		wait "$bench_pid" || true
	fi
	echo "check: FAILED: the builds ($*)" >&2
	exit 1
fi
[[ -z $bench_pid ]] || ((EUID)) || renice_tree -5 "$bench_pid"
make_queue
host_job &
host_pid=$!
if ((alongside)); then
	echo "### $jobs slots (x86 VM suites, the RISC-V bench) and the host tests at once," \
		"then slot $((jobs + 1))"
else
	echo "### $jobs x86 VM suites and the host tests at once (then slot $((jobs + 1)))," \
		"then the RISC-V bench"
fi
timed "VM selftests" vm_tests
((!riscv || alongside)) || riscv_bench
vm_results

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
# The CPU time of the test run: it takes at least (busy + stolen) / CPUs;
# idle CPU time is what its schedule left unused.
read -r busy1 idle1 stolen1 < <(cpu_times)
awk -v b=$((busy1 - busy0)) -v i=$((idle1 - idle0)) -v s=$((stolen1 - stolen0)) \
	-v hz="$(getconf CLK_TCK)" -v n="$(nproc)" 'BEGIN {
	printf "#   %-28s %7.1f s busy, %.1f s idle, %.1f s stolen (%d CPUs)\n",
		"CPU of builds and tests", b / hz, i / hz, s / hz, n
}'
if ((!riscv)); then
	echo "#   (the host tests ran during the VM selftests)"
elif ((alongside)); then
	echo "#   (the builds ran during the RISC-V bench, then the host tests and the VM"
	echo "#   selftests, which include the bench)"
else
	echo "#   (the host tests ran during the VM selftests, the RISC-V bench after them)"
fi

for p in "${problems[@]}"; do echo "check: FAILED: $p" >&2; done
result="$passed passed, $failed failed"
((skipped == 0)) || result+=", $skipped skipped"
echo "$result"
((failed == 0 && ${#problems[@]} == 0))
