/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace helpers shared by the sifive_trace selftest and benchmark, on
 * top of ../lib/socpmu_test.h: simulated trace devices, the sifive_trace PMU
 * with a data and an AUX mmap, ITC stores through /dev/sifive-itc, and
 * decoding the AUX data with the in-tree Nexus decoder (tools/sifive-trace).
 *
 * Helpers return 0 (or a value) on success and a negative errno on failure.
 * Nothing here depends on the kselftest harness.
 */
#ifndef ST_LIB_H
#define ST_LIB_H

#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <socpmu/sifive_trace_regs.h>
#include <uapi/socpmu/sifive_itc.h>

#include "../lib/socpmu_test.h"

/* The decoder is a small library: build it into each program */
#include "../../tools/sifive-trace/nexus_decode.c"

#define PMU_DIR		SP_PMU_BUS "/sifive_trace"
#define ST_STATS	SP_DEBUGFS "/sifive_trace/stats"

#define CFG_SRAM	SIFIVE_SINK_SRAM
#define CFG_SBA		SIFIVE_SINK_SBA
#define CFG_STOPONWRAP	(1ULL << 4)
#define CFG_TIMESTAMP	(1ULL << 5)

#define DATA_PAGES	16

static inline long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* 0 if the simulator and the driver are there (debugfs mounted) */
static inline int st_available(void)
{
	int ret = sp_sim_available();

	if (ret)
		return ret;
	if (!sp_path_exists(PMU_DIR "/type") || !sp_path_exists(SIFIVE_ITC_DEVICE))
		return -ENOENT;
	return 0;
}

/* ---- simulated devices (struct sp_dev: the PMU is the global sifive_trace) ---- */

