// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libsifiveperf: the SiFive Trace Performance Library API (sifive_linux_perf.h)
 * on Linux perf.
 *
 * Counters: the sifive_hpm PMU. Each recording thread has its own
 * /dev/sifive-itc file holding per-task counting events of that thread,
 * one per recorded counter (SIFIVE_ITC_IOC_COUNTERS): a record is then one
 * SIFIVE_ITC_IOC_RECORD ioctl, which reads the counters in the kernel and
 * emits the record's stores and the encoded values at once (one system
 * call per record with or without counters). Where the driver has no such
 * ioctl (or SIFIVE_PERF_ITC_RECORD=0), the thread opens one group of the
 * events itself and reads it with one read() before each record's ioctl
 * (two system calls per record); the trace is the same. The events are
 * assigned HPM counter numbers as the vendor library does: cycles 0,
 * HW_TIMESTAMP (the time counter) 1, instructions 2, every other event the
 * next programmable counter (3, 4, ...) whatever its place in the list;
 * events beyond the programmable counters the harts have are left out
 * (with a warning). A thread's counters count that thread only.
 *
 * Trace: the sifive_trace PMU. Each recording thread opens one per-task
 * event (sink SRAM or SBA, stop-on-wrap, timestamps, the ITC channel) with
 * its own AUX buffer, so threads on different harts record at once and a
 * thread that migrates keeps one ordered stream. Records are written with
 * one /dev/sifive-itc ioctl each (the ITC stores land on the caller's hart,
 * which traces them into the caller's buffer); a thread's first record
 * after perfTraceOn() is preceded by a header, so every thread's stream
 * decodes on its own. perfWriteTrace() flushes every thread's trace and
 * writes the streams one after the other: raw sink bytes, a .rtd file.
 *
 * Buffer size: SBABufferSize > 0 selects the SBA sink and an AUX buffer of
 * that size (rounded up to a power of two pages); 0 selects the SRAM sink
 * (drained by the driver into a 1 MiB AUX buffer). SIFIVE_PERF_BUFFER_SIZE
 * overrides the size. Stop-on-wrap: when a thread's buffer is full its
 * trace stops; perfWriteTrace() says how many records were lost.
 *
 * perf-record mode (SIFIVE_PERF_MODE=perf-record in the environment at
 * perfInit(); the variable's other values are sifive-perf record's
 * collection modes, for the preload): for a program run under `perf record -e sifive_trace//`,
 * whose event already traces the hart (the PMU has one event per hart, so
 * the library's own event would fail with EBUSY). The library opens no
 * sifive_trace event and no AUX buffer: headers and records are only the
 * ITC stores of /dev/sifive-itc, which perf's event traces into perf.data
 * (`perf script --itrace=o` decodes them). Counters, perfTraceOn() (a
 * header), perfTraceOff() and the records are as in the normal mode;
 * perfWriteTrace() writes no file and returns 0 (perf.data holds the trace).
 * Chosen explicitly, never on EBUSY, so that a busy hart is an error
 * rather than a silent trace-less run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <uapi/socpmu/sifive_itc.h>

#include "sifive_linux_perf.h"
#include "sifive_perf_format.h"
#include "spf_decode.h"
#include "spf_internal.h"

#define SPF_PMU_DIR		"/sys/bus/event_source/devices"
#define SPF_MAX_THREADS		256
#define SPF_DATA_PAGES		8
#define SPF_SCAN_TRIES		10000	/* yields waiting for another thread's ring scan */
#define SPF_SRAM_AUX_SIZE	(1u << 20)
#define SPF_MIN_INTERVAL	100	/* microseconds */
#define SPF_STACK_DEPTH		512	/* function entry/exit shadow stack */
#define SPF_HPM_GEN_TIME	0x8000	/* sifive_hpm's code for the time counter */
#define SPF_CFG_STOPONWRAP	(1ULL << 4)
#define SPF_CFG_TIMESTAMP	(1ULL << 5)

enum spf_state { ST_NONE, ST_INIT, ST_READY };
enum spf_mode { MODE_NONE, MODE_MANUAL, MODE_TIMER, MODE_FUNC };

/* A recording thread */
struct spf_slot {
	atomic_int used;		/* claimed */
	atomic_int ready;		/* events open */
	pid_t tid;
	int ctr_fd[SPF_MAX_CNTRS];
	unsigned int nctr_fd;
	int rec_fd;			/* /dev/sifive-itc holding the counters, or -1 */
	bool rec_reset;			/* the kernel's previous values: 0 next record */
	int trace_fd;
	struct perf_event_mmap_page *pc;
	size_t data_size;
	void *aux;
	size_t aux_size;
	bool has_timer;
	timer_t timer;
	/* owner thread only */
	volatile sig_atomic_t busy;	/* writing a record (a timer signal must not nest) */
	unsigned int epoch;		/* trace-on epoch of the last header */
	struct spf_enc_state enc;
	/* statistics: written by the owner, read by anyone */
	atomic_uint_fast64_t records, headers, dropped, errors, syscalls;
	atomic_int last_err;		/* errno of the last record that failed */
	atomic_uint aux_flags;		/* PERF_RECORD_AUX flags read from the data ring */
	atomic_flag scanning;		/* someone reads the data ring: scan_data() */
	uint64_t unstored;		/* under g.lock: see count_unstored() */
};

static struct {
	pthread_mutex_t lock;		/* init, slots, perfWriteTrace() */
	atomic_int state;
	atomic_int on;
	atomic_uint epoch;
	bool forked;
	int num_cores;
	int num_funnels;
	enum spf_mode mode;
	bool perf_record;		/* SIFIVE_PERF_MODE=perf-record: no trace event */
	int trace_type;
	int hpm_type;
	int itc_fd;
	/* the configuration of the init call */
	unsigned int nevents;
	perfEvent events[SPF_MAX_CNTRS];
	uint32_t sba_size;
	uint64_t trace_config;
	size_t aux_size;
	int interval_us;
	struct spf_enc_cfg enc;
	uint64_t ctr_config[SPF_MAX_CNTRS];	/* sifive_hpm config, mask order */
	uint64_t ctr_config1[SPF_MAX_CNTRS];
	/* the timer signal */
	bool sig_installed;
	struct sigaction old_sa;
	uint64_t bytes;
	struct spf_slot slots[SPF_MAX_THREADS];
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.itc_fd = -1,
};

/* Recording state of the calling thread (static TLS: safe in a signal handler) */
static __thread struct spf_slot *tls_slot __attribute__((tls_model("initial-exec")));
static __thread bool tls_failed __attribute__((tls_model("initial-exec")));
/* Opening the thread's events: a signal handler's record must not re-enter */
static __thread bool tls_attaching __attribute__((tls_model("initial-exec")));

/* The function entry/exit shadow stack: function starts of the active calls */
static __thread void *tls_stack[SPF_STACK_DEPTH];
static __thread unsigned int tls_depth;

static char spf_timer_marker;	/* sigev_value of our timers */

/* ---- small helpers ---- */

SPF_HIDDEN void spf_err(const char *fmt, ...)
{
	const char *q = getenv("SIFIVE_PERF_QUIET");
	char buf[512];
	va_list ap;
	int n;

	if (q && *q && *q != '0')
		return;
	n = snprintf(buf, sizeof(buf), "sifive_perf: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", buf);
}

static inline void stat_inc(atomic_uint_fast64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline uint64_t stat_get(atomic_uint_fast64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

static pid_t spf_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return (int)got;
}

static const char *pmu_name(const char *env, const char *def)
{
	const char *v = getenv(env);

	return v && *v ? v : def;
}

static int pmu_type(const char *name)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), SPF_PMU_DIR "/%s/type", name);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/* Bytes, with an optional K, M or G suffix; 0 if malformed */
static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	return *end ? 0 : (size_t)v;
}

