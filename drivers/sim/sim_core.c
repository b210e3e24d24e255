// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu hardware simulator core.
 *
 * /sys/devices/socpmu_sim/ (a root device) creates and removes simulated
 * devices at run time:
 *
 *   echo "tensix name=t1 cores=8 arch=blackhole" > new_device
 *   echo t1 > del_device
 *   cat devices
 *
 * Each simulated device is a platform device "socpmu-sim-<type>.<id>" below
 * the root device. Probing it creates the model, a regmap whose reg_read and
 * reg_write are the model, the debugfs directory
 * /sys/kernel/debug/socpmu_sim/<name>/ and finally the devices the real
 * drivers bind to (children of the sim device, which find the regmap with
 * dev_get_regmap(dev->parent, NULL)). Everything is device-managed, so
 * unregistering the sim device removes the children first, then debugfs,
 * the regmap and the model.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sim.h"

#define SOCPMU_SIM_CMD_MAX	256

static bool nodefault;
module_param(nodefault, bool, 0444);
MODULE_PARM_DESC(nodefault, "Do not create the default device tensix0");

/* The type registry: sim platform device name -> model type */
#define SOCPMU_SIM_TYPE(t) { "socpmu-sim-" #t, (kernel_ulong_t)&socpmu_sim_##t }
static const struct platform_device_id socpmu_sim_types[] = {
	SOCPMU_SIM_TYPE(tensix),
	SOCPMU_SIM_TYPE(pulp),
	SOCPMU_SIM_TYPE(esp),
	SOCPMU_SIM_TYPE(hpm),
	SOCPMU_SIM_TYPE(trace),
	SOCPMU_SIM_TYPE(ttcard),
	{ }
};

static DEFINE_MUTEX(socpmu_sim_lock);	/* protects socpmu_sim_list */
static LIST_HEAD(socpmu_sim_list);
static DEFINE_IDA(socpmu_sim_ida);
static struct device *socpmu_sim_root;
static struct dentry *socpmu_sim_debugfs;

/**
 * socpmu_sim_parse_uint() - parse a numeric "key=val" argument
 * @key: argument name, for the error message
 * @val: the value (C syntax: decimal, 0x hex or 0 octal)
 * @min: lowest allowed value
 * @max: highest allowed value
 * @res: receives the value
 *
 * Return: 0, or -EINVAL with a pr_debug() reason.
 */
int socpmu_sim_parse_uint(const char *key, const char *val, unsigned int min,
			  unsigned int max, unsigned int *res)
{
	if (kstrtouint(val, 0, res) || *res < min || *res > max) {
		pr_debug("%s=%s: expected %u..%u\n", key, val, min, max);
		return -EINVAL;
	}
	return 0;
}

/**
 * socpmu_sim_parse_units() - parse the "<N|all>" word of a debugfs command
 * @key: what a unit is ("core", "tile", "hart"), for the error message
 * @word: the word
 * @nr: number of units of the device
 * @first: first unit selected
 * @end: one past the last unit selected
 *
 * Return: 0, or -EINVAL with a pr_debug() reason.
 */
int socpmu_sim_parse_units(const char *key, const char *word, unsigned int nr,
			   unsigned int *first, unsigned int *end)
{
	if (!strcmp(word, "all")) {
		*first = 0;
		*end = nr;
		return 0;
	}
	if (socpmu_sim_parse_uint(key, word, 0, nr - 1, first))
		return -EINVAL;
	*end = *first + 1;
	return 0;
}

/**
 * socpmu_sim_parse_u64() - parse an amount of a debugfs command
 * @key: what it is, for the error message
 * @word: the word (C syntax)
 * @res: receives the value
 *
 * Return: 0, or -EINVAL with a pr_debug() reason.
 */
int socpmu_sim_parse_u64(const char *key, const char *word, u64 *res)
{
	if (kstrtou64(word, 0, res)) {
		pr_debug("%s=%s: expected a u64\n", key, word);
		return -EINVAL;
	}
	return 0;
}

/**
 * socpmu_sim_get_cmd() - copy a command written to a debugfs file
 * @ubuf: user buffer of write()
 * @count: its length, at most SOCPMU_SIM_CMD_MAX - 1
 *
 * Return: a NUL-terminated kernel copy to kfree(), or an ERR_PTR().
 */
char *socpmu_sim_get_cmd(const char __user *ubuf, size_t count)
{
	if (count >= SOCPMU_SIM_CMD_MAX)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, count);
}

