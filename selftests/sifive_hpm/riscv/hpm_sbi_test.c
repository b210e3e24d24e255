// SPDX-License-Identifier: GPL-2.0-only
/*
 * sifive_hpm on a real SBI: riscv64 selftests for the RISC-V VM bench
 * (tools/vm/riscv-vm.sh: qemu-system-riscv64 -M virt, OpenSBI 1.1,
 * -cpu rv64,sscofpmf=true, riscv_pmu_sbi built in, sifive_hpm loaded with
 * any_vendor=1).
 *
 * OpenSBI arbitrates the counters between riscv_pmu_sbi (PMU "cpu",
 * PERF_TYPE_HARDWARE events) and sifive_hpm. These tests open events of
 * both on the same task and check, from outside, that both count what the
 * other counts (within 1 % over the same window, whichever opened first),
 * that opening and closing one in a loop leaves the other's count sane,
 * per-task counting, exclude_kernel (and the counters a group of filtered
 * events needs), the timestamp event (the time CSR),
 * the group walk under concurrent sibling opens, CPU hotplug and module
 * unload/reload. Needs root.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "../../lib/socpmu_test.h"
#include <socpmu/sifive_hpm.h>

#define HPM_KO		"/lib/modules/extra/sifive_hpm.ko"
#define HPM_PARAMS	"any_vendor=1"
#define CFG_CYCLES	SIFIVE_HPM_GEN_CPU_CYCLES
#define CFG_INSTR	SIFIVE_HPM_GEN_INSTRUCTIONS
#define CFG_TIME	SIFIVE_HPM_GEN_TIME
#define GARBAGE		(1ULL << 62)	/* no count here comes near it */

static int hpm_type(void)
{
	uint64_t t;

	return sp_read_u64_file(SP_PMU_BUS "/sifive_hpm/type", &t) ? -1 : (int)t;
}

/* A counting event, disabled, with the times in its read format */
static int open_ev(uint32_t type, uint64_t config, pid_t pid, int cpu, int group,
		   bool enabled, bool exclude_kernel)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = !enabled,
		.exclude_kernel = exclude_kernel,
		.read_format = SP_FORMAT_TIMES,
	};

	return sp_perf_event_open(&attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Does the hart have Sscofpmf (the bench boots both ways)? Without it
 * neither driver filters modes and riscv_pmu_sbi cannot sample.
 */
static bool has_sscofpmf(void)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "isa", 3) && strstr(line, "sscofpmf");
	fclose(f);
	return found;
}

#define NEED_SSCOFPMF() do {						\
	if (!has_sscofpmf())						\
		SKIP(return, "no Sscofpmf: no mode filter, no sampling");	\
} while (0)

static void busy_ns(uint64_t ns)
{
	uint64_t end = sp_now_ns() + ns;
	volatile uint64_t x = 0;

	while (sp_now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
}

static uint64_t count_of(int fd)
{
	struct sp_count c;

	return sp_read_times(fd, &c) ? 0 : c.value;
}

FIXTURE(sbi) {
	int hpm;
};

FIXTURE_SETUP(sbi)
{
	if (geteuid())
		SKIP(return, "needs root");
	self->hpm = hpm_type();
	/* On this bench both PMUs must be there: not a skip */
	ASSERT_LT(0, self->hpm) TH_LOG("no sifive_hpm PMU (sifive_hpm any_vendor=1 not loaded?)");
	ASSERT_TRUE(sp_path_exists(SP_PMU_BUS "/cpu/type")) TH_LOG("no riscv_pmu_sbi PMU");
}

FIXTURE_TEARDOWN(sbi)
{
}

/* And for those that need no variant at all */
FIXTURE(misc) {
	int hpm;
};

FIXTURE_SETUP(misc)
{
	if (geteuid())
		SKIP(return, "needs root");
	self->hpm = hpm_type();
	ASSERT_LT(0, self->hpm) TH_LOG("no sifive_hpm PMU (sifive_hpm any_vendor=1 not loaded?)");
	ASSERT_TRUE(sp_path_exists(SP_PMU_BUS "/cpu/type")) TH_LOG("no riscv_pmu_sbi PMU");
}

FIXTURE_TEARDOWN(misc)
{
}

/*
 * Both drivers count cycles or instructions on the same task over the same
 * window (enabled and disabled together by prctl): within 1 %, whichever
 * was opened first.
 */
FIXTURE_VARIANT(sbi) {
	uint64_t hpm_cfg, sbi_cfg;
	bool hpm_first;
};

FIXTURE_VARIANT_ADD(sbi, cycles_hpm_first) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = true,
};

FIXTURE_VARIANT_ADD(sbi, cycles_sbi_first) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = false,
};

