// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu simulator: a Tenstorrent PCIe card (one Wormhole or Blackhole chip)
 * as the host sees it through BAR0.
 *
 * The register interface is BAR0 (include/socpmu/tt_noc.h has the facts):
 *  - the TLB config registers at 0x1FC00000, 8 bytes per window on
 *    Wormhole, 12 on Blackhole, read back as written;
 *  - the TLB windows (Wormhole: 156 x 1 MiB, 10 x 2 MiB, 20 x 16 MiB;
 *    Blackhole: 202 x 2 MiB). An access through a window goes to the NOC
 *    address its config register gives (x_end, y_end, address prefix
 *    followed by the offset in the window), decoded here with each window
 *    kind's own field layout.
 * Behind the NOC: the Tensix tiles of the chip's grid (Wormhole 8 x 10 of a
 * 10 x 12 grid, Blackhole 14 x 10 of 17 x 12), each with the Tensix counter
 * model of sim_tensix.c at 0xFFB12000. Tiles removed by the harvesting mask
 * do not answer (reads return all ones: on a real card such an access can
 * hang the NOC) and every access to one is counted in debugfs "errors", as
 * is any access the model does not have ("stray": other tiles, other
 * addresses, multicast reads).
 *
 * Coordinates, NOC translation and harvesting follow tt-umd (3ed9cb6), with
 * tables and code of the model's own, not the bridge's: the Tensix
 * locations and harvesting lists of device/api/umd/device/arch/
 * {wormhole,blackhole}_implementation.hpp, the translated coordinates of
 * device/coordinates/{wormhole,blackhole}_coordinate_manager.cpp. With
 * "translation=1" (the default, as shipping cards run) the card's NOC
 * routes host requests by translated coordinates: on Blackhole a Tensix
 * column's NOC0 x no longer reaches it, on Wormhole the translated range
 * (from 18) is added to NOC0. Blackhole's PCIe NIU config register
 * (BAR0 0x1FD04100) reads bit 14 set when translation is on.
 * "harvest=" is the mask as tt-umd and tt-smi report it (bit i: the i-th
 * Tensix row or column in NOC0 order); "harvest_phys=" the firmware's
 * layout (bit i: the i-th entry of HARVESTING_NOC_LOCATIONS), which is what
 * the card hands the bridge, as firmware reports it.
 *
 * The card is handed to the Tensix NOC bridge the way tt-kmd with
 * tools/tt-kmd/patches hands over a real one: an auxiliary device
 * "socpmu_sim.tensix_noc" (struct tt_noc_card) with BAR0 as a regmap, the
 * reserved window, the harvesting mask and the clock.
 *
 * debugfs: "tiles" (model core, NOC0 x,y, translated x,y, harvested), inject/advance/workload
 * of the counter model (cores numbered as in "tiles"), "errors",
 * "user_tlb", which plays a user space program using its own windows, and
 * "cfg_delay_ns", which makes every write of a TLB config register stall
 * the writer after the new value took effect (a slow link): the time
 * between programming a window and using it grows, and a user of the
 * window that does not keep the two atomic is caught within a few
 * hundred accesses instead of a few hundred thousand.
 *
 * debugfs "read_ns" and "write_ns" give every BAR0 read and write a
 * latency (0 by default): the accessor stalls that long, as a CPU does on a
 * non-posted PCIe read and (less) on a posted write. "bursts" measures what
 * a bridge costs the bus per perf callback: the accesses made in one
 * section with interrupts off form a burst (the first access of a burst
 * queues an irq_work on its CPU, which runs, and ends the burst, as soon
 * as that CPU takes interrupts again; one accessor at a time); it shows
 * the number of bursts and accesses, the largest burst's accesses and
 * reads, and the longest burst's duration; writing resets it.
 *
 * Power, as tt-kmd's power policy has it (ioctl.h TT_POWER_FLAG_TENSIX_ENABLE,
 * chardev.c): with "power_policy=1" (the default) the Tensix tiles are
 * clock gated, and count nothing, unless a client votes for them: the
 * bridge through the card's power_vote op (absent with "power_op=0"), or
 * the user space clients of debugfs "client_votes" (tt-metal processes).
 * debugfs "power" shows the policy, the votes and whether the tiles are
 * gated.
 *
 * Resets, as tt-kmd's reset ioctls do them (chardev.c: reset_gen bumped
 * before the chip is touched): the card's reset_seq op returns a sequence
 * number, odd while a reset runs. Writing "pulse" to debugfs "reset"
 * resets the chip at once (sequence odd, every tile's counters and
 * registers back to 0, sequence even again: a reset far shorter than a
 * poll period); "begin" starts a reset that keeps the link down (every BAR0
 * read returns all ones, as "dead" does) until "end", which resets the
 * tiles and brings the link back. Reading it gives the sequence. Without
 * "reset_op=0" the card has the op.
 *
 * debugfs "dead" (0 or 1, read as N or Y) plays a card that is reset
 * (tt-smi reset) or fell off the bus: while it is set, every BAR0 read
 * returns all ones, as a PCIe master abort does, and writes are dropped;
 * the TLB config registers and the tiles keep their state. Writing 0 brings
 * the card back as it was. Accesses while dead are counted in "errors".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": ttcard: " fmt

