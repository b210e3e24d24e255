#!/bin/bash
# check.sh - is patch 0008's JSON what gen.sh generates from the tables?
#
#   tools/perf/pmu-events/check.sh
#
# Regenerates the JSON into a temporary directory and compares it with the
# files that tools/perf/patches/0008-*.patch creates under
# tools/perf/pmu-events/arch/common/socpmu/. tools/perf/build.sh runs it
# first, so an event table or metric changed without refreshing the patch
# fails `make perf`. Exit 0 when they match, 1 with the differences.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patches=("$here"/../patches/0008-*.patch)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/gen.sh" "$tmp/gen" 2>/dev/null
# The patch's new files under arch/common/socpmu: their '+' lines
mkdir -p "$tmp/patch"
awk -v out="$tmp/patch" '
	/^diff --git / { f = ""; next }
	/^\+\+\+ b\/tools\/perf\/pmu-events\/arch\/common\/socpmu\// {
		f = substr($2, length("b/tools/perf/pmu-events/arch/common/socpmu/") + 1)
		gsub("/", "_", f); f = out "/" f; printf "" > f; next
	}
	f && /^@@/ { next }
	f && /^\+/ { print substr($0, 2) > f; next }
	/^-- $/ { f = "" }
' "${patches[0]}"

status=0 n=0
while read -r p; do
	name=$(tr / _ <<<"${p#"$tmp/gen/"}")
	n=$((n + 1))
	if ! diff -u "$tmp/patch/$name" "$p" >"$tmp/diff" 2>&1; then
		echo "pmu-events: ${p#"$tmp/gen/"} differs from patch 0008" \
			"(tools/perf/pmu-events/gen.sh, then refresh 0008):"
		head -n 20 "$tmp/diff"
		status=1
	fi
done < <(find "$tmp/gen" -type f | sort)
m=$(find "$tmp/patch" -type f | wc -l)
if ((m != n)); then
	echo "pmu-events: patch 0008 has $m JSON files, gen.sh writes $n"
	status=1
fi
exit $status
