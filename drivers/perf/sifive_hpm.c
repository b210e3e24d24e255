// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive HPM counters as the perf PMU "sifive_hpm".
 *
 * A CPU PMU: events count per task or per CPU, on the counters of the hart
 * the task runs on: the fixed cycle, time and instret counters and the
 * programmable hpmcounters (U74: mhpmevent = event class | event mask). The
 * event encoding is the OpenSBI one (include/socpmu/sifive_hpm.h): type 0
 * general events, type 1 cache events, type 2 raw mhpmevent values.
 *
 * The counters are reached through a small ops table with the semantics of
 * the SBI PMU extension (counter_config_matching, start, stop, read): on
 * RISC-V the SBI ecalls themselves, so that this driver and riscv_pmu_sbi
 * share the counters with the firmware arbitrating; elsewhere the backend
 * a parent device passes as platform data (the simulator).
 *
 * Counters are allocated when perf schedules an event in and released when
 * it schedules it out, so events multiplex when there are more than
 * counters. The firmware picks the counter (counter_config_matching with
 * the mode-filter flags only), offered the programmable counters this PMU
 * does not hold plus, for cycles and instructions that neither filter nor
 * sample, their fixed counter.
 * OpenSBI hands the fixed cycle and instret counters to every caller that
 * asks (they are never exclusive, riscv_pmu_sbi may be counting on them):
 * this driver never clears or resets them, it reads them free-running
 * and counts the difference, and leaves them running or stopped as it
 * found them (hpm_restart(), hpm_stop()). riscv_pmu_sbi does stop them,
 * and rewrites them when it starts them again: a rewrite is seen for what
 * it is (hpm_rewritten()), adds nothing and is reported, never from the
 * scheduler's locks; one that was only stopped under us is read live
 * (hpm_read_stopped()). Programmable counters are ours alone once
 * matched. Any number of events can read the time CSR, which
 * needs no allocation (OpenSBI does not map counter 1). Counts are 64-bit
 * in software: a per-CPU hrtimer reads the running counters often enough
 * to see every wrap (cancelled when its CPU goes offline, started again by
 * the next event there), and where the backend delivers the counter
 * overflow interrupt (Sscofpmf) it folds a wrap in at once. Counters that
 * wrap in under 400 us are too fast for the hrtimer: the overflow interrupt
 * alone keeps them, and without one the device is refused at probe.
 *
 * Sampling: a module cannot deliver samples (the perf core does not export
 * perf_event_overflow()), so the out-of-tree module rejects sampling events
 * with -EOPNOTSUPP, overflow interrupt or not. Built into a kernel that has
 * riscv_pmu_sbi's foreign-overflow hook (tools/vm/riscv-intree.patch), the
 * SBI backend gets the counter overflow interrupt (Sscofpmf) through
 * riscv_pmu_sbi, and sampling events count on programmable counters that
 * start at -period.
 *
 * A hardware PMU (perf_hw_context): since 6.2 a task context holds the
 * events of any number of hardware PMUs, each with its own pmu context, so
 * this one sits next to the architecture's (riscv_pmu_sbi, or x86's). The
 * perf core then takes the group leader's ctx->mutex around the event_init
 * of an event that joins a group, which hpm_group_valid() needs to walk the
 * siblings. Groups hold sifive_hpm events and, as the perf core allows in
 * any hardware group, software events.
 */

#define pr_fmt(fmt) "sifive_hpm: " fmt

#include <linux/bitmap.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/poison.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include <socpmu/core.h>
#include <socpmu/sifive_hpm.h>

/* Hart clock assumed when the platform gives none, for the poll period */
#define HPM_DEFAULT_CLOCK_HZ	5000000000ULL
#define HPM_FIXED_MASK		(BIT(SIFIVE_HPM_CTR_CYCLE) | BIT(SIFIVE_HPM_CTR_INSTRET))
#define HPM_RAW_DATA_MASK	GENMASK_ULL(47, 0)	/* SBI raw event_data */

/* perf_event_overflow() is only there for built-in drivers */
#if IS_BUILTIN(CONFIG_SOCPMU_SIFIVE_HPM)
#define HPM_CAN_SAMPLE		1
#else
#define HPM_CAN_SAMPLE		0
#endif

struct sifive_hpm;

/**
 * struct hpm_cpu - per-CPU state; only touched on its CPU with interrupts
 *	off, but for the set-up and the timer cancels of probe, CPU hotplug
 *	and removal
 * @events: the event on each counter this PMU holds
 * @used: the counters this PMU holds on this CPU
 * @started: the fixed counters we found stopped and started, which we stop
 *	again when our event stops (hpm_stop())
 * @poll: reads the running counters before they can wrap twice, but for
 *	counters too fast for it (kept by the overflow interrupt)
 * @time_events: the timestamp events added on this CPU (through their
 *	perf_event::active_entry), which hold no counter: removal banks them
 * @hpm: the PMU
 */
struct hpm_cpu {
	struct perf_event *events[SIFIVE_HPM_MAX_COUNTERS];
	unsigned long used;
	unsigned long started;
	struct list_head time_events;
	struct hrtimer poll;
	struct sifive_hpm *hpm;
};

/**
 * struct sifive_hpm - one PMU
 * @pmu: the perf PMU
 * @name: "sifive_hpm", or "sifive_hpm_<n>" for further instances
 * @id: instance number
 * @ops: the backend
 * @ctx: its context
 * @nr_counters: counters the backend has (at most SIFIVE_HPM_MAX_COUNTERS)
 * @info: SBI counter_info of each counter
 * @width_mask: value mask of each counter
 * @prog_mask: programmable hardware counters (hpmcounter3..)
 * @harts: the CPUs that have these counters
 * @poll_ns: period of the per-CPU poll
 * @overflow_irq: the backend raises counter overflow interrupts
 * @sampling: sampling events are accepted (built in, with @overflow_irq)
 * @filter: the backend can inhibit counting per privilege mode
 * @gen_ok: general events the firmware can count
 * @cache_ok: cache events the firmware can count
 * @prog_fixed_ok: BIT(SIFIVE_HPM_CTR_CYCLE) and BIT(SIFIVE_HPM_CTR_INSTRET)
 *	if a programmable counter can count cycles and instructions: for
 *	those that filter modes or sample, or that find their fixed counter
 *	taken (a U74's hpmcounters cannot)
 * @cpus: per-CPU state
 * @dead: the device is gone; the PMU waits for its events to close
 * @life: its events, the pin of the module for software events left in its
 *	contexts, and its freeing once removed (socpmu core)
 * @node: instance of the CPU hotplug state
 * @rewrites: rewrites of the cycle and instret counters not reported yet
 * @stops: times the cycle counter was found stopped under a running event,
 *	not reported yet
 * @rewrite_work: reports them (not from the scheduler's locks)
 * @refuse_rs: the rate of hpm_refuse()'s info lines
 */
struct sifive_hpm {
	struct pmu pmu;
	char name[32];
	int id;
	const struct sifive_hpm_ops *ops;
	void *ctx;
	unsigned int nr_counters;
	unsigned long info[SIFIVE_HPM_MAX_COUNTERS];
	u64 width_mask[SIFIVE_HPM_MAX_COUNTERS];
	unsigned long prog_mask;
	struct cpumask harts;
	u64 poll_ns;
	bool overflow_irq;
	bool sampling;
	bool filter;
	DECLARE_BITMAP(gen_ok, SIFIVE_HPM_GEN_MAX);
	DECLARE_BITMAP(cache_ok, SIFIVE_HPM_CACHE_NR_CODES);
	unsigned long prog_fixed_ok;
	struct hpm_cpu __percpu *cpus;
	bool dead;
	struct socpmu_life life;
	struct hlist_node node;
	atomic_t rewrites[2];
	atomic_t stops;
	struct irq_work rewrite_work;
	struct ratelimit_state refuse_rs;
};

