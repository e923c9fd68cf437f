/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme list: the PMUs of a sysfs tree with formats, events and caps. */
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

#include "cli.h"

static void list_usage(FILE *f)
{
	fprintf(f, "usage: profileme list [--sysfs DIR] [--json] [PMU...]\n"
		   "\n"
		   "Lists the PMUs under DIR/bus/event_source/devices (default: $PROFILEME_SYSFS,\n"
		   "else /sys): type, format fields, events (aliases), caps and CPUs.\n"
		   "Files that cannot be read are reported on stderr as warnings.\n"
		   "\n"
		   "  --sysfs DIR  the sysfs root to scan\n"
		   "  --json       one JSON object per PMU per line\n"
		   "  PMU...       only these PMUs (an 'uncore_' prefix may be left out)\n");
}

static const char *word_name(int w)
{
	static const char *const names[] = { "config", "config1", "config2", "config3" };

	return w >= 0 && w < 4 ? names[w] : "?";
}

static const char *esc(const char *s);

static void warn_diags(const pm_pmu *p)
{
	for (size_t i = 0; i < pm_pmu_diag_count(p); i++)
		fprintf(stderr, "%s list: warning: %s/%s: %s\n", cli_prog, esc(pm_pmu_name(p)),
			esc(pm_pmu_diag_file(p, i)), esc(pm_pmu_diag_message(p, i)));
}

/* s for a terminal: control characters (and backslash) as \xHH, so that
 * names from a hostile sysfs tree cannot move the cursor or change colours.
 * Four rotating buffers: up to four in one printf. */
static const char *esc(const char *s)
{
	static char bufs[4][1024];
	static unsigned k;
	char *b = bufs[k++ & 3];
	size_t n = 0;

	if (!s)
		return "";
	for (; *s && n + 5 < sizeof(bufs[0]); s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			n += (size_t)snprintf(b + n, sizeof(bufs[0]) - n, "\\x%02x", c);
		else
			b[n++] = (char)c;
	}
	b[n] = 0;
	return b;
}

static void print_text(const pm_pmu *p)
{
	uint32_t type;
	size_t n;

	printf("%s", esc(pm_pmu_name(p)));
	if (pm_pmu_type(p, &type) == 0)
		printf("  type %u", type);
	else
		printf("  type ?");
	if (pm_pmu_is_profileme(p))
		printf("  profileme");
	if (pm_pmu_is_uncore(p))
		printf("  uncore");
	printf("\n");
	if (pm_pmu_cpus(p))
		printf("  cpus: %s\n", esc(pm_pmu_cpus(p)));
	if (pm_pmu_mux_interval_ms(p) >= 0)
		printf("  perf_event_mux_interval_ms: %ld\n", pm_pmu_mux_interval_ms(p));
	if (pm_pmu_rdpmc(p) >= 0)
		printf("  rdpmc: %ld\n", pm_pmu_rdpmc(p));
	if ((n = pm_pmu_format_count(p))) {
		printf("  formats:\n");
		for (size_t i = 0; i < n; i++) {
			const pm_format *f = pm_pmu_format_get(p, i);

			printf("    %-20s %-24s %s mask 0x%016llx, %u bit%s\n", esc(pm_format_name(f)),
			       esc(pm_format_spec(f)), word_name(pm_format_word(f)),
			       (unsigned long long)pm_format_mask(f), pm_format_width(f),
			       pm_format_width(f) == 1 ? "" : "s");
		}
	}
	if ((n = pm_pmu_alias_count(p))) {
		printf("  events:\n");
		for (size_t i = 0; i < n; i++) {
			const pm_alias *a = pm_pmu_alias_get(p, i);

			printf("    %-28s %s", esc(pm_alias_name(a)), esc(pm_alias_text(a)));
			if (*pm_alias_unit(a))
				printf("  unit %s", esc(pm_alias_unit(a)));
			if (pm_alias_scale(a) != 1.0)
				printf("  scale %.17g", pm_alias_scale(a));
			if (pm_alias_per_pkg(a))
				printf("  per-pkg");
			if (pm_alias_snapshot(a))
				printf("  snapshot");
			printf("\n");
		}
	}
	if ((n = pm_pmu_cap_count(p))) {
		printf("  caps:\n");
		for (size_t i = 0; i < n; i++)
			printf("    %s = %s\n", esc(pm_pmu_cap_name(p, i)), esc(pm_pmu_cap_value(p, i)));
	}
}

