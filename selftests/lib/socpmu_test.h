/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic userspace helpers for the socpmu selftests: simulator control
 * (new_device/del_device, the per-device debugfs files), finding the PMU a
 * driver registered for a simulated device, sysfs reads, perf_event_open
 * wrappers, the perf_event_attr checks every uncore PMU must pass, and
 * module loading.
 *
 * Include it with -I../include from a selftests/<group>/ test as
 * "../lib/socpmu_test.h". Every helper returns 0 (or a value) on success
 * and a negative errno on failure, so that callers can assert exact error
 * codes. Nothing here depends on the kselftest harness or on one PMU.
 */
#ifndef SOCPMU_TEST_H
#define SOCPMU_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define SP_PMU_BUS	"/sys/bus/event_source/devices"
#define SP_SIM_ROOT	"/sys/devices/socpmu_sim"
#define SP_DEBUGFS	"/sys/kernel/debug"
#define SP_SIM_DEBUGFS	SP_DEBUGFS "/socpmu_sim"

#define SP_NAME_LEN	64
#define SP_MAX_PMUS	256

/* config1 of every socpmu PMU: unit (core/tile) in 0-15, "by unit" in 16 */
#define SP_CFG1_UNIT_MASK	0xffffULL
#define SP_CFG1_BYUNIT		(1ULL << 16)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* One simulated device and the PMU its driver registered. */
struct sp_dev {
	char name[SP_NAME_LEN];		/* simulator device name */
	char pmu[SP_NAME_LEN];		/* e.g. esp_3 */
	int type;			/* perf_event_attr.type */
	int cpu;			/* the CPU of the PMU's cpumask, -1 if none */
	bool alive;			/* created and not yet deleted */
};

/* ---- files ---- */

static inline int sp_write_file(const char *path, const char *str)
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

/* Reads a whole (small) file, NUL-terminated; returns its length. */
static inline int sp_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return n < 0 ? -errno : (int)got;
}

