/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Benchmark (not a ctest; run by bench_json.sh): the JSON of every sample of
 * a recording, written by the library's own writer (pm_json_sample()) and by
 * json-c (an object per sample, json_object_to_json_string_ext() with
 * JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, the closest json-c
 * comes to the same text), both into one output buffer as script --json
 * does.  Samples are parsed once up front; only the JSON is timed.  Prints
 * the CPU time of each (best of 5), the ratio, and how many json-c lines are
 * byte-identical to the library's.
 *   usage: bench_json FILE
 * The json-c leg covers the keys of a `perf record -g --sample-cpu`
 * recording (event, pid, tid, comm, time, cpu, period, id, ip, callchain).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <profileme/profileme.h>

struct smp {
	struct pm_sample s;
	void *copy; /* the record bytes the sample points into */
	int attr;
};

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *hexs(char *b, size_t n, uint64_t v)
{
	snprintf(b, n, "0x%" PRIx64, v);
	return b;
}

static size_t jsonc_sample(const pm_file *f, const struct smp *x, char *out, size_t cap)
{
	const struct pm_sample *s = &x->s;
	json_object *o = json_object_new_object(), *cc;
	const char *nm = pm_file_event_name(f, (size_t)x->attr), *t;
	char b[24];
	size_t n;

	json_object_object_add(o, "event", json_object_new_string(nm ? nm : "[unknown]"));
	if (s->present & PM_SAMPLE_TID) {
		json_object_object_add(o, "pid", json_object_new_int((int32_t)s->pid));
		json_object_object_add(o, "tid", json_object_new_int((int32_t)s->tid));
		json_object_object_add(o, "comm", json_object_new_string(":"));
	}
	if (s->present & PM_SAMPLE_TIME)
		json_object_object_add(o, "time", json_object_new_uint64(s->time));
	if (s->present & PM_SAMPLE_CPU)
		json_object_object_add(o, "cpu", json_object_new_uint64(s->cpu));
	if (s->present & PM_SAMPLE_PERIOD)
		json_object_object_add(o, "period", json_object_new_uint64(s->period));
	if (s->present & (PM_SAMPLE_ID | PM_SAMPLE_IDENTIFIER))
		json_object_object_add(o, "id", json_object_new_uint64(s->id));
	if (s->present & PM_SAMPLE_IP)
		json_object_object_add(o, "ip", json_object_new_string(hexs(b, sizeof(b), s->ip)));
	if (s->present & PM_SAMPLE_CALLCHAIN) {
		cc = json_object_new_array();
		for (uint64_t i = 0; i < s->callchain.nr; i++) {
			uint64_t ip;

			if (pm_sample_callchain_ip(s, i, &ip) < 0 || PM_CONTEXT_IS_MARKER(ip))
				continue;
			json_object_array_add(cc, json_object_new_string(hexs(b, sizeof(b), ip)));
		}
		json_object_object_add(o, "callchain", cc);
	}
	t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(t);
	if (n < cap)
		memcpy(out, t, n);
	json_object_put(o);
	return n;
}

int main(int argc, char **argv)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	struct smp *v = NULL;
	size_t nv = 0, cv = 0, same = 0, bytes = 0;
	static char lib[1 << 16], jc[1 << 16];
	double best_lib = 1e9, best_jc = 1e9;
	pm_file *f;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_json FILE\n");
		return 2;
	}
	if (pm_file_open(&f, argv[1], NULL) < 0) {
		fprintf(stderr, "bench_json: %s\n", pm_errmsg());
		return 1;
	}
	while (pm_file_next(f, &rec) == 1) {
		if (rec.type != PM_RECORD_SAMPLE || rec.attr_idx < 0)
			continue;
		if (nv == cv) {
			cv = cv ? 2 * cv : 4096;
			v = realloc(v, cv * sizeof(*v));
			if (!v)
				return 1;
		}
		/* parse a private copy: the sample's pointers stay valid */
		v[nv].copy = malloc(rec.size);
		if (!v[nv].copy)
			return 1;
		memcpy(v[nv].copy, rec.data, rec.size);
		rec.data = v[nv].copy;
		v[nv].s.sz = sizeof(v[nv].s);
		if (pm_file_sample(f, &rec, &v[nv].s) < 0) {
			free(v[nv].copy);
			continue;
		}
		v[nv].attr = rec.attr_idx;
		nv++;
	}
	for (int rep = 0; rep < 5; rep++) {
		size_t used = 0, total = 0;
		double t0 = cpu_now(), t1, t2;

		for (size_t i = 0; i < nv; i++) {
			int n = pm_json_sample(f, v[i].attr, &v[i].s, NULL, lib + used, sizeof(lib) - used);

			if (n < 0 || (size_t)n + 1 >= sizeof(lib) - used) {
				used = 0; /* "flush" */
				n = pm_json_sample(f, v[i].attr, &v[i].s, NULL, lib, sizeof(lib));
			}
			used += (size_t)n;
			lib[used++] = '\n';
			total += (size_t)n + 1;
		}
		t1 = cpu_now();
		used = 0;
		for (size_t i = 0; i < nv; i++) {
			size_t n = jsonc_sample(f, &v[i], jc + used, sizeof(jc) - used - 1);

			if (n + 1 >= sizeof(jc) - used) {
				used = 0;
				n = jsonc_sample(f, &v[i], jc, sizeof(jc) - 1);
			}
			used += n;
			jc[used++] = '\n';
		}
		t2 = cpu_now();
		if (t1 - t0 < best_lib)
			best_lib = t1 - t0;
		if (t2 - t1 < best_jc)
			best_jc = t2 - t1;
		bytes = total;
	}
	for (size_t i = 0; i < nv; i++) {
		int n = pm_json_sample(f, v[i].attr, &v[i].s, NULL, lib, sizeof(lib));
		size_t k = jsonc_sample(f, &v[i], jc, sizeof(jc));

		if (n >= 0 && (size_t)n == k && !memcmp(lib, jc, k))
			same++;
		else if (same == i && i < 1)
			fprintf(stderr, "first difference:\n  lib:    %.*s\n  json-c: %.*s\n", n, lib, (int)k, jc);
	}
	printf("samples %zu, JSON %zu bytes\n", nv, bytes);
	printf("pm_json_sample  %8.3f ms  (%.0f ns/sample)\n", best_lib * 1e3, best_lib * 1e9 / (double)(nv ? nv : 1));
	printf("json-c          %8.3f ms  (%.0f ns/sample)\n", best_jc * 1e3, best_jc * 1e9 / (double)(nv ? nv : 1));
	printf("ratio json-c / pm_json_sample: %.2f\n", best_lib > 0 ? best_jc / best_lib : 0.0);
	printf("json-c lines byte-identical to pm_json_sample: %zu of %zu\n", same, nv);
	for (size_t i = 0; i < nv; i++)
		free(v[i].copy);
	free(v);
	pm_file_close(f);
	return 0;
}
