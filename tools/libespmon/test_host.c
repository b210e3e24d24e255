// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Host test of libespmon: what works without an ESP PMU. The wrap-safe
 * arithmetic, the error codes when the PMU is missing or too large for the
 * program's limits, and esp_monitor_print's layout for a SoC described by a
 * fake sysfs directory ($ESP_MONITOR_SYSFS). The VM selftests
 * (selftests/esp/esp_api_test.c) cover the library against the real PMU.
 */
#define SOC_ROWS 2
#define SOC_COLS 2
#define SOC_NCPU 1
#define SOC_NMEM 1
#define SOC_NACC 1
#include "esp_monitor.h"

#include <errno.h>
#include <sys/stat.h>

#include "kselftest_harness.h"

static void put(const char *dir, const char *pmu, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, pmu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, pmu, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char fake_dir[] = "/tmp/espmon_host_XXXXXX";

static void unfake(void)
{
	static const char *const files[] = { "type", "rows", "cols", "cpumask", "tiles" };
	char path[512];

	for (unsigned int i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/esp_0/%s", fake_dir, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/esp_0", fake_dir);
	rmdir(path);
	rmdir(fake_dir);
}

/* A fake sysfs with esp_0 of the given shape (one per test process) */
static char *fake_sysfs(const char *rows, const char *cols, const char *tiles)
{
	char *dir = fake_dir;

	if (!mkdtemp(dir))
		return NULL;
	put(dir, "esp_0", "type", "4242\n");
	put(dir, "esp_0", "rows", rows);
	put(dir, "esp_0", "cols", cols);
	put(dir, "esp_0", "cpumask", "0\n");
	put(dir, "esp_0", "tiles", tiles);
	setenv("ESP_MONITOR_SYSFS", dir, 1);
	return dir;
}

TEST(sub_monitor_vals_wraps)
{
	EXPECT_EQ(5u, sub_monitor_vals(5, 10));
	EXPECT_EQ(0u, sub_monitor_vals(7, 7));
	/* ESP's helper returns one less than these */
	EXPECT_EQ(0x20u, sub_monitor_vals(0xfffffff0u, 0x10));
	EXPECT_EQ(1u, sub_monitor_vals(0xffffffffu, 0));
	EXPECT_EQ(0xffffffffu, sub_monitor_vals(1, 0));
}

TEST(diff_borrows_across_64bit_halves)
{
	esp_monitor_vals_t s, e, d;

	memset(&s, 0, sizeof(s));
	memset(&e, 0, sizeof(e));
	s.acc_stats[0].acc_tot_lo = 0xfffffffeu;
	s.acc_stats[0].acc_tot_hi = 6;
	e.acc_stats[0].acc_tot_lo = 3;
	e.acc_stats[0].acc_tot_hi = 7;
	s.acc_stats[0].acc_mem_hi = 1;
	s.noc_queue_full[3][5][4] = 0xffffff00u;
	e.noc_queue_full[3][5][4] = 0x100;
	e.ddr_accesses[0] = 42;
	d = esp_monitor_diff(s, e);
	EXPECT_EQ(5u, d.acc_stats[0].acc_tot_lo);
	EXPECT_EQ(0u, d.acc_stats[0].acc_tot_hi);
	/* 0 - 2^32 wraps at 64 bits */
	EXPECT_EQ(0u, d.acc_stats[0].acc_mem_lo);
	EXPECT_EQ(0xffffffffu, d.acc_stats[0].acc_mem_hi);
	EXPECT_EQ(0x200u, d.noc_queue_full[3][5][4]);
	EXPECT_EQ(42u, d.ddr_accesses[0]);
}

TEST(no_pmu)
{
	esp_monitor_args_t args = { .read_mode = ESP_MON_READ_ALL };
	esp_monitor_vals_t vals;
	char dir[] = "/tmp/espmon_empty_XXXXXX";

	ASSERT_NE(NULL, mkdtemp(dir));
	setenv("ESP_MONITOR_SYSFS", dir, 1);
	setenv("ESP_MONITOR_QUIET", "1", 1);
	esp_monitor_free();
	EXPECT_EQ((unsigned int)ENODEV, esp_monitor(args, &vals));
	EXPECT_EQ(-ENODEV, esp_monitor_error());
	/* the full message: where it looked, and why there is nothing */
	EXPECT_NE(NULL, strstr(esp_monitor_errmsg(), "no ESP PMU: no esp_<n> in /tmp/espmon_empty_"));
	EXPECT_NE(NULL, strstr(esp_monitor_errmsg(), access("/sys/module/esp_pmu", F_OK) ?
			       "esp_pmu is not loaded" : "esp_pmu is loaded but has no device"));
	args.read_mode = ESP_MON_READ_MANY;
	args.read_mask = 1 << ESP_MON_READ_DDR_ACCESSES;
	EXPECT_EQ((unsigned int)ENODEV, esp_monitor(args, &vals));
	args.read_mode = ESP_MON_READ_SINGLE;
	EXPECT_EQ(0u, esp_monitor(args, NULL));
	EXPECT_EQ(-ENODEV, esp_monitor_error());
	EXPECT_EQ(-ENODEV, esp_monitor_select("esp_7"));
	EXPECT_NE(NULL, strstr(esp_monitor_errmsg(), "esp_7: no ESP PMU of that name"));
	EXPECT_NE(NULL, strstr(esp_monitor_strerror(-ENODEV), "esp_pmu"));
	EXPECT_EQ(NULL, strstr(esp_monitor_strerror(-ENODEV), "is esp_pmu loaded?"));
	/* a call that succeeds clears it */
	EXPECT_NE(NULL, esp_monitor_vals_alloc());
	EXPECT_EQ(0, esp_monitor_error());
	EXPECT_STREQ("", esp_monitor_errmsg());
	esp_monitor_select(NULL);
	esp_monitor_free();
	rmdir(dir);
}

TEST(soc_too_large_for_limits)
{
	esp_monitor_args_t args = { .read_mode = ESP_MON_READ_ALL };
	esp_monitor_vals_t vals;

	setenv("ESP_MONITOR_QUIET", "1", 1);
	ASSERT_NE(NULL, fake_sysfs("2\n", "3\n", "cpu mem acc io mem acc\n"));
	esp_monitor_free();
	EXPECT_EQ((unsigned int)EOVERFLOW, esp_monitor(args, &vals));
	EXPECT_EQ(-EOVERFLOW, esp_monitor_error());
	esp_monitor_free();
	unfake();
}

/* The PMU's type is fake: opening events fails, with an error, not a crash */
TEST(open_fails_cleanly)
{
	esp_monitor_args_t args = { .read_mode = ESP_MON_READ_ALL };
	esp_monitor_vals_t vals;

	setenv("ESP_MONITOR_QUIET", "1", 1);
	ASSERT_NE(NULL, fake_sysfs("2\n", "2\n", "cpu mem acc io\n"));
	esp_monitor_free();
	EXPECT_NE(0u, esp_monitor(args, &vals));
	EXPECT_GT(0, esp_monitor_error());
	esp_monitor_free();
	unfake();
}

static int count_lines(const char *path, const char *needle)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

TEST(print_layout_many)
{
	esp_monitor_args_t args = {
		.read_mode = ESP_MON_READ_MANY,
		.read_mask = 1 << ESP_MON_READ_LLC_STATS | 1 << ESP_MON_READ_ACC_STATS |
			     1 << ESP_MON_READ_NOC_QUEUE_FULL_PLANE,
		.noc_index = 2,
	};
	static const char *const want[] = {
		"",
		"***************************************************",
		"******************ESP MONITOR STATS****************",
		"***************************************************",
		"",
		"********************MEMORY STATS*******************",
		"",
		"********************CACHE STATS********************",
		"Hits at LLC 0: 3000000000",
		"Misses at LLC 0: 7",
		"",
		"****************ACCELERATOR STATS******************",
		"Accelerator 0 TLB-loading cycles: 1",
		"Accelerator 0 mem cycles: 4294967298",
		"Accelerator 0 total cycles: 3",
		"Accelerator 0 invocations: 4",
		"",
		"*********************DVFS STATS********************",
		"",
		"*********************NOC STATS*********************",
	};
	char path[] = "/tmp/espmon_print_XXXXXX", line[256];
	esp_monitor_vals_t vals;
	unsigned int i = 0, qf = 0;
	FILE *f;
	int fd;

	setenv("ESP_MONITOR_QUIET", "1", 1);
	ASSERT_NE(NULL, fake_sysfs("2\n", "2\n", "cpu mem acc io\n"));
	esp_monitor_free();
	memset(&vals, 0, sizeof(vals));
	vals.llc_stats[0].hits = 3000000000u;
	vals.llc_stats[0].misses = 7;
	vals.acc_stats[0] = (esp_acc_stats_t){ 1, 2, 1, 3, 0, 4 };
	for (unsigned int t = 0; t < SOC_NTILES; t++)
		for (unsigned int q = 0; q < NOC_QUEUES; q++)
			vals.noc_queue_full[t][2][q] = 10 * t + q;
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w+");
	ASSERT_NE(NULL, f);
	esp_monitor_print(args, vals, f);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (i < sizeof(want) / sizeof(want[0])) {
			EXPECT_STREQ(want[i], line) TH_LOG("line %u", i + 1);
		} else {
			char exp[128];
			unsigned int t = qf / NOC_QUEUES, q = qf % NOC_QUEUES;

			snprintf(exp, sizeof(exp),
				 "NoC backpressure cycles at tile %u on plane 2 for queue %u: %u",
				 t, q, 10 * t + q);
			EXPECT_STREQ(exp, line);
			qf++;
		}
		i++;
	}
	EXPECT_EQ(4u * NOC_QUEUES, qf);
	fclose(f);
	EXPECT_EQ(0, count_lines(path, "L2"));
	unlink(path);
	esp_monitor_free();
	unfake();
}

TEST_HARNESS_MAIN
