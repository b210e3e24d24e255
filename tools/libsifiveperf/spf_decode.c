// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * spf_decode - Nexus bytes to perf records; see spf_decode.h.
 *
 * The Nexus decoder hands the Data Acquisition Messages over in batches
 * (nexus_decode_dq()), and the record decoder's state machine runs on
 * them inline (spf_dec_sm.h): no call, copy or struct nexus_msg per
 * message on the common path. (When a callback stops the decoding, the
 * Nexus stats also count the rest of that batch.)
 */
#include <string.h>

#include <socpmu/sifive_trace_regs.h>

#include "spf_dec_sm.h"
#include "spf_decode.h"

#define GUESS_BYTES	(256 * 1024)
#define GUESS_MAX_BITS	4
#define DQ_BATCH	512	/* a window of the Nexus decoder's fast path */

/* Everything but a valid Data Acquisition Message */
static int count_other_msg(const struct nexus_msg *m, void *priv)
{
	(void)m;
	(*(uint64_t *)priv)++;
	return 0;
}

/*
 * A batch of messages through the record decoder: the common ones (inside
 * a record, no marker held or seen) by step_fast() inline, the others by
 * spf_dec_msg().
 */
static inline __attribute__((always_inline)) int
spf_dec_batch_loop(struct spf_decoder *dec, const struct nexus_dq *b, size_t n,
		   struct spf_decode_result *res, const bool by_src)
{
	const unsigned int channel = dec->channel;
	struct spf_key_state *k = dec->keys[0];
	bool fast = k && !k->held;	/* one stream: its state takes step_fast() */
	uint64_t msgs = 0;
	struct spf_dq dq;
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (!b[i].width) {
			res->other_msgs++;
			continue;
		}
		if (b[i].tag / 4 != channel) {
			res->other_dq++;
			continue;
		}
		if (by_src) {
			k = dec->keys[b[i].src % SPF_DEC_MAX_KEYS];
			fast = k && !k->held;
		}
		if (fast && (b[i].data != SPF_MARKER || b[i].width != SPF_W32)) {
			if (step_fast(dec, k, b[i].width, b[i].data, b[i].timestamp, b[i].offset,
				      b[i].src, b[i].ts_valid, &ret)) {
				msgs++;
				if (ret)
					break;
				continue;
			}
			if (k->state == S_SYNC) {
				/* what step_slow() does while looking for a header */
				dec->stats.skipped++;
				msgs++;
				continue;
			}
		}
		dq.offset = b[i].offset;
		dq.src = b[i].src;
		dq.channel = channel;
		dq.width = b[i].width;
		dq.value = b[i].data;
		dq.ts_valid = b[i].ts_valid;
		dq.ts = b[i].timestamp;
		dec->stats.messages += msgs;	/* as if counted one by one */
		msgs = 0;
		ret = spf_dec_msg(dec, &dq);
		if (ret)
			break;
		k = dec->keys[0];
		fast = k && !k->held;
	}
	dec->stats.messages += msgs;
	return ret;
}

/* The same loop for one stream or a state per SRC */
static int spf_dec_batch(struct spf_decoder *dec, const struct nexus_dq *b, size_t n,
			 struct spf_decode_result *res)
{
	if (dec->by_src)
		return spf_dec_batch_loop(dec, b, n, res, true);
	return spf_dec_batch_loop(dec, b, n, res, false);
}

int spf_decode_buffer(const void *buf, size_t len, unsigned int srcbits, unsigned int channel,
		      bool by_src, const struct spf_dec_ops *ops, void *priv,
		      struct spf_decode_result *res)
{
	struct nexus_config cfg = { .srcbits = srcbits };
	struct nexus_dq batch[DQ_BATCH];
	const uint8_t *p = buf;
	struct nexus_decoder *nd;
	struct spf_decoder dec;
	size_t used, n;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (spf_dec_init(&dec, channel, by_src, ops, priv))
		return -1;
	nd = nexus_decoder_new(&cfg, count_other_msg, &res->other_msgs);
	if (!nd)
		return -1;
	while (len && !ret) {
		used = nexus_decode_dq(nd, p, len, batch, DQ_BATCH, &n, &ret);
		p += used;
		len -= used;
		if (n) {
			int r = spf_dec_batch(&dec, batch, n, res);

			if (r)
				ret = r;
		}
	}
	nexus_decode_end(nd);
	if (!ret)
		ret = spf_dec_end(&dec);
	if (ret)
		res->stopped = ret;
	res->nexus = *nexus_decoder_stats(nd);
	res->perf = dec.stats;
	nexus_decoder_free(nd);
	spf_dec_free(&dec);
	return 0;
}

