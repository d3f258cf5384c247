/* `warpkit bench`: warpkit's reduce beside CUB's DeviceReduce, in one
 * process, on the same inputs, timed the same way.
 *
 * Batches of warpkit and CUB calls alternate, so that a slow spell of the
 * machine falls on both. Inputs rotate through a pool of at least 2 GiB so
 * that no call finds its input in L2 from an earlier call; each call reads
 * n elements once, so the bandwidth is n * sizeof(T) / time, reported
 * against the read ceiling. */
#include "bench.h"
#include "timing.cuh"
#include "warpkit.h"

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t min_pool_bytes = (size_t)2 << 30;
constexpr size_t default_min_n = (size_t)1 << 10;
constexpr size_t default_max_n = (size_t)1 << 30;

struct row {
    std::string op, dtype;
    size_t n;
    double warpkit_us, cub_us, speedup, gbs, pct_of_ceiling;
    double warpkit_host_us, cub_host_us; /* enqueue time per call */
    bool agree;
};

/* Values a user might reduce: floats in [-1, 1), integers in [-1000, 1000]. */
__device__ inline uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
template <class T> __device__ inline T draw(uint64_t r)
{
    if constexpr (std::is_floating_point<T>::value)
        return (T)((double)(r >> 11) * 0x1p-52 - 1.0);
    else
        return (T)((long long)(r % 2001) - 1000);
}
template <class T> __global__ void fill_values(T *p, size_t n, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = draw<T>(mix(seed ^ (i * 0x2545f4914f6cdd1dull)));
}

/* The pool and how one case's inputs are laid out in it. */
struct pool {
    char *base = nullptr;
    size_t bytes = 0;
};
struct slots {
    size_t slot_bytes, count;
};
slots plan_slots(size_t input_bytes)
{
    size_t slot = (input_bytes + 255) / 256 * 256;
    size_t used = std::max(min_pool_bytes, slot);
    return slots{slot, used / slot};
}

/* One CUB reduction, its temp storage sized and allocated before timing. */
template <class T> struct cub_runner {
    wk_op op;
    void *temp = nullptr;
    size_t temp_bytes = 0;
    T *d_value;
    int64_t *d_index;

    cudaError_t run(const T *in, size_t n, cudaStream_t s)
    {
        int count = (int)n; /* CUB's fastest path; the bench stays under 2^31 */
        switch (op) {
        case WK_SUM: return cub::DeviceReduce::Sum(temp, temp_bytes, in, d_value, count, s);
        case WK_MIN: return cub::DeviceReduce::Min(temp, temp_bytes, in, d_value, count, s);
        case WK_ARGMAX: return cub::DeviceReduce::ArgMax(temp, temp_bytes, in, d_value, d_index, (int64_t)n, s);
        default: return cudaErrorInvalidValue;
        }
    }
    void prepare(const T *in, size_t n, cudaStream_t s)
    {
        WK_BENCH_CHECK(cudaMalloc(&d_value, sizeof(T)));
        WK_BENCH_CHECK(cudaMalloc(&d_index, sizeof(int64_t)));
        temp = nullptr;
        WK_BENCH_CHECK(run(in, n, s)); /* size query */
        WK_BENCH_CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    }
    void release()
    {
        cudaFree(temp);
        cudaFree(d_value);
        cudaFree(d_index);
    }
};

/* warpkit's and CUB's answers on the same input agree: exactly for
 * integers, min and argmax; for float sums within 2 n eps, a loose bound on
 * what two summation orders can differ by for these inputs (|x| < 1, so
 * every partial sum is below n; this is a sanity check, not the test). */
template <class T> bool results_agree(wk_op op, const void *wk_result, const T &cub_value, int64_t cub_index, size_t n)
{
    if (op == WK_ARGMAX) {
        wk_arg_result r;
        std::memcpy(&r, wk_result, sizeof r);
        T v;
        std::memcpy(&v, &r.value, sizeof v);
        return v == cub_value && r.index == cub_index;
    }
    T v;
    std::memcpy(&v, wk_result, sizeof v);
    if (std::is_floating_point<T>::value && op == WK_SUM)
        return std::fabs((double)v - (double)cub_value) <= (double)n * 2.0 * std::numeric_limits<T>::epsilon();
    return v == cub_value;
}

