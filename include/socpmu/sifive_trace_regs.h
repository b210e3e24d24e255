/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * SiFive trace encoder (TE), trace funnel (TF) and sink register map, and
 * the Nexus message encoding they produce.
 *
 * Shared by the sifive_trace driver, the simulator model and the userspace
 * decoder (tools/sifive-trace), so it only uses plain C.
 *
 * Every hart has a TE block of SIFIVE_TE_SPAN bytes (blocks are 0x1000 apart
 * in the vendor's memory map); a funnel block has the same control, sink and
 * timestamp registers at the same offsets. A block's sinks (SRAM, system
 * memory through the SBA bus) are part of the block: te_impl / tf_impl say
 * which exist, the sink field of the control register selects one.
 */
#ifndef _SOCPMU_SIFIVE_TRACE_REGS_H
#define _SOCPMU_SIFIVE_TRACE_REGS_H

#define SIFIVE_TE_SPAN			0x1000

/* Registers common to TE and funnel blocks */
#define SIFIVE_TRACE_CONTROL		0x000	/* te_control / tf_control */
#define SIFIVE_TRACE_IMPL		0x004	/* te_impl / tf_impl (read-only) */
#define SIFIVE_TRACE_SINK_BASE		0x010	/* SBA sink: first byte address */
#define SIFIVE_TRACE_SINK_BASE_HIGH	0x014	/* SBA sink: address bits 63:32 */
#define SIFIVE_TRACE_SINK_LIMIT		0x018	/* SBA sink: last byte address, bits 31:0 */
#define SIFIVE_TRACE_SINK_WP		0x01c	/* write pointer; bit 0: wrapped */
#define SIFIVE_TRACE_SINK_RP		0x020	/* SRAM read pointer */
#define SIFIVE_TRACE_SINK_DATA		0x024	/* SRAM word at RP; reading advances RP */
#define SIFIVE_TS_CONTROL		0x040
#define SIFIVE_TS_LOWER			0x044
#define SIFIVE_TS_UPPER			0x048

/* TE only */
#define SIFIVE_ITC_TRACEENABLE		0x060	/* one bit per ITC channel */
#define SIFIVE_ITC_TRIGENABLE		0x064
#define SIFIVE_ITC_STIMULUS(ch)		(0x080 + 4 * (ch))
#define SIFIVE_ITC_NR_CHANNELS		32
/* Byte offset of a write of the given width within a stimulus register */
#define SIFIVE_ITC_OFFSET(width)	((width) == 32 ? 0 : (width) == 16 ? 2 : 3)
/* DQTAG of a Data Acquisition Message: 4 * channel + byte offset */
#define SIFIVE_ITC_TAG(ch, width)	(4u * (ch) + SIFIVE_ITC_OFFSET(width))

/* te_control / tf_control */
#define SIFIVE_CTRL_ACTIVE		(1u << 0)	/* 0 resets the block */
#define SIFIVE_CTRL_ENABLE		(1u << 1)	/* 1 -> 0 flushes */
#define SIFIVE_CTRL_TRACING		(1u << 2)	/* TE: trace on */
#define SIFIVE_CTRL_EMPTY		(1u << 3)	/* read-only: nothing in flight */
#define SIFIVE_CTRL_INSTRUCTION_SHIFT	4		/* TE: 3 bits, 0 = none */
#define SIFIVE_CTRL_INSTRUMENT_SHIFT	7		/* TE: 2 bits */
#define SIFIVE_CTRL_INSTRUMENT_MASK	(3u << 7)
#define SIFIVE_CTRL_INSTRUMENT_ITC	(1u << 7)	/* ITC messages on */
#define SIFIVE_CTRL_STOP_ON_WRAP	(1u << 14)
#define SIFIVE_CTRL_INHIBIT_SRC		(1u << 15)	/* TE: no SRC field */
#define SIFIVE_CTRL_SLICE_FORMAT_SHIFT	24		/* read-only */
#define SIFIVE_CTRL_SLICE_6MDO_2MSEO	(1u << 24)
#define SIFIVE_CTRL_SINK_ERROR		(1u << 27)	/* write 1 to clear */
#define SIFIVE_CTRL_SINK_SHIFT		28
#define SIFIVE_CTRL_SINK_MASK		(0xfu << 28)

/* Sink codes of the control register's sink field (WARL) */
#define SIFIVE_SINK_SRAM		4
#define SIFIVE_SINK_ATB			5
#define SIFIVE_SINK_PIB			6
#define SIFIVE_SINK_SBA			7
#define SIFIVE_SINK_FUNNEL		8

