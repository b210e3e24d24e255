// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tensix NOC bridge: the Tensix tiles of a Tenstorrent PCIe card, one
 * regmap per tile, for tensix_pmu.
 *
 * From the host a tile's debug registers (0xFFB12000 in the tile) are
 * reachable only over the card's NOC: a TLB window in BAR0 is programmed
 * with (x, y, NOC address) and accesses through the window reach that tile.
 * The bridge owns one window (Wormhole: a 1 MiB one, Blackhole: 2 MiB; see
 * include/socpmu/tt_noc.h) and, under a raw spinlock, programs it and
 * accesses the tile for every register access: perf calls in with
 * interrupts off, and whatever happened to the window in between (a chip
 * reset, say), an access never goes through a
 * window that points elsewhere. A card that is reset or falls off the bus
 * answers all ones: a tile read of all ones whose window's config register
 * reads back all ones too fails with -EIO (tt_noc_answers()), so that
 * tensix_pmu freezes its counts instead of taking it for a counter value.
 *
 * Coordinates and harvesting are those of tt-umd (see include/socpmu/tt_noc.h):
 * on a Blackhole whose NOC translates (read from the PCIe NIU at probe) the
 * window is programmed with a tile's translated coordinates, else with its
 * NOC0 ones; users name tiles by NOC0 coordinates ("tiles" in sysfs shows
 * both). Harvesting masks are kept in tt-umd's convention (bit i: the i-th
 * Tensix row or column in NOC0 order); a provider's mask, read from the
 * firmware, is in the physical layout and converted.
 *
 * Power and resets are the provider's (struct tt_noc_card): the bridge
 * hands tensix_pmu the card's power vote, which tensix_pmu holds while any
 * event exists (tt-kmd clock-gates the tiles of a card no client voted
 * for), and its reset sequence, which tensix_pmu compares at every read.
 * A card without them is said to be so in the log.
 *
 * The card comes in one of two ways, both ending in tt_noc_bridge_probe():
 *  - an auxiliary device "<provider>.tensix_noc" (struct tt_noc_card): tt-kmd
 *    with tools/tt-kmd/patches exports one per chip, and so does the
 *    simulator's "ttcard" model;
 *  - the PCI device itself (1e52:401e Wormhole, 1e52:b140 Blackhole) when
 *    tt-kmd is not loaded and the module is loaded with pci=1.
 * Each bridge registers an auxiliary device "tensix_noc.tiles"
 * (struct tensix_tiles) that tensix_pmu turns into one PMU per chip.
 */
#define pr_fmt(fmt) "tensix_noc: " fmt

#include <linux/auxiliary_bus.h>
#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/regmap.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/string_choices.h>
#include <linux/units.h>

#include <socpmu/tensix_regs.h>
#include <socpmu/tt_noc.h>

static unsigned int harvest[8];
static int nr_harvest;
module_param_array(harvest, uint, &nr_harvest, 0444);
MODULE_PARM_DESC(harvest,
		 "Harvesting mask of each card, in probe order, for providers that do not know it, as tt-umd and tt-smi show it (bit i: i-th Tensix row/column in NOC0 order)");

static unsigned int harvest_phys[8];
static int nr_harvest_phys;
module_param_array(harvest_phys, uint, &nr_harvest_phys, 0444);
MODULE_PARM_DESC(harvest_phys,
		 "As harvest=, in the firmware's physical layout (bit i: HARVESTING_NOC_LOCATIONS[i]); not with harvest=");

static bool pci;
module_param(pci, bool, 0444);
MODULE_PARM_DESC(pci, "Bind Tenstorrent PCI devices directly (only without tt-kmd)");

static unsigned int pci_clock_mhz = 1000;
module_param(pci_clock_mhz, uint, 0444);
MODULE_PARM_DESC(pci_clock_mhz, "Tensix clock (AICLK) of directly bound cards, MHz");

static atomic_t tt_noc_cards = ATOMIC_INIT(0);

