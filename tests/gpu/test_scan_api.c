/* GPU test of the scans' contract beyond the values: every bad argument to
 * wk_inclusive_scan, wk_exclusive_scan and wk_scan_reserve returns its
 * status with a message, launches nothing (checked by capturing the stream
 * into a graph) and leaves memory as it was; a good call is exactly one
 * kernel launch (none for n = 0) up to 2^34 elements; scans back to back on
 * one stream, and scans of scans, each see a clean tile status and are
 * right; a call that must grow a workspace during capture grows one beside
 * the graph; thousands of scans
 * alternating 4- and 8-byte dtypes on a fresh context, each checked in
 * full; a graph captured before the workspace grew still runs right after;
 * -0.0 survives as an init and as a first element. The contract every call
 * shares (the same bits twice, graph replays, managed memory) is
 * test_contract.c's. Exits 77 without a device. */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "gpu/api_test_util.h"
#include "check/check_env.h"
#include "ref/generate.h"
#include "scan/plan.h"
#include "ref/scan_reference.h"
#include "test_util.h"
#include "warpkit.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REGION_BYTES 4096

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;
static unsigned char *d_region; /* poisoned before each rejected call */

/* One call of either scan. */
typedef struct scan_call {
    wk_context *ctx;
    int exclusive;
    const void *in;
    void *out;
    size_t n;
    wk_dtype dtype;
    wk_op op;
    wk_value init;
} scan_call;

/* A call on the shared context, its init zero in all eight bytes. */
static scan_call make_call(int exclusive, const void *in, void *out, size_t n, wk_dtype dtype, wk_op op)
{
    return (scan_call){.ctx = ctx, .exclusive = exclusive, .in = in, .out = out, .n = n, .dtype = dtype, .op = op,
                       .init = {.u64 = 0}};
}

static wk_status run_call(const scan_call *c, cudaStream_t s)
{
    return c->exclusive ? wk_exclusive_scan(c->ctx, c->in, c->out, c->n, c->dtype, c->op, c->init, s)
                        : wk_inclusive_scan(c->ctx, c->in, c->out, c->n, c->dtype, c->op, s);
}

static const char *kind(const scan_call *c) { return c->exclusive ? "exclusive" : "inclusive"; }

static wk_status enqueue_call(const void *c, cudaStream_t s) { return run_call(c, s); }

/* Runs the call under stream capture (see wk_capture_call) and reports how
 * many graph nodes it added and whether all are kernels. */
static wk_status captured(const scan_call *c, size_t *nodes, int *all_kernels)
{
    wk_capture got;
    wk_status st = wk_capture_call(stream, enqueue_call, c, &got, NULL);
    *nodes = got.nodes;
    *all_kernels = got.kernels == got.nodes;
    return st;
}

static void poison_region(void) { wk_poison_device(d_region, REGION_BYTES); }

static int region_untouched(void) { return wk_device_changes(stream, d_region, REGION_BYTES, 0, 0) == 0; }

/* A bad call: the expected status, a message, no launch, memory unchanged.
 * Checked for the inclusive and the exclusive scan alike. */
static void expect_rejected(const char *what, wk_status want, scan_call c)
{
    for (int ex = 0; ex < 2; ++ex) {
        c.exclusive = ex;
        char label[384];
        size_t nodes;
        int kernels;
        poison_region();
        wk_status got = captured(&c, &nodes, &kernels);
        char message[256];
        snprintf(message, sizeof message, "%s", wk_last_error_message());
        snprintf(label, sizeof label, "%s %s: status %s (want %s), message '%s', %zu launches", kind(&c), what,
                 wk_status_string(got), wk_status_string(want), message, nodes);
        wk_expect(&tally, got == want, label);
        wk_expect(&tally, strlen(message) > 0, label);
        wk_expect(&tally, nodes == 0, label);
        wk_expect(&tally, region_untouched(), label);
        printf("rejected as expected? %s\n", label);
    }
}

/* A good call, captured: the status, no message, and the launches. */
static void expect_launches(const char *what, scan_call c, size_t want_nodes)
{
    char label[384];
    size_t nodes;
    int kernels;
    wk_status got = captured(&c, &nodes, &kernels);
    snprintf(label, sizeof label, "%s %s %s n=%zu %s: status %s, %zu launches (want %zu)%s", kind(&c),
             wk_dtype_name(c.dtype), wk_op_name(c.op), c.n, what, wk_status_string(got), nodes, want_nodes,
             kernels ? "" : ", not all kernels");
    wk_expect(&tally, got == WK_SUCCESS && nodes == want_nodes && kernels, label);
    if (got == WK_SUCCESS)
        wk_expect(&tally, strlen(wk_last_error_message()) == 0, "a successful call leaves no error message");
}

