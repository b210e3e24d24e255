/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Tenstorrent Tensix performance counter register map and event list.
 *
 * Offsets are relative to a core's RISCV_DEBUG_REGS_START_ADDR (0xFFB12000
 * in the core's local address space). The event list is the newest seed's
 * counter table; it is shared by the PMU driver, the simulator and the
 * userspace tools so that all three agree on names and encodings.
 */
#ifndef _SOCPMU_TENSIX_REGS_H
#define _SOCPMU_TENSIX_REGS_H

/* Per-bank control registers: *0 reference period, *1 mode, *2 start/stop */
#define TENSIX_PERF_CNT_INSTRN_THREAD0	0x000
#define TENSIX_PERF_CNT_TDMA_UNPACK0	0x00c
#define TENSIX_PERF_CNT_FPU0		0x018
#define TENSIX_PERF_CNT_L1_0		0x030
#define TENSIX_PERF_CNT_ALL		0x03c
#define TENSIX_PERF_CNT_TDMA_PACK0	0x0f0

#define TENSIX_REG_REF_PERIOD		0x0	/* offset of *0 from a bank's base */
#define TENSIX_REG_MODE			0x4	/* offset of *1 */
#define TENSIX_REG_START_STOP		0x8	/* offset of *2 */

/* Output registers: OUT_L = reference cycles, OUT_H = selected counter */
#define TENSIX_PERF_CNT_OUT_L_INSTRN_THREAD	0x100
#define TENSIX_PERF_CNT_OUT_L_TDMA_UNPACK	0x108
#define TENSIX_PERF_CNT_OUT_L_TDMA_PACK		0x110
#define TENSIX_PERF_CNT_OUT_L_DBG_L1		0x118
#define TENSIX_PERF_CNT_OUT_L_FPU		0x120
#define TENSIX_REG_OUT_H			0x4	/* OUT_H = OUT_L + 4 */

#define TENSIX_PERF_CNT_MUX_CTRL	0x218
#define TENSIX_REG_SPAN			0x21c	/* bytes used in a core's block */

/* PERF_CNT_*2 and PERF_CNT_ALL bits, both rising-edge triggered */
#define TENSIX_START			0x1
#define TENSIX_STOP			0x2

/* PERF_CNT_*1 fields */
#define TENSIX_MODE_MASK		0xff
#define TENSIX_MODE_CONTINUOUS		0	/* OUT_L counts cycles */
#define TENSIX_MODE_REF_PERIOD		1	/* stops after PERF_CNT_*0 cycles */
#define TENSIX_MODE_NO_REF		2	/* OUT_L not maintained */
#define TENSIX_SEL_SHIFT		8
#define TENSIX_SEL_MASK			0x1ff	/* bit 8 of the select = grant */
#define TENSIX_NR_SEL			512

/* PERF_CNT_MUX_CTRL: L1 mux field (read-modify-write, low bits are not ours) */
#define TENSIX_MUX_SHIFT		4
#define TENSIX_MUX_BITS_WORMHOLE	1
#define TENSIX_MUX_BITS_BLACKHOLE	3
#define TENSIX_L1_IDS_PER_MUX		8

enum tensix_bank {
	TENSIX_BANK_INSTRN_THREAD,
	TENSIX_BANK_FPU,
	TENSIX_BANK_TDMA_UNPACK,
	TENSIX_BANK_L1,
	TENSIX_BANK_TDMA_PACK,
	TENSIX_NR_BANKS,
};

/* Register block of each bank: control base and OUT_L, indexed by enum tensix_bank */
#define TENSIX_BANK_CTRL_BASES { \
	TENSIX_PERF_CNT_INSTRN_THREAD0, TENSIX_PERF_CNT_FPU0, \
	TENSIX_PERF_CNT_TDMA_UNPACK0, TENSIX_PERF_CNT_L1_0, TENSIX_PERF_CNT_TDMA_PACK0 }
#define TENSIX_BANK_OUT_BASES { \
	TENSIX_PERF_CNT_OUT_L_INSTRN_THREAD, TENSIX_PERF_CNT_OUT_L_FPU, \
	TENSIX_PERF_CNT_OUT_L_TDMA_UNPACK, TENSIX_PERF_CNT_OUT_L_DBG_L1, \
	TENSIX_PERF_CNT_OUT_L_TDMA_PACK }
#define TENSIX_BANK_NAMES { \
	"instrn_thread", "fpu", "tdma_unpack", "l1", "tdma_pack" }

/*
 * Every counter of the seed: X(name, bank, counter id, l1 mux).
 * The mux is only meaningful for the L1 bank.
 */
