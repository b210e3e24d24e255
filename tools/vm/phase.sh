#!/bin/bash
# phase.sh NAME CMD [ARG...] - run CMD, print how long it took and, if
# $PHASE_TIMES names a file, add "NAME SECONDS" to it (`make check` prints
# them all at the end: tools/vm/check.sh). Passes CMD's exit status on.
set -uo pipefail
name=$1
shift
t0=${EPOCHREALTIME/,/.}
"$@"
rc=$?
secs=$(awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f", b - a }')
echo "### phase $name: $secs s${rc:+$( ((rc)) && echo " (failed, status $rc)")}" >&2
if [[ -n ${PHASE_TIMES:-} ]]; then
	mkdir -p "$(dirname "$PHASE_TIMES")"
	echo "$name $secs" >>"$PHASE_TIMES"
fi
exit "$rc"
