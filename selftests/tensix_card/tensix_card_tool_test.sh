#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tensix_card_tool_test.sh - the per-chip PMU of a (simulated) PCIe card with
# the user tools: perf stat, perf record (leader sampling with the Tensix
# counter read at each sample) and tensix-perf.
#
# Run as root in the VM with socpmu_core, tensix_pmu, tensix_noc and
# socpmu_sim loaded. Creates a Wormhole card with a harvested row and a
# Blackhole card through /sys/devices/socpmu_sim/new_device, injects exact
# counts into one tile (by NOC coordinates) from inside the measured command
# and checks what each tool prints. Last, a card that stops answering
# (debugfs "dead": reset, or off the bus) while perf stat counts.
#
# perf record and perf script run with kernel pointers hidden
# (kernel.kptr_restrict=2): nothing here needs the kernel's symbols, and
# perf would otherwise parse all of /proc/kallsyms at each start (1.4 s of
# TCG time). perf_record_test.hooks_delta runs perf on a stock system.
# Output: kselftest TAP ending with "# Totals:". Exit: 0 pass, 1 fail, 4 skip.

SIM=/sys/devices/socpmu_sim
BUS=/sys/bus/event_source/devices
DEBUGFS=/sys/kernel/debug
SIMDBG=$DEBUGFS/socpmu_sim
NTESTS=9
TMP=${TMPDIR:-/tmp}/tensix_card_tool.$$
KPTR=/proc/sys/kernel/kptr_restrict
kptr=$(cat "$KPTR" 2>/dev/null)
created=""
n=0
npass=0
nfail=0
nskip=0

