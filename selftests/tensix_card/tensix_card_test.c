// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selftests for the Tensix PMU of a PCIe card: tensix_noc.ko (the NOC
 * bridge: one TLB window of BAR0, one regmap per Tensix tile) and
 * tensix_pmu.ko on the simulator's "ttcard" model (a Wormhole or Blackhole
 * chip behind BAR0: the TLB windows and config registers as the chips lay
 * them out, the NOC grid, harvesting and the Tensix counter model behind
 * every tile).
 *
 * The PMU's "tiles" file (unit -> NOC0 x,y and the x,y the bridge addresses
 * it by) and the card's debugfs "tiles" (model core -> NOC0 x,y, translated
 * x,y, harvested) are matched by NOC0 coordinates; both are checked against
 * the chips' Tensix coordinates written out here and against golden data
 * from tt-umd (tt_umd_golden.h). Harvesting masks are tt-umd's (bit i: the
 * i-th Tensix row or column in NOC0 order). Counts are injected per model
 * core and read per unit with perf_event_open.
 *
 * Needs root, socpmu_core + tensix_pmu + tensix_noc + socpmu_sim and
 * debugfs; skips otherwise.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../tensix/tensix_lib.h"
#include "tt_umd_golden.h"

#define MAX_TILES	140

/*
 * The chips' Tensix tiles (tt-umd); harvesting bit i (tt-umd's convention)
 * removes row wh_y[i] or column bh_x[i]
 */
