// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen-pcp-conf - Performance Co-Pilot configuration for the socpmu PMUs.
 *
 *   gen-pcp-conf OUTDIR
 *
 * writes
 *   OUTDIR/perfevent-socpmu.conf  the lines of perfevent's [dynamic] section
 *                                 ("<pmu>.<event>") for the PMU instances
 *                                 tensix_0.., esp_0.., pulp_0.. and
 *                                 sifive_hpm, sifive_hpm_1.. (socpmu-pcp-setup
 *                                 puts them into the PMDA's perfevent.conf)
 *   OUTDIR/socpmu.derived         PCP derived metrics (pmLoadDerivedConfig
 *                                 syntax, /etc/pcp/derived/) that turn those
 *                                 counters into utilisations since the PMDA
 *                                 opened them, one value per device PMU:
 *                                 socpmu.<pmu>.<metric>
 *
 * Like tools/perf/pmu-events/gen-pmu-events.c, nothing here repeats an event
 * table: the event names come from the X-macro tables of include/socpmu/
 * and the Tensix metrics from tensix-perf's own descriptions and event
 * indices (tools/tensix-perf/metrics.c). A Tensix metric is shipped only
 * when every counter it reads has the same name on Wormhole and Blackhole,
 * since PCP names a PMU by its instance, not by its architecture.
 *
 * PCP's perfevent PMDA opens every event of a PMU whose "<pmu>.<event>" is
 * a prefix of a configured name (perfinterface.c compares with strncmp over
 * the shorter length), so a configured name that has another event of the
 * same PMU as a prefix is an error here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <socpmu/esp_regs.h>
#include <socpmu/pulp_regs.h>
#include <socpmu/sifive_hpm.h>
#include <socpmu/tensix_regs.h>

/* tensix-perf's event indices and metric descriptions (static in metrics.c) */
#include "../tensix-perf/metrics.c"

/* PMU instances each file covers: tensix_0 .. tensix_<N-1>, and so on */
#define NR_INSTANCES 16

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int failed;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("gen-pcp-conf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ---- the event names of each PMU kind, from the driver tables ---- */

struct ev {
	const char *name;
	unsigned int arch;	/* Tensix: TENSIX_ARCH_*; others 0 */
};

static const struct ev tx_all[] = {
#define TX_EV(n, b, s, m, a) { #n, (a) },
	TENSIX_EVENTS(TX_EV)
	TENSIX_SEED_ALIASES(TX_EV)
#undef TX_EV
	/* the reference-cycle events of each bank (tensix_pmu.c) */
	{ "instrn_thread_cycles", TENSIX_ARCH_BOTH }, { "fpu_cycles", TENSIX_ARCH_BOTH },
	{ "tdma_unpack_cycles", TENSIX_ARCH_BOTH }, { "l1_cycles", TENSIX_ARCH_BOTH },
	{ "tdma_pack_cycles", TENSIX_ARCH_BOTH },
};

static const char *const tx_bank_cycles[TENSIX_NR_BANKS] = {
	"instrn_thread_cycles", "fpu_cycles", "tdma_unpack_cycles", "l1_cycles",
	"tdma_pack_cycles",
};

static const struct ev esp_all[] = {
#define ESP_EV(n, m, t, w) { #n, 0 },
	ESP_EVENTS(ESP_EV)
#undef ESP_EV
};

static const struct ev pulp_all[] = {
#define PULP_EV(n, nr, d) { #n, 0 },
	PULP_EVENTS(PULP_EV)
#undef PULP_EV
};

static const struct ev hpm_all[] = {
	{ "cycles", 0 }, { "instructions", 0 }, { "cache_references", 0 },
	{ "cache_misses", 0 }, { "branch_instructions", 0 }, { "branch_misses", 0 },
	{ "bus_cycles", 0 }, { "stalled_cycles_frontend", 0 },
	{ "stalled_cycles_backend", 0 }, { "ref_cycles", 0 }, { "timestamp", 0 },
#define HPM_EV(n, s, d) { #n, 0 },
	SIFIVE_U74_EVENTS(HPM_EV)
	SIFIVE_U74_ALIASES(HPM_EV)
#undef HPM_EV
};

static unsigned int arch_of(const struct ev *all, size_t n, const char *name)
{
	unsigned int arch = 0;
	int found = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].name, name)) {
			arch |= all[i].arch;
			found = 1;
		}
	if (!found)
		die("no event %s in the driver tables", name);
	return arch;
}

