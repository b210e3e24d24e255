// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selftests of the sifive_trace AUX PMU (sifive_trace.ko) on the simulated
 * SiFive trace encoders, funnel and sinks (socpmu_sim.ko "trace" devices).
 *
 * Each test creates its own device, opens the PMU with perf_event_open,
 * maps the data and AUX buffers, stores a known ITC sequence through
 * /dev/sifive-itc on the traced hart, and decodes the AUX data with the
 * in-tree Nexus decoder: every message, tag and value must be exact and the
 * timestamps must never go back. The device is deleted in a teardown that
 * runs in the harness's parent process.
 *
 * Needs root and the modules loaded; skips otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/wait.h>

#include <socpmu/sim_itc_log.h>

#include "kselftest_harness.h"
#include "st_lib.h"

#define MAX_MSGS	20000

FIXTURE(trace) {
	struct sp_dev dev;
	int itc;
};

FIXTURE_SETUP(trace)
{
	int ret;

	self->itc = -1;
	if (geteuid())
		SKIP(return, "needs root");
	ret = st_available();
	if (ret)
		SKIP(return, "no socpmu_sim + sifive_trace (%s)", strerror(-ret));
}

FIXTURE_TEARDOWN_PARENT(trace)
{
	int ret = sp_dev_delete(&self->dev);

	if (ret)
		TH_LOG("deleting %s: %s", self->dev.name, strerror(-ret));
}

#define CREATE(spec, harts) do {						\
	int __r = st_dev_create(&self->dev, spec, harts);		\
	ASSERT_EQ(0, __r) TH_LOG("new_device \"%s\": %s", spec, strerror(-__r)); \
	self->itc = itc_open();						\
	ASSERT_LE(0, self->itc) TH_LOG("open %s: %s", SIFIVE_ITC_DEVICE, \
				       strerror(-self->itc));		\
} while (0)

#define OPEN(t, config, config1, pid, cpu, pages, ovw) do {		\
	int __r = trace_open(t, config, config1, pid, cpu, pages, ovw);	\
	ASSERT_EQ(0, __r) TH_LOG("perf_event_open config=%#llx config1=%#llx cpu %d: %s", \
				 (unsigned long long)(config),		\
				 (unsigned long long)(config1), cpu, strerror(-__r)); \
} while (0)

static struct nexus_msg msgs[MAX_MSGS];
static uint8_t auxbuf[1 << 22];

/*
 * Every non-empty AUX record of @t (messages with @srcbits of SRC) starts
 * with a sync message, so that it decodes on its own: a full timestamp,
 * where the XOR chain of the next ones begins. Returns the records.
 */
static int check_records_synced(struct __test_metadata *_metadata, struct trace *t,
				unsigned int srcbits)
{
	static struct aux_rec recs[4096];
	struct nexus_msg first[32];
	struct decoded d = { .m = first, .max = ARRAY_SIZE(first) };
	int n = trace_aux_records(t, recs, ARRAY_SIZE(recs));
	uint8_t head[64];
	struct nexus_stats st;

	for (int r = 0; r < n; r++) {
		size_t len = recs[r].size < sizeof(head) ? recs[r].size : sizeof(head);

		if (!len)
			continue;
		for (size_t i = 0; i < len; i++)
			head[i] = ((uint8_t *)t->aux)[(recs[r].offset + i) % t->aux_size];
		EXPECT_EQ(0, decode(head, len, srcbits, false, &d, &st));
		EXPECT_LT(0u, d.n) TH_LOG("record %d of %d: no message", r, n);
		if (d.n) {
			EXPECT_EQ(NEXUS_TCODE_ICT_WS, d.m[0].tcode)
				TH_LOG("record %d of %d (%llu bytes at %llu): starts with tcode %u",
				       r, n, (unsigned long long)recs[r].size,
				       (unsigned long long)recs[r].offset, d.m[0].tcode);
		}
	}
	return n;
}

/*
 * Decode what @t recorded; check that it is one sync message with a full
 * timestamp per AUX record, first in the record, followed by exactly the
 * stores w[0..n) on @src, with timestamps that never go back.
 */
static void check_exact(struct __test_metadata *_metadata, struct trace *t,
			const struct sifive_itc_write *w, unsigned int n,
			unsigned int srcbits, unsigned int src, bool stamped)
{
	struct decoded d = { .m = msgs, .max = MAX_MSGS };
	int records = check_records_synced(_metadata, t, srcbits);
	size_t len = trace_aux_take(t, auxbuf, sizeof(auxbuf));
	unsigned int i, k = 0, syncs = 0;
	struct nexus_stats st;
	uint64_t prev = 0;

	ASSERT_GE(sizeof(auxbuf), len);
	ASSERT_EQ(0, decode(auxbuf, len, srcbits, false, &d, &st));
	EXPECT_EQ(0, st.invalid);
	EXPECT_EQ(0, st.skipped);
	EXPECT_EQ(0, st.truncated);
	for (i = 0; i < d.n; i++) {
		const struct nexus_msg *m = &d.m[i];

		ASSERT_EQ(src, m->src) TH_LOG("message %u", i);
		if (m->tcode == NEXUS_TCODE_ICT_WS) {
			/* trace (re)started: control 0,0 "trace on" */
			EXPECT_EQ(0, m->ict.cksrc);
			EXPECT_EQ(NEXUS_ICT_CONTROL_TRACE_ON, m->ict.ckdata[0]);
			EXPECT_EQ(stamped, m->has_ts);
			syncs++;
		} else {
			ASSERT_GT(n, k) TH_LOG("message %u: more messages than stores", i);
			ASSERT_TRUE(dq_matches(m, &w[k]))
				TH_LOG("message %u (store %u): tcode %u tag %#x data %#x, want tag %#x data %#x",
				       i, k, m->tcode, m->dq.tag, m->dq.data,
				       SIFIVE_ITC_TAG(w[k].channel, w[k].width), w[k].value);
			EXPECT_EQ(stamped, m->has_ts);
			k++;
		}
		ASSERT_TRUE(syncs) TH_LOG("message %u before the first sync", i);
		if (stamped) {
			ASSERT_TRUE(m->ts_valid);
			ASSERT_LE(prev, m->timestamp) TH_LOG("message %u: time goes back", i);
			prev = m->timestamp;
		}
	}
	EXPECT_EQ(n, k);
	TH_LOG("%d AUX records, %u sync messages", records, syncs);
}

/*
 * @buf, which may start inside a message, holds the newest of the stores
 * w[0..n): a run of more than @min of them that ends with the last one.
 * Sync messages between them (a record per drain) are skipped.
 */
