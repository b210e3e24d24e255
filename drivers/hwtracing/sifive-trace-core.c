// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive trace: register blocks, integrated sinks, the encoder/funnel
 * registry, and the module.
 *
 * A TE or funnel block is reached through a regmap: its own MMIO region on
 * real hardware, or a parent device's regmap (MFD style) in which the
 * block's "reg" property is its offset (socpmu_get_regmap()). Which sinks a block has is read from
 * its impl register; the SRAM size is found by writing all ones to WP (the
 * bits above the size do not exist). The SBA sink of a block gets a
 * DMA-coherent buffer (at most ST_SBA_BUF_MAX) for when trace cannot go
 * straight into an AUX buffer.
 */
#define pr_fmt(fmt) "sifive_trace: " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <socpmu/core.h>

#include "sifive-trace.h"

#define ST_SRAM_MIN		256

static unsigned int sba_buffer_kb = 64;
module_param(sba_buffer_kb, uint, 0444);
MODULE_PARM_DESC(sba_buffer_kb,
		 "Size of the SBA sink's own buffer in KiB, when a device does not set sifive,sba-buffer-size (default 64)");

DEFINE_MUTEX(st_lock);			/* protects the registry */
DEFINE_PER_CPU(struct st_te *, st_te_of_cpu);
static LIST_HEAD(st_funnels);

/*
 * Register access. The regmap is MMIO or the simulator: neither fails nor
 * sleeps, so errors cannot happen and are not checked.
 */
u32 st_read(struct st_block *b, unsigned int off)
{
	unsigned int val = 0;

	regmap_read(b->map, b->base + off, &val);
	return val;
}

void st_write(struct st_block *b, unsigned int off, u32 val)
{
	regmap_write(b->map, b->base + off, val);
}

/* The control register without its read-only and write-1-to-clear bits */
u32 st_ctrl(struct st_block *b)
{
	return st_read(b, SIFIVE_TRACE_CONTROL) & ~(SIFIVE_CTRL_EMPTY | SIFIVE_CTRL_SINK_ERROR);
}

/**
 * st_wait_empty() - wait until nothing is in flight in the block (teEmpty / tfEmpty)
 * @b: the block
 * @polls: reads of the control register left for the whole drain; this
 *	wait takes what it uses from it
 *
 * Trace in flight reaches the sink within a few bus cycles; a block that
 * does not drain within the budget is given up on rather than waited for
 * with interrupts off.
 *
 * Return: true if the block is empty.
 */
bool st_wait_empty(struct st_block *b, unsigned int *polls)
{
	while (*polls) {
		(*polls)--;
		if (st_read(b, SIFIVE_TRACE_CONTROL) & SIFIVE_CTRL_EMPTY)
			return true;
		cpu_relax();
	}
	dev_warn_ratelimited(b->dev, "trace does not drain\n");
	return false;
}

/*
 * The vendor's flush: clear enable, wait for empty (from @polls, see
 * st_wait_empty()), set enable again. False if the block did not drain.
 */
bool st_flush(struct st_block *b, unsigned int *polls)
{
	u32 ctrl = st_read(b, SIFIVE_TRACE_CONTROL);
	bool empty;

	if ((ctrl & SIFIVE_CTRL_EMPTY) || !(ctrl & SIFIVE_CTRL_ENABLE))
		return true;
	ctrl &= ~(SIFIVE_CTRL_EMPTY | SIFIVE_CTRL_SINK_ERROR);
	st_write(b, SIFIVE_TRACE_CONTROL, ctrl & ~SIFIVE_CTRL_ENABLE);
	empty = st_wait_empty(b, polls);
	st_write(b, SIFIVE_TRACE_CONTROL, ctrl);
	return empty;
}

struct st_sink *st_block_sink(struct st_block *b, unsigned int code)
{
	if (code == SIFIVE_SINK_SRAM && b->sram.code)
		return &b->sram;
	if (code == SIFIVE_SINK_SBA && b->sba.code)
		return &b->sba;
	return NULL;
}

/*
 * Point the block's sink at a window: for SRAM its whole size, for SBA
 * @size bytes of memory at bus address @start. The caller has selected the
 * sink in the control register.
 */
void st_window_program(struct st_block *b, struct st_sink *sink, u64 start, size_t size)
{
	b->sink = sink;
	b->win_start = start;
	b->win_size = size;
	if (sink->code == SIFIVE_SINK_SBA) {
		st_write(b, SIFIVE_TRACE_SINK_BASE, lower_32_bits(start));
		st_write(b, SIFIVE_TRACE_SINK_BASE_HIGH, upper_32_bits(start));
		st_write(b, SIFIVE_TRACE_SINK_LIMIT, lower_32_bits(start + size - 1));
	}
	st_window_reset(b);
}

