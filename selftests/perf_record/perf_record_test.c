// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf record with the SiFive trace sink: the sifive-trace support that
 * tools/perf/patches adds to perf (`make perf`), end to end in the VM.
 *
 * perf records the sifive_trace PMU while a workload writes records of the
 * SiFive trace performance library format (header 0x70657266, count type,
 * mask, counter definitions; records with one or two addresses and the
 * counters) through /dev/sifive-itc. perf script must print exactly those
 * records (--itrace=o) and one line per ITC store with the right SRC
 * (--itrace=w); perf report -D must dump every raw Nexus packet.
 *
 * fib_library: the seed's fib example itself (tools/libsifiveperf/
 * examples/fib.c, unchanged, installed as /usr/lib/sifive-perf/examples/fib)
 * under `perf record -e sifive_trace//` with the library in its perf-record
 * mode (SIFIVE_PERF_MODE=perf-record). perf script --itrace=o must print
 * exactly the records that the library's own decoder (sifive_perf_format.c)
 * finds in the same run's ITC stores, as the simulator logged them (its
 * debugfs "itc_log"): one header and fib(20)'s 21891 entries and 21891
 * exits. (The log replaced perf script --itrace=w, whose 525,000 lines took
 * 5-10 s of TCG time; the other tests check --itrace=w store by store.)
 *
 * The other workloads are this program, which perf runs as
 *   perf_record_test fib N COUNT OUT  a copy of the seed's fib, built with
 *                      -finstrument-functions, whose own hooks write an
 *                      entry/exit record (one ITC batch each) with made-up
 *                      counter values (wrapping, 64-bit) for every call of
 *                      fib(N); COUNT is raw, delta or xor (every count type
 *                      and its expected values, which the library's real
 *                      counters cannot give)
 *   perf_record_test pair OUT         two processes pinned on CPU 0 and 1
 *                      write manual records (64-bit addresses) at once
 *   perf_record_test flood N          N 32-bit stores 0..N-1 on channel 1
 * and which writes to OUT (OUT.<cpu> for pair) the lines perf script must
 * print for its records, with the number of ITC stores it made last.
 *
 * perf record parses /proc/kallsyms at its start (165,000 lines in the VM,
 * 1.4 s of TCG time), as did perf script for its first sample until perf
 * patch 0012. These tests look at user-space symbols only, so all but
 * hooks_delta run perf with kernel pointers hidden (kernel.kptr_restrict=2,
 * as on a hardened system): perf then skips the kernel's symbols.
 * hooks_delta runs it as on a stock system.
 *
 * Needs root, the modules, and the perf that `make perf` built (version
 * "+socpmu"); skips otherwise.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <socpmu/sim_itc_log.h>
#include <uapi/socpmu/sifive_itc.h>

#include "kselftest_harness.h"
#include "../lib/socpmu_test.h"

/* The library's record decoder, to work out what perf script must print */
#include "../../tools/libsifiveperf/sifive_perf_format.c"

#define NOTRACE		__attribute__((no_instrument_function))

#define PERF		"perf"
#define TMP		"/tmp/perf_record_test"
#define ITC_CHANNEL	6
#define MAGIC		0x70657266u
#define FIB_N		12
#define PAIR_RECORDS	20
#define MAX_LINES	8192
#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"
#define LINE_LEN	512

enum { COUNT_RAW, COUNT_DELTA, COUNT_XOR };
enum { REC_ENTER, REC_EXIT, REC_MANUAL };

static const char *const count_names[] = { "raw", "delta", "xor" };
static const char *const rec_names[] = { "enter", "exit", "manual" };

/* ---- the workload: writing records ---- */

struct counter {
	unsigned int idx;	/* HPM counter number: bit in the mask */
	uint32_t type;		/* OpenSBI event type */
	uint64_t code;		/* code, or event data for type 2 */
	unsigned int width;
};

/* cycle (64 bits), instret (64 bits), hpmcounter3: a raw event of 48 bits */
static const struct counter counters[] = {
	{ 0, 0, 0x1, 64 },
	{ 2, 0, 0x2, 64 },
	{ 3, 2, 0x202, 48 },
};

struct writer {
	int fd;
	int count;
	uint32_t mask;
	unsigned int nr_counters;
	const struct counter *counters;
	uint64_t last_addr;
	uint64_t last[32];
	unsigned long nr_records;
	unsigned long stores;
	FILE *expect;
	struct sifive_itc_write batch[128];
	unsigned int n;
};

static struct writer wr;

static const char *counter_name(unsigned int idx, char *buf, size_t len) NOTRACE;
static const char *counter_name(unsigned int idx, char *buf, size_t len)
{
	static const char *const names[] = { "cycle", "time", "instret" };

	if (idx < ARRAY_SIZE(names))
		return names[idx];
	snprintf(buf, len, "hpmcounter%u", idx);
	return buf;
}

static void wput(struct writer *w, unsigned int width, uint32_t value) NOTRACE;
static void wput(struct writer *w, unsigned int width, uint32_t value)
{
	w->batch[w->n++] = (struct sifive_itc_write){
		.channel = ITC_CHANNEL, .width = width, .value = value,
	};
}

/* One ioctl per header or record, as the library does */
static void flush(struct writer *w) NOTRACE;
static void flush(struct writer *w)
{
	struct sifive_itc_batch b = {
		.entries = (uintptr_t)w->batch, .count = w->n,
	};

	if (ioctl(w->fd, SIFIVE_ITC_IOC_WRITE, &b)) {
		perror("SIFIVE_ITC_IOC_WRITE");
		exit(2);
	}
	w->stores += w->n;
	w->n = 0;
}

