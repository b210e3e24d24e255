/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the sifive_perf selftest and benchmark: libsifiveperf and the
 * decoders built into the program (static, nothing to install), the
 * simulated harts (an "hpm" device with enough counters and a "trace"
 * device: encoders behind a funnel), and decoding a trace file in-process.
 */
#ifndef SIFIVE_PERF_LIB_H
#define SIFIVE_PERF_LIB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/socpmu_test.h"

/* The library and the decoders, compiled in */
#include "../../tools/libsifiveperf/sifive_linux_perf.c"
#include "../../tools/libsifiveperf/sifive_perf_format.c"
#include "../../tools/libsifiveperf/spf_decode.c"
#include "../../tools/sifive-trace/nexus_decode.c"

#define SPT_TRACE_PMU	"/sys/bus/event_source/devices/sifive_trace"
#define SPT_CHANNEL	6

/* The simulated SiFive harts: HPM counters and trace encoders */
struct spt_dev {
	struct sp_dev hpm;
	char trace[SP_NAME_LEN];
	bool trace_alive;
	int harts;
	unsigned int srcbits;
};

/* The encoders the sifive_trace PMU has: "cpu=N hart=H src=S srcbits=B ..." lines */
static inline int spt_encoders(unsigned int *srcbits)
{
	char buf[4096], *p;
	int n = 0, cpu;
	unsigned int hart, src, bits;

	if (sp_read_file(SPT_TRACE_PMU "/encoders", buf, sizeof(buf)) < 0)
		return 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "cpu=%d hart=%u src=%u srcbits=%u", &cpu, &hart, &src, &bits) == 4) {
			n++;
			if (srcbits)
				*srcbits = bits;
		}
	}
	return n;
}

/* 0, or a negative errno; -ENODEV: no simulator or driver (skip) */
static inline int spt_create(struct spt_dev *d, const char *tag)
{
	char name[SP_NAME_LEN], spec[128];
	int ret, i;

	memset(d, 0, sizeof(*d));
	if (sp_sim_available() || !sp_path_exists(SPT_TRACE_PMU "/type") ||
	    !sp_path_exists("/dev/sifive-itc"))
		return -ENODEV;
	snprintf(name, sizeof(name), "spt_hpm_%s_%d", tag, getpid());
	ret = sp_dev_create(&d->hpm, "hpm", name, "counters=8", "sifive_hpm");
	if (ret)
		return ret;
	setenv("SIFIVE_PERF_HPM_PMU", d->hpm.pmu, 1);
	snprintf(d->trace, sizeof(d->trace), "spt_tr_%s_%d", tag, getpid());
	snprintf(spec, sizeof(spec), "trace name=%s", d->trace);
	ret = sp_sim_new_device(spec);
	if (ret)
		return ret;
	d->trace_alive = true;
	for (i = 0; i < 200; i++) {
		d->harts = spt_encoders(&d->srcbits);
		if (d->harts >= 1)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static inline void spt_delete(struct spt_dev *d)
{
	if (d->trace_alive && !sp_sim_del_device(d->trace))
		d->trace_alive = false;
	sp_dev_delete(&d->hpm);
}

/* "inject <hart> <events> <n>" into the HPM model */
static inline int spt_inject(struct spt_dev *d, int hart, const char *events, unsigned long n)
{
	return sp_debugfs_printf(&d->hpm, "inject", "%d %s %lu", hart, events, n);
}

static inline int spt_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static inline double spt_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * System calls of the calling thread, counted by the kernel: a disabled
 * counting event on the raw_syscalls:sys_enter tracepoint (enable it with
 * PERF_EVENT_IOC_ENABLE; the PERF_EVENT_IOC_DISABLE that stops it counts
 * too). The fd, or a negative errno.
 */
static inline int spt_syscall_counter(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	struct perf_event_attr attr;
	uint64_t id;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (sp_read_u64_file(paths[i], &id))
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = id;
		attr.disabled = 1;
		return sp_perf_event_open(&attr, 0, -1, -1, 0);
	}
	return -ENOENT;
}

/* ---- a trace file, decoded ---- */

#define SPT_MAX_RECS	200000
#define SPT_MAX_HDRS	64

struct spt_decoded {
	unsigned int nhdr, nrec;
	struct spf_header hdr[SPT_MAX_HDRS];
	struct spf_record *rec;
	struct spf_decode_result res;
	size_t bytes;
};

static inline int spt_on_header(const struct spf_header *h, void *priv)
{
	struct spt_decoded *d = priv;

	if (d->nhdr < SPT_MAX_HDRS)
		d->hdr[d->nhdr] = *h;
	d->nhdr++;
	return 0;
}

static inline int spt_on_record(const struct spf_record *r, void *priv)
{
	struct spt_decoded *d = priv;

	if (d->nrec < SPT_MAX_RECS) {
		d->rec[d->nrec] = *r;
		d->rec[d->nrec].hdr = NULL;
	}
	d->nrec++;
	return 0;
}

/* Read and decode @path; 0 or a negative errno */
static inline int spt_decode_file(const char *path, unsigned int srcbits, struct spt_decoded *d)
{
	struct spf_dec_ops ops = { .header = spt_on_header, .record = spt_on_record };
	struct stat st;
	uint8_t *buf;
	int fd, ret = 0;

	memset(d, 0, sizeof(*d));
	d->rec = calloc(SPT_MAX_RECS, sizeof(*d->rec));
	if (!d->rec)
		return -ENOMEM;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	buf = malloc(st.st_size + 1);
	if (!buf || read(fd, buf, st.st_size) != st.st_size) {
		close(fd);
		free(buf);
		return -EIO;
	}
	close(fd);
	d->bytes = st.st_size;
	if (spf_decode_buffer(buf, st.st_size, srcbits, SPT_CHANNEL, false, &ops, d, &d->res))
		ret = -ENOMEM;
	free(buf);
	return ret;
}

static inline void spt_decoded_free(struct spt_decoded *d)
{
	free(d->rec);
	d->rec = NULL;
}

#endif /* SIFIVE_PERF_LIB_H */
