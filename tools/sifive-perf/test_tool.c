// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of sifive-perf (run by `make check` in tools/sifive-perf):
 * event names (libpfm4, sysfs aliases from a fake PMU directory, the
 * built-in U74 table, PMU/TERMS/ and rHEX, and the bad ones), ELF
 * symbols of this very program (a PIE: the load bias is found from
 * addresses), and `sifive-perf decode` end to end on a trace made here:
 * records of this program's functions, encoded as libsifiveperf encodes
 * them and turned into Nexus bytes, decoded as text, CSV, JSON (Chrome
 * trace events: nested spans, counter deltas) and a summary. Needs no PMU.
 * Output is kselftest TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "events.h"
#include "sifive-perf.h"
#include "sifive_perf_format.h"
#include "spf_nexus_enc.h"

static unsigned int test_nr, pass, fail;
static bool test_ok;
static char tmpdir[] = "/tmp/sifive-perf-test.XXXXXX";

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			test_ok = false;				\
		}							\
	} while (0)

/* Functions whose addresses go into the trace */
__attribute__((noinline)) int outer_fn(int x) { return x + 1; }
__attribute__((noinline)) int inner_fn(int x) { return x * 2; }
__attribute__((noinline)) int sampled_fn(int x)
{
	volatile int i, s = 0;

	for (i = 0; i < x; i++)
		s += i * x;
	return s;
}

static void write_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Lines containing both @a and @b */
static unsigned int count_lines(const char *s, const char *a, const char *b)
{
	unsigned int n = 0;

	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		n += strstr(line, a) && strstr(line, b);
		s = e ? e + 1 : NULL;
	}
	return n;
}

static unsigned int count_str(const char *s, const char *pat)
{
	unsigned int n = 0;

	while (s && (s = strstr(s, pat))) {
		n++;
		s += strlen(pat);
	}
	return n;
}

