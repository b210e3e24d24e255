// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu core: uncore PMU mechanics shared by the socpmu drivers.
 *
 * Counting only, system-wide: every event is bound to the PMU's one CPU
 * (exported as "cpumask", moved to another online CPU with the events'
 * contexts on hot-unplug, as arm-cmn does). event_init moves event->cpu
 * there, so that all of a PMU's events share one perf context and the poll
 * that takes that context's lock covers them all (a
 * PERF_PMU_SCOPE_SYS_WIDE PMU in 6.12 leaves an event on the CPU it was
 * opened on, one context per CPU under a single timer). Hardware counters
 * are narrower than 64 bits and have no overflow interrupt, so an hrtimer
 * on that CPU reads every scheduled event often enough that no wrap is
 * missed, in the style of thunderx2_pmu.c.
 *
 * Removing a device while its events are open must not crash. Perf in 6.12
 * cannot unregister a PMU that still has events, so such a PMU is marked
 * dead (its counts freeze, nothing touches the hardware again) and parked
 * on a zombie list. A reaper frees it once perf has let go of it, which
 * is after the last event's ->destroy (see socpmu_safe_to_free()), or the
 * driver module's exit does, which perf's module references guarantee
 * happens only once every event is gone.
 *
 * Hardware that stops answering (a PCIe card being reset, or off the bus,
 * whose reads return all ones) is dead the same way, from the read on
 * which the driver notices (socpmu_lost()): no value of that read or any
 * later one is folded into a count.
 */

#define pr_fmt(fmt) "socpmu: " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/poison.h>
#include <linux/kernel.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/property.h>
#include <linux/regmap.h>

#include <socpmu/core.h>

#define SOCPMU_POLL_MIN_NS	(100 * NSEC_PER_USEC)
#define SOCPMU_POLL_MAX_NS	(60 * NSEC_PER_SEC)
/*
 * The poll's period is at least this many times as long as the poll took,
 * so that it keeps its CPU in the timer interrupt at most a quarter of the
 * time
 */
#define SOCPMU_POLL_DUTY	4

/*
 * Every registered PMU (its struct socpmu_life), and the dead ones of them
 * waiting to be freed
 */
static LIST_HEAD(socpmu_list);
static LIST_HEAD(socpmu_zombies);
static DEFINE_MUTEX(socpmu_list_lock);	/* both lists */
static enum cpuhp_state socpmu_cpuhp_state;

/*
 * Changes of any PMU's nr_events: begun and ended, so that a reader can
 * tell whether one overlapped its reads (see socpmu_safe_to_free()).
 */
static atomic_t socpmu_changes_begun = ATOMIC_INIT(0);
static atomic_t socpmu_changes_ended = ATOMIC_INIT(0);

static void socpmu_reaper_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(socpmu_reaper, socpmu_reaper_fn);
#define SOCPMU_REAP_POLL	(HZ / 20)

static void socpmu_nr_events_add(struct socpmu_life *life, int n)
{
	atomic_inc(&socpmu_changes_begun);
	smp_mb__after_atomic();
	atomic_add(n, &life->nr_events);
	smp_mb__before_atomic();
	atomic_inc(&socpmu_changes_ended);
}

/**
 * socpmu_alloc() - allocate a driver's PMU state
 * @size: size of the driver's structure, which starts with struct socpmu
 *
 * The core owns the allocation from socpmu_register() on: it frees it when
 * the PMU is unregistered, which can be after the device is gone.
 *
 * Return: zeroed memory or NULL.
 */
