#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# suites_test.sh - how `make check` deals its tests out to the VM slots
# and hands them to the VMs (suites.sh), on made-up costs and made-up
# guests (kselftest TAP, no VM booted). Every case runs under check.sh's
# `set -euo pipefail`:
#  1 keep_times        run_all.sh's "(N s, busy B s)" lines become "UNIT
#                      COST N", COST = B rounded, at most N; N alone without B
#  2 deal_balance      costliest first, each to the slot with the least cost
#                      so far; costs from TIMES, else TEST_SECONDS, else the
#                      default
#  3 deal_order        in each slot, the unit that sleeps the most (least
#                      COST / N) first, the CPU-bound ones last; units
#                      without N last, in dealt order
#  4 dealt_all         a deal that lost or doubled a unit is refused
#  5 queue_order       longest first by WALL, else COST, else TEST_SECONDS,
#                      else the default; ties by name
#  6 serve_queue       two servers (one per VM) share one queue: each
#                      request gets the next unit, every unit goes to
#                      exactly one guest and into that server's HANDED, and
#                      each guest gets an empty line at the end
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tools/vm/tap.sh
. "$here/tap.sh"

# shellcheck source=tools/vm/suites.sh
. "$here/suites.sh"
declare -A TEST_SECONDS=([g/known]=7)

tap_plan 6

# same WHAT GOT WANT: 0 if equal, else the difference as diagnostics
same() {
	[[ $2 == "$3" ]] && return 0
	printf '%s:\ngot:\n%s\nwant:\n%s\n' "$1" "$2" "$3" | diag
	return 1
}

# 1
st=0
cat >"$tmp/log" <<'EOF'
# ===== a/sleepy: 7 passed, 0 failed, 0 skipped (42 s, busy 21.4 s)
# ===== b/busy: 25 passed, 0 failed, 0 skipped (54 s, busy 64.4 s)
# ===== c/old: 3 passed, 0 failed, 0 skipped (5 s)
# ===== d/running
ok 1 not a summary (9 s, busy 1.0 s)
EOF
printf '# ===== e/crlf: 1 passed, 0 failed, 0 skipped (2 s, busy 1.5 s)\r\n' >>"$tmp/log"
keep_times "$tmp/times" "$tmp/log"
same keep_times "$(cat "$tmp/times")" "a/sleepy 21 42
b/busy 54 54
c/old 5 5
e/crlf 2 2" || st=1
# no summary line at all: the last times are kept
echo "# ===== x/y" >"$tmp/empty"
keep_times "$tmp/times" "$tmp/empty"
[[ $(wc -l <"$tmp/times") == 4 ]] || { echo "times lost" | diag; st=1; }
result keep_times $st

# 2: loads 50 | 40+7 | 30+20 (known from TEST_SECONDS, new/one the default)
st=0
printf '%s\n' "g/a 50" "g/b 40" "g/c 30" >"$tmp/t2"
got=$(deal 3 "$tmp/t2" 20 g/a g/b g/c g/known new/one)
same deal_balance "$got" "g/a
g/b g/known
g/c new/one" || st=1
# no TIMES file: TEST_SECONDS and the default alone
got=$(deal 2 "$tmp/none" 20 g/known new/one g/a)
same deal_balance_defaults "$got" "g/a g/known
new/one" || st=1
result deal_balance $st

# 3
st=0
printf '%s\n' "s/cpu 40 40" "s/half 20 40" "s/sleeper 5 50" "s/nowall 30" "s/mostly 18 20" >"$tmp/t3"
got=$(deal 1 "$tmp/t3" 10 s/cpu s/half s/sleeper s/nowall s/mostly)
same deal_order "$got" "s/sleeper s/half s/mostly s/cpu s/nowall" || st=1
result deal_order $st

# 4
st=0
dealt_all "a b c" "a c" "b" 2>/dev/null || { echo "a right deal refused" | diag; st=1; }
dealt_all "a b c" "a c" "" "b" 2>/dev/null || { echo "an empty slot refused" | diag; st=1; }
! dealt_all "a b c" "a c" 2>"$tmp/err" || { echo "a lost unit accepted" | diag; st=1; }
grep -q "a b c" "$tmp/err" || { echo "the error does not name the units" | diag; st=1; }
! dealt_all "a b" "a b" "b" 2>/dev/null || { echo "a doubled unit accepted" | diag; st=1; }
result dealt_all $st

# 5
st=0
printf '%s\n' "q/cpu 40 40" "q/sleeper 5 50" "q/nowall 30" "q/b 20 20" "q/a 20 20" >"$tmp/t5"
got=$(queue_order "$tmp/t5" 10 q/a q/b q/cpu q/sleeper q/nowall g/known new/one)
same queue_order "$got" "q/sleeper
q/cpu
q/nowall
q/a
q/b
new/one
g/known" || st=1
result queue_order $st

# 6: guest G asks through the FIFOs of server G and reads one line back
st=0
printf '%s\n' u/1 u/2 u/3 u/4 u/5 >"$tmp/q6"
pids=()
for g in 1 2; do
	mkfifo "$tmp/in$g" "$tmp/out$g"
	serve_queue "$tmp/q6" "$tmp/in$g" "$tmp/out$g" "$tmp/handed$g" &
	pids+=($!)
done
# guest G's ends: fds 5 and 6 for guest 1, 7 and 8 for guest 2
exec 5<>"$tmp/in1" 6<>"$tmp/out1" 7<>"$tmp/in2" 8<>"$tmp/out2"
# ask G: what guest G is given
ask() {
	local u in=$((3 + 2 * $1)) out=$((4 + 2 * $1))
	echo next >&"$out"
	IFS= read -r -t 10 u <&"$in" || u=TIMEOUT
	echo "$u"
}
got=
for g in 1 2 2 1 1 2; do got+="$g:$(ask $g) "; done
same serve_queue "$got" "1:u/1 2:u/2 2:u/3 1:u/4 1:u/5 2: " || st=1
# ended PID: 0 once the server PID has ended with status 0, within 10 s
ended() {
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.1
	done
	kill "$1"
	return 1
}
# the guest that got the empty line is done: its server has ended
ended "${pids[1]}" || { echo "server 2 did not end with status 0" | diag; st=1; }
[[ $(ask 1) == "" ]] || st=1
ended "${pids[0]}" || { echo "server 1 did not end with status 0" | diag; st=1; }
same handed1 "$(paste -sd' ' "$tmp/handed1")" "u/1 u/4 u/5" || st=1
same handed2 "$(paste -sd' ' "$tmp/handed2")" "u/2 u/3" || st=1
[[ ! -s $tmp/q6 ]] || { echo "units left in the queue" | diag; st=1; }
result serve_queue $st

tap_totals
