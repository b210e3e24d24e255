#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# pcp_pmda_test.sh - PCP's perfevent PMDA (Debian's pcp) counts the socpmu
# PMUs through its [dynamic] section, set up as README.md's "Fleet
# monitoring" says (socpmu-pcp-setup, then pmcd), and the shipped derived
# metrics (/etc/pcp/derived/socpmu.conf) give the utilisations.
#
# Run as root inside a VM booted with tools/vm/run-vm.sh --pcp (pmcd, the
# PMDA, pminfo and pmval from the host), with the socpmu modules and
# socpmu_sim loaded. Creates a Wormhole tensix device, an ESP SoC, a PULP
# cluster and SiFive HPM harts, starts pmcd with the perfevent PMDA only,
# then:
#   1   pmcd serves perfevent.hwcounters.<pmu>.* for the four PMUs
#   2   exactly the configured events of each PMU (nothing opened that was
#       not asked for), one instance (the cpumask CPU) per device PMU
#   3-6 pminfo -f: each PMU's counters grew by exactly what was injected
#       through the simulator's debugfs (tensix, esp, pulp, hpm)
#   7   the shipped derived metrics (socpmu.<pmu>.<metric>, over the counts
#       since the PMDA opened the events: the injections) equal their
#       closed forms: fpu_utilization 80, pack_utilization 30, ...
# Output: kselftest TAP ending with "# Totals:". Exit: 0 pass, 1 fail, 4 skip.
# shellcheck disable=SC2317 # functions are called indirectly (trap)

SIM=/sys/devices/socpmu_sim
BUS=/sys/bus/event_source/devices
SIMDBG=/sys/kernel/debug/socpmu_sim
NTESTS=7
PCPBIN=/usr/lib/pcp/bin/pmcd
PMDA=/usr/lib/pcp/pmdas/perfevent/pmdaperfevent
HOST=local:

TMP=${TMPDIR:-/tmp}/pcp_pmda_test.$$
created="" pmcd_pid="" made_passwd="" made_hosts=""
. "$(dirname "$0")/../lib/tap.shlib"

cleanup() {
	[ -z "$pmcd_pid" ] || { kill "$pmcd_pid" 2>/dev/null; wait "$pmcd_pid" 2>/dev/null; }
	pmcd_pid=""
	del_created
	[ -z "$made_passwd" ] || rm -f /etc/passwd /etc/group
	[ -z "$made_hosts" ] || rm -f /etc/hosts
	[ ! -f "$TMP/conf.orig" ] || cp "$TMP/conf.orig" /etc/pcp/perfevent/perfevent.conf
	rm -rf "$TMP"
}

echo "TAP version 13"
echo "1..$NTESTS"

end_all() {	# end_all skip|not_ok WHY
	diag "$2"
	while [ $n -lt $NTESTS ]; do
		if [ "$1" = skip ]; then skip "pcp_pmda_$((n + 1))" "$2"; else not_ok "pcp_pmda_$((n + 1)): $2"; fi
	done
	totals
	[ "$1" = skip ] && exit 4
	exit 1
}

[ "$(id -u)" = 0 ] || end_all skip "must run as root"
[ -w "$SIM/new_device" ] || end_all skip "no simulator ($SIM/new_device): load socpmu_sim"
if [ ! -x "$PCPBIN" ] || [ ! -x "$PMDA" ]; then
	# run-vm.sh --pcp leaves no-pcp only where the host cannot have the package
	[ -f /etc/socpmu/no-pcp ] && end_all skip "$(cat /etc/socpmu/no-pcp)"
	end_all not_ok "no PCP in this VM: boot it with tools/vm/run-vm.sh --pcp"
fi
command -v socpmu-pcp-setup >/dev/null || end_all not_ok "no socpmu-pcp-setup (make)"

trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM
mkdir -p "$TMP" || end_all skip "cannot create $TMP"

# pmu_ids, new_device NAME PREFIX SPEC (sets NEWPMU)
. "$(dirname "$0")/../lib/sim_device.shlib"

# ---- the devices, then PCP as a user sets it up ----

new_device pp_wh tensix_ "tensix name=pp_wh cores=1 arch=wormhole" || end_all not_ok "no tensix device"
TX=$NEWPMU
new_device pp_esp esp_ "esp name=pp_esp rows=1 cols=3 tiles=cpu,mem,acc" || end_all not_ok "no esp device"
ESP=$NEWPMU
new_device pp_pulp pulp_ "pulp name=pp_pulp cores=2" || end_all not_ok "no pulp device"
PULP=$NEWPMU
if [ ! -e "$BUS/sifive_hpm" ]; then
	new_device pp_hpm sifive_hpm "hpm name=pp_hpm counters=8" || end_all not_ok "no hpm device"
	HPMDEV=pp_hpm
else
	HPMDEV=$(ls "$SIMDBG" | while read -r d; do [ -e "$SIMDBG/$d/rate" ] && echo "$d"; done | head -n 1)
