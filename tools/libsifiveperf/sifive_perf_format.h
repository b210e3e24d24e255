/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * sifive_perf_format - the trace records of the SiFive perf library: an
 * encoder (what libsifiveperf writes through the ITC stimulus registers) and
 * a decoder (what sifive-perf decode reads back from the Data Acquisition
 * Messages of one ITC channel). Plain C, no system calls: shared by the
 * library, the tool, the host unit test and the benchmarks.
 *
 * The format is the one of the SiFive Trace Performance Library
 * (Documentation/admin-guide/perf/sifive-perf.rst has it in full):
 *
 *   header  32  0x70657266 ('p' 'e' 'r' 'f')
 *            8  count type: 0 raw, 1 delta, 2 delta XOR
 *           32  counter mask (bit n: HPM counter n is recorded)
 *           per counter, lowest bit first:
 *           32  OpenSBI type (0 general, 1 cache, 2 raw)
 *           32  code (types 0, 1) | 2 x 32 event_data low, high (type 2)
 *           32  counter_info (CSR number in 0-11, width - 1 in 12-17)
 *   record   8  record type: 0 function entry, 1 function exit, 2 manual,
 *               3 timer (ISR)
 *           address(es): 2 for entry/exit (the function, then the one
 *               control goes to), 1 otherwise; each a 32-bit write with
 *               bit 0 clear, or the low 32 bits with bit 0 set followed by
 *               the high 32 bits. Delta XOR: the XOR with the previous
 *               address (0 after a header), chained across both addresses.
 *           per counter, lowest bit first: 32 bits, then 16 bits (bits
 *               32-47) only if they are not all zero. Raw: the value;
 *               delta: (value - previous) modulo the counter width; delta
 *               XOR: value ^ previous. After a header, "previous" is 0 for
 *               every counter, so the decoder rebuilds the values as raw.
 *
 * The writer sees the counters as registers of their width (counter_info),
 * so a counter that wraps once between two records still decodes right.
 * Addresses are even (bit 0 is the continuation flag): bit 0 is dropped.
 */
#ifndef SIFIVE_PERF_FORMAT_H
#define SIFIVE_PERF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uapi/socpmu/sifive_itc.h>

#define SPF_MARKER		0x70657266u
#define SPF_MAX_CNTRS		32
#define SPF_VALUE_BITS		48
#define SPF_VALUE_MASK		((1ULL << SPF_VALUE_BITS) - 1)
#define SPF_NR_COUNT_TYPES	3
#define SPF_NR_REC_TYPES	4
#define SPF_NR_CHANNELS		32	/* ITC channels */

enum spf_count {
	SPF_COUNT_RAW = 0,
	SPF_COUNT_DELTA = 1,
	SPF_COUNT_XOR = 2,
};

enum spf_rec {
	SPF_REC_FUNC_ENTER = 0,
	SPF_REC_FUNC_EXIT = 1,
	SPF_REC_MANUAL = 2,
	SPF_REC_ISR = 3,
};

/* counter_info (the low 32 bits of OpenSBI's): CSR 0-11, width - 1 in 12-17 */
#define SPF_INFO(csr, width)	((uint32_t)(csr) | ((uint32_t)(width) - 1) << 12)
#define SPF_INFO_CSR(info)	((info) & 0xfffu)
#define SPF_INFO_WIDTH(info)	((((info) >> 12) & 0x3fu) + 1)

/* How a counter is programmed, as the header has it */
struct spf_ctr_def {
	uint32_t type;		/* OpenSBI type 0, 1 or 2 */
	uint32_t code;		/* types 0 and 1 */
	uint64_t event_data;	/* type 2 */
	uint32_t info;		/* counter_info */
};

/* Value mask of a counter of the width counter_info gives (0: 64 bits) */
uint64_t spf_width_mask(uint32_t info);

/* Most ITC writes a header or a record takes */
#define SPF_HEADER_MAX_WRITES	(3 + 4 * SPF_MAX_CNTRS)
#define SPF_RECORD_MAX_WRITES	(1 + 4 + 2 * SPF_MAX_CNTRS)

/* ---- encoder ---- */

/* What every writer shares: set once */
struct spf_enc_cfg {
	unsigned int channel;		/* ITC channel 0-31 */
	enum spf_count count;
	uint32_t mask;			/* counters recorded */
	unsigned int nctr;		/* bits set in @mask */
	uint8_t idx[SPF_MAX_CNTRS];	/* counter numbers, in mask order */
	struct spf_ctr_def def[SPF_MAX_CNTRS];	/* in mask order */
	uint64_t width_mask[SPF_MAX_CNTRS];	/* in mask order */
};

/* One writer's (thread's) running state */
struct spf_enc_state {
	uint64_t prev[SPF_MAX_CNTRS];
	uint64_t last_addr;
	uint64_t clipped;	/* values that did not fit 48 bits */
};

/*
 * @defs: one per bit of @mask, lowest first. Returns 0, or -1 for a bad
 * channel or count type.
 */
