// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * nexus_decode - decoder for SiFive Nexus trace messages; see nexus_decode.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <socpmu/sifive_trace_regs.h>

#include "nexus_decode.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define DQ_WIN		1024	/* bytes of the DQ fast path's window, at most */
#define DQ_RUN_MAX_BYTES	10	/* all of SRC to the timestamp in 57 bits */
#define DQ_WIN_MIN	64	/* ... at first (a run is often short in other traces) */

struct nexus_decoder {
	struct nexus_config cfg;
	nexus_msg_cb cb;
	/* batch mode (nexus_decode_dq()) */
	struct nexus_dq *dq_out;
	size_t dq_n, dq_max;
	void *priv;
	struct nexus_stats stats;
	uint64_t pos;			/* stream offset of the next byte fed */
	bool sync;			/* skipping to the end of a message */
	uint8_t msg[NEXUS_MAX_MSG_BYTES + 16];	/* + room for the loads (see below) */
	unsigned int len;		/* bytes of the message being collected */
	bool overlong;			/* ... which is too long: dropped */
	uint64_t start;			/* its stream offset */
	uint64_t last_ts[1u << NEXUS_MAX_SRCBITS];
	bool ts_known[1u << NEXUS_MAX_SRCBITS];
	/*
	 * The DQ fast path's window of the caller's buffer (nexus_dq_run()):
	 * byte k of the @win_len from where it starts has MDO bits 6k to
	 * 6k + 5 in @w_mdo, bit k % 8 of @w_fe[k / 8] set if it ends a field,
	 * of @w_me[k / 8] if it ends a message. Valid during one call.
	 */
	size_t win_len;
	size_t win_next;		/* the next window's size */
	/*
	 * A DQ message's shape by the bytes in it that end a field (bit k:
	 * byte k, from DQTAG's first byte on, the last one set): 0 if it does
	 * not match the layout, else DQ_SHAPE_OK, whether a timestamp
	 * follows, and the widths of DQTAG, DQDATA and the timestamp.
	 */
	uint32_t dq_shape[1u << DQ_RUN_MAX_BYTES];
	uint8_t w_mdo[DQ_WIN * 6 / 8 + 16];
	uint8_t w_fe[DQ_WIN / 8 + 8];
	uint8_t w_me[DQ_WIN / 8 + 8];
	/*
	 * The message handed to the callback: zero but for what the previous
	 * message set, which nexus_deliver() clears again (cheaper than
	 * clearing all of it for every message).
	 */
	struct nexus_msg m;
};

/* Layout of a message after TCODE and SRC */
struct nexus_layout {
	unsigned int nfixed;
	unsigned int fixed_bits[2];
	unsigned int nvar;		/* variable fields before the timestamp */
	bool var_from_fixed1;		/* nvar = 1 + fixed[1] (in-circuit trace CKDF) */
	bool full_ts;
};

static const struct nexus_layout *nexus_layout(unsigned int tcode)
{
	static const struct nexus_layout ownership = { .nvar = 1 };
	static const struct nexus_layout dq = { .nvar = 2 };
	static const struct nexus_layout error = {
		.nfixed = 1, .fixed_bits = { 4 }, .nvar = 1,
	};
	static const struct nexus_layout sync = {
		.nfixed = 1, .fixed_bits = { 4 }, .nvar = 2, .full_ts = true,
	};
	static const struct nexus_layout ict = {
		.nfixed = 2, .fixed_bits = { NEXUS_ICT_CKSRC_BITS, NEXUS_ICT_CKDF_BITS },
		.var_from_fixed1 = true,
	};
	static const struct nexus_layout ict_ws = {
		.nfixed = 2, .fixed_bits = { NEXUS_ICT_CKSRC_BITS, NEXUS_ICT_CKDF_BITS },
		.var_from_fixed1 = true, .full_ts = true,
	};

	switch (tcode) {
	case NEXUS_TCODE_OWNERSHIP:
		return &ownership;
	case NEXUS_TCODE_DATA_ACQUISITION:
		return &dq;
	case NEXUS_TCODE_ERROR:
		return &error;
	case NEXUS_TCODE_SYNC:
		return &sync;
	case NEXUS_TCODE_ICT:
		return &ict;
	case NEXUS_TCODE_ICT_WS:
		return &ict_ws;
	}
	return NULL;
}

/* Messages with sync carry a full timestamp */
static bool nexus_full_ts(unsigned int tcode)
{
	switch (tcode) {
	case NEXUS_TCODE_SYNC:
	case NEXUS_TCODE_DIRECT_BRANCH_WS:
	case NEXUS_TCODE_INDIRECT_BRANCH_WS:
	case NEXUS_TCODE_INDIRECT_HISTORY_WS:
	case 32:	/* repeat instruction with sync */
	case NEXUS_TCODE_ICT_WS:
		return true;
	}
	return false;
}

