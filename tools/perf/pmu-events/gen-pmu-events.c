// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen-pmu-events - write perf's pmu-events JSON for the socpmu PMUs.
 *
 *   gen-pmu-events OUTDIR
 *
 * writes OUTDIR/<model>/sys/<topic>.json and metrics.json for the models
 * wormhole, blackhole (tensix_<n>), esp (esp_<n>), zero-riscy (pulp_<n>)
 * and sifive-u74 (sifive_hpm). The events' file is named after the PMU
 * (tensix, esp, pulp, sifive_hpm): jevents makes the name the events'
 * topic, so `perf list` shows them under that heading and `perf list
 * tensix` lists them (it matches a word against the topic). "sys" events and metrics, matched by the PMU's
 * sysfs identifier (Compat) and name (Unit), as perf does for imx8_ddr or
 * arm_cspmu. tools/perf/pmu-events/gen.sh puts them in the perf patch
 * series (0008) under tools/perf/pmu-events/arch/common/socpmu/.
 *
 * Nothing here repeats an event table: the events are the X-macro tables of
 * include/socpmu/ (tensix_regs.h, esp_regs.h, pulp_regs.h, sifive_hpm.h),
 * the Tensix metrics are tensix-perf's own definitions (its tt-metal table,
 * included from tools/tensix-perf/metrics.c, and the seed's ratios). Only
 * the wording of the descriptions lives here, and an event without one is
 * an error, so a new event in a table fails the generation until it is
 * described.
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

/* tensix-perf's metric table (static in metrics.c) */
#include "../../tensix-perf/metrics.c"

static const char *outdir;
static FILE *out;
static int nobj;
static int failed;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("gen-pmu-events: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void mkdirs(const char *model)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", outdir, model);
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/%s/sys", outdir, model);
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static void open_json(const char *model, const char *file)
{
	char path[512];

	mkdirs(model);
	snprintf(path, sizeof(path), "%s/%s/sys/%s", outdir, model, file);
	out = fopen(path, "w");
	if (!out)
		die("%s: %s", path, strerror(errno));
	fputs("[\n", out);
	nobj = 0;
}

static void close_json(void)
{
	fputs("\n]\n", out);
	if (fclose(out))
		die("write: %s", strerror(errno));
	out = NULL;
}

/* One JSON object: pairs of key, value; a NULL value leaves the key out */
static void object(const char *key, ...)
{
	va_list ap;
	const char *k = key, *v;
	int first = 1;

	fputs(nobj++ ? ",\n    {\n" : "    {\n", out);
	va_start(ap, key);
	while (k) {
		v = va_arg(ap, const char *);
		if (v) {
			fprintf(out, "%s        \"%s\": \"", first ? "" : ",\n", k);
			for (const char *p = v; *p; p++) {
				if (*p == '"' || *p == '\\')
					fputc('\\', out);
				fputc(*p, out);
			}
			fputc('"', out);
			first = 0;
		}
		k = va_arg(ap, const char *);
	}
	va_end(ap);
	fputs("\n    }", out);
}

