/* CPU reference for the segmented calls (wk_segmented_reduce,
 * wk_segmented_inclusive_scan, wk_segmented_exclusive_scan), for the tests,
 * and the layouts of segments they run on.
 *
 * Each segment is reduced by wk_ref_reduce and scanned by wk_ref_scan, so
 * the semantics are those of the plain references (reference.h,
 * scan_reference.h), segment by segment. The checkers compare a GPU's
 * output with them: float sums within the bound of the segmented calls,
 * for a float sum of L elements (a reduce of the segment, or a scan's
 * output whose prefix holds L elements),
 *
 *   |got - exact| <= (ceil(L / 8) + 64) * u * sum |x|     (wk_ref_segment_depth)
 *
 * with u the unit roundoff of the accumulator (2^-24 for f32, f16, bf16;
 * 2^-53 for f64), plus the one final rounding of f16 / bf16 results; or
 * by value where no rounding can have happened (every element an integer
 * and every partial sum within the accumulator's integers); an empty
 * segment's sum is +0.0 exactly. Everything else bit for bit (arg results
 * all 16 bytes, value and index), except that a float MIN / MAX that is
 * NaN may be any NaN (the header names no payload for them).
 */
#ifndef WARPKIT_REF_SEGMENTED_REFERENCE_H
#define WARPKIT_REF_SEGMENTED_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "ref/scan_reference.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A wk_segments whose offsets are in host memory: the same fields, the same
 * meaning. begin = end = NULL: uniform (stride 0 or size) or rows (stride >
 * size); both set: offsets into an input of `size` elements. */
typedef struct wk_ref_segments {
    size_t count;
    size_t size;
    size_t stride;
    const int64_t *begin;
    const int64_t *end;
} wk_ref_segments;

/* The layout checks of the segmented calls: WK_ERROR_INVALID_ARGUMENT for a
 * NULL s, only one of begin / end set, or rows with 0 < stride < size
 * (stride is ignored for offsets); else WK_SUCCESS. */
wk_status wk_ref_segments_validate(const wk_ref_segments *s);

/* Elements of the input the layout spans, from its start: count * size
 * (uniform), (count - 1) * stride + size (rows), size (offsets); 0 when
 * count is 0. A scan's output spans the same. */
size_t wk_ref_segments_extent(const wk_ref_segments *s);

/* The elements of segment i: [*first, *first + *len) of the input. Offsets
 * are clamped into [0, size] and a segment whose clamped end is not past
 * its clamped begin is empty (*len = 0, *first the clamped begin). */
void wk_ref_segment_range(const wk_ref_segments *s, size_t i, size_t *first, size_t *len);

/* Elements covered by at least one segment: bit p of covered (covered[p / 8]
 * >> p % 8), for p < extent, set when some segment covers element p;
 * covered holds (extent + 7) / 8 bytes. Returns 1 when no element is
 * covered twice (the segments are disjoint, as a scan needs), else 0. */
int wk_ref_segments_cover(const wk_ref_segments *s, unsigned char *covered);

/* Rounding depth the segmented calls allow a float sum of len elements:
 * ceil(len / 8) + 64. */
size_t wk_ref_segment_depth(size_t len);

/* The reference reduce of every segment of h_in into h_out[i] (count
 * results of wk_reduce_result_size(dtype, op) bytes each, back to back).
 * Float sums are the exact sum rounded once to the dtype; arg ops give the
 * index within the segment (from its clamped begin), -1 when it is empty,
 * and an f16 / bf16 NaN as the canonical 0x7fff. Returns the status of
 * wk_ref_reduce's checks, or of wk_ref_segments_validate, or
 * WK_ERROR_INVALID_ARGUMENT for NULL pointers with count > 0; then writes
 * nothing. */
wk_status wk_ref_segmented_reduce(const void *h_in, void *h_out, const wk_ref_segments *s, wk_dtype dtype,
                                  wk_op op);