/* Bit reader over the MDO bits of one message */
struct nexus_bits {
	const uint8_t *b;
	unsigned int n;		/* bytes */
	unsigned int byte;	/* data bit position: in byte @byte, ... */
	unsigned int bit;	/* ... at MDO bit @bit (0-5) */
	bool eom;		/* the last field read ended the message */
	uint64_t d0;		/* MDO bits of the first 8 bytes (mdo48()) */
	uint64_t e0;		/* bit 8k: byte k < n ends a field (MSEO != 0) */
};

/*
 * The decoder reads 8 bytes at a time: a message is parsed only where at
 * least 8 bytes can be read from its last byte on and 16 from its first
 * (the caller's buffer beyond it, or d->msg).
 */
#define ONES		0x0101010101010101ULL

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

static inline void store64(uint8_t *p, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, sizeof(x));
}

/* The MDO bits of the 8 bytes in @x (first byte lowest), packed: 48 bits */
static inline uint64_t mdo48(uint64_t x)
{
	x = (x >> 2) & 0x3f3f3f3f3f3f3f3fULL;
	x = (x & 0x003f003f003f003fULL) | ((x & 0x3f003f003f003f00ULL) >> 2);
	x = (x & 0x00000fff00000fffULL) | ((x & 0x0fff00000fff0000ULL) >> 4);
	return (x & 0x0000000000ffffffULL) | ((x & 0x00ffffff00000000ULL) >> 8);
}

/* @width (<= 32) bits, whatever the MSEO bits say (fields of a known width) */
static inline __attribute__((always_inline)) bool nexus_fixed(struct nexus_bits *r, unsigned int width, uint64_t *val)
{
	unsigned int pos = r->byte * NEXUS_MDO_BITS + r->bit + width;

	if (!width) {
		*val = 0;
		return true;
	}
	if ((pos - 1) / NEXUS_MDO_BITS >= r->n)
		return false;
	/* within the first 8 bytes, or in the 8 from the current one */
	if (pos <= 48) {
		*val = (r->d0 >> (pos - width)) & ((1ULL << width) - 1);
	} else {
		*val = (mdo48(load64(r->b + r->byte)) >> r->bit) & ((1ULL << width) - 1);
	}
	r->byte = pos / NEXUS_MDO_BITS;
	r->bit = pos % NEXUS_MDO_BITS;
	return true;
}

/* nexus_var() of a field that does not end in the first 8 bytes */
static bool nexus_var_long(struct nexus_bits *r, uint64_t *val)
{
	const uint8_t *p = r->b + r->byte;
	unsigned int b = r->bit, w = 0, k;
	uint64_t v = 0, x, ends, d;

	for (;;) {
		x = load64(p);
		ends = ((x | x >> 1) & ONES);
		d = mdo48(x) >> b;
		if (!ends) {
			if (w < 64)
				v |= d << w;
			w += 48 - b;
			b = 0;
			p += 8;
			continue;
		}
		k = __builtin_ctzll(ends) / 8;
		if (w < 64)
			v |= (d & ((1ULL << (NEXUS_MDO_BITS * (k + 1) - b)) - 1)) << w;
		r->byte = p + k + 1 - r->b;
		r->bit = 0;
		r->eom = (p[k] & NEXUS_MSEO_MASK) == NEXUS_MSEO_END_MSG;
		*val = v;
		return true;
	}
}

/*
 * A variable field: from the current bit to the byte whose MSEO ends it.
 * Bits beyond 64 are dropped. There is always such a byte: the last one
 * of a message ends it.
 */
static inline __attribute__((always_inline)) bool nexus_var(struct nexus_bits *r, uint64_t *val)
{
	uint64_t e, v;
	unsigned int k;

	*val = 0;
	if (r->eom || r->byte >= r->n)
		return false;
	e = r->byte < 8 ? r->e0 >> 8 * r->byte : 0;
	if (!e)
		return nexus_var_long(r, val);
	/* it ends in the first 8 bytes */
	k = __builtin_ctzll(e) / 8;
	v = r->d0 >> (NEXUS_MDO_BITS * r->byte + r->bit);
	*val = v & ((1ULL << (NEXUS_MDO_BITS * (k + 1) - r->bit)) - 1);
	r->byte += k + 1;
	r->bit = 0;
	r->eom = (r->b[r->byte - 1] & NEXUS_MSEO_MASK) == NEXUS_MSEO_END_MSG;
	return true;
}

/* mask64[w]: the low @w bits (w <= 64) */
static const uint64_t mask64[65] = {
#define M4(w)	(w) ? ~0ULL >> (64 - (w)) : 0, ~0ULL >> (63 - (w)), ~0ULL >> (62 - (w)), \
		~0ULL >> (61 - (w))
	M4(0), M4(4), M4(8), M4(12), M4(16), M4(20), M4(24), M4(28), M4(32), M4(36), M4(40),
	M4(44), M4(48), M4(52), M4(56), M4(60), ~0ULL,
#undef M4
};

