#!/bin/bash
# seed_build_test.sh SRCDIR FIB_C - the SiFive documentation's build
# instructions work on the one-file library in SRCDIR ($(OUT)/src): its
# example (FIB_C, unchanged) and a program with the usage section's
# includes ("sifive_trace.h", then "sifive_linux_perf.h") build with exactly
#
#	cc -c -finstrument-functions fib.c
#	cc -c sifive_linux_perf.c
#	cc -static -o fib.elf fib.o sifive_linux_perf.o
#
# (-static where libc.a is there) and run up to perfInit(), which without a
# PMU on the host fails cleanly. kselftest TAP output.
set -uo pipefail
src=$(cd "${1:?SRCDIR}" && pwd)
fib=$(realpath "${2:?FIB_C}")
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n $1"; }
not_ok() {
	n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"
	[[ -f $2 ]] && sed "s|^|#   |" "$2"
}

# static when there is a libc.a (the compiler prints its path, else the name)
static=-static
[[ $($cc -print-file-name=libc.a) == /* ]] || static=

# build DIR PROGRAM.c: the seed's three lines in DIR, next to the library's files
build() {
	mkdir -p "$1" && cp "$src"/* "$1"/ && cp "$2" "$1/fib.c" &&
		(cd "$1" && $cc -c -finstrument-functions fib.c && $cc -c sifive_linux_perf.c &&
		 $cc $static -o fib.elf fib.o sifive_linux_perf.o)
}

# runs DIR: fib.elf gets as far as perfInit() (it succeeds where there is a PMU)
runs() {
	(cd "$1" && timeout 60 ./fib.elf) >"$1/run.out" 2>&1
	grep -q -e "perfInit() failed" -e "fib(20) = 6765" -e "perfInit: " "$1/run.out"
}

cat >"$work/usage.c" <<'EOF'
#include <stdio.h>

#include "sifive_trace.h"
#include "sifive_linux_perf.h"

#define traceBaseAddress 0x10000000
#define tfBaseAddress	0x10018000

struct TraceRegMemMap volatile * tmm[] = {(struct TraceRegMemMap*)traceBaseAddress};
struct TfTraceRegMemMap volatile * fmm = (struct TfTraceRegMemMap*)tfBaseAddress;

perfEvent perfCntrList[] = {
	{ .type = perfEventHWGeneral, .code = HW_CPU_CYCLES, .event_data = 0 },
	{ .type = perfEventHWGeneral, .code = HW_INSTRUCTIONS, .event_data = 0 },
};

int main(void)
{
	if (perfInit(sizeof tmm / sizeof tmm[0], 0) != 0) {
		printf("perfInit() failed. Exiting\n");
		return 1;
	}
	if (perfManualInit(perfCntrList, 2, 6, perfCount_Delta, 0) || perfTraceOn())
		return 1;
	perfWriteCntrs();
	perfTraceOff();
	return perfWriteTrace(NULL);
}
EOF

echo "TAP version 13"
echo "1..4"
if build "$work/example" "$fib" >"$work/example.log" 2>&1; then
	ok "the seed's example builds with the seed's lines${static:+ (static)}"
else
	not_ok "the seed's example builds with the seed's lines" "$work/example.log"
fi
if runs "$work/example"; then
	ok "the seed's example runs up to perfInit()"
else
	not_ok "the seed's example runs up to perfInit()" "$work/example/run.out"
fi
if build "$work/usage" "$work/usage.c" >"$work/usage.log" 2>&1 && runs "$work/usage"; then
	ok "#include \"sifive_trace.h\" (the usage section) builds and runs"
else
	not_ok "#include \"sifive_trace.h\" (the usage section) builds and runs" "$work/usage.log"
fi
if (cd "$src" && $cc -std=c11 -Wall -Wextra -Werror -c -o "$work/strict.o" \
	sifive_linux_perf.c) >"$work/strict.log" 2>&1; then
	ok "sifive_linux_perf.c is C11 -Wall -Wextra -Werror clean"
else
	not_ok "sifive_linux_perf.c is C11 -Wall -Wextra -Werror clean" "$work/strict.log"
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
((fail == 0))
