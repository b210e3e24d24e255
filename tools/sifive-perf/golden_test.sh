#!/bin/bash
# golden_test.sh OUT - sifive-perf decode's output must not change: decode
# generated traces (decode_bench gen: every record type and count type,
# srcbits 0-2, corrupted and random bytes, a PIE with and without samples)
# in every format and with --by-src, --elf, --srcbits, and compare the
# SHA-256 of stdout + stderr with tests/golden.sha256, which the decoder
# before its speed-up (checked against SiFive's dqr) produced.
# Since issue 16 a file with no perf data fails (exit 1, a message): the
# noise cases and the funnel traces decoded with --srcbits 0.
# GOLDEN_UPDATE=1 writes the file instead. kselftest output.
set -uo pipefail
out=$(cd "${1:?}" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
golden=$src/tests/golden.sha256
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$out/tests/fibi" "$work/fibi"
cd "$work" || exit 1

n=0 pass=0 fail=0
for k in calls mixed raw noise; do "$out/decode_bench" gen $k $k.rtd 1 || exit 1; done
"$out/decode_bench" gen pie pie.rtd 1 fibi || exit 1
"$out/decode_bench" gen piesamp piesamp.rtd 1 fibi || exit 1
# Per trace: its 16 decodes each to a file of their own, stdout first, then
# stderr and the status, hashed by one sha256sum (a pipe into sha256sum per
# decode cost 3 processes more each: 4 of the test's 6 CPU seconds)
for t in calls mixed raw noise pie piesamp; do
	keys=()
	for f in text csv json summary; do
		for o in "" "--by-src" "--elf fibi" "--srcbits 0"; do
			i=${#keys[@]}
			keys+=("$t $f ${o:-default}")
			# shellcheck disable=SC2086 # the options are words
			"$out/sifive-perf" decode $t.rtd --format $f $o >"out.$i" 2>e
			echo "rc=$?" >>e
			IFS= read -r -d '' err <e
			printf '%s' "$err" >>"out.$i"
		done
	done
	i=0
	while read -r sum _; do
		echo "$sum ${keys[i]}"
		i=$((i + 1))
	done < <(sha256sum out.{0..15})
	rm -f out.*
done >sums

if [[ -n ${GOLDEN_UPDATE:-} ]]; then
	cp sums "$golden"
	echo "# wrote $golden"
fi
echo "TAP version 13"
echo "1..$(wc -l <sums)"
declare -A want
while read -r sum what; do
	want[$what]=$sum
done <"$golden"
while read -r sum what; do
	n=$((n + 1))
	if [[ $sum == "${want[$what]:-}" ]]; then
		pass=$((pass + 1))
		echo "ok $n decode $what"
	else
		fail=$((fail + 1))
		echo "not ok $n decode $what: output changed"
	fi
done <sums
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
((fail == 0))
