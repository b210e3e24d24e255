// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stress tests of the socpmu PMUs in the VM:
 *  - perf_stat_sessions: 8 concurrent `perf stat` sessions on overlapping
 *    events of one Tensix PMU, every count exact (deterministic injection);
 *  - device_removal: simulated devices of every model type added and
 *    removed while their events count and a thread reads them: the events
 *    of a removed device freeze, nothing crashes;
 *  - cpu_hotplug: hotplug of another CPU while counting, then the PMU's
 *    own CPU going away (offlined where it can be, otherwise its events
 *    are migrated as the perf core does it on hotplug), counts exact
 *    across the migration; events of a CPU that goes offline freeze;
 *  - poll_timer_two_cpus: events of one PMU on two CPUs, the poll timer on
 *    one and the last event coming and going on the other;
 *  - software_sibling_outlives_leader: a software event left in a socpmu
 *    PMU's perf context after its socpmu group leader is closed keeps the
 *    PMU (and the driver module) alive after the device is removed;
 *  - event_state_in_event: an event of up to 6 counters keeps its state in
 *    itself (no kernel memory beyond a software event's), and events of
 *    either kind of state count exactly.
 *
 * Sizes: SOCPMU_STRESS_ROUNDS (device removal rounds, 3), SOCPMU_REMOVAL_ROUNDS
 * (removals during ->destroy, 200), SOCPMU_STRESS_SECONDS (poll timer test, 5),
 * SOCPMU_HOTPLUG_CYCLES (10); `make fuzz` runs longer (1000 removals during
 * ->destroy).
 * Needs root, the simulator and the socpmu drivers; skipped without.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "reliability.h"

#include <socpmu/sifive_hpm.h>
#include <socpmu/tensix_regs.h>
#include <socpmu/unit.h>

#define MIGRATE_FILE	SP_DEBUGFS "/socpmu_migrate"

struct tev {
	const char *name;
	unsigned int bank, id, mux;
};

/* Both arches wire these names at the same select: no arch needed */
#define TEV(n, b, i, m, a) { #n, TENSIX_BANK_##b, (i), (m) },
static const struct tev tevs[] = { TENSIX_EVENTS(TEV) TENSIX_SEED_ALIASES(TEV) };
#undef TEV
static const char *const bank_names[TENSIX_NR_BANKS] = TENSIX_BANK_NAMES;

static const struct tev *tev(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tevs); i++)
		if (!strcmp(tevs[i].name, name))
			return &tevs[i];
	return NULL;
}

/* "<core|all> <bank> <id> <n>" */
static int inject(const struct sp_dev *d, int core, const struct tev *e, uint64_t n)
{
	char c[16];

	snprintf(c, sizeof(c), core < 0 ? "all" : "%d", core);
	return sp_debugfs_printf(d, "inject", "%s %s %u %" PRIu64, c, bank_names[e->bank],
				 e->bank == TENSIX_BANK_L1 ?
				 e->mux * TENSIX_L1_IDS_PER_MUX + e->id : e->id, n);
}

static int advance(const struct sp_dev *d, int core, uint64_t cycles)
{
	char c[16];

	snprintf(c, sizeof(c), core < 0 ? "all" : "%d", core);
	return sp_debugfs_printf(d, "advance", "%s %" PRIu64, c, cycles);
}

static uint64_t cfg_of(const struct tev *e)
{
	return (uint64_t)e->id << TENSIX_CFG_EVENT_SHIFT |
	       (uint64_t)e->bank << TENSIX_CFG_BANK_SHIFT |
	       (uint64_t)e->mux << TENSIX_CFG_MUX_SHIFT;
}

/* A Tensix device of our own, or SKIP */
#define TENSIX_DEV(d, name, cores) do { \
	int __r; \
	if (sp_sim_available()) \
		SKIP(return, "no simulator"); \
	sp_sim_del_device(name); \
	__r = sp_dev_create(d, "tensix", name, "cores=" #cores, "tensix_"); \
	if (__r == -EINVAL || __r == -ENODEV) { \
		sp_dev_delete(d); \
		SKIP(return, "no Tensix model or driver"); \
	} \
	ASSERT_EQ(0, __r) TH_LOG("creating %s: %s", name, strerror(-__r)); \
} while (0)

static uint64_t read_ok(struct __test_metadata *_metadata, int fd)
{
	uint64_t v = 0;
	int ret = sp_read_count(fd, &v);

	EXPECT_EQ(0, ret) TH_LOG("read: %s", strerror(-ret));
	return v;
}

static int online_file(int cpu, char *path, size_t len)
{
	snprintf(path, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
	return sp_path_exists(path) ? 0 : -ENOENT;
}

static int cpu_set_online(int cpu, bool on)
{
	char path[128];

	if (online_file(cpu, path, sizeof(path)))
		return -ENOENT;
	return sp_write_file(path, on ? "1" : "0");
}

/* A CPU other than @not that can be taken offline, or -1 */
static int hotpluggable_cpu(int not)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char path[128];

	for (int cpu = 0; cpu < n; cpu++)
		if (cpu != not && !online_file(cpu, path, sizeof(path)))
			return cpu;
	return -1;
}

