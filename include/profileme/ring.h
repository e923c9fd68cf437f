/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/ring.h
 * @brief Live sampling: opening perf events, the mmap'ed ring buffers, counts.
 *
 * Two layers:
 *   - ::pm_ring reads one perf ring buffer (the kernel's mmap of 1 + 2^n
 *     pages, or any memory laid out the same way, see
 *     pm_ring_new_from_memory()).  Records are handed out in place; a record
 *     that wraps the end of the ring is copied once into a 64 KiB buffer.
 *     Lost data (PERF_RECORD_LOST, LOST_SAMPLES) and throttling are counted.
 *   - ::pm_evlist opens a list of events (from ::pm_attr or event strings) on
 *     a process, on a command the library starts itself, or system-wide per
 *     CPU; maps one ring per CPU (or per thread) with the other events of that
 *     CPU redirected into it; polls; reads counts.
 *
 * Records in the ring are in the host's byte order.  The record parser
 * (profileme/record.h) decodes them.
 *
 * Threading: a handle is used by one thread at a time.  The memory behind a
 * ring is shared with its producer (the kernel, or a test thread) through the
 * documented protocol: acquire load of data_head, release store of data_tail.
 */
#ifndef PROFILEME_RING_H
#define PROFILEME_RING_H

#include <profileme/attr.h>
#include <profileme/common.h>
#include <profileme/record.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The largest perf record (header.size is a u16), rounded up to 8. */
#define PM_RING_MAX_RECORD 65536

/** @brief One ring buffer reader (opaque). */
typedef struct pm_ring pm_ring;

/**
 * @brief Counters of a ring.  Size-versioned: set @c sz before pm_ring_stats().
 */
struct pm_ring_stats {
	size_t sz;                /**< Set by the caller: sizeof(struct pm_ring_stats). */
	uint64_t records;         /**< Records handed out. */
	uint64_t bytes;           /**< Bytes of records handed out. */
	uint64_t samples;         /**< PERF_RECORD_SAMPLE records among them. */
	uint64_t wrapped;         /**< Records that wrapped the ring end (copied). */
	uint64_t lost_records;    /**< PERF_RECORD_LOST records seen. */
	uint64_t lost;            /**< Sum of their `lost` counts (records the kernel dropped). */
	uint64_t lost_samples;    /**< Sum of PERF_RECORD_LOST_SAMPLES counts. */
	uint64_t throttles;       /**< PERF_RECORD_THROTTLE records. */
	uint64_t unthrottles;     /**< PERF_RECORD_UNTHROTTLE records. */
	uint64_t overruns;        /**< Overwrite rings: times the ring had wrapped over unread data. */
};
/** Frozen minimum @c sz of struct pm_ring_stats (0.1: the members up to @c records); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_RING_STATS_SZ_V1 PM_OFFSETOFEND(struct pm_ring_stats, records)

/** @brief Flags of pm_ring_new_from_memory(). */
enum pm_ring_flag {
	PM_RING_OVERWRITE = 1 << 0 /**< A write_backward ring: read newest to oldest, never write the tail. */
};

/**
 * @brief **pm_ring_new_from_memory()** reads a ring that lives in caller memory.
 *
 * @p base points at a perf_event_mmap_page control area (data_head at byte
 * 1024, data_tail at 1032, data_offset at 1040, data_size at 1048) followed by
 * the data area.  When the control area's data_offset / data_size are zero,
 * the data area starts at @p base + @p page_size and is @p data_size bytes.
 * The memory stays the caller's; pm_ring_free() does not free it.
 * @param[out] out    the ring
 * @param base        the control page (8-byte aligned)
 * @param page_size   size of the control page (a power of two, >= 2048)
 * @param data_size   size of the data area: a power of two, at least 4096
 * @param flags       ::pm_ring_flag bits
 * @return 0, -EINVAL (bad sizes or alignment; a forward ring whose data_tail
 *         is not a multiple of 8), -ENOMEM.
 * @since 0.1
 */
PM_API int pm_ring_new_from_memory(pm_ring **out, void *base, size_t page_size, size_t data_size,
				 unsigned flags);

