/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Tenstorrent PCIe cards seen from the host: the NOC grid, the Tensix tiles
 * on it, the TLB windows of PCIe BAR0 that reach a tile, and the two
 * auxiliary device interfaces of the Tensix NOC bridge (tensix_noc.ko).
 *
 * Facts from tenstorrent/tt-kmd (wormhole.c, blackhole.c) and
 * tenstorrent/tt-umd (wormhole_implementation.hpp,
 * blackhole_implementation.hpp):
 *
 *  Wormhole (PCI 1e52:401e), NOC grid 10 x 12. Tensix tiles at
 *  x = 1-4, 6-9 and y = 1-5, 7-11 (8 x 10 = 80). BAR0 (512 MiB): 156 1 MiB
 *  windows from 0, 10 2 MiB windows from 0x9C00000, 20 16 MiB windows from
 *  0xB000000; one 64-bit config register per window (two 32-bit words, low
 *  first) at 0x1FC00000 + 8 * index. A 2 MiB window's register: bits 0-14
 *  the NOC address >> 21, x_end 15-20, y_end 21-26, x_start 27-32,
 *  y_start 33-38, noc_sel 39, mcast 40, ordering 41-42 (1 = strict),
 *  linked 43. A 1 MiB window's (tt-umd wormhole_implementation.hpp
 *  TLB_1M_OFFSET, tt-kmd wormhole.c): bits 0-15 the NOC address >> 20,
 *  x_end 16-21, y_end 22-27, x_start 28-33, y_start 34-39, noc_sel 40,
 *  mcast 41, ordering 42-43, linked 44. Harvesting removes Tensix rows:
 *  bit i of the mask is NOC row {11, 1, 10, 2, 9, 3, 8, 4, 7, 5}[i].
 *
 *  Blackhole (PCI 1e52:b140), NOC grid 17 x 12. Tensix tiles at
 *  x = 1-7, 10-16 and y = 2-11 (14 x 10 = 140). BAR0: 202 2 MiB windows
 *  from 0 (the 4 GiB windows are in BAR4); one 96-bit config register per
 *  window (three 32-bit words) at 0x1FC00000 + 12 * index: bits 0-42 the
 *  NOC address >> 21, x_end 43-48, y_end 49-54, x_start 55-60,
 *  y_start 61-66, noc 67-68, mcast 69, ordering 70-71, linked 72.
 *  Harvesting removes Tensix columns: bit i of the mask is NOC column
 *  {1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10}[i].
 *
 * NOC translation (tt-umd blackhole_tt_device.cpp, get_noc_translation_enabled;
 * blackhole_coordinate_manager.cpp): on Blackhole, bit 14 of the PCIe NIU's
 * NIU_CFG_0 register (BAR0 0x1FD04000 + 0x100) says whether the NOC
 * translates coordinates. When it does, a request from the host addresses
 * Tensix columns in translated coordinates: the k-th unharvested column (in
 * NOC0 order) is at x = the k-th Tensix column, the harvested columns take
 * the top x values (ordered by their position in the harvesting list above,
 * the first at x = 16); y is unchanged. Wormhole's translated Tensix
 * coordinates start at 18 and leave NOC0 coordinates in place: the host
 * uses NOC0 there (tt-umd wormhole_implementation.hpp).
 *
 * Harvesting masks come in two conventions: the firmware's ("physical":
 * bit i is the row or column of the lists above) and tt-umd's (what
 * tt-smi, ChipInfo and cluster descriptors show, after
 * shuffle_tensix_harvesting_mask(): bit i is the i-th Tensix row or column
 * in ascending NOC0 order).
 *
 * tt-kmd keeps the last 16 MiB window (Wormhole, 185) or the last 2 MiB
 * window (Blackhole, 201) for itself. The bridge uses one window reserved
 * for it: on Wormhole the last 1 MiB window (155; there are 156, and only
 * ten 2 MiB ones, which user space needs more), on Blackhole the 2 MiB
 * window 200.
 */
#ifndef _SOCPMU_TT_NOC_H
#define _SOCPMU_TT_NOC_H

