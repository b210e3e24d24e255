#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# install_test.sh TOP - socpmu as a user installs it (kselftest TAP).
#  1 make_install_destdir  `make install DESTDIR=D PREFIX=/usr`: the 7
#                          modules of dkms.conf in lib/modules/<kver>/updates/socpmu
#                          and not the simulator's, no depmod files in D,
#                          the tools, a man page for each, the headers
#                          (all under include/socpmu) and pkg-config files; a program built with
#                          `pkg-config --cflags --libs` against D links
#  2 dkms_build            dkms add + build of dkms.conf (own dkms and source
#                          trees) for the kernel headers of `make deps`:
#                          every module listed is built; install-dkms-src
#                          copies sources only. The trees are at a
#                          fixed place (.build/dkms-test, emptied first) and
#                          the compiler goes through ccache (.build/ccache)
#                          if it is there, so that a run whose sources did
#                          not change replays the compiles: 5 s instead of
#                          16 s (29 CPU seconds). When dkms.conf, the sources,
#                          the kernel headers, dkms and gcc are all those of
#                          the last build that passed (a key in
#                          .build/dkms-test.key), the test is skipped
#                          ("# SKIP", with the key) rather than built again
#  3 vm_session_readme     `tools/vm/run-vm.sh --interactive` (make shell)
#                          with README's snippets typed in: perf counts on
#                          core 2, a Blackhole device is created, the inject
#                          works; the modules come from the installed tree
set -u
top=$(cd "${1:?usage: install_test.sh TOP}" && pwd)
kver=$("$top/tools/vm/kver.sh")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modules=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"/\1/p' "$top/dkms.conf")

# shellcheck source=tools/vm/tap.sh
. "$top/tools/vm/tap.sh"

tap_plan 3

# 1
st=0
d=$tmp/root
if ! make -s -C "$top" install DESTDIR="$d" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	tail -20 "$tmp/install.log" | diag; st=1
fi
for m in $modules; do
	[[ -f $d/lib/modules/$kver/updates/socpmu/$m.ko ]] || { echo "no $m.ko" | diag; st=1; }
done
! compgen -G "$d/lib/modules/$kver/modules.*" >/dev/null || { echo "depmod ran in DESTDIR" | diag; st=1; }
for m in socpmu_sim socpmu_migrate; do
	[[ ! -e $d/lib/modules/$kver/updates/socpmu/$m.ko ]] ||
		{ echo "$m.ko (the simulator) installed without WITH_SIM=1" | diag; st=1; }
done
# Every program has its man page, every header is under include/socpmu/
for f in $(cd "$d/usr/bin" && ls); do
	[[ -e $d/usr/share/man/man1/$f.1 ]] || { echo "no man page for /usr/bin/$f" | diag; st=1; }
done
for f in bin/tensix-perf bin/sifive-perf bin/esp-monitor bin/sifive-nexus-dump bin/esp-gen-soc-header \
	 share/man/man1/tensix-perf.1 share/man/man1/sifive-perf.1 share/man/man1/esp-monitor.1 \
	 include/socpmu/tensix_regs.h include/socpmu/sifive_trace.h include/socpmu/esp_monitor.h \
	 include/socpmu/monitors.h lib/pkgconfig/libsifiveperf.pc lib/pkgconfig/libespmon.pc; do
	[[ -e $d/usr/$f ]] || { echo "no /usr/$f" | diag; st=1; }
done
stray=$(find "$d/usr/include" -mindepth 1 -maxdepth 1 ! -name socpmu)
[[ -z $stray ]] || { echo "headers outside include/socpmu: $stray" | diag; st=1; }
cat >"$tmp/prog.c" <<'C'
#include <esp_monitor.h>
#include <sifive_linux_perf.h>
#include <socpmu/tensix_regs.h>
int main(void)
{
	return (int)(sizeof(&esp_monitor) + sizeof(&perfInit)) + TENSIX_NR_BANKS;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR=$d PKG_CONFIG_LIBDIR=$d/usr/lib/pkgconfig \
	pkg-config --cflags --libs libespmon libsifiveperf 2>&1) || { echo "$flags" | diag; st=1; }
# -I D/usr/include: the system include directory of an installed tree
if ! cc -std=c11 -Wall -Werror -I"$d/usr/include" -o "$tmp/prog" "$tmp/prog.c" $flags 2>"$tmp/cc.log"; then
	diag <"$tmp/cc.log"; st=1
fi
result make_install_destdir $st

# 2
st=0
dkt=$top/.build/dkms-test
src=$dkt/src ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
# built: every module of dkms.conf is in the dkms tree.
built() {
	local m
	for m in $modules; do
		compgen -G "$dkt/dkms/socpmu/$ver/$kver/*/module/$m.ko*" >/dev/null ||
			{ echo "dkms built no $m.ko" | diag; return 1; }
	done
}
if ! command -v dkms >/dev/null; then
	echo "dkms is not installed (make deps installs it)" | diag
	result dkms_build 1
