#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fleet_test.sh OUT - a host's PCP client reads the test VM's pmcd, as a
# monitoring host reads a Tenstorrent host of a fleet (kselftest TAP).
#
# The VM (tools/vm/run-vm.sh --pcp --net PORT, its own directory
# .build/vm-fleet) loads the socpmu modules, creates a Wormhole tensix
# device playing a matmul workload (fpu=80 pack=40), merges the shipped
# [dynamic] lines (socpmu-pcp-setup) and runs Debian's pmcd with the
# perfevent PMDA; QEMU forwards 127.0.0.1:PORT of the host to its port
# 44321. Then, on the host:
#  1 remote_pminfo   pminfo -h 127.0.0.1:PORT: the Tensix counters grow,
#                    the derived socpmu.<pmu>.fpu_utilization is 80, and
#                    PORT listens on 127.0.0.1 only
#  2 pmproxy_metrics pmproxy's /metrics?hostspec=127.0.0.1:PORT carries
#                    the tensix series (OpenMetrics) with the VM's host
#                    name as the hostname label
#  3 pmlogger_pmrep  pmlogger archives 4 samples of the Tensix counters;
#                    pmrep replays the archive: the rates of FPU and packer
#                    activity per cycle, 80 % and 40 % in every interval
# Skipped where the host has no pcp package (never on Debian 12: make deps
# installs it). Set FLEET_TIMEOUT (seconds, default 540: within run_all.sh's
# 600 s per host test) for the VM;
# FLEET_KEEP=DIR keeps the archive, pmproxy's output and the VM running
# for 10 minutes at the end, to look into a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(cd "${1:?usage: fleet_test.sh OUT}" && pwd)
# shellcheck source=tools/vm/tap.sh
. "$top/tools/vm/tap.sh"
# Debian's pmrep runs under pmpython, which needs the system's python3
export PATH=/usr/bin:/bin:/usr/sbin:/sbin:$PATH
tmp=$(mktemp -d)
vmdir=$top/.build/vm-fleet
vm_pid="" proxy_pid=""
cleanup() {
	[[ -z $proxy_pid ]] || kill "$proxy_pid" 2>/dev/null
	# run-vm.sh ran in a session of its own: end it and its qemu
	[[ -z $vm_pid ]] || kill -- "-$vm_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
tap_plan 3

skip_all() {
	local t
	for t in remote_pminfo pmproxy_metrics pmlogger_pmrep; do skip_test "$t" "$1"; done
	tap_totals
	exit 0
}
if ! command -v pminfo >/dev/null || [[ ! -x /usr/lib/pcp/bin/pmproxy ]]; then
	if grep -qs '^VERSION_ID="12"' /etc/os-release && grep -qs '^ID=debian' /etc/os-release; then
		for t in remote_pminfo pmproxy_metrics pmlogger_pmrep; do
			not_ok "$t: no pcp on Debian 12 (make deps installs it)"
		done
		tap_totals
		exit 1
	fi
	skip_all "no pcp package on this host"
fi

# free_port: a TCP port nothing listens on
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		[[ -z $(ss -Hltn "sport = :$p") ]] && { echo "$p"; return; }
	done
}
port=$(free_port)
pport=$(free_port)
while [[ $pport == "$port" ]]; do pport=$(free_port); done

