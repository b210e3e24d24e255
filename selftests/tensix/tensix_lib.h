/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace helpers shared by the Tensix PMU selftest and benchmark:
 * simulator control (new_device/del_device, debugfs inject/advance/regs),
 * PMU discovery in sysfs, and perf_event_open wrappers.
 *
 * Every helper returns 0 (or a value) on success and a negative errno on
 * failure, so that callers can both assert success and check exact error
 * codes. Nothing here depends on the kselftest harness.
 */
#ifndef TENSIX_LIB_H
#define TENSIX_LIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <socpmu/tensix_regs.h>
#include <socpmu/unit.h>

#define PMU_BUS		"/sys/bus/event_source/devices"
#define SIM_ROOT	"/sys/devices/socpmu_sim"
#define DEBUGFS		"/sys/kernel/debug"
#define SIM_DEBUGFS	DEBUGFS "/socpmu_sim"

#define TDEV_NAME_LEN	64
#define TDEV_MAX_PMUS	256

/* One simulated Tensix device and the PMU the driver registered for it. */
struct tdev {
	char name[TDEV_NAME_LEN];	/* simulator device name */
	char pmu[TDEV_NAME_LEN];	/* tensix_<n> */
	int type;			/* perf_event_attr.type */
	int cpu;			/* the CPU in the PMU's cpumask */
	int cores;
	int mux_values;			/* 2 on wormhole, 8 on blackhole */
	bool alive;			/* created and not yet deleted */
};

/* The 94 counters of the seed, from the shared X-macro table. */
struct tev {
	const char *name;
	unsigned int bank;
	unsigned int id;
	unsigned int mux;
};

#define TEV_ENTRY(n, b, i, m) { #n, TENSIX_BANK_##b, (i), (m) },
static const struct tev tensix_events[] = { TENSIX_EVENTS(TEV_ENTRY) };
#undef TEV_ENTRY

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif


static const char *const tensix_bank_names[TENSIX_NR_BANKS] = TENSIX_BANK_NAMES;

static inline const struct tev *tev_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tensix_events); i++)
		if (!strcmp(tensix_events[i].name, name))
			return &tensix_events[i];
	return NULL;
}

/* Simulator inject id of a counter: L1 signals are mux * 8 + counter id. */
static inline unsigned int tev_signal(const struct tev *e)
{
	return e->bank == TENSIX_BANK_L1 ?
		e->mux * TENSIX_L1_IDS_PER_MUX + e->id : e->id;
}

/* ---- perf_event_attr encoding (SPEC: config/config1 layout) ---- */

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

/* config1 for "all cores" (core < 0), core 0 (bycore=1) or core N. */
static inline uint64_t cfg1_core(int core)
{
	if (core < 0)
		return 0;
	if (core == 0)
		return SOCPMU_CFG1_BYUNIT;
	return (uint64_t)core;
}

/* ---- small file helpers ---- */

static inline int write_file(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, str, strlen(str));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(str))
		ret = -EIO;
	close(fd);
	return ret;
}

/* Reads a whole (small) file, NUL-terminated, trailing newline kept. */
static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return n < 0 ? -errno : (int)got;
}

