// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of tensix-perf's pure parts, no kernel needed:
 * the counter table, the derived metrics, the bound classification, the
 * "n/a" handling (never inf/nan), and the sysfs format/alias encoding.
 *
 * Output is kselftest TAP and ends with the "# Totals:" line.
 * Build and run: make -C tools/tensix-perf check (or valgrind); `make check`
 * runs it on the host.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* nftw(), mkdtemp(); the generic selftests rule has no -D */
#endif
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"
#include "pmu.h"

/* ---- a minimal TAP harness ---- */

static unsigned int t_pass, t_fail, t_skip, t_num;
static bool t_ok;
static const char *t_skip_why;

/* Mark the running test as skipped */
static void skip_test(const char *why)
{
	t_skip_why = why;
}

#define TEST(name) static void name(void)

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("#   %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
			t_ok = false;					\
		}							\
	} while (0)

static void run_test(const char *name, void (*fn)(void))
{
	t_ok = true;
	t_skip_why = NULL;
	fn();
	t_num++;
	if (t_ok && t_skip_why) {
		t_skip++;
		printf("ok %u %s # SKIP %s\n", t_num, name, t_skip_why);
	} else if (t_ok) {
		t_pass++;
		printf("ok %u %s\n", t_num, name);
	} else {
		t_fail++;
		printf("not ok %u %s\n", t_num, name);
	}
}

/* ---- helpers ---- */

static void set(struct tp_counts *c, enum tp_ev ev, double v)
{
	c->ev[ev].v = v;
	c->ev[ev].valid = true;
}

static void set_cycles(struct tp_counts *c, double cyc)
{
	for (int b = 0; b < TENSIX_NR_BANKS; b++) {
		c->cycles[b].v = cyc;
		c->cycles[b].valid = true;
	}
	for (int m = 0; m < 2; m++) {
		c->l1_cycles[m].v = cyc;
		c->l1_cycles[m].valid = true;
	}
}

/* Every counter valid and 0, every cycle count valid = @cyc */
static void zero_counts(struct tp_counts *c, double cyc)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < TP_NR_EV; i++)
		set(c, (enum tp_ev)i, 0);
	set_cycles(c, cyc);
}

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

static bool near(double a, double b)
{
	return dabs(a - b) <= 1e-12 * (dabs(b) > 1 ? dabs(b) : 1);
}

static void expect_val(const struct tp_metrics *m, enum tp_metric_id id, double v)
{
	const struct tp_metric *x = &m->m[id];

	CHECK(x->valid && near(x->value, v), "%s = %s%.12g, want %.12g",
	      tp_metric_desc(id)->name, x->valid ? "" : "n/a ", x->value, v);
}

static void expect_na(const struct tp_metrics *m, enum tp_metric_id id)
{
	char buf[64];

	CHECK(!m->m[id].valid, "%s = %.12g, want n/a", tp_metric_desc(id)->name, m->m[id].value);
	tp_fmt_metric(buf, sizeof(buf), &m->m[id]);
	CHECK(!strcmp(buf, "n/a"), "%s formats as '%s'", tp_metric_desc(id)->name, buf);
}

/* Every metric is n/a or finite; its text is never inf/nan */
static void expect_sane(const struct tp_metrics *m)
{
	char buf[64];

	for (int i = 0; i < TP_NR_METRICS; i++) {
		tp_fmt_metric(buf, sizeof(buf), &m->m[i]);
		CHECK(!m->m[i].valid || isfinite(m->m[i].value), "%s not finite",
		      tp_metric_desc(i)->name);
		CHECK(!strstr(buf, "inf") && !strstr(buf, "nan"), "%s formats as '%s'",
		      tp_metric_desc(i)->name, buf);
		for (int j = 0; j < m->m[i].nr_inputs; j++) {
			tp_fmt_val(buf, sizeof(buf), m->m[i].in[j].val);
			CHECK(!strstr(buf, "inf") && !strstr(buf, "nan"), "%s input %s = '%s'",
			      tp_metric_desc(i)->name, m->m[i].in[j].name, buf);
		}
	}
}

/*
 * A workload given as counter amounts; the expected values of every metric
 * are computed here by hand from the same numbers.
 */
struct wl {
	double cyc;
	double fpu, sfpu, fpu_or_sfpu, fpu_avail1;
	double srca_w, srcb_w, u0_busy, u1_busy, srca_wa, srcb_wa;
	double mi_started, mi_avail;
	double pdra, pbusy, avail_math;
	double stalls[3], instrs[3];
	double ring0[4], ring1[4];
};

static void wl_counts(const struct wl *w, struct tp_counts *c)
{
	zero_counts(c, w->cyc);
	set(c, TP_EV_fpu_instruction, w->fpu);
	set(c, TP_EV_sfpu_instruction, w->sfpu);
	set(c, TP_EV_fpu_or_sfpu_instrn, w->fpu_or_sfpu);
	set(c, TP_EV_fpu_instrn_available_1, w->fpu_avail1);
	set(c, TP_EV_srca_write, w->srca_w);
	set(c, TP_EV_srcb_write, w->srcb_w);
	set(c, TP_EV_unpack0_busy_thread0, w->u0_busy);
	set(c, TP_EV_unpack1_busy_thread0, w->u1_busy);
	set(c, TP_EV_srca_write_available, w->srca_wa);
	set(c, TP_EV_srcb_write_available, w->srcb_wa);
	set(c, TP_EV_math_instrn_started, w->mi_started);
	set(c, TP_EV_math_instrn_available, w->mi_avail);
	set(c, TP_EV_packer_dest_read_available, w->pdra);
	set(c, TP_EV_packer_busy, w->pbusy);
	set(c, TP_EV_available_math, w->avail_math);
	set(c, TP_EV_thread_stalls_0, w->stalls[0]);
	set(c, TP_EV_thread_stalls_1, w->stalls[1]);
	set(c, TP_EV_thread_stalls_2, w->stalls[2]);
	set(c, TP_EV_thread_instructions_0, w->instrs[0]);
	set(c, TP_EV_thread_instructions_1, w->instrs[1]);
	set(c, TP_EV_thread_instructions_2, w->instrs[2]);
	set(c, TP_EV_noc_ring0_incoming_1, w->ring0[0]);
	set(c, TP_EV_noc_ring0_incoming_0, w->ring0[1]);
	set(c, TP_EV_noc_ring0_outgoing_1, w->ring0[2]);
	set(c, TP_EV_noc_ring0_outgoing_0, w->ring0[3]);
	set(c, TP_EV_noc_ring1_incoming_1, w->ring1[0]);
	set(c, TP_EV_noc_ring1_incoming_0, w->ring1[1]);
	set(c, TP_EV_noc_ring1_outgoing_1, w->ring1[2]);
	set(c, TP_EV_noc_ring1_outgoing_0, w->ring1[3]);
}

static enum tp_bound wl_check(const struct wl *w, const struct tp_platform *p)
{
	struct tp_counts c;
	struct tp_metrics m;
	double u0 = w->srca_w / w->u0_busy, u1 = w->srcb_w / w->u1_busy;
	double f0 = w->srca_wa / w->u0_busy, f1 = w->srcb_wa / w->u1_busy;
	double r0 = (w->ring0[0] + w->ring0[1] + w->ring0[2] + w->ring0[3]) / w->cyc;
	double r1 = (w->ring1[0] + w->ring1[1] + w->ring1[2] + w->ring1[3]) / w->cyc;
	double stall = (w->stalls[0] + w->stalls[1] + w->stalls[2]) / (3 * w->cyc);
	double issue = (w->instrs[0] + w->instrs[1] + w->instrs[2]) / (3 * w->cyc);

