/* The segmented reduce of the uniform and rows layouts, whose lengths the
 * host knows: the plan (plan.h) picks one of three kernels. */
#ifndef WARPKIT_SEGMENTED_REDUCE_ROWS_CUH
#define WARPKIT_SEGMENTED_REDUCE_ROWS_CUH

#include "segmented/board.h"
#include "common/chained_launch.cuh"
#include "segmented/fold.cuh"
#include "warpkit/block.cuh"

#include <cuda/atomic>
#include <cstring>

namespace wk {
namespace seg {

/* A thread per row of at most MaxLen elements: each thread loads the rows
 * it takes this round (WK_SEG_TINY_ROWS, a grid apart, so that a warp's
 * loads cover neighbouring rows) before it folds any. */
template <class R, int MaxLen>
__global__ void __launch_bounds__(WK_SEG_THREADS)
tiny_rows_kernel(const typename R::storage *__restrict__ in, void *out, size_t result_bytes, size_t count,
                 size_t size, size_t stride)
{
    using S = typename R::storage;
    constexpr int Rows = WK_SEG_TINY_ROWS;
    wait_for_previous_kernel();
    allow_next_kernel();
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x; first < count; first += threads * Rows) {
        S x[Rows][MaxLen];
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
            const size_t row = first + r * threads;
#pragma unroll
            for (int k = 0; k < MaxLen; ++k)
                if (row < count && (size_t)k < size)
                    x[r][k] = in[row * stride + k];
        }
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
            const size_t row = first + r * threads;
            if (row >= count)
                break;
            typename R::partial acc = R::identity();
#pragma unroll
            for (int k = 0; k < MaxLen; ++k)
                if ((size_t)k < size)
                    acc = R::combine(acc, R::element(x[r][k], k));
            R::store_result(result_at(out, result_bytes, row), acc);
        }
    }
}

/* Rows of V whole 16-byte vectors (V = 1, 2, 4 or 8) on 16-byte
 * boundaries: a warp loads J * 32 consecutive vectors of its rows, each
 * instruction 512 contiguous bytes of them; each lane folds its vector, the
 * V lanes of a row combine theirs, and the results are stored in whole
 * 32-byte sectors. */
template <class R, int V, int J = WK_SEG_UNROLL>
__global__ void __launch_bounds__(WK_SEG_THREADS)
vector_rows_kernel(const typename R::storage *__restrict__ in, void *out, size_t result_bytes, size_t count,
                   size_t stride_vecs)
{
    using W = vec<typename R::storage>;
    using P = typename R::partial;
    constexpr size_t rows_per_warp = 32 * J / V;
    wait_for_previous_kernel();
    allow_next_kernel();
    const W *rows = reinterpret_cast<const W *>(in);
    const unsigned lane = lane_id(), rank = lane % V;
    const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t first = warp * rows_per_warp; first < count; first += warps * rows_per_warp) {
        W x[J];
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const size_t row = first + (32 * j + lane) / V;
            if (row < count)
                x[j] = load_vec(rows + row * stride_vecs + rank);
            else
                memset(&x[j], 0, sizeof x[j]);
        }
        if constexpr (V <= 4) {
            /* A j's results fill whole 32-byte sectors: stored as they come. */
#pragma unroll
            for (int j = 0; j < J; ++j) {
                const size_t row = first + (32 * j + lane) / V;
                const P acc = group_allreduce<R, V>(R::fold(R::identity(), x[j].e, (long long)rank * W::size));
                if (rank == 0 && row < count)
                    R::store_result(result_at(out, result_bytes, row), acc);
            }
        } else {
            /* Fewer rows per j than a sector holds: lane i gathers row
             * first + i's result, and the warp stores them at once. */
            constexpr unsigned per_j = 32 / V;
            P mine = R::identity();
#pragma unroll
            for (int j = 0; j < J; ++j) {
                const P acc = group_allreduce<R, V>(R::fold(R::identity(), x[j].e, (long long)rank * W::size));
                const P got = shfl(full_mask, acc, (int)(V * (lane % per_j)));
                if (lane / per_j == (unsigned)j)
                    mine = got;
            }
            if (lane < J * per_j && first + lane < count)
                R::store_result(result_at(out, result_bytes, first + lane), mine);
        }
    }
}

/* G lanes per row (2 to 32). The groups of a warp advance together, so
 * that every lane takes part in the shuffles. */
template <class R, int G>
__global__ void __launch_bounds__(WK_SEG_THREADS)
group_rows_kernel(const typename R::storage *__restrict__ in, void *out, size_t result_bytes, size_t count,
                  size_t size, size_t stride)
{
    constexpr unsigned per_warp = 32 / G;
    wait_for_previous_kernel();
    allow_next_kernel();
    const unsigned lane = lane_id(), rank = lane % G;
    const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t first = warp * per_warp; first < count; first += warps * per_warp) {
        const size_t row = first + lane / G;
        const long long begin = (long long)(row * stride);
        const long long end = row < count ? begin + (long long)size : begin;
        typename R::partial acc = fold_range<R, WK_SEG_UNROLL>(in, begin, end, begin, rank, G);
        acc = group_allreduce<R, G>(acc);
        if (rank == 0 && row < count)
            R::store_result(result_at(out, result_bytes, row), acc);
    }
}

/* A block per piece of a row; rows of one piece are stored at once, and a
 * row of several pieces by the block that finishes its last piece, which
 * combines the pieces' partials in piece order. */
template <class R>
__global__ void __launch_bounds__(WK_SEG_THREADS)
block_rows_kernel(const typename R::storage *__restrict__ in, void *out, size_t result_bytes, size_t count,
                  size_t size, size_t stride, size_t pieces, size_t piece_len, wk_seg_board *board)
{
    using P = typename R::partial;
    __shared__ P scratch[block_scratch_size];
    __shared__ bool last;
    const combiner<R> op;
    wait_for_previous_kernel();
    allow_next_kernel();
    P *partials = reinterpret_cast<P *>(board->partials);
    const size_t units = count * pieces;
    for (size_t unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const size_t row = unit / pieces, piece = unit % pieces;
        const long long origin = (long long)(row * stride);
        const long long begin = origin + (long long)(piece * piece_len);
        long long end = begin + (long long)piece_len;
        if (end > origin + (long long)size)
            end = origin + (long long)size;
        P acc = fold_range<R, WK_SEG_UNROLL>(in, begin, end, origin, threadIdx.x, blockDim.x);
        acc = block_reduce(acc, op, scratch);
        if (pieces == 1) {
            if (threadIdx.x == 0)
                R::store_result(result_at(out, result_bytes, row), acc);
            __syncthreads(); /* scratch is reused next round */
            continue;
        }
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(board->done[row]);
        if (threadIdx.x == 0) {
            partials[unit] = acc;
            /* Release publishes the partial; acquire lets the last block
             * see every other piece's. */
            last = done.fetch_add(1u, cuda::memory_order_acq_rel) == pieces - 1;
        }
        __syncthreads();
        if (last) {
            acc = R::identity();
            for (size_t q = threadIdx.x; q < pieces; q += blockDim.x)
                acc = R::combine(acc, R::load_partial(partials + row * pieces + q));
            __syncthreads(); /* the first block_reduce's reads are done */
            acc = block_reduce(acc, op, scratch);
            if (threadIdx.x == 0) {
                R::store_result(result_at(out, result_bytes, row), acc);
                done.store(0u, cuda::memory_order_relaxed); /* ready for the next launch */
            }
        }
        __syncthreads();
    }
}

} // namespace seg
} // namespace wk

#endif