FIXTURE_VARIANT_ADD(sbi, instructions_hpm_first) {
	.hpm_cfg = CFG_INSTR, .sbi_cfg = PERF_COUNT_HW_INSTRUCTIONS, .hpm_first = true,
};

FIXTURE_VARIANT_ADD(sbi, instructions_sbi_first) {
	.hpm_cfg = CFG_INSTR, .sbi_cfg = PERF_COUNT_HW_INSTRUCTIONS, .hpm_first = false,
};

/*
 * QEMU's cycle and instret counters follow the host clock, also while the
 * host has the hart's thread off its CPU; prctl() enables the two events
 * one after the other, so a host preemption between them (a few ms on a
 * loaded machine) makes them differ by more than 1 %. A round may take 5
 * tries: a wrong count disagrees every time.
 */
#define SAME_WINDOW_TRIES	5

TEST_F(sbi, same_window_agree)
{
	struct sp_count h, s;
	int fh, fs;

	/*
	 * Without Sscofpmf both count on the fixed counter, and prctl()
	 * enables the events in their opening order: riscv_pmu_sbi's start
	 * then finds the counter running ("already started", its start
	 * value not written) and its count is off by the counter's value
	 * (sifive-hpm.rst, "Fixed counters are shared"). The pair tests
	 * below measure ours on the fixed counters.
	 */
	if (variant->hpm_first && !has_sscofpmf())
		SKIP(return, "no Sscofpmf: riscv_pmu_sbi cannot count on a fixed counter sifive_hpm started first");

	for (int round = 0; round < 3; round++) {
		double diff = 1;

		for (int try = 0; try < SAME_WINDOW_TRIES && diff > 0.01; try++) {
			if (variant->hpm_first) {
				fh = open_ev(self->hpm, variant->hpm_cfg, 0, -1, -1, false, false);
				fs = open_ev(PERF_TYPE_HARDWARE, variant->sbi_cfg, 0, -1, -1,
					     false, false);
			} else {
				fs = open_ev(PERF_TYPE_HARDWARE, variant->sbi_cfg, 0, -1, -1,
					     false, false);
				fh = open_ev(self->hpm, variant->hpm_cfg, 0, -1, -1, false, false);
			}
			ASSERT_LE(0, fh) TH_LOG("sifive_hpm: %s", strerror(-fh));
			ASSERT_LE(0, fs) TH_LOG("riscv_pmu_sbi: %s", strerror(-fs));
			ASSERT_EQ(0, prctl(PR_TASK_PERF_EVENTS_ENABLE));
			busy_ns(300000000);
			ASSERT_EQ(0, prctl(PR_TASK_PERF_EVENTS_DISABLE));
			ASSERT_EQ(0, sp_read_times(fh, &h));
			ASSERT_EQ(0, sp_read_times(fs, &s));
			close(fh);
			close(fs);
			TH_LOG("round %d try %d: sifive_hpm %llu (running %llu/%llu), riscv_pmu_sbi %llu",
			       round, try, (unsigned long long)h.value,
			       (unsigned long long)h.running, (unsigned long long)h.enabled,
			       (unsigned long long)s.value);
			/* Neither was multiplexed away: both had a counter all the time */
			EXPECT_EQ(h.enabled, h.running);
			EXPECT_EQ(s.enabled, s.running);
			EXPECT_LT(1000000, h.value);
			EXPECT_LT(1000000, s.value);
			EXPECT_GT(GARBAGE, h.value);
			EXPECT_GT(GARBAGE, s.value);
			if (s.value)
				diff = (h.value > s.value ? (double)(h.value - s.value) :
					(double)(s.value - h.value)) / (double)s.value;
		}
		EXPECT_GE(0.01, diff)
			TH_LOG("round %d: sifive_hpm %llu vs riscv_pmu_sbi %llu in each of %d tries",
			       round, (unsigned long long)h.value, (unsigned long long)s.value,
			       SAME_WINDOW_TRIES);
	}
}

/*
 * One driver's event counts steadily while the other's is opened, enabled,
 * read and closed 200 times on the same task: every read of the steady one
 * goes up by about what its rate before the loop predicts, never jumps to
 * 2^63 or sticks.
 */