/**
 * socpmu_sim_split() - split a command into whitespace-separated words
 * @cmd: the command, modified in place
 * @words: receives pointers to the words
 * @n: exact number of words expected
 *
 * Return: 0, or -EINVAL with a pr_debug() reason.
 */
int socpmu_sim_split(char *cmd, char **words, int n)
{
	char *val;
	int i;

	cmd = skip_spaces(cmd);
	for (i = 0; i < n && *cmd; i++) {
		cmd = next_arg(cmd, &words[i], &val);
		if (val)
			break;
	}
	if (i < n || *cmd) {
		pr_debug("expected %d words\n", n);
		return -EINVAL;
	}
	return 0;
}

static void socpmu_sim_del_child(void *child)
{
	platform_device_unregister(child);
}

/**
 * socpmu_sim_add_child_data() - register a device for a real driver
 * @sdev: the simulated device, parent of the new device
 * @name: platform device name (the driver's name); its id is @sdev->id
 * @props: device properties, copied
 * @data: platform data, copied (NULL: none)
 * @size: bytes of @data
 *
 * The child is unregistered automatically, before the model goes away.
 *
 * Return: 0 or a negative errno.
 */
int socpmu_sim_add_child_data(struct socpmu_sim_dev *sdev, const char *name,
			      const struct property_entry *props, const void *data, size_t size)
{
	struct property_entry *all __free(kfree) = NULL;
	struct platform_device_info info = {
		.parent = sdev->dev,
		.name = name,
		.id = sdev->id,
		.properties = props,
		.data = data,
		.size_data = size,
	};
	struct platform_device *child;
	size_t n = 0;

	/* destroy_delay_us=: the socpmu core's fault-injection property */
	if (sdev->destroy_delay_us) {
		while (props[n].name)
			n++;
		all = kcalloc(n + 2, sizeof(*all), GFP_KERNEL);
		if (!all)
			return -ENOMEM;
		memcpy(all, props, n * sizeof(*all));
		all[n] = PROPERTY_ENTRY_U32("socpmu,test-destroy-delay-us", sdev->destroy_delay_us);
		info.properties = all;
	}
	child = platform_device_register_full(&info);
	if (IS_ERR(child))
		return PTR_ERR(child);
	return devm_add_action_or_reset(sdev->dev, socpmu_sim_del_child, child);
}

/**
 * socpmu_sim_add_child() - register a device for a real driver, without
 *	platform data (socpmu_sim_add_child_data())
 * @sdev: the simulated device
 * @name: platform device name
 * @props: device properties, copied
 *
 * Return: 0 or a negative errno.
 */
int socpmu_sim_add_child(struct socpmu_sim_dev *sdev, const char *name,
			 const struct property_entry *props)
{
	return socpmu_sim_add_child_data(sdev, name, props, NULL, 0);
}

/*
 * regmap callbacks: count the access, then let the model handle it; a read
 * then stalls for the device's read_delay_ns, as a slow bus would
 */
static int socpmu_sim_reg_read(void *context, unsigned int reg, unsigned int *val)
{
	struct socpmu_sim_dev *sdev = context;
	u32 delay_ns;
	int ret;

	atomic64_inc(&sdev->reads);
	ret = sdev->type->reg_read(sdev->model, reg, val);
	delay_ns = READ_ONCE(sdev->read_delay_ns);
	if (delay_ns)
		ndelay(delay_ns);
	return ret;
}

static int socpmu_sim_reg_write(void *context, unsigned int reg, unsigned int val)
{
	struct socpmu_sim_dev *sdev = context;

	atomic64_inc(&sdev->writes);
	return sdev->type->reg_write(sdev->model, reg, val);
}

static ssize_t socpmu_sim_regs_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct socpmu_sim_dev *sdev = file->private_data;
	char buf[64];
	int len;

	len = scnprintf(buf, sizeof(buf), "reads %llu\nwrites %llu\n",
			(u64)atomic64_read(&sdev->reads),
			(u64)atomic64_read(&sdev->writes));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t socpmu_sim_regs_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct socpmu_sim_dev *sdev = file->private_data;
	u64 val;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val)
		return -EINVAL;
	atomic64_set(&sdev->reads, 0);
	atomic64_set(&sdev->writes, 0);
	return count;
}

static const struct file_operations socpmu_sim_regs_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = socpmu_sim_regs_read,
	.write = socpmu_sim_regs_write,
	.llseek = default_llseek,
};

/*
 * Longest stall of an access (socpmu_sim_debugfs_delay()): the one stalled
 * may hold a lock with interrupts off (a PMU's poll timer reads in hard
 * interrupt context)
 */
