// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu simulator: ESP tile performance monitors.
 *
 * An ESP SoC of rows x cols tiles, each of a type (cpu, mem, acc, io,
 * empty). Tile t has the register block of include/socpmu/esp_regs.h at
 * t * 0x200:
 *  - word 0, burst/snapshot: a write of 1 while it was 0 copies every
 *    monitor of the tile into a shadow set; reads of the monitors return the
 *    shadow while the register stays 1; a write of 0 returns to live reads.
 *    Reads of word 0 return its value.
 *  - words 1..59, monitors 0..58: free-running 32-bit counters, read-only
 *    (writes are ignored, nothing resets them). Monitors 14/15 and 16/17
 *    are the low/high halves of the 64-bit accelerator cycle counts; read
 *    live, the two halves can tear.
 *  - a monitor that is not defined for the tile's type stays 0.
 *
 * Activity comes from debugfs:
 *  - "inject": "<tile|all> <event-name|monitor-index> <n>" adds n to a
 *    monitor (for a 64-bit pair, give the low index or the event name).
 *    A monitor not defined for the tile's type is refused with -EINVAL;
 *    with "all" it goes to every tile where it is defined.
 *  - "workload": "off", or "on [mem=R] [cpu=R] [acc=R] [dvfs=R] [noc=R]":
 *    a free-running synthetic workload, played from the wall clock at the
 *    device's clock. R is a class's rate in units per 1000 cycles, each
 *    event of the class counting a fixed integer multiple of the units
 *    (esp_sim_wl below), so events of one class keep an exact ratio. The
 *    fastest event of a class is capped at one per cycle. With a fast clock
 *    (clock_mhz=20000 and more) 32-bit monitors wrap in well under a second.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": esp: " fmt

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

#include <socpmu/esp_regs.h>

#include "sim.h"

#define ESP_SIM_MAX_DIM		32
#define ESP_SIM_MAX_TILES	(ESP_SIM_MAX_DIM * ESP_SIM_MAX_DIM)
#define ESP_SIM_SHOW_TILES	64
#define ESP_SIM_MAX_MHZ		100000
#define ESP_SIM_RATE_ONE	1000	/* workload rate of one unit per cycle */

static const char *const esp_sim_type_names[] = ESP_TILE_TYPE_NAMES;

/* Default tiles: cpu, mem, acc, io (the 2x2 default), then empty ones */
static const u8 esp_sim_default_types[] = {
	ESP_TILE_CPU, ESP_TILE_MEM, ESP_TILE_ACC, ESP_TILE_IO,
};

/* Where each monitor is defined; the high halves follow their low half */
static const u8 esp_sim_mon_types[ESP_NR_MONITORS] = {
#define ESP_SIM_TYPES(name, mon, types, is64) \
	[mon] = (types),
	ESP_EVENTS(ESP_SIM_TYPES)
#undef ESP_SIM_TYPES
	[ESP_MON_ACC_MEM_HI] = ESP_T_ACC,
	[ESP_MON_ACC_TOT_HI] = ESP_T_ACC,
};

static const struct {
	const char *name;
	u8 mon;
} esp_sim_events[] = {
#define ESP_SIM_EVENT(_name, _mon, types, is64) { #_name, _mon },
	ESP_EVENTS(ESP_SIM_EVENT)
#undef ESP_SIM_EVENT
};

/* Workload classes: what a unit of activity is in each kind of tile */
enum { WL_MEM, WL_CPU, WL_ACC, WL_DVFS, WL_NOC, WL_NR_CLASSES };
static const char *const esp_sim_wl_classes[] = { "mem", "cpu", "acc", "dvfs", "noc" };
static const unsigned int esp_sim_wl_default[] = { 200, 200, 250, 100, 100 };

/**
 * struct esp_sim_wl_event - monitors driven by the workload
 * @mon: first monitor (the low half of a 64-bit pair)
 * @nr: number of consecutive monitors driven alike
 * @class: WL_* class whose units drive them
 * @mult: events per unit
 * @div: divisor: each monitor counts floor(units * @mult / @div)
 */
