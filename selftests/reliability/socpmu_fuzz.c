// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu_fuzz - a perf_event_open fuzzer aimed at the socpmu PMUs.
 *
 * Usage: socpmu_fuzz [-s SEED] [-n ITERATIONS] [-t SECONDS] [-p PASSES] [-L] [-x TYPES] [-v]
 *                    [-T FIRST:LAST]
 *   -s SEED        random seed, "random" for one from /dev/urandom (default:
 *                  DEFAULT_SEED, so that the bounded pass of make check is
 *                  the same every time; make fuzz passes a random one;
 *                  always printed)
 *   -n ITERATIONS  operations in all, split over the passes (default 20000)
 *   -t SECONDS     stop each pass at this share of the time bound (default none)
 *   -p PASSES      passes (default 2): the modules are reloaded after each,
 *                  the last one is measured for leaks
 *   -L             no leak check (no module reload, no slab snapshots)
 *   -x TYPES       leave out these model types of the simulator (comma-separated)
 *   -v             log every failed oracle, not only the first 20
 *   -T FIRST:LAST  print the operations of iterations FIRST to LAST (of the
 *                  pass; to find the one that breaks something for a seed)
 *
 * Every socpmu PMU of /sys/bus/event_source/devices takes part, found by
 * name (tensix_*, pulp_*, esp_*, sifive_*), with the fuzzer's own simulated
 * device of each model type the simulator has. Each iteration is one
 * operation drawn at random: perf_event_open (socpmu, software, tracepoint,
 * raw, hardware or garbage types; alias encodings read from events/ and
 * format/, bit flips of them, random configs; random flags, read formats,
 * attr sizes, pid/cpu, groups mixing PMUs, except one of our events with
 * a software one in a task's context: that pins the driver module until
 * reboot, a documented limit tested on its own), close, read, ioctl (ENABLE,
 * DISABLE, RESET, REFRESH, PERIOD, SET_OUTPUT, SET_FILTER, ID, SET_BPF,
 * PAUSE_OUTPUT, QUERY_BPF, MODIFY_ATTRIBUTES, unknown), mmap of the event
 * and of an AUX area, munmap, fork (the child works on the inherited fds,
 * then exits or execs), prctl, CPU affinity, sysfs reads and
 * poll_interval_us writes, and the removal and re-creation of a simulated
 * device while its events are open.
 *
 * Pass criteria (kselftest results):
 *  - every call returns a value or an errno (all are recorded and printed
 *    as a table), and no process of the fuzzer gets a signal;
 *  - oracles: a socpmu PMU never accepts config bits outside its format
 *    fields, a per-task event on a system-wide PMU, or a sampling event
 *    (AUX PMUs excepted); a counter never goes backwards without a reset;
 *  - after every pass, with all fds closed, the socpmu modules' reference
 *    counts are back to what they were;
 *  - leaks: after each pass the socpmu modules are reloaded (which also
 *    frees the PMUs left dead by device removals), and slab memory is
 *    compared before and after the last pass.
 *
 * The kernel log is watched by run-vm.sh (oops, WARN, BUG, lockups).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>

#include "kselftest.h"
#include "reliability.h"

#define MAX_FDS		48
#define MAX_MAPS	16
#define MAX_PMUS	64
#define MAX_ERRNO	134
#define MAX_LOGS	20
#define MAX_SIMDEVS	16
#define LEAK_BOUND	(64 * 1024L)	/* bytes of slab growth tolerated */
#define DEFAULT_SEED	0xf284888c5f537e0cULL	/* make check's pass */

#ifndef PERF_ATTR_SIZE_VER8
#define PERF_ATTR_SIZE_VER8	136
#endif
#define ATTR_CONFIG3_OFF	128

enum op {
	OP_OPEN, OP_CLOSE, OP_READ, OP_IOCTL, OP_MMAP, OP_MUNMAP, OP_FORK,
	OP_EXEC, OP_PRCTL, OP_AFFINITY, OP_SYSFS, OP_POLL, OP_REPLUG, OP_POLLFD,
	OP_NR
};

static const char *const op_names[OP_NR] = {
	"open", "close", "read", "ioctl", "mmap", "munmap", "fork", "exec",
	"prctl", "affinity", "sysfs_read", "poll_interval", "replug", "pollfd",
};

/* Per-mille weights of the operations */
static const unsigned int op_weight[OP_NR] = {
	[OP_OPEN] = 300, [OP_CLOSE] = 100, [OP_READ] = 170, [OP_IOCTL] = 230,
	[OP_MMAP] = 50, [OP_MUNMAP] = 30, [OP_FORK] = 12, [OP_EXEC] = 3,
	[OP_PRCTL] = 10, [OP_AFFINITY] = 20, [OP_SYSFS] = 40, [OP_POLL] = 10,
	[OP_REPLUG] = 2, [OP_POLLFD] = 23,
};

/* Shared with the parent, so that it survives a worker's crash */
struct shared {
	uint64_t iter;			/* current iteration of the pass */
	uint64_t done;			/* iterations done, all passes */
	uint64_t calls[OP_NR];
	uint64_t ok[OP_NR];
	uint64_t err[OP_NR][MAX_ERRNO + 1];
	uint64_t ns[OP_NR];		/* time spent in each operation */
	uint64_t opened[2];		/* events opened: socpmu, other */
	uint64_t violations;
	uint64_t child_signals;
	uint64_t faults;		/* device removals with open events */
	int nlog;
	char log[MAX_LOGS][256];
};

static struct shared *sh;
static bool verbose;
static uint64_t trace_first = 1, trace_last;	/* -T: none by default */
static const char *exclude_types = "";

/* The file descriptor table of a worker */
struct fev {
	int fd;
	bool socpmu;
	bool uncore;
	bool aux;
	bool task;		/* in a task's context (a pid target) */
	bool swctx;		/* of a perf_sw_context PMU: not ours, or our AUX one */
	bool group_fmt;		/* read_format has PERF_FORMAT_GROUP */
	uint64_t read_format;
	uint64_t last;		/* last value read, for the monotonic oracle */
	uint64_t epoch;		/* reset epoch of @last */
	bool have_last;
	char pmu[SP_NAME_LEN];
};

struct fmap {
	void *addr;
	size_t len;
	int fd;			/* -1 once the fd is closed */
	bool writable;
	bool aux_done;
};

