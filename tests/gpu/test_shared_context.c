/* GPU test of one context shared by several streams, host threads and
 * graphs: mixed scans, selects and reduces on 2 and 4 streams at once, two
 * host threads (each on its own stream and both on one), more streams than
 * the context keeps workspaces for, graphs replayed on one stream while
 * eager calls run on others (and one capture forked over two streams), all
 * compared exactly with a CPU reference and none allowed to hang. Also: a
 * call that must wait for the host is refused during capture with the
 * capture intact (test_entry_points.c tries every entry point's capture
 * states); pinned host memory is read and written; MIN / MAX order
 * -0.0 below +0.0 for every float dtype. Exits 77 without a device. */
#define _POSIX_C_SOURCE 200809L

#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "test_util.h"
#include "warpkit.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wk_context *ctx;
static uint64_t seed;
static wk_tally tally;
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

/* wk_checkf, safe from several threads. */
static void expectf(int ok, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&tally_lock);
    if (!ok)
        printf("FAIL %s\n", text);
    wk_tally_add(&tally, ok);
    pthread_mutex_unlock(&tally_lock);
}

/* ------------------------------------------------------------------ jobs */

/* One call of each kind; the integer and extreme ops are exact, so every
 * output is compared bit for bit. */
typedef enum {
    JOB_SCAN_I32,     /* inclusive sum, wrapping           */
    JOB_SELECT_F32,   /* keep x < 0                        */
    JOB_REDUCE_I64,   /* sum, wrapping                     */
    JOB_UNIQUE_I32,   /* runs of small integers            */
    JOB_SCAN_F64_MAX, /* exclusive max from -inf           */
    JOB_ARGMAX_F32,
    JOB_KINDS
} job_kind;

typedef struct job {
    job_kind kind;
    size_t n, capacity;
    void *h_in, *h_out, *d_in, *d_out;
    uint64_t *d_count;
    uint64_t data_seed;
} job;

static size_t in_size(job_kind k) { return k == JOB_REDUCE_I64 || k == JOB_SCAN_F64_MAX ? 8 : 4; }
static size_t out_bytes(const job *j)
{
    switch (j->kind) {
    case JOB_REDUCE_I64: return 8;
    case JOB_ARGMAX_F32: return sizeof(wk_arg_result);
    default: return j->n * in_size(j->kind);
    }
}

static void job_alloc(job *j, job_kind kind, size_t capacity)
{
    memset(j, 0, sizeof *j);
    j->kind = kind;
    j->capacity = capacity;
    size_t bytes = capacity * 8 + 64;
    j->h_in = malloc(bytes);
    j->h_out = malloc(bytes);
    CHECK_CUDA(cudaMalloc(&j->d_in, bytes));
    CHECK_CUDA(cudaMalloc(&j->d_out, bytes));
    CHECK_CUDA(cudaMalloc((void **)&j->d_count, 8));
    if (!j->h_in || !j->h_out) {
        printf("FAIL host allocation of %zu bytes\n", bytes);
        exit(1);
    }
}

static void job_free(job *j)
{
    free(j->h_in);
    free(j->h_out);
    CHECK_CUDA(cudaFree(j->d_in));
    CHECK_CUDA(cudaFree(j->d_out));
    CHECK_CUDA(cudaFree(j->d_count));
}

/* New input of n elements, copied on `s`; the output and count poisoned. */
static void job_fill(job *j, size_t n, uint64_t data_seed, cudaStream_t s)
{
    j->n = n;
    j->data_seed = data_seed;
    switch (j->kind) {
    case JOB_SCAN_I32: wk_generate(j->h_in, n, WK_I32, WK_GEN_UNIFORM, data_seed); break;
    case JOB_SELECT_F32: wk_generate(j->h_in, n, WK_F32, WK_GEN_UNIFORM, data_seed); break;
    case JOB_REDUCE_I64: wk_generate(j->h_in, n, WK_I64, WK_GEN_UNIFORM, data_seed); break;
    case JOB_UNIQUE_I32: wk_generate(j->h_in, n, WK_I32, WK_GEN_SMALL_INTS, data_seed); break;
    case JOB_SCAN_F64_MAX: wk_generate(j->h_in, n, WK_F64, WK_GEN_UNIFORM, data_seed); break;
    case JOB_ARGMAX_F32: wk_generate(j->h_in, n, WK_F32, WK_GEN_SMALL_INTS, data_seed); break;
    default: break;
    }
    CHECK_CUDA(cudaMemcpyAsync(j->d_in, j->h_in, n * in_size(j->kind), cudaMemcpyHostToDevice, s));
    CHECK_CUDA(cudaMemsetAsync(j->d_out, POISON, out_bytes(j), s));
    CHECK_CUDA(cudaMemsetAsync(j->d_count, POISON, 8, s));
}

