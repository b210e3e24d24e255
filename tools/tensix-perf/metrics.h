/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tensix-perf: the Tensix counter table and the derived metrics.
 *
 * Everything here is a pure function of counter values: no I/O, no global
 * state, so that the metrics, the bound classification and the "n/a"
 * handling can be unit-tested on any host (selftests/tensix_perf/metrics_unit.c).
 *
 * The counter list is the shared TENSIX_EVENTS X-macro of
 * include/socpmu/tensix_regs.h; nothing here repeats a counter name.
 */
#ifndef TENSIX_PERF_METRICS_H
#define TENSIX_PERF_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include <socpmu/tensix_regs.h>

/*
 * The tool's counter table: the counters of the RTL map and the seed's
 * aliases (the names the metrics use), in TENSIX_EVENTS order: every
 * Wormhole B0 counter, and the Blackhole counters whose names Wormhole does
 * not have (L1 ports; the other Blackhole counters share their Wormhole
 * names at other selects). The PMU's events/ aliases give each name's select
 * on the device's own arch; a name the device does not wire is not counted.
 * TP_IN_TABLE(X, bank, arch) is X for the entries kept, else TP_SKIP.
 */
#define TP_T_0x1_INSTRN_THREAD(x) x
#define TP_T_0x1_FPU(x) x
#define TP_T_0x1_TDMA_UNPACK(x) x
#define TP_T_0x1_L1(x) x
#define TP_T_0x1_TDMA_PACK(x) x
#define TP_T_0x3_INSTRN_THREAD(x) x
#define TP_T_0x3_FPU(x) x
#define TP_T_0x3_TDMA_UNPACK(x) x
#define TP_T_0x3_L1(x) x
#define TP_T_0x3_TDMA_PACK(x) x
#define TP_T_0x2_INSTRN_THREAD(x) TP_SKIP
#define TP_T_0x2_FPU(x) TP_SKIP
#define TP_T_0x2_TDMA_UNPACK(x) TP_SKIP
#define TP_T_0x2_L1(x) x
#define TP_T_0x2_TDMA_PACK(x) TP_SKIP
#define TP_IN_TABLE_(x, bank, arch) TP_T_##arch##_##bank(x)
#define TP_IN_TABLE(x, bank, arch) TP_IN_TABLE_(x, bank, arch)
#define TP_SKIP(...)
#define TP_TABLE(X) TENSIX_EVENTS(X) TENSIX_SEED_ALIASES(X)

/* One index per counter of the table: TP_EV_fpu_instruction, ... */
#define TP_EV_ENUM1(name, bank, id, mux) TP_EV_##name,
#define TP_EV_ENUM(name, bank, id, mux, arch) TP_IN_TABLE(TP_EV_ENUM1, bank, arch)(name, bank, id, mux)
enum tp_ev {
	TP_TABLE(TP_EV_ENUM)
	TP_NR_EV
};
#undef TP_EV_ENUM

/* Blackhole's own L1 names: port 1 of group 0, port 8 of group 1, groups 2-4 */
#define TP_NR_BH_ONLY	(2 + 3 * 2 * TENSIX_L1_IDS_PER_MUX)
_Static_assert(TP_NR_EV == TENSIX_NR_EVENTS_WORMHOLE + TP_NR_BH_ONLY + 21,
	       "the table: 130 Wormhole counters, 50 Blackhole L1 names, 21 aliases");

#define TP_NR_THREADS	3	/* Tensix threads T0 (unpack), T1 (math), T2 (pack) */
#define TP_MAX_MUX	8	/* L1 mux values: 2 on wormhole, 8 on blackhole */

struct tp_event_info {
	const char *name;	/* lowercase, as in the PMU's events/ directory */
	unsigned int bank;	/* enum tensix_bank */
	unsigned int id;	/* counter select */
	unsigned int mux;	/* L1 mux (L1 bank only) */
};

extern const struct tp_event_info tp_events[TP_NR_EV];

/*
 * Thread of a counter: 0..2 for the INSTRN_THREAD per-thread counters
 * (name_0, name_1, name_2), -1 for counters shared by the threads.
 */
int tp_event_thread(int ev);
/* The same per-thread counter of another thread, or -1 */
int tp_event_sibling(int ev, int thread);
/* "INSTRN_THREAD", "FPU", ... or "?" */
const char *tp_bank_name(unsigned int bank);
/* "UNPACK", "MATH", "PACK" for threads 0..2, "" otherwise */
const char *tp_thread_name(int thread);
/* Index of a counter by its lowercase name, or -1 */
int tp_event_find(const char *name);
/* Upper-case copy of @src (seed spelling), always NUL-terminated */
void tp_upper(char *dst, size_t len, const char *src);

