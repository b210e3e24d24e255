// SPDX-License-Identifier: GPL-2.0-only
/*
 * tensix-perf: PMU discovery in sysfs and generic perf_event_attr encoding.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmu.h"

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Copy @src into @dst; false (and nothing copied) when it does not fit. */
static bool copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

const char *tp_sysfs_root(void)
{
	const char *env = getenv(TP_SYSFS_ENV);

	return env && *env ? env : TP_SYSFS_PMUS;
}

int tp_read_text(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	if (n < 0) {
		n = -errno;
		close(fd);
		buf[0] = '\0';
		return (int)n;
	}
	close(fd);
	while (got && isspace((unsigned char)buf[got - 1]))
		got--;
	buf[got] = '\0';
	return (int)got;
}

/* "tensix_<digits>" -> n, else -1 */
static long tensix_index(const char *name)
{
	const char *p = name + strlen(TP_PMU_PREFIX);
	char *end;
	long n;

	if (strncmp(name, TP_PMU_PREFIX, strlen(TP_PMU_PREFIX)) || !isdigit((unsigned char)*p))
		return -1;
	n = strtol(p, &end, 10);
	return *end ? -1 : n;
}

int tp_pmu_pick(const char *root, const char *want, char *name, size_t len)
{
	char path[4096], cand[TP_PMU_NAME_LEN];
	struct dirent *de;
	long best = -1;
	DIR *dir;

	if (want) {
		if (strlen(want) + strlen(TP_PMU_PREFIX) >= sizeof(cand))
			return -ENOENT;
		if (isdigit((unsigned char)want[0]) && strspn(want, "0123456789") == strlen(want))
			snprintf(cand, sizeof(cand), TP_PMU_PREFIX "%s", want);
		else
			copy_str(cand, sizeof(cand), want);
		if (strchr(cand, '/') || !strcmp(cand, ".") || !strcmp(cand, ".."))
			return -ENOENT;
		snprintf(path, sizeof(path), "%s/%s/type", root, cand);
		if (access(path, R_OK))
			return -ENOENT;
		return copy_str(name, len, cand) ? 0 : -ENOENT;
	}

	/*
	 * The lowest tensix_<n>; else the first by name of the PMUs named
	 * after their PCIe card (tensix_0000_03_00_0)
	 */
	dir = opendir(root);
	if (!dir)
		return -ENOENT;
	cand[0] = '\0';
	while ((de = readdir(dir))) {
		long n = tensix_index(de->d_name);

		if (n < 0) {
			if (!strncmp(de->d_name, TP_PMU_PREFIX, strlen(TP_PMU_PREFIX)) &&
			    de->d_name[strlen(TP_PMU_PREFIX)] &&
			    (!cand[0] || strcmp(de->d_name, cand) < 0))
				copy_str(cand, sizeof(cand), de->d_name);
			continue;
		}
		if (best >= 0 && n >= best)
			continue;
		if (!copy_str(name, len, de->d_name))
			continue;
		best = n;
	}
	closedir(dir);
	if (best >= 0)
		return 0;
	return cand[0] && copy_str(name, len, cand) ? 0 : -ENOENT;
}

int tp_pmu_list(const char *root, long *idx, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *dir;

	dir = opendir(root);
	if (!dir)
		return -ENOENT;
	while ((de = readdir(dir))) {
		long v = tensix_index(de->d_name);
		size_t at;

		if (v < 0 || n == max)
			continue;
		/* insertion sort: a handful of chips */
		for (at = n; at > 0 && idx[at - 1] > v; at--)
			idx[at] = idx[at - 1];
		idx[at] = v;
		n++;
	}
	closedir(dir);
	return (int)n;
}

int tp_cpulist_first(const char *s)
{
	char *end;
	long v;

	while (*s && isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	if (v < 0 || v > 1L << 20 || (*end && *end != '-' && *end != ',' && !isspace((unsigned char)*end)))
		return -1;
	return (int)v;
}

int tp_format_parse(const char *text, int *word, uint64_t *mask)
{
	const char *p = text;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	if (!strncmp(p, "config2:", 8)) {
		*word = 2;
		p += 8;
	} else if (!strncmp(p, "config1:", 8)) {
		*word = 1;
		p += 8;
	} else if (!strncmp(p, "config:", 7)) {
		*word = 0;
		p += 7;
	} else {
		return -EINVAL;
	}
	*mask = 0;
	for (;;) {
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ULL << b;
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -EINVAL : 0;
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct tp_alias *)a)->name, ((const struct tp_alias *)b)->name);
}

