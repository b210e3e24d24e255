// SPDX-License-Identifier: GPL-2.0-only
/*
 * events - event names for sifive-perf; see events.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include <socpmu/sifive_hpm.h>

#include "events.h"

#define PMU_BUS		"/sys/bus/event_source/devices"
#define HW_TIMESTAMP	0x80	/* sifive_linux_perf.h */

static const char *pmu_dir_override;

void events_set_pmu_dir(const char *dir)
{
	pmu_dir_override = dir;
}

static const char *hpm_pmu_name(void)
{
	const char *v = getenv("SIFIVE_PERF_HPM_PMU");

	return v && *v ? v : "sifive_hpm";
}

static void hpm_dir(char *buf, size_t size)
{
	if (pmu_dir_override)
		snprintf(buf, size, "%s", pmu_dir_override);
	else
		snprintf(buf, size, PMU_BUS "/%s", hpm_pmu_name());
}

static void seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* ---- built-in names ---- */

static const char *const gen_names[SIFIVE_HPM_GEN_MAX] = {
	[SIFIVE_HPM_GEN_CPU_CYCLES] = "cycles",
	[SIFIVE_HPM_GEN_INSTRUCTIONS] = "instructions",
	[SIFIVE_HPM_GEN_CACHE_REFERENCES] = "cache_references",
	[SIFIVE_HPM_GEN_CACHE_MISSES] = "cache_misses",
	[SIFIVE_HPM_GEN_BRANCH_INSTRUCTIONS] = "branch_instructions",
	[SIFIVE_HPM_GEN_BRANCH_MISSES] = "branch_misses",
	[SIFIVE_HPM_GEN_BUS_CYCLES] = "bus_cycles",
	[SIFIVE_HPM_GEN_STALLED_CYCLES_FRONTEND] = "stalled_cycles_frontend",
	[SIFIVE_HPM_GEN_STALLED_CYCLES_BACKEND] = "stalled_cycles_backend",
	[SIFIVE_HPM_GEN_REF_CPU_CYCLES] = "ref_cycles",
};

static const char *const cache_names[SIFIVE_HPM_CACHE_NR_IDS] = {
	"L1D", "L1I", "LL", "DTLB", "ITLB", "BPU", "NODE",
};
static const char *const op_names[SIFIVE_HPM_NR_OPS] = { "read", "write", "prefetch" };
static const char *const result_names[SIFIVE_HPM_NR_RESULTS] = { "access", "miss" };

struct u74_ev {
	const char *name;
	uint64_t sel;
	const char *desc;
};

static const struct u74_ev u74_events[] = {
#define U74_EV(n, v, d) { #n, v, d },
	SIFIVE_U74_EVENTS(U74_EV)
	SIFIVE_U74_ALIASES(U74_EV)
#undef U74_EV
};

#define NR_U74	(sizeof(u74_events) / sizeof(u74_events[0]))

static int builtin_event(const char *name, struct sp_event *ev)
{
	unsigned int i;

	for (i = 1; i < SIFIVE_HPM_GEN_MAX; i++) {
		if (gen_names[i] && !strcmp(name, gen_names[i])) {
			ev->type = 0;
			ev->code = i;
			return 0;
		}
	}
	if (!strcmp(name, "timestamp")) {
		ev->type = 0;
		ev->code = HW_TIMESTAMP;
		return 0;
	}
	for (i = 0; i < NR_U74; i++) {
		if (!strcmp(name, u74_events[i].name)) {
			ev->type = 2;
			ev->event_data = u74_events[i].sel;
			return 0;
		}
	}
	return -1;
}

void event_def_name(int type, uint32_t code, uint64_t event_data, char *buf, size_t size)
{
	unsigned int i;

	switch (type) {
	case 0:
		if (code == HW_TIMESTAMP || code == SIFIVE_HPM_GEN_TIME)
			snprintf(buf, size, "timestamp");
		else if (code < SIFIVE_HPM_GEN_MAX && gen_names[code])
			snprintf(buf, size, "%s", gen_names[code]);
		else
			snprintf(buf, size, "general_%#x", code);
		return;
	case 1:
		if ((code >> 3) < SIFIVE_HPM_CACHE_NR_IDS && ((code >> 1) & 3) < SIFIVE_HPM_NR_OPS)
			snprintf(buf, size, "%s-%s-%s", cache_names[code >> 3],
				 op_names[(code >> 1) & 3], result_names[code & 1]);
		else
			snprintf(buf, size, "cache_%#x", code);
		return;
	case 2:
		for (i = 0; i < NR_U74; i++) {
			if (u74_events[i].sel == event_data) {
				snprintf(buf, size, "%s", u74_events[i].name);
				return;
			}
		}
		snprintf(buf, size, "raw_%#llx", (unsigned long long)event_data);
		return;
	}
	snprintf(buf, size, "type%d_%#x", type, code);
}

/* ---- terms: type=2,event_data=0x202 ---- */

static int apply_terms(const char *terms, struct sp_event *ev, char *err, size_t errlen,
		       int depth);