/*
 * A counter value. valid is false when the counter was not counted (not in
 * the PMU, never scheduled); scaled is true when the value was extrapolated
 * from a multiplexed measurement (count * time_enabled / time_running).
 */
struct tp_val {
	double v;
	bool valid;
	bool scaled;
};

/* Inputs of the metrics: one measurement window (a whole run or an interval). */
struct tp_counts {
	struct tp_val ev[TP_NR_EV];
	/* Reference cycles (OUT_L) of each bank; cycles[TENSIX_BANK_L1] is not used */
	struct tp_val cycles[TENSIX_NR_BANKS];
	/*
	 * L1 reference cycles counted while mux m was latched, i.e. in the same
	 * window as the L1 counters of mux m (the mux halves are multiplexed).
	 */
	struct tp_val l1_cycles[TP_MAX_MUX];
};

/* The older seed's platform bandwidth table */
struct tp_platform {
	const char *id;		/* "wormhole", "blackhole", "quasar" */
	const char *name;	/* "Wormhole B0", ... */
	double noc_word_bytes;
	double unpack_peak_bpc;	/* unpacker peak bytes/cycle */
	double pack_peak_bpc;	/* packer peak bytes/cycle */
};

/* By PMU identifier or --arch value (case-insensitive; "wormhole_b0" too), or NULL */
const struct tp_platform *tp_platform_find(const char *id);

/*
 * The tt-metal metric set (tech_reports/PerfCounters/perf-counters.md), as
 * far as the counters feed it; definitions in metrics.c and tensix-perf.rst.
 */
#define TP_TT_METRICS(M) \
	M(dest_read_grant_rate) \
	M(math_available_rate) \
	M(unpack_to_math_data_flow) \
	M(thread0_stall_rate) \
	M(thread1_stall_rate) \
	M(thread2_stall_rate) \
	M(thread0_issue_rate) \
	M(thread1_issue_rate) \
	M(thread2_issue_rate) \
	M(srca_valid_wait) \
	M(srcb_valid_wait) \
	M(srca_clear_wait) \
	M(srcb_clear_wait) \
	M(unpack_idle_wait_t0) \
	M(math_idle_wait_t1) \
	M(pack_idle_wait_t2) \
	M(sem_zero_wait_t0) \
	M(sem_zero_wait_t1) \
	M(sem_zero_wait_t2) \
	M(sem_full_wait_t0) \
	M(sem_full_wait_t1) \
	M(sem_full_wait_t2) \
	M(mmio_idle_wait_t0) \
	M(sfpu_idle_wait_t1) \
	M(thcon_idle_wait_t0) \
	M(move_idle_wait_t0) \
	M(data_hazard_stall_rate) \
	M(srca_write_overwrite_blocked) \
	M(srcb_write_port_blocked) \
	M(dest_read_backpressure) \
	M(math_dest_wr_port_stall) \
	M(math_scoreboard_stall) \
	M(srca_write_actual_efficiency) \
	M(srcb_write_actual_efficiency) \
	M(unpacker1_port_write_efficiency) \
	M(compute_to_unpack_ratio) \
	M(cfg_instrn_avail_rate) \
	M(sync_instrn_avail_rate) \
	M(thcon_instrn_avail_rate) \
	M(move_instrn_avail_rate) \
	M(math_instrn_avail_rate) \
	M(unpack_instrn_avail_rate) \
	M(pack_instrn_avail_rate) \
	M(stall_overlap_t0) \
	M(stall_overlap_t1) \
	M(stall_overlap_t2) \
	M(packer_engine0_util) \
	M(packer_engine1_util) \
	M(packer_engine2_util) \
	M(packer_load_imbalance) \
	M(l1_unpacker_port_util) \
	M(l1_packer_port_util) \
	M(l1_packer_port8_util) \
	M(l1_tdma_bundle_util) \
	M(noc_ring0_outgoing_util) \
	M(noc_ring0_incoming_util) \
	M(noc_ring1_outgoing_util) \
	M(noc_ring1_incoming_util) \
	M(noc_ring0_outgoing_backpressure) \
	M(noc_ring0_incoming_backpressure) \
	M(noc_ring1_outgoing_backpressure) \
	M(noc_ring1_incoming_backpressure) \
	M(l1_unpacker_backpressure) \
	M(l1_packer_port_backpressure) \
	M(l1_total_bw_util) \
	M(l1_read_ratio) \
	M(noc_ring0_asymmetry) \
	M(l1_contention_index) \
	M(tdma_vs_noc_share) \
	M(unpacker_l1_efficiency) \
	M(packer_l1_efficiency) \
	M(noc_vs_compute)

