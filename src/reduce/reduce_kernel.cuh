/* The device-wide reduce: one launch for any n.
 *
 * Each thread folds a grid-stride share of the input into one partial:
 * a scalar head up to the first 16-byte boundary, a body of 16-byte vector
 * loads (Unroll in flight before the first is used) and a scalar tail.
 * The launch shape (threads, blocks per SM, Unroll) comes from the plan.
 * Each block reduces its threads' partials, writes one per block, and
 * takes a ticket; the block that takes the last ticket combines the blocks'
 * partials in block order and writes the result. The order of every
 * combination depends only on n, the alignment and the device, so results are
 * the same bits on every run. */
#ifndef WARPKIT_REDUCE_KERNEL_CUH
#define WARPKIT_REDUCE_KERNEL_CUH

#include "common/block_ticket.cuh"
#include "common/c_launcher.cuh"
#include "common/chained_launch.cuh"
#include "common/operators.cuh"
#include "common/vector.cuh"
#include "reduce/launch.h"
#include "reduce/reducers.cuh"
#include "warpkit/block.cuh"

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <utility>

namespace wk {
namespace reduce {

static_assert(sizeof(vec<char>) == WK_VECTOR_BYTES, "the plan's vectors are 16 bytes");

/* This thread's share of the input, folded in a fixed order. */
template <class R, int Unroll>
__device__ inline typename R::partial fold_thread_share(const typename R::storage *__restrict__ in,
                                                        const wk_reduce_plan &plan)
{
    using S = typename R::storage;
    using V = vec<S>;
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    typename R::partial acc = R::identity();

    if (thread < plan.head)
        acc = R::combine(acc, R::element(in[thread], (long long)thread));

    const V *body = reinterpret_cast<const V *>(in + plan.head);
    const long long body_index = (long long)plan.head;
    size_t i = thread;
    for (; i + (Unroll - 1) * threads < plan.nvec; i += Unroll * threads) {
        V v[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            v[u] = load_vec(body + i + u * threads);
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            acc = R::fold(acc, v[u].e, body_index + (long long)((i + u * threads) * V::size));
    }
    if (i < plan.nvec) {
        /* The last round, with fewer vectors: its loads in flight at once too. */
        V v[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            if (i + u * threads < plan.nvec)
                v[u] = load_vec(body + i + u * threads);
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            if (i + u * threads < plan.nvec)
                acc = R::fold(acc, v[u].e, body_index + (long long)((i + u * threads) * V::size));
    }

    if (thread < plan.tail) {
        size_t k = plan.head + plan.nvec * V::size + thread;
        acc = R::combine(acc, R::element(in[k], (long long)k));
    }
    return acc;
}

/* The block's share is read: lets the next launch be scheduled (its blocks
 * then wait through this grid's tail, not its whole run, so they hold SM
 * resources only briefly) and reduces the threads' partials into acc. A
 * block that is the whole grid writes the result; returns whether other
 * blocks' partials remain to be combined. */
template <class R>
__device__ inline bool reduce_block(typename R::partial &acc, const combiner<R> &op, typename R::partial *scratch,
                                    void *out)
{
    allow_next_kernel();
    acc = block_reduce(acc, op, scratch);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0)
            R::store_result(out, acc);
        return false;
    }
    return true;
}

template <class R, int Threads, int BlocksPerSM, int Unroll>
__global__ void __launch_bounds__(Threads, BlocksPerSM)
reduce_kernel(const typename R::storage *__restrict__ in, wk_reduce_plan plan, void *out,
              typename R::partial *partials, unsigned *ticket)
{
    using P = typename R::partial;
    __shared__ P scratch[block_scratch_size];
    __shared__ bool last_block;
    const combiner<R> op;

    /* On sm_90 and later the kernel is launched with programmatic stream
     * serialization: this grid may be scheduled while the previous kernel in
     * the stream still runs. Wait for that kernel's completion and memory
     * before touching any memory. Only launch latency overlaps; the order of
     * memory effects is the stream's. */
    wait_for_previous_kernel();

    P acc = fold_thread_share<R, Unroll>(in, plan);
    if (!reduce_block(acc, op, scratch, out))
        return;
    if (!publish_and_take_ticket(partials + blockIdx.x, acc, *ticket, gridDim.x, last_block))
        return;

    acc = R::identity();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        acc = R::combine(acc, R::load_partial(partials + b));
    acc = block_reduce(acc, op, scratch);
    if (threadIdx.x == 0) {
        R::store_result(out, acc);
        reset_ticket(*ticket);
    }
}

/* The cluster shape (plan.h): one cluster of WK_CLUSTER_BLOCKS blocks. Each
 * block reduces its threads' shares and stores its partial in the first
 * block's shared memory, at its rank; after the cluster's barrier the first
 * block folds them in rank order. No ticket and no global partials, so a
 * small reduce costs one round of loads and a barrier. */
template <class R>
__global__ void __launch_bounds__(WK_CLUSTER_THREADS)
reduce_cluster_kernel(const typename R::storage *__restrict__ in, wk_reduce_plan plan, void *out)
{
    using P = typename R::partial;
    __shared__ P scratch[block_scratch_size];
    __shared__ P ranked[WK_CLUSTER_BLOCKS];
    const combiner<R> op;
    const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    /* Arrive now, wait before writing into the first block's shared
     * memory: by then every block of the cluster has started. */
    auto started = cluster.barrier_arrive();
    wait_for_previous_kernel();

    P acc = fold_thread_share<R, WK_CLUSTER_UNROLL>(in, plan);
    allow_next_kernel();
    acc = block_reduce(acc, op, scratch);
    cluster.barrier_wait(std::move(started));
    if (threadIdx.x == 0)
        *cluster.map_shared_rank(&ranked[cluster.block_rank()], 0) = acc;
    cluster.sync(); /* release and acquire: the first block sees every partial */
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        P total = ranked[0];
        for (unsigned r = 1; r < WK_CLUSTER_BLOCKS; ++r)
            total = R::combine(total, ranked[r]);
        R::store_result(out, total);
    }
}

/* Launches the cluster kernel: WK_CLUSTER_BLOCKS blocks, one cluster. */
template <class R> inline cudaError_t launch_cluster(const wk_reduce_launch *l)
{
    cudaLaunchAttribute attributes[2];
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = WK_CLUSTER_BLOCKS;
    attributes[0].val.clusterDim.y = 1;
    attributes[0].val.clusterDim.z = 1;
    attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[1].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(WK_CLUSTER_BLOCKS);
    config.blockDim = dim3(WK_CLUSTER_THREADS);
    config.stream = l->stream;
    config.attrs = attributes;
    config.numAttrs = l->overlap_launch ? 2 : 1;
    return cudaLaunchKernelEx(&config, reduce_cluster_kernel<R>, static_cast<const typename R::storage *>(l->in),
                              l->plan, l->out);
}

/* The tiles shape (plan.h): each block reads its tiles with every load of a
 * tile in flight at once (two rounds for 8-byte elements), block 0 the
 * scalar head and tail too. The last block of each group of WK_TILES_GROUP
 * combines the group's partials (each thread a stride of them, then the
 * block's tree), and the last group's the groups' partials: the order of
 * every combination depends only on n and the alignment. */
template <class R>
__global__ void __launch_bounds__(WK_TILES_THREADS)
reduce_tiles_kernel(const typename R::storage *__restrict__ in, wk_reduce_plan plan, void *out,
                    typename R::partial *partials, unsigned *ticket)
{
    using S = typename R::storage;
    using V = vec<S>;
    using P = typename R::partial;
    constexpr int in_flight = WK_TILES_IN_FLIGHT(V::size);
    constexpr unsigned tile_vectors = WK_TILES_THREADS * WK_TILES_VECTORS;
    constexpr unsigned round_vectors = WK_TILES_THREADS * in_flight;
    static_assert(WK_TILES_VECTORS % in_flight == 0, "a tile is whole rounds of loads");
    __shared__ P scratch[block_scratch_size];
    __shared__ bool last_block;
    const combiner<R> op;
    wait_for_previous_kernel();

    P acc = R::identity();
    if (blockIdx.x == 0 && threadIdx.x < plan.head)
        acc = R::combine(acc, R::element(in[threadIdx.x], (long long)threadIdx.x));
    const V *body = reinterpret_cast<const V *>(in + plan.head);
    const long long body_index = (long long)plan.head;
    const size_t first = (size_t)blockIdx.x * plan.tiles_per_block * tile_vectors + threadIdx.x;
    const unsigned rounds = plan.tiles_per_block * (WK_TILES_VECTORS / in_flight);
    for (unsigned r = 0; r < rounds; ++r) {
        const size_t base = first + (size_t)r * round_vectors;
        V v[in_flight];
#pragma unroll
        for (int u = 0; u < in_flight; ++u)
            if (base + u * WK_TILES_THREADS < plan.nvec)
                v[u] = load_vec(body + base + u * WK_TILES_THREADS);
#pragma unroll
        for (int u = 0; u < in_flight; ++u)
            if (base + u * WK_TILES_THREADS < plan.nvec)
                acc = R::fold(acc, v[u].e, body_index + (long long)((base + u * WK_TILES_THREADS) * V::size));
    }
    if (blockIdx.x == 0 && threadIdx.x < plan.tail) {
        size_t k = plan.head + plan.nvec * V::size + threadIdx.x;
        acc = R::combine(acc, R::element(in[k], (long long)k));
    }
    allow_next_kernel();
    acc = block_reduce(acc, op, scratch);

    if (gridDim.x == 1) {
        if (threadIdx.x == 0)
            R::store_result(out, acc);
        return;
    }
    const unsigned group = blockIdx.x / WK_TILES_GROUP, group_first = group * WK_TILES_GROUP;
    const unsigned in_group = gridDim.x - group_first < WK_TILES_GROUP ? gridDim.x - group_first : WK_TILES_GROUP;
    const unsigned groups = (gridDim.x + WK_TILES_GROUP - 1) / WK_TILES_GROUP;
    P *group_partials = partials + WK_TILES_MAX_BLOCKS;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> group_ticket(ticket[1 + group]), top_ticket(ticket[0]);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        /* Release publishes the partial; acquire lets the group's last
         * block see every other one. */
        last_block = group_ticket.fetch_add(1u, cuda::memory_order_acq_rel) == in_group - 1;
    }
    __syncthreads();
    if (!last_block)
        return;

