// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu simulator: SiFive HPM counters (U74 class), with the SBI PMU
 * firmware in front of them.
 *
 * Hart h is Linux CPU h. Per hart:
 *  - counter 0 (cycle), 1 (time), 2 (instret): fixed, 64 bits; time is the
 *    shared 1 MHz timebase and never stops;
 *  - counters 3 .. 3+K-1: hpmcounters of `width` bits, each counting what
 *    its mhpmevent selects: a U74 event class in bits 7:0 and a mask of the
 *    class's events above; the selected events of a class are ORed (in a
 *    cycle where several of them occur the counter still counts one);
 *  - mcountinhibit: an inhibited counter does not count;
 *  - counters wrap at their width. With sscofpmf=1 a wrapping hpmcounter
 *    sets its OF flag (bit 63 of mhpmevent, shadowed in scountovf) and, on
 *    the flag's 0 -> 1 transition, raises the local counter overflow
 *    interrupt on its hart: the handler the driver registered runs in hard
 *    interrupt context on that CPU (an irq_work when the overflow happens
 *    on the hart's own CPU, else an IPI).
 * Activity: a rate model and injection. The cycle counter follows the
 * wall-clock time at freq_mhz while it is not inhibited; instret and every
 * U74 event occur at a rate per 1000 cycles set in debugfs "rate" (0 by
 * default, so that injected counts are exact). The model is brought up to
 * date lazily, whenever the hart is looked at.
 *
 * The driver does not see these registers: it sees the SBI PMU extension
 * (struct sifive_hpm_ops) that this file implements like OpenSBI 1.1's
 * sbi_pmu.c does: counter_config_matching picks a free programmable
 * counter that can count the event (general and cache events through a
 * U74 event map, raw events as the mhpmevent value); cycles and
 * instructions (the U74 has no selector for them) always get their fixed
 * counter, whatever the counter mask and however many users it has: the
 * fixed counters are never exclusive. The fixed counters start configured
 * (unless strict_skip=1, as KVM's SBI), SKIP_MATCH takes any configured
 * counter, CLEAR_VALUE zeroes the counter, start/stop drive mcountinhibit
 * (a running counter is "already started" and keeps its value, a stopped
 * one "already stopped"), stop with RESET releases a counter, and counter
 * 1 (time) is not mapped by counter_info: the time CSR is read directly.
 *
 * A second SBI user of the same harts, as riscv_pmu_sbi is on a real
 * system, can be played through debugfs "user": it opens cycles or
 * instret like riscv_pmu_sbi does (a normal match, then start with an
 * initial value of 2^63 + 1, its prev_count) and reports its count as the
 * counter's difference to that value, so that a driver that clears, stops
 * or resets a shared fixed counter shows up in that user's count. It can
 * also hold every free programmable counter of a hart (riscv_pmu_sbi with
 * as many events open), with user_prog=1 from the device's creation, so
 * already when the driver probes. With sbi_pmu=1 the second user is also a
 * perf PMU, "sbi_<device name>", whose events do with the counters what
 * riscv_pmu_sbi's do at each schedule-in and -out (below), so that a task
 * can count with both drivers, as `perf stat -e cycles,sifive_hpm/cycles/`
 * does on a RISC-V system.
 *
 * qemu=1 plays QEMU 7.2's fixed counters (the RISC-V bench) instead of a
 * hart's: they follow the clock whatever mcountinhibit says, a stopped one
 * reads live once after it was started and then as the value last written
 * to it; a start without a value goes on from the live count. On a hart
 * (the default) a stopped counter holds its count.
 *
 * debugfs, in /sys/kernel/debug/socpmu_sim/<name>/:
 *   inject  "<hart|all> <event>[,<event>...] <n>": n cycles in which every
 *           listed event occurs; each counter counting one of them (and not
 *           inhibited) gains n. Events: cycle, instret, a U74 event name
 *           (sifive_hpm's aliases) or an mhpmevent value (class | mask).
 *   rate    "<hart|all> <event> <r>": instret or one U74 event occurs r
 *           times per 1000 cycles (0..1000); reading lists the rates.
 *   state   the counters of every hart.
 *   ops     SBI calls made by the driver: "config N\nstart N\nstop N\n
 *           read N\n"; writing 0 resets them.
 *   user    "<hart> <cycles|instret> <open|close>": the second SBI user;
 *           reading lists its open events, "<hart> <event> counter=<i>
 *           count=<n> running=<0|1> configured=<0|1>". "<hart> prog
 *           <open|close>": it takes every free programmable counter (a raw
 *           U74 event each, started), or gives back those it holds; they
 *           are listed as "<hart> prog counters=<mask>".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": hpm: " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/units.h>

#include <socpmu/sifive_hpm.h>

#include "sim.h"

#define HPM_SIM_TIMEBASE_HZ	1000000ULL
#define HPM_SIM_MAX_MHZ		100000
#define HPM_SIM_RATE_ONE	1000	/* rate of one event per cycle */
#define HPM_SIM_OF		BIT_ULL(63)
#define HPM_SIM_INH_SHIFT	58	/* Sscofpmf VUINH..MINH: mhpmevent bits 58-62 */
#define HPM_SIM_SEL_MASK	(SIFIVE_U74_CLASS0_EVENTS | SIFIVE_U74_CLASS_MASK)

/* Rate model events: 0 is instret, 1 + i the U74 event i */
#define HPM_SIM_EV_INSTRET	0
#define HPM_SIM_NR_EV		(1 + SIFIVE_U74_NR_EVENTS)

struct hpm_sim_event {
	const char *name;
	u64 sel;	/* class | one mask bit */
};

static const struct hpm_sim_event hpm_sim_u74[] = {
#define HPM_SIM_EV(n, v, d) { #n, v },
	SIFIVE_U74_EVENTS(HPM_SIM_EV)
#undef HPM_SIM_EV
};

static const struct hpm_sim_event hpm_sim_aliases[] = {
#define HPM_SIM_EV(n, v, d) { #n, v },
	SIFIVE_U74_ALIASES(HPM_SIM_EV)
#undef HPM_SIM_EV
};

/* The firmware's event map: what general and cache events select on a U74 */
#define HPM_SIM_FIXED_CYCLE	(~0ULL)
#define HPM_SIM_FIXED_INSTRET	(~1ULL)

static const u64 hpm_sim_general_map[SIFIVE_HPM_GEN_MAX] = {
	[SIFIVE_HPM_GEN_CPU_CYCLES]		= HPM_SIM_FIXED_CYCLE,
	[SIFIVE_HPM_GEN_INSTRUCTIONS]		= HPM_SIM_FIXED_INSTRET,
	[SIFIVE_HPM_GEN_CACHE_MISSES]		= 0x0302,	/* I$ | D$ miss */
	[SIFIVE_HPM_GEN_BRANCH_INSTRUCTIONS]	= 0x4000,	/* conditional branch */
	[SIFIVE_HPM_GEN_BRANCH_MISSES]		= 0x6001,	/* direction | target */
};

#define HPM_SIM_MISS(id, op)	SIFIVE_HPM_CACHE_CODE(SIFIVE_HPM_CACHE_##id, \
						      SIFIVE_HPM_OP_##op, SIFIVE_HPM_RESULT_MISS)
static const u64 hpm_sim_cache_map[SIFIVE_HPM_CACHE_NR_CODES] = {
	[HPM_SIM_MISS(L1D, READ)]	= 0x0202,
	[HPM_SIM_MISS(L1D, WRITE)]	= 0x0202,
	[HPM_SIM_MISS(L1I, READ)]	= 0x0102,
	[HPM_SIM_MISS(DTLB, READ)]	= 0x1002,
	[HPM_SIM_MISS(DTLB, WRITE)]	= 0x1002,
	[HPM_SIM_MISS(ITLB, READ)]	= 0x0802,
	[HPM_SIM_MISS(BPU, READ)]	= 0x6001,
};

struct hpm_sim_cfg {
	unsigned int harts;	/* 0: every possible CPU */
	unsigned int counters;
	unsigned int width;
	unsigned int freq_mhz;
	bool sscofpmf;
	bool strict_skip;
	bool user_prog;
	bool qemu;
	bool sbi_pmu;
};

/**
 * struct hpm_sim_hart - the counters of one hart
 * @lock: protects everything below
 * @ctr: counter values (within their width); @ctr[1] is unused (time)
 * @mhpmevent: selectors of counters 3..; with Sscofpmf, OF and the
 *	inhibit-in-mode bits on top
 * @event_idx: firmware: the SBI event each configured counter counts
 * @event_data: firmware: its event_data
 * @inhibit: mcountinhibit
 * @configured: firmware: counters given out by config_matching
 * @last_ns: time up to which the rate model has played
 * @rate: events per 1000 cycles, HPM_SIM_EV_*
 * @frac: fractions of events carried over, in 1/1000
 * @user_idx: the second SBI user: the counter of its cycles and instret
 *	event, -1 when not open
 * @user_prev: its prev_count (riscv_pmu_sbi's: the start value it asked for)
 * @user_prog: the programmable counters the second SBI user holds
 * @written: QEMU 7.2 (qemu=1): the value last written to each fixed counter
 * @qemu_started: QEMU 7.2: the fixed counters started and not read since
 *	they were stopped (the first read of a stopped counter is live)
 * @sbi_used: the counters events of the model's riscv_pmu_sbi PMU hold
 * @lcofi: the counter overflow interrupt, raised on the hart's own CPU
 * @lcofi_ipi: the same, raised from another CPU
 * @sim: the model
 * @cpu: the hart's CPU
 */
struct hpm_sim_hart {
	raw_spinlock_t lock;
	u64 ctr[SIFIVE_HPM_MAX_COUNTERS];
	u64 mhpmevent[SIFIVE_HPM_MAX_COUNTERS];
	unsigned long event_idx[SIFIVE_HPM_MAX_COUNTERS];
	u64 event_data[SIFIVE_HPM_MAX_COUNTERS];
	u32 inhibit;
	u32 configured;
	u64 last_ns;
	u32 rate[HPM_SIM_NR_EV];
	u32 frac[HPM_SIM_NR_EV];
	int user_idx[2];
	u64 user_prev[2];
	u32 user_prog;
	u64 written[SIFIVE_HPM_CTR_HPM0];
	u32 qemu_started;
	u32 sbi_used;
	struct irq_work lcofi;
	call_single_data_t lcofi_ipi;
	struct hpm_sim *sim;
	unsigned int cpu;
};

/**
 * struct hpm_sim - the model of one device
 * @cfg: its configuration
 * @nr: number of counters (3 fixed + cfg->counters)
 * @mask: width mask of the hpmcounters
 * @freq_hz: hart clock
 * @epoch_ns: time 0 of the cycle and time counters
 * @ovf_fn: overflow handler of the driver (NULL: none)
 * @ovf_data: its argument
 * @calls: SBI calls: config, start, stop, read
 * @sbi_pmu: the second SBI user as riscv_pmu_sbi, a perf PMU (sbi_pmu=1)
 * @sbi_name: its name, "sbi_<device name>"
 * @sbi_events: its events that exist
 * @harts: per hart state
 */
struct hpm_sim {
	const struct hpm_sim_cfg *cfg;
	unsigned int nr;
	u64 mask;
	u64 freq_hz;
	u64 epoch_ns;
	void (*ovf_fn)(void *data);
	void *ovf_data;
	atomic64_t calls[4];
	struct pmu sbi_pmu;
	char sbi_name[SOCPMU_SIM_NAME_LEN + 8];
	atomic_t sbi_events;
	struct hpm_sim_hart harts[];
};

enum { HPM_CALL_CONFIG, HPM_CALL_START, HPM_CALL_STOP, HPM_CALL_READ };
static const char *const hpm_sim_call_names[] = { "config", "start", "stop", "read" };

/* ---- configuration ---- */

static void hpm_sim_cfg_init(void *data)
{
	struct hpm_sim_cfg *cfg = data;

	cfg->counters = 2;	/* as on a U74 */
	cfg->width = 40;
	cfg->freq_mhz = 1000;
}

static int hpm_sim_cfg_parse(void *data, const char *key, const char *val)
{
	struct hpm_sim_cfg *cfg = data;
	unsigned int v;
	int ret;

	if (!strcmp(key, "harts"))
		return socpmu_sim_parse_uint(key, val, 1, nr_cpu_ids, &cfg->harts);
	if (!strcmp(key, "counters"))
		return socpmu_sim_parse_uint(key, val, 0, SIFIVE_HPM_MAX_PROGRAMMABLE,
					     &cfg->counters);
	if (!strcmp(key, "width"))
		return socpmu_sim_parse_uint(key, val, 8, 64, &cfg->width);
	if (!strcmp(key, "freq_mhz"))
		return socpmu_sim_parse_uint(key, val, 1, HPM_SIM_MAX_MHZ, &cfg->freq_mhz);
	if (!strcmp(key, "sscofpmf")) {
		ret = socpmu_sim_parse_uint(key, val, 0, 1, &v);
		cfg->sscofpmf = v;
		return ret;
	}
	if (!strcmp(key, "strict_skip")) {
		ret = socpmu_sim_parse_uint(key, val, 0, 1, &v);
		cfg->strict_skip = v;
		return ret;
	}
	if (!strcmp(key, "user_prog")) {
		ret = socpmu_sim_parse_uint(key, val, 0, 1, &v);
		cfg->user_prog = v;
		return ret;
	}
	if (!strcmp(key, "qemu")) {
		ret = socpmu_sim_parse_uint(key, val, 0, 1, &v);
		cfg->qemu = v;
		return ret;
	}
	if (!strcmp(key, "sbi_pmu")) {
		ret = socpmu_sim_parse_uint(key, val, 0, 1, &v);
		cfg->sbi_pmu = v;
		return ret;
	}
	pr_debug("unknown parameter \"%s\"\n", key);
	return -EINVAL;
}

static int hpm_sim_cfg_show(const void *data, char *buf, int at)
{
	const struct hpm_sim_cfg *cfg = data;

	return sysfs_emit_at(buf, at,
			     " harts=%u counters=%u width=%u freq_mhz=%u sscofpmf=%u strict_skip=%u user_prog=%u qemu=%u sbi_pmu=%u",
			     cfg->harts, cfg->counters, cfg->width, cfg->freq_mhz,
			     cfg->sscofpmf, cfg->strict_skip, cfg->user_prog, cfg->qemu,
			     cfg->sbi_pmu);
}

/* ---- the counters ---- */

static u64 hpm_sim_cycles_at(struct hpm_sim *hs, u64 ns)
{
	return mul_u64_u64_div_u64(ns - hs->epoch_ns, hs->freq_hz, NSEC_PER_SEC);
}

static u64 hpm_sim_width_mask(struct hpm_sim *hs, unsigned int idx)
{
	return idx < SIFIVE_HPM_CTR_HPM0 ? U64_MAX : hs->mask;
}

/*
 * Does counter @idx count? Not while inhibited, but QEMU 7.2's fixed
 * counters (qemu=1) follow the host clock whatever mcountinhibit says: a
 * stopped one counts on underneath, and reads as the value last written
 * (hpm_sim_do_read()).
 */
static bool hpm_sim_counting(struct hpm_sim_hart *h, unsigned int idx)
{
	return !(h->inhibit & BIT(idx)) || (h->sim->cfg->qemu && idx < SIFIVE_HPM_CTR_HPM0);
}

/* A write of @val to counter @idx (SBI start with a value, CLEAR_VALUE) */
static void hpm_sim_write(struct hpm_sim_hart *h, unsigned int idx, u64 val)
{
	h->ctr[idx] = val & hpm_sim_width_mask(h->sim, idx);
	if (idx < SIFIVE_HPM_CTR_HPM0)
		h->written[idx] = h->ctr[idx];
}

/*
 * What a read of counter @idx returns; h->lock held. On a hart a stopped
 * counter holds its count. QEMU 7.2 (qemu=1) reads a stopped fixed counter
 * live once, the first time after it was started, and from then on as
 * the value last written to it.
 */
static u64 hpm_sim_do_read(struct hpm_sim_hart *h, unsigned int idx)
{
	if (h->sim->cfg->qemu && idx < SIFIVE_HPM_CTR_HPM0 && (h->inhibit & BIT(idx))) {
		if (!(h->qemu_started & BIT(idx)))
			return h->written[idx];
		h->qemu_started &= ~BIT(idx);
	}
	return h->ctr[idx];
}

/* Add @n to counter @idx; true when this raised the overflow interrupt. */
static bool hpm_sim_count(struct hpm_sim_hart *h, unsigned int idx, u64 n)
{
	struct hpm_sim *hs = h->sim;
	u64 mask = hpm_sim_width_mask(hs, idx), old = h->ctr[idx], val;
	bool wrapped;

	if (!n || !hpm_sim_counting(h, idx))
		return false;
	wrapped = check_add_overflow(old, n, &val) || val > mask;
	h->ctr[idx] = val & mask;
	if (!wrapped || !hs->cfg->sscofpmf || idx < SIFIVE_HPM_CTR_HPM0 ||
	    (h->mhpmevent[idx] & HPM_SIM_OF))
		return false;
	h->mhpmevent[idx] |= HPM_SIM_OF;
	return true;
}

/* Does selector @sel count an occurrence of the events in @fired (per class)? */
static bool hpm_sim_selects(u64 sel, const u64 *fired)
{
	u64 cls = sel & SIFIVE_U74_CLASS_MASK;

	return cls < SIFIVE_U74_NR_CLASSES && (fired[cls] & sel & ~SIFIVE_U74_CLASS_MASK);
}

/* Play the rate model up to @now; true when an overflow interrupt is due. */
static bool hpm_sim_sync(struct hpm_sim_hart *h, u64 now)
{
	struct hpm_sim *hs = h->sim;
	u64 inc[HPM_SIM_NR_EV] = { }, dc, q, v, sum, sel;
	u8 fired[SIFIVE_U74_NR_EVENTS];
	unsigned int e, i, k, nfired = 0;
	u32 r;
	bool irq = false, any = false;

	lockdep_assert_held(&h->lock);
	if (now <= h->last_ns)
		return false;
	dc = hpm_sim_cycles_at(hs, now) - hpm_sim_cycles_at(hs, h->last_ns);
	h->last_ns = now;
	if (!dc)
		return false;
	irq |= hpm_sim_count(h, SIFIVE_HPM_CTR_CYCLE, dc);

	q = div_u64_rem(dc, HPM_SIM_RATE_ONE, &r);
	for (e = 0; e < HPM_SIM_NR_EV; e++) {
		if (!h->rate[e])
			continue;
		/* dc * rate / 1000 without overflow, the remainder carried over */
		v = (u64)r * h->rate[e] + h->frac[e];
		inc[e] = q * h->rate[e] + div_u64_rem(v, HPM_SIM_RATE_ONE, &h->frac[e]);
		any = true;
		/* the U74 events that occurred, for the loop over the counters */
		if (e != HPM_SIM_EV_INSTRET && inc[e])
			fired[nfired++] = e - 1;
	}
	if (!any)
		return irq;
	irq |= hpm_sim_count(h, SIFIVE_HPM_CTR_INSTRET, inc[HPM_SIM_EV_INSTRET]);
	for (i = SIFIVE_HPM_CTR_HPM0; i < hs->nr; i++) {
		sel = h->mhpmevent[i] & HPM_SIM_SEL_MASK;
		sum = 0;
		for (k = 0; k < nfired; k++) {
			u64 ev = hpm_sim_u74[fired[k]].sel;

			if ((ev & SIFIVE_U74_CLASS_MASK) != (sel & SIFIVE_U74_CLASS_MASK))
				continue;
			if (sel & ev & ~SIFIVE_U74_CLASS_MASK)
				sum += inc[1 + fired[k]];
		}
		/* ORed events: at most one per cycle */
		irq |= hpm_sim_count(h, i, min(sum, dc));
	}
	return irq;
}

/* The interrupt, in hard interrupt context on the hart's CPU */
static void hpm_sim_lcofi_ipi(void *data)
{
	struct hpm_sim_hart *h = data;
	struct hpm_sim *hs = h->sim;
	/* Pairs with the release in hpm_sim_set_overflow_handler(): ovf_data is set */
	void (*fn)(void *data) = smp_load_acquire(&hs->ovf_fn);

	if (fn)
		fn(READ_ONCE(hs->ovf_data));
}

static void hpm_sim_lcofi(struct irq_work *work)
{
	hpm_sim_lcofi_ipi(container_of(work, struct hpm_sim_hart, lcofi));
}

/*
 * Deliver the overflow interrupt of @h; call without h->lock. Never at
 * once: the driver may be in the middle of an op on this CPU. A pending
 * interrupt is not raised twice.
 */
static void hpm_sim_raise(struct hpm_sim_hart *h)
{
	int cpu;

	if (!READ_ONCE(h->sim->ovf_fn))
		return;
	cpu = get_cpu();
	if (cpu == h->cpu)
		irq_work_queue(&h->lcofi);
	else if (cpu_online(h->cpu))
		smp_call_function_single_async(h->cpu, &h->lcofi_ipi);
	put_cpu();
}

/*
 * Wait until no overflow interrupt is pending or running. An IPI releases
 * its csd before it calls the function, in the same interrupts-off section:
 * an RCU grace period covers the rest.
 */
static void hpm_sim_lcofi_sync(struct hpm_sim *hs)
{
	unsigned int i;

	for (i = 0; i < hs->cfg->harts; i++) {
		irq_work_sync(&hs->harts[i].lcofi);
		/* As csd_lock_wait(): the flag clears when the IPI has taken the csd */
		while (smp_load_acquire(&hs->harts[i].lcofi_ipi.node.u_flags) & CSD_FLAG_LOCK)
			cpu_relax();
	}
	synchronize_rcu();
}

static struct hpm_sim_hart *hpm_sim_this_hart(struct hpm_sim *hs)
{
	unsigned int cpu = smp_processor_id();

	return cpu < hs->cfg->harts ? &hs->harts[cpu] : NULL;
}

/* ---- the SBI PMU firmware ---- */

static unsigned int hpm_sim_num_counters(void *ctx)
{
	struct hpm_sim *hs = ctx;

	return hs->nr;
}

static unsigned long hpm_sim_counter_info(void *ctx, unsigned int idx)
{
	struct hpm_sim *hs = ctx;

	/* As OpenSBI: counter 1 (time) is not mapped */
	if (idx >= hs->nr || idx == SIFIVE_HPM_CTR_TIME)
		return 0;
	return SIFIVE_HPM_INFO(SIFIVE_HPM_CSR_CYCLE + idx,
			       idx < SIFIVE_HPM_CTR_HPM0 ? 64 : hs->cfg->width);
}

/* The selector of an SBI event on a U74, a HPM_SIM_FIXED_*, or 0 if none */
static u64 hpm_sim_map(unsigned long event_idx, u64 data)
{
	unsigned long type = event_idx >> SIFIVE_HPM_CFG_TYPE_SHIFT;
	unsigned long code = event_idx & SIFIVE_HPM_CFG_CODE_MASK;

	switch (type) {
	case SIFIVE_HPM_TYPE_GENERAL:
		return code < SIFIVE_HPM_GEN_MAX && !data ? hpm_sim_general_map[code] : 0;
	case SIFIVE_HPM_TYPE_CACHE:
		return code < SIFIVE_HPM_CACHE_NR_CODES && !data ? hpm_sim_cache_map[code] : 0;
	case SIFIVE_HPM_TYPE_RAW:
		return !code && sifive_u74_event_valid(data) ? data : 0;
	}
	return 0;
}

/* Can counter @idx take an event whose selector is @sel? */
static bool hpm_sim_fits(struct hpm_sim *hs, unsigned int idx, u64 sel)
{
	if (idx == SIFIVE_HPM_CTR_CYCLE)
		return sel == HPM_SIM_FIXED_CYCLE;
	if (idx == SIFIVE_HPM_CTR_INSTRET)
		return sel == HPM_SIM_FIXED_INSTRET;
	if (idx == SIFIVE_HPM_CTR_TIME)
		return false;
	return sel != HPM_SIM_FIXED_CYCLE && sel != HPM_SIM_FIXED_INSTRET;
}

/* The counters of a cbase/cmask set, or 0 if it names a counter that does not exist */
static u32 hpm_sim_set(struct hpm_sim *hs, unsigned long cbase, unsigned long cmask)
{
	if (!cmask || cbase >= hs->nr || __fls(cmask) >= hs->nr - cbase)
		return 0;
	return (u32)(cmask << cbase);
}

/* The fixed counter of a selector, or -1 */
static int hpm_sim_fixed_of(u64 sel)
{
	if (sel == HPM_SIM_FIXED_CYCLE)
		return SIFIVE_HPM_CTR_CYCLE;
	if (sel == HPM_SIM_FIXED_INSTRET)
		return SIFIVE_HPM_CTR_INSTRET;
	return -1;
}

/* sbi_pmu_ctr_cfg_match() on hart @h, its lock held */
static long hpm_sim_do_config(struct hpm_sim *hs, struct hpm_sim_hart *h, u32 set,
			      unsigned long flags, unsigned long event_idx, u64 event_data)
{
	u64 sel = hpm_sim_map(event_idx, event_data);
	long idx = -EOPNOTSUPP;

	lockdep_assert_held(&h->lock);
	if (!sel)
		return -EOPNOTSUPP;
	if (flags & SIFIVE_HPM_CFG_FLAG_SKIP_MATCH) {
		unsigned int i = __ffs(set);

		/* Any configured counter, as OpenSBI checks no more */
		if (!(h->configured & BIT(i)))
			return -EINVAL;
		idx = i;
		goto skip_match;
	}
	idx = hpm_sim_fixed_of(sel);
	if (idx < 0) {
		unsigned long free = set & ~h->configured;
		unsigned int i;

		idx = -EOPNOTSUPP;
		for_each_set_bit(i, &free, hs->nr) {
			if (i >= SIFIVE_HPM_CTR_HPM0 && hpm_sim_fits(hs, i, sel)) {
				idx = i;
				break;
			}
		}
		if (idx < 0)
			return idx;
	}
	/* else: the fixed counter, whatever @set and whoever else counts on it */
	h->configured |= BIT(idx);
	h->event_idx[idx] = event_idx;
	h->event_data[idx] = event_data;
	if (idx >= SIFIVE_HPM_CTR_HPM0) {
		h->mhpmevent[idx] = sel;
		/* Sscofpmf: VUINH..MINH, flags bits 3-7, in mhpmevent bits 58-62 */
		if (hs->cfg->sscofpmf)
			h->mhpmevent[idx] |= (u64)((flags >> 3) & 0x1f) << HPM_SIM_INH_SHIFT;
	}
skip_match:
	if (flags & SIFIVE_HPM_CFG_FLAG_CLEAR_VALUE)
		hpm_sim_write(h, idx, 0);
	if (flags & SIFIVE_HPM_CFG_FLAG_AUTO_START)
		h->inhibit &= ~BIT(idx);
	return idx;
}

/* sbi_pmu_ctr_start() on hart @h, its lock held */
static int hpm_sim_do_start(struct hpm_sim *hs, struct hpm_sim_hart *h, u32 set,
			    unsigned long flags, u64 ival)
{
	unsigned long bits = set;
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&h->lock);
	if ((set & h->configured) != set)
		return -EINVAL;
	for_each_set_bit(i, &bits, hs->nr) {
		if (!(h->inhibit & BIT(i))) {
			/* Running already: the value stays */
			ret = -EALREADY;
			continue;
		}
		if (flags & SIFIVE_HPM_START_FLAG_SET_INIT_VALUE)
			hpm_sim_write(h, i, ival);
		h->inhibit &= ~BIT(i);
		h->qemu_started |= BIT(i);
		h->mhpmevent[i] &= ~HPM_SIM_OF;
	}
	return ret;
}

/* sbi_pmu_ctr_stop() on hart @h, its lock held */
static int hpm_sim_do_stop(struct hpm_sim *hs, struct hpm_sim_hart *h, u32 set,
			   unsigned long flags)
{
	unsigned long bits = set;
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&h->lock);
	if ((set & h->configured) != set)
		return -EINVAL;
	if ((h->inhibit & set) == set)
		ret = -EALREADY;
	h->inhibit |= set;
	if (flags & SIFIVE_HPM_STOP_FLAG_RESET) {
		h->configured &= ~set;
		for_each_set_bit(i, &bits, hs->nr) {
			h->event_idx[i] = 0;
			h->event_data[i] = 0;
			h->mhpmevent[i] = 0;
		}
	}
	return ret;
}

