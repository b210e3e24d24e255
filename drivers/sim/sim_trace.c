// SPDX-License-Identifier: GPL-2.0-only
/*
 * socpmu simulator: SiFive trace encoders, funnel and sinks.
 *
 * new_device "trace [harts=N] [funnel=0|1] [sram=BYTES] [sba=0|1] [never_empty=0|1]
 * [sba_buf=BYTES]" (defaults: 2 harts behind a funnel, a 16 KiB SRAM sink and
 * an SBA sink). never_empty=1 models broken hardware: no TE or funnel ever
 * reports teEmpty/tfEmpty. sba_buf gives the children the device property
 * "sifive,sba-buffer-size" (the size of the driver's own SBA buffer).
 *
 * Register map (include/socpmu/sifive_trace_regs.h): the trace encoder (TE)
 * of hart h at h * 0x1000, the funnel, if any, at 0x18000. With a funnel the
 * TEs only have the funnel sink and the funnel has the SRAM and SBA sinks;
 * without one every TE has its own. te_impl / tf_impl say so.
 *
 * Behaviour:
 *  - A store to ITC stimulus register ch (32 bits at +0, 16 at +2, 8 at +3)
 *    of an active, enabled, tracing TE with ITC instrumentation and channel
 *    ch enabled encodes a Nexus Data Acquisition Message: TCODE 7, SRC (the
 *    TE's source id, when SRC bits exist and are not inhibited), DQTAG =
 *    4 * ch + offset, DQDATA (the stored bytes) and, with timestamps on, the
 *    timestamp XORed with the previous one. When tracing starts (tracing and
 *    enable both set) the TE first emits an in-circuit-trace-with-sync
 *    control message (TCODE 35, CKSRC 0, CKDF 0, CKDATA 2 = trace on) with
 *    the full timestamp, which is what the SiFive decoder resynchronises
 *    timestamps on. Messages are emitted byte by byte as MDO[7:2]/MSEO[1:0].
 *  - Bytes collect in the block's FIFO and reach the sink as 32-bit words;
 *    a partial word waits (teEmpty = 0) until a flush: enable or tracing
 *    going to 0 pads it with zero bytes (which decoders skip) and writes it.
 *    A TE whose sink is the funnel hands whole messages to the funnel, which
 *    packs them into words for its own sink in arrival order.
 *  - SRAM sink: WP/RP are offsets; reading the data register returns the
 *    word at RP and advances RP. Bits of WP above the SRAM size read as 0,
 *    so writing all ones to WP and reading it back gives the size.
 *  - SBA sink: words go to system memory between sink base and limit (the
 *    last byte address); WP holds the address. The memory must have been
 *    mapped for the sink's device with the DMA API: this model is the
 *    device's DMA ops (an IOMMU with a fixed offset), so it only writes
 *    pages the driver mapped, device-writable, and reports anything else as
 *    a sink error without touching memory.
 *  - Reaching the end of a sink wraps WP to the start and sets WP bit 0; with
 *    stop-on-wrap the block then stops (enable and tracing cleared) and
 *    further messages are dropped, otherwise the oldest data is overwritten.
 *  - Timestamps: a 48-bit counter at 1 GHz divided by the prescaler. TEs
 *    behind a funnel are slaves of the funnel's unit (one time base for
 *    every hart); otherwise each TE has its own.
 *
 * debugfs: "itc" (w) "<hart> <channel> <8|16|32> <value>" stores to a
 * stimulus register as if the hart did; "stats" (r) counts messages, bytes,
 * dropped messages, DMA faults and sink wraps; "stim_busy" (rw) makes that
 * many of the next stimulus register reads say "not ready" (a trace encoder
 * that back-pressures the hart), which the model otherwise never does;
 * "itc_log" (rw): writing n (at most SOCPMU_SIM_ITC_LOG_MAX) starts a log of
 * the next n stores to stimulus registers, traced or not (0 ends it); reading
 * gives the stores logged so far, as struct socpmu_sim_itc_rec
 * (include/socpmu/sim_itc_log.h): what the harts stored, for tests to
 * compare with what a trace decoder found; "ts_jump" (rw): before every
 * ITC message the TE's timestamp unit (the funnel's, behind one) jumps
 * ahead by that many ticks, as if the hart had been held off that long
 * between its stores (a vCPU that a loaded host did not run): the messages
 * then carry long timestamp XORs, so they are long (0: off).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": trace: " fmt

#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/dma-map-ops.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/unaligned.h>

#include <socpmu/sifive_trace_regs.h>
#include <socpmu/sim_itc_log.h>

#include "sim.h"

#define TRACE_SIM_MAX_HARTS	16
#define TRACE_SIM_FUNNEL_BASE	0x18000
#define TRACE_SIM_SRAM_DEFAULT	16384
#define TRACE_SIM_SRAM_MIN	256
#define TRACE_SIM_SRAM_MAX	BIT(20)
#define TRACE_SIM_TS_BITS	48
#define TRACE_SIM_TS_MASK	GENMASK_ULL(TRACE_SIM_TS_BITS - 1, 0)
#define TRACE_SIM_IOVA_OFFSET	BIT_ULL(40)	/* bus address = physical + this */
#define TRACE_SIM_MSG_MAX	32

/* Writable bits of the control registers */
#define TRACE_SIM_TE_CTRL_RW	(SIFIVE_CTRL_ENABLE | SIFIVE_CTRL_TRACING | (7u << 4) | \
				 SIFIVE_CTRL_INSTRUMENT_MASK | (3u << 12) |	  \
				 SIFIVE_CTRL_STOP_ON_WRAP | SIFIVE_CTRL_INHIBIT_SRC | \
				 (0xffu << 16))
#define TRACE_SIM_TF_CTRL_RW	(SIFIVE_CTRL_ENABLE | SIFIVE_CTRL_STOP_ON_WRAP)
#define TRACE_SIM_TS_CTRL_RW	(SIFIVE_TS_ACTIVE | SIFIVE_TS_COUNT | (1u << 3) |   \
				 SIFIVE_TS_PRESCALE_MASK | SIFIVE_TS_ENABLE |	  \
				 (3u << 16) | SIFIVE_TS_INSTRUMENTATION | (1u << 19))

