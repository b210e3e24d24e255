// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu simulator: Tenstorrent Tensix performance counter model.
 *
 * Core c has the register block of include/socpmu/tensix_regs.h at
 * c * 0x1000, with five counter banks. Per bank:
 *  - PERF_CNT_*0 (reference period), *1 (mode 7:0, select 16:8) and *2
 *    (start/stop) read back what was last written.
 *  - *2 is rising-edge triggered against the last value written: bit 0
 *    starts the bank (zeroes its cycles and all its counters, latches the
 *    mode and the L1 mux field of PERF_CNT_MUX_CTRL), bit 1 stops it (counts
 *    freeze and stay readable). PERF_CNT_ALL does the same for INSTRN_THREAD
 *    and FPU together, with its own edge memory.
 *  - Every counter of a bank counts at once; the select is only the output
 *    mux of OUT_H. The counters are wired per architecture as the RTL map
 *    of include/socpmu/tensix_regs.h says (TENSIX_EVENTS): activity on a
 *    select that the arch does not wire is lost and the select reads 0.
 *    OUT_L shows the reference cycles. Counts are 64 bits inside and wrap
 *    at 32 bits on read.
 *  - Mode 0 counts cycles until stopped; mode 1 stops by itself when the
 *    cycles reach PERF_CNT_*0; mode 2 does not count cycles (OUT_L stays 0).
 *    Other modes behave as mode 0.
 *  - L1 has 8 counter ids and their grants (256 + id): signal s (256 + s
 *    for a grant) counts into id s % 8 if s / 8 equals the mux latched at
 *    start. Wormhole wires mux groups 0-1 (1 mux bit), Blackhole 0-4 (3
 *    bits; values 5-7 select nothing).
 * Only running banks count. Activity comes from debugfs: "inject" and
 * "advance" (deterministic) or "workload" (wall-clock driven). A model
 * whose clock is gated (tensix_sim_set_gated(), the ttcard model's power
 * state) counts nothing: injected activity, advanced cycles and the
 * workload's cycles are lost while it is. tensix_sim_reset() plays a chip
 * reset: every register back to 0, every bank stopped and zeroed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": tensix: " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/units.h>

#include <socpmu/tensix_regs.h>

#include "sim.h"

#define TENSIX_SIM_CORE_STRIDE	0x1000
#define TENSIX_SIM_MAX_CORES	64
#define TENSIX_SIM_MAX_MHZ	100000
#define TENSIX_SIM_RATE_ONE	100000	/* workload rate of one event per cycle */

static const u16 tensix_ctrl_base[] = TENSIX_BANK_CTRL_BASES;
static const u16 tensix_out_base[] = TENSIX_BANK_OUT_BASES;
static const char *const tensix_bank_names[] = TENSIX_BANK_NAMES;

static const char *const tensix_sim_archs[] = { "wormhole", "blackhole" };
static const u8 tensix_sim_mux_bits[] = { TENSIX_MUX_BITS_WORMHOLE, TENSIX_MUX_BITS_BLACKHOLE };
static const u8 tensix_sim_l1_groups[] = {
	TENSIX_L1_GROUPS_WORMHOLE, TENSIX_L1_GROUPS_BLACKHOLE
};

/* Bank, select and architectures of every wired counter (L1 aside) */
static const struct {
	u8 bank;
	u16 sel;
	u8 arch;
} tensix_sim_wiring[] = {
#define TENSIX_SIM_WIRE(name, b, id, m, a) { TENSIX_BANK_##b, (id), (a) },
	TENSIX_EVENTS(TENSIX_SIM_WIRE)
#undef TENSIX_SIM_WIRE
};

/* Units of the matmul workload, each busy for a duty cycle in percent */
enum { WL_FPU, WL_UNPACK, WL_PACK, WL_NR_UNITS };
static const char *const tensix_sim_units[] = { "fpu", "unpack", "pack" };

/**
 * struct tensix_sim_wl_event - one event of the matmul workload
 * @bank: enum tensix_bank
 * @unit: WL_* unit whose duty cycle drives the event
 * @id: counter id, or signal (mux * 8 + id) for L1
 * @permille: events per busy cycle of @unit, in 1/1000; the resulting rate
 *	is capped at one event per cycle
 * @arch: TENSIX_ARCH_* the select applies to
 */
struct tensix_sim_wl_event {
	u8 bank;
	u8 unit;
	u16 id;
	u16 permille;
	u8 arch;
};

#define WLA(b, i, u, pm, a) { TENSIX_BANK_##b, WL_##u, i, pm, a }
#define WL(b, i, u, pm) WLA(b, i, u, pm, TENSIX_ARCH_BOTH)

/*
 * The matmul workload: rate per cycle = duty(unit) * permille / 1000.
 * E.g. with fpu=80: fpu_instruction counts 0.8 per cycle, sfpu_instruction
 * 0.08, fpu_instrn_available_1 0.84, so that the seed's efficiency metrics
 * come out as: FPU 0.95, unpacker write 0.8, unpacker data flow 0.9, packer
 * 0.9, math pipeline 0.95, math-to-pack 0.85.
 */
