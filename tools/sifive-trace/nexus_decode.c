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
	uint8_t msg[NEXUS_MAX_MSG_BYTES];
	unsigned int len;		/* bytes of the message being collected */
	bool overlong;			/* ... which is too long: dropped */
	uint64_t start;			/* its stream offset */
	uint64_t last_ts[1u << NEXUS_MAX_SRCBITS];
	bool ts_known[1u << NEXUS_MAX_SRCBITS];
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
	unsigned int bit;	/* data bit position: in byte bit / 6, at bit % 6 */
	bool eom;		/* the last field read ended the message */
};

static bool nexus_fixed(struct nexus_bits *r, unsigned int width, uint64_t *val)
{
	unsigned int i, byte, b;

	*val = 0;
	for (i = 0; i < width; i++, r->bit++) {
		byte = r->bit / NEXUS_MDO_BITS;
		b = r->bit % NEXUS_MDO_BITS;
		if (byte >= r->n)
			return false;
		*val |= (uint64_t)((r->b[byte] >> (2 + b)) & 1) << i;
	}
	return true;
}

/* A variable field: from the current bit to the byte whose MSEO ends it */
static bool nexus_var(struct nexus_bits *r, uint64_t *val)
{
	unsigned int byte = r->bit / NEXUS_MDO_BITS, b = r->bit % NEXUS_MDO_BITS, w = 0;
	unsigned int mseo;

	*val = 0;
	if (r->eom)
		return false;
	for (; byte < r->n; byte++, b = 0) {
		uint64_t chunk = r->b[byte] >> (2 + b);

		if (w < 64)
			*val |= chunk << w;
		w += NEXUS_MDO_BITS - b;
		mseo = r->b[byte] & NEXUS_MSEO_MASK;
		if (mseo != NEXUS_MSEO_NORMAL) {
			r->bit = (byte + 1) * NEXUS_MDO_BITS;
			r->eom = mseo == NEXUS_MSEO_END_MSG;
			return true;
		}
	}
	return false;
}

/* Width of an ITC store by its byte offset in the stimulus register */
static const unsigned int dq_widths[4] = { 32, 0, 16, 8 };

static void nexus_parse(struct nexus_decoder *d, struct nexus_msg *m)
{
	struct nexus_bits r = { .b = m->raw, .n = m->len };
	const struct nexus_layout *l;
	uint64_t v;
	unsigned int i, nvar;

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

static int nexus_deliver(struct nexus_decoder *d)
{
	struct nexus_msg m;

	memset(&m, 0, sizeof(m));
	m.offset = d->start;
	m.raw = d->msg;
	m.len = d->len;
	nexus_parse(d, &m);
	if (m.valid)
		nexus_timestamp(d, &m);
	d->stats.messages++;
	if (!m.valid)
		d->stats.invalid++;
	return d->cb ? d->cb(&m, d->priv) : 0;
}

int nexus_decode(struct nexus_decoder *d, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	unsigned int mseo;
	size_t i;
	int ret;

	for (i = 0; i < len; i++, d->pos++) {
		uint8_t b = p[i];

		mseo = b & NEXUS_MSEO_MASK;
		if (d->sync) {
			d->stats.skipped++;
			d->sync = mseo != NEXUS_MSEO_END_MSG;
			continue;
		}
		if (!d->len && !d->overlong) {
			if (!b) {
				d->stats.padding++;
				continue;
			}
			if (mseo != NEXUS_MSEO_NORMAL) {
				/* the end of a field: we are inside a message */
				d->stats.skipped++;
				d->sync = mseo != NEXUS_MSEO_END_MSG;
				continue;
			}
			d->start = d->pos;
		}
		if (d->len < NEXUS_MAX_MSG_BYTES)
			d->msg[d->len++] = b;
		else
			d->overlong = true;
		if (mseo != NEXUS_MSEO_END_MSG)
			continue;
		if (d->overlong) {
			d->stats.skipped += d->len + 1;
			d->stats.invalid++;
			d->len = 0;
			d->overlong = false;
			continue;
		}
		ret = nexus_deliver(d);
		d->len = 0;
		if (ret) {
			d->pos++;
			return ret;
		}
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
