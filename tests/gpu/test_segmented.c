/* GPU test of the segmented reduce and scans (wk_segmented_reduce,
 * wk_segmented_inclusive_scan, wk_segmented_exclusive_scan).
 *
 * Values: every dtype and op over uniform segments of 0, 1, 2, 3, 31, 32,
 * 33, 1000 and 10^6 elements, 1 to 10^7 of them; rows with a leading
 * dimension; offsets that are disjoint but shuffled, with gaps, empty
 * segments and ends outside the input; offsets that overlap, come in any
 * order and reach outside the input (reduce only); skewed power-law offsets
 * with a few segments of 2^22 to 2^24 elements among many tiny ones; and
 * many segments just over 64 KiB each. Inputs start 0 to 3 elements past an
 * aligned address, inside guard bands (and gaps) of all-ones bytes; data is
 * chosen per segment: uniform, small integers (ties, exact sums), all
 * equal, NaN, infinities, signed zeros, the dtype's extremes. Outputs are
 * poisoned first and compared with the CPU reference (segmented_reference.h:
 * float sums within (ceil(L / 8) + 64) * u * sum|x|, all else bit for bit);
 * scans check every output, that the elements outside every segment are
 * untouched, in place (d_out == d_in), and exclusive scans from an init
 * that is mostly not the identity. Every call runs twice, the second time
 * captured into a graph: it must be one kernel launch and give the same
 * bits.
 *
 * NaN: every float sum and prefix sum that is NaN is stored as the dtype's
 * one NaN, input NaNs with payloads at segments' starts among them.
 *
 * Contract: bad arguments return their status with a message, launch
 * nothing and leave memory as it was; count = 0 succeeds and launches
 * nothing, even with NULL pointers; calls back to back on one stream.
 *
 * WK_TEST_LEVEL: quick (the small layouts, for the sanitizers), default
 * (adds the larger ones, and a part of the dtypes and ops on the heaviest),
 * large (the rest of the heaviest, 10^7 offsets, and inputs over 2^31
 * elements). WK_SEED repeats a run; WK_SEG_LAYOUTS=first-last (indices
 * into the layout list, or one index) runs those layouts' values alone,
 * an index past the list none of them (at the large level the inputs over
 * 2^31 elements then run alone). Exits 77 without a device. */
#include "gpu/api_test_util.h"
#include "check/case_data.h"
#include "ref/generate.h"
#include "ref/reference.h"
#include "ref/segmented_reference.h"
#include "test_util.h"
#include "warpkit.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements of all-ones bytes after the input, and poisoned bytes after a
 * reduce's results. */
#define GUARD_ELEMS 64
#define OUT_GUARD_BYTES 64
#define GUARD_BYTE 0xff

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;
static uint64_t seed;
static wk_test_level level;

/* The call in flight, named in the message of a CUDA error or a hang. */
static char current_call[256] = "a segmented call";

/* ---------------------------------------------------------------- calls */

enum { FN_REDUCE, FN_INCLUSIVE, FN_EXCLUSIVE };

static const char *fn_name(int fn)
{
    return fn == FN_REDUCE ? "reduce" : fn == FN_INCLUSIVE ? "inclusive scan" : "exclusive scan";
}

/* One call of any of the three. */
typedef struct seg_call {
    int fn;
    wk_context *ctx;
    const void *in;
    void *out;
    const wk_segments *segments;
    wk_dtype dtype;
    wk_op op;
    wk_value init;
} seg_call;

static wk_status run_call(const seg_call *c, cudaStream_t s)
{
    switch (c->fn) {
    case FN_REDUCE: return wk_segmented_reduce(c->ctx, c->in, c->out, c->segments, c->dtype, c->op, s);
    case FN_INCLUSIVE: return wk_segmented_inclusive_scan(c->ctx, c->in, c->out, c->segments, c->dtype, c->op, s);
    default: return wk_segmented_exclusive_scan(c->ctx, c->in, c->out, c->segments, c->dtype, c->op, c->init, s);
    }
}

static wk_status enqueue_call(const void *c, cudaStream_t s) { return run_call(c, s); }

/* Runs the call captured into a graph, then launches the graph once and
 * waits for it. *nodes and *kernels say what the capture holds (SIZE_MAX
 * nodes when the call broke the capture). Returns the call's status. */
static wk_status run_captured(const seg_call *c, size_t *nodes, size_t *kernels)
{
    cudaGraph_t graph = NULL;
    wk_capture got;
    wk_status st = wk_capture_call(stream, enqueue_call, c, &got, &graph);
    *nodes = got.nodes;
    *kernels = got.kernels;
    if (got.nodes == SIZE_MAX)
        return st;
    if (st == WK_SUCCESS && got.nodes > 0)
        wk_launch_graph_once(stream, graph, current_call);
    CHECK_CUDA(cudaGraphDestroy(graph));
    return st;
}

/* -------------------------------------------------------------- buffers */

/* Grow-only buffers shared by the cases. */
static unsigned char *d_in_buf, *d_out_buf, *h_stage, *h_read, *h_again, *h_poison;
static size_t d_in_cap, d_out_cap, h_stage_cap, h_read_cap, h_again_cap, h_poison_cap;

static void grow_device(unsigned char **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return;
    if (*p)
        CHECK_CUDA(cudaFree(*p));
    CHECK_CUDA(cudaMalloc((void **)p, bytes));
    *cap = bytes;
}

/* Host memory the test cannot go on without. */
static void need(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL cannot allocate %s in host memory\n", what);
        exit(1);
    }
}

static void grow_host(unsigned char **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return;
    free(*p);
    *p = malloc(bytes);
    need(*p != NULL, "a buffer");
    *cap = bytes;
    if (p == &h_poison)
        memset(h_poison, POISON, bytes);
}

static void free_buffers(void)
{
    WK_FREE_DEVICE(d_in_buf, d_out_buf);
    WK_FREE_HOST(h_stage, h_read, h_again, h_poison);
    d_in_buf = d_out_buf = h_stage = h_read = h_again = h_poison = NULL;
    d_in_cap = d_out_cap = h_stage_cap = h_read_cap = h_again_cap = h_poison_cap = 0;
}

static void copy_to_host(void *h, const void *d, size_t bytes)
{
    wait_stream(stream, HANG_SECONDS, current_call);
    CHECK_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}

/* -------------------------------------------------------------- layouts */

typedef enum { L_UNIFORM, L_ROWS, L_DISJOINT, L_WILD, L_SKEWED, L_CLIPPED, L_FOLDED, L_LONG } layout_kind;

/* Which level runs a layout: quick, default and large take disjoint parts of
 * the list (large: what the default leaves out). */
typedef enum {
    TIER_QUICK,   /* small: every dtype and op, at the quick and default levels  */
    TIER_DEFAULT, /* larger: every dtype and op, at the default level            */
    TIER_HEAVY,   /* heaviest: a rotating part at the default level, the rest at large */
    TIER_LARGE    /* only at the large level, every dtype and op                 */
} layout_tier;

/* A layout of the list. a, b, c by kind:
 *   uniform:  count, size, stride (0 or size)
 *   rows:     count, size, stride (> size)
 *   disjoint: count, largest segment, largest gap
 *   wild:     count, input size, longest segment
 *   skewed:   count of small segments, their total, count of huge ones
 *   clipped:  as skewed, the offsets from -37 on and the input 60 short of the last
 *   folded:   as skewed, the offsets rising for the first half and falling back
 *   long:     count, size (offsets, back to back) */
typedef struct layout_spec {
    layout_kind kind;
    size_t a, b, c;
    layout_tier tier;
    int few_dtypes; /* heavy: only i32, u64, f32 and f16 at the default level */
} layout_spec;

