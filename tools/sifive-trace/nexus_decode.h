/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * nexus_decode - a decoder for the Nexus trace messages of SiFive trace
 * encoders (the bytes a sink holds: a .rtd file, or a perf AUX buffer of the
 * sifive_trace PMU).
 *
 * Feed bytes in any pieces; the callback gets each complete message with its
 * TCODE, SRC, fields and timestamp:
 *
 *	struct nexus_config cfg = { .srcbits = 1 };
 *	struct nexus_decoder *d = nexus_decoder_new(&cfg, print_msg, NULL);
 *	while ((n = read(fd, buf, sizeof(buf))) > 0)
 *		nexus_decode(d, buf, n);
 *	nexus_decode_end(d);
 *	nexus_decoder_free(d);
 *
 * Stream rules (as the SiFive decoder reads them): every byte is MDO[7:2]
 * and MSEO[1:0]; MSEO 11 ends a message, 01 ends a variable-size field;
 * fields are packed LSB first. Zero bytes between messages are flush padding
 * and are skipped, as is anything that cannot start a message.
 *
 * Timestamps: the messages with sync (TCODE 9, 11, 12, 29, 32, 35) carry a
 * full timestamp, every other one the XOR with the previous timestamp of the
 * same source. A message's @timestamp is valid once its source has had a
 * full one.
 *
 * Known layouts (after TCODE and SRC): 2 ownership (PROCESS), 7 data
 * acquisition (DQTAG, DQDATA), 8 error (ETYPE:4, PAD), 9 sync (SYNC:4, ICNT,
 * F-ADDR), 34/35 in-circuit trace (CKSRC:4, CKDF:2, CKDATA x CKDF+1), each
 * with an optional timestamp. Other TCODEs are reported with their variable
 * fields as found and no timestamp (@known false).
 */
#ifndef NEXUS_DECODE_H
#define NEXUS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NEXUS_MAX_SRCBITS	8
#define NEXUS_MAX_FIELDS	8
#define NEXUS_MAX_MSG_BYTES	64

struct nexus_config {
	unsigned int srcbits;	/* width of the SRC field: 0 without a funnel */
	bool resync;		/* the stream may start inside a message */
};

struct nexus_msg {
	uint64_t offset;	/* stream offset of its first byte */
	const uint8_t *raw;	/* its bytes, valid during the callback */
	unsigned int len;
	unsigned int tcode;
	unsigned int src;	/* 0 when srcbits is 0 */
	bool known;		/* TCODE layout known: fields and timestamp are exact */
	bool valid;		/* the message matched its layout */
	unsigned int nfixed;	/* fixed-size fields after SRC */
	uint32_t fixed[2];
	unsigned int nfields;	/* variable-size fields, the timestamp excluded */
	uint64_t field[NEXUS_MAX_FIELDS];
	bool has_ts;		/* it carries a timestamp field */
	bool full_ts;		/* ... a full one (a message with sync) */
	uint64_t ts_field;	/* the field as encoded */
	bool ts_valid;		/* @timestamp is the absolute time */
	uint64_t timestamp;
	/* TCODE 7 */
	struct {
		uint32_t tag;		/* DQTAG */
		uint32_t data;		/* DQDATA */
		unsigned int channel;	/* ITC channel: tag / 4 */
		unsigned int width;	/* 32, 16 or 8 bits (by tag % 4), 0 if unknown */
	} dq;
	/* TCODE 34, 35 */
	struct {
		unsigned int cksrc;
		unsigned int ckdf;
		uint64_t ckdata[2];
	} ict;
};

struct nexus_stats {
	uint64_t messages;	/* complete messages delivered */
	uint64_t invalid;	/* of which not matching their layout */
	uint64_t padding;	/* zero bytes skipped between messages */
	uint64_t skipped;	/* other bytes skipped to find a message start */
	uint64_t truncated;	/* bytes of an unfinished last message */
};

/* Return non-zero to stop decoding; nexus_decode() returns that value */
typedef int (*nexus_msg_cb)(const struct nexus_msg *msg, void *priv);

/*
 * A Data Acquisition Message that matched its layout, in short: what a
 * reader of ITC writes needs (see nexus_decode_dq()).
 */
struct nexus_dq {
	uint64_t offset;	/* stream offset of its first byte */
	uint64_t timestamp;	/* valid if @ts_valid */
	uint32_t tag;		/* DQTAG: the ITC channel is tag / 4 */
	uint32_t data;		/* DQDATA */
	uint16_t src;
	uint8_t width;		/* 32, 16 or 8 bits (by tag % 4), 0 if unknown */
	bool ts_valid;
};

struct nexus_decoder;

struct nexus_decoder *nexus_decoder_new(const struct nexus_config *cfg, nexus_msg_cb cb,
					void *priv);
void nexus_decoder_free(struct nexus_decoder *d);
/*
 * Batch mode, for readers of ITC writes: decode from @buf as nexus_decode()
 * does, but put the valid Data Acquisition Messages into @out (room for
 * @max) instead of handing them to the callback; the other messages go to
 * the callback as usual. The same messages, timestamps and stats, in stream
 * order: it returns when @out is full, at the end of @buf, or when the
 * callback is due while @out holds messages (and after about 1 KiB), so
 * the caller takes @out's messages, then calls again with the rest.
 * Returns the bytes of @buf consumed (some, unless @len is 0); *@n: the
 * messages in @out; *@ret: the callback's non-zero return value, or 0.
 *
 * The common message of a perf trace takes a fast path: the MSEO and MDO
 * bits of each byte are unpacked once, and a message is parsed from them
 * with a few shifts, without struct nexus_msg.
 */
size_t nexus_decode_dq(struct nexus_decoder *d, const void *buf, size_t len, struct nexus_dq *out,
		       size_t max, size_t *n, int *ret);
int nexus_decode(struct nexus_decoder *d, const void *buf, size_t len);
void nexus_decode_end(struct nexus_decoder *d);
void nexus_decoder_reset(struct nexus_decoder *d, bool resync);
const struct nexus_stats *nexus_decoder_stats(const struct nexus_decoder *d);

/*
 * @m (a message a callback got, during the callback) parsed again as if
 * the SRC field were @srcbits wide: layout, fields, validity, without
 * timestamps (@ts_valid false). To compare SRC widths on the same messages
 * in one pass.
 */
void nexus_parse_as(const struct nexus_msg *m, unsigned int srcbits, struct nexus_msg *out);
/*
 * The same for a Data Acquisition Message (TCODE 7) under every SRC width
 * from 0 to @max_srcbits at once, in short: bit k of the result set (and
 * @out[k] filled, without a timestamp) if it matches the layout with a
 * SRC field of k bits.
 */
unsigned int nexus_parse_dq_widths(const struct nexus_msg *m, unsigned int max_srcbits,
				   struct nexus_dq *out);

const char *nexus_tcode_name(unsigned int tcode);
int nexus_format_msg(const struct nexus_msg *msg, char *buf, size_t size);

#endif /* NEXUS_DECODE_H */
