/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the ESP selftests (esp_test.c: the esp_<n> PMU,
 * esp_api_test.c: libespmon): a simulated ESP SoC, its tile types, the
 * event list of include/socpmu/esp_regs.h and injection.
 */
#ifndef ESP_TESTLIB_H
#define ESP_TESTLIB_H

#include <socpmu/esp_regs.h>

#include "../lib/socpmu_test.h"

#define ESP_MAX_TILES	256

struct esp_ev {
	const char *name;
	unsigned int mon;
	unsigned int types;
	bool is64;
};

#define ESP_EV_ENTRY(n, m, t, w) { #n, (m), (t), (w) },
static const struct esp_ev esp_evs[] = { ESP_EVENTS(ESP_EV_ENTRY) };
#undef ESP_EV_ENTRY

static const char *const esp_type_names[ESP_NR_TILE_TYPES] = ESP_TILE_TYPE_NAMES;

/* A simulated ESP SoC and what its PMU says about it */
struct esp_soc {
	struct sp_dev d;
	unsigned int rows, cols, ntiles;
	int type[ESP_MAX_TILES];
	unsigned int ncpu, nmem, nacc;
	unsigned int cpu_tile[ESP_MAX_TILES], mem_tile[ESP_MAX_TILES], acc_tile[ESP_MAX_TILES];
	struct sp_kept kept;	/* "inject" and "workload" */
};

static inline const struct esp_ev *esp_ev_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(esp_evs); i++)
		if (!strcmp(esp_evs[i].name, name))
			return &esp_evs[i];
	return NULL;
}

static inline const struct esp_ev *esp_ev_by_mon(unsigned int mon)
{
	for (size_t i = 0; i < ARRAY_SIZE(esp_evs); i++)
		if (esp_evs[i].mon == mon)
			return &esp_evs[i];
	return NULL;
}

static inline bool esp_defined(const struct esp_soc *s, unsigned int tile,
			       const struct esp_ev *e)
{
	return e->types & (1u << s->type[tile]);
}

/* Number of tiles of the SoC that define @e */
static inline unsigned int esp_ntiles_with(const struct esp_soc *s, const struct esp_ev *e)
{
	unsigned int n = 0;

	for (unsigned int t = 0; t < s->ntiles; t++)
		n += esp_defined(s, t, e);
	return n;
}

/* Reads rows, cols and tiles of the SoC's PMU */
static inline int esp_soc_read_shape(struct esp_soc *s)
{
	char buf[4096], *tok, *save = NULL;
	uint64_t v;
	int ret;

	ret = sp_pmu_read_u64(&s->d, "rows", &v);
	if (ret)
		return ret;
	s->rows = (unsigned int)v;
	ret = sp_pmu_read_u64(&s->d, "cols", &v);
	if (ret)
		return ret;
	s->cols = (unsigned int)v;
	s->ntiles = s->rows * s->cols;
	if (!s->ntiles || s->ntiles > ESP_MAX_TILES)
		return -ERANGE;
	ret = sp_pmu_read(&s->d, "tiles", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	s->ncpu = s->nmem = s->nacc = 0;
	tok = strtok_r(buf, " \n", &save);
	for (unsigned int t = 0; t < s->ntiles; t++, tok = strtok_r(NULL, " \n", &save)) {
		int type = -1;

		for (int i = 0; tok && i < ESP_NR_TILE_TYPES; i++)
			if (!strcmp(tok, esp_type_names[i]))
				type = i;
		if (type < 0)
			return -EINVAL;
		s->type[t] = type;
		if (type == ESP_TILE_CPU)
			s->cpu_tile[s->ncpu++] = t;
		else if (type == ESP_TILE_MEM)
			s->mem_tile[s->nmem++] = t;
		else if (type == ESP_TILE_ACC)
			s->acc_tile[s->nacc++] = t;
	}
	return tok ? -EINVAL : 0;
}

/* Creates "esp name=@name @params" and learns its shape */
static inline int esp_soc_create(struct esp_soc *s, const char *name, const char *params)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = sp_dev_create(&s->d, "esp", name, params, "esp_");
	if (s->d.alive)
		sp_kept_open(&s->kept, &s->d, (const char *const[]){ "inject", "workload", NULL });
	return ret ? ret : esp_soc_read_shape(s);
}

static inline int esp_soc_delete(struct esp_soc *s)
{
	sp_kept_close(&s->kept);
	return sp_dev_delete(&s->d);
}

/* debugfs inject: tile < 0 means "all"; @what is an event name or a monitor number */
static inline int esp_inject(const struct esp_soc *s, int tile, const char *what, uint64_t n)
{
	char t[16], cmd[128];

	sp_unit_str(t, sizeof(t), tile);
	if (snprintf(cmd, sizeof(cmd), "%s %s %" PRIu64, t, what, n) >= (int)sizeof(cmd))
		return -EINVAL;
	return sp_kept_write(&s->kept, &s->d, "inject", cmd);
}

static inline int esp_workload(const struct esp_soc *s, const char *cmd)
{
	return sp_kept_write(&s->kept, &s->d, "workload", cmd);
}

#endif /* ESP_TESTLIB_H */
