/* Timing with CUDA events: warm-up, batches of calls between two events,
 * the median of the batches. */
#ifndef WARPKIT_BENCH_TIMING_CUH
#define WARPKIT_BENCH_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
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
 * and on the host for enqueueing alone (a call whose host time reaches its
 * GPU time is bound by launch overhead, not by the kernel). */
struct call_time {
    double gpu_us;
    double host_us;
};

/* Times batches of one kind of call. `call(k)` enqueues call number k on
 * the stream (k lets the caller rotate its inputs) and returns false on
 * failure. Batches are sized to last about `batch_us`, so that event
 * resolution and launch jitter stay small against them. */
template <class Call> class batch_timer {
  public:
    batch_timer(Call call, cudaStream_t stream, double batch_us) : call_(call), stream_(stream)
    {
        WK_BENCH_CHECK(cudaEventCreate(&start_));
        WK_BENCH_CHECK(cudaEventCreate(&stop_));
        run(3); /* module load, first touch */
        double probe = run(10);
        batch_ = (int)std::min(1000.0, std::max(1.0, batch_us / std::max(probe, 1e-3)));
    }
    batch_timer(const batch_timer &) = delete;
    batch_timer &operator=(const batch_timer &) = delete;
    ~batch_timer()
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }

    /* Runs untimed batches for about `us`, so that clocks settle. */
    void warm_up(double us)
    {
        for (double spent = 0; spent < us;)
            spent += run(batch_) * batch_;
    }
    /* Times one batch and keeps its per-call times. */
    void sample()
    {
        gpu_.push_back(run(batch_));
        host_.push_back(host_us_);
    }
    call_time median() const { return call_time{median_of(gpu_), median_of(host_)}; }

  private:
    double run(int calls)
    {
        WK_BENCH_CHECK(cudaEventRecord(start_, stream_));
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            if (!call_(k_++))
                std::exit(2);
        auto t1 = std::chrono::steady_clock::now();
        host_us_ = std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
        WK_BENCH_CHECK(cudaEventRecord(stop_, stream_));
        WK_BENCH_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        WK_BENCH_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return 1000.0 * ms / calls;
    }
    static double median_of(std::vector<double> v)
    {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0 : v[v.size() / 2];
    }

    Call call_;
    cudaStream_t stream_;
    cudaEvent_t start_, stop_;
    long long k_ = 0;
    int batch_ = 1;
    double host_us_ = 0;
    std::vector<double> gpu_, host_;
};

constexpr double warm_up_us = 20000.0;

/* Median per-call times of `call` over `repeats` batches. */
template <class Call> call_time time_calls(Call call, int repeats, cudaStream_t stream, double batch_us = 2000.0)
{
    batch_timer<Call> t(call, stream, batch_us);
    t.warm_up(warm_up_us);
    for (int r = 0; r < repeats; ++r)
        t.sample();
    return t.median();
}

/* A call that takes a number k (the caller's rotation of inputs) and says
 * whether it succeeded. */
using slot_call = std::function<bool(long long)>;

/* Several kinds of call timed in rounds, one batch of each per round, so
 * that a slow spell of the machine falls on all alike. */
inline std::vector<call_time> time_rounds(const std::vector<slot_call> &calls, int repeats, cudaStream_t stream,
                                          double batch_us = 2000.0)
{
    using timer = batch_timer<slot_call>;
    std::vector<std::unique_ptr<timer>> timers;
    for (const auto &c : calls)
        timers.emplace_back(new timer(c, stream, batch_us));
    for (auto &t : timers)
        t->warm_up(warm_up_us);
    for (int r = 0; r < repeats; ++r)
        for (auto &t : timers)
            t->sample();
    std::vector<call_time> medians;
    for (auto &t : timers)
        medians.push_back(t->median());
    return medians;
}

/* The GPU time alone. */
template <class Call> double median_us(Call call, int repeats, cudaStream_t stream, double batch_us = 2000.0)
{
    return time_calls(call, repeats, stream, batch_us).gpu_us;
}

} // namespace bench
} // namespace wk

#endif
