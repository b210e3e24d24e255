// SPDX-License-Identifier: GPL-2.0-only
/*
 * PULP ZERO-RISCY performance counter PMU.
 *
 * Each core has an event enable register (PCER), a mode register (PCMR:
 * global enable and saturation) and counter registers PCCR0-31, all CSRs.
 * Two builds exist:
 *  - FPGA/RTL: one 32-bit counter per event, so every event counts at once;
 *  - ASIC: a single counter that every PCCR address aliases, incremented at
 *    most once a cycle when any enabled event fires (the enabled events are
 *    ORed). One event (or one explicit mask= of events) per core at a time;
 *    perf multiplexes the rest.
 * The driver owns the mode register: it always counts in wrapping mode
 * (PCMR saturation off, whatever the reset value or the device tree says)
 * and the socpmu core extends the counters to 64 bits by polling. A
 * saturating counter would stop at 0xffffffff and lose every event after
 * it; a 64-bit count never needs that.
 *
 * The registers are reached through a regmap (PULP_CSR_REG): a parent that
 * provides one (the simulator, or a debug bridge), or, in an M-mode kernel
 * running on the core itself, direct csrr/csrw.
 */

#define pr_fmt(fmt) "pulp_pmu: " fmt

#include <linux/idr.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>

#include <socpmu/core.h>
#include <socpmu/pulp_regs.h>

#define PULP_CFG_VALID	(PULP_CFG_EVENT_MASK | PULP_CFG_MASK_MASK << PULP_CFG_MASK_SHIFT)

/**
 * struct pulp_core - driver state of one core's counters
 * @users: ASIC: events using the counter; FPGA: events using each counter
 * @mask: ASIC: the PCER value the shared counter counts with
 * @pcer: last value written to PCER
 */
struct pulp_core {
	unsigned int users[PULP_NR_EVENTS];
	u32 mask;
	u32 pcer;
};

struct pulp_pmu {
	struct socpmu sp;
	struct regmap *map;
	bool asic;
	u32 pcmr;
	unsigned int nr_cores;
	struct pulp_core cores[];
};

static DEFINE_IDA(pulp_ida);

static inline struct pulp_pmu *to_pulp(struct socpmu *sp)
{
	return container_of(sp, struct pulp_pmu, sp);
}

/* The PCER bits an event needs: one event, or an explicit mask (ASIC) */
static u32 pulp_ev_mask(struct perf_event *event)
{
	u32 mask = (event->attr.config >> PULP_CFG_MASK_SHIFT) & PULP_CFG_MASK_MASK;

	return mask ?: BIT(event->attr.config & PULP_CFG_EVENT_MASK);
}

static int pulp_event_init(struct socpmu *sp, struct perf_event *event,
			   unsigned int *nr, unsigned int *width)
{
	struct pulp_pmu *pp = to_pulp(sp);
	u64 cfg = event->attr.config;
	unsigned int first;

	if ((cfg & ~PULP_CFG_VALID) || (event->attr.config1 & ~SOCPMU_CFG1_VALID) ||
	    event->attr.config2) {
		socpmu_refuse(sp, "reserved config bits set");
		return -EINVAL;
	}
	if ((cfg & PULP_CFG_EVENT_MASK) >= PULP_NR_EVENTS) {
		socpmu_refuse(sp, "no event %llu", cfg & PULP_CFG_EVENT_MASK);
		return -EINVAL;
	}
	if (cfg >> PULP_CFG_MASK_SHIFT) {
		if (cfg & PULP_CFG_EVENT_MASK) {
			socpmu_refuse(sp, "give event= or mask=, not both");
			return -EINVAL;
		}
		if (!pp->asic) {
			socpmu_refuse(sp, "mask= needs the ASIC's shared counter");
			return -EINVAL;
		}
	}
	*nr = socpmu_units(event, pp->nr_cores, &first);
	if (first >= pp->nr_cores) {
		socpmu_refuse(sp, "no core %u (cluster has %u)", first, pp->nr_cores);
		return -EINVAL;
	}
	*width = 32;
	return 0;
}

