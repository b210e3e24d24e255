// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * esp-monitor: run a command and print what the ESP tile monitors counted
 * meanwhile, in the ESP Monitors API's layout (esp_monitor_print). A thin
 * client of libespmon, linked against the shared library.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/resource.h>
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

#define PROG	"esp-monitor"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: esp-monitor [-p PMU] [-a | -m SETS | -s TILE:MON] [-t TILE] [-A ACC]\n"
		"                   [-n PLANE] [-o FILE] [--] CMD [ARG...]\n"
		"Runs CMD and prints the ESP tile monitors' activity meanwhile.\n"
		"  -h, --help  this text\n"
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

/* After a usage error: the error is on stderr already, then one line, not the help */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nUsage: " PROG " [OPTION]... [--] CMD [ARG...]; try '" PROG " --help'.\n",
	      stderr);
	return 2;
}

/* A failed library call: its message, once (the library itself is kept quiet) */
static int lib_error(void)
{
	const char *msg = esp_monitor_errmsg();

	fprintf(stderr, PROG ": %s\n",
		*msg ? msg : esp_monitor_strerror(esp_monitor_error()));
	return 1;
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *val)
{
	char *end;

	errno = 0;
	*val = strtoul(s, &end, 0);
	return !errno && end != s && !*end && *val <= max;
}

/* -m: a read_mask or set names; 0, or a usage error naming what is wrong */
static int parse_sets(const char *arg, uint16_t *mask)
{
	char buf[256], *tok, *save = NULL;
	unsigned long val;
	unsigned int i;

	if (parse_uint(arg, (1u << ESP_MON_READ_NR) - 1, &val) && val) {
		*mask = (uint16_t)val;
		return 0;
	}
	if (isdigit((unsigned char)arg[0]))
		return usage_error("-m '%s': a read_mask is 0x1 to 0x%x", arg,
				   (1u << ESP_MON_READ_NR) - 1);
	if (strlen(arg) >= sizeof(buf))
		return usage_error("-m: a list of sets is at most %zu characters", sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", arg);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ESP_MON_READ_NR; i++)
			if (!strcmp(tok, set_names[i]))
				break;
		if (i == ESP_MON_READ_NR)
			return usage_error("-m '%s': no set '%s' (ddr, mem_reqs, l2, llc, acc, "
					   "dvfs, noc_injects, noc_tile, noc_plane)", arg, tok);
		*mask |= 1u << i;
	}
	if (!*mask)
		return usage_error("-m '%s': no set given", arg);
	return 0;
}

/* -s TILE:MON; 0, or a usage error naming what is wrong */
static int parse_single(const char *arg, esp_monitor_args_t *args)
{
	unsigned long tile, mon;
	const char *colon = strchr(arg, ':');
	char tbuf[32];

	if (!colon || (size_t)(colon - arg) >= sizeof(tbuf))
		return usage_error("-s '%s': expected TILE:MON, e.g. -s 1:%u", arg,
				   MON_LLC_HIT_INDEX);
	snprintf(tbuf, sizeof(tbuf), "%.*s", (int)(colon - arg), arg);
	if (!parse_uint(tbuf, 255, &tile))
		return usage_error("-s '%s': TILE '%s' is not a tile index (0-255)", arg, tbuf);
	if (!parse_uint(colon + 1, ESP_MON_NR_MONITORS - 1, &mon))
		return usage_error("-s '%s': MON '%s' is not a monitor (0-%u)", arg, colon + 1,
				   ESP_MON_NR_MONITORS - 1);
	args->tile_index = (uint8_t)tile;
	args->mon_index = (uint8_t)mon;
	return 0;
}

/*
 * Run CMD and wait for it. Ctrl-C (SIGINT, SIGQUIT to the terminal's
 * process group) ends CMD, not the tool, which still prints what CMD
 * counted, as perf stat does.
 */
static int run(char **argv, const char *quiet, const struct rlimit *nofile)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int status, ret;
	pid_t pid;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		perror("esp-monitor: fork");
		ret = -1;
		goto out;
	}
	if (!pid) {
		/*
		 * CMD gets the environment, the signal actions and the limit
		 * of open files it was given (libespmon raises the soft limit
		 * for SoCs of many tiles)
		 */
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		setrlimit(RLIMIT_NOFILE, nofile);
		if (quiet)
			setenv("ESP_MONITOR_QUIET", quiet, 1);
		else
			unsetenv("ESP_MONITOR_QUIET");
		execvp(argv[0], argv);
		fprintf(stderr, "esp-monitor: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while ((ret = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (ret >= 0)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	esp_monitor_args_t args = { .read_mode = ESP_MON_READ_ALL };
	esp_monitor_vals_t *start, *end, *diff;
	unsigned int single_start = 0, single_end;
	const char *out = NULL, *pmu = NULL, *quiet = getenv("ESP_MONITOR_QUIET");
	unsigned long v;
	FILE *fp = stdout;
	struct rlimit nofile;
	int opt, ret;

	/* the limit CMD gets, before the library may raise it */
	if (getrlimit(RLIMIT_NOFILE, &nofile)) {
		perror("esp-monitor: getrlimit");
		return 1;
	}
	opterr = 0;	/* the errors below name the option */
	while ((opt = getopt_long(argc, argv, "+:ham:s:t:A:n:o:p:", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			args.read_mode = ESP_MON_READ_ALL;
			break;
		case 'm':
			args.read_mode = ESP_MON_READ_MANY;
			if (parse_sets(optarg, &args.read_mask))
				return 2;
			break;
		case 's':
			args.read_mode = ESP_MON_READ_SINGLE;
			if (parse_single(optarg, &args))
				return 2;
			break;
		case 't':
			if (!parse_uint(optarg, 255, &v))
				return usage_error("-t '%s': not a tile index (0-255)", optarg);
			args.tile_index = (uint8_t)v;
			break;
		case 'A':
			if (!parse_uint(optarg, 255, &v))
				return usage_error("-A '%s': not an accelerator index (0-255)", optarg);
			args.acc_index = (uint8_t)v;
			break;
		case 'n':
			if (!parse_uint(optarg, NOC_PLANES - 1, &v))
				return usage_error("-n '%s': not a NoC plane (0-%u)", optarg,
						   NOC_PLANES - 1);
			args.noc_index = (uint8_t)v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			pmu = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			return usage_error("%s needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("unknown option -%c", optopt);
			return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no command to run");

	/* Before anything runs: a file that cannot be created must not cost the run */
	if (out) {
		fp = fopen(out, "w");
		if (!fp) {
			fprintf(stderr, "esp-monitor: %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	/* The library's errors come out once, from here, with the tool's name */
	setenv("ESP_MONITOR_QUIET", "1", 1);
	if (pmu && esp_monitor_select(pmu))
		return lib_error();
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
	if (esp_monitor_error())
		return lib_error();

	ret = run(&argv[optind], quiet, &nofile);

	if (args.read_mode == ESP_MON_READ_SINGLE)
		single_end = esp_monitor(args, NULL);
	else
		esp_monitor(args, end);
	if (esp_monitor_error())
		return lib_error();
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
}