/**
 * struct tt_noc_arch_info - what differs between the chips
 * @name: identifier
 * @cfg_size: bytes per TLB config register
 * @x_end: bit of x_end in the config register of the bridge's window
 * @ordering: bit of the ordering field
 * @tlb: the bridge's window
 * @win_shift: log2 of its size (Wormhole: a 1 MiB window, Blackhole 2 MiB)
 * @win_base: BAR0 offset of the bridge's window
 * @tx: NOC x of the Tensix columns
 * @ty: NOC y of the Tensix rows
 * @nx: number of Tensix columns
 * @ny: number of Tensix rows
 * @harvest_rows: harvesting removes rows (else columns)
 * @hv: NOC row or column of each harvesting mask bit
 * @nhv: number of harvesting bits
 */
struct tt_noc_arch_info {
	const char *name;
	unsigned int cfg_size;
	unsigned int x_end;
	unsigned int ordering;
	unsigned int tlb;
	unsigned int win_shift;
	unsigned int win_base;
	u8 tx[14];
	u8 ty[10];
	unsigned int nx, ny;
	bool harvest_rows;
	u8 hv[14];
	unsigned int nhv;
};

static const struct tt_noc_arch_info tt_noc_archs[TT_NOC_NR_ARCHS] = {
	[TT_NOC_WORMHOLE] = {
		.name = "wormhole",
		.cfg_size = TT_WH_TLB_CFG_SIZE,
		.x_end = TT_WH_TLB_1M_X_END,
		.ordering = TT_WH_TLB_1M_ORDERING,
		.tlb = TT_WH_BRIDGE_TLB,
		.win_shift = TT_WH_TLB_1M_SHIFT,
		.win_base = TT_WH_BRIDGE_TLB << TT_WH_TLB_1M_SHIFT,
		.tx = TT_WH_TENSIX_X, .nx = 8,
		.ty = TT_WH_TENSIX_Y, .ny = 10,
		.harvest_rows = true,
		.hv = TT_WH_HARVEST_ROWS, .nhv = 10,
	},
	[TT_NOC_BLACKHOLE] = {
		.name = "blackhole",
		.cfg_size = TT_BH_TLB_CFG_SIZE,
		.x_end = TT_BH_TLB_X_END,
		.ordering = TT_BH_TLB_ORDERING,
		.tlb = TT_BH_BRIDGE_TLB,
		.win_shift = TT_NOC_WIN_SHIFT,
		.win_base = TT_BH_BRIDGE_TLB * TT_NOC_WIN_SIZE,
		.tx = TT_BH_TENSIX_X, .nx = 14,
		.ty = TT_BH_TENSIX_Y, .ny = 10,
		.harvest_rows = false,
		.hv = TT_BH_HARVEST_COLS, .nhv = 14,
	},
};

struct tt_noc_bridge;

/* One tile: the context of its regmap; (x, y) as the window addresses it */
struct tt_noc_tile {
	struct tt_noc_bridge *br;
	u8 x, y;
};

/**
 * struct tt_noc_bridge - one card
 * @dev: the device the bridge lives on (auxiliary or PCI device)
 * @bar0: BAR0 registers
 * @info: the chip
 * @tlb: the window used (the provider's reservation)
 * @win_base: BAR0 offset of that window
 * @lock: makes "program the window, access through it" atomic; raw because
 *	perf calls in with interrupts off
 * @tiles: the tile contexts
 * @out: the auxiliary device for tensix_pmu (freed by its release)
 * @card: the provider's card, NULL for a directly bound PCI device
 */
struct tt_noc_bridge {
	struct device *dev;
	struct regmap *bar0;
	const struct tt_noc_arch_info *info;
	unsigned int tlb;
	unsigned int win_base;
	raw_spinlock_t lock;	/* serialises the window */
	struct tt_noc_tile *tiles;
	struct tensix_tiles *out;
	struct tt_noc_card *card;
};

/* Set @width bits at @shift of the little-endian multi-word value @w */
static void tt_noc_set_bits(u32 *w, unsigned int shift, unsigned int width, u64 val)
{
	unsigned int i;

	for (i = 0; i < width; i++)
		if (val & BIT_ULL(i))
			w[(shift + i) / 32] |= BIT((shift + i) % 32);
}