static uint64_t width_mask(unsigned int width) NOTRACE;
static uint64_t width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static void writer_header(struct writer *w) NOTRACE;
static void writer_header(struct writer *w)
{
	unsigned int i;

	wput(w, 32, MAGIC);
	wput(w, 8, w->count);
	wput(w, 32, w->mask);
	fprintf(w->expect, " header %s", count_names[w->count]);
	for (i = 0; i < w->nr_counters; i++) {
		const struct counter *c = &w->counters[i];
		char name[32];

		wput(w, 32, c->type);
		wput(w, 32, c->code);
		if (c->type == 2)
			wput(w, 32, c->code >> 32);
		wput(w, 32, (c->width - 1) << 12 | (0xc00 + c->idx));
		fprintf(w->expect, " %s: %u/%#" PRIx64,
			counter_name(c->idx, name, sizeof(name)), c->type, c->code);
		w->last[c->idx] = 0;
	}
	fprintf(w->expect, "\n");
	w->last_addr = 0;
	flush(w);
}

static void wput_addr(struct writer *w, uint64_t addr) NOTRACE;
static void wput_addr(struct writer *w, uint64_t addr)
{
	uint64_t val = addr;

	if (w->count == COUNT_XOR) {
		val ^= w->last_addr;
		w->last_addr = addr;
	}
	if (val >> 32) {
		wput(w, 32, (uint32_t)val | 1);
		wput(w, 32, val >> 32);
	} else {
		wput(w, 32, val);
	}
}

/* The counter values of the k-th record: wrapping 48-bit raw event included */
static uint64_t counter_value(const struct counter *c, unsigned long k, unsigned int salt) NOTRACE;
static uint64_t counter_value(const struct counter *c, unsigned long k, unsigned int salt)
{
	switch (c->idx) {
	case 0:
		return 0xfffff000ULL + 977 * k + salt * 1000000ULL;
	case 2:
		return 500 + 13 * k;
	default:
		return ((1ULL << 48) - 1000 + 301 * k) & width_mask(c->width);
	}
}

static void writer_record(struct writer *w, unsigned int type, uint64_t from, uint64_t to,
			  unsigned int salt) NOTRACE;
static void writer_record(struct writer *w, unsigned int type, uint64_t from, uint64_t to,
			  unsigned int salt)
{
	unsigned long k = w->nr_records++;
	unsigned int i;

	wput(w, 8, type);
	wput_addr(w, from);
	fprintf(w->expect, " %s %#" PRIx64, rec_names[type], from);
	if (type != REC_MANUAL) {
		wput_addr(w, to);
		fprintf(w->expect, " -> %#" PRIx64, to);
	}
	for (i = 0; i < w->nr_counters; i++) {
		const struct counter *c = &w->counters[i];
		uint64_t mask = width_mask(c->width);
		uint64_t v = counter_value(c, k, salt), x;
		char name[32];

		if (w->count == COUNT_DELTA)
			x = (v - w->last[c->idx]) & mask;
		else if (w->count == COUNT_XOR)
			x = v ^ w->last[c->idx];
		else
			x = v;
		wput(w, 32, x);
		if (x >> 32)
			wput(w, 16, (x >> 32) & 0xffff);
		fprintf(w->expect, " %s: %" PRIu64, counter_name(c->idx, name, sizeof(name)), v);
		if (w->count != COUNT_RAW)
			fprintf(w->expect, " (+%" PRIu64 ")", (v - w->last[c->idx]) & mask);
		w->last[c->idx] = v;
	}
	fprintf(w->expect, "\n");
	flush(w);
}

static void writer_open(struct writer *w, const char *expect, int count) NOTRACE;
static void writer_open(struct writer *w, const char *expect, int count)
{
	unsigned int i;

	w->fd = open(SIFIVE_ITC_DEVICE, O_RDWR);
	w->expect = fopen(expect, "w");
	if (w->fd < 0 || !w->expect) {
		perror(expect);
		exit(2);
	}
	w->count = count;
	w->counters = counters;
	w->nr_counters = ARRAY_SIZE(counters);
	for (i = 0; i < w->nr_counters; i++)
		w->mask |= 1U << counters[i].idx;
}

static void writer_close(struct writer *w) NOTRACE;
static void writer_close(struct writer *w)
{
	fprintf(w->expect, "stores %lu\n", w->stores);
	fclose(w->expect);
	close(w->fd);
}

/* -finstrument-functions hooks: a shadow stack of function starts */
static bool tracing;
static void *stack[256];
static unsigned int depth;

void __cyg_profile_func_enter(void *fn, void *site) NOTRACE;
void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	if (!tracing || depth == ARRAY_SIZE(stack))
		return;
	writer_record(&wr, REC_ENTER, (uintptr_t)stack[depth - 1], (uintptr_t)fn, 0);
	stack[depth++] = fn;
}

void __cyg_profile_func_exit(void *fn, void *site) NOTRACE;
void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	if (!tracing || depth < 2)
		return;
	depth--;
	writer_record(&wr, REC_EXIT, (uintptr_t)fn, (uintptr_t)stack[depth - 1], 0);
}

/* The seed's example */
unsigned long fib(unsigned long f)
{
	if (f == 0)
		return 0;

	if (f == 1)
		return 1;

	return fib(f - 2) + fib(f - 1);
}

static int run_fib(unsigned long n, int count, const char *expect)
{
	unsigned long f;

	writer_open(&wr, expect, count);
	writer_header(&wr);
	stack[0] = (void *)run_fib;
	depth = 1;
	tracing = true;
	f = fib(n);
	tracing = false;
	printf("fib(%lu) = %lu\n", n, f);
	writer_close(&wr);
	return 0;
}