/* Width of an ITC store by its byte offset in the stimulus register */
static const unsigned int dq_widths[4] = { 32, 0, 16, 8 };

/* Bit 0 of each byte of @x (the others clear), as 8 bits: byte k to bit k */
static inline unsigned int gather8(uint64_t x)
{
	return (unsigned int)((x * 0x0102040810204080ULL) >> 56);
}

/* Bits [@pos, @pos + @w) of the 96 MDO bits of 16 bytes (@d0: first 48), at most 64 */
static inline uint64_t bits96(uint64_t d0, uint64_t d1, unsigned int pos, unsigned int w)
{
	uint64_t v = pos < 48 ? d0 >> pos | d1 << (48 - pos) : d1 >> (pos - 48);

	return w < 64 ? v & ((1ULL << w) - 1) : v;
}

/* A Data Acquisition Message's fields */
struct dq_fields {
	unsigned int src;
	bool has_ts;
	uint64_t tag, data, ts;
};

/*
 * The fast path of the common message: a Data Acquisition Message of
 * @n bytes (2-16; 16 readable at @p) parsed as nexus_parse() would, all its
 * fields at once from the MSEO bits. True if it matches its layout (SRC,
 * DQTAG, DQDATA and maybe a timestamp, the last field ending the message);
 * if not, nexus_parse() says how it does not.
 */
static inline __attribute__((always_inline)) bool dq_parse16(const uint8_t *p, unsigned int n,
							      unsigned int srcbits,
							      struct dq_fields *f)
{
	uint64_t lo = load64(p), hi = load64(p + 8), d0, d1;
	unsigned int pos = NEXUS_TCODE_BITS + srcbits, b = pos / NEXUS_MDO_BITS, ends, k1, k2;

	if (b >= n)
		return false;
	/* the bytes that end a field, from the one DQTAG starts in to the last */
	ends = gather8((lo | lo >> 1) & ONES) | gather8((hi | hi >> 1) & ONES) << 8;
	ends &= ((2u << (n - 1)) - 1) & (~0u << b);
	k1 = __builtin_ctz(ends);
	ends &= ends - 1;
	if (!ends)
		return false;		/* DQTAG ends the message */
	k2 = __builtin_ctz(ends);
	ends &= ends - 1;
	if (ends & (ends - 1))
		return false;		/* more than a timestamp after DQDATA */
	d0 = mdo48(lo);
	d1 = mdo48(hi);
	f->src = (unsigned int)(d0 >> NEXUS_TCODE_BITS) & ((1u << srcbits) - 1);
	f->tag = bits96(d0, d1, pos, NEXUS_MDO_BITS * (k1 + 1) - pos);
	f->data = bits96(d0, d1, NEXUS_MDO_BITS * (k1 + 1), NEXUS_MDO_BITS * (k2 - k1));
	f->has_ts = ends;
	f->ts = ends ? bits96(d0, d1, NEXUS_MDO_BITS * (k2 + 1), NEXUS_MDO_BITS * (n - 1 - k2)) : 0;
	return true;
}

/* The first byte of a Data Acquisition Message: TCODE, MSEO 00 */
#define DQ_BYTE0	(NEXUS_TCODE_DATA_ACQUISITION << 2)

