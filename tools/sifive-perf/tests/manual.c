// SPDX-License-Identifier: GPL-2.0-only
/*
 * manual N: a program with perfWriteCntrs() calls and no set-up of its own:
 * `sifive-perf record --manual` sets the library up. Linked with
 * libsifiveperf.so.
 */
#include <stdio.h>
#include <stdlib.h>

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
	return bad != 0;
}