/* The PMU's encoders file: one "cpu=N hart=H src=S srcbits=B sinks=..." line each */
static inline int st_encoders(int *cpus, int max, unsigned int *srcbits)
{
	char buf[4096], *p = buf;
	int n = 0, cpu, ret;
	unsigned int hart, src, bits;

	ret = sp_read_file(PMU_DIR "/encoders", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	while (p && *p) {
		if (sscanf(p, "cpu=%d hart=%u src=%u srcbits=%u", &cpu, &hart, &src, &bits) == 4 &&
		    n < max) {
			cpus[n++] = cpu;
			if (srcbits)
				*srcbits = bits;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* Create "trace name=st_test_<pid> <spec>" and wait for its @harts encoders */
static inline int st_dev_create(struct sp_dev *d, const char *spec, int harts)
{
	char name[SP_NAME_LEN];
	int cpus[64], i, ret;

	snprintf(name, sizeof(name), "st_test_%d", getpid());
	ret = sp_dev_new(d, "trace", name, spec);
	if (ret)
		return ret;
	for (i = 0; i < 100; i++) {
		if (st_encoders(cpus, 64, NULL) >= harts)
			return 0;
		sp_sleep_ms(10);
	}
	return -ETIMEDOUT;
}

/* A "key value" line of a statistics file */
static inline long long st_stat_line(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoll(p + strlen(key) + 1, NULL, 10) : -1;
}

/* The simulator's statistics of the device, e.g. "messages" */
static inline long long sim_stat(const struct sp_dev *d, const char *key)
{
	char buf[512];

	if (sp_debugfs_read(d, "stats", buf, sizeof(buf)) < 0)
		return -1;
	return st_stat_line(buf, key);
}

/* The driver's statistics, e.g. "direct_bytes" */
static inline long long drv_stat(const char *key)
{
	char buf[512];

	if (sp_read_file(ST_STATS, buf, sizeof(buf)) < 0)
		return -1;
	return st_stat_line(buf, key);
}

/* ---- the PMU ---- */

static inline int st_pmu_type(void)
{
	uint64_t type;
	int ret = sp_read_u64_file(PMU_DIR "/type", &type);

	return ret < 0 ? ret : (int)type;
}

static inline void st_attr(struct perf_event_attr *attr, uint64_t config, uint64_t config1)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = st_pmu_type();
	attr->config = config;
	attr->config1 = config1;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
}

/* An event with its data and AUX mmaps */
struct trace {
	int fd;
	struct perf_event_mmap_page *pc;
	size_t data_size;
	void *aux;
	size_t aux_size;
	bool overwrite;
};

static inline int trace_open(struct trace *t, uint64_t config, uint64_t config1, pid_t pid,
			     int cpu, size_t aux_pages, bool overwrite)
{
	struct perf_event_attr attr;
	long ps = page_size();
	void *p;

	memset(t, 0, sizeof(*t));
	st_attr(&attr, config, config1);
	t->fd = sp_perf_event_open(&attr, pid, cpu, -1, 0);
	if (t->fd < 0)
		return t->fd;
	t->data_size = DATA_PAGES * ps;
	p = mmap(NULL, t->data_size + ps, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED)
		goto err;
	t->pc = p;
	t->pc->aux_offset = t->data_size + ps;
	t->pc->aux_size = aux_pages * ps;
	t->aux_size = aux_pages * ps;
	t->overwrite = overwrite;
	p = mmap(NULL, t->aux_size, PROT_READ | (overwrite ? 0 : PROT_WRITE), MAP_SHARED, t->fd,
		 t->pc->aux_offset);
	if (p == MAP_FAILED)
		goto err;
	t->aux = p;
	return 0;
err:
	p = (void *)(intptr_t)-errno;
	if (t->pc)
		munmap(t->pc, t->data_size + ps);
	close(t->fd);
	t->fd = -1;
	return (int)(intptr_t)p;
}

static inline void trace_close(struct trace *t)
{
	if (t->fd < 0)
		return;
	if (t->aux)
		munmap(t->aux, t->aux_size);
	if (t->pc)
		munmap(t->pc, t->data_size + page_size());
	close(t->fd);
	t->fd = -1;
}

static inline int trace_enable(struct trace *t)
{
	return ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

static inline int trace_disable(struct trace *t)
{
	return ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0) ? -errno : 0;
}

struct aux_rec {
	uint64_t offset, size, flags;
};

/* The PERF_RECORD_AUX records in the data ring (not consumed) */
static inline int trace_aux_records(struct trace *t, struct aux_rec *recs, int max)
{
	uint64_t head = __atomic_load_n(&t->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = t->pc->data_tail;
	const uint8_t *data = (const uint8_t *)t->pc + page_size();
	int n = 0;

	while (pos < head) {
		struct perf_event_header h;
		uint8_t rec[256];
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(pos + i) % t->data_size];
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_AUX && n < max) {
			for (i = 0; i < h.size && i < sizeof(rec); i++)
				rec[i] = data[(pos + i) % t->data_size];
			memcpy(&recs[n], rec + sizeof(h), sizeof(recs[n]));
			n++;
		}
		pos += h.size;
	}
	return n;
}

/* OR of the flags of every AUX record */
static inline uint64_t trace_aux_flags(struct trace *t)
{
	struct aux_rec recs[1024];
	uint64_t flags = 0;
	int i, n = trace_aux_records(t, recs, 1024);

	for (i = 0; i < n; i++)
		flags |= recs[i].flags;
	return flags;
}

/* The bytes and flags of the last non-empty AUX record; its size */
static inline size_t trace_last_record(struct trace *t, uint8_t *out, uint64_t *flags)
{
	struct aux_rec recs[1024];
	int n = trace_aux_records(t, recs, 1024);
	uint64_t i;

	while (n > 0 && !recs[n - 1].size)
		n--;
	if (!n)
		return 0;
	for (i = 0; i < recs[n - 1].size; i++)
		out[i] = ((uint8_t *)t->aux)[(recs[n - 1].offset + i) % t->aux_size];
	*flags = recs[n - 1].flags;
	return recs[n - 1].size;
}

/*
 * Consume the new AUX data: copy it to @out (at most @max bytes, the rest is
 * dropped) and move aux_tail. Return the number of bytes there were.
 */
static inline size_t trace_aux_take(struct trace *t, uint8_t *out, size_t max)
{
	uint64_t head = __atomic_load_n(&t->pc->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->pc->aux_tail, i;

	for (i = tail; i < head; i++)
		if (i - tail < max)
			out[i - tail] = ((uint8_t *)t->aux)[i % t->aux_size];
	__atomic_store_n(&t->pc->aux_tail, head, __ATOMIC_RELEASE);
	return head - tail;
}

/* ---- ITC ---- */

static inline int itc_open(void)
{
	int fd = open(SIFIVE_ITC_DEVICE, O_RDWR);

	return fd < 0 ? -errno : fd;
}

static inline int itc_write(int fd, const struct sifive_itc_write *w, unsigned int n,
			    struct sifive_itc_batch *out)
{
	struct sifive_itc_batch b = {
		.entries = (uintptr_t)w,
		.count = n,
	};

	if (ioctl(fd, SIFIVE_ITC_IOC_WRITE, &b))
		return -errno;
	if (out)
		*out = b;
	return 0;
}

/* Every store of @w, in batches of up to SIFIVE_ITC_MAX_BATCH */
static inline int itc_write_all(int fd, const struct sifive_itc_write *w, unsigned int n,
				unsigned int *traced)
{
	struct sifive_itc_batch b = { 0 };
	unsigned int i, k;
	int ret;

	*traced = 0;
	for (i = 0; i < n; i += k) {
		k = n - i < SIFIVE_ITC_MAX_BATCH ? n - i : SIFIVE_ITC_MAX_BATCH;
		ret = itc_write(fd, w + i, k, &b);
		if (ret)
			return ret;
		*traced += b.traced;
	}
	return 0;
}

/* A known sequence: channels, widths and values that vary */
static inline void itc_sequence(struct sifive_itc_write *w, unsigned int n, unsigned int seed)
{
	static const uint8_t widths[] = { 32, 16, 8 };
	static const uint8_t channels[] = { 0, 6, 31, 13, 6, 1 };
	unsigned int i;
	uint32_t v = seed * 2654435761u;

	for (i = 0; i < n; i++) {
		v = v * 1103515245u + 12345u;
		w[i].channel = channels[(i + seed) % sizeof(channels)];
		w[i].width = widths[(i / 2 + seed) % 3];
		w[i].reserved = 0;
		w[i].value = w[i].width == 32 ? v : v & ((1u << w[i].width) - 1);
		if (i % 17 == 0)
			w[i].value = 0;	/* the shortest field */
	}
}

static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* ---- decoding ---- */

struct decoded {
	struct nexus_msg *m;
	unsigned int n, max;
};

static inline int decoded_add(const struct nexus_msg *m, void *priv)
{
	struct decoded *d = priv;

	if (d->n < d->max) {
		d->m[d->n] = *m;
		d->m[d->n].raw = NULL;
		d->n++;
	}
	return 0;
}

/* Decode @len bytes; return the decoder's statistics in @st */
static inline int decode(const uint8_t *buf, size_t len, unsigned int srcbits, bool resync,
			 struct decoded *out, struct nexus_stats *st)
{
	struct nexus_config cfg = { .srcbits = srcbits, .resync = resync };
	struct nexus_decoder *d = nexus_decoder_new(&cfg, decoded_add, out);

	if (!d)
		return -ENOMEM;
	out->n = 0;
	nexus_decode(d, buf, len);
	nexus_decode_end(d);
	if (st)
		*st = *nexus_decoder_stats(d);
	nexus_decoder_free(d);
	return 0;
}

static inline bool dq_matches(const struct nexus_msg *m, const struct sifive_itc_write *w)
{
	return m->valid && m->tcode == NEXUS_TCODE_DATA_ACQUISITION &&
	       m->dq.tag == SIFIVE_ITC_TAG(w->channel, w->width) && m->dq.data == w->value;
}

static inline double now_s(void)
{
	return sp_now_ns() / 1e9;
}

#endif /* ST_LIB_H */
