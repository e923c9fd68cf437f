/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme: the command-line face of libprofileme. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#include "cli.h"

const char *cli_prog = "profileme";

struct cli_cmd {
	const char *name;
	const char *help;
	int (*fn)(int, char **);
};

#define X(n, h) { #n, h, cmd_##n },
static const struct cli_cmd cli_cmds[] = { PM_CLI_COMMANDS(X) };
#undef X

static void usage(FILE *f)
{
	fprintf(f, "usage: profileme <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		if (cli_cmds[i].fn)
			fprintf(f, "  %-10s %s\n", cli_cmds[i].name, cli_cmds[i].help);
	fprintf(f, "\n'profileme <command> --help' describes a command.  "
		   "'profileme --version' prints the version.\n");
}

/* the first write error on stdout (stdio forgets it once a flush failed) */
static int cli_out_errno;

void cli_out_note(void)
{
	if (!cli_out_errno)
		cli_out_errno = errno ? errno : EIO;
}

int cli_flush(void)
{
	errno = 0;
	if (fflush(stdout) == EOF) {
		cli_out_note();
		return -1;
	}
	return cli_out_failed() ? -1 : 0;
}

int cli_out_failed(void)
{
	return cli_out_errno || ferror(stdout);
}

/*
 * Every command ends here: what is still buffered is written and stdout is
 * closed, both checked, so that no write error goes unsaid ("write error:
 * No space left on device", non-zero exit).  A reader that went away
 * (EPIPE, when SIGPIPE was ignored by whoever started us) ends quietly, like
 * the SIGPIPE that normally ends us.
 */
static int cli_finish(const char *cmd, int rc)
{
	int err;

	cli_flush();
	err = cli_out_errno;
	if (!err && ferror(stdout))
		err = EIO;
	errno = 0;
	if (fclose(stdout) == EOF && !err)
		err = errno ? errno : EIO;
	if (!err)
		return rc;
	if (err != EPIPE) {
		if (cmd)
			fprintf(stderr, "%s %s: write error: %s\n", cli_prog, cmd, strerror(err));
		else
			fprintf(stderr, "%s: write error: %s\n", cli_prog, strerror(err));
	}
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	/* A closed pipe ends us quietly, even if our parent ignored SIGPIPE. */
	signal(SIGPIPE, SIG_DFL);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return cli_finish(NULL, argc < 2 ? 2 : 0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("profileme %s (library %s)\n", PM_VERSION_STRING, pm_version_string());
		return cli_finish(NULL, 0);
	}
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++) {
		if (strcmp(argv[1], cli_cmds[i].name))
			continue;
		if (!cli_cmds[i].fn) {
			fprintf(stderr, "profileme: '%s' is not built into this profileme\n", argv[1]);
			return 2;
		}
		return cli_finish(cli_cmds[i].name, cli_cmds[i].fn(argc - 1, argv + 1));
	}
	fprintf(stderr, "profileme: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}

int cli_input_opt(const char *cmd, int argc, char **argv, int *i, const char **input,
		  const char **symfs, const char **kallsyms)
{
	const struct {
		const char *s, *l; /* short and long spelling */
		const char **dst;
	} opts[] = {
		{ "-i", "--input", input },
		{ NULL, "--symfs", symfs },
		{ NULL, "--kallsyms", kallsyms },
	};
	const char *a = argv[*i];

	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		const char **dst = opts[k].dst;
		size_t n = strlen(opts[k].l);

		if (!strncmp(a, opts[k].l, n) && a[n] == '=') {
			*dst = a + n + 1;
			return 1;
		}
		if (strcmp(a, opts[k].l) && (!opts[k].s || strcmp(a, opts[k].s)))
			continue;
		if (*i + 1 >= argc) {
			cli_error(cmd, "%s wants a value", a);
			return -1;
		}
		*dst = argv[++*i];
		return 1;
	}
	return 0;
}

int cli_jobs_opt(const char *cmd, int argc, char **argv, int *i, int *jobs)
{
	const char *a = argv[*i], *v;
	char *end;
	long n;

	if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
		if (*i + 1 >= argc) {
			cli_error(cmd, "%s wants a value", a);
			return -1;
		}
		v = argv[++*i];
	} else if (!strncmp(a, "--jobs=", 7)) {
		v = a + 7;
	} else if (!strncmp(a, "-j", 2) && a[2] >= '0' && a[2] <= '9') {
		v = a + 2;
	} else {
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > 1024) {
		cli_error(cmd, "%s: '%s' is not a number of threads from 1 to 1024", a, v);
		return -1;
	}
	*jobs = (int)n;
	return 1;
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", cli_prog, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The library's escaper (pm_json_escape()), as every JSON of the CLI. */
void cli_json_strn(FILE *f, const char *s, size_t n)
{
	char tmp[512], *big = NULL;
	int k = pm_json_escape(s, n, tmp, sizeof(tmp));

	if (k >= (int)sizeof(tmp) && (big = malloc((size_t)k + 1)))
		k = pm_json_escape(s, n, big, (size_t)k + 1);
	if (k < 0 || (k >= (int)sizeof(tmp) && !big)) {
		/* no memory for a string this long: the output is incomplete */
		errno = ENOMEM;
		cli_out_note();
		fputs("null", f);
	} else {
		fwrite(big ? big : tmp, 1, (size_t)k, f);
	}
	free(big);
}

void cli_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	cli_json_strn(f, s, strlen(s));
}

void cli_json_hex(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%llx\"", (unsigned long long)v);
}
