#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# pmu_events_test.sh - perf's own events and metrics for the socpmu PMUs
# (perf patch 0008: pmu-events JSON matched by the PMU's identifier).
#
# Run as root inside the VM with the socpmu modules and socpmu_sim loaded,
# with the project's perf (tools/perf/build.sh) as $PERF or perf in $PATH.
# Creates simulated devices, checks that perf list describes their events,
# then injects exact counts and cycles through the simulator's debugfs from
# inside the command perf stat -M measures, and checks each metric against
# its closed form: plain output, --metric-only, -I, a Blackhole select and
# the .unit of the reference-cycle events; and perf's metrics of the
# simulator's free-running workload on a card whose accesses are slow.
# Output: kselftest TAP ending with "# Totals:". Exit: 0 pass, 1 fail, 4 skip.
# shellcheck disable=SC2317 # functions are called indirectly (trap)

SIM=/sys/devices/socpmu_sim
BUS=/sys/bus/event_source/devices
DEBUGFS=/sys/kernel/debug
SIMDBG=$DEBUGFS/socpmu_sim
TAP_LABEL=pmu_events
NTESTS=15

TMP=${TMPDIR:-/tmp}/pmu_events_test.$$
created=""
. "$(dirname "$0")/../lib/tap.shlib"

cleanup() {
	del_created
	rm -rf "$TMP"
}

tap_begin_sim perf
[ -d "$SIMDBG" ] || mount -t debugfs none "$DEBUGFS" 2>/dev/null
[ -d "$SIMDBG" ] || skip_all "no simulator debugfs ($SIMDBG)"
diag "using $PERF ($("$PERF" version 2>&1))"

trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM
mkdir -p "$TMP" || skip_all "cannot create $TMP"

# pmu_ids, new_device NAME PREFIX SPEC (sets NEWPMU)
. "$(dirname "$0")/../lib/sim_device.shlib"

del_device() {
	echo "$1" > "$SIM/del_device" 2>/dev/null
	created=$(echo "$created" | sed "s/ $1\b//")
}

# metric_value FILE NAME: the number printed with metric NAME (plain output)
metric_value() {
	awk -v m="$2" '{
		for (i = 2; i <= NF; i++)
			if ($i == m && ($(i - 1) == "%" || $(i - 1) ~ /^[0-9.e+-]+$/)) {
				v = ($(i - 1) == "%") ? $(i - 2) : $(i - 1); print v; exit
			}
	}' "$1"
}

# near A B: A and B agree to 0.1 % (perf prints metrics with a few digits)
near() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
		exit !(a != "" && d <= 0.001 * m + 0.0051)
	}'
}

# near_printed A B: A, as perf printed it, is B to 0.1 % plus half a unit of
# A's last digit
near_printed() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		u = 0.5; d = index(a, ".") ? length(a) - index(a, ".") : 0
		while (d-- > 0) u /= 10	# (busybox awk has no ^)
		e = a - b; if (e < 0) e = -e; m = b < 0 ? -b : b
		exit !(a != "" && e <= 0.001 * m + u)
	}'
}

# check_metrics NAME FILE CMP RC "METRIC WANT"...: the test NAME passes when
# perf exited with RC 0 and CMP (near or near_printed) accepts the value it
# printed in FILE for each METRIC against WANT
check_metrics() {
	name=$1 file=$2 cmp=$3 rc=$4 bad=""
	shift 4
	for pair in "$@"; do
		# shellcheck disable=SC2086 # two words
		set -- $pair
		got=$(metric_value "$file" "$1")
		"$cmp" "$got" "$2" || bad="$bad $1=$got(want $2)"
	done
	if [ "$rc" -eq 0 ] && [ -z "$bad" ]; then
		ok "$name"
	else
		diag "rc $rc, wrong:$bad"
		show "$file" 30
		not_ok "$name"
	fi
}

# ---- 1-4: perf list describes the events of every PMU ----

new_device pe_wh tensix_ "tensix name=pe_wh cores=1 arch=wormhole" || skip_all "cannot create a Tensix device"
WH=$NEWPMU
diag "wormhole: $WH ($(cat "$BUS/$WH/identifier"))"

"$PERF" list pmu > "$TMP/list" 2>&1
# The events perf list describes: "  name" followed by "       [description"
awk 'prev != "" && /^ +\[/ { print prev } { prev = ($0 ~ /^  [a-z0-9_]+$/) ? $1 : "" }' \
	"$TMP/list" | sort -u > "$TMP/described"