static wk_status job_enqueue(wk_context *c, const job *j, cudaStream_t s)
{
    wk_predicate negative = {.compare = WK_LESS, .a = {.f32 = 0.0f}};
    wk_value lowest = {.f64 = -INFINITY};
    switch (j->kind) {
    case JOB_SCAN_I32: return wk_inclusive_scan(c, j->d_in, j->d_out, j->n, WK_I32, WK_SUM, s);
    case JOB_SELECT_F32: return wk_select_if(c, j->d_in, j->d_out, j->d_count, j->n, WK_F32, negative, s);
    case JOB_REDUCE_I64: return wk_reduce(c, j->d_in, j->d_out, j->n, WK_I64, WK_SUM, s);
    case JOB_UNIQUE_I32: return wk_unique(c, j->d_in, j->d_out, j->d_count, j->n, WK_I32, s);
    case JOB_SCAN_F64_MAX: return wk_exclusive_scan(c, j->d_in, j->d_out, j->n, WK_F64, WK_MAX, lowest, s);
    case JOB_ARGMAX_F32: return wk_reduce(c, j->d_in, j->d_out, j->n, WK_F32, WK_ARGMAX, s);
    default: return WK_ERROR_INVALID_ARGUMENT;
    }
}

static const char *job_name(job_kind k)
{
    static const char *const names[JOB_KINDS] = {"scan i32 sum", "select f32 x<0", "reduce i64 sum",
                                                 "unique i32", "exclusive scan f64 max", "argmax f32"};
    return names[k];
}

/* The expected output, built in j->h_out's second half is not needed: the
 * reference runs alongside the comparison. Returns the index of the first
 * wrong output, or -1. The output must already be in j->h_out. */
static long long job_first_error(const job *j, uint64_t count)
{
    const size_t n = j->n;
    switch (j->kind) {
    case JOB_SCAN_I32: {
        const uint32_t *in = j->h_in, *out = j->h_out;
        uint32_t acc = 0;
        for (size_t i = 0; i < n; ++i)
            if (out[i] != (acc += in[i]))
                return (long long)i;
        return -1;
    }
    case JOB_SELECT_F32: {
        const float *in = j->h_in, *out = j->h_out;
        size_t k = 0;
        for (size_t i = 0; i < n; ++i)
            if (in[i] < 0.0f) {
                if (k >= count || memcmp(&out[k], &in[i], 4) != 0)
                    return (long long)k;
                ++k;
            }
        return k == count ? -1 : (long long)k;
    }
    case JOB_REDUCE_I64: {
        const uint64_t *in = j->h_in;
        uint64_t acc = 0;
        for (size_t i = 0; i < n; ++i)
            acc += in[i];
        return memcmp(j->h_out, &acc, 8) == 0 ? -1 : 0;
    }
    case JOB_UNIQUE_I32: {
        const int32_t *in = j->h_in, *out = j->h_out;
        size_t k = 0;
        for (size_t i = 0; i < n; ++i)
            if (i == 0 || in[i] != in[i - 1]) {
                if (k >= count || out[k] != in[i])
                    return (long long)k;
                ++k;
            }
        return k == count ? -1 : (long long)k;
    }
    case JOB_SCAN_F64_MAX: {
        const double *in = j->h_in, *out = j->h_out;
        double acc = -INFINITY;
        for (size_t i = 0; i < n; ++i) {
            if (memcmp(&out[i], &acc, 8) != 0)
                return (long long)i;
            if (in[i] > acc)
                acc = in[i];
        }
        return -1;
    }
    case JOB_ARGMAX_F32: {
        const float *in = j->h_in;
        size_t best = 0;
        for (size_t i = 1; i < n; ++i)
            if (in[i] > in[best])
                best = i;
        wk_arg_result r;
        memcpy(&r, j->h_out, sizeof r);
        return r.index == (int64_t)best && memcmp(&r.value, &in[best], 4) == 0 ? -1 : 0;
    }
    default: return 0;
    }
}