static void test_events(void)
{
	struct sp_event ev, evs[8];
	char dir[256], path[512], err[256];

	/* a fake sifive_hpm PMU with two aliases */
	snprintf(dir, sizeof(dir), "%s/pmu", tmpdir);
	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/my_alias", dir);
	write_text(path, "type=2,event_data=0x4001\n");
	snprintf(path, sizeof(path), "%s/events/timestamp", dir);
	write_text(path, "type=0,code=0x8000\n");
	events_set_pmu_dir(dir);

	CHECK(!event_parse("cycles", &ev, err, sizeof(err)) && ev.type == 0 && ev.code == 1);
	CHECK(!event_parse("instructions", &ev, err, sizeof(err)) && ev.type == 0 && ev.code == 2);
	/* libpfm4: perf's generic names */
	CHECK(!event_parse("branch-misses", &ev, err, sizeof(err)) && ev.type == 0 && ev.code == 6);
	CHECK(!event_parse("ref-cycles", &ev, err, sizeof(err)) && ev.type == 0 && ev.code == 10);
	CHECK(!event_parse("L1-dcache-load-misses", &ev, err, sizeof(err)) && ev.type == 1 &&
	      ev.code == 1);
	CHECK(!event_parse("L1-icache-load-misses", &ev, err, sizeof(err)) && ev.type == 1 &&
	      ev.code == (1 << 3 | 1));
	CHECK(!event_parse("dTLB-store-misses", &ev, err, sizeof(err)) && ev.type == 1 &&
	      ev.code == (3 << 3 | 1 << 1 | 1));
	/* sysfs aliases */
	CHECK(!event_parse("my_alias", &ev, err, sizeof(err)) && ev.type == 2 &&
	      ev.event_data == 0x4001);
	CHECK(!event_parse("timestamp", &ev, err, sizeof(err)) && ev.type == 0 && ev.code == 0x80);
	/* the built-in U74 table */
	CHECK(!event_parse("dcache_miss", &ev, err, sizeof(err)) && ev.type == 2 &&
	      ev.event_data == 0x202);
	CHECK(!event_parse("branch_direction_misprediction", &ev, err, sizeof(err)) &&
	      ev.type == 2 && ev.event_data == 0x2001);
	/* PMU/TERMS/ and raw */
	CHECK(!event_parse("sifive_hpm/type=1,cache_id=1,op_id=0,result_id=1/", &ev, err,
			   sizeof(err)) && ev.type == 1 && ev.code == 9);
	CHECK(!event_parse("sifive_hpm/my_alias/", &ev, err, sizeof(err)) && ev.type == 2 &&
	      ev.event_data == 0x4001);
	CHECK(!event_parse("sifive_hpm/type=2,event_data=0x20001/", &ev, err, sizeof(err)) &&
	      ev.type == 2 && ev.event_data == 0x20001);
	CHECK(!event_parse("r102", &ev, err, sizeof(err)) && ev.type == 2 && ev.event_data == 0x102);
	/* bad ones */
	CHECK(event_parse("no_such_event", &ev, err, sizeof(err)) && strstr(err, "unknown"));
	CHECK(event_parse("cpu/cycles/", &ev, err, sizeof(err)));
	CHECK(event_parse("sifive_hpm/type=7/", &ev, err, sizeof(err)));
	CHECK(event_parse("sifive_hpm/bogus=1/", &ev, err, sizeof(err)));
	CHECK(event_parse("sifive_hpm/type=2", &ev, err, sizeof(err)));
	CHECK(event_parse("task-clock", &ev, err, sizeof(err)));	/* a software event */
	/* lists, with commas inside PMU/.../ */
	CHECK(events_parse_list("cycles,sifive_hpm/type=2,event_data=0x202/,r4001,timestamp", evs,
				8, err, sizeof(err)) == 4);
	CHECK(evs[1].type == 2 && evs[1].event_data == 0x202 && evs[2].event_data == 0x4001 &&
	      evs[3].code == 0x80);
	CHECK(events_parse_list("cycles,,nope", evs, 8, err, sizeof(err)) == -1);
	{
		char name[EV_NAME_LEN];

		event_def_name(1, 1 << 3 | 1, 0, name, sizeof(name));
		CHECK(!strcmp(name, "L1I-read-miss"));
		event_def_name(2, 0, 0x202, name, sizeof(name));
		CHECK(!strcmp(name, "dcache_miss_mmio_accesses"));
		event_def_name(0, 0x80, 0, name, sizeof(name));
		CHECK(!strcmp(name, "timestamp"));
	}
	events_set_pmu_dir(NULL);
}

static void test_elf(void)
{
	uint64_t starts[3] = {
		(uintptr_t)outer_fn, (uintptr_t)inner_fn, (uintptr_t)sampled_fn,
	};
	uint64_t pcs[1] = { (uintptr_t)sampled_fn + 2 };
	const struct elf_func *fn;
	struct elfsym es;
	uint64_t off;

	CHECK(!elfsym_load(&es, "/proc/self/exe"));
	CHECK(es.nfuncs > 10 && es.dynamic && !es.instrumented);
	CHECK(elfsym_guess_bias(&es, starts, 3, pcs, 1) == 4);
	fn = elfsym_lookup(&es, (uintptr_t)inner_fn, &off);
	CHECK(fn && !strcmp(fn->name, "inner_fn") && off == 0);
	fn = elfsym_lookup(&es, (uintptr_t)sampled_fn + 2, &off);
	CHECK(fn && !strcmp(fn->name, "sampled_fn") && off == 2);
	/* from samples only, the first ones in another object (a shared library) */
	{
		uint64_t mixed[5] = {
			0x7f0000001234ULL, 0x7f0000005678ULL, (uintptr_t)sampled_fn + 2,
			(uintptr_t)outer_fn, (uintptr_t)sampled_fn + 4,
		};

		CHECK(elfsym_guess_bias(&es, NULL, 0, mixed, 5) == 3);
		fn = elfsym_lookup(&es, (uintptr_t)sampled_fn + 4, &off);
		CHECK(fn && !strcmp(fn->name, "sampled_fn") && off == 4);
	}
	/*
	 * more samples in a library first than the guess takes proposers
	 * from, most of them in the program
	 */
	{
		uint64_t late[30];
		int i;

		for (i = 0; i < 10; i++)
			late[i] = 0x7f0000001000ULL + 0x1234 * (uint64_t)i;
		for (; i < 30; i++)
			late[i] = (uintptr_t)sampled_fn + 2;
		CHECK(elfsym_guess_bias(&es, NULL, 0, late, 30) == 20);
		fn = elfsym_lookup(&es, (uintptr_t)sampled_fn + 2, &off);
		CHECK(fn && !strcmp(fn->name, "sampled_fn") && off == 2);
	}
	CHECK(elfsym_guess_bias(&es, NULL, 0, starts, 3) == 3);
	fn = elfsym_lookup(&es, (uintptr_t)outer_fn, &off);
	CHECK(fn && !strcmp(fn->name, "outer_fn"));
	elfsym_free(&es);
	CHECK(elfsym_load(&es, "/etc/passwd") == -ENOEXEC);
	CHECK(elfsym_load(&es, "/nonexistent") == -ENOENT);
}

