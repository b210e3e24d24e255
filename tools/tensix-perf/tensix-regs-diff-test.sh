#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host test of tensix-regs-diff: small vendor-style headers (one equal to a
# small tensix_regs.h-style table, one with a counter moved, added, removed
# and renamed) must give exactly the expected reports and exit codes, and
# the real include/socpmu/tensix_regs.h must list the counts and selects
# that the RTL-checked maps give (../shared facts: WH 130, BH 165).
set -u
DIR=$(cd "$(dirname "$0")" && pwd)
DIFF="$DIR/tensix-regs-diff"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) $1"; }
nok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) $1"; }

# expect NAME STATUS EXPECTED-FILE -- command...: exact stdout and exit status
expect() {
	name=$1 want_rc=$2 want=$3
	shift 4
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq "$want_rc" ] && cmp -s "$want" "$T/out"; then
		ok "$name"
	else
		nok "$name (exit $rc, want $want_rc)"
		diff -u "$want" "$T/out" | sed 's/^/# /'
		sed 's/^/# stderr: /' "$T/err"
	fi
}

cat >"$T/ours.h" <<'H'
#define TENSIX_ARCH_WH 0x1
#define TENSIX_ARCH_BH 0x2
#define TENSIX_ARCH_BOTH 0x3
#define PAIR(X, n, id, a) \
	X(n##_0, INSTRN_THREAD, (id), 0, a) \
	X(n##_1, INSTRN_THREAD, (id) + 1, 0, a)
#define TENSIX_EVENTS(X) \
	PAIR(X, thread_stalls, 24, TENSIX_ARCH_BOTH) \
	X(fpu_counter, FPU, 0, 0, TENSIX_ARCH_BOTH) \
	X(math_fidelity_stall, TDMA_UNPACK, 2, 0, TENSIX_ARCH_WH) \
	X(srca_write_actual, TDMA_UNPACK, 262, 0, TENSIX_ARCH_BOTH) \
	X(l1_0_unified_packer, L1, 1, 0, TENSIX_ARCH_BH) \
	X(l1_2_port_0_grant, L1, 256 + (0), 2, TENSIX_ARCH_BH)
H

# The Blackhole tables of ours.h, as tt-metal's hw_counters.h writes them
cat >"$T/equal.h" <<'H'
// Blackhole-specific perf counter arrays. {PerfCounterType::NOT_AN_ENTRY, 9}
constexpr std::array<std::pair<PerfCounterType, uint16_t>, 2> instrn_counters = {
    {{PerfCounterType::THREAD_STALLS_0, 24}, {PerfCounterType::THREAD_STALLS_1, 25}}};
constexpr size_t NUM_INSTRN_COUNTERS = 2;
/* {PerfCounterType::NOR_THIS, 10} */
constexpr std::array<std::pair<PerfCounterType, uint16_t>, 1> fpu_counters = {
    {{PerfCounterType::FPU_COUNTER, 0}}};
constexpr std::array<std::pair<PerfCounterType, uint16_t>, 1> unpack_counters = {
    {{PerfCounterType::SRCA_WRITE_ACTUAL, 262}}};
constexpr std::array<Entry, 1> l1_0_counters LLK_PERF_TABLE_SECTION = {
    {{PerfCounterType::L1_0_UNIFIED_PACKER, 1}}};
constexpr std::array<Entry, 1> l1_2_counters LLK_PERF_TABLE_SECTION = {
    {{PerfCounterType::L1_2_PORT_0_GRANT, 256}}};
H

# One counter moved, one renamed, one removed, one added
sed -e 's/SRCA_WRITE_ACTUAL, 262/SRCA_WRITE_ACTUAL, 261/' \
    -e 's/L1_0_UNIFIED_PACKER/L1_0_UNPACKER_1_ECC/' \
    -e 's/l1_2_counters/l1_5_counters/' \
    -e 's/L1_2_PORT_0_GRANT, 256/L1_5_UNPACKER0_EXT_IF_6, 0/' "$T/equal.h" >"$T/changed.h"

cat >"$T/want-equal" <<'W'
# blackhole: ours 6 counters, equal.h 6
equal
W
cat >"$T/want-changed" <<'W'
# blackhole: ours 6 counters, changed.h 6
added   l1_5_unpacker0_ext_if_6: l1.5/0
moved   srca_write_actual: tdma_unpack/262 -> tdma_unpack/261
removed l1_2_port_0_grant: l1.2/256
renamed l1_0_unified_packer -> l1_0_unpacker_1_ecc: l1.0/1
4 differences
W
cat >"$T/want-wh-list" <<'W'
thread_stalls_0 instrn_thread/24
thread_stalls_1 instrn_thread/25
fpu_counter fpu/0
math_fidelity_stall tdma_unpack/2
srca_write_actual tdma_unpack/262
W
# Against Wormhole the same vendor header lacks math_fidelity_stall and
# has Blackhole's L1 ports
cat >"$T/want-wh-equal" <<'W'
# wormhole: ours 5 counters, equal.h 6
added   l1_0_unified_packer: l1.0/1
added   l1_2_port_0_grant: l1.2/256
removed math_fidelity_stall: tdma_unpack/2
3 differences
W
: >"$T/empty"
echo 'int x;' >"$T/none.h"

cd "$T" || exit 1
expect "equal vendor header" 0 want-equal -- "$DIFF" --ours ours.h --arch bh equal.h
expect "moved/added/removed/renamed" 1 want-changed -- "$DIFF" --ours ours.h --arch blackhole changed.h
expect "wormhole list" 0 want-wh-list -- "$DIFF" --ours ours.h --arch wh --list
expect "wormhole against a blackhole header" 1 want-wh-equal -- "$DIFF" --ours ours.h --arch wormhole equal.h
expect "no table in the vendor header" 2 empty -- "$DIFF" --ours ours.h --arch bh none.h
expect "unknown arch" 2 empty -- "$DIFF" --ours ours.h --arch quasar equal.h

# The real table: counts and a few selects of the RTL-checked maps
"$DIFF" --arch wormhole --list >wh.list && "$DIFF" --arch blackhole --list >bh.list
n_wh=$(wc -l <wh.list) n_bh=$(wc -l <bh.list)
if [ "$n_wh" -eq 130 ] && [ "$n_bh" -eq 165 ]; then ok "tensix_regs.h: 130 + 165 counters"
else nok "tensix_regs.h: $n_wh + $n_bh counters, want 130 + 165"; fi
if grep -qx 'waiting_for_math_idle_1 instrn_thread/51' wh.list &&
   grep -qx 'waiting_for_math_idle_0 instrn_thread/34' bh.list &&
   grep -qx 'thread_instructions_1 instrn_thread/264' bh.list &&
   grep -qx 'l1_4_misc_port_7_grant l1.4/263' bh.list &&
   ! grep -q '^math_fidelity_stall ' bh.list; then ok "tensix_regs.h: selects per arch"
else nok "tensix_regs.h: selects per arch"; fi

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
