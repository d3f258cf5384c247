/* The _from calls: an input cut into random parts (empty, one element,
 * odd, misaligned), each part's scan, unique or where continued on the
 * device from the parts before it, gives one call's bits over the whole
 * input. Small-integer inputs make float sums exact in any order, so every
 * comparison is bit for bit. Prints its seed; WK_SEED repeats a run. */
#include "gpu/api_test_util.h"
#include "gpu/small_values.h"
#include "test_util.h"
#include "warpkit.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static wk_tally tally;
static wk_context *ctx;
static cudaStream_t stream;

#define MAX_PARTS 9

/* Part boundaries: starts[0] = 0 < ... , starts[parts] = n. */
static int cut(size_t n, uint64_t seed, size_t *starts)
{
    const int parts = 1 + (int)(wk_splitmix64_at(seed, 1000) % (MAX_PARTS - 1));
    starts[0] = 0;
    for (int p = 1; p < parts; ++p) {
        uint64_t r = wk_splitmix64_at(seed, 1000 + (uint64_t)p);
        /* Some parts empty or of one element, most anywhere. */
        size_t at = r % 4 == 0 ? starts[p - 1] : r % 4 == 1 ? starts[p - 1] + 1 : (size_t)(r >> 8) % (n + 1);
        starts[p] = at < starts[p - 1] ? starts[p - 1] : at > n ? n : at;
    }
    starts[parts] = n;
    return parts;
}

static wk_value init_for(wk_dtype t, wk_op op)
{
    wk_value v;
    v.u64 = 0;
    if (op != WK_SUM) /* a value inside the data's range, so that it matters */
        small_put(&v, 0, t, 1);
    return v;
}

static void check_scans(wk_dtype t, wk_op op, size_t n, uint64_t seed)
{
    const size_t e = wk_dtype_size(t);
    const size_t bytes = n * e + 8;
    unsigned char *h_in = malloc(bytes), *h_want = malloc(bytes), *h_got = malloc(bytes);
    small_walk(h_in, n, t, seed);
    void *d_in, *d_whole, *d_out;
    CHECK_CUDA(cudaMalloc(&d_in, bytes));
    CHECK_CUDA(cudaMalloc(&d_whole, bytes));
    CHECK_CUDA(cudaMalloc(&d_out, bytes));
    CHECK_CUDA(cudaMemcpy(d_in, h_in, n * e, cudaMemcpyHostToDevice));
    size_t starts[MAX_PARTS + 1];
    const int parts = cut(n, seed, starts);
    for (int exclusive = 0; exclusive <= 1; ++exclusive) {
        const wk_value init = init_for(t, op);
        /* The whole input's inclusive scan: the prefixes of the parts. */
        wk_status st = wk_inclusive_scan(ctx, d_in, d_whole, n, t, op, stream);
        CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, bytes, stream));
        for (int p = 0; p < parts && st == WK_SUCCESS; ++p) {
            const size_t first = starts[p], len = starts[p + 1] - first;
            const void *prefix = first == 0 ? NULL : (const char *)d_whole + (first - 1) * e;
            if (!exclusive && first > 0) /* the previous part's own last output */
                prefix = (const char *)d_out + (first - 1) * e;
            const void *in = (const char *)d_in + first * e;
            void *out = (char *)d_out + first * e;
            st = exclusive ? wk_exclusive_scan_from(ctx, in, out, len, t, op, init, prefix, stream)
                           : wk_inclusive_scan_from(ctx, in, out, len, t, op, prefix, stream);
        }
        if (st == WK_SUCCESS)
            st = exclusive ? wk_exclusive_scan(ctx, d_in, d_whole, n, t, op, init, stream)
                           : wk_inclusive_scan(ctx, d_in, d_whole, n, t, op, stream);
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(h_got, d_out, n * e, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(h_want, d_whole, n * e, cudaMemcpyDeviceToHost));
        const size_t at = st == WK_SUCCESS ? small_first_difference(h_got, h_want, n, t) : 0;
        wk_checkf(&tally, st == WK_SUCCESS && at == n, "%s_scan_from %s %s n=%zu in %d parts: %s%s (first difference at %zu)",
                  exclusive ? "exclusive" : "inclusive", wk_dtype_name(t), wk_op_name(op), n, parts,
                  st == WK_SUCCESS ? "same bits as one call" : "failed: ", st == WK_SUCCESS ? "" : wk_last_error_message(),
                  at);
    }
    cudaFree(d_in);
    cudaFree(d_whole);
    cudaFree(d_out);
    free(h_in);
    free(h_want);
    free(h_got);
}