static const struct tensix_sim_wl_event tensix_sim_wl[] = {
	WL(INSTRN_THREAD,  16, FPU,    1050),	/* fpu_instrn_available_1 */
	WL(INSTRN_THREAD,  18, UNPACK, 1050),	/* unpack_instrn_available_0 */
	WL(INSTRN_THREAD,  23, PACK,   1050),	/* pack_instrn_available_2 */
	WL(INSTRN_THREAD, 256, UNPACK,  250),	/* thread_instructions_0 */
	WL(INSTRN_THREAD, 264, FPU,     250),	/* thread_instructions_1 */
	WL(INSTRN_THREAD, 272, PACK,    250),	/* thread_instructions_2 */
	WL(FPU,             0, FPU,    1000),	/* fpu_instruction */
	WL(FPU,             1, FPU,     100),	/* sfpu_instruction */
	WL(FPU,           257, FPU,    1000),	/* fpu_or_sfpu_instrn */
	WL(TDMA_UNPACK,     3, FPU,    1000),	/* math_instrn_started */
	WL(TDMA_UNPACK,     4, FPU,    1050),	/* math_instrn_available */
	WL(TDMA_UNPACK,     5, UNPACK,  900),	/* srcb_write_available */
	WL(TDMA_UNPACK,     6, UNPACK,  900),	/* srca_write_available */
	WL(TDMA_UNPACK,     7, UNPACK, 1000),	/* unpack0_busy_thread0 */
	WL(TDMA_UNPACK,     8, UNPACK, 1000),	/* unpack1_busy_thread0 */
	WL(TDMA_UNPACK,   259, UNPACK,  800),	/* srcb_write */
	WL(TDMA_UNPACK,   262, UNPACK,  800),	/* srca_write (srca_write_actual) */
	WL(TDMA_PACK,      11, PACK,    900),	/* packer_dest_read_available */
	WL(TDMA_PACK,      18, PACK,   1000),	/* packer_busy */
	WL(TDMA_PACK,     272, PACK,    850),	/* available_math */
	WL(L1,              7, UNPACK,  200),	/* noc_ring0_incoming_1 */
	WL(L1,              6, UNPACK,  200),	/* noc_ring0_incoming_0 */
	WL(L1,              5, PACK,    150),	/* noc_ring0_outgoing_1 */
	WL(L1,              4, PACK,    150),	/* noc_ring0_outgoing_0 */
	WL(L1,              3, UNPACK,  100),	/* l1_arb_tdma_bundle_1 */
	WL(L1,              2, UNPACK,  100),	/* l1_arb_tdma_bundle_0 */
	WL(L1,              1, UNPACK,  300),	/* l1_arb_unpacker */
	WL(L1,              0, UNPACK,   50),	/* l1_no_arb_unpacker */
	WL(L1,             15, UNPACK,  100),	/* noc_ring1_incoming_1 */
	WL(L1,             14, UNPACK,  100),	/* noc_ring1_incoming_0 */
	WL(L1,             13, PACK,    100),	/* noc_ring1_outgoing_1 */
	WL(L1,             12, PACK,    100),	/* noc_ring1_outgoing_0 */
	WL(L1,             11, PACK,     50),	/* tdma_bundle_1_arb */
	WL(L1,             10, UNPACK,   50),	/* tdma_bundle_0_arb */
	WL(L1,              9, UNPACK,   50),	/* tdma_ext_unpack_9_10 */
	WL(L1,              8, PACK,    200),	/* tdma_packer_2_wr */
	/*
	 * The rest of the tt-metal metrics' inputs, nested as the signals are
	 * (a grant or a "not blocked" signal below its request).
	 */
	WL(INSTRN_THREAD,   0, UNPACK,  100),	/* cfg_instrn_available_0 */
	WL(INSTRN_THREAD,   3, UNPACK,   50),	/* sync_instrn_available_0 */
	WL(INSTRN_THREAD,   6, UNPACK,  200),	/* thcon_instrn_available_0 */
	WL(INSTRN_THREAD,  12, UNPACK,  150),	/* move_instrn_available_0 */
	WL(INSTRN_THREAD,  24, UNPACK,  300),	/* thread_stalls_0 */
	WL(INSTRN_THREAD,  25, FPU,     250),	/* thread_stalls_1 */
	WL(INSTRN_THREAD,  26, PACK,    500),	/* thread_stalls_2 */
	WL(INSTRN_THREAD,  27, FPU,     100),	/* waiting_for_srca_clear */
	WLA(INSTRN_THREAD, 30, FPU,      50, TENSIX_ARCH_WH),	/* waiting_for_srcb_clear */
	WLA(INSTRN_THREAD, 33, FPU,     150, TENSIX_ARCH_WH),	/* waiting_for_srca_valid */
	WLA(INSTRN_THREAD, 36, FPU,     120, TENSIX_ARCH_WH),	/* waiting_for_srcb_valid */
	WLA(INSTRN_THREAD, 28, FPU,      50, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 29, FPU,     150, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 30, FPU,     120, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 39, UNPACK, 20, TENSIX_ARCH_WH),	/* waiting_for_thcon_idle_0 */
	WLA(INSTRN_THREAD, 31, UNPACK, 20, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 40, UNPACK, 150, TENSIX_ARCH_WH),	/* waiting_for_unpack_idle_0 */
	WLA(INSTRN_THREAD, 32, UNPACK, 150, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 43, UNPACK, 100, TENSIX_ARCH_WH),	/* waiting_for_nonzero_sem_0 */
	WLA(INSTRN_THREAD, 35, UNPACK, 100, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 44, UNPACK, 50, TENSIX_ARCH_WH),	/* waiting_for_nonfull_sem_0 */
	WLA(INSTRN_THREAD, 36, UNPACK, 50, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 45, UNPACK, 40, TENSIX_ARCH_WH),	/* waiting_for_move_idle_0 */
	WLA(INSTRN_THREAD, 37, UNPACK, 40, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 46, UNPACK, 10, TENSIX_ARCH_WH),	/* waiting_for_mmio_idle_0 */
	WLA(INSTRN_THREAD, 38, UNPACK, 10, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 51, FPU, 120, TENSIX_ARCH_WH),	/* waiting_for_math_idle_1 */
	WLA(INSTRN_THREAD, 43, FPU, 120, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 52, FPU, 30, TENSIX_ARCH_WH),	/* waiting_for_nonzero_sem_1 */
	WLA(INSTRN_THREAD, 44, FPU, 30, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 53, FPU, 20, TENSIX_ARCH_WH),	/* waiting_for_nonfull_sem_1 */
	WLA(INSTRN_THREAD, 45, FPU, 20, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 56, FPU, 60, TENSIX_ARCH_WH),	/* waiting_for_sfpu_idle_1 */
	WLA(INSTRN_THREAD, 48, FPU, 60, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 59, PACK, 300, TENSIX_ARCH_WH),	/* waiting_for_pack_idle_2 */
	WLA(INSTRN_THREAD, 51, PACK, 300, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 61, PACK, 100, TENSIX_ARCH_WH),	/* waiting_for_nonzero_sem_2 */
	WLA(INSTRN_THREAD, 53, PACK, 100, TENSIX_ARCH_BH),
	WLA(INSTRN_THREAD, 62, PACK, 150, TENSIX_ARCH_WH),	/* waiting_for_nonfull_sem_2 */
	WLA(INSTRN_THREAD, 54, PACK, 150, TENSIX_ARCH_BH),
	WL(TDMA_UNPACK,     1, FPU,     950),	/* data_hazard_stalls_movd2a */
	WL(TDMA_UNPACK,   260, UNPACK,  700),	/* srcb_write_not_blocked_port */
	WL(TDMA_UNPACK,   261, UNPACK,  850),	/* srca_write_not_blocked_ovr */
	WL(TDMA_PACK,     267, PACK,    800),	/* dest_read_granted_0 */
	WL(TDMA_PACK,     271, PACK,   1500),	/* math_not_stalled_dest_wr_port */
	WLA(TDMA_PACK,     15, PACK,   1000, TENSIX_ARCH_WH),	/* packer_busy_0 */
	WLA(TDMA_PACK,     16, PACK,    700, TENSIX_ARCH_WH),	/* packer_busy_1 */
	WLA(TDMA_PACK,     17, PACK,    400, TENSIX_ARCH_WH),	/* packer_busy_2 */
	WL(L1,            256, UNPACK,   40),	/* l1_0_unpacker_0_grant */
	WL(L1,            257, UNPACK,  250),	/* l1_0_port1_grant */
	WL(L1,            260, PACK,    120),	/* l1_0_noc_ring0_outgoing_0_grant */
	WL(L1,            261, PACK,    100),	/* l1_0_noc_ring0_outgoing_1_grant */
	WL(L1,            262, UNPACK,  180),	/* l1_0_noc_ring0_incoming_0_grant */
	WL(L1,            263, UNPACK,  150),	/* l1_0_noc_ring0_incoming_1_grant */
	WL(L1,            268, PACK,     80),	/* l1_1_noc_ring1_outgoing_0_grant */
	WL(L1,            269, PACK,     60),	/* l1_1_noc_ring1_outgoing_1_grant */
	WL(L1,            270, UNPACK,   90),	/* l1_1_noc_ring1_incoming_0_grant */
	WL(L1,            271, UNPACK,   70),	/* l1_1_noc_ring1_incoming_1_grant */
};

