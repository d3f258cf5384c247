#include "check/segmented_check.h"

#include "ref/reference.h"
#include "ref/segmented_reference.h"
#include "ref/splitmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xA5
#define GUARD_BYTE 0xFF
#define GUARD_ELEMS 64

static const char *call_name(wk_seg_call call)
{
    return call == WK_SEG_REDUCE ? "reduce" : call == WK_SEG_INCLUSIVE ? "inclusive" : "exclusive";
}

static const char *layout_name(wk_seg_layout layout)
{
    static const char *const names[] = {"uniform", "rows", "offsets", "wild-offsets"};
    return names[layout];
}

void wk_describe_segmented_case(const wk_segmented_case *c, char *buf, size_t size)
{
    snprintf(buf, size, "segmented %-9s %-4s %-6s %-12s count=%-6zu size=%-6zu offset=%zu %s", call_name(c->call),
             wk_dtype_name(c->dtype), wk_op_name(c->op), layout_name(c->layout), c->count, c->size, c->offset,
             c->pattern == WK_GEN_SMALL_INTS ? "small-ints" : "uniform");
}

/* ----------------------------------------------------------------- list */

/* Shapes that cross the kernels' choices: rows shorter than a warp, of one
 * warp, within a block, and over a block's share. */
static const size_t quick_sizes[][2] = {{1, 40}, {3, 33}, {32, 17}, {33, 9}, {1000, 5}, {5000, 2}};
static const size_t full_sizes[][2] = {{0, 4},      {1, 1000},   {2, 777},    {3, 33},  {31, 64},
                                       {32, 65},    {33, 300},   {1000, 100}, {70000, 3}, {1 << 20, 2}};

static size_t emit(wk_segmented_case *out, size_t cap, size_t k, const wk_segmented_case *c)
{
    if (out && k < cap)
        out[k] = *c;
    return k + 1;
}

size_t wk_segmented_cases(wk_case_level level, uint64_t seed, wk_segmented_case *out, size_t cap)
{
    const int full = level == WK_CASES_FULL;
    const size_t (*sizes)[2] = full ? full_sizes : quick_sizes;
    const size_t shapes = full ? sizeof full_sizes / sizeof full_sizes[0] : sizeof quick_sizes / sizeof quick_sizes[0];
    size_t k = 0;
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        const wk_dtype dtype = (wk_dtype)d;
        const int integer = !wk_dtype_is_float(dtype);
        for (int call = WK_SEG_REDUCE; call <= WK_SEG_EXCLUSIVE; ++call)
            for (int op = WK_SUM; op <= WK_ARGMAX; ++op) {
                if (call != WK_SEG_REDUCE && wk_op_is_arg((wk_op)op))
                    continue;
                if (wk_op_is_bitwise((wk_op)op) && !integer)
                    continue;
                /* A call the library refuses (a sum of bools): one case
                 * per call, which expects the refusal. */
                const int refused = wk_ref_dtype_op_status(dtype, (wk_op)op) != WK_SUCCESS;
                const int layouts = call == WK_SEG_REDUCE ? WK_SEG_WILD + 1 : WK_SEG_WILD;
                for (int layout = WK_SEG_UNIFORM; layout <= WK_SEG_WILD; ++layout) {
                    if (layout == WK_SEG_WILD && call != WK_SEG_REDUCE)
                        continue;
                    if (refused && layout != WK_SEG_UNIFORM)
                        continue;
                    /* Bools run u8's kernels, whose shapes u8's cases
                     * cover: the quick level takes one layout per (call,
                     * op), in turn. */
                    if (!full && dtype == WK_BOOL && !refused && layout != (call + op) % layouts)
                        continue;
                    for (size_t s = 0; s < shapes; ++s) {
                        /* The quick level takes one shape per (dtype, call, op, layout), in turn. */
                        if ((!full || refused) && s != (size_t)(d + call + op + layout) % shapes)
                            continue;
                        wk_segmented_case c;
                        c.call = (wk_seg_call)call;
                        c.dtype = dtype;
                        c.op = (wk_op)op;
                        c.layout = (wk_seg_layout)layout;
                        c.size = sizes[s][0];
                        c.count = sizes[s][1];
                        c.seed = wk_splitmix64_at(seed, k);
                        c.offset = (size_t)(c.seed >> 60) % 4;
                        c.pattern = (c.seed >> 56) & 1 ? WK_GEN_SMALL_INTS : WK_GEN_UNIFORM;
                        k = emit(out, cap, k, &c);
                    }
                }
            }
    }
    return k;
}

