#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# pcp_alias_test.sh - every socpmu PMU as PCP's perfevent PMDA reads it
# ([dynamic] section; Documentation in README.md, "Fleet monitoring").
#
# Run as root inside the VM with the socpmu modules, socpmu_sim and perf.
# Creates a Wormhole and a Blackhole tensix device, an ESP SoC, a PULP
# cluster and (if there is none) SiFive HPM harts, and for each PMU checks
#   a. format/: one contiguous bit range per term, in config, config1 or
#      config2, names of [a-z0-9_] (perfevent shifts the value by the low
#      bit and knows nothing else)
#   b. events/: names of [a-z0-9_], other files only <event>.scale and
#      <event>.unit (perfevent makes a metric of any other file), cpumask
#      for the device PMUs (else perfevent opens an event on every CPU)
#   c. every alias, parsed with perfevent's rule (parse_events.c: "a=b"
#      terms split at ',', each value read by strtoul base 16, shifted to
#      the low bit of its format term; a term format/ lacks drops the PMU),
#      encodes the config, config1 and config2 perf opens it with
#      (perf stat -vvv prints each event's perf_event_attr); compared as
#      decimal numbers
#   d. the shipped [dynamic] lines (share/socpmu/pcp/perfevent-socpmu.conf)
#      for this PMU name only events it has, none of which has another of
#      its events as a prefix (perfevent opens those too)
# Output: kselftest TAP ending with "# Totals:". Exit: 0 pass, 1 fail, 4 skip.
# shellcheck disable=SC2317 # functions are called indirectly (trap)

SIM=/sys/devices/socpmu_sim
BUS=/sys/bus/event_source/devices
CONF=${PCP_SOCPMU_CONF:-/usr/share/socpmu/pcp/perfevent-socpmu.conf}
TAP_LABEL=pcp_alias
NTESTS=20

TMP=${TMPDIR:-/tmp}/pcp_alias_test.$$
created="" FMT_NAMES=""
. "$(dirname "$0")/../lib/tap.shlib"

cleanup() {
	del_created
	rm -rf "$TMP"
}

tap_begin_sim perf

trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM
mkdir -p "$TMP" || skip_all "cannot create $TMP"

# pmu_ids, new_device NAME PREFIX SPEC (sets NEWPMU)
. "$(dirname "$0")/../lib/sim_device.shlib"

# pcp_hex VALUE: HEX = VALUE as strtoul(VALUE, NULL, 16) reads it (no
# sign: our aliases have none), in decimal. No subshell: this runs for
# every term of every alias.
pcp_hex() {
	v=${1#"${1%%[! 	]*}"}
	case $v in 0[xX]*) v=${v#??} ;; esac
	v=${v%%[!0-9a-fA-F]*}
	HEX=$((0x${v:-0}))
}

# check_format PMU: test a
check_format() {
	bad=""
	for f in "$BUS/$1"/format/*; do
		name=${f##*/}
		echo "$name" | grep -Eq '^[a-z0-9_]+$' || bad="$bad name:$name"
		grep -Eqx 'config[12]?:[0-9]+(-[0-9]+)?' "$f" || bad="$bad $name=$(cat "$f")"
	done
	if [ -z "$bad" ]; then
		ok "$2: format terms are single bit ranges of config, config1, config2"
	else
		diag "not for perfevent:$bad"
		not_ok "$2: format terms are single bit ranges of config, config1, config2"
	fi
}

# check_names PMU LABEL DEVICE: test b
check_names() {
	bad=""
	for f in "$BUS/$1"/events/*; do
		name=${f##*/}
		case $name in
		*.scale | *.unit)
			[ -f "$BUS/$1/events/${name%.*}" ] || bad="$bad $name(no event)" ;;
		*)
			echo "$name" | grep -Eq '^[a-z0-9_]+$' || bad="$bad $name" ;;
		esac
	done
	if [ "$3" = device ] && ! grep -Eqx '[0-9]+' "$BUS/$1/cpumask" 2>/dev/null; then
		bad="$bad cpumask:$(cat "$BUS/$1/cpumask" 2>&1)"
	fi
	if [ -z "$bad" ]; then
		ok "$2: event names of [a-z0-9_], only .scale/.unit besides${3:+, one CPU in cpumask}"
	else
		diag "wrong:$bad"
		not_ok "$2: event names of [a-z0-9_], only .scale/.unit besides${3:+, one CPU in cpumask}"
	fi
}