static const layout_spec layout_list[] = {
    {L_UNIFORM, 1000, 0, 0, TIER_QUICK, 0},
    {L_UNIFORM, 4099, 1, 1, TIER_QUICK, 0},
    {L_UNIFORM, 50001, 2, 0, TIER_QUICK, 0},
    {L_UNIFORM, 33333, 3, 0, TIER_QUICK, 0},
    {L_UNIFORM, 3001, 31, 0, TIER_QUICK, 0},
    {L_UNIFORM, 3001, 32, 32, TIER_QUICK, 0},
    {L_UNIFORM, 3001, 33, 0, TIER_QUICK, 0},
    {L_UNIFORM, 1, 33, 0, TIER_QUICK, 0},
    {L_ROWS, 2001, 33, 40, TIER_QUICK, 0},
    {L_ROWS, 10007, 1, 3, TIER_QUICK, 0},
    {L_ROWS, 1, 2, 5, TIER_QUICK, 0},
    {L_ROWS, 3, 31, 1000, TIER_QUICK, 0},
    {L_DISJOINT, 2000, 70, 9, TIER_QUICK, 0},
    {L_WILD, 2000, 5000, 100, TIER_QUICK, 0},
    {L_SKEWED, 30000, 150000, 0, TIER_QUICK, 0},
    {L_CLIPPED, 19968, 100000, 0, TIER_QUICK, 0},
    {L_FOLDED, 20000, 100000, 0, TIER_QUICK, 0},
    {L_UNIFORM, 257, 1000, 0, TIER_DEFAULT, 0},
    {L_UNIFORM, 1, 1000000, 0, TIER_DEFAULT, 0},
    {L_ROWS, 130, 1000, 1027, TIER_DEFAULT, 0},
    {L_DISJOINT, 30000, 70, 9, TIER_DEFAULT, 0},
    {L_WILD, 20000, 100000, 300, TIER_DEFAULT, 0},
    {L_SKEWED, 50000, 400000, 1, TIER_DEFAULT, 0},
    {L_ROWS, 3, 70000, 70001, TIER_DEFAULT, 0},
    {L_UNIFORM, 40, 16384, 0, TIER_DEFAULT, 0},
    {L_UNIFORM, 50, 6000, 0, TIER_DEFAULT, 0},
    {L_UNIFORM, 10000000, 1, 0, TIER_HEAVY, 1},
    {L_UNIFORM, 5000000, 2, 0, TIER_HEAVY, 1},
    {L_UNIFORM, 7, 1000000, 0, TIER_HEAVY, 0},
    {L_ROWS, 3, 1000000, 1000003, TIER_HEAVY, 0},
    {L_DISJOINT, 2000000, 4, 2, TIER_HEAVY, 0},
    {L_SKEWED, 200000, 1000000, 3, TIER_HEAVY, 0},
    {L_LONG, 2300, 16400, 0, TIER_HEAVY, 1},
    {L_DISJOINT, 10000000, 3, 1, TIER_LARGE, 0},
};

typedef struct layout {
    const layout_spec *spec;
    size_t index; /* in layout_list: rotates dtypes, ops and offsets */
    char name[96];
    wk_ref_segments ref; /* the offsets in h_offsets */
    wk_segments dev;     /* the offsets in d_offsets */
    int64_t *h_offsets, *d_offsets;
    size_t extent;
    unsigned char *covered; /* wk_ref_segments_cover's bits */
    int disjoint;           /* the scans run on it */
    int has_gaps;           /* some element of the extent is in no segment */
} layout;

/* Sizes for the disjoint layout: a quarter empty, the others 1 to largest. */
static void disjoint_sizes(uint64_t s, size_t count, size_t largest, size_t *sizes)
{
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = wk_rand64(s, i);
        sizes[i] = r % 4 == 0 ? 0 : 1 + (size_t)(r >> 8) % largest;
    }
}

/* Skewed sizes: small ones from a power law, and `huge` of 2^22, 2^23 and
 * 2^24 elements (plus a few) at spread-out places. */
static void skewed_sizes(uint64_t s, size_t small, size_t small_total, size_t huge, size_t *sizes)
{
    size_t count = small + huge;
    wk_ref_power_law_sizes(s, count, small_total, 1.2, sizes);
    for (size_t k = 0; k < huge; ++k) {
        uint64_t r = wk_rand64(s ^ 0x4a4aull, k);
        size_t span = count / (huge + 1);
        size_t at = (k + 1) * span - span / 2 + (size_t)(r % (span / 2 + 1));
        sizes[at] = ((size_t)1 << (22 + k % 3)) + (size_t)(r >> 32) % 4099;
    }
}

/* The rest of a layout whose ref is set (its offsets, `values` of them, in
 * l->h_offsets): the extent, the covered elements, the device copy. */
static void finish_layout(layout *l, size_t values)
{
    l->extent = wk_ref_segments_extent(&l->ref);
    l->covered = malloc(l->extent / 8 + 1);
    need(l->covered != NULL, "a layout's coverage");
    l->disjoint = wk_ref_segments_cover(&l->ref, l->covered);
    size_t in_segments = 0;
    for (size_t b = 0; b < (l->extent + 7) / 8; ++b)
        for (unsigned char bits = l->covered[b]; bits; bits &= (unsigned char)(bits - 1))
            in_segments++;
    l->has_gaps = in_segments < l->extent;
    l->dev = (wk_segments){l->ref.count, l->ref.size, l->ref.stride, NULL, NULL};
    if (l->ref.begin) {
        CHECK_CUDA(cudaMalloc((void **)&l->d_offsets, values * sizeof(int64_t)));
        CHECK_CUDA(cudaMemcpy(l->d_offsets, l->h_offsets, values * sizeof(int64_t), cudaMemcpyHostToDevice));
        l->dev.d_begin = l->d_offsets + (l->ref.begin - l->h_offsets);
        l->dev.d_end = l->d_offsets + (l->ref.end - l->h_offsets);
    }
}

static void build_layout(layout *l, size_t index, uint64_t s)
{
    const layout_spec *sp = &layout_list[index];
    memset(l, 0, sizeof *l);
    l->spec = sp;
    l->index = index;
    size_t count = sp->a;
    size_t *sizes = NULL;
    switch (sp->kind) {
    case L_UNIFORM:
    case L_ROWS:
        l->ref = (wk_ref_segments){count, sp->b, sp->c, NULL, NULL};
        if (sp->kind == L_ROWS)
            snprintf(l->name, sizeof l->name, "rows %zu x %zu, stride %zu", count, sp->b, sp->c);
        else
            snprintf(l->name, sizeof l->name, "uniform %zu x %zu%s", count, sp->b, sp->c ? " (stride = size)" : "");
        break;
    case L_DISJOINT:
    case L_LONG:
        sizes = malloc(count * sizeof *sizes);
        l->h_offsets = malloc(2 * count * sizeof *l->h_offsets);
        need(sizes && l->h_offsets, "a layout's offsets");
        if (sp->kind == L_DISJOINT) {
            disjoint_sizes(s, count, sp->b, sizes);
            size_t n = wk_ref_disjoint_offsets(s, sizes, count, sp->c, l->h_offsets, l->h_offsets + count);
            l->ref = (wk_ref_segments){count, n, 0, l->h_offsets, l->h_offsets + count};
            snprintf(l->name, sizeof l->name, "offsets %zu disjoint, shuffled, 0 to %zu elements", count, sp->b);
        } else {
            for (size_t i = 0; i < count; ++i)
                sizes[i] = sp->b;
            size_t n = wk_ref_disjoint_offsets(s, sizes, count, 0, l->h_offsets, l->h_offsets + count);
            l->ref = (wk_ref_segments){count, n, 0, l->h_offsets, l->h_offsets + count};
            snprintf(l->name, sizeof l->name, "offsets %zu x %zu (long segments)", count, sp->b);
        }
        break;
    case L_WILD:
        l->h_offsets = malloc(2 * count * sizeof *l->h_offsets);
        need(l->h_offsets != NULL, "a layout's offsets");
        wk_ref_wild_offsets(s, count, sp->b, sp->c, l->h_offsets, l->h_offsets + count);
        l->ref = (wk_ref_segments){count, sp->b, 0, l->h_offsets, l->h_offsets + count};
        snprintf(l->name, sizeof l->name, "offsets %zu overlapping, unordered, over %zu", count, sp->b);
        break;
    case L_SKEWED:
    case L_CLIPPED:
    case L_FOLDED:
        count = sp->a + sp->c;
        sizes = malloc(count * sizeof *sizes);
        /* Back to back: one array, begin = offsets, end = offsets + 1. */
        l->h_offsets = malloc((count + 1) * sizeof *l->h_offsets);
        need(sizes && l->h_offsets, "a layout's offsets");
        skewed_sizes(s, sp->a, sp->b, sp->c, sizes);
        if (sp->kind == L_FOLDED) {
            /* Back to back, but the second half runs backwards: each of its
             * segments ends before it begins (empty), though every end is
             * still the next segment's begin. */
            l->h_offsets[0] = 0;
            int64_t peak = 0;
            for (size_t i = 0; i < count; ++i) {
                l->h_offsets[i + 1] = l->h_offsets[i] + (i < count / 2 ? (int64_t)sizes[i] : -(int64_t)sizes[i]);
                peak = l->h_offsets[i + 1] > peak ? l->h_offsets[i + 1] : peak;
            }
            l->ref = (wk_ref_segments){count, (size_t)peak, 0, l->h_offsets, l->h_offsets + 1};
            snprintf(l->name, sizeof l->name, "offsets %zu power law, back to back, half of them backwards", count);
        } else if (sp->kind == L_CLIPPED) {
            /* The first segments begin before the input and the last end
             * past it: clamped, as the header says. */
            wk_ref_offsets_from_sizes(sizes, count, -37, l->h_offsets);
            l->ref = (wk_ref_segments){count, (size_t)(l->h_offsets[count] - 60), 0, l->h_offsets, l->h_offsets + 1};
            snprintf(l->name, sizeof l->name, "offsets %zu power law, from -37 to 60 past the input", count);
        } else {
            wk_ref_offsets_from_sizes(sizes, count, 0, l->h_offsets);
            l->ref = (wk_ref_segments){count, (size_t)l->h_offsets[count], 0, l->h_offsets, l->h_offsets + 1};
            snprintf(l->name, sizeof l->name, "offsets %zu power law with %zu of 2^22 to 2^24", count, sp->c);
        }
        break;
    }
    free(sizes);
    finish_layout(l, sp->kind == L_SKEWED || sp->kind == L_CLIPPED || sp->kind == L_FOLDED ? count + 1 : 2 * count);
}

