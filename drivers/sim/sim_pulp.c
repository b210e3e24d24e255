// SPDX-License-Identifier: GPL-2.0-only
/*
 * Model of a cluster of PULP ZERO-RISCY cores' performance counter CSRs.
 *
 * Per core: PCER (event enables, reset 0), PCMR (global enable and
 * saturation, reset 3) and PCCR0-31. Two builds:
 *  - fpga: one 32-bit counter per event; PCCRs of events the core does not
 *    have (16..30) read 0; a PCCRn write sets counter n;
 *  - asic: one counter that every PCCR address aliases; in a cycle where
 *    several enabled events fire it still counts one.
 * A write to PCCR31 sets every counter. Counters wrap, or stick at
 * 0xffffffff when PCMR's saturation bit is set. Which PCMR bit is which is
 * the device's "layout": "rtl" (bit 0 enable, bit 1 saturate, as in the
 * public RTL) or "seed" (swapped, as in the seed's table).
 *
 * CSRs are exposed as registers at PULP_CSR_REG(core, csr).
 *
 * debugfs "inject": "<core|all> <event>[,<event>...] <n>" plays n cycles in
 * which every listed event (name or number) fires at once; "csr":
 * "<core|all> <csr> <value>" writes a CSR as software on the core would.
 */

#define pr_fmt(fmt) "socpmu_sim: " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <socpmu/pulp_regs.h>

#include "sim.h"

#define PULP_SIM_MAX_CORES	64

struct pulp_sim_cfg {
	unsigned int cores;
	bool asic;
	bool saturate;
	bool seed_layout;
	unsigned int clock_mhz;
};

struct pulp_sim_core {
	u32 pcer;
	u32 pcmr;
	u32 cnt[PULP_NR_PCCR - 1];	/* asic: cnt[0] is the only counter */
};

struct pulp_sim {
	raw_spinlock_t lock;
	const struct pulp_sim_cfg *cfg;
	struct pulp_sim_core cores[];
};

static const char *const pulp_sim_event_names[] = {
#define PULP_SIM_NAME(name, nr, desc) \
	[nr] = #name,
	PULP_EVENTS(PULP_SIM_NAME)
#undef PULP_SIM_NAME
};

static void pulp_sim_cfg_init(void *data)
{
	struct pulp_sim_cfg *cfg = data;

	cfg->cores = 2;
	cfg->clock_mhz = 100;
}

static int pulp_sim_parse_choice(const char *key, const char *val, const char *a,
				 const char *b, bool *is_b)
{
	if (!strcmp(val, a) || !strcmp(val, b)) {
		*is_b = !strcmp(val, b);
		return 0;
	}
	pr_debug("%s=%s: expected %s or %s\n", key, val, a, b);
	return -EINVAL;
}

static int pulp_sim_cfg_parse(void *data, const char *key, const char *val)
{
	struct pulp_sim_cfg *cfg = data;
	unsigned int sat;
	int ret;

	if (!strcmp(key, "cores"))
		return socpmu_sim_parse_uint(key, val, 1, PULP_SIM_MAX_CORES, &cfg->cores);
	if (!strcmp(key, "clock_mhz"))
		return socpmu_sim_parse_uint(key, val, 1, 100000, &cfg->clock_mhz);
	if (!strcmp(key, "mode"))
		return pulp_sim_parse_choice(key, val, "fpga", "asic", &cfg->asic);
	if (!strcmp(key, "layout"))
		return pulp_sim_parse_choice(key, val, "rtl", "seed", &cfg->seed_layout);
	if (!strcmp(key, "sat")) {
		ret = socpmu_sim_parse_uint(key, val, 0, 1, &sat);
		if (!ret)
			cfg->saturate = sat;
		return ret;
	}
	pr_debug("pulp: unknown parameter \"%s\"\n", key);
	return -EINVAL;
}

static int pulp_sim_cfg_show(const void *data, char *buf, int at)
{
	const struct pulp_sim_cfg *cfg = data;

	return sysfs_emit_at(buf, at, " cores=%u mode=%s layout=%s sat=%u clock_mhz=%u",
			     cfg->cores, cfg->asic ? "asic" : "fpga",
			     cfg->seed_layout ? "seed" : "rtl", cfg->saturate,
			     cfg->clock_mhz);
}

static void *pulp_sim_create(struct socpmu_sim_dev *sdev)
{
	const struct pulp_sim_cfg *cfg = sdev->cfg;
	struct pulp_sim *ps;
	unsigned int i;

	ps = kzalloc(struct_size(ps, cores, cfg->cores), GFP_KERNEL);
	if (!ps)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&ps->lock);
	ps->cfg = cfg;
	for (i = 0; i < cfg->cores; i++) {
		ps->cores[i].pcer = PULP_PCER_RESET;
		ps->cores[i].pcmr = PULP_PCMR_RESET;
	}
	sdev->max_register = PULP_CSR_REG(cfg->cores - 1, PULP_CSR_PCMR);
	return ps;
}