static void check_newest(struct __test_metadata *_metadata, const uint8_t *buf, size_t len,
			 const struct sifive_itc_write *w, unsigned int n, unsigned int min)
{
	struct decoded d = { .m = msgs, .max = MAX_MSGS };
	struct nexus_stats st;
	unsigned int i, k = 0, first;

	ASSERT_EQ(0, decode(buf, len, 0, true, &d, &st));
	EXPECT_EQ(0, st.invalid);
	for (i = 0; i < d.n; i++)
		if (d.m[i].tcode != NEXUS_TCODE_ICT_WS)
			d.m[k++] = d.m[i];
	d.n = k;
	ASSERT_LT(min, d.n);
	ASSERT_GE(n, d.n);
	first = n - d.n;
	for (i = 0; i < d.n; i++)
		ASSERT_TRUE(dq_matches(&d.m[i], &w[first + i]))
			TH_LOG("message %u of %u: tcode %u tag %#x data %#x, want store %u: %#x %#x",
			       i, d.n, d.m[i].tcode, d.m[i].dq.tag, d.m[i].dq.data, first + i,
			       SIFIVE_ITC_TAG(w[first + i].channel, w[first + i].width),
			       w[first + i].value);
}

/* Store @n stores of a sequence on the current CPU; all must be traced */
static void store_all(struct __test_metadata *_metadata, int itc,
		      const struct sifive_itc_write *w, unsigned int n)
{
	unsigned int traced;
	int ret = itc_write_all(itc, w, n, &traced);

	ASSERT_EQ(0, ret) TH_LOG("ITC write: %s", strerror(-ret));
	ASSERT_EQ(n, traced);
}

/* One hart, its own sink: the basic exact-content test */
static void run_exact(struct __test_metadata *_metadata, FIXTURE_DATA(trace) *self,
		      const char *spec, uint64_t config, unsigned int n, size_t aux_pages)
{
	static struct sifive_itc_write w[MAX_MSGS];
	struct trace t;

	CREATE(spec, 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, n, 1);
	OPEN(&t, config, 0, -1, 0, aux_pages, false);
	ASSERT_EQ(0, trace_enable(&t));
	store_all(_metadata, self->itc, w, n);
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(0, trace_aux_flags(&t));
	check_exact(_metadata, &t, w, n, 0, 0, config & CFG_TIMESTAMP);
	trace_close(&t);
}

TEST_F(trace, sysfs)
{
	char buf[256];
	int cpus[64], n;
	unsigned int srcbits = 0;

	CREATE("", 2);
	ASSERT_LT(0, st_pmu_type());
	ASSERT_LT(0, sp_read_file(PMU_DIR "/format/sink", buf, sizeof(buf)));
	EXPECT_STREQ("config:0-3\n", buf);
	ASSERT_LT(0, sp_read_file(PMU_DIR "/format/channels", buf, sizeof(buf)));
	EXPECT_STREQ("config1:0-31\n", buf);
	ASSERT_LT(0, sp_read_file(PMU_DIR "/format/stoponwrap", buf, sizeof(buf)));
	EXPECT_STREQ("config:4\n", buf);
	ASSERT_LT(0, sp_read_file(PMU_DIR "/format/timestamp", buf, sizeof(buf)));
	EXPECT_STREQ("config:5\n", buf);
	ASSERT_LT(0, sp_read_file(PMU_DIR "/events/sba", buf, sizeof(buf)));
	EXPECT_STREQ("sink=7\n", buf);
	/* default device: 2 harts behind a funnel, 1 SRC bit */
	n = st_encoders(cpus, 64, &srcbits);
	ASSERT_EQ(2, n);
	EXPECT_EQ(1, srcbits);
	ASSERT_LT(0, sp_read_file(PMU_DIR "/encoders", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "cpu=1 hart=1 src=1 srcbits=1 sinks=funnel:sram,sba"))
		TH_LOG("%s", buf);
}

TEST_F(trace, sram_exact)
{
	run_exact(_metadata, self, "funnel=0 sram=16384 sba=0", CFG_SRAM | CFG_TIMESTAMP,
		  1000, 16);
	EXPECT_EQ(0, sim_stat(&self->dev, "dma_faults"));
}

TEST_F(trace, sram_no_timestamps)
{
	run_exact(_metadata, self, "funnel=0 sram=16384 sba=0", CFG_SRAM, 500, 16);
}

/* SBA with perf's AUX pages: the sink writes straight into them */
TEST_F(trace, sba_direct)
{
	long long direct = drv_stat("direct_bytes"), copied = drv_stat("copied_bytes");

	run_exact(_metadata, self, "funnel=0 sram=0 sba=1", CFG_SBA | CFG_TIMESTAMP, 3000, 64);
	EXPECT_EQ(0, sim_stat(&self->dev, "dma_faults"));
	EXPECT_LT(direct + 3000 * 4, drv_stat("direct_bytes"));
	/* at most alignment padding went through the copy path */
	EXPECT_GT(copied + 64, drv_stat("copied_bytes"));
}

/* A sink much smaller than the trace: drained before it fills, nothing lost */
TEST_F(trace, drain_zero_loss)
{
	long long drains = drv_stat("drains");

	run_exact(_metadata, self, "funnel=0 sram=1024 sba=0", CFG_SRAM | CFG_TIMESTAMP,
		  5000, 64);
	EXPECT_LT(drains + 20, drv_stat("drains"));
	EXPECT_EQ(0, sim_stat(&self->dev, "wraps"));
}

TEST_F(trace, channel_mask)
{
	static struct sifive_itc_write w[256], want[256];
	unsigned int i, n = 0, traced;
	struct trace t;

	CREATE("funnel=0 sram=16384 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	for (i = 0; i < 256; i++) {
		w[i] = (struct sifive_itc_write){ .channel = i % 32, .width = 32, .value = i };
		if (w[i].channel == 6 || w[i].channel == 31)
			want[n++] = w[i];
	}
	OPEN(&t, CFG_SRAM | CFG_TIMESTAMP, (1ULL << 6) | (1ULL << 31), -1, 0, 16, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 256, &traced));
	ASSERT_EQ(0, trace_disable(&t));
	check_exact(_metadata, &t, want, n, 0, 0, true);
	trace_close(&t);
}

/*
 * The AUX buffer (1 page) cannot take the sink (8 KiB): with stop-on-wrap
 * the sink stops when full, the record is TRUNCATED and holds exactly the
 * oldest trace: nothing before the stop is lost.
 */