struct trace_sim_cfg {
	unsigned int harts;
	bool funnel;
	unsigned int sram;	/* bytes, 0: no SRAM sink */
	bool sba;
	bool never_empty;	/* the empty bit never reads 1 */
	unsigned int sba_buf;	/* "sifive,sba-buffer-size" of the children, 0: none */
};

struct trace_sim_ts {
	u32 control;		/* writable bits of ts_control */
	u32 type;		/* SIFIVE_TS_TYPE_* */
	u64 value;		/* counter at @since_ns */
	u64 since_ns;
};

/* A TE or the funnel: control, sinks, FIFO and timestamp unit */
struct trace_sim_block {
	u32 control;
	u32 impl;
	u32 base_lo, base_hi, limit, wp, rp;
	u8 fifo[4];		/* bytes of the word being assembled */
	unsigned int fifo_len;
	u8 *sram;
	u32 sram_size;
	struct trace_sim_ts ts;
	struct device *dev;	/* child device, the DMA master of the SBA sink */
};

struct trace_sim_te {
	struct trace_sim_block b;
	u32 itc_enable;
	u32 itc_trig;
	bool synced;		/* start message sent since tracing began */
	u64 last_ts;		/* timestamp of the last message, for the XOR */
	unsigned int hart;
};

struct trace_sim_stats {
	u64 msgs, bytes, dropped, dma_faults, wraps;
};

struct trace_sim {
	raw_spinlock_t lock;		/* protects everything below */
	const struct trace_sim_cfg *cfg;
	struct socpmu_sim_dev *sdev;
	unsigned int srcbits;
	struct trace_sim_stats stats;
	u32 stim_busy;			/* stimulus reads left that say "not ready" */
	u64 ts_jump;			/* ticks the time base jumps before an ITC message */
	/* debugfs "itc_log": the stores so far, room for @log_size (0: off) */
	struct socpmu_sim_itc_rec *log;
	u32 log_len, log_size;
	struct mutex log_mutex;		/* serialises the file's reads and writes */
	struct trace_sim_block funnel;	/* unused without a funnel */
	unsigned int nte;
	struct trace_sim_te te[] __counted_by(nte);
};

/* A message being encoded: 6 data bits per byte, LSB first */
struct trace_sim_msg {
	u8 buf[TRACE_SIM_MSG_MAX];
	unsigned int len;
	unsigned int bits;	/* data bits used in @cur */
	u8 cur;
};

/*
 * DMA mappings of every sim trace device: the SBA sinks may only write into
 * memory the driver mapped for their device.
 */
struct trace_sim_dma_map {
	struct list_head node;
	struct device *dev;
	dma_addr_t iova;
	phys_addr_t phys;
	size_t size;
	enum dma_data_direction dir;
};

static DEFINE_RAW_SPINLOCK(trace_sim_dma_lock);	/* protects trace_sim_dma_maps */
static LIST_HEAD(trace_sim_dma_maps);

static dma_addr_t trace_sim_dma_add(struct device *dev, phys_addr_t phys, size_t size,
				    enum dma_data_direction dir, gfp_t gfp)
{
	struct trace_sim_dma_map *m = kmalloc(sizeof(*m), gfp);
	unsigned long flags;

	if (!m)
		return DMA_MAPPING_ERROR;
	m->dev = dev;
	m->phys = phys;
	m->iova = phys + TRACE_SIM_IOVA_OFFSET;
	m->size = size;
	m->dir = dir;
	raw_spin_lock_irqsave(&trace_sim_dma_lock, flags);
	list_add(&m->node, &trace_sim_dma_maps);
	raw_spin_unlock_irqrestore(&trace_sim_dma_lock, flags);
	return m->iova;
}

static void trace_sim_dma_del(struct device *dev, dma_addr_t iova)
{
	struct trace_sim_dma_map *m, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&trace_sim_dma_lock, flags);
	list_for_each_entry(m, &trace_sim_dma_maps, node) {
		if (m->dev == dev && m->iova == iova) {
			list_del(&m->node);
			found = m;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&trace_sim_dma_lock, flags);
	if (!found)
		dev_warn(dev, "unmapping %pad, which is not mapped\n", &iova);
	kfree(found);
}

/* A device write of @len bytes at bus address @iova; false: IOMMU fault */
static bool trace_sim_dma_write(struct device *dev, u64 iova, const void *src, size_t len)
{
	struct trace_sim_dma_map *m;
	bool ok = false;
	phys_addr_t phys;
	void *va;

	raw_spin_lock(&trace_sim_dma_lock);
	list_for_each_entry(m, &trace_sim_dma_maps, node) {
		if (m->dev != dev || iova < m->iova || iova - m->iova + len > m->size ||
		    m->dir == DMA_TO_DEVICE)
			continue;
		phys = m->phys + (iova - m->iova);
		/* Words are aligned, so they never straddle a page */
		va = kmap_local_page(pfn_to_page(PHYS_PFN(phys)));
		memcpy(va + offset_in_page(phys), src, len);
		kunmap_local(va);
		ok = true;
		break;
	}
	raw_spin_unlock(&trace_sim_dma_lock);
	return ok;
}

static void *trace_sim_dma_alloc(struct device *dev, size_t size, dma_addr_t *handle,
				 gfp_t gfp, unsigned long attrs)
{
	void *va;

	size = PAGE_ALIGN(size);
	va = alloc_pages_exact(size, (gfp & ~(__GFP_HIGHMEM | __GFP_COMP)) | __GFP_ZERO);
	if (!va)
		return NULL;
	*handle = trace_sim_dma_add(dev, virt_to_phys(va), size, DMA_BIDIRECTIONAL, gfp);
	if (*handle == DMA_MAPPING_ERROR) {
		free_pages_exact(va, size);
		return NULL;
	}
	return va;
}

static void trace_sim_dma_free(struct device *dev, size_t size, void *va,
			       dma_addr_t handle, unsigned long attrs)
{
	trace_sim_dma_del(dev, handle);
	free_pages_exact(va, PAGE_ALIGN(size));
}

