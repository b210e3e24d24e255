#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# VM tests of the installed SiFive perf library and tool (busybox sh):
#  - the vendor's fib example (tools/libsifiveperf/examples/fib.c, built
#    unchanged, dynamic and static) writes trace.rtd; decoded, fib(20) has
#    its 21891 calls; with the example's own 32 KiB buffer the trace stops
#    on wrap and what is there still decodes; built as the vendor's
#    documentation says (one object, tools/libsifiveperf/amalgamate.sh), too;
#  - sifive-perf record --func on an instrumented program that does not
#    link the library (the expected call count, for every count type),
#    --timer on an unmodified program (samples in its hot function),
#    --func on two threads at once (each thread's calls, each in its own
#    stream), --manual; decode as text, CSV, JSON (Chrome trace events)
#    and summary; list; bad events and static programs refused.
# Needs root, the modules loaded (run_all.sh -m) and `make tools`; skips
# otherwise. Prints kselftest TAP and a Totals line.

PMU_DIR=/sys/bus/event_source/devices
SIM=/sys/devices/socpmu_sim
LIB=/usr/lib/sifive-perf
HPM=spt_tool_hpm_$$
TRACE=spt_tool_tr_$$
TMP=/tmp/sifive_perf_tool.$$

pass=0 fail=0 skip=0 n=0

ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; }
skip_test() { n=$((n + 1)); skip=$((skip + 1)); echo "ok $n $1 # SKIP $2"; }
res() { # NAME [FILE...]: report the status of the command before; show FILEs if it failed
	if [ $? = 0 ]; then
		ok "$1"
		return
	fi
	not_ok "$1"
	shift
	for f in "$@"; do
		[ -f "$f" ] && head -n 20 "$f" | sed "s|^|#   $f: |"
	done
}
totals() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
}

cleanup() {
	cd /
	rm -rf "$TMP"
	[ -e "$SIM/del_device" ] || return 0
	echo "$TRACE" > "$SIM/del_device" 2>/dev/null
	echo "$HPM" > "$SIM/del_device" 2>/dev/null
}

echo "TAP version 13"
NTESTS=20
echo "1..$NTESTS"
why=
if [ "$(id -u)" != 0 ]; then
	why="needs root"
elif [ ! -e "$SIM/new_device" ] || [ ! -e "$PMU_DIR/sifive_trace/type" ] ||
     [ ! -e /dev/sifive-itc ]; then
	why="no socpmu_sim + sifive_trace"
elif ! command -v sifive-perf >/dev/null || [ ! -x "$LIB/examples/fib" ]; then
	why="sifive-perf is not installed (make tools)"
fi
if [ -n "$why" ]; then
	while [ $n -lt $NTESTS ]; do skip_test "sifive_perf_tool" "$why"; done
	totals
	exit 4
fi

trap cleanup EXIT
mkdir -p "$TMP"
cd "$TMP" || exit 1
before=$(ls -d $PMU_DIR/sifive_hpm* 2>/dev/null | tr "\n" " ")
echo "hpm name=$HPM counters=8" > "$SIM/new_device" &&
	echo "trace name=$TRACE" > "$SIM/new_device"
