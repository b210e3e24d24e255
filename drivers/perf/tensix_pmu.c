// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tenstorrent Tensix performance counter PMU.
 *
 * Each Tensix core has five counter banks (INSTRN_THREAD, FPU, TDMA_UNPACK,
 * L1, TDMA_PACK). Every counter of a started bank counts at once; the select
 * field of the bank's mode register only chooses which one OUT_H shows, and
 * OUT_L shows the bank's reference cycles. Both are 32 bits and wrap. Which
 * 8 of the L1 signals are counted is chosen by PERF_CNT_MUX_CTRL and latched
 * when the L1 bank starts.
 *
 * So a bank is started (which zeroes it) when its first event on a core is
 * scheduled and stopped when its last one goes; events read the running
 * counters through the select mux and the socpmu core extends them to 64
 * bits. While perf schedules events with the PMU disabled, the banks it
 * touches are held (tensix_hold()) and restarted together, so that a
 * group's members count the same cycles. L1 events that need another mux
 * value than the one latched on a core are refused at add time, so perf
 * multiplexes them.
 *
 * One PMU per device, tensix_<n>. config1 selects a core; without one an
 * event counts the sum over every core of the device. A device comes from
 * the device tree (a CPU that sees the cores' register blocks at a stride,
 * e.g. Blackhole's on-card RISC-V cluster) or from the Tensix NOC bridge
 * (tensix_noc.ko: the Tensix tiles of a PCIe card, one regmap per tile,
 * named by NOC coordinates).
 *
 * A card's PMU also holds the card's power vote while any of its events
 * exists (the tiles of a card nobody voted for are clock gated), follows
 * the card's resets (tensix_card_ok(): counts freeze while a reset runs and
 * go on from the re-armed counters afterwards) and keeps the bus accesses
 * of a read of its scheduled events within a budget (tensix_add()).
 */

#define pr_fmt(fmt) "tensix_pmu: " fmt

#include <linux/auxiliary_bus.h>
#include <linux/bitfield.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>

#include <socpmu/core.h>
#include <socpmu/tensix_regs.h>
#include <socpmu/tt_noc.h>

enum tensix_arch {
	TENSIX_WORMHOLE,
	TENSIX_BLACKHOLE,
};

static const char *const tensix_arch_names[] = {
	[TENSIX_WORMHOLE] = "wormhole",
	[TENSIX_BLACKHOLE] = "blackhole",
};

/* What the architectures wire: L1 mux groups and Tensix tiles per chip */
static const struct {
	unsigned int mux_bits;
	unsigned int l1_groups;
	unsigned int max_cores;
} tensix_arch_info[] = {
	[TENSIX_WORMHOLE] = { TENSIX_MUX_BITS_WORMHOLE, TENSIX_L1_GROUPS_WORMHOLE,
			      TENSIX_MAX_CORES_WORMHOLE },
	[TENSIX_BLACKHOLE] = { TENSIX_MUX_BITS_BLACKHOLE, TENSIX_L1_GROUPS_BLACKHOLE,
			       TENSIX_MAX_CORES_BLACKHOLE },
};

static const unsigned int tensix_ctrl_base[] = TENSIX_BANK_CTRL_BASES;
static const unsigned int tensix_out_base[] = TENSIX_BANK_OUT_BASES;
static const char *const tensix_bank_names[] = TENSIX_BANK_NAMES;

#define TENSIX_CFG_VALID	(TENSIX_CFG_EVENT_MASK << TENSIX_CFG_EVENT_SHIFT | \
				 TENSIX_CFG_BANK_MASK << TENSIX_CFG_BANK_SHIFT | \
				 TENSIX_CFG_MUX_MASK << TENSIX_CFG_MUX_SHIFT | \
				 TENSIX_CFG_CYCLES)

/**
 * struct tensix_bank_state - one bank of one core
 * @users: scheduled events counting on it; it runs while non-zero, but
 *	for the rest of a window in which it is @held
 * @mux: L1 mux value latched at start (L1 bank only)
 * @mode: last value written to the mode register (select cache)
 * @held: stopped, or not started yet, until the end of the current window
 *	in which perf has the PMU disabled or adds a group (tensix_hold())
 * @pending: not started yet in that window: the window's end starts it,
 *	which zeroes it, so its counters read 0 until then
 * @foreign: another agent reprogrammed the bank (tensix_foreign()): its
 *	events' counts stay frozen until the bank's last event goes
 * @checked: tensix_foreign() found the bank the driver's in the current
 *	read window: not asked again until the window ends
 */
struct tensix_bank_state {
	unsigned int users;
	u8 mux;
	u32 mode;
	bool held;
	bool pending;
	bool foreign;
	bool checked;
};

/**
 * struct tensix_unit - where a core's register block is
 * @map: the regmap
 * @base: address of the block in @map
 * @x: NOC0 x of the tile (bridge devices only)
 * @y: NOC0 y of the tile
 * @ax: x the bridge addresses the tile by (translated when the NOC translates)
 * @ay: y the bridge addresses the tile by
 */
struct tensix_unit {
	struct regmap *map;
	unsigned int base;
	u8 x, y;
	u8 ax, ay;
};

/**
 * struct tensix_pmu - one device
 * @sp: the socpmu
 * @arch: the chip
 * @mux_bits: width of the L1 mux field
 * @nr_cores: number of cores (units)
 * @noc: the cores are NOC tiles (with coordinates)
 * @hold: in a window where banks are held (see tensix_hold())
 * @window: in a read window (read_begin to read_end: a group transaction, a
 *	poll sweep, a PMU-disabled window)
 * @nr_held: banks held in that window
 * @nr_checked: banks checked by tensix_foreign() in the read window
 * @tiles: the bridge's tiles (NOC devices), whose power vote and reset
 *	sequence the PMU uses; NULL otherwise
 * @vote_lock: serialises @nr_voters, @gone and the power vote calls
 * @nr_voters: events that exist (initialised and not destroyed) while the
 *	card's power vote is held for them
 * @gone: the tiles went away: the vote was released, never called again
 * @seq: the card's reset sequence when the banks were last armed
 * @frozen: a card reset started under the driver: no register access until
 *	it is over (tensix_card_ok())
 * @resets: card resets the PMU re-armed after
 * @budget: most tile register accesses a read of every scheduled event may
 *	cost (0: no limit), see tensix_add()
 * @cost: what a read of the scheduled flexible events costs,
 *	tensix_ev_cost() each
 * @units: register access of each core, after @banks in the same allocation
 * @banks: per-core bank state
 */