static void test_rejections(void)
{
    float host[256];
    unsigned char *in = d_region, *out = d_region + REGION_BYTES / 2;
    const size_t n = 100;

    scan_call c = make_call(0, in, out, n, WK_F32, WK_SUM);
    c.ctx = NULL;
    expect_rejected("NULL context", WK_ERROR_INVALID_ARGUMENT, c);
    c.n = 0;
    expect_rejected("NULL context with n = 0", WK_ERROR_INVALID_ARGUMENT, c);

    expect_rejected("NULL d_in with n > 0", WK_ERROR_INVALID_ARGUMENT, make_call(0, NULL, out, n, WK_F32, WK_SUM));
    expect_rejected("NULL d_out with n > 0", WK_ERROR_INVALID_ARGUMENT, make_call(0, in, NULL, n, WK_F32, WK_SUM));
    expect_rejected("NULL d_in and d_out with n = 1", WK_ERROR_INVALID_ARGUMENT,
                    make_call(0, NULL, NULL, 1, WK_I32, WK_SUM));

    expect_rejected("dtype 99", WK_ERROR_INVALID_DTYPE, make_call(0, in, out, n, (wk_dtype)99, WK_SUM));
    expect_rejected("dtype -1", WK_ERROR_INVALID_DTYPE, make_call(0, in, out, n, (wk_dtype)-1, WK_SUM));
    expect_rejected("dtype 99 with n = 0", WK_ERROR_INVALID_DTYPE, make_call(0, in, out, 0, (wk_dtype)99, WK_SUM));
    expect_rejected("op 42", WK_ERROR_INVALID_OP, make_call(0, in, out, n, WK_F32, (wk_op)42));
    expect_rejected("op -1", WK_ERROR_INVALID_OP, make_call(0, in, out, n, WK_I32, (wk_op)-1));

    const wk_dtype arg_dtypes[] = {WK_F32, WK_I32, WK_U64, WK_BF16};
    for (size_t k = 0; k < 4; ++k) {
        char what[64];
        snprintf(what, sizeof what, "argmin on %s", wk_dtype_name(arg_dtypes[k]));
        expect_rejected(what, WK_ERROR_UNSUPPORTED, make_call(0, in, out, n, arg_dtypes[k], WK_ARGMIN));
        snprintf(what, sizeof what, "argmax on %s", wk_dtype_name(arg_dtypes[k]));
        expect_rejected(what, WK_ERROR_UNSUPPORTED, make_call(0, in, out, n, arg_dtypes[k], WK_ARGMAX));
    }
    expect_rejected("and on f32", WK_ERROR_UNSUPPORTED, make_call(0, in, out, n, WK_F32, WK_AND));
    expect_rejected("or on f64", WK_ERROR_UNSUPPORTED, make_call(0, in, out, n, WK_F64, WK_OR));
    expect_rejected("xor on f16", WK_ERROR_UNSUPPORTED, make_call(0, in, out, n, WK_F16, WK_XOR));
    expect_rejected("and on bf16", WK_ERROR_UNSUPPORTED, make_call(0, in, out, n, WK_BF16, WK_AND));

    expect_rejected("host d_in", WK_ERROR_INVALID_POINTER, make_call(0, host, out, n, WK_F32, WK_SUM));
    expect_rejected("host d_out", WK_ERROR_INVALID_POINTER, make_call(0, in, host, n, WK_F32, WK_SUM));
    expect_rejected("d_in not aligned to its f32 element", WK_ERROR_INVALID_POINTER,
                    make_call(0, in + 1, out, n, WK_F32, WK_SUM));
    expect_rejected("d_out not aligned to its f32 element", WK_ERROR_INVALID_POINTER,
                    make_call(0, in, out + 2, n, WK_F32, WK_SUM));
    expect_rejected("d_in not aligned to its f16 element", WK_ERROR_INVALID_POINTER,
                    make_call(0, in + 1, out, n, WK_F16, WK_SUM));
    expect_rejected("d_out not aligned to its f64 element", WK_ERROR_INVALID_POINTER,
                    make_call(0, in, out + 4, n, WK_F64, WK_SUM));
    expect_rejected("in place but misaligned", WK_ERROR_INVALID_POINTER,
                    make_call(0, in + 2, in + 2, n, WK_U32, WK_SUM));

    expect_rejected("d_out one element past d_in", WK_ERROR_INVALID_ARGUMENT,
                    make_call(0, in, in + 4, n, WK_F32, WK_SUM));
    expect_rejected("d_out one element before d_in", WK_ERROR_INVALID_ARGUMENT,
                    make_call(0, in + 4, in, n, WK_F32, WK_SUM));
    expect_rejected("d_out sharing only d_in's last element", WK_ERROR_INVALID_ARGUMENT,
                    make_call(0, in, in + (n - 1) * 4, n, WK_F32, WK_SUM));
    expect_rejected("f16 d_out one element past d_in", WK_ERROR_INVALID_ARGUMENT,
                    make_call(0, in, in + 2, n, WK_F16, WK_MAX));

    expect_rejected("n * size overflows", WK_ERROR_LIMIT,
                    make_call(0, in, out, SIZE_MAX / 2, WK_F32, WK_SUM));
    expect_rejected("n = SIZE_MAX", WK_ERROR_LIMIT, make_call(0, in, out, SIZE_MAX, WK_F16, WK_SUM));

    /* Accepted calls that launch nothing: n = 0 whatever the pointers. */
    for (int ex = 0; ex < 2; ++ex) {
        poison_region();
        expect_launches("NULL d_in and d_out", make_call(ex, NULL, NULL, 0, WK_F32, WK_SUM), 0);
        expect_launches("NULL d_in", make_call(ex, NULL, out, 0, WK_I64, WK_MIN), 0);
        expect_launches("NULL d_out", make_call(ex, in, NULL, 0, WK_BF16, WK_MAX), 0);
        /* Not captured: n = 0 must write nothing, the init included. */
        scan_call c0 = make_call(ex, in, out, 0, WK_U32, WK_SUM);
        c0.init.u32 = 12345;
        wk_status st = run_call(&c0, stream);
        wk_expect(&tally, st == WK_SUCCESS && region_untouched(), ex ? "exclusive n = 0 writes nothing, not even init"
                                                                   : "inclusive n = 0 writes nothing");
    }
}

/* Calls that are right though they look odd: in place, ranges that touch
 * but do not overlap, pointers off the 16-byte grid (by element). */
static void test_accepted_shapes(void)
{
    unsigned char *a = d_region;
    const size_t n = 100;
    for (int ex = 0; ex < 2; ++ex) {
        expect_launches("in place", make_call(ex, a, a, n, WK_F32, WK_SUM), 1);
        expect_launches("in place at an odd element", make_call(ex, a + 6, a + 6, n, WK_F16, WK_MIN), 1);
        expect_launches("d_out right after d_in", make_call(ex, a, a + n * 4, n, WK_F32, WK_SUM), 1);
        expect_launches("d_out right before d_in", make_call(ex, a + n * 8, a, n, WK_I64, WK_XOR), 1);
        expect_launches("d_in +4 bytes, d_out +8 bytes", make_call(ex, a + 4, a + 2048 + 8, n, WK_F32, WK_MAX), 1);
        expect_launches("f64 at 8 bytes past 16", make_call(ex, a + 8, a + 2048, n, WK_F64, WK_SUM), 1);
    }
}