fi
HPM=sifive_hpm
diag "PMUs: $TX $ESP $PULP $HPM (hpm device $HPMDEV)"

# pmcd runs as root here (no pcp user in the VM); the PMDA is a pipe child
if [ ! -f /etc/passwd ]; then
	echo "root:x:0:0:root:/root:/bin/sh" > /etc/passwd
	echo "root:x:0:" > /etc/group
	made_passwd=1
fi
# pmcd looks up its own name and localhost
if [ ! -f /etc/hosts ]; then
	echo "127.0.0.1 localhost $(hostname)" > /etc/hosts
	made_hosts=1
fi
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mkdir -p /run/pcp /var/log/pcp/pmcd /var/lib/pcp/tmp "$TMP/pcp"
cp /etc/pcp/perfevent/perfevent.conf "$TMP/conf.orig"
socpmu-pcp-setup > "$TMP/setup" 2>&1 || { show "$TMP/setup"; end_all not_ok "socpmu-pcp-setup failed"; }
diag "$(cat "$TMP/setup")"
cat > "$TMP/pcp/pmcd.conf" <<CONF
perfevent	127	pipe	binary	$PMDA -U root
[access]
allow "local:*" : all;
CONF
cat > "$TMP/pcp/root" <<ROOT
root {
	perfevent	127:*:*
}
ROOT
"$PCPBIN" -f -A -q 60 -t 60 -U root -c "$TMP/pcp/pmcd.conf" -n "$TMP/pcp/root" -l "$TMP/pcp/pmcd.log" \
	> "$TMP/pcp/pmcd.out" 2>&1 &
pmcd_pid=$!

# The PMDA opens its events when it starts: wait for its metrics
tries=0
while [ $tries -lt 120 ] && kill -0 "$pmcd_pid" 2>/dev/null; do
	pminfo -h "$HOST" perfevent.hwcounters > "$TMP/names" 2>&1 && grep -q "\.$TX\." "$TMP/names" && break
	tries=$((tries + 1))
	sleep 1
done

# ---- 1-2: the metrics ----

bad=""
for p in $TX $ESP $PULP $HPM; do
	grep -q "^perfevent\.hwcounters\.$p\.[a-z0-9_]*\.value\$" "$TMP/names" || bad="$bad $p"
done
if [ -z "$bad" ]; then
	ok "pmcd serves perfevent.hwcounters of $TX $ESP $PULP $HPM"
else
	diag "missing:$bad"
	show "$TMP/names" 10
	show "$TMP/pcp/pmcd.log" 20
	show /var/log/pcp/pmcd/perfevent.log 30
	end_all not_ok "no perfevent metrics of our PMUs"
fi

# perfevent names a metric for every event of a PMU it found; only the
# configured ones are open and have values
bad=""
conf=/usr/share/socpmu/pcp/perfevent-socpmu.conf
for p in $TX $ESP $PULP $HPM; do
	grep "^$p\." "$conf" | sed "s/^$p\.//" | sort > "$TMP/want.$p"
	pminfo -h "$HOST" -f "perfevent.hwcounters.$p" > "$TMP/all.$p" 2>&1
	awk -v p="perfevent.hwcounters.$p." '
		index($1, p) == 1 { m = substr($1, length(p) + 1); sub(/\.[a-z]*$/, "", m); next }
		/ value / && m != "" { print m; m = "" }' "$TMP/all.$p" | sort -u > "$TMP/got.$p"
	[ "$(cat "$TMP/want.$p")" = "$(cat "$TMP/got.$p")" ] ||
		bad="$bad $p: not open [$(comm -23 "$TMP/want.$p" "$TMP/got.$p" | tr '\n' ' ')] open too [$(comm -13 "$TMP/want.$p" "$TMP/got.$p" | tr '\n' ' ')]"
done
ninst=$(grep -c 'inst \[' "$TMP/all.$TX")
nconf=$(wc -l < "$TMP/want.$TX")
[ "$ninst" -ge "$nconf" ] && [ "$ninst" = "$(grep -c ' value ' "$TMP/all.$TX")" ] &&
	[ "$ninst" = "$(grep -c 'inst \[0 or "cpu0"\]' "$TMP/all.$TX")" ] ||
	bad="$bad $TX: $ninst instances for $nconf events"
if [ -z "$bad" ]; then
	ok "only the configured events have values ($(cat "$TMP"/want.* | wc -l) in all), on cpu0 alone for $TX"
else
	diag "differs:$bad"
	show "$TMP/all.$TX" 12
	not_ok "only the configured events have values, on the cpumask CPU alone"
fi

# ---- 3-6: counts ----

# values FILE METRIC...: "METRIC SUM" of each metric's instances (pminfo -f)
values() {
	f=$1
	shift
	pminfo -h "$HOST" -f "$@" > "$f" 2>&1
	awk '/^perfevent\./ { m = $1; s[m] = 0; seen[m] = 0; next }
		/ value / { s[m] += $NF; seen[m] = 1 }
		END { for (m in s) if (seen[m]) print m, s[m] }' "$f" | sort
}