else
	# What the build reads: the tree install-dkms-src makes (dkms.conf and
	# the sources), the kernel headers, dkms and the compiler. When none of
	# them changed since the last build that passed, the build is not made
	# again (it would replay the same compiles: 5 s, 7 CPU seconds).
	make -s -C "$top" install-dkms-src DESTDIR="$tmp/src" >/dev/null
	# sources only: nothing that a build of the tree left behind
	left=$(find "$tmp/src" -type f ! -name '*.[ch]' ! -name Kbuild ! -name dkms.conf)
	[[ -z $left ]] || { echo "install-dkms-src copied $(wc -l <<<"$left") build files: $(head -n 3 <<<"$left")" | diag; st=1; }
	key=$({
		(cd "$tmp/src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		echo "$kver $(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)"
		dkms --version
		gcc --version | head -n 1
	} | sha256sum | cut -c1-32)
	if ((st)); then
		result dkms_build 1
	elif [[ $(cat "$dkt.key" 2>/dev/null) == "$key" ]] && built >/dev/null; then
		skip_test dkms_build "dkms.conf, its sources, the kernel headers, dkms and gcc are those of the last build that passed ($key)"
	else
		rm -f "$dkt.key"
		rm -rf "$dkt"
		mkdir -p "$dkt/dkms"
		mv "$tmp/src" "$src"
		dk=(--dkmstree "$dkt/dkms" --sourcetree "$src/usr/src")
		cc=()
		if [[ -d /usr/lib/ccache ]]; then
			# the copies are new: their times must not keep ccache from the
			# direct mode
			cc=(env "PATH=/usr/lib/ccache:$PATH" "CCACHE_DIR=$top/.build/ccache"
			    "CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime")
		fi
		if ! dkms add -m socpmu -v "$ver" "${dk[@]}" >"$tmp/dkms.log" 2>&1 ||
		   ! "${cc[@]}" dkms build -m socpmu -v "$ver" -k "$kver" \
			--kernelsourcedir "/usr/src/linux-headers-$kver" "${dk[@]}" >>"$tmp/dkms.log" 2>&1; then
			tail -30 "$tmp/dkms.log" | diag; st=1
		fi
		built || st=1
		[[ $st != 0 ]] || echo "$key" >"$dkt.key"
		result dkms_build $st
	fi
fi

# 3: the snippets of README.md's "your own VM session", as written
st=0
snips=$(awk '/^Useful next steps inside your own VM session/ { on = 1; next }
	     on && /^```sh$/ { code = 1; next } code && /^```$/ { exit } code' "$top/README.md")
[[ $(wc -l <<<"$snips") -ge 3 ]] || { echo "README snippets not found" | diag; st=1; }
# The console drops what is typed before the shell reads it (the shell's line
# editor flushes the input when it starts on a line, and a loaded machine runs
# the commands slowly): each line is typed once the shell has prompted for it
# ("/ # ", counted in the log), the first is a comment. The VM's directory
# is kept (.build/install-vm), so that its initramfs is made again only when
# what goes into it changed, as for `make shell`.
# The log is read as it grows on a descriptor of its own, the naps are read
# timeouts on a pipe nobody writes to: no process per look (a tr, grep, wc
# and sleep 10 times a second took 2-3 CPU seconds of the test).
: >"$tmp/vm.log"
exec {logfd}<"$tmp/vm.log" {nap}<> <(:)
prompts=0 seen=
prompted() {
	local chunk text rest
	for ((i = 0; i < 1200 && prompts < $1; i++)); do
		chunk=
		IFS= read -r -d '' -u "$logfd" chunk
		# the last 3 characters of the last look may begin a prompt
		text=$seen$chunk
		rest=${text//'/ # '/}
		prompts=$((prompts + (${#text} - ${#rest}) / 4))
		seen=$text
		((${#seen} <= 3)) || seen=${seen: -3}
		((prompts >= $1)) || read -r -t 0.1 -u "$nap" || true
	done
	read -r -t 0.3 -u "$nap" || true
}
{
	n=0
	while IFS= read -r l; do
		prompted $((++n))
		printf '%s\n' "$l"
	done < <(printf '%s\n' '################################################################' \
		 "$snips" 'echo SNIPPETS-DONE $?' 'exit')
} | timeout 300 "$top/tools/vm/run-vm.sh" --interactive --dir "$top/.build/install-vm" >"$tmp/vm.log" 2>&1 ||
	{ echo "run-vm --interactive failed" | diag; st=1; }
exec {logfd}<&- {nap}<&-
tr -d '\r' <"$tmp/vm.log" >"$tmp/vm.txt"
grep -Eq '^ +[1-9][0-9,]* +tensix_0/fpu_instruction,core=2/' "$tmp/vm.txt" ||
	{ echo "no count above 0 for core 2 (the README starts a workload first)" | diag; st=1; }
grep -q 'Bad event\|not supported\|No such file\|can.t create\|failed' "$tmp/vm.txt" &&
	{ grep 'Bad event\|not supported\|No such file\|can.t create\|failed' "$tmp/vm.txt" | diag; st=1; }
grep -q '^SNIPPETS-DONE 0' "$tmp/vm.txt" || { echo "the last snippet failed" | diag; st=1; }
# the trace of fib: perf report's line for it, and none of the warnings the
# shell once gave (the library's: sink busy without SIFIVE_PERF_MODE, no counter
# for an event on the 2 counters hpm0 had)
grep -Eq '%  \[\.\] fib' "$tmp/vm.txt" || { echo "perf report shows no records in fib" | diag; st=1; }
grep -Eq '^sifive_perf: ' "$tmp/vm.txt" &&
	{ grep -E '^sifive_perf: ' "$tmp/vm.txt" | diag; st=1; }
grep -q 'PMUs: .*esp_0.*pulp_0.*sifive_hpm.*sifive_trace.*tensix_0' "$tmp/vm.txt" ||
	{ echo "not every PMU in the session" | diag; st=1; }
[[ $st == 0 ]] || tail -40 "$tmp/vm.txt" | diag
result vm_session_readme $st

tap_totals