/* BAR0 offset of the config register of the bridge's window */
static unsigned int tt_noc_cfg_reg(const struct tt_noc_bridge *br)
{
	return TT_NOC_TLB_CFG_BASE + br->tlb * br->info->cfg_size;
}

/*
 * Point the bridge's window at @addr (aligned to the window's size) of tile
 * (@x, @y). Returns the first word written to the config register: never
 * all ones (x_start, bits 28-31 on Wormhole's 1 MiB window, is 0; so are
 * the address bits above 0xFFA00000 >> 21 on Blackhole).
 */
static u32 tt_noc_program(struct tt_noc_bridge *br, unsigned int x, unsigned int y, u64 addr)
{
	const struct tt_noc_arch_info *info = br->info;
	unsigned int reg = tt_noc_cfg_reg(br), i;
	u32 w[3] = { };

	tt_noc_set_bits(w, 0, info->x_end, addr >> info->win_shift);
	tt_noc_set_bits(w, info->x_end, TT_NOC_COORD_BITS, x);
	tt_noc_set_bits(w, info->x_end + TT_NOC_COORD_BITS, TT_NOC_COORD_BITS, y);
	/* x_start/y_start stay 0: unicast; noc 0 */
	tt_noc_set_bits(w, info->ordering, 2, TT_NOC_ORDERING_STRICT);
	for (i = 0; i < info->cfg_size / 4; i++)
		regmap_write(br->bar0, reg + 4 * i, w[i]);
	return w[0];
}

/**
 * tt_noc_answers() - is a read of all ones through the window a value?
 * @br: the bridge, locked, its window just programmed
 * @w0: the first word of the window's config register, as programmed
 *
 * A card that is being reset (tt-smi reset) or fell off the bus answers
 * every BAR0 read with all ones (a PCIe master abort), and so would a
 * counter that reads 0xffffffff. The config register tells them apart: it
 * reads back as programmed, and the bridge never programs a word of all
 * ones (see tt_noc_program()).
 *
 * Return: 0 when the card answers, -EIO when it does not.
 */
static int tt_noc_answers(struct tt_noc_bridge *br, u32 w0)
{
	unsigned int cfg;
	int ret;

	ret = regmap_read(br->bar0, tt_noc_cfg_reg(br), &cfg);
	if (ret)
		return ret;
	return cfg == U32_MAX && w0 != U32_MAX ? -EIO : 0;
}

/* The offset of tile register @reg in the bridge's window */
static unsigned int tt_noc_win_off(const struct tt_noc_bridge *br, unsigned int reg)
{
	return (TT_TENSIX_DEBUG_REGS + reg) & (BIT(br->info->win_shift) - 1);
}

/* The tile address the bridge's window must point at for @reg */
static u64 tt_noc_win_addr(const struct tt_noc_bridge *br, unsigned int reg)
{
	return (TT_TENSIX_DEBUG_REGS + reg) & ~(u64)(BIT(br->info->win_shift) - 1);
}

/*
 * regmap bus of a tile: program the window and go through it, atomically.
 * A read of all ones from a card that does not answer fails with -EIO
 * (tt_noc_answers()): it is no register's value.
 */
static int tt_noc_tile_read(void *context, unsigned int reg, unsigned int *val)
{
	struct tt_noc_tile *t = context;
	struct tt_noc_bridge *br = t->br;
	unsigned long flags;
	u32 w0;
	int ret;

	raw_spin_lock_irqsave(&br->lock, flags);
	w0 = tt_noc_program(br, t->x, t->y, tt_noc_win_addr(br, reg));
	ret = regmap_read(br->bar0, br->win_base + tt_noc_win_off(br, reg), val);
	if (!ret && *val == U32_MAX)
		ret = tt_noc_answers(br, w0);
	raw_spin_unlock_irqrestore(&br->lock, flags);
	return ret;
}

static int tt_noc_tile_write(void *context, unsigned int reg, unsigned int val)
{
	struct tt_noc_tile *t = context;
	struct tt_noc_bridge *br = t->br;
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&br->lock, flags);
	tt_noc_program(br, t->x, t->y, tt_noc_win_addr(br, reg));
	ret = regmap_write(br->bar0, br->win_base + tt_noc_win_off(br, reg), val);
	raw_spin_unlock_irqrestore(&br->lock, flags);
	return ret;
}