# check_counts LABEL "EVENT WANT"... -- COMMAND: COMMAND injects; each event
# of LABEL's PMU $CP must grow by exactly WANT
check_counts() {
	label=$1
	shift
	ms="" wants=""
	while [ "$1" != -- ]; do
		# shellcheck disable=SC2086 # two words
		set -- $1 "$@"
		ms="$ms perfevent.hwcounters.$CP.$1.value"
		wants="$wants $1=$2"
		shift 3
	done
	shift
	# shellcheck disable=SC2086 # metric names
	values "$TMP/before" $ms > "$TMP/b"
	"$@" || { not_ok "$label: inject failed"; return; }
	# shellcheck disable=SC2086
	values "$TMP/after" $ms > "$TMP/a"
	bad="" got=""
	for w in $wants; do
		e=${w%%=*} want=${w#*=}
		m=perfevent.hwcounters.$CP.$e.value
		b=$(awk -v m="$m" '$1 == m { print $2 }' "$TMP/b")
		a=$(awk -v m="$m" '$1 == m { print $2 }' "$TMP/a")
		d=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a == "" || b == "") print "none"; else printf "%.0f", a - b }')
		got="$got $e+$d"
		[ "$d" = "$want" ] || bad="$bad $e: +$d, want +$want"
	done
	if [ -z "$bad" ]; then
		ok "$label: pminfo -f grew by the injected amounts ($got )"
	else
		diag "wrong:$bad"
		show "$TMP/after" 20
		not_ok "$label: pminfo -f grew by the injected amounts"
	fi
}

D=$SIMDBG/pp_wh
inject_tx() {
	echo '0 fpu 0 800; 0 fpu 1 30; 0 tdma_pack 18 300; 0 instrn_thread 24 100' > "$D/inject" &&
	echo '0 1000' > "$D/advance"
}
CP=$TX
check_counts "tensix $TX" "fpu_instruction 800" "sfpu_instruction 30" "packer_busy 300" \
	"thread_stalls_0 100" "fpu_cycles 1000" "tdma_pack_cycles 1000" "instrn_thread_cycles 1000" \
	-- inject_tx

inject_esp() {
	echo '1 llc_hit 300' > "$SIMDBG/pp_esp/inject" &&
	echo '1 llc_miss 100' > "$SIMDBG/pp_esp/inject" &&
	echo '0 l2_hit 70' > "$SIMDBG/pp_esp/inject" &&
	echo '2 acc_invocations 5' > "$SIMDBG/pp_esp/inject"
}
CP=$ESP
check_counts "esp $ESP" "llc_hit 300" "llc_miss 100" "l2_hit 70" "l2_miss 0" \
	"acc_invocations 5" -- inject_esp

# both cores: each event twice the cycles played
inject_pulp() { echo 'all instr,ld,branch 500' > "$SIMDBG/pp_pulp/inject"; }
CP=$PULP
check_counts "pulp $PULP" "instr 1000" "ld 1000" "branch 1000" "st 0" -- inject_pulp

# instructions retired on hart 0: its CPU's instance, no other
inject_hpm() { echo '0 instret 4000' > "$SIMDBG/$HPMDEV/inject"; }
CP=$HPM
check_counts "hpm $HPM" "instructions 4000" -- inject_hpm

# ---- 7: derived metrics ----

# The counts since the PMDA opened the events are the injections above
# alone: their closed forms
derived() {	# derived METRIC: its value (pminfo -f), or ""
	pminfo -h "$HOST" -f "$1" > "$TMP/d" 2>&1
	cat "$TMP/d" >> "$TMP/derived"
	awk '$1 == "value" { print $2 }' "$TMP/d"
}
near() {	# near A B
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-6 * (b < 0 ? -b : b) + 1e-9) }'
}
: > "$TMP/derived"
bad="" got=""
for mv in "$TX fpu_utilization 80" "$TX sfpu_utilization 3" "$TX pack_utilization 30" 	  "$TX thread_stall_rate $(awk 'BEGIN { print 100 * 100 / 3000 }')" 	  "$ESP esp_llc_miss_rate 25" "$ESP esp_l2_miss_rate 0"; do
	# shellcheck disable=SC2086 # three words
	set -- $mv
	v=$(derived "socpmu.$1.$2")
	got="$got $2=$v"
	near "$v" "$3" || bad="$bad $2=$v(want $3)"
done
if [ -z "$bad" ]; then
	ok "derived metrics equal their closed forms:$got"
else
	diag "wrong:$bad"
	show "$TMP/derived" 30
	show /var/log/pcp/pmcd/perfevent.log 10
	not_ok "derived metrics equal their closed forms"
fi

totals
[ $nfail -eq 0 ]
