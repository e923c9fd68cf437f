/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * sample: sample a command with task-clock and print its 5 hottest
 * instruction pointers.
 *
 *   sample [-c PERIOD_NS] CMD [ARGS...]
 *
 * One workflow: a pm_evlist with one sampling event follows the command;
 * its rings are drained while it runs; every record goes through the record
 * parser (pm_sample_parse() for samples, pm_record_parse() for the MMAP2
 * records that say which file each address belongs to).  Each of the top 5
 * ips is printed with the file and file offset it falls in, so it can be
 * looked up with nm or addr2line.  Exit status: 0, 1 on an error, 2 on a
 * usage error, 77 when perf_event_open is not available here (qemu-user).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#define MAX_IPS 65536  /* distinct ips kept (open addressing) */
#define MAX_MAPS 512   /* executable mappings kept */

struct ip_count {
	uint64_t ip, n;
};

struct map {
	uint64_t start, len, pgoff;
	char path[256];
};

struct state {
	pm_sample_layout *layout;
	int big_endian;
	struct ip_count *ips; /* MAX_IPS slots, ip 0 = empty */
	uint64_t samples, dropped, bad;
	struct map maps[MAX_MAPS];
	size_t nr_maps;
};

static void count_ip(struct state *st, uint64_t ip)
{
	size_t h = (size_t)((ip * 0x9e3779b97f4a7c15ULL) >> 48) % MAX_IPS;

	for (size_t k = 0; k < MAX_IPS; k++, h = (h + 1) % MAX_IPS) {
		if (st->ips[h].ip == ip || st->ips[h].n == 0) {
			st->ips[h].ip = ip;
			st->ips[h].n++;
			return;
		}
	}
	st->dropped++;
}

/* pm_ring_record_fn: one record from the ring, in the host byte order. */
static int on_record(const void *rec, size_t size, void *user)
{
	struct state *st = user;
	struct pm_record_header h;

	if (pm_record_header_parse(&h, rec, size, st->big_endian))
		return 0;
	if (h.type == PM_RECORD_SAMPLE) {
		struct pm_sample s = { .sz = sizeof(s) };

		if (pm_sample_parse(&s, st->layout, rec, size, st->big_endian, NULL)) {
			st->bad++;
			return 0;
		}
		st->samples++;
		count_ip(st, s.ip);
	} else if (h.type == PM_RECORD_MMAP2 || h.type == PM_RECORD_MMAP) {
		struct pm_record *r = calloc(1, sizeof(*r));

		if (!r)
			return -ENOMEM;
		r->sz = sizeof(*r);
		if (pm_record_parse(r, st->layout, rec, size, st->big_endian, NULL) == 0 &&
		    st->nr_maps < MAX_MAPS && r->mmap.filename_len && r->mmap.filename[0] == '/') {
			struct map *m = &st->maps[st->nr_maps++];

			m->start = r->mmap.addr;
			m->len = r->mmap.len;
			m->pgoff = r->mmap.pgoff;
			snprintf(m->path, sizeof(m->path), "%.*s", (int)r->mmap.filename_len,
				 r->mmap.filename);
		}
		free(r);
	}
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct ip_count *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : (x->ip > y->ip) - (x->ip < y->ip);
}

static int host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

int main(int argc, char **argv)
{
	struct pm_evlist_opts eo = { .sz = sizeof(eo), .flags = PM_EVLIST_INHERIT };
	struct pm_event_error perr = { .sz = sizeof(perr) };
	struct state st;
	pm_event_list *events = NULL;
	pm_evlist *el = NULL;
	struct pm_attr a;
	uint64_t period = 100000; /* ns of task-clock: 10000 samples a second */
	int first = 1, rc, ret = 1, status = 0, done = 0;

	memset(&st, 0, sizeof(st));
	st.big_endian = host_big_endian();
	if (argc > 2 && !strcmp(argv[1], "-c")) {
		period = strtoull(argv[2], NULL, 0);
		first = 3;
	}
	if (argc <= first || !period) {
		fprintf(stderr, "usage: %s [-c PERIOD_NS] CMD [ARGS...]\n", argv[0]);
		return 2;
	}
	st.ips = calloc(MAX_IPS, sizeof(*st.ips));
	if (!st.ips) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = pm_event_parse(&events, NULL, "task-clock:u", &perr);
	if (rc) {
		fprintf(stderr, "sample: %s\n", perr.message);
		goto out;
	}
	rc = pm_evlist_new(&el, &eo);
	if (rc)
		goto fail;
	pm_event_attr(pm_event_list_get(events, 0), &a);
	a.sample_period = period;
	rc = pm_evlist_add(el, &a, "task-clock:u", -1);
	if (rc < 0)
		goto fail;
	rc = pm_evlist_prepare_command(el, argv + first);
	if (rc < 0)
		goto fail;
	rc = pm_evlist_open(el);
	if (rc == -ENOSYS) {
		printf("sample: skipped: %s\n", pm_errmsg());
		ret = 77;
		goto out;
	}
	if (rc)
		goto fail;
	pm_evlist_attr(el, 0, &a); /* as opened: sample_type with the defaults */
	rc = pm_sample_layout_new(&st.layout, &a);
	if (rc)
		goto fail;
	rc = pm_evlist_start(el);
	if (rc)
		goto fail;

	while (!done) {
		long n;

		rc = pm_evlist_poll(el, 100);
		if (rc < 0 && rc != -EINTR && rc != -EPIPE)
			goto fail;
		done = pm_evlist_wait_child(el, &status, 0) == 1;
		n = pm_evlist_drain(el, on_record, &st); /* also once more after the exit */
		if (n < 0) {
			rc = (int)n;
			goto fail;
		}
	}

	qsort(st.ips, MAX_IPS, sizeof(*st.ips), by_count);
	printf("%llu samples (task-clock:u, period %llu ns), %llu unparsable, %llu ips not counted\n",
	       (unsigned long long)st.samples, (unsigned long long)period,
	       (unsigned long long)st.bad, (unsigned long long)st.dropped);
	printf("%-18s %8s %6s  %s\n", "ip", "samples", "share", "file+offset");
	for (size_t i = 0; i < 5 && st.ips[i].n; i++) {
		const struct map *m = NULL;

		for (size_t k = 0; k < st.nr_maps; k++)
			if (st.ips[i].ip >= st.maps[k].start &&
			    st.ips[i].ip - st.maps[k].start < st.maps[k].len)
				m = &st.maps[k];
		printf("0x%-16llx %8llu %5.1f%%  ", (unsigned long long)st.ips[i].ip,
		       (unsigned long long)st.ips[i].n, 100.0 * (double)st.ips[i].n / (double)st.samples);
		if (m)
			printf("%s+0x%llx\n", m->path,
			       (unsigned long long)(st.ips[i].ip - m->start + m->pgoff));
		else
			printf("?\n");
	}
	ret = status == 0 ? 0 : 1;
	goto out;
fail:
	fprintf(stderr, "sample: %s\n", pm_error_string(rc));
out:
	pm_evlist_free(el);
	pm_sample_layout_free(st.layout);
	pm_event_list_free(events);
	free(st.ips);
	return ret;
}