/* unique_from or where_from part by part, the kept outputs of the parts
 * put end to end, against one call. */
static void check_selects(wk_dtype t, size_t n, uint64_t seed)
{
    const size_t e = wk_dtype_size(t);
    const size_t bytes = n * 8 + 8;
    unsigned char *h_in = malloc(bytes), *h_want = malloc(bytes), *h_got = malloc(bytes), *h_part = malloc(bytes);
    for (size_t i = 0; i < n; ++i) /* runs of equal values */
        small_put(h_in, i, t, (int)(wk_splitmix64_at(seed, i / 3) % 3) - 1);
    void *d_in, *d_out, *d_whole;
    uint64_t *d_counts, h_counts[MAX_PARTS + 1];
    int64_t *d_bases, h_bases[MAX_PARTS];
    CHECK_CUDA(cudaMalloc(&d_in, bytes));
    CHECK_CUDA(cudaMalloc(&d_out, bytes));
    CHECK_CUDA(cudaMalloc(&d_whole, bytes));
    CHECK_CUDA(cudaMalloc((void **)&d_counts, sizeof h_counts));
    CHECK_CUDA(cudaMalloc((void **)&d_bases, sizeof h_bases));
    CHECK_CUDA(cudaMemcpy(d_in, h_in, n * e, cudaMemcpyHostToDevice));
    size_t starts[MAX_PARTS + 1];
    const int parts = cut(n, seed ^ 0x55, starts);
    for (int p = 0; p < parts; ++p)
        h_bases[p] = (int64_t)starts[p];
    CHECK_CUDA(cudaMemcpy(d_bases, h_bases, sizeof h_bases, cudaMemcpyHostToDevice));
    wk_predicate keep = {WK_GREATER, {0}, {0}};
    small_put(&keep.a, 0, t, 0);
    for (int where = 0; where <= 1; ++where) {
        const size_t oe = where ? 8 : e;
        CHECK_CUDA(cudaMemset(d_out, 0xA5, bytes));
        wk_status st = WK_SUCCESS;
        for (int p = 0; p < parts && st == WK_SUCCESS; ++p) {
            const size_t first = starts[p], len = starts[p + 1] - first;
            const void *in = (const char *)d_in + first * e;
            void *out = (char *)d_out + first * oe;
            st = where ? wk_where_from(ctx, in, (int64_t *)out, d_counts + p, len, t, keep, d_bases + p, stream)
                       : wk_unique_from(ctx, in, out, d_counts + p, len, t,
                                        first == 0 ? NULL : (const char *)d_in + (first - 1) * e, stream);
        }
        if (st == WK_SUCCESS)
            st = where ? wk_where(ctx, d_in, (int64_t *)d_whole, d_counts + MAX_PARTS, n, t, keep, stream)
                       : wk_unique(ctx, d_in, d_whole, d_counts + MAX_PARTS, n, t, stream);
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(h_part, d_out, n * oe, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(h_want, d_whole, n * oe, cudaMemcpyDeviceToHost));
        size_t got = 0;
        for (int p = 0; p < parts && st == WK_SUCCESS; ++p) {
            memcpy(h_got + got * oe, h_part + starts[p] * oe, h_counts[p] * oe);
            got += h_counts[p];
        }
        const int same = st == WK_SUCCESS && got == h_counts[MAX_PARTS] && memcmp(h_got, h_want, got * oe) == 0;
        wk_checkf(&tally, same, "%s %s n=%zu in %d parts: %zu kept, one call %llu%s%s", where ? "where_from" : "unique_from",
                  wk_dtype_name(t), n, parts, got, (unsigned long long)h_counts[MAX_PARTS],
                  st == WK_SUCCESS ? "" : ": ", st == WK_SUCCESS ? "" : wk_last_error_message());
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_whole);
    cudaFree(d_counts);
    cudaFree(d_bases);
    free(h_in);
    free(h_want);
    free(h_got);
    free(h_part);
}