/* ---------------------------------------------------------------- check */

/* The layout in host memory: begin / end for the offsets layouts. */
typedef struct host_layout {
    wk_ref_segments ref;
    int64_t *begin, *end;
    size_t extent; /* elements of the input the layout spans */
} host_layout;

static int build_layout(const wk_segmented_case *c, host_layout *l)
{
    memset(l, 0, sizeof *l);
    l->ref.count = c->count;
    l->ref.size = c->size;
    switch (c->layout) {
    case WK_SEG_UNIFORM:
        l->extent = c->count * c->size;
        return 1;
    case WK_SEG_ROWS:
        l->ref.stride = c->size + 1 + (size_t)(c->seed % 7);
        l->extent = c->count ? (c->count - 1) * l->ref.stride + c->size : 0;
        return 1;
    default: break;
    }
    size_t total = c->count * c->size;
    size_t *lengths = malloc((c->count + 1) * sizeof *lengths);
    l->begin = malloc((c->count + 1) * sizeof *l->begin);
    l->end = malloc((c->count + 1) * sizeof *l->end);
    if (!lengths || !l->begin || !l->end) {
        free(lengths);
        free(l->begin);
        free(l->end);
        l->begin = l->end = NULL;
        return 0;
    }
    if (c->layout == WK_SEG_OFFSETS) {
        wk_ref_power_law_sizes(c->seed, c->count, total, 0.8, lengths);
        l->extent = wk_ref_disjoint_offsets(c->seed ^ 1, lengths, c->count, 5, l->begin, l->end);
    } else {
        l->extent = total;
        wk_ref_wild_offsets(c->seed, c->count, total, 2 * c->size + 1, l->begin, l->end);
    }
    free(lengths);
    l->ref.size = l->extent;
    l->ref.begin = l->begin;
    l->ref.end = l->end;
    return 1;
}

static wk_value pick_init(wk_dtype dtype)
{
    wk_value v;
    memset(&v, 0, sizeof v);
    switch (dtype) {
    case WK_I32: v.i32 = 3; break;
    case WK_U32: v.u32 = 3; break;
    case WK_I64: v.i64 = 3; break;
    case WK_U64: v.u64 = 3; break;
    case WK_F32: v.f32 = 3.0f; break;
    case WK_F64: v.f64 = 3.0; break;
    case WK_F16: v.f16 = 0x4200; break;  /* 3.0 */
    case WK_BF16: v.bf16 = 0x4040; break; /* 3.0 */
    case WK_BOOL: v.b = 1; break;
    case WK_U8: v.u8 = 3; break;
    case WK_I8: v.i8 = 3; break;
    case WK_I16: v.i16 = 3; break;
    case WK_U16: v.u16 = 3; break;
    }
    return v;
}

/* The case's call, on d_in into d_out. */
static wk_status run(wk_check_env *env, const wk_segmented_case *c, const void *d_in, void *d_out,
                     const wk_segments *s)
{
    switch (c->call) {
    case WK_SEG_REDUCE: return wk_segmented_reduce(env->ctx, d_in, d_out, s, c->dtype, c->op, env->stream);
    case WK_SEG_INCLUSIVE:
        return wk_segmented_inclusive_scan(env->ctx, d_in, d_out, s, c->dtype, c->op, env->stream);
    default:
        return wk_segmented_exclusive_scan(env->ctx, d_in, d_out, s, c->dtype, c->op, pick_init(c->dtype),
                                           env->stream);
    }
}

static wk_check_result finish(char *msg, size_t size, const char *name, const char *detail, wk_check_result r)
{
    snprintf(msg, size, "%s: %s", name, detail);
    return r;
}

