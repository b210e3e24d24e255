#!/bin/bash
# riscv-kernel.sh - build the riscv64 test kernel of the RISC-V VM bench
# (`make check-riscv`) once into $CACHE/riscv-vm/build and print its path.
#
# The kernel: Debian's /usr/src/linux-source-6.12.tar.xz (extracted once by
# check-riscv.sh into $CACHE/riscv/linux-source-6.12, shared, read only
# here), `make tinyconfig` + tools/vm/riscv-vm.config + olddefconfig, then
# `Image modules modules_prepare` (Module.symvers is needed to build our
# modules against it). A stamp file records the source package, the cross
# compiler and the fragment; the kernel is built again only when one of
# them changes (~4 min on 2 idle cores; later runs take a second). Every
# option of the fragment must come out as asked, or the build fails.
#
# Environment: CACHE (default /var/cache/socpmu).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
CROSS=riscv64-linux-gnu-
src=$CACHE/riscv/linux-source-6.12
vm=$CACHE/riscv-vm
out=$vm/build
fragment=$here/riscv-vm.config

say() { printf 'riscv-kernel: %s\n' "$*" >&2; }
die() { printf 'riscv-kernel: error: %s\n' "$*" >&2; exit 1; }

[[ -f $src/.socpmu-stamp ]] || die "$src is not extracted (check-riscv.sh does it)"
mkdir -p "$vm"
exec 8>"$vm/.lock"
flock 8

want="$(<"$src/.socpmu-stamp") $(${CROSS}gcc -dumpfullversion) $(sha256sum <"$fragment" | cut -c1-16)"
if [[ -f $out/.socpmu-stamp && $(<"$out/.socpmu-stamp") == "$want" && -f $out/arch/riscv/boot/Image ]]; then
	echo "$out"
	exit 0
fi

t=$SECONDS
say "building the riscv64 test kernel in $out (once, a few minutes)"
rm -rf "$out"
mkdir -p "$out"
kmake=(make -s -C "$src" O="$out" ARCH=riscv CROSS_COMPILE=$CROSS -j"$(nproc)")
"${kmake[@]}" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$fragment" >/dev/null
"${kmake[@]}" olddefconfig >&2
# Every option of the fragment must be as asked (a missing dependency
# silently drops one).
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$out/.config" || { say "not set as asked: $line"; bad=1; } ;;
	'# CONFIG_'*' is not set')
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$out/.config" || { say "set although asked off: $opt"; bad=1; } ;;
	esac
done <"$fragment"
((bad == 0)) || die "the configuration does not match $fragment"
"${kmake[@]}" Image modules modules_prepare >&2
[[ -f $out/Module.symvers ]] || die "no Module.symvers in $out"
echo "$want" >"$out/.socpmu-stamp"
say "built in $((SECONDS - t)) s"
echo "$out"