	wl_counts(w, &c);
	tp_metrics_compute(&c, p, &m);
	expect_sane(&m);
	CHECK(m.platform == p, "platform");

	expect_val(&m, TP_M_UNPACK0_WRITE_EFF, u0);
	expect_val(&m, TP_M_UNPACK1_WRITE_EFF, u1);
	expect_val(&m, TP_M_UNPACK_WRITE_EFF, (u0 + u1) / 2);
	expect_val(&m, TP_M_PACKER_EFF, w->pdra / w->pbusy);
	expect_val(&m, TP_M_FPU_EFF, w->fpu / w->fpu_avail1);
	expect_val(&m, TP_M_MATH_PIPE_UTIL, w->mi_started / w->mi_avail);
	expect_val(&m, TP_M_MATH_TO_PACK, w->avail_math / w->pbusy);
	expect_val(&m, TP_M_UNPACK0_TO_MATH, f0);
	expect_val(&m, TP_M_UNPACK1_TO_MATH, f1);
	expect_val(&m, TP_M_UNPACK_TO_MATH, (f0 + f1) / 2);
	expect_val(&m, TP_M_FPU_UTIL, w->fpu / w->cyc);
	expect_val(&m, TP_M_SFPU_UTIL, w->sfpu / w->cyc);
	expect_val(&m, TP_M_MATH_UTIL, w->fpu_or_sfpu / w->cyc);
	expect_val(&m, TP_M_UNPACK0_UTIL, u0);
	expect_val(&m, TP_M_UNPACK1_UTIL, u1);
	expect_val(&m, TP_M_UNPACK_UTIL, (u0 + u1) / 2);
	expect_val(&m, TP_M_PACK_UTIL, w->pbusy / w->cyc);
	expect_val(&m, TP_M_STALL_RATE, stall);
	expect_val(&m, TP_M_ISSUE_RATE, issue);
	expect_val(&m, TP_M_NOC_RING0_TXN, r0);
	expect_val(&m, TP_M_NOC_RING1_TXN, r1);
	expect_val(&m, TP_M_NOC_TXN, r0 + r1);
	if (p) {
		expect_val(&m, TP_M_UNPACK_BPC, (u0 + u1) / 2 * p->unpack_peak_bpc);
		expect_val(&m, TP_M_PACK_BPC, w->pbusy / w->cyc * p->pack_peak_bpc);
		expect_val(&m, TP_M_NOC_BPC, (r0 + r1) * p->noc_word_bytes);
	} else {
		expect_na(&m, TP_M_UNPACK_BPC);
		expect_na(&m, TP_M_PACK_BPC);
		expect_na(&m, TP_M_NOC_BPC);
	}
	expect_val(&m, TP_M_SCORE_MATH, w->fpu_or_sfpu / w->cyc);
	expect_val(&m, TP_M_SCORE_UNPACK, (w->u0_busy + w->u1_busy) / (2 * w->cyc));
	expect_val(&m, TP_M_SCORE_PACK, w->pbusy / w->cyc);
	expect_val(&m, TP_M_SCORE_RISC, stall - issue);
	return m.bound;
}

static const struct wl wl_math = {
	.cyc = 1000,
	.fpu = 800, .sfpu = 100, .fpu_or_sfpu = 850, .fpu_avail1 = 1000,
	.srca_w = 300, .srcb_w = 200, .u0_busy = 600, .u1_busy = 500,
	.srca_wa = 480, .srcb_wa = 250,
	.mi_started = 700, .mi_avail = 875,
	.pdra = 200, .pbusy = 250, .avail_math = 125,
	.stalls = { 100, 200, 300 }, .instrs = { 300, 300, 300 },
	.ring0 = { 100, 100, 50, 50 }, .ring1 = { 25, 25, 25, 25 },
};

static const struct wl wl_unpack = {
	.cyc = 2000,
	.fpu = 500, .sfpu = 60, .fpu_or_sfpu = 600, .fpu_avail1 = 1250,
	.srca_w = 1800, .srcb_w = 1400, .u0_busy = 2000, .u1_busy = 2000,
	.srca_wa = 1900, .srcb_wa = 1500,
	.mi_started = 400, .mi_avail = 1600,
	.pdra = 300, .pbusy = 400, .avail_math = 100,
	.stalls = { 600, 300, 300 }, .instrs = { 400, 400, 400 },
	.ring0 = { 1000, 1000, 200, 200 }, .ring1 = { 0, 0, 0, 0 },
};

static const struct wl wl_pack = {
	.cyc = 4000,
	.fpu = 600, .sfpu = 200, .fpu_or_sfpu = 800, .fpu_avail1 = 3200,
	.srca_w = 1000, .srcb_w = 1000, .u0_busy = 2000, .u1_busy = 4000,
	.srca_wa = 1000, .srcb_wa = 1000,
	.mi_started = 800, .mi_avail = 1000,
	.pdra = 3610, .pbusy = 3800, .avail_math = 1900,
	.stalls = { 400, 400, 400 }, .instrs = { 1200, 1200, 1200 },
	.ring0 = { 0, 0, 0, 0 }, .ring1 = { 400, 400, 200, 200 },
};

static const struct wl wl_risc = {
	.cyc = 1000,
	.fpu = 100, .sfpu = 0, .fpu_or_sfpu = 100, .fpu_avail1 = 400,
	.srca_w = 100, .srcb_w = 300, .u0_busy = 300, .u1_busy = 500,
	.srca_wa = 250, .srcb_wa = 500,
	.mi_started = 90, .mi_avail = 900,
	.pdra = 150, .pbusy = 300, .avail_math = 60,
	.stalls = { 900, 800, 700 }, .instrs = { 30, 60, 90 },
	.ring0 = { 10, 10, 10, 10 }, .ring1 = { 5, 5, 5, 5 },
};

/* ---- tests ---- */

