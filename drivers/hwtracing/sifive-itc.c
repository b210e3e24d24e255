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
 *
 * A file may also hold counting perf events of the thread that set them up
 * (SIFIVE_ITC_IOC_COUNTERS): SIFIVE_ITC_IOC_RECORD then reads them and
 * emits a whole record, its stores and the counters' values encoded as the
 * SiFive perf library does, in one call.
 */
#define pr_fmt(fmt) "sifive_trace: " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "sifive-trace.h"

#define ST_ITC_VALUE_MASK	GENMASK_ULL(47, 0)	/* counter values a record holds */
#define ST_ITC_REC_MAX		(SIFIVE_ITC_MAX_PREFIX + 2 * SIFIVE_ITC_MAX_COUNTERS)

/**
 * struct st_itc_file - an open /dev/sifive-itc
 * @lock: serialises the ioctls that use the counters
 * @task: the thread whose counters @ev count (NULL: no counters set up)
 * @n: counters
 * @channel: ITC channel of the counters' stores
 * @mode: SIFIVE_ITC_COUNT_*
 * @ev: the counting events
 * @mask: each counter's width mask
 * @prev: each counter's previous value (masked)
 * @buf: the stores of a record (ST_ITC_REC_MAX)
 */
struct st_itc_file {
	struct mutex lock;	/* the counters and @buf */
	struct task_struct *task;
	unsigned int n;
	u8 channel;
	u8 mode;
	struct perf_event *ev[SIFIVE_ITC_MAX_COUNTERS];
	u64 mask[SIFIVE_ITC_MAX_COUNTERS];
	u64 prev[SIFIVE_ITC_MAX_COUNTERS];
	struct sifive_itc_write *buf;
};

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
	struct st_itc_file *f;
	int ret = perf_allow_kernel();

	if (ret)
		return ret;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static void st_itc_put_counters(struct st_itc_file *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		perf_event_release_kernel(f->ev[i]);
	f->n = 0;
	kvfree(f->buf);
	f->buf = NULL;
	if (f->task)
		put_task_struct(f->task);
	f->task = NULL;
}

static int st_itc_release(struct inode *inode, struct file *file)
{
	struct st_itc_file *f = file->private_data;

	st_itc_put_counters(f);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

/* Counting events only: tracepoints and breakpoints have rules of their own */
static bool st_itc_counter_valid(const struct sifive_itc_counter *c)
{
	if (c->reserved || !c->mask)
		return false;
	return c->type != PERF_TYPE_TRACEPOINT && c->type != PERF_TYPE_BREAKPOINT;
}

static int st_itc_set_counters(struct st_itc_file *f, const struct sifive_itc_counters *cs)
{
	struct sifive_itc_counter *c;
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int i;
	int ret = 0;

	if (cs->flags || !cs->count || cs->count > SIFIVE_ITC_MAX_COUNTERS ||
	    cs->channel >= SIFIVE_ITC_NR_CHANNELS || cs->mode > SIFIVE_ITC_COUNT_XOR)
		return -EINVAL;
	c = memdup_array_user(u64_to_user_ptr(cs->counters), cs->count, sizeof(*c));
	if (IS_ERR(c))
		return PTR_ERR(c);
	for (i = 0; i < cs->count; i++) {
		if (!st_itc_counter_valid(&c[i])) {
			ret = -EINVAL;
			goto out;
		}
	}
	mutex_lock(&f->lock);
	if (f->task) {
		ret = -EBUSY;
		goto unlock;
	}
	f->buf = kvmalloc_array(ST_ITC_REC_MAX, sizeof(*f->buf), GFP_KERNEL);
	if (!f->buf) {
		ret = -ENOMEM;
		goto unlock;
	}
	for (i = 0; i < cs->count; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = c[i].type;
		attr.config = c[i].config;
		attr.config1 = c[i].config1;
		attr.config2 = c[i].config2;
		ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			break;
		}
		f->ev[f->n] = ev;
		f->mask[f->n] = c[i].mask;
		f->prev[f->n] = 0;
		f->n++;
	}
	if (ret) {
		st_itc_put_counters(f);
		goto unlock;
	}
	f->channel = cs->channel;
	f->mode = cs->mode;
	f->task = get_task_struct(current);
unlock:
	mutex_unlock(&f->lock);
out:
	kfree(c);
	return ret;
}