void *socpmu_alloc(size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(socpmu_alloc);

/**
 * socpmu_refuse() - say why an event or setting is refused
 * @sp: the PMU
 * @fmt: the reason, printf style, without a newline
 *
 * perf shows a refused event only as "<not supported>" or EINVAL, so every
 * refusal is logged at info level as "<pmu>: refused: <reason>", where the
 * PMU's documentation sends the user (dmesg). A PMU logs at most 10 a
 * 5 s (a fuzzer or a script that retries must not flood the log); the
 * ones above that go to dynamic debug
 * (echo 'module socpmu_core +p' > /sys/kernel/debug/dynamic_debug/control).
 */
void socpmu_refuse(struct socpmu *sp, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	socpmu_log_refusal(&sp->refuse_rs, sp->name, "%pV", &vaf);
	va_end(args);
}
EXPORT_SYMBOL_GPL(socpmu_refuse);

/**
 * socpmu_log_refusal() - socpmu_refuse() for a PMU that is no struct socpmu
 * @rs: the PMU's ratelimit state (ratelimit_state_init(rs, 5 * HZ, 10))
 * @name: the PMU's name
 * @fmt: the reason, printf style, without a newline
 *
 * sifive_hpm's refusals, in the same words and at the same level as the
 * other socpmu PMUs'.
 */
void socpmu_log_refusal(struct ratelimit_state *rs, const char *name, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (__ratelimit(rs))
		pr_info("%s: refused: %pV\n", name, &vaf);
	else
		pr_debug("%s: refused: %pV\n", name, &vaf);
	va_end(args);
}
EXPORT_SYMBOL_GPL(socpmu_log_refusal);

/**
 * socpmu_poll_ns() - poll period that never misses a counter wrap
 * @clock_hz: fastest rate at which a counter can increment
 * @width: counter width in bits
 *
 * Return: a quarter of the time the counter takes to wrap, at most 60 s;
 * 0 when that is below 100 us, faster than the poll timer is trusted to
 * run: such counters need an overflow interrupt, the timer cannot keep
 * them exact.
 */
u64 socpmu_poll_ns(u64 clock_hz, unsigned int width)
{
	u64 ns;

	if (!clock_hz || width >= 64)
		return SOCPMU_POLL_MAX_NS;
	ns = mul_u64_u64_div_u64(BIT_ULL(width), NSEC_PER_SEC, clock_hz) / 4;
	if (ns < SOCPMU_POLL_MIN_NS)
		return 0;
	return min_t(u64, ns, SOCPMU_POLL_MAX_NS);
}
EXPORT_SYMBOL_GPL(socpmu_poll_ns);

/**
 * socpmu_read_clock() - a device's counting clock from its properties
 * @dev: the device
 * @hz: result
 *
 * "clock-frequency" is a u32 in device trees, and a u64 where a (simulated)
 * clock exceeds 4 GHz.
 *
 * Return: 0, or -EINVAL when the property is missing or zero.
 */
int socpmu_read_clock(struct device *dev, u64 *hz)
{
	u32 hz32;

	if (!device_property_read_u64(dev, "clock-frequency", hz) && *hz)
		return 0;
	if (device_property_read_u32(dev, "clock-frequency", &hz32) || !hz32)
		return -EINVAL;
	*hz = hz32;
	return 0;
}
EXPORT_SYMBOL_GPL(socpmu_read_clock);

static const struct regmap_config socpmu_mmio_config = {
	.reg_bits = 32,
	.val_bits = 32,
	.reg_stride = 4,
	.fast_io = true,
	.disable_locking = true,	/* the socpmu lock serialises access */
};

/**
 * socpmu_parent_regmap() - a regmap the parent device provides, if usable
 * @dev: the device
 * @name: the regmap's name (NULL: the parent's default regmap)
 *
 * perf calls the drivers with interrupts off (pmu::add/del/read, the poll
 * hrtimer in hard-IRQ context), so a regmap that may sleep (a mutex-locked
 * or slow-bus map) cannot serve them: it is refused with a probe error.
 *
 * Return: the regmap, NULL if the parent has none, or ERR_PTR(-EINVAL).
 */
struct regmap *socpmu_parent_regmap(struct device *dev, const char *name)
{
	struct regmap *map;

	if (!dev->parent)
		return NULL;
	map = dev_get_regmap(dev->parent, name);
	if (map && regmap_might_sleep(map)) {
		dev_err(dev, "the parent's %s regmap may sleep: perf accesses counters with interrupts off\n",
			name ?: "default");
		return ERR_PTR(-EINVAL);
	}
	return map;
}
EXPORT_SYMBOL_GPL(socpmu_parent_regmap);

/**
 * socpmu_get_regmap() - the registers of a socpmu device
 * @pdev: the device
 * @size: bytes of register space the driver uses from the start of its block
 *
 * A parent that provides a regmap (MFD style: the simulator, a bridge) wins,
 * unless it may sleep (socpmu_parent_regmap()); otherwise the device's first
 * MMIO resource is mapped, and must cover @size.
 *
 * Return: the regmap or an ERR_PTR().
 */
struct regmap *socpmu_get_regmap(struct platform_device *pdev, resource_size_t size)
{
	struct regmap_config cfg = socpmu_mmio_config;
	struct resource *res;
	struct regmap *map;
	void __iomem *base;

	map = socpmu_parent_regmap(&pdev->dev, NULL);
	if (map)
		return map;
	base = devm_platform_get_and_ioremap_resource(pdev, 0, &res);
	if (IS_ERR(base))
		return ERR_CAST(base);
	if (resource_size(res) < size) {
		dev_err(&pdev->dev, "reg %pR is smaller than the %pa bytes needed\n", res, &size);
		return ERR_PTR(-EINVAL);
	}
	cfg.max_register = size - 4;
	return devm_regmap_init_mmio(&pdev->dev, base, &cfg);
}
EXPORT_SYMBOL_GPL(socpmu_get_regmap);

/**
 * socpmu_platform_remove() - platform driver remove for socpmu drivers
 * @pdev: the device, whose drvdata is the struct socpmu
 */
void socpmu_platform_remove(struct platform_device *pdev)
{
	socpmu_unregister(platform_get_drvdata(pdev));
}
EXPORT_SYMBOL_GPL(socpmu_platform_remove);

/**
 * socpmu_lost() - the hardware stopped answering: the PMU is dead
 * @sp: the PMU, locked (from a socpmu_ops callback)
 * @why: what happened, for the log
 *
 * For a driver whose read of the hardware fails (a PCIe card being reset,
 * or off the bus: reads return all ones). The PMU goes dead as if its
 * device had been removed: the values of the failed read, and of every
 * later one, are never folded into a count; the events keep the counts of
 * their last good read, stay readable and can be closed; the core calls
 * the driver no more, the poll stops, and new events fail with ENODEV.
 * That lasts until the device is removed: hardware that answers again
 * (after a reset, counters zeroed) gets a new PMU when its device is bound
 * again. Logged once. The driver should return from its callback at once.
 */
void socpmu_lost(struct socpmu *sp, const char *why)
{
	lockdep_assert_held(&sp->lock);
	if (sp->dead)
		return;
	/* Pairs with the READ_ONCE() in socpmu_event_init() */
	WRITE_ONCE(sp->dead, true);
	dev_warn(sp->dev, "%s: %s: counts frozen at their last good read, no new events\n",
		 sp->name, why);
}
EXPORT_SYMBOL_GPL(socpmu_lost);

/*
 * Fold the counters' progress since the last read into the 64-bit count,
 * unless the hardware stopped answering, before or during the read.
 */
static void socpmu_event_update(struct socpmu *sp, struct perf_event *event)
{
	struct socpmu_hw_event *se = socpmu_hw(event);
	u64 delta = 0;
	unsigned int i;

	lockdep_assert_held(&sp->lock);
	if (sp->dead)
		return;
	sp->ops->read(sp, event, sp->vals);
	/* socpmu_lost() in the read: its values are not counts */
	if (sp->dead)
		return;
	for (i = 0; i < se->nr; i++) {
		delta += (sp->vals[i] - se->prev[i]) & se->mask;
		se->prev[i] = sp->vals[i];
	}
	local64_add(delta, &event->count);
}

/* Bring every counting event up to date, e.g. before a counter can wrap. */
static void socpmu_update_active(struct socpmu *sp)
{
	struct socpmu_hw_event *se;

	list_for_each_entry(se, &sp->active, node)
		if (!(socpmu_event_of(se)->hw.state & PERF_HES_STOPPED))
			socpmu_event_update(sp, socpmu_event_of(se));
}

/**
 * socpmu_restart() - restart counters that a start zeroes, losing nothing
 * @sp: the PMU, locked (from socpmu_ops::read_end)
 * @restart: the driver's function that starts the counters it stopped in
 *	the window, which zeroes them
 * @zeroed: whether @restart will zero counter @i of @event
 *
 * For hardware whose counters cannot resume where they stopped: the count
 * of every scheduled event with a counter that @restart will zero is first
 * brought up to date (from the stopped counters' frozen values), the last
 * values of those counters become 0, and @restart runs, so each event goes
 * on from its count as it was. The other events are not read: the stopped
 * counters wait for this pass, and on hardware behind slow accesses (a
 * card's tiles through NOC windows) reading every event would keep them
 * stopped for milliseconds, counted as running.
 */
void socpmu_restart(struct socpmu *sp, void (*restart)(struct socpmu *sp),
		    bool (*zeroed)(struct socpmu *sp, struct perf_event *event,
				   unsigned int i))
{
	struct socpmu_hw_event *se;
	struct perf_event *event;
	bool banked;
	unsigned int i;

	lockdep_assert_held(&sp->lock);
	list_for_each_entry(se, &sp->active, node) {
		event = socpmu_event_of(se);
		banked = false;
		for (i = 0; i < se->nr; i++) {
			if (!zeroed(sp, event, i))
				continue;
			/* at its first zeroed counter, before any last value is 0 */
			if (!banked && !(event->hw.state & PERF_HES_STOPPED))
				socpmu_event_update(sp, event);
			banked = true;
			se->prev[i] = 0;
		}
	}
	/* Nothing touches hardware that stopped answering (socpmu_lost()) */
	if (!sp->dead)
		restart(sp);
}
EXPORT_SYMBOL_GPL(socpmu_restart);

/**
 * socpmu_rearm() - counters were zeroed behind the driver's back: go on from 0
 * @sp: the PMU, locked (from a socpmu_ops callback)
 * @rearm: the driver's function that sets its counters up again and starts
 *	them, which zeroes them
 *
 * For hardware that was reset (a PCIe card reset by its driver) while
 * events counted: what the counters show now continues nothing, so no
 * event is read; every scheduled event keeps its count, the last value of
 * each of its counters becomes 0 and @rearm runs, so the events go on from
 * there. What was counted between the last read and the reset is lost.
 */
void socpmu_rearm(struct socpmu *sp, void (*rearm)(struct socpmu *sp))
{
	struct socpmu_hw_event *se;
	unsigned int i;

	lockdep_assert_held(&sp->lock);
	list_for_each_entry(se, &sp->active, node)
		for (i = 0; i < se->nr; i++)
			se->prev[i] = 0;
	if (!sp->dead)
		rearm(sp);
}
EXPORT_SYMBOL_GPL(socpmu_rearm);

/*
 * The period until the next poll after one that took @cost ns: the
 * configured one, or SOCPMU_POLL_DUTY times @cost if that is longer (many
 * events behind slow accesses, e.g. a card's 140 tiles read through NOC
 * windows), but never longer than poll_max_ns, which no counter wrap
 * outruns.
 */
static u64 socpmu_poll_next_ns(const struct socpmu *sp, u64 cost)
{
	u64 busy = min(cost * SOCPMU_POLL_DUTY, sp->poll_max_ns);

	return max(READ_ONCE(sp->poll_ns), busy);
}

/*
 * The poll must not tear a group: perf reads a group's members and adds
 * their counts up under the events' context lock, so the poll takes that
 * lock too (perf's order: ctx->lock, then ours) and reads every event from
 * one snapshot where the driver has them.
 */
static enum hrtimer_restart socpmu_poll(struct hrtimer *timer)
{
	struct socpmu *sp = container_of(timer, struct socpmu, timer);
	struct perf_event_context *ctx = NULL;
	struct socpmu_hw_event *se;
	unsigned long flags;
	u64 start = 0;
	bool restart;

	raw_spin_lock_irqsave(&sp->lock, flags);
	se = list_first_entry_or_null(&sp->active, struct socpmu_hw_event, node);
	if (se)
		ctx = socpmu_event_of(se)->ctx;	/* a CPU context: never freed */
	raw_spin_unlock_irqrestore(&sp->lock, flags);
	/* Nothing to poll: the next first add starts the timer again */
	if (!ctx)
		return HRTIMER_NORESTART;

	raw_spin_lock_irqsave(&ctx->lock, flags);
	raw_spin_lock(&sp->lock);
	/* The last event may have gone while we waited for the context */
	restart = !sp->dead && !list_empty(&sp->active);
	if (restart) {
		start = ktime_get_ns();
		if (sp->ops->read_begin && !sp->txn_read)
			sp->ops->read_begin(sp, SOCPMU_POLL);
		socpmu_update_active(sp);
		if (sp->ops->read_end && !sp->txn_read && !sp->dead)
			sp->ops->read_end(sp);
		/* The hardware stopped answering (socpmu_lost()): no more polls */
		restart = !sp->dead;
	}
	/*
	 * Under the lock, against socpmu_add(): a first add that came in the
	 * meantime has queued the timer again already.
	 */
	if (restart && hrtimer_is_queued(timer))
		restart = false;
	if (restart)
		hrtimer_forward_now(timer,
				    ns_to_ktime(socpmu_poll_next_ns(sp, ktime_get_ns() - start)));
	raw_spin_unlock(&sp->lock);
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
	return restart ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/*
 * Events of other PMUs in ours. perf puts a software event that joins a
 * group led by one of our events into our PMU's context (and moves a
 * software group there when one of our events joins it), and they stay
 * there when our events are closed. Until they are closed too, the PMU's
 * contexts must not be freed nor the driver module unloaded: when the last
 * of our events leaves a context that still holds such events, the PMU
 * pins the driver module until its per-CPU contexts are all idle. A task
 * context cannot be watched from here (it, and our part of it, live as
 * long as the events in it, after the task too): that pin lasts until
 * reboot, see socpmu_pin_if_shared().
 */
#define SOCPMU_IDLE_POLL	(HZ / 10)

/* Is any of the PMU's per-CPU perf contexts in use? */
static bool socpmu_ctx_busy(struct pmu *pmu)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(pmu->cpu_pmu_context, cpu)->epc.ctx))
			return true;
	return false;
}

