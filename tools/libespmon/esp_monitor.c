// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libespmon: the ESP Monitors API on top of the esp_<n> perf PMU.
 *
 * Discovery: the PMU's sysfs directory gives its perf type, its CPU
 * (cpumask), the SoC's rows and cols and each tile's type (tiles). Tiles
 * are numbered row * cols + col; the n-th cpu, mem and acc tile in that
 * order are CPU n, memory tile n and accelerator n of the API.
 *
 * Reading: the first call that needs a tile opens one counting event per
 * monitor defined on the tile (a 64-bit pair is one event), as one perf
 * group, on the PMU's CPU; a call opens every tile it needs before it
 * reads any of them. Reading the group is one read() that the driver
 * serves from one snapshot of the tile (burst register), so the values of a
 * tile are consistent and the halves of a 64-bit count never tear. The
 * counts start at 0 when the group is opened: like ESP's raw monitor
 * values they only make sense as differences between two calls, and the
 * 32-bit value the API returns is the count modulo 2^32, a free-running
 * counter as on the hardware. The events stay open until esp_monitor_free().
 *
 * Monitors not defined on a tile's type read 0, as on the hardware.
 */
#include "esp_monitor.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <socpmu/esp_regs.h>

#define PMU_BUS			"/sys/bus/event_source/devices"
#define ESPMON_CFG1_BYTILE	(1ULL << 16)	/* esp_<n>'s format/bytile */
#define ESPMON_NAME_LEN		64

_Static_assert(ESP_MON_NR_MONITORS == ESP_NR_MONITORS, "monitor count");
_Static_assert(MON_NOC_QUEUES_FULL_BASE_INDEX == ESP_MON_NOC_QFULL_BASE, "NoC layout");
_Static_assert(MON_ACC_INVOCATIONS == ESP_MON_ACC_INVOCATIONS, "acc layout");

static const struct {
	uint8_t mon;
	uint8_t types;
} espmon_events[] = {
#define ESPMON_EVENT(name, mon, types, is64) { mon, types },
	ESP_EVENTS(ESPMON_EVENT)
#undef ESPMON_EVENT
};

#define ESPMON_NR_EVENTS (sizeof(espmon_events) / sizeof(espmon_events[0]))

static const char *const espmon_type_names[] = ESP_TILE_TYPE_NAMES;

/**
 * struct espmon_tile - one tile's perf group
 * @leader: group leader fd, -1 while the group is not open
 * @nr: events in the group
 * @fd: the events' fds, in group order
 * @mon: first monitor of each event, in group order
 * @count: last count read, by first monitor (0 for undefined monitors)
 */
struct espmon_tile {
	int leader;
	unsigned int nr;
	int fd[ESP_NR_EVENTS];
	uint8_t mon[ESP_NR_EVENTS];
	uint64_t count[ESP_NR_MONITORS];
	uint64_t enabled, running;	/* the group's times at the last read */
};

struct espmon_alloc {
	struct espmon_alloc *next;
	max_align_t vals[];
};

/* Library state, under espmon_lock */
static struct {
	bool found;			/* discovery done */
	char select[ESPMON_NAME_LEN];	/* esp_monitor_select() */
	char pmu[ESPMON_NAME_LEN];
	int type;
	int cpu;
	unsigned int rows, cols, ntiles;
	unsigned int ncpu, nmem, nacc;
	uint8_t *tile_type;
	unsigned int *cpu_tile, *mem_tile, *acc_tile;	/* API index -> tile */
	struct espmon_tile *tiles;
	struct espmon_alloc *allocs;
	unsigned long long reported;	/* kinds already reported on stderr (atomic) */
	/* READ_SINGLE's last half of a 64-bit count, whose snapshot the other half takes */
	bool half_kept;
	unsigned int half_tile, half_mon;
} S;

static pthread_mutex_t espmon_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int espmon_err;	/* last call's error, -errno */
static _Thread_local char espmon_msg[512];	/* and what it was, "" on success */

/* Errors reported on stderr once each; REP_OTHER once for each errno */
enum {
	REP_NODEV = 1, REP_ACCES = 2, REP_OVERFLOW = 4, REP_INVAL = 8, REP_OTHER = 16,
	REP_OTHER_SHIFT = 5,	/* REP_OTHER's bits: 1 << (this + errno) */
};

/* Set the call's error; the first of each kind also goes to stderr. */
static int espmon_fail(int err, unsigned int kind, const char *fmt, ...)
{
	unsigned long long bit = kind;
	va_list ap;

	espmon_err = -err;
	va_start(ap, fmt);
	vsnprintf(espmon_msg, sizeof(espmon_msg), fmt, ap);
	va_end(ap);
	/* The other errors (EMFILE, EIO, ENOMEM...) are a kind each */
	if (kind == REP_OTHER)
		bit = 1ull << (REP_OTHER_SHIFT + (err > 0 && err < 64 - REP_OTHER_SHIFT ? err : 0));
	/* Some callers do not hold espmon_lock: an atomic test and set */
	if (getenv("ESP_MONITOR_QUIET") || (__atomic_fetch_or(&S.reported, bit,
							       __ATOMIC_RELAXED) & bit))
		return err;
	fprintf(stderr, "esp_monitor: %s\n", espmon_msg);
	return err;
}

/* A call starts with no error */
static void espmon_ok(void)
{
	espmon_err = 0;
	espmon_msg[0] = '\0';
}

