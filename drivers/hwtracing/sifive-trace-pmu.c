// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive trace: the sifive_trace perf PMU.
 *
 * One AUX-area PMU for every hart with a trace encoder. An event (per CPU or
 * per task) traces ITC messages on the hart it runs on, at most one event
 * per hart. Its configuration:
 *   config:0-3   sink: 0 = SBA if the hart has one, else SRAM; 4 = SRAM;
 *                7 = SBA (the hardware's sink codes)
 *   config:4     stoponwrap: when trace does not fit, keep the oldest and
 *                stop (PERF_AUX_FLAG_TRUNCATED); otherwise keep the newest
 *                (PERF_AUX_FLAG_PARTIAL)
 *   config:5     timestamp: timestamps in ITC messages
 *   config1:0-31 channels: ITC channel mask (0 = all)
 *
 * Where trace goes: while an event runs, its TE writes into a sink window;
 * when the event stops (context switch, disable) or the window is about to
 * be full, the window is drained into the AUX buffer and trace resumes,
 * which starts with a new sync message (full timestamp), so every AUX
 * record decodes on its own.
 *  - SBA sink of the TE itself: the window is the AUX buffer itself when
 *    the AUX pages from the head on are physically contiguous (perf hands
 *    out large contiguous chunks to this PMU); nothing is copied.
 *  - Otherwise (SRAM, or SBA with scattered AUX pages) the window is the
 *    sink's own memory, copied to the AUX buffer when drained.
 *  - A funnel's sink is shared by its TEs. Draining it splits the messages
 *    by their SRC field: the current hart's go to its AUX buffer, the
 *    others' straight into the open record of their hart's event. So
 *    several harts trace at once, each into its own event.
 * ITC stores only happen through /dev/sifive-itc, on the writer's own hart:
 * before a store that might not fit, the writer drains the window (if the
 * AUX buffer can take it; a private sink that cannot be drained stops or
 * wraps as the event asked). Nothing is lost while the AUX buffer has room.
 *
 * Everything here runs with interrupts off (perf callbacks, ITC batches of
 * ST_ITC_CHUNK stores), so every drain is bounded (sifive-trace.h): waits
 * for trace in flight share ST_EMPTY_POLLS register reads, a copy sink is
 * drained once it holds ST_SRAM_COPY_MAX (SRAM) or its buffer (SBA, at most
 * ST_SBA_BUF_MAX) and a drain copies no more than that, and a direct window
 * is at most ST_DIRECT_MAX. A stop thus does a fixed amount of work
 * whatever the hardware does: a block that never drains truncates the
 * record (and perf disables the event) instead of being waited for.
 */
#define pr_fmt(fmt) "sifive_trace: " fmt

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include <socpmu/core.h>

#include "sifive-trace.h"

#define ST_CFG_SINK		GENMASK_ULL(3, 0)
#define ST_CFG_STOPONWRAP	BIT_ULL(4)
#define ST_CFG_TIMESTAMP	BIT_ULL(5)
#define ST_CFG_VALID		(ST_CFG_SINK | ST_CFG_STOPONWRAP | ST_CFG_TIMESTAMP)
#define ST_CFG1_CHANNELS	GENMASK_ULL(SIFIVE_ITC_NR_CHANNELS - 1, 0)

#define ST_DIRECT_MIN		1024	/* smallest AUX window worth mapping */
#define ST_ITC_CHUNK		64	/* ITC stores per interrupts-off section */
#define ST_STIM_POLLS		1000	/* reads of a stimulus register until ready */
#define ST_WINDOW_SLACK		8	/* bytes of a window kept free: see st_make_room() */

/* The AUX buffer: perf's pages, a power of 2 of them */
struct st_aux {
	void **pages;
	unsigned int nr_pages;
	size_t size;
	bool overwrite;
};

/**
 * struct st_cpu - the event on a CPU and its output
 * @handle: AUX output handle while @started
 * @event: event added on this CPU
 * @te: its trace encoder, NULL if gone
 * @started: tracing into @handle
 * @full: stopped on wrap: nothing more goes out until the next start
 * @out: bytes written at @handle.head in the current record
 * @flags: PERF_AUX_FLAG_* of the current record
 * @code: sink code
 * @channels: ITC channel mask
 * @stop_on_wrap: keep the oldest trace when it does not fit
 * @timestamp: timestamps in ITC messages
 * @dma: bus address of the direct window
 * @dma_len: its size
 * @dma_va: its kernel address
 * @commit: drains and commits the record on this CPU when other harts'
 *	drains have filled it (st_route())
 */
struct st_cpu {
	struct perf_output_handle handle;
	struct perf_event *event;
	struct st_te *te;
	bool started;
	bool full;
	size_t out;
	u32 flags;
	unsigned int code;
	u32 channels;
	bool stop_on_wrap;
	bool timestamp;
	dma_addr_t dma;
	size_t dma_len;
	u8 *dma_va;
	call_single_data_t commit;
};

static DEFINE_PER_CPU(struct st_cpu, st_cpu);
static struct pmu st_pmu;

/* debugfs sifive_trace/stats: where trace went */
enum {
	ST_STAT_RECORDS,	/* AUX records written */
	ST_STAT_DIRECT,		/* bytes the SBA sink wrote into AUX buffers */
	ST_STAT_COPIED,		/* bytes copied into AUX buffers */
	ST_STAT_ROUTED,		/* bytes of other harts behind a funnel put in their AUX buffers */
	ST_STAT_DRAINS,		/* drains so that ITC stores fit */
	ST_STAT_NOT_READY,	/* ITC stores lost: register never ready */
	ST_STAT_STUCK,		/* drains in which a block did not drain in ST_EMPTY_POLLS */
	ST_STAT_LEFT,		/* bytes left in a sink: beyond a drain's bound or the AUX room */
	ST_STAT_COMMITS,	/* records committed on their CPU, filled by other harts' drains */
	ST_NR_STATS
};

static const char *const st_stat_names[ST_NR_STATS] = {
	"records", "direct_bytes", "copied_bytes", "routed_bytes", "drains", "not_ready",
	"stuck", "left_bytes", "routed_commits",
};

static atomic64_t st_stats[ST_NR_STATS];
static struct dentry *st_debugfs;

static void st_stat(unsigned int i, u64 n)
{
	atomic64_add(n, &st_stats[i]);
}

/* AUX buffer output */

static struct st_aux *st_aux_of(struct st_cpu *c)
{
	return perf_get_aux(&c->handle);
}

static size_t st_aux_room(struct st_cpu *c)
{
	struct st_aux *aux = st_aux_of(c);

	/* In overwrite mode perf sets no size: the whole buffer is ours */
	return (aux->overwrite ? aux->size : c->handle.size) - c->out;
}

static size_t st_aux_offset(struct st_cpu *c)
{
	return (c->handle.head + c->out) & (st_aux_of(c)->size - 1);
}

static void st_aux_put(struct st_cpu *c, const void *src, size_t len)
{
	struct st_aux *aux = st_aux_of(c);
	size_t off = st_aux_offset(c), n;

	c->out += len;
	st_stat(ST_STAT_COPIED, len);
	while (len) {
		n = min(len, PAGE_SIZE - offset_in_page(off));
		memcpy(aux->pages[off >> PAGE_SHIFT] + offset_in_page(off), src, n);
		src += n;
		len -= n;
		off = (off + n) & (aux->size - 1);
	}
}

/*
 * Put @n bytes of the hart's own trace into its AUX buffer. What does not
 * fit is lost: the newest part (and tracing stops) with stop-on-wrap, else
 * the oldest.
 */
static void st_out(struct st_cpu *c, const u8 *data, size_t n)
{
	size_t room;

	if (c->full)
		return;
	room = st_aux_room(c);
	if (n > room) {
		if (c->stop_on_wrap) {
			st_aux_put(c, data, room);
			c->flags |= PERF_AUX_FLAG_TRUNCATED;
			c->full = true;
			return;
		}
		data += n - room;
		n = room;
		c->flags |= PERF_AUX_FLAG_PARTIAL;
	}
	st_aux_put(c, data, n);
}

/* st_window_read() callback: into the AUX buffer */
static void st_aux_put_cb(void *ctx, const void *p, size_t n)
{
	st_aux_put(ctx, p, n);
}

/* st_window_read() callback: into the funnel's bounce buffer */
static void st_bounce_put_cb(void *ctx, const void *p, size_t n)
{
	struct st_block *b = ctx;

	memcpy(b->bounce + b->bounce_len, p, n);
	b->bounce_len += n;
}

/* Bytes of a copy sink one drain takes: what can be copied with interrupts off */
static size_t st_copy_max(struct st_block *b)
{
	return b->sink->code == SIFIVE_SINK_SRAM ? ST_SRAM_COPY_MAX : b->win_size;
}

/* Bytes the window may hold before it must be drained */
static size_t st_window_cap(struct st_block *b)
{
	return b->direct ? b->win_size : min(b->win_size, st_copy_max(b));
}

/*
 * Which @len of the @n bytes from @start (window offsets) a drain takes,
 * when @n bytes are in the window (@wrapped: the sink wrapped) and @max can
 * be taken: the oldest with stop-on-wrap, else the newest. Sets the
 * record's flags: TRUNCATED (and the hart stops) or PARTIAL when bytes are
 * left behind or were overwritten.
 */
static size_t st_take(struct st_cpu *c, size_t n, bool wrapped, size_t max, size_t *start)
{
	size_t len = min(n, max);

	if (!wrapped && len == n)
		return len;
	if (c->stop_on_wrap) {
		c->flags |= PERF_AUX_FLAG_TRUNCATED;
		c->full = true;
	} else {
		/* newest: from a word, as the SRAM is read */
		len = round_down(len, 4);
		*start += n - len;
		c->flags |= PERF_AUX_FLAG_PARTIAL;
	}
	st_stat(ST_STAT_LEFT, n - len);
	return len;
}

/*
 * Nexus message boundaries: a message ends with a byte whose MSEO is 11.
 * Zero bytes between messages are flush padding. After a wrap the data
 * starts inside a message: skip to the end of it. Only that end resyncs:
 * a zero byte is also an ordinary byte inside a message (six zero bits of
 * a field), and taking it for padding would frame a message from the
 * middle of one.
 */
struct st_msg_iter {
	const u8 *buf;
	size_t n;
	size_t pos;
	bool sync;
};

static bool st_next_msg(struct st_msg_iter *it, size_t *start, size_t *len)
{
	u8 b;

	while (it->pos < it->n) {
		b = it->buf[it->pos];
		if (it->sync || !b || (b & NEXUS_MSEO_MASK) != NEXUS_MSEO_NORMAL) {
			/* not the first byte of a message */
			if (b)
				it->sync = (b & NEXUS_MSEO_MASK) != NEXUS_MSEO_END_MSG;
			it->pos++;
			continue;
		}
		*start = it->pos;
		while (it->pos < it->n) {
			b = it->buf[it->pos++];
			if ((b & NEXUS_MSEO_MASK) == NEXUS_MSEO_END_MSG) {
				*len = it->pos - *start;
				return *len > 1;
			}
		}
	}
	return false;	/* the end, or an unfinished message */
}

/* Hardware sequences, under the sink lock */

/* Stop tracing; false if the TE did not drain within @polls */
static bool st_te_pause(struct st_te *te, unsigned int *polls)
{
	st_write(&te->blk, SIFIVE_TRACE_CONTROL, st_ctrl(&te->blk) & ~SIFIVE_CTRL_TRACING);
	return st_wait_empty(&te->blk, polls);
}

/* Tracing (re)starts: the TE first emits a sync message with a full timestamp */
static void st_te_resume(struct st_te *te)
{
	st_write(&te->blk, SIFIVE_TRACE_CONTROL, st_ctrl(&te->blk) | SIFIVE_CTRL_ENABLE |
		 SIFIVE_CTRL_TRACING);
}

/* Reset and configure the TE, not yet tracing */
static void st_te_setup(struct st_cpu *c, struct st_te *te)
{
	u32 ctrl = SIFIVE_CTRL_ACTIVE | SIFIVE_CTRL_ENABLE | SIFIVE_CTRL_INSTRUMENT_ITC;
	u32 ts = SIFIVE_TS_ACTIVE | SIFIVE_TS_COUNT;
	struct st_block *b = &te->blk;

	if (te->funnel) {
		ctrl |= SIFIVE_SINK_FUNNEL << SIFIVE_CTRL_SINK_SHIFT;
	} else {
		ctrl |= c->code << SIFIVE_CTRL_SINK_SHIFT;
		if (c->stop_on_wrap)
			ctrl |= SIFIVE_CTRL_STOP_ON_WRAP;
	}
	st_write(b, SIFIVE_TRACE_CONTROL, 0);
	st_write(b, SIFIVE_TRACE_CONTROL, ctrl);
	st_write(b, SIFIVE_ITC_TRACEENABLE, c->channels);
	if (c->timestamp)
		ts |= SIFIVE_TS_ENABLE | SIFIVE_TS_INSTRUMENTATION;
	st_write(b, SIFIVE_TS_CONTROL, ts);
}

/* Make the AUX buffer from the head on the SBA sink's window, if contiguous */
static bool st_direct_map(struct st_cpu *c, struct st_te *te)
{
	static const u8 zeros[4];
	struct st_aux *aux = st_aux_of(c);
	struct device *dev = te->blk.dev;
	size_t off = st_aux_offset(c), len, pad = -off & 3;
	unsigned int i;
	dma_addr_t dma;

	/* The sink writes whole words: align with padding, which decoders skip */
	if (pad) {
		if (st_aux_room(c) < pad)
			return false;
		st_aux_put(c, zeros, pad);
		off = st_aux_offset(c);
	}
	len = PAGE_SIZE - offset_in_page(off);
	for (i = (off >> PAGE_SHIFT) + 1; i < aux->nr_pages && len < ST_DIRECT_MAX; i++) {
		if (page_to_pfn(virt_to_page(aux->pages[i])) !=
		    page_to_pfn(virt_to_page(aux->pages[i - 1])) + 1)
			break;
		len += PAGE_SIZE;
	}
	/*
	 * At most half the free space, as perf's default watermark: the
	 * consumer gets trace while the next window fills. At most
	 * ST_DIRECT_MAX: a wrapped window is rotated with interrupts off.
	 */
	len = min_t(size_t, len, ST_DIRECT_MAX);
	len = min(len, max_t(size_t, ST_DIRECT_MIN, st_aux_room(c) / 2));
	len = min(len, st_aux_room(c)) & ~(size_t)3;
	if (len < ST_DIRECT_MIN)
		return false;
	dma = dma_map_page(dev, virt_to_page(aux->pages[off >> PAGE_SHIFT]),
			   offset_in_page(off), len, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dma))
		return false;
	if (upper_32_bits(dma) != upper_32_bits(dma + len - 1)) {
		dma_unmap_page(dev, dma, len, DMA_FROM_DEVICE);
		return false;
	}
	c->dma = dma;
	c->dma_len = len;
	c->dma_va = aux->pages[off >> PAGE_SHIFT] + offset_in_page(off);
	return true;
}

