// SPDX-License-Identifier: GPL-2.0-only
/*
 * sifive_hpm built into the kernel (tools/vm/riscv-intree.patch) samples:
 * riscv64 selftests for the in-tree boot of the RISC-V VM bench
 * (tools/vm/riscv-vm.sh --intree: QEMU -cpu rv64,sscofpmf=true, OpenSBI,
 * riscv_pmu_sbi handing the counter overflow interrupt on, kernel command
 * line sifive_hpm.any_vendor=1).
 *
 * A sampling event on sifive_hpm is opened with perf_event_open, its ring
 * buffer mapped, a workload run, and the PERF_RECORD_SAMPLE records read
 * back from the ring: one sample per period of dTLB write misses (QEMU
 * counts those one by one), with this task's pid/tid and an IP; cycles
 * samples too; riscv_pmu_sbi samples at the same time, and counts on
 * through our overflows. Needs root.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "../../lib/socpmu_test.h"
#include <socpmu/sifive_hpm.h>

#define CFG_DTLB_WRITE_MISS	((uint64_t)SIFIVE_HPM_TYPE_CACHE << SIFIVE_HPM_CFG_TYPE_SHIFT | \
				 SIFIVE_HPM_CACHE_CODE(SIFIVE_HPM_CACHE_DTLB, SIFIVE_HPM_OP_WRITE, \
						       SIFIVE_HPM_RESULT_MISS))
#define BUF_SIZE		(16u << 20)
#define RING_PAGES		64

struct ring {
	void *base;
	size_t size;
	long psz;
};

struct sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t period;
};

static int open_sampling(uint32_t type, uint64_t config, uint64_t period)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = 1,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD,
		.wakeup_events = 1,
	};

	return sp_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int ring_map(struct ring *r, int fd)
{
	r->psz = sysconf(_SC_PAGESIZE);
	r->size = (RING_PAGES + 1) * r->psz;
	r->base = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return r->base == MAP_FAILED ? -errno : 0;
}

/* Count the samples in the ring; check each has our pid/tid, an IP and @period */
static int ring_samples(struct ring *r, uint64_t period, int *bad)
{
	struct perf_event_mmap_page *pg = r->base;
	char *data = (char *)r->base + r->psz;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	size_t dsize = RING_PAGES * r->psz;
	int n = 0;

	while (tail < head) {
		struct perf_event_header h;
		struct sample s;

		memcpy(&h, data + tail % dsize, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(s)) {
			for (size_t i = 0; i < sizeof(s); i++)
				((char *)&s)[i] = data[(tail + i) % dsize];
			n++;
			if (s.pid != (uint32_t)getpid() || s.tid != (uint32_t)gettid() || !s.ip ||
			    s.period != period)
				(*bad)++;
		}
		if (!h.size)
			break;
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

FIXTURE(sample) {
	int hpm;
	char *buf;
};

FIXTURE_SETUP(sample)
{
	uint64_t t;

	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, sp_read_u64_file(SP_PMU_BUS "/sifive_hpm/type", &t))
		TH_LOG("no built-in sifive_hpm PMU");
	self->hpm = (int)t;
	self->buf = malloc(BUF_SIZE);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 1, BUF_SIZE);
}

FIXTURE_TEARDOWN(sample)
{
	free(self->buf);
}