/*
 * Why there is no ESP PMU: the driver is not loaded, or it is and no ESP
 * device was found (no device-tree node; no simulated SoC).
 */
static const char *espmon_nodev_hint(void)
{
	if (access("/sys/module/esp_pmu", F_OK))
		return "esp_pmu is not loaded (modprobe esp_pmu)";
	return "esp_pmu is loaded but has no device: on hardware the device tree needs an "
	       "\"esp,monitors\" node; under the simulator create a SoC with "
	       "'echo esp > /sys/devices/socpmu_sim/new_device'";
}

static const char *espmon_sysfs(void)
{
	const char *root = getenv("ESP_MONITOR_SYSFS");

	return root && *root ? root : PMU_BUS;
}

/* Read a small sysfs file of the PMU into buf; 0 or -errno */
static int espmon_read_attr(const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", espmon_sysfs(), S.pmu, attr);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n ? 0 : -EINVAL;
}

static int espmon_read_uint(const char *attr, unsigned int *val)
{
	char buf[64], *end;
	unsigned long v;
	int ret = espmon_read_attr(attr, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	v = strtoul(buf, &end, 0);
	if (errno || end == buf || (*end && *end != '\n') || v > INT_MAX)
		return -EINVAL;
	*val = (unsigned int)v;
	return 0;
}

/*
 * Is PMU @name a SoC that is there? The tiles file of a removed one, whose
 * PMU waits for its events to close, fails (ENODEV).
 */
static bool espmon_pmu_there(const char *name)
{
	char path[PATH_MAX], c;
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/tiles", espmon_sysfs(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = read(fd, &c, 1) == 1;
	close(fd);
	return ok;
}

/* The default PMU: the lowest-numbered esp_<n> that is there */
static int espmon_find_pmu(char *name, size_t len)
{
	DIR *dir = opendir(espmon_sysfs());
	struct dirent *de;
	long best = -1, n;
	char *end;

	if (!dir)
		return -ENODEV;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "esp_", 4))
			continue;
		n = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end || n < 0)
			continue;
		if ((best < 0 || n < best) && espmon_pmu_there(de->d_name))
			best = n;
	}
	closedir(dir);
	if (best < 0)
		return -ENODEV;
	snprintf(name, len, "esp_%ld", best);
	return 0;
}

static void espmon_close_all(void)
{
	unsigned int t, i;

	if (!S.tiles)
		return;
	for (t = 0; t < S.ntiles; t++) {
		for (i = 0; i < S.tiles[t].nr; i++)
			close(S.tiles[t].fd[i]);
		S.tiles[t].nr = 0;
		S.tiles[t].leader = -1;
		S.tiles[t].enabled = 0;
		S.tiles[t].running = 0;
	}
}

static void espmon_forget(void)
{
	espmon_close_all();
	free(S.tile_type);
	free(S.cpu_tile);
	free(S.mem_tile);
	free(S.acc_tile);
	free(S.tiles);
	S.tile_type = NULL;
	S.cpu_tile = S.mem_tile = S.acc_tile = NULL;
	S.tiles = NULL;
	S.found = false;
	S.half_kept = false;	/* it was the freed state's */
}

/* Find the PMU and learn the SoC's shape; 0 or a positive errno */
static int espmon_discover(void)
{
	char buf[8192], *tok, *save = NULL;
	const char *want = S.select[0] ? S.select : getenv("ESP_MONITOR_PMU");
	unsigned int t, type;
	int ret, cpu;

	if (S.found)
		return 0;
	if (want && *want)
		snprintf(S.pmu, sizeof(S.pmu), "%s", want);
	else if (espmon_find_pmu(S.pmu, sizeof(S.pmu)))
		return espmon_fail(ENODEV, REP_NODEV, "no ESP PMU: no esp_<n> in %s; %s",
				   espmon_sysfs(), espmon_nodev_hint());

	ret = espmon_read_uint("type", &type);
	if (ret == -ENOENT) {
		char other[ESPMON_NAME_LEN];

		if (!espmon_find_pmu(other, sizeof(other)))
			return espmon_fail(ENODEV, REP_NODEV,
					   "%s: no ESP PMU of that name in %s (%s is one)",
					   S.pmu, espmon_sysfs(), other);
		return espmon_fail(ENODEV, REP_NODEV, "%s: no ESP PMU of that name in %s; %s",
				   S.pmu, espmon_sysfs(), espmon_nodev_hint());
	}
	if (!ret)
		ret = espmon_read_uint("rows", &S.rows);
	if (!ret)
		ret = espmon_read_uint("cols", &S.cols);
	if (!ret && (!S.rows || !S.cols || S.rows * S.cols > 65536))
		ret = -EINVAL;
	if (!ret)
		ret = espmon_read_attr("cpumask", buf, sizeof(buf));
	if (ret)
		return espmon_fail(ENODEV, REP_NODEV, "%s/%s is not an ESP PMU: %s",
				   espmon_sysfs(), S.pmu, strerror(-ret));
	cpu = atoi(buf);	/* a cpulist: its first CPU */
	S.type = (int)type;
	S.cpu = cpu;
	S.ntiles = S.rows * S.cols;

	S.tile_type = calloc(S.ntiles, sizeof(*S.tile_type));
	S.cpu_tile = calloc(S.ntiles, sizeof(*S.cpu_tile));
	S.mem_tile = calloc(S.ntiles, sizeof(*S.mem_tile));
	S.acc_tile = calloc(S.ntiles, sizeof(*S.acc_tile));
	S.tiles = calloc(S.ntiles, sizeof(*S.tiles));
	if (!S.tile_type || !S.cpu_tile || !S.mem_tile || !S.acc_tile || !S.tiles) {
		espmon_forget();
		return espmon_fail(ENOMEM, REP_OTHER, "out of memory");
	}
	for (t = 0; t < S.ntiles; t++)
		S.tiles[t].leader = -1;

	ret = espmon_read_attr("tiles", buf, sizeof(buf));
	S.ncpu = S.nmem = S.nacc = 0;
	for (t = 0, tok = ret ? NULL : strtok_r(buf, " \n", &save); tok && t < S.ntiles;
	     t++, tok = strtok_r(NULL, " \n", &save)) {
		for (type = 0; type < ESP_NR_TILE_TYPES; type++)
			if (!strcmp(tok, espmon_type_names[type]))
				break;
		if (type == ESP_NR_TILE_TYPES)
			break;
		S.tile_type[t] = (uint8_t)type;
		if (type == ESP_TILE_CPU)
			S.cpu_tile[S.ncpu++] = t;
		else if (type == ESP_TILE_MEM)
			S.mem_tile[S.nmem++] = t;
		else if (type == ESP_TILE_ACC)
			S.acc_tile[S.nacc++] = t;
	}
	if (t != S.ntiles || tok) {
		espmon_forget();
		return espmon_fail(ENODEV, REP_NODEV, "%s/%s/tiles does not list %u tiles",
				   espmon_sysfs(), S.pmu, S.rows * S.cols);
	}
	S.found = true;
	return 0;
}