/**
 * @brief **pm_ring_next()** hands out the next record.
 *
 * Forward rings: loads data_head (acquire) when the records read so far are
 * used up.  Overwrite rings: the first call takes a snapshot of data_head and
 * walks from the newest record to the oldest one not yet seen; after the
 * last one it returns 0 and the next call takes a new snapshot.
 *
 * The record (header included, host byte order) stays valid until the next
 * pm_ring_next() or pm_ring_consume() on this ring.  It is 8-byte aligned.
 * @param r          the ring
 * @param[out] rec   the record's bytes
 * @param[out] size  its size (header.size)
 * @return 1 with a record, 0 when the ring is empty, -PM_ERR_CORRUPT when a
 *         record header is impossible (size < 8 or not a multiple of 8,
 *         beyond data_head, or larger than the ring); the ring is then
 *         unusable.
 * @since 0.1
 */
PM_API int pm_ring_next(pm_ring *r, const void **rec, size_t *size);

/**
 * @brief **pm_ring_consume()** gives the records read so far back to the
 *        producer (release store of data_tail).  A no-op on overwrite rings.
 * @since 0.1
 */
PM_API void pm_ring_consume(pm_ring *r);

/** Return of a pm_ring_record_fn: go on with the next record. */
#define PM_DRAIN_CONTINUE 0
/** Return of a pm_ring_record_fn: stop the drain after this record (it
 *  counts as handed out and is consumed); the drain returns its count.
 *  Any positive value means the same. */
#define PM_DRAIN_STOP 1

/**
 * @brief Callback of pm_ring_drain(), pm_evlist_drain() and
 *        pm_evlist_drain_max().
 * @param rec  the record (valid during the call only)
 * @param size its size
 * @param user the caller's pointer
 * @return #PM_DRAIN_CONTINUE (0) to go on; #PM_DRAIN_STOP (any positive
 *         value) to stop: the drain returns the number of records handed
 *         out, this one included (never the callback's value); a negative
 *         error (-errno or -PM_ERR_*) to abort: the drain returns that
 *         value.  In both cases the records handed out are consumed.
 */
typedef int (*pm_ring_record_fn)(const void *rec, size_t size, void *user);

/**
 * @brief **pm_ring_drain()** non-blocking: hands every available record to
 *        @p fn and consumes them.
 * @param r     the ring
 * @param fn    callback
 * @param user  passed to @p fn
 * @param max   stop after this many records (0: no limit)
 * @return the number of records handed out (also when the callback returned
 *         #PM_DRAIN_STOP), the callback's negative value if it aborted, or
 *         -PM_ERR_CORRUPT.
 * @since 0.1
 */
PM_API long pm_ring_drain(pm_ring *r, pm_ring_record_fn fn, void *user, unsigned long max);

/**
 * @brief **pm_ring_stats()** copies the ring's counters.
 * @param r        the ring
 * @param[out] st  counters; set st->sz first
 * @return 0 or -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_ring_stats(const pm_ring *r, struct pm_ring_stats *st);

/** @brief **pm_ring_data_size()**: bytes in the ring's data area. @since 0.1 */
PM_API size_t pm_ring_data_size(const pm_ring *r);

/** @brief **pm_ring_fd()**: the perf fd the ring is mapped from, -1 for attached memory. @since 0.1 */
PM_API int pm_ring_fd(const pm_ring *r);

/** @brief **pm_ring_free()** releases a ring (unmaps it when the library mapped it).  NULL-safe. @since 0.1 */
PM_API void pm_ring_free(pm_ring *r);

/* ------------------------------------------------------------------------ */

/** @brief A list of opened events with their rings (opaque). */
typedef struct pm_evlist pm_evlist;

