/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * socpmu core: the uncore mechanics shared by every socpmu PMU driver.
 *
 * A driver describes how to validate, claim and read its counters
 * (struct socpmu_ops); the core does the rest: perf registration on one
 * CPU (cpumask, events moved there, migration on hot-unplug),
 * extension of narrow hardware counters to 64 bits by an hrtimer poll,
 * events that sum several hardware counters (one per core or tile), group
 * validation, group-read transactions and safe removal while events are
 * still open.
 */
#ifndef _SOCPMU_CORE_H
#define _SOCPMU_CORE_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include <socpmu/unit.h>

struct socpmu;

/**
 * struct socpmu_pin - holds a driver module while other PMUs' events use
 *	the perf contexts of one of its PMUs (part of struct socpmu_life; see
 *	socpmu_life_put())
 * @pmu: the PMU
 * @lock: serialises @pinned, @forever and @work
 * @pinned: the module is held
 * @forever: a task context holds such events: the module stays
 * @work: releases the module once no per-CPU context of @pmu is in use
 */
struct socpmu_pin {
	struct pmu *pmu;
	struct mutex lock;	/* @pinned, @forever, @work */
	bool pinned;
	bool forever;
	struct delayed_work work;
};

/**
 * struct socpmu_life - the lifetime of a PMU whose device can go away while
 *	perf still uses the PMU: embedded in struct socpmu, and used alone by
 *	PMU drivers that do not use the rest of the core (sifive_hpm)
 * @pmu: the perf PMU
 * @release: unregisters the PMU from perf and frees it
 * @nr_events: events initialised and not yet destroyed
 *	(socpmu_life_get(), socpmu_life_put())
 * @had_events: an event was ever destroyed: perf may still use the PMU
 *	for it (see socpmu_safe_to_free())
 * @destroy_delay_us: fault injection (see socpmu_life_init())
 * @pin: holds the driver module for other PMUs' events in the PMU's contexts
 * @node: in the core's list of every PMU
 * @zombie: in the core's list of removed PMUs waiting to be freed
 */
struct socpmu_life {
	struct pmu *pmu;
	void (*release)(struct socpmu_life *life);
	atomic_t nr_events;
	bool had_events;
	unsigned int destroy_delay_us;
	struct socpmu_pin pin;
	struct list_head node;
	struct list_head zombie;
};

/* Counters whose last values an event keeps in itself (no allocation) */
#define SOCPMU_INLINE_COUNTERS	6

/**
 * struct socpmu_hw_event - core state of one perf event, in its hw_perf_event
 * @node: entry in socpmu::active while the event is scheduled
 * @prev: last raw value of each counter: @inline_prev, or an array of @nr
 *	allocated at event_init for events that sum more counters than that
 * @mask: counter width mask (GENMASK_ULL(width - 1, 0))
 * @data: the driver's own word, e.g. its decoded event (see socpmu_hw())
 * @nr: number of hardware counters summed into this event
 * @arch_flags: lies over hw_perf_event::flags, which the perf core and the
 *	architectures read for every event (PERF_EVENT_FLAG_USER_READ_CNT
 *	counts in ctx->nr_user and sets cap_user_rdpmc): always 0
 * @inline_prev: the @prev of events of up to SOCPMU_INLINE_COUNTERS counters
 *
 * Like arm-cmn, the core keeps an event's state in the hardware part of
 * event->hw (a union perf leaves to the PMU driver, zeroed when the event
 * is allocated) rather than in an allocation of its own.
 */
struct socpmu_hw_event {
	struct list_head node;
	u64 *prev;
	u64 mask;
	unsigned long data;
	unsigned int nr;
	u32 arch_flags;
	u64 inline_prev[SOCPMU_INLINE_COUNTERS];
};

static_assert(sizeof(struct socpmu_hw_event) <= offsetof(struct hw_perf_event, target));
static_assert(offsetof(struct socpmu_hw_event, arch_flags) ==
	      offsetof(struct hw_perf_event, flags));

/**
 * socpmu_hw() - the core's state of one of a socpmu PMU's events
 * @event: the event
 *
 * Drivers keep their own per-event word in ->data (set in their
 * socpmu_ops::event_init); every other field is the core's.
 *
 * Return: the state, which lies in @event->hw.
 */
static inline struct socpmu_hw_event *socpmu_hw(struct perf_event *event)
{
	return (struct socpmu_hw_event *)&event->hw;
}

/* The event whose state @se is (socpmu_hw()'s inverse) */
static inline struct perf_event *socpmu_event_of(struct socpmu_hw_event *se)
{
	return container_of((struct hw_perf_event *)se, struct perf_event, hw);
}

