// SPDX-License-Identifier: GPL-2.0-only
/*
 * tensix-perf: derived metrics and bound classification (pure functions).
 *
 * Definitions (also in tensix-perf --help, tensix-perf.1 and
 * Documentation/admin-guide/perf/tensix-perf.rst):
 *
 * Newest seed (ratios, "n/a" when the denominator is 0 or an input is missing):
 *   unpack0_write_efficiency  = SRCA_WRITE / UNPACK0_BUSY_THREAD0
 *   unpack1_write_efficiency  = SRCB_WRITE / UNPACK1_BUSY_THREAD0
 *   unpack_write_efficiency   = mean of the two that are defined
 *   packer_efficiency         = PACKER_DEST_READ_AVAILABLE / PACKER_BUSY
 *   fpu_efficiency            = FPU_INSTRUCTION / FPU_INSTRN_AVAILABLE_1, as rates
 *                               per cycle of each bank's window (see ratio_ev())
 *   math_pipeline_utilization = MATH_INSTRN_STARTED / MATH_INSTRN_AVAILABLE
 *   math_to_pack_efficiency   = AVAILABLE_MATH / PACKER_BUSY
 *   unpack0_to_math_flow      = SRCA_WRITE_AVAILABLE / UNPACK0_BUSY_THREAD0
 *   unpack1_to_math_flow      = SRCB_WRITE_AVAILABLE / UNPACK1_BUSY_THREAD0
 *   unpack_to_math_flow       = mean of the two that are defined
 * Older seed:
 *   fpu/sfpu/math_utilization = FPU_INSTRUCTION / SFPU_INSTRUCTION /
 *                               FPU_OR_SFPU_INSTRN over the FPU bank cycles
 *   unpack0/1_utilization     = as unpack0/1_write_efficiency
 *   unpack_utilization        = mean of the two that are defined
 *   pack_utilization          = PACKER_BUSY / TDMA_PACK cycles
 *   thread_stall_rate         = sum(THREAD_STALLS_0..2) / (3 * INSTRN_THREAD cycles)
 *   instruction_issue_rate    = sum(THREAD_INSTRUCTIONS_0..2) / (3 * INSTRN_THREAD cycles)
 *   unpack_est_bytes_per_cycle = unpack_utilization * unpacker peak B/cyc
 *   pack_est_bytes_per_cycle  = pack_utilization * packer peak B/cyc
 *   noc_ringR_txn_per_cycle   = sum(NOC_RINGR_{INCOMING,OUTGOING}_{0,1}) /
 *                               L1 cycles of the mux-R window
 *   noc_txn_per_cycle         = ring0 + ring1 (n/a unless both were counted)
 *   noc_est_bytes_per_cycle   = noc_txn_per_cycle * NoC word bytes
 *   math/unpack/pack_bound_score = math/unpack/pack_utilization
 *   risc_bound_score          = thread_stall_rate - instruction_issue_rate
 *   classification            = highest defined score (ties: math, unpack,
 *                               pack, risc order); n/a if none is defined
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "metrics.h"

const struct tp_event_info tp_events[TP_NR_EV] = {
#define TP_EV_INFO1(n, b, i, m) [TP_EV_##n] = { #n, TENSIX_BANK_##b, (i), (m) },
#define TP_EV_INFO(n, b, i, m, a) TP_ON_WH(TP_EV_INFO1, a)(n, b, i, m)
	TP_TABLE(TP_EV_INFO)
#undef TP_EV_INFO
};

/* The reference-cycle inputs of each bank, as the report names them */
static const char *const bank_cycles_names[TENSIX_NR_BANKS] = {
	[TENSIX_BANK_INSTRN_THREAD] = "INSTRN_THREAD_CYCLES",
	[TENSIX_BANK_FPU] = "FPU_CYCLES",
	[TENSIX_BANK_TDMA_UNPACK] = "TDMA_UNPACK_CYCLES",
	[TENSIX_BANK_L1] = "L1_CYCLES",
	[TENSIX_BANK_TDMA_PACK] = "TDMA_PACK_CYCLES",
};