/* The reference scan of every segment of h_in into the same positions of
 * h_out (extent elements; h_out == h_in is fine); elements outside every
 * segment are not written. Returns the status of wk_ref_scan's checks, or
 * of wk_ref_segments_validate, or WK_ERROR_INVALID_ARGUMENT when the
 * segments overlap (a scan of them has no defined result); then writes
 * nothing. */
wk_status wk_ref_segmented_scan(const void *h_in, void *h_out, const wk_ref_segments *s,
                                const wk_ref_scan_spec *spec);

/* How many mismatches a checker describes in its message. */
#define WK_REF_SEGMENTED_SHOWN 4
/* A checker's result when it cannot check (invalid arguments). */
#define WK_REF_SEGMENTED_INVALID ((size_t)-1)

/* Compares got (count results, the GPU's output read back) with the
 * reference of every segment: see the top of this file for the rules; arg
 * results compare all their bytes (the value's unused ones are zero).
 * Returns the number of mismatching segments (0: all match) or
 * WK_REF_SEGMENTED_INVALID, and always writes one line to msg: the count
 * checked, or the first WK_REF_SEGMENTED_SHOWN mismatches (segment, its
 * range, expected, got, and for float sums the exact sum and tolerance). */
size_t wk_ref_check_segmented_reduce(const void *h_in, const void *got, const wk_ref_segments *s, wk_dtype dtype,
                                     wk_op op, char *msg, size_t msg_size);

/* Compares got (extent elements, the GPU's output read back) with the
 * reference scan of every segment, every output: see the top of this file
 * for the rules; an exclusive scan's first output of a segment must be the
 * init itself. When before is not NULL (extent elements: what the output
 * held before the call), every element outside all segments must still be
 * that, byte for byte. Returns the number of mismatching elements (0: all
 * match) or WK_REF_SEGMENTED_INVALID (also for overlapping segments), and
 * always writes one line to msg as wk_ref_check_segmented_reduce does. */
size_t wk_ref_check_segmented_scan(const void *h_in, const void *got, const void *before, const wk_ref_segments *s,
                                   const wk_ref_scan_spec *spec, char *msg, size_t msg_size);

/* ------------------------------------------------------------- layouts */

/* Sizes of count segments that sum to total exactly, from a power law:
 * segment i gets a share of total proportional to the Pareto weight
 * u^(-1 / alpha) - 1 (u uniform in (0, 1], drawn from seed and i), rounded
 * by cumulative sums so that no element is lost. Small alpha (below 1)
 * makes a few segments take most of the total and most of the others
 * empty or tiny. Same seed, same sizes. */
void wk_ref_power_law_sizes(uint64_t seed, size_t count, size_t total, double alpha, size_t *sizes);

/* Offsets of segments laid back to back from `start`: offsets[0] = start,
 * offsets[i + 1] = offsets[i] + sizes[i] (count + 1 values), so that
 * begin = offsets and end = offsets + 1 describe them. */
void wk_ref_offsets_from_sizes(const size_t *sizes, size_t count, int64_t start, int64_t *offsets);

/* Disjoint segments for a scan: segment i holds sizes[i] elements; they are
 * placed in a random order (drawn from seed) with gaps of 0 to max_gap
 * elements between them, no gap before the first and after the last one.
 * Offsets are written so that every rule of the layout shows: the first
 * segment's begin and the last one's end lie outside the input (clamped to
 * 0 and to the input's size), and empty segments have end == begin, end <
 * begin, or both offsets outside the input on one side. Returns the
 * input's size (the sum of sizes and gaps). */
size_t wk_ref_disjoint_offsets(uint64_t seed, const size_t *sizes, size_t count, size_t max_gap, int64_t *begin,
                               int64_t *end);

/* Segments for a reduce only, over an input of size elements: begins
 * anywhere in [-64, size + 64), lengths of 0 to max_len (some negative:
 * end < begin), a few offsets at INT64_MIN or INT64_MAX; they overlap and
 * come in no order. */
void wk_ref_wild_offsets(uint64_t seed, size_t count, size_t size, size_t max_len, int64_t *begin, int64_t *end);

#ifdef __cplusplus
}
#endif

#endif