static inline int read_u64_file(const char *path, uint64_t *val)
{
	char buf[64], *end;
	int ret = read_file(path, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static inline bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- PMU sysfs ---- */

static inline int pmu_path(char *buf, size_t len, const struct tdev *d,
			   const char *file)
{
	return snprintf(buf, len, PMU_BUS "/%.63s/%.200s", d->pmu, file);
}

static inline int pmu_read(const struct tdev *d, const char *file, char *buf,
			   size_t len)
{
	char path[512];

	pmu_path(path, sizeof(path), d, file);
	return read_file(path, buf, len);
}

static inline int pmu_write(const struct tdev *d, const char *file,
			    const char *str)
{
	char path[512];

	pmu_path(path, sizeof(path), d, file);
	return write_file(path, str);
}

static inline int pmu_read_u64(const struct tdev *d, const char *file,
			       uint64_t *val)
{
	char path[512];

	pmu_path(path, sizeof(path), d, file);
	return read_u64_file(path, val);
}

static inline int pmu_write_u64(const struct tdev *d, const char *file,
				uint64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	return pmu_write(d, file, buf);
}

/*
 * Parses a cpulist ("0", "0-3", "1,4-5"). Returns the number of CPUs and
 * stores the first one, or -EINVAL.
 */
static inline int parse_cpulist(const char *s, int *first)
{
	int count = 0;

	*first = -1;
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s || lo < 0)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -EINVAL;
		}
		if (*first < 0)
			*first = (int)lo;
		count += (int)(hi - lo + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return count ? count : -EINVAL;
}

/* Names of the tensix_* PMUs currently registered. */
static inline int list_tensix_pmus(char names[][TDEV_NAME_LEN], int max)
{
	DIR *dir = opendir(PMU_BUS);
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		if (strncmp(de->d_name, "tensix_", 7))
			continue;
		snprintf(names[n++], TDEV_NAME_LEN, "%.63s", de->d_name);
	}
	closedir(dir);
	return n;
}

static inline bool name_in(const char *name, char list[][TDEV_NAME_LEN], int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

/* ---- simulator control ---- */

static inline bool module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return path_exists(path);
}

/* Loads a module with modprobe unless it is there (or built in). */
static inline void module_load(const char *name)
{
	char cmd[128];

	if (module_loaded(name))
		return;
	/* failure is not checked here: the callers look for what they need */
	snprintf(cmd, sizeof(cmd), "modprobe %s >/dev/null 2>&1", name);
	system(cmd);
}

/*
 * Makes sure the simulator and the Tensix driver are there (loading them
 * if needed) and debugfs is mounted. Returns 0 or -errno.
 */
static inline int sim_available(void)
{
	module_load("socpmu_sim");
	module_load("tensix_pmu");
	if (!path_exists(SIM_ROOT "/new_device"))
		return -ENODEV;
	if (!module_loaded("tensix_pmu"))
		return -ENOENT;
	if (!path_exists(SIM_DEBUGFS))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	return path_exists(SIM_DEBUGFS) ? 0 : -ENOENT;
}

static inline int sim_debugfs_write(const struct tdev *d, const char *file,
				    const char *str)
{
	char path[256];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%s/%s", d->name, file);
	return write_file(path, str);
}

static inline int sim_debugfs_read(const struct tdev *d, const char *file,
				   char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%s/%s", d->name, file);
	return read_file(path, buf, len);
}

