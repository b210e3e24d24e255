#!/bin/bash
# build.sh - `make perf`: perf from Debian's linux-source-6.12 with the
# series in tools/perf/patches applied, with the tool's SiFive trace support
# (perf record -e sifive_trace//, perf script, perf report -D).
#
#   $CACHE/perf-src/     tools/ (and the two files of arch/arm64/tools that
#                        perf's build reads on every architecture) from
#                        /usr/src/linux-source-6.12.tar.xz, patched
#   $CACHE/perf-build/   the build (perf's O=); perf-build/perf is the binary
#                        that tools/vm/run-vm.sh puts in the VM
#
# Both are made afresh when the linux-source-6.12 package, the series or
# this script change (perf-build/.stamp holds a hash of them); otherwise
# the script only checks the stamp. The build has libelf and zlib and no
# other optional library (no scripting, no TUI, no libtraceevent, no BPF),
# which keeps it short; the packages it needs come from `make deps`.
# pmu-events (jevents, python3) is on for the socpmu PMUs' events and
# metrics (patch 0008), and only for them: JEVENTS_MODEL=socpmu leaves out
# the CPU models' json (perf list, -M of the host's CPU), which would make
# the build several times longer.
#
# Environment: CACHE (default /var/cache/socpmu), JOBS (default: nproc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
SERIES=6.12
TARBALL=/usr/src/linux-source-$SERIES.tar.xz
SRC=$CACHE/perf-src
OUT=$CACHE/perf-build
JOBS=${JOBS:-$(nproc)}

# Everything optional but libelf and zlib is off
PERF_FLAGS=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_SLANG=1 NO_LIBUNWIND=1
	NO_LIBDW=1 NO_LIBTRACEEVENT=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 JEVENTS_MODEL=socpmu
	NO_LIBNUMA=1 NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_DEMANGLE=1 NO_LIBCRYPTO=1
	NO_LIBZSTD=1 NO_LZMA=1 NO_LIBLLVM=1 NO_CAPSTONE=1 NO_LIBPFM4=1 NO_SDT=1
	NO_JVMTI=1 NO_LIBAIO=1 NO_LIBDEBUGINFOD=1 NO_SHELLCHECK=1)

say() { printf 'perf: %s\n' "$*"; }
die() { printf 'perf: error: %s\n' "$*" >&2; exit 1; }

for tool in flex bison patch xz gcc make python3; do
	command -v "$tool" >/dev/null || die "$tool is missing: run 'make deps' as root"
done
[[ -f /usr/include/libelf.h ]] || die "libelf-dev is missing: run 'make deps' as root"
[[ -f $TARBALL ]] || die "$TARBALL is missing: run 'make deps' as root"
mkdir -p "$CACHE" || die "cannot create $CACHE (set CACHE=... to use another place)"

# The series as `git format-patch --cover-letter` writes it: NNNN-*.patch,
# 0000 being the cover letter
shopt -s nullglob
patches=()
for p in "$here"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
	[[ $(basename "$p") == 0000-* ]] || patches+=("$p")
done
((${#patches[@]})) || die "no patches in $here/patches"

# Patch 0008's JSON must be what the event tables generate today: checked
# again only when the generator's inputs changed (compiling it took 0.8 s of
# every `make check`)
top=$(cd "$here/../.." && pwd)
"$top/tools/vm/cached.sh" pmu-events "$top/include $top/tools/tensix-perf/metrics.c
	$top/tools/tensix-perf/metrics.h $here/pmu-events $here/patches" "$here/pmu-events/check.sh" ||
	die "patch 0008 is stale: regenerate it (tools/perf/pmu-events/gen.sh)"

# One build at a time in this cache
exec 9>"$CACHE/perf.lock"
flock 9

version=$(dpkg-query -W -f='${Version}' "linux-source-$SERIES")
stamp=$({
	echo "linux-source-$SERIES $version"
	sha256sum "${patches[@]}" "${BASH_SOURCE[0]}" | cut -d' ' -f1
} | sha256sum | cut -d' ' -f1)

if [[ -x $OUT/perf && -f $OUT/.stamp && $(<"$OUT/.stamp") == "$stamp" ]]; then
	say "up to date: $OUT/perf"
	exit 0
fi

t0=$SECONDS
say "extracting tools/ from $TARBALL"
rm -rf "$SRC" "$OUT"
mkdir -p "$SRC" "$OUT"
tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 \
	"linux-source-$SERIES/Makefile" \
	"linux-source-$SERIES/tools" \
	"linux-source-$SERIES/arch/arm64/tools/gen-sysreg.awk" \
	"linux-source-$SERIES/arch/arm64/tools/sysreg"

# Without git or the kernel's scripts/, perf takes its version from here
kernelversion=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' \
	"$SRC/Makefile" | paste -sd.)
echo "#define PERF_VERSION \"$kernelversion+socpmu\"" >"$SRC/PERF-VERSION-FILE"

for p in "${patches[@]}"; do
	say "applying $(basename "$p")"
	patch -d "$SRC" -p1 -s -N --no-backup-if-mismatch <"$p" ||
		die "$(basename "$p") does not apply to linux-source-$SERIES $version"
done

say "building into $OUT (${#patches[@]} patches, $JOBS jobs)"
make -s -C "$SRC/tools/perf" O="$OUT" -j"$JOBS" "${PERF_FLAGS[@]}" >"$OUT/build.log" 2>&1 || {
	tail -n 40 "$OUT/build.log" >&2
	die "build failed, log in $OUT/build.log"
}
echo "$stamp" >"$OUT/.stamp"
say "built $OUT/perf ($("$OUT/perf" version)) in $((SECONDS - t0)) s"