struct tensix_pmu {
	struct socpmu sp;
	enum tensix_arch arch;
	unsigned int mux_bits;
	unsigned int nr_cores;
	bool noc;
	bool hold;
	bool window;
	unsigned int nr_held;
	unsigned int nr_checked;
	struct tensix_tiles *tiles;
	struct mutex vote_lock;	/* @nr_voters, @gone, the vote */
	unsigned int nr_voters;
	bool gone;
	u32 seq;
	bool frozen;
	unsigned int resets;
	unsigned int budget;
	unsigned int cost;
	struct tensix_unit *units;
	struct tensix_bank_state banks[][TENSIX_NR_BANKS];
};

static DEFINE_IDA(tensix_ida);

static inline struct tensix_pmu *to_tensix(struct socpmu *sp)
{
	return container_of(sp, struct tensix_pmu, sp);
}

/* Decoded perf_event_attr fields */
static unsigned int tensix_ev_sel(struct perf_event *event)
{
	return (event->attr.config >> TENSIX_CFG_EVENT_SHIFT) & TENSIX_CFG_EVENT_MASK;
}

static unsigned int tensix_ev_bank(struct perf_event *event)
{
	return (event->attr.config >> TENSIX_CFG_BANK_SHIFT) & TENSIX_CFG_BANK_MASK;
}

static unsigned int tensix_ev_mux(struct perf_event *event)
{
	return (event->attr.config >> TENSIX_CFG_MUX_SHIFT) & TENSIX_CFG_MUX_MASK;
}

static bool tensix_ev_cycles(struct perf_event *event)
{
	return event->attr.config & TENSIX_CFG_CYCLES;
}

/* L1 counters depend on the mux latched at start; the cycles (OUT_L) do not */
static bool tensix_ev_muxed(struct perf_event *event)
{
	return tensix_ev_bank(event) == TENSIX_BANK_L1 && !tensix_ev_cycles(event);
}

/* The cores an event counts on: [*first, *first + return value) */
static unsigned int tensix_ev_cores(struct tensix_pmu *tp, struct perf_event *event,
				    unsigned int *first)
{
	return socpmu_units(event, tp->nr_cores, first);
}

/* Bank, select, L1 mux group and architectures of every wired counter */
static const struct {
	u8 bank;
	u16 sel;
	u8 mux;
	u8 arch;
} tensix_counters[] = {
#define TENSIX_COUNTER(name, b, id, m, a) { TENSIX_BANK_##b, (id), (m), (a) },
	TENSIX_EVENTS(TENSIX_COUNTER)
#undef TENSIX_COUNTER
};

/* Does the RTL wire select @sel of @bank (L1: in mux group @mux) on this chip? */
static bool tensix_select_wired(struct tensix_pmu *tp, unsigned int bank,
				unsigned int sel, unsigned int mux)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tensix_counters); i++)
		if ((tensix_counters[i].arch & BIT(tp->arch)) &&
		    tensix_counters[i].bank == bank && tensix_counters[i].sel == sel &&
		    (bank != TENSIX_BANK_L1 || tensix_counters[i].mux == mux))
			return true;
	return false;
}

/**
 * tensix_vote_get() - an event comes: hold the card's power vote
 * @tp: the device
 *
 * tt-kmd's power policy keeps the tiles of a card clock gated until a
 * client votes for them, and gated tiles count nothing: a system-wide
 * ``perf stat`` with no workload running would read 0. So the first event
 * of a card's PMU holds the card's vote (tensix_tiles::power_vote) and the
 * last one to go releases it (tensix_vote_put()). A card without a vote
 * op counts only while someone else votes (said in the log and in
 * ``power_vote``). May sleep: called from event_init.
 *
 * Return: 0, or the vote's error (the event is refused).
 */
static int tensix_vote_get(struct tensix_pmu *tp)
{
	int ret = 0;

	if (!tp->tiles || !tp->tiles->power_vote)
		return 0;
	mutex_lock(&tp->vote_lock);
	if (tp->gone)
		ret = -ENODEV;
	else if (!tp->nr_voters)
		ret = tp->tiles->power_vote(tp->tiles, true);
	if (!ret)
		tp->nr_voters++;
	else
		socpmu_refuse(&tp->sp,
			      "the card's power vote failed (%d): gated tiles would count nothing",
			      ret);
	mutex_unlock(&tp->vote_lock);
	return ret;
}

/* An event goes: the last one releases the card's power vote */
static void tensix_vote_put(struct tensix_pmu *tp)
{
	if (!tp->tiles || !tp->tiles->power_vote)
		return;
	mutex_lock(&tp->vote_lock);
	if (!--tp->nr_voters && !tp->gone)
		tp->tiles->power_vote(tp->tiles, false);
	mutex_unlock(&tp->vote_lock);
}

static void tensix_destroy(struct socpmu *sp, struct perf_event *event)
{
	tensix_vote_put(to_tensix(sp));
}

/* The tiles go: release the vote now, the events' ends will not */
static void tensix_vote_gone(struct tensix_pmu *tp)
{
	if (!tp->tiles || !tp->tiles->power_vote)
		return;
	mutex_lock(&tp->vote_lock);
	if (tp->nr_voters && !tp->gone)
		tp->tiles->power_vote(tp->tiles, false);
	tp->gone = true;
	mutex_unlock(&tp->vote_lock);
}

static int tensix_event_init(struct socpmu *sp, struct perf_event *event,
			     unsigned int *nr, unsigned int *width)
{
	struct tensix_pmu *tp = to_tensix(sp);
	u64 cfg = event->attr.config, cfg1 = event->attr.config1;
	unsigned int bank = tensix_ev_bank(event), mux = tensix_ev_mux(event);
	unsigned int first;

	if ((cfg & ~TENSIX_CFG_VALID) || (cfg1 & ~SOCPMU_CFG1_VALID) ||
	    event->attr.config2) {
		socpmu_refuse(sp, "reserved config bits set");
		return -EINVAL;
	}
	if (bank >= TENSIX_NR_BANKS) {
		socpmu_refuse(sp, "no bank %u", bank);
		return -EINVAL;
	}
	if (mux && (!tensix_ev_muxed(event) ||
		    mux >= tensix_arch_info[tp->arch].l1_groups)) {
		socpmu_refuse(sp, "l1mux=%u invalid for bank %u on %s", mux, bank,
			      tensix_arch_names[tp->arch]);
		return -EINVAL;
	}
	if (tensix_ev_cycles(event) ? tensix_ev_sel(event) != 0 :
	    !tensix_select_wired(tp, bank, tensix_ev_sel(event), mux)) {
		socpmu_refuse(sp, "%s wires no counter 0x%x in bank %u (l1mux %u)",
			      tensix_arch_names[tp->arch], tensix_ev_sel(event), bank, mux);
		return -EINVAL;
	}
	*nr = tensix_ev_cores(tp, event, &first);
	if (first >= tp->nr_cores) {
		socpmu_refuse(sp, "no core %u (device has %u)", first, tp->nr_cores);
		return -EINVAL;
	}
	*width = 32;
	return tensix_vote_get(tp);
}