/* Exactly one kernel launch for n > 0, none for n = 0, at every size:
 * captured, not run, so sizes past the buffer are fine (in place, so that
 * no size makes the ranges overlap). The workspaces are reserved first, so
 * that the captures allocate nothing. */
static void test_single_launch(void)
{
    const size_t sizes[] = {0, 1, 1000, (size_t)1 << 20, ((size_t)1 << 31) + 5, (size_t)1 << 34};
    const size_t largest = (size_t)1 << 34;
    const wk_dtype dtypes[] = {WK_F32, WK_F16, WK_U64};
    const wk_op ops[] = {WK_SUM, WK_MAX, WK_XOR};
    for (size_t d = 0; d < 3; ++d) {
        wk_status st = wk_scan_reserve(ctx, largest, dtypes[d]);
        char label[128];
        snprintf(label, sizeof label, "wk_scan_reserve for 2^34 %s elements: %s", wk_dtype_name(dtypes[d]),
                 wk_status_string(st));
        wk_expect(&tally, st == WK_SUCCESS, label);
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t d = 0; d < 3; ++d)
            for (int ex = 0; ex < 2; ++ex)
                expect_launches("in place", make_call(ex, d_region, d_region, sizes[s], dtypes[d], ops[d]),
                                sizes[s] > 0);
    /* And apart, within the buffer. */
    expect_launches("apart", make_call(0, d_region, d_region + 2048, 500, WK_F32, WK_SUM), 1);
    expect_launches("apart", make_call(1, d_region + 2, d_region + 2048 + 6, 999, WK_BF16, WK_SUM), 1);
}

/* ------------------------------------------------------ output checks */

/* The library's plan of a call on the current device (scan_api.cu): the
 * pipelined tiles where the device runs them. */
static int plan_call(const void *in, const void *out, size_t n, wk_dtype d, wk_tile_plan *plan)
{
    const int pipelined_ok = wk_check_pipelined_ok(WK_SCAN_PIPELINED_SHARED_BYTES);
    if (pipelined_ok < 0)
        return -1;
    return wk_plan_scan_for((uintptr_t)in, (uintptr_t)out, n, wk_dtype_size(d), pipelined_ok, plan);
}

/* Checks got against the reference for the call (both on the host), with
 * the checker's one-line verdict in msg. Returns the mismatches, or
 * WK_REF_SCAN_INVALID. Safe to run on several threads at once. */
static size_t check_output_quiet(const scan_call *c, const void *h_in, const void *h_got, char *msg, size_t size)
{
    wk_ref_scan_spec spec = {c->dtype, c->op, c->exclusive, c->init};
    wk_tile_plan plan;
    if (plan_call(c->in, c->out, c->n, c->dtype, &plan) != 0) {
        snprintf(msg, size, "cannot plan");
        return WK_REF_SCAN_INVALID;
    }
    return wk_ref_check_scan(h_in, h_got, c->n, &spec, &plan, msg, size);
}

/* As check_output_quiet, printing a failure. Returns 1 when right. */
static int check_output(const scan_call *c, const void *h_in, const void *h_got, const char *what)
{
    char msg[1536];
    size_t bad = check_output_quiet(c, h_in, h_got, msg, sizeof msg);
    if (bad != 0)
        printf("FAIL %s %s %s %s n=%zu: %s\n", what, kind(c), wk_dtype_name(c->dtype), wk_op_name(c->op), c->n, msg);
    return bad == 0;
}

/* 50 scans enqueued back to back with no synchronization between them, of
 * many sizes (one tile to over a hundred), alternating inclusive and
 * exclusive, i32 and f32, sum and max, at varying offsets; then a chain of
 * scans each reading the previous one's output. Every call must find the
 * tile statuses of the calls before it out of its way, and every output
 * must be right. */
