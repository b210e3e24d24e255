// SPDX-License-Identifier: GPL-2.0-only
/*
 * sifive-perf: SiFive HPM counters in the trace, without changing the
 * program (the vendor library's "alternate implementation").
 *
 *   sifive-perf record [-e EVENTS] [--manual|--func|--timer=US]
 *                      [--count raw|delta|xor] [-c CHANNEL] [--sba SIZE]
 *                      [--buffer SIZE] [-o FILE] -- CMD ARGS
 *   sifive-perf decode FILE [--elf PROG] [--format text|csv|json|summary]
 *   sifive-perf list
 *
 * record runs CMD with libsifiveperf.so preloaded; the library's
 * constructor sets up the collection (function entry/exit for a program
 * built with -finstrument-functions, a timer for any program, or the
 * program's own perfWriteCntrs() calls) and turns the trace on, and at exit
 * writes the trace file. See Documentation/admin-guide/perf/sifive-perf.rst.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfsym.h"
#include "events.h"
#include "sifive-perf.h"

#define LIB_SONAME	"libsifiveperf.so.1"
#define SETUP_FAILED	125	/* the library's exit status when it cannot set up */
#define MAX_EVENTS	32

static void usage(void)
{
	fprintf(stderr,
		"usage: sifive-perf record [-e EVENTS] [--manual|--func|--timer[=US]]\n"
		"                          [--count raw|delta|xor] [-c CHANNEL] [--sba SIZE]\n"
		"                          [--buffer SIZE] [-o FILE] -- CMD [ARGS...]\n"
		"       sifive-perf decode FILE [--elf PROG] [--format text|csv|json|summary]\n"
		"                          [-o FILE] [-c CHANNEL] [--srcbits N] [--by-src]\n"
		"                          [--bias ADDR] [--ts-freq HZ]\n"
		"       sifive-perf list\n"
		"'sifive-perf record --help' and 'sifive-perf decode --help' explain the options.\n");
}

static void usage_record(void)
{
	fprintf(stderr,
		"usage: sifive-perf record [options] -- CMD [ARGS...]\n"
		"  -e, --event EVENTS  counters to record, comma-separated (default\n"
		"                      cycles,instructions); see sifive-perf list\n"
		"  --func              function entry/exit records (CMD built with\n"
		"                      -finstrument-functions; the default for such a CMD)\n"
		"  --timer[=US]        a record every US microseconds of each thread's CPU\n"
		"                      time: the sampled PC (default for other CMDs, 1000 us)\n"
		"  --manual            only CMD's own perfWriteCntrs() calls\n"
		"  --count TYPE        raw, delta (default) or xor\n"
		"  -c, --channel N     ITC channel (default 6)\n"
		"  --sba SIZE          SBA sink with a SIZE buffer (default: the SRAM sink)\n"
		"  --buffer SIZE       trace buffer per thread (default: --sba SIZE, or 1M)\n"
		"  -o, --output FILE   the trace file (default trace.rtd)\n"
		"SIZE takes a K, M or G suffix. CMD must be dynamically linked.\n");
}

static bool parse_size(const char *s, unsigned long long *v)
{
	char *end;

	*v = strtoull(s, &end, 0);
	switch (*end) {
	case 'k': case 'K': *v <<= 10; end++; break;
	case 'm': case 'M': *v <<= 20; end++; break;
	case 'g': case 'G': *v <<= 30; end++; break;
	}
	return end != s && !*end;
}

/* CMD as execvp() would find it */
static bool find_program(const char *cmd, char *path, size_t size)
{
	const char *p, *dirs = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(path, size, "%s", cmd);
		return access(path, X_OK) == 0;
	}
	for (p = dirs ? dirs : "/usr/bin:/bin"; p && *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		snprintf(path, size, "%.*s/%s", (int)n, n ? p : ".", cmd);
		if (access(path, X_OK) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* The shared library to preload */
static void find_library(char *path, size_t size)
{
	static const char *const rel[] = { "../lib/" LIB_SONAME, "../libsifiveperf/" LIB_SONAME };
	const char *env = getenv("SIFIVE_PERF_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t n;
	unsigned int i;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				if ((size_t)snprintf(path, size, "%s/%s", exe, rel[i]) < size &&
				    access(path, R_OK) == 0)
					return;
			}
		}
	}
	snprintf(path, size, "%s", LIB_SONAME);	/* the dynamic linker's search path */
}