/* ASIC: one shared counter per core, so only events with the same mask share it. */
static bool pulp_compatible(struct socpmu *sp, struct perf_event *a,
			    struct perf_event *b)
{
	struct pulp_pmu *pp = to_pulp(sp);
	unsigned int fa, fb, na, nb;

	if (!pp->asic || pulp_ev_mask(a) == pulp_ev_mask(b))
		return true;
	na = socpmu_units(a, pp->nr_cores, &fa);
	nb = socpmu_units(b, pp->nr_cores, &fb);
	return fa + na <= fb || fb + nb <= fa;
}

/* CSR regmaps (MMIO bridge, simulator, local CSRs) neither fail nor sleep. */
static void pulp_write(struct pulp_pmu *pp, unsigned int core, unsigned int csr,
		       u32 val)
{
	regmap_write(pp->map, PULP_CSR_REG(core, csr), val);
}

static u32 pulp_read(struct pulp_pmu *pp, unsigned int core, unsigned int csr)
{
	unsigned int val = 0;

	regmap_read(pp->map, PULP_CSR_REG(core, csr), &val);
	return val;
}

static void pulp_set_pcer(struct pulp_pmu *pp, unsigned int core, u32 pcer)
{
	pp->cores[core].pcer = pcer;
	pulp_write(pp, core, PULP_CSR_PCER, pcer);
}

/* The counter an event reads: the shared one (any PCCR) or its own */
static unsigned int pulp_ev_pccr(struct pulp_pmu *pp, struct perf_event *event)
{
	if (pp->asic)
		return PULP_CSR_PCCR0;
	return PULP_CSR_PCCR0 + (event->attr.config & PULP_CFG_EVENT_MASK);
}

static int pulp_add(struct socpmu *sp, struct perf_event *event)
{
	struct pulp_pmu *pp = to_pulp(sp);
	unsigned int pccr = pulp_ev_pccr(pp, event);
	unsigned int idx = pp->asic ? 0 : pccr - PULP_CSR_PCCR0;
	u32 mask = pulp_ev_mask(event);
	unsigned int first, n, core;
	struct pulp_core *pc;

	n = socpmu_units(event, pp->nr_cores, &first);
	if (pp->asic) {
		for (core = first; core < first + n; core++) {
			pc = &pp->cores[core];
			if (pc->users[0] && pc->mask != mask)
				return -EAGAIN;
		}
	}
	for (core = first; core < first + n; core++) {
		pc = &pp->cores[core];
		if (pc->users[idx]++)
			continue;
		/* First user: a fresh counter, the 64-bit count starts from 0 */
		pulp_write(pp, core, pccr, 0);
		pc->mask = mask;
		pulp_set_pcer(pp, core, pp->asic ? mask : pc->pcer | mask);
	}
	return 0;
}

static void pulp_del(struct socpmu *sp, struct perf_event *event)
{
	struct pulp_pmu *pp = to_pulp(sp);
	unsigned int idx = pp->asic ? 0 : pulp_ev_pccr(pp, event) - PULP_CSR_PCCR0;
	unsigned int first, n, core;
	struct pulp_core *pc;

	n = socpmu_units(event, pp->nr_cores, &first);
	for (core = first; core < first + n; core++) {
		pc = &pp->cores[core];
		if (!--pc->users[idx])
			pulp_set_pcer(pp, core, pc->pcer & ~pulp_ev_mask(event));
	}
}

static void pulp_read_event(struct socpmu *sp, struct perf_event *event, u64 *vals)
{
	struct pulp_pmu *pp = to_pulp(sp);
	unsigned int pccr = pulp_ev_pccr(pp, event);
	unsigned int first, n, i;

	n = socpmu_units(event, pp->nr_cores, &first);
	for (i = 0; i < n; i++)
		vals[i] = pulp_read(pp, first + i, pccr);
}

static const struct socpmu_ops pulp_ops = {
	.event_init	= pulp_event_init,
	.compatible	= pulp_compatible,
	.add		= pulp_add,
	.del		= pulp_del,
	.read		= pulp_read_event,
};

/* sysfs */

#define PULP_EVENT_ATTR(_name, _nr, _desc)				\
	PMU_EVENT_ATTR_ID(_name, pulp_event_show, _nr),