struct esp_sim_wl_event {
	u8 mon;
	u8 nr;
	u8 class;
	u8 mult;
	u16 div;
};

#define WL(m, c, mu, d) { ESP_MON_##m, 1, WL_##c, mu, d }

/*
 * A unit of "mem" is a cache line served by the LLC (3 hits : 1 miss, two
 * DDR words per miss, ...), of "cpu" an L2 access (3 hits : 1 miss), of
 * "acc" a stretch of 4 accelerator cycles (2 of them in memory transfers,
 * 1 loading the TLB, an invocation every 1000 units), of "dvfs" 10 cycles
 * spread over the operating points 4:3:2:1, of "noc" two packets injected
 * on every plane and one full cycle on every queue.
 */
static const struct esp_sim_wl_event esp_sim_wl[] = {
	WL(DDR_ACCESSES, MEM, 2, 1),
	{ ESP_MON_COH_REQ, ESP_MON_COH_DMA_RSP - ESP_MON_COH_REQ + 1, WL_MEM, 1, 1 },
	WL(LLC_HIT, MEM, 3, 1),
	WL(LLC_MISS, MEM, 1, 1),
	WL(L2_HIT, CPU, 3, 1),
	WL(L2_MISS, CPU, 1, 1),
	WL(ACC_TLB, ACC, 1, 1),
	WL(ACC_MEM_LO, ACC, 2, 1),
	WL(ACC_TOT_LO, ACC, 4, 1),
	WL(ACC_INVOCATIONS, ACC, 1, 1000),
	{ ESP_MON_DVFS_OP(0), 1, WL_DVFS, 4, 1 },
	{ ESP_MON_DVFS_OP(1), 1, WL_DVFS, 3, 1 },
	{ ESP_MON_DVFS_OP(2), 1, WL_DVFS, 2, 1 },
	{ ESP_MON_DVFS_OP(3), 1, WL_DVFS, 1, 1 },
	{ ESP_MON_NOC_INJECT_BASE, ESP_NOC_PLANES, WL_NOC, 2, 1 },
	{ ESP_MON_NOC_QFULL_BASE, ESP_NOC_PLANES * ESP_NOC_QUEUES, WL_NOC, 1, 1 },
};

struct esp_sim_cfg {
	unsigned int rows;
	unsigned int cols;
	unsigned int clock_mhz;
	unsigned int ntypes;		/* tiles given with tiles=, 0: default */
	u8 types[ESP_SIM_MAX_TILES];
};

/**
 * struct esp_sim_tile - one tile's monitors
 * @type: enum esp_tile_type
 * @burst: word 0
 * @cnt: counts; 14 and 16 hold the 64-bit accelerator counts, 15 and 17 are
 *	unused (their registers show the high halves of 14 and 16)
 * @shadow: register values copied at the last rising edge of @burst
 */
struct esp_sim_tile {
	u8 type;
	bool burst;
	u64 cnt[ESP_NR_MONITORS];
	u32 shadow[ESP_NR_MONITORS];
};

/**
 * struct esp_sim - state of one simulated ESP SoC
 * @lock: protects everything below; taken in atomic context (under the
 *	PMU's raw spinlock), hence raw
 * @clock_hz: the SoC clock, at which the workload plays
 * @wl_on: the workload is playing
 * @wl_rate: units per 1000 cycles of each WL_* class
 * @wl_start_ns: ktime_get_ns() when the workload was set
 * @wl_cycles: cycles played since @wl_start_ns
 * @ntiles: rows * cols
 * @tile: the tiles, in ESP order (row * cols + col)
 */
struct esp_sim {
	raw_spinlock_t lock;
	u64 clock_hz;
	bool wl_on;
	unsigned int wl_rate[WL_NR_CLASSES];
	u64 wl_start_ns;
	u64 wl_cycles;
	unsigned int ntiles;
	struct esp_sim_tile tile[] __counted_by(ntiles);
};

