/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The records of the simulator's debugfs file "itc_log" (socpmu_sim, trace
 * model; Documentation/sim.rst): one per store to an ITC stimulus register,
 * in the order the model took them, in the CPU's byte order. Shared by the
 * model and the selftests, so it only uses plain C.
 */
#ifndef _SOCPMU_SIM_ITC_LOG_H
#define _SOCPMU_SIM_ITC_LOG_H

/*
 * The store became a Data Acquisition Message that was handed to a running
 * sink (which may still cut it short, if it stops on wrap inside it)
 */
#define SOCPMU_SIM_ITC_TRACED	0x1

/**
 * struct socpmu_sim_itc_rec - one store of a hart to an ITC stimulus register
 * @value: the value stored (@width bits)
 * @hart: the hart, that is the trace encoder, that took it
 * @channel: the stimulus register, 0-31
 * @width: 8, 16 or 32
 * @flags: SOCPMU_SIM_ITC_TRACED, or 0 when the encoder dropped it (tracing
 *	   or the channel off, no running sink)
 */
struct socpmu_sim_itc_rec {
	unsigned int value;
	unsigned char hart;
	unsigned char channel;
	unsigned char width;
	unsigned char flags;
};

/* The most records "itc_log" takes (8 MiB) */
#define SOCPMU_SIM_ITC_LOG_MAX	0x100000u

#endif /* _SOCPMU_SIM_ITC_LOG_H */