#define TT_PCI_VENDOR			0x1e52
#define TT_PCI_DEVICE_WORMHOLE		0x401e
#define TT_PCI_DEVICE_BLACKHOLE		0xb140

enum tt_noc_arch {
	TT_NOC_WORMHOLE,
	TT_NOC_BLACKHOLE,
	TT_NOC_NR_ARCHS,
};

#define TT_NOC_BAR0_SIZE		0x20000000
#define TT_NOC_TLB_CFG_BASE		0x1fc00000	/* config registers in BAR0 */
#define TT_NOC_TLB_CFG_SPAN		0x1000

#define TT_NOC_WIN_SHIFT		21		/* 2 MiB windows */
/* The largest window the bridge uses */
#define TT_NOC_WIN_SIZE			(1U << TT_NOC_WIN_SHIFT)

/* Wormhole window kinds and the reserved window */
#define TT_WH_TLB_1M_COUNT		156
#define TT_WH_TLB_2M_COUNT		10
#define TT_WH_TLB_16M_COUNT		20
#define TT_WH_TLB_2M_BASE		0x9c00000
#define TT_WH_TLB_16M_BASE		0xb000000
#define TT_WH_TLB_CFG_SIZE		8
#define TT_WH_TLB_COUNT			(TT_WH_TLB_1M_COUNT + TT_WH_TLB_2M_COUNT + \
					 TT_WH_TLB_16M_COUNT)
#define TT_WH_KMD_TLB			(TT_WH_TLB_COUNT - 1)
#define TT_WH_BRIDGE_TLB		(TT_WH_TLB_1M_COUNT - 1)
#define TT_WH_TLB_1M_SHIFT		20
#define TT_WH_TLB_1M_X_END		16
#define TT_WH_TLB_1M_ORDERING		42

/* Blackhole: 2 MiB windows only in BAR0 */
#define TT_BH_TLB_2M_COUNT		202
#define TT_BH_TLB_CFG_SIZE		12
#define TT_BH_KMD_TLB			(TT_BH_TLB_2M_COUNT - 1)
#define TT_BH_BRIDGE_TLB		(TT_BH_TLB_2M_COUNT - 2)

/* Config register fields: bit positions of the bridge's window, per arch */
#define TT_BH_TLB_X_END			43
/* y_end, x_start, y_start follow x_end, 6 bits each; then noc select */
#define TT_NOC_COORD_BITS		6
#define TT_BH_TLB_ORDERING		70
#define TT_NOC_ORDERING_STRICT		1

/* Blackhole PCIe NIU config: NOC translation enable */
#define TT_BH_NIU_CFG_0			(0x1fd04000 + 0x100)
#define TT_NOC_NIU_CFG_0_TRANSLATE	14

/* The Tensix debug registers (include/socpmu/tensix_regs.h) in a tile */
#define TT_TENSIX_DEBUG_REGS		0xffb12000ULL

#define TT_WH_GRID_X			10
#define TT_WH_GRID_Y			12
#define TT_BH_GRID_X			17
#define TT_BH_GRID_Y			12

#define TT_WH_TENSIX_X			{ 1, 2, 3, 4, 6, 7, 8, 9 }
#define TT_WH_TENSIX_Y			{ 1, 2, 3, 4, 5, 7, 8, 9, 10, 11 }
#define TT_WH_HARVEST_ROWS		{ 11, 1, 10, 2, 9, 3, 8, 4, 7, 5 }
#define TT_BH_TENSIX_X			{ 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 }
#define TT_BH_TENSIX_Y			{ 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }
#define TT_BH_HARVEST_COLS		{ 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 }

#define TT_NOC_MAX_TILES		140

#ifdef __KERNEL__
#include <linux/auxiliary_bus.h>
#include <linux/types.h>

struct regmap;