/** @brief Flags of ::pm_evlist_opts. */
enum pm_evlist_flag {
	PM_EVLIST_SYSTEM_WIDE = 1 << 0, /**< pid -1, one event per CPU (all online CPUs unless @c cpus). */
	PM_EVLIST_INHERIT = 1 << 1,     /**< Children of the target are followed (inherit). */
	PM_EVLIST_OVERWRITE = 1 << 2,   /**< write_backward rings, read newest first (flight recorder). */
	PM_EVLIST_NO_DEFAULTS = 1 << 3, /**< Open the attrs exactly as given (no sample_type/flags added). */
	PM_EVLIST_NO_TRACKING = 1 << 4  /**< Do not ask for COMM/MMAP2/FORK/EXIT records. */
};

/**
 * @brief Options of pm_evlist_new().  Size-versioned: set @c sz.
 */
struct pm_evlist_opts {
	size_t sz;              /**< Set by the caller: sizeof(struct pm_evlist_opts). */
	unsigned flags;         /**< ::pm_evlist_flag bits. */
	int pid;                /**< Target pid/tid (0: the calling process); ignored system-wide. */
	const char *cpus;       /**< CPU list ("0-3,6"); NULL: all online (system-wide/inherit) or any. */
	unsigned mmap_pages;    /**< Data pages per ring, a power of two; 0: 512 KiB worth. */
	uint32_t wakeup_bytes;  /**< poll() wakes when this much is in a ring; 0: a quarter of it. */
};
/** Frozen minimum @c sz of struct pm_evlist_opts (0.1: the whole 0.1 struct); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_EVLIST_OPTS_SZ_V1 PM_OFFSETOFEND(struct pm_evlist_opts, wakeup_bytes)

/**
 * @brief **pm_evlist_new()** creates an empty event list.
 * @param[out] out  the list; free with pm_evlist_free()
 * @param opts      options, or NULL (pid 0, any CPU, defaults)
 * @return 0, -PM_ERR_STRUCT_SIZE, -EINVAL (bad CPU list), -ENOMEM.
 * @since 0.1
 */
PM_API int pm_evlist_new(pm_evlist **out, const struct pm_evlist_opts *opts);

/**
 * @brief **pm_evlist_add()** adds one event.
 *
 * Unless PM_EVLIST_NO_DEFAULTS, sampling events get IP, TID, TIME, CPU,
 * PERIOD and (with more than one event) IDENTIFIER in sample_type,
 * sample_id_all, and the first event the tracking bits (mmap, mmap2, comm,
 * comm_exec, task); every event gets read_format TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING | ID.  An attr with sample_period 0 (and no freq) counts.
 * @param el      the list (not yet opened)
 * @param attr    the attr
 * @param name    a name for messages and the perf.data EVENT_DESC (copied), or NULL
 * @param leader  -1: own group; else the index of an earlier event that leads its group
 * @return the event's index (>= 0), -EINVAL, -EBUSY (already open), -ENOMEM.
 * @since 0.1
 */
PM_API int pm_evlist_add(pm_evlist *el, const struct pm_attr *attr, const char *name, int leader);

/**
 * @brief **pm_evlist_prepare_command()** forks @p argv for profiling: the
 *        child waits (on a pipe) until pm_evlist_start(), then execs; the
 *        events become the child's, enabled on exec.
 *
 * Call before pm_evlist_open().  pm_evlist_free() kills and reaps a child
 * that was never started.
 * @param el    the list
 * @param argv  NULL-terminated argument vector; argv[0] is looked up in PATH
 * @return the child's pid, or -errno.
 * @since 0.1
 */
PM_API int pm_evlist_prepare_command(pm_evlist *el, char *const argv[]);

/**
 * @brief **pm_evlist_open()** opens every event (on every CPU of the target)
 *        and maps the rings.  All fds are close-on-exec; on failure all are
 *        closed and the message in pm_errmsg() explains it.  It creates no
 *        handle: pm_evlist_close() undoes it, pm_evlist_free() releases the list.
 * @return 0 or a negative errno (see pm_attr_open()); -EBUSY when already open;
 *         -ENOMEM; -EPERM from
 *         mmap names kernel.perf_event_mlock_kb.
 * @since 0.1
 */
PM_API int pm_evlist_open(pm_evlist *el);

