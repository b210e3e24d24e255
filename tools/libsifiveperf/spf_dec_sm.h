/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The record decoder's state machine (sifive_perf_format.h), inline: for
 * spf_dec_msg() in sifive_perf_format.c and for spf_decode.c, which runs it
 * on batches of Nexus messages without a call per message. Internal.
 */
#ifndef SPF_DEC_SM_H
#define SPF_DEC_SM_H

#include <stdlib.h>
#include <string.h>

#include "sifive_perf_format.h"

#define SPF_W32	32
#define SPF_W16	16
#define SPF_W8	8

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
	uint64_t wm[SPF_MAX_CNTRS];	/* the counters' width masks */
	uint64_t last_addr;
	struct spf_record rec;		/* record being read */
	unsigned int addr_i;
	unsigned int cnt_i;
	uint32_t low;			/* a pending low half */
	bool held;			/* a marker inside a record, waiting for what follows */
	struct spf_dq held_msg;
};

static inline void dec_error(struct spf_decoder *d, const char *what, uint64_t offset)
{
	d->stats.errors++;
	if (d->ops.error)
		d->ops.error(what, offset, d->priv);
}

/* Start reading a header whose marker is @m */
static inline void hdr_start(struct spf_key_state *k, unsigned int key, const struct spf_dq *m)
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

static inline int hdr_done(struct spf_decoder *d, struct spf_key_state *k)
{
	unsigned int i, n = 0;

	for (i = 0; i < SPF_MAX_CNTRS; i++)
		if (k->hdr.mask & (1u << i))
			k->hdr.idx[n++] = i;
	k->hdr.nctr = n;
	for (i = 0; i < n; i++)
		k->wm[i] = spf_width_mask(k->hdr.def[i].info);
	k->hdr.stream = k->streams++;
	k->have_hdr = true;
	memset(k->prev, 0, sizeof(k->prev));
	k->last_addr = 0;
	k->state = S_REC;
	d->stats.headers++;
	return d->ops.header ? d->ops.header(&k->hdr, d->priv) : 0;
}

/* A record of type @type starts with a message at @offset from @src at @ts */
static inline void rec_start_at(struct spf_key_state *k, uint32_t type, uint64_t offset,
				unsigned int src, bool ts_valid, uint64_t ts)
{
	struct spf_record *r = &k->rec;

	r->type = type;
	r->naddr = type <= SPF_REC_FUNC_EXIT ? 2 : 1;
	r->addr[0] = r->addr[1] = 0;
	r->nctr = k->hdr.nctr;
	memcpy(r->idx, k->hdr.idx, sizeof(r->idx));
	r->hdr = &k->hdr;
	r->stream = k->hdr.stream;
	r->key = k->hdr.key;
	r->src = src;
	r->offset = offset;
	r->ts_valid = ts_valid;
	r->ts = ts;
	r->end_ts = ts;
	k->addr_i = 0;
	k->cnt_i = 0;
	k->state = S_ADDR_LO;
}

static inline void rec_start(struct spf_key_state *k, const struct spf_dq *m)
{
	rec_start_at(k, m->value, m->offset, m->src, m->ts_valid, m->ts);
}

static inline int rec_done(struct spf_decoder *d, struct spf_key_state *k)
{
	k->state = S_REC;
	d->stats.records++;
	return d->ops.record ? d->ops.record(&k->rec, d->priv) : 0;
}

