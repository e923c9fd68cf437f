/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/writer.h
 * @brief Writing perf.data files (file mode and pipe mode) that the real
 *        `perf script` / `perf report` and profileme's own reader open.
 *
 * Sequence: pm_writer_open() → pm_writer_add_attr() (or
 * pm_writer_add_evlist()) for every event → optional pm_writer_set_cmdline()
 * → pm_writer_begin() → pm_writer_synthesize() for a running target →
 * pm_writer_write() for every record (as read from the ring) and
 * pm_writer_finished_round() after each drain → pm_writer_finish() →
 * pm_writer_close().
 *
 * File mode: the header is written at begin with data.size 0 and rewritten
 * (data.size = bytes flushed so far) every time the buffer is flushed, so a
 * writer that is killed leaves a file readable up to its last flush; the
 * features (TRACING_DATA when a PERF_TYPE_TRACEPOINT event is recorded,
 * HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CMDLINE, EVENT_DESC,
 * PMU_MAPPINGS) are appended after the data at finish.  TRACING_DATA holds
 * tracefs's header_page, header_event, the format of each recorded
 * tracepoint (found by the event's `sys:event` name, else by its id) and
 * printk_formats, which `perf script` needs to decode the raw records; it
 * is read from tracefs at finish, so record on the machine that ran.  Attrs
 * are written at 128 bytes (PERF_ATTR_SIZE_VER7, which perf 6.1 still reads)
 * unless an attr uses config3.  Records are written in the host byte order.
 *
 * Pipe mode: a 16-byte header, PERF_RECORD_HEADER_ATTR records, the string
 * features as HEADER_FEATURE records, then the records.  No tracing data is
 * written in pipe mode (perf cannot decode tracepoint fields of such a stream).
 *
 * **Experimental tier** (profileme/experimental.h): the perf.data writer is
 * #PM_EXPERIMENTAL, exported in the node PROFILEME_EXPERIMENTAL_0.1, and
 * may change in any minor release.
 */
#ifndef PROFILEME_WRITER_H
#define PROFILEME_WRITER_H

#include <profileme/attr.h>
#include <profileme/common.h>
#include <profileme/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A perf.data writer (opaque). */
typedef struct pm_writer pm_writer;

/** @brief Flags of ::pm_writer_opts. */
enum pm_writer_flag {
	PM_WRITER_PIPE = 1 << 0,       /**< Pipe mode (implied for a non-seekable fd and for "-"). */
	PM_WRITER_NO_FEATURES = 1 << 1 /**< Write no feature sections. */
};

/** @brief Options of pm_writer_open().  Size-versioned: set @c sz. */
struct pm_writer_opts {
	size_t sz;           /**< Set by the caller: sizeof(struct pm_writer_opts). */
	unsigned flags;      /**< ::pm_writer_flag bits. */
	size_t buffer_bytes; /**< Output buffer (and header update interval); 0: 256 KiB. */
	/** tracefs root whose formats describe tracepoint events in the
	 *  TRACING_DATA feature; NULL: $PROFILEME_TRACEFS, else
	 *  /sys/kernel/tracing or /sys/kernel/debug/tracing.  Callers built
	 *  before this field pass a smaller @c sz and get the default. @since 0.1 */
	const char *tracefs;
};
/** Frozen minimum @c sz of struct pm_writer_opts (0.1: the members up to @c buffer_bytes); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_WRITER_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_writer_opts, buffer_bytes)

/**
 * @brief **pm_writer_open()** creates a perf.data file.
 * @param[out] out  the writer
 * @param path      file to create (mode 0600, truncated); "-" writes a pipe-mode stream to stdout
 * @param opts      options or NULL
 * @return 0, -errno from open(), -PM_ERR_STRUCT_SIZE, -ENOMEM.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_open(pm_writer **out, const char *path, const struct pm_writer_opts *opts);

/**
 * @brief **pm_writer_open_fd()** writes to an open fd (not closed by the
 *        writer).  A fd that cannot seek gets pipe mode.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_open_fd(pm_writer **out, int fd, const struct pm_writer_opts *opts);

/**
 * @brief **pm_writer_add_attr()** adds an event: its attr, its name (for
 *        EVENT_DESC) and the kernel ids its records carry.
 * @param w       the writer (before pm_writer_begin())
 * @param attr    the attr as opened
 * @param name    event name, or NULL
 * @param ids     ids (may be NULL when @p nr_ids is 0)
 * @param nr_ids  number of ids
 * @return 0, -EINVAL, -EBUSY (after begin), -ENOMEM.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_add_attr(pm_writer *w, const struct pm_attr *attr, const char *name,
			      const uint64_t *ids, size_t nr_ids);

/**
 * @brief **pm_writer_add_evlist()** adds every event of an opened list with
 *        its ids and names.
 * @return 0 or as pm_writer_add_attr().
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_add_evlist(pm_writer *w, const pm_evlist *el);

/**
 * @brief **pm_writer_set_cmdline()** the command line for the CMDLINE feature.
 * @return 0 or -ENOMEM.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_set_cmdline(pm_writer *w, int argc, char *const argv[]);

/**
 * @brief **pm_writer_begin()** writes the header and the attrs.
 * @return 0, -EINVAL (no attrs), or -errno of the write.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_begin(pm_writer *w);

/**
 * @brief **pm_writer_write()** appends one record (header included, host
 *        byte order, as handed out by pm_ring_next()).
 * @return 0, -EINVAL (size < 8, or not matching its header), or -errno.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_write(pm_writer *w, const void *rec, size_t size);

/**
 * @brief **pm_writer_ring_cb()** a ::pm_ring_record_fn that writes each record
 *        to the pm_writer passed as @p user (for pm_evlist_drain()).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_ring_cb(const void *rec, size_t size, void *user);

/**
 * @brief **pm_writer_finished_round()** appends PERF_RECORD_FINISHED_ROUND
 *        (records before it may be sorted by time without waiting for later ones).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_finished_round(pm_writer *w);

/**
 * @brief **pm_writer_synthesize()** appends COMM records for each thread and
 *        MMAP2 records for the executable mappings of a running process (from
 *        /proc/PID/task and /proc/PID/maps), as perf does at start.
 * @param w    the writer (after begin)
 * @param pid  the process; all its threads are described
 * @return the number of records written, or -errno (-ESRCH: no such process).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_synthesize(pm_writer *w, int pid);

/**
 * @brief **pm_writer_sync()** flushes the buffer and (file mode) rewrites
 *        the header with the data size written so far.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_sync(pm_writer *w);

/**
 * @brief **pm_writer_finish()** flushes, appends the features and rewrites
 *        the header.  The writer accepts no more records.
 * @return 0 or the first error met while writing (-errno).
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API int pm_writer_finish(pm_writer *w);

/**
 * @brief **pm_writer_counts()** what was written so far.
 * @param w              the writer
 * @param[out] records   records written (optional)
 * @param[out] samples   PERF_RECORD_SAMPLE records among them (optional)
 * @param[out] bytes     bytes of records (optional)
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API void pm_writer_counts(const pm_writer *w, uint64_t *records, uint64_t *samples,
			     uint64_t *bytes);

/**
 * @brief **pm_writer_close()** finishes (when begun and not finished, errors
 *        ignored), closes the file it opened and frees the writer.  NULL-safe.
 * @since 0.1
 */
PM_EXPERIMENTAL PM_API void pm_writer_close(pm_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_WRITER_H */