static void free_layout(layout *l)
{
    if (l->d_offsets)
        CHECK_CUDA(cudaFree(l->d_offsets));
    free(l->h_offsets);
    free(l->covered);
}

static int is_covered(const layout *l, size_t p) { return (l->covered[p / 8] >> (p % 8)) & 1; }

static int is_float(wk_dtype d) { return d == WK_F32 || d == WK_F64 || d == WK_F16 || d == WK_BF16; }

/* ----------------------------------------------------------------- data */

/* Values planted into small integers. A float sum must not see two of the
 * largest values of one sign, which overflow or not depending on the order
 * of the additions: floats get the largest and the lowest once each (at the
 * end) only in a range that is a segment of its own. */
static const wk_special float_specials[] = {WK_SPECIAL_NAN, WK_SPECIAL_INF, WK_SPECIAL_POS_INF, WK_SPECIAL_EDGE_NAN,
                                            WK_SPECIAL_AT_END};
static const wk_special int_specials[] = {WK_SPECIAL_EXTREMES, WK_SPECIAL_AT_END};

/* Fills h[first .. first + len) with one kind of data, drawn from r:
 * uniform, small integers (ties; float sums exact), all equal, positive,
 * special values planted into small integers, or signed zeros (floats) and
 * the dtype's extremes (integers). Segments over 2^16 elements get plain
 * numbers, so that their sums test the bound. `alone`: the range is one
 * whole segment that no other segment reads. */
static void fill_range(void *h, size_t first, size_t len, wk_dtype dtype, uint64_t r, int alone)
{
    if (len == 0)
        return;
    void *p = (char *)h + first * wk_dtype_size(dtype);
    uint64_t s = r >> 8;
    unsigned kind = (unsigned)(r % 8);
    if (len > ((size_t)1 << 16) && kind >= 6)
        kind = 0;
    switch (kind) {
    case 3: wk_generate(p, len, dtype, WK_GEN_SMALL_INTS, s); break;
    case 4: wk_generate(p, len, dtype, WK_GEN_CONSTANT, s); break;
    case 5: wk_generate(p, len, dtype, WK_GEN_POSITIVE, s); break;
    case 6:
        wk_generate(p, len, dtype, WK_GEN_SMALL_INTS, s);
        wk_plant_specials(p, len, dtype,
                          is_float(dtype) ? float_specials[(r >> 4) % (alone ? 5 : 4)] : int_specials[(r >> 4) % 2], s);
        break;
    case 7:
        for (size_t i = 0; i < len; ++i) {
            int bit = (int)(wk_rand64(s, i) & 1);
            long double v = is_float(dtype) ? (bit ? -0.0L : 0.0L)
                                            : (bit ? wk_dtype_largest(dtype) : wk_dtype_lowest(dtype));
            wk_ref_store(p, i, dtype, v);
        }
        break;
    default: wk_generate(p, len, dtype, WK_GEN_UNIFORM, s); break;
    }
}

/* The input of one layout and dtype: staged at h_stage as `off` guard
 * elements, the extent, and GUARD_ELEMS guard elements, then copied to
 * d_in_buf the same way. */
typedef struct input {
    const layout *l;
    wk_dtype dtype;
    size_t off;             /* elements from d_in_buf to the input: 0 to 3 */
    const unsigned char *h; /* the input in h_stage                         */
    const unsigned char *d; /* the input in d_in_buf                        */
    size_t staged_bytes;
    int dirty; /* an in-place scan changed the device copy */
} input;

/* Makes room for the input at h_stage, all guard bytes; returns where the
 * input starts there. */
static unsigned char *stage_begin(input *in, const layout *l, wk_dtype dtype, size_t off)
{
    size_t elem = wk_dtype_size(dtype);
    in->l = l;
    in->dtype = dtype;
    in->off = off;
    in->staged_bytes = (off + l->extent + GUARD_ELEMS) * elem;
    grow_host(&h_stage, &h_stage_cap, in->staged_bytes);
    grow_device(&d_in_buf, &d_in_cap, in->staged_bytes);
    memset(h_stage, GUARD_BYTE, in->staged_bytes);
    return h_stage + off * elem;
}

/* Guards into the elements that no segment covers (a call that reads them
 * gets NaN, -1 or the largest integer), then the copy to the device. */
static void stage_finish(input *in)
{
    const layout *l = in->l;
    size_t elem = wk_dtype_size(in->dtype);
    unsigned char *h = h_stage + in->off * elem;
    if (l->has_gaps)
        for (size_t p = 0; p < l->extent; ++p)
            if (!is_covered(l, p))
                memset(h + p * elem, GUARD_BYTE, elem);
    CHECK_CUDA(cudaMemcpy(d_in_buf, h_stage, in->staged_bytes, cudaMemcpyHostToDevice));
    in->h = h;
    in->d = d_in_buf + in->off * elem;
    in->dirty = 0;
}

static void stage_input(input *in, const layout *l, wk_dtype dtype, size_t off, uint64_t s)
{
    unsigned char *h = stage_begin(in, l, dtype, off);
    if (l->disjoint && l->ref.count <= 1000000) {
        /* One kind of data per segment, so that ties, all-equal data and
         * signed zeros fill whole segments. */
        for (size_t i = 0; i < l->ref.count; ++i) {
            size_t first, len;
            wk_ref_segment_range(&l->ref, i, &first, &len);
            fill_range(h, first, len, dtype, wk_rand64(s, i), 1);
        }
    } else {
        /* Overlapping or very many segments: blocks of 1 to 256 elements. */
        size_t p = 0;
        for (uint64_t k = 0; p < l->extent; ++k) {
            uint64_t r = wk_rand64(s, k);
            size_t len = 1 + (size_t)(r >> 40) % 256;
            len = len < l->extent - p ? len : l->extent - p;
            fill_range(h, p, len, dtype, r, 0);
            p += len;
        }
    }
    stage_finish(in);
}

static void restore_input(input *in)
{
    if (!in->dirty)
        return;
    CHECK_CUDA(cudaMemcpy(d_in_buf, h_stage, in->staged_bytes, cudaMemcpyHostToDevice));
    in->dirty = 0;
}

/* ---------------------------------------------------------------- runs */

/* What a run found wrong, for its FAIL line. */
typedef struct verdict {
    int ok;
    char why[1400];
} verdict;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(verdict *v, const char *fmt, ...)
{
    size_t len = strlen(v->why);
    if (len + 1 < sizeof v->why) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->why + len, sizeof v->why - len, fmt, ap);
        va_end(ap);
    }
    v->ok = 0;
}

/* The first call's status, and no error message after a success. */
static int call_succeeded(verdict *v, wk_status st)
{
    if (st != WK_SUCCESS) {
        fail(v, "status %s: %s", wk_status_string(st), wk_last_error_message());
        return 0;
    }
    if (strlen(wk_last_error_message()) != 0)
        fail(v, "success left the message '%s'; ", wk_last_error_message());
    return 1;
}

/* The second call, captured: one kernel launch (at most one where the
 * segments hold no element), and the same bytes as the first. */
static void check_replay(verdict *v, const seg_call *c, const layout *l, const unsigned char *first,
                         const unsigned char *d_span, size_t span)
{
    size_t nodes, kernels;
    wk_status st = run_captured(c, &nodes, &kernels);
    int may_skip = c->fn != FN_REDUCE && l->extent == 0;
    if (st != WK_SUCCESS || kernels != nodes || !(nodes == 1 || (may_skip && nodes == 0))) {
        fail(v, "captured: status %s, %zu nodes, %zu kernels (want one kernel); ", wk_status_string(st),
             nodes == SIZE_MAX ? 0 : nodes, kernels);
        return;
    }
    copy_to_host(h_again, d_span, span);
    if (memcmp(first, h_again, span) != 0) {
        size_t at = 0;
        while (first[at] == h_again[at])
            at++;
        fail(v, "a second call gave other bytes (first at byte %zu); ", at);
    }
}

/* Bytes of h[0 .. span) outside [lead, lead + body) that differ from want. */
static size_t changed_outside(const unsigned char *h, const unsigned char *want, size_t lead, size_t body, size_t span)
{
    size_t changed = 0;
    for (size_t i = 0; i < lead; ++i)
        changed += h[i] != want[i];
    for (size_t i = lead + body; i < span; ++i)
        changed += h[i] != want[i];
    return changed;
}

