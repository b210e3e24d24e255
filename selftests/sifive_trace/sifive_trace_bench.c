// SPDX-License-Identifier: GPL-2.0-only
/*
 * sifive_trace_bench - sustained ITC trace throughput of the sifive_trace PMU.
 *
 * For several sink set-ups it stores ITC messages through /dev/sifive-itc
 * on CPU 0 as fast as it can, in batches, while consuming the AUX buffer
 * the way perf record does, for a fixed time. Then it decodes everything
 * and checks that every message arrived exactly, in order, and that no AUX
 * record was flagged: the rate is only reported with zero loss. Printed per
 * set-up:
 *   - messages per second (store, encode, sink, drain, AUX, consumer),
 *   - trace bytes per message: AUX bytes / messages (sync messages and flush
 *     padding included) and the mean Data Acquisition Message length,
 *   - register accesses per message (the simulator's counters),
 *   - sink drains and AUX records.
 *
 * It is a benchmark, not a test, but it reports in kselftest format (one
 * result per set-up: it fails only if trace was lost or wrong) so that the
 * selftest runner runs it and the figures land in the log.
 *
 * Usage: sifive_trace_bench [-t SECONDS] [-b BATCH]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>

#include "kselftest.h"
#include "st_lib.h"

#define MAX_STORED	(1u << 20)	/* messages per set-up, at most */
#define AUX_PAGES	512

struct setup {
	const char *name;
	const char *spec;	/* new_device arguments */
	uint64_t config;
};

static const struct setup setups[] = {
	{ "SRAM 16K", "harts=2 funnel=0 sram=16384 sba=0", CFG_SRAM | CFG_TIMESTAMP },
	{ "SRAM 1K", "harts=2 funnel=0 sram=1024 sba=0", CFG_SRAM | CFG_TIMESTAMP },
	{ "SBA direct", "harts=2 funnel=0 sram=0 sba=1", CFG_SBA | CFG_TIMESTAMP },
	{ "funnel SRAM", "harts=2 funnel=1 sram=16384 sba=0", CFG_SRAM | CFG_TIMESTAMP },
	{ "funnel SBA", "harts=2 funnel=1 sram=0 sba=1", CFG_SBA | CFG_TIMESTAMP },
	{ "SRAM 16K no ts", "harts=2 funnel=0 sram=16384 sba=0", CFG_SRAM },
};

static struct sp_dev bench_dev;
static struct sifive_itc_write *seq;
static uint8_t *auxdata;