static dma_addr_t trace_sim_dma_map_page(struct device *dev, struct page *page,
					 unsigned long offset, size_t size,
					 enum dma_data_direction dir, unsigned long attrs)
{
	return trace_sim_dma_add(dev, page_to_phys(page) + offset, size, dir, GFP_ATOMIC);
}

static void trace_sim_dma_unmap_page(struct device *dev, dma_addr_t handle, size_t size,
				     enum dma_data_direction dir, unsigned long attrs)
{
	trace_sim_dma_del(dev, handle);
}

static void trace_sim_dma_unmap_sg(struct device *dev, struct scatterlist *sgl, int nents,
				   enum dma_data_direction dir, unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i)
		trace_sim_dma_del(dev, sg_dma_address(sg));
}

static int trace_sim_dma_map_sg(struct device *dev, struct scatterlist *sgl, int nents,
				enum dma_data_direction dir, unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		sg_dma_address(sg) = trace_sim_dma_add(dev, sg_phys(sg), sg->length, dir,
						       GFP_ATOMIC);
		if (sg_dma_address(sg) == DMA_MAPPING_ERROR) {
			trace_sim_dma_unmap_sg(dev, sgl, i, dir, attrs);
			return -ENOMEM;
		}
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static const struct dma_map_ops trace_sim_dma_ops = {
	.alloc = trace_sim_dma_alloc,
	.free = trace_sim_dma_free,
	.map_page = trace_sim_dma_map_page,
	.unmap_page = trace_sim_dma_unmap_page,
	.map_sg = trace_sim_dma_map_sg,
	.unmap_sg = trace_sim_dma_unmap_sg,
};

/* Timestamp unit */

static u64 trace_sim_ts_read(const struct trace_sim_ts *t, u64 now)
{
	unsigned int shift = 2 * ((t->control & SIFIVE_TS_PRESCALE_MASK) >>
				  SIFIVE_TS_PRESCALE_SHIFT);

	if (!(t->control & SIFIVE_TS_ACTIVE) || !(t->control & SIFIVE_TS_COUNT))
		return t->value;
	return (t->value + ((now - t->since_ns) >> shift)) & TRACE_SIM_TS_MASK;
}

/* Fold the time elapsed into @value before the unit's settings change */
static void trace_sim_ts_fold(struct trace_sim_ts *t, u64 now)
{
	t->value = trace_sim_ts_read(t, now);
	t->since_ns = now;
}

static u32 trace_sim_ts_control(const struct trace_sim_ts *t)
{
	return t->control | t->type << SIFIVE_TS_TYPE_SHIFT |
	       (t->type ? TRACE_SIM_TS_BITS << SIFIVE_TS_WIDTH_SHIFT : 0);
}

static void trace_sim_ts_write(struct trace_sim_ts *t, unsigned int off, u32 val)
{
	u64 now = ktime_get_ns();

	if (!t->type)
		return;
	trace_sim_ts_fold(t, now);
	switch (off) {
	case SIFIVE_TS_CONTROL:
		if (!(val & SIFIVE_TS_ACTIVE)) {
			t->control = 0;
			t->value = 0;
			break;
		}
		if (val & SIFIVE_TS_RESET)
			t->value = 0;
		t->control = val & TRACE_SIM_TS_CTRL_RW;
		break;
	case SIFIVE_TS_LOWER:
		t->value = (t->value & ~GENMASK_ULL(31, 0)) | val;
		break;
	case SIFIVE_TS_UPPER:
		t->value = ((u64)val << 32 | lower_32_bits(t->value)) & TRACE_SIM_TS_MASK;
		break;
	}
}

/* Sinks */

static unsigned int trace_sim_sink(const struct trace_sim_block *b)
{
	return b->control >> SIFIVE_CTRL_SINK_SHIFT;
}

static bool trace_sim_running(const struct trace_sim_block *b)
{
	return (b->control & (SIFIVE_CTRL_ACTIVE | SIFIVE_CTRL_ENABLE)) ==
	       (SIFIVE_CTRL_ACTIVE | SIFIVE_CTRL_ENABLE);
}

/* The sink wrapped: note it, and stop the block if it stops on wrap */
static void trace_sim_wrapped(struct trace_sim *ts, struct trace_sim_block *b)
{
	ts->stats.wraps++;
	if (b->control & SIFIVE_CTRL_STOP_ON_WRAP) {
		b->control &= ~(SIFIVE_CTRL_ENABLE | SIFIVE_CTRL_TRACING);
		b->fifo_len = 0;
		if (b != &ts->funnel)
			container_of(b, struct trace_sim_te, b)->synced = false;
	}
}

static void trace_sim_sink_word(struct trace_sim *ts, struct trace_sim_block *b, const u8 *w)
{
	bool wrap = false;
	u64 addr, base, end;
	u32 off;

	switch (trace_sim_sink(b)) {
	case SIFIVE_SINK_SRAM:
		off = b->wp & (b->sram_size - 1) & ~3u;
		memcpy(b->sram + off, w, 4);
		off += 4;
		if (off == b->sram_size) {
			off = 0;
			wrap = true;
		}
		b->wp = off | (b->wp & SIFIVE_WP_WRAPPED);
		break;
	case SIFIVE_SINK_SBA:
		base = (u64)b->base_hi << 32 | (b->base_lo & ~3u);
		end = ((u64)b->base_hi << 32 | b->limit) + 1;
		addr = (u64)b->base_hi << 32 | (b->wp & ~3u);
		if (addr < base || addr + 4 > end ||
		    !trace_sim_dma_write(b->dev, addr, w, 4)) {
			b->control |= SIFIVE_CTRL_SINK_ERROR;
			ts->stats.dma_faults++;
		}
		addr += 4;
		if (addr < base || addr + 4 > end) {
			addr = base;
			wrap = true;
		}
		b->wp = lower_32_bits(addr) | (b->wp & SIFIVE_WP_WRAPPED);
		break;
	default:
		return;
	}
	if (wrap) {
		b->wp |= SIFIVE_WP_WRAPPED;
		trace_sim_wrapped(ts, b);
	}
}

/* Append bytes to a block's FIFO; whole words go to its sink */
static void trace_sim_push(struct trace_sim *ts, struct trace_sim_block *b,
			   const u8 *bytes, unsigned int len)
{
	while (len-- && trace_sim_running(b)) {
		b->fifo[b->fifo_len++] = *bytes++;
		if (b->fifo_len == 4) {
			b->fifo_len = 0;
			trace_sim_sink_word(ts, b, b->fifo);
		}
	}
}

/* Flush: pad the partial word with zero bytes and write it */
static void trace_sim_flush(struct trace_sim *ts, struct trace_sim_block *b)
{
	if (!b->fifo_len)
		return;
	memset(b->fifo + b->fifo_len, 0, 4 - b->fifo_len);
	b->fifo_len = 0;
	trace_sim_sink_word(ts, b, b->fifo);
}

/* Nexus encoding */

static void trace_sim_msg_byte(struct trace_sim_msg *m, unsigned int mseo)
{
	if (m->len < TRACE_SIM_MSG_MAX)
		m->buf[m->len++] = m->cur << 2 | mseo;
	m->cur = 0;
	m->bits = 0;
}

/* A fixed-size field: packed after the previous one, possibly mid-byte */
static void trace_sim_msg_fixed(struct trace_sim_msg *m, u64 val, unsigned int width)
{
	unsigned int take;

	while (width) {
		take = min(width, NEXUS_MDO_BITS - m->bits);
		m->cur |= (val & GENMASK(take - 1, 0)) << m->bits;
		val >>= take;
		width -= take;
		m->bits += take;
		if (m->bits == NEXUS_MDO_BITS)
			trace_sim_msg_byte(m, NEXUS_MSEO_NORMAL);
	}
}

/* A variable-size field: as few bytes as the value needs, the last one marked */
static void trace_sim_msg_var(struct trace_sim_msg *m, u64 val, bool last)
{
	unsigned int take;

	do {
		take = NEXUS_MDO_BITS - m->bits;
		m->cur |= (val & GENMASK(take - 1, 0)) << m->bits;
		val = take < 64 ? val >> take : 0;
		trace_sim_msg_byte(m, val ? NEXUS_MSEO_NORMAL :
				   last ? NEXUS_MSEO_END_MSG : NEXUS_MSEO_END_FIELD);
	} while (val);
}

static void trace_sim_msg_start(struct trace_sim *ts, struct trace_sim_te *te,
				struct trace_sim_msg *m, unsigned int tcode)
{
	memset(m, 0, sizeof(*m));
	trace_sim_msg_fixed(m, tcode, NEXUS_TCODE_BITS);
	if (ts->srcbits && !(te->b.control & SIFIVE_CTRL_INHIBIT_SRC))
		trace_sim_msg_fixed(m, te->hart, ts->srcbits);
}

/* The TE's timestamp unit: its own, or the funnel's for a slave */
static struct trace_sim_ts *trace_sim_te_unit(struct trace_sim *ts, struct trace_sim_te *te)
{
	return te->b.ts.type == SIFIVE_TS_TYPE_SLAVE ? &ts->funnel.ts : &te->b.ts;
}

static u64 trace_sim_te_now(struct trace_sim *ts, struct trace_sim_te *te)
{
	return trace_sim_ts_read(trace_sim_te_unit(ts, te), ktime_get_ns());
}

/* Hand a finished message to the TE's sink; false if there is none running */
static bool trace_sim_te_emit(struct trace_sim *ts, struct trace_sim_te *te,
			      const struct trace_sim_msg *m)
{
	switch (trace_sim_sink(&te->b)) {
	case SIFIVE_SINK_FUNNEL:
		if (!trace_sim_running(&ts->funnel)) {
			ts->stats.dropped++;
			return false;
		}
		trace_sim_push(ts, &ts->funnel, m->buf, m->len);
		break;
	case SIFIVE_SINK_SRAM:
	case SIFIVE_SINK_SBA:
		trace_sim_push(ts, &te->b, m->buf, m->len);
		break;
	default:
		ts->stats.dropped++;
		return false;
	}
	ts->stats.msgs++;
	ts->stats.bytes += m->len;
	return true;
}

static bool trace_sim_te_tracing(const struct trace_sim_te *te)
{
	return trace_sim_running(&te->b) && (te->b.control & SIFIVE_CTRL_TRACING);
}

/* Tracing started: the in-circuit trace control message with the full timestamp */
static void trace_sim_te_sync(struct trace_sim *ts, struct trace_sim_te *te)
{
	bool stamp = te->b.ts.control & SIFIVE_TS_ENABLE;
	struct trace_sim_msg m;

	if (te->synced || !trace_sim_te_tracing(te))
		return;
	te->synced = true;
	trace_sim_msg_start(ts, te, &m, NEXUS_TCODE_ICT_WS);
	trace_sim_msg_fixed(&m, NEXUS_ICT_CKSRC_CONTROL, NEXUS_ICT_CKSRC_BITS);
	trace_sim_msg_fixed(&m, 0, NEXUS_ICT_CKDF_BITS);
	trace_sim_msg_var(&m, NEXUS_ICT_CONTROL_TRACE_ON, !stamp);
	if (stamp) {
		te->last_ts = trace_sim_te_now(ts, te);
		trace_sim_msg_var(&m, te->last_ts, true);
	}
	trace_sim_te_emit(ts, te, &m);
}

/* A store of @width bits to stimulus register @ch; true if it was traced */
static bool trace_sim_itc(struct trace_sim *ts, struct trace_sim_te *te, unsigned int ch,
			  unsigned int width, u32 val)
{
	u32 stamp = SIFIVE_TS_ENABLE | SIFIVE_TS_INSTRUMENTATION;
	struct trace_sim_ts *unit;
	struct trace_sim_msg m;
	u64 now, jump;

	if (!trace_sim_te_tracing(te) || !te->synced ||
	    (te->b.control & SIFIVE_CTRL_INSTRUMENT_MASK) != SIFIVE_CTRL_INSTRUMENT_ITC ||
	    !(te->itc_enable & BIT(ch))) {
		ts->stats.dropped++;
		return false;
	}
	jump = READ_ONCE(ts->ts_jump);
	if (jump) {
		/* debugfs "ts_jump": the hart was held off that long */
		unit = trace_sim_te_unit(ts, te);
		unit->value = (unit->value + jump) & TRACE_SIM_TS_MASK;
	}
	trace_sim_msg_start(ts, te, &m, NEXUS_TCODE_DATA_ACQUISITION);
	trace_sim_msg_var(&m, SIFIVE_ITC_TAG(ch, width), false);
	if ((te->b.ts.control & stamp) != stamp) {
		trace_sim_msg_var(&m, val, true);
	} else {
		trace_sim_msg_var(&m, val, false);
		now = trace_sim_te_now(ts, te);
		trace_sim_msg_var(&m, now ^ te->last_ts, true);
		te->last_ts = now;
	}
	return trace_sim_te_emit(ts, te, &m);
}

/* A store to stimulus register @ch, traced and noted in the "itc_log" */
static void trace_sim_itc_log(struct trace_sim *ts, struct trace_sim_te *te, unsigned int ch,
			      unsigned int width, u32 val)
{
	bool traced = trace_sim_itc(ts, te, ch, width, val);
	struct socpmu_sim_itc_rec *r;

	if (ts->log_len >= ts->log_size)
		return;
	r = &ts->log[ts->log_len];
	r->value = val;
	r->hart = te->hart;
	r->channel = ch;
	r->width = width;
	r->flags = traced ? SOCPMU_SIM_ITC_TRACED : 0;
	/* pairs with trace_sim_itc_log_read(): the record before the length */
	smp_store_release(&ts->log_len, ts->log_len + 1);
}

/* Registers */

static void trace_sim_block_reset(struct trace_sim_block *b)
{
	b->control = 0;
	b->base_lo = 0;
	b->base_hi = 0;
	b->limit = 0;
	b->wp = 0;
	b->rp = 0;
	b->fifo_len = 0;
}

static void trace_sim_ctrl_write(struct trace_sim *ts, struct trace_sim_block *b,
				 struct trace_sim_te *te, u32 val)
{
	u32 old = b->control, sink = val >> SIFIVE_CTRL_SINK_SHIFT, rw;

	if (!(val & SIFIVE_CTRL_ACTIVE)) {
		trace_sim_block_reset(b);
		if (te) {
			te->itc_enable = 0;
			te->itc_trig = 0;
			te->synced = false;
		}
		return;
	}
	/* The sink field is WARL: a sink the block does not have is not taken */
	if (!(b->impl & SIFIVE_IMPL_HAS_SINK(sink)))
		sink = old >> SIFIVE_CTRL_SINK_SHIFT;
	rw = te ? TRACE_SIM_TE_CTRL_RW : TRACE_SIM_TF_CTRL_RW;
	b->control = SIFIVE_CTRL_ACTIVE | (val & rw) | sink << SIFIVE_CTRL_SINK_SHIFT |
		     (old & ~val & SIFIVE_CTRL_SINK_ERROR);

	if ((old & SIFIVE_CTRL_ENABLE) && !(b->control & SIFIVE_CTRL_ENABLE))
		trace_sim_flush(ts, b);
	if (!te)
		return;
	if (!(b->control & SIFIVE_CTRL_TRACING)) {
		if (old & SIFIVE_CTRL_TRACING)
			trace_sim_flush(ts, b);
		te->synced = false;
	}
	trace_sim_te_sync(ts, te);
}

static int trace_sim_block_read(struct trace_sim *ts, struct trace_sim_block *b,
				unsigned int off, u32 *val)
{
	switch (off) {
	case SIFIVE_TRACE_CONTROL:
		*val = b->control | SIFIVE_CTRL_SLICE_6MDO_2MSEO |
		       (b->fifo_len || ts->cfg->never_empty ? 0 : SIFIVE_CTRL_EMPTY);
		if (!(b->control & SIFIVE_CTRL_ACTIVE))
			*val = 0;
		return 0;
	case SIFIVE_TRACE_IMPL:
		*val = b->impl;
		return 0;
	case SIFIVE_TRACE_SINK_BASE:
		*val = b->base_lo;
		return 0;
	case SIFIVE_TRACE_SINK_BASE_HIGH:
		*val = b->base_hi;
		return 0;
	case SIFIVE_TRACE_SINK_LIMIT:
		*val = b->limit;
		return 0;
	case SIFIVE_TRACE_SINK_WP:
		*val = b->wp;
		return 0;
	case SIFIVE_TRACE_SINK_RP:
		*val = b->rp;
		return 0;
	case SIFIVE_TRACE_SINK_DATA:
		if (trace_sim_sink(b) != SIFIVE_SINK_SRAM || !b->sram)
			return 0;
		*val = get_unaligned_le32(b->sram + b->rp);
		b->rp = (b->rp + 4) & (b->sram_size - 1);
		return 0;
	case SIFIVE_TS_CONTROL:
		*val = trace_sim_ts_control(&b->ts);
		return 0;
	case SIFIVE_TS_LOWER:
	case SIFIVE_TS_UPPER:
		*val = trace_sim_ts_read(&b->ts, ktime_get_ns()) >>
		       (off == SIFIVE_TS_UPPER ? 32 : 0);
		return 0;
	}
	return -ENOENT;
}

static int trace_sim_block_write(struct trace_sim *ts, struct trace_sim_block *b,
				 struct trace_sim_te *te, unsigned int off, u32 val)
{
	switch (off) {
	case SIFIVE_TRACE_CONTROL:
		trace_sim_ctrl_write(ts, b, te, val);
		return 0;
	case SIFIVE_TS_CONTROL:
	case SIFIVE_TS_LOWER:
	case SIFIVE_TS_UPPER:
		trace_sim_ts_write(&b->ts, off, val);
		return 0;
	}
	if (!(b->control & SIFIVE_CTRL_ACTIVE))
		return -ENOENT;
	switch (off) {
	case SIFIVE_TRACE_SINK_BASE:
		b->base_lo = val & ~3u;
		return 0;
	case SIFIVE_TRACE_SINK_BASE_HIGH:
		b->base_hi = val;
		return 0;
	case SIFIVE_TRACE_SINK_LIMIT:
		b->limit = val;
		return 0;
	case SIFIVE_TRACE_SINK_WP:
		/* SRAM: bits above the size do not exist, which tells the size */
		if (trace_sim_sink(b) == SIFIVE_SINK_SRAM)
			b->wp = val & (((b->sram_size - 1) & ~3u) | SIFIVE_WP_WRAPPED);
		else
			b->wp = val & ~2u;
		return 0;
	case SIFIVE_TRACE_SINK_RP:
		b->rp = trace_sim_sink(b) == SIFIVE_SINK_SRAM ?
			val & (b->sram_size - 1) & ~3u : val & ~3u;
		return 0;
	}
	return -ENOENT;
}

/* Split an address into a block and an offset; NULL if unmapped */
static struct trace_sim_block *trace_sim_decode(struct trace_sim *ts, unsigned int reg,
						struct trace_sim_te **te, unsigned int *off)
{
	*off = reg % SIFIVE_TE_SPAN;
	*te = NULL;
	if (reg / SIFIVE_TE_SPAN < ts->nte) {
		*te = &ts->te[reg / SIFIVE_TE_SPAN];
		return &(*te)->b;
	}
	if (ts->cfg->funnel && reg - TRACE_SIM_FUNNEL_BASE < SIFIVE_TE_SPAN)
		return &ts->funnel;
	return NULL;
}

static int trace_sim_reg_read(void *model, unsigned int reg, unsigned int *val)
{
	struct trace_sim *ts = model;
	struct trace_sim_block *b;
	struct trace_sim_te *te;
	unsigned long flags;
	unsigned int off;

	*val = 0;
	b = trace_sim_decode(ts, reg, &te, &off);
	if (!b)
		return 0;
	raw_spin_lock_irqsave(&ts->lock, flags);
	if (trace_sim_block_read(ts, b, off, val) && te) {
		if (off == SIFIVE_ITC_TRACEENABLE) {
			*val = te->itc_enable;
		} else if (off == SIFIVE_ITC_TRIGENABLE) {
			*val = te->itc_trig;
		} else if (off >= SIFIVE_ITC_STIMULUS(0) &&
			   off < SIFIVE_ITC_STIMULUS(SIFIVE_ITC_NR_CHANNELS)) {
			/* 1: ready, unless made busy (debugfs "stim_busy") */
			*val = !ts->stim_busy;
			if (ts->stim_busy)
				ts->stim_busy--;
		}
	}
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	return 0;
}

/* A store of @width bits at @reg (byte address) */
static void trace_sim_store(struct trace_sim *ts, unsigned int reg, unsigned int width,
			    u32 val)
{
	struct trace_sim_block *b;
	struct trace_sim_te *te;
	unsigned long flags;
	unsigned int off;

	b = trace_sim_decode(ts, reg, &te, &off);
	if (!b || off % (width / 8))
		return;
	raw_spin_lock_irqsave(&ts->lock, flags);
	if (te && off >= SIFIVE_ITC_STIMULUS(0) &&
	    off < SIFIVE_ITC_STIMULUS(SIFIVE_ITC_NR_CHANNELS)) {
		if (off % 4 == SIFIVE_ITC_OFFSET(width))
			trace_sim_itc_log(ts, te, (off - SIFIVE_ITC_STIMULUS(0)) / 4, width, val);
	} else if (width == 32 && trace_sim_block_write(ts, b, te, off, val) && te &&
		   (b->control & SIFIVE_CTRL_ACTIVE)) {
		if (off == SIFIVE_ITC_TRACEENABLE)
			te->itc_enable = val;
		else if (off == SIFIVE_ITC_TRIGENABLE)
			te->itc_trig = val;
	}
	raw_spin_unlock_irqrestore(&ts->lock, flags);
}

static int trace_sim_reg_write(void *model, unsigned int reg, unsigned int val)
{
	trace_sim_store(model, reg, 32, val);
	return 0;
}

/* The 16- and 8-bit views of the register space, for ITC stores */
static int trace_sim_reg_write16(void *model, unsigned int reg, unsigned int val)
{
	struct trace_sim *ts = model;

	atomic64_inc(&ts->sdev->writes);
	trace_sim_store(ts, reg, 16, val & 0xffff);
	return 0;
}

static int trace_sim_reg_write8(void *model, unsigned int reg, unsigned int val)
{
	struct trace_sim *ts = model;

	atomic64_inc(&ts->sdev->writes);
	trace_sim_store(ts, reg, 8, val & 0xff);
	return 0;
}

static int trace_sim_reg_read_narrow(void *model, unsigned int reg, unsigned int *val)
{
	struct trace_sim *ts = model;

	atomic64_inc(&ts->sdev->reads);
	*val = 0;
	return 0;
}

static int trace_sim_add_narrow_map(struct trace_sim *ts, unsigned int bits)
{
	const struct regmap_config cfg = {
		.name = bits == 16 ? "itc16" : "itc8",
		.reg_bits = 32,
		.val_bits = bits,
		.reg_stride = bits / 8,
		.max_register = ts->sdev->max_register + 3,
		.reg_read = trace_sim_reg_read_narrow,
		.reg_write = bits == 16 ? trace_sim_reg_write16 : trace_sim_reg_write8,
		.fast_io = true,
		.disable_locking = true,
		.can_sleep = ts->sdev->sleeping_regmap,
		.cache_type = REGCACHE_NONE,
	};
	struct regmap *map = devm_regmap_init(ts->sdev->dev, NULL, ts, &cfg);

	return PTR_ERR_OR_ZERO(map);
}

/* debugfs */

static ssize_t trace_sim_itc_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct trace_sim *ts = file->private_data;
	unsigned int hart, ch, width, val;
	char *w[4];

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (socpmu_sim_split(cmd, w, 4) ||
	    socpmu_sim_parse_uint("hart", w[0], 0, ts->nte - 1, &hart) ||
	    socpmu_sim_parse_uint("channel", w[1], 0, SIFIVE_ITC_NR_CHANNELS - 1, &ch) ||
	    socpmu_sim_parse_uint("width", w[2], 8, 32, &width) ||
	    (width != 8 && width != 16 && width != 32) ||
	    socpmu_sim_parse_uint("value", w[3], 0, width == 32 ? U32_MAX : BIT(width) - 1,
				  &val))
		return -EINVAL;
	trace_sim_store(ts, hart * SIFIVE_TE_SPAN + SIFIVE_ITC_STIMULUS(ch) +
			SIFIVE_ITC_OFFSET(width), width, val);
	return count;
}