static void test_back_to_back(uint64_t seed)
{
    enum { CALLS = 50, CHAIN = 5 };
    const size_t sizes[] = {1, 1000, 8191, 8193, 70001, 1000003, 300007, 3 * 4096 + 5, 16385, 33};
    const size_t max_n = 1000003, stride = round_up((max_n + 8) * 4, 256);
    int32_t *h_i = malloc((max_n + 8) * 4);
    float *h_f = malloc((max_n + 8) * 4);
    unsigned char *h_out = malloc(stride * CALLS);
    unsigned char *d_i, *d_f, *d_out;
    wk_generate(h_i, max_n + 8, WK_I32, WK_GEN_SMALL_INTS, seed);
    wk_generate(h_f, max_n + 8, WK_F32, WK_GEN_SMALL_INTS, seed + 1);
    CHECK_CUDA(cudaMalloc((void **)&d_i, (max_n + 8) * 4));
    CHECK_CUDA(cudaMalloc((void **)&d_f, (max_n + 8) * 4));
    CHECK_CUDA(cudaMalloc((void **)&d_out, stride * CALLS));
    CHECK_CUDA(cudaMemcpy(d_i, h_i, (max_n + 8) * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_f, h_f, (max_n + 8) * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_out, 0xA5, stride * CALLS));
    CHECK_CUDA(cudaDeviceSynchronize());

    scan_call calls[CALLS];
    int launched = 1;
    for (int k = 0; k < CALLS; ++k) {
        int is_float = k % 2, ex = k / 2 % 2;
        size_t in_off = (size_t)k % 4, out_off = (size_t)k / 4 % 4;
        scan_call c = make_call(ex, (is_float ? d_f : d_i) + in_off * 4, d_out + (size_t)k * stride + out_off * 4,
                                sizes[k % 10], is_float ? WK_F32 : WK_I32, k % 5 == 4 ? WK_MAX : WK_SUM);
        if (is_float)
            c.init.f32 = c.op == WK_SUM ? -3.0f : -INFINITY;
        else
            c.init.i32 = c.op == WK_SUM ? 5 : 2;
        calls[k] = c;
        launched &= run_call(&c, stream) == WK_SUCCESS;
    }

    /* The chain: y[0] is the i32 input, y[j + 1] the scan of y[j]. */
    int32_t *h_chain[CHAIN + 1];
    int32_t *d_chain[CHAIN + 1];
    scan_call chain[CHAIN];
    const size_t chain_n = 300007;
    h_chain[0] = h_i;
    d_chain[0] = (int32_t *)d_i;
    for (int j = 0; j < CHAIN; ++j) {
        h_chain[j + 1] = malloc(chain_n * 4);
        CHECK_CUDA(cudaMalloc((void **)&d_chain[j + 1], chain_n * 4));
    }
    for (int j = 0; j < CHAIN; ++j) {
        chain[j] = make_call(j % 2, d_chain[j], d_chain[j + 1], chain_n, WK_I32, WK_SUM);
        chain[j].init.i32 = -7;
        launched &= run_call(&chain[j], stream) == WK_SUCCESS;
    }
    wk_expect(&tally, launched, "55 scans enqueued back to back are accepted");

    CHECK_CUDA(cudaMemcpyAsync(h_out, d_out, stride * CALLS, cudaMemcpyDeviceToHost, stream));
    int32_t *h_chain_got = malloc(chain_n * 4);
    CHECK_CUDA(cudaMemcpyAsync(h_chain_got, d_chain[CHAIN], chain_n * 4, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    int ok = 1;
    for (int k = 0; k < CALLS; ++k) {
        const scan_call *c = &calls[k];
        size_t in_off = (size_t)k % 4, out_off = (size_t)k / 4 % 4;
        const void *h_in = c->dtype == WK_F32 ? (const void *)(h_f + in_off) : (const void *)(h_i + in_off);
        ok &= check_output(c, h_in, h_out + (size_t)k * stride + out_off * 4, "back to back");
    }
    wk_expect(&tally, ok, "50 scans back to back on one stream: every output matches the reference");

    for (int j = 0; j < CHAIN; ++j) {
        wk_ref_scan_spec spec = {WK_I32, WK_SUM, chain[j].exclusive, chain[j].init};
        wk_ref_scan(h_chain[j], h_chain[j + 1], chain_n, &spec);
    }
    ok = check_output(&chain[CHAIN - 1], h_chain[CHAIN - 1], h_chain_got, "chain");
    wk_expect(&tally, ok, "5 scans each reading the previous one's output, launched back to back: the last is right");

    for (int j = 1; j <= CHAIN; ++j) {
        free(h_chain[j]);
        CHECK_CUDA(cudaFree(d_chain[j]));
    }
    WK_FREE_DEVICE(d_i, d_f, d_out);
    WK_FREE_HOST(h_chain_got, h_i, h_f, h_out);
}

/* A call on an input larger than the workspaces cover, while the stream is
 * being captured, gets a workspace grown beside the graph: the graph holds
 * one kernel and nothing else, and, launched, scans right. A context of its
 * own, so that the earlier tests' growth does not cover the size already. */
static void test_capture_growth(uint64_t seed)
{
    wk_context *fresh = wk_fresh_context(&tally, "a second context");
    if (!fresh)
        return;
    /* 1 GiB of input: far beyond the slots a workspace starts with
     * (warpkit.h: for 128 MiB). */
    const size_t n = ((size_t)1 << 28) + 5;
    int32_t *h = malloc(n * 4), *got = malloc(n * 4);
    unsigned char *d;
    CHECK_CUDA(cudaMalloc((void **)&d, n * 4 + 16));
    wk_generate(h, n, WK_I32, WK_GEN_SMALL_INTS, seed);
    CHECK_CUDA(cudaMemcpy(d + 4, h, n * 4, cudaMemcpyHostToDevice));

    scan_call c = make_call(1, d + 4, d + 4, n, WK_I32, WK_SUM);
    c.ctx = fresh;
    c.init.i32 = 11;
    cudaGraph_t graph;
    wk_capture_one_kernel(&tally, stream, enqueue_call, &c, "a capture that grows the workspace", &graph);
    if (graph) {
        wk_launch_graph_once(stream, graph, "captured exclusive scan");
        CHECK_CUDA(cudaMemcpy(got, d + 4, n * 4, cudaMemcpyDeviceToHost));
        wk_expect(&tally, check_output(&c, h, got, "captured graph"),
                  "the captured in-place exclusive scan of 2^28 + 5 elements, launched, is right");
        CHECK_CUDA(cudaGraphDestroy(graph));
    }
    WK_FREE_DEVICE(d);
    WK_FREE_HOST(h, got);
    wk_destroy(fresh);
}

/* wk_scan_reserve's own checks; one that cannot allocate leaves the
 * context working. */
static void test_reserve(uint64_t seed)
{
    wk_status st = wk_scan_reserve(NULL, 1000, WK_F32);
    wk_expect(&tally, st == WK_ERROR_INVALID_ARGUMENT && strlen(wk_last_error_message()) > 0,
              "wk_scan_reserve with a NULL context is rejected with a message");
    st = wk_scan_reserve(ctx, 1000, (wk_dtype)99);
    wk_expect(&tally, st == WK_ERROR_INVALID_DTYPE && strlen(wk_last_error_message()) > 0,
              "wk_scan_reserve with dtype 99 is rejected with a message");
    st = wk_scan_reserve(ctx, SIZE_MAX, WK_F32);
    wk_expect(&tally, st == WK_ERROR_LIMIT && strlen(wk_last_error_message()) > 0,
              "wk_scan_reserve with n * size overflowing is rejected with a message");
    st = wk_scan_reserve(ctx, 0, WK_F64);
    wk_expect(&tally, st == WK_SUCCESS, "wk_scan_reserve of 0 elements succeeds");
    st = wk_scan_reserve(ctx, 1000, WK_F64);
    wk_expect(&tally, st == WK_SUCCESS, "wk_scan_reserve below what is reserved succeeds");

    /* 2^60 bytes of input: more tiles than one scan takes (plan.h:
     * WK_SCAN_MAX_TILES), or at any rate more slots than the device holds. */
    st = wk_scan_reserve(ctx, (size_t)1 << 59, WK_F16);
    char label[384];
    snprintf(label, sizeof label, "wk_scan_reserve of 2^59 f16 elements: status %s (want %s or %s), message '%s'",
             wk_status_string(st), wk_status_string(WK_ERROR_LIMIT), wk_status_string(WK_ERROR_OUT_OF_MEMORY),
             wk_last_error_message());
    wk_expect(&tally, (st == WK_ERROR_LIMIT || st == WK_ERROR_OUT_OF_MEMORY) &&
                          strlen(wk_last_error_message()) > 0, label);

    const size_t n = 100003;
    int32_t *h = malloc(n * 4), *got = malloc(n * 4);
    int32_t *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_in, n * 4));
    CHECK_CUDA(cudaMalloc((void **)&d_out, n * 4));
    wk_generate(h, n, WK_I32, WK_GEN_UNIFORM, seed);
    CHECK_CUDA(cudaMemcpy(d_in, h, n * 4, cudaMemcpyHostToDevice));
    scan_call c = make_call(0, d_in, d_out, n, WK_I32, WK_SUM);
    st = run_call(&c, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(got, d_out, n * 4, cudaMemcpyDeviceToHost));
    wk_expect(&tally, st == WK_SUCCESS && check_output(&c, h, got, "after a failed reserve"),
              "after a failed wk_scan_reserve the context still scans right");
    WK_FREE_DEVICE(d_in, d_out);
    WK_FREE_HOST(h, got);
}