wk_check_result wk_check_segmented_case(wk_check_env *env, const wk_segmented_case *c, char *msg, size_t msg_size)
{
    char name[200], detail[1024];
    wk_describe_segmented_case(c, name, sizeof name);
    host_layout l;
    if (!build_layout(c, &l))
        return finish(msg, msg_size, name, "out of host memory", WK_CHECK_FAIL);
    const size_t elem = wk_dtype_size(c->dtype);
    /* A call the library refuses (a sum of bools) must say so and leave
     * its output as it was. */
    const wk_status want = wk_ref_dtype_op_status(c->dtype, c->op);
    const size_t in_bytes = (c->offset + l.extent + GUARD_ELEMS) * elem;
    const size_t out_bytes = c->call == WK_SEG_REDUCE ? c->count * wk_reduce_result_size(c->dtype, c->op)
                                                      : (l.extent > 0 ? l.extent : 1) * elem;
    /* The offsets sit after the output, from a 16-byte boundary. */
    const size_t offsets_at = (out_bytes + 15) / 16 * 16;
    const size_t offsets_bytes = l.begin ? 2 * (c->count + 1) * sizeof(int64_t) : 0;
    wk_check_result r = wk_check_reserve(env, in_bytes, offsets_at + offsets_bytes, 0, detail, sizeof detail);
    unsigned char *h_in = NULL, *first = NULL, *again = NULL, *poison = NULL;
    if (r != WK_CHECK_PASS)
        goto done;
    h_in = malloc(l.extent * elem + 1);
    first = malloc(out_bytes);
    again = malloc(out_bytes);
    poison = malloc(out_bytes);
    r = WK_CHECK_FAIL;
    if (!h_in || !first || !again || !poison) {
        snprintf(detail, sizeof detail, "out of host memory");
        goto done;
    }
    wk_generate(h_in, l.extent, c->dtype, c->pattern, c->seed);
    memset(poison, POISON_BYTE, out_bytes);
    /* The input between guards of all-ones bytes; the offsets after the output. */
    unsigned char *d_in = (unsigned char *)env->d_in + c->offset * elem;
    unsigned char *d_out = env->d_big;
    wk_segments s = {c->count, l.ref.size, l.ref.stride, NULL, NULL};
    if (l.begin) {
        int64_t *d_offsets = (int64_t *)(d_out + offsets_at);
        s.d_begin = d_offsets;
        s.d_end = d_offsets + c->count + 1;
        if (cudaMemcpy(d_offsets, l.begin, c->count * sizeof(int64_t), cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemcpy(d_offsets + c->count + 1, l.end, c->count * sizeof(int64_t), cudaMemcpyHostToDevice) !=
                cudaSuccess) {
            snprintf(detail, sizeof detail, "cannot stage the offsets");
            goto done;
        }
    }
    if (cudaMemset(env->d_in, GUARD_BYTE, in_bytes) != cudaSuccess ||
        cudaMemcpy(d_in, h_in, l.extent * elem, cudaMemcpyHostToDevice) != cudaSuccess) {
        snprintf(detail, sizeof detail, "cannot stage the input");
        goto done;
    }
    for (int pass = 0; pass < 2; ++pass) {
        unsigned char *got = pass == 0 ? first : again;
        if (cudaMemcpy(d_out, poison, out_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
            snprintf(detail, sizeof detail, "cannot poison the output");
            goto done;
        }
        wk_status st = run(env, c, d_in, d_out, &s);
        if (st != want) {
            snprintf(detail, sizeof detail, "returned %s, want %s (%s)", wk_status_string(st),
                     wk_status_string(want), wk_last_error_message());
            goto done;
        }
        cudaError_t err = cudaStreamSynchronize(env->stream);
        if (err == cudaSuccess)
            err = cudaMemcpy(got, d_out, out_bytes, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess) {
            snprintf(detail, sizeof detail, "%s", cudaGetErrorString(err));
            goto done;
        }
        if (want != WK_SUCCESS) {
            int kept = memcmp(got, poison, out_bytes) == 0;
            snprintf(detail, sizeof detail, "%s", kept ? "refused, output untouched" : "refused, but wrote its output");
            r = kept ? WK_CHECK_PASS : WK_CHECK_FAIL;
            goto done;
        }
    }
    size_t bad;
    if (c->call == WK_SEG_REDUCE) {
        bad = wk_ref_check_segmented_reduce(h_in, first, &l.ref, c->dtype, c->op, detail, sizeof detail);
    } else {
        wk_ref_scan_spec spec = {c->dtype, c->op, c->call == WK_SEG_EXCLUSIVE, pick_init(c->dtype)};
        bad = wk_ref_check_segmented_scan(h_in, first, poison, &l.ref, &spec, detail, sizeof detail);
    }
    if (bad == 0 && memcmp(first, again, out_bytes) != 0)
        snprintf(detail, sizeof detail, "the second run gave other bits");
    else if (bad == 0)
        r = WK_CHECK_PASS;
done:
    free(h_in);
    free(first);
    free(again);
    free(poison);
    free(l.begin);
    free(l.end);
    return finish(msg, msg_size, name, detail, r);
}
