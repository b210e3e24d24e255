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
 *   math/pack_bound_score     = math/pack_utilization
 *   unpack_bound_score        = (UNPACK0_BUSY_THREAD0 + UNPACK1_BUSY_THREAD0) /
 *                               (2 * TDMA_UNPACK cycles): the unpackers' busy
 *                               share, like the other scores a share of its
 *                               bank's cycles (the seed's unpack_utilization
 *                               is writes per busy cycle, a rate that does
 *                               not grow with how busy the unpackers are)
 *   risc_bound_score          = thread_stall_rate - instruction_issue_rate
 *   classification            = highest defined score; scores within
 *                               TP_BOUND_TIE of the highest are a tie, won by
 *                               the first in math, unpack, pack, risc order;
 *                               n/a if none is defined
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "metrics.h"

const struct tp_event_info tp_events[TP_NR_EV] = {
#define TP_EV_INFO1(n, b, i, m) [TP_EV_##n] = { #n, TENSIX_BANK_##b, (i), (m) },
#define TP_EV_INFO(n, b, i, m, a) TP_IN_TABLE(TP_EV_INFO1, b, a)(n, b, i, m)
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

/*
 * The same per-thread counter of @thread as @ev ("name_0" -> "name_1"), or
 * -1. The table does not keep a counter's three threads together.
 */
int tp_event_sibling(int ev, int thread)
{
	char name[TP_NAME_LEN];
	size_t len;

	if (tp_event_thread(ev) < 0 || thread < 0 || thread >= TP_NR_THREADS)
		return -1;
	len = strlen(tp_events[ev].name);
	if (len >= sizeof(name))
		return -1;
	memcpy(name, tp_events[ev].name, len + 1);
	name[len - 1] = (char)('0' + thread);
	return tp_event_find(name);
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

static const struct tp_metric_desc seed_descs[TP_NR_METRICS] = {
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
		"MATH_INSTRN_STARTED / MATH_INSTRN_AVAILABLE", true },
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
		"FPU_INSTRUCTION / FPU_CYCLES", true },
	[TP_M_SFPU_UTIL] = { "sfpu_utilization",
		"Utilisation", "SFPU",
		"SFPU_INSTRUCTION / FPU_CYCLES", true },
	[TP_M_MATH_UTIL] = { "math_utilization",
		"Utilisation", "Math (FPU or SFPU)",
		"FPU_OR_SFPU_INSTRN / FPU_CYCLES", true },
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
		"PACKER_BUSY / TDMA_PACK_CYCLES", true },
	[TP_M_STALL_RATE] = { "thread_stall_rate",
		"RISC issue", "Thread stall rate",
		"sum(THREAD_STALLS_0..2) / (3 * INSTRN_THREAD_CYCLES)", true },
	[TP_M_ISSUE_RATE] = { "instruction_issue_rate",
		"RISC issue", "Instruction issue efficiency",
		"sum(THREAD_INSTRUCTIONS_0..2) / (3 * INSTRN_THREAD_CYCLES)", true },
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
		"(UNPACK0_BUSY_THREAD0 + UNPACK1_BUSY_THREAD0) / (2 * TDMA_UNPACK_CYCLES)", true },
	[TP_M_SCORE_PACK] = { "pack_bound_score",
		"Bound scores", "pack-bound",
		"pack_utilization" },
	[TP_M_SCORE_RISC] = { "risc_bound_score",
		"Bound scores", "risc-bound",
		"thread_stall_rate - instruction_issue_rate" },
};

/*
 * ---- the tt-metal metric set ----
 *
 * Each metric is (sum of k * rate) / (sum of k * rate) over counters,
 * where a counter's rate is its count per cycle of its own window (its
 * bank's reference cycles; for L1, the L1 cycles counted under the same
 * mux). When every input shares one window that is the plain ratio of the
 * counts; across banks it compares like with like (see ratio_ev()).
 * TP_REF stands for the window's reference cycles (rate 1).
 */
#define TP_REF		TP_NR_EV
#define TP_MAX_TERMS	10

/* A counter, with an alternative used when it was not counted (Blackhole names) */
struct tp_term {
	int ev;
	int alt;	/* 0: none (index 0 is never an alternative) */
	double k;	/* 0 ends the list */
};

enum tp_kind {
	TP_LINEAR,	/* sum(num) / sum(den) */
	TP_IMBALANCE,	/* (max - min) / max of the num rates */
	TP_CONTENTION,	/* mean over pairs of (num[i] - den[i]) / num[i] */
};

