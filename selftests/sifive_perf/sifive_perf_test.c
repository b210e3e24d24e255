// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selftests of libsifiveperf (the SiFive Trace Performance Library API on
 * the sifive_hpm and sifive_trace PMUs), built into this program, against
 * the simulated harts of socpmu_sim ("hpm" with 8 programmable counters,
 * "trace": two encoders behind a funnel).
 *
 * Each test writes a trace with the library's API, writes it out with
 * perfWriteTrace() and decodes the file in-process (Nexus decoder, record
 * decoder): errors as return codes before and during set-up; manual
 * records with exact counts of injected events in every count type; two
 * threads on two harts recording at once; the timer (sampled PCs);
 * function entry/exit records and their addresses; a buffer that fills
 * (stop on wrap); the SRAM sink; the record ioctl's checks; the cost of a
 * record (one system call with counters, counted by the kernel) and the
 * same trace from the kernel-read counters as from the two-call path. Each
 * test runs in its own process, so the library starts afresh; devices are
 * removed by the parent.
 *
 * Needs root and the modules loaded; skips otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "sifive_perf_lib.h"

#define CYCLES		{ .type = perfEventHWGeneral, .code = HW_CPU_CYCLES }
#define INSTRET		{ .type = perfEventHWGeneral, .code = HW_INSTRUCTIONS }
#define TIMESTAMP	{ .type = perfEventHWGeneral, .code = HW_TIMESTAMP }
#define DCACHE_MISS	{ .type = perfEventHWRaw, .event_data = 0x202 }
#define ICACHE_MISS	{ .type = perfEventHWCache, .cache_id = HW_CACHE_L1I, \
			  .op_id = HW_CACHE_OP_READ, .result_id = HW_CACHE_RESULT_MISS }

/* Simulated harts for one test; 0, 1 (skip) or -1 */
#define SETUP(self) do {						\
	int __r;							\
									\
	snprintf(self->file, sizeof(self->file), "/tmp/spf_test_%d.rtd", getpid()); \
	if (geteuid())							\
		SKIP(return, "needs root");				\
	__r = spt_create(&self->dev, "t");				\
	if (__r == -ENODEV)						\
		SKIP(return, "no socpmu_sim + sifive_hpm + sifive_trace"); \
	ASSERT_EQ(0, __r) TH_LOG("creating the simulated harts: %s", strerror(-__r)); \
	setenv("SIFIVE_PERF_QUIET", "1", 1);				\
} while (0)

/* Tests of one set-up */
FIXTURE(spf) {
	struct spt_dev dev;
	char file[64];
};

FIXTURE_SETUP(spf)
{
	SETUP(self);
}

FIXTURE_TEARDOWN_PARENT(spf)
{
	spt_delete(&self->dev);
	unlink(self->file);
}

/* Tests run for every count type and both sinks */
FIXTURE(spf_count) {
	struct spt_dev dev;
	char file[64];
};

FIXTURE_VARIANT(spf_count) {
	perfCountType_t count;
	uint32_t sba;
};

FIXTURE_VARIANT_ADD(spf_count, raw) { .count = perfCount_Raw, .sba = 64 * 1024 };
FIXTURE_VARIANT_ADD(spf_count, delta) { .count = perfCount_Delta, .sba = 64 * 1024 };
FIXTURE_VARIANT_ADD(spf_count, xor) { .count = perfCount_DeltaXOR, .sba = 64 * 1024 };
FIXTURE_VARIANT_ADD(spf_count, delta_sram) { .count = perfCount_Delta, .sba = 0 };

FIXTURE_SETUP(spf_count)
{
	SETUP(self);
}

FIXTURE_TEARDOWN_PARENT(spf_count)
{
	spt_delete(&self->dev);
	unlink(self->file);
}

