// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu_migrate: move a PMU's events from one CPU to another, as the perf
 * core does when the CPU of a system-wide PMU goes offline.
 *
 * The socpmu PMUs count on one CPU (their cpumask), and when that CPU goes
 * offline the socpmu core's hotplug callback moves their events to another
 * one with perf_pmu_migrate_context(). On x86 that CPU is the boot CPU,
 * which cannot be offlined, so the test VM cannot take that path through
 * hotplug. This module takes it on request, for tests only (the PMU's
 * cpumask stays; the tests move the events back):
 *
 *   echo "<type> <config> <config1> <src> <dst>" > /sys/kernel/debug/socpmu_migrate
 *
 * moves every event of the PMU of perf type <type> from CPU <src> to CPU
 * <dst> (both online). <config> and <config1> describe any event the PMU
 * accepts: a disabled kernel counter with them finds the PMU (and moves
 * along).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>

static struct dentry *socpmu_migrate_file;

static ssize_t socpmu_migrate_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.disabled = 1,
	};
	unsigned int src, dst;
	struct perf_event *event;
	char buf[128];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %llu %llu %u %u", &attr.type, &attr.config,
		   &attr.config1, &src, &dst) != 5 || src == dst ||
	    src >= nr_cpu_ids || dst >= nr_cpu_ids)
		return -EINVAL;

	cpus_read_lock();
	if (!cpu_online(src) || !cpu_online(dst)) {
		ret = -ENODEV;
		goto out;
	}
	event = perf_event_create_kernel_counter(&attr, src, NULL, NULL, NULL);
	if (IS_ERR(event)) {
		ret = PTR_ERR(event);
		goto out;
	}
	perf_pmu_migrate_context(event->pmu, src, dst);
	perf_event_release_kernel(event);
	ret = count;
out:
	cpus_read_unlock();
	return ret;
}

static const struct file_operations socpmu_migrate_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = socpmu_migrate_write,
	.llseek = noop_llseek,
};

static int __init socpmu_migrate_init(void)
{
	socpmu_migrate_file = debugfs_create_file("socpmu_migrate", 0200, NULL, NULL,
						  &socpmu_migrate_fops);
	return 0;
}
module_init(socpmu_migrate_init);

static void __exit socpmu_migrate_exit(void)
{
	debugfs_remove(socpmu_migrate_file);
}
module_exit(socpmu_migrate_exit);

MODULE_DESCRIPTION("socpmu test helper: migrate a PMU's events between CPUs");
MODULE_LICENSE("GPL");