TEST_F(sbi, open_close_loop_disturbs_nothing)
{
	struct perf_event_attr tc = {
		.size = sizeof(tc), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.read_format = SP_FORMAT_TIMES,
	};

	/* both ways round: 0 steady riscv_pmu_sbi, looping sifive_hpm; 1 the other way */
	for (int way = 0; way < 2; way++) {
		uint32_t st = way ? self->hpm : PERF_TYPE_HARDWARE;
		uint32_t lt = way ? PERF_TYPE_HARDWARE : self->hpm;
		uint64_t sc = way ? variant->hpm_cfg : variant->sbi_cfg;
		uint64_t lc = way ? variant->sbi_cfg : variant->hpm_cfg;
		uint64_t c0, t0, prev, prev_t, c, t, tb;
		double rate;
		int fs, ft, fl;

		fs = open_ev(st, sc, 0, -1, -1, true, false);
		ASSERT_LE(0, fs);
		ft = sp_perf_event_open(&tc, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, ft);
		busy_ns(200000000);
		tb = count_of(ft);
		c0 = count_of(fs);
		t0 = count_of(ft);
		ASSERT_LT(0, t0);
		rate = (double)c0 / (double)t0;
		ASSERT_LT(0.0, rate) TH_LOG("the steady event did not count");
		prev = c0;
		prev_t = tb;
		for (int i = 0; i < 200; i++) {
			fl = open_ev(lt, lc, 0, -1, -1, true, false);
			ASSERT_LE(0, fl) TH_LOG("round %d: %s", i, strerror(-fl));
			busy_ns(1000000);
			EXPECT_LT(0, count_of(fl)) TH_LOG("round %d: looping event idle", i);
			close(fl);
			/*
			 * The task clock read on both sides of the count: the
			 * two counts were read within [prev_t, t] even when the
			 * host stalled the hart between two reads.
			 */
			tb = count_of(ft);
			c = count_of(fs);
			t = count_of(ft);
			ASSERT_LT(prev, c) TH_LOG("way %d round %d: %llu after %llu", way, i,
						  (unsigned long long)c,
						  (unsigned long long)prev);
			ASSERT_GT(GARBAGE, c) TH_LOG("way %d round %d: %llu", way, i,
						     (unsigned long long)c);
			/* generous: a loaded TCG host is uneven, a disturbed count is not close */
			ASSERT_GT(rate * (double)(t - prev_t) * 4 + 5e6, (double)(c - prev))
				TH_LOG("way %d round %d: +%llu in %llu ns (rate %.3f)", way, i,
				       (unsigned long long)(c - prev),
				       (unsigned long long)(t - prev_t), rate);
			prev = c;
			prev_t = tb;
		}
		c = count_of(fs);
		t = count_of(ft);
		TH_LOG("way %d: rate before %.3f, during the loop %.3f per ns", way, rate,
		       (double)(c - c0) / (double)(t - t0));
		EXPECT_LT(rate * 0.5, (double)(c - c0) / (double)(t - t0));
		EXPECT_GT(rate * 2, (double)(c - c0) / (double)(t - t0));
		close(ft);
		close(fs);
	}
}

/*
 * Issue 42: `perf stat -e cycles,sifive_hpm/cycles/ -- ./app`. One task
 * opens both events enabled (pid 0, CPU -1, or both on one CPU with the
 * task pinned there), reads both, runs, reads both again: sifive_hpm's
 * delta is within 2 % of riscv_pmu_sbi's, 20 runs in a row, whichever was
 * opened first. Without Sscofpmf both count on the same fixed counter,
 * which riscv_pmu_sbi rewrites at every start. riscv_pmu_sbi is read on
 * both sides of each sifive_hpm read, so that a host preemption between
 * two reads (QEMU's counters follow the host clock) widens the bounds
 * instead of failing the run. Each run prints a line: a system that
 * stops shows where in the console. A run that is off is measured once
 * more, and fails only if that is off too: QEMU's counters follow the host
 * clock (with Sscofpmf too, where the two drivers count on different
 * counters, a run of 20 was seen 2.5 % off once), and riscv_pmu_sbi's own
 * reads of a counter it stopped are subject to QEMU 7.2's read of a
 * stopped counter (see sifive-hpm.rst), which sifive_hpm works around and
 * riscv_pmu_sbi does not. A count of ours that is wrong is wrong every
 * time (before issue 42's fix: 1-20 runs of 20, and their retries).
 */
#define PAIR_RUNS	20
#define PAIR_TOL	0.02
/*
 * A run that is off is measured again, up to twice, and at most PAIR_AGAIN
 * times a test: QEMU's counters follow the host clock, and a host
 * preemption in the few SBI calls between riscv_pmu_sbi's stop and our read
 * counts for one driver only (sifive-hpm.rst). A driver that loses counts
 * is off in every run.
 */
#define PAIR_TRIES	3
#define PAIR_AGAIN	(PAIR_RUNS / 4)

FIXTURE(pair) {
	int hpm;
};

FIXTURE_SETUP(pair)
{
	if (geteuid())
		SKIP(return, "needs root");
	self->hpm = hpm_type();
	ASSERT_LT(0, self->hpm) TH_LOG("no sifive_hpm PMU (sifive_hpm any_vendor=1 not loaded?)");
	ASSERT_TRUE(sp_path_exists(SP_PMU_BUS "/cpu/type")) TH_LOG("no riscv_pmu_sbi PMU");
}