static const char *const bank_names[TENSIX_NR_BANKS] = {
	[TENSIX_BANK_INSTRN_THREAD] = "INSTRN_THREAD",
	[TENSIX_BANK_FPU] = "FPU",
	[TENSIX_BANK_TDMA_UNPACK] = "TDMA_UNPACK",
	[TENSIX_BANK_L1] = "L1",
	[TENSIX_BANK_TDMA_PACK] = "TDMA_PACK",
};

const char *tp_bank_name(unsigned int bank)
{
	return bank < TENSIX_NR_BANKS ? bank_names[bank] : "?";
}

const char *tp_thread_name(int thread)
{
	static const char *const names[TP_NR_THREADS] = { "UNPACK", "MATH", "PACK" };

	return thread >= 0 && thread < TP_NR_THREADS ? names[thread] : "";
}

int tp_event_thread(int ev)
{
	const char *name;
	size_t len;

	if (ev < 0 || ev >= TP_NR_EV || tp_events[ev].bank != TENSIX_BANK_INSTRN_THREAD)
		return -1;
	name = tp_events[ev].name;
	len = strlen(name);
	if (len < 3 || name[len - 2] != '_' || name[len - 1] < '0' ||
	    name[len - 1] >= '0' + TP_NR_THREADS)
		return -1;
	return name[len - 1] - '0';
}

int tp_event_find(const char *name)
{
	for (int i = 0; i < TP_NR_EV; i++)
		if (!strcmp(tp_events[i].name, name))
			return i;
	return -1;
}

void tp_upper(char *dst, size_t len, const char *src)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = (char)toupper((unsigned char)src[i]);
	dst[i] = '\0';
}

static const struct tp_platform platforms[] = {
	{ "wormhole", "Wormhole B0", 32, 80.0, 80.0 },
	{ "blackhole", "Blackhole", 256, 120.0, 120.0 },
	{ "quasar", "Quasar", 32, 80.0, 80.0 },
};

const struct tp_platform *tp_platform_find(const char *id)
{
	size_t len;

	if (!id)
		return NULL;
	len = strlen(id);
	while (len && isspace((unsigned char)id[len - 1]))
		len--;
	if (len == strlen("wormhole_b0") && !strncasecmp(id, "wormhole_b0", len))
		return &platforms[0];
	for (size_t i = 0; i < sizeof(platforms) / sizeof(platforms[0]); i++)
		if (len == strlen(platforms[i].id) && !strncasecmp(id, platforms[i].id, len))
			return &platforms[i];
	return NULL;
}

