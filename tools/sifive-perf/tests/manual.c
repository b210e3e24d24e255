// SPDX-License-Identifier: GPL-2.0-only
/*
 * manual N [fork]: a program with perfWriteCntrs() calls and no set-up of
 * its own: `sifive-perf record --manual` sets the library up. With "fork",
 * a child it forks afterwards exits (running the atexit handlers it
 * inherited) before the program does. Linked with libsifiveperf.so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sifive_linux_perf.h"

__attribute__((noinline)) static unsigned long step(unsigned long i)
{
	return i * 7;
}

int main(int argc, char **argv)
{
	unsigned long i, n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10, s = 0;
	int bad = 0;

	for (i = 0; i < n; i++) {
		s += step(i);
		bad += perfWriteCntrs() != 0;
	}
	printf("manual: %lu (%d failed)\n", s, bad);
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t kid = fork();

		if (!kid)
			exit(0);
		if (kid < 0 || waitpid(kid, NULL, 0) != kid)
			bad++;
	}
	return bad != 0;
}