/**
 * tt_noc_shuffle() - a physical harvesting mask in tt-umd's convention
 * @info: the chip
 * @phys: bit i: row or column @info->hv[i] (the firmware's layout)
 *
 * What tt-umd's shuffle_tensix_harvesting_mask() computes.
 *
 * Return: the mask with bit j for the j-th Tensix row (Wormhole) or column
 * (Blackhole) in NOC0 order.
 */
static u32 tt_noc_shuffle(const struct tt_noc_arch_info *info, u32 phys)
{
	const u8 *loc = info->harvest_rows ? info->ty : info->tx;
	unsigned int n = info->harvest_rows ? info->ny : info->nx, i, j;
	u32 mask = 0;

	for (i = 0; i < info->nhv; i++)
		for (j = 0; j < n; j++)
			if ((phys & BIT(i)) && loc[j] == info->hv[i])
				mask |= BIT(j);
	return mask;
}

/* Position of NOC0 row or column @noc in the firmware's harvesting list */
static unsigned int tt_noc_die_index(const struct tt_noc_arch_info *info, unsigned int noc)
{
	unsigned int i;

	for (i = 0; i < info->nhv && info->hv[i] != noc; i++)
		;
	return i;
}

/**
 * tt_noc_translate_x() - translated x of a Blackhole Tensix column
 * @info: the chip (Blackhole)
 * @mask: harvesting mask, tt-umd's convention
 * @ix: the column's index in NOC0 order
 *
 * The k-th unharvested column is at the k-th Tensix x; harvested columns
 * take the top x values, the one first in the firmware's harvesting list
 * highest (tt-umd's fill_tensix_noc0_translated_mapping()).
 *
 * Return: the translated x.
 */
static unsigned int tt_noc_translate_x(const struct tt_noc_arch_info *info, u32 mask,
				       unsigned int ix)
{
	unsigned int i, k = 0, die = tt_noc_die_index(info, info->tx[ix]);

	if (!(mask & BIT(ix)))
		return info->tx[hweight32(~mask & (BIT(ix) - 1))];
	for (i = 0; i < info->nx; i++)
		if ((mask & BIT(i)) && tt_noc_die_index(info, info->tx[i]) < die)
			k++;
	return info->tx[info->nx - 1 - k];
}

/*
 * Does the NOC translate host requests? Blackhole: the PCIe NIU says
 * (tt-umd reads the same bit). Wormhole's host side uses NOC0.
 */
static int tt_noc_translation(struct device *dev, struct regmap *bar0, u32 arch,
			      bool *on)
{
	unsigned int cfg;
	int ret;

	*on = false;
	if (arch != TT_NOC_BLACKHOLE)
		return 0;
	ret = regmap_read(bar0, TT_BH_NIU_CFG_0, &cfg);
	if (ret)
		return dev_err_probe(dev, ret, "cannot read the NIU config (NOC translation)\n");
	if (cfg == U32_MAX)
		return dev_err_probe(dev, -EIO, "card does not answer\n");
	*on = cfg & BIT(TT_NOC_NIU_CFG_0_TRANSLATE);
	return 0;
}

/* The bridge of @tiles: the drvdata of their parent */
static struct tt_noc_bridge *tt_noc_bridge_of(struct tensix_tiles *tiles)
{
	return dev_get_drvdata(tiles->adev.dev.parent);
}

/* tensix_tiles::power_vote: the card's */
static int tt_noc_power_vote(struct tensix_tiles *tiles, bool on)
{
	struct tt_noc_card *card = tt_noc_bridge_of(tiles)->card;

	return card->power_vote(card, on);
}

/* tensix_tiles::reset_seq: the card's */
static u32 tt_noc_reset_seq(struct tensix_tiles *tiles)
{
	struct tt_noc_card *card = tt_noc_bridge_of(tiles)->card;

	return card->reset_seq(card);
}