/* ------------------------------------------- mixed widths back to back */

/* One scan of the mixed-widths test and its verdict, checked on a worker
 * thread. */
typedef struct mixed_job {
    int index;
    scan_call call;    /* the device pointers, for the plan */
    const void *h_in;  /* host copy of the call's input     */
    const void *h_got; /* pinned copy of its output         */
    size_t tiles;      /* its launch's tiles                 */
    size_t bad;
    int exact;         /* float sums: checked under the exact rule */
    char msg[1536];
} mixed_job;

static void *check_mixed_job(void *arg)
{
    mixed_job *j = arg;
    j->bad = check_output_quiet(&j->call, j->h_in, j->h_got, j->msg, sizeof j->msg);
    j->exact = !(j->call.op == WK_SUM && (j->call.dtype == WK_F32 || j->call.dtype == WK_F64)) ||
               strstr(j->msg, "exact rule") != NULL;
    return NULL;
}

/* An init for the call: a small integer for float sums and min / max (the
 * exact rule holds with it), any pattern for integer ops. */
static wk_value mixed_init(wk_dtype d, wk_op op, uint64_t r)
{
    wk_value v;
    memset(&v, 0, sizeof v);
    int small = (int)(r % 17) - 8;
    switch (d) {
    case WK_F32: v.f32 = op == WK_MAX && small == 8 ? -INFINITY : (float)small; break;
    case WK_F64: v.f64 = op == WK_MAX && small == 8 ? -INFINITY : (double)small; break;
    case WK_I32:
    case WK_U32: v.u32 = (uint32_t)(r >> 17); break;
    default: v.u64 = r * 0x9e3779b97f4a7c15ull; break;
    }
    return v;
}

/* Elements per tile of a scan at or above WK_SCAN_LARGE_FROM_BYTES. */
static size_t large_tile_elems(size_t elem)
{
    wk_tile_plan plan;
    wk_plan_scan(0, 0, WK_SCAN_LARGE_FROM_BYTES / elem, elem, &plan);
    return plan.tile_elems;
}

/* Thousands of scans on one stream of a fresh context (no wk_scan_reserve:
 * the slots wk_create reserves), alternating 8-byte dtypes (f64, i64, u64)
 * and 4-byte ones (f32, i32, u32), inclusive and exclusive, sum, max and
 * for integers xor. Most cover between a quarter and five eighths of the
 * reserved tile slots, at a size that changes every call, so that each call
 * finds slots that calls of the other width, or of its own with another
 * tile count, left behind, and uses about half of what is reserved; every
 * eighth fits in one tile. Small-integer
 * data: integer results are exact, and so are float sums under the exact
 * rule, so a lost or doubled element anywhere shows. Every output of every
 * call is checked. Inputs are generated once per dtype; the calls differ in
 * size and offsets. Outputs go to pinned buffers and are checked on
 * several threads while the next batch waits. */
