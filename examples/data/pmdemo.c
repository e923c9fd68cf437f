/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * pmdemo: the SYNTHETIC program of examples/data/profileme-synthetic.data.
 *
 * No Alpha ran it to make that recording: tests/gen/gen_profileme.py reads
 * the symbol table of the binary built from this file
 * (examples/data/symfs/usr/bin/pmdemo, rebuilt by build-pmdemo.sh) and
 * places the synthetic ProfileMe samples inside these functions, so that
 * `profileme report` and `profileme annotate` have real names and real
 * Alpha instructions to show.  Freestanding: no libc, its own _start.
 */
typedef unsigned long u64;

struct node {
	struct node *next;
	long val;
	char pad[112]; /* one node per 128-byte line: a walk misses the cache */
};

#define N 256
static double xs[N], ys[N];
static struct node nodes[N];
static unsigned char buf[N + 16];
static const char text[] = "key=12, other = -7; list=[1,2,3] # comment\n x=0x1f;";

/* y += a * x: the floating-point loop. */
__attribute__((noinline)) void daxpy(long n, double a, const double *x, double *y)
{
	for (long i = 0; i < n; i++)
		y[i] += a * x[i];
}

/* Pointer chasing: each load depends on the previous one. */
__attribute__((noinline)) long list_walk(const struct node *p)
{
	long sum = 0;

	while (p) {
		sum += p->val;
		p = p->next;
	}
	return sum;
}

/* Quadword loads and stores at misaligned addresses: unaligned traps. */
__attribute__((noinline)) u64 copy_unaligned(unsigned char *dst, const unsigned char *src, long n)
{
	u64 acc = 0;

	for (long i = 0; i + 8 <= n; i += 8) {
		u64 v = *(const volatile u64 *)(const void *)(src + i);

		*(volatile u64 *)(void *)(dst + i) = v;
		acc ^= v;
	}
	return acc;
}

/* A small tokenizer: data-dependent branches that mispredict. */
__attribute__((noinline)) long parse_branchy(const char *s)
{
	long tokens = 0, num = 0, neg = 0;
	int in_num = 0;

	for (; *s; s++) {
		char c = *s;

		if (c >= '0' && c <= '9') {
			num = num * 10 + (c - '0');
			in_num = 1;
		} else if (c == '-') {
			neg = !neg;
		} else if (c == '#') {
			while (*s && *s != '\n')
				s++;
			if (!*s)
				break;
		} else if (c == '=' || c == ',' || c == ';' || c == '[' || c == ']') {
			tokens++;
		} else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
			if (in_num && (c == 'x'))
				num = 0;
			tokens += !in_num;
		}
		if (in_num && (c < '0' || c > '9') && c != 'x') {
			tokens += neg ? -num : num;
			in_num = 0;
			neg = 0;
			num = 0;
		}
	}
	return tokens;
}

int main(void)
{
	long r = 0;

	for (long i = 0; i < N; i++) {
		xs[i] = (double)i;
		ys[i] = 1.0;
		nodes[(i * 97) % N].val = i;
		nodes[(i * 97) % N].next = i + 1 < N ? &nodes[((i + 1) * 97) % N] : 0;
	}
	for (int k = 0; k < 100; k++) {
		daxpy(N, 0.5, xs, ys);
		r += list_walk(&nodes[0]);
		r += (long)copy_unaligned(buf + 1, buf + 3, N);
		r += parse_branchy(text);
	}
	return (int)(r & 1);
}

/* Entry point: set up $gp, call main, exit(main()). */
__asm__(".text\n"
	".globl _start\n"
	".ent _start\n"
	"_start:\n"
	"	br $29, 1f\n"
	"1:	ldgp $29, 0($29)\n"
	".prologue 1\n"
	"	lda $27, main\n"
	"	jsr $26, ($27), main\n"
	"	ldgp $29, 0($26)\n"
	"	mov $0, $16\n"
	"	lda $0, 1($31)\n" /* __NR_exit */
	"	callsys\n"
	".end _start\n");
