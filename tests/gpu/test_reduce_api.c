/* GPU test of wk_reduce's contract beyond the values: every bad argument
 * returns its status with a message, launches nothing (checked by capturing
 * the stream into a graph) and leaves the output as it was; a good call is
 * exactly one kernel launch at every size; wk_reduce_to_host and managed
 * memory work; wk_reduce_index writes the
 * index wk_reduce gives and nothing else; wk_copy_to_host reads back what
 * the stream's last kernel wrote. Exits 77 without a device. */
#include "api/tuning.h"
#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "test_util.h"
#include "warpkit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_BYTES 32

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;

/* One call of wk_reduce, or of wk_reduce_index (out its index). */
typedef struct reduce_call {
    int index_only;
    const void *in;
    void *out;
    size_t n;
    wk_dtype dtype;
    wk_op op;
} reduce_call;

static wk_status enqueue_reduce(const void *call, cudaStream_t s)
{
    const reduce_call *c = call;
    return c->index_only ? wk_reduce_index(ctx, c->in, (int64_t *)c->out, c->n, c->dtype, c->op, s)
                         : wk_reduce(ctx, c->in, c->out, c->n, c->dtype, c->op, s);
}

/* Runs the call under stream capture (see wk_capture_call) and reports how
 * many graph nodes it added, the launches (and copies) it enqueued, and
 * whether all are kernels. */
static wk_status captured(reduce_call c, size_t *nodes, int *all_kernels)
{
    wk_capture got;
    wk_status st = wk_capture_call(stream, enqueue_reduce, &c, &got, NULL);
    *nodes = got.nodes;
    *all_kernels = got.kernels == got.nodes;
    return st;
}

/* wk_reduce under stream capture, as `captured`. */
static wk_status captured_reduce(const void *in, void *out, size_t n, wk_dtype dtype, wk_op op, size_t *nodes,
                                 int *all_kernels)
{
    return captured((reduce_call){.index_only = 0, .in = in, .out = out, .n = n, .dtype = dtype, .op = op}, nodes,
                    all_kernels);
}

/* Many cases checked as one: each failing case is counted and printed on
 * its own, then one check says whether all passed. */
typedef struct case_count {
    int all, cases;
} case_count;

static void count_case(case_count *c, int ok, const char *label)
{
    if (!ok)
        wk_expect(&tally, 0, label);
    c->all &= ok;
    ++c->cases;
}

/* The check of all the cases: "<what>: <cases> <verdict>". */
static void expect_all_cases(const case_count *c, const char *what, const char *verdict)
{
    char label[160];
    snprintf(label, sizeof label, "%s: %d %s", what, c->cases, verdict);
    wk_expect(&tally, c->all, label);
}

static int out_untouched(const void *d_out) { return wk_device_changes(stream, d_out, OUT_BYTES, 0, 0) == 0; }

/* A bad call: the expected status, a message, no launch, output unchanged. */
static void expect_rejected(const char *what, wk_status want, const void *in, void *d_out_region, void *out,
                            size_t n, wk_dtype dtype, wk_op op)
{
    char label[256];
    size_t nodes;
    int kernels;
    CHECK_CUDA(cudaMemset(d_out_region, POISON, OUT_BYTES));
    wk_status got = captured_reduce(in, out, n, dtype, op, &nodes, &kernels);
    snprintf(label, sizeof label, "%s: status %s (want %s), message '%s', %zu launches", what, wk_status_string(got),
             wk_status_string(want), wk_last_error_message(), nodes);
    wk_expect(&tally, got == want, label);
    wk_expect(&tally, strlen(wk_last_error_message()) > 0, label);
    wk_expect(&tally, nodes == 0, label);
    wk_expect(&tally, out_untouched(d_out_region), label);
    printf("rejected as expected? %s\n", label);
}

