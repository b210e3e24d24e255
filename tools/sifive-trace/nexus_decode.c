// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * nexus_decode - decoder for SiFive Nexus trace messages; see nexus_decode.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <socpmu/sifive_trace_regs.h>

#include "nexus_decode.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct nexus_decoder {
	struct nexus_config cfg;
	nexus_msg_cb cb;
	void *priv;
	struct nexus_stats stats;
	uint64_t pos;			/* stream offset of the next byte fed */
	bool sync;			/* skipping to the end of a message */
	uint8_t msg[NEXUS_MAX_MSG_BYTES + 8];	/* + room for an 8-byte load */
	unsigned int len;		/* bytes of the message being collected */
	bool overlong;			/* ... which is too long: dropped */
	uint64_t start;			/* its stream offset */
	uint64_t last_ts[1u << NEXUS_MAX_SRCBITS];
	bool ts_known[1u << NEXUS_MAX_SRCBITS];
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
 * least 8 bytes can be read from its last byte on (the caller's buffer
 * beyond it, or d->msg).
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

/* Width of an ITC store by its byte offset in the stimulus register */
static const unsigned int dq_widths[4] = { 32, 0, 16, 8 };

static void nexus_parse(struct nexus_decoder *d, struct nexus_msg *m)
{
	struct nexus_bits r = { .b = m->raw, .n = m->len };
	const struct nexus_layout *l;
	uint64_t v = 0, x = load64(m->raw);
	unsigned int i, nvar;

	r.d0 = mdo48(x);
	r.e0 = (x | x >> 1) & ONES;
	if (r.n < 8)
		r.e0 &= (1ULL << 8 * r.n) - 1;

	nexus_fixed(&r, NEXUS_TCODE_BITS, &v);
	m->tcode = v;
	if (d->cfg.srcbits) {
		if (!nexus_fixed(&r, d->cfg.srcbits, &v))
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
	nexus_parse(d, m);
	if (m->valid)
		nexus_timestamp(d, m);
	d->stats.messages++;
	if (!m->valid)
		d->stats.invalid++;
	ret = d->cb ? d->cb(m, d->priv) : 0;

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
 * The bytes between messages go one at a time through nexus_byte(), and
 * so does a message that does not end in this buffer or is too long; a
 * complete message is parsed where it is, without a copy.
 */
int nexus_decode(struct nexus_decoder *d, const void *buf, size_t len)
{
	const uint8_t *p = buf, *end = p + len, *q;
	int ret;

	while (p < end) {
		if (d->sync || d->len || d->overlong || (*p & NEXUS_MSEO_MASK) || !*p) {
			ret = nexus_byte(d, *p++);
			d->pos++;
			if (ret)
				return ret;
			continue;
		}
		q = end - p >= NEXUS_MAX_MSG_BYTES + 8 ? nexus_msg_end(p) : NULL;
		if (!q) {
			/* near the end of the buffer, or too long */
			ret = nexus_byte(d, *p++);
			d->pos++;
			if (ret)
				return ret;
			continue;
		}
		d->start = d->pos;
		d->pos += q - p;
		ret = nexus_deliver(d, p, q - p);
		p = q;
		if (ret)
			return ret;
	}
	return 0;
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
	return d;
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
