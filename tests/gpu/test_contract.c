/* GPU test of the API contract, written once and run over every entry point
 * that launches on a stream without waiting for the host: the reduces, the
 * reproducible sum and its partials, the scans and their _from forms, the
 * select family and the segmented calls. For each, in several dtypes, sizes
 * and input offsets, on fresh random inputs:
 *
 *  - a bad call (NULL context, unknown dtype) returns its status with a
 *    message, enqueues nothing and leaves the output as it was;
 *  - n = 0 succeeds with at most one node (a select writes its zero count);
 *  - a call is one kernel launch; run twice it gives the same bits;
 *  - captured into a graph and replayed twice it gives those bits again;
 *  - calls back to back on one stream, with no wait between them, each give
 *    the bits of the same call run alone;
 *  - inputs and outputs in managed memory give the same bits.
 *
 * The values themselves are checked against the CPU reference by the case
 * lists (verify/check, run by the family tests and `warpkit verify`); this
 * test holds every call to the same promises. WK_TEST_LEVEL=quick (the
 * sanitizers') takes the small sizes only. Exits 77 without a device. */
#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "test_util.h"
#include "warpkit.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Room a call's output may take beyond its input's bytes: a select's count
 * and the distance to its elements. */
#define OUT_HEAD 256
#define MAX_N (((size_t)1 << 20) + 5)
#define MAX_BYTES (MAX_N * 8 + OUT_HEAD + 64)
#define BACK_TO_BACK 4
#define ROW 37
#define MAX_PARTIALS 64

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;

/* One call's arguments: its input and output buffers (the output's first
 * OUT_HEAD bytes hold a select's count), and an auxiliary zeroed buffer for
 * the _from forms' prefix, previous element and index base. */
typedef struct call_args {
    wk_context *ctx;
    const unsigned char *in;
    unsigned char *out;
    const void *aux;
    const wk_repro_partial *partials;
    size_t n;
    wk_dtype dtype;
} call_args;

typedef struct entry {
    const char *name;
    wk_status (*call)(const call_args *a, cudaStream_t s);
    int floats_only;
    int rows; /* segmented: rows of ROW elements, none when n < ROW */
} entry;

