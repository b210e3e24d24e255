// SPDX-License-Identifier: GPL-2.0-only
/*
 * tensix_bench - cost of reading Tensix PMU events.
 *
 * For 1, 8 and 59 events of one bank (INSTRN_THREAD, the bank with 59
 * counters) this reads every event N times and prints, per read:
 *   - register accesses, from the simulator's debugfs "regs" counters
 *     ("reads R\nwrites W\n", reset by writing 0), and
 *   - latency in ns (CLOCK_MONOTONIC around the read() calls), per read()
 *     call and per event read (a group read reads every event at once).
 * Each event set is measured summed over all cores and on a single core,
 * read one event at a time and as one PERF_FORMAT_GROUP read.
 *
 * The driver's wrap poll is slowed to its maximum for the measurement so
 * that the figures are those of read() alone.
 *
 * It is a benchmark, not a test, but it reports in kselftest format (one
 * result per configuration; a configuration fails only if reading fails
 * or a known injected count reads back wrong) so that the selftest runner
 * can run it and the figures land in the test log.
 *
 * Usage: tensix_bench [-n READS] [-c CORES] [-a wormhole|blackhole]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>

#include "kselftest.h"
#include "tensix_lib.h"

#define MAX_EVENTS	59
#define POLL_MAX_US	1073741		/* the core's limit at 1 GHz: 2^32 ns / 4 */

static struct tensix_dev bench_dev;

static void cleanup(void)
{
	tensix_dev_delete(&bench_dev);
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

struct config {
	int nevents;
	int core;		/* -1: sum over all cores */
	bool group;
};

struct result {
	double reg_reads, reg_writes;	/* per event read */
	double ns_call;			/* per read() call */
	double ns_event;		/* per event read */
};

static int open_events(const struct tensix_dev *t, const struct config *c,
		       int *fd)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(tensix_events) && n < c->nevents;
	     i++) {
		const struct tev *e = &tensix_events[i];

		if (e->bank != TENSIX_BANK_INSTRN_THREAD || e->alias || !tev_on(t, e))
			continue;
		fd[n] = sp_open(&t->d, cfg_tev(e), sp_cfg1_unit_short(c->core),
				c->group && n ? fd[0] : -1,
				c->group ? PERF_FORMAT_GROUP : 0);
		if (fd[n] < 0) {
			ksft_print_msg("open %s: %s\n", e->name,
				       strerror(-fd[n]));
			return fd[n];
		}
		n++;
	}
	return n == c->nevents ? 0 : -ENOENT;
}

/* Injects a known count into the first event and checks it reads back. */
static int check_first(const struct tensix_dev *t, const struct config *c,
		       int fd)
{
	const uint64_t n = 12345;
	uint64_t buf[1 + MAX_EVENTS], want;
	int ret;

	ret = tensix_inject(t, c->core < 0 ? -1 : c->core,
			    TENSIX_BANK_INSTRN_THREAD, tensix_events[0].id, n);
	if (ret)
		return ret;
	want = c->core < 0 ? n * t->cores : n;
	if (read(fd, buf, sizeof(buf)) < (ssize_t)sizeof(uint64_t))
		return -errno;
	if (buf[c->group ? 1 : 0] != want) {
		ksft_print_msg("%s read %llu, expected %llu\n",
			       tensix_events[0].name,
			       (unsigned long long)buf[c->group ? 1 : 0],
			       (unsigned long long)want);
		return -EIO;
	}
	return 0;
}