static size_t round_pow2_pages(size_t n)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), s = ps;

	while (s < n && s < ((size_t)1 << 40))
		s <<= 1;
	return s;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* ---- counters ---- */

/* The HPM counters of the harts: width of each, from sifive_hpm's "counters" */
struct hpm_counters {
	unsigned int width[SPF_MAX_CNTRS];	/* 0: no such counter */
	unsigned int csr[SPF_MAX_CNTRS];
};

static void hpm_counters(const char *pmu, struct hpm_counters *hc)
{
	char path[256], buf[4096], *p;
	unsigned int i, idx, width;
	unsigned long csr;

	memset(hc, 0, sizeof(*hc));
	snprintf(path, sizeof(path), SPF_PMU_DIR "/%s/counters", pmu);
	if (read_text(path, buf, sizeof(buf)) <= 0) {
		/* An older driver: assume 32 counters of 64 bits */
		for (i = 0; i < SPF_MAX_CNTRS; i++) {
			hc->width[i] = 64;
			hc->csr[i] = 0xc00 + i;
		}
		return;
	}
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "%u %lx %u", &idx, &csr, &width) == 3 && idx < SPF_MAX_CNTRS &&
		    width >= 1 && width <= 64) {
			hc->width[idx] = width;
			hc->csr[idx] = (unsigned int)csr;
		}
	}
}

/* The sifive_hpm encoding of an event: config, config1; -1 if invalid */
static int event_config(const perfEvent *e, uint64_t *config, uint64_t *config1)
{
	uint64_t code;

	*config1 = 0;
	switch (e->type) {
	case perfEventHWGeneral:
		if (e->code == HW_TIMESTAMP)
			code = SPF_HPM_GEN_TIME;
		else if (e->code >= HW_CPU_CYCLES && e->code <= HW_REF_CPU_CYCLES)
			code = (uint64_t)e->code;
		else
			return -1;
		break;
	case perfEventHWCache:
		if (e->cache_id < 0 || e->cache_id > HW_CACHE_NODE || e->op_id < 0 ||
		    e->op_id > HW_CACHE_OP_PREFETCH || e->result_id < 0 ||
		    e->result_id > HW_CACHE_RESULT_MISS)
			return -1;
		code = (uint64_t)e->cache_id << 3 | (uint64_t)e->op_id << 1 | (uint64_t)e->result_id;
		break;
	case perfEventHWRaw:
		code = 0;
		*config1 = e->event_data;
		break;
	default:
		return -1;
	}
	*config = (uint64_t)e->type << 16 | code;
	return 0;
}

/* The fixed counter of an event, or -1 */
static int event_fixed(const perfEvent *e)
{
	if (e->type != perfEventHWGeneral)
		return -1;
	switch (e->code) {
	case HW_CPU_CYCLES:
		return 0;
	case HW_TIMESTAMP:
		return 1;
	case HW_INSTRUCTIONS:
		return 2;
	}
	return -1;
}

static int open_counters(struct spf_slot *s)
{
	struct perf_event_attr attr;
	unsigned int i;
	long fd;

	s->nctr_fd = 0;
	for (i = 0; i < g.enc.nctr; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = (uint32_t)g.hpm_type;
		attr.config = g.ctr_config[i];
		attr.config1 = g.ctr_config1[i];
		attr.read_format = PERF_FORMAT_GROUP;
		fd = sys_perf_event_open(&attr, 0, -1, i ? s->ctr_fd[0] : -1,
					 PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int err = errno;

			spf_err("counter %u (sifive_hpm config=%#llx config1=%#llx): %s",
				g.enc.idx[i], (unsigned long long)attr.config,
				(unsigned long long)attr.config1, strerror(err));
			return -err;
		}
		s->ctr_fd[s->nctr_fd++] = (int)fd;
	}
	return 0;
}