/* Point the TE's own sink at a window: the AUX buffer itself if possible */
static void st_private_window(struct st_cpu *c, struct st_te *te)
{
	struct st_block *b = &te->blk;
	struct st_sink *s = st_block_sink(b, c->code);

	b->direct = s->code == SIFIVE_SINK_SBA && st_direct_map(c, te);
	if (b->direct)
		st_window_program(b, s, c->dma, c->dma_len);
	else
		st_window_program(b, s, s->code == SIFIVE_SINK_SBA ? s->dma : 0, s->size);
}

static void st_reverse(u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n / 2; i++)
		swap(p[i], p[n - 1 - i]);
}

/* The direct window is done: its trace is in the AUX buffer already */
static void st_direct_collect(struct st_cpu *c, struct st_te *te)
{
	struct st_block *b = &te->blk;
	size_t n, off;
	bool wrapped;

	n = st_window_fill(b, &wrapped);
	off = st_window_wp(b);
	dma_unmap_page(b->dev, c->dma, c->dma_len, DMA_FROM_DEVICE);
	b->direct = false;
	if (wrapped && c->stop_on_wrap) {
		c->flags |= PERF_AUX_FLAG_TRUNCATED;
		c->full = true;
	} else if (wrapped) {
		/* Oldest byte first: rotate the window (<= ST_DIRECT_MAX) left by WP */
		st_reverse(c->dma_va, off);
		st_reverse(c->dma_va + off, n - off);
		st_reverse(c->dma_va, n);
		c->flags |= PERF_AUX_FLAG_PARTIAL;
	}
	c->out += n;
	st_stat(ST_STAT_DIRECT, n);
}