struct tensix_sim_cfg {
	unsigned int cores;
	unsigned int arch;	/* index into tensix_sim_archs */
	unsigned int clock_mhz;
};

struct tensix_sim_bank {
	u32 reg[3];		/* PERF_CNT_*0..2 as last written */
	bool running;
	u8 mode;		/* mode latched at start */
	u8 mux;			/* L1 mux latched at start */
	u64 cycles;		/* OUT_L */
	u64 cnt[TENSIX_NR_SEL];	/* every counter; the select picks OUT_H */
};

struct tensix_sim_core {
	u32 all;		/* PERF_CNT_ALL as last written */
	u32 mux_ctrl;		/* PERF_CNT_MUX_CTRL */
	struct tensix_sim_bank bank[TENSIX_NR_BANKS];
};

/**
 * struct tensix_sim - state of one simulated Tensix device
 * @lock: protects everything below; taken from atomic context
 * @arch_mask: TENSIX_ARCH_* of the model
 * @mux_mask: L1 mux field of PERF_CNT_MUX_CTRL, shifted down
 * @nsignals: L1 signals, 8 per wired mux group
 * @wired: the selects each bank wires (the L1 bank: see @nsignals)
 * @clock_hz: core clock
 * @wl_on: the workload is playing
 * @wl_duty: workload duty cycles in percent, indexed by WL_*
 * @wl_rate: rate of each tensix_sim_wl[] event, TENSIX_SIM_RATE_ONE = 1/cycle
 * @wl_start_ns: ktime_get_ns() when the workload was set
 * @wl_cycles: cycles played since @wl_start_ns
 * @gated: the cores' clock is gated: nothing counts
 * @ncores: number of cores
 * @core: per-core state
 */