# The guest: modules, network, a device with a workload, pmcd; then it
# waits until the host ends the VM
guest='
for ko in /lib/modules/$(uname -r)/updates/socpmu/*.ko; do modprobe "$(basename "$ko" .ko)"; done
for m in failover net_failover virtio_net; do insmod /etc/socpmu/net/$m.ko || exit 3; done
ip link set lo up && ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 || exit 4
echo "root:x:0:0:root:/root:/bin/sh" > /etc/passwd; echo "root:x:0:" > /etc/group
echo "127.0.0.1 localhost $(hostname)" > /etc/hosts
before=$(ls /sys/bus/event_source/devices)
echo "tensix name=fleet cores=1 arch=wormhole" > /sys/devices/socpmu_sim/new_device || exit 5
pmu=""
while [ -z "$pmu" ]; do
	for p in $(ls /sys/bus/event_source/devices | grep "^tensix_"); do
		echo "$before" | grep -qx "$p" || pmu=$p
	done
done
echo "matmul fpu=80 unpack=60 pack=40" > /sys/kernel/debug/socpmu_sim/fleet/workload || exit 6
socpmu-pcp-setup || exit 7
mkdir -p /run/pcp /var/log/pcp/pmcd /tmp/pcp
printf "pmcd\t2\tdso\tpmcd_init\t/var/lib/pcp/pmdas/pmcd/pmda_pmcd.so\nperfevent\t127\tpipe\tbinary\t/usr/lib/pcp/pmdas/perfevent/pmdaperfevent -U root\n[access]\nallow \"local:*\" : all;\nallow \"10.0.2.2\" : fetch;\n" > /tmp/pcp/pmcd.conf
# pmcd.* (pmproxy asks for pmcd.hostname) and perfevent
awk "{ print } /^root [{]/ { print \"\tperfevent\t127:*:*\" }" /var/lib/pcp/pmns/root_pmcd > /tmp/pcp/root
/usr/lib/pcp/bin/pmcd -f -A -q 60 -t 60 -U root -c /tmp/pcp/pmcd.conf -n /tmp/pcp/root -l /tmp/pcp/pmcd.log &
i=0
while [ $i -lt 120 ] && ! pminfo -h local: perfevent.hwcounters.$pmu >/dev/null 2>&1; do sleep 1; i=$((i + 1)); done
pminfo -h local: perfevent.hwcounters.$pmu >/dev/null || { cat /tmp/pcp/pmcd.log; exit 8; }
echo "FLEET-READY pmu=$pmu"
sleep 1200
'
mkdir -p "$vmdir"
rm -f "$vmdir/console.log"	# a last run's READY line is not this one's
VM_DIR=$vmdir setsid "$top/tools/vm/run-vm.sh" --quiet --pcp --net "$port" \
	--timeout "${FLEET_TIMEOUT:-540}" -- sh -c "$guest" >"$tmp/run-vm.out" 2>&1 &
vm_pid=$!
pmu=""
for ((i = 0; i < ${FLEET_TIMEOUT:-540}; i++)); do
	pmu=$(sed -n 's/^FLEET-READY pmu=\([a-z0-9_]*\).*/\1/p' "$vmdir/console.log" 2>/dev/null | tr -d '\r')
	[[ -n $pmu ]] && break
	kill -0 "$vm_pid" 2>/dev/null || break
	sleep 1
done
if [[ -z $pmu ]]; then
	tail -n 30 "$vmdir/console.log" "$tmp/run-vm.out" 2>/dev/null | diag
	for t in remote_pminfo pmproxy_metrics pmlogger_pmrep; do not_ok "$t (the VM's pmcd did not come up)"; done
	tap_totals
	exit 1
fi
echo "VM ready: $pmu, pmcd at 127.0.0.1:$port" | diag
host=127.0.0.1:$port
m=perfevent.hwcounters.$pmu

# 1
st=0
value() { pminfo -h "$host" -f "$m.$1.value" 2>&1 | awk '$1 == "inst" { print $NF }'; }
a=$(value fpu_instruction)
sleep 2
b=$(value fpu_instruction)
[[ -n $a && -n $b ]] && ((b > a)) || { echo "fpu_instruction: '$a' then '$b'" | diag; st=1; }
# the derived metric, evaluated by this host's libpcp from the VM's counters.
# Over the counts since the PMDA opened its events (PCP 6.0.3, see README):
# these rotate every 100 ms (more events than counters), and the scaled
# counts' error shrinks as the time since the open grows (0.7 % low once,
# read 3 s after the open under make check's load): read it after 10 s more
sleep 10
fu=$(PCP_DERIVED_CONFIG=$out/socpmu.derived pminfo -h "$host" -f "socpmu.$pmu.fpu_utilization" |
	awk '$1 == "value" { print $2 }')