/* Loads a socpmu module by name (from modules.dep) */
static int mod_load(const char *name)
{
	struct sp_mod mods[SP_MAX_MODS];
	int n = sp_mod_list(mods, SP_MAX_MODS);

	for (int i = 0; i < n; i++)
		if (!strcmp(mods[i].name, name))
			return sp_mod_load(&mods[i]);
	return -ENOENT;
}

FIXTURE(rel) {
	struct sp_dev d;
};

FIXTURE_SETUP(rel)
{
	memset(&self->d, 0, sizeof(self->d));
}

FIXTURE_TEARDOWN(rel)
{
	sp_dev_delete(&self->d);
}

/* ---- 8 concurrent perf stat sessions ---- */

#define NSESS	8
#define ROUNDS	25

struct sess_ev {
	const char *name;	/* event alias */
	int core;		/* -1: every core */
};

/*
 * Session i counts fpu_instruction on every core (all 8 share it), plus
 * overlapping subsets of: packer_busy, unpack0_busy_thread0 on core 1,
 * fpu_cycles, fpu_instruction on core 2.
 */
static int sess_events(int i, struct sess_ev *ev)
{
	int n = 0;

	ev[n++] = (struct sess_ev){ "fpu_instruction", -1 };
	if (i % 2)
		ev[n++] = (struct sess_ev){ "packer_busy", -1 };
	if (!(i % 3))
		ev[n++] = (struct sess_ev){ "unpack0_busy_thread0", 1 };
	if (!(i % 4))
		ev[n++] = (struct sess_ev){ "fpu_cycles", -1 };
	if (i >= 4)
		ev[n++] = (struct sess_ev){ "fpu_instruction", 2 };
	return n;
}

/* Per round: 1000 fpu_instruction on every core, 7 packer_busy, 13 unpack on core 1, 500 cycles */
static uint64_t sess_expect(const struct sess_ev *e, int cores)
{
	if (!strcmp(e->name, "fpu_instruction"))
		return ROUNDS * 1000ULL * (e->core < 0 ? cores : 1);
	if (!strcmp(e->name, "packer_busy"))
		return ROUNDS * 7ULL * cores;
	if (!strcmp(e->name, "unpack0_busy_thread0"))
		return ROUNDS * 13ULL;
	return ROUNDS * 500ULL * cores;	/* fpu_cycles */
}

static int wait_ack(int fd, int ms)
{
	char buf[16];
	uint64_t end = sp_now_ns() + ms * 1000000ULL;

	while (sp_now_ns() < end) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			return strstr(buf, "ack") ? 0 : -EPROTO;
		}
		sp_sleep_ms(10);	/* no writer yet */
	}
	return -ETIMEDOUT;
}