struct tensix_sim {
	raw_spinlock_t lock;	/* protects the whole model; taken under perf locks */
	unsigned int arch_mask;
	unsigned int mux_mask;
	unsigned int nsignals;
	DECLARE_BITMAP(wired[TENSIX_NR_BANKS], TENSIX_NR_SEL);
	u64 clock_hz;
	bool wl_on;
	unsigned int wl_duty[WL_NR_UNITS];
	u32 wl_rate[ARRAY_SIZE(tensix_sim_wl)];
	u64 wl_start_ns;
	u64 wl_cycles;
	bool gated;
	unsigned int ncores;
	struct tensix_sim_core core[] __counted_by(ncores);
};

/* Run a bank for up to @n cycles; return how many it ran (it may stop) */
static u64 tensix_sim_advance(struct tensix_sim_bank *bank, u64 n)
{
	if (!bank->running || !n)
		return 0;
	switch (bank->mode) {
	case TENSIX_MODE_NO_REF:
		break;
	case TENSIX_MODE_REF_PERIOD:
		n = min(n, bank->reg[0] > bank->cycles ? bank->reg[0] - bank->cycles : 0);
		bank->cycles += n;
		if (bank->cycles >= bank->reg[0])
			bank->running = false;
		break;
	default:
		bank->cycles += n;
	}
	return n;
}

/*
 * Add @n to counter @id of bank @b, or for L1 to the counter of signal @id;
 * activity on what the arch does not wire is lost.
 */
static void tensix_sim_count(const struct tensix_sim *ts, struct tensix_sim_bank *bank,
			     unsigned int b, unsigned int id, u64 n)
{
	if (b == TENSIX_BANK_L1) {
		unsigned int sig = id & ~TENSIX_SEL_GRANT;

		if (sig >= ts->nsignals || sig / TENSIX_L1_IDS_PER_MUX != bank->mux)
			return;
		id = (id & TENSIX_SEL_GRANT) | sig % TENSIX_L1_IDS_PER_MUX;
	} else if (!test_bit(id, ts->wired[b])) {
		return;
	}
	bank->cnt[id] += n;
}

/* Cumulative count of workload event @i after @cycles cycles */
static u64 tensix_sim_wl_count(const struct tensix_sim *ts, unsigned int i, u64 cycles)
{
	return mul_u64_u64_div_u64(cycles, ts->wl_rate[i], TENSIX_SIM_RATE_ONE);
}

/**
 * tensix_sim_sync() - play the workload up to now
 * @ts: the model, locked
 *
 * The cycles since the workload was set are computed from the absolute
 * elapsed time and every event grows by the difference of its cumulative
 * count, so no rounding error accumulates however often this runs. Every
 * running bank of every core advances; a bank that stops at its reference
 * period gets the events of the cycles it ran.
 */
