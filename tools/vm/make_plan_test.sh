#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make_plan_test.sh - what `make run` (README's first command) and the other
# targets that boot the VM do on a new machine, whose CACHE is empty: every
# machine the tests run on has a warm cache, where a missing build step goes
# unseen (`make run` once booted the VM with Debian's perf, and its demo's
# `perf record -e sifive_trace//` failed).
#  1 vm_targets_build_perf  `make -n run|shell|bench|fuzz` with a CACHE
#                           as `make deps` fills it (no perf-*) builds the project's perf (tools/perf/build.sh)
#                           and `all` (the tools, modules and selftests)
#                           before run-vm.sh / fuzz.sh boots the VM
#  2 no_boot_without_perf   run-vm.sh with the kernel image but no
#                           perf-build/perf refuses to boot and says
#                           'make perf'
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tools/vm/tap.sh
. "$here/tap.sh"

tap_plan 2

real=${CACHE:-/var/cache/socpmu}
# A cache as `make deps` leaves it on a new machine: all of it but perf's
mkdir -p "$tmp/cache"
for f in "$real"/*; do
	case ${f##*/} in perf-*) ;; *) ln -s "$f" "$tmp/cache/" ;; esac
done

# 1
st=0
for t in run shell bench fuzz; do
	if ! make -s -n -C "$top" "$t" CACHE="$tmp/cache" >"$tmp/$t.plan" 2>&1; then
		echo "# make -n $t failed"; st=1; continue
	fi
	# The line numbers of the perf build, of the tools' install (`all`) and
	# of the VM's boot in the plan
	p=$(grep -n 'tools/perf/build.sh' "$tmp/$t.plan" | head -n 1 | cut -d: -f1)
	a=$(grep -n 'install DESTDIR=.*tools-root' "$tmp/$t.plan" | head -n 1 | cut -d: -f1)
	b=$(grep -nE 'tools/vm/(run-vm|fuzz)\.sh' "$tmp/$t.plan" | head -n 1 | cut -d: -f1)
	if [[ -z $p || -z $a || -z $b ]] || ((p > b || a > b)); then
		echo "# make $t: perf build at line '${p}', all at '${a}', VM boot at '${b}'"
		st=1
	fi
done
grep -E "build.sh|run-vm|fuzz.sh" "$tmp/run.plan" | head -n 20 >"$tmp/run.lines"
if ((st)); then not_ok vm_targets_build_perf "$tmp/run.lines"; else ok vm_targets_build_perf; fi

# 2
st=0
kver=$("$here/kver.sh")
if [[ -z $kver || ! -d $real/linux-image-$kver ]]; then
	echo "# no kernel image in $real (make deps)"
	st=1
else
	CACHE=$tmp/cache KVER=$kver timeout 60 "$here/run-vm.sh" --dir "$tmp/vm" --quiet -- true \
		>"$tmp/boot.log" 2>&1
	rc=$?
	if ((rc == 0)) || ! grep -q "run 'make perf'" "$tmp/boot.log" || grep -q SOCPMU-VM-EXIT "$tmp/boot.log"; then
		echo "# run-vm.sh without perf: exit $rc"
		st=1
	fi
fi
if ((st)); then not_ok no_boot_without_perf "$tmp/boot.log"; else ok no_boot_without_perf; fi

tap_totals
