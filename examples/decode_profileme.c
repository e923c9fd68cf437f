/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * decode_profileme: a trap histogram of the ProfileMe samples in a perf.data.
 *
 *   decode_profileme [FILE]   (default: the bundled SYNTHETIC recording,
 *                              examples/data/profileme-synthetic.data)
 *
 * One workflow with the raw API: read the samples with pm_file, decode each
 * PERF_SAMPLE_RAW payload with pm_profileme_decode(), and count the samples
 * per trap (pm_profileme_trap_name()), with the mispredicted and killed
 * ones and the payloads that are not ProfileMe samples.  The bundled
 * recording is synthetic (no Alpha produced it), and the output says so.
 * Exit status: 0, 1 on an unreadable or damaged file.
 */
#include <stdio.h>
#include <string.h>

#include <profileme/profileme.h>

#ifndef PM_EXAMPLE_DATA
#define PM_EXAMPLE_DATA "examples/data/profileme-synthetic.data"
#endif

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : PM_EXAMPLE_DATA;
	struct pm_file_record rec = { .sz = sizeof(rec) };
	unsigned long long trap[PM_PROFILEME_TRAP_COUNT];
	unsigned long long samples = 0, decoded = 0, not_pm = 0, no_raw = 0;
	unsigned long long mispredicted = 0, killed = 0;
	pm_file *f = NULL;
	int rc, ret = 1;

	memset(trap, 0, sizeof(trap));
	rc = pm_file_open(&f, path, NULL);
	if (rc)
		goto fail;
	while ((rc = pm_file_next(f, &rec)) == 1) {
		struct pm_sample s = { .sz = sizeof(s) };
		struct pm_profileme_sample p = { .sz = sizeof(p) };

		if (rec.type != PM_RECORD_SAMPLE || pm_file_sample(f, &rec, &s))
			continue;
		samples++;
		if (!s.raw.data || !s.raw.size) {
			no_raw++;
			continue;
		}
		if (pm_profileme_decode(s.raw.data, s.raw.size, &p)) {
			not_pm++; /* pm_errmsg() says why: too short, version 0 */
			continue;
		}
		decoded++;
		if (p.trap >= 0 && p.trap < PM_PROFILEME_TRAP_COUNT)
			trap[p.trap]++;
		mispredicted += p.mispredicted != 0;
		killed += p.killed != 0;
	}
	if (rc < 0)
		goto fail;

	if (strstr(path, "synthetic"))
		printf("SYNTHETIC data (generated, not recorded on an Alpha): %s\n", path);
	printf("%llu samples: %llu ProfileMe, %llu not ProfileMe, %llu without raw data\n",
	       samples, decoded, not_pm, no_raw);
	printf("mispredicted %llu, killed %llu\n", mispredicted, killed);
	printf("trap histogram:\n");
	for (int t = 0; t < PM_PROFILEME_TRAP_COUNT; t++)
		if (trap[t])
			printf("  %-28s %6llu\n", pm_profileme_trap_name(t), trap[t]);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "decode_profileme: %s: %s\n", path, pm_error_string(rc));
out:
	pm_file_close(f);
	return ret;
}
