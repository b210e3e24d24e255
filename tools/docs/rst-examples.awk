# SPDX-License-Identifier: GPL-2.0-only
# rst-examples.awk - turn the examples of an .rst file into a test script
# (busybox sh) that runs them as written, in order, in one shell, and
# compares what they print with what the document shows.
#
#   awk -v runner=tools/docs/examples-runner.sh -f rst-examples.awk FILE.rst
#
# An example is the literal block after a line that is the rst comment
# ".. vm-example" (nothing else on the line). In it, a line "# CMD" is a
# command run as root (a line ending in "\" goes on at the next line); the
# lines after a command, up to the next one, are what it prints: see
# examples-runner.sh for how they are compared. Commands without shown
# output must succeed.
function flush_cmd() {
	if (cmd == "")
		return
	printf "run %s <<'__SOCPMU_EXPECT__'\n", q(FILENAME ":" cmdline)
	printf "%s", expect
	printf "__SOCPMU_EXPECT__\n"
	printf "{\n%s\n} >\"$OUT\" 2>&1\ncheck $?\n", cmd
	cmd = ""; expect = ""
}
function q(s) { gsub(/'/, "'\\''", s); return "'" s "'" }
BEGIN {
	while ((getline l < runner) > 0)
		print l
	n = 0
}
/^\.\. vm-example[ \t]*$/ { armed = 1; next }
armed && !inblock && /::[ \t]*$/ { inblock = 1; started = 0; n++; next }
inblock {
	if ($0 ~ /^[ \t]*$/) {
		if (started) blank++
		next
	}
	if ($0 !~ /^  /) {
		flush_cmd(); inblock = 0; armed = 0; blank = 0
		next
	}
	started = 1
	line = substr($0, 3)
	if (cont) {
		cmd = cmd "\n" line
		cont = line ~ /\\$/
		next
	}
	if (line ~ /^# /) {
		flush_cmd()
		cmd = substr(line, 3); cmdline = FNR
		cont = line ~ /\\$/
		next
	}
	if (cmd == "") {
		printf "echo %s; fail=$((fail + 1))\n", q("# " FILENAME ":" FNR ": output before any command")
		next
	}
	expect = expect line "\n"
	next
}
END {
	flush_cmd()
	if (n == 0)
		printf "echo %s; fail=$((fail + 1))\n", q("# " FILENAME ": no example marked '.. vm-example'")
	print "finish"
}