/*
 * Copy the TE's own sink into the AUX buffer and empty it: at most
 * st_copy_max() bytes (and what the AUX buffer has room for).
 */
static void st_copy_collect(struct st_cpu *c, struct st_block *b)
{
	size_t n, len, start = 0, max = 0;
	bool wrapped;

	n = st_window_fill(b, &wrapped);
	if (wrapped)
		start = st_window_wp(b);
	if (!c->full)
		max = min(st_aux_room(c), st_copy_max(b));
	len = st_take(c, n, wrapped, max, &start);
	st_window_read(b, start % b->win_size, len, st_aux_put_cb, c);
	st_window_reset(b);
}

static unsigned int st_msg_src(const u8 *msg, unsigned int srcbits)
{
	return (msg[1] >> 2) & (BIT(srcbits) - 1);
}

/*
 * A message of another hart behind the funnel goes straight into that
 * hart's open AUX record (its st_cpu only changes under the funnel lock,
 * which is held). Without a started event there, or without room, it is
 * dropped and the record says so. Only that hart's CPU can commit the
 * record (perf's AUX handle is its CPU's): once the record is half full,
 * or the message found no room, that CPU is asked to (st_ask_commit()), so
 * that a hart that is quiet while others trace does not run out of room
 * its consumer could have made.
 */