static char *fmt(const char *f, ...)
{
	static char bufs[8][1024];
	static int i;
	char *b = bufs[i++ % 8];
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(b, sizeof(bufs[0]), f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(bufs[0]))
		die("string too long: %s", b);
	return b;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- Tensix ---- */

struct tx_event {
	const char *name;
	unsigned int bank, sel, mux, arch;
};

static const struct tx_event tx_events[] = {
#define TX_EV(n, b, s, m, a) { #n, TENSIX_BANK_##b, (s), (m), (a) },
	TENSIX_EVENTS(TX_EV)
};

static const struct tx_event tx_aliases[] = {
	TENSIX_SEED_ALIASES(TX_EV)
#undef TX_EV
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const tx_bank_cycles[TENSIX_NR_BANKS] = {
	"instrn_thread_cycles", "fpu_cycles", "tdma_unpack_cycles", "l1_cycles",
	"tdma_pack_cycles",
};

static const char *const tx_thread[] = {
	"T0 (unpack)", "T1 (math)", "T2 (pack)",
};

/* Descriptions of the counters that no name pattern below covers */
static const struct {
	const char *name, *desc;
} tx_descs[] = {
	{ "waiting_for_srca_clear", "Cycles an instruction waits for SrcA to be cleared" },
	{ "waiting_for_srcb_clear", "Cycles an instruction waits for SrcB to be cleared" },
	{ "waiting_for_srca_valid", "Cycles an instruction waits for SrcA to be valid" },
	{ "waiting_for_srcb_valid", "Cycles an instruction waits for SrcB to be valid" },
	{ "any_thread_stall", "Cycles any of the three threads is stalled" },
	{ "fpu_counter", "FPU instructions executed (cycles the FPU is busy)" },
	{ "sfpu_counter", "SFPU instructions executed (cycles the SFPU is busy)" },
	{ "math_counter", "Cycles the FPU or the SFPU executes an instruction" },
	{ "math_src_data_ready", "Cycles the math engine has its source data (SrcA and SrcB) ready" },
	{ "data_hazard_stalls_movd2a", "Cycles math instructions are not stalled by a MOVD2A data hazard" },
	{ "math_fidelity_stall", "Cycles math instructions stall for further fidelity phases" },
	{ "math_instrn_started", "Math instructions started" },
	{ "math_instrn_available", "Cycles a math instruction is available to issue" },
	{ "srcb_write_available", "Cycles the unpacker may write SrcB" },
	{ "srca_write_available", "Cycles the unpacker may write SrcA" },
	{ "unpack0_busy_thread0", "Cycles unpacker 0 is busy for thread 0" },
	{ "unpack1_busy_thread0", "Cycles unpacker 1 is busy for thread 0" },
	{ "unpack0_busy_thread1", "Cycles unpacker 0 is busy for thread 1" },
	{ "unpack1_busy_thread1", "Cycles unpacker 1 is busy for thread 1" },
	{ "math_instrn_hf_4_cycle", "Math instructions of 4 cycles (high fidelity, 4 phases)" },
	{ "math_instrn_hf_2_cycle", "Math instructions of 2 cycles (high fidelity, 2 phases)" },
	{ "math_instrn_hf_1_cycle", "Math instructions of 1 cycle (low fidelity)" },
	{ "srcb_write_actual", "Cycles the unpacker writes SrcB" },
	{ "srcb_write_not_blocked_port", "Cycles a SrcB write is not blocked by the write port" },
	{ "srca_write_not_blocked_ovr", "Cycles a SrcA write is not blocked by an overwrite" },
	{ "srca_write_actual", "Cycles the unpacker writes SrcA" },
	{ "srca_write_thread0", "Cycles the unpacker writes SrcA for thread 0" },
	{ "srcb_write_thread0", "Cycles the unpacker writes SrcB for thread 0" },
	{ "srca_write_thread1", "Cycles the unpacker writes SrcA for thread 1" },
	{ "srcb_write_thread1", "Cycles the unpacker writes SrcB for thread 1" },
	{ "packer_dest_read_available", "Cycles the packer may read the Dest register" },
	{ "packer_dest_read_1", "Cycles packer 1 reads the Dest register" },
	{ "packer_dest_read_2", "Cycles packer 2 reads the Dest register" },
	{ "packer_dest_read_3", "Cycles packer 3 reads the Dest register" },
	{ "packer_busy_0", "Cycles packer engine 0 is busy" },
	{ "packer_busy_1", "Cycles packer engine 1 is busy" },
	{ "packer_busy_2", "Cycles packer engine 2 is busy" },
	{ "packer_busy", "Cycles any packer engine is busy" },
	{ "dest_read_granted_0", "Dest register reads granted to packer 0" },
	{ "dest_read_granted_1", "Dest register reads granted to packer 1" },
	{ "dest_read_granted_2", "Dest register reads granted to packer 2" },
	{ "dest_read_granted_3", "Dest register reads granted to packer 3" },
	{ "math_not_stalled_dest_wr_port", "Cycles math is not stalled by the Dest write port" },
	{ "available_math", "Cycles math is not stalled by the scoreboard" },
};

static const struct {
	const char *what, *text;
} tx_waits[] = {
	{ "thcon_idle", "THCON to be idle" },
	{ "unpack_idle", "the unpacker to be idle" },
	{ "pack_idle", "the packer to be idle" },
	{ "math_idle", "math to be idle" },
	{ "nonzero_sem", "a semaphore to be non-zero" },
	{ "nonfull_sem", "a semaphore to be not full" },
	{ "move_idle", "MOVE to be idle" },
	{ "mmio_idle", "MMIO to be idle" },
	{ "sfpu_idle", "the SFPU to be idle" },
};

/* "name_<t>" with t a thread: the thread, else -1 */
static int tx_name_thread(const char *name, char *stem, size_t len)
{
	size_t n = strlen(name);

	if (n < 3 || name[n - 2] != '_' || name[n - 1] < '0' || name[n - 1] > '2')
		return -1;
	snprintf(stem, len, "%.*s", (int)(n - 2), name);
	return name[n - 1] - '0';
}

static char *upper(const char *s)
{
	static char b[4][64];
	static int i;
	char *r = b[i++ % 4];
	size_t k;

	for (k = 0; s[k] && k + 1 < sizeof(b[0]); k++)
		r[k] = (s[k] >= 'a' && s[k] <= 'z') ? (char)(s[k] - 32) : s[k];
	r[k] = 0;
	return r;
}

/* L1 port text of an RTL L1 name: "l1_<m>_<port>[_grant]" */
static const char *tx_l1_desc(const struct tx_event *e)
{
	char port[96];
	const char *p = e->name + 5;	/* after "l1_<m>_" */
	int grant = (e->sel & TENSIX_SEL_GRANT) != 0;
	size_t n = strlen(p);

	if (grant && ends_with(p, "_grant"))
		n -= strlen("_grant");
	snprintf(port, sizeof(port), "%.*s", (int)n, p);
	for (char *c = port; *c; c++)
		if (*c == '_')
			*c = ' ';
	return fmt("L1 %s of port %u (mux group %u): %s", grant ? "grants" : "requests",
		   (e->sel & 0xff) + 8 * e->mux, e->mux, port);
}

static const char *tx_desc(const struct tx_event *e)
{
	char stem[64];
	int t = tx_name_thread(e->name, stem, sizeof(stem));

	for (size_t i = 0; i < ARRAY_LEN(tx_descs); i++)
		if (!strcmp(tx_descs[i].name, e->name))
			return tx_descs[i].desc;
	if (e->bank == TENSIX_BANK_L1 && starts_with(e->name, "l1_"))
		return tx_l1_desc(e);
	if (t >= 0 && ends_with(stem, "_instrn_available")) {
		stem[strlen(stem) - strlen("_instrn_available")] = 0;
		return fmt("Cycles thread %s has a %s instruction available to issue",
			   tx_thread[t], upper(stem));
	}
	if (t >= 0 && !strcmp(stem, "thread_stalls"))
		return fmt("Cycles thread %s is stalled", tx_thread[t]);
	if (t >= 0 && !strcmp(stem, "thread_instructions"))
		return fmt("Instructions issued by thread %s", tx_thread[t]);
	if (t >= 0 && starts_with(stem, "waiting_for_"))
		for (size_t i = 0; i < ARRAY_LEN(tx_waits); i++)
			if (!strcmp(stem + strlen("waiting_for_"), tx_waits[i].what))
				return fmt("Cycles thread %s waits for %s", tx_thread[t],
					   tx_waits[i].text);
	return NULL;
}

static const char *const tx_bank_names[] = TENSIX_BANK_NAMES;

/* The event string, as the driver's events/ attribute spells it */
static const char *tx_filter(const struct tx_event *e)
{
	const char *grant = (e->sel & TENSIX_SEL_GRANT) ? ",grant=1" : "";

	if (e->bank == TENSIX_BANK_L1)
		return fmt("bank=%u%s,l1mux=%u", e->bank, grant, e->mux);
	return fmt("bank=%u%s", e->bank, grant);
}

static const struct tx_event *tx_find(const char *name, unsigned int arch)
{
	for (size_t i = 0; i < ARRAY_LEN(tx_events); i++)
		if ((tx_events[i].arch & arch) && !strcmp(tx_events[i].name, name))
			return &tx_events[i];
	for (size_t i = 0; i < ARRAY_LEN(tx_aliases); i++)
		if ((tx_aliases[i].arch & arch) && !strcmp(tx_aliases[i].name, name))
			return &tx_aliases[i];
	return NULL;
}

static void tx_event_obj(const struct tx_event *e, const char *desc, const char *compat)
{
	object("BriefDescription", desc, "Compat", compat,
	       "EventCode", fmt("0x%x", e->sel & 0xff), "EventName", e->name,
	       "Filter", tx_filter(e), "Unit", "tensix", (const char *)NULL);
}

static void tensix_events(const char *model, unsigned int arch)
{
	open_json(model, "tensix.json");
	for (size_t i = 0; i < ARRAY_LEN(tx_events); i++) {
		const struct tx_event *e = &tx_events[i];
		const char *d;

		if (!(e->arch & arch))
			continue;
		d = tx_desc(e);
		if (!d) {
			fprintf(stderr, "gen-pmu-events: tensix event %s has no description\n",
				e->name);
			failed = 1;
			continue;
		}
		tx_event_obj(e, fmt("%s [%s bank select %u]", d,
				    upper(tx_bank_names[e->bank]), e->sel), model);
	}
	for (size_t i = 0; i < ARRAY_LEN(tx_aliases); i++) {
		const struct tx_event *a = &tx_aliases[i], *e = NULL;

		if (!(a->arch & arch))
			continue;
		for (size_t j = 0; j < ARRAY_LEN(tx_events) && !e; j++)
			if ((tx_events[j].arch & arch) && tx_events[j].bank == a->bank &&
			    tx_events[j].sel == a->sel && tx_events[j].mux == a->mux)
				e = &tx_events[j];
		if (!e)
			die("tensix alias %s has no counter on %s", a->name, model);
		tx_event_obj(a, fmt("%s [seed name of %s]", tx_desc(e), e->name), model);
	}
	for (unsigned int b = 0; b < TENSIX_NR_BANKS; b++)
		object("BriefDescription",
		       fmt("Reference cycles of the %s bank: the cycles its counters counted in",
			   upper(tx_bank_names[b])),
		       "Compat", model, "EventCode", "0x0", "EventName", tx_bank_cycles[b],
		       "Filter", fmt("bank=%u,cycles=1", b), "ScaleUnit", "1cycles",
		       "Unit", "tensix", (const char *)NULL);
	close_json();
}

/* A metric's terms: counter names (on this arch) and factors */
struct mx_term {
	const char *name;	/* NULL: the window's reference cycles */
	double k;
};

static int mx_window(const struct tx_event *e)
{
	return e->bank == TENSIX_BANK_L1 ? TENSIX_NR_BANKS + (int)e->mux : (int)e->bank;
}

static const char *kstr(double k)
{
	return k == 1.0 ? "" : k == -1.0 ? "-" : fmt("%g * ", k);
}

/*
 * tensix-perf's rule: each counter's rate is its count per cycle of its own
 * window (its bank's reference cycles; L1: under the same mux). When all
 * the counters share one window that is the plain ratio of the counts.
 */
static const char *mx_sum(char *s, size_t size, const struct mx_term *t, int n,
			  unsigned int arch, int window, int same)
{
	size_t len = 0;

	s[0] = 0;

	for (int i = 0; i < n; i++) {
		const char *term;
		double k = t[i].k;
		const char *sign = i ? (k < 0 ? " - " : " + ") : (k < 0 ? "-" : "");

		if (k < 0)
			k = -k;
		if (!t[i].name) {
			int bank = window >= TENSIX_NR_BANKS ? TENSIX_BANK_L1 : window;

			term = same ? fmt("%s%s", kstr(k), tx_bank_cycles[bank]) :
				fmt("%g", k);
		} else {
			const struct tx_event *e = tx_find(t[i].name, arch);

			term = same ? fmt("%s%s", kstr(k), e->name) :
				fmt("%s%s / %s", kstr(k), e->name,
				    tx_bank_cycles[e->bank]);
		}
		len += (size_t)snprintf(s + len, size - len, "%s%s", sign, term);
		if (len >= size)
			die("metric expression too long");
	}
	return s;
}

static int mx_resolve(const struct tp_term *in, struct mx_term *t, unsigned int arch)
{
	int n = 0;

	for (; in->k != 0.0; in++, n++) {
		if (in->ev == TP_REF) {
			t[n].name = NULL;
		} else if (tx_find(tp_events[in->ev].name, arch)) {
			t[n].name = tp_events[in->ev].name;
		} else if (in->alt && tx_find(tp_events[in->alt].name, arch)) {
			t[n].name = tp_events[in->alt].name;
		} else {
			return -1;
		}
		t[n].k = in->k;
	}
	return n;
}

static const char *mx_group(const char *section)
{
	static const struct {
		const char *sec, *group;
	} g[] = {
		{ S_PIPE, "tensix_pipeline" }, { S_THR, "tensix_threads" },
		{ S_WAIT, "tensix_waits" }, { S_STALL, "tensix_stalls" },
		{ S_AVAIL, "tensix_availability" }, { S_PACK, "tensix_packers" },
		{ S_L1, "tensix_l1" }, { S_X, "tensix_across_banks" },
	};

	for (size_t i = 0; i < ARRAY_LEN(g); i++)
		if (!strcmp(g[i].sec, section))
			return fmt("tensix;%s", g[i].group);
	return "tensix;tensix_seed";
}

static int mx_linear(const struct tp_metric_desc *d, const struct tp_term *num,
		     const struct tp_term *den, unsigned int arch, const char *model)
{
	struct mx_term tn[TP_MAX_TERMS], td[TP_MAX_TERMS];
	int nn = mx_resolve(num, tn, arch), nd = mx_resolve(den, td, arch);
	int window = -1, same = 1;
	char bn[400], bd[400];
	const char *expr;

	if (nn < 0 || nd < 0)
		return 0;	/* a counter this arch does not wire */
	for (int i = 0; i < nn + nd; i++) {
		const struct mx_term *t = i < nn ? &tn[i] : &td[i - nn];
		int w;

		if (!t->name)
			continue;
		w = mx_window(tx_find(t->name, arch));
		if (window < 0)
			window = w;
		else if (w != window)
			same = 0;
	}
	if (!same && window >= TENSIX_NR_BANKS)
		for (int i = 0; i < nn + nd; i++)
			if (!(i < nn ? tn[i] : td[i - nn]).name)
				return 0;	/* L1 cycles of two mux windows */
	expr = fmt("(%s) / (%s)", mx_sum(bn, sizeof(bn), tn, nn, arch, window, same),
		   mx_sum(bd, sizeof(bd), td, nd, arch, window, same));
	object("BriefDescription", fmt("%s: %s", d->label, d->formula),
	       "Compat", model, "MetricExpr", expr, "MetricGroup", mx_group(d->section),
	       "MetricName", d->name, "ScaleUnit", d->fraction ? "100%" : NULL,
	       "Unit", "tensix", (const char *)NULL);
	return 1;
}


/* The seed's metrics that are ratios of counters (tensix-perf's ratio_ev) */
static const struct {
	int id;
	struct tp_term num[TP_MAX_TERMS];
	struct tp_term den[TP_MAX_TERMS];
} seed_ratios[] = {
	{ TP_M_UNPACK0_WRITE_EFF, N(E(srca_write)), N(E(unpack0_busy_thread0)) },
	{ TP_M_UNPACK1_WRITE_EFF, N(E(srcb_write)), N(E(unpack1_busy_thread0)) },
	{ TP_M_PACKER_EFF, N(E(packer_dest_read_available)), N(E(packer_busy)) },
	{ TP_M_FPU_EFF, N(E(fpu_instruction)), N(E(fpu_instrn_available_1)) },
	{ TP_M_MATH_PIPE_UTIL, N(E(math_instrn_started)), N(E(math_instrn_available)) },
	{ TP_M_MATH_TO_PACK, N(E(available_math)), N(E(packer_busy)) },
	{ TP_M_UNPACK0_TO_MATH, N(E(srca_write_available)), N(E(unpack0_busy_thread0)) },
	{ TP_M_UNPACK1_TO_MATH, N(E(srcb_write_available)), N(E(unpack1_busy_thread0)) },
	{ TP_M_FPU_UTIL, N(E(fpu_instruction)), N(REF) },
	{ TP_M_SFPU_UTIL, N(E(sfpu_instruction)), N(REF) },
	{ TP_M_MATH_UTIL, N(E(fpu_or_sfpu_instrn)), N(REF) },
	{ TP_M_UNPACK0_UTIL, N(E(srca_write)), N(E(unpack0_busy_thread0)) },
	{ TP_M_UNPACK1_UTIL, N(E(srcb_write)), N(E(unpack1_busy_thread0)) },
	{ TP_M_PACK_UTIL, N(E(packer_busy)), N(REF) },
	{ TP_M_STALL_RATE, N(E(thread_stalls_0), E(thread_stalls_1), E(thread_stalls_2)),
	  N(REFK(3)) },
	{ TP_M_ISSUE_RATE, N(E(thread_instructions_0), E(thread_instructions_1),
			     E(thread_instructions_2)), N(REFK(3)) },
	{ TP_M_NOC_RING0_TXN, N(E(noc_ring0_incoming_1), E(noc_ring0_incoming_0),
				E(noc_ring0_outgoing_1), E(noc_ring0_outgoing_0)), N(REF) },
	{ TP_M_NOC_RING1_TXN, N(E(noc_ring1_incoming_1), E(noc_ring1_incoming_0),
				E(noc_ring1_outgoing_1), E(noc_ring1_outgoing_0)), N(REF) },
};

static void tensix_metrics(const char *model, unsigned int arch)
{
	int n = 0, skipped = 0;

	open_json(model, "metrics.json");
	for (size_t i = 0; i < ARRAY_LEN(seed_ratios); i++)
		n += mx_linear(tp_metric_desc(seed_ratios[i].id), seed_ratios[i].num,
			       seed_ratios[i].den, arch, model);
	for (size_t i = 0; i < ARRAY_LEN(tt_defs); i++) {
		const struct tp_ttdef *d = &tt_defs[i];
		struct mx_term t[TP_MAX_TERMS];
		int k;

		if (d->kind == TP_LINEAR) {
			int ok = mx_linear(&d->d, d->num, d->den, arch, model);

			n += ok;
			skipped += !ok;
			continue;
		}
		k = mx_resolve(d->num, t, arch);
		if (d->kind == TP_IMBALANCE && k == 3) {
			const char *mx = fmt("max(%s, max(%s, %s))", t[0].name, t[1].name, t[2].name);
			const char *mn = fmt("min(%s, min(%s, %s))", t[0].name, t[1].name, t[2].name);

			object("BriefDescription", fmt("%s: %s", d->d.label, d->d.formula),
			       "Compat", model, "MetricExpr", fmt("(%s - %s) / %s", mx, mn, mx),
			       "MetricGroup", mx_group(d->d.section), "MetricName", d->d.name,
			       "ScaleUnit", "100%", "Unit", "tensix", (const char *)NULL);
			n++;
		} else {
			skipped++;
		}
	}
	close_json();
	fprintf(stderr, "gen-pmu-events: %s: %d tensix metrics (%d of tt-metal's left out)\n",
		model, n, skipped);
}

/* ---- ESP ---- */

static const struct {
	const char *prefix, *desc;
} esp_descs[] = {
	{ "ddr_accesses", "Off-chip memory (DDR) requests" },
	{ "coh_req", "Coherence requests received by the LLC" },
	{ "coh_fwd", "Coherence forwards sent" },
	{ "coh_rsp_rcv", "Coherence responses received" },
	{ "coh_rsp_snd", "Coherence responses sent" },
	{ "dma_req", "DMA requests received" },
	{ "dma_rsp", "DMA responses sent" },
	{ "coh_dma_req", "Coherent-DMA requests received" },
	{ "coh_dma_rsp", "Coherent-DMA responses sent" },
	{ "l2_hit", "L2 cache hits" },
	{ "l2_miss", "L2 cache misses" },
	{ "llc_hit", "Last-level cache hits" },
	{ "llc_miss", "Last-level cache misses" },
	{ "acc_tlb_cycles", "Accelerator cycles loading its TLB" },
	{ "acc_mem_cycles", "Accelerator communication (memory) cycles (64-bit)" },
	{ "acc_tot_cycles", "Accelerator total execution cycles (64-bit)" },
	{ "acc_invocations", "Accelerator invocations" },
};

static const char *const esp_types[] = ESP_TILE_TYPE_NAMES;
static const char *const esp_queues[] = { "north", "south", "west", "east", "local" };

static const char *esp_tiles(unsigned int types)
{
	char *s = fmt("%s", "");
	size_t len = 0;

	if (types == ESP_T_ALL)
		return "every tile";
	for (unsigned int t = 0; t < ESP_NR_TILE_TYPES; t++)
		if (types & (1u << t))
			len += (size_t)snprintf(s + len, 64 - len, "%s%s", len ? "/" : "",
						esp_types[t]);
	return fmt("%s tiles", s);
}

static const char *esp_desc(const char *name, unsigned int mon)
{
	for (size_t i = 0; i < ARRAY_LEN(esp_descs); i++)
		if (!strcmp(esp_descs[i].prefix, name))
			return esp_descs[i].desc;
	if (starts_with(name, "dvfs_op"))
		return fmt("Cycles at DVFS operating point %u", mon - ESP_MON_DVFS_BASE);
	if (starts_with(name, "noc_inject_p"))
		return fmt("Packets injected on NoC plane %u", mon - ESP_MON_NOC_INJECT_BASE);
	if (starts_with(name, "noc_queue_full_p")) {
		unsigned int q = mon - ESP_MON_NOC_QFULL_BASE;

		return fmt("Cycles the %s queue of NoC plane %u is full (backpressure)",
			   esp_queues[q % ESP_NOC_QUEUES], q / ESP_NOC_QUEUES);
	}
	return NULL;
}

static void esp_json(void)
{
	static const struct {
		const char *name;
		unsigned int mon, types;
	} ev[] = {
#define ESP_EV(n, m, t, w) { #n, (m), (t) },
		ESP_EVENTS(ESP_EV)
#undef ESP_EV
	};
	static const struct {
		const char *name, *expr, *desc, *unit;
	} mx[] = {
		{ "esp_l2_miss_rate", "l2_miss / (l2_hit + l2_miss)",
		  "L2 misses per L2 access (CPU tiles)", "100%" },
		{ "esp_llc_miss_rate", "llc_miss / (llc_hit + llc_miss)",
		  "LLC misses per LLC access (memory tiles)", "100%" },
		{ "esp_acc_mem_share", "acc_mem_cycles / acc_tot_cycles",
		  "Share of the accelerator's execution cycles spent communicating", "100%" },
		{ "esp_acc_tlb_share", "acc_tlb_cycles / acc_tot_cycles",
		  "Share of the accelerator's execution cycles spent loading its TLB", "100%" },
		{ "esp_acc_cycles_per_invocation", "acc_tot_cycles / acc_invocations",
		  "Accelerator execution cycles per invocation", NULL },
	};

	open_json("esp", "esp.json");
	for (size_t i = 0; i < ARRAY_LEN(ev); i++) {
		const char *d = esp_desc(ev[i].name, ev[i].mon);

		if (!d) {
			fprintf(stderr, "gen-pmu-events: esp event %s has no description\n",
				ev[i].name);
			failed = 1;
			continue;
		}
		object("BriefDescription", fmt("%s [monitor %u on %s]", d, ev[i].mon,
					       esp_tiles(ev[i].types)),
		       "Compat", "esp", "EventCode", fmt("0x%02x", ev[i].mon),
		       "EventName", ev[i].name, "Unit", "esp", (const char *)NULL);
	}
	close_json();
	open_json("esp", "metrics.json");
	for (size_t i = 0; i < ARRAY_LEN(mx); i++)
		object("BriefDescription", mx[i].desc, "Compat", "esp",
		       "MetricExpr", mx[i].expr, "MetricGroup", "esp",
		       "MetricName", mx[i].name, "ScaleUnit", mx[i].unit,
		       "Unit", "esp", (const char *)NULL);
	close_json();
}

/* ---- PULP ---- */

static void pulp_json(void)
{
	static const struct {
		const char *name, *desc;
		unsigned int nr;
	} ev[] = {
#define PULP_EV(n, nr, d) { #n, d, (nr) },
		PULP_EVENTS(PULP_EV)
#undef PULP_EV
	};

	open_json("zero-riscy", "pulp.json");
	for (size_t i = 0; i < ARRAY_LEN(ev); i++) {
		char d[128];

		snprintf(d, sizeof(d), "%s", ev[i].desc);
		d[0] = (char)(d[0] >= 'a' && d[0] <= 'z' ? d[0] - 32 : d[0]);
		object("BriefDescription", fmt("%s [PCER bit %u]", d, ev[i].nr),
		       "Compat", "zero-riscy", "EventCode", fmt("0x%x", ev[i].nr),
		       "EventName", ev[i].name, "Unit", "pulp", (const char *)NULL);
	}
	close_json();
}

/* ---- SiFive HPM ---- */

static void hpm_json(void)
{
	static const struct {
		const char *name, *desc;
		unsigned int code;
	} gen[] = {
		{ "cycles", "CPU cycles (SBI general event)", SIFIVE_HPM_GEN_CPU_CYCLES },
		{ "instructions", "Instructions retired (SBI general event)",
		  SIFIVE_HPM_GEN_INSTRUCTIONS },
		{ "cache_references", "Cache references (SBI general event)",
		  SIFIVE_HPM_GEN_CACHE_REFERENCES },
		{ "cache_misses", "Cache misses (SBI general event)", SIFIVE_HPM_GEN_CACHE_MISSES },
		{ "branch_instructions", "Branch instructions (SBI general event)",
		  SIFIVE_HPM_GEN_BRANCH_INSTRUCTIONS },
		{ "branch_misses", "Branch mispredictions (SBI general event)",
		  SIFIVE_HPM_GEN_BRANCH_MISSES },
		{ "bus_cycles", "Bus cycles (SBI general event)", SIFIVE_HPM_GEN_BUS_CYCLES },
		{ "stalled_cycles_frontend", "Cycles the front end is stalled (SBI general event)",
		  SIFIVE_HPM_GEN_STALLED_CYCLES_FRONTEND },
		{ "stalled_cycles_backend", "Cycles the back end is stalled (SBI general event)",
		  SIFIVE_HPM_GEN_STALLED_CYCLES_BACKEND },
		{ "ref_cycles", "Reference cycles (SBI general event)",
		  SIFIVE_HPM_GEN_REF_CPU_CYCLES },
		{ "timestamp", "Ticks of the time CSR, at the timebase frequency",
		  SIFIVE_HPM_GEN_TIME },
	};
	static const struct {
		const char *name, *desc;
		unsigned long long sel;
	} raw[] = {
#define HPM_EV(n, s, d) { #n, d, (s) },
		SIFIVE_U74_EVENTS(HPM_EV)
		SIFIVE_U74_ALIASES(HPM_EV)
#undef HPM_EV
	};

	open_json("sifive-u74", "sifive_hpm.json");
	for (size_t i = 0; i < ARRAY_LEN(gen); i++)
		object("BriefDescription", gen[i].desc, "Compat", "sifive-u74",
		       "ConfigCode", fmt("0x%x", gen[i].code), "EventName", gen[i].name,
		       "Unit", "sifive_hpm", (const char *)NULL);
	for (size_t i = 0; i < ARRAY_LEN(raw); i++)
		object("BriefDescription", fmt("%s [U74 mhpmevent 0x%llx]", raw[i].desc,
					       raw[i].sel),
		       "Compat", "sifive-u74",
		       "ConfigCode", fmt("0x%x", SIFIVE_HPM_TYPE_RAW << SIFIVE_HPM_CFG_TYPE_SHIFT),
		       "EventName", raw[i].name, "Filter", fmt("event_data=0x%llx", raw[i].sel),
		       "Unit", "sifive_hpm", (const char *)NULL);
	close_json();
}

int main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: gen-pmu-events OUTDIR");
	outdir = argv[1];
	if (mkdir(outdir, 0755) && errno != EEXIST)
		die("mkdir %s: %s", outdir, strerror(errno));
	tensix_events("wormhole", TENSIX_ARCH_WH);
	tensix_metrics("wormhole", TENSIX_ARCH_WH);
	tensix_events("blackhole", TENSIX_ARCH_BH);
	tensix_metrics("blackhole", TENSIX_ARCH_BH);
	esp_json();
	pulp_json();
	hpm_json();
	return failed;
}