/* ---- what each kind configures, and its metrics ---- */

#define MAX_CONF 64

struct kind {
	const char *prefix;	/* PMU name of instance 0 is prefix "0", or base */
	const char *base;	/* instance 0's name when it has no number */
	const struct ev *all;
	size_t nall;
	const char *conf[MAX_CONF];
	int nconf;
};

static void add_conf(struct kind *k, const char *name)
{
	for (int i = 0; i < k->nconf; i++)
		if (!strcmp(k->conf[i], name))
			return;
	if (k->nconf == MAX_CONF)
		die("too many events for %s", k->prefix);
	arch_of(k->all, k->nall, name);	/* dies if the PMU has no such event */
	k->conf[k->nconf++] = name;
}

/* perfevent opens every event whose name is a prefix of a configured one */
static const char *prefix_of(const struct kind *k, const char *name)
{
	for (size_t j = 0; j < k->nall; j++) {
		size_t n = strlen(k->all[j].name);

		if (n < strlen(name) && !strncmp(k->all[j].name, name, n))
			return k->all[j].name;
	}
	return NULL;
}

static void check_prefixes(const struct kind *k)
{
	for (int i = 0; i < k->nconf; i++) {
		const char *p = prefix_of(k, k->conf[i]);

		if (p) {
			fprintf(stderr, "gen-pcp-conf: %s: configuring %s would open %s too\n",
				k->prefix, k->conf[i], p);
			failed = 1;
		}
	}
}

static struct kind tensix = { "tensix_", NULL, tx_all, ARRAY_LEN(tx_all), { 0 }, 0 };
static struct kind esp = { "esp_", NULL, esp_all, ARRAY_LEN(esp_all), { 0 }, 0 };
static struct kind pulp = { "pulp_", NULL, pulp_all, ARRAY_LEN(pulp_all), { 0 }, 0 };
static struct kind hpm = { "sifive_hpm_", "sifive_hpm", hpm_all, ARRAY_LEN(hpm_all), { 0 }, 0 };

static const char *pmu_name(const struct kind *k, int i)
{
	static char b[4][64];
	static int n;
	char *r = b[n++ % 4];

	if (i == 0 && k->base)
		snprintf(r, sizeof(b[0]), "%s", k->base);
	else
		snprintf(r, sizeof(b[0]), "%s%d", k->prefix, i);
	return r;
}

/*
 * The main tensix-perf metrics, as tensix-perf computes them: each counter's
 * rate per cycle of its own bank, summed with its factor; TP_REF is rate 1.
 */
static const struct {
	int id;
	struct tp_term num[TP_MAX_TERMS];
	struct tp_term den[TP_MAX_TERMS];
} tx_metrics[] = {
	{ TP_M_FPU_UTIL, N(E(fpu_instruction)), N(REF) },
	{ TP_M_SFPU_UTIL, N(E(sfpu_instruction)), N(REF) },
	{ TP_M_MATH_UTIL, N(E(fpu_or_sfpu_instrn)), N(REF) },
	{ TP_M_PACK_UTIL, N(E(packer_busy)), N(REF) },
	{ TP_M_UNPACK0_UTIL, N(E(srca_write)), N(E(unpack0_busy_thread0)) },
	{ TP_M_UNPACK1_UTIL, N(E(srcb_write)), N(E(unpack1_busy_thread0)) },
	{ TP_M_FPU_EFF, N(E(fpu_instruction)), N(E(fpu_instrn_available_1)) },
	{ TP_M_STALL_RATE, N(E(thread_stalls_0), E(thread_stalls_1), E(thread_stalls_2)),
	  N(REFK(3)) },
	{ TP_M_ISSUE_RATE, N(E(thread_instructions_0), E(thread_instructions_1),
			     E(thread_instructions_2)), N(REFK(3)) },
};

/*
 * "scalar(instant(perfevent.hwcounters.<pmu>.<event>.value))": the count
 * since the PMDA opened the event. perfevent gives each event an instance
 * domain of its own, the CPUs it is open on, and a derived expression
 * needs operands of one instance domain: a device PMU's events are open on
 * its cpumask CPU alone, and scalar() takes that one instance. (sifive_hpm,
 * a CPU PMU, has one per hart: no derived metrics.) Not delta(): PCP 6.0.3
 * (Debian 12) crashes in scalar() of an empty set, which delta() is at the
 * first sample (fixed in 6.1.1, libpcp commit 2d8bf1ff7f); the counters
 * themselves, rate-converted by pmrep, pmlogger and pmproxy, give the
 * per-interval rates.
 */