static const int wh_x[] = { 1, 2, 3, 4, 6, 7, 8, 9 };
static const int wh_y[] = { 1, 2, 3, 4, 5, 7, 8, 9, 10, 11 };
static const int bh_x[] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 };
static const int bh_y[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

struct card {
	struct sp_dev d;
	bool bh;
	unsigned int harvest;
	int nunits;			/* PMU units */
	int ux[MAX_TILES], uy[MAX_TILES];	/* NOC0 */
	int uax[MAX_TILES], uay[MAX_TILES];	/* as the bridge addresses it */
	int core[MAX_TILES];		/* model core of each unit */
	int ncores;			/* model cores (every tile of the grid) */
	int cx[MAX_TILES], cy[MAX_TILES];	/* NOC0 */
	int ctx[MAX_TILES], cty[MAX_TILES];	/* translated */
	bool charv[MAX_TILES];
	bool both;			/* the PMU's tiles show both coordinates */
};

static bool in(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Is (x, y) a Tensix tile of the chip that harvesting (tt-umd's mask) left? */
static bool expect_tile(const struct card *c, int x, int y)
{
	if (!c->bh) {
		if (!in(wh_x, 8, x) || !in(wh_y, 10, y))
			return false;
		for (int i = 0; i < 10; i++)
			if ((c->harvest & (1u << i)) && wh_y[i] == y)
				return false;
		return true;
	}
	if (!in(bh_x, 14, x) || !in(bh_y, 10, y))
		return false;
	for (int i = 0; i < 14; i++)
		if ((c->harvest & (1u << i)) && bh_x[i] == x)
			return false;
	return true;
}

static int expect_count(const struct card *c)
{
	int n = 0;

	for (int x = 0; x < 17; x++)
		for (int y = 0; y < 12; y++)
			n += expect_tile(c, x, y);
	return n;
}

/*
 * Parse "<n> <x>,<y> <x2>,<y2>[ harvested]" lines (NOC0, then translated or
 * addressed coordinates); returns the number of lines. Lines without
 * <x2>,<y2> (the PMU's "tiles" before it showed both) count as x2 = x,
 * y2 = y, and clear *@both.
 */
static int parse_tiles(char *buf, int *xs, int *ys, int *x2s, int *y2s, bool *harv,
		       bool *both)
{
	int n = 0, idx, x, y, x2, y2, got;
	char *line, *save = NULL;

	*both = true;
	for (line = strtok_r(buf, "\n", &save); line && n < MAX_TILES;
	     line = strtok_r(NULL, "\n", &save)) {
		got = sscanf(line, "%d %d,%d %d,%d", &idx, &x, &y, &x2, &y2);
		if (got == 3) {
			x2 = x;
			y2 = y;
			*both = false;
		} else if (got != 5) {
			return -EINVAL;
		}
		if (idx != n)
			return -EINVAL;
		xs[n] = x;
		ys[n] = y;
		x2s[n] = x2;
		y2s[n] = y2;
		if (harv)
			harv[n] = strstr(line, "harvested") != NULL;
		n++;
	}
	return n;
}

/*
 * A card of tt-umd harvesting mask @harvest (@extra: more model
 * parameters, may be NULL): its units, model cores and how they match
 */
static int card_create_args(struct card *c, const char *name, bool bh, unsigned int harvest,
			    const char *extra)
{
	char params[160], buf[8192];
	bool both;
	uint64_t n;
	int ret;

	memset(c, 0, sizeof(*c));
	c->bh = bh;
	c->harvest = harvest;
	snprintf(params, sizeof(params), "arch=%s harvest=0x%x %s",
		 bh ? "blackhole" : "wormhole", harvest, extra ? extra : "");
	ret = sp_dev_create(&c->d, "ttcard", name, params, "tensix_");
	if (ret)
		return ret;
	if (c->d.cpu < 0)
		return -ENOENT;
	ret = sp_pmu_read_u64(&c->d, "num_cores", &n);
	if (ret)
		return ret;
	c->nunits = (int)n;
	ret = sp_pmu_read(&c->d, "tiles", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	if (parse_tiles(buf, c->ux, c->uy, c->uax, c->uay, NULL, &c->both) != c->nunits)
		return -EINVAL;
	ret = sp_debugfs_read(&c->d, "tiles", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	c->ncores = parse_tiles(buf, c->cx, c->cy, c->ctx, c->cty, c->charv, &both);
	if (!both)
		return -EINVAL;
	if (c->ncores <= 0)
		return -EINVAL;
	for (int u = 0; u < c->nunits; u++) {
		c->core[u] = -1;
		for (int k = 0; k < c->ncores; k++)
			if (c->cx[k] == c->ux[u] && c->cy[k] == c->uy[u])
				c->core[u] = k;
		if (c->core[u] < 0)
			return -ENOENT;
	}
	return 0;
}

static int card_create(struct card *c, const char *name, bool bh, unsigned int harvest)
{
	return card_create_args(c, name, bh, harvest, NULL);
}

static int card_inject(const struct card *c, int core, unsigned int bank,
		       unsigned int id, uint64_t n)
{
	return sp_debugfs_printf(&c->d, "inject", "%d %s %u %" PRIu64, core,
				 tensix_bank_names[bank], id, n);
}

/*
 * "harvested N\nstray N\ndead N\n" of the card's debugfs "errors": bad
 * accesses, and BAR0 accesses while the card was dead (@dead may be NULL)
 */
static int card_errors(const struct card *c, uint64_t *harvested, uint64_t *stray,
		       uint64_t *dead)
{
	char buf[128];
	unsigned long long h, s, d;
	int ret = sp_debugfs_read(&c->d, "errors", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (sscanf(buf, "harvested %llu stray %llu dead %llu", &h, &s, &d) != 3)
		return -EINVAL;
	*harvested = h;
	*stray = s;
	if (dead)
		*dead = d;
	return 0;
}

static uint64_t read_ok(struct __test_metadata *_metadata, int fd)
{
	uint64_t val = 0;

	EXPECT_EQ((ssize_t)sizeof(val), read(fd, &val, sizeof(val)));
	return val;
}

/* An event of a removed card: its frozen count @want, or a failed read */
static void expect_frozen_or_gone(struct __test_metadata *_metadata, int fd, uint64_t want,
				  int i)
{
	uint64_t val = 0;
	ssize_t n = read(fd, &val, sizeof(val));

	if (n == (ssize_t)sizeof(val)) {
		EXPECT_EQ(want, val) TH_LOG("event %d, card removed", i);
	} else {
		EXPECT_EQ(-1, n);
	}
}

#define FPU_INSTR	cfg_counter(TENSIX_BANK_FPU, 0, 0)

/*
 * Every unit counts exactly what is injected into its tile, and the bridge
 * never touched a harvested tile nor anything but Tensix registers
 */
static void expect_counts_exact(struct __test_metadata *_metadata, const struct card *c)
{
	int fd[MAX_TILES];
	uint64_t h = 1, s = 1;

	for (int u = 0; u < c->nunits; u++) {
		fd[u] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(u), -1, 0);
		ASSERT_LE(0, fd[u]) TH_LOG("unit %d: %s", u, strerror(-fd[u]));
	}
	for (int u = 0; u < c->nunits; u++)
		ASSERT_EQ(0, card_inject(c, c->core[u], TENSIX_BANK_FPU, 0, 500 + 3 * u));
	for (int u = 0; u < c->nunits; u++) {
		EXPECT_EQ(500 + 3 * (uint64_t)u, read_ok(_metadata, fd[u]))
			TH_LOG("%s: unit %d (%d,%d)", c->d.name, u, c->ux[u], c->uy[u]);
		close(fd[u]);
	}
	ASSERT_EQ(0, card_errors(c, &h, &s, NULL));
	EXPECT_EQ(0, h) TH_LOG("%s: the bridge touched a harvested tile", c->d.name);
	EXPECT_EQ(0, s) TH_LOG("%s: accesses that reached no Tensix register", c->d.name);
}

FIXTURE(card) {
	struct card c;
};

FIXTURE_VARIANT(card) {
	bool bh;
	unsigned int harvest;
};

FIXTURE_VARIANT_ADD(card, wormhole) { .bh = false, .harvest = 0 };
FIXTURE_VARIANT_ADD(card, wormhole_harvested) { .bh = false, .harvest = 0x5 };
FIXTURE_VARIANT_ADD(card, blackhole) { .bh = true, .harvest = 0 };
FIXTURE_VARIANT_ADD(card, blackhole_harvested) { .bh = true, .harvest = 0x2001 };
/* tt-umd's blackhole_P100.yaml / blackhole_4xP150.yaml: columns 7 and 10 */
FIXTURE_VARIANT_ADD(card, blackhole_p150) { .bh = true, .harvest = 192 };

FIXTURE_SETUP(card)
{
	char name[SP_NAME_LEN];
	int ret;

	if (geteuid())
		SKIP(return, "needs root");
	ret = sp_sim_available_for("tensix_noc");
	if (!ret)
		ret = sp_sim_available_for("tensix_pmu");
	if (ret)
		SKIP(return, "no socpmu_sim + tensix_pmu + tensix_noc (%s)", strerror(-ret));
	snprintf(name, sizeof(name), "ttc_%d", getpid());
	ret = card_create(&self->c, name, variant->bh, variant->harvest);
	if (ret) {
		sp_dev_delete(&self->c.d);
		ASSERT_EQ(0, ret) TH_LOG("creating card %s: %s", name, strerror(-ret));
	}
}

FIXTURE_TEARDOWN_PARENT(card)
{
	sp_dev_delete(&self->c.d);
}

/* The PMU offers exactly the chip's Tensix tiles that harvesting left */
TEST_F(card, tiles_match_grid)
{
	const struct card *c = &self->c;
	char buf[64];

	ASSERT_LT(0, sp_pmu_read(&c->d, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ(c->bh ? "blackhole\n" : "wormhole\n", buf);
	EXPECT_EQ(expect_count(c), c->nunits);
	EXPECT_EQ(c->bh ? 140 : 80, c->ncores);
	EXPECT_TRUE(c->both) TH_LOG("tiles: no addressed coordinates");
	for (int u = 0; u < c->nunits; u++) {
		EXPECT_TRUE(expect_tile(c, c->ux[u], c->uy[u]))
			TH_LOG("unit %d at %d,%d", u, c->ux[u], c->uy[u]);
		EXPECT_FALSE(c->charv[c->core[u]]) TH_LOG("unit %d is harvested", u);
		/*
		 * The bridge addresses a Blackhole tile as the model's NOC
		 * (translation on) routes it, a Wormhole one by NOC0
		 */
		EXPECT_EQ(c->bh ? c->ctx[c->core[u]] : c->ux[u], c->uax[u])
			TH_LOG("unit %d at %d,%d: x addressed", u, c->ux[u], c->uy[u]);
		EXPECT_EQ(c->bh ? c->cty[c->core[u]] : c->uy[u], c->uay[u])
			TH_LOG("unit %d at %d,%d: y addressed", u, c->ux[u], c->uy[u]);
		for (int v = 0; v < u; v++) {
			EXPECT_FALSE(c->ux[u] == c->ux[v] && c->uy[u] == c->uy[v]);
		}
	}
	/* every tile the model has, not harvested, is a unit */
	for (int k = 0; k < c->ncores; k++) {
		bool found = false;

		for (int u = 0; u < c->nunits; u++)
			found |= c->core[u] == k;
		EXPECT_EQ(!c->charv[k], found) TH_LOG("model core %d (%d,%d)", k,
						       c->cx[k], c->cy[k]);
		EXPECT_EQ(expect_tile(c, c->cx[k], c->cy[k]), !c->charv[k]);
	}
}

/* Every tile counts exactly what is injected into it; the sum is exact */
TEST_F(card, every_tile_exact)
{
	const struct card *c = &self->c;
	int fd[MAX_TILES], sum, cyc;
	uint64_t want = 0, h, s;

	for (int u = 0; u < c->nunits; u++) {
		fd[u] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(u), -1, 0);
		ASSERT_LE(0, fd[u]) {
			TH_LOG("unit %d: %s", u, strerror(-fd[u]));
		}
	}
	sum = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, sum);
	cyc = sp_open(&c->d, cfg_cycles(TENSIX_BANK_FPU), 0, -1, 0);
	ASSERT_LE(0, cyc);
	for (int u = 0; u < c->nunits; u++) {
		ASSERT_EQ(0, card_inject(c, c->core[u], TENSIX_BANK_FPU, 0, 1000 + 37 * u));
		want += 1000 + 37 * u;
	}
	/* harvested tiles have no running bank: nothing to count there */
	for (int k = 0; k < c->ncores; k++) {
		if (c->charv[k]) {
			ASSERT_EQ(0, card_inject(c, k, TENSIX_BANK_FPU, 0, 999999));
		}
	}
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 500"));
	for (int u = 0; u < c->nunits; u++) {
		EXPECT_EQ(1000 + 37 * (uint64_t)u, read_ok(_metadata, fd[u]))
			TH_LOG("unit %d (%d,%d)", u, c->ux[u], c->uy[u]);
	}
	EXPECT_EQ(want, read_ok(_metadata, sum));
	EXPECT_EQ(500 * (uint64_t)c->nunits, read_ok(_metadata, cyc));
	for (int u = 0; u < c->nunits; u++)
		close(fd[u]);
	close(sum);
	close(cyc);
	ASSERT_EQ(0, card_errors(c, &h, &s, NULL));
	EXPECT_EQ(0, h) TH_LOG("the bridge touched a harvested tile");
	EXPECT_EQ(0, s) TH_LOG("accesses that reached no Tensix register");
}

/* Units past the last tile are refused; harvested tiles are never touched */
TEST_F(card, harvested_not_offered)
{
	const struct card *c = &self->c;
	struct perf_event_attr attr;
	uint64_t h, s;
	int fd;

	sp_attr_init(&attr, &c->d, FPU_INSTR, sp_cfg1_unit(c->nunits));
	EXPECT_EQ(-EINVAL, sp_try_open(&attr, -1, c->d.cpu, -1));
	sp_attr_init(&attr, &c->d, FPU_INSTR, sp_cfg1_unit(c->nunits - 1));
	EXPECT_EQ(0, sp_try_open(&attr, -1, c->d.cpu, -1));
	fd = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, read_ok(_metadata, fd));
	close(fd);
	ASSERT_EQ(0, card_errors(c, &h, &s, NULL));
	EXPECT_EQ(0, h);
	EXPECT_EQ(0, s);
	/*
	 * the model itself refuses accesses to a harvested tile, addressed
	 * as the NOC routes it (translated)
	 */
	for (int k = 0; k < c->ncores && c->harvest; k++) {
		if (!c->charv[k])
			continue;
		ASSERT_EQ(0, sp_debugfs_printf(&c->d, "user_tlb", "0 %d %d 1", c->ctx[k],
					       c->cty[k]));
		ASSERT_EQ(0, card_errors(c, &h, &s, NULL));
		EXPECT_LT(0, h) TH_LOG("model did not notice harvested tile %d,%d",
				       c->cx[k], c->cy[k]);
		break;
	}
}

/* The regmap debugfs "registers" file of a tile (goes through the window) */
static int tile_regmap_file(const struct card *c, char *path, size_t len)
{
	char pat[64];
	DIR *dir = opendir(SP_DEBUGFS "/regmap");
	struct dirent *de;
	int ret = -ENOENT;

	if (!dir)
		return -errno;
	snprintf(pat, sizeof(pat), "-tile-%d-%d", c->ux[0], c->uy[0]);
	while ((de = readdir(dir))) {
		const char *t = strstr(de->d_name, pat);

		/* this card's bridge: "socpmu_sim.tensix_noc.<sim id>-tile-x-y" */
		if (t && !t[strlen(pat)] && strstr(de->d_name, "socpmu_sim.tensix_noc.")) {
			snprintf(path, len, SP_DEBUGFS "/regmap/%s/registers", de->d_name);
			ret = 0;
		}
	}
	closedir(dir);
	return ret;
}

/*
 * Other users of the window hardware meanwhile: user space programs its own
 * windows (two processes, one per CPU), and a third process reads a tile's
 * registers through the bridge (regmap debugfs) from the CPU the PMU does
 * not use, so that the bridge's window is reprogrammed between perf's
 * accesses unless the bridge keeps "program, then access" atomic. The
 * counts stay exact.
 *
 * The PMU polls every 5 ms, each poll reading every unit's counter. A poll
 * of a Blackhole's 140 units takes more than 1 ms under TCG: at 1 ms the
 * timer ran back to back on the PMU's CPU and the test took 5-9 s instead
 * of about 1, until the core stretched the period to 4 times the poll
 * (poll_duty_bounded).
 */
TEST_F_TIMEOUT(card, concurrent_window_use, 240)
{
	const struct card *c = &self->c;
	/*
	 * user windows: first, next to the bridge's, and other kinds (the
	 * bridge's is Wormhole's last 1 MiB window, 155; Blackhole's 200)
	 */
	const int wins_wh[] = { 0, 154, 165, 184 }, wins_bh[] = { 0, 199, 198, 1 };
	const int *wins = c->bh ? wins_bh : wins_wh;
	int fd[MAX_TILES], rounds = 30, nkids = 2;
	char regs[PATH_MAX];
	pid_t kids[3];
	uint64_t h, s;

	/* the windows of tt-kmd and of the bridge are not user space's */
	EXPECT_EQ(-EBUSY, sp_debugfs_printf(&c->d, "user_tlb", "%d %d %d 1",
					    c->bh ? 200 : 155, c->ux[0], c->uy[0]));
	EXPECT_EQ(-EBUSY, sp_debugfs_printf(&c->d, "user_tlb", "%d %d %d 1",
					    c->bh ? 201 : 185, c->ux[0], c->uy[0]));

	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 5000));
	for (int u = 0; u < c->nunits; u++) {
		fd[u] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(u), -1, 0);
		ASSERT_LE(0, fd[u]);
	}
	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i]) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(i, &set);
			sched_setaffinity(0, sizeof(set), &set);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (int k = 0;; k++) {
				int u = (k * 7 + i) % c->nunits;

				/*
				 * Each process has windows of its own (two user
				 * programs sharing one would break each other,
				 * as on a card): wins[0..1] and wins[2..3]
				 */
				if (sp_debugfs_printf(&c->d, "user_tlb", "%d %d %d 200",
						      wins[2 * i + (k & 1)], c->uax[u], c->uay[u]))
					_exit(1);
			}
		}
	}
	ASSERT_EQ(0, tile_regmap_file(c, regs, sizeof(regs)))
		TH_LOG("no regmap debugfs for tile %d,%d", c->ux[0], c->uy[0]);
	{
		kids[nkids] = fork();
		ASSERT_LE(0, kids[nkids]);
		if (!kids[nkids]) {
			cpu_set_t set;
			char buf[8192];

			CPU_ZERO(&set);
			CPU_SET(c->d.cpu ? 0 : 1, &set);
			sched_setaffinity(0, sizeof(set), &set);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				if (sp_read_file(regs, buf, sizeof(buf)) <= 0)
					_exit(1);
		}
		nkids++;
	}
	for (int r = 1; r <= rounds; r++) {
		int u0 = (r * 13) % c->nunits;

		for (int u = u0; u < c->nunits; u += 5) {
			ASSERT_EQ(0, card_inject(c, c->core[u], TENSIX_BANK_FPU, 0, u + 1));
		}
		for (int u = u0; u < c->nunits; u += 5) {
			uint64_t got = read_ok(_metadata, fd[u]);

			ASSERT_EQ(0, ioctl(fd[u], PERF_EVENT_IOC_RESET, 0));
			EXPECT_EQ((uint64_t)u + 1, got) TH_LOG("round %d unit %d", r, u);
		}
	}
	for (int i = 0; i < nkids; i++) {
		int st;

		kill(kids[i], SIGKILL);
		waitpid(kids[i], &st, 0);
		EXPECT_TRUE(WIFSIGNALED(st)) TH_LOG("user window child %d failed", i);
	}
	for (int u = 0; u < c->nunits; u++)
		close(fd[u]);
	ASSERT_EQ(0, card_errors(c, &h, &s, NULL));
	EXPECT_EQ(0, h);
	EXPECT_EQ(0, s);
}

