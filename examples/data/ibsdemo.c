/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * ibsdemo: the SYNTHETIC program of examples/data/ibs-synthetic.data.
 *
 * No AMD machine ran it to make that recording: tests/gen/gen_ibs.py reads
 * the symbol table (and, with objdump, the instruction addresses) of the
 * binary built from this file (examples/data/symfs/usr/bin/ibsdemo, rebuilt
 * by build-ibsdemo.sh) and places the synthetic IBS samples on these
 * functions' instructions, so that `profileme report` and `profileme
 * annotate` have real names and real x86-64 instructions to show.
 * Freestanding: no libc, its own _start.
 */
typedef unsigned long u64;

struct node {
	struct node *next;
	long val;
	char pad[48]; /* one node per 64-byte line: a walk misses the cache */
};

#define N 4096
static long arr[N];
static struct node nodes[N];
static unsigned char keys[N];

/* Sequential loads: L1 hits, the prefetcher keeps up. */
__attribute__((noinline)) long stream_sum(const long *a, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* Pointer chasing: each load depends on the previous one and misses. */
__attribute__((noinline)) long pointer_chase(const struct node *p)
{
	long sum = 0;

	while (p) {
		sum += p->val;
		p = p->next;
	}
	return sum;
}

/* Data-dependent branches on random keys: mispredicts. */
__attribute__((noinline)) long branchy(const unsigned char *k, long n)
{
	long r = 0;

	for (long i = 0; i < n; i++) {
		if (k[i] & 1)
			r += k[i];
		else if (k[i] & 2)
			r -= 3;
		else
			r ^= i;
	}
	return r;
}

/* Stores: fills an array. */
__attribute__((noinline)) void store_fill(long *a, long n, long v)
{
	for (long i = 0; i < n; i++)
		a[i] = v + i;
}

int main(void)
{
	long r = 0;
	u64 x = 88172645463325252UL;

	for (long i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		keys[i] = (unsigned char)x;
		nodes[(i * 1031) % N].val = i;
		nodes[(i * 1031) % N].next = i + 1 < N ? &nodes[((i + 1) * 1031) % N] : 0;
	}
	for (int k = 0; k < 100; k++) {
		store_fill(arr, N, k);
		r += stream_sum(arr, N);
		r += pointer_chase(&nodes[0]);
		r += branchy(keys, N);
	}
	return (int)(r & 1);
}

/* Entry point: call main, exit(main()). */
__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call main\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n" /* __NR_exit */
	"	syscall\n"
	".size _start, .-_start\n");