/*
 * The counters held by a /dev/sifive-itc file of this thread, read by the
 * kernel for each record (SIFIVE_ITC_IOC_RECORD); -1 if the driver cannot
 * (an older one), or they cannot be opened so: then open_counters().
 */
static int open_rec_counters(struct spf_slot *s)
{
	struct sifive_itc_counter c[SPF_MAX_CNTRS];
	struct sifive_itc_counters cs;
	const char *env = getenv("SIFIVE_PERF_ITC_RECORD");
	unsigned int i;
	int fd;

	if (!g.enc.nctr || (env && !strcmp(env, "0")))
		return -1;
	fd = open(SIFIVE_ITC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(c, 0, sizeof(c));
	for (i = 0; i < g.enc.nctr; i++) {
		c[i].type = (uint32_t)g.hpm_type;
		c[i].config = g.ctr_config[i];
		c[i].config1 = g.ctr_config1[i];
		c[i].mask = g.enc.width_mask[i];
	}
	memset(&cs, 0, sizeof(cs));
	cs.counters = (uintptr_t)c;
	cs.count = g.enc.nctr;
	cs.channel = (uint8_t)g.enc.channel;
	cs.mode = (uint8_t)g.enc.count;
	if (ioctl(fd, SIFIVE_ITC_IOC_COUNTERS, &cs)) {
		close(fd);
		return -1;
	}
	s->rec_fd = fd;
	s->rec_reset = true;
	return 0;
}

/* The counters in mask order; 0 or -1 */
static int read_counters(struct spf_slot *s, uint64_t *vals)
{
	uint64_t buf[1 + SPF_MAX_CNTRS];
	size_t want = (1 + s->nctr_fd) * sizeof(uint64_t);
	unsigned int i;
	ssize_t got;

	if (!s->nctr_fd)
		return 0;
	stat_inc(&s->syscalls, 1);
	got = read(s->ctr_fd[0], buf, want);
	if (got != (ssize_t)want || buf[0] != s->nctr_fd) {
		if (got >= 0)
			errno = EIO;	/* short: not the program's errno */
		return -1;
	}
	for (i = 0; i < s->nctr_fd; i++)
		vals[i] = buf[1 + i] & g.enc.width_mask[i];
	return 0;
}

/* ---- trace ---- */

static int open_trace(struct spf_slot *s)
{
	struct perf_event_attr attr;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	void *p;
	long fd;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)g.trace_type;
	attr.config = g.trace_config;
	attr.config1 = 1ULL << g.enc.channel;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = errno;
		spf_err("sifive_trace event (config=%#llx): %s%s", (unsigned long long)attr.config,
			strerror(err), err == EBUSY ? " (under perf record -e sifive_trace//? "
			"set SIFIVE_PERF_MODE=perf-record)" : "");
		return -err;
	}
	s->trace_fd = (int)fd;
	s->data_size = SPF_DATA_PAGES * ps;
	p = mmap(NULL, s->data_size + ps, PROT_READ | PROT_WRITE, MAP_SHARED, s->trace_fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		spf_err("mmap of the trace event: %s", strerror(err));
		return -err;
	}
	s->pc = p;
	s->pc->aux_offset = s->data_size + ps;
	s->pc->aux_size = g.aux_size;
	p = mmap(NULL, g.aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->trace_fd,
		 (off_t)s->pc->aux_offset);
	if (p == MAP_FAILED) {
		err = errno;
		spf_err("mmap of a %zu-byte trace buffer: %s%s", g.aux_size, strerror(err),
			err == EPERM ? " (perf_event_mlock_kb, or run as root)" : "");
		return -err;
	}
	s->aux = p;
	s->aux_size = g.aux_size;
	if (ioctl(s->trace_fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = errno;
		spf_err("enabling the trace event: %s", strerror(err));
		return -err;
	}
	return 0;
}

static void close_slot(struct spf_slot *s)
{
	unsigned int i;

	for (i = 0; i < s->nctr_fd; i++)
		close(s->ctr_fd[i]);
	s->nctr_fd = 0;
	if (s->rec_fd >= 0)
		close(s->rec_fd);
	s->rec_fd = -1;
	if (s->aux)
		munmap(s->aux, s->aux_size);
	if (s->pc)
		munmap(s->pc, s->data_size + (size_t)sysconf(_SC_PAGESIZE));
	if (s->trace_fd >= 0)
		close(s->trace_fd);
	s->aux = NULL;
	s->pc = NULL;
	s->trace_fd = -1;
}

/*
 * The calling thread's slot, its events opened on first use. Not from a
 * signal handler: a thread that has none there records nothing.
 */
static struct spf_slot *thread_slot(void)
{
	struct spf_slot *s = tls_slot;
	unsigned int i;
	int ret;

	if (s || tls_failed || tls_attaching)
		return s;
	tls_attaching = true;
	pthread_mutex_lock(&g.lock);
	if (atomic_load(&g.state) != ST_READY) {
		pthread_mutex_unlock(&g.lock);
		tls_attaching = false;
		return NULL;
	}
	for (i = 0; i < SPF_MAX_THREADS; i++)
		if (!atomic_load(&g.slots[i].used))
			break;
	if (i == SPF_MAX_THREADS) {
		pthread_mutex_unlock(&g.lock);
		spf_err("more than %d threads record: thread %d is not traced", SPF_MAX_THREADS,
			spf_gettid());
		tls_failed = true;
		tls_attaching = false;
		return NULL;
	}
	s = &g.slots[i];
	memset((void *)&s->tid, 0, sizeof(*s) - offsetof(struct spf_slot, tid));
	s->trace_fd = -1;
	s->rec_fd = -1;
	s->tid = spf_gettid();
	atomic_store(&s->used, 1);
	ret = open_rec_counters(s) ? open_counters(s) : 0;
	if (!ret && !g.perf_record)
		ret = open_trace(s);
	if (ret) {
		close_slot(s);
		atomic_store(&s->used, 0);
		pthread_mutex_unlock(&g.lock);
		tls_failed = true;
		tls_attaching = false;
		return NULL;
	}
	atomic_store(&s->ready, 1);
	tls_slot = s;
	pthread_mutex_unlock(&g.lock);
	tls_attaching = false;
	return s;
}

