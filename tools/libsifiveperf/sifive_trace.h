/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * sifive_trace.h - the name under which the SiFive Trace Performance
 * Library's documentation includes the trace register blocks ("SiFive Perf
 * Library Usage": #include "sifive_trace.h", then sifive_linux_perf.h).
 * The same as sifive_linux_trace.h, which its example program includes.
 */
#ifndef SIFIVE_TRACE_H_
#define SIFIVE_TRACE_H_

#include "sifive_linux_trace.h"

#endif /* SIFIVE_TRACE_H_ */