/* Why an event is refused, as the other socpmu PMUs say it (socpmu_core) */
#define hpm_refuse(hpm, fmt, ...) \
	socpmu_log_refusal(&(hpm)->refuse_rs, (hpm)->name, fmt, ##__VA_ARGS__)

static DEFINE_IDA(hpm_ida);
static enum cpuhp_state hpm_cpuhp_state;

static inline struct sifive_hpm *to_hpm(struct pmu *pmu)
{
	return container_of(pmu, struct sifive_hpm, pmu);
}

/* ---- event encoding ---- */

static unsigned int hpm_ev_type(struct perf_event *event)
{
	return (event->attr.config >> SIFIVE_HPM_CFG_TYPE_SHIFT) & SIFIVE_HPM_CFG_TYPE_MASK;
}

static unsigned int hpm_ev_code(struct perf_event *event)
{
	return event->attr.config & SIFIVE_HPM_CFG_CODE_MASK;
}

static bool hpm_ev_is_time(struct perf_event *event)
{
	return hpm_ev_type(event) == SIFIVE_HPM_TYPE_GENERAL &&
	       hpm_ev_code(event) == SIFIVE_HPM_GEN_TIME;
}

/* The fixed counter of an event, or -1 */
static int hpm_ev_fixed(struct perf_event *event)
{
	if (hpm_ev_type(event) != SIFIVE_HPM_TYPE_GENERAL)
		return -1;
	switch (hpm_ev_code(event)) {
	case SIFIVE_HPM_GEN_CPU_CYCLES:
		return SIFIVE_HPM_CTR_CYCLE;
	case SIFIVE_HPM_GEN_INSTRUCTIONS:
		return SIFIVE_HPM_CTR_INSTRET;
	}
	return -1;
}

/*
 * The fixed counter an event takes when it is free (hpm_claim()): cycles and
 * instructions that neither filter modes (event->hw.config_base, set before
 * the group is validated) nor sample, as the fixed counters can do neither.
 * Return: SIFIVE_HPM_CTR_CYCLE, SIFIVE_HPM_CTR_INSTRET or -1.
 */
static int hpm_ev_on_fixed(struct perf_event *event)
{
	if (event->hw.config_base || is_sampling_event(event))
		return -1;
	return hpm_ev_fixed(event);
}

/*
 * Validate the encoding: -EINVAL for malformed input (reserved bits, an
 * unknown type or code), -ENOENT for a well-formed event that these harts
 * cannot count.
 */
static int hpm_ev_validate(struct sifive_hpm *hpm, struct perf_event *event)
{
	u64 cfg = event->attr.config, data = event->attr.config1;
	unsigned int code = hpm_ev_code(event);

	if ((cfg & ~SIFIVE_HPM_CFG_VALID) || event->attr.config2 || event->attr.config3) {
		hpm_refuse(hpm, "reserved config bits set");
		return -EINVAL;
	}
	switch (hpm_ev_type(event)) {
	case SIFIVE_HPM_TYPE_GENERAL:
		if (data)
			break;
		if (code == SIFIVE_HPM_GEN_TIME)
			return 0;
		if (!code || code >= SIFIVE_HPM_GEN_MAX)
			break;
		return test_bit(code, hpm->gen_ok) ? 0 : -ENOENT;
	case SIFIVE_HPM_TYPE_CACHE:
		if (data || (code >> 3) >= SIFIVE_HPM_CACHE_NR_IDS ||
		    ((code >> 1) & 3) >= SIFIVE_HPM_NR_OPS)
			break;
		return test_bit(code, hpm->cache_ok) ? 0 : -ENOENT;
	case SIFIVE_HPM_TYPE_RAW:
		if (code || (data & ~HPM_RAW_DATA_MASK))
			break;
		/* The U74 encoding: a known class and events of that class */
		return sifive_u74_event_valid(data) ? 0 : -ENOENT;
	}
	hpm_refuse(hpm, "bad event config=%#llx config1=%#llx", cfg, data);
	return -EINVAL;
}

/*
 * A group may hold sifive_hpm events and software events (see the top of
 * the file), and must fit the counters: one cycles and one instructions
 * event on the fixed counters, everything else (time and software events
 * excepted) on the programmable ones, which must be able to count it (a
 * U74's cannot count cycles or instructions). For an event that joins a
 * group, perf holds the leader's ctx->mutex (perf_hw_context), so the
 * sibling list cannot change under us; a new leader comes without it, and
 * has no siblings.
 */
struct hpm_needs {
	unsigned int on_fixed[SIFIVE_HPM_CTR_INSTRET + 1];	/* could take it */
	unsigned int off_fixed[SIFIVE_HPM_CTR_INSTRET + 1];	/* cannot: filter, sampling */
	unsigned int prog;					/* other events */
};

static void hpm_count_needs(struct hpm_needs *n, struct perf_event *event)
{
	int fixed;

	if (event->pmu->task_ctx_nr == perf_sw_context || hpm_ev_is_time(event))
		return;
	fixed = hpm_ev_fixed(event);
	if (fixed < 0)
		n->prog++;
	else if (hpm_ev_on_fixed(event) >= 0)
		n->on_fixed[fixed]++;
	else
		n->off_fixed[fixed]++;
}

/*
 * The programmable counters that @n needs, or -1 if they would have to
 * count cycles or instructions and cannot
 */
static int hpm_prog_needed(struct sifive_hpm *hpm, const struct hpm_needs *n)
{
	static const int fixed[] = { SIFIVE_HPM_CTR_CYCLE, SIFIVE_HPM_CTR_INSTRET };
	unsigned int prog = n->prog, i, more;

	for (i = 0; i < ARRAY_SIZE(fixed); i++) {
		/* a second event of a fixed counter needs a programmable one */
		more = n->off_fixed[fixed[i]] +
		       (n->on_fixed[fixed[i]] > 1 ? n->on_fixed[fixed[i]] - 1 : 0);
		if (more && !(hpm->prog_fixed_ok & BIT(fixed[i])))
			return -1;
		prog += more;
	}
	return prog;
}

/*
 * Can @event, and its group, ever be scheduled? 0, -EOPNOTSUPP for an event
 * that no counter can take even alone, -EINVAL for a group that does not fit.
 */
static int hpm_group_valid(struct sifive_hpm *hpm, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	struct hpm_needs n = { };
	int prog;

	hpm_count_needs(&n, event);
	if (hpm_prog_needed(hpm, &n) < 0) {
		hpm_refuse(hpm,
			   "cycles and instructions that filter modes or sample need a programmable counter, which these harts cannot use for them");
		return -EOPNOTSUPP;
	}
	/*
	 * A new leader has no siblings, nor a context yet: perf holds the
	 * leader's context mutex, which for_each_sibling_event() asserts,
	 * only when the new event joins a group.
	 */
	if (leader != event) {
		if (leader->pmu != event->pmu) {
			hpm_refuse(hpm, "group leader of another PMU");
			return -EINVAL;
		}
		for_each_sibling_event(sibling, leader)
			if (sibling->pmu != event->pmu &&
			    sibling->pmu->task_ctx_nr != perf_sw_context) {
				hpm_refuse(hpm, "group with events of another PMU");
				return -EINVAL;
			}
		hpm_count_needs(&n, leader);
		for_each_sibling_event(sibling, leader)
			hpm_count_needs(&n, sibling);
	}
	prog = hpm_prog_needed(hpm, &n);
	if (prog < 0) {
		hpm_refuse(hpm,
			   "group has two cycles or two instructions events, and these harts can count them on their fixed counter only");
		return -EINVAL;
	}
	if (prog > bitmap_weight(&hpm->prog_mask, SIFIVE_HPM_MAX_COUNTERS)) {
		hpm_refuse(hpm, "group needs more counters than there are");
		return -EINVAL;
	}
	return 0;
}

static void hpm_event_destroy(struct perf_event *event)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);

	/* Pins the module for software events left in our contexts */
	socpmu_life_put(&hpm->life, event);
}

