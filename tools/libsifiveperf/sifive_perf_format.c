// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sifive_perf_format - encoder and decoder of the SiFive perf library's
 * trace records; see sifive_perf_format.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sifive_perf_format.h"

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

unsigned int spf_enc_record(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			    struct sifive_itc_write *w, unsigned int type, uint64_t addr,
			    uint64_t addr2, const uint64_t *vals)
{
	unsigned int i, n = 0, ch = cfg->channel;
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

/* ---- decoder ---- */

enum spf_dec_state {
	S_SYNC,		/* looking for a header marker */
	S_COUNT,	/* 8: count type */
	S_MASK,		/* 32: counter mask */
	S_DEF_TYPE,	/* 32: OpenSBI type */
	S_DEF_CODE,	/* 32: code */
	S_DEF_ED_LO,	/* 32: event_data low */
	S_DEF_ED_HI,	/* 32: event_data high */
	S_DEF_INFO,	/* 32: counter_info */
	S_REC,		/* 8: record type (or 32: a new header) */
	S_ADDR_LO,	/* 32: address low */
	S_ADDR_HI,	/* 32: address high */
	S_CNT_LO,	/* 32: counter low */
	S_CNT_PEND,	/* 16: counter high, or whatever comes next */
};

struct spf_key_state {
	enum spf_dec_state state;
	struct spf_header hdr;		/* the header in force (or being read) */
	bool have_hdr;
	unsigned int streams;
	unsigned int def_i;		/* counter definition being read (mask order) */
	uint64_t prev[SPF_MAX_CNTRS];	/* rebuilt values */
	uint64_t last_addr;
	struct spf_record rec;		/* record being read */
	unsigned int addr_i;
	unsigned int cnt_i;
	uint32_t low;			/* a pending low half */
	bool held;			/* a marker inside a record, waiting for what follows */
	struct spf_dq held_msg;
};

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

static void dec_error(struct spf_decoder *d, const char *what, uint64_t offset)
{
	d->stats.errors++;
	if (d->ops.error)
		d->ops.error(what, offset, d->priv);
}

/* Start reading a header whose marker is @m */
static void hdr_start(struct spf_key_state *k, unsigned int key, const struct spf_dq *m)
{
	memset(&k->hdr, 0, sizeof(k->hdr));
	k->hdr.key = key;
	k->hdr.src = m->src;
	k->hdr.offset = m->offset;
	k->hdr.ts_valid = m->ts_valid;
	k->hdr.ts = m->ts;
	k->have_hdr = false;
	k->held = false;
	k->state = S_COUNT;
}

static int hdr_done(struct spf_decoder *d, struct spf_key_state *k)
{
	unsigned int i, n = 0;

	for (i = 0; i < SPF_MAX_CNTRS; i++)
		if (k->hdr.mask & (1u << i))
			k->hdr.idx[n++] = i;
	k->hdr.nctr = n;
	k->hdr.stream = k->streams++;
	k->have_hdr = true;
	memset(k->prev, 0, sizeof(k->prev));
	k->last_addr = 0;
	k->state = S_REC;
	d->stats.headers++;
	return d->ops.header ? d->ops.header(&k->hdr, d->priv) : 0;
}

static void rec_start(struct spf_key_state *k, const struct spf_dq *m)
{
	struct spf_record *r = &k->rec;

	r->type = m->value;
	r->naddr = m->value <= SPF_REC_FUNC_EXIT ? 2 : 1;
	r->addr[0] = r->addr[1] = 0;
	r->nctr = k->hdr.nctr;
	memcpy(r->idx, k->hdr.idx, sizeof(r->idx));
	r->hdr = &k->hdr;
	r->stream = k->hdr.stream;
	r->key = k->hdr.key;
	r->src = m->src;
	r->offset = m->offset;
	r->ts_valid = m->ts_valid;
	r->ts = m->ts;
	r->end_ts = m->ts;
	k->addr_i = 0;
	k->cnt_i = 0;
	k->state = S_ADDR_LO;
}

static int rec_done(struct spf_decoder *d, struct spf_key_state *k)
{
	k->state = S_REC;
	d->stats.records++;
	return d->ops.record ? d->ops.record(&k->rec, d->priv) : 0;
}

/* A counter's encoded value is complete */
static void cnt_value(struct spf_key_state *k, uint64_t e)
{
	unsigned int i = k->cnt_i;
	uint64_t wm = spf_width_mask(k->hdr.def[i].info);

	switch (k->hdr.count) {
	case SPF_COUNT_DELTA:
		k->prev[i] = (k->prev[i] + e) & wm;
		break;
	case SPF_COUNT_XOR:
		k->prev[i] = (k->prev[i] ^ e) & wm;
		break;
	default:
		k->prev[i] = e & wm;
		break;
	}
	k->rec.encoded[i] = e;
	k->rec.value[i] = k->prev[i];
	k->cnt_i++;
}

/* An address is complete: more addresses, the counters, or the end */
static int addr_value(struct spf_decoder *d, struct spf_key_state *k, uint64_t a)
{
	struct spf_record *r = &k->rec;

	if (k->hdr.count == SPF_COUNT_XOR) {
		k->last_addr ^= a;
		a = k->last_addr;
	}
	r->addr[k->addr_i++] = a;
	if (k->addr_i < r->naddr) {
		k->state = S_ADDR_LO;
		return 0;
	}
	if (!r->nctr)
		return rec_done(d, k);
	k->state = S_CNT_LO;
	return 0;
}

static struct spf_key_state *key_state(struct spf_decoder *d, unsigned int key)
{
	struct spf_key_state *k = d->keys[key];

	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return NULL;
		k->state = S_SYNC;
		d->keys[key] = k;
	}
	return k;
}

