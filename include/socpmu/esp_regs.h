/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ESP tile performance monitors: register layout, monitor indices, tile
 * types and the event list.
 *
 * Shared by the PMU driver (drivers/perf/esp_pmu.c), the simulator model
 * (drivers/sim/sim_esp.c) and the userspace library (tools/libespmon), so
 * that all three agree on names, indices and where each event is defined.
 * Plain C, usable from the kernel and from userspace.
 *
 * Each tile of an ESP SoC has a 0x200-byte block of monitor registers at
 * base + tile * 0x200 (tile = row * cols + col; base 0x60090000 on the
 * RISC-V SoCs):
 *  - word 0 is the burst/snapshot register: writing 1 copies every monitor
 *    of the tile into a shadow set and reads return the shadow while it
 *    stays 1; writing 0 returns to live reads;
 *  - words 1..59 are monitors 0..58, free-running 32-bit counters that
 *    cannot be reset and have no overflow interrupt. Monitors 14/15 and
 *    16/17 are the low/high halves of 64-bit counts.
 * All 59 monitors exist in every tile, but each is only defined for some
 * tile types; the others always read 0.
 */
#ifndef _SOCPMU_ESP_REGS_H
#define _SOCPMU_ESP_REGS_H

#define ESP_MON_BASE_RISCV	0x60090000
#define ESP_TILE_STRIDE		0x200
#define ESP_REG_BURST		0x0		/* word 0: burst/snapshot */
#define ESP_BURST_SNAPSHOT	0x1
#define ESP_NR_MONITORS		59
#define ESP_REG_MON(m)		(4 * ((m) + 1))	/* word m + 1 */
#define ESP_TILE_SPAN		ESP_REG_MON(ESP_NR_MONITORS)	/* bytes used */

/* Monitor indices (the seed's section 1, ESP's MON_*_INDEX) */
#define ESP_MON_DDR_ACCESSES	0
#define ESP_MON_COH_REQ		1
#define ESP_MON_COH_FWD		2
#define ESP_MON_COH_RSP_RCV	3
#define ESP_MON_COH_RSP_SND	4
#define ESP_MON_DMA_REQ		5
#define ESP_MON_DMA_RSP		6
#define ESP_MON_COH_DMA_REQ	7
#define ESP_MON_COH_DMA_RSP	8
#define ESP_MON_L2_HIT		9
#define ESP_MON_L2_MISS		10
#define ESP_MON_LLC_HIT		11
#define ESP_MON_LLC_MISS	12
#define ESP_MON_ACC_TLB		13
#define ESP_MON_ACC_MEM_LO	14
#define ESP_MON_ACC_MEM_HI	15
#define ESP_MON_ACC_TOT_LO	16
#define ESP_MON_ACC_TOT_HI	17
#define ESP_MON_ACC_INVOCATIONS	18
#define ESP_MON_DVFS_BASE	19
#define ESP_DVFS_OP_POINTS	4
#define ESP_MON_DVFS_OP(op)	(ESP_MON_DVFS_BASE + (op))
#define ESP_MON_NOC_INJECT_BASE	23
#define ESP_NOC_PLANES		6
#define ESP_MON_NOC_INJECT(p)	(ESP_MON_NOC_INJECT_BASE + (p))
#define ESP_MON_NOC_QFULL_BASE	29

/*
 * NoC queue-full (backpressure) monitors: 29 + plane * 5 + queue, queues in
 * the router's port order North, South, West, East, Local (the RTL; the
 * seed's prose lists the directions the other way round).
 */
enum esp_noc_queue {
	ESP_NOC_QUEUE_N,
	ESP_NOC_QUEUE_S,
	ESP_NOC_QUEUE_W,
	ESP_NOC_QUEUE_E,
	ESP_NOC_QUEUE_L,
	ESP_NOC_QUEUES,
};

#define ESP_MON_NOC_QFULL(p, q)	(ESP_MON_NOC_QFULL_BASE + (p) * ESP_NOC_QUEUES + (q))

/* Tile types, as named in the device tree and in sysfs */
enum esp_tile_type {
	ESP_TILE_CPU,
	ESP_TILE_MEM,
	ESP_TILE_ACC,
	ESP_TILE_IO,
	ESP_TILE_EMPTY,
	ESP_NR_TILE_TYPES,
};

#define ESP_TILE_TYPE_NAMES { "cpu", "mem", "acc", "io", "empty" }

/* Sets of tile types where an event is defined */
#define ESP_T_CPU		(1u << ESP_TILE_CPU)
#define ESP_T_MEM		(1u << ESP_TILE_MEM)
#define ESP_T_ACC		(1u << ESP_TILE_ACC)
#define ESP_T_IO		(1u << ESP_TILE_IO)
#define ESP_T_EMPTY		(1u << ESP_TILE_EMPTY)
/* The NoC monitors: every tile has a router, empty tiles included */
#define ESP_T_ALL		(ESP_T_CPU | ESP_T_MEM | ESP_T_ACC | ESP_T_IO | ESP_T_EMPTY)