FIXTURE_TEARDOWN(pair)
{
}

FIXTURE_VARIANT(pair) {
	uint64_t hpm_cfg, sbi_cfg;
	bool hpm_first;
	bool per_cpu;		/* both events on CPU 0, the task pinned there */
	bool switches;		/* sleeps between spins: schedule-out and in */
};

FIXTURE_VARIANT_ADD(pair, cycles_hpm_first) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = true,
};

FIXTURE_VARIANT_ADD(pair, cycles_sbi_first) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = false,
};

FIXTURE_VARIANT_ADD(pair, instructions_hpm_first) {
	.hpm_cfg = CFG_INSTR, .sbi_cfg = PERF_COUNT_HW_INSTRUCTIONS, .hpm_first = true,
};

FIXTURE_VARIANT_ADD(pair, instructions_sbi_first) {
	.hpm_cfg = CFG_INSTR, .sbi_cfg = PERF_COUNT_HW_INSTRUCTIONS, .hpm_first = false,
};

FIXTURE_VARIANT_ADD(pair, cycles_hpm_first_switches) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = true,
	.switches = true,
};

FIXTURE_VARIANT_ADD(pair, cycles_sbi_first_switches) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = false,
	.switches = true,
};

FIXTURE_VARIANT_ADD(pair, instructions_sbi_first_switches) {
	.hpm_cfg = CFG_INSTR, .sbi_cfg = PERF_COUNT_HW_INSTRUCTIONS, .hpm_first = false,
	.switches = true,
};

FIXTURE_VARIANT_ADD(pair, cycles_per_cpu_hpm_first) {
	.hpm_cfg = CFG_CYCLES, .sbi_cfg = PERF_COUNT_HW_CPU_CYCLES, .hpm_first = true,
	.per_cpu = true,
};

FIXTURE_VARIANT_ADD(pair, instructions_per_cpu_sbi_first) {
	.hpm_cfg = CFG_INSTR, .sbi_cfg = PERF_COUNT_HW_INSTRUCTIONS, .hpm_first = false,
	.per_cpu = true,
};

/* riscv_pmu_sbi, sifive_hpm, riscv_pmu_sbi again */
static void read_pair(int fs, int fh, uint64_t v[3])
{
	v[0] = count_of(fs);
	v[1] = count_of(fh);
	v[2] = count_of(fs);
}

TEST_F(pair, same_task_within_2_percent)
{
	pid_t pid = variant->per_cpu ? -1 : 0;
	int cpu = variant->per_cpu ? 0 : -1, bad = 0, again_total = 0;
	struct sp_count h, s;
	cpu_set_t set;

	if (variant->per_cpu) {
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	}
	for (int run = 0, tries = 1; run < PAIR_RUNS; run++) {
		uint64_t a[3], b[3], dh, lo, hi;
		int fh, fs;

		if (variant->hpm_first) {
			fh = open_ev(self->hpm, variant->hpm_cfg, pid, cpu, -1, true, false);
			fs = open_ev(PERF_TYPE_HARDWARE, variant->sbi_cfg, pid, cpu, -1, true, false);
		} else {
			fs = open_ev(PERF_TYPE_HARDWARE, variant->sbi_cfg, pid, cpu, -1, true, false);
			fh = open_ev(self->hpm, variant->hpm_cfg, pid, cpu, -1, true, false);
		}
		ASSERT_LE(0, fh) TH_LOG("sifive_hpm: %s", strerror(-fh));
		ASSERT_LE(0, fs) TH_LOG("riscv_pmu_sbi: %s", strerror(-fs));
		read_pair(fs, fh, a);
		if (variant->switches) {
			for (int i = 0; i < 6; i++) {
				busy_ns(5000000);
				usleep(500);
			}
		} else {
			busy_ns(30000000);
		}
		read_pair(fs, fh, b);
		ASSERT_EQ(0, sp_read_times(fh, &h));
		ASSERT_EQ(0, sp_read_times(fs, &s));
		close(fh);
		close(fs);
		/* sifive_hpm's window lies within [a0, b2] and holds [a2, b0] */
		dh = b[1] - a[1];
		lo = b[0] - a[2];
		hi = b[2] - a[0];
		fprintf(stderr, "# run %d: sifive_hpm +%llu, riscv_pmu_sbi +%llu..%llu\n", run,
			(unsigned long long)dh, (unsigned long long)lo, (unsigned long long)hi);
		EXPECT_EQ(h.enabled, h.running);
		EXPECT_EQ(s.enabled, s.running);
		ASSERT_LT(1000000, lo) TH_LOG("run %d: riscv_pmu_sbi hardly counted", run);
		ASSERT_GT(GARBAGE, hi) TH_LOG("run %d: riscv_pmu_sbi counted garbage", run);
		if ((double)dh < (double)lo * (1 - PAIR_TOL) ||
		    (double)dh > (double)hi * (1 + PAIR_TOL)) {
			if (tries < PAIR_TRIES && again_total < PAIR_AGAIN) {
				fprintf(stderr, "# run %d: off by more than 2 %%: once more\n", run);
				tries++;
				again_total++;
				run--;
				continue;
			}
			TH_LOG("run %d: sifive_hpm +%llu, riscv_pmu_sbi +%llu..%llu: off by more than 2 %%",
			       run, (unsigned long long)dh, (unsigned long long)lo,
			       (unsigned long long)hi);
			bad++;
		}
		tries = 1;
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d runs off by more than 2 %% (%d measured again)",
				 bad, PAIR_RUNS, again_total);
}

