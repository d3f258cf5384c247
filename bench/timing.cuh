/* Timing with CUDA events: warm-up, batches of calls between two events,
 * the median of the batches. */
#ifndef WARPKIT_BENCH_TIMING_CUH
#define WARPKIT_BENCH_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
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

/* Median time of one call in microseconds. `call(k)` enqueues call number k
 * on `stream` (k lets the caller rotate its inputs); it returns false on
 * failure. Batches are sized to last about `batch_us` so that event
 * resolution and launch jitter stay small against them. */
template <class Call> double median_us(Call call, int repeats, cudaStream_t stream, double batch_us = 2000.0)
{
    cudaEvent_t start, stop;
    WK_BENCH_CHECK(cudaEventCreate(&start));
    WK_BENCH_CHECK(cudaEventCreate(&stop));
    long long k = 0;
    auto run_batch = [&](int calls) {
        WK_BENCH_CHECK(cudaEventRecord(start, stream));
        for (int i = 0; i < calls; ++i)
            if (!call(k++))
                std::exit(2);
        WK_BENCH_CHECK(cudaEventRecord(stop, stream));
        WK_BENCH_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        WK_BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return 1000.0 * ms / calls;
    };

    /* Warm-up (module load, first-touch), then a probe that sizes batches. */
    run_batch(3);
    double probe = run_batch(10);
    int batch = (int)std::min(1000.0, std::max(1.0, batch_us / std::max(probe, 1e-3)));

    std::vector<double> times;
    for (int r = 0; r < repeats; ++r)
        times.push_back(run_batch(batch));
    std::sort(times.begin(), times.end());
    WK_BENCH_CHECK(cudaEventDestroy(start));
    WK_BENCH_CHECK(cudaEventDestroy(stop));
    return times[times.size() / 2];
}

} // namespace bench
} // namespace wk

#endif
