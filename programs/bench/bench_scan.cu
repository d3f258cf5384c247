/* `warpkit bench --op scan`: warpkit's scans beside CUB's DeviceScan, in one
 * process, on the same inputs, timed the same way as the reduce bench.
 *
 * Three scans per dtype (f32, f64, i32, i64) and size: inclusive sum,
 * exclusive sum with init 0, inclusive max; CUB runs InclusiveSum,
 * ExclusiveSum and InclusiveScan with cuda::maximum. A scan reads n
 * elements and writes n, so the bandwidth is 2 n sizeof(T) / time, reported
 * against the copy ceiling. Each call's input and output come from a pool
 * of at least 2 GiB of (input, output) pairs, which both libraries walk in
 * turn, so that no call finds its input or output in L2.
 *
 * Before a case is timed, both libraries scan the same input once and the
 * outputs are compared on the GPU, every output bit for bit; a case that
 * disagrees stops the run (exit status 1): a benchmark must not time a wrong
 * answer. For that run, float inputs are small integers, so that every sum
 * either library forms is exact and both must give the same bits: a
 * tolerance wide enough for two orders of rounding (it grows with the sum
 * of |x|) would let a lost or doubled element through. The timed calls then
 * run on uniform values, as the reduce bench's do. */
#include "bench/bench_common.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace {

using wk::bench::checker;
using wk::bench::rotation;
using wk::bench::row;

enum class scan_kind { inclusive_sum, exclusive_sum, inclusive_max };

using scan_case = wk::bench::op_case<scan_kind>;

constexpr scan_case scan_cases[] = {
    {"scan_inclusive_sum", scan_kind::inclusive_sum},
    {"scan_exclusive_sum", scan_kind::exclusive_sum},
    {"scan_inclusive_max", scan_kind::inclusive_max},
};

constexpr int op_width = wk::bench::op_column_width(scan_cases);

wk_status warpkit_scan(wk_context *ctx, scan_kind kind, const void *in, void *out, size_t n, wk_dtype dtype,
                       cudaStream_t s)
{
    switch (kind) {
    case scan_kind::inclusive_sum: return wk_inclusive_scan(ctx, in, out, n, dtype, WK_SUM, s);
    case scan_kind::exclusive_sum: {
        wk_value zero;
        std::memset(&zero, 0, sizeof zero); /* 0 in every member */
        return wk_exclusive_scan(ctx, in, out, n, dtype, WK_SUM, zero, s);
    }
    case scan_kind::inclusive_max: return wk_inclusive_scan(ctx, in, out, n, dtype, WK_MAX, s);
    }
    return WK_ERROR_INVALID_OP;
}

/* One CUB scan, its temp storage allocated before timing. */
template <class T> struct cub_scan : wk::bench::temp_storage {
    scan_kind kind;
    explicit cub_scan(scan_kind k) : kind(k) {}

    cudaError_t run(const T *in, T *out, size_t n, cudaStream_t s)
    {
        int count = (int)n; /* CUB's fastest path; the bench stays under 2^31 */
        switch (kind) {
        case scan_kind::inclusive_sum: return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, count, s);
        case scan_kind::exclusive_sum: return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, count, s);
        case scan_kind::inclusive_max:
            return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, cuda::maximum<>{}, count, s);
        }
        return cudaErrorInvalidValue;
    }
    void prepare(const T *in, T *out, size_t n, cudaStream_t s) { allocate([&] { return run(in, out, n, s); }); }
};

#ifdef WK_HAVE_CUB_LATEST
/* The newest CUB's scan (cub_latest.h). */
struct cub_latest_scan : wk::bench::temp_storage {
    scan_kind kind;
    wk_dtype dtype;
    cub_latest_scan(scan_kind k, wk_dtype d) : kind(k), dtype(d) {}

    cudaError_t run(const void *in, void *out, size_t n, cudaStream_t s)
    {
        const wk_op op = kind == scan_kind::inclusive_max ? WK_MAX : WK_SUM;
        return wk_cub_latest_scan(op, kind == scan_kind::exclusive_sum, dtype, in, out, n, temp, &temp_bytes, s);
    }
    void prepare(const void *in, void *out, size_t n, cudaStream_t s) { allocate([&] { return run(in, out, n, s); }); }
};
#endif

/* ------------------------------------------------ the check run's inputs */