TEST(event_table)
{
	int per_bank[TENSIX_NR_BANKS] = { 0 }, threads = 0;

	/* Wormhole's 130 RTL counters, Blackhole's 50 own L1 names, 21 seed aliases */
	CHECK(TP_NR_EV == 201, "%d counters", TP_NR_EV);
	for (int i = 0; i < TP_NR_EV; i++) {
		per_bank[tp_events[i].bank]++;
		threads += tp_event_thread(i) >= 0;
		CHECK(tp_event_find(tp_events[i].name) == i, "find %s", tp_events[i].name);
	}
	CHECK(per_bank[TENSIX_BANK_INSTRN_THREAD] == 59, "%d", per_bank[0]);
	CHECK(per_bank[TENSIX_BANK_FPU] == 3 + 3, "%d", per_bank[1]);
	CHECK(per_bank[TENSIX_BANK_TDMA_UNPACK] == 22 + 2, "%d", per_bank[2]);
	CHECK(per_bank[TENSIX_BANK_L1] == 32 + 50 + 16, "%d", per_bank[3]);
	CHECK(per_bank[TENSIX_BANK_TDMA_PACK] == 14, "%d", per_bank[4]);
	/* 18 per-thread triples: 8 availability/stall + 9 wait + instructions */
	CHECK(threads == 54, "%d per-thread counters", threads);
	CHECK(tp_events[TP_EV_thread_instructions_1].id == 264, "thread 1 instructions");
	CHECK(tp_events[TP_EV_waiting_for_math_idle_1].id == 51, "per-thread waits");
	CHECK(tp_events[TP_EV_srca_write].id == 262, "srca_write is SRCA_WRITE_ACTUAL");
	CHECK(tp_event_thread(TP_EV_fpu_instrn_available_1) == 1, "fpu_instrn_available_1");
	CHECK(tp_event_thread(TP_EV_thread_instructions_2) == 2, "thread_instructions_2");
	CHECK(tp_event_thread(TP_EV_waiting_for_srca_clear) == -1, "shared");
	CHECK(tp_event_thread(TP_EV_l1_arb_tdma_bundle_1) == -1, "L1 _1 is not a thread");
	/* the table lists the nine waits of thread 0, then of 1, then of 2 */
	CHECK(tp_event_sibling(TP_EV_waiting_for_sfpu_idle_0, 1) == TP_EV_waiting_for_sfpu_idle_1,
	      "sibling of waiting_for_sfpu_idle_0");
	CHECK(tp_event_sibling(TP_EV_waiting_for_sfpu_idle_0, 2) == TP_EV_waiting_for_sfpu_idle_2,
	      "sibling 2 of waiting_for_sfpu_idle_0");
	CHECK(tp_event_sibling(TP_EV_thread_instructions_2, 0) == TP_EV_thread_instructions_0,
	      "sibling 0 of thread_instructions_2");
	CHECK(tp_event_sibling(TP_EV_waiting_for_srca_clear, 1) == -1, "a shared counter");
	for (int i = 0; i < TP_NR_EV; i++) {
		for (int t = 0; t < TP_NR_THREADS && tp_event_thread(i) >= 0; t++) {
			int sib = tp_event_sibling(i, t);

			CHECK(sib >= 0 && tp_event_thread(sib) == t && tp_events[sib].bank ==
			      tp_events[i].bank, "%s: thread %d", tp_events[i].name, t);
		}
	}
	CHECK(tp_events[TP_EV_fpu_or_sfpu_instrn].id == 257, "grant id");
	CHECK(tp_events[TP_EV_tdma_packer_2_wr].mux == 1, "mux");
	CHECK(tp_events[TP_EV_l1_4_misc_port_7_grant].mux == 4, "Blackhole mux group 4");
	CHECK(tp_events[TP_EV_l1_1_risc_core].id == 0, "Blackhole port 8");
	CHECK(tp_event_find("no_such_counter") == -1, "unknown");
	CHECK(!strcmp(tp_bank_name(TENSIX_BANK_TDMA_UNPACK), "TDMA_UNPACK"), "bank name");
	CHECK(!strcmp(tp_bank_name(99), "?"), "bad bank");
	CHECK(!strcmp(tp_thread_name(1), "MATH") && !strcmp(tp_thread_name(-1), ""), "threads");
}

TEST(platform_table)
{
	const struct tp_platform *p;

	p = tp_platform_find("wormhole");
	CHECK(p && !strcmp(p->name, "Wormhole B0") && p->noc_word_bytes == 32 &&
	      p->unpack_peak_bpc == 80.0 && p->pack_peak_bpc == 80.0, "wormhole");
	CHECK(tp_platform_find("Wormhole_B0\n") == p, "wormhole_b0");
	p = tp_platform_find("blackhole");
	CHECK(p && !strcmp(p->name, "Blackhole") && p->noc_word_bytes == 256 &&
	      p->unpack_peak_bpc == 120.0 && p->pack_peak_bpc == 120.0, "blackhole");
	p = tp_platform_find("QUASAR");
	CHECK(p && !strcmp(p->name, "Quasar") && p->noc_word_bytes == 32 &&
	      p->unpack_peak_bpc == 80.0 && p->pack_peak_bpc == 80.0, "quasar");
	CHECK(!tp_platform_find("grayskull") && !tp_platform_find("") && !tp_platform_find(NULL),
	      "unknown");
}

TEST(math_bound)
{
	enum tp_bound b = wl_check(&wl_math, tp_platform_find("wormhole"));

	CHECK(b == TP_BOUND_MATH, "%s", tp_bound_name(b));
	CHECK(!strcmp(tp_bound_name(b), "math-bound"), "name");
}

TEST(unpack_bound)
{
	enum tp_bound b = wl_check(&wl_unpack, tp_platform_find("wormhole"));

	CHECK(b == TP_BOUND_UNPACK, "%s", tp_bound_name(b));
}

TEST(pack_bound)
{
	enum tp_bound b = wl_check(&wl_pack, tp_platform_find("blackhole"));

	CHECK(b == TP_BOUND_PACK, "%s", tp_bound_name(b));
}

TEST(risc_bound)
{
	enum tp_bound b = wl_check(&wl_risc, tp_platform_find("quasar"));

	CHECK(b == TP_BOUND_RISC, "%s", tp_bound_name(b));
	CHECK(!strcmp(tp_bound_name(b), "risc-bound"), "name");
}

/* Hand-computed literal values of one workload, independent of wl_check() */
TEST(math_bound_literals)
{
	struct tp_counts c;
	struct tp_metrics m;
	char buf[64];

	wl_counts(&wl_math, &c);
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_val(&m, TP_M_UNPACK0_WRITE_EFF, 0.5);
	expect_val(&m, TP_M_UNPACK1_WRITE_EFF, 0.4);
	expect_val(&m, TP_M_UNPACK_WRITE_EFF, 0.45);
	expect_val(&m, TP_M_PACKER_EFF, 0.8);
	expect_val(&m, TP_M_FPU_EFF, 0.8);
	expect_val(&m, TP_M_MATH_PIPE_UTIL, 0.8);
	expect_val(&m, TP_M_MATH_TO_PACK, 0.5);
	expect_val(&m, TP_M_UNPACK0_TO_MATH, 0.8);
	expect_val(&m, TP_M_UNPACK1_TO_MATH, 0.5);
	expect_val(&m, TP_M_UNPACK_TO_MATH, 0.65);
	expect_val(&m, TP_M_FPU_UTIL, 0.8);
	expect_val(&m, TP_M_SFPU_UTIL, 0.1);
	expect_val(&m, TP_M_MATH_UTIL, 0.85);
	expect_val(&m, TP_M_PACK_UTIL, 0.25);
	expect_val(&m, TP_M_STALL_RATE, 0.2);
	expect_val(&m, TP_M_ISSUE_RATE, 0.3);
	expect_val(&m, TP_M_UNPACK_BPC, 36.0);
	expect_val(&m, TP_M_PACK_BPC, 20.0);
	expect_val(&m, TP_M_NOC_RING0_TXN, 0.3);
	expect_val(&m, TP_M_NOC_RING1_TXN, 0.1);
	expect_val(&m, TP_M_NOC_TXN, 0.4);
	expect_val(&m, TP_M_NOC_BPC, 12.8);
	expect_val(&m, TP_M_SCORE_RISC, -0.1);
	CHECK(m.bound == TP_BOUND_MATH, "%s", tp_bound_name(m.bound));
	CHECK(!strcmp(tp_fmt_metric(buf, sizeof(buf), &m.m[TP_M_UNPACK_WRITE_EFF]), "0.450000"),
	      "'%s'", buf);
	CHECK(!strcmp(tp_fmt_metric(buf, sizeof(buf), &m.m[TP_M_SCORE_RISC]), "-0.100000"),
	      "'%s'", buf);
	/* inputs are recorded with the seed's names */
	/* a cross-bank ratio: each counter with its own bank's cycles */
	CHECK(m.m[TP_M_FPU_EFF].nr_inputs == 4 &&
	      !strcmp(m.m[TP_M_FPU_EFF].in[0].name, "FPU_INSTRUCTION") &&
	      !strcmp(m.m[TP_M_FPU_EFF].in[1].name, "FPU_CYCLES") &&
	      !strcmp(m.m[TP_M_FPU_EFF].in[2].name, "FPU_INSTRN_AVAILABLE_1") &&
	      !strcmp(m.m[TP_M_FPU_EFF].in[3].name, "INSTRN_THREAD_CYCLES") &&
	      m.m[TP_M_FPU_EFF].in[2].val.v == 1000, "fpu_efficiency inputs");
	CHECK(!strcmp(m.m[TP_M_STALL_RATE].in[0].name, "THREAD_STALLS_SUM") &&
	      m.m[TP_M_STALL_RATE].in[0].val.v == 600, "stall inputs");
	CHECK(!strcmp(m.m[TP_M_UNPACK_WRITE_EFF].in[1].name, "unpack1_write_efficiency"),
	      "combined inputs");
	CHECK(!strcmp(m.m[TP_M_NOC_BPC].in[1].name, "NOC_WORD_BYTES") &&
	      m.m[TP_M_NOC_BPC].in[1].val.v == 32, "noc inputs");
}