/* The sysfs alias @name of sifive_hpm, as terms */
static int sysfs_alias(const char *name, char *terms, size_t size)
{
	char dir[256], path[512];
	FILE *f;
	size_t n;

	if (strchr(name, '/') || !*name)
		return -1;
	hpm_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/events/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(terms, 1, size - 1, f);
	fclose(f);
	terms[n] = 0;
	while (n && isspace((unsigned char)terms[n - 1]))
		terms[--n] = 0;
	return n ? 0 : -1;
}

static int apply_terms(const char *terms, struct sp_event *ev, char *err, size_t errlen,
		       int depth)
{
	char buf[256], *save = NULL, *t;
	bool cache = false;
	unsigned long long cid = 0, op = 0, res = 0;

	snprintf(buf, sizeof(buf), "%s", terms);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *end;
		unsigned long long v;

		if (!eq) {
			char alias[256];

			/* an alias inside the PMU's terms */
			if (depth || sysfs_alias(t, alias, sizeof(alias))) {
				if (builtin_event(t, ev)) {
					seterr(err, errlen, "unknown sifive_hpm event '%s'", t);
					return -1;
				}
				continue;
			}
			if (apply_terms(alias, ev, err, errlen, depth + 1))
				return -1;
			continue;
		}
		*eq = 0;
		v = strtoull(eq + 1, &end, 0);
		if (*end || end == eq + 1) {
			seterr(err, errlen, "bad value in '%s=%s'", t, eq + 1);
			return -1;
		}
		if (!strcmp(t, "type")) {
			ev->type = (int)v;
		} else if (!strcmp(t, "code")) {
			ev->code = (uint32_t)v;
		} else if (!strcmp(t, "event_data")) {
			ev->event_data = v;
		} else if (!strcmp(t, "cache_id")) {
			cid = v;
			cache = true;
		} else if (!strcmp(t, "op_id")) {
			op = v;
			cache = true;
		} else if (!strcmp(t, "result_id")) {
			res = v;
			cache = true;
		} else {
			seterr(err, errlen, "unknown term '%s'", t);
			return -1;
		}
	}
	if (cache)
		ev->code = (uint32_t)(cid << 3 | op << 1 | res);
	/* sifive_hpm counts the time counter as code 0x8000; the library calls it HW_TIMESTAMP */
	if (ev->type == 0 && ev->code == SIFIVE_HPM_GEN_TIME)
		ev->code = HW_TIMESTAMP;
	if (ev->type < 0 || ev->type > 2) {
		seterr(err, errlen, "type %d: only OpenSBI types 0, 1 and 2", ev->type);
		return -1;
	}
	return 0;
}

/* ---- libpfm4 ---- */

static int pfm_state;	/* 0 not tried, 1 ok, -1 failed */

static bool pfm_ready(void)
{
	if (!pfm_state)
		pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return pfm_state > 0;
}

void events_cleanup(void)
{
	if (pfm_state > 0)
		pfm_terminate();
	pfm_state = 0;
}

/* perf's generic hardware and cache events, as OpenSBI types 0 and 1 */
static int pfm_event(const char *name, struct sp_event *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char full[256];
	int pass;

	if (!pfm_ready())
		return -1;
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			if (strstr(name, "::"))
				continue;
			snprintf(full, sizeof(full), "perf::%s", name);
		} else {
			snprintf(full, sizeof(full), "%s", name);
		}
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &attr;
		arg.size = sizeof(arg);
		if (pfm_get_os_event_encoding(full, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
					      &arg) != PFM_SUCCESS)
			continue;
		if (attr.type == PERF_TYPE_HARDWARE && attr.config + 1 < SIFIVE_HPM_GEN_MAX) {
			/* perf's PERF_COUNT_HW_* are SBI's codes minus one */
			ev->type = 0;
			ev->code = (uint32_t)attr.config + 1;
			return 0;
		}
		if (attr.type == PERF_TYPE_HW_CACHE) {
			uint64_t id = attr.config & 0xff, op = (attr.config >> 8) & 0xff;
			uint64_t res = (attr.config >> 16) & 0xff;

			if (id >= SIFIVE_HPM_CACHE_NR_IDS || op >= SIFIVE_HPM_NR_OPS ||
			    res >= SIFIVE_HPM_NR_RESULTS)
				return -1;
			ev->type = 1;
			ev->code = (uint32_t)SIFIVE_HPM_CACHE_CODE(id, op, res);
			return 0;
		}
		/* a core PMU's own encoding (x86, ...) means nothing to a hart */
	}
	return -1;
}