static inline int sp_read_u64_file(const char *path, uint64_t *val)
{
	char buf[64], *end;
	int ret = sp_read_file(path, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static inline bool sp_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * How often the kernel log's ring buffer (its recent messages) says
 * @needle, or -errno
 */
static inline int sp_klog_count(const char *needle)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *buf;

	if (len <= 0)
		return len < 0 ? -errno : -ENODATA;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[len] = '\0';
	for (const char *p = buf; (p = strstr(p, needle)); p++)
		n++;
	free(buf);
	return n;
}

static inline uint64_t sp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void sp_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Sleeps until CLOCK_MONOTONIC reaches @t_ns (an sp_now_ns() time). */
static inline void sp_sleep_until(uint64_t t_ns)
{
	struct timespec ts = {
		(time_t)(t_ns / 1000000000ull), (long)(t_ns % 1000000000ull)
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static inline void sp_strip_nl(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

/* ---- PMU sysfs ---- */

static inline int sp_pmu_path(char *buf, size_t len, const struct sp_dev *d,
			      const char *file)
{
	return snprintf(buf, len, SP_PMU_BUS "/%.63s/%.200s", d->pmu, file);
}

static inline int sp_pmu_read(const struct sp_dev *d, const char *file,
			      char *buf, size_t len)
{
	char path[512];

	sp_pmu_path(path, sizeof(path), d, file);
	return sp_read_file(path, buf, len);
}

static inline int sp_pmu_read_u64(const struct sp_dev *d, const char *file,
				  uint64_t *val)
{
	char path[512];

	sp_pmu_path(path, sizeof(path), d, file);
	return sp_read_u64_file(path, val);
}

static inline int sp_pmu_write(const struct sp_dev *d, const char *file,
			       const char *str)
{
	char path[512];

	sp_pmu_path(path, sizeof(path), d, file);
	return sp_write_file(path, str);
}

/* Writes @val in decimal to the PMU's sysfs file @file. */
static inline int sp_pmu_write_u64(const struct sp_dev *d, const char *file, uint64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	return sp_pmu_write(d, file, buf);
}

/* Parses a cpulist ("0", "0-3", "1,4-5"): number of CPUs, first one. */
static inline int sp_parse_cpulist(const char *s, int *first)
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

/* Names of the registered PMUs starting with @prefix ("esp_"). */
static inline int sp_list_pmus(const char *prefix, char names[][SP_NAME_LEN], int max)
{
	DIR *dir = opendir(SP_PMU_BUS);
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(names[n++], SP_NAME_LEN, "%.63s", de->d_name);
	}
	closedir(dir);
	return n;
}

static inline bool sp_name_in(const char *name, char list[][SP_NAME_LEN], int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

/* ---- simulator ---- */

/* 0 if the simulator is loaded and its debugfs is reachable (mounts it). */
static inline int sp_sim_available(void)
{
	if (!sp_path_exists(SP_SIM_ROOT "/new_device"))
		return -ENODEV;
	if (!sp_path_exists(SP_SIM_DEBUGFS))
		mount("debugfs", SP_DEBUGFS, "debugfs", 0, NULL);
	return sp_path_exists(SP_SIM_DEBUGFS) ? 0 : -ENOENT;
}

static inline int sp_sim_new_device(const char *spec)
{
	return sp_write_file(SP_SIM_ROOT "/new_device", spec);
}

static inline int sp_sim_del_device(const char *name)
{
	return sp_write_file(SP_SIM_ROOT "/del_device", name);
}

/* The line of device @name in the simulator's devices file, "" if none. */
static inline int sp_sim_device_line(const char *name, char *line, size_t len)
{
	char buf[16384], *l, *save = NULL;
	size_t n = strlen(name);
	int ret = sp_read_file(SP_SIM_ROOT "/devices", buf, sizeof(buf));

	line[0] = '\0';
	if (ret < 0)
		return ret;
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, name, n) && l[n] == ' ')
			snprintf(line, len, "%s", l);
	return 0;
}

/*
 * The simulator's devices, one "NAME TYPE key=val ..." line each in its
 * devices file: their names and types. Returns the number of devices.
 */
static inline int sp_sim_list_devices(char names[][SP_NAME_LEN], char types[][SP_NAME_LEN],
				      int max)
{
	char buf[16384], *l, *save = NULL;
	int n = 0, ret = sp_read_file(SP_SIM_ROOT "/devices", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	for (l = strtok_r(buf, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, "%63s %63s", names[n], types[n]) == 2)
			n++;
	return n;
}

/* The unit argument of the debugfs files (inject, advance...): "all" for unit < 0. */
static inline void sp_unit_str(char *buf, size_t len, int unit)
{
	if (unit < 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", unit);
}

static inline int sp_debugfs_write(const struct sp_dev *d, const char *file,
				   const char *str)
{
	char path[256];

	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/%s", d->name, file);
	return sp_write_file(path, str);
}

/*
 * Opens one of the device's debugfs files for writing, for a loop that writes
 * it many times (sp_fd_printf): the file descriptor, or -errno. Close it
 * before the device goes (it holds a reference to socpmu_sim).
 */
static inline int sp_debugfs_open(const struct sp_dev *d, const char *file)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/%s", d->name, file);
	fd = open(path, O_WRONLY);
	return fd < 0 ? -errno : fd;
}

/* One command written to @fd (from sp_debugfs_open): 0, or -errno. */
static inline int sp_fd_printf(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int sp_fd_printf(int fd, const char *fmt, ...)
{
	char str[256];
	va_list ap;
	ssize_t n;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(str, sizeof(str), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(str))
		return -EINVAL;
	n = write(fd, str, (size_t)len);
	if (n < 0)
		return -errno;
	return n == len ? 0 : -EIO;
}

/*
 * Debugfs files of a device kept open for the writes of the process that
 * opened them: on the RISC-V bench's lockdep kernel, opening the file for
 * each write (sp_debugfs_write) costs ten times the write. Other processes
 * (forked workers, a harness parent that shares the fixture) write through
 * the path, and never close another process's numbers.
 */
#define SP_KEPT_MAX	2

struct sp_kept {
	const char *file[SP_KEPT_MAX];
	int fd[SP_KEPT_MAX];
	pid_t pid;		/* the process they are open in; 0: none */
};

/* Opens @d's debugfs files @files (NULL-terminated, at most SP_KEPT_MAX) */
static inline void sp_kept_open(struct sp_kept *k, const struct sp_dev *d,
				const char *const files[])
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < SP_KEPT_MAX && files[i]; i++) {
		k->file[i] = files[i];
		k->fd[i] = sp_debugfs_open(d, files[i]);
	}
	k->pid = getpid();
}

static inline void sp_kept_close(struct sp_kept *k)
{
	if (k->pid != getpid())
		return;
	for (int i = 0; i < SP_KEPT_MAX; i++)
		if (k->file[i] && k->fd[i] >= 0)
			close(k->fd[i]);
	memset(k, 0, sizeof(*k));
}

/* sp_debugfs_write(), through @k's open file if this process has it */
static inline int sp_kept_write(const struct sp_kept *k, const struct sp_dev *d,
				const char *file, const char *str)
{
	for (int i = 0; k->pid == getpid() && i < SP_KEPT_MAX; i++)
		if (k->file[i] && !strcmp(k->file[i], file) && k->fd[i] >= 0)
			return sp_fd_printf(k->fd[i], "%s", str);
	return sp_debugfs_write(d, file, str);
}

static inline int sp_debugfs_read(const struct sp_dev *d, const char *file,
				  char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/%s", d->name, file);
	return sp_read_file(path, buf, len);
}

__attribute__((format(printf, 3, 4)))
static inline int sp_debugfs_printf(const struct sp_dev *d, const char *file,
				    const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sp_debugfs_write(d, file, buf);
}

/* The model's register access counters ("regs"): "reads R\nwrites W\n". */
static inline int sp_regs(const struct sp_dev *d, uint64_t *reads, uint64_t *writes)
{
	unsigned long long r, w;
	char buf[128];
	int ret = sp_debugfs_read(d, "regs", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (sscanf(buf, "reads %llu writes %llu", &r, &w) != 2)
		return -EINVAL;
	*reads = r;
	*writes = w;
	return 0;
}

static inline int sp_regs_reset(const struct sp_dev *d)
{
	return sp_debugfs_write(d, "regs", "0");
}

/* Result of sp_poll_stalled() */
struct sp_poll_duty {
	uint64_t reads, writes;	/* register accesses while measuring */
	double ms;		/* how long it measured */
	double polls;		/* reads / reads of one poll */
	double stalled;		/* stalled accesses x stall / time */
};

/**
 * sp_poll_stalled() - how much of the time a PMU's wrap poll stalls
 * @d: the simulated device, whose PMU has events counting, opened after
 *	its poll_interval_us was set to the shortest period (100 us: a new
 *	period takes effect at the next expiry, seconds away at the default);
 *	nothing else may access its registers meanwhile
 * @knob: the model's debugfs stall: "read_delay_ns" (every register model)
 *	or "cfg_delay_ns" (a card's window programming, which stalls writes)
 * @stall_ns: the stall of one access
 * @per_poll: register reads of one poll
 * @res: the measurement
 *
 * Stalls each access by @stall_ns: at the shortest period, a poll of
 * several stalled accesses would keep its CPU all the time if the period
 * did not stretch. Measures for at least 600 ms and three polls, once two
 * polls went by (the first may have begun before the stall), each wait
 * giving up after 10 s (a loaded host makes every poll slower, and the
 * period with it). The stalled accesses times the stall are a lower bound
 * of the time the polls took. The stall is 0 again afterwards.
 *
 * Return: 0, or a negative errno.
 */
static inline int sp_poll_stalled(const struct sp_dev *d, const char *knob,
				  unsigned int stall_ns, uint64_t per_poll,
				  struct sp_poll_duty *res)
{
	bool writes = !strcmp(knob, "cfg_delay_ns");
	uint64_t t0, t = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = sp_debugfs_printf(d, knob, "%u", stall_ns);
	if (!ret)
		ret = sp_regs_reset(d);
	for (int i = 0; !ret && i < 200 && res->reads < 2 * per_poll; i++) {
		sp_sleep_ms(50);
		ret = sp_regs(d, &res->reads, &res->writes);
	}
	if (!ret && res->reads < 2 * per_poll)
		ret = -ETIMEDOUT;
	if (!ret)
		ret = sp_regs_reset(d);
	t0 = sp_now_ns();
	while (!ret) {
		sp_sleep_ms(100);
		ret = sp_regs(d, &res->reads, &res->writes);
		t = sp_now_ns() - t0;
		if ((t >= 600000000 && res->reads >= 3 * per_poll) || t >= 10000000000ULL)
			break;
	}
	if (sp_debugfs_printf(d, knob, "0") && !ret)
		ret = -EIO;
	if (ret)
		return ret;
	res->ms = (double)t / 1e6;
	res->polls = (double)res->reads / (double)per_poll;
	res->stalled = (double)(writes ? res->writes : res->reads) * stall_ns / (double)t;
	return 0;
}

/*
 * Creates the simulated device "@type name=@name @params" and finds the
 * PMU its driver registered: the @prefix* entry of the event_source bus
 * that was not there before. On failure after creation the device is left
 * alive (d->alive) for the caller to delete.
 */
/*
 * Identity of a registered PMU: the inode of its "type" file. A PMU freed
 * and another registered under the same name (and perf type) has a new one.
 */
static inline ino_t sp_pmu_ino(const char *pmu)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%.63s/type", SP_PMU_BUS, pmu);
	return stat(path, &st) ? 0 : st.st_ino;
}

/*
 * The children of the simulated devices (the devices real drivers bind
 * to), as /sys/devices/socpmu_sim/<sim device>/<child>/uevent paths in @g.
 * Every device has a uevent file; a modalias file, which the glob took
 * before, the auxiliary bus of 6.12 does not give its devices, so a
 * refused card's tensix_noc child went unseen and sp_dev_create() waited
 * its 5 s for the PMU. The "driver" and "subsystem" links of a device
 * match too: sp_sim_probe_refused() skips them.
 */
static inline int sp_sim_children(glob_t *g)
{
	int ret = glob(SP_SIM_ROOT "/*/*/uevent", 0, NULL, g);

	if (ret == GLOB_NOMATCH)
		g->gl_pathc = 0;
	else if (ret)
		return -ENOMEM;
	return 0;
}

/*
 * Did the drivers refuse the device whose children are the paths of @after
 * not in @before? The simulator and the socpmu drivers probe synchronously,
 * so once new_device has returned, a child that is not bound and not
 * waiting for deferred probing will not bind: no PMU is coming.
 */
static inline bool sp_sim_probe_refused(const glob_t *before, const glob_t *after)
{
	char deferred[4096] = "", path[600];
	bool any = false;

	sp_read_file(SP_DEBUGFS "/devices_deferred", deferred, sizeof(deferred));
	for (size_t i = 0; i < after->gl_pathc; i++) {
		const char *child = after->gl_pathv[i];
		size_t len = strlen(child) - strlen("/uevent");
		struct stat st;
		bool old = false;

		for (size_t j = 0; j < before->gl_pathc && !old; j++)
			old = !strcmp(child, before->gl_pathv[j]);
		snprintf(path, sizeof(path), "%.*s", (int)len, child);
		/* not a device: the sim device's driver or subsystem link */
		if (old || lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "%.*s/driver", (int)len, child);
		if (sp_path_exists(path))
			return false;	/* bound: its PMU is there or on its way */
		snprintf(path, sizeof(path), "%.*s", (int)len, child);
		if (strstr(deferred, strrchr(path, '/') + 1))
			return false;
		any = true;
	}
	return any;
}

/*
 * Creates the simulated device "@type name=@name @params" into @d (name and
 * alive set, no PMU looked for: e.g. trace devices, which feed their
 * module's one sifive_trace PMU): 0 or -errno. sp_dev_delete() removes it.
 */
static inline int sp_dev_new(struct sp_dev *d, const char *type, const char *name,
			     const char *params)
{
	char spec[512];
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(spec, sizeof(spec), "%s name=%s %s", type, name, params ? params : "");
	ret = sp_sim_new_device(spec);
	if (!ret)
		d->alive = true;
	return ret;
}

static inline int sp_dev_create(struct sp_dev *d, const char *type, const char *name,
				const char *params, const char *prefix)
{
	static char before[SP_MAX_PMUS][SP_NAME_LEN], after[SP_MAX_PMUS][SP_NAME_LEN];
	static ino_t ino_before[SP_MAX_PMUS];
	char buf[256];
	glob_t children;
	int nb, na, ret, ncpus;
	uint64_t ptype;

	nb = sp_list_pmus(prefix, before, SP_MAX_PMUS);
	if (nb < 0)
		nb = 0;
	for (int i = 0; i < nb; i++)
		ino_before[i] = sp_pmu_ino(before[i]);
	if (sp_sim_children(&children))
		return -ENOMEM;
	ret = sp_dev_new(d, type, name, params);
	if (ret) {
		globfree(&children);
		return ret;
	}

	/*
	 * Wait up to 5 s for the PMU (probing may be deferred), unless the
	 * drivers refused the device's children.
	 */
	for (int tries = 0; tries < 500 && !d->pmu[0]; tries++) {
		glob_t now;

		if (tries == 1 && !sp_sim_children(&now)) {
			bool refused = sp_sim_probe_refused(&children, &now);

			globfree(&now);
			if (refused)
				break;
		}
		na = sp_list_pmus(prefix, after, SP_MAX_PMUS);
		for (int i = 0; i < na; i++) {
			ino_t ino = sp_pmu_ino(after[i]);
			/*
			 * New: a new name, or a dead PMU's name taken again.
			 * Not a PMU whose type file is gone: a dead one being
			 * unregistered as we look (it was taken for the new
			 * one, whose type then read ENOENT).
			 */
			bool seen = !ino;

			for (int j = 0; j < nb && !seen; j++)
				seen = !strcmp(after[i], before[j]) && ino == ino_before[j];
			if (!seen) {
				snprintf(d->pmu, sizeof(d->pmu), "%.63s", after[i]);
				break;
			}
		}
		if (!d->pmu[0])
			usleep(10000);
	}
	globfree(&children);
	if (!d->pmu[0])
		return -ENODEV;
	ret = sp_pmu_read_u64(d, "type", &ptype);
	if (ret)
		return ret;
	d->type = (int)ptype;
	ret = sp_pmu_read(d, "cpumask", buf, sizeof(buf));
	if (ret == -ENOENT) {
		/* A CPU PMU (sifive_hpm): per task or per CPU, no cpumask */
		d->cpu = -1;
		return 0;
	}
	if (ret < 0)
		return ret;
	ncpus = sp_parse_cpulist(buf, &d->cpu);
	return ncpus < 0 ? ncpus : 0;
}

static inline int sp_dev_delete(struct sp_dev *d)
{
	int ret;

	if (!d->alive)
		return 0;
	ret = sp_sim_del_device(d->name);
	if (!ret || ret == -ENOENT)
		d->alive = false;
	return ret;
}

/* ---- perf_event_open ---- */

static inline int sp_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				     int group_fd, unsigned long flags)
{
	int fd = (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : fd;
}

/* config1 for the sum of every unit (unit < 0), unit 0 or unit N */
static inline uint64_t sp_cfg1_unit(int unit)
{
	if (unit < 0)
		return 0;
	return SP_CFG1_BYUNIT | (uint64_t)unit;
}

/*
 * config1 for unit N as perf encodes "unit=N": the unit alone, the by-unit
 * flag only for unit 0 (which perf cannot tell from no unit); the sum of
 * every unit for unit < 0.
 */
static inline uint64_t sp_cfg1_unit_short(int unit)
{
	if (unit < 0)
		return 0;
	if (unit == 0)
		return SP_CFG1_BYUNIT;
	return (uint64_t)unit;
}

static inline void sp_attr_init(struct perf_event_attr *attr, const struct sp_dev *d,
				uint64_t config, uint64_t config1)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = (uint32_t)d->type;
	attr->config = config;
	attr->config1 = config1;
}

/* A counting, system-wide event on the PMU's CPU: fd or -errno. */
static inline int sp_open(const struct sp_dev *d, uint64_t config, uint64_t config1,
			  int group_fd, uint64_t read_format)
{
	struct perf_event_attr attr;

	sp_attr_init(&attr, d, config, config1);
	attr.read_format = read_format;
	return sp_perf_event_open(&attr, -1, d->cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Opens and closes an event: 0 or -errno. */
static inline int sp_try_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			      int group_fd)
{
	int fd = sp_perf_event_open(attr, pid, cpu, group_fd, 0);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* One open of sp_attr_checks(): what was tried, the result due and the result got. */
struct sp_attr_check {
	char what[32];
	int want, got;		/* 0 or -errno */
};

#define SP_ATTR_CHECKS_MAX	16

/* sp_attr_checks() flags */
#define SP_ATTR_HOST_GUEST	(1u << 0)	/* exclude_host and exclude_guest too */

/*
 * sp_attr_checks() - the perf_event_attr checks of a counting-only,
 * system-wide (uncore) PMU. The event @config/@config1 of @d must open on
 * d->cpu as a plain counter; sampling (sample_period, or freq with
 * sample_freq) must fail with EOPNOTSUPP; exclude_user, exclude_kernel,
 * exclude_hv, exclude_idle (with SP_ATTR_HOST_GUEST also exclude_host and
 * exclude_guest) with EINVAL; per-task counting (pid 0 on any CPU or on
 * d->cpu) with EINVAL.
 *
 * Opens every case in that order (closing what opens) and fills @c with up
 * to @max results (SP_ATTR_CHECKS_MAX is enough); the caller compares want
 * with got. Returns the number of results.
 */
static inline int sp_attr_checks(const struct sp_dev *d, uint64_t config, uint64_t config1,
				 unsigned int flags, struct sp_attr_check *c, int max)
{
	static const struct {
		const char *what;
		struct perf_event_attr set;	/* the fields the case sets */
		int err;
		unsigned int flag;		/* checked only with this flag, if any */
	} cases[] = {
		{ "valid event",    { 0 }, 0, 0 },
		{ "sample_period",  { .sample_period = 100000 }, -EOPNOTSUPP, 0 },
		{ "sample_freq",    { .freq = 1, .sample_freq = 10 }, -EOPNOTSUPP, 0 },
		{ "exclude_user",   { .exclude_user = 1 }, -EINVAL, 0 },
		{ "exclude_kernel", { .exclude_kernel = 1 }, -EINVAL, 0 },
		{ "exclude_hv",     { .exclude_hv = 1 }, -EINVAL, 0 },
		{ "exclude_idle",   { .exclude_idle = 1 }, -EINVAL, 0 },
		{ "exclude_host",   { .exclude_host = 1 }, -EINVAL, SP_ATTR_HOST_GUEST },
		{ "exclude_guest",  { .exclude_guest = 1 }, -EINVAL, SP_ATTR_HOST_GUEST },
	};
	struct perf_event_attr attr;
	int cpus[2] = { -1, -1 }, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases) && n < max; i++) {
		if (cases[i].flag && !(flags & cases[i].flag))
			continue;
		attr = cases[i].set;
		attr.size = sizeof(attr);
		attr.type = (uint32_t)d->type;
		attr.config = config;
		attr.config1 = config1;
		snprintf(c[n].what, sizeof(c[n].what), "%s", cases[i].what);
		c[n].want = cases[i].err;
		c[n].got = sp_try_open(&attr, -1, d->cpu, -1);
		n++;
	}

	/* per-task counting: this process, on any CPU or on the PMU's CPU */
	sp_attr_init(&attr, d, config, config1);
	cpus[1] = d->cpu;
	for (size_t i = 0; i < ARRAY_SIZE(cpus) && n < max; i++, n++) {
		snprintf(c[n].what, sizeof(c[n].what), "pid 0, cpu %d", cpus[i]);
		c[n].want = -EINVAL;
		c[n].got = sp_try_open(&attr, 0, cpus[i], -1);
	}
	return n;
}

/* Reads a plain counter (read_format 0). */
static inline int sp_read_count(int fd, uint64_t *val)
{
	ssize_t n = read(fd, val, sizeof(*val));

	if (n < 0)
		return -errno;
	return n == sizeof(*val) ? 0 : -EIO;
}

/* Reads a PERF_FORMAT_GROUP group (no ids, no times): number of values. */
static inline int sp_read_group(int fd, uint64_t *vals, int max)
{
	uint64_t buf[1 + 512];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < (ssize_t)sizeof(uint64_t))
		return n < 0 ? -errno : -EIO;
	if (buf[0] > (uint64_t)max || (size_t)n < (1 + buf[0]) * sizeof(uint64_t))
		return -EIO;
	memcpy(vals, &buf[1], buf[0] * sizeof(uint64_t));
	return (int)buf[0];
}