#include <linux/auxiliary_bus.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/regmap.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/units.h>

#include <socpmu/tensix_regs.h>
#include <socpmu/tt_noc.h>

#include "sim.h"

static const char *const ttcard_archs[] = { "wormhole", "blackhole" };

/* A kind of TLB window: nr windows of 1 << shift bytes from BAR0 @base */
struct ttcard_kind {
	unsigned int first;	/* index of the first window */
	unsigned int nr;
	unsigned int base;
	unsigned int shift;
	unsigned int x_end;	/* bit of x_end in the config register */
};

/*
 * Tensix tiles and harvesting, from tt-umd 3ed9cb6 (T6_X_LOCATIONS,
 * T6_Y_LOCATIONS, HARVESTING_NOC_LOCATIONS of wormhole_implementation.hpp
 * and blackhole_implementation.hpp; tensix_translated_coordinate_start_x/y
 * of Wormhole)
 */
static const u8 ttcard_wh_t6_x[] = { 1, 2, 3, 4, 6, 7, 8, 9 };
static const u8 ttcard_wh_t6_y[] = { 1, 2, 3, 4, 5, 7, 8, 9, 10, 11 };
static const u8 ttcard_wh_harvest_loc[] = { 11, 1, 10, 2, 9, 3, 8, 4, 7, 5 };
static const u8 ttcard_bh_t6_x[] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 };
static const u8 ttcard_bh_t6_y[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
static const u8 ttcard_bh_harvest_loc[] = { 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 };
#define TTCARD_WH_TRANSLATED_START	18
#define TTCARD_BH_NIU_CFG_0		0x1fd04100
#define TTCARD_NIU_TRANSLATE		BIT(14)
#define TTCARD_COORDS			64	/* 6-bit NOC coordinates */

struct ttcard_arch {
	const u8 *t6_x, *t6_y;
	unsigned int nx, ny;
	bool harvest_rows;
	const u8 *harvest_loc;
	unsigned int cfg_size;
	unsigned int nwin;
	unsigned int noc_bits;	/* width of the NOC select, before mcast */
	unsigned int nkinds;
	struct ttcard_kind kind[3];
	unsigned int reserved[2];	/* tt-kmd's window and the bridge's */
};

static const struct ttcard_arch ttcard_arch_info[] = {
	{	/* Wormhole: address prefix in the bits below x_end (36 - shift) */
		.t6_x = ttcard_wh_t6_x, .nx = ARRAY_SIZE(ttcard_wh_t6_x),
		.t6_y = ttcard_wh_t6_y, .ny = ARRAY_SIZE(ttcard_wh_t6_y),
		.harvest_rows = true,
		.harvest_loc = ttcard_wh_harvest_loc,
		.cfg_size = TT_WH_TLB_CFG_SIZE,
		.nwin = TT_WH_TLB_COUNT,
		.noc_bits = 1,
		.nkinds = 3,
		.kind = {
			{ 0, TT_WH_TLB_1M_COUNT, 0, 20, 16 },
			{ TT_WH_TLB_1M_COUNT, TT_WH_TLB_2M_COUNT, TT_WH_TLB_2M_BASE, 21, 15 },
			{ TT_WH_TLB_1M_COUNT + TT_WH_TLB_2M_COUNT, TT_WH_TLB_16M_COUNT,
			  TT_WH_TLB_16M_BASE, 24, 12 },
		},
		.reserved = { TT_WH_KMD_TLB, TT_WH_BRIDGE_TLB },
	},
	{	/* Blackhole: 43-bit address prefix, then x_end */
		.t6_x = ttcard_bh_t6_x, .nx = ARRAY_SIZE(ttcard_bh_t6_x),
		.t6_y = ttcard_bh_t6_y, .ny = ARRAY_SIZE(ttcard_bh_t6_y),
		.harvest_rows = false,
		.harvest_loc = ttcard_bh_harvest_loc,
		.cfg_size = TT_BH_TLB_CFG_SIZE,
		.nwin = TT_BH_TLB_2M_COUNT,
		.noc_bits = 2,
		.nkinds = 1,
		.kind = { { 0, TT_BH_TLB_2M_COUNT, 0, 21, 43 } },
		.reserved = { TT_BH_KMD_TLB, TT_BH_BRIDGE_TLB },
	},
};

#define TTCARD_MAX_WINDOWS	TT_BH_TLB_2M_COUNT

#define TTCARD_MAX_TILES	(14 * 10)

/* harvest is tt-umd's convention, harvest_phys the firmware's; one is set */
struct ttcard_cfg {
	unsigned int arch;
	unsigned int harvest;
	unsigned int harvest_phys;
	bool phys;
	unsigned int translation;
	unsigned int harvest_known;
	unsigned int clock_mhz;
	unsigned int power_policy;
	unsigned int power_op;
	unsigned int reset_op;
};

/**
 * struct ttcard - one simulated card
 * @lock: protects @tlb
 * @a: the chip
 * @tlb: config register words of every window
 * @ntiles: Tensix tiles of the grid, harvested ones included
 * @tx: NOC0 x of each tile (model core)
 * @ty: NOC0 y of each tile
 * @xt: translated x of each tile (NOC0 x when the NOC does not translate)
 * @yt: translated y of each tile
 * @harvested: the tile is harvested
 * @translation: the NOC translates host requests
 * @phys_mask: harvesting mask in the firmware's layout (handed to the bridge)
 * @tile_at: model core a host request to (x, y) reaches, or -1
 * @bad_harvested: accesses to harvested tiles
 * @bad_stray: accesses the model does not have
 * @bad_dead: BAR0 accesses while @dead
 * @dead: the card does not answer: reads return all ones, writes are lost
 * @cfg_delay_ns: stall after each config register write (debugfs)
 * @read_ns: latency of every BAR0 read (debugfs)
 * @write_ns: latency of every BAR0 write (debugfs)
 * @burst_lock: protects the burst figures below
 * @burst_work: ends the current burst when its CPU takes interrupts again
 * @burst_open: a burst is open (its accesses made with interrupts off)
 * @burst_start: time of the current burst's first access
 * @burst_end: end of its last access
 * @burst_n: its accesses
 * @burst_r: its reads
 * @bursts: bursts since the last reset, the current one included
 * @burst_total: accesses in them
 * @burst_max_n: accesses of the largest burst (by accesses)
 * @burst_max_r: reads of that burst
 * @burst_max_ns: duration of the longest burst
 * @power_lock: protects the power state below
 * @power_policy: tiles are gated unless voted for
 * @bridge_vote: the bridge's vote (power_vote op)
 * @bridge_votes: holds the bridge made (power_vote calls with on)
 * @client_votes: user space clients that voted (debugfs)
 * @reset_seq: reset sequence, odd while a reset runs
 * @ts: the Tensix counter model, one core per tile
 */
struct ttcard {
	raw_spinlock_t lock;	/* the TLB config registers */
	const struct ttcard_arch *a;
	u32 tlb[TTCARD_MAX_WINDOWS][3];
	unsigned int ntiles;
	u8 tx[TTCARD_MAX_TILES];
	u8 ty[TTCARD_MAX_TILES];
	u8 xt[TTCARD_MAX_TILES];
	u8 yt[TTCARD_MAX_TILES];
	bool harvested[TTCARD_MAX_TILES];
	bool translation;
	u32 phys_mask;
	s16 tile_at[TTCARD_COORDS][TTCARD_COORDS];
	atomic64_t bad_harvested;
	atomic64_t bad_stray;
	atomic64_t bad_dead;
	bool dead;
	u32 cfg_delay_ns;
	u32 read_ns;
	u32 write_ns;
	raw_spinlock_t burst_lock;	/* the burst figures */
	struct irq_work burst_work;
	bool burst_open;
	u64 burst_start, burst_end;
	u64 burst_n, burst_r, bursts, burst_total, burst_max_n, burst_max_r, burst_max_ns;
	struct mutex power_lock;	/* the power state */
	bool power_policy;
	bool bridge_vote;
	unsigned int bridge_votes;
	unsigned int client_votes;
	atomic_t reset_seq;
	struct tensix_sim *ts;
};

/* @width bits at bit @shift of the multi-word register @w */
static u64 ttcard_bits(const u32 *w, unsigned int shift, unsigned int width)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		if (w[(shift + i) / 32] & BIT((shift + i) % 32))
			v |= BIT_ULL(i);
	return v;
}