static void pulp_sim_destroy(void *model)
{
	kfree(model);
}

static bool pulp_sim_enabled(struct pulp_sim *ps, struct pulp_sim_core *pc)
{
	return pc->pcmr & (ps->cfg->seed_layout ? PULP_PCMR_SEED_ENABLE :
						  PULP_PCMR_RTL_ENABLE);
}

static bool pulp_sim_saturating(struct pulp_sim *ps, struct pulp_sim_core *pc)
{
	return pc->pcmr & (ps->cfg->seed_layout ? PULP_PCMR_SEED_SATURATE :
						  PULP_PCMR_RTL_SATURATE);
}

/* Split a register address into core and CSR number; false if unmapped */
static bool pulp_sim_decode(struct pulp_sim *ps, unsigned int reg,
			    struct pulp_sim_core **pc, unsigned int *csr)
{
	unsigned int core = reg / PULP_CORE_STRIDE;

	*csr = (reg % PULP_CORE_STRIDE) / 4;
	if (core >= ps->cfg->cores || *csr < PULP_CSR_PCCR0 || *csr > PULP_CSR_PCMR)
		return false;
	*pc = &ps->cores[core];
	return true;
}

static int pulp_sim_reg_read(void *model, unsigned int reg, unsigned int *val)
{
	struct pulp_sim *ps = model;
	struct pulp_sim_core *pc;
	unsigned int csr, n;
	unsigned long flags;

	*val = 0;
	if (!pulp_sim_decode(ps, reg, &pc, &csr))
		return 0;
	raw_spin_lock_irqsave(&ps->lock, flags);
	if (csr == PULP_CSR_PCER) {
		*val = pc->pcer;
	} else if (csr == PULP_CSR_PCMR) {
		*val = pc->pcmr;
	} else {
		n = csr - PULP_CSR_PCCR0;
		if (ps->cfg->asic)
			*val = pc->cnt[0];
		else if (n < PULP_NR_EVENTS)
			*val = pc->cnt[n];
	}
	raw_spin_unlock_irqrestore(&ps->lock, flags);
	return 0;
}

static int pulp_sim_reg_write(void *model, unsigned int reg, unsigned int val)
{
	struct pulp_sim *ps = model;
	struct pulp_sim_core *pc;
	unsigned int csr, n;
	unsigned long flags;

	if (!pulp_sim_decode(ps, reg, &pc, &csr))
		return 0;
	raw_spin_lock_irqsave(&ps->lock, flags);
	if (csr == PULP_CSR_PCER) {
		pc->pcer = val & GENMASK(PULP_NR_EVENTS - 1, 0);
	} else if (csr == PULP_CSR_PCMR) {
		pc->pcmr = val & 0x3;
	} else if (csr == PULP_CSR_PCCR_ALL) {
		for (n = 0; n < ARRAY_SIZE(pc->cnt); n++)
			pc->cnt[n] = val;
	} else {
		n = csr - PULP_CSR_PCCR0;
		if (ps->cfg->asic)
			pc->cnt[0] = val;
		else if (n < PULP_NR_EVENTS)
			pc->cnt[n] = val;
	}
	raw_spin_unlock_irqrestore(&ps->lock, flags);
	return 0;
}

static void pulp_sim_count(struct pulp_sim *ps, struct pulp_sim_core *pc, unsigned int n,
			   u64 cycles)
{
	/* cnt + cycles may not fit in a u64: compare against the headroom */
	if (pulp_sim_saturating(ps, pc) && cycles > U32_MAX - pc->cnt[n])
		pc->cnt[n] = U32_MAX;
	else
		pc->cnt[n] += cycles;	/* mod 2^32 */
}

/* @cycles cycles in which every event of @fired fires on @pc */
static void pulp_sim_fire(struct pulp_sim *ps, struct pulp_sim_core *pc, u32 fired,
			  u64 cycles)
{
	u32 counted = fired & pc->pcer;
	unsigned int n;

	if (!pulp_sim_enabled(ps, pc) || !counted)
		return;
	if (ps->cfg->asic) {
		/* Enabled events are ORed: one increment per cycle */
		pulp_sim_count(ps, pc, 0, cycles);
		return;
	}
	for (n = 0; n < PULP_NR_EVENTS; n++)
		if (counted & BIT(n))
			pulp_sim_count(ps, pc, n, cycles);
}