/*
 * "itc_log" write: "<n>" logs the next n stores to the stimulus registers
 * (a new, empty log; 0 ends logging and frees the log)
 */
static ssize_t trace_sim_itc_log_write(struct file *file, const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	char *cmd __free(kfree) = socpmu_sim_get_cmd(ubuf, count);
	struct trace_sim *ts = file->private_data;
	struct socpmu_sim_itc_rec *log = NULL, *old;
	unsigned long flags;
	unsigned int n;

	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	if (socpmu_sim_parse_uint("records", strim(cmd), 0, SOCPMU_SIM_ITC_LOG_MAX, &n))
		return -EINVAL;
	if (n) {
		log = kvcalloc(n, sizeof(*log), GFP_KERNEL);
		if (!log)
			return -ENOMEM;
	}
	mutex_lock(&ts->log_mutex);
	raw_spin_lock_irqsave(&ts->lock, flags);
	old = ts->log;
	ts->log = log;
	ts->log_size = n;
	ts->log_len = 0;
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	mutex_unlock(&ts->log_mutex);
	kvfree(old);
	return count;
}

/* "itc_log" read: the records so far (struct socpmu_sim_itc_rec) */
static ssize_t trace_sim_itc_log_read(struct file *file, char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct trace_sim *ts = file->private_data;
	ssize_t ret;
	u32 len;

	mutex_lock(&ts->log_mutex);
	/* pairs with trace_sim_itc_log(): the records below len are complete */
	len = smp_load_acquire(&ts->log_len);
	ret = simple_read_from_buffer(ubuf, count, ppos, ts->log, len * sizeof(*ts->log));
	mutex_unlock(&ts->log_mutex);
	return ret;
}

