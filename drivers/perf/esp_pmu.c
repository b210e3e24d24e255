// SPDX-License-Identifier: GPL-2.0-only
/*
 * ESP tile performance monitor PMU.
 *
 * Every tile of an ESP SoC has 59 free-running 32-bit monitors that cannot
 * be reset, plus a burst/snapshot register: writing 1 freezes a copy of all
 * of the tile's monitors for reading, writing 0 returns to live reads.
 * Monitors 14/15 and 16/17 are the halves of the 64-bit accelerator cycle
 * counts. Which monitors mean something depends on the tile's type (cpu,
 * mem, acc, io, empty); the others read 0.
 *
 * One PMU per SoC, esp_<n>, counting only. An event is one monitor (or one
 * 64-bit pair) of one tile (config1, "tile"), or the sum over every tile
 * whose type defines it. Nothing is claimed or started: the monitors always
 * count, so an event remembers the raw value at start and the socpmu core
 * folds the progress into a 64-bit count, polling often enough that no
 * 32-bit wrap is missed.
 *
 * Snapshots: in a group read (PERF_PMU_TXN_READ) the first read of each tile
 * writes 1 to its burst register and the end of the read writes 0 again, so
 * all members read on a tile come from one instant. The core opens the same
 * window while perf has the PMU disabled (pmu_disable to pmu_enable), which
 * covers scheduling groups out member by member and in again: every member
 * is banked and restarted from one snapshot of its tile. A 64-bit event read
 * on its own is bracketed the same way, so its halves never tear.
 */

#define pr_fmt(fmt) "esp_pmu: " fmt

#include <linux/idr.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>
#include <linux/slab.h>

#include <socpmu/core.h>
#include <socpmu/esp_regs.h>

static const char *const esp_type_names[] = ESP_TILE_TYPE_NAMES;

struct esp_event_desc {
	u8 mon;
	u8 types;
	bool is64;
};

static const struct esp_event_desc esp_events[] = {
#define ESP_EVENT_DESC(name, mon, types, is64) { mon, types, is64 },
	ESP_EVENTS(ESP_EVENT_DESC)
#undef ESP_EVENT_DESC
};

/**
 * struct esp_tile - driver state of one tile
 * @type: enum esp_tile_type
 * @snap: the tile's burst register is 1 for the group read or PMU-disabled
 *	window in progress
 */
struct esp_tile {
	u8 type;
	bool snap;
};

/**
 * struct esp_pmu - one ESP SoC
 * @sp: the socpmu core's part
 * @map: the monitor registers, tile t at t * ESP_TILE_STRIDE
 * @rows: tile rows
 * @cols: tile columns
 * @ntiles: rows * cols
 * @in_txn: a group read, poll sweep or PMU-disabled window is in progress:
 *	snapshot tiles as they are read
 * @tiles: per-tile state, in ESP order (row * cols + col)
 */
struct esp_pmu {
	struct socpmu sp;
	struct regmap *map;
	unsigned int rows;
	unsigned int cols;
	unsigned int ntiles;
	bool in_txn;
	struct esp_tile tiles[];
};

static DEFINE_IDA(esp_ida);

static inline struct esp_pmu *to_esp(struct socpmu *sp)
{
	return container_of(sp, struct esp_pmu, sp);
}

/* The event's descriptor, kept in the core's per-event word at init */
static const struct esp_event_desc *esp_ev(struct perf_event *event)
{
	return (const struct esp_event_desc *)socpmu_hw(event)->data;
}

static const struct esp_event_desc *esp_event_find(u64 config)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(esp_events); i++)
		if (esp_events[i].mon == config)
			return &esp_events[i];
	return NULL;
}

static bool esp_tile_has(struct esp_pmu *ep, unsigned int tile, unsigned int types)
{
	return types & BIT(ep->tiles[tile].type);
}