TEST_F_TIMEOUT(rel, perf_stat_sessions, 100)
{
	char dir[] = "/tmp/rel_statXXXXXX", path[256], stop[256], evstr[1024];
	int ctl[NSESS], ack[NSESS], cores = 4, bad = 0;
	struct sess_ev ev[NSESS][8];
	int nev[NSESS];
	pid_t pid[NSESS];
	const struct tev *e_fpu, *e_pack, *e_unp;

	if (access("/usr/bin/perf", X_OK))
		SKIP(return, "no perf");
	TENSIX_DEV(&self->d, "rel_stat", 4);
	e_fpu = tev("fpu_instruction");
	e_pack = tev("packer_busy");
	e_unp = tev("unpack0_busy_thread0");
	ASSERT_TRUE(e_fpu && e_pack && e_unp);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(stop, sizeof(stop), "%s/stop", dir);

	for (int i = 0; i < NSESS; i++) {
		char ctlp[256], ackp[256], outp[256], fifo[600];
		int len = 0;

		nev[i] = sess_events(i, ev[i]);
		for (int k = 0; k < nev[i]; k++) {
			char core[32] = "";

			if (ev[i][k].core >= 0)
				snprintf(core, sizeof(core), ",core=%d", ev[i][k].core);
			len += snprintf(evstr + len, sizeof(evstr) - len, "%s%s/%s%s/",
					k ? "," : "", self->d.pmu, ev[i][k].name, core);
		}
		snprintf(ctlp, sizeof(ctlp), "%s/ctl%d", dir, i);
		snprintf(ackp, sizeof(ackp), "%s/ack%d", dir, i);
		snprintf(outp, sizeof(outp), "%s/out%d", dir, i);
		ASSERT_EQ(0, mkfifo(ctlp, 0600));
		ASSERT_EQ(0, mkfifo(ackp, 0600));
		/* perf opens the ack fifo for writing: have a reader first */
		ack[i] = open(ackp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ctl[i] = open(ctlp, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, ack[i]);
		ASSERT_LE(0, ctl[i]);
		snprintf(fifo, sizeof(fifo), "fifo:%s,%s", ctlp, ackp);
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			char script[300];

			snprintf(script, sizeof(script),
				 "while [ ! -e %s ]; do sleep 0.05; done", stop);
			execl("/usr/bin/perf", "perf", "stat", "-x,", "-o", outp, "-D", "-1",
			      "--control", fifo, "-a", "-e", evstr, "--", "sh", "-c", script,
			      (char *)NULL);
			_exit(127);
		}
	}
	/* Enable every session; perf acknowledges once its events are on */
	for (int i = 0; i < NSESS; i++) {
		ASSERT_EQ(8, write(ctl[i], "enable\n", 7) + 1);
		ASSERT_EQ(0, wait_ack(ack[i], 30000)) TH_LOG("session %d: no ack", i);
	}
	for (int r = 0; r < ROUNDS; r++) {
		ASSERT_EQ(0, inject(&self->d, -1, e_fpu, 1000));
		ASSERT_EQ(0, inject(&self->d, -1, e_pack, 7));
		ASSERT_EQ(0, inject(&self->d, 1, e_unp, 13));
		ASSERT_EQ(0, advance(&self->d, -1, 500));
	}
	for (int i = 0; i < NSESS; i++) {
		ASSERT_EQ(9, write(ctl[i], "disable\n", 8) + 1);
		ASSERT_EQ(0, wait_ack(ack[i], 30000)) TH_LOG("session %d: no ack", i);
	}
	/* Activity after the disable must not show up */
	ASSERT_EQ(0, inject(&self->d, -1, e_fpu, 1));
	ASSERT_LE(0, close(open(stop, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)));

	for (int i = 0; i < NSESS; i++) {
		char buf[4096], *line, *save = NULL;
		int status, k = 0;

		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("session %d: perf status %#x", i, status);
		snprintf(path, sizeof(path), "%s/out%d", dir, i);
		ASSERT_LT(0, sp_read_file(path, buf, sizeof(buf)));
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			uint64_t want, got;
			char *end;

			if (line[0] == '#' || !line[0])
				continue;
			ASSERT_LT(k, nev[i]) TH_LOG("session %d: extra line %s", i, line);
			want = sess_expect(&ev[i][k], cores);
			got = strtoull(line, &end, 10);
			if (end == line || got != want) {
				bad++;
				TH_LOG("session %d, %s core %d: %s (expected %" PRIu64 ")", i,
				       ev[i][k].name, ev[i][k].core, line, want);
			}
			k++;
		}
		EXPECT_EQ(nev[i], k) TH_LOG("session %d: %d counts", i, k);
		close(ctl[i]);
		close(ack[i]);
	}
	EXPECT_EQ(0, bad);
	ksft_print_msg("perf stat: %d sessions, %d rounds of injection, every count exact: %s\n",
		       NSESS, ROUNDS, bad ? "no" : "yes");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	system(path);
}

/* ---- devices removed while counting ---- */

/* Rounds of device removal: SOCPMU_STRESS_ROUNDS, 3 by default (make check) */
#define DEV_ROUNDS	((int)rel_env("SOCPMU_STRESS_ROUNDS", 3))
#define MAX_EV		64

struct reader {
	int *fds;
	int n;
	volatile bool stop;
	unsigned long reads;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	uint64_t buf[8], id;