static void nexus_parse(unsigned int srcbits, const uint8_t *raw, struct nexus_msg *m)
{
	struct nexus_bits r = { .b = raw, .n = m->len };
	const struct nexus_layout *l;
	uint64_t v = 0, x = load64(raw);
	struct dq_fields f;
	unsigned int i, nvar;

	if (raw[0] == DQ_BYTE0 && m->len <= 16 && dq_parse16(raw, m->len, srcbits, &f)) {
		m->tcode = NEXUS_TCODE_DATA_ACQUISITION;
		m->src = f.src;
		m->known = m->valid = true;
		m->nfields = 2;
		m->field[0] = f.tag;
		m->field[1] = f.data;
		m->has_ts = f.has_ts;
		m->ts_field = f.ts;
		m->dq.tag = f.tag;
		m->dq.data = f.data;
		m->dq.channel = m->dq.tag / 4;
		m->dq.width = dq_widths[m->dq.tag % 4];
		return;
	}

	r.d0 = mdo48(x);
	r.e0 = (x | x >> 1) & ONES;
	if (r.n < 8)
		r.e0 &= (1ULL << 8 * r.n) - 1;

	nexus_fixed(&r, NEXUS_TCODE_BITS, &v);
	m->tcode = v;
	if (srcbits) {
		if (!nexus_fixed(&r, srcbits, &v))
			return;
		m->src = v;
	}
	l = nexus_layout(m->tcode);
	m->known = l;
	m->full_ts = nexus_full_ts(m->tcode);
	if (!l) {
		/* Unknown layout: every variable field, no timestamp */
		while (m->nfields < NEXUS_MAX_FIELDS && nexus_var(&r, &v))
			m->field[m->nfields++] = v;
		m->valid = r.eom;
		return;
	}
	for (i = 0; i < l->nfixed; i++) {
		if (!nexus_fixed(&r, l->fixed_bits[i], &v))
			return;
		m->fixed[m->nfixed++] = v;
	}
	nvar = l->var_from_fixed1 ? 1 + m->fixed[1] : l->nvar;
	if (nvar > 2)
		return;		/* CKDF 2 and 3 are reserved */
	for (i = 0; i < nvar; i++) {
		if (!nexus_var(&r, &v))
			return;
		m->field[m->nfields++] = v;
	}
	if (!r.eom) {
		if (!nexus_var(&r, &m->ts_field) || !r.eom)
			return;
		m->has_ts = true;
	}
	m->valid = true;

	switch (m->tcode) {
	case NEXUS_TCODE_DATA_ACQUISITION:
		m->dq.tag = m->field[0];
		m->dq.data = m->field[1];
		m->dq.channel = m->dq.tag / 4;
		m->dq.width = dq_widths[m->dq.tag % 4];
		break;
	case NEXUS_TCODE_ICT:
	case NEXUS_TCODE_ICT_WS:
		m->ict.cksrc = m->fixed[0];
		m->ict.ckdf = m->fixed[1];
		for (i = 0; i < m->nfields; i++)
			m->ict.ckdata[i] = m->field[i];
		break;
	}
}

static void nexus_timestamp(struct nexus_decoder *d, struct nexus_msg *m)
{
	unsigned int src = m->src;

	if (!m->has_ts)
		return;
	if (m->full_ts) {
		d->last_ts[src] = m->ts_field;
		d->ts_known[src] = true;
	} else if (d->ts_known[src]) {
		d->last_ts[src] ^= m->ts_field;
	}
	m->ts_valid = d->ts_known[src];
	m->timestamp = m->ts_valid ? d->last_ts[src] : 0;
}

/* Parse and hand on the message of @len bytes at @raw (stream offset d->start) */
static int nexus_deliver(struct nexus_decoder *d, const uint8_t *raw, unsigned int len)
{
	struct nexus_msg *m = &d->m;
	int ret;

	m->offset = d->start;
	m->raw = raw;
	m->len = len;
	nexus_parse(d->cfg.srcbits, raw, m);
	if (m->valid)
		nexus_timestamp(d, m);
	d->stats.messages++;
	if (!m->valid)
		d->stats.invalid++;
	if (d->dq_out && m->valid && m->tcode == NEXUS_TCODE_DATA_ACQUISITION) {
		/* batch mode: there is room (see nexus_loop()) */
		d->dq_out[d->dq_n++] = (struct nexus_dq){
			.offset = m->offset, .timestamp = m->timestamp, .tag = m->dq.tag,
			.data = m->dq.data, .src = (uint16_t)m->src, .width = (uint8_t)m->dq.width,
			.ts_valid = m->ts_valid,
		};
		ret = 0;
	} else {
		ret = d->cb ? d->cb(m, d->priv) : 0;
	}

	/* back to all zero: what nexus_parse() and nexus_timestamp() may set */
	while (m->nfields)
		m->field[--m->nfields] = 0;
	m->fixed[0] = m->fixed[1] = 0;
	m->dq.tag = m->dq.data = m->dq.channel = m->dq.width = 0;
	m->ict.cksrc = m->ict.ckdf = 0;
	m->ict.ckdata[0] = m->ict.ckdata[1] = 0;
	m->tcode = m->src = m->nfixed = m->nfields = 0;
	m->known = m->valid = m->has_ts = m->full_ts = m->ts_valid = false;
	m->ts_field = m->timestamp = 0;
	return ret;
}

/* One byte the slow way: inside a message that started in an earlier buffer, resyncing */
static int nexus_byte(struct nexus_decoder *d, uint8_t b)
{
	unsigned int mseo = b & NEXUS_MSEO_MASK;
	int ret;

	if (d->sync) {
		d->stats.skipped++;
		d->sync = mseo != NEXUS_MSEO_END_MSG;
		return 0;
	}
	if (!d->len && !d->overlong) {
		if (!b) {
			d->stats.padding++;
			return 0;
		}
		if (mseo != NEXUS_MSEO_NORMAL) {
			/* the end of a field: we are inside a message */
			d->stats.skipped++;
			d->sync = mseo != NEXUS_MSEO_END_MSG;
			return 0;
		}
		d->start = d->pos;
	}
	if (d->len < NEXUS_MAX_MSG_BYTES)
		d->msg[d->len++] = b;
	else
		d->overlong = true;
	if (mseo != NEXUS_MSEO_END_MSG)
		return 0;
	if (d->overlong) {
		d->stats.skipped += d->len + 1;
		d->stats.invalid++;
		d->len = 0;
		d->overlong = false;
		return 0;
	}
	ret = nexus_deliver(d, d->msg, d->len);
	d->len = 0;
	return ret;
}