/*
 * The poll's period is at least 4 times as long as the poll took (the
 * socpmu core's SOCPMU_POLL_DUTY), however short poll_interval_us is: with
 * every unit's event open and each write of a window's configuration
 * stalled by POLL_STALL_NS, a poll of the card takes milliseconds, and at
 * the shortest period (100 us) the timer would otherwise run back to back
 * on the PMU's CPU. Measured from outside (sp_poll_stalled()), over at
 * least 600 ms and three polls: every register write is then a poll's window programming (nothing
 * else writes), so the writes times the stall are a lower bound of the
 * time the polls took, which must stay under a quarter of it (bound: 0.3).
 * Without the core's bound the stalls alone took 60-69 % of the time under
 * TCG (20-21 % with it).
 */
#define POLL_STALL_NS	50000

TEST_F_TIMEOUT(card, poll_duty_bounded, 120)
{
	const struct card *c = &self->c;
	struct sp_poll_duty r;
	int fd[MAX_TILES], ret;

	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 100));
	for (int u = 0; u < c->nunits; u++) {
		fd[u] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(u), -1, 0);
		ASSERT_LE(0, fd[u]);
	}
	/* A poll reads each unit's counter once */
	ret = sp_poll_stalled(&c->d, "cfg_delay_ns", POLL_STALL_NS, c->nunits, &r);
	for (int u = 0; u < c->nunits; u++)
		close(fd[u]);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	TH_LOG("%d units: %.1f polls (%" PRIu64 " reads, %" PRIu64 " window writes) in %.0f ms, stalled %.0f %% of it",
	       c->nunits, r.polls, r.reads, r.writes, r.ms, r.stalled * 100);
	/* It polled every unit at least three times, and did not keep the CPU */
	EXPECT_LE(3 * (uint64_t)c->nunits, r.reads);
	EXPECT_GT(0.3, r.stalled);
}

/*
 * Child: dump a tile's registers through regmap debugfs @reps times; every
 * value must be 0 (the tile is idle). Exit 0 if so, 2 on a non-zero value
 * (an access that went to another tile), 1 on errors.
 */
#define HEX "0123456789abcdefABCDEF"

static void dump_idle_tile(const char *regs, int cpu, int reps)
{
	static char buf[16384];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int i = 0; i < reps; i++) {
		char *line, *save = NULL;
		int n = 0;

		if (sp_read_file(regs, buf, sizeof(buf)) <= 0)
			_exit(1);
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			/*
			 * "<addr>: <value>" in hex; checked by hand, as
			 * sscanf() of every line took half of the test's
			 * time under TCG
			 */
			size_t alen = strspn(line, HEX), vlen;
			const char *v = line + alen;

			if (!alen || strncmp(v, ": ", 2))
				_exit(1);
			v += 2;
			vlen = strspn(v, HEX);
			if (!vlen || v[vlen])
				_exit(1);
			if (strspn(v, "0") != vlen) {
				printf("# dump %d: register 0x%.*s of an idle tile reads 0x%s\n",
				       i, (int)alen, line, v);
				_exit(2);
			}
			n++;
		}
		if (n < 100)
			_exit(1);
	}
	_exit(0);
}

/*
 * The bridge's window is shared by every user of the tile regmaps: here
 * perf (the poll timer, every 100 us, reading a busy tile) and a process on
 * the other CPU reading an idle tile's registers through regmap debugfs.
 * Unless "program the window, access through it" is atomic, the reader's
 * accesses land on the busy tile whenever the poll comes in between.
 *
 * The model stalls each window programming by WINDOW_STALL_NS (debugfs
 * cfg_delay_ns) so that the poll comes in between often: with the bridge's
 * lock replaced by local_irq_save(), the reader saw the busy tile in its
 * dump 0 to 3 (20 runs of the four variants), where without the stall it
 * took 46 to 2344 dumps of the 3000 this test made then.
 */
#define WINDOW_STALL_NS	5000
#define WINDOW_DUMPS	100

TEST_F_TIMEOUT(card, window_atomic_for_other_users, 240)
{
	const struct card *c = &self->c;
	int last = c->nunits - 1, fd, st;
	char regs[PATH_MAX], buf[32];
	pid_t kid;

	ASSERT_EQ(0, tile_regmap_file(c, regs, sizeof(regs)))
		TH_LOG("no regmap debugfs for tile %d,%d", c->ux[0], c->uy[0]);
	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 100));
	fd = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(last), -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 0x5a5a5a5a));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "%d 12345", c->core[last]));
	/* the model's stall after a window is programmed: 0 by default, at most 50 us */
	ASSERT_LT(0, sp_debugfs_read(&c->d, "cfg_delay_ns", buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	EXPECT_EQ(-EINVAL, sp_debugfs_printf(&c->d, "cfg_delay_ns", "50001"));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "cfg_delay_ns", "%d", WINDOW_STALL_NS));
	ASSERT_LT(0, sp_debugfs_read(&c->d, "cfg_delay_ns", buf, sizeof(buf)));
	EXPECT_EQ(WINDOW_STALL_NS, atoi(buf));
	kid = fork();
	ASSERT_LE(0, kid);
	if (!kid)
		dump_idle_tile(regs, c->d.cpu ? 0 : 1, WINDOW_DUMPS);
	ASSERT_EQ(kid, waitpid(kid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("reader: status 0x%x (2: it read another tile)", st);
	EXPECT_EQ(0x5a5a5a5a, read_ok(_metadata, fd));
	close(fd);
}

/*
 * A group counts one window on every tile, however slow the accesses: with
 * the matmul workload (fpu_instruction 0.8 per cycle) and every window
 * programming stalled by GROUP_STALL_NS, a group of fpu_cycles and
 * fpu_instruction of all units, enabled and disabled as perf stat does
 * (the leader, PERF_IOC_FLAG_GROUP), must read exactly 0.8 instructions
 * per cycle. Each tile is a window programming away from the next, so a
 * member that started, or was read, one pass over the tiles after its
 * leader counted milliseconds more or less than its cycles.
 */
#define GROUP_STALL_NS	50000

TEST_F_TIMEOUT(card, group_one_window, 120)
{
	const struct card *c = &self->c;
	struct perf_event_attr attr;
	struct { uint64_t nr, cycles, instr; } g;
	int lead, member;
	double ratio;

	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "workload", "matmul fpu=80"));
	sp_attr_init(&attr, &c->d, cfg_cycles(TENSIX_BANK_FPU), 0);
	attr.read_format = PERF_FORMAT_GROUP;
	attr.disabled = 1;
	lead = sp_perf_event_open(&attr, -1, c->d.cpu, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, lead);
	member = sp_open(&c->d, FPU_INSTR, 0, lead, PERF_FORMAT_GROUP);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "cfg_delay_ns", "%d", GROUP_STALL_NS));
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	sp_sleep_ms(100);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "cfg_delay_ns", "0"));
	ASSERT_EQ((ssize_t)sizeof(g), read(lead, &g, sizeof(g)));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "workload", "off"));
	close(member);
	close(lead);
	ASSERT_EQ(2, g.nr);
	/* 100 ms at 1 GHz on each tile, give or take the host */
	ASSERT_LT(50000000ULL * c->nunits, g.cycles);
	ratio = (double)g.instr / (double)g.cycles;
	TH_LOG("%d units: %" PRIu64 " instructions in %" PRIu64 " cycles: %.7f per cycle",
	       c->nunits, g.instr, g.cycles, ratio);
	/* Rounding: under one instruction per tile */
	EXPECT_GT(1e-6, ratio > 0.8 ? ratio - 0.8 : 0.8 - ratio);
}

/*
 * perf's rotation: two L1 groups of different muxes on one tile take turns,
 * and the bank of the group scheduled in does not count until the window's
 * end starts it. The window must then read only the events it restarts,
 * not a pinned fpu_cycles over every tile (an access through a NOC window
 * per tile, ROT_STALL_NS each): the incoming group's l1_cycles would lose
 * that pass over the card at every rotation while its time ran on, which
 * scaling cannot correct. So the groups must count as many cycles per ns
 * they ran next to a pinned event over every tile as next to one over a
 * single tile. (The window's own accesses cost something either way: under
 * TCG the groups got 45-85 % of the cycles of their time, less with the
 * host busy.) A pass over a card's tiles now costs more than a turn.
 */
#define ROT_STALL_NS	50000
#define ROT_MUX_MS	20