/* Does the SoC fit the program's limits? 0 or a positive errno */
static int espmon_check_layout(const struct espmon_layout *l)
{
	if (S.ntiles > l->rows * l->cols || S.nmem > l->nmem || S.nacc > l->nacc)
		return espmon_fail(EOVERFLOW, REP_OVERFLOW,
				   "%s (%ux%u tiles, %u mem, %u acc) exceeds the limits the program was compiled with (%ux%u, %u mem, %u acc): regenerate esp_monitor_soc.h with gen-soc-header.sh",
				   S.pmu, S.rows, S.cols, S.nmem, S.nacc, l->rows, l->cols,
				   l->nmem, l->nacc);
	return 0;
}

static int espmon_perf_open(unsigned int tile, unsigned int mon, int group_fd)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)S.type;
	attr.config = mon;
	attr.config1 = ESPMON_CFG1_BYTILE | tile;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(__NR_perf_event_open, &attr, -1, S.cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Many tiles need many fds: lift the soft limit to the hard one, once */
static bool espmon_raise_nofile(void)
{
	static bool raised;
	struct rlimit rl;

	if (raised || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return false;
	raised = true;
	rl.rlim_cur = rl.rlim_max;
	return !setrlimit(RLIMIT_NOFILE, &rl);
}

/* Open the group of tile @t; 0 or a positive errno */
static int espmon_open_tile(unsigned int t)
{
	struct espmon_tile *et = &S.tiles[t];
	unsigned int i;
	int fd, err;

	if (et->leader >= 0)
		return 0;
	for (i = 0; i < ESPMON_NR_EVENTS; i++) {
		if (!(espmon_events[i].types & (1u << S.tile_type[t])))
			continue;
		fd = espmon_perf_open(t, espmon_events[i].mon, et->nr ? et->fd[0] : -1);
		if (fd < 0 && errno == EMFILE && espmon_raise_nofile())
			fd = espmon_perf_open(t, espmon_events[i].mon, et->nr ? et->fd[0] : -1);
		if (fd < 0) {
			err = errno;
			while (et->nr)
				close(et->fd[--et->nr]);
			if (err == EACCES || err == EPERM) {
				FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
				int paranoid = -9;

				if (f) {
					if (fscanf(f, "%d", &paranoid) != 1)
						paranoid = -9;
					fclose(f);
				}
				return espmon_fail(EACCES, REP_ACCES,
						   "%s: system-wide events need CAP_PERFMON or perf_event_paranoid <= 0 (it is %d)",
						   S.pmu, paranoid);
			}
			if (err == ENOENT || err == ENODEV) {
				espmon_forget();
				return espmon_fail(ENODEV, REP_NODEV, "%s went away", S.pmu);
			}
			return espmon_fail(err, REP_OTHER, "%s: opening monitor %u of tile %u: %s",
					   S.pmu, espmon_events[i].mon, t, strerror(err));
		}
		et->mon[et->nr] = espmon_events[i].mon;
		et->fd[et->nr++] = fd;
	}
	et->leader = et->fd[0];
	return 0;
}

/* Read tile @t from one snapshot into its counts; 0 or a positive errno */
static int espmon_read_tile(unsigned int t)
{
	struct espmon_tile *et = &S.tiles[t];
	uint64_t buf[3 + ESP_NR_EVENTS], enabled, running;
	unsigned int i;
	ssize_t n;
	int ret;

	ret = espmon_open_tile(t);
	if (ret)
		return ret;
	/* nr, time enabled, time running, the counts */
	n = read(et->leader, buf, (3 + et->nr) * sizeof(buf[0]));
	if (n < 0)
		return espmon_fail(errno, REP_OTHER, "%s: reading tile %u: %s", S.pmu, t,
				   strerror(errno));
	if ((size_t)n != (3 + et->nr) * sizeof(buf[0]) || buf[0] != et->nr)
		return espmon_fail(EIO, REP_OTHER, "%s: short read of tile %u", S.pmu, t);
	for (i = 0; i < et->nr; i++)
		et->count[et->mon[i]] = buf[3 + i];
	/*
	 * The monitors count all the time, unless perf could not keep the
	 * tile's group in: another user's exclusive or pinned group holds the
	 * PMU. Then the counts miss what happened meanwhile: an error, not a
	 * value that is silently low.
	 */
	enabled = buf[1] - et->enabled;
	running = buf[2] - et->running;
	et->enabled = buf[1];
	et->running = buf[2];
	if (running < enabled)
		return espmon_fail(EBUSY, REP_OTHER,
				   "%s: tile %u's monitors were not counting for %llu of %llu ns since the last read: another user holds the PMU (an exclusive group)",
				   S.pmu, t, (unsigned long long)(enabled - running),
				   (unsigned long long)enabled);
	return 0;
}

/* The other half of 64-bit count monitor @m (14/15, 16/17), or -1 */
static int espmon_other_half(unsigned int m)
{
	switch (m) {
	case ESP_MON_ACC_MEM_LO: return ESP_MON_ACC_MEM_HI;
	case ESP_MON_ACC_MEM_HI: return ESP_MON_ACC_MEM_LO;
	case ESP_MON_ACC_TOT_LO: return ESP_MON_ACC_TOT_HI;
	case ESP_MON_ACC_TOT_HI: return ESP_MON_ACC_TOT_LO;
	default: return -1;
	}
}

/* Register value of monitor @m of tile @t as of its last read */
static uint32_t espmon_val(unsigned int t, unsigned int m)
{
	const uint64_t *c = S.tiles[t].count;

	if (m == ESP_MON_ACC_MEM_HI || m == ESP_MON_ACC_TOT_HI)
		return (uint32_t)(c[m - 1] >> 32);
	return (uint32_t)c[m];
}

/* Where the parts of a caller's esp_monitor_vals_t are, for its limits */
struct espmon_view {
	unsigned int ntiles;
	unsigned int *ddr;
	esp_mem_reqs_t *mem_reqs;
	esp_cache_stats_t *l2;
	esp_cache_stats_t *llc;
	esp_acc_stats_t *acc;
	unsigned int (*dvfs)[DVFS_OP_POINTS];
	unsigned int (*inj)[NOC_PLANES];
	unsigned int (*qfull)[NOC_PLANES][NOC_QUEUES];
};

static void espmon_view(const struct espmon_layout *l, const void *vals, struct espmon_view *v)
{
	char *p = (char *)vals;

	v->ntiles = l->rows * l->cols;
	v->ddr = (void *)p;
	p += l->nmem * sizeof(*v->ddr);
	v->mem_reqs = (void *)p;
	p += l->nmem * sizeof(*v->mem_reqs);
	v->l2 = (void *)p;
	p += v->ntiles * sizeof(*v->l2);
	v->llc = (void *)p;
	p += l->nmem * sizeof(*v->llc);
	v->acc = (void *)p;
	p += l->nacc * sizeof(*v->acc);
	v->dvfs = (void *)p;
	p += v->ntiles * sizeof(*v->dvfs);
	v->inj = (void *)p;
	p += v->ntiles * sizeof(*v->inj);
	v->qfull = (void *)p;
}

static bool espmon_layout_ok(const struct espmon_layout *l)
{
	size_t ntiles = (size_t)l->rows * l->cols, size;

	size = l->nmem * (sizeof(unsigned int) + sizeof(esp_mem_reqs_t) +
			  sizeof(esp_cache_stats_t)) +
	       ntiles * (sizeof(esp_cache_stats_t) + DVFS_OP_POINTS * sizeof(unsigned int) +
			 NOC_PLANES * sizeof(unsigned int) +
			 NOC_PLANES * NOC_QUEUES * sizeof(unsigned int)) +
	       l->nacc * sizeof(esp_acc_stats_t);
	return ntiles && size == l->size;
}

static void espmon_fill_mem(struct espmon_view *v, unsigned int m, unsigned int mask)
{
	unsigned int t = S.mem_tile[m];
	esp_mem_reqs_t *r = &v->mem_reqs[m];

	if (mask & (1u << ESP_MON_READ_DDR_ACCESSES))
		v->ddr[m] = espmon_val(t, ESP_MON_DDR_ACCESSES);
	if (mask & (1u << ESP_MON_READ_MEM_REQS)) {
		r->coh_reqs = espmon_val(t, ESP_MON_COH_REQ);
		r->coh_fwds = espmon_val(t, ESP_MON_COH_FWD);
		r->coh_rsps_rcv = espmon_val(t, ESP_MON_COH_RSP_RCV);
		r->coh_rsps_snd = espmon_val(t, ESP_MON_COH_RSP_SND);
		r->dma_reqs = espmon_val(t, ESP_MON_DMA_REQ);
		r->dma_rsps = espmon_val(t, ESP_MON_DMA_RSP);
		r->coh_dma_reqs = espmon_val(t, ESP_MON_COH_DMA_REQ);
		r->coh_dma_rsps = espmon_val(t, ESP_MON_COH_DMA_RSP);
	}
	if (mask & (1u << ESP_MON_READ_LLC_STATS)) {
		v->llc[m].hits = espmon_val(t, ESP_MON_LLC_HIT);
		v->llc[m].misses = espmon_val(t, ESP_MON_LLC_MISS);
	}
}

static void espmon_fill_acc(struct espmon_view *v, unsigned int a)
{
	unsigned int t = S.acc_tile[a];
	esp_acc_stats_t *s = &v->acc[a];

	s->acc_tlb = espmon_val(t, ESP_MON_ACC_TLB);
	s->acc_mem_lo = espmon_val(t, ESP_MON_ACC_MEM_LO);
	s->acc_mem_hi = espmon_val(t, ESP_MON_ACC_MEM_HI);
	s->acc_tot_lo = espmon_val(t, ESP_MON_ACC_TOT_LO);
	s->acc_tot_hi = espmon_val(t, ESP_MON_ACC_TOT_HI);
	s->acc_invocations = espmon_val(t, ESP_MON_ACC_INVOCATIONS);
}

static void espmon_fill_dvfs(struct espmon_view *v, unsigned int t)
{
	for (unsigned int p = 0; p < DVFS_OP_POINTS; p++)
		v->dvfs[t][p] = espmon_val(t, ESP_MON_DVFS_OP(p));
}

static void espmon_fill_inj(struct espmon_view *v, unsigned int t)
{
	for (unsigned int p = 0; p < NOC_PLANES; p++)
		v->inj[t][p] = espmon_val(t, ESP_MON_NOC_INJECT(p));
}

static void espmon_fill_qfull(struct espmon_view *v, unsigned int t, int plane)
{
	for (unsigned int p = 0; p < NOC_PLANES; p++)
		if (plane < 0 || (unsigned int)plane == p)
			for (unsigned int q = 0; q < NOC_QUEUES; q++)
				v->qfull[t][p][q] = espmon_val(t, ESP_MON_NOC_QFULL(p, q));
}

#define ALL_MASK	((1u << ESP_MON_READ_NR) - 1)
#define BIT_SET(mask, b) ((mask) & (1u << (b)))

/* The tiles a READ_MANY call needs, in @need; 0 or a positive errno */
static int espmon_many_tiles(const esp_monitor_args_t *a, bool *need)
{
	unsigned int mask = a->read_mask, t;

	if (mask & ~ALL_MASK)
		return espmon_fail(EINVAL, REP_INVAL, "read_mask 0x%x: unknown bits 0x%x",
				   mask, mask & ~ALL_MASK);
	if ((BIT_SET(mask, ESP_MON_READ_DVFS_OP) || BIT_SET(mask, ESP_MON_READ_NOC_INJECTS) ||
	     BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_TILE)) && a->tile_index >= S.ntiles)
		return espmon_fail(EINVAL, REP_INVAL, "tile_index %u: %s has %u tiles",
				   a->tile_index, S.pmu, S.ntiles);
	if (BIT_SET(mask, ESP_MON_READ_ACC_STATS) && a->acc_index >= S.nacc)
		return espmon_fail(EINVAL, REP_INVAL, "acc_index %u: %s has %u accelerators",
				   a->acc_index, S.pmu, S.nacc);
	if (BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_PLANE) && a->noc_index >= NOC_PLANES)
		return espmon_fail(EINVAL, REP_INVAL, "noc_index %u: there are %u planes",
				   a->noc_index, NOC_PLANES);

	if (mask & ((1u << ESP_MON_READ_DDR_ACCESSES) | (1u << ESP_MON_READ_MEM_REQS) |
		    (1u << ESP_MON_READ_LLC_STATS)))
		for (t = 0; t < S.nmem; t++)
			need[S.mem_tile[t]] = true;
	if (BIT_SET(mask, ESP_MON_READ_L2_STATS))
		for (t = 0; t < S.ncpu; t++)
			need[S.cpu_tile[t]] = true;
	if (BIT_SET(mask, ESP_MON_READ_ACC_STATS))
		need[S.acc_tile[a->acc_index]] = true;
	if (BIT_SET(mask, ESP_MON_READ_DVFS_OP) || BIT_SET(mask, ESP_MON_READ_NOC_INJECTS) ||
	    BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_TILE))
		need[a->tile_index] = true;
	if (BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_PLANE))
		for (t = 0; t < S.ntiles; t++)
			need[t] = true;
	return 0;
}