static long hpm_sim_config_matching(void *ctx, unsigned long cbase, unsigned long cmask,
				    unsigned long flags, unsigned long event_idx,
				    u64 event_data)
{
	struct hpm_sim *hs = ctx;
	struct hpm_sim_hart *h = hpm_sim_this_hart(hs);
	u32 set = hpm_sim_set(hs, cbase, cmask);
	unsigned long irqflags;
	long idx;
	bool irq;

	atomic64_inc(&hs->calls[HPM_CALL_CONFIG]);
	if (!h || !set)
		return -EINVAL;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, ktime_get_ns());
	idx = hpm_sim_do_config(hs, h, set, flags, event_idx, event_data);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
	return idx;
}

static int hpm_sim_start(void *ctx, unsigned long cbase, unsigned long cmask,
			 unsigned long flags, u64 ival)
{
	struct hpm_sim *hs = ctx;
	struct hpm_sim_hart *h = hpm_sim_this_hart(hs);
	u32 set = hpm_sim_set(hs, cbase, cmask);
	unsigned long irqflags;
	bool irq;
	int ret;

	atomic64_inc(&hs->calls[HPM_CALL_START]);
	if (!h || !set)
		return -EINVAL;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, ktime_get_ns());
	ret = hpm_sim_do_start(hs, h, set, flags, ival);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
	return ret;
}

