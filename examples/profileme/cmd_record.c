/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * profileme record: sample into a perf.data file, like perf record.
 * Also the engine of profileme sample (cmd_sample.c), which prints the
 * samples as they arrive instead of writing a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profileme/profileme.h>
#include <profileme/writer.h>

#include "cli.h"

extern char **environ;

/* Shared with cmd_sample.c. */
int pm_cli_record_main(int argc, char **argv, int sample_mode);

struct rec_opts {
	const char *cmd;       /* "record" or "sample" */
	const char **events;
	size_t nr_events;
	uint64_t period, freq;
	bool callgraph, system_wide, json, quiet;
	const char *cpus, *output;
	int pid;
	unsigned mmap_pages;
	char **argv;           /* the command, NULL-terminated */
	int argc;
};

static volatile sig_atomic_t rec_stop;

static void rec_on_signal(int sig)
{
	(void)sig;
	rec_stop = 1;
}

static void rec_usage(FILE *f, const char *cmd)
{
	fprintf(f,
		"usage: profileme %s [-e EVENT]... [-c PERIOD | -F FREQ] [-g] [-a] [-C CPUS]\n"
		"       %*s [-p PID] [-m PAGES]%s [-- CMD ARGS...]\n"
		"  -e EVENT   event string (perf syntax); default: the best sampling event here\n"
		"  -c PERIOD  sample every PERIOD events;  -F FREQ  sample FREQ times a second (default 4000)\n"
		"  -g         record call chains;  -a  all CPUs;  -C CPUS  only these CPUs (e.g. 0-3)\n"
		"  -p PID     attach to a running process;  -m PAGES  ring data pages (power of two)\n"
		"%s",
		cmd, (int)strlen(cmd), "",
		strcmp(cmd, "sample") ? " [-o FILE]" : " [--json]",
		strcmp(cmd, "sample") ? "  -o FILE    output (default perf.data; '-' = pipe mode on stdout)\n" :
					"  --json     one JSON object per sample (as profileme script --json)\n");
}

static int rec_parse_args(struct rec_opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			o->argv = argv + i + 1;
			o->argc = argc - i - 1;
			return 0;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			rec_usage(stdout, o->cmd);
			return 1;
		}
		if (!strcmp(a, "-g")) {
			o->callgraph = true;
			continue;
		}
		if (!strcmp(a, "-a")) {
			o->system_wide = true;
			continue;
		}
		if (!strcmp(a, "-q")) {
			o->quiet = true;
			continue;
		}
		if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		if (a[0] != '-') {
			/* The command starts here (no "--"). */
			o->argv = argv + i;
			o->argc = argc - i;
			return 0;
		}
		if (!v || !strchr("ecFCpom", a[1]) || a[2]) {
			cli_error(o->cmd, "unknown option or missing value: %s", a);
			rec_usage(stderr, o->cmd);
			return -1;
		}
		i++;
		switch (a[1]) {
		case 'e': {
			const char **n = realloc(o->events, (o->nr_events + 1) * sizeof(*n));

			if (!n)
				return -1;
			o->events = n;
			o->events[o->nr_events++] = v;
			break;
		}
		case 'c': {
			char *end;

			errno = 0;
			o->period = strtoull(v, &end, 0);
			if (errno == ERANGE || (*v == '-' && o->period)) {
				cli_error(o->cmd, "period '%s' is out of range (1 to %llu)", v,
					  (unsigned long long)UINT64_MAX);
				return -1;
			}
			if (!o->period || *end || end == v) {
				cli_error(o->cmd, "bad period '%s'", v);
				return -1;
			}
			break;
		}
		case 'F':
		{
			char *end = NULL;

			errno = 0;
			o->freq = strtoull(v, &end, 0);
			if (errno == ERANGE || *v == '-') {
				cli_error(o->cmd, "frequency '%s' is out of range", v);
				return -1;
			}
			if (!o->freq || *end || end == v) {
				cli_error(o->cmd, "bad frequency '%s'", v);
				return -1;
			}
			if (pm_event_check_freq(o->freq) < 0) {
				cli_error(o->cmd, "-F %s: %s", v, pm_errmsg());
				return -1;
			}
			break;
		}
		case 'C':
			o->cpus = v;
			break;
		case 'p':
			o->pid = atoi(v);
			if (o->pid <= 0) {
				cli_error(o->cmd, "bad pid '%s'", v);
				return -1;
			}
			break;
		case 'o':
			o->output = v;
			break;
		case 'm':
			o->mmap_pages = (unsigned)strtoul(v, NULL, 0);
			break;
		}
	}
	return 0;
}