/**
 * struct tt_noc_card - a card handed to the bridge (auxiliary device
 * "<provider>.tensix_noc", e.g. "tenstorrent.tensix_noc" from tt-kmd with
 * tools/tt-kmd/patches, "socpmu_sim.tensix_noc" from the simulator)
 * @adev: the auxiliary device; its parent is the card's device
 * @bar0: 32-bit register access to BAR0 offsets (at least the reserved
 *	window and the TLB config registers, and on Blackhole the NIU config
 *	register TT_BH_NIU_CFG_0). Must not sleep: it is used with
 *	interrupts off. Locking is the bridge's.
 * @arch: enum tt_noc_arch
 * @tlb: the window reserved for the bridge (no one else programs it)
 * @harvest: harvesting mask (rows on Wormhole, columns on Blackhole) in the
 *	firmware's physical layout, as the chip's firmware reports it
 * @harvest_known: @harvest is valid; otherwise the bridge needs its
 *	harvest= module parameter
 * @clock_hz: Tensix clock (AICLK)
 * @power_vote: optional. Hold (@on true) or release (@on false) the
 *	bridge's power vote: while it is held the card keeps the Tensix tiles
 *	clocked, as it does for a client that asked for TT_POWER_FLAG_TENSIX_ENABLE
 *	(tt-kmd's power policy clock-gates them otherwise: gated tiles count
 *	nothing). Calls alternate, starting with a hold; the bridge holds the
 *	vote while any perf event exists on the card and releases it before
 *	the auxiliary device is unbound. Called in process context, may sleep.
 *	Return 0 or a negative errno (a failed hold is no vote: the event that
 *	asked for it is refused). NULL: the card cannot vote; counts then need
 *	another client to keep the tiles clocked, which the bridge says in the
 *	log and in the PMU's ``power_vote`` sysfs file.
 * @reset_seq: optional. The card's reset sequence number: bumped to an odd
 *	value when a reset of the chip starts (before anything of the chip is
 *	touched: the bump must be visible before the first access of the
 *	reset) and to the next even value once the chip is usable again (its
 *	registers answer, after the post-reset initialisation). A reset
 *	zeroes and stops the Tensix counters, and the link may be down
 *	(reads of all ones) while it runs. The bridge compares it at every
 *	read: a change, however short the reset, re-arms the counters; an odd
 *	value keeps the bridge off the bus. Called with interrupts off, from
 *	any CPU: must not sleep nor take locks (an atomic read). NULL: resets
 *	are seen only as reads of all ones, which freeze the PMU for good.
 */
struct tt_noc_card {
	struct auxiliary_device adev;
	struct regmap *bar0;
	u32 arch;
	u32 tlb;
	u32 harvest;
	bool harvest_known;
	u64 clock_hz;
	int (*power_vote)(struct tt_noc_card *card, bool on);
	u32 (*reset_seq)(struct tt_noc_card *card);
};

/**
 * struct tensix_tiles - what the bridge gives tensix_pmu (auxiliary device
 * "tensix_noc.tiles"): one regmap per Tensix tile, register 0 being the
 * tile's 0xFFB12000
 * @adev: the auxiliary device
 * @arch: enum tt_noc_arch
 * @clock_hz: Tensix clock
 * @card: the card's device (the PCI device): the PMU's sysfs parent and
 *	the source of its name
 * @translated: the NOC translates coordinates; @ax/@ay are translated
 * @nr: number of tiles (harvested tiles are not included)
 * @map: per-tile regmaps
 * @x: NOC x of each tile (NOC0 coordinates)
 * @y: NOC y of each tile
 * @ax: x the bridge addresses the tile by (translated or NOC0)
 * @ay: y the bridge addresses the tile by
 * @power_vote: hold or release the card's power vote (see
 *	tt_noc_card::power_vote), NULL when the card has none; may sleep
 * @reset_seq: the card's reset sequence (tt_noc_card::reset_seq), NULL
 *	when the card has none; called with interrupts off
 */
struct tensix_tiles {
	struct auxiliary_device adev;
	u32 arch;
	u64 clock_hz;
	struct device *card;
	bool translated;
	unsigned int nr;
	struct regmap **map;
	u8 *x;
	u8 *y;
	u8 *ax;
	u8 *ay;
	int (*power_vote)(struct tensix_tiles *tiles, bool on);
	u32 (*reset_seq)(struct tensix_tiles *tiles);
};
#endif /* __KERNEL__ */

#endif /* _SOCPMU_TT_NOC_H */