static void st_commit_fn(void *info);

/*
 * Ask @cpu, whose hart's record @o holds trace routed there, to drain and
 * commit it (an IPI; nothing if it is already asked, or in overwrite mode,
 * where the record is written out at the end). st_commit_fn() checks that
 * the event is still there. It cannot run after the module is gone: the
 * TE's removal (st_pmu_detach()) makes a synchronous call on @cpu, which
 * runs after any request queued there before it, and clears @o->te.
 */
static void st_ask_commit(struct st_cpu *o, unsigned int cpu)
{
	if (st_aux_of(o)->overwrite || cpu == smp_processor_id())
		return;
	smp_call_function_single_async(cpu, &o->commit);
}

static void st_route(struct st_funnel *fun, unsigned int src, const u8 *msg, size_t len)
{
	struct st_te *te;
	struct st_cpu *o;

	/*
	 * SRC can be up to 7 bits wide: a TE this driver does not manage (ids
	 * from ST_MAX_SRC up are refused at probe) may still feed the funnel
	 */
	if (src >= ST_MAX_SRC) {
		st_stat(ST_STAT_LEFT, len);
		return;
	}
	te = fun->src[src];
	if (!te)
		return;
	o = per_cpu_ptr(&st_cpu, te->cpu);
	if (!o->started || o->te != te || o->full) {
		st_stat(ST_STAT_LEFT, len);
		return;
	}
	if (len > st_aux_room(o)) {
		o->flags |= o->stop_on_wrap ? PERF_AUX_FLAG_TRUNCATED : PERF_AUX_FLAG_PARTIAL;
		o->full = o->stop_on_wrap;
		st_stat(ST_STAT_LEFT, len);
		if (!o->full)
			st_ask_commit(o, te->cpu);
		return;
	}
	st_aux_put(o, msg, len);
	st_stat(ST_STAT_ROUTED, len);
	if (o->out * 2 >= o->handle.size)
		st_ask_commit(o, te->cpu);
}

/* Every hart tracing into the funnel: its next record has a gap */
static void st_funnel_gap(struct st_funnel *fun)
{
	unsigned int src;
	struct st_cpu *o;

	for (src = 0; src < ST_MAX_SRC; src++) {
		if (!fun->src[src])
			continue;
		o = per_cpu_ptr(&st_cpu, fun->src[src]->cpu);
		if (o->started && o->te == fun->src[src])
			o->flags |= PERF_AUX_FLAG_PARTIAL;
	}
}

/*
 * Drain the funnel's shared sink: the current hart's messages to its AUX
 * buffer, every other hart's to the open record of its own event. At most
 * st_copy_max() bytes, the newest, are taken; a sink that held more (or
 * wrapped) leaves a gap in every hart's trace. False if a block did not
 * drain within @polls.
 */
