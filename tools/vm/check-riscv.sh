#!/bin/bash
# check-riscv.sh - `make check-riscv`: cross-build every socpmu module for
# RISC-V, so that the code behind CONFIG_RISCV (the SBI backend of
# sifive_hpm) and CONFIG_RISCV_M_MODE (the local CSR backend of pulp_pmu)
# keeps compiling, with the same W=1 -Werror as the x86 build (again only
# when the sources changed); then run the RISC-V VM bench
# (tools/vm/riscv-vm.sh: the riscv64 selftests on OpenSBI with
# riscv_pmu_sbi, one VM per test program, all at once, and with --intree
# the sampling tests on a kernel that has sifive_hpm built in), whose
# "RISCV: N passed, N failed, N skipped" lines land in
# .build/riscv-vm-<test>/summary; .build/riscv-suites lists them for
# tools/vm/check.sh to add to `make check`'s total. RISCV_VM=0 skips the
# bench. --build stops before the bench (after building what it needs),
# --bench only runs it: `make check` builds first, so that a first run's
# kernel builds do not slow the tests down, then runs the bench next to the
# x86 VM suites.
#
# Two riscv64 kernel build trees are prepared from Debian's
# /usr/src/linux-source-6.12.tar.xz (extracted once) in $CACHE/riscv/:
#   build-defconfig  `defconfig` (MMU, S-mode, SBI): the configuration of
#                    RISC-V boards running Linux under OpenSBI
#   build-nommu      `nommu_virt_defconfig` + modules, perf events and
#                    debugfs: an M-mode kernel (CONFIG_RISCV_M_MODE)
# each by `make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- <config>
# modules_prepare`. A stamp file records the source package and compiler
# versions; the trees are prepared again only when one of them changes
# (the first run takes a few minutes, later runs seconds).
#
# The module sources are copied to .build/riscv/<config>/ and built there
# (out-of-tree builds write their objects next to the sources, and the x86
# objects at the top of the tree must stay as they are). Every module of
# Kbuild must come out as a RISC-V ELF object. The durations are printed.
#
# Installs the cross compiler, its libc, flex, bison, QEMU and OpenSBI with
# apt-get when they are missing (needs root then). Environment: CACHE
# (default /var/cache/socpmu), RISCV_CONFIGS (default "defconfig nommu"),
# RISCV_VM (default 1), RISCV_VM_TIMEOUT (seconds, default 900),
# RISCV_NO_SSCOFPMF (default 1: see the VM bench below).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
SERIES=6.12
SRC_TARBALL=/usr/src/linux-source-$SERIES.tar.xz
CROSS=riscv64-linux-gnu-
RISCV_CONFIGS=${RISCV_CONFIGS:-defconfig nommu}
JOBS=$(nproc)
export DEBIAN_FRONTEND=noninteractive

say() { printf 'check-riscv: %s\n' "$*"; }
die() { printf 'check-riscv: error: %s\n' "$*" >&2; exit 1; }
elapsed() { echo "$((SECONDS - $1))s"; }

start=$SECONDS
what=all
case ${1:-} in
--build) what=build ;;
--bench) what=bench ;;
"") ;;
*) echo "usage: $0 [--build|--bench]" >&2; exit 2 ;;
esac