static int esp_event_init(struct socpmu *sp, struct perf_event *event,
			  unsigned int *nr, unsigned int *width)
{
	struct esp_pmu *ep = to_esp(sp);
	u64 cfg = event->attr.config;
	const struct esp_event_desc *ev;
	unsigned int first, n, t;

	if ((cfg & ~ESP_CFG_EVENT_MASK) || (event->attr.config1 & ~SOCPMU_CFG1_VALID) ||
	    event->attr.config2) {
		socpmu_refuse(sp, "reserved config bits set");
		return -EINVAL;
	}
	ev = esp_event_find(cfg);
	if (!ev) {
		socpmu_refuse(sp, "no event 0x%llx", cfg);
		return -EINVAL;
	}
	n = socpmu_units(event, ep->ntiles, &first);
	if (first >= ep->ntiles) {
		socpmu_refuse(sp, "no tile %u (SoC has %u)", first, ep->ntiles);
		return -EINVAL;
	}
	for (t = first; t < first + n; t++)
		if (esp_tile_has(ep, t, ev->types))
			break;
	if (t == first + n) {
		if (n == 1)
			socpmu_refuse(sp, "event 0x%llx is not defined on tile %u (%s)", cfg,
				      first, esp_type_names[ep->tiles[first].type]);
		else
			socpmu_refuse(sp, "no tile defines event 0x%llx", cfg);
		return -EINVAL;
	}
	socpmu_hw(event)->data = (unsigned long)ev;
	*nr = n;
	*width = ev->is64 ? 64 : 32;
	return 0;
}

/* The monitors always count: nothing to claim or release. */
static int esp_add(struct socpmu *sp, struct perf_event *event)
{
	return 0;
}

static void esp_del(struct socpmu *sp, struct perf_event *event)
{
}

/*
 * The regmap is MMIO or the simulator: neither fails nor sleeps, so access
 * errors cannot happen here and are not checked.
 */
static void esp_write(struct esp_pmu *ep, unsigned int tile, unsigned int off, u32 val)
{
	regmap_write(ep->map, tile * ESP_TILE_STRIDE + off, val);
}

static u32 esp_read(struct esp_pmu *ep, unsigned int tile, unsigned int off)
{
	unsigned int val = 0;

	regmap_read(ep->map, tile * ESP_TILE_STRIDE + off, &val);
	return val;
}

/* Raw value of monitor @mon (a 64-bit pair if @is64) of @tile */
static u64 esp_read_tile(struct esp_pmu *ep, unsigned int tile, unsigned int mon,
			 bool is64)
{
	struct esp_tile *et = &ep->tiles[tile];
	bool bracket = false;
	u64 val;

	if (ep->in_txn && !et->snap) {
		/* Group read or window: the rest of it reads this snapshot too */
		esp_write(ep, tile, ESP_REG_BURST, ESP_BURST_SNAPSHOT);
		et->snap = true;
	} else if (!ep->in_txn && is64) {
		esp_write(ep, tile, ESP_REG_BURST, ESP_BURST_SNAPSHOT);
		bracket = true;
	}
	val = esp_read(ep, tile, ESP_REG_MON(mon));
	if (is64)
		val |= (u64)esp_read(ep, tile, ESP_REG_MON(mon + 1)) << 32;
	if (bracket)
		esp_write(ep, tile, ESP_REG_BURST, 0);
	return val;
}

static void esp_read_event(struct socpmu *sp, struct perf_event *event, u64 *vals)
{
	struct esp_pmu *ep = to_esp(sp);
	const struct esp_event_desc *ev = esp_ev(event);
	unsigned int first, n, i;

	n = socpmu_units(event, ep->ntiles, &first);
	for (i = 0; i < n; i++) {
		/* Undefined monitors read 0 anyway: spare the accesses */
		if (esp_tile_has(ep, first + i, ev->types))
			vals[i] = esp_read_tile(ep, first + i, ev->mon, ev->is64);
		else
			vals[i] = 0;
	}
}

static void esp_read_begin(struct socpmu *sp, enum socpmu_window why)
{
	to_esp(sp)->in_txn = true;
}

static void esp_read_end(struct socpmu *sp)
{
	struct esp_pmu *ep = to_esp(sp);
	unsigned int t;

	for (t = 0; t < ep->ntiles; t++) {
		if (!ep->tiles[t].snap)
			continue;
		esp_write(ep, t, ESP_REG_BURST, 0);
		ep->tiles[t].snap = false;
	}
	ep->in_txn = false;
}

