#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cached_test.sh - tools/vm/cached.sh, which `make` (the modules), `make
# sparse`, `make checkpatch` and `make perf` (pmu-events) run their
# commands through, on a made-up tree (a copy of cached.sh in a temporary
# directory, so that its .build/cached is there too):
#  1 runs_when_inputs_change  the first call runs CMD and shows its output;
#                             the same inputs again do not run it and show
#                             the kept output; an edited source, another
#                             CMD word, or CACHED=0 run it again
#  2 build_products_ignored   *.o, *.ko, *.mod, *.mod.c, .*.cmd, .*.d and
#                             *.order files under the PATHs are not inputs
#  3 quiet                    -q: a call that does not run CMD says so in
#                             one line, without the kept output
#  4 failure_keeps_nothing    a failed CMD fails the call and runs again
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tools/vm/tap.sh
. "$here/tap.sh"

tap_plan 4

mkdir -p "$tmp/tools/vm" "$tmp/src/sub"
cp "$here/cached.sh" "$tmp/tools/vm/"
cached=$tmp/tools/vm/cached.sh
echo 'int a;' >"$tmp/src/a.c"
echo '#define B 1' >"$tmp/src/sub/b.h"
runs=$tmp/runs

# cmd WORD: the command cached.sh runs: counts its runs, prints WORD
cat >"$tmp/cmd" <<'EOF'
#!/bin/bash
echo x >>"$RUNS"
echo "ran $1"
exit "${FAIL:-0}"
EOF
chmod +x "$tmp/cmd"
export RUNS=$runs

# call [ARG...]: cached.sh NAME "src" cmd WORD, its output in $tmp/out
call() {
	"$cached" "$@" >"$tmp/out" 2>&1
}
nruns() { wc -l <"$runs" 2>/dev/null || echo 0; }

# 1
st=0
call t1 "$tmp/src" "$tmp/cmd" one || st=1
[[ $(nruns) == 1 ]] && grep -qx 'ran one' "$tmp/out" || st=1
call t1 "$tmp/src" "$tmp/cmd" one || st=1
[[ $(nruns) == 1 ]] && grep -qx 'ran one' "$tmp/out" &&
	grep -q '^t1: inputs unchanged since its last clean run: the output above' "$tmp/out" || st=1
echo 'int a = 1;' >"$tmp/src/a.c"
call t1 "$tmp/src" "$tmp/cmd" one || st=1
[[ $(nruns) == 2 ]] || st=1
call t1 "$tmp/src" "$tmp/cmd" two || st=1
[[ $(nruns) == 3 ]] && grep -qx 'ran two' "$tmp/out" || st=1
CACHED=0 call t1 "$tmp/src" "$tmp/cmd" two || st=1
[[ $(nruns) == 4 ]] || { diag <"$tmp/out"; st=1; }
result runs_when_inputs_change $st

# 2
st=0
: >"$runs"
call t2 "$tmp/src" "$tmp/cmd" x || st=1
for f in a.o sub/b.ko a.mod a.mod.c .a.o.cmd .a.o.d modules.order; do
	echo "$f" >"$tmp/src/$f"
	call t2 "$tmp/src" "$tmp/cmd" x || st=1
	[[ $(nruns) == 1 ]] || { echo "$f counted as an input" | diag; st=1; }
done
echo '#define B 2' >"$tmp/src/sub/b.h"
call t2 "$tmp/src" "$tmp/cmd" x || st=1
[[ $(nruns) == 2 ]] || { echo "sub/b.h not counted as an input" | diag; st=1; }
result build_products_ignored $st

# 3
st=0
: >"$runs"
call -q t3 "$tmp/src" "$tmp/cmd" q || st=1
grep -qx 'ran q' "$tmp/out" || st=1
call -q t3 "$tmp/src" "$tmp/cmd" q || st=1
[[ $(nruns) == 1 && $(cat "$tmp/out") == 't3: inputs unchanged since its last clean run: not run again' ]] ||
	{ diag <"$tmp/out"; st=1; }
result quiet $st

# 4
st=0
: >"$runs"
if FAIL=1 call t4 "$tmp/src" "$tmp/cmd" f; then st=1; fi
call t4 "$tmp/src" "$tmp/cmd" f || st=1
[[ $(nruns) == 2 ]] || st=1
call t4 "$tmp/src" "$tmp/cmd" f || st=1
[[ $(nruns) == 2 ]] || st=1
result failure_keeps_nothing $st

tap_totals