static void tensix_sim_sync(struct tensix_sim *ts)
{
	u64 full[ARRAY_SIZE(tensix_sim_wl)], ran[TENSIX_NR_BANKS];
	u64 base = ts->wl_cycles, now, n, inc;
	unsigned int c, b, i;

	if (!ts->wl_on)
		return;
	now = mul_u64_u64_div_u64(ktime_get_ns() - ts->wl_start_ns, ts->clock_hz,
				  NSEC_PER_SEC);
	n = now - base;
	if (!n)
		return;
	ts->wl_cycles = now;
	if (ts->gated)
		return;		/* the cycles pass, uncounted */
	for (i = 0; i < ARRAY_SIZE(tensix_sim_wl); i++)
		full[i] = tensix_sim_wl_count(ts, i, now) - tensix_sim_wl_count(ts, i, base);

	for (c = 0; c < ts->ncores; c++) {
		struct tensix_sim_bank *bank = ts->core[c].bank;

		for (b = 0; b < TENSIX_NR_BANKS; b++)
			ran[b] = tensix_sim_advance(&bank[b], n);
		for (i = 0; i < ARRAY_SIZE(tensix_sim_wl); i++) {
			const struct tensix_sim_wl_event *ev = &tensix_sim_wl[i];

			if (!ran[ev->bank] || !(ev->arch & ts->arch_mask))
				continue;
			inc = full[i];
			if (ran[ev->bank] != n)
				inc = tensix_sim_wl_count(ts, i, base + ran[ev->bank]) -
				      tensix_sim_wl_count(ts, i, base);
			tensix_sim_count(ts, &bank[ev->bank], ev->bank, ev->id, inc);
		}
	}
}

/* Apply the rising edges @rise of a start/stop register to bank @b */
static void tensix_sim_edge(const struct tensix_sim *ts, struct tensix_sim_core *core,
			    unsigned int b, u32 rise)
{
	struct tensix_sim_bank *bank = &core->bank[b];

	if (rise & TENSIX_START) {
		bank->running = true;
		bank->mode = bank->reg[1] & TENSIX_MODE_MASK;
		bank->mux = (core->mux_ctrl >> TENSIX_MUX_SHIFT) & ts->mux_mask;
		bank->cycles = 0;
		memset(bank->cnt, 0, sizeof(bank->cnt));
	}
	if (rise & TENSIX_STOP)
		bank->running = false;
}

enum { TS_NONE, TS_CTRL, TS_OUT_L, TS_OUT_H, TS_ALL, TS_MUX };

/* Decode a core-relative offset into a TS_* kind, bank @b and control reg @i */
static int tensix_sim_decode(unsigned int off, unsigned int *b, unsigned int *i)
{
	if (off % 4)
		return TS_NONE;
	if (off == TENSIX_PERF_CNT_ALL)
		return TS_ALL;
	if (off == TENSIX_PERF_CNT_MUX_CTRL)
		return TS_MUX;
	for (*b = 0; *b < TENSIX_NR_BANKS; (*b)++) {
		if (off - tensix_ctrl_base[*b] <= TENSIX_REG_START_STOP) {
			*i = (off - tensix_ctrl_base[*b]) / 4;
			return TS_CTRL;
		}
		if (off == tensix_out_base[*b])
			return TS_OUT_L;
		if (off == tensix_out_base[*b] + TENSIX_REG_OUT_H)
			return TS_OUT_H;
	}
	return TS_NONE;
}

/**
 * tensix_sim_core_read() - read a register of one core
 * @ts: the model
 * @c: the core
 * @off: offset in the core's register block
 * @val: receives the value; unmapped offsets read 0
 *
 * Atomic context is fine. Used by the register interfaces of the tensix and
 * ttcard models.
 */
void tensix_sim_core_read(struct tensix_sim *ts, unsigned int c, unsigned int off,
			  unsigned int *val)
{
	struct tensix_sim_core *core;
	struct tensix_sim_bank *bank;
	unsigned long flags;
	unsigned int b, i;

	*val = 0;
	if (c >= ts->ncores)
		return;
	core = &ts->core[c];
	bank = core->bank;

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	switch (tensix_sim_decode(off, &b, &i)) {
	case TS_CTRL:
		*val = bank[b].reg[i];
		break;
	case TS_OUT_L:
		*val = lower_32_bits(bank[b].cycles);
		break;
	case TS_OUT_H:
		i = (bank[b].reg[1] >> TENSIX_SEL_SHIFT) & TENSIX_SEL_MASK;
		*val = lower_32_bits(bank[b].cnt[i]);
		break;
	case TS_ALL:
		*val = core->all;
		break;
	case TS_MUX:
		*val = core->mux_ctrl;
		break;
	}
	raw_spin_unlock_irqrestore(&ts->lock, flags);
}

/**
 * tensix_sim_core_write() - write a register of one core
 * @ts: the model
 * @c: the core
 * @off: offset in the core's register block; unmapped offsets are ignored
 * @val: the value
 */
void tensix_sim_core_write(struct tensix_sim *ts, unsigned int c, unsigned int off,
			   unsigned int val)
{
	struct tensix_sim_core *core;
	struct tensix_sim_bank *bank;
	unsigned long flags;
	unsigned int b, i;
	u32 rise;

	if (c >= ts->ncores)
		return;
	core = &ts->core[c];
	bank = core->bank;

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	switch (tensix_sim_decode(off, &b, &i)) {
	case TS_CTRL:
		rise = val & ~bank[b].reg[i];
		bank[b].reg[i] = val;
		if (i == TENSIX_REG_START_STOP / 4)
			tensix_sim_edge(ts, core, b, rise);
		break;
	case TS_ALL:
		rise = val & ~core->all;
		core->all = val;
		tensix_sim_edge(ts, core, TENSIX_BANK_INSTRN_THREAD, rise);
		tensix_sim_edge(ts, core, TENSIX_BANK_FPU, rise);
		break;
	case TS_MUX:
		core->mux_ctrl = val;
		break;
	}			/* OUT_L/OUT_H are read-only, unmapped offsets ignored */
	raw_spin_unlock_irqrestore(&ts->lock, flags);
}