/**
 * @brief **pm_evlist_start()** enables the events; with a prepared command,
 *        lets it exec (the events are enabled at exec).
 * @return 0, or -errno (e.g. -ENOENT when the command could not be executed).
 * @since 0.1
 */
PM_API int pm_evlist_start(pm_evlist *el);

/** @brief **pm_evlist_enable()** enables every event (ioctl). @since 0.1 */
PM_API int pm_evlist_enable(pm_evlist *el);
/** @brief **pm_evlist_disable()** disables every event (ioctl). @since 0.1 */
PM_API int pm_evlist_disable(pm_evlist *el);

/**
 * @brief **pm_evlist_poll()** waits until a ring has data (its watermark) or
 *        the target is gone.
 * @param el          the list
 * @param timeout_ms  as for poll(2): -1 waits forever
 * @return the number of rings with news (> 0), 0 on timeout, -EPIPE when
 *         every event has hung up (the target exited), or -errno.
 *         -EINTR when a signal arrived.
 * @since 0.1
 */
PM_API int pm_evlist_poll(pm_evlist *el, int timeout_ms);

/**
 * @brief **pm_evlist_drain()** non-blocking: every available record of every
 *        ring to @p fn (ring by ring), consumed after the call.
 * @return the number of records (also when the callback returned
 *         #PM_DRAIN_STOP: the rings after the one it stopped in are left for
 *         the next drain), the callback's negative value, or -PM_ERR_CORRUPT.
 * @since 0.1
 */
PM_API long pm_evlist_drain(pm_evlist *el, pm_ring_record_fn fn, void *user);

/**
 * @brief **pm_evlist_drain_max()** pm_evlist_drain() with a limit and a
 *        stop report.
 * @param el           the opened list
 * @param fn           callback (see pm_ring_record_fn for its returns)
 * @param user         passed to @p fn
 * @param max          stop after this many records over all rings (0: no limit)
 * @param[out] stopped set to 1 if the callback returned #PM_DRAIN_STOP, else
 *                     0 (may be NULL)
 * @return the number of records handed out, the callback's negative value,
 *         or -PM_ERR_CORRUPT.
 * @since 0.1
 */
PM_API long pm_evlist_drain_max(pm_evlist *el, pm_ring_record_fn fn, void *user,
				unsigned long max, int *stopped);

/** Flag of pm_evlist_drain_ordered(): hold nothing back, hand out every
 *  record the rings hold (the last drain: after pm_evlist_disable(), or
 *  once the target is gone). */
#define PM_DRAIN_FLUSH 1u

/**
 * @brief **pm_evlist_drain_ordered()** non-blocking: the records of every
 *        ring merged into one stream by time, consumed after the call.
 *
 * Each ring is in time order already (one CPU writes it); this merges the
 * rings, so a consumer that symbolizes (a COMM or MMAP on one CPU before a
 * sample on another) needs no copy and no sort of its own.
 *
 * Which records go out: the records whose time is at most the latest time
 * the previous ordered drain saw in any ring (perf's rule for rounds).  A
 * later record stays in its ring (not consumed, not copied) for the next
 * call, because another CPU may still write an earlier one; so the first
 * call hands out nothing and only looks, unless @p flags has
 * #PM_DRAIN_FLUSH, which hands out everything (use it for the last drain).
 * The stream is in time order across calls as long as the kernel writes a
 * record into its ring within one drain interval of its time, perf's own
 * assumption.
 *
 * Records without a time (the attr has no PERF_SAMPLE_TIME; a non-sample
 * record without sample_id_all, both possible with #PM_EVLIST_NO_DEFAULTS;
 * a record whose event cannot be told, see pm_evlist_event_of()) keep their
 * place in their ring: each goes right after the record before it there,
 * whose time it takes (0 at the start of the ring).  Equal times go ring by
 * ring (lower index first); within a ring the ring's order is kept.
 *
 * Memory: no record is copied and nothing is allocated per record (one
 * scratch entry per ring, once); the records held back occupy their ring,
 * so a ring holds about two drain intervals of records instead of one:
 * if LOST records appear, drain more often or give more mmap_pages.
 *
 * The stop convention is pm_evlist_drain()'s (see pm_ring_record_fn): a
 * #PM_DRAIN_STOP returns the count, this record included; the records not
 * handed out stay for the next call, still in order.  Mixing with
 * pm_evlist_drain() is allowed (it hands out held records ring by ring).
 * @param el           the opened list (not #PM_EVLIST_OVERWRITE: those rings
 *                     are read newest first)
 * @param fn           callback
 * @param user         passed to @p fn
 * @param max          stop after this many records (0: no limit)
 * @param flags        0 or #PM_DRAIN_FLUSH
 * @param[out] stopped 1 if the callback returned #PM_DRAIN_STOP, else 0 (may be NULL)
 * @return the number of records handed out, the callback's negative value,
 *         -EINVAL (NULL, not open, an overwrite list, unknown flags),
 *         -ENOMEM, or -PM_ERR_CORRUPT.
 * @since 0.1
 */