static void print_json(const pm_pmu *p)
{
	uint32_t type;
	size_t n;

	printf("{\"name\":");
	cli_json_str(stdout, pm_pmu_name(p));
	if (pm_pmu_type(p, &type) == 0)
		printf(",\"type\":%u", type);
	else
		printf(",\"type\":null");
	printf(",\"profileme\":%s,\"uncore\":%s,\"cpus\":", pm_pmu_is_profileme(p) ? "true" : "false",
	       pm_pmu_is_uncore(p) ? "true" : "false");
	cli_json_str(stdout, pm_pmu_cpus(p));
	printf(",\"perf_event_mux_interval_ms\":%ld,\"rdpmc\":%ld,\"max_precise\":%d",
	       pm_pmu_mux_interval_ms(p), pm_pmu_rdpmc(p), pm_pmu_max_precise(p));
	printf(",\"formats\":[");
	n = pm_pmu_format_count(p);
	for (size_t i = 0; i < n; i++) {
		const pm_format *f = pm_pmu_format_get(p, i);

		printf("%s{\"name\":", i ? "," : "");
		cli_json_str(stdout, pm_format_name(f));
		printf(",\"spec\":");
		cli_json_str(stdout, pm_format_spec(f));
		printf(",\"word\":\"%s\",\"mask\":", word_name(pm_format_word(f)));
		cli_json_hex(stdout, pm_format_mask(f));
		printf(",\"width\":%u}", pm_format_width(f));
	}
	printf("],\"events\":[");
	n = pm_pmu_alias_count(p);
	for (size_t i = 0; i < n; i++) {
		const pm_alias *a = pm_pmu_alias_get(p, i);

		printf("%s{\"name\":", i ? "," : "");
		cli_json_str(stdout, pm_alias_name(a));
		printf(",\"text\":");
		cli_json_str(stdout, pm_alias_text(a));
		printf(",\"terms\":[");
		for (size_t t = 0; t < pm_alias_term_count(a); t++) {
			uint64_t v;

			printf("%s{\"name\":", t ? "," : "");
			cli_json_str(stdout, pm_alias_term_name(a, t));
			printf(",\"value\":");
			if (pm_alias_term_value(a, t, &v) == 1)
				printf("\"?\"");
			else
				cli_json_hex(stdout, v);
			printf("}");
		}
		printf("],\"unit\":");
		cli_json_str(stdout, pm_alias_unit(a));
		printf(",\"scale\":%.17g,\"per_pkg\":%s,\"snapshot\":%s}", pm_alias_scale(a),
		       pm_alias_per_pkg(a) ? "true" : "false", pm_alias_snapshot(a) ? "true" : "false");
	}
	printf("],\"caps\":{");
	n = pm_pmu_cap_count(p);
	for (size_t i = 0; i < n; i++) {
		printf("%s", i ? "," : "");
		cli_json_str(stdout, pm_pmu_cap_name(p, i));
		printf(":");
		cli_json_str(stdout, pm_pmu_cap_value(p, i));
	}
	printf("},\"diagnostics\":[");
	n = pm_pmu_diag_count(p);
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"file\":", i ? "," : "");
		cli_json_str(stdout, pm_pmu_diag_file(p, i));
		printf(",\"code\":%d,\"message\":", pm_pmu_diag_code(p, i));
		cli_json_str(stdout, pm_pmu_diag_message(p, i));
		printf("}");
	}
	printf("]}\n");
}

int cmd_list(int argc, char **argv)
{
	const char *root = NULL;
	pm_pmu_list *list;
	int json = 0, first_pmu = argc, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			list_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--sysfs")) {
			if (++i >= argc) {
				cli_error("list", "--sysfs needs a directory");
				return 2;
			}
			root = argv[i];
		} else if (!strncmp(argv[i], "--sysfs=", 8)) {
			root = argv[i] + 8;
		} else if (!strcmp(argv[i], "--")) {
			first_pmu = i + 1;
			break;
		} else if (argv[i][0] == '-') {
			cli_error("list", "unknown option '%s'", argv[i]);
			list_usage(stderr);
			return 2;
		} else {
			first_pmu = i;
			break;
		}
	}
	for (int i = first_pmu; i < argc; i++) {
		if (argv[i][0] == '-') {
			cli_error("list", "options must come before the PMU names ('%s')", argv[i]);
			return 2;
		}
	}
	err = pm_pmu_scan(&list, root);
	if (err) {
		cli_error("list", "%s", *pm_errmsg() ? pm_errmsg() : pm_strerror(err));
		return 1;
	}
	err = 0;
	if (first_pmu < argc) {
		for (int i = first_pmu; i < argc; i++) {
			const pm_pmu *p = pm_pmu_find(list, argv[i]);

			if (!p) {
				cli_error("list", "no PMU '%s' under %s", argv[i], pm_pmu_list_root(list));
				err = 1;
				continue;
			}
			warn_diags(p);
			json ? print_json(p) : print_text(p);
		}
	} else {
		for (size_t i = 0; i < pm_pmu_list_count(list); i++) {
			const pm_pmu *p = pm_pmu_list_get(list, i);

			warn_diags(p);
			json ? print_json(p) : print_text(p);
		}
	}
	pm_pmu_list_free(list);
	return err;
}
