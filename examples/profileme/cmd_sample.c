/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * profileme sample: like profileme record, but prints every sample as it
 * arrives (one line each, or with --json one JSON object per line in the
 * form of `profileme script --json`: event, pid, tid, time, cpu and period
 * as numbers, ip and addr as "0x..." strings).  The engine is in
 * cmd_record.c.
 */
#include "cli.h"

int pm_cli_record_main(int argc, char **argv, int sample_mode);

int cmd_sample(int argc, char **argv)
{
	return pm_cli_record_main(argc, argv, 1);
}
