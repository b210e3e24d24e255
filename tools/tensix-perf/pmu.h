/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tensix-perf: PMU discovery in sysfs and generic perf_event_attr encoding.
 *
 * Event aliases (events/<name>, e.g. "bank=3,event=0x2,l1mux=1") are turned
 * into config/config1/config2 through the PMU's format/ files (e.g.
 * "config:24-26"), the way perf does: nothing here knows the Tensix bit
 * layout.
 */
#ifndef TENSIX_PERF_PMU_H
#define TENSIX_PERF_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TP_SYSFS_PMUS		"/sys/bus/event_source/devices"
#define TP_SYSFS_ENV		"TENSIX_PERF_SYSFS"	/* overrides TP_SYSFS_PMUS (testing) */
#define TP_PMU_PREFIX		"tensix_"
#define TP_PMU_NAME_LEN		64
#define TP_ALIAS_LEN		256

struct tp_format {
	char name[TP_PMU_NAME_LEN];
	int word;		/* 0 config, 1 config1, 2 config2 */
	uint64_t mask;		/* bits of that word, value bits go in ascending order */
};

struct tp_alias {
	char name[TP_PMU_NAME_LEN];
	char terms[TP_ALIAS_LEN];	/* trimmed alias text */
};

struct tp_pmu {
	char name[TP_PMU_NAME_LEN];
	char dir[4096];
	uint32_t type;
	int cpu;			/* first CPU of cpumask */
	char identifier[64];		/* "" when absent */
	int nr_cores;			/* -1 when the PMU does not say */
	struct tp_format *formats;
	size_t nr_formats;
	struct tp_alias *aliases;	/* sorted by name */
	size_t nr_aliases;
};

/* The sysfs directory holding the PMUs ($TENSIX_PERF_SYSFS or the real one) */
const char *tp_sysfs_root(void);

/*
 * Choose a PMU in @root: @want ("tensix_3", or just "3") or, when NULL,
 * the tensix_<n> with the lowest n. Returns 0, or -ENOENT.
 */
int tp_pmu_pick(const char *root, const char *want, char *name, size_t len);
/*
 * The numbers n of every tensix_<n> PMU in @root, ascending, at most @max
 * of them. Returns how many, or -ENOENT when @root cannot be read.
 */
int tp_pmu_list(const char *root, long *idx, size_t max);

/*
 * Read type, cpumask, identifier, num_cores, format/ and events/ of PMU
 * @name under @root. On failure returns a negative errno and a message in
 * @err; tp_pmu_free() is safe either way.
 */
int tp_pmu_load(struct tp_pmu *pmu, const char *root, const char *name,
		char *err, size_t errlen);
void tp_pmu_free(struct tp_pmu *pmu);

/* Parse a format file's text: "config:0-8", "config1:16", "config:0-3,8-9" */
int tp_format_parse(const char *text, int *word, uint64_t *mask);

/*
 * Encode a comma-separated term list ("bank=1,event=0x0", a bare "cycles"
 * means 1, raw "config=0x..." / "config1=..." / "config2=..." allowed) into
 * cfg[0..2], on top of what cfg already holds: a term overwrites its field.
 * Returns 0, or -EINVAL with a message in @err (unknown term, value too big).
 */
int tp_encode(const struct tp_pmu *pmu, const char *terms, uint64_t cfg[3],
	      char *err, size_t errlen);

/* Value of term @key in @terms (bare "key" = 1). Returns 0, or -ENOENT. */
int tp_term_get(const char *terms, const char *key, uint64_t *val);

/* Is @name a format term of @pmu? */
bool tp_pmu_has_format(const struct tp_pmu *pmu, const char *name);

/* First CPU of a cpulist ("0", "2-3", "1,4-5"), or -1 */
int tp_cpulist_first(const char *s);

/* Read a small sysfs file, trailing whitespace removed. Returns length or -errno. */
int tp_read_text(const char *path, char *buf, size_t len);

#endif /* TENSIX_PERF_PMU_H */