static bool mid_record(enum spf_dec_state s)
{
	return s == S_ADDR_LO || s == S_ADDR_HI || s == S_CNT_LO || s == S_CNT_PEND;
}

/* One message through the state machine of @k */
static int step(struct spf_decoder *d, struct spf_key_state *k, unsigned int key,
		const struct spf_dq *m)
{
	struct spf_header *h = &k->hdr;
	const char *what = "bad header";
	int ret;

again:
	switch (k->state) {
	case S_SYNC:
		if (m->width == W32 && m->value == SPF_MARKER)
			hdr_start(k, key, m);
		else
			d->stats.skipped++;
		return 0;

	case S_COUNT:
		if (m->width != W8 || m->value >= SPF_NR_COUNT_TYPES)
			goto bad;
		h->count = m->value;
		k->state = S_MASK;
		return 0;

	case S_MASK:
		if (m->width != W32)
			goto bad;
		h->mask = m->value;
		if (!h->mask)
			return hdr_done(d, k);
		k->def_i = 0;
		k->state = S_DEF_TYPE;
		return 0;

	case S_DEF_TYPE:
		if (m->width != W32 || m->value > 2)
			goto bad;
		h->def[k->def_i].type = m->value;
		k->state = m->value == 2 ? S_DEF_ED_LO : S_DEF_CODE;
		return 0;

	case S_DEF_CODE:
		if (m->width != W32)
			goto bad;
		h->def[k->def_i].code = m->value;
		k->state = S_DEF_INFO;
		return 0;

	case S_DEF_ED_LO:
		if (m->width != W32)
			goto bad;
		h->def[k->def_i].event_data = m->value;
		k->state = S_DEF_ED_HI;
		return 0;

	case S_DEF_ED_HI:
		if (m->width != W32)
			goto bad;
		h->def[k->def_i].event_data |= (uint64_t)m->value << 32;
		k->state = S_DEF_INFO;
		return 0;

	case S_DEF_INFO:
		if (m->width != W32)
			goto bad;
		h->def[k->def_i].info = m->value;
		k->def_i++;
		if (k->def_i >= (unsigned int)__builtin_popcount(h->mask))
			return hdr_done(d, k);
		k->state = S_DEF_TYPE;
		return 0;

	case S_REC:
		if (m->width == W32 && m->value == SPF_MARKER) {
			hdr_start(k, key, m);
			return 0;
		}
		if (m->width != W8 || m->value >= SPF_NR_REC_TYPES) {
			what = "not a record";
			goto bad;
		}
		rec_start(k, m);
		return 0;

	case S_ADDR_LO:
		if (m->width != W32)
			goto cut;
		k->rec.end_ts = m->ts;
		if (m->value & 1) {
			k->low = m->value & ~1u;
			k->state = S_ADDR_HI;
			return 0;
		}
		return addr_value(d, k, m->value);

	case S_ADDR_HI:
		if (m->width != W32)
			goto cut;
		k->rec.end_ts = m->ts;
		return addr_value(d, k, (uint64_t)m->value << 32 | k->low);

	case S_CNT_LO:
		if (m->width != W32)
			goto cut;
		k->rec.end_ts = m->ts;
		k->low = m->value;
		k->state = S_CNT_PEND;
		return 0;

	case S_CNT_PEND:
		if (m->width == W16) {
			k->rec.end_ts = m->ts;
			cnt_value(k, (uint64_t)m->value << 32 | k->low);
			if (k->cnt_i == k->rec.nctr)
				return rec_done(d, k);
			k->state = S_CNT_LO;
			return 0;
		}
		cnt_value(k, k->low);
		if (k->cnt_i == k->rec.nctr) {
			ret = rec_done(d, k);
			if (ret)
				return ret;
			goto again;	/* the next record or header */
		}
		if (m->width == W32) {
			k->state = S_CNT_LO;
			goto again;
		}
		goto cut;	/* an 8-bit write with counters missing */
	}
	return 0;

bad:
	/* Not a header (or record) after all: look for the next marker */
	dec_error(d, what, m->offset);
	k->have_hdr = false;
	k->state = S_SYNC;
	goto again;

cut:
	/* A record cut short: the next record (or header) starts here */
	d->stats.truncated++;
	dec_error(d, "record cut short", k->rec.offset);
	k->state = S_REC;
	if (m->width == W8 && m->value < SPF_NR_REC_TYPES) {
		rec_start(k, m);
		return 0;
	}
	if (m->width == W32 && m->value == SPF_MARKER) {
		hdr_start(k, key, m);
		return 0;
	}
	dec_error(d, "lost sync", m->offset);
	k->state = S_SYNC;
	d->stats.skipped++;
	return 0;
}