/* The window of BAR0 offset @reg: its kind, index and offset; false if none */
static bool ttcard_window(const struct ttcard *tc, unsigned int reg,
			  const struct ttcard_kind **kind, unsigned int *win,
			  unsigned int *off)
{
	unsigned int k;

	for (k = 0; k < tc->a->nkinds; k++) {
		const struct ttcard_kind *kd = &tc->a->kind[k];
		unsigned int n = (reg - kd->base) >> kd->shift;

		if (reg >= kd->base && n < kd->nr) {
			*kind = kd;
			*win = kd->first + n;
			*off = reg & (BIT(kd->shift) - 1);
			return true;
		}
	}
	return false;
}

/* Route an access through window @win of @kind to its NOC target */
static void ttcard_noc(struct ttcard *tc, const struct ttcard_kind *kind,
		       unsigned int win, unsigned int off, unsigned int *rval,
		       unsigned int wval)
{
	unsigned int x, y, xe = kind->x_end;
	unsigned long flags;
	bool mcast;
	u32 w[3];
	u64 addr;
	int t;

	raw_spin_lock_irqsave(&tc->lock, flags);
	memcpy(w, tc->tlb[win], sizeof(w));
	raw_spin_unlock_irqrestore(&tc->lock, flags);

	addr = ttcard_bits(w, 0, xe) << kind->shift | off;
	x = ttcard_bits(w, xe, TT_NOC_COORD_BITS);
	y = ttcard_bits(w, xe + TT_NOC_COORD_BITS, TT_NOC_COORD_BITS);
	/* x_start, y_start, the NOC select, then mcast */
	mcast = ttcard_bits(w, xe + 4 * TT_NOC_COORD_BITS + tc->a->noc_bits, 1);

	t = tc->tile_at[x][y];
	if (rval)
		*rval = U32_MAX;
	if (t >= 0 && tc->harvested[t]) {
		atomic64_inc(&tc->bad_harvested);
		return;
	}
	if (t < 0 || mcast || addr < TT_TENSIX_DEBUG_REGS ||
	    addr - TT_TENSIX_DEBUG_REGS >= TENSIX_REG_SPAN) {
		atomic64_inc(&tc->bad_stray);
		return;
	}
	if (rval)
		tensix_sim_core_read(tc->ts, t, addr - TT_TENSIX_DEBUG_REGS, rval);
	else
		tensix_sim_core_write(tc->ts, t, addr - TT_TENSIX_DEBUG_REGS, wval);
}