static void socpmu_pin_work(struct work_struct *work)
{
	struct socpmu_pin *pin = container_of(to_delayed_work(work), struct socpmu_pin, work);
	struct module *mod = pin->pmu->module;
	bool busy;

	mutex_lock(&pin->lock);
	busy = pin->forever || socpmu_ctx_busy(pin->pmu);
	if (busy && !pin->forever)
		schedule_delayed_work(&pin->work, SOCPMU_IDLE_POLL);
	if (!busy)
		pin->pinned = false;
	mutex_unlock(&pin->lock);
	if (!busy)
		module_put(mod);
}

/**
 * socpmu_pin_init() - prepare the pin of a PMU
 * @pin: the pin
 * @pmu: the PMU, registered after this (its ->module set by then)
 */
static void socpmu_pin_init(struct socpmu_pin *pin, struct pmu *pmu)
{
	pin->pmu = pmu;
	pin->pinned = false;
	pin->forever = false;
	mutex_init(&pin->lock);
	INIT_DELAYED_WORK(&pin->work, socpmu_pin_work);
}

/**
 * socpmu_pin_if_shared() - hold the driver module for what @event leaves
 * @pin: the pin of @event's PMU
 * @event: an event of the PMU, in its ->destroy (it still holds a
 *	reference on the module)
 *
 * When @event leaves events of other PMUs (software events) behind in the
 * PMU's part of its perf context and none of the PMU's own, the driver
 * module is pinned: until every per-CPU context of the PMU is idle, or, for
 * a task context, for good (the module can no longer be unloaded; said in
 * the log). May sleep.
 */