static void test_mixed_widths(uint64_t seed)
{
    const int calls = wk_test_quick() ? 60 : 3000;
    const wk_dtype wide[3] = {WK_F64, WK_I64, WK_U64}, narrow[3] = {WK_F32, WK_I32, WK_U32};
    /* warpkit.h: wk_create reserves slots for 128 MiB of input. */
    const size_t reserved = wk_scan_max_tiles((size_t)128 << 20, 1);
    /* The largest tile of either width below 256 MiB (on GPUs before sm_90
     * 8-byte elements have smaller ones). */
    const size_t tile_bytes = (size_t)WK_SCAN_THREADS * WK_SCAN_LARGE_VECTORS * WK_TILE_VECTOR_BYTES;
    const size_t min_tiles = reserved / 4, max_tiles = reserved * 5 / 8;
    /* Elements per buffer: the largest call plus its offset, for either width. */
    const size_t max_bytes = (max_tiles + 1) * tile_bytes, pad = 4;

    wk_context *fresh = wk_fresh_context(&tally, "mixed widths: a fresh context");
    if (!fresh)
        return;
    wk_status st;

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = cpus > 2 ? (int)(cpus - 1 < 8 ? cpus - 1 : 8) : 1;

    /* One input per dtype, on the host and the device. */
    void *h_in[WK_DTYPE_COUNT] = {0};
    unsigned char *d_in[WK_DTYPE_COUNT] = {0};
    for (int w = 0; w < 2; ++w)
        for (int k = 0; k < 3; ++k) {
            wk_dtype d = w ? narrow[k] : wide[k];
            size_t elem = wk_dtype_size(d), count = max_bytes / elem + pad;
            h_in[d] = malloc(count * elem);
            if (!h_in[d]) {
                printf("FAIL mixed widths: cannot allocate %zu bytes of host memory\n", count * elem);
                exit(1);
            }
            wk_generate(h_in[d], count, d, WK_GEN_SMALL_INTS, seed + (uint64_t)d);
            CHECK_CUDA(cudaMalloc((void **)&d_in[d], count * elem));
            CHECK_CUDA(cudaMemcpy(d_in[d], h_in[d], count * elem, cudaMemcpyHostToDevice));
        }
    unsigned char *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_out, max_bytes + pad * 8));
    unsigned char **h_out = malloc((size_t)workers * sizeof *h_out);
    mixed_job *jobs = malloc((size_t)workers * sizeof *jobs);
    pthread_t *threads = malloc((size_t)workers * sizeof *threads);
    for (int b = 0; b < workers; ++b)
        CHECK_CUDA(cudaMallocHost((void **)&h_out[b], max_bytes + pad * 8));

    double start = seconds_now();
    int failed = 0, not_exact = 0, single = 0, accepted = 1;
    size_t fewest = SIZE_MAX, most = 0;
    for (int k0 = 0; k0 < calls; k0 += workers) {
        int batch = calls - k0 < workers ? calls - k0 : workers;
        for (int b = 0; b < batch; ++b) {
            int k = k0 + b;
            uint64_t r = wk_rand64(seed ^ 0x6d1e3dull, (uint64_t)k);
            int is_narrow = k % 2;
            wk_dtype d = (is_narrow ? narrow : wide)[r % 3];
            int is_float = d == WK_F32 || d == WK_F64;
            const wk_op float_ops[2] = {WK_SUM, WK_MAX}, int_ops[3] = {WK_SUM, WK_MAX, WK_XOR};
            wk_op op = is_float ? float_ops[(r >> 8) % 2] : int_ops[(r >> 8) % 3];
            size_t elem = wk_dtype_size(d), in_off = (r >> 16) % pad, out_off = (r >> 20) % pad;
            size_t n;
            if (k % 8 == 5) {
                n = 1 + (size_t)(r >> 24) % 4095; /* one tile at any offset */
                single++;
            } else {
                size_t tiles = min_tiles + (size_t)(r >> 24) % (max_tiles - min_tiles + 1), per_tile = large_tile_elems(elem);
                n = tiles * per_tile - (size_t)(r >> 40) % per_tile;
            }
            mixed_job *j = &jobs[b];
            j->index = k;
            j->call = make_call((k / 2) % 2, d_in[d] + in_off * elem, d_out + out_off * elem, n, d, op);
            j->call.ctx = fresh;
            if (j->call.exclusive)
                j->call.init = mixed_init(d, op, wk_rand64(seed ^ 0x1417ull, (uint64_t)k));
            j->h_in = (const unsigned char *)h_in[d] + in_off * elem;
            j->h_got = h_out[b] + out_off * elem;

            wk_tile_plan plan;
            plan_call(j->call.in, j->call.out, n, d, &plan);
            j->tiles = plan.tiles;
            if (k % 8 != 5 && plan.tiles < fewest)
                fewest = plan.tiles;
            if (plan.tiles > most)
                most = plan.tiles;

            /* A poisoned output, so that an output the call leaves alone
             * cannot pass on the previous call's value. */
            CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, max_bytes + pad * 8, stream));
            st = run_call(&j->call, stream);
            if (st != WK_SUCCESS) {
                printf("FAIL mixed widths: call %d (%s %s %s n=%zu): %s\n", k, kind(&j->call), wk_dtype_name(d),
                       wk_op_name(op), n, wk_last_error_message());
                accepted = 0;
            }
            CHECK_CUDA(cudaMemcpyAsync(h_out[b], d_out, (out_off + n) * elem, cudaMemcpyDeviceToHost, stream));
            char what[160];
            snprintf(what, sizeof what, "mixed widths: call %d (%s %s %s n=%zu)", k, kind(&j->call), wk_dtype_name(d),
                     wk_op_name(op), n);
            wait_stream(stream, HANG_SECONDS, what);
        }
        if (workers == 1) {
            check_mixed_job(&jobs[0]);
        } else {
            for (int b = 0; b < batch; ++b)
                if (pthread_create(&threads[b], NULL, check_mixed_job, &jobs[b]) != 0) {
                    printf("FAIL mixed widths: cannot start a checking thread\n");
                    exit(1);
                }
            for (int b = 0; b < batch; ++b)
                pthread_join(threads[b], NULL);
        }
        for (int b = 0; b < batch; ++b) {
            const mixed_job *j = &jobs[b];
            int ok = j->bad == 0 && j->exact;
            not_exact += !j->exact;
            if (!ok && failed++ < 10)
                printf("FAIL mixed widths: call %d (%s %s %s n=%zu, %zu tiles, %zu reserved): %s\n", j->index,
                       kind(&j->call), wk_dtype_name(j->call.dtype), wk_op_name(j->call.op), j->call.n, j->tiles,
                       reserved, j->msg);
        }
    }
    double elapsed = seconds_now() - start;

    printf("mixed widths: %d scans (%d of one tile, the others %zu to %zu tiles of %zu reserved), data seed %llu "
           "(the run's seed + 70), %d checking threads, %.1f s\n",
           calls, single, fewest, most, reserved, (unsigned long long)seed, workers, elapsed);
    char label[256];
    snprintf(label, sizeof label, "mixed widths: %d scans alternating 8- and 4-byte dtypes on a fresh context are accepted",
             calls);
    wk_expect(&tally, accepted, label);
    snprintf(label, sizeof label,
             "mixed widths: every output of %d scans matches the reference (%d calls wrong, %d float sums "
             "not under the exact rule)",
             calls, failed, not_exact);
    wk_expect(&tally, failed == 0, label);

    for (int b = 0; b < workers; ++b)
        CHECK_CUDA(cudaFreeHost(h_out[b]));
    CHECK_CUDA(cudaFree(d_out));
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        free(h_in[d]);
        WK_FREE_DEVICE(d_in[d]); /* skips the dtypes left out */
    }
    WK_FREE_HOST(h_out, jobs, threads);
    wk_destroy(fresh);
}

/* ---------------------------------------------- graph replay after growth */

/* Grows fresh's slots with a scan outside capture, trims the pool, and
 * launches the graph (captured from call c before the growth) twice,
 * checking its output each time. */