/* The fewer l1_cycles per ns run of the two groups, next to @pin_config1's */
static double rotation_rate(struct __test_metadata *_metadata, const struct card *c,
			    uint64_t pin_config1)
{
	const uint64_t grant[2] = { cfg_counter(TENSIX_BANK_L1, 257, 0),
				    cfg_counter(TENSIX_BANK_L1, 256, 1) };
	struct perf_event_attr attr;
	int pin, lead[2], member[2];
	struct sp_count cyc[2];
	double rate = 0;

	sp_attr_init(&attr, &c->d, cfg_cycles(TENSIX_BANK_FPU), pin_config1);
	attr.pinned = 1;
	pin = sp_perf_event_open(&attr, -1, c->d.cpu, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_LE(0, pin);
	for (int k = 0; k < 2; k++) {
		sp_attr_init(&attr, &c->d, cfg_cycles(TENSIX_BANK_L1), sp_cfg1_unit(0));
		attr.read_format = SP_FORMAT_TIMES;
		attr.disabled = 1;
		lead[k] = sp_perf_event_open(&attr, -1, c->d.cpu, -1, PERF_FLAG_FD_CLOEXEC);
		EXPECT_LE(0, lead[k]);
		member[k] = sp_open(&c->d, grant[k], sp_cfg1_unit(0), lead[k], 0);
		EXPECT_LE(0, member[k]);
	}
	EXPECT_EQ(0, sp_debugfs_printf(&c->d, "cfg_delay_ns", "%d", ROT_STALL_NS));
	for (int k = 0; k < 2; k++)
		EXPECT_EQ(0, ioctl(lead[k], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	sp_sleep_ms(10 * ROT_MUX_MS);
	for (int k = 0; k < 2; k++)
		EXPECT_EQ(0, ioctl(lead[k], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	EXPECT_EQ(0, sp_debugfs_printf(&c->d, "cfg_delay_ns", "0"));
	for (int k = 0; k < 2; k++) {
		EXPECT_EQ(0, sp_read_times(lead[k], &cyc[k]));
		close(member[k]);
		close(lead[k]);
	}
	close(pin);
	for (int k = 0; k < 2; k++) {
		double r = cyc[k].running ? (double)cyc[k].value / (double)cyc[k].running : 0;

		TH_LOG("pinned event on %s: mux %d: %" PRIu64 " cycles in %" PRIu64 " of %"
		       PRIu64 " ns: %.3f per ns", pin_config1 ? "one tile" : "every tile", k,
		       cyc[k].value, cyc[k].running, cyc[k].enabled, r);
		/* both took turns */
		EXPECT_LT(cyc[k].running, cyc[k].enabled);
		if (!k || r < rate)
			rate = r;
	}
	return rate;
}

TEST_F_TIMEOUT(card, rotation_reads_only_what_it_restarts, 120)
{
	const struct card *c = &self->c;
	double one, all;

	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "workload", "matmul fpu=80"));
	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "perf_event_mux_interval_ms", ROT_MUX_MS));
	/* one, all, all, one: a host whose load drifts weighs on both alike */
	one = rotation_rate(_metadata, c, sp_cfg1_unit(0));
	all = rotation_rate(_metadata, c, 0);
	all += rotation_rate(_metadata, c, 0);
	one += rotation_rate(_metadata, c, sp_cfg1_unit(0));
	one /= 2;
	all /= 2;
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "workload", "off"));
	EXPECT_LT(0.3, one);
	/* reading every tile in each window cost 50-95 % (0.03-0.35 per ns) */
	EXPECT_LT(one * 0.6, all) TH_LOG("%d units: %.3f per ns next to a pinned event on "
					 "every tile, %.3f next to one on one tile",
					 c->nunits, all, one);
}

/* A new card named @name counts exactly on its last tile */
static void expect_new_card_counts(struct __test_metadata *_metadata, struct card *c,
				   const char *name, bool bh, unsigned int harvest)
{
	char copy[SP_NAME_LEN];
	int fd;

	snprintf(copy, sizeof(copy), "%s", name);	/* @name may be c's own */
	ASSERT_EQ(0, card_create(c, copy, bh, harvest));
	fd = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, card_inject(c, c->core[c->nunits - 1], TENSIX_BANK_FPU, 0, 5));
	EXPECT_EQ(5, read_ok(_metadata, fd));
	close(fd);
}

/* Removing the card under open events: counts freeze, nothing crashes */
TEST_F(card, remove_card_with_open_events)
{
	struct card *c = &self->c;
	int last = c->nunits - 1, fd[3];
	uint64_t val, want[3];
	struct sp_dev gone;

	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 10000));
	fd[0] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(0), -1, 0);
	fd[1] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(last), -1, 0);
	fd[2] = sp_open(&c->d, cfg_cycles(TENSIX_BANK_FPU), 0, -1, 0);
	for (int i = 0; i < 3; i++) {
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 11));
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 22));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 7"));
	want[0] = 11;
	want[1] = 22;
	want[2] = 7 * (uint64_t)c->nunits;
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(want[i], read_ok(_metadata, fd[i]));
	}

	gone = c->d;
	ASSERT_EQ(0, sp_dev_delete(&c->d));
	sp_sleep_ms(100);
	for (int i = 0; i < 3; i++) {
		expect_frozen_or_gone(_metadata, fd[i], want[i], i);
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
		close(fd[i]);
	}
	val = sp_open(&gone, FPU_INSTR, 0, -1, 0);
	EXPECT_GT(0, (int)val) TH_LOG("%s took an event after removal", gone.pmu);

	/* a new card works */
	expect_new_card_counts(_metadata, c, gone.name, variant->bh, variant->harvest);
}

#define DEAD_EVENTS	5

/*
 * The card is reset (tt-smi reset) or falls off the bus while perf counts:
 * every BAR0 read returns all ones (the model's debugfs "dead"). The poll,
 * read(), a group read, disable/enable and close must not take that for
 * counter values: a count that had 1234 would otherwise jump by about 2^32
 * at the next poll. The counts freeze at their last good read, the PMU
 * says so once in the log, stops touching the card (the poll stops) and
 * takes no new events (ENODEV); when the card answers again the counts
 * stay frozen (its counters were reset: they would be garbage); removing
 * the card afterwards works, and a new card counts.
 */
TEST_F(card, card_dead_counts_freeze)
{
	struct card *c = &self->c;
	int last = c->nunits - 1, fd[DEAD_EVENTS], warned;
	uint64_t want[DEAD_EVENTS], before, after, h, st;
	struct { uint64_t nr, cycles, instr; } g;
	char needle[96];

	snprintf(needle, sizeof(needle), "%s: the card stopped answering", c->d.pmu);
	warned = sp_klog_count(needle);
	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 10000));
	fd[0] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(0), -1, 0);
	fd[1] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(last), -1, 0);
	fd[2] = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	/* a group as perf stat -e '{...}' makes it: fpu_cycles leads, unit 0 */
	fd[3] = sp_open(&c->d, cfg_cycles(TENSIX_BANK_FPU), sp_cfg1_unit(0), -1,
			PERF_FORMAT_GROUP);
	ASSERT_LE(0, fd[3]);
	fd[4] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(0), fd[3], PERF_FORMAT_GROUP);
	for (int i = 0; i < DEAD_EVENTS; i++) {
		ASSERT_LE(0, fd[i]) TH_LOG("event %d: %s", i, strerror(-fd[i]));
	}
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 1234));
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 4321));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 7"));
	want[0] = 1234;
	want[1] = 4321;
	want[2] = 1234 + 4321;
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(want[i], read_ok(_metadata, fd[i])) TH_LOG("event %d", i);
	}
	ASSERT_EQ((ssize_t)sizeof(g), read(fd[3], &g, sizeof(g)));
	EXPECT_EQ(2, g.nr);
	EXPECT_EQ(7, g.cycles);
	EXPECT_EQ(1234, g.instr);

	/* reset: the card goes on counting inside, unseen */
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "dead", "1"));
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 1000));
	sp_sleep_ms(100);	/* 10 polls */
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(want[i], read_ok(_metadata, fd[i]))
			TH_LOG("event %d after the card died: +%" PRId64, i,
			       (int64_t)(read_ok(_metadata, fd[i]) - want[i]));
	}
	ASSERT_EQ((ssize_t)sizeof(g), read(fd[3], &g, sizeof(g)));
	EXPECT_EQ(7, g.cycles) TH_LOG("group leader after the card died");
	EXPECT_EQ(1234, g.instr) TH_LOG("group member after the card died");
	EXPECT_EQ(warned + 1, sp_klog_count(needle))
		TH_LOG("the log does not say once \"%s\"", needle);

	/* dead for good: the poll and reads no longer ask the card */
	ASSERT_EQ(0, card_errors(c, &h, &st, &before));
	sp_sleep_ms(50);
	for (int i = 0; i < 3; i++)
		read_ok(_metadata, fd[i]);
	ASSERT_EQ(0, card_errors(c, &h, &st, &after));
	EXPECT_EQ(before, after) TH_LOG("the PMU still reads a card that does not answer");
	EXPECT_EQ(-ENODEV, sp_open(&c->d, FPU_INSTR, 0, -1, 0)) TH_LOG("a new event on a dead card");
	for (int i = 0; i < DEAD_EVENTS; i++) {
		EXPECT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0));
	}
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(want[i], read_ok(_metadata, fd[i])) TH_LOG("event %d re-enabled", i);
	}

	/* the card answers again: its counts are not the events' */
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "dead", "0"));
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 99));
	sp_sleep_ms(50);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(want[i], read_ok(_metadata, fd[i])) TH_LOG("event %d, card back", i);
	}
	EXPECT_EQ(warned + 1, sp_klog_count(needle));
	close(fd[0]);

	/* removal with frozen events open, then close */
	ASSERT_EQ(0, sp_dev_delete(&c->d));
	for (int i = 1; i < 3; i++)
		expect_frozen_or_gone(_metadata, fd[i], want[i], i);
	for (int i = 1; i < DEAD_EVENTS; i++)
		close(fd[i]);

	/* a new card counts */
	expect_new_card_counts(_metadata, c, c->d.name, variant->bh, variant->harvest);
}

