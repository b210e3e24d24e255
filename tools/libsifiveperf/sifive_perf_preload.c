// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The parts of libsifiveperf.so that only make sense in a shared library:
 *
 *  - Start-up from the environment, for `sifive-perf record`, which runs a
 *    program with LD_PRELOAD=libsifiveperf.so.1 and SIFIVE_PERF_RECORD set
 *    to the program's pid: a constructor calls perfInit(), the init function
 *    of the mode, and perfTraceOn(); at exit the trace is written. The pid
 *    check keeps the program's own children (which inherit the environment)
 *    from recording over the same file.
 *
 *	SIFIVE_PERF_MODE	manual | func | timer
 *	SIFIVE_PERF_EVENTS	TYPE:CODE:EVENT_DATA[,...] (numbers in C syntax;
 *				type 1 takes the OpenSBI code cache_id << 3 |
 *				op_id << 1 | result_id)
 *	SIFIVE_PERF_COUNT	0 raw, 1 delta, 2 delta XOR
 *	SIFIVE_PERF_CHANNEL	ITC channel
 *	SIFIVE_PERF_SBA		SBABufferSize (0: SRAM sink)
 *	SIFIVE_PERF_INTERVAL	timer interval, microseconds
 *	SIFIVE_PERF_OUTPUT	the trace file
 *
 *  - Timer collection in every thread: pthread_create() is wrapped so that
 *    a thread created while timer collection is set up gets its own timer
 *    (the vendor API wants each traced core to call perfTimerISRInit()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sifive_linux_perf.h"
#include "spf_internal.h"

#define SPF_SETUP_FAILED	125	/* exit status when tracing cannot be set up */

static char spf_output[4096];

static int parse_events(const char *s, perfEvent *ev, int max)
{
	int n = 0;

	while (s && *s) {
		unsigned long long t, c, d;
		char *end;

		if (n >= max)
			return -1;
		t = strtoull(s, &end, 0);
		if (*end != ':')
			return -1;
		c = strtoull(end + 1, &end, 0);
		if (*end != ':')
			return -1;
		d = strtoull(end + 1, &end, 0);
		if (*end && *end != ',')
			return -1;
		memset(&ev[n], 0, sizeof(ev[n]));
		ev[n].type = (int)t;
		if (t == perfEventHWCache) {
			ev[n].cache_id = (int)(c >> 3);
			ev[n].op_id = (int)((c >> 1) & 3);
			ev[n].result_id = (int)(c & 1);
		} else {
			ev[n].code = (int)c;
		}
		ev[n].event_data = (unsigned long)d;
		n++;
		s = *end ? end + 1 : end;
	}
	return n;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? (int)strtol(v, NULL, 0) : def;
}

/* The process sifive-perf record traces (a fork child inherits atexit) */
static pid_t spf_traced;

static void spf_auto_exit(void)
{
	if (getpid() != spf_traced)
		return;
	perfTraceOff();
	perfWriteTrace(spf_output);
}

__attribute__((constructor)) static void spf_auto_start(void)
{
	const char *pid = getenv("SIFIVE_PERF_RECORD"), *mode, *events, *out;
	perfEvent ev[PERF_MAX_CNTRS];
	perfCountType_t count;
	int n, channel, rc;
	uint32_t sba;

	if (!pid || (pid_t)atol(pid) != getpid())
		return;
	mode = getenv("SIFIVE_PERF_MODE");
	events = getenv("SIFIVE_PERF_EVENTS");
	out = getenv("SIFIVE_PERF_OUTPUT");
	n = parse_events(events ? events : "", ev, PERF_MAX_CNTRS);
	if (n < 0 || !mode) {
		spf_err("sifive-perf record: bad SIFIVE_PERF_EVENTS or SIFIVE_PERF_MODE");
		_exit(SPF_SETUP_FAILED);
	}
	snprintf(spf_output, sizeof(spf_output), "%s", out && *out ? out : "trace.rtd");
	count = (perfCountType_t)env_int("SIFIVE_PERF_COUNT", perfCount_Delta);
	channel = env_int("SIFIVE_PERF_CHANNEL", 6);
	sba = (uint32_t)env_int("SIFIVE_PERF_SBA", 0);

	rc = perfInit(1, 0);
	if (!rc) {
		if (!strcmp(mode, "func"))
			rc = perfFuncEntryExitInit(ev, n, channel, count, sba);
		else if (!strcmp(mode, "timer"))
			rc = perfTimerISRInit(ev, n, channel, count, sba,
					      env_int("SIFIVE_PERF_INTERVAL", 1000));
		else if (!strcmp(mode, "manual"))
			rc = perfManualInit(ev, n, channel, count, sba);
		else
			rc = 1;
	}
	if (!rc)
		rc = perfTraceOn();
	if (rc) {
		spf_err("sifive-perf record: cannot set up tracing (mode %s)", mode);
		_exit(SPF_SETUP_FAILED);
	}
	spf_traced = getpid();
	atexit(spf_auto_exit);
}

/* ---- a timer for every new thread ---- */

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				 void *);

struct spf_start {
	void *(*fn)(void *);
	void *arg;
};

static void *spf_thread_tramp(void *p)
{
	struct spf_start st = *(struct spf_start *)p;

	free(p);
	spf_thread_start();
	return st.fn(st.arg);
}

SPF_API int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			   void *arg)
{
	static pthread_create_fn real;
	struct spf_start *st;
	int ret;

	if (!real) {
		real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
		if (!real)
			return EAGAIN;
	}
	if (!spf_timer_mode())
		return real(t, attr, fn, arg);
	st = malloc(sizeof(*st));
	if (!st)
		return real(t, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	ret = real(t, attr, spf_thread_tramp, st);
	if (ret)
		free(st);
	return ret;
}