static bool st_funnel_collect(struct st_cpu *c, struct st_te *cur, unsigned int *polls)
{
	struct st_funnel *fun = cur->funnel;
	struct st_block *b = &fun->blk;
	size_t n, start = 0, len, mlen, count = 0, skip = 0;
	struct st_msg_iter it;
	unsigned int src;
	bool wrapped, gap, sync, ok = true;

	for (src = 0; src < ST_MAX_SRC; src++)
		if (fun->src[src])
			ok &= st_flush(&fun->src[src]->blk, polls);
	ok &= st_flush(b, polls);
	n = st_window_fill(b, &wrapped);
	if (wrapped)
		start = st_window_wp(b);
	len = min(n, min(st_copy_max(b), b->bounce_size));
	gap = wrapped || len < n;
	if (gap) {
		st_funnel_gap(fun);
		st_stat(ST_STAT_LEFT, n - len);
		start += n - len;
	}
	b->bounce_len = 0;
	st_window_read(b, start % b->win_size, len, st_bounce_put_cb, b);
	st_window_reset(b);
	/* Stopped on wrap: restart it */
	if (wrapped)
		st_write(b, SIFIVE_TRACE_CONTROL, st_ctrl(b) | SIFIVE_CTRL_ENABLE);

	/*
	 * A funnel stops on wrap: even wrapped, its data starts with a whole
	 * message. Only taking the newest part of it starts inside one.
	 */
	sync = len < n;
	/* With wrap, the newest of the hart's trace is what is kept */
	it = (struct st_msg_iter){ .buf = b->bounce, .n = len, .sync = sync };
	while (st_next_msg(&it, &start, &mlen))
		if (st_msg_src(b->bounce + start, cur->srcbits) == cur->src)
			count += mlen;
	if (!c->stop_on_wrap && count > st_aux_room(c)) {
		skip = count - st_aux_room(c);
		c->flags |= PERF_AUX_FLAG_PARTIAL;
	}

	it = (struct st_msg_iter){ .buf = b->bounce, .n = len, .sync = sync };
	while (st_next_msg(&it, &start, &mlen)) {
		src = st_msg_src(b->bounce + start, cur->srcbits);
		if (src != cur->src) {
			st_route(fun, src, b->bounce + start, mlen);
		} else if (skip >= mlen) {
			skip -= mlen;
		} else {
			st_out(c, b->bounce + start + skip, mlen - skip);
			skip = 0;
		}
	}
	return ok;
}

/* The first TE tracing into the funnel turns it on */
static void st_funnel_get(struct st_te *te)
{
	struct st_funnel *fun = te->funnel;
	struct st_block *b = &fun->blk;
	struct st_sink *s = st_block_sink(b, fun->code);
	u32 ctrl = SIFIVE_CTRL_ACTIVE | SIFIVE_CTRL_STOP_ON_WRAP |
		   fun->code << SIFIVE_CTRL_SINK_SHIFT;

	if (fun->users++)
		return;
	st_write(b, SIFIVE_TRACE_CONTROL, 0);
	st_write(b, SIFIVE_TRACE_CONTROL, ctrl);
	st_window_program(b, s, s->code == SIFIVE_SINK_SBA ? s->dma : 0, s->size);
	st_write(b, SIFIVE_TRACE_CONTROL, ctrl | SIFIVE_CTRL_ENABLE);
}

static void st_funnel_put(struct st_te *te)
{
	struct st_funnel *fun = te->funnel;

	if (!--fun->users)
		st_write(&fun->blk, SIFIVE_TRACE_CONTROL, st_ctrl(&fun->blk) & ~SIFIVE_CTRL_ENABLE);
}

/* The hart stops tracing (its trace was drained) */
static void st_hart_stop(struct st_cpu *c, unsigned int *polls)
{
	struct st_te *te = c->te;

	if (!st_te_pause(te, polls))
		st_stat(ST_STAT_STUCK, 1);
	if (te->funnel)
		st_funnel_put(te);
	if (te->blk.direct) {
		/* its trace was not committed: lost */
		dma_unmap_page(te->blk.dev, c->dma, c->dma_len, DMA_FROM_DEVICE);
		te->blk.direct = false;
	}
	c->started = false;
	c->event->hw.state |= PERF_HES_STOPPED;
}

/**
 * st_drain() - move the hart's trace into its AUX buffer and close the record
 * @c: the hart's state
 * @final: the event stops
 *
 * Unless @final, open a new record and go on tracing; if that cannot be
 * (buffer full, stopped on wrap), the hart stops. The work is bounded: the
 * waits for trace in flight share ST_EMPTY_POLLS register reads (a block
 * that does not drain truncates the record and stops the hart), and a copy
 * sink gives at most st_copy_max() bytes.
 */
static void st_drain(struct st_cpu *c, bool final)
{
	unsigned int polls = ST_EMPTY_POLLS;
	struct st_te *te = c->te;
	struct st_aux *aux = st_aux_of(c);
	bool ok = true;

	if (te->funnel) {
		/*
		 * Paused, and resumed below, also when it goes on: the next
		 * record then starts with the sync message the TE emits when
		 * tracing restarts, as a private sink's does
		 */
		ok = st_te_pause(te, &polls);
		ok &= st_funnel_collect(c, te, &polls);
	} else {
		ok = st_te_pause(te, &polls);
		if (te->blk.direct)
			st_direct_collect(c, te);
		else
			st_copy_collect(c, &te->blk);
	}
	if (!ok) {
		/* Trace still in flight is lost: the record misses its end */
		c->flags |= PERF_AUX_FLAG_TRUNCATED;
		c->full = true;
		st_stat(ST_STAT_STUCK, 1);
	}
	if (c->flags)
		perf_aux_output_flag(&c->handle, c->flags);
	if (aux->overwrite)
		c->handle.head += c->out;
	perf_aux_output_end(&c->handle, c->out);
	st_stat(ST_STAT_RECORDS, 1);
	c->out = 0;
	c->flags = 0;

	if (final || c->full || !perf_aux_output_begin(&c->handle, c->event)) {
		st_hart_stop(c, &polls);
		return;
	}
	if (!te->funnel)
		st_private_window(c, te);
	st_te_resume(te);
}

/*
 * On the CPU of a hart whose record other harts' drains filled (st_route()):
 * drain it as the hart's own drain would, which commits the record, opens
 * the next one with the room its consumer has made, and restarts the TE so
 * that the next record starts with a sync message. The hart may have
 * stopped, or its event gone, since it was asked.
 */