/* Hand the card's power vote and reset sequence on, or say they are missing */
static void tt_noc_card_ops(struct tt_noc_bridge *br, struct tensix_tiles *out)
{
	struct tt_noc_card *card = br->card;

	if (card && card->power_vote)
		out->power_vote = tt_noc_power_vote;
	else
		dev_warn(br->dev, "the card provides no power vote: the tiles count only while a client (tt-metal, tt-smi) keeps them clocked; with tt-kmd's power policy they are clock gated otherwise and perf counts 0\n");
	if (card && card->reset_seq)
		out->reset_seq = tt_noc_reset_seq;
	else
		dev_warn(br->dev, "the card provides no reset sequence: a reset is seen only as reads of all ones, which freeze the PMU for good\n");
}

static void tt_noc_tiles_release(struct device *dev)
{
	struct tensix_tiles *out = container_of(dev, struct tensix_tiles, adev.dev);

	kfree(out->map);
	kfree(out->x);
	kfree(out->y);
	kfree(out->ax);
	kfree(out->ay);
	kfree(out);
}

/* The regmaps are the bridge's: tensix_pmu is unbound before they go */
static struct tensix_tiles *tt_noc_tiles_alloc(unsigned int max)
{
	struct tensix_tiles *out = kzalloc(sizeof(*out), GFP_KERNEL);

	if (!out)
		return NULL;
	out->map = kcalloc(max, sizeof(*out->map), GFP_KERNEL);
	out->x = kcalloc(max, 1, GFP_KERNEL);
	out->y = kcalloc(max, 1, GFP_KERNEL);
	out->ax = kcalloc(max, 1, GFP_KERNEL);
	out->ay = kcalloc(max, 1, GFP_KERNEL);
	if (out->map && out->x && out->y && out->ax && out->ay)
		return out;
	tt_noc_tiles_release(&out->adev.dev);
	return NULL;
}

static void tt_noc_tiles_put(void *data)
{
	auxiliary_device_uninit(data);
}

/* Unbinds tensix_pmu before the regmaps go */
static void tt_noc_tiles_del(void *data)
{
	auxiliary_device_delete(data);
}

/**
 * tt_noc_bridge_probe() - set up the bridge of one card
 * @dev: the device the bridge's resources belong to (device-managed)
 * @card: the card's (PCI) device
 * @bar0: BAR0 register access, usable in atomic context
 * @arch: enum tt_noc_arch
 * @tlb: the window reserved for the bridge
 * @hmask: harvesting mask, tt-umd's convention (tt_noc_shuffle())
 * @clock_hz: Tensix clock
 * @tcard: the provider's card (its power vote and reset sequence), or NULL
 *
 * Enumerates the Tensix tiles that harvesting left, one regmap each (in NOC
 * order: by row, then column), each addressed in translated coordinates if
 * the NOC translates, and registers the "tensix_noc.tiles" auxiliary device
 * for tensix_pmu.
 *
 * Return: 0 or a negative errno.
 */
