// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of nexus_decode (run by `make check` in tools/sifive-trace):
 * hand-made byte vectors in the SiFive trace encoders' format, stream
 * handling (padding, resynchronisation, split input, unfinished messages),
 * timestamps per source, and random round trips through an encoder written
 * from the format rules. Output is kselftest TAP.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nexus_decode.h"

static unsigned int test_nr, pass, fail;
static bool test_ok;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			test_ok = false;				\
		}							\
	} while (0)

/* Messages collected by the callback */
#define MAX_MSGS 4096
static struct nexus_msg msgs[MAX_MSGS];
static unsigned int nmsgs;

static int collect(const struct nexus_msg *m, void *priv)
{
	(void)priv;
	if (nmsgs < MAX_MSGS) {
		msgs[nmsgs] = *m;
		msgs[nmsgs].raw = NULL;
		nmsgs++;
	}
	return 0;
}

static struct nexus_decoder *decode_all(unsigned int srcbits, bool resync,
					const unsigned char *b, size_t n)
{
	struct nexus_config cfg = { .srcbits = srcbits, .resync = resync };
	struct nexus_decoder *d = nexus_decoder_new(&cfg, collect, NULL);

	nmsgs = 0;
	nexus_decode(d, b, n);
	nexus_decode_end(d);
	return d;
}

/* Vectors, packed by hand from the format rules */
static const unsigned char dq32[] = {	/* ch 6, 32 bits, 0x70657266, no SRC, no ts */
	0x1c, 0x61, 0x98, 0x24, 0x5c, 0x64, 0xc0, 0x07 };
static const unsigned char dq8_src1[] = {	/* 1 SRC bit = 1, ch 6, 8 bits, 0xab, ts ^ 5 */
	0x1c, 0xdd, 0xac, 0x09, 0x17 };
static const unsigned char sync_src0[] = {	/* ICT_WS, SRC 0, control 2, full ts 1000000 */
	0x8c, 0x00, 0x11, 0x00, 0x24, 0xd0, 0x0f };
static const unsigned char dq_zero[] = {	/* ch 0, 32 bits, value 0 */
	0x1c, 0x01, 0x03 };

static void test_dq32(void)
{
	struct nexus_decoder *d = decode_all(0, false, dq32, sizeof(dq32));

	CHECK(nmsgs == 1);
	CHECK(msgs[0].tcode == 7 && msgs[0].known && msgs[0].valid);
	CHECK(msgs[0].dq.tag == 0x18 && msgs[0].dq.channel == 6 && msgs[0].dq.width == 32);
	CHECK(msgs[0].dq.data == 0x70657266);
	CHECK(!msgs[0].has_ts && msgs[0].offset == 0 && msgs[0].len == sizeof(dq32));
	CHECK(nexus_decoder_stats(d)->messages == 1 && !nexus_decoder_stats(d)->invalid);
	nexus_decoder_free(d);
}

static void test_src_field(void)
{
	struct nexus_decoder *d = decode_all(1, false, dq8_src1, sizeof(dq8_src1));

	CHECK(nmsgs == 1 && msgs[0].valid);
	CHECK(msgs[0].src == 1 && msgs[0].dq.tag == 0x1b && msgs[0].dq.width == 8);
	CHECK(msgs[0].dq.channel == 6 && msgs[0].dq.data == 0xab);
	CHECK(msgs[0].has_ts && msgs[0].ts_field == 5 && !msgs[0].full_ts);
	CHECK(!msgs[0].ts_valid);	/* no full timestamp seen yet */
	nexus_decoder_free(d);
}

static void test_sync_then_dq(void)
{
	unsigned char b[32];
	struct nexus_decoder *d;

	memcpy(b, sync_src0, sizeof(sync_src0));
	memcpy(b + sizeof(sync_src0), dq8_src1, sizeof(dq8_src1));
	b[sizeof(sync_src0) + 1] &= ~0x04;	/* the DQ's SRC bit: 0 */
	d = decode_all(1, false, b, sizeof(sync_src0) + sizeof(dq8_src1));
	CHECK(nmsgs == 2);
	CHECK(msgs[0].tcode == 35 && msgs[0].valid && msgs[0].ict.cksrc == 0);
	CHECK(msgs[0].ict.ckdf == 0 && msgs[0].ict.ckdata[0] == 2);
	CHECK(msgs[0].full_ts && msgs[0].ts_valid && msgs[0].timestamp == 1000000);
	CHECK(msgs[1].src == 0 && msgs[1].ts_valid && msgs[1].timestamp == (1000000 ^ 5));
	CHECK(msgs[1].offset == sizeof(sync_src0));
	nexus_decoder_free(d);
}