static unsigned int espmon_monitor_locked(const struct espmon_layout *l,
					  esp_monitor_args_t a, void *vals)
{
	unsigned int mask, t, m;
	struct espmon_view v;
	bool *need;
	int ret;

	if (!espmon_layout_ok(l))
		return espmon_fail(EINVAL, REP_INVAL, "esp_monitor_vals_t layout mismatch");
	if (a.read_mode != ESP_MON_READ_ALL && a.read_mode != ESP_MON_READ_SINGLE &&
	    a.read_mode != ESP_MON_READ_MANY)
		return espmon_fail(EINVAL, REP_INVAL, "bad read_mode %d", (int)a.read_mode);
	if (a.read_mode != ESP_MON_READ_SINGLE && !vals)
		return espmon_fail(EINVAL, REP_INVAL, "vals is NULL");
	ret = espmon_discover();
	if (ret)
		return a.read_mode == ESP_MON_READ_SINGLE ? 0 : ret;

	if (a.read_mode == ESP_MON_READ_SINGLE) {
		if (a.tile_index >= S.ntiles || a.mon_index >= ESP_NR_MONITORS) {
			espmon_fail(EINVAL, REP_INVAL, "tile %u monitor %u: %s has %u tiles of %u monitors",
				    a.tile_index, a.mon_index, S.pmu, S.ntiles, ESP_NR_MONITORS);
			return 0;
		}
		/*
		 * The other half of the 64-bit count that the last call read
		 * on this tile comes from that call's snapshot, so that two
		 * halves read in turn agree; anything else reads anew
		 */
		if (S.half_kept && S.half_tile == a.tile_index &&
		    espmon_other_half(a.mon_index) == (int)S.half_mon) {
			S.half_kept = false;
		} else {
			S.half_kept = false;
			if (espmon_read_tile(a.tile_index))
				return 0;
			S.half_kept = espmon_other_half(a.mon_index) >= 0;
			S.half_tile = a.tile_index;
			S.half_mon = a.mon_index;
		}
		return espmon_val(a.tile_index, a.mon_index);
	}
	S.half_kept = false;	/* the tiles are read anew below */

	ret = espmon_check_layout(l);
	if (ret)
		return ret;
	need = calloc(S.ntiles, sizeof(*need));
	if (!need)
		return espmon_fail(ENOMEM, REP_OTHER, "out of memory");
	mask = ALL_MASK;
	if (a.read_mode == ESP_MON_READ_ALL) {
		for (t = 0; t < S.ntiles; t++)
			need[t] = true;
	} else {
		mask = a.read_mask;
		ret = espmon_many_tiles(&a, need);
	}
	/*
	 * Every tile's group is opened before the first snapshot: opening one
	 * takes a while (each event reschedules those already open), and a
	 * tile read before the others were opened would count over a longer
	 * window than they do, by the time all the opens took - on the first
	 * call only, so the differences of two calls would come out uneven
	 * across tiles. Then one snapshot per tile, one tile right after the
	 * other, as on ESP.
	 */
	for (t = 0; t < S.ntiles && !ret; t++)
		if (need[t])
			ret = espmon_open_tile(t);
	for (t = 0; t < S.ntiles && !ret; t++)
		if (need[t])
			ret = espmon_read_tile(t);
	free(need);
	if (ret)
		return ret;

	memset(vals, 0, l->size);
	espmon_view(l, vals, &v);
	for (m = 0; m < S.nmem; m++)
		espmon_fill_mem(&v, m, mask);
	if (BIT_SET(mask, ESP_MON_READ_L2_STATS)) {
		for (m = 0; m < S.ncpu; m++) {
			t = S.cpu_tile[m];
			v.l2[t].hits = espmon_val(t, ESP_MON_L2_HIT);
			v.l2[t].misses = espmon_val(t, ESP_MON_L2_MISS);
		}
	}
	if (a.read_mode == ESP_MON_READ_ALL) {
		for (m = 0; m < S.nacc; m++)
			espmon_fill_acc(&v, m);
		for (t = 0; t < S.ntiles; t++) {
			espmon_fill_dvfs(&v, t);
			espmon_fill_inj(&v, t);
			espmon_fill_qfull(&v, t, -1);
		}
		return 0;
	}
	if (BIT_SET(mask, ESP_MON_READ_ACC_STATS))
		espmon_fill_acc(&v, a.acc_index);
	if (BIT_SET(mask, ESP_MON_READ_DVFS_OP))
		espmon_fill_dvfs(&v, a.tile_index);
	if (BIT_SET(mask, ESP_MON_READ_NOC_INJECTS))
		espmon_fill_inj(&v, a.tile_index);
	if (BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_TILE))
		espmon_fill_qfull(&v, a.tile_index, -1);
	if (BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_PLANE))
		for (t = 0; t < S.ntiles; t++)
			espmon_fill_qfull(&v, t, a.noc_index);
	return 0;
}

