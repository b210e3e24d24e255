#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# patch_test.sh TOP - checks of the tt-kmd patches (tools/tt-kmd/patches),
# kselftest TAP output:
#  - the files the patches add to tt-kmd (tensix_noc.c, tensix_noc.h) come
#    out of the patches applied in order on an empty tree;
#  - the struct tt_noc_card they give tt-kmd has the members, in the order,
#    of include/socpmu/tt_noc.h's (the bridge reads tt-kmd's structure:
#    a member missing or moved there is a wrong read);
#  - with TT_KMD_SRC (a tt-kmd git checkout; the patches are made against
#    4af7192) the patches apply with git am and tt-kmd builds with W=1
#    without a warning against KDIR (default: this machine's kernel
#    headers). tt-kmd is in no package registry, so without it this one
#    is skipped.
set -uo pipefail
top=$(cd "${1:?TOP}" && pwd)

# shellcheck source=tools/vm/tap.sh
. "$top/tools/vm/tap.sh"

patches=("$top"/tools/tt-kmd/patches/*.patch)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 3

# members: a struct's body from a C file, comments and blank lines out,
# white space made one blank
members() {
	awk -v s="struct $2 {" 'index($0, s) == 1 { on = 1; next }
		on && /^};/ { exit } on { print }' "$1" |
		sed -e 's|//.*||' -e 's|/\*.*\*/||' -e 's/[[:space:]]\+/ /g' \
			-e 's/^ //' -e 's/ $//' | grep -v '^$'
}

git init -q "$tmp/t"
rc=0
for p in "${patches[@]}"; do
	if ! git -C "$tmp/t" apply --include=tensix_noc.c --include=tensix_noc.h "$p" \
		2>"$tmp/apply.err"; then
		echo "${p##*/} does not apply after the ones before it" >>"$tmp/apply.err"
		rc=1
		break
	fi
done
[[ -f $tmp/t/tensix_noc.h && -f $tmp/t/tensix_noc.c ]] || rc=1
if ((rc == 0)); then ok "patches_apply_in_order"; else not_ok "patches_apply_in_order" "$tmp/apply.err"; fi

members "$tmp/t/tensix_noc.h" tt_noc_card >"$tmp/kmd" 2>/dev/null
members "$top/include/socpmu/tt_noc.h" tt_noc_card >"$tmp/socpmu"
if [[ -s $tmp/socpmu ]] && diff -u "$tmp/socpmu" "$tmp/kmd" >"$tmp/diff"; then
	ok "struct_tt_noc_card_matches_tt_noc_h ($(wc -l <"$tmp/socpmu") members)"
else
	not_ok "struct_tt_noc_card_matches_tt_noc_h" "$tmp/diff"
fi

if [[ -z ${TT_KMD_SRC:-} ]]; then
	skip_test "tt_kmd_builds_with_the_patches" "no TT_KMD_SRC (a tt-kmd checkout)"
else
	kdir=${KDIR:-/lib/modules/$(uname -r)/build}
	if git clone -q "$TT_KMD_SRC" "$tmp/kmd-src" 2>"$tmp/build.log" &&
		git -C "$tmp/kmd-src" checkout -q 4af7192 2>>"$tmp/build.log" &&
		git -C "$tmp/kmd-src" -c user.name=t -c user.email=t@t am -q "${patches[@]}" \
			>>"$tmp/build.log" 2>&1 &&
		make -C "$kdir" M="$tmp/kmd-src" W=1 modules >>"$tmp/build.log" 2>&1 &&
		! grep -q 'warning:' "$tmp/build.log"; then
		ok "tt_kmd_builds_with_the_patches ($kdir)"
	else
		grep -E 'warning:|error|fatal' "$tmp/build.log" | head -20 >"$tmp/build.err"
		not_ok "tt_kmd_builds_with_the_patches ($kdir)" "$tmp/build.err"
	fi
fi
tap_totals