static int pin(int cpu) NOTRACE;
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int run_pair(const char *expect) NOTRACE;
static int run_pair(const char *expect)
{
	char path[256];
	int cpu, status, ret = 0;
	pid_t pid[2];

	for (cpu = 0; cpu < 2; cpu++) {
		pid[cpu] = fork();
		if (pid[cpu])
			continue;
		snprintf(path, sizeof(path), "%s.%d", expect, cpu);
		if (pin(cpu)) {
			perror("sched_setaffinity");
			exit(2);
		}
		writer_open(&wr, path, COUNT_RAW);
		writer_header(&wr);
		for (unsigned long k = 0; k < PAIR_RECORDS; k++) {
			struct sifive_itc_write tag = {
				.channel = 9, .width = 8, .value = 0xc0 + cpu,
			};
			struct sifive_itc_batch b = {
				.entries = (uintptr_t)&tag, .count = 1,
			};

			writer_record(&wr, REC_MANUAL,
				      0x7f0000001000ULL + cpu * 0x100000ULL + 0x40 * k, 0, cpu);
			if (ioctl(wr.fd, SIFIVE_ITC_IOC_WRITE, &b))
				exit(2);
			wr.stores++;
		}
		writer_close(&wr);
		exit(0);
	}
	for (cpu = 0; cpu < 2; cpu++) {
		if (waitpid(pid[cpu], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ret = 2;
	}
	return ret;
}

static int run_flood(unsigned long n) NOTRACE;
static int run_flood(unsigned long n)
{
	static struct sifive_itc_write w[SIFIVE_ITC_MAX_BATCH];
	struct sifive_itc_batch b = { .entries = (uintptr_t)w };
	int fd = open(SIFIVE_ITC_DEVICE, O_RDWR);
	unsigned long i = 0;

	if (fd < 0)
		return 2;
	while (i < n) {
		for (b.count = 0; b.count < SIFIVE_ITC_MAX_BATCH && i < n; b.count++, i++)
			w[b.count] = (struct sifive_itc_write){ .channel = 1, .width = 32, .value = i };
		if (ioctl(fd, SIFIVE_ITC_IOC_WRITE, &b))
			return 2;
	}
	close(fd);
	return 0;
}

/* ---- the tests: running perf ---- */

/* Run argv with stdout to @out (if not NULL), stderr to TMP.log; the exit status */
/* A failed command's last words (TMP.log, its stderr), into the test's output */
static void log_tail(const char *cmd, int status) NOTRACE;
static void log_tail(const char *cmd, int status)
{
	static char buf[65536];
	int fd = open(TMP ".log", O_RDONLY), lines = 0;
	ssize_t n;
	char *p;

	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = buf + n; p > buf && lines <= 15; p--)
		if (p[-1] == '\n')
			lines++;
	ksft_print_msg("%s exited with %d; the end of " TMP ".log:\n", cmd, status);
	for (char *l = strtok(p, "\n"); l; l = strtok(NULL, "\n"))
		ksft_print_msg("  %s\n", l);
}

static int run(char *const argv[], const char *out) NOTRACE;
static int run(char *const argv[], const char *out)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(TMP ".log", O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		if (out) {
			fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				_exit(126);
			dup2(fd, 1);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (status)
		log_tail(argv[0], status);
	return status;
}

struct lines {
	int n;
	char (*l)[LINE_LEN];
};

/*
 * Read @path's lines: a " ts: N" timestamp (and what follows it) and trailing blanks dropped;
 * blank lines and perf's warnings (not starting with a blank or '[') skipped.
 */
static int read_lines(const char *path, struct lines *ls, bool perf_output) NOTRACE;
static int read_lines(const char *path, struct lines *ls, bool perf_output)
{
	char buf[LINE_LEN], *p;
	FILE *f = fopen(path, "r");

	ls->n = 0;
	if (!ls->l)
		ls->l = calloc(MAX_LINES, LINE_LEN);
	if (!f || !ls->l)
		return -1;
	while (fgets(buf, sizeof(buf), f) && ls->n < MAX_LINES) {
		p = strstr(buf, " ts: ");
		if (p)
			*p = '\0';
		p = buf + strlen(buf);
		while (p > buf && (p[-1] == '\n' || p[-1] == ' '))
			*--p = '\0';
		if (!buf[0] || (perf_output && buf[0] != ' ' && buf[0] != '['))
			continue;
		snprintf(ls->l[ls->n++], LINE_LEN, "%s", buf);
	}
	fclose(f);
	return 0;
}

/* The "stores N" line at the end of an expected file, removed */
static unsigned long take_stores(struct lines *ls) NOTRACE;
static unsigned long take_stores(struct lines *ls)
{
	unsigned long n = 0;

	if (ls->n && sscanf(ls->l[ls->n - 1], "stores %lu", &n) == 1)
		ls->n--;
	return n;
}

static int count_matching(const char *path, const char *needle) NOTRACE;
static int count_matching(const char *path, const char *needle)
{
	char buf[LINE_LEN];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f))
		n += !!strstr(buf, needle);
	fclose(f);
	return n;
}

/* The SRC of the trace encoder of @cpu, from the PMU's encoders file */
static int encoder_src(int cpu) NOTRACE;
static int encoder_src(int cpu)
{
	char buf[4096], *p = buf;
	unsigned int hart, src, bits;
	int c;

	if (sp_read_file(SP_PMU_BUS "/sifive_trace/encoders", buf, sizeof(buf)) < 0)
		return -1;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (sscanf(p, "cpu=%d hart=%u src=%u srcbits=%u", &c, &hart, &src, &bits) == 4 &&
		    c == cpu)
			return src;
	}
	return -1;
}

static char self_exe[256];

FIXTURE(perf_record) {
	struct sp_dev dev;
	struct sp_dev hpm;	/* fib_library's counters */
	struct lines got, want;
	char kptr_restrict[8];	/* its value before the test, "" if unread */
};