/* BAR0 access: a TLB config register, a window, or nothing */
static void ttcard_access(struct ttcard *tc, unsigned int reg, unsigned int *rval,
			  unsigned int wval)
{
	const struct ttcard_kind *kind;
	unsigned int win, off, cfg = reg - TT_NOC_TLB_CFG_BASE;
	unsigned long flags;
	u32 delay_ns;

	/* Reset or off the bus: a master abort, nothing reaches the card */
	if (READ_ONCE(tc->dead)) {
		if (rval)
			*rval = U32_MAX;
		atomic64_inc(&tc->bad_dead);
		return;
	}
	if (reg >= TT_NOC_TLB_CFG_BASE && cfg / tc->a->cfg_size < tc->a->nwin) {
		u32 *word = &tc->tlb[cfg / tc->a->cfg_size][(cfg % tc->a->cfg_size) / 4];

		raw_spin_lock_irqsave(&tc->lock, flags);
		if (rval)
			*rval = *word;
		else
			*word = wval;
		raw_spin_unlock_irqrestore(&tc->lock, flags);
		delay_ns = READ_ONCE(tc->cfg_delay_ns);
		if (!rval && delay_ns)
			ndelay(delay_ns);
		return;
	}
	if (reg == TTCARD_BH_NIU_CFG_0 && !tc->a->harvest_rows) {
		if (rval)
			*rval = tc->translation ? TTCARD_NIU_TRANSLATE : 0;
		return;
	}
	if (ttcard_window(tc, reg, &kind, &win, &off)) {
		ttcard_noc(tc, kind, win, off, rval, wval);
		return;
	}
	if (rval)
		*rval = 0;
	atomic64_inc(&tc->bad_stray);
}

/* Close the current burst into the maxima; burst_lock held */
static void ttcard_burst_close(struct ttcard *tc)
{
	if (!tc->burst_n)
		return;
	if (tc->burst_n > tc->burst_max_n) {
		tc->burst_max_n = tc->burst_n;
		tc->burst_max_r = tc->burst_r;
	}
	tc->burst_max_ns = max(tc->burst_max_ns, tc->burst_end - tc->burst_start);
}

/* The CPU of the current burst takes interrupts again: the burst ends */
static void ttcard_burst_end(struct irq_work *work)
{
	struct ttcard *tc = container_of(work, struct ttcard, burst_work);
	unsigned long flags;

	raw_spin_lock_irqsave(&tc->burst_lock, flags);
	tc->burst_open = false;
	raw_spin_unlock_irqrestore(&tc->burst_lock, flags);
}

/*
 * A BAR0 access from @start to now: part of the current burst (the same
 * section with interrupts off) or a new one
 */
static void ttcard_burst_add(struct ttcard *tc, u64 start, bool read)
{
	u64 end = ktime_get_ns();
	unsigned long flags;

	raw_spin_lock_irqsave(&tc->burst_lock, flags);
	if (!tc->burst_open) {
		ttcard_burst_close(tc);
		tc->bursts++;
		tc->burst_n = 0;
		tc->burst_r = 0;
		tc->burst_start = start;
		tc->burst_open = true;
		irq_work_queue(&tc->burst_work);
	}
	tc->burst_n++;
	tc->burst_r += read;
	tc->burst_total++;
	tc->burst_end = end;
	raw_spin_unlock_irqrestore(&tc->burst_lock, flags);
}

/* A BAR0 access as the bus sees it: its latency, and its burst */
static void ttcard_bus(struct ttcard *tc, unsigned int reg, unsigned int *rval,
		       unsigned int wval)
{
	u64 start = ktime_get_ns();
	u32 ns = rval ? READ_ONCE(tc->read_ns) : READ_ONCE(tc->write_ns);

	ttcard_access(tc, reg, rval, wval);
	if (ns)
		ndelay(ns);
	ttcard_burst_add(tc, start, rval);
}

static int ttcard_reg_read(void *model, unsigned int reg, unsigned int *val)
{
	ttcard_bus(model, reg, val, 0);
	return 0;
}

static int ttcard_reg_write(void *model, unsigned int reg, unsigned int val)
{
	ttcard_bus(model, reg, NULL, val);
	return 0;
}

/*
 * debugfs "tiles": "<core> <x>,<y> <tx>,<ty>[ harvested]" per tile, NOC0
 * then translated coordinates
 */
static int ttcard_tiles_show(struct seq_file *m, void *v)
{
	struct ttcard *tc = m->private;
	unsigned int t;

	for (t = 0; t < tc->ntiles; t++)
		seq_printf(m, "%u %u,%u %u,%u%s\n", t, tc->tx[t], tc->ty[t], tc->xt[t],
			   tc->yt[t], tc->harvested[t] ? " harvested" : "");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ttcard_tiles);