#define SOCPMU_SIM_MAX_DELAY_NS	(50 * NSEC_PER_USEC)

static int socpmu_sim_delay_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int socpmu_sim_delay_set(void *data, u64 val)
{
	if (val > SOCPMU_SIM_MAX_DELAY_NS) {
		pr_debug("delay: %llu ns is over %lu\n", val, SOCPMU_SIM_MAX_DELAY_NS);
		return -EINVAL;
	}
	WRITE_ONCE(*(u32 *)data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(socpmu_sim_delay_fops, socpmu_sim_delay_get,
			 socpmu_sim_delay_set, "%llu\n");

/**
 * socpmu_sim_debugfs_delay() - a debugfs file setting a stall in nanoseconds
 * @dir: the device's debugfs directory
 * @name: file name
 * @ns: the stall, read with READ_ONCE() where it applies; it must live as
 *	long as @dir
 *
 * Read-write (0600), 0 to 50000; larger values are refused with EINVAL.
 */
void socpmu_sim_debugfs_delay(struct dentry *dir, const char *name, u32 *ns)
{
	debugfs_create_file_unsafe(name, 0600, dir, ns, &socpmu_sim_delay_fops);
}

static void socpmu_sim_destroy(void *data)
{
	struct socpmu_sim_dev *sdev = data;

	sdev->type->destroy(sdev->model);
}

static void socpmu_sim_debugfs_remove(void *dir)
{
	debugfs_remove_recursive(dir);
}

static int socpmu_sim_setup(struct socpmu_sim_dev *sdev)
{
	const struct socpmu_sim_type *type = sdev->type;
	struct device *dev = sdev->dev;
	struct dentry *dir;
	void *model;
	int ret;

	model = type->create(sdev);
	if (IS_ERR(model))
		return PTR_ERR(model);
	sdev->model = model;
	ret = devm_add_action_or_reset(dev, socpmu_sim_destroy, sdev);
	if (ret)
		return ret;

	if (type->reg_read) {
		const struct regmap_config cfg = {
			.reg_bits = 32,
			.val_bits = 32,
			.reg_stride = 4,
			.max_register = sdev->max_register,
			.reg_read = socpmu_sim_reg_read,
			.reg_write = socpmu_sim_reg_write,
			.fast_io = true,
			.disable_locking = true,	/* the model locks itself */
			.can_sleep = sdev->sleeping_regmap,
			.cache_type = REGCACHE_NONE,
		};
		struct regmap *map = devm_regmap_init(dev, NULL, sdev, &cfg);

		if (IS_ERR(map))
			return PTR_ERR(map);
	}

	dir = debugfs_create_dir(sdev->name, socpmu_sim_debugfs);
	ret = devm_add_action_or_reset(dev, socpmu_sim_debugfs_remove, dir);
	if (ret)
		return ret;
	if (type->reg_read) {
		debugfs_create_file("regs", 0600, dir, sdev, &socpmu_sim_regs_fops);
		socpmu_sim_debugfs_delay(dir, "read_delay_ns", &sdev->read_delay_ns);
	}
	if (type->debugfs_init)
		type->debugfs_init(sdev, dir);

	return type->add_children(sdev);
}

static int socpmu_sim_probe(struct platform_device *pdev)
{
	struct socpmu_sim_dev **pdata = dev_get_platdata(&pdev->dev);

	if (!pdata)
		return -ENODEV;
	(*pdata)->dev = &pdev->dev;
	(*pdata)->probe_err = socpmu_sim_setup(*pdata);
	return (*pdata)->probe_err;
}

static struct platform_driver socpmu_sim_driver = {
	.driver = {
		.name = "socpmu-sim",
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
		.suppress_bind_attrs = true,
	},
	.probe = socpmu_sim_probe,
	.id_table = socpmu_sim_types,
};

static struct socpmu_sim_dev *socpmu_sim_find(const char *name)
{
	struct socpmu_sim_dev *sdev;

	lockdep_assert_held(&socpmu_sim_lock);
	list_for_each_entry(sdev, &socpmu_sim_list, node)
		if (!strcmp(sdev->name, name))
			return sdev;
	return NULL;
}

static void socpmu_sim_free(struct socpmu_sim_dev *sdev)
{
	kfree(sdev->cfg);
	kfree(sdev);
}

/* Unregister a device: its children go first (devres), then the sim device */
static void socpmu_sim_remove(struct socpmu_sim_dev *sdev)
{
	list_del(&sdev->node);
	platform_device_unregister(to_platform_device(sdev->dev));
	ida_free(&socpmu_sim_ida, sdev->id);
	socpmu_sim_free(sdev);
}

/* Name the device: the given name (unique, [A-Za-z0-9_-]) or "<type><N>" */
static int socpmu_sim_set_name(struct socpmu_sim_dev *sdev, const char *name)
{
	const char *p;
	int n;

	lockdep_assert_held(&socpmu_sim_lock);
	if (!name) {
		for (n = 0; ; n++) {
			snprintf(sdev->name, sizeof(sdev->name), "%s%d", sdev->type->name, n);
			if (!socpmu_sim_find(sdev->name))
				return 0;
		}
	}
	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '_' && *p != '-')
			break;
	if (*p || p == name || p - name >= SOCPMU_SIM_NAME_LEN) {
		pr_debug("bad name \"%s\": 1..%d characters of [A-Za-z0-9_-]\n",
			 name, SOCPMU_SIM_NAME_LEN - 1);
		return -EINVAL;
	}
	if (socpmu_sim_find(name))
		return -EEXIST;
	strscpy(sdev->name, name);
	return 0;
}

static const struct platform_device_id *socpmu_sim_find_type(const char *name)
{
	const struct platform_device_id *id;

	for (id = socpmu_sim_types; id->name[0]; id++)
		if (!strcmp(((const struct socpmu_sim_type *)id->driver_data)->name, name))
			return id;
	pr_debug("unknown device type \"%s\"\n", name);
	return NULL;
}

/* Register the sim device; a failed probe is reported as its error */
static int socpmu_sim_register(struct socpmu_sim_dev *sdev, const char *pdev_name)
{
	const struct platform_device_info info = {
		.parent = socpmu_sim_root,
		.name = pdev_name,
		.id = sdev->id,
		.data = &sdev,
		.size_data = sizeof(sdev),
	};
	struct platform_device *pdev;

	sdev->probe_err = -ENODEV;
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	if (!device_is_bound(&pdev->dev)) {
		platform_device_unregister(pdev);
		return sdev->probe_err;
	}
	return 0;
}

/**
 * socpmu_sim_new() - create a device from a new_device line
 * @args: "<type> [key=val]...", modified in place
 *
 * Return: 0, -EINVAL (bad syntax or value), -EEXIST (name in use), or an
 * error from creating the device.
 */
static int socpmu_sim_new(char *args)
{
	const struct platform_device_id *id;
	const struct socpmu_sim_type *type;
	struct socpmu_sim_dev *sdev;
	char *key, *val, *name = NULL;
	int ret;

	args = next_arg(skip_spaces(args), &key, &val);
	id = val ? NULL : socpmu_sim_find_type(key);
	if (!id)
		return -EINVAL;
	type = (const struct socpmu_sim_type *)id->driver_data;

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->type = type;
	sdev->cfg = kzalloc(type->cfg_size, GFP_KERNEL);
	if (!sdev->cfg) {
		ret = -ENOMEM;
		goto err_free;
	}
	type->cfg_init(sdev->cfg);

	while (*args) {
		args = next_arg(args, &key, &val);
		if (!val) {
			pr_debug("\"%s\": expected key=value\n", key);
			ret = -EINVAL;
			goto err_free;
		}
		if (!strcmp(key, "name")) {
			name = val;
		} else if (!strcmp(key, "sleeping_regmap")) {
			/* A regmap that says it may sleep, for the drivers' refusal */
			if (kstrtobool(val, &sdev->sleeping_regmap)) {
				pr_debug("sleeping_regmap=%s: expected 0 or 1\n", val);
				ret = -EINVAL;
				goto err_free;
			}
		} else if (!strcmp(key, "destroy_delay_us")) {
			/* Widens the window after an event's ->destroy (removal tests) */
			if (kstrtouint(val, 0, &sdev->destroy_delay_us) ||
			    sdev->destroy_delay_us > 100000) {
				pr_debug("destroy_delay_us=%s: expected 0..100000\n", val);
				ret = -EINVAL;
				goto err_free;
			}
		} else if (type->cfg_parse(sdev->cfg, key, val)) {
			ret = -EINVAL;
			goto err_free;
		}
	}

	mutex_lock(&socpmu_sim_lock);
	ret = socpmu_sim_set_name(sdev, name);
	if (ret)
		goto err_unlock;
	ret = ida_alloc(&socpmu_sim_ida, GFP_KERNEL);
	if (ret < 0)
		goto err_unlock;
	sdev->id = ret;
	ret = socpmu_sim_register(sdev, id->name);
	if (ret) {
		ida_free(&socpmu_sim_ida, sdev->id);
		goto err_unlock;
	}
	list_add_tail(&sdev->node, &socpmu_sim_list);
	mutex_unlock(&socpmu_sim_lock);
	return 0;

err_unlock:
	mutex_unlock(&socpmu_sim_lock);
err_free:
	socpmu_sim_free(sdev);
	return ret;
}

static ssize_t new_device_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	char *args __free(kfree) = kstrndup(buf, count, GFP_KERNEL);
	int ret;

	if (!args)
		return -ENOMEM;
	ret = socpmu_sim_new(args);
	return ret ?: count;
}
static DEVICE_ATTR_WO(new_device);