/* A counter read with PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING */
struct sp_count {
	uint64_t value, enabled, running;
};

#define SP_FORMAT_TIMES	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static inline int sp_read_times(int fd, struct sp_count *c)
{
	ssize_t n = read(fd, c, sizeof(*c));

	if (n < 0)
		return -errno;
	return n == sizeof(*c) ? 0 : -EIO;
}

/* ---- modules ---- */

static inline bool sp_module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return sp_path_exists(path);
}

/* Loads module @name with modprobe unless it is there (or built in). */
static inline void sp_module_load(const char *name)
{
	char cmd[128];

	if (sp_module_loaded(name))
		return;
	/* failure is not checked here: the callers look for what they need */
	snprintf(cmd, sizeof(cmd), "modprobe %s >/dev/null 2>&1", name);
	system(cmd);
}

/*
 * sp_sim_available() for the tests of PMU driver @module: loads socpmu_sim
 * and @module with modprobe where they are missing. Returns 0, -ENODEV
 * without the simulator, -ENOENT without @module or debugfs.
 */
static inline int sp_sim_available_for(const char *module)
{
	sp_module_load("socpmu_sim");
	sp_module_load(module);
	if (sp_path_exists(SP_SIM_ROOT "/new_device") && !sp_module_loaded(module))
		return -ENOENT;
	return sp_sim_available();
}

