// SPDX-License-Identifier: GPL-2.0-only
/*
 * spin MS [THREADS]: burn about MS milliseconds of CPU time in spin_work(),
 * in THREADS threads at once (default 1: the main thread only); an ordinary
 * program (no instrumentation, no library): what `sifive-perf record
 * --timer` samples.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ms;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) unsigned long spin_work(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i * i;
	return x;
}

static void *spin(void *arg)
{
	double t0 = cpu_ms();
	unsigned long sum = 0;

	(void)arg;
	while (cpu_ms() - t0 < ms)
		sum += spin_work(20000);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int i, n = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[64];
	void *r;

	ms = argc > 1 ? atof(argv[1]) : 300;
	if (n < 1 || n > 64)
		n = 1;
	if (n == 1) {
		r = spin(NULL);
	} else {
		for (i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, spin, NULL))
				return 1;
		for (i = 0; i < n; i++)
			pthread_join(t[i], &r);
	}
	printf("spin: %d thread(s) (%lu)\n", n, (unsigned long)r & 0xff);
	return 0;
}
