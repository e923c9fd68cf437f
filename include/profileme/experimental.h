/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/experimental.h
 * @brief The experimental tier: what is not settled for 0.1.
 *
 * libprofileme has two tiers (docs/api-stability.md):
 *
 * - **stable**: every declaration without a marker.  Its symbols are in the
 *   release node `PROFILEME_0.1` and keep the promise of
 *   docs/api-stability.md for as long as the SONAME stays the same.
 * - **experimental**: declarations marked #PM_EXPERIMENTAL.  Their symbols
 *   are in the node `PROFILEME_EXPERIMENTAL_0.1`, and they may change or go
 *   in any minor release.  A program built against one of them and run with
 *   a library where it changed fails to load ("version
 *   PROFILEME_EXPERIMENTAL_0.1 not found") and never calls a function whose
 *   meaning moved.  A settled function moves to the newest release node
 *   under the same name.
 *
 * The experimental tier of 0.1:
 *
 * | header | what | why it is not settled |
 * |---|---|---|
 * | profileme/writer.h | `pm_writer_*`: the perf.data writer | its options and the features it writes may still change |
 * | profileme/export.h | `pm_columns_*`: the bulk column reader, of files and of live event lists | new in 0.1: the live reader's order (ring by ring, not merged by time) and its tee may still change |
 * | profileme/file.h | `pm_file_is_synthetic()`: the recording says it is synthetic | new late in 0.1: what makes a recording "synthetic" may become a feature of its own |
 * | profileme/symbol.h | `pm_sym_kallsyms_path()`: which kernel symbol file a symbolizer reads | new late in 0.1 (for the synthetic recordings' sidecar); a general "what did the symbolizer use" call may replace it |
 * | profileme/export.h | `pm_json_*`: samples, records and report rows as JSON | the object layout follows `script --json`, which may still gain keys (tracepoint objects, symbols) |
 *
 * The declarations stay in their module's header, where users look for
 * them.  This header includes those headers, so that a program can include
 * it to say that it uses the experimental tier on purpose.
 * profileme/profileme.h includes both tiers.
 */
#ifndef PROFILEME_EXPERIMENTAL_H
#define PROFILEME_EXPERIMENTAL_H

#include <profileme/common.h>
#include <profileme/writer.h>
#include <profileme/symbol.h>
#include <profileme/export.h>

#endif /* PROFILEME_EXPERIMENTAL_H */
