/* warpkit-dist bench: the distributed reduce, scan and select against the
 * same call on one GPU, at the same size per GPU. Starts one process per
 * visible GPU (or per --gpus); rank 0 prints a table and writes the rows.
 *
 * Timing: every rank warms up, then times batches of calls with CUDA events;
 * before each batch the ranks meet in a one-float all-reduce, so a batch
 * starts on every GPU together, and a batch counts for the slowest rank.
 * The reported time per call is the median over batches. The one-GPU time
 * is taken the same way, every GPU running its own call at once.
 *
 * Rows: op (dist_reduce_sum: the reproducible float sum, against
 * wk_reduce_repro; dist_scan_inclusive_sum against wk_inclusive_scan;
 * dist_select_if, half the elements kept, against wk_select_if), dtype,
 * n_per_gpu, gpus, us, single_gpu_us, efficiency (single_gpu_us / us: the
 * weak-scaling efficiency) and gbs_total (the one-GPU call's bytes, read
 * and written, on every GPU, over the time). */
#include "warpkit.h"
#include "warpkit_nccl.h"

#include <cuda_runtime.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_GPUS 16
#define BATCHES 7

/* Exits with status 1, saying where and which call failed and why, unless
 * `call` (of type `type`) returns `ok`; `why(result)` describes the failure. */
#define CHECK_RESULT(type, ok, why, call, text)                                                               \
    do {                                                                                                      \
        type r_ = (call);                                                                                     \
        if (r_ != (ok)) {                                                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, text, why(r_));                             \
            exit(1);                                                                                          \
        }                                                                                                     \
    } while (0)

/* warpkit's message for a failed call: the context's and the distributed
 * layer's last errors. */
static const char *wk_failure(wk_status status)
{
    static char text[1024];
    (void)status;
    snprintf(text, sizeof text, "%s %s", wk_last_error_message(), wk_dist_last_error_message());
    return text;
}

#define CHECK_CUDA(call) CHECK_RESULT(cudaError_t, cudaSuccess, cudaGetErrorString, call, #call)
#define CHECK_WK(call) CHECK_RESULT(wk_status, WK_SUCCESS, wk_failure, call, #call)
#define CHECK_NCCL(call) CHECK_RESULT(ncclResult_t, ncclSuccess, ncclGetErrorString, call, #call)

typedef enum bench_op { OP_REDUCE, OP_SCAN, OP_SELECT, OP_COUNT } bench_op;
static const char *const op_names[OP_COUNT] = {"dist_reduce_sum", "dist_scan_inclusive_sum", "dist_select_if"};

typedef struct rank_env {
    int rank, ranks;
    wk_context *ctx;
    wk_dist *dist;
    ncclComm_t comm;
    cudaStream_t stream;
    float *d_barrier;
} rank_env;

/* The ranks meet: a one-float all-reduce, then this rank's stream drains. */
static void barrier(const rank_env *e)
{
    CHECK_NCCL(ncclAllReduce(e->d_barrier, e->d_barrier, 1, ncclFloat, ncclSum, e->comm, e->stream));
    CHECK_CUDA(cudaStreamSynchronize(e->stream));
}