/* Counts one check and prints it only when it fails; returns ok. */
static int expect(int ok, const char *fmt, ...)
{
    if (!ok) {
        va_list ap;
        va_start(ap, fmt);
        printf("FAIL ");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
    wk_tally_add(&tally, ok);
    return ok;
}

static const wk_predicate positive = {WK_GREATER, {0}, {0}};
static uint64_t *count_of(const call_args *a) { return (uint64_t *)a->out; }
static unsigned char *body_of(const call_args *a) { return a->out + OUT_HEAD; }
static wk_segments rows_of(const call_args *a)
{
    wk_segments s = {a->n / ROW, ROW, 0, NULL, NULL};
    return s;
}
static size_t partial_count(size_t n) { return n < MAX_PARTIALS ? n : MAX_PARTIALS; }

static wk_status e_reduce(const call_args *a, cudaStream_t s)
{
    return wk_reduce(a->ctx, a->in, a->out, a->n, a->dtype, WK_SUM, s);
}
static wk_status e_argmax(const call_args *a, cudaStream_t s)
{
    return wk_reduce(a->ctx, a->in, a->out, a->n, a->dtype, WK_ARGMAX, s);
}
static wk_status e_index(const call_args *a, cudaStream_t s)
{
    return wk_reduce_index(a->ctx, a->in, (int64_t *)a->out, a->n, a->dtype, WK_ARGMIN, s);
}
static wk_status e_repro(const call_args *a, cudaStream_t s)
{
    return wk_reduce_repro(a->ctx, a->in, a->out, a->n, a->dtype, s);
}
static wk_status e_partial(const call_args *a, cudaStream_t s)
{
    return wk_reduce_repro_partial(a->ctx, a->in, (wk_repro_partial *)a->out, a->n, a->dtype, s);
}
static wk_status e_finalize(const call_args *a, cudaStream_t s)
{
    return wk_repro_finalize(a->ctx, a->partials, partial_count(a->n), a->out, a->dtype, s);
}
static wk_status e_inclusive(const call_args *a, cudaStream_t s)
{
    return wk_inclusive_scan(a->ctx, a->in, a->out, a->n, a->dtype, WK_SUM, s);
}
static wk_status e_exclusive(const call_args *a, cudaStream_t s)
{
    wk_value init = {0};
    return wk_exclusive_scan(a->ctx, a->in, a->out, a->n, a->dtype, WK_MAX, init, s);
}
static wk_status e_inclusive_from(const call_args *a, cudaStream_t s)
{
    return wk_inclusive_scan_from(a->ctx, a->in, a->out, a->n, a->dtype, WK_SUM, a->aux, s);
}
static wk_status e_exclusive_from(const call_args *a, cudaStream_t s)
{
    wk_value init = {0};
    return wk_exclusive_scan_from(a->ctx, a->in, a->out, a->n, a->dtype, WK_MIN, init, a->aux, s);
}
static wk_status e_select(const call_args *a, cudaStream_t s)
{
    return wk_select_if(a->ctx, a->in, body_of(a), count_of(a), a->n, a->dtype, positive, s);
}
static wk_status e_flagged(const call_args *a, cudaStream_t s)
{
    /* The input's own bytes as flags: about 255 in 256 are set. */
    return wk_select_flagged(a->ctx, a->in, a->in, body_of(a), count_of(a), a->n, a->dtype, s);
}
static wk_status e_partition(const call_args *a, cudaStream_t s)
{
    return wk_partition_if(a->ctx, a->in, body_of(a), count_of(a), a->n, a->dtype, positive, s);
}
static wk_status e_unique(const call_args *a, cudaStream_t s)
{
    return wk_unique(a->ctx, a->in, body_of(a), count_of(a), a->n, a->dtype, s);
}
static wk_status e_where(const call_args *a, cudaStream_t s)
{
    return wk_where(a->ctx, a->in, (int64_t *)body_of(a), count_of(a), a->n, a->dtype, positive, s);
}
static wk_status e_unique_from(const call_args *a, cudaStream_t s)
{
    return wk_unique_from(a->ctx, a->in, body_of(a), count_of(a), a->n, a->dtype, a->aux, s);
}
static wk_status e_where_from(const call_args *a, cudaStream_t s)
{
    return wk_where_from(a->ctx, a->in, (int64_t *)body_of(a), count_of(a), a->n, a->dtype, positive, a->aux, s);
}
static wk_status e_seg_reduce(const call_args *a, cudaStream_t s)
{
    wk_segments rows = rows_of(a);
    return wk_segmented_reduce(a->ctx, a->in, a->out, &rows, a->dtype, WK_SUM, s);
}
static wk_status e_seg_repro(const call_args *a, cudaStream_t s)
{
    wk_segments rows = rows_of(a);
    return wk_segmented_reduce_repro(a->ctx, a->in, a->out, &rows, a->dtype, s);
}
static wk_status e_seg_inclusive(const call_args *a, cudaStream_t s)
{
    wk_segments rows = rows_of(a);
    return wk_segmented_inclusive_scan(a->ctx, a->in, a->out, &rows, a->dtype, WK_SUM, s);
}
static wk_status e_seg_exclusive(const call_args *a, cudaStream_t s)
{
    wk_segments rows = rows_of(a);
    wk_value init = {0};
    return wk_segmented_exclusive_scan(a->ctx, a->in, a->out, &rows, a->dtype, WK_MAX, init, s);
}

static const entry entries[] = {
    {"wk_reduce sum", e_reduce, 0, 0},
    {"wk_reduce argmax", e_argmax, 0, 0},
    {"wk_reduce_index", e_index, 0, 0},
    {"wk_reduce_repro", e_repro, 1, 0},
    {"wk_reduce_repro_partial", e_partial, 1, 0},
    {"wk_repro_finalize", e_finalize, 1, 0},
    {"wk_inclusive_scan", e_inclusive, 0, 0},
    {"wk_exclusive_scan", e_exclusive, 0, 0},
    {"wk_inclusive_scan_from", e_inclusive_from, 0, 0},
    {"wk_exclusive_scan_from", e_exclusive_from, 0, 0},
    {"wk_select_if", e_select, 0, 0},
    {"wk_select_flagged", e_flagged, 0, 0},
    {"wk_partition_if", e_partition, 0, 0},
    {"wk_unique", e_unique, 0, 0},
    {"wk_where", e_where, 0, 0},
    {"wk_unique_from", e_unique_from, 0, 0},
    {"wk_where_from", e_where_from, 0, 0},
    {"wk_segmented_reduce", e_seg_reduce, 0, 1},
    {"wk_segmented_reduce_repro", e_seg_repro, 1, 1},
    {"wk_segmented_inclusive_scan", e_seg_inclusive, 0, 1},
    {"wk_segmented_exclusive_scan", e_seg_exclusive, 0, 1},
};
#define ENTRIES (sizeof entries / sizeof entries[0])

static const wk_dtype any_dtypes[] = {WK_F32, WK_I64, WK_F16};
static const wk_dtype float_dtypes[] = {WK_F32, WK_F64, WK_BF16};

/* ------------------------------------------------------------ buffers */

/* Device buffers: inputs (BACK_TO_BACK of them), outputs, the zeroed
 * auxiliary buffer and the partials the finalize reads (one set per input). */
static unsigned char *d_in[BACK_TO_BACK], *d_out[BACK_TO_BACK], *d_aux, *h_in, *h_want[BACK_TO_BACK], *h_got;
static wk_repro_partial *d_partials[BACK_TO_BACK];

static size_t out_bytes(size_t n) { return OUT_HEAD + n * 8 + sizeof(wk_arg_result); }

/* Fresh values for input k (all-ones bytes around them), and the partials of
 * its pieces for the finalize of input k. */
static void stage_input(int k, size_t n, wk_dtype dtype, size_t offset, uint64_t seed)
{
    const size_t elem = wk_dtype_size(dtype);
    wk_generate(h_in, n, dtype, WK_GEN_UNIFORM, seed);
    CHECK_CUDA(cudaMemset(d_in[k], 0xff, MAX_BYTES));
    CHECK_CUDA(cudaMemcpy(d_in[k] + offset * elem, h_in, n * elem, cudaMemcpyHostToDevice));
    if (wk_dtype_is_float(dtype)) {
        size_t parts = partial_count(n);
        for (size_t p = 0; p < parts; ++p) {
            size_t first = n * p / parts, last = n * (p + 1) / parts;
            wk_status st = wk_reduce_repro_partial(ctx, d_in[k] + (offset + first) * elem, d_partials[k] + p,
                                                   last - first, dtype, stream);
            if (st != WK_SUCCESS) {
                printf("FAIL the finalize's partials: %s\n", wk_last_error_message());
                exit(1);
            }
        }
        CHECK_CUDA(cudaStreamSynchronize(stream));
    }
}

static call_args args_for(int k, size_t n, wk_dtype dtype, size_t offset)
{
    call_args a = {ctx, d_in[k] + offset * wk_dtype_size(dtype), d_out[k], d_aux, d_partials[k], n, dtype};
    return a;
}

static void poison_out(int k) { CHECK_CUDA(cudaMemsetAsync(d_out[k], POISON, MAX_BYTES, stream)); }

/* Runs the call into a poisoned output and reads out_bytes back into h. */
static wk_status run_into(const entry *e, const call_args *a, int k, unsigned char *h)
{
    poison_out(k);
    wk_status st = e->call(a, stream);
    wait_stream(stream, HANG_SECONDS, e->name);
    CHECK_CUDA(cudaMemcpy(h, d_out[k], out_bytes(a->n), cudaMemcpyDeviceToHost));
    return st;
}

/* ------------------------------------------------------------- checks */

typedef struct captured_call {
    const entry *e;
    const call_args *a;
} captured_call;

static wk_status enqueue(const void *arg, cudaStream_t s)
{
    const captured_call *c = arg;
    return c->e->call(c->a, s);
}

static void check_rejections(const entry *e)
{
    call_args a = args_for(0, 1000, e->floats_only ? WK_F32 : WK_I64, 0);
    const struct {
        const char *what;
        wk_context *ctx;
        wk_dtype dtype;
        wk_status want;
    } bad[] = {{"a NULL context", NULL, a.dtype, WK_ERROR_INVALID_ARGUMENT},
               {"an unknown dtype", ctx, (wk_dtype)99, WK_ERROR_INVALID_DTYPE}};
    for (size_t i = 0; i < 2; ++i) {
        call_args b = a;
        b.ctx = bad[i].ctx;
        b.dtype = bad[i].dtype;
        /* Run (nothing written), then captured (nothing enqueued). */
        wk_poison_device(d_out[0], MAX_BYTES);
        wk_status st = e->call(&b, stream);
        int message = strlen(wk_last_error_message()) > 0;
        int untouched = wk_device_changes(stream, d_out[0], MAX_BYTES, 0, 0) == 0;
        captured_call c = {e, &b};
        wk_capture got;
        wk_status captured = wk_capture_call(stream, enqueue, &c, &got, NULL);
        expect(st == bad[i].want && captured == bad[i].want && message && got.nodes == 0 && untouched,
               "%s with %s: %s (want %s), captured %s, %zu nodes%s, output %s", e->name, bad[i].what,
               wk_status_string(st), wk_status_string(bad[i].want), wk_status_string(captured),
               got.nodes == SIZE_MAX ? 0 : got.nodes, got.nodes == SIZE_MAX ? " (the capture broke)" : "",
               untouched ? "untouched" : "changed");
    }
    call_args empty = a;
    empty.n = 0;
    captured_call c = {e, &empty};
    wk_capture got;
    wk_status st = wk_capture_call(stream, enqueue, &c, &got, NULL);
    expect(st == WK_SUCCESS && got.nodes <= 1, "%s of n = 0: %s, %s", e->name, wk_status_string(st),
           got.nodes == SIZE_MAX ? "the capture broke" : got.nodes == 0 ? "no node" : "one node");
}

/* One call: the same bits twice, one kernel, a graph's replays the same. */
static int check_call(const entry *e, size_t n, wk_dtype dtype, size_t offset, uint64_t seed)
{
    char what[192];
    snprintf(what, sizeof what, "%s %s n=%zu offset=%zu", e->name, wk_dtype_name(dtype), n, offset);
    stage_input(0, n, dtype, offset, seed);
    call_args a = args_for(0, n, dtype, offset);
    const size_t bytes = out_bytes(n);
    wk_status st = run_into(e, &a, 0, h_want[0]);
    if (st != WK_SUCCESS)
        return expect(0, "%s: %s (%s)", what, wk_status_string(st), wk_last_error_message());
    run_into(e, &a, 0, h_got);
    int ok = expect(memcmp(h_got, h_want[0], bytes) == 0, "%s: run twice, the same bits", what);

    cudaGraph_t graph;
    wk_capture got;
    captured_call c = {e, &a};
    poison_out(0);
    st = wk_capture_call(stream, enqueue, &c, &got, &graph);
    if (got.nodes == SIZE_MAX)
        return expect(0, "%s: the capture broke", what);
    const size_t want = e->rows && n < ROW ? 0 : 1;
    ok &= expect(st == WK_SUCCESS && got.nodes == want && got.kernels == want,
                 "%s: captured, %zu nodes of which %zu kernels (want %zu kernel)", what, got.nodes, got.kernels, want);
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
        poison_out(0);
        CHECK_CUDA(cudaGraphLaunch(exec, stream));
        wait_stream(stream, HANG_SECONDS, what);
        CHECK_CUDA(cudaMemcpy(h_got, d_out[0], bytes, cudaMemcpyDeviceToHost));
        ok &= expect(memcmp(h_got, h_want[0], bytes) == 0, "%s: graph replay %d, the same bits", what,
                        replay + 1);
    }
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    return ok;
}