static void st_commit_fn(void *info)
{
	struct st_cpu *c = info;
	struct st_te *te = c->te;
	unsigned long irqflags;

	if (!te || !te->funnel)
		return;
	raw_spin_lock_irqsave(st_te_lock(te), irqflags);
	if (c->started && c->te == te && !st_aux_of(c)->overwrite) {
		st_stat(ST_STAT_COMMITS, 1);
		st_drain(c, false);
	}
	raw_spin_unlock_irqrestore(st_te_lock(te), irqflags);
}

/*
 * Does draining the TE's own sink gain anything? For a copy sink: the AUX
 * buffer takes its contents and another window's worth, so that the last
 * window that fits is the newest trace (wrap) or the oldest (stop-on-wrap).
 */
static bool st_worth_draining(struct st_cpu *c, struct st_block *b, size_t fill)
{
	if (b->direct)	/* room for another window beyond this one */
		return st_aux_room(c) - b->win_size >= ST_DIRECT_MIN;
	return fill + st_window_cap(b) <= st_aux_room(c);
}

/*
 * Commit what the record holds and open a new one, to see the room the
 * consumer has made since the record began. False: no room, the hart stopped.
 */
static bool st_refresh(struct st_cpu *c)
{
	unsigned int polls = ST_EMPTY_POLLS;

	if (st_aux_of(c)->overwrite)
		return true;
	if (c->flags)
		perf_aux_output_flag(&c->handle, c->flags);
	perf_aux_output_end(&c->handle, c->out);
	c->out = 0;
	c->flags = 0;
	if (perf_aux_output_begin(&c->handle, c->event))
		return true;
	st_hart_stop(c, &polls);
	return false;
}

/*
 * Room for the next ITC store in the hart's sink window: drain it first if
 * the store might not fit. A copy sink is drained when it holds what one
 * drain may copy (st_window_cap()), less ST_WINDOW_SLACK. A private sink is
 * drained only if that gains something; if not, it stops or wraps as the
 * event asked (return SIZE_MAX: no more checks), which keeps the oldest or
 * the newest trace. A funnel is always drained, since other harts write
 * into it too.
 *
 * The slack: WP counts whole words, so up to 3 bytes of the word being
 * assembled are not in the fill read here, and a sink wraps when its last
 * word is written, also when a drain's flush pads the partial word. A
 * window filled to its end cannot be told from one that overwrote trace
 * (the drain flags a gap), so trace must stay below its last word: the
 * bytes read, the partial word and the stores made from the room returned
 * (NEXUS_DQ_MAX_BYTES each) end at least one byte before it.
 */
static size_t st_make_room(struct st_cpu *c, struct st_te *te)
{
	struct st_block *b = st_te_sink_block(te);
	size_t fill, cap = st_window_cap(b) - ST_WINDOW_SLACK;
	bool wrapped;

	fill = st_window_fill(b, &wrapped);
	if (!wrapped && fill + NEXUS_DQ_MAX_BYTES <= cap)
		return cap - fill;
	if (!te->funnel && !st_worth_draining(c, b, fill)) {
		if (!st_refresh(c))
			return 0;
		if (!st_worth_draining(c, b, fill))
			return SIZE_MAX;
	}
	st_stat(ST_STAT_DRAINS, 1);
	st_drain(c, false);
	if (!c->started)
		return 0;
	fill = st_window_fill(b, &wrapped);
	return wrapped || fill >= cap ? 0 : cap - fill;
}

/* One store to a stimulus register, once it is ready */
static bool st_itc_store(struct st_te *te, const struct sifive_itc_write *w)
{
	unsigned int reg = te->blk.base + SIFIVE_ITC_STIMULUS(w->channel);
	unsigned int i, ready = 0;

	for (i = 0; i < ST_STIM_POLLS && !ready; i++)
		regmap_read(te->blk.map, reg, &ready);
	if (!ready)
		return false;
	switch (w->width) {
	case 32:
		regmap_write(te->blk.map, reg, w->value);
		break;
	case 16:
		regmap_write(te->itc16, reg + SIFIVE_ITC_OFFSET(16), w->value);
		break;
	default:
		regmap_write(te->itc8, reg + SIFIVE_ITC_OFFSET(8), w->value);
		break;
	}
	return true;
}

/* Stores while the hart is traced; return how many were made */
static unsigned int st_itc_chunk(struct st_cpu *c, struct st_te *te,
				 const struct sifive_itc_write *w, unsigned int n)
{
	unsigned int i, made = 0;
	size_t budget = 0;

	if (!c->started || c->te != te)
		return 0;
	for (i = 0; i < n; i++) {
		if (budget < NEXUS_DQ_MAX_BYTES) {
			budget = st_make_room(c, te);
			if (!c->started)
				break;
		}
		/*
		 * A store that never got ready is not made, nor counted: the
		 * caller sees fewer than it asked for (the library then starts
		 * its stream again with a header)
		 */
		if (st_itc_store(te, &w[i])) {
			made++;
		} else {
			c->flags |= PERF_AUX_FLAG_PARTIAL;
			st_stat(ST_STAT_NOT_READY, 1);
		}
		if (budget != SIZE_MAX)
			budget -= min_t(size_t, budget, NEXUS_DQ_MAX_BYTES);
	}
	return made;
}

/**
 * st_itc_emit() - ITC stores, in order, on the caller's hart
 * @w: the stores, already checked
 * @n: how many
 * @traced: receives how many were made while the hart was traced
 * @cpu: receives the caller's CPU
 *
 * Interrupts are off for ST_ITC_CHUNK stores at a time; the caller stays
 * on its CPU throughout.
 *
 * Return: 0, or -ENODEV if the CPU has no trace encoder.
 */