/* Errors are return codes, never a crash or a silent no-op */
TEST_F(spf, errors)
{
	perfEvent ev[] = { CYCLES, INSTRET };
	perfEvent bad_type[] = { { .type = 5 } };
	perfEvent bad_code[] = { { .type = perfEventHWGeneral, .code = 99 } };
	perfEvent bad_cache[] = { { .type = perfEventHWCache, .cache_id = 9 } };
	perfEvent cant_count[] = { { .type = perfEventHWRaw, .event_data = 0x7 } };

	/* nothing before perfInit() */
	EXPECT_NE(0, perfTraceOn());
	EXPECT_NE(0, perfTraceOff());
	EXPECT_NE(0, perfWriteCntrs());
	EXPECT_NE(0, perfWriteTrace(self->file));
	EXPECT_NE(0, perfManualInit(ev, 2, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_NE(0, perfInit(0, 0));
	EXPECT_NE(0, perfInit(2, -1));
	ASSERT_EQ(0, perfInit(2, 1));
	EXPECT_NE(0, perfInit(2, 1));		/* only once */
	/* perfTraceOn() before an init function */
	EXPECT_NE(0, perfTraceOn());
	EXPECT_NE(0, perfWriteCntrs());
	/* bad arguments */
	EXPECT_NE(0, perfManualInit(ev, 2, 32, perfCount_Delta, 0));
	EXPECT_NE(0, perfManualInit(ev, 2, -1, perfCount_Delta, 0));
	EXPECT_NE(0, perfManualInit(ev, 2, SPT_CHANNEL, (perfCountType_t)3, 0));
	EXPECT_NE(0, perfManualInit(NULL, 2, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_NE(0, perfManualInit(bad_type, 1, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_NE(0, perfManualInit(bad_code, 1, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_NE(0, perfManualInit(bad_cache, 1, SPT_CHANNEL, perfCount_Delta, 0));
	/* a raw event the harts cannot count: the PMU refuses it */
	EXPECT_NE(0, perfManualInit(cant_count, 1, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_NE(0, perfTraceOn());
	/* and then it works */
	ASSERT_EQ(0, perfManualInit(ev, 2, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_EQ(0u, ev[0].ctrIdx);
	EXPECT_EQ(2u, ev[1].ctrIdx);
	/* a different set-up from another call is refused */
	EXPECT_NE(0, perfFuncEntryExitInit(ev, 2, SPT_CHANNEL, perfCount_Delta, 0));
	EXPECT_EQ(0, perfWriteCntrs());		/* trace off: nothing recorded */
	EXPECT_EQ(0, perfTraceOn());
	EXPECT_EQ(0, perfWriteCntrs());
	EXPECT_EQ(0, perfTraceOff());
	EXPECT_EQ(0, perfWriteTrace(self->file));
	EXPECT_NE(0, perfWriteTrace("/nonexistent/dir/trace.rtd"));
}

/* How often @needle is in @buf */
static int count_str(const char *buf, const char *needle)
{
	int n = 0;

	for (const char *p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* stderr into @path until stderr_restore() */
static int stderr_to(const char *path)
{
	int saved, fd;

	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0 || dup2(fd, 2) < 0)
		return -1;
	close(fd);
	return saved;
}

static void stderr_restore(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

/*
 * Every failure is also described on stderr (sifive_linux_perf.h): the
 * calls before the library is set up (perfWriteCntrs() said nothing, and
 * says it once however often it is called), perfGetStats(NULL), and records
 * that could not be written, which perfWriteTrace() sums up with the errno
 * of the last (nothing told of them before): here the trace device is
 * deleted under the running trace.
 */
TEST_F(spf, failures_described)
{
	perfEvent ev[] = { CYCLES };
	char log[96], buf[4096];
	int saved, fails = 0, r[3];

	snprintf(log, sizeof(log), "/tmp/spf_stderr_%d", getpid());
	unsetenv("SIFIVE_PERF_QUIET");
	saved = stderr_to(log);
	ASSERT_LE(0, saved);
	/* checked once stderr is back: the harness reports there */
	r[0] = perfWriteCntrs();
	r[1] = perfWriteCntrs();
	r[2] = perfGetStats(NULL);
	stderr_restore(saved);
	for (int i = 0; i < 3; i++)
		EXPECT_NE(0, r[i]);
	fails = sp_read_file(log, buf, sizeof(buf));
	unlink(log);
	ASSERT_LT(0, fails);
	fails = 0;
	EXPECT_EQ(1, count_str(buf, "perfWriteCntrs(): the library is not initialised"))
		TH_LOG("stderr: %s", buf);
	EXPECT_EQ(1, count_str(buf, "perfGetStats(): no struct perfStats"));

	ASSERT_EQ(0, perfInit(1, 1));
	ASSERT_EQ(0, perfManualInit(ev, 1, SPT_CHANNEL, perfCount_Delta, 64 * 1024));
	ASSERT_EQ(0, perfTraceOn());
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(0, perfWriteCntrs());
	ASSERT_EQ(0, sp_sim_del_device(self->dev.trace));
	self->dev.trace_alive = false;
	for (int i = 0; i < 5; i++)
		fails += perfWriteCntrs() != 0;
	EXPECT_EQ(5, fails);
	saved = stderr_to(log);
	ASSERT_LE(0, saved);
	perfWriteTrace(self->file);
	stderr_restore(saved);
	setenv("SIFIVE_PERF_QUIET", "1", 1);
	fails = sp_read_file(log, buf, sizeof(buf));
	unlink(log);
	ASSERT_LT(0, fails);
	EXPECT_EQ(1, count_str(buf, "5 record(s) could not be written (the last: "))
		TH_LOG("stderr: %s", buf);
}

#define NMANUAL	40

__attribute__((noinline)) static int manual_site(void)
{
	int ret = perfWriteCntrs();

	asm volatile("" ::: "memory");	/* not a tail call: the site is in here */
	return ret;
}

/*
 * Manual records with events injected between them: every count type
 * rebuilds the exact values, the fixed counters land on 0-2 and the
 * programmable ones on 3, 4 whatever the list's order.
 */
TEST_F(spf_count, manual_exact)
{
	perfEvent ev[] = { DCACHE_MISS, CYCLES, ICACHE_MISS, TIMESTAMP, INSTRET };
	unsigned long dc = 0, ic = 0;
	struct spt_decoded d;
	struct perfStats st;
	unsigned int i, k;
	uint64_t prev_cycles = 0;

	ASSERT_EQ(0, spt_pin(0));
	ASSERT_EQ(0, perfInit(self->dev.harts, 1));
	ASSERT_EQ(0, perfManualInit(ev, 5, SPT_CHANNEL, variant->count, variant->sba));
	EXPECT_EQ(3u, ev[0].ctrIdx);
	EXPECT_EQ(0u, ev[1].ctrIdx);
	EXPECT_EQ(4u, ev[2].ctrIdx);
	EXPECT_EQ(1u, ev[3].ctrIdx);
	EXPECT_EQ(2u, ev[4].ctrIdx);
	EXPECT_EQ(40u, SPF_INFO_WIDTH(ev[0].ctrInfo));
	EXPECT_EQ(0xc03u, SPF_INFO_CSR(ev[0].ctrInfo));
	EXPECT_EQ(0u, SPF_INFO_CSR(ev[3].ctrInfo));	/* the time counter: CSR 0 */
	ASSERT_EQ(0, perfTraceOn());
	for (i = 0; i < NMANUAL; i++) {
		/* i D$ misses, and an I$ miss every third record */
		ASSERT_EQ(0, spt_inject(&self->dev, 0, "dcache_miss", i + 1));
		dc += i + 1;
		if (i % 3 == 0) {
			ASSERT_EQ(0, spt_inject(&self->dev, 0, "icache_miss", 1));
			ic++;
		}
		ASSERT_EQ(0, manual_site());
	}
	ASSERT_EQ(0, perfTraceOff());
	ASSERT_EQ(0, manual_site());		/* off: not recorded */
	ASSERT_EQ(0, perfWriteTrace(self->file));
	ASSERT_EQ(0, perfGetStats(&st));
	EXPECT_EQ((uint64_t)NMANUAL, st.records);
	EXPECT_EQ(1u, st.headers);
	EXPECT_EQ(0u, st.dropped);
	EXPECT_EQ(0u, st.errors);
	EXPECT_EQ(NMANUAL + 1u, st.syscalls);	/* one ioctl per record, one for the header */

	ASSERT_EQ(0, spt_decode_file(self->file, self->dev.srcbits, &d));
	EXPECT_EQ(0u, d.res.nexus.invalid);
	EXPECT_EQ(0u, d.res.perf.errors);
	ASSERT_EQ(1u, d.nhdr);
	EXPECT_EQ((unsigned int)variant->count, d.hdr[0].count);
	EXPECT_EQ(0x1fu, d.hdr[0].mask);
	EXPECT_EQ(2u, d.hdr[0].def[3].type);
	EXPECT_EQ(0x202u, d.hdr[0].def[3].event_data);
	EXPECT_EQ(1u, d.hdr[0].def[4].type);
	EXPECT_EQ((unsigned int)(HW_CACHE_L1I << 3 | 1), d.hdr[0].def[4].code);
	EXPECT_EQ(0x80u, d.hdr[0].def[1].code);
	ASSERT_EQ((unsigned int)NMANUAL, d.nrec);
	dc = ic = 0;
	for (i = 0; i < d.nrec; i++) {
		const struct spf_record *r = &d.rec[i];

		dc += i + 1;
		ic += i % 3 == 0;
		EXPECT_EQ((unsigned int)SPF_REC_MANUAL, r->type);
		EXPECT_EQ(d.rec[0].addr[0], r->addr[0]);	/* one call site */
		EXPECT_EQ((uint64_t)dc, r->value[3]) TH_LOG("record %u", i);
		EXPECT_EQ((uint64_t)ic, r->value[4]) TH_LOG("record %u", i);
		EXPECT_LE(prev_cycles, r->value[0]);
		prev_cycles = r->value[0];
		EXPECT_TRUE(r->ts_valid);
		for (k = 0; k < 5; k++)
			EXPECT_EQ(k, (unsigned int)r->idx[k]);
	}
	/* the call site is in manual_site() */
	EXPECT_LE((uintptr_t)manual_site & ~1ULL, d.rec[0].addr[0]);
	EXPECT_GT((uintptr_t)manual_site + 256, d.rec[0].addr[0]);
	spt_decoded_free(&d);
}

/* ---- two threads, two harts, at once ---- */

#define NTHREAD_RECS	300

struct worker {
	int cpu;
	pthread_barrier_t *bar;
	int failed;
	uint64_t t0, t1;
};

__attribute__((noinline)) static void *worker(void *p)
{
	struct worker *w = p;
	unsigned int i;

	if (spt_pin(w->cpu))
		w->failed = -1;
	pthread_barrier_wait(w->bar);
	/*
	 * Half the records, meet the other thread, then the rest: both
	 * streams then span the meeting point, however the threads run.
	 */
	for (i = 0; i < NTHREAD_RECS; i++) {
		if (i == NTHREAD_RECS / 2)
			pthread_barrier_wait(w->bar);
		w->failed += perfWriteCntrs() != 0;
	}
	return NULL;
}

TEST_F(spf, two_threads)
{
	perfEvent ev[] = { CYCLES, INSTRET, DCACHE_MISS };
	struct worker w[2];
	pthread_barrier_t bar;
	pthread_t t[2];
	struct spt_decoded d;
	unsigned int i, s, count[3] = { 0 }, stream_src[3] = { 0 };
	uint64_t first[3] = { 0 }, last[3] = { 0 };

	if (self->dev.harts < 2 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two harts");
	ASSERT_EQ(0, perfInit(self->dev.harts, 1));
	ASSERT_EQ(0, perfManualInit(ev, 3, SPT_CHANNEL, perfCount_DeltaXOR, 1 << 20));
	ASSERT_EQ(0, perfTraceOn());
	pthread_barrier_init(&bar, NULL, 2);
	for (i = 0; i < 2; i++) {
		w[i] = (struct worker){ .cpu = (int)i, .bar = &bar };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker, &w[i]));
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(0, w[0].failed);
	EXPECT_EQ(0, w[1].failed);
	ASSERT_EQ(0, perfTraceOff());
	ASSERT_EQ(0, perfWriteTrace(self->file));

	ASSERT_EQ(0, spt_decode_file(self->file, self->dev.srcbits, &d));
	EXPECT_EQ(0u, d.res.perf.errors);
	EXPECT_EQ(0u, d.res.perf.truncated);
	/* the main thread's header, then one stream per worker */
	ASSERT_EQ(3u, d.nhdr);
	ASSERT_EQ(2u * NTHREAD_RECS, d.nrec);
	for (i = 0; i < d.nrec; i++) {
		const struct spf_record *r = &d.rec[i];

		ASSERT_LT(r->stream, 3u);
		s = r->stream;
		if (!count[s]++) {
			first[s] = r->ts;
			stream_src[s] = r->src;
		}
		EXPECT_EQ(stream_src[s], r->src);	/* pinned: one hart each */
		EXPECT_LE(last[s], r->ts);		/* in order */
		last[s] = r->ts;
	}
	EXPECT_EQ(0u, count[0]);
	EXPECT_EQ((unsigned int)NTHREAD_RECS, count[1]);
	EXPECT_EQ((unsigned int)NTHREAD_RECS, count[2]);
	if (self->dev.srcbits)
		EXPECT_NE(stream_src[1], stream_src[2]);
	/* at once: the two streams' time spans overlap (the second barrier) */
	EXPECT_LT(first[1], last[2]);
	EXPECT_LT(first[2], last[1]);
	spt_decoded_free(&d);
}

/* ---- the timer ---- */

__attribute__((noinline, aligned(64))) static unsigned long spin_fn(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}

TEST_F(spf_count, timer)
{
	perfEvent ev[] = { CYCLES, INSTRET };
	struct spt_decoded d;
	unsigned int i, in_spin = 0;
	struct perfStats st;
	double t0;

	ASSERT_EQ(0, perfInit(1, 1));
	ASSERT_EQ(0, perfTimerISRInit(ev, 2, SPT_CHANNEL, variant->count, variant->sba, 2000));
	ASSERT_EQ(0, perfTraceOn());
	/*
	 * Spin until the timer has taken 40 samples: a CPU-time timer fires
	 * at the guest's tick, which a loaded host slows down, so the loop
	 * waits for samples, not for a share of CPU time (10 s at most).
	 */
	t0 = spt_cpu_ms();
	do {
		spin_fn(20000);
		ASSERT_EQ(0, perfGetStats(&st));
	} while (st.records < 40 && spt_cpu_ms() - t0 < 10000);
	ASSERT_EQ(0, perfTraceOff());
	ASSERT_EQ(0, perfWriteTrace(self->file));

	ASSERT_EQ(0, spt_decode_file(self->file, self->dev.srcbits, &d));
	EXPECT_EQ(0u, d.res.perf.errors);
	EXPECT_EQ(1u, d.nhdr);
	/* every sample the library counted is in the file, and there are 40 */
	ASSERT_EQ(0, perfGetStats(&st));
	EXPECT_EQ(st.records, d.nrec);
	EXPECT_LE(40u, d.nrec);
	for (i = 0; i < d.nrec && i < SPT_MAX_RECS; i++) {
		EXPECT_EQ((unsigned int)SPF_REC_ISR, d.rec[i].type);
		in_spin += d.rec[i].addr[0] >= ((uintptr_t)spin_fn & ~1ULL) &&
			   d.rec[i].addr[0] < (uintptr_t)spin_fn + 256;
	}
	/* the sampled PC is where the thread was: mostly in spin_fn() */
	EXPECT_LE(d.nrec / 2, in_spin) TH_LOG("%u of %u samples in spin_fn", in_spin, d.nrec);
	spt_decoded_free(&d);
}

/* ---- function entry and exit ---- */

static volatile int calls_a, calls_b;

__attribute__((noinline)) static void fn_a(void)
{
	calls_a++;
}

__attribute__((noinline)) static void fn_b(void)
{
	calls_b += 2;
}

TEST_F(spf, func_hooks)
{
	perfEvent ev[] = { CYCLES };
	void *site = (void *)0x1234560;
	struct spt_decoded d;

	ASSERT_EQ(0, perfInit(1, 0));
	ASSERT_EQ(0, perfFuncEntryExitInit(ev, 1, SPT_CHANNEL, perfCount_DeltaXOR, 4096));
	/* what -finstrument-functions calls: a() calls b() twice */
	__cyg_profile_func_enter(fn_a, site);		/* before the trace: not recorded */
	ASSERT_EQ(0, perfTraceOn());
	__cyg_profile_func_enter(fn_b, (char *)fn_a + 8);
	__cyg_profile_func_exit(fn_b, (char *)fn_a + 8);
	__cyg_profile_func_enter(fn_b, (char *)fn_a + 12);
	__cyg_profile_func_exit(fn_b, (char *)fn_a + 12);
	__cyg_profile_func_exit(fn_a, site);
	ASSERT_EQ(0, perfTraceOff());
	__cyg_profile_func_enter(fn_a, site);		/* after: not recorded */
	__cyg_profile_func_exit(fn_a, site);
	ASSERT_EQ(0, perfWriteTrace(self->file));

	ASSERT_EQ(0, spt_decode_file(self->file, self->dev.srcbits, &d));
	ASSERT_EQ(5u, d.nrec);
	/* entry: the function and its caller's start (not the call site) */
	EXPECT_EQ((unsigned int)SPF_REC_FUNC_ENTER, d.rec[0].type);
	EXPECT_EQ((uintptr_t)fn_b & ~1ULL, d.rec[0].addr[0]);
	EXPECT_EQ((uintptr_t)fn_a & ~1ULL, d.rec[0].addr[1]);
	/* exit: the function and the one control returns to */
	EXPECT_EQ((unsigned int)SPF_REC_FUNC_EXIT, d.rec[1].type);
	EXPECT_EQ((uintptr_t)fn_b & ~1ULL, d.rec[1].addr[0]);
	EXPECT_EQ((uintptr_t)fn_a & ~1ULL, d.rec[1].addr[1]);
	EXPECT_EQ((unsigned int)SPF_REC_FUNC_ENTER, d.rec[2].type);
	/* a()'s caller was not instrumented: the call site */
	EXPECT_EQ((unsigned int)SPF_REC_FUNC_EXIT, d.rec[4].type);
	EXPECT_EQ((uintptr_t)fn_a & ~1ULL, d.rec[4].addr[0]);
	EXPECT_EQ((uintptr_t)site, d.rec[4].addr[1]);
	spt_decoded_free(&d);
}

/* ---- a buffer that fills: stop on wrap ---- */

TEST_F(spf, buffer_full)
{
	perfEvent ev[] = { CYCLES, INSTRET, TIMESTAMP };
	struct spt_decoded d;
	struct perfStats st;
	unsigned int i;

	ASSERT_EQ(0, perfInit(1, 1));
	ASSERT_EQ(0, perfManualInit(ev, 3, SPT_CHANNEL, perfCount_Delta, 8192));
	ASSERT_EQ(0, perfTraceOn());
	for (i = 0; i < 2000; i++)
		perfWriteCntrs();	/* fails once the buffer is full */
	ASSERT_EQ(0, perfWriteTrace(self->file));
	ASSERT_EQ(0, perfGetStats(&st));
	EXPECT_EQ(2000u, st.records + st.dropped);
	/* the driver stopped the trace when the buffer was full, and said so */
	EXPECT_NE(0u, st.aux_flags & PERF_AUX_FLAG_TRUNCATED);

	ASSERT_EQ(0, spt_decode_file(self->file, self->dev.srcbits, &d));
	EXPECT_GE(8192u, d.bytes);
	EXPECT_LE(8000u, d.bytes);
	EXPECT_LE(d.res.perf.errors, d.res.perf.truncated);
	EXPECT_LE(1u, d.res.perf.headers);
	/* what fits decodes (at most the last record is cut), the rest is not there */
	EXPECT_LT(20u, d.nrec);
	EXPECT_GT(2000u, d.nrec);
	EXPECT_GE(1u, d.res.perf.truncated);
	/* what the library says it stored is what the file holds (issue 18) */
	EXPECT_EQ(d.nrec, st.records) TH_LOG("the file holds %u records, the library says %llu",
					     d.nrec, (unsigned long long)st.records);
	for (i = 1; i < d.nrec; i++)
		EXPECT_LE(d.rec[i - 1].value[0], d.rec[i].value[0]);
	spt_decoded_free(&d);
}

/*
 * The kernel's AUX records (one at every switch out of a thread that
 * traced something) go to the trace event's 8-page data ring, which the
 * library read only in perfWriteTrace(). A run with thousands of switches
 * overflowed it, and the record of the final stop on wrap (TRUNCATED) was
 * lost with the rest: the library then said nothing of a trace that ended
 * early. Each record here is followed by a sleep, then records fill the
 * buffer.
 */
TEST_F(spf, buffer_full_after_many_switches)
{
	perfEvent ev[] = { CYCLES };
	struct perfStats st = { 0 };
	unsigned int i, n = 0;

	ASSERT_EQ(0, perfInit(1, 1));
	ASSERT_EQ(0, perfManualInit(ev, 1, SPT_CHANNEL, perfCount_Delta, 128 * 1024));
	ASSERT_EQ(0, perfTraceOn());
	for (i = 0; i < 2500; i++, n++) {
		perfWriteCntrs();
		usleep(1);
	}
	ASSERT_EQ(0, perfGetStats(&st));
	ASSERT_EQ(0u, st.dropped) TH_LOG("the buffer filled up during the switches");
	while (!st.dropped && n < 200000) {
		for (i = 0; i < 1000; i++, n++)
			perfWriteCntrs();
		ASSERT_EQ(0, perfGetStats(&st));
	}
	ASSERT_EQ(0, perfWriteTrace(self->file));
	ASSERT_EQ(0, perfGetStats(&st));
	TH_LOG("%u records: %llu stored, %llu not, AUX flags %#x", n,
	       (unsigned long long)st.records, (unsigned long long)st.dropped, st.aux_flags);
	EXPECT_EQ(n, st.records + st.dropped);
	EXPECT_LT(0u, st.dropped);
	EXPECT_NE(0u, st.aux_flags & PERF_AUX_FLAG_TRUNCATED);
}

/* ---- one system call per record, and the same trace as the two-call path ---- */

#define NCMP		60	/* records of each kind, compared */
#define NCOUNT		200	/* entry/exit pairs, their system calls counted */

struct run_out {
	struct perfStats st;
	uint64_t ksys;		/* kernel's count over the NCOUNT pairs (+1: the disable) */
	bool kcount;		/* the count is there */
	int failed;		/* the step that failed, 0 if none */
};

__attribute__((noinline)) static void cmp_fn(void)
{
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) static int cmp_site(void)
{
	int ret = perfWriteCntrs();

	asm volatile("" ::: "memory");
	return ret;
}

/*
 * A child's traced run: entry, exit and manual records with injected
 * events between them (one of 2^33 so that values take their 16-bit
 * part), then NCOUNT entry/exit pairs whose system calls the kernel counts.
 * @rec: SIFIVE_PERF_ITC_RECORD (0: the counters read by the library).
 */
static void traced_run(struct spt_dev *dev, const char *file, const char *rec,
		       perfCountType_t count, uint32_t sba, struct run_out *o)
{
	perfEvent ev[] = { DCACHE_MISS, ICACHE_MISS };
	unsigned int i;
	int sc;

	setenv("SIFIVE_PERF_ITC_RECORD", rec, 1);
	if (spt_pin(0) || perfInit(dev->harts, 1) ||
	    perfFuncEntryExitInit(ev, 2, SPT_CHANNEL, count, sba) || perfTraceOn()) {
		o->failed = 1;
		return;
	}
	for (i = 0; i < NCMP; i++) {
		if (spt_inject(dev, 0, "dcache_miss", i == NCMP / 2 ? 1ul << 33 : i * 7 + 1) ||
		    (i % 3 == 0 && spt_inject(dev, 0, "icache_miss", 1))) {
			o->failed = 2;
			return;
		}
		__cyg_profile_func_enter(cmp_fn, (void *)cmp_site);
		cmp_fn();
		__cyg_profile_func_exit(cmp_fn, (void *)cmp_site);
		if (cmp_site()) {
			o->failed = 3;
			return;
		}
	}
	sc = spt_syscall_counter();
	if (sc >= 0 && !ioctl(sc, PERF_EVENT_IOC_ENABLE, 0)) {
		for (i = 0; i < NCOUNT; i++) {
			__cyg_profile_func_enter(cmp_fn, (void *)cmp_site);
			cmp_fn();
			__cyg_profile_func_exit(cmp_fn, (void *)cmp_site);
		}
		ioctl(sc, PERF_EVENT_IOC_DISABLE, 0);
		o->kcount = read(sc, &o->ksys, sizeof(o->ksys)) == sizeof(o->ksys);
	}
	if (sc >= 0)
		close(sc);
	if (perfTraceOff() || perfWriteTrace((char *)file)) {
		o->failed = 4;
		return;
	}
	if (perfGetStats(&o->st))
		o->failed = 5;
}

static int run_child(struct spt_dev *dev, const char *file, const char *rec,
		     perfCountType_t count, uint32_t sba, struct run_out *o)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		traced_run(dev, file, rec, count, sba, o);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return o->failed ? -1 : 0;
}

TEST_F(spf_count, one_syscall_same_trace)
{
	struct run_out *o = mmap(NULL, 2 * sizeof(*o), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct spt_decoded a, b;
	char file2[80];
	unsigned int i, k;
	uint64_t recs = 2 * NCMP + NCMP + 2 * NCOUNT;

	ASSERT_NE(MAP_FAILED, (void *)o);
	memset(o, 0, 2 * sizeof(*o));
	snprintf(file2, sizeof(file2), "%s.2call", self->file);
	/* the counters read by the kernel in the record's ioctl */
	ASSERT_EQ(0, run_child(&self->dev, self->file, "1", variant->count, variant->sba, &o[0]))
		TH_LOG("step %d", o[0].failed);
	/* the library reads them (read() + ioctl per record) */
	ASSERT_EQ(0, run_child(&self->dev, file2, "0", variant->count, variant->sba, &o[1]))
		TH_LOG("step %d", o[1].failed);

	for (i = 0; i < 2; i++) {
		EXPECT_EQ(recs, o[i].st.records);
		EXPECT_EQ(1u, o[i].st.headers);
		EXPECT_EQ(0u, o[i].st.dropped);
		EXPECT_EQ(0u, o[i].st.errors);
	}
	/* the library's count: one per record (and the header's) */
	EXPECT_EQ(recs + 1, o[0].st.syscalls);
	EXPECT_EQ(2 * recs + 1, o[1].st.syscalls);
	/* the kernel's: the NCOUNT pairs, 2 records each, and the disable */
	if (o[0].kcount) {
		TH_LOG("kernel: %llu system calls for %u records (kernel-read counters), "
		       "%llu (two-call path)", (unsigned long long)o[0].ksys, 2 * NCOUNT,
		       (unsigned long long)o[1].ksys);
		EXPECT_LE(o[0].ksys, 2u * NCOUNT + 1);
		EXPECT_GE(o[1].ksys, 4u * NCOUNT);
	} else {
		TH_LOG("no raw_syscalls:sys_enter: the library's count only");
	}

	/* the same records, counters and encodings: only the timestamps differ */
	ASSERT_EQ(0, spt_decode_file(self->file, self->dev.srcbits, &a));
	ASSERT_EQ(0, spt_decode_file(file2, self->dev.srcbits, &b));
	EXPECT_EQ(0u, a.res.nexus.invalid);
	EXPECT_EQ(0u, a.res.perf.errors);
	EXPECT_EQ(0u, b.res.perf.errors);
	EXPECT_EQ(b.res.perf.messages, a.res.perf.messages);
	ASSERT_EQ(1u, a.nhdr);
	ASSERT_EQ(1u, b.nhdr);
	EXPECT_EQ(b.hdr[0].count, a.hdr[0].count);
	EXPECT_EQ(b.hdr[0].mask, a.hdr[0].mask);
	ASSERT_EQ(b.hdr[0].nctr, a.hdr[0].nctr);
	EXPECT_EQ(0, memcmp(b.hdr[0].def, a.hdr[0].def, a.hdr[0].nctr * sizeof(a.hdr[0].def[0])));
	ASSERT_EQ(recs, (uint64_t)a.nrec);
	ASSERT_EQ(b.nrec, a.nrec);
	for (i = 0; i < a.nrec; i++) {
		const struct spf_record *ra = &a.rec[i], *rb = &b.rec[i];

		ASSERT_EQ(rb->type, ra->type) TH_LOG("record %u", i);
		ASSERT_EQ(rb->naddr, ra->naddr) TH_LOG("record %u", i);
		ASSERT_EQ(rb->addr[0], ra->addr[0]) TH_LOG("record %u", i);
		ASSERT_EQ(rb->addr[1], ra->addr[1]) TH_LOG("record %u", i);
		ASSERT_EQ(rb->nctr, ra->nctr) TH_LOG("record %u", i);
		for (k = 0; k < ra->nctr; k++) {
			ASSERT_EQ(rb->value[k], ra->value[k]) TH_LOG("record %u counter %u", i, k);
			ASSERT_EQ(rb->encoded[k], ra->encoded[k]) TH_LOG("record %u counter %u", i, k);
		}
		EXPECT_TRUE(ra->ts_valid);
		if (i)
			EXPECT_LE(a.rec[i - 1].end_ts, ra->ts) TH_LOG("record %u", i);
	}
	/* and so does sifive-perf decode (csv, the timestamp column left out) */
	if (!access("/usr/bin/sifive-perf", X_OK)) {
		char cmd[512];
		int i2;

		for (i2 = 0; i2 < 2; i2++) {
			snprintf(cmd, sizeof(cmd), "sifive-perf decode %s -c %d --srcbits %u "
				 "--format csv 2> /dev/null | cut -d, -f1,2,4- > %s.csv",
				 i2 ? file2 : self->file, SPT_CHANNEL, self->dev.srcbits,
				 i2 ? file2 : self->file);
			EXPECT_EQ(0, system(cmd)) TH_LOG("%s", cmd);
		}
		snprintf(cmd, sizeof(cmd), "test $(wc -l < %s.csv) -eq %llu && cmp %s.csv %s.csv",
			 self->file, (unsigned long long)recs + 1, self->file, file2);
		EXPECT_EQ(0, system(cmd)) TH_LOG("%s", cmd);
		snprintf(cmd, sizeof(cmd), "rm -f %s.csv %s.csv", self->file, file2);
		system(cmd);
	} else {
		TH_LOG("no /usr/bin/sifive-perf: in-process decode only");
	}
	/* the injected counts: 2^33 took its 16-bit part */
	EXPECT_EQ((uint64_t)1 << 33, a.rec[3 * (NCMP / 2)].value[0] -
		  a.rec[3 * (NCMP / 2) - 1].value[0]);
	spt_decoded_free(&a);
	spt_decoded_free(&b);
	unlink(file2);
	munmap(o, 2 * sizeof(*o));
}

/* ---- the record ioctl's checks ---- */

struct other_thread {
	int fd;
	struct sifive_itc_record *r;
	int err;
};

static void *record_from_other(void *p)
{
	struct other_thread *o = p;

	o->err = ioctl(o->fd, SIFIVE_ITC_IOC_RECORD, o->r) ? errno : 0;
	return NULL;
}

static int itc_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

TEST_F(spf, record_ioctl)
{
	int type = pmu_type(self->dev.hpm.pmu), fd;
	struct sifive_itc_counter c[SIFIVE_ITC_MAX_COUNTERS + 1];
	struct sifive_itc_counters cs;
	struct sifive_itc_write w[SIFIVE_ITC_MAX_PREFIX + 1];
	struct sifive_itc_record r;
	struct other_thread o;
	pthread_t t;
	unsigned int i;

	ASSERT_LE(0, type);
	ASSERT_EQ(0, spt_pin(0));
	fd = open(SIFIVE_ITC_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	memset(c, 0, sizeof(c));
	for (i = 0; i <= SIFIVE_ITC_MAX_COUNTERS; i++) {
		c[i].type = (uint32_t)type;
		c[i].config = 1ULL << 16 | HW_CACHE_L1I << 3 | 1;	/* I$ read misses */
		c[i].mask = (1ULL << 40) - 1;
	}
	c[1].config = 2ULL << 16;			/* raw: D$ misses */
	c[1].config1 = 0x202;
	for (i = 0; i <= SIFIVE_ITC_MAX_PREFIX; i++)
		w[i] = (struct sifive_itc_write){ .channel = SPT_CHANNEL, .width = 8, .value = 2 };
	memset(&r, 0, sizeof(r));
	r.entries = (uintptr_t)w;
	r.count = 1;
	/* no counters yet */
	EXPECT_EQ(ENOENT, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	/* bad counter sets */
	memset(&cs, 0, sizeof(cs));
	cs.counters = (uintptr_t)c;
	cs.channel = SPT_CHANNEL;
	cs.mode = SIFIVE_ITC_COUNT_RAW;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));		/* none */
	cs.count = SIFIVE_ITC_MAX_COUNTERS + 1;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	cs.count = 2;
	cs.channel = 32;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	cs.channel = SPT_CHANNEL;
	cs.mode = 3;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	cs.mode = SIFIVE_ITC_COUNT_RAW;
	cs.flags = 1;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	cs.flags = 0;
	c[1].mask = 0;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	c[1].mask = (1ULL << 40) - 1;
	c[1].reserved = 1;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	c[1].reserved = 0;
	c[1].type = PERF_TYPE_TRACEPOINT;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	c[1].type = (uint32_t)type;
	c[1].config1 = 0x7;				/* the harts cannot count it */
	EXPECT_NE(0, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	c[1].config1 = 0x202;
	cs.counters = 8;				/* a bad pointer */
	EXPECT_EQ(EFAULT, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	cs.counters = (uintptr_t)c;
	/* and then it works, once */
	ASSERT_EQ(0, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));
	EXPECT_EQ(EBUSY, itc_ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs));

	/* bad records write nothing */
	r.flags = 2;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	r.flags = SIFIVE_ITC_REC_RESET;
	r.count = SIFIVE_ITC_MAX_PREFIX + 1;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	r.count = 2;
	w[1].width = 7;
	EXPECT_EQ(EINVAL, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	w[1].width = 8;
	r.entries = 8;
	EXPECT_EQ(EFAULT, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	r.entries = (uintptr_t)w;
	/* the prefix and a 32-bit store a counter */
	ASSERT_EQ(0, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	EXPECT_EQ(4u, r.written);
	EXPECT_EQ(0, r.cpu);
	EXPECT_EQ(0u, r.clipped);
	/* no prefix; a count above 32 bits takes its 16-bit store too */
	ASSERT_EQ(0, spt_inject(&self->dev, 0, "dcache_miss", 1ul << 33));
	r.count = 0;
	r.flags = 0;
	ASSERT_EQ(0, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	EXPECT_EQ(3u, r.written);
	/* the whole prefix */
	r.count = SIFIVE_ITC_MAX_PREFIX;
	ASSERT_EQ(0, itc_ioctl(fd, SIFIVE_ITC_IOC_RECORD, &r));
	EXPECT_LE(SIFIVE_ITC_MAX_PREFIX + 2u, r.written);
	/* the counters are this thread's: another may not read them */
	r.count = 1;
	o.fd = fd;
	o.r = &r;
	ASSERT_EQ(0, pthread_create(&t, NULL, record_from_other, &o));
	pthread_join(t, NULL);
	EXPECT_EQ(EPERM, o.err);
	/* the plain batch still works on the file */
	{
		struct sifive_itc_batch b = { .entries = (uintptr_t)w, .count = 1 };

		EXPECT_EQ(0, itc_ioctl(fd, SIFIVE_ITC_IOC_WRITE, &b));
	}
	EXPECT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