static int itc_write(struct spf_slot *s, struct sifive_itc_write *w, unsigned int n,
		     unsigned int *traced)
{
	struct sifive_itc_batch b = {
		.entries = (uintptr_t)w,
		.count = n,
	};

	stat_inc(&s->syscalls, 1);
	if (ioctl(g.itc_fd, SIFIVE_ITC_IOC_WRITE, &b))
		return -1;
	*traced = b.traced;
	return 0;
}

/*
 * A record's stores @w (@n: a header, the type and addresses) and the
 * counters the kernel reads, in one call; @n becomes all the stores.
 * @header: the previous values start from 0 (the header reset them).
 */
static int itc_record(struct spf_slot *s, struct sifive_itc_write *w, unsigned int *n,
		      unsigned int *traced, bool header)
{
	struct sifive_itc_record r = {
		.entries = (uintptr_t)w,
		.count = *n,
		.flags = header || s->rec_reset ? SIFIVE_ITC_REC_RESET : 0,
	};

	stat_inc(&s->syscalls, 1);
	if (ioctl(s->rec_fd, SIFIVE_ITC_IOC_RECORD, &r)) {
		s->rec_reset = true;
		return -1;
	}
	s->rec_reset = false;
	s->enc.clipped += r.clipped;
	*n = r.written;
	*traced = r.traced;
	return 0;
}

static void scan_data_if_half(struct spf_slot *s);

/*
 * A record that failed: counted, with its errno for perfWriteTrace()'s
 * summary (a record may be written from a signal: no message here)
 */
static void record_failed(struct spf_slot *s)
{
	stat_inc(&s->errors, 1);
	atomic_store_explicit(&s->last_err, errno ? errno : EIO, memory_order_relaxed);
}

/*
 * Write one record of the calling thread (with a header first if it has
 * not written one since the last perfTraceOn()). Async-signal-safe.
 */
static int slot_record(struct spf_slot *s, unsigned int type, uint64_t addr, uint64_t addr2)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES + SPF_RECORD_MAX_WRITES];
	uint64_t vals[SPF_MAX_CNTRS];
	unsigned int n = 0, traced, epoch = atomic_load_explicit(&g.epoch, memory_order_acquire);
	bool header = false;
	int ret = 0;

	if (s->busy) {
		/* a timer signal in the middle of a record */
		stat_inc(&s->dropped, 1);
		return 0;
	}
	s->busy = 1;
	if (s->epoch != epoch) {
		n = spf_enc_header(&g.enc, &s->enc, w);
		header = true;
	}
	if (s->rec_fd >= 0) {
		n += spf_enc_record_head(&g.enc, &s->enc, w + n, type, addr, addr2);
		if (itc_record(s, w, &n, &traced, header)) {
			record_failed(s);
			s->epoch = 0;
			ret = -1;
			goto out;
		}
		goto written;
	}
	if (read_counters(s, vals)) {
		record_failed(s);
		ret = -1;
		goto out;
	}
	n += spf_enc_record(&g.enc, &s->enc, w + n, type, addr, addr2, vals);
	if (itc_write(s, w, n, &traced)) {
		record_failed(s);
		s->epoch = 0;	/* the stream lost its place: a header next time */
		ret = -1;
		goto out;
	}
written:
	if (header) {
		s->epoch = epoch;
		stat_inc(&s->headers, 1);
	}
	if (traced < n) {
		/* buffer full (stopped on wrap), or the hart was not traced */
		stat_inc(&s->dropped, 1);
		s->epoch = 0;
	} else {
		stat_inc(&s->records, 1);
	}
out:
	s->busy = 0;
	/* not busy: a timer signal meanwhile records, and skips the scan */
	scan_data_if_half(s);
	return ret;
}

/* A header on its own (perfTraceOn()) */
static int slot_header(struct spf_slot *s)
{
	struct sifive_itc_write w[SPF_HEADER_MAX_WRITES];
	unsigned int n, traced, epoch = atomic_load(&g.epoch);
	int ret = 0;

	s->busy = 1;
	n = spf_enc_header(&g.enc, &s->enc, w);
	s->rec_reset = true;
	if (itc_write(s, w, n, &traced)) {
		spf_err("writing the header: %s", strerror(errno));
		record_failed(s);
		s->epoch = 0;
		ret = -1;
	} else {
		s->epoch = traced == n ? epoch : 0;
		stat_inc(&s->headers, 1);
		if (traced < n)
			stat_inc(&s->dropped, 1);
	}
	s->busy = 0;
	return ret;
}

/* ---- initialisation ---- */

static void spf_atfork_child(void)
{
	/* The events trace the parent's threads: the child records nothing */
	g.forked = true;
	atomic_store(&g.on, 0);
	atomic_store(&g.state, ST_NONE);
	tls_slot = NULL;
	tls_failed = true;
}