static void test_zero_value(void)
{
	struct nexus_decoder *d = decode_all(0, false, dq_zero, sizeof(dq_zero));

	CHECK(nmsgs == 1 && msgs[0].valid && msgs[0].dq.tag == 0 && msgs[0].dq.data == 0);
	nexus_decoder_free(d);
}

static void test_padding(void)
{
	unsigned char b[64] = { 0 };
	struct nexus_decoder *d;

	memcpy(b + 3, dq32, sizeof(dq32));
	memcpy(b + 3 + sizeof(dq32) + 5, dq_zero, sizeof(dq_zero));
	d = decode_all(0, false, b, 3 + sizeof(dq32) + 5 + sizeof(dq_zero) + 2);
	CHECK(nmsgs == 2 && msgs[0].offset == 3 && msgs[1].offset == 3 + sizeof(dq32) + 5);
	CHECK(nexus_decoder_stats(d)->padding == 10 && !nexus_decoder_stats(d)->skipped);
	nexus_decoder_free(d);
}

static void test_split_input(void)
{
	struct nexus_config cfg = { .srcbits = 1 };
	unsigned char b[64];
	struct nexus_decoder *d = nexus_decoder_new(&cfg, collect, NULL);
	size_t n = 0, i;

	memcpy(b + n, sync_src0, sizeof(sync_src0));
	n += sizeof(sync_src0);
	memcpy(b + n, dq8_src1, sizeof(dq8_src1));
	n += sizeof(dq8_src1);
	nmsgs = 0;
	for (i = 0; i < n; i++)
		nexus_decode(d, b + i, 1);
	nexus_decode_end(d);
	CHECK(nmsgs == 2 && msgs[1].src == 1 && msgs[1].dq.data == 0xab);
	CHECK(msgs[1].offset == sizeof(sync_src0));
	nexus_decoder_free(d);
}

static void test_resync(void)
{
	unsigned char b[64];
	struct nexus_decoder *d;
	size_t n = 0;

	/* A wrapped buffer: the tail of a message, then whole ones */
	memcpy(b, dq32 + 3, sizeof(dq32) - 3);
	n = sizeof(dq32) - 3;
	memcpy(b + n, dq32, sizeof(dq32));
	n += sizeof(dq32);
	d = decode_all(0, true, b, n);
	CHECK(nmsgs == 1 && msgs[0].dq.data == 0x70657266 && msgs[0].offset == sizeof(dq32) - 3);
	CHECK(nexus_decoder_stats(d)->skipped == sizeof(dq32) - 3);
	nexus_decoder_free(d);

	/*
	 * Without resync, a byte that ends a field cannot start a message: the
	 * decoder skips to the end of that message too.
	 */
	memcpy(b, dq32 + 1, sizeof(dq32) - 1);
	n = sizeof(dq32) - 1;
	memcpy(b + n, dq32, sizeof(dq32));
	n += sizeof(dq32);
	d = decode_all(0, false, b, n);
	CHECK(nmsgs == 1 && msgs[0].valid && msgs[0].offset == sizeof(dq32) - 1);
	nexus_decoder_free(d);
}

static void test_unfinished(void)
{
	struct nexus_decoder *d = decode_all(0, false, dq32, sizeof(dq32) - 2);

	CHECK(nmsgs == 0 && nexus_decoder_stats(d)->truncated == sizeof(dq32) - 2);
	nexus_decoder_free(d);
}

static void test_invalid(void)
{
	/* A data acquisition message that ends after DQTAG */
	static const unsigned char b[] = { 0x1c, 0x63 };
	struct nexus_decoder *d = decode_all(0, false, b, sizeof(b));

	CHECK(nmsgs == 1 && msgs[0].known && !msgs[0].valid);
	CHECK(nexus_decoder_stats(d)->invalid == 1);
	nexus_decoder_free(d);
}

static void test_unknown_tcode(void)
{
	/* TCODE 3 (direct branch), one variable field I-CNT = 5 */
	static const unsigned char b[] = { 0x0c, 0x17 };
	struct nexus_decoder *d = decode_all(0, false, b, sizeof(b));

	CHECK(nmsgs == 1 && msgs[0].tcode == 3 && !msgs[0].known && msgs[0].valid);
	CHECK(msgs[0].nfields == 1 && msgs[0].field[0] == 5 && !msgs[0].has_ts);
	nexus_decoder_free(d);
}

