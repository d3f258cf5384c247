/* Command-line parsing helpers for the warpkit command (pure C, CPU-tested). */
#ifndef WARPKIT_CLI_H
#define WARPKIT_CLI_H

#include "warpkit.h"

#include <stddef.h>

/* Parses a size: "16777216", "2^24", "16M", "4k", "1G" (binary multiples:
 * k = 2^10, M = 2^20, G = 2^30). Returns 0 on success, -1 on bad input or
 * overflow. */
int wk_parse_size(const char *text, size_t *out);

/* Parses "f32", "i64", ... Returns 0 on success, -1 if unknown. */
int wk_parse_dtype(const char *text, wk_dtype *out);

/* Parses "sum", "argmax", ... Returns 0 on success, -1 if unknown. */
int wk_parse_op(const char *text, wk_op *out);

/* Options shared by the subcommands. Unset sizes are 0. */
typedef struct wk_cli_options {
    const char *command;   /* "info", "verify", "bench", "help", ...        */
    const char *json_path; /* --json FILE                                    */
    size_t min_n, max_n;   /* --min-n, --max-n: the bench's size range       */
    int repeats;           /* --repeats: timed batches per case (default 9)  */
    int quick;             /* --quick: fewer and smaller cases               */
    int device;            /* --device N (default -1: the current device)    */
} wk_cli_options;

/* Parses argv into opts. Returns 0 on success; on error returns -1 and writes
 * a message into err. */
int wk_parse_cli(int argc, char **argv, wk_cli_options *opts, char *err, size_t err_size);

#endif