struct worker {
	struct rel_pmu *pmus;
	int npmus;
	struct fev fds[MAX_FDS];
	int nfds;
	struct fmap maps[MAX_MAPS];
	int nmaps;
	struct rel_simdev sim[MAX_SIMDEVS];
	int nsim;
	int ncpus;
	int nullfd;
	void *badptr;		/* a PROT_NONE page: EFAULT, never a signal */
	pid_t sleeper;		/* a child that only waits, for pid targets */
	uint64_t epoch;		/* bumped by every reset anywhere */
	bool child;		/* running in a fork()ed child */
	uint32_t types[64];	/* types of the PMUs that are not ours */
	int ntypes;
	char poll_saved[MAX_PMUS][24];
	char poll_pmu[MAX_PMUS][SP_NAME_LEN];
	int npoll;
};

/* ---- random numbers: splitmix64, reproducible from the seed ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rndn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(unsigned int pct)
{
	return rndn(100) < pct;
}

/* Interesting 64-bit values */
static uint64_t rnd_value(void)
{
	static const uint64_t special[] = {
		0, 1, 2, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ULL, 1ULL << 63, ~0ULL, ~0ULL - 1,
	};

	switch (rndn(4)) {
	case 0:
		return special[rndn(ARRAY_SIZE(special))];
	case 1:
		return rndn(256);
	case 2:
		return 1ULL << rndn(64);
	default:
		return rnd();
	}
}

/* ---- recording ---- */

/* Is the current operation one that -T prints? */
static bool tracing(void)
{
	return sh->iter >= trace_first && sh->iter <= trace_last;
}

static void record(enum op op, long ret, int err)
{
	if (tracing())
		ksft_print_msg("%llu [%d] %s: %ld%s%s\n", (unsigned long long)sh->iter,
			       getpid(), op_names[op], ret, ret < 0 ? " " : "",
			       ret < 0 ? strerror(err) : "");
	sh->calls[op]++;
	if (ret >= 0)
		sh->ok[op]++;
	else
		sh->err[op][err > 0 && err <= MAX_ERRNO ? err : 0]++;
}

__attribute__((format(printf, 1, 2)))
static void violation(const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	__atomic_add_fetch(&sh->violations, 1, __ATOMIC_RELAXED);
	if (sh->nlog < MAX_LOGS) {
		snprintf(sh->log[sh->nlog++], sizeof(sh->log[0]), "iteration %llu: %s",
			 (unsigned long long)sh->iter, msg);
	}
	if (verbose || sh->nlog < MAX_LOGS)
		ksft_print_msg("VIOLATION at iteration %llu: %s\n",
			       (unsigned long long)sh->iter, msg);
}

/* Records a call's result: errno is read after the call */
#define REC(op, call) do {				\
	long __ret = (long)(call);			\
	record(op, __ret, errno);			\
} while (0)

/* ---- the fd table ---- */

static struct fev *fev_pick(struct worker *w)
{
	return w->nfds ? &w->fds[rndn(w->nfds)] : NULL;
}

static void fev_close(struct worker *w, int i)
{
	long ret;

	for (int m = 0; m < w->nmaps; m++)
		if (w->maps[m].fd == w->fds[i].fd)
			w->maps[m].fd = -1;
	if (tracing())
		ksft_print_msg("%llu close fd %d (%s)\n", (unsigned long long)sh->iter,
			       w->fds[i].fd, w->fds[i].socpmu ? w->fds[i].pmu : "other");
	ret = close(w->fds[i].fd);
	REC(OP_CLOSE, ret);
	w->fds[i] = w->fds[--w->nfds];
}

static void unmap_all(struct worker *w)
{
	for (int m = 0; m < w->nmaps; m++)
		munmap(w->maps[m].addr, w->maps[m].len);
	w->nmaps = 0;
}

static void close_all(struct worker *w)
{
	unmap_all(w);
	while (w->nfds)
		fev_close(w, w->nfds - 1);
}

/* ---- operations ---- */

/* Can the PMU still take an event, or is it dead (its device removed)? */
static bool pmu_alive(const struct rel_pmu *p)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = (uint32_t)p->type };
	int fd;

	if (p->nalias) {
		attr.config = p->alias[0].cfg[0];
		attr.config1 = p->alias[0].cfg[1];
		attr.config2 = p->alias[0].cfg[2];
	}
	fd = sp_perf_event_open(&attr, -1, p->cpu >= 0 ? p->cpu : 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd != -ENODEV;
}

/*
 * Loads the PMUs again. AUX support and liveness are probed once per PMU;
 * a few dead PMUs stay in the table (their events must fail cleanly), the
 * others make room for live ones.
 */
#define MAX_DEAD	4

static struct {
	char name[SP_NAME_LEN];
	int type;
} dead[1024];
static int ndead_known;

static bool known_dead(const char *name, int type)
{
	for (int i = 0; i < ndead_known; i++)
		if (dead[i].type == type && !strcmp(dead[i].name, name))
			return true;
	return false;
}

static void rescan(struct worker *w)
{
	static struct rel_pmu old[MAX_PMUS];
	static char names[SP_MAX_PMUS][SP_NAME_LEN];
	int nold = w->npmus, n = sp_list_socpmu(names, SP_MAX_PMUS), ndead = 0;

	memcpy(old, w->pmus, nold * sizeof(*old));
	w->npmus = 0;
	for (int i = 0; i < n && w->npmus < MAX_PMUS; i++) {
		struct rel_pmu *p = &w->pmus[w->npmus];
		char path[512];
		uint64_t type;
		int j;

		snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/type", names[i]);
		if (sp_read_u64_file(path, &type))
			continue;
		if (known_dead(names[i], (int)type)) {
			/* a few dead PMUs stay in the table: their events must fail cleanly */
			if (ndead++ >= MAX_DEAD || rel_pmu_load(p, names[i]))
				continue;
			p->dead = true;
			w->npmus++;
			continue;
		}
		for (j = 0; j < nold; j++)
			if (old[j].type == (int)type && !strcmp(old[j].name, names[i]))
				break;
		if (j < nold) {
			*p = old[j];
		} else {
			if (rel_pmu_load(p, names[i]))
				continue;
			p->aux = rel_pmu_probe_aux(p);
		}
		/* Liveness changes when the device goes: check it again each time */
		p->dead = !pmu_alive(p);
		if (p->dead) {
			if (ndead_known < (int)ARRAY_SIZE(dead)) {
				snprintf(dead[ndead_known].name, SP_NAME_LEN, "%s", p->name);
				dead[ndead_known++].type = p->type;
			}
			if (ndead++ >= MAX_DEAD)
				continue;
		}
		w->npmus++;
	}
}