/*
 * ---- every socpmu PMU, the simulator's model types, the socpmu modules ----
 *
 * For tests that cover whatever PMUs and modules are there (the reliability
 * tests): nothing below names a PMU driver.
 */

/* Name prefixes of the socpmu PMUs: uncore <prefix><n>, CPU PMUs one name */
static const char *const sp_pmu_prefixes[] = { "tensix_", "pulp_", "esp_", "sifive_" };

static inline bool sp_is_socpmu(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sp_pmu_prefixes); i++)
		if (!strncmp(name, sp_pmu_prefixes[i], strlen(sp_pmu_prefixes[i])))
			return true;
	return false;
}

static inline int sp_cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every registered socpmu PMU, sorted by name: how many. */
static inline int sp_list_socpmu(char names[][SP_NAME_LEN], int max)
{
	DIR *dir = opendir(SP_PMU_BUS);
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max)
		if (sp_is_socpmu(de->d_name))
			snprintf(names[n++], SP_NAME_LEN, "%.63s", de->d_name);
	closedir(dir);
	qsort(names, n, SP_NAME_LEN, sp_cmp_name);
	return n;
}

/* The model types new_device accepts (the simulator's "types" file). */
static inline int sp_sim_types(char types[][SP_NAME_LEN], int max)
{
	char buf[1024], *t, *save = NULL;
	int n = 0, ret = sp_read_file(SP_SIM_ROOT "/types", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	for (t = strtok_r(buf, " \n", &save); t && n < max; t = strtok_r(NULL, " \n", &save))
		snprintf(types[n++], SP_NAME_LEN, "%.63s", t);
	return n;
}

/*
 * The socpmu modules: every module `make install` put in
 * /lib/modules/$(uname -r)/updates/socpmu, in load order (dependencies first,
 * from modules.dep).
 */
#define SP_MAX_MODS	32
#define SP_MOD_DIR	"updates/socpmu/"

struct sp_mod {
	char name[SP_NAME_LEN];		/* tensix_pmu */
	char path[256];			/* /lib/modules/<release>/updates/socpmu/tensix_pmu.ko */
	char deps[512];			/* " a b " names of the modules it needs */
};

static inline void sp_mod_name(char *name, const char *path)
{
	const char *base = strrchr(path, '/');

	snprintf(name, SP_NAME_LEN, "%.63s", base ? base + 1 : path);
	name[strcspn(name, ".")] = '\0';
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

static inline bool sp_mod_needs(const struct sp_mod *m, const char *name)
{
	char word[SP_NAME_LEN + 2];

	snprintf(word, sizeof(word), " %.63s ", name);
	return strstr(m->deps, word);
}

static inline int sp_mod_list(struct sp_mod *mods, int max)
{
	struct sp_mod tmp[SP_MAX_MODS];
	char path[256], line[1024], *dep, *save;
	bool done[SP_MAX_MODS] = { false };
	struct utsname uts;
	int n = 0, out = 0;
	FILE *f;

	uname(&uts);
	snprintf(path, sizeof(path), "/lib/modules/%.64s/modules.dep", uts.release);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && n < SP_MAX_MODS) {
		struct sp_mod *m = &tmp[n];
		char *colon = strchr(line, ':');

		if (strncmp(line, SP_MOD_DIR, strlen(SP_MOD_DIR)) || !colon)
			continue;
		*colon = '\0';
		snprintf(m->path, sizeof(m->path), "/lib/modules/%.64s/%.160s", uts.release, line);
		sp_mod_name(m->name, line);
		snprintf(m->deps, sizeof(m->deps), " ");
		save = NULL;
		for (dep = strtok_r(colon + 1, " \n", &save); dep; dep = strtok_r(NULL, " \n", &save)) {
			char name[SP_NAME_LEN];
			size_t len = strlen(m->deps);

			sp_mod_name(name, dep);
			snprintf(m->deps + len, sizeof(m->deps) - len, "%s ", name);
		}
		n++;
	}
	fclose(f);
	/* Topological order: a module once every module it needs is placed */
	while (out < n && out < max) {
		int placed = out;

		for (int i = 0; i < n && out < max; i++) {
			bool ready = !done[i];

			for (int j = 0; ready && j < n; j++)
				if (!done[j] && j != i && sp_mod_needs(&tmp[i], tmp[j].name))
					ready = false;
			if (ready) {
				mods[out++] = tmp[i];
				done[i] = true;
			}
		}
		if (out == placed)
			return -ELOOP;
	}
	return out;
}

/* References held on a loaded module, -errno if it is not loaded */
static inline int sp_mod_refcnt(const char *name)
{
	char path[128];
	uint64_t val;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	ret = sp_read_u64_file(path, &val);
	return ret ? ret : (int)val;
}

/* Loads a module file without parameters: 0 or -errno (-EEXIST if loaded). */
/* Load module @m with the parameters @params ("a=1 b=2,3"): 0 or -errno */
static inline int sp_mod_load_params(const struct sp_mod *m, const char *params)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = (int)syscall(__NR_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static inline int sp_mod_load(const struct sp_mod *m)
{
	return sp_mod_load_params(m, "");
}

/* rmmod without waiting: 0, or -EWOULDBLOCK/-EBUSY while in use, -ENOENT. */
static inline int sp_mod_unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/*
 * sp_mod_unload() again every 50 ms until it works or @ms have passed (the
 * last references of closed events go after an RCU grace period, a pin at
 * its next check): 0 or the last error.
 */
static inline int sp_mod_unload_wait(const char *name, int ms)
{
	int ret = sp_mod_unload(name);

	for (int t = 0; ret && t < ms; t += 50) {
		sp_sleep_ms(50);
		ret = sp_mod_unload(name);
	}
	return ret;
}

/* Loads every module that is not loaded yet: 0 or the first error. */
static inline int sp_mod_load_all(const struct sp_mod *mods, int n)
{
	for (int i = 0; i < n; i++) {
		int ret = sp_mod_load(&mods[i]);

		if (ret && ret != -EEXIST)
			return ret;
	}
	return 0;
}

/* Unloads every loaded module, dependents first: 0 or the first error. */
static inline int sp_mod_unload_all(const struct sp_mod *mods, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		int ret = sp_mod_unload(mods[i].name);

		if (ret && ret != -ENOENT)
			return ret;
	}
	return 0;
}

#endif /* SOCPMU_TEST_H */