unsigned int espmon_monitor(const struct espmon_layout *l, esp_monitor_args_t args,
			    void *vals)
{
	unsigned int ret;

	pthread_mutex_lock(&espmon_lock);
	espmon_ok();
	ret = espmon_monitor_locked(l, args, vals);
	pthread_mutex_unlock(&espmon_lock);
	return ret;
}

uint32_t sub_monitor_vals(uint32_t val_start, uint32_t val_end)
{
	return (uint32_t)(val_end - val_start);
}

static uint64_t espmon_u64(unsigned int lo, unsigned int hi)
{
	return (uint64_t)hi << 32 | lo;
}

void espmon_diff(const struct espmon_layout *l, const void *start, const void *end,
		 void *diff)
{
	struct espmon_view s, e, d;
	const unsigned int *ps, *pe;
	unsigned int *pd;
	size_t i, n;

	espmon_ok();
	if (!espmon_layout_ok(l)) {
		espmon_fail(EINVAL, REP_INVAL, "esp_monitor_vals_t layout mismatch");
		return;
	}
	/* Everything is a 32-bit monitor value... */
	ps = start;
	pe = end;
	pd = diff;
	n = l->size / sizeof(unsigned int);
	for (i = 0; i < n; i++)
		pd[i] = sub_monitor_vals(ps[i], pe[i]);
	/* ...but the accelerators' 64-bit counts borrow across their halves */
	espmon_view(l, start, &s);
	espmon_view(l, end, &e);
	espmon_view(l, diff, &d);
	for (i = 0; i < l->nacc; i++) {
		uint64_t mem = espmon_u64(e.acc[i].acc_mem_lo, e.acc[i].acc_mem_hi) -
			       espmon_u64(s.acc[i].acc_mem_lo, s.acc[i].acc_mem_hi);
		uint64_t tot = espmon_u64(e.acc[i].acc_tot_lo, e.acc[i].acc_tot_hi) -
			       espmon_u64(s.acc[i].acc_tot_lo, s.acc[i].acc_tot_hi);

		d.acc[i].acc_mem_lo = (unsigned int)mem;
		d.acc[i].acc_mem_hi = (unsigned int)(mem >> 32);
		d.acc[i].acc_tot_lo = (unsigned int)tot;
		d.acc[i].acc_tot_hi = (unsigned int)(tot >> 32);
	}
}