TEST(all_zero_is_na)
{
	struct tp_counts c;
	struct tp_metrics m;

	zero_counts(&c, 0);
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_sane(&m);
	for (int i = 0; i < TP_NR_METRICS; i++)
		expect_na(&m, (enum tp_metric_id)i);
	CHECK(m.bound == TP_BOUND_NONE, "%s", tp_bound_name(m.bound));
	CHECK(!strcmp(tp_bound_name(m.bound), "n/a"), "n/a name");
}

TEST(nothing_counted_is_na)
{
	struct tp_counts c;
	struct tp_metrics m;

	memset(&c, 0, sizeof(c));	/* every value invalid */
	tp_metrics_compute(&c, NULL, &m);
	expect_sane(&m);
	for (int i = 0; i < TP_NR_METRICS; i++)
		expect_na(&m, (enum tp_metric_id)i);
	CHECK(m.bound == TP_BOUND_NONE, "bound");
}

/* Zero counts with cycles: utilisations are 0, not n/a; ratios over 0 are n/a */
TEST(zero_counts_with_cycles)
{
	struct tp_counts c;
	struct tp_metrics m;

	zero_counts(&c, 500);
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_sane(&m);
	expect_val(&m, TP_M_FPU_UTIL, 0);
	expect_val(&m, TP_M_MATH_UTIL, 0);
	expect_val(&m, TP_M_PACK_UTIL, 0);
	expect_val(&m, TP_M_STALL_RATE, 0);
	expect_val(&m, TP_M_NOC_TXN, 0);
	expect_val(&m, TP_M_NOC_BPC, 0);
	expect_val(&m, TP_M_SCORE_RISC, 0);
	expect_na(&m, TP_M_UNPACK0_WRITE_EFF);
	expect_na(&m, TP_M_UNPACK_WRITE_EFF);
	expect_na(&m, TP_M_UNPACK_UTIL);
	expect_na(&m, TP_M_UNPACK_BPC);
	expect_na(&m, TP_M_PACKER_EFF);
	expect_na(&m, TP_M_FPU_EFF);
	expect_val(&m, TP_M_SCORE_UNPACK, 0);
	/* math 0, unpack 0, pack 0, risc 0: a tie goes to the first, math */
	CHECK(m.bound == TP_BOUND_MATH, "%s", tp_bound_name(m.bound));
}

TEST(combined_uses_defined_unpacker)
{
	struct tp_counts c;
	struct tp_metrics m;

	wl_counts(&wl_math, &c);
	set(&c, TP_EV_unpack1_busy_thread0, 0);	/* unpacker 1: n/a */
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_na(&m, TP_M_UNPACK1_WRITE_EFF);
	expect_na(&m, TP_M_UNPACK1_TO_MATH);
	expect_val(&m, TP_M_UNPACK_WRITE_EFF, 0.5);
	expect_val(&m, TP_M_UNPACK_TO_MATH, 0.8);
	expect_val(&m, TP_M_UNPACK_UTIL, 0.5);
	expect_val(&m, TP_M_UNPACK_BPC, 40.0);
	c.ev[TP_EV_srca_write].valid = false;	/* unpacker 0 not counted */
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_na(&m, TP_M_UNPACK0_WRITE_EFF);
	expect_na(&m, TP_M_UNPACK_WRITE_EFF);
	expect_val(&m, TP_M_UNPACK_TO_MATH, 0.8);
	/* the unpack score is the busy share: 600 of 2 * 1000 cycles */
	expect_val(&m, TP_M_SCORE_UNPACK, 0.3);
	CHECK(m.bound == TP_BOUND_MATH, "%s", tp_bound_name(m.bound));
}

TEST(missing_input_is_na)
{
	struct tp_counts c;
	struct tp_metrics m;

	wl_counts(&wl_math, &c);
	c.ev[TP_EV_thread_stalls_1].valid = false;
	c.cycles[TENSIX_BANK_FPU].valid = false;
	c.ev[TP_EV_packer_busy].valid = false;
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_sane(&m);
	expect_na(&m, TP_M_STALL_RATE);
	expect_na(&m, TP_M_SCORE_RISC);
	expect_val(&m, TP_M_ISSUE_RATE, 0.3);
	expect_na(&m, TP_M_FPU_UTIL);
	expect_na(&m, TP_M_MATH_UTIL);
	expect_na(&m, TP_M_SCORE_MATH);
	expect_na(&m, TP_M_PACKER_EFF);
	expect_na(&m, TP_M_MATH_TO_PACK);
	expect_na(&m, TP_M_PACK_UTIL);
	expect_na(&m, TP_M_PACK_BPC);
	/* FPU vs INSTRN_THREAD counts need the FPU bank's window too */
	expect_na(&m, TP_M_FPU_EFF);
	/* only the unpack score is left */
	CHECK(m.bound == TP_BOUND_UNPACK, "%s", tp_bound_name(m.bound));
}

