/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * libsifiveperf internals shared by sifive_linux_perf.c and the parts that
 * only the shared library has (sifive_perf_preload.c: sifive-perf record's
 * start-up from the environment, and timers for new threads).
 */
#ifndef SPF_INTERNAL_H
#define SPF_INTERNAL_H

#include <stdbool.h>

#define SPF_HIDDEN	__attribute__((visibility("hidden")))
#define SPF_API		__attribute__((visibility("default")))

/* Timer collection is set up: new threads should get a timer too */
SPF_HIDDEN bool spf_timer_mode(void);
/* The calling thread records from now on: its events, and its timer in timer mode */
SPF_HIDDEN int spf_thread_start(void);
/* Print an error (unless SIFIVE_PERF_QUIET is set) */
SPF_HIDDEN void spf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* SPF_INTERNAL_H */