static int hpm_event_init(struct perf_event *event)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	int ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (is_sampling_event(event) && !hpm->sampling) {
		hpm_refuse(hpm, "counting only: %s", HPM_CAN_SAMPLE ?
			 "no counter overflow interrupt" : "modules cannot deliver samples");
		return -EOPNOTSUPP;
	}
	if (event->cpu >= 0 && !cpumask_test_cpu(event->cpu, &hpm->harts)) {
		hpm_refuse(hpm, "CPU %d has no HPM counters", event->cpu);
		return -ENOENT;
	}

	/* Count the event before looking at @dead: pairs with the barrier in hpm_remove() */
	socpmu_life_get(&hpm->life);
	if (READ_ONCE(hpm->dead)) {
		ret = -ENODEV;
		goto err;
	}
	ret = hpm_ev_validate(hpm, event);
	if (ret)
		goto err;

	hwc->idx = -1;
	hwc->event_base = SIFIVE_HPM_EVENT_IDX(hpm_ev_type(event), hpm_ev_code(event));
	hwc->config = event->attr.config1;
	hwc->config_base = 0;
	if (is_sampling_event(event)) {
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}
	if (hpm->filter) {
		if (event->attr.exclude_user)
			hwc->config_base |= SIFIVE_HPM_CFG_FLAG_SET_UINH;
		if (event->attr.exclude_kernel)
			hwc->config_base |= SIFIVE_HPM_CFG_FLAG_SET_SINH;
		if (event->attr.exclude_hv)
			hwc->config_base |= SIFIVE_HPM_CFG_FLAG_SET_MINH;
	}
	/* With the mode filter known: which counter the event needs */
	ret = hpm_group_valid(hpm, event);
	if (ret)
		goto err;
	event->destroy = hpm_event_destroy;
	return 0;

err:
	socpmu_life_put(&hpm->life, NULL);
	return ret;
}

/* ---- counting ---- */

/* The fixed cycle and instret counters, shared with other SBI users */
static bool hpm_idx_fixed(int idx)
{
	return idx == SIFIVE_HPM_CTR_CYCLE || idx == SIFIVE_HPM_CTR_INSTRET;
}

/*
 * A shared fixed counter that moved by 2^62 or more: 29 years of cycles at
 * 5 GHz, far beyond any poll period, so it was rewritten. riscv_pmu_sbi
 * does that where it counts on the same fixed counter: it stops the counter
 * when perf schedules its event out, and starting it again writes its
 * initial value (2^63), which OpenSBI takes since the counter is stopped.
 */
static bool hpm_rewritten(const struct sifive_hpm *hpm, int idx, u64 delta)
{
	return hpm_idx_fixed(idx) && hpm->width_mask[idx] == U64_MAX && delta >= BIT_ULL(62);
}

/* The report of hpm_event_update()'s rewrites, out of the scheduler's locks */
static void hpm_rewrite_report(struct irq_work *work)
{
	struct sifive_hpm *hpm = container_of(work, struct sifive_hpm, rewrite_work);
	static const char *const name[] = { "cycle", "instret" };
	int i, n;

	for (i = 0; i < ARRAY_SIZE(name); i++) {
		n = atomic_xchg(&hpm->rewrites[i], 0);
		if (n)
			pr_warn_ratelimited("%s: another SBI user rewrote the %s counter under a running event (%d times; riscv_pmu_sbi counting on it too?): counts since the last read lost\n",
					    hpm->name, name[i], n);
	}
	n = atomic_xchg(&hpm->stops, 0);
	if (n)
		pr_warn_ratelimited("%s: another SBI user stopped the cycle counter under a running event (%d times; riscv_pmu_sbi's event scheduled out?): counts lost until it runs again\n",
				    hpm->name, n);
}

/*
 * A shared fixed counter that reads as rewritten may only have been stopped
 * under our running event: riscv_pmu_sbi stops it when perf schedules its
 * event out, and perf schedules riscv_pmu_sbi's context of a task before
 * ours (a task's PMU contexts are sorted by PMU type), so our last read of
 * a task's slice comes after its stop. A stopped counter holds its count on
 * a hart, but QEMU (7.2) then reads it as the value last written to it,
 * from the second read on: riscv_pmu_sbi's start value, before our base.
 * Start it (configured again for our event first: riscv_pmu_sbi's stop
 * with reset unconfigured it in OpenSBI) and read the live count; a
 * counter that was running was rewritten for real. The counter is stopped
 * again if our event is stopping (@event's PERF_HES_STOPPED), so that
 * riscv_pmu_sbi finds it as it left it and writes its own value when it
 * starts it; a running event of ours keeps it running, until it stops.
 * Return: true and the count in @now if the counter was stopped.
 */
static bool hpm_read_stopped(struct sifive_hpm *hpm, struct perf_event *event, u64 *now)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hpm->ops->config_matching(hpm->ctx, 0, BIT(hwc->idx), hwc->config_base,
				      hwc->event_base, hwc->config) != hwc->idx ||
	    hpm->ops->start(hpm->ctx, hwc->idx, 1, 0, 0))
		return false;
	*now = hpm->ops->read(hpm->ctx, hwc->idx);
	if (hwc->state & PERF_HES_STOPPED)
		hpm->ops->stop(hpm->ctx, hwc->idx, 1, 0);
	else
		__set_bit(hwc->idx, &this_cpu_ptr(hpm->cpus)->started);
	return true;
}

/* Fold the counter's progress since the last look into the 64-bit count */
static void hpm_event_update(struct sifive_hpm *hpm, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev = local64_read(&hwc->prev_count);
	u64 now = hpm->ops->read(hpm->ctx, hwc->idx);
	u64 delta = (now - prev) & hpm->width_mask[hwc->idx];

	if (hpm_rewritten(hpm, hwc->idx, delta) && hpm_read_stopped(hpm, event, &now))
		delta = (now - prev) & hpm->width_mask[hwc->idx];
	/*
	 * What the counter did since the last read is lost: add no jump, and
	 * say so from an irq_work. This runs under the scheduler's run-queue
	 * lock (perf's schedule-out): a console write from here can wake a tty
	 * writer on this run queue and deadlock the hart (issue 42).
	 */
	if (hpm_rewritten(hpm, hwc->idx, delta)) {
		atomic_inc(&hpm->rewrites[hwc->idx == SIFIVE_HPM_CTR_INSTRET]);
		irq_work_queue(&hpm->rewrite_work);
		delta = 0;
	}
	/*
	 * A running cycle counter moves between any two reads: one that did
	 * not was stopped under our running event by another SBI user
	 * (riscv_pmu_sbi schedules its event out). Starting it again would
	 * make riscv_pmu_sbi's next start "already started" and its count
	 * wrong; what the hart runs until it starts it is lost to us: say so.
	 */
	if (!delta && hwc->idx == SIFIVE_HPM_CTR_CYCLE && !(hwc->state & PERF_HES_STOPPED)) {
		atomic_inc(&hpm->stops);
		irq_work_queue(&hpm->rewrite_work);
	}
	local64_set(&hwc->prev_count, now);
	local64_add(delta, &event->count);
	if (is_sampling_event(event))
		local64_sub(delta, &hwc->period_left);
}

/*
 * Claim a counter for @event on this hart; the firmware arbitrates. Cycles
 * and instructions that neither filter nor sample (the fixed counters can
 * do neither) are offered their fixed counter alone first, as the seed wants
 * them there whatever the order of the events; everything else, and a
 * second cycles or instructions event, the programmable counters this PMU
 * does not hold. The only flags are the mode filter's: no CLEAR_VALUE (it
 * would zero a fixed counter under its other users), no SKIP_MATCH (which
 * skips the mode filter too). OpenSBI answers cycles and instret with
 * their fixed counter whatever the mask when it finds no programmable one
 * (without Sscofpmf: always); that answer is only taken where it was
 * offered, and a fixed counter is never released.
 */
static long hpm_match(struct sifive_hpm *hpm, struct perf_event *event, unsigned long cmask)
{
	struct hw_perf_event *hwc = &event->hw;
	long idx;

	idx = hpm->ops->config_matching(hpm->ctx, 0, cmask, hwc->config_base,
					hwc->event_base, hwc->config);
	if (idx < 0)
		return -EAGAIN;
	if (idx < SIFIVE_HPM_MAX_COUNTERS && (cmask & BIT(idx)))
		return idx;
	/* Not a counter we asked for: give a programmable one back */
	if (idx < SIFIVE_HPM_MAX_COUNTERS && !hpm_idx_fixed(idx))
		hpm->ops->stop(hpm->ctx, idx, 1, SIFIVE_HPM_STOP_FLAG_RESET);
	return -EAGAIN;
}

