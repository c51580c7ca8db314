/*
 * commands.h — the subcommands of the igemm CLI, one file each (cmd_run.c, cmd_check.c,
 * cmd_bench.c, cmd_info.c), called by main.c with the parsed and finished options. Each returns
 * the process's exit status (CLI_EXIT_*, options.h).
 */
#ifndef IGEMM_CLI_COMMANDS_H
#define IGEMM_CLI_COMMANDS_H

#include <stdio.h>

#include "igemm.h"
#include "options.h"

/* igemm run: time igemm on each shape; the CPU reference on a small layer without a GPU. */
int cmd_run(const cli_opts_t *o);
/* igemm check: compare igemm with the GPU direct path and the library's exact reference. */
int cmd_check(const cli_opts_t *o);
/* igemm bench: time igemm (and cuDNN with --vs cudnn) on each shape, one table (and CSV). */
int cmd_bench(const cli_opts_t *o);
/* igemm info: version, GPU, usable kernel paths, cuDNN. */
int cmd_info(const cli_opts_t *o);

/* Checks an igemm call inside a function that has `char *err, size_t errlen` and a `fail:` label:
 * on failure, writes "status: message" into err and jumps to fail. */
#define CLI_IG(call)                                                                       \
    do {                                                                                   \
        igemm_status_t s_ = (call);                                                        \
        if (s_ != IGEMM_STATUS_SUCCESS) {                                                  \
            snprintf(err, errlen, "%s: %s", igemm_status_string(s_), igemm_last_error());  \
            goto fail;                                                                     \
        }                                                                                  \
    } while (0)

#endif
