#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */

#include "gpu/api_test_util.h"
#include "ref/generate.h"

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void wk_count_graph_nodes(cudaGraph_t graph, wk_capture *got)
{
    memset(got, 0, sizeof *got);
    CHECK_CUDA(cudaGraphGetNodes(graph, NULL, &got->nodes));
    if (got->nodes > 0) {
        cudaGraphNode_t *list = malloc(got->nodes * sizeof *list);
        CHECK_CUDA(cudaGraphGetNodes(graph, list, &got->nodes));
        for (size_t i = 0; i < got->nodes; ++i) {
            enum cudaGraphNodeType type;
            CHECK_CUDA(cudaGraphNodeGetType(list[i], &type));
            got->kernels += type == cudaGraphNodeTypeKernel;
            got->memsets += type == cudaGraphNodeTypeMemset;
        }
        free(list);
    }
}

wk_status wk_capture_call(cudaStream_t stream, wk_enqueue_fn enqueue, const void *call, wk_capture *got,
                          cudaGraph_t *keep)
{
    cudaGraph_t graph = NULL;
    memset(got, 0, sizeof *got);
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    wk_status st = enqueue(call, stream);
    cudaError_t end = cudaStreamEndCapture(stream, &graph);
    if (end != cudaSuccess) {
        printf("FAIL the call broke the stream capture: %s\n", cudaGetErrorString(end));
        cudaGetLastError();
        got->nodes = SIZE_MAX;
        return st;
    }
    wk_count_graph_nodes(graph, got);
    if (keep)
        *keep = graph;
    else
        CHECK_CUDA(cudaGraphDestroy(graph));
    return st;
}

wk_status wk_capture_one_kernel(wk_tally *t, cudaStream_t stream, wk_enqueue_fn enqueue, const void *call,
                                const char *what, cudaGraph_t *graph)
{
    wk_capture got;
    *graph = NULL;
    wk_status st = wk_capture_call(stream, enqueue, call, &got, graph);
    char label[384];
    snprintf(label, sizeof label, "%s: status %s, %zu nodes, %zu kernels", what, wk_status_string(st), got.nodes,
             got.kernels);
    wk_expect(t, st == WK_SUCCESS && got.nodes == 1 && got.kernels == 1, label);
    if (st != WK_SUCCESS && *graph) {
        CHECK_CUDA(cudaGraphDestroy(*graph));
        *graph = NULL;
    }
    return st;
}

void wk_launch_graph_once(cudaStream_t stream, cudaGraph_t graph, const char *what)
{
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    wait_stream(stream, HANG_SECONDS, what);
    CHECK_CUDA(cudaGraphExecDestroy(exec));
}

void wk_free_device_list(const void *const *buffers, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (buffers[i])
            CHECK_CUDA(cudaFree((void *)buffers[i]));
}

void wk_free_host_list(const void *const *buffers, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        free((void *)buffers[i]);
}

void wk_poison_device(void *d, size_t bytes)
{
    CHECK_CUDA(cudaMemset(d, POISON, bytes));
    CHECK_CUDA(cudaDeviceSynchronize());
}

size_t wk_device_changes(cudaStream_t stream, const void *d, size_t bytes, size_t skip, size_t skip_bytes)
{
    unsigned char *h = malloc(bytes);
    if (!h) {
        printf("FAIL cannot allocate %zu bytes of host memory\n", bytes);
        exit(1);
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    size_t changed = 0;
    for (size_t i = 0; i < bytes; ++i)
        changed += (i < skip || i >= skip + skip_bytes) && h[i] != POISON;
    free(h);
    return changed;
}

double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void wait_stream(cudaStream_t s, double limit, const char *what)
{
    double start = seconds_now();
    for (;;) {
        cudaError_t e = cudaStreamQuery(s);
        if (e == cudaSuccess)
            return;
        if (e != cudaErrorNotReady) {
            printf("FAIL %s: %s\n", what, cudaGetErrorString(e));
            fflush(stdout);
            exit(1);
        }
        if (seconds_now() - start > limit) {
            printf("FAIL %s: not finished after %.0f s (a tile waiting for a status that never comes?)\n", what,
                   limit);
            fflush(stdout);
            _exit(1); /* no CUDA teardown: it would wait for the hung kernel */
        }
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
}

int wk_api_test_start(wk_context **ctx, uint64_t *seed, cudaStream_t *stream, unsigned char **d_region,
                      size_t region_bytes)
{
    int setup = wk_test_setup(wk_create(ctx, -1), "wk_create");
    if (setup >= 0)
        return setup;
    *seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)\n", (unsigned long long)*seed);
    CHECK_CUDA(cudaStreamCreate(stream));
    CHECK_CUDA(cudaMalloc((void **)d_region, region_bytes));
    return -1;
}

int wk_api_test_finish(wk_context *ctx, cudaStream_t stream, unsigned char *d_region, const wk_tally *t)
{
    CHECK_CUDA(cudaFree(d_region));
    CHECK_CUDA(cudaStreamDestroy(stream));
    wk_destroy(ctx);
    return wk_tally_finish(t);
}

wk_context *wk_fresh_context(wk_tally *t, const char *what)
{
    wk_context *fresh = NULL;
    wk_status st = wk_create(&fresh, -1);
    wk_expect(t, st == WK_SUCCESS, what);
    return st == WK_SUCCESS ? fresh : NULL;
}

uint64_t wk_sum_nan_bits(wk_dtype dtype)
{
    switch (dtype) {
    case WK_F32: return 0x7fffffffu;
    case WK_F64: return 0x7ff8000000000000ull;
    default: return 0x7fffu;
    }
}

void wk_store_signed_nan(void *h, size_t i, wk_dtype dtype, int negative)
{
    const size_t size = wk_dtype_size(dtype);
    const uint64_t sign = (uint64_t)(negative != 0) << (8 * size - 1);
    uint64_t bits = 0;
    switch (dtype) {
    case WK_F64: bits = 0x7ff0000000000001ull; break;
    case WK_F32: bits = 0x7f800001u; break;
    case WK_F16: bits = 0x7c01u; break;
    case WK_BF16: bits = 0x7f81u; break;
    default: return;
    }
    bits |= sign;
    memcpy((char *)h + i * size, &bits, size); /* little-endian: the low bytes */
}

size_t wk_stray_nans(const void *h, size_t n, wk_dtype dtype, size_t *nans)
{
    const size_t size = wk_dtype_size(dtype);
    const int exp_bits = dtype == WK_F64 ? 11 : dtype == WK_F32 ? 8 : dtype == WK_F16 ? 5 : 8;
    const uint64_t magnitude = size == 8 ? ~0ull >> 1 : ((uint64_t)1 << (8 * size - 1)) - 1;
    const uint64_t infinity = (((uint64_t)1 << exp_bits) - 1) << (8 * size - 1 - exp_bits);
    const uint64_t want = wk_sum_nan_bits(dtype);
    size_t stray = 0;
    *nans = 0;
    for (size_t i = 0; i < n; ++i) {
        uint64_t bits = 0;
        memcpy(&bits, (const char *)h + i * size, size);
        if ((bits & magnitude) > infinity) {
            ++*nans;
            stray += bits != want;
        }
    }
    return stray;
}
