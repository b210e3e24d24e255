// SPDX-License-Identifier: GPL-2.0-only
/*
 * decode_bench - trace generator and host benchmark of sifive-perf decode.
 *
 *   decode_bench gen KIND OUT [MB] [ELF]
 *	write a deterministic trace: KIND is one of
 *	  calls    2 harts behind a funnel (srcbits 1), delta counts, 7 counters,
 *	           64-bit addresses, function entry/exit records (the shape of
 *	           the VM benchmark's trace)
 *	  mixed    srcbits 0, XOR counts, 3 counters, 32-bit addresses, entry,
 *	           exit, ISR and manual records, a new stream every 700 records,
 *	           other ITC channels and sync messages in between
 *	  raw      srcbits 2, raw counts, no counters, 4 sources, corruption:
 *	           flipped, dropped and inserted bytes
 *	  pie      srcbits 1, delta, 2 counters: entry/exit records of the
 *	           functions of ELF at a PIE load bias, no samples
 *	  piesamp  the same with samples (ISR records) at PCs inside them
 *	  noise    random bytes (every TCODE, invalid and overlong messages)
 *	MB: size (default 4); ELF: the program for pie/piesamp.
 *
 *   decode_bench run FILE [ELF]
 *	time, in one run and on the same file: a plain byte scan (the
 *	baseline: every byte read once, message ends counted), the Nexus
 *	decoder alone (in DQ batches as sifive-perf decode uses it, and with
 *	a struct nexus_msg per message as sifive-nexus-dump does), the Nexus
 *	and record decoders ("core", no output), and sifive-perf decode in
 *	the text and summary formats (to a file), with --elf ELF if given;
 *	and the SRC width guess. Prints MB/s and the ratios of the goals
 *	(core within 3x of the byte scan, text within 1.5x of summary).
 *	Each figure is the best of a few repetitions, in CPU time.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elfsym.h"
#include "sifive-perf.h"
#include "spf_decode.h"
#include "spf_nexus_enc.h"

#define CHANNEL		6
#define REPEAT		7

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * CPU time, not wall time: the machines this runs on are often shared, and
 * time spent waiting for a CPU would count against whichever mode it hit
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void emit(struct spf_nx *nx, unsigned int src, const struct sifive_itc_write *w,
		 unsigned int n, uint64_t *ts)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		spf_nx_dq(nx, src, w[k].channel, w[k].width, w[k].value, *ts += 3 + rnd() % 20);
}

static int gen(const char *kind, const char *out, size_t bytes, const char *elf)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[7];
	struct spf_enc_state st[4];
	struct spf_enc_cfg cfg;
	struct spf_nx nx;
	struct elfsym es = { 0 };
	uint64_t vals[4][7] = { { 0 } }, ts = 1000, nrec = 0, depth[4] = { 0 };
	uint64_t stack[4][16] = { { 0 } };
	unsigned int i, n, src, nsrc = 2, srcbits = 1, nctr = 7, type;
	enum spf_count count = SPF_COUNT_DELTA;
	bool mixed = !strcmp(kind, "mixed"), raw = !strcmp(kind, "raw");
	bool pie = !strncmp(kind, "pie", 3), samp = !strcmp(kind, "piesamp");
	uint64_t bias = 0x555555554000ULL, base = 0x55550000101aULL;
	FILE *f;

	if (!strcmp(kind, "noise")) {
		spf_nx_init(&nx, 0);
		while (nx.len < bytes && !nx.oom) {
			nx.cur = (uint8_t)(rnd() & 0x3f);
			spf_nx_byte(&nx, (rnd() % 7) ? 0 : (unsigned int)(rnd() & 3));
		}
		goto write;
	}
	if (mixed) {
		srcbits = 0, nsrc = 1, nctr = 3, count = SPF_COUNT_XOR, base = 0x1040a;
	} else if (raw) {
		srcbits = 2, nsrc = 4, nctr = 0, count = SPF_COUNT_RAW;
	} else if (pie) {
		nctr = 2;
		if (!elf || elfsym_load(&es, elf) || !es.nfuncs) {
			fprintf(stderr, "decode_bench: %s: need an ELF file with functions\n", kind);
			return 1;
		}
	} else if (strcmp(kind, "calls")) {
		fprintf(stderr, "decode_bench: unknown kind %s\n", kind);
		return 1;
	}
	for (i = 0; i < 7; i++)
		defs[i] = (struct spf_ctr_def){
			.type = i == 6 ? 2 : i == 5, .code = i < 3 ? i + 1 : 4 + i,
			.event_data = i == 6 ? 0x202 + ((uint64_t)i << 40) : 0,
			.info = SPF_INFO(0xc00 + i, i < 3 ? 64 : 40),
		};
	spf_enc_cfg_init(&cfg, CHANNEL, count, nctr ? (1u << nctr) - 1 : 0, defs);
	spf_nx_init(&nx, srcbits);
	for (src = 0; src < nsrc; src++) {
		spf_nx_sync(&nx, src, ts);
		n = spf_enc_header(&cfg, &st[src], w);
		emit(&nx, src, w, n, &ts);
	}
	while (nx.len < bytes && !nx.oom) {
		uint64_t a, b;

		src = (unsigned int)(rnd() % nsrc);
		type = depth[src] < 15 && rnd() % 3 ? SPF_REC_FUNC_ENTER : SPF_REC_FUNC_EXIT;
		if (type == SPF_REC_FUNC_EXIT && !depth[src])
			type = SPF_REC_FUNC_ENTER;
		if ((mixed || samp) && rnd() % 5 == 0)
			type = mixed && rnd() % 2 ? SPF_REC_MANUAL : SPF_REC_ISR;
		for (i = 0; i < nctr; i++)
			vals[src][i] += i == 0 ? 1200 + rnd() % 977 : i < 3 ? 400 : rnd() % 5;
		if (i > 1 && rnd() % 50 == 0)
			vals[src][1] += 1ULL << 33;	/* needs the 16-bit high write */
		if (pie) {
			const struct elf_func *fn = &es.funcs[rnd() % es.nfuncs];

			a = (fn->addr & ~1ULL) + bias;
			if (type == SPF_REC_ISR)
				a += fn->size ? (rnd() % fn->size) & ~1ULL : 0;
		} else {
			a = base + 0x40 * (rnd() % 64);
		}
		if (type == SPF_REC_FUNC_ENTER) {
			b = depth[src] ? stack[src][depth[src] - 1] : base - 0x100;
			stack[src][depth[src]++] = a;
		} else if (type == SPF_REC_FUNC_EXIT) {
			a = stack[src][--depth[src]];
			b = depth[src] ? stack[src][depth[src] - 1] : base - 0x100;
		} else {
			b = 0;
		}
		n = spf_enc_record(&cfg, &st[src], w, type, a, b, vals[src]);
		emit(&nx, src, w, n, &ts);
		nrec++;
		if (mixed && nrec % 700 == 0) {	/* a new stream */
			n = spf_enc_header(&cfg, &st[src], w);
			memset(vals[src], 0, sizeof(vals[src]));
			depth[src] = 0;
			emit(&nx, src, w, n, &ts);
		}
		if (mixed && rnd() % 40 == 0)
			spf_nx_dq(&nx, src, 1 + rnd() % 5, 32, (uint32_t)rnd(), ts += 5);
		if (mixed && rnd() % 300 == 0)
			spf_nx_sync(&nx, src, ts += 100);
		if (raw && rnd() % 200 == 0) {
			size_t at = nx.len - 1 - rnd() % 16;

			switch (rnd() % 3) {
			case 0:
				nx.buf[at] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			case 1:
				nx.len--;	/* a lost byte */
				break;
			default:
				nx.cur = (uint8_t)(rnd() & 0x3f);
				spf_nx_byte(&nx, (unsigned int)(rnd() & 3));
				break;
			}
		}
	}
