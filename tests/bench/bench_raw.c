/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * bench_raw [MILLIONS]: decode ProfileMe (typed and generic row) and IBS op
 * payloads and print ns per payload.  A program, not a timed test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <profileme/profileme.h>

#define NPAY 1024

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void st64le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	long millions = argc > 1 ? atol(argv[1]) : 5;
	long n = millions * 1000000L;
	static uint8_t pay[NPAY][32 + 4], ibs[NPAY][4 + 64 + 4];
	uint64_t sink = 0, row[96];
	uint8_t present[96];
	const pm_raw_decoder *d = pm_raw_decoder_find("alpha_profileme");
	const pm_raw_decoder *op = pm_raw_decoder_find("ibs_op");
	uint64_t x = 88172645463325252ULL;
	double t;

	for (int i = 0; i < NPAY; i++) {
		uint8_t *p = pay[i] + 4; /* 4 past an 8-byte boundary, as in a record */
		p[0] = 1; p[1] = p[2] = p[3] = 0;
		for (int k = 0; k < 3; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			st64le(p + 4 + 8 * k, x);
		}
		memset(ibs[i], 0, 4);
		for (int k = 0; k < 8; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			st64le(ibs[i] + 4 + 8 * k, k == 0 ? (x | 3ULL << 17) : x);
		}
	}

	t = now();
	for (long i = 0; i < n; i++) {
		struct pm_profileme_sample s = { .sz = sizeof(s) };
		if (pm_profileme_decode(pay[i % NPAY] + 4, 28, &s) == 0)
			sink += s.trap + s.pctr0;
	}
	printf("pm_profileme_decode:        %6.1f ns/payload\n", (now() - t) * 1e9 / n);

	t = now();
	for (long i = 0; i < n; i++)
		if (pm_raw_decode_row(d, NULL, pay[i % NPAY] + 4, 28, row, present, 96) > 0)
			sink += row[5];
	printf("pm_raw_decode_row ProfileMe: %6.1f ns/payload\n", (now() - t) * 1e9 / n);

	t = now();
	for (long i = 0; i < n; i++)
		if (pm_raw_decode_row(op, NULL, ibs[i % NPAY], 68, row, present, 96) > 0)
			sink += row[3];
	printf("pm_raw_decode_row IBS op:    %6.1f ns/payload\n", (now() - t) * 1e9 / n);

	char buf[2048];
	long nj = n / 10 ? n / 10 : 1;
	t = now();
	for (long i = 0; i < nj; i++)
		sink += (uint64_t)pm_raw_format_json(d, NULL, pay[i % NPAY] + 4, 28, buf, sizeof(buf));
	printf("pm_raw_format_json ProfileMe: %6.1f ns/payload\n", (now() - t) * 1e9 / nj);

	printf("(%ld payloads each; checksum %llu)\n", n, (unsigned long long)sink);
	return 0;
}
