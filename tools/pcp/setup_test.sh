#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# setup_test.sh OUT - the generated PCP files and socpmu-pcp-setup (kselftest TAP).
#  1 conf_names       every line of perfevent-socpmu.conf is <pmu>.<event>
#                     of [a-z0-9_], and no configured name of a PMU is a
#                     prefix of another (perfevent would open it once per
#                     configured name it starts)
#  2 derived_inputs   every counter a derived metric reads is configured,
#                     and every metric line is "socpmu.<pmu>.<name> = expr"
#  3 setup_merge      socpmu-pcp-setup puts the block after the last
#                     [dynamic] line of Debian's perfevent.conf (or a copy
#                     of its shape), twice gives the same file, --remove
#                     gives the original back byte for byte
#  4 setup_no_dynamic a file without [dynamic] gets one at its end
#  5 card_pmus        a PCIe card's PMU (tensix_<PCI address>) in sysfs
#                     gets tensix_0's events; numbered PMUs get nothing more
#  6 derived_syntax   PCP's libpcp (the host's pminfo) loads socpmu.derived
#                     without an error; skipped where there is no pminfo
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(cd "${1:?usage: setup_test.sh OUT}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/vm/tap.sh
. "$top/tools/vm/tap.sh"
conf=$out/perfevent-socpmu.conf derived=$out/socpmu.derived
tap_plan 6

# 1
st=0
grep -v '^#' "$conf" | grep . >"$tmp/lines"
bad=$(grep -Ev '^(tensix|esp|pulp)_[0-9]+\.[a-z0-9_]+$|^sifive_hpm(_[0-9]+)?\.[a-z0-9_]+$' "$tmp/lines")
[[ -z $bad ]] || { echo "bad lines: $bad" | head -5 | diag; st=1; }
(($(wc -l <"$tmp/lines") > 100)) || { echo "only $(wc -l <"$tmp/lines") lines" | diag; st=1; }
pre=$(awk '{ n[NR] = $0 } END {
	for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
		if (i != j && index(n[j], n[i]) == 1) { print n[i] " < " n[j]; exit }
	}' "$tmp/lines")
[[ -z $pre ]] || { echo "prefix: $pre" | diag; st=1; }
result conf_names $st

# 2
st=0
grep -o 'perfevent\.hwcounters\.[a-z0-9_]*\.[a-z0-9_]*\.value' "$derived" |
	sed 's/^perfevent\.hwcounters\.//; s/\.value$//' | sort -u >"$tmp/used"
missing=$(sort -u "$tmp/lines" | comm -23 "$tmp/used" -)
[[ -z $missing ]] || { echo "not configured: $missing" | head -5 | diag; st=1; }
badm=$(grep -v '^#' "$derived" | grep . | grep -Ev '^socpmu\.[a-z0-9_]+\.[a-z0-9_]+ = [-+*/(). a-z0-9_]+$')
[[ -z $badm ]] || { echo "$badm" | head -3 | diag; st=1; }
for m in fpu_utilization pack_utilization thread_stall_rate fpu_efficiency; do
	grep -q "^socpmu\.tensix_0\.$m = " "$derived" || { echo "no tensix_0.$m" | diag; st=1; }
done
grep -q '^socpmu\.esp_3\.esp_llc_miss_rate = ' "$derived" || { echo "no esp_3.esp_llc_miss_rate" | diag; st=1; }
result derived_inputs $st

# 3
st=0
if [[ -f /etc/pcp/perfevent/perfevent.conf ]]; then
	cp /etc/pcp/perfevent/perfevent.conf "$tmp/pe.conf"
else
	printf '[snb]\nUNHALTED_CORE_CYCLES\n\n[dynamic]\ncpu.branch-misses\n\n[perf]\ncycles\n' >"$tmp/pe.conf"
fi
cp "$tmp/pe.conf" "$tmp/orig"
ln -s pe.conf "$tmp/link.conf"
mkdir -p "$tmp/nosys"
"$here/socpmu-pcp-setup" --conf "$tmp/link.conf" --share "$out" --sysfs "$tmp/nosys" >/dev/null || st=1
[[ -L $tmp/link.conf ]] || { echo "the link was replaced" | diag; st=1; }
# the block right after the last [dynamic] line, with every configured line
after=$(awk '/^\[dynamic\]/ { d = NR } /^# socpmu: begin/ { b = NR } END { print b - d }' "$tmp/pe.conf")
[[ $after == 1 ]] || { echo "block not right after [dynamic] ($after)" | diag; st=1; }
sed -n '/^# socpmu: begin/,/^# socpmu: end/p' "$tmp/pe.conf" | grep -v '^#' >"$tmp/block"
cmp -s "$tmp/block" "$tmp/lines" || { echo "block differs from the configuration" | diag; st=1; }
cp "$tmp/pe.conf" "$tmp/once"
"$here/socpmu-pcp-setup" --conf "$tmp/pe.conf" --share "$out" --sysfs "$tmp/nosys" >/dev/null || st=1
cmp -s "$tmp/once" "$tmp/pe.conf" || { echo "second run changed the file" | diag; st=1; }
"$here/socpmu-pcp-setup" --conf "$tmp/pe.conf" --remove >/dev/null || st=1
cmp -s "$tmp/orig" "$tmp/pe.conf" || { echo "--remove did not restore the file" | diag; st=1; }
result setup_merge $st

# 4
st=0
printf '[perf]\ncycles\n' >"$tmp/nodyn.conf"
"$here/socpmu-pcp-setup" --conf "$tmp/nodyn.conf" --share "$out" --sysfs "$tmp/nosys" >/dev/null || st=1
[[ $(sed -n 4,5p "$tmp/nodyn.conf" | tr '\n' '|') == '[dynamic]|# socpmu: begin'* ]] ||
	{ head -6 "$tmp/nodyn.conf" | diag; st=1; }
result setup_no_dynamic $st

# 5
st=0
mkdir -p "$tmp/sys"/{tensix_0000_03_00_0,tensix_0,tensix_2,esp_0}
printf '[dynamic]\n' >"$tmp/cards.conf"
"$here/socpmu-pcp-setup" --conf "$tmp/cards.conf" --share "$out" --sysfs "$tmp/sys" >/dev/null || st=1
want=$(grep -c '^tensix_0\.' "$tmp/lines")
got=$(grep -c '^tensix_0000_03_00_0\.' "$tmp/cards.conf")
[[ $want -gt 0 && $got == "$want" ]] || { echo "card PMU: $got lines, want $want" | diag; st=1; }
diff <(sed -n 's/^tensix_0\.//p' "$tmp/lines") <(sed -n 's/^tensix_0000_03_00_0\.//p' "$tmp/cards.conf") | diag
[[ $(grep -c '^tensix_2\.' "$tmp/cards.conf") == $(grep -c '^tensix_2\.' "$tmp/lines") ]] ||
	{ echo "tensix_2 lines added" | diag; st=1; }
result card_pmus $st

# 6
if command -v pminfo >/dev/null; then
	# the definitions are parsed when the first context is made, whatever it is
	PCP_DERIVED_CONFIG=$derived pminfo -L socpmu >"$tmp/pminfo" 2>&1
	st=0
	grep -i -A3 'pmRegisterDerived' "$tmp/pminfo" | head -8 | diag
	grep -qi 'pmRegisterDerived' "$tmp/pminfo" && st=1
	result derived_syntax $st
else
	skip_test derived_syntax "no pminfo (PCP) on this host"
fi

tap_totals