static void test_rejections(void *d_in, void *d_out)
{
    float host_in[16];
    expect_rejected("NULL d_in with n > 0", WK_ERROR_INVALID_ARGUMENT, NULL, d_out, d_out, 10, WK_F32, WK_SUM);
    expect_rejected("NULL d_out", WK_ERROR_INVALID_ARGUMENT, d_in, d_out, NULL, 10, WK_F32, WK_SUM);
    expect_rejected("dtype 99", WK_ERROR_INVALID_DTYPE, d_in, d_out, d_out, 10, (wk_dtype)99, WK_SUM);
    expect_rejected("dtype -1", WK_ERROR_INVALID_DTYPE, d_in, d_out, d_out, 10, (wk_dtype)-1, WK_SUM);
    expect_rejected("op 42", WK_ERROR_INVALID_OP, d_in, d_out, d_out, 10, WK_F32, (wk_op)42);
    expect_rejected("xor on f32", WK_ERROR_UNSUPPORTED, d_in, d_out, d_out, 10, WK_F32, WK_XOR);
    expect_rejected("and on bf16", WK_ERROR_UNSUPPORTED, d_in, d_out, d_out, 10, WK_BF16, WK_AND);
    expect_rejected("host d_in", WK_ERROR_INVALID_POINTER, host_in, d_out, d_out, 16, WK_F32, WK_SUM);
    expect_rejected("host d_out", WK_ERROR_INVALID_POINTER, d_in, d_out, host_in, 16, WK_F32, WK_SUM);
    expect_rejected("d_in not aligned to its element", WK_ERROR_INVALID_POINTER, (char *)d_in + 1, d_out, d_out, 10,
                    WK_F32, WK_SUM);
    expect_rejected("argmax d_out not 8-aligned", WK_ERROR_INVALID_POINTER, d_in, d_out, (char *)d_out + 4, 10,
                    WK_F32, WK_ARGMAX);
    expect_rejected("n * size overflows", WK_ERROR_LIMIT, d_in, d_out, d_out, SIZE_MAX / 2, WK_F32,
                    WK_SUM);
    expect_rejected("d_out inside d_in", WK_ERROR_INVALID_ARGUMENT, d_in, d_out, (char *)d_in + 64, 100, WK_F32,
                    WK_SUM);

    wk_status st = wk_reduce(NULL, d_in, d_out, 10, WK_F32, WK_SUM, stream);
    wk_expect(&tally, st == WK_ERROR_INVALID_ARGUMENT, "NULL context is rejected");
    unsigned char h[16];
    st = wk_reduce_to_host(ctx, d_in, NULL, 10, WK_F32, WK_SUM, stream);
    wk_expect(&tally, st == WK_ERROR_INVALID_ARGUMENT, "wk_reduce_to_host with NULL h_out is rejected");
    memset(h, POISON, sizeof h);
    st = wk_reduce_to_host(ctx, d_in, h, 10, WK_F64, WK_OR, stream);
    wk_expect(&tally, st == WK_ERROR_UNSUPPORTED && h[0] == POISON, "wk_reduce_to_host rejects or on f64, h_out untouched");
}

/* One kernel launch and nothing else, at every size including n = 0 and
 * n > 2^31 (captured, not run: only the launch count is checked). The
 * output sits below the input so that no n makes the ranges overlap. */
static void test_single_launch(void *a, void *b)
{
    void *d_out = (uintptr_t)a < (uintptr_t)b ? a : b;
    void *d_in = d_out == a ? b : a;
    const size_t sizes[] = {0, 1, 1000, (size_t)1 << 20, ((size_t)1 << 31) + 5, (size_t)1 << 34};
    const wk_op ops[] = {WK_SUM, WK_ARGMAX};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t o = 0; o < 2; ++o) {
            size_t nodes;
            int kernels;
            wk_status st = captured_reduce(d_in, d_out, sizes[s], WK_F32, ops[o], &nodes, &kernels);
            char label[128];
            snprintf(label, sizeof label, "n=%zu %s: one kernel launch (got %zu nodes, status %s)", sizes[s],
                     wk_op_name(ops[o]), nodes, wk_status_string(st));
            wk_expect(&tally, st == WK_SUCCESS && nodes == 1 && kernels, label);
        }
}

/* wk_reduce_to_host, identities and n = 0, and managed memory. */
static void test_conveniences(uint64_t seed, void *d_scratch)
{
    size_t n = 100003;
    int32_t *m;
    CHECK_CUDA(cudaMallocManaged((void **)&m, n * sizeof *m, cudaMemAttachGlobal));
    wk_generate(m, n, WK_I32, WK_GEN_UNIFORM, seed);
    uint32_t want = 0;
    for (size_t i = 0; i < n; ++i)
        want += (uint32_t)m[i];
    int32_t got = 0;
    wk_status st = wk_reduce_to_host(ctx, m, &got, n, WK_I32, WK_SUM, stream);
    wk_expect(&tally, st == WK_SUCCESS && (uint32_t)got == want, "i32 sum over managed memory via wk_reduce_to_host");
    CHECK_CUDA(cudaFree(m));

    /* Every element equal to the identity of the arg op: the answer is the
     * first element, index 0, not "no element". */
    size_t k = 4099;
    float *h_inf = malloc(k * sizeof *h_inf);
    int32_t *h_int = malloc(k * sizeof *h_int);
    float *d_inf;
    int32_t *d_int;
    CHECK_CUDA(cudaMalloc((void **)&d_inf, k * sizeof *h_inf));
    CHECK_CUDA(cudaMalloc((void **)&d_int, k * sizeof *h_int));
    wk_arg_result r;
    const int signs[2] = {-1, 1};
    for (int s = 0; s < 2; ++s) {
        wk_op op = signs[s] < 0 ? WK_ARGMAX : WK_ARGMIN;
        for (size_t i = 0; i < k; ++i) {
            h_inf[i] = signs[s] * INFINITY;
            h_int[i] = signs[s] < 0 ? INT32_MIN : INT32_MAX;
        }
        CHECK_CUDA(cudaMemcpy(d_inf, h_inf, k * sizeof *h_inf, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_int, h_int, k * sizeof *h_int, cudaMemcpyHostToDevice));
        char label[128];
        st = wk_reduce_to_host(ctx, d_inf + 1, &r, k - 1, WK_F32, op, stream);
        snprintf(label, sizeof label, "%s of all %cinf (unaligned) is index 0", wk_op_name(op), signs[s] < 0 ? '-' : '+');
        wk_expect(&tally, st == WK_SUCCESS && r.index == 0 && isinf(r.value.f32) && (r.value.f32 < 0) == (signs[s] < 0),
                  label);
        st = wk_reduce_to_host(ctx, d_int, &r, k, WK_I32, op, stream);
        snprintf(label, sizeof label, "%s of all INT32_%s is index 0", wk_op_name(op), signs[s] < 0 ? "MIN" : "MAX");
        wk_expect(&tally, st == WK_SUCCESS && r.index == 0 && r.value.i32 == h_int[0], label);
    }
    WK_FREE_DEVICE(d_inf, d_int);
    WK_FREE_HOST(h_inf, h_int);

    /* n = 0 gives the identity and index -1, whatever the input pointer:
     * NULL, or not even aligned to the element. */
    uint32_t bits;
    memset(&r, 0x11, sizeof r);
    st = wk_reduce_to_host(ctx, NULL, &r, 0, WK_F32, WK_ARGMIN, stream);
    memcpy(&bits, &r.value, sizeof bits);
    wk_expect(&tally, st == WK_SUCCESS && r.index == -1 && bits == 0x7f800000u && r.value.u64 >> 32 == 0,
              "argmin of n = 0 (NULL input) gives +inf, upper bytes zero, index -1");
    uint64_t sum = 77;
    st = wk_reduce_to_host(ctx, (char *)d_scratch + 3, &sum, 0, WK_U64, WK_SUM, stream);
    wk_expect(&tally, st == WK_SUCCESS && sum == 0, "sum of n = 0 at a misaligned pointer is 0");
}