/* The largest value over the ranks of each of `count` floats. */
static void max_over_ranks(const rank_env *e, float *values, int count)
{
    float *d;
    CHECK_CUDA(cudaMalloc((void **)&d, (size_t)count * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d, values, (size_t)count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_NCCL(ncclAllReduce(d, d, (size_t)count, ncclFloat, ncclMax, e->comm, e->stream));
    CHECK_CUDA(cudaStreamSynchronize(e->stream));
    CHECK_CUDA(cudaMemcpy(values, d, (size_t)count * sizeof(float), cudaMemcpyDeviceToHost));
    cudaFree(d);
}

typedef struct buffers {
    float *in, *out;
    uint64_t *count;
    wk_dist_count *place;
    size_t n;
} buffers;

static void call(const rank_env *e, const buffers *b, bench_op op, int dist)
{
    const wk_predicate half = {WK_LESS, {.f32 = 0.5f}, {0}};
    switch (op) {
    case OP_REDUCE:
        CHECK_WK(dist ? wk_dist_reduce(e->dist, b->in, b->out, b->n, WK_F32, WK_SUM, e->stream)
                      : wk_reduce_repro(e->ctx, b->in, b->out, b->n, WK_F32, e->stream));
        break;
    case OP_SCAN:
        CHECK_WK(dist ? wk_dist_inclusive_scan(e->dist, b->in, b->out, b->n, WK_F32, WK_SUM, e->stream)
                      : wk_inclusive_scan(e->ctx, b->in, b->out, b->n, WK_F32, WK_SUM, e->stream));
        break;
    default:
        CHECK_WK(dist ? wk_dist_select_if(e->dist, b->in, b->out, b->place, b->n, WK_F32, half, e->stream)
                      : wk_select_if(e->ctx, b->in, b->out, b->count, b->n, WK_F32, half, e->stream));
        break;
    }
}

static int compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Microseconds per call: the median over batches of the slowest rank. */
static float time_calls(const rank_env *e, const buffers *b, bench_op op, int dist)
{
    const int per_batch = b->n <= ((size_t)1 << 26) ? 20 : 4;
    for (int k = 0; k < 3; ++k)
        call(e, b, op, dist);
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    float us[BATCHES];
    for (int batch = 0; batch < BATCHES; ++batch) {
        barrier(e);
        CHECK_CUDA(cudaEventRecord(start, e->stream));
        for (int k = 0; k < per_batch; ++k)
            call(e, b, op, dist);
        CHECK_CUDA(cudaEventRecord(stop, e->stream));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        us[batch] = ms * 1000.0f / (float)per_batch;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    max_over_ranks(e, us, BATCHES);
    qsort(us, BATCHES, sizeof *us, compare_floats);
    return us[BATCHES / 2];
}

/* Inputs uniform in [0, 1), from the element's index and the rank. */
static void fill(float *d, size_t n, int rank)
{
    const size_t chunk = (size_t)1 << 24;
    float *h = malloc(chunk * sizeof(float));
    for (size_t first = 0; first < n; first += chunk) {
        const size_t len = n - first < chunk ? n - first : chunk;
        for (size_t i = 0; i < len; ++i) {
            uint64_t z = (first + i + 1) * 0x9e3779b97f4a7c15ull + (uint64_t)rank * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 31)) * 0x94d049bb133111ebull;
            h[i] = (float)((z ^ (z >> 29)) >> 40) * 0x1p-24f;
        }
        CHECK_CUDA(cudaMemcpy(d + first, h, len * sizeof(float), cudaMemcpyHostToDevice));
    }
    free(h);
}

static int rank_main(int rank, int ranks, const char *hex, size_t min_n, size_t max_n, const char *json_path)
{
    ncclUniqueId id;
    for (size_t i = 0; i < sizeof id.internal; ++i) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        id.internal[i] = (char)v;
    }
    rank_env e = {rank, ranks, NULL, NULL, NULL, NULL, NULL};
    CHECK_CUDA(cudaSetDevice(rank));
    CHECK_NCCL(ncclCommInitRank(&e.comm, ranks, id, rank));
    CHECK_WK(wk_create(&e.ctx, rank));
    CHECK_WK(wk_dist_create(&e.dist, e.ctx, e.comm));
    CHECK_CUDA(cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMalloc((void **)&e.d_barrier, sizeof(float)));
    CHECK_CUDA(cudaMemset(e.d_barrier, 0, sizeof(float)));
    CHECK_WK(wk_scan_reserve(e.ctx, max_n, WK_F32));

    buffers b;
    CHECK_CUDA(cudaMalloc((void **)&b.in, max_n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&b.out, max_n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&b.count, sizeof(uint64_t)));
    CHECK_CUDA(cudaMalloc((void **)&b.place, sizeof(wk_dist_count)));
    fill(b.in, max_n, rank);

    FILE *json = NULL;
    if (rank == 0) {
        struct cudaDeviceProp prop;
        CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
        int nccl_version = 0;
        ncclGetVersion(&nccl_version);
        printf("%d x %s, NCCL %d, %s\n", ranks, prop.name, nccl_version, wk_version());
        printf("%-26s %12s %12s %12s %10s %10s\n", "op", "n per GPU", "us", "one GPU us", "efficiency", "GB/s all");
        if (json_path && !(json = fopen(json_path, "w"))) {
            fprintf(stderr, "cannot write %s\n", json_path);
            return 1;
        }
        if (json)
            fprintf(json, "{\"device\": \"%s\", \"gpus\": %d, \"nccl_version\": %d, \"bench\": [\n", prop.name, ranks,
                    nccl_version);
    }
    int rows = 0;
    for (int op = 0; op < OP_COUNT; ++op) {
        for (size_t n = min_n; n <= max_n; n *= 4) {
            b.n = n;
            const float dist_us = time_calls(&e, &b, (bench_op)op, 1);
            const float single_us = time_calls(&e, &b, (bench_op)op, 0);
            /* Bytes of the one-GPU call: the input read; the scan writes as
             * much, the select the half it keeps. */
            const double bytes = (double)n * 4 * (op == OP_REDUCE ? 1.0 : op == OP_SCAN ? 2.0 : 1.5);
            const double gbs_total = bytes * ranks / (dist_us * 1e3);
            if (rank == 0) {
                printf("%-26s %12zu %12.2f %12.2f %10.3f %10.1f\n", op_names[op], n, dist_us, single_us,
                       single_us / dist_us, gbs_total);
                if (json)
                    fprintf(json,
                            "%s  {\"op\": \"%s\", \"dtype\": \"f32\", \"n_per_gpu\": %zu, \"gpus\": %d, \"us\": %.2f, "
                            "\"single_gpu_us\": %.2f, \"efficiency\": %.4f, \"gbs_total\": %.1f}",
                            rows++ ? ",\n" : "", op_names[op], n, ranks, dist_us, single_us, single_us / dist_us,
                            gbs_total);
            }
        }
    }
    if (json) {
        fprintf(json, "\n]}\n");
        fclose(json);
    }
    cudaFree(b.in);
    cudaFree(b.out);
    cudaFree(b.count);
    cudaFree(b.place);
    cudaFree(e.d_barrier);
    wk_dist_destroy(e.dist);
    ncclCommDestroy(e.comm);
    wk_destroy(e.ctx);
    return 0;
}

