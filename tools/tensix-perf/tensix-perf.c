// SPDX-License-Identifier: GPL-2.0-only
/*
 * tensix-perf - count every Tensix performance counter of a tensix_<n> PMU
 * while a command runs, and print the counters, the derived metrics and the
 * bound classification of the Tensix performance counter guides.
 *
 *   tensix-perf stat [options] [--] CMD [ARGS...]
 *   tensix-perf stat -a [options]            (until SIGINT/SIGTERM)
 *   tensix-perf list [--pmu NAME]
 *
 * The PMU is uncore (system-wide): every event is opened with pid = -1 on
 * the CPU of the PMU's cpumask. Events come from the PMU's events/ directory
 * and are encoded through its format/ files, like perf does.
 *
 * Scheduling: all non-L1 events (and the bank cycle counts) are pinned, so
 * they count the whole time. The L1 bank counts the signals of one mux value
 * at a time, so the L1 events of each mux value form a group led by an L1
 * cycles event latched to the same mux; with more than one such group the
 * kernel multiplexes them and their counts are estimated over the whole run
 * from the L1 cycles each group counted (marked '*', see l1_estimates()).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "pmu.h"

#define PROG		"tensix-perf"
#define EXIT_SETUP	2	/* usage errors, no PMU, events cannot be opened */
#define BANK_OTHER	TENSIX_NR_BANKS	/* events whose alias has no known bank */
#define MIN_INTERVAL_MS	10
#define TP_MAX_ALIASES	4	/* other names of one counter */
#define TP_MAX_CHIPS	64	/* PMUs of --pmu all (a Galaxy has 32 chips) */

struct ev {
	char name[TP_PMU_NAME_LEN];	/* sysfs alias name */
	char terms[TP_ALIAS_LEN + 64];	/* alias text (+ overrides) */
	int info;			/* index in tp_events[], -1 if unknown */
	/* the other names of the same counter (seed aliases): tp_events[] indices */
	int alias[TP_MAX_ALIASES];
	int nr_alias;
	unsigned int bank;		/* enum tensix_bank or BANK_OTHER */
	unsigned int mux;		/* L1 mux (L1 bank only) */
	uint64_t sel;			/* "event" term, for the CSV counter_id */
	bool cycles;			/* a bank's reference cycles */
	bool leader;			/* opened as a group leader */
	bool pinned;
	int leader_idx;			/* index of the group leader in ctx.ev */
	uint64_t cfg[3];
	int fd;
	uint64_t id;			/* PERF_EVENT_IOC_ID, to find it in its group's read */
	/* cumulative readings: count, time_enabled, time_running */
	uint64_t cur[3];
	uint64_t prev[3];		/* at the previous interval */
	bool dead;			/* could not be scheduled (error state) */
	/* the window being reported */
	struct tp_val val;
	double raw;			/* the count of the window, unscaled */
	double pct;			/* running / enabled, in percent */
};

struct opts {
	const char *pmu;
	const char *arch;
	const char *output;
	const char *sep;
	const char *csv_counters;
	const char *csv_metrics;
	char *events;			/* -e: comma-separated names, NULL: every event */
	long core;			/* -1: sum over every core */
	long interval_ms;		/* 0: no interval printing */
	long l1mux;			/* -1: every mux value, multiplexed */
	bool all;
	bool list_metrics;		/* list --metrics */
	int argc;
	char **argv;
};

struct ctx {
	struct opts o;
	struct tp_pmu pmu;
	const struct tp_platform *plat;
	struct ev *ev;
	size_t nr_ev;
	uint64_t *rbuf;			/* a group read: 3 + 2 * nr_ev words */
	unsigned int mux_groups;	/* L1 groups, > 1 means multiplexed */
	bool compact_header;		/* -I: the column header is out */
	bool counted[TP_NR_METRICS];	/* -I: metrics whose counters are all opened */
	FILE *out;
	FILE *csv_counters, *csv_metrics;	/* opened before the command runs */
	struct timespec t0;
	/*
	 * --pmu all, or a list: one context per chip (PMU), and this one holds
	 * their sum (chip 0's events, no file descriptors of its own)
	 */
	struct ctx *chips;
	size_t nr_chips;
	const char *tag;		/* several chips: the PMU's name, or "all" */
};

static void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- help ---- */

static const char usage_text[] =
"Usage: tensix-perf stat [options] [--] CMD [ARGS...]\n"
"       tensix-perf stat -a [options] [CMD [ARGS...]]\n"
"       tensix-perf list [--pmu NAME]\n"
"       tensix-perf list --metrics\n"
"\n"
"Count every Tensix performance counter of a tensix_<n> PMU while CMD runs\n"
"(or, with -a and no CMD, until SIGINT/SIGTERM), then print the counters\n"
"grouped by bank and thread, the derived metrics and the bound classification.\n"
"The PMU is uncore: counting is always system-wide (-a is accepted and implied).\n"
"\n"
"Options:\n"
"  -a, --all-cpus          system-wide counting (the only mode; accepted)\n"
"      --pmu NAME          PMU to use (tensix_N, N, or a card's tensix_<PCI\n"
"                          address>); default: the tensix_* with the lowest N\n"
"                          in /sys/bus/event_source/devices, else the first\n"
"                          card PMU by name. A comma-separated list, or all\n"
"                          (every tensix_N): one chip per PMU, each reported,\n"
"                          then their sum (all chips; -x records start with\n"
"                          the PMU's name or all; the CSV files hold the sum)\n"
"      --core N            count core N only (config1 core=N, bycore=1 for\n"
"                          core 0); default: the sum over every core\n"
"      --l1mux M           count only the L1 signals of mux value M (no\n"
"                          multiplexing); default: every mux value, multiplexed\n"
"      --arch ARCH         bandwidth table: wormhole (Wormhole B0), blackhole,\n"
"                          quasar; default: the PMU's identifier file\n"
"  -e, --event LIST        count only these events (comma-separated names of\n"
"                          the PMU's events/, also as tensix_0/name/; may be\n"
"                          repeated); the banks' cycles are added. Metrics\n"
"                          whose counters are left out are n/a\n"
"  -I, --interval-print MS every MS milliseconds (>= 10) print one line per\n"
"                          metric (time, name, value) for the metrics whose\n"
"                          counters are counted; with -x, the counters and\n"
"                          metrics of each interval as records\n"
"  -x, --field-separator SEP\n"
"                          machine-readable output, fields separated by SEP\n"
"  -o, --output FILE       write the report to FILE (default: stderr)\n"
"      --csv-counters FILE write the counters of the whole run as CSV:\n"
"                          thread,bank,counter_name,counter_id,cycles,count,l1_mux,\n"
"                          aliases (one row per counter; aliases: its other\n"
"                          names, ';'-separated)\n"
"      --csv-metrics FILE  write the metrics of the whole run as CSV:\n"
"                          name,value,inputs (inputs: NAME=value;NAME=value)\n"
"  -h, --help              this text\n"
"      --version           the version (first word: tensix-perf --version)\n"
"\n"
"Multiplexing: a core's L1 bank counts the signals of one mux value at a time\n"
"(wormhole: mux 0 = NoC ring 0 / L1 arbitration, mux 1 = NoC ring 1 / TDMA).\n"
"The L1 events of each mux value are a group with their own L1 cycle count,\n"
"and the kernel multiplexes the groups; their values are estimates over the\n"
"whole run, count * cycles of the run / L1 cycles the group counted, marked\n"
"'*' (running_pct < 100 with -x).\n"
"Every other event is pinned and exact. A counter that never ran is\n"
"'<not counted>' (n/a in CSV). A metric whose denominator is 0 or whose input\n"
"was not counted is 'n/a'.\n"
"\n"
"Metrics (counts and cycles are summed over the selected cores): the seed's\n"
"and the tt-metal set (tech_reports/PerfCounters/perf-counters.md), listed\n"
"with their formulas by 'tensix-perf list --metrics' and in tensix-perf.rst.\n"
"A fraction (a share of a whole, e.g. fpu_utilization, thread0_stall_rate)\n"
"is within [0, 1]; a ratio (e.g. stall_overlap_t0) may exceed 1. Counters of\n"
"different banks are compared as rates per cycle of their own bank.\n"
"Bandwidth table (NoC word B, unpacker peak B/cyc, packer peak B/cyc):\n"
"  Wormhole B0 32, 80, 80; Blackhole 256, 120, 120; Quasar 32, 80, 80\n"
"\n"
"Bound classification (heuristic): scores, each a share of its bank's cycles\n"
"  math-bound   = math_utilization\n"
"  unpack-bound = (UNPACK0_BUSY_THREAD0 + UNPACK1_BUSY_THREAD0) /\n"
"                 (2 * TDMA_UNPACK cycles), the unpackers' busy share\n"
"  pack-bound   = pack_utilization\n"
"  risc-bound   = thread_stall_rate - instruction_issue_rate\n"
"The highest defined score wins; scores within 1e-6 of it are a tie, won by\n"
"the first in this order; n/a when no score is defined.\n"
"\n"
"Environment: TENSIX_PERF_SYSFS replaces /sys/bus/event_source/devices (tests).\n"
"Exit status: the command's (128+N if killed by signal N), 2 on setup errors.\n";