/*
 * Every event: X(name, first monitor, tile types where defined, 64-bit).
 * A 64-bit event is the pair (monitor, monitor + 1) = (low, high) half.
 * DVFS monitors need DVFS emulation, L2/LLC ones the cache hierarchy: a
 * tile type lists them when the SoC may have them.
 */
#define ESP_NOC_QFULL_EVENTS(X, p) \
	X(noc_queue_full_p##p##_n, ESP_MON_NOC_QFULL(p, ESP_NOC_QUEUE_N), ESP_T_ALL, 0) \
	X(noc_queue_full_p##p##_s, ESP_MON_NOC_QFULL(p, ESP_NOC_QUEUE_S), ESP_T_ALL, 0) \
	X(noc_queue_full_p##p##_w, ESP_MON_NOC_QFULL(p, ESP_NOC_QUEUE_W), ESP_T_ALL, 0) \
	X(noc_queue_full_p##p##_e, ESP_MON_NOC_QFULL(p, ESP_NOC_QUEUE_E), ESP_T_ALL, 0) \
	X(noc_queue_full_p##p##_l, ESP_MON_NOC_QFULL(p, ESP_NOC_QUEUE_L), ESP_T_ALL, 0)

#define ESP_EVENTS(X) \
	X(ddr_accesses, ESP_MON_DDR_ACCESSES, ESP_T_MEM, 0) \
	X(coh_req, ESP_MON_COH_REQ, ESP_T_MEM, 0) \
	X(coh_fwd, ESP_MON_COH_FWD, ESP_T_MEM, 0) \
	X(coh_rsp_rcv, ESP_MON_COH_RSP_RCV, ESP_T_MEM, 0) \
	X(coh_rsp_snd, ESP_MON_COH_RSP_SND, ESP_T_MEM, 0) \
	X(dma_req, ESP_MON_DMA_REQ, ESP_T_MEM, 0) \
	X(dma_rsp, ESP_MON_DMA_RSP, ESP_T_MEM, 0) \
	X(coh_dma_req, ESP_MON_COH_DMA_REQ, ESP_T_MEM, 0) \
	X(coh_dma_rsp, ESP_MON_COH_DMA_RSP, ESP_T_MEM, 0) \
	X(l2_hit, ESP_MON_L2_HIT, ESP_T_CPU, 0) \
	X(l2_miss, ESP_MON_L2_MISS, ESP_T_CPU, 0) \
	X(llc_hit, ESP_MON_LLC_HIT, ESP_T_MEM, 0) \
	X(llc_miss, ESP_MON_LLC_MISS, ESP_T_MEM, 0) \
	X(acc_tlb_cycles, ESP_MON_ACC_TLB, ESP_T_ACC, 0) \
	X(acc_mem_cycles, ESP_MON_ACC_MEM_LO, ESP_T_ACC, 1) \
	X(acc_tot_cycles, ESP_MON_ACC_TOT_LO, ESP_T_ACC, 1) \
	X(acc_invocations, ESP_MON_ACC_INVOCATIONS, ESP_T_ACC, 0) \
	X(dvfs_op0, ESP_MON_DVFS_OP(0), ESP_T_CPU | ESP_T_ACC, 0) \
	X(dvfs_op1, ESP_MON_DVFS_OP(1), ESP_T_CPU | ESP_T_ACC, 0) \
	X(dvfs_op2, ESP_MON_DVFS_OP(2), ESP_T_CPU | ESP_T_ACC, 0) \
	X(dvfs_op3, ESP_MON_DVFS_OP(3), ESP_T_CPU | ESP_T_ACC, 0) \
	X(noc_inject_p0, ESP_MON_NOC_INJECT(0), ESP_T_ALL, 0) \
	X(noc_inject_p1, ESP_MON_NOC_INJECT(1), ESP_T_ALL, 0) \
	X(noc_inject_p2, ESP_MON_NOC_INJECT(2), ESP_T_ALL, 0) \
	X(noc_inject_p3, ESP_MON_NOC_INJECT(3), ESP_T_ALL, 0) \
	X(noc_inject_p4, ESP_MON_NOC_INJECT(4), ESP_T_ALL, 0) \
	X(noc_inject_p5, ESP_MON_NOC_INJECT(5), ESP_T_ALL, 0) \
	ESP_NOC_QFULL_EVENTS(X, 0) \
	ESP_NOC_QFULL_EVENTS(X, 1) \
	ESP_NOC_QFULL_EVENTS(X, 2) \
	ESP_NOC_QFULL_EVENTS(X, 3) \
	ESP_NOC_QFULL_EVENTS(X, 4) \
	ESP_NOC_QFULL_EVENTS(X, 5)

#define ESP_NR_EVENTS		57	/* 17 + 4 DVFS + 6 injects + 30 queues */

/* perf_event_attr encoding of the esp_<n> PMU: config = first monitor */
#define ESP_CFG_EVENT_MASK	0xffULL		/* config:0-7 */
/* config1: tile selection (tile, bytile), see SOCPMU_CFG1_* in socpmu/core.h */

#endif /* _SOCPMU_ESP_REGS_H */