PM_API long pm_evlist_drain_ordered(pm_evlist *el, pm_ring_record_fn fn, void *user,
				    unsigned long max, unsigned flags, int *stopped);

/**
 * @brief **pm_evlist_wait_child()** checks on the prepared command.
 * @param el           the list
 * @param[out] status  its wait status (optional)
 * @param block        non-zero: wait for it to exit
 * @return 1 when it exited (reaped), 0 when still running, -ECHILD without one.
 * @since 0.1
 */
PM_API int pm_evlist_wait_child(pm_evlist *el, int *status, int block);

/** @brief **pm_evlist_child_pid()**: the prepared command's pid, or the target pid, or -1 system-wide. @since 0.1 */
PM_API int pm_evlist_child_pid(const pm_evlist *el);

/** @brief **pm_evlist_count()**: number of events. @since 0.1 */
PM_API size_t pm_evlist_count(const pm_evlist *el);

/**
 * @brief **pm_evlist_attr()** the attr as opened (after defaults).
 * @return 0 or -EINVAL (bad index).
 * @since 0.1
 */
PM_API int pm_evlist_attr(const pm_evlist *el, size_t idx, struct pm_attr *attr);

/** @brief **pm_evlist_name()**: the event's name ("" when none given). @since 0.1 */
PM_API const char *pm_evlist_name(const pm_evlist *el, size_t idx);

/**
 * @brief **pm_evlist_ids()** the kernel ids of the event's fds (one per CPU/thread).
 * @param el    the opened list
 * @param idx   event index
 * @param[out] ids  destination, may be NULL to ask the number
 * @param cap   entries at @p ids
 * @return the number of ids (may exceed @p cap), or -EINVAL.
 * @since 0.1
 */
PM_API long pm_evlist_ids(const pm_evlist *el, size_t idx, uint64_t *ids, size_t cap);

/**
 * @brief **pm_evlist_attr_of_id()** finds the event that owns a kernel
 *        sample id (as pm_file_attr_of_id() does for a file).
 * @param el  the opened list
 * @param id  an id from a record (PM_SAMPLE_ID / PM_SAMPLE_IDENTIFIER)
 * @return the event index; -ENOENT if no fd of the list has that id;
 *         -EINVAL (NULL, or the list is not open).
 * @since 0.1
 */
PM_API int pm_evlist_attr_of_id(const pm_evlist *el, uint64_t id);

/**
 * @brief **pm_evlist_event_of()** gives the event index of a ring record.
 * @param el   the opened list
 * @param rec  the whole record, as pm_ring_next() or a drain callback gives it
 * @param len  bytes at @p rec
 * @return the event index (0 when the list has one event); -ENOENT if the
 *         record carries no id (with several events and
 *         #PM_EVLIST_NO_DEFAULTS, set PM_SAMPLE_IDENTIFIER yourself) or no
 *         event has it; -PM_ERR_TRUNCATED / -PM_ERR_CORRUPT on bad sizes;
 *         -EINVAL.
 * @since 0.1
 */
PM_API int pm_evlist_event_of(const pm_evlist *el, const void *rec, size_t len);