/* BACK_TO_BACK calls on fresh inputs, enqueued with no wait between them. */
static void check_back_to_back(const entry *e, size_t n, wk_dtype dtype, uint64_t seed)
{
    const size_t bytes = out_bytes(n);
    call_args a[BACK_TO_BACK];
    for (int k = 0; k < BACK_TO_BACK; ++k) {
        stage_input(k, n, dtype, (size_t)k % 2, wk_rand64(seed, (uint64_t)k));
        a[k] = args_for(k, n, dtype, (size_t)k % 2);
    }
    for (int k = 0; k < BACK_TO_BACK; ++k)
        run_into(e, &a[k], k, h_want[k]);
    for (int k = 0; k < BACK_TO_BACK; ++k)
        poison_out(k);
    wk_status st = WK_SUCCESS;
    for (int k = 0; k < BACK_TO_BACK && st == WK_SUCCESS; ++k)
        st = e->call(&a[k], stream);
    wait_stream(stream, HANG_SECONDS, e->name);
    int same = st == WK_SUCCESS;
    for (int k = 0; k < BACK_TO_BACK; ++k) {
        CHECK_CUDA(cudaMemcpy(h_got, d_out[k], bytes, cudaMemcpyDeviceToHost));
        same &= memcmp(h_got, h_want[k], bytes) == 0;
    }
    expect(same, "%s %s n=%zu: %d calls back to back, each the bits of the call alone (%s)", e->name,
              wk_dtype_name(dtype), n, BACK_TO_BACK, wk_status_string(st));
}

