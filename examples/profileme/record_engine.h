/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The recording engine of `profileme record` (cmd_record.c), shared with
 * `profileme sample` and `profileme report -- CMD`.  Not part of the library. */
#ifndef PM_RECORD_ENGINE_H
#define PM_RECORD_ENGINE_H

/* Runs `profileme record` (sample_mode 0) or `profileme sample` (1) with
 * argv as that subcommand's arguments (argv[0] is the subcommand name).
 * Chooses the best event of the machine when no -e is given.  Returns the
 * exit status: 0, 1 (failure), 2 (usage), 127 (command not found). */
int pm_cli_record_main(int argc, char **argv, int sample_mode);

#endif /* PM_RECORD_ENGINE_H */