/* The check run's values: for floats whole numbers in [-8, 8], so that every
 * prefix and every partial sum over a range of elements is an integer far
 * below 2^24 (a random walk of 2^30 such steps strays about 2^17.5), which
 * float and double hold exactly, in any order of addition; for integers the
 * timed values (integer scans are exact anyway). */
template <class T> __device__ inline T draw_exact(uint64_t r)
{
    if constexpr (std::is_floating_point<T>::value)
        return (T)((long long)(r % 17) - 8);
    else
        return wk::bench::draw<T>(r);
}
template <class T> __global__ void fill_exact_values(T *p, size_t n, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = draw_exact<T>(wk::bench::mix(seed ^ (i * 0x2545f4914f6cdd1dull)));
}

/* ------------------------------------------------------------- one case */

template <class T>
row bench_case(wk_context *ctx, const wk::bench::pool &p, checker &chk, const scan_case &sc, wk_dtype dtype,
               size_t n, int repeats, double copy_gbs, cudaStream_t s, wk::bench::regime how)
{
    size_t bytes = n * sizeof(T);
    char what[96]; /* the case, for messages */
    std::snprintf(what, sizeof what, "%s %s n=%zu", sc.name, wk_dtype_name(dtype), n);
    rotation rot(p, bytes, 2); /* buffer 0: input, buffer 1: output */
    auto input = [&](long long k) { return reinterpret_cast<const T *>(rot.buffer(k, 0)); };
    auto output = [&](long long k) { return reinterpret_cast<T *>(rot.buffer(k, 1)); };

    cub_scan<T> cub(sc.kind);
    cub.prepare(input(0), output(0), n, s);

    /* Both libraries on the same input, before anything is timed: values
     * whose scans are exact, so that the outputs must agree bit for bit
     * (compared on the GPU, bench_common.cuh). */
    fill_exact_values<T><<<1024, 256, 0, s>>>(reinterpret_cast<T *>(rot.buffer(0, 0)), n, 0xc4ecull + n);
    WK_BENCH_CHECK(cudaGetLastError());
    wk::bench::must_succeed(what, warpkit_scan(ctx, sc.kind, input(0), output(0), n, dtype, s));
    WK_BENCH_CHECK(cub.run(input(0), static_cast<T *>(chk.cub_out), n, s));
    /* warpkit's output against the toolkit CUB's, then the newest CUB's
     * (where it is built in) in the same place. */
    wk::bench::expect_same(chk, what, "warpkit", output(0), n, input(0), s);
#ifdef WK_HAVE_CUB_LATEST
    cub_latest_scan latest(sc.kind, dtype);
    latest.prepare(input(0), output(0), n, s);
    WK_BENCH_CHECK(latest.run(input(0), output(0), n, s));
    wk::bench::expect_same(chk, what, "CUB latest", output(0), n, input(0), s);
#endif
    /* The timed calls' values, in every slot. */
    wk::bench::fill<T>(rot, 0x5eedull + n, s);

    /* Both libraries take the next pair from one walk through the pool
     * (bench_common.cuh), so that no call finds its input or output in L2. */
    std::vector<wk::bench::slot_call> latest_calls;
#ifdef WK_HAVE_CUB_LATEST
    latest_calls.push_back([&](long long j) { return latest.run(input(j), output(j), n, s) == cudaSuccess; });
#endif
    const wk::bench::contender_times times = wk::bench::time_contenders(
        [&](long long j) {
            return wk::bench::must_succeed(what, warpkit_scan(ctx, sc.kind, input(j), output(j), n, dtype, s));
        },
        [&](long long j) { return cub.run(input(j), output(j), n, s) == cudaSuccess; }, latest_calls, repeats, s,
        how);
#ifdef WK_HAVE_CUB_LATEST
    latest.release_temp();
#endif
    cub.release_temp();
    return wk::bench::make_row(sc.name, dtype, n, times, 2.0 * (double)bytes, copy_gbs, true);
}

/* The inclusive sum of a bool mask kept in int64 (wk_inclusive_scan_to):
 * the positions a compaction writes to, beside CUB's InclusiveScanInit
 * adding in int64 from a zero of it. Reads a byte and writes eight an
 * element: the bandwidth is 9 n / time against the copy ceiling. */