static void socpmu_pin_if_shared(struct socpmu_pin *pin, struct perf_event *event)
{
	struct perf_event_pmu_context *epc = event->pmu_ctx;
	struct perf_event_context *ctx = event->ctx;
	bool own = false, other = false;
	struct perf_event *e;
	unsigned long flags;

	if (!epc || !ctx)
		return;		/* never installed */
	raw_spin_lock_irqsave(&ctx->lock, flags);
	list_for_each_entry(e, &ctx->event_list, event_entry) {
		if (e == event || e->pmu_ctx != epc)
			continue;
		if (e->pmu == event->pmu)
			own = true;
		else
			other = true;
	}
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
	if (own || !other)
		return;

	mutex_lock(&pin->lock);
	if (ctx->task && !pin->forever) {
		pin->forever = true;
		pr_info("%s: software events outlive its events in a task context: module %s pinned until reboot\n",
			event->pmu->name, module_name(event->pmu->module));
	}
	if (!pin->pinned) {
		__module_get(event->pmu->module);
		pin->pinned = true;
		if (!pin->forever)
			schedule_delayed_work(&pin->work, SOCPMU_IDLE_POLL);
	}
	mutex_unlock(&pin->lock);
}

/**
 * socpmu_pinned() - is the driver module pinned for this PMU?
 * @pin: the pin
 *
 * Return: true while socpmu_pin_if_shared() holds the module.
 */
static bool socpmu_pinned(struct socpmu_pin *pin)
{
	bool pinned;

	mutex_lock(&pin->lock);
	pinned = pin->pinned;
	mutex_unlock(&pin->lock);
	return pinned;
}

/**
 * socpmu_pin_exit() - before the PMU is freed: wait for the pin's work
 * @pin: the pin, no longer pinned (the module it holds is going)
 */
static void socpmu_pin_exit(struct socpmu_pin *pin)
{
	cancel_delayed_work_sync(&pin->work);
}

/**
 * socpmu_life_init() - prepare the lifetime of a PMU, before it is registered
 * @life: the lifetime, in the driver's PMU state
 * @pmu: the perf PMU (its ->module set before socpmu_life_add())
 * @dev: the device, whose "socpmu,test-destroy-delay-us" property (the
 *	simulator's destroy_delay_us=) makes each ->destroy sleep that long
 *	and a freed PMU be poisoned first, for the removal tests
 * @release: unregisters the PMU from perf and frees it; called once perf
 *	holds nothing of it, with the core's list lock held
 */
void socpmu_life_init(struct socpmu_life *life, struct pmu *pmu, struct device *dev,
		      void (*release)(struct socpmu_life *life))
{
	life->pmu = pmu;
	life->release = release;
	atomic_set(&life->nr_events, 0);
	life->had_events = false;
	life->destroy_delay_us = 0;
	device_property_read_u32(dev, "socpmu,test-destroy-delay-us", &life->destroy_delay_us);
	life->destroy_delay_us = min(life->destroy_delay_us, 100000U);
	INIT_LIST_HEAD(&life->node);
	INIT_LIST_HEAD(&life->zombie);
	socpmu_pin_init(&life->pin, pmu);
}
EXPORT_SYMBOL_GPL(socpmu_life_init);

/**
 * socpmu_life_add() - the PMU is registered: count it in
 * @life: the lifetime
 */
void socpmu_life_add(struct socpmu_life *life)
{
	mutex_lock(&socpmu_list_lock);
	list_add_tail(&life->node, &socpmu_list);
	mutex_unlock(&socpmu_list_lock);
}
EXPORT_SYMBOL_GPL(socpmu_life_add);

/**
 * socpmu_life_get() - an event is being initialised
 * @life: the lifetime of its PMU
 *
 * Call first in ->event_init, then look at whether the device is gone
 * (the barrier pairs with the one in socpmu_life_remove()'s caller, which
 * marks the PMU dead before it counts the events). Every successful
 * ->event_init is matched by socpmu_life_put() in ->destroy, a failed one
 * by socpmu_life_put(@life, NULL).
 */
void socpmu_life_get(struct socpmu_life *life)
{
	socpmu_nr_events_add(life, 1);
}
EXPORT_SYMBOL_GPL(socpmu_life_get);

/**
 * socpmu_life_put() - an event goes
 * @life: the lifetime of its PMU
 * @event: the event, in its ->destroy; NULL when its ->event_init fails
 *
 * May sleep.
 */
void socpmu_life_put(struct socpmu_life *life, struct perf_event *event)
{
	unsigned int delay_us = life->destroy_delay_us;

	if (!event) {
		socpmu_nr_events_add(life, -1);
		return;
	}
	WRITE_ONCE(life->had_events, true);
	socpmu_pin_if_shared(&life->pin, event);
	/* Pinned before the count drops: pairs with the barrier in socpmu_in_use() */
	socpmu_nr_events_add(life, -1);
	/*
	 * From here on the PMU may be a zombie that the reaper looks at; perf
	 * still uses it (put_pmu_ctx(), module_put()) after ->destroy
	 * returns, which socpmu_safe_to_free() waits for. The fault-injection
	 * delay widens that window for the tests; ->destroy may sleep (perf
	 * calls it where it takes mutexes, and so does socpmu_pin_if_shared()).
	 * An hrtimer sleep, not msleep(): the tests check the window's length
	 * on CLOCK_MONOTONIC, and a guest whose tick ran fast against its
	 * clocksource under a loaded host once let 16 jiffies pass in 30 ms.
	 */
	if (delay_us)
		usleep_range(delay_us, delay_us + delay_us / 8);
}
EXPORT_SYMBOL_GPL(socpmu_life_put);

static void socpmu_event_destroy(struct perf_event *event)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	struct socpmu_hw_event *se = socpmu_hw(event);

	if (se->prev != se->inline_prev)
		kfree(se->prev);
	if (sp->ops->destroy)
		sp->ops->destroy(sp, event);
	socpmu_life_put(&sp->life, event);
}

/**
 * socpmu_group_is_valid() - can @event's group ever count as a whole?
 * @sp: the PMU
 * @event: the event being created, not yet linked into its group
 *
 * A group may hold software events and events of this PMU only, and every
 * pair of this PMU's members must be able to count at once.
 *
 * Return: true when the group is acceptable.
 */