/*
 * Record addresses lose bit 0: A stands for A or A + 1. A function that
 * starts at A + 1 wins, otherwise the function containing A (as perf's
 * --itrace=o resolves them), also at the last byte of a function.
 */
static void test_elf_odd(void)
{
	struct elf_func funcs[] = {
		{ 0x1000, 0x11, "even" },	/* ends at 0x1011 */
		{ 0x1011, 0x2f, "odd" },	/* -O1 on x86: not aligned */
		{ 0x1040, 0x3, "short" },	/* ends at 0x1043, then a gap */
		{ 0x1050, 0x0, "unsized" },	/* up to the next symbol */
		{ 0x1063, 0x10, "last" },
	};
	struct elfsym es = { .funcs = funcs, .nfuncs = 5 };
	static const struct { uint64_t a; const char *name; uint64_t off; } want[] = {
		{ 0x1000, "even", 0 }, { 0x100e, "even", 0xe }, { 0x1010, "odd", 0 },
		{ 0x1012, "odd", 1 }, { 0x103e, "odd", 0x2d }, { 0x1040, "short", 0 },
		{ 0x1042, "short", 2 }, { 0x1044, NULL, 0 }, { 0x1050, "unsized", 0 },
		{ 0x1060, "unsized", 0x10 }, { 0x1062, "last", 0 }, { 0x1070, "last", 0xd },
		{ 0x1074, NULL, 0 }, { 0xffe, NULL, 0 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t off = ~0ULL;
		const struct elf_func *fn = elfsym_lookup(&es, want[i].a, &off);

		if (!want[i].name) {
			CHECK(!fn);
			continue;
		}
		CHECK(fn && !strcmp(fn->name, want[i].name) && off == want[i].off);
		if (!fn || strcmp(fn->name, want[i].name) || off != want[i].off)
			printf("#   %#" PRIx64 ": %s+%#" PRIx64 ", want %s+%#" PRIx64 "\n",
			       want[i].a, fn ? fn->name : "(none)", off, want[i].name,
			       want[i].off);
	}
}

/*
 * A trace of two threads: outer_fn calling inner_fn 5 times, then 3
 * samples in sampled_fn; a second stream with 2 manual records. Delta
 * counts, cycles += 100 per record, a raw event += 1.
 */
static void make_trace(const char *path)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[2] = {
		{ .type = 0, .code = 1, .info = SPF_INFO(0xc00, 64) },
		{ .type = 2, .event_data = 0x202, .info = SPF_INFO(0xc03, 40) },
	};
	uint64_t v[2] = { 0, 0 }, t = 5000, outer = (uintptr_t)outer_fn, inner = (uintptr_t)inner_fn;
	struct spf_enc_state st;
	struct spf_enc_cfg cfg;
	struct spf_nx nx;
	unsigned int n, i, j;
	FILE *f;

#define EMIT(src) do {							\
		for (j = 0; j < n; j++)					\
			spf_nx_dq(&nx, src, w[j].channel, w[j].width, w[j].value, t += 10); \
	} while (0)
