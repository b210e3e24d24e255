/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * PULP ZERO-RISCY performance counters: CSR numbers, bits and events.
 *
 * Event numbers follow the public RTL (zeroriscy_cs_registers.sv): PCER bit
 * N enables event N, which counts into PCCR N. The seed's PCER table lists an
 * older layout; its PCCR table and the RTL agree with the list below.
 */
#ifndef _SOCPMU_PULP_REGS_H
#define _SOCPMU_PULP_REGS_H

#define PULP_CSR_PCCR0		0x780	/* PCCR0..PCCR31: 0x780..0x79f */
#define PULP_CSR_PCCR_ALL	0x79f	/* PCCR31: a write sets every counter */
#define PULP_CSR_PCER		0x7a0
#define PULP_CSR_PCMR		0x7a1
#define PULP_NR_PCCR		32

/* PCMR bits: the RTL's layout. The seed's table swaps them. */
#define PULP_PCMR_RTL_ENABLE	0x1
#define PULP_PCMR_RTL_SATURATE	0x2
#define PULP_PCMR_SEED_ENABLE	0x2
#define PULP_PCMR_SEED_SATURATE	0x1
#define PULP_PCER_RESET		0x0
#define PULP_PCMR_RESET		0x3

/*
 * Register address of a CSR in the device's regmap: each core's CSRs sit at
 * core * PULP_CORE_STRIDE, a CSR at its number times four.
 */
#define PULP_CORE_STRIDE	0x2000
#define PULP_CSR_REG(core, csr)	((core) * PULP_CORE_STRIDE + (csr) * 4)

/* X(name, event number, description) */
#define PULP_EVENTS(X) \
	X(cycles, 0, "cycles the core was active") \
	X(instr, 1, "instructions executed") \
	X(ld_stall, 2, "load-use hazard stalls") \
	X(jr_stall, 3, "jump-register hazard stalls") \
	X(imiss, 4, "cycles waiting for instruction fetches") \
	X(ld, 5, "data memory loads") \
	X(st, 6, "data memory stores") \
	X(jump, 7, "unconditional jumps") \
	X(branch, 8, "conditional branches") \
	X(btaken, 9, "taken conditional branches") \
	X(rvc, 10, "compressed instructions executed") \
	X(ld_ext, 11, "loads to external memory") \
	X(st_ext, 12, "stores to external memory") \
	X(ld_ext_cyc, 13, "cycles of loads to external memory") \
	X(st_ext_cyc, 14, "cycles of stores to external memory") \
	X(tcdm_cont, 15, "cycles lost to TCDM contention")

#define PULP_NR_EVENTS		16

/* perf_event_attr encoding of the pulp_<n> PMU */
#define PULP_CFG_EVENT_MASK	0x1fULL			/* config:0-4 */
#define PULP_CFG_MASK_SHIFT	8			/* config:8-23 */
#define PULP_CFG_MASK_MASK	0xffffULL
/* config1: core selection, see SOCPMU_CFG1_* in socpmu/core.h */

#endif /* _SOCPMU_PULP_REGS_H */