/* Per-task: a sleeping task's cycles and instructions hardly move */
TEST_F(misc, per_task_counting)
{
	const uint64_t cfg[] = { CFG_CYCLES, CFG_INSTR };
	uint64_t busy, slept;
	int fd;

	for (int i = 0; i < 2; i++) {
		fd = open_ev(self->hpm, cfg[i], 0, -1, -1, true, false);
		ASSERT_LE(0, fd);
		busy_ns(200000000);
		busy = count_of(fd);
		sp_sleep_ms(400);
		slept = count_of(fd) - busy;
		TH_LOG("config %llu: busy 200 ms: %llu, then asleep 400 ms: +%llu",
		       (unsigned long long)cfg[i], (unsigned long long)busy,
		       (unsigned long long)slept);
		EXPECT_LT(1000000, busy);
		EXPECT_GT(busy / 10, slept);
		close(fd);
	}
}

/*
 * exclude_kernel (Sscofpmf's inhibit bits in mhpmevent, which the firmware
 * sets from the SINH flag). QEMU 7.2 applies them to the events it counts
 * one by one, not to cycles and instret (those follow the host clock), so
 * the event is the dTLB write miss (SBI cache event DTLB/write/miss, which
 * QEMU's device tree maps): read() from /dev/zero into a 16 MiB buffer
 * misses in the kernel, memset() on it in user mode. QEMU 7.2 counts an
 * event on one counter only, so the filtered and the unfiltered event each
 * measure the workloads alone.
 */
#define CFG_DTLB_WRITE_MISS	((uint64_t)SIFIVE_HPM_TYPE_CACHE << SIFIVE_HPM_CFG_TYPE_SHIFT | \
				 SIFIVE_HPM_CACHE_CODE(SIFIVE_HPM_CACHE_DTLB, SIFIVE_HPM_OP_WRITE, \
						       SIFIVE_HPM_RESULT_MISS))
#define BUF_SIZE		(16u << 20)

/* dTLB write misses of 4 passes of the workload, kernel or user */
static uint64_t measure(struct __test_metadata *_metadata, int hpm, bool exclude_kernel,
			char *buf, bool kernel)
{
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	struct sp_count c = { 0 };
	int fd;

	EXPECT_LE(0, zero);
	fd = open_ev(hpm, CFG_DTLB_WRITE_MISS, 0, -1, -1, false, exclude_kernel);
	EXPECT_LE(0, fd) TH_LOG("dTLB write miss, exclude_kernel=%d: %s", exclude_kernel,
				strerror(-fd));
	if (fd < 0 || zero < 0)
		return 0;
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (int i = 0; i < 4; i++) {
		if (kernel) {
			EXPECT_EQ((ssize_t)BUF_SIZE, read(zero, buf, BUF_SIZE));
		} else {
			memset(buf, i + 1, BUF_SIZE);
		}
	}
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(0, sp_read_times(fd, &c));
	EXPECT_EQ(c.enabled, c.running) TH_LOG("no counter all the time");
	close(fd);
	close(zero);
	TH_LOG("%s, exclude_kernel=%d: %llu", kernel ? "read(/dev/zero)" : "memset",
	       exclude_kernel, (unsigned long long)c.value);
	return c.value;
}

TEST_F(misc, exclude_kernel_honoured)
{
	uint64_t k_all, k_user, u_all, u_user;
	char *buf;

	NEED_SSCOFPMF();

	buf = malloc(BUF_SIZE);
	ASSERT_NE(NULL, buf);
	memset(buf, 1, BUF_SIZE);	/* fault it in first */

	k_all = measure(_metadata, self->hpm, false, buf, true);
	k_user = measure(_metadata, self->hpm, true, buf, true);
	u_all = measure(_metadata, self->hpm, false, buf, false);
	u_user = measure(_metadata, self->hpm, true, buf, false);
	/* 4 x 4096 pages written in each loop: each misses at least once */
	EXPECT_LT(16000, k_all);
	EXPECT_LT(16000, u_all);
	EXPECT_GT(k_all / 10, k_user);
	EXPECT_LT(u_all / 2, u_user);
	free(buf);
}