static size_t parse_size(const char *s)
{
    if (s[0] == '2' && s[1] == '^')
        return (size_t)1 << atoi(s + 2);
    return (size_t)strtoull(s, NULL, 0);
}

static int usage(void)
{
    fprintf(stderr, "usage: warpkit-dist bench [--gpus N] [--min-n N] [--max-n N] [--json FILE]\n"
                    "  the distributed reduce, scan and select against one GPU (f32; n per GPU from 2^24 to 2^30\n"
                    "  in steps of 4; sizes take 2^k); one process per GPU\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 8 && strcmp(argv[1], "--rank") == 0)
        return rank_main(atoi(argv[2]), atoi(argv[3]), argv[4], parse_size(argv[5]), parse_size(argv[6]),
                         strcmp(argv[7], "-") == 0 ? NULL : argv[7]);
    if (argc < 2 || strcmp(argv[1], "bench") != 0)
        return usage();
    int gpus = 0;
    size_t min_n = (size_t)1 << 24, max_n = (size_t)1 << 30;
    const char *json = "-";
    for (int i = 2; i < argc; ++i) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--gpus") == 0)
            gpus = atoi(argv[++i]);
        else if (strcmp(argv[i], "--min-n") == 0)
            min_n = parse_size(argv[++i]);
        else if (strcmp(argv[i], "--max-n") == 0)
            max_n = parse_size(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0)
            json = argv[++i];
        else
            return usage();
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        fprintf(stderr, "warpkit-dist: no CUDA device\n");
        return 1;
    }
    if (gpus <= 0 || gpus > devices)
        gpus = devices;
    if (gpus > MAX_GPUS)
        gpus = MAX_GPUS;
    if (min_n == 0 || max_n < min_n)
        return usage();
    ncclUniqueId id;
    CHECK_NCCL(ncclGetUniqueId(&id));
    char hex[2 * sizeof id.internal + 1], rank_text[16], ranks_text[16], min_text[32], max_text[32];
    for (size_t i = 0; i < sizeof id.internal; ++i)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)id.internal[i]);
    snprintf(ranks_text, sizeof ranks_text, "%d", gpus);
    snprintf(min_text, sizeof min_text, "%zu", min_n);
    snprintf(max_text, sizeof max_text, "%zu", max_n);
    pid_t pids[MAX_GPUS];
    for (int r = 0; r < gpus; ++r) {
        snprintf(rank_text, sizeof rank_text, "%d", r);
        char *args[] = {"/proc/self/exe", "--rank", rank_text, ranks_text, hex, min_text, max_text, (char *)json, NULL};
        if (posix_spawn(&pids[r], "/proc/self/exe", NULL, NULL, args, environ) != 0) {
            fprintf(stderr, "warpkit-dist: cannot start rank %d\n", r);
            return 1;
        }
    }
    int failed = 0;
    for (int r = 0; r < gpus; ++r) {
        int status = 0;
        waitpid(pids[r], &status, 0);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    return failed;
}
