/* Command-line parsing helpers for the warpkit command (pure C, CPU-tested). */
#ifndef WARPKIT_CLI_H
#define WARPKIT_CLI_H

#include "warpkit.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a size: "16777216", "2^24", "16M", "4k", "1G" (binary multiples:
 * k = 2^10, M = 2^20, G = 2^30). Returns 0 on success, -1 on bad input or
 * overflow. */
int wk_parse_size(const char *text, size_t *out);

/* Parses "f32", "i64", ... Returns 0 on success, -1 if unknown. */
int wk_parse_dtype(const char *text, wk_dtype *out);

/* Parses "sum", "argmax", ... Returns 0 on success, -1 if unknown. */
int wk_parse_op(const char *text, wk_op *out);

/* Where `warpkit ladder` keeps its input before a run. */
typedef enum wk_memory_kind {
    WK_MEMORY_DEVICE,   /* cudaMalloc, copied in once                      */
    WK_MEMORY_MANAGED,  /* cudaMallocManaged, written by the host          */
    WK_MEMORY_PINNED,   /* cudaMallocHost, copied in for each total time   */
    WK_MEMORY_PAGEABLE  /* malloc, copied in for each total time           */
} wk_memory_kind;

/* Parses "device", "managed", "pinned", "pageable". Returns 0 or -1. */
int wk_parse_memory(const char *text, wk_memory_kind *out);
const char *wk_memory_name(wk_memory_kind kind);

/* Which primitive `warpkit bench` and `warpkit ladder` run (--op). */
typedef enum wk_primitive {
    WK_PRIMITIVE_REDUCE, /* device-wide reduce (the default)        */
    WK_PRIMITIVE_SCAN,   /* device-wide inclusive / exclusive scan  */
    WK_PRIMITIVE_SELECT, /* stream compaction: bench only           */
    WK_PRIMITIVE_SEGMENTED, /* segmented reduce and scan: bench only */
    WK_PRIMITIVE_SEGMENTED_REPRO /* the reproducible segmented sum alone: bench only */
} wk_primitive;

/* Parses "reduce", "scan", "select", "segmented", "segmented-repro".
 * Returns 0 or -1. */
int wk_parse_primitive(const char *text, wk_primitive *out);
const char *wk_primitive_name(wk_primitive primitive);

/* The bench's timing regimes (--regime; bench_common.cuh says what each is). */
typedef enum wk_regime_choice {
    WK_REGIME_COLD = 0,
    WK_REGIME_WARM,
    WK_REGIME_GRAPH,
    WK_REGIME_ALL
} wk_regime_choice;

/* Options of the subcommands. */
typedef struct wk_cli_options {
    const char *command;   /* "info", "verify", "bench", "ladder", "help"     */
    const char *json_path; /* --json FILE                                      */
    const char *csv_path;  /* --csv FILE (ladder)                              */
    size_t min_n, max_n;   /* --min-n, --max-n: the bench's size range (0: unset) */
    size_t n;              /* --n: the ladder's size (default 2^24)            */
    int n_given;           /* --n appeared (tune then runs that size alone)    */
    wk_dtype dtype;        /* --dtype: the ladder's element type (default f64) */
    unsigned threads;      /* --threads: the ladder's block size (default 512) */
    wk_memory_kind memory; /* --memory: where the ladder's input lives         */
    wk_primitive primitive; /* --op: reduce (default), scan; select, segmented (bench only) */
    const char *only;      /* --only LIST: ladder rows, e.g. "01,04,12,cub"    */
    int ncu;               /* --ncu: print the ncu command line of each row    */
    int repeats;           /* --repeats: timed batches per case (default 9)    */
    int quick;             /* --quick: fewer and smaller cases                 */
    wk_regime_choice regime; /* --regime: cold (default), warm, graph or all (bench) */
    int device;            /* --device N (default -1: the current device)      */
    int help;              /* --help / -h, or `warpkit help COMMAND`: print the
                              usage of `command` ("help": all of it), exit 0 */
} wk_cli_options;

/* Whether row `id` ("04", "cub") is selected by an --only list (NULL: all). */
int wk_cli_selected(const char *only, const char *id);

/* Parses argv into opts. Returns 0 on success; on error returns -1 and writes
 * a message into err. `warpkit`, `warpkit help`, `warpkit --help` and
 * `warpkit -h` give command "help"; `warpkit COMMAND --help` (or -h, anywhere
 * after the command; the other options are then not read) and `warpkit help
 * COMMAND` give that command with opts->help set. */
int wk_parse_cli(int argc, char **argv, wk_cli_options *opts, char *err, size_t err_size);

/* The usage text of one command ("bench": its line and the options that
 * apply to it), or of the whole command for "help"; NULL for a command that
 * does not exist. */
const char *wk_cli_usage(const char *command);

#ifdef __cplusplus
}
#endif

#endif