/* Two L1 events that need different mux values on a shared core cannot count at once. */
static bool tensix_compatible(struct socpmu *sp, struct perf_event *a,
			      struct perf_event *b)
{
	struct tensix_pmu *tp = to_tensix(sp);
	unsigned int fa, fb, na, nb;

	if (!tensix_ev_muxed(a) || !tensix_ev_muxed(b) || tensix_ev_mux(a) == tensix_ev_mux(b))
		return true;
	na = tensix_ev_cores(tp, a, &fa);
	nb = tensix_ev_cores(tp, b, &fb);
	return fa + na <= fb || fb + nb <= fa;
}

/*
 * The regmaps are MMIO, a NOC window or the simulator: none sleeps, and
 * only a NOC window fails: a read from a card that stopped answering (reset,
 * or off the bus: see tensix_noc.c). A write cannot tell.
 */
static void tensix_write(struct tensix_pmu *tp, unsigned int core,
			 unsigned int offset, u32 val)
{
	const struct tensix_unit *u = &tp->units[core];

	regmap_write(u->map, u->base + offset, val);
}

static const char tensix_card_gone[] =
	"the card stopped answering (reset, or off the bus: reads return all ones)";

/* The card's reset sequence moved since the banks were armed */
static bool tensix_reset_seen(struct tensix_pmu *tp)
{
	return tp->tiles && tp->tiles->reset_seq &&
	       tp->tiles->reset_seq(tp->tiles) != tp->seq;
}

static u32 tensix_read(struct tensix_pmu *tp, unsigned int core, unsigned int offset)
{
	const struct tensix_unit *u = &tp->units[core];
	unsigned int val = 0;

	/*
	 * A card that stopped answering: during a reset its provider
	 * announced, the PMU freezes until the reset is over
	 * (tensix_card_ok()); otherwise it is dead from here on. Either way
	 * the caller stops at the next tensix_lost() and nothing of this
	 * callback's reads is folded into a count.
	 */
	if (regmap_read(u->map, u->base + offset, &val)) {
		if (tensix_reset_seen(tp))
			tp->frozen = true;
		else
			socpmu_lost(&tp->sp, tp->noc ? tensix_card_gone : "register reads fail");
		return 0;
	}
	return val;
}

/* A read failed (socpmu_lost()), or a card reset runs: touch the hardware no more */
static bool tensix_lost(struct tensix_pmu *tp)
{
	return tp->sp.dead || tp->frozen;
}

/* Point the bank's output mux at @sel; a register write only on a change. */
static void tensix_select(struct tensix_pmu *tp, unsigned int core,
			  unsigned int bank, unsigned int sel)
{
	struct tensix_bank_state *bs = &tp->banks[core][bank];
	u32 mode = TENSIX_MODE_CONTINUOUS | sel << TENSIX_SEL_SHIFT;

	if (bs->mode == mode)
		return;
	tensix_write(tp, core, tensix_ctrl_base[bank] + TENSIX_REG_MODE, mode);
	bs->mode = mode;
}

/* Start and stop are rising-edge triggered; a start zeroes the bank */
static void tensix_bank_edge(struct tensix_pmu *tp, unsigned int core,
			     unsigned int bank, u32 edge)
{
	unsigned int ctrl = tensix_ctrl_base[bank] + TENSIX_REG_START_STOP;

	tensix_write(tp, core, ctrl, 0);
	tensix_write(tp, core, ctrl, edge);
}

/* Write the bank's mode register (its select), whatever the cache says */
static void tensix_write_mode(struct tensix_pmu *tp, unsigned int core, unsigned int bank,
			      u32 mode)
{
	tensix_write(tp, core, tensix_ctrl_base[bank] + TENSIX_REG_MODE, mode);
	tp->banks[core][bank].mode = mode;
}

/* Select the signals of L1 mux group @mux for @core's L1 bank */
static void tensix_latch_mux(struct tensix_pmu *tp, unsigned int core, unsigned int mux)
{
	u32 field = GENMASK(TENSIX_MUX_SHIFT + tp->mux_bits - 1, TENSIX_MUX_SHIFT);
	u32 val = tensix_read(tp, core, TENSIX_PERF_CNT_MUX_CTRL);

	/* (a card reset's end latches it, see tensix_rearm()) */
	tp->banks[core][TENSIX_BANK_L1].mux = mux;
	if (tensix_lost(tp))
		return;
	/* The other bits of MUX_CTRL belong to another function */
	val = (val & ~field) | (mux << TENSIX_MUX_SHIFT);
	tensix_write(tp, core, TENSIX_PERF_CNT_MUX_CTRL, val);
}

/*
 * Set up the bank of the first event on it and start it, or, in a window
 * where banks are held, leave the start to the window's end.
 */
static void tensix_bank_start(struct tensix_pmu *tp, unsigned int core,
			      unsigned int bank, unsigned int mux, unsigned int sel)
{
	struct tensix_bank_state *bs = &tp->banks[core][bank];

	if (bank == TENSIX_BANK_L1)
		tensix_latch_mux(tp, core, mux);
	bs->foreign = false;
	bs->mode = U32_MAX;
	tensix_select(tp, core, bank, sel);
	if (tp->hold) {
		bs->held = true;
		bs->pending = true;
		tp->nr_held++;
		return;
	}
	tensix_bank_edge(tp, core, bank, TENSIX_START);
}

/* Set every bank that has events up again and start it (after a card reset) */
static void tensix_rearm(struct socpmu *sp)
{
	struct tensix_pmu *tp = to_tensix(sp);
	struct tensix_bank_state *bs;
	unsigned int core, bank;

	tp->nr_held = 0;
	tp->nr_checked = 0;
	for (core = 0; core < tp->nr_cores && !tensix_lost(tp); core++) {
		for (bank = 0; bank < TENSIX_NR_BANKS && !tensix_lost(tp); bank++) {
			bs = &tp->banks[core][bank];
			bs->held = false;
			bs->pending = false;
			bs->checked = false;
			bs->foreign = false;
			if (!bs->users)
				continue;
			if (bank == TENSIX_BANK_L1)
				tensix_latch_mux(tp, core, bs->mux);
			tensix_write_mode(tp, core, bank, bs->mode);
			tensix_bank_edge(tp, core, bank, TENSIX_START);
		}
	}
}

/**
 * tensix_card_ok() - may the driver touch the card now?
 * @tp: the device, locked
 *
 * Compares the card's reset sequence (tensix_tiles::reset_seq) with the one
 * the banks were armed under, at every callback that touches the card. A
 * reset zeroes and stops the counters, and while it runs the card may not
 * answer: an odd sequence (a reset running) freezes every count, with no
 * register access at all (a read that spins, or fails, with interrupts off
 * on a card whose link is down would be worse than none). A new even one
 * (the reset is over, however short it was: a reset between two polls is
 * seen too) re-arms every bank that has events: their counts go on from 0
 * (socpmu_rearm()); what they counted between their last read and the
 * reset is lost. Without a reset sequence a reset is seen only as reads of
 * all ones (see tensix_read()).
 *
 * Return: true when the banks are the driver's (armed under the current
 * sequence) and the card answers.
 */