static ssize_t del_device_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	char *args __free(kfree) = kstrndup(buf, count, GFP_KERNEL);
	struct socpmu_sim_dev *sdev;
	char *name;
	int ret;

	if (!args)
		return -ENOMEM;
	ret = socpmu_sim_split(args, &name, 1);
	if (ret)
		return ret;

	mutex_lock(&socpmu_sim_lock);
	sdev = socpmu_sim_find(name);
	if (sdev)
		socpmu_sim_remove(sdev);
	mutex_unlock(&socpmu_sim_lock);
	return sdev ? count : -ENOENT;
}
static DEVICE_ATTR_WO(del_device);

static ssize_t devices_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct socpmu_sim_dev *sdev;
	int len = 0;

	mutex_lock(&socpmu_sim_lock);
	list_for_each_entry(sdev, &socpmu_sim_list, node) {
		len += sysfs_emit_at(buf, len, "%s %s", sdev->name, sdev->type->name);
		len += sdev->type->cfg_show(sdev->cfg, buf, len);
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&socpmu_sim_lock);
	return len;
}
static DEVICE_ATTR_RO(devices);

static ssize_t types_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct platform_device_id *id;
	int len = 0;

	for (id = socpmu_sim_types; id->name[0]; id++)
		len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
				     ((const struct socpmu_sim_type *)id->driver_data)->name);
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(types);