/* Copies the results back (after the stream is done) and checks them. */
static void job_check(job *j, cudaStream_t s, const char *where)
{
    uint64_t count = 0;
    CHECK_CUDA(cudaMemcpyAsync(j->h_out, j->d_out, out_bytes(j), cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaMemcpyAsync(&count, j->d_count, 8, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    long long bad = job_first_error(j, count);
    expectf(bad < 0, "%s: %s of %zu elements (data seed %llu) is right%s", where, job_name(j->kind), j->n,
            (unsigned long long)j->data_seed, bad < 0 ? "" : " -- first wrong output found");
}

static void job_run(job *j, cudaStream_t s, const char *where)
{
    wk_status st = job_enqueue(ctx, j, s);
    expectf(st == WK_SUCCESS, "%s: %s enqueued (%s %s)", where, job_name(j->kind), wk_status_string(st),
            wk_last_error_message());
}

static size_t largest_size(void) { return wk_test_quick() ? (size_t)1 << 18 : ((size_t)1 << 24) + 1; }

static size_t pick_size(unsigned i)
{
    const size_t full[] = {1, 1000, 65537, (size_t)1 << 20, ((size_t)1 << 22) + 3, ((size_t)1 << 24) + 1};
    const size_t quick[] = {1, 1000, 4099, 65537, (size_t)1 << 17, (size_t)1 << 18};
    return (wk_test_quick() ? quick : full)[i % 6];
}

/* --------------------------------------------------------- many streams */

/* Every kind on every stream, issued round-robin so that kernels of
 * different streams overlap, three rounds; then each stream is awaited
 * with a time limit and every output checked. */
static void test_streams(int count)
{
    cudaStream_t streams[4];
    job jobs[4][JOB_KINDS];
    for (int s = 0; s < count; ++s) {
        CHECK_CUDA(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        for (int k = 0; k < JOB_KINDS; ++k)
            job_alloc(&jobs[s][k], (job_kind)k, largest_size());
    }
    char where[96];
    for (unsigned round = 0; round < 3; ++round) {
        for (int s = 0; s < count; ++s)
            for (int k = 0; k < JOB_KINDS; ++k)
                job_fill(&jobs[s][k], pick_size(round + (unsigned)(s + k)), seed ^ wk_rand64(seed, round * 64u + (unsigned)(s * 8 + k)),
                         streams[s]);
        for (int k = 0; k < JOB_KINDS; ++k)
            for (int s = 0; s < count; ++s) {
                snprintf(where, sizeof where, "%d streams, round %u, stream %d", count, round, s);
                job_run(&jobs[s][k], streams[s], where);
            }
        for (int s = 0; s < count; ++s)
            wait_stream(streams[s], HANG_SECONDS, "concurrent calls through one context");
        for (int s = 0; s < count; ++s)
            for (int k = 0; k < JOB_KINDS; ++k) {
                snprintf(where, sizeof where, "%d streams, round %u, stream %d", count, round, s);
                job_check(&jobs[s][k], streams[s], where);
            }
    }
    for (int s = 0; s < count; ++s) {
        for (int k = 0; k < JOB_KINDS; ++k)
            job_free(&jobs[s][k]);
        CHECK_CUDA(cudaStreamDestroy(streams[s]));
    }
}

/* ---------------------------------------------------------- host threads */

typedef struct thread_arg {
    int id;
    cudaStream_t own, shared;
} thread_arg;

/* Each thread calls on its own stream and on the stream both share. */
static void *thread_main(void *p)
{
    thread_arg *a = p;
    job jobs[JOB_KINDS];
    for (int k = 0; k < JOB_KINDS; ++k)
        job_alloc(&jobs[k], (job_kind)k, largest_size());
    char where[96];
    for (unsigned it = 0; it < 4; ++it) {
        cudaStream_t s = it % 2 ? a->shared : a->own;
        snprintf(where, sizeof where, "thread %d, %s stream, iteration %u", a->id, it % 2 ? "shared" : "own", it);
        for (int k = 0; k < JOB_KINDS; ++k) {
            job_fill(&jobs[k], pick_size(it + (unsigned)(k + a->id)), wk_rand64(seed, 1000u + it * 64u + (unsigned)(a->id * 8 + k)),
                     s);
            job_run(&jobs[k], s, where);
        }
        wait_stream(s, HANG_SECONDS, where);
        for (int k = 0; k < JOB_KINDS; ++k)
            job_check(&jobs[k], s, where);
    }
    for (int k = 0; k < JOB_KINDS; ++k)
        job_free(&jobs[k]);
    return NULL;
}

static void test_threads(void)
{
    cudaStream_t shared;
    CHECK_CUDA(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
    thread_arg args[2];
    pthread_t threads[2];
    for (int t = 0; t < 2; ++t) {
        args[t].id = t;
        args[t].shared = shared;
        CHECK_CUDA(cudaStreamCreateWithFlags(&args[t].own, cudaStreamNonBlocking));
        if (pthread_create(&threads[t], NULL, thread_main, &args[t]) != 0) {
            printf("FAIL pthread_create\n");
            exit(1);
        }
    }
    for (int t = 0; t < 2; ++t) {
        pthread_join(threads[t], NULL);
        CHECK_CUDA(cudaStreamDestroy(args[t].own));
    }
    CHECK_CUDA(cudaStreamDestroy(shared));
}

/* ---------------------------------------------- more streams than kept */

/* 48 streams, each made, used and destroyed in turn with up to 24 alive at
 * once: past the context's 16 stream workspaces, new streams take over the
 * workspaces of idle ones. Scans use the tile slots, reduces the ticket. */
static void test_stream_churn(void)
{
    enum { TOTAL = 48, ALIVE = 24 };
    cudaStream_t streams[TOTAL];
    job jobs[TOTAL];
    char where[96];
    for (int i = 0; i < TOTAL + ALIVE; ++i) {
        if (i < TOTAL) {
            CHECK_CUDA(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
            job_kind k = i % 3 == 0 ? JOB_REDUCE_I64 : i % 3 == 1 ? JOB_SCAN_I32 : JOB_SELECT_F32;
            size_t n = wk_test_quick() ? ((size_t)1 << 16) + (size_t)i : ((size_t)1 << 21) + (size_t)i;
            job_alloc(&jobs[i], k, n);
            job_fill(&jobs[i], n, wk_rand64(seed, 5000u + (unsigned)i), streams[i]);
            snprintf(where, sizeof where, "stream %d of %d", i, TOTAL);
            job_run(&jobs[i], streams[i], where);
        }
        int done = i - ALIVE;
        if (done >= 0) {
            snprintf(where, sizeof where, "stream %d of %d", done, TOTAL);
            wait_stream(streams[done], HANG_SECONDS, where);
            job_check(&jobs[done], streams[done], where);
            job_free(&jobs[done]);
            CHECK_CUDA(cudaStreamDestroy(streams[done]));
        }
    }
}

/* ---------------------------------------------------------------- graphs */

/* A graph of a scan and a select, captured on stream a, replayed on b while
 * eager calls run on a and c; the captured inputs get new data before each
 * replay. Then one capture forked over two streams, each branch a scan. */
static void test_graphs(void)
{
    cudaStream_t a, b, c;
    CHECK_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
    const size_t big = wk_test_quick() ? (size_t)1 << 18 : ((size_t)1 << 22) + 3;
    job g_scan, g_select, e_a[2], e_c[2];
    job_alloc(&g_scan, JOB_SCAN_I32, big);
    job_alloc(&g_select, JOB_SELECT_F32, big);
    for (int k = 0; k < 2; ++k) {
        job_alloc(&e_a[k], k ? JOB_UNIQUE_I32 : JOB_SCAN_I32, big);
        job_alloc(&e_c[k], k ? JOB_ARGMAX_F32 : JOB_SCAN_F64_MAX, big);
    }
    /* Sizes are fixed at capture; the data is not. */
    job_fill(&g_scan, big, wk_rand64(seed, 7000), a);
    job_fill(&g_select, big - 1, wk_rand64(seed, 7001), a);
    CHECK_CUDA(cudaStreamSynchronize(a));
    cudaGraph_t graph;
    CHECK_CUDA(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    wk_status s1 = job_enqueue(ctx, &g_scan, a), s2 = job_enqueue(ctx, &g_select, a);
    CHECK_CUDA(cudaStreamEndCapture(a, &graph));
    expectf(s1 == WK_SUCCESS && s2 == WK_SUCCESS, "a scan and a select captured (%s, %s: %s)", wk_status_string(s1),
            wk_status_string(s2), wk_last_error_message());
    wk_capture nodes;
    wk_count_graph_nodes(graph, &nodes);
    expectf(nodes.nodes == 2 && nodes.kernels == 2, "the graph holds the two kernels and nothing else (%zu nodes)",
            nodes.nodes);
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    char where[96];
    for (unsigned round = 0; round < 3; ++round) {
        job_fill(&g_scan, big, wk_rand64(seed, 7100 + round), b);
        job_fill(&g_select, big - 1, wk_rand64(seed, 7200 + round), b);
        for (int k = 0; k < 2; ++k) {
            job_fill(&e_a[k], big - (size_t)k, wk_rand64(seed, 7300 + round * 4 + (unsigned)k), a);
            job_fill(&e_c[k], big - 2 * (size_t)k, wk_rand64(seed, 7400 + round * 4 + (unsigned)k), c);
        }
        snprintf(where, sizeof where, "graph round %u", round);
        CHECK_CUDA(cudaGraphLaunch(exec, b));
        for (int k = 0; k < 2; ++k) {
            job_run(&e_a[k], a, where);
            job_run(&e_c[k], c, where);
        }
        wait_stream(a, HANG_SECONDS, where);
        wait_stream(b, HANG_SECONDS, where);
        wait_stream(c, HANG_SECONDS, where);
        snprintf(where, sizeof where, "graph round %u, replayed on another stream", round);
        job_check(&g_scan, b, where);
        job_check(&g_select, b, where);
        snprintf(where, sizeof where, "graph round %u, eager beside the graph", round);
        for (int k = 0; k < 2; ++k) {
            job_check(&e_a[k], a, where);
            job_check(&e_c[k], c, where);
        }
    }
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));

    /* One capture forked over a and b: the branches may run at once. */
    cudaEvent_t fork, join;
    CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    job_fill(&e_a[0], big, wk_rand64(seed, 7500), a);
    job_fill(&g_scan, big - 5, wk_rand64(seed, 7501), a);
    CHECK_CUDA(cudaStreamSynchronize(a));
    CHECK_CUDA(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    CHECK_CUDA(cudaEventRecord(fork, a));
    CHECK_CUDA(cudaStreamWaitEvent(b, fork, 0));
    s1 = job_enqueue(ctx, &e_a[0], a);
    s2 = job_enqueue(ctx, &g_scan, b);
    CHECK_CUDA(cudaEventRecord(join, b));
    CHECK_CUDA(cudaStreamWaitEvent(a, join, 0));
    CHECK_CUDA(cudaStreamEndCapture(a, &graph));
    expectf(s1 == WK_SUCCESS && s2 == WK_SUCCESS, "two scans captured on two branches of one graph");
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (unsigned round = 0; round < 2; ++round) {
        CHECK_CUDA(cudaGraphLaunch(exec, c));
        wait_stream(c, HANG_SECONDS, "forked graph");
        job_check(&e_a[0], c, "forked graph, branch a");
        job_check(&g_scan, c, "forked graph, branch b");
    }
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_CUDA(cudaEventDestroy(fork));
    CHECK_CUDA(cudaEventDestroy(join));

    /* After the graphs are gone, eager calls go on as before. */
    job_fill(&g_scan, big, wk_rand64(seed, 7600), a);
    job_run(&g_scan, a, "after the graphs");
    wait_stream(a, HANG_SECONDS, "after the graphs");
    job_check(&g_scan, a, "after the graphs");

    job_free(&g_scan);
    job_free(&g_select);
    for (int k = 0; k < 2; ++k) {
        job_free(&e_a[k]);
        job_free(&e_c[k]);
    }
    CHECK_CUDA(cudaStreamDestroy(a));
    CHECK_CUDA(cudaStreamDestroy(b));
    CHECK_CUDA(cudaStreamDestroy(c));
}

/* wk_reduce_to_host waits for the host: during a capture, in either mode,
 * it is refused with WK_ERROR_CAPTURE and leaves the capture whole and
 * empty, and h_out as it was. */
static void test_to_host_in_capture(void)
{
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    job j;
    job_alloc(&j, JOB_REDUCE_I64, 1000);
    job_fill(&j, 1000, wk_rand64(seed, 8000), s);
    CHECK_CUDA(cudaStreamSynchronize(s));
    const enum cudaStreamCaptureMode modes[2] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeRelaxed};
    for (int m = 0; m < 2; ++m) {
        unsigned char h[8];
        memset(h, POISON, sizeof h);
        CHECK_CUDA(cudaStreamBeginCapture(s, modes[m]));
        wk_status st = wk_reduce_to_host(ctx, j.d_in, h, j.n, WK_I64, WK_SUM, s);
        const char *message = wk_last_error_message();
        cudaGraph_t graph = NULL;
        cudaError_t end = cudaStreamEndCapture(s, &graph);
        wk_capture nodes = {0, 0, 0};
        if (end == cudaSuccess)
            wk_count_graph_nodes(graph, &nodes);
        expectf(st == WK_ERROR_CAPTURE && strlen(message) > 0 && end == cudaSuccess && nodes.nodes == 0 &&
                    h[0] == POISON,
                "wk_reduce_to_host during a %s capture: %s, '%s'; capture ended with %s, %zu nodes",
                m ? "relaxed" : "global", wk_status_string(st), message, cudaGetErrorString(end), nodes.nodes);
        if (graph)
            CHECK_CUDA(cudaGraphDestroy(graph));
    }
    /* And outside a capture it works. */
    int64_t got = 0;
    wk_status st = wk_reduce_to_host(ctx, j.d_in, &got, j.n, WK_I64, WK_SUM, s);
    memcpy(j.h_out, &got, 8);
    expectf(st == WK_SUCCESS && job_first_error(&j, 0) < 0, "wk_reduce_to_host after the captures is right");
    job_free(&j);
    CHECK_CUDA(cudaStreamDestroy(s));
}

/* ----------------------------------------------------------- host memory */

/* A job of n elements from data_seed whose input is also copied to `host`
 * (pinned or registered memory), for a call to read it there. */
static void job_in_host_memory(job *j, job_kind kind, size_t n, uint64_t data_seed, void *host, cudaStream_t s)
{
    job_alloc(j, kind, n);
    job_fill(j, n, data_seed, s);
    CHECK_CUDA(cudaStreamSynchronize(s));
    memcpy(host, j->h_in, n * in_size(kind));
}

/* Pinned memory (cudaMallocHost, and malloc'd memory after cudaHostRegister)
 * is read and written by the calls; pageable memory is refused. */
static void test_pinned(void)
{
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t n = 100003;
    void *pinned_in, *pinned_out, *registered;
    CHECK_CUDA(cudaMallocHost(&pinned_in, n * 8));
    CHECK_CUDA(cudaMallocHost(&pinned_out, n * 8));
    registered = malloc(n * 8 + 4096);
    CHECK_CUDA(cudaHostRegister(registered, n * 8 + 4096, cudaHostRegisterDefault));

    /* Scan from pinned memory into pinned memory. */
    job j;
    job_in_host_memory(&j, JOB_SCAN_I32, n, wk_rand64(seed, 9000), pinned_in, s);
    memset(pinned_out, POISON, n * 4);
    wk_status st = wk_inclusive_scan(ctx, pinned_in, pinned_out, n, WK_I32, WK_SUM, s);
    CHECK_CUDA(cudaStreamSynchronize(s));
    memcpy(j.h_out, pinned_out, n * 4);
    expectf(st == WK_SUCCESS && job_first_error(&j, 0) < 0, "scan of cudaMallocHost memory into it (%s %s)",
            wk_status_string(st), wk_last_error_message());

    /* Reduce and select of registered memory, results on the device. */
    job r;
    job_in_host_memory(&r, JOB_REDUCE_I64, n, wk_rand64(seed, 9001), registered, s);
    st = wk_reduce(ctx, registered, r.d_out, n, WK_I64, WK_SUM, s);
    CHECK_CUDA(cudaMemcpyAsync(r.h_out, r.d_out, 8, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    expectf(st == WK_SUCCESS && job_first_error(&r, 0) < 0, "reduce of cudaHostRegister memory (%s %s)",
            wk_status_string(st), wk_last_error_message());

    job f;
    job_in_host_memory(&f, JOB_SELECT_F32, n, wk_rand64(seed, 9002), registered, s);
    wk_predicate negative = {.compare = WK_LESS, .a = {.f32 = 0.0f}};
    st = wk_select_if(ctx, registered, f.d_out, f.d_count, n, WK_F32, negative, s);
    CHECK_CUDA(cudaStreamSynchronize(s));
    expectf(st == WK_SUCCESS, "select of cudaHostRegister memory (%s %s)", wk_status_string(st),
            wk_last_error_message());
    job_check(&f, s, "select of cudaHostRegister memory");

    /* Pageable memory: refused, nothing written. */
    void *pageable = malloc(n * 4);
    memset(j.h_out, POISON, n * 4);
    CHECK_CUDA(cudaMemcpyAsync(j.d_out, j.h_out, n * 4, cudaMemcpyHostToDevice, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    st = wk_inclusive_scan(ctx, pageable, j.d_out, n, WK_I32, WK_SUM, s);
    size_t changed = wk_device_changes(s, j.d_out, n * 4, 0, 0);
    expectf(st == WK_ERROR_INVALID_POINTER && changed == 0, "pageable d_in is refused (%s), nothing written",
            wk_status_string(st));

    free(pageable);
    CHECK_CUDA(cudaHostUnregister(registered));
    free(registered);
    CHECK_CUDA(cudaFreeHost(pinned_in));
    CHECK_CUDA(cudaFreeHost(pinned_out));
    job_free(&j);
    job_free(&r);
    job_free(&f);
    CHECK_CUDA(cudaStreamDestroy(s));
}

/* ---------------------------------------------------------- signed zeros */

/* Each element is +0, -0 or a number beyond zero (+1 for MIN, -1 for MAX),
 * in the dtype's bits. */
static uint64_t zero_bits(wk_dtype d, int code, int is_max)
{
    static const uint64_t plus_zero[4] = {0, 0, 0, 0};
    static const uint64_t minus_zero[4] = {0x80000000u, 0x8000000000000000ull, 0x8000u, 0x8000u};
    static const uint64_t one[4] = {0x3f800000u, 0x3ff0000000000000ull, 0x3c00u, 0x3f80u};
    int k = d == WK_F32 ? 0 : d == WK_F64 ? 1 : d == WK_F16 ? 2 : 3;
    if (code == 0)
        return plus_zero[k];
    if (code == 1)
        return minus_zero[k];
    return is_max ? one[k] | minus_zero[k] : one[k];
}

/* Reduce and inclusive scan, MIN and MAX, of such elements: the result is
 * -0 for MIN once any -0 is in, +0 for MAX once any +0 is in, whatever the
 * order and the size. */
static void test_zero_signs(void)
{
    const wk_dtype dtypes[4] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    const size_t sizes[] = {1, 2, 33, 1025, 65537, ((size_t)1 << 20) + 7};
    const size_t max_n = ((size_t)1 << 20) + 7;
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned char *h_in = malloc(max_n * 8), *h_out = malloc(max_n * 8);
    void *d_in, *d_out;
    CHECK_CUDA(cudaMalloc(&d_in, max_n * 8));
    CHECK_CUDA(cudaMalloc(&d_out, max_n * 8));
    unsigned draw = 0;
    for (int di = 0; di < 4; ++di)
        for (int is_max = 0; is_max < 2; ++is_max)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                const wk_dtype d = dtypes[di];
                const size_t n = sizes[si], e = wk_dtype_size(d);
                const wk_op op = is_max ? WK_MAX : WK_MIN;
                /* Mostly the zero that loses, a few of the one that wins. */
                for (size_t i = 0; i < n; ++i) {
                    uint64_t r = wk_rand64(seed, 10000 + draw++) % 64;
                    int code = r < 2 ? !is_max : r < 40 ? is_max : 2;
                    uint64_t bits = zero_bits(d, code, is_max);
                    memcpy(h_in + i * e, &bits, e);
                }
                /* On s: the stream is non-blocking, so copies and sets on the
                 * legacy stream would not be ordered with the calls. */
                CHECK_CUDA(cudaMemcpyAsync(d_in, h_in, n * e, cudaMemcpyHostToDevice, s));
                /* Reduce: the prefix rule at the last element. */
                CHECK_CUDA(cudaMemsetAsync(d_out, POISON, 8, s));
                wk_status st = wk_reduce(ctx, d_in, d_out, n, d, op, s);
                CHECK_CUDA(cudaMemcpyAsync(h_out, d_out, e, cudaMemcpyDeviceToHost, s));
                wait_stream(s, HANG_SECONDS, "zero signs");
                /* The expected prefix value, element by element. */
                int winner_seen = 0, loser_seen = 0;
                size_t scan_bad = SIZE_MAX;
                uint64_t want = 0;
                unsigned char *scan_out = malloc(n * e);
                wk_status st_scan = wk_inclusive_scan(ctx, d_in, d_out, n, d, op, s);
                CHECK_CUDA(cudaMemcpyAsync(scan_out, d_out, n * e, cudaMemcpyDeviceToHost, s));
                wait_stream(s, HANG_SECONDS, "zero signs");
                for (size_t i = 0; i < n; ++i) {
                    uint64_t x = 0;
                    memcpy(&x, h_in + i * e, e);
                    winner_seen |= x == zero_bits(d, is_max ? 0 : 1, is_max);
                    loser_seen |= x == zero_bits(d, is_max ? 1 : 0, is_max);
                    want = zero_bits(d, winner_seen ? !is_max : loser_seen ? is_max : 2, is_max);
                    uint64_t got = 0;
                    memcpy(&got, scan_out + i * e, e);
                    if (got != want && scan_bad == SIZE_MAX)
                        scan_bad = i;
                }
                free(scan_out);
                uint64_t got = 0;
                memcpy(&got, h_out, e);
                expectf(st == WK_SUCCESS && got == want, "%s reduce %s of %zu signed zeros: %#llx (want %#llx)",
                        wk_dtype_name(d), wk_op_name(op), n, (unsigned long long)got, (unsigned long long)want);
                expectf(st_scan == WK_SUCCESS && scan_bad == SIZE_MAX,
                        "%s inclusive scan %s of %zu signed zeros%s", wk_dtype_name(d), wk_op_name(op), n,
                        scan_bad == SIZE_MAX ? "" : ": a prefix has the wrong zero");
            }
    free(h_in);
    free(h_out);
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaStreamDestroy(s));
}

int main(void)
{
    wk_status st = wk_create(&ctx, -1);
    int setup = wk_test_setup(st, "wk_create");
    if (setup >= 0)
        return setup;
    seed = wk_seed_from_time();
    printf("seed %llu (WK_SEED=%llu repeats this run)%s\n", (unsigned long long)seed, (unsigned long long)seed,
           wk_test_quick() ? ", quick sizes" : "");
    fflush(stdout);

    test_streams(2);
    test_streams(4);
    test_threads();
    test_stream_churn();
    test_graphs();
    test_to_host_in_capture();
    test_pinned();
    test_zero_signs();

    st = wk_destroy(ctx);
    expectf(st == WK_SUCCESS, "wk_destroy (%s)", wk_status_string(st));
    return wk_tally_finish(&tally);
}