static void espmon_print_qfull(FILE *fp, const struct espmon_view *v, unsigned int t,
			       unsigned int p)
{
	for (unsigned int q = 0; q < NOC_QUEUES; q++)
		fprintf(fp, "NoC backpressure cycles at tile %u on plane %u for queue %u: %u\n",
			t, p, q, v->qfull[t][p][q]);
}

/* ESP's text layout, line for line */
static void espmon_print_locked(const struct espmon_layout *l, const esp_monitor_args_t *a,
				const void *vals, FILE *fp, bool file)
{
	bool all = a->read_mode == ESP_MON_READ_ALL;
	unsigned int mask = all ? ALL_MASK : a->read_mode == ESP_MON_READ_MANY ? a->read_mask : 0;
	unsigned int t, p;
	struct espmon_view v;
	bool shape;

	if (!espmon_layout_ok(l)) {
		espmon_fail(EINVAL, REP_INVAL, "esp_monitor_vals_t layout mismatch");
		return;
	}
	if (!fp)
		fp = stdout;
	/* Without the SoC's shape only the headings can be printed */
	shape = !espmon_discover() && !espmon_check_layout(l);
	espmon_view(l, vals, &v);

	if (file && fp != stdout && fp != stderr)
		printf("\tWriting esp_monitor stats to specified file...\n");

	fprintf(fp, "\n***************************************************\n");
	fprintf(fp, "******************ESP MONITOR STATS****************\n");
	fprintf(fp, "***************************************************\n");

	fprintf(fp, "\n********************MEMORY STATS*******************\n");
	if (shape && BIT_SET(mask, ESP_MON_READ_DDR_ACCESSES))
		for (t = 0; t < S.nmem; t++)
			fprintf(fp, "Off-chip memory accesses at mem tile %u: %u\n", t, v.ddr[t]);
	if (shape && BIT_SET(mask, ESP_MON_READ_MEM_REQS)) {
		for (t = 0; t < S.nmem; t++) {
			const esp_mem_reqs_t *r = &v.mem_reqs[t];

			fprintf(fp, "Coherence requests to LLC %u: %u\n", t, r->coh_reqs);
			fprintf(fp, "Coherence forwards from LLC %u: %u\n", t, r->coh_fwds);
			fprintf(fp, "Coherence responses received by LLC %u: %u\n", t, r->coh_rsps_rcv);
			fprintf(fp, "Coherence responses sent by LLC %u: %u\n", t, r->coh_rsps_snd);
			fprintf(fp, "DMA requests to mem tile %u: %u\n", t, r->dma_reqs);
			fprintf(fp, "DMA responses from mem tile %u: %u\n", t, r->dma_rsps);
			fprintf(fp, "Coherent DMA requests to LLC %u: %u\n", t, r->coh_dma_reqs);
			fprintf(fp, "Coherent DMA responses from LLC %u: %u\n", t, r->coh_dma_rsps);
		}
	}

	fprintf(fp, "\n********************CACHE STATS********************\n");
	if (shape && BIT_SET(mask, ESP_MON_READ_L2_STATS)) {
		for (t = 0; t < S.ncpu; t++) {
			fprintf(fp, "L2 hits for CPU %u: %u\n", t, v.l2[S.cpu_tile[t]].hits);
			fprintf(fp, "L2 misses for CPU %u: %u\n", t, v.l2[S.cpu_tile[t]].misses);
		}
	}
	if (shape && BIT_SET(mask, ESP_MON_READ_LLC_STATS)) {
		for (t = 0; t < S.nmem; t++) {
			fprintf(fp, "Hits at LLC %u: %u\n", t, v.llc[t].hits);
			fprintf(fp, "Misses at LLC %u: %u\n", t, v.llc[t].misses);
		}
	}

	fprintf(fp, "\n****************ACCELERATOR STATS******************\n");
	for (t = 0; shape && t < S.nacc; t++) {
		const esp_acc_stats_t *s = &v.acc[t];

		if (!all && (!BIT_SET(mask, ESP_MON_READ_ACC_STATS) || t != a->acc_index))
			continue;
		fprintf(fp, "Accelerator %u TLB-loading cycles: %u\n", t, s->acc_tlb);
		fprintf(fp, "Accelerator %u mem cycles: %llu\n", t,
			(unsigned long long)espmon_u64(s->acc_mem_lo, s->acc_mem_hi));
		fprintf(fp, "Accelerator %u total cycles: %llu\n", t,
			(unsigned long long)espmon_u64(s->acc_tot_lo, s->acc_tot_hi));
		fprintf(fp, "Accelerator %u invocations: %u\n", t, s->acc_invocations);
	}

	fprintf(fp, "\n*********************DVFS STATS********************\n");
	for (t = 0; shape && t < S.ntiles; t++) {
		if (!all && (!BIT_SET(mask, ESP_MON_READ_DVFS_OP) || t != a->tile_index))
			continue;
		for (p = 0; p < DVFS_OP_POINTS; p++)
			fprintf(fp, "DVFS Cycles for tile %u at operating point %u: %u\n", t, p,
				v.dvfs[t][p]);
	}

	fprintf(fp, "\n*********************NOC STATS*********************\n");
	for (t = 0; shape && t < S.ntiles; t++) {
		if (!all && (!BIT_SET(mask, ESP_MON_READ_NOC_INJECTS) || t != a->tile_index))
			continue;
		for (p = 0; p < NOC_PLANES; p++)
			fprintf(fp, "NoC packets injected at tile %u on plane %u: %u\n", t, p,
				v.inj[t][p]);
	}
	for (t = 0; shape && t < S.ntiles; t++) {
		bool by_tile = BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_TILE) && t == a->tile_index;

		if (!all && !by_tile)
			continue;
		for (p = 0; p < NOC_PLANES; p++)
			espmon_print_qfull(fp, &v, t, p);
	}
	/* A plane's queues of every tile, those not printed just above */
	for (t = 0; shape && !all && BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_PLANE) &&
	     a->noc_index < NOC_PLANES && t < S.ntiles; t++) {
		if (BIT_SET(mask, ESP_MON_READ_NOC_QUEUE_FULL_TILE) && t == a->tile_index)
			continue;
		espmon_print_qfull(fp, &v, t, a->noc_index);
	}
}