static bool socpmu_group_is_valid(struct socpmu *sp, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;
	struct perf_event *sibling;

	if (leader == event)
		return true;
	if (leader->pmu != event->pmu && !is_software_event(leader)) {
		socpmu_refuse(sp, "group leader belongs to another PMU");
		return false;
	}
	if (leader->pmu == event->pmu && sp->ops->compatible &&
	    !sp->ops->compatible(sp, leader, event))
		goto conflict;
	for_each_sibling_event(sibling, leader) {
		if (sibling->pmu != event->pmu) {
			if (is_software_event(sibling))
				continue;
			socpmu_refuse(sp, "group mixes PMUs");
			return false;
		}
		if (sp->ops->compatible && !sp->ops->compatible(sp, sibling, event))
			goto conflict;
	}
	return true;

conflict:
	socpmu_refuse(sp, "group members cannot count at the same time");
	return false;
}

/*
 * The scratch for reading an event's counters is the PMU's, sized to its
 * largest event: reads happen under the PMU's lock only.
 */
static int socpmu_grow_vals(struct socpmu *sp, unsigned int nr)
{
	unsigned long flags;
	u64 *vals;

	if (nr <= READ_ONCE(sp->nr_vals))
		return 0;
	vals = kcalloc(nr, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	raw_spin_lock_irqsave(&sp->lock, flags);
	if (nr > sp->nr_vals) {
		swap(vals, sp->vals);
		WRITE_ONCE(sp->nr_vals, nr);
	}
	raw_spin_unlock_irqrestore(&sp->lock, flags);
	kfree(vals);
	return 0;
}

static int socpmu_event_init(struct perf_event *event)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	struct socpmu_hw_event *se = socpmu_hw(event);
	unsigned int nr = 1, width = 32;
	int ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* No socpmu PMU has config3 fields: refuse what would be ignored */
	if (event->attr.config3) {
		socpmu_refuse(sp, "config3 is reserved");
		return -EINVAL;
	}
	/*
	 * Sampling is refused before anything else, as arm-cmn does (the
	 * core's PERF_PMU_CAP_NO_EXCLUDE check comes after event_init too).
	 * perf 6.12's tool answers EOPNOTSUPP by setting exclude_guest and
	 * EINVAL for exclude_guest by clearing it again: were exclude_guest
	 * looked at first, `perf record` would go back and forth for ever.
	 */
	if (is_sampling_event(event)) {
		socpmu_refuse(sp, "counting only, no sampling (perf stat, not perf record)");
		return -EOPNOTSUPP;
	}
	/*
	 * What PERF_PMU_CAP_NO_EXCLUDE would refuse, with a reason. perf's
	 * tool tries exclude_guest first and drops it when refused: that
	 * probe is not worth a log line.
	 */
	if (event->attr.exclude_guest || event->attr.exclude_host)
		return -EINVAL;
	if (event_has_any_exclude_flag(event)) {
		socpmu_refuse(sp, "counts every privilege level: no :u/:k/:h or exclude_* modifiers");
		return -EINVAL;
	}
	if (event->cpu < 0 || (event->attach_state & PERF_ATTACH_TASK)) {
		socpmu_refuse(sp, "system-wide PMU, per-task events not supported");
		return -EINVAL;
	}
	/* Every event in the one context of the PMU's CPU (see the top) */
	event->cpu = READ_ONCE(sp->cpu);
	/*
	 * The registers are the device's, not a CPU's (pulp_pmu's own-CSR
	 * backend exists on uniprocessor kernels only): a read on another CPU
	 * reads them there instead of sending an IPI to the PMU's CPU, under
	 * the same context lock, which the poll takes too.
	 */
	event->event_caps |= PERF_EV_CAP_READ_ACTIVE_PKG;

	/* Pairs with the barrier in socpmu_unregister() */
	socpmu_life_get(&sp->life);
	if (READ_ONCE(sp->dead)) {
		ret = -ENODEV;
		goto err;
	}

	ret = sp->ops->event_init(sp, event, &nr, &width);
	if (ret)
		goto err;
	if (!socpmu_group_is_valid(sp, event)) {
		ret = -EINVAL;
		goto err_destroy;
	}

	ret = socpmu_grow_vals(sp, nr);
	if (ret)
		goto err_destroy;
	se->prev = se->inline_prev;
	if (nr > ARRAY_SIZE(se->inline_prev)) {
		se->prev = kcalloc(nr, sizeof(*se->prev), GFP_KERNEL);
		if (!se->prev) {
			ret = -ENOMEM;
			goto err_destroy;
		}
	}
	INIT_LIST_HEAD(&se->node);
	se->nr = nr;
	se->mask = GENMASK_ULL(width - 1, 0);
	event->destroy = socpmu_event_destroy;
	return 0;

err_destroy:
	if (sp->ops->destroy)
		sp->ops->destroy(sp, event);
err:
	socpmu_life_put(&sp->life, NULL);
	return ret;
}

static void socpmu_start(struct perf_event *event, int flags)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	struct socpmu_hw_event *se = socpmu_hw(event);
	unsigned long irqflags;

	raw_spin_lock_irqsave(&sp->lock, irqflags);
	if (!sp->dead)
		sp->ops->read(sp, event, se->prev);
	/* Not if that read found the hardware gone: stopped, frozen */
	if (!sp->dead)
		event->hw.state = 0;
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
}

static void socpmu_stop(struct perf_event *event, int flags)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	raw_spin_lock_irqsave(&sp->lock, irqflags);
	if (!sp->dead)
		socpmu_event_update(sp, event);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
}

static int socpmu_add(struct perf_event *event, int flags)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	struct socpmu_hw_event *se = socpmu_hw(event);
	unsigned long irqflags;
	bool first;
	int ret;

	raw_spin_lock_irqsave(&sp->lock, irqflags);
	/*
	 * A removed device's events are frozen, not refused: perf schedules
	 * them in again (rotation, CPU hotplug, an enable, a group that grows),
	 * and a refused pinned event would read as EOF, a flexible one scale
	 * its count up with time enabled but not running. In, stopped, it
	 * stays readable with the count it had.
	 */
	if (sp->dead) {
		event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		raw_spin_unlock_irqrestore(&sp->lock, irqflags);
		return 0;
	}
	ret = sp->ops->add(sp, event);
	if (ret)
		goto out;
	first = list_empty(&sp->active);
	list_add_tail(&se->node, &sp->active);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (first)
		hrtimer_start(&sp->timer, ns_to_ktime(READ_ONCE(sp->poll_ns)),
			      HRTIMER_MODE_REL_PINNED_HARD);
out:
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
	if (!ret && (flags & PERF_EF_START))
		socpmu_start(event, flags);
	return ret;
}