static int hpm_sim_stop(void *ctx, unsigned long cbase, unsigned long cmask,
			unsigned long flags)
{
	struct hpm_sim *hs = ctx;
	struct hpm_sim_hart *h = hpm_sim_this_hart(hs);
	u32 set = hpm_sim_set(hs, cbase, cmask);
	unsigned long irqflags;
	bool irq;
	int ret;

	atomic64_inc(&hs->calls[HPM_CALL_STOP]);
	if (!h || !set)
		return -EINVAL;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, ktime_get_ns());
	ret = hpm_sim_do_stop(hs, h, set, flags);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
	return ret;
}

static u64 hpm_sim_read(void *ctx, unsigned int idx)
{
	struct hpm_sim *hs = ctx;
	struct hpm_sim_hart *h = hpm_sim_this_hart(hs);
	unsigned long irqflags;
	u64 now = ktime_get_ns(), val;
	bool irq;

	atomic64_inc(&hs->calls[HPM_CALL_READ]);
	if (!h || idx >= hs->nr)
		return 0;
	if (idx == SIFIVE_HPM_CTR_TIME)
		return mul_u64_u64_div_u64(now - hs->epoch_ns, HPM_SIM_TIMEBASE_HZ, NSEC_PER_SEC);
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, now);
	val = hpm_sim_do_read(h, idx);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
	return val;
}