static ssize_t pulp_event_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct perf_pmu_events_attr *ea = container_of(attr, struct perf_pmu_events_attr, attr);

	return sysfs_emit(buf, "event=0x%llx\n", ea->id);
}

static struct attribute *pulp_event_attrs[] = {
	PULP_EVENTS(PULP_EVENT_ATTR)
	NULL,
};

static const struct attribute_group pulp_events_group = {
	.name = "events",
	.attrs = pulp_event_attrs,
};

static struct attribute *pulp_format_attrs[] = {
	SOCPMU_FORMAT_ATTR(event, "config:0-4"),
	SOCPMU_FORMAT_ATTR(mask, "config:8-23"),
	SOCPMU_FORMAT_ATTR(core, "config1:0-15"),
	SOCPMU_FORMAT_ATTR(bycore, "config1:16"),
	NULL,
};

static const struct attribute_group pulp_format_group = {
	.name = "format",
	.attrs = pulp_format_attrs,
};

static ssize_t counters_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct pulp_pmu *pp = to_pulp(to_socpmu(dev_get_drvdata(dev)));

	return sysfs_emit(buf, "%s wrapping\n", pp->asic ? "asic" : "fpga");
}
static DEVICE_ATTR_RO(counters);

static ssize_t num_cores_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct pulp_pmu *pp = to_pulp(to_socpmu(dev_get_drvdata(dev)));

	return sysfs_emit(buf, "%u\n", pp->nr_cores);
}
static DEVICE_ATTR_RO(num_cores);

/* What perf's pmu-events (sys events) match: the core, both builds */
static ssize_t identifier_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "zero-riscy\n");
}
static DEVICE_ATTR_RO(identifier);

static struct attribute *pulp_pmu_attrs[] = {
	&dev_attr_identifier.attr,
	&dev_attr_counters.attr,
	&dev_attr_num_cores.attr,
	NULL,
};

static const struct attribute_group pulp_pmu_group = {
	.attrs = pulp_pmu_attrs,
};

static const struct attribute_group *pulp_groups[] = {
	&pulp_events_group,
	&pulp_format_group,
	&pulp_pmu_group,
	&socpmu_core_attr_group,
	NULL,
};

/* Local CSRs, for an M-mode kernel running on the core it measures. */
#ifdef CONFIG_RISCV_M_MODE
#include <asm/csr.h>

#define PULP_CSR_LIST(X) \
	X(0x780) X(0x781) X(0x782) X(0x783) X(0x784) X(0x785) X(0x786) X(0x787) \
	X(0x788) X(0x789) X(0x78a) X(0x78b) X(0x78c) X(0x78d) X(0x78e) X(0x78f) \
	X(0x790) X(0x791) X(0x792) X(0x793) X(0x794) X(0x795) X(0x796) X(0x797) \
	X(0x798) X(0x799) X(0x79a) X(0x79b) X(0x79c) X(0x79d) X(0x79e) X(0x79f) \
	X(0x7a0) X(0x7a1)

static int pulp_csr_read(void *ctx, unsigned int reg, unsigned int *val)
{
	switch (reg / 4) {
#define PULP_CSR_READ(n) case n: *val = csr_read(n); return 0;
	PULP_CSR_LIST(PULP_CSR_READ)
#undef PULP_CSR_READ
	}
	return -EINVAL;
}

static int pulp_csr_write(void *ctx, unsigned int reg, unsigned int val)
{
	switch (reg / 4) {
#define PULP_CSR_WRITE(n) case n: csr_write(n, val); return 0;
	PULP_CSR_LIST(PULP_CSR_WRITE)
#undef PULP_CSR_WRITE
	}
	return -EINVAL;
}

static const struct regmap_config pulp_csr_config = {
	.reg_bits = 32,
	.val_bits = 32,
	.reg_stride = 4,
	.max_register = PULP_CSR_PCMR * 4,
	.reg_read = pulp_csr_read,
	.reg_write = pulp_csr_write,
	.fast_io = true,
	.disable_locking = true,
};

/*
 * Only on a uniprocessor kernel: with more harts, probe would program the
 * CSRs of the hart it runs on, and perf would move the PMU's events to
 * another hart (whose CSRs these are not) when its CPU goes offline.
 */