void espmon_print(const struct espmon_layout *l, const esp_monitor_args_t *args,
		  const void *vals, FILE *fp, int file)
{
	pthread_mutex_lock(&espmon_lock);
	espmon_ok();
	espmon_print_locked(l, args, vals, fp, file);
	pthread_mutex_unlock(&espmon_lock);
}

void *espmon_vals_alloc(const struct espmon_layout *l)
{
	struct espmon_alloc *a;

	espmon_ok();
	if (!espmon_layout_ok(l)) {
		espmon_fail(EINVAL, REP_INVAL, "esp_monitor_vals_t layout mismatch");
		return NULL;
	}
	a = calloc(1, sizeof(*a) + l->size);
	if (!a) {
		espmon_fail(ENOMEM, REP_OTHER, "esp_monitor_vals_alloc(): out of memory");
		return NULL;
	}
	pthread_mutex_lock(&espmon_lock);
	a->next = S.allocs;
	S.allocs = a;
	pthread_mutex_unlock(&espmon_lock);
	return a->vals;
}

void esp_monitor_free(void)
{
	struct espmon_alloc *a, *next;

	pthread_mutex_lock(&espmon_lock);
	espmon_forget();
	for (a = S.allocs; a; a = next) {
		next = a->next;
		free(a);
	}
	S.allocs = NULL;
	pthread_mutex_unlock(&espmon_lock);
	espmon_ok();
}