const struct tp_metric_desc tp_metric_descs[TP_NR_METRICS] = {
	[TP_M_UNPACK0_WRITE_EFF] = { "unpack0_write_efficiency",
		"Unpacker write efficiency", "Unpacker0 (SRCA)",
		"SRCA_WRITE / UNPACK0_BUSY_THREAD0" },
	[TP_M_UNPACK1_WRITE_EFF] = { "unpack1_write_efficiency",
		"Unpacker write efficiency", "Unpacker1 (SRCB)",
		"SRCB_WRITE / UNPACK1_BUSY_THREAD0" },
	[TP_M_UNPACK_WRITE_EFF] = { "unpack_write_efficiency",
		"Unpacker write efficiency", "Combined",
		"mean of the defined unpacker ratios" },
	[TP_M_PACKER_EFF] = { "packer_efficiency",
		"Packer efficiency", "Packer",
		"PACKER_DEST_READ_AVAILABLE / PACKER_BUSY" },
	[TP_M_FPU_EFF] = { "fpu_efficiency",
		"FPU execution efficiency", "Math FPU",
		"(FPU_INSTRUCTION / FPU_CYCLES) / (FPU_INSTRN_AVAILABLE_1 / INSTRN_THREAD_CYCLES)" },
	[TP_M_MATH_PIPE_UTIL] = { "math_pipeline_utilization",
		"Math pipeline utilisation (experimental)", "Math pipeline",
		"MATH_INSTRN_STARTED / MATH_INSTRN_AVAILABLE" },
	[TP_M_MATH_TO_PACK] = { "math_to_pack_efficiency",
		"Math-to-pack handoff efficiency (experimental)", "Math->Pack",
		"AVAILABLE_MATH / PACKER_BUSY" },
	[TP_M_UNPACK0_TO_MATH] = { "unpack0_to_math_flow",
		"Unpacker-to-math data flow (experimental)", "Unpacker0->Math (srcA)",
		"SRCA_WRITE_AVAILABLE / UNPACK0_BUSY_THREAD0" },
	[TP_M_UNPACK1_TO_MATH] = { "unpack1_to_math_flow",
		"Unpacker-to-math data flow (experimental)", "Unpacker1->Math (srcB)",
		"SRCB_WRITE_AVAILABLE / UNPACK1_BUSY_THREAD0" },
	[TP_M_UNPACK_TO_MATH] = { "unpack_to_math_flow",
		"Unpacker-to-math data flow (experimental)", "Combined",
		"mean of the defined unpacker ratios" },
	[TP_M_FPU_UTIL] = { "fpu_utilization",
		"Utilisation", "FPU",
		"FPU_INSTRUCTION / FPU_CYCLES" },
	[TP_M_SFPU_UTIL] = { "sfpu_utilization",
		"Utilisation", "SFPU",
		"SFPU_INSTRUCTION / FPU_CYCLES" },
	[TP_M_MATH_UTIL] = { "math_utilization",
		"Utilisation", "Math (FPU or SFPU)",
		"FPU_OR_SFPU_INSTRN / FPU_CYCLES" },
	[TP_M_UNPACK0_UTIL] = { "unpack0_utilization",
		"Utilisation", "Unpacker0",
		"SRCA_WRITE / UNPACK0_BUSY_THREAD0" },
	[TP_M_UNPACK1_UTIL] = { "unpack1_utilization",
		"Utilisation", "Unpacker1",
		"SRCB_WRITE / UNPACK1_BUSY_THREAD0" },
	[TP_M_UNPACK_UTIL] = { "unpack_utilization",
		"Utilisation", "Unpacker (combined)",
		"mean of the defined unpacker utilisations" },
	[TP_M_PACK_UTIL] = { "pack_utilization",
		"Utilisation", "Packer",
		"PACKER_BUSY / TDMA_PACK_CYCLES" },
	[TP_M_STALL_RATE] = { "thread_stall_rate",
		"RISC issue", "Thread stall rate",
		"sum(THREAD_STALLS_0..2) / (3 * INSTRN_THREAD_CYCLES)" },
	[TP_M_ISSUE_RATE] = { "instruction_issue_rate",
		"RISC issue", "Instruction issue efficiency",
		"sum(THREAD_INSTRUCTIONS_0..2) / (3 * INSTRN_THREAD_CYCLES)" },
	[TP_M_UNPACK_BPC] = { "unpack_est_bytes_per_cycle",
		"Estimated bandwidth", "Unpacker est. B/cyc",
		"unpack_utilization * UNPACK_PEAK_BPC" },
	[TP_M_PACK_BPC] = { "pack_est_bytes_per_cycle",
		"Estimated bandwidth", "Packer est. B/cyc",
		"pack_utilization * PACK_PEAK_BPC" },
	[TP_M_NOC_RING0_TXN] = { "noc_ring0_txn_per_cycle",
		"Estimated bandwidth", "NoC ring 0 txn/cyc",
		"sum(NOC_RING0_{INCOMING,OUTGOING}_{1,0}) / L1_CYCLES_MUX0" },
	[TP_M_NOC_RING1_TXN] = { "noc_ring1_txn_per_cycle",
		"Estimated bandwidth", "NoC ring 1 txn/cyc",
		"sum(NOC_RING1_{INCOMING,OUTGOING}_{1,0}) / L1_CYCLES_MUX1" },
	[TP_M_NOC_TXN] = { "noc_txn_per_cycle",
		"Estimated bandwidth", "NoC txn/cyc",
		"noc_ring0_txn_per_cycle + noc_ring1_txn_per_cycle" },
	[TP_M_NOC_BPC] = { "noc_est_bytes_per_cycle",
		"Estimated bandwidth", "NoC est. B/cyc",
		"noc_txn_per_cycle * NOC_WORD_BYTES" },
	[TP_M_SCORE_MATH] = { "math_bound_score",
		"Bound scores", "math-bound",
		"math_utilization" },
	[TP_M_SCORE_UNPACK] = { "unpack_bound_score",
		"Bound scores", "unpack-bound",
		"unpack_utilization" },
	[TP_M_SCORE_PACK] = { "pack_bound_score",
		"Bound scores", "pack-bound",
		"pack_utilization" },
	[TP_M_SCORE_RISC] = { "risc_bound_score",
		"Bound scores", "risc-bound",
		"thread_stall_rate - instruction_issue_rate" },
};