static bool esp_sim_defined(unsigned int type, unsigned int mon)
{
	return esp_sim_mon_types[mon] & BIT(type);
}

/* Live register value of monitor @mon */
static u32 esp_sim_mon(const struct esp_sim_tile *t, unsigned int mon)
{
	switch (mon) {
	case ESP_MON_ACC_MEM_HI:
		return upper_32_bits(t->cnt[ESP_MON_ACC_MEM_LO]);
	case ESP_MON_ACC_TOT_HI:
		return upper_32_bits(t->cnt[ESP_MON_ACC_TOT_LO]);
	}
	return lower_32_bits(t->cnt[mon]);
}

/* Cumulative count of workload event @i after @cycles cycles */
static u64 esp_sim_wl_count(const struct esp_sim *es, unsigned int i, u64 cycles)
{
	const struct esp_sim_wl_event *ev = &esp_sim_wl[i];
	u64 units = mul_u64_u64_div_u64(cycles, es->wl_rate[ev->class], ESP_SIM_RATE_ONE);

	return div_u64(units * ev->mult, ev->div);
}

/**
 * esp_sim_sync() - play the workload up to now
 * @es: the model, locked
 *
 * As in the Tensix model, counts follow from the absolute elapsed time, so
 * no rounding error accumulates however often this runs.
 */
static void esp_sim_sync(struct esp_sim *es)
{
	u64 inc[ARRAY_SIZE(esp_sim_wl)];
	u64 base = es->wl_cycles, now;
	unsigned int t, i, m;

	if (!es->wl_on)
		return;
	now = mul_u64_u64_div_u64(ktime_get_ns() - es->wl_start_ns, es->clock_hz,
				  NSEC_PER_SEC);
	if (now == base)
		return;
	es->wl_cycles = now;
	for (i = 0; i < ARRAY_SIZE(esp_sim_wl); i++)
		inc[i] = esp_sim_wl_count(es, i, now) - esp_sim_wl_count(es, i, base);
	for (t = 0; t < es->ntiles; t++) {
		struct esp_sim_tile *tile = &es->tile[t];

		for (i = 0; i < ARRAY_SIZE(esp_sim_wl); i++) {
			const struct esp_sim_wl_event *ev = &esp_sim_wl[i];

			if (!esp_sim_defined(tile->type, ev->mon))
				continue;
			for (m = ev->mon; m < ev->mon + ev->nr; m++)
				tile->cnt[m] += inc[i];
		}
	}
}

/* Decode a register address: tile, and word (0 burst, 1..59 monitors) */
static struct esp_sim_tile *esp_sim_decode(struct esp_sim *es, unsigned int reg,
					   unsigned int *word)
{
	unsigned int t = reg / ESP_TILE_STRIDE, off = reg % ESP_TILE_STRIDE;

	if (t >= es->ntiles || off % 4 || off >= ESP_TILE_SPAN)
		return NULL;
	*word = off / 4;
	return &es->tile[t];
}

static int esp_sim_reg_read(void *model, unsigned int reg, unsigned int *val)
{
	struct esp_sim *es = model;
	struct esp_sim_tile *tile;
	unsigned long flags;
	unsigned int word;

	*val = 0;
	tile = esp_sim_decode(es, reg, &word);
	if (!tile)
		return 0;
	raw_spin_lock_irqsave(&es->lock, flags);
	if (!word) {
		*val = tile->burst;
	} else if (tile->burst) {
		*val = tile->shadow[word - 1];
	} else {
		esp_sim_sync(es);
		*val = esp_sim_mon(tile, word - 1);
	}
	raw_spin_unlock_irqrestore(&es->lock, flags);
	return 0;
}

static int esp_sim_reg_write(void *model, unsigned int reg, unsigned int val)
{
	struct esp_sim *es = model;
	struct esp_sim_tile *tile;
	unsigned long flags;
	unsigned int word, m;
	bool burst = val & ESP_BURST_SNAPSHOT;

	tile = esp_sim_decode(es, reg, &word);
	if (!tile || word)	/* the monitors are read-only */
		return 0;
	raw_spin_lock_irqsave(&es->lock, flags);
	if (burst && !tile->burst) {
		esp_sim_sync(es);
		for (m = 0; m < ESP_NR_MONITORS; m++)
			tile->shadow[m] = esp_sim_mon(tile, m);
	}
	tile->burst = burst;
	raw_spin_unlock_irqrestore(&es->lock, flags);
	return 0;
}

