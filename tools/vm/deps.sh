#!/bin/bash
# deps.sh - `make deps`: install what socpmu needs on Debian 12 and fill the
# cache (CACHE, default /var/cache/socpmu):
#   linux-image-$KVER/  Debian's linux-image-$KVER-unsigned package, extracted
#                       (the package itself is never installed on the host),
#                       and boot/vmlinux-$KVER, the kernel ELF inside its
#                       bzImage, which run-vm.sh boots (see vmlinux_of)
#   kselftest/          kselftest_harness.h and kselftest.h (the only header
#                       the harness includes from the selftests directory)
#   checkpatch/         checkpatch.pl with spelling.txt and const_structs.checkpatch
#                       (it looks for them next to itself)
# The last two come from /usr/src/linux-source-6.12.tar.xz; they are extracted
# again only when the linux-source-6.12 package version changes.
#
# KVER is the newest linux-headers-6.12.N+deb12-amd64 in the apt lists. apt-get
# update runs only if the lists are missing, the look-up finds nothing, or
# something has to be downloaded and the lists are more than a day old. With
# everything present the script only looks and prints one line.
set -euo pipefail

CACHE=${CACHE:-/var/cache/socpmu}
SERIES=6.12
SRC_TARBALL=/usr/src/linux-source-$SERIES.tar.xz
SRC_FILES=(tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch)
export DEBIAN_FRONTEND=noninteractive

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }
need_root() { ((EUID == 0)) || die "$1 needs root: run 'make deps' as root"; }

# Temporary directories inside the cache, removed on exit.
tmpdirs=()
trap 'rm -rf "${tmpdirs[@]}"' EXIT
cache_tmpdir() {
	mkdir -p "$CACHE" || die "cannot create $CACHE (set CACHE=... to use another place)"
	tmpdirs+=("$(mktemp -d "$CACHE/.tmp.XXXXXX")")
}

lists_present() { compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; }
# apt-get update leaves unchanged lists alone but always touches lists/partial.
lists_stale() {
	[[ -z $(find /var/lib/apt/lists/partial -maxdepth 0 -mtime -1 2>/dev/null) ]]
}
updated=
apt_update() {
	[[ -z $updated ]] || return 0
	need_root "apt-get update"
	say "apt-get update"
	apt-get update -qq
	updated=1
}