int esp_monitor_select(const char *pmu)
{
	int ret;

	pthread_mutex_lock(&espmon_lock);
	espmon_ok();
	espmon_forget();
	snprintf(S.select, sizeof(S.select), "%s", pmu ? pmu : "");
	ret = espmon_discover();
	pthread_mutex_unlock(&espmon_lock);
	return -ret;
}

int esp_monitor_error(void)
{
	return espmon_err;
}

const char *esp_monitor_errmsg(void)
{
	return espmon_msg;
}

const char *esp_monitor_strerror(int err)
{
	switch (-err) {
	case 0:
		return "success";
	case ENODEV:
		return "no ESP PMU (no esp_<n> in /sys/bus/event_source/devices: esp_pmu not loaded, or no ESP device)";
	case EACCES:
		return "permission denied: system-wide perf events need CAP_PERFMON or perf_event_paranoid <= 0";
	case EOVERFLOW:
		return "the SoC exceeds the limits of esp_monitor_soc.h: regenerate it with gen-soc-header.sh";
	case EINVAL:
		return "invalid argument";
	}
	return strerror(-err);
}

/*
 * The API's own symbols, for callers that do not go through the header's
 * macros (function pointers, dlsym, ESPMON_NO_API_MACROS): they use the
 * limits this file is compiled with. The parentheses keep the macros out.
 */
unsigned int (esp_monitor)(esp_monitor_args_t args, esp_monitor_vals_t *vals)
{
	return espmon_monitor(espmon_layout_(), args, vals);
}

esp_monitor_vals_t (esp_monitor_diff)(esp_monitor_vals_t vals_start, esp_monitor_vals_t vals_end)
{
	return espmon_diff_(vals_start, vals_end);
}

void (esp_monitor_print)(esp_monitor_args_t args, esp_monitor_vals_t vals, FILE *fp)
{
	espmon_print(espmon_layout_(), &args, &vals, fp, 1);
}

esp_monitor_vals_t *(esp_monitor_vals_alloc)(void)
{
	return espmon_vals_alloc(espmon_layout_());
}