/* The bridge's "tensix_noc.tiles.<n>" of @c, under "socpmu_sim.tensix_noc.<id>" */
static int card_tiles_dev(const struct card *c, char *name, size_t len)
{
	const char *pfx = "socpmu_sim.tensix_noc.";
	char regs[PATH_MAX], pat[PATH_MAX];
	const char *p;
	glob_t g;
	int ret;

	ret = tile_regmap_file(c, regs, sizeof(regs));
	if (ret)
		return ret;
	p = strstr(regs, pfx);
	snprintf(pat, sizeof(pat), "/sys/bus/auxiliary/devices/%s%d/tensix_noc.tiles.*", pfx,
		 atoi(p + strlen(pfx)));
	if (glob(pat, 0, NULL, &g))
		return -ENOENT;
	ret = g.gl_pathc == 1 ? 0 : -EINVAL;
	if (!ret)
		snprintf(name, len, "%s", strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	return ret;
}

/*
 * A card that answers again keeps its PMU frozen; with the events closed,
 * binding its tiles to tensix_pmu again gives a new PMU that counts (the
 * recovery tensix-pmu.rst documents).
 */
TEST_F(card, card_back_rebind)
{
	const char *drv = "/sys/bus/auxiliary/drivers/tensix_pmu.pmu";
	char before[SP_MAX_PMUS][SP_NAME_LEN], after[SP_MAX_PMUS][SP_NAME_LEN];
	ino_t ino[SP_MAX_PMUS];
	struct card *c = &self->c;
	char tiles[SP_NAME_LEN], path[PATH_MAX], buf[64];
	uint64_t type;
	int fd, nb, na;

	ASSERT_EQ(0, card_tiles_dev(c, tiles, sizeof(tiles)));
	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 10000));
	fd = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 321));
	EXPECT_EQ(321, read_ok(_metadata, fd));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "dead", "1"));
	sp_sleep_ms(50);
	EXPECT_EQ(321, read_ok(_metadata, fd));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "dead", "0"));
	ASSERT_LT(0, sp_debugfs_read(&c->d, "dead", buf, sizeof(buf)));
	EXPECT_STREQ("N\n", buf);
	sp_sleep_ms(50);
	EXPECT_EQ(321, read_ok(_metadata, fd));
	close(fd);

	nb = sp_list_pmus("tensix_", before, SP_MAX_PMUS);
	for (int i = 0; i < nb; i++)
		ino[i] = sp_pmu_ino(before[i]);
	snprintf(path, sizeof(path), "%s/unbind", drv);
	ASSERT_EQ(0, sp_write_file(path, tiles));
	snprintf(path, sizeof(path), "%s/bind", drv);
	ASSERT_EQ(0, sp_write_file(path, tiles));
	na = sp_list_pmus("tensix_", after, SP_MAX_PMUS);
	c->d.pmu[0] = 0;
	for (int i = 0; i < na && !c->d.pmu[0]; i++) {
		ino_t now = sp_pmu_ino(after[i]);
		bool seen = !now;

		for (int j = 0; j < nb && !seen; j++)
			seen = !strcmp(after[i], before[j]) && now == ino[j];
		if (!seen)
			snprintf(c->d.pmu, sizeof(c->d.pmu), "%.63s", after[i]);
	}
	ASSERT_NE(0, c->d.pmu[0]) TH_LOG("no new PMU after binding %s again", tiles);
	ASSERT_EQ(0, sp_pmu_read_u64(&c->d, "type", &type));
	c->d.type = (int)type;
	fd = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", c->d.pmu, strerror(-fd));
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 77));
	EXPECT_EQ(77, read_ok(_metadata, fd));
	close(fd);
}

/* The sysfs directory of the PMU named @pmu (its parent's path, then "/<pmu>") */
static int pmu_dir(const char *pmu, char *path)
{
	char link[PATH_MAX];

	snprintf(link, sizeof(link), SP_PMU_BUS "/%s", pmu);
	return realpath(link, path) ? 0 : -errno;
}

/*
 * Identity for fleets: the card's PMU sits under the card's device (the
 * PCI device on a real card, the simulated card here) and is named after
 * it, "tensix_" and the device name with ':', '.', '-' made '_'; the name
 * and place stay across rebinding tensix_pmu and the bridge.
 */
TEST_F(card, identity_stable)
{
	static const char *const drvs[] = {
		"/sys/bus/auxiliary/drivers/tensix_pmu.pmu",
		"/sys/bus/auxiliary/drivers/tensix_noc.card",
	};
	struct card *c = &self->c;
	char tiles[SP_NAME_LEN], path[PATH_MAX], want[SP_NAME_LEN], dir[PATH_MAX];
	char card_dev[PATH_MAX], bridge[SP_NAME_LEN];
	uint64_t type;
	char *slash;

	ASSERT_EQ(0, card_tiles_dev(c, tiles, sizeof(tiles)));
	snprintf(path, sizeof(path), "/sys/bus/auxiliary/devices/%s", tiles);
	ASSERT_NE(NULL, realpath(path, card_dev));
	/* .../<card>/socpmu_sim.tensix_noc.<n>/tensix_noc.tiles.<m> */
	*strrchr(card_dev, '/') = 0;
	slash = strrchr(card_dev, '/');
	snprintf(bridge, sizeof(bridge), "%s", slash + 1);
	*slash = 0;
	snprintf(want, sizeof(want), "tensix_%s", strrchr(card_dev, '/') + 1);
	for (char *p = want; *p; p++)
		if (!isalnum((unsigned char)*p))
			*p = '_';
	EXPECT_STREQ(want, c->d.pmu);
	ASSERT_EQ(0, pmu_dir(c->d.pmu, dir));
	*strrchr(dir, '/') = 0;
	EXPECT_STREQ(card_dev, dir) TH_LOG("PMU %s is not under the card", c->d.pmu);

	for (size_t i = 0; i < ARRAY_SIZE(drvs); i++) {
		const char *dev = i ? bridge : tiles;

		snprintf(path, sizeof(path), "%s/unbind", drvs[i]);
		ASSERT_EQ(0, sp_write_file(path, dev)) TH_LOG("unbind %s", dev);
		snprintf(path, sizeof(path), "%s/bind", drvs[i]);
		ASSERT_EQ(0, sp_write_file(path, dev)) TH_LOG("bind %s", dev);
		ASSERT_EQ(0, pmu_dir(want, dir)) TH_LOG("no %s after binding %s again", want, dev);
		*strrchr(dir, '/') = 0;
		EXPECT_STREQ(card_dev, dir);
	}
	/* and it counts */
	ASSERT_EQ(0, card_tiles_dev(c, tiles, sizeof(tiles)));
	ASSERT_EQ(0, sp_pmu_read_u64(&c->d, "type", &type));
	c->d.type = (int)type;
	expect_counts_exact(_metadata, c);
}

/*
 * Why the tests of a card whose provider does not know its harvesting
 * cannot run here (they need tensix_noc without harvest=), or NULL
 */
static const char *harvest_param_unavailable(void)
{
	static char why[128];
	char buf[64];

	if (geteuid())
		return "needs root";
	if (sp_sim_available_for("tensix_noc") || sp_sim_available_for("tensix_pmu"))
		return "no socpmu_sim + tensix_pmu + tensix_noc";
	if (sp_read_file("/sys/module/tensix_noc/parameters/harvest", buf, sizeof(buf)) > 1) {
		sp_strip_nl(buf);
		snprintf(why, sizeof(why), "tensix_noc was loaded with harvest=%s", buf);
		return why;
	}
	return NULL;
}

/* Without a known harvesting mask the bridge does not guess */
TEST(harvest_unknown_refused)
{
	char before[SP_MAX_PMUS][SP_NAME_LEN], after[SP_MAX_PMUS][SP_NAME_LEN];
	const char *why = harvest_param_unavailable();
	char name[SP_NAME_LEN], path[128];
	int nb, na, ret;

	if (why)
		SKIP(return, "%s", why);
	nb = sp_list_pmus("tensix_", before, SP_MAX_PMUS);
	snprintf(name, sizeof(name), "ttc_unk_%d", getpid());
	snprintf(path, sizeof(path), "ttcard name=%s arch=blackhole harvest_known=0", name);
	ASSERT_EQ(0, sp_sim_new_device(path));
	sp_sleep_ms(200);
	na = sp_list_pmus("tensix_", after, SP_MAX_PMUS);
	ret = sp_sim_del_device(name);
	EXPECT_EQ(nb, na) TH_LOG("a PMU appeared for a card of unknown harvesting");
	EXPECT_EQ(0, ret);
}

/*
 * harvest= gives one mask per chip, in the order the chips are first
 * probed; a chip probed again keeps its mask. The masks used to be counted
 * out per probe, so a chip probed again got the next chip's mask (here
 * 0x3, two columns: 120 tiles instead of 130), or none. tensix_noc is
 * loaded again with two masks for the test, and as it was afterwards.
 */
TEST(harvest_param_per_chip)
{
	struct sp_mod mods[SP_MAX_MODS], *noc = NULL;
	const char *why = harvest_param_unavailable();
	uint64_t units[2] = { 0, 0 };
	char name[SP_NAME_LEN];
	struct sp_dev d;
	int n, ret;

	if (why)
		SKIP(return, "%s", why);
	n = sp_mod_list(mods, SP_MAX_MODS);
	for (int i = 0; i < n; i++)
		if (!strcmp(mods[i].name, "tensix_noc"))
			noc = &mods[i];
	if (!noc)
		SKIP(return, "tensix_noc.ko not found");
	ASSERT_EQ(0, sp_mod_unload_wait("tensix_noc", 2000));
	ret = sp_mod_load_params(noc, "harvest=0x1,0x3");
	EXPECT_EQ(0, ret) TH_LOG("loading tensix_noc harvest=0x1,0x3: %s", strerror(-ret));
	snprintf(name, sizeof(name), "ttc_hp_%d", getpid());
	for (int round = 0; !ret && round < 2; round++) {
		memset(&d, 0, sizeof(d));
		ret = sp_dev_create(&d, "ttcard", name, "arch=blackhole harvest=0x1 harvest_known=0",
				    "tensix_");
		EXPECT_EQ(0, ret) TH_LOG("round %d: %s", round, strerror(-ret));
		if (!ret)
			EXPECT_EQ(0, sp_pmu_read_u64(&d, "num_cores", &units[round]));
		if (d.alive)
			EXPECT_EQ(0, sp_dev_delete(&d));
	}
	EXPECT_EQ(130u, units[0]);
	EXPECT_EQ(units[0], units[1]) TH_LOG("probed again, the chip had another mask");
	/* tensix_noc as it was */
	EXPECT_EQ(0, sp_mod_unload_wait("tensix_noc", 2000));
	ASSERT_EQ(0, sp_mod_load(noc));
}