/* A counter's encoded value is complete */
static inline void cnt_value(struct spf_key_state *k, uint64_t e)
{
	unsigned int i = k->cnt_i;
	uint64_t wm = k->wm[i];

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
static inline int addr_value(struct spf_decoder *d, struct spf_key_state *k, uint64_t a)
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

static inline struct spf_key_state *key_state(struct spf_decoder *d, unsigned int key)
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

static inline bool mid_record(enum spf_dec_state s)
{
	return s == S_ADDR_LO || s == S_ADDR_HI || s == S_CNT_LO || s == S_CNT_PEND;
}

/* One message through the state machine of @k */
static __attribute__((noinline, unused)) int step_slow(struct spf_decoder *d,
						       struct spf_key_state *k, unsigned int key,
						       const struct spf_dq *m)
{
	struct spf_header *h = &k->hdr;
	const char *what = "bad header";
	int ret;

again:
	switch (k->state) {
	case S_SYNC:
		if (m->width == SPF_W32 && m->value == SPF_MARKER)
			hdr_start(k, key, m);
		else
			d->stats.skipped++;
		return 0;

	case S_COUNT:
		if (m->width != SPF_W8 || m->value >= SPF_NR_COUNT_TYPES)
			goto bad;
		h->count = m->value;
		k->state = S_MASK;
		return 0;

	case S_MASK:
		if (m->width != SPF_W32)
			goto bad;
		h->mask = m->value;
		if (!h->mask)
			return hdr_done(d, k);
		k->def_i = 0;
		k->state = S_DEF_TYPE;
		return 0;

	case S_DEF_TYPE:
		if (m->width != SPF_W32 || m->value > 2)
			goto bad;
		h->def[k->def_i].type = m->value;
		k->state = m->value == 2 ? S_DEF_ED_LO : S_DEF_CODE;
		return 0;

	case S_DEF_CODE:
		if (m->width != SPF_W32)
			goto bad;
		h->def[k->def_i].code = m->value;
		k->state = S_DEF_INFO;
		return 0;

	case S_DEF_ED_LO:
		if (m->width != SPF_W32)
			goto bad;
		h->def[k->def_i].event_data = m->value;
		k->state = S_DEF_ED_HI;
		return 0;

	case S_DEF_ED_HI:
		if (m->width != SPF_W32)
			goto bad;
		h->def[k->def_i].event_data |= (uint64_t)m->value << 32;
		k->state = S_DEF_INFO;
		return 0;

	case S_DEF_INFO:
		if (m->width != SPF_W32)
			goto bad;
		h->def[k->def_i].info = m->value;
		k->def_i++;
		if (k->def_i >= (unsigned int)__builtin_popcount(h->mask))
			return hdr_done(d, k);
		k->state = S_DEF_TYPE;
		return 0;

	case S_REC:
		if (m->width == SPF_W32 && m->value == SPF_MARKER) {
			hdr_start(k, key, m);
			return 0;
		}
		if (m->width != SPF_W8 || m->value >= SPF_NR_REC_TYPES) {
			what = "not a record";
			goto bad;
		}
		rec_start(k, m);
		return 0;

	case S_ADDR_LO:
		if (m->width != SPF_W32)
			goto cut;
		k->rec.end_ts = m->ts;
		if (m->value & 1) {
			k->low = m->value & ~1u;
			k->state = S_ADDR_HI;
			return 0;
		}
		return addr_value(d, k, m->value);

	case S_ADDR_HI:
		if (m->width != SPF_W32)
			goto cut;
		k->rec.end_ts = m->ts;
		return addr_value(d, k, (uint64_t)m->value << 32 | k->low);

	case S_CNT_LO:
		if (m->width != SPF_W32)
			goto cut;
		k->rec.end_ts = m->ts;
		k->low = m->value;
		k->state = S_CNT_PEND;
		return 0;

	case S_CNT_PEND:
		if (m->width == SPF_W16) {
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
		if (m->width == SPF_W32) {
			/* the next counter's low half (what S_CNT_LO does) */
			k->rec.end_ts = m->ts;
			k->low = m->value;
			return 0;
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
	if (m->width == SPF_W8 && m->value < SPF_NR_REC_TYPES) {
		rec_start(k, m);
		return 0;
	}
	if (m->width == SPF_W32 && m->value == SPF_MARKER) {
		hdr_start(k, key, m);
		return 0;
	}
	dec_error(d, "lost sync", m->offset);
	k->state = S_SYNC;
	d->stats.skipped++;
	return 0;
}

/*
 * The common messages of a record, inline: the same code as step_slow()
 * has for them. False (and nothing changed) if the message (the fields
 * of a struct spf_dq) takes step_slow().
 */
static inline __attribute__((always_inline)) bool
step_fast(struct spf_decoder *d, struct spf_key_state *k, unsigned int width, uint32_t value,
	  uint64_t ts, uint64_t offset, unsigned int src, bool ts_valid, int *ret)
{
	*ret = 0;
	/* by frequency, in branches rather than a jump table */
	if (k->state == S_CNT_PEND) {
		if (width == SPF_W32 && k->cnt_i + 1 < k->rec.nctr) {
			cnt_value(k, k->low);
			/* the next counter's low half (what S_CNT_LO does) */
			k->rec.end_ts = ts;
			k->low = value;
			return true;
		}
		if (width == SPF_W16) {
			k->rec.end_ts = ts;
			cnt_value(k, (uint64_t)value << 32 | k->low);
			if (k->cnt_i == k->rec.nctr)
				*ret = rec_done(d, k);
			else
				k->state = S_CNT_LO;
			return true;
		}
		if (width == SPF_W8 && k->cnt_i + 1 == k->rec.nctr &&
		    value < SPF_NR_REC_TYPES) {
			/* the last counter, then the next record (what S_REC does) */
			cnt_value(k, k->low);
			*ret = rec_done(d, k);
			if (!*ret)
				rec_start_at(k, value, offset, src, ts_valid, ts);
			return true;
		}
		return false;
	}
	if (k->state == S_ADDR_LO || k->state == S_CNT_LO) {
		if (width != SPF_W32)
			return false;
		k->rec.end_ts = ts;
		if (k->state == S_CNT_LO) {
			k->low = value;
			k->state = S_CNT_PEND;
		} else if (value & 1) {
			k->low = value & ~1u;
			k->state = S_ADDR_HI;
		} else {
			*ret = addr_value(d, k, value);
		}
		return true;
	}
	if (k->state == S_ADDR_HI) {
		if (width != SPF_W32)
			return false;
		k->rec.end_ts = ts;
		*ret = addr_value(d, k, (uint64_t)value << 32 | k->low);
		return true;
	}
	if (k->state == S_REC) {
		if (width != SPF_W8 || value >= SPF_NR_REC_TYPES)
			return false;
		rec_start_at(k, value, offset, src, ts_valid, ts);
		return true;
	}
	return false;
}

/* step_slow() with the common messages of a record inline */
static inline __attribute__((always_inline)) int step(struct spf_decoder *d,
						      struct spf_key_state *k, unsigned int key,
						      const struct spf_dq *m)
{
	int ret;

	if (step_fast(d, k, m->width, m->value, m->ts, m->offset, m->src, m->ts_valid, &ret))
		return ret;
	return step_slow(d, k, key, m);
}

static inline __attribute__((always_inline)) int spf_dec_msg_inline(struct spf_decoder *d,
								    const struct spf_dq *m)
{
	unsigned int key = d->by_src ? m->src % SPF_DEC_MAX_KEYS : 0;
	struct spf_key_state *k;
	struct spf_dq held;
	int ret;

	if (m->channel != d->channel)
		return 0;
	d->stats.messages++;
	k = d->keys[key];
	if (!k) {
		k = key_state(d, key);
		if (!k)
			return -1;
	}

	/*
	 * A marker inside a record is a counter or address that happens to
	 * have its value, unless an 8-bit count type follows: then the record
	 * was cut short (the buffer filled, a write was lost) and a header
	 * starts. Hold it until the next message says which.
	 */
	if (k->held) {
		held = k->held_msg;
		k->held = false;
		if (m->width == SPF_W8 && m->value < SPF_NR_COUNT_TYPES) {
			d->stats.truncated++;
			dec_error(d, "record cut short by a header", k->rec.offset);
			hdr_start(k, key, &held);
			return step_slow(d, k, key, m);
		}
		ret = step_slow(d, k, key, &held);
		if (ret)
			return ret;
	}
	if (m->width == SPF_W32 && m->value == SPF_MARKER && mid_record(k->state) &&
	    !(k->state == S_CNT_PEND && k->cnt_i + 1 == k->rec.nctr)) {
		k->held = true;
		k->held_msg = *m;
		return 0;
	}
	return step(d, k, key, m);
}

#endif /* SPF_DEC_SM_H */
