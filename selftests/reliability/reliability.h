/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the reliability tests (fuzzer, stress, security): what a PMU
 * says about itself in sysfs (format fields, event aliases), simulated
 * devices of every model type, kernel memory snapshots for leak checks and
 * the state of the socpmu modules.
 *
 * Everything is discovered: the PMUs are the socpmu entries of the
 * event_source bus, the model types come from the simulator, the modules
 * from modules.dep. Nothing here names a PMU driver.
 */
#ifndef RELIABILITY_H
#define RELIABILITY_H

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../lib/socpmu_test.h"

#define REL_MAX_FMT	24
#define REL_MAX_ALIAS	256
#define REL_WORDS	4	/* config, config1, config2, config3 */

/* One format field: "config1:0-15" or "config:0-7,32-35" */
struct rel_fmt {
	char name[32];
	int word;
	int nbits;
	unsigned char bit[64];	/* value bit i goes to config bit bit[i] */
};

struct rel_alias {
	char name[48];
	uint64_t cfg[REL_WORDS];
};

/* A PMU as its sysfs directory describes it */
struct rel_pmu {
	char name[SP_NAME_LEN];
	int type;
	int cpu;		/* first CPU of "cpumask", -1 if it has none */
	bool uncore;		/* has a cpumask: system-wide events only */
	bool aux;		/* takes an AUX area (rel_pmu_probe_aux()) */
	bool dead;		/* its device is gone: no event opens (ENODEV) */
	int nfmt;
	struct rel_fmt fmt[REL_MAX_FMT];
	uint64_t valid[REL_WORDS];	/* union of the format fields */
	int nalias;
	struct rel_alias alias[REL_MAX_ALIAS];
};

static inline int rel_parse_format(struct rel_fmt *f, const char *name, const char *spec)
{
	const char *p = strchr(spec, ':');
	char word[16];

	if (!p || (size_t)(p - spec) >= sizeof(word))
		return -EINVAL;
	memcpy(word, spec, p - spec);
	word[p - spec] = '\0';
	if (!strcmp(word, "config"))
		f->word = 0;
	else if (!strncmp(word, "config", 6) && word[6] >= '1' && word[6] <= '3' && !word[7])
		f->word = word[6] - '0';
	else
		return -EINVAL;
	snprintf(f->name, sizeof(f->name), "%.31s", name);
	f->nbits = 0;
	for (p++; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > 63)
				return -EINVAL;
		}
		for (long b = lo; b <= hi && f->nbits < 64; b++)
			f->bit[f->nbits++] = (unsigned char)b;
		p = end;
		if (*p == ',')
			p++;
	}
	return f->nbits ? 0 : -EINVAL;
}

static inline uint64_t rel_fmt_mask(const struct rel_fmt *f)
{
	uint64_t m = 0;

	for (int i = 0; i < f->nbits; i++)
		m |= 1ULL << f->bit[i];
	return m;
}

/* Deposits @val into the field's bits of @cfg */
static inline void rel_fmt_set(const struct rel_fmt *f, uint64_t *cfg, uint64_t val)
{
	for (int i = 0; i < f->nbits; i++) {
		uint64_t b = 1ULL << f->bit[i];

		cfg[f->word] = (val >> i) & 1 ? cfg[f->word] | b : cfg[f->word] & ~b;
	}
}

static inline const struct rel_fmt *rel_fmt_find(const struct rel_pmu *p, const char *name)
{
	for (int i = 0; i < p->nfmt; i++)
		if (!strcmp(p->fmt[i].name, name))
			return &p->fmt[i];
	return NULL;
}