/* The input and the output in managed memory. */
static void check_managed(const entry *e, size_t n, wk_dtype dtype, uint64_t seed)
{
    const size_t elem = wk_dtype_size(dtype), bytes = out_bytes(n);
    stage_input(0, n, dtype, 0, seed);
    call_args a = args_for(0, n, dtype, 0);
    run_into(e, &a, 0, h_want[0]);
    unsigned char *m_in, *m_out;
    CHECK_CUDA(cudaMallocManaged((void **)&m_in, n * elem + 16, cudaMemAttachGlobal));
    CHECK_CUDA(cudaMallocManaged((void **)&m_out, bytes, cudaMemAttachGlobal));
    memcpy(m_in, h_in, n * elem);
    memset(m_out, POISON, bytes);
    a.in = m_in;
    a.out = m_out;
    wk_status st = e->call(&a, stream);
    wait_stream(stream, HANG_SECONDS, e->name);
    expect(st == WK_SUCCESS && memcmp(m_out, h_want[0], bytes) == 0,
              "%s %s n=%zu in managed memory: the same bits (%s)", e->name, wk_dtype_name(dtype), n,
              wk_status_string(st));
    CHECK_CUDA(cudaFree(m_in));
    CHECK_CUDA(cudaFree(m_out));
}

int main(void)
{
    uint64_t seed;
    unsigned char *region;
    int rc = wk_api_test_start(&ctx, &seed, &stream, &region, 64);
    if (rc >= 0)
        return rc;
    for (int k = 0; k < BACK_TO_BACK; ++k) {
        CHECK_CUDA(cudaMalloc((void **)&d_in[k], MAX_BYTES));
        CHECK_CUDA(cudaMalloc((void **)&d_out[k], MAX_BYTES));
        h_want[k] = malloc(MAX_BYTES);
        if (!h_want[k])
            return 1;
    }
    CHECK_CUDA(cudaMalloc((void **)&d_aux, 64));
    CHECK_CUDA(cudaMemset(d_aux, 0, 64));
    for (int k = 0; k < BACK_TO_BACK; ++k)
        CHECK_CUDA(cudaMalloc((void **)&d_partials[k], MAX_PARTIALS * sizeof(wk_repro_partial)));
    h_in = malloc(MAX_BYTES);
    h_got = malloc(MAX_BYTES);
    if (!h_in || !h_got)
        return 1;

    const size_t sizes[] = {1, 1000, 100003, MAX_N};
    const size_t size_count = wk_test_quick() ? 2 : sizeof sizes / sizeof sizes[0];
    for (size_t i = 0; i < ENTRIES; ++i) {
        const entry *e = &entries[i];
        const wk_dtype *dtypes = e->floats_only ? float_dtypes : any_dtypes;
        int before = tally.failed, calls = 0;
        check_rejections(e);
        for (int d = 0; d < 3; ++d)
            for (size_t s = 0; s < size_count; ++s)
                for (size_t offset = 0; offset < 2; ++offset, ++calls)
                    check_call(e, sizes[s], dtypes[d], offset, wk_rand64(seed, i * 1000 + (size_t)calls));
        check_back_to_back(e, 100003, dtypes[0], wk_rand64(seed, i * 1000 + 900));
        check_managed(e, 1000, dtypes[1], wk_rand64(seed, i * 1000 + 901));
        wk_checkf(&tally, tally.failed == before,
                  "%s: rejections, n = 0, %d calls (one kernel, same bits twice and in graph replays), back to "
                  "back, managed memory",
                  e->name, calls);
    }

    for (int k = 0; k < BACK_TO_BACK; ++k) {
        CHECK_CUDA(cudaFree(d_in[k]));
        CHECK_CUDA(cudaFree(d_out[k]));
        free(h_want[k]);
    }
    CHECK_CUDA(cudaFree(d_aux));
    for (int k = 0; k < BACK_TO_BACK; ++k)
        CHECK_CUDA(cudaFree(d_partials[k]));
    free(h_in);
    free(h_got);
    return wk_api_test_finish(ctx, stream, region, &tally);
}