static void socpmu_del(struct perf_event *event, int flags)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	struct socpmu_hw_event *se = socpmu_hw(event);
	unsigned long irqflags;

	socpmu_stop(event, PERF_EF_UPDATE);
	raw_spin_lock_irqsave(&sp->lock, irqflags);
	list_del_init(&se->node);
	if (!sp->dead)
		sp->ops->del(sp, event);
	/*
	 * Stop polling with the last event. Under the lock, so that an add on
	 * another CPU cannot start the timer in between; a poll already running
	 * elsewhere finds nothing active and does not rearm.
	 */
	if (list_empty(&sp->active))
		hrtimer_try_to_cancel(&sp->timer);
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
}

/*
 * From NMI (a BPF program of a hardware event calling
 * bpf_perf_event_read_value() on the PMU's CPU) the count is left as the
 * last update made it, at most one poll period old: the interrupted code
 * may hold our lock, or a lock of the bus behind the registers (a card's
 * window), and NMI code must not wait for either.
 */
static void socpmu_read(struct perf_event *event)
{
	struct socpmu *sp = to_socpmu(event->pmu);
	unsigned long irqflags;

	if ((event->hw.state & PERF_HES_STOPPED) || in_nmi())
		return;
	raw_spin_lock_irqsave(&sp->lock, irqflags);
	if (!sp->dead)
		socpmu_event_update(sp, event);
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
}

/*
 * Groups: perf adds a group's members, and reads them, between start_txn
 * and commit_txn (or cancel_txn), with interrupts off. Drivers with
 * read_begin/read_end snapshot the hardware once for the whole transaction,
 * so that the members start from, and are read at, the same instant.
 */
static void socpmu_begin(struct socpmu *sp, enum socpmu_window why)
{
	unsigned long irqflags;

	raw_spin_lock_irqsave(&sp->lock, irqflags);
	if (!sp->dead && !sp->txn_read++)
		sp->ops->read_begin(sp, why);
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
}

static void socpmu_start_txn(struct pmu *pmu, unsigned int flags)
{
	socpmu_begin(to_socpmu(pmu), flags & PERF_PMU_TXN_ADD ? SOCPMU_TXN_ADD :
				     SOCPMU_TXN_READ);
}

static void socpmu_end_txn(struct socpmu *sp)
{
	unsigned long irqflags;

	raw_spin_lock_irqsave(&sp->lock, irqflags);
	if (sp->txn_read && !--sp->txn_read && !sp->dead)
		sp->ops->read_end(sp);
	raw_spin_unlock_irqrestore(&sp->lock, irqflags);
}

static int socpmu_commit_txn(struct pmu *pmu)
{
	socpmu_end_txn(to_socpmu(pmu));
	return 0;
}

static void socpmu_cancel_txn(struct pmu *pmu)
{
	socpmu_end_txn(to_socpmu(pmu));
}

/*
 * perf disables the PMU around scheduling its events out and in (a group
 * is scheduled out member by member, and every group of the context is
 * rescheduled when an event is installed) and around adding or removing a
 * single event. Drivers with read_begin/read_end hold their snapshot over
 * that whole window, like a transaction: every member is banked and
 * restarted from the same instant, so nothing a group counts moves against
 * the rest of the group, and nothing is lost between schedule-out and -in.
 */
static void socpmu_pmu_disable(struct pmu *pmu)
{
	socpmu_begin(to_socpmu(pmu), SOCPMU_DISABLED);
}

static void socpmu_pmu_enable(struct pmu *pmu)
{
	socpmu_end_txn(to_socpmu(pmu));
}

static ssize_t poll_interval_us_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct socpmu *sp = to_socpmu(dev_get_drvdata(dev));

	return sysfs_emit(buf, "%llu\n", div_u64(READ_ONCE(sp->poll_ns),
						 NSEC_PER_USEC));
}

static ssize_t poll_interval_us_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct socpmu *sp = to_socpmu(dev_get_drvdata(dev));
	u64 us;
	int ret;

	ret = kstrtou64(buf, 0, &us);
	if (ret)
		return ret;
	/* Longer than a quarter of the fastest wrap would lose counts */
	if (us > div_u64(sp->poll_max_ns, NSEC_PER_USEC) ||
	    us < div_u64(SOCPMU_POLL_MIN_NS, NSEC_PER_USEC)) {
		socpmu_refuse(sp, "poll interval must be %lu..%llu us (a quarter of the fastest counter wrap)",
			      SOCPMU_POLL_MIN_NS / NSEC_PER_USEC,
			      div_u64(sp->poll_max_ns, NSEC_PER_USEC));
		return -EINVAL;
	}
	/* Takes effect at the next expiry */
	WRITE_ONCE(sp->poll_ns, us * NSEC_PER_USEC);
	return count;
}
static DEVICE_ATTR_RW(poll_interval_us);

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct socpmu *sp = to_socpmu(dev_get_drvdata(dev));

	return cpumap_print_to_pagebuf(true, buf, cpumask_of(READ_ONCE(sp->cpu)));
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *socpmu_core_attrs[] = {
	&dev_attr_poll_interval_us.attr,
	&dev_attr_cpumask.attr,
	NULL,
};

const struct attribute_group socpmu_core_attr_group = {
	.attrs = socpmu_core_attrs,
};
EXPORT_SYMBOL_GPL(socpmu_core_attr_group);

/**
 * socpmu_sysfs_show_string() - show the string of a dev_ext_attribute
 * @dev: the PMU device
 * @attr: embedded in a struct dev_ext_attribute whose var is a string
 * @buf: output
 *
 * Return: bytes written.
 */
ssize_t socpmu_sysfs_show_string(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);

	return sysfs_emit(buf, "%s\n", (const char *)ea->var);
}
EXPORT_SYMBOL_GPL(socpmu_sysfs_show_string);

static void socpmu_release(struct socpmu_life *life);

static void socpmu_reap_locked(void);

/*
 * Is @name a registered socpmu PMU's? A removed one that perf has let go of
 * is freed first; one still waiting for its events keeps its name.
 */
static bool socpmu_name_taken(const char *name)
{
	struct socpmu_life *life;
	bool taken = false;

	mutex_lock(&socpmu_list_lock);
	socpmu_reap_locked();
	list_for_each_entry(life, &socpmu_list, node)
		taken |= !strcmp(life->pmu->name, name);
	mutex_unlock(&socpmu_list_lock);
	return taken;
}