static unsigned long hpm_sim_read_overflow(void *ctx)
{
	struct hpm_sim *hs = ctx;
	struct hpm_sim_hart *h = hpm_sim_this_hart(hs);
	unsigned long irqflags, ovf = 0;
	unsigned int i;
	bool irq;

	if (!h)
		return 0;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, ktime_get_ns());
	for (i = SIFIVE_HPM_CTR_HPM0; i < hs->nr; i++)
		if (h->mhpmevent[i] & HPM_SIM_OF)
			ovf |= BIT(i);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
	return ovf;
}

static int hpm_sim_set_overflow_handler(void *ctx, void (*fn)(void *data), void *data)
{
	struct hpm_sim *hs = ctx;

	if (!hs->cfg->sscofpmf)
		return -EOPNOTSUPP;
	if (fn) {
		WRITE_ONCE(hs->ovf_data, data);
		/* Publish @data with @fn: pairs with the acquire in hpm_sim_lcofi_ipi() */
		smp_store_release(&hs->ovf_fn, fn);
		return 0;
	}
	WRITE_ONCE(hs->ovf_fn, NULL);
	hpm_sim_lcofi_sync(hs);
	return 0;
}

static const struct sifive_hpm_ops hpm_sim_ops = {
	.num_counters		= hpm_sim_num_counters,
	.counter_info		= hpm_sim_counter_info,
	.config_matching	= hpm_sim_config_matching,
	.start			= hpm_sim_start,
	.stop			= hpm_sim_stop,
	.read			= hpm_sim_read,
	.read_overflow		= hpm_sim_read_overflow,
	.set_overflow_handler	= hpm_sim_set_overflow_handler,
};