static int tensix_sim_reg_read(void *model, unsigned int reg, unsigned int *val)
{
	tensix_sim_core_read(model, reg / TENSIX_SIM_CORE_STRIDE,
			     reg % TENSIX_SIM_CORE_STRIDE, val);
	return 0;
}

static int tensix_sim_reg_write(void *model, unsigned int reg, unsigned int val)
{
	tensix_sim_core_write(model, reg / TENSIX_SIM_CORE_STRIDE,
			      reg % TENSIX_SIM_CORE_STRIDE, val);
	return 0;
}

/* One parsed "inject" command */
struct tensix_sim_inject {
	unsigned int first, end, id;
	int bank;
	u64 n;
};

#define TENSIX_SIM_INJECT_MAX	16	/* commands in one write */

/* Parse "<core|all> <bank> <id> <n>" into @in; 0 or -EINVAL */
static int tensix_sim_inject_parse(const struct tensix_sim *ts, char *cmd,
				   struct tensix_sim_inject *in)
{
	char *w[4];

	if (socpmu_sim_split(cmd, w, 4) ||
	    socpmu_sim_parse_units("core", w[0], ts->ncores, &in->first, &in->end))
		return -EINVAL;
	in->bank = match_string(tensix_bank_names, TENSIX_NR_BANKS, w[1]);
	if (in->bank < 0) {
		pr_debug("unknown bank %s\n", w[1]);
		return -EINVAL;
	}
	if (socpmu_sim_parse_uint("id", w[2], 0, TENSIX_NR_SEL - 1, &in->id) ||
	    socpmu_sim_parse_u64("n", w[3], &in->n))
		return -EINVAL;
	if (in->bank == TENSIX_BANK_L1 && (in->id & ~TENSIX_SEL_GRANT) >= ts->nsignals) {
		pr_debug("no L1 signal %u (%u per request/grant)\n", in->id, ts->nsignals);
		return -EINVAL;
	}
	return 0;
}

/*
 * debugfs "inject": "<core|all> <bank> <id> <n>", or several such commands
 * separated by ';', all parsed first (one bad command: nothing is applied)
 * and then applied at once, under the model's lock: no register access
 * comes in between.
 */
static ssize_t tensix_sim_inject_write(struct file *file, const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct tensix_sim_inject in[TENSIX_SIM_INJECT_MAX];
	struct tensix_sim *ts = file->private_data;
	unsigned int k, nr = 0, c;
	unsigned long flags;
	char *rest, *one;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	rest = cmd;
	while ((one = strsep(&rest, ";"))) {
		if (nr == TENSIX_SIM_INJECT_MAX) {
			pr_debug("more than %d commands\n", TENSIX_SIM_INJECT_MAX);
			return -EINVAL;
		}
		if (tensix_sim_inject_parse(ts, one, &in[nr++]))
			return -EINVAL;
	}

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	for (k = 0; k < nr && !ts->gated; k++)
		for (c = in[k].first; c < in[k].end; c++)
			if (ts->core[c].bank[in[k].bank].running)
				tensix_sim_count(ts, &ts->core[c].bank[in[k].bank], in[k].bank,
						 in[k].id, in[k].n);
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	return count;
}

/* debugfs "advance": "<core|all> <cycles>" */
static ssize_t tensix_sim_advance_write(struct file *file, const char __user *ubuf,
					size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct tensix_sim *ts = file->private_data;
	unsigned int first, end, c, b;
	unsigned long flags;
	char *w[2];
	u64 n;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (socpmu_sim_split(cmd, w, 2) || socpmu_sim_parse_units("core", w[0], ts->ncores, &first, &end) ||
	    socpmu_sim_parse_u64("cycles", w[1], &n))
		return -EINVAL;

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	for (c = first; c < end && !ts->gated; c++)
		for (b = 0; b < TENSIX_NR_BANKS; b++)
			tensix_sim_advance(&ts->core[c].bank[b], n);
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	return count;
}

/*
 * debugfs "poke": "<core|all> <offset> <value>": write a register of the
 * core(s) as another agent on the chip would (tt-metal's device profiler,
 * tt-exalens), behind the PMU driver's back
 */
static ssize_t tensix_sim_poke_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct tensix_sim *ts = file->private_data;
	unsigned int first, end, c, off, val;
	char *w[3];

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (socpmu_sim_split(cmd, w, 3) ||
	    socpmu_sim_parse_units("core", w[0], ts->ncores, &first, &end) ||
	    socpmu_sim_parse_uint("offset", w[1], 0, TENSIX_REG_SPAN - 4, &off) ||
	    socpmu_sim_parse_uint("value", w[2], 0, U32_MAX, &val))
		return -EINVAL;
	if (off % 4) {
		pr_debug("unaligned offset %#x\n", off);
		return -EINVAL;
	}
	for (c = first; c < end; c++)
		tensix_sim_core_write(ts, c, off, val);
	return count;
}

