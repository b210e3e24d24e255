// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sifive_perf_format - encoder and decoder of the SiFive perf library's
 * trace records; see sifive_perf_format.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sifive_perf_format.h"
#include "spf_dec_sm.h"

#define W32	32
#define W16	16
#define W8	8

uint64_t spf_width_mask(uint32_t info)
{
	unsigned int w = SPF_INFO_WIDTH(info);

	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

const char *spf_rec_name(unsigned int type)
{
	static const char *const names[SPF_NR_REC_TYPES] = {
		"enter", "exit", "manual", "isr",
	};

	return type < SPF_NR_REC_TYPES ? names[type] : "?";
}

const char *spf_count_name(unsigned int count)
{
	static const char *const names[SPF_NR_COUNT_TYPES] = { "raw", "delta", "xor" };

	return count < SPF_NR_COUNT_TYPES ? names[count] : "?";
}

/* ---- encoder ---- */

int spf_enc_cfg_init(struct spf_enc_cfg *cfg, unsigned int channel, enum spf_count count,
		     uint32_t mask, const struct spf_ctr_def *defs)
{
	unsigned int i, n = 0;

	if (channel >= SPF_NR_CHANNELS || (unsigned int)count >= SPF_NR_COUNT_TYPES)
		return -1;
	memset(cfg, 0, sizeof(*cfg));
	cfg->channel = channel;
	cfg->count = count;
	cfg->mask = mask;
	for (i = 0; i < SPF_MAX_CNTRS; i++) {
		if (!(mask & (1u << i)))
			continue;
		cfg->idx[n] = i;
		cfg->def[n] = defs[n];
		cfg->width_mask[n] = spf_width_mask(defs[n].info);
		n++;
	}
	cfg->nctr = n;
	return 0;
}

static inline void put(struct sifive_itc_write *w, unsigned int *n, unsigned int channel,
		       unsigned int width, uint32_t value)
{
	w[*n].channel = channel;
	w[*n].width = width;
	w[*n].reserved = 0;
	w[*n].value = value;
	(*n)++;
}

unsigned int spf_enc_header(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			    struct sifive_itc_write *w)
{
	unsigned int i, n = 0, ch = cfg->channel;

	put(w, &n, ch, W32, SPF_MARKER);
	put(w, &n, ch, W8, cfg->count);
	put(w, &n, ch, W32, cfg->mask);
	for (i = 0; i < cfg->nctr; i++) {
		const struct spf_ctr_def *d = &cfg->def[i];

		put(w, &n, ch, W32, d->type);
		if (d->type == 2) {
			put(w, &n, ch, W32, (uint32_t)d->event_data);
			put(w, &n, ch, W32, (uint32_t)(d->event_data >> 32));
		} else {
			put(w, &n, ch, W32, d->code);
		}
		put(w, &n, ch, W32, d->info);
	}
	memset(st->prev, 0, sizeof(st->prev));
	st->last_addr = 0;
	return n;
}

static inline void put_addr(struct sifive_itc_write *w, unsigned int *n, unsigned int ch,
			    uint64_t a)
{
	if (a >> 32) {
		put(w, n, ch, W32, (uint32_t)a | 1);
		put(w, n, ch, W32, (uint32_t)(a >> 32));
	} else {
		put(w, n, ch, W32, (uint32_t)a);
	}
}

unsigned int spf_enc_record_head(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
				 struct sifive_itc_write *w, unsigned int type, uint64_t addr,
				 uint64_t addr2)
{
	unsigned int n = 0, ch = cfg->channel;
	bool two = type == SPF_REC_FUNC_ENTER || type == SPF_REC_FUNC_EXIT;

	put(w, &n, ch, W8, type);
	addr &= ~1ULL;
	addr2 &= ~1ULL;
	if (cfg->count == SPF_COUNT_XOR) {
		put_addr(w, &n, ch, addr ^ st->last_addr);
		st->last_addr = addr;
		if (two) {
			put_addr(w, &n, ch, addr2 ^ st->last_addr);
			st->last_addr = addr2;
		}
	} else {
		put_addr(w, &n, ch, addr);
		if (two)
			put_addr(w, &n, ch, addr2);
	}
	return n;
}

unsigned int spf_enc_counters(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			      struct sifive_itc_write *w, const uint64_t *vals)
{
	unsigned int i, n = 0, ch = cfg->channel;

	for (i = 0; i < cfg->nctr; i++) {
		uint64_t wm = cfg->width_mask[i], v = vals[i] & wm, e;

		switch (cfg->count) {
		case SPF_COUNT_DELTA:
			e = (v - st->prev[i]) & wm;
			break;
		case SPF_COUNT_XOR:
			e = v ^ st->prev[i];
			break;
		default:
			e = v;
			break;
		}
		st->prev[i] = v;
		if (e > SPF_VALUE_MASK) {
			st->clipped++;
			e &= SPF_VALUE_MASK;
		}
		put(w, &n, ch, W32, (uint32_t)e);
		if (e >> 32)
			put(w, &n, ch, W16, (uint32_t)(e >> 32));
	}
	return n;
}

unsigned int spf_enc_record(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			    struct sifive_itc_write *w, unsigned int type, uint64_t addr,
			    uint64_t addr2, const uint64_t *vals)
{
	unsigned int n = spf_enc_record_head(cfg, st, w, type, addr, addr2);

	return n + spf_enc_counters(cfg, st, w + n, vals);
}

/* ---- decoder ---- */

int spf_dec_init(struct spf_decoder *d, unsigned int channel, bool by_src,
		 const struct spf_dec_ops *ops, void *priv)
{
	memset(d, 0, sizeof(*d));
	if (channel >= SPF_NR_CHANNELS)
		return -1;
	d->channel = channel;
	d->by_src = by_src;
	if (ops)
		d->ops = *ops;
	d->priv = priv;
	return 0;
}

void spf_dec_free(struct spf_decoder *d)
{
	unsigned int i;

	for (i = 0; i < SPF_DEC_MAX_KEYS; i++) {
		free(d->keys[i]);
		d->keys[i] = NULL;
	}
}

int spf_dec_msg(struct spf_decoder *d, const struct spf_dq *m)
{
	return spf_dec_msg_inline(d, m);
}

int spf_dec_end(struct spf_decoder *d)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < SPF_DEC_MAX_KEYS; i++) {
		struct spf_key_state *k = d->keys[i];

		if (!k)
			continue;
		if (k->held) {
			struct spf_dq held = k->held_msg;

			k->held = false;
			ret = step(d, k, i, &held);
			if (ret)
				return ret;
		}
		if (k->state == S_CNT_PEND && k->cnt_i + 1 == k->rec.nctr) {
			cnt_value(k, k->low);
			ret = rec_done(d, k);
			if (ret)
				return ret;
		} else if (mid_record(k->state)) {
			d->stats.truncated++;
			k->state = S_REC;
		}
	}
	return ret;
}
