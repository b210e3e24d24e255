// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive trace: /dev/sifive-itc, ITC stores from user space.
 *
 * The stimulus registers share the encoder's page with its control and
 * sink registers, so they are never mapped to user space: a batch of
 * (channel, width, value) stores goes through here in one ioctl or write,
 * and is emitted in order on the caller's hart (see
 * include/uapi/socpmu/sifive_itc.h). Opening the device takes what opening a
 * perf event that traces the kernel takes: the stores land in whatever
 * trace runs on the hart, including system-wide ones.
 */
#define pr_fmt(fmt) "sifive_trace: " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "sifive-trace.h"

static bool st_itc_valid(const struct sifive_itc_write *w)
{
	if (w->channel >= SIFIVE_ITC_NR_CHANNELS || w->reserved)
		return false;
	switch (w->width) {
	case 8:
	case 16:
		return w->value < BIT(w->width);
	case 32:
		return true;
	}
	return false;
}

static int st_itc_batch(const void __user *uw, unsigned int n, u32 *traced, int *cpu)
{
	struct sifive_itc_write *w;
	unsigned int i;
	int ret;

	if (!n || n > SIFIVE_ITC_MAX_BATCH)
		return -EINVAL;
	w = vmemdup_array_user(uw, n, sizeof(*w));
	if (IS_ERR(w))
		return PTR_ERR(w);
	for (i = 0; i < n; i++) {
		if (!st_itc_valid(&w[i])) {
			kvfree(w);
			return -EINVAL;
		}
	}
	ret = st_itc_emit(w, n, traced, cpu);
	kvfree(w);
	return ret;
}

static int st_itc_open(struct inode *inode, struct file *file)
{
	int ret = perf_allow_kernel();

	if (ret)
		return ret;
	return nonseekable_open(inode, file);
}

static ssize_t st_itc_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	u32 traced;
	int cpu, ret;

	if (count % sizeof(struct sifive_itc_write))
		return -EINVAL;
	ret = st_itc_batch(ubuf, min_t(size_t, count / sizeof(struct sifive_itc_write),
				       SIFIVE_ITC_MAX_BATCH + 1), &traced, &cpu);
	return ret ?: count;
}

static long st_itc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sifive_itc_batch __user *ub = (void __user *)arg;
	struct sifive_itc_batch b;
	int ret;

	if (cmd != SIFIVE_ITC_IOC_WRITE)
		return -ENOTTY;
	if (copy_from_user(&b, ub, sizeof(b)))
		return -EFAULT;
	if (b.flags)
		return -EINVAL;
	ret = st_itc_batch(u64_to_user_ptr(b.entries), b.count, &b.traced, &b.cpu);
	if (ret)
		return ret;
	return copy_to_user(ub, &b, sizeof(b)) ? -EFAULT : 0;
}

static const struct file_operations st_itc_fops = {
	.owner = THIS_MODULE,
	.open = st_itc_open,
	.write = st_itc_write,
	.unlocked_ioctl = st_itc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* Everyone may open it: st_itc_open() applies the perf rules */
static struct miscdevice st_itc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sifive-itc",
	.fops = &st_itc_fops,
	.mode = 0666,
};

int st_itc_init(void)
{
	return misc_register(&st_itc_misc);
}

void st_itc_exit(void)
{
	misc_deregister(&st_itc_misc);
}