/* The end of the message at @p (72 bytes readable): NULL if it has more than 64 bytes */
static inline const uint8_t *nexus_msg_end(const uint8_t *p)
{
	uint64_t x, ends;
	unsigned int i;

	for (i = 0; i < NEXUS_MAX_MSG_BYTES; i += 8) {
		x = load64(p + i);
		ends = x & x >> 1 & ONES;
		if (ends)
			return p + i + __builtin_ctzll(ends) / 8 + 1;
	}
	return NULL;
}

/*
 * The window of nexus_dq_run(): @len (a multiple of 16, at most DQ_WIN)
 * bytes at @p, 16 at a time
 */
#ifdef __SSE2__
static void dq_window(struct nexus_decoder *d, const uint8_t *p, size_t len)
{
	const __m128i m6 = _mm_set1_epi8(0x3f);
	const __m128i lo6 = _mm_set1_epi16(0x003f), hi6 = _mm_set1_epi16(0x3f00);
	const __m128i lo12 = _mm_set1_epi32(0x00000fff), hi12 = _mm_set1_epi32(0x0fff0000);
	const __m128i lo24 = _mm_set1_epi64x(0xffffff), hi24 = _mm_set1_epi64x(0xffffff00000000);
	unsigned int b0, b1;
	uint16_t map;
	__m128i x, y;
	size_t k;

	for (k = 0; k < len / 16; k++) {
		x = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		/* bits 0 and 1 (MSEO) of each byte */
		b0 = (unsigned int)_mm_movemask_epi8(_mm_slli_epi16(x, 7));
		b1 = (unsigned int)_mm_movemask_epi8(_mm_slli_epi16(x, 6));
		map = (uint16_t)(b0 | b1);
		memcpy(d->w_fe + 2 * k, &map, 2);
		map = (uint16_t)(b0 & b1);
		memcpy(d->w_me + 2 * k, &map, 2);
		/* MDO: 6 bits a byte, packed into 48 bits a half */
		y = _mm_and_si128(_mm_srli_epi16(x, 2), m6);
		y = _mm_or_si128(_mm_and_si128(y, lo6), _mm_srli_epi16(_mm_and_si128(y, hi6), 2));
		y = _mm_or_si128(_mm_and_si128(y, lo12), _mm_srli_epi32(_mm_and_si128(y, hi12), 4));
		y = _mm_or_si128(_mm_and_si128(y, lo24), _mm_srli_epi64(_mm_and_si128(y, hi24), 8));
		_mm_storel_epi64((__m128i *)(d->w_mdo + 12 * k), y);
		_mm_storel_epi64((__m128i *)(d->w_mdo + 12 * k + 6), _mm_unpackhi_epi64(y, y));
	}
	d->win_len = len;
}
#else
static void dq_window(struct nexus_decoder *d, const uint8_t *p, size_t len)
{
	size_t w;
	uint64_t x;

	for (w = 0; w < len / 8; w++) {
		x = load64(p + 8 * w);
		store64(d->w_mdo + 6 * w, mdo48(x));	/* 6 bytes, and 2 the next store overwrites */
		d->w_fe[w] = (uint8_t)gather8((x | x >> 1) & ONES);
		d->w_me[w] = (uint8_t)gather8(x & x >> 1 & ONES);
	}
	d->win_len = len;
}
#endif

/* 57 MDO bits of the window from bit @pos on */
static inline uint64_t win_bits(const struct nexus_decoder *d, unsigned int pos)
{
	return load64(d->w_mdo + pos / 8) >> (pos % 8);
}

/* 16 bits of @map from bit @k */
static inline unsigned int win_map16(const uint8_t *map, unsigned int k)
{
	return (unsigned int)(load64(map + k / 8) >> (k % 8)) & 0xffff;
}

#define DQ_MIN_BYTES		3	/* TCODE, DQTAG, DQDATA */

#define DQ_SHAPE_OK	(1u << 31)
#define DQ_SHAPE_TS	(1u << 30)