static void test_overlong(void)
{
	unsigned char b[NEXUS_MAX_MSG_BYTES + 20];
	struct nexus_decoder *d;

	memset(b, 0x04, sizeof(b));	/* MSEO 00 forever */
	b[0] = 0x1c;
	b[NEXUS_MAX_MSG_BYTES + 10] = 0x07;
	memcpy(b + NEXUS_MAX_MSG_BYTES + 11, dq_zero, sizeof(dq_zero));
	d = decode_all(0, false, b, NEXUS_MAX_MSG_BYTES + 11 + sizeof(dq_zero));
	CHECK(nmsgs == 1 && msgs[0].valid && msgs[0].offset == NEXUS_MAX_MSG_BYTES + 11);
	CHECK(nexus_decoder_stats(d)->invalid == 1);
	nexus_decoder_free(d);
}

static int stop_after_one(const struct nexus_msg *m, void *priv)
{
	(void)m;
	(*(int *)priv)++;
	return 42;
}

static void test_callback_stop(void)
{
	struct nexus_config cfg = { 0 };
	unsigned char b[16];
	int calls = 0, ret;
	struct nexus_decoder *d = nexus_decoder_new(&cfg, stop_after_one, &calls);

	memcpy(b, dq32, sizeof(dq32));
	memcpy(b + sizeof(dq32), dq_zero, sizeof(dq_zero));
	ret = nexus_decode(d, b, sizeof(dq32) + sizeof(dq_zero));
	CHECK(ret == 42 && calls == 1);
	nexus_decoder_free(d);
}

static void test_format(void)
{
	struct nexus_decoder *d = decode_all(0, false, dq32, sizeof(dq32));
	char line[256];

	nexus_format_msg(&msgs[0], line, sizeof(line));
	CHECK(!strcmp(line, "       0 DATA_ACQ src=0 ch=6 w=32 tag=0x18 data=0x70657266"));
	nexus_decoder_free(d);
}

/* An encoder written from the format rules, for round trips */
struct enc {
	unsigned char b[4096];
	size_t n;
	unsigned int bits;
	unsigned char cur;
};

static void enc_byte(struct enc *e, unsigned int mseo)
{
	e->b[e->n++] = e->cur << 2 | mseo;
	e->cur = 0;
	e->bits = 0;
}

static void enc_fixed(struct enc *e, unsigned long long v, unsigned int w)
{
	for (; w; w--, v >>= 1) {
		e->cur |= (v & 1) << e->bits;
		if (++e->bits == 6)
			enc_byte(e, 0);
	}
}

static void enc_var(struct enc *e, unsigned long long v, bool last)
{
	do {
		unsigned int take = 6 - e->bits;

		e->cur |= (v & ((1u << take) - 1)) << e->bits;
		v >>= take;
		enc_byte(e, v ? 0 : last ? 3 : 1);
	} while (v);
}

static unsigned long long rnd(void)
{
	return (unsigned long long)random() << 31 ^ random();
}

