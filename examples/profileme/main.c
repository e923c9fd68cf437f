/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme: the command-line face of libprofileme. */
#include <stdarg.h>
#include <stdio.h>
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

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("profileme %s (library %s)\n", PM_VERSION_STRING, pm_version_string());
		return 0;
	}
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++) {
		if (strcmp(argv[1], cli_cmds[i].name))
			continue;
		if (!cli_cmds[i].fn) {
			fprintf(stderr, "profileme: '%s' is not built into this profileme\n", argv[1]);
			return 2;
		}
		return cli_cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "profileme: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
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

void cli_json_strn(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
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