TEST_F(trace, stop_on_wrap)
{
	static struct sifive_itc_write w[3000];
	struct decoded d = { .m = msgs, .max = MAX_MSGS };
	struct nexus_stats st;
	unsigned int i, k = 0;
	struct trace t;
	size_t len;

	CREATE("funnel=0 sram=8192 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, 3000, 2);
	OPEN(&t, CFG_SRAM | CFG_TIMESTAMP | CFG_STOPONWRAP, 0, -1, 0, 1, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 3000, &i));
	trace_disable(&t);
	EXPECT_EQ(PERF_AUX_FLAG_TRUNCATED, trace_aux_flags(&t) & ~PERF_AUX_FLAG_PARTIAL);
	EXPECT_EQ(0, trace_aux_flags(&t) & PERF_AUX_FLAG_PARTIAL);
	EXPECT_LE(1, sim_stat(&self->dev, "wraps"));

	/* perf leaves one byte of the ring free */
	len = trace_aux_take(&t, auxbuf, sizeof(auxbuf));
	EXPECT_GE(page_size() - 1, len);
	EXPECT_LE(page_size() - 4, len);
	ASSERT_EQ(0, decode(auxbuf, len, 0, false, &d, &st));
	EXPECT_EQ(0, st.invalid);
	ASSERT_LT(100, d.n);
	ASSERT_EQ(NEXUS_TCODE_ICT_WS, d.m[0].tcode);
	for (i = 1; i < d.n; i++, k++)
		ASSERT_TRUE(dq_matches(&d.m[i], &w[k])) TH_LOG("message %u", i);
	TH_LOG("%u of 3000 stores fit, %llu bytes of an unfinished message", k,
	       (unsigned long long)st.truncated);
	EXPECT_GT(3000, k);
	trace_close(&t);
}

/* Without stop-on-wrap the sink wraps: the record keeps the newest trace */
TEST_F(trace, wrap_keeps_newest)
{
	static struct sifive_itc_write w[3000];
	unsigned int traced;
	struct trace t;
	size_t len;

	CREATE("funnel=0 sram=8192 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, 3000, 3);
	OPEN(&t, CFG_SRAM | CFG_TIMESTAMP, 0, -1, 0, 1, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 3000, &traced));
	ASSERT_EQ(3000, traced);
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(PERF_AUX_FLAG_PARTIAL, trace_aux_flags(&t));
	EXPECT_LE(1, sim_stat(&self->dev, "wraps"));

	/* perf leaves one byte of the ring free */
	len = trace_aux_take(&t, auxbuf, sizeof(auxbuf));
	EXPECT_GE(page_size() - 1, len);
	EXPECT_LE(page_size() - 4, len);
	check_newest(_metadata, auxbuf, len, w, 3000, 100);
	trace_close(&t);
}

/*
 * The same with SBA, where the sink writes into the AUX buffer itself, in
 * windows of half the free space: when no room for another window is left,
 * the last one wraps and its record holds the newest trace.
 */
TEST_F(trace, sba_wrap_keeps_newest)
{
	static struct sifive_itc_write w[2000];
	unsigned int traced;
	uint64_t flags = 0;
	struct trace t;
	size_t len;

	CREATE("funnel=0 sram=0 sba=1", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, 2000, 4);
	OPEN(&t, CFG_SBA | CFG_TIMESTAMP, 0, -1, 0, 1, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 2000, &traced));
	ASSERT_EQ(2000, traced);
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(PERF_AUX_FLAG_PARTIAL, trace_aux_flags(&t));
	EXPECT_LE(1, sim_stat(&self->dev, "wraps"));
	/* perf leaves one byte of the ring free */
	EXPECT_GE(page_size() - 1, trace_aux_take(&t, auxbuf, sizeof(auxbuf)));
	len = trace_last_record(&t, auxbuf, &flags);
	EXPECT_EQ(PERF_AUX_FLAG_PARTIAL, flags);
	ASSERT_LE(1024, len);
	check_newest(_metadata, auxbuf, len, w, 2000, 50);
	trace_close(&t);
}

struct writer {
	int cpu, itc, ret;
	const struct sifive_itc_write *w;
	unsigned int n, traced;
};

static void *writer_thread(void *arg)
{
	struct writer *wr = arg;
	unsigned int i, k, traced;

	wr->ret = pin_cpu(wr->cpu);
	wr->traced = 0;
	/* small batches, so that both harts interleave in the funnel */
	for (i = 0; i < wr->n && !wr->ret; i += k) {
		k = wr->n - i < 37 ? wr->n - i : 37;
		wr->ret = itc_write_all(wr->itc, wr->w + i, k, &traced);
		wr->traced += traced;
	}
	return NULL;
}

/*
 * Two harts at once through one funnel: each event gets its own hart's
 * trace. With @ts_jump, the model's time base jumps that many ticks before
 * every message, and the stores are 32-bit values from 2^30 up: long
 * messages.
 */
static void run_funnel(struct __test_metadata *_metadata, FIXTURE_DATA(trace) *self,
		       const char *spec, uint64_t config, unsigned int n, uint64_t ts_jump)
{
	static struct sifive_itc_write w[2][MAX_MSGS];
	struct writer wr[2];
	pthread_t th[2];
	unsigned int srcbits, h;
	int cpus[64];
	struct trace t[2];

	CREATE(spec, 2);
	ASSERT_EQ(2, st_encoders(cpus, 64, &srcbits));
	ASSERT_EQ(1, srcbits);
	if (ts_jump)
		ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "ts_jump", "%llu",
					       (unsigned long long)ts_jump));
	for (h = 0; h < 2; h++) {
		itc_sequence(w[h], n, 10 + h);
		for (unsigned int i = 0; ts_jump && i < n; i++)
			w[h][i] = (struct sifive_itc_write){ .channel = i % 32, .width = 32,
							      .value = 0xc0000000u | h << 24 | i };
		OPEN(&t[h], config, 0, -1, h, 64, false);
	}
	for (h = 0; h < 2; h++)
		ASSERT_EQ(0, trace_enable(&t[h]));
	for (h = 0; h < 2; h++) {
		wr[h] = (struct writer){ .cpu = h, .itc = self->itc, .w = w[h], .n = n };
		ASSERT_EQ(0, pthread_create(&th[h], NULL, writer_thread, &wr[h]));
	}
	for (h = 0; h < 2; h++) {
		pthread_join(th[h], NULL);
		ASSERT_EQ(0, wr[h].ret) TH_LOG("hart %u: %s", h, strerror(-wr[h].ret));
		ASSERT_EQ(n, wr[h].traced);
	}
	for (h = 0; h < 2; h++)
		ASSERT_EQ(0, trace_disable(&t[h]));
	for (h = 0; h < 2; h++) {
		EXPECT_EQ(0, trace_aux_flags(&t[h]));
		check_exact(_metadata, &t[h], w[h], n, 1, h, true);
		trace_close(&t[h]);
	}
	EXPECT_EQ(0, sim_stat(&self->dev, "wraps"));
}