/* After a usage error: the error is on stderr already, then one line, not the help */
static void usage_short(void)
{
	fprintf(stderr, "Usage: " PROG " stat|list [OPTION]... [-- COMMAND [ARG]...]; "
		"try '" PROG " --help'.\n");
}

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

/* ---- small helpers ---- */

static double now_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static const char *bank_label(unsigned int bank)
{
	return bank < TENSIX_NR_BANKS ? tp_bank_name(bank) : "OTHER";
}

/* ---- building the event list ---- */

static struct ev *add_ev(struct ctx *c)
{
	struct ev *e = realloc(c->ev, (c->nr_ev + 1) * sizeof(*e));

	if (!e)
		return NULL;
	c->ev = e;
	e = &c->ev[c->nr_ev++];
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->info = -1;
	e->leader_idx = -1;
	return e;
}

static void ev_from_alias(struct ev *e, const struct tp_alias *a)
{
	uint64_t v;

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->leader_idx = -1;
	snprintf(e->name, sizeof(e->name), "%s", a->name);
	snprintf(e->terms, sizeof(e->terms), "%s", a->terms);
	e->bank = !tp_term_get(a->terms, "bank", &v) && v < TENSIX_NR_BANKS ?
		  (unsigned int)v : BANK_OTHER;
	e->mux = !tp_term_get(a->terms, "l1mux", &v) && v < TP_MAX_MUX ? (unsigned int)v : 0;
	e->cycles = !tp_term_get(a->terms, "cycles", &v) && v;
	e->sel = !tp_term_get(a->terms, "event", &v) ? v : 0;
	/* a grant counter's select is 256 + its request's (TENSIX_SEL_MASK) */
	if (!tp_term_get(a->terms, "grant", &v) && v)
		e->sel += 256;
	e->info = e->cycles ? -1 : tp_event_find(a->name);
}

/* Encode an event's terms plus the core selection. */
static int encode(struct ctx *c, struct ev *e)
{
	char errbuf[512], core[64];

	memset(e->cfg, 0, sizeof(e->cfg));
	if (tp_encode(&c->pmu, e->terms, e->cfg, errbuf, sizeof(errbuf))) {
		err("event %s: %s", e->name, errbuf);
		return -1;
	}
	if (c->o.core < 0)
		return 0;
	snprintf(core, sizeof(core), "core=%ld%s", c->o.core, c->o.core ? "" : ",bycore=1");
	if (tp_encode(&c->pmu, core, e->cfg, errbuf, sizeof(errbuf))) {
		err("--core: %s", errbuf);
		return -1;
	}
	return 0;
}

/*
 * Normalise an event name of -e: "tensix_0/fpu_counter/" or "FPU_COUNTER"
 * to "fpu_counter". Returns false when @len is too small.
 */
static bool norm_event_name(const char *in, size_t inlen, char *out, size_t len)
{
	const char *slash = memchr(in, '/', inlen);
	size_t i;

	if (slash) {
		inlen -= (size_t)(slash + 1 - in);
		in = slash + 1;
		if (inlen && in[inlen - 1] == '/')
			inlen--;
	}
	if (inlen + 1 > len)
		return false;
	for (i = 0; i < inlen; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[i] = '\0';
	return true;
}

/* Terms (alias text) of the PMU's event @name, or NULL */
static const char *alias_terms(const struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->pmu.nr_aliases; i++)
		if (!strcmp(c->pmu.aliases[i].name, name))
			return c->pmu.aliases[i].terms;
	return NULL;
}

/*
 * Was the event @name (alias text @terms) chosen with -e? Without -e every
 * event is. An event is chosen by its name or by any other name of the same
 * counter (the seed's aliases and the RTL names), so that every metric
 * reading that counter under either name gets it.
 */