/* One L1 mux half not counted (--l1mux, or never scheduled): the total is n/a */
TEST(noc_needs_both_rings)
{
	struct tp_counts c;
	struct tp_metrics m;

	wl_counts(&wl_math, &c);
	c.l1_cycles[1].valid = false;
	tp_metrics_compute(&c, tp_platform_find("blackhole"), &m);
	expect_val(&m, TP_M_NOC_RING0_TXN, 0.3);
	expect_na(&m, TP_M_NOC_RING1_TXN);
	expect_na(&m, TP_M_NOC_TXN);
	expect_na(&m, TP_M_NOC_BPC);

	wl_counts(&wl_math, &c);
	c.l1_cycles[0].v = 0;	/* mux 0 ran, but for no cycle */
	tp_metrics_compute(&c, tp_platform_find("blackhole"), &m);
	expect_na(&m, TP_M_NOC_RING0_TXN);
	expect_val(&m, TP_M_NOC_RING1_TXN, 0.1);
	expect_na(&m, TP_M_NOC_TXN);

	/* different windows per mux half: each ring uses its own cycles */
	wl_counts(&wl_math, &c);
	c.l1_cycles[0].v = 500;
	c.l1_cycles[1].v = 250;
	tp_metrics_compute(&c, tp_platform_find("blackhole"), &m);
	expect_val(&m, TP_M_NOC_RING0_TXN, 0.6);
	expect_val(&m, TP_M_NOC_RING1_TXN, 0.4);
	expect_val(&m, TP_M_NOC_TXN, 1.0);
	expect_val(&m, TP_M_NOC_BPC, 256.0);
}

TEST(scaled_marks_metric)
{
	struct tp_counts c;
	struct tp_metrics m;

	wl_counts(&wl_math, &c);
	c.ev[TP_EV_noc_ring1_outgoing_0].scaled = true;
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	CHECK(m.m[TP_M_NOC_RING1_TXN].scaled, "ring1 scaled");
	CHECK(m.m[TP_M_NOC_TXN].scaled && m.m[TP_M_NOC_BPC].scaled, "propagated");
	CHECK(!m.m[TP_M_NOC_RING0_TXN].scaled && !m.m[TP_M_FPU_EFF].scaled, "others exact");
}

TEST(no_platform)
{
	enum tp_bound b = wl_check(&wl_unpack, NULL);

	CHECK(b == TP_BOUND_UNPACK, "%s", tp_bound_name(b));
}

TEST(overflow_is_na)
{
	struct tp_counts c;
	struct tp_metrics m;

	wl_counts(&wl_math, &c);
	set(&c, TP_EV_srca_write, 1e308);
	set(&c, TP_EV_unpack0_busy_thread0, 1e-308);
	set(&c, TP_EV_fpu_instruction, INFINITY);
	set(&c, TP_EV_sfpu_instruction, NAN);
	tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
	expect_sane(&m);
	expect_na(&m, TP_M_UNPACK0_WRITE_EFF);
	expect_na(&m, TP_M_FPU_UTIL);
	expect_na(&m, TP_M_SFPU_UTIL);
	expect_val(&m, TP_M_UNPACK_WRITE_EFF, 0.4);
}

TEST(ties_and_negative_scores)
{
	struct tp_counts c;
	struct tp_metrics m;

	/* only the risc score is defined, and it is negative: still reported */
	zero_counts(&c, 1000);
	c.cycles[TENSIX_BANK_FPU].valid = false;
	c.cycles[TENSIX_BANK_TDMA_UNPACK].valid = false;
	c.cycles[TENSIX_BANK_TDMA_PACK].valid = false;
	set(&c, TP_EV_thread_instructions_0, 300);
	tp_metrics_compute(&c, NULL, &m);
	expect_val(&m, TP_M_SCORE_RISC, -0.1);
	CHECK(m.bound == TP_BOUND_RISC, "%s", tp_bound_name(m.bound));

	/* pack == unpack: the first in math, unpack, pack, risc order wins */
	zero_counts(&c, 1000);
	set(&c, TP_EV_packer_busy, 500);
	set(&c, TP_EV_srca_write, 50);
	set(&c, TP_EV_unpack0_busy_thread0, 500);
	set(&c, TP_EV_srcb_write, 50);
	set(&c, TP_EV_unpack1_busy_thread0, 500);
	tp_metrics_compute(&c, NULL, &m);
	CHECK(m.bound == TP_BOUND_UNPACK, "%s", tp_bound_name(m.bound));
	CHECK(tp_bound_score(TP_BOUND_PACK) == TP_M_SCORE_PACK, "score id");
	CHECK(tp_bound_score(TP_BOUND_NONE) == TP_NR_METRICS, "none");
}

/*
 * Busy shares of a model workload as the simulator's matmul plays it
 * (drivers/sim/sim_tensix.c: FPU_OR_SFPU_INSTRN = fpu, UNPACKn_BUSY_THREAD0
 * = unpack, PACKER_BUSY = pack per cycle; SRCA/SRCB_WRITE = 0.8 of the busy
 * cycles), whole counts, each bank with its own cycle count a few cycles
 * off the others', as banks started one after the other have.
 */
static void busy_counts(struct tp_counts *c, double fpu, double unpack, double pack)
{
	const double cyc = 4e9;

	zero_counts(c, cyc);
	c->cycles[TENSIX_BANK_FPU].v = cyc + 7;
	c->cycles[TENSIX_BANK_TDMA_UNPACK].v = cyc - 5;
	c->cycles[TENSIX_BANK_TDMA_PACK].v = cyc + 3;
	set(c, TP_EV_fpu_or_sfpu_instrn, floor(fpu * (cyc + 7)));
	set(c, TP_EV_unpack0_busy_thread0, floor(unpack * (cyc - 5)));
	set(c, TP_EV_unpack1_busy_thread0, floor(unpack * (cyc - 5)));
	set(c, TP_EV_srca_write, floor(0.8 * unpack * (cyc - 5)));
	set(c, TP_EV_srcb_write, floor(0.8 * unpack * (cyc - 5)));
	set(c, TP_EV_packer_busy, floor(pack * (cyc + 3)));
}

/*
 * The busiest unit is the bound: the scores are shares of their banks'
 * cycles. (The seed's unpack score, SRCA_WRITE / UNPACK0_BUSY_THREAD0, is
 * 0.8 here however busy the unpackers are: it called the demo's FPU 60 %,
 * unpack 40 % unpack-bound, and a tie at 0.8 went to unpack by rounding.)
 */
