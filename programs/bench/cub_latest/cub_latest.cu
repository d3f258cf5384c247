/* The newest CUB's calls that `warpkit bench` times (cub_latest.h). */
#include "bench/cub_latest/cub_latest.h"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cuda/functional>

#include <cuda/std/execution>
#include <cuda/stream_ref>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

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

template <class In, class Out>
cudaError_t sum_to_as(const void *in, void *out, size_t n, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    return cub::DeviceReduce::Reduce(temp, *temp_bytes, static_cast<const In *>(in), static_cast<Out *>(out), (int)n,
                                     cuda::std::plus<Out>{}, Out(0), s);
}

template <class T> cudaError_t sum_single_pass_as(const void *in, void *out, size_t n, cudaStream_t s)
{
    const auto env = cuda::std::execution::env{
        cuda::stream_ref{s}, cuda::execution::require(cuda::execution::determinism::not_guaranteed)};
    return cub::DeviceReduce::Sum(static_cast<const T *>(in), static_cast<T *>(out), (int)n, env);
}

template <class T> cudaError_t sum_gpu_to_gpu_as(const void *in, void *out, size_t n, cudaStream_t s)
{
    const auto env = cuda::std::execution::env{
        cuda::stream_ref{s}, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)};
    return cub::DeviceReduce::Sum(static_cast<const T *>(in), static_cast<T *>(out), (int)n, env);
}

template <class T>
cudaError_t scan_as(wk_op op, int exclusive, const void *in, void *out, size_t n, void *temp, size_t *temp_bytes,
                    cudaStream_t s)
{
    const T *p = static_cast<const T *>(in);
    T *o = static_cast<T *>(out);
    const int count = (int)n;
    if (op == WK_SUM)
        return exclusive ? cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, p, o, count, s)
                         : cub::DeviceScan::InclusiveSum(temp, *temp_bytes, p, o, count, s);
    if (op == WK_MAX && !exclusive)
        return cub::DeviceScan::InclusiveScan(temp, *temp_bytes, p, o, cuda::maximum<>{}, count, s);
    return cudaErrorInvalidValue;
}

/* The benchmark's select predicate, x < a. */
template <class T> struct less_than {
    T a;
    __host__ __device__ bool operator()(const T &x) const { return x < a; }
};

template <class T>
cudaError_t select_as(wk_cub_latest_select_kind kind, const void *in, const uint8_t *flags, void *out,
                      uint64_t *count, size_t n, const void *threshold, void *temp, size_t *temp_bytes,
                      cudaStream_t s)
{
    const T *p = static_cast<const T *>(in);
    T *o = static_cast<T *>(out);
    const less_than<T> keep{*static_cast<const T *>(threshold)};
    const int64_t items = (int64_t)n;
    switch (kind) {
    case WK_CUB_LATEST_SELECT_IF: return cub::DeviceSelect::If(temp, *temp_bytes, p, o, count, items, keep, s);
    case WK_CUB_LATEST_SELECT_FLAGGED:
        return cub::DeviceSelect::Flagged(temp, *temp_bytes, p, flags, o, count, items, s);
    case WK_CUB_LATEST_SELECT_UNIQUE: return cub::DeviceSelect::Unique(temp, *temp_bytes, p, o, count, items, s);
    case WK_CUB_LATEST_PARTITION_IF:
        return cub::DevicePartition::If(temp, *temp_bytes, p, o, count, (int)n, keep, s);
    }
    return cudaErrorInvalidValue;
}

/* The offsets of uniform segments, computed rather than read: element i of
 * uniform_offsets(size) is i * size, so that it serves as the begin offsets
 * and, one further, as the end offsets. int: the benchmark stays under 2^31
 * elements. */
struct times_size {
    int size;
    __host__ __device__ int operator()(int i) const { return i * size; }
};
inline auto uniform_offsets(int size)
{
    return thrust::make_transform_iterator(thrust::counting_iterator<int>(0), times_size{size});
}

template <class T>
cudaError_t segmented_sum_as(wk_cub_latest_segmented_form form, const void *in, void *out,
                             const wk_cub_latest_segments &g, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    const T *p = static_cast<const T *>(in);
    T *o = static_cast<T *>(out);
    if (form == WK_CUB_LATEST_SEGMENTED_FIXED) {
        if (g.d_begin)
            return cudaErrorInvalidValue; /* uniform segments only */
        return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, p, o, g.count, g.size, s);
    }
    if (!g.d_begin) {
        const auto begin = uniform_offsets(g.size);
        return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, p, o, g.count, begin, begin + 1, s);
    }
    return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, p, o, g.count, g.d_begin, g.d_end, s);
}

template <class T>
cudaError_t segmented_inclusive_sum_as(wk_cub_latest_segscan_form form, const void *in, void *out, size_t n,
                                       const wk_cub_latest_segments &g, const int32_t *keys, void *temp,
                                       size_t *temp_bytes, cudaStream_t s)
{
    const T *p = static_cast<const T *>(in);
    T *o = static_cast<T *>(out);
    if (form == WK_CUB_LATEST_SEGSCAN_BY_KEY)
        return cub::DeviceScan::InclusiveSumByKey(temp, *temp_bytes, keys, p, o, (int)n, cuda::std::equal_to<>{}, s);
    if (!g.d_begin) {
        const auto begin = uniform_offsets(g.size);
        return cub::DeviceSegmentedScan::InclusiveSegmentedSum(temp, *temp_bytes, p, o, begin, begin + 1, g.count, s);
    }
    return cub::DeviceSegmentedScan::InclusiveSegmentedSum(temp, *temp_bytes, p, o, g.d_begin, g.d_end, g.count, s);
}

