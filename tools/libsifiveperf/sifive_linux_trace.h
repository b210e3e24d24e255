/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * sifive_linux_trace.h - the SiFive trace encoder and funnel register
 * blocks, as the vendor library's programs name them.
 *
 * Programs written for the vendor library define the objects
 *
 *	struct TraceRegMemMap volatile *tmm[];	(one encoder per hart)
 *	struct TfTraceRegMemMap volatile *fmm;	(the funnel, or NULL)
 *
 * with the blocks' physical addresses. libsifiveperf never maps the blocks
 * (the sifive_trace driver owns them and finds them in the device tree), so
 * these definitions are accepted and ignored. The register layout below is
 * the one of include/socpmu/sifive_trace_regs.h.
 */
#ifndef SIFIVE_LINUX_TRACE_H_
#define SIFIVE_LINUX_TRACE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* te_control fields */
#define TE_INSTRUCTION_NONE		0
#define TE_INSTRUMENTATION_NONE		0
#define TE_INSTRUMENTATION_ITC		1
#define TE_SINK_DEFAULT			0
#define TE_SINK_SRAM			4
#define TE_SINK_ATB			5
#define TE_SINK_PIB			6
#define TE_SINK_SBA			7
#define TE_SINK_FUNNEL			8

/* An ITC stimulus register: 32-bit writes at +0, 16-bit at +2, 8-bit at +3 */
union ItcStimulusRegister {
	uint32_t reg_size_32;
	struct {
		uint16_t reserved16;
		uint16_t reg_size_16;
	};
	struct {
		uint8_t reserved8[3];
		uint8_t reg_size_8;
	};
};

/* A trace encoder (one per hart, 0x1000 apart) */
struct TraceRegMemMap {
	uint32_t te_control_register;		/* 0x00 */
	uint32_t te_impl_register;		/* 0x04 */
	uint32_t reserved_08;
	uint32_t ev_control_register;		/* 0x0c */
	uint32_t te_sinkbase_register;		/* 0x10 */
	uint32_t te_sinkbasehigh_register;	/* 0x14 */
	uint32_t te_sinklimit_register;		/* 0x18 */
	uint32_t te_sink_wp_register;		/* 0x1c */
	uint32_t te_sink_rp_register;		/* 0x20 */
	uint32_t te_sink_data_register;		/* 0x24 */
	uint32_t reserved_28[2];
	uint32_t te_fifo_register;		/* 0x30 */
	uint32_t te_btmcount_register;		/* 0x34 */
	uint32_t te_wordcount_register;		/* 0x38 */
	uint32_t reserved_3c;
	uint32_t ts_control_register;		/* 0x40 */
	uint32_t ts_lower_register;		/* 0x44 */
	uint32_t ts_upper_register;		/* 0x48 */
	uint32_t reserved_4c;
	uint32_t xti_control_register;		/* 0x50 */
	uint32_t xto_control_register;		/* 0x54 */
	uint32_t wp_control_register;		/* 0x58 */
	uint32_t reserved_5c;
	uint32_t itc_traceenable_register;	/* 0x60 */
	uint32_t itc_trigenable_register;	/* 0x64 */
	uint32_t reserved_68[6];
	union ItcStimulusRegister itc_stimulus_register[32];	/* 0x80 */
	uint32_t reserved_100[960];
};

/* A trace funnel: the control, sink and timestamp registers of an encoder */
struct TfTraceRegMemMap {
	uint32_t tf_control_register;		/* 0x00 */
	uint32_t tf_impl_register;		/* 0x04 */
	uint32_t reserved_08[2];
	uint32_t tf_sinkbase_register;		/* 0x10 */
	uint32_t tf_sinkbasehigh_register;	/* 0x14 */
	uint32_t tf_sinklimit_register;		/* 0x18 */
	uint32_t tf_sink_wp_register;		/* 0x1c */
	uint32_t tf_sink_rp_register;		/* 0x20 */
	uint32_t tf_sink_data_register;		/* 0x24 */
	uint32_t reserved_28[6];
	uint32_t ts_control_register;		/* 0x40 */
	uint32_t ts_lower_register;		/* 0x44 */
	uint32_t ts_upper_register;		/* 0x48 */
	uint32_t reserved_4c[1005];
};

#ifndef __cplusplus
_Static_assert(sizeof(struct TraceRegMemMap) == 0x1000, "encoder block is 4 KiB");
_Static_assert(sizeof(struct TfTraceRegMemMap) == 0x1000, "funnel block is 4 KiB");
#endif

#ifdef __cplusplus
}
#endif

#endif /* SIFIVE_LINUX_TRACE_H_ */