static inline void core_str(char *buf, size_t len, int core)
{
	if (core < 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", core);
}

/* "<core|all> <bank> <id> <n>"; core < 0 means all cores. */
static inline int sim_inject(const struct tdev *d, int core, unsigned int bank,
			     unsigned int id, uint64_t n)
{
	char c[16], buf[128];

	core_str(c, sizeof(c), core);
	snprintf(buf, sizeof(buf), "%s %s %u %" PRIu64, c,
		 tensix_bank_names[bank], id, n);
	return sim_debugfs_write(d, "inject", buf);
}

/* "<core|all> <cycles>" */
static inline int sim_advance(const struct tdev *d, int core, uint64_t cycles)
{
	char c[16], buf[64];

	core_str(c, sizeof(c), core);
	snprintf(buf, sizeof(buf), "%s %" PRIu64, c, cycles);
	return sim_debugfs_write(d, "advance", buf);
}

/* Register access counters of the model: "reads R\nwrites W\n". */
static inline int sim_regs(const struct tdev *d, uint64_t *reads,
			   uint64_t *writes)
{
	char buf[128];
	unsigned long long r, w;
	int ret = sim_debugfs_read(d, "regs", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (sscanf(buf, "reads %llu writes %llu", &r, &w) != 2)
		return -EINVAL;
	*reads = r;
	*writes = w;
	return 0;
}

static inline int sim_regs_reset(const struct tdev *d)
{
	return sim_debugfs_write(d, "regs", "0");
}

/*
 * The simulator's devices file, one "NAME TYPE key=val ..." line per
 * device: the names and types. Returns the number of devices.
 */
static inline int sim_list_devices(char names[][TDEV_NAME_LEN],
				   char types[][TDEV_NAME_LEN], int max)
{
	char buf[8192], *line, *save = NULL;
	int n = 0, ret = read_file(SIM_ROOT "/devices", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %63s", names[n], types[n]) == 2)
			n++;
	return n;
}

static inline int sim_new_device(const char *spec)
{
	return write_file(SIM_ROOT "/new_device", spec);
}

static inline int sim_del_device(const char *name)
{
	return write_file(SIM_ROOT "/del_device", name);
}

/*
 * Creates a simulated Tensix device and finds the PMU the driver
 * registered for it: the tensix_* entry that appears in the event_source
 * bus after the creation (devices are probed in creation order, so the
 * only new entry is ours). On failure after creation the device is left
 * alive (d->alive) for the caller to delete.
 */
static inline int tdev_create(struct tdev *d, const char *name, int cores,
			      const char *arch)
{
	char before[TDEV_MAX_PMUS][TDEV_NAME_LEN];
	char after[TDEV_MAX_PMUS][TDEV_NAME_LEN];
	char spec[160], buf[256];
	uint64_t type;
	int nb, na, ret, ncpus;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->cores = cores;
	d->mux_values = strcmp(arch, "blackhole") ?
		1 << TENSIX_MUX_BITS_WORMHOLE : 1 << TENSIX_MUX_BITS_BLACKHOLE;

	nb = list_tensix_pmus(before, TDEV_MAX_PMUS);
	if (nb < 0)
		nb = 0;	/* no PMU registered at all yet */
	snprintf(spec, sizeof(spec), "tensix name=%s cores=%d arch=%s",
		 name, cores, arch);
	ret = sim_new_device(spec);
	if (ret)
		return ret;
	d->alive = true;

	/* Probing may be asynchronous: wait up to 5 s for the PMU. */
	for (int tries = 0; tries < 500 && !d->pmu[0]; tries++) {
		na = list_tensix_pmus(after, TDEV_MAX_PMUS);
		for (int i = 0; i < na; i++) {
			if (!name_in(after[i], before, nb)) {
				snprintf(d->pmu, sizeof(d->pmu), "%.63s", after[i]);
				break;
			}
		}
		if (!d->pmu[0])
			usleep(10000);
	}
	if (!d->pmu[0])
		return -ENODEV;

	ret = pmu_read_u64(d, "type", &type);
	if (ret)
		return ret;
	d->type = (int)type;

	ret = pmu_read(d, "cpumask", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ncpus = parse_cpulist(buf, &d->cpu);
	return ncpus < 0 ? ncpus : 0;
}

static inline int tdev_delete(struct tdev *d)
{
	int ret;

	if (!d->alive)
		return 0;
	ret = sim_del_device(d->name);
	if (!ret || ret == -ENOENT)
		d->alive = false;
	return ret;
}

/* ---- perf_event_open ---- */

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group_fd, unsigned long flags)
{
	int fd = (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
			      flags);

	return fd < 0 ? -errno : fd;
}

static inline void tattr_init(struct perf_event_attr *attr,
			      const struct tdev *d, uint64_t config,
			      uint64_t config1)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = (uint32_t)d->type;
	attr->config = config;
	attr->config1 = config1;
}

/* Counting, system-wide event on the PMU's CPU. Returns fd or -errno. */
static inline int tensix_open_attr(const struct tdev *d,
				   struct perf_event_attr *attr, int group_fd)
{
	return sys_perf_event_open(attr, -1, d->cpu, group_fd, 0);
}

static inline int tensix_open(const struct tdev *d, uint64_t config,
			      uint64_t config1, int group_fd)
{
	struct perf_event_attr attr;

	tattr_init(&attr, d, config, config1);
	return tensix_open_attr(d, &attr, group_fd);
}

/* Reads a plain counter (read_format 0). */
static inline int read_count(int fd, uint64_t *val)
{
	ssize_t n = read(fd, val, sizeof(*val));

	if (n < 0)
		return -errno;
	return n == sizeof(*val) ? 0 : -EIO;
}

#endif /* TENSIX_LIB_H */
