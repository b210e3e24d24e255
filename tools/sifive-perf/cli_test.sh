#!/bin/bash
# cli_test.sh OUT - host tests of the sifive-perf command line (no PMU
# needed): what `record` does when it cannot set up or cannot replace an
# old trace file, and the man page against --help. kselftest TAP output.
set -uo pipefail
out=$(cd "${1:?}" && pwd)
tool=$out/sifive-perf
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
man=$here/sifive-perf.1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# shellcheck source=tools/vm/tap.sh
. "$here/../vm/tap.sh"
# check NAME COND FILES...: COND is a shell expression
check() { local name=$1 cond=$2; shift 2; if eval "$cond"; then ok "$name"; else not_ok "$name" "$@"; fi; }

tap_plan 3

# 1: an old trace file that cannot be removed is not reported as the new one
mkdir -p old.rtd/x
"$tool" record -o old.rtd -- true >o 2>e
rc=$?
check "record: an output that cannot be removed is an error, not the trace" \
	'[[ $rc != 0 ]] && grep -q "cannot remove the old old.rtd" e && ! grep -q "bytes" e' e

# 2: the issue's case: a user who cannot remove a trace.rtd left by root in
# a sticky directory, on a system where the set-up fails
if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null; then
	skip_test "record: stale trace.rtd of another user" "needs root and setpriv"
else
	chmod 755 "$work"	# nobody must reach the directory
	mkdir -m 1777 sticky
	head -c 3729 /dev/zero >sticky/trace.rtd
	(cd sticky && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$tool" record -- true) >o 2>e
	rc=$?
	check "record: stale trace.rtd of another user is not reported as new" \
		'[[ $rc != 0 ]] && grep -q "cannot remove the old trace.rtd" e && ! grep -q "3729 bytes" e' e
fi

# 3: the man page documents every option of record's and decode's --help
{ "$tool" record --help; "$tool" decode --help; } >help 2>&1
missing=
for o in $(grep -oE '(^|[ ,[])--?[a-z][a-z-]*' help | sed 's/^[ ,[]//' | grep -v '^-f' | sort -u); do
	grep -qF -- "${o//-/\\-}" "$man" || missing+=" $o"
done
if [[ -f $man && -z $missing ]]; then
	ok "sifive-perf.1 documents every option of --help"
else
	not_ok "sifive-perf.1 documents every option of --help (missing:${missing:- the page})"
fi

tap_totals
