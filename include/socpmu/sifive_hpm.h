/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * SiFive HPM counters: the event encoding of the sifive_hpm PMU (OpenSBI
 * PMU event types), the U74 event selectors and, for the kernel, the ops
 * table between the driver and its backend (SBI PMU ecalls on RISC-V, the
 * simulator elsewhere).
 *
 * The first part is plain C so that userspace (the selftests) can use it.
 */
#ifndef _SOCPMU_SIFIVE_HPM_H
#define _SOCPMU_SIFIVE_HPM_H

/*
 * perf_event_attr encoding of sifive_hpm (the SBI PMU event_idx layout):
 *   config:0-15   code     type 0: general event code (SIFIVE_HPM_GEN_*)
 *                          type 1: cache_id:3-15, op_id:1-2, result_id:0
 *                          type 2: must be 0
 *   config:16-19  type     0 general, 1 cache, 2 raw
 *   config1:0-63  event_data, type 2 only: the mhpmevent value
 * Every other bit is reserved and must be 0.
 */
#define SIFIVE_HPM_CFG_CODE_MASK	0xffffULL
#define SIFIVE_HPM_CFG_TYPE_SHIFT	16
#define SIFIVE_HPM_CFG_TYPE_MASK	0xfULL
#define SIFIVE_HPM_CFG_VALID		0xfffffULL	/* config:0-19 */

#define SIFIVE_HPM_TYPE_GENERAL		0
#define SIFIVE_HPM_TYPE_CACHE		1
#define SIFIVE_HPM_TYPE_RAW		2

/* SBI event_idx: type << 16 | code */
#define SIFIVE_HPM_EVENT_IDX(type, code) \
	((unsigned long)(type) << SIFIVE_HPM_CFG_TYPE_SHIFT | (code))

/* General event codes (SBI PMU extension) */
#define SIFIVE_HPM_GEN_CPU_CYCLES		1
#define SIFIVE_HPM_GEN_INSTRUCTIONS		2
#define SIFIVE_HPM_GEN_CACHE_REFERENCES		3
#define SIFIVE_HPM_GEN_CACHE_MISSES		4
#define SIFIVE_HPM_GEN_BRANCH_INSTRUCTIONS	5
#define SIFIVE_HPM_GEN_BRANCH_MISSES		6
#define SIFIVE_HPM_GEN_BUS_CYCLES		7
#define SIFIVE_HPM_GEN_STALLED_CYCLES_FRONTEND	8
#define SIFIVE_HPM_GEN_STALLED_CYCLES_BACKEND	9
#define SIFIVE_HPM_GEN_REF_CPU_CYCLES		10
#define SIFIVE_HPM_GEN_MAX			11
/*
 * socpmu extension: the time CSR (counter 1). SBI has no event for it and
 * OpenSBI does not map counter 1: the backend reads the CSR for the driver,
 * and any number of events can count it at once.
 */
#define SIFIVE_HPM_GEN_TIME			0x8000

/* Cache event code: cache_id << 3 | op_id << 1 | result_id (SBI) */
#define SIFIVE_HPM_CACHE_CODE(id, op, res)	((id) << 3 | (op) << 1 | (res))
#define SIFIVE_HPM_CACHE_L1D		0
#define SIFIVE_HPM_CACHE_L1I		1
#define SIFIVE_HPM_CACHE_LL		2
#define SIFIVE_HPM_CACHE_DTLB		3
#define SIFIVE_HPM_CACHE_ITLB		4
#define SIFIVE_HPM_CACHE_BPU		5
#define SIFIVE_HPM_CACHE_NODE		6
#define SIFIVE_HPM_CACHE_NR_IDS		7
#define SIFIVE_HPM_OP_READ		0
#define SIFIVE_HPM_OP_WRITE		1
#define SIFIVE_HPM_OP_PREFETCH		2
#define SIFIVE_HPM_NR_OPS		3
#define SIFIVE_HPM_RESULT_ACCESS	0
#define SIFIVE_HPM_RESULT_MISS		1
#define SIFIVE_HPM_NR_RESULTS		2
#define SIFIVE_HPM_CACHE_NR_CODES	(SIFIVE_HPM_CACHE_NR_IDS << 3)

/* Counters: 0 cycle, 1 time, 2 instret (fixed), 3.. hpmcounter3.. */
#define SIFIVE_HPM_CTR_CYCLE		0
#define SIFIVE_HPM_CTR_TIME		1
#define SIFIVE_HPM_CTR_INSTRET		2
#define SIFIVE_HPM_CTR_HPM0		3
#define SIFIVE_HPM_MAX_COUNTERS		32
#define SIFIVE_HPM_MAX_PROGRAMMABLE	29
#define SIFIVE_HPM_CSR_CYCLE		0xc00	/* counter n is CSR 0xc00 + n */