static const char *card_tests_unavailable(void)
{
	if (geteuid())
		return "needs root";
	if (sp_sim_available_for("tensix_noc") || sp_sim_available_for("tensix_pmu"))
		return "no socpmu_sim + tensix_pmu + tensix_noc";
	return NULL;
}

/* The unit at NOC0 (x, y), or -1 */
static int unit_at(const struct card *c, int x, int y)
{
	for (int u = 0; u < c->nunits; u++)
		if (c->ux[u] == x && c->uy[u] == y)
			return u;
	return -1;
}

/*
 * tt-umd's coordinate-translation tests: the model's translated coordinates
 * are tt-umd's, and the bridge addresses each Blackhole tile by them (a
 * Wormhole tile by NOC0, as tt-umd does from the host); every tile counts
 * what it is given. The same cards with translation off: NOC0 throughout.
 */
TEST(umd_translation_golden)
{
	const char *why = card_tests_unavailable();

	if (why)
		SKIP(return, "%s", why);
	for (int off = 0; off < 2; off++) {
		for (size_t i = 0; i < ARRAY_SIZE(umd_xlat); i++) {
			const struct umd_xlat *g = &umd_xlat[i];
			char name[SP_NAME_LEN];
			struct card c;
			int u, k, ret;

			if (i && umd_xlat[i - 1].bh == g->bh && umd_xlat[i - 1].mask == g->mask)
				continue;	/* one card per (chip, mask) */
			snprintf(name, sizeof(name), "ttc_g%zu%d_%d", i, off, getpid());
			ret = card_create_args(&c, name, g->bh, g->mask,
					       off ? "translation=0" : "translation=1");
			EXPECT_EQ(0, ret) TH_LOG("%s mask 0x%x: %s", g->src, g->mask,
						 strerror(-ret));
			if (ret) {
				sp_dev_delete(&c.d);
				continue;
			}
			for (size_t j = i; j < ARRAY_SIZE(umd_xlat) && umd_xlat[j].bh == g->bh &&
			     umd_xlat[j].mask == g->mask; j++) {
				const struct umd_xlat *e = &umd_xlat[j];
				int tx = off ? e->x : e->tx, ty = off ? e->y : e->ty;

				for (k = 0; k < c.ncores; k++)
					if (c.cx[k] == e->x && c.cy[k] == e->y)
						break;
				ASSERT_GT(c.ncores, k) TH_LOG("%s: no tile at %d,%d", e->src, e->x, e->y);
				EXPECT_EQ(tx, c.ctx[k]) TH_LOG("%s: model x of %d,%d", e->src, e->x, e->y);
				EXPECT_EQ(ty, c.cty[k]) TH_LOG("%s: model y of %d,%d", e->src, e->x, e->y);
				/* a harvested tile (the golden data has some) is no unit */
				u = unit_at(&c, e->x, e->y);
				EXPECT_EQ(c.charv[k], u < 0) TH_LOG("%s: %d,%d", e->src, e->x, e->y);
				if (u < 0)
					continue;
				EXPECT_EQ(g->bh ? tx : e->x, c.uax[u])
					TH_LOG("%s: bridge x of %d,%d (translation %s)", e->src, e->x,
					       e->y, off ? "off" : "on");
				EXPECT_EQ(g->bh ? ty : e->y, c.uay[u])
					TH_LOG("%s: bridge y of %d,%d", e->src, e->x, e->y);
			}
			expect_counts_exact(_metadata, &c);
			EXPECT_EQ(0, sp_dev_delete(&c.d));
		}
	}
}

/*
 * tt-umd's cluster descriptors: the harvest_mask of a P100, a P150 and both
 * chips of an n300 (translation on), as users copy it, removes the right
 * rows or columns, and every tile left counts
 */
TEST(umd_cluster_descriptors)
{
	const char *why = card_tests_unavailable();

	if (why)
		SKIP(return, "%s", why);
	for (size_t i = 0; i < ARRAY_SIZE(umd_desc); i++) {
		const struct umd_desc *g = &umd_desc[i];
		char name[SP_NAME_LEN];
		struct card c;
		int ret;

		snprintf(name, sizeof(name), "ttc_d%zu_%d", i, getpid());
		ret = card_create(&c, name, g->bh, g->harvest_mask);
		EXPECT_EQ(0, ret) TH_LOG("%s: %s", g->src, strerror(-ret));
		if (ret) {
			sp_dev_delete(&c.d);
			continue;
		}
		EXPECT_EQ(g->ntiles, c.nunits) TH_LOG("%s", g->src);
		for (int u = 0; u < c.nunits; u++) {
			int line = g->bh ? c.ux[u] : c.uy[u];

			EXPECT_TRUE(line != g->gone[0] && line != g->gone[1])
				TH_LOG("%s: unit %d at %d,%d is harvested", g->src, u, c.ux[u],
				       c.uy[u]);
		}
		expect_counts_exact(_metadata, &c);
		EXPECT_EQ(0, sp_dev_delete(&c.d));
	}
}

/*
 * Both mask conventions in the model: the firmware's bit
 * LOGICAL_HARVESTING_LAYOUT[i] (harvest_phys=) removes what tt-umd's bit i
 * (harvest=) does, row wh_y[i] or column bh_x[i], and the bridge, handed
 * the firmware's mask, offers the same tiles
 */
TEST(umd_mask_conventions)
{
	const char *why = card_tests_unavailable();
	static const int picks[2][3] = { { 0, 6, 9 }, { 0, 6, 13 } };

	if (why)
		SKIP(return, "%s", why);
	for (int bh = 0; bh < 2; bh++) {
		for (size_t p = 0; p < ARRAY_SIZE(picks[0]); p++) {
			int i = picks[bh][p];
			int phys = bh ? umd_bh_logical_harvesting_layout[i] :
					umd_wh_logical_harvesting_layout[i];
			int gone = bh ? bh_x[i] : wh_y[i];
			char name[SP_NAME_LEN], extra[64];
			struct card a, b;
			int ret;

			snprintf(name, sizeof(name), "ttc_m%d%d_%d", bh, i, getpid());
			snprintf(extra, sizeof(extra), "harvest_phys=0x%x", 1u << phys);
			ret = card_create_args(&b, name, bh, 1u << i, extra);
			EXPECT_EQ(0, ret) TH_LOG("harvest_phys=1<<%d: %s", phys, strerror(-ret));
			if (ret) {
				sp_dev_delete(&b.d);
				continue;
			}
			for (int k = 0; k < b.ncores; k++) {
				EXPECT_EQ((bh ? b.cx[k] : b.cy[k]) == gone, b.charv[k])
					TH_LOG("%s firmware bit %d: model core %d at %d,%d",
					       bh ? "bh" : "wh", phys, k, b.cx[k], b.cy[k]);
			}
			EXPECT_EQ(0, sp_dev_delete(&b.d));
			name[3] = 'n';
			ret = card_create(&a, name, bh, 1u << i);
			EXPECT_EQ(0, ret) TH_LOG("harvest=1<<%d: %s", i, strerror(-ret));
			if (ret) {
				sp_dev_delete(&a.d);
				continue;
			}
			EXPECT_EQ(b.nunits, a.nunits);
			for (int u = 0; u < a.nunits && u < b.nunits; u++) {
				EXPECT_EQ(b.ux[u], a.ux[u]);
				EXPECT_EQ(b.uy[u], a.uy[u]);
				EXPECT_EQ(b.uax[u], a.uax[u]);
				EXPECT_EQ(b.uay[u], a.uay[u]);
			}
			for (int k = 0; k < a.ncores; k++) {
				EXPECT_EQ(b.charv[k], a.charv[k]) TH_LOG("model core %d", k);
			}
			EXPECT_EQ(0, sp_dev_delete(&a.d));
		}
	}
}

