/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The runner behind minicheck.h: see that header. */
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "minicheck.h"

struct mc_entry {
	const TTest *t;
	int start, end;
};

struct TCase {
	const char *name;
	struct mc_entry *tests;
	size_t n;
	void (*setup)(void), (*teardown)(void);
	TCase *next;
};

struct Suite {
	const char *name;
	TCase *first, *last;
	Suite *next;
};

struct SRunner {
	Suite *first, *last;
	int run, failed;
	int fork;
};

static void *mc_xalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		fputs("minicheck: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

Suite *suite_create(const char *name)
{
	Suite *s = mc_xalloc(sizeof(*s));

	s->name = name;
	return s;
}

TCase *tcase_create(const char *name)
{
	TCase *tc = mc_xalloc(sizeof(*tc));

	tc->name = name;
	return tc;
}

void suite_add_tcase(Suite *s, TCase *tc)
{
	if (s->last)
		s->last->next = tc;
	else
		s->first = tc;
	s->last = tc;
}

void mc_tcase_add(TCase *tc, const TTest *t, int start, int end)
{
	tc->tests = realloc(tc->tests, (tc->n + 1) * sizeof(*tc->tests));
	if (!tc->tests) {
		fputs("minicheck: out of memory\n", stderr);
		exit(2);
	}
	tc->tests[tc->n].t = t;
	tc->tests[tc->n].start = start;
	tc->tests[tc->n].end = end;
	tc->n++;
}

void tcase_set_timeout(TCase *tc, double timeout)
{
	(void)tc;
	(void)timeout;
}

void tcase_add_checked_fixture(TCase *tc, void (*setup)(void), void (*teardown)(void))
{
	tc->setup = setup;
	tc->teardown = teardown;
}

void tcase_add_unchecked_fixture(TCase *tc, void (*setup)(void), void (*teardown)(void))
{
	tcase_add_checked_fixture(tc, setup, teardown);
}

SRunner *srunner_create(Suite *s)
{
	SRunner *sr = mc_xalloc(sizeof(*sr));
	const char *env = getenv("CK_FORK");

	sr->fork = !(env && strcmp(env, "no") == 0);
	if (s)
		srunner_add_suite(sr, s);
	return sr;
}

void srunner_set_fork_status(SRunner *sr, int status)
{
	if (status == CK_NOFORK)
		sr->fork = 0;
	else if (status == CK_FORK)
		sr->fork = 1;
}

void srunner_add_suite(SRunner *sr, Suite *s)
{
	if (sr->last)
		sr->last->next = s;
	else
		sr->first = s;
	sr->last = s;
}

void mc_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	_exit(1);
}

static int mc_run_one(SRunner *sr, TCase *tc, const TTest *t, int i)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	if (!sr->fork) {
		if (tc->setup)
			tc->setup();
		t->fn(i);
		if (tc->teardown)
			tc->teardown();
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("minicheck: fork");
		return 1;
	}
	if (pid == 0) {
		if (tc->setup)
			tc->setup();
		t->fn(i);
		if (tc->teardown)
			tc->teardown();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s:%d: test %s died with signal %d\n", t->file, t->line, t->name,
			WTERMSIG(status));
		return 1;
	}
	return WEXITSTATUS(status) != 0;
}

void srunner_run_all(SRunner *sr, enum print_output mode)
{
	for (Suite *s = sr->first; s; s = s->next)
		for (TCase *tc = s->first; tc; tc = tc->next)
			for (size_t k = 0; k < tc->n; k++) {
				const struct mc_entry *e = &tc->tests[k];

				for (int i = e->start; i < e->end; i++) {
					int bad = mc_run_one(sr, tc, e->t, i);

					sr->run++;
					sr->failed += bad;
					if (bad || mode >= CK_VERBOSE)
						printf("%s:%s:%s:%d: %s\n", s->name, tc->name, e->t->name, i,
						       bad ? "FAILED" : "Passed");
				}
			}
	printf("%d%%: Checks: %d, Failures: %d, Errors: 0\n",
	       sr->run ? 100 * (sr->run - sr->failed) / sr->run : 100, sr->run, sr->failed);
}

int srunner_ntests_failed(SRunner *sr)
{
	return sr->failed;
}

void srunner_free(SRunner *sr)
{
	Suite *s = sr->first;

	while (s) {
		Suite *ns = s->next;
		TCase *tc = s->first;

		while (tc) {
			TCase *nt = tc->next;

			free(tc->tests);
			free(tc);
			tc = nt;
		}
		free(s);
		s = ns;
	}
	free(sr);
}