/* "<event-name|monitor-index>" -> monitor; not a high half */
static int esp_sim_parse_mon(const char *s, unsigned int *mon)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(esp_sim_events); i++) {
		if (!strcmp(s, esp_sim_events[i].name)) {
			*mon = esp_sim_events[i].mon;
			return 0;
		}
	}
	if (socpmu_sim_parse_uint("monitor", s, 0, ESP_NR_MONITORS - 1, mon))
		return -EINVAL;
	if (*mon == ESP_MON_ACC_MEM_HI || *mon == ESP_MON_ACC_TOT_HI) {
		pr_debug("monitor %u is the high half of %u: inject into %u\n", *mon,
			 *mon - 1, *mon - 1);
		return -EINVAL;
	}
	return 0;
}

/* debugfs "inject": "<tile|all> <event-name|monitor-index> <n>" */
static ssize_t esp_sim_inject_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct esp_sim *es = file->private_data;
	unsigned int first, end, mon, t, hits = 0;
	unsigned long flags;
	char *w[3];
	u64 n;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (socpmu_sim_split(cmd, w, 3))
		return -EINVAL;
	if (socpmu_sim_parse_units("tile", w[0], es->ntiles, &first, &end))
		return -EINVAL;
	if (esp_sim_parse_mon(w[1], &mon))
		return -EINVAL;
	if (socpmu_sim_parse_u64("n", w[2], &n))
		return -EINVAL;

	raw_spin_lock_irqsave(&es->lock, flags);
	esp_sim_sync(es);
	for (t = first; t < end; t++) {
		if (!esp_sim_defined(es->tile[t].type, mon))
			continue;
		es->tile[t].cnt[mon] += n;
		hits++;
	}
	raw_spin_unlock_irqrestore(&es->lock, flags);
	if (!hits) {
		pr_debug("monitor %u (%s) is not defined for %s %s%s\n", mon, w[1],
			 end - first == 1 ? "the tile type" : "any tile", w[0],
			 end - first == 1 ? esp_sim_type_names[es->tile[first].type] : "");
		return -EINVAL;
	}
	return count;
}

/* Parse "off" or "on [class=R]..." */
static int esp_sim_parse_workload(char *cmd, bool *on, unsigned int *rate)
{
	unsigned int i, max;
	char *key, *val;
	int c;

	cmd = skip_spaces(cmd);
	cmd = next_arg(cmd, &key, &val);
	*on = !strcmp(key, "on");
	if (val || (!*on && (strcmp(key, "off") || *cmd)))
		goto bad;
	memcpy(rate, esp_sim_wl_default, sizeof(esp_sim_wl_default));
	while (*cmd) {
		cmd = next_arg(cmd, &key, &val);
		c = match_string(esp_sim_wl_classes, WL_NR_CLASSES, key);
		if (c < 0 || !val)
			goto bad;
		/* The fastest monitor of the class counts at most once a cycle */
		for (i = 0, max = 1; i < ARRAY_SIZE(esp_sim_wl); i++)
			if (esp_sim_wl[i].class == c)
				max = max(max, esp_sim_wl[i].mult);
		if (socpmu_sim_parse_uint(key, val, 0, ESP_SIM_RATE_ONE / max, &rate[c]))
			return -EINVAL;
	}
	return 0;
bad:
	pr_debug("workload: expected \"off\" or \"on [mem=R] [cpu=R] [acc=R] [dvfs=R] [noc=R]\"\n");
	return -EINVAL;
}

