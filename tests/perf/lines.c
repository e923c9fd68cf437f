/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* pm_lines FILE: for each hexadecimal file address on stdin, the line
 * pm_sym_dso_line() gives, "FILE:LINE" as addr2line prints it ("??:0" for
 * none); the symbolizer's diagnostics on stderr.  test_lines.py compares it
 * with addr2line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <profileme/symbol.h>

int main(int argc, char **argv)
{
	pm_sym *s;
	char buf[64];
	int rc, n;

	if (argc != 2) {
		fprintf(stderr, "usage: pm_lines FILE < addresses\n");
		return 2;
	}
	rc = pm_sym_new(&s, NULL);
	if (rc) {
		fprintf(stderr, "pm_lines: %s\n", pm_strerror(rc));
		return rc == -PM_ERR_UNSUPPORTED ? 77 : 1;
	}
	while (fgets(buf, sizeof(buf), stdin)) {
		struct pm_sym_line l = { .sz = sizeof(l) };
		uint64_t a = strtoull(buf, NULL, 16);

		rc = pm_sym_dso_line(s, argv[1], a, &l);
		if (rc < 0) {
			fprintf(stderr, "pm_lines: %s\n", pm_strerror(rc));
			return 1;
		}
		printf("%s:%" PRIu32 "\n", l.file ? l.file : "??", l.line);
	}
	n = pm_sym_diag_count(s);
	for (int i = 0; i < n; i++) {
		struct pm_sym_diag d = { .sz = sizeof(d) };

		if (pm_sym_diag_get(s, (size_t)i, &d) == 0)
			fprintf(stderr, "diag %d %s: %s\n", d.code, d.file, d.message);
	}
	pm_sym_free(s);
	return 0;
}