/**
 * @brief **pm_evlist_sample()** decodes a PERF_RECORD_SAMPLE from the list's
 *        rings with the sample layout of the attr the library opened (the
 *        defaults of pm_evlist_open() change sample_type, so a layout of the
 *        attr given to pm_evlist_add() does not fit), in host byte order.
 * @param el        the opened list
 * @param rec       the whole record, as pm_ring_next() or a drain callback gives it
 * @param len       bytes at @p rec
 * @param[out] out  the sample (`out->sz` set by the caller); its pointers
 *                  point into @p rec and share its lifetime (in a drain
 *                  callback: until the callback returns)
 * @return 0; -EINVAL (NULL, not open, or not a SAMPLE); -ENOENT (no event
 *         matches, see pm_evlist_event_of()); -PM_ERR_UNSUPPORTED (the
 *         event's layout is unknowable); -PM_ERR_STRUCT_SIZE;
 *         -PM_ERR_CORRUPT / -PM_ERR_TRUNCATED from pm_sample_parse(), with
 *         the event name and the offset in the message.
 * @since 0.1
 */
PM_API int pm_evlist_sample(const pm_evlist *el, const void *rec, size_t len,
			    struct pm_sample *out);

/** @brief **pm_evlist_nr_rings()**: number of mapped rings. @since 0.1 */
PM_API size_t pm_evlist_nr_rings(const pm_evlist *el);
/** @brief **pm_evlist_ring()**: ring @p i (borrowed), or NULL. @since 0.1 */
PM_API pm_ring *pm_evlist_ring(pm_evlist *el, size_t i);

/**
 * @brief **pm_evlist_stats()** sums pm_ring_stats() over all rings.
 * @return 0 or -PM_ERR_STRUCT_SIZE.
 * @since 0.1
 */
PM_API int pm_evlist_stats(const pm_evlist *el, struct pm_ring_stats *st);

/**
 * @brief A count read from an event.  Size-versioned: set @c sz.
 */
struct pm_count {
	size_t sz;          /**< Set by the caller: sizeof(struct pm_count). */
	uint64_t value;     /**< Raw count, summed over CPUs/threads. */
	uint64_t enabled;   /**< Time enabled (ns), summed. */
	uint64_t running;   /**< Time running on the PMU (ns), summed. */
	uint64_t id;        /**< The kernel id of the first fd. */
	double scaled;      /**< value * enabled / running (multiplexing estimate); 0 if never ran. */
	int multiplexed;    /**< 1 if running < enabled (by more than 1%), -1 if it never ran, else 0. */
};
/** Frozen minimum @c sz of struct pm_count (0.1: the members up to @c id); accepted by
 *  every later release.  See PM_OFFSETOFEND(). */
#define PM_COUNT_SZ_V1 PM_OFFSETOFEND(struct pm_count, id)

/**
 * @brief **pm_evlist_read_count()** read()s an event's fds and decodes the
 *        values by its read_format (non-group layout), summed over fds.
 * @param el      the opened list
 * @param idx     event index
 * @param[out] c  the count; set c->sz first
 * @return 0, -EINVAL, -PM_ERR_STRUCT_SIZE, or -errno from read().
 * @since 0.1
 */
PM_API int pm_evlist_read_count(const pm_evlist *el, size_t idx, struct pm_count *c);

/**
 * @brief **pm_evlist_close()** closes what pm_evlist_open() opened: every
 *        event's fds and the rings (rings and records from them are invalid
 *        afterwards).  The list, its events and a prepared command stay, so
 *        pm_evlist_open() may be called again; pm_evlist_free() still
 *        releases the list.  NULL-safe; a list that is not open is left as is.
 * @since 0.1
 */
PM_API void pm_evlist_close(pm_evlist *el);

/**
 * @brief **pm_evlist_free()** releases a list from pm_evlist_new(): closes
 *        its events as pm_evlist_close() does, kills and reaps a command
 *        that was prepared but not started, and frees the list.  NULL-safe.
 * @since 0.1
 */
PM_API void pm_evlist_free(pm_evlist *el);

#ifdef __cplusplus
}
#endif

#endif /* PROFILEME_RING_H */
