/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* profileme report -g (report_callgraph.c).  Not part of the library. */
#ifndef PM_REPORT_CALLGRAPH_H
#define PM_REPORT_CALLGRAPH_H

#include <stdbool.h>

/* True when the report options ask for the call graph (-g, --call-graph,
 * --children, --no-children) before any "--". */
bool rpt_callgraph_wanted(int argc, char **argv);
/* `profileme report -g ...`: argv as given to cmd_report. */
int rpt_callgraph(int argc, char **argv);

#endif