TEST_F(trace, funnel_two_harts_sram)
{
	long long routed = drv_stat("routed_bytes");

	run_funnel(_metadata, self, "harts=2 funnel=1 sram=2048 sba=0",
		   CFG_SRAM | CFG_TIMESTAMP, 4000, 0);
	/* the shared sink was drained by one hart for the other */
	EXPECT_LT(routed, drv_stat("routed_bytes"));
}

TEST_F(trace, funnel_two_harts_sba)
{
	run_funnel(_metadata, self, "", CFG_SBA | CFG_TIMESTAMP, 4000, 0);
	EXPECT_EQ(0, sim_stat(&self->dev, "dma_faults"));
}

/*
 * Long messages (funnel_two_harts_sram's flake, made reliable): the model's
 * time base jumps 2^30 ticks (about a second) before every message, as if
 * the hart had not run for that long (a vCPU on a loaded host), so that
 * with 32-bit values every message is 15 bytes. A sink counts whole words
 * (WP), the word being assembled is not in it, and an SRAM wraps when its
 * last word is written, also by a drain's flush padding the partial word:
 * the writer must keep two words of the window free, not only room for the
 * longest message. A room check that left 20 bytes (fill 2028 of 2048) let
 * a 15-byte message and the 3 bytes before it in the funnel's FIFO reach
 * 2046 bytes, which the next drain's flush made 2048: the sink wrapped and
 * both records were flagged PARTIAL though nothing was lost.
 */
TEST_F(trace, funnel_long_messages)
{
	long long left = drv_stat("left_bytes"), drains = drv_stat("drains");

	run_funnel(_metadata, self, "harts=2 funnel=1 sram=2048 sba=0",
		   CFG_SRAM | CFG_TIMESTAMP, 4000, 1ull << 30);
	EXPECT_EQ(left, drv_stat("left_bytes"));
	/* 2 x 4000 stores of 15 bytes: a drain every 2 KiB or so */
	EXPECT_LT(drains + 40, drv_stat("drains"));
}

/*
 * A quiet hart behind the funnel: hart 1 never stores through the driver
 * (the model's debugfs "itc" stores for it), so it never drains, while
 * hart 0's drains (its event disabled and enabled again) route hart 1's
 * messages into hart 1's open AUX record. Only CPU 1 can commit that
 * record; a consumer that takes what is committed must get every one of
 * hart 1's stores through a 2-page buffer, several times over. The record
 * used to wait for a drain of hart 1's own, and ran out of room (PARTIAL)
 * while its consumer had nothing to take. The two take turns (a barrier):
 * a model store from CPU 1 must not fall inside a drain, which the driver
 * ensures for real stores, and each drain leaves the funnel empty for
 * hart 1's next batch.
 */
#define QUIET_ROUNDS	100u
#define QUIET_BATCH	32u
#define QUIET_STORES	(QUIET_ROUNDS * QUIET_BATCH)	/* 3200 */

struct quiet {
	struct sp_dev *dev;
	pthread_barrier_t turn;
	const struct sifive_itc_write *w;
	int ret;
};

