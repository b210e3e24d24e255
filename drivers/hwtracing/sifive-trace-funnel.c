// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive trace: the trace funnel platform driver.
 *
 * A funnel merges the messages of the TEs that name it (their "sifive,funnel"
 * reference) into its own SRAM and/or SBA sink (tf_impl), and its timestamp
 * unit is the time base of those TEs. Messages keep their SRC field, which
 * is how the PMU hands each hart its own trace.
 */
#define pr_fmt(fmt) "sifive_trace: " fmt

#include <linux/device.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>

#include "sifive-trace.h"

static int st_funnel_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct st_funnel *fun;
	int ret;

	fun = devm_kzalloc(dev, sizeof(*fun), GFP_KERNEL);
	if (!fun)
		return -ENOMEM;
	raw_spin_lock_init(&fun->lock);
	ret = st_block_probe(pdev, &fun->blk, NULL, NULL);
	if (ret)
		return ret;
	if (!fun->blk.sram.code && !fun->blk.sba.code)
		return dev_err_probe(dev, -ENODEV, "no sink (tf_impl 0x%x)\n", fun->blk.impl);
	fun->fwnode = dev_fwnode(dev);
	st_write(&fun->blk, SIFIVE_TRACE_CONTROL, 0);
	st_ts_init(&fun->blk);
	st_funnel_register(fun);
	platform_set_drvdata(pdev, fun);
	dev_info(dev, "sinks:%s%s\n", fun->blk.sram.code ? " sram" : "",
		 fun->blk.sba.code ? " sba" : "");
	return 0;
}

static void st_funnel_remove(struct platform_device *pdev)
{
	struct st_funnel *fun = platform_get_drvdata(pdev);

	/* Its TEs are gone: they are consumers of its device link */
	st_funnel_unregister(fun);
	st_write(&fun->blk, SIFIVE_TRACE_CONTROL, 0);
}

static const struct of_device_id st_funnel_of_match[] = {
	{ .compatible = "sifive,trace-funnel" },
	{ }
};
MODULE_DEVICE_TABLE(of, st_funnel_of_match);

struct platform_driver st_funnel_driver = {
	.driver = {
		.name = "sifive-trace-funnel",
		.of_match_table = st_funnel_of_match,
		.suppress_bind_attrs = true,
	},
	.probe = st_funnel_probe,
	.remove = st_funnel_remove,
};