static ssize_t esp_sim_workload_write(struct file *file, const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct esp_sim *es = file->private_data;
	unsigned int rate[WL_NR_CLASSES];
	unsigned long flags;
	bool on;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (esp_sim_parse_workload(cmd, &on, rate))
		return -EINVAL;

	raw_spin_lock_irqsave(&es->lock, flags);
	esp_sim_sync(es);
	es->wl_on = on;
	if (on) {
		memcpy(es->wl_rate, rate, sizeof(rate));
		es->wl_start_ns = ktime_get_ns();
		es->wl_cycles = 0;
	}
	raw_spin_unlock_irqrestore(&es->lock, flags);
	return count;
}

static ssize_t esp_sim_workload_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct esp_sim *es = file->private_data;
	unsigned int rate[WL_NR_CLASSES], c;
	unsigned long flags;
	char buf[96];
	int len;
	bool on;

	raw_spin_lock_irqsave(&es->lock, flags);
	on = es->wl_on;
	memcpy(rate, es->wl_rate, sizeof(rate));
	raw_spin_unlock_irqrestore(&es->lock, flags);

	if (!on) {
		len = scnprintf(buf, sizeof(buf), "off\n");
	} else {
		len = scnprintf(buf, sizeof(buf), "on");
		for (c = 0; c < WL_NR_CLASSES; c++)
			len += scnprintf(buf + len, sizeof(buf) - len, " %s=%u",
					 esp_sim_wl_classes[c], rate[c]);
		len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations esp_sim_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = esp_sim_inject_write,
	.llseek = noop_llseek,
};

static const struct file_operations esp_sim_workload_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = esp_sim_workload_read,
	.write = esp_sim_workload_write,
	.llseek = default_llseek,
};

static void esp_sim_debugfs_init(struct socpmu_sim_dev *sdev, struct dentry *dir)
{
	debugfs_create_file("inject", 0200, dir, sdev->model, &esp_sim_inject_fops);
	debugfs_create_file("workload", 0600, dir, sdev->model, &esp_sim_workload_fops);
}

static void esp_sim_cfg_init(void *data)
{
	struct esp_sim_cfg *cfg = data;

	cfg->rows = 2;
	cfg->cols = 2;
	cfg->clock_mhz = 100;
}

static int esp_sim_parse_tiles(struct esp_sim_cfg *cfg, const char *val)
{
	char *list __free(kfree) = kstrdup(val, GFP_KERNEL);
	char *p = list, *tok;
	int type;

	if (!list)
		return -ENOMEM;
	cfg->ntypes = 0;
	while ((tok = strsep(&p, ","))) {
		type = match_string(esp_sim_type_names, ESP_NR_TILE_TYPES, tok);
		if (type < 0 || cfg->ntypes >= ESP_SIM_MAX_TILES) {
			pr_debug("tiles=%s: expected up to %u of cpu,mem,acc,io,empty\n",
				 val, ESP_SIM_MAX_TILES);
			return -EINVAL;
		}
		cfg->types[cfg->ntypes++] = type;
	}
	return 0;
}

static int esp_sim_cfg_parse(void *data, const char *key, const char *val)
{
	struct esp_sim_cfg *cfg = data;

	if (!strcmp(key, "rows"))
		return socpmu_sim_parse_uint(key, val, 1, ESP_SIM_MAX_DIM, &cfg->rows);
	if (!strcmp(key, "cols"))
		return socpmu_sim_parse_uint(key, val, 1, ESP_SIM_MAX_DIM, &cfg->cols);
	if (!strcmp(key, "clock_mhz"))
		return socpmu_sim_parse_uint(key, val, 1, ESP_SIM_MAX_MHZ, &cfg->clock_mhz);
	if (!strcmp(key, "tiles"))
		return esp_sim_parse_tiles(cfg, val);
	pr_debug("unknown parameter \"%s\"\n", key);
	return -EINVAL;
}

/* Type of tile @t: the tiles= list, else the default one */
static unsigned int esp_sim_cfg_type(const struct esp_sim_cfg *cfg, unsigned int t)
{
	if (cfg->ntypes)
		return cfg->types[t];
	return t < ARRAY_SIZE(esp_sim_default_types) ? esp_sim_default_types[t] :
						       ESP_TILE_EMPTY;
}