static int hpm_claim(struct sifive_hpm *hpm, struct hpm_cpu *cpuc, struct perf_event *event)
{
	unsigned long avail = hpm->prog_mask & ~cpuc->used;
	int fixed = hpm_ev_on_fixed(event);
	long idx;

	if (fixed >= 0 && !test_bit(fixed, &cpuc->used)) {
		idx = hpm_match(hpm, event, BIT(fixed));
		if (idx >= 0)
			return idx;
	}
	if (!avail)
		return -EAGAIN;
	return hpm_match(hpm, event, avail);
}

/*
 * The start value of a sampling event's counter: -(what is left of the
 * period), at most half the counter's range; a period that ran out starts
 * again (perf's usual set_period).
 */
static u64 hpm_set_period(struct sifive_hpm *hpm, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left), period = hwc->sample_period;
	s64 max = hpm->width_mask[hwc->idx] >> 1;

	if (unlikely(left <= 0)) {
		left = left <= -period ? period : left + period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
	}
	if (left > max)
		left = max;
	return (u64)-left & hpm->width_mask[hwc->idx];
}

/*
 * (Re)start the counter of a running event. A programmable counter is ours
 * alone: it starts from a value we set, for a sampling event -(what is left
 * of its period) (hpm_set_period()), else 0, or with overflow interrupts
 * half way to its wrap, so that the interrupt comes while the modular
 * difference to the start value is still the true count. A fixed counter
 * is never written: it may be running for another user already (the
 * firmware then answers "already started", which is fine); it is started
 * so that it counts, and its value once running is the base. One we found
 * stopped we stop again when our event stops: riscv_pmu_sbi's next start
 * then finds it stopped, and writes its start value.
 */
static void hpm_restart(struct sifive_hpm *hpm, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 ival = 0;

	if (hwc->idx >= SIFIVE_HPM_CTR_HPM0) {
		if (is_sampling_event(event))
			ival = hpm_set_period(hpm, event);
		else if (hpm->overflow_irq)
			ival = (hpm->width_mask[hwc->idx] >> 1) + 1;
		local64_set(&hwc->prev_count, ival);
		hpm->ops->start(hpm->ctx, hwc->idx, 1, SIFIVE_HPM_START_FLAG_SET_INIT_VALUE, ival);
		return;
	}
	if (hwc->idx != SIFIVE_HPM_CTR_TIME && !hpm->ops->start(hpm->ctx, hwc->idx, 1, 0, 0))
		__set_bit(hwc->idx, &this_cpu_ptr(hpm->cpus)->started);
	local64_set(&hwc->prev_count, hpm->ops->read(hpm->ctx, hwc->idx));
}

static void hpm_start(struct perf_event *event, int flags)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);
	struct hw_perf_event *hwc = &event->hw;

	if (READ_ONCE(hpm->dead) || hwc->idx < 0)
		return;
	hwc->state = 0;
	hpm_restart(hpm, event);
	perf_event_update_userpage(event);
}

static void hpm_stop(struct perf_event *event, int flags)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	hwc->state |= PERF_HES_STOPPED;
	if (READ_ONCE(hpm->dead))
		return;
	if (hwc->idx >= SIFIVE_HPM_CTR_HPM0)
		hpm->ops->stop(hpm->ctx, hwc->idx, 1, 0);
	hpm_event_update(hpm, event);
	/* A shared fixed counter is stopped only if we started it: as we found it */
	if (hwc->idx >= 0 && hwc->idx < SIFIVE_HPM_CTR_HPM0 &&
	    __test_and_clear_bit(hwc->idx, &this_cpu_ptr(hpm->cpus)->started))
		hpm->ops->stop(hpm->ctx, hwc->idx, 1, 0);
	hwc->state |= PERF_HES_UPTODATE;
}

static int hpm_add(struct perf_event *event, int flags)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);
	struct hpm_cpu *cpuc = this_cpu_ptr(hpm->cpus);
	struct hw_perf_event *hwc = &event->hw;
	int idx;

	/* Frozen, not refused (see socpmu_add()): in, stopped, on no counter */
	if (READ_ONCE(hpm->dead)) {
		hwc->idx = -1;
		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		return 0;
	}
	if (!cpumask_test_cpu(smp_processor_id(), &hpm->harts))
		return -ENOENT;
	if (hpm_ev_is_time(event)) {
		idx = SIFIVE_HPM_CTR_TIME;
		list_add(&event->active_entry, &cpuc->time_events);
	} else {
		idx = hpm_claim(hpm, cpuc, event);
		if (idx < 0)
			return idx;
		cpuc->events[idx] = event;
		__set_bit(idx, &cpuc->used);
		if (!hrtimer_is_queued(&cpuc->poll))
			hrtimer_start(&cpuc->poll, ns_to_ktime(hpm->poll_ns),
				      HRTIMER_MODE_REL_PINNED_HARD);
	}
	hwc->idx = idx;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		hpm_start(event, PERF_EF_RELOAD);
	return 0;
}

static void hpm_del(struct perf_event *event, int flags)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);
	struct hpm_cpu *cpuc = this_cpu_ptr(hpm->cpus);
	struct hw_perf_event *hwc = &event->hw;
	int idx = hwc->idx;

	hpm_stop(event, PERF_EF_UPDATE);
	if (idx < 0)
		return;
	if (idx == SIFIVE_HPM_CTR_TIME) {
		list_del(&event->active_entry);
	} else if (test_bit(idx, &cpuc->used) && cpuc->events[idx] == event) {
		/* Release a programmable counter; a fixed one is not ours to release */
		if (!READ_ONCE(hpm->dead) && !hpm_idx_fixed(idx))
			hpm->ops->stop(hpm->ctx, idx, 1, SIFIVE_HPM_STOP_FLAG_RESET);
		cpuc->events[idx] = NULL;
		__clear_bit(idx, &cpuc->used);
		__clear_bit(idx, &cpuc->started);
	}
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

/*
 * From NMI (bpf_perf_event_read_value() of a BPF program of a hardware
 * event) the count stays as the last update left it: a backend may take a
 * lock there (the simulator's does) that the interrupted code holds.
 */
static void hpm_read(struct perf_event *event)
{
	struct sifive_hpm *hpm = to_hpm(event->pmu);

	if ((event->hw.state & PERF_HES_STOPPED) || READ_ONCE(hpm->dead) || in_nmi())
		return;
	hpm_event_update(hpm, event);
}

/* The counter index, for the mmap page (never usable for user reads here) */
static int hpm_event_idx(struct perf_event *event)
{
	return event->hw.idx >= 0 ? event->hw.idx + 1 : 0;
}

static bool hpm_filter(struct pmu *pmu, int cpu)
{
	return !cpumask_test_cpu(cpu, &to_hpm(pmu)->harts);
}

/* Bring every running counter of this CPU up to date */
static enum hrtimer_restart hpm_poll(struct hrtimer *timer)
{
	struct hpm_cpu *cpuc = container_of(timer, struct hpm_cpu, poll);
	struct sifive_hpm *hpm = cpuc->hpm;
	struct perf_event *event;
	unsigned int idx;

	/*
	 * A CPU that went offline: the hrtimer core moved its timer here
	 * before hpm_cpu_dead() cancels it; it must not poll this CPU's state
	 */
	if (!cpuc->used || READ_ONCE(hpm->dead) || cpuc != this_cpu_ptr(hpm->cpus))
		return HRTIMER_NORESTART;
	for_each_set_bit(idx, &cpuc->used, SIFIVE_HPM_MAX_COUNTERS) {
		event = cpuc->events[idx];
		if (!(event->hw.state & PERF_HES_STOPPED))
			hpm_event_update(hpm, event);
	}
	hrtimer_forward_now(timer, ns_to_ktime(hpm->poll_ns));
	return HRTIMER_RESTART;
}

/*
 * A sampling event whose period ran out: deliver the sample. True when perf
 * throttles the event, which then stays stopped.
 */