int spf_enc_cfg_init(struct spf_enc_cfg *cfg, unsigned int channel, enum spf_count count,
		     uint32_t mask, const struct spf_ctr_def *defs);

/* The header into @w (SPF_HEADER_MAX_WRITES room); resets @st. Returns the writes. */
unsigned int spf_enc_header(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			    struct sifive_itc_write *w);

/*
 * A record into @w (SPF_RECORD_MAX_WRITES room): @addr2 is used for entry
 * and exit records only; @vals are the counters' current values in mask
 * order (masked to their width by the caller or not: they are masked here).
 * Returns the writes.
 */
unsigned int spf_enc_record(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			    struct sifive_itc_write *w, unsigned int type, uint64_t addr,
			    uint64_t addr2, const uint64_t *vals);

/*
 * The two halves of spf_enc_record(): the record type and address(es),
 * then the counters. The counters' half is also what the kernel writes for
 * SIFIVE_ITC_IOC_RECORD (the same encoding, with its own previous values).
 */
unsigned int spf_enc_record_head(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
				 struct sifive_itc_write *w, unsigned int type, uint64_t addr,
				 uint64_t addr2);
unsigned int spf_enc_counters(const struct spf_enc_cfg *cfg, struct spf_enc_state *st,
			      struct sifive_itc_write *w, const uint64_t *vals);

/* ---- decoder ---- */

/* One Data Acquisition Message, as the Nexus decoder gives it */
struct spf_dq {
	uint64_t offset;	/* stream offset of the message */
	unsigned int src;	/* SRC field (hart behind a funnel) */
	unsigned int channel;
	unsigned int width;	/* 32, 16 or 8 */
	uint32_t value;
	bool ts_valid;
	uint64_t ts;
};

struct spf_header {
	enum spf_count count;
	uint32_t mask;
	unsigned int nctr;
	uint8_t idx[SPF_MAX_CNTRS];		/* counter numbers, in mask order */
	struct spf_ctr_def def[SPF_MAX_CNTRS];	/* in mask order */
	/* where it was found */
	unsigned int stream;	/* headers so far in this key, counting from 0 */
	unsigned int key;	/* 0, or the SRC when splitting by source */
	unsigned int src;
	uint64_t offset;
	bool ts_valid;
	uint64_t ts;
};

struct spf_record {
	unsigned int type;		/* enum spf_rec */
	unsigned int naddr;		/* 1 or 2 */
	uint64_t addr[2];		/* decoded (XOR undone) */
	unsigned int nctr;
	uint8_t idx[SPF_MAX_CNTRS];	/* counter numbers, in mask order */
	uint64_t value[SPF_MAX_CNTRS];	/* rebuilt counter values */
	uint64_t encoded[SPF_MAX_CNTRS];	/* as written: raw, delta or XOR */
	const struct spf_header *hdr;	/* the header in force */
	unsigned int stream;
	unsigned int key;
	unsigned int src;
	uint64_t offset;		/* of the record type message */
	bool ts_valid;
	uint64_t ts;			/* of the record type message */
	uint64_t end_ts;		/* of its last message */
};

struct spf_dec_ops {
	/* Return non-zero to stop: spf_dec_msg() returns it */
	int (*header)(const struct spf_header *h, void *priv);
	int (*record)(const struct spf_record *r, void *priv);
	/* Something that does not fit the format, and what was dropped */
	void (*error)(const char *what, uint64_t offset, void *priv);
};

struct spf_dec_stats {
	uint64_t messages;	/* DQ messages on the channel */
	uint64_t headers;
	uint64_t records;
	uint64_t skipped;	/* messages before a header, or while resyncing */
	uint64_t errors;	/* format violations (each followed by a resync) */
	uint64_t truncated;	/* records cut short (a new header, the end, a loss) */
};

/* A state for every SRC value: SRC fields are at most 8 bits (Nexus) */
#define SPF_DEC_MAX_KEYS	256

struct spf_key_state;

struct spf_decoder {
	unsigned int channel;
	bool by_src;		/* one state per SRC instead of one for the stream */
	struct spf_dec_ops ops;
	void *priv;
	struct spf_dec_stats stats;
	struct spf_key_state *keys[SPF_DEC_MAX_KEYS];
};

/*
 * @by_src: keep a separate state per SRC value (several harts writing into
 * one sink at once, as the vendor library on a funnel); otherwise the
 * messages are one sequence (a libsifiveperf trace file: one thread's
 * stream after the other, each starting with a header).
 */
int spf_dec_init(struct spf_decoder *d, unsigned int channel, bool by_src,
		 const struct spf_dec_ops *ops, void *priv);
/* Messages of other channels are ignored. Returns a callback's non-zero value, or 0. */
int spf_dec_msg(struct spf_decoder *d, const struct spf_dq *m);
/* End of the stream: a complete last record is delivered, a partial one counted */
int spf_dec_end(struct spf_decoder *d);
void spf_dec_free(struct spf_decoder *d);

const char *spf_rec_name(unsigned int type);
const char *spf_count_name(unsigned int count);

#endif /* SIFIVE_PERF_FORMAT_H */