/*
 * The second SBI user takes every free programmable counter of @h (a raw
 * event each, started from 0), as riscv_pmu_sbi with that many events
 * open; h->lock held
 */
static void hpm_sim_user_take_prog(struct hpm_sim *hs, struct hpm_sim_hart *h)
{
	u32 prog = (u32)GENMASK(SIFIVE_HPM_MAX_COUNTERS - 1, SIFIVE_HPM_CTR_HPM0);
	long idx;

	for (;;) {
		idx = hpm_sim_do_config(hs, h, prog & ~h->configured, 0,
					SIFIVE_HPM_EVENT_IDX(SIFIVE_HPM_TYPE_RAW, 0),
					hpm_sim_u74[0].sel);
		if (idx < 0)
			break;
		h->user_prog |= BIT(idx);
		hpm_sim_do_start(hs, h, BIT(idx), SIFIVE_HPM_START_FLAG_SET_INIT_VALUE, 0);
	}
}

/*
 * ---- the second SBI user as riscv_pmu_sbi: a perf PMU of the model ----
 *
 * With sbi_pmu=1 the model registers the PMU "sbi_<device name>" (before
 * the driver's, so that perf, which keeps a task's PMU contexts sorted by
 * type, schedules it first, as riscv_pmu_sbi, PMU type 4, is scheduled
 * before sifive_hpm). config 0 is cycles, 1 instructions; counting only.
 * It plays what riscv_pmu_sbi (Linux 6.12, drivers/perf/riscv_pmu.c and
 * riscv_pmu_sbi.c) does with the SBI calls of a counting event:
 *  - add (schedule-in): counter_config_matching over every counter (the
 *    fixed counter for cycles and instret without Sscofpmf), then start;
 *  - start: SBI start with SET_INIT_VALUE and -(period left), the period
 *    of a counting event being half the counter's range: 2^63 + 1 + the
 *    event's count so far, so that a counter stopped under it goes on from
 *    where it stopped; "already started" is ignored (the value is then not
 *    written, and the event's count is off by the difference);
 *  - stop: SBI stop, then the count is brought up to date from a read;
 *  - del (schedule-out): stop, then SBI stop with RESET (unconfigured).
 * Its count comes from the model's reads, as riscv_pmu_sbi's from the CSR.
 */
static struct hpm_sim *hpm_sim_of_pmu(struct pmu *pmu)
{
	return container_of(pmu, struct hpm_sim, sbi_pmu);
}

static void hpm_sim_sbi_destroy(struct perf_event *event)
{
	atomic_dec(&hpm_sim_of_pmu(event->pmu)->sbi_events);
}

static int hpm_sim_sbi_event_init(struct perf_event *event)
{
	struct hpm_sim *hs = hpm_sim_of_pmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->attr.config > 1 || event->attr.config1 || event->attr.config2)
		return -EINVAL;
	if (is_sampling_event(event))
		return -EOPNOTSUPP;
	if (event->cpu >= (int)hs->cfg->harts)
		return -ENOENT;
	hwc->idx = -1;
	hwc->event_base = event->attr.config ? SIFIVE_HPM_GEN_INSTRUCTIONS :
			  SIFIVE_HPM_GEN_CPU_CYCLES;
	/* riscv_pmu_event_init(): a counting event's period, half the range */
	hwc->sample_period = U64_MAX >> 1;
	hwc->last_period = hwc->sample_period;
	local64_set(&hwc->period_left, hwc->sample_period);
	atomic_inc(&hs->sbi_events);
	event->destroy = hpm_sim_sbi_destroy;
	return 0;
}

/* riscv_pmu_event_update(); h->lock held */
static void hpm_sim_sbi_update(struct hpm_sim_hart *h, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev, now, delta;

	if (hwc->state & PERF_HES_UPTODATE)
		return;
	prev = local64_read(&hwc->prev_count);
	now = hpm_sim_do_read(h, hwc->idx);
	delta = (now - prev) & hpm_sim_width_mask(h->sim, hwc->idx);
	local64_set(&hwc->prev_count, now);
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
}

/* Play hart @h's model up to now before an SBI call; h->lock held */
static bool hpm_sim_sbi_sync(struct hpm_sim_hart *h)
{
	return hpm_sim_sync(h, ktime_get_ns());
}

/* After the SBI call: the overflow interrupt the model raised meanwhile */
static void hpm_sim_sbi_done(struct hpm_sim_hart *h, bool irq)
{
	if (irq)
		hpm_sim_raise(h);
}

/* riscv_pmu_start(): riscv_pmu_event_set_period(), then the SBI start */
static void hpm_sim_sbi_start(struct perf_event *event, int flags)
{
	struct hpm_sim *hs = hpm_sim_of_pmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	u64 mask, ival;
	s64 left;
	bool irq;

	if (hwc->idx < 0)
		return;
	mask = hpm_sim_width_mask(hs, hwc->idx);
	left = local64_read(&hwc->period_left);
	if (left <= 0) {
		left += hwc->sample_period;
		local64_set(&hwc->period_left, left);
	}
	if (left > (s64)(mask >> 1))
		left = mask >> 1;
	ival = (u64)-left & mask;
	local64_set(&hwc->prev_count, ival);
	hwc->state = 0;
	h = hpm_sim_this_hart(hs);
	if (!h)
		return;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sbi_sync(h);
	/* "already started" is ignored, as riscv_pmu_sbi does */
	hpm_sim_do_start(hs, h, BIT(hwc->idx), SIFIVE_HPM_START_FLAG_SET_INIT_VALUE, ival);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	hpm_sim_sbi_done(h, irq);
}

