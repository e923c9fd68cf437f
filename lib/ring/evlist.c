/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Opening events: perf_event_open wrappers with explained errors, event
 * lists on a pid / a command / all CPUs, one ring per CPU column with the
 * column's other events redirected into it, poll, counts.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal/pm_internal.h"
#include "ring/ring_int.h"

#include <profileme/pmu.h>
#include <profileme/record.h>
#include <profileme/ring.h>

/* Ioctls and open flags of perf_event_open (values from the uapi header). */
#define PM_IOC_ENABLE _IO('$', 0)
#define PM_IOC_DISABLE _IO('$', 1)
#define PM_IOC_SET_OUTPUT _IO('$', 5)
#define PM_IOC_ID _IOR('$', 7, uint64_t *)
#define PM_FLAG_FD_CLOEXEC (1UL << 3)

#define PM_DEFAULT_RING_BYTES (512u * 1024u)

struct pm_evsel {
	struct pm_attr attr;
	char *name;
	int leader;        /* index of the group leader, own index when alone */
	int *fds;          /* one per CPU column */
	uint64_t *ids;
	pm_sample_layout *layout; /* of attr as opened; NULL if unknowable */
};

struct pm_evlist {
	struct pm_evlist_opts o;
	char *cpus_str;
	int *cpus;         /* CPU per column; -1 = any */
	size_t nr_cpus;
	struct pm_evsel *ev;
	size_t nr_ev, cap_ev;
	pm_ring **rings;   /* one per column at most */
	size_t nr_rings;
	struct pollfd *pfd;
	size_t page_size, data_size;
	pid_t child;
	int go_fd, err_fd;
	bool child_started, child_reaped, opened, system_wide;
	int child_status;
	struct pm__order order; /* pm_evlist_drain_ordered() */
};

/* ---------------------------------------------------------------- errors */

static int read_sysctl_int(const char *path, int *val)
{
	char *s = NULL;
	size_t len;
	int rc = pm__read_small_file(path, 64, &s, &len);

	if (rc == 0) {
		*val = atoi(s);
		free(s);
	}
	return rc;
}

int pm__evlist_explain_open(int err, const struct pm_attr *a, const char *name, int pid, int cpu,
			    bool grouped)
{
	char what[160];
	unsigned precise = PM_ATTR_PRECISE_IP(a);
	bool sampling = a->sample_period || (a->flags & PM_ATTR_FREQ);
	int paranoid;

	if (name && *name)
		snprintf(what, sizeof(what), "event '%s' (type %u, config 0x%llx)", name, a->type,
			 (unsigned long long)a->config);
	else
		snprintf(what, sizeof(what), "event type %u, config 0x%llx", a->type,
			 (unsigned long long)a->config);

	switch (err) {
	case EACCES:
	case EPERM:
		if (read_sysctl_int("/proc/sys/kernel/perf_event_paranoid", &paranoid))
			return pm__err(err, "%s: permission denied (pid %d, cpu %d); "
					    "kernel.perf_event_paranoid could not be read",
				       what, pid, cpu);
		return pm__err(err,
			       "%s: permission denied (pid %d, cpu %d): kernel.perf_event_paranoid "
			       "is %d (%s); run as root or with CAP_PERFMON, lower it with "
			       "'sysctl kernel.perf_event_paranoid=...'%s",
			       what, pid, cpu, paranoid,
			       paranoid >= 3 ? "perf events forbidden to unprivileged users" :
			       paranoid == 2 ? "no kernel profiling and no CPU-wide events "
					       "for unprivileged users" :
			       paranoid == 1 ? "no CPU-wide events for unprivileged users" :
					       "allows most uses",
			       (a->flags & PM_ATTR_EXCLUDE_KERNEL) ? "" :
			       ", or exclude the kernel (modifier ':u')");
	case ENOENT:
	case ENODEV:
		return pm__err(err, "%s is not available on this machine: no such PMU or event "
				    "(the PMU type %u or its config is unknown to this kernel)",
			       what, a->type);
	case EOPNOTSUPP:
		return pm__err(err, "%s: the PMU does not support %s on this machine", what,
			       sampling ? "sampling (or a requested sample feature)" :
					  "this configuration");
	case ENOSYS:
		return pm__err(err, "perf_event_open is not available: the kernel (or an emulator "
				    "such as qemu-user) does not implement it");
	case ESRCH:
		return pm__err(err, "%s: no process or thread %d", what, pid);
	case EMFILE:
	case ENFILE:
		return pm__err(err, "%s: too many open files (raise 'ulimit -n'): one fd is "
				    "needed per event and CPU",
			       what);
	case EBUSY:
		return pm__err(err, "%s: the PMU is in exclusive use by another user", what);
	case E2BIG:
		return pm__err(err, "%s: this kernel does not accept a perf_event_attr of %u bytes",
			       what, a->size);
	case EINVAL: {
		/* ProfileMe from the PMU's profileme config bit, or from precise_ip */
		pm_pmu_list *pl = NULL;
		bool pmbit = false, pmpmu = false;
		const char *via;

#if !defined(PM_RING_MEMORY_ONLY) /* the TSan build of the ring has no PMU module */
		if (pm_pmu_scan(&pl, NULL) == 0) {
			const pm_pmu *pmu = pm_pmu_find_by_type(pl, a->type);
			const pm_format *f = pmu && pm_pmu_is_profileme(pmu)
						     ? pm_pmu_format_find(pmu, "profileme")
						     : NULL;

			pmpmu = f != NULL;
			pmbit = f && pm_format_word(f) == 0 && pm_format_decode(f, a->config);
		}
		pm_pmu_list_free(pl);
#else
		(void)pl;
#endif
		via = pmbit ? (precise ? "the profileme config bit and precise_ip"
				       : "the profileme config bit (config:8)")
			    : "precise_ip";
		if (precise || pmbit) {
			if (!sampling)
				return pm__err(err, "%s: a ProfileMe event (selected by %s) must "
						    "sample: give it a period or a frequency",
					       what, via);
			if (grouped)
				return pm__err(err, "%s: a ProfileMe event (selected by %s) cannot "
						    "share a group with other events of its PMU",
					       what, via);
			if (pmbit && (a->config & ~0x1ffULL))
				return pm__err(err, "%s: a ProfileMe event (selected by %s) may set "
						    "only config bits 0-8 (event, profileme)",
					       what, via);
			if (pmpmu && (a->config & 0xff) >= 1 && (a->config & 0xff) <= 4)
				return pm__err(err, "%s: the kernel rejected ProfileMe (selected by "
						    "%s, precise_ip=%u) for this event",
					       what, via, precise);
			if (pmpmu)
				return pm__err(err, "%s: ProfileMe (selected by %s): the driver "
						    "maps only event codes 1-4 (cycles, instructions, "
						    "Bcache misses, Mbox replays), this is %llu",
					       what, via, (unsigned long long)(a->config & 0xff));
			return pm__err(err, "%s: the kernel rejected precise_ip=%u: the PMU "
					    "does not offer that precise (ProfileMe) level for this "
					    "event",
				       what, precise);
		}
	}
		return pm__err(err, "%s: invalid attributes for this kernel or PMU (sample_type "
				    "0x%llx, read_format 0x%llx, flags 0x%llx, pid %d, cpu %d)",
			       what, (unsigned long long)a->sample_type,
			       (unsigned long long)a->read_format, (unsigned long long)a->flags, pid,
			       cpu);
	default:
		return pm__err(err, "%s: perf_event_open failed: %s", what, strerror(err));
	}
}