static bool tensix_card_ok(struct tensix_pmu *tp)
{
	u32 seq;

	if (tp->sp.dead)
		return false;
	if (!tp->tiles || !tp->tiles->reset_seq)
		return true;
	seq = tp->tiles->reset_seq(tp->tiles);
	if (seq == tp->seq && !tp->frozen)
		return true;
	if (seq & 1) {
		tp->frozen = true;
		return false;
	}
	tp->seq = seq;
	tp->frozen = false;
	tp->resets++;
	socpmu_rearm(&tp->sp, tensix_rearm);
	dev_info_ratelimited(tp->sp.dev, "%s: card reset: events re-armed, counting again from the end of the reset (what they counted since their last read is lost)\n",
			     tp->sp.name);
	return !tensix_lost(tp);
}

/**
 * tensix_hold() - stop a running bank until the end of the window
 * @tp: the device
 * @core: the core
 * @bank: the bank
 *
 * A bank cannot be read at one instant: each counter is a select and a
 * read, each core's bank another access (through a NOC window on a card),
 * and a host may be preempted between any two. While perf has the PMU
 * disabled or adds a group, the first access to a running bank stops it
 * (and the first event on an idle one does not start it, see
 * tensix_bank_start()), so that every member of a group is read at the
 * instant it stopped and starts from the same start edge at the window's
 * end (tensix_read_end()). Like a CPU PMU that perf disables, the bank does
 * not count in between: a few register accesses.
 */
static void tensix_hold(struct tensix_pmu *tp, unsigned int core, unsigned int bank)
{
	struct tensix_bank_state *bs = &tp->banks[core][bank];

	if (!tp->hold || bs->held || !bs->users)
		return;
	tensix_bank_edge(tp, core, bank, TENSIX_STOP);
	bs->held = true;
	tp->nr_held++;
}

/*
 * The L1 mux that @event's group needs on @core: its own for a muxed L1
 * event; for an l1_cycles event, that of a muxed L1 event of its group on
 * that core (it starts the bank for them, and its cycles are their window).
 * Returns false when nothing on @core needs a particular mux.
 */
static bool tensix_group_mux(struct tensix_pmu *tp, struct perf_event *event,
			     unsigned int core, unsigned int *mux)
{
	struct perf_event *leader = event->group_leader, *sibling;
	unsigned int first, n;

	if (tensix_ev_muxed(event)) {
		*mux = tensix_ev_mux(event);
		return true;
	}
	if (leader->pmu == event->pmu && tensix_ev_muxed(leader)) {
		n = tensix_ev_cores(tp, leader, &first);
		if (core >= first && core < first + n) {
			*mux = tensix_ev_mux(leader);
			return true;
		}
	}
	for_each_sibling_event(sibling, leader) {
		if (sibling->pmu != event->pmu || !tensix_ev_muxed(sibling))
			continue;
		n = tensix_ev_cores(tp, sibling, &first);
		if (core >= first && core < first + n) {
			*mux = tensix_ev_mux(sibling);
			return true;
		}
	}
	return false;
}

/* Does a scheduled event need the mux latched in @core's L1 bank? */
static bool tensix_mux_needed(struct tensix_pmu *tp, unsigned int core)
{
	struct socpmu_hw_event *se;
	unsigned int first, n, mux;

	list_for_each_entry(se, &tp->sp.active, node) {
		struct perf_event *event = socpmu_event_of(se);

		if (tensix_ev_bank(event) != TENSIX_BANK_L1)
			continue;
		n = tensix_ev_cores(tp, event, &first);
		if (core >= first && core < first + n && tensix_group_mux(tp, event, core, &mux))
			return true;
	}
	return false;
}

/*
 * Tile register accesses a read of @event may cost, per core it counts on:
 * the check for another agent's configuration (a mode read, and a mux read
 * on L1), a select write and the counter read. The budget counts this for
 * every scheduled event, although the check is shared by a bank's events
 * in a read window: an upper bound.
 */
#define TENSIX_EV_TILE_COST	4

/*
 * The default budget of a card's PMU: 2048 tile register accesses, each a
 * window programming (2 or 3 posted writes) and an access, at most about
 * 2.7 ms of bus time at tt-umd's figures (1027 ns a read, 93 ns a write).
 * A whole-chip event costs 320 on a Wormhole, 560 on a Blackhole.
 */
#define TENSIX_NOC_BUDGET	2048

static unsigned int tensix_ev_cost(struct tensix_pmu *tp, struct perf_event *event)
{
	unsigned int first;

	return tensix_ev_cores(tp, event, &first) * TENSIX_EV_TILE_COST;
}

/* Is @event pinned? perf pins a group by its leader's attr.pinned */
static bool tensix_ev_pinned(struct perf_event *event)
{
	return event->group_leader->attr.pinned;
}

/* What the budget counts of @event: flexible events, see tensix_add() */
static unsigned int tensix_ev_budgeted(struct tensix_pmu *tp, struct perf_event *event)
{
	return tensix_ev_pinned(event) ? 0 : tensix_ev_cost(tp, event);
}

/* Is a flexible event of another group than @event's scheduled? */
static bool tensix_others_scheduled(struct tensix_pmu *tp, struct perf_event *event)
{
	struct socpmu_hw_event *se;
	struct perf_event *other;

	list_for_each_entry(se, &tp->sp.active, node) {
		other = socpmu_event_of(se);
		if (!tensix_ev_pinned(other) && other->group_leader != event->group_leader)
			return true;
	}
	return false;
}

/*
 * Claim the banks of @event's cores. On a card every register access is a
 * NOC access with interrupts off, and a poll or a group read reads every
 * scheduled event: a flexible event whose read would take the scheduled
 * flexible events' cost (tensix_ev_cost()) over the PMU's budget
 * (``access_budget``) is refused with -EAGAIN, so that perf multiplexes
 * instead of reading more with interrupts off. An event of the only
 * flexible group scheduled is always taken (a group larger than the budget
 * still counts, alone). Pinned events are not counted and always taken:
 * perf schedules them first and puts one it cannot schedule in error, so
 * what they cost is what the user asked for; the budget bounds what
 * multiplexing adds to it.
 */