row bench_mask_scan_case(wk_context *ctx, const wk::bench::pool &p, checker &chk, size_t n, int repeats,
                         double copy_gbs, cudaStream_t s, wk::bench::regime how)
{
    char what[96];
    std::snprintf(what, sizeof what, "scan_inclusive_sum bool>i64 n=%zu", n);
    rotation rot(p, {n, n * sizeof(int64_t)}); /* buffer 0: the mask, buffer 1: the positions */
    auto input = [&](long long k) { return reinterpret_cast<const bool *>(rot.buffer(k, 0)); };
    auto output = [&](long long k) { return reinterpret_cast<int64_t *>(rot.buffer(k, 1)); };
    wk::bench::fill<bool>(rot, 0x5eedull + n, s); /* 0 or 1 bytes in every buffer */
    wk::bench::temp_storage cub;
    auto cub_run = [&](const bool *in, int64_t *out) {
        return cub::DeviceScan::InclusiveScanInit(cub.temp, cub.temp_bytes, in, out, cuda::std::plus<int64_t>{},
                                                  (int64_t)0, (int)n, s);
    };
    cub.allocate([&] { return cub_run(input(0), output(0)); });
    auto warpkit_run = [&](long long j) {
        return wk::bench::must_succeed(what,
                                       wk_inclusive_scan_to(ctx, input(j), output(j), n, WK_BOOL, WK_I64, nullptr, s));
    };
    warpkit_run(0);
    WK_BENCH_CHECK(cub_run(input(0), static_cast<int64_t *>(chk.cub_out)));
    wk::bench::expect_same<int64_t>(chk, what, "warpkit", output(0), n, nullptr, s);
    std::vector<wk::bench::slot_call> latest_calls;
#ifdef WK_HAVE_CUB_LATEST
    wk::bench::temp_storage latest;
    auto latest_run = [&](long long j) {
        return wk_cub_latest_scan_to(WK_BOOL, WK_I64, input(j), output(j), n, latest.temp, &latest.temp_bytes, s);
    };
    latest.allocate([&] { return latest_run(0); });
    WK_BENCH_CHECK(latest_run(0));
    wk::bench::expect_same<int64_t>(chk, what, "CUB latest", output(0), n, nullptr, s);
    latest_calls.push_back([&](long long j) { return latest_run(j) == cudaSuccess; });
#endif
    const wk::bench::contender_times times = wk::bench::time_contenders(
        warpkit_run, [&](long long j) { return cub_run(input(j), output(j)) == cudaSuccess; }, latest_calls,
        repeats, s, how);
#ifdef WK_HAVE_CUB_LATEST
    latest.release_temp();
#endif
    cub.release_temp();
    row r = wk::bench::make_row("scan_inclusive_sum", WK_BOOL, n, times, 9.0 * (double)n, copy_gbs, true);
    r.out_dtype = wk_dtype_name(WK_I64);
    return r;
}

/* Every case of every size, on one session. */
int run_scans(const wk_cli_options *opts, wk::bench::session &ses)
{
    wk_context *ctx = ses.ctx;
    cudaStream_t s = ses.stream;
    if (!wk::bench::reserve_tiles(ses, {WK_F32, WK_F64, WK_I32, WK_I64, WK_BOOL}))
        return 2;
    wk::bench::pool p;
    p.allocate(wk::bench::pool_bytes(ses.max_n, 2));
    checker chk;
    chk.allocate(ses.max_n);

    const int reps = opts->repeats;
    const double copy = ses.ceilings.copy_gbs;
    /* A disagreement has stopped the run already (bench_case). */
    wk::bench::run_cases(ses, opts, op_width, "%copy", [&](wk::bench::report &rep, size_t n, wk::bench::regime how) {
        for (const scan_case &sc : scan_cases) {
            rep.add(bench_case<float>(ctx, p, chk, sc, WK_F32, n, reps, copy, s, how));
            rep.add(bench_case<double>(ctx, p, chk, sc, WK_F64, n, reps, copy, s, how));
            rep.add(bench_case<int32_t>(ctx, p, chk, sc, WK_I32, n, reps, copy, s, how));
            rep.add(bench_case<int64_t>(ctx, p, chk, sc, WK_I64, n, reps, copy, s, how));
        }
        rep.add(bench_mask_scan_case(ctx, p, chk, n, reps, copy, s, how));
    });

    chk.release();
    p.release();
    return 0;
}

} // namespace

extern "C" int wk_bench_scan_main(const wk_cli_options *opts) { return wk::bench::run_session(opts, run_scans); }