# pcp_encode PMU EVENT: ENC = "config config1 config2" (decimal) as
# perfevent computes them, or "drop: WHY" when perfevent would drop the PMU; the
# format terms come from FMT_<term> (load_format)
pcp_encode() {
	c0=0 c1=0 c2=0
	read -r line < "$BUS/$1/events/$2"
	IFS=,
	# shellcheck disable=SC2086 # split at ','
	set -- $line
	unset IFS
	for term in "$@"; do
		case $term in
		*=*) ;;
		*) ENC="drop: term '$term' has no '=' (perfevent reads past it)"; return ;;
		esac
		t=${term%%=*} v=${term#*=}
		[ "$v" != "?" ] || { ENC="drop: '$term' asks perfevent for a value"; return; }
		case $t in *[!a-z0-9_]*) ENC="drop: term '$t'"; return ;; esac
		eval "spec=\${FMT_$t:-}"
		[ -n "$spec" ] || { ENC="drop: no format term '$t'"; return; }
		field=${spec%%:*} bits=${spec#*:}
		lo=${bits%%-*}
		pcp_hex "$v"
		case $field in
		config1) c1=$((c1 | (HEX << lo))) ;;
		config2) c2=$((c2 | (HEX << lo))) ;;
		*) c0=$((c0 | (HEX << lo))) ;;
		esac
	done
	ENC="$c0 $c1 $c2"	# decimal: no subshell
}

# load_format PMU: FMT_<term> = the contents of each format/<term>
load_format() {
	for t in $FMT_NAMES; do unset "FMT_$t"; done
	FMT_NAMES=""
	for f in "$BUS/$1"/format/*; do
		t=${f##*/}
		case $t in *[!a-z0-9_]*) continue ;; esac	# check_format reports it
		read -r spec < "$f"
		eval "FMT_$t=\$spec"
		FMT_NAMES="$FMT_NAMES $t"
	done
}

# check_aliases PMU LABEL: test c
check_aliases() {
	PMU=$1 label=$2
	load_format "$PMU"
	evs="" list=""
	for f in "$BUS/$PMU"/events/*; do
		name=${f##*/}
		case $name in *.*) continue ;; esac
		evs="$evs $name"
		list="$list${list:+,}$PMU/$name/"
	done
	"$PERF" stat -vvv -a -e "$list" -- true > "$TMP/perf.$PMU" 2>&1
	# "Opening: PMU/EVENT/" then the attr: config, { bp_addr, config1 }, { bp_len, config2 }
	awk -v pmu="$PMU" '
		/^Opening: / { if (ev != "") print ev, c0, c1, c2; ev = $2; c0 = c1 = c2 = "0x0"; next }
		ev != "" && $1 == "config" { c0 = $2 }
		ev != "" && /config1 }/ { c1 = $NF }
		ev != "" && /config2 }/ { c2 = $NF }
		END { if (ev != "") print ev, c0, c1, c2 }' "$TMP/perf.$PMU" > "$TMP/enc.$PMU"
	# perf's encodings as PE_<event>="config config1 config2"
	# shellcheck disable=SC2034 # b and c are read in the eval
	while read -r name a b c; do
		e=${name#"$PMU/"}
		e=${e%/}
		case $e in *[!a-z0-9_]*) continue ;; esac
		eval "PE_$e=\"\$((a)) \$((b)) \$((c))\""
	done < "$TMP/enc.$PMU"
	nev=0 nbad=0 example=""
	for e in $evs; do
		nev=$((nev + 1))
		pcp_encode "$PMU" "$e"
		eval "perf=\${PE_$e:-}"
		unset "PE_$e"
		[ -n "$example" ] || [ -z "$perf" ] ||
			example="$PMU/$e/ = $(head -n 1 "$BUS/$PMU/events/$e"): $ENC"
		if [ -z "$perf" ]; then
			bad="perf did not open it"
		elif [ "$ENC" != "$perf" ]; then
			bad="perf $perf"
		else
			bad=""
		fi
		if [ -n "$bad" ]; then
			nbad=$((nbad + 1))
			[ $nbad -le 5 ] && diag "$PMU/$e ($(head -n 1 "$BUS/$PMU/events/$e")): perfevent $ENC, $bad"
		fi
	done
	diag "e.g. $example"
	if [ $nbad -eq 0 ] && [ $nev -gt 0 ]; then
		ok "$label: all $nev aliases encode alike for perfevent and perf"
	else
		[ $nev -gt 0 ] || diag "no events"
		grep -iE 'error|invalid|not supported' "$TMP/perf.$PMU" | head -n 3 | sed 's/^/#   /'
		not_ok "$label: $nbad of $nev aliases encode differently for perfevent and perf"
	fi
}