/*
 * cycles and instructions with exclude_kernel never land on their fixed
 * counter, which cannot filter by mode: the mmap page's index (counter + 1)
 * shows a programmable counter (4 and up) while the event runs.
 */
TEST_F(misc, exclude_kernel_not_on_fixed_counter)
{
	const uint64_t cfg[] = { CFG_CYCLES, CFG_INSTR };
	long psz = sysconf(_SC_PAGESIZE);

	NEED_SSCOFPMF();

	for (int i = 0; i < 2; i++) {
		volatile struct perf_event_mmap_page *pg;
		struct sp_count c;
		uint32_t idx;
		int fd;

		fd = open_ev(self->hpm, cfg[i], 0, -1, -1, true, true);
		ASSERT_LE(0, fd) TH_LOG("config %llu exclude_kernel: %s",
					(unsigned long long)cfg[i], strerror(-fd));
		pg = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, pg);
		busy_ns(20000000);
		idx = pg->index;
		ASSERT_EQ(0, sp_read_times(fd, &c));
		TH_LOG("config %llu exclude_kernel: counter index %u, count %llu",
		       (unsigned long long)cfg[i], idx, (unsigned long long)c.value);
		EXPECT_LE(4, idx);
		EXPECT_LT(0, c.value);
		munmap((void *)pg, psz);
		close(fd);
	}
}

/* timestamp: the time CSR, at the timebase frequency of the device tree */
TEST_F(misc, timestamp_counts_time)
{
	uint64_t t0, t1, hz;
	unsigned char be[4];
	struct sp_count c;
	int fd, dt;

	dt = open("/proc/device-tree/cpus/timebase-frequency", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, dt);
	ASSERT_EQ(4, read(dt, be, 4));
	close(dt);
	hz = (uint64_t)be[0] << 24 | be[1] << 16 | be[2] << 8 | be[3];
	fd = open_ev(self->hpm, CFG_TIME, 0, -1, -1, false, false);
	ASSERT_LE(0, fd);
	t0 = sp_now_ns();
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	busy_ns(200000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	t1 = sp_now_ns();
	ASSERT_EQ(0, sp_read_times(fd, &c));
	TH_LOG("timestamp %llu over %llu ns at %llu Hz", (unsigned long long)c.value,
	       (unsigned long long)(t1 - t0), (unsigned long long)hz);
	/* the task ran all the time: about the elapsed time, never more */
	EXPECT_LE((double)c.value, (double)(t1 - t0) * hz / 1e9 * 1.001 + 2);
	EXPECT_GE((double)c.value, (double)(c.running) * hz / 1e9 * 0.98);
	EXPECT_LT(0, c.value);
	close(fd);
}

/*
 * The group walk of event_init runs under the leader's ctx->mutex
 * (perf_hw_context): two threads open and close siblings of one leader,
 * on the leader's task, while it counts.
 */
struct walk_arg {
	int leader;
	pid_t tid;
	int type;
	uint64_t config;
	int opened, errors;
};

static void *walk_thread(void *p)
{
	struct walk_arg *a = p;

	for (int i = 0; i < 300; i++) {
		int fd = open_ev(a->type, a->config, a->tid, -1, a->leader, true, false);

		if (fd >= 0) {
			a->opened++;
			close(fd);
		} else {
			a->errors++;
		}
	}
	return NULL;
}

TEST_F(misc, group_walk_concurrent_siblings)
{
	struct walk_arg a[2];
	pthread_t th[2];
	struct sp_count c;
	int leader;

	leader = open_ev(self->hpm, CFG_CYCLES, 0, -1, -1, true, false);
	ASSERT_LE(0, leader);
	for (int i = 0; i < 2; i++) {
		a[i] = (struct walk_arg){
			.leader = leader, .tid = gettid(), .type = self->hpm,
			.config = i ? CFG_INSTR : CFG_TIME,
		};
		ASSERT_EQ(0, pthread_create(&th[i], NULL, walk_thread, &a[i]));
	}
	busy_ns(100000000);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(300, a[i].opened) TH_LOG("thread %d: %d failed", i, a[i].errors);
	}
	ASSERT_EQ(0, sp_read_times(leader, &c));
	EXPECT_LT(0, c.value);
	EXPECT_GT(GARBAGE, c.value);
	close(leader);
}

