# shellcheck shell=bash
# suites.sh - sourced by check.sh and check-riscv.sh: deal tests out to the
# suites that run in VMs at once.

# deal N TIMES DEFAULT UNIT...: print N lines (some maybe empty), the units
# of each suite, separated by spaces. Units go costliest first, each to the
# suite with the least cost so far. A unit's cost is its line "UNIT SECONDS"
# in the file TIMES (the last run's, if any: see keep_times), else the value
# of the associative array TEST_SECONDS for it, else DEFAULT.
deal() {
	local n=$1 times=$2 def=$3 u i best s
	local -A secs=()
	local -a load=() suite=()
	shift 3
	for u in "$@"; do secs[$u]=${TEST_SECONDS[$u]:-$def}; done
	if [[ -f $times ]]; then
		while read -r u s _; do
			[[ -n ${secs[$u]:-} ]] && secs[$u]=$s
		done <"$times"
	fi
	for ((i = 0; i < n; i++)); do load[i]=0 suite[i]=; done
	for u in $(for v in "$@"; do echo "${secs[$v]} $v"; done | sort -k1,1nr -k2 | cut -d' ' -f2); do
		best=0
		for ((i = 1; i < n; i++)); do ((load[i] < load[best])) && best=$i; done
		((load[best] += secs[$u])) || true
		suite[best]+="${suite[best]:+ }$u"
	done
	for ((i = 0; i < n; i++)); do echo "${suite[i]}"; done
}

# keep_times TIMES LOG...: from the "# ===== UNIT: ... (N s[, busy B s])"
# lines of the logs (run_all.sh's and riscv-init's), each unit's cost into
# TIMES for the next deal: the CPU time it needs, B (the seconds the guest's
# CPUs were busy), but at most N, as a VM's one TCG thread cannot be busy
# longer than the wall time (two busy vCPUs count twice in B); N without B.
# The run is bound by CPU: suites of equal CPU time end together, while a
# test that mostly sleeps (reliability/stress_test) leaves the CPU to the
# other suites and costs its suite little.
keep_times() {
	local times=$1
	shift
	cat "$@" 2>/dev/null | tr -d '\r' |
		sed -nE 's/^# ===== ([^ ]+): .* \(([0-9]+) s(, busy ([0-9.]+) s)?\)$/\1 \2 \4/p' |
		awk '{ c = $2; if ($3 != "" && $3 + 0.5 < c) c = int($3 + 0.5); print $1, c }' >"$times.new"
	if [[ -s $times.new ]]; then mv "$times.new" "$times"; else rm -f "$times.new"; fi
}
