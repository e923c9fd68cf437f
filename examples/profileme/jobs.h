/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * -j N of the reading commands (script, report): one recording cut into
 * chunks by the library's chunk index (pm_chunk_index_new_from_file(),
 * docs/file.md "Chunks"), each chunk handled by one of N worker threads
 * into a result slot of its own, the results handed back to the calling
 * thread in chunk order (at most 2N chunks in flight: bounded memory).
 * Not part of the library.
 *
 * Two ways to read a chunk:
 * - CLI_JOBS_CHUNKS: each chunk on its own pm_file restricted to it with
 *   pm_file_select_chunk(): the chunk's samples (those of its time window)
 *   and, as context only, the other records of its bytes (they repeat from
 *   chunk to chunk).  For work that needs nothing from before the chunk
 *   (no thread names, no symbols: the library keeps no snapshot of them).
 * - CLI_JOBS_STREAM: each worker reads the whole record stream of the file
 *   (as -j 1 reads it) on a pm_file of its own and keeps its state (names,
 *   maps) over every record; the stream is cut into segments, one per
 *   chunk: segment k starts at the first sample of the stream, after the
 *   start of segment k-1, that lies in chunk k (its time reaches the chunk's
 *   time_lo; an untimed chunk: its offset reaches the chunk's start).  A
 *   worker hands out the records before its chunk's segment as not owned
 *   (state only) and those of the segment as owned, so the segments
 *   concatenated are exactly the stream of -j 1, in any file, and every
 *   record is owned once.  The reading is repeated by every worker; the
 *   work on the owned records (formatting, lookups) is divided.
 * A file the index makes one chunk (a pipe, zstd-compressed, mixed timed
 * and untimed samples, a small file) is not run: cli_jobs_run() returns 1
 * and the caller reads it as with -j 1.
 */
#ifndef PM_CLI_JOBS_H
#define PM_CLI_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <profileme/profileme.h>

enum { CLI_JOBS_CHUNKS = 0, CLI_JOBS_STREAM = 1 };

/* Default chunk size of -j (bytes of data): small enough that a chunk's
 * output is a buffer of a few MB, large enough that a thread's start and
 * a chunk reader's open are nothing beside it. */
#define CLI_JOBS_CHUNK_BYTES (2u << 20)

/* One chunk being read by one worker (passed to run()). */
struct cli_jobs_chunk;

struct cli_jobs {
	const char *cmd;                  /* for messages */
	const char *path;                 /* the recording, opened again by each reader */
	pm_file *f;                       /* the caller's handle of it (the index scans it; not moved) */
	const struct pm_file_opts *fopts; /* how each reader opens it (NULL: defaults) */
	int jobs;                         /* worker threads, >= 1 */
	int mode;                         /* CLI_JOBS_CHUNKS or CLI_JOBS_STREAM */
	uint64_t chunk_bytes;             /* 0: $PROFILEME_JOBS_CHUNK_BYTES (tests), else CLI_JOBS_CHUNK_BYTES */
	void *user;
	/* In each worker thread, once, before its first chunk: its state (*ws).
	 * g is the worker's stream reader (CLI_JOBS_STREAM) or NULL.  Nonzero
	 * stops the run with that value. */
	int (*worker_init)(void *user, pm_file *g, void **ws);
	void (*worker_fini)(void *user, void *ws);
	/* In a worker thread: chunk c (cli_jobs_next() gives its records) into
	 * *result; its return value is handed to done(). */
	int (*run)(void *user, void *ws, struct cli_jobs_chunk *c, void **result);
	/* In the calling thread, in chunk order, once per chunk: its result and
	 * run()'s return value; free the result here.  Nonzero stops the run
	 * (the chunks after it are not handed out; their results are given to
	 * discard()). */
	int (*done)(void *user, size_t k, void *result, int rc);
	void (*discard)(void *user, void *result);
};

/* Runs the chunks ($PROFILEME_JOBS_VERBOSE=1: says how many, on stderr, for
 * tests).  0: every chunk was handed to done(); 1: the file is
 * one chunk (nothing was run: read it as with -j 1); a positive value
 * other than 1 from done() or worker_init() that stopped the run; -errno
 * when the index or the threads could not be made (said on stderr).  The
 * number of chunks is in *nchunks when not NULL. */
int cli_jobs_run(struct cli_jobs *j, size_t *nchunks);

/* The next record of the chunk: 1 (in *rec; *owned: a record of this
 * chunk, else one before it, for state only), 0 at the chunk's end, or a
 * reading error (< 0, as pm_file_next(); pm_errmsg() says it) met in the
 * chunk's own records.  An error met before the chunk's records belongs
 * to an earlier chunk: this chunk then has no records (0). */
int cli_jobs_next(struct cli_jobs_chunk *c, struct pm_file_record *rec, bool *owned);
/* The reader the records come from (for pm_file_sample(), ...). */
pm_file *cli_jobs_file(const struct cli_jobs_chunk *c);
/* The chunk's index and its description in the library's index. */
size_t cli_jobs_index(const struct cli_jobs_chunk *c);
const struct pm_file_chunk *cli_jobs_desc(const struct cli_jobs_chunk *c);
/* The last chunk of the file? */
bool cli_jobs_last(const struct cli_jobs_chunk *c);

#endif