/* The programmable counters the PMU lists in sysfs ("index CSR width", index >= 3) */
static int prog_counters(void)
{
	char buf[4096], *line, *save;
	int n = 0;

	if (sp_read_file(SP_PMU_BUS "/sifive_hpm/counters", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (atoi(line) >= 3)
			n++;
	return n;
}

/*
 * A filtered cycles event never sits on the fixed cycle counter (it cannot
 * filter): a group of them needs a programmable counter each. As many as
 * there are programmable counters make a group that runs; one more is
 * refused, as a group that could never be scheduled.
 */
TEST_F(misc, filtered_cycles_group_needs_programmable_counters)
{
	int fds[40], n = 0, p = prog_counters(), ret;
	struct sp_count c;

	NEED_SSCOFPMF();

	ASSERT_LT(0, p);
	ASSERT_GT((int)ARRAY_SIZE(fds), p);
	fds[n] = open_ev(self->hpm, CFG_CYCLES, 0, -1, -1, true, true);
	ASSERT_LE(0, fds[n]) TH_LOG("cycles:u: %s", strerror(-fds[n]));
	for (n = 1; n < p; n++) {
		fds[n] = open_ev(self->hpm, CFG_CYCLES, 0, -1, fds[0], true, true);
		ASSERT_LE(0, fds[n]) TH_LOG("cycles:u %d of %d: %s", n + 1, p, strerror(-fds[n]));
	}
	ret = open_ev(self->hpm, CFG_CYCLES, 0, -1, fds[0], true, true);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("cycles:u %d, %d programmable counters", p + 1, p);
	if (ret >= 0)
		close(ret);
	busy_ns(20000000);
	ASSERT_EQ(0, sp_read_times(fds[0], &c));
	TH_LOG("%d filtered cycles events in a group: %llu, running %llu of %llu ns", p,
	       (unsigned long long)c.value, (unsigned long long)c.running,
	       (unsigned long long)c.enabled);
	EXPECT_LT(0, c.running) TH_LOG("the group never ran");
	EXPECT_LT(0, c.value);
	while (n)
		close(fds[--n]);
}

/*
 * Two cycles (instructions) events in one group: the second takes a
 * programmable counter, which OpenSBI under QEMU can use for cycles (a
 * U74's cannot: sifive_hpm_test's impossible_groups). The group runs all
 * the time and both count about the same.
 */
TEST_F(misc, second_fixed_event_of_a_group_on_programmable_counter)
{
	const uint64_t cfg[] = { CFG_CYCLES, CFG_INSTR };

	NEED_SSCOFPMF();

	for (int i = 0; i < 2; i++) {
		struct sp_count l = { 0 }, m = { 0 };
		int lead, member;
		uint64_t diff = UINT64_MAX;

		lead = open_ev(self->hpm, cfg[i], 0, -1, -1, false, false);
		ASSERT_LE(0, lead);
		member = open_ev(self->hpm, cfg[i], 0, -1, lead, true, false);
		ASSERT_LE(0, member) TH_LOG("config %llu twice: %s", (unsigned long long)cfg[i],
					    strerror(-member));
		/*
		 * The two counters start and stop a few SBI calls apart: a host
		 * that stalls the hart in between skews one try (QEMU's cycles
		 * follow the host clock), so a few tries, as same_window_agree
		 */
		for (int try = 0; try < SAME_WINDOW_TRIES && diff > l.value / 100; try++) {
			ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP));
			ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
			busy_ns(20000000);
			ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
			ASSERT_EQ(0, sp_read_times(lead, &l));
			ASSERT_EQ(0, sp_read_times(member, &m));
			TH_LOG("config %llu twice, try %d: %llu and %llu, running %llu of %llu ns",
			       (unsigned long long)cfg[i], try, (unsigned long long)l.value,
			       (unsigned long long)m.value, (unsigned long long)m.running,
			       (unsigned long long)m.enabled);
			EXPECT_EQ(l.enabled, l.running);
			EXPECT_EQ(m.enabled, m.running);
			EXPECT_LT(1000000, m.value);
			diff = l.value > m.value ? l.value - m.value : m.value - l.value;
		}
		EXPECT_GE(l.value / 100, diff);
		close(member);
		close(lead);
	}
}

/* Hotplug: after CPU 1 went offline and came back, events there count again */
static int set_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return sp_write_file(path, on ? "1" : "0");
}

/*
 * Bring @cpu online. The kernel asks the SBI whether the hart it took
 * offline has stopped only once, at once; a host that holds back the
 * hart's QEMU thread for a moment leaves it "started" (HSM status 0: "HART1
 * isn't stopped"), and bringing it online then fails ("CPU1: failed to
 * start", EINVAL) until the hart has got as far as stopping. Tries again,
 * up to 10 times 50 ms apart; returns the last error.
 */