    /* The group's partials, every load in flight at once. */
    constexpr int per_thread = WK_TILES_GROUP / WK_TILES_THREADS;
    P part[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
        const unsigned b = threadIdx.x + j * WK_TILES_THREADS;
        part[j] = b < in_group ? R::load_partial(partials + group_first + b) : R::identity();
    }
    acc = R::identity();
#pragma unroll
    for (int j = 0; j < per_thread; ++j)
        acc = R::combine(acc, part[j]);
    __syncthreads(); /* the scratch is used again */
    acc = block_reduce(acc, op, scratch);
    if (groups == 1) {
        if (threadIdx.x == 0) {
            R::store_result(out, acc);
            group_ticket.store(0u, cuda::memory_order_relaxed); /* ready for the next launch */
        }
        return;
    }
    if (threadIdx.x == 0) {
        group_ticket.store(0u, cuda::memory_order_relaxed);
        group_partials[group] = acc;
        last_block = top_ticket.fetch_add(1u, cuda::memory_order_acq_rel) == groups - 1;
    }
    __syncthreads();
    if (!last_block)
        return;
    acc = threadIdx.x < groups ? R::load_partial(group_partials + threadIdx.x) : R::identity();
    __syncthreads();
    acc = block_reduce(acc, op, scratch);
    if (threadIdx.x == 0) {
        R::store_result(out, acc);
        top_ticket.store(0u, cuda::memory_order_relaxed);
    }
}