static void dq_shapes(struct nexus_decoder *d)
{
	const unsigned int tag_pos = NEXUS_TCODE_BITS + d->cfg.srcbits;
	unsigned int ends, n, k1, k2, e;

	for (ends = 1; ends < ARRAY_SIZE(d->dq_shape); ends++) {
		n = 32 - __builtin_clz(ends);	/* the last byte ends the message */
		if (ends & ((1u << tag_pos / NEXUS_MDO_BITS) - 1))
			continue;		/* not a possible index */
		e = ends;
		k1 = __builtin_ctz(e);
		e &= e - 1;
		if (!e)
			continue;		/* DQTAG ends the message */
		k2 = __builtin_ctz(e);
		e &= e - 1;
		if (e & (e - 1))
			continue;		/* more than a timestamp after DQDATA */
		d->dq_shape[ends] = DQ_SHAPE_OK | (e ? DQ_SHAPE_TS : 0) |
				    (NEXUS_MDO_BITS * (k1 + 1) - tag_pos) |
				    NEXUS_MDO_BITS * (k2 - k1) << 8 |
				    NEXUS_MDO_BITS * (n - 1 - k2) << 16;
	}
}

/*
 * Batch mode: the Data Acquisition Messages from @*pp on, one after the
 * other, that are at most DQ_RUN_MAX_BYTES long and match their layout
 * (nearly all of them in a perf trace), straight into the batch, parsed as
 * nexus_parse() would from a window of MDO bits and MSEO maps. Stops at any
 * other byte or message (for the generic code to take) or at the end of
 * the window, which the room in the batch bounds.
 *
 * The messages are found from the bits of the message end map, so that
 * where the next one starts does not wait for the parsing of this one.
 */
static void nexus_dq_run(struct nexus_decoder *d, const uint8_t **pp, const uint8_t *end)
{
	const unsigned int srcbits = d->cfg.srcbits, tag_pos = NEXUS_TCODE_BITS + srcbits;
	const unsigned int tag_mask = ~0u << tag_pos / NEXUS_MDO_BITS;
	const uint64_t src_mask = (1ULL << srcbits) - 1;
	const uint8_t *p = *pp;
	struct nexus_dq *dq = d->dq_out + d->dq_n;
	size_t len = (size_t)(end - p), room = d->dq_max - d->dq_n;
	unsigned int i = 0, e, n, shape, src, l1, l2, lim, w, nw;
	uint64_t pos = d->pos, v, ts, me;
	bool stopped = true;

	if (d->win_next < DQ_WIN_MIN)
		d->win_next = DQ_WIN_MIN;
	if (len > d->win_next)
		len = d->win_next;
	if (room <= len / DQ_MIN_BYTES)
		len = room > 1 ? DQ_MIN_BYTES * (room - 1) : 0;
	len &= ~(size_t)15;
	if (len < 16)
		return;
	dq_window(d, p, len);
	lim = (unsigned int)len - 16;
	nw = (unsigned int)(len + 63) / 64;
	/* no message ends beyond the window: every one found is in it */
	memset(d->w_me + len / 8, 0, 8 * nw - len / 8);
	for (w = 0; w < nw; w++) {
		for (me = load64(d->w_me + 8 * w); me; me &= me - 1) {
			e = 64 * w + __builtin_ctzll(me);
			n = e - i + 1;
			if (p[i] != DQ_BYTE0 || n > DQ_RUN_MAX_BYTES)
				goto out;
			/* the bytes that end a field, from the one DQTAG starts in to the last */
			shape = d->dq_shape[win_map16(d->w_fe, i) & (unsigned int)mask64[n] &
					    tag_mask];
			if (!shape)
				goto out;
			/* SRC to the end of the message: at most 54 bits */
			v = win_bits(d, NEXUS_MDO_BITS * i + NEXUS_TCODE_BITS);
			src = (unsigned int)(v & src_mask);
			v >>= srcbits;
			l1 = shape & 0xff;
			l2 = shape >> 8 & 0xff;
			dq->offset = pos + i;
			dq->src = (uint16_t)src;
			dq->tag = (uint32_t)(v & mask64[l1]);
			v >>= l1;
			dq->data = (uint32_t)(v & mask64[l2]);
			v >>= l2;
			ts = v & mask64[shape >> 16 & 0xff];
			dq->width = (uint8_t)dq_widths[dq->tag % 4];
			if ((shape & DQ_SHAPE_TS) && d->ts_known[src]) {
				d->last_ts[src] ^= ts;
				dq->ts_valid = true;
				dq->timestamp = d->last_ts[src];
			} else {
				dq->ts_valid = false;
				dq->timestamp = 0;
			}
			dq++;
			i = e + 1;
		}
	}
	stopped = false;
out:
	/* a run to the end of the window: the next one may be longer */
	if (stopped && i <= lim)
		d->win_next = DQ_WIN_MIN;
	else if (d->win_next < DQ_WIN)
		d->win_next *= 2;
	d->stats.messages += (size_t)(dq - d->dq_out) - d->dq_n;
	d->dq_n = (size_t)(dq - d->dq_out);
	d->pos = pos + i;
	*pp = p + i;
}