/* riscv_pmu_stop(): the SBI stop, then the update */
static void hpm_sim_sbi_stop(struct perf_event *event, int flags)
{
	struct hpm_sim *hs = hpm_sim_of_pmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	bool irq;

	if ((hwc->state & PERF_HES_STOPPED) || hwc->idx < 0)
		return;
	h = hpm_sim_this_hart(hs);
	if (!h)
		return;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sbi_sync(h);
	hpm_sim_do_stop(hs, h, BIT(hwc->idx), 0);
	hwc->state |= PERF_HES_STOPPED;
	hpm_sim_sbi_update(h, event);
	hwc->state |= PERF_HES_UPTODATE;
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	hpm_sim_sbi_done(h, irq);
}

/* riscv_pmu_add() with pmu_sbi_ctr_get_idx(): a match over every counter */
static int hpm_sim_sbi_add(struct perf_event *event, int flags)
{
	struct hpm_sim *hs = hpm_sim_of_pmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	long idx;
	bool irq;

	h = hpm_sim_this_hart(hs);
	if (!h)
		return -ENOENT;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sbi_sync(h);
	idx = hpm_sim_do_config(hs, h, GENMASK(hs->nr - 1, 0), 0, hwc->event_base, 0);
	/* A counter it holds already: riscv_pmu_sbi's used_hw_ctrs */
	if (idx >= 0 && (h->sbi_used & BIT(idx)))
		idx = -ENOENT;
	else if (idx >= 0)
		h->sbi_used |= BIT(idx);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	hpm_sim_sbi_done(h, irq);
	if (idx < 0)
		return idx;
	hwc->idx = idx;
	hwc->state = PERF_HES_UPTODATE | PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		hpm_sim_sbi_start(event, PERF_EF_RELOAD);
	return 0;
}

/* riscv_pmu_del(): stop and update, then stop with RESET */
static void hpm_sim_sbi_del(struct perf_event *event, int flags)
{
	struct hpm_sim *hs = hpm_sim_of_pmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	bool irq;

	hpm_sim_sbi_stop(event, PERF_EF_UPDATE);
	h = hpm_sim_this_hart(hs);
	if (h && hwc->idx >= 0) {
		raw_spin_lock_irqsave(&h->lock, irqflags);
		irq = hpm_sim_sbi_sync(h);
		hpm_sim_do_stop(hs, h, BIT(hwc->idx), SIFIVE_HPM_STOP_FLAG_RESET);
		h->sbi_used &= ~BIT(hwc->idx);
		raw_spin_unlock_irqrestore(&h->lock, irqflags);
		hpm_sim_sbi_done(h, irq);
	}
	hwc->idx = -1;
}

static void hpm_sim_sbi_read(struct perf_event *event)
{
	struct hpm_sim *hs = hpm_sim_of_pmu(event->pmu);
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	bool irq;

	if (event->hw.idx < 0)
		return;
	h = hpm_sim_this_hart(hs);
	if (!h)
		return;
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sbi_sync(h);
	hpm_sim_sbi_update(h, event);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	hpm_sim_sbi_done(h, irq);
}

static int hpm_sim_sbi_register(struct hpm_sim *hs, const char *name)
{
	hs->sbi_pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_hw_context,
		.capabilities	= PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_EXCLUDE,
		.event_init	= hpm_sim_sbi_event_init,
		.add		= hpm_sim_sbi_add,
		.del		= hpm_sim_sbi_del,
		.start		= hpm_sim_sbi_start,
		.stop		= hpm_sim_sbi_stop,
		.read		= hpm_sim_sbi_read,
	};
	snprintf(hs->sbi_name, sizeof(hs->sbi_name), "sbi_%s", name);
	return perf_pmu_register(&hs->sbi_pmu, hs->sbi_name, -1);
}

/* ---- model life cycle ---- */

static void *hpm_sim_create(struct socpmu_sim_dev *sdev)
{
	struct hpm_sim_cfg *cfg = sdev->cfg;
	struct hpm_sim *hs;
	unsigned int i;
	u64 now;

	if (!cfg->harts)
		cfg->harts = nr_cpu_ids;
	hs = kzalloc(struct_size(hs, harts, cfg->harts), GFP_KERNEL);
	if (!hs)
		return ERR_PTR(-ENOMEM);
	hs->cfg = cfg;
	hs->nr = SIFIVE_HPM_CTR_HPM0 + cfg->counters;
	hs->mask = cfg->width == 64 ? U64_MAX : BIT_ULL(cfg->width) - 1;
	hs->freq_hz = (u64)cfg->freq_mhz * HZ_PER_MHZ;
	now = ktime_get_ns();
	hs->epoch_ns = now;
	for (i = 0; i < cfg->harts; i++) {
		struct hpm_sim_hart *h = &hs->harts[i];

		raw_spin_lock_init(&h->lock);
		h->sim = hs;
		h->cpu = i;
		h->last_ns = now;
		/* Out of reset every counter is inhibited but the time */
		h->inhibit = GENMASK(hs->nr - 1, 0) & ~BIT(SIFIVE_HPM_CTR_TIME);
		/* OpenSBI configures the fixed counters at boot; KVM does not */
		if (!cfg->strict_skip) {
			h->configured = BIT(SIFIVE_HPM_CTR_CYCLE) | BIT(SIFIVE_HPM_CTR_INSTRET);
			h->event_idx[SIFIVE_HPM_CTR_CYCLE] = SIFIVE_HPM_GEN_CPU_CYCLES;
			h->event_idx[SIFIVE_HPM_CTR_INSTRET] = SIFIVE_HPM_GEN_INSTRUCTIONS;
		}
		h->user_idx[0] = -1;
		h->user_idx[1] = -1;
		h->lcofi = IRQ_WORK_INIT_HARD(hpm_sim_lcofi);
		INIT_CSD(&h->lcofi_ipi, hpm_sim_lcofi_ipi, h);
		/* Held before the driver probes: its trial matches find none free */
		if (cfg->user_prog) {
			unsigned long irqflags;

			raw_spin_lock_irqsave(&h->lock, irqflags);
			hpm_sim_user_take_prog(hs, h);
			raw_spin_unlock_irqrestore(&h->lock, irqflags);
		}
	}
	/* Before the driver's PMU (add_children): a lower type, scheduled first */
	if (cfg->sbi_pmu) {
		int ret = hpm_sim_sbi_register(hs, sdev->name);

		if (ret) {
			kfree(hs);
			return ERR_PTR(ret);
		}
	}
	return hs;
}

static void hpm_sim_destroy(void *model)
{
	struct hpm_sim *hs = model;

	if (hs->cfg->sbi_pmu) {
		/*
		 * perf cannot let a PMU go that has events (Linux 6.12): with
		 * some still open, the PMU and the model stay, and so does
		 * the module (a test knob: the tests close them first)
		 */
		if (atomic_read(&hs->sbi_events)) {
			pr_warn("%s: events still open: its PMU and the model stay until reboot\n",
				hs->sbi_name);
			__module_get(THIS_MODULE);
			return;
		}
		perf_pmu_unregister(&hs->sbi_pmu);
	}
	hpm_sim_lcofi_sync(hs);
	kfree(hs);
}

/* ---- debugfs ---- */

/* The events named by a token: returns 0, or -EINVAL */
struct hpm_sim_fire {
	u64 cls[SIFIVE_U74_NR_CLASSES];	/* U74 events, per class */
	bool cycle;
	bool instret;
};

static int hpm_sim_lookup(const char *tok, u64 *sel)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hpm_sim_u74); i++)
		if (!strcmp(tok, hpm_sim_u74[i].name))
			goto found;
	for (i = 0; i < ARRAY_SIZE(hpm_sim_aliases); i++)
		if (!strcmp(tok, hpm_sim_aliases[i].name)) {
			*sel = hpm_sim_aliases[i].sel;
			return 0;
		}
	if (!kstrtou64(tok, 0, sel) && sifive_u74_event_valid(*sel))
		return 0;
	pr_debug("unknown event \"%s\"\n", tok);
	return -EINVAL;