/* Hide kernel pointers from perf (see the top), or show them as before */
static void kptr_hide(FIXTURE_DATA(perf_record) *self)
{
	if (sp_read_file(KPTR_RESTRICT, self->kptr_restrict, sizeof(self->kptr_restrict)) < 0)
		self->kptr_restrict[0] = '\0';
	else
		sp_write_file(KPTR_RESTRICT, "2");
}

static void kptr_restore(FIXTURE_DATA(perf_record) *self)
{
	if (self->kptr_restrict[0])
		sp_write_file(KPTR_RESTRICT, self->kptr_restrict);
	self->kptr_restrict[0] = '\0';
}

FIXTURE_SETUP(perf_record)
{
	char *version[] = { PERF, "version", NULL };
	char line[256] = "";
	char path[] = TMP ".version";
	FILE *f;
	int ret;

	memset(&self->dev, 0, sizeof(self->dev));
	memset(&self->hpm, 0, sizeof(self->hpm));
	self->kptr_restrict[0] = '\0';
	if (geteuid())
		SKIP(return, "needs root");
	if (sp_sim_available() || !sp_path_exists(SP_PMU_BUS "/sifive_trace/type") ||
	    !sp_path_exists(SIFIVE_ITC_DEVICE))
		SKIP(return, "no socpmu_sim + sifive_trace");
	if (run(version, path))
		SKIP(return, "no perf");
	f = fopen(path, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	if (!strstr(line, "+socpmu"))
		SKIP(return, "%s: not the perf of `make perf`", line);

	snprintf(line, sizeof(line), "perf_record_%d", getpid());
	ret = sp_dev_new(&self->dev, "trace", line, "");
	ASSERT_EQ(0, ret) TH_LOG("new_device trace name=%s: %s", line, strerror(-ret));
	for (int i = 0; i < 100 && encoder_src(1) < 0; i++)
		usleep(10000);
	ASSERT_LE(0, encoder_src(0));
	ASSERT_LE(0, encoder_src(1));
	unlink(TMP ".log");
	kptr_hide(self);
}

FIXTURE_TEARDOWN(perf_record)
{
	kptr_restore(self);
	if (self->dev.alive)
		sp_dev_delete(&self->dev);
	if (self->hpm.alive)
		sp_dev_delete(&self->hpm);
	free(self->got.l);
	free(self->want.l);
}

/* Record "fib N COUNT" (and the options before "--"), check perf script */
static void check_fib(struct __test_metadata *_metadata, FIXTURE_DATA(perf_record) *self,
		      const char *count, const char *opt) NOTRACE;
static void check_fib(struct __test_metadata *_metadata, FIXTURE_DATA(perf_record) *self,
		      const char *count, const char *opt)
{
	char n[16];
	char *record[] = { PERF, "record", "-q", "-e", "sifive_trace//", "-o", TMP ".data",
			   (char *)opt, "--", self_exe, "fib", n, (char *)count, TMP ".want",
			   NULL };
	/* the records, then (after " ts: N", which read_lines() drops) their symbols */
	char *script[] = { PERF, "script", "-i", TMP ".data", "--itrace=o", "-F",
			   "ip,sym,synth", NULL };
	char *itc[] = { PERF, "script", "-i", TMP ".data", "--itrace=w", "-F", "synth",
			NULL };
	unsigned long stores, calls;
	int i;

	snprintf(n, sizeof(n), "%d", FIB_N);
	if (!opt) {
		/* no option: close the gap */
		memmove(&record[7], &record[8], sizeof(record) - 8 * sizeof(record[0]));
	}
	ASSERT_EQ(0, run(record, TMP ".out")) TH_LOG("perf record failed, see " TMP ".log");
	ASSERT_EQ(0, run(script, TMP ".got"));
	ASSERT_EQ(0, read_lines(TMP ".got", &self->got, true));
	ASSERT_EQ(0, read_lines(TMP ".want", &self->want, false));
	stores = take_stores(&self->want);

	/* fib(n) makes 2 * fib(n + 1) - 1 calls: an entry and an exit each */
	calls = 2 * fib(FIB_N + 1) - 1;
	ASSERT_EQ(1 + 2 * calls, (unsigned long)self->want.n);
	ASSERT_EQ(self->want.n, self->got.n);
	for (i = 0; i < self->want.n; i++)
		ASSERT_STREQ(self->want.l[i], self->got.l[i]) TH_LOG("record %d", i);

	/* One ITC message per store */
	ASSERT_EQ(0, run(itc, TMP ".itc"));
	ASSERT_EQ(stores, (unsigned long)count_matching(TMP ".itc", " ch:  6 "));

	/* Symbols: every record but the first entry is about fib */
	ASSERT_EQ(2 * calls - 1, (unsigned long)count_matching(TMP ".got", " fib\n"));
	ASSERT_EQ(1, count_matching(TMP ".got", " run_fib\n"));
}

TEST_F_TIMEOUT(perf_record, hooks_delta, 90)
{
	kptr_restore(self);
	check_fib(_metadata, self, "delta", NULL);
}

/*
 * ... and the instruction at each record's address when a field asks for
 * it (perf patch 0012 fetches it only then): every record has a length,
 * the header (no address) none
 */
TEST_F_TIMEOUT(perf_record, hooks_raw, 90)
{
	char *insn[] = { PERF, "script", "-i", TMP ".data", "--itrace=o", "-F",
			 "ip,synth,insnlen", NULL };
	unsigned long calls = 2 * fib(FIB_N + 1) - 1;

	check_fib(_metadata, self, "raw", NULL);
	ASSERT_EQ(0, run(insn, TMP ".insn"));
	EXPECT_EQ((int)(1 + 2 * calls), count_matching(TMP ".insn", " ilen: "));
	EXPECT_EQ(1, count_matching(TMP ".insn", " ilen: 0"));
}

TEST_F_TIMEOUT(perf_record, hooks_xor_per_thread, 90)
{
	check_fib(_metadata, self, "xor", "--per-thread");
}

/* ---- the library's fib example under perf record ---- */

#define LIB_FIB		"/usr/lib/sifive-perf/examples/fib"
#define LIB_FIB_N	20
#define LIB_CHANNEL	6	/* the example's itcChannel */

struct expect {
	FILE *f;
	unsigned long headers, records[SPF_NR_REC_TYPES];
	uint64_t last[SPF_MAX_CNTRS];
};

static int exp_header(const struct spf_header *h, void *priv) NOTRACE;
static int exp_header(const struct spf_header *h, void *priv)
{
	struct expect *e = priv;
	char name[32];
	unsigned int k;

	fprintf(e->f, " header %s", spf_count_name(h->count));
	for (k = 0; k < h->nctr; k++) {
		const struct spf_ctr_def *d = &h->def[k];

		fprintf(e->f, " %s: %u/%#" PRIx64, counter_name(h->idx[k], name, sizeof(name)),
			d->type, d->type == 2 ? d->event_data : (uint64_t)d->code);
	}
	fprintf(e->f, "\n");
	memset(e->last, 0, sizeof(e->last));
	e->headers++;
	return 0;
}

static int exp_record(const struct spf_record *r, void *priv) NOTRACE;
static int exp_record(const struct spf_record *r, void *priv)
{
	struct expect *e = priv;
	char name[32];
	unsigned int k;

	fprintf(e->f, " %s", spf_rec_name(r->type));
	for (k = 0; k < r->naddr; k++)
		fprintf(e->f, "%s%#" PRIx64, k ? " -> " : " ", r->addr[k]);
	for (k = 0; k < r->nctr; k++) {
		uint64_t v = r->value[k], mask = spf_width_mask(r->hdr->def[k].info);

		fprintf(e->f, " %s: %" PRIu64, counter_name(r->idx[k], name, sizeof(name)), v);
		if (r->hdr->count != SPF_COUNT_RAW)
			fprintf(e->f, " (+%" PRIu64 ")", (v - e->last[k]) & mask);
		e->last[k] = v;
	}
	fprintf(e->f, "\n");
	if (r->type < SPF_NR_REC_TYPES)
		e->records[r->type]++;
	return 0;
}

static void exp_error(const char *what, uint64_t offset, void *priv) NOTRACE;
static void exp_error(const char *what, uint64_t offset, void *priv)
{
	(void)priv;
	fprintf(stderr, "# decode error at %" PRIu64 ": %s\n", offset, what);
}

/*
 * Decode the stores to ITC stimulus registers that the simulator logged
 * (debugfs "itc_log" of @dev) with the library's decoder into @want, in the
 * format of perf script --itrace=o: what the program stored, not what a
 * trace decoder made of it. The stores on the library's channel go to
 * *@stores, those not traced to *@untraced, all the log holds to *@logged;
 * the format violations are returned (-1: I/O).
 */
static long expected_records(const struct sp_dev *dev, const char *want, struct expect *e,
			     unsigned long *stores, unsigned long *untraced,
			     unsigned long *logged) NOTRACE;
static long expected_records(const struct sp_dev *dev, const char *want, struct expect *e,
			     unsigned long *stores, unsigned long *untraced,
			     unsigned long *logged)
{
	struct spf_dec_ops ops = { .header = exp_header, .record = exp_record,
				   .error = exp_error };
	static struct socpmu_sim_itc_rec log[4096];
	struct spf_decoder d;
	struct spf_dq m;
	char path[256];
	long errors;
	ssize_t n;
	int fd;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/itc_log", dev->name);
	fd = open(path, O_RDONLY);
	e->f = fopen(want, "w");
	if (fd < 0 || !e->f || spf_dec_init(&d, LIB_CHANNEL, false, &ops, e))
		return -1;
	*stores = 0;
	*untraced = 0;
	*logged = 0;
	while ((n = read(fd, log, sizeof(log))) > 0) {
		for (size_t i = 0; i < (size_t)n / sizeof(log[0]); i++) {
			(*logged)++;
			if (log[i].channel != LIB_CHANNEL)
				continue;
			if (!(log[i].flags & SOCPMU_SIM_ITC_TRACED))
				(*untraced)++;
			memset(&m, 0, sizeof(m));
			m.offset = *stores;
			m.src = log[i].hart;
			m.channel = log[i].channel;
			m.width = log[i].width;
			m.value = log[i].value;
			spf_dec_msg(&d, &m);
			(*stores)++;
		}
	}
	spf_dec_end(&d);
	errors = n < 0 ? -1 : (long)(d.stats.errors + d.stats.truncated);
	spf_dec_free(&d);
	close(fd);
	fclose(e->f);
	return errors;
}

/*
 * Compare perf script's output @got with @want line by line (as read_lines
 * reads them, without keeping them): the lines, or -1 with @line the first
 * that differs.
 */
static long same_lines(const char *got, const char *want, long *line) NOTRACE;
static long same_lines(const char *got, const char *want, long *line)
{
	FILE *fg = fopen(got, "r"), *fw = fopen(want, "r");
	char a[LINE_LEN * 2], b[LINE_LEN * 2], *p;
	long n = 0;
	bool ga, gb;

	*line = -1;
	if (!fg || !fw)
		return -2;
	for (;;) {
		do {
			ga = fgets(a, sizeof(a), fg);
			if (ga) {
				p = strstr(a, " ts: ");
				if (p)
					*p = '\0';
				p = a + strlen(a);
				while (p > a && (p[-1] == '\n' || p[-1] == ' '))
					*--p = '\0';
			}
		} while (ga && (!a[0] || (a[0] != ' ' && a[0] != '[')));
		gb = fgets(b, sizeof(b), fw);
		if (gb)
			b[strcspn(b, "\n")] = '\0';
		if (!ga && !gb)
			break;
		if (!ga) {
			/* perf stopped early: the lines it printed were right */
			*line = n;
			n = -3;
			break;
		}
		if (ga != gb || strcmp(a, b)) {
			*line = n;
			fprintf(stderr, "# line %ld:\n#  perf: %s\n#  want: %s\n", n,
				ga ? a : "(end)", gb ? b : "(end)");
			n = -1;
			break;
		}
		n++;
	}
	fclose(fg);
	fclose(fw);
	return n;
}

/* The example's counters: a sifive_hpm PMU (the first: "sifive_hpm") */
static void need_hpm(struct __test_metadata *_metadata, FIXTURE_DATA(perf_record) *self) NOTRACE;
static void need_hpm(struct __test_metadata *_metadata, FIXTURE_DATA(perf_record) *self)
{
	char spec[128];
	int i, ret;

	if (sp_path_exists(SP_PMU_BUS "/sifive_hpm/type"))
		return;
	snprintf(self->hpm.name, sizeof(self->hpm.name), "perf_record_hpm_%d", getpid());
	snprintf(spec, sizeof(spec), "hpm name=%s counters=8", self->hpm.name);
	ret = sp_sim_new_device(spec);
	ASSERT_EQ(0, ret) TH_LOG("new_device %s: %s", spec, strerror(-ret));
	self->hpm.alive = true;
	for (i = 0; i < 100 && !sp_path_exists(SP_PMU_BUS "/sifive_hpm/type"); i++)
		usleep(10000);
	ASSERT_TRUE(sp_path_exists(SP_PMU_BUS "/sifive_hpm/type"));
}

/* The value of function symbol @name in the ELF64 file @path, 0 if none */
static uint64_t elf_func_addr(const char *path, const char *name) NOTRACE;
static uint64_t elf_func_addr(const char *path, const char *name)
{
	uint64_t addr = 0;
	Elf64_Ehdr eh;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	for (unsigned int i = 0; i < eh.e_shnum && !addr; i++) {
		Elf64_Shdr sh, strh;
		Elf64_Sym sym;
		char buf[64];

		if (fseek(f, (long)(eh.e_shoff + i * sizeof(sh)), SEEK_SET) ||
		    fread(&sh, sizeof(sh), 1, f) != 1 || sh.sh_type != SHT_SYMTAB ||
		    fseek(f, (long)(eh.e_shoff + sh.sh_link * sizeof(sh)), SEEK_SET) ||
		    fread(&strh, sizeof(strh), 1, f) != 1)
			continue;
		for (uint64_t k = 0; k < sh.sh_size / sizeof(sym) && !addr; k++) {
			if (fseek(f, (long)(sh.sh_offset + k * sizeof(sym)), SEEK_SET) ||
			    fread(&sym, sizeof(sym), 1, f) != 1 ||
			    ELF64_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
			    fseek(f, (long)(strh.sh_offset + sym.st_name), SEEK_SET) ||
			    !fgets(buf, sizeof(buf), f))
				continue;
			if (!strncmp(buf, name, sizeof(buf)) && strlen(buf) == strlen(name))
				addr = sym.st_value;
		}
	}
out:
	fclose(f);
	return addr;
}

TEST_F_TIMEOUT(perf_record, fib_library, 300)
{
	char *record[] = { PERF, "record", "-q", "-e", "sifive_trace//", "-m,16M",
			   "-o", TMP ".data", "--", LIB_FIB, NULL };
	char *script[] = { PERF, "script", "-i", TMP ".data", "--itrace=o", "-F", "synth",
			   NULL };
	/* fib(n) makes 2 * fib(n + 1) - 1 calls: 21891 for fib(20) */
	unsigned long calls = 2 * fib(LIB_FIB_N + 1) - 1, stores, untraced, logged;
	struct expect e;
	long errors, lines, line;
	int ret;

	if (access(LIB_FIB, X_OK))
		SKIP(return, LIB_FIB ": not installed (make tools)");
	need_hpm(_metadata, self);
	unlink("trace.rtd");
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "itc_log", "%u", SOCPMU_SIM_ITC_LOG_MAX));
	setenv("SIFIVE_PERF_MODE", "perf-record", 1);
	ret = run(record, TMP ".out");
	unsetenv("SIFIVE_PERF_MODE");
	ASSERT_EQ(0, ret) TH_LOG("perf record failed, see " TMP ".log");
	ASSERT_EQ(1, count_matching(TMP ".out", "fib(20) = 6765"));
	/* perf-record mode: no trace file of the library's own */
	ASSERT_NE(0, access("trace.rtd", F_OK));

	/* What fib stored, every store traced (room to spare in the log) */
	errors = expected_records(&self->dev, TMP ".want", &e, &stores, &untraced, &logged);
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "itc_log", "0"));
	ASSERT_EQ(0, errors);
	ASSERT_LT(0UL, stores);
	ASSERT_GT(SOCPMU_SIM_ITC_LOG_MAX, logged);	/* the log was not full */
	ASSERT_EQ(0UL, untraced);
	/* One header (perfTraceOn()), fib's entries and exits, nothing else */
	ASSERT_EQ(1UL, e.headers);
	ASSERT_EQ(calls, e.records[SPF_REC_FUNC_ENTER]);
	ASSERT_EQ(calls, e.records[SPF_REC_FUNC_EXIT]);
	ASSERT_EQ(0UL, e.records[SPF_REC_MANUAL] + e.records[SPF_REC_ISR]);

	/* perf script prints exactly those records */
	ASSERT_EQ(0, run(script, TMP ".got"));
	lines = same_lines(TMP ".got", TMP ".want", &line);
	ASSERT_EQ((long)(1 + 2 * calls), lines) TH_LOG("differs at line %ld", line);
	ASSERT_EQ(1, count_matching(TMP ".got", " header delta cycle: "));
	ASSERT_EQ((int)calls, count_matching(TMP ".got", " enter 0x"));
	ASSERT_EQ((int)calls, count_matching(TMP ".got", " exit 0x"));
}