static bool hpm_sample(struct perf_event *event)
{
#if HPM_CAN_SAMPLE
	struct perf_sample_data data;

	if (!is_sampling_event(event) || local64_read(&event->hw.period_left) > 0)
		return false;
	perf_sample_data_init(&data, 0, event->hw.last_period);
	if (perf_event_overflow(event, &data, get_irq_regs())) {
		event->hw.state |= PERF_HES_STOPPED;
		return true;
	}
#endif
	return false;
}

/*
 * The counter overflow interrupt (Sscofpmf), in hard interrupt context on
 * the hart: stop the counter (SBI start does not write a running counter),
 * fold the wrap into the count, deliver the sample of a sampling event whose
 * period ran out and, unless perf throttles the event, restart the counter
 * as hpm_restart() does (half way to the next wrap, a sampling event at
 * -(what is left of its period)), which also clears its overflow flag.
 */
static void hpm_overflow(void *data)
{
	struct sifive_hpm *hpm = data;
	struct hpm_cpu *cpuc = this_cpu_ptr(hpm->cpus);
	struct perf_event *event;
	unsigned long ovf;
	unsigned int idx;

	if (READ_ONCE(hpm->dead))
		return;
	ovf = hpm->ops->read_overflow(hpm->ctx) & cpuc->used;
	for_each_set_bit(idx, &ovf, SIFIVE_HPM_MAX_COUNTERS) {
		event = cpuc->events[idx];
		if (event->hw.state & PERF_HES_STOPPED)
			continue;	/* the next start clears the flag */
		hpm->ops->stop(hpm->ctx, idx, 1, 0);
		hpm_event_update(hpm, event);
		if (hpm_sample(event))
			continue;	/* throttled: stays stopped until perf starts it */
		hpm_restart(hpm, event);
	}
}

/* ---- sysfs ---- */

/*
 * Event aliases: the id is config | config1 << 20, which is all an alias
 * needs (config1 only for raw events, whose selectors fit in 26 bits).
 */
#define HPM_ALIAS_ID(type, code, data) \
	((u64)(type) << SIFIVE_HPM_CFG_TYPE_SHIFT | (code) | (u64)(data) << 20)
#define HPM_GENERAL_ALIAS(name, code) \
	PMU_EVENT_ATTR_ID(name, hpm_event_show, HPM_ALIAS_ID(SIFIVE_HPM_TYPE_GENERAL, code, 0))
#define HPM_RAW_ALIAS(name, sel, desc) \
	PMU_EVENT_ATTR_ID(name, hpm_event_show, HPM_ALIAS_ID(SIFIVE_HPM_TYPE_RAW, 0, sel)),

static ssize_t hpm_event_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct perf_pmu_events_attr *ea = container_of(attr, struct perf_pmu_events_attr, attr);
	unsigned int type = (ea->id >> SIFIVE_HPM_CFG_TYPE_SHIFT) & SIFIVE_HPM_CFG_TYPE_MASK;

	if (type == SIFIVE_HPM_TYPE_RAW)
		return sysfs_emit(buf, "type=%u,event_data=%#llx\n", type, ea->id >> 20);
	return sysfs_emit(buf, "type=%u,code=%#llx\n", type, ea->id & SIFIVE_HPM_CFG_CODE_MASK);
}

static struct attribute *hpm_event_attrs[] = {
	HPM_GENERAL_ALIAS(cycles, SIFIVE_HPM_GEN_CPU_CYCLES),
	HPM_GENERAL_ALIAS(instructions, SIFIVE_HPM_GEN_INSTRUCTIONS),
	HPM_GENERAL_ALIAS(cache_references, SIFIVE_HPM_GEN_CACHE_REFERENCES),
	HPM_GENERAL_ALIAS(cache_misses, SIFIVE_HPM_GEN_CACHE_MISSES),
	HPM_GENERAL_ALIAS(branch_instructions, SIFIVE_HPM_GEN_BRANCH_INSTRUCTIONS),
	HPM_GENERAL_ALIAS(branch_misses, SIFIVE_HPM_GEN_BRANCH_MISSES),
	HPM_GENERAL_ALIAS(bus_cycles, SIFIVE_HPM_GEN_BUS_CYCLES),
	HPM_GENERAL_ALIAS(stalled_cycles_frontend, SIFIVE_HPM_GEN_STALLED_CYCLES_FRONTEND),
	HPM_GENERAL_ALIAS(stalled_cycles_backend, SIFIVE_HPM_GEN_STALLED_CYCLES_BACKEND),
	HPM_GENERAL_ALIAS(ref_cycles, SIFIVE_HPM_GEN_REF_CPU_CYCLES),
	HPM_GENERAL_ALIAS(timestamp, SIFIVE_HPM_GEN_TIME),
	SIFIVE_U74_EVENTS(HPM_RAW_ALIAS)
	SIFIVE_U74_ALIASES(HPM_RAW_ALIAS)
	NULL,
};

/* General events show only if the firmware can count them; timestamp (the time CSR) always */
static umode_t hpm_event_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	struct sifive_hpm *hpm = to_hpm(dev_get_drvdata(kobj_to_dev(kobj)));
	struct perf_pmu_events_attr *ea =
		container_of(attr, struct perf_pmu_events_attr, attr.attr);
	unsigned int type = (ea->id >> SIFIVE_HPM_CFG_TYPE_SHIFT) & SIFIVE_HPM_CFG_TYPE_MASK;
	unsigned int code = ea->id & SIFIVE_HPM_CFG_CODE_MASK;

	if (type != SIFIVE_HPM_TYPE_GENERAL || code == SIFIVE_HPM_GEN_TIME ||
	    (code < SIFIVE_HPM_GEN_MAX && test_bit(code, hpm->gen_ok)))
		return attr->mode;
	return 0;
}

static const struct attribute_group hpm_events_group = {
	.name = "events",
	.attrs = hpm_event_attrs,
	.is_visible = hpm_event_visible,
};

static struct attribute *hpm_format_attrs[] = {
	SOCPMU_FORMAT_ATTR(code, "config:0-15"),
	SOCPMU_FORMAT_ATTR(result_id, "config:0"),
	SOCPMU_FORMAT_ATTR(op_id, "config:1-2"),
	SOCPMU_FORMAT_ATTR(cache_id, "config:3-15"),
	SOCPMU_FORMAT_ATTR(type, "config:16-19"),
	SOCPMU_FORMAT_ATTR(event_data, "config1:0-63"),
	NULL,
};

static const struct attribute_group hpm_format_group = {
	.name = "format",
	.attrs = hpm_format_attrs,
};

static ssize_t harts_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct sifive_hpm *hpm = to_hpm(dev_get_drvdata(dev));

	return cpumap_print_to_pagebuf(true, buf, &hpm->harts);
}
static DEVICE_ATTR_RO(harts);

/* One line per counter the backend maps (counter_info not 0): index, CSR, width in bits */
static ssize_t counters_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct sifive_hpm *hpm = to_hpm(dev_get_drvdata(dev));
	unsigned int i;
	int len = 0;

	for (i = 0; i < hpm->nr_counters; i++)
		if (hpm->info[i])
			len += sysfs_emit_at(buf, len, "%u %#lx %lu\n", i,
					     SIFIVE_HPM_INFO_CSR(hpm->info[i]),
					     SIFIVE_HPM_INFO_WIDTH(hpm->info[i]));
	return len;
}
static DEVICE_ATTR_RO(counters);

/*
 * What perf's pmu-events (sys events) match: the raw events offered are the
 * U74's mhpmevent encoding.
 */
static ssize_t identifier_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "sifive-u74\n");
}
static DEVICE_ATTR_RO(identifier);

static struct attribute *hpm_pmu_attrs[] = {
	&dev_attr_identifier.attr,
	&dev_attr_harts.attr,
	&dev_attr_counters.attr,
	NULL,
};

static const struct attribute_group hpm_pmu_group = {
	.attrs = hpm_pmu_attrs,
};

static const struct attribute_group *hpm_groups[] = {
	&hpm_events_group,
	&hpm_format_group,
	&hpm_pmu_group,
	NULL,
};

/* ---- RISC-V backend: the SBI PMU extension ---- */