static bool chosen(const struct ctx *c, const char *name, const char *terms)
{
	const char *p = c->o.events;

	if (!p)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");
		char norm[TP_PMU_NAME_LEN];

		if (norm_event_name(p, n, norm, sizeof(norm))) {
			const char *t = alias_terms(c, norm);

			if (!strcmp(norm, name) || (t && !strcmp(t, terms)))
				return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

/* Every name given with -e must be one of the PMU's events */
static int check_chosen(const struct ctx *c)
{
	const char *p = c->o.events;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		char norm[TP_PMU_NAME_LEN];
		bool found = false;

		if (norm_event_name(p, n, norm, sizeof(norm)))
			found = alias_terms(c, norm) != NULL;
		if (!found || !n) {
			err("-e: '%.*s' is not an event of %s (tensix-perf list shows them)",
			    (int)n, p, c->pmu.name);
			return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

/*
 * The PMU lists a counter under its RTL name and, for 21 counters, under
 * the seed's name too (fpu_counter and fpu_instruction: the same select).
 * Each counter is opened once, under its first name in the table (the
 * RTL's), with the others as its aliases: one count, one report row, every
 * metric that reads it under either name. True when @tmp was such an
 * alias of an event already added.
 */
static bool merge_alias(struct ctx *c, const struct ev *tmp)
{
	for (size_t i = 0; i < c->nr_ev; i++) {
		struct ev *e = &c->ev[i];

		if (e->cycles || tmp->cycles || e->bank != tmp->bank || e->mux != tmp->mux ||
		    strcmp(e->terms, tmp->terms))
			continue;
		if (tmp->info < 0 || e->nr_alias == TP_MAX_ALIASES)
			return true;	/* a name the table does not know: the count is there */
		if (e->info < 0 || tmp->info < e->info) {
			/* the new name comes first in the table: it names the row */
			if (e->info >= 0)
				e->alias[e->nr_alias++] = e->info;
			e->info = tmp->info;
			snprintf(e->name, sizeof(e->name), "%s", tmp->name);
		} else {
			e->alias[e->nr_alias++] = tmp->info;
		}
		return true;
	}
	return false;
}

static int build_events(struct ctx *c)
{
	const struct tp_alias *l1_cycles = NULL;
	bool mux_used[TP_MAX_MUX] = { false };
	struct ev tmp;

	/*
	 * Non-L1 events, in bank order, in one pinned group: one enable and one
	 * disable start and stop them all, so that every ratio of two of them
	 * covers the same window (separate groups, enabled one after the
	 * other, let a short run's numerator outlast its denominator).
	 */
	int first = -1;

	if (check_chosen(c))
		return -1;
	for (unsigned int bank = 0; bank <= BANK_OTHER; bank++) {
		bool bank_used = false;

		if (bank == TENSIX_BANK_L1)
			continue;
		/* any chosen event of the bank, its cycles (-e fpu_cycles) too */
		for (size_t i = 0; i < c->pmu.nr_aliases; i++) {
			ev_from_alias(&tmp, &c->pmu.aliases[i]);
			bank_used |= tmp.bank == bank && chosen(c, tmp.name, tmp.terms);
		}
		for (size_t i = 0; i < c->pmu.nr_aliases; i++) {
			struct ev *e;

			ev_from_alias(&tmp, &c->pmu.aliases[i]);
			/* a bank's cycles come with any chosen event of the bank */
			if (tmp.bank != bank ||
			    !(tmp.cycles ? bank_used : chosen(c, tmp.name, tmp.terms)))
				continue;
			if (merge_alias(c, &tmp))
				continue;
			e = add_ev(c);
			if (!e)
				goto nomem;
			*e = tmp;
			if (first < 0) {
				first = (int)(c->nr_ev - 1);
				e->leader = e->pinned = true;
			}
			e->leader_idx = first;
		}
	}

	/* L1: which mux values have events, and the cycles alias */
	for (size_t i = 0; i < c->pmu.nr_aliases; i++) {
		ev_from_alias(&tmp, &c->pmu.aliases[i]);
		if (tmp.bank != TENSIX_BANK_L1)
			continue;
		if (tmp.cycles) {
			l1_cycles = &c->pmu.aliases[i];
			continue;
		}
		if ((c->o.l1mux < 0 || tmp.mux == c->o.l1mux) && chosen(c, tmp.name, tmp.terms))
			mux_used[tmp.mux] = true;
	}
	/* -e l1_cycles alone: the cycles of one mux group (--l1mux's, or 0) */
	if (l1_cycles && c->o.events && chosen(c, l1_cycles->name, l1_cycles->terms)) {
		bool any = false;

		for (unsigned int m = 0; m < TP_MAX_MUX; m++)
			any |= mux_used[m];
		if (!any)
			mux_used[c->o.l1mux >= 0 ? c->o.l1mux : 0] = true;
	}
	if (c->o.l1mux >= 0 && !mux_used[c->o.l1mux] && !c->o.events) {
		err("%s has no L1 events with l1mux=%ld", c->pmu.name, c->o.l1mux);
		return -1;
	}
	for (unsigned int m = 0; m < TP_MAX_MUX; m++)
		c->mux_groups += mux_used[m];
	/*
	 * Multiplexed L1 groups are estimated against the cycles of a bank
	 * that counts the whole window (l1_estimates()): -e with L1 events
	 * only gets one bank's cycles, pinned.
	 */
	for (size_t i = 0; c->mux_groups > 1 && first < 0 && i < c->pmu.nr_aliases; i++) {
		struct ev *e;

		ev_from_alias(&tmp, &c->pmu.aliases[i]);
		if (!tmp.cycles || tmp.bank == TENSIX_BANK_L1 || tmp.bank >= TENSIX_NR_BANKS)
			continue;
		e = add_ev(c);
		if (!e)
			goto nomem;
		*e = tmp;
		first = (int)(c->nr_ev - 1);
		e->leader = e->pinned = true;
		e->leader_idx = first;
	}

	/* One group per mux value: L1 cycles latched to that mux, then its events */
	for (unsigned int m = 0; m < TP_MAX_MUX; m++) {
		int leader = -1;
		struct ev *e;

		if (!mux_used[m])
			continue;
		if (l1_cycles) {
			e = add_ev(c);
			if (!e)
				goto nomem;
			ev_from_alias(e, l1_cycles);
			/*
			 * l1_cycles does not go through the mux: as the group's
			 * leader it starts the L1 bank with its siblings' mux.
			 */
			e->mux = m;
			e->leader = true;
			leader = (int)(c->nr_ev - 1);
			e->leader_idx = leader;
		}
		for (size_t i = 0; i < c->pmu.nr_aliases; i++) {
			ev_from_alias(&tmp, &c->pmu.aliases[i]);
			if (tmp.bank != TENSIX_BANK_L1 || tmp.cycles || tmp.mux != m ||
			    !chosen(c, tmp.name, tmp.terms) || merge_alias(c, &tmp))
				continue;
			e = add_ev(c);
			if (!e)
				goto nomem;
			*e = tmp;
			if (leader < 0) {
				e->leader = true;
				leader = (int)(c->nr_ev - 1);
			}
			e->leader_idx = leader;
		}
		/* A single L1 group never conflicts: it can be pinned */
		c->ev[leader].pinned = c->mux_groups == 1;
	}

	if (!c->nr_ev) {
		err("%s has no events (empty %s/events?)", c->pmu.name, c->pmu.dir);
		return -1;
	}
	for (size_t i = 0; i < c->nr_ev; i++)
		if (encode(c, &c->ev[i]))
			return -1;
	return 0;

nomem:
	err("out of memory");
	return -1;
}

/* ---- perf ---- */

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int open_events(struct ctx *c)
{
	c->rbuf = calloc(3 + 2 * c->nr_ev, sizeof(*c->rbuf));
	if (!c->rbuf) {
		err("out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->nr_ev; i++) {
		struct ev *e = &c->ev[i];
		struct perf_event_attr attr;
		int group_fd = e->leader ? -1 : c->ev[e->leader_idx].fd;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = c->pmu.type;
		attr.config = e->cfg[0];
		attr.config1 = e->cfg[1];
		attr.config2 = e->cfg[2];
		/*
		 * A group is read in one go: its counters and their bank's
		 * cycles come from one snapshot, with nothing between them.
		 */
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				   PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.disabled = e->leader;
		attr.pinned = e->leader && e->pinned;

		e->fd = sys_perf_event_open(&attr, -1, c->pmu.cpu, group_fd,
					    PERF_FLAG_FD_CLOEXEC);
		if (e->fd >= 0) {
			if (!ioctl(e->fd, PERF_EVENT_IOC_ID, &e->id))
				continue;
			err("cannot get the id of %s/%s/: %s", c->pmu.name, e->name,
			    strerror(errno));
			return -1;
		}
		if (errno == EACCES || errno == EPERM) {
			err("no permission to open %s events (run as root or lower "
			    "/proc/sys/kernel/perf_event_paranoid)", c->pmu.name);
		} else if (errno == EMFILE || errno == ENFILE) {
			err("too many open files (%zu events; raise ulimit -n)", c->nr_ev);
		} else {
			int e_no = errno;

			err("cannot open event %s/%s/ (config=0x%" PRIx64 " config1=0x%" PRIx64
			    ") on cpu %d: %s%s", c->pmu.name, e->name, e->cfg[0], e->cfg[1],
			    c->pmu.cpu, strerror(e_no),
			    e_no == EINVAL && c->o.core >= 0 ? " (core out of range?)" : "");
		}
		return -1;
	}
	return 0;
}

static void close_events(struct ctx *c)
{
	/* Members before leaders */
	for (size_t i = c->nr_ev; i-- > 0;) {
		if (c->ev[i].fd >= 0)
			close(c->ev[i].fd);
		c->ev[i].fd = -1;
	}
}

static int enable_events(struct ctx *c, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;

	/* Pinned events first: they never have to wait for a counter */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->nr_ev; i++) {
			struct ev *e = &c->ev[i];

			if (!e->leader || e->fd < 0 || e->pinned != (pass == 0))
				continue;
			if (ioctl(e->fd, req, 0) && on) {
				err("cannot enable %s/%s/: %s", c->pmu.name, e->name, strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

/* Mark every event of the group led by c->ev[@leader] dead */
static void group_dead(struct ctx *c, size_t leader)
{
	for (size_t i = 0; i < c->nr_ev; i++)
		if (c->ev[i].leader_idx == (int)leader)
			c->ev[i].dead = true;
}

/*
 * Read every group through its leader (PERF_FORMAT_GROUP): nr, time_enabled,
 * time_running, then a value and an id per member.
 */
static void read_events(struct ctx *c)
{
	size_t len = (3 + 2 * c->nr_ev) * sizeof(*c->rbuf);

	for (size_t i = 0; i < c->nr_ev; i++) {
		struct ev *e = &c->ev[i];
		uint64_t *buf = c->rbuf;
		ssize_t n;

		if (!e->leader || e->fd < 0 || e->dead)
			continue;
		n = read(e->fd, buf, len);
		if (n == 0) {
			/* error state: a pinned group that could not be scheduled */
			group_dead(c, i);
			continue;
		}
		if (n < (ssize_t)(3 * sizeof(*buf)) ||
		    (size_t)n != (3 + 2 * buf[0]) * sizeof(*buf)) {
			err("reading %s/%s/: %s", c->pmu.name, e->name,
			    n < 0 ? strerror(errno) : "short read");
			group_dead(c, i);
			continue;
		}
		for (uint64_t k = 0; k < buf[0]; k++) {
			uint64_t val = buf[3 + 2 * k], id = buf[4 + 2 * k];

			for (size_t j = 0; j < c->nr_ev; j++) {
				struct ev *m = &c->ev[j];

				if (m->leader_idx != (int)i || m->id != id)
					continue;
				m->cur[0] = val;
				m->cur[1] = buf[1];
				m->cur[2] = buf[2];
			}
		}
	}
}

static const struct ev *cycles_ev(const struct ctx *c, unsigned int bank, unsigned int mux);

/* The pinned reference cycles: a bank other than L1 that ran the whole window */
static const struct ev *ref_cycles(const struct ctx *c)
{
	for (size_t i = 0; i < c->nr_ev; i++) {
		const struct ev *e = &c->ev[i];

		if (e->cycles && e->bank < TENSIX_NR_BANKS && e->bank != TENSIX_BANK_L1 &&
		    e->val.valid && !e->val.scaled && e->val.v > 0)
			return e;
	}
	return NULL;
}

/*
 * The L1 values of multiplexed mux groups, estimated over the whole window
 * from the cycles the group's L1 bank counted: count * (reference cycles
 * of the window) / (the group's L1 cycles), on the same cores. perf's
 * time_enabled / time_running says how long the group was scheduled, not
 * how long the bank counted: at each rotation the bank stops for the
 * register accesses of the mux switch (tensix-pmu.rst, "Groups"), which
 * perf counts as running; a group of ~25 events over 4 cores then counted
 * half the time it was credited on the model. Its own L1 cycles count
 * exactly the cycles it counted. Time scaling is kept where there are no
 * cycles to go by.
 */
static void l1_estimates(struct ctx *c)
{
	const struct ev *ref = ref_cycles(c);

	for (size_t i = 0; ref && i < c->nr_ev; i++) {
		struct ev *e = &c->ev[i];
		const struct ev *ce;

		if (e->bank != TENSIX_BANK_L1 || !e->val.valid || !e->val.scaled)
			continue;
		ce = cycles_ev(c, TENSIX_BANK_L1, e->mux);
		if (!ce || !ce->val.valid || ce->raw <= 0)
			continue;
		e->val.v = e->raw * ref->val.v / ce->raw;
	}
}

/*
 * Values of the window since @from (NULL: since the start), scaled by
 * enabled/running when the event did not run the whole window.
 */
static void window_values(struct ctx *c, bool since_prev)
{
	for (size_t i = 0; i < c->nr_ev; i++) {
		struct ev *e = &c->ev[i];
		uint64_t count = e->cur[0], ena = e->cur[1], run = e->cur[2];

		if (since_prev) {
			count -= e->prev[0];
			ena -= e->prev[1];
			run -= e->prev[2];
		}
		memset(&e->val, 0, sizeof(e->val));
		e->pct = 0;
		e->raw = 0;
		if (e->dead || e->fd < 0 || !run || !ena)
			continue;
		e->raw = (double)count;
		e->val.valid = true;
		e->pct = run >= ena ? 100.0 : 100.0 * (double)run / (double)ena;
		if (run < ena) {
			e->val.v = (double)count * (double)ena / (double)run;
			e->val.scaled = true;
		} else {
			e->val.v = (double)count;
		}
	}
	l1_estimates(c);
}

/* Where @e's value goes in the metrics' inputs @cnt, or NULL */
static struct tp_val *count_slot(struct tp_counts *cnt, const struct ev *e)
{
	if (e->cycles && e->bank == TENSIX_BANK_L1)
		return &cnt->l1_cycles[e->mux];
	if (e->cycles && e->bank < TENSIX_NR_BANKS)
		return &cnt->cycles[e->bank];
	return e->info >= 0 ? &cnt->ev[e->info] : NULL;
}

static void fill_counts(struct ctx *c, struct tp_counts *cnt)
{
	memset(cnt, 0, sizeof(*cnt));
	for (size_t i = 0; i < c->nr_ev; i++) {
		const struct ev *e = &c->ev[i];
		struct tp_val *v = count_slot(cnt, e);

		if (v)
			*v = e->val;
		for (int a = 0; a < e->nr_alias; a++)
			cnt->ev[e->alias[a]] = e->val;
	}
}

/* ---- output ---- */

static const struct ev *cycles_ev(const struct ctx *c, unsigned int bank, unsigned int mux)
{
	for (size_t i = 0; i < c->nr_ev; i++)
		if (c->ev[i].cycles && c->ev[i].bank == bank &&
		    (bank != TENSIX_BANK_L1 || c->ev[i].mux == mux))
			return &c->ev[i];
	return NULL;
}

/* Is tp_events[@info] another name of a counter opened under its first name? */
static bool is_alias(const struct ctx *c, int info)
{
	for (size_t i = 0; i < c->nr_ev; i++)
		for (int a = 0; a < c->ev[i].nr_alias; a++)
			if (c->ev[i].alias[a] == info)
				return true;
	return false;
}

/* "NAME" or "NAME (ALIAS, ...)": a counter's row label */
static char *ev_label(char *buf, size_t len, const struct ev *e)
{
	size_t at;

	if (e->info >= 0)
		tp_upper(buf, len, tp_events[e->info].name);
	else
		tp_upper(buf, len, e->name);
	at = strlen(buf);
	for (int a = 0; a < e->nr_alias && at < len; a++) {
		char up[TP_NAME_LEN];

		tp_upper(up, sizeof(up), tp_events[e->alias[a]].name);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", a ? ", " : " (", up);
	}
	if (e->nr_alias && at < len)
		snprintf(buf + at, len - at, ")");
	return buf;
}

/* The aliases of @e joined by @sep, for the CSV and -x records */
static char *ev_aliases(char *buf, size_t len, const struct ev *e, char sep)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int a = 0; a < e->nr_alias && at < len; a++) {
		char up[TP_NAME_LEN];

		tp_upper(up, sizeof(up), tp_events[e->alias[a]].name);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", a ? (char[2]){ sep, 0 } : "", up);
	}
	return buf;
}

static const struct ev *find_ev(const struct ctx *c, int info)
{
	for (size_t i = 0; i < c->nr_ev; i++)
		if (c->ev[i].info == info)
			return &c->ev[i];
	return NULL;
}

/* A counter for the human-readable table: "123", "123*", "<not counted>" */
static char *fmt_count(char *buf, size_t len, const struct ev *e)
{
	if (!e || !e->val.valid)
		snprintf(buf, len, "<not counted>");
	else
		snprintf(buf, len, "%.0f%s", e->val.v, e->val.scaled ? "*" : "");
	return buf;
}

static char *fmt_inputs(char *buf, size_t len, const struct tp_metric *m, char sep)
{
	const char sepstr[2] = { sep, '\0' };
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < m->nr_inputs && at < len; i++) {
		char v[64];

		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", i ? sepstr : "",
				       m->in[i].name, tp_fmt_val(v, sizeof(v), m->in[i].val));
	}
	return buf;
}

static void print_header(struct ctx *c)
{
	FILE *f = c->out;
	char cores[64], core[32] = "all", who[TP_PMU_NAME_LEN + 32];

	snprintf(who, sizeof(who), "%s", c->pmu.name);
	if (c->nr_chips)
		snprintf(who, sizeof(who), "all %zu chips", c->nr_chips);

	if (c->o.core >= 0) {
		snprintf(core, sizeof(core), "%ld", c->o.core);
		snprintf(cores, sizeof(cores), "core %ld", c->o.core);
	} else if (c->pmu.nr_cores > 0) {
		snprintf(cores, sizeof(cores), "sum of %d cores", c->pmu.nr_cores);
	} else {
		snprintf(cores, sizeof(cores), "sum of all cores");
	}

	if (c->o.sep) {
		fprintf(f, "# %s stat: pmu=%s identifier=%s arch=%s core=%s\n", PROG, who,
			c->pmu.identifier[0] ? c->pmu.identifier : "unknown",
			c->plat ? c->plat->id : "unknown", core);
		if (c->nr_chips) {
			fprintf(f, "# chips:");
			for (size_t k = 0; k < c->nr_chips; k++)
				fprintf(f, " %s", c->chips[k].pmu.name);
			fprintf(f, "; each record starts with its chip's PMU, or all for the sum\n");
		}
		if (c->mux_groups > 1)
			fprintf(f, "# note: the %u L1 mux groups cannot count together on a core; "
				"the kernel multiplexes them and their counts are estimated over the run "
				"(running_pct < 100)\n", c->mux_groups);
		fprintf(f, "# counter%sthread%sbank%scounter_name%scounter_id%scycles%scount%s"
			"l1_mux%srunning_pct%saliases\n", c->o.sep, c->o.sep, c->o.sep, c->o.sep,
			c->o.sep, c->o.sep, c->o.sep, c->o.sep, c->o.sep);
		fprintf(f, "# metric%sname%svalue%sinputs\n", c->o.sep, c->o.sep, c->o.sep);
		return;
	}
	if (c->o.interval_ms) {
		/* compact interval lines: the header is a comment */
		fprintf(f, "# Performance counter stats for %s (%s, %s)%s\n", who,
			c->plat ? c->plat->name :
			(c->pmu.identifier[0] ? c->pmu.identifier : "unknown arch"), cores,
			c->mux_groups > 1 ? "; L1 values scaled (multiplexed)" : "");
		return;
	}
	fprintf(f, "\n Performance counter stats for %s (%s, %s):\n", who,
		c->plat ? c->plat->name : (c->pmu.identifier[0] ? c->pmu.identifier : "unknown arch"),
		cores);
	if (c->mux_groups > 1)
		fprintf(f, "\n note: the L1 bank counts the signals of one mux value at a time and\n"
			"       the %u mux groups cannot count together on a core, so the kernel\n"
			"       multiplexes them: L1 values marked '*' are estimates over the\n"
			"       whole run, count * cycles / (L1 cycles of the count's group).\n"
			"       Every other counter is exact.\n",
			c->mux_groups);
}

static void print_bank_title(FILE *f, const char *title, const struct ev *cyc)
{
	char buf[64];

	if (!cyc) {
		fprintf(f, "\n %s\n", title);
		return;
	}
	fprintf(f, "\n %-36s cycles %s", title, fmt_count(buf, sizeof(buf), cyc));
	if (cyc->val.valid && cyc->val.scaled)
		fprintf(f, "  (counted %.2f%% of the cycles, scheduled %.2f%% of the time)",
			cyc->val.v > 0 ? 100.0 * cyc->raw / cyc->val.v : 0.0, cyc->pct);
	fputc('\n', f);
}

static void print_table(struct ctx *c)
{
	FILE *f = c->out;
	char b0[64], b1[64], b2[64];

	for (unsigned int bank = 0; bank <= BANK_OTHER; bank++) {
		bool any = false;

		/* a bank with only its cycles (-e fpu_cycles) has its title line */
		for (size_t i = 0; i < c->nr_ev; i++)
			any |= c->ev[i].bank == bank;
		if (!any)
			continue;

		if (bank == TENSIX_BANK_INSTRN_THREAD) {
			print_bank_title(f, bank_label(bank), cycles_ev(c, bank, 0));
			fprintf(f, "   %-34s %16s %16s %16s\n", "per-thread counter",
				"T0 (unpack)", "T1 (math)", "T2 (pack)");
			for (int i = 0; i < TP_NR_EV; i++) {
				char base[TP_NAME_LEN];
				size_t len;

				if (tp_events[i].bank != bank || tp_event_thread(i) != 0)
					continue;
				/* name_0 -> NAME; its siblings are name_1 and name_2 */
				tp_upper(base, sizeof(base), tp_events[i].name);
				len = strlen(base);
				base[len - 2] = '\0';
				fprintf(f, "   %-34s %16s %16s %16s\n", base,
					fmt_count(b0, sizeof(b0), find_ev(c, i)),
					fmt_count(b1, sizeof(b1), find_ev(c, tp_event_sibling(i, 1))),
					fmt_count(b2, sizeof(b2), find_ev(c, tp_event_sibling(i, 2))));
			}
			fprintf(f, "   %-34s %16s\n", "shared counter", "all threads");
			for (int i = 0; i < TP_NR_EV; i++) {
				char name[TP_NAME_LEN];

				if (tp_events[i].bank != bank || tp_event_thread(i) >= 0)
					continue;
				tp_upper(name, sizeof(name), tp_events[i].name);
				fprintf(f, "   %-34s %16s\n", name, fmt_count(b0, sizeof(b0), find_ev(c, i)));
			}
		} else if (bank == TENSIX_BANK_L1) {
			for (unsigned int m = 0; m < TP_MAX_MUX; m++) {
				char title[64];
				bool used = false;

				for (size_t i = 0; i < c->nr_ev; i++)
					used |= c->ev[i].bank == bank && !c->ev[i].cycles && c->ev[i].mux == m;
				if (!used)
					continue;
				snprintf(title, sizeof(title), "L1 (mux %u)", m);
				print_bank_title(f, title, cycles_ev(c, bank, m));
				for (int i = 0; i < TP_NR_EV; i++) {
					char name[3 * TP_NAME_LEN];

					if (tp_events[i].bank != bank || tp_events[i].mux != m ||
					    !find_ev(c, i))
						continue;
					ev_label(name, sizeof(name), find_ev(c, i));
					fprintf(f, "   %-50s %16s\n", name,
						fmt_count(b0, sizeof(b0), find_ev(c, i)));
				}
				for (size_t i = 0; i < c->nr_ev; i++) {
					const struct ev *e = &c->ev[i];

					if (e->bank == bank && e->mux == m && !e->cycles && e->info < 0)
						fprintf(f, "   %-34s %16s\n", e->name,
							fmt_count(b0, sizeof(b0), e));
				}
			}
			continue;
		} else {
			print_bank_title(f, bank_label(bank),
					 bank < TENSIX_NR_BANKS ? cycles_ev(c, bank, 0) : NULL);
			for (int i = 0; i < TP_NR_EV; i++) {
				char name[3 * TP_NAME_LEN];

				if (tp_events[i].bank != bank || is_alias(c, i))
					continue;
				if (find_ev(c, i))
					ev_label(name, sizeof(name), find_ev(c, i));
				else
					tp_upper(name, sizeof(name), tp_events[i].name);
				fprintf(f, "   %-34s %16s\n", name, fmt_count(b0, sizeof(b0), find_ev(c, i)));
			}
		}
		/* Events of the PMU that the seed's table does not know */
		for (size_t i = 0; i < c->nr_ev; i++) {
			const struct ev *e = &c->ev[i];

			if (e->bank == bank && !e->cycles && e->info < 0)
				fprintf(f, "   %-34s %16s\n", e->name, fmt_count(b0, sizeof(b0), e));
		}
	}
}

static void print_metrics(struct ctx *c, const struct tp_metrics *m)
{
	FILE *f = c->out;
	const char *section = NULL;
	char num[48], val[64], in[512];

	fprintf(f, "\n Derived metrics (bandwidth table: %s)\n",
		c->plat ? c->plat->name : "unknown arch, use --arch");
	for (int i = 0; i < TP_NR_METRICS; i++) {
		const struct tp_metric_desc *d = tp_metric_desc(i);

		if (!section || strcmp(section, d->section)) {
			section = d->section;
			fprintf(f, "\n   %s\n", section);
		}
		tp_fmt_metric(num, sizeof(num), &m->m[i]);
		snprintf(val, sizeof(val), "%s%s", num, m->m[i].valid && m->m[i].scaled ? "*" : "");
		fprintf(f, "     %-28s %12s   %s  [%s]\n", d->label, val, d->formula,
			fmt_inputs(in, sizeof(in), &m->m[i], ' '));
	}
	fprintf(f, "\n   Bound classification: %s\n     scores:", tp_bound_name(m->bound));
	for (enum tp_bound b = TP_BOUND_MATH; b < TP_NR_BOUNDS; b++)
		fprintf(f, "%s %s %s", b ? "," : "", tp_bound_name(b),
			tp_fmt_metric(val, sizeof(val), &m->m[tp_bound_score(b)]));
	fputc('\n', f);
}

static void csv_counter_fields(const struct ctx *c, const struct ev *e, char *cyc, size_t clen,
			       char *cnt, size_t nlen, char *name, size_t namelen, int *thread)
{
	const struct ev *ce = e->bank < TENSIX_NR_BANKS ? cycles_ev(c, e->bank, e->mux) : NULL;

	/* Scaled values are estimates: whole numbers, like the counts */
	if (ce && ce->val.valid)
		snprintf(cyc, clen, "%.0f", ce->val.v);
	else
		snprintf(cyc, clen, "n/a");
	if (e->val.valid)
		snprintf(cnt, nlen, "%.0f", e->val.v);
	else
		snprintf(cnt, nlen, "n/a");
	if (e->info >= 0)
		tp_upper(name, namelen, tp_events[e->info].name);
	else
		tp_upper(name, namelen, e->name);
	*thread = e->info >= 0 ? tp_event_thread(e->info) : -1;
}

/* Counters in display order: the seed's table order, then unknown events */
static void for_each_counter(struct ctx *c, void (*fn)(struct ctx *, const struct ev *, void *),
			     void *arg)
{
	for (int i = 0; i < TP_NR_EV; i++) {
		const struct ev *e = find_ev(c, i);

		if (e)
			fn(c, e, arg);
	}
	for (size_t i = 0; i < c->nr_ev; i++)
		if (!c->ev[i].cycles && c->ev[i].info < 0)
			fn(c, &c->ev[i], arg);
}

static void sep_counter(struct ctx *c, const struct ev *e, void *arg)
{
	const char *prefix = arg, *s = c->o.sep;
	char cyc[64], cnt[64], name[TP_NAME_LEN + 16], mux[8] = "", aliases[4 * TP_NAME_LEN];
	int thread;

	csv_counter_fields(c, e, cyc, sizeof(cyc), cnt, sizeof(cnt), name, sizeof(name), &thread);
	if (e->bank == TENSIX_BANK_L1)
		snprintf(mux, sizeof(mux), "%u", e->mux);
	ev_aliases(aliases, sizeof(aliases), e, strchr(s, ';') ? '|' : ';');
	fprintf(c->out, "%scounter%s%s%s%s%s%s%s%" PRIu64 "%s%s%s%s%s%s%s%.2f%s%s\n", prefix, s,
		tp_thread_name(thread), s, bank_label(e->bank), s, name, s, e->sel, s, cyc, s,
		cnt, s, mux, s, e->pct, s, aliases);
}

static void print_sep(struct ctx *c, const struct tp_metrics *m, const char *prefix)
{
	const char *s = c->o.sep;
	char isep = strchr(s, ';') ? '|' : ';';
	const char isepstr[2] = { isep, '\0' };
	char val[64], in[512];

	for_each_counter(c, sep_counter, (void *)prefix);
	for (int i = 0; i < TP_NR_METRICS; i++)
		fprintf(c->out, "%smetric%s%s%s%s%s%s\n", prefix, s, tp_metric_desc(i)->name, s,
			tp_fmt_metric(val, sizeof(val), &m->m[i]), s,
			fmt_inputs(in, sizeof(in), &m->m[i], isep));
	fprintf(c->out, "%smetric%sbound_classification%s%s%s", prefix, s, s,
		tp_bound_name(m->bound), s);
	for (enum tp_bound b = TP_BOUND_MATH; b < TP_NR_BOUNDS; b++)
		fprintf(c->out, "%s%s=%s", b ? isepstr : "",
			tp_metric_desc(tp_bound_score(b))->name,
			tp_fmt_metric(val, sizeof(val), &m->m[tp_bound_score(b)]));
	fputc('\n', c->out);
}

/*
 * Were all the counters metric @id reads opened (not left out by -e or the
 * arch)? @opened holds the metrics of a window in which every opened
 * counter counted 1: an input that is a counter, a bank's cycles or a sum
 * of counters (THREAD_STALLS_SUM, NOC_RING0_TXN, ...) is valid there
 * exactly when all its counters were opened. An input that is another
 * metric counts as its own inputs.
 */
static bool metric_counted(const struct tp_metrics *opened, int id, int depth)
{
	const struct tp_metric *m = &opened->m[id];

	for (int i = 0; i < m->nr_inputs; i++) {
		int j;

		for (j = 0; j < TP_NR_METRICS; j++)
			if (!strcmp(tp_metric_desc(j)->name, m->in[i].name))
				break;
		if (j < TP_NR_METRICS) {
			if (depth >= 4 || !metric_counted(opened, j, depth + 1))
				return false;
		} else if (!m->in[i].val.valid) {
			return false;
		}
	}
	return true;
}

/* Which metrics have every counter opened (c->counted), once the events are */
static void find_counted(struct ctx *c)
{
	struct tp_metrics opened;
	struct tp_counts cnt;

	memset(&cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < c->nr_ev; i++) {
		const struct ev *e = &c->ev[i];
		struct tp_val *v = count_slot(&cnt, e);

		if (v)
			*v = (struct tp_val){ 1, true, false };
		for (int a = 0; a < e->nr_alias; a++)
			cnt.ev[e->alias[a]] = (struct tp_val){ 1, true, false };
	}
	tp_metrics_compute(&cnt, c->plat, &opened);
	for (int i = 0; i < TP_NR_METRICS; i++)
		c->counted[i] = metric_counted(&opened, i, 0);
}

/* -I without -x: one line per metric and interval, for the metrics counted */
static void print_compact(struct ctx *c, const struct tp_metrics *m, double t)
{
	char num[48], name[TP_PMU_NAME_LEN + 64];

	if (!c->compact_header) {
		fprintf(c->out, "#%13s  %-34s %14s\n", "time", "metric", "value");
		c->compact_header = true;
		find_counted(c);
	}
	for (int i = 0; i < TP_NR_METRICS; i++) {
		if (!c->counted[i])
			continue;
		tp_fmt_metric(num, sizeof(num), &m->m[i]);
		snprintf(name, sizeof(name), "%s%s%s", c->tag ? c->tag : "", c->tag ? "/" : "",
			 tp_metric_desc(i)->name);
		fprintf(c->out, "%14.3f  %-34s %13s%s\n", t, name, num,
			m->m[i].valid && m->m[i].scaled ? "*" : " ");
	}
	snprintf(name, sizeof(name), "%s%s%s", c->tag ? c->tag : "", c->tag ? "/" : "",
		 "bound_classification");
	fprintf(c->out, "%14.3f  %-34s %14s\n", t, name, tp_bound_name(m->bound));
}

/* Print the current window (values already computed by window_values()). */
static void report(struct ctx *c, double t, bool interval)
{
	struct tp_counts cnt;
	struct tp_metrics m;
	char prefix[TP_PMU_NAME_LEN + 64] = "";

	fill_counts(c, &cnt);
	tp_metrics_compute(&cnt, c->plat, &m);
	if (c->o.sep) {
		if (interval)
			snprintf(prefix, sizeof(prefix), "%.3f%s", t, c->o.sep);
		/* several chips: each record says whose it is ("all": the sum) */
		if (c->tag)
			snprintf(prefix + strlen(prefix), sizeof(prefix) - strlen(prefix), "%s%s",
				 c->tag, c->o.sep);
		print_sep(c, &m, prefix);
	} else if (interval) {
		print_compact(c, &m, t);
	} else {
		print_table(c);
		print_metrics(c, &m);
		if (!interval)
			fprintf(c->out, "\n %14.6f seconds time elapsed\n\n", t);
	}
	fflush(c->out);
}

struct csvf {
	FILE *f;
};

static void csv_counter(struct ctx *c, const struct ev *e, void *arg)
{
	struct csvf *cf = arg;
	char cyc[64], cnt[64], name[TP_NAME_LEN + 16], mux[8] = "", aliases[4 * TP_NAME_LEN];
	int thread;

	csv_counter_fields(c, e, cyc, sizeof(cyc), cnt, sizeof(cnt), name, sizeof(name), &thread);
	if (e->bank == TENSIX_BANK_L1)
		snprintf(mux, sizeof(mux), "%u", e->mux);
	fprintf(cf->f, "%s,%s,%s,%" PRIu64 ",%s,%s,%s,%s\n", tp_thread_name(thread),
		bank_label(e->bank), name, e->sel, cyc, cnt, mux,
		ev_aliases(aliases, sizeof(aliases), e, ';'));
}

/* Open @path for writing into *@f (nothing without a path); -1 if it cannot be */
static int open_csv(FILE **f, const char *path)
{
	*f = NULL;
	if (!path)
		return 0;
	*f = fopen(path, "we");
	if (!*f) {
		err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_csv_files(struct ctx *c)
{
	struct tp_counts cnt;
	struct tp_metrics m;
	char val[64], in[512];
	struct csvf cf;
	int ret = 0;

	if (c->csv_counters) {
		cf.f = c->csv_counters;
		c->csv_counters = NULL;
		fprintf(cf.f, "thread,bank,counter_name,counter_id,cycles,count,l1_mux,aliases\n");
		for_each_counter(c, csv_counter, &cf);
		if (fclose(cf.f)) {
			err("writing %s: %s", c->o.csv_counters, strerror(errno));
			ret = -1;
		}
	}
	if (c->csv_metrics) {
		FILE *f = c->csv_metrics;

		c->csv_metrics = NULL;
		fill_counts(c, &cnt);
		tp_metrics_compute(&cnt, c->plat, &m);
		fprintf(f, "name,value,inputs\n");
		for (int i = 0; i < TP_NR_METRICS; i++)
			fprintf(f, "%s,%s,%s\n", tp_metric_desc(i)->name,
				tp_fmt_metric(val, sizeof(val), &m.m[i]),
				fmt_inputs(in, sizeof(in), &m.m[i], ';'));
		fprintf(f, "bound_classification,%s,", tp_bound_name(m.bound));
		for (enum tp_bound b = TP_BOUND_MATH; b < TP_NR_BOUNDS; b++)
			fprintf(f, "%s%s=%s", b ? ";" : "", tp_metric_desc(tp_bound_score(b))->name,
				tp_fmt_metric(val, sizeof(val), &m.m[tp_bound_score(b)]));
		fputc('\n', f);
		if (fclose(f)) {
			err("writing %s: %s", c->o.csv_metrics, strerror(errno));
			ret = -1;
		}
	}
	return ret;
}

/* ---- running ---- */

static void save_prev(struct ctx *c)
{
	for (size_t i = 0; i < c->nr_ev; i++)
		memcpy(c->ev[i].prev, c->ev[i].cur, sizeof(c->ev[i].prev));
}

static void nop_handler(int sig)
{
	(void)sig;
}

/* ---- several chips ---- */

/* @c's event @e in chip @k, or NULL (another arch may not have it) */
static const struct ev *chip_ev(const struct ctx *k, const struct ev *e)
{
	for (size_t i = 0; i < k->nr_ev; i++) {
		const struct ev *f = &k->ev[i];

		if (f->cycles == e->cycles && f->bank == e->bank && f->mux == e->mux &&
		    !strcmp(f->name, e->name))
			return f;
	}
	return NULL;
}

/*
 * The sum over the chips of each event of @c: counts, cycles and estimates
 * add up, so every metric of the sum is that of all the chips' cores
 * together. An event that a chip did not count makes the sum n/a.
 */
static void merge_chips(struct ctx *c)
{
	for (size_t i = 0; i < c->nr_ev; i++) {
		struct ev *e = &c->ev[i];

		memset(&e->val, 0, sizeof(e->val));
		e->raw = 0;
		e->pct = 100;
		e->val.valid = true;
		for (size_t k = 0; k < c->nr_chips; k++) {
			const struct ev *f = chip_ev(&c->chips[k], e);

			if (!f || !f->val.valid) {
				e->val.valid = false;
				break;
			}
			e->val.v += f->val.v;
			e->val.scaled |= f->val.scaled;
			e->raw += f->raw;
			if (f->pct < e->pct)
				e->pct = f->pct;
		}
		if (!e->val.valid)
			memset(&e->val, 0, sizeof(e->val));
	}
}

static int enable_all(struct ctx *c, bool on)
{
	int ret = 0;

	if (!c->nr_chips)
		return enable_events(c, on);
	for (size_t k = 0; k < c->nr_chips; k++)
		if (enable_events(&c->chips[k], on))
			ret = -1;
	return ret;
}

static void read_all(struct ctx *c)
{
	if (!c->nr_chips)
		read_events(c);
	for (size_t k = 0; k < c->nr_chips; k++)
		read_events(&c->chips[k]);
}

static void window_all(struct ctx *c, bool since_prev)
{
	if (!c->nr_chips) {
		window_values(c, since_prev);
		return;
	}
	for (size_t k = 0; k < c->nr_chips; k++)
		window_values(&c->chips[k], since_prev);
	merge_chips(c);
}

static void save_prev_all(struct ctx *c)
{
	if (!c->nr_chips)
		save_prev(c);
	for (size_t k = 0; k < c->nr_chips; k++)
		save_prev(&c->chips[k]);
}

/* Each chip's report, then the sum's ("all chips") */
static void report_all(struct ctx *c, double t, bool interval)
{
	if (!c->nr_chips) {
		report(c, t, interval);
		return;
	}
	if (interval && !c->o.sep && !c->compact_header) {
		fprintf(c->out, "#%13s  %-34s %14s\n", "time", "metric", "value");
		c->compact_header = true;
		find_counted(c);
	}
	for (size_t k = 0; k < c->nr_chips; k++) {
		if (!interval && !c->o.sep)
			print_header(&c->chips[k]);
		report(&c->chips[k], t, interval);
	}
	if (!interval && !c->o.sep)
		print_header(c);
	report(c, t, interval);
}

/*
 * Run the command (if any) with the counters enabled, print the intervals,
 * and return its wait status (0 without a command) or -1.
 */
static int run(struct ctx *c, int *status)
{
	sigset_t mask, old;
	struct sigaction sa;
	int go[2] = { -1, -1 };
	pid_t pid = -1;
	double last = 0;
	long ticks = 0;

	*status = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nop_handler;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);

	if (c->o.argc > 0) {
		if (pipe2(go, O_CLOEXEC)) {
			err("pipe: %s", strerror(errno));
			return -1;
		}
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			err("fork: %s", strerror(errno));
			close(go[0]);
			close(go[1]);
			return -1;
		}
		if (pid == 0) {
			int rc;
			char ch;

			sigprocmask(SIG_SETMASK, &old, NULL);
			signal(SIGCHLD, SIG_DFL);
			close(go[1]);
			/* Wait until the counters run; EOF means the parent gave up */
			if (read(go[0], &ch, 1) != 1)
				_exit(127);
			execvp(c->o.argv[0], c->o.argv);
			rc = errno == ENOENT ? 127 : 126;
			fprintf(stderr, PROG ": cannot run '%s': %s\n", c->o.argv[0], strerror(errno));
			_exit(rc);
		}
		close(go[0]);
	}

	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	if (enable_all(c, true)) {
		if (pid > 0) {
			close(go[1]);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	if (pid > 0) {
		if (write(go[1], "x", 1) != 1)
			err("cannot start the command: %s", strerror(errno));
		close(go[1]);
	}

	for (;;) {
		siginfo_t info;
		int sig;

		if (c->o.interval_ms) {
			double next = (double)(ticks + 1) * (double)c->o.interval_ms / 1000.0;
			double left = next - now_since(&c->t0);
			struct timespec to = { 0, 0 };

			if (left > 0) {
				to.tv_sec = (time_t)left;
				to.tv_nsec = (long)((left - (double)to.tv_sec) * 1e9);
			}
			sig = sigtimedwait(&mask, &info, &to);
			if (sig < 0 && errno == EAGAIN) {
				ticks++;
				read_all(c);
				window_all(c, true);
				last = now_since(&c->t0);
				report_all(c, last, true);
				save_prev_all(c);
				continue;
			}
		} else {
			sig = sigwaitinfo(&mask, &info);
		}
		if (sig < 0)
			continue;	/* EINTR */
		if (sig == SIGCHLD) {
			if (pid > 0 && waitpid(pid, status, WNOHANG) == pid)
				break;
			continue;
		}
		/* SIGINT/SIGTERM/SIGHUP: stop counting, or pass it to the command */
		if (pid < 0)
			break;
		kill(pid, sig);
	}

	enable_all(c, false);
	read_all(c);
	if (c->o.interval_ms) {
		double t = now_since(&c->t0);

		/* The last, partial interval */
		if (t - last >= 0.001) {
			window_all(c, true);
			report_all(c, t, true);
		}
	} else {
		window_all(c, false);
		report_all(c, now_since(&c->t0), false);
	}
	window_all(c, false);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/* ---- commands ---- */

static int setup_pmu(struct ctx *c)
{
	const char *root = tp_sysfs_root();
	char name[TP_PMU_NAME_LEN], errbuf[512];

	if (tp_pmu_pick(root, c->o.pmu, name, sizeof(name))) {
		if (c->o.pmu)
			err("PMU %s not found in %s (is tensix_pmu loaded?)", c->o.pmu, root);
		else
			err("no tensix PMU found (is tensix_pmu loaded?)");
		return -1;
	}
	if (tp_pmu_load(&c->pmu, root, name, errbuf, sizeof(errbuf))) {
		err("%s", errbuf);
		return -1;
	}
	if (c->o.arch) {
		c->plat = tp_platform_find(c->o.arch);
	} else {
		c->plat = tp_platform_find(c->pmu.identifier);
		if (!c->plat)
			err("warning: unknown identifier \"%s\" of %s: bytes/cycle are n/a "
			    "(use --arch)", c->pmu.identifier, c->pmu.name);
	}
	if (c->o.core >= 0 && c->pmu.nr_cores > 0 && c->o.core >= c->pmu.nr_cores) {
		err("core %ld out of range (%s has %d cores)", c->o.core, c->pmu.name,
		    c->pmu.nr_cores);
		return -1;
	}
	return 0;
}

/* --pmu all, or a comma-separated list of PMUs */
static bool several_pmus(const char *pmu)
{
	return pmu && (!strcmp(pmu, "all") || strchr(pmu, ','));
}

/*
 * One context per chip of --pmu, each with its events open, and @c as
 * their sum: chip 0's events (every chip's when they are of one arch),
 * not opened. Returns 0 or -1.
 */
static int setup_chips(struct ctx *c)
{
	char names[TP_MAX_CHIPS][TP_PMU_NAME_LEN];
	const char *p = c->o.pmu;
	size_t n = 0;
	int cores = 0;

	if (!strcmp(p, "all")) {
		long idx[TP_MAX_CHIPS];
		int r = tp_pmu_list(tp_sysfs_root(), idx, TP_MAX_CHIPS);

		if (r <= 0) {
			err("no tensix PMU found (is tensix_pmu loaded?)");
			return -1;
		}
		for (n = 0; n < (size_t)r; n++)
			snprintf(names[n], sizeof(names[n]), TP_PMU_PREFIX "%ld", idx[n]);
	} else {
		while (*p) {
			size_t len = strcspn(p, ",");

			if (!len || len >= TP_PMU_NAME_LEN || n == TP_MAX_CHIPS) {
				err("--pmu: bad list '%s'", c->o.pmu);
				return -1;
			}
			snprintf(names[n++], sizeof(names[0]), "%.*s", (int)len, p);
			p += len + (p[len] == ',');
		}
	}
	c->chips = calloc(n, sizeof(*c->chips));
	if (!c->chips) {
		err("out of memory");
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		struct ctx *chip = &c->chips[k];

		chip->o = c->o;
		chip->o.pmu = names[k];
		c->nr_chips = k + 1;
		if (setup_pmu(chip) || build_events(chip) || open_events(chip))
			return -1;
		for (size_t j = 0; j < k; j++) {
			if (!strcmp(c->chips[j].pmu.name, chip->pmu.name)) {
				err("--pmu: %s given twice", chip->pmu.name);
				return -1;
			}
		}
		chip->o.pmu = NULL;
		chip->tag = chip->pmu.name;
		cores += chip->pmu.nr_cores > 0 ? chip->pmu.nr_cores : 0;
	}
	c->o.pmu = c->chips[0].pmu.name;
	if (setup_pmu(c) || build_events(c))
		return -1;
	c->o.pmu = NULL;
	c->pmu.nr_cores = cores;
	c->tag = "all";
	return 0;
}

static void free_chips(struct ctx *c)
{
	for (size_t k = 0; k < c->nr_chips; k++) {
		close_events(&c->chips[k]);
		free(c->chips[k].ev);
		free(c->chips[k].rbuf);
		tp_pmu_free(&c->chips[k].pmu);
	}
	free(c->chips);
	c->chips = NULL;
	c->nr_chips = 0;
}

static int cmd_list(struct ctx *c)
{
	if (c->o.list_metrics) {
		/* name, kind (fraction: within [0, 1] by definition; ratio), formula */
		for (int i = 0; i < TP_NR_METRICS; i++)
			printf("%-34s %-8s %s\n", tp_metric_desc(i)->name,
			       tp_metric_desc(i)->fraction ? "fraction" : "ratio",
			       tp_metric_desc(i)->formula);
		return 0;
	}
	if (setup_pmu(c) || build_events(c))
		return EXIT_SETUP;
	printf("%s: type %u, cpu %d, identifier %s, cores %d\n", c->pmu.name, c->pmu.type,
	       c->pmu.cpu, c->pmu.identifier[0] ? c->pmu.identifier : "?", c->pmu.nr_cores);
	printf("The events of 'stat', as it opens them. Last column: 'pinned' leads a group\n"
	       "that always counts, 'group' one that perf multiplexes with the other L1 mux\n"
	       "groups (l1_cycles leads each, latched to that mux: listed once per group).\n");
	for (size_t i = 0; i < c->nr_ev; i++) {
		const struct ev *e = &c->ev[i];
		char tag[32] = "";

		if (e->leader && e->cycles && e->bank == TENSIX_BANK_L1)
			snprintf(tag, sizeof(tag), " %s (mux %u)", e->pinned ? "pinned" : "group", e->mux);
		else if (e->leader)
			snprintf(tag, sizeof(tag), " %s", e->pinned ? "pinned" : "group");
		printf("  %-28s %-13s %-34s config=0x%08" PRIx64 " config1=0x%" PRIx64 "%s\n",
		       e->name, bank_label(e->bank), e->terms, e->cfg[0], e->cfg[1], tag);
	}
	return 0;
}

enum {
	OPT_PMU = 256,
	OPT_CORE,
	OPT_ARCH,
	OPT_L1MUX,
	OPT_CSV_COUNTERS,
	OPT_CSV_METRICS,
	OPT_METRICS,
};

static const struct option long_opts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pmu", required_argument, NULL, OPT_PMU },
	{ "core", required_argument, NULL, OPT_CORE },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "l1mux", required_argument, NULL, OPT_L1MUX },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "event", required_argument, NULL, 'e' },
	{ "metrics", no_argument, NULL, OPT_METRICS },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "output", required_argument, NULL, 'o' },
	{ "csv-counters", required_argument, NULL, OPT_CSV_COUNTERS },
	{ "csv-metrics", required_argument, NULL, OPT_CSV_METRICS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* -e LIST, possibly given several times: the lists are joined */
static bool add_events(struct opts *o, const char *list)
{
	size_t old = o->events ? strlen(o->events) : 0;
	char *p;

	if (!*list) {
		err("-e: empty event list");
		return false;
	}
	p = realloc(o->events, old + strlen(list) + 2);
	if (!p) {
		err("out of memory");
		return false;
	}
	o->events = p;
	sprintf(p + old, "%s%s", old ? "," : "", list);
	return true;
}

/* Returns 0, 1 for --help, or -1 on a usage error */
static int parse_opts(struct opts *o, int argc, char **argv)
{
	int opt;

	o->core = -1;
	o->l1mux = -1;
	optind = 1;
	/* getopt's messages would name argv[0], "stat": ours name the tool */
	opterr = 0;
	/* '+': stop at the command, so that its own options stay its own */
	while ((opt = getopt_long(argc, argv, "+:ae:I:x:o:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			o->all = true;
			break;
		case OPT_PMU:
			o->pmu = optarg;
			break;
		case OPT_CORE:
			if (!parse_long(optarg, 0, 0xffff, &o->core)) {
				err("--core: bad core number '%s'", optarg);
				return -1;
			}
			break;
		case OPT_ARCH:
			if (!tp_platform_find(optarg)) {
				err("--arch: unknown architecture '%s' (wormhole, blackhole, quasar)",
				    optarg);
				return -1;
			}
			o->arch = optarg;
			break;
		case OPT_L1MUX:
			if (!parse_long(optarg, 0, TP_MAX_MUX - 1, &o->l1mux)) {
				err("--l1mux: bad mux value '%s' (0..%d)", optarg, TP_MAX_MUX - 1);
				return -1;
			}
			break;
		case 'I':
			if (!parse_long(optarg, MIN_INTERVAL_MS, LONG_MAX / 2, &o->interval_ms)) {
				err("-I: interval must be a number of milliseconds >= %d",
				    MIN_INTERVAL_MS);
				return -1;
			}
			break;
		case 'e':
			if (!add_events(o, optarg))
				return -1;
			break;
		case OPT_METRICS:
			o->list_metrics = true;
			break;
		case 'x':
			if (!*optarg) {
				err("-x: empty separator");
				return -1;
			}
			o->sep = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_CSV_COUNTERS:
			o->csv_counters = optarg;
			break;
		case OPT_CSV_METRICS:
			o->csv_metrics = optarg;
			break;
		case 'h':
			return 1;
		case ':':
			err("%s: option '%s' needs an argument", argv[0], argv[optind - 1]);
			return -1;
		default:
			if (optopt)
				err("%s: invalid option '-%c'", argv[0], optopt);
			else
				err("%s: unrecognized option '%s'", argv[0], argv[optind - 1]);
			return -1;
		}
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	return 0;
}

/* Close the CSV files not written (a run that failed) */
static void close_csv(struct ctx *c)
{
	if (c->csv_counters)
		fclose(c->csv_counters);
	if (c->csv_metrics)
		fclose(c->csv_metrics);
	c->csv_counters = c->csv_metrics = NULL;
}

static int cmd_stat(struct ctx *c)
{
	int status = 0, ret = 0;

	if (!c->o.argc && !c->o.all) {
		err("stat: no command given (use -a to count until interrupted)");
		usage_short();
		return EXIT_SETUP;
	}
	if (several_pmus(c->o.pmu) ? setup_chips(c) :
	    setup_pmu(c) || build_events(c) || open_events(c))
		return EXIT_SETUP;

	/* Every output file first: one that cannot be written must not cost a run */
	if (open_csv(&c->csv_counters, c->o.csv_counters) ||
	    open_csv(&c->csv_metrics, c->o.csv_metrics))
		ret = EXIT_SETUP;
	c->out = stderr;
	if (!ret && c->o.output) {
		c->out = fopen(c->o.output, "we");
		if (!c->out) {
			err("cannot write %s: %s", c->o.output, strerror(errno));
			c->out = stderr;
			ret = EXIT_SETUP;
		}
	}
	if (ret) {
		close_csv(c);
		close_events(c);
		return ret;
	}
	for (size_t k = 0; k < c->nr_chips; k++)
		c->chips[k].out = c->out;
	/* several chips: the report prints each chip's header over its tables */
	if (!c->nr_chips || c->o.sep || c->o.interval_ms)
		print_header(c);
	for (size_t k = 0; k < c->nr_chips; k++) {
		c->chips[k].compact_header = true;
		find_counted(&c->chips[k]);
	}

	ret = run(c, &status);
	close_events(c);
	if (ret) {
		ret = EXIT_SETUP;
		close_csv(c);
	} else if (write_csv_files(c)) {
		ret = 1;
	}
	if (c->out != stderr && fclose(c->out)) {
		err("writing %s: %s", c->o.output, strerror(errno));
		ret = ret ? ret : 1;
	}
	if (ret)
		return ret;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	if (argc < 2) {
		err("no command (stat, list)");
		usage_short();
		return EXIT_SETUP;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf(PROG " " TP_VERSION " (socpmu)\n");
		return 0;
	}
	if (strcmp(argv[1], "stat") && strcmp(argv[1], "list")) {
		err("unknown command '%s' (stat, list)", argv[1]);
		usage_short();
		return EXIT_SETUP;
	}
	ret = parse_opts(&c.o, argc - 1, argv + 1);
	if (ret) {
		if (ret > 0) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "Try '" PROG " --help'.\n");
		free(c.o.events);
		return EXIT_SETUP;
	}
	ret = !strcmp(argv[1], "list") ? cmd_list(&c) : cmd_stat(&c);
	free_chips(&c);
	close_events(&c);
	free(c.o.events);
	free(c.ev);
	free(c.rbuf);
	tp_pmu_free(&c.pmu);
	return ret;
}