static int ttcard_errors_show(struct seq_file *m, void *v)
{
	struct ttcard *tc = m->private;

	seq_printf(m, "harvested %lld\nstray %lld\ndead %lld\n",
		   (s64)atomic64_read(&tc->bad_harvested),
		   (s64)atomic64_read(&tc->bad_stray),
		   (s64)atomic64_read(&tc->bad_dead));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ttcard_errors);

static int ttcard_bursts_show(struct seq_file *m, void *v)
{
	struct ttcard *tc = m->private;
	unsigned long flags;
	u64 b, a, n, r, ns;

	raw_spin_lock_irqsave(&tc->burst_lock, flags);
	ttcard_burst_close(tc);
	b = tc->bursts;
	a = tc->burst_total;
	n = tc->burst_max_n;
	r = tc->burst_max_r;
	ns = tc->burst_max_ns;
	raw_spin_unlock_irqrestore(&tc->burst_lock, flags);
	seq_printf(m, "bursts %llu\naccesses %llu\nmax_accesses %llu\nmax_reads %llu\nmax_ns %llu\n",
		   b, a, n, r, ns);
	return 0;
}

static int ttcard_bursts_open(struct inode *inode, struct file *file)
{
	return single_open(file, ttcard_bursts_show, inode->i_private);
}

/* Any write resets the burst figures */
static ssize_t ttcard_bursts_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct ttcard *tc = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;

	raw_spin_lock_irqsave(&tc->burst_lock, flags);
	tc->burst_n = 0;
	tc->burst_open = false;
	tc->bursts = 0;
	tc->burst_total = 0;
	tc->burst_max_n = 0;
	tc->burst_max_r = 0;
	tc->burst_max_ns = 0;
	raw_spin_unlock_irqrestore(&tc->burst_lock, flags);
	return count;
}

static const struct file_operations ttcard_bursts_fops = {
	.owner = THIS_MODULE,
	.open = ttcard_bursts_open,
	.read = seq_read,
	.write = ttcard_bursts_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * debugfs "user_tlb": "<window> <x> <y> <reps>" plays a user space program
 * that tt-kmd gave window <window>: <reps> times it points the window at
 * tile (x, y)'s L1 (address 0), then at its debug registers, and reads a
 * counter through it. The windows of tt-kmd and of the bridge are refused
 * (-EBUSY), as tt-kmd never hands them out.
 */
static ssize_t ttcard_user_tlb_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct ttcard *tc = file->private_data;
	const struct ttcard_arch *a = tc->a;
	unsigned int win, x, y, reps, i, k, val, xe;
	const struct ttcard_kind *kind = NULL;
	unsigned long flags;
	char *w[4];
	u64 addr;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (socpmu_sim_split(cmd, w, 4) ||
	    socpmu_sim_parse_uint("window", w[0], 0, a->nwin - 1, &win) ||
	    socpmu_sim_parse_uint("x", w[1], 0, TTCARD_COORDS - 1, &x) ||
	    socpmu_sim_parse_uint("y", w[2], 0, TTCARD_COORDS - 1, &y) ||
	    socpmu_sim_parse_uint("reps", w[3], 1, 10000000, &reps))
		return -EINVAL;
	if (win == a->reserved[0] || win == a->reserved[1]) {
		pr_debug("user_tlb: window %u is reserved\n", win);
		return -EBUSY;
	}
	for (k = 0; k < a->nkinds; k++)
		if (win - a->kind[k].first < a->kind[k].nr)
			kind = &a->kind[k];
	xe = kind->x_end;
	for (i = 0; i < 2 * reps; i++) {
		u32 cfg[3] = { };
		unsigned int j;

		addr = i & 1 ? TT_TENSIX_DEBUG_REGS & ~(BIT_ULL(kind->shift) - 1) : 0;
		cfg[0] = lower_32_bits(addr >> kind->shift);
		for (j = 0; j < TT_NOC_COORD_BITS; j++) {
			if (x & BIT(j))
				cfg[(xe + j) / 32] |= BIT((xe + j) % 32);
			if (y & BIT(j))
				cfg[(xe + 6 + j) / 32] |= BIT((xe + 6 + j) % 32);
		}
		raw_spin_lock_irqsave(&tc->lock, flags);
		memcpy(tc->tlb[win], cfg, a->cfg_size);
		raw_spin_unlock_irqrestore(&tc->lock, flags);
		if (!addr)
			continue;	/* L1 is not modelled: only the programming */
		ttcard_noc(tc, kind, win, (TT_TENSIX_DEBUG_REGS - addr) +
			   TENSIX_PERF_CNT_OUT_L_FPU + TENSIX_REG_OUT_H, &val, 0);
		cond_resched();
	}
	return count;
}

static const struct file_operations ttcard_user_tlb_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ttcard_user_tlb_write,
	.llseek = noop_llseek,
};

/* Gate or ungate the tiles as the votes say; power_lock held */
static void ttcard_power_update(struct ttcard *tc)
{
	lockdep_assert_held(&tc->power_lock);
	tensix_sim_set_gated(tc->ts, tc->power_policy && !tc->bridge_vote && !tc->client_votes);
}