/*
 * The example built at -O1 (fib-O1), where fib starts at an odd address:
 * the record format drops bit 0 of addresses (it is the format's flag), so
 * the records say fib - 1, the last byte of the function before. perf
 * report and perf script --itrace=o must still name fib for every record
 * (issue 18: they named frame_dummy), with fib's real address as the IP,
 * and sifive-perf decode must name the same function as perf for every
 * record of the same program's trace file.
 */
#define LIB_FIB_O1	"/usr/lib/sifive-perf/examples/fib-O1"

TEST_F_TIMEOUT(perf_record, unaligned_function_symbols, 300)
{
	char *record[] = { PERF, "record", "-q", "-e", "sifive_trace//", "-m,16M",
			   "-o", TMP ".data", "--", LIB_FIB_O1, NULL };
	char *script[] = { PERF, "script", "-i", TMP ".data", "--itrace=o", "-F", "ip,sym",
			   NULL };
	char *report[] = { PERF, "report", "-i", TMP ".data", "--stdio", "--itrace=o",
			   "--sort", "sym", NULL };
	char *decode[] = { "sifive-perf", "decode", "/tmp/trace.rtd", "--elf", LIB_FIB_O1,
			   "--format", "csv", NULL };
	unsigned long calls = 2 * fib(LIB_FIB_N + 1) - 1, n = 0, bad = 0, same = 0, headers = 0;
	char line[LINE_LEN], sym[LINE_LEN];
	uint64_t fib_addr, ip;
	FILE *fp, *fd;

	if (access(LIB_FIB_O1, X_OK))
		SKIP(return, LIB_FIB_O1 ": not installed (make tools, needs libc.a)");
	fib_addr = elf_func_addr(LIB_FIB_O1, "fib");
	ASSERT_NE(0, fib_addr);
	/* the point of the build: otherwise this tests nothing */
	ASSERT_EQ(1, fib_addr & 1) TH_LOG("fib at %#" PRIx64 " is aligned", fib_addr);
	need_hpm(_metadata, self);

	setenv("SIFIVE_PERF_MODE", "perf-record", 1);
	ASSERT_EQ(0, run(record, TMP ".out")) TH_LOG("perf record failed, see " TMP ".log");
	unsetenv("SIFIVE_PERF_MODE");
	ASSERT_EQ(1, count_matching(TMP ".out", "fib(20) = 6765"));

	/* perf script: every record is fib's, at fib's address */
	ASSERT_EQ(0, run(script, TMP ".syms"));
	fp = fopen(TMP ".syms", "r");
	ASSERT_NE(NULL, fp);
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, " %" SCNx64 " %s", &ip, sym) != 2)
			continue;
		if (!ip) {	/* the header: no address */
			headers++;
			continue;
		}
		if ((ip != fib_addr || strcmp(sym, "fib")) && bad++ < 5)
			TH_LOG("record %lu: %s", n, line);
		n++;
	}
	fclose(fp);
	EXPECT_EQ(1UL, headers);
	EXPECT_EQ(2 * calls, n);
	EXPECT_EQ(0UL, bad) TH_LOG("%lu of %lu records not at fib (%#" PRIx64 ")", bad, n,
				   fib_addr);

	/* perf report: fib has them all */
	ASSERT_EQ(0, run(report, TMP ".report"));
	EXPECT_EQ(1, count_matching(TMP ".report", "100.00%  [.] fib"));
	EXPECT_EQ(0, count_matching(TMP ".report", "frame_dummy"));

	/*
	 * sifive-perf decode of the same program's own trace file: the same
	 * records, and for each the function perf named
	 */
	unlink("/tmp/trace.rtd");
	ASSERT_EQ(0, chdir("/tmp"));
	setenv("SIFIVE_PERF_BUFFER_SIZE", "16M", 1);
	ASSERT_EQ(0, run((char *[]){ LIB_FIB_O1, NULL }, TMP ".out2"));
	unsetenv("SIFIVE_PERF_BUFFER_SIZE");
	ASSERT_EQ(0, run(decode, TMP ".csv"));
	fp = fopen(TMP ".syms", "r");
	fd = fopen(TMP ".csv", "r");
	ASSERT_NE(NULL, fp);
	ASSERT_NE(NULL, fd);
	n = 0;
	while (fgets(line, sizeof(line), fd)) {
		char type[16], fn[LINE_LEN];

		if (sscanf(line, "%*u,%*u,%*u,%15[^,],%*[^,],%[^,\n]", type, fn) != 2 ||
		    (strcmp(type, "enter") && strcmp(type, "exit")))
			continue;
		n++;
		do {
			if (!fgets(line, sizeof(line), fp))
				break;
		} while (sscanf(line, " %" SCNx64 " %s", &ip, sym) != 2 || !ip);
		if (!strcmp(fn, sym))
			same++;
		else if (n - same <= 5)
			TH_LOG("record %lu: sifive-perf decode %s, perf %s", n, fn, sym);
	}
	fclose(fp);
	fclose(fd);
	EXPECT_EQ(2 * calls, n);
	EXPECT_EQ(n, same);
	unlink("/tmp/trace.rtd");
}

