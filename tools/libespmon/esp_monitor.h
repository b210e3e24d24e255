/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * esp_monitor.h - the ESP Monitors API on top of Linux perf (libespmon).
 *
 * Source compatible with ESP's monitors.h: the same constants, types and
 * functions, so an ESP application's monitor code compiles unchanged:
 *
 *	esp_monitor_args_t args = { .read_mode = ESP_MON_READ_ALL };
 *	esp_monitor_vals_t start, end, diff;
 *
 *	esp_monitor(args, &start);
 *	...
 *	esp_monitor(args, &end);
 *	diff = esp_monitor_diff(start, end);
 *	esp_monitor_print(args, diff, fp);	(or (args, diff) for stdout)
 *	esp_monitor_free();
 *
 * Instead of mapping the monitors with /dev/mem, the library opens counting
 * events on the esp_<n> PMU (drivers/perf/esp_pmu.c), one perf group per
 * tile, so a tile's values come from one hardware snapshot as on ESP.
 *
 * The SoC's shape: SOC_ROWS, SOC_COLS, SOC_NMEM, SOC_NCPU and SOC_NACC size
 * the arrays of esp_monitor_vals_t. They come from esp_monitor_soc.h,
 * which gen-soc-header.sh writes from the PMU's sysfs directory (define
 * ESP_MONITOR_SOC_HEADER to include another file, or define the five
 * macros before including this header). They are limits: the library
 * learns the real shape from sysfs at run time and fills the entries of the
 * tiles that exist; a SoC larger than the limits is an error (EOVERFLOW).
 * One build of the library serves programs compiled with any limits.
 *
 * Which PMU: esp_monitor_select(), else $ESP_MONITOR_PMU, else the
 * lowest-numbered esp_<n> that is there (not a removed SoC's, whose PMU waits
 * for its events to close).
 *
 * Errors: esp_monitor() returns 0 in the ALL and MANY modes, or a positive
 * errno (ENODEV: no ESP PMU; EACCES: perf_event_paranoid forbids
 * system-wide events; EINVAL: bad arguments; EOVERFLOW: SoC larger than
 * the header's limits; EBUSY: another user's exclusive group kept the
 * monitors out for part of the time since the last read; ...). In the SINGLE mode it returns the monitor's
 * value, 0 on error. esp_monitor_error() gives the last call's error as a
 * negative errno (0: success) in every mode, esp_monitor_strerror() a text,
 * esp_monitor_errmsg() the last call's error in full (what is missing, the
 * value that is wrong). The first occurrence of each error is also reported
 * once on stderr (unless $ESP_MONITOR_QUIET is set).
 *
 * Differences from ESP's library, all fixes: sub_monitor_vals() returns
 * (uint32_t)(end - start) (ESP's is one short after a wrap); the 64-bit
 * accelerator counts are diffed as 64-bit values; LLC hits and misses go to
 * llc_stats[] (ESP stores them over l2_stats[] of the memory tiles); READ_SINGLE
 * reads from a snapshot of the tile, and the second of two calls in turn for
 * the halves of a 64-bit count of one tile takes the first one's, so that
 * they agree; values print unsigned.
 */
#ifndef ESP_MONITOR_H
#define ESP_MONITOR_H

/* What ESP's monitors.h pulls in, which applications may rely on */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef SOC_ROWS
#ifdef ESP_MONITOR_SOC_HEADER
#include ESP_MONITOR_SOC_HEADER
#else
#include "esp_monitor_soc.h"
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DVFS_OP_POINTS 4
#define NOC_PLANES     6
#define NOC_QUEUES     5
#define SOC_NTILES     (SOC_ROWS * SOC_COLS)

/* read_mask bits of ESP_MON_READ_MANY */
#define ESP_MON_READ_DDR_ACCESSES         0
#define ESP_MON_READ_MEM_REQS             1
#define ESP_MON_READ_L2_STATS             2
#define ESP_MON_READ_LLC_STATS            3
#define ESP_MON_READ_ACC_STATS            4 /* requires acc_index */
#define ESP_MON_READ_DVFS_OP              5 /* requires tile_index */
#define ESP_MON_READ_NOC_INJECTS          6 /* requires tile_index */
#define ESP_MON_READ_NOC_QUEUE_FULL_TILE  7 /* requires tile_index */
#define ESP_MON_READ_NOC_QUEUE_FULL_PLANE 8 /* requires noc_index */
#define ESP_MON_READ_NR                   9

/* Monitor indices in a tile, for ESP_MON_READ_SINGLE's mon_index */
#define MON_DDR_WORD_TRANSFER_INDEX 0
#define MON_MEM_COH_REQ_INDEX       1
#define MON_MEM_COH_FWD_INDEX       2
#define MON_MEM_COH_RSP_RCV_INDEX   3
#define MON_MEM_COH_RSP_SND_INDEX   4
#define MON_MEM_DMA_REQ_INDEX       5
#define MON_MEM_DMA_RSP_INDEX       6
#define MON_MEM_COH_DMA_REQ_INDEX   7
#define MON_MEM_COH_DMA_RSP_INDEX   8
#define MON_L2_HIT_INDEX            9
#define MON_L2_MISS_INDEX           10
#define MON_LLC_HIT_INDEX           11
#define MON_LLC_MISS_INDEX          12
#define MON_ACC_TLB_INDEX           13
#define MON_ACC_MEM_LO_INDEX        14
#define MON_ACC_MEM_HI_INDEX        15
#define MON_ACC_TOT_LO_INDEX        16
#define MON_ACC_TOT_HI_INDEX        17
#define MON_ACC_INVOCATIONS         18
#define MON_DVFS_BASE_INDEX         19
#define VF_OP_POINTS                4
#define NOCS_NUM                    6
#define MON_NOC_TILE_INJECT_BASE_INDEX (MON_DVFS_BASE_INDEX + VF_OP_POINTS)        /* 23 */
/* + plane * NOC_QUEUES + queue, queues North, South, West, East, Local */
#define MON_NOC_QUEUES_FULL_BASE_INDEX (MON_NOC_TILE_INJECT_BASE_INDEX + NOCS_NUM) /* 29 */
#define ESP_MON_NR_MONITORS         59

#ifndef MONITOR_TILE_SIZE
#define MONITOR_TILE_SIZE 0x200
#endif

typedef struct esp_mem_reqs {
	unsigned int coh_reqs;
	unsigned int coh_fwds;
	unsigned int coh_rsps_rcv;
	unsigned int coh_rsps_snd;
	unsigned int dma_reqs;
	unsigned int dma_rsps;
	unsigned int coh_dma_reqs;
	unsigned int coh_dma_rsps;
} esp_mem_reqs_t;

typedef struct esp_cache_stats {
	unsigned int hits;
	unsigned int misses;
} esp_cache_stats_t;

typedef struct acc_stats_t {
	unsigned int acc_tlb;
	unsigned int acc_mem_lo;
	unsigned int acc_mem_hi;
	unsigned int acc_tot_lo;
	unsigned int acc_tot_hi;
	unsigned int acc_invocations;
} esp_acc_stats_t;

typedef struct esp_monitor_vals {
	unsigned int ddr_accesses[SOC_NMEM];
	esp_mem_reqs_t mem_reqs[SOC_NMEM];
	esp_cache_stats_t l2_stats[SOC_NTILES];
	esp_cache_stats_t llc_stats[SOC_NMEM];
	esp_acc_stats_t acc_stats[SOC_NACC];
	unsigned int dvfs_op[SOC_NTILES][DVFS_OP_POINTS];
	unsigned int noc_injects[SOC_NTILES][NOC_PLANES];
	unsigned int noc_queue_full[SOC_NTILES][NOC_PLANES][NOC_QUEUES];
} esp_monitor_vals_t;

typedef enum esp_monitor_read_mode {
	ESP_MON_READ_ALL,
	ESP_MON_READ_SINGLE,
	ESP_MON_READ_MANY,
} esp_monitor_mode_t;

typedef struct esp_monitor_args {
	esp_monitor_mode_t read_mode;
	uint16_t read_mask;
	uint8_t tile_index;
	uint8_t acc_index;
	uint8_t mon_index;
	uint8_t noc_index;
} esp_monitor_args_t;

typedef struct soc_loc {
	uint8_t row;
	uint8_t col;
} soc_loc_t;

/* The ESP Monitors API */
unsigned int esp_monitor(esp_monitor_args_t args, esp_monitor_vals_t *vals);
esp_monitor_vals_t esp_monitor_diff(esp_monitor_vals_t vals_start, esp_monitor_vals_t vals_end);
uint32_t sub_monitor_vals(uint32_t val_start, uint32_t val_end);
/* fp NULL: stdout. Also callable as esp_monitor_print(args, vals), to stdout. */
void esp_monitor_print(esp_monitor_args_t args, esp_monitor_vals_t vals, FILE *fp);
esp_monitor_vals_t *esp_monitor_vals_alloc(void);
void esp_monitor_free(void);

/* Extensions */
int esp_monitor_select(const char *pmu);	/* "esp_1"; NULL: the default */
int esp_monitor_error(void);			/* last call: 0 or -errno */
const char *esp_monitor_strerror(int err);	/* err: as esp_monitor_error() */
const char *esp_monitor_errmsg(void);		/* last call: its error in full, or "" */

/*
 * Implementation: the functions above are compiled in the library against
 * its own esp_monitor_soc.h. A program's calls go through the entry points
 * below instead, which take the program's limits, so that library and
 * program never disagree on the layout of esp_monitor_vals_t.
 */
struct espmon_layout {
	unsigned int rows, cols, nmem, ncpu, nacc;
	size_t size;			/* sizeof(esp_monitor_vals_t) */
};

unsigned int espmon_monitor(const struct espmon_layout *l, esp_monitor_args_t args,
			    void *vals);
void espmon_diff(const struct espmon_layout *l, const void *start, const void *end,
		 void *diff);
void espmon_print(const struct espmon_layout *l, const esp_monitor_args_t *args,
		  const void *vals, FILE *fp, int file);
void *espmon_vals_alloc(const struct espmon_layout *l);

static inline const struct espmon_layout *espmon_layout_(void)
{
	static const struct espmon_layout layout = {
		SOC_ROWS, SOC_COLS, SOC_NMEM, SOC_NCPU, SOC_NACC, sizeof(esp_monitor_vals_t)
	};

	return &layout;
}

static inline esp_monitor_vals_t espmon_diff_(esp_monitor_vals_t start, esp_monitor_vals_t end)
{
	esp_monitor_vals_t diff;

	espmon_diff(espmon_layout_(), &start, &end, &diff);
	return diff;
}

static inline void espmon_print3_(esp_monitor_args_t args, esp_monitor_vals_t vals, FILE *fp)
{
	espmon_print(espmon_layout_(), &args, &vals, fp, 1);
}

static inline void espmon_print2_(esp_monitor_args_t args, esp_monitor_vals_t vals)
{
	espmon_print(espmon_layout_(), &args, &vals, stdout, 0);
}

#ifndef ESPMON_NO_API_MACROS
#define esp_monitor(args, vals)		espmon_monitor(espmon_layout_(), (args), (vals))
#define esp_monitor_diff(start, end)	espmon_diff_((start), (end))
#define esp_monitor_vals_alloc()	((esp_monitor_vals_t *)espmon_vals_alloc(espmon_layout_()))
#define ESPMON_PICK_(a1, a2, a3, name, ...) name
#define esp_monitor_print(...) \
	ESPMON_PICK_(__VA_ARGS__, espmon_print3_, espmon_print2_, )(__VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* ESP_MONITOR_H */