static int tensix_add(struct socpmu *sp, struct perf_event *event)
{
	struct tensix_pmu *tp = to_tensix(sp);
	unsigned int bank = tensix_ev_bank(event), mux, cost = tensix_ev_budgeted(tp, event);
	unsigned int first, n, core;
	struct tensix_bank_state *bs;
	bool ok, has_mux;

	if (tp->budget && cost && tp->cost + cost > tp->budget &&
	    tensix_others_scheduled(tp, event))
		return -EAGAIN;
	n = tensix_ev_cores(tp, event, &first);
	/*
	 * The bank counts one mux group at a time. An l1_cycles event of a
	 * group that needs another mux must not count either: it would add
	 * the cycles of someone else's window to its group's, while perf
	 * tries the group and rolls it back. A bank whose users need no mux
	 * (l1_cycles alone) takes the new one, latched while it is held.
	 */
	if (bank == TENSIX_BANK_L1) {
		for (core = first; core < first + n; core++) {
			bs = &tp->banks[core][bank];
			if (bs->users && tensix_group_mux(tp, event, core, &mux) &&
			    bs->mux != mux && (!tp->hold || tensix_mux_needed(tp, core)))
				return -EAGAIN;
		}
	}
	tp->cost += cost;
	ok = tensix_card_ok(tp);
	for (core = first; core < first + n; core++) {
		bs = &tp->banks[core][bank];
		has_mux = tensix_group_mux(tp, event, core, &mux);
		/*
		 * During a card reset (or from a read that found one starting)
		 * only the bank state: the reset's end sets up every bank that
		 * has events (tensix_rearm()). (The bank state of a card that
		 * stopped answering for good is moot: never used again.)
		 */
		if (!ok || tensix_lost(tp)) {
			if (!bs->users) {
				bs->mux = has_mux ? mux : 0;
				bs->mode = TENSIX_MODE_CONTINUOUS |
					   tensix_ev_sel(event) << TENSIX_SEL_SHIFT;
			} else if (bank == TENSIX_BANK_L1 && has_mux) {
				bs->mux = mux;
			}
			bs->users++;
			continue;
		}
		if (bs->users) {
			tensix_hold(tp, core, bank);
			if (bank == TENSIX_BANK_L1 && has_mux && bs->mux != mux)
				tensix_latch_mux(tp, core, mux);
			bs->users++;
			continue;
		}
		bs->users++;
		tensix_bank_start(tp, core, bank, has_mux ? mux : 0, tensix_ev_sel(event));
	}
	return 0;
}

static void tensix_del(struct socpmu *sp, struct perf_event *event)
{
	struct tensix_pmu *tp = to_tensix(sp);
	unsigned int bank = tensix_ev_bank(event);
	unsigned int first, n, core;
	bool ok = tensix_card_ok(tp);

	tp->cost -= tensix_ev_budgeted(tp, event);
	n = tensix_ev_cores(tp, event, &first);
	for (core = first; core < first + n; core++) {
		struct tensix_bank_state *bs = &tp->banks[core][bank];

		if (--bs->users)
			continue;
		if (bs->held) {
			bs->held = false;
			bs->pending = false;
			tp->nr_held--;
		}
		/* a reset stopped it; a card that does not answer is not asked */
		if (ok && !tensix_lost(tp))
			tensix_bank_edge(tp, core, bank, TENSIX_STOP);
	}
}

/**
 * tensix_foreign() - has another agent reprogrammed a bank under its events?
 * @tp: the device
 * @core: the core
 * @bank: the bank
 *
 * tt-metal's device profiler and tt-exalens program the same registers. The
 * bank's mode register (its select) and, for L1, the mux field of
 * PERF_CNT_MUX_CTRL must hold what the driver last wrote; when one does not,
 * what the bank shows is someone else's selection: say so once per bank
 * (ratelimited) and report it until the bank's last event goes, so that the
 * caller freezes the counts instead of adding someone else's. In a read
 * window (a poll sweep, a group read, perf rotating events) a bank is
 * checked once: the window's reads of its other events cost no more reads.
 *
 * Return: true when the bank is no longer the driver's.
 */
static bool tensix_foreign(struct tensix_pmu *tp, unsigned int core, unsigned int bank)
{
	struct tensix_bank_state *bs = &tp->banks[core][bank];
	u32 field = GENMASK(TENSIX_MUX_SHIFT + tp->mux_bits - 1, TENSIX_MUX_SHIFT);
	u32 mode, mux = bs->mux;

	if (bs->foreign)
		return true;
	if (bs->checked)
		return false;
	mode = tensix_read(tp, core, tensix_ctrl_base[bank] + TENSIX_REG_MODE);
	if (bank == TENSIX_BANK_L1)
		mux = (tensix_read(tp, core, TENSIX_PERF_CNT_MUX_CTRL) & field) >> TENSIX_MUX_SHIFT;
	if (tensix_lost(tp))
		return false;
	if (mode == bs->mode && mux == bs->mux) {
		if (tp->window) {
			bs->checked = true;
			tp->nr_checked++;
		}
		return false;
	}
	bs->foreign = true;
	pr_warn_ratelimited("%s: core %u %s bank reprogrammed by another agent (mode %#x, l1 mux %u; set %#x, %u): its events stop counting until they close\n",
			    tp->sp.name, core, tensix_bank_names[bank], mode, mux,
			    bs->mode, bs->mux);
	return true;
}

static void tensix_read_event(struct socpmu *sp, struct perf_event *event, u64 *vals)
{
	struct tensix_pmu *tp = to_tensix(sp);
	unsigned int bank = tensix_ev_bank(event), sel = tensix_ev_sel(event);
	unsigned int out = tensix_out_base[bank];
	bool ok = tensix_card_ok(tp);
	unsigned int first, n, i;

	n = tensix_ev_cores(tp, event, &first);
	/* A card that stopped answering is not asked n times */
	for (i = 0; i < n && ok && !tensix_lost(tp); i++) {
		/*
		 * Its start is to come and zeroes it: what it shows now is
		 * what the last events on it left. Reading that would only
		 * keep the held banks stopped longer (see tensix_hold()).
		 */
		if (tp->banks[first + i][bank].pending) {
			vals[i] = 0;
			continue;
		}
		tensix_hold(tp, first + i, bank);
		if (tensix_foreign(tp, first + i, bank)) {
			vals[i] = socpmu_hw(event)->prev[i];
			continue;
		}
		if (tensix_ev_cycles(event)) {
			vals[i] = tensix_read(tp, first + i, out);
		} else {
			tensix_select(tp, first + i, bank, sel);
			vals[i] = tensix_read(tp, first + i, out + TENSIX_REG_OUT_H);
		}
	}
	/*
	 * A reset that started during the reads, or that runs: these values
	 * continue nothing. The counts stay as they are (tensix_card_ok()
	 * re-arms once it is over).
	 */
	if (tp->frozen || (!tp->sp.dead && tensix_reset_seen(tp)))
		for (i = 0; i < n; i++)
			vals[i] = socpmu_hw(event)->prev[i];
}