static const struct file_operations tensix_sim_poke_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tensix_sim_poke_write,
	.llseek = noop_llseek,
};

/* Parse "off" or "matmul [fpu=P] [unpack=P] [pack=P]" (defaults 80/60/40) */
static int tensix_sim_parse_workload(char *cmd, bool *on, unsigned int *duty)
{
	char *key, *val;
	int u;

	cmd = skip_spaces(cmd);
	cmd = next_arg(cmd, &key, &val);
	*on = !strcmp(key, "matmul");
	if (val || (!*on && (strcmp(key, "off") || *cmd)))
		goto bad;
	duty[WL_FPU] = 80;
	duty[WL_UNPACK] = 60;
	duty[WL_PACK] = 40;
	while (*cmd) {
		cmd = next_arg(cmd, &key, &val);
		u = match_string(tensix_sim_units, WL_NR_UNITS, key);
		if (u < 0 || !val)
			goto bad;
		if (socpmu_sim_parse_uint(key, val, 0, 100, &duty[u]))
			return -EINVAL;
	}
	return 0;
bad:
	pr_debug("workload: expected \"off\" or \"matmul fpu=P unpack=P pack=P\"\n");
	return -EINVAL;
}

static ssize_t tensix_sim_workload_write(struct file *file, const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct tensix_sim *ts = file->private_data;
	unsigned int duty[WL_NR_UNITS], i;
	unsigned long flags;
	bool on;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (tensix_sim_parse_workload(cmd, &on, duty))
		return -EINVAL;

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	ts->wl_on = on;
	if (on) {
		memcpy(ts->wl_duty, duty, sizeof(duty));
		for (i = 0; i < ARRAY_SIZE(tensix_sim_wl); i++)
			ts->wl_rate[i] = min(duty[tensix_sim_wl[i].unit] *
					     tensix_sim_wl[i].permille, TENSIX_SIM_RATE_ONE);
		ts->wl_start_ns = ktime_get_ns();
		ts->wl_cycles = 0;
	}
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	return count;
}

static ssize_t tensix_sim_workload_read(struct file *file, char __user *ubuf,
					size_t count, loff_t *ppos)
{
	struct tensix_sim *ts = file->private_data;
	unsigned int duty[WL_NR_UNITS];
	unsigned long flags;
	char buf[64];
	bool on;
	int len;

	raw_spin_lock_irqsave(&ts->lock, flags);
	on = ts->wl_on;
	memcpy(duty, ts->wl_duty, sizeof(duty));
	raw_spin_unlock_irqrestore(&ts->lock, flags);

	if (on)
		len = scnprintf(buf, sizeof(buf), "matmul fpu=%u unpack=%u pack=%u\n",
				duty[WL_FPU], duty[WL_UNPACK], duty[WL_PACK]);
	else
		len = scnprintf(buf, sizeof(buf), "off\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations tensix_sim_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tensix_sim_inject_write,
	.llseek = noop_llseek,
};

static const struct file_operations tensix_sim_advance_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tensix_sim_advance_write,
	.llseek = noop_llseek,
};

static const struct file_operations tensix_sim_workload_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = tensix_sim_workload_read,
	.write = tensix_sim_workload_write,
	.llseek = default_llseek,
};

/**
 * tensix_sim_debugfs() - create the activity files (inject, advance, poke,
 * workload) of a model in @dir
 * @ts: the model
 * @dir: debugfs directory
 */
void tensix_sim_debugfs(struct tensix_sim *ts, struct dentry *dir)
{
	debugfs_create_file("inject", 0200, dir, ts, &tensix_sim_inject_fops);
	debugfs_create_file("advance", 0200, dir, ts, &tensix_sim_advance_fops);
	debugfs_create_file("poke", 0200, dir, ts, &tensix_sim_poke_fops);
	debugfs_create_file("workload", 0600, dir, ts, &tensix_sim_workload_fops);
}

static void tensix_sim_debugfs_init(struct socpmu_sim_dev *sdev, struct dentry *dir)
{
	tensix_sim_debugfs(sdev->model, dir);
}

static void tensix_sim_cfg_init(void *data)
{
	struct tensix_sim_cfg *cfg = data;

	cfg->cores = 4;
	cfg->clock_mhz = 1000;
}

static int tensix_sim_cfg_parse(void *data, const char *key, const char *val)
{
	struct tensix_sim_cfg *cfg = data;
	int arch;

	if (!strcmp(key, "cores"))
		return socpmu_sim_parse_uint(key, val, 1, TENSIX_SIM_MAX_CORES, &cfg->cores);
	if (!strcmp(key, "clock_mhz"))
		return socpmu_sim_parse_uint(key, val, 1, TENSIX_SIM_MAX_MHZ, &cfg->clock_mhz);
	if (!strcmp(key, "arch")) {
		arch = match_string(tensix_sim_archs, ARRAY_SIZE(tensix_sim_archs), val);
		if (arch >= 0) {
			cfg->arch = arch;
			return 0;
		}
	}
	pr_debug("bad argument %s=%s\n", key, val);
	return -EINVAL;
}