static void cleanup(void)
{
	sp_dev_delete(&bench_dev);
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

struct result {
	double secs;
	unsigned long long msgs, aux_bytes, dq_bytes, drains, records;
	uint64_t reads, writes;
	uint64_t flags;
	const char *error;
};

static size_t aux_cap(void)
{
	return (size_t)MAX_STORED * 24;
}

/* Check decoded messages against the stores, as they come */
struct checker {
	struct result *r;
	unsigned long long k;
};

static int check_msg(const struct nexus_msg *m, void *priv)
{
	struct checker *c = priv;

	if (m->tcode == NEXUS_TCODE_ICT_WS)
		return 0;
	if (c->k >= c->r->msgs || !dq_matches(m, &seq[c->k])) {
		c->r->error = "a message differs";
		return 1;
	}
	c->r->dq_bytes += m->len;
	c->k++;
	return 0;
}

/* Store for @secs seconds, consuming the AUX buffer; then check it all */
static void run(const struct setup *s, double secs, unsigned int batch, struct result *r)
{
	long long drains0 = drv_stat("drains"), records0 = drv_stat("records");
	struct nexus_config cfg = { .srcbits = strstr(s->spec, "funnel=1") ? 1 : 0 };
	struct checker c = { .r = r };
	struct nexus_decoder *dec;
	struct sifive_itc_batch b = { 0 };
	struct trace t;
	size_t len = 0;
	double t0;
	int itc, ret;

	memset(r, 0, sizeof(*r));
	ret = st_dev_create(&bench_dev, s->spec, 2);
	if (ret) {
		r->error = "cannot create the device";
		return;
	}
	itc = itc_open();
	if (itc < 0 || trace_open(&t, s->config, 0, -1, 0, AUX_PAGES, false)) {
		r->error = "cannot open the ITC device or the PMU";
		goto out_dev;
	}
	sp_regs_reset(&bench_dev);
	trace_enable(&t);
	t0 = now_s();
	while (r->msgs + batch <= MAX_STORED) {
		ret = itc_write(itc, seq + r->msgs, batch, &b);
		if (ret || b.traced != batch) {
			r->error = "ITC stores not traced";
			break;
		}
		r->msgs += batch;
		len += trace_aux_take(&t, auxdata + len, aux_cap() - len);
		if (len >= aux_cap()) {
			r->error = "AUX data beyond the check buffer";
			break;
		}
		if (!(r->msgs % (batch * 16)) && now_s() - t0 >= secs)
			break;
	}
	r->secs = now_s() - t0;
	trace_disable(&t);
	len += trace_aux_take(&t, auxdata + len, aux_cap() - len);
	sp_regs(&bench_dev, &r->reads, &r->writes);
	r->flags = trace_aux_flags(&t);
	r->drains = drv_stat("drains") - drains0;
	r->records = drv_stat("records") - records0;
	r->aux_bytes = len;
	trace_close(&t);

	/* zero loss: every message, in order, exact */
	dec = nexus_decoder_new(&cfg, check_msg, &c);
	if (!dec) {
		r->error = "out of memory";
		goto out_dev;
	}
	nexus_decode(dec, auxdata, len);
	nexus_decode_end(dec);
	if (!r->error && c.k != r->msgs)
		r->error = "messages lost";
	if (!r->error && (r->flags || nexus_decoder_stats(dec)->invalid ||
			  nexus_decoder_stats(dec)->truncated))
		r->error = "AUX records flagged or invalid data";
	nexus_decoder_free(dec);
out_dev:
	if (itc >= 0)
		close(itc);
	sp_dev_delete(&bench_dev);
}

int main(int argc, char **argv)
{
	unsigned int batch = 1024, i;
	double secs = 2.0;
	struct result r;
	int opt;

	while ((opt = getopt(argc, argv, "t:b:")) != -1) {
		switch (opt) {
		case 't':
			secs = atof(optarg);
			break;
		case 'b':
			batch = atoi(optarg);
			if (!batch || batch > SIFIVE_ITC_MAX_BATCH)
				batch = 1024;
			break;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-b BATCH]\n", argv[0]);
			return KSFT_FAIL;
		}
	}

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(setups));
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (st_available())
		ksft_exit_skip("socpmu_sim or sifive_trace not loaded\n");
	if (pin_cpu(0))
		ksft_exit_fail_msg("cannot run on CPU 0\n");
	seq = calloc(MAX_STORED, sizeof(*seq));
	auxdata = malloc(aux_cap());
	if (!seq || !auxdata)
		ksft_exit_fail_msg("out of memory\n");
	itc_sequence(seq, MAX_STORED, 42);
	snprintf(bench_dev.name, sizeof(bench_dev.name), "st_bench");
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	ksft_print_msg("per set-up %.1f s or %u messages, batches of %u stores, AUX buffer %d KiB, CPU 0\n",
		       secs, MAX_STORED, batch, AUX_PAGES * 4);
	ksft_print_msg("%-15s %9s %12s %9s %9s %11s %8s %8s\n", "set-up", "messages",
		       "messages/s", "AUX B/msg", "DQ B/msg", "regs/msg", "drains", "records");
	for (i = 0; i < ARRAY_SIZE(setups); i++) {
		const struct setup *s = &setups[i];
		double m;

		run(s, secs, batch, &r);
		m = r.msgs ? r.msgs : 1;
		if (r.msgs)
			ksft_print_msg("%-15s %9llu %12.0f %9.2f %9.2f %5.2f+%-5.2f %8llu %8llu\n",
				       s->name, r.msgs, r.msgs / r.secs, r.aux_bytes / m,
				       r.dq_bytes / m, r.reads / m, r.writes / m, r.drains,
				       r.records);
		if (r.error)
			ksft_test_result_fail("%s: %s\n", s->name, r.error);
		else
			ksft_test_result_pass("%s: zero loss\n", s->name);
	}
	ksft_finished();
}
