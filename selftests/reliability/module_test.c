// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load/unload cycles of every socpmu module (those of modules.dep's
 * extra/), SOCPMU_MODULE_CYCLES (25; 100 in `make fuzz`) without events and
 * as many with an event open on every socpmu PMU:
 *  - without events, every module unloads and loads again, and the same
 *    PMUs come back;
 *  - with events, each event holds exactly one reference on a socpmu
 *    module, and no module holding references can be unloaded (perf pins
 *    the module of a PMU while its events are open); the simulator may go
 *    (its devices' events then freeze); once the events are closed every
 *    module unloads (which frees the PMUs left dead by the simulator).
 *
 * The modules end up loaded as they were. Needs root and module files;
 * skipped without.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "reliability.h"

/* Cycles of each test: SOCPMU_MODULE_CYCLES, 25 by default (make check), 100 in make fuzz */
#define CYCLES		((int)rel_env("SOCPMU_MODULE_CYCLES", 25))
#define MAX_EV		64

static struct rel_modstate st;

static int total_refs(void)
{
	int sum = 0;

	for (int i = 0; i < st.n; i++) {
		int r = sp_mod_refcnt(st.mod[i].name);

		sum += r > 0 ? r : 0;
	}
	return sum;
}

/* One event on every socpmu PMU that takes one: how many */
static int open_one_each(int *fds, int max)
{
	static struct rel_pmu pmus[32];
	int n = rel_pmus_load(pmus, 32), nfds = 0;

	for (int i = 0; i < n && nfds < max; i++) {
		struct rel_pmu *p = &pmus[i];

		for (int a = 0; a < p->nalias; a++) {
			struct perf_event_attr attr = { .size = sizeof(attr) };
			int fd;

			attr.type = p->type;
			attr.config = p->alias[a].cfg[0];
			attr.config1 = p->alias[a].cfg[1];
			attr.config2 = p->alias[a].cfg[2];
			fd = sp_perf_event_open(&attr, -1, p->cpu >= 0 ? p->cpu : 0, -1,
						PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0) {
				fds[nfds++] = fd;
				break;
			}
		}
	}
	return nfds;
}

static int load_as_before(void)
{
	for (int i = 0; i < st.n; i++) {
		int ret;

		if (!st.loaded[i])
			continue;
		ret = sp_mod_load(&st.mod[i]);
		if (ret && ret != -EEXIST)
			return ret;
	}
	return 0;
}

FIXTURE(mods) {
	int dummy;
};

FIXTURE_SETUP(mods)
{
	if (geteuid())
		SKIP(return, "needs root");
	if (rel_mod_state(&st) || !st.n)
		SKIP(return, "no socpmu modules in modules.dep");
	/* Start from freshly loaded modules: no PMU left dead by earlier tests */
	ASSERT_EQ(0, rel_mod_reload(&st));
	sp_sim_available();	/* mounts debugfs */
}

FIXTURE_TEARDOWN(mods)
{
	load_as_before();
}

TEST_F_TIMEOUT(mods, cycles_without_events, 3600)
{
	char first[SP_MAX_PMUS][SP_NAME_LEN], now[SP_MAX_PMUS][SP_NAME_LEN];
	int nfirst = sp_list_socpmu(first, SP_MAX_PMUS), ret;

	for (int c = 0; c < CYCLES; c++) {
		int n;

		ret = sp_mod_unload_all(st.mod, st.n);
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: unload: %s", c, strerror(-ret));
		for (int i = 0; i < st.n; i++) {
			const char *name = st.mod[i].name;

			ASSERT_FALSE(sp_module_loaded(name)) TH_LOG("%s still loaded", name);
		}
		ret = load_as_before();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: load: %s", c, strerror(-ret));
		n = sp_list_socpmu(now, SP_MAX_PMUS);
		ASSERT_EQ(nfirst, n) TH_LOG("cycle %d: %d PMUs, %d at first", c, n, nfirst);
		for (int i = 0; i < n; i++) {
			const char *name = now[i];

			ASSERT_TRUE(sp_name_in(name, first, nfirst))
				TH_LOG("cycle %d: new PMU %s", c, name);
		}
	}
	ksft_print_msg("%d modules: %d unload/load cycles without events\n", st.n, CYCLES);
}

TEST_F_TIMEOUT(mods, cycles_with_events, 3600)
{
	int refused = 0, gone_with_events = 0;

	for (int c = 0; c < CYCLES; c++) {
		int fds[MAX_EV], nfds, base = total_refs(), ret;

		nfds = open_one_each(fds, MAX_EV);
		ASSERT_LT(0, nfds) TH_LOG("cycle %d: no event opened", c);
		ASSERT_EQ(base + nfds, total_refs())
			TH_LOG("cycle %d: %d events, references %d -> %d", c, nfds, base,
			       total_refs());

		/* Dependents first; whatever holds references must stay */
		for (int i = st.n - 1; i >= 0; i--) {
			int refs = sp_mod_refcnt(st.mod[i].name);

			if (refs < 0)
				continue;
			ret = sp_mod_unload(st.mod[i].name);
			if (refs > 0) {
				ASSERT_NE(0, ret) TH_LOG("cycle %d: %s unloaded with %d references",
							 c, st.mod[i].name, refs);
				ASSERT_TRUE(sp_module_loaded(st.mod[i].name));
				refused++;
			} else if (!ret) {
				gone_with_events++;
			}
		}
		/* Every event still reads: a value, frozen if its device went */
		for (int i = 0; i < nfds; i++) {
			uint64_t v;

			ASSERT_EQ(0, sp_read_count(fds[i], &v)) TH_LOG("cycle %d fd %d", c, i);
			close(fds[i]);
		}
		ret = sp_mod_unload_all(st.mod, st.n);
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: unload after close: %s", c, strerror(-ret));
		ret = load_as_before();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: load: %s", c, strerror(-ret));
	}
	ksft_print_msg("%d modules: %d unload/load cycles with events open: %d unloads refused, %d modules unloaded under open events (their events froze)\n",
		       st.n, CYCLES, refused, gone_with_events);
}

TEST_HARNESS_MAIN