const char *tp_bound_name(enum tp_bound b)
{
	static const char *const names[TP_NR_BOUNDS] = {
		"math-bound", "unpack-bound", "pack-bound", "risc-bound",
	};

	return b >= 0 && b < TP_NR_BOUNDS ? names[b] : "n/a";
}

enum tp_metric_id tp_bound_score(enum tp_bound b)
{
	static const enum tp_metric_id ids[TP_NR_BOUNDS] = {
		TP_M_SCORE_MATH, TP_M_SCORE_UNPACK, TP_M_SCORE_PACK, TP_M_SCORE_RISC,
	};

	return b >= 0 && b < TP_NR_BOUNDS ? ids[b] : TP_NR_METRICS;
}

/* ---- building blocks ---- */

static const struct tp_val invalid_val;

static struct tp_val mkval(double v, bool scaled)
{
	struct tp_val r = { v, isfinite(v), scaled };

	return r;
}

static struct tp_val metric_val(const struct tp_metric *m)
{
	return m->valid ? mkval(m->value, m->scaled) : invalid_val;
}

/* Sum of several counters: valid only when every one is. */
static struct tp_val sum_ev(const struct tp_counts *c, const enum tp_ev *evs, int n)
{
	struct tp_val r = { 0, true, false };

	for (int i = 0; i < n; i++) {
		if (!c->ev[evs[i]].valid)
			return invalid_val;
		r.v += c->ev[evs[i]].v;
		r.scaled |= c->ev[evs[i]].scaled;
	}
	return r;
}

/*
 * Record an input. Counter names are given in lower case (the sysfs
 * spelling) and shown in upper case like the seed's formulas; every other
 * input name is already in its final spelling.
 */
static void add_input(struct tp_metric *m, const char *name, struct tp_val v)
{
	if (m->nr_inputs < TP_MAX_INPUTS) {
		if (tp_event_find(name) >= 0)
			tp_upper(m->in[m->nr_inputs].name, TP_NAME_LEN, name);
		else
			snprintf(m->in[m->nr_inputs].name, TP_NAME_LEN, "%s", name);
		m->in[m->nr_inputs].val = v;
		m->nr_inputs++;
	}
	m->scaled |= v.valid && v.scaled;
}

static void set_value(struct tp_metric *m, double v)
{
	if (isfinite(v)) {
		m->valid = true;
		m->value = v;
	}
}

/* m = a / (k * b); n/a when an input is missing or the denominator is 0 */
static void ratio(struct tp_metric *m, const char *an, struct tp_val a,
		  const char *bn, struct tp_val b, double k)
{
	add_input(m, an, a);
	add_input(m, bn, b);
	if (a.valid && b.valid && b.v * k != 0.0)
		set_value(m, a.v / (b.v * k));
}