static void tensix_read_begin(struct socpmu *sp, enum socpmu_window why)
{
	struct tensix_pmu *tp = to_tensix(sp);

	tp->hold = why == SOCPMU_DISABLED || why == SOCPMU_TXN_ADD;
	tp->window = true;
}

/* The read window ends: every bank is checked again at its next read */
static void tensix_uncheck(struct tensix_pmu *tp)
{
	unsigned int core, bank;

	for (core = 0; core < tp->nr_cores && tp->nr_checked; core++) {
		for (bank = 0; bank < TENSIX_NR_BANKS; bank++) {
			if (tp->banks[core][bank].checked) {
				tp->banks[core][bank].checked = false;
				tp->nr_checked--;
			}
		}
	}
}

/* Forget the banks held in the window, without touching the card */
static void tensix_unhold(struct tensix_pmu *tp)
{
	unsigned int core, bank;

	for (core = 0; core < tp->nr_cores; core++) {
		for (bank = 0; bank < TENSIX_NR_BANKS; bank++) {
			tp->banks[core][bank].held = false;
			tp->banks[core][bank].pending = false;
		}
	}
	tp->nr_held = 0;
}

/* Start every held bank that still has users: one start edge each */
static void tensix_restart_held(struct socpmu *sp)
{
	struct tensix_pmu *tp = to_tensix(sp);
	struct tensix_bank_state *bs;
	unsigned int core, bank;

	for (core = 0; core < tp->nr_cores; core++) {
		for (bank = 0; bank < TENSIX_NR_BANKS; bank++) {
			bs = &tp->banks[core][bank];
			if (!bs->held)
				continue;
			tensix_bank_edge(tp, core, bank, TENSIX_START);
			bs->held = false;
			bs->pending = false;
		}
	}
}

/* Counter @i of @event is on a held bank: the window's end restarts it */
static bool tensix_zeroed(struct socpmu *sp, struct perf_event *event, unsigned int i)
{
	struct tensix_pmu *tp = to_tensix(sp);
	unsigned int first;

	tensix_ev_cores(tp, event, &first);
	return tp->banks[first + i][tensix_ev_bank(event)].held;
}

static void tensix_read_end(struct socpmu *sp)
{
	struct tensix_pmu *tp = to_tensix(sp);

	tp->hold = false;
	tp->window = false;
	tensix_uncheck(tp);
	if (!tp->nr_held)
		return;
	/* A reset runs: its end starts every bank that has events */
	if (!tensix_card_ok(tp)) {
		tensix_unhold(tp);
		return;
	}
	socpmu_restart(sp, tensix_restart_held, tensix_zeroed);
	tp->nr_held = 0;
}

/*
 * Multiplexed L1 mux groups: each switch stops the bank while the outgoing
 * group is read, time perf counts as the incoming group's. At perf's 4 ms
 * that took 3-14 % of a full set's counts on the model; at 100 ms about 1 %
 * (tensix-pmu.rst, "L1 mux").
 */
#define TENSIX_MUX_INTERVAL_MS	100

static const struct socpmu_ops tensix_ops = {
	.mux_interval_ms = TENSIX_MUX_INTERVAL_MS,
	.event_init	= tensix_event_init,
	.compatible	= tensix_compatible,
	.add		= tensix_add,
	.del		= tensix_del,
	.read		= tensix_read_event,
	.read_begin	= tensix_read_begin,
	.read_end	= tensix_read_end,
	.destroy	= tensix_destroy,
};

/* sysfs */

struct tensix_event_attr {
	struct device_attribute attr;
	u16 sel;
	u8 bank;
	u8 mux;
	u8 arch;	/* TENSIX_ARCH_* the event exists on */
	bool cycles;
};

static ssize_t tensix_event_show(struct device *dev, struct device_attribute *attr,
				 char *buf)
{
	struct tensix_event_attr *ea = container_of(attr, struct tensix_event_attr, attr);
	int len;

	if (ea->cycles)
		len = sysfs_emit(buf, "bank=%u,cycles=1", ea->bank);
	else if (ea->sel & TENSIX_SEL_GRANT)
		len = sysfs_emit(buf, "bank=%u,event=0x%x,grant=1", ea->bank,
				 ea->sel & ~TENSIX_SEL_GRANT);
	else
		len = sysfs_emit(buf, "bank=%u,event=0x%x", ea->bank, ea->sel);
	if (ea->bank == TENSIX_BANK_L1 && !ea->cycles)
		len += sysfs_emit_at(buf, len, ",l1mux=%u", ea->mux);
	return len + sysfs_emit_at(buf, len, "\n");
}

#define TENSIX_EVENT_ATTR(_name, _bank, _sel, _mux, _arch, _cycles)		\
	(&((struct tensix_event_attr[]) {					\
		{ __ATTR(_name, 0444, tensix_event_show, NULL),			\
		  _sel, TENSIX_BANK_##_bank, _mux, _arch, _cycles }		\
	})[0].attr.attr),
#define TENSIX_COUNTER_ATTR(_name, _bank, _sel, _mux, _arch)			\
	TENSIX_EVENT_ATTR(_name, _bank, _sel, _mux, _arch, false)
#define TENSIX_CYCLES_ATTR(_name, _bank)					\
	TENSIX_EVENT_ATTR(_name, _bank, 0, 0, TENSIX_ARCH_BOTH, true)

static ssize_t tensix_unit_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "cycles\n");
}

/* <name>.unit: the reference cycles count cycles of the core clock */
#define TENSIX_CYCLES_UNIT_ATTR(_name, _bank)					\
	(&((struct tensix_event_attr[]) {					\
		{ { .attr = { .name = #_name ".unit", .mode = 0444 },		\
		    .show = tensix_unit_show },					\
		  0, TENSIX_BANK_##_bank, 0, TENSIX_ARCH_BOTH, true }		\
	})[0].attr.attr),

/*
 * The RTL names of both architectures and the seed's aliases, some names
 * twice with another select per architecture: the chip's arch picks.
 */
static struct attribute *tensix_event_attrs[] = {
	TENSIX_EVENTS(TENSIX_COUNTER_ATTR)
	TENSIX_SEED_ALIASES(TENSIX_COUNTER_ATTR)
	TENSIX_CYCLES_ATTR(instrn_thread_cycles, INSTRN_THREAD)
	TENSIX_CYCLES_ATTR(fpu_cycles, FPU)
	TENSIX_CYCLES_ATTR(tdma_unpack_cycles, TDMA_UNPACK)
	TENSIX_CYCLES_ATTR(l1_cycles, L1)
	TENSIX_CYCLES_ATTR(tdma_pack_cycles, TDMA_PACK)
	TENSIX_CYCLES_UNIT_ATTR(instrn_thread_cycles, INSTRN_THREAD)
	TENSIX_CYCLES_UNIT_ATTR(fpu_cycles, FPU)
	TENSIX_CYCLES_UNIT_ATTR(tdma_unpack_cycles, TDMA_UNPACK)
	TENSIX_CYCLES_UNIT_ATTR(l1_cycles, L1)
	TENSIX_CYCLES_UNIT_ATTR(tdma_pack_cycles, TDMA_PACK)
	NULL,
};

static umode_t tensix_event_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(kobj_to_dev(kobj))));
	struct tensix_event_attr *ea = container_of(attr, struct tensix_event_attr, attr.attr);

	return ea->arch & BIT(tp->arch) ? attr->mode : 0;
}

