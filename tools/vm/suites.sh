# shellcheck shell=bash
# suites.sh - sourced by check.sh, check-riscv.sh and run-vm.sh: deal tests
# out to the suites that run in VMs at once, or hand them out from a queue.

# unit_times TIMES DEFAULT UNIT...: "UNIT COST WALL" for each UNIT, in
# their order: its line in the file TIMES (the last run's, if any: see
# keep_times), else COST from the associative array TEST_SECONDS, else
# DEFAULT; WALL 0 where it is not known.
unit_times() {
	local times=$1 def=$2 u s w
	local -A line=()
	shift 2
	for u in "$@"; do line[$u]="${TEST_SECONDS[$u]:-$def} 0"; done
	if [[ -f $times ]]; then
		while read -r u s w; do
			[[ -z ${line[$u]:-} ]] || line[$u]="$s ${w:-0}"
		done <"$times"
	fi
	for u in "$@"; do echo "$u ${line[$u]}"; done
}

# deal N TIMES DEFAULT UNIT...: print N lines (some maybe empty), the units
# of each suite, separated by spaces. Units go costliest first, each to the
# suite with the least cost so far, its COST of unit_times.
# Each suite then runs its units in the order of their share of CPU time,
# COST / WALL, the one that sleeps the most first: the slots' CPU-bound
# units run last, together, and keep both CPUs busy to the end, while a
# unit that mostly sleeps leaves its CPU to the others in the crowded first
# part of the run (as the tail of the run, the sleepers left a CPU idle
# for a minute). Units without WALL count as CPU-bound, in dealt order.
deal() {
	local n=$1 times=$2 def=$3 u i best s w
	local -A secs=() share=()
	local -a load=() suite=()
	shift 3
	while read -r u s w; do
		secs[$u]=$s share[$u]=1000
		if ((w > 0 && s < w)); then share[$u]=$((s * 1000 / w)); fi
	done < <(unit_times "$times" "$def" "$@")
	for ((i = 0; i < n; i++)); do load[i]=0 suite[i]=; done
	for u in $(for v in "$@"; do echo "${secs[$v]} $v"; done | sort -k1,1nr -k2 | cut -d' ' -f2); do
		best=0
		for ((i = 1; i < n; i++)); do ((load[i] < load[best])) && best=$i; done
		((load[best] += secs[$u])) || true
		suite[best]+="${suite[best]:+ }$u"
	done
	for ((i = 0; i < n; i++)); do
		for u in ${suite[i]}; do echo "${share[$u]} $u"; done |
			sort -s -k1,1n | cut -d' ' -f2 | paste -sd' ' -
		[[ -n ${suite[i]} ]] || echo
	done
}

# keep_times TIMES LOG...: from the "# ===== UNIT: ... (N s[, busy B s])"
# lines of the logs (run_all.sh's and riscv-init's), each unit's cost and
# wall time into TIMES for the next deal ("UNIT COST N"). The cost is the
# CPU time it needs, B (the seconds the guest's CPUs were busy), but at most
# N, as a VM's one TCG thread cannot be busy longer than the wall time (two
# busy vCPUs count twice in B); N without B. The run is bound by CPU:
# suites of equal CPU time end together, while a test that mostly sleeps
# (reliability/stress_test) leaves the CPU to the other suites and costs its
# suite little.
keep_times() {
	local times=$1
	shift
	cat "$@" 2>/dev/null | tr -d '\r' |
		sed -nE 's/^# ===== ([^ ]+): .* \(([0-9]+) s(, busy ([0-9.]+) s)?\)$/\1 \2 \4/p' |
		awk '{ c = $2; if ($3 != "" && $3 + 0.5 < c) c = int($3 + 0.5); print $1, c, $2 }' >"$times.new"
	if [[ -s $times.new ]]; then mv "$times.new" "$times"; else rm -f "$times.new"; fi
}

# dealt_all UNITS SUITE...: fail, naming them, if the suites (lines of deal,
# or the tests the VMs took from the queue) do not hold each of the UNITS
# (words) exactly once: deal runs in a process substitution, where its
# failure would go unnoticed, and tests are left in the queue if every VM
# died.
dealt_all() {
	local want got
	want=$(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort)
	shift
	got=$(printf '%s\n' "$@" | tr ' ' '\n' | sed '/^$/d' | sort)
	[[ $want == "$got" ]] && return 0
	echo "suites ($*): they do not hold the units (${want//$'\n'/ }) once each" >&2
	return 1
}

# queue_order TIMES DEFAULT UNIT...: the units, one per line, longest first
# by their WALL of unit_times (COST where WALL is not known): the order of
# the queue the x86 VMs of `make check` take their tests from, one at a
# time (serve_queue). Each VM takes the next test when its last one ends,
# so that they end within the length of the last tests, which are the
# shortest.
queue_order() {
	unit_times "$@" | awk '{ print ($3 > 0 ? $3 : $2), $1 }' | sort -k1,1nr -k2 | cut -d' ' -f2
}

# queue_pop QUEUE: print the first line of the file QUEUE and remove it,
# nothing once it is empty (under a lock: several VMs share it).
queue_pop() {
	local fd
	exec {fd}>>"$1.lock"
	flock "$fd"
	sed -n 1p "$1"
	sed -i 1d "$1"
	exec {fd}>&-
}

# serve_queue QUEUE IN OUT HANDED: for each line a guest writes to the FIFO
# OUT (the host end of its serial port, run-vm.sh --queue), the next line
# of QUEUE (queue_pop) on the FIFO IN, appended to HANDED first; an empty
# line once QUEUE is empty, which ends it. The FIFOs are opened read-write:
# the open does not wait for QEMU, and the caller stops the server when the
# VM has ended.
serve_queue() {
	local u in out
	exec {in}<>"$2" {out}<>"$3"
	while IFS= read -r _ <&"$out"; do
		u=$(queue_pop "$1")
		[[ -z $u ]] || echo "$u" >>"$4"
		printf '%s\n' "$u" >&"$in"
		[[ -n $u ]] || break
	done
	exec {in}>&- {out}>&-
}