/* te_impl / tf_impl */
#define SIFIVE_IMPL_VERSION_MASK	0xfu
#define SIFIVE_IMPL_HAS_SINK(code)	(1u << (code))	/* bit 4 SRAM ... bit 8 funnel */
#define SIFIVE_IMPL_SRCID_SHIFT		20		/* TE: this TE's SRC value */
#define SIFIVE_IMPL_SRCID_MASK		0xfu
#define SIFIVE_IMPL_NSRCBITS_SHIFT	24		/* TE: width of SRC fields */
#define SIFIVE_IMPL_NSRCBITS_MASK	0x7u
#define SIFIVE_IMPL_HARTID_SHIFT	28		/* TE: the hart it traces */
#define SIFIVE_IMPL_HARTID_MASK		0xfu

/* ts_control */
#define SIFIVE_TS_ACTIVE		(1u << 0)	/* 0 resets the unit */
#define SIFIVE_TS_COUNT			(1u << 1)	/* counter runs */
#define SIFIVE_TS_RESET			(1u << 2)	/* write 1: counter to 0 */
#define SIFIVE_TS_TYPE_SHIFT		4		/* read-only, 3 bits */
#define SIFIVE_TS_TYPE_MASK		(7u << 4)
#define SIFIVE_TS_TYPE_NONE		0
#define SIFIVE_TS_TYPE_EXTERNAL		1
#define SIFIVE_TS_TYPE_BUS		2		/* internal, bus clock */
#define SIFIVE_TS_TYPE_CORE		3		/* internal, core clock */
#define SIFIVE_TS_TYPE_SLAVE		4		/* follows the funnel's unit */
#define SIFIVE_TS_PRESCALE_SHIFT	8		/* 2 bits: divide by 4^n */
#define SIFIVE_TS_PRESCALE_MASK		(3u << 8)
#define SIFIVE_TS_ENABLE		(1u << 15)	/* timestamps in messages */
#define SIFIVE_TS_INSTRUMENTATION	(1u << 18)	/* ... including ITC messages */
#define SIFIVE_TS_WIDTH_SHIFT		24		/* read-only: counter bits */

/* te_sink_wp */
#define SIFIVE_WP_WRAPPED		(1u << 0)

/*
 * Nexus messages: a stream of bytes, each MDO[7:2] (6 data bits) and
 * MSEO[1:0]. Fields are packed LSB first into the MDO bits; fixed-size fields
 * (TCODE, SRC, CKSRC, CKDF, ...) may share a byte with the next field, a
 * variable-size field ends with MSEO 01 (end of field) or 11 (end of message)
 * on its last byte.
 */
#define NEXUS_MDO_BITS			6
#define NEXUS_MSEO_MASK			0x3u
#define NEXUS_MSEO_NORMAL		0x0u
#define NEXUS_MSEO_END_FIELD		0x1u
#define NEXUS_MSEO_END_MSG		0x3u
#define NEXUS_TCODE_BITS		6

#define NEXUS_TCODE_OWNERSHIP		2
#define NEXUS_TCODE_DIRECT_BRANCH	3
#define NEXUS_TCODE_INDIRECT_BRANCH	4
#define NEXUS_TCODE_DATA_ACQUISITION	7	/* SRC, DQTAG, DQDATA, TIMESTAMP */
#define NEXUS_TCODE_ERROR		8	/* SRC, ETYPE:4, PAD, TIMESTAMP */
#define NEXUS_TCODE_SYNC		9	/* SRC, SYNC:4, ICNT, F-ADDR, TIMESTAMP */
#define NEXUS_TCODE_DIRECT_BRANCH_WS	11
#define NEXUS_TCODE_INDIRECT_BRANCH_WS	12
#define NEXUS_TCODE_RESOURCE_FULL	27
#define NEXUS_TCODE_INDIRECT_HISTORY	28
#define NEXUS_TCODE_INDIRECT_HISTORY_WS	29
#define NEXUS_TCODE_CORRELATION		33
#define NEXUS_TCODE_ICT			34	/* SRC, CKSRC:4, CKDF:2, CKDATA.., TIMESTAMP */
#define NEXUS_TCODE_ICT_WS		35	/* the same, with sync: full TIMESTAMP */

/* In-circuit trace: CKSRC 0 = control, CKDF 0 = one CKDATA, the control code */
#define NEXUS_ICT_CKSRC_BITS		4
#define NEXUS_ICT_CKDF_BITS		2
#define NEXUS_ICT_CKSRC_CONTROL		0
#define NEXUS_ICT_CONTROL_TRACE_ON	2
#define NEXUS_ICT_CONTROL_TRACE_OFF	3

/*
 * Longest Data Acquisition Message: TCODE (1 byte), SRC (<= 4 bits) with
 * DQTAG (<= 7 bits, 2 bytes), DQDATA (32 bits, 6 bytes), TIMESTAMP (XOR of two
 * 64-bit values, 11 bytes).
 */
#define NEXUS_DQ_MAX_BYTES		20

#endif /* _SOCPMU_SIFIVE_TRACE_REGS_H */