static const char *dv(const char *pmu, const char *event)
{
	static char b[8][160];
	static int n;
	char *r = b[n++ % 8];

	snprintf(r, sizeof(b[0]), "scalar(instant(perfevent.hwcounters.%s.%s.value))", pmu, event);
	return r;
}

static void tx_sum(char *s, size_t size, const struct tp_term *t, const char *pmu)
{
	size_t len = 0;

	s[0] = 0;
	for (int i = 0; t[i].k != 0.0; i++) {
		const char *sep = i ? " + " : "";
		int n;

		if (t[i].ev == TP_REF) {
			n = snprintf(s + len, size - len, "%s%g", sep, t[i].k);
		} else {
			const struct tp_event_info *e = &tp_events[t[i].ev];

			if (t[i].k != 1.0 || t[i].alt)
				die("metric term %s: only plain counters are supported", e->name);
			n = snprintf(s + len, size - len, "%s%s / %s", sep, dv(pmu, e->name),
				     dv(pmu, tx_bank_cycles[e->bank]));
		}
		len += (size_t)n;
		if (len >= size)
			die("expression too long");
	}
}

static void tx_conf_terms(const struct tp_term *t)
{
	for (int i = 0; t[i].k != 0.0; i++) {
		const struct tp_event_info *e;

		if (t[i].ev == TP_REF)
			continue;
		e = &tp_events[t[i].ev];
		if (arch_of(tx_all, ARRAY_LEN(tx_all), e->name) != TENSIX_ARCH_BOTH)
			die("%s is not wired on both architectures", e->name);
		add_conf(&tensix, e->name);
		add_conf(&tensix, tx_bank_cycles[e->bank]);
	}
}

struct simple_metric {
	const char *name, *num, *den1, *den2, *text;
	int percent;	/* shown as a percentage */
};

static const struct simple_metric esp_metrics[] = {
	{ "esp_l2_miss_rate", "l2_miss", "l2_hit", "l2_miss", "L2 misses per L2 access", 1 },
	{ "esp_llc_miss_rate", "llc_miss", "llc_hit", "llc_miss", "LLC misses per LLC access", 1 },
	{ "esp_acc_mem_share", "acc_mem_cycles", "acc_tot_cycles", NULL,
	  "accelerator cycles spent communicating", 1 },
	{ "esp_acc_tlb_share", "acc_tlb_cycles", "acc_tot_cycles", NULL,
	  "accelerator cycles spent loading its TLB", 1 },
	{ "esp_acc_cycles_per_invocation", "acc_tot_cycles", "acc_invocations", NULL,
	  "accelerator cycles per invocation", 0 },
}, pulp_metrics[] = {
	{ "pulp_ipc", "instr", "cycles", NULL, "instructions per active cycle", 0 },
	{ "pulp_imiss_share", "imiss", "cycles", NULL, "cycles waiting for instruction fetches", 1 },
	{ "pulp_tcdm_contention_share", "tcdm_cont", "cycles", NULL,
	  "cycles lost to TCDM contention", 1 },
};

static FILE *open_out(const char *dir, const char *file)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

static void simple_conf(struct kind *k, const struct simple_metric *m, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		add_conf(k, m[j].num);
		add_conf(k, m[j].den1);
		if (m[j].den2)
			add_conf(k, m[j].den2);
	}
}

static void simple_metrics(FILE *d, const struct kind *k, const char *title,
			   const struct simple_metric *m, size_t n)
{
	fprintf(d, "\n# %s\n", title);
	for (size_t j = 0; j < n; j++)
		fprintf(d, "#   %s: %s%s\n", m[j].name, m[j].text, m[j].percent ? " (%)" : "");
	for (int i = 0; i < NR_INSTANCES; i++) {
		const char *pmu = pmu_name(k, i);

		for (size_t j = 0; j < n; j++) {
			fprintf(d, "socpmu.%s.%s = %s%s / ", pmu, m[j].name,
				m[j].percent ? "100 * " : "", dv(pmu, m[j].num));
			if (m[j].den2)
				fprintf(d, "(%s + %s)\n", dv(pmu, m[j].den1), dv(pmu, m[j].den2));
			else
				fprintf(d, "%s\n", dv(pmu, m[j].den1));
		}
	}
}

