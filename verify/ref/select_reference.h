/* CPU reference for the stream-compaction calls (wk_select_if,
 * wk_select_flagged, wk_partition_if, wk_unique, wk_where), for the tests
 * and `warpkit verify`.
 *
 * Selects copy elements, they never compute them, so there is no
 * tolerance: the checker compares every output bit for bit (a NaN keeps
 * its payload, -0.0 its sign) and the count exactly.
 */
#ifndef WARPKIT_REF_SELECT_REFERENCE_H
#define WARPKIT_REF_SELECT_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which call: one reference and one checker serve all five. */
typedef enum wk_ref_select_mode {
    WK_REF_SELECT_IF = 0,      /* wk_select_if      */
    WK_REF_SELECT_FLAGGED = 1, /* wk_select_flagged */
    WK_REF_PARTITION_IF = 2,   /* wk_partition_if   */
    WK_REF_UNIQUE = 3,         /* wk_unique         */
    WK_REF_WHERE = 4           /* wk_where          */
} wk_ref_select_mode;

#define WK_REF_SELECT_MODE_COUNT 5

/* "select_if", "select_flagged", "partition_if", "unique", "where"; "?"
 * for an unknown mode. */
const char *wk_ref_select_mode_name(wk_ref_select_mode mode);

/* 1 for the modes that take a wk_predicate (select_if, partition_if, where). */
int wk_ref_select_uses_predicate(wk_ref_select_mode mode);

/* 1 for the modes that allow d_out == d_in (select_if, select_flagged,
 * unique). */
int wk_ref_select_in_place_ok(wk_ref_select_mode mode);

/* Bytes per output: 8 (int64_t indices) for where, else the dtype's size;
 * 0 for an unknown mode or dtype. */
size_t wk_ref_select_out_size(wk_ref_select_mode mode, wk_dtype dtype);

/* What a select computes: the arguments other than the data. */
typedef struct wk_ref_select_spec {
    wk_ref_select_mode mode;
    wk_dtype dtype;
    wk_predicate predicate; /* select_if, partition_if and where only */
} wk_ref_select_spec;

/* The argument checks of the reference (and of its checker, with `out` the
 * output to check), in this order: WK_ERROR_INVALID_ARGUMENT for a NULL
 * spec or an unknown mode; WK_ERROR_INVALID_ARGUMENT for NULL in or out
 * with n > 0, or NULL flags with n > 0 in select_flagged;
 * WK_ERROR_INVALID_DTYPE; for the predicate modes WK_ERROR_INVALID_ARGUMENT
 * for an unknown compare and WK_ERROR_UNSUPPORTED for WK_IS_NAN /
 * WK_NOT_NAN on an integer dtype; WK_ERROR_INVALID_ARGUMENT for out == in
 * (n > 0) in partition_if and where. */
wk_status wk_ref_select_validate(const void *in, const uint8_t *flags, const void *out, size_t n,
                                 const wk_ref_select_spec *spec);

/* Whether predicate p keeps the one element at `value` (the dtype's raw
 * bytes): the dtype's own comparison (signed or unsigned integers, a bool
 * as the number 0 or 1; floats by value, f16 / bf16 exactly as their float
 * values), false for every compare but WK_NOT_EQUAL when x or a constant
 * it uses is NaN. 0 for an unknown dtype or compare, and for the NaN tests
 * on integer dtypes. */
int wk_ref_predicate_holds(const void *value, wk_dtype dtype, const wk_predicate *p);

/* The reference select of h_in[0 .. n) into h_out (host memory), and the
 * number kept in *count (may be NULL). h_out receives count outputs, or all
 * n for partition_if (kept in order, then the rejected last to first), and
 * nothing else of it is written. h_flags is read by select_flagged only.
 * h_out == h_in is fine for the modes that allow it on the GPU; other
 * overlaps are not. Returns what wk_ref_select_validate does, and then
 * writes nothing (*count included). */
wk_status wk_ref_select(const void *h_in, const uint8_t *h_flags, void *h_out, size_t n,
                        const wk_ref_select_spec *spec, uint64_t *count);

/* How many mismatching outputs wk_ref_check_select describes. */
#define WK_REF_SELECT_SHOWN 4
/* wk_ref_check_select's result when it cannot check (invalid arguments). */
#define WK_REF_SELECT_INVALID ((size_t)-1)

/* Compares a GPU select's results (host copies: got_count, and got, which
 * must hold n outputs) with the reference for h_in[0 .. n): the count, and
 * every output the call must write (count of them, all n for partition_if)
 * byte for byte. Writes the reference count to *want_count (may be NULL);
 * the caller checks that the outputs past it were left alone.
 *
 * Returns the number of mismatches, a wrong count counting as one (0: all
 * right), or WK_REF_SELECT_INVALID. Always writes one line to msg: either
 * that all match, or the count and the first WK_REF_SELECT_SHOWN wrong
 * outputs (position, got, want, and the input index it comes from). */
size_t wk_ref_check_select(const void *h_in, const uint8_t *h_flags, size_t n, const wk_ref_select_spec *spec,
                           const void *got, uint64_t got_count, uint64_t *want_count, char *msg, size_t msg_size);

/* The predicate for humans: "less 1.5", "in_range [-3, 7)", "is_nan",
 * f16 / bf16 constants with their bit patterns. */
void wk_ref_format_predicate(wk_dtype dtype, const wk_predicate *p, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