/* SBI counter_info: CSR number in 0-11, width - 1 in 12-17, type in XLEN-1 */
#define SIFIVE_HPM_INFO_CSR(info)	((info) & 0xfff)
#define SIFIVE_HPM_INFO_WIDTH(info)	((((info) >> 12) & 0x3f) + 1)
#define SIFIVE_HPM_INFO(csr, width)	((unsigned long)(csr) | ((unsigned long)(width) - 1) << 12)

/*
 * U74 mhpmevent: event class in bits 7:0, a mask of the class's events
 * above it. A counter counts when any selected event of its class occurs
 * (the events are ORed: one increment per cycle at most).
 */
#define SIFIVE_U74_CLASS_MASK		0xffULL
#define SIFIVE_U74_NR_CLASSES		3
#define SIFIVE_U74_CLASS0_EVENTS	0x3ffff00ULL	/* bits 8-25 */
#define SIFIVE_U74_CLASS1_EVENTS	0x007ff00ULL	/* bits 8-18 */
#define SIFIVE_U74_CLASS2_EVENTS	0x0003f00ULL	/* bits 8-13 */

/*
 * X(name, mhpmevent, description): the U74 events, named as in perf's
 * tools/perf/pmu-events/arch/riscv/sifive/u74/ (lower case).
 */
#define SIFIVE_U74_EVENTS(X) \
	X(exception_taken,			0x0000100, "Exception taken") \
	X(integer_load_retired,			0x0000200, "Integer load instruction retired") \
	X(integer_store_retired,		0x0000400, "Integer store instruction retired") \
	X(atomic_memory_retired,		0x0000800, "Atomic memory operation retired") \
	X(system_instruction_retired,		0x0001000, "System instruction retired") \
	X(integer_arithmetic_retired,		0x0002000, "Integer arithmetic instruction retired") \
	X(conditional_branch_retired,		0x0004000, "Conditional branch retired") \
	X(jal_instruction_retired,		0x0008000, "JAL instruction retired") \
	X(jalr_instruction_retired,		0x0010000, "JALR instruction retired") \
	X(integer_multiplication_retired,	0x0020000, "Integer multiplication instruction retired") \
	X(integer_division_retired,		0x0040000, "Integer division instruction retired") \
	X(fp_load_retired,			0x0080000, "Floating-point load instruction retired") \
	X(fp_store_retired,			0x0100000, "Floating-point store instruction retired") \
	X(fp_addition_retired,			0x0200000, "Floating-point addition retired") \
	X(fp_multiplication_retired,		0x0400000, "Floating-point multiplication retired") \
	X(fp_fusedmadd_retired,			0x0800000, "Floating-point fused multiply-add retired") \
	X(fp_div_sqrt_retired,			0x1000000, "Floating-point division or square-root retired") \
	X(other_fp_retired,			0x2000000, "Other floating-point instruction retired") \
	X(addressgen_interlock,			0x0000101, "Address-generation interlock") \
	X(longlat_interlock,			0x0000201, "Long-latency interlock") \
	X(csr_read_interlock,			0x0000401, "CSR read interlock") \
	X(icache_itim_busy,			0x0000801, "Instruction cache/ITIM busy") \
	X(dcache_dtim_busy,			0x0001001, "Data cache/DTIM busy") \
	X(branch_direction_misprediction,	0x0002001, "Branch direction misprediction") \
	X(branch_target_misprediction,		0x0004001, "Branch/jump target misprediction") \
	X(pipe_flush_csr_write,			0x0008001, "Pipeline flush from CSR write") \
	X(pipe_flush_other_event,		0x0010001, "Pipeline flush from other event") \
	X(integer_multiplication_interlock,	0x0020001, "Integer multiplication interlock") \
	X(fp_interlock,				0x0040001, "Floating-point interlock") \
	X(icache_retired,			0x0000102, "Instruction cache miss") \
	X(dcache_miss_mmio_accesses,		0x0000202, "Data cache miss or memory-mapped I/O access") \
	X(dcache_writeback,			0x0000402, "Data cache write-back") \
	X(inst_tlb_miss,			0x0000802, "Instruction TLB miss") \
	X(data_tlb_miss,			0x0001002, "Data TLB miss") \
	X(utlb_miss,				0x0002002, "UTLB miss")

#define SIFIVE_U74_NR_EVENTS		35

/* Shorter names for the two cache misses (the JSON's are historical) */
#define SIFIVE_U74_ALIASES(X) \
	X(icache_miss,				0x0000102, "Instruction cache miss") \
	X(dcache_miss,				0x0000202, "Data cache miss or memory-mapped I/O access")