static void replay_after_growth(wk_context *fresh, cudaGraph_t graph, const scan_call *c, const float *h, float *got)
{
    const size_t n = c->n;
    float *d_out = c->out;
    char label[384];
    wk_status st;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

    /* The growth: far past the 128 MiB that wk_create covers. 1 GiB of f32
     * if the device has it, else as much as it has down to 256 MiB (256 MiB
     * under WK_TEST_QUICK, which the sanitizers run). */
    size_t big_n = (size_t)1 << (wk_test_quick() ? 26 : 28);
    float *big = NULL;
    while (big_n >= ((size_t)1 << 26) && cudaMalloc((void **)&big, big_n * sizeof(float)) != cudaSuccess) {
        cudaGetLastError();
        big = NULL;
        big_n /= 2;
    }
    if (!big) {
        printf("SKIP graph after growth: no room for 256 MiB\n");
    } else {
        CHECK_CUDA(cudaMemsetAsync(big, 0, big_n * sizeof(float), stream));
        st = wk_inclusive_scan(fresh, big, big, big_n, WK_F32, WK_SUM, stream);
        snprintf(label, sizeof label, "graph after growth: a scan of %zu f32 outside capture grows the slots: %s",
                 big_n, wk_status_string(st));
        wk_expect(&tally, st == WK_SUCCESS, label);
        wait_stream(stream, HANG_SECONDS, "graph after growth: the growing scan");
        CHECK_CUDA(cudaFree(big));
        int device;
        cudaMemPool_t pool;
        CHECK_CUDA(cudaGetDevice(&device));
        CHECK_CUDA(cudaDeviceGetMemPool(&pool, device));
        CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));

        for (int replay = 1; replay <= 2; ++replay) {
            CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, n * sizeof(float), stream));
            CHECK_CUDA(cudaGraphLaunch(exec, stream));
            snprintf(label, sizeof label,
                     "graph after growth: replay %d of the graph captured before the slots grew (a fault here "
                     "means it ran on freed slots)",
                     replay);
            wait_stream(stream, HANG_SECONDS, label);
            CHECK_CUDA(cudaMemcpy(got, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
            snprintf(label, sizeof label, "graph after growth: replay %d of the captured 2^20 f32 sum is right",
                     replay);
            wk_expect(&tally, check_output(c, h, got, "graph after growth"), label);
        }
    }
    CHECK_CUDA(cudaGraphExecDestroy(exec));
}

/* A graph captured while the context's slots were the ones wk_create made
 * keeps pointing at them. A later call outside capture on a much larger
 * input grows the slots; the graph must still run right, twice: the old
 * slots stay alive until wk_destroy. The device's memory pool is trimmed
 * after the growth, so that slots freed early (by cudaFreeAsync) would be
 * unmapped and the replay fault, not quietly use memory that happens to be
 * still there; compute-sanitizer sees the use either way. */
static void test_graph_after_growth(uint64_t seed)
{
    wk_context *fresh = wk_fresh_context(&tally, "graph after growth: a fresh context");
    if (!fresh)
        return;
    const size_t n = (size_t)1 << 20;
    float *h = malloc(n * sizeof *h), *got = malloc(n * sizeof *got);
    float *d_in, *d_out;
    wk_generate(h, n, WK_F32, WK_GEN_SMALL_INTS, seed);
    CHECK_CUDA(cudaMalloc((void **)&d_in, n * sizeof *h));
    CHECK_CUDA(cudaMalloc((void **)&d_out, n * sizeof *h));
    CHECK_CUDA(cudaMemcpy(d_in, h, n * sizeof *h, cudaMemcpyHostToDevice));

    scan_call c = make_call(0, d_in, d_out, n, WK_F32, WK_SUM);
    c.ctx = fresh;
    cudaGraph_t graph;
    wk_capture_one_kernel(&tally, stream, enqueue_call, &c,
                          "graph after growth: capture of 2^20 f32 in the initial slots", &graph);
    if (graph) {
        replay_after_growth(fresh, graph, &c, h, got);
        CHECK_CUDA(cudaGraphDestroy(graph));
    }
    WK_FREE_DEVICE(d_in, d_out);
    WK_FREE_HOST(h, got);
    wk_destroy(fresh);
}

/* ------------------------------------------------------------------ -0.0 */

static int is_negative_zero(const void *p, size_t i, wk_dtype d)
{
    if (d == WK_F32) {
        float v = ((const float *)p)[i];
        return v == 0 && signbit(v);
    }
    double v = ((const double *)p)[i];
    return v == 0 && signbit(v);
}

/* -0.0 is the identity of an IEEE sum (+0.0 is not: +0 + -0 = +0), so a
 * scan must not bring a +0.0 of its own into a sum. An exclusive scan's
 * output 0 is its init, -0.0 included, bit for bit; an inclusive scan
 * whose first element is -0.0 starts with -0.0; a scan of nothing but -0.0
 * (from an init of -0.0, when exclusive) is -0.0 all through, across tiles
 * and at inputs that start inside a 16-byte vector. Bits are compared:
 * -0.0 == +0.0 as values. */