nev=0 nodesc=0
for e in "$BUS/$WH"/events/*; do
	name=${e##*/}
	case $name in *.*) continue ;; esac
	nev=$((nev + 1))
	if ! grep -qx "$name" "$TMP/described"; then
		nodesc=$((nodesc + 1))
		[ $nodesc -le 3 ] && diag "no description for $WH/$name"
	fi
done
if grep -q "FPU instructions executed" "$TMP/list" && [ "$nev" -gt 100 ] && [ $nodesc -eq 0 ]; then
	ok "perf list describes all $nev events of $WH (wormhole)"
else
	diag "$nev events, $nodesc without a description"
	show "$TMP/list" 20
	not_ok "perf list describes all events of $WH (wormhole)"
fi

if new_device pe_esp esp_ "esp name=pe_esp rows=1 cols=3 tiles=cpu,mem,acc"; then
	ESP=$NEWPMU
	"$PERF" list pmu > "$TMP/list" 2>&1
	if grep -q "Last-level cache misses" "$TMP/list" &&
	   grep -q "Cycles the north queue of NoC plane 5 is full" "$TMP/list"; then
		ok "perf list describes the events of $ESP"
	else
		show "$TMP/list" 20
		not_ok "perf list describes the events of $ESP"
	fi
else
	ESP=""
	not_ok "perf list describes the events of esp (no device)"
fi

if new_device pe_pulp pulp_ "pulp name=pe_pulp cores=2"; then
	"$PERF" list pmu > "$TMP/list" 2>&1
	if grep -q "Cycles lost to TCDM contention" "$TMP/list"; then
		ok "perf list describes the events of $NEWPMU"
	else
		show "$TMP/list" 20
		not_ok "perf list describes the events of $NEWPMU"
	fi
	del_device pe_pulp
else
	not_ok "perf list describes the events of pulp (no device)"
fi

if [ -e "$BUS/sifive_hpm" ] || new_device pe_hpm sifive_hpm "hpm name=pe_hpm counters=8"; then
	"$PERF" list pmu > "$TMP/list" 2>&1
	if grep -q "Branch direction misprediction" "$TMP/list" &&
	   grep -q "Ticks of the time CSR" "$TMP/list"; then
		ok "perf list describes the events of sifive_hpm (no cpumask)"
	else
		show "$TMP/list" 20
		not_ok "perf list describes the events of sifive_hpm (no cpumask)"
	fi
else
	not_ok "perf list describes the events of sifive_hpm (no device)"
fi

# ---- 5: perf list shows the metrics ----

"$PERF" list metric > "$TMP/mlist" 2>&1
if grep -q "fpu_utilization" "$TMP/mlist" && grep -q "srcb_valid_wait" "$TMP/mlist" &&
   grep -q "esp_llc_miss_rate" "$TMP/mlist"; then
	ok "perf list metric shows the Tensix and ESP metrics"
else
	show "$TMP/mlist" 20
	not_ok "perf list metric shows the Tensix and ESP metrics"
fi

# ---- 6-9: perf stat -M on exact counts (one core, so no other core adds) ----

D=$SIMDBG/pe_wh
CYC=1000 FPU=800 FAV1=500 PB=300 ST0=100 ST1=200 ST2=600
cat > "$TMP/inject.sh" <<EOF
echo '0 fpu 0 $FPU' > $D/inject || exit 9
echo '0 instrn_thread 16 $FAV1' > $D/inject || exit 9
echo '0 tdma_pack 18 $PB' > $D/inject || exit 9
echo '0 instrn_thread 24 $ST0' > $D/inject || exit 9
echo '0 instrn_thread 25 $ST1' > $D/inject || exit 9
echo '0 instrn_thread 26 $ST2' > $D/inject || exit 9
echo '0 $CYC' > $D/advance || exit 9
exit 0
EOF

M=fpu_utilization,fpu_efficiency,pack_utilization,thread_stall_rate
"$PERF" stat -M "$M" -a -- sh "$TMP/inject.sh" > "$TMP/stat" 2>&1
check_metrics "perf stat -M: 4 Tensix metrics equal their closed form" "$TMP/stat" near $? \
	"fpu_utilization $(awk -v a=$FPU -v c=$CYC 'BEGIN { print 100 * a / c }')" \
	"fpu_efficiency $(awk -v a=$FPU -v b=$FAV1 'BEGIN { print a / b }')" \
	"pack_utilization $(awk -v a=$PB -v c=$CYC 'BEGIN { print 100 * a / c }')" \
	"thread_stall_rate $(awk -v a=$((ST0 + ST1 + ST2)) -v c=$CYC 'BEGIN { print 100 * a / 3 / c }')"

