// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmarks of the SiFive perf library and its decoder (run by `make
 * bench` in the VM; not a test):
 *
 *  1. decoder throughput: a generated trace of at least 100 MB (function
 *     entry/exit records with 7 counters, delta counts, 64-bit addresses,
 *     two harts behind a funnel, as libsifiveperf and the trace encoder
 *     would make it) through the Nexus decoder alone, and through the
 *     Nexus and the record decoder: MB/s and records/s;
 *  2. instrumentation overhead per function call (an entry and an exit
 *     record, through the -finstrument-functions hooks) on the simulated
 *     harts, with 0 and 3 counters, against the hooks with the trace off;
 *  3. system calls per trace record, counted by the kernel (the
 *     raw_syscalls:sys_enter tracepoint, this thread only) and by the
 *     library; and trace bytes per record;
 *  4. the parts of a record's cost: a bare system call, an ITC ioctl of
 *     one store, a store more, a counter read in the record ioctl.
 *
 * Figures only: the exit status is 0 unless something could not run.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "sifive_perf_lib.h"
#include "../../tools/libsifiveperf/spf_nexus_enc.h"

#define GEN_BYTES	(100ull << 20)
#define CALLS		4000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- 1. decoder throughput ---- */

static uint64_t nrec;

static int count_rec(const struct spf_record *r, void *priv)
{
	(void)priv;
	nrec += r->nctr;	/* touch it */
	return 0;
}

static int count_msg(const struct nexus_msg *m, void *priv)
{
	(*(uint64_t *)priv) += m->len;
	return 0;
}

static int bench_decoder(void)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[7];
	struct spf_enc_state st[2];
	struct spf_dec_ops ops = { .record = count_rec };
	struct spf_decode_result res;
	struct nexus_config cfg = { .srcbits = 1 };
	struct nexus_decoder *nd;
	struct spf_enc_cfg ecfg;
	struct spf_nx nx;
	uint64_t vals[2][7] = { { 0 } }, ts = 1000, records = 0, bytes = 0;
	uint64_t fn = 0x55550000101aULL, depth[2] = { 0 };
	double t0, t_gen, t_nexus, t_full, t_scan;
	unsigned int i, n, src, k;

	for (i = 0; i < 7; i++)
		defs[i] = (struct spf_ctr_def){
			.type = i == 6 ? 2 : 0, .code = i < 3 ? i + 1 : 4 + i,
			.event_data = i == 6 ? 0x202 : 0,
			.info = SPF_INFO(0xc00 + i, i < 3 ? 64 : 40),
		};
	spf_enc_cfg_init(&ecfg, SPT_CHANNEL, SPF_COUNT_DELTA, 0x7f, defs);
	spf_nx_init(&nx, 1);
	nx.cap = GEN_BYTES + (4 << 20);
	nx.buf = malloc(nx.cap);
	if (!nx.buf) {
		printf("# decoder: no memory for %zu MB\n", nx.cap >> 20);
		return -1;
	}
	t0 = now_s();
	for (src = 0; src < 2; src++) {
		memset(&st[src], 0, sizeof(st[src]));
		spf_nx_sync(&nx, src, ts);
		n = spf_enc_header(&ecfg, &st[src], w);
		for (k = 0; k < n; k++)
			spf_nx_dq(&nx, src, w[k].channel, w[k].width, w[k].value, ts += 7);
	}
	while (nx.len < GEN_BYTES && !nx.oom) {
		/* a call tree: enter deeper, or return */
		src = records & 1;
		unsigned int type = (depth[src] < 8 && (records * 2654435761u >> 7) % 3) ?
				    SPF_REC_FUNC_ENTER : SPF_REC_FUNC_EXIT;

		if (type == SPF_REC_FUNC_EXIT && !depth[src])
			type = SPF_REC_FUNC_ENTER;
		depth[src] += type == SPF_REC_FUNC_ENTER ? 1 : -1;
		for (k = 0; k < 7; k++)
			vals[src][k] += k == 0 ? 1200 + records % 977 : k < 3 ? 400 : records % 5;
		n = spf_enc_record(&ecfg, &st[src], w, type, fn + 0x40 * depth[src],
				   fn + 0x40 * (depth[src] + 1), vals[src]);
		for (k = 0; k < n; k++)
			spf_nx_dq(&nx, src, w[k].channel, w[k].width, w[k].value, ts += 13);
		records++;
	}
	t_gen = now_s() - t0;
	printf("# decoder: generated %.1f MB, %llu records (%.1f bytes/record) in %.2f s\n",
	       nx.len / 1048576.0, (unsigned long long)records, (double)nx.len / records, t_gen);

	nd = nexus_decoder_new(&cfg, count_msg, &bytes);
	t0 = now_s();
	nexus_decode(nd, nx.buf, nx.len);
	nexus_decode_end(nd);
	t_nexus = now_s() - t0;
	nexus_decoder_free(nd);

	t0 = now_s();
	for (i = 0, k = 0; i < nx.len; i++)	/* the baseline: a plain byte scan */
		k += (nx.buf[i] & 3) == 3;
	t_scan = now_s() - t0;
	bytes += k;

	nrec = 0;
	t0 = now_s();
	spf_decode_buffer(nx.buf, nx.len, 1, SPT_CHANNEL, true, &ops, NULL, &res);
	t_full = now_s() - t0;
	printf("# decoder: Nexus only: %.1f MB/s\n", nx.len / 1048576.0 / t_nexus);
	printf("# decoder: Nexus + records: %.1f MB/s, %.0f records/s (%llu records, %llu errors)\n",
	       nx.len / 1048576.0 / t_full, res.perf.records / t_full,
	       (unsigned long long)res.perf.records, (unsigned long long)res.perf.errors);
	printf("# decoder: byte scan: %.1f MB/s; Nexus + records take %.2fx its time\n",
	       nx.len / 1048576.0 / t_scan, t_full / t_scan);
	printf("decoder_throughput_mb_s %.1f\ndecoder_vs_byte_scan %.2f\n",
	       nx.len / 1048576.0 / t_full, t_full / t_scan);
	free(nx.buf);
	return res.perf.records == records && !res.perf.errors ? 0 : -1;
}

/* ---- 2. and 3. the library on the simulated harts ---- */

__attribute__((noinline)) static void callee(void)
{
	asm volatile("" ::: "memory");
}

/* @calls entry/exit pairs; ns per pair */
static double hooks(unsigned int calls)
{
	double t0 = now_s();
	unsigned int i;

	for (i = 0; i < calls; i++) {
		__cyg_profile_func_enter(callee, (void *)hooks);
		callee();
		__cyg_profile_func_exit(callee, (void *)hooks);
	}
	return (now_s() - t0) * 1e9 / calls;
}

#define PARTS	2000

/* ns per call of @what */
#define TIME_CALLS(what) ({						\
	double __t0 = now_s();						\
	unsigned int __i;						\
									\
	for (__i = 0; __i < PARTS; __i++)				\
		what;							\
	(now_s() - __t0) * 1e9 / PARTS;					\
})

/*
 * The parts of a record's cost (after the trace was written: these stores
 * are not in it): a bare system call, an ITC ioctl of 1 and of 17 stores,
 * and (with counters) the record ioctl of 1 store and the counters.
 */
static void cost_parts(unsigned int nctr)
{
	struct sifive_itc_write w[17];
	struct sifive_itc_batch b = { .entries = (uintptr_t)w, .count = 1 };
	struct sifive_itc_record r = { .entries = (uintptr_t)w, .count = 1 };
	struct spf_slot *s = tls_slot;
	double sys, one, many, rec = 0, store;
	unsigned int i;

	for (i = 0; i < 17; i++)
		w[i] = (struct sifive_itc_write){ .channel = SPT_CHANNEL, .width = 8, .value = 2 };
	sys = TIME_CALLS(syscall(SYS_getppid));
	one = TIME_CALLS(ioctl(g.itc_fd, SIFIVE_ITC_IOC_WRITE, &b));
	b.count = 17;
	many = TIME_CALLS(ioctl(g.itc_fd, SIFIVE_ITC_IOC_WRITE, &b));
	store = (many - one) / 16;
	if (s && s->rec_fd >= 0) {
		rec = TIME_CALLS(ioctl(s->rec_fd, SIFIVE_ITC_IOC_RECORD, &r));
		r.written = 0;
		ioctl(s->rec_fd, SIFIVE_ITC_IOC_RECORD, &r);
	}
	printf("# library, %u counter(s): parts: %.0f ns a bare system call (getppid), "
	       "%.0f ns an ITC ioctl of 1 store, %.0f ns a store more", nctr, sys, one, store);
	if (rec > 0)
		printf(", %.0f ns the record ioctl of 1 store + %u counters (%u stores): "
		       "%.0f ns a counter read", rec, nctr, r.written,
		       (rec - one - (r.written - 1) * store) / nctr);
	printf("\n");
}

static int bench_library(unsigned int nctr)
{
	perfEvent ev[3] = {
		{ .type = perfEventHWGeneral, .code = HW_CPU_CYCLES },
		{ .type = perfEventHWGeneral, .code = HW_INSTRUCTIONS },
		{ .type = perfEventHWRaw, .event_data = 0x202 },
	};
	struct perfStats st;
	double off, on;
	uint64_t sys = 0;
	int sc, ret;
	char file[64];
	struct stat sb;

	snprintf(file, sizeof(file), "/tmp/spf_bench_%d.rtd", getpid());
	setenv("SIFIVE_PERF_BUFFER_SIZE", "8M", 1);
	if (perfInit(1, 1) || perfFuncEntryExitInit(ev, (int)nctr, SPT_CHANNEL, perfCount_Delta,
						    0)) {
		printf("# library: set-up failed\n");
		return -1;
	}
	off = hooks(CALLS);			/* trace off: the hooks only */
	if (perfTraceOn())
		return -1;
	sc = spt_syscall_counter();
	if (sc >= 0)
		ioctl(sc, PERF_EVENT_IOC_ENABLE, 0);
	on = hooks(CALLS);
	if (sc >= 0) {
		ioctl(sc, PERF_EVENT_IOC_DISABLE, 0);
		if (read(sc, &sys, sizeof(sys)) != sizeof(sys))
			sys = 0;
		close(sc);
	}
	perfTraceOff();
	ret = perfWriteTrace(file);
	perfGetStats(&st);
	if (stat(file, &sb))
		sb.st_size = 0;
	unlink(file);
	printf("# library, %u counter(s): %.0f ns per function call traced (entry + exit "
	       "records), %.0f ns with the trace off\n", nctr, on, off);
	printf("# library, %u counter(s): %llu records, %.2f system calls per record (library), ",
	       nctr, (unsigned long long)st.records,
	       st.records ? (double)st.syscalls / st.records : 0);
	if (sc >= 0)
		printf("%.2f (kernel: raw_syscalls:sys_enter)", (double)sys / (2.0 * CALLS));
	else
		printf("kernel count unavailable (%s)", strerror(-sc));
	printf(", %.1f trace bytes per record\n", st.records ? (double)sb.st_size / st.records : 0);
	printf("call_overhead_ns_%uctr %.0f\nsyscalls_per_record_%uctr %.2f\n", nctr, on, nctr,
	       st.records ? (double)st.syscalls / st.records : 0);
	cost_parts(nctr);
	return ret || st.dropped || st.errors ? -1 : 0;
}

int main(void)
{
	struct spt_dev dev;
	int ret = 0, r, i;
	pid_t pid;

	printf("# sifive_perf_bench\n");
	if (bench_decoder())
		ret = 1;

	if (geteuid()) {
		printf("# library: needs root\n");
		return ret;
	}
	r = spt_create(&dev, "b");
	if (r) {
		printf("# library: no simulated harts (%s)\n", strerror(-r));
		spt_delete(&dev);
		return r == -ENODEV ? ret : 1;
	}
	setenv("SIFIVE_PERF_QUIET", "1", 1);
	spt_pin(0);
	/* The library is set up once per process: a child per configuration */
	for (i = 0; i < 2; i++) {
		int status;

		pid = fork();
		if (!pid)
			_exit(bench_library(i ? 3 : 0) ? 1 : 0);
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ret = 1;
	}
	spt_delete(&dev);
	return ret;
}