SPF_API int perfInit(int num_cores, int num_funnels)
{
	const char *tname = pmu_name("SIFIVE_PERF_TRACE_PMU", "sifive_trace");
	const char *mode = getenv("SIFIVE_PERF_MODE");
	int ret = 1, fd;

	pthread_mutex_lock(&g.lock);
	if (g.forked) {
		spf_err("perfInit(): not in a child process of a traced process");
		goto out;
	}
	if (atomic_load(&g.state) != ST_NONE) {
		spf_err("perfInit(): must only be called once");
		goto out;
	}
	if (num_cores <= 0 || num_funnels < 0) {
		spf_err("perfInit(): invalid num_cores %d or num_funnels %d", num_cores,
			num_funnels);
		goto out;
	}
	/* Its other values (manual, func, timer) are sifive-perf record's */
	g.perf_record = mode && !strcmp(mode, "perf-record");
	g.trace_type = pmu_type(tname);
	if (g.trace_type < 0) {
		spf_err("perfInit(): no %s PMU (load sifive_trace.ko)", tname);
		goto out;
	}
	fd = open(SIFIVE_ITC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		spf_err("perfInit(): %s: %s", SIFIVE_ITC_DEVICE, strerror(errno));
		goto out;
	}
	g.itc_fd = fd;
	g.num_cores = num_cores;
	g.num_funnels = num_funnels;
	pthread_atfork(NULL, NULL, spf_atfork_child);
	atomic_store(&g.state, ST_INIT);
	ret = 0;
out:
	pthread_mutex_unlock(&g.lock);
	return ret;
}

static bool same_event(const perfEvent *a, const perfEvent *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case perfEventHWCache:
		return a->cache_id == b->cache_id && a->op_id == b->op_id &&
		       a->result_id == b->result_id;
	case perfEventHWRaw:
		return a->event_data == b->event_data;
	}
	return a->code == b->code;
}

/*
 * Check the arguments and work out the configuration; the counters are
 * assigned and the user's list gets ctrIdx and ctrInfo.
 */
static int configure(perfEvent *list, int n, int channel, perfCountType_t type,
		     uint32_t sba_size)
{
	const char *hname = pmu_name("SIFIVE_PERF_HPM_PMU", "sifive_hpm");
	struct spf_ctr_def defs[SPF_MAX_CNTRS];
	struct hpm_counters hc;
	const char *env;
	perfEvent *by_idx[SPF_MAX_CNTRS] = { 0 };
	unsigned int i, next = 3, k = 0;
	uint32_t mask = 0;
	size_t aux;

	if (channel < 0 || channel >= SPF_NR_CHANNELS) {
		spf_err("invalid ITC channel %d (0-31)", channel);
		return -1;
	}
	if ((unsigned int)type >= SPF_NR_COUNT_TYPES) {
		spf_err("invalid count type %d", (int)type);
		return -1;
	}
	if (n < 0 || (n > 0 && !list)) {
		spf_err("invalid counter list (%d events)", n);
		return -1;
	}
	memset(&hc, 0, sizeof(hc));
	if (n > 0) {
		g.hpm_type = pmu_type(hname);
		if (g.hpm_type < 0) {
			spf_err("no %s PMU (load sifive_hpm.ko)", hname);
			return -1;
		}
		hpm_counters(hname, &hc);
	}
	for (i = 0; i < (unsigned int)n; i++) {
		uint64_t c, c1;
		int idx = event_fixed(&list[i]);

		list[i].ctrIdx = (unsigned int)-1;
		list[i].ctrInfo = 0;
		if (event_config(&list[i], &c, &c1)) {
			spf_err("event %u: invalid type %d / code %d", i, list[i].type,
				list[i].code);
			return -1;
		}
		if (idx >= 0 && by_idx[idx]) {
			spf_err("event %u: counter %d is already recorded: left out", i, idx);
			continue;
		}
		if (idx < 0) {
			while (next < SPF_MAX_CNTRS && !hc.width[next])
				next++;
			if (next >= SPF_MAX_CNTRS) {
				spf_err("event %u: no programmable HPM counter left: left out", i);
				continue;
			}
			idx = (int)next++;
		}
		by_idx[idx] = &list[i];
		mask |= 1u << idx;
	}
	memset(defs, 0, sizeof(defs));
	for (i = 0; i < SPF_MAX_CNTRS; i++) {
		perfEvent *e = by_idx[i];
		unsigned int width = hc.width[i] ? hc.width[i] : 64;

		if (!e)
			continue;
		event_config(e, &g.ctr_config[k], &g.ctr_config1[k]);
		defs[k].type = (uint32_t)e->type;
		defs[k].code = (uint32_t)(g.ctr_config[k] & 0xffff);
		if (e->type == perfEventHWGeneral)
			defs[k].code = (uint32_t)e->code;	/* HW_TIMESTAMP as 0x80 */
		defs[k].event_data = e->type == perfEventHWRaw ? e->event_data : 0;
		/* The time counter is not a CSR the library reads: CSR field 0 */
		defs[k].info = SPF_INFO(i == 1 ? 0 : (hc.csr[i] ? hc.csr[i] : 0xc00 + i), width);
		e->ctrIdx = i;
		e->ctrInfo = defs[k].info;
		k++;
	}
	if (spf_enc_cfg_init(&g.enc, (unsigned int)channel, (enum spf_count)type, mask, defs))
		return -1;

	g.sba_size = sba_size;
	g.trace_config = (sba_size ? 7 : 4) | SPF_CFG_STOPONWRAP | SPF_CFG_TIMESTAMP;
	aux = sba_size ? sba_size : SPF_SRAM_AUX_SIZE;
	env = getenv("SIFIVE_PERF_BUFFER_SIZE");
	if (env && *env) {
		aux = parse_size(env);
		if (!aux) {
			spf_err("SIFIVE_PERF_BUFFER_SIZE=%s: not a size", env);
			return -1;
		}
	}
	g.aux_size = round_pow2_pages(aux);
	g.nevents = (unsigned int)(n < SPF_MAX_CNTRS ? n : SPF_MAX_CNTRS);
	if (n)
		memcpy(g.events, list, g.nevents * sizeof(*list));
	return 0;
}