static void run_reduce(input *in, wk_op op, size_t out_off, verdict *v)
{
    const layout *l = in->l;
    size_t bytes = l->ref.count * wk_reduce_result_size(in->dtype, op);
    /* Arg results need 8-byte alignment, the others their element's. */
    size_t lead = out_off * (op == WK_ARGMIN || op == WK_ARGMAX ? 8 : wk_dtype_size(in->dtype));
    size_t span = lead + bytes + OUT_GUARD_BYTES;
    grow_device(&d_out_buf, &d_out_cap, span);
    grow_host(&h_read, &h_read_cap, span);
    grow_host(&h_again, &h_again_cap, span);
    grow_host(&h_poison, &h_poison_cap, span);
    restore_input(in);
    seg_call c = {FN_REDUCE, ctx, in->d, d_out_buf + lead, &l->dev, in->dtype, op, {0}};
    CHECK_CUDA(cudaMemsetAsync(d_out_buf, POISON, span, stream));
    if (!call_succeeded(v, run_call(&c, stream)))
        return;
    copy_to_host(h_read, d_out_buf, span);
    size_t outside = changed_outside(h_read, h_poison, lead, bytes, span);
    if (outside)
        fail(v, "%zu bytes written outside the %zu results; ", outside, l->ref.count);
    char msg[1024];
    size_t bad = wk_ref_check_segmented_reduce(in->h, h_read + lead, &l->ref, in->dtype, op, msg, sizeof msg);
    if (bad)
        fail(v, "%s; ", msg);
    CHECK_CUDA(cudaMemsetAsync(d_out_buf, POISON, span, stream));
    check_replay(v, &c, l, h_read, d_out_buf, span);
}

/* An exclusive scan's init: mostly not the op's identity. */
static wk_value pick_init(wk_dtype dtype, wk_op op, uint64_t r)
{
    wk_value v;
    memset(&v, 0, sizeof v);
    switch (r % 8) {
    case 0: wk_ref_identity(dtype, op, &v); break;
    case 1: wk_ref_store(&v, 0, dtype, is_float(dtype) ? -0.0L : wk_dtype_largest(dtype)); break;
    case 2:
    case 3: wk_generate(&v, 1, dtype, WK_GEN_SMALL_INTS, r >> 8); break;
    default: wk_generate(&v, 1, dtype, WK_GEN_UNIFORM, r >> 8); break;
    }
    return v;
}

/* A scan, out of place into a poisoned output (out_off elements past an
 * aligned address), or in place over the staged input. Elements outside
 * every segment, and the bands around the extent, must not change. */
static void run_scan(input *in, int fn, wk_op op, wk_value init, int in_place, size_t out_off, verdict *v)
{
    const layout *l = in->l;
    size_t elem = wk_dtype_size(in->dtype), body = l->extent * elem;
    unsigned char *d_span;
    const unsigned char *before; /* what the span held before the call */
    size_t lead, span;
    restore_input(in);
    if (in_place) {
        d_span = d_in_buf;
        before = h_stage;
        lead = in->off * elem;
        span = in->staged_bytes;
    } else {
        lead = out_off * elem;
        span = lead + body + GUARD_ELEMS * elem;
        grow_device(&d_out_buf, &d_out_cap, span);
        grow_host(&h_poison, &h_poison_cap, span);
        d_span = d_out_buf;
        before = h_poison;
        CHECK_CUDA(cudaMemsetAsync(d_out_buf, POISON, span, stream));
    }
    grow_host(&h_read, &h_read_cap, span);
    grow_host(&h_again, &h_again_cap, span);
    seg_call c = {fn, ctx, in->d, d_span + lead, &l->dev, in->dtype, op, init};
    if (in_place)
        in->dirty = 1;
    if (!call_succeeded(v, run_call(&c, stream)))
        return;
    copy_to_host(h_read, d_span, span);
    size_t outside = changed_outside(h_read, before, lead, body, span);
    if (outside)
        fail(v, "%zu bytes changed outside the extent; ", outside);
    wk_ref_scan_spec spec = {in->dtype, op, fn == FN_EXCLUSIVE, init};
    char msg[1024];
    size_t bad = wk_ref_check_segmented_scan(in->h, h_read + lead, before + lead, &l->ref, &spec, msg, sizeof msg);
    if (bad)
        fail(v, "%s; ", msg);
    if (in_place)
        CHECK_CUDA(cudaMemcpy(d_in_buf, h_stage, in->staged_bytes, cudaMemcpyHostToDevice));
    else
        CHECK_CUDA(cudaMemsetAsync(d_out_buf, POISON, span, stream));
    check_replay(v, &c, l, h_read, d_span, span);
}

/* ------------------------------------------------------------ the list */

static const wk_dtype dtypes[WK_DTYPE_COUNT] = {WK_I32, WK_U32, WK_I64,  WK_U64, WK_F32, WK_F64, WK_F16,
                                                WK_BF16, WK_BOOL, WK_U8, WK_I8, WK_I16, WK_U16};
static const wk_op reduce_ops[] = {WK_SUM, WK_MIN, WK_MAX, WK_AND, WK_OR, WK_XOR, WK_ARGMIN, WK_ARGMAX};
static const wk_op scan_ops[] = {WK_SUM, WK_MIN, WK_MAX, WK_AND, WK_OR, WK_XOR};

static int is_bitwise(wk_op op) { return op == WK_AND || op == WK_OR || op == WK_XOR; }

/* The part of a heavy layout's calls that the default level runs: per
 * dtype the sum, one other reduce op and one scan, rotating with the
 * layout; on the few_dtypes layouts only i32, u64, f32 and f16. */
static int heavy_default_part(const layout *l, wk_dtype dtype, wk_op op, int fn)
{
    if (l->spec->few_dtypes && !(dtype == WK_I32 || dtype == WK_U64 || dtype == WK_F32 || dtype == WK_F16))
        return 0;
    size_t k = l->index + (size_t)dtype;
    if (fn == FN_REDUCE) {
        static const wk_op float_others[] = {WK_MIN, WK_MAX, WK_ARGMIN, WK_ARGMAX};
        static const wk_op int_others[] = {WK_MIN, WK_MAX, WK_AND, WK_OR, WK_XOR, WK_ARGMIN, WK_ARGMAX};
        return op == WK_SUM || op == (is_float(dtype) ? float_others[k % 4] : int_others[k % 7]);
    }
    return op == scan_ops[k % (is_float(dtype) ? 3 : 6)] && fn == (k % 2 ? FN_EXCLUSIVE : FN_INCLUSIVE);
}

/* Whether this level runs a call (op on dtype is valid; scans need
 * disjoint segments). */
static int level_runs(const layout *l, wk_dtype dtype, wk_op op, int fn)
{
    if (is_bitwise(op) && is_float(dtype))
        return 0;
    if (dtype == WK_BOOL && op == WK_SUM) /* refused: the contract checks it */
        return 0;
    if (fn != FN_REDUCE && !l->disjoint)
        return 0;
    switch (l->spec->tier) {
    case TIER_QUICK: return level != WK_LEVEL_LARGE;
    case TIER_DEFAULT: return level == WK_LEVEL_DEFAULT;
    case TIER_LARGE: return level == WK_LEVEL_LARGE;
    case TIER_HEAVY: break;
    }
    if (level == WK_LEVEL_QUICK)
        return 0;
    return heavy_default_part(l, dtype, op, fn) == (level == WK_LEVEL_DEFAULT);
}

static int tier_runs(layout_tier tier)
{
    switch (tier) {
    case TIER_QUICK: return level != WK_LEVEL_LARGE;
    case TIER_DEFAULT: return level == WK_LEVEL_DEFAULT;
    case TIER_HEAVY: return level != WK_LEVEL_QUICK;
    case TIER_LARGE: return level == WK_LEVEL_LARGE;
    }
    return 0;
}

/* Every call the level runs on one layout and dtype; one line for them
 * all, and a FAIL line for each call that failed. */