/* Encodes an event string ("bank=2,event=0x5,l1mux=1") with the PMU's format */
static inline int rel_encode(const struct rel_pmu *p, const char *str, uint64_t *cfg)
{
	char buf[256], *term, *save = NULL;

	memset(cfg, 0, REL_WORDS * sizeof(*cfg));
	snprintf(buf, sizeof(buf), "%.255s", str);
	sp_strip_nl(buf);
	for (term = strtok_r(buf, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		const struct rel_fmt *f;
		uint64_t val = 1;

		if (eq) {
			*eq = '\0';
			errno = 0;
			val = strtoull(eq + 1, NULL, 0);
			if (errno)
				return -EINVAL;
		}
		f = rel_fmt_find(p, term);
		if (!f)
			return -ENOENT;	/* e.g. a "?" parameter term */
		rel_fmt_set(f, cfg, val);
	}
	return 0;
}

/* Reads type, cpumask, format/ and events/ of PMU @name */
static inline int rel_pmu_load(struct rel_pmu *p, const char *name)
{
	char path[512], buf[512];
	struct dirent *de;
	uint64_t type;
	DIR *dir;
	int ret;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.63s", name);
	snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/type", name);
	ret = sp_read_u64_file(path, &type);
	if (ret)
		return ret;
	p->type = (int)type;
	p->cpu = -1;
	snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/cpumask", name);
	if (sp_read_file(path, buf, sizeof(buf)) > 0 && sp_parse_cpulist(buf, &p->cpu) > 0)
		p->uncore = true;

	snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/format", name);
	dir = opendir(path);
	while (dir && (de = readdir(dir)) && p->nfmt < REL_MAX_FMT) {
		struct rel_fmt *f = &p->fmt[p->nfmt];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/format/%.200s", name, de->d_name);
		if (sp_read_file(path, buf, sizeof(buf)) <= 0 ||
		    rel_parse_format(f, de->d_name, buf))
			continue;
		p->valid[f->word] |= rel_fmt_mask(f);
		p->nfmt++;
	}
	if (dir)
		closedir(dir);

	snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/events", name);
	dir = opendir(path);
	while (dir && (de = readdir(dir)) && p->nalias < REL_MAX_ALIAS) {
		struct rel_alias *a = &p->alias[p->nalias];

		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;	/* .scale, .unit */
		snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s/events/%.200s", name, de->d_name);
		if (sp_read_file(path, buf, sizeof(buf)) <= 0 || rel_encode(p, buf, a->cfg))
			continue;
		snprintf(a->name, sizeof(a->name), "%.47s", de->d_name);
		p->nalias++;
	}
	if (dir)
		closedir(dir);
	return 0;
}

/* Loads every socpmu PMU; returns how many. */
static inline int rel_pmus_load(struct rel_pmu *pmus, int max)
{
	static char names[SP_MAX_PMUS][SP_NAME_LEN];
	int n = sp_list_socpmu(names, SP_MAX_PMUS), out = 0;

	for (int i = 0; i < n && out < max; i++)
		if (!rel_pmu_load(&pmus[out], names[i]))
			out++;
	return out;
}

/*
 * Does the PMU take an AUX area? Opens its first event (on its CPU, or on
 * CPU 0 for a PMU without a cpumask), maps it with one data page and maps
 * an AUX area of one page behind it.
 */
static inline bool rel_pmu_probe_aux(const struct rel_pmu *p)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = (uint32_t)p->type };
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	void *base, *aux;
	bool ret = false;
	int fd;

	attr.disabled = 1;
	if (p->nalias) {
		attr.config = p->alias[0].cfg[0];
		attr.config1 = p->alias[0].cfg[1];
		attr.config2 = p->alias[0].cfg[2];
	}
	fd = sp_perf_event_open(&attr, -1, p->cpu >= 0 ? p->cpu : 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	base = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base != MAP_FAILED) {
		pc = base;
		pc->aux_offset = 2 * page;
		pc->aux_size = page;
		aux = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 2 * page);
		if (aux != MAP_FAILED) {
			ret = true;
			munmap(aux, page);
		}
		munmap(base, 2 * page);
	}
	close(fd);
	return ret;
}

/*
 * A size of a test from the environment (make fuzz sets the long ones),
 * @def without it.
 */
static inline long rel_env(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 0);
	return *end || n <= 0 ? def : n;
}

/* ---- simulated devices of every model type ---- */

struct rel_simdev {
	char name[SP_NAME_LEN];
	char spec[128];
	bool alive;
};