/* Many reductions enqueued back to back with no synchronization between
 * them, over all launch shapes, then one that reads every earlier result:
 * the ticket reset and the launch overlap must keep each call's effects in
 * stream order. */
static void test_back_to_back(uint64_t seed)
{
    enum { CALLS = 48 };
    const size_t sizes[] = {1, 1000, 70001, 1000003, ((size_t)1 << 22) + 3, 4096};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    size_t largest = ((size_t)1 << 22) + 3;
    int32_t *h = malloc(largest * sizeof *h), *d_in[6], *d_out, *d_total;
    uint32_t want[CALLS], want_total = 0;
    for (size_t s = 0; s < nsizes; ++s) {
        wk_generate(h, sizes[s], WK_I32, WK_GEN_UNIFORM, seed + s);
        CHECK_CUDA(cudaMalloc((void **)&d_in[s], sizes[s] * sizeof *h));
        CHECK_CUDA(cudaMemcpy(d_in[s], h, sizes[s] * sizeof *h, cudaMemcpyHostToDevice));
        uint32_t sum = 0;
        for (size_t i = 0; i < sizes[s]; ++i)
            sum += (uint32_t)h[i];
        for (int c = (int)s; c < CALLS; c += (int)nsizes)
            want[c] = sum;
    }
    for (int c = 0; c < CALLS; ++c)
        want_total += want[c];
    CHECK_CUDA(cudaMalloc((void **)&d_out, CALLS * sizeof *d_out));
    CHECK_CUDA(cudaMalloc((void **)&d_total, sizeof *d_total));
    CHECK_CUDA(cudaMemset(d_out, 0xA5, CALLS * sizeof *d_out));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    int ok = 1;
    for (int c = 0; c < CALLS; ++c)
        ok &= wk_reduce(ctx, d_in[c % nsizes], d_out + c, sizes[c % nsizes], WK_I32, WK_SUM, stream) == WK_SUCCESS;
    ok &= wk_reduce(ctx, d_out, d_total, CALLS, WK_I32, WK_SUM, stream) == WK_SUCCESS;
    int32_t got[CALLS], got_total;
    CHECK_CUDA(cudaMemcpyAsync(got, d_out, sizeof got, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaMemcpyAsync(&got_total, d_total, sizeof got_total, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    for (int c = 0; c < CALLS; ++c)
        ok &= (uint32_t)got[c] == want[c];
    wk_expect(&tally, ok, "48 i32 sums back to back over every launch shape match the reference");
    wk_expect(&tally, (uint32_t)got_total == want_total, "a sum of the 48 results, launched right after them, sees them all");

    for (size_t s = 0; s < nsizes; ++s)
        CHECK_CUDA(cudaFree(d_in[s]));
    WK_FREE_DEVICE(d_out, d_total);
    WK_FREE_HOST(h);
}

/* --------------------------------------------------------- forced shapes */

/* A dtype, op and input pattern that a forced shape is compared on. */
typedef struct shape_kind {
    wk_dtype dtype;
    wk_op op;
    wk_gen_pattern pattern;
} shape_kind;

/* Host staging for an input, the input on the device, and two result
 * slots of OUT_BYTES: the wide shape's (0) and the forced shape's (1). */
typedef struct shape_buffers {
    unsigned char *h, *d, *d_out;
} shape_buffers;

/* Allocates the buffers for inputs of up to `most` bytes; 0 (counted as a
 * failure of `what`) when the host has no room. */
static int shape_buffers_alloc(shape_buffers *b, size_t most, const char *what)
{
    b->h = malloc(most);
    if (!b->h) {
        wk_expect(&tally, 0, what);
        return 0;
    }
    CHECK_CUDA(cudaMalloc((void **)&b->d, most));
    CHECK_CUDA(cudaMalloc((void **)&b->d_out, 2 * OUT_BYTES));
    return 1;
}

static void shape_buffers_free(shape_buffers *b)
{
    WK_FREE_DEVICE(b->d, b->d_out);
    WK_FREE_HOST(b->h);
}

/* Reduces the staged n elements with the shape and grid into result slot
 * `slot` (poisoned first) and copies the result to got. Returns the call's
 * status. */
static wk_status shaped_result(const shape_buffers *b, const shape_kind *k, size_t n, wk_reduce_shape shape,
                               unsigned grid, size_t slot, unsigned char *got)
{
    unsigned char *out = b->d_out + slot * OUT_BYTES;
    CHECK_CUDA(cudaMemset(out, POISON, OUT_BYTES));
    wk_status st = wk_reduce_shaped(ctx, b->d + wk_dtype_size(k->dtype), out, n, k->dtype, k->op, shape, grid, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(got, out, wk_reduce_result_size(k->dtype, k->op), cudaMemcpyDeviceToHost));
    return st;
}

/* Generates n elements of the kind from `seed` into the device input, one
 * element past its start (an odd offset), and checks that `shape` (called
 * `name`) at each of the grids gives the wide shape's bits. */
static void expect_wide_bits(const shape_buffers *b, const shape_kind *kind, size_t n, uint64_t seed,
                             const char *name, wk_reduce_shape shape, const unsigned *grids, size_t grid_count)
{
    const unsigned wide_grid = (unsigned)wk_context_sm_count(ctx) * WK_WIDE_BLOCKS_PER_SM;
    const size_t elem = wk_dtype_size(kind->dtype), res = wk_reduce_result_size(kind->dtype, kind->op);
    wk_generate(b->h, n, kind->dtype, kind->pattern, seed);
    CHECK_CUDA(cudaMemcpy(b->d + elem, b->h, n * elem, cudaMemcpyHostToDevice));
    unsigned char want[OUT_BYTES], got[OUT_BYTES];
    const int wide_ok = shaped_result(b, kind, n, WK_SHAPE_WIDE, wide_grid, 0, want) == WK_SUCCESS;
    for (size_t g = 0; g < grid_count; ++g) {
        wk_status st = shaped_result(b, kind, n, shape, grids[g], 1, got);
        char label[192];
        snprintf(label, sizeof label, "%s shape, %s %s n=%zu at an odd offset, grid %u: the wide shape's bits", name,
                 wk_dtype_name(kind->dtype), wk_op_name(kind->op), n, grids[g]);
        wk_expect(&tally, wide_ok && st == WK_SUCCESS && memcmp(want, got, res) == 0, label);
    }
}

/* The tiles shape, forced: one tile a block, several tiles a block, one
 * block, two groups of blocks (the last size), a head and a tail. Each
 * result must equal the wide shape's, bit for bit: integer sums wrap and
 * min picks exactly, arg-max picks the first largest, and sums of whole
 * floats in [-8, 8] stay exact in any order (their partial sums are far
 * below 2^24 on random data). */
static void test_tiles_shape(uint64_t seed)
{
    /* The last input: 4101 tiles of 32 KiB, a head of one vector less an
     * element (the input starts one element past a 16-byte boundary) and a
     * tail of one element. */
    const size_t big_vectors = (size_t)(WK_TILES_GROUP + 5) * WK_TILES_THREADS * WK_TILES_VECTORS;
    const size_t most = (big_vectors + 2) * 16;
    const unsigned grids[] = {1, 7, 4097, WK_TILES_MAX_BLOCKS};
    const shape_kind kinds[] = {{WK_F32, WK_SUM, WK_GEN_SMALL_INTS},
                                {WK_I32, WK_SUM, WK_GEN_UNIFORM},
                                {WK_F64, WK_ARGMAX, WK_GEN_UNIFORM},
                                {WK_I64, WK_MIN, WK_GEN_UNIFORM},
                                {WK_F16, WK_SUM, WK_GEN_SMALL_INTS}};
    shape_buffers b;
    if (!shape_buffers_alloc(&b, most, "tiles shape: host memory for the input"))
        return;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        const size_t vec = 16 / wk_dtype_size(kinds[k].dtype), head = vec - 1;
        const size_t sizes[] = {1, 2047, 1000003, head + big_vectors * vec + 1};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            expect_wide_bits(&b, &kinds[k], sizes[s], seed ^ (k * 16 + s), "tiles", WK_SHAPE_TILES, grids,
                             sizeof grids / sizeof grids[0]);
    }
    wk_status st =
        wk_reduce_shaped(ctx, b.d, b.d_out, 10, WK_F32, WK_SUM, WK_SHAPE_TILES, WK_TILES_MAX_BLOCKS + 1, stream);
    wk_expect(&tally, st == WK_ERROR_INVALID_ARGUMENT, "tiles shape: a grid past the partial slots is rejected");
    shape_buffers_free(&b);
}

/* The cluster shape, forced where the planner would not take it too (one
 * element, a million): each result must equal the wide shape's bits, for
 * the reasons given above. A grid other than the cluster's is refused. */
static void test_cluster_shape(uint64_t seed)
{
    const unsigned grid[] = {WK_CLUSTER_BLOCKS};
    const shape_kind kinds[] = {{WK_F32, WK_SUM, WK_GEN_SMALL_INTS},
                                {WK_I32, WK_SUM, WK_GEN_UNIFORM},
                                {WK_F64, WK_ARGMAX, WK_GEN_SMALL_INTS},
                                {WK_I64, WK_MIN, WK_GEN_UNIFORM},
                                {WK_F16, WK_SUM, WK_GEN_SMALL_INTS}};
    const size_t most = 1000003 * 8 + 16;
    shape_buffers b;
    if (!shape_buffers_alloc(&b, most, "cluster shape: host memory for the input"))
        return;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        const size_t vec = 16 / wk_dtype_size(kinds[k].dtype);
        const size_t cluster = (size_t)WK_CLUSTER_BLOCKS * WK_CLUSTER_THREADS * WK_CLUSTER_UNROLL * vec;
        const size_t sizes[] = {1, 2049 * vec + 3, cluster - 1, cluster + vec, 1000003};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            expect_wide_bits(&b, &kinds[k], sizes[s], seed ^ (k * 16 + s), "cluster", WK_SHAPE_CLUSTER, grid, 1);
    }
    CHECK_CUDA(cudaMemset(b.d_out, POISON, OUT_BYTES));
    wk_status st =
        wk_reduce_shaped(ctx, b.d, b.d_out, 10, WK_F32, WK_SUM, WK_SHAPE_CLUSTER, 2 * WK_CLUSTER_BLOCKS, stream);
    unsigned char after[OUT_BYTES], poison[OUT_BYTES];
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(after, b.d_out, OUT_BYTES, cudaMemcpyDeviceToHost));
    memset(poison, POISON, OUT_BYTES);
    wk_expect(&tally, st == WK_ERROR_INVALID_ARGUMENT && memcmp(after, poison, OUT_BYTES) == 0,
              "cluster shape: another grid is refused and writes nothing");
    shape_buffers_free(&b);
}