/*
 * The bytes between messages go one at a time through nexus_byte(), and
 * so does a message that does not end in this buffer or is too long; a
 * complete message is parsed where it is, without a copy. In batch mode,
 * nexus_dq_run() takes the Data Acquisition Messages it can; anything
 * else waits for an empty batch (it returns 0 before @end).
 */
static int nexus_loop(struct nexus_decoder *d, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp, *q;
	int ret = 0;

	while (p < end) {
		if (d->dq_out) {
			if (*p == DQ_BYTE0 && !d->sync && !d->len && !d->overlong) {
				nexus_dq_run(d, &p, end);
				if (p == end)
					break;
			}
			if (d->dq_n)
				break;	/* the batch first */
		}
		if (d->sync || d->len || d->overlong || (*p & NEXUS_MSEO_MASK) || !*p) {
			ret = nexus_byte(d, *p++);
			d->pos++;
			if (ret)
				break;
			continue;
		}
		q = end - p >= NEXUS_MAX_MSG_BYTES + 8 ? nexus_msg_end(p) : NULL;
		if (!q) {
			/* near the end of the buffer, or too long */
			ret = nexus_byte(d, *p++);
			d->pos++;
			if (ret)
				break;
			continue;
		}
		d->start = d->pos;
		d->pos += q - p;
		ret = nexus_deliver(d, p, q - p);
		p = q;
		if (ret)
			break;
	}
	*pp = p;
	return ret;
}

int nexus_decode(struct nexus_decoder *d, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return nexus_loop(d, &p, p + len);
}

size_t nexus_decode_dq(struct nexus_decoder *d, const void *buf, size_t len, struct nexus_dq *out,
		       size_t max, size_t *n, int *ret)
{
	const uint8_t *p = buf;

	*n = 0;
	*ret = 0;
	if (!max)
		return 0;
	d->dq_out = out;
	d->dq_max = max;
	d->dq_n = 0;
	*ret = nexus_loop(d, &p, p + len);
	*n = d->dq_n;
	d->dq_out = NULL;
	d->dq_n = d->dq_max = 0;
	return (size_t)(p - (const uint8_t *)buf);
}

void nexus_decode_end(struct nexus_decoder *d)
{
	d->stats.truncated += d->len;
	d->len = 0;
	d->overlong = false;
}

void nexus_decoder_reset(struct nexus_decoder *d, bool resync)
{
	nexus_decode_end(d);
	d->sync = resync;
	memset(d->ts_known, 0, sizeof(d->ts_known));
}

struct nexus_decoder *nexus_decoder_new(const struct nexus_config *cfg, nexus_msg_cb cb,
					void *priv)
{
	struct nexus_decoder *d;

	if (cfg->srcbits > NEXUS_MAX_SRCBITS)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->cfg = *cfg;
	d->cb = cb;
	d->priv = priv;
	d->sync = cfg->resync;
	dq_shapes(d);
	return d;
}

void nexus_parse_as(const struct nexus_msg *m, unsigned int srcbits, struct nexus_msg *out)
{
	uint8_t raw[NEXUS_MAX_MSG_BYTES + 16] = { 0 };

	memset(out, 0, sizeof(*out));
	out->offset = m->offset;
	out->raw = m->raw;
	out->len = m->len;
	if (m->len > NEXUS_MAX_MSG_BYTES || srcbits > NEXUS_MAX_SRCBITS)
		return;
	memcpy(raw, m->raw, m->len);
	nexus_parse(srcbits, raw, out);
}

unsigned int nexus_parse_dq_widths(const struct nexus_msg *m, unsigned int max_srcbits,
				   struct nexus_dq *out)
{
	unsigned int bits, n = m->len, pos, all, ends, k1, k2, ok = 0;
	uint64_t lo, hi, d0, d1, tag;
	struct nexus_msg g;