/* Is @word in the comma-separated @list? */
static inline bool rel_in_list(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/*
 * Creates one device "<type> name=<prefix><type>" of every model type of
 * the simulator but those of the comma-separated @exclude (types that
 * cannot be created with their defaults are left out too). Returns the
 * number created, or -errno without a simulator.
 */
static inline int rel_sim_create_all(struct rel_simdev *devs, int max, const char *prefix,
				     const char *exclude)
{
	char types[32][SP_NAME_LEN];
	int nt = sp_sim_types(types, 32), n = 0;

	if (nt < 0)
		return nt;
	for (int i = 0; i < nt && n < max; i++) {
		struct rel_simdev *d = &devs[n];

		if (rel_in_list(exclude, types[i]))
			continue;
		snprintf(d->name, sizeof(d->name), "%s%.40s", prefix, types[i]);
		snprintf(d->spec, sizeof(d->spec), "%s name=%s", types[i], d->name);
		sp_sim_del_device(d->name);	/* a leftover of an earlier run */
		d->alive = !sp_sim_new_device(d->spec);
		if (d->alive)
			n++;
	}
	return n;
}

static inline void rel_sim_delete_all(struct rel_simdev *devs, int n)
{
	for (int i = 0; i < n; i++) {
		if (devs[i].alive)
			sp_sim_del_device(devs[i].name);
		devs[i].alive = false;
	}
}

/* ---- kernel memory ---- */

/*
 * Waits for what closing perf events leaves to RCU: membarrier's global
 * command is a synchronize_rcu().
 */
static inline void rel_rcu_settle(void)
{
	for (int i = 0; i < 3; i++) {
		syscall(__NR_membarrier, 1 /* MEMBARRIER_CMD_GLOBAL */, 0, 0);
		sp_sleep_ms(50);
	}
}

#define REL_MAX_SLABS	512

struct rel_slabs {
	int n;
	struct {
		char name[48];
		long objs;
		long size;
		bool reclaimable;	/* dentries, inodes: caches, not leaks */
	} c[REL_MAX_SLABS];
};

/*
 * Objects in use in every slab cache. The per-CPU slabs are flushed first
 * (each cache's "shrink"), so that in-use counts are exact, and reclaimable
 * dentries and inodes (sysfs, debugfs lookups) are dropped.
 */
static inline int rel_slab_read(struct rel_slabs *s)
{
	char line[512], path[300];
	struct dirent *de;
	DIR *dir;
	FILE *f;

	/*
	 * Evicted inodes drop their kernfs nodes, which RCU frees: drop the
	 * caches before waiting for RCU, twice for what the first round frees.
	 */
	for (int i = 0; i < 2; i++) {
		rel_rcu_settle();
		sp_write_file("/proc/sys/vm/drop_caches", "2");
	}
	rel_rcu_settle();
	dir = opendir("/sys/kernel/slab");
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%.200s/shrink", de->d_name);
		sp_write_file(path, "1");
	}
	if (dir)
		closedir(dir);

	s->n = 0;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && s->n < REL_MAX_SLABS) {
		long active, total, size;
		uint64_t reclaim = 0;
		char name[64];

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %ld %ld %ld", name, &active, &total, &size) != 4)
			continue;
		snprintf(s->c[s->n].name, sizeof(s->c[0].name), "%.47s", name);
		s->c[s->n].objs = active;
		s->c[s->n].size = size;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%.60s/reclaim_account", name);
		s->c[s->n].reclaimable = !sp_read_u64_file(path, &reclaim) && reclaim;
		s->n++;
	}
	fclose(f);
	return 0;
}

static inline long rel_slab_bytes(const struct rel_slabs *s)
{
	long total = 0;

	for (int i = 0; i < s->n; i++)
		if (!s->c[i].reclaimable)
			total += s->c[i].objs * s->c[i].size;
	return total;
}

/*
 * A snapshot once slab memory has settled: what closing files, removing
 * devices or unloading modules frees can take a few RCU grace periods and
 * evictions, so read until two readings in a row agree within 16 KiB (at
 * most 8 times).
 */
static inline int rel_slab_snapshot(struct rel_slabs *s)
{
	long prev = -1;
	int ret;

	for (int i = 0; i < 8; i++) {
		ret = rel_slab_read(s);
		if (ret)
			return ret;
		if (prev >= 0 && labs(rel_slab_bytes(s) - prev) < 16384)
			break;
		prev = rel_slab_bytes(s);
	}
	return 0;
}