/* A later init call (another thread): the same configuration? */
static bool same_config(enum spf_mode mode, perfEvent *list, int n, int channel,
			perfCountType_t type, uint32_t sba_size)
{
	unsigned int i;

	if (mode != g.mode || (unsigned int)channel != g.enc.channel ||
	    (enum spf_count)type != g.enc.count || sba_size != g.sba_size ||
	    (unsigned int)n != g.nevents)
		return false;
	for (i = 0; i < g.nevents; i++) {
		if (!same_event(&list[i], &g.events[i]))
			return false;
		list[i].ctrIdx = g.events[i].ctrIdx;
		list[i].ctrInfo = g.events[i].ctrInfo;
	}
	return true;
}

static void spf_sigprof(int sig, siginfo_t *si, void *ucv);

static int install_signal(void)
{
	struct sigaction sa;

	if (g.sig_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = spf_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, &g.old_sa)) {
		spf_err("sigaction(SIGPROF): %s", strerror(errno));
		return -1;
	}
	g.sig_installed = true;
	return 0;
}

/* The calling thread's timer: SIGPROF every interval of its CPU time (or wall time) */
static int arm_timer(struct spf_slot *s)
{
	const char *clk = getenv("SIFIVE_PERF_TIMER_CLOCK");
	struct itimerspec its;
	struct sigevent sev;
	long us = g.interval_us;

	if (!s->has_timer) {
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGPROF;
		sev.sigev_value.sival_ptr = &spf_timer_marker;
#ifdef sigev_notify_thread_id
		sev.sigev_notify_thread_id = spf_gettid();
#else
		sev._sigev_un._tid = spf_gettid();
#endif
		if (timer_create(clk && !strcmp(clk, "wall") ? CLOCK_MONOTONIC :
				 CLOCK_THREAD_CPUTIME_ID, &sev, &s->timer)) {
			spf_err("timer_create: %s", strerror(errno));
			return -1;
		}
		s->has_timer = true;
	}
	its.it_interval.tv_sec = us / 1000000;
	its.it_interval.tv_nsec = (us % 1000000) * 1000;
	its.it_value = its.it_interval;
	if (timer_settime(s->timer, 0, &its, NULL)) {
		spf_err("timer_settime: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int mode_init(enum spf_mode mode, perfEvent *list, int n, int channel,
		     perfCountType_t type, uint32_t sba_size, int interval)
{
	static const char *const names[] = {
		[MODE_MANUAL] = "perfManualInit", [MODE_TIMER] = "perfTimerISRInit",
		[MODE_FUNC] = "perfFuncEntryExitInit",
	};
	struct spf_slot *s;
	bool first = false;
	int state;

	pthread_mutex_lock(&g.lock);
	state = atomic_load(&g.state);
	if (state == ST_NONE) {
		pthread_mutex_unlock(&g.lock);
		spf_err("%s(): perfInit() was not called", names[mode]);
		return 1;
	}
	if (state == ST_READY) {
		/* Another thread joins: same configuration only */
		if (!same_config(mode, list, n, channel, type, sba_size)) {
			pthread_mutex_unlock(&g.lock);
			spf_err("%s(): the library is set up already, differently", names[mode]);
			return 1;
		}
	} else {
		if (configure(list, n, channel, type, sba_size)) {
			pthread_mutex_unlock(&g.lock);
			spf_err("%s(): failed", names[mode]);
			return 1;
		}
		g.mode = mode;
		if (mode == MODE_TIMER && install_signal()) {
			pthread_mutex_unlock(&g.lock);
			return 1;
		}
		atomic_store(&g.state, ST_READY);
		first = true;
	}
	if (mode == MODE_TIMER)
		g.interval_us = interval < SPF_MIN_INTERVAL ? SPF_MIN_INTERVAL : interval;
	pthread_mutex_unlock(&g.lock);

	/* The caller's events now, so that errors show here (and a retry may succeed) */
	tls_failed = false;
	s = thread_slot();
	if (!s) {
		tls_failed = false;
		if (first) {
			pthread_mutex_lock(&g.lock);
			atomic_store(&g.state, ST_INIT);
			g.mode = MODE_NONE;
			pthread_mutex_unlock(&g.lock);
		}
		spf_err("%s(): cannot trace this thread", names[mode]);
		return 1;
	}
	if (mode == MODE_TIMER && arm_timer(s))
		return 1;
	return 0;
}

SPF_API int perfManualInit(perfEvent *perfCntrList, int numCntrs, int itcChannel,
			   perfCountType_t cntType, uint32_t SBABufferSize)
{
	return mode_init(MODE_MANUAL, perfCntrList, numCntrs, itcChannel, cntType, SBABufferSize,
			 0);
}

SPF_API int perfTimerISRInit(perfEvent *perfCntrList, int numCntrs, int itcChannel,
			     perfCountType_t cntType, uint32_t SBABufferSize, int interval)
{
	return mode_init(MODE_TIMER, perfCntrList, numCntrs, itcChannel, cntType, SBABufferSize,
			 interval);
}

SPF_API int perfFuncEntryExitInit(perfEvent *perfCntrList, int numCntrs, int itcChannel,
				  perfCountType_t cntType, uint32_t SBABufferSize)
{
	return mode_init(MODE_FUNC, perfCntrList, numCntrs, itcChannel, cntType, SBABufferSize,
			 0);
}

SPF_HIDDEN bool spf_timer_mode(void)
{
	return atomic_load(&g.state) == ST_READY && g.mode == MODE_TIMER;
}

SPF_HIDDEN int spf_thread_start(void)
{
	struct spf_slot *s = thread_slot();

	if (!s)
		return -1;
	return g.mode == MODE_TIMER ? arm_timer(s) : 0;
}

/* ---- collection ---- */

SPF_API int perfTraceOn(void)
{
	struct spf_slot *s;

	if (atomic_load(&g.state) != ST_READY) {
		spf_err("perfTraceOn(): the library is not initialised");
		return 1;
	}
	s = thread_slot();
	if (!s)
		return 1;
	atomic_fetch_add(&g.epoch, 1);
	atomic_store(&g.on, 1);
	return slot_header(s) ? 1 : 0;
}

SPF_API int perfTraceOff(void)
{
	if (atomic_load(&g.state) != ST_READY) {
		spf_err("perfTraceOff(): the library is not initialised");
		return 1;
	}
	atomic_store(&g.on, 0);
	return 0;
}

__attribute__((noinline)) SPF_API int perfWriteCntrs(void)
{
	uint64_t pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
	struct spf_slot *s;

	if (atomic_load(&g.state) != ST_READY) {
		static atomic_flag said;

		if (!atomic_flag_test_and_set(&said))
			spf_err("perfWriteCntrs(): the library is not initialised (perfInit() and an init function come first)");
		return 1;
	}
	if (!atomic_load_explicit(&g.on, memory_order_relaxed))
		return 0;	/* trace off: nothing to record */
	s = thread_slot();
	if (!s)
		return 1;
	return slot_record(s, SPF_REC_MANUAL, pc, 0) ? 1 : 0;
}

static uint64_t ucontext_pc(void *ucv)
{
	ucontext_t *uc = ucv;

#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__riscv)
	return (uint64_t)uc->uc_mcontext.__gregs[REG_PC];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

/* The timer: the interrupted PC and the counters */
static void spf_sigprof(int sig, siginfo_t *si, void *ucv)
{
	struct spf_slot *s = tls_slot;
	int saved = errno;

	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != &spf_timer_marker) {
		/* Not ours: the program's own SIGPROF handler, if it had one */
		if ((g.old_sa.sa_flags & SA_SIGINFO) && g.old_sa.sa_sigaction)
			g.old_sa.sa_sigaction(sig, si, ucv);
		else if (g.old_sa.sa_handler != SIG_DFL && g.old_sa.sa_handler != SIG_IGN &&
			 g.old_sa.sa_handler)
			g.old_sa.sa_handler(sig);
		errno = saved;
		return;
	}
	if (s && atomic_load_explicit(&s->ready, memory_order_relaxed) &&
	    atomic_load_explicit(&g.on, memory_order_relaxed) && g.mode == MODE_TIMER)
		slot_record(s, SPF_REC_ISR, ucontext_pc(ucv), 0);
	errno = saved;
}

/*
 * -finstrument-functions hooks. The second address of a record is the
 * start of the function control goes to: the caller on entry, the function
 * returned to on exit, known from a per-thread stack of the active calls
 * (the call site if the caller was not instrumented).
 */
__attribute__((no_instrument_function)) SPF_API void __cyg_profile_func_enter(void *this_fn,
									   void *call_site)
{
	void *caller = tls_depth ? tls_stack[(tls_depth - 1) % SPF_STACK_DEPTH] : call_site;
	struct spf_slot *s;

	if (tls_depth < SPF_STACK_DEPTH)
		tls_stack[tls_depth] = this_fn;
	tls_depth++;
	if (!atomic_load_explicit(&g.on, memory_order_relaxed) || g.mode != MODE_FUNC)
		return;
	if (tls_depth > SPF_STACK_DEPTH)
		caller = call_site;
	s = thread_slot();
	if (s)
		slot_record(s, SPF_REC_FUNC_ENTER, (uintptr_t)this_fn, (uintptr_t)caller);
}

__attribute__((no_instrument_function)) SPF_API void __cyg_profile_func_exit(void *this_fn,
									  void *call_site)
{
	void *to = call_site;
	struct spf_slot *s;

	if (tls_depth) {
		/* Unwind to this function (a longjmp may have skipped exits) */
		unsigned int d = tls_depth;

		while (d && d <= SPF_STACK_DEPTH && tls_stack[d - 1] != this_fn)
			d--;
		if (d)
			tls_depth = d - 1;
		if (tls_depth && tls_depth <= SPF_STACK_DEPTH)
			to = tls_stack[tls_depth - 1];
	}
	if (!atomic_load_explicit(&g.on, memory_order_relaxed) || g.mode != MODE_FUNC)
		return;
	s = thread_slot();
	if (s)
		slot_record(s, SPF_REC_FUNC_EXIT, (uintptr_t)this_fn, (uintptr_t)to);
}

/* ---- writing the trace out ---- */

/*
 * Read the PERF_RECORD_AUX flags in the data ring, which is then empty
 * again. The owner thread does it as the ring fills (scan_data_if_half()),
 * perfWriteTrace() at the end; one at a time (@s->scanning; a timer signal
 * in the owner's scan, or perfWriteTrace() in another thread's, skips).
 * Returns false when someone else was reading it.
 */
static bool scan_data(struct spf_slot *s)
{
	struct perf_event_mmap_page *pc = s->pc;
	const uint8_t *data = (const uint8_t *)pc + pc->data_offset;
	uint64_t head, pos, size = pc->data_size;

	if (atomic_flag_test_and_set(&s->scanning))
		return false;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	pos = pc->data_tail;

	while (pos + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint8_t rec[64];
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(pos + i) % size];
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_AUX && h.size >= sizeof(h) + 24) {
			uint64_t flags;

			for (i = 0; i < sizeof(h) + 24 && i < sizeof(rec); i++)
				rec[i] = data[(pos + i) % size];
			memcpy(&flags, rec + sizeof(h) + 16, sizeof(flags));
			atomic_fetch_or(&s->aux_flags, (uint32_t)flags);
		}
		pos += h.size;
	}
	__atomic_store_n(&pc->data_tail, pos, __ATOMIC_RELEASE);
	atomic_flag_clear(&s->scanning);
	return true;
}