static int trace_sim_stats_show(struct seq_file *s, void *unused)
{
	struct trace_sim *ts = s->private;
	struct trace_sim_stats st;
	unsigned long flags;

	raw_spin_lock_irqsave(&ts->lock, flags);
	st = ts->stats;
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	seq_printf(s, "messages %llu\nbytes %llu\ndropped %llu\ndma_faults %llu\nwraps %llu\n",
		   st.msgs, st.bytes, st.dropped, st.dma_faults, st.wraps);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trace_sim_stats);

static const struct file_operations trace_sim_itc_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = trace_sim_itc_write,
	.llseek = noop_llseek,
};

static const struct file_operations trace_sim_itc_log_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = trace_sim_itc_log_read,
	.write = trace_sim_itc_log_write,
	.llseek = default_llseek,
};

static void trace_sim_debugfs_init(struct socpmu_sim_dev *sdev, struct dentry *dir)
{
	debugfs_create_file("itc", 0200, dir, sdev->model, &trace_sim_itc_fops);
	debugfs_create_file("itc_log", 0600, dir, sdev->model, &trace_sim_itc_log_fops);
	debugfs_create_file("stats", 0400, dir, sdev->model, &trace_sim_stats_fops);
	debugfs_create_u32("stim_busy", 0600, dir, &((struct trace_sim *)sdev->model)->stim_busy);
	debugfs_create_u64("ts_jump", 0600, dir, &((struct trace_sim *)sdev->model)->ts_jump);
}

