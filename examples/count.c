/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * count: count task-clock and page-faults of a command, like `perf stat`.
 *
 *   count CMD [ARGS...]
 *
 * One workflow: parse the event string, add the events to a pm_evlist that
 * follows the command (its own process, not its children), run it, and read each event's
 * count with its read_format times (enabled/running) to print the value
 * scaled for multiplexing.  Exit status: 0, 1 on an error, 2 on a usage
 * error, 77 when perf_event_open is not available here (e.g. qemu-user).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

int main(int argc, char **argv)
{
	/* No PM_EVLIST_INHERIT: the command's own process, one fd per event
	 * (cpu -1), so enabled/running are that event's own times.  With
	 * inherit the list opens one fd per CPU and the summed times would
	 * count the time the command ran on the other CPUs as "not running". */
	struct pm_evlist_opts eo = { .sz = sizeof(eo) };
	struct pm_event_error perr = { .sz = sizeof(perr) };
	pm_event_list *events = NULL;
	pm_evlist *el = NULL;
	int status = 0, rc, ret = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CMD [ARGS...]\n", argv[0]);
		return 2;
	}
	rc = pm_event_parse(&events, NULL, "task-clock,page-faults", &perr);
	if (rc) {
		fprintf(stderr, "count: %s\n", perr.message);
		goto out;
	}
	rc = pm_evlist_new(&el, &eo);
	if (rc)
		goto fail;
	for (size_t i = 0; i < pm_event_list_count(events); i++) {
		const pm_event *ev = pm_event_list_get(events, i);
		struct pm_attr a;

		pm_event_attr(ev, &a);
		a.sample_period = 0; /* counting, not sampling */
		rc = pm_evlist_add(el, &a, pm_event_name(ev), -1);
		if (rc < 0)
			goto fail;
	}
	rc = pm_evlist_prepare_command(el, argv + 1);
	if (rc < 0)
		goto fail;
	rc = pm_evlist_open(el);
	if (rc == -ENOSYS) {
		printf("count: skipped: %s\n", pm_errmsg());
		ret = 77;
		goto out;
	}
	if (rc)
		goto fail;
	rc = pm_evlist_start(el);
	if (rc)
		goto fail;
	rc = pm_evlist_wait_child(el, &status, 1);
	if (rc < 0)
		goto fail;

	for (size_t i = 0; i < pm_evlist_count(el); i++) {
		struct pm_count c = { .sz = sizeof(c) };

		rc = pm_evlist_read_count(el, i, &c);
		if (rc)
			goto fail;
		printf("%-12s %16llu  scaled %16.0f  enabled %llu ns  running %llu ns%s\n",
		       pm_evlist_name(el, i), (unsigned long long)c.value, c.scaled,
		       (unsigned long long)c.enabled, (unsigned long long)c.running,
		       c.multiplexed > 0 ? "  (multiplexed)" : c.multiplexed < 0 ? "  (never ran)" : "");
	}
	ret = status == 0 ? 0 : 1;
	if (status)
		fprintf(stderr, "count: the command ended with wait status 0x%x\n", status);
	goto out;
fail:
	fprintf(stderr, "count: %s\n", pm_error_string(rc));
out:
	pm_evlist_free(el);
	pm_event_list_free(events);
	return ret;
}