/* Is @ev a selector the U74 implements: a known class and a non-empty mask of its events? */
static inline int sifive_u74_event_valid(unsigned long long ev)
{
	static const unsigned long long valid[SIFIVE_U74_NR_CLASSES] = {
		SIFIVE_U74_CLASS0_EVENTS, SIFIVE_U74_CLASS1_EVENTS, SIFIVE_U74_CLASS2_EVENTS,
	};
	unsigned long long cls = ev & SIFIVE_U74_CLASS_MASK, mask = ev & ~SIFIVE_U74_CLASS_MASK;

	return cls < SIFIVE_U74_NR_CLASSES && mask && !(mask & ~valid[cls]);
}

#ifdef __KERNEL__
#include <linux/types.h>

/* Flags of config_matching, start and stop: the SBI PMU values */
#define SIFIVE_HPM_CFG_FLAG_SKIP_MATCH		0x01
#define SIFIVE_HPM_CFG_FLAG_CLEAR_VALUE		0x02
#define SIFIVE_HPM_CFG_FLAG_AUTO_START		0x04
#define SIFIVE_HPM_CFG_FLAG_SET_VUINH		0x08
#define SIFIVE_HPM_CFG_FLAG_SET_VSINH		0x10
#define SIFIVE_HPM_CFG_FLAG_SET_UINH		0x20
#define SIFIVE_HPM_CFG_FLAG_SET_SINH		0x40
#define SIFIVE_HPM_CFG_FLAG_SET_MINH		0x80
#define SIFIVE_HPM_START_FLAG_SET_INIT_VALUE	0x01
#define SIFIVE_HPM_STOP_FLAG_RESET		0x01

/**
 * struct sifive_hpm_ops - the counters of the calling hart, as the SBI PMU
 * extension presents them
 * @num_counters: number of counters (the same on every hart)
 * @counter_info: SBI counter_info of counter @idx (SIFIVE_HPM_INFO()); 0
 *	for a counter the firmware does not map (OpenSBI: counter 1, time)
 * @config_matching: find a counter among @cbase + the bits of @cmask that
 *	is free and can count @event_idx/@event_data, configure it and
 *	return its index, as OpenSBI's sbi_pmu_ctr_cfg_match(): cycles and
 *	instructions get their fixed counter whenever no programmable one
 *	fits (without Sscofpmf: always), whatever @cmask and whoever else
 *	uses it; the fixed counters are never exclusive. With
 *	SIFIVE_HPM_CFG_FLAG_SKIP_MATCH, use the first counter of the set
 *	without matching (and without the mode filter); it fails unless that
 *	counter is configured. Returns the index, -EOPNOTSUPP when no counter
 *	of the set can take the event now, or -EINVAL for bad arguments.
 * @start: start the counters of @cbase/@cmask, first setting them to @ival
 *	with SIFIVE_HPM_START_FLAG_SET_INIT_VALUE; clears their overflow flag.
 *	-EALREADY, without writing @ival, for a counter that already runs.
 * @stop: stop the counters (-EALREADY if stopped); SIFIVE_HPM_STOP_FLAG_RESET
 *	also releases them
 * @read: current value of counter @idx (the hpmcounter CSR; for
 *	SIFIVE_HPM_CTR_TIME the time CSR)
 * @read_overflow: optional (Sscofpmf): the overflow flags of the counters
 *	(scountovf; the fixed counters have none)
 * @set_overflow_handler: optional (Sscofpmf): call @fn(@data) on a hart,
 *	in hard interrupt context, when one of its counters sets its overflow
 *	flag (the local counter overflow interrupt). @fn NULL unregisters and
 *	waits for running calls. Returns 0 or a negative errno.
 *
 * Except @num_counters, @counter_info and @set_overflow_handler, every op
 * acts on the hart it is called on and is called with interrupts off: the
 * ops must not sleep.
 */
struct sifive_hpm_ops {
	unsigned int (*num_counters)(void *ctx);
	unsigned long (*counter_info)(void *ctx, unsigned int idx);
	long (*config_matching)(void *ctx, unsigned long cbase, unsigned long cmask,
				unsigned long flags, unsigned long event_idx, u64 event_data);
	int (*start)(void *ctx, unsigned long cbase, unsigned long cmask,
		     unsigned long flags, u64 ival);
	int (*stop)(void *ctx, unsigned long cbase, unsigned long cmask,
		    unsigned long flags);
	u64 (*read)(void *ctx, unsigned int idx);
	unsigned long (*read_overflow)(void *ctx);
	int (*set_overflow_handler)(void *ctx, void (*fn)(void *data), void *data);
};

/**
 * struct sifive_hpm_platform_data - a backend other than SBI (the simulator)
 * @ops: the backend
 * @ctx: first argument of every op
 *
 * Device properties: "sifive,num-harts" (harts are CPUs 0..n-1; default:
 * every possible CPU), "clock-frequency" (the hart clock, for the period of
 * the poll that extends the counters to 64 bits).
 */
struct sifive_hpm_platform_data {
	const struct sifive_hpm_ops *ops;
	void *ctx;
};

#endif /* __KERNEL__ */

#endif /* _SOCPMU_SIFIVE_HPM_H */
