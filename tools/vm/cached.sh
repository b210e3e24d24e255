#!/bin/bash
# cached.sh [-q] NAME "PATH..." CMD [ARG...] - run a check or build only
# when its inputs changed: CMD runs, and on success its output is kept with
# a digest of every file under the PATHs (and of CMD's words) in
# .build/cached/NAME; the next call with the same digest shows the kept
# output (-q: only says so) and succeeds without running CMD. A failed run
# keeps nothing, so it runs again. Kbuild's products under the PATHs (*.o,
# *.ko, .*.cmd, ...) are not inputs. For deterministic commands only (make
# check: checkpatch; make: the modules, whose kbuild run takes 2 s even
# when it has nothing to do; make perf: tools/perf/pmu-events/check.sh).
# CACHED=0 always runs CMD.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
quiet=0
[[ ${1:-} != -q ]] || { quiet=1; shift; }
name=$1 paths=$2
shift 2
dir=$top/.build/cached
mkdir -p "$dir"

# shellcheck disable=SC2086 # the paths are words
digest=$( {
	printf '%s\n' "$@"
	find $paths -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
		! -name '.*.cmd' ! -name '.*.d' ! -name '*.order' -print0 2>/dev/null |
		LC_ALL=C sort -z | xargs -0 -r sha256sum
} | sha256sum | cut -d' ' -f1)

if [[ ${CACHED:-1} != 0 && -f $dir/$name.digest && $(cat "$dir/$name.digest") == "$digest" ]]; then
	if ((quiet)); then
		echo "$name: inputs unchanged since its last clean run: not run again"
	else
		cat "$dir/$name.out"
		echo "$name: inputs unchanged since its last clean run: the output above is that run's"
	fi
	exit 0
fi
rm -f "$dir/$name.digest"
rc=0
"$@" 2>&1 | tee "$dir/$name.out" || rc=$?
((rc == 0)) && echo "$digest" >"$dir/$name.digest"
exit "$rc"