static int load_formats(struct tp_pmu *pmu, char *err, size_t errlen)
{
	char path[4096 + 320], text[256];
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/format", pmu->dir);
	dir = opendir(path);
	if (!dir) {
		ret = -errno;
		seterr(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return ret;
	}
	while ((de = readdir(dir))) {
		struct tp_format *f;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= TP_PMU_NAME_LEN)
			continue;
		snprintf(path, sizeof(path), "%s/format/%s", pmu->dir, de->d_name);
		if (tp_read_text(path, text, sizeof(text)) < 0)
			continue;
		f = realloc(pmu->formats, (pmu->nr_formats + 1) * sizeof(*f));
		if (!f) {
			ret = -ENOMEM;
			seterr(err, errlen, "out of memory");
			break;
		}
		pmu->formats = f;
		f = &pmu->formats[pmu->nr_formats];
		memset(f, 0, sizeof(*f));
		copy_str(f->name, sizeof(f->name), de->d_name);
		if (tp_format_parse(text, &f->word, &f->mask)) {
			ret = -EINVAL;
			seterr(err, errlen, "%s: bad format \"%s\"", path, text);
			break;
		}
		pmu->nr_formats++;
	}
	closedir(dir);
	return ret;
}

static int load_aliases(struct tp_pmu *pmu, char *err, size_t errlen)
{
	char path[4096 + 320];
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/events", pmu->dir);
	dir = opendir(path);
	if (!dir) {
		ret = -errno;
		seterr(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return ret;
	}
	while ((de = readdir(dir))) {
		struct tp_alias *a;

		/* Skip ".", "..", and perf's name.scale / name.unit / ... files */
		if (strchr(de->d_name, '.') || strlen(de->d_name) >= TP_PMU_NAME_LEN)
			continue;
		a = realloc(pmu->aliases, (pmu->nr_aliases + 1) * sizeof(*a));
		if (!a) {
			ret = -ENOMEM;
			seterr(err, errlen, "out of memory");
			break;
		}
		pmu->aliases = a;
		a = &pmu->aliases[pmu->nr_aliases];
		memset(a, 0, sizeof(*a));
		copy_str(a->name, sizeof(a->name), de->d_name);
		snprintf(path, sizeof(path), "%s/events/%s", pmu->dir, de->d_name);
		if (tp_read_text(path, a->terms, sizeof(a->terms)) < 0)
			continue;
		pmu->nr_aliases++;
	}
	closedir(dir);
	if (pmu->nr_aliases)
		qsort(pmu->aliases, pmu->nr_aliases, sizeof(*pmu->aliases), cmp_alias);
	return ret;
}

int tp_pmu_load(struct tp_pmu *pmu, const char *root, const char *name,
		char *err, size_t errlen)
{
	char path[4096 + 320], text[256], *end;
	unsigned long long v;
	int ret;

	memset(pmu, 0, sizeof(*pmu));
	pmu->nr_cores = -1;
	pmu->cpu = -1;
	if (!copy_str(pmu->name, sizeof(pmu->name), name) ||
	    snprintf(pmu->dir, sizeof(pmu->dir), "%s/%s", root, name) >= (int)sizeof(pmu->dir)) {
		seterr(err, errlen, "PMU name or path too long");
		return -ENAMETOOLONG;
	}

	snprintf(path, sizeof(path), "%s/type", pmu->dir);
	ret = tp_read_text(path, text, sizeof(text));
	if (ret < 0) {
		seterr(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text || *end || v > UINT32_MAX) {
		seterr(err, errlen, "%s: bad PMU type \"%s\"", path, text);
		return -EINVAL;
	}
	pmu->type = (uint32_t)v;

	snprintf(path, sizeof(path), "%s/cpumask", pmu->dir);
	ret = tp_read_text(path, text, sizeof(text));
	if (ret < 0) {
		seterr(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	pmu->cpu = tp_cpulist_first(text);
	if (pmu->cpu < 0) {
		seterr(err, errlen, "%s: bad cpumask \"%s\"", path, text);
		return -EINVAL;
	}

	snprintf(path, sizeof(path), "%s/identifier", pmu->dir);
	if (tp_read_text(path, pmu->identifier, sizeof(pmu->identifier)) < 0)
		pmu->identifier[0] = '\0';

	snprintf(path, sizeof(path), "%s/num_cores", pmu->dir);
	if (tp_read_text(path, text, sizeof(text)) > 0) {
		long n = strtol(text, &end, 10);

		if (!*end && n > 0 && n <= 65536)
			pmu->nr_cores = (int)n;
	}

	ret = load_formats(pmu, err, errlen);
	if (ret)
		return ret;
	return load_aliases(pmu, err, errlen);
}

void tp_pmu_free(struct tp_pmu *pmu)
{
	free(pmu->formats);
	free(pmu->aliases);
	pmu->formats = NULL;
	pmu->aliases = NULL;
	pmu->nr_formats = 0;
	pmu->nr_aliases = 0;
}

static const struct tp_format *find_format(const struct tp_pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

bool tp_pmu_has_format(const struct tp_pmu *pmu, const char *name)
{
	return find_format(pmu, name) != NULL;
}

/* Split the next "key[=value]" off @*p. Returns 1, 0 at the end, -EINVAL. */
static int next_term(const char **p, char *key, size_t klen, uint64_t *val)
{
	const char *s = *p, *e;
	size_t n;
	char *end;

	while (*s == ',' || isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	e = s;
	while (*e && *e != '=' && *e != ',' && !isspace((unsigned char)*e))
		e++;
	n = (size_t)(e - s);
	if (!n || n >= klen)
		return -EINVAL;
	memcpy(key, s, n);
	key[n] = '\0';
	*val = 1;
	if (*e == '=') {
		e++;
		if (!isdigit((unsigned char)*e))
			return -EINVAL;
		errno = 0;
		*val = strtoull(e, &end, 0);
		if (errno || end == e)
			return -EINVAL;
		e = end;
	}
	while (isspace((unsigned char)*e))
		e++;
	if (*e && *e != ',')
		return -EINVAL;
	*p = e;
	return 1;
}

int tp_term_get(const char *terms, const char *key, uint64_t *val)
{
	const char *p = terms;
	char k[TP_PMU_NAME_LEN];
	uint64_t v;
	int found = -ENOENT, r;

	while ((r = next_term(&p, k, sizeof(k), &v)) > 0) {
		if (!strcmp(k, key)) {
			*val = v;
			found = 0;	/* the last occurrence wins, as in tp_encode() */
		}
	}
	return r < 0 ? r : found;
}

/* Scatter @val into the bits of @mask, low value bits into low mask bits. */
static int put_field(uint64_t *word, uint64_t mask, uint64_t val)
{
	uint64_t out = 0;

	for (int b = 0; b < 64; b++) {
		if (!(mask & (1ULL << b)))
			continue;
		if (val & 1)
			out |= 1ULL << b;
		val >>= 1;
	}
	if (val)
		return -ERANGE;
	*word = (*word & ~mask) | out;
	return 0;
}

int tp_encode(const struct tp_pmu *pmu, const char *terms, uint64_t cfg[3],
	      char *err, size_t errlen)
{
	static const char *const raw[3] = { "config", "config1", "config2" };
	const char *p = terms;
	char key[TP_PMU_NAME_LEN];
	uint64_t val;
	int r;

	while ((r = next_term(&p, key, sizeof(key), &val)) > 0) {
		const struct tp_format *f = find_format(pmu, key);
		int w;

		if (f) {
			if (put_field(&cfg[f->word], f->mask, val)) {
				seterr(err, errlen, "%s: value 0x%llx too big for term '%s'",
				       pmu->name, (unsigned long long)val, key);
				return -EINVAL;
			}
			continue;
		}
		for (w = 0; w < 3; w++)
			if (!strcmp(key, raw[w]))
				break;
		if (w == 3) {
			seterr(err, errlen, "%s: unknown term '%s' in \"%s\"", pmu->name, key, terms);
			return -EINVAL;
		}
		cfg[w] = val;
	}
	if (r < 0) {
		seterr(err, errlen, "%s: cannot parse event terms \"%s\"", pmu->name, terms);
		return -EINVAL;
	}
	return 0;
}