/*
 * m = a / b for two counters. Counters of two banks count over two windows
 * (each bank starts and stops on its own, one after the other), so they
 * are compared as rates per cycle of their own bank's window:
 * (a / cycles(a)) / (b / cycles(b)); for one window that is a / b, and
 * the skew between the banks' windows cannot push a fraction past 1.
 */
static void ratio_ev(struct tp_metric *m, const struct tp_counts *c,
		     enum tp_ev a, enum tp_ev b)
{
	unsigned int ba = tp_events[a].bank, bb = tp_events[b].bank;
	struct tp_val ca, cb;

	if (ba == bb || ba >= TENSIX_NR_BANKS || bb >= TENSIX_NR_BANKS ||
	    ba == TENSIX_BANK_L1 || bb == TENSIX_BANK_L1) {
		ratio(m, tp_events[a].name, c->ev[a], tp_events[b].name, c->ev[b], 1.0);
		return;
	}
	ca = c->cycles[ba];
	cb = c->cycles[bb];
	add_input(m, tp_events[a].name, c->ev[a]);
	add_input(m, bank_cycles_names[ba], ca);
	add_input(m, tp_events[b].name, c->ev[b]);
	add_input(m, bank_cycles_names[bb], cb);
	if (c->ev[a].valid && c->ev[b].valid && ca.valid && cb.valid &&
	    ca.v != 0.0 && cb.v != 0.0 && c->ev[b].v != 0.0)
		set_value(m, (c->ev[a].v / ca.v) / (c->ev[b].v / cb.v));
}

/* Mean of the defined metrics among @x and @y; n/a when neither is. */
static void mean2(struct tp_metric *m, const struct tp_metric *x, const char *xn,
		  const struct tp_metric *y, const char *yn)
{
	add_input(m, xn, metric_val(x));
	add_input(m, yn, metric_val(y));
	if (x->valid && y->valid)
		set_value(m, (x->value + y->value) / 2.0);
	else if (x->valid)
		set_value(m, x->value);
	else if (y->valid)
		set_value(m, y->value);
}

/* m = x (a copy of another metric, e.g. a bound score) */
static void same(struct tp_metric *m, const struct tp_metric *x, const char *xn)
{
	add_input(m, xn, metric_val(x));
	if (x->valid)
		set_value(m, x->value);
}

/* m = x * k for a platform constant k; n/a without a platform */
static void scale(struct tp_metric *m, const struct tp_metric *x, const char *xn,
		  const char *kn, const struct tp_platform *p, double k)
{
	add_input(m, xn, metric_val(x));
	add_input(m, kn, p ? mkval(k, false) : invalid_val);
	if (x->valid && p)
		set_value(m, x->value * k);
}

/* ---- the metrics ---- */

void tp_metrics_compute(const struct tp_counts *c, const struct tp_platform *p,
			struct tp_metrics *out)
{
	static const enum tp_ev stalls[] = {
		TP_EV_thread_stalls_0, TP_EV_thread_stalls_1, TP_EV_thread_stalls_2,
	};
	static const enum tp_ev instrs[] = {
		TP_EV_thread_instructions_0, TP_EV_thread_instructions_1,
		TP_EV_thread_instructions_2,
	};
	static const enum tp_ev ring0[] = {
		TP_EV_noc_ring0_incoming_1, TP_EV_noc_ring0_incoming_0,
		TP_EV_noc_ring0_outgoing_1, TP_EV_noc_ring0_outgoing_0,
	};
	static const enum tp_ev ring1[] = {
		TP_EV_noc_ring1_incoming_1, TP_EV_noc_ring1_incoming_0,
		TP_EV_noc_ring1_outgoing_1, TP_EV_noc_ring1_outgoing_0,
	};
	struct tp_metric *m = out->m;
	const struct tp_val *cyc = c->cycles;
	enum tp_bound b;

	memset(out, 0, sizeof(*out));
	out->platform = p;

