/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the Tensix PMU selftest and benchmark (tensix_test.c,
 * tensix_bench.c), on top of ../lib/socpmu_test.h: a simulated Tensix
 * device, the event table of include/socpmu/tensix_regs.h, the
 * perf_event_attr encoding of tensix_<n> and the inject/advance debugfs
 * files.
 */
#ifndef TENSIX_LIB_H
#define TENSIX_LIB_H

#include <socpmu/tensix_regs.h>

#include "../lib/socpmu_test.h"

/* One simulated Tensix device and the tensix_<n> PMU of its driver. */
struct tensix_dev {
	struct sp_dev d;
	int cores;
	int mux_values;			/* L1 mux groups: 2 on wormhole, 5 on blackhole */
	unsigned int arch;		/* TENSIX_ARCH_WH or TENSIX_ARCH_BH */
	int nr_events;			/* RTL counters of the arch: 130 or 165 */
	struct sp_kept kept;		/* "inject" and "advance" */
};

/*
 * The RTL counters of both arches, then the seed's aliases, from the shared
 * X-macro tables; an entry counts on the arches in its @arch mask.
 */
struct tev {
	const char *name;
	unsigned int bank;
	unsigned int id;
	unsigned int mux;
	unsigned int arch;
	bool alias;
};

#define TEV_ENTRY(n, b, i, m, a) { #n, TENSIX_BANK_##b, (i), (m), (a), false },
#define TEV_ALIAS(n, b, i, m, a) { #n, TENSIX_BANK_##b, (i), (m), (a), true },
static const struct tev tensix_events[] = {
	TENSIX_EVENTS(TEV_ENTRY)
	TENSIX_SEED_ALIASES(TEV_ALIAS)
};
#undef TEV_ENTRY
#undef TEV_ALIAS

static const char *const tensix_bank_names[TENSIX_NR_BANKS] = TENSIX_BANK_NAMES;

/* Does event @e exist on @t's architecture? */
static inline bool tev_on(const struct tensix_dev *t, const struct tev *e)
{
	return e->arch & t->arch;
}

/* The event named @name on @t's architecture, or NULL */
static inline const struct tev *tev_find(const struct tensix_dev *t, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tensix_events); i++)
		if (tev_on(t, &tensix_events[i]) && !strcmp(tensix_events[i].name, name))
			return &tensix_events[i];
	return NULL;
}

/*
 * Simulator inject id of a counter: L1 signals are mux * 8 + counter id,
 * plus 256 for a grant counter.
 */
static inline unsigned int tev_signal(const struct tev *e)
{
	return e->bank == TENSIX_BANK_L1 ?
		(e->id & TENSIX_SEL_GRANT) |
		(e->mux * TENSIX_L1_IDS_PER_MUX + (e->id & ~TENSIX_SEL_GRANT)) :
		e->id;
}

/*
 * ---- perf_event_attr encoding (SPEC: config layout) ----
 * config1 (core, bycore) is the generic unit: sp_cfg1_unit_short().
 */

static inline uint64_t cfg_counter(unsigned int bank, unsigned int sel,
				   unsigned int mux)
{
	return (uint64_t)sel << TENSIX_CFG_EVENT_SHIFT |
	       (uint64_t)bank << TENSIX_CFG_BANK_SHIFT |
	       (uint64_t)mux << TENSIX_CFG_MUX_SHIFT;
}

static inline uint64_t cfg_cycles(unsigned int bank)
{
	return (uint64_t)bank << TENSIX_CFG_BANK_SHIFT | TENSIX_CFG_CYCLES;
}

static inline uint64_t cfg_tev(const struct tev *e)
{
	return cfg_counter(e->bank, e->id, e->mux);
}

/* ---- the simulated device ---- */

/*
 * Creates "tensix name=@name cores=@cores arch=@arch" and finds its
 * tensix_<n> PMU, which must have a cpumask. On failure after creation the
 * device is left alive (t->d.alive) for the caller to delete.
 */
static inline int tensix_dev_create(struct tensix_dev *t, const char *name,
				    int cores, const char *arch)
{
	char params[96];
	int ret;

	memset(t, 0, sizeof(*t));
	t->cores = cores;
	if (strcmp(arch, "blackhole")) {
		t->mux_values = TENSIX_L1_GROUPS_WORMHOLE;
		t->arch = TENSIX_ARCH_WH;
		t->nr_events = TENSIX_NR_EVENTS_WORMHOLE;
	} else {
		t->mux_values = TENSIX_L1_GROUPS_BLACKHOLE;
		t->arch = TENSIX_ARCH_BH;
		t->nr_events = TENSIX_NR_EVENTS_BLACKHOLE;
	}
	snprintf(params, sizeof(params), "cores=%d arch=%s", cores, arch);
	ret = sp_dev_create(&t->d, "tensix", name, params, "tensix_");
	if (!ret && t->d.cpu < 0)
		ret = -ENOENT;	/* no cpumask: not an uncore PMU */
	if (t->d.alive)
		sp_kept_open(&t->kept, &t->d, (const char *const[]){ "inject", "advance", NULL });
	return ret;
}

static inline int tensix_dev_delete(struct tensix_dev *t)
{
	sp_kept_close(&t->kept);
	return sp_dev_delete(&t->d);
}

/* debugfs inject "<core|all> <bank> <id> <n>"; core < 0 means all cores. */
static inline int tensix_inject(const struct tensix_dev *t, int core,
				unsigned int bank, unsigned int id, uint64_t n)
{
	char c[16], cmd[96];

	sp_unit_str(c, sizeof(c), core);
	snprintf(cmd, sizeof(cmd), "%s %s %u %" PRIu64, c, tensix_bank_names[bank], id, n);
	return sp_kept_write(&t->kept, &t->d, "inject", cmd);
}

/* debugfs advance "<core|all> <cycles>" */
static inline int tensix_advance(const struct tensix_dev *t, int core,
				 uint64_t cycles)
{
	char c[16], cmd[64];

	sp_unit_str(c, sizeof(c), core);
	snprintf(cmd, sizeof(cmd), "%s %" PRIu64, c, cycles);
	return sp_kept_write(&t->kept, &t->d, "advance", cmd);
}

#endif /* TENSIX_LIB_H */