/**
 * enum socpmu_window - why the core calls socpmu_ops::read_begin
 * @SOCPMU_POLL: a poll sweep, which keeps counts across counter wraps
 * @SOCPMU_TXN_READ: perf reads a group
 * @SOCPMU_TXN_ADD: perf adds a group
 * @SOCPMU_DISABLED: perf has the PMU disabled while it schedules events
 *	out and in (group adds nest in it)
 *
 * In the last two, as in a CPU PMU disabled by perf, the driver may stop
 * counters so that a group starts and ends at one instant; see
 * socpmu_restart().
 */
enum socpmu_window {
	SOCPMU_POLL,
	SOCPMU_TXN_READ,
	SOCPMU_TXN_ADD,
	SOCPMU_DISABLED,
};

/**
 * struct socpmu_ops - what a driver tells the core about its hardware
 * @event_init: decode and validate @event->attr (config, config1, config2);
 *	set *@nr to the number of hardware counters the event sums and *@width
 *	to their width in bits. Return 0 or a negative errno.
 * @compatible: can @a and @b (both of this PMU, both already validated)
 *	count at the same time? Used to reject groups that could never be
 *	scheduled. May be NULL (everything is compatible).
 * @add: claim the hardware for @event; return -EAGAIN (or another error)
 *	when it cannot count now, so that perf multiplexes it.
 * @del: release what @add claimed.
 * @read: store the current raw value of each of the event's counters in
 *	@vals (wrapping counters: the core extends them). Called with
 *	socpmu::lock held, interrupts off. A read that fails because the
 *	hardware stopped answering calls socpmu_lost() and returns: @vals
 *	are then ignored.
 * @read_begin: optional, start of a group transaction (perf adding or
 *	reading a group), of a poll sweep or of a window in which perf has the
 *	PMU disabled (scheduling events out and in), @why says which: e.g.
 *	take a snapshot so that every event is read at the same instant until
 *	@read_end. These nest: the core calls @read_begin for the first and
 *	@read_end after the last.
 * @read_end: optional, end of that transaction, sweep or window.
 * @mux_interval_ms: the PMU's default multiplexing period
 *	(perf_event_mux_interval_ms in sysfs), 0 for perf's
 * @destroy: optional, @event goes: undo what a successful @event_init
 *	took beyond the core's state. Called once for every event whose
 *	@event_init succeeded, also when the core then fails the event, and
 *	also after the device is gone (socpmu_unregister()). May sleep.
 *
 * @add, @del and @read are called with socpmu::lock held and interrupts off:
 * they must not sleep.
 */
struct socpmu_ops {
	int (*event_init)(struct socpmu *sp, struct perf_event *event,
			  unsigned int *nr, unsigned int *width);
	bool (*compatible)(struct socpmu *sp, struct perf_event *a,
			   struct perf_event *b);
	int (*add)(struct socpmu *sp, struct perf_event *event);
	void (*del)(struct socpmu *sp, struct perf_event *event);
	void (*read)(struct socpmu *sp, struct perf_event *event, u64 *vals);
	void (*read_begin)(struct socpmu *sp, enum socpmu_window why);
	void (*read_end)(struct socpmu *sp);
	unsigned int mux_interval_ms;
	void (*destroy)(struct socpmu *sp, struct perf_event *event);
};

/**
 * struct socpmu - one PMU instance; drivers embed it first in their state
 * @pmu: the perf PMU
 * @dev: the device that provides the hardware (not used once @dead)
 * @ops: driver callbacks
 * @name: perf name, e.g. "tensix_0"; a driver may set it before
 *	socpmu_register() (then kept), else "<prefix>_<id>"
 * @parent: sysfs parent of the PMU's device, set by the driver before
 *	socpmu_register() (NULL: none, the PMU sits in /sys/devices)
 * @lock: serialises hardware access and @active
 * @active: scheduled events, polled by @timer
 * @vals: scratch for one read of an event's counters, under @lock
 * @nr_vals: size of @vals: the most counters an event of the PMU sums
 * @timer: poll timer that keeps 64-bit counts exact across counter wraps
 * @poll_ns: poll period; drivers set it to socpmu_poll_ns() of their fastest
 *	counter, sysfs can lower it
 * @poll_max_ns: longest poll period that catches every wrap (the driver's
 *	default): sysfs refuses longer ones
 * @txn_read: number of open group transactions and PMU-disabled windows
 * @dead: the device is gone, or its hardware stopped answering
 *	(socpmu_lost()); the PMU only waits for its events to close
 * @id: instance number within the driver's IDA
 * @ida: the driver's IDA, released with the PMU
 * @life: the PMU's lifetime: its events, pin and removal
 */