static int bring_online(struct __test_metadata *_metadata, int cpu)
{
	int ret = set_online(cpu, 1);

	for (int i = 0; ret && i < 10; i++) {
		TH_LOG("CPU %d did not come online (%s): again in 50 ms", cpu, strerror(-ret));
		usleep(50 * 1000);
		ret = set_online(cpu, 1);
	}
	return ret;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

TEST_F(misc, cpu_hotplug)
{
	uint64_t before, after, t_before, t_after;
	int fd, tc;
	struct perf_event_attr tca = {
		.size = sizeof(tca), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.read_format = SP_FORMAT_TIMES,
	};

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	fd = open_ev(self->hpm, CFG_CYCLES, 0, -1, -1, true, false);
	ASSERT_LE(0, fd);
	tc = sp_perf_event_open(&tca, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, tc);
	ASSERT_EQ(0, pin(1));
	busy_ns(100000000);
	before = count_of(fd);
	t_before = count_of(tc);
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(0, pin(0));
		ASSERT_EQ(0, set_online(1, 0)) TH_LOG("offline CPU 1");
		ASSERT_EQ(0, bring_online(_metadata, 1)) TH_LOG("online CPU 1");
		ASSERT_EQ(0, pin(1));
		busy_ns(20000000);
	}
	after = count_of(fd);
	t_after = count_of(tc);
	TH_LOG("before %llu in %llu ns, then +%llu in %llu ns", (unsigned long long)before,
	       (unsigned long long)t_before, (unsigned long long)(after - before),
	       (unsigned long long)(t_after - t_before));
	EXPECT_LT(before, after);
	EXPECT_GT(GARBAGE, after);
	EXPECT_LT((double)before / t_before * 0.25, (double)(after - before) / (t_after - t_before));
	ASSERT_EQ(0, pin(0));
	close(tc);
	close(fd);
}

/*
 * The out-of-tree module cannot deliver samples (perf_event_overflow() is
 * not exported): sampling events are refused with EOPNOTSUPP, even where
 * riscv_pmu_sbi samples (Sscofpmf). The in-tree build samples
 * (selftests/sifive_hpm/riscv-intree/).
 */
TEST_F(misc, sampling_refused_out_of_tree)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = self->hpm,
		.config = CFG_CYCLES,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
	};
	int fd;

	EXPECT_EQ(-EOPNOTSUPP, sp_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
	attr.freq = 1;
	attr.sample_freq = 1000;
	EXPECT_EQ(-EOPNOTSUPP, sp_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
	/* riscv_pmu_sbi samples here: the refusal is the module's, not the hart's */
	NEED_SSCOFPMF();
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	fd = sp_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_LE(0, fd) TH_LOG("riscv_pmu_sbi sampling: %s", strerror(-fd));
	if (fd >= 0)
		close(fd);
}

/*
 * Module unload and reload with riscv_pmu_sbi counting all the while:
 * busy while an event is open, gone and back, riscv_pmu_sbi's count never
 * disturbed (the probe's trial matches leave its counters alone).
 */
TEST_F(misc, module_unload_reload)
{
	uint64_t c0, c1;
	int fs, fh, ko;

	fs = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, -1, -1, true, false);
	ASSERT_LE(0, fs);
	busy_ns(50000000);
	c0 = count_of(fs);

	fh = open_ev(self->hpm, CFG_CYCLES, 0, -1, -1, true, false);
	ASSERT_LE(0, fh);
	EXPECT_NE(0, syscall(SYS_delete_module, "sifive_hpm", O_NONBLOCK)) TH_LOG("unloaded while busy");
	close(fh);

	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, syscall(SYS_delete_module, "sifive_hpm", O_NONBLOCK))
			TH_LOG("unload: %s", strerror(errno));
		EXPECT_FALSE(sp_path_exists(SP_PMU_BUS "/sifive_hpm"));
		ko = open(HPM_KO, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, ko);
		ASSERT_EQ(0, syscall(SYS_finit_module, ko, HPM_PARAMS, 0))
			TH_LOG("reload: %s", strerror(errno));
		close(ko);
		self->hpm = hpm_type();
		ASSERT_LT(0, self->hpm);
		fh = open_ev(self->hpm, CFG_CYCLES, 0, -1, -1, true, false);
		ASSERT_LE(0, fh);
		busy_ns(20000000);
		EXPECT_LT(0, count_of(fh));
		close(fh);
		c1 = count_of(fs);
		EXPECT_LT(c0, c1);
		EXPECT_GT(GARBAGE, c1) TH_LOG("riscv_pmu_sbi disturbed: %llu", (unsigned long long)c1);
		c0 = c1;
	}
	close(fs);
}

TEST_HARNESS_MAIN