# fpu_efficiency is a cross-bank metric: each count is a rate per cycle of
# its own bank, so both banks' reference-cycle events are counted with it.
# (The simulator advances every bank of a core alike, so the value above
# does not tell the rates from the plain ratio; the expression is checked
# here by its inputs.)
if grep -q "fpu_cycles" "$TMP/stat" && grep -q "instrn_thread_cycles" "$TMP/stat"; then
	ok "cross-bank metric fpu_efficiency counts both banks' cycles"
else
	show "$TMP/stat" 30
	not_ok "cross-bank metric fpu_efficiency counts both banks' cycles"
fi

"$PERF" stat -M fpu_utilization,pack_utilization --metric-only -a -- sh "$TMP/inject.sh" \
	> "$TMP/mo" 2>&1
rc=$?
# --metric-only: a header with the metric names, a line with the values
# (in an order of perf's choosing: match them by column)
vals=$(awk '/fpu_utilization/ {
		h = $0; gsub(/%/, "", h); nh = split(h, names, " +")
		getline; nv = split($0, v, " +"); j = 0
		for (i = 1; i <= nh; i++) if (names[i] != "") order[++j] = names[i]
		j = 0
		for (i = 1; i <= nv; i++) if (v[i] != "") val[order[++j]] = v[i]
		print val["fpu_utilization"], val["pack_utilization"]; exit
	}' "$TMP/mo")
set -- $vals
if [ $rc -eq 0 ] && near "${1:-}" 80 && near "${2:-}" 30; then
	ok "perf stat --metric-only prints the metric values ($1 $2)"
else
	diag "rc $rc, values '$vals'"
	show "$TMP/mo" 20
	not_ok "perf stat --metric-only prints the metric values"
fi

# -I: the injection in the middle of the second interval (0.3-0.6 s: both
# writes 150 ms from its ends; at 0.6 s they could straddle the boundary);
# that interval has the value
cat > "$TMP/inject_i.sh" <<EOF
sleep 0.45
echo '0 fpu 0 250' > $D/inject || exit 9
echo '0 1000' > $D/advance || exit 9
sleep 0.75
exit 0
EOF
"$PERF" stat -I 300 -M fpu_utilization -a -- sh "$TMP/inject_i.sh" > "$TMP/int" 2>&1
rc=$?
nint=$(grep -c "fpu_utilization" "$TMP/int")
hit=$(awk '/fpu_utilization/ { for (i = 2; i <= NF; i++) if ($i == "%" && $(i - 1) + 0 > 24.9 && $(i - 1) + 0 < 25.1) { print; exit } }' "$TMP/int")
if [ $rc -eq 0 ] && [ "$nint" -ge 2 ] && [ -n "$hit" ]; then
	ok "perf stat -I -M: $nint intervals, the injected one at 25 %"
else
	diag "rc $rc, $nint intervals with the metric"
	show "$TMP/int" 30
	not_ok "perf stat -I -M: an interval per period, the injected one at 25 %"
fi

# ---- 10-11: .unit of the reference-cycle events (sysfs and perf stat) ----

if [ "$(cat "$BUS/$WH/events/fpu_cycles.unit" 2>/dev/null)" = cycles ] &&
   [ ! -e "$BUS/$WH/events/fpu_cycles.scale" ]; then
	ok "$WH/events/fpu_cycles.unit = cycles (no scale)"
else
	ls "$BUS/$WH/events" | grep '\.' | sed 's/^/#   /'
	not_ok "$WH/events/fpu_cycles.unit = cycles (no scale)"
fi
"$PERF" stat -a -e "$WH/fpu_cycles/" -- sh "$TMP/inject.sh" > "$TMP/unit" 2>&1
if awk -v e="$WH/fpu_cycles/" '$3 == e && $2 == "cycles" && $1 ~ /^1[,.]?000$/ { f = 1 } END { exit !f }' "$TMP/unit"; then
	ok "perf stat shows $WH/fpu_cycles/ in cycles"
else
	show "$TMP/unit" 12
	not_ok "perf stat shows $WH/fpu_cycles/ in cycles"
fi