static const struct socpmu_ops esp_ops = {
	.event_init	= esp_event_init,
	.add		= esp_add,
	.del		= esp_del,
	.read		= esp_read_event,
	.read_begin	= esp_read_begin,
	.read_end	= esp_read_end,
};

/* sysfs */

static ssize_t esp_event_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct perf_pmu_events_attr *ea = container_of(attr, struct perf_pmu_events_attr, attr);

	return sysfs_emit(buf, "event=0x%02llx\n", ea->id);
}

#define ESP_EVENT_ATTR(_name, _mon, _types, _is64)			\
	PMU_EVENT_ATTR_ID(_name, esp_event_show, _mon),

static struct attribute *esp_event_attrs[] = {
	ESP_EVENTS(ESP_EVENT_ATTR)
	NULL,
};

/* List only the events that some tile of this SoC defines */
static umode_t esp_event_is_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	struct esp_pmu *ep = to_esp(to_socpmu(dev_get_drvdata(kobj_to_dev(kobj))));
	unsigned int t;

	for (t = 0; t < ep->ntiles; t++)
		if (esp_tile_has(ep, t, esp_events[i].types))
			return attr->mode;
	return 0;
}

static const struct attribute_group esp_events_group = {
	.name = "events",
	.attrs = esp_event_attrs,
	.is_visible = esp_event_is_visible,
};

static struct attribute *esp_format_attrs[] = {
	SOCPMU_FORMAT_ATTR(event, "config:0-7"),
	SOCPMU_FORMAT_ATTR(tile, "config1:0-15"),
	SOCPMU_FORMAT_ATTR(bytile, "config1:16"),
	NULL,
};

static const struct attribute_group esp_format_group = {
	.name = "format",
	.attrs = esp_format_attrs,
};

static struct esp_pmu *dev_to_esp(struct device *dev)
{
	return to_esp(to_socpmu(dev_get_drvdata(dev)));
}

/*
 * The most tiles a device may have: as many as the tiles file can list, each
 * type name ("empty" the longest) and a separator
 */
#define ESP_PMU_MAX_TILES	((PAGE_SIZE - 1) / sizeof("empty"))

/* Each tile's type, in tile order: "cpu mem acc io" */
static ssize_t tiles_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct esp_pmu *ep = dev_to_esp(dev);
	unsigned int t;
	int len = 0;

	/* A removed SoC's PMU waits for its events to close: not a SoC to pick */
	if (READ_ONCE(ep->sp.dead))
		return -ENODEV;
	for (t = 0; t < ep->ntiles; t++)
		len += sysfs_emit_at(buf, len, "%s%s", t ? " " : "",
				     esp_type_names[ep->tiles[t].type]);
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(tiles);

static ssize_t rows_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_esp(dev)->rows);
}
static DEVICE_ATTR_RO(rows);

static ssize_t cols_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_esp(dev)->cols);
}
static DEVICE_ATTR_RO(cols);

/* What perf's pmu-events (sys events and metrics) match */
static ssize_t identifier_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "esp\n");
}
static DEVICE_ATTR_RO(identifier);

static struct attribute *esp_pmu_attrs[] = {
	&dev_attr_identifier.attr,
	&dev_attr_tiles.attr,
	&dev_attr_rows.attr,
	&dev_attr_cols.attr,
	NULL,
};

static const struct attribute_group esp_pmu_group = {
	.attrs = esp_pmu_attrs,
};

static const struct attribute_group *esp_groups[] = {
	&esp_events_group,
	&esp_format_group,
	&esp_pmu_group,
	&socpmu_core_attr_group,
	NULL,
};

/* probe */