/* perf record -a: two harts at once behind the funnel, each on its CPU */
TEST_F_TIMEOUT(perf_record, system_wide_two_harts, 90)
{
	char *record[] = { PERF, "record", "-q", "-a", "-e", "sifive_trace//", "-o", TMP ".data",
			   "--", self_exe, "pair", TMP ".want", NULL };
	char *script[] = { PERF, "script", "-i", TMP ".data", "--itrace=o", "-F", "cpu,synth",
			   NULL };
	char *itc[] = { PERF, "script", "-i", TMP ".data", "--itrace=w", "-F", "cpu,synth",
			NULL };
	char path[64], prefix[16], want[LINE_LEN];
	int cpu, i, j, src, tags;

	ASSERT_EQ(0, run(record, TMP ".out")) TH_LOG("perf record failed, see " TMP ".log");
	ASSERT_EQ(0, run(script, TMP ".got"));
	ASSERT_EQ(0, read_lines(TMP ".got", &self->got, true));

	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), TMP ".want.%d", cpu);
		ASSERT_EQ(0, read_lines(path, &self->want, false));
		take_stores(&self->want);
		ASSERT_EQ(1 + PAIR_RECORDS, self->want.n);

		/* This CPU's records, in order, are exactly its writer's */
		snprintf(prefix, sizeof(prefix), "[%03d] ", cpu);
		for (i = 0, j = 0; i < self->got.n; i++) {
			if (strncmp(self->got.l[i], prefix, strlen(prefix)))
				continue;
			ASSERT_LT(j, self->want.n);
			snprintf(want, sizeof(want), "%s%s", prefix, self->want.l[j++]);
			ASSERT_STREQ(want, self->got.l[i]);
		}
		ASSERT_EQ(self->want.n, j) TH_LOG("CPU %d: %d of %d records", cpu, j, self->want.n);
	}

	/* ITC messages: each CPU's come from its hart's SRC */
	ASSERT_EQ(0, run(itc, TMP ".itc"));
	for (cpu = 0; cpu < 2; cpu++) {
		src = encoder_src(cpu);
		snprintf(want, sizeof(want), "[%03d]  src: %d ch:  9  8-bit:       0x%x", cpu, src,
			 0xc0 + cpu);
		tags = count_matching(TMP ".itc", want);
		ASSERT_EQ(PAIR_RECORDS, tags) TH_LOG("%s", want);
	}
}