/* A carried value inside an output is refused before anything is written. */
static void check_refusals(void)
{
    const size_t n = 1000;
    float *d_buf;
    uint64_t *d_count;
    unsigned char h[4 * 1000];
    CHECK_CUDA(cudaMalloc((void **)&d_buf, 2 * n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_count, 8));
    CHECK_CUDA(cudaMemset(d_buf, 0x5A, 2 * n * sizeof(float)));
    wk_status a = wk_inclusive_scan_from(ctx, d_buf + n, d_buf, n, WK_F32, WK_SUM, d_buf + 10, stream);
    wk_status b = wk_exclusive_scan_from(ctx, d_buf + n, d_buf, n, WK_F32, WK_SUM, (wk_value){0}, d_buf + 1, stream);
    wk_status c = wk_unique_from(ctx, d_buf + n, d_buf, d_count, n, WK_F32, d_buf + 5, stream);
    wk_status d = wk_where_from(ctx, d_buf + n, (int64_t *)d_buf, d_count, n / 2, WK_F32,
                                (wk_predicate){WK_LESS, {0}, {0}}, (const int64_t *)d_buf, stream);
    wk_status e = wk_inclusive_scan_from(ctx, d_buf + n, d_buf, n, WK_F32, WK_SUM, (const char *)d_buf + 1, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h, d_buf, sizeof h, cudaMemcpyDeviceToHost));
    int untouched = 1;
    for (size_t i = 0; i < sizeof h; ++i)
        untouched &= h[i] == 0x5A;
    wk_checkf(&tally,
              a == WK_ERROR_INVALID_ARGUMENT && b == WK_ERROR_INVALID_ARGUMENT && c == WK_ERROR_INVALID_ARGUMENT &&
                  d == WK_ERROR_INVALID_ARGUMENT && e == WK_ERROR_INVALID_POINTER && untouched,
              "carried values in an output, or misaligned, are refused and nothing is written (%d %d %d %d %d)", a, b,
              c, d, e);
    cudaFree(d_buf);
    cudaFree(d_count);
}

int main(void)
{
    const char *env = getenv("WK_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    printf("seed %llu (WK_SEED=%llu repeats this run)\n", (unsigned long long)seed, (unsigned long long)seed);
    int rc = wk_test_setup(wk_create(&ctx, 0), "wk_create");
    if (rc >= 0)
        return rc;
    CHECK_CUDA(cudaStreamCreate(&stream));
    /* The last size takes the pipelined scan and select (32 MiB of f32). */
    const size_t sizes[] = {0, 1, 2, 33, 1000, 4099, 65537, 1000003, ((size_t)1 << 23) + 5};
    const wk_dtype dtypes[] = {WK_I32, WK_U32, WK_I64, WK_U64, WK_F32, WK_F64, WK_F16, WK_BF16};
    const int quick = wk_test_quick();
    uint64_t k = 0;
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; ++d) {
        const wk_dtype t = dtypes[d];
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
            if (quick && sizes[s] > 70000)
                continue;
            const wk_op ops[] = {WK_SUM, WK_MIN, WK_MAX, WK_XOR};
            for (int o = 0; o < (t >= WK_F32 ? 3 : 4); ++o)
                check_scans(t, ops[o], sizes[s], wk_splitmix64_at(seed, k++));
            check_selects(t, sizes[s], wk_splitmix64_at(seed, k++));
        }
    }
    check_refusals();
    cudaStreamDestroy(stream);
    wk_destroy(ctx);
    return wk_tally_finish(&tally);
}