static const struct attribute_group tensix_events_group = {
	.name = "events",
	.attrs = tensix_event_attrs,
	.is_visible = tensix_event_visible,
};

static struct attribute *tensix_format_attrs[] = {
	SOCPMU_FORMAT_ATTR(event, "config:0-7"),
	SOCPMU_FORMAT_ATTR(grant, "config:8"),
	SOCPMU_FORMAT_ATTR(bank, "config:16-18"),
	SOCPMU_FORMAT_ATTR(l1mux, "config:24-26"),
	SOCPMU_FORMAT_ATTR(cycles, "config:31"),
	SOCPMU_FORMAT_ATTR(core, "config1:0-15"),
	SOCPMU_FORMAT_ATTR(bycore, "config1:16"),
	NULL,
};

static const struct attribute_group tensix_format_group = {
	.name = "format",
	.attrs = tensix_format_attrs,
};

static ssize_t identifier_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));

	return sysfs_emit(buf, "%s\n", tensix_arch_names[tp->arch]);
}
static DEVICE_ATTR_RO(identifier);

static ssize_t num_cores_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));

	return sysfs_emit(buf, "%u\n", tp->nr_cores);
}
static DEVICE_ATTR_RO(num_cores);

/*
 * NOC devices: "<unit> <x>,<y> <ax>,<ay>" per line, the unit being config1's
 * core, (x, y) the tile's NOC0 coordinates and (ax, ay) those the bridge
 * addresses it by (translated ones when the NOC translates)
 */
static ssize_t tiles_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));
	unsigned int i;
	int len = 0;

	for (i = 0; i < tp->nr_cores; i++)
		len += sysfs_emit_at(buf, len, "%u %u,%u %u,%u\n", i, tp->units[i].x,
				     tp->units[i].y, tp->units[i].ax, tp->units[i].ay);
	return len;
}
static DEVICE_ATTR_RO(tiles);

/*
 * NOC devices: whether the card's power vote is held ("held <events>"),
 * released (no event: "released") or missing ("none", and why)
 */
static ssize_t power_vote_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));
	int len;

	if (!tp->tiles->power_vote)
		return sysfs_emit(buf, "%s\n",
				  "none: the card cannot vote; counts need a client (tt-metal, tt-smi) to keep the tiles clocked");
	mutex_lock(&tp->vote_lock);
	if (tp->nr_voters && !tp->gone)
		len = sysfs_emit(buf, "held %u\n", tp->nr_voters);
	else
		len = sysfs_emit(buf, "released\n");
	mutex_unlock(&tp->vote_lock);
	return len;
}
static DEVICE_ATTR_RO(power_vote);

/* NOC devices: card resets the PMU re-armed its events after */
static ssize_t card_resets_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));

	return sysfs_emit(buf, "%u\n", READ_ONCE(tp->resets));
}
static DEVICE_ATTR_RO(card_resets);

/*
 * NOC devices: the most tile register accesses a read of every scheduled
 * event may cost (tensix_add()); 0 lifts the limit
 */
static ssize_t access_budget_show(struct device *dev, struct device_attribute *attr,
				  char *buf)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));

	return sysfs_emit(buf, "%u\n", READ_ONCE(tp->budget));
}

static ssize_t access_budget_store(struct device *dev, struct device_attribute *attr,
				   const char *buf, size_t count)
{
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 0, &val);
	if (ret)
		return ret;
	/* Takes effect at the next events perf schedules */
	WRITE_ONCE(tp->budget, val);
	return count;
}
static DEVICE_ATTR_RW(access_budget);

static struct attribute *tensix_pmu_attrs[] = {
	&dev_attr_identifier.attr,
	&dev_attr_num_cores.attr,
	&dev_attr_tiles.attr,
	&dev_attr_power_vote.attr,
	&dev_attr_card_resets.attr,
	&dev_attr_access_budget.attr,
	NULL,
};

static umode_t tensix_pmu_attr_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	struct device *dev = kobj_to_dev(kobj);
	struct tensix_pmu *tp = to_tensix(to_socpmu(dev_get_drvdata(dev)));

	if ((attr == &dev_attr_tiles.attr || attr == &dev_attr_power_vote.attr ||
	     attr == &dev_attr_card_resets.attr || attr == &dev_attr_access_budget.attr) &&
	    !tp->noc)
		return 0;
	return attr->mode;
}

static const struct attribute_group tensix_pmu_group = {
	.attrs = tensix_pmu_attrs,
	.is_visible = tensix_pmu_attr_visible,
};

static const struct attribute_group *tensix_groups[] = {
	&tensix_events_group,
	&tensix_format_group,
	&tensix_pmu_group,
	&socpmu_core_attr_group,
	NULL,
};

/* probe */

/* A PMU with @nr cores, its units to be filled in */
static struct tensix_pmu *tensix_pmu_alloc(unsigned int nr, enum tensix_arch arch,
					   u64 clock_hz)
{
	size_t banks = ALIGN(struct_size_t(struct tensix_pmu, banks, nr),
			     __alignof__(struct tensix_unit));
	struct tensix_pmu *tp;

	tp = socpmu_alloc(size_add(banks, array_size(nr, sizeof(*tp->units))));
	if (!tp)
		return NULL;
	tp->units = (void *)tp + banks;
	mutex_init(&tp->vote_lock);
	tp->arch = arch;
	tp->mux_bits = tensix_arch_info[arch].mux_bits;
	tp->nr_cores = nr;
	/* OUT_L counts one per cycle, as fast as any counter can */
	tp->sp.poll_ns = socpmu_poll_ns(clock_hz, 32);
	return tp;
}

static int tensix_pmu_add(struct tensix_pmu *tp, struct device *dev, u64 clock_hz)
{
	int ret;

	ret = socpmu_register(&tp->sp, dev, &tensix_ops, &tensix_ida, "tensix",
			      tensix_groups);
	if (ret) {
		kfree(tp);
		return dev_err_probe(dev, ret, "PMU registration failed\n");
	}
	dev_set_drvdata(dev, &tp->sp);
	dev_info(dev, "%s: %s, %u cores, %llu Hz\n", tp->sp.name,
		 tensix_arch_names[tp->arch], tp->nr_cores, clock_hz);
	return 0;
}

