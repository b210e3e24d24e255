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
# --intree: the in-tree variant, in $CACHE/riscv-vm/build-intree: a copy of
# the source (hard links, $CACHE/riscv-vm/src-intree) with
# tools/vm/riscv-intree.patch applied (drivers/perf/socpmu/ with its Kconfig
# and Makefile, and riscv_pmu_sbi's hook that hands the counter overflow
# interrupt to other SBI counter users) and socpmu_core.c, sifive_hpm.c and
# include/socpmu/ copied in, built with CONFIG_SOCPMU_CORE=y and
# CONFIG_SOCPMU_SIFIVE_HPM=y: sifive_hpm built in, which can sample. Its
# stamp also covers the patch and those sources.
#
# Environment: CACHE (default /var/cache/socpmu).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
intree=0
[[ ${1:-} == --intree ]] && intree=1
CROSS=riscv64-linux-gnu-
src=$CACHE/riscv/linux-source-6.12
vm=$CACHE/riscv-vm
out=$vm/build
fragment=$here/riscv-vm.config
patchfile=$here/riscv-intree.patch
intree_sources=("$top/drivers/perf/socpmu_core.c" "$top/drivers/perf/sifive_hpm.c" "$top"/include/socpmu/*.h)
if ((intree)); then
	out=$vm/build-intree
	config=$vm/intree.config
fi

say() { printf 'riscv-kernel: %s\n' "$*" >&2; }
die() { printf 'riscv-kernel: error: %s\n' "$*" >&2; exit 1; }

[[ -f $src/.socpmu-stamp ]] || die "$src is not extracted (check-riscv.sh does it)"
mkdir -p "$vm"
exec 8>"$vm/.lock"
flock 8

want="$(<"$src/.socpmu-stamp") $(${CROSS}gcc -dumpfullversion) $(sha256sum <"$fragment" | cut -c1-16)"
((intree)) && want+=" intree $(sha256sum <"$patchfile" | cut -c1-16)"
sources=
((intree)) && sources=$(cat "${intree_sources[@]}" | sha256sum | cut -c1-16)
if [[ -f $out/.socpmu-stamp && $(<"$out/.socpmu-stamp") == "$want" && -f $out/arch/riscv/boot/Image ]]; then
	if [[ $(cat "$out/.socpmu-sources" 2>/dev/null) == "$sources" ]]; then
		echo "$out"
		exit 0
	fi
	# In-tree, only our sources changed: copy them in and build again (incremental)
	t=$SECONDS
	say "rebuilding $out with the current socpmu sources"
	tree=$vm/src-intree
	cp "$top/drivers/perf/socpmu_core.c" "$top/drivers/perf/sifive_hpm.c" "$tree/drivers/perf/socpmu/"
	cp "$top"/include/socpmu/*.h "$tree/drivers/perf/socpmu/include/socpmu/"
	make -s -C "$tree" O="$out" ARCH=riscv CROSS_COMPILE=$CROSS -j"$(nproc)" Image >&2
	echo "$sources" >"$out/.socpmu-sources"
	say "rebuilt in $((SECONDS - t)) s"
	echo "$out"
	exit 0
fi

t=$SECONDS
say "building the riscv64 test kernel in $out (once, a few minutes)"
rm -rf "$out"
mkdir -p "$out"
if ((intree)); then
	# A private copy of the shared source: hard links (patch and cp write
	# new files, so the shared tree is never changed).
	tree=$vm/src-intree
	rm -rf "$tree"
	cp -al "$src" "$tree"
	patch -s -p1 -d "$tree" <"$patchfile"
	mkdir -p "$tree/drivers/perf/socpmu/include/socpmu"
	cp "$top/drivers/perf/socpmu_core.c" "$top/drivers/perf/sifive_hpm.c" "$tree/drivers/perf/socpmu/"
	cp "$top"/include/socpmu/*.h "$tree/drivers/perf/socpmu/include/socpmu/"
	src=$tree
	{ cat "$fragment"; echo "CONFIG_SOCPMU_CORE=y"; echo "CONFIG_SOCPMU_SIFIVE_HPM=y"; } >"$config"
	fragment=$config
fi
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
echo "$sources" >"$out/.socpmu-sources"
say "built in $((SECONDS - t)) s"
echo "$out"