/* The best sampling event this machine has. */
static const char *rec_default_event(const pm_pmu_list *pmus, char *buf, size_t cap,
				     const char **why)
{
	struct pm_attr a;
	int fd;

	for (size_t i = 0; pmus && i < pm_pmu_list_count(pmus); i++) {
		const pm_pmu *p = pm_pmu_list_get(pmus, i);
		pm_event_list *l = NULL;

		if (!pm_pmu_is_profileme(p))
			continue;
		/* What perf's default cycles:P becomes on this driver: hardware
		 * cycles with precise_ip select ProfileMe, event code 1
		 * (EV67_CYCLES: PCTR0 counts cycles, PCTR1 the retire delay).
		 * Codes the driver does not map (0, or above 4) are rejected by it. */
		snprintf(buf, cap, "%s/event=0x1,profileme/", pm_pmu_name(p));
		if (pm_event_parse(&l, pmus, buf, NULL) == 0) {
			pm_event_list_free(l);
			*why = "a precise (ProfileMe) PMU is present: perf's default cycles:P is ProfileMe "
			       "on cycles there";
			return buf;
		}
	}
	pm_attr_init(&a);
	a.type = PM_TYPE_HARDWARE;
	a.config = 0; /* cycles */
	a.sample_period = 1000000;
	a.flags = PM_ATTR_DISABLED | PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_HV;
	fd = pm_attr_open(&a, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		*why = "hardware counters are present";
		return "cycles";
	}
	*why = "no hardware counters here";
	return "task-clock";
}

static int rec_build(struct rec_opts *o, const pm_pmu_list *pmus, const char **events,
		     size_t nr_events, bool exclude_kernel, pm_evlist **out)
{
	struct pm_evlist_opts eo = { .sz = sizeof(eo) };
	pm_evlist *el = NULL;
	int rc;

	eo.flags = PM_EVLIST_INHERIT;
	if (o->system_wide)
		eo.flags = PM_EVLIST_SYSTEM_WIDE;
	eo.pid = o->pid;
	eo.cpus = o->cpus;
	eo.mmap_pages = o->mmap_pages;
	rc = pm_evlist_new(&el, &eo);
	if (rc) {
		cli_error(o->cmd, "%s", pm_errmsg());
		return rc;
	}
	for (size_t k = 0; k < nr_events; k++) {
		pm_event_list *l = NULL;
		struct pm_event_error err = { .sz = sizeof(err) };
		/* the library's sampling defaults: -c, else -F, else 4000 Hz
		 * for events whose string sets no period= / freq= */
		struct pm_event_opts eopt = { .sz = sizeof(eopt), .flags = PM_EVENT_OPT_SAMPLING,
					      .sample_period = o->period, .sample_freq = o->freq };
		int base = (int)pm_evlist_count(el);

		rc = pm_event_parse_opts(&l, pmus, events[k], &eopt, &err);
		if (rc) {
			cli_error(o->cmd, "event '%s': %s (at %zu)", events[k], err.message,
				  err.position);
			pm_evlist_free(el);
			return rc;
		}
		for (size_t i = 0; i < pm_event_list_count(l); i++) {
			const pm_event *ev = pm_event_list_get(l, i);
			size_t g = pm_event_group(ev);
			struct pm_attr a;

			pm_event_attr(ev, &a);
			if (o->callgraph)
				a.sample_type |= PM_SAMPLE_CALLCHAIN;
			/* tracepoints fire in the kernel: excluding it would drop them all */
			if (exclude_kernel && a.type != PM_TYPE_TRACEPOINT)
				a.flags |= PM_ATTR_EXCLUDE_KERNEL | PM_ATTR_EXCLUDE_HV;
			rc = pm_evlist_add(el, &a, pm_event_name(ev),
					   g == i ? -1 : base + (int)g);
			if (rc < 0) {
				cli_error(o->cmd, "%s", pm_errmsg());
				pm_event_list_free(l);
				pm_evlist_free(el);
				return rc;
			}
		}
		pm_event_list_free(l);
	}
	*out = el;
	return 0;
}

/* ------------------------------------------------------------ sample mode */

struct rec_printer {
	pm_evlist *el;
	bool json;
	bool warned;
	uint64_t samples;
};