#define TP_F_FRACTION	0x1	/* within [0, 1] by definition */
#define TP_F_NEG_NA	0x2	/* n/a when the numerator is negative (grant > req) */
#define TP_F_ZERO_NA	0x4	/* n/a when a subtracted counter reads 0 (unused signal) */

struct tp_ttdef {
	struct tp_metric_desc d;
	enum tp_kind kind;
	unsigned int flags;
	struct tp_term num[TP_MAX_TERMS];
	struct tp_term den[TP_MAX_TERMS];
};

#define E(x)		{ TP_EV_##x, 0, 1.0 }
#define NEG(x)		{ TP_EV_##x, 0, -1.0 }
#define K(x, k)		{ TP_EV_##x, 0, (k) }
#define ALT(x, y)	{ TP_EV_##x, TP_EV_##y, 1.0 }
#define REF		{ TP_REF, 0, 1.0 }
#define REFK(k)		{ TP_REF, 0, (k) }
#define FR		TP_F_FRACTION
#define TT(n, sec, label, formula, flags, kind, ...) \
	[TP_M_##n - TP_M_dest_read_grant_rate] = { \
		{ #n, sec, label, formula, ((flags) & FR) != 0 }, kind, flags, __VA_ARGS__ }
#define LIN(n, sec, label, formula, flags, nu, de) \
	TT(n, sec, label, formula, flags, TP_LINEAR, .num = nu, .den = de)
#define N(...)		{ __VA_ARGS__ }

#define S_PIPE	"tt-metal: pipeline"
#define S_THR	"tt-metal: threads"
#define S_WAIT	"tt-metal: waits (share of cycles)"
#define S_STALL	"tt-metal: TDMA stalls and write ports"
#define S_AVAIL	"tt-metal: instruction availability"
#define S_PACK	"tt-metal: packer engines (Wormhole)"
#define S_L1	"tt-metal: L1 ports and NoC"
#define S_X	"tt-metal: across banks"

#define WAITS(t) N(E(waiting_for_thcon_idle_##t), E(waiting_for_unpack_idle_##t), \
	E(waiting_for_pack_idle_##t), E(waiting_for_math_idle_##t), \
	E(waiting_for_nonzero_sem_##t), E(waiting_for_nonfull_sem_##t), \
	E(waiting_for_move_idle_##t), E(waiting_for_mmio_idle_##t), \
	E(waiting_for_sfpu_idle_##t))
#define RING0_OUT	E(l1_0_noc_ring0_outgoing_0), E(l1_0_noc_ring0_outgoing_1)
#define RING0_IN	E(l1_0_noc_ring0_incoming_0), E(l1_0_noc_ring0_incoming_1)
#define PORT1		ALT(l1_0_unpacker_1_ecc_pack1, l1_0_unified_packer)

static const struct tp_ttdef tt_defs[] = {
	LIN(dest_read_grant_rate, S_PIPE, "Dest read grant rate",
	    "DEST_READ_GRANTED_0 / PACKER_DEST_READ_AVAILABLE", FR,
	    N(E(dest_read_granted_0)), N(E(packer_dest_read_available))),
	LIN(math_available_rate, S_PIPE, "Math not scoreboard-stalled",
	    "AVAILABLE_MATH / TDMA_PACK_CYCLES", FR,
	    N(E(available_math)), N(REF)),
	LIN(unpack_to_math_data_flow, S_PIPE, "Unpacker-to-math data flow",
	    "(SRCA_WRITE_AVAILABLE + SRCB_WRITE_AVAILABLE) / "
	    "(UNPACK0_BUSY_THREAD0 + UNPACK1_BUSY_THREAD0)", 0,
	    N(E(srca_write_available), E(srcb_write_available)),
	    N(E(unpack0_busy_thread0), E(unpack1_busy_thread0))),
	LIN(thread0_stall_rate, S_THR, "T0 (unpack) stall rate",
	    "THREAD_STALLS_0 / INSTRN_THREAD_CYCLES", FR, N(E(thread_stalls_0)), N(REF)),
	LIN(thread1_stall_rate, S_THR, "T1 (math) stall rate",
	    "THREAD_STALLS_1 / INSTRN_THREAD_CYCLES", FR, N(E(thread_stalls_1)), N(REF)),
	LIN(thread2_stall_rate, S_THR, "T2 (pack) stall rate",
	    "THREAD_STALLS_2 / INSTRN_THREAD_CYCLES", FR, N(E(thread_stalls_2)), N(REF)),
	LIN(thread0_issue_rate, S_THR, "T0 (unpack) issue rate",
	    "THREAD_INSTRUCTIONS_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(thread_instructions_0)), N(REF)),
	LIN(thread1_issue_rate, S_THR, "T1 (math) issue rate",
	    "THREAD_INSTRUCTIONS_1 / INSTRN_THREAD_CYCLES", FR,
	    N(E(thread_instructions_1)), N(REF)),
	LIN(thread2_issue_rate, S_THR, "T2 (pack) issue rate",
	    "THREAD_INSTRUCTIONS_2 / INSTRN_THREAD_CYCLES", FR,
	    N(E(thread_instructions_2)), N(REF)),
	LIN(srca_valid_wait, S_WAIT, "SrcA valid wait",
	    "WAITING_FOR_SRCA_VALID / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_srca_valid)), N(REF)),
	LIN(srcb_valid_wait, S_WAIT, "SrcB valid wait",
	    "WAITING_FOR_SRCB_VALID / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_srcb_valid)), N(REF)),
	LIN(srca_clear_wait, S_WAIT, "SrcA clear wait",
	    "WAITING_FOR_SRCA_CLEAR / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_srca_clear)), N(REF)),
	LIN(srcb_clear_wait, S_WAIT, "SrcB clear wait",
	    "WAITING_FOR_SRCB_CLEAR / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_srcb_clear)), N(REF)),
	LIN(unpack_idle_wait_t0, S_WAIT, "Unpack idle wait T0",
	    "WAITING_FOR_UNPACK_IDLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_unpack_idle_0)), N(REF)),
	LIN(math_idle_wait_t1, S_WAIT, "Math idle wait T1",
	    "WAITING_FOR_MATH_IDLE_1 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_math_idle_1)), N(REF)),
	LIN(pack_idle_wait_t2, S_WAIT, "Pack idle wait T2",
	    "WAITING_FOR_PACK_IDLE_2 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_pack_idle_2)), N(REF)),
	LIN(sem_zero_wait_t0, S_WAIT, "Semaphore zero wait T0",
	    "WAITING_FOR_NONZERO_SEM_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_nonzero_sem_0)), N(REF)),
	LIN(sem_zero_wait_t1, S_WAIT, "Semaphore zero wait T1",
	    "WAITING_FOR_NONZERO_SEM_1 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_nonzero_sem_1)), N(REF)),
	LIN(sem_zero_wait_t2, S_WAIT, "Semaphore zero wait T2",
	    "WAITING_FOR_NONZERO_SEM_2 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_nonzero_sem_2)), N(REF)),
	LIN(sem_full_wait_t0, S_WAIT, "Semaphore full wait T0",
	    "WAITING_FOR_NONFULL_SEM_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_nonfull_sem_0)), N(REF)),
	LIN(sem_full_wait_t1, S_WAIT, "Semaphore full wait T1",
	    "WAITING_FOR_NONFULL_SEM_1 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_nonfull_sem_1)), N(REF)),
	LIN(sem_full_wait_t2, S_WAIT, "Semaphore full wait T2",
	    "WAITING_FOR_NONFULL_SEM_2 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_nonfull_sem_2)), N(REF)),
	LIN(mmio_idle_wait_t0, S_WAIT, "MMIO idle wait T0",
	    "WAITING_FOR_MMIO_IDLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_mmio_idle_0)), N(REF)),
	LIN(sfpu_idle_wait_t1, S_WAIT, "SFPU idle wait T1",
	    "WAITING_FOR_SFPU_IDLE_1 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_sfpu_idle_1)), N(REF)),
	LIN(thcon_idle_wait_t0, S_WAIT, "THCON idle wait T0",
	    "WAITING_FOR_THCON_IDLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_thcon_idle_0)), N(REF)),
	LIN(move_idle_wait_t0, S_WAIT, "MOVE idle wait T0",
	    "WAITING_FOR_MOVE_IDLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(waiting_for_move_idle_0)), N(REF)),
	LIN(data_hazard_stall_rate, S_STALL, "Data hazard stall rate",
	    "(MATH_INSTRN_AVAILABLE - DATA_HAZARD_STALLS_MOVD2A) / MATH_INSTRN_AVAILABLE",
	    FR | TP_F_NEG_NA,
	    N(E(math_instrn_available), NEG(data_hazard_stalls_movd2a)),
	    N(E(math_instrn_available))),
	LIN(srca_write_overwrite_blocked, S_STALL, "SrcA write overwrite blocked",
	    "(SRCA_WRITE_AVAILABLE - SRCA_WRITE_NOT_BLOCKED_OVR) / SRCA_WRITE_AVAILABLE",
	    FR | TP_F_NEG_NA,
	    N(E(srca_write_available), NEG(srca_write_not_blocked_ovr)),
	    N(E(srca_write_available))),
	LIN(srcb_write_port_blocked, S_STALL, "SrcB write port blocked",
	    "(SRCB_WRITE_AVAILABLE - SRCB_WRITE_NOT_BLOCKED_PORT) / SRCB_WRITE_AVAILABLE",
	    FR | TP_F_NEG_NA,
	    N(E(srcb_write_available), NEG(srcb_write_not_blocked_port)),
	    N(E(srcb_write_available))),
	LIN(dest_read_backpressure, S_STALL, "Dest read backpressure",
	    "(PACKER_DEST_READ_AVAILABLE - DEST_READ_GRANTED_0) / PACKER_DEST_READ_AVAILABLE",
	    FR | TP_F_NEG_NA,
	    N(E(packer_dest_read_available), NEG(dest_read_granted_0)),
	    N(E(packer_dest_read_available))),
	LIN(math_dest_wr_port_stall, S_STALL, "Math dest write port stall",
	    "(MATH_INSTRN_AVAILABLE - MATH_NOT_STALLED_DEST_WR_PORT) / MATH_INSTRN_AVAILABLE"
	    " (n/a when MATH_NOT_STALLED_DEST_WR_PORT reads 0)",
	    FR | TP_F_NEG_NA | TP_F_ZERO_NA,
	    N(E(math_instrn_available), NEG(math_not_stalled_dest_wr_port)),
	    N(E(math_instrn_available))),
	LIN(math_scoreboard_stall, S_STALL, "Math scoreboard stall",
	    "(MATH_INSTRN_AVAILABLE - AVAILABLE_MATH) / MATH_INSTRN_AVAILABLE",
	    FR | TP_F_NEG_NA,
	    N(E(math_instrn_available), NEG(available_math)),
	    N(E(math_instrn_available))),
	LIN(srca_write_actual_efficiency, S_STALL, "SrcA write actual efficiency",
	    "SRCA_WRITE_ACTUAL / SRCA_WRITE_AVAILABLE", FR,
	    N(E(srca_write_actual)), N(E(srca_write_available))),
	LIN(srcb_write_actual_efficiency, S_STALL, "SrcB write actual efficiency",
	    "SRCB_WRITE_NOT_BLOCKED_PORT / SRCB_WRITE_AVAILABLE", FR,
	    N(E(srcb_write_not_blocked_port)), N(E(srcb_write_available))),
	LIN(unpacker1_port_write_efficiency, S_STALL, "Unpacker1 port write efficiency",
	    "SRCB_WRITE_NOT_BLOCKED_PORT / UNPACK1_BUSY_THREAD0", 0,
	    N(E(srcb_write_not_blocked_port)), N(E(unpack1_busy_thread0))),
	LIN(compute_to_unpack_ratio, S_X, "Compute-to-unpack ratio",
	    "MATH_COUNTER / (UNPACK0_BUSY_THREAD0 + UNPACK1_BUSY_THREAD0)", 0,
	    N(E(math_counter)), N(E(unpack0_busy_thread0), E(unpack1_busy_thread0))),
	LIN(cfg_instrn_avail_rate, S_AVAIL, "CFG (T0)",
	    "CFG_INSTRN_AVAILABLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(cfg_instrn_available_0)), N(REF)),
	LIN(sync_instrn_avail_rate, S_AVAIL, "SYNC (T0)",
	    "SYNC_INSTRN_AVAILABLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(sync_instrn_available_0)), N(REF)),
	LIN(thcon_instrn_avail_rate, S_AVAIL, "THCON (T0)",
	    "THCON_INSTRN_AVAILABLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(thcon_instrn_available_0)), N(REF)),
	LIN(move_instrn_avail_rate, S_AVAIL, "MOVE (T0)",
	    "MOVE_INSTRN_AVAILABLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(move_instrn_available_0)), N(REF)),
	LIN(math_instrn_avail_rate, S_AVAIL, "MATH (T1)",
	    "FPU_INSTRN_AVAILABLE_1 / INSTRN_THREAD_CYCLES", FR,
	    N(E(fpu_instrn_available_1)), N(REF)),
	LIN(unpack_instrn_avail_rate, S_AVAIL, "UNPACK (T0)",
	    "UNPACK_INSTRN_AVAILABLE_0 / INSTRN_THREAD_CYCLES", FR,
	    N(E(unpack_instrn_available_0)), N(REF)),
	LIN(pack_instrn_avail_rate, S_AVAIL, "PACK (T2)",
	    "PACK_INSTRN_AVAILABLE_2 / INSTRN_THREAD_CYCLES", FR,
	    N(E(pack_instrn_available_2)), N(REF)),
	LIN(stall_overlap_t0, S_THR, "Stall cause overlap T0",
	    "sum(WAITING_FOR_*_0) / THREAD_STALLS_0", 0, WAITS(0), N(E(thread_stalls_0))),
	LIN(stall_overlap_t1, S_THR, "Stall cause overlap T1",
	    "sum(WAITING_FOR_*_1) / THREAD_STALLS_1", 0, WAITS(1), N(E(thread_stalls_1))),
	LIN(stall_overlap_t2, S_THR, "Stall cause overlap T2",
	    "sum(WAITING_FOR_*_2) / THREAD_STALLS_2", 0, WAITS(2), N(E(thread_stalls_2))),
	LIN(packer_engine0_util, S_PACK, "Packer engine 0",
	    "PACKER_BUSY_0 / TDMA_PACK_CYCLES", FR, N(E(packer_busy_0)), N(REF)),
	LIN(packer_engine1_util, S_PACK, "Packer engine 1",
	    "PACKER_BUSY_1 / TDMA_PACK_CYCLES", FR, N(E(packer_busy_1)), N(REF)),
	LIN(packer_engine2_util, S_PACK, "Packer engine 2",
	    "PACKER_BUSY_2 / TDMA_PACK_CYCLES", FR, N(E(packer_busy_2)), N(REF)),
	TT(packer_load_imbalance, S_PACK, "Packer load imbalance",
	   "(max - min) / max of PACKER_BUSY_0..2", FR, TP_IMBALANCE,
	   .num = N(E(packer_busy_0), E(packer_busy_1), E(packer_busy_2))),
	LIN(l1_unpacker_port_util, S_L1, "L1 unpacker port",
	    "L1_0_UNPACKER_0 / L1_CYCLES (mux 0)", FR, N(E(l1_0_unpacker_0)), N(REF)),
	LIN(l1_packer_port_util, S_L1, "L1 packer port (port 1)",
	    "L1_0_UNPACKER_1_ECC_PACK1 (BH: L1_0_UNIFIED_PACKER) / L1_CYCLES (mux 0)", FR,
	    N(PORT1), N(REF)),
	LIN(l1_packer_port8_util, S_L1, "L1 port 8",
	    "L1_1_TDMA_PACKER_2 (BH: L1_1_RISC_CORE) / L1_CYCLES (mux 1)", FR,
	    N(ALT(l1_1_tdma_packer_2, l1_1_risc_core)), N(REF)),
	LIN(l1_tdma_bundle_util, S_L1, "L1 TDMA bundles",
	    "(L1_0_TDMA_BUNDLE_0_RISC + L1_0_TDMA_BUNDLE_1_TRISC) / (2 * L1_CYCLES)", FR,
	    N(E(l1_0_tdma_bundle_0_risc), E(l1_0_tdma_bundle_1_trisc)), N(REFK(2))),
	LIN(noc_ring0_outgoing_util, S_L1, "NoC ring 0 outgoing",
	    "(L1_0_NOC_RING0_OUTGOING_0 + _1) / (2 * L1_CYCLES)", FR,
	    N(RING0_OUT), N(REFK(2))),
	LIN(noc_ring0_incoming_util, S_L1, "NoC ring 0 incoming",
	    "(L1_0_NOC_RING0_INCOMING_0 + _1) / (2 * L1_CYCLES)", FR,
	    N(RING0_IN), N(REFK(2))),
	LIN(noc_ring1_outgoing_util, S_L1, "NoC ring 1 outgoing",
	    "(L1_1_NOC_RING1_OUTGOING_0 + _1) / (2 * L1_CYCLES)", FR,
	    N(E(l1_1_noc_ring1_outgoing_0), E(l1_1_noc_ring1_outgoing_1)), N(REFK(2))),
	LIN(noc_ring1_incoming_util, S_L1, "NoC ring 1 incoming",
	    "(L1_1_NOC_RING1_INCOMING_0 + _1) / (2 * L1_CYCLES)", FR,
	    N(E(l1_1_noc_ring1_incoming_0), E(l1_1_noc_ring1_incoming_1)), N(REFK(2))),
	LIN(noc_ring0_outgoing_backpressure, S_L1, "NoC ring 0 outgoing backpressure",
	    "(req0 + req1 - grant0 - grant1) / (req0 + req1)", FR | TP_F_NEG_NA,
	    N(RING0_OUT, NEG(l1_0_noc_ring0_outgoing_0_grant),
	      NEG(l1_0_noc_ring0_outgoing_1_grant)), N(RING0_OUT)),
	LIN(noc_ring0_incoming_backpressure, S_L1, "NoC ring 0 incoming backpressure",
	    "(req0 + req1 - grant0 - grant1) / (req0 + req1)", FR | TP_F_NEG_NA,
	    N(RING0_IN, NEG(l1_0_noc_ring0_incoming_0_grant),
	      NEG(l1_0_noc_ring0_incoming_1_grant)), N(RING0_IN)),
	LIN(noc_ring1_outgoing_backpressure, S_L1, "NoC ring 1 outgoing backpressure",
	    "(req0 + req1 - grant0 - grant1) / (req0 + req1)", FR | TP_F_NEG_NA,
	    N(E(l1_1_noc_ring1_outgoing_0), E(l1_1_noc_ring1_outgoing_1),
	      NEG(l1_1_noc_ring1_outgoing_0_grant), NEG(l1_1_noc_ring1_outgoing_1_grant)),
	    N(E(l1_1_noc_ring1_outgoing_0), E(l1_1_noc_ring1_outgoing_1))),
	LIN(noc_ring1_incoming_backpressure, S_L1, "NoC ring 1 incoming backpressure",
	    "(req0 + req1 - grant0 - grant1) / (req0 + req1)", FR | TP_F_NEG_NA,
	    N(E(l1_1_noc_ring1_incoming_0), E(l1_1_noc_ring1_incoming_1),
	      NEG(l1_1_noc_ring1_incoming_0_grant), NEG(l1_1_noc_ring1_incoming_1_grant)),
	    N(E(l1_1_noc_ring1_incoming_0), E(l1_1_noc_ring1_incoming_1))),
	LIN(l1_unpacker_backpressure, S_L1, "L1 unpacker backpressure",
	    "(L1_0_UNPACKER_0 - L1_0_UNPACKER_0_GRANT) / L1_0_UNPACKER_0", FR | TP_F_NEG_NA,
	    N(E(l1_0_unpacker_0), NEG(l1_0_unpacker_0_grant)), N(E(l1_0_unpacker_0))),
	LIN(l1_packer_port_backpressure, S_L1, "L1 packer port backpressure",
	    "(port 1 - L1_0_PORT1_GRANT) / port 1", FR | TP_F_NEG_NA,
	    N(PORT1, NEG(l1_0_port1_grant)), N(PORT1)),
	LIN(l1_total_bw_util, S_L1, "L1 total bandwidth",
	    "sum(the 8 L1 mux-0 requests) / (8 * L1_CYCLES)", FR,
	    N(E(l1_0_unpacker_0), PORT1, E(l1_0_tdma_bundle_0_risc),
	      E(l1_0_tdma_bundle_1_trisc), RING0_OUT, RING0_IN), N(REFK(8))),
	LIN(l1_read_ratio, S_L1, "L1 read share",
	    "(unpacker + NoC out) / (unpacker + NoC out + port 1 + NoC in)", FR,
	    N(E(l1_0_unpacker_0), RING0_OUT),
	    N(E(l1_0_unpacker_0), RING0_OUT, PORT1, RING0_IN)),
	LIN(noc_ring0_asymmetry, S_L1, "NoC ring 0 asymmetry",
	    "NoC out / (NoC out + NoC in)", FR, N(RING0_OUT), N(RING0_OUT, RING0_IN)),
	TT(l1_contention_index, S_L1, "L1 contention index",
	   "mean of (req - grant) / req over the unpacker and ring 0 ports with req > 0",
	   FR, TP_CONTENTION,
	   .num = N(E(l1_0_unpacker_0), RING0_OUT, RING0_IN),
	   .den = N(E(l1_0_unpacker_0_grant), E(l1_0_noc_ring0_outgoing_0_grant),
		    E(l1_0_noc_ring0_outgoing_1_grant), E(l1_0_noc_ring0_incoming_0_grant),
		    E(l1_0_noc_ring0_incoming_1_grant))),
	LIN(tdma_vs_noc_share, S_L1, "TDMA share of L1 (vs NoC)",
	    "(TDMA_BUNDLE_0 + _1) / (TDMA bundles + NoC out + NoC in)", FR,
	    N(E(l1_0_tdma_bundle_0_risc), E(l1_0_tdma_bundle_1_trisc)),
	    N(E(l1_0_tdma_bundle_0_risc), E(l1_0_tdma_bundle_1_trisc), RING0_OUT, RING0_IN)),
	LIN(unpacker_l1_efficiency, S_X, "Unpacker L1 efficiency",
	    "L1_0_UNPACKER_0_GRANT / UNPACK0_BUSY_THREAD0", 0,
	    N(E(l1_0_unpacker_0_grant)), N(E(unpack0_busy_thread0))),
	LIN(packer_l1_efficiency, S_X, "Packer L1 efficiency",
	    "L1_0_PORT1_GRANT / PACKER_BUSY", 0,
	    N(E(l1_0_port1_grant)), N(E(packer_busy))),
	LIN(noc_vs_compute, S_X, "NoC vs compute",
	    "(NoC out + NoC in) / (FPU_COUNTER + NoC out + NoC in)", FR,
	    N(RING0_OUT, RING0_IN), N(E(fpu_counter), RING0_OUT, RING0_IN)),
};

_Static_assert(sizeof(tt_defs) / sizeof(tt_defs[0]) ==
	       TP_M_noc_vs_compute - TP_M_dest_read_grant_rate + 1, "one definition per metric");
_Static_assert(TP_M_dest_read_grant_rate == TP_M_NOC_BPC + 1, "tt-metal metrics follow the seed's");

const struct tp_metric_desc *tp_metric_desc(int id)
{
	if (id >= TP_M_dest_read_grant_rate && id <= TP_M_noc_vs_compute)
		return &tt_defs[id - TP_M_dest_read_grant_rate].d;
	return &seed_descs[id];
}

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

/* Record an input unless it is listed already (a counter used twice) */
static void add_input_once(struct tp_metric *m, const char *name, struct tp_val v)
{
	char up[TP_NAME_LEN];

	tp_upper(up, sizeof(up), name);
	for (int i = 0; i < m->nr_inputs; i++)
		if (!strcmp(m->in[i].name, up) || !strcmp(m->in[i].name, name))
			return;
	add_input(m, name, v);
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

/*
 * Rate of a term: its count per cycle of its own window, or 1 for TP_REF.
 * Records the counter and its window as inputs of @m. False when the
 * counter or its window was not counted, or the window is empty.
 */
static bool term_rate(struct tp_metric *m, const struct tp_counts *c,
		      const struct tp_term *t, double *rate)
{
	const struct tp_event_info *info;
	struct tp_val v, w;
	char wname[TP_NAME_LEN];
	int ev = t->ev;

	if (ev == TP_REF) {
		*rate = 1.0;
		return true;
	}
	if (!c->ev[ev].valid && t->alt)
		ev = t->alt;
	info = &tp_events[ev];
	v = c->ev[ev];
	if (info->bank == TENSIX_BANK_L1) {
		w = c->l1_cycles[info->mux];
		snprintf(wname, sizeof(wname), "L1_CYCLES_MUX%u", info->mux);
	} else {
		w = c->cycles[info->bank];
		snprintf(wname, sizeof(wname), "%s", bank_cycles_names[info->bank]);
	}
	add_input_once(m, info->name, v);
	add_input_once(m, wname, w);
	if (!v.valid || !w.valid || w.v == 0.0)
		return false;
	*rate = v.v / w.v;
	return true;
}

/* Sum of k * rate over a term list; false if a term has no rate */
static bool terms_sum(struct tp_metric *m, const struct tp_counts *c,
		      const struct tp_term *t, double *sum)
{
	bool ok = true;

	*sum = 0.0;
	for (int i = 0; i < TP_MAX_TERMS && t[i].k != 0.0; i++) {
		double r;

		if (term_rate(m, c, &t[i], &r))
			*sum += t[i].k * r;
		else
			ok = false;	/* go on: every input is listed */
	}
	return ok;
}

static void tt_linear(struct tp_metric *m, const struct tp_ttdef *d, const struct tp_counts *c)
{
	double num, den;
	bool ok = terms_sum(m, c, d->num, &num);

	ok &= terms_sum(m, c, d->den, &den);
	if (!ok || den == 0.0 || ((d->flags & TP_F_NEG_NA) && num < 0.0))
		return;
	if (d->flags & TP_F_ZERO_NA) {
		for (int i = 0; i < TP_MAX_TERMS && d->num[i].k != 0.0; i++)
			if (d->num[i].k < 0.0 && c->ev[d->num[i].ev].v == 0.0)
				return;
	}
	set_value(m, num / den);
}

static void tt_imbalance(struct tp_metric *m, const struct tp_ttdef *d, const struct tp_counts *c)
{
	double lo = 0.0, hi = 0.0;
	bool ok = true;

	for (int i = 0; i < TP_MAX_TERMS && d->num[i].k != 0.0; i++) {
		double r;

		if (!term_rate(m, c, &d->num[i], &r)) {
			ok = false;
			continue;
		}
		if (!i || r < lo)
			lo = r;
		if (!i || r > hi)
			hi = r;
	}
	if (ok && hi > 0.0)
		set_value(m, (hi - lo) / hi);
}

static void tt_contention(struct tp_metric *m, const struct tp_ttdef *d, const struct tp_counts *c)
{
	double sum = 0.0;
	int n = 0;
	bool ok = true;

	for (int i = 0; i < TP_MAX_TERMS && d->num[i].k != 0.0; i++) {
		double req, grant;

		/* both calls, so that both inputs are listed: '|', not '||' */
		if (!term_rate(m, c, &d->num[i], &req) | !term_rate(m, c, &d->den[i], &grant)) {
			ok = false;
			continue;
		}
		/* idle ports, and grants above requests (Blackhole), do not count */
		if (req > 0.0 && grant <= req) {
			sum += (req - grant) / req;
			n++;
		}
	}
	if (ok && n)
		set_value(m, sum / n);
}

static void tt_compute(struct tp_metrics *out, const struct tp_counts *c)
{
	for (size_t i = 0; i < sizeof(tt_defs) / sizeof(tt_defs[0]); i++) {
		const struct tp_ttdef *d = &tt_defs[i];
		struct tp_metric *m = &out->m[TP_M_dest_read_grant_rate + i];

		switch (d->kind) {
		case TP_LINEAR:
			tt_linear(m, d, c);
			break;
		case TP_IMBALANCE:
			tt_imbalance(m, d, c);
			break;
		case TP_CONTENTION:
			tt_contention(m, d, c);
			break;
		}
	}
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
	static const enum tp_ev unpack_busy[] = {
		TP_EV_unpack0_busy_thread0, TP_EV_unpack1_busy_thread0,
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

	tt_compute(out, c);

	/* Bound scores */
	same(&m[TP_M_SCORE_MATH], &m[TP_M_MATH_UTIL], "math_utilization");
	ratio(&m[TP_M_SCORE_UNPACK], "UNPACK_BUSY_SUM", sum_ev(c, unpack_busy, 2),
	      bank_cycles_names[TENSIX_BANK_TDMA_UNPACK], cyc[TENSIX_BANK_TDMA_UNPACK], 2);
	same(&m[TP_M_SCORE_PACK], &m[TP_M_PACK_UTIL], "pack_utilization");
	add_input(&m[TP_M_SCORE_RISC], "thread_stall_rate", metric_val(&m[TP_M_STALL_RATE]));
	add_input(&m[TP_M_SCORE_RISC], "instruction_issue_rate", metric_val(&m[TP_M_ISSUE_RATE]));
	if (m[TP_M_STALL_RATE].valid && m[TP_M_ISSUE_RATE].valid)
		set_value(&m[TP_M_SCORE_RISC], m[TP_M_STALL_RATE].value - m[TP_M_ISSUE_RATE].value);

	/*
	 * Classification: the highest defined score. Scores computed from
	 * different counters of a steady workload differ by rounding even when
	 * they print the same, so a score must beat the best so far by more
	 * than TP_BOUND_TIE: a tie goes to the first in math, unpack, pack,
	 * risc order.
	 */
	out->bound = TP_BOUND_NONE;
	for (b = TP_BOUND_MATH; b < TP_NR_BOUNDS; b++) {
		const struct tp_metric *s = &m[tp_bound_score(b)];

		if (!s->valid)
			continue;
		if (out->bound == TP_BOUND_NONE ||
		    s->value > m[tp_bound_score(out->bound)].value + TP_BOUND_TIE)
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
