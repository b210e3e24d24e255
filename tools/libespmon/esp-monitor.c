// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * esp-monitor: run a command and print what the ESP tile monitors counted
 * meanwhile, in the ESP Monitors API's layout (esp_monitor_print). A thin
 * client of libespmon, linked against the shared library.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <sys/wait.h>

/* Limits large enough for any SoC the simulator builds (16x16 tiles) */
#define SOC_ROWS 16
#define SOC_COLS 16
#define SOC_NCPU 256
#define SOC_NMEM 256
#define SOC_NACC 256
#include "esp_monitor.h"

static const char *const set_names[ESP_MON_READ_NR] = {
	"ddr", "mem_reqs", "l2", "llc", "acc", "dvfs", "noc_injects", "noc_tile", "noc_plane",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: esp-monitor [-p PMU] [-a | -m SETS | -s TILE:MON] [-t TILE] [-A ACC]\n"
		"                   [-n PLANE] [-o FILE] [--] CMD [ARG...]\n"
		"Runs CMD and prints the ESP tile monitors' activity meanwhile.\n"
		"  -a          every monitor (ESP_MON_READ_ALL, the default)\n"
		"  -m SETS     ESP_MON_READ_MANY: a read_mask, or a comma list of ddr,\n"
		"              mem_reqs, l2, llc, acc, dvfs, noc_injects, noc_tile, noc_plane\n"
		"  -s TILE:MON ESP_MON_READ_SINGLE: one monitor of one tile\n"
		"  -t TILE     tile_index (dvfs, noc_injects, noc_tile)\n"
		"  -A ACC      acc_index (acc)\n"
		"  -n PLANE    noc_index (noc_plane)\n"
		"  -o FILE     write the statistics to FILE instead of stdout\n"
		"  -p PMU      the esp_<n> PMU (default: $ESP_MONITOR_PMU or the first)\n");
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *val)
{
	char *end;

	errno = 0;
	*val = strtoul(s, &end, 0);
	return !errno && end != s && !*end && *val <= max;
}

static bool parse_sets(char *s, uint16_t *mask)
{
	unsigned long val;
	char *tok, *save = NULL;
	unsigned int i;

	if (parse_uint(s, (1u << ESP_MON_READ_NR) - 1, &val)) {
		*mask = (uint16_t)val;
		return true;
	}
	*mask = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ESP_MON_READ_NR; i++)
			if (!strcmp(tok, set_names[i]))
				break;
		if (i == ESP_MON_READ_NR)
			return false;
		*mask |= 1u << i;
	}
	return *mask != 0;
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("esp-monitor: fork");
		return -1;
	}
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "esp-monitor: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	esp_monitor_args_t args = { .read_mode = ESP_MON_READ_ALL };
	esp_monitor_vals_t *start, *end, *diff;
	unsigned int single_start = 0, single_end;
	const char *out = NULL;
	unsigned long v, tile;
	FILE *fp = stdout;
	char *colon;
	int opt, ret;

	while ((opt = getopt(argc, argv, "+ham:s:t:A:n:o:p:")) != -1) {
		switch (opt) {
		case 'a':
			args.read_mode = ESP_MON_READ_ALL;
			break;
		case 'm':
			args.read_mode = ESP_MON_READ_MANY;
			if (!parse_sets(optarg, &args.read_mask))
				goto bad;
			break;
		case 's':
			args.read_mode = ESP_MON_READ_SINGLE;
			colon = strchr(optarg, ':');
			if (!colon)
				goto bad;
			*colon = '\0';
			if (!parse_uint(optarg, 255, &tile) ||
			    !parse_uint(colon + 1, ESP_MON_NR_MONITORS - 1, &v))
				goto bad;
			args.tile_index = (uint8_t)tile;
			args.mon_index = (uint8_t)v;
			break;
		case 't':
			if (!parse_uint(optarg, 255, &v))
				goto bad;
			args.tile_index = (uint8_t)v;
			break;
		case 'A':
			if (!parse_uint(optarg, 255, &v))
				goto bad;
			args.acc_index = (uint8_t)v;
			break;
		case 'n':
			if (!parse_uint(optarg, NOC_PLANES - 1, &v))
				goto bad;
			args.noc_index = (uint8_t)v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			if (esp_monitor_select(optarg)) {
				fprintf(stderr, "esp-monitor: %s: %s\n", optarg,
					esp_monitor_strerror(esp_monitor_error()));
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind >= argc)
		goto bad;

	start = esp_monitor_vals_alloc();
	end = esp_monitor_vals_alloc();
	diff = esp_monitor_vals_alloc();
	if (!start || !end || !diff) {
		perror("esp-monitor");
		return 1;
	}
	if (args.read_mode == ESP_MON_READ_SINGLE)
		single_start = esp_monitor(args, NULL);
	else
		esp_monitor(args, start);
	if (esp_monitor_error()) {
		fprintf(stderr, "esp-monitor: %s\n", esp_monitor_strerror(esp_monitor_error()));
		return 1;
	}

	ret = run(&argv[optind]);

	if (args.read_mode == ESP_MON_READ_SINGLE)
		single_end = esp_monitor(args, NULL);
	else
		esp_monitor(args, end);
	if (esp_monitor_error()) {
		fprintf(stderr, "esp-monitor: %s\n", esp_monitor_strerror(esp_monitor_error()));
		return 1;
	}
	if (out) {
		fp = fopen(out, "w");
		if (!fp) {
			fprintf(stderr, "esp-monitor: %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	if (args.read_mode == ESP_MON_READ_SINGLE) {
		fprintf(fp, "Monitor %u of tile %u: %u\n", args.mon_index, args.tile_index,
			sub_monitor_vals(single_start, single_end));
	} else {
		*diff = esp_monitor_diff(*start, *end);
		esp_monitor_print(args, *diff, fp);
	}
	if (out && fclose(fp)) {
		fprintf(stderr, "esp-monitor: %s: %s\n", out, strerror(errno));
		return 1;
	}
	esp_monitor_free();
	return ret < 0 ? 1 : ret;

bad:
	usage(stderr);
	return 2;
}