/*
 * spf_guess_srcbits() in one pass: every message of the start of the
 * buffer, parsed under each SRC width, through one record decoder per
 * width (what spf_decode_buffer() would do under that width: the framing
 * of the messages does not depend on it).
 */
struct guess {
	struct spf_decoder dec[GUESS_MAX_BITS + 1];
	uint64_t invalid[GUESS_MAX_BITS + 1];
	int err;
};

static int guess_msg(const struct nexus_msg *m, void *priv)
{
	struct nexus_dq dq[GUESS_MAX_BITS + 1];
	struct guess *g = priv;
	struct nexus_msg mb;
	unsigned int bits, valid = 0;
	struct spf_dq sdq;

	if (m->tcode == NEXUS_TCODE_DATA_ACQUISITION) {
		/* TCODE comes before SRC: the same under every width */
		valid = nexus_parse_dq_widths(m, GUESS_MAX_BITS, dq);
	} else {
		for (bits = 0; bits <= GUESS_MAX_BITS; bits++) {
			if (bits)
				nexus_parse_as(m, bits, &mb);
			/* the decoder's own width is 0 */
			valid |= (bits ? mb.valid : m->valid) << bits;
			dq[bits].width = 0;
		}
	}
	for (bits = 0; bits <= GUESS_MAX_BITS; bits++) {
		if (!(valid & 1u << bits)) {
			g->invalid[bits]++;
			continue;
		}
		if (!dq[bits].width || dq[bits].tag / 4 != g->dec[bits].channel)
			continue;
		sdq.offset = dq[bits].offset;
		sdq.src = dq[bits].src;
		sdq.channel = g->dec[bits].channel;
		sdq.width = dq[bits].width;
		sdq.value = dq[bits].data;
		sdq.ts_valid = false;	/* timestamps do not matter here */
		sdq.ts = 0;
		if (spf_dec_msg_inline(&g->dec[bits], &sdq))
			g->err = -1;	/* out of memory */
	}
	return 0;
}

unsigned int spf_guess_srcbits(const void *buf, size_t len, unsigned int channel)
{
	struct nexus_config cfg = { .srcbits = 0 };
	long long score, best_score = 0;
	unsigned int bits, best = 0;
	struct nexus_decoder *nd;
	struct guess *g;
	uint64_t overlong;

	if (len > GUESS_BYTES)
		len = GUESS_BYTES;
	g = calloc(1, sizeof(*g));
	if (!g)
		return 0;
	for (bits = 0; bits <= GUESS_MAX_BITS; bits++)
		spf_dec_init(&g->dec[bits], channel, false, NULL, NULL);
	nd = nexus_decoder_new(&cfg, guess_msg, g);
	if (nd) {
		nexus_decode(nd, buf, len);
		nexus_decode_end(nd);
		/* the messages too long to parse are invalid under any width */
		overlong = nexus_decoder_stats(nd)->invalid - g->invalid[0];
		for (bits = 0; bits <= GUESS_MAX_BITS && !g->err; bits++) {
			const struct spf_dec_stats *r = &g->dec[bits].stats;

			if (spf_dec_end(&g->dec[bits]))
				continue;
			score = (long long)r->headers * 1000 + (long long)r->records -
				10 * (long long)(r->errors + r->truncated + overlong +
						 g->invalid[bits]);
			if (bits == 0 || score > best_score) {
				best = bits;
				best_score = score;
			}
		}
		nexus_decoder_free(nd);
	}
	for (bits = 0; bits <= GUESS_MAX_BITS; bits++)
		spf_dec_free(&g->dec[bits]);
	free(g);
	return best;
}
