/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Tenstorrent Tensix performance counter register map and event list.
 *
 * Offsets are relative to a core's RISCV_DEBUG_REGS_START_ADDR (0xFFB12000
 * in the core's local address space). The event list is the RTL-checked
 * map of each architecture, with the seed's names as aliases; it is shared by the PMU driver, the simulator and the
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

/* Architectures an event table entry applies to */
#define TENSIX_ARCH_WH		0x1	/* Wormhole B0 */
#define TENSIX_ARCH_BH		0x2	/* Blackhole */
#define TENSIX_ARCH_BOTH	0x3	/* a literal, so that tools can paste it */

/* L1 mux groups (values of the PERF_CNT_MUX_CTRL field) wired per arch */
#define TENSIX_L1_GROUPS_WORMHOLE	2
#define TENSIX_L1_GROUPS_BLACKHOLE	5
/* Tensix tiles of a chip: Wormhole 8 x 10, Blackhole 14 x 10 */
#define TENSIX_MAX_CORES_WORMHOLE	80
#define TENSIX_MAX_CORES_BLACKHOLE	140

/*
 * The counters as the RTL wires them: X(name, bank, select, l1 mux, arches).
 * Source: the RTL-checked maps of Tenstorrent's profiler (tt-metal's
 * hw_counters.h for Wormhole B0 and Blackhole). Select 256 + n is the grant
 * variant n. The mux is only meaningful for the L1 bank. Wormhole has 130
 * counters, Blackhole 165.
 */