struct socpmu {
	struct pmu pmu;
	struct device *dev;
	const struct socpmu_ops *ops;
	char name[32];
	struct device *parent;
	raw_spinlock_t lock;
	struct list_head active;
	u64 *vals;
	unsigned int nr_vals;
	struct hrtimer timer;
	u64 poll_ns;
	u64 poll_max_ns;
	unsigned int txn_read;
	bool dead;
	int id;
	struct ida *ida;
	struct socpmu_life life;
	int cpu;			/* events count in this CPU's context */
	struct ratelimit_state refuse_rs; /* socpmu_refuse()'s info lines */
	struct hlist_node cpuhp_node;
};

static inline struct socpmu *to_socpmu(struct pmu *pmu)
{
	return container_of(pmu, struct socpmu, pmu);
}

/**
 * socpmu_units() - the units an event counts on
 * @event: the event
 * @nr_units: units of the device
 * @first: first unit counted
 *
 * Return: number of consecutive units from @first (1, or @nr_units).
 */
static inline unsigned int socpmu_units(struct perf_event *event,
					unsigned int nr_units, unsigned int *first)
{
	u64 cfg1 = event->attr.config1;

	if (cfg1 & SOCPMU_CFG1_VALID) {
		*first = cfg1 & SOCPMU_CFG1_UNIT_MASK;
		return 1;
	}
	*first = 0;
	return nr_units;
}

void *socpmu_alloc(size_t size);
int socpmu_register(struct socpmu *sp, struct device *dev,
		    const struct socpmu_ops *ops, struct ida *ida,
		    const char *prefix, const struct attribute_group **groups);
void socpmu_unregister(struct socpmu *sp);
void socpmu_lost(struct socpmu *sp, const char *why);
void socpmu_life_init(struct socpmu_life *life, struct pmu *pmu, struct device *dev,
		      void (*release)(struct socpmu_life *life));
void socpmu_life_add(struct socpmu_life *life);
void socpmu_life_get(struct socpmu_life *life);
void socpmu_life_put(struct socpmu_life *life, struct perf_event *event);
bool socpmu_life_remove(struct socpmu_life *life);
void socpmu_life_reap(struct module *mod);
u64 socpmu_poll_ns(u64 clock_hz, unsigned int width);
struct regmap *socpmu_parent_regmap(struct device *dev, const char *name);
int socpmu_read_clock(struct device *dev, u64 *hz);
struct regmap *socpmu_get_regmap(struct platform_device *pdev, resource_size_t size);
void socpmu_platform_remove(struct platform_device *pdev);
void socpmu_restart(struct socpmu *sp, void (*restart)(struct socpmu *sp),
		    bool (*zeroed)(struct socpmu *sp, struct perf_event *event,
				   unsigned int i));
void socpmu_rearm(struct socpmu *sp, void (*rearm)(struct socpmu *sp));

/*
 * module_socpmu_driver() - register a platform driver whose probe calls
 * socpmu_register() and sets the socpmu as drvdata; use
 * socpmu_platform_remove() as its remove. Module exit frees the PMUs whose
 * device went away while events were open.
 */
#define module_socpmu_driver(__drv)					\
static int __init __drv##_init(void)					\
{									\
	return platform_driver_register(&(__drv));			\
}									\
module_init(__drv##_init);						\
static void __exit __drv##_exit(void)					\
{									\
	platform_driver_unregister(&(__drv));				\
	socpmu_life_reap(THIS_MODULE);					\
}									\
module_exit(__drv##_exit)

/* "poll_interval_us" attribute group, add it to a driver's groups */
extern const struct attribute_group socpmu_core_attr_group;

/*
 * sysfs helpers: a format attribute ("config:0-8") and an event alias whose
 * text a driver formats from its own fields.
 */
#define SOCPMU_FORMAT_ATTR(_name, _fmt)					\
	(&((struct dev_ext_attribute[]) {				\
		{ __ATTR(_name, 0444, socpmu_sysfs_show_string, NULL),	\
		  (void *)_fmt }					\
	})[0].attr.attr)

ssize_t socpmu_sysfs_show_string(struct device *dev,
				 struct device_attribute *attr, char *buf);

__printf(2, 3) void socpmu_refuse(struct socpmu *sp, const char *fmt, ...);
__printf(3, 4) void socpmu_log_refusal(struct ratelimit_state *rs, const char *name,
				       const char *fmt, ...);

#endif /* _SOCPMU_CORE_H */