/* perf report -D: every ITC store as a raw data acquisition packet */
TEST_F_TIMEOUT(perf_record, report_dump, 90)
{
	char n[16];
	char *record[] = { PERF, "record", "-q", "-e", "sifive_trace//", "-o", TMP ".data",
			   "--", self_exe, "fib", n, "raw", TMP ".want", NULL };
	char *report[] = { PERF, "report", "-D", "-i", TMP ".data", NULL };
	unsigned long stores;

	snprintf(n, sizeof(n), "%d", 5);
	ASSERT_EQ(0, run(record, TMP ".out"));
	ASSERT_EQ(0, run(report, TMP ".dump"));
	ASSERT_EQ(0, read_lines(TMP ".want", &self->want, false));
	stores = take_stores(&self->want);

	ASSERT_LT(0, count_matching(TMP ".dump", ". ... SiFive Trace data: size"));
	ASSERT_LT(0, count_matching(TMP ".dump", " ICT_WS src "));
	ASSERT_EQ(stores, (unsigned long)count_matching(TMP ".dump", " (ch 6, "));
	/* perf turns timestamps on: XOR timestamps in every store's message */
	ASSERT_EQ(stores, (unsigned long)count_matching(TMP ".dump", " ts ^"));
	ASSERT_EQ(1, count_matching(TMP ".dump",
				    "tag 0x18 (ch 6, 32-bit) data 0x70657266"));
	ASSERT_EQ(0, count_matching(TMP ".dump", "Bad packet"));
}