/* Hart 1's stores, made by the model on CPU 1 in hart 0's gaps */
static void *quiet_hart(void *arg)
{
	struct quiet *q = arg;
	unsigned int r;
	int fd;

	q->ret = pin_cpu(1);
	fd = sp_debugfs_open(q->dev, "itc");
	if (!q->ret && fd < 0)
		q->ret = fd;
	for (r = 0; r < QUIET_ROUNDS; r++) {
		for (unsigned int i = r * QUIET_BATCH; !q->ret && i < (r + 1) * QUIET_BATCH; i++)
			q->ret = sp_fd_printf(fd, "1 %u %u %u", q->w[i].channel, q->w[i].width,
					      q->w[i].value);
		pthread_barrier_wait(&q->turn);		/* hart 0's turn */
		pthread_barrier_wait(&q->turn);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST_F(trace, funnel_quiet_hart_committed)
{
	static struct sifive_itc_write w1[QUIET_STORES];
	static uint8_t got[1 << 20];
	struct decoded d = { .m = msgs, .max = MAX_MSGS };
	long long commits = drv_stat("routed_commits"), left = drv_stat("left_bytes");
	unsigned int srcbits = 0, i, k = 0;
	struct quiet q = { .dev = &self->dev, .w = w1 };
	size_t len = 0, n;
	struct nexus_stats st;
	struct trace t[2];
	pthread_t th;
	int cpus[64];
	uint64_t flags;

	CREATE("harts=2 funnel=1 sram=2048 sba=0", 2);
	ASSERT_EQ(2, st_encoders(cpus, 64, &srcbits));
	itc_sequence(w1, QUIET_STORES, 4);
	OPEN(&t[0], CFG_SRAM | CFG_TIMESTAMP, 0, -1, 0, 64, false);
	OPEN(&t[1], CFG_SRAM | CFG_TIMESTAMP, 0, -1, 1, 2, false);
	ASSERT_EQ(0, pin_cpu(0));
	for (int h = 0; h < 2; h++)
		ASSERT_EQ(0, trace_enable(&t[h]));
	ASSERT_EQ(0, pthread_barrier_init(&q.turn, NULL, 2));
	ASSERT_EQ(0, pthread_create(&th, NULL, quiet_hart, &q));
	for (unsigned int r = 0; r < QUIET_ROUNDS; r++) {
		pthread_barrier_wait(&q.turn);		/* hart 1 stored its batch */
		EXPECT_EQ(0, trace_disable(&t[0]));
		EXPECT_EQ(0, trace_enable(&t[0]));
		/* the consumers: what hart 0 keeps does not matter here */
		trace_aux_take(&t[0], auxbuf, sizeof(auxbuf));
		n = trace_aux_take(&t[1], got + len, sizeof(got) - len);
		len += n;
		k += n > 0;
		pthread_barrier_wait(&q.turn);
	}
	pthread_join(th, NULL);
	pthread_barrier_destroy(&q.turn);
	ASSERT_EQ(0, q.ret) TH_LOG("hart 1's stores: %s", strerror(-q.ret));
	for (int h = 0; h < 2; h++)
		ASSERT_EQ(0, trace_disable(&t[h]));
	len += trace_aux_take(&t[1], got + len, sizeof(got) - len);
	ASSERT_GT(sizeof(got), len);
	flags = trace_aux_flags(&t[1]);
	TH_LOG("hart 1: %zu bytes in a %zu-byte buffer, taken %u times while tracing, "
	       "%lld commits on its CPU, %lld bytes left, AUX flags %#llx", len, t[1].aux_size,
	       k, drv_stat("routed_commits") - commits, drv_stat("left_bytes") - left,
	       (unsigned long long)flags);
	EXPECT_EQ(0, flags);
	EXPECT_EQ(0, drv_stat("left_bytes") - left);
	EXPECT_EQ(0, sim_stat(&self->dev, "wraps"));
	EXPECT_LT(t[1].aux_size * 2, len);
	ASSERT_EQ(0, decode(got, len, srcbits, false, &d, &st));
	EXPECT_EQ(0, st.invalid);
	for (i = 0, n = 0; i < d.n; i++) {
		if (d.m[i].tcode != NEXUS_TCODE_DATA_ACQUISITION)
			continue;
		EXPECT_EQ(1, d.m[i].src);
		if (n < QUIET_STORES && dq_matches(&d.m[i], &w1[n]))
			n++;
	}
	EXPECT_EQ(QUIET_STORES, n);
	trace_close(&t[0]);
	trace_close(&t[1]);
}

/*
 * Bounded stops (issue 15): a stop runs with interrupts off, so it must do
 * a fixed amount of work whatever the hardware does. The simulator counts
 * the driver's register reads; ST_EMPTY_POLLS (64) control reads for every
 * wait of a drain together, at most ST_SRAM_COPY_MAX (4 KiB) of SRAM read
 * through the data register (1024 reads), and a few more.
 */
#define STOP_MAX_READS	(64 + 1024 + 100)

/* Register reads (and milliseconds) of disabling @t: the stop's work */
static uint64_t stop_reads(struct __test_metadata *_metadata, FIXTURE_DATA(trace) *self,
			   struct trace *t)
{
	uint64_t r0 = 0, r1 = 0, w;
	double t0, ms;

	EXPECT_EQ(0, sp_regs(&self->dev, &r0, &w));
	t0 = now_s();
	EXPECT_EQ(0, trace_disable(t));
	ms = (now_s() - t0) * 1e3;
	EXPECT_EQ(0, sp_regs(&self->dev, &r1, &w));
	TH_LOG("stop: %llu register reads, %.2f ms", (unsigned long long)(r1 - r0), ms);
	return r1 - r0;
}

/*
 * Encoders and a funnel that never report empty: the stop gives up after
 * its poll budget and truncates the record (before: 100,000 polls per
 * block), and what reached the sink is still there.
 */
TEST_F(trace, stop_bounded_never_empty)
{
	static struct sifive_itc_write w[50];
	unsigned int traced, h;
	struct trace t[2];

	CREATE("harts=2 funnel=1 sram=4096 sba=0 never_empty=1", 2);
	itc_sequence(w, 50, 11);
	for (h = 0; h < 2; h++) {
		OPEN(&t[h], CFG_SRAM | CFG_TIMESTAMP, 0, -1, h, 4, false);
		ASSERT_EQ(0, trace_enable(&t[h]));
	}
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 50, &traced));
	EXPECT_EQ(50, traced);
	EXPECT_GT(STOP_MAX_READS, stop_reads(_metadata, self, &t[0]));
	EXPECT_NE(0, trace_aux_flags(&t[0]) & PERF_AUX_FLAG_TRUNCATED);
	check_exact(_metadata, &t[0], w, 50, 1, 0, true);
	EXPECT_GT(STOP_MAX_READS, stop_reads(_metadata, self, &t[1]));
	EXPECT_LE(2, drv_stat("stuck"));
	for (h = 0; h < 2; h++)
		trace_close(&t[h]);
}

/*
 * A 1 MiB SRAM that wrapped, and a 1-page AUX buffer: the stop copies the
 * newest trace that fits, at most 4 KiB of SRAM (before: the whole SRAM,
 * 262,144 register reads with interrupts off).
 */
TEST_F(trace, stop_bounded_big_sram)
{
	static struct sifive_itc_write w[150000];
	unsigned int traced;
	struct trace t;
	size_t len;

	CREATE("funnel=0 sram=1048576 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, 150000, 12);
	OPEN(&t, CFG_SRAM | CFG_TIMESTAMP, 0, -1, 0, 1, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 150000, &traced));
	ASSERT_EQ(150000, traced);
	EXPECT_LE(1, sim_stat(&self->dev, "wraps"));
	EXPECT_GT(STOP_MAX_READS, stop_reads(_metadata, self, &t));
	EXPECT_EQ(PERF_AUX_FLAG_PARTIAL, trace_aux_flags(&t));
	/* perf leaves one byte of the ring free */
	len = trace_aux_take(&t, auxbuf, sizeof(auxbuf));
	EXPECT_GE(page_size() - 1, len);
	EXPECT_LE(page_size() - 4, len);
	check_newest(_metadata, auxbuf, len, w, 150000, 100);
	trace_close(&t);
}

/*
 * "sifive,sba-buffer-size" of 1 GiB: the driver's own SBA buffer is capped
 * (64 KiB; before: 1 GiB of coherent memory per block, and the probe
 * failed), and tracing works.
 */
TEST_F(trace, sba_buffer_capped)
{
	run_exact(_metadata, self, "funnel=0 sram=0 sba=1 sba_buf=1073741824",
		  CFG_SBA | CFG_TIMESTAMP, 2000, 64);
	EXPECT_EQ(0, sim_stat(&self->dev, "dma_faults"));
}

/* The same behind a funnel, whose SBA buffer is always copied */
TEST_F(trace, funnel_sba_buffer_capped)
{
	run_funnel(_metadata, self, "harts=2 funnel=1 sram=0 sba=1 sba_buf=1073741824",
		   CFG_SBA | CFG_TIMESTAMP, 2000, 0);
	EXPECT_EQ(0, sim_stat(&self->dev, "dma_faults"));
}

/* A per-task event follows its task from hart to hart */
TEST_F(trace, per_task)
{
	static struct sifive_itc_write w[600];
	struct trace t;

	CREATE("funnel=0 sram=4096 sba=1", 2);
	itc_sequence(w, 600, 5);
	ASSERT_EQ(0, pin_cpu(1));
	/* no timestamps: without a funnel each hart has its own time base */
	OPEN(&t, CFG_SRAM, 0, 0, -1, 32, false);
	ASSERT_EQ(0, trace_enable(&t));
	store_all(_metadata, self->itc, w, 300);
	ASSERT_EQ(0, pin_cpu(0));
	store_all(_metadata, self->itc, w + 300, 300);
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(0, trace_aux_flags(&t));
	check_exact(_metadata, &t, w, 600, 0, 0, false);
	trace_close(&t);
}