static int tt_noc_bridge_probe(struct device *dev, struct device *card,
			       struct regmap *bar0, u32 arch, u32 tlb, u32 hmask,
			       u64 clock_hz, struct tt_noc_card *tcard)
{
	const struct tt_noc_arch_info *info;
	struct tt_noc_bridge *br;
	struct auxiliary_device *adev;
	struct tensix_tiles *out;
	unsigned int ix, iy, n = 0;
	bool translated;
	int ret;

	if (arch >= TT_NOC_NR_ARCHS)
		return dev_err_probe(dev, -EINVAL, "unknown chip %u\n", arch);
	/* The tiles' regmaps say fast_io: nobody after us could tell */
	if (regmap_might_sleep(bar0))
		return dev_err_probe(dev, -EINVAL,
				     "BAR0 regmap may sleep: perf reads tiles with interrupts off\n");
	info = &tt_noc_archs[arch];
	if (tlb != info->tlb)
		return dev_err_probe(dev, -EINVAL, "window %u is not the bridge's (%u)\n",
				     tlb, info->tlb);
	if (hmask >= BIT(info->nhv) || hweight32(hmask) >= info->nhv)
		return dev_err_probe(dev, -EINVAL, "bad harvesting mask 0x%x\n", hmask);
	if (!clock_hz)
		return dev_err_probe(dev, -EINVAL, "no Tensix clock\n");
	ret = tt_noc_translation(dev, bar0, arch, &translated);
	if (ret)
		return ret;

	br = devm_kzalloc(dev, sizeof(*br), GFP_KERNEL);
	if (!br)
		return -ENOMEM;
	br->dev = dev;
	br->bar0 = bar0;
	br->info = info;
	br->tlb = tlb;
	br->win_base = info->win_base;
	raw_spin_lock_init(&br->lock);
	br->tiles = devm_kcalloc(dev, info->nx * info->ny, sizeof(*br->tiles), GFP_KERNEL);
	if (!br->tiles)
		return -ENOMEM;
	out = tt_noc_tiles_alloc(info->nx * info->ny);
	if (!out)
		return -ENOMEM;
	adev = &out->adev;
	adev->name = "tiles";
	adev->id = atomic_inc_return(&tt_noc_cards) - 1;
	adev->dev.parent = dev;
	adev->dev.release = tt_noc_tiles_release;
	ret = auxiliary_device_init(adev);
	if (ret) {
		tt_noc_tiles_release(&adev->dev);
		return ret;
	}
	/* From here on, put_device() frees @out */
	ret = devm_add_action_or_reset(dev, tt_noc_tiles_put, adev);
	if (ret)
		return ret;

	for (iy = 0; iy < info->ny; iy++) {
		for (ix = 0; ix < info->nx; ix++) {
			struct tt_noc_tile *t = &br->tiles[n];
			char name[16];
			const struct regmap_config cfg = {
				.name = name,
				.reg_bits = 32,
				.val_bits = 32,
				.reg_stride = 4,
				.max_register = TENSIX_REG_SPAN - 4,
				.reg_read = tt_noc_tile_read,
				.reg_write = tt_noc_tile_write,
				/*
				 * Its own lock too (raw: perf calls in with IRQs
				 * off), so that regmap debugfs exists
				 */
				.fast_io = true,
				.use_raw_spinlock = true,
				.cache_type = REGCACHE_NONE,
			};
			struct regmap *map;

			if (hmask & BIT(info->harvest_rows ? iy : ix))
				continue;
			t->br = br;
			t->x = translated ? tt_noc_translate_x(info, hmask, ix) : info->tx[ix];
			t->y = info->ty[iy];
			snprintf(name, sizeof(name), "tile-%u-%u", info->tx[ix], info->ty[iy]);
			map = devm_regmap_init(dev, NULL, t, &cfg);
			if (IS_ERR(map))
				return PTR_ERR(map);
			out->map[n] = map;
			out->x[n] = info->tx[ix];
			out->y[n] = info->ty[iy];
			out->ax[n] = t->x;
			out->ay[n] = t->y;
			n++;
		}
	}

	out->arch = arch;
	out->clock_hz = clock_hz;
	out->card = card;
	out->translated = translated;
	out->nr = n;
	br->out = out;
	br->card = tcard;
	dev_set_drvdata(dev, br);
	tt_noc_card_ops(br, out);
	ret = auxiliary_device_add(adev);
	if (ret)
		return ret;
	ret = devm_add_action_or_reset(dev, tt_noc_tiles_del, adev);
	if (ret)
		return ret;
	dev_info(dev, "%s: %u Tensix tiles (harvesting 0x%x, tt-umd's convention), NOC translation %s, window %u\n",
		 info->name, n, hmask, str_on_off(translated), tlb);
	return 0;
}

/*
 * The harvesting mask a provider did not know: the harvest= parameter
 * (tt-umd's convention) or harvest_phys= (the firmware's), one mask per chip
 * in the order the chips are first probed. A chip probed again (unbound and
 * bound, its provider reloaded) keeps its mask: a count of probes would hand
 * it the next chip's, or none. Returns the mask in tt-umd's convention.
 */
