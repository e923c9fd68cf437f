/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: the chunk index scan (pm_chunk_index_new_from_file(),
 * lib/file/chunks.c) and pm_file_select_chunk().
 *
 * Input: byte 0 = flags, the rest is a file-mode perf.data.
 *   bits 0-2: chunk_bytes = 256 << (2 * bits) (256 B .. 4 MiB)
 *   bits 3-4: threads of the parallel scan = 2 + bits (2 .. 5)
 *   bit 5:    read every chunk back and check the windows (see below)
 * The index is made three ways: the reader's scan (the reference), the scan
 * of its own read windows in one piece, and in `threads` pieces of at least
 * 64 bytes (so that the pieces guess record starts inside small inputs and
 * the merge has to confirm or reject them).  The three must agree: the same
 * error, or the same chunks and the same sideband (the side records,
 * pm_chunk_index_sideband(); the windows-only scan may decline a record it
 * does not step over: -EAGAIN).  The chunks must tile the data, their time
 * windows follow each other; with bit 5 every chunk is read through its own
 * pm_file and each of its samples must lie in its window, and the samples
 * of all chunks must be those of the whole file (as a multiset of (offset,
 * time)).  One file descriptor and the arrays are reused from one input to
 * the next.
 */
#include <errno.h>
#include <unistd.h>

#include <profileme/file.h>
#include <profileme/record.h>

#include "file/chunks_int.h"
#include "fuzz_common.h"

#define MAXS 20000
static int fd = -1;
static struct pm_file_chunk ref[4096], got[4096];
static uint64_t whole[MAXS][2], parts[MAXS][2];
/* the sideband of the last index_of() (ref: of the reader's scan) */
static uint8_t *sb_ref, *sb_got;
static size_t sb_ref_len, sb_got_len;

static void put_file(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		FILE *t = tmpfile();

		if (!t || (fd = dup(fileno(t))) < 0)
			abort();
		fclose(t);
	}
	if (ftruncate(fd, 0) != 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
}

/* The index made one way: its return code; its chunks into out (n). */
static int index_of(int how, int threads, uint64_t chunk_bytes, struct pm_file_chunk *out, size_t *n)
{
	struct pm_chunk_index_opts o = { .sz = sizeof(o), .chunk_bytes = chunk_bytes, .threads = threads };
	pm_chunk_index *idx = NULL;
	pm_file *f = NULL;
	int rc;

	*n = 0;
	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	rc = pm_file_open_fd(&f, fd, NULL);
	if (rc)
		return 1; /* not a file to index */
	rc = pm__chunk_index_new(&idx, f, &o, how, 64);
	if (!rc) {
		size_t k = pm_chunk_index_count(idx);

		PM_FUZZ_ASSERT(k >= 1);
		for (size_t i = 0; i < k && i < 4096; i++) {
			out[i].sz = sizeof(out[i]);
			PM_FUZZ_ASSERT(pm_chunk_index_get(idx, i, &out[i]) == 0);
		}
		*n = k < 4096 ? k : 4096;
		PM_FUZZ_ASSERT(pm_chunk_index_get(idx, k, &out[0]) == -ENOENT || k >= 4096);
		{
			const void *sb = NULL;
			size_t len = 0;
			uint8_t **keep = how == PMC_SCAN_READER ? &sb_ref : &sb_got;
			size_t *keep_len = how == PMC_SCAN_READER ? &sb_ref_len : &sb_got_len;
			int src = pm_chunk_index_sideband(idx, &sb, &len);

			PM_FUZZ_ASSERT(src == 0 || (src == -ENOENT && k == 1));
			free(*keep);
			*keep = NULL;
			*keep_len = 0;
			if (!src) {
				PM_FUZZ_ASSERT(len >= 32 && !memcmp(sb, "PMSB", 4));
				*keep = malloc(len);
				if (!*keep)
					abort();
				memcpy(*keep, sb, len);
				*keep_len = len;
			}
		}
		if (k < 4096)
			PM_FUZZ_ASSERT(pm_chunk_index_get(idx, 0, &out[0]) == 0);
	}
	pm_chunk_index_free(idx);
	pm_file_close(f);
	return rc;
}

static int cmp2(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0);
}

/* The samples (offset, time) of the whole file or of chunk c: their count,
 * or -1 when reading failed. */