TEST(bound_is_busiest_unit)
{
	static const struct {
		double fpu, unpack, pack;
		enum tp_bound want;
	} cases[] = {
		{ 0.6, 0.4, 0.3, TP_BOUND_MATH },	/* the demo */
		{ 0.8, 0.6, 0.4, TP_BOUND_MATH },	/* the known workload */
		{ 0.5, 0.7, 0.3, TP_BOUND_UNPACK },
		{ 0.3, 0.2, 0.9, TP_BOUND_PACK },
		{ 0.79, 0.8, 0.1, TP_BOUND_UNPACK },
		/* ties, each score off its exact value by rounding */
		{ 0.8, 0.8, 0.1, TP_BOUND_MATH },
		{ 0.6, 0.6, 0.6, TP_BOUND_MATH },
		{ 0.2, 0.7, 0.7, TP_BOUND_UNPACK },
		{ 0.1 / 3, 0.1 / 3, 0.1 / 3, TP_BOUND_MATH },
	};
	struct tp_counts c;
	struct tp_metrics m;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		busy_counts(&c, cases[i].fpu, cases[i].unpack, cases[i].pack);
		tp_metrics_compute(&c, tp_platform_find("wormhole"), &m);
		CHECK(m.m[TP_M_SCORE_UNPACK].valid &&
		      dabs(m.m[TP_M_SCORE_UNPACK].value - cases[i].unpack) < 1e-8,
		      "case %zu: unpack score %.9f", i, m.m[TP_M_SCORE_UNPACK].value);
		CHECK(m.bound == cases[i].want, "case %zu (fpu %.2f unpack %.2f pack %.2f): %s, want %s",
		      i, cases[i].fpu, cases[i].unpack, cases[i].pack, tp_bound_name(m.bound),
		      tp_bound_name(cases[i].want));
	}
	/* beyond the tie margin the later score wins */
	busy_counts(&c, 0.8, 0.80001, 0.1);
	tp_metrics_compute(&c, NULL, &m);
	CHECK(m.bound == TP_BOUND_UNPACK, "0.80001 over 0.8: %s", tp_bound_name(m.bound));
	/* the risc score ties with math too */
	zero_counts(&c, 1000);
	set(&c, TP_EV_fpu_or_sfpu_instrn, 300);
	set(&c, TP_EV_thread_stalls_0, 900);
	set(&c, TP_EV_thread_stalls_1, 900);
	set(&c, TP_EV_thread_stalls_2, 900);
	set(&c, TP_EV_thread_instructions_0, 600);
	set(&c, TP_EV_thread_instructions_1, 600);
	set(&c, TP_EV_thread_instructions_2, 600);
	tp_metrics_compute(&c, NULL, &m);
	CHECK(near(m.m[TP_M_SCORE_RISC].value, 0.3), "risc %.9f", m.m[TP_M_SCORE_RISC].value);
	CHECK(m.bound == TP_BOUND_MATH, "math 0.3, risc 0.9 - 0.6: %s", tp_bound_name(m.bound));
}

TEST(value_formatting)
{
	struct tp_val v = { 1234, true, false };
	struct tp_metric m = { 0 };
	char buf[64];

	CHECK(!strcmp(tp_fmt_val(buf, sizeof(buf), v), "1234"), "'%s'", buf);
	v.v = 0.25;
	CHECK(!strcmp(tp_fmt_val(buf, sizeof(buf), v), "0.250000"), "'%s'", buf);
	v.v = 18446744073709551615.0;
	CHECK(strcmp(tp_fmt_val(buf, sizeof(buf), v), "n/a"), "'%s'", buf);
	v.v = -0.0;
	CHECK(!strcmp(tp_fmt_val(buf, sizeof(buf), v), "0"), "'%s'", buf);
	v.v = INFINITY;
	CHECK(!strcmp(tp_fmt_val(buf, sizeof(buf), v), "n/a"), "'%s'", buf);
	v.valid = false;
	v.v = 7;
	CHECK(!strcmp(tp_fmt_val(buf, sizeof(buf), v), "n/a"), "'%s'", buf);
	CHECK(!strcmp(tp_fmt_metric(buf, sizeof(buf), &m), "n/a"), "'%s'", buf);
	m.valid = true;
	m.value = NAN;
	CHECK(!strcmp(tp_fmt_metric(buf, sizeof(buf), &m), "n/a"), "'%s'", buf);
	m.value = 2.0 / 3.0;
	CHECK(!strcmp(tp_fmt_metric(buf, sizeof(buf), &m), "0.666667"), "'%s'", buf);
	m.value = -0.0;
	CHECK(!strcmp(tp_fmt_metric(buf, sizeof(buf), &m), "0.000000"), "'%s'", buf);
}

TEST(metric_names_unique)
{
	for (int i = 0; i < TP_NR_METRICS; i++) {
		CHECK(tp_metric_desc(i)->name && tp_metric_desc(i)->section &&
		      tp_metric_desc(i)->label && tp_metric_desc(i)->formula, "desc %d", i);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(tp_metric_desc(i)->name, tp_metric_desc(j)->name), "dup %s",
			      tp_metric_desc(i)->name);
		CHECK(strcmp(tp_metric_desc(i)->name, "bound_classification"), "reserved");
	}
}

/* The tt-metal metrics: literal counts, every kind of definition */
TEST(tt_metal_metrics)
{
	struct tp_counts c;
	struct tp_metrics m;

	zero_counts(&c, 1000);
	c.cycles[TENSIX_BANK_TDMA_PACK].v = 2000;	/* another window */
	set(&c, TP_EV_thread_stalls_1, 250);
	set(&c, TP_EV_math_instrn_available, 800);
	set(&c, TP_EV_data_hazard_stalls_movd2a, 600);
	set(&c, TP_EV_available_math, 1000);		/* 0.5 per cycle of its bank */
	set(&c, TP_EV_math_not_stalled_dest_wr_port, 0);
	set(&c, TP_EV_packer_busy_0, 400);
	set(&c, TP_EV_packer_busy_1, 1000);
	set(&c, TP_EV_packer_busy_2, 800);
	set(&c, TP_EV_l1_0_unpacker_0, 500);
	set(&c, TP_EV_l1_0_unpacker_0_grant, 400);
	set(&c, TP_EV_l1_0_noc_ring0_outgoing_0, 100);
	set(&c, TP_EV_l1_0_noc_ring0_outgoing_0_grant, 50);
	set(&c, TP_EV_l1_0_noc_ring0_incoming_1, 200);
	set(&c, TP_EV_l1_0_noc_ring0_incoming_1_grant, 300);	/* above req: skipped */
	c.ev[TP_EV_l1_0_unpacker_1_ecc_pack1].valid = false;	/* Blackhole: port 1 */
	set(&c, TP_EV_l1_0_unified_packer, 250);
	set(&c, TP_EV_fpu_counter, 700);
	tp_metrics_compute(&c, NULL, &m);
	expect_sane(&m);

	expect_val(&m, TP_M_thread1_stall_rate, 0.25);
	/* (800 - 600) / 800 */
	expect_val(&m, TP_M_data_hazard_stall_rate, 0.25);
	/* across banks, as rates: (0.8 - 0.5) / 0.8 */
	expect_val(&m, TP_M_math_scoreboard_stall, 0.375);
	/* the subtracted signal reads 0: not a 100 % stall but n/a */
	expect_na(&m, TP_M_math_dest_wr_port_stall);
	expect_val(&m, TP_M_packer_load_imbalance, 0.6);
	/* Blackhole's name stands in for Wormhole's port 1 */
	expect_val(&m, TP_M_l1_packer_port_util, 0.25);
	/* unpacker 0.2 and ring 0 outgoing 0 0.5; incoming 1 has grant > req */
	expect_val(&m, TP_M_l1_contention_index, 0.35);
	expect_val(&m, TP_M_noc_ring0_asymmetry, 100.0 / 300.0);
	expect_val(&m, TP_M_noc_vs_compute, 300.0 / 1000.0);
	/* grant above request: n/a, not a negative backpressure */
	expect_na(&m, TP_M_noc_ring0_incoming_backpressure);
	expect_val(&m, TP_M_noc_ring0_outgoing_backpressure, 50.0 / 100.0);
	/* nothing stalled: the overlap is n/a, not 0 */
	expect_na(&m, TP_M_stall_overlap_t0);

	/* a missing input is n/a, never 0 % or 100 % */
	c.ev[TP_EV_math_instrn_available].valid = false;
	tp_metrics_compute(&c, NULL, &m);
	expect_na(&m, TP_M_data_hazard_stall_rate);
	expect_na(&m, TP_M_math_scoreboard_stall);
	c.cycles[TENSIX_BANK_INSTRN_THREAD].valid = false;
	tp_metrics_compute(&c, NULL, &m);
	expect_na(&m, TP_M_thread1_stall_rate);
}