# ---- 12-13: Blackhole: its own selects, its own metric table ----

del_device pe_wh
if new_device pe_bh tensix_ "tensix name=pe_bh cores=1 arch=blackhole"; then
	BH=$NEWPMU
	D=$SIMDBG/pe_bh
	# waiting_for_srcb_valid: INSTRN_THREAD select 30 on Blackhole (36 on Wormhole)
	cat > "$TMP/inject_bh.sh" <<EOF
echo '0 instrn_thread 30 400' > $D/inject || exit 9
echo '0 l1 17 300' > $D/inject || exit 9
echo '0 2000' > $D/advance || exit 9
exit 0
EOF
	"$PERF" stat -M srcb_valid_wait -a -- sh "$TMP/inject_bh.sh" > "$TMP/bh" 2>&1
	got=$(metric_value "$TMP/bh" srcb_valid_wait)
	if near "$got" 20; then
		ok "blackhole: srcb_valid_wait at its select ($got %)"
	else
		show "$TMP/bh" 20
		not_ok "blackhole: srcb_valid_wait at its select (got '$got', want 20)"
	fi
	# -v: without it perf list shows one PMU of a kind (tensix_0 may be a Wormhole)
	"$PERF" list -v pmu 2>&1 | tr -s ' \n' '  ' > "$TMP/list"
	if grep -q "l1_2_noc_ring2_port_1 " "$TMP/list" &&
	   grep -q "L1 requests of port 17 (mux group 2)" "$TMP/list"; then
		ok "blackhole: perf list describes its L1 groups 2-4"
	else
		show "$TMP/list" 20
		not_ok "blackhole: perf list describes its L1 groups 2-4"
	fi
else
	not_ok "blackhole: srcb_valid_wait (no device)"
	not_ok "blackhole: perf list describes its L1 groups 2-4 (no device)"
fi

# ---- 14: an ESP metric ----

if [ -n "$ESP" ]; then
	D=$SIMDBG/pe_esp
	cat > "$TMP/inject_esp.sh" <<EOF
echo '1 llc_hit 300' > $D/inject || exit 9
echo '1 llc_miss 100' > $D/inject || exit 9
exit 0
EOF
	"$PERF" stat -M esp_llc_miss_rate -a -- sh "$TMP/inject_esp.sh" > "$TMP/esp" 2>&1
	got=$(metric_value "$TMP/esp" esp_llc_miss_rate)
	if near "$got" 25; then
		ok "esp_llc_miss_rate = llc_miss / (llc_hit + llc_miss) ($got %)"
	else
		show "$TMP/esp" 20
		not_ok "esp_llc_miss_rate (got '$got', want 25)"
	fi
else
	not_ok "esp_llc_miss_rate (no device)"
fi

# ---- 15: perf's own metrics of a free-running workload, on a card ----

# perf stat -M groups each metric's events; a Wormhole card (80 tiles, each
# a NOC window programming away) plays the matmul workload with every
# window programming stalled by 50 us, so that one pass over the tiles
# takes milliseconds. A group's members must still count the same cycles
# of each bank on every tile (tensix-pmu.rst, "Groups"): the metrics are
# their closed forms (rates per cycle: fpu 0.8, fpu_instrn_available_1
# 0.84, packer_busy 0.4, thread stalls 0.18, 0.2 and 0.2).
[ -z "${BH:-}" ] || del_device pe_bh
if new_device pe_card tensix_ "ttcard name=pe_card arch=wormhole"; then
	D=$SIMDBG/pe_card
	rc=1
	if echo "matmul fpu=80 unpack=60 pack=40" > "$D/workload" &&
	   echo 50000 > "$D/cfg_delay_ns"; then
		"$PERF" stat -M "$M" -a -- sleep 0.3 > "$TMP/card" 2>&1
		rc=$?
	fi
	echo 0 > "$D/cfg_delay_ns"
	echo off > "$D/workload"
	check_metrics "perf stat -M on a card with slow windows: 4 metrics equal their closed form" \
		"$TMP/card" near_printed $rc "fpu_utilization 80" \
		"fpu_efficiency $(awk 'BEGIN { print 0.8 / 0.84 }')" "pack_utilization 40" \
		"thread_stall_rate $(awk 'BEGIN { print 100 * 0.58 / 3 }')"
	del_device pe_card
else
	not_ok "perf stat -M on a card (no device)"
fi

totals
[ $nfail -eq 0 ]