for i in $(seq 50); do
	for p in $PMU_DIR/sifive_hpm*; do
		case " $before " in *" $p "*) ;; *) [ -e "$p/type" ] && pmu=${p##*/} ;; esac
	done
	[ -n "$pmu" ] && grep -q "cpu=" "$PMU_DIR/sifive_trace/encoders" && break
	sleep 0.1
done
if [ -z "$pmu" ]; then
	while [ $n -lt $NTESTS ]; do not_ok "simulated harts"; done
	totals
	exit 1
fi
export SIFIVE_PERF_HPM_PMU=$pmu
echo "# sifive_hpm PMU: $pmu; encoders:"
sed 's/^/#   /' "$PMU_DIR/sifive_trace/encoders"

# count FILE PATTERN: lines matching
count() { grep -c -e "$2" "$1" 2>/dev/null || true; }
# calls SUMMARY FUNCTION COLUMN: a column of decode --format summary
calls() { awk -v f="$2" -v c="$3" '$5 == f { print $c; found = 1 } END { if (!found) print 0 }' "$1"; }

# 1-3: the vendor example, unchanged, with a buffer for all of fib(20)
SIFIVE_PERF_BUFFER_SIZE=16M "$LIB/examples/fib" > fib.out 2> fib.err
rc=$?
[ $rc = 0 -a -s trace.rtd ] && grep -q "fib(20) = 6765" fib.out
res "fib example runs and writes trace.rtd" fib.out fib.err
sifive-perf decode trace.rtd --elf "$LIB/examples/fib" --format summary > fib.sum 2> fib.dec
cat fib.dec
[ "$(calls fib.sum fib 1)" = 21891 -a "$(calls fib.sum fib 2)" = 21891 ]
res "fib example: 21891 calls of fib() decoded" fib.sum fib.dec
grep -q " 0 cut short, 0 error(s)" fib.dec
res "fib example: no decode errors"

# 4: statically linked (libsifiveperf.a), the same
if [ -x "$LIB/examples/fib-static" ]; then
	rm -f trace.rtd
	SIFIVE_PERF_BUFFER_SIZE=16M "$LIB/examples/fib-static" > /dev/null 2>&1
	sifive-perf decode trace.rtd --elf "$LIB/examples/fib-static" --format summary \
		> static.sum 2> /dev/null
	[ "$(calls static.sum fib 1)" = 21891 ]
	res "fib example, static: 21891 calls"
else
	skip_test "fib example, static" "no libc.a"
fi

# 5: the example's own 32 KiB SBA buffer: stop on wrap, and it says so
rm -f trace.rtd
"$LIB/examples/fib" > /dev/null 2> small.err
sifive-perf decode trace.rtd --elf "$LIB/examples/fib" --format csv > small.csv 2> small.dec
size=$(wc -c < trace.rtd)
enters=$(count small.csv ",enter,")
echo "# 32 KiB buffer: $size bytes, $enters entries decoded"
[ "$size" -le 32768 -a "$enters" -gt 50 -a "$enters" -lt 21891 ] && \
	grep -q "filled up" small.err && grep -q " 1 header(s)" small.dec
res "fib example, 32 KiB buffer: stops on wrap, what fits decodes" small.err small.dec

# 6: what the library says it stored is what trace.rtd holds: fib(20) writes
# 43782 records, "N of 43782 record(s) stored, 43782 - N could not be stored"
recs=$(($(count small.csv ",enter,") + $(count small.csv ",exit,")))
lost=$(sed -n 's/.* \([0-9][0-9]*\)\( record(s)\)\{0,1\} could not be stored.*/\1/p' small.err)
said=$(sed -n 's/.* \([0-9][0-9]*\) of \([0-9][0-9]*\) record(s) stored.*/\1 \2/p' small.err)
echo "# 32 KiB buffer: $recs records in the file; library: ${lost:-?} not stored, '${said:-?}'"
[ -n "$lost" ] && [ $((43782 - lost)) = "$recs" ] && [ "$said" = "$recs 43782" ]
res "fib example, 32 KiB buffer: the library's stored/not stored counts match the file" small.err

# 7-9: record --func an instrumented program that does not link the library,
# in every count type; on ITC channel 9 with the SRAM sink, 6 with a 1 MiB SBA sink
for c in delta raw xor; do
	case $c in
	raw) opts="-c 9" ;;
	xor) opts="--sba 1M" ;;
	*) opts= ;;
	esac
	sifive-perf record --func --count $c -e cycles,instructions,dcache_miss,timestamp \
		$opts -o fibi.rtd -- "$LIB/tests/fibi" 15 > fibi.out 2> fibi.err
	rc=$?
	dopts=
	[ $c = raw ] && dopts="-c 9"
	sifive-perf decode fibi.rtd $dopts --elf "$LIB/tests/fibi" --format summary > fibi.sum \
		2> fibi.dec
	[ $rc = 0 -a "$(calls fibi.sum fib 1)" = 1973 -a "$(calls fibi.sum fib 2)" = 1973 ]
	res "record --func --count $c $opts: fib(15) makes 1973 calls" fibi.out fibi.err fibi.sum fibi.dec
done