	/* Newest seed, base metrics */
	ratio_ev(&m[TP_M_UNPACK0_WRITE_EFF], c, TP_EV_srca_write, TP_EV_unpack0_busy_thread0);
	ratio_ev(&m[TP_M_UNPACK1_WRITE_EFF], c, TP_EV_srcb_write, TP_EV_unpack1_busy_thread0);
	mean2(&m[TP_M_UNPACK_WRITE_EFF], &m[TP_M_UNPACK0_WRITE_EFF], "unpack0_write_efficiency",
	      &m[TP_M_UNPACK1_WRITE_EFF], "unpack1_write_efficiency");
	ratio_ev(&m[TP_M_PACKER_EFF], c, TP_EV_packer_dest_read_available, TP_EV_packer_busy);
	ratio_ev(&m[TP_M_FPU_EFF], c, TP_EV_fpu_instruction, TP_EV_fpu_instrn_available_1);

	/* Newest seed, experimental metrics */
	ratio_ev(&m[TP_M_MATH_PIPE_UTIL], c, TP_EV_math_instrn_started,
		 TP_EV_math_instrn_available);
	ratio_ev(&m[TP_M_MATH_TO_PACK], c, TP_EV_available_math, TP_EV_packer_busy);
	ratio_ev(&m[TP_M_UNPACK0_TO_MATH], c, TP_EV_srca_write_available,
		 TP_EV_unpack0_busy_thread0);
	ratio_ev(&m[TP_M_UNPACK1_TO_MATH], c, TP_EV_srcb_write_available,
		 TP_EV_unpack1_busy_thread0);
	mean2(&m[TP_M_UNPACK_TO_MATH], &m[TP_M_UNPACK0_TO_MATH], "unpack0_to_math_flow",
	      &m[TP_M_UNPACK1_TO_MATH], "unpack1_to_math_flow");

	/* Older seed, utilisation */
	ratio(&m[TP_M_FPU_UTIL], tp_events[TP_EV_fpu_instruction].name, c->ev[TP_EV_fpu_instruction],
	      bank_cycles_names[TENSIX_BANK_FPU], cyc[TENSIX_BANK_FPU], 1.0);
	ratio(&m[TP_M_SFPU_UTIL], tp_events[TP_EV_sfpu_instruction].name, c->ev[TP_EV_sfpu_instruction],
	      bank_cycles_names[TENSIX_BANK_FPU], cyc[TENSIX_BANK_FPU], 1.0);
	ratio(&m[TP_M_MATH_UTIL], tp_events[TP_EV_fpu_or_sfpu_instrn].name, c->ev[TP_EV_fpu_or_sfpu_instrn],
	      bank_cycles_names[TENSIX_BANK_FPU], cyc[TENSIX_BANK_FPU], 1.0);
	ratio_ev(&m[TP_M_UNPACK0_UTIL], c, TP_EV_srca_write, TP_EV_unpack0_busy_thread0);
	ratio_ev(&m[TP_M_UNPACK1_UTIL], c, TP_EV_srcb_write, TP_EV_unpack1_busy_thread0);
	mean2(&m[TP_M_UNPACK_UTIL], &m[TP_M_UNPACK0_UTIL], "unpack0_utilization",
	      &m[TP_M_UNPACK1_UTIL], "unpack1_utilization");
	ratio(&m[TP_M_PACK_UTIL], tp_events[TP_EV_packer_busy].name, c->ev[TP_EV_packer_busy],
	      bank_cycles_names[TENSIX_BANK_TDMA_PACK], cyc[TENSIX_BANK_TDMA_PACK], 1.0);

	/* RISC issue */
	ratio(&m[TP_M_STALL_RATE], "THREAD_STALLS_SUM", sum_ev(c, stalls, 3),
	      bank_cycles_names[TENSIX_BANK_INSTRN_THREAD], cyc[TENSIX_BANK_INSTRN_THREAD], TP_NR_THREADS);
	ratio(&m[TP_M_ISSUE_RATE], "THREAD_INSTRUCTIONS_SUM", sum_ev(c, instrs, 3),
	      bank_cycles_names[TENSIX_BANK_INSTRN_THREAD], cyc[TENSIX_BANK_INSTRN_THREAD], TP_NR_THREADS);