template <class T>
row bench_case(wk_context *ctx, pool &p, const char *name, wk_dtype dtype, wk_op op, size_t n, int repeats,
               double read_gbs, cudaStream_t s)
{
    size_t bytes = n * sizeof(T);
    slots sl = plan_slots(bytes);
    fill_values<T><<<1024, 256, 0, s>>>(reinterpret_cast<T *>(p.base), sl.slot_bytes * sl.count / sizeof(T),
                                         0x5eedull + n);
    WK_BENCH_CHECK(cudaGetLastError());
    auto input = [&](long long k) { return reinterpret_cast<const T *>(p.base + (size_t)(k % sl.count) * sl.slot_bytes); };

    void *d_out;
    WK_BENCH_CHECK(cudaMalloc(&d_out, sizeof(wk_arg_result)));
    cub_runner<T> cub{op};
    cub.prepare(input(0), n, s);

    auto times = wk::bench::time_interleaved(
        [&](long long k) { return wk_reduce(ctx, input(k), d_out, n, dtype, op, s) == WK_SUCCESS; },
        /* CUB walks the pool half a pool behind warpkit, so that neither
         * reads what the other's last batch left in L2. */
        [&](long long k) { return cub.run(input(k + (long long)sl.count / 2), n, s) == cudaSuccess; }, repeats, s);
    const wk::bench::call_time &wk_t = times.first, &cub_t = times.second;

    /* Both on the same input once more, to compare answers. */
    WK_BENCH_CHECK(wk_reduce(ctx, input(0), d_out, n, dtype, op, s) == WK_SUCCESS ? cudaSuccess : cudaErrorUnknown);
    WK_BENCH_CHECK(cub.run(input(0), n, s));
    unsigned char wk_result[sizeof(wk_arg_result)];
    T cub_value;
    int64_t cub_index;
    WK_BENCH_CHECK(cudaMemcpyAsync(wk_result, d_out, sizeof wk_result, cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&cub_value, cub.d_value, sizeof(T), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&cub_index, cub.d_index, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaStreamSynchronize(s));
    cub.release();
    WK_BENCH_CHECK(cudaFree(d_out));

    row r;
    r.op = name;
    r.dtype = wk_dtype_name(dtype);
    r.n = n;
    r.warpkit_us = wk_t.gpu_us;
    r.cub_us = cub_t.gpu_us;
    r.warpkit_host_us = wk_t.host_us;
    r.cub_host_us = cub_t.host_us;
    r.speedup = r.cub_us / r.warpkit_us;
    r.gbs = bytes / (r.warpkit_us * 1e3);
    r.pct_of_ceiling = 100.0 * r.gbs / read_gbs;
    r.agree = results_agree<T>(op, wk_result, cub_value, cub_index, n);
    return r;
}

void write_json(const char *path, const wk_ceilings &c, const std::vector<row> &rows)
{
    FILE *f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "warpkit bench: cannot write %s\n", path);
        std::exit(2);
    }
    cudaDeviceProp prop;
    int device;
    WK_BENCH_CHECK(cudaGetDevice(&device));
    WK_BENCH_CHECK(cudaGetDeviceProperties(&prop, device));
    std::fprintf(f, "{\n  \"device\": \"%s\",\n", prop.name);
    std::fprintf(f, "  \"ceilings\": {\"read_gbs\": %.1f, \"copy_gbs\": %.1f},\n", c.read_gbs, c.copy_gbs);
    std::fprintf(f, "  \"bench\": [\n");
    for (size_t i = 0; i < rows.size(); ++i) {
        const row &r = rows[i];
        std::fprintf(f,
                     "    {\"op\": \"%s\", \"dtype\": \"%s\", \"n\": %zu, \"warpkit_us\": %.3f, \"cub_us\": %.3f, "
                     "\"speedup\": %.3f, \"gbs\": %.1f, \"pct_of_ceiling\": %.1f, \"agree\": %s, "
                     "\"warpkit_host_us\": %.3f, \"cub_host_us\": %.3f}%s\n",
                     r.op.c_str(), r.dtype.c_str(), r.n, r.warpkit_us, r.cub_us, r.speedup, r.gbs, r.pct_of_ceiling,
                     r.agree ? "true" : "false", r.warpkit_host_us, r.cub_host_us, i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
}

} // namespace