/* Empty the window: WP back to its start (clearing the wrapped bit), RP to 0 */
void st_window_reset(struct st_block *b)
{
	st_write(b, SIFIVE_TRACE_SINK_WP, lower_32_bits(b->win_start));
	st_write(b, SIFIVE_TRACE_SINK_RP, 0);
}

/* Bytes in the window; a wrapped window is full */
size_t st_window_fill(struct st_block *b, bool *wrapped)
{
	u32 wp = st_read(b, SIFIVE_TRACE_SINK_WP);

	*wrapped = wp & SIFIVE_WP_WRAPPED;
	if (*wrapped)
		return b->win_size;
	return (u32)((wp & ~SIFIVE_WP_WRAPPED) - lower_32_bits(b->win_start));
}

/* Offset of WP in the window: where the next word goes, the oldest byte once wrapped */
size_t st_window_wp(struct st_block *b)
{
	return (u32)((st_read(b, SIFIVE_TRACE_SINK_WP) & ~SIFIVE_WP_WRAPPED) -
		     lower_32_bits(b->win_start));
}

/**
 * st_window_read() - hand bytes of the window to @put, in order
 * @b: the block (not a direct window)
 * @off: offset in the window of the first byte; a multiple of 4 for SRAM
 * @len: bytes, at most the window's size; the window is a ring
 * @put: receives the bytes, in pieces
 * @ctx: its context
 *
 * The SRAM is read through the data register from RP (@off), one register
 * read per word, which is why callers bound @len; the SBA buffer is
 * coherent memory.
 */
void st_window_read(struct st_block *b, size_t off, size_t len,
		    void (*put)(void *ctx, const void *p, size_t n), void *ctx)
{
	struct st_sink *s = b->sink;
	__le32 word;
	size_t n;

	if (s->code == SIFIVE_SINK_SRAM) {
		st_write(b, SIFIVE_TRACE_SINK_RP, off);
		for (; len; len -= n) {
			word = cpu_to_le32(st_read(b, SIFIVE_TRACE_SINK_DATA));
			n = min_t(size_t, len, sizeof(word));
			put(ctx, &word, n);
		}
		return;
	}
	/* Coherent memory: no syncing */
	n = min(len, b->win_size - off);
	put(ctx, s->buf + off, n);
	if (len > n)
		put(ctx, s->buf, len - n);
}

/* Start the block's own timestamp unit counting (a slave follows the funnel's) */
void st_ts_init(struct st_block *b)
{
	u32 type = (st_read(b, SIFIVE_TS_CONTROL) & SIFIVE_TS_TYPE_MASK) >> SIFIVE_TS_TYPE_SHIFT;

	if (type == SIFIVE_TS_TYPE_BUS || type == SIFIVE_TS_TYPE_CORE) {
		st_write(b, SIFIVE_TS_CONTROL, 0);
		st_write(b, SIFIVE_TS_CONTROL, SIFIVE_TS_ACTIVE | SIFIVE_TS_COUNT);
	}
}

/* Probe */

/* 16- and 8-bit views of a TE's MMIO block, for ITC stores */
static const struct regmap_config st_mmio_narrow_config[] = {
	{ .name = "itc16", .reg_bits = 32, .val_bits = 16, .reg_stride = 2,
	  .max_register = SIFIVE_TE_SPAN - 2, .fast_io = true, .disable_locking = true },
	{ .name = "itc8", .reg_bits = 32, .val_bits = 8, .reg_stride = 1,
	  .max_register = SIFIVE_TE_SPAN - 1, .fast_io = true, .disable_locking = true },
};

/*
 * The block's registers (socpmu_get_regmap(): a parent's regmap, MFD style,
 * in which "reg" is the block's offset, or our own MMIO) and, for a TE, the
 * 16- and 8-bit access its ITC stores need: the parent's "itc16" and "itc8"
 * regmaps, or narrow views of the same MMIO.
 */
static int st_block_regmaps(struct platform_device *pdev, struct st_block *b,
			    struct regmap **itc16, struct regmap **itc8)
{
	struct device *dev = &pdev->dev, *parent = dev->parent;
	struct resource *res;
	void __iomem *base;