/*
 * A type no PMU has. The other dynamic PMUs (kprobe, uprobe, breakpoint,
 * msr, ...) are left alone: they are not what is tested here.
 */
static uint32_t garbage_type(struct worker *w)
{
	for (;;) {
		uint32_t type = chance(50) ? (uint32_t)rnd() : PERF_TYPE_MAX + rndn(64);
		bool used = type == PERF_TYPE_BREAKPOINT;

		for (int i = 0; i < w->ntypes; i++)
			used |= w->types[i] == type;
		for (int i = 0; i < w->npmus; i++)
			used |= (uint32_t)w->pmus[i].type == type;
		if (!used)
			return type;
	}
}

/*
 * Tracepoints to count: those of a few subsystems (not the ftrace ones,
 * whose function event would switch the function tracer on).
 */
static uint64_t tp_ids[64];
static int ntp;

static void find_tracepoints(void)
{
	static const char *const sys[] = { "sched", "irq", "signal", "task", "syscalls" };
	const char *roots[] = { "/sys/kernel/tracing/events", SP_DEBUGFS "/tracing/events" };
	char path[512];
	struct dirent *de;
	uint64_t id;
	DIR *dir;

	for (size_t r = 0; r < ARRAY_SIZE(roots) && !ntp; r++) {
		for (size_t s = 0; s < ARRAY_SIZE(sys); s++) {
			snprintf(path, sizeof(path), "%s/%s", roots[r], sys[s]);
			dir = opendir(path);
			while (dir && (de = readdir(dir)) && ntp < (int)ARRAY_SIZE(tp_ids)) {
				if (de->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "%s/%s/%.200s/id", roots[r], sys[s],
					 de->d_name);
				if (!sp_read_u64_file(path, &id))
					tp_ids[ntp++] = id;
			}
			if (dir)
				closedir(dir);
		}
	}
}

/* The types of the PMUs that are not socpmu ones */
static void find_other_types(struct worker *w)
{
	DIR *dir = opendir(SP_PMU_BUS);
	struct dirent *de;
	char path[512];
	uint64_t type;

	while (dir && (de = readdir(dir)) && w->ntypes < (int)ARRAY_SIZE(w->types)) {
		if (de->d_name[0] == '.' || sp_is_socpmu(de->d_name))
			continue;
		snprintf(path, sizeof(path), SP_PMU_BUS "/%.200s/type", de->d_name);
		if (!sp_read_u64_file(path, &type))
			w->types[w->ntypes++] = (uint32_t)type;
	}
	if (dir)
		closedir(dir);
}

/* A config for PMU @p: an alias, a bit flip of one, field values or noise */
static void make_config(const struct rel_pmu *p, uint64_t *cfg)
{
	unsigned int how = rndn(100);

	memset(cfg, 0, REL_WORDS * sizeof(*cfg));
	if (p->nalias && how < 55) {
		memcpy(cfg, p->alias[rndn(p->nalias)].cfg, REL_WORDS * sizeof(*cfg));
	} else if (p->nalias && how < 80) {
		memcpy(cfg, p->alias[rndn(p->nalias)].cfg, REL_WORDS * sizeof(*cfg));
		for (unsigned int n = 1 + rndn(3); n; n--) {
			int word = chance(70) ? 0 : 1 + rndn(3);

			cfg[word] ^= 1ULL << rndn(64);
		}
	} else if (p->nfmt && how < 92) {
		for (int i = 0; i < p->nfmt; i++)
			if (chance(50))
				rel_fmt_set(&p->fmt[i], cfg, rnd_value());
	} else {
		for (int i = 0; i < REL_WORDS; i++)
			cfg[i] = chance(50) ? rnd_value() : 0;
	}
	/* Units: config1 of the uncore PMUs, often set by itself */
	if (chance(30)) {
		const struct rel_fmt *f = NULL;

		for (int i = 0; i < p->nfmt && !f; i++)
			if (p->fmt[i].word == 1)
				f = &p->fmt[i];
		if (f)
			rel_fmt_set(f, cfg, chance(80) ? rndn(8) : rnd_value());
	}
}

