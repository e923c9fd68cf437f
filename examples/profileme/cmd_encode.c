/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme encode [--sysfs DIR] [--json] EVENT...: event strings -> perf_event_attr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#include "cli.h"

static void encode_usage(FILE *f)
{
	fprintf(f,
		"usage: profileme encode [--sysfs DIR] [--json] EVENT...\n"
		"\n"
		"Parses each perf-style EVENT string and prints the perf_event_attr it\n"
		"encodes to, one line per event (a group or list gives one line per member).\n"
		"\n"
		"  --sysfs DIR  read PMUs from DIR/bus/event_source/devices (default:\n"
		"               $PROFILEME_SYSFS, else /sys)\n"
		"  --json       one JSON object per line\n"
		"\n"
		"Exit status: 0 if every event encoded, 1 if any failed, 2 on usage errors.\n");
}

static void json_event(const pm_event *ev)
{
	struct pm_attr a;
	unsigned fl = pm_event_flags(ev);

	pm_event_attr(ev, &a);
	printf("{\"event\": ");
	cli_json_str(stdout, pm_event_string(ev));
	printf(", \"type\": %u, \"config\": ", a.type);
	cli_json_hex(stdout, a.config);
	printf(", \"config1\": ");
	cli_json_hex(stdout, a.config1);
	printf(", \"config2\": ");
	cli_json_hex(stdout, a.config2);
	printf(", \"config3\": ");
	cli_json_hex(stdout, a.config3);
	printf(", \"precise_ip\": %u", PM_ATTR_PRECISE_IP(&a));
	printf(", \"exclude_user\": %d", !!(a.flags & PM_ATTR_EXCLUDE_USER));
	printf(", \"exclude_kernel\": %d", !!(a.flags & PM_ATTR_EXCLUDE_KERNEL));
	printf(", \"exclude_hv\": %d", !!(a.flags & PM_ATTR_EXCLUDE_HV));
	printf(", \"exclude_host\": %d", !!(a.flags & PM_ATTR_EXCLUDE_HOST));
	printf(", \"exclude_guest\": %d", !!(a.flags & PM_ATTR_EXCLUDE_GUEST));
	printf(", \"exclude_idle\": %d", !!(a.flags & PM_ATTR_EXCLUDE_IDLE));
	printf(", \"freq\": %d", !!(a.flags & PM_ATTR_FREQ));
	/* only when set: the older keys stay as they were */
	if (a.flags & PM_ATTR_PINNED)
		printf(", \"pinned\": 1");
	if (a.flags & PM_ATTR_EXCLUSIVE)
		printf(", \"exclusive\": 1");
	if (fl & PM_EVENT_GROUP_LEADER)
		printf(", \"group_leader\": true");
	printf(", \"group\": %zu", pm_event_group(ev));
#define OPT_U(cond, key, val)                                                          \
	do {                                                                           \
		if (cond)                                                              \
			printf(", \"" key "\": %llu", (unsigned long long)(val));      \
	} while (0)
	OPT_U(a.flags & PM_ATTR_INHERIT, "inherit", 1);
	OPT_U(a.flags & PM_ATTR_WRITE_BACKWARD, "write_backward", 1);
	OPT_U(a.flags & PM_ATTR_AUX_OUTPUT, "aux_output", 1);
	OPT_U(a.flags & PM_ATTR_EXCLUDE_CALLCHAIN_USER, "exclude_callchain_user", 1);
	OPT_U(a.sample_max_stack, "sample_max_stack", a.sample_max_stack);
	OPT_U(a.sample_stack_user, "sample_stack_user", a.sample_stack_user);
	OPT_U(a.sample_regs_user, "sample_regs_user", a.sample_regs_user);
	OPT_U(a.aux_sample_size, "aux_sample_size", a.aux_sample_size);
	OPT_U(a.branch_sample_type, "branch_sample_type", a.branch_sample_type);
#undef OPT_U
	if (pm_event_term_count(ev)) {
		printf(", \"terms\": [");
		for (size_t i = 0; i < pm_event_term_count(ev); i++) {
			struct pm_event_term t = { sizeof(t), 0, NULL, NULL, 0 };

			if (pm_event_term_get(ev, i, &t) < 0)
				continue;
			printf("%s{\"name\": ", i ? ", " : "");
			cli_json_str(stdout, t.name);
			printf(", \"value\": ");
			if (t.value)
				cli_json_str(stdout, t.value);
			else
				printf("%llu", (unsigned long long)t.num);
			printf("}");
		}
		printf("]");
	}
	printf(", \"sample_type\": ");
	cli_json_hex(stdout, a.sample_type);
	printf(", \"bp_type\": %u", a.bp_type);
	if ((fl & (PM_EVENT_PERIOD_SET | PM_EVENT_DEFAULT_PERIOD)) && !(a.flags & PM_ATTR_FREQ))
		printf(", \"sample_period\": %llu", (unsigned long long)a.sample_period);
	if ((fl & PM_EVENT_FREQ_SET) && (a.flags & PM_ATTR_FREQ))
		printf(", \"sample_freq\": %llu", (unsigned long long)a.sample_period);
	printf(", \"profileme\": %s}\n", (fl & PM_EVENT_PROFILEME) ? "true" : "false");
}