/* Configuration */

static void trace_sim_cfg_init(void *data)
{
	struct trace_sim_cfg *cfg = data;

	cfg->harts = 2;
	cfg->funnel = true;
	cfg->sram = TRACE_SIM_SRAM_DEFAULT;
	cfg->sba = true;
}

static int trace_sim_cfg_parse(void *data, const char *key, const char *val)
{
	struct trace_sim_cfg *cfg = data;
	unsigned int v;

	if (!strcmp(key, "harts"))
		return socpmu_sim_parse_uint(key, val, 1, TRACE_SIM_MAX_HARTS, &cfg->harts);
	if (!strcmp(key, "sram")) {
		if (socpmu_sim_parse_uint(key, val, 0, TRACE_SIM_SRAM_MAX, &v))
			return -EINVAL;
		if (v && (v < TRACE_SIM_SRAM_MIN || !is_power_of_2(v))) {
			pr_debug("sram=%s: 0 or a power of 2 from %u\n", val, TRACE_SIM_SRAM_MIN);
			return -EINVAL;
		}
		cfg->sram = v;
		return 0;
	}
	if (!strcmp(key, "funnel") || !strcmp(key, "sba") || !strcmp(key, "never_empty")) {
		if (socpmu_sim_parse_uint(key, val, 0, 1, &v))
			return -EINVAL;
		if (key[0] == 'f')
			cfg->funnel = v;
		else if (key[0] == 's')
			cfg->sba = v;
		else
			cfg->never_empty = v;
		return 0;
	}
	if (!strcmp(key, "sba_buf"))
		return socpmu_sim_parse_uint(key, val, 0, U32_MAX, &cfg->sba_buf);
	pr_debug("unknown parameter \"%s\"\n", key);
	return -EINVAL;
}

