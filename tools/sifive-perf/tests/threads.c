// SPDX-License-Identifier: GPL-2.0-only
/*
 * threads N: two threads at once, one on each of the first two CPUs, each
 * calling its own function N times (work_a, work_b); built with
 * -finstrument-functions: `sifive-perf record --func` traces both.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t start;
static unsigned long n;

__attribute__((noinline)) unsigned long work_a(unsigned long i)
{
	return i * 3 + 1;
}

__attribute__((noinline)) unsigned long work_b(unsigned long i)
{
	return i * 5 + 2;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort: one CPU is fine too */
}

static void *thread_a(void *arg)
{
	unsigned long i, s = 0;

	(void)arg;
	pin(0);
	pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		s += work_a(i);
	return (void *)s;
}

static void *thread_b(void *arg)
{
	unsigned long i, s = 0;

	(void)arg;
	pin(1);
	pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		s += work_b(i);
	return (void *)s;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	void *ra, *rb;

	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	pthread_barrier_init(&start, NULL, 2);
	if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	printf("threads: %lu %lu\n", (unsigned long)ra, (unsigned long)rb);
	return 0;
}
