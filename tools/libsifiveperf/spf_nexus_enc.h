/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * A small Nexus message encoder (the bytes a SiFive trace sink holds), for
 * the host unit test and the benchmarks: what the trace encoder makes of
 * ITC stores, without the hardware. Messages:
 *   - in-circuit trace with sync (TCODE 35, CKSRC 0, CKDF 0, CKDATA 2 =
 *     trace on) with the full timestamp: what starts every trace;
 *   - data acquisition (TCODE 7): SRC, DQTAG = 4 * channel + byte offset,
 *     DQDATA, timestamp XOR the source's previous one.
 * Each byte is MDO[7:2] | MSEO[1:0]; fields are packed LSB first; a
 * variable field ends with MSEO 01, the message with MSEO 11.
 */
#ifndef SPF_NEXUS_ENC_H
#define SPF_NEXUS_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SPF_NX_MAX_SRC	16

struct spf_nx {
	uint8_t *buf;
	size_t len, cap;
	unsigned int srcbits;
	uint64_t last_ts[SPF_NX_MAX_SRC];
	/* the message being built */
	unsigned int bits;
	uint8_t cur;
	bool oom;
};

static inline void spf_nx_init(struct spf_nx *nx, unsigned int srcbits)
{
	memset(nx, 0, sizeof(*nx));
	nx->srcbits = srcbits;
}

static inline void spf_nx_free(struct spf_nx *nx)
{
	free(nx->buf);
	nx->buf = NULL;
	nx->len = nx->cap = 0;
}

static inline void spf_nx_byte(struct spf_nx *nx, unsigned int mseo)
{
	if (nx->len == nx->cap) {
		size_t cap = nx->cap ? nx->cap * 2 : 4096;
		uint8_t *b = realloc(nx->buf, cap);

		if (!b) {
			nx->oom = true;
			nx->cur = 0;
			nx->bits = 0;
			return;
		}
		nx->buf = b;
		nx->cap = cap;
	}
	nx->buf[nx->len++] = (uint8_t)(nx->cur << 2 | mseo);
	nx->cur = 0;
	nx->bits = 0;
}

static inline void spf_nx_fixed(struct spf_nx *nx, uint64_t v, unsigned int w)
{
	for (; w; w--, v >>= 1) {
		nx->cur |= (uint8_t)((v & 1) << nx->bits);
		if (++nx->bits == 6)
			spf_nx_byte(nx, 0);
	}
}

static inline void spf_nx_var(struct spf_nx *nx, uint64_t v, bool last)
{
	do {
		unsigned int take = 6 - nx->bits;

		nx->cur |= (uint8_t)((v & ((1u << take) - 1)) << nx->bits);
		v >>= take;
		spf_nx_byte(nx, v ? 0 : last ? 3 : 1);
	} while (v);
}

/* Trace on, with the full timestamp @ts of source @src */
static inline void spf_nx_sync(struct spf_nx *nx, unsigned int src, uint64_t ts)
{
	spf_nx_fixed(nx, 35, 6);
	spf_nx_fixed(nx, src, nx->srcbits);
	spf_nx_fixed(nx, 0, 4);
	spf_nx_fixed(nx, 0, 2);
	spf_nx_var(nx, 2, false);
	spf_nx_var(nx, ts, true);
	nx->last_ts[src % SPF_NX_MAX_SRC] = ts;
}

/* An ITC store of @width bits on @channel by source @src at time @ts */
static inline void spf_nx_dq(struct spf_nx *nx, unsigned int src, unsigned int channel,
			     unsigned int width, uint32_t value, uint64_t ts)
{
	unsigned int off = width == 32 ? 0 : width == 16 ? 2 : 3;

	spf_nx_fixed(nx, 7, 6);
	spf_nx_fixed(nx, src, nx->srcbits);
	spf_nx_var(nx, 4 * channel + off, false);
	spf_nx_var(nx, value, false);
	spf_nx_var(nx, ts ^ nx->last_ts[src % SPF_NX_MAX_SRC], true);
	nx->last_ts[src % SPF_NX_MAX_SRC] = ts;
}

#endif /* SPF_NEXUS_ENC_H */