	b->map = socpmu_get_regmap(pdev, SIFIVE_TE_SPAN);
	if (IS_ERR(b->map))
		return PTR_ERR(b->map);
	if (parent && b->map == dev_get_regmap(parent, NULL)) {
		if (device_property_read_u32(dev, "reg", &b->base))
			return dev_err_probe(dev, -EINVAL,
					     "no \"reg\" offset in the parent's registers\n");
		if (!itc16)
			return 0;
		*itc16 = socpmu_parent_regmap(dev, "itc16");
		*itc8 = socpmu_parent_regmap(dev, "itc8");
		if (IS_ERR(*itc16) || IS_ERR(*itc8))
			return -EINVAL;
		if (!*itc16 || !*itc8)
			return dev_err_probe(dev, -ENODEV,
					     "parent has no 16/8-bit register access\n");
		return 0;
	}
	if (!itc16)
		return 0;
	/* socpmu_get_regmap() requested and checked the region */
	res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	base = devm_ioremap(dev, res->start, SIFIVE_TE_SPAN);
	if (!base)
		return -ENOMEM;
	*itc16 = devm_regmap_init_mmio(dev, base, &st_mmio_narrow_config[0]);
	if (IS_ERR(*itc16))
		return PTR_ERR(*itc16);
	*itc8 = devm_regmap_init_mmio(dev, base, &st_mmio_narrow_config[1]);
	return PTR_ERR_OR_ZERO(*itc8);
}

static int st_sram_probe(struct st_block *b)
{
	u32 wp;

	st_write(b, SIFIVE_TRACE_CONTROL, 0);
	st_write(b, SIFIVE_TRACE_CONTROL, SIFIVE_CTRL_ACTIVE |
		 SIFIVE_SINK_SRAM << SIFIVE_CTRL_SINK_SHIFT);
	st_write(b, SIFIVE_TRACE_SINK_WP, ~SIFIVE_WP_WRAPPED);
	wp = st_read(b, SIFIVE_TRACE_SINK_WP) & ~3u;
	st_write(b, SIFIVE_TRACE_SINK_WP, 0);
	st_write(b, SIFIVE_TRACE_CONTROL, 0);
	/* All 32 bits of WP exist (4 GiB) or no power of 2: not an SRAM */
	if (wp + 4 < ST_SRAM_MIN || wp + 4 > ST_SRAM_MAX || !is_power_of_2(wp + 4))
		return dev_err_probe(b->dev, -ENODEV, "SRAM sink: bad size %llu (%u to %u)\n",
				     (u64)wp + 4, ST_SRAM_MIN, ST_SRAM_MAX);
	b->sram.code = SIFIVE_SINK_SRAM;
	b->sram.size = wp + 4;
	return 0;
}

static int st_sba_probe(struct st_block *b)
{
	struct device *dev = b->dev;
	u32 size = sba_buffer_kb * SZ_1K;
	int ret;

	device_property_read_u32(dev, "sifive,sba-buffer-size", &size);
	/*
	 * Trace in this buffer is copied into the AUX buffer with interrupts
	 * off: at most ST_SBA_BUF_MAX of it at a time.
	 */
	if (size > ST_SBA_BUF_MAX) {
		dev_info(dev, "SBA buffer of %u bytes capped to %u\n", size, ST_SBA_BUF_MAX);
		size = ST_SBA_BUF_MAX;
	}
	size = round_up(size, PAGE_SIZE);
	if (size < PAGE_SIZE)
		return dev_err_probe(dev, -EINVAL, "bad SBA buffer size %u\n", size);
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no 64-bit DMA\n");
	b->sba.buf = dmam_alloc_coherent(dev, size, &b->sba.dma, GFP_KERNEL);
	if (!b->sba.buf)
		return -ENOMEM;
	/* WP and the limit hold the low 32 bits: the buffer must not cross 4 GiB */
	if (upper_32_bits(b->sba.dma) != upper_32_bits(b->sba.dma + size - 1))
		return dev_err_probe(dev, -ENOMEM, "SBA buffer crosses a 4 GiB boundary\n");
	b->sba.code = SIFIVE_SINK_SBA;
	b->sba.size = size;
	return 0;
}

static void st_kvfree(void *p)
{
	kvfree(p);
}

/**
 * st_block_probe() - set up a TE or funnel block
 * @pdev: its device
 * @b: the block
 * @itc16: for a TE: receives the 16-bit register access (NULL for a funnel)
 * @itc8: for a TE: receives the 8-bit register access
 *
 * Return: 0 or a negative errno.
 */
int st_block_probe(struct platform_device *pdev, struct st_block *b,
		   struct regmap **itc16, struct regmap **itc8)
{
	int ret;