static long samples_of(const struct pm_file_chunk *c, uint64_t (*out)[2], size_t cap)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	pm_file *f = NULL;
	long n = 0;
	int rc;

	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (pm_file_open_fd(&f, fd, NULL))
		return -1;
	if (c && pm_file_select_chunk(f, c)) {
		pm_file_close(f);
		return -1;
	}
	while ((rc = pm_file_next(f, &rec)) > 0) {
		if (rec.type != PM_RECORD_SAMPLE)
			continue;
		if ((size_t)n == cap) {
			rc = -1;
			break;
		}
		out[n][0] = rec.offset;
		out[n][1] = rec.time;
		n++;
		if (c && (c->flags & PM_CHUNK_TIME_WINDOW))
			PM_FUZZ_ASSERT(rec.time >= c->time_lo && rec.time < c->time_hi);
		if (c)
			PM_FUZZ_ASSERT(rec.offset >= c->read_start && rec.offset < c->end);
	}
	pm_file_close(f);
	return rc < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nref = 0, ngot = 0;
	uint64_t chunk_bytes;
	int threads, rref, rgot;

	if (size < 1)
		return 0;
	chunk_bytes = 256ull << (2 * (data[0] & 7));
	threads = 2 + ((data[0] >> 3) & 3);
	put_file(data + 1, size - 1);

	rref = index_of(PMC_SCAN_READER, 1, chunk_bytes, ref, &nref);
	if (rref == 1)
		return 0;
	for (int t = 1; t <= threads; t += threads - 1) {
		rgot = index_of(PMC_SCAN_WINDOWS, t, chunk_bytes, got, &ngot);
		if (rgot == -EAGAIN)
			break; /* a record only the reader steps over */
		PM_FUZZ_ASSERT(rgot == rref);
		PM_FUZZ_ASSERT(ngot == nref);
		PM_FUZZ_ASSERT(!nref || !memcmp(got, ref, nref * sizeof(ref[0])));
		PM_FUZZ_ASSERT(sb_got_len == sb_ref_len && (!sb_ref_len || !memcmp(sb_got, sb_ref, sb_ref_len)));
		if (t == threads)
			break;
	}
	rgot = index_of(PMC_SCAN_AUTO, threads, chunk_bytes, got, &ngot);
	PM_FUZZ_ASSERT(rgot == rref && ngot == nref);
	PM_FUZZ_ASSERT(!nref || !memcmp(got, ref, nref * sizeof(ref[0])));
	PM_FUZZ_ASSERT(rref || (sb_got_len == sb_ref_len && (!sb_ref_len || !memcmp(sb_got, sb_ref, sb_ref_len))));
	if (rref)
		return 0;

	/* the chunks tile the data; windows follow each other */
	PM_FUZZ_ASSERT(ref[0].start == ref[0].data_offset && ref[nref - 1].end == ref[0].data_end);
	for (size_t i = 0; i < nref; i++) {
		PM_FUZZ_ASSERT(ref[i].index == i && ref[i].read_start <= ref[i].start &&
			       ref[i].start <= ref[i].end);
		if (i + 1 < nref) {
			PM_FUZZ_ASSERT(ref[i].end == ref[i + 1].start);
			if (ref[i].flags & PM_CHUNK_TIME_WINDOW)
				PM_FUZZ_ASSERT(ref[i].time_hi == ref[i + 1].time_lo &&
					       ref[i].time_lo < ref[i].time_hi);
		}
	}
	if (!(data[0] & 32) || nref > 64)
		return 0;
	{
		long nw = samples_of(NULL, whole, MAXS), np = 0;

		if (nw < 0)
			return 0;
		for (size_t i = 0; i < nref; i++) {
			long k = samples_of(&ref[i], parts + np, MAXS - (size_t)np);

			/* the chunk's bytes were read by the whole file's reading */
			PM_FUZZ_ASSERT(k >= 0);
			np += k;
		}
		PM_FUZZ_ASSERT(np == nw);
		qsort(whole, (size_t)nw, sizeof(whole[0]), cmp2);
		qsort(parts, (size_t)np, sizeof(parts[0]), cmp2);
		PM_FUZZ_ASSERT(!nw || !memcmp(whole, parts, (size_t)nw * sizeof(whole[0])));
	}
	return 0;
}
