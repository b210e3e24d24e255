/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events - sifive-perf's event names: what -e accepts, and the names the
 * decoder gives the counters of a trace header.
 *
 * An event is one of
 *   NAME                    a generic name resolved with libpfm4 (perf's
 *                           generic hardware and cache events: cycles,
 *                           branch-misses, L1-dcache-load-misses, ...),
 *                           else an event alias of the sifive_hpm PMU in
 *                           sysfs (cycles, dcache_miss, timestamp, ...),
 *                           else the built-in U74 table (the same names,
 *                           for when the PMU is not there)
 *   PMU/TERMS/              sifive_hpm/dcache_miss/ or
 *                           sifive_hpm/type=2,event_data=0x202/ (terms:
 *                           type, code, cache_id, op_id, result_id,
 *                           event_data, or an alias)
 *   rHEX                    a raw (type 2) event: the mhpmevent value
 * and becomes an OpenSBI event (type, code, event_data) of the library's
 * perfEvent.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define EV_NAME_LEN	64

struct sp_event {
	int type;		/* OpenSBI type 0, 1, 2 */
	uint32_t code;		/* type 0: SBI code (HW_TIMESTAMP 0x80); type 1: SBI cache code */
	uint64_t event_data;	/* type 2 */
	char name[EV_NAME_LEN];
};

/* The sifive_hpm PMU's sysfs directory to read aliases from (NULL: the default) */
void events_set_pmu_dir(const char *dir);

/* 0, or -1 with a reason in @err */
int event_parse(const char *spec, struct sp_event *ev, char *err, size_t errlen);

/* A comma-separated list (commas inside PMU/.../ belong to the event) */
int events_parse_list(const char *list, struct sp_event *evs, int max, char *err,
		      size_t errlen);

/* A name for a counter definition of a trace header */
void event_def_name(int type, uint32_t code, uint64_t event_data, char *buf, size_t size);

/* Release libpfm4's memory */
void events_cleanup(void);

/* sifive-perf list */
void events_list(void);

#endif /* EVENTS_H */