write:
	if (nx.oom) {
		fprintf(stderr, "decode_bench: out of memory\n");
		return 1;
	}
	f = fopen(out, "w");
	if (!f || fwrite(nx.buf, 1, nx.len, f) != nx.len || fclose(f)) {
		fprintf(stderr, "decode_bench: %s: %s\n", out, strerror(errno));
		return 1;
	}
	spf_nx_free(&nx);
	if (pie)
		elfsym_free(&es);
	return 0;
}

/* ---- timing ---- */

static volatile uint64_t sink;

static int count_msg(const struct nexus_msg *m, void *priv)
{
	(*(uint64_t *)priv) += m->len;
	return 0;
}

static int count_rec(const struct spf_record *r, void *priv)
{
	(*(uint64_t *)priv) += r->nctr + r->addr[0];
	return 0;
}

/* The baseline: read every byte once, count the message ends */
static __attribute__((noinline)) uint64_t byte_scan(const uint8_t *p, size_t len)
{
	uint64_t ends = 0;
	size_t i;

	for (i = 0; i < len; i++)
		ends += (p[i] & 3) == 3;
	return ends;
}

static double best_of(double (*fn)(const uint8_t *, size_t, void *), const uint8_t *p,
		      size_t len, void *arg)
{
	double best = 1e30, t;
	int i;

	for (i = 0; i < REPEAT; i++) {
		t = fn(p, len, arg);
		if (t < best)
			best = t;
	}
	return best;
}

static double t_scan(const uint8_t *p, size_t len, void *arg)
{
	double t0 = now_s();

	(void)arg;
	sink += byte_scan(p, len);
	return now_s() - t0;
}

static double t_nexus(const uint8_t *p, size_t len, void *arg)
{
	struct nexus_config cfg = { .srcbits = *(unsigned int *)arg };
	struct nexus_decoder *nd = nexus_decoder_new(&cfg, count_msg, (void *)&sink);
	double t0 = now_s();

	nexus_decode(nd, p, len);
	nexus_decode_end(nd);
	t0 = now_s() - t0;
	nexus_decoder_free(nd);
	return t0;
}