static struct attribute *socpmu_sim_attrs[] = {
	&dev_attr_new_device.attr,
	&dev_attr_del_device.attr,
	&dev_attr_devices.attr,
	&dev_attr_types.attr,
	NULL
};
ATTRIBUTE_GROUPS(socpmu_sim);

static void socpmu_sim_remove_all(void)
{
	struct socpmu_sim_dev *sdev, *tmp;

	mutex_lock(&socpmu_sim_lock);
	list_for_each_entry_safe(sdev, tmp, &socpmu_sim_list, node)
		socpmu_sim_remove(sdev);
	mutex_unlock(&socpmu_sim_lock);
}

static int __init socpmu_sim_init(void)
{
	char def[] = "tensix";
	int ret;

	socpmu_sim_debugfs = debugfs_create_dir("socpmu_sim", NULL);
	socpmu_sim_root = root_device_register("socpmu_sim");
	if (IS_ERR(socpmu_sim_root)) {
		ret = PTR_ERR(socpmu_sim_root);
		goto err_debugfs;
	}
	ret = platform_driver_register(&socpmu_sim_driver);
	if (ret)
		goto err_root;
	ret = device_add_groups(socpmu_sim_root, socpmu_sim_groups);
	if (ret)
		goto err_driver;
	if (!nodefault) {
		ret = socpmu_sim_new(def);
		if (ret)
			goto err_groups;
	}
	return 0;

err_groups:
	device_remove_groups(socpmu_sim_root, socpmu_sim_groups);
err_driver:
	platform_driver_unregister(&socpmu_sim_driver);
err_root:
	root_device_unregister(socpmu_sim_root);
err_debugfs:
	debugfs_remove_recursive(socpmu_sim_debugfs);
	return ret;
}
module_init(socpmu_sim_init);

static void __exit socpmu_sim_exit(void)
{
	/* No new_device/del_device writers once the attributes are gone */
	device_remove_groups(socpmu_sim_root, socpmu_sim_groups);
	socpmu_sim_remove_all();
	platform_driver_unregister(&socpmu_sim_driver);
	root_device_unregister(socpmu_sim_root);
	debugfs_remove_recursive(socpmu_sim_debugfs);
}
module_exit(socpmu_sim_exit);

MODULE_DESCRIPTION("socpmu hardware simulator");
MODULE_LICENSE("GPL");
