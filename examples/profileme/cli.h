/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Shared helpers of the profileme command (not part of the library). */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Subcommands: each lives in cmd_<name>.c.  Declared weak so that a build
 * without one still links and says so. */
#define PM_CLI_COMMANDS(X)                                                            \
	X(list, "list PMUs with their formats, events and caps")                     \
	X(encode, "encode event strings into perf_event_attr")                       \
	X(script, "print the samples of a perf.data file")                           \
	X(record, "record a profile into a perf.data file")                          \
	X(sample, "sample a command and print samples as they arrive")               \
	X(report, "summarise a perf.data file by symbol, module, pc, ...")           \
	X(annotate, "per-address sample counts of one symbol")                      \
	X(convert, "write a perf.data file as pprof or folded stacks")

#define X(name, help) int cmd_##name(int argc, char **argv) __attribute__((weak));
PM_CLI_COMMANDS(X)
#undef X

/* Print a JSON string literal (with quotes) for s. */
void cli_json_str(FILE *f, const char *s);
/* Print a JSON string literal for n bytes at s (need not be NUL-terminated). */
void cli_json_strn(FILE *f, const char *s, size_t n);
/* Print "0x..." with quotes, the JSON form of addresses and registers. */
void cli_json_hex(FILE *f, uint64_t v);

/* Non-zero once a write to stdout failed: long loops stop early; main()
 * says "write error: ..." and exits non-zero when the command returns. */
int cli_out_failed(void);
/* fflush(stdout), remembering why it failed: 0 or -1. */
int cli_flush(void);
/* Remember errno as the reason a write to stdout failed. */
void cli_out_note(void);

/* The options every reading command shares (-i/--input, --symfs,
 * --kallsyms), each as "OPT VALUE" or "--OPT=VALUE", parsed in one place so
 * that every command takes the same spellings.  argv[*i] is the option; on 1
 * its value is stored in *input, *symfs or *kallsyms and *i is at the last
 * argument consumed.  Returns 1 (taken), 0 (not one of these; nothing
 * changed) or -1 (the value is missing: said on stderr for @p cmd). */
int cli_input_opt(const char *cmd, int argc, char **argv, int *i, const char **input,
		  const char **symfs, const char **kallsyms);

/* -j N / --jobs N (also "-jN", "--jobs=N"): the worker threads of a
 * reading command (jobs.h), parsed here so that every command takes the same
 * spellings.  As cli_input_opt(): 1 (taken, *jobs set), 0 (not this option),
 * -1 (the value is missing or not a number from 1 to 1024: said on stderr). */
int cli_jobs_opt(const char *cmd, int argc, char **argv, int *i, int *jobs);

/* The program name for messages. */
extern const char *cli_prog;
/* Print "profileme <cmd>: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* PM_CLI_H */