#define REC(type, a, b) do {						\
		v[0] += 100;						\
		v[1] += 1;						\
		n = spf_enc_record(&cfg, &st, w, type, a, b, v);	\
		EMIT(0);						\
	} while (0)

	memset(&st, 0, sizeof(st));
	spf_enc_cfg_init(&cfg, 6, SPF_COUNT_DELTA, 0x9, defs);
	spf_nx_init(&nx, 1);
	spf_nx_sync(&nx, 0, t);
	n = spf_enc_header(&cfg, &st, w);
	EMIT(0);
	REC(SPF_REC_FUNC_ENTER, outer, 0x1000);
	for (i = 0; i < 5; i++) {
		REC(SPF_REC_FUNC_ENTER, inner, outer);
		REC(SPF_REC_FUNC_EXIT, inner, outer);
	}
	REC(SPF_REC_FUNC_EXIT, outer, 0x1000);
	for (i = 0; i < 3; i++)
		REC(SPF_REC_ISR, (uintptr_t)sampled_fn + 2 * i, 0);
	/* the second thread's stream */
	memset(&st, 0, sizeof(st));
	spf_nx_sync(&nx, 1, t);
	n = spf_enc_header(&cfg, &st, w);
	EMIT(1);
	REC(SPF_REC_MANUAL, outer + 2, 0);
	REC(SPF_REC_MANUAL, outer + 2, 0);
	f = fopen(path, "w");
	if (f) {
		fwrite(nx.buf, 1, nx.len, f);
		fclose(f);
	}
	spf_nx_free(&nx);
#undef REC
#undef EMIT
}

static int run_decode(const char *trace, const char *fmt, const char *out)
{
	char *argv[] = {
		"decode", (char *)trace, "--elf", "/proc/self/exe", "--format", (char *)fmt,
		"-o", (char *)out, NULL,
	};

	return cmd_decode(8, argv);
}

static void test_decode(void)
{
	char trace[256], out[256], *s;

	snprintf(trace, sizeof(trace), "%s/trace.rtd", tmpdir);
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	make_trace(trace);

	CHECK(run_decode(trace, "text", out) == 0);
	s = read_all(out);
	CHECK(s && count_str(s, "[Perf Header]") == 2 && count_str(s, "[Perf Cntr Def]") == 4);
	CHECK(count_str(s, "[Func Enter] fn=") == 6 && count_str(s, "<inner_fn> from=") == 5);
	CHECK(count_str(s, "<outer_fn>") >= 12 && count_str(s, "[ISR] pc=") == 3);
	CHECK(count_str(s, "<sampled_fn+0x4>") == 1 && count_str(s, "[Manual] pc=") == 2);
	CHECK(strstr(s, "[Name=dcache_miss_mmio_accesses] [CntrCSR=0xc03] [CntrBits=40]") != NULL);
	/* values rebuilt from the deltas: the 14th record of stream 0 */
	CHECK(strstr(s, "[cycles=1400] [dcache_miss_mmio_accesses=14]") != NULL);
	/* the second stream starts again from its header */
	CHECK(strstr(s, "[Manual] pc=") && strstr(strstr(s, "[Manual] pc="), "[cycles=1600]"));
	free(s);

	CHECK(run_decode(trace, "csv", out) == 0);
	s = read_all(out);
	CHECK(s && count_str(s, "stream,src,timestamp,type,addr,symbol,addr2,symbol2,cycles,"
			     "dcache_miss_mmio_accesses\n") == 1);
	CHECK(count_str(s, ",enter,") == 6 && count_str(s, ",exit,") == 6 &&
	      count_str(s, ",isr,") == 3 && count_str(s, ",manual,") == 2);
	CHECK(count_str(s, ",inner_fn,") == 10);
	free(s);

	CHECK(run_decode(trace, "json", out) == 0);
	s = read_all(out);
	CHECK(s && !strncmp(s, "{\"displayTimeUnit\":\"ns\"", 23) && strstr(s, "\n]}\n"));
	CHECK(count_str(s, "\"ph\":\"B\"") == 6 && count_str(s, "\"ph\":\"E\"") == 6);
	CHECK(count_str(s, "\"name\":\"inner_fn\"") == 5 && count_str(s, "\"ph\":\"i\"") == 5);
	CHECK(count_str(s, "\"ph\":\"M\"") == 2 && count_str(s, "\"ph\":\"C\"") == 17);
	/* an inner span: 100 cycles and one event between its entry and exit */
	CHECK(count_lines(s, "\"ph\":\"E\"",
			  "\"args\":{\"cycles\":100,\"dcache_miss_mmio_accesses\":1}") == 5);
	CHECK(count_lines(s, "\"ph\":\"E\"",
			  "\"args\":{\"cycles\":1100,\"dcache_miss_mmio_accesses\":11}") == 1);
	CHECK(count_str(s, "{") == count_str(s, "}") && count_str(s, "[") == count_str(s, "]"));
	free(s);

	CHECK(run_decode(trace, "summary", out) == 0);
	s = read_all(out);
	CHECK(s && strstr(s, "         5          5          0          0  inner_fn\n"));
	CHECK(strstr(s, "         1          1          0          2  outer_fn\n"));
	CHECK(strstr(s, "         0          0          3          0  sampled_fn\n"));
	free(s);

	CHECK(run_decode(trace, "yaml", out) == 2);
	CHECK(run_decode("/nonexistent.rtd", "text", out) == 1);
	if (getenv("KEEP"))
		return;
	unlink(trace);
	unlink(out);
}

