/* The boundary between the host API and the per-dtype select kernels. */
#ifndef WARPKIT_SELECT_LAUNCH_H
#define WARPKIT_SELECT_LAUNCH_H

#include "common/dtypes.h"
#include "tiles/plan.h"
#include "tiles/slots.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a select keeps and where it writes it. */
typedef enum wk_select_mode {
    WK_SELECT_IF = 0,      /* kept elements, by predicate                     */
    WK_SELECT_FLAGGED = 1, /* kept elements, by nonzero flag bytes            */
    WK_PARTITION_IF = 2,   /* kept in order, then the rest in reverse order   */
    WK_UNIQUE = 3,         /* first element of each run of equal elements     */
    WK_WHERE = 4           /* int64 indices of the kept elements              */
} wk_select_mode;

#define WK_SELECT_MODE_COUNT 5

/* Counts of kept elements fit 32 bits below this many elements; from here
 * on the tiles' prefixes take 64 bits (and two status words). */
#define WK_SELECT_WIDE_COUNTS_FROM ((size_t)1 << 31)

/* Everything one launch needs; arguments are already validated. The plan
 * comes from wk_plan_select_for (select/plan.h), for the device's kind. */
typedef struct wk_select_launch {
    const void *in;
    const unsigned char *flags; /* WK_SELECT_FLAGGED only                    */
    void *out;                  /* elements, or int64 indices for WK_WHERE    */
    unsigned long long *count;  /* the number kept, written by the last tile  */
    wk_tile_plan plan;
    wk_select_mode mode;
    wk_predicate predicate;     /* WK_SELECT_IF, WK_PARTITION_IF, WK_WHERE    */
    const void *previous;       /* WK_UNIQUE: the element before d_in[0], or NULL */
    const long long *index_base; /* WK_WHERE: added to every index, or NULL   */
    wk_tile_slots slots;
    unsigned grid;              /* blocks of a pipelined plan: at most one per SM */
    int overlap_launch;         /* programmatic stream serialization (sm_90+) */
    cudaStream_t stream;
} wk_select_launch;

/* One launcher per dtype, in translation units generated from common/dtypes.h
 * (cmake/WarpkitKernels.cmake), and the switch that picks one. */
#define WK_LAUNCH wk_select_launch
#define WK_LAUNCHER(name) wk_select_launch_##name
WK_DECLARE_LAUNCHERS(WK_DTYPES, wk_select_launch_dtype)
#undef WK_LAUNCHER
#undef WK_LAUNCH

#ifdef __cplusplus
}
#endif

#endif