/* The wk_dtype of element type T. */
template <class T> constexpr wk_dtype dtype_of();
template <> constexpr wk_dtype dtype_of<float>() { return WK_F32; }
template <> constexpr wk_dtype dtype_of<double>() { return WK_F64; }
template <> constexpr wk_dtype dtype_of<int32_t>() { return WK_I32; }
template <> constexpr wk_dtype dtype_of<int64_t>() { return WK_I64; }

/* call(T()) for the T among Ts whose wk_dtype is `dtype`; a dtype none of
 * them has is cudaErrorInvalidValue. */
template <class... Ts, class Call> cudaError_t as_dtype(wk_dtype dtype, Call call)
{
    cudaError_t result = cudaErrorInvalidValue;
    (void)((dtype == dtype_of<Ts>() && (result = call(Ts()), true)) || ...);
    return result;
}

} // namespace

WK_CUB_LATEST_API int wk_cub_latest_version(void) { return CCCL_VERSION; }

WK_CUB_LATEST_API cudaError_t wk_cub_latest_reduce(wk_op op, wk_dtype dtype, const void *in, void *out,
                                                   int64_t *out_index, size_t n, void *temp, size_t *temp_bytes,
                                                   cudaStream_t stream)
{
    return as_dtype<float, double, int32_t>(dtype, [&](auto zero) {
        return reduce_as<decltype(zero)>(op, in, out, out_index, n, temp, temp_bytes, stream);
    });
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_sum_to(wk_dtype dtype, wk_dtype out_dtype, const void *in, void *out,
                                                   size_t n, void *temp, size_t *temp_bytes, cudaStream_t stream)
{
    if (out_dtype == WK_I64 && dtype == WK_U8)
        return sum_to_as<uint8_t, int64_t>(in, out, n, temp, temp_bytes, stream);
    if (out_dtype == WK_I64 && dtype == WK_BOOL)
        return sum_to_as<bool, int64_t>(in, out, n, temp, temp_bytes, stream);
    if (out_dtype == WK_I64 && dtype == WK_I32)
        return sum_to_as<int32_t, int64_t>(in, out, n, temp, temp_bytes, stream);
    if (out_dtype == WK_F32 && dtype == WK_BF16)
        return sum_to_as<__nv_bfloat16, float>(in, out, n, temp, temp_bytes, stream);
    return cudaErrorInvalidValue;
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_scan_to(wk_dtype dtype, wk_dtype out_dtype, const void *in, void *out,
                                                    size_t n, void *temp, size_t *temp_bytes, cudaStream_t stream)
{
    if (dtype != WK_BOOL || out_dtype != WK_I64)
        return cudaErrorInvalidValue;
    return cub::DeviceScan::InclusiveScanInit(temp, *temp_bytes, static_cast<const bool *>(in),
                                              static_cast<int64_t *>(out), cuda::std::plus<int64_t>{}, (int64_t)0,
                                              (int)n, stream);
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_sum_single_pass(wk_dtype dtype, const void *in, void *out, size_t n,
                                                            cudaStream_t stream)
{
    return as_dtype<float, double, int32_t>(dtype, [&](auto zero) {
        return sum_single_pass_as<decltype(zero)>(in, out, n, stream);
    });
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_sum_gpu_to_gpu(wk_dtype dtype, const void *in, void *out, size_t n,
                                                           cudaStream_t stream)
{
    return as_dtype<float, double>(dtype, [&](auto zero) {
        return sum_gpu_to_gpu_as<decltype(zero)>(in, out, n, stream);
    });
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_scan(wk_op op, int exclusive, wk_dtype dtype, const void *in, void *out,
                                                 size_t n, void *temp, size_t *temp_bytes, cudaStream_t stream)
{
    return as_dtype<float, double, int32_t, int64_t>(dtype, [&](auto zero) {
        return scan_as<decltype(zero)>(op, exclusive, in, out, n, temp, temp_bytes, stream);
    });
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_select(wk_cub_latest_select_kind kind, wk_dtype dtype, const void *in,
                                                   const uint8_t *flags, void *out, uint64_t *count, size_t n,
                                                   const void *threshold, void *temp, size_t *temp_bytes,
                                                   cudaStream_t stream)
{
    return as_dtype<float, int32_t>(dtype, [&](auto zero) {
        return select_as<decltype(zero)>(kind, in, flags, out, count, n, threshold, temp, temp_bytes, stream);
    });
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_segmented_sum(wk_cub_latest_segmented_form form, wk_dtype dtype,
                                                          const void *in, void *out,
                                                          const wk_cub_latest_segments *segments, void *temp,
                                                          size_t *temp_bytes, cudaStream_t stream)
{
    return as_dtype<float>(dtype, [&](auto zero) {
        return segmented_sum_as<decltype(zero)>(form, in, out, *segments, temp, temp_bytes, stream);
    });
}

WK_CUB_LATEST_API cudaError_t wk_cub_latest_segmented_inclusive_sum(wk_cub_latest_segscan_form form, wk_dtype dtype,
                                                                    const void *in, void *out, size_t n,
                                                                    const wk_cub_latest_segments *segments,
                                                                    const int32_t *d_keys, void *temp,
                                                                    size_t *temp_bytes, cudaStream_t stream)
{
    return as_dtype<float>(dtype, [&](auto zero) {
        return segmented_inclusive_sum_as<decltype(zero)>(form, in, out, n, *segments, d_keys, temp, temp_bytes,
                                                          stream);
    });
}