/*
 * After a record: read the data ring once it is half full. Each switch out
 * of a thread that traced something adds an AUX record, and a full ring
 * loses the next ones, with their flags (the final TRUNCATED among them).
 * Two loads per record otherwise.
 */
static void scan_data_if_half(struct spf_slot *s)
{
	struct perf_event_mmap_page *pc = s->pc;

	if (pc && __atomic_load_n(&pc->data_head, __ATOMIC_RELAXED) -
		  __atomic_load_n(&pc->data_tail, __ATOMIC_RELAXED) > pc->data_size / 2)
		scan_data(s);
}

/*
 * Records counted as stored that the buffer does not hold. A record counts
 * as stored when the hart was traced for all of its ITC stores, but that
 * only bounds what the trace keeps: once the buffer is full, the sink stops
 * on wrap and the stores made since (a whole sink window) never reach it.
 * So when the buffer may have lost something (records not stored, a
 * truncated or partial trace), its records are counted by decoding it, and
 * the difference moves from "stored" to "not stored". Under g.lock.
 */
static void count_unstored(struct spf_slot *s, uint64_t len)
{
	uint64_t stored = stat_get(&s->records);
	struct spf_decode_result res;
	unsigned int srcbits;

	if (!stat_get(&s->dropped) &&
	    !(atomic_load(&s->aux_flags) & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL)))
		return;
	srcbits = spf_guess_srcbits(s->aux, len, g.enc.channel);
	if (spf_decode_buffer(s->aux, len, srcbits, g.enc.channel, false, NULL, NULL, &res))
		return;		/* out of memory: keep the bound */
	s->unstored = stored > res.perf.records ? stored - res.perf.records : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