/* Device tree (or a platform device): one register range, cores at a stride */
static int tensix_pmu_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const struct platform_device_id *id = platform_get_device_id(pdev);
	unsigned int nr_cores, stride = 0, c;
	enum tensix_arch arch;
	struct tensix_pmu *tp;
	struct regmap *map;
	u64 clock_hz;

	if (device_property_read_u32(dev, "tenstorrent,num-cores", &nr_cores) ||
	    !nr_cores || nr_cores > SOCPMU_CFG1_UNIT_MASK + 1)
		return dev_err_probe(dev, -EINVAL, "missing or bad tenstorrent,num-cores\n");
	if (nr_cores > 1 &&
	    (device_property_read_u32(dev, "tenstorrent,core-stride", &stride) ||
	     stride < TENSIX_REG_SPAN || stride % 4))
		return dev_err_probe(dev, -EINVAL, "missing or bad tenstorrent,core-stride\n");
	if (socpmu_read_clock(dev, &clock_hz))
		return dev_err_probe(dev, -EINVAL, "missing clock-frequency\n");

	map = socpmu_get_regmap(pdev, (resource_size_t)(nr_cores - 1) * stride + TENSIX_REG_SPAN);
	if (IS_ERR(map))
		return dev_err_probe(dev, PTR_ERR(map), "no registers\n");

	arch = id ? id->driver_data : (uintptr_t)device_get_match_data(dev);
	if (nr_cores > tensix_arch_info[arch].max_cores)
		return dev_err_probe(dev, -EINVAL,
				     "tenstorrent,num-cores %u: a %s chip has %u Tensix cores\n",
				     nr_cores, tensix_arch_names[arch],
				     tensix_arch_info[arch].max_cores);
	tp = tensix_pmu_alloc(nr_cores, arch, clock_hz);
	if (!tp)
		return -ENOMEM;
	for (c = 0; c < nr_cores; c++) {
		tp->units[c].map = map;
		tp->units[c].base = c * stride;
	}
	return tensix_pmu_add(tp, dev, clock_hz);
}

static const struct of_device_id tensix_pmu_of_match[] = {
	{ .compatible = "tenstorrent,wormhole-tensix-pmu", .data = (void *)TENSIX_WORMHOLE },
	{ .compatible = "tenstorrent,blackhole-tensix-pmu", .data = (void *)TENSIX_BLACKHOLE },
	{ }
};
MODULE_DEVICE_TABLE(of, tensix_pmu_of_match);

static const struct platform_device_id tensix_pmu_ids[] = {
	{ "tensix-pmu-wormhole", TENSIX_WORMHOLE },
	{ "tensix-pmu-blackhole", TENSIX_BLACKHOLE },
	{ }
};
MODULE_DEVICE_TABLE(platform, tensix_pmu_ids);

static struct platform_driver tensix_pmu_driver = {
	.driver = {
		.name = "tensix-pmu",
		.of_match_table = tensix_pmu_of_match,
		.suppress_bind_attrs = true,
	},
	.id_table = tensix_pmu_ids,
	.probe = tensix_pmu_probe,
	.remove = socpmu_platform_remove,
};

/*
 * A card's PMU is named after the card's device and sits under it in sysfs:
 * "tensix_" and the PCI address, ':' and '.' made '_' (tensix_0000_03_00_0),
 * the same across card resets and rebinding of any of the drivers.
 */
static void tensix_card_name(struct tensix_pmu *tp, struct device *card)
{
	char *c;

	snprintf(tp->sp.name, sizeof(tp->sp.name), "tensix_%s", dev_name(card));
	for (c = tp->sp.name; *c; c++)
		if (!isalnum(*c))
			*c = '_';
	tp->sp.parent = card;
}

/* The Tensix NOC bridge (tensix_noc.ko): the tiles of one chip of a card */
static int tensix_noc_probe(struct auxiliary_device *adev,
			    const struct auxiliary_device_id *id)
{
	struct tensix_tiles *tiles = container_of(adev, struct tensix_tiles, adev);
	struct tensix_pmu *tp;
	unsigned int i;

	if (!tiles->nr || tiles->nr > SOCPMU_CFG1_UNIT_MASK + 1 ||
	    tiles->arch >= TT_NOC_NR_ARCHS)
		return dev_err_probe(&adev->dev, -EINVAL, "bad tile set\n");
	tp = tensix_pmu_alloc(tiles->nr, tiles->arch == TT_NOC_BLACKHOLE ?
			      TENSIX_BLACKHOLE : TENSIX_WORMHOLE, tiles->clock_hz);
	if (!tp)
		return -ENOMEM;
	tp->noc = true;
	tp->tiles = tiles;
	if (tiles->reset_seq) {
		tp->seq = tiles->reset_seq(tiles);
		tp->frozen = tp->seq & 1;	/* a reset runs: its end arms */
	}
	tp->budget = TENSIX_NOC_BUDGET;
	for (i = 0; i < tiles->nr; i++) {
		tp->units[i].map = tiles->map[i];
		tp->units[i].x = tiles->x[i];
		tp->units[i].y = tiles->y[i];
		tp->units[i].ax = tiles->ax[i];
		tp->units[i].ay = tiles->ay[i];
	}
	if (tiles->card)
		tensix_card_name(tp, tiles->card);
	return tensix_pmu_add(tp, &adev->dev, tiles->clock_hz);
}

static void tensix_noc_remove(struct auxiliary_device *adev)
{
	struct socpmu *sp = dev_get_drvdata(&adev->dev);

	tensix_vote_gone(to_tensix(sp));
	socpmu_unregister(sp);
}

static const struct auxiliary_device_id tensix_noc_ids[] = {
	{ .name = "tensix_noc.tiles" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, tensix_noc_ids);

static struct auxiliary_driver tensix_noc_driver = {
	.name = "pmu",
	.probe = tensix_noc_probe,
	.remove = tensix_noc_remove,
	.id_table = tensix_noc_ids,
};

static int __init tensix_pmu_init(void)
{
	int ret;

	ret = platform_driver_register(&tensix_pmu_driver);
	if (ret)
		return ret;
	ret = auxiliary_driver_register(&tensix_noc_driver);
	if (ret)
		platform_driver_unregister(&tensix_pmu_driver);
	return ret;
}
module_init(tensix_pmu_init);

static void __exit tensix_pmu_exit(void)
{
	auxiliary_driver_unregister(&tensix_noc_driver);
	platform_driver_unregister(&tensix_pmu_driver);
	socpmu_life_reap(THIS_MODULE);
}
module_exit(tensix_pmu_exit);

MODULE_DESCRIPTION("Tenstorrent Tensix performance counter PMU");
MODULE_LICENSE("GPL");