# check_conf PMU LABEL: test d
check_conf() {
	if [ ! -r "$CONF" ]; then
		not_ok "$2: shipped [dynamic] lines (no $CONF: make install)"
		return
	fi
	grep "^$1\." "$CONF" | sed "s/^$1\.//" > "$TMP/conf.$1"
	for f in "$BUS/$1"/events/*; do
		case ${f##*/} in *.*) ;; *) echo "${f##*/}" ;; esac
	done > "$TMP/events.$1"
	bad="" nconf=0
	while read -r c; do
		nconf=$((nconf + 1))
		grep -qx "$c" "$TMP/events.$1" || bad="$bad $c(no such event)"
		p=$(awk -v c="$c" 'length($0) < length(c) && index(c, $0) == 1 { print; exit }' "$TMP/events.$1")
		[ -z "$p" ] || bad="$bad $c(opens $p)"
	done < "$TMP/conf.$1"
	if [ -z "$bad" ] && [ $nconf -gt 0 ]; then
		ok "$2: $nconf shipped [dynamic] events exist, none opens another"
	else
		diag "$nconf configured:$bad"
		not_ok "$2: shipped [dynamic] events exist, none opens another"
	fi
}

check_pmu() {
	check_format "$1" "$2"
	check_names "$1" "$2" "$3"
	check_aliases "$1" "$2"
	check_conf "$1" "$2"
}

fail4() {
	for t in format names aliases conf; do not_ok "$1: $t (no device)"; done
}

if new_device pa_wh tensix_ "tensix name=pa_wh cores=1 arch=wormhole"; then
	check_pmu "$NEWPMU" "tensix wormhole ($NEWPMU)" device
else
	fail4 "tensix wormhole"
fi
if new_device pa_bh tensix_ "tensix name=pa_bh cores=1 arch=blackhole"; then
	check_pmu "$NEWPMU" "tensix blackhole ($NEWPMU)" device
else
	fail4 "tensix blackhole"
fi
if new_device pa_esp esp_ "esp name=pa_esp rows=1 cols=3 tiles=cpu,mem,acc"; then
	check_pmu "$NEWPMU" "esp ($NEWPMU)" device
else
	fail4 "esp"
fi
if new_device pa_pulp pulp_ "pulp name=pa_pulp cores=2"; then
	check_pmu "$NEWPMU" "pulp ($NEWPMU)" device
else
	fail4 "pulp"
fi
if [ -e "$BUS/sifive_hpm" ] || new_device pa_hpm sifive_hpm "hpm name=pa_hpm counters=8"; then
	check_pmu sifive_hpm "sifive_hpm" ""
else
	fail4 "sifive_hpm"
fi

totals
[ $nfail -eq 0 ]