static int trace_sim_cfg_show(const void *data, char *buf, int at)
{
	const struct trace_sim_cfg *cfg = data;

	return sysfs_emit_at(buf, at,
			     " harts=%u funnel=%u sram=%u sba=%u never_empty=%u sba_buf=%u",
			     cfg->harts, cfg->funnel, cfg->sram, cfg->sba, cfg->never_empty,
			     cfg->sba_buf);
}

static int trace_sim_block_init(struct trace_sim_block *b, const struct trace_sim_cfg *cfg,
				bool sinks, u32 ts_type)
{
	b->impl = 1;	/* version */
	if (sinks && cfg->sram) {
		b->impl |= SIFIVE_IMPL_HAS_SINK(SIFIVE_SINK_SRAM);
		b->sram_size = cfg->sram;
		b->sram = kvzalloc(cfg->sram, GFP_KERNEL);
		if (!b->sram)
			return -ENOMEM;
	}
	if (sinks && cfg->sba)
		b->impl |= SIFIVE_IMPL_HAS_SINK(SIFIVE_SINK_SBA);
	b->ts.type = ts_type;
	return 0;
}

static void trace_sim_destroy(void *model)
{
	struct trace_sim *ts = model;
	unsigned int h;

	for (h = 0; h < ts->nte; h++)
		kvfree(ts->te[h].b.sram);
	kvfree(ts->funnel.sram);
	kvfree(ts->log);
	mutex_destroy(&ts->log_mutex);
	kfree(ts);
}

