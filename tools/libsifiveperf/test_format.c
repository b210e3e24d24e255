// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of the SiFive perf library's record format (run by `make
 * check` in tools/libsifiveperf): records encoded as the library encodes
 * them, turned into Nexus bytes as a trace encoder would, and decoded back
 * through the in-tree Nexus decoder and the record decoder. Round trips
 * for every count type, 32- and 64-bit addresses, 48-bit counter values,
 * counter wrap, the exact ITC writes of a known record, streams of several
 * threads one after the other and of several harts interleaved, and the
 * recovery from cut records and garbage. Output is kselftest TAP.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sifive_perf_format.h"
#include "spf_decode.h"
#include "spf_nexus_enc.h"

static unsigned int test_nr, pass, fail;
static bool test_ok;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			test_ok = false;				\
		}							\
	} while (0)

#define CHANNEL		6
#define MAX_RECS	4096

/* What the decoder delivered */
struct got {
	unsigned int nhdr, nrec;
	struct spf_header hdr[16];
	struct spf_record rec[MAX_RECS];
	unsigned int errors;
};

static struct got got;

static int on_header(const struct spf_header *h, void *priv)
{
	struct got *g = priv;

	if (g->nhdr < 16)
		g->hdr[g->nhdr] = *h;
	g->nhdr++;
	return 0;
}

static int on_record(const struct spf_record *r, void *priv)
{
	struct got *g = priv;

	if (g->nrec < MAX_RECS) {
		g->rec[g->nrec] = *r;
		g->rec[g->nrec].hdr = NULL;
	}
	g->nrec++;
	return 0;
}

static void on_error(const char *what, uint64_t offset, void *priv)
{
	struct got *g = priv;

	(void)what;
	(void)offset;
	g->errors++;
}

static const struct spf_dec_ops ops = {
	.header = on_header, .record = on_record, .error = on_error,
};

/* The trace encoder: ITC writes to Nexus messages of one source */
struct sink {
	struct spf_nx nx;
	uint64_t now;
};

static void sink_init(struct sink *k, unsigned int srcbits)
{
	spf_nx_init(&k->nx, srcbits);
	k->now = 1000;
}

static void sink_sync(struct sink *k, unsigned int src)
{
	spf_nx_sync(&k->nx, src, k->now);
}

static void sink_writes(struct sink *k, unsigned int src, const struct sifive_itc_write *w,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		k->now += 3 + (k->now % 7);
		spf_nx_dq(&k->nx, src, w[i].channel, w[i].width, w[i].value, k->now);
	}
}

static struct spf_decode_result decode(struct sink *k, bool by_src)
{
	struct spf_decode_result r;

	memset(&got, 0, sizeof(got));
	spf_decode_buffer(k->nx.buf, k->nx.len, k->nx.srcbits, CHANNEL, by_src, &ops, &got, &r);
	return r;
}

static uint64_t rnd64(void)
{
	return (uint64_t)random() << 42 ^ (uint64_t)random() << 21 ^ (uint64_t)random();
}

/* A counter set: cycles (64-bit), time, instret, and hpm counters of @width bits */
static void make_defs(struct spf_ctr_def *defs, uint32_t *mask, unsigned int width)
{
	memset(defs, 0, 5 * sizeof(*defs));
	defs[0] = (struct spf_ctr_def){ .type = 0, .code = 1, .info = SPF_INFO(0xc00, 64) };
	defs[1] = (struct spf_ctr_def){ .type = 0, .code = 0x80, .info = SPF_INFO(0, 64) };
	defs[2] = (struct spf_ctr_def){ .type = 0, .code = 2, .info = SPF_INFO(0xc02, 64) };
	defs[3] = (struct spf_ctr_def){ .type = 2, .event_data = 0x1234567800000202ULL,
					.info = SPF_INFO(0xc03, width) };
	defs[4] = (struct spf_ctr_def){ .type = 1, .code = 0x3, .info = SPF_INFO(0xc04, width) };
	*mask = 0x1f;
}

/* ---- tests ---- */

/* The exact ITC writes of a header and a record: the format, pinned */
static void test_exact_writes(void)
{
	struct spf_ctr_def defs[2] = {
		{ .type = 0, .code = 1, .info = SPF_INFO(0xc00, 64) },
		{ .type = 2, .event_data = 0x100000202ULL, .info = SPF_INFO(0xc03, 40) },
	};
	static const struct { uint8_t w; uint32_t v; } want_hdr[] = {
		{ 32, 0x70657266 }, { 8, 1 }, { 32, 0x9 },
		{ 32, 0 }, { 32, 1 }, { 32, 0x3fc00 },
		{ 32, 2 }, { 32, 0x202 }, { 32, 1 }, { 32, 0x27c03 },
	};
	static const struct { uint8_t w; uint32_t v; } want_rec[] = {
		{ 8, 0 }, { 32, 0x1000 }, { 32, 0x89abcdf1 }, { 32, 0x1234 },
		{ 32, 0x00000005 }, { 16, 0x3 }, { 32, 7 },
	};
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_enc_state st = { 0 };
	struct spf_enc_cfg cfg;
	uint64_t vals[2] = { 0x300000005ULL, 7 };
	unsigned int n, i;

	CHECK(!spf_enc_cfg_init(&cfg, CHANNEL, SPF_COUNT_DELTA, 0x9, defs));
	n = spf_enc_header(&cfg, &st, w);
	CHECK(n == sizeof(want_hdr) / sizeof(want_hdr[0]));
	for (i = 0; i < n && i < sizeof(want_hdr) / sizeof(want_hdr[0]); i++)
		CHECK(w[i].channel == CHANNEL && w[i].width == want_hdr[i].w &&
		      w[i].value == want_hdr[i].v && !w[i].reserved);
	/* function entry: 0x1000 from 0x123489abcdf0, cycles 0x3_00000005, hpm 7 */
	n = spf_enc_record(&cfg, &st, w, SPF_REC_FUNC_ENTER, 0x1001, 0x123489abcdf0ULL, vals);
	CHECK(n == sizeof(want_rec) / sizeof(want_rec[0]));
	for (i = 0; i < n && i < sizeof(want_rec) / sizeof(want_rec[0]); i++)
		CHECK(w[i].width == want_rec[i].w && w[i].value == want_rec[i].v);
	/* the next: deltas */
	vals[0] += 10;
	vals[1] += 1;
	n = spf_enc_record(&cfg, &st, w, SPF_REC_MANUAL, 0x2000, 0, vals);
	CHECK(n == 4 && w[0].width == 8 && w[0].value == 2 && w[1].value == 0x2000 &&
	      w[2].value == 10 && w[3].value == 1);
	CHECK(spf_enc_cfg_init(&cfg, 32, SPF_COUNT_RAW, 0, NULL) == -1);
	CHECK(spf_enc_cfg_init(&cfg, 0, 3, 0, NULL) == -1);
}

/*
 * Random records through encoder, Nexus and decoder: every count type, with
 * @srcbits source bits, addresses of 32 or 64 bits, counters of @width.
 */
static void round_trip(enum spf_count count, unsigned int srcbits, bool addr64,
		       unsigned int width, uint64_t step_max)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	static uint64_t want_val[1000][5], want_addr[1000][2];
	static unsigned int want_type[1000];
	struct spf_ctr_def defs[5];
	struct spf_enc_state st = { 0 };
	struct spf_decode_result r;
	struct spf_enc_cfg cfg;
	uint64_t vals[5], wm[5];
	unsigned int i, j, n, nrec = 1000;
	struct sink k;
	uint32_t mask;

	make_defs(defs, &mask, width);
	CHECK(!spf_enc_cfg_init(&cfg, CHANNEL, count, mask, defs));
	for (j = 0; j < 5; j++) {
		wm[j] = spf_width_mask(defs[j].info);
		vals[j] = rnd64() & wm[j] & (SPF_VALUE_MASK >> 1);
	}
	sink_init(&k, srcbits);
	sink_sync(&k, 1 % (1u << srcbits));
	n = spf_enc_header(&cfg, &st, w);
	sink_writes(&k, 1 % (1u << srcbits), w, n);
	for (i = 0; i < nrec; i++) {
		unsigned int type = (unsigned int)random() % 4;
		uint64_t a = rnd64() & (addr64 ? ~0ULL : 0xffffffffULL);
		uint64_t a2 = rnd64() & (addr64 ? ~0ULL : 0xffffffffULL);

		if (addr64 && i % 3 == 0)
			a &= 0xfffffffe;	/* some fit in 32 bits */
		for (j = 0; j < 5; j++) {
			/* the raw format holds 48 bits; delta and XOR the change */
			vals[j] = (vals[j] + (rnd64() % (step_max + 1))) & wm[j];
			if (count == SPF_COUNT_RAW || (count == SPF_COUNT_XOR && wm[j] > SPF_VALUE_MASK))
				vals[j] &= SPF_VALUE_MASK;
			want_val[i][j] = vals[j];
		}
		want_type[i] = type;
		want_addr[i][0] = a & ~1ULL;
		want_addr[i][1] = a2 & ~1ULL;
		n = spf_enc_record(&cfg, &st, w, type, a, a2, vals);
		sink_writes(&k, 1 % (1u << srcbits), w, n);
	}
	r = decode(&k, false);
	CHECK(!r.nexus.invalid && !r.perf.errors && !r.perf.truncated && !got.errors);
	CHECK(got.nhdr == 1 && got.nrec == nrec && st.clipped == 0);
	CHECK(got.hdr[0].count == count && got.hdr[0].mask == mask && got.hdr[0].nctr == 5);
	for (j = 0; j < 5 && got.nhdr; j++) {
		CHECK(got.hdr[0].def[j].type == defs[j].type);
		CHECK(got.hdr[0].def[j].info == defs[j].info);
		CHECK(defs[j].type == 2 ? got.hdr[0].def[j].event_data == defs[j].event_data :
					  got.hdr[0].def[j].code == defs[j].code);
	}
	for (i = 0; i < nrec && i < got.nrec; i++) {
		const struct spf_record *g = &got.rec[i];
		bool ok = g->type == want_type[i] && g->addr[0] == want_addr[i][0] &&
			  g->nctr == 5 && g->ts_valid;

		if (want_type[i] <= SPF_REC_FUNC_EXIT)
			ok = ok && g->naddr == 2 && g->addr[1] == want_addr[i][1];
		else
			ok = ok && g->naddr == 1;
		for (j = 0; j < 5; j++)
			ok = ok && g->value[j] == want_val[i][j];
		if (!ok) {
			printf("#   count %s srcbits %u record %u differs\n", spf_count_name(count),
			       srcbits, i);
			test_ok = false;
			break;
		}
	}
	spf_nx_free(&k.nx);
}

static void test_raw_32(void)		{ round_trip(SPF_COUNT_RAW, 0, false, 40, 1ULL << 20); }
static void test_raw_64(void)		{ round_trip(SPF_COUNT_RAW, 1, true, 40, 1ULL << 40); }
static void test_delta_32(void)		{ round_trip(SPF_COUNT_DELTA, 0, false, 40, 1ULL << 20); }
static void test_delta_64(void)		{ round_trip(SPF_COUNT_DELTA, 2, true, 48, 1ULL << 40); }
static void test_xor_32(void)		{ round_trip(SPF_COUNT_XOR, 0, false, 40, 1ULL << 20); }
static void test_xor_64(void)		{ round_trip(SPF_COUNT_XOR, 1, true, 40, 1ULL << 40); }
/* Counters of 32 bits that wrap about every other record */
static void test_delta_wrap32(void)	{ round_trip(SPF_COUNT_DELTA, 0, true, 32, 3ULL << 31); }
static void test_xor_wrap32(void)	{ round_trip(SPF_COUNT_XOR, 0, true, 32, 3ULL << 31); }

/* 48-bit values, a 40-bit counter wrapping, values that do not fit */
static void test_48bit_and_wrap(void)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[2] = {
		{ .type = 0, .code = 1, .info = SPF_INFO(0xc00, 64) },
		{ .type = 2, .event_data = 0x202, .info = SPF_INFO(0xc03, 40) },
	};
	static const uint64_t seq[][2] = {
		{ 0xffffffffULL, (1ULL << 40) - 5 },		/* 32 bits; near the wrap */
		{ 0x100000000ULL, 3 },				/* 33 bits; wrapped once */
		{ 0xffffffffffffULL, 0xfffffffffULL },		/* 48 bits */
		{ 0xffffffffffffULL, 0 },			/* no change; wrapped */
		{ 0xffffffffffffULL, (1ULL << 40) - 1 },
	};
	unsigned int c, i, n, ns = sizeof(seq) / sizeof(seq[0]);

	for (c = 0; c < SPF_NR_COUNT_TYPES; c++) {
		struct spf_enc_state st = { 0 };
		struct spf_enc_cfg cfg;
		struct sink k;

		spf_enc_cfg_init(&cfg, CHANNEL, c, 0x9, defs);
		sink_init(&k, 0);
		sink_sync(&k, 0);
		n = spf_enc_header(&cfg, &st, w);
		sink_writes(&k, 0, w, n);
		for (i = 0; i < ns; i++) {
			n = spf_enc_record(&cfg, &st, w, SPF_REC_ISR, 0x400000, 0, seq[i]);
			sink_writes(&k, 0, w, n);
		}
		decode(&k, false);
		CHECK(got.nrec == ns && !got.errors && st.clipped == 0);
		for (i = 0; i < ns && i < got.nrec; i++) {
			CHECK(got.rec[i].value[0] == seq[i][0]);
			CHECK(got.rec[i].value[1] == seq[i][1]);
		}
		if (c == SPF_COUNT_DELTA && got.nrec > 1)
			CHECK(got.rec[1].encoded[1] == 8 && got.rec[1].encoded[0] == 1);
		spf_nx_free(&k.nx);
	}
	/* A value beyond 48 bits is clipped, and counted */
	{
		struct spf_enc_state st = { 0 };
		struct spf_enc_cfg cfg;
		uint64_t v[2] = { 1ULL << 50 | 7, 0 };

		spf_enc_cfg_init(&cfg, CHANNEL, SPF_COUNT_RAW, 0x9, defs);
		spf_enc_header(&cfg, &st, w);
		n = spf_enc_record(&cfg, &st, w, SPF_REC_MANUAL, 0x10, 0, v);
		CHECK(st.clipped == 1 && n == 4 && w[2].value == 7);
	}
}

/* A marker value as a counter, an address and mid-record */
static void test_marker_as_data(void)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[3] = {
		{ .type = 0, .code = 1, .info = SPF_INFO(0xc00, 64) },
		{ .type = 0, .code = 2, .info = SPF_INFO(0xc02, 64) },
		{ .type = 0, .code = 4, .info = SPF_INFO(0xc03, 64) },
	};
	uint64_t v[][3] = {
		{ SPF_MARKER, 1, 2 }, { SPF_MARKER + 1, SPF_MARKER, 3 }, { SPF_MARKER + 2, 4, SPF_MARKER },
	};
	struct spf_enc_state st = { 0 };
	struct spf_enc_cfg cfg;
	unsigned int i, n;
	struct sink k;

	spf_enc_cfg_init(&cfg, CHANNEL, SPF_COUNT_RAW, 0x7, defs);
	sink_init(&k, 0);
	sink_sync(&k, 0);
	n = spf_enc_header(&cfg, &st, w);
	sink_writes(&k, 0, w, n);
	for (i = 0; i < 3; i++) {
		n = spf_enc_record(&cfg, &st, w, i ? SPF_REC_FUNC_EXIT : SPF_REC_MANUAL,
				   i == 1 ? SPF_MARKER : 0x1000, SPF_MARKER, v[i]);
		sink_writes(&k, 0, w, n);
	}
	decode(&k, false);
	CHECK(got.nrec == 3 && !got.errors);
	for (i = 0; i < 3 && i < got.nrec; i++)
		CHECK(got.rec[i].value[0] == v[i][0] && got.rec[i].value[1] == v[i][1] &&
		      got.rec[i].value[2] == v[i][2]);
	CHECK(got.nrec > 1 && got.rec[1].addr[0] == SPF_MARKER && got.rec[1].addr[1] == SPF_MARKER);
	spf_nx_free(&k.nx);
}

/*
 * Two threads' streams one after the other (a libsifiveperf trace file):
 * the first cut short in its last record (its buffer filled), the second
 * with a header of its own; and garbage before the first header.
 */
static void test_streams_and_cuts(void)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[5];
	struct spf_enc_state a = { 0 }, b = { 0 };
	struct spf_decode_result r;
	struct spf_enc_cfg cfg;
	uint64_t va[5] = { 10, 20, 30, 40, 50 }, vb[5] = { 1, 2, 3, 4, 5 };
	unsigned int i, n, j;
	uint32_t mask;
	struct sink k;

	make_defs(defs, &mask, 40);
	spf_enc_cfg_init(&cfg, CHANNEL, SPF_COUNT_DELTA, mask, defs);
	sink_init(&k, 1);
	sink_sync(&k, 0);
	/* garbage on the channel, and another channel's traffic */
	spf_nx_dq(&k.nx, 0, CHANNEL, 32, 0xdeadbeef, k.now++);
	spf_nx_dq(&k.nx, 0, CHANNEL + 1, 8, 3, k.now++);
	n = spf_enc_header(&cfg, &a, w);
	sink_writes(&k, 0, w, n);
	for (i = 0; i < 10; i++) {
		for (j = 0; j < 5; j++)
			va[j] += i + j;
		n = spf_enc_record(&cfg, &a, w, SPF_REC_FUNC_ENTER, 0x1000 + i * 16, 0x2000, va);
		/* the last record of thread a is cut after its addresses */
		sink_writes(&k, i % 2, w, i == 9 ? 3 : n);
	}
	sink_sync(&k, 1);
	n = spf_enc_header(&cfg, &b, w);
	sink_writes(&k, 1, w, n);
	for (i = 0; i < 5; i++) {
		for (j = 0; j < 5; j++)
			vb[j] += 100;
		n = spf_enc_record(&cfg, &b, w, SPF_REC_FUNC_EXIT, 0x3000, 0x4000, vb);
		sink_writes(&k, 0, w, n);
	}
	/* a record whose stores were lost after its type: the next one decodes */
	n = spf_enc_record(&cfg, &b, w, SPF_REC_MANUAL, 0x5000, 0, vb);
	sink_writes(&k, 0, w, 1);
	for (j = 0; j < 5; j++)
		vb[j] += 1;
	n = spf_enc_record(&cfg, &b, w, SPF_REC_MANUAL, 0x5000, 0, vb);
	sink_writes(&k, 0, w, n);

	r = decode(&k, false);
	CHECK(got.nhdr == 2 && r.perf.skipped == 1 && r.other_dq == 1);
	CHECK(got.nrec == 9 + 5 + 1);
	CHECK(r.perf.truncated == 2);
	CHECK(got.nhdr == 2 && got.hdr[0].stream == 0 && got.hdr[1].stream == 1);
	for (i = 0; i < got.nrec && i < 15; i++) {
		const struct spf_record *g = &got.rec[i];

		if (i < 9)
			CHECK(g->stream == 0 && g->addr[0] == 0x1000 + i * 16 && g->src == i % 2);
		else
			CHECK(g->stream == 1);
	}
	/* values of stream 1 rebuilt from 0 at its header */
	CHECK(got.nrec == 15 && got.rec[13].value[0] == 501 && got.rec[14].value[4] == 506);
	CHECK(got.nrec == 15 && got.rec[14].type == SPF_REC_MANUAL);
	spf_nx_free(&k.nx);
}

/*
 * Two harts writing into one funnel sink at once, with SRC @src[0] and
 * @src[1] of @srcbits: split by SRC
 */
static void by_src_case(unsigned int srcbits, const unsigned int src[2])
{
	struct sifive_itc_write w[2][SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	unsigned int n[2], pos[2], i, s, done;
	struct spf_ctr_def defs[5];
	struct spf_enc_state st[2];
	struct spf_enc_cfg cfg;
	uint64_t v[2][5] = { { 0 } };
	unsigned int count[2] = { 0 };
	uint32_t mask;
	struct sink k;

	memset(st, 0, sizeof(st));
	make_defs(defs, &mask, 40);
	spf_enc_cfg_init(&cfg, CHANNEL, SPF_COUNT_XOR, mask, defs);
	sink_init(&k, srcbits);
	sink_sync(&k, src[0]);
	sink_sync(&k, src[1]);
	for (s = 0; s < 2; s++) {
		n[s] = spf_enc_header(&cfg, &st[s], w[s]);
		pos[s] = 0;
	}
	/* interleave message by message; 50 records each */
	for (done = 0; done < 2;) {
		done = 0;
		for (s = 0; s < 2; s++) {
			if (pos[s] == n[s]) {
				if (count[s] == 50) {
					done++;
					continue;
				}
				for (i = 0; i < 5; i++)
					v[s][i] += 1000 * (s + 1) + i;
				n[s] = spf_enc_record(&cfg, &st[s], w[s], SPF_REC_ISR,
						      0x10000 * (s + 1) + count[s] * 4, 0, v[s]);
				pos[s] = 0;
				count[s]++;
			}
			sink_writes(&k, src[s], &w[s][pos[s]++], 1);
		}
	}
	decode(&k, true);
	CHECK(got.nhdr == 2 && got.nrec == 100 && !got.errors);
	for (s = 0; s < 2; s++) {
		unsigned int seen = 0;

		for (i = 0; i < got.nrec && i < MAX_RECS; i++) {
			const struct spf_record *g = &got.rec[i];

			if (g->src != src[s])
				continue;
			CHECK(g->addr[0] == 0x10000 * (s + 1) + seen * 4);
			CHECK(g->value[4] == (seen + 1) * (1000 * (s + 1) + 4));
			seen++;
		}
		CHECK(seen == 50);
	}
	/* the same bytes as one sequence do not decode */
	decode(&k, false);
	CHECK(got.errors > 0);
	spf_nx_free(&k.nx);
}

/* SRC 0 and 1; and 1 and 17 of 5 bits, which used to share a state (SRC % 16) */
static void test_by_src(void)
{
	by_src_case(1, (const unsigned int[]){ 0, 1 });
	by_src_case(5, (const unsigned int[]){ 1, 17 });
}

/* The SRC width is found from the data */
static void test_guess_srcbits(void)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_ctr_def defs[5];
	unsigned int bits, i, n;
	uint64_t v[5] = { 0 };
	uint32_t mask;

	make_defs(defs, &mask, 40);
	for (bits = 0; bits <= 3; bits++) {
		struct spf_enc_state st = { 0 };
		struct spf_enc_cfg cfg;
		struct sink k;

		spf_enc_cfg_init(&cfg, CHANNEL, SPF_COUNT_DELTA, mask, defs);
		sink_init(&k, bits);
		sink_sync(&k, 0);
		n = spf_enc_header(&cfg, &st, w);
		sink_writes(&k, 0, w, n);
		for (i = 0; i < 20; i++) {
			v[0] += 1000;
			n = spf_enc_record(&cfg, &st, w, SPF_REC_MANUAL, 0x1000, 0, v);
			sink_writes(&k, 0, w, n);
		}
		CHECK(spf_guess_srcbits(k.nx.buf, k.nx.len, CHANNEL) == bits);
		spf_nx_free(&k.nx);
	}
}

/* Headers with no counters, and records without any */
static void test_no_counters(void)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	struct spf_enc_state st = { 0 };
	struct spf_enc_cfg cfg;
	unsigned int n, i;
	struct sink k;

	CHECK(!spf_enc_cfg_init(&cfg, 31, SPF_COUNT_XOR, 0, NULL));
	sink_init(&k, 0);
	sink_sync(&k, 0);
	n = spf_enc_header(&cfg, &st, w);
	CHECK(n == 3);
	sink_writes(&k, 0, w, n);
	for (i = 0; i < 4; i++) {
		n = spf_enc_record(&cfg, &st, w, i, 0x7ffff000 + i * 2, 0x1234567890ULL, NULL);
		sink_writes(&k, 0, w, n);
	}
	memset(&got, 0, sizeof(got));
	{
		struct spf_decode_result r;

		spf_decode_buffer(k.nx.buf, k.nx.len, 0, 31, false, &ops, &got, &r);
	}
	CHECK(got.nhdr == 1 && got.nrec == 4 && !got.errors);
	for (i = 0; i < 4 && i < got.nrec; i++) {
		CHECK(got.rec[i].type == i && got.rec[i].nctr == 0);
		CHECK(got.rec[i].addr[0] == 0x7ffff000 + i * 2);
		if (i < 2)
			CHECK(got.rec[i].addr[1] == 0x1234567890ULL);
	}
	spf_nx_free(&k.nx);
}

static void run(void (*fn)(void), const char *name)
{
	test_ok = true;
	fn();
	test_nr++;
	printf("%sok %u %s\n", test_ok ? "" : "not ", test_nr, name);
	if (test_ok)
		pass++;
	else
		fail++;
}

#define RUN(name) run(test_##name, #name)

int main(void)
{
	srandom(6);
	printf("TAP version 13\n1..15\n");
	RUN(exact_writes);
	RUN(raw_32);
	RUN(raw_64);
	RUN(delta_32);
	RUN(delta_64);
	RUN(xor_32);
	RUN(xor_64);
	RUN(delta_wrap32);
	RUN(xor_wrap32);
	RUN(48bit_and_wrap);
	RUN(marker_as_data);
	RUN(streams_and_cuts);
	RUN(by_src);
	RUN(guess_srcbits);
	RUN(no_counters);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
	return fail ? 1 : 0;
}