static void op_open(struct worker *w)
{
	union {
		struct perf_event_attr a;
		unsigned char raw[512];
	} u;
	struct perf_event_attr *attr = &u.a;
	const struct rel_pmu *p = NULL;
	uint64_t cfg[REL_WORDS] = { 0 };
	unsigned long flags = 0;
	int group_fd = -1, cpu, fd, err;
	pid_t pid = -1;
	unsigned int kind = rndn(100);
	void *uptr = attr;
	struct fev *leader = NULL;

	if (w->nfds >= MAX_FDS)
		fev_close(w, rndn(w->nfds));

	memset(&u, 0, sizeof(u));
	if (w->npmus && kind < 72) {
		p = &w->pmus[rndn(w->npmus)];
		attr->type = p->type;
		make_config(p, cfg);
	} else if (kind < 82) {
		attr->type = PERF_TYPE_SOFTWARE;
		cfg[0] = chance(90) ? rndn(12) : rnd_value();
	} else if (kind < 86) {
		attr->type = PERF_TYPE_TRACEPOINT;
		cfg[0] = ntp && chance(70) ? tp_ids[rndn(ntp)] : rnd_value();
	} else if (kind < 90) {
		attr->type = PERF_TYPE_RAW;
		cfg[0] = rnd_value();
	} else if (kind < 93) {
		attr->type = PERF_TYPE_HARDWARE;
		cfg[0] = rndn(12);
	} else if (kind < 96) {
		attr->type = PERF_TYPE_HW_CACHE;
		cfg[0] = rnd_value();
	} else {
		attr->type = garbage_type(w);
		cfg[0] = rnd_value();
	}
	attr->config = cfg[0];
	attr->config1 = cfg[1];
	attr->config2 = cfg[2];

	/* Size: mostly the kernel's, sometimes older, larger or broken */
	switch (rndn(20)) {
	case 0:
		attr->size = 0;
		break;
	case 1:
		attr->size = PERF_ATTR_SIZE_VER0 + 8 * rndn(9);
		break;
	case 2:
		attr->size = PERF_ATTR_SIZE_VER8 + 8 * (1 + rndn(8));
		if (chance(50))
			u.raw[PERF_ATTR_SIZE_VER8 + rndn(8)] = (unsigned char)rnd();
		break;
	case 3:
		attr->size = rndn(4200);
		break;
	default:
		attr->size = PERF_ATTR_SIZE_VER8;
		break;
	}
	if (attr->size > ATTR_CONFIG3_OFF && chance(10))
		memcpy(&u.raw[ATTR_CONFIG3_OFF], (uint64_t[]){ cfg[3] ?: rnd_value() },
		       sizeof(uint64_t));
	if (attr->size > PERF_ATTR_SIZE_VER8 && attr->size <= sizeof(u) && chance(30))
		memset(&u.raw[PERF_ATTR_SIZE_VER8], 0, attr->size - PERF_ATTR_SIZE_VER8);

	attr->disabled = chance(40);
	attr->inherit = chance(10);
	attr->pinned = chance(8);
	attr->exclusive = chance(5);
	attr->exclude_user = chance(4);
	attr->exclude_kernel = chance(4);
	attr->exclude_hv = chance(4);
	attr->exclude_idle = chance(3);
	attr->mmap = chance(3);
	attr->comm = chance(3);
	attr->task = chance(3);
	attr->enable_on_exec = chance(5);
	attr->watermark = chance(3);
	attr->inherit_stat = chance(3);
	attr->remove_on_exec = chance(3);
	attr->sigtrap = p && chance(2);	/* never on events that can deliver it */
	if (chance(6)) {
		attr->freq = chance(30);
		attr->sample_period = p ? rnd_value() :
			chance(50) ? 0 : 100000 + rndn(10000000);
		attr->sample_type = rnd_value() & 0x7ffff;
	}
	if (chance(3))
		attr->wakeup_events = rndn(16);
	if (chance(3))
		attr->aux_watermark = (uint32_t)rnd_value();
	attr->read_format = chance(70) ? rnd() & 0x1f : 0;
	if (chance(3))
		attr->read_format = rnd_value();
	if (chance(1))
		memset(&u.raw[40], 0xff, 8);	/* every flag bit at once */

	/* Target: system-wide on the PMU's CPU mostly, sometimes anything */
	cpu = p && p->cpu >= 0 ? p->cpu : (int)rndn(w->ncpus);
	switch (rndn(20)) {
	case 0:
		pid = 0;
		cpu = chance(50) ? -1 : cpu;
		break;
	case 1:
		pid = chance(50) ? w->sleeper : getpid();
		cpu = -1;
		break;
	case 2:
		pid = chance(50) ? 0x7fffffff : -2;
		break;
	case 3:
		cpu = (int)rndn(w->ncpus);
		break;
	case 4:
		cpu = chance(50) ? -1 : w->ncpus + (int)rndn(4096);
		break;
	default:
		break;
	}
	if (!p && pid == -1 && chance(40)) {
		pid = 0;	/* software events: per task, as perf does */
		cpu = -1;
	}

	/* Groups: a random open event as leader, whichever PMU it has */
	if (w->nfds && chance(35)) {
		leader = fev_pick(w);
		group_fd = leader->fd;
	} else if (chance(3)) {
		group_fd = chance(50) ? w->nullfd : 1000 + (int)rndn(1000);
	}
	if (chance(50))
		flags |= PERF_FLAG_FD_CLOEXEC;
	if (chance(4))
		flags |= PERF_FLAG_FD_NO_GROUP;
	if (chance(2))
		flags |= PERF_FLAG_FD_OUTPUT;
	if (chance(2))
		flags |= PERF_FLAG_PID_CGROUP;
	if (chance(1))
		flags |= 1UL << (4 + rndn(28));
	if (chance(1))
		uptr = chance(50) ? w->badptr : NULL;

	/*
	 * No group of one of our events and a software one in a task's
	 * context: the one case that pins a driver module for good (see
	 * socpmu_pin_if_shared(); hpm.software_sibling_outlives_leader tests
	 * it), which would leave the modules of the tests after this one
	 * pinned too. "Software" is perf's software context: software events
	 * and tracepoints, and sifive_trace, an AUX PMU that registers there
	 * (seed 0x39e894af8c7547e0 grouped it under a per-task sifive_hpm
	 * event and closed the leader first).
	 */
	if (leader && leader->task && pid != -1 && !(flags & PERF_FLAG_PID_CGROUP) &&
	    leader->swctx != (!p || p->aux))
		group_fd = -1;

	fd = (int)syscall(__NR_perf_event_open, uptr, pid, cpu, group_fd, flags);
	err = errno;
	if (tracing())
		ksft_print_msg("%llu open %s type %u config %#llx pid %d cpu %d group %d flags %#lx inherit %d\n",
			       (unsigned long long)sh->iter, p ? p->name : "-", attr->type,
			       (unsigned long long)attr->config, pid, cpu, group_fd, flags,
			       attr->inherit);
	record(OP_OPEN, fd, err);
	if (fd < 0)
		return;
	sh->opened[p ? 0 : 1]++;

	/*
	 * Oracles: what a socpmu PMU must never accept. The kernel sees the
	 * first attr.size bytes (64 for size 0), the rest as zeroes.
	 */
	if (p && uptr == attr) {
		unsigned char eff[PERF_ATTR_SIZE_VER8] = { 0 };
		size_t seen = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
		const char *why = NULL;
		uint64_t c[REL_WORDS];

		memcpy(eff, u.raw, seen < sizeof(eff) ? seen : sizeof(eff));
		memcpy(&c[0], eff + offsetof(struct perf_event_attr, config), 8);
		memcpy(&c[1], eff + offsetof(struct perf_event_attr, config1), 8);
		memcpy(&c[2], eff + offsetof(struct perf_event_attr, config2), 8);
		memcpy(&c[3], eff + ATTR_CONFIG3_OFF, 8);
		for (int i = 0; i < REL_WORDS; i++)
			if (c[i] & ~p->valid[i])
				why = "config bits outside its format fields";
		if (!why && p->uncore && pid != -1 && !(flags & PERF_FLAG_PID_CGROUP))
			why = "a per-task event on a system-wide PMU";
		if (!why && attr->sample_period && !p->aux)
			why = "a sampling event";	/* AUX PMUs sample into their area */
		if (why)
			violation("%s accepted %s: config=%#llx config1=%#llx config2=%#llx config3=%#llx size=%u pid=%d cpu=%d flags=%#lx",
				  p->name, why, (unsigned long long)c[0],
				  (unsigned long long)c[1], (unsigned long long)c[2],
				  (unsigned long long)c[3], attr->size, pid, cpu, flags);
	}

	if (w->nfds >= MAX_FDS) {
		close(fd);
		return;
	}
	w->fds[w->nfds] = (struct fev){
		.fd = fd,
		.socpmu = p != NULL,
		.uncore = p && p->uncore,
		.aux = p && p->aux,
		.task = pid != -1 && !(flags & PERF_FLAG_PID_CGROUP),
		.swctx = !p || p->aux,
		.group_fmt = attr->read_format & PERF_FORMAT_GROUP,
		.read_format = attr->read_format,
	};
	if (p)
		snprintf(w->fds[w->nfds].pmu, SP_NAME_LEN, "%s", p->name);
	w->nfds++;
}