#define TENSIX_PER_THREAD(X, name, id, arch) \
	X(name##_0, INSTRN_THREAD, (id), 0, arch) \
	X(name##_1, INSTRN_THREAD, (id) + 1, 0, arch) \
	X(name##_2, INSTRN_THREAD, (id) + 2, 0, arch)

/* The nine waiting events of thread @t, from select @base + 9 * @t */
#define TENSIX_WAITING(X, t, base, arch) \
	X(waiting_for_thcon_idle_##t, INSTRN_THREAD, (base) + 9 * (t), 0, arch) \
	X(waiting_for_unpack_idle_##t, INSTRN_THREAD, (base) + 9 * (t) + 1, 0, arch) \
	X(waiting_for_pack_idle_##t, INSTRN_THREAD, (base) + 9 * (t) + 2, 0, arch) \
	X(waiting_for_math_idle_##t, INSTRN_THREAD, (base) + 9 * (t) + 3, 0, arch) \
	X(waiting_for_nonzero_sem_##t, INSTRN_THREAD, (base) + 9 * (t) + 4, 0, arch) \
	X(waiting_for_nonfull_sem_##t, INSTRN_THREAD, (base) + 9 * (t) + 5, 0, arch) \
	X(waiting_for_move_idle_##t, INSTRN_THREAD, (base) + 9 * (t) + 6, 0, arch) \
	X(waiting_for_mmio_idle_##t, INSTRN_THREAD, (base) + 9 * (t) + 7, 0, arch) \
	X(waiting_for_sfpu_idle_##t, INSTRN_THREAD, (base) + 9 * (t) + 8, 0, arch)

#define TENSIX_INSTRN_EVENTS(X) \
	TENSIX_PER_THREAD(X, cfg_instrn_available, 0, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, sync_instrn_available, 3, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, thcon_instrn_available, 6, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, move_instrn_available, 12, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, fpu_instrn_available, 15, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, unpack_instrn_available, 18, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, pack_instrn_available, 21, TENSIX_ARCH_BOTH) \
	TENSIX_PER_THREAD(X, thread_stalls, 24, TENSIX_ARCH_BOTH) \
	X(waiting_for_srca_clear, INSTRN_THREAD, 27, 0, TENSIX_ARCH_BOTH) \
	X(waiting_for_srcb_clear, INSTRN_THREAD, 30, 0, TENSIX_ARCH_WH) \
	X(waiting_for_srca_valid, INSTRN_THREAD, 33, 0, TENSIX_ARCH_WH) \
	X(waiting_for_srcb_valid, INSTRN_THREAD, 36, 0, TENSIX_ARCH_WH) \
	TENSIX_WAITING(X, 0, 39, TENSIX_ARCH_WH) \
	TENSIX_WAITING(X, 1, 39, TENSIX_ARCH_WH) \
	TENSIX_WAITING(X, 2, 39, TENSIX_ARCH_WH) \
	X(waiting_for_srcb_clear, INSTRN_THREAD, 28, 0, TENSIX_ARCH_BH) \
	X(waiting_for_srca_valid, INSTRN_THREAD, 29, 0, TENSIX_ARCH_BH) \
	X(waiting_for_srcb_valid, INSTRN_THREAD, 30, 0, TENSIX_ARCH_BH) \
	TENSIX_WAITING(X, 0, 31, TENSIX_ARCH_BH) \
	TENSIX_WAITING(X, 1, 31, TENSIX_ARCH_BH) \
	TENSIX_WAITING(X, 2, 31, TENSIX_ARCH_BH) \
	X(thread_instructions_0, INSTRN_THREAD, 256, 0, TENSIX_ARCH_BOTH) \
	X(thread_instructions_1, INSTRN_THREAD, 264, 0, TENSIX_ARCH_BOTH) \
	X(thread_instructions_2, INSTRN_THREAD, 272, 0, TENSIX_ARCH_BOTH) \
	X(any_thread_stall, INSTRN_THREAD, 283, 0, TENSIX_ARCH_BOTH)

#define TENSIX_FPU_EVENTS(X) \
	X(fpu_counter, FPU, 0, 0, TENSIX_ARCH_BOTH) \
	X(sfpu_counter, FPU, 1, 0, TENSIX_ARCH_BOTH) \
	X(math_counter, FPU, 257, 0, TENSIX_ARCH_BOTH)

#define TENSIX_UNPACK_EVENTS(X) \
	X(math_src_data_ready, TDMA_UNPACK, 0, 0, TENSIX_ARCH_BOTH) \
	X(data_hazard_stalls_movd2a, TDMA_UNPACK, 1, 0, TENSIX_ARCH_BOTH) \
	X(math_fidelity_stall, TDMA_UNPACK, 2, 0, TENSIX_ARCH_WH) \
	X(math_instrn_started, TDMA_UNPACK, 3, 0, TENSIX_ARCH_BOTH) \
	X(math_instrn_available, TDMA_UNPACK, 4, 0, TENSIX_ARCH_BOTH) \
	X(srcb_write_available, TDMA_UNPACK, 5, 0, TENSIX_ARCH_BOTH) \
	X(srca_write_available, TDMA_UNPACK, 6, 0, TENSIX_ARCH_BOTH) \
	X(unpack0_busy_thread0, TDMA_UNPACK, 7, 0, TENSIX_ARCH_BOTH) \
	X(unpack1_busy_thread0, TDMA_UNPACK, 8, 0, TENSIX_ARCH_BOTH) \
	X(unpack0_busy_thread1, TDMA_UNPACK, 9, 0, TENSIX_ARCH_BOTH) \
	X(unpack1_busy_thread1, TDMA_UNPACK, 10, 0, TENSIX_ARCH_BOTH) \
	X(math_instrn_hf_4_cycle, TDMA_UNPACK, 256, 0, TENSIX_ARCH_WH) \
	X(math_instrn_hf_2_cycle, TDMA_UNPACK, 257, 0, TENSIX_ARCH_WH) \
	X(math_instrn_hf_1_cycle, TDMA_UNPACK, 258, 0, TENSIX_ARCH_WH) \
	X(srcb_write_actual, TDMA_UNPACK, 259, 0, TENSIX_ARCH_BOTH) \
	X(srcb_write_not_blocked_port, TDMA_UNPACK, 260, 0, TENSIX_ARCH_BOTH) \
	X(srca_write_not_blocked_ovr, TDMA_UNPACK, 261, 0, TENSIX_ARCH_BOTH) \
	X(srca_write_actual, TDMA_UNPACK, 262, 0, TENSIX_ARCH_BOTH) \
	X(srca_write_thread0, TDMA_UNPACK, 263, 0, TENSIX_ARCH_BOTH) \
	X(srcb_write_thread0, TDMA_UNPACK, 264, 0, TENSIX_ARCH_BOTH) \
	X(srca_write_thread1, TDMA_UNPACK, 265, 0, TENSIX_ARCH_BOTH) \
	X(srcb_write_thread1, TDMA_UNPACK, 266, 0, TENSIX_ARCH_BOTH)

#define TENSIX_PACK_EVENTS(X) \
	X(packer_dest_read_available, TDMA_PACK, 11, 0, TENSIX_ARCH_BOTH) \
	X(packer_dest_read_1, TDMA_PACK, 12, 0, TENSIX_ARCH_WH) \
	X(packer_dest_read_2, TDMA_PACK, 13, 0, TENSIX_ARCH_WH) \
	X(packer_dest_read_3, TDMA_PACK, 14, 0, TENSIX_ARCH_WH) \
	X(packer_busy_0, TDMA_PACK, 15, 0, TENSIX_ARCH_WH) \
	X(packer_busy_1, TDMA_PACK, 16, 0, TENSIX_ARCH_WH) \
	X(packer_busy_2, TDMA_PACK, 17, 0, TENSIX_ARCH_WH) \
	X(packer_busy, TDMA_PACK, 18, 0, TENSIX_ARCH_BOTH) \
	X(dest_read_granted_0, TDMA_PACK, 267, 0, TENSIX_ARCH_BOTH) \
	X(dest_read_granted_1, TDMA_PACK, 268, 0, TENSIX_ARCH_WH) \
	X(dest_read_granted_2, TDMA_PACK, 269, 0, TENSIX_ARCH_WH) \
	X(dest_read_granted_3, TDMA_PACK, 270, 0, TENSIX_ARCH_WH) \
	X(math_not_stalled_dest_wr_port, TDMA_PACK, 271, 0, TENSIX_ARCH_BOTH) \
	X(available_math, TDMA_PACK, 272, 0, TENSIX_ARCH_BOTH)

/* A request counter n and its grant (256 + n) in L1 mux group m */
#define TENSIX_L1_PAIR(X, name, grant, n, m, arch) \
	X(name, L1, (n), (m), arch) \
	X(grant, L1, 256 + (n), (m), arch)

#define TENSIX_L1_PORTS8(X, prefix, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_0, prefix##_0_grant, 0, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_1, prefix##_1_grant, 1, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_2, prefix##_2_grant, 2, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_3, prefix##_3_grant, 3, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_4, prefix##_4_grant, 4, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_5, prefix##_5_grant, 5, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_6, prefix##_6_grant, 6, m, arch) \
	TENSIX_L1_PAIR(X, prefix##_7, prefix##_7_grant, 7, m, arch)

#define TENSIX_L1_EVENTS(X) \
	TENSIX_L1_PAIR(X, l1_0_unpacker_0, l1_0_unpacker_0_grant, 0, 0, TENSIX_ARCH_BOTH) \
	X(l1_0_unpacker_1_ecc_pack1, L1, 1, 0, TENSIX_ARCH_WH) \
	X(l1_0_unified_packer, L1, 1, 0, TENSIX_ARCH_BH) \
	X(l1_0_port1_grant, L1, 257, 0, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_0_tdma_bundle_0_risc, l1_0_tdma_bundle_0_grant, 2, 0, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_0_tdma_bundle_1_trisc, l1_0_tdma_bundle_1_grant, 3, 0, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_0_noc_ring0_outgoing_0, l1_0_noc_ring0_outgoing_0_grant, 4, 0, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_0_noc_ring0_outgoing_1, l1_0_noc_ring0_outgoing_1_grant, 5, 0, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_0_noc_ring0_incoming_0, l1_0_noc_ring0_incoming_0_grant, 6, 0, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_0_noc_ring0_incoming_1, l1_0_noc_ring0_incoming_1_grant, 7, 0, TENSIX_ARCH_BOTH) \
	X(l1_1_tdma_packer_2, L1, 0, 1, TENSIX_ARCH_WH) \
	X(l1_1_risc_core, L1, 0, 1, TENSIX_ARCH_BH) \
	X(l1_1_port8_grant, L1, 256, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_ext_unpacker_1, l1_1_ext_unpacker_1_grant, 1, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_ext_unpacker_2, l1_1_ext_unpacker_2_grant, 2, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_ext_unpacker_3, l1_1_ext_unpacker_3_grant, 3, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_noc_ring1_outgoing_0, l1_1_noc_ring1_outgoing_0_grant, 4, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_noc_ring1_outgoing_1, l1_1_noc_ring1_outgoing_1_grant, 5, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_noc_ring1_incoming_0, l1_1_noc_ring1_incoming_0_grant, 6, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PAIR(X, l1_1_noc_ring1_incoming_1, l1_1_noc_ring1_incoming_1_grant, 7, 1, TENSIX_ARCH_BOTH) \
	TENSIX_L1_PORTS8(X, l1_2_noc_ring2_port, 2, TENSIX_ARCH_BH) \
	TENSIX_L1_PORTS8(X, l1_3_noc_ring3_port, 3, TENSIX_ARCH_BH) \
	TENSIX_L1_PORTS8(X, l1_4_misc_port, 4, TENSIX_ARCH_BH)

/* Every wired counter, bank by bank */
#define TENSIX_EVENTS(X) \
	TENSIX_INSTRN_EVENTS(X) \
	TENSIX_FPU_EVENTS(X) \
	TENSIX_UNPACK_EVENTS(X) \
	TENSIX_L1_EVENTS(X) \
	TENSIX_PACK_EVENTS(X)

#define TENSIX_NR_EVENTS_WORMHOLE	130
#define TENSIX_NR_EVENTS_BLACKHOLE	165

/*
 * The seed's names that the RTL map calls otherwise, as aliases of the
 * same signal: X(seed name, bank, select, l1 mux, arches). The seed's other
 * names are the RTL's (with the RTL's select); its xsearch_instrn_available
 * events have no wired signal and are not offered. The seed lists each L1
 * mux group in the reverse order (its id k is the RTL's id 7 - k); where the
 * RTL puts another port there on Blackhole, the alias is Wormhole's only.
 */
#define TENSIX_SEED_ALIASES(X) \
	X(fpu_instruction, FPU, 0, 0, TENSIX_ARCH_BOTH) \
	X(sfpu_instruction, FPU, 1, 0, TENSIX_ARCH_BOTH) \
	X(fpu_or_sfpu_instrn, FPU, 257, 0, TENSIX_ARCH_BOTH) \
	X(srcb_write, TDMA_UNPACK, 259, 0, TENSIX_ARCH_BOTH) \
	X(srca_write, TDMA_UNPACK, 262, 0, TENSIX_ARCH_BOTH) \
	X(noc_ring0_incoming_1, L1, 7, 0, TENSIX_ARCH_BOTH) \
	X(noc_ring0_incoming_0, L1, 6, 0, TENSIX_ARCH_BOTH) \
	X(noc_ring0_outgoing_1, L1, 5, 0, TENSIX_ARCH_BOTH) \
	X(noc_ring0_outgoing_0, L1, 4, 0, TENSIX_ARCH_BOTH) \
	X(l1_arb_tdma_bundle_1, L1, 3, 0, TENSIX_ARCH_BOTH) \
	X(l1_arb_tdma_bundle_0, L1, 2, 0, TENSIX_ARCH_BOTH) \
	X(l1_arb_unpacker, L1, 1, 0, TENSIX_ARCH_WH) \
	X(l1_no_arb_unpacker, L1, 0, 0, TENSIX_ARCH_BOTH) \
	X(noc_ring1_incoming_1, L1, 7, 1, TENSIX_ARCH_BOTH) \
	X(noc_ring1_incoming_0, L1, 6, 1, TENSIX_ARCH_BOTH) \
	X(noc_ring1_outgoing_1, L1, 5, 1, TENSIX_ARCH_BOTH) \
	X(noc_ring1_outgoing_0, L1, 4, 1, TENSIX_ARCH_BOTH) \
	X(tdma_bundle_1_arb, L1, 3, 1, TENSIX_ARCH_BOTH) \
	X(tdma_bundle_0_arb, L1, 2, 1, TENSIX_ARCH_BOTH) \
	X(tdma_ext_unpack_9_10, L1, 1, 1, TENSIX_ARCH_BOTH) \
	X(tdma_packer_2_wr, L1, 0, 1, TENSIX_ARCH_WH)

/* perf_event_attr encoding of the tensix_<n> PMU */
#define TENSIX_CFG_EVENT_SHIFT	0	/* config:0-8 counter select: */
#define TENSIX_SEL_GRANT	0x100u	/* "event" config:0-7, "grant" config:8 */
#define TENSIX_CFG_EVENT_MASK	0x1ffULL
#define TENSIX_CFG_BANK_SHIFT	16	/* config:16-18 */
#define TENSIX_CFG_BANK_MASK	0x7ULL
#define TENSIX_CFG_MUX_SHIFT	24	/* config:24-26 */
#define TENSIX_CFG_MUX_MASK	0x7ULL
#define TENSIX_CFG_CYCLES	(1ULL << 31)	/* config:31 reference cycles */
/* config1: core selection, see SOCPMU_CFG1_* in socpmu/core.h */

#endif /* _SOCPMU_TENSIX_REGS_H */