SPF_API int perfWriteTrace(char *file)
{
	const char *path = file ? file : "trace.rtd";
	uint64_t dropped = 0, stored = 0, total = 0, failed = 0;
	unsigned int i, tries;
	uint32_t flags = 0;
	int fd, ret = 0, err = 0;

	if (atomic_load(&g.state) != ST_READY) {
		spf_err("perfWriteTrace(): the library is not initialised");
		return 1;
	}
	if (g.perf_record)
		return 0;	/* perf record has the trace: no file */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		spf_err("perfWriteTrace(): %s: %s", path, strerror(errno));
		return 1;
	}
	pthread_mutex_lock(&g.lock);
	for (i = 0; i < SPF_MAX_THREADS; i++) {
		struct spf_slot *s = &g.slots[i];
		uint64_t head;

		if (!atomic_load(&s->ready))
			continue;
		/* Stopping the event drains the hart's sink into the buffer */
		ioctl(s->trace_fd, PERF_EVENT_IOC_DISABLE, 0);
		head = __atomic_load_n(&s->pc->aux_head, __ATOMIC_ACQUIRE);
		for (tries = 0; !scan_data(s); tries++) {
			/*
			 * The owner thread is reading it. Not for ever: this
			 * thread's own scan, interrupted (a signal handler that
			 * exits), or one that never ends (a handler that jumped
			 * out of it) would hold it still
			 */
			if (s == tls_slot || tries == SPF_SCAN_TRIES) {
				spf_err("%s: the trace flags of thread %d could not be read: the trace may end early or have gaps unsaid",
					path, s->tid);
				break;
			}
			sched_yield();
		}
		if (head > s->aux_size)
			head = s->aux_size;	/* never: the buffer is not overwritten */
		if (write_all(fd, s->aux, head)) {
			spf_err("perfWriteTrace(): %s: %s", path, strerror(errno));
			ret = 1;
		}
		count_unstored(s, head);
		ioctl(s->trace_fd, PERF_EVENT_IOC_ENABLE, 0);
		total += head;
		flags |= atomic_load(&s->aux_flags);
		stored += stat_get(&s->records) - s->unstored;
		dropped += stat_get(&s->dropped) + s->unstored;
		if (stat_get(&s->errors)) {
			failed += stat_get(&s->errors);
			err = atomic_load(&s->last_err);
		}
	}
	g.bytes = total;
	pthread_mutex_unlock(&g.lock);
	if (close(fd) && !ret) {
		spf_err("perfWriteTrace(): %s: %s", path, strerror(errno));
		ret = 1;
	}
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		spf_err("%s: a trace buffer filled up and stopped (stop on wrap): the trace "
			"ends early; a larger SBABufferSize or SIFIVE_PERF_BUFFER_SIZE keeps more",
			path);
	if (dropped)
		spf_err("%s: %llu of %llu record(s) stored, %llu could not be stored (trace "
			"stopped, or a hart not traced)", path, (unsigned long long)stored,
			(unsigned long long)(stored + dropped), (unsigned long long)dropped);
	if (flags & PERF_AUX_FLAG_PARTIAL)
		spf_err("%s: the trace has gaps (PERF_AUX_FLAG_PARTIAL)", path);
	if (failed)
		spf_err("%s: %llu record(s) could not be written (the last: %s)", path,
			(unsigned long long)failed, strerror(err ? err : EIO));
	return ret;
}

SPF_API int perfGetStats(struct perfStats *st)
{
	unsigned int i;

	if (!st) {
		spf_err("perfGetStats(): no struct perfStats to fill");
		return 1;
	}
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&g.lock);
	for (i = 0; i < SPF_MAX_THREADS; i++) {
		struct spf_slot *s = &g.slots[i];

		if (!atomic_load(&s->ready))
			continue;
		st->threads++;
		st->records += stat_get(&s->records) - s->unstored;
		st->headers += stat_get(&s->headers);
		st->dropped += stat_get(&s->dropped) + s->unstored;
		st->errors += stat_get(&s->errors);
		st->syscalls += stat_get(&s->syscalls);
		st->clipped += s->enc.clipped;
		st->aux_flags |= atomic_load(&s->aux_flags);
	}
	st->bytes = g.bytes;
	pthread_mutex_unlock(&g.lock);
	return 0;
}