/*
 * Bytes by which slab memory grew from @a to @b, reclaimable caches left
 * out; the caches that grew and shrank most are described in @top.
 */
static inline long rel_slab_delta(const struct rel_slabs *a, const struct rel_slabs *b,
				  char *top, size_t len)
{
	long total = 0, best[3] = { 0 }, low = 0;
	int who[3] = { -1, -1, -1 }, at = 0, lowest = -1;
	long objs[REL_MAX_SLABS];

	for (int i = 0; i < b->n; i++) {
		long before = 0, d;

		for (int j = 0; j < a->n; j++)
			if (!strcmp(a->c[j].name, b->c[i].name))
				before = a->c[j].objs;
		objs[i] = b->c[i].objs - before;
		d = objs[i] * b->c[i].size;
		if (b->c[i].reclaimable)
			continue;
		total += d;
		if (d < low) {
			low = d;
			lowest = i;
		}
		for (int k = 0; k < 3; k++) {
			if (d <= best[k])
				continue;
			for (int m = 2; m > k; m--) {
				best[m] = best[m - 1];
				who[m] = who[m - 1];
			}
			best[k] = d;
			who[k] = i;
			break;
		}
	}
	top[0] = '\0';
	for (int k = 0; k < 3 && who[k] >= 0 && at < (int)len; k++)
		at += snprintf(top + at, len - at, "%s%s +%ld objects (%ld bytes)",
			       k ? ", " : "", b->c[who[k]].name, objs[who[k]], best[k]);
	if (!top[0])
		at = snprintf(top, len, "none");
	if (lowest >= 0 && at < (int)len)
		snprintf(top + at, len - at, "; shrank most: %s %ld objects (%ld bytes)",
			 b->c[lowest].name, objs[lowest], low);
	return total;
}

/* ---- the socpmu modules ---- */

struct rel_modstate {
	int n;
	struct sp_mod mod[SP_MAX_MODS];
	bool loaded[SP_MAX_MODS];
	int refcnt[SP_MAX_MODS];
};

/* Which socpmu modules are loaded, with their reference counts */
static inline int rel_mod_state(struct rel_modstate *st)
{
	st->n = sp_mod_list(st->mod, SP_MAX_MODS);
	if (st->n < 0)
		return st->n;
	for (int i = 0; i < st->n; i++) {
		st->refcnt[i] = sp_mod_refcnt(st->mod[i].name);
		st->loaded[i] = st->refcnt[i] >= 0;
	}
	return 0;
}

/*
 * Compares reference counts with @base: 0, or -EBUSY with the first
 * difference described in @what. References of closed events come back
 * after an RCU grace period or, for a module pinned while a PMU's per-CPU
 * context still held software events, at the pin's next check (every
 * 100 ms): on a loaded machine that takes a while, so differences may
 * last @wait_ms before they count.
 */
static inline int rel_mod_compare(const struct rel_modstate *base, char *what, size_t len,
				  int wait_ms)
{
	uint64_t end = sp_now_ns() + (uint64_t)wait_ms * 1000000;

	for (;;) {
		int i, now = 0;

		for (i = 0; i < base->n; i++) {
			now = sp_mod_refcnt(base->mod[i].name);
			if (now != base->refcnt[i])
				break;
		}
		if (i == base->n) {
			snprintf(what, len, "%d modules back to their reference counts", base->n);
			return 0;
		}
		if (sp_now_ns() >= end) {
			snprintf(what, len, "%s: refcnt %d, was %d (after %d ms)",
				 base->mod[i].name, now, base->refcnt[i], wait_ms);
			return -EBUSY;
		}
		sp_sleep_ms(50);
	}
}

/*
 * Unloads every socpmu module, then loads again those of @st that were
 * loaded, also when an unload failed (so that the tests after this one find
 * the modules as they were): 0 or the first error.
 */
static inline int rel_mod_reload(const struct rel_modstate *st)
{
	int ret = sp_mod_unload_all(st->mod, st->n);

	for (int i = 0; i < st->n; i++) {
		int err;

		if (!st->loaded[i])
			continue;
		err = sp_mod_load(&st->mod[i]);
		if (err && err != -EEXIST && !ret)
			ret = err;
	}
	return ret;
}

#endif /* RELIABILITY_H */