static int tt_noc_param_harvest(struct device *dev, u32 arch, u32 *mask)
{
	static char owner[ARRAY_SIZE(harvest)][48];
	static DEFINE_MUTEX(lock);
	int i, nr = nr_harvest_phys ? nr_harvest_phys : nr_harvest;

	if (arch >= TT_NOC_NR_ARCHS)
		return dev_err_probe(dev, -EINVAL, "unknown chip %u\n", arch);
	if (nr_harvest && nr_harvest_phys)
		return dev_err_probe(dev, -EINVAL, "harvest= and harvest_phys= are exclusive\n");
	mutex_lock(&lock);
	/* masks are taken in order: the chip's own, or the first free one */
	for (i = 0; i < nr; i++)
		if (!owner[i][0] || !strcmp(owner[i], dev_name(dev)))
			break;
	if (i < nr && !owner[i][0])
		strscpy(owner[i], dev_name(dev));
	mutex_unlock(&lock);
	if (i >= nr)
		return dev_err_probe(dev, -ENODEV,
				     "harvesting unknown: load tensix_noc with harvest=<mask>,...\n");
	if (nr_harvest_phys) {
		if (harvest_phys[i] >= BIT(tt_noc_archs[arch].nhv))
			return dev_err_probe(dev, -EINVAL, "bad harvest_phys 0x%x\n",
					     harvest_phys[i]);
		*mask = tt_noc_shuffle(&tt_noc_archs[arch], harvest_phys[i]);
	} else {
		*mask = harvest[i];
	}
	return 0;
}

/* (a) auxiliary device of a card provider */

static int tt_noc_aux_probe(struct auxiliary_device *adev,
			    const struct auxiliary_device_id *id)
{
	struct tt_noc_card *card = container_of(adev, struct tt_noc_card, adev);
	u32 mask;
	int ret;

	if (card->arch >= TT_NOC_NR_ARCHS)
		return dev_err_probe(&adev->dev, -EINVAL, "unknown chip %u\n", card->arch);
	if (!card->harvest_known) {
		ret = tt_noc_param_harvest(&adev->dev, card->arch, &mask);
		if (ret)
			return ret;
	} else {
		/* the firmware's layout */
		if (card->harvest >= BIT(tt_noc_archs[card->arch].nhv))
			return dev_err_probe(&adev->dev, -EINVAL, "bad harvesting mask 0x%x\n",
					     card->harvest);
		mask = tt_noc_shuffle(&tt_noc_archs[card->arch], card->harvest);
	}
	return tt_noc_bridge_probe(&adev->dev, adev->dev.parent, card->bar0, card->arch,
				   card->tlb, mask, card->clock_hz, card);
}