/* Snapshot mode: what is left in the AUX area at exit, newest last */
TEST_F_TIMEOUT(perf_record, snapshot, 90)
{
	char *record[] = { PERF, "record", "-q", "-Se", "-m,8K", "-e", "sifive_trace//",
			   "-o", TMP ".data", "--", self_exe, "flood", "4000", NULL };
	char *script[] = { PERF, "script", "-i", TMP ".data", "--itrace=w", "-F", "synth",
			   NULL };
	unsigned int v, next = 0;
	int i;

	ASSERT_EQ(0, run(record, TMP ".out")) TH_LOG("perf record failed, see " TMP ".log");
	ASSERT_EQ(0, run(script, TMP ".got"));
	ASSERT_EQ(0, read_lines(TMP ".got", &self->got, true));

	/* A run of consecutive values that ends with the last one */
	ASSERT_LT(100, self->got.n);
	ASSERT_GT(4000, self->got.n);
	for (i = 0; i < self->got.n; i++) {
		ASSERT_EQ(1, sscanf(self->got.l[i], " src: %*u ch:  1 32-bit: %x", &v))
			TH_LOG("%s", self->got.l[i]);
		if (i)
			ASSERT_EQ(next, v);
		next = v + 1;
	}
	ASSERT_EQ(4000, next);
}

int main(int argc, char **argv)
{
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (n > 0)
		self_exe[n] = '\0';
	if (argc == 5 && !strcmp(argv[1], "fib")) {
		int count;

		for (count = 0; count < 3; count++)
			if (!strcmp(argv[3], count_names[count]))
				return run_fib(strtoul(argv[2], NULL, 0), count, argv[4]);
		return 2;
	}
	if (argc == 3 && !strcmp(argv[1], "pair"))
		return run_pair(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "flood"))
		return run_flood(strtoul(argv[2], NULL, 0));
	return test_harness_run(argc, argv);
}