found:
	*sel = hpm_sim_u74[i].sel;
	return 0;
}

static int hpm_sim_parse_fire(char *list, struct hpm_sim_fire *f)
{
	char *tok;
	u64 sel;

	memset(f, 0, sizeof(*f));
	while ((tok = strsep(&list, ","))) {
		if (!strcmp(tok, "cycle") || !strcmp(tok, "cycles")) {
			f->cycle = true;
		} else if (!strcmp(tok, "instret") || !strcmp(tok, "instructions")) {
			f->instret = true;
		} else {
			if (hpm_sim_lookup(tok, &sel))
				return -EINVAL;
			f->cls[sel & SIFIVE_U74_CLASS_MASK] |= sel & ~SIFIVE_U74_CLASS_MASK;
		}
	}
	return 0;
}

static void hpm_sim_fire(struct hpm_sim_hart *h, const struct hpm_sim_fire *f, u64 n)
{
	struct hpm_sim *hs = h->sim;
	unsigned long irqflags;
	unsigned int i;
	bool irq;

	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, ktime_get_ns());
	if (f->cycle)
		irq |= hpm_sim_count(h, SIFIVE_HPM_CTR_CYCLE, n);
	if (f->instret)
		irq |= hpm_sim_count(h, SIFIVE_HPM_CTR_INSTRET, n);
	for (i = SIFIVE_HPM_CTR_HPM0; i < hs->nr; i++)
		if (hpm_sim_selects(h->mhpmevent[i] & HPM_SIM_SEL_MASK, f->cls))
			irq |= hpm_sim_count(h, i, n);
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
}

static ssize_t hpm_sim_inject_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct hpm_sim *hs = file->private_data;
	struct hpm_sim_fire f;
	unsigned int first, end, i;
	char *cmd, *w[3];
	u64 n;
	int ret;

	cmd = socpmu_sim_get_cmd(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	ret = socpmu_sim_split(cmd, w, 3);
	if (!ret)
		ret = socpmu_sim_parse_units("hart", w[0], hs->cfg->harts, &first, &end);
	if (!ret)
		ret = hpm_sim_parse_fire(w[1], &f);
	if (!ret)
		ret = socpmu_sim_parse_u64("n", w[2], &n);
	if (!ret) {
		for (i = first; i < end; i++)
			hpm_sim_fire(&hs->harts[i], &f, n);
		ret = count;
	}
	kfree(cmd);
	return ret;
}

static const struct file_operations hpm_sim_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = hpm_sim_inject_write,
	.llseek = noop_llseek,
};

/* The rate model index of a single event */
static int hpm_sim_rate_index(const char *tok)
{
	unsigned int i;
	u64 sel;

	if (!strcmp(tok, "instret") || !strcmp(tok, "instructions"))
		return HPM_SIM_EV_INSTRET;
	if (hpm_sim_lookup(tok, &sel))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(hpm_sim_u74); i++)
		if (hpm_sim_u74[i].sel == sel)
			return 1 + i;
	pr_debug("rate: \"%s\" is more than one event\n", tok);
	return -EINVAL;
}

static ssize_t hpm_sim_rate_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct hpm_sim *hs = ((struct seq_file *)file->private_data)->private;
	unsigned int first, end, i, rate;
	unsigned long irqflags;
	char *cmd, *w[3];
	int ret, e = 0;
	bool irq;

	cmd = socpmu_sim_get_cmd(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	ret = socpmu_sim_split(cmd, w, 3);
	if (!ret)
		ret = socpmu_sim_parse_units("hart", w[0], hs->cfg->harts, &first, &end);
	if (!ret) {
		e = hpm_sim_rate_index(w[1]);
		ret = e < 0 ? e : 0;
	}
	if (!ret)
		ret = socpmu_sim_parse_uint("rate", w[2], 0, HPM_SIM_RATE_ONE, &rate);
	if (!ret) {
		for (i = first; i < end; i++) {
			struct hpm_sim_hart *h = &hs->harts[i];

			raw_spin_lock_irqsave(&h->lock, irqflags);
			/* What happened so far happened at the old rate */
			irq = hpm_sim_sync(h, ktime_get_ns());
			h->rate[e] = rate;
			raw_spin_unlock_irqrestore(&h->lock, irqflags);
			if (irq)
				hpm_sim_raise(h);
		}
		ret = count;
	}
	kfree(cmd);
	return ret;
}

static int hpm_sim_rate_show(struct seq_file *m, void *v)
{
	struct hpm_sim *hs = m->private;
	unsigned long irqflags;
	unsigned int i, e;
	u32 rate[HPM_SIM_NR_EV];

	for (i = 0; i < hs->cfg->harts; i++) {
		raw_spin_lock_irqsave(&hs->harts[i].lock, irqflags);
		memcpy(rate, hs->harts[i].rate, sizeof(rate));
		raw_spin_unlock_irqrestore(&hs->harts[i].lock, irqflags);
		seq_printf(m, "hart %u:", i);
		for (e = 0; e < HPM_SIM_NR_EV; e++)
			if (rate[e])
				seq_printf(m, " %s=%u", e == HPM_SIM_EV_INSTRET ? "instret" :
					   hpm_sim_u74[e - 1].name, rate[e]);
		seq_putc(m, '\n');
	}
	return 0;
}

static int hpm_sim_rate_open(struct inode *inode, struct file *file)
{
	return single_open(file, hpm_sim_rate_show, inode->i_private);
}

static const struct file_operations hpm_sim_rate_fops = {
	.owner = THIS_MODULE,
	.open = hpm_sim_rate_open,
	.read = seq_read,
	.write = hpm_sim_rate_write,
	.llseek = seq_lseek,
	.release = single_release,
};

struct hpm_sim_snap {
	u64 ctr[SIFIVE_HPM_MAX_COUNTERS];
	u64 mhpmevent[SIFIVE_HPM_MAX_COUNTERS];
	unsigned long event_idx[SIFIVE_HPM_MAX_COUNTERS];
	u32 inhibit;
	u32 configured;
};

static int hpm_sim_state_show(struct seq_file *m, void *v)
{
	struct hpm_sim *hs = m->private;
	struct hpm_sim_snap *snap __free(kfree) = kmalloc(sizeof(*snap), GFP_KERNEL);
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	unsigned int i, c;
	bool irq;

	if (!snap)
		return -ENOMEM;
	for (i = 0; i < hs->cfg->harts; i++) {
		h = &hs->harts[i];
		raw_spin_lock_irqsave(&h->lock, irqflags);
		irq = hpm_sim_sync(h, ktime_get_ns());
		memcpy(snap->ctr, h->ctr, sizeof(snap->ctr));
		memcpy(snap->mhpmevent, h->mhpmevent, sizeof(snap->mhpmevent));
		memcpy(snap->event_idx, h->event_idx, sizeof(snap->event_idx));
		snap->inhibit = h->inhibit;
		snap->configured = h->configured;
		raw_spin_unlock_irqrestore(&h->lock, irqflags);
		if (irq)
			hpm_sim_raise(h);
		seq_printf(m, "hart %u: mcountinhibit=%#x configured=%#x\n", i,
			   snap->inhibit, snap->configured);
		for (c = 0; c < hs->nr; c++) {
			if (c == SIFIVE_HPM_CTR_TIME)
				continue;
			seq_printf(m, "  %2u csr=%#x value=%#llx mhpmevent=%#llx event_idx=%#lx\n",
				   c, SIFIVE_HPM_CSR_CYCLE + c, snap->ctr[c],
				   snap->mhpmevent[c], snap->event_idx[c]);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hpm_sim_state);

static ssize_t hpm_sim_ops_read(struct file *file, char __user *ubuf, size_t count,
				loff_t *ppos)
{
	struct hpm_sim *hs = file->private_data;
	char buf[128];
	int len = 0, i;

	for (i = 0; i < ARRAY_SIZE(hs->calls); i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s %llu\n",
				 hpm_sim_call_names[i], (u64)atomic64_read(&hs->calls[i]));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t hpm_sim_ops_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct hpm_sim *hs = file->private_data;
	u64 val;
	int ret, i;

	ret = kstrtou64_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(hs->calls); i++)
		atomic64_set(&hs->calls[i], 0);
	return count;
}

static const struct file_operations hpm_sim_ops_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = hpm_sim_ops_read,
	.write = hpm_sim_ops_write,
	.llseek = default_llseek,
};

