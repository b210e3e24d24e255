// SPDX-License-Identifier: GPL-2.0
/*
 * riscv-init - /init of the RISC-V test VM (tools/vm/riscv-vm.sh), a static
 * riscv64 program: there is no busybox for riscv64 on this Debian.
 *
 * Mounts proc, sysfs, devtmpfs and debugfs, prints the start marker, loads
 * the modules listed in /etc/socpmu/modules ("<path.ko> [params]" per line,
 * in order; a module that fails to load counts as 1 failed test), then runs
 * every executable /selftests/<group>/<name> in name order, like
 * selftests/run_all.sh: each gets SELFTEST_TIMEOUT seconds (from
 * /etc/socpmu/timeout, default 120), its output is copied to the console and
 * its kselftest "# Totals:" lines are added up (xfail counts as passed,
 * xpass and error as failed; no Totals line, or a failure exit status
 * without failed tests, is 1 failed). Each test program gets the
 * words of /etc/socpmu/args as its arguments (riscv-vm.sh --args, e.g. a
 * kselftest harness filter: "-f pair"). Prints "RISCV: N passed, N failed,
 * N skipped", the exit marker with the token of /etc/socpmu/token and
 * powers the VM off.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long passed, failed, skipped;

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void load_modules(void)
{
	char line[512];
	FILE *f = fopen("/etc/socpmu/modules", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *params, *path = line;
		int fd;

		line[strcspn(line, "\n")] = '\0';
		if (!*path || *path == '#')
			continue;
		params = strchr(path, ' ');
		if (params)
			*params++ = '\0';
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, params ? params : "", 0)) {
			printf("# ===== load %s failed (%s): 1 failed\n", path, strerror(errno));
			failed++;
		} else {
			printf("# loaded %s %s\n", path, params ? params : "");
		}
		if (fd >= 0)
			close(fd);
	}
	fclose(f);
	fflush(stdout);
}

/* Add the counts of a "# Totals: pass:N fail:N xfail:N xpass:N skip:N error:N" line */
static void add_totals(const char *line, long *p, long *f, long *s)
{
	long pass = 0, fail = 0, xfail = 0, xpass = 0, skip = 0, error = 0;

	sscanf(line, "# Totals: pass:%ld fail:%ld xfail:%ld xpass:%ld skip:%ld error:%ld",
	       &pass, &fail, &xfail, &xpass, &skip, &error);
	*p += pass + xfail;
	*f += fail + xpass + error;
	*s += skip;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The seconds all CPUs spent busy since boot (/proc/stat), or -1. */
static double busy_s(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return -1;
	return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
}

/* The words of /etc/socpmu/args (riscv-vm.sh --args), after @path */
#define MAX_ARGS	16
static char args_line[512];

static void test_argv(const char *path, char **argv)
{
	char *save, *w;
	int n = 0;

	argv[n++] = (char *)path;
	for (w = strtok_r(args_line, " ", &save); w && n < MAX_ARGS; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
}

static void run_test(const char *path, const char *name, int limit)
{
	long p = 0, f = 0, s = 0, totals = 0;
	char buf[4096], line[1024];
	size_t used = 0;
	int pipefd[2], status = 0, timed_out = 0;
	double end = now_s() + limit, busy0 = busy_s(), busy1;
	pid_t pid;

	printf("# ===== %s\n", name);
	fflush(stdout);
	if (pipe(pipefd)) {
		printf("# ===== %s: pipe: %s: 1 failed\n", name, strerror(errno));
		failed++;
		return;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		dup2(null, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		{
			char *argv[MAX_ARGS + 1];

			test_argv(path, argv);
			execv(path, argv);
		}
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		int left = (int)((end - now_s()) * 1000);
		ssize_t n;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(pipefd[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		fwrite(buf, 1, (size_t)n, stdout);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (used < sizeof(line) - 1)
					line[used++] = buf[i];
				continue;
			}
			line[used] = '\0';
			used = 0;
			if (!strncmp(line, "# Totals: ", 10)) {
				add_totals(line, &p, &f, &s);
				totals++;
			}
		}
	}
	fflush(stdout);
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (timed_out) {
		printf("# ===== %s: timed out after %d s: 1 failed\n", name, limit);
		failed++;
		return;
	}
	if (!totals) {
		printf("# ===== %s: no Totals line (status %#x): 1 failed\n", name, status);
		failed++;
		return;
	}
	if (!f && !(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 4))) {
		printf("# ===== %s: status %#x without failed tests: 1 failed\n", name, status);
		f = 1;
	}
	printf("# ===== %s: %ld passed, %ld failed, %ld skipped (%.0f s", name, p, f, s,
	       now_s() - (end - limit));
	busy1 = busy_s();
	if (busy0 >= 0 && busy1 >= 0)
		printf(", busy %.1f s", busy1 - busy0);
	printf(")\n");
	passed += p;
	failed += f;
	skipped += s;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_tests(int limit)
{
	struct dirent **groups, **tests;
	char dir[512], path[1024], name[600];
	int ng, nt;

	ng = scandir("/selftests", &groups, NULL, by_name);
	for (int g = 0; g < ng; g++) {
		if (groups[g]->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/selftests/%s", groups[g]->d_name);
		nt = scandir(dir, &tests, NULL, by_name);
		for (int t = 0; t < nt; t++) {
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", dir, tests[t]->d_name);
			snprintf(name, sizeof(name), "%s/%s", groups[g]->d_name, tests[t]->d_name);
			if (tests[t]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode) &&
			    (st.st_mode & 0111))
				run_test(path, name, limit);
			free(tests[t]);
		}
		if (nt > 0)
			free(tests);
		free(groups[g]);
	}
	if (ng > 0)
		free(groups);
}

/*
 * The lockdep gate: the kernel is built with PROVE_LOCKING (riscv-vm.config)
 * and lockdep switches itself off at its first report, so "debug_locks: 1"
 * after every test means no report at all (the splat itself also fails the
 * run, as any kernel WARNING does).
 */
static void check_lockdep(void)
{
	char buf[8192];
	FILE *f = fopen("/proc/lockdep_stats", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	const char *on;

	if (f)
		fclose(f);
	buf[n] = '\0';
	on = strstr(buf, "debug_locks:");
	if (on && strtol(on + strlen("debug_locks:"), NULL, 10) == 1) {
		printf("# ===== lockdep: on after every test, 0 reports: 1 passed\n");
		passed++;
	} else {
		printf("# ===== lockdep: %s: 1 failed\n",
		       f ? "switched off by a report (see the console)" :
		       "no /proc/lockdep_stats (kernel without PROVE_LOCKING)");
		failed++;
	}
}

int main(void)
{
	char token[64], timeout[32];
	int limit;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	setenv("PATH", "/bin:/selftests", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);

	read_line("/etc/socpmu/token", token, sizeof(token));
	read_line("/etc/socpmu/timeout", timeout, sizeof(timeout));
	read_line("/etc/socpmu/args", args_line, sizeof(args_line));
	limit = atoi(timeout) > 0 ? atoi(timeout) : 120;

	/* Nothing of ours ran before this line: riscv-vm.sh tells boot trouble from ours by it */
	printf("\nSOCPMU-VM-START %s\n", token);
	load_modules();
	run_tests(limit);
	check_lockdep();
	printf("RISCV: %ld passed, %ld failed, %ld skipped\n", passed, failed, skipped);
	printf("\nSOCPMU-VM-EXIT %s status=%d\n", token, failed ? 1 : 0);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