static void test_round_trip(void)
{
	static const unsigned int widths[] = { 8, 16, 32 };
	unsigned int srcbits, i, src, ch, w, nsrc;
	unsigned long long now[16], val[MAX_MSGS];
	unsigned int want_src[MAX_MSGS], want_tag[MAX_MSGS];
	static unsigned char buf[65536];
	unsigned long long last[16];
	size_t cap = sizeof(buf);
	struct nexus_decoder *d;

	srandom(1);
	for (srcbits = 0; srcbits <= 4; srcbits++) {
		struct enc *m = calloc(1, sizeof(*m));
		size_t len = 0;

		nsrc = 1u << srcbits;
		for (src = 0; src < nsrc; src++) {
			now[src] = rnd() & ((1ULL << 48) - 1);
			last[src] = now[src];
			/* a sync message with the full timestamp first */
			memset(m, 0, sizeof(*m));
			enc_fixed(m, 35, 6);
			enc_fixed(m, src, srcbits);
			enc_fixed(m, 0, 4);
			enc_fixed(m, 0, 2);
			enc_var(m, 2, false);
			enc_var(m, now[src], true);
			memcpy(buf + len, m->b, m->n);
			len += m->n;
		}
		for (i = 0; i < 500; i++) {
			src = random() % nsrc;
			ch = random() % 32;
			w = widths[random() % 3];
			val[i] = rnd() & (w == 32 ? 0xffffffffULL : (1ULL << w) - 1);
			now[src] += random() % 100000;
			want_src[i] = src;
			want_tag[i] = 4 * ch + (w == 32 ? 0 : w == 16 ? 2 : 3);
			memset(m, 0, sizeof(*m));
			enc_fixed(m, 7, 6);
			enc_fixed(m, src, srcbits);
			enc_var(m, want_tag[i], false);
			enc_var(m, val[i], false);
			enc_var(m, now[src] ^ last[src], true);
			last[src] = now[src];
			if (len + m->n + 3 > cap)
				break;
			memcpy(buf + len, m->b, m->n);
			len += m->n;
			if (random() % 4 == 0) {	/* flush padding */
				memset(buf + len, 0, 3);
				len += 3;
			}
		}
		d = decode_all(srcbits, false, buf, len);
		CHECK(nmsgs == nsrc + 500);
		CHECK(!nexus_decoder_stats(d)->invalid && !nexus_decoder_stats(d)->truncated);
		for (i = 0; i < 500 && nsrc + i < nmsgs; i++) {
			const struct nexus_msg *g = &msgs[nsrc + i];

			if (!g->valid || g->src != want_src[i] || g->dq.tag != want_tag[i] ||
			    g->dq.data != val[i] || !g->ts_valid) {
				printf("#   srcbits %u message %u differs\n", srcbits, i);
				test_ok = false;
				break;
			}
		}
		/* timestamps per source never go back */
		for (src = 0; src < nsrc; src++) {
			unsigned long long prev = 0;

			for (i = 0; i < nmsgs; i++) {
				if (msgs[i].src != src)
					continue;
				CHECK(msgs[i].timestamp >= prev);
				prev = msgs[i].timestamp;
			}
		}
		nexus_decoder_free(d);
		free(m);
	}
}

/*
 * Batch mode (nexus_decode_dq()) against the callback: the same messages
 * in the same order, the same stats, for random streams of Data
 * Acquisition Messages (with and without timestamps, some too long for
 * the fast path), other messages, padding and junk, under every SRC width,
 * fed in random pieces with random batch sizes.
 */
struct seen {
	bool dq;
	unsigned long long offset, timestamp;
	unsigned int tag, data, src, width;
	bool ts_valid;
};

static struct seen *seen;
static size_t nseen;

static void see_msg(const struct nexus_msg *m)
{
	struct seen *s = &seen[nseen++];

	memset(s, 0, sizeof(*s));
	s->offset = m->offset;
	if (m->valid && m->tcode == 7) {
		s->dq = true;
		s->timestamp = m->timestamp;
		s->tag = m->dq.tag;
		s->data = m->dq.data;
		s->src = m->src;
		s->width = m->dq.width;
		s->ts_valid = m->ts_valid;
	}
}

static int see_cb(const struct nexus_msg *m, void *priv)
{
	(void)priv;
	see_msg(m);
	return 0;
}

static int see_other_cb(const struct nexus_msg *m, void *priv)
{
	(void)priv;
	CHECK(!(m->valid && m->tcode == 7));	/* those come in the batch */
	see_msg(m);
	return 0;
}