static int esp_sim_cfg_show(const void *data, char *buf, int at)
{
	const struct esp_sim_cfg *cfg = data;
	unsigned int t, ntiles = cfg->rows * cfg->cols;
	int len;

	len = sysfs_emit_at(buf, at, " rows=%u cols=%u tiles=", cfg->rows, cfg->cols);
	/* The devices file is one page: the first ESP_SIM_SHOW_TILES of a big SoC */
	for (t = 0; t < min(ntiles, ESP_SIM_SHOW_TILES); t++)
		len += sysfs_emit_at(buf, at + len, "%s%s", t ? "," : "",
				     esp_sim_type_names[esp_sim_cfg_type(cfg, t)]);
	if (ntiles > ESP_SIM_SHOW_TILES)
		len += sysfs_emit_at(buf, at + len, ",...");
	return len + sysfs_emit_at(buf, at + len, " clock_mhz=%u", cfg->clock_mhz);
}

static void *esp_sim_create(struct socpmu_sim_dev *sdev)
{
	const struct esp_sim_cfg *cfg = sdev->cfg;
	unsigned int t, ntiles = cfg->rows * cfg->cols;
	struct esp_sim *es;

	if (cfg->ntypes && cfg->ntypes != ntiles) {
		pr_debug("tiles= lists %u tiles, rows x cols is %u\n", cfg->ntypes, ntiles);
		return ERR_PTR(-EINVAL);
	}
	es = kvzalloc(struct_size(es, tile, ntiles), GFP_KERNEL);
	if (!es)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&es->lock);
	es->ntiles = ntiles;
	es->clock_hz = (u64)cfg->clock_mhz * HZ_PER_MHZ;
	for (t = 0; t < ntiles; t++)
		es->tile[t].type = esp_sim_cfg_type(cfg, t);
	sdev->max_register = ntiles * ESP_TILE_STRIDE - 4;
	return es;
}

static void esp_sim_destroy(void *model)
{
	kvfree(model);
}

static int esp_sim_add_child(struct socpmu_sim_dev *sdev, const char **types)
{
	const struct esp_sim_cfg *cfg = sdev->cfg;
	const struct property_entry props[] = {
		PROPERTY_ENTRY_U32("esp,rows", cfg->rows),
		PROPERTY_ENTRY_U32("esp,cols", cfg->cols),
		PROPERTY_ENTRY_STRING_ARRAY_LEN("esp,tile-types", types, cfg->rows * cfg->cols),
		PROPERTY_ENTRY_U64("clock-frequency", (u64)cfg->clock_mhz * HZ_PER_MHZ),
		{ }
	};

	/* The properties, strings included, are copied */
	return socpmu_sim_add_child(sdev, "esp-pmu", props);
}

static int esp_sim_add_children(struct socpmu_sim_dev *sdev)
{
	const struct esp_sim_cfg *cfg = sdev->cfg;
	unsigned int t, ntiles = cfg->rows * cfg->cols;
	const char **types;
	int ret;

	types = kcalloc(ntiles, sizeof(*types), GFP_KERNEL);
	if (!types)
		return -ENOMEM;
	for (t = 0; t < ntiles; t++)
		types[t] = esp_sim_type_names[esp_sim_cfg_type(cfg, t)];
	ret = esp_sim_add_child(sdev, types);
	kfree(types);
	return ret;
}

const struct socpmu_sim_type socpmu_sim_esp = {
	.name = "esp",
	.cfg_size = sizeof(struct esp_sim_cfg),
	.cfg_init = esp_sim_cfg_init,
	.cfg_parse = esp_sim_cfg_parse,
	.cfg_show = esp_sim_cfg_show,
	.create = esp_sim_create,
	.destroy = esp_sim_destroy,
	.reg_read = esp_sim_reg_read,
	.reg_write = esp_sim_reg_write,
	.debugfs_init = esp_sim_debugfs_init,
	.add_children = esp_sim_add_children,
};