/* 4 x 4096 pages written: about 16384 dTLB write misses, one sample per 1000 */
TEST_F(sample, dtlb_miss_samples_in_ring)
{
	struct ring r;
	uint64_t count;
	int fd, n, bad = 0;

	fd = open_sampling(self->hpm, CFG_DTLB_WRITE_MISS, 1000);
	ASSERT_LE(0, fd) TH_LOG("sampling event: %s", strerror(-fd));
	ASSERT_EQ(0, ring_map(&r, fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (int i = 0; i < 4; i++)
		memset(self->buf, i + 2, BUF_SIZE);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, sp_read_count(fd, &count));
	n = ring_samples(&r, 1000, &bad);
	TH_LOG("%llu dTLB write misses, %d samples (%d bad)", (unsigned long long)count, n, bad);
	EXPECT_LT(16000, count);
	/* one per 1000 misses: the count says how many */
	EXPECT_LE(count / 1000 - 1, (uint64_t)n);
	EXPECT_GE(count / 1000 + 1, (uint64_t)n);
	EXPECT_EQ(0, bad);
	munmap(r.base, r.size);
	close(fd);
}

/* cycles sample too (on a programmable counter: the fixed ones cannot interrupt) */
TEST_F(sample, cycles_samples_next_to_riscv_pmu_sbi)
{
	struct ring rh, rs;
	uint64_t end;
	int fh, fs, nh, ns, badh = 0, bads = 0;
	volatile uint64_t x = 0;

	fh = open_sampling(self->hpm, SIFIVE_HPM_GEN_CPU_CYCLES, 10000000);
	ASSERT_LE(0, fh) TH_LOG("sifive_hpm cycles sampling: %s", strerror(-fh));
	fs = open_sampling(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 10000000);
	ASSERT_LE(0, fs) TH_LOG("riscv_pmu_sbi instructions sampling: %s", strerror(-fs));
	ASSERT_EQ(0, ring_map(&rh, fh));
	ASSERT_EQ(0, ring_map(&rs, fs));
	ASSERT_EQ(0, ioctl(fh, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(fs, PERF_EVENT_IOC_ENABLE, 0));
	end = sp_now_ns() + 300000000;
	while (sp_now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
	ASSERT_EQ(0, ioctl(fh, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(fs, PERF_EVENT_IOC_DISABLE, 0));
	nh = ring_samples(&rh, 10000000, &badh);
	ns = ring_samples(&rs, 10000000, &bads);
	TH_LOG("300 ms busy: sifive_hpm cycles %d samples (%d bad), riscv_pmu_sbi %d (%d bad)",
	       nh, badh, ns, bads);
	/* ~2.6e9 cycles/s on this bench: tens of samples each, not a trickle */
	EXPECT_LT(10, nh);
	EXPECT_LT(10, ns);
	EXPECT_EQ(0, badh);
	EXPECT_EQ(0, bads);
	munmap(rh.base, rh.size);
	munmap(rs.base, rs.size);
	close(fh);
	close(fs);
}

/*
 * riscv_pmu_sbi's counting event goes on counting through sifive_hpm's
 * overflows: its handler, which gets the interrupt after ours, stops its
 * counters before it reads the overflow flags, and returns at once when
 * none of them is set, which would leave its counters stopped had ours
 * cleared our flag first (a review's worry; with OpenSBI 1.1 it does not
 * happen). Its instructions per ns of task clock, on a programmable counter
 * (exclude_kernel), must stay what they were without our sampling event.
 */
static double rate_while_busy(int fd, int clock, uint64_t ns)
{
	uint64_t c0, t0, c1, t1, end;
	volatile uint64_t x = 0;

	if (sp_read_count(fd, &c0) || sp_read_count(clock, &t0))
		return -1;
	end = sp_now_ns() + ns;
	while (sp_now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
	if (sp_read_count(fd, &c1) || sp_read_count(clock, &t1) || t1 == t0)
		return -1;
	return (double)(c1 - c0) / (double)(t1 - t0);
}

TEST_F(sample, riscv_pmu_sbi_counts_through_our_overflows)
{
	/* exclude_kernel: on a programmable counter, which its stop inhibits */
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1,
	};
	struct perf_event_attr tc = {
		.size = sizeof(tc), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
	};
	double alone, next_to_ours;
	struct ring rh;
	int fs, clock, fh, nh, bad = 0;

	fs = sp_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fs) TH_LOG("riscv_pmu_sbi instructions: %s", strerror(-fs));
	clock = sp_perf_event_open(&tc, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, clock);
	alone = rate_while_busy(fs, clock, 100000000);
	fh = open_sampling(self->hpm, SIFIVE_HPM_GEN_CPU_CYCLES, 10000000);
	ASSERT_LE(0, fh) TH_LOG("sifive_hpm cycles sampling: %s", strerror(-fh));
	ASSERT_EQ(0, ring_map(&rh, fh));
	ASSERT_EQ(0, ioctl(fh, PERF_EVENT_IOC_ENABLE, 0));
	next_to_ours = rate_while_busy(fs, clock, 300000000);
	ASSERT_EQ(0, ioctl(fh, PERF_EVENT_IOC_DISABLE, 0));
	nh = ring_samples(&rh, 10000000, &bad);
	TH_LOG("riscv_pmu_sbi instructions per ns: %.3f alone, %.3f next to %d sifive_hpm "
	       "cycles samples (%d bad)", alone, next_to_ours, nh, bad);
	EXPECT_LT(0.0, alone);
	/*
	 * tens of our overflows, each of which stopped its counter (a shorter
	 * period got throttled on a loaded host: perf lowers its sample rate)
	 */
	EXPECT_LT(10, nh);
	EXPECT_LT(alone * 0.7, next_to_ours);
	munmap(rh.base, rh.size);
	close(fh);
	close(clock);
	close(fs);
}

TEST_HARNESS_MAIN
