/* Block-level reduce and scan: each warp combines its lanes with shuffles,
 * the warps' results meet in shared memory, and the first warp combines
 * those.
 *
 * Every thread of the block must call these together (they contain
 * __syncthreads()). Blocks may have any shape and any size up to 1024
 * threads; threads are ordered by their linear index, and a last warp with
 * fewer than 32 threads is handled with the masked warp forms.
 *
 * `scratch` is shared memory the caller provides, at least
 * wk::block_scratch_size elements of T. Before the same scratch is used
 * again, the block must pass a __syncthreads(), as with CUB's temp storage.
 */
#ifndef WARPKIT_BLOCK_CUH
#define WARPKIT_BLOCK_CUH

#include "warpkit/warp.cuh"

namespace wk {

/* One slot per warp (at most 32) plus one for the block's total. */
constexpr int block_scratch_size = 33;

namespace detail {

struct block_shape {
    unsigned thread;  /* linear thread index       */
    unsigned lane;
    unsigned warp;
    unsigned warps;   /* warps in the block        */
    unsigned mask;    /* lanes present in my warp  */
};

__device__ inline block_shape this_block()
{
    block_shape s;
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    s.thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    s.lane = s.thread & 31u;
    s.warp = s.thread >> 5;
    s.warps = (threads + 31) / 32;
    unsigned in_last = threads - 32 * (s.warps - 1);
    s.mask = (s.warp == s.warps - 1 && in_last < 32) ? (1u << in_last) - 1 : full_mask;
    return s;
}

/* The full-warp form where all 32 lanes are present, else the masked one. */
template <class T, class Op> __device__ inline T warp_reduce_present(T v, Op op, unsigned mask)
{
    return mask == full_mask ? warp_reduce(v, op) : warp_reduce_masked(v, op, mask);
}
template <class T, class Op> __device__ inline T warp_inclusive_present(T v, Op op, unsigned mask)
{
    return mask == full_mask ? warp_inclusive_scan(v, op) : warp_inclusive_scan_masked(v, op, mask);
}
template <class T, class Op> __device__ inline T warp_exclusive_present(T v, Op op, unsigned mask)
{
    return mask == full_mask ? warp_exclusive_scan(v, op) : warp_exclusive_scan_masked(v, op, mask);
}
__device__ inline unsigned last_lane(unsigned mask) { return 31u - __clz(mask); }

/* Second stage of a block scan, run by warp 0: replaces each warp's total in
 * scratch with the combination of the warps before it, and stores the block
 * total in the last slot. */
template <class T, class Op> __device__ inline void scan_warp_totals(const block_shape &s, Op op, T *scratch)
{
    if (s.warp != 0)
        return;
    T warp_total = s.lane < s.warps ? scratch[s.lane] : op.template identity<T>();
    T before = warp_exclusive_present(warp_total, op, s.mask);
    if (s.lane < s.warps)
        scratch[s.lane] = before;
    if (s.lane == last_lane(s.mask))
        scratch[block_scratch_size - 1] = op(before, warp_total);
}

} // namespace detail

/* Reduce over the block; the thread with linear index 0 holds the result. */
template <class T, class Op> __device__ inline T block_reduce(T v, Op op, T *scratch)
{
    const detail::block_shape s = detail::this_block();
    v = detail::warp_reduce_present(v, op, s.mask);
    if (s.lane == 0)
        scratch[s.warp] = v;
    __syncthreads();
    if (s.warp == 0) {
        v = s.lane < s.warps ? scratch[s.lane] : op.template identity<T>();
        v = detail::warp_reduce_present(v, op, s.mask);
    }
    return v;
}

/* Reduce over the block; every thread gets the result. */
template <class T, class Op> __device__ inline T block_allreduce(T v, Op op, T *scratch)
{
    const detail::block_shape s = detail::this_block();
    v = block_reduce(v, op, scratch);
    if (s.thread == 0)
        scratch[block_scratch_size - 1] = v;
    __syncthreads();
    return scratch[block_scratch_size - 1];
}

/* Inclusive scan over the block in linear thread order. If `total` is not
 * null, every thread also gets the block's total there. */
template <class T, class Op>
__device__ inline T block_inclusive_scan(T v, Op op, T *scratch, T *total = nullptr)
{
    const detail::block_shape s = detail::this_block();
    v = detail::warp_inclusive_present(v, op, s.mask);
    /* The warp's last present lane holds the warp's total. */
    if (s.lane == detail::last_lane(s.mask))
        scratch[s.warp] = v;
    __syncthreads();
    detail::scan_warp_totals(s, op, scratch);
    __syncthreads();
    if (s.warp > 0)
        v = op(scratch[s.warp], v);
    if (total)
        *total = scratch[block_scratch_size - 1];
    return v;
}

/* Exclusive scan over the block: thread 0 gets the identity. */
template <class T, class Op>
__device__ inline T block_exclusive_scan(T v, Op op, T *scratch, T *total = nullptr)
{
    const detail::block_shape s = detail::this_block();
    T inclusive = detail::warp_inclusive_present(v, op, s.mask);
    T within = shfl(s.mask, inclusive, active_lane_at(s.mask, -1));
    if (s.lane == 0)
        within = op.template identity<T>();
    if (s.lane == detail::last_lane(s.mask))
        scratch[s.warp] = inclusive;
    __syncthreads();
    detail::scan_warp_totals(s, op, scratch);
    __syncthreads();
    T result = s.warp > 0 ? op(scratch[s.warp], within) : within;
    if (total)
        *total = scratch[block_scratch_size - 1];
    return result;
}

/* Stream compaction over the block: each thread votes whether it keeps its
 * element; kept threads are packed in linear thread order. Returns the
 * thread's slot (kept threads before it) and gives every thread the block's
 * count in *count. Each warp counts its votes with a ballot
 * (warp_compact), and the warps' counts are scanned in `scratch`. */
__device__ inline unsigned block_compact(bool keep, unsigned *scratch, unsigned *count)
{
    const detail::block_shape s = detail::this_block();
    unsigned warp_count;
    const unsigned slot = warp_compact(keep, s.mask, &warp_count);
    if (s.lane == 0)
        scratch[s.warp] = warp_count;
    __syncthreads();
    detail::scan_warp_totals(s, sum{}, scratch);
    __syncthreads();
    *count = scratch[block_scratch_size - 1];
    return scratch[s.warp] + slot;
}

template <class T> __device__ inline T block_sum(T v, T *scratch) { return block_reduce(v, sum{}, scratch); }

} // namespace wk

#endif
