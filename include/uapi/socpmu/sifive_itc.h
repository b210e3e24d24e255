/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note OR MIT */
/*
 * /dev/sifive-itc: write SiFive ITC (instrumentation trace) messages.
 *
 * Each entry is one store to ITC stimulus register @channel of the trace
 * encoder of the hart the caller runs on: 32 bits at offset 0, 16 bits at
 * offset 2 or 8 bits at offset 3. While a sifive_trace perf event traces
 * that hart and enables the channel, the store becomes a Nexus Data
 * Acquisition Message (DQTAG = 4 * channel + offset, DQDATA = @value).
 *
 * A batch is emitted in order, on one hart, by one ioctl or one write():
 *  - ioctl(fd, SIFIVE_ITC_IOC_WRITE, &batch), or
 *  - write(fd, entries, n * sizeof(struct sifive_itc_write)), which returns
 *    the bytes consumed.
 * The whole batch is checked before anything is written: a bad entry
 * (channel > 31, width not 8/16/32, @value wider than @width, @reserved not
 * zero) fails the call with EINVAL and writes nothing. ENODEV: the caller's
 * CPU has no trace encoder. Stores to a hart that no sifive_trace event
 * traces are skipped (the encoder would drop them); stores that were made
 * can still be lost if the trace does not fit, which the perf AUX record
 * says (PERF_AUX_FLAG_TRUNCATED / _PARTIAL).
 *
 * Opening the device needs the same permission as a perf event that may
 * trace the kernel (perf_event_paranoid <= 1, or CAP_PERFMON), since the
 * messages land in whatever trace runs on the hart.
 */
#ifndef _UAPI_SOCPMU_SIFIVE_ITC_H
#define _UAPI_SOCPMU_SIFIVE_ITC_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SIFIVE_ITC_DEVICE	"/dev/sifive-itc"
#define SIFIVE_ITC_MAX_BATCH	4096	/* entries per call */

struct sifive_itc_write {
	__u8 channel;		/* 0..31 */
	__u8 width;		/* 8, 16 or 32 */
	__u16 reserved;		/* must be 0 */
	__u32 value;
};

struct sifive_itc_batch {
	__u64 entries;		/* user pointer to struct sifive_itc_write[count] */
	__u32 count;		/* 1..SIFIVE_ITC_MAX_BATCH */
	__u32 flags;		/* must be 0 */
	__u32 traced;		/* out: entries stored while an event traced the hart */
	__s32 cpu;		/* out: the CPU (hart) that wrote them */
};

#define SIFIVE_ITC_IOC_MAGIC	0xb7
#define SIFIVE_ITC_IOC_WRITE	_IOWR(SIFIVE_ITC_IOC_MAGIC, 1, struct sifive_itc_batch)

#endif /* _UAPI_SOCPMU_SIFIVE_ITC_H */