static int try_open(uint64_t config, uint64_t config1, uint64_t config2, int cpu,
		    void (*tweak)(struct perf_event_attr *))
{
	struct perf_event_attr attr;
	int fd;

	st_attr(&attr, config, config1);
	attr.config2 = config2;
	if (tweak)
		tweak(&attr);
	fd = sp_perf_event_open(&attr, -1, cpu, -1, 0);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static void sampling(struct perf_event_attr *a) { a->sample_period = 1000; }
static void freq(struct perf_event_attr *a) { a->freq = 1; a->sample_freq = 100; }
static void no_user(struct perf_event_attr *a) { a->exclude_user = 1; }
static void aux_period(struct perf_event_attr *a) { a->sample_period = 1; }

TEST_F(trace, bad_config)
{
	CREATE("harts=1 funnel=0 sram=4096 sba=0", 1);
	EXPECT_EQ(0, try_open(CFG_SRAM, 0, 0, 0, NULL));
	EXPECT_EQ(0, try_open(0, 0, 0, 0, NULL));		/* default sink */
	EXPECT_EQ(0, try_open(CFG_SRAM, 0xffffffff, 0, 0, NULL));
	EXPECT_EQ(0, try_open(CFG_SRAM, 0, 0, 0, aux_period));	/* what perf record asks */
	/* unknown sinks */
	EXPECT_EQ(-EINVAL, try_open(5, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, try_open(SIFIVE_SINK_FUNNEL, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, try_open(15, 0, 0, 0, NULL));
	/* a sink this hart does not have */
	EXPECT_EQ(-EINVAL, try_open(CFG_SBA, 0, 0, 0, NULL));
	/* channel > 31 */
	EXPECT_EQ(-EINVAL, try_open(CFG_SRAM, 1ULL << 32, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, try_open(CFG_SRAM, 1ULL << 63, 0, 0, NULL));
	/* reserved bits */
	EXPECT_EQ(-EINVAL, try_open(CFG_SRAM | (1ULL << 6), 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, try_open(CFG_SRAM, 0, 1, 0, NULL));
	/* sampling */
	EXPECT_EQ(-EOPNOTSUPP, try_open(CFG_SRAM, 0, 0, 0, sampling));
	EXPECT_EQ(-EOPNOTSUPP, try_open(CFG_SRAM, 0, 0, 0, freq));
	EXPECT_EQ(-EINVAL, try_open(CFG_SRAM, 0, 0, 0, no_user));
	/* a per-task event on every CPU cannot be inherited */
	{
		struct perf_event_attr attr;
		int fd;

		st_attr(&attr, CFG_SRAM, 0);
		attr.inherit = 1;
		EXPECT_EQ(-EINVAL, sp_perf_event_open(&attr, 0, -1, -1, 0));
		attr.inherit = 0;
		fd = sp_perf_event_open(&attr, 0, -1, -1, 0);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
		attr.inherit = 1;
		fd = sp_perf_event_open(&attr, 0, 0, -1, 0);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
	}
	/* CPU 1 has no trace encoder on this device */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		EXPECT_EQ(-ENODEV, try_open(CFG_SRAM, 0, 0, 1, NULL));
}

/* One event per hart */
TEST_F(trace, exclusive)
{
	struct trace a, b;
	int ret;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	OPEN(&a, CFG_SRAM, 0, -1, 0, 4, false);
	ret = trace_open(&b, CFG_SRAM, 0, -1, 0, 4, false);
	EXPECT_EQ(-EBUSY, ret);
	if (!ret)
		trace_close(&b);
	trace_close(&a);
}

/* Funnel harts must agree on the shared sink */
TEST_F(trace, funnel_sink_conflict)
{
	static struct sifive_itc_write w[10];
	unsigned int traced;
	struct trace a, b;

	CREATE("harts=2 funnel=1 sram=4096 sba=1", 2);
	itc_sequence(w, 10, 7);
	OPEN(&a, CFG_SRAM, 0, -1, 0, 4, false);
	OPEN(&b, CFG_SBA, 0, -1, 1, 4, false);
	ASSERT_EQ(0, trace_enable(&a));
	ASSERT_EQ(0, trace_enable(&b));
	/* b cannot be scheduled while a uses the funnel's SRAM */
	ASSERT_EQ(0, pin_cpu(1));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 10, &traced));
	EXPECT_EQ(0, traced);
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 10, &traced));
	EXPECT_EQ(10, traced);
	trace_close(&b);
	trace_close(&a);
}

TEST_F(trace, itc_interface)
{
	struct sifive_itc_write w[4] = {
		{ .channel = 1, .width = 32, .value = 0xdeadbeef },
		{ .channel = 2, .width = 16, .value = 0xbeef },
		{ .channel = 3, .width = 8, .value = 0xef },
		{ .channel = 4, .width = 8, .value = 0x1 },
	};
	struct sifive_itc_write bad;
	struct sifive_itc_batch b = { 0 };
	struct trace t;
	int ret;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	OPEN(&t, CFG_SRAM | CFG_TIMESTAMP, 0, -1, 0, 4, false);
	ASSERT_EQ(0, trace_enable(&t));
	/* bad entries: nothing of the batch is written */
	bad = w[0];
	bad.channel = 32;
	EXPECT_EQ(-EINVAL, itc_write(self->itc, &bad, 1, NULL));
	bad = w[0];
	bad.width = 24;
	EXPECT_EQ(-EINVAL, itc_write(self->itc, &bad, 1, NULL));
	bad = w[1];
	bad.value = 0x10000;
	EXPECT_EQ(-EINVAL, itc_write(self->itc, &bad, 1, NULL));
	bad = w[2];
	bad.reserved = 1;
	EXPECT_EQ(-EINVAL, itc_write(self->itc, &bad, 1, NULL));
	EXPECT_EQ(-EINVAL, itc_write(self->itc, w, 0, NULL));
	EXPECT_EQ(-EINVAL, itc_write(self->itc, w, SIFIVE_ITC_MAX_BATCH + 1, NULL));
	b.entries = (uintptr_t)w;
	b.count = 1;
	b.flags = 1;
	EXPECT_EQ(-1, ioctl(self->itc, SIFIVE_ITC_IOC_WRITE, &b));
	EXPECT_EQ(EINVAL, errno);
	b.flags = 0;
	b.entries = 16;
	EXPECT_EQ(-1, ioctl(self->itc, SIFIVE_ITC_IOC_WRITE, &b));
	EXPECT_EQ(EFAULT, errno);
	{
		struct sifive_itc_write mixed[2] = { w[0], w[0] };

		mixed[1].channel = 40;
		EXPECT_EQ(-EINVAL, itc_write(self->itc, mixed, 2, NULL));
	}
	/* ioctl: reports the CPU and what was traced */
	ret = itc_write(self->itc, w, 2, &b);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, b.cpu);
	EXPECT_EQ(2, b.traced);
	/* write(): the same stores */
	EXPECT_EQ((ssize_t)(2 * sizeof(w[0])), write(self->itc, w + 2, 2 * sizeof(w[0])));
	EXPECT_EQ(-1, write(self->itc, w, sizeof(w[0]) + 1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, trace_disable(&t));
	check_exact(_metadata, &t, w, 4, 0, 0, true);
	trace_close(&t);

	/* a CPU without a trace encoder */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		ASSERT_EQ(0, sp_dev_delete(&self->dev));
		ASSERT_EQ(0, st_dev_create(&self->dev, "harts=1 funnel=0", 1));
		ASSERT_EQ(0, pin_cpu(1));
		EXPECT_EQ(-ENODEV, itc_write(self->itc, w, 1, NULL));
	}
}