	b->dev = &pdev->dev;
	ret = st_block_regmaps(pdev, b, itc16, itc8);
	if (ret)
		return ret;
	b->impl = st_read(b, SIFIVE_TRACE_IMPL);
	if (b->impl & SIFIVE_IMPL_HAS_SINK(SIFIVE_SINK_SRAM)) {
		ret = st_sram_probe(b);
		if (ret)
			return ret;
	}
	if (b->impl & SIFIVE_IMPL_HAS_SINK(SIFIVE_SINK_SBA)) {
		ret = st_sba_probe(b);
		if (ret)
			return ret;
	}
	/* A funnel's drain is split by SRC from a linear copy of its bytes */
	if (itc16)
		return 0;
	b->bounce_size = max(min_t(size_t, b->sram.size, ST_SRAM_COPY_MAX), b->sba.size);
	if (!b->bounce_size)
		return 0;
	b->bounce = kvmalloc(b->bounce_size, GFP_KERNEL);
	if (!b->bounce)
		return -ENOMEM;
	return devm_add_action_or_reset(b->dev, st_kvfree, b->bounce);
}

/* Registry */

int st_te_register(struct st_te *te)
{
	int ret = 0;

	mutex_lock(&st_lock);
	if (per_cpu(st_te_of_cpu, te->cpu))
		ret = -EBUSY;
	else
		WRITE_ONCE(per_cpu(st_te_of_cpu, te->cpu), te);
	mutex_unlock(&st_lock);
	return ret;
}

/* After this, no ITC store or perf callback uses @te any more */
void st_te_unregister(struct st_te *te)
{
	mutex_lock(&st_lock);
	WRITE_ONCE(per_cpu(st_te_of_cpu, te->cpu), NULL);
	mutex_unlock(&st_lock);
	/* Users look the TE up with interrupts off */
	synchronize_rcu();
	st_pmu_detach(te);
}

/* The sink @code (0: SBA if there is one, else SRAM) the TE's trace can go to */
struct st_sink *st_te_sink(struct st_te *te, unsigned int code)
{
	struct st_block *b = st_te_sink_block(te);

	if (code)
		return st_block_sink(b, code);
	return st_block_sink(b, SIFIVE_SINK_SBA) ?: st_block_sink(b, SIFIVE_SINK_SRAM);
}

/* Is there a TE whose trace can go to sink @code? */
bool st_any_te(unsigned int code)
{
	bool found = false;
	int cpu;

	mutex_lock(&st_lock);
	for_each_possible_cpu(cpu) {
		struct st_te *te = per_cpu(st_te_of_cpu, cpu);

		if (te && st_te_sink(te, code))
			found = true;
	}
	mutex_unlock(&st_lock);
	return found;
}

int st_funnel_register(struct st_funnel *fun)
{
	mutex_lock(&st_lock);
	list_add(&fun->node, &st_funnels);
	mutex_unlock(&st_lock);
	return 0;
}

void st_funnel_unregister(struct st_funnel *fun)
{
	mutex_lock(&st_lock);
	list_del(&fun->node);
	mutex_unlock(&st_lock);
}

struct st_funnel *st_funnel_find(struct fwnode_handle *fwnode)
{
	struct st_funnel *fun, *found = NULL;

	mutex_lock(&st_lock);
	list_for_each_entry(fun, &st_funnels, node)
		if (fun->fwnode == fwnode)
			found = fun;
	mutex_unlock(&st_lock);
	return found;
}

/* Module */

static int __init st_init(void)
{
	int ret;

	ret = platform_driver_register(&st_funnel_driver);
	if (ret)
		return ret;
	ret = platform_driver_register(&st_encoder_driver);
	if (ret)
		goto err_funnel;
	ret = st_pmu_init();
	if (ret)
		goto err_encoder;
	ret = st_itc_init();
	if (ret)
		goto err_pmu;
	return 0;

err_pmu:
	st_pmu_exit();
err_encoder:
	platform_driver_unregister(&st_encoder_driver);
err_funnel:
	platform_driver_unregister(&st_funnel_driver);
	return ret;
}
module_init(st_init);

static void __exit st_exit(void)
{
	st_itc_exit();
	platform_driver_unregister(&st_encoder_driver);
	platform_driver_unregister(&st_funnel_driver);
	st_pmu_exit();
}
module_exit(st_exit);

MODULE_DESCRIPTION("SiFive trace encoder, funnel and sinks as the sifive_trace perf AUX PMU");
MODULE_LICENSE("GPL");