static int rec_print_cb(const void *rec, size_t size, void *user)
{
	struct rec_printer *p = user;
	struct pm_sample s = { .sz = sizeof(s) };
	const char *name;
	uint32_t type;

	memcpy(&type, rec, sizeof(type)); /* ring records are in host order */
	if (type != PM_RECORD_SAMPLE)
		return 0;
	if (pm_evlist_sample(p->el, rec, size, &s)) {
		if (!p->warned)
			fprintf(stderr, "profileme sample: warning: a sample is skipped: %s\n",
				pm_errmsg());
		p->warned = true;
		return 0;
	}
	name = pm_evlist_name(p->el, (size_t)pm_evlist_event_of(p->el, rec, size));
	p->samples++;
	if (p->json) {
		printf("{\"event\":");
		cli_json_str(stdout, name);
		printf(",\"pid\":%u,\"tid\":%u,\"time\":%" PRIu64 ",\"cpu\":%u,\"period\":%" PRIu64
		       ",\"ip\":",
		       s.pid, s.tid, s.time, s.cpu, s.period);
		cli_json_hex(stdout, s.ip);
		if (s.present & PM_SAMPLE_ADDR) {
			printf(",\"addr\":");
			cli_json_hex(stdout, s.addr);
		}
		printf("}\n");
	} else {
		printf("%16s %6u/%-6u [%03u] %" PRIu64 ".%06" PRIu64 ": %10" PRIu64
		       " %-16s ip 0x%" PRIx64 "\n",
		       name, s.pid, s.tid, s.cpu, s.time / 1000000000,
		       (s.time / 1000) % 1000000, s.period, name, s.ip);
	}
	return 0;
}

/* ---------------------------------------------------------------- driver */