static int attr_open_raw(const struct pm_attr *attr, int pid, int cpu, int group_fd,
			 unsigned long flags)
{
	uint64_t buf[PM_ATTR_SIZE_KNOWN / 8];
	struct pm_attr a = *attr;
	long fd;
	int n;

	if (!a.size)
		a.size = PM_ATTR_SIZE_KNOWN;
	for (;;) {
		memset(buf, 0, sizeof(buf));
		n = pm_attr_to_bytes(&a, buf, sizeof(buf), pm__host_big_endian());
		if (n < 0)
			return n;
		fd = syscall(__NR_perf_event_open, buf, (pid_t)pid, cpu, group_fd,
			     flags | PM_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return (int)fd;
		/* An older kernel: retry at the size it knows if nothing is lost. */
		if (errno == E2BIG && a.size > PM_ATTR_SIZE_VER7 && !a.config3) {
			a.size = PM_ATTR_SIZE_VER7;
			continue;
		}
		return -errno;
	}
}

int pm_attr_open(const struct pm_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	int fd;

	if (!attr)
		return pm__err(EINVAL, "pm_attr_open: NULL attr");
	fd = attr_open_raw(attr, pid, cpu, group_fd, flags);
	if (fd < 0)
		return pm__evlist_explain_open(-fd, attr, NULL, pid, cpu, group_fd >= 0);
	return fd;
}

/* ------------------------------------------------------------- CPU lists */

static int parse_cpu_list(const char *s, int **out, size_t *nr)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = s;

	*out = NULL;
	*nr = 0;
	while (*p && *p != '\n') {
		char *e;
		long a = strtol(p, &e, 10), b = a;

		if (e == p || a < 0 || a > 65535)
			goto bad;
		p = e;
		if (*p == '-') {
			b = strtol(p + 1, &e, 10);
			if (e == p + 1 || b < a || b > 65535)
				goto bad;
			p = e;
		}
		for (long c = a; c <= b; c++) {
			if (n == cap) {
				int *nv = pm__reallocarray(v, cap ? cap * 2 : 16, sizeof(*v));

				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
				cap = cap ? cap * 2 : 16;
			}
			v[n++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!n)
		goto bad;
	*out = v;
	*nr = n;
	return 0;
bad:
	free(v);
	return pm__err(EINVAL, "bad CPU list '%s' (expected e.g. '0-3,6')", s);
}

/* ---------------------------------------------------------------- evlist */

int pm_evlist_new(pm_evlist **out, const struct pm_evlist_opts *opts)
{
	pm_evlist *el;
	int rc;

	if (!out)
		return pm__err(EINVAL, "pm_evlist_new: NULL out");
	*out = NULL;
	if (opts) {
		rc = PM__SZ_VALID(opts, pm_evlist_opts, PM_EVLIST_OPTS_SZ_V1);
		if (rc)
			return rc;
	}
	el = calloc(1, sizeof(*el));
	if (!el)
		return -ENOMEM;
	el->o.sz = sizeof(el->o);
	if (opts)
		pm__opts_copy_in(&el->o, sizeof(el->o), opts, opts->sz);
	el->child = -1;
	el->go_fd = el->err_fd = -1;
	el->system_wide = !!(el->o.flags & PM_EVLIST_SYSTEM_WIDE);
	if (el->o.cpus) {
		el->cpus_str = strdup(el->o.cpus);
		if (!el->cpus_str) {
			free(el);
			return -ENOMEM;
		}
		el->o.cpus = el->cpus_str;
	}
	if (el->o.mmap_pages && (el->o.mmap_pages & (el->o.mmap_pages - 1))) {
		rc = pm__err(EINVAL, "mmap_pages %u is not a power of two", el->o.mmap_pages);
		pm_evlist_free(el);
		return rc;
	}
	*out = el;
	return 0;
}

int pm_evlist_add(pm_evlist *el, const struct pm_attr *attr, const char *name, int leader)
{
	struct pm_evsel *e;

	if (!el || !attr)
		return pm__err(EINVAL, "pm_evlist_add: NULL argument");
	if (el->opened)
		return pm__err(EBUSY, "pm_evlist_add: the list is already open");
	if (leader >= 0 && ((size_t)leader >= el->nr_ev || el->ev[leader].leader != leader))
		return pm__err(EINVAL, "pm_evlist_add: %d is not the index of a group leader",
			       leader);
	if (el->nr_ev == el->cap_ev) {
		size_t cap = el->cap_ev ? el->cap_ev * 2 : 4;
		struct pm_evsel *n = pm__reallocarray(el->ev, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		el->ev = n;
		el->cap_ev = cap;
	}
	e = &el->ev[el->nr_ev];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	if (!e->attr.size)
		e->attr.size = PM_ATTR_SIZE_KNOWN;
	e->name = strdup(name ? name : "");
	if (!e->name)
		return -ENOMEM;
	e->leader = leader >= 0 ? leader : (int)el->nr_ev;
	return (int)el->nr_ev++;
}

static bool attr_samples(const struct pm_attr *a)
{
	return a->sample_period || (a->flags & PM_ATTR_FREQ);
}

int pm_evlist_prepare_command(pm_evlist *el, char *const argv[])
{
	int go[2], er[2];
	pid_t pid;

	if (!el || !argv || !argv[0])
		return pm__err(EINVAL, "pm_evlist_prepare_command: no command");
	if (el->child > 0 || el->opened)
		return pm__err(EBUSY, "pm_evlist_prepare_command: already prepared or open");
	if (pipe2(go, O_CLOEXEC))
		return pm__err(errno, "pipe: %s", strerror(errno));
	if (pipe2(er, O_CLOEXEC)) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return pm__err(e, "pipe: %s", strerror(e));
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return pm__err(e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the parent gave up */
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	el->child = pid;
	el->go_fd = go[1];
	el->err_fd = er[0];
	el->o.pid = pid;
	return pid;
}

static int setup_cpus(pm_evlist *el)
{
	bool percpu = el->system_wide || (el->o.flags & PM_EVLIST_INHERIT);
	char *s = NULL;
	size_t len;
	int rc;

	if (el->o.cpus)
		return parse_cpu_list(el->o.cpus, &el->cpus, &el->nr_cpus);
	if (!percpu) {
		/* One column on any CPU. */
		el->cpus = malloc(sizeof(int));
		if (!el->cpus)
			return -ENOMEM;
		el->cpus[0] = -1;
		el->nr_cpus = 1;
		return 0;
	}
	/* Inherited sampling events cannot be mmapped on "any CPU": open
	 * them per CPU like system-wide ones. */
	rc = pm__read_small_file("/sys/devices/system/cpu/online", 4096, &s, &len);
	if (rc) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		if (n < 1)
			n = 1;
		el->cpus = pm__calloc((size_t)n, sizeof(int));
		if (!el->cpus)
			return -ENOMEM;
		for (long i = 0; i < n; i++)
			el->cpus[i] = (int)i;
		el->nr_cpus = (size_t)n;
		return 0;
	}
	rc = parse_cpu_list(s, &el->cpus, &el->nr_cpus);
	free(s);
	return rc;
}

static void apply_defaults(pm_evlist *el)
{
	bool tracking_done = !!(el->o.flags & PM_EVLIST_NO_TRACKING);
	uint32_t wake = el->o.wakeup_bytes ? el->o.wakeup_bytes : (uint32_t)(el->data_size / 4);

	for (size_t i = 0; i < el->nr_ev; i++) {
		struct pm_attr *a = &el->ev[i].attr;
		bool leader = el->ev[i].leader == (int)i;

		if (el->o.flags & PM_EVLIST_INHERIT)
			a->flags |= PM_ATTR_INHERIT;
		if (leader) {
			a->flags |= PM_ATTR_DISABLED;
			if (el->child > 0)
				a->flags |= PM_ATTR_ENABLE_ON_EXEC;
		} else {
			a->flags &= ~PM_ATTR_DISABLED;
		}
		if (el->o.flags & PM_EVLIST_NO_DEFAULTS)
			continue;
		a->read_format |= PM_FORMAT_TOTAL_TIME_ENABLED | PM_FORMAT_TOTAL_TIME_RUNNING |
				  PM_FORMAT_ID;
		if (!attr_samples(a))
			continue;
		a->sample_type |= PM_SAMPLE_IP | PM_SAMPLE_TID | PM_SAMPLE_TIME | PM_SAMPLE_CPU |
				  PM_SAMPLE_PERIOD;
		if (el->nr_ev > 1)
			a->sample_type |= PM_SAMPLE_IDENTIFIER;
		a->flags |= PM_ATTR_SAMPLE_ID_ALL;
		if (el->o.flags & PM_EVLIST_OVERWRITE)
			a->flags |= PM_ATTR_WRITE_BACKWARD;
		else {
			a->flags |= PM_ATTR_WATERMARK;
			a->wakeup_events = wake;
		}
		if (!tracking_done) {
			a->flags |= PM_ATTR_MMAP | PM_ATTR_MMAP2 | PM_ATTR_COMM | PM_ATTR_COMM_EXEC |
				    PM_ATTR_TASK;
			tracking_done = true;
		}
	}
}

static void close_all(pm_evlist *el)
{
	for (size_t i = 0; i < el->nr_rings; i++)
		pm_ring_free(el->rings[i]);
	free(el->rings);
	el->rings = NULL;
	el->nr_rings = 0;
	free(el->pfd);
	el->pfd = NULL;
	for (size_t i = 0; i < el->nr_ev; i++) {
		struct pm_evsel *e = &el->ev[i];

		if (e->fds)
			for (size_t c = 0; c < el->nr_cpus; c++)
				if (e->fds[c] >= 0)
					close(e->fds[c]);
		free(e->fds);
		free(e->ids);
		pm_sample_layout_free(e->layout);
		e->fds = NULL;
		e->ids = NULL;
		e->layout = NULL;
	}
	el->opened = false;
	pm__order_fini(&el->order);
	memset(&el->order, 0, sizeof(el->order));
}

static int map_ring(pm_evlist *el, int fd, pm_ring **out)
{
	bool ow = !!(el->o.flags & PM_EVLIST_OVERWRITE);
	size_t len = el->page_size + el->data_size;
	void *m = mmap(NULL, len, ow ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int rc, mlock_kb = -1;

	if (m == MAP_FAILED) {
		int e = errno;

		if (e == EPERM || e == ENOMEM) {
			read_sysctl_int("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
			return pm__err(e, "mmap of a %zu KiB perf ring failed (%s): "
					  "kernel.perf_event_mlock_kb is %d; use fewer pages or "
					  "raise it",
				       el->data_size / 1024, strerror(e), mlock_kb);
		}
		return pm__err(e, "mmap of the perf ring: %s", strerror(e));
	}
	rc = pm__ring_init(out, m, el->page_size, el->data_size, ow ? PM_RING_OVERWRITE : 0, fd,
			   len);
	if (rc)
		munmap(m, len);
	return rc;
}

int pm_evlist_open(pm_evlist *el)
{
	long ps = sysconf(_SC_PAGESIZE);
	int rc, pid;

	if (!el)
		return pm__err(EINVAL, "pm_evlist_open: NULL list");
	if (el->opened)
		return pm__err(EBUSY, "pm_evlist_open: already open");
	if (!el->nr_ev)
		return pm__err(EINVAL, "pm_evlist_open: no events");
	el->page_size = ps > 0 ? (size_t)ps : 4096;
	if (el->o.mmap_pages)
		el->data_size = (size_t)el->o.mmap_pages * el->page_size;
	else
		el->data_size = PM_MAX(el->page_size, (size_t)PM_DEFAULT_RING_BYTES);
	if (!el->cpus) {
		rc = setup_cpus(el);
		if (rc)
			return rc;
	}
	apply_defaults(el);
	pid = el->system_wide ? -1 : el->o.pid;
	if (el->system_wide)
		for (size_t c = 0; c < el->nr_cpus; c++)
			if (el->cpus[c] < 0)
				return pm__err(EINVAL, "system-wide events need real CPUs");

	el->rings = pm__calloc(el->nr_cpus, sizeof(*el->rings));
	el->pfd = pm__calloc(el->nr_cpus, sizeof(*el->pfd));
	if (!el->rings || !el->pfd) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < el->nr_ev; i++) {
		struct pm_evsel *e = &el->ev[i];

		e->fds = pm__calloc(el->nr_cpus, sizeof(int));
		e->ids = pm__calloc(el->nr_cpus, sizeof(uint64_t));
		if (!e->fds || !e->ids) {
			rc = -ENOMEM;
			goto fail;
		}
		for (size_t c = 0; c < el->nr_cpus; c++)
			e->fds[c] = -1;
	}
	el->opened = true; /* so that close_all() cleans up */
	for (size_t c = 0; c < el->nr_cpus; c++) {
		int ring_fd = -1;

		for (size_t i = 0; i < el->nr_ev; i++) {
			struct pm_evsel *e = &el->ev[i];
			bool grouped = e->leader != (int)i;
			int gfd = grouped ? el->ev[e->leader].fds[c] : -1;

			for (size_t j = i + 1; !grouped && j < el->nr_ev; j++)
				grouped = el->ev[j].leader == (int)i;
			rc = attr_open_raw(&e->attr, pid, el->cpus[c], gfd, 0);
			if (rc < 0) {
				rc = pm__evlist_explain_open(-rc, &e->attr, e->name, pid, el->cpus[c],
							grouped);
				goto fail;
			}
			e->fds[c] = rc;
			if (ioctl(e->fds[c], PM_IOC_ID, &e->ids[c]) < 0)
				e->ids[c] = 0;
			if (!attr_samples(&e->attr))
				continue;
			if (ring_fd < 0) {
				rc = map_ring(el, e->fds[c], &el->rings[el->nr_rings]);
				if (rc)
					goto fail;
				ring_fd = e->fds[c];
				el->pfd[el->nr_rings].fd = ring_fd;
				el->pfd[el->nr_rings].events =
					(el->o.flags & PM_EVLIST_OVERWRITE) ? 0 : POLLIN;
				el->nr_rings++;
			} else if (ioctl(e->fds[c], PM_IOC_SET_OUTPUT, ring_fd) < 0) {
				rc = pm__err(errno, "redirecting event '%s' into the ring of CPU %d: "
						    "%s",
					     e->name, el->cpus[c], strerror(errno));
				goto fail;
			}
		}
	}
	/* Layouts of the attrs as opened (the defaults above changed
	 * sample_type): pm_evlist_sample() parses with these.  An attr whose
	 * layout is unknowable still records; its samples are refused then. */
	for (size_t i = 0; i < el->nr_ev; i++)
		if (pm_sample_layout_new(&el->ev[i].layout, &el->ev[i].attr))
			el->ev[i].layout = NULL;
	pm__err_clear();
	return 0;
fail:
	close_all(el);
	return rc;
}

static int ioctl_all(pm_evlist *el, unsigned long req, const char *what)
{
	if (!el || !el->opened)
		return pm__err(EINVAL, "%s: the list is not open", what);
	for (size_t i = 0; i < el->nr_ev; i++) {
		if (el->ev[i].leader != (int)i)
			continue;
		for (size_t c = 0; c < el->nr_cpus; c++)
			if (ioctl(el->ev[i].fds[c], req, 1 /* PERF_IOC_FLAG_GROUP */) < 0)
				return pm__err(errno, "%s: %s", what, strerror(errno));
	}
	return 0;
}

int pm_evlist_enable(pm_evlist *el)
{
	return ioctl_all(el, PM_IOC_ENABLE, "enable");
}

int pm_evlist_disable(pm_evlist *el)
{
	return ioctl_all(el, PM_IOC_DISABLE, "disable");
}

int pm_evlist_start(pm_evlist *el)
{
	char c = 1;
	int e = 0;
	ssize_t n;

	if (!el || !el->opened)
		return pm__err(EINVAL, "pm_evlist_start: the list is not open");
	if (el->child <= 0)
		return pm_evlist_enable(el);
	if (el->child_started)
		return 0;
	el->child_started = true;
	n = write(el->go_fd, &c, 1);
	close(el->go_fd);
	el->go_fd = -1;
	if (n != 1)
		return pm__err(EPIPE, "could not start the command (pid %d)", (int)el->child);
	do
		n = read(el->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(el->err_fd);
	el->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		pm_evlist_wait_child(el, NULL, 1);
		return pm__err(e, "cannot execute the command: %s", strerror(e));
	}
	return 0;
}

int pm_evlist_poll(pm_evlist *el, int timeout_ms)
{
	int n, ready = 0, hup = 0;

	if (!el || !el->opened)
		return pm__err(EINVAL, "pm_evlist_poll: the list is not open");
	if (!el->nr_rings) {
		if (timeout_ms)
			poll(NULL, 0, timeout_ms);
		return 0;
	}
	n = poll(el->pfd, el->nr_rings, timeout_ms);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < el->nr_rings; i++) {
		if (el->pfd[i].revents & POLLIN)
			ready++;
		if (el->pfd[i].revents & (POLLHUP | POLLERR))
			hup++;
	}
	if (hup == (int)el->nr_rings && !ready)
		return -EPIPE;
	return ready ? ready : (hup ? -EPIPE : 0);
}

long pm_evlist_drain_max(pm_evlist *el, pm_ring_record_fn fn, void *user, unsigned long max,
			 int *stopped)
{
	unsigned long total = 0;
	bool stop = false;
	long n;

	if (stopped)
		*stopped = 0;
	if (!el || !fn)
		return pm__err(EINVAL, "pm_evlist_drain: NULL argument");
	for (size_t i = 0; i < el->nr_rings && !stop && (!max || total < max); i++) {
		n = pm__ring_drain(el->rings[i], fn, user, max ? max - total : 0, &stop);
		if (n < 0)
			return n;
		total += (unsigned long)n;
	}
	if (stopped)
		*stopped = stop;
	return (long)total;
}

long pm_evlist_drain(pm_evlist *el, pm_ring_record_fn fn, void *user)
{
	return pm_evlist_drain_max(el, fn, user, 0, NULL);
}

/* A ring record's time, from the layout of its event as opened. */
static int evlist_rec_time(const void *rec, size_t size, void *ctx, uint64_t *time)
{
	const pm_evlist *el = ctx;
	int idx, rc;

	idx = pm_evlist_event_of(el, rec, size);
	if (idx < 0 || !el->ev[idx].layout)
		return 1;
	rc = pm_record_peek_time(el->ev[idx].layout, rec, size, pm__host_big_endian(), time);
	return rc ? 1 : 0;
}

long pm_evlist_drain_ordered(pm_evlist *el, pm_ring_record_fn fn, void *user, unsigned long max,
			     unsigned flags, int *stopped)
{
	bool stop = false;
	long n;

	if (stopped)
		*stopped = 0;
	if (!el || !fn)
		return pm__err(EINVAL, "pm_evlist_drain_ordered: NULL argument");
	if (!el->opened)
		return pm__err(EINVAL, "pm_evlist_drain_ordered: the list is not open");
	if (el->o.flags & PM_EVLIST_OVERWRITE)
		return pm__err(EINVAL, "pm_evlist_drain_ordered: overwrite rings are read newest "
				       "first; use pm_evlist_drain()");
	if (flags & ~(unsigned)PM_DRAIN_FLUSH)
		return pm__err(EINVAL, "pm_evlist_drain_ordered: unknown flags 0x%x", flags);
	n = pm__ring_drain_ordered(el->rings, el->nr_rings, &el->order, evlist_rec_time, el, fn,
				   user, max, flags, &stop);
	/* the time lookups' -ENOENT messages are not this call's error */
	if (n >= 0)
		pm__err_clear();
	if (stopped)
		*stopped = stop;
	return n;
}

int pm_evlist_wait_child(pm_evlist *el, int *status, int block)
{
	int st = 0;
	pid_t p;

	if (!el || el->child <= 0)
		return -ECHILD;
	if (el->child_reaped) {
		if (status)
			*status = el->child_status;
		return 1;
	}
	do
		p = waitpid(el->child, &st, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == 0)
		return 0;
	if (p < 0)
		return -errno;
	el->child_reaped = true;
	el->child_status = st;
	if (status)
		*status = st;
	return 1;
}

int pm_evlist_child_pid(const pm_evlist *el)
{
	if (!el)
		return -1;
	if (el->child > 0)
		return (int)el->child;
	return el->system_wide ? -1 : el->o.pid;
}

size_t pm_evlist_count(const pm_evlist *el)
{
	return el ? el->nr_ev : 0;
}

int pm_evlist_attr(const pm_evlist *el, size_t idx, struct pm_attr *attr)
{
	if (!el || !attr || idx >= el->nr_ev)
		return pm__err(EINVAL, "pm_evlist_attr: bad index");
	*attr = el->ev[idx].attr;
	return 0;
}

const char *pm_evlist_name(const pm_evlist *el, size_t idx)
{
	if (!el || idx >= el->nr_ev)
		return "";
	return el->ev[idx].name;
}

long pm_evlist_ids(const pm_evlist *el, size_t idx, uint64_t *ids, size_t cap)
{
	if (!el || idx >= el->nr_ev)
		return pm__err(EINVAL, "pm_evlist_ids: bad index");
	if (!el->opened || !el->ev[idx].ids)
		return 0;
	for (size_t c = 0; ids && c < el->nr_cpus && c < cap; c++)
		ids[c] = el->ev[idx].ids[c];
	return (long)el->nr_cpus;
}

int pm_evlist_attr_of_id(const pm_evlist *el, uint64_t id)
{
	if (!el)
		return pm__err(EINVAL, "pm_evlist_attr_of_id: NULL list");
	if (!el->opened)
		return pm__err(EINVAL, "pm_evlist_attr_of_id: the list is not open");
	for (size_t i = 0; i < el->nr_ev; i++)
		for (size_t c = 0; el->ev[i].ids && c < el->nr_cpus; c++)
			if (el->ev[i].ids[c] == id && id != 0)
				return (int)i;
	return pm__err(ENOENT, "pm_evlist_attr_of_id: no event has id %llu",
		       (unsigned long long)id);
}

static int host_be(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return 1;
#else
	return 0;
#endif
}

int pm_evlist_event_of(const pm_evlist *el, const void *rec, size_t len)
{
	const pm_sample_layout *l = NULL;
	uint64_t id;
	int rc;

	if (!el || !rec)
		return pm__err(EINVAL, "pm_evlist_event_of: NULL argument");
	if (!el->opened)
		return pm__err(EINVAL, "pm_evlist_event_of: the list is not open");
	if (el->nr_ev == 1)
		return 0;
	/* Every attr of the list shares id_pos/is_pos (IDENTIFIER when there
	 * are several, by default): any layout finds the id. */
	for (size_t i = 0; i < el->nr_ev && !l; i++)
		l = el->ev[i].layout;
	if (!l)
		return pm__err(PM_ERR_UNSUPPORTED, "pm_evlist_event_of: no event has a known "
						   "sample layout");
	rc = pm_record_peek_id(l, rec, len, host_be(), &id);
	if (rc)
		return rc;
	return pm_evlist_attr_of_id(el, id);
}

int pm_evlist_sample(const pm_evlist *el, const void *rec, size_t len, struct pm_sample *out)
{
	pm_sample_layout *tmp = NULL;
	const struct pm_evsel *e;
	char why[256];
	size_t off = 0;
	uint32_t type;
	int idx, rc;

	if (!el || !rec || !out)
		return pm__err(EINVAL, "pm_evlist_sample: NULL argument");
	if (len < 8)
		return pm__err(PM_ERR_TRUNCATED, "pm_evlist_sample: %zu bytes, less than a record "
						 "header", len);
	memcpy(&type, rec, sizeof(type)); /* ring records are in host order */
	if (type != PM_RECORD_SAMPLE)
		return pm__err(EINVAL, "pm_evlist_sample: record type %u (%s) is not SAMPLE", type,
			       pm_record_type_name(type));
	idx = pm_evlist_event_of(el, rec, len);
	if (idx < 0)
		return idx;
	e = &el->ev[idx];
	if (!e->layout) {
		/* The same message as when open could not build it. */
		rc = pm_sample_layout_new(&tmp, &e->attr);
		pm_sample_layout_free(tmp);
		snprintf(why, sizeof(why), "%s", rc ? pm_errmsg() : "no sample layout");
		return pm__err(PM_ERR_UNSUPPORTED, "pm_evlist_sample: event '%s': %s", e->name, why);
	}
	rc = pm_sample_parse(out, e->layout, rec, len, host_be(), &off);
	if (rc && rc != -EINVAL && rc != -PM_ERR_STRUCT_SIZE) {
		snprintf(why, sizeof(why), "%s", pm_errmsg());
		return pm__err(-rc, "pm_evlist_sample: event '%s', record offset %zu: %s", e->name,
			       off, why);
	}
	return rc;
}

bool pm__evlist_is_open(const pm_evlist *el)
{
	return el && el->opened;
}

bool pm__evlist_overwrite(const pm_evlist *el)
{
	return el && (el->o.flags & PM_EVLIST_OVERWRITE);
}

const pm_sample_layout *pm__evlist_layout(const pm_evlist *el, size_t idx)
{
	return el && el->opened && idx < el->nr_ev ? el->ev[idx].layout : NULL;
}

pm_ring *pm__evlist_swap_ring(pm_evlist *el, size_t i, pm_ring *r)
{
	pm_ring *old;

	if (!el || i >= el->nr_rings || !r)
		return NULL;
	old = el->rings[i];
	el->rings[i] = r;
	return old;
}

int pm__evlist_open_memory(pm_evlist *el, pm_ring *const *rings, size_t nr_rings,
			   const uint64_t *ids)
{
	if (!el || el->opened || !el->nr_ev || !rings || !nr_rings || !ids)
		return pm__err(EINVAL, "pm__evlist_open_memory: bad arguments");
	for (size_t c = 0; c < nr_rings; c++)
		if (!rings[c])
			return pm__err(EINVAL, "pm__evlist_open_memory: ring %zu is NULL", c);
	free(el->cpus);
	el->cpus = pm__calloc(nr_rings, sizeof(*el->cpus));
	el->rings = pm__calloc(nr_rings, sizeof(*el->rings));
	el->pfd = pm__calloc(nr_rings, sizeof(*el->pfd));
	if (!el->cpus || !el->rings || !el->pfd)
		goto nomem;
	el->nr_cpus = nr_rings;
	el->page_size = 4096;
	el->data_size = rings[0]->size;
	for (size_t c = 0; c < nr_rings; c++)
		el->cpus[c] = (int)c;
	apply_defaults(el);
	for (size_t i = 0; i < el->nr_ev; i++) {
		struct pm_evsel *e = &el->ev[i];

		e->fds = pm__calloc(nr_rings, sizeof(int));
		if (!e->fds)
			goto nomem;
		for (size_t c = 0; c < nr_rings; c++)
			e->fds[c] = -1; /* before anything can fail: close_all() closes fds >= 0 */
		e->ids = pm__calloc(nr_rings, sizeof(uint64_t));
		if (!e->ids)
			goto nomem;
		for (size_t c = 0; c < nr_rings; c++)
			e->ids[c] = ids[i * nr_rings + c];
	}
	el->opened = true;
	for (size_t c = 0; c < nr_rings; c++) {
		el->rings[c] = rings[c];
		el->pfd[c].fd = -1;
	}
	el->nr_rings = nr_rings;
	for (size_t i = 0; i < el->nr_ev; i++)
		if (pm_sample_layout_new(&el->ev[i].layout, &el->ev[i].attr))
			el->ev[i].layout = NULL;
	pm__err_clear();
	return 0;
nomem:
	el->opened = true; /* close_all() frees what was allocated; no ring is the list's yet */
	close_all(el);
	return -ENOMEM;
}

size_t pm_evlist_nr_rings(const pm_evlist *el)
{
	return el ? el->nr_rings : 0;
}

pm_ring *pm_evlist_ring(pm_evlist *el, size_t i)
{
	return el && i < el->nr_rings ? el->rings[i] : NULL;
}

int pm_evlist_stats(const pm_evlist *el, struct pm_ring_stats *st)
{
	struct pm_ring_stats acc;
	int rc;

	if (!el || !st)
		return pm__err(EINVAL, "pm_evlist_stats: NULL argument");
	rc = PM__SZ_VALID(st, pm_ring_stats, PM_RING_STATS_SZ_V1);
	if (rc)
		return rc;
	memset(&acc, 0, sizeof(acc));
	acc.sz = sizeof(acc);
	for (size_t i = 0; i < el->nr_rings; i++)
		pm__ring_stats_add(&acc, el->rings[i]);
	pm__struct_copy_out(st, st->sz, &acc, sizeof(acc));
	return 0;
}

int pm_evlist_read_count(const pm_evlist *el, size_t idx, struct pm_count *c)
{
	struct pm_count r;
	const struct pm_evsel *e;
	int rc;

	if (!el || !c || idx >= el->nr_ev || !el->opened)
		return pm__err(EINVAL, "pm_evlist_read_count: bad index or list not open");
	rc = PM__SZ_VALID(c, pm_count, PM_COUNT_SZ_V1);
	if (rc)
		return rc;
	e = &el->ev[idx];
	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	for (size_t cpu = 0; cpu < el->nr_cpus; cpu++) {
		uint64_t v[8];
		uint64_t rf = e->attr.read_format;
		ssize_t n, want = 8;
		size_t k = 1;

		if (rf & PM_FORMAT_GROUP)
			return pm__err(EINVAL, "pm_evlist_read_count: read_format GROUP is not "
					       "decoded here; read the members one by one");
		want += 8 * (!!(rf & PM_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PM_FORMAT_TOTAL_TIME_RUNNING) +
			     !!(rf & PM_FORMAT_ID) + !!(rf & PM_FORMAT_LOST));
		do
			n = read(e->fds[cpu], v, sizeof(v));
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return pm__err(errno, "reading the count of '%s': %s", e->name,
				       strerror(errno));
		if (n < want)
			return pm__err(PM_ERR_TRUNCATED, "reading the count of '%s': %zd bytes, "
							 "read_format needs %zd",
				       e->name, n, want);
		r.value += v[0];
		/* A task's event opened once per CPU (inherit) is enabled
		 * whenever the task runs, on any CPU, but runs only on its
		 * own: the task's enabled time is the largest of them, its
		 * running time their sum.  System-wide, every CPU's times
		 * add up (perf stat's aggregation). */
		if (rf & PM_FORMAT_TOTAL_TIME_ENABLED) {
			if (el->system_wide)
				r.enabled += v[k];
			else if (v[k] > r.enabled)
				r.enabled = v[k];
			k++;
		}
		if (rf & PM_FORMAT_TOTAL_TIME_RUNNING)
			r.running += v[k++];
		if ((rf & PM_FORMAT_ID) && cpu == 0)
			r.id = v[k];
	}
	/* The per-CPU running times of one task are sampled at slightly
	 * different moments than its enabled time: their sum can pass the
	 * enabled time by a few microseconds under load.  A task cannot run
	 * longer than it was enabled, so the aggregate is clamped, and such
	 * a count is not scaled (perf stat does not scale when running >=
	 * enabled either). */
	if (!el->system_wide && r.running > r.enabled &&
	    (e->attr.read_format & PM_FORMAT_TOTAL_TIME_ENABLED))
		r.running = r.enabled;
	if (!(e->attr.read_format & PM_FORMAT_TOTAL_TIME_RUNNING) ||
	    !(e->attr.read_format & PM_FORMAT_TOTAL_TIME_ENABLED)) {
		r.scaled = (double)r.value;
	} else if (r.running == 0) {
		r.scaled = 0;
		r.multiplexed = r.enabled ? -1 : 0;
	} else if (r.running >= r.enabled) {
		r.scaled = (double)r.value;
	} else {
		r.scaled = (double)r.value * ((double)r.enabled / (double)r.running);
		/* Per-CPU fds of one task leave a little slack between
		 * the task's enabled time and the sum of the running
		 * times (the moments it migrates): ignore below 1%. */
		r.multiplexed = r.running < r.enabled - r.enabled / 100;
	}
	pm__struct_copy_out(c, c->sz, &r, sizeof(r));
	return 0;
}

void pm_evlist_close(pm_evlist *el)
{
	if (el && el->opened)
		close_all(el);
}

void pm_evlist_free(pm_evlist *el)
{
	if (!el)
		return;
	close_all(el);
	if (el->go_fd >= 0)
		close(el->go_fd);
	if (el->err_fd >= 0)
		close(el->err_fd);
	/* A command never started is killed and reaped; a started one is
	 * the caller's to wait for (pm_evlist_wait_child()). */
	if (el->child > 0 && !el->child_reaped && !el->child_started) {
		kill(el->child, SIGKILL);
		pm_evlist_wait_child(el, NULL, 1);
	}
	for (size_t i = 0; i < el->nr_ev; i++)
		free(el->ev[i].name);
	free(el->ev);
	free(el->cpus);
	free(el->cpus_str);
	free(el);
}