static int tensix_sim_cfg_show(const void *data, char *buf, int at)
{
	const struct tensix_sim_cfg *cfg = data;

	return sysfs_emit_at(buf, at, " cores=%u arch=%s clock_mhz=%u", cfg->cores,
			     tensix_sim_archs[cfg->arch], cfg->clock_mhz);
}

/**
 * tensix_sim_new() - a counter model of @ncores Tensix cores
 * @ncores: number of cores
 * @arch: 0 Wormhole, 1 Blackhole
 * @clock_mhz: core clock, for the workload
 *
 * Return: the model (free with tensix_sim_free()) or an ERR_PTR().
 */
struct tensix_sim *tensix_sim_new(unsigned int ncores, unsigned int arch,
				  unsigned int clock_mhz)
{
	struct tensix_sim *ts;
	unsigned int i;

	ts = kvzalloc(struct_size(ts, core, ncores), GFP_KERNEL);
	if (!ts)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&ts->lock);
	ts->ncores = ncores;
	ts->arch_mask = BIT(arch);
	ts->mux_mask = BIT(tensix_sim_mux_bits[arch]) - 1;
	ts->nsignals = tensix_sim_l1_groups[arch] * TENSIX_L1_IDS_PER_MUX;
	for (i = 0; i < ARRAY_SIZE(tensix_sim_wiring); i++)
		if (tensix_sim_wiring[i].arch & ts->arch_mask)
			__set_bit(tensix_sim_wiring[i].sel, ts->wired[tensix_sim_wiring[i].bank]);
	ts->clock_hz = (u64)clock_mhz * HZ_PER_MHZ;
	return ts;
}

/**
 * tensix_sim_set_gated() - gate or ungate the cores' clock
 * @ts: the model
 * @gated: nothing counts while true
 *
 * The workload is played up to now first: its cycles before the change
 * count as the old state says.
 */
void tensix_sim_set_gated(struct tensix_sim *ts, bool gated)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	ts->gated = gated;
	raw_spin_unlock_irqrestore(&ts->lock, flags);
}

/**
 * tensix_sim_reset() - reset every core as a chip reset does
 * @ts: the model
 *
 * Every register reads 0 again, every bank is stopped and its counters and
 * cycles are 0.
 */
void tensix_sim_reset(struct tensix_sim *ts)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ts->lock, flags);
	tensix_sim_sync(ts);
	memset(ts->core, 0, ts->ncores * sizeof(ts->core[0]));
	raw_spin_unlock_irqrestore(&ts->lock, flags);
}

/**
 * tensix_sim_free() - free a model from tensix_sim_new()
 * @ts: the model
 */
void tensix_sim_free(struct tensix_sim *ts)
{
	kvfree(ts);
}

static void *tensix_sim_create(struct socpmu_sim_dev *sdev)
{
	const struct tensix_sim_cfg *cfg = sdev->cfg;

	sdev->max_register = (cfg->cores - 1) * TENSIX_SIM_CORE_STRIDE + TENSIX_REG_SPAN - 4;
	return tensix_sim_new(cfg->cores, cfg->arch, cfg->clock_mhz);
}

static void tensix_sim_destroy(void *model)
{
	tensix_sim_free(model);
}

static int tensix_sim_add_children(struct socpmu_sim_dev *sdev)
{
	const struct tensix_sim_cfg *cfg = sdev->cfg;
	const struct property_entry props[] = {
		PROPERTY_ENTRY_U32("tenstorrent,num-cores", cfg->cores),
		PROPERTY_ENTRY_U32("tenstorrent,core-stride", TENSIX_SIM_CORE_STRIDE),
		PROPERTY_ENTRY_U64("clock-frequency", (u64)cfg->clock_mhz * HZ_PER_MHZ),
		{ }
	};
	char name[32];

	snprintf(name, sizeof(name), "tensix-pmu-%s", tensix_sim_archs[cfg->arch]);
	return socpmu_sim_add_child(sdev, name, props);
}

const struct socpmu_sim_type socpmu_sim_tensix = {
	.name = "tensix",
	.cfg_size = sizeof(struct tensix_sim_cfg),
	.cfg_init = tensix_sim_cfg_init,
	.cfg_parse = tensix_sim_cfg_parse,
	.cfg_show = tensix_sim_cfg_show,
	.create = tensix_sim_create,
	.destroy = tensix_sim_destroy,
	.reg_read = tensix_sim_reg_read,
	.reg_write = tensix_sim_reg_write,
	.debugfs_init = tensix_sim_debugfs_init,
	.add_children = tensix_sim_add_children,
};
