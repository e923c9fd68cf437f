/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme convert: a perf.data file in the formats other tools read
 * (pprof, folded stacks), through pm_export_pprof() / pm_export_folded(). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profileme/profileme.h>

#include "cli.h"
#include "progress.h"
#include "report_core.h"

static void conv_usage(FILE *f)
{
	fprintf(f,
		"usage: profileme convert --to pprof|folded [-i FILE] -o OUT [--event N]\n"
		"                         [--symfs DIR] [--kallsyms FILE] [--no-symbols] [-q]\n"
		"\n"
		"  --to pprof       gzipped profile.proto for go tool pprof, Pyroscope, ...\n"
		"  --to folded      collapsed stacks (comm;root;...;leaf count) for flame graphs\n"
		"  -i, --input FILE the perf.data file (default perf.data)\n"
		"  -o, --output OUT the output file ('-' for stdout with folded)\n"
		"  --event N        only the samples of event N (attr index)\n"
		"  --symfs DIR      look for the mapped files under DIR\n"
		"  --kallsyms FILE  kernel symbols from FILE\n"
		"  --no-symbols     pprof: mappings and addresses only (pprof symbolizes)\n"
		"  -q, --quiet      no progress line, no notes\n"
		"\n"
		"See docs/export.md for the value types and labels of a pprof profile.\n");
}

int cmd_convert(int argc, char **argv)
{
	struct rep_opts ro = { .cmd = "convert", .input = "perf.data" };
	struct pm_export_opts eo = { .sz = sizeof(eo), .event = -1 };
	struct cli_progress prog;
	struct rep_ctx *rc = NULL;
	const char *to = NULL, *out = NULL;
	int err, ret = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		int in = cli_input_opt("convert", argc, argv, &i, &ro.input, &ro.symfs, &ro.kallsyms);

		if (in < 0) {
			conv_usage(stderr);
			return 2;
		} else if (in) {
			continue;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			conv_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--to") && v) {
			to = v, i++;
		} else if (!strncmp(a, "--to=", 5)) {
			to = a + 5;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v) {
			out = v, i++;
		} else if (!strcmp(a, "--event") && v) {
			char *end;
			long n = strtol(v, &end, 10);

			if (*end || n < 0 || n > 0xffff) {
				cli_error("convert", "--event wants an attr index, not '%s'", v);
				return 2;
			}
			eo.event = (int)n, i++;
		} else if (!strcmp(a, "--no-symbols")) {
			eo.flags |= PM_EXPORT_NO_SYMBOLS;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			ro.quiet = true;
		} else {
			cli_error("convert", "unknown option or missing value: '%s'", a);
			conv_usage(stderr);
			return 2;
		}
	}
	if (!to || (strcmp(to, "pprof") && strcmp(to, "folded"))) {
		cli_error("convert", "--to pprof or --to folded is required");
		conv_usage(stderr);
		return 2;
	}
	if (!out) {
		cli_error("convert", "-o OUT is required");
		conv_usage(stderr);
		return 2;
	}
	/* The report engine applies the symbol policy (symfs of a synthetic
	 * recording, this kernel's kallsyms only for its own recordings) and
	 * hands its fresh symbolizer to the exporter, so that convert charges
	 * samples to the symbols report shows. */
	if (rep_open(&rc, &ro))
		return 1;
	if (!(eo.flags & PM_EXPORT_NO_SYMBOLS))
		eo.sym = rep_symbolizer(rc);
	if (!eo.sym)
		eo.flags |= PM_EXPORT_NO_SYMBOLS;
	if (eo.event >= 0 && (size_t)eo.event >= pm_file_nr_attrs(rep_file(rc))) {
		cli_error("convert", "--event %d: the file has %zu events", eo.event,
			  pm_file_nr_attrs(rep_file(rc)));
		rep_close(rc);
		return 2;
	}
	cli_progress_init(&prog, "convert", ro.quiet);
	eo.progress = cli_progress_cb;
	eo.progress_user = &prog;
	if (!strcmp(to, "pprof")) {
		err = pm_export_pprof(rep_file(rc), &eo, out);
	} else {
		int fd = strcmp(out, "-") ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : 1;

		if (fd < 0) {
			cli_progress_done(&prog);
			cli_error("convert", "%s: %s", out, strerror(errno));
			rep_close(rc);
			return 1;
		}
		err = pm_export_folded(rep_file(rc), &eo, fd);
		if (fd != 1 && close(fd) && !err)
			err = -errno;
	}
	cli_progress_done(&prog);
	if (err) {
		cli_error("convert", "%s: %s", ro.input, pm_error_string(err));
		ret = 1;
	} else if (!ro.quiet && rep_is_synthetic(rc)) {
		fprintf(stderr, "profileme convert: %s is a SYNTHETIC recording (%s)\n", ro.input,
			!strcmp(to, "pprof") ? "the profile says so in a comment"
					     : "folded stacks have no place to say so");
	}
	rep_close(rc);
	return ret;
}