template <class R> inline cudaError_t launch_reducer(const wk_reduce_launch *l)
{
    static_assert(WK_TILES_MAX_GROUPS < 64, "the groups' tickets fit the workspace's 256-byte ticket slot");
    static_assert(WK_TILES_MAX_GROUPS <= WK_TILES_THREADS, "one block folds the groups' partials");
    if (l->plan.shape == WK_SHAPE_CLUSTER)
        return launch_cluster<R>(l);
    if (l->plan.shape == WK_SHAPE_TILES)
        return launch_chained(reduce_tiles_kernel<R>, l->plan.grid, l->plan.block, 0, l->stream,
                              l->overlap_launch != 0, static_cast<const typename R::storage *>(l->in), l->plan,
                              l->out, static_cast<typename R::partial *>(l->partials), l->ticket);
    auto kernel = l->plan.shape == WK_SHAPE_DEEP
                      ? reduce_kernel<R, WK_DEEP_THREADS, WK_DEEP_BLOCKS_PER_SM, WK_DEEP_UNROLL>
                      : reduce_kernel<R, WK_WIDE_THREADS, WK_WIDE_BLOCKS_PER_SM, WK_WIDE_UNROLL>;
    return launch_chained(kernel, l->plan.grid, l->plan.block, 0, l->stream, l->overlap_launch != 0,
                          static_cast<const typename R::storage *>(l->in), l->plan, l->out,
                          static_cast<typename R::partial *>(l->partials), l->ticket);
}

/* Picks the reducer for an op (common/operators.cuh). */
template <class S> inline cudaError_t launch_for_op(const wk_reduce_launch *l)
{
    static_assert(sizeof(indexed<double>) <= WK_REDUCE_PARTIAL_BYTES, "partial slot too small");
    return with_operator<S, true>(l->op, [&](auto tag) {
        using Op = typename decltype(tag)::type;
        if constexpr (is_arg_op<Op>::value)
            return l->index_only ? launch_reducer<arg<S, Op, true>>(l) : launch_reducer<arg<S, Op>>(l);
        else
            return launch_reducer<plain<S, Op>>(l);
    });
}

} // namespace reduce
} // namespace wk

/* The widening sums of one dtype (common/dtypes.h's WK_WIDER_SUMS_ list),
 * by output dtype; S names the input's storage where it is expanded. */
#define WK_REDUCE_WIDER_CASE_(out_code, type)                                                           \
    case out_code: return wk::reduce::launch_reducer<wk::reduce::plain<S, wk::sum, type>>(l);

/* wk_reduce_launch_<name> (common/c_launcher.cuh): the op's reduce, or with
 * l->widen a sum into l->out_dtype. */
#define WK_DEFINE_REDUCE_LAUNCHER(name, code, storage)                                                  \
    WK_DEFINE_WIDENING_C_LAUNCHER(wk_reduce_launch_##name, wk_reduce_launch, code, storage,             \
                                  wk::reduce::launch_for_op<storage>, WK_REDUCE_WIDER_CASE_)

#endif