/* The second SBI user: riscv_pmu_sbi's start value for a 64-bit counter */
#define HPM_SIM_USER_IVAL	(BIT_ULL(63) + 1)
static const char *const hpm_sim_user_events[] = { "cycles", "instret" };

/* A command written to "user" */
static ssize_t hpm_sim_user_cmd(struct hpm_sim *hs, const char __user *ubuf, size_t count)
{
	char buf[64], ev[16], op[16];
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	unsigned int hart;
	int e, ret = 0;
	long idx;
	bool irq;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %15s %15s", &hart, ev, op) != 3 || hart >= hs->cfg->harts) {
		pr_debug("user: want \"<hart> <cycles|instret|prog> <open|close>\"\n");
		return -EINVAL;
	}
	e = match_string(hpm_sim_user_events, ARRAY_SIZE(hpm_sim_user_events), ev);
	if ((e < 0 && strcmp(ev, "prog")) || (strcmp(op, "open") && strcmp(op, "close"))) {
		pr_debug("user: unknown event or operation '%s %s'\n", ev, op);
		return -EINVAL;
	}
	h = &hs->harts[hart];
	raw_spin_lock_irqsave(&h->lock, irqflags);
	irq = hpm_sim_sync(h, ktime_get_ns());
	if (e < 0) {
		/* The programmable counters: take the free ones, or give them back */
		if (!strcmp(op, "open")) {
			hpm_sim_user_take_prog(hs, h);
		} else if (h->user_prog) {
			hpm_sim_do_stop(hs, h, h->user_prog, SIFIVE_HPM_STOP_FLAG_RESET);
			h->user_prog = 0;
		} else {
			ret = -ENOENT;
		}
	} else if (!strcmp(op, "open")) {
		if (h->user_idx[e] >= 0) {
			ret = -EBUSY;
			goto out;
		}
		/* riscv_pmu_sbi: a match over every counter, then start at its period */
		idx = hpm_sim_do_config(hs, h, GENMASK(hs->nr - 1, 0), 0,
					e ? SIFIVE_HPM_GEN_INSTRUCTIONS :
					    SIFIVE_HPM_GEN_CPU_CYCLES, 0);
		if (idx < 0) {
			ret = idx;
			goto out;
		}
		h->user_idx[e] = idx;
		h->user_prev[e] = HPM_SIM_USER_IVAL & hpm_sim_width_mask(hs, idx);
		/* "already started" leaves the value: riscv_pmu_sbi ignores that */
		hpm_sim_do_start(hs, h, BIT(idx), SIFIVE_HPM_START_FLAG_SET_INIT_VALUE,
				 HPM_SIM_USER_IVAL);
	} else {
		if (h->user_idx[e] < 0) {
			ret = -ENOENT;
			goto out;
		}
		hpm_sim_do_stop(hs, h, BIT(h->user_idx[e]), SIFIVE_HPM_STOP_FLAG_RESET);
		h->user_idx[e] = -1;
	}
out:
	raw_spin_unlock_irqrestore(&h->lock, irqflags);
	if (irq)
		hpm_sim_raise(h);
	return ret ? ret : count;
}

static int hpm_sim_user_show(struct seq_file *m, void *v)
{
	struct hpm_sim *hs = m->private;
	struct hpm_sim_hart *h;
	unsigned long irqflags;
	unsigned int i;
	int e, idx;
	u64 count;
	u32 prog;
	bool irq, running, configured;

	for (i = 0; i < hs->cfg->harts; i++) {
		h = &hs->harts[i];
		raw_spin_lock_irqsave(&h->lock, irqflags);
		prog = h->user_prog;
		raw_spin_unlock_irqrestore(&h->lock, irqflags);
		if (prog)
			seq_printf(m, "%u prog counters=%#x\n", i, prog);
		for (e = 0; e < ARRAY_SIZE(hpm_sim_user_events); e++) {
			raw_spin_lock_irqsave(&h->lock, irqflags);
			irq = hpm_sim_sync(h, ktime_get_ns());
			idx = h->user_idx[e];
			if (idx >= 0) {
				count = (h->ctr[idx] - h->user_prev[e]) &
					hpm_sim_width_mask(hs, idx);
				running = !(h->inhibit & BIT(idx));
				configured = h->configured & BIT(idx);
			}
			raw_spin_unlock_irqrestore(&h->lock, irqflags);
			if (irq)
				hpm_sim_raise(h);
			if (idx >= 0)
				seq_printf(m, "%u %s counter=%d count=%llu running=%d configured=%d\n",
					   i, hpm_sim_user_events[e], idx, count, running,
					   configured);
		}
	}
	return 0;
}

static int hpm_sim_user_open(struct inode *inode, struct file *file)
{
	return single_open(file, hpm_sim_user_show, inode->i_private);
}

static ssize_t hpm_sim_user_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;

	return hpm_sim_user_cmd(m->private, ubuf, count);
}

static const struct file_operations hpm_sim_user_fops = {
	.owner = THIS_MODULE,
	.open = hpm_sim_user_open,
	.read = seq_read,
	.write = hpm_sim_user_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void hpm_sim_debugfs_init(struct socpmu_sim_dev *sdev, struct dentry *dir)
{
	debugfs_create_file("user", 0600, dir, sdev->model, &hpm_sim_user_fops);
	debugfs_create_file("inject", 0200, dir, sdev->model, &hpm_sim_inject_fops);
	debugfs_create_file("rate", 0600, dir, sdev->model, &hpm_sim_rate_fops);
	debugfs_create_file("state", 0400, dir, sdev->model, &hpm_sim_state_fops);
	debugfs_create_file("ops", 0600, dir, sdev->model, &hpm_sim_ops_fops);
}

/* ---- the device the driver binds to ---- */

/* The driver reaches the model through the SBI ops table, not a regmap */
static int hpm_sim_add_children(struct socpmu_sim_dev *sdev)
{
	const struct hpm_sim_cfg *cfg = sdev->cfg;
	const struct property_entry props[] = {
		PROPERTY_ENTRY_U32("sifive,num-harts", cfg->harts),
		PROPERTY_ENTRY_U64("clock-frequency", (u64)cfg->freq_mhz * HZ_PER_MHZ),
		{ }
	};
	const struct sifive_hpm_platform_data pdata = {
		.ops = &hpm_sim_ops,
		.ctx = sdev->model,
	};

	return socpmu_sim_add_child_data(sdev, "sifive-hpm", props, &pdata, sizeof(pdata));
}

const struct socpmu_sim_type socpmu_sim_hpm = {
	.name = "hpm",
	.cfg_size = sizeof(struct hpm_sim_cfg),
	.cfg_init = hpm_sim_cfg_init,
	.cfg_parse = hpm_sim_cfg_parse,
	.cfg_show = hpm_sim_cfg_show,
	.create = hpm_sim_create,
	.destroy = hpm_sim_destroy,
	.debugfs_init = hpm_sim_debugfs_init,
	.add_children = hpm_sim_add_children,
};