# 10: the JSON (Chrome trace events) of that trace
sifive-perf decode fibi.rtd --elf "$LIB/tests/fibi" --format json > fibi.json 2> /dev/null
b=$(grep -c '"ph":"B"' fibi.json)
e=$(grep -c '"ph":"E"' fibi.json)
fibs=$(grep -c '"ph":"B".*"name":"fib"' fibi.json)
[ "$b" = "$e" -a "$fibs" = 1973 ] && head -c 23 fibi.json | grep -q displayTimeUnit && \
	grep -q '"ph":"C".*"cycles":' fibi.json && tail -n 1 fibi.json | grep -q '^]}$'
res "decode --format json: nested spans with counters"

# 11: text: headers, counter definitions, symbolised records
sifive-perf decode fibi.rtd --elf "$LIB/tests/fibi" > fibi.txt 2> /dev/null
grep -q "\[Perf Header\].*\[CountType=xor\]" fibi.txt && \
	[ "$(count fibi.txt '\[Perf Cntr Def\]')" = 4 ] && \
	grep -q "\[Func Enter\] fn=0x[0-9a-f]* <fib> from=0x[0-9a-f]* <fib>" fibi.txt && \
	grep -q "\[Name=dcache_miss_mmio_accesses\] \[CntrCSR=0xc03\]" fibi.txt
res "decode text: header, definitions, symbols"

# 12: --timer on an unmodified program: samples where it spends its time
sifive-perf record --timer=2000 -o spin.rtd -- "$LIB/tests/spin" 400 > spin.out 2> spin.err
rc=$?
sifive-perf decode spin.rtd --elf "$LIB/tests/spin" --format summary > spin.sum 2> spin.dec
total=$(awk 'NR > 1 { s += $3 } END { print s + 0 }' spin.sum)
hot=$(calls spin.sum spin_work 3)
echo "# --timer: $hot of $total samples in spin_work"
[ $rc = 0 -a "$total" -ge 20 -a $((hot * 2)) -ge "$total" ]
res "record --timer: samples of an unmodified program, mostly in spin_work" spin.out spin.err spin.sum spin.dec

# 13: two threads at once, each in its own stream
sifive-perf record -e cycles,instructions -o threads.rtd -- "$LIB/tests/threads" 500 \
	> threads.out 2> threads.err
rc=$?
sifive-perf decode threads.rtd --elf "$LIB/tests/threads" --format csv > threads.csv \
	2> threads.dec
a=$(count threads.csv ",enter,0x[0-9a-f]*,work_a,")
bb=$(count threads.csv ",enter,0x[0-9a-f]*,work_b,")
sa=$(awk -F, '$6 == "work_a" { print $1 }' threads.csv | sort -u | wc -l)
sb=$(awk -F, '$6 == "work_b" { print $1 }' threads.csv | sort -u | wc -l)
same=$(awk -F, '$6 == "work_a" { a[$1] = 1 } $6 == "work_b" && ($1 in a) { n++ } END { print n + 0 }' threads.csv)
echo "# threads: work_a $a calls in $sa stream(s), work_b $bb in $sb"
[ $rc = 0 -a "$a" = 500 -a "$bb" = 500 -a "$sa" = 1 -a "$sb" = 1 -a "$same" = 0 ]
res "record --func two threads at once: 500 calls each, one stream each" threads.out threads.err threads.dec

# 14: --timer on two threads at once: each samples in its own stream
sifive-perf record --timer=2000 -o spin2.rtd -- "$LIB/tests/spin" 300 2 > spin2.out 2>&1
rc=$?
sifive-perf decode spin2.rtd --elf "$LIB/tests/spin" --format csv > spin2.csv 2> spin2.dec
# where the samples are (shown if the test fails): kind, stream, function
awk -F, 'NR > 1 { print $4, $1, $6 }' spin2.csv | sort | uniq -c | sort -rn > spin2.hist
# per stream: samples in spin_work
awk -F, '$4 == "isr" && $6 ~ /^spin_work/ { n[$1]++ } END { for (s in n) print s, n[s] }' \
	spin2.csv > spin2.per
