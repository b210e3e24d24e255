// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * spf_decode - Nexus bytes to perf records; see spf_decode.h.
 */
#include <string.h>

#include <socpmu/sifive_trace_regs.h>

#include "spf_decode.h"

#define GUESS_BYTES	(256 * 1024)
#define GUESS_MAX_BITS	4

struct bridge {
	struct spf_decoder dec;
	struct spf_decode_result *res;
};

static int bridge_msg(const struct nexus_msg *m, void *priv)
{
	struct bridge *b = priv;
	struct spf_dq dq;
	int ret;

	if (m->tcode != NEXUS_TCODE_DATA_ACQUISITION || !m->valid || !m->dq.width) {
		b->res->other_msgs++;
		return 0;
	}
	if (m->dq.channel != b->dec.channel) {
		b->res->other_dq++;
		return 0;
	}
	dq.offset = m->offset;
	dq.src = m->src;
	dq.channel = m->dq.channel;
	dq.width = m->dq.width;
	dq.value = m->dq.data;
	dq.ts_valid = m->ts_valid;
	dq.ts = m->timestamp;
	ret = spf_dec_msg(&b->dec, &dq);
	if (ret)
		b->res->stopped = ret;
	return ret;
}

int spf_decode_buffer(const void *buf, size_t len, unsigned int srcbits, unsigned int channel,
		      bool by_src, const struct spf_dec_ops *ops, void *priv,
		      struct spf_decode_result *res)
{
	struct nexus_config cfg = { .srcbits = srcbits };
	struct nexus_decoder *nd;
	struct bridge b;
	int ret;

	memset(res, 0, sizeof(*res));
	if (spf_dec_init(&b.dec, channel, by_src, ops, priv))
		return -1;
	b.res = res;
	nd = nexus_decoder_new(&cfg, bridge_msg, &b);
	if (!nd)
		return -1;
	ret = nexus_decode(nd, buf, len);
	nexus_decode_end(nd);
	if (!ret)
		ret = spf_dec_end(&b.dec);
	if (ret)
		res->stopped = ret;
	res->nexus = *nexus_decoder_stats(nd);
	res->perf = b.dec.stats;
	nexus_decoder_free(nd);
	spf_dec_free(&b.dec);
	return 0;
}

unsigned int spf_guess_srcbits(const void *buf, size_t len, unsigned int channel)
{
	struct spf_decode_result r;
	long long score, best_score = 0;
	unsigned int bits, best = 0;

	if (len > GUESS_BYTES)
		len = GUESS_BYTES;
	for (bits = 0; bits <= GUESS_MAX_BITS; bits++) {
		if (spf_decode_buffer(buf, len, bits, channel, false, NULL, NULL, &r))
			continue;
		score = (long long)r.perf.headers * 1000 + (long long)r.perf.records -
			10 * (long long)(r.perf.errors + r.perf.truncated + r.nexus.invalid);
		if (bits == 0 || score > best_score) {
			best = bits;
			best_score = score;
		}
	}
	return best;
}