static void text_event(const pm_event *ev)
{
	struct pm_attr a;
	unsigned fl = pm_event_flags(ev);
	const pm_pmu *pmu = pm_event_pmu(ev);
	char mods[64];
	size_t n = 0;

	pm_event_attr(ev, &a);
	printf("%s: type %u", pm_event_string(ev), a.type);
	if (pmu)
		printf(" (%s)", pm_pmu_name(pmu));
	printf(" config 0x%llx", (unsigned long long)a.config);
	if (a.config1)
		printf(" config1 0x%llx", (unsigned long long)a.config1);
	if (a.config2)
		printf(" config2 0x%llx", (unsigned long long)a.config2);
	if (a.config3)
		printf(" config3 0x%llx", (unsigned long long)a.config3);
	if (a.bp_type)
		printf(" bp_type %u", a.bp_type);
	if (a.sample_type)
		printf(" sample_type 0x%llx", (unsigned long long)a.sample_type);
	if (fl & (PM_EVENT_PERIOD_SET | PM_EVENT_FREQ_SET | PM_EVENT_DEFAULT_PERIOD))
		printf(" %s %llu", (a.flags & PM_ATTR_FREQ) ? "freq" : "period",
		       (unsigned long long)a.sample_period);
	mods[0] = 0;
#define MOD(bit, text)                                                                 \
	do {                                                                           \
		if (a.flags & (bit))                                                   \
			n += (size_t)snprintf(mods + n, sizeof(mods) - n, "%s%s", n ? "," : "", text); \
	} while (0)
	MOD(PM_ATTR_EXCLUDE_USER, "exclude_user");
	MOD(PM_ATTR_EXCLUDE_KERNEL, "exclude_kernel");
	MOD(PM_ATTR_EXCLUDE_HV, "exclude_hv");
	MOD(PM_ATTR_EXCLUDE_HOST, "exclude_host");
	MOD(PM_ATTR_EXCLUDE_GUEST, "exclude_guest");
	MOD(PM_ATTR_EXCLUDE_IDLE, "exclude_idle");
#undef MOD
	printf(" modifiers [%s", mods);
	if (PM_ATTR_PRECISE_IP(&a))
		printf("%sprecise_ip=%u", mods[0] ? "," : "", PM_ATTR_PRECISE_IP(&a));
	printf("]");
	if (a.flags & PM_ATTR_PINNED)
		printf(" pinned");
	if (a.flags & PM_ATTR_EXCLUSIVE)
		printf(" exclusive");
	if (fl & PM_EVENT_SAMPLE_READ)
		printf(" sample_read");
	if (fl & PM_EVENT_PRECISE_MAX)
		printf(" precise_max");
	printf(" ProfileMe %s\n", (fl & PM_EVENT_PROFILEME) ? "yes" : "no");
}

int cmd_encode(int argc, char **argv)
{
	const char *sysfs = NULL;
	pm_pmu_list *pmus = NULL;
	int json = 0, failed = 0, i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--sysfs")) {
			if (++i >= argc) {
				cli_error("encode", "--sysfs needs a directory");
				return 2;
			}
			sysfs = argv[i];
		} else if (!strncmp(argv[i], "--sysfs=", 8)) {
			sysfs = argv[i] + 8;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			encode_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			cli_error("encode", "unknown option '%s'", argv[i]);
			encode_usage(stderr);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		encode_usage(stderr);
		return 2;
	}
	rc = pm_pmu_scan(&pmus, sysfs);
	if (rc < 0) {
		/* Generic and raw events still work without PMUs. */
		cli_error("encode", "cannot read PMUs under %s: %s",
			  sysfs ? sysfs : "the default sysfs", pm_error_string(rc));
		pmus = NULL;
		if (sysfs)
			return 2;
	}
	for (; i < argc; i++) {
		struct pm_event_error err;
		pm_event_list *list = NULL;

		memset(&err, 0, sizeof(err));
		err.sz = sizeof(err);
		rc = pm_event_parse(&list, pmus, argv[i], &err);
		if (rc < 0) {
			failed = 1;
			if (json) {
				printf("{\"event\": ");
				cli_json_str(stdout, argv[i]);
				printf(", \"error\": ");
				cli_json_str(stdout, err.message);
				printf(", \"position\": %zu}\n", err.position);
			} else {
				printf("%s: error at byte %zu: %s\n", argv[i], err.position,
				       err.message);
			}
			continue;
		}
		for (size_t k = 0; k < pm_event_list_count(list); k++) {
			if (json)
				json_event(pm_event_list_get(list, k));
			else
				text_event(pm_event_list_get(list, k));
		}
		pm_event_list_free(list);
	}
	pm_pmu_list_free(pmus);
	cli_flush();
	return failed;
}