static int measure(const struct tensix_dev *t, const struct config *c,
		   int reads, struct result *res)
{
	int fd[MAX_EVENTS], ret, calls = 0;
	uint64_t buf[1 + MAX_EVENTS], r, w, t0, t1;

	for (int i = 0; i < MAX_EVENTS; i++)
		fd[i] = -1;
	ret = open_events(t, c, fd);
	if (!ret)
		ret = check_first(t, c, fd[0]);
	if (!ret)
		ret = sp_regs_reset(&t->d);
	if (ret)
		goto out;

	t0 = sp_now_ns();
	for (int i = 0; i < reads && !ret; i++) {
		for (int k = 0; k < (c->group ? 1 : c->nevents); k++, calls++) {
			if (read(fd[k], buf, sizeof(buf)) <
			    (ssize_t)sizeof(uint64_t)) {
				ret = -errno;
				break;
			}
		}
	}
	t1 = sp_now_ns();
	if (!ret)
		ret = sp_regs(&t->d, &r, &w);
	if (!ret) {
		double event_reads = (double)reads * c->nevents;

		res->reg_reads = r / event_reads;
		res->reg_writes = w / event_reads;
		res->ns_call = (double)(t1 - t0) / calls;
		res->ns_event = (double)(t1 - t0) / event_reads;
	}
out:
	for (int i = 0; i < MAX_EVENTS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return ret;
}

int main(int argc, char **argv)
{
	static const int nevents[] = { 1, 8, MAX_EVENTS };
	const char *arch = "wormhole";
	int reads = 1000, cores = 4, opt, ret, nconf = 0;
	struct config conf[ARRAY_SIZE(nevents) * 3];
	char name[SP_NAME_LEN];

	while ((opt = getopt(argc, argv, "n:c:a:h")) != -1) {
		switch (opt) {
		case 'n':
			reads = atoi(optarg);
			break;
		case 'c':
			cores = atoi(optarg);
			break;
		case 'a':
			arch = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n READS] [-c CORES] [-a wormhole|blackhole]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (reads < 1 || cores < 2) {
		fprintf(stderr, "need -n >= 1 and -c >= 2\n");
		return 2;
	}

	for (size_t i = 0; i < ARRAY_SIZE(nevents); i++) {
		conf[nconf++] = (struct config){ nevents[i], -1, false };
		conf[nconf++] = (struct config){ nevents[i], 1, false };
		conf[nconf++] = (struct config){ nevents[i], -1, true };
	}

	ksft_print_header();
	ksft_set_plan(nconf);

	if (geteuid())
		ksft_exit_skip("needs root\n");
	ret = sp_sim_available_for("tensix_pmu");
	if (ret)
		ksft_exit_skip("no socpmu_sim + tensix_pmu or no debugfs (%s)\n",
			       strerror(-ret));

	snprintf(name, sizeof(name), "tt_bench_%d", getpid());
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = tensix_dev_create(&bench_dev, name, cores, arch);
	if (ret)
		ksft_exit_fail_msg("creating %s: %s\n", name, strerror(-ret));
	ret = sp_pmu_write_u64(&bench_dev.d, "poll_interval_us", POLL_MAX_US);
	if (ret)
		ksft_print_msg("cannot slow the poll (%s): figures include it\n",
			       strerror(-ret));

	ksft_print_msg("%s: %s, %d cores, PMU %s, %d reads of every event\n",
		       name, arch, cores, bench_dev.d.pmu, reads);
	ksft_print_msg("%6s %-6s %-6s %13s %14s %10s %9s\n", "events",
		       "cores", "read", "reg reads/ev", "reg writes/ev",
		       "ns/read()", "ns/event");

	for (int i = 0; i < nconf; i++) {
		const struct config *c = &conf[i];
		struct result res = { 0 };
		char scope[16], label[64];

		snprintf(scope, sizeof(scope), c->core < 0 ? "all" : "core%d",
			 c->core);
		snprintf(label, sizeof(label), "%d events, %s, %s", c->nevents,
			 scope, c->group ? "group" : "single");
		ret = measure(&bench_dev, c, reads, &res);
		if (ret) {
			ksft_test_result_fail("%s: %s\n", label, strerror(-ret));
			continue;
		}
		ksft_print_msg("%6d %-6s %-6s %13.2f %14.2f %10.0f %9.0f\n",
			       c->nevents, scope, c->group ? "group" : "single",
			       res.reg_reads, res.reg_writes, res.ns_call,
			       res.ns_event);
		ksft_test_result_pass("%s\n", label);
	}
	ksft_finished();
}