static void test_negative_zero(uint64_t seed)
{
    const wk_dtype dtypes[2] = {WK_F32, WK_F64};
    const size_t sizes[3] = {1, 7, 100003};
    const size_t max_n = 100003, pad = 4;
    unsigned char *h = malloc((max_n + pad) * 8), *got = malloc((max_n + pad) * 8);
    unsigned char *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_in, (max_n + pad) * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_out, (max_n + pad) * 8));
    for (int di = 0; di < 2; ++di) {
        wk_dtype d = dtypes[di];
        size_t elem = wk_dtype_size(d);
        wk_value neg_zero;
        memset(&neg_zero, 0, sizeof neg_zero);
        if (d == WK_F32)
            neg_zero.f32 = -0.0f;
        else
            neg_zero.f64 = -0.0;
        for (int all_zero = 0; all_zero < 2; ++all_zero) {
            /* Small integers after up to four -0.0 (the first element at
             * every offset is -0.0), or -0.0 throughout. */
            wk_generate(h, max_n + pad, d, WK_GEN_SMALL_INTS, seed + (uint64_t)(2 * di + all_zero));
            for (size_t i = 0; i < max_n + pad; ++i)
                if (all_zero || i < pad)
                    memcpy(h + i * elem, &neg_zero, elem);
            CHECK_CUDA(cudaMemcpy(d_in, h, (max_n + pad) * elem, cudaMemcpyHostToDevice));
            for (size_t off = 0; off < pad; ++off)
                for (size_t si = 0; si < 3; ++si)
                    for (int ex = 0; ex < 2; ++ex) {
                        size_t n = sizes[si];
                        const unsigned char *in = h + off * elem;
                        scan_call c = make_call(ex, d_in + off * elem, d_out + off * elem, n, d, WK_SUM);
                        c.init = neg_zero;
                        CHECK_CUDA(cudaMemset(d_out, 0x5A, (max_n + pad) * elem));
                        wk_status st = run_call(&c, stream);
                        wait_stream(stream, HANG_SECONDS, "-0.0 scan");
                        CHECK_CUDA(cudaMemcpy(got, d_out + off * elem, n * elem, cudaMemcpyDeviceToHost));
                        char label[256];
                        if (all_zero) {
                            size_t wrong = 0, first = 0;
                            for (size_t i = n; i-- > 0;)
                                if (!is_negative_zero(got, i, d))
                                    wrong++, first = i;
                            snprintf(label, sizeof label,
                                     "%s %s sum of %zu x -0.0%s at element offset %zu: every output is -0.0 "
                                     "(%zu are not, the first at %zu)",
                                     kind(&c), wk_dtype_name(d), n, ex ? " from init -0.0" : "", off, wrong, first);
                            wk_expect(&tally, st == WK_SUCCESS && wrong == 0, label);
                        } else {
                            snprintf(label, sizeof label,
                                     "%s %s sum n=%zu at element offset %zu: output 0 is -0.0 (%s), the rest right",
                                     kind(&c), wk_dtype_name(d), n, off,
                                     ex ? "the init -0.0" : "the first element -0.0");
                            wk_expect(&tally,
                                      st == WK_SUCCESS && is_negative_zero(got, 0, d) &&
                                          check_output(&c, in, got, "-0.0"),
                                      label);
                        }
                    }
        }
    }
    WK_FREE_DEVICE(d_in, d_out);
    WK_FREE_HOST(h, got);
}

/* Prefix sums past NaNs of both signs, with payloads: every output from the
 * first NaN on is the dtype's one NaN (wk_sum_nan_bits), whichever sign the
 * additions left, also where the first element is the NaN. */
static void test_nan_bits(uint64_t seed)
{
    const wk_dtype dtypes[] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    const size_t sizes[] = {5000, ((size_t)1 << 20) + 3};
    const size_t most = sizes[1];
    unsigned char *h = malloc(most * 8), *got = malloc(most * 8), *d_in, *d_out;
    if (!h || !got) {
        wk_expect(&tally, 0, "NaN prefix sums: host memory");
        free(h);
        free(got);
        return;
    }
    CHECK_CUDA(cudaMalloc((void **)&d_in, most * 8 + 16));
    CHECK_CUDA(cudaMalloc((void **)&d_out, most * 8 + 16));
    for (size_t d = 0; d < 4; ++d) {
        const wk_dtype dtype = dtypes[d];
        const size_t elem = wk_dtype_size(dtype);
        for (size_t k = 0; k < 2; ++k) {
            for (int ex = 0; ex < 2; ++ex) {
                const size_t n = sizes[k], off = (k + (size_t)ex) % 3;
                const uint64_t r = wk_rand64(seed ^ 0x5ca4ull, d * 8 + k * 2 + (uint64_t)ex);
                wk_generate(h, n, dtype, WK_GEN_UNIFORM, r);
                /* A NaN of each sign in the first half, the positive one first
                 * or second; of the smaller input, the first element (where
                 * the inclusive scan adds nothing to it). */
                const size_t a = k == 0 ? 0 : (r >> 8) % (n / 2), b = (r >> 36) % (n / 2), first = a < b ? a : b;
                wk_store_signed_nan(h, a, dtype, 0);
                wk_store_signed_nan(h, b, dtype, a != b);
                CHECK_CUDA(cudaMemcpy(d_in + off * elem, h, n * elem, cudaMemcpyHostToDevice));
                scan_call c = make_call(ex, d_in + off * elem, d_out + off * elem, n, dtype, WK_SUM);
                wk_status st = run_call(&c, stream);
                CHECK_CUDA(cudaStreamSynchronize(stream));
                CHECK_CUDA(cudaMemcpy(got, c.out, n * elem, cudaMemcpyDeviceToHost));
                size_t nans = 0, stray = wk_stray_nans(got, n, dtype, &nans);
                const size_t want = n - first - (size_t)ex; /* the exclusive scan's NaNs start one later */
                char label[192];
                snprintf(label, sizeof label,
                         "%s %s sum of %zu elements past NaNs of both signs: %zu NaN outputs (want %zu), %zu not 0x%llx",
                         kind(&c), wk_dtype_name(dtype), n, nans, want, stray,
                         (unsigned long long)wk_sum_nan_bits(dtype));
                wk_expect(&tally, st == WK_SUCCESS && nans == want && stray == 0, label);
            }
        }
    }
    WK_FREE_DEVICE(d_in, d_out);
    WK_FREE_HOST(h, got);
}

int main(void)
{
    uint64_t seed;
    int start = wk_api_test_start(&ctx, &seed, &stream, &d_region, REGION_BYTES);
    if (start >= 0)
        return start;

    test_rejections();
    test_accepted_shapes();
    test_single_launch();
    test_back_to_back(seed + 10);
    test_capture_growth(seed + 20);
    test_reserve(seed + 40);
    test_negative_zero(seed + 50);
    test_graph_after_growth(seed + 60);
    test_mixed_widths(seed + 70);
    test_nan_bits(seed + 80);

    return wk_api_test_finish(ctx, stream, d_region, &tally);
}