ok() { n=$((n + 1)); npass=$((npass + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n $1"; }
skip() { n=$((n + 1)); nskip=$((nskip + 1)); echo "ok $n $1 # SKIP $2"; }
diag() { echo "# $*"; }
totals() { echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"; }
show() { [ -f "$1" ] && sed 's/^/#   /' "$1" | head -n "${2:-30}"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "want '$3', got '$2'"; fi; }

cleanup() {
	for d in $created; do
		echo "$d" > "$SIM/del_device" 2>/dev/null
	done
	rm -rf "$TMP"
	[ -z "$kptr" ] || echo "$kptr" > "$KPTR"
}

echo "TAP version 13"
echo "1..$NTESTS"

skip_all() {
	diag "$1"
	while [ $n -lt $NTESTS ]; do skip "tensix_card_tool_$((n + 1))" "$1"; done
	totals
	exit 4
}

[ "$(id -u)" = 0 ] || skip_all "must run as root"
[ -w "$SIM/new_device" ] || skip_all "no simulator: load socpmu_sim"
[ -d /sys/module/tensix_noc ] || skip_all "tensix_noc is not loaded"
[ -d "$SIMDBG" ] || mount -t debugfs none "$DEBUGFS" 2>/dev/null
command -v perf >/dev/null || skip_all "no perf"
TP=$(command -v tensix-perf 2>/dev/null)
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM
mkdir -p "$TMP" || exit 1
[ -z "$kptr" ] || echo 2 > "$KPTR"

# NAME:INODE of every PMU's type file: a dead PMU's name taken again is new
pmu_ids() { for p in "$BUS"/*; do echo "${p##*/}:$(stat -c %i "$p/type" 2>/dev/null)"; done; }

# card NAME ARGS: create a card, set PMU to its tensix_<n>
card() {
	before=$(pmu_ids)
	echo "$1" > "$SIM/del_device" 2>/dev/null
	echo "ttcard name=$1 $2" > "$SIM/new_device" || return 1
	created="$created $1"
	PMU=""
	for p in $(pmu_ids); do
		case "$p" in tensix_*) ;; *) continue ;; esac
		echo "$before" | grep -qx "$p" || PMU=${p%%:*}
	done
	[ -n "$PMU" ]
}

# unit_at PMU X,Y / core_at CARD X,Y: the PMU unit and the model core of a tile
unit_at() { awk -v xy="$2" '$2 == xy { print $1 }' "$BUS/$1/tiles"; }
core_at() { awk -v xy="$2" '$2 == xy && $NF != "harvested" { print $1 }' "$SIMDBG/$1/tiles"; }

for spec in "whc arch=wormhole harvest=0x1 9,10" "bhc arch=blackhole 16,11"; do
	name=${spec%% *}
	xy=${spec##* }
	args=${spec#* }
	args=${args% *}
	if ! card "$name" "$args"; then
		for t in stat_unit stat_sum record tensix_perf; do not_ok "$name: $t"; done
		continue
	fi
	unit=$(unit_at "$PMU" "$xy")
	core=$(core_at "$name" "$xy")
	nunits=$(cat "$BUS/$PMU/num_cores")
	cpu=$(cat "$BUS/$PMU/cpumask")
	diag "$name: $PMU, tile $xy = unit $unit = model core $core, $nunits tiles"
	inj="echo '$core fpu 0 4242' > $SIMDBG/$name/inject; echo 'all 100' > $SIMDBG/$name/advance"

	# perf stat: one tile by unit, and the sum over the chip
	perf stat -a -x, -o "$TMP/stat" -e "$PMU/fpu_instruction,core=$unit,bycore=1/" \
		-e "$PMU/fpu_cycles/" -- sh -c "$inj" >/dev/null 2>&1
	check "$name: perf stat counts tile $xy exactly" \
		"$(awk -F, '/fpu_instruction/ { print $1 }' "$TMP/stat")" 4242
	check "$name: perf stat sums the cycles of all $nunits tiles" \
		"$(awk -F, '/fpu_cycles/ { print $1 }' "$TMP/stat")" $((100 * nunits))

	# perf record: cpu-clock samples, each reading the tile's counter (:S);
	# the deltas perf script prints add up to the injected count
	perf record -q -a -C "$cpu" -o "$TMP/rec" \
		-e "{cpu-clock,$PMU/fpu_instruction,core=$unit,bycore=1/}:S" \
		-- sh -c "sleep 0.05; $inj; sleep 0.1" >/dev/null 2>&1
	sum=$(perf script -i "$TMP/rec" -F event,period 2>/dev/null |
	      awk '/fpu_instruction/ { s += $1 } END { print s + 0 }')
	check "$name: perf record reads tile $xy at each sample (sum of deltas)" "$sum" 4242

	# tensix-perf on the per-chip PMU, one tile
	if [ -z "$TP" ]; then
		skip "$name: tensix-perf" "tensix-perf not installed"
		continue
	fi
	"$TP" stat --pmu "$PMU" --core "$unit" -x, -o "$TMP/tp" -- sh -c "$inj" \
		>/dev/null 2>"$TMP/tp.err"
	got=$(awk -F, 'tolower($0) ~ /fpu_instruction/ && $0 !~ /^#/ { print; exit }' "$TMP/tp")
	case ",$got," in
	*,4242,*) ok "$name: tensix-perf counts tile $xy" ;;
	*) not_ok "$name: tensix-perf counts tile $xy"; show "$TMP/tp"; show "$TMP/tp.err" ;;
	esac
done

# perf stat while the card is reset (every read all ones) after counting
# 4242: a poll (every 10 ms) banks the 4242 before the card dies, and the
# count must stay that, not gain 2^32 of all-ones "counter values"
name=wdc
if card "$name" "arch=wormhole"; then
	core=$(core_at "$name" 1,1)
	echo 10000 > "$BUS/$PMU/poll_interval_us"
	perf stat -a -x, -o "$TMP/dead" -e "$PMU/fpu_instruction/" -- sh -c \
		"echo '$core fpu 0 4242' > $SIMDBG/$name/inject; sleep 0.1;
		 echo 1 > $SIMDBG/$name/dead; echo '$core fpu 0 1' > $SIMDBG/$name/inject;
		 sleep 0.1" >/dev/null 2>&1
	check "$name: perf stat keeps the last good count of a card that stopped answering" \
		"$(awk -F, '/fpu_instruction/ { print $1 }' "$TMP/dead")" 4242
	echo 0 > "$SIMDBG/$name/dead"
else
	not_ok "$name: perf stat keeps the last good count of a card that stopped answering"
fi

totals
[ $nfail -eq 0 ]