/* debugfs "power": the policy, the votes, and whether the tiles are gated */
static int ttcard_power_show(struct seq_file *m, void *v)
{
	struct ttcard *tc = m->private;

	mutex_lock(&tc->power_lock);
	seq_printf(m, "policy %u\nbridge_vote %u\nbridge_votes %u\nclient_votes %u\ngated %u\n",
		   tc->power_policy, tc->bridge_vote, tc->bridge_votes, tc->client_votes,
		   tc->power_policy && !tc->bridge_vote && !tc->client_votes);
	mutex_unlock(&tc->power_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ttcard_power);

/* debugfs "client_votes": user space clients that voted for the tiles */
static int ttcard_client_votes_get(void *data, u64 *val)
{
	struct ttcard *tc = data;

	*val = READ_ONCE(tc->client_votes);
	return 0;
}

static int ttcard_client_votes_set(void *data, u64 val)
{
	struct ttcard *tc = data;

	if (val > 1000)
		return -EINVAL;
	mutex_lock(&tc->power_lock);
	tc->client_votes = val;
	ttcard_power_update(tc);
	mutex_unlock(&tc->power_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ttcard_client_votes_fops, ttcard_client_votes_get,
			 ttcard_client_votes_set, "%llu\n");

/* The chip's reset itself: the tiles' counters and registers back to 0 */
static void ttcard_reset_tiles(struct ttcard *tc)
{
	tensix_sim_reset(tc->ts);
}

/*
 * debugfs "reset": "pulse" (a whole reset at once), "begin" (the sequence
 * odd, the link down), "end" (tiles reset, link up, the sequence even);
 * reads the sequence
 */
static ssize_t ttcard_reset_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct ttcard *tc = file->private_data;
	bool running;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	running = atomic_read(&tc->reset_seq) & 1;
	if (!strcmp(cmd, "pulse") && !running) {
		atomic_inc(&tc->reset_seq);
		ttcard_reset_tiles(tc);
		atomic_inc(&tc->reset_seq);
	} else if (!strcmp(cmd, "begin") && !running) {
		atomic_inc(&tc->reset_seq);
		WRITE_ONCE(tc->dead, true);
	} else if (!strcmp(cmd, "end") && running) {
		ttcard_reset_tiles(tc);
		WRITE_ONCE(tc->dead, false);
		atomic_inc(&tc->reset_seq);
	} else {
		pr_debug("reset: \"pulse\" or \"begin\" when no reset runs, \"end\" when one does\n");
		return -EINVAL;
	}
	return count;
}

static ssize_t ttcard_reset_read(struct file *file, char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct ttcard *tc = file->private_data;
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", atomic_read(&tc->reset_seq));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations ttcard_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ttcard_reset_read,
	.write = ttcard_reset_write,
	.llseek = default_llseek,
};

static void ttcard_debugfs_init(struct socpmu_sim_dev *sdev, struct dentry *dir)
{
	struct ttcard *tc = sdev->model;

	tensix_sim_debugfs(tc->ts, dir);
	debugfs_create_file("tiles", 0400, dir, tc, &ttcard_tiles_fops);
	debugfs_create_file("errors", 0400, dir, tc, &ttcard_errors_fops);
	debugfs_create_file("user_tlb", 0200, dir, tc, &ttcard_user_tlb_fops);
	debugfs_create_bool("dead", 0600, dir, &tc->dead);
	socpmu_sim_debugfs_delay(dir, "cfg_delay_ns", &tc->cfg_delay_ns);
	socpmu_sim_debugfs_delay(dir, "read_ns", &tc->read_ns);
	socpmu_sim_debugfs_delay(dir, "write_ns", &tc->write_ns);
	debugfs_create_file("bursts", 0600, dir, tc, &ttcard_bursts_fops);
	debugfs_create_file("power", 0400, dir, tc, &ttcard_power_fops);
	debugfs_create_file_unsafe("client_votes", 0600, dir, tc, &ttcard_client_votes_fops);
	debugfs_create_file("reset", 0600, dir, tc, &ttcard_reset_fops);
}

static void ttcard_cfg_init(void *data)
{
	struct ttcard_cfg *cfg = data;

	cfg->harvest_known = 1;
	cfg->translation = 1;
	cfg->clock_mhz = 1000;
	cfg->power_policy = 1;
	cfg->power_op = 1;
	cfg->reset_op = 1;
}

static int ttcard_cfg_parse(void *data, const char *key, const char *val)
{
	struct ttcard_cfg *cfg = data;
	int arch;

	if (!strcmp(key, "arch")) {
		arch = match_string(ttcard_archs, ARRAY_SIZE(ttcard_archs), val);
		if (arch >= 0) {
			cfg->arch = arch;
			return 0;
		}
	} else if (!strcmp(key, "harvest")) {
		cfg->phys = false;
		return socpmu_sim_parse_uint(key, val, 0, BIT(14) - 1, &cfg->harvest);
	} else if (!strcmp(key, "harvest_phys")) {
		cfg->phys = true;
		return socpmu_sim_parse_uint(key, val, 0, BIT(14) - 1, &cfg->harvest_phys);
	} else if (!strcmp(key, "translation")) {
		return socpmu_sim_parse_uint(key, val, 0, 1, &cfg->translation);
	} else if (!strcmp(key, "harvest_known")) {
		return socpmu_sim_parse_uint(key, val, 0, 1, &cfg->harvest_known);
	} else if (!strcmp(key, "clock_mhz")) {
		return socpmu_sim_parse_uint(key, val, 1, 100000, &cfg->clock_mhz);
	} else if (!strcmp(key, "power_policy")) {
		return socpmu_sim_parse_uint(key, val, 0, 1, &cfg->power_policy);
	} else if (!strcmp(key, "power_op")) {
		return socpmu_sim_parse_uint(key, val, 0, 1, &cfg->power_op);
	} else if (!strcmp(key, "reset_op")) {
		return socpmu_sim_parse_uint(key, val, 0, 1, &cfg->reset_op);
	}
	pr_debug("bad argument %s=%s\n", key, val);
	return -EINVAL;
}

static int ttcard_cfg_show(const void *data, char *buf, int at)
{
	const struct ttcard_cfg *cfg = data;

	return sysfs_emit_at(buf, at, " arch=%s %s=0x%x translation=%u harvest_known=%u clock_mhz=%u power_policy=%u power_op=%u reset_op=%u",
			     ttcard_archs[cfg->arch], cfg->phys ? "harvest_phys" : "harvest",
			     cfg->phys ? cfg->harvest_phys : cfg->harvest, cfg->translation,
			     cfg->harvest_known, cfg->clock_mhz, cfg->power_policy, cfg->power_op,
			     cfg->reset_op);
}

/* Index of NOC0 row or column @loc in the firmware's harvesting list */
static int ttcard_harvest_pos(const struct ttcard_arch *a, unsigned int loc)
{
	unsigned int n = a->harvest_rows ? a->ny : a->nx, i;

	for (i = 0; i < n; i++)
		if (a->harvest_loc[i] == loc)
			return i;
	return -1;
}

/*
 * The harvested rows (Wormhole) or columns (Blackhole), as a flag per
 * position in NOC0 order, from either mask convention
 */
static int ttcard_harvest_lines(const struct ttcard_arch *a, const struct ttcard_cfg *cfg,
				bool *lines, u32 *phys)
{
	unsigned int n = a->harvest_rows ? a->ny : a->nx, i, nh = 0;
	const u8 *noc = a->harvest_rows ? a->t6_y : a->t6_x;
	u32 mask = cfg->phys ? cfg->harvest_phys : cfg->harvest;

	if (mask >> n)
		return -EINVAL;
	*phys = 0;
	for (i = 0; i < n; i++) {
		int pos = ttcard_harvest_pos(a, noc[i]);

		/* tt-umd: bit i is line i; firmware: bit pos is line i */
		lines[i] = mask & BIT(cfg->phys ? pos : i);
		if (lines[i]) {
			*phys |= BIT(pos);
			nh++;
		}
	}
	return nh < n ? 0 : -EINVAL;
}

/*
 * Translated coordinates of every tile, as tt-umd's coordinate managers
 * fill them: unharvested lines first in NOC0 order, then the harvested
 * ones (Blackhole: in the order of the firmware's harvesting list;
 * Wormhole: in NOC0 order).
 */
static void ttcard_translate(struct ttcard *tc, const bool *lines)
{
	const struct ttcard_arch *a = tc->a;
	unsigned int n = a->harvest_rows ? a->ny : a->nx, i, j, next = 0;
	int to[14];	/* translated index of each NOC0 line */
	unsigned int t;

	for (i = 0; i < n; i++)
		if (!lines[i])
			to[i] = next++;
	if (a->harvest_rows) {
		for (i = 0; i < n; i++)
			if (lines[i])
				to[i] = next++;
	} else {
		/* harvested columns from the top, by firmware list position */
		unsigned int top = n - 1;

		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++)
				if (lines[i] && a->harvest_loc[j] == a->t6_x[i])
					to[i] = top--;
	}
	for (t = 0; t < tc->ntiles; t++) {
		unsigned int ix = t % a->nx, iy = t / a->nx;

		if (!tc->translation) {
			tc->xt[t] = tc->tx[t];
			tc->yt[t] = tc->ty[t];
		} else if (a->harvest_rows) {
			tc->xt[t] = TTCARD_WH_TRANSLATED_START + ix;
			tc->yt[t] = TTCARD_WH_TRANSLATED_START + to[iy];
		} else {
			tc->xt[t] = a->t6_x[to[ix]];
			tc->yt[t] = tc->ty[t];
		}
	}
}