/* A sum holding NaNs of both signs comes back as the dtype's one NaN
 * (wk_sum_nan_bits), at sizes that take each shape: which sign survives the
 * additions depends on their compiled operand order, not on the input. */
static void test_nan_bits(uint64_t seed)
{
    const wk_dtype dtypes[] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    const size_t sizes[] = {1, 7, 4099, 100003, ((size_t)1 << 22) + 5};
    const size_t most = sizes[4];
    unsigned char *h = malloc(most * 8), *d_in, *d_out;
    if (!h) {
        wk_expect(&tally, 0, "NaN sums: host memory for the input");
        return;
    }
    CHECK_CUDA(cudaMalloc((void **)&d_in, most * 8 + 16));
    CHECK_CUDA(cudaMalloc((void **)&d_out, 16));
    for (size_t d = 0; d < 4; ++d) {
        const wk_dtype dtype = dtypes[d];
        const size_t elem = wk_dtype_size(dtype);
        for (size_t k = 0; k < 5; ++k) {
            const size_t n = sizes[k], off = k % 3;
            const uint64_t r = wk_rand64(seed ^ 0xa4aull, d * 8 + k);
            wk_generate(h, n, dtype, WK_GEN_UNIFORM, r);
            const size_t at_neg = (r >> 8) % n, at_pos = (r >> 36) % n;
            wk_store_signed_nan(h, at_pos, dtype, 0);
            wk_store_signed_nan(h, at_neg, dtype, 1); /* the only one where n = 1 */
            CHECK_CUDA(cudaMemcpy(d_in + off * elem, h, n * elem, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemset(d_out, POISON, 16));
            wk_status st = wk_reduce(ctx, d_in + off * elem, d_out, n, dtype, WK_SUM, stream);
            unsigned char got[8];
            CHECK_CUDA(cudaStreamSynchronize(stream));
            CHECK_CUDA(cudaMemcpy(got, d_out, elem, cudaMemcpyDeviceToHost));
            size_t nans = 0, stray = wk_stray_nans(got, 1, dtype, &nans);
            unsigned long long bits = 0;
            memcpy(&bits, got, elem);
            char label[192];
            snprintf(label, sizeof label,
                     "%s sum of %zu elements (input +%zu) with NaNs of both signs: got 0x%llx, want the NaN 0x%llx",
                     wk_dtype_name(dtype), n, off, bits, (unsigned long long)wk_sum_nan_bits(dtype));
            wk_expect(&tally, st == WK_SUCCESS && nans == 1 && stray == 0, label);
        }
    }
    WK_FREE_DEVICE(d_in, d_out);
    WK_FREE_HOST(h);
}

/* wk_reduce_index under stream capture, as `captured`. */
static wk_status captured_index(const void *in, void *out, size_t n, wk_dtype dtype, wk_op op, size_t *nodes)
{
    int all_kernels;
    return captured((reduce_call){.index_only = 1, .in = in, .out = out, .n = n, .dtype = dtype, .op = op}, nodes,
                    &all_kernels);
}

static void expect_index_rejected(const char *what, wk_status want, const void *in, void *d_out_region, void *out,
                                  size_t n, wk_dtype dtype, wk_op op)
{
    char label[256];
    size_t nodes;
    CHECK_CUDA(cudaMemset(d_out_region, POISON, OUT_BYTES));
    wk_status got = captured_index(in, out, n, dtype, op, &nodes);
    snprintf(label, sizeof label, "wk_reduce_index, %s: status %s (want %s), message '%s', %zu launches", what,
             wk_status_string(got), wk_status_string(want), wk_last_error_message(), nodes);
    wk_expect(&tally, got == want && strlen(wk_last_error_message()) > 0 && nodes == 0 && out_untouched(d_out_region),
              label);
}

/* wk_reduce_index: for every dtype, both ops, every launch shape (the sizes
 * run from one block to the tiles) and an input one element past its
 * allocation's start, the index equals wk_reduce's wk_arg_result.index on
 * the same input, ties included (small whole numbers), and the 8 bytes after
 * it are not written. Bad calls are rejected as wk_reduce's are; a good one
 * is one launch. */
static void test_index(uint64_t seed, void *d_small, void *d_small_out)
{
    float host[16];
    expect_index_rejected("op sum", WK_ERROR_INVALID_OP, d_small, d_small_out, d_small_out, 10, WK_F32, WK_SUM);
    expect_index_rejected("op min", WK_ERROR_INVALID_OP, d_small, d_small_out, d_small_out, 10, WK_I32, WK_MIN);
    expect_index_rejected("op 42", WK_ERROR_INVALID_OP, d_small, d_small_out, d_small_out, 10, WK_F32, (wk_op)42);
    expect_index_rejected("dtype 99", WK_ERROR_INVALID_DTYPE, d_small, d_small_out, d_small_out, 10, (wk_dtype)99,
                          WK_ARGMAX);
    expect_index_rejected("NULL d_index", WK_ERROR_INVALID_ARGUMENT, d_small, d_small_out, NULL, 10, WK_F32,
                          WK_ARGMAX);
    expect_index_rejected("d_index not 8-aligned", WK_ERROR_INVALID_POINTER, d_small, d_small_out,
                          (char *)d_small_out + 4, 10, WK_F32, WK_ARGMIN);
    expect_index_rejected("host d_index", WK_ERROR_INVALID_POINTER, d_small, d_small_out, host, 10, WK_F32,
                          WK_ARGMAX);
    expect_index_rejected("d_index inside d_in", WK_ERROR_INVALID_ARGUMENT, d_small, d_small_out, (char *)d_small + 64,
                          100, WK_F32, WK_ARGMAX);
    expect_index_rejected("n * size overflows", WK_ERROR_LIMIT, d_small, d_small_out, d_small_out,
                          SIZE_MAX / 2, WK_F64, WK_ARGMAX);
    wk_expect(&tally, wk_reduce_index(NULL, d_small, d_small_out, 10, WK_F32, WK_ARGMAX, stream) ==
                          WK_ERROR_INVALID_ARGUMENT,
              "wk_reduce_index: NULL context is rejected");
    const size_t launches[] = {0, 1000, ((size_t)1 << 31) + 5};
    for (size_t s = 0; s < sizeof launches / sizeof launches[0]; ++s) {
        size_t nodes;
        void *lo = (uintptr_t)d_small < (uintptr_t)d_small_out ? d_small : d_small_out;
        void *hi = lo == d_small ? d_small_out : d_small;
        wk_status st = captured_index(hi, lo, launches[s], WK_F32, WK_ARGMAX, &nodes);
        char label[128];
        snprintf(label, sizeof label, "wk_reduce_index n=%zu: one kernel launch (got %zu nodes, status %s)",
                 launches[s], nodes, wk_status_string(st));
        wk_expect(&tally, st == WK_SUCCESS && nodes == 1, label);
    }

    const wk_dtype dtypes[] = {WK_I32, WK_U32, WK_I64, WK_U64, WK_F32, WK_F64, WK_F16, WK_BF16};
    const size_t sizes[] = {0, 1, 33, 1025, 65537, 1000003, ((size_t)1 << 24) + 5, ((size_t)1 << 26) + 3};
    const size_t most = (((size_t)1 << 26) + 4) * 8;
    unsigned char *h = malloc(most), *d, *d_out;
    if (!h) {
        wk_expect(&tally, 0, "wk_reduce_index: host memory for the input");
        return;
    }
    CHECK_CUDA(cudaMalloc((void **)&d, most));
    CHECK_CUDA(cudaMalloc((void **)&d_out, 2 * OUT_BYTES));
    case_count count = {1, 0};
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        const wk_dtype dtype = dtypes[t];
        const size_t elem = wk_dtype_size(dtype);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            const size_t n = sizes[s];
            if (n > ((size_t)1 << 25) && dtype != WK_F32 && dtype != WK_F64 && dtype != WK_BF16)
                continue; /* the largest input for a float of each width only */
            const wk_gen_pattern pattern = s % 2 ? WK_GEN_SMALL_INTS : WK_GEN_UNIFORM;
            if (n)
                wk_generate(h, n, dtype, pattern, seed ^ (t * 64 + s));
            CHECK_CUDA(cudaMemcpy(d + elem, h, n * elem, cudaMemcpyHostToDevice));
            for (int o = 0; o < 2; ++o) {
                const wk_op op = o ? WK_ARGMAX : WK_ARGMIN;
                CHECK_CUDA(cudaMemset(d_out, POISON, 2 * OUT_BYTES));
                wk_status full = wk_reduce(ctx, d + elem, d_out, n, dtype, op, stream);
                wk_status index = wk_reduce_index(ctx, d + elem, (int64_t *)(d_out + OUT_BYTES), n, dtype, op, stream);
                wk_arg_result want;
                unsigned char got[16];
                CHECK_CUDA(cudaStreamSynchronize(stream));
                CHECK_CUDA(cudaMemcpy(&want, d_out, sizeof want, cudaMemcpyDeviceToHost));
                CHECK_CUDA(cudaMemcpy(got, d_out + OUT_BYTES, sizeof got, cudaMemcpyDeviceToHost));
                int64_t index_got;
                memcpy(&index_got, got, sizeof index_got);
                int untouched = 1;
                for (int b = 8; b < 16; ++b)
                    untouched &= got[b] == POISON;
                int ok = full == WK_SUCCESS && index == WK_SUCCESS && index_got == want.index && untouched &&
                         (n > 0 || index_got == -1);
                char label[192];
                snprintf(label, sizeof label, "wk_reduce_index %s %s n=%zu (input +1): index %lld, wk_reduce's %lld%s",
                         wk_dtype_name(dtype), wk_op_name(op), n, (long long)index_got, (long long)want.index,
                         untouched ? "" : ", wrote past the index");
                count_case(&count, ok, label);
            }
        }
    }
    expect_all_cases(&count, "wk_reduce_index", "cases equal wk_reduce's index, 8 bytes written");
    WK_FREE_DEVICE(d, d_out);
    WK_FREE_HOST(h);
}

