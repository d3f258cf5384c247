/* The newest CUB's calls that `warpkit bench` times (cub_latest.h). */
#include "cub_latest.h"

#include <cub/device/device_reduce.cuh>

#include <cuda/std/execution>
#include <cuda/stream_ref>

#define WK_CUB_LATEST_API extern "C" __attribute__((visibility("default")))

namespace {

template <class T>
cudaError_t reduce_as(wk_op op, const void *in, void *out, int64_t *out_index, size_t n, void *temp,
                      size_t *temp_bytes, cudaStream_t s)
{
    const T *p = static_cast<const T *>(in);
    T *o = static_cast<T *>(out);
    const int count = (int)n; /* the benchmark stays under 2^31 */
    switch (op) {
    case WK_SUM: return cub::DeviceReduce::Sum(temp, *temp_bytes, p, o, count, s);
    case WK_MIN: return cub::DeviceReduce::Min(temp, *temp_bytes, p, o, count, s);
    case WK_ARGMAX: return cub::DeviceReduce::ArgMax(temp, *temp_bytes, p, o, out_index, (int64_t)n, s);
    default: return cudaErrorInvalidValue;
    }
}

template <class T> cudaError_t sum_single_pass_as(const void *in, void *out, size_t n, cudaStream_t s)
{
    const auto env = cuda::std::execution::env{
        cuda::stream_ref{s}, cuda::execution::require(cuda::execution::determinism::not_guaranteed)};
    return cub::DeviceReduce::Sum(static_cast<const T *>(in), static_cast<T *>(out), (int)n, env);
}

} // namespace

WK_CUB_LATEST_API int wk_cub_latest_version(void) { return CCCL_VERSION; }

WK_CUB_LATEST_API cudaError_t wk_cub_latest_reduce(wk_op op, wk_dtype dtype, const void *in, void *out,
                                                   int64_t *out_index, size_t n, void *temp, size_t *temp_bytes,
                                                   cudaStream_t stream)
{
    switch (dtype) {
    case WK_F32: return reduce_as<float>(op, in, out, out_index, n, temp, temp_bytes, stream);
    case WK_F64: return reduce_as<double>(op, in, out, out_index, n, temp, temp_bytes, stream);
    case WK_I32: return reduce_as<int>(op, in, out, out_index, n, temp, temp_bytes, stream);
    default: return cudaErrorInvalidValue;
    }
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_sum_single_pass(wk_dtype dtype, const void *in, void *out, size_t n,
                                                            cudaStream_t stream)
{
    switch (dtype) {
    case WK_F32: return sum_single_pass_as<float>(in, out, n, stream);
    case WK_F64: return sum_single_pass_as<double>(in, out, n, stream);
    case WK_I32: return sum_single_pass_as<int>(in, out, n, stream);
    default: return cudaErrorInvalidValue;
    }
}