# headers_abi: the newest linux-headers-6.12.N+deb12-amd64 ABI of the apt
# lists. apt-cache builds its package cache anew on every call where
# Dir::Cache::pkgcache is "" (as Debian's container images set it): about
# 1 s here, the whole of a `make deps` with everything present. So the
# answer is kept in $CACHE/apt-kver with the size and time of every list it
# came from, and apt-cache asked again only when one of them changed.
headers_abi() {
	local key kept=$CACHE/apt-kver abi
	key=$(stat -c '%n %s %Y' /var/lib/apt/lists/*_Packages* 2>/dev/null | sha256sum | cut -c1-32)
	if [[ $(sed -n 1p "$kept" 2>/dev/null) == "$key" ]]; then
		sed -n 2p "$kept"
		return
	fi
	abi=$(apt-cache pkgnames "linux-headers-$SERIES." |
		sed -n "s/^linux-headers-\(${SERIES//./\\.}\.[0-9]*+deb12-amd64\)\$/\1/p" |
		sort -V | tail -n 1)
	# not kept where the cache cannot be written: asked again next time
	if [[ -n $abi ]]; then
		{ mkdir -p "$CACHE" && printf '%s\n%s\n' "$key" "$abi" >"$kept"; } 2>/dev/null || true
	fi
	echo "$abi"
}

# resolve: set kver (newest headers ABI in the lists), missing (packages not
# installed, asked of dpkg-query all at once), need_image and need_vmlinux;
# fails if the lists know no 6.12 headers.
resolve() {
	local p st pkgs
	kver=$(headers_abi)
	[[ -n $kver ]] || return 1
	pkgs=("linux-headers-$kver" qemu-system-x86 busybox-static linux-perf libpfm4-dev
	      sparse "linux-source-$SERIES" gcc libc6-dev make xz-utils zstd cpio kmod
	      flex bison libelf-dev patch python3-docutils dkms ccache pcp)
	declare -A ok=()
	while read -r p st; do
		[[ $st != ii* ]] || ok[$p]=1
	done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${pkgs[@]}" 2>/dev/null)
	missing=()
	for p in "${pkgs[@]}"; do
		[[ -n ${ok[$p]:-} ]] || missing+=("$p")
	done
	[[ -f $CACHE/linux-image-$kver/boot/vmlinuz-$kver ]] && need_image= || need_image=1
	[[ -n $need_image || ! -f $CACHE/linux-image-$kver/boot/vmlinux-$kver ]] &&
		need_vmlinux=1 || need_vmlinux=
}

fetch_image() {
	local dir=$CACHE/linux-image-$kver
	say "downloading linux-image-$kver-unsigned into $dir"
	cache_tmpdir
	local tmp=${tmpdirs[-1]}
	chmod 0777 "$tmp" # apt-get download writes as user _apt
	(cd "$tmp" && apt-get download -q "linux-image-$kver-unsigned")
	dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/root"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
}

# vmlinux_of: boot/vmlinux-$kver from the image's boot/vmlinuz-$kver. The
# bzImage's payload (struct setup_header: payload_offset and payload_length
# at 0x248, counted from the end of the 1 + setup_sects sectors of real-mode
# code at 0x1f1) is the kernel ELF compressed with zstd, and the uncompressed
# size in its last 4 bytes. QEMU boots that ELF through its PVH entry
# (CONFIG_PVH): the guest then skips the decompressor, which took 1.3-2.5 of
# the 5-9 CPU seconds of each TCG boot (measured side by side, 2-core host).
# The kernel is the same; only the decompressor's KASLR is not applied.
vmlinux_of() {
	local boot=$CACHE/linux-image-$kver/boot
	local bz=$boot/vmlinuz-$kver out=$boot/vmlinux-$kver off len sects size magic
	read -r off len < <(od -An -tu4 -j $((0x248)) -N8 "$bz")
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$bz")
	((sects)) || sects=4
	off=$(((sects + 1) * 512 + off))
	magic=$(od -An -tx1 -j "$off" -N4 "$bz" | tr -d ' ')
	[[ $magic == 28b52ffd ]] || die "$bz: the payload is not zstd (magic $magic)"
	size=$(od -An -tu4 -j $((off + len - 4)) -N4 "$bz")
	dd if="$bz" iflag=skip_bytes,count_bytes skip="$off" count=$((len - 4)) bs=1M status=none |
		zstd -qdc >"$out.tmp"
	[[ $(stat -c %s "$out.tmp") -eq $size && $(head -c 4 "$out.tmp") == $'\x7fELF' ]] ||
		die "$bz: the payload did not decompress to a $size-byte ELF"
	mv "$out.tmp" "$out"
}

extract_source_files() {
	local stamp=$CACHE/linux-source.version version
	version=$(dpkg-query -W -f='${Version}' "linux-source-$SERIES")
	[[ -f $stamp && $(<"$stamp") == "$version" ]] && return 0
	say "extracting kselftest headers and checkpatch from $SRC_TARBALL"
	cache_tmpdir
	local tmp=${tmpdirs[-1]}
	tar -xJf "$SRC_TARBALL" -C "$tmp" --strip-components=1 \
		"${SRC_FILES[@]/#/linux-source-$SERIES/}"
	rm -rf "$CACHE/kselftest" "$CACHE/checkpatch"
	mkdir -p "$CACHE/kselftest" "$CACHE/checkpatch"
	mv "$tmp"/tools/testing/selftests/*.h "$CACHE/kselftest/"
	mv "$tmp"/scripts/* "$CACHE/checkpatch/"
	echo "$version" >"$stamp"
}

lists_present || apt_update
resolve || { apt_update && resolve; } ||
	die "no linux-headers-$SERIES.*+deb12-amd64 in the apt lists (is bookworm-security configured?)"
if ((${#missing[@]})) || [[ -n $need_image ]]; then
	# About to download: refresh old lists first, which may also bring a newer kernel.
	if [[ -z $updated ]] && lists_stale; then
		apt_update
		resolve || die "no linux-headers-$SERIES.*+deb12-amd64 in the apt lists"
	fi
fi
if ((${#missing[@]})); then
	need_root "installing ${missing[*]}"
	say "installing ${missing[*]}"
	# pcp's postinst starts pmcd and pmlogger with systemctl, which fails
	# where systemd is not running (a container): there, a systemctl that
	# does nothing stands in while the packages are configured.
	if [[ ! -d /run/systemd/system ]]; then
		cache_tmpdir
		printf '#!/bin/sh\nexit 0\n' >"${tmpdirs[-1]}/systemctl"
		chmod +x "${tmpdirs[-1]}/systemctl"
		PATH=${tmpdirs[-1]}:$PATH apt-get install -y -q --no-install-recommends "${missing[@]}"
	else
		apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
fi
[[ -z $need_image ]] || fetch_image
[[ -z $need_vmlinux ]] || vmlinux_of
extract_source_files
say "ready: kernel $kver, cache $CACHE"
