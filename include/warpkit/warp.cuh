/* Warp-level primitives built on shuffles.
 *
 * Two families:
 *  - Full-warp versions (mask-free names) need all 32 lanes of the warp to
 *    call them together; they use __shfl_down_sync / __shfl_xor_sync /
 *    __shfl_up_sync directly.
 *  - `_masked` versions take the mask of the lanes that call them (any subset,
 *    e.g. __activemask() or the lanes that hold an element) and work over
 *    those lanes only, in lane order. A shuffle that reads an inactive lane
 *    returns an undefined value, so these never read one: they address the
 *    k-th active lane with __fns.
 *
 * Values may be any of the seed types (int, unsigned, long long,
 * unsigned long long, float, double, __half, __nv_bfloat16) or any trivially
 * copyable struct, which is shuffled 32 bits at a time.
 */
#ifndef WARPKIT_WARP_CUH
#define WARPKIT_WARP_CUH

#include "warpkit/ops.cuh"

#include <type_traits>

namespace wk {

constexpr unsigned full_mask = 0xffffffffu;

/* The hardware lane index. threadIdx.x & 31 would be wrong in 2D and 3D
 * blocks whose x extent is not a multiple of 32: warps are cut from the
 * linear thread index. */
__device__ inline unsigned lane_id()
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/* Mask of the lanes below the calling lane. */
__device__ inline unsigned lanes_below()
{
    unsigned mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

/* -------------------------------------------------------------- shuffles */

namespace detail {

template <class T>
constexpr bool has_native_shuffle =
    std::is_same<T, int>::value || std::is_same<T, unsigned>::value ||
    std::is_same<T, long long>::value || std::is_same<T, unsigned long long>::value ||
    std::is_same<T, float>::value || std::is_same<T, double>::value ||
    std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;

/* Shuffles any trivially copyable T one 32-bit word at a time. `shuffle_word`
 * is the intrinsic applied to each word. */
template <class T, class F> __device__ inline T shuffle_words(T value, F shuffle_word)
{
    static_assert(std::is_trivially_copyable<T>::value, "shuffled types must be trivially copyable");
    constexpr int words = (int)((sizeof(T) + 3) / 4);
    unsigned buffer[words] = {};
    memcpy(buffer, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < words; ++w)
        buffer[w] = shuffle_word(buffer[w]);
    memcpy(&value, buffer, sizeof(T));
    return value;
}

/* `shuffle` applied to v: as it is for the types the intrinsics take, one
 * 32-bit word at a time for any other. `shuffle` is a generic lambda that
 * calls one __shfl_*_sync intrinsic. */
template <class T, class Shuffle> __device__ inline T shuffle_any(T v, Shuffle shuffle)
{
    if constexpr (has_native_shuffle<T>)
        return shuffle(v);
    else
        return shuffle_words(v, shuffle);
}

} // namespace detail

template <class T> __device__ inline T shfl(unsigned mask, T v, int src_lane)
{
    return detail::shuffle_any(v, [=](auto x) { return __shfl_sync(mask, x, src_lane); });
}

template <class T> __device__ inline T shfl_down(unsigned mask, T v, unsigned delta)
{
    return detail::shuffle_any(v, [=](auto x) { return __shfl_down_sync(mask, x, delta); });
}

template <class T> __device__ inline T shfl_up(unsigned mask, T v, unsigned delta)
{
    return detail::shuffle_any(v, [=](auto x) { return __shfl_up_sync(mask, x, delta); });
}

template <class T> __device__ inline T shfl_xor(unsigned mask, T v, int lane_mask)
{
    return detail::shuffle_any(v, [=](auto x) { return __shfl_xor_sync(mask, x, lane_mask); });
}

/* ------------------------------------------------------- full-warp forms */

/* Reduce over the 32 lanes; lane 0 holds the result (other lanes hold
 * partial results). */
template <class T, class Op> __device__ inline T warp_reduce(T v, Op op)
{
#pragma unroll
    for (int delta = 16; delta > 0; delta >>= 1)
        v = op(v, shfl_down(full_mask, v, delta));
    return v;
}

/* Reduce over the 32 lanes; every lane holds the result (butterfly). Both
 * partners of each exchange combine (lower half, upper half) in that order,
 * so every lane ends with the same bits even for ops that are not bitwise
 * commutative (min / max on -0.0 and +0.0, NaN payloads). */
template <class T, class Op> __device__ inline T warp_allreduce(T v, Op op)
{
    const unsigned lane = lane_id();
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) {
        T other = shfl_xor(full_mask, v, lane_mask);
        v = (lane & lane_mask) ? op(other, v) : op(v, other);
    }
    return v;
}

/* Inclusive scan over the 32 lanes in lane order (Hillis-Steele). */
template <class T, class Op> __device__ inline T warp_inclusive_scan(T v, Op op)
{
    const unsigned lane = lane_id();
#pragma unroll
    for (unsigned delta = 1; delta < 32; delta <<= 1) {
        T below = shfl_up(full_mask, v, delta);
        if (lane >= delta)
            v = op(below, v);
    }
    return v;
}

/* Exclusive scan over the 32 lanes: lane 0 gets `init`, lane i gets
 * init op v0 op ... op v(i-1). */
template <class T, class Op> __device__ inline T warp_exclusive_scan(T v, Op op, T init)
{
    T inclusive = warp_inclusive_scan(v, op);
    T shifted = shfl_up(full_mask, inclusive, 1);
    return lane_id() == 0 ? init : op(init, shifted);
}

template <class T, class Op> __device__ inline T warp_exclusive_scan(T v, Op op)
{
    return warp_exclusive_scan(v, op, op.template identity<T>());
}

/* Every lane gets src_lane's value. */
template <class T> __device__ inline T warp_broadcast(T v, int src_lane)
{
    return shfl(full_mask, v, src_lane);
}

/* ---------------------------------------------------- partial-warp forms */

/* The lane `steps` places above (steps > 0) or below (steps < 0) the caller
 * among the lanes of `mask`. Where there is none it returns the caller's own
 * lane, so that a shuffle never names a lane outside the mask; callers ignore
 * the value in that case. */
__device__ inline int active_lane_at(unsigned mask, int steps)
{
    unsigned lane = __fns(mask, lane_id(), steps >= 0 ? steps + 1 : steps - 1);
    return lane < 32 ? (int)lane : (int)lane_id();
}

/* Reduce over the lanes of `mask` (the calling lanes); the lowest lane of
 * the mask holds the result. */
template <class T, class Op> __device__ inline T warp_reduce_masked(T v, Op op, unsigned mask)
{
    const unsigned rank = __popc(mask & lanes_below());
    const unsigned count = __popc(mask);
    for (unsigned delta = 1; delta < count; delta <<= 1) {
        T above = shfl(mask, v, active_lane_at(mask, (int)delta));
        if ((rank & (2 * delta - 1)) == 0 && rank + delta < count)
            v = op(v, above);
    }
    return v;
}

/* Reduce over the lanes of `mask`; every one of them holds the result. */
template <class T, class Op> __device__ inline T warp_allreduce_masked(T v, Op op, unsigned mask)
{
    v = warp_reduce_masked(v, op, mask);
    return shfl(mask, v, __ffs(mask) - 1);
}

/* Inclusive scan over the lanes of `mask`, in lane order. */
template <class T, class Op> __device__ inline T warp_inclusive_scan_masked(T v, Op op, unsigned mask)
{
    const unsigned rank = __popc(mask & lanes_below());
    const unsigned count = __popc(mask);
    for (unsigned delta = 1; delta < count; delta <<= 1) {
        T below = shfl(mask, v, active_lane_at(mask, -(int)delta));
        if (rank >= delta)
            v = op(below, v);
    }
    return v;
}

/* Exclusive scan over the lanes of `mask`: the lowest lane gets `init`. */
template <class T, class Op>
__device__ inline T warp_exclusive_scan_masked(T v, Op op, unsigned mask, T init)
{
    T inclusive = warp_inclusive_scan_masked(v, op, mask);
    T below = shfl(mask, inclusive, active_lane_at(mask, -1));
    return (mask & lanes_below()) == 0 ? init : op(init, below);
}

template <class T, class Op> __device__ inline T warp_exclusive_scan_masked(T v, Op op, unsigned mask)
{
    return warp_exclusive_scan_masked(v, op, mask, op.template identity<T>());
}

/* The lanes of `mask` get src_lane's value; src_lane must be in `mask`. */
template <class T> __device__ inline T warp_broadcast_masked(T v, int src_lane, unsigned mask)
{
    return shfl(mask, v, src_lane);
}

/* ----------------------------------------------------- ballot compaction */

/* Stream compaction within a warp: each lane of `mask` (the calling lanes,
 * any subset) votes whether it keeps its element. The kept lanes are packed
 * in lane order; a lane's slot is the number of kept lanes below it, the
 * population count of the vote's lower bits, and *count is how many the
 * warp keeps. A lane that keeps nothing gets the slot its element would
 * have had, which callers ignore. Only lanes of `mask` vote: a lane outside
 * it counts as not keeping. */
__device__ inline unsigned warp_compact(bool keep, unsigned mask, unsigned *count)
{
    const unsigned kept = __ballot_sync(mask, keep);
    *count = __popc(kept);
    return __popc(kept & lanes_below());
}

/* The full-warp form: all 32 lanes call it. */
__device__ inline unsigned warp_compact(bool keep, unsigned *count)
{
    return warp_compact(keep, full_mask, count);
}

/* ------------------------------------------------------ named shorthands */

template <class T> __device__ inline T warp_sum(T v) { return warp_reduce(v, sum{}); }
template <class T> __device__ inline T warp_min(T v) { return warp_reduce(v, min{}); }
template <class T> __device__ inline T warp_max(T v) { return warp_reduce(v, max{}); }
template <class T> __device__ inline T warp_allsum(T v) { return warp_allreduce(v, sum{}); }

} // namespace wk

#endif