int st_itc_emit(const struct sifive_itc_write *w, unsigned int n, u32 *traced, int *cpu)
{
	unsigned int i, chunk;
	unsigned long flags;
	struct st_te *te;
	int ret = 0;

	*traced = 0;
	migrate_disable();
	*cpu = smp_processor_id();
	for (i = 0; i < n; i += chunk) {
		chunk = min(n - i, ST_ITC_CHUNK);
		local_irq_save(flags);
		te = __this_cpu_read(st_te_of_cpu);
		if (!te) {
			local_irq_restore(flags);
			ret = -ENODEV;
			break;
		}
		raw_spin_lock(st_te_lock(te));
		*traced += st_itc_chunk(this_cpu_ptr(&st_cpu), te, w + i, chunk);
		raw_spin_unlock(st_te_lock(te));
		local_irq_restore(flags);
	}
	migrate_enable();
	return ret;
}

/* perf callbacks */

static unsigned int st_cfg_sink(struct perf_event *event)
{
	return FIELD_GET(ST_CFG_SINK, event->attr.config);
}

static int st_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	unsigned int code = st_cfg_sink(event);
	struct st_te *te;
	bool ok;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	if ((attr->config & ~ST_CFG_VALID) || (attr->config1 & ~ST_CFG1_CHANNELS) ||
	    attr->config2 || attr->config3) {
		pr_debug("reserved config bits set (ITC channels are 0-31)\n");
		return -EINVAL;
	}
	if (code && code != SIFIVE_SINK_SRAM && code != SIFIVE_SINK_SBA) {
		pr_debug("unknown sink %u\n", code);
		return -EINVAL;
	}
	/* perf record asks for a period of 1 on AUX events; nothing ever overflows */
	if (attr->freq || attr->sample_period > 1)
		return -EOPNOTSUPP;
	if (attr->exclude_user) {
		pr_debug("ITC messages are written by user space: exclude_user traces nothing\n");
		return -EINVAL;
	}
	if (event->cpu < 0 && attr->inherit) {
		/* copies running at once on several harts would share one AUX buffer */
		pr_debug("per-task events on every CPU cannot be inherited\n");
		return -EINVAL;
	}
	if (event->cpu < 0)
		return st_any_te(code) ? 0 : -ENODEV;

	mutex_lock(&st_lock);
	te = per_cpu(st_te_of_cpu, event->cpu);
	ok = te && st_te_sink(te, code);
	mutex_unlock(&st_lock);
	if (!te)
		return -ENODEV;
	if (!ok) {
		pr_debug("CPU %d has no sink %u\n", event->cpu, code);
		return -EINVAL;
	}
	return 0;
}

static void st_pmu_start(struct perf_event *event, int flags)
{
	struct st_cpu *c = this_cpu_ptr(&st_cpu);
	struct st_te *te = c->te;
	unsigned long irqflags;

	event->hw.state = PERF_HES_STOPPED;
	if (!te || c->event != event || c->started)
		return;
	if (!perf_aux_output_begin(&c->handle, event))
		return;

	raw_spin_lock_irqsave(st_te_lock(te), irqflags);
	c->out = 0;
	c->flags = 0;
	c->full = false;
	st_te_setup(c, te);
	if (te->funnel)
		st_funnel_get(te);
	else
		st_private_window(c, te);
	st_te_resume(te);
	c->started = true;
	raw_spin_unlock_irqrestore(st_te_lock(te), irqflags);
	event->hw.state = 0;
}

static void st_pmu_stop(struct perf_event *event, int flags)
{
	struct st_cpu *c = this_cpu_ptr(&st_cpu);
	unsigned long irqflags;

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	event->hw.state |= PERF_HES_STOPPED;
	if (c->event != event || !c->started)
		return;
	raw_spin_lock_irqsave(st_te_lock(c->te), irqflags);
	st_drain(c, true);
	raw_spin_unlock_irqrestore(st_te_lock(c->te), irqflags);
}

static int st_pmu_add(struct perf_event *event, int flags)
{
	struct st_cpu *c = this_cpu_ptr(&st_cpu);
	struct st_te *te = __this_cpu_read(st_te_of_cpu);
	struct st_sink *sink;
	unsigned long irqflags;

	if (!te)
		return -ENODEV;
	sink = st_te_sink(te, st_cfg_sink(event));
	if (!sink)
		return -ENODEV;
	if (te->busy || c->event)
		return -EBUSY;
	if (te->funnel) {
		struct st_funnel *fun = te->funnel;

		raw_spin_lock_irqsave(&fun->lock, irqflags);
		if (fun->added && fun->code != sink->code) {
			raw_spin_unlock_irqrestore(&fun->lock, irqflags);
			return -EBUSY;
		}
		if (!fun->added++)
			fun->code = sink->code;
		raw_spin_unlock_irqrestore(&fun->lock, irqflags);
	}
	te->busy = true;
	c->te = te;
	c->event = event;
	c->code = sink->code;
	c->channels = event->attr.config1 ?: ST_CFG1_CHANNELS;
	c->stop_on_wrap = event->attr.config & ST_CFG_STOPONWRAP;
	c->timestamp = event->attr.config & ST_CFG_TIMESTAMP;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		st_pmu_start(event, 0);
	return 0;
}

static void st_pmu_release(struct st_cpu *c)
{
	struct st_te *te = c->te;
	unsigned long irqflags;

	te->busy = false;
	if (te->funnel) {
		raw_spin_lock_irqsave(&te->funnel->lock, irqflags);
		te->funnel->added--;
		raw_spin_unlock_irqrestore(&te->funnel->lock, irqflags);
	}
	c->te = NULL;
}