static void *trace_sim_create(struct socpmu_sim_dev *sdev)
{
	const struct trace_sim_cfg *cfg = sdev->cfg;
	struct trace_sim_te *te;
	struct trace_sim *ts;
	unsigned int h;
	int ret;

	if (!cfg->sram && !cfg->sba) {
		pr_debug("no sink: needs sram > 0 or sba=1\n");
		return ERR_PTR(-EINVAL);
	}
	ts = kzalloc(struct_size(ts, te, cfg->harts), GFP_KERNEL);
	if (!ts)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&ts->lock);
	mutex_init(&ts->log_mutex);
	ts->cfg = cfg;
	ts->sdev = sdev;
	ts->nte = cfg->harts;
	ts->srcbits = cfg->funnel ? max(1, order_base_2(cfg->harts)) : 0;
	ret = cfg->funnel ? trace_sim_block_init(&ts->funnel, cfg, true, SIFIVE_TS_TYPE_BUS) : 0;
	for (h = 0; h < cfg->harts && !ret; h++) {
		te = &ts->te[h];
		te->hart = h;
		ret = trace_sim_block_init(&te->b, cfg, !cfg->funnel, cfg->funnel ?
					   SIFIVE_TS_TYPE_SLAVE : SIFIVE_TS_TYPE_BUS);
		if (cfg->funnel)
			te->b.impl |= SIFIVE_IMPL_HAS_SINK(SIFIVE_SINK_FUNNEL);
		te->b.impl |= h << SIFIVE_IMPL_SRCID_SHIFT |
			      ts->srcbits << SIFIVE_IMPL_NSRCBITS_SHIFT |
			      h << SIFIVE_IMPL_HARTID_SHIFT;
	}
	sdev->max_register = cfg->funnel ? TRACE_SIM_FUNNEL_BASE + SIFIVE_TE_SPAN - 4 :
					   cfg->harts * SIFIVE_TE_SPAN - 4;
	/* The core adds the 32-bit regmap after this one, so it stays the default */
	if (!ret)
		ret = trace_sim_add_narrow_map(ts, 16);
	if (!ret)
		ret = trace_sim_add_narrow_map(ts, 8);
	if (ret) {
		trace_sim_destroy(ts);
		return ERR_PTR(ret);
	}
	return ts;
}

/* Children: like socpmu_sim_add_child(), but several of a name, DMA-capable */

static void trace_sim_del_child(void *child)
{
	platform_device_unregister(child);
}

static struct device *trace_sim_add_child(struct socpmu_sim_dev *sdev, const char *name,
					  const struct property_entry *props)
{
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_alloc(name, PLATFORM_DEVID_AUTO);
	if (!pdev)
		return ERR_PTR(-ENOMEM);
	pdev->dev.parent = sdev->dev;
	set_dma_ops(&pdev->dev, &trace_sim_dma_ops);
	ret = device_create_managed_software_node(&pdev->dev, props, NULL);
	if (!ret)
		ret = platform_device_add(pdev);
	if (ret) {
		platform_device_put(pdev);
		return ERR_PTR(ret);
	}
	ret = devm_add_action_or_reset(sdev->dev, trace_sim_del_child, pdev);
	return ret ? ERR_PTR(ret) : &pdev->dev;
}

static int trace_sim_add_children(struct socpmu_sim_dev *sdev)
{
	const struct software_node *funnel_node = NULL;
	struct trace_sim *ts = sdev->model;
	struct device *dev;
	unsigned int h;

	if (ts->cfg->funnel) {
		const struct property_entry props[] = {
			PROPERTY_ENTRY_U32("reg", TRACE_SIM_FUNNEL_BASE),
			ts->cfg->sba_buf ?
			PROPERTY_ENTRY_U32("sifive,sba-buffer-size", ts->cfg->sba_buf) :
			(struct property_entry){ },
			{ }
		};

		dev = trace_sim_add_child(sdev, "sifive-trace-funnel", props);
		if (IS_ERR(dev))
			return PTR_ERR(dev);
		ts->funnel.dev = dev;
		funnel_node = to_software_node(dev_fwnode(dev));
	}
	for (h = 0; h < ts->nte; h++) {
		const struct property_entry props[] = {
			PROPERTY_ENTRY_U32("reg", h * SIFIVE_TE_SPAN),
			funnel_node ? PROPERTY_ENTRY_REF("sifive,funnel", funnel_node) :
			ts->cfg->sba_buf ?
			PROPERTY_ENTRY_U32("sifive,sba-buffer-size", ts->cfg->sba_buf) :
			(struct property_entry){ },
			{ }
		};

		dev = trace_sim_add_child(sdev, "sifive-trace-encoder", props);
		if (IS_ERR(dev))
			return PTR_ERR(dev);
		ts->te[h].b.dev = dev;
	}
	return 0;
}

const struct socpmu_sim_type socpmu_sim_trace = {
	.name = "trace",
	.cfg_size = sizeof(struct trace_sim_cfg),
	.cfg_init = trace_sim_cfg_init,
	.cfg_parse = trace_sim_cfg_parse,
	.cfg_show = trace_sim_cfg_show,
	.create = trace_sim_create,
	.destroy = trace_sim_destroy,
	.reg_read = trace_sim_reg_read,
	.reg_write = trace_sim_reg_write,
	.debugfs_init = trace_sim_debugfs_init,
	.add_children = trace_sim_add_children,
};
