/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SiFive trace: internal interfaces of the sifive_trace module.
 *
 *  sifive-trace-core.c     register blocks, integrated sinks, encoder/funnel registry
 *  sifive-trace-encoder.c  platform driver of the per-hart trace encoders
 *  sifive-trace-funnel.c   platform driver of the trace funnels
 *  sifive-trace-pmu.c      the sifive_trace perf PMU: AUX output, sink draining
 *  sifive-itc.c            /dev/sifive-itc, batched ITC stores
 */
#ifndef _SIFIVE_TRACE_H
#define _SIFIVE_TRACE_H

#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/regmap.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <socpmu/sifive_trace_regs.h>
#include <uapi/socpmu/sifive_itc.h>

struct device;
struct fwnode_handle;
struct platform_device;

#define ST_MAX_SRC		16	/* SRC values of a funnel (4-bit source ids) */

/*
 * Bounds of the work done with interrupts off (see sifive-trace.rst, "Bounds"):
 *  ST_EMPTY_POLLS     reads of control registers while waiting for trace to
 *                     drain (teEmpty/tfEmpty), shared by every block a drain
 *                     waits for
 *  ST_SRAM_COPY_MAX   bytes read from an SRAM sink per drain (one data
 *                     register read per word)
 *  ST_SBA_BUF_MAX     the SBA sink's own buffer, copied with memcpy
 *  ST_DIRECT_MAX      a window of the AUX buffer the SBA sink writes into
 *  ST_SRAM_MAX        the largest SRAM sink the driver accepts
 */
#define ST_EMPTY_POLLS		64
#define ST_SRAM_COPY_MAX	SZ_4K
#define ST_SBA_BUF_MAX		SZ_64K
#define ST_DIRECT_MAX		SZ_64K
#define ST_SRAM_MAX		SZ_1M

/**
 * struct st_sink - a trace buffer integrated in a TE or funnel block
 * @code: SIFIVE_SINK_SRAM or SIFIVE_SINK_SBA; 0 if the block has no such sink
 * @size: SRAM: its size (found through WP); SBA: size of @buf
 * @buf: SBA: the driver's system-memory buffer, used when trace cannot go
 *	straight to the AUX buffer
 * @dma: bus address of @buf
 */
struct st_sink {
	unsigned int code;
	size_t size;
	void *buf;
	dma_addr_t dma;
};

/**
 * struct st_block - registers and sinks of a TE or a funnel
 * @dev: the device (DMA master of the SBA sink)
 * @map: 32-bit register access
 * @base: offset of the block in @map
 * @impl: te_impl / tf_impl
 * @sram: SRAM sink
 * @sba: SBA sink
 * @bounce: funnel: linear copy of what one drain takes from the sink, which
 *	is then split by SRC (at most ST_SRAM_COPY_MAX or the SBA buffer)
 * @bounce_size: size of @bounce
 * @bounce_len: bytes in @bounce
 * @sink: sink in use (under the sink lock)
 * @win_start: where the sink writes: SRAM offset 0, or a bus address
 * @win_size: bytes from @win_start
 * @direct: the window is part of the AUX buffer (SBA only)
 */
struct st_block {
	struct device *dev;
	struct regmap *map;
	u32 base;
	u32 impl;
	struct st_sink sram;
	struct st_sink sba;
	u8 *bounce;
	size_t bounce_size;
	size_t bounce_len;
	struct st_sink *sink;
	u64 win_start;
	size_t win_size;
	bool direct;
};

struct st_te;

/**
 * struct st_funnel - a trace funnel and the sink its TEs share
 * @blk: registers and sinks
 * @lock: serialises the sink and every ITC store of the TEs behind it
 * @node: entry in the list of funnels
 * @fwnode: firmware node, what the TEs refer to
 * @added: events added on TEs behind the funnel
 * @users: TEs tracing into the funnel
 * @code: sink chosen by the first added event
 * @src: the TE of each SRC value
 */
struct st_funnel {
	struct st_block blk;
	raw_spinlock_t lock;
	struct list_head node;
	struct fwnode_handle *fwnode;
	unsigned int added;
	unsigned int users;
	unsigned int code;
	struct st_te *src[ST_MAX_SRC];
};

/**
 * struct st_te - the trace encoder of one hart
 * @blk: registers and (without a funnel) sinks
 * @itc16: 16-bit register access, for 16-bit ITC stores
 * @itc8: 8-bit register access, for 8-bit ITC stores
 * @lock: serialises the private sinks and ITC stores (without a funnel)
 * @funnel: the funnel the TE writes into, or NULL
 * @cpu: logical CPU of the hart
 * @hart: hart id (te_impl)
 * @src: SRC value of its messages (te_impl)
 * @srcbits: width of SRC fields (te_impl), 0 if none
 * @busy: an event is added on the hart
 */
struct st_te {
	struct st_block blk;
	struct regmap *itc16;
	struct regmap *itc8;
	raw_spinlock_t lock;
	struct st_funnel *funnel;
	int cpu;
	unsigned int hart;
	unsigned int src;
	unsigned int srcbits;
	bool busy;
};

static inline raw_spinlock_t *st_te_lock(struct st_te *te)
{
	return te->funnel ? &te->funnel->lock : &te->lock;
}

/* The block whose sink the TE's trace lands in */
static inline struct st_block *st_te_sink_block(struct st_te *te)
{
	return te->funnel ? &te->funnel->blk : &te->blk;
}

/* sifive-trace-core.c */
u32 st_read(struct st_block *b, unsigned int off);
void st_write(struct st_block *b, unsigned int off, u32 val);
u32 st_ctrl(struct st_block *b);
int st_block_probe(struct platform_device *pdev, struct st_block *b,
		   struct regmap **itc16, struct regmap **itc8);
bool st_wait_empty(struct st_block *b, unsigned int *polls);
bool st_flush(struct st_block *b, unsigned int *polls);
struct st_sink *st_block_sink(struct st_block *b, unsigned int code);
void st_window_program(struct st_block *b, struct st_sink *sink, u64 start, size_t size);
void st_window_reset(struct st_block *b);
size_t st_window_fill(struct st_block *b, bool *wrapped);
size_t st_window_wp(struct st_block *b);
void st_window_read(struct st_block *b, size_t off, size_t len,
		    void (*put)(void *ctx, const void *p, size_t n), void *ctx);
void st_ts_init(struct st_block *b);

extern struct mutex st_lock;
DECLARE_PER_CPU(struct st_te *, st_te_of_cpu);
int st_te_register(struct st_te *te);
void st_te_unregister(struct st_te *te);
bool st_any_te(unsigned int code);
int st_funnel_register(struct st_funnel *fun);
void st_funnel_unregister(struct st_funnel *fun);
struct st_funnel *st_funnel_find(struct fwnode_handle *fwnode);
struct st_sink *st_te_sink(struct st_te *te, unsigned int code);

extern struct platform_driver st_encoder_driver;
extern struct platform_driver st_funnel_driver;

/* sifive-trace-pmu.c */
int st_pmu_init(void);
void st_pmu_exit(void);
void st_pmu_detach(struct st_te *te);
int st_itc_emit(const struct sifive_itc_write *w, unsigned int n, u32 *traced, int *cpu);

/* sifive-itc.c */
int st_itc_init(void);
void st_itc_exit(void);

#endif /* _SIFIVE_TRACE_H */