/* Who may store: like opening a perf event that traces the kernel */
TEST_F(trace, itc_permission)
{
	char old[16];
	int status;
	pid_t pid;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	ASSERT_LT(0, sp_read_file("/proc/sys/kernel/perf_event_paranoid", old, sizeof(old)));
	for (int paranoid = 2; paranoid >= 1; paranoid--) {
		char val[4];

		snprintf(val, sizeof(val), "%d", paranoid);
		ASSERT_EQ(0, sp_write_file("/proc/sys/kernel/perf_event_paranoid", val));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			int fd;

			if (setgid(65534) || setuid(65534))
				_exit(3);
			fd = open(SIFIVE_ITC_DEVICE, O_RDWR);
			_exit(fd >= 0 ? 0 : errno == EACCES ? 1 : 2);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(paranoid > 1 ? 1 : 0, WEXITSTATUS(status))
			TH_LOG("perf_event_paranoid %d", paranoid);
	}
	sp_write_file("/proc/sys/kernel/perf_event_paranoid", old);
}

/* Snapshot (overwrite) mode: the newest trace is in the buffer */
TEST_F(trace, overwrite_mode)
{
	static struct sifive_itc_write w[3000];
	unsigned int traced;
	uint64_t head, i, len;
	struct trace t;

	CREATE("funnel=0 sram=16384 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, 3000, 8);
	OPEN(&t, CFG_SRAM, 0, -1, 0, 2, true);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 3000, &traced));
	ASSERT_EQ(0, trace_disable(&t));
	head = __atomic_load_n(&t.pc->aux_head, __ATOMIC_ACQUIRE);
	len = head < t.aux_size ? head : t.aux_size;
	ASSERT_LT(1000, len);
	for (i = 0; i < len; i++)
		auxbuf[i] = ((uint8_t *)t.aux)[(head - len + i) % t.aux_size];
	check_newest(_metadata, auxbuf, len, w, 3000, 100);
	trace_close(&t);
}

/* The device goes away under a tracing event */
TEST_F(trace, remove_while_tracing)
{
	static struct sifive_itc_write w[100];
	unsigned int traced;
	struct trace t;

	CREATE("funnel=0 sram=4096 sba=1", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, 100, 9);
	OPEN(&t, CFG_SBA, 0, -1, 0, 8, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 100, &traced));
	ASSERT_EQ(0, sp_dev_delete(&self->dev));
	EXPECT_EQ(-ENODEV, itc_write(self->itc, w, 1, NULL));
	EXPECT_NE(0, trace_aux_flags(&t) & PERF_AUX_FLAG_TRUNCATED);
	trace_disable(&t);
	trace_enable(&t);
	trace_close(&t);
	/* and the hart can be traced again by a new device */
	ASSERT_EQ(0, st_dev_create(&self->dev, "funnel=0 sram=4096 sba=0", 2));
	OPEN(&t, CFG_SRAM, 0, -1, 0, 8, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, itc_write_all(self->itc, w, 100, &traced));
	ASSERT_EQ(0, trace_disable(&t));
	check_exact(_metadata, &t, w, 100, 0, 0, false);
	trace_close(&t);
}

/* The model's own debugfs store, as if the hart wrote, lands in the trace too */
TEST_F(trace, sim_itc_debugfs)
{
	struct sifive_itc_write w = { .channel = 9, .width = 16, .value = 0x1234 };
	char path[256];
	struct trace t;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	OPEN(&t, CFG_SRAM, 0, -1, 0, 4, false);
	ASSERT_EQ(0, trace_enable(&t));
	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/itc", self->dev.name);
	ASSERT_EQ(0, sp_write_file(path, "0 9 16 0x1234"));
	EXPECT_EQ(-EINVAL, sp_write_file(path, "0 32 16 1"));
	EXPECT_EQ(-EINVAL, sp_write_file(path, "0 9 8 0x100"));
	ASSERT_EQ(0, trace_disable(&t));
	check_exact(_metadata, &t, &w, 1, 0, 0, false);
	EXPECT_EQ(2, sim_stat(&self->dev, "messages"));
	trace_close(&t);
}

/*
 * The model's log of the harts' stimulus stores (debugfs "itc_log", which
 * perf_record_test's fib_library takes as the truth): exactly the stores it
 * was asked to keep, in order, each with its hart, channel, width, value and
 * whether it was traced (hart 1 has no event, so its store is not); nothing
 * after a new log; its bounds refused.
 */
