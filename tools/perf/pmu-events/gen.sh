#!/bin/bash
# gen.sh - (re)generate the JSON of patch 0008 from the event tables.
#
#   tools/perf/pmu-events/gen.sh OUTDIR
#
# Builds gen-pmu-events.c (it includes include/socpmu/*.h and
# tools/tensix-perf/metrics.c) and writes OUTDIR/<model>/sys/*.json, which
# is tools/perf/pmu-events/arch/common/socpmu/ in the perf tree: copy it
# there in a tree with the series applied and refresh 0008 with
# git format-patch.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${1:?usage: gen.sh OUTDIR}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -O1 -Wall -Wextra -Werror -I"$top/include" \
	-I"$top/tools/tensix-perf" -o "$bin" "$here/gen-pmu-events.c" -lm
rm -rf "$out"
"$bin" "$out"