static void op_close(struct worker *w)
{
	if (w->nfds)
		fev_close(w, rndn(w->nfds));
	else
		REC(OP_CLOSE, close(1000 + rndn(100)));
}

static void op_read(struct worker *w)
{
	struct fev *e = fev_pick(w);
	uint64_t buf[1 + 4 * (MAX_FDS + 1)];
	size_t len = chance(85) ? sizeof(buf) : rndn(64);
	ssize_t n;

	if (!e) {
		REC(OP_READ, read(w->nullfd, buf, 8));
		return;
	}
	n = read(e->fd, chance(1) ? w->badptr : buf, len);
	REC(OP_READ, n);
	if (n > (ssize_t)len)
		violation("read of %zu bytes returned %zd", len, n);
	/* Monotonic counts: no reset happened since the last read */
	if (n >= 8 && e->socpmu && !e->group_fmt) {
		if (e->have_last && e->epoch == w->epoch && buf[0] < e->last)
			violation("%s: count went backwards: %llu after %llu", e->pmu,
				  (unsigned long long)buf[0], (unsigned long long)e->last);
		e->last = buf[0];
		e->epoch = w->epoch;
		e->have_last = true;
	}
}

static void op_ioctl(struct worker *w)
{
	static const unsigned long cmds[] = {
		PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, PERF_EVENT_IOC_RESET,
		PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_SET_OUTPUT,
		PERF_EVENT_IOC_SET_FILTER, PERF_EVENT_IOC_ID, PERF_EVENT_IOC_SET_BPF,
		PERF_EVENT_IOC_PAUSE_OUTPUT, PERF_EVENT_IOC_QUERY_BPF,
		PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
	};
	static const char *const filters[] = {
		"", "common_pid == 1", "filter 0x1000/0x100", "start 0/0@/bin/true",
		"\xff\xfe", "stop 0x0/0x0",
	};
	struct fev *e = fev_pick(w), *o;
	struct perf_event_attr attr;
	uint64_t val = rnd_value();
	unsigned long cmd;
	struct {
		uint32_t ids_len, prog_cnt, ids[4];
	} q = { 4, 0, { 0 } };
	long arg = 0, ret;
	int fd;

	fd = e ? e->fd : chance(50) ? w->nullfd : 1000 + (int)rndn(1000);
	cmd = chance(97) ? cmds[rndn(ARRAY_SIZE(cmds))] :
		_IO('$', 12 + rndn(20)) | (rnd() & 0x3fff0000);

	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
	case PERF_EVENT_IOC_RESET:
		arg = chance(30) ? PERF_IOC_FLAG_GROUP : chance(5) ? (long)rnd() : 0;
		if (cmd == PERF_EVENT_IOC_RESET)
			w->epoch++;
		break;
	case PERF_EVENT_IOC_REFRESH:
		arg = (long)rnd_value();
		break;
	case PERF_EVENT_IOC_PERIOD:
	case PERF_EVENT_IOC_ID:
		arg = chance(90) ? (long)&val : chance(50) ? (long)w->badptr : 0;
		break;
	case PERF_EVENT_IOC_SET_OUTPUT:
		o = fev_pick(w);
		arg = o && chance(80) ? o->fd : chance(50) ? -1 : w->nullfd;
		break;
	case PERF_EVENT_IOC_SET_FILTER:
		arg = chance(95) ? (long)filters[rndn(ARRAY_SIZE(filters))] : (long)w->badptr;
		break;
	case PERF_EVENT_IOC_SET_BPF:
		arg = chance(50) ? w->nullfd : -1;
		break;
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		arg = rndn(3);
		break;
	case PERF_EVENT_IOC_QUERY_BPF:
		arg = chance(90) ? (long)&q : (long)w->badptr;
		break;
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = chance(50) ? PERF_TYPE_BREAKPOINT : (uint32_t)rnd();
		attr.config = rnd_value();
		arg = chance(90) ? (long)&attr : (long)w->badptr;
		break;
	default:
		arg = (long)rnd_value();
		break;
	}
	if (tracing())
		ksft_print_msg("%llu ioctl fd %d cmd %#lx arg %#lx\n", (unsigned long long)sh->iter,
			       fd, cmd, (unsigned long)arg);
	ret = ioctl(fd, cmd, arg);
	REC(OP_IOCTL, ret);
}