static void run_dtype(const layout *l, wk_dtype dtype, uint64_t s)
{
    int reduces = 0, scans = 0, in_place = 0, failed = 0;
    size_t rot = l->index + (size_t)dtype;
    input in;
    int staged = 0;
    for (int fn = FN_REDUCE; fn <= FN_EXCLUSIVE; ++fn) {
        size_t nops = fn == FN_REDUCE ? 8 : 6;
        for (size_t o = 0; o < nops; ++o) {
            wk_op op = fn == FN_REDUCE ? reduce_ops[o] : scan_ops[o];
            if (!level_runs(l, dtype, op, fn))
                continue;
            if (!staged) {
                stage_input(&in, l, dtype, rot % 4, s);
                staged = 1;
            }
            verdict v;
            v.ok = 1;
            v.why[0] = '\0';
            size_t out_off = (rot + o + (size_t)fn + 1) % 4;
            wk_value init;
            memset(&init, 0, sizeof init);
            int place = fn != FN_REDUCE && (rot + o + (size_t)fn) % 3 == 0;
            snprintf(current_call, sizeof current_call, "%s %s %s%s on %s, input +%zu", wk_dtype_name(dtype),
                     wk_op_name(op), fn_name(fn), place ? " in place" : "", l->name, in.off);
            if (fn == FN_REDUCE) {
                run_reduce(&in, op, out_off, &v);
                reduces++;
            } else {
                if (fn == FN_EXCLUSIVE)
                    init = pick_init(dtype, op, wk_rand64(s ^ 0x1417ull, o));
                run_scan(&in, fn, op, init, place, out_off, &v);
                scans++;
                in_place += place;
            }
            if (!v.ok) {
                char init_txt[64] = "";
                if (fn == FN_EXCLUSIVE) {
                    char t[48];
                    wk_ref_format(dtype, WK_SUM, &init, t, sizeof t);
                    snprintf(init_txt, sizeof init_txt, " init %s", t);
                }
                char where[48];
                if (place)
                    snprintf(where, sizeof where, "in place at +%zu", in.off);
                else
                    snprintf(where, sizeof where, "input +%zu, output +%zu", in.off, out_off);
                printf("FAIL %s %s %s%s on %s, %s: %s\n", wk_dtype_name(dtype), wk_op_name(op), fn_name(fn), init_txt,
                       l->name, where, v.why);
                failed++;
            }
            wk_tally_add(&tally, v.ok);
        }
    }
    if (staged && !failed)
        printf("ok   %-4s %s, input +%zu: %d reduces, %d scans (%d in place)\n", wk_dtype_name(dtype), l->name, in.off,
               reduces, scans, in_place);
    fflush(stdout);
}

static void test_values(void)
{
    /* A part of the list, to repeat one case or to split the large level:
     * "first" or "first-last". */
    size_t from = 0, to = SIZE_MAX;
    const char *part = getenv("WK_SEG_LAYOUTS");
    if (part) {
        char *end = NULL;
        from = to = strtoull(part, &end, 10);
        if (end != part && *end == '-')
            to = strtoull(end + 1, &end, 10);
        if (end == part || *end != '\0' || to < from) {
            printf("FAIL WK_SEG_LAYOUTS is 'first' or 'first-last' (layout indices), not '%s'\n", part);
            exit(2);
        }
    }
    for (size_t li = 0; li < sizeof layout_list / sizeof layout_list[0]; ++li) {
        if (!tier_runs(layout_list[li].tier) || li < from || li > to)
            continue;
        layout l;
        uint64_t s = wk_rand64(seed, li);
        build_layout(&l, li, s);
        for (int d = 0; d < WK_DTYPE_COUNT; ++d)
            run_dtype(&l, dtypes[d], wk_rand64(s, (uint64_t)d + 1));
        free_layout(&l);
    }
}

/* ------------------------------------------------------------- contract */

#define REGION_BYTES 8192
static unsigned char *d_region; /* poisoned before each rejected call */

static void poison_region(void) { wk_poison_device(d_region, REGION_BYTES); }

static int region_untouched(void) { return wk_device_changes(stream, d_region, REGION_BYTES, 0, 0) == 0; }

#define ALL_FNS ((1u << FN_REDUCE) | (1u << FN_INCLUSIVE) | (1u << FN_EXCLUSIVE))
#define SCAN_FNS ((1u << FN_INCLUSIVE) | (1u << FN_EXCLUSIVE))

/* A bad call, for each function in fns: the expected status, a message, no
 * launch (the call is captured into a graph), and device memory as it was. */
static void expect_rejected(const char *what, wk_status want, seg_call c, unsigned fns)
{
    for (int fn = FN_REDUCE; fn <= FN_EXCLUSIVE; ++fn) {
        if (!(fns & (1u << fn)))
            continue;
        c.fn = fn;
        poison_region();
        wk_capture got;
        wk_status st = wk_capture_call(stream, enqueue_call, &c, &got, NULL);
        char message[256];
        snprintf(message, sizeof message, "%s", wk_last_error_message());
        int untouched = region_untouched();
        wk_checkf(&tally, st == want && strlen(message) > 0 && got.nodes == 0 && untouched,
                  "%s %s: status %s (want %s), message '%s', %zu launches%s", fn_name(fn), what, wk_status_string(st),
                  wk_status_string(want), message, got.nodes == SIZE_MAX ? 0 : got.nodes,
                  untouched ? "" : ", memory changed");
    }
}

/* A reduce on the shared context (set fn for a scan), its init zero in all
 * eight bytes. */
static seg_call make_call(const void *in, void *out, const wk_segments *segs, wk_dtype dtype, wk_op op)
{
    return (seg_call){.ctx = ctx, .in = in, .out = out, .segments = segs, .dtype = dtype, .op = op,
                      .init = {.u64 = 0}};
}