/**
 * socpmu_register() - register a PMU instance named <prefix>_<n>
 * @sp: PMU state from socpmu_alloc(), with poll_ns set by the driver, and
 *	optionally its name (kept instead of <prefix>_<n>; -EBUSY while a PMU
 *	of that name is registered) and sysfs parent
 * @dev: the device providing the hardware
 * @ops: driver callbacks
 * @ida: the driver's IDA for instance numbers
 * @prefix: name prefix, e.g. "tensix"
 * @groups: sysfs attribute groups (format, events, ...), NULL terminated
 *
 * On failure the caller still owns @sp and frees it with kfree().
 *
 * Return: 0 or a negative errno.
 */
int socpmu_register(struct socpmu *sp, struct device *dev,
		    const struct socpmu_ops *ops, struct ida *ida,
		    const char *prefix, const struct attribute_group **groups)
{
	int ret;

	if (!ops->event_init || !ops->add || !ops->del || !ops->read ||
	    !ops->read_begin != !ops->read_end)
		return -EINVAL;
	if (!sp->poll_ns) {
		dev_err(dev, "counters wrap in under %lu us: the poll timer cannot keep them exact\n",
			4 * SOCPMU_POLL_MIN_NS / NSEC_PER_USEC);
		return -EINVAL;
	}

	if (sp->name[0] && socpmu_name_taken(sp->name)) {
		dev_err(dev, "%s: a PMU of that name is still registered (events of a previous instance open?)\n",
			sp->name);
		return -EBUSY;
	}
	sp->id = ida_alloc(ida, GFP_KERNEL);
	if (sp->id < 0)
		return sp->id;
	sp->ida = ida;
	if (!sp->name[0])
		snprintf(sp->name, sizeof(sp->name), "%s_%d", prefix, sp->id);
	sp->dev = dev;
	sp->ops = ops;
	raw_spin_lock_init(&sp->lock);
	ratelimit_state_init(&sp->refuse_rs, 5 * HZ, 10);
	ratelimit_set_flags(&sp->refuse_rs, RATELIMIT_MSG_ON_RELEASE);
	INIT_LIST_HEAD(&sp->active);
	hrtimer_init(&sp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	sp->timer.function = socpmu_poll;
	/* The driver's default is the longest period that loses nothing */
	sp->poll_max_ns = sp->poll_ns;

	sp->pmu = (struct pmu) {
		.module		= dev->driver ? dev->driver->owner : THIS_MODULE,
		.attr_groups	= groups,
		.parent		= sp->parent,
		.task_ctx_nr	= perf_invalid_context,
		.event_init	= socpmu_event_init,
		.add		= socpmu_add,
		.del		= socpmu_del,
		.start		= socpmu_start,
		.stop		= socpmu_stop,
		.read		= socpmu_read,
		.hrtimer_interval_ms = ops->mux_interval_ms,
	};
	if (ops->read_begin) {
		sp->pmu.start_txn = socpmu_start_txn;
		sp->pmu.commit_txn = socpmu_commit_txn;
		sp->pmu.cancel_txn = socpmu_cancel_txn;
		sp->pmu.pmu_disable = socpmu_pmu_disable;
		sp->pmu.pmu_enable = socpmu_pmu_enable;
	}

	/*
	 * The CPU, and its hotplug instance, before perf can hand out events.
	 * The instance sees every offline from its addition on; one that came
	 * in between is caught by looking again with hotplug held off.
	 */
	sp->cpu = cpumask_first(cpu_online_mask);
	ret = cpuhp_state_add_instance_nocalls(socpmu_cpuhp_state, &sp->cpuhp_node);
	if (ret)
		goto err_ida;
	cpus_read_lock();
	if (!cpu_online(sp->cpu))
		sp->cpu = cpumask_first(cpu_online_mask);
	cpus_read_unlock();
	socpmu_life_init(&sp->life, &sp->pmu, dev, socpmu_release);

	ret = perf_pmu_register(&sp->pmu, sp->name, -1);
	if (ret)
		goto err_cpuhp;
	socpmu_life_add(&sp->life);
	return 0;

err_cpuhp:
	cpuhp_state_remove_instance_nocalls(socpmu_cpuhp_state, &sp->cpuhp_node);
err_ida:
	ida_free(ida, sp->id);
	return ret;
}
EXPORT_SYMBOL_GPL(socpmu_register);

/*
 * The PMU's CPU goes offline: move its events to another online CPU, as the
 * perf core does for scoped PMUs. Runs with the CPU still up and hotplug
 * locked, so sp->cpu changes only here and at registration.
 */
static int socpmu_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct socpmu *sp = hlist_entry_safe(node, struct socpmu, cpuhp_node);
	unsigned int target;

	if (cpu != sp->cpu)
		return 0;
	target = cpumask_any_but(cpu_online_mask, cpu);
	if (target >= nr_cpu_ids)
		return 0;
	perf_pmu_migrate_context(&sp->pmu, cpu, target);
	WRITE_ONCE(sp->cpu, target);
	return 0;
}

/* The release of a socpmu PMU: unregister and free it (socpmu_list_lock held) */
static void socpmu_release(struct socpmu_life *life)
{
	struct socpmu *sp = container_of(life, struct socpmu, life);
	int cpu;

	/*
	 * perf_pmu_unregister() (6.12) frees the per-CPU PMU contexts without
	 * stopping their multiplexing hrtimers. One still queued after the last
	 * rotation would fire in freed memory. No event is left, so nothing can
	 * arm them again: stop them first.
	 */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(sp->pmu.cpu_pmu_context, cpu)->hrtimer);
	cpuhp_state_remove_instance_nocalls(socpmu_cpuhp_state, &sp->cpuhp_node);
	perf_pmu_unregister(&sp->pmu);
	ida_free(sp->ida, sp->id);
	kfree(sp->vals);
	/* Under fault injection, a use of the freed PMU (pmu.module...) faults */
	if (life->destroy_delay_us)
		memset(sp, POISON_FREE, sizeof(*sp));
	kfree(sp);
}

/* Free a dead PMU that perf has let go of; socpmu_list_lock held */
static void socpmu_life_free(struct socpmu_life *life)
{
	lockdep_assert_held(&socpmu_list_lock);
	list_del(&life->node);
	/* Unpinned, but the pin's work may still be on its way out */
	socpmu_pin_exit(&life->pin);
	life->release(life);
}

static bool socpmu_in_use(struct socpmu_life *life)
{
	/* Pairs with the barriers in socpmu_life_get() and socpmu_life_put() */
	smp_mb();
	if (atomic_read(&life->nr_events))
		return true;
	smp_rmb();	/* the pin of the last event, set before its count dropped */
	return socpmu_pinned(&life->pin);
}