/* cmd_decode() with its stderr in @err */
static int decode_stderr(int argc, char **argv, const char *err)
{
	int saved, ret;
	FILE *f;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	f = fopen(err, "w");
	if (saved < 0 || !f) {
		if (f)
			fclose(f);
		if (saved >= 0)
			close(saved);
		return -1;
	}
	dup2(fileno(f), STDERR_FILENO);
	fclose(f);
	ret = cmd_decode(argc, argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	return ret;
}

/* A file that is not a trace fails, and says why (issue 16) */
static void test_decode_not_trace(void)
{
	char path[256], err[256], *s;
	char *argv[] = { "decode", path, "-o", "/dev/null", NULL };
	char *argv_ch[] = { "decode", path, "-o", "/dev/null", "-c", "7", NULL };
	unsigned char buf[4096];
	uint32_t x = 12345;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/random.bin", tmpdir);
	snprintf(err, sizeof(err), "%s/err", tmpdir);
	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245 + 12345;
		buf[i] = (unsigned char)(x >> 16);
	}
	f = fopen(path, "w");
	CHECK(f && fwrite(buf, 1, sizeof(buf), f) == sizeof(buf));
	if (f)
		fclose(f);
	CHECK(decode_stderr(4, argv, err) == 1);
	s = read_all(err);
	CHECK(s && strstr(s, "random.bin: not a SiFive perf trace: no perf header or record"));
	free(s);

	/* an empty file */
	f = fopen(path, "w");
	if (f)
		fclose(f);
	CHECK(decode_stderr(4, argv, err) == 1);
	s = read_all(err);
	CHECK(s && strstr(s, "random.bin: empty file, not a trace"));
	free(s);

	/* a trace, read on the wrong channel */
	snprintf(path, sizeof(path), "%s/trace.rtd", tmpdir);
	make_trace(path);
	CHECK(decode_stderr(4, argv, err) == 0);
	CHECK(decode_stderr(6, argv_ch, err) == 1);
	s = read_all(err);
	CHECK(s && strstr(s, "no perf header or record on ITC channel 7 with srcbits") &&
	      strstr(s, "(are --channel and --srcbits right?)"));
	free(s);
	if (getenv("KEEP"))
		return;
	unlink(path);
	unlink(err);
	snprintf(path, sizeof(path), "%s/random.bin", tmpdir);
	unlink(path);
}

static void run(void (*fn)(void), const char *name)
{
	test_ok = true;
	fn();
	test_nr++;
	printf("%sok %u %s\n", test_ok ? "" : "not ", test_nr, name);
	if (test_ok)
		pass++;
	else
		fail++;
}

#define RUN(name) run(test_##name, #name)

int main(void)
{
	char cmd[512];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	printf("TAP version 13\n1..5\n");
	RUN(events);
	RUN(elf);
	RUN(elf_odd);
	RUN(decode);
	RUN(decode_not_trace);
	events_cleanup();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (!getenv("KEEP") && system(cmd))
		printf("# could not remove %s\n", tmpdir);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
	return fail ? 1 : 0;
}
