/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Test shared library for check_symbol (dlopen'ed by the test). */
volatile int pm_symlib_sink;

int pm_symlib_one(int x);
int pm_symlib_two(int x);

__attribute__((noinline)) int pm_symlib_one(int x)
{
	for (int i = 0; i < x; i++)
		pm_symlib_sink += i;
	return pm_symlib_sink;
}

__attribute__((noinline)) int pm_symlib_two(int x)
{
	return pm_symlib_one(x) * 2 + pm_symlib_sink;
}