static void st_itc_put(struct sifive_itc_write *w, unsigned int *n, u8 channel, u8 width,
		       u32 value)
{
	w[*n].channel = channel;
	w[*n].width = width;
	w[*n].reserved = 0;
	w[*n].value = value;
	(*n)++;
}

/* The counters' stores after @n stores in f->buf; the stores in all */
static unsigned int st_itc_counters(struct st_itc_file *f, unsigned int n, bool reset,
				    u32 *clipped)
{
	u64 enabled, running, v, e, wm;
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		wm = f->mask[i];
		v = perf_event_read_value(f->ev[i], &enabled, &running) & wm;
		if (reset)
			f->prev[i] = 0;
		switch (f->mode) {
		case SIFIVE_ITC_COUNT_DELTA:
			e = (v - f->prev[i]) & wm;
			break;
		case SIFIVE_ITC_COUNT_XOR:
			e = v ^ f->prev[i];
			break;
		default:
			e = v;
			break;
		}
		f->prev[i] = v;
		if (e > ST_ITC_VALUE_MASK) {
			(*clipped)++;
			e &= ST_ITC_VALUE_MASK;
		}
		st_itc_put(f->buf, &n, f->channel, 32, lower_32_bits(e));
		if (upper_32_bits(e))
			st_itc_put(f->buf, &n, f->channel, 16, upper_32_bits(e));
	}
	return n;
}

static int st_itc_record(struct st_itc_file *f, struct sifive_itc_record *r)
{
	unsigned int i, n;
	int ret;

	if (r->flags & ~SIFIVE_ITC_REC_RESET || r->count > SIFIVE_ITC_MAX_PREFIX)
		return -EINVAL;
	mutex_lock(&f->lock);
	if (!f->task) {
		ret = -ENOENT;
		goto out;
	}
	if (f->task != current) {
		ret = -EPERM;
		goto out;
	}
	if (copy_from_user(f->buf, u64_to_user_ptr(r->entries), r->count * sizeof(*f->buf))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < r->count; i++) {
		if (!st_itc_valid(&f->buf[i])) {
			ret = -EINVAL;
			goto out;
		}
	}
	r->clipped = 0;
	n = st_itc_counters(f, r->count, r->flags & SIFIVE_ITC_REC_RESET, &r->clipped);
	r->written = n;
	ret = st_itc_emit(f->buf, n, &r->traced, &r->cpu);
out:
	mutex_unlock(&f->lock);
	return ret;
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

static long st_itc_ioctl_record(struct st_itc_file *f, void __user *arg)
{
	struct sifive_itc_record r;
	int ret;

	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	ret = st_itc_record(f, &r);
	if (ret)
		return ret;
	return copy_to_user(arg, &r, sizeof(r)) ? -EFAULT : 0;
}

static long st_itc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sifive_itc_batch __user *ub = (void __user *)arg;
	struct sifive_itc_counters cs;
	struct sifive_itc_batch b;
	int ret;

	switch (cmd) {
	case SIFIVE_ITC_IOC_WRITE:
		break;
	case SIFIVE_ITC_IOC_RECORD:
		return st_itc_ioctl_record(file->private_data, (void __user *)arg);
	case SIFIVE_ITC_IOC_COUNTERS:
		if (copy_from_user(&cs, (void __user *)arg, sizeof(cs)))
			return -EFAULT;
		return st_itc_set_counters(file->private_data, &cs);
	default:
		return -ENOTTY;
	}
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
	.release = st_itc_release,
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