enum tp_metric_id {
	/* newest seed: base metrics */
	TP_M_UNPACK0_WRITE_EFF,
	TP_M_UNPACK1_WRITE_EFF,
	TP_M_UNPACK_WRITE_EFF,
	TP_M_PACKER_EFF,
	TP_M_FPU_EFF,
	/* newest seed: experimental metrics */
	TP_M_MATH_PIPE_UTIL,
	TP_M_MATH_TO_PACK,
	TP_M_UNPACK0_TO_MATH,
	TP_M_UNPACK1_TO_MATH,
	TP_M_UNPACK_TO_MATH,
	/* older seed: utilisation */
	TP_M_FPU_UTIL,
	TP_M_SFPU_UTIL,
	TP_M_MATH_UTIL,
	TP_M_UNPACK0_UTIL,
	TP_M_UNPACK1_UTIL,
	TP_M_UNPACK_UTIL,
	TP_M_PACK_UTIL,
	/* older seed: RISC issue/stall rates (risc-bound inputs) */
	TP_M_STALL_RATE,
	TP_M_ISSUE_RATE,
	/* older seed: bandwidth estimates */
	TP_M_UNPACK_BPC,
	TP_M_PACK_BPC,
	TP_M_NOC_RING0_TXN,
	TP_M_NOC_RING1_TXN,
	TP_M_NOC_TXN,
	TP_M_NOC_BPC,
	/* tt-metal */
#define TP_M_ENUM(n) TP_M_##n,
	TP_TT_METRICS(TP_M_ENUM)
#undef TP_M_ENUM
	/* older seed: bound scores */
	TP_M_SCORE_MATH,
	TP_M_SCORE_UNPACK,
	TP_M_SCORE_PACK,
	TP_M_SCORE_RISC,
	TP_NR_METRICS
};

struct tp_metric_desc {
	const char *name;	/* CSV name, e.g. "unpack0_write_efficiency" */
	const char *section;	/* heading in the human-readable report */
	const char *label;	/* row label */
	const char *formula;	/* human-readable definition */
	bool fraction;		/* a share of a whole: within [0, 1] by definition */
};

/* Name, section, label, formula of metric @id (enum tp_metric_id) */
const struct tp_metric_desc *tp_metric_desc(int id);

#define TP_MAX_INPUTS	12

#define TP_NAME_LEN	48

struct tp_input {
	char name[TP_NAME_LEN];	/* counter (upper case, seed spelling) or metric name */
	struct tp_val val;
};

struct tp_metric {
	bool valid;		/* false: "n/a" (a division by zero or a missing input) */
	bool scaled;		/* an input was a scaled (multiplexed) value */
	double value;		/* finite whenever valid */
	int nr_inputs;
	struct tp_input in[TP_MAX_INPUTS];
};

enum tp_bound {
	TP_BOUND_NONE = -1,	/* no valid score */
	TP_BOUND_MATH,
	TP_BOUND_UNPACK,
	TP_BOUND_PACK,
	TP_BOUND_RISC,
	TP_NR_BOUNDS
};

/*
 * Bound scores closer than this to the highest are a tie (they print the
 * same to 6 decimals, give or take rounding)
 */
#define TP_BOUND_TIE	1e-6

struct tp_metrics {
	struct tp_metric m[TP_NR_METRICS];
	enum tp_bound bound;
	const struct tp_platform *platform;	/* NULL: unknown, bytes/cycle are n/a */
};

/* "math-bound", "unpack-bound", "pack-bound", "risc-bound" or "n/a" */
const char *tp_bound_name(enum tp_bound b);
/* Metric that holds the score of @b */
enum tp_metric_id tp_bound_score(enum tp_bound b);

/* Compute every metric and the classification of @c. @p may be NULL. */
void tp_metrics_compute(const struct tp_counts *c, const struct tp_platform *p,
			struct tp_metrics *out);

/* A metric value as text: "%.6f" or "n/a"; never inf or nan. Returns @buf. */
char *tp_fmt_metric(char *buf, size_t len, const struct tp_metric *m);
/* A counter/input value: integer when integral, else "%.6f"; "n/a" if invalid. */
char *tp_fmt_val(char *buf, size_t len, struct tp_val v);

#endif /* TENSIX_PERF_METRICS_H */