int event_parse(const char *spec, struct sp_event *ev, char *err, size_t errlen)
{
	char terms[256], pmu[64];
	const char *slash;
	size_t len = strlen(spec);

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	if (!len) {
		seterr(err, errlen, "empty event");
		return -1;
	}
	/* PMU/TERMS/ */
	slash = strchr(spec, '/');
	if (slash) {
		if (spec[len - 1] != '/' || slash == spec + len - 1) {
			seterr(err, errlen, "'%s': expected PMU/TERMS/", spec);
			return -1;
		}
		snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - spec), spec);
		if (strcmp(pmu, hpm_pmu_name()) && strcmp(pmu, "sifive_hpm")) {
			seterr(err, errlen, "'%s': only %s events can be recorded", spec,
			       hpm_pmu_name());
			return -1;
		}
		snprintf(terms, sizeof(terms), "%.*s", (int)(len - (size_t)(slash - spec) - 2),
			 slash + 1);
		return apply_terms(terms, ev, err, errlen, 0);
	}
	/* rHEX: a raw mhpmevent value */
	if (spec[0] == 'r' && len > 1 && strspn(spec + 1, "0123456789abcdefABCDEF") == len - 1) {
		ev->type = 2;
		ev->event_data = strtoull(spec + 1, NULL, 16);
		return 0;
	}
	if (!pfm_event(spec, ev))
		return 0;
	if (!sysfs_alias(spec, terms, sizeof(terms)))
		return apply_terms(terms, ev, err, errlen, 1);
	if (!builtin_event(spec, ev))
		return 0;
	seterr(err, errlen, "unknown event '%s' (see sifive-perf list)", spec);
	return -1;
}

int events_parse_list(const char *list, struct sp_event *evs, int max, char *err,
		      size_t errlen)
{
	char item[256];
	const char *p = list;
	int n = 0;

	while (*p) {
		const char *q = p;
		size_t len;
		bool in_pmu = false;

		/* to the next comma that is not inside PMU/.../ */
		while (*q && (in_pmu || *q != ',')) {
			if (*q == '/')
				in_pmu = !in_pmu;
			q++;
		}
		len = (size_t)(q - p);
		if (len >= sizeof(item)) {
			seterr(err, errlen, "event too long");
			return -1;
		}
		if (len) {
			if (n >= max) {
				seterr(err, errlen, "more than %d events", max);
				return -1;
			}
			snprintf(item, sizeof(item), "%.*s", (int)len, p);
			if (event_parse(item, &evs[n], err, errlen))
				return -1;
			n++;
		}
		p = *q ? q + 1 : q;
	}
	return n;
}

/* ---- sifive-perf list ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_sysfs(void)
{
	char dir[256], path[512], terms[256], *names[256];
	struct dirent *de;
	unsigned int n = 0, i;
	DIR *d;

	hpm_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	if (!d) {
		printf("  (no %s PMU here: the built-in U74 names below still work)\n",
		       hpm_pmu_name());
		return;
	}
	while ((de = readdir(d)) && n < 256)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		if (names[i] && !sysfs_alias(names[i], terms, sizeof(terms)))
			printf("  %-34s %s/%s/\n", names[i], hpm_pmu_name(), terms);
		free(names[i]);
	}
	snprintf(path, sizeof(path), "%s/counters", dir);
	{
		FILE *f = fopen(path, "re");
		char line[128];

		if (f) {
			printf("\n%s counters (index, CSR, width):\n", hpm_pmu_name());
			while (fgets(line, sizeof(line), f))
				printf("  %s", line);
			fclose(f);
		}
	}
}

static void list_pfm(void)
{
	pfm_pmu_info_t pi;
	int e;

	if (!pfm_ready()) {
		printf("  (libpfm4 could not be initialised)\n");
		return;
	}
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	if (pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi) != PFM_SUCCESS)
		return;
	for (e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t ei;
		struct sp_event ev;
		char name[EV_NAME_LEN], lower[128];
		size_t i;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(e, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS || !ei.equiv)
			continue;	/* the aliases are the usable names */
		for (i = 0; ei.name[i] && i + 1 < sizeof(lower); i++)
			lower[i] = (char)tolower((unsigned char)ei.name[i]);
		lower[i] = 0;
		memset(&ev, 0, sizeof(ev));
		if (pfm_event(lower, &ev))
			continue;	/* software events: not HPM counters */
		event_def_name(ev.type, ev.code, ev.event_data, name, sizeof(name));
		printf("  %-34s type=%d,code=%#x (%s)\n", lower, ev.type, ev.code, name);
	}
}

void events_list(void)
{
	unsigned int i;

	printf("sifive_hpm event aliases (sysfs):\n");
	list_sysfs();
	printf("\ngeneric events (libpfm4, as OpenSBI type 0 and 1 events):\n");
	list_pfm();
	printf("\nbuilt-in names (OpenSBI general events and the U74 events):\n");
	for (i = 1; i < SIFIVE_HPM_GEN_MAX; i++)
		printf("  %-34s type=0,code=%#x\n", gen_names[i], i);
	printf("  %-34s type=0,code=%#x (HW_TIMESTAMP: the time counter)\n", "timestamp",
	       HW_TIMESTAMP);
	for (i = 0; i < NR_U74; i++)
		printf("  %-34s type=2,event_data=%#llx  %s\n", u74_events[i].name,
		       (unsigned long long)u74_events[i].sel, u74_events[i].desc);
	printf("\nraw events: rHEX or %s/type=2,event_data=HEX/ (the mhpmevent value: "
	       "U74 class in bits 7:0, event mask above)\n", hpm_pmu_name());
	printf("cache events: %s/type=1,cache_id=N,op_id=N,result_id=N/\n", hpm_pmu_name());
}