static void test_dq_batch(void)
{
	static const unsigned int widths[] = { 8, 16, 32 };
	static unsigned char buf[1 << 18];
	static struct nexus_dq out[700];
	struct seen *want;
	size_t nwant, len, pos, used, n, i, max;
	struct nexus_stats st1, st2;
	unsigned int srcbits, src, k, round;
	unsigned long long now[256] = { 0 };
	struct nexus_decoder *d;
	struct enc *m = calloc(1, sizeof(*m));
	int ret;

	seen = calloc(sizeof(buf), sizeof(*seen));
	want = calloc(sizeof(buf), sizeof(*want));
	srandom(7);
	for (round = 0; round < 18; round++) {
		struct nexus_config cfg = { .srcbits = round % 9, .resync = round % 5 == 4 };

		srcbits = cfg.srcbits;
		for (len = 0; len + 64 < sizeof(buf);) {
			unsigned int what = random() % 100;

			memset(m, 0, sizeof(*m));
			src = random() & ((1u << srcbits) - 1);
			if (what < 80) {
				unsigned int w = widths[random() % 3];

				enc_fixed(m, 7, 6);
				enc_fixed(m, src, srcbits);
				enc_var(m, 4 * (random() % (what < 5 ? 64 : 32)) + (w == 32 ? 0 : w == 16 ? 2 : 3),
					false);
				enc_var(m, rnd() & (w == 32 ? 0xffffffffULL : (1ULL << w) - 1),
					what == 7);
				if (what != 7) {
					now[src] += what == 8 ? rnd() : (unsigned long long)random() % 3000;
					enc_var(m, what == 9 ? rnd() : now[src], true);
				}
			} else if (what < 85) {
				enc_fixed(m, 35, 6);	/* ICT with sync: a full timestamp */
				enc_fixed(m, src, srcbits);
				enc_fixed(m, 0, 4);
				enc_fixed(m, 0, 2);
				enc_var(m, 2, false);
				enc_var(m, now[src] = rnd() & 0xffffffffffULL, true);
			} else if (what < 90) {
				k = 1 + random() % 4;	/* padding */
				memset(m->b, 0, k);
				m->n = k;
			} else if (what < 93) {
				k = 1 + random() % 80;	/* junk, also overlong messages */
				while (k--)
					m->b[m->n++] = (unsigned char)(random() % 3 ? 0x1c : random());
			} else {
				enc_fixed(m, 7, 6);	/* a DQ message that does not fit its layout */
				enc_fixed(m, src, srcbits);
				for (k = random() % 5; k; k--)
					enc_var(m, rnd() & 0xfff, false);
				enc_var(m, 5, true);
			}
			memcpy(buf + len, m->b, m->n);
			len += m->n;
		}

		/* the callback */
		nseen = 0;
		d = nexus_decoder_new(&cfg, see_cb, NULL);
		nexus_decode(d, buf, len);
		nexus_decode_end(d);
		st1 = *nexus_decoder_stats(d);
		nexus_decoder_free(d);
		memcpy(want, seen, nseen * sizeof(*seen));
		nwant = nseen;

		/* batches, in pieces */
		nseen = 0;
		d = nexus_decoder_new(&cfg, see_other_cb, NULL);
		for (pos = 0; pos < len;) {
			size_t piece = random() % 4 ? 1 + random() % 5000 : 1 + random() % 9;
			const unsigned char *p = buf + pos;

			if (piece > len - pos)
				piece = len - pos;
			pos += piece;
			while (piece) {
				max = random() % 3 ? sizeof(out) / sizeof(out[0]) : 1 + (size_t)random() % 20;
				used = nexus_decode_dq(d, p, piece, out, max, &n, &ret);
				CHECK(!ret && n <= max && (used || n));
				for (i = 0; i < n; i++) {
					struct seen *s = &seen[nseen++];

					memset(s, 0, sizeof(*s));
					s->dq = true;
					s->offset = out[i].offset;
					s->timestamp = out[i].timestamp;
					s->tag = out[i].tag;
					s->data = out[i].data;
					s->src = out[i].src;
					s->width = out[i].width;
					s->ts_valid = out[i].ts_valid;
				}
				p += used;
				piece -= used;
			}
		}
		nexus_decode_end(d);
		st2 = *nexus_decoder_stats(d);
		nexus_decoder_free(d);

		CHECK(nseen == nwant);
		for (i = 0; i < nseen && i < nwant; i++) {
			if (memcmp(&seen[i], &want[i], sizeof(*seen))) {
				printf("#   srcbits %u: message %zu at %llu differs\n", srcbits, i,
				       want[i].offset);
				test_ok = false;
				break;
			}
		}
		CHECK(!memcmp(&st1, &st2, sizeof(st1)));
		CHECK(st1.messages > 10000);
	}
	free(seen);
	free(want);
	free(m);
}

static void test_reset(void)
{
	struct nexus_config cfg = { .srcbits = 1 };
	struct nexus_decoder *d = nexus_decoder_new(&cfg, collect, NULL);
	unsigned char b[16];

	memcpy(b, dq8_src1, sizeof(dq8_src1));
	b[1] &= ~0x04;
	nmsgs = 0;
	nexus_decode(d, sync_src0, sizeof(sync_src0));
	nexus_decoder_reset(d, false);
	nexus_decode(d, b, sizeof(dq8_src1));
	CHECK(nmsgs == 2 && msgs[0].ts_valid && !msgs[1].ts_valid);
	nexus_decoder_free(d);
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
	printf("TAP version 13\n1..16\n");
	RUN(dq32);
	RUN(src_field);
	RUN(sync_then_dq);
	RUN(zero_value);
	RUN(padding);
	RUN(split_input);
	RUN(resync);
	RUN(unfinished);
	RUN(invalid);
	RUN(unknown_tcode);
	RUN(overlong);
	RUN(callback_stop);
	RUN(format);
	RUN(round_trip);
	RUN(dq_batch);
	RUN(reset);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
	return fail ? 1 : 0;
}