static void *ttcard_create(struct socpmu_sim_dev *sdev)
{
	const struct ttcard_cfg *cfg = sdev->cfg;
	const struct ttcard_arch *a = &ttcard_arch_info[cfg->arch];
	unsigned int ix, iy, t = 0;
	bool lines[14] = { };
	struct ttcard *tc;
	u32 phys;

	if (ttcard_harvest_lines(a, cfg, lines, &phys)) {
		pr_debug("harvesting mask: bits beyond the chip's, or all of them set\n");
		return ERR_PTR(-EINVAL);
	}
	tc = kzalloc(sizeof(*tc), GFP_KERNEL);
	if (!tc)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&tc->lock);
	raw_spin_lock_init(&tc->burst_lock);
	init_irq_work(&tc->burst_work, ttcard_burst_end);
	mutex_init(&tc->power_lock);
	tc->power_policy = cfg->power_policy;
	tc->a = a;
	tc->translation = cfg->translation;
	tc->phys_mask = phys;
	memset(tc->tile_at, 0xff, sizeof(tc->tile_at));
	for (iy = 0; iy < a->ny; iy++) {
		for (ix = 0; ix < a->nx; ix++, t++) {
			tc->tx[t] = a->t6_x[ix];
			tc->ty[t] = a->t6_y[iy];
			tc->harvested[t] = lines[a->harvest_rows ? iy : ix];
		}
	}
	tc->ntiles = t;
	ttcard_translate(tc, lines);
	/*
	 * Where host requests go: Blackhole with translation only by
	 * translated coordinates, Wormhole by NOC0 and translated ones
	 */
	for (t = 0; t < tc->ntiles; t++) {
		if (!tc->translation || a->harvest_rows)
			tc->tile_at[tc->tx[t]][tc->ty[t]] = t;
		tc->tile_at[tc->xt[t]][tc->yt[t]] = t;
	}
	tc->ts = tensix_sim_new(t, cfg->arch, cfg->clock_mhz);
	if (IS_ERR(tc->ts)) {
		void *err = tc->ts;

		kfree(tc);
		return err;
	}
	/* tt-kmd's power policy: no client has voted yet */
	mutex_lock(&tc->power_lock);
	ttcard_power_update(tc);
	mutex_unlock(&tc->power_lock);
	sdev->max_register = TT_NOC_BAR0_SIZE - 4;
	return tc;
}