static void op_mmap(struct worker *w)
{
	struct fev *e = fev_pick(w);
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = chance(85) ? 1 + (1u << rndn(4)) : rndn(6);
	int prot = chance(70) ? PROT_READ | PROT_WRITE : PROT_READ;
	struct fmap *m;
	void *addr;

	/* An AUX area behind an existing writable mapping */
	if (w->nmaps && chance(25)) {
		struct perf_event_mmap_page *pc;

		m = &w->maps[rndn(w->nmaps)];
		if (m->fd < 0 || !m->writable || m->aux_done || w->nmaps >= MAX_MAPS)
			return;
		pc = m->addr;
		pc->aux_offset = m->len;
		pc->aux_size = (uint64_t)page << rndn(4);
		if (chance(5))
			pc->aux_size = (uint64_t)page * 3;	/* not a power of 2 */
		addr = mmap(NULL, pc->aux_size, prot, MAP_SHARED, m->fd, (off_t)pc->aux_offset);
		REC(OP_MMAP, addr == MAP_FAILED ? -1 : 0);
		if (addr == MAP_FAILED)
			return;
		m->aux_done = true;
		w->maps[w->nmaps++] = (struct fmap){ addr, pc->aux_size, m->fd, false, true };
		(void)*(volatile unsigned char *)addr;
		return;
	}
	if (!e || w->nmaps >= MAX_MAPS) {
		addr = mmap(NULL, page, PROT_READ, MAP_SHARED, w->nullfd, 0);
		REC(OP_MMAP, addr == MAP_FAILED ? -1 : 0);
		if (addr != MAP_FAILED)
			munmap(addr, page);
		return;
	}
	addr = mmap(NULL, pages * page, prot, MAP_SHARED, e->fd,
		    chance(3) ? page * (off_t)rndn(4) : 0);
	REC(OP_MMAP, addr == MAP_FAILED ? -1 : 0);
	if (addr == MAP_FAILED)
		return;
	m = &w->maps[w->nmaps++];
	*m = (struct fmap){ addr, pages * page, e->fd, prot & PROT_WRITE, false };
	/* The user page must be readable */
	{
		volatile struct perf_event_mmap_page *pc = addr;
		uint64_t sum = pc->lock + pc->index + pc->offset + pc->time_enabled +
			       pc->time_running + pc->data_head;

		(void)sum;
	}
}

static void op_munmap(struct worker *w)
{
	int i;

	if (!w->nmaps)
		return;
	i = rndn(w->nmaps);
	REC(OP_MUNMAP, munmap(w->maps[i].addr, w->maps[i].len));
	w->maps[i] = w->maps[--w->nmaps];
}

static void op_sysfs(struct worker *w)
{
	static const char *const files[] = {
		"type", "cpumask", "poll_interval_us", "identifier", "num_cores",
		"perf_event_mux_interval_ms", "uevent", "counters",
	};
	const struct rel_pmu *p;
	char path[512], buf[4096];
	int ret;

	if (!w->npmus)
		return;
	p = &w->pmus[rndn(w->npmus)];
	if (p->nalias && chance(50))
		snprintf(path, sizeof(path), SP_PMU_BUS "/%s/events/%s", p->name,
			 p->alias[rndn(p->nalias)].name);
	else if (p->nfmt && chance(30))
		snprintf(path, sizeof(path), SP_PMU_BUS "/%s/format/%s", p->name,
			 p->fmt[rndn(p->nfmt)].name);
	else
		snprintf(path, sizeof(path), SP_PMU_BUS "/%s/%s", p->name,
			 files[rndn(ARRAY_SIZE(files))]);
	ret = sp_read_file(path, buf, chance(90) ? sizeof(buf) : 1 + rndn(8));
	if (ret == -ENOENT)
		return;		/* not every PMU has every file */
	record(OP_SYSFS, ret, -ret);
}

/* poll_interval_us: valid and invalid values; the original comes back later */
static void op_poll_interval(struct worker *w)
{
	static const char *const vals[] = {
		"100", "1000", "100000", "60000000", "0", "99", "60000001", "abc",
		"18446744073709551615", "-1", "0x64", "",
	};
	const struct rel_pmu *p;
	char path[512], cur[24];
	int i, ret;

	if (!w->npmus || w->child)
		return;
	p = &w->pmus[rndn(w->npmus)];
	snprintf(path, sizeof(path), SP_PMU_BUS "/%s/poll_interval_us", p->name);
	if (sp_read_file(path, cur, sizeof(cur)) <= 0)
		return;
	for (i = 0; i < w->npoll; i++)
		if (!strcmp(w->poll_pmu[i], p->name))
			break;
	if (i == w->npoll) {
		if (w->npoll >= MAX_PMUS)
			return;
		snprintf(w->poll_pmu[i], SP_NAME_LEN, "%s", p->name);
		snprintf(w->poll_saved[i], sizeof(w->poll_saved[i]), "%s", cur);
		w->npoll++;
	}
	/* Short periods do not last: the next write is the original half the time */
	ret = sp_write_file(path, chance(50) ? w->poll_saved[i] :
			    vals[rndn(ARRAY_SIZE(vals))]);
	record(OP_POLL, ret, -ret);
}

static void poll_restore(struct worker *w)
{
	char path[512];

	for (int i = 0; i < w->npoll; i++) {
		snprintf(path, sizeof(path), SP_PMU_BUS "/%s/poll_interval_us", w->poll_pmu[i]);
		sp_write_file(path, w->poll_saved[i]);
	}
	w->npoll = 0;
}

/* Fault injection: remove one of our simulated devices and create it again */
static void op_replug(struct worker *w)
{
	struct rel_simdev *d;
	int ret;

	if (!w->nsim || w->child)
		return;
	d = &w->sim[rndn(w->nsim)];
	if (d->alive) {
		ret = sp_sim_del_device(d->name);
		record(OP_REPLUG, ret, -ret);
		if (!ret) {
			d->alive = false;
			if (w->nfds)
				sh->faults++;
		}
	}
	ret = sp_sim_new_device(d->spec);
	record(OP_REPLUG, ret, -ret);
	d->alive = !ret;
	rescan(w);
}

static void op_prctl(struct worker *w)
{
	(void)w;
	REC(OP_PRCTL, prctl(chance(50) ? PR_TASK_PERF_EVENTS_DISABLE :
			    PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0));
}

static void op_affinity(struct worker *w)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (chance(80))
		CPU_SET(rndn(w->ncpus), &set);
	else
		for (int c = 0; c < w->ncpus; c++)
			CPU_SET(c, &set);
	REC(OP_AFFINITY, sched_setaffinity(0, sizeof(set), &set));
}

static void op_pollfd(struct worker *w)
{
	struct fev *e = fev_pick(w);
	struct pollfd pfd = { e ? e->fd : w->nullfd, POLLIN | POLLHUP, 0 };

	REC(OP_POLLFD, poll(&pfd, 1, 0));
}

static void do_op(struct worker *w, bool allow_fork);

