// SPDX-License-Identifier: GPL-2.0-only
/*
 * tensix_card_bench - what the Tensix PMU of a PCIe card costs the bus.
 *
 * On the simulator's card model (ttcard) of an unharvested Wormhole (80
 * Tensix tiles) and Blackhole (140, NOC translation on), with a latency
 * given to every BAR0 access (the model's debugfs read_ns and write_ns),
 * this prints:
 *   - for an event summing the whole chip (fpu_instruction, no core=):
 *     per read() (one perf ->read callback, run with interrupts off), the
 *     BAR0 reads and writes (NOC accesses and window programming, from the
 *     model's "regs"), and the largest burst (the model's "bursts": the
 *     accesses of one section with interrupts off), whose duration is the
 *     time the callback kept interrupts off, less its own CPU time;
 *   - for `tensix-perf stat` of the chip (every counter, multiplexed) over
 *     one second: bursts (sections with interrupts off that touched the
 *     card), accesses, and the largest burst in accesses and time, with
 *     the PMU's access budget (access_budget) at its default and lifted
 *     (0), and the bound the budget sets on a section: 4 x the budget in
 *     tile register accesses, each a window programming (2 BAR0 writes on
 *     Wormhole, 3 on Blackhole) and the access (tensix-pmu.rst, "Cost on
 *     the bus").
 *
 * Latencies: -r READ_NS (default 1027) and -w WRITE_NS (default 93), the
 * per-32-bit-access figures of tt-umd's TLB microbenchmark example results
 * (tests/microbenchmark/benchmarks/tlb/README.md at 3ed9cb6, "Tensix",
 * "Static TLB, read, 4 bytes" 256.72 ns/byte and "write, 4 bytes"
 * 23.22 ns/byte; the card is not named there). Under TCG the CPU time of
 * the callbacks themselves is inflated too, so time figures are upper
 * bounds; the access counts are exact.
 *
 * A benchmark (not run by make check; `make bench` runs it), reporting in
 * kselftest format; a configuration fails only if reading fails.
 *
 * Usage: tensix_card_bench [-r READ_NS] [-w WRITE_NS] [-n READS]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "../tensix/tensix_lib.h"

#define FPU_INSTR	cfg_counter(TENSIX_BANK_FPU, 0, 0)

static struct sp_dev bench_dev;

static void cleanup(void)
{
	sp_dev_delete(&bench_dev);
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

struct bursts {
	unsigned long long n, accesses, max_accesses, max_reads, max_ns;
};

static int read_ns = 1027, write_ns = 93;

/* What the largest burst's accesses cost on the bus alone, in us */
static double bus_us(const struct bursts *b)
{
	return (b->max_reads * read_ns + (b->max_accesses - b->max_reads) * write_ns) / 1000.0;
}