#if defined(CONFIG_RISCV_SBI) && defined(CONFIG_64BIT)
#include <asm/cpufeature.h>
#include <asm/csr.h>
#include <asm/sbi.h>
#if HPM_CAN_SAMPLE
#include <linux/perf/riscv_pmu.h>
#endif

#define HPM_SIFIVE_MVENDORID	0x489

static bool any_vendor;
module_param(any_vendor, bool, 0444);
MODULE_PARM_DESC(any_vendor, "Use the SBI PMU on harts of any vendor, not only SiFive's");

/* SBI's counter_info has the firmware-counter flag in the top bit */
#define HPM_SBI_INFO_FW		BIT(BITS_PER_LONG - 1)

static unsigned long hpm_sbi_info[SIFIVE_HPM_MAX_COUNTERS];

static int hpm_sbi_errno(long err)
{
	switch (err) {
	case SBI_SUCCESS:
		return 0;
	case SBI_ERR_INVALID_PARAM:
		return -EINVAL;
	case SBI_ERR_DENIED:
		return -EPERM;
	case SBI_ERR_ALREADY_STARTED:
	case SBI_ERR_ALREADY_STOPPED:
		return -EALREADY;
	}
	return -EOPNOTSUPP;
}

static unsigned int hpm_sbi_num_counters(void *ctx)
{
	struct sbiret ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_NUM_COUNTERS, 0, 0, 0, 0, 0, 0);

	return ret.error ? 0 : min_t(unsigned long, ret.value, SIFIVE_HPM_MAX_COUNTERS);
}

/*
 * Firmware counters (no CSR) are left out: they count firmware events only.
 * OpenSBI does not map counter 1 (time): its info stays 0, and the driver
 * reads the time CSR itself.
 */
static unsigned long hpm_sbi_counter_info(void *ctx, unsigned int idx)
{
	struct sbiret ret;

	if (idx >= SIFIVE_HPM_MAX_COUNTERS)
		return 0;
	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_GET_INFO, idx, 0, 0, 0, 0, 0);
	if (ret.error || (ret.value & HPM_SBI_INFO_FW))
		return 0;
	hpm_sbi_info[idx] = ret.value;
	return ret.value;
}

static long hpm_sbi_config_matching(void *ctx, unsigned long cbase, unsigned long cmask,
				    unsigned long flags, unsigned long event_idx,
				    u64 event_data)
{
	struct sbiret ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_CFG_MATCH, cbase,
				      cmask, flags, event_idx, event_data, 0);

	return ret.error ? hpm_sbi_errno(ret.error) : ret.value;
}

static int hpm_sbi_start(void *ctx, unsigned long cbase, unsigned long cmask,
			 unsigned long flags, u64 ival)
{
	struct sbiret ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_START, cbase, cmask,
				      flags, ival, 0, 0);

	return hpm_sbi_errno(ret.error);
}

static int hpm_sbi_stop(void *ctx, unsigned long cbase, unsigned long cmask,
			unsigned long flags)
{
	struct sbiret ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_STOP, cbase, cmask,
				      flags, 0, 0, 0);

	return hpm_sbi_errno(ret.error);
}

/* S-mode reads the counter CSRs directly (the firmware sets mcounteren) */
#define HPM_CSR_CASE(n)	case CSR_CYCLE + (n): return csr_read(CSR_CYCLE + (n));

static u64 hpm_sbi_read(void *ctx, unsigned int idx)
{
	if (idx == SIFIVE_HPM_CTR_TIME)
		return csr_read(CSR_TIME);
	switch (SIFIVE_HPM_INFO_CSR(hpm_sbi_info[idx % SIFIVE_HPM_MAX_COUNTERS])) {
	HPM_CSR_CASE(0) HPM_CSR_CASE(1) HPM_CSR_CASE(2) HPM_CSR_CASE(3)
	HPM_CSR_CASE(4) HPM_CSR_CASE(5) HPM_CSR_CASE(6) HPM_CSR_CASE(7)
	HPM_CSR_CASE(8) HPM_CSR_CASE(9) HPM_CSR_CASE(10) HPM_CSR_CASE(11)
	HPM_CSR_CASE(12) HPM_CSR_CASE(13) HPM_CSR_CASE(14) HPM_CSR_CASE(15)
	HPM_CSR_CASE(16) HPM_CSR_CASE(17) HPM_CSR_CASE(18) HPM_CSR_CASE(19)
	HPM_CSR_CASE(20) HPM_CSR_CASE(21) HPM_CSR_CASE(22) HPM_CSR_CASE(23)
	HPM_CSR_CASE(24) HPM_CSR_CASE(25) HPM_CSR_CASE(26) HPM_CSR_CASE(27)
	HPM_CSR_CASE(28) HPM_CSR_CASE(29) HPM_CSR_CASE(30) HPM_CSR_CASE(31)
	}
	return 0;
}

#if HPM_CAN_SAMPLE && defined(RISCV_PMU_SBI_HAS_FOREIGN_OVF)
/*
 * Built into a kernel with riscv_pmu_sbi's foreign-overflow hook: the local
 * counter overflow interrupt is a per-CPU interrupt riscv_pmu_sbi requests
 * (it cannot be shared), and its handler calls ours first.
 */
#define HPM_SBI_OVF	1

static void (*hpm_sbi_ovf_fn)(void *data);

/*
 * Acknowledge the interrupt before handling it: OpenSBI re-arms a counter
 * (clears its OF flag) at start only while no overflow interrupt is
 * pending. A counter that overflows from here on raises it again.
 */
static bool hpm_sbi_ovf(void *data)
{
	csr_clear(CSR_SIP, BIT(IRQ_PMU_OVF));
	hpm_sbi_ovf_fn(data);
	return true;
}

static unsigned long hpm_sbi_read_overflow(void *ctx)
{
	return csr_read(CSR_SCOUNTOVF);
}

static int hpm_sbi_set_overflow_handler(void *ctx, void (*fn)(void *data), void *data)
{
	if (!fn)
		return riscv_pmu_sbi_set_foreign_ovf(NULL, NULL);
	if (!riscv_isa_extension_available(NULL, SSCOFPMF))
		return -EOPNOTSUPP;
	hpm_sbi_ovf_fn = fn;
	return riscv_pmu_sbi_set_foreign_ovf(hpm_sbi_ovf, data);
}
#endif

/*
 * Out of tree, no overflow interrupt: the local counter overflow interrupt
 * is a per-CPU interrupt that riscv_pmu_sbi requests, and it cannot be
 * shared.
 */
static const struct sifive_hpm_ops hpm_sbi_ops = {
	.num_counters		= hpm_sbi_num_counters,
	.counter_info		= hpm_sbi_counter_info,
	.config_matching	= hpm_sbi_config_matching,
	.start			= hpm_sbi_start,
	.stop			= hpm_sbi_stop,
	.read			= hpm_sbi_read,
#ifdef HPM_SBI_OVF
	.read_overflow		= hpm_sbi_read_overflow,
	.set_overflow_handler	= hpm_sbi_set_overflow_handler,
#endif
};

static const struct sifive_hpm_ops *hpm_sbi_backend(bool *filter)
{
	BUILD_BUG_ON(SIFIVE_HPM_CFG_FLAG_SKIP_MATCH != SBI_PMU_CFG_FLAG_SKIP_MATCH ||
		     SIFIVE_HPM_CFG_FLAG_CLEAR_VALUE != SBI_PMU_CFG_FLAG_CLEAR_VALUE ||
		     SIFIVE_HPM_CFG_FLAG_SET_UINH != SBI_PMU_CFG_FLAG_SET_UINH ||
		     SIFIVE_HPM_CFG_FLAG_SET_SINH != SBI_PMU_CFG_FLAG_SET_SINH ||
		     SIFIVE_HPM_CFG_FLAG_SET_MINH != SBI_PMU_CFG_FLAG_SET_MINH ||
		     SIFIVE_HPM_START_FLAG_SET_INIT_VALUE != SBI_PMU_START_FLAG_SET_INIT_VALUE ||
		     SIFIVE_HPM_STOP_FLAG_RESET != SBI_PMU_STOP_FLAG_RESET ||
		     SIFIVE_HPM_CFG_FLAG_SET_VUINH != SBI_PMU_CFG_FLAG_SET_VUINH ||
		     SIFIVE_HPM_CFG_FLAG_SET_VSINH != SBI_PMU_CFG_FLAG_SET_VSINH);
	/* Mode filtering needs Sscofpmf's inhibit bits */
	*filter = riscv_isa_extension_available(NULL, SSCOFPMF);
	return &hpm_sbi_ops;
}