/*
 * fork: the child works on the inherited fds for a few operations, maybe
 * opens events that inherit, then exits or execs with everything open. The
 * parent may open events on the child before letting it go.
 */
static void op_fork(struct worker *w, bool exec)
{
	uint64_t child_seed = rnd();
	int pipefd[2], status;
	struct fev *e;
	pid_t pid;
	char c = 0;

	if (w->child || pipe(pipefd))
		return;
	pid = fork();
	record(exec ? OP_EXEC : OP_FORK, pid, errno);
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (!pid) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		rng = child_seed;
		w->child = true;
		w->nmaps = 0;	/* the mappings are inherited, nothing to clean */
		for (unsigned int n = rndn(8); n; n--)
			do_op(w, false);
		if (exec) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (chance(50))
			_exit(0);
		exit(0);
	}
	close(pipefd[0]);
	/* Events on the child: software ones count, socpmu ones must fail */
	for (unsigned int n = rndn(3); n && w->nfds < MAX_FDS; n--) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		const struct rel_pmu *p = w->npmus && chance(50) ? &w->pmus[rndn(w->npmus)] : NULL;
		int fd;

		attr.type = p ? p->type : PERF_TYPE_SOFTWARE;
		attr.config = p && p->nalias ? p->alias[rndn(p->nalias)].cfg[0] : rndn(10);
		attr.inherit = chance(50);
		attr.enable_on_exec = chance(30);
		attr.disabled = attr.enable_on_exec;
		fd = (int)syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (tracing())
			ksft_print_msg("%llu open on child %d: %s config %#llx inherit %d enable_on_exec %d\n",
				       (unsigned long long)sh->iter, pid, p ? p->name : "software",
				       (unsigned long long)attr.config, attr.inherit,
				       attr.enable_on_exec);
		REC(OP_OPEN, fd);
		if (fd < 0)
			continue;
		if (p && p->uncore)
			violation("%s accepted a per-task event on pid %d", p->name, pid);
		e = &w->fds[w->nfds++];
		*e = (struct fev){ .fd = fd, .socpmu = p != NULL, .task = true,
				   .swctx = !p || p->aux };
	}
	if (write(pipefd[1], &c, 1) < 0)
		ksft_print_msg("fork: pipe write failed\n");
	close(pipefd[1]);
	if (waitpid(pid, &status, 0) == pid && WIFSIGNALED(status)) {
		sh->child_signals++;
		violation("fuzzer child %d killed by signal %d (%s)", pid, WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
	}
	w->epoch++;	/* the child may have reset shared events */
}

static void do_op(struct worker *w, bool allow_fork)
{
	unsigned int r = rndn(1000), op = 0;
	uint64_t t0 = sp_now_ns();

	while (op < OP_NR - 1 && r >= op_weight[op])
		r -= op_weight[op++];
	switch (op) {
	case OP_OPEN:
		op_open(w);
		break;
	case OP_CLOSE:
		op_close(w);
		break;
	case OP_READ:
		op_read(w);
		break;
	case OP_IOCTL:
		op_ioctl(w);
		break;
	case OP_MMAP:
		op_mmap(w);
		break;
	case OP_MUNMAP:
		op_munmap(w);
		break;
	case OP_FORK:
	case OP_EXEC:
		if (allow_fork)
			op_fork(w, op == OP_EXEC);
		break;
	case OP_PRCTL:
		op_prctl(w);
		break;
	case OP_AFFINITY:
		op_affinity(w);
		break;
	case OP_SYSFS:
		op_sysfs(w);
		break;
	case OP_POLL:
		op_poll_interval(w);
		break;
	case OP_REPLUG:
		op_replug(w);
		break;
	default:
		op_pollfd(w);
		break;
	}
	if (!w->child)
		sh->ns[op] += sp_now_ns() - t0;
}

/* ---- a pass, in a worker process ---- */

static int run_pass(uint64_t seed, uint64_t iterations, uint64_t deadline_ns)
{
	static struct rel_pmu pmus[MAX_PMUS];
	struct worker w = { .pmus = pmus };
	long page = sysconf(_SC_PAGESIZE);
	char path[256];

	rng = seed;
	w.ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	w.nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	w.badptr = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w.sleeper = fork();
	if (!w.sleeper) {
		for (;;)
			pause();
	}
	w.nsim = rel_sim_create_all(w.sim, MAX_SIMDEVS, "fz_", exclude_types);
	if (w.nsim < 0)
		w.nsim = 0;
	/* Let counters move where a model has a workload */
	for (int i = 0; i < w.nsim; i++) {
		snprintf(path, sizeof(path), SP_SIM_DEBUGFS "/%s/workload", w.sim[i].name);
		if (sp_path_exists(path))
			sp_write_file(path, "matmul");
	}
	rescan(&w);
	find_other_types(&w);

	for (uint64_t i = 0; i < iterations; i++) {
		sh->iter = i;
		if (!(i & 63) && deadline_ns && sp_now_ns() > deadline_ns)
			break;
		do_op(&w, true);
		sh->done++;
	}

	close_all(&w);
	poll_restore(&w);
	rel_sim_delete_all(w.sim, w.nsim);
	kill(w.sleeper, SIGKILL);
	waitpid(w.sleeper, NULL, 0);
	close(w.nullfd);
	return 0;
}

static int run_worker(uint64_t seed, uint64_t iterations, uint64_t deadline_ns,
		      char *why, size_t len)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		_exit(run_pass(seed, iterations, deadline_ns));
	if (waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, len, "worker killed by signal %d (%s) at iteration %llu",
			 WTERMSIG(status), strsignal(WTERMSIG(status)),
			 (unsigned long long)sh->iter);
		return -1;
	}
	if (WEXITSTATUS(status)) {
		snprintf(why, len, "worker exited with status %d", WEXITSTATUS(status));
		return -1;
	}
	snprintf(why, len, "no signal, %llu iterations so far",
		 (unsigned long long)sh->done);
	return 0;
}

