// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive trace: the per-hart trace encoder (TE) platform driver.
 *
 * te_impl tells the TE's hart, its SRC value and SRC width, and its sinks:
 * its own SRAM and/or SBA sink, or a funnel, named by the "sifive,funnel"
 * reference. The hart maps to the logical CPU whose device-tree node has
 * the hart id as its reg (identity without CPU nodes, as under the
 * simulator).
 */
#define pr_fmt(fmt) "sifive_trace: " fmt

#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/mod_devicetable.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>

#include "sifive-trace.h"

/*
 * The CPU of a hart: the one whose device-tree node has the hart id as its
 * reg; without CPU nodes (the simulator on x86) the hart id is the CPU.
 */
static int st_hart_to_cpu(unsigned int hart)
{
	struct device_node *np;
	bool dt = false;
	u32 reg;
	int cpu;

	for_each_possible_cpu(cpu) {
		np = of_get_cpu_node(cpu, NULL);
		if (!np)
			continue;
		dt = true;
		if (!of_property_read_u32(np, "reg", &reg) && reg == hart) {
			of_node_put(np);
			return cpu;
		}
		of_node_put(np);
	}
	if (dt)
		return -ENODEV;
	return hart < nr_cpu_ids && cpu_possible(hart) ? hart : -ENODEV;
}

/* Attach the TE to its funnel: its SRC value */
static int st_encoder_link(struct st_te *te)
{
	struct device *dev = te->blk.dev;
	struct fwnode_handle *fwnode;
	struct st_funnel *fun;
	unsigned long flags;

	fwnode = fwnode_find_reference(dev_fwnode(dev), "sifive,funnel", 0);
	if (IS_ERR(fwnode))
		return dev_err_probe(dev, PTR_ERR(fwnode),
				     "funnel sink without a sifive,funnel reference\n");
	fun = st_funnel_find(fwnode);
	fwnode_handle_put(fwnode);
	if (!fun)
		return dev_err_probe(dev, -EPROBE_DEFER, "funnel not ready\n");
	if (!te->srcbits || te->src >= ST_MAX_SRC || te->src >= BIT(te->srcbits))
		return dev_err_probe(dev, -EINVAL, "bad source id %u/%u bits\n", te->src,
				     te->srcbits);
	if (!device_link_add(dev, fun->blk.dev, DL_FLAG_AUTOREMOVE_CONSUMER))
		return dev_err_probe(dev, -EINVAL, "cannot link to the funnel\n");

	raw_spin_lock_irqsave(&fun->lock, flags);
	if (fun->src[te->src]) {
		raw_spin_unlock_irqrestore(&fun->lock, flags);
		return dev_err_probe(dev, -EBUSY, "source id %u taken\n", te->src);
	}
	fun->src[te->src] = te;
	raw_spin_unlock_irqrestore(&fun->lock, flags);
	te->funnel = fun;
	return 0;
}

static void st_encoder_unlink(struct st_te *te)
{
	struct st_funnel *fun = te->funnel;
	unsigned long flags;

	raw_spin_lock_irqsave(&fun->lock, flags);
	fun->src[te->src] = NULL;
	raw_spin_unlock_irqrestore(&fun->lock, flags);
}

static int st_encoder_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct st_te *te;
	u32 impl;
	int ret;

	te = devm_kzalloc(dev, sizeof(*te), GFP_KERNEL);
	if (!te)
		return -ENOMEM;
	raw_spin_lock_init(&te->lock);
	ret = st_block_probe(pdev, &te->blk, &te->itc16, &te->itc8);
	if (ret)
		return ret;
	impl = te->blk.impl;
	te->hart = (impl >> SIFIVE_IMPL_HARTID_SHIFT) & SIFIVE_IMPL_HARTID_MASK;
	te->src = (impl >> SIFIVE_IMPL_SRCID_SHIFT) & SIFIVE_IMPL_SRCID_MASK;
	te->srcbits = (impl >> SIFIVE_IMPL_NSRCBITS_SHIFT) & SIFIVE_IMPL_NSRCBITS_MASK;
	te->cpu = st_hart_to_cpu(te->hart);
	if (te->cpu < 0)
		return dev_err_probe(dev, -ENODEV, "hart %u is not a CPU here\n", te->hart);

	if (impl & SIFIVE_IMPL_HAS_SINK(SIFIVE_SINK_FUNNEL)) {
		ret = st_encoder_link(te);
		if (ret)
			return ret;
	} else if (!te->blk.sram.code && !te->blk.sba.code) {
		return dev_err_probe(dev, -ENODEV, "no sink (te_impl 0x%x)\n", impl);
	}
	st_write(&te->blk, SIFIVE_TRACE_CONTROL, 0);
	st_ts_init(&te->blk);

	ret = st_te_register(te);
	if (ret) {
		if (te->funnel)
			st_encoder_unlink(te);
		return dev_err_probe(dev, ret, "CPU %d already has a trace encoder\n", te->cpu);
	}
	platform_set_drvdata(pdev, te);
	dev_info(dev, "hart %u (CPU %d): %s%s%s, SRC %u/%u bits\n", te->hart, te->cpu,
		 te->funnel ? "funnel " : "", st_te_sink(te, SIFIVE_SINK_SRAM) ? "sram " : "",
		 st_te_sink(te, SIFIVE_SINK_SBA) ? "sba" : "", te->src, te->srcbits);
	return 0;
}

static void st_encoder_remove(struct platform_device *pdev)
{
	struct st_te *te = platform_get_drvdata(pdev);

	st_te_unregister(te);
	st_write(&te->blk, SIFIVE_TRACE_CONTROL, 0);
	if (te->funnel)
		st_encoder_unlink(te);
}

static const struct of_device_id st_encoder_of_match[] = {
	{ .compatible = "sifive,trace-encoder" },
	{ }
};
MODULE_DEVICE_TABLE(of, st_encoder_of_match);

struct platform_driver st_encoder_driver = {
	.driver = {
		.name = "sifive-trace-encoder",
		.of_match_table = st_encoder_of_match,
		.suppress_bind_attrs = true,
	},
	.probe = st_encoder_probe,
	.remove = st_encoder_remove,
};
