/* `warpkit bench`: warpkit's reduce beside CUB's DeviceReduce, in one
 * process, on the same inputs, timed the same way.
 *
 * Batches of warpkit and CUB calls alternate, so that a slow spell of the
 * machine falls on both. Inputs rotate through a pool of at least 2 GiB,
 * both libraries taking the next input from one walk (bench_common.cuh), so
 * that no call finds its input in L2 from an earlier call; each call reads
 * n elements once, so the bandwidth is n * sizeof(T) / time, reported
 * against the read ceiling. */
#include "bench/bench_common.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using wk::bench::rotation;
using wk::bench::row;

/* A reduction's outputs (value, and index for arg ops) and its temp
 * storage, allocated before timing. */
struct reduce_buffers : wk::bench::temp_storage {
    void *d_value = nullptr;
    int64_t *d_index = nullptr;

    template <class Query> void prepare(Query query)
    {
        WK_BENCH_CHECK(cudaMalloc(&d_value, sizeof(double)));
        WK_BENCH_CHECK(cudaMalloc(&d_index, sizeof(int64_t)));
        allocate(query); /* the size query */
    }
    void release()
    {
        release_temp();
        WK_BENCH_CHECK(cudaFree(d_value));
        WK_BENCH_CHECK(cudaFree(d_index));
    }
};

