// SPDX-License-Identifier: GPL-2.0-only
/*
 * fibi N: fib(N) recursively, built with -finstrument-functions and nothing
 * else (not linked with libsifiveperf): what `sifive-perf record --func`
 * traces. fib(N) makes 2 * fib(N + 1) - 1 calls.
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long fib(unsigned long f)
{
	if (f < 2)
		return f;
	return fib(f - 2) + fib(f - 1);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 15;

	printf("fib(%lu) = %lu\n", n, fib(n));
	return 0;
}
