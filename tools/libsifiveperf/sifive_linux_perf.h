/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * sifive_linux_perf.h - the SiFive Trace Performance Library API on Linux,
 * on top of the sifive_hpm PMU (counters) and the sifive_trace PMU with
 * /dev/sifive-itc (trace): libsifiveperf.
 *
 * The API is the vendor library's: perfInit(), one of perfManualInit(),
 * perfTimerISRInit() or perfFuncEntryExitInit(), perfTraceOn(), the
 * collection (perfWriteCntrs(), the timer, or the -finstrument-functions
 * hooks), perfTraceOff() and perfWriteTrace(). Every function returns 0 on
 * success and non-zero on error; an error is also described on stderr.
 *
 * Beyond the vendor library: every thread of the process can record at
 * once (each into its own trace buffer, on whatever hart it runs), the
 * timer works on Linux (a per-thread CPU-time timer: the sampled user PC
 * and the counters), and nothing needs the trace encoders mapped into the
 * process (the tmm[]/fmm objects of the vendor examples may be defined but
 * are not used). Under `perf record -e sifive_trace//`, set
 * SIFIVE_PERF_MODE=perf-record: the records go into perf's trace (perf.data)
 * and perfWriteTrace() writes no file. See
 * Documentation/admin-guide/perf/sifive-perf.rst.
 */
#ifndef SIFIVE_LINUX_PERF_H_
#define SIFIVE_LINUX_PERF_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* OpenSBI type 0 (hardware general) event codes */
#define HW_NO_EVENT			0
#define HW_CPU_CYCLES			1
#define HW_INSTRUCTIONS			2
#define HW_CACHE_REFERENCES		3
#define HW_CACHE_MISSES			4
#define HW_BRANCH_INSTRUCTIONS		5
#define HW_BRANCH_MISSES		6
#define HW_BUS_CYCLES			7
#define HW_STALLED_CYCLES_FRONTEND	8
#define HW_STALLED_CYCLES_BACKEND	9
#define HW_REF_CPU_CYCLES		10
#define HW_REF_CPU_CYLES		HW_REF_CPU_CYCLES	/* the vendor header's spelling */
/* The time counter (counter 1): not an OpenSBI event */
#define HW_TIMESTAMP			0x80

/* OpenSBI type 1 (hardware cache) event ids */
#define HW_CACHE_L1D			0
#define HW_CACHE_L1I			1
#define HW_CACHE_LL			2
#define HW_CACHE_DTLB			3
#define HW_CACHE_ITLB			4
#define HW_CACHE_BPU			5
#define HW_CACHE_NODE			6
#define HW_CACHE_OP_READ		0
#define HW_CACHE_OP_WRITE		1
#define HW_CACHE_OP_PREFETCH		2
#define HW_CACHE_RESULT_ACCESS		0
#define HW_CACHE_RESULT_MISS		1

#define PERF_MAX_CORES			8	/* informational: harts are not limited */
#define PERF_MAX_CNTRS			32
#define PERF_MARKER_VAL			(('p' << 24) | ('e' << 16) | ('r' << 8) | ('f' << 0))

enum {
	perfEventHWGeneral = 0,
	perfEventHWCache = 1,
	perfEventHWRaw = 2,
	perfEventFW = 15,	/* firmware events: not supported */
};

typedef enum {
	perfRecord_FuncEnter = 0,
	perfRecord_FuncExit = 1,
	perfRecord_Manual = 2,
	perfRecord_ISR = 3,
} perfRecordType_t;

typedef enum {
	perfCount_Raw = 0,
	perfCount_Delta = 1,
	perfCount_DeltaXOR = 2,
} perfCountType_t;

/*
 * One event to count. Set type and code (type 0), cache_id/op_id/result_id
 * (type 1) or event_data (type 2, the mhpmevent value). The init functions
 * fill in ctrIdx (the HPM counter it is recorded as; (unsigned int)-1 if it
 * was left out) and ctrInfo (OpenSBI counter_info: CSR and width).
 */
typedef struct {
	unsigned int ctrIdx;
	int type;
	union {
		int code;
		struct {
			int cache_id;
			int op_id;
			int result_id;
		};
	};
	unsigned long event_data;
	unsigned long ctrInfo;
} perfEvent;

int perfInit(int num_cores, int num_funnels);
int perfManualInit(perfEvent *perfCntrList, int numCntrs, int itcChannel,
		   perfCountType_t cntType, uint32_t SBABufferSize);
int perfTimerISRInit(perfEvent *perfCntrList, int numCntrs, int itcChannel,
		     perfCountType_t cntType, uint32_t SBABufferSize, int interval);
int perfFuncEntryExitInit(perfEvent *perfCntrList, int numCntrs, int itcChannel,
			  perfCountType_t cntType, uint32_t SBABufferSize);
int perfWriteCntrs(void);
int perfTraceOn(void);
int perfTraceOff(void);
int perfWriteTrace(char *file);

/* The -finstrument-functions hooks (perfFuncEntryExitInit) */
void __cyg_profile_func_enter(void *this_fn, void *call_site);
void __cyg_profile_func_exit(void *this_fn, void *call_site);

/* ---- libsifiveperf extensions ---- */

/* What the library did, summed over every thread */
struct perfStats {
	uint64_t records;	/* trace records stored */
	uint64_t headers;	/* headers written */
	uint64_t dropped;	/* records not (completely) stored: buffer full, hart not traced */
	uint64_t errors;	/* records that failed (counter read, ITC write) */
	uint64_t syscalls;	/* system calls made to write records and headers */
	uint64_t clipped;	/* counter values that did not fit in 48 bits */
	uint64_t threads;	/* threads that recorded */
	uint64_t bytes;		/* trace bytes written by perfWriteTrace() */
	uint32_t aux_flags;	/* PERF_AUX_FLAG_* seen (truncated, partial) */
};

int perfGetStats(struct perfStats *stats);

#ifdef __cplusplus
}
#endif

#endif /* SIFIVE_LINUX_PERF_H_ */