/* The value and index a reduction left, once the stream's work is done. */
template <class T> void read_result(const reduce_buffers &b, T &value, int64_t &index, cudaStream_t s)
{
    WK_BENCH_CHECK(cudaMemcpyAsync(&value, b.d_value, sizeof(T), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&index, b.d_index, sizeof index, cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaStreamSynchronize(s));
}

/* One CUB reduction. */
template <class T> struct cub_runner : reduce_buffers {
    wk_op op;
    explicit cub_runner(wk_op o) : op(o) {}

    cudaError_t run(const T *in, size_t n, cudaStream_t s)
    {
        T *value = static_cast<T *>(d_value);
        int count = (int)n; /* CUB's fastest path; the bench stays under 2^31 */
        switch (op) {
        case WK_SUM: return cub::DeviceReduce::Sum(temp, temp_bytes, in, value, count, s);
        case WK_MIN: return cub::DeviceReduce::Min(temp, temp_bytes, in, value, count, s);
        case WK_ARGMAX: return cub::DeviceReduce::ArgMax(temp, temp_bytes, in, value, d_index, (int64_t)n, s);
        default: return cudaErrorInvalidValue;
        }
    }
    void prepare(const T *in, size_t n, cudaStream_t s)
    {
        reduce_buffers::prepare([&] { return run(in, n, s); });
    }
};

#ifdef WK_HAVE_CUB_LATEST
/* The newest CUB's two-phase call, and for sums its single-pass one; the
 * row keeps the faster. */
struct cub_latest_runner : reduce_buffers {
    wk_op op;
    wk_dtype dtype;
    cub_latest_runner(wk_op o, wk_dtype d) : op(o), dtype(d) {}

    cudaError_t run(const void *in, size_t n, cudaStream_t s)
    {
        return wk_cub_latest_reduce(op, dtype, in, d_value, d_index, n, temp, &temp_bytes, s);
    }
    cudaError_t run_single_pass(const void *in, size_t n, cudaStream_t s)
    {
        return wk_cub_latest_sum_single_pass(dtype, in, d_value, n, s);
    }
    void prepare(const void *in, size_t n, cudaStream_t s)
    {
        reduce_buffers::prepare([&] { return run(in, n, s); });
    }
};
#endif

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
row bench_case(wk_context *ctx, const wk::bench::pool &p, const char *name, wk_dtype dtype, wk_op op, size_t n,
               int repeats, double read_gbs, cudaStream_t s, wk::bench::regime how)
{
    size_t bytes = n * sizeof(T);
    rotation rot(p, bytes, 1);
    wk::bench::fill<T>(rot, 0x5eedull + n, s);
    auto input = [&](long long k) { return reinterpret_cast<const T *>(rot.buffer(k, 0)); };

    void *d_out;
    WK_BENCH_CHECK(cudaMalloc(&d_out, sizeof(wk_arg_result)));
    cub_runner<T> cub(op);
    cub.prepare(input(0), n, s);

    std::vector<wk::bench::slot_call> latest_calls;
#ifdef WK_HAVE_CUB_LATEST
    /* The newest CUB's answers, each form once, against the toolkit CUB's
     * before anything is timed: a wrong answer is not timed. */
    cub_latest_runner latest(op, dtype);
    latest.prepare(input(0), n, s);
    {
        WK_BENCH_CHECK(cub.run(input(0), n, s));
        T cub_value, latest_value;
        int64_t cub_index, latest_index;
        read_result(cub, cub_value, cub_index, s);
        for (int form = 0; form < (op == WK_SUM ? 2 : 1); ++form) {
            WK_BENCH_CHECK(form ? latest.run_single_pass(input(0), n, s) : latest.run(input(0), n, s));
            read_result(latest, latest_value, latest_index, s);
            const bool same = op == WK_SUM && std::is_floating_point<T>::value
                                  ? std::fabs((double)latest_value - (double)cub_value) <=
                                        (double)n * 2.0 * std::numeric_limits<T>::epsilon()
                                  : latest_value == cub_value && (op != WK_ARGMAX || latest_index == cub_index);
            if (!same) {
                std::fprintf(stderr, "warpkit bench: %s %s n=%zu: the newest CUB's %s answer differs from CUB's\n",
                             name, wk_dtype_name(dtype), n, form ? "single-pass" : "two-phase");
                std::exit(1);
            }
        }
    }
    latest_calls.push_back([&](long long j) { return latest.run(input(j), n, s) == cudaSuccess; });
    if (op == WK_SUM)
        latest_calls.push_back([&](long long j) { return latest.run_single_pass(input(j), n, s) == cudaSuccess; });
#endif
    const wk::bench::contender_times times = wk::bench::time_contenders(
        [&](long long j) { return wk_reduce(ctx, input(j), d_out, n, dtype, op, s) == WK_SUCCESS; },
        [&](long long j) { return cub.run(input(j), n, s) == cudaSuccess; }, latest_calls, repeats, s, how);
#ifdef WK_HAVE_CUB_LATEST
    latest.release();
#endif

    /* Both on the same input once more, to compare answers. */
    WK_BENCH_CHECK(wk_reduce(ctx, input(0), d_out, n, dtype, op, s) == WK_SUCCESS ? cudaSuccess : cudaErrorUnknown);
    WK_BENCH_CHECK(cub.run(input(0), n, s));
    unsigned char wk_result[sizeof(wk_arg_result)];
    T cub_value;
    int64_t cub_index;
    WK_BENCH_CHECK(cudaMemcpyAsync(wk_result, d_out, sizeof wk_result, cudaMemcpyDeviceToHost, s));
    read_result(cub, cub_value, cub_index, s);
    const bool agree = results_agree<T>(op, wk_result, cub_value, cub_index, n);
    cub.release();
    WK_BENCH_CHECK(cudaFree(d_out));

    return wk::bench::make_row(name, dtype, n, times, (double)bytes, read_gbs, agree);
}

/* A sum kept in a wider dtype (wk_reduce_to) beside CUB's sum with an
 * output of that dtype: DeviceReduce::Reduce adding in Out from a zero of
 * Out, in the toolkit's CUB and the newest. The bytes read are the narrow
 * input's. */
template <class In, class Out>
row bench_widening_case(wk_context *ctx, const wk::bench::pool &p, wk_dtype dtype, wk_dtype out_dtype, size_t n,
                        int repeats, double read_gbs, cudaStream_t s, wk::bench::regime how)
{
    const size_t bytes = n * sizeof(In);
    rotation rot(p, bytes, 1);
    wk::bench::fill<In>(rot, 0x5eedull + n, s);
    auto input = [&](long long k) { return reinterpret_cast<const In *>(rot.buffer(k, 0)); };
    void *d_out, *d_cub, *temp = nullptr;
    WK_BENCH_CHECK(cudaMalloc(&d_out, sizeof(Out)));
    WK_BENCH_CHECK(cudaMalloc(&d_cub, sizeof(Out)));
    size_t temp_bytes = 0;
    auto cub_sum = [&](long long j) {
        return cub::DeviceReduce::Reduce(temp, temp_bytes, input(j), static_cast<Out *>(d_cub), (int)n,
                                         cuda::std::plus<Out>{}, Out(0), s);
    };
    WK_BENCH_CHECK(cub_sum(0));
    std::vector<wk::bench::slot_call> latest_calls;
#ifdef WK_HAVE_CUB_LATEST
    void *latest_temp = nullptr;
    size_t latest_bytes = 0;
    WK_BENCH_CHECK(wk_cub_latest_sum_to(dtype, out_dtype, input(0), d_cub, n, nullptr, &latest_bytes, s));
    WK_BENCH_CHECK(cudaMalloc(&latest_temp, latest_bytes ? latest_bytes : 1));
    latest_calls.push_back([&](long long j) {
        return wk_cub_latest_sum_to(dtype, out_dtype, input(j), d_cub, n, latest_temp, &latest_bytes, s) ==
               cudaSuccess;
    });
#endif
    WK_BENCH_CHECK(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
    const wk::bench::contender_times times = wk::bench::time_contenders(
        [&](long long j) { return wk_reduce_to(ctx, input(j), d_out, n, dtype, out_dtype, s) == WK_SUCCESS; },
        [&](long long j) { return cub_sum(j) == cudaSuccess; }, latest_calls, repeats, s, how);

    /* Both on input 0: integer sums exactly equal, float ones within the
     * bound reduce_sum's rows use. */
    WK_BENCH_CHECK(wk_reduce_to(ctx, input(0), d_out, n, dtype, out_dtype, s) == WK_SUCCESS ? cudaSuccess
                                                                                            : cudaErrorUnknown);
    WK_BENCH_CHECK(cub_sum(0));
    Out mine, theirs;
    WK_BENCH_CHECK(cudaMemcpyAsync(&mine, d_out, sizeof(Out), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&theirs, d_cub, sizeof(Out), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaStreamSynchronize(s));
    const bool agree = std::is_floating_point<Out>::value
                           ? std::fabs((double)mine - (double)theirs) <=
                                 (double)n * 2.0 * std::numeric_limits<Out>::epsilon()
                           : mine == theirs;
#ifdef WK_HAVE_CUB_LATEST
    WK_BENCH_CHECK(cudaFree(latest_temp));
#endif
    WK_BENCH_CHECK(cudaFree(temp));
    WK_BENCH_CHECK(cudaFree(d_out));
    WK_BENCH_CHECK(cudaFree(d_cub));
    row r = wk::bench::make_row("reduce_sum", dtype, n, times, (double)bytes, read_gbs, agree);
    r.out_dtype = wk_dtype_name(out_dtype);
    return r;
}

#ifdef WK_HAVE_CUB_LATEST
/* The reproducible sum beside CUB's (the newest CUB's gpu_to_gpu sum, in
 * both CUB columns: the toolkit's CUB has none) and beside warpkit's
 * ordinary sum of the same inputs (plain_us). */
template <class T>
row bench_repro_case(wk_context *ctx, const wk::bench::pool &p, wk_dtype dtype, size_t n, int repeats,
                     double read_gbs, cudaStream_t s, wk::bench::regime how)
{
    size_t bytes = n * sizeof(T);
    rotation rot(p, bytes, 1);
    wk::bench::fill<T>(rot, 0x5eedull + n, s);
    auto input = [&](long long k) { return reinterpret_cast<const T *>(rot.buffer(k, 0)); };
    void *d_out, *d_cub, *d_plain;
    WK_BENCH_CHECK(cudaMalloc(&d_out, sizeof(T)));
    WK_BENCH_CHECK(cudaMalloc(&d_cub, sizeof(T)));
    WK_BENCH_CHECK(cudaMalloc(&d_plain, sizeof(T)));
    const std::vector<wk::bench::slot_call> plain_call = {
        [&](long long j) { return wk_reduce(ctx, input(j), d_plain, n, dtype, WK_SUM, s) == WK_SUCCESS; }};
    const wk::bench::contender_times times = wk::bench::time_contenders(
        [&](long long j) { return wk_reduce_repro(ctx, input(j), d_out, n, dtype, s) == WK_SUCCESS; },
        [&](long long j) { return wk_cub_latest_sum_gpu_to_gpu(dtype, input(j), d_cub, n, s) == cudaSuccess; },
        plain_call, repeats, s, how);

    /* All three on input 0: the two reproducible sums must be close to each
     * other and to the plain one (the same bound as reduce_sum's check). */
    T mine, theirs, plain;
    WK_BENCH_CHECK(wk_reduce_repro(ctx, input(0), d_out, n, dtype, s) == WK_SUCCESS ? cudaSuccess : cudaErrorUnknown);
    WK_BENCH_CHECK(wk_cub_latest_sum_gpu_to_gpu(dtype, input(0), d_cub, n, s));
    WK_BENCH_CHECK(wk_reduce(ctx, input(0), d_plain, n, dtype, WK_SUM, s) == WK_SUCCESS ? cudaSuccess
                                                                                       : cudaErrorUnknown);
    WK_BENCH_CHECK(cudaMemcpyAsync(&mine, d_out, sizeof(T), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&theirs, d_cub, sizeof(T), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&plain, d_plain, sizeof(T), cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaStreamSynchronize(s));
    /* warpkit's reproducible sum must agree with its plain one; CUB's answer
     * is checked apart, and a wrong one is reported on the row (CCCL 3.6.0's
     * gpu_to_gpu f32 sum of 2^30 elements is off by orders of magnitude). */
    const double tol = (double)n * 2.0 * std::numeric_limits<T>::epsilon();
    const bool agree = std::fabs((double)mine - (double)plain) <= tol;
    const bool cub_agree = std::fabs((double)mine - (double)theirs) <= tol;
    if (!agree || !cub_agree)
        std::fprintf(stderr, "warpkit bench: reduce_sum_repro %s n=%zu: warpkit %.17g, CUB gpu_to_gpu %.17g, plain %.17g\n",
                     wk_dtype_name(dtype), n, (double)mine, (double)theirs, (double)plain);
    WK_BENCH_CHECK(cudaFree(d_out));
    WK_BENCH_CHECK(cudaFree(d_cub));
    WK_BENCH_CHECK(cudaFree(d_plain));

    wk::bench::contender_times t = times;
    t.has_latest = false; /* the third contender is warpkit's plain sum */
    row r = wk::bench::make_row("reduce_sum_repro", dtype, n, t, (double)bytes, read_gbs, agree);
    r.cub_latest_us = r.cub_us;
    r.cub_latest_host_us = r.cub_host_us;
    r.plain_us = times.latest.gpu_us;
    r.cub_agree = cub_agree ? 1 : 0;
    return r;
}
#endif

/* Every case of every size, on one session. */
int run_reduces(const wk_cli_options *opts, wk::bench::session &ses)
{
    const wk_ceilings &c = ses.ceilings;
    wk::bench::pool p;
    p.allocate(wk::bench::pool_bytes(ses.max_n, 1));
    wk_context *ctx = ses.ctx;
    cudaStream_t s = ses.stream;

    const int r = opts->repeats;
    const double read = c.read_gbs;
    int disagreements =
        wk::bench::run_cases(ses, opts, 14, "%read", [&](wk::bench::report &rep, size_t n, wk::bench::regime how) {
            rep.add(bench_case<float>(ctx, p, "reduce_sum", WK_F32, WK_SUM, n, r, read, s, how));
            rep.add(bench_case<double>(ctx, p, "reduce_sum", WK_F64, WK_SUM, n, r, read, s, how));
            rep.add(bench_case<int>(ctx, p, "reduce_sum", WK_I32, WK_SUM, n, r, read, s, how));
            rep.add(bench_case<float>(ctx, p, "reduce_min", WK_F32, WK_MIN, n, r, read, s, how));
            rep.add(bench_case<float>(ctx, p, "reduce_argmax", WK_F32, WK_ARGMAX, n, r, read, s, how));
            rep.add(bench_widening_case<uint8_t, int64_t>(ctx, p, WK_U8, WK_I64, n, r, read, s, how));
            rep.add(bench_widening_case<bool, int64_t>(ctx, p, WK_BOOL, WK_I64, n, r, read, s, how));
            rep.add(bench_widening_case<int32_t, int64_t>(ctx, p, WK_I32, WK_I64, n, r, read, s, how));
            rep.add(bench_widening_case<__nv_bfloat16, float>(ctx, p, WK_BF16, WK_F32, n, r, read, s, how));
#ifdef WK_HAVE_CUB_LATEST
            rep.add(bench_repro_case<float>(ctx, p, WK_F32, n, r, read, s, how));
            rep.add(bench_repro_case<double>(ctx, p, WK_F64, n, r, read, s, how));
#endif
        });

    p.release();
    return disagreements ? 1 : 0;
}

} // namespace

extern "C" int wk_bench_main(const wk_cli_options *opts)
{
    if (opts->primitive == WK_PRIMITIVE_SCAN)
        return wk_bench_scan_main(opts);
    if (opts->primitive == WK_PRIMITIVE_SELECT)
        return wk_bench_select_main(opts);
    if (opts->primitive == WK_PRIMITIVE_SEGMENTED || opts->primitive == WK_PRIMITIVE_SEGMENTED_REPRO)
        return wk_bench_segmented_main(opts);

    return wk::bench::run_session(opts, run_reduces);
}