static int bursts_read(const struct sp_dev *d, struct bursts *b)
{
	char buf[256];
	int ret = sp_debugfs_read(d, "bursts", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (sscanf(buf, "bursts %llu accesses %llu max_accesses %llu max_reads %llu max_ns %llu",
		   &b->n, &b->accesses, &b->max_accesses, &b->max_reads, &b->max_ns) != 5)
		return -EINVAL;
	return 0;
}

static int reset(const struct sp_dev *d)
{
	int ret = sp_regs_reset(d);

	return ret ? ret : sp_debugfs_printf(d, "bursts", "0");
}

/* A whole-chip event read @reads times, 2 ms apart (a burst each) */
static int bench_read(const struct sp_dev *d, int reads)
{
	struct bursts b;
	uint64_t r, w, val, t0, t, ns = 0;
	int fd, ret;

	fd = sp_open(d, FPU_INSTR, 0, -1, 0);
	if (fd < 0)
		return fd;
	ret = reset(d);
	for (int i = 0; !ret && i < reads; i++) {
		usleep(2000);
		t0 = sp_now_ns();
		if (read(fd, &val, sizeof(val)) != sizeof(val))
			ret = -errno;
		t = sp_now_ns();
		ns += t - t0;
	}
	close(fd);
	if (!ret)
		ret = sp_regs(d, &r, &w);
	if (!ret)
		ret = bursts_read(d, &b);
	if (ret)
		return ret;
	ksft_print_msg("  whole-chip event, per read(): %.1f BAR0 reads, %.1f writes, %.2f bursts; largest burst %llu accesses (%llu reads): %.1f us of bus time; longest burst %.1f us here; read() %.1f us here\n",
		       (double)r / reads, (double)w / reads, (double)b.n / reads,
		       b.max_accesses, b.max_reads, bus_us(&b), b.max_ns / 1000.0,
		       ns / 1000.0 / reads);
	return 0;
}

/* tensix-perf stat of the chip for one second, under access budget @budget */
static int bench_tool(const struct sp_dev *d, bool bh, uint64_t budget)
{
	static const char *const paths[] = { "/usr/bin/tensix-perf", "/usr/local/bin/tensix-perf" };
	const char *tool = NULL;
	struct bursts b;
	uint64_t r, w;
	int status, ret;
	pid_t pid;

	for (size_t i = 0; i < ARRAY_SIZE(paths) && !tool; i++)
		if (!access(paths[i], X_OK))
			tool = paths[i];
	if (!tool)
		return -ENOENT;
	ret = sp_pmu_write_u64(d, "access_budget", budget);
	if (!ret)
		ret = reset(d);
	if (ret)
		return ret;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl(tool, tool, "stat", "--pmu", d->pmu, "--", "sleep", "1", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ECHILD;
	ret = sp_regs(d, &r, &w);
	if (!ret)
		ret = bursts_read(d, &b);
	if (ret)
		return ret;
	ksft_print_msg("  tensix-perf stat, 1 s, access_budget %llu: %llu bursts, %llu accesses (%llu reads, %llu writes), %.0f per burst; largest burst %llu accesses (%llu reads): %.1f us of bus time; longest burst %.1f us here\n",
		       (unsigned long long)budget, b.n, b.accesses, (unsigned long long)r,
		       (unsigned long long)w, b.n ? (double)b.accesses / b.n : 0.0,
		       b.max_accesses, b.max_reads, bus_us(&b), b.max_ns / 1000.0);
	if (budget)
		ksft_print_msg("    bound of a section: %llu accesses (4 x %llu tile accesses of %d BAR0 accesses, one more per read of all ones: %llu)\n",
			       (unsigned long long)(4 * budget * (bh ? 4 : 3)),
			       (unsigned long long)budget, bh ? 4 : 3,
			       (unsigned long long)(4 * budget * (bh ? 5 : 4)));
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const archs[] = { "wormhole", "blackhole" };
	int reads = 20, opt, ret;
	char name[SP_NAME_LEN], params[64];

	while ((opt = getopt(argc, argv, "r:w:n:h")) != -1) {
		switch (opt) {
		case 'r':
			read_ns = atoi(optarg);
			break;
		case 'w':
			write_ns = atoi(optarg);
			break;
		case 'n':
			reads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-r READ_NS] [-w WRITE_NS] [-n READS]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (reads < 1 || read_ns < 0 || write_ns < 0) {
		fprintf(stderr, "need -n >= 1, -r and -w >= 0\n");
		return 2;
	}

	ksft_print_header();
	ksft_set_plan(3 * ARRAY_SIZE(archs));
	if (geteuid())
		ksft_exit_skip("needs root\n");
	ret = sp_sim_available_for("tensix_noc");
	if (!ret)
		ret = sp_sim_available_for("tensix_pmu");
	if (ret)
		ksft_exit_skip("no socpmu_sim + tensix_pmu + tensix_noc (%s)\n", strerror(-ret));
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ksft_print_msg("BAR0 latency: %d ns per read, %d ns per write\n", read_ns, write_ns);

	for (size_t a = 0; a < ARRAY_SIZE(archs); a++) {
		uint64_t units = 0, budget = 0;

		snprintf(name, sizeof(name), "ttb_%zu_%d", a, getpid());
		snprintf(params, sizeof(params), "arch=%s", archs[a]);
		ret = sp_dev_create(&bench_dev, "ttcard", name, params, "tensix_");
		if (!ret)
			ret = sp_pmu_read_u64(&bench_dev, "num_cores", &units);
		if (!ret)
			ret = sp_pmu_read_u64(&bench_dev, "access_budget", &budget);
		if (!ret)
			ret = sp_debugfs_printf(&bench_dev, "read_ns", "%d", read_ns);
		if (!ret)
			ret = sp_debugfs_printf(&bench_dev, "write_ns", "%d", write_ns);
		if (ret) {
			ksft_test_result_fail("%s: card: %s\n", archs[a], strerror(-ret));
			ksft_test_result_skip("%s: tensix-perf\n", archs[a]);
			ksft_test_result_skip("%s: tensix-perf, no budget\n", archs[a]);
			sp_dev_delete(&bench_dev);
			continue;
		}
		ksft_print_msg("%s, %llu tiles, PMU %s\n", archs[a], (unsigned long long)units,
			       bench_dev.pmu);
		ret = bench_read(&bench_dev, reads);
		if (ret)
			ksft_test_result_fail("%s: whole-chip event: %s\n", archs[a], strerror(-ret));
		else
			ksft_test_result_pass("%s: whole-chip event\n", archs[a]);
		for (int k = 0; k < 2; k++) {
			ret = bench_tool(&bench_dev, a, k ? 0 : budget);
			if (ret == -ENOENT)
				ksft_test_result_skip("%s: tensix-perf not installed\n", archs[a]);
			else if (ret)
				ksft_test_result_fail("%s: tensix-perf: %s\n", archs[a],
						      strerror(-ret));
			else
				ksft_test_result_pass("%s: tensix-perf stat%s\n", archs[a],
						      k ? ", no budget" : "");
		}
		sp_dev_delete(&bench_dev);
	}
	ksft_finished();
}