	/* Bandwidth estimates */
	scale(&m[TP_M_UNPACK_BPC], &m[TP_M_UNPACK_UTIL], "unpack_utilization",
	      "UNPACK_PEAK_BPC", p, p ? p->unpack_peak_bpc : 0);
	scale(&m[TP_M_PACK_BPC], &m[TP_M_PACK_UTIL], "pack_utilization",
	      "PACK_PEAK_BPC", p, p ? p->pack_peak_bpc : 0);
	ratio(&m[TP_M_NOC_RING0_TXN], "NOC_RING0_TXN", sum_ev(c, ring0, 4),
	      "L1_CYCLES_MUX0", c->l1_cycles[0], 1.0);
	ratio(&m[TP_M_NOC_RING1_TXN], "NOC_RING1_TXN", sum_ev(c, ring1, 4),
	      "L1_CYCLES_MUX1", c->l1_cycles[1], 1.0);
	add_input(&m[TP_M_NOC_TXN], "noc_ring0_txn_per_cycle", metric_val(&m[TP_M_NOC_RING0_TXN]));
	add_input(&m[TP_M_NOC_TXN], "noc_ring1_txn_per_cycle", metric_val(&m[TP_M_NOC_RING1_TXN]));
	if (m[TP_M_NOC_RING0_TXN].valid && m[TP_M_NOC_RING1_TXN].valid)
		set_value(&m[TP_M_NOC_TXN], m[TP_M_NOC_RING0_TXN].value + m[TP_M_NOC_RING1_TXN].value);
	scale(&m[TP_M_NOC_BPC], &m[TP_M_NOC_TXN], "noc_txn_per_cycle",
	      "NOC_WORD_BYTES", p, p ? p->noc_word_bytes : 0);

	/* Bound scores */
	same(&m[TP_M_SCORE_MATH], &m[TP_M_MATH_UTIL], "math_utilization");
	same(&m[TP_M_SCORE_UNPACK], &m[TP_M_UNPACK_UTIL], "unpack_utilization");
	same(&m[TP_M_SCORE_PACK], &m[TP_M_PACK_UTIL], "pack_utilization");
	add_input(&m[TP_M_SCORE_RISC], "thread_stall_rate", metric_val(&m[TP_M_STALL_RATE]));
	add_input(&m[TP_M_SCORE_RISC], "instruction_issue_rate", metric_val(&m[TP_M_ISSUE_RATE]));
	if (m[TP_M_STALL_RATE].valid && m[TP_M_ISSUE_RATE].valid)
		set_value(&m[TP_M_SCORE_RISC], m[TP_M_STALL_RATE].value - m[TP_M_ISSUE_RATE].value);

	/* Classification: the highest defined score, first one on a tie */
	out->bound = TP_BOUND_NONE;
	for (b = TP_BOUND_MATH; b < TP_NR_BOUNDS; b++) {
		const struct tp_metric *s = &m[tp_bound_score(b)];

		if (!s->valid)
			continue;
		if (out->bound == TP_BOUND_NONE || s->value > m[tp_bound_score(out->bound)].value)
			out->bound = b;
	}
}

char *tp_fmt_metric(char *buf, size_t len, const struct tp_metric *m)
{
	if (m->valid && isfinite(m->value))
		snprintf(buf, len, "%.6f", m->value == 0.0 ? 0.0 : m->value);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

char *tp_fmt_val(char *buf, size_t len, struct tp_val v)
{
	if (!v.valid || !isfinite(v.v))
		snprintf(buf, len, "n/a");
	else if (v.v > -1e18 && v.v < 1e18 && v.v == (double)(long long)v.v)
		snprintf(buf, len, "%.0f", v.v == 0.0 ? 0.0 : v.v);
	else
		snprintf(buf, len, "%.6f", v.v);
	return buf;
}