static double t_dq(const uint8_t *p, size_t len, void *arg)
{
	static struct nexus_dq batch[512];
	struct nexus_config cfg = { .srcbits = *(unsigned int *)arg };
	struct nexus_decoder *nd = nexus_decoder_new(&cfg, count_msg, (void *)&sink);
	uint64_t acc = 0;
	size_t used, n, i;
	double t0 = now_s();
	int ret;

	while (len) {
		used = nexus_decode_dq(nd, p, len, batch, 512, &n, &ret);
		for (i = 0; i < n; i++)
			acc += batch[i].data;
		p += used;
		len -= used;
	}
	nexus_decode_end(nd);
	t0 = now_s() - t0;
	sink += acc;
	nexus_decoder_free(nd);
	return t0;
}

static double t_guess(const uint8_t *p, size_t len, void *arg)
{
	double t0 = now_s();

	(void)arg;
	sink += spf_guess_srcbits(p, len, CHANNEL);
	return now_s() - t0;
}

static double t_core(const uint8_t *p, size_t len, void *arg)
{
	struct spf_dec_ops ops = { .record = count_rec };
	struct spf_decode_result res;
	uint64_t acc = 0;
	double t0 = now_s();

	spf_decode_buffer(p, len, *(unsigned int *)arg, CHANNEL, false, &ops, &acc, &res);
	t0 = now_s() - t0;
	sink += acc + res.perf.records;
	return t0;
}

struct tool_arg {
	const char *file, *elf, *fmt, *out;
};

static double t_tool(const uint8_t *p, size_t len, void *arg)
{
	struct tool_arg *a = arg;
	char *argv[10] = { "decode", (char *)a->file, "--format", (char *)a->fmt,
			   "-o", (char *)a->out };
	int argc = 6, fd, err;
	double t0;

	(void)p, (void)len;
	if (a->elf) {
		argv[argc++] = "--elf";
		argv[argc++] = (char *)a->elf;
	}
	/* the tool's summary line on stderr is not part of the timing */
	fflush(stderr);
	err = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	close(fd);
	t0 = now_s();
	if (cmd_decode(argc, argv))
		t0 = 1e30;
	t0 = now_s() - t0;
	dup2(err, 2);
	close(err);
	return t0;
}

static int run(const char *file, const char *elf)
{
	struct tool_arg ta = { .file = file, .elf = elf, .out = "/dev/null" };
	double scan, nexus, dq, core, text, summary, guess, mb;
	unsigned int srcbits;
	struct stat st;
	uint8_t *p;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		fprintf(stderr, "decode_bench: %s: cannot read\n", file);
		return 1;
	}
	/* in memory, so that every mode reads the same cached bytes */
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	mb = st.st_size / 1e6;
	srcbits = spf_guess_srcbits(p, st.st_size, CHANNEL);
	scan = best_of(t_scan, p, st.st_size, NULL);
	nexus = best_of(t_nexus, p, st.st_size, &srcbits);
	dq = best_of(t_dq, p, st.st_size, &srcbits);
	guess = best_of(t_guess, p, st.st_size, NULL);
	core = best_of(t_core, p, st.st_size, &srcbits);
	ta.fmt = "text";
	text = best_of(t_tool, p, st.st_size, &ta);
	ta.fmt = "summary";
	summary = best_of(t_tool, p, st.st_size, &ta);
	munmap(p, st.st_size);

	printf("# decode %s (%.1f MB, srcbits %u%s%s), best of %d:\n", file, mb, srcbits,
	       elf ? ", --elf " : "", elf ? elf : "", REPEAT);
	printf("#   byte scan        %8.1f MB/s\n", mb / scan);
	printf("#   Nexus, batches   %8.1f MB/s  (%.2fx the byte scan's time)\n", mb / dq,
	       dq / scan);
	printf("#   Nexus, messages  %8.1f MB/s  (a struct nexus_msg each)\n", mb / nexus);
	printf("#   Nexus + records  %8.1f MB/s  (%.2fx the byte scan's time; goal <= 3)\n",
	       mb / core, core / scan);
	printf("#   text output      %8.1f MB/s  (%.2fx the summary's time; goal <= 1.5)\n",
	       mb / text, text / summary);
	printf("#   summary          %8.1f MB/s\n", mb / summary);
	printf("#   srcbits guess    %8.2f ms   (the first 256 KiB, one pass)\n", guess * 1e3);
	printf("decode_scan_mb_s %.1f\ndecode_nexus_dq_mb_s %.1f\ndecode_core_mb_s %.1f\n"
	       "decode_text_mb_s %.1f\ndecode_summary_mb_s %.1f\ndecode_core_vs_scan %.2f\n"
	       "decode_text_vs_summary %.2f\ndecode_guess_ms %.2f\n",
	       mb / scan, mb / dq, mb / core, mb / text, mb / summary, core / scan,
	       text / summary, guess * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], argv[3], (argc > 4 ? strtoul(argv[4], NULL, 0) : 4) << 20,
			   argc > 5 ? argv[5] : NULL);
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return run(argv[2], argc > 3 ? argv[3] : NULL);
	fprintf(stderr, "usage: decode_bench gen KIND OUT [MB] [ELF] | run FILE [ELF]\n");
	return 2;
}