static bool hpm_sbi_present(void)
{
	return sbi_probe_extension(SBI_EXT_PMU) > 0 &&
	       (any_vendor || sbi_get_mvendorid() == HPM_SIFIVE_MVENDORID);
}
#else
static const struct sifive_hpm_ops *hpm_sbi_backend(bool *filter)
{
	return NULL;
}

static bool hpm_sbi_present(void)
{
	return false;
}
#endif

/* ---- probe and removal ---- */

/*
 * Which general and cache events can the firmware count? Ask it, on a hart
 * (a trial counter_config_matching, released at once), as riscv_pmu_sbi
 * does. A fixed counter the firmware answers with is not released: that
 * would stop and unconfigure it under its other users.
 */
static void hpm_check_events(void *data)
{
	struct sifive_hpm *hpm = data;
	unsigned long cmask = hpm->prog_mask | HPM_FIXED_MASK;
	bool prog_free = false;
	unsigned int code;
	long idx;

	for (code = 1; code < SIFIVE_HPM_GEN_MAX + SIFIVE_HPM_CACHE_NR_CODES; code++) {
		bool cache = code >= SIFIVE_HPM_GEN_MAX;
		unsigned int c = cache ? code - SIFIVE_HPM_GEN_MAX : code;

		unsigned int type = cache ? SIFIVE_HPM_TYPE_CACHE : SIFIVE_HPM_TYPE_GENERAL;

		idx = hpm->ops->config_matching(hpm->ctx, 0, cmask, 0,
						SIFIVE_HPM_EVENT_IDX(type, c), 0);
		if (idx < 0)
			continue;
		if (!hpm_idx_fixed(idx)) {
			hpm->ops->stop(hpm->ctx, idx, 1, SIFIVE_HPM_STOP_FLAG_RESET);
			prog_free = true;
		}
		__set_bit(c, cache ? hpm->cache_ok : hpm->gen_ok);
	}
	/*
	 * Can a programmable counter count cycles, instructions? The firmware
	 * answers "no" the same way when none is free (another SBI user holds
	 * them all): only a "no" while one was free above counts; otherwise
	 * assume they can, as before this check. (The events above keep
	 * their "no": the same answer comes from a firmware without an event
	 * map for the programmable counters, where they would never count.)
	 */
	for (code = SIFIVE_HPM_GEN_CPU_CYCLES; code <= SIFIVE_HPM_GEN_INSTRUCTIONS; code++) {
		unsigned long bit = BIT(code == SIFIVE_HPM_GEN_CPU_CYCLES ? SIFIVE_HPM_CTR_CYCLE :
					SIFIVE_HPM_CTR_INSTRET);

		idx = hpm->ops->config_matching(hpm->ctx, 0, hpm->prog_mask, 0,
						SIFIVE_HPM_EVENT_IDX(SIFIVE_HPM_TYPE_GENERAL,
								     code), 0);
		if (idx >= 0 && !hpm_idx_fixed(idx))
			hpm->ops->stop(hpm->ctx, idx, 1, SIFIVE_HPM_STOP_FLAG_RESET);
		if (!prog_free || (idx >= 0 && idx < SIFIVE_HPM_MAX_COUNTERS &&
				   (hpm->prog_mask & BIT(idx))))
			hpm->prog_fixed_ok |= bit;
	}
}

static int hpm_read_harts(struct device *dev, struct cpumask *harts)
{
	unsigned int n, cpu;

	if (device_property_read_u32(dev, "sifive,num-harts", &n)) {
		cpumask_copy(harts, cpu_possible_mask);
		return 0;
	}
	cpumask_clear(harts);
	for_each_possible_cpu(cpu)
		if (cpu < n)
			cpumask_set_cpu(cpu, harts);
	return cpumask_empty(harts) ? -EINVAL : 0;
}

/* Unregister and free a removed PMU once perf has let go of it (socpmu core) */
static void hpm_release(struct socpmu_life *life)
{
	struct sifive_hpm *hpm = container_of(life, struct sifive_hpm, life);
	int cpu;

	/*
	 * perf_pmu_unregister() (6.12) frees the per-CPU PMU contexts without
	 * stopping their multiplexing hrtimers; no event is left to arm them
	 * again, so stop them first (as the socpmu core does).
	 */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(hpm->pmu.cpu_pmu_context, cpu)->hrtimer);
	perf_pmu_unregister(&hpm->pmu);
	irq_work_sync(&hpm->rewrite_work);
	free_percpu(hpm->cpus);
	ida_free(&hpm_ida, hpm->id);
	/* Under fault injection, a use of the freed PMU (pmu.module...) faults */
	if (life->destroy_delay_us)
		memset(hpm, POISON_FREE, sizeof(*hpm));
	kfree(hpm);
}