/* Every fraction metric stays in [0, 1] for counts that respect the signals' nesting */
TEST(tt_metal_fraction_flags)
{
	int nfrac = 0;

	for (int i = 0; i < TP_NR_METRICS; i++)
		nfrac += tp_metric_desc(i)->fraction;
	CHECK(nfrac >= 60, "%d fraction metrics", nfrac);
	CHECK(tp_metric_desc(TP_M_FPU_UTIL)->fraction, "fpu_utilization");
	CHECK(!tp_metric_desc(TP_M_stall_overlap_t0)->fraction, "overlap is a ratio");
	CHECK(!tp_metric_desc(TP_M_MATH_TO_PACK)->fraction, "may exceed 1");
}

/* ---- sysfs encoding ---- */

TEST(format_parse)
{
	uint64_t mask;
	int word;

	CHECK(!tp_format_parse("config:0-8", &word, &mask) && word == 0 && mask == 0x1ff, "0-8");
	CHECK(!tp_format_parse("config:31\n", &word, &mask) && word == 0 && mask == 1ULL << 31, "31");
	CHECK(!tp_format_parse("config1:16", &word, &mask) && word == 1 && mask == 0x10000, "c1");
	CHECK(!tp_format_parse("config2:0-3,8-9,63", &word, &mask) && word == 2 &&
	      mask == (0x30fULL | 1ULL << 63), "list");
	CHECK(tp_format_parse("config3:0", &word, &mask), "config3");
	CHECK(tp_format_parse("config:9-8", &word, &mask), "reversed");
	CHECK(tp_format_parse("config:64", &word, &mask), "bit 64");
	CHECK(tp_format_parse("config:", &word, &mask), "empty");
	CHECK(tp_format_parse("config:1x", &word, &mask), "junk");
}

static void fake_pmu(struct tp_pmu *p)
{
	static struct tp_format f[] = {
		{ "event", 0, 0x1ff },
		{ "grant", 0, 0x100 },
		{ "bank", 0, 0x7ULL << 16 },
		{ "l1mux", 0, 0x7ULL << 24 },
		{ "cycles", 0, 1ULL << 31 },
		{ "core", 1, 0xffff },
		{ "bycore", 1, 0x10000 },
		{ "split", 2, 0xf0f },	/* scattered bits, like perf allows */
	};

	memset(p, 0, sizeof(*p));
	strcpy(p->name, "tensix_7");
	p->formats = f;
	p->nr_formats = sizeof(f) / sizeof(f[0]);
}

TEST(encode_aliases)
{
	struct tp_pmu p;
	uint64_t cfg[3];
	char err[256];

	fake_pmu(&p);
	/* every counter of the table, as the driver spells its aliases */
	for (int i = 0; i < TP_NR_EV; i++) {
		char terms[128];

		if (tp_events[i].bank == TENSIX_BANK_L1)
			snprintf(terms, sizeof(terms), "bank=%u,event=0x%x,l1mux=%u\n",
				 tp_events[i].bank, tp_events[i].id, tp_events[i].mux);
		else
			snprintf(terms, sizeof(terms), "bank=%u,event=0x%x", tp_events[i].bank,
				 tp_events[i].id);
		memset(cfg, 0, sizeof(cfg));
		CHECK(!tp_encode(&p, terms, cfg, err, sizeof(err)), "%s: %s", terms, err);
		CHECK(cfg[0] == ((uint64_t)tp_events[i].id << TENSIX_CFG_EVENT_SHIFT |
				 (uint64_t)tp_events[i].bank << TENSIX_CFG_BANK_SHIFT |
				 (uint64_t)tp_events[i].mux << TENSIX_CFG_MUX_SHIFT) &&
		      !cfg[1] && !cfg[2], "%s -> 0x%llx", tp_events[i].name,
		      (unsigned long long)cfg[0]);
	}
	memset(cfg, 0, sizeof(cfg));
	CHECK(!tp_encode(&p, "bank=1,cycles=1", cfg, err, sizeof(err)) &&
	      cfg[0] == (1ULL << 16 | TENSIX_CFG_CYCLES), "cycles 0x%llx", (unsigned long long)cfg[0]);
	/* a later term overrides its field: the L1 cycles event latched to mux 1 */
	memset(cfg, 0, sizeof(cfg));
	CHECK(!tp_encode(&p, "bank=3,cycles=1,l1mux=0,l1mux=1", cfg, err, sizeof(err)) &&
	      cfg[0] == (3ULL << 16 | 1ULL << 24 | TENSIX_CFG_CYCLES), "override");
	/* core selection: core=N, bycore=1 for core 0 */
	CHECK(!tp_encode(&p, "core=0,bycore=1", cfg, err, sizeof(err)) && cfg[1] == 0x10000,
	      "core 0: 0x%llx", (unsigned long long)cfg[1]);
	memset(cfg, 0, sizeof(cfg));
	CHECK(!tp_encode(&p, "core=5", cfg, err, sizeof(err)) && cfg[1] == 5, "core 5");
	/* bare term = 1, scattered format bits, raw words */
	memset(cfg, 0, sizeof(cfg));
	CHECK(!tp_encode(&p, "grant,split=0xab", cfg, err, sizeof(err)) && cfg[0] == 0x100 &&
	      cfg[2] == 0xa0b, "bare/split: 0x%llx 0x%llx", (unsigned long long)cfg[0],
	      (unsigned long long)cfg[2]);
	memset(cfg, 0, sizeof(cfg));
	CHECK(!tp_encode(&p, "config=0x1234,config1=7", cfg, err, sizeof(err)) &&
	      cfg[0] == 0x1234 && cfg[1] == 7, "raw");
	/* errors */
	memset(cfg, 0, sizeof(cfg));
	CHECK(tp_encode(&p, "bank=8", cfg, err, sizeof(err)) == -EINVAL && strstr(err, "too big"),
	      "too big: %s", err);
	CHECK(tp_encode(&p, "umask=1", cfg, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "unknown term 'umask'"), "unknown: %s", err);
	CHECK(tp_encode(&p, "bank=", cfg, err, sizeof(err)) == -EINVAL, "no value");
	CHECK(tp_encode(&p, "bank=1 junk", cfg, err, sizeof(err)) == -EINVAL, "junk");
	CHECK(tp_pmu_has_format(&p, "l1mux") && !tp_pmu_has_format(&p, "umask"), "has_format");
}

TEST(term_get)
{
	uint64_t v = 0;

	CHECK(!tp_term_get("bank=3,event=0x2,l1mux=1", "l1mux", &v) && v == 1, "l1mux");
	CHECK(!tp_term_get("bank=3,event=0x2,l1mux=1", "event", &v) && v == 2, "event");
	CHECK(!tp_term_get("bank=1,cycles", "cycles", &v) && v == 1, "bare");
	CHECK(!tp_term_get("l1mux=0,l1mux=1", "l1mux", &v) && v == 1, "last wins");
	CHECK(tp_term_get("bank=1", "l1mux", &v) == -ENOENT, "absent");
	CHECK(tp_cpulist_first("3") == 3 && tp_cpulist_first("0-3\n") == 0 &&
	      tp_cpulist_first("2,4-5") == 2 && tp_cpulist_first("") == -1 &&
	      tp_cpulist_first("x") == -1, "cpulist");
}

