/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * spf_decode - a trace file (raw sink bytes) through the in-tree Nexus
 * decoder (tools/sifive-trace/nexus_decode.h) and the perf record decoder
 * (sifive_perf_format.h). Used by sifive-perf decode, the host unit test
 * and the benchmark; not part of the library.
 */
#ifndef SPF_DECODE_H
#define SPF_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sifive-trace/nexus_decode.h"
#include "sifive_perf_format.h"

struct spf_decode_result {
	struct nexus_stats nexus;	/* the Nexus layer */
	struct spf_dec_stats perf;	/* the perf records */
	uint64_t other_dq;		/* data acquisition messages of other channels */
	uint64_t other_msgs;		/* other messages (sync, trace on/off, ...) */
	int stopped;			/* a callback's non-zero return value */
};

/*
 * Decode @len bytes. @srcbits: width of the SRC field (0 without a funnel).
 * @by_src: see spf_dec_init(). Returns 0, or -1 (out of memory, bad
 * arguments).
 */
int spf_decode_buffer(const void *buf, size_t len, unsigned int srcbits, unsigned int channel,
		      bool by_src, const struct spf_dec_ops *ops, void *priv,
		      struct spf_decode_result *res);

/*
 * The SRC width that makes most sense of the start of @buf: the one under
 * which the most perf headers and records decode with the fewest errors.
 */
unsigned int spf_guess_srcbits(const void *buf, size_t len, unsigned int channel);

#endif /* SPF_DECODE_H */