awk -v f="$fu" 'BEGIN { exit !(f != "" && f > 79.5 && f < 80.5) }' ||
	{ echo "socpmu.$pmu.fpu_utilization: '$fu', want 80" | diag; st=1; }
listen=$(ss -Hltn "sport = :$port" | awk '{ print $4 }')
[[ $listen == "127.0.0.1:$port" ]] || { echo "port $port listens on '$listen'" | diag; st=1; }
result remote_pminfo $st

# 2
st=0
/usr/lib/pcp/bin/pmproxy -f -A -U root -p "$pport" -s "$tmp/pmproxy.socket" -l "$tmp/pmproxy.log" \
	>"$tmp/pmproxy.out" 2>&1 &
proxy_pid=$!
for ((i = 0; i < 30; i++)); do
	curl -sf "http://127.0.0.1:$pport/metrics?names=$m&hostspec=$host" >"$tmp/metrics" 2>/dev/null &&
		grep -q '^perfevent_hwcounters_' "$tmp/metrics" && break
	sleep 1
done
vmhost=$(grep -a -o 'hostname="[^"]*"' "$tmp/metrics" | sort -u)
line=$(grep -a "^perfevent_hwcounters_${pmu}_fpu_instruction_value{" "$tmp/metrics" | head -n 1)
if [[ -z $line || $line != *'hostname="socpmu-vm"'* ]] || ! [[ ${line##* } =~ ^[0-9]+$ ]]; then
	echo "fpu_instruction series: '$line' (host names: $vmhost)" | diag
	head -n 12 "$tmp/metrics" "$tmp/pmproxy.log" 2>/dev/null | diag
	st=1
fi
nser=$(grep -a -c "^perfevent_hwcounters_${pmu}_[a-z0-9_]*_value{.*hostname=\"socpmu-vm\"" "$tmp/metrics")
((nser >= 19)) || { echo "$nser tensix series (19 configured)" | diag; st=1; }
echo "$line" | diag
result pmproxy_metrics $st

# 3
st=0
printf 'log mandatory on 1 sec {\n\t%s\n}\n' "$m" >"$tmp/pmlogger.conf"
pmlogger -h "$host" -c "$tmp/pmlogger.conf" -s 4 -l "$tmp/pmlogger.log" "$tmp/archive" >/dev/null 2>&1 ||
	{ diag <"$tmp/pmlogger.log"; st=1; }
# pmrep rate-converts the counters: the utilisations are their ratios
# (the derived metrics use scalar(), which gives no value from an archive
# in PCP 6.0.3)
pmrep -a "$tmp/archive" -o csv "$m.fpu_instruction.value" "$m.fpu_cycles.value" \
	"$m.packer_busy.value" "$m.tdma_pack_cycles.value" >"$tmp/rep" 2>&1
awk -F, 'NR > 1 && $2 != "" && $3 > 0 && $5 > 0 {
		n++; printf "%d %.3f %.3f\n", n, 100 * $2 / $3, 100 * $4 / $5
	}' "$tmp/rep" >"$tmp/util"
nrow=$(wc -l <"$tmp/util")
bad=$(awk '$2 < 79.5 || $2 > 80.5 || $3 < 39.5 || $3 > 40.5' "$tmp/util")
if ((nrow < 3)) || [[ -n $bad ]]; then
	echo "$nrow samples; off: $bad" | diag
	diag <"$tmp/rep"
	st=1
fi
echo "pmrep -a: $nrow intervals, fpu/pack utilisation $(tail -n 1 "$tmp/util" | cut -d' ' -f2-)" | diag
result pmlogger_pmrep $st

[[ -z ${FLEET_KEEP:-} ]] || { cp -r "$tmp" "$FLEET_KEEP"; echo "kept in $FLEET_KEEP, sleeping" | diag; sleep 600; }
tap_totals