static void put(const char *dir, const char *file, const char *text)
{
	char path[1024];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return;
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_pmu_dir(const char *root, const char *name, const char *type)
{
	char d[512], sub[600];

	if (snprintf(d, sizeof(d), "%s/%s", root, name) >= (int)sizeof(d))
		return;
	mkdir(d, 0755);
	if (snprintf(sub, sizeof(sub), "%s/format", d) < (int)sizeof(sub))
		mkdir(sub, 0755);
	if (snprintf(sub, sizeof(sub), "%s/events", d) < (int)sizeof(sub))
		mkdir(sub, 0755);
	put(d, "type", type);
	put(d, "cpumask", "1\n");
	put(d, "identifier", "blackhole\n");
	put(d, "num_cores", "3\n");
	put(d, "format/event", "config:0-8\n");
	put(d, "format/bank", "config:16-18\n");
	put(d, "format/l1mux", "config:24-26\n");
	put(d, "format/cycles", "config:31\n");
	put(d, "format/core", "config1:0-15\n");
	put(d, "format/bycore", "config1:16\n");
	put(d, "events/fpu_instruction", "bank=1,event=0x0\n");
	put(d, "events/tdma_packer_2_wr", "bank=3,event=0x7,l1mux=1\n");
	put(d, "events/l1_cycles", "bank=3,cycles=1,l1mux=0\n");
	put(d, "events/l1_cycles.scale", "1\n");	/* not an event */
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path))
		printf("# cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

static void rm_tree(const char *root)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TEST(sysfs_discovery)
{
	const char *tmp = getenv("TMPDIR");
	char root[512], name[64], err[512];
	struct tp_pmu p;
	uint64_t cfg[3] = { 0 };

	snprintf(root, sizeof(root), "%s/tensix_perf_unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		skip_test("no writable temporary directory (set TMPDIR)");
		return;
	}
	CHECK(tp_pmu_pick(root, NULL, name, sizeof(name)) == -ENOENT, "empty dir");
	make_pmu_dir(root, "tensix_10", "41");
	make_pmu_dir(root, "tensix_2", "42");
	make_pmu_dir(root, "tensixfoo", "43");
	make_pmu_dir(root, "cpu", "4");
	CHECK(!tp_pmu_pick(root, NULL, name, sizeof(name)) && !strcmp(name, "tensix_2"),
	      "lowest index: %s", name);
	CHECK(!tp_pmu_pick(root, "10", name, sizeof(name)) && !strcmp(name, "tensix_10"), "by number");
	CHECK(!tp_pmu_pick(root, "tensix_10", name, sizeof(name)), "by name");
	CHECK(tp_pmu_pick(root, "tensix_3", name, sizeof(name)) == -ENOENT, "missing");
	CHECK(tp_pmu_pick(root, "../x", name, sizeof(name)) == -ENOENT, "path");
	CHECK(tp_pmu_pick("/nonexistent/dir", NULL, name, sizeof(name)) == -ENOENT, "no dir");
	/* --pmu all: every tensix_<n>, by n */
	make_pmu_dir(root, "tensix_0", "44");
	{
		long idx[4] = { -1, -1, -1, -1 };

		CHECK(tp_pmu_list(root, idx, 4) == 3 && idx[0] == 0 && idx[1] == 2 &&
		      idx[2] == 10, "list %ld %ld %ld", idx[0], idx[1], idx[2]);
		CHECK(tp_pmu_list(root, idx, 2) == 2, "at most max");
		CHECK(tp_pmu_list("/nonexistent/dir", idx, 4) == -ENOENT, "list: no dir");
	}
	{
		/* PCIe cards' PMUs are named after the card: the first by name */
		char croot[600];

		snprintf(croot, sizeof(croot), "%s/cards", root);
		CHECK(!mkdir(croot, 0700), "mkdir %s", croot);
		make_pmu_dir(croot, "tensix_0000_03_00_0", "50");
		make_pmu_dir(croot, "tensix_0000_01_00_0", "51");
		make_pmu_dir(croot, "tensixfoo", "52");
		CHECK(!tp_pmu_pick(croot, NULL, name, sizeof(name)) &&
		      !strcmp(name, "tensix_0000_01_00_0"), "card PMU: %s", name);
		make_pmu_dir(croot, "tensix_7", "53");
		CHECK(!tp_pmu_pick(croot, NULL, name, sizeof(name)) && !strcmp(name, "tensix_7"),
		      "numbered first: %s", name);
	}

	CHECK(!tp_pmu_load(&p, root, "tensix_2", err, sizeof(err)), "load: %s", err);
	CHECK(p.type == 42 && p.cpu == 1 && p.nr_cores == 3 && !strcmp(p.identifier, "blackhole"),
	      "attrs %u %d %d %s", p.type, p.cpu, p.nr_cores, p.identifier);
	CHECK(p.nr_formats == 6, "%zu formats", p.nr_formats);
	CHECK(p.nr_aliases == 3, "%zu aliases (.scale skipped)", p.nr_aliases);
	CHECK(p.nr_aliases == 3 && !strcmp(p.aliases[0].name, "fpu_instruction") &&
	      !strcmp(p.aliases[2].terms, "bank=3,event=0x7,l1mux=1"), "sorted, trimmed");
	CHECK(!tp_encode(&p, "bank=3,event=0x7,l1mux=1,core=0,bycore=1", cfg, err, sizeof(err)) &&
	      cfg[0] == 0x01030007 && cfg[1] == 0x10000, "encode 0x%llx 0x%llx",
	      (unsigned long long)cfg[0], (unsigned long long)cfg[1]);
	tp_pmu_free(&p);

	put(root, "tensix_10/format/bad", "config9:1\n");
	CHECK(tp_pmu_load(&p, root, "tensix_10", err, sizeof(err)) == -EINVAL &&
	      strstr(err, "bad format"), "bad format: %s", err);
	tp_pmu_free(&p);
	CHECK(tp_pmu_load(&p, root, "tensix_99", err, sizeof(err)) < 0 && strstr(err, "type"),
	      "missing pmu: %s", err);
	tp_pmu_free(&p);
	rm_tree(root);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
#define T(x) { #x, x }
		T(event_table), T(platform_table), T(math_bound), T(unpack_bound),
		T(pack_bound), T(risc_bound), T(math_bound_literals), T(all_zero_is_na),
		T(nothing_counted_is_na), T(zero_counts_with_cycles),
		T(combined_uses_defined_unpacker), T(missing_input_is_na),
		T(noc_needs_both_rings), T(scaled_marks_metric), T(no_platform),
		T(overflow_is_na), T(ties_and_negative_scores), T(bound_is_busiest_unit),
		T(value_formatting),
		T(metric_names_unique), T(tt_metal_metrics), T(tt_metal_fraction_flags),
		T(format_parse), T(encode_aliases), T(term_get),
		T(sysfs_discovery),
#undef T
	};
	unsigned int n = sizeof(tests) / sizeof(tests[0]);

	printf("TAP version 13\n1..%u\n", n);
	for (unsigned int i = 0; i < n; i++)
		run_test(tests[i].name, tests[i].fn);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n", t_pass, t_fail,
	       t_skip);
	return t_fail ? 1 : t_pass ? 0 : 4;
}