int spf_dec_msg(struct spf_decoder *d, const struct spf_dq *m)
{
	unsigned int key = d->by_src ? m->src % SPF_DEC_MAX_KEYS : 0;
	struct spf_key_state *k;
	struct spf_dq held;
	int ret;

	if (m->channel != d->channel)
		return 0;
	d->stats.messages++;
	k = key_state(d, key);
	if (!k)
		return -1;

	/*
	 * A marker inside a record is a counter or address that happens to
	 * have its value, unless an 8-bit count type follows: then the record
	 * was cut short (the buffer filled, a write was lost) and a header
	 * starts. Hold it until the next message says which.
	 */
	if (k->held) {
		held = k->held_msg;
		k->held = false;
		if (m->width == W8 && m->value < SPF_NR_COUNT_TYPES) {
			d->stats.truncated++;
			dec_error(d, "record cut short by a header", k->rec.offset);
			hdr_start(k, key, &held);
			return step(d, k, key, m);
		}
		ret = step(d, k, key, &held);
		if (ret)
			return ret;
	}
	if (m->width == W32 && m->value == SPF_MARKER && mid_record(k->state) &&
	    !(k->state == S_CNT_PEND && k->cnt_i + 1 == k->rec.nctr)) {
		k->held = true;
		k->held_msg = *m;
		return 0;
	}
	return step(d, k, key, m);
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
