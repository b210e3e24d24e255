/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Golden data from tenstorrent/tt-umd at commit 3ed9cb6d0 (Apache-2.0),
 * copied as facts (coordinates and masks), not as code:
 *
 *  - tests/baremetal/test_core_coord_translation_bh.cpp:
 *    CoordinateManagerBlackholeNoHarvesting (translated == NOC0),
 *    ...TopRightCore, ...BottomLeftCore (mask 1 << 0),
 *    ...TensixTranslatedMappingHarvested (mask (1 << 0) | (1 << 1)),
 *    ...HarvestingShuffle (LOGICAL_HARVESTING_LAYOUT of
 *    device/api/umd/device/arch/blackhole_implementation.hpp);
 *  - tests/baremetal/test_core_coord_translation_wh.cpp:
 *    CoordinateManagerWormholeTopLeftCore, ...TopRightCore,
 *    ...BottomLeftCore (mask 1 << 0), ...HarvestingShuffle
 *    (LOGICAL_HARVESTING_LAYOUT of wormhole_implementation.hpp);
 *  - tests/cluster_descriptor_examples/blackhole_P100.yaml and
 *    blackhole_4xP150.yaml (noc_translation: true, harvest_mask: 192 on
 *    every chip) and wormhole_N300.yaml (noc_translation: true,
 *    harvest_mask: 65 and 5).
 *
 * Masks are tt-umd's (bit i: the i-th Tensix column, Blackhole, or row,
 * Wormhole, in NOC0 order). All translation cases have translation on.
 */
#ifndef TT_UMD_GOLDEN_H
#define TT_UMD_GOLDEN_H

/* A Tensix tile's NOC0 and translated coordinates under a mask */
struct umd_xlat {
	const char *src;
	int bh;
	unsigned int mask;
	int x, y;	/* NOC0 */
	int tx, ty;	/* TRANSLATED */
};

static const struct umd_xlat umd_xlat[] = {
	{ "bh NoHarvesting", 1, 0, 1, 2, 1, 2 },
	{ "bh NoHarvesting", 1, 0, 16, 11, 16, 11 },
	{ "bh TopRightCore", 1, 0x1, 16, 2, 15, 2 },
	{ "bh BottomLeftCore", 1, 0x1, 2, 11, 1, 11 },
	{ "bh TensixTranslatedMappingHarvested", 1, 0x3, 1, 2, 16, 2 },
	{ "bh TensixTranslatedMappingHarvested", 1, 0x3, 2, 2, 15, 2 },
	{ "wh TopLeftCore", 0, 0x1, 1, 2, 18, 18 },
	{ "wh TopRightCore", 0, 0x1, 9, 2, 25, 18 },
	{ "wh BottomLeftCore", 0, 0x1, 1, 11, 18, 26 },
};

/*
 * shuffle_tensix_harvesting_mask(1 << layout[i]) == 1 << i: the firmware's
 * bit layout[i] is tt-umd's bit i
 */
static const int umd_bh_logical_harvesting_layout[14] = {
	0, 2, 4, 6, 8, 10, 12, 13, 11, 9, 7, 5, 3, 1
};
static const int umd_wh_logical_harvesting_layout[10] = {
	1, 3, 5, 7, 9, 8, 6, 4, 2, 0
};

/* Cluster descriptors: a chip's harvest_mask and what it removes */
struct umd_desc {
	const char *src;
	int bh;
	unsigned int harvest_mask;
	int ntiles;		/* Tensix tiles left */
	int gone[2];		/* NOC0 columns (bh) or rows (wh) removed */
};

static const struct umd_desc umd_desc[] = {
	{ "blackhole_P100.yaml chip 0", 1, 192, 120, { 7, 10 } },
	{ "blackhole_4xP150.yaml chips 0-3", 1, 192, 120, { 7, 10 } },
	{ "wormhole_N300.yaml chip 0", 0, 65, 64, { 1, 8 } },
	{ "wormhole_N300.yaml chip 1", 0, 5, 64, { 1, 3 } },
};

#endif /* TT_UMD_GOLDEN_H */