	if (max_srcbits > NEXUS_MAX_SRCBITS)
		max_srcbits = NEXUS_MAX_SRCBITS;
	if (n > 16 || m->raw[0] != DQ_BYTE0) {
		for (bits = 0; bits <= max_srcbits; bits++) {
			nexus_parse_as(m, bits, &g);
			if (!g.valid || g.tcode != NEXUS_TCODE_DATA_ACQUISITION)
				continue;
			out[bits] = (struct nexus_dq){
				.offset = m->offset, .tag = g.dq.tag, .data = g.dq.data,
				.src = (uint16_t)g.src, .width = (uint8_t)g.dq.width,
			};
			ok |= 1u << bits;
		}
		return ok;
	}
	/*
	 * dq_parse16() under each width: the MSEO and MDO bits are the same
	 * (a callback's message has 16 bytes readable)
	 */
	lo = load64(m->raw);
	hi = load64(m->raw + 8);
	all = (gather8((lo | lo >> 1) & ONES) | gather8((hi | hi >> 1) & ONES) << 8) &
	      ((2u << (n - 1)) - 1);
	d0 = mdo48(lo);
	d1 = mdo48(hi);
	for (bits = 0; bits <= max_srcbits; bits++) {
		pos = NEXUS_TCODE_BITS + bits;
		if (pos / NEXUS_MDO_BITS >= n)
			continue;
		ends = all & (~0u << pos / NEXUS_MDO_BITS);
		k1 = __builtin_ctz(ends);
		ends &= ends - 1;
		if (!ends)
			continue;
		k2 = __builtin_ctz(ends);
		ends &= ends - 1;
		if (ends & (ends - 1))
			continue;
		tag = bits96(d0, d1, pos, NEXUS_MDO_BITS * (k1 + 1) - pos);
		out[bits] = (struct nexus_dq){
			.offset = m->offset, .tag = (uint32_t)tag,
			.data = (uint32_t)bits96(d0, d1, NEXUS_MDO_BITS * (k1 + 1),
						 NEXUS_MDO_BITS * (k2 - k1)),
			.src = (uint16_t)((d0 >> NEXUS_TCODE_BITS) & ((1u << bits) - 1)),
			.width = (uint8_t)dq_widths[tag % 4],
		};
		ok |= 1u << bits;
	}
	return ok;
}

void nexus_decoder_free(struct nexus_decoder *d)
{
	free(d);
}

const struct nexus_stats *nexus_decoder_stats(const struct nexus_decoder *d)
{
	return &d->stats;
}

const char *nexus_tcode_name(unsigned int tcode)
{
	static const char *const names[] = {
		[NEXUS_TCODE_OWNERSHIP] = "OWNERSHIP",
		[NEXUS_TCODE_DIRECT_BRANCH] = "DIRECT_BRANCH",
		[NEXUS_TCODE_INDIRECT_BRANCH] = "INDIRECT_BRANCH",
		[NEXUS_TCODE_DATA_ACQUISITION] = "DATA_ACQ",
		[NEXUS_TCODE_ERROR] = "ERROR",
		[NEXUS_TCODE_SYNC] = "SYNC",
		[NEXUS_TCODE_DIRECT_BRANCH_WS] = "DIRECT_BRANCH_WS",
		[NEXUS_TCODE_INDIRECT_BRANCH_WS] = "INDIRECT_BRANCH_WS",
		[NEXUS_TCODE_RESOURCE_FULL] = "RESOURCE_FULL",
		[NEXUS_TCODE_INDIRECT_HISTORY] = "INDIRECT_HISTORY",
		[NEXUS_TCODE_INDIRECT_HISTORY_WS] = "INDIRECT_HISTORY_WS",
		[NEXUS_TCODE_CORRELATION] = "CORRELATION",
		[NEXUS_TCODE_ICT] = "ICT",
		[NEXUS_TCODE_ICT_WS] = "ICT_WS",
	};

	if (tcode < ARRAY_SIZE(names) && names[tcode])
		return names[tcode];
	return "TCODE";
}

/* One line, e.g. "     24 DATA_ACQ src=1 ch=6 w=32 tag=0x18 data=0x70657266 ts=1234" */
int nexus_format_msg(const struct nexus_msg *m, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

#define OUT(...)							\
	do {								\
		int r = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__); \
		if (r > 0)						\
			n += r;						\
	} while (0)

	OUT("%8" PRIu64 " %s", m->offset, nexus_tcode_name(m->tcode));
	if (!m->known)
		OUT("(%u)", m->tcode);
	OUT(" src=%u", m->src);
	if (m->valid && m->tcode == NEXUS_TCODE_DATA_ACQUISITION) {
		OUT(" ch=%u w=%u tag=0x%" PRIx32 " data=0x%" PRIx32, m->dq.channel, m->dq.width,
		    m->dq.tag, m->dq.data);
	} else if (m->valid && (m->tcode == NEXUS_TCODE_ICT || m->tcode == NEXUS_TCODE_ICT_WS)) {
		OUT(" cksrc=%u ckdf=%u", m->ict.cksrc, m->ict.ckdf);
		for (i = 0; i < m->nfields; i++)
			OUT(" ckdata%u=0x%" PRIx64, i, m->ict.ckdata[i]);
	} else {
		for (i = 0; i < m->nfixed; i++)
			OUT(" f%u=0x%" PRIx32, i, m->fixed[i]);
		for (i = 0; i < m->nfields; i++)
			OUT(" v%u=0x%" PRIx64, i, m->field[i]);
	}
	if (m->has_ts) {
		if (m->ts_valid)
			OUT(" ts=%" PRIu64 "%s", m->timestamp, m->full_ts ? " (full)" : "");
		else
			OUT(" ts=?^0x%" PRIx64, m->ts_field);
	}
	if (!m->valid)
		OUT(" INVALID");
#undef OUT
	return n;
}