#define TENSIX_THREAD3(X, name, id) \
	X(name##_0, INSTRN_THREAD, (id), 0) \
	X(name##_1, INSTRN_THREAD, (id) + 1, 0) \
	X(name##_2, INSTRN_THREAD, (id) + 2, 0)

#define TENSIX_EVENTS(X) \
	TENSIX_THREAD3(X, cfg_instrn_available, 0) \
	TENSIX_THREAD3(X, sync_instrn_available, 3) \
	TENSIX_THREAD3(X, thcon_instrn_available, 6) \
	TENSIX_THREAD3(X, xsearch_instrn_available, 9) \
	TENSIX_THREAD3(X, move_instrn_available, 12) \
	TENSIX_THREAD3(X, fpu_instrn_available, 15) \
	TENSIX_THREAD3(X, unpack_instrn_available, 18) \
	TENSIX_THREAD3(X, pack_instrn_available, 21) \
	TENSIX_THREAD3(X, thread_stalls, 24) \
	X(waiting_for_srca_clear, INSTRN_THREAD, 27, 0) \
	X(waiting_for_srcb_clear, INSTRN_THREAD, 28, 0) \
	X(waiting_for_srca_valid, INSTRN_THREAD, 29, 0) \
	X(waiting_for_srcb_valid, INSTRN_THREAD, 30, 0) \
	TENSIX_THREAD3(X, waiting_for_thcon_idle, 31) \
	TENSIX_THREAD3(X, waiting_for_unpack_idle, 34) \
	TENSIX_THREAD3(X, waiting_for_pack_idle, 37) \
	TENSIX_THREAD3(X, waiting_for_math_idle, 40) \
	TENSIX_THREAD3(X, waiting_for_nonzero_sem, 43) \
	TENSIX_THREAD3(X, waiting_for_nonfull_sem, 46) \
	TENSIX_THREAD3(X, waiting_for_move_idle, 49) \
	TENSIX_THREAD3(X, waiting_for_mmio_idle, 52) \
	TENSIX_THREAD3(X, waiting_for_sfpu_idle, 55) \
	TENSIX_THREAD3(X, thread_instructions, 256) \
	X(fpu_instruction, FPU, 0, 0) \
	X(sfpu_instruction, FPU, 1, 0) \
	X(fpu_or_sfpu_instrn, FPU, 257, 0) \
	X(data_hazard_stalls_movd2a, TDMA_UNPACK, 1, 0) \
	X(math_instrn_started, TDMA_UNPACK, 3, 0) \
	X(math_instrn_available, TDMA_UNPACK, 4, 0) \
	X(srcb_write_available, TDMA_UNPACK, 5, 0) \
	X(srca_write_available, TDMA_UNPACK, 6, 0) \
	X(unpack0_busy_thread0, TDMA_UNPACK, 7, 0) \
	X(unpack1_busy_thread0, TDMA_UNPACK, 8, 0) \
	X(unpack0_busy_thread1, TDMA_UNPACK, 9, 0) \
	X(unpack1_busy_thread1, TDMA_UNPACK, 10, 0) \
	X(srcb_write, TDMA_UNPACK, 259, 0) \
	X(srca_write, TDMA_UNPACK, 261, 0) \
	X(packer_dest_read_available, TDMA_PACK, 11, 0) \
	X(packer_busy, TDMA_PACK, 18, 0) \
	X(available_math, TDMA_PACK, 272, 0) \
	X(noc_ring0_incoming_1, L1, 0, 0) \
	X(noc_ring0_incoming_0, L1, 1, 0) \
	X(noc_ring0_outgoing_1, L1, 2, 0) \
	X(noc_ring0_outgoing_0, L1, 3, 0) \
	X(l1_arb_tdma_bundle_1, L1, 4, 0) \
	X(l1_arb_tdma_bundle_0, L1, 5, 0) \
	X(l1_arb_unpacker, L1, 6, 0) \
	X(l1_no_arb_unpacker, L1, 7, 0) \
	X(noc_ring1_incoming_1, L1, 0, 1) \
	X(noc_ring1_incoming_0, L1, 1, 1) \
	X(noc_ring1_outgoing_1, L1, 2, 1) \
	X(noc_ring1_outgoing_0, L1, 3, 1) \
	X(tdma_bundle_1_arb, L1, 4, 1) \
	X(tdma_bundle_0_arb, L1, 5, 1) \
	X(tdma_ext_unpack_9_10, L1, 6, 1) \
	X(tdma_packer_2_wr, L1, 7, 1)

#define TENSIX_NR_EVENTS	94	/* 61 + 3 + 11 + 3 + 16 */

/* perf_event_attr encoding of the tensix_<n> PMU */
#define TENSIX_CFG_EVENT_SHIFT	0	/* config:0-8 counter select */
#define TENSIX_CFG_EVENT_MASK	0x1ffULL
#define TENSIX_CFG_BANK_SHIFT	16	/* config:16-18 */
#define TENSIX_CFG_BANK_MASK	0x7ULL
#define TENSIX_CFG_MUX_SHIFT	24	/* config:24-26 */
#define TENSIX_CFG_MUX_MASK	0x7ULL
#define TENSIX_CFG_CYCLES	(1ULL << 31)	/* config:31 reference cycles */
/* config1: core selection, see SOCPMU_CFG1_* in socpmu/core.h */

#endif /* _SOCPMU_TENSIX_REGS_H */
