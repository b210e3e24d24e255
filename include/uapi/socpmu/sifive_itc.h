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
 *
 * Records with counter values in one call (what a traced function call of
 * libsifiveperf costs, see Documentation/admin-guide/perf/sifive-perf.rst):
 *  - ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &counters), once, by the thread that
 *    records: the kernel opens counting perf events on that thread (cpu -1,
 *    not inherited, counting user and kernel like a perf_event_open() with
 *    no exclude bits; not tracepoints or breakpoints), one per entry, and
 *    keeps them with this open file. A file sets its counters once (EBUSY).
 *  - ioctl(fd, SIFIVE_ITC_IOC_RECORD, &record), by that thread only (EPERM
 *    for others): the stores of @entries (a header, a record's type and
 *    addresses), then the counters read in the kernel, each encoded as the
 *    SiFive perf library does: the value ANDed with its @mask, as it is
 *    (RAW), minus the previous value modulo the mask (DELTA) or XORed with
 *    it (XOR); the result clipped to 48 bits (@clipped counts those) and
 *    stored as 32 bits, then bits 32-47 as 16 bits if not all zero. The
 *    previous values are the file's, 0 at first and after a call with
 *    SIFIVE_ITC_REC_RESET. Everything is emitted in order on the caller's
 *    hart with the counters read just before, as one batch.
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

#define SIFIVE_ITC_MAX_COUNTERS	32	/* counters of a file */
#define SIFIVE_ITC_MAX_PREFIX	256	/* stores before the counters of a record */

/* How SIFIVE_ITC_IOC_RECORD encodes a counter */
#define SIFIVE_ITC_COUNT_RAW	0
#define SIFIVE_ITC_COUNT_DELTA	1
#define SIFIVE_ITC_COUNT_XOR	2

struct sifive_itc_counter {
	__u32 type;		/* perf_event_attr.type */
	__u32 reserved;		/* must be 0 */
	__u64 config;		/* perf_event_attr.config, config1, config2 */
	__u64 config1;
	__u64 config2;
	__u64 mask;		/* the counter's width: 2^width - 1 (not 0) */
};

struct sifive_itc_counters {
	__u64 counters;		/* user pointer to struct sifive_itc_counter[count] */
	__u32 count;		/* 1..SIFIVE_ITC_MAX_COUNTERS */
	__u8 channel;		/* 0..31: the channel of the counters' stores */
	__u8 mode;		/* SIFIVE_ITC_COUNT_* */
	__u16 flags;		/* must be 0 */
};

#define SIFIVE_ITC_REC_RESET	(1u << 0)	/* previous counter values are 0 */

struct sifive_itc_record {
	__u64 entries;		/* user pointer to struct sifive_itc_write[count] */
	__u32 count;		/* 0..SIFIVE_ITC_MAX_PREFIX: stores before the counters */
	__u32 flags;		/* SIFIVE_ITC_REC_* */
	__u32 written;		/* out: stores emitted (count + the counters') */
	__u32 traced;		/* out: of those, stored while an event traced the hart */
	__s32 cpu;		/* out: the CPU (hart) that wrote them */
	__u32 clipped;		/* out: counter values that did not fit 48 bits */
};

#define SIFIVE_ITC_IOC_MAGIC	0xb7
#define SIFIVE_ITC_IOC_WRITE	_IOWR(SIFIVE_ITC_IOC_MAGIC, 1, struct sifive_itc_batch)
#define SIFIVE_ITC_IOC_COUNTERS	_IOW(SIFIVE_ITC_IOC_MAGIC, 2, struct sifive_itc_counters)
#define SIFIVE_ITC_IOC_RECORD	_IOWR(SIFIVE_ITC_IOC_MAGIC, 3, struct sifive_itc_record)

#endif /* _UAPI_SOCPMU_SIFIVE_ITC_H */
