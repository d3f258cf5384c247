/* Timing with CUDA events: warm-up, batches of calls between two events,
 * the median of the batches. */
#ifndef WARPKIT_BENCH_TIMING_CUH
#define WARPKIT_BENCH_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define WK_BENCH_CHECK(call)                                                               \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorString(err_));                                        \
            std::exit(2);                                                                  \
        }                                                                                  \
    } while (0)

namespace wk {
namespace bench {

/* Median per-call times of a batch, in microseconds: on the GPU (events),
 * and on the host for enqueueing alone (a call whose host time exceeds its
 * GPU time is bound by launch overhead, not by the kernel). */
struct call_time {
    double gpu_us;
    double host_us;
};

/* `call(k)` enqueues call number k on `stream` (k lets the caller rotate its
 * inputs); it returns false on failure. Batches are sized to last about
 * `batch_us` so that event resolution and launch jitter stay small. */
template <class Call> call_time time_calls(Call call, int repeats, cudaStream_t stream, double batch_us = 2000.0)
{
    cudaEvent_t start, stop;
    WK_BENCH_CHECK(cudaEventCreate(&start));
    WK_BENCH_CHECK(cudaEventCreate(&stop));
    long long k = 0;
    double host_us = 0;
    auto run_batch = [&](int calls) {
        WK_BENCH_CHECK(cudaEventRecord(start, stream));
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            if (!call(k++))
                std::exit(2);
        auto t1 = std::chrono::steady_clock::now();
        host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
        WK_BENCH_CHECK(cudaEventRecord(stop, stream));
        WK_BENCH_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        WK_BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return 1000.0 * ms / calls;
    };

    /* Warm-up (module load, first touch), a probe that sizes the batches,
     * then at least 20 ms of calls so that clocks settle before timing. */
    run_batch(3);
    double probe = run_batch(10);
    int batch = (int)std::min(1000.0, std::max(1.0, batch_us / std::max(probe, 1e-3)));
    for (double warm_us = 0; warm_us < 20000.0;)
        warm_us += run_batch(batch) * batch;

    std::vector<double> gpu, host;
    for (int r = 0; r < repeats; ++r) {
        gpu.push_back(run_batch(batch));
        host.push_back(host_us);
    }
    std::sort(gpu.begin(), gpu.end());
    std::sort(host.begin(), host.end());
    WK_BENCH_CHECK(cudaEventDestroy(start));
    WK_BENCH_CHECK(cudaEventDestroy(stop));
    return call_time{gpu[gpu.size() / 2], host[host.size() / 2]};
}

/* The GPU time alone. */
template <class Call> double median_us(Call call, int repeats, cudaStream_t stream, double batch_us = 2000.0)
{
    return time_calls(call, repeats, stream, batch_us).gpu_us;
}

} // namespace bench
} // namespace wk

#endif