static void st_pmu_del(struct perf_event *event, int flags)
{
	struct st_cpu *c = this_cpu_ptr(&st_cpu);

	st_pmu_stop(event, PERF_EF_UPDATE);
	if (c->event != event)
		return;
	if (c->te)
		st_pmu_release(c);
	c->event = NULL;
}

static void st_pmu_read(struct perf_event *event)
{
}

static void *st_setup_aux(struct perf_event *event, void **pages, int nr_pages,
			  bool overwrite)
{
	struct st_aux *aux = kzalloc(sizeof(*aux), GFP_KERNEL);

	if (!aux)
		return NULL;
	aux->pages = pages;
	aux->nr_pages = nr_pages;
	aux->size = (size_t)nr_pages << PAGE_SHIFT;
	aux->overwrite = overwrite;
	return aux;
}

static void st_free_aux(void *aux)
{
	kfree(aux);
}

/* A TE goes away: on its CPU, end its event's trace there */
static void st_pmu_detach_local(void *data)
{
	struct st_cpu *c = this_cpu_ptr(&st_cpu);
	struct st_te *te = data;
	unsigned long irqflags;

	if (c->te != te)
		return;
	if (c->started) {
		raw_spin_lock_irqsave(st_te_lock(te), irqflags);
		c->flags |= PERF_AUX_FLAG_TRUNCATED;
		st_drain(c, true);
		raw_spin_unlock_irqrestore(st_te_lock(te), irqflags);
	}
	st_pmu_release(c);
}

void st_pmu_detach(struct st_te *te)
{
	if (smp_call_function_single(te->cpu, st_pmu_detach_local, te, 1)) {
		/* Offline: perf removed its events from it already */
		per_cpu_ptr(&st_cpu, te->cpu)->te = NULL;
	}
}

/* sysfs */

static ssize_t encoders_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	int cpu, len = 0;

	mutex_lock(&st_lock);
	for_each_possible_cpu(cpu) {
		struct st_te *te = per_cpu(st_te_of_cpu, cpu);

		if (!te)
			continue;
		len += sysfs_emit_at(buf, len, "cpu=%d hart=%u src=%u srcbits=%u sinks=%s%s%s\n",
				     cpu, te->hart, te->src, te->srcbits,
				     te->funnel ? "funnel:" : "",
				     st_te_sink(te, SIFIVE_SINK_SRAM) ? "sram," : "",
				     st_te_sink(te, SIFIVE_SINK_SBA) ? "sba" : "");
	}
	mutex_unlock(&st_lock);
	return len;
}
static DEVICE_ATTR_RO(encoders);

static struct attribute *st_pmu_attrs[] = {
	&dev_attr_encoders.attr,
	NULL,
};

static const struct attribute_group st_pmu_group = {
	.attrs = st_pmu_attrs,
};

static struct attribute *st_format_attrs[] = {
	SOCPMU_FORMAT_ATTR(sink, "config:0-3"),
	SOCPMU_FORMAT_ATTR(stoponwrap, "config:4"),
	SOCPMU_FORMAT_ATTR(timestamp, "config:5"),
	SOCPMU_FORMAT_ATTR(channels, "config1:0-31"),
	NULL,
};

static const struct attribute_group st_format_group = {
	.name = "format",
	.attrs = st_format_attrs,
};

/* Sink names: sifive_trace/sram/ and sifive_trace/sba/ */
static struct attribute *st_event_attrs[] = {
	SOCPMU_FORMAT_ATTR(sram, "sink=4"),
	SOCPMU_FORMAT_ATTR(sba, "sink=7"),
	NULL,
};

static const struct attribute_group st_events_group = {
	.name = "events",
	.attrs = st_event_attrs,
};

static const struct attribute_group *st_attr_groups[] = {
	&st_pmu_group,
	&st_format_group,
	&st_events_group,
	NULL,
};

static struct pmu st_pmu = {
	.module		= THIS_MODULE,
	.capabilities	= PERF_PMU_CAP_EXCLUSIVE | PERF_PMU_CAP_ITRACE |
			  PERF_PMU_CAP_AUX_PREFER_LARGE,
	.task_ctx_nr	= perf_sw_context,
	.attr_groups	= st_attr_groups,
	.event_init	= st_event_init,
	.add		= st_pmu_add,
	.del		= st_pmu_del,
	.start		= st_pmu_start,
	.stop		= st_pmu_stop,
	.read		= st_pmu_read,
	.setup_aux	= st_setup_aux,
	.free_aux	= st_free_aux,
};

static int st_stats_show(struct seq_file *s, void *unused)
{
	unsigned int i;

	for (i = 0; i < ST_NR_STATS; i++)
		seq_printf(s, "%s %lld\n", st_stat_names[i], atomic64_read(&st_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_stats);

int st_pmu_init(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu) {
		struct st_cpu *c = per_cpu_ptr(&st_cpu, cpu);

		INIT_CSD(&c->commit, st_commit_fn, c);
	}
	ret = perf_pmu_register(&st_pmu, "sifive_trace", -1);
	if (ret)
		return ret;
	st_debugfs = debugfs_create_dir("sifive_trace", NULL);
	debugfs_create_file("stats", 0400, st_debugfs, NULL, &st_stats_fops);
	return 0;
}

void st_pmu_exit(void)
{
	debugfs_remove_recursive(st_debugfs);
	perf_pmu_unregister(&st_pmu);
}