static void print_table(void)
{
	ksft_print_msg("%-14s %9s %9s %8s  %s\n", "operation", "calls", "ok", "us/call",
		       "errors (errno:count)");
	for (int op = 0; op < OP_NR; op++) {
		char errs[1024];
		int len = 0;

		errs[0] = '\0';
		for (int e = 0; e <= MAX_ERRNO && len < (int)sizeof(errs) - 40; e++) {
			if (!sh->err[op][e])
				continue;
			len += snprintf(errs + len, sizeof(errs) - len, "%s%s:%llu",
					len ? " " : "", e ? strerrorname_np(e) ?: "?" : "other",
					(unsigned long long)sh->err[op][e]);
		}
		ksft_print_msg("%-14s %9llu %9llu %8.1f  %s\n", op_names[op],
			       (unsigned long long)sh->calls[op],
			       (unsigned long long)sh->ok[op],
			       sh->calls[op] ? sh->ns[op] / 1e3 / sh->calls[op] : 0.0, errs);
	}
	ksft_print_msg("events opened: %llu on socpmu PMUs, %llu on others; device removals with events open: %llu\n",
		       (unsigned long long)sh->opened[0], (unsigned long long)sh->opened[1],
		       (unsigned long long)sh->faults);
}

static uint64_t seed_from_urandom(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &s, sizeof(s)) != sizeof(s))
			s = 0;
		close(fd);
	}
	return s ?: sp_now_ns();
}

int main(int argc, char **argv)
{
	uint64_t seed = DEFAULT_SEED, iterations = 20000, seconds = 0, t0;
	struct rel_modstate mods;
	static struct rel_slabs before, after;
	char names[SP_MAX_PMUS][SP_NAME_LEN], why[256];
	bool leak = true, random_seed = false, signal_ok = true;
	int passes = 2, opt, npmus, refs_bad = 0, reload_bad = 0;
	char refs[256] = "";

	while ((opt = getopt(argc, argv, "s:n:t:p:Lx:vT:")) != -1) {
		switch (opt) {
		case 's':
			if (!strcmp(optarg, "random"))
				random_seed = true;
			else
				seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			iterations = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			passes = atoi(optarg);
			break;
		case 'L':
			leak = false;
			break;
		case 'x':
			exclude_types = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'T':
			if (sscanf(optarg, "%" SCNu64 ":%" SCNu64, &trace_first, &trace_last) != 2) {
				fprintf(stderr, "-T FIRST:LAST\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n ITERATIONS] [-t SECONDS] [-p PASSES] [-L] [-x TYPES] [-v] [-T FIRST:LAST]\n",
				argv[0]);
			return 2;
		}
	}
	if (passes < 1)
		passes = 1;
	if (random_seed)
		seed = seed_from_urandom();

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	sp_sim_available();
	npmus = sp_list_socpmu(names, SP_MAX_PMUS);
	if (npmus <= 0 && sp_sim_available())
		ksft_exit_skip("no socpmu PMU and no simulator\n");
	ksft_set_plan(passes + 4);
	ksft_print_msg("seed %#llx, %llu iterations in %d passes (reproduce: %s -s %#llx -n %llu -p %d)\n",
		       (unsigned long long)seed, (unsigned long long)iterations, passes,
		       argv[0], (unsigned long long)seed, (unsigned long long)iterations, passes);
	if (seconds)
		ksft_print_msg("at most %llu s\n", (unsigned long long)seconds);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	if (rel_mod_state(&mods))
		mods.n = 0;
	if (!mods.n && leak) {
		ksft_print_msg("no socpmu modules in modules.dep: no module reload, no leak check\n");
		leak = false;
	}

	find_tracepoints();

	t0 = sp_now_ns();
	for (int pass = 1; pass <= passes; pass++) {
		uint64_t n = iterations / passes + (pass == passes ? iterations % passes : 0);
		uint64_t deadline = seconds ? t0 + seconds * 1000000000ULL * pass / passes : 0;
		uint64_t pass_seed = seed + (uint64_t)(pass - 1) * 0x100000001ULL;
		bool measured = leak && pass == passes && passes > 1;
		int ret;

		/* The previous pass ended with a module reload: the baseline */
		if (measured)
			rel_slab_snapshot(&before);
		ksft_print_msg("pass %d: seed %#llx, %llu iterations\n", pass,
			       (unsigned long long)pass_seed, (unsigned long long)n);
		ret = run_worker(pass_seed, n, deadline, why, sizeof(why));
		if (ret)
			signal_ok = false;
		ksft_test_result(!ret, "pass %d: %s\n", pass, why);

		/* Every fd of the worker is closed: references come back */
		rel_rcu_settle();
		if (mods.n && !refs_bad)
			refs_bad = rel_mod_compare(&mods, refs, sizeof(refs), 5000);
		/*
		 * Reload the modules: that frees the PMUs left dead by device
		 * removals with events open, which otherwise stay until the
		 * driver goes (and makes the next pass start as the last one ends).
		 */
		if (leak) {
			ret = rel_mod_reload(&mods);
			if (ret) {
				ksft_print_msg("module reload after pass %d: %s\n", pass,
					       strerror(-ret));
				reload_bad = ret;
			}
		}
		if (measured) {
			char top[400];
			long total;

			rel_slab_snapshot(&after);
			total = rel_slab_delta(&before, &after, top, sizeof(top));
			ksft_print_msg("slab delta over pass %d: %ld bytes; grew most: %s\n",
				       pass, total, top);
			ksft_test_result(!reload_bad && total < LEAK_BOUND,
					 "no leak: slab grew %ld bytes over %llu iterations (bound %ld)\n",
					 total, (unsigned long long)n, LEAK_BOUND);
		}
	}
	if (mods.n)
		ksft_test_result(!refs_bad, "module references after all fds closed: %s\n", refs);
	if (!mods.n)
		ksft_test_result_skip("module references: no socpmu modules\n");
	if (!leak || passes < 2)
		ksft_test_result_skip("leak check: %s\n", passes < 2 ? "needs 2 passes" : "disabled");

	print_table();
	ksft_print_msg("iterations %llu, violations %llu, child signals %llu, %.1f s\n",
		       (unsigned long long)sh->done, (unsigned long long)sh->violations,
		       (unsigned long long)sh->child_signals, (sp_now_ns() - t0) / 1e9);
	for (int i = 0; i < sh->nlog; i++)
		ksft_print_msg("  %s\n", sh->log[i]);
	ksft_test_result(!sh->violations, "oracles: no invalid request accepted, no count went backwards (%llu violations)\n",
			 (unsigned long long)sh->violations);
	ksft_test_result(signal_ok && !sh->child_signals,
			 "no signal in the fuzzer or its children\n");
	ksft_finished();
}