/**
 * socpmu_safe_to_free() - has perf let go of a dead PMU entirely?
 * @life: a dead PMU without events (not in use)
 *
 * perf goes on using a PMU after an event's ->destroy: __free_event() then
 * puts the event's PMU context (in the PMU's per-CPU contexts) and the
 * reference the event holds on pmu->module. Every event of a driver's PMUs
 * holds one module reference from before ->event_init() to after that, and
 * is counted in its PMU's nr_events from ->event_init() to ->destroy(); a
 * pin holds one too (socpmu_pin_if_shared()). So when the driver module's
 * reference count equals the sum of the nr_events and pins of its PMUs,
 * read while no nr_events changed, no event of them is between ->destroy()
 * and its last module_put(), and perf holds nothing of @sp. Anything in
 * flight can only make the count higher: the PMU then waits for the reaper.
 * A built-in driver has no module count to go by: a PMU that ever had an
 * event is kept (until the driver module's exit; for ever if built in).
 *
 * Called with socpmu_list_lock held. Return: true when @sp can be freed.
 */
static bool socpmu_safe_to_free(struct socpmu_life *life)
{
	struct module *mod = life->pmu->module;
	struct socpmu_life *p;
	unsigned int ended;
	long sum = 0;
	int refs;

	lockdep_assert_held(&socpmu_list_lock);
	if (!READ_ONCE(life->had_events))
		return true;
	/* No count of our own: the core's counts its dependent modules too */
	if (!mod || mod == THIS_MODULE)
		return false;
	ended = atomic_read(&socpmu_changes_ended);
	smp_rmb();	/* the counts after the changes that ended */
	list_for_each_entry(p, &socpmu_list, node)
		if (p->pmu->module == mod)
			sum += atomic_read(&p->nr_events) + READ_ONCE(p->pin.pinned);
	refs = module_refcount(mod);
	smp_rmb();	/* a change that began meanwhile is seen below */
	return atomic_read(&socpmu_changes_begun) == ended && refs == sum;
}

/* Free the zombies that perf has let go of; socpmu_list_lock held */
static void socpmu_reap_locked(void)
{
	struct socpmu_life *life, *tmp;

	lockdep_assert_held(&socpmu_list_lock);
	list_for_each_entry_safe(life, tmp, &socpmu_zombies, zombie) {
		if (socpmu_in_use(life) || !socpmu_safe_to_free(life))
			continue;
		list_del(&life->zombie);
		socpmu_life_free(life);
	}
}

/* Free the zombies that perf has let go of; again later while some are left */
static void socpmu_reaper_fn(struct work_struct *work)
{
	bool left;

	mutex_lock(&socpmu_list_lock);
	socpmu_reap_locked();
	left = !list_empty(&socpmu_zombies);
	mutex_unlock(&socpmu_list_lock);
	if (left)
		schedule_delayed_work(&socpmu_reaper, SOCPMU_REAP_POLL);
}

/**
 * socpmu_unregister() - remove a PMU whose device is going away
 * @sp: the PMU
 *
 * The PMU never touches the device again. Without open events, and once
 * perf has let go of it (socpmu_safe_to_free()), it is unregistered and
 * freed, at once or by the reaper. With open events, the events keep their
 * counts as of now and every later operation on them is a no-op; the PMU
 * is freed after the last of them, by the reaper, or at the latest by
 * socpmu_life_reap(). Events of other PMUs left in its perf contexts (see
 * socpmu_pin_if_shared()) count as open events.
 */
void socpmu_unregister(struct socpmu *sp)
{
	unsigned long flags;

	/*
	 * Bank the last counts, end any group read, never touch the device
	 * again; nothing of it if the hardware stopped answering before
	 * (socpmu_lost())
	 */
	raw_spin_lock_irqsave(&sp->lock, flags);
	socpmu_update_active(sp);
	if (sp->txn_read && !sp->dead)
		sp->ops->read_end(sp);
	sp->txn_read = 0;
	WRITE_ONCE(sp->dead, true);
	raw_spin_unlock_irqrestore(&sp->lock, flags);
	hrtimer_cancel(&sp->timer);

	if (socpmu_life_remove(&sp->life))
		pr_info("%s: device removed with events open, counts frozen\n", sp->name);
}
EXPORT_SYMBOL_GPL(socpmu_unregister);

/**
 * socpmu_life_remove() - the PMU's device is gone: free the PMU when it can be
 * @life: its lifetime; the caller has made sure the PMU touches the device
 *	no more and that new events fail (a flag read after
 *	socpmu_life_get()), with a full barrier in between
 *
 * Without open events, and once perf has let go of it
 * (socpmu_safe_to_free()), the PMU is released at once; otherwise by the
 * reaper after the last of them, or at the latest by socpmu_life_reap().
 * Events of other PMUs left in its perf contexts (see
 * socpmu_pin_if_shared()) count as open events.
 *
 * Return: true when events were open.
 */
bool socpmu_life_remove(struct socpmu_life *life)
{
	bool in_use = socpmu_in_use(life);

	mutex_lock(&socpmu_list_lock);
	if (!in_use && socpmu_safe_to_free(life)) {
		socpmu_life_free(life);
	} else {
		list_add_tail(&life->zombie, &socpmu_zombies);
		schedule_delayed_work(&socpmu_reaper, SOCPMU_REAP_POLL);
	}
	mutex_unlock(&socpmu_list_lock);
	return in_use;
}
EXPORT_SYMBOL_GPL(socpmu_life_remove);

/**
 * socpmu_life_reap() - free the dead PMUs of a driver module
 * @mod: the module, in its exit, when perf holds no more events of it
 */
void socpmu_life_reap(struct module *mod)
{
	struct socpmu_life *life, *tmp;

	mutex_lock(&socpmu_list_lock);
	list_for_each_entry_safe(life, tmp, &socpmu_zombies, zombie) {
		if (life->pmu->module != mod)
			continue;
		WARN_ON_ONCE(socpmu_in_use(life));
		list_del(&life->zombie);
		socpmu_life_free(life);
	}
	mutex_unlock(&socpmu_list_lock);
}
EXPORT_SYMBOL_GPL(socpmu_life_reap);

static int __init socpmu_core_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "perf/socpmu:online",
				      NULL, socpmu_cpu_offline);
	if (ret < 0)
		return ret;
	socpmu_cpuhp_state = ret;
	return 0;
}
module_init(socpmu_core_init);

static void __exit socpmu_core_exit(void)
{
	/* Every driver has reaped its PMUs on its way out */
	cancel_delayed_work_sync(&socpmu_reaper);
	cpuhp_remove_multi_state(socpmu_cpuhp_state);
}
module_exit(socpmu_core_exit);

MODULE_DESCRIPTION("socpmu shared uncore PMU core");
MODULE_LICENSE("GPL");