static void ttcard_destroy(void *model)
{
	struct ttcard *tc = model;

	irq_work_sync(&tc->burst_work);
	tensix_sim_free(tc->ts);
	kfree(tc);
}

/* The card handed to the bridge, and the model behind its ops */
struct ttcard_card {
	struct tt_noc_card card;
	struct ttcard *tc;
};

static void ttcard_card_release(struct device *dev)
{
	kfree(container_of(dev, struct ttcard_card, card.adev.dev));
}

/* tt_noc_card::power_vote: the bridge's vote, as a client's in tt-kmd */
static int ttcard_power_vote(struct tt_noc_card *card, bool on)
{
	struct ttcard *tc = container_of(card, struct ttcard_card, card)->tc;

	might_sleep();
	mutex_lock(&tc->power_lock);
	WARN_ON_ONCE(tc->bridge_vote == on);	/* holds and releases alternate */
	tc->bridge_vote = on;
	tc->bridge_votes += on;
	ttcard_power_update(tc);
	mutex_unlock(&tc->power_lock);
	return 0;
}

/* tt_noc_card::reset_seq */
static u32 ttcard_reset_seq(struct tt_noc_card *card)
{
	return atomic_read(&container_of(card, struct ttcard_card, card)->tc->reset_seq);
}

static void ttcard_card_put(void *adev)
{
	auxiliary_device_uninit(adev);
}

static void ttcard_card_del(void *adev)
{
	auxiliary_device_delete(adev);
}

/* Hand the card to the bridge as tt-kmd would: "socpmu_sim.tensix_noc" */
static int ttcard_add_children(struct socpmu_sim_dev *sdev)
{
	const struct ttcard_cfg *cfg = sdev->cfg;
	struct ttcard_card *tcard;
	struct tt_noc_card *card;
	int ret;

	tcard = kzalloc(sizeof(*tcard), GFP_KERNEL);
	if (!tcard)
		return -ENOMEM;
	tcard->tc = sdev->model;
	card = &tcard->card;
	if (cfg->power_op)
		card->power_vote = ttcard_power_vote;
	if (cfg->reset_op)
		card->reset_seq = ttcard_reset_seq;
	card->bar0 = dev_get_regmap(sdev->dev, NULL);
	card->arch = cfg->arch;
	card->tlb = ttcard_arch_info[cfg->arch].reserved[1];
	card->harvest = ((struct ttcard *)sdev->model)->phys_mask;
	card->harvest_known = cfg->harvest_known;
	card->clock_hz = (u64)cfg->clock_mhz * HZ_PER_MHZ;
	card->adev.name = "tensix_noc";
	card->adev.id = sdev->id;
	card->adev.dev.parent = sdev->dev;
	card->adev.dev.release = ttcard_card_release;
	ret = auxiliary_device_init(&card->adev);
	if (ret) {
		kfree(tcard);
		return ret;
	}
	ret = devm_add_action_or_reset(sdev->dev, ttcard_card_put, &card->adev);
	if (ret)
		return ret;
	ret = auxiliary_device_add(&card->adev);
	if (ret)
		return ret;
	return devm_add_action_or_reset(sdev->dev, ttcard_card_del, &card->adev);
}

const struct socpmu_sim_type socpmu_sim_ttcard = {
	.name = "ttcard",
	.cfg_size = sizeof(struct ttcard_cfg),
	.cfg_init = ttcard_cfg_init,
	.cfg_parse = ttcard_cfg_parse,
	.cfg_show = ttcard_cfg_show,
	.create = ttcard_create,
	.destroy = ttcard_destroy,
	.reg_read = ttcard_reg_read,
	.reg_write = ttcard_reg_write,
	.debugfs_init = ttcard_debugfs_init,
	.add_children = ttcard_add_children,
};
