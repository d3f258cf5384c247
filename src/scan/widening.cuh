/* Sum scans kept and stored in a wider dtype (wk_inclusive_scan_to,
 * wk_exclusive_scan_to): the chained scan kernel (scan_kernel.cuh) reading
 * S and carrying and writing Out. A lane's input vector of V elements
 * becomes V outputs, which the warp writes through shared memory as
 * contiguous 16-byte vectors where the output is aligned. Only the chained
 * tile shapes: the planner is asked for no pipelined one. */
#ifndef WARPKIT_SCAN_WIDENING_CUH
#define WARPKIT_SCAN_WIDENING_CUH

#include "common/chained_launch.cuh"
#include "scan/carried_value.cuh"
#include "scan/launch.h"
#include "scan/scan_kernel.cuh"

#include <cstdint>
#include <cstring>

namespace wk {
namespace scan {

/* The input as tile_io sees it; the outputs at wide_out, element e of the
 * virtual array at wide_out[e] (d_out - offset). Warps: the kernel's warps
 * per block, each of which has a staging buffer. */
template <class S, class Out, int Warps> struct widening_io : tiles::tile_io<S> {
    Out *wide_out;
    bool aligned_out; /* wide_out is 16-byte aligned, so every whole run of V outputs is */

    __device__ const widening_io &view(unsigned long long) const { return *this; }

    /* Called by the whole warp, lane i with vector q of a run of 32
     * consecutive ones. A lane's V outputs are U 16-byte units; stored as
     * they are, a warp's store instruction would touch 32 units 16 U bytes
     * apart. Where the warp's run lies inside the data and the output is
     * aligned, the lanes' units go through shared memory (rows of U + 1
     * units, an odd stride: no bank conflicts) and leave as 512 contiguous
     * bytes an instruction, LANES lanes' units a pass. */
    __device__ void store(size_t q, const run_of<Out, vec<S>::size> &y) const
    {
        constexpr int V = vec<S>::size, per = vec<Out>::size, U = V / per;
        constexpr int LANES = U <= 4 ? 32 : 128 / U, PASSES = 32 / LANES, STRIDE = U + 1;
        static_assert(V % per == 0 && (LANES * U) % 32 == 0, "a run of outputs is whole vectors, whole rounds");
        __shared__ uint4 staging[Warps][LANES * STRIDE];
        const unsigned lane = lane_id();
        const size_t q0 = q - lane, e0 = q * V;
        if (aligned_out && this->whole(q0, q0 + 31)) {
            uint4 *buf = staging[threadIdx.x / 32];
            uint4 *dst = reinterpret_cast<uint4 *>(wide_out + q0 * V);
#pragma unroll
            for (int p = 0; p < PASSES; ++p) {
                if (lane / LANES == (unsigned)p) {
#pragma unroll
                    for (int k = 0; k < U; ++k) {
                        vec<Out> v;
#pragma unroll
                        for (int j = 0; j < per; ++j)
                            v.e[j] = y.e[k * per + j];
                        memcpy(&buf[(lane % LANES) * STRIDE + k], &v, sizeof v);
                    }
                }
                __syncwarp();
#pragma unroll
                for (int r = 0; r < LANES * U / 32; ++r) {
                    const unsigned unit = r * 32 + lane;
                    dst[p * LANES * U + unit] = buf[(unit / U) * STRIDE + unit % U];
                }
                __syncwarp();
            }
            return;
        }
#pragma unroll
        for (int e = 0; e < V; ++e)
            if (e0 + e >= this->first && e0 + e < this->end)
                wide_out[e0 + e] = y.e[e];
    }
};

/* Launches the widening sum scan in one tile shape: Threads threads with
 * Rounds input vectors each. */
template <class S, class Out, int Threads, int Rounds, int MinBlocks>
inline cudaError_t launch_widening_shape(const wk_scan_launch *l)
{
    using C = widened_sum<S, Out>;
    using Map = widening_io<S, Out, Threads / 32>;
    static_assert(sizeof(typename C::type) <= 8, "value slots are 8 bytes");
    Map io;
    io.in = reinterpret_cast<const S *>(reinterpret_cast<uintptr_t>(l->in) - l->plan.offset * sizeof(S));
    io.out = nullptr;
    io.first = l->plan.offset;
    io.end = l->plan.offset + l->plan.n;
    io.vector_stores = false;
    io.in_place = false;
    io.wide_out = reinterpret_cast<Out *>(reinterpret_cast<uintptr_t>(l->out) - l->plan.offset * sizeof(Out));
    io.aligned_out = reinterpret_cast<uintptr_t>(io.wide_out) % 16 == 0;
    scan_kernel_ptr<S, Map, Out> kernel = l->exclusive ? scan_kernel<S, sum, true, Threads, Rounds, MinBlocks, Map, C>
                                                       : scan_kernel<S, sum, false, Threads, Rounds, MinBlocks, Map, C>;
    return launch_chained(kernel, (unsigned)l->plan.tiles, Threads, 0, l->stream, l->overlap_launch != 0, io, l->init,
                          static_cast<const Out *>(l->prefix), l->slots);
}

/* Launches the widening sum scan of the plan's shape (wk_widening_scan_shape):
 * the narrow tiles for small outputs, the small ones for every input, the
 * large ones for 4-byte inputs. */
template <class S, class Out> inline cudaError_t launch_widening(const wk_scan_launch *l)
{
    switch (l->plan.shape) {
    case WK_SCAN_SHAPE_NARROW:
        return launch_widening_shape<S, Out, WK_SCAN_NARROW_THREADS, WK_SCAN_SMALL_VECTORS, WK_SCAN_NARROW_MIN_BLOCKS>(
            l);
    case WK_SCAN_SHAPE_SMALL:
        return launch_widening_shape<S, Out, WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 1>(l);
    case WK_SCAN_SHAPE_LARGE:
        if constexpr (sizeof(S) == 4)
            return launch_widening_shape<S, Out, WK_SCAN_THREADS, WK_SCAN_LARGE_VECTORS, WK_SCAN_LARGE_MIN_BLOCKS>(l);
        return cudaErrorInvalidValue;
    default:
        return cudaErrorInvalidValue;
    }
}

} // namespace scan
} // namespace wk

#endif