static double rec_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int pm_cli_record_main(int argc, char **argv, int sample_mode)
{
	struct rec_opts o;
	pm_pmu_list *pmus = NULL;
	pm_evlist *el = NULL;
	pm_writer *w = NULL;
	struct rec_printer pr;
	struct pm_ring_stats st = { .sz = sizeof(st) };
	const char *def_events[1];
	const char **events;
	size_t nr_events;
	char defbuf[128];
	pid_t spawned = -1;
	int out_fd = -1;
	int rc, ret = 1, status = 0;
	bool have_child = false, started = false;
	uint64_t written = 0;

	memset(&o, 0, sizeof(o));
	o.cmd = sample_mode ? "sample" : "record";
	o.output = "perf.data";
	rc = rec_parse_args(&o, argc, argv);
	if (rc) {
		free(o.events);
		return rc > 0 ? 0 : 2;
	}
	if (o.period && o.freq) {
		cli_error(o.cmd, "-c and -F exclude each other");
		free(o.events);
		return 2;
	}
	if (!o.argc && !o.pid && !o.system_wide) {
		cli_error(o.cmd, "nothing to profile: give a command, -p PID or -a");
		rec_usage(stderr, o.cmd);
		free(o.events);
		return 2;
	}
	if (o.pid && o.argc) {
		cli_error(o.cmd, "-p and a command exclude each other");
		free(o.events);
		return 2;
	}
	if (!sample_mode && !strcmp(o.output, "-")) {
		/* Pipe mode on stdout: keep stdout for the data and send the
		 * command's own output (and ours) to stderr. */
		out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (out_fd < 0 || dup2(2, 1) < 0) {
			cli_error(o.cmd, "stdout: %s", strerror(errno));
			free(o.events);
			return 1;
		}
	}
	if (pm_pmu_scan(&pmus, NULL))
		pmus = NULL;
	events = o.events;
	nr_events = o.nr_events;
	if (!nr_events) {
		const char *why = "";

		def_events[0] = rec_default_event(pmus, defbuf, sizeof(defbuf), &why);
		events = def_events;
		nr_events = 1;
		fprintf(stderr, "profileme %s: no -e given; sampling '%s' (%s)\n", o.cmd,
			def_events[0], why);
	}

	for (int attempt = 0; attempt < 2; attempt++) {
		rc = rec_build(&o, pmus, events, nr_events, attempt == 1, &el);
		if (rc)
			goto out;
		if (o.argc && !o.system_wide) {
			rc = pm_evlist_prepare_command(el, o.argv);
			if (rc < 0) {
				cli_error(o.cmd, "%s", pm_errmsg());
				goto out;
			}
			have_child = true;
		}
		rc = pm_evlist_open(el);
		if (rc == 0)
			break;
		if ((rc == -EACCES || rc == -EPERM) && attempt == 0) {
			fprintf(stderr, "profileme %s: %s\nprofileme %s: retrying with user-space "
					"only events (:u)\n",
				o.cmd, pm_errmsg(), o.cmd);
			pm_evlist_free(el);
			el = NULL;
			have_child = false;
			continue;
		}
		cli_error(o.cmd, "%s", pm_errmsg());
		goto out;
	}

	if (!sample_mode) {
		if (!strcmp(o.output, "-")) {
			/* Pipe mode on stdout: keep stdout for the data and send
			 * the command's own output (and ours) to stderr. */
			struct pm_writer_opts wo = { .sz = sizeof(wo), .flags = PM_WRITER_PIPE };

			rc = pm_writer_open_fd(&w, out_fd, &wo);
		} else {
			rc = pm_writer_open(&w, o.output, NULL);
		}
		if (!rc)
			rc = pm_writer_add_evlist(w, el);
		if (!rc)
			rc = pm_writer_set_cmdline(w, argc, argv);
		if (!rc)
			rc = pm_writer_begin(w);
		if (!rc && o.pid)
			rc = pm_writer_synthesize(w, o.pid) < 0 ? -1 : 0;
		if (rc) {
			cli_error(o.cmd, "%s: %s", o.output, pm_errmsg());
			goto out;
		}
	}
	memset(&pr, 0, sizeof(pr));
	pr.el = el;
	pr.json = o.json;

	signal(SIGINT, rec_on_signal);
	signal(SIGTERM, rec_on_signal);
	if (o.argc && o.system_wide) {
		rc = pm_evlist_start(el);
		if (!rc && posix_spawnp(&spawned, o.argv[0], NULL, NULL, o.argv, environ)) {
			cli_error(o.cmd, "cannot run %s", o.argv[0]);
			goto out;
		}
	} else {
		rc = pm_evlist_start(el);
	}
	if (rc) {
		cli_error(o.cmd, "%s", pm_errmsg());
		goto out;
	}
	started = true;

	for (;;) {
		int prc = pm_evlist_poll(el, 100);
		long n;
		bool done = false;

		if (rec_stop) {
			/* Like perf: an interrupted recording ends its workload. */
			if (have_child && pm_evlist_wait_child(el, &status, 0) == 0) {
				kill(pm_evlist_child_pid(el), SIGTERM);
				pm_evlist_wait_child(el, &status, 1);
			} else if (spawned > 0 && waitpid(spawned, &status, WNOHANG) == 0) {
				kill(spawned, SIGTERM);
				while (waitpid(spawned, &status, 0) < 0 && errno == EINTR)
					;
			}
			done = true;
		}
		if (have_child && pm_evlist_wait_child(el, &status, 0) == 1)
			done = true;
		if (spawned > 0 && waitpid(spawned, &status, WNOHANG) == spawned)
			done = true;
		if (prc == -EPIPE && o.pid)
			done = true;
		if (done)
			pm_evlist_disable(el);
		/* sample prints one stream in time order across the per-CPU
		 * rings (the last drain flushes what was held back); record
		 * writes ring by ring with FINISHED_ROUND marks, as perf record
		 * does, and readers order the file by rounds. */
		n = sample_mode ? pm_evlist_drain_ordered(el, rec_print_cb, &pr, 0,
							  done ? PM_DRAIN_FLUSH : 0, NULL) :
				  pm_evlist_drain(el, pm_writer_ring_cb, w);
		if (n < 0) {
			cli_error(o.cmd, "%s", pm_errmsg());
			goto out;
		}
		if (sample_mode) {
			if (cli_flush() || cli_out_failed())
				goto out; /* main() says "write error: ..." */
		} else if (n > 0)
			pm_writer_finished_round(w);
		if (done)
			break;
	}

	pm_evlist_stats(el, &st);
	if (w) {
		rc = pm_writer_finish(w);
		if (rc) {
			cli_error(o.cmd, "%s: %s", o.output, pm_errmsg());
			goto out;
		}
		pm_writer_counts(w, NULL, &written, NULL);
	} else {
		written = pr.samples;
	}
	if (!o.quiet)
		fprintf(stderr,
			"profileme %s: %" PRIu64 " samples %s%s%s, %" PRIu64 " lost "
			"(%" PRIu64 " LOST records, %" PRIu64 " LOST_SAMPLES), throttled %" PRIu64
			" times; recorder CPU %.3f s\n",
			o.cmd, written, sample_mode ? "printed" : "written to ",
			sample_mode ? "" : o.output, "", st.lost + st.lost_samples, st.lost_records,
			st.lost_samples, st.throttles, rec_cpu_seconds());
	ret = 0;
	if ((have_child || spawned > 0) && WIFEXITED(status) && WEXITSTATUS(status))
		ret = WEXITSTATUS(status) == 127 ? 127 : 0;
out:
	pm_writer_close(w);
	if (ret && !started && !sample_mode && strcmp(o.output, "-") && w) {
		/* Nothing was recorded: leave no file behind (the writer made a
		 * well-formed but empty one). */
		unlink(o.output);
	}
	if (out_fd >= 0)
		close(out_fd);
	pm_evlist_free(el);
	pm_pmu_list_free(pmus);
	free(o.events);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	return pm_cli_record_main(argc, argv, 0);
}