/* Load tensix_noc with @params, create a Wormhole then a Blackhole card */
static void harvest_params_round(struct __test_metadata *_metadata, const struct sp_mod *noc,
				 const char *params)
{
	static const struct { int bh; unsigned int mask; int gone[2]; } chips[] = {
		{ 0, 65, { 1, 8 } }, { 1, 192, { 7, 10 } },
	};
	char name[SP_NAME_LEN];
	static struct card cs[2];
	int ret;

	ASSERT_EQ(0, sp_mod_unload_wait("tensix_noc", 2000));
	ret = sp_mod_load_params(noc, params);
	ASSERT_EQ(0, ret) TH_LOG("loading tensix_noc %s: %s", params, strerror(-ret));
	/* both cards at once: a card created after one deleted could take its name */
	for (size_t i = 0; i < ARRAY_SIZE(chips); i++) {
		struct card *c = &cs[i];

		snprintf(name, sizeof(name), "ttc_hu%zu_%d", i, getpid());
		ret = card_create_args(c, name, chips[i].bh, chips[i].mask, "harvest_known=0");
		EXPECT_EQ(0, ret) TH_LOG("%s, card %zu: %s", params, i, strerror(-ret));
		if (ret)
			continue;
		EXPECT_EQ(chips[i].bh ? 120 : 64, c->nunits) TH_LOG("%s, card %zu", params, i);
		for (int u = 0; u < c->nunits; u++) {
			int line = chips[i].bh ? c->ux[u] : c->uy[u];

			EXPECT_TRUE(line != chips[i].gone[0] && line != chips[i].gone[1])
				TH_LOG("%s: unit %d at %d,%d is harvested", params, u, c->ux[u],
				       c->uy[u]);
		}
		expect_counts_exact(_metadata, c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(chips); i++)
		if (cs[i].d.alive)
			EXPECT_EQ(0, sp_dev_delete(&cs[i].d));
}

/*
 * harvest= takes the masks users have (tt-umd's, as tt-smi and cluster
 * descriptors show them: an n300 chip's 65, a P150's 192); harvest_phys=
 * the firmware's layout of the same chips (0x42, 0x3000). tensix_noc is
 * loaded again for the test, and as it was afterwards.
 */
TEST(harvest_param_tt_umd)
{
	struct sp_mod mods[SP_MAX_MODS], *noc = NULL;
	const char *why = harvest_param_unavailable();
	int n;

	if (why)
		SKIP(return, "%s", why);
	n = sp_mod_list(mods, SP_MAX_MODS);
	for (int i = 0; i < n; i++)
		if (!strcmp(mods[i].name, "tensix_noc"))
			noc = &mods[i];
	if (!noc)
		SKIP(return, "tensix_noc.ko not found");
	harvest_params_round(_metadata, noc, "harvest=65,192");
	harvest_params_round(_metadata, noc, "harvest_phys=0x42,0x3000");
	/* tensix_noc as it was */
	EXPECT_EQ(0, sp_mod_unload_wait("tensix_noc", 2000));
	ASSERT_EQ(0, sp_mod_load(noc));
}

/*
 * The model's bus latency (read_ns, write_ns; 0 by default) stalls every
 * BAR0 access, and "bursts" sees one perf read of a tile as one burst of
 * back-to-back accesses lasting at least their latencies
 */
TEST(bus_latency_knob)
{
	const char *why = card_tests_unavailable();
	unsigned long long nb, na, nmax, nr, ns;
	char name[SP_NAME_LEN], buf[256];
	uint64_t r, w, val;
	struct card c;
	int fd, ret;

	if (why)
		SKIP(return, "%s", why);
	snprintf(name, sizeof(name), "ttc_lat_%d", getpid());
	ret = card_create(&c, name, true, 0);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_LT(0, sp_debugfs_read(&c.d, "read_ns", buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "read_ns", "20000"));
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "write_ns", "5000"));
	fd = sp_open(&c.d, FPU_INSTR, sp_cfg1_unit(3), -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sp_regs_reset(&c.d));
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "bursts", "0"));
	ASSERT_EQ((ssize_t)sizeof(val), read(fd, &val, sizeof(val)));
	ASSERT_EQ(0, sp_regs(&c.d, &r, &w));
	ASSERT_LT(0, sp_debugfs_read(&c.d, "bursts", buf, sizeof(buf)));
	ASSERT_EQ(5, sscanf(buf, "bursts %llu accesses %llu max_accesses %llu max_reads %llu max_ns %llu",
			    &nb, &na, &nmax, &nr, &ns));
	close(fd);
	EXPECT_LE(1, r);
	EXPECT_EQ(r + w, na) TH_LOG("bursts count every BAR0 access");
	EXPECT_EQ(1, nb) TH_LOG("one read of one tile, %llu bursts", nb);
	EXPECT_EQ(na, nmax);
	EXPECT_EQ(r, nr);
	EXPECT_LE(20000 * r + 5000 * w, ns) TH_LOG("%llu ns for %llu reads, %llu writes", ns,
						   (unsigned long long)r, (unsigned long long)w);
	EXPECT_EQ(0, sp_dev_delete(&c.d));
}

/* A field "<key> <n>" of a debugfs file of @c, or -1 */
static long long card_field(const struct card *c, const char *file, const char *key)
{
	char buf[512], *p;
	size_t len = strlen(key);

	if (sp_debugfs_read(&c->d, file, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; (p = strstr(p, key)); p++)
		if ((p == buf || p[-1] == '\n') && p[len] == ' ')
			return atoll(p + len + 1);
	return -1;
}

static const char *card_unavailable_or_skip(void)
{
	return card_tests_unavailable();
}

/*
 * tt-kmd's power policy clock-gates the tiles until a client votes: the
 * card model's tiles count nothing while gated (its "power" file). The
 * PMU holds the card's vote from its first event to its last, once for
 * all of them, so that a system-wide perf stat with no workload process
 * counts; the vote goes with the last event. Without the vote an event
 * read 0 here.
 */
TEST(power_vote_held)
{
	const char *why = card_unavailable_or_skip();
	char name[SP_NAME_LEN], buf[128];
	uint64_t v;
	struct card c;
	int fd[2], ret;

	if (why)
		SKIP(return, "%s", why);
	snprintf(name, sizeof(name), "ttc_pw_%d", getpid());
	ret = card_create(&c, name, true, 192);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	/* no event, no vote: the tiles are gated */
	EXPECT_EQ(1, card_field(&c, "power", "gated"));
	EXPECT_EQ(0, card_field(&c, "power", "bridge_vote"));
	ASSERT_LT(0, sp_pmu_read(&c.d, "power_vote", buf, sizeof(buf)));
	EXPECT_STREQ("released\n", buf);
	fd[0] = sp_open(&c.d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd[0]);
	EXPECT_EQ(0, card_field(&c, "power", "gated"));
	EXPECT_EQ(1, card_field(&c, "power", "bridge_vote"));
	ASSERT_LT(0, sp_pmu_read(&c.d, "power_vote", buf, sizeof(buf)));
	EXPECT_STREQ("held 1\n", buf);
	ASSERT_EQ(0, card_inject(&c, c.core[0], TENSIX_BANK_FPU, 0, 1234));
	ASSERT_EQ(0, card_inject(&c, c.core[c.nunits - 1], TENSIX_BANK_FPU, 0, 4321));
	EXPECT_EQ(1234 + 4321, read_ok(_metadata, fd[0]));
	/* a second event shares the vote */
	fd[1] = sp_open(&c.d, cfg_cycles(TENSIX_BANK_FPU), 0, -1, 0);
	ASSERT_LE(0, fd[1]);
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "advance", "all 10"));
	EXPECT_EQ(10 * (uint64_t)c.nunits, read_ok(_metadata, fd[1]));
	ASSERT_LT(0, sp_pmu_read(&c.d, "power_vote", buf, sizeof(buf)));
	EXPECT_STREQ("held 2\n", buf);
	close(fd[0]);
	EXPECT_EQ(0, card_field(&c, "power", "gated"));
	close(fd[1]);
	/* the last event released it, after one hold for both */
	EXPECT_EQ(1, card_field(&c, "power", "gated"));
	EXPECT_EQ(0, card_field(&c, "power", "bridge_vote"));
	EXPECT_EQ(1, card_field(&c, "power", "bridge_votes"));
	ASSERT_LT(0, sp_pmu_read(&c.d, "power_vote", buf, sizeof(buf)));
	EXPECT_STREQ("released\n", buf);
	/* and the next event votes again */
	fd[0] = sp_open(&c.d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd[0]);
	EXPECT_EQ(0, card_field(&c, "power", "gated"));
	ASSERT_EQ(0, card_inject(&c, c.core[1], TENSIX_BANK_FPU, 0, 77));
	v = read_ok(_metadata, fd[0]);
	EXPECT_EQ(77, v);
	close(fd[0]);
	EXPECT_EQ(2, card_field(&c, "power", "bridge_votes"));
	EXPECT_EQ(0, sp_dev_delete(&c.d));
}

/*
 * A card that cannot vote: the bridge says so in the log and the PMU in
 * power_vote; with no client voting the gated tiles count nothing (what
 * the documentation warns of), with a client's vote they count.
 */
TEST(power_no_vote_said)
{
	const char *why = card_unavailable_or_skip();
	char name[SP_NAME_LEN], buf[256];
	int fd, before, ret;
	struct card c;

	if (why)
		SKIP(return, "%s", why);
	before = sp_klog_count("the card provides no power vote");
	snprintf(name, sizeof(name), "ttc_nv_%d", getpid());
	ret = card_create_args(&c, name, false, 0, "power_op=0");
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	EXPECT_EQ(before + 1, sp_klog_count("the card provides no power vote"));
	ASSERT_LT(0, sp_pmu_read(&c.d, "power_vote", buf, sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "none: ", 6)) TH_LOG("power_vote: %s", buf);
	fd = sp_open(&c.d, FPU_INSTR, 0, -1, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, card_field(&c, "power", "gated"));
	ASSERT_EQ(0, card_inject(&c, c.core[0], TENSIX_BANK_FPU, 0, 500));
	EXPECT_EQ(0, read_ok(_metadata, fd));
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "client_votes", "1"));
	EXPECT_EQ(0, card_field(&c, "power", "gated"));
	ASSERT_EQ(0, card_inject(&c, c.core[0], TENSIX_BANK_FPU, 0, 500));
	EXPECT_EQ(500, read_ok(_metadata, fd));
	close(fd);
	EXPECT_EQ(0, sp_dev_delete(&c.d));
}

/* Open the events of the reset tests: unit 0, the last unit, the chip, a group */
#define RESET_EVENTS	5

static void reset_events_open(struct __test_metadata *_metadata, const struct card *c,
			      int *fd)
{
	int last = c->nunits - 1;

	fd[0] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(0), -1, 0);
	fd[1] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(last), -1, 0);
	fd[2] = sp_open(&c->d, FPU_INSTR, 0, -1, 0);
	fd[3] = sp_open(&c->d, cfg_cycles(TENSIX_BANK_FPU), sp_cfg1_unit(0), -1,
			PERF_FORMAT_GROUP);
	ASSERT_LE(0, fd[3]);
	fd[4] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(0), fd[3], PERF_FORMAT_GROUP);
	for (int i = 0; i < RESET_EVENTS; i++) {
		ASSERT_LE(0, fd[i]) TH_LOG("event %d: %s", i, strerror(-fd[i]));
	}
}