static int pulp_sim_parse_events(char *list, u32 *fired)
{
	char *tok;
	unsigned int n;

	*fired = 0;
	while ((tok = strsep(&list, ","))) {
		n = match_string(pulp_sim_event_names, PULP_NR_EVENTS, tok);
		if (n >= PULP_NR_EVENTS && (kstrtouint(tok, 0, &n) || n >= PULP_NR_EVENTS)) {
			pr_debug("pulp: unknown event \"%s\"\n", tok);
			return -EINVAL;
		}
		*fired |= BIT(n);
	}
	return 0;
}

static ssize_t pulp_sim_inject_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct socpmu_sim_dev *sdev = file->private_data;
	struct pulp_sim *ps = sdev->model;
	unsigned int core, first, end;
	unsigned long flags;
	char *cmd, *w[3];
	u32 fired;
	u64 cycles;
	int ret;

	cmd = socpmu_sim_get_cmd(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	ret = socpmu_sim_split(cmd, w, 3);
	if (!ret)
		ret = socpmu_sim_parse_units("core", w[0], ps->cfg->cores, &first, &end);
	if (!ret)
		ret = pulp_sim_parse_events(w[1], &fired);
	if (!ret)
		ret = socpmu_sim_parse_u64("n", w[2], &cycles);
	if (ret)
		goto out;
	raw_spin_lock_irqsave(&ps->lock, flags);
	for (core = first; core < end; core++)
		pulp_sim_fire(ps, &ps->cores[core], fired, cycles);
	raw_spin_unlock_irqrestore(&ps->lock, flags);
	ret = count;
out:
	kfree(cmd);
	return ret;
}

static const struct file_operations pulp_sim_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pulp_sim_inject_write,
	.llseek = noop_llseek,
};

/*
 * "<core|all> <csr> <value>": a CSR write by software running on the core
 * (csrw), behind the driver's back, e.g. "0 0x79f 0" sets every counter of
 * core 0 to 0 through PCCR31.
 */
static ssize_t pulp_sim_csr_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct socpmu_sim_dev *sdev = file->private_data;
	struct pulp_sim *ps = sdev->model;
	unsigned int core, first, end, csr, val;
	char *cmd, *w[3];
	int ret;

	cmd = socpmu_sim_get_cmd(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	ret = socpmu_sim_split(cmd, w, 3);
	if (!ret)
		ret = socpmu_sim_parse_units("core", w[0], ps->cfg->cores, &first, &end);
	if (!ret)
		ret = socpmu_sim_parse_uint("csr", w[1], PULP_CSR_PCCR0, PULP_CSR_PCMR, &csr);
	if (!ret && kstrtouint(w[2], 0, &val))
		ret = -EINVAL;
	if (!ret) {
		for (core = first; core < end; core++)
			pulp_sim_reg_write(ps, PULP_CSR_REG(core, csr), val);
		ret = count;
	}
	kfree(cmd);
	return ret;
}

static const struct file_operations pulp_sim_csr_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pulp_sim_csr_write,
	.llseek = noop_llseek,
};

static void pulp_sim_debugfs_init(struct socpmu_sim_dev *sdev, struct dentry *dir)
{
	debugfs_create_file("inject", 0200, dir, sdev, &pulp_sim_inject_fops);
	debugfs_create_file("csr", 0200, dir, sdev, &pulp_sim_csr_fops);
}

static int pulp_sim_add_children(struct socpmu_sim_dev *sdev)
{
	const struct pulp_sim_cfg *cfg = sdev->cfg;
	struct property_entry props[6] = {
		PROPERTY_ENTRY_U32("pulp,num-cores", cfg->cores),
		PROPERTY_ENTRY_U64("clock-frequency", (u64)cfg->clock_mhz * 1000000),
		PROPERTY_ENTRY_STRING("pulp,pcmr-layout", cfg->seed_layout ? "seed" : "rtl"),
	};
	unsigned int n = 3;

	if (cfg->asic)
		props[n++] = PROPERTY_ENTRY_BOOL("pulp,asic");
	if (cfg->saturate)
		props[n++] = PROPERTY_ENTRY_BOOL("pulp,saturate");
	return socpmu_sim_add_child(sdev, "pulp-pmu", props);
}

const struct socpmu_sim_type socpmu_sim_pulp = {
	.name = "pulp",
	.cfg_size = sizeof(struct pulp_sim_cfg),
	.cfg_init = pulp_sim_cfg_init,
	.cfg_parse = pulp_sim_cfg_parse,
	.cfg_show = pulp_sim_cfg_show,
	.create = pulp_sim_create,
	.destroy = pulp_sim_destroy,
	.reg_read = pulp_sim_reg_read,
	.reg_write = pulp_sim_reg_write,
	.debugfs_init = pulp_sim_debugfs_init,
	.add_children = pulp_sim_add_children,
};