static int cmd_record_run(char **cmd, const char *mode, const char *events, int count,
			  int channel, unsigned long long sba, const char *buffer, int interval,
			  const char *output)
{
	char lib[PATH_MAX], preload[2 * PATH_MAX], out[PATH_MAX], num[32];
	const char *old;
	struct sigaction ign, old_int, old_quit;
	struct stat st;
	int status;
	pid_t pid;

	find_library(lib, sizeof(lib));
	if (output[0] == '/') {
		snprintf(out, sizeof(out), "%s", output);
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd))) {
			perror("sifive-perf record: getcwd");
			return 1;
		}
		if ((size_t)snprintf(out, sizeof(out), "%s/%s", cwd, output) >= sizeof(out)) {
			fprintf(stderr, "sifive-perf record: %s: path too long\n", output);
			return 1;
		}
	}
	/* A file left from before would pass for the new trace */
	if (unlink(out) && errno != ENOENT) {
		fprintf(stderr, "sifive-perf record: cannot remove the old %s: %s\n", output,
			strerror(errno));
		return 1;
	}

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		perror("sifive-perf record: fork");
		return 1;
	}
	if (!pid) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		snprintf(num, sizeof(num), "%d", (int)getpid());
		setenv("SIFIVE_PERF_RECORD", num, 1);
		setenv("SIFIVE_PERF_MODE", mode, 1);
		setenv("SIFIVE_PERF_EVENTS", events, 1);
		snprintf(num, sizeof(num), "%d", count);
		setenv("SIFIVE_PERF_COUNT", num, 1);
		snprintf(num, sizeof(num), "%d", channel);
		setenv("SIFIVE_PERF_CHANNEL", num, 1);
		snprintf(num, sizeof(num), "%llu", sba);
		setenv("SIFIVE_PERF_SBA", num, 1);
		snprintf(num, sizeof(num), "%d", interval);
		setenv("SIFIVE_PERF_INTERVAL", num, 1);
		setenv("SIFIVE_PERF_OUTPUT", out, 1);
		if (buffer)
			setenv("SIFIVE_PERF_BUFFER_SIZE", buffer, 1);
		old = getenv("LD_PRELOAD");
		snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "",
			 old ? old : "");
		setenv("LD_PRELOAD", preload, 1);
		execvp(cmd[0], cmd);
		fprintf(stderr, "sifive-perf record: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("sifive-perf record: waitpid");
			return 1;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	if (stat(out, &st)) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == SETUP_FAILED)
			fprintf(stderr, "sifive-perf record: the trace could not be set up "
				"(messages above)\n");
		else
			fprintf(stderr, "sifive-perf record: %s exited %s %d without writing %s "
				"(the trace is written at exit())\n", cmd[0],
				WIFSIGNALED(status) ? "on signal" : "with status",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), out);
		return 1;
	}
	fprintf(stderr, "sifive-perf record: %s: %lld bytes (decode: sifive-perf decode %s "
		"--elf %s)\n", output, (long long)st.st_size, output, cmd[0]);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "manual", no_argument, NULL, 'M' },
		{ "func", no_argument, NULL, 'F' },
		{ "timer", optional_argument, NULL, 'T' },
		{ "count", required_argument, NULL, 'C' },
		{ "channel", required_argument, NULL, 'c' },
		{ "sba", required_argument, NULL, 'S' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char events_arg[1024] = "", enc[2048] = "", err[256], prog[PATH_MAX];
	struct sp_event evs[MAX_EVENTS];
	const char *mode = NULL, *output = "trace.rtd", *buffer = NULL;
	unsigned long long sba = 0, v;
	int opt, count = 1, channel = 6, interval = 1000, nev, i;
	struct elfsym es;
	size_t len = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:c:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			snprintf(events_arg + strlen(events_arg), sizeof(events_arg) - strlen(events_arg),
				 "%s%s", events_arg[0] ? "," : "", optarg);
			break;
		case 'M':
			mode = "manual";
			break;
		case 'F':
			mode = "func";
			break;
		case 'T':
			mode = "timer";
			if (optarg) {
				interval = atoi(optarg);
				if (interval <= 0) {
					fprintf(stderr, "sifive-perf record: bad --timer %s\n", optarg);
					return 2;
				}
			}
			break;
		case 'C':
			if (!strcmp(optarg, "raw"))
				count = 0;
			else if (!strcmp(optarg, "delta"))
				count = 1;
			else if (!strcmp(optarg, "xor"))
				count = 2;
			else {
				fprintf(stderr, "sifive-perf record: --count raw, delta or xor\n");
				return 2;
			}
			break;
		case 'c':
			channel = atoi(optarg);
			if (channel < 0 || channel > 31) {
				fprintf(stderr, "sifive-perf record: channel 0-31\n");
				return 2;
			}
			break;
		case 'S':
			if (!parse_size(optarg, &sba) || sba > UINT32_MAX) {
				fprintf(stderr, "sifive-perf record: bad --sba %s\n", optarg);
				return 2;
			}
			break;
		case 'B':
			if (!parse_size(optarg, &v) || !v) {
				fprintf(stderr, "sifive-perf record: bad --buffer %s\n", optarg);
				return 2;
			}
			buffer = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage_record();
			return 0;
		default:
			usage_record();
			return 2;
		}
	}
	if (optind >= argc) {
		usage_record();
		return 2;
	}

	nev = events_parse_list(events_arg[0] ? events_arg : "cycles,instructions", evs,
				MAX_EVENTS, err, sizeof(err));
	if (nev < 0) {
		fprintf(stderr, "sifive-perf record: %s\n", err);
		return 2;
	}
	for (i = 0; i < nev; i++)
		len += (size_t)snprintf(enc + len, len < sizeof(enc) ? sizeof(enc) - len : 0,
					"%s%d:%#x:%#llx", i ? "," : "", evs[i].type, evs[i].code,
					(unsigned long long)evs[i].event_data);
	if (len >= sizeof(enc)) {
		fprintf(stderr, "sifive-perf record: too many events\n");
		return 2;
	}

	/* What the program is: LD_PRELOAD needs a dynamic one */
	if (!find_program(argv[optind], prog, sizeof(prog))) {
		fprintf(stderr, "sifive-perf record: %s: command not found\n", argv[optind]);
		return 127;
	}
	if (!elfsym_load(&es, prog)) {
		if (!es.dynamic) {
			fprintf(stderr, "sifive-perf record: %s is statically linked: it cannot "
				"load the library (link it with libsifiveperf.a and call "
				"perfInit() etc. instead)\n", prog);
			elfsym_free(&es);
			return 1;
		}
		if (!mode)
			mode = es.instrumented ? "func" : "timer";
		if (!strcmp(mode, "func") && !es.instrumented)
			fprintf(stderr, "sifive-perf record: warning: %s was not built with "
				"-finstrument-functions: no function records\n", prog);
		elfsym_free(&es);
	}
	if (!mode)
		mode = "timer";
	return cmd_record_run(argv + optind, mode, enc, count, channel, sba, buffer, interval,
			      output);
}

static void print_file(const char *title, const char *path)
{
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	printf("%s\n", title);
	while (fgets(line, sizeof(line), f))
		printf("  %s", line);
	fclose(f);
}

int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	events_list();
	printf("\n");
	if (access("/sys/bus/event_source/devices/sifive_trace/type", F_OK))
		printf("trace: no sifive_trace PMU here (load sifive_trace.ko)\n");
	else
		print_file("trace encoders (sifive_trace):",
			   "/sys/bus/event_source/devices/sifive_trace/encoders");
	printf("record modes: --func (-finstrument-functions), --timer[=US], --manual; "
	       "count types: raw, delta, xor\n");
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		usage();
		return 2;
	}
	if (!strcmp(argv[1], "record") || !strcmp(argv[1], "decode") ||
	    !strcmp(argv[1], "list")) {
		ret = argv[1][0] == 'r' ? cmd_record(argc - 1, argv + 1) :
		      argv[1][0] == 'd' ? cmd_decode(argc - 1, argv + 1) :
		      cmd_list(argc - 1, argv + 1);
		events_cleanup();
		return ret;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage();
		return 0;
	}
	fprintf(stderr, "sifive-perf: unknown command '%s'\n", argv[1]);
	usage();
	return 2;
}