static int hpm_probe(struct platform_device *pdev)
{
	const struct sifive_hpm_platform_data *pdata = dev_get_platdata(&pdev->dev);
	struct device *dev = &pdev->dev;
	struct sifive_hpm *hpm;
	unsigned int i, width, min_width = 64, cpu;
	u64 clock_hz;
	int ret;

	hpm = kzalloc(sizeof(*hpm), GFP_KERNEL);
	if (!hpm)
		return -ENOMEM;
	if (pdata) {
		hpm->ops = pdata->ops;
		hpm->ctx = pdata->ctx;
	} else {
		hpm->ops = hpm_sbi_backend(&hpm->filter);
	}
	ret = -ENODEV;
	if (!hpm->ops)
		goto err_free;
	ret = hpm_read_harts(dev, &hpm->harts);
	if (ret) {
		dev_err(dev, "bad sifive,num-harts\n");
		goto err_free;
	}
	if (socpmu_read_clock(dev, &clock_hz))
		clock_hz = HPM_DEFAULT_CLOCK_HZ;

	hpm->nr_counters = min(hpm->ops->num_counters(hpm->ctx), SIFIVE_HPM_MAX_COUNTERS);
	for (i = 0; i < hpm->nr_counters; i++) {
		hpm->info[i] = hpm->ops->counter_info(hpm->ctx, i);
		width = SIFIVE_HPM_INFO_WIDTH(hpm->info[i]);
		hpm->width_mask[i] = GENMASK_ULL(width - 1, 0);
		/* The time CSR: 64 bits, read by the backend whatever its info says */
		if (i == SIFIVE_HPM_CTR_TIME)
			hpm->width_mask[i] = U64_MAX;
		if (!hpm->info[i] || i < SIFIVE_HPM_CTR_HPM0)
			continue;
		hpm->prog_mask |= BIT(i);
		min_width = min(min_width, width);
	}
	if (hpm->nr_counters <= SIFIVE_HPM_CTR_INSTRET) {
		dev_err(dev, "no counters\n");
		ret = -ENODEV;
		goto err_free;
	}
	/* At most one increment per cycle */
	hpm->poll_ns = socpmu_poll_ns(clock_hz, min_width);

	cpu = cpumask_first_and(&hpm->harts, cpu_online_mask);
	if (cpu < nr_cpu_ids)
		smp_call_function_single(cpu, hpm_check_events, hpm, 1);

	init_irq_work(&hpm->rewrite_work, hpm_rewrite_report);
	hpm->cpus = alloc_percpu(struct hpm_cpu);
	ret = -ENOMEM;
	if (!hpm->cpus)
		goto err_free;
	for_each_possible_cpu(cpu) {
		struct hpm_cpu *cpuc = per_cpu_ptr(hpm->cpus, cpu);

		cpuc->hpm = hpm;
		INIT_LIST_HEAD(&cpuc->time_events);
		hrtimer_init(&cpuc->poll, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		cpuc->poll.function = hpm_poll;
	}

	ret = ida_alloc(&hpm_ida, GFP_KERNEL);
	if (ret < 0)
		goto err_percpu;
	hpm->id = ret;
	if (hpm->id)
		snprintf(hpm->name, sizeof(hpm->name), "sifive_hpm_%d", hpm->id);
	else
		strscpy(hpm->name, "sifive_hpm");
	ratelimit_state_init(&hpm->refuse_rs, 5 * HZ, 10);
	ratelimit_set_flags(&hpm->refuse_rs, RATELIMIT_MSG_ON_RELEASE);

	if (hpm->ops->set_overflow_handler && hpm->ops->read_overflow)
		hpm->overflow_irq = !hpm->ops->set_overflow_handler(hpm->ctx, hpm_overflow, hpm);
	hpm->sampling = HPM_CAN_SAMPLE && hpm->overflow_irq;
	/*
	 * Counters that wrap faster than the poll timer can serve are kept by
	 * their overflow interrupt; without one they would lose counts.
	 */
	if (!hpm->poll_ns) {
		if (!hpm->overflow_irq) {
			dev_err(dev, "%u-bit counters at %llu Hz wrap in under 400 us and there is no overflow interrupt\n",
				min_width, clock_hz);
			ret = -EINVAL;
			goto err_handler;
		}
		hpm->poll_ns = socpmu_poll_ns(clock_hz, 64);
	}

	hpm->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.attr_groups	= hpm_groups,
		.task_ctx_nr	= perf_hw_context,
		.capabilities	= (hpm->sampling ? 0 : PERF_PMU_CAP_NO_INTERRUPT) |
				  (hpm->filter ? 0 : PERF_PMU_CAP_NO_EXCLUDE),
		.event_init	= hpm_event_init,
		.add		= hpm_add,
		.del		= hpm_del,
		.start		= hpm_start,
		.stop		= hpm_stop,
		.read		= hpm_read,
		.event_idx	= hpm_event_idx,
		.filter		= hpm_filter,
	};
	platform_set_drvdata(pdev, hpm);
	ret = cpuhp_state_add_instance_nocalls(hpm_cpuhp_state, &hpm->node);
	if (ret)
		goto err_handler;
	socpmu_life_init(&hpm->life, &hpm->pmu, dev, hpm_release);
	ret = perf_pmu_register(&hpm->pmu, hpm->name, -1);
	if (ret)
		goto err_cpuhp;
	socpmu_life_add(&hpm->life);

	dev_info(dev, "%s: %u counters (%u programmable, %u bits), harts %*pbl%s\n",
		 hpm->name, hpm->nr_counters,
		 bitmap_weight(&hpm->prog_mask, SIFIVE_HPM_MAX_COUNTERS),
		 hpm->prog_mask ? min_width : 0, cpumask_pr_args(&hpm->harts),
		 hpm->overflow_irq ? ", overflow interrupt" : "");
	return 0;

err_cpuhp:
	cpuhp_state_remove_instance_nocalls(hpm_cpuhp_state, &hpm->node);
err_handler:
	if (hpm->overflow_irq)
		hpm->ops->set_overflow_handler(hpm->ctx, NULL, NULL);
	ida_free(&hpm_ida, hpm->id);
err_percpu:
	free_percpu(hpm->cpus);
err_free:
	kfree(hpm);
	return dev_err_probe(dev, ret, "probe failed\n");
}

/*
 * Bank the counts of this CPU's running events, timestamp events included,
 * and release its programmable counters
 */
static void hpm_freeze_cpu(void *data)
{
	struct sifive_hpm *hpm = data;
	struct hpm_cpu *cpuc = this_cpu_ptr(hpm->cpus);
	struct perf_event *event;
	unsigned int idx;

	for_each_set_bit(idx, &cpuc->used, SIFIVE_HPM_MAX_COUNTERS) {
		event = cpuc->events[idx];
		if (!(event->hw.state & PERF_HES_STOPPED))
			hpm_event_update(hpm, event);
		if (!hpm_idx_fixed(idx))
			hpm->ops->stop(hpm->ctx, idx, 1, SIFIVE_HPM_STOP_FLAG_RESET);
	}
	list_for_each_entry(event, &cpuc->time_events, active_entry)
		if (!(event->hw.state & PERF_HES_STOPPED))
			hpm_event_update(hpm, event);
}

/*
 * CPU hotplug, once the CPU is dead: stop its poll timer, which the hrtimer
 * core moved to another CPU. There it would still be queued when this CPU
 * comes back, and the next event here would find a timer that is queued but
 * not polling this CPU's counters. Not earlier: until perf has taken the
 * CPU's events off it (CPUHP_AP_PERF_ONLINE, below the dynamic online
 * states, so torn down after them), a multiplexing rotation on the CPU can
 * add an event there again and start the timer.
 */
static int hpm_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct sifive_hpm *hpm = hlist_entry_safe(node, struct sifive_hpm, node);

	hrtimer_cancel(&per_cpu_ptr(hpm->cpus, cpu)->poll);
	return 0;
}

/*
 * The device goes away. Perf in 6.12 cannot unregister a PMU that still has
 * events, so with events open the PMU stays registered but dead: their
 * counts freeze, nothing reaches the backend again. The socpmu core frees
 * it once perf has let go of it (socpmu_life_remove()): after the last
 * event, the software events grouped with ours that stay in the PMU's part
 * of the perf context (the pin) and perf's last use of the PMU for them.
 */
static void hpm_remove(struct platform_device *pdev)
{
	struct sifive_hpm *hpm = platform_get_drvdata(pdev);
	unsigned int cpu;

	if (hpm->overflow_irq)
		hpm->ops->set_overflow_handler(hpm->ctx, NULL, NULL);
	/*
	 * Every callback that touches the backend runs with interrupts off on
	 * its CPU, so once the IPI has run everywhere none still does, and
	 * later ones see @dead.
	 */
	WRITE_ONCE(hpm->dead, true);
	cpuhp_state_remove_instance_nocalls(hpm_cpuhp_state, &hpm->node);
	on_each_cpu(hpm_freeze_cpu, hpm, 1);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(hpm->cpus, cpu)->poll);

	/* Set @dead before counting the events: pairs with the barrier in hpm_event_init() */
	smp_mb();
	if (socpmu_life_remove(&hpm->life))
		pr_info("%s: device removed with events open, counts frozen\n", hpm->name);
}

static const struct platform_device_id hpm_ids[] = {
	{ "sifive-hpm" },
	{ }
};
MODULE_DEVICE_TABLE(platform, hpm_ids);

static struct platform_driver hpm_driver = {
	.driver = {
		.name = "sifive-hpm",
		.suppress_bind_attrs = true,
	},
	.id_table = hpm_ids,
	.probe = hpm_probe,
	.remove = hpm_remove,
};

static struct platform_device *hpm_sbi_pdev;

static int __init hpm_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "perf/sifive_hpm:dead",
				      NULL, hpm_cpu_dead);
	if (ret < 0)
		return ret;
	hpm_cpuhp_state = ret;
	ret = platform_driver_register(&hpm_driver);
	if (ret)
		goto err_cpuhp;
	if (!hpm_sbi_present())
		return 0;
	hpm_sbi_pdev = platform_device_register_simple("sifive-hpm", PLATFORM_DEVID_NONE,
						       NULL, 0);
	if (IS_ERR(hpm_sbi_pdev)) {
		ret = PTR_ERR(hpm_sbi_pdev);
		platform_driver_unregister(&hpm_driver);
		goto err_cpuhp;
	}
	return 0;

err_cpuhp:
	cpuhp_remove_multi_state(hpm_cpuhp_state);
	return ret;
}
module_init(hpm_init);

static void __exit hpm_exit(void)
{
	if (!IS_ERR_OR_NULL(hpm_sbi_pdev))
		platform_device_unregister(hpm_sbi_pdev);
	platform_driver_unregister(&hpm_driver);
	/* Perf holds a module reference per event and pin: none is left now */
	socpmu_life_reap(THIS_MODULE);
	cpuhp_remove_multi_state(hpm_cpuhp_state);
}
module_exit(hpm_exit);

MODULE_DESCRIPTION("SiFive HPM counter PMU");
MODULE_LICENSE("GPL");
