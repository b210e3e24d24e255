#!/bin/bash
# doccheck.sh TOP - checks of Documentation/, kselftest TAP output:
#  - every .rst renders with docutils without a warning (as rst2html
#    --halt=warning, all in one Python process; skipped without
#    python3-docutils);
#  - Documentation/sim.rst's "Model types" names every model type of
#    drivers/sim (the types new_device accepts), and sim.rst names every
#    debugfs file the models create;
#  - the commands have man pages (tools/*/*.1), which groff -ww and man
#    --warnings render without a warning and their tool's install rule
#    installs in man1.
set -uo pipefail
top=$(cd "${1:?TOP}" && pwd)
cd "$top" || exit 1

# shellcheck source=tools/vm/tap.sh
. "$top/tools/vm/tap.sh"

mapfile -t rsts < <(find Documentation -name '*.rst' | LC_ALL=C sort)
mapfile -t types < <(awk '/^const struct socpmu_sim_type socpmu_sim_/ { on = 1 }
	on && match($0, /\.name = "[^"]*"/) { print substr($0, RSTART + 9, RLENGTH - 10); on = 0 }' \
	drivers/sim/*.c)
# The "Model types" section of sim.rst: from its heading to the next heading
models=$(awk '{ l[NR] = $0 } END {
	for (i = 1; i <= NR; i++) {
		if (l[i] == "Model types" && l[i + 1] ~ /^=+$/) { on = 1; i++; continue }
		if (on && l[i] != "" && l[i + 1] ~ /^=+$/) exit
		if (on) print l[i]
	} }' Documentation/sim.rst)

# Man pages: one for each command a user runs, every one lint-free
required=(tools/tensix-perf/tensix-perf.1 tools/sifive-perf/sifive-perf.1
	  tools/libespmon/esp-monitor.1)
mapfile -t mans < <(find tools -name '*.1' | LC_ALL=C sort)

tap_plan $((${#rsts[@]} + ${#types[@]} + 2 + 2 * ${#mans[@]}))

# All the .rst files in one Python process (rst2html started once per file
# took 1.9 s for 9 files): "== ok FILE" or "== bad FILE", then its messages.
# --halt=warning as rst2html has it: halt_level 2.
render_rsts() {
	"$py" - "$@" <<'PY'
import io, os, sys
import docutils.core, docutils.utils
for f in sys.argv[1:]:
    msgs = io.StringIO()
    try:
        docutils.core.publish_file(source_path=f, destination_path=os.devnull,
                                   writer_name="html",
                                   settings_overrides={"halt_level": 2,
                                                       "warning_stream": msgs})
        status = "ok"
    except docutils.utils.SystemMessage as e:
        if not msgs.getvalue():
            msgs.write(f"{e}\n")
        status = "bad"
    print(f"== {status} {f}")
    sys.stdout.write(msgs.getvalue())
PY
}
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import docutils.core' 2>/dev/null; then
		py=$p
		break
	fi
done
if [[ -z $py ]]; then
	for f in "${rsts[@]}"; do
		skip_test "$f renders without warnings" "no docutils (apt-get install python3-docutils)"
	done
else
	rendered=0
	while IFS= read -r l; do
		case $l in
		"== ok "*)
			rendered=$((rendered + 1))
			ok "${l#== ok } renders without warnings"
			;;
		"== bad "*)
			rendered=$((rendered + 1))
			not_ok "${l#== bad } renders without warnings"
			;;
		*) printf '#   %s\n' "$l" ;;
		esac
	done < <(render_rsts "${rsts[@]}" 2>&1)
	# the files docutils did not get to (it stopped): not rendered
	for f in "${rsts[@]:rendered}"; do
		not_ok "$f renders without warnings"
		echo "#   not rendered: docutils stopped before it"
	done
fi

for t in "${types[@]}"; do
	if grep -q "^\`\`$t\`\`\$" <<<"$models"; then
		ok "sim.rst: model type $t is listed in \"Model types\""
	else
		not_ok "sim.rst: model type $t is listed in \"Model types\""
	fi
done

missing=()
while IFS= read -r f; do
	grep -q -e "\`\`$f\`\`" -e "/debug/$f\$" Documentation/sim.rst || missing+=("$f")
done < <(sed -n 's/.*debugfs_create_file("\([^"]*\)".*/\1/p' drivers/sim/*.c | sort -u)
if ((${#missing[@]} == 0)); then
	ok "sim.rst: every debugfs file of the models is described"
else
	not_ok "sim.rst: every debugfs file of the models is described"
	echo "#   not in sim.rst: ${missing[*]}"
fi

absent=()
for m in "${required[@]}"; do [[ -f $m ]] || absent+=("$m"); done
if ((${#absent[@]} == 0)); then
	ok "man pages: tensix-perf, sifive-perf, esp-monitor"
else
	not_ok "man pages: tensix-perf, sifive-perf, esp-monitor"
	echo "#   missing: ${absent[*]}"
fi

for m in "${mans[@]}"; do
	# groff's warnings (-ww) and man's own (--warnings) on stderr
	out=$(groff -man -Tutf8 -ww -z "$m" 2>&1
	      if command -v man >/dev/null; then
		      MANWIDTH=80 man --warnings -E UTF-8 -l "$m" 2>&1 >/dev/null
	      fi)
	if [[ -z $out ]] && groff -man -Tutf8 -P-cbou "$m" 2>/dev/null | grep -q "^NAME"; then
		ok "$m renders without warnings"
	else
		not_ok "$m renders without warnings"
		sed 's/^/#   /' <<<"$out"
	fi
	d=$(dirname "$m")
	if grep -Eq "install .*/$(basename "$m")( |\$)" "$d/Makefile" &&
	   grep -Eq "man1/$(basename "$m")\$" "$d/Makefile"; then
		ok "$m is installed by $d/Makefile (man1)"
	else
		not_ok "$m is installed by $d/Makefile (man1)"
	fi
done

tap_totals