# Tools: the cross compiler and what kconfig needs to build itself.
missing=()
command -v ${CROSS}gcc >/dev/null || missing+=(gcc-riscv64-linux-gnu)
command -v flex >/dev/null || missing+=(flex)
command -v bison >/dev/null || missing+=(bison)
command -v bc >/dev/null || missing+=(bc)
command -v qemu-system-riscv64 >/dev/null || missing+=(qemu-system-misc)
[[ -f /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin ]] || missing+=(opensbi)
[[ -f /usr/riscv64-linux-gnu/lib/libc.a ]] || missing+=(libc6-dev-riscv64-cross)
command -v cpio >/dev/null || missing+=(cpio)
if ((${#missing[@]})); then
	((EUID == 0)) || die "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root"
	say "installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		{ apt-get update -qq && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
fi
[[ -f $SRC_TARBALL ]] || die "$SRC_TARBALL is missing: run 'make deps'"

src_version=$(dpkg-query -W -f='${Version}' "linux-source-$SERIES" 2>/dev/null || stat -c %Y "$SRC_TARBALL")
cc_version=$(${CROSS}gcc -dumpfullversion)
riscv=$CACHE/riscv
src=$riscv/linux-source-$SERIES
mkdir -p "$riscv" || die "cannot create $riscv (set CACHE=... to use another place)"

# One preparation at a time (two `make check` in parallel share the cache).
exec 9>"$riscv/.lock"
flock 9

stamp_ok() { [[ -f $1 && $(<"$1") == "$src_version $cc_version" ]]; }

# cross_builds: the kernel trees (prepared once) and every module built
# against each configuration.
cross_builds() {
	# The source, extracted once per linux-source package version.
	if ! stamp_ok "$src/.socpmu-stamp"; then
		t=$SECONDS
		say "extracting $SRC_TARBALL into $src (once)"
		rm -rf "$src" "$riscv"/build-* "$riscv/.src.tmp"
		mkdir -p "$riscv/.src.tmp"
		tar -xJf "$SRC_TARBALL" -C "$riscv/.src.tmp" --strip-components=1
		mv "$riscv/.src.tmp" "$src"
		echo "$src_version $cc_version" >"$src/.socpmu-stamp"
		say "extracted in $(elapsed "$t")"
	fi

	# prepare NAME: a build tree $riscv/build-NAME ready for external modules.
	prepare() {
		local name=$1 out=$riscv/build-$1 t=$SECONDS
		local kmake=(make -s -C "$src" O="$out" ARCH=riscv CROSS_COMPILE=$CROSS -j"$JOBS")

		stamp_ok "$out/.socpmu-stamp" && return 0
		say "preparing $out (once)"
		rm -rf "$out"
		mkdir -p "$out"
		case $name in
		defconfig)
			"${kmake[@]}" defconfig
			;;
		nommu)
			"${kmake[@]}" nommu_virt_defconfig
			"$src/scripts/config" --file "$out/.config" --enable MODULES --enable MODULE_UNLOAD \
				--enable PERF_EVENTS --enable DEBUG_FS
			"${kmake[@]}" olddefconfig
			grep -q '^CONFIG_RISCV_M_MODE=y' "$out/.config" ||
				die "$name: CONFIG_RISCV_M_MODE is not set"
			;;
		*)
			die "unknown configuration $name"
			;;
		esac
		grep -q '^CONFIG_MODULES=y' "$out/.config" || die "$name: CONFIG_MODULES is not set"
		"${kmake[@]}" modules_prepare
		echo "$src_version $cc_version" >"$out/.socpmu-stamp"
		say "prepared $name in $(elapsed "$t")"
	}

	# The modules Kbuild declares, one per socpmu_module line.
	mapfile -t modules < <("$top/tools/vm/modules.sh" "$top/Kbuild")
	((${#modules[@]})) || die "no modules found in Kbuild"

	# The sources a cross-build is made of, as a key: a build whose key has not
	# changed is not done again.
	sources_key() {
		(cd "$top" && find Kbuild drivers include -type f \( -name Kbuild -o -name Makefile \
			-o -name '*.[chS]' \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
			cat - "$riscv/build-$1/.socpmu-stamp" | sha256sum | cut -c1-32
	}

	# build NAME: copy the sources and build every module against build-NAME.
	build() {
		local name=$1 out=$riscv/build-$1 dest=$top/.build/riscv/$1 t=$SECONDS m ko bad=0 key

		key=$(sources_key "$name")
		if [[ $(cat "$dest.key" 2>/dev/null) == "$key" ]]; then
			say "$name: sources unchanged since the last build: not built again"
			return 0
		fi
		rm -f "$dest.key"
		rm -rf "$dest"
		mkdir -p "$dest"
		(cd "$top" && find Kbuild drivers include \( -name Kbuild -o -name Makefile \
			-o -name '*.[chS]' \) -type f -print0 | cpio -0pdm --quiet "$dest")
		# No vmlinux, hence no Module.symvers: modpost cannot resolve kernel
		# symbols and only warns about them (the notice and those warnings are
		# filtered out); any other output fails the check.
		local rc=0
		make -s -C "$out" M="$dest" ARCH=riscv CROSS_COMPILE=$CROSS W=1 \
			KBUILD_MODPOST_WARN=1 -j"$JOBS" modules >"$dest.log" 2>&1 || rc=$?
		grep -v -E -e '^WARNING: modpost: "[^"]*" \[[^]]*\] undefined!$' \
			-e '^WARNING: modpost: suppressed [0-9]+ unresolved symbol warnings' \
			-e '^WARNING: Module.symvers is missing' \
			-e '^ +(Modules may not have|You may get many|You can set KBUILD_MODPOST_WARN|if you want to proceed)' \
			"$dest.log" >"$dest.problems" || true
		if ((rc)) || [[ -s $dest.problems ]]; then
			head -n 40 "$dest.problems" >&2
			die "$name: the build failed or warned (full log: $dest.log)"
		fi
		for m in "${modules[@]}"; do
			ko=$dest/$m.ko
			if [[ ! -f $ko ]]; then
				echo "check-riscv: $name: $m.ko was not built" >&2
				bad=1
			elif ! ${CROSS}readelf -h "$ko" | grep -q 'Machine:.*RISC-V'; then
				echo "check-riscv: $name: $m.ko is not a RISC-V object" >&2
				bad=1
			fi
		done
		((bad == 0)) || die "$name: modules missing"
		echo "$key" >"$dest.key"
		say "$name: built ${#modules[@]} modules (${modules[*]}) in $(elapsed "$t")"
	}

	for c in $RISCV_CONFIGS; do
		prepare "$c"
	done
	for c in $RISCV_CONFIGS; do
		build "$c"
	done
	flock -u 9
	say "cross-builds OK in $(elapsed "$start")"
}

if [[ $what != bench ]]; then
	cross_builds
	# What the VM benches share, built once before they start
	if [[ ${RISCV_VM:-1} != 0 ]]; then
		"$here/riscv-vm.sh" --prepare-only >/dev/null
		"$here/riscv-vm.sh" --intree --prepare-only >/dev/null
	fi
	if [[ $what == build ]]; then
		say "OK in $(elapsed "$start")"
		exit 0
	fi
fi

# The VM bench: the tests dealt out to RISCV_VMS (default 1) VMs by their
# last run times (tools/vm/suites.sh; riscv-vm.sh --only), and the in-tree
# kernel, all at once (they mostly wait: the tests sleep and count). Every
# bench's "RISCV: ..." summary lands in its directory (.build/riscv-vm-<n>,
# .build/riscv-vm-intree); .build/riscv-suites lists them for
# tools/vm/check.sh to add up.
# shellcheck source=tools/vm/suites.sh
. "$here/suites.sh"
declare -A TEST_SECONDS=([tensix/tensix_test]=60 [sifive_hpm/hpm_sbi_test]=35)
suites=$top/.build/riscv-suites
times=$top/.build/riscv-test-seconds
rm -rf "$top"/.build/riscv-vm*/summary "$suites"
if [[ ${RISCV_VM:-1} != 0 ]]; then
	t=$SECONDS
	units=()
	for f in "$top"/.build/riscv-prep/selftests/*/*; do
		units+=("${f#"$top"/.build/riscv-prep/selftests/}")
	done
	# And hpm_sbi_test once more on harts without Sscofpmf (as the U74
	# comes): riscv_pmu_sbi then counts cycles and instructions on the fixed
	# counters that sifive_hpm uses too (issue 42). One test program (~25 s
	# of a ~40 s boot, next to the others), to keep the cost down;
	# RISCV_NO_SSCOFPMF=0 leaves it out.
	benches=("--intree") dirs=("$top/.build/riscv-vm-intree")
	if [[ ${RISCV_NO_SSCOFPMF:-1} != 0 ]]; then
		benches+=("--no-sscofpmf")
		dirs+=("$top/.build/riscv-vm-nosscofpmf")
	fi
	mapfile -t dealt < <(deal "${RISCV_VMS:-1}" "$times" 20 "${units[@]}")
	dealt_all "${units[*]}" "${dealt[@]}" || die "cannot deal the tests to the VMs"
	n=0
	for s in "${dealt[@]}"; do
		[[ -n $s ]] || continue
		n=$((n + 1))
		benches+=("--only $s")
		dirs+=("$top/.build/riscv-vm-$n")
	done
	pids=()
	for i in "${!benches[@]}"; do
		d=${dirs[i]}
		if [[ ${benches[i]} == --only* ]]; then
			"$here/riscv-vm.sh" --timeout "${RISCV_VM_TIMEOUT:-900}" --dir "$d" \
				--only "${benches[i]#--only }" >"$d.out" 2>&1 &
		elif [[ ${benches[i]} == --no-sscofpmf ]]; then
			"$here/riscv-vm.sh" --timeout "${RISCV_VM_TIMEOUT:-900}" --dir "$d" \
				--no-sscofpmf --only sifive_hpm/hpm_sbi_test >"$d.out" 2>&1 &
		else
			"$here/riscv-vm.sh" --timeout "${RISCV_VM_TIMEOUT:-900}" --dir "$d" \
				--intree >"$d.out" 2>&1 &
		fi
		pids+=($!)
	done
	bad=()
	for i in "${!pids[@]}"; do
		rc=0
		wait "${pids[i]}" || rc=$?
		d=${dirs[i]}
		echo "### RISC-V bench ${benches[i]}: console"
		tr -d '\r' <"$d/console.log" 2>/dev/null || true
		grep -E '^riscv-vm' "$d.out" || true
		echo "${d#"$top"/}" >>"$suites"
		# A failed test is counted in the summary (check.sh fails on it); no
		# summary or a kernel problem fails here.
		if ! ((rc == 0 || rc == 1)) || [[ ! -s $d/summary ]]; then
			tail -n 20 "$d.out" >&2
			bad+=("${benches[i]} (status $rc${d:+, see $d.out})")
		fi
	done
	keep_times "$times" "${dirs[@]/%//console.log}"
	say "VM bench: ${#benches[@]} VMs in $(elapsed "$t")"
	((${#bad[@]} == 0)) || die "the RISC-V VM bench failed: ${bad[*]}"
fi
say "OK in $(elapsed "$start")"