	while (!r->stop) {
		for (int i = 0; i < r->n; i++) {
			if (read(r->fds[i], buf, sizeof(buf)) > 0)
				r->reads++;
			ioctl(r->fds[i], PERF_EVENT_IOC_ID, &id);
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(rel, device_removal, 3600)
{
	char types[16][SP_NAME_LEN];
	int nt, removed = 0, frozen = 0, exact = 0;
	const struct tev *e_fpu = tev("fpu_instruction");

	if (sp_sim_available())
		SKIP(return, "no simulator");
	nt = sp_sim_types(types, 16);
	ASSERT_LT(0, nt) TH_LOG("simulator types: %s", strerror(-nt));

	for (int round = 0; round < DEV_ROUNDS; round++) {
		struct sp_dev devs[16];
		int fds[MAX_EV], nfds = 0, tensix_fd = -1;
		uint64_t before[MAX_EV], tensix_count = 0;
		struct reader rd = { .fds = fds };
		struct sp_dev *tensix = NULL;
		pthread_t th;
		int ndev = 0;

		/* One device of each type, a few events on each PMU */
		for (int t = 0; t < nt; t++) {
			char name[SP_NAME_LEN];
			struct rel_pmu *p = calloc(1, sizeof(*p));
			struct sp_dev *d = &devs[ndev];

			ASSERT_NE(NULL, p);
			snprintf(name, sizeof(name), "rel_rm_%.40s", types[t]);
			sp_sim_del_device(name);
			if (!strcmp(types[t], "trace")) {
				/*
				 * Trace devices feed the module's one sifive_trace
				 * PMU: there is no PMU of their own to wait for
				 */
				if (sp_dev_new(d, "trace", name, "")) {
					free(p);
					continue;
				}
				snprintf(d->pmu, sizeof(d->pmu), "sifive_trace");
			} else if (sp_dev_create(d, types[t], name, NULL, "")) {
				sp_dev_delete(d);
				free(p);
				continue;
			}
			ndev++;
			if (rel_pmu_load(p, d->pmu)) {
				free(p);
				continue;
			}
			for (int a = 0; a < p->nalias && a < 4 && nfds < MAX_EV; a++) {
				struct perf_event_attr attr = { .size = sizeof(attr) };
				int fd;

				attr.type = p->type;
				attr.config = p->alias[a].cfg[0];
				attr.config1 = p->alias[a].cfg[1];
				attr.config2 = p->alias[a].cfg[2];
				fd = sp_perf_event_open(&attr, -1, p->cpu >= 0 ? p->cpu : 0,
							-1, PERF_FLAG_FD_CLOEXEC);
				if (fd >= 0)
					fds[nfds++] = fd;
			}
			if (!strcmp(types[t], "tensix") && e_fpu && nfds < MAX_EV) {
				tensix = d;
				tensix_fd = sp_open(d, cfg_of(e_fpu), 0, -1, 0);
				ASSERT_LE(0, tensix_fd);
				fds[nfds++] = tensix_fd;
			}
			free(p);
		}
		ASSERT_LT(0, nfds) TH_LOG("round %d: no event opened", round);
		EXPECT_EQ(nt, ndev) TH_LOG("round %d: %d of %d device types created", round, ndev, nt);

		rd.n = nfds;
		ASSERT_EQ(0, pthread_create(&th, NULL, reader_fn, &rd));
		if (tensix) {
			for (int k = 0; k < 10; k++)
				ASSERT_EQ(0, inject(tensix, -1, e_fpu, 100 + round));
			tensix_count = 10ULL * (100 + round) * 4;
			EXPECT_EQ(tensix_count, read_ok(_metadata, tensix_fd));
		}
		/* Remove every device while the reader is at it */
		for (int i = 0; i < ndev; i++) {
			EXPECT_EQ(0, sp_dev_delete(&devs[i]));
			removed++;
		}
		rd.stop = true;
		pthread_join(th, NULL);

		/* Counts are frozen: equal twice, exact for the injected one */
		for (int i = 0; i < nfds; i++)
			before[i] = read_ok(_metadata, fds[i]);
		sp_sleep_ms(20);
		for (int i = 0; i < nfds; i++) {
			uint64_t now = read_ok(_metadata, fds[i]);

			EXPECT_EQ(before[i], now) TH_LOG("round %d fd %d moved", round, i);
			frozen += before[i] == now;
			/* ioctls on a dead PMU's events: no crash, any result */
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
			ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
		}
		if (tensix) {
			EXPECT_EQ(tensix_count, read_ok(_metadata, tensix_fd));
			exact++;
		}
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
	}
	ksft_print_msg("device removal: %d devices removed with events open in %d rounds, %d events read frozen, %d exact\n",
		       removed, DEV_ROUNDS, frozen, exact);
}

/* ---- CPU hotplug ---- */

/* CPU offline/online cycles and migrations: SOCPMU_HOTPLUG_CYCLES, default 10 */
#define HP_CYCLES	((int)rel_env("SOCPMU_HOTPLUG_CYCLES", 10))

static int migrate(const struct sp_dev *d, uint64_t config, int src, int dst)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%d %" PRIu64 " 0 %d %d", d->type, config, src, dst);
	return sp_write_file(MIGRATE_FILE, cmd);
}

TEST_F_TIMEOUT(rel, cpu_hotplug, 3600)
{
	const struct tev *e_fpu = tev("fpu_instruction"), *e_pack = tev("packer_busy");
	uint64_t want_fpu = 0, want_pack = 0, want_cyc = 0;
	int other, fpu, pack, cyc, ret, moves = 0;
	char cpumask[64];

	TENSIX_DEV(&self->d, "rel_hp", 4);
	other = hotpluggable_cpu(self->d.cpu);
	if (other < 0)
		SKIP(return, "no CPU to take offline besides the PMU's CPU %d", self->d.cpu);

	/* A poll every 100 ms, so that counts can pass 32 bits in three injections */
	ASSERT_EQ(0, sp_pmu_write(&self->d, "poll_interval_us", "100000"));

	/* A group and a lone event on the PMU's CPU */
	fpu = sp_open(&self->d, cfg_of(e_fpu), 0, -1, 0);
	ASSERT_LE(0, fpu);
	cyc = sp_open(&self->d, TENSIX_BANK_FPU << TENSIX_CFG_BANK_SHIFT | TENSIX_CFG_CYCLES,
		      SOCPMU_CFG1_BYUNIT | 3, fpu, 0);
	ASSERT_LE(0, cyc);
	pack = sp_open(&self->d, cfg_of(e_pack), SOCPMU_CFG1_BYUNIT, -1, 0);
	ASSERT_LE(0, pack);

#define STEP(n) do { \
	ASSERT_EQ(0, inject(&self->d, -1, e_fpu, (n))); \
	ASSERT_EQ(0, inject(&self->d, 0, e_pack, (n) + 1)); \
	ASSERT_EQ(0, advance(&self->d, 3, 2 * (n))); \
	want_fpu += 4ULL * (n); want_pack += (n) + 1; want_cyc += 2ULL * (n); \
	ASSERT_EQ(want_fpu, read_ok(_metadata, fpu)); \
	ASSERT_EQ(want_pack, read_ok(_metadata, pack)); \
	ASSERT_EQ(want_cyc, read_ok(_metadata, cyc)); \
} while (0)

	/* Another CPU comes and goes: nothing moves, nothing is lost */
	for (int i = 0; i < HP_CYCLES; i++) {
		STEP(10 + i);
		ASSERT_EQ(0, cpu_set_online(other, false));
		STEP(20 + i);
		ASSERT_EQ(0, cpu_set_online(other, true));
		STEP(30 + i);
	}

	/* The PMU's own CPU goes away: its events move, counts go on */
	if (!cpu_set_online(self->d.cpu, false)) {
		int first;

		ASSERT_LT(0, sp_pmu_read(&self->d, "cpumask", cpumask, sizeof(cpumask)));
		ASSERT_LT(0, sp_parse_cpulist(cpumask, &first));
		EXPECT_NE(self->d.cpu, first) TH_LOG("cpumask still %d", first);
		STEP(40);
		ASSERT_EQ(0, cpu_set_online(self->d.cpu, true));
		STEP(41);
		moves = 1;
	} else if (sp_path_exists(MIGRATE_FILE)) {
		ksft_print_msg("CPU %d (the PMU's) cannot go offline: migrating its events with %s\n",
			       self->d.cpu, MIGRATE_FILE);
		for (int i = 0; i < HP_CYCLES; i++) {
			ret = migrate(&self->d, cfg_of(e_fpu), self->d.cpu, other);
			ASSERT_EQ(0, ret) TH_LOG("migrate: %s", strerror(-ret));
			STEP(50 + i);
			/* Past 32 bits on the new CPU: its poll must run there */
			if (i == 0) {
				for (int k = 0; k < 3; k++) {
					ASSERT_EQ(0, inject(&self->d, 0, e_pack, 3000000000ULL));
					want_pack += 3000000000ULL;
					sp_sleep_ms(400);
				}
				ASSERT_EQ(want_pack, read_ok(_metadata, pack));
			}
			ret = migrate(&self->d, cfg_of(e_fpu), other, self->d.cpu);
			ASSERT_EQ(0, ret) TH_LOG("migrate back: %s", strerror(-ret));
			STEP(60 + i);
			moves += 2;
		}
	} else {
		ksft_print_msg("CPU %d (the PMU's) cannot go offline and there is no %s\n",
			       self->d.cpu, MIGRATE_FILE);
	}

	/*
	 * An event opened on another CPU counts on the PMU's CPU (event_init
	 * moves it there): that CPU going offline does not stop it.
	 */
	{
		int on_other = sp_perf_event_open(&(struct perf_event_attr){
				.size = sizeof(struct perf_event_attr),
				.type = (uint32_t)self->d.type,
				.config = cfg_of(e_fpu) }, -1, other, -1, PERF_FLAG_FD_CLOEXEC);

		ASSERT_LE(0, on_other);
		ASSERT_EQ(0, inject(&self->d, -1, e_fpu, 5));
		want_fpu += 20;
		EXPECT_EQ(20, read_ok(_metadata, on_other));
		ASSERT_EQ(0, cpu_set_online(other, false));
		ASSERT_EQ(0, inject(&self->d, -1, e_fpu, 5));
		want_fpu += 20;
		EXPECT_EQ(40, read_ok(_metadata, on_other))
			TH_LOG("an event opened on CPU %d stopped with it", other);
		ASSERT_EQ(0, cpu_set_online(other, true));
		EXPECT_EQ(40, read_ok(_metadata, on_other));
		close(on_other);
		ASSERT_EQ(want_fpu, read_ok(_metadata, fpu));
	}
	STEP(70);
	close(cyc);
	close(fpu);
	close(pack);
	ksft_print_msg("cpu hotplug: %d offline/online cycles of CPU %d, %d migrations of the PMU's events, counts exact\n",
		       HP_CYCLES, other, moves);
}

/*
 * One PMU, events opened on two CPUs (both count on the PMU's CPU since
 * event_init moves them there; before, the poll timer started on the CPU
 * of the first event while the last event went on the other): enabling,
 * reading and disabling them in turn must stay exact and quiet.
 */
TEST_F_TIMEOUT(rel, poll_timer_two_cpus, 3600)
{
	const struct tev *e_fpu = tev("fpu_instruction");
	int a, b, cpu_b;
	uint64_t end;
	unsigned long n = 0;

	TENSIX_DEV(&self->d, "rel_2cpu", 2);
	cpu_b = hotpluggable_cpu(self->d.cpu);
	if (cpu_b < 0)
		SKIP(return, "one CPU");
	ASSERT_EQ(0, sp_pmu_write(&self->d, "poll_interval_us", "100"));
	b = sp_perf_event_open(&(struct perf_event_attr){
			.size = sizeof(struct perf_event_attr), .disabled = 1,
			.type = (uint32_t)self->d.type, .config = cfg_of(e_fpu) },
			-1, cpu_b, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, b);
	a = sp_perf_event_open(&(struct perf_event_attr){
			.size = sizeof(struct perf_event_attr), .disabled = 1,
			.type = (uint32_t)self->d.type, .config = cfg_of(e_fpu) },
			-1, self->d.cpu, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, a);
	end = sp_now_ns() + rel_env("SOCPMU_STRESS_SECONDS", 5) * 1000000000ULL;
	while (sp_now_ns() < end) {
		ASSERT_EQ(0, ioctl(b, PERF_EVENT_IOC_ENABLE, 0));	/* timer on CPU B */
		ASSERT_EQ(0, ioctl(a, PERF_EVENT_IOC_ENABLE, 0));
		ASSERT_EQ(0, ioctl(b, PERF_EVENT_IOC_DISABLE, 0));
		for (int k = 0; k < 3; k++)
			sp_read_count(a, &(uint64_t){ 0 });
		ASSERT_EQ(0, ioctl(a, PERF_EVENT_IOC_DISABLE, 0));	/* the last one */
		n++;
	}
	ASSERT_EQ(0, sp_pmu_write(&self->d, "poll_interval_us", "1000000"));
	close(a);
	close(b);
	ksft_print_msg("poll timer on CPU %d, last event on CPU %d: %lu cycles\n", cpu_b,
		       self->d.cpu, n);
}

/*
 * Removal while an event is being freed. perf goes on using the PMU after
 * an event's ->destroy (put_pmu_ctx(), module_put() of pmu->module); the
 * simulator's destroy_delay_us=60000 holds the event in that window for
 * 60 ms (longer than unregistering a PMU takes), while another thread
 * deletes the device 0-40 ms into it, a Tensix device and a sifive_hpm one
 * in turn. The PMU must only be freed once perf let go of it:
 * SOCPMU_REMOVAL_ROUNDS rounds (default 200) without an oops
 * (with the delay, the core poisons a PMU it frees, so a use of the freed
 * PMU faults), and every dead PMU goes away.
 */
struct closer {
	int fd;
	int64_t delay_us;
	uint64_t close_ns;	/* how long close() took: >= the ->destroy delay */
};

static void *closer_fn(void *arg)
{
	struct closer *c = arg;
	uint64_t t0 = sp_now_ns();

	close(c->fd);
	c->close_ns = sp_now_ns() - t0;
	return NULL;
}

/* How many PMUs named @prefix... are registered */
static int count_pmus(const char *prefix)
{
	DIR *dir = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(dir);
	return n;
}

/*
 * The PMUs whose removal the rounds race: the socpmu core's (Tensix) and
 * sifive_hpm's, which shares the core's removal code.
 */
static const struct {
	const char *type, *params, *prefix;
} rm_types[] = {
	{ "tensix", "cores=1 destroy_delay_us=60000", "tensix_" },
	{ "hpm", "counters=2 destroy_delay_us=60000", "sifive_hpm" },
};

TEST_F_TIMEOUT(rel, removal_during_destroy, 3600)
{
	long rounds = rel_env("SOCPMU_REMOVAL_ROUNDS", 200);
	int before[ARRAY_SIZE(rm_types)], after = -1;
	uint64_t min_close = UINT64_MAX;
	long r;

	if (sp_sim_available())
		SKIP(return, "no simulator");
	for (size_t t = 0; t < ARRAY_SIZE(rm_types); t++)
		before[t] = count_pmus(rm_types[t].prefix);
	for (r = 0; r < rounds; r++) {
		size_t t = r % ARRAY_SIZE(rm_types);
		struct closer c = { .delay_us = (r / 2 % 5) * 10000 };
		struct perf_event_attr attr;
		pthread_t th;
		int ret;

		sp_sim_del_device("rel_rm");
		ret = sp_dev_create(&self->d, rm_types[t].type, "rel_rm", rm_types[t].params,
				    rm_types[t].prefix);
		if (ret == -EINVAL || ret == -ENODEV)
			SKIP(return, "no %s model or driver", rm_types[t].type);
		ASSERT_EQ(0, ret) TH_LOG("round %ld: creating %s: %s", r, rm_types[t].type,
					 strerror(-ret));
		/* fpu_instruction, or sifive_hpm's cycles, counted on CPU 0 for hpm */
		sp_attr_init(&attr, &self->d, t ? SIFIVE_HPM_GEN_CPU_CYCLES :
			     cfg_of(tev("fpu_instruction")), 0);
		c.fd = sp_perf_event_open(&attr, -1, self->d.cpu < 0 ? 0 : self->d.cpu, -1,
					  PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, c.fd) TH_LOG("round %ld: %s", r, strerror(-c.fd));
		ASSERT_EQ(0, pthread_create(&th, NULL, closer_fn, &c));
		/* into the 2 ms after ->destroy, at a few offsets */
		usleep((useconds_t)c.delay_us);
		ASSERT_EQ(0, sp_dev_delete(&self->d));
		ASSERT_EQ(0, pthread_join(th, NULL));
		if (c.close_ns < min_close)
			min_close = c.close_ns;
	}
	/*
	 * The window was there: every close() spent the 60 ms in ->destroy.
	 * The core sleeps them on an hrtimer, on the CLOCK_MONOTONIC measured
	 * here. (It used msleep() before: a guest booted on a loaded host,
	 * whose tick then ran fast against its clocksource, measured 48.5 ms
	 * and once 29.8 ms for it, against a bound of 40.)
	 */
	EXPECT_LE(60000000, min_close) TH_LOG("a close() took %llu us",
					     (unsigned long long)min_close / 1000);
	/* The dead PMUs go away once perf let go of them */
	for (size_t t = 0; t < ARRAY_SIZE(rm_types); t++) {
		for (int i = 0; i < 100; i++) {
			after = count_pmus(rm_types[t].prefix);
			if (after <= before[t])
				break;
			sp_sleep_ms(50);
		}
		EXPECT_LE(after, before[t]) TH_LOG("%d %s PMUs, %d before the removals", after,
						   rm_types[t].prefix, before[t]);
	}
	ksft_print_msg("removal during ->destroy: %ld rounds (Tensix, HPM), dead PMUs all freed\n",
		       r);
}

/*
 * A software event in a group led by a socpmu event shares the socpmu
 * PMU's perf context on its CPU (perf puts software siblings of a hardware
 * group there), and stays in it when the leader is closed. Removing the
 * device then must not free that context under it: new PMUs registered
 * afterwards would get its memory.
 */
TEST_F_TIMEOUT(rel, software_sibling_outlives_leader, 100)
{
	const struct tev *e_fpu = tev("fpu_instruction");
	struct perf_event_attr sw = {
		.size = sizeof(sw), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
	};
	uint64_t v1, v2;
	int leader, sib, ret;

	TENSIX_DEV(&self->d, "rel_sib", 2);
	leader = sp_open(&self->d, cfg_of(e_fpu), 0, -1, 0);
	ASSERT_LE(0, leader);
	sib = sp_perf_event_open(&sw, -1, self->d.cpu, leader, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, sib);
	close(leader);
	ASSERT_EQ(0, sp_dev_delete(&self->d));

	/* New PMUs come and go; the sibling keeps counting, enabled and disabled */
	for (int i = 0; i < 20; i++) {
		struct sp_dev d2;
		int fd;

		sp_sim_del_device("rel_sib2");
		ASSERT_EQ(0, sp_dev_create(&d2, "tensix", "rel_sib2", "cores=1", "tensix_"));
		fd = sp_open(&d2, cfg_of(e_fpu), 0, -1, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ioctl(sib, PERF_EVENT_IOC_DISABLE, 0));
		ASSERT_EQ(0, ioctl(sib, PERF_EVENT_IOC_ENABLE, 0));
		close(fd);
		ASSERT_EQ(0, sp_dev_delete(&d2));
	}
	v1 = read_ok(_metadata, sib);
	sp_sleep_ms(50);
	v2 = read_ok(_metadata, sib);
	EXPECT_LT(v1, v2) TH_LOG("the software sibling stopped counting");

	/* It holds the driver (and its dead PMU) like an event of its own */
	ret = sp_mod_unload("tensix_pmu");
	EXPECT_NE(0, ret) TH_LOG("tensix_pmu unloaded under the sibling");
	close(sib);
	if (ret)
		ret = sp_mod_unload_wait("tensix_pmu", 2500);
	EXPECT_EQ(0, ret) TH_LOG("tensix_pmu still busy: %s", strerror(-ret));
	if (!ret)
		ASSERT_EQ(0, mod_load("tensix_pmu"));
}

/*
 * The core keeps an event's state in the event (its hw_perf_event), as
 * arm-cmn does; only events that sum more than SOCPMU_INLINE_COUNTERS (6)
 * counters allocate their previous values. Seen from outside: opening 512
 * events of one core or of 4 cores takes no more kmalloc objects than
 * opening 512 software events, give or take what a busy system allocates
 * meanwhile (it took 2 per event), and both kinds of state count exactly.
 */
#define STATE_EVENTS	512

/* kmalloc objects that @open_one-ing @n events (kept open in @fds) takes */
static long kmalloc_objs(struct __test_metadata *_metadata, int *fds, int n,
			 int (*open_one)(const struct sp_dev *d, int i), const struct sp_dev *d,
			 char *top, size_t len)
{
	static struct rel_slabs a, b;
	long objs = 0;

	ASSERT_EQ(0, rel_slab_snapshot(&a));
	for (int i = 0; i < n; i++) {
		fds[i] = open_one(d, i);
		ASSERT_LE(0, fds[i]) TH_LOG("event %d: %s", i, strerror(-fds[i]));
	}
	ASSERT_EQ(0, rel_slab_snapshot(&b));
	rel_slab_delta(&a, &b, top, len);
	/* Plain kmalloc caches (kmalloc-<size>, kmalloc-rnd-<n>-<size>) */
	for (int i = 0; i < b.n; i++) {
		if (strncmp(b.c[i].name, "kmalloc-", 8) || !strncmp(b.c[i].name, "kmalloc-cg-", 11) ||
		    !strncmp(b.c[i].name, "kmalloc-rcl-", 12))
			continue;
		objs += b.c[i].objs;
		for (int j = 0; j < a.n; j++)
			if (!strcmp(a.c[j].name, b.c[i].name))
				objs -= a.c[j].objs;
	}
	return objs;
}

/* Event i: fpu_instruction on every core (4: state inline), or on core i % 5 - 1 */
static int open_fpu(const struct sp_dev *d, int i)
{
	return sp_open(d, cfg_of(tev("fpu_instruction")), sp_cfg1_unit(i % 5 - 1), -1, 0);
}

static int open_sw(const struct sp_dev *d, int i)
{
	struct perf_event_attr sw = {
		.size = sizeof(sw), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.disabled = 1,
	};

	(void)i;
	return sp_perf_event_open(&sw, -1, d->cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

TEST_F_TIMEOUT(rel, event_state_in_event, 600)
{
	const struct tev *e_fpu = tev("fpu_instruction");
	struct rlimit rl = { STATE_EVENTS + 64, STATE_EVENTS + 64 };
	static int fds[STATE_EVENTS];
	char top[512], top2[512], top_sw[512];
	long ours, ours2, soft;
	struct sp_dev big;
	int fd;

	TENSIX_DEV(&self->d, "rel_state", 4);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl)) TH_LOG("%s", strerror(errno));
	/* Once, not per event: the fd table's growth, the PMU's scratch */
	for (int i = 0; i < STATE_EVENTS; i++)
		ASSERT_LE(0, fds[i] = open_sw(&self->d, i));
	close_all(fds, STATE_EVENTS);
	close(open_fpu(&self->d, 0));

	/*
	 * Twice, the smaller counts: what the system allocates meanwhile
	 * comes and goes (180 kmalloc-8 objects in one snapshot, freed by the
	 * next), what an event allocates is there each time. SLUB's counts
	 * move by a few hundred objects either way now and then (kmalloc-8
	 * -364 objects across the software events' snapshots, with the x86
	 * VM's expedited RCU grace periods), so a round over the bound is made
	 * again, twice at most: state allocated per event adds its objects
	 * to every round.
	 */
	for (int round = 1; round <= 3; round++) {
		ours = kmalloc_objs(_metadata, fds, STATE_EVENTS, open_fpu, &self->d, top,
				    sizeof(top));
		/* Exact with the state inline: 1000 per core, 4 cores */
		ASSERT_EQ(0, inject(&self->d, -1, e_fpu, 1000));
		EXPECT_EQ(4000, read_ok(_metadata, fds[0]));
		EXPECT_EQ(1000, read_ok(_metadata, fds[2]));
		close_all(fds, STATE_EVENTS);
		ours2 = kmalloc_objs(_metadata, fds, STATE_EVENTS, open_fpu, &self->d, top2,
				     sizeof(top2));
		close_all(fds, STATE_EVENTS);
		soft = kmalloc_objs(_metadata, fds, STATE_EVENTS, open_sw, &self->d, top_sw,
				    sizeof(top_sw));
		close_all(fds, STATE_EVENTS);
		ksft_print_msg("round %d, %d events: %ld and %ld kmalloc objects for socpmu ones (slabs grew: %s; %s), %ld for software ones (%s)\n",
			       round, STATE_EVENTS, ours, ours2, top, top2, soft, top_sw);
		if (ours2 < ours)
			ours = ours2;
		/* The same noise can make the software count negative: 0 then */
		if (soft < 0)
			soft = 0;
		/* Noise on a busy host: ~0.25 per event seen; 2 per event before */
		if (ours <= soft + STATE_EVENTS / 2)
			break;
	}
	EXPECT_LE(ours, soft + STATE_EVENTS / 2)
		TH_LOG("%ld kmalloc objects for %d socpmu events, %ld for software events",
		       ours, STATE_EVENTS, soft);

	/* Exact with the state allocated: 12 cores */
	memset(&big, 0, sizeof(big));
	sp_sim_del_device("rel_state12");
	ASSERT_EQ(0, sp_dev_create(&big, "tensix", "rel_state12", "cores=12", "tensix_"));
	fd = sp_open(&big, cfg_of(e_fpu), 0, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(&big, -1, e_fpu, 1000));
	ASSERT_EQ(0, inject(&big, 11, e_fpu, 7));
	EXPECT_EQ(12007, read_ok(_metadata, fd));
	close(fd);
	EXPECT_EQ(0, sp_dev_delete(&big));
}

TEST_HARNESS_MAIN