/* The counts of the reset tests' events: fd[0..2] and the group's two */
static void reset_expect(struct __test_metadata *_metadata, const int *fd, uint64_t a,
			 uint64_t b, uint64_t cycles, const char *when)
{
	struct { uint64_t nr, cycles, instr; } g;

	EXPECT_EQ(a, read_ok(_metadata, fd[0])) TH_LOG("%s: unit 0", when);
	EXPECT_EQ(b, read_ok(_metadata, fd[1])) TH_LOG("%s: last unit", when);
	EXPECT_EQ(a + b, read_ok(_metadata, fd[2])) TH_LOG("%s: chip", when);
	ASSERT_EQ((ssize_t)sizeof(g), read(fd[3], &g, sizeof(g)));
	EXPECT_EQ(cycles, g.cycles) TH_LOG("%s: group leader", when);
	EXPECT_EQ(a, g.instr) TH_LOG("%s: group member", when);
}

/*
 * tt-kmd resets a chip (its reset ioctls bump reset_gen, and the card's
 * reset sequence with it) far faster than the PMU polls: the card model's
 * "reset pulse" zeroes and stops every tile's counters between two reads.
 * The PMU compares the sequence at every read: the counts neither jump (a
 * counter that had 1234 and reads 0 after the reset was 2^32 - 1234 more)
 * nor stop, the banks are re-armed and the events count on from their
 * counts. Before, the first read after the pulse added about 2^32.
 */
TEST_F(card, reset_pulse_rearms)
{
	struct card *c = &self->c;
	int fd[RESET_EVENTS], last = c->nunits - 1;
	uint64_t resets;
	char buf[16];

	reset_events_open(_metadata, c, fd);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 1234));
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 4321));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 7"));
	reset_expect(_metadata, fd, 1234, 4321, 7, "before the reset");

	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "reset", "pulse"));
	ASSERT_LT(0, sp_debugfs_read(&c->d, "reset", buf, sizeof(buf)));
	EXPECT_STREQ("2\n", buf) TH_LOG("the card's reset sequence");
	/* the first read sees it: nothing is added, the banks run again */
	reset_expect(_metadata, fd, 1234, 4321, 7, "after the reset");
	ASSERT_EQ(0, sp_pmu_read_u64(&c->d, "card_resets", &resets));
	EXPECT_EQ(1, resets);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 100));
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 200));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 3"));
	reset_expect(_metadata, fd, 1334, 4521, 10, "counting after the reset");

	/* two resets in a row, a read of one event in between */
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "reset", "pulse"));
	read_ok(_metadata, fd[1]);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 5));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "reset", "pulse"));
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 9));	/* lost: stopped */
	reset_expect(_metadata, fd, 1334, 4521, 10, "after two more resets");
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 1));
	reset_expect(_metadata, fd, 1335, 4521, 10, "counting after them");
	ASSERT_EQ(0, sp_pmu_read_u64(&c->d, "card_resets", &resets));
	EXPECT_EQ(3, resets);
	for (int i = 0; i < RESET_EVENTS; i++)
		close(fd[i]);
}

/*
 * A reset that keeps the link down: every BAR0 read returns all ones until
 * it ends. While the card's reset sequence is odd the PMU does not touch
 * the card at all (no read that fails, or spins, with interrupts off: the
 * model counts every access made while the link is down), and the counts
 * keep their values; when the reset is over the events count on. Before,
 * the first read of all ones froze the PMU for good.
 */
TEST_F(card, reset_link_down_frozen)
{
	struct card *c = &self->c;
	int fd[RESET_EVENTS], last = c->nunits - 1;
	uint64_t h, s, dead0, dead1;

	ASSERT_EQ(0, sp_pmu_write_u64(&c->d, "poll_interval_us", 10000));
	reset_events_open(_metadata, c, fd);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 1234));
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 4321));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 7"));
	reset_expect(_metadata, fd, 1234, 4321, 7, "before the reset");

	ASSERT_EQ(0, card_errors(c, &h, &s, &dead0));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "reset", "begin"));
	sp_sleep_ms(60);	/* polls */
	reset_expect(_metadata, fd, 1234, 4321, 7, "during the reset");
	for (int i = 0; i < RESET_EVENTS; i++) {
		EXPECT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0));
	}
	reset_expect(_metadata, fd, 1234, 4321, 7, "re-enabled during the reset");
	ASSERT_EQ(0, card_errors(c, &h, &s, &dead1));
	EXPECT_EQ(dead0, dead1) TH_LOG("%llu accesses to a card whose link is down",
				       (unsigned long long)(dead1 - dead0));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "reset", "end"));
	sp_sleep_ms(30);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 10));
	ASSERT_EQ(0, card_inject(c, c->core[last], TENSIX_BANK_FPU, 0, 20));
	ASSERT_EQ(0, sp_debugfs_printf(&c->d, "advance", "all 2"));
	reset_expect(_metadata, fd, 1244, 4341, 9, "after the reset");
	/* new events too */
	close(fd[0]);
	fd[0] = sp_open(&c->d, FPU_INSTR, sp_cfg1_unit(0), -1, 0);
	ASSERT_LE(0, fd[0]);
	ASSERT_EQ(0, card_inject(c, c->core[0], TENSIX_BANK_FPU, 0, 3));
	EXPECT_EQ(3, read_ok(_metadata, fd[0]));
	for (int i = 0; i < RESET_EVENTS; i++)
		close(fd[i]);
}

/*
 * The interrupts-off work of a card's PMU is bounded: with the PMU's
 * access_budget (tile register accesses a read of every scheduled event
 * may cost, 4 per tile and event), perf multiplexes what does not fit
 * instead of reading it with interrupts off. The card model counts the
 * BAR0 accesses of every section with interrupts off ("bursts"); with no
 * poll (a 1 MHz clock: one every 60 s) those are perf's scheduling
 * sections, each reading the events it schedules out and starting those
 * it schedules in, and the reads of the test. BUDGET_EVENTS whole-chip
 * events of a Wormhole (320 each) under a budget of two (640): every
 * section stays under BUDGET_BOUND times the budget in tile accesses (see
 * tensix-pmu.rst, "Bounds"), a tile access being 3 BAR0 accesses on a
 * Wormhole; every event runs, part of the time. Without the budget the
 * section that enabled the last event read and stopped the 15 others and
 * started all 16: 14400 accesses, against the bound's 9600 (5040 with the
 * budget), and no event was multiplexed.
 */
#define BUDGET_EVENTS	16
#define BUDGET		640
#define BUDGET_BOUND	5

TEST(access_budget_bounds_sections)
{
	static const struct { unsigned int bank, sel; } evs[] = {
		{ TENSIX_BANK_FPU, 0 }, { TENSIX_BANK_FPU, 1 },
		{ TENSIX_BANK_TDMA_UNPACK, 3 }, { TENSIX_BANK_TDMA_UNPACK, 4 },
		{ TENSIX_BANK_TDMA_PACK, 11 }, { TENSIX_BANK_TDMA_PACK, 18 },
		{ TENSIX_BANK_INSTRN_THREAD, 16 }, { TENSIX_BANK_INSTRN_THREAD, 18 },
		{ TENSIX_BANK_FPU, 257 }, { TENSIX_BANK_TDMA_UNPACK, 5 },
		{ TENSIX_BANK_TDMA_UNPACK, 6 }, { TENSIX_BANK_TDMA_PACK, 272 },
	};
	const char *why = card_unavailable_or_skip();
	char name[SP_NAME_LEN], buf[256];
	unsigned long long nb, na, nmax, nr, ns;
	struct perf_event_attr attr;
	struct sp_count cnt[BUDGET_EVENTS];
	int fd[BUDGET_EVENTS], ret, partly = 0;
	uint64_t budget;
	struct card c;

	if (why)
		SKIP(return, "%s", why);
	snprintf(name, sizeof(name), "ttc_bu_%d", getpid());
	ret = card_create_args(&c, name, false, 0, "clock_mhz=1");
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_EQ(0, sp_pmu_read_u64(&c.d, "access_budget", &budget));
	EXPECT_EQ(2048, budget) TH_LOG("default budget");
	ASSERT_EQ(0, sp_pmu_write_u64(&c.d, "access_budget", BUDGET));
	ASSERT_EQ(0, sp_pmu_write_u64(&c.d, "perf_event_mux_interval_ms", 20));
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "workload", "matmul fpu=80"));
	for (int i = 0; i < BUDGET_EVENTS; i++) {
		uint64_t config = i < (int)ARRAY_SIZE(evs) ?
				  cfg_counter(evs[i].bank, evs[i].sel, 0) :
				  cfg_cycles(i - (int)ARRAY_SIZE(evs));

		sp_attr_init(&attr, &c.d, config, 0);
		attr.read_format = SP_FORMAT_TIMES;
		attr.disabled = 1;
		fd[i] = sp_perf_event_open(&attr, -1, c.d.cpu, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd[i]) TH_LOG("event %d: %s", i, strerror(-fd[i]));
	}
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "bursts", "0"));
	for (int i = 0; i < BUDGET_EVENTS; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0));
	sp_sleep_ms(400);
	for (int i = 0; i < BUDGET_EVENTS; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_LT(0, sp_debugfs_read(&c.d, "bursts", buf, sizeof(buf)));
	ASSERT_EQ(5, sscanf(buf, "bursts %llu accesses %llu max_accesses %llu max_reads %llu max_ns %llu",
			    &nb, &na, &nmax, &nr, &ns));
	for (int i = 0; i < BUDGET_EVENTS; i++) {
		ASSERT_EQ(0, sp_read_times(fd[i], &cnt[i]));
		EXPECT_LT(0, cnt[i].running) TH_LOG("event %d never ran", i);
		EXPECT_LT(0, cnt[i].value) TH_LOG("event %d counted nothing", i);
		partly += cnt[i].running < cnt[i].enabled;
		close(fd[i]);
	}
	ASSERT_EQ(0, sp_debugfs_printf(&c.d, "workload", "off"));
	TH_LOG("%llu sections, %llu accesses; largest %llu accesses (%llu reads), bound %d",
	       nb, na, nmax, nr, BUDGET_BOUND * BUDGET * 3);
	EXPECT_LT(BUDGET_EVENTS / 2, partly) TH_LOG("perf did not multiplex");
	EXPECT_LE(nmax, (unsigned long long)BUDGET_BOUND * BUDGET * 3);
	EXPECT_EQ(0, sp_dev_delete(&c.d));
}

TEST_HARNESS_MAIN
