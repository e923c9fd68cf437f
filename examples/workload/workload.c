/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The bundled example workload: a program with a few clearly named hot
 * functions, so that a profile of it shows where the time goes.  It runs for
 * about the number of milliseconds given (default 1500): a wall time, so on a
 * loaded machine it gets less CPU time.  Tests that count samples give it a
 * number of rounds instead (-r), a fixed amount of work whatever the load.
 *
 *   workload [-r ROUNDS] [-w] [milliseconds]
 *
 *   -r ROUNDS  run exactly ROUNDS rounds of the hot functions (no time limit)
 *   -w         wait until stdin has a byte or is closed before the first
 *              round (a profiler attaches to the waiting process, then the
 *              test releases it)
 *
 * The last line says the rounds run and the CPU time the process used
 * (CLOCK_PROCESS_CPUTIME_ID), which tests compare with what was counted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N 96

static double a[N][N], b[N][N], c[N][N];

/* Dense matrix multiply: the biggest share of the time. */
__attribute__((noinline)) static void matrix_multiply(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

/* FNV-1a over a buffer: a tight integer loop. */
__attribute__((noinline)) static uint64_t hash_buffer(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t u = *(const uint32_t *)x, v = *(const uint32_t *)y;

	return (u > v) - (u < v);
}

/* qsort of pseudo-random numbers: time lands in libc (qsort, cmp_u32). */
__attribute__((noinline)) static uint32_t sort_numbers(uint32_t *v, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = seed;
	}
	qsort(v, n, sizeof(*v), cmp_u32);
	return v[n / 2];
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = 1500, t0;
	static unsigned char buf[1 << 16];
	static uint32_t nums[1 << 14];
	uint64_t acc = 0;
	unsigned rounds = 0, max_rounds = 0;
	int opt;

	while ((opt = getopt(argc, argv, "r:w")) != -1) {
		char *end;

		switch (opt) {
		case 'r':
			max_rounds = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !max_rounds) {
				fprintf(stderr, "workload: -r wants a positive number of rounds\n");
				return 2;
			}
			break;
		case 'w': {
			char byte;

			while (read(0, &byte, 1) < 0 && errno == EINTR)
				;
			break;
		}
		default:
			fprintf(stderr, "usage: %s [-r ROUNDS] [-w] [milliseconds]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		ms = atof(argv[optind]);
	t0 = now_ms();

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = (i + 1) * 0.5 + j;
			b[i][j] = (j + 1) * 0.25 - i;
		}
	memset(buf, 0x5a, sizeof(buf));
	while (max_rounds ? rounds < max_rounds : now_ms() - t0 < ms) {
		matrix_multiply();
		acc += hash_buffer(buf, sizeof(buf));
		acc += sort_numbers(nums, sizeof(nums) / sizeof(nums[0]), rounds);
		rounds++;
	}
	printf("workload: %u rounds, checksum %llx, c[1][2]=%g, cpu %.3f ms\n", rounds,
	       (unsigned long long)acc, c[1][2], cpu_ms());
	return 0;
}