extern "C" int wk_bench_main(const wk_cli_options *opts)
{
    wk_context *ctx;
    wk_status st = wk_create(&ctx, opts->device);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "warpkit bench: %s\n", wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    WK_BENCH_CHECK(cudaSetDevice(wk_context_device(ctx)));
    size_t min_n = opts->min_n ? opts->min_n : default_min_n;
    size_t max_n = opts->max_n ? opts->max_n : (opts->quick ? (size_t)1 << 24 : default_max_n);
    if (max_n > default_max_n) {
        std::fprintf(stderr, "warpkit bench: sizes are limited to 2^30 (CUB is run with int counts)\n");
        return 2;
    }

    std::fprintf(stderr, "measuring the bandwidth ceilings...\n");
    wk_ceilings c;
    wk_measure_ceilings(&c);
    std::fprintf(stderr, "read ceiling %.1f GB/s, copy ceiling %.1f GB/s\n", c.read_gbs, c.copy_gbs);

    pool p;
    p.bytes = std::max(min_pool_bytes, max_n * sizeof(double));
    WK_BENCH_CHECK(cudaMalloc(&p.base, p.bytes));
    cudaStream_t s;
    WK_BENCH_CHECK(cudaStreamCreate(&s));

    std::vector<row> rows;
    auto add = [&](const row &r) {
        std::fprintf(stderr,
                     "  %-14s %-4s n=%-11zu warpkit %9.2f us (host %5.2f)  cub %9.2f us (host %5.2f)  x%.2f  %s\n",
                     r.op.c_str(), r.dtype.c_str(), r.n, r.warpkit_us, r.warpkit_host_us, r.cub_us, r.cub_host_us,
                     r.speedup, r.agree ? "" : "RESULTS DIFFER");
        rows.push_back(r);
    };
    for (size_t n = min_n; n <= max_n; n *= 4) {
        add(bench_case<float>(ctx, p, "reduce_sum", WK_F32, WK_SUM, n, opts->repeats, c.read_gbs, s));
        add(bench_case<double>(ctx, p, "reduce_sum", WK_F64, WK_SUM, n, opts->repeats, c.read_gbs, s));
        add(bench_case<int>(ctx, p, "reduce_sum", WK_I32, WK_SUM, n, opts->repeats, c.read_gbs, s));
        add(bench_case<float>(ctx, p, "reduce_min", WK_F32, WK_MIN, n, opts->repeats, c.read_gbs, s));
        add(bench_case<float>(ctx, p, "reduce_argmax", WK_F32, WK_ARGMAX, n, opts->repeats, c.read_gbs, s));
    }

    std::printf("%-14s %-5s %12s %11s %11s %8s %9s %7s %s\n", "op", "dtype", "n", "warpkit_us", "cub_us", "speedup",
                "GB/s", "%read", "check");
    int disagreements = 0;
    for (const row &r : rows) {
        std::printf("%-14s %-5s %12zu %11.2f %11.2f %8.2f %9.1f %7.1f %s\n", r.op.c_str(), r.dtype.c_str(), r.n,
                    r.warpkit_us, r.cub_us, r.speedup, r.gbs, r.pct_of_ceiling, r.agree ? "ok" : "DIFFER");
        disagreements += !r.agree;
    }
    std::printf("ceilings: read %.1f GB/s, copy %.1f GB/s\n", c.read_gbs, c.copy_gbs);
    if (opts->json_path)
        write_json(opts->json_path, c, rows);

    WK_BENCH_CHECK(cudaFree(p.base));
    WK_BENCH_CHECK(cudaStreamDestroy(s));
    wk_destroy(ctx);
    return disagreements ? 1 : 0;
}