TEST_F(trace, sim_itc_log)
{
	const struct socpmu_sim_itc_rec want[] = {
		{ .value = 0x1234, .hart = 0, .channel = 9, .width = 16,
		  .flags = SOCPMU_SIM_ITC_TRACED },
		{ .value = 0xdeadbeef, .hart = 1, .channel = 9, .width = 32 },
		{ .value = 0x7f, .hart = 0, .channel = 31, .width = 8,
		  .flags = SOCPMU_SIM_ITC_TRACED },
	};
	struct socpmu_sim_itc_rec got[4];
	char path[256];
	struct trace t;
	int fd;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	EXPECT_EQ(-EINVAL, sp_debugfs_printf(&self->dev, "itc_log", "%u",
					     SOCPMU_SIM_ITC_LOG_MAX + 1));
	EXPECT_EQ(-EINVAL, sp_debugfs_printf(&self->dev, "itc_log", "-1"));
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "itc_log", "3"));
	OPEN(&t, CFG_SRAM, 0, -1, 0, 4, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, sp_debugfs_write(&self->dev, "itc", "0 9 16 0x1234"));
	ASSERT_EQ(0, sp_debugfs_write(&self->dev, "itc", "1 9 32 0xdeadbeef"));
	ASSERT_EQ(0, sp_debugfs_write(&self->dev, "itc", "0 31 8 0x7f"));
	ASSERT_EQ(0, sp_debugfs_write(&self->dev, "itc", "0 2 8 1"));	/* no room */
	ASSERT_EQ(0, trace_disable(&t));
	trace_close(&t);

	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/itc_log", self->dev.name);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(want), read(fd, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(want, got, sizeof(want)));
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "itc_log", "2"));
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(0, read(fd, got, sizeof(got)));
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "itc_log", "0"));
	EXPECT_EQ(0, read(fd, got, sizeof(got)));
	close(fd);
}

/*
 * A funnel stops on wrap, so a wrapped funnel holds whole messages from its
 * start: the oldest trace, beginning with the hart's sync message, is what
 * the record keeps (the write-out used to skip the first message, as if
 * the data began inside one). Stores made through the model (debugfs
 * "itc"), which the driver does not drain on the way, fill the 256-byte
 * funnel past its end.
 */
TEST_F(trace, funnel_wrap_keeps_oldest)
{
	static struct sifive_itc_write w[100];
	struct decoded d = { .m = msgs, .max = MAX_MSGS };
	char path[256], cmd[64];
	struct nexus_stats st;
	unsigned int i, k;
	struct trace t;
	size_t len;

	CREATE("harts=2 funnel=1 sram=256 sba=0", 2);
	OPEN(&t, CFG_SRAM, 0, -1, 0, 4, false);
	ASSERT_EQ(0, trace_enable(&t));
	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/itc", self->dev.name);
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		w[i] = (struct sifive_itc_write){ .channel = 3, .width = 32, .value = 0x1000 + i };
		snprintf(cmd, sizeof(cmd), "0 3 32 %u", 0x1000 + i);
		ASSERT_EQ(0, sp_write_file(path, cmd));
	}
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_LE(1, sim_stat(&self->dev, "wraps"));
	len = trace_aux_take(&t, auxbuf, sizeof(auxbuf));
	ASSERT_EQ(0, decode(auxbuf, len, 1, false, &d, &st));
	EXPECT_EQ(0, st.invalid);
	ASSERT_LT(2u, d.n);
	EXPECT_EQ(NEXUS_TCODE_ICT_WS, d.m[0].tcode);
	for (i = 1, k = 0; i < d.n; i++, k++) {
		ASSERT_TRUE(dq_matches(&d.m[i], &w[k])) TH_LOG("message %u", i);
	}
	TH_LOG("%u of %zu stores fit", k, ARRAY_SIZE(w));
	EXPECT_GT(ARRAY_SIZE(w), k);
	trace_close(&t);
}

/*
 * A store whose stimulus register never gets ready (1000 reads, the
 * driver's limit) is not made, and is not counted as traced: the library
 * starts its stream again with a header when fewer stores were traced than
 * it asked for; counted, every delta after the lost store was wrong. The
 * model's "stim_busy" makes the first store's 1000 reads say "not ready".
 */
#define STIM_POLLS	1000

TEST_F(trace, itc_not_ready_not_counted)
{
	static struct sifive_itc_write w[10];
	struct sifive_itc_batch b;
	long long not_ready = drv_stat("not_ready");
	struct trace t;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, ARRAY_SIZE(w), 3);
	OPEN(&t, CFG_SRAM, 0, -1, 0, 4, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "stim_busy", "%d", STIM_POLLS));
	ASSERT_EQ(0, itc_write(self->itc, w, ARRAY_SIZE(w), &b));
	EXPECT_EQ(ARRAY_SIZE(w) - 1, b.traced);
	EXPECT_EQ(not_ready + 1, drv_stat("not_ready"));
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(PERF_AUX_FLAG_PARTIAL, trace_aux_flags(&t) & PERF_AUX_FLAG_PARTIAL);
	/* the trace holds the stores that were made: all but the first */
	check_exact(_metadata, &t, w + 1, ARRAY_SIZE(w) - 1, 0, 0, false);
	trace_close(&t);
}

/*
 * The Bounds table: an ITC batch section is 64 stores, each waiting at most
 * 1000 reads for its stimulus register. With a register that never gets
 * ready, one ioctl of 64 stores reads it 64,000 times (and a few reads
 * more for the room checks), makes none and says so.
 */
#define ITC_CHUNK	64

TEST_F(trace, itc_never_ready_bounded)
{
	static struct sifive_itc_write w[ITC_CHUNK];
	struct sifive_itc_batch b;
	uint64_t r0 = 0, r1 = 0, wr;
	struct trace t;

	CREATE("funnel=0 sram=4096 sba=0", 2);
	ASSERT_EQ(0, pin_cpu(0));
	itc_sequence(w, ITC_CHUNK, 5);
	OPEN(&t, CFG_SRAM, 0, -1, 0, 4, false);
	ASSERT_EQ(0, trace_enable(&t));
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "stim_busy", "%d", 1000000));
	ASSERT_EQ(0, sp_regs(&self->dev, &r0, &wr));
	ASSERT_EQ(0, itc_write(self->itc, w, ITC_CHUNK, &b));
	ASSERT_EQ(0, sp_regs(&self->dev, &r1, &wr));
	ASSERT_EQ(0, sp_debugfs_printf(&self->dev, "stim_busy", "0"));
	TH_LOG("%llu register reads for %d stores never ready", (unsigned long long)(r1 - r0),
	       ITC_CHUNK);
	EXPECT_EQ(0u, b.traced);
	EXPECT_LE((uint64_t)ITC_CHUNK * STIM_POLLS, r1 - r0);
	EXPECT_GE((uint64_t)ITC_CHUNK * STIM_POLLS + 200, r1 - r0);
	ASSERT_EQ(0, trace_disable(&t));
	EXPECT_EQ(PERF_AUX_FLAG_PARTIAL, trace_aux_flags(&t) & PERF_AUX_FLAG_PARTIAL);
	trace_close(&t);
}

TEST_HARNESS_MAIN