streams=$(wc -l < spin2.per)
per=$(awk 'NR == 1 || $2 < m { m = $2 } END { print m + 0 }' spin2.per)
echo "# --timer, 2 threads: samples in spin_work from $streams stream(s), at least $per each"
[ $rc = 0 -a "$streams" = 2 -a "$per" -ge 10 ]
res "record --timer two threads: both sampled, each in its own stream" spin2.out spin2.per \
	spin2.dec spin2.hist

# 15: --manual: the program's own perfWriteCntrs() calls; a child it forks
# and that exits runs the atexit handlers it inherited, which must leave
# the trace to the traced process (they printed "perfTraceOff(): the
# library is not initialised" and "perfWriteTrace(): ...")
sifive-perf record --manual -o manual.rtd -- "$LIB/tests/manual" 25 fork > manual.out 2>&1
rc=$?
sifive-perf decode manual.rtd --format csv > manual.csv 2> /dev/null
[ $rc = 0 -a "$(count manual.csv ',manual,')" = 25 ] && ! grep -q 'perfTraceOff\|perfWriteTrace' manual.out
res "record --manual: 25 records, a forked child's exit says nothing" manual.out

# 16: list
sifive-perf list > list.out 2>&1
grep -q "dcache_miss" list.out && grep -q "branch-misses" list.out && \
	grep -q "cpu=0 hart=0" list.out
res "list: sysfs aliases, libpfm4 names, encoders" list.out

# 17: bad input is refused
sifive-perf record -e no_such_event -- "$LIB/tests/spin" 1 > bad.out 2>&1
rc1=$?
sifive-perf record -- "$LIB/examples/fib-static" > static.out 2>&1
rc2=$?
[ -x "$LIB/examples/fib-static" ] || rc2=1
[ $rc1 = 2 -a $rc2 = 1 ] && grep -q "unknown event" bad.out
res "record refuses unknown events and static programs" bad.out static.out

# 18: a program whose set-up fails runs no further
SIFIVE_PERF_BUFFER_SIZE=nonsense sifive-perf record --func -o x.rtd -- "$LIB/tests/fibi" 3 \
	> setup.out 2>&1
rc=$?
[ $rc != 0 ] && grep -q "could not be set up" setup.out && ! grep -q "fib(3)" setup.out
res "record reports a library set-up failure" setup.out

# 19: the example built as the vendor's documentation says: one object, the
# library as one sifive_linux_perf.c (issue 16)
if [ -x "$LIB/examples/fib-seed" ]; then
	rm -f trace.rtd
	SIFIVE_PERF_BUFFER_SIZE=16M "$LIB/examples/fib-seed" > seed.out 2>&1
	sifive-perf decode trace.rtd --elf "$LIB/examples/fib-seed" --format summary \
		> seed.sum 2> /dev/null
	grep -q "fib(20) = 6765" seed.out && [ "$(calls seed.sum fib 1)" = 21891 ]
	res "fib example built with the seed's line (one object): 21891 calls" seed.out seed.sum
else
	not_ok "fib example built with the seed's line: $LIB/examples/fib-seed is missing"
fi

# 20: a user's record in a sticky directory that holds root's old
# trace.rtd (which the user cannot remove), where the user's set-up may
# fail too (Permission denied): the old file is not reported as the new
# trace (issue 16). busybox su needs nobody in /etc/passwd.
added_nobody=
if [ ! -e /etc/passwd ]; then
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" > /etc/passwd && added_nobody=file
elif ! grep -q "^nobody:" /etc/passwd; then
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> /etc/passwd && added_nobody=line
fi
mkdir -m 1777 sticky && head -c 3729 /dev/zero > sticky/trace.rtd
(cd sticky && su nobody -s /bin/sh -c "sifive-perf record -- $LIB/tests/spin 1") \
	> stale.out 2>&1
rc=$?
case $added_nobody in
file) rm -f /etc/passwd ;;
line) sed -i '/^nobody:x:65534:65534:nobody:/d' /etc/passwd ;;
esac
cat stale.out | sed 's/^/# nobody: /'
[ $rc != 0 ] && grep -q "cannot remove the old trace.rtd" stale.out && \
	! grep -q "3729 bytes" stale.out && [ "$(wc -c < sticky/trace.rtd)" = 3729 ]
res "record as another user: root's trace.rtd in a sticky directory is not reported as new" stale.out

totals
[ $fail = 0 ]
