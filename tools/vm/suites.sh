# shellcheck shell=bash
# suites.sh - sourced by check.sh and check-riscv.sh: deal tests out to the
# suites that run in VMs at once.

# deal N TIMES DEFAULT UNIT...: print N lines (some maybe empty), the units
# of each suite, separated by spaces. Units go longest first, each to the
# suite with the least time so far. A unit's time is its line "UNIT SECONDS"
# in the file TIMES (the last run's, if any), else the value of the
# associative array TEST_SECONDS for it, else DEFAULT.
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
	for u in $(for u in "$@"; do echo "${secs[$u]} $u"; done | sort -k1,1nr -k2 | cut -d' ' -f2); do
		best=0
		for ((i = 1; i < n; i++)); do ((load[i] < load[best])) && best=$i; done
		((load[best] += secs[$u])) || true
		suite[best]+="${suite[best]:+ }$u"
	done
	for ((i = 0; i < n; i++)); do echo "${suite[i]}"; done
}

# keep_times TIMES LOG...: the "# ===== UNIT: ... (N s[, ...])" lines of the logs
# (run_all.sh's and riscv-init's) into TIMES, for the next deal.
keep_times() {
	local times=$1
	shift
	cat "$@" 2>/dev/null | tr -d '\r' |
		sed -nE 's/^# ===== ([^ ]+): .* \(([0-9]+) s(, [^)]*)?\)$/\1 \2/p' >"$times.new"
	if [[ -s $times.new ]]; then mv "$times.new" "$times"; else rm -f "$times.new"; fi
}
