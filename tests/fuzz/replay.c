/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A main() for the fuzz harnesses without libFuzzer: feeds every file named
 * on the command line (directories: every regular file in them, sorted) to
 * LLVMFuzzerTestOneInput() once.  Exit status 0 when all ran; a crash is a
 * crash.  Used by the fuzz.replay.* ctests in every build (gcc, sanitizers,
 * valgrind, the alpha and s390x cross builds).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		abort();
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		return -1;
	}
	/* An exact-size copy, so reads past the input are caught (ASan, valgrind). */
	uint8_t *in = malloc(len ? len : 1);
	if (!in)
		abort();
	if (len)
		memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names)
			abort();
		size_t l = strlen(path) + strlen(e->d_name) + 2;
		names[n] = malloc(l);
		if (!names[n])
			abort();
		snprintf(names[n], l, "%s/%s", path, e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			(*count)++;
			if (run_file(names[i]) != 0)
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i], &count) != 0)
			rc = 1;
	printf("replay: %u inputs, %s\n", count, rc ? "with errors" : "no crash");
	return rc;
}