/* "esp,tile-types": one of cpu, mem, acc, io, empty per tile */
static int esp_parse_tile_types(struct device *dev, struct esp_pmu *ep, const char **names)
{
	unsigned int t;
	int n, type;

	n = device_property_string_array_count(dev, "esp,tile-types");
	if (n != ep->ntiles)
		return dev_err_probe(dev, -EINVAL,
				     "esp,tile-types has %d entries, expected %u\n",
				     n, ep->ntiles);
	n = device_property_read_string_array(dev, "esp,tile-types", names, ep->ntiles);
	if (n != ep->ntiles)
		return dev_err_probe(dev, n < 0 ? n : -EINVAL, "bad esp,tile-types\n");
	for (t = 0; t < ep->ntiles; t++) {
		type = match_string(esp_type_names, ESP_NR_TILE_TYPES, names[t]);
		if (type < 0)
			return dev_err_probe(dev, -EINVAL, "tile %u: unknown type \"%s\"\n",
					     t, names[t]);
		ep->tiles[t].type = type;
	}
	return 0;
}

static int esp_read_tile_types(struct device *dev, struct esp_pmu *ep)
{
	const char **names;
	int ret;

	names = kcalloc(ep->ntiles, sizeof(*names), GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	ret = esp_parse_tile_types(dev, ep, names);
	kfree(names);
	return ret;
}

static int esp_pmu_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	unsigned int rows, cols, ntiles, t;
	struct esp_pmu *ep;
	struct regmap *map;
	u64 clock_hz;
	int ret;

	if (device_property_read_u32(dev, "esp,rows", &rows) || !rows ||
	    device_property_read_u32(dev, "esp,cols", &cols) || !cols ||
	    (u64)rows * cols > SOCPMU_CFG1_UNIT_MASK + 1)
		return dev_err_probe(dev, -EINVAL, "missing or bad esp,rows / esp,cols\n");
	ntiles = rows * cols;
	if (ntiles > ESP_PMU_MAX_TILES)
		return dev_err_probe(dev, -EINVAL, "%u tiles: the tiles file can list %lu\n",
				     ntiles, ESP_PMU_MAX_TILES);
	if (socpmu_read_clock(dev, &clock_hz))
		return dev_err_probe(dev, -EINVAL, "missing clock-frequency\n");

	/* The last tile's block only needs its 60 words */
	map = socpmu_get_regmap(pdev, (resource_size_t)(ntiles - 1) * ESP_TILE_STRIDE + ESP_TILE_SPAN);
	if (IS_ERR(map))
		return dev_err_probe(dev, PTR_ERR(map), "no registers\n");

	ep = socpmu_alloc(struct_size(ep, tiles, ntiles));
	if (!ep)
		return -ENOMEM;
	ep->map = map;
	ep->rows = rows;
	ep->cols = cols;
	ep->ntiles = ntiles;
	ret = esp_read_tile_types(dev, ep);
	if (ret) {
		kfree(ep);
		return ret;
	}
	/* A monitor counts at most once a cycle */
	ep->sp.poll_ns = socpmu_poll_ns(clock_hz, 32);

	/* Live reads until a snapshot is taken; a 1 left behind would stale them */
	for (t = 0; t < ntiles; t++)
		esp_write(ep, t, ESP_REG_BURST, 0);

	ret = socpmu_register(&ep->sp, dev, &esp_ops, &esp_ida, "esp", esp_groups);
	if (ret) {
		kfree(ep);
		return dev_err_probe(dev, ret, "PMU registration failed\n");
	}
	platform_set_drvdata(pdev, &ep->sp);
	dev_info(dev, "%s: %ux%u tiles, %llu Hz\n", ep->sp.name, rows, cols, clock_hz);
	return 0;
}

static const struct of_device_id esp_pmu_of_match[] = {
	{ .compatible = "esp,monitors" },
	{ }
};
MODULE_DEVICE_TABLE(of, esp_pmu_of_match);

static const struct platform_device_id esp_pmu_ids[] = {
	{ "esp-pmu" },
	{ }
};
MODULE_DEVICE_TABLE(platform, esp_pmu_ids);

static struct platform_driver esp_pmu_driver = {
	.driver = {
		.name = "esp-pmu",
		.of_match_table = esp_pmu_of_match,
		.suppress_bind_attrs = true,
	},
	.id_table = esp_pmu_ids,
	.probe = esp_pmu_probe,
	.remove = socpmu_platform_remove,
};

module_socpmu_driver(esp_pmu_driver);

MODULE_DESCRIPTION("ESP tile performance monitor PMU");
MODULE_LICENSE("GPL");