static void test_rejections(void)
{
    static float host[1024];
    static int64_t host_offsets[8] = {0, 8, 16, 24, 8, 16, 24, 32};
    unsigned char *in = d_region + 256, *out = d_region + 4096;
    int64_t *d_begin = (int64_t *)(d_region + 6144), *d_end = d_begin + 64;
    /* 4 segments of 8 f32: an extent of 128 bytes. */
    const wk_segments uni = {4, 8, 0, NULL, NULL};
    const wk_segments offs = {4, 32, 0, d_begin, d_end};

    seg_call c = make_call(in, out, &uni, WK_F32, WK_SUM);
    c.ctx = NULL;
    expect_rejected("NULL context", WK_ERROR_INVALID_ARGUMENT, c, ALL_FNS);
    expect_rejected("NULL segments", WK_ERROR_INVALID_ARGUMENT, make_call(in, out, NULL, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("dtype 99", WK_ERROR_INVALID_DTYPE, make_call(in, out, &uni, (wk_dtype)99, WK_SUM), ALL_FNS);
    expect_rejected("dtype -1", WK_ERROR_INVALID_DTYPE, make_call(in, out, &uni, (wk_dtype)-1, WK_SUM), ALL_FNS);
    expect_rejected("op 42", WK_ERROR_INVALID_OP, make_call(in, out, &uni, WK_F32, (wk_op)42), ALL_FNS);
    expect_rejected("op -1", WK_ERROR_INVALID_OP, make_call(in, out, &uni, WK_I32, (wk_op)-1), ALL_FNS);
    expect_rejected("sum of bools", WK_ERROR_UNSUPPORTED, make_call(in, out, &uni, WK_BOOL, WK_SUM), ALL_FNS);

    const wk_dtype floats[] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    const wk_op bitwise[] = {WK_AND, WK_OR, WK_XOR};
    for (int d = 0; d < 4; ++d)
        for (int o = 0; o < 3; ++o) {
            char what[64];
            snprintf(what, sizeof what, "%s on %s", wk_op_name(bitwise[o]), wk_dtype_name(floats[d]));
            expect_rejected(what, WK_ERROR_UNSUPPORTED, make_call(in, out, &uni, floats[d], bitwise[o]), ALL_FNS);
        }
    const wk_dtype some[] = {WK_I32, WK_U64, WK_F32, WK_BF16};
    for (int d = 0; d < 4; ++d) {
        char what[64];
        snprintf(what, sizeof what, "argmin on %s", wk_dtype_name(some[d]));
        expect_rejected(what, WK_ERROR_UNSUPPORTED, make_call(in, out, &uni, some[d], WK_ARGMIN), SCAN_FNS);
        snprintf(what, sizeof what, "argmax on %s", wk_dtype_name(some[d]));
        expect_rejected(what, WK_ERROR_UNSUPPORTED, make_call(in, out, &uni, some[d], WK_ARGMAX), SCAN_FNS);
    }

    const wk_segments narrow = {4, 10, 5, NULL, NULL};
    expect_rejected("rows with stride 5 < size 10", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, out, &narrow, WK_F32, WK_SUM), ALL_FNS);
    const wk_segments begin_only = {4, 32, 0, d_begin, NULL}, end_only = {4, 32, 0, NULL, d_end};
    expect_rejected("d_begin without d_end", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, out, &begin_only, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("d_end without d_begin", WK_ERROR_INVALID_ARGUMENT, make_call(in, out, &end_only, WK_F32, WK_SUM),
                    ALL_FNS);

    expect_rejected("NULL d_in", WK_ERROR_INVALID_ARGUMENT, make_call(NULL, out, &uni, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("NULL d_out", WK_ERROR_INVALID_ARGUMENT, make_call(in, NULL, &uni, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("host d_in", WK_ERROR_INVALID_POINTER, make_call(host, out, &uni, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("host d_out", WK_ERROR_INVALID_POINTER, make_call(in, host, &uni, WK_F32, WK_SUM), ALL_FNS);
    const wk_segments host_begin = {4, 32, 0, host_offsets, d_end}, host_end = {4, 32, 0, d_begin, host_offsets + 4};
    expect_rejected("host d_begin", WK_ERROR_INVALID_POINTER, make_call(in, out, &host_begin, WK_F32, WK_SUM),
                    ALL_FNS);
    expect_rejected("host d_end", WK_ERROR_INVALID_POINTER, make_call(in, out, &host_end, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("d_in not aligned to its f32 element", WK_ERROR_INVALID_POINTER,
                    make_call(in + 1, out, &uni, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("d_out not aligned to its f64 element", WK_ERROR_INVALID_POINTER,
                    make_call(in, out + 4, &uni, WK_F64, WK_MAX), ALL_FNS);
    expect_rejected("argmax d_out not 8-byte aligned", WK_ERROR_INVALID_POINTER,
                    make_call(in, out + 4, &uni, WK_F32, WK_ARGMAX), 1u << FN_REDUCE);
    const wk_segments odd_begin = {4, 32, 0, (const int64_t *)((unsigned char *)d_begin + 4), d_end};
    expect_rejected("d_begin not 8-byte aligned", WK_ERROR_INVALID_POINTER,
                    make_call(in, out, &odd_begin, WK_F32, WK_SUM), ALL_FNS);

    /* Overlaps. The reduce's results may not touch the input's extent or
     * the offsets; a scan's output may be d_in itself and nothing else. */
    expect_rejected("d_out inside the input", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, in + 64, &uni, WK_F32, WK_SUM), 1u << FN_REDUCE);
    expect_rejected("d_out == d_in", WK_ERROR_INVALID_ARGUMENT, make_call(in, in, &uni, WK_F32, WK_MIN),
                    1u << FN_REDUCE);
    const wk_segments rows = {3, 4, 10, NULL, NULL}; /* 2 * 10 + 4 = 24 elements */
    expect_rejected("d_out at the last row's last element", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, in + 23 * 4, &rows, WK_F32, WK_SUM), ALL_FNS);
    expect_rejected("d_out at the offsets input's last element", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, in + 31 * 4, &offs, WK_F32, WK_SUM), 1u << FN_REDUCE);
    expect_rejected("d_out one element past d_in", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, in + 4, &uni, WK_F32, WK_SUM), SCAN_FNS);
    expect_rejected("d_out one element before d_in", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, in - 4, &uni, WK_F32, WK_SUM), SCAN_FNS);
    expect_rejected("offsets: d_out one element past d_in", WK_ERROR_INVALID_ARGUMENT,
                    make_call(in, in + 4, &offs, WK_I32, WK_SUM), SCAN_FNS);
    expect_rejected("d_out over d_begin", WK_ERROR_INVALID_ARGUMENT, make_call(in, d_begin, &offs, WK_F32, WK_SUM),
                    ALL_FNS);
    expect_rejected("d_out over d_end", WK_ERROR_INVALID_ARGUMENT, make_call(in, d_end, &offs, WK_F64, WK_SUM),
                    ALL_FNS);

    const wk_segments huge = {SIZE_MAX / 4, 8, 0, NULL, NULL};
    expect_rejected("count * size overflows", WK_ERROR_LIMIT, make_call(in, out, &huge, WK_F32, WK_SUM),
                    ALL_FNS);
}

/* Calls that succeed and launch nothing: count 0 whatever the pointers;
 * scans of segments that hold no element launch at most one kernel and
 * write nothing. */
static void test_nothing_to_do(void)
{
    unsigned char *in = d_region + 256, *out = d_region + 4096;
    int64_t *d_begin = (int64_t *)(d_region + 6144);
    const wk_segments none = {0, 8, 0, NULL, NULL}, none_offsets = {0, 32, 0, d_begin, d_begin + 64};
    const wk_segments *layouts[2] = {&none, &none_offsets};
    const wk_op ops[3] = {WK_ARGMAX, WK_MAX, WK_SUM};
    for (int k = 0; k < 2; ++k)
        for (int fn = FN_REDUCE; fn <= FN_EXCLUSIVE; ++fn) {
            seg_call c = make_call(NULL, NULL, layouts[k], WK_F32, ops[fn]);
            c.fn = fn;
            c.init.f32 = 5;
            wk_capture got;
            wk_status st = wk_capture_call(stream, enqueue_call, &c, &got, NULL);
            wk_checkf(&tally, st == WK_SUCCESS && got.nodes == 0, "%s of count 0 (%s), NULL d_in and d_out: %s, %zu launches",
                      fn_name(fn), k ? "offsets" : "uniform", wk_status_string(st), got.nodes == SIZE_MAX ? 0 : got.nodes);
            /* Not captured: it writes nothing. */
            poison_region();
            c.in = in;
            c.out = out;
            st = run_call(&c, stream);
            wk_checkf(&tally, st == WK_SUCCESS && region_untouched(), "%s of count 0 writes nothing", fn_name(fn));
        }

    const wk_segments empty = {5, 0, 0, NULL, NULL};
    for (int fn = FN_INCLUSIVE; fn <= FN_EXCLUSIVE; ++fn) {
        seg_call c = make_call(in, out, &empty, WK_I64, WK_SUM);
        c.fn = fn;
        c.init.i64 = 77;
        wk_capture got;
        wk_status st = wk_capture_call(stream, enqueue_call, &c, &got, NULL);
        poison_region();
        wk_status again = run_call(&c, stream);
        wk_checkf(&tally, st == WK_SUCCESS && got.nodes <= 1 && got.kernels == got.nodes && again == WK_SUCCESS &&
                              region_untouched(),
                  "%s of 5 segments of 0 elements: %s, %zu launches, nothing written", fn_name(fn),
                  wk_status_string(st), got.nodes == SIZE_MAX ? 0 : got.nodes);
    }
}

/* Calls back to back on one stream with no wait between them, over a
 * layout whose long segments go through the stream's workspace: each
 * must leave it ready for the next. Identical calls give identical bits. */
static void test_back_to_back(void)
{
    enum { COUNT = 64, CALLS = 24 };
    size_t sizes[COUNT];
    for (size_t i = 0; i < COUNT; ++i)
        sizes[i] = i % 8 == 3 ? 100000 + i : (size_t)(wk_rand64(seed ^ 0xb2bull, i) % 50);
    int64_t h_off[COUNT + 1];
    wk_ref_offsets_from_sizes(sizes, COUNT, 0, h_off);
    size_t n = (size_t)h_off[COUNT];
    wk_ref_segments ref = {COUNT, n, 0, h_off, h_off + 1};
    const wk_segments uni = {333, 1000, 0, NULL, NULL};
    wk_ref_segments uni_ref = {333, 1000, 0, NULL, NULL};
    size_t in_n = n > 333000 ? n : 333000;
    float *h_f = malloc(in_n * sizeof *h_f);
    int32_t *h_i = malloc(in_n * sizeof *h_i);
    need(h_f && h_i, "the inputs");
    wk_generate(h_f, in_n, WK_F32, WK_GEN_UNIFORM, seed ^ 0xf0ull);
    wk_generate(h_i, in_n, WK_I32, WK_GEN_UNIFORM, seed ^ 0x10ull);
    float *d_f;
    int32_t *d_i;
    int64_t *d_off;
    unsigned char *d_res;
    const size_t slot = 333 * sizeof(int32_t) + 256;
    CHECK_CUDA(cudaMalloc((void **)&d_f, in_n * sizeof *h_f));
    CHECK_CUDA(cudaMalloc((void **)&d_i, in_n * sizeof *h_i));
    CHECK_CUDA(cudaMalloc((void **)&d_off, sizeof h_off));
    CHECK_CUDA(cudaMalloc((void **)&d_res, CALLS * slot));
    CHECK_CUDA(cudaMemcpy(d_f, h_f, in_n * sizeof *h_f, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_i, h_i, in_n * sizeof *h_i, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_off, h_off, sizeof h_off, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_res, POISON, CALLS * slot));
    const wk_segments offs = {COUNT, n, 0, d_off, d_off + 1};

    /* Call k: offsets or uniform (alternating), f32 or i32 (every other
     * pair); a plain wk_reduce in the middle shares the workspace. */
    int ok = 1;
    for (int k = 0; k < CALLS; ++k) {
        int use_offsets = k % 2 == 0, use_float = (k / 2) % 2 == 0;
        ok &= wk_segmented_reduce(ctx, use_float ? (const void *)d_f : (const void *)d_i, d_res + (size_t)k * slot,
                                  use_offsets ? &offs : &uni, use_float ? WK_F32 : WK_I32, WK_SUM, stream) == WK_SUCCESS;
        if (k == CALLS / 2)
            ok &= wk_reduce(ctx, d_f, d_res + (size_t)k * slot + 333 * 4, 1000, WK_F32, WK_MAX, stream) == WK_SUCCESS;
    }
    unsigned char *h_res = malloc(CALLS * slot);
    need(h_res != NULL, "the results");
    snprintf(current_call, sizeof current_call, "%d segmented sums back to back", CALLS);
    copy_to_host(h_res, d_res, CALLS * slot);
    size_t bad = 0;
    char msg[1024] = "";
    for (int k = 0; k < CALLS && ok; ++k) {
        int use_offsets = k % 2 == 0, use_float = (k / 2) % 2 == 0;
        size_t b = wk_ref_check_segmented_reduce(use_float ? (const void *)h_f : (const void *)h_i,
                                                 h_res + (size_t)k * slot, use_offsets ? &ref : &uni_ref,
                                                 use_float ? WK_F32 : WK_I32, WK_SUM, msg, sizeof msg);
        if (b)
            printf("  call %d: %s\n", k, msg);
        bad += b;
        /* The same call as four before: the same bytes. */
        size_t bytes = (use_offsets ? COUNT : 333) * 4;
        if (k >= 4 && memcmp(h_res + (size_t)k * slot, h_res + (size_t)(k - 4) * slot, bytes) != 0) {
            printf("  call %d: other bits than call %d\n", k, k - 4);
            bad++;
        }
    }
    wk_checkf(&tally, ok && bad == 0,
              "%d segmented sums back to back (offsets with 8 segments of 100000 elements, uniform 333 x 1000), "
              "a plain reduce among them: all match, repeats the same bits",
              CALLS);
    WK_FREE_DEVICE(d_f, d_i, d_off, d_res);
    WK_FREE_HOST(h_f, h_i, h_res);
}

/* A long segment's bits must not depend on the call it is in, nor on which
 * path took it: the last 64 segments reduced and scanned alone give the
 * same bits as in a call over 2300 of them (all listed on the board), and
 * in a reduce over 41400 overlapping ones, more than the board lists, of
 * which those that find no room are folded by the warp that found them.
 * f32 and f64, the input 0 to 3 elements past a 16-byte boundary; every
 * other one of those segments holds NaNs of one sign near its start and of
 * the other near its end (other pieces), and every NaN result is the
 * dtype's one NaN. */
static void test_overflow_same_bits(void)
{
    /* OVERLAP is a multiple of COUNT: its last 64 segments are the same
     * as the disjoint layout's. */
    enum { COUNT = 2300, TAIL = 64, OVERLAP = 18 * COUNT, FN_OVERLAP = FN_INCLUSIVE + 1 };
    const size_t len = 16400; /* f32: two pieces of a scan, five of a reduce */
    const size_t n = COUNT * len;
    int64_t *h_off = malloc((COUNT + 1) * sizeof *h_off), *h_ov = malloc(2 * OVERLAP * sizeof *h_ov);
    unsigned char *h_in = malloc((n + 3) * sizeof(double));
    unsigned char *h_all = malloc(TAIL * len * sizeof(double)), *h_tail = malloc(TAIL * len * sizeof(double));
    need(h_off && h_ov && h_in && h_all && h_tail, "the overflow case's buffers");
    for (size_t i = 0; i <= COUNT; ++i)
        h_off[i] = (int64_t)(i * len);
    for (size_t i = 0; i < OVERLAP; ++i) {
        h_ov[i] = (int64_t)(i % COUNT * len);
        h_ov[OVERLAP + i] = h_ov[i] + (int64_t)len;
    }
    unsigned char *d_in, *d_all, *d_tail;
    int64_t *d_off, *d_ov;
    CHECK_CUDA(cudaMalloc((void **)&d_in, (n + 3) * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void **)&d_all, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void **)&d_tail, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void **)&d_off, (COUNT + 1) * sizeof *h_off));
    CHECK_CUDA(cudaMalloc((void **)&d_ov, 2 * OVERLAP * sizeof *h_ov));
    CHECK_CUDA(cudaMemcpy(d_off, h_off, (COUNT + 1) * sizeof *h_off, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_ov, h_ov, 2 * OVERLAP * sizeof *h_ov, cudaMemcpyHostToDevice));
    const wk_segments disjoint = {COUNT, n, 0, d_off, d_off + 1};
    const wk_segments overlapping = {OVERLAP, n, 0, d_ov, d_ov + OVERLAP};
    const wk_segments tail = {TAIL, n, 0, d_off + (COUNT - TAIL), d_off + (COUNT - TAIL) + 1};
    const wk_dtype kinds[2] = {WK_F32, WK_F64};
    for (int d = 0; d < 2; ++d) {
        const wk_dtype dtype = kinds[d];
        const size_t elem = wk_dtype_size(dtype);
        wk_generate(h_in, n + 3, dtype, WK_GEN_UNIFORM, seed ^ (0x0f1aull + (uint64_t)d));
        /* Input element i is h_in[i + off]: four NaNs at each end of a
         * segment, so that every offset finds its own from the segment's
         * element 5 - off and its element len - 7 - off on. */
        for (size_t t = 0; t < TAIL; t += 2)
            for (size_t off = 0; off < 4; ++off) {
                const size_t start = (COUNT - TAIL + t) * len + off;
                wk_store_signed_nan(h_in, start + 5, dtype, (int)(t / 2 % 2));
                wk_store_signed_nan(h_in, start + len - 7, dtype, (int)(t / 2 % 2 == 0));
            }
        CHECK_CUDA(cudaMemcpy(d_in, h_in, (n + 3) * elem, cudaMemcpyHostToDevice));
        for (size_t off = 0; off < 4; ++off) {
            const void *in = d_in + off * elem;
            for (int f = FN_REDUCE; f <= FN_OVERLAP; ++f) {
                const int fn = f == FN_OVERLAP ? FN_REDUCE : f;
                CHECK_CUDA(cudaMemset(d_all, POISON, n * elem));
                CHECK_CUDA(cudaMemset(d_tail, POISON, n * elem));
                seg_call c_all = make_call(in, d_all, f == FN_OVERLAP ? &overlapping : &disjoint, dtype, WK_SUM);
                seg_call c_tail = make_call(in, d_tail, &tail, dtype, WK_SUM);
                c_all.fn = c_tail.fn = fn;
                int ok = run_call(&c_all, stream) == WK_SUCCESS && run_call(&c_tail, stream) == WK_SUCCESS;
                snprintf(current_call, sizeof current_call,
                         "%s sum %s of %d %s segments of %zu (input +%zu) and of the last %d alone",
                         wk_dtype_name(dtype), fn_name(fn), f == FN_OVERLAP ? OVERLAP : COUNT,
                         f == FN_OVERLAP ? "overlapping" : "disjoint", len, off, TAIL);
                /* The reduce writes one result per segment; the scan, every
                 * element at its place. */
                const size_t at_all = f == FN_OVERLAP   ? (OVERLAP - TAIL) * elem
                                      : fn == FN_REDUCE ? (COUNT - TAIL) * elem
                                                        : (COUNT - TAIL) * len * elem;
                const size_t bytes = fn == FN_REDUCE ? TAIL * elem : TAIL * len * elem;
                const size_t at_tail = fn == FN_REDUCE ? 0 : at_all;
                copy_to_host(h_all, d_all + at_all, bytes);
                copy_to_host(h_tail, d_tail + at_tail, bytes);
                /* NaN results: the 32 planted segments' sums, or their
                 * prefixes from the first NaN (element 5 - off) on. */
                size_t nans = 0, stray = wk_stray_nans(h_all, bytes / elem, dtype, &nans);
                const size_t want_nans = fn == FN_REDUCE ? TAIL / 2 : TAIL / 2 * (len - 5 + off);
                wk_checkf(&tally, ok && memcmp(h_all, h_tail, bytes) == 0 && nans == want_nans && stray == 0,
                          "%s: the same bits as the last %d segments alone; %zu NaNs (want %zu), %zu not 0x%llx",
                          current_call, TAIL, nans, want_nans, stray, (unsigned long long)wk_sum_nan_bits(dtype));
            }
        }
    }
    WK_FREE_DEVICE(d_in, d_all, d_tail, d_off, d_ov);
    WK_FREE_HOST(h_off, h_ov, h_in, h_all, h_tail);
}

/* Every float sum and prefix sum that is NaN is stored as the dtype's one
 * NaN, also where an input NaN with a payload is a segment's first element
 * (where the inclusive scan's -0.0 start adds nothing): rows of 1 to 70000
 * elements and shuffled-length offsets with one segment of 10^5, NaNs of
 * both signs planted at segments' first, second and middle elements. The
 * reduce's NaN results are the segments that hold a NaN, the scans' from
 * the first NaN of a segment on (the exclusive scan's one later). */
static void test_nan_payloads(void)
{
    static const wk_dtype dtypes[] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    static const size_t row_sizes[] = {1, 2, 3, 32, 33, 1000, 70000};
    enum { N = 210000, MAX_SEGS = N, LAYOUTS = 8 };
    unsigned char *h_in = malloc((N + 3) * 8), *h_out = malloc(N * 8);
    int64_t *h_begin = malloc(MAX_SEGS * sizeof *h_begin), *h_end = malloc(MAX_SEGS * sizeof *h_end);
    need(h_in && h_out && h_begin && h_end, "the NaN payload case's buffers");
    unsigned char *d_in, *d_out;
    int64_t *d_begin, *d_end;
    CHECK_CUDA(cudaMalloc((void **)&d_in, (N + 3) * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_out, (N + 3) * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_begin, MAX_SEGS * sizeof *h_begin));
    CHECK_CUDA(cudaMalloc((void **)&d_end, MAX_SEGS * sizeof *h_end));
    /* The offsets layout: lengths 0 to 40, one of 10^5 after the first
     * thousand segments, up to N elements. */
    size_t offset_segs = 0;
    for (size_t at = 0; at < N; ++offset_segs) {
        size_t len = offset_segs == 1000 ? 100000 : (size_t)(wk_rand64(seed ^ 0x9a1dull, offset_segs) % 41);
        len = len < N - at ? len : N - at;
        h_begin[offset_segs] = (int64_t)at;
        h_end[offset_segs] = (int64_t)(at + len);
        at += len;
    }
    CHECK_CUDA(cudaMemcpy(d_begin, h_begin, offset_segs * sizeof *h_begin, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_end, h_end, offset_segs * sizeof *h_end, cudaMemcpyHostToDevice));
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
        const wk_dtype dtype = dtypes[d];
        const size_t elem = wk_dtype_size(dtype);
        for (size_t k = 0; k < LAYOUTS; ++k) {
            const int offsets = k == LAYOUTS - 1;
            const size_t size = offsets ? 0 : row_sizes[k];
            const size_t count = offsets ? offset_segs : N / size;
            const wk_segments segs = offsets ? (wk_segments){offset_segs, N, 0, d_begin, d_end}
                                             : (wk_segments){count, size, 0, NULL, NULL};
            const size_t off = (d + k) % 4;
            wk_generate(h_in, N, dtype, WK_GEN_UNIFORM, wk_rand64(seed ^ 0x7a71ull, d * LAYOUTS + k));
            /* Each segment's first NaN, relative to its start (len: none). */
            size_t want[3] = {0, 0, 0};
            for (size_t g = 0; g < count; ++g) {
                const size_t b = offsets ? (size_t)h_begin[g] : g * size;
                const size_t len = offsets ? (size_t)(h_end[g] - h_begin[g]) : size;
                const size_t at = g % 3 == 0 ? 0 : g % 3 == 1 ? 1 : len / 2;
                if (at >= len)
                    continue;
                wk_store_signed_nan(h_in, b + at, dtype, (int)(g / 3 % 2));
                want[FN_REDUCE] += 1;
                want[FN_INCLUSIVE] += len - at;
                want[FN_EXCLUSIVE] += len - at - 1;
            }
            const size_t extent = offsets ? N : count * size;
            CHECK_CUDA(cudaMemcpy(d_in + off * elem, h_in, N * elem, cudaMemcpyHostToDevice));
            for (int fn = FN_REDUCE; fn <= FN_EXCLUSIVE; ++fn) {
                const size_t outs = fn == FN_REDUCE ? count : extent;
                CHECK_CUDA(cudaMemset(d_out, POISON, (N + 3) * 8));
                seg_call c = make_call(d_in + off * elem, fn == FN_REDUCE ? d_out : d_out + off * elem, &segs,
                                       dtype, WK_SUM);
                c.fn = fn;
                snprintf(current_call, sizeof current_call, "%s sum %s over %s%zu with NaN payloads, input +%zu",
                         wk_dtype_name(dtype), fn_name(fn), offsets ? "offsets, " : "rows of ",
                         offsets ? offset_segs : size, off);
                const wk_status st = run_call(&c, stream);
                copy_to_host(h_out, c.out, outs * elem);
                size_t nans = 0, stray = wk_stray_nans(h_out, outs, dtype, &nans);
                wk_checkf(&tally, st == WK_SUCCESS && nans == want[fn] && stray == 0,
                          "%s: %s, %zu NaN results (want %zu), %zu not 0x%llx", current_call, wk_status_string(st),
                          nans, want[fn], stray, (unsigned long long)wk_sum_nan_bits(dtype));
            }
        }
    }
    WK_FREE_DEVICE(d_in, d_out, d_begin, d_end);
    WK_FREE_HOST(h_in, h_out, h_begin, h_end);
}

/* --------------------------------------------------- over 2^31 elements */

/* A layout given by hand (not from the list): every call runs. */
static const layout_spec custom_spec = {L_UNIFORM, 0, 0, 0, TIER_LARGE, 0};

static void custom_layout(layout *l, const char *name, wk_ref_segments ref, const int64_t *offsets, size_t values)
{
    memset(l, 0, sizeof *l);
    l->spec = &custom_spec;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->ref = ref;
    if (offsets) {
        l->h_offsets = malloc(values * sizeof *offsets);
        need(l->h_offsets != NULL, "a layout's offsets");
        memcpy(l->h_offsets, offsets, values * sizeof *offsets);
        l->ref.begin = l->h_offsets + (ref.begin - offsets);
        l->ref.end = l->h_offsets + (ref.end - offsets);
    }
    finish_layout(l, values);
}

/* f16 inputs of 2^31 + 1000 elements: one segment of all of them, offsets
 * around 2^31 (byte offsets past 2^32), and three segments of about 10^5
 * elements, too short to be listed at this size but longer than a scan's
 * piece: one warp folds each in one range and scans it piece by piece,
 * each piece's scan from the totals before it. The extremes sit at the
 * last two elements, so in the first two layouts the arg ops' indices are
 * over 2^31. Sums of that many elements are checked against the bound,
 * which at this length says little; the extremes and the scan of the
 * maximum are exact. */
static void test_over_2e31(void)
{
    const size_t n = ((size_t)1 << 31) + 1000, two31 = (size_t)1 << 31;
    const wk_dtype dtype = WK_F16;
    int64_t off[10] = {(int64_t)two31 - 500, 0, (int64_t)n - 10, (int64_t)two31, INT64_MIN,
                       (int64_t)two31 + 500, (int64_t)n, (int64_t)n + 100, (int64_t)two31, 5};
    int64_t mid[6] = {1, (int64_t)two31 - 200001, (int64_t)n - 100003, 100002, (int64_t)two31 - 100001, (int64_t)n};
    layout ls[3];
    custom_layout(&ls[0], "uniform 1 x (2^31 + 1000)", (wk_ref_segments){1, n, 0, NULL, NULL}, NULL, 0);
    custom_layout(&ls[1], "offsets around 2^31 over 2^31 + 1000", (wk_ref_segments){5, n, 0, off, off + 5}, off, 10);
    custom_layout(&ls[2], "three of about 10^5 over 2^31 + 1000", (wk_ref_segments){3, n, 0, mid, mid + 3}, mid, 6);
    for (int k = 0; k < 3; ++k) {
        layout *l = &ls[k];
        input in;
        unsigned char *h = stage_begin(&in, l, dtype, 1 + (size_t)k);
        wk_generate(h, n, dtype, WK_GEN_SMALL_INTS, seed ^ 0x232ull);
        wk_plant_specials(h, n, dtype, WK_SPECIAL_AT_END, seed);
        stage_finish(&in);
        const wk_op ops[] = {WK_ARGMAX, WK_ARGMIN, WK_MIN, WK_SUM};
        for (int o = 0; o < 4; ++o) {
            verdict v = {1, ""};
            snprintf(current_call, sizeof current_call, "f16 %s reduce on %s", wk_op_name(ops[o]), l->name);
            run_reduce(&in, ops[o], (size_t)o % 2, &v);
            wk_checkf(&tally, v.ok, "f16 %s reduce on %s: %s", wk_op_name(ops[o]), l->name, v.ok ? "matches" : v.why);
        }
        if (l->disjoint) {
            verdict v = {1, ""};
            wk_value init;
            init.u64 = 0;
            snprintf(current_call, sizeof current_call, "f16 max inclusive scan on %s", l->name);
            run_scan(&in, FN_INCLUSIVE, WK_MAX, init, k == 0, 3, &v);
            wk_checkf(&tally, v.ok, "f16 max inclusive scan%s on %s: %s", k == 0 ? " in place" : "", l->name,
                      v.ok ? "matches" : v.why);
        }
        free_layout(l);
        fflush(stdout);
    }
    free_buffers();
}

int main(void)
{
    level = wk_test_level_get();
    int setup = wk_test_setup(wk_create(&ctx, -1), "wk_create");
    if (setup >= 0)
        return setup;
    seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat), level %s\n", (unsigned long long)seed, wk_test_level_name(level));
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUDA(cudaMalloc((void **)&d_region, REGION_BYTES));

    if (level != WK_LEVEL_LARGE) {
        test_rejections();
        test_nothing_to_do();
        test_back_to_back();
    }
    if (level == WK_LEVEL_DEFAULT)
        test_overflow_same_bits();
    if (level != WK_LEVEL_LARGE)
        test_nan_payloads();
    test_values();
    free_buffers();
    if (level == WK_LEVEL_LARGE)
        test_over_2e31();

    CHECK_CUDA(cudaFree(d_region));
    CHECK_CUDA(cudaStreamDestroy(stream));
    wk_destroy(ctx);
    printf("seed %llu, level %s: ", (unsigned long long)seed, wk_test_level_name(level));
    return wk_tally_finish(&tally);
}