/* One call of wk_copy_to_host. */
typedef struct copy_call {
    const void *src;
    void *dst;
    size_t bytes;
} copy_call;

static wk_status enqueue_copy(const void *call, cudaStream_t s)
{
    const copy_call *c = call;
    return wk_copy_to_host(ctx, c->src, c->dst, c->bytes, s);
}

/* wk_copy_to_host: a bad call returns its status with a message, captures
 * nothing and leaves h_dst as it was; a good one copies exactly `bytes` from
 * any offset, after the kernel queued before it, from device and managed
 * memory. */
static void test_copy_to_host(uint64_t seed)
{
    unsigned char *d, *m, host[WK_COPY_TO_HOST_MAX_BYTES + 16], bytes[WK_COPY_TO_HOST_MAX_BYTES + 16];
    CHECK_CUDA(cudaMalloc((void **)&d, 1024));
    CHECK_CUDA(cudaMallocManaged((void **)&m, 1024, cudaMemAttachGlobal));
    struct {
        const char *what;
        wk_context *c;
        const void *src;
        void *dst;
        size_t bytes;
        wk_status want;
    } bad[] = {
        {"NULL ctx", NULL, d, host, 8, WK_ERROR_INVALID_ARGUMENT},
        {"0 bytes", ctx, d, host, 0, WK_ERROR_INVALID_ARGUMENT},
        {"257 bytes", ctx, d, host, WK_COPY_TO_HOST_MAX_BYTES + 1, WK_ERROR_LIMIT},
        {"SIZE_MAX bytes", ctx, d, host, SIZE_MAX, WK_ERROR_LIMIT},
        {"NULL h_dst", ctx, d, NULL, 8, WK_ERROR_INVALID_ARGUMENT},
        {"NULL d_src", ctx, NULL, host, 8, WK_ERROR_INVALID_ARGUMENT},
        {"host d_src", ctx, bytes, host, 8, WK_ERROR_INVALID_POINTER},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        memset(host, POISON, sizeof host);
        wk_status st = wk_copy_to_host(bad[i].c, bad[i].src, bad[i].dst, bad[i].bytes, stream);
        int untouched = 1;
        for (size_t b = 0; b < sizeof host; ++b)
            untouched &= host[b] == POISON;
        char label[256];
        snprintf(label, sizeof label, "wk_copy_to_host, %s: status %s (want %s), message '%s'%s", bad[i].what,
                 wk_status_string(st), wk_status_string(bad[i].want), wk_last_error_message(),
                 untouched ? "" : ", h_dst written");
        wk_expect(&tally, st == bad[i].want && strlen(wk_last_error_message()) > 0 && untouched, label);
    }
    {
        memset(host, POISON, sizeof host);
        const copy_call eight = {d, host, 8};
        wk_capture got;
        wk_status st = wk_capture_call(stream, enqueue_copy, &eight, &got, NULL);
        char label[192];
        snprintf(label, sizeof label, "wk_copy_to_host on a capturing stream: status %s, %zu nodes, h_dst %s",
                 wk_status_string(st), got.nodes, host[0] == POISON ? "untouched" : "written");
        wk_expect(&tally, st == WK_ERROR_CAPTURE && got.nodes == 0 && host[0] == POISON, label);
    }

    /* Fresh bytes at every offset and length; the bytes past h_dst[len] stay. */
    uint64_t state = seed ^ 0x9e3779b97f4a7c15ull;
    case_count count = {1, 0};
    unsigned char *srcs[2] = {d, m};
    for (int k = 0; k < 2; ++k) {
        const size_t lengths[] = {1, 3, 8, 16, 17, 100, 255, WK_COPY_TO_HOST_MAX_BYTES};
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; ++l)
            for (size_t offset = 0; offset < 8; ++offset) {
                size_t len = lengths[l];
                for (size_t b = 0; b < len; ++b) {
                    state = state * 6364136223846793005ull + 1442695040888963407ull;
                    bytes[b] = (unsigned char)(state >> 56);
                }
                CHECK_CUDA(cudaMemcpy(srcs[k] + offset, bytes, len, cudaMemcpyHostToDevice));
                memset(host, POISON, sizeof host);
                wk_status st = wk_copy_to_host(ctx, srcs[k] + offset, host, len, stream);
                int ok = st == WK_SUCCESS && memcmp(host, bytes, len) == 0;
                for (size_t b = len; b < sizeof host; ++b)
                    ok &= host[b] == POISON;
                char label[160];
                snprintf(label, sizeof label, "wk_copy_to_host %s memory, %zu bytes at offset %zu: status %s",
                         k ? "managed" : "device", len, offset, wk_status_string(st));
                count_case(&count, ok, label);
            }
    }
    expect_all_cases(&count, "wk_copy_to_host", "copies exact, nothing written past them");

    /* After a reduce on the same stream: the copy waits for its result. */
    const size_t n = ((size_t)1 << 22) + 7;
    float *h_in = malloc(n * sizeof(float)), *d_in;
    if (!h_in) {
        wk_expect(&tally, 0, "wk_copy_to_host: host memory for the input");
    } else {
        wk_generate(h_in, n, WK_F32, WK_GEN_SMALL_INTS, seed ^ 77);
        CHECK_CUDA(cudaMalloc((void **)&d_in, n * sizeof(float)));
        CHECK_CUDA(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
        int same = 1;
        for (int r = 0; r < 20; ++r) {
            float want = 0, got = -1;
            CHECK_CUDA(cudaMemset(d, 0, 4));
            wk_status a = wk_reduce_to_host(ctx, d_in + r, &want, n - r, WK_F32, WK_MAX, stream);
            wk_status b = wk_reduce(ctx, d_in + r, d, n - r, WK_F32, WK_MAX, stream);
            wk_status c = wk_copy_to_host(ctx, d, &got, sizeof got, stream);
            same &= a == WK_SUCCESS && b == WK_SUCCESS && c == WK_SUCCESS && memcmp(&want, &got, 4) == 0 && want != 0;
        }
        wk_expect(&tally, same, "wk_copy_to_host after wk_reduce reads its result (20 times)");
        CHECK_CUDA(cudaFree(d_in));
        free(h_in);
    }
    CHECK_CUDA(cudaFree(d));
    CHECK_CUDA(cudaFree(m));
}

int main(void)
{
    int setup = wk_test_setup(wk_create(&ctx, -1), "wk_create");
    if (setup >= 0)
        return setup;
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu\n", (unsigned long long)seed);
    CHECK_CUDA(cudaStreamCreate(&stream));
    void *d_in, *d_out;
    CHECK_CUDA(cudaMalloc(&d_in, 4096));
    CHECK_CUDA(cudaMalloc(&d_out, OUT_BYTES));
    CHECK_CUDA(cudaMemset(d_in, 0, 4096));

    test_rejections(d_in, d_out);
    test_single_launch(d_in, d_out);
    test_conveniences(seed, d_in);
    test_back_to_back(seed);
    test_tiles_shape(seed);
    test_cluster_shape(seed);
    test_nan_bits(seed);
    test_index(seed, d_in, d_out);
    test_copy_to_host(seed);

    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaStreamDestroy(stream));
    wk_destroy(ctx);
    return wk_tally_finish(&tally);
}