static struct regmap *pulp_local_regmap(struct device *dev, unsigned int nr_cores)
{
	if (nr_cores != 1 || num_possible_cpus() != 1)
		return ERR_PTR(-EINVAL);
	return devm_regmap_init(dev, NULL, NULL, &pulp_csr_config);
}
#else
static struct regmap *pulp_local_regmap(struct device *dev, unsigned int nr_cores)
{
	return ERR_PTR(-ENODEV);
}
#endif

static int pulp_pmu_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const char *layout = "rtl";
	unsigned int nr_cores;
	struct pulp_pmu *pp;
	struct regmap *map = NULL;
	u64 clock_hz;
	int ret;

	if (device_property_read_u32(dev, "pulp,num-cores", &nr_cores) ||
	    !nr_cores || nr_cores > SOCPMU_CFG1_UNIT_MASK + 1)
		return dev_err_probe(dev, -EINVAL, "missing or bad pulp,num-cores\n");
	if (socpmu_read_clock(dev, &clock_hz))
		return dev_err_probe(dev, -EINVAL, "missing clock-frequency\n");
	device_property_read_string(dev, "pulp,pcmr-layout", &layout);
	if (strcmp(layout, "rtl") && strcmp(layout, "seed"))
		return dev_err_probe(dev, -EINVAL, "pulp,pcmr-layout must be rtl or seed\n");

	map = socpmu_parent_regmap(dev, NULL);
	if (!map)
		map = pulp_local_regmap(dev, nr_cores);
	if (IS_ERR(map))
		return dev_err_probe(dev, PTR_ERR(map), "no counter registers\n");

	pp = socpmu_alloc(struct_size(pp, cores, nr_cores));
	if (!pp)
		return -ENOMEM;
	pp->map = map;
	pp->nr_cores = nr_cores;
	pp->asic = device_property_read_bool(dev, "pulp,asic");
	if (device_property_read_bool(dev, "pulp,saturate"))
		dev_info(dev, "pulp,saturate ignored: counting in wrapping mode, extended to 64 bits\n");
	/* Enable only: the saturation bit off (its reset value is on) */
	pp->pcmr = strcmp(layout, "rtl") ? PULP_PCMR_SEED_ENABLE : PULP_PCMR_RTL_ENABLE;
	/* One increment per cycle at most, on any build */
	pp->sp.poll_ns = socpmu_poll_ns(clock_hz, 32);

	/* Nothing counts until an event enables it in PCER */
	for (unsigned int core = 0; core < nr_cores; core++) {
		pulp_set_pcer(pp, core, 0);
		pulp_write(pp, core, PULP_CSR_PCMR, pp->pcmr);
	}

	ret = socpmu_register(&pp->sp, dev, &pulp_ops, &pulp_ida, "pulp", pulp_groups);
	if (ret) {
		kfree(pp);
		return dev_err_probe(dev, ret, "PMU registration failed\n");
	}
	platform_set_drvdata(pdev, &pp->sp);
	dev_info(dev, "%s: %u cores, %s counters, wrapping, PCMR layout %s\n", pp->sp.name,
		 nr_cores, pp->asic ? "asic" : "fpga", layout);
	return 0;
}

static const struct of_device_id pulp_pmu_of_match[] = {
	{ .compatible = "pulp,zero-riscy-pmu" },
	{ }
};
MODULE_DEVICE_TABLE(of, pulp_pmu_of_match);

static const struct platform_device_id pulp_pmu_ids[] = {
	{ "pulp-pmu" },
	{ }
};
MODULE_DEVICE_TABLE(platform, pulp_pmu_ids);

static struct platform_driver pulp_pmu_driver = {
	.driver = {
		.name = "pulp-pmu",
		.of_match_table = pulp_pmu_of_match,
		.suppress_bind_attrs = true,
	},
	.id_table = pulp_pmu_ids,
	.probe = pulp_pmu_probe,
	.remove = socpmu_platform_remove,
};

module_socpmu_driver(pulp_pmu_driver);

MODULE_DESCRIPTION("PULP ZERO-RISCY performance counter PMU");
MODULE_LICENSE("GPL");