static const struct auxiliary_device_id tt_noc_aux_ids[] = {
	{ .name = "tenstorrent.tensix_noc" },
	{ .name = "socpmu_sim.tensix_noc" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, tt_noc_aux_ids);

static struct auxiliary_driver tt_noc_aux_driver = {
	.name = "card",
	.probe = tt_noc_aux_probe,
	.id_table = tt_noc_aux_ids,
};

/* (b) the PCI device itself, when tt-kmd does not own it */

/*
 * BAR0 of a directly bound card: the window, the TLB config registers and
 * (Blackhole) the NIU config register
 */
struct tt_noc_pci_bar0 {
	void __iomem *win;
	void __iomem *tlb_regs;
	void __iomem *niu_cfg;
	unsigned int win_base;
	unsigned int win_size;
};

static void __iomem *tt_noc_pci_addr(struct tt_noc_pci_bar0 *b, unsigned int reg)
{
	if (reg - b->win_base < b->win_size)
		return b->win + (reg - b->win_base);
	if (reg - TT_NOC_TLB_CFG_BASE < TT_NOC_TLB_CFG_SPAN)
		return b->tlb_regs + (reg - TT_NOC_TLB_CFG_BASE);
	if (reg == TT_BH_NIU_CFG_0 && b->niu_cfg)
		return b->niu_cfg;
	return NULL;
}

static int tt_noc_pci_read(void *context, unsigned int reg, unsigned int *val)
{
	void __iomem *addr = tt_noc_pci_addr(context, reg);

	if (!addr)
		return -EINVAL;
	*val = ioread32(addr);
	return 0;
}

static int tt_noc_pci_write(void *context, unsigned int reg, unsigned int val)
{
	void __iomem *addr = tt_noc_pci_addr(context, reg);

	if (!addr)
		return -EINVAL;
	iowrite32(val, addr);
	return 0;
}

static int tt_noc_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct regmap_config cfg = {
		.reg_bits = 32,
		.val_bits = 32,
		.reg_stride = 4,
		.max_register = TT_NOC_BAR0_SIZE - 4,
		.reg_read = tt_noc_pci_read,
		.reg_write = tt_noc_pci_write,
		.fast_io = true,
		.disable_locking = true,	/* the window lock */
		.cache_type = REGCACHE_NONE,
	};
	const struct tt_noc_arch_info *info = &tt_noc_archs[id->driver_data];
	struct device *dev = &pdev->dev;
	struct tt_noc_pci_bar0 *b;
	struct regmap *bar0;
	u32 mask;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (pci_resource_len(pdev, 0) < TT_NOC_BAR0_SIZE)
		return dev_err_probe(dev, -ENODEV, "BAR0 too small\n");
	ret = tt_noc_param_harvest(dev, id->driver_data, &mask);
	if (ret)
		return ret;
	b = devm_kzalloc(dev, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	/* Only what the bridge uses, uncached, like tt-kmd's own window */
	b->win_base = info->win_base;
	b->win_size = BIT(info->win_shift);
	b->win = pcim_iomap_range(pdev, 0, info->win_base, b->win_size);
	b->tlb_regs = pcim_iomap_range(pdev, 0, TT_NOC_TLB_CFG_BASE, TT_NOC_TLB_CFG_SPAN);
	if (IS_ERR(b->win) || IS_ERR(b->tlb_regs))
		return dev_err_probe(dev, -ENOMEM, "cannot map BAR0\n");
	if (id->driver_data == TT_NOC_BLACKHOLE) {
		b->niu_cfg = pcim_iomap_range(pdev, 0, TT_BH_NIU_CFG_0, 4);
		if (IS_ERR(b->niu_cfg))
			return dev_err_probe(dev, -ENOMEM, "cannot map BAR0\n");
	}
	bar0 = devm_regmap_init(dev, NULL, b, &cfg);
	if (IS_ERR(bar0))
		return PTR_ERR(bar0);
	return tt_noc_bridge_probe(dev, dev, bar0, id->driver_data, info->tlb, mask,
				   (u64)pci_clock_mhz * HZ_PER_MHZ, NULL);
}

/* No MODULE_DEVICE_TABLE: loading must not race tt-kmd for the card */
static const struct pci_device_id tt_noc_pci_ids[] = {
	{ PCI_DEVICE(TT_PCI_VENDOR, TT_PCI_DEVICE_WORMHOLE), .driver_data = TT_NOC_WORMHOLE },
	{ PCI_DEVICE(TT_PCI_VENDOR, TT_PCI_DEVICE_BLACKHOLE), .driver_data = TT_NOC_BLACKHOLE },
	{ }
};

static struct pci_driver tt_noc_pci_driver = {
	.name = "tensix_noc",
	.id_table = tt_noc_pci_ids,
	.probe = tt_noc_pci_probe,
};

static int __init tt_noc_init(void)
{
	int ret;

	ret = auxiliary_driver_register(&tt_noc_aux_driver);
	if (ret || !pci)
		return ret;
	ret = pci_register_driver(&tt_noc_pci_driver);
	if (ret)
		auxiliary_driver_unregister(&tt_noc_aux_driver);
	return ret;
}
module_init(tt_noc_init);

static void __exit tt_noc_exit(void)
{
	if (pci)
		pci_unregister_driver(&tt_noc_pci_driver);
	auxiliary_driver_unregister(&tt_noc_aux_driver);
}
module_exit(tt_noc_exit);

MODULE_DESCRIPTION("Tensix NOC bridge: Tensix tile registers of Tenstorrent PCIe cards");
MODULE_LICENSE("GPL");