static void write_conf(FILE *c, const struct kind *k)
{
	check_prefixes(k);
	fprintf(c, "\n# %sN\n", k->base ? k->base : k->prefix);
	for (int i = 0; i < NR_INSTANCES; i++)
		for (int j = 0; j < k->nconf; j++)
			fprintf(c, "%s.%s\n", pmu_name(k, i), k->conf[j]);
}

int main(int argc, char **argv)
{
	const char *head = "# Generated by tools/pcp/gen-pcp-conf from the socpmu driver tables.\n";
	FILE *c, *d;
	char num[2048], den[2048];

	if (argc != 2)
		die("usage: gen-pcp-conf OUTDIR");
	if (mkdir(argv[1], 0755) && errno != EEXIST)
		die("mkdir %s: %s", argv[1], strerror(errno));

	/* What to configure: the metrics' counters, their banks' cycles */
	for (size_t j = 0; j < ARRAY_LEN(tx_metrics); j++) {
		tx_conf_terms(tx_metrics[j].num);
		tx_conf_terms(tx_metrics[j].den);
	}
	simple_conf(&esp, esp_metrics, ARRAY_LEN(esp_metrics));
	add_conf(&esp, "ddr_accesses");
	simple_conf(&pulp, pulp_metrics, ARRAY_LEN(pulp_metrics));
	add_conf(&hpm, "cycles");
	add_conf(&hpm, "instructions");

	c = open_out(argv[1], "perfevent-socpmu.conf");
	fprintf(c, "%s# Lines of perfevent's [dynamic] section: <pmu>.<event>; PMUs that\n"
		"# do not exist are left alone. tools/pcp/socpmu-pcp-setup merges them\n"
		"# into the PMDA's perfevent.conf.\n", head);

	/*
	 * Every PULP event (one counter each on an FPGA build) whose name has
	 * no other event as a prefix: perfevent would open that one too, and
	 * once more for each configured name it starts (parse_events.c).
	 */
	fputs("#\n# Not configurable under perfevent (another event's name is a prefix):", c);
	for (size_t i = 0; i < ARRAY_LEN(pulp_all); i++) {
		if (prefix_of(&pulp, pulp_all[i].name))
			fprintf(c, " pulp_N.%s", pulp_all[i].name);
		else
			add_conf(&pulp, pulp_all[i].name);
	}
	fputc('\n', c);
	write_conf(c, &tensix);
	write_conf(c, &esp);
	write_conf(c, &pulp);
	write_conf(c, &hpm);
	if (fclose(c))
		die("write: %s", strerror(errno));

	d = open_out(argv[1], "socpmu.derived");
	fprintf(d, "%s# PCP derived metrics (pmLoadDerivedConfig): socpmu.<pmu>.<metric> is\n"
		"# the metric over the counts since the perfevent PMDA opened the events\n"
		"# (pmcd's start): PCP 6.0.3's scalar() cannot take a delta().\n", head);
	fputs("\n# tensix_N: tensix-perf's metrics (Documentation/admin-guide/perf/tensix-perf.rst)\n",
	      d);
	for (size_t j = 0; j < ARRAY_LEN(tx_metrics); j++) {
		const struct tp_metric_desc *m = tp_metric_desc(tx_metrics[j].id);

		fprintf(d, "#   %s: %s%s\n", m->name, m->formula, m->fraction ? " (%)" : "");
	}
	for (int i = 0; i < NR_INSTANCES; i++) {
		const char *pmu = pmu_name(&tensix, i);

		for (size_t j = 0; j < ARRAY_LEN(tx_metrics); j++) {
			const struct tp_metric_desc *m = tp_metric_desc(tx_metrics[j].id);

			tx_sum(num, sizeof(num), tx_metrics[j].num, pmu);
			tx_sum(den, sizeof(den), tx_metrics[j].den, pmu);
			fprintf(d, "socpmu.%s.%s = %s(%s) / (%s)\n", pmu, m->name,
				m->fraction ? "100 * " : "", num, den);
		}
	}
	simple_metrics(d, &esp, "esp_N (Documentation/admin-guide/perf/esp-pmu.rst)",
		       esp_metrics, ARRAY_LEN(esp_metrics));
	simple_metrics(d, &pulp, "pulp_N (Documentation/admin-guide/perf/pulp-pmu.rst)",
		       pulp_metrics, ARRAY_LEN(pulp_metrics));
	if (fclose(d))
		die("write: %s", strerror(errno));
	return failed;
}
