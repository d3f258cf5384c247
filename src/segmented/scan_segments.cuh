/* The segmented scans: every segment scanned on its own, by a thread (rows
 * of at most 32 bytes) or a warp (rows up to a group row), carrying the
 * running prefix from one chunk of the segment to the next; short rows that
 * lie end to end are scanned several to a warp (scan_joined_rows.cuh), and
 * longer rows take the device-wide scan's tiles (row_tiles.cuh).
 * The offsets layout takes batches of 32 segments per warp: a segment of a
 * few elements is scanned by its own lane, any other by the whole warp. */
#ifndef WARPKIT_SEGMENTED_SCAN_SEGMENTS_CUH
#define WARPKIT_SEGMENTED_SCAN_SEGMENTS_CUH

#include "common/chained_launch.cuh"
#include "common/value.cuh"
#include "segmented/fold.cuh"
#include "segmented/plan.h"
#include "segmented/pieces.cuh"
#include "scan/carried_value.cuh"
#include "scan/scan_kernel.cuh"

#include <type_traits>

namespace wk {
namespace seg {

using scan::carried;
using scan::neutral;
using scan::outputs_t;
using scan::vector_outputs;
using scan::vector_total;

/* The lanes that scan one segment together: a warp. */
struct warp_team {
    __device__ unsigned rank() const { return lane_id(); }
    __device__ unsigned size() const { return 32; }
    /* The values of the lanes before this one, combined, and all of them. */
    template <class P, class Op> __device__ P exclusive(P v, Op op, P &total) const
    {
        const P inclusive = warp_inclusive_scan(v, op);
        total = shfl(full_mask, inclusive, 31);
        return shfl_up(full_mask, inclusive, 1); /* lane 0's is not used */
    }
};

/* Stores a whole vector's outputs at `out` (16-byte aligned): one vector
 * store, or for a widening scan (C::out wider than S) as many as they fill. */
template <class C, class S> __device__ inline void store_outputs(typename C::out *out, const outputs_t<C, S> &y)
{
    using O = typename C::out;
    if constexpr (std::is_same<O, S>::value) {
        store_vec(reinterpret_cast<vec<S> *>(out), y);
    } else {
        constexpr int per = vec<O>::size;
        static_assert(vec<S>::size % per == 0, "a vector's outputs are whole output vectors");
#pragma unroll
        for (int k = 0; k < vec<S>::size / per; ++k) {
            vec<O> v;
#pragma unroll
            for (int j = 0; j < per; ++j)
                v.e[j] = y.e[k * per + j];
            store_vec(reinterpret_cast<vec<O> *>(out) + k, v);
        }
    }
}

/* Whether the outputs of a range's whole vectors lie on 16-byte boundaries,
 * its first whole vector at in + first (on one): for outputs of S, out at
 * in's offset from a boundary, a test outside the loops. */
template <class C, class S>
__device__ inline bool outputs_aligned(const S *in, const typename C::out *out, long long first)
{
    if constexpr (std::is_same<typename C::out, S>::value)
        return (reinterpret_cast<uintptr_t>(out) - reinterpret_cast<uintptr_t>(in)) % 16 == 0;
    else
        return reinterpret_cast<uintptr_t>(out + first) % 16 == 0;
}

/* One chunk of the segment: up to one vector per lane (or one element, as
 * a vector with `valid` elements). Writes the outputs (as C::out) and
 * moves `carry` past the chunk. `vector_store`: a whole vector's outputs
 * lie on a 16-byte boundary. */
template <bool Exclusive, class C, class S, class Op, class Team>
__device__ inline void scan_chunk(const Team &team, const vec<S> &x, int valid, typename C::out *out,
                                  bool vector_store, typename C::type &carry, Op op)
{
    using P = typename C::type;
    P total = neutral<P>(op);
    for (int e = 0; e < valid; ++e)
        total = op(total, C::enter(x.e[e]));
    P chunk_total;
    const P before = team.exclusive(total, op, chunk_total);
    const P run = team.rank() == 0 ? carry : op(carry, before);
    if (valid == vec<S>::size && vector_store) {
        store_outputs<C, S>(out, vector_outputs<Exclusive, C>(x, run, op));
    } else {
        P r = run;
        for (int e = 0; e < valid; ++e) {
            const P next = op(r, C::enter(x.e[e]));
            out[e] = C::leave(Exclusive ? r : next);
            r = next;
        }
    }
    carry = op(carry, chunk_total);
}

/* What scan_range folds beside its scan from the same loads: nothing, or
 * each lane's elements in the order fold_range folds them (fold.cuh: the
 * head element, the vectors rank, rank + 32, ..., the tail element), so
 * that the lanes' partials combined give fold_range's bits. */
struct no_total {
    template <class S> __device__ void element(S, long long) {}
    template <class V> __device__ void vector(const V &, long long) {}
};
template <class R> struct lane_total {
    typename R::partial acc = R::identity();
    __device__ void element(typename R::storage x, long long index) { acc = R::combine(acc, R::element(x, index)); }
    __device__ void vector(const vec<typename R::storage> &x, long long index) { acc = R::fold(acc, x.e, index); }
};

/* Scans in[begin .. end) into out[begin .. end) with the team, starting
 * from `carry`, carrying and writing as C says (carried_value.cuh): a
 * scalar chunk up to the input's 16-byte boundary, chunks of a vector per
 * lane (Unroll chunks loaded before the first is scanned), a scalar chunk
 * for the tail. `total` folds the lane's elements beside, with indices
 * counted from `origin`. */
template <bool Exclusive, class C, class S, class Op, class Team, class Total>
__device__ inline void scan_range(const Team &team, const S *in, typename C::out *out, long long begin,
                                  long long end, typename C::type carry, Op op, Total &total, long long origin)
{
    using V = vec<S>;
    constexpr int U = WK_SEG_UNROLL;
    const long long len = end - begin;
    if (len <= 0)
        return;
    const unsigned rank = team.rank(), lanes = team.size();
    const unsigned misaligned = (unsigned)(reinterpret_cast<uintptr_t>(in + begin) % sizeof(V)) / sizeof(S);
    long long head = misaligned ? (long long)(V::size - misaligned) : 0;
    if (head > len)
        head = len;
    const bool vector_store = outputs_aligned<C>(in, out, begin + head);
    V x;
    long long pos = begin;
    for (long long done = 0; done < head; done += lanes) { /* lanes >= vector size: one round */
        const long long k = done + rank;
        x.e[0] = k < head ? in[begin + k] : S();
        if (k < head)
            total.element(x.e[0], begin + k - origin);
        scan_chunk<Exclusive, C>(team, x, k < head ? 1 : 0, out + begin + k, false, carry, op);
    }
    pos = begin + head;
    const long long nvec = (len - head) / V::size;
    const V *body = reinterpret_cast<const V *>(in + pos);
    for (long long i0 = 0; i0 < nvec; i0 += (long long)U * lanes) {
        V xs[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long i = i0 + (long long)u * lanes + rank;
            if (i < nvec)
                xs[u] = load_vec_coherent(body + i);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long chunk = i0 + (long long)u * lanes;
            if (chunk >= nvec)
                break; /* the same for every lane */
            const long long i = chunk + rank;
            if (i < nvec)
                total.vector(xs[u], pos + i * V::size - origin);
            scan_chunk<Exclusive, C>(team, xs[u], i < nvec ? V::size : 0, out + pos + i * V::size, vector_store,
                                     carry, op);
        }
    }
    pos += nvec * V::size;
    for (long long done = 0; pos + done < end; done += lanes) {
        const long long k = pos + done + rank;
        x.e[0] = k < end ? in[k] : S();
        if (k < end)
            total.element(x.e[0], k - origin);
        scan_chunk<Exclusive, C>(team, x, k < end ? 1 : 0, out + k, false, carry, op);
    }
}

template <bool Exclusive, class C, class S, class Op, class Team>
__device__ inline void scan_range(const Team &team, const S *in, typename C::out *out, long long begin,
                                  long long end, typename C::type carry, Op op)
{
    no_total none;
    scan_range<Exclusive, C>(team, in, out, begin, end, carry, op, none, begin);
}

/* What a segment's scan starts from: the exclusive scan's init (a value of
 * the output's dtype), else the op's identity. */
template <class C, class S, class Op, bool Exclusive>
__device__ inline typename C::type scan_start(const wk_value &init, Op op)
{
    using O = typename C::out;
    if constexpr (!Exclusive)
        return neutral<typename C::type>(op);
    else if constexpr (std::is_same<O, S>::value)
        return C::enter(value_of<S>(init));
    else
        return C::enter_out(value_of<O>(init));
}

/* One thread scans a segment alone. */
template <class C, class S, class Op, bool Exclusive>
__device__ inline void scan_alone(const S *in, typename C::out *out, long long begin, long long end,
                                  const wk_value &init, Op op)
{
    typename C::type run = scan_start<C, S, Op, Exclusive>(init, op);
    for (long long k = begin; k < end; ++k) {
        const typename C::type next = op(run, C::enter(in[k]));
        out[k] = C::leave(Exclusive ? run : next);
        run = next;
    }
}

struct scan_rows_args {
    size_t count, size, stride;
    wk_value init;
};

/* A thread per row of at most 32 bytes. C: what is carried, for a widening
 * sum widened_sum (carried_value.cuh). */
template <class S, class Op, bool Exclusive, class C = carried<S, Op>>
__global__ void __launch_bounds__(WK_SEG_THREADS) tiny_scan_kernel(const S *in, typename C::out *out,
                                                                   scan_rows_args a)
{
    wait_for_previous_kernel();
    allow_next_kernel();
    const Op op;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x; row < a.count; row += threads) {
        const long long begin = (long long)(row * a.stride);
        scan_alone<C, S, Op, Exclusive>(in, out, begin, begin + (long long)a.size, a.init, op);
    }
}

/* A warp per row. */
template <class S, class Op, bool Exclusive, class C = carried<S, Op>>
__global__ void __launch_bounds__(WK_SEG_THREADS) warp_scan_kernel(const S *in, typename C::out *out,
                                                                   scan_rows_args a)
{
    wait_for_previous_kernel();
    allow_next_kernel();
    const Op op;
    const warp_team team;
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < a.count; row += warps) {
        const long long begin = (long long)(row * a.stride);
        scan_range<Exclusive, C>(team, in, out, begin, begin + (long long)a.size,
                                 scan_start<C, S, Op, Exclusive>(a.init, op), op);
    }
}

/* The scan's op as a reducer of fold.cuh, for the totals of pieces. */
template <class S, class Op, class Carried = carried<S, Op>> struct scan_totals {
    using storage = S;
    using C = Carried;
    using partial = typename C::type;
    static __device__ partial identity() { return neutral<partial>(Op{}); }
    static __device__ partial element(S x, long long) { return C::enter(x); }
    static __device__ partial combine(partial a, partial b) { return Op{}(a, b); }
    static __device__ partial load_partial(const partial *p) { return __ldcg(p); }
    template <int N> static __device__ partial fold(partial acc, const S (&x)[N], long long)
    {
#pragma unroll
        for (int j = 0; j < N; ++j)
            acc = Op{}(acc, C::enter(x[j]));
        return acc;
    }
};

struct scan_offsets_args {
    size_t count;
    long long n;
    const long long *begin, *end;
    wk_value init;
    wk_seg_board *board;
    wk_seg_cut cut;
    unsigned long long batches_per_claim;
};

/* Spins (lane 0) until the counter reaches `want`; the warp then sees
 * everything written before it got there. The spin reads relaxed (an
 * acquire read invalidates the SM's L1 at every poll) and one fence
 * follows. */
__device__ inline void wait_for_count(unsigned *counter, unsigned want)
{
    if (lane_id() == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
        while (c.load(cuda::memory_order_relaxed) < want)
            __nanosleep(256);
        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    }
    __syncwarp();
}

/* A long segment scanned by one warp, piece by piece in order, each piece
 * from the totals of the pieces before it folded as the second pass folds
 * them: the same bits whether or not the segment found room on the board.
 * A piece's total (warp_piece's bits) is folded from the loads that scan
 * it, so the segment is read once. */
template <bool Exclusive, class R, class S, class Op, class Team>
__device__ inline void scan_in_pieces(const Team &team, const S *in, typename R::C::out *out, long long lo,
                                      long long hi, typename R::partial carry, Op op, const wk_seg_cut &cut)
{
    using C = typename R::C;
    const long long count = piece_count(hi - lo, cut);
    if (count == 1) {
        scan_range<Exclusive, C>(team, in, out, lo, hi, carry, op);
        return;
    }
    const long long len = piece_length(hi - lo, cut);
    for (long long q = 0; q < count; ++q) {
        const long long b = lo + q * len, e = b + len < hi ? b + len : hi;
        if (q + 1 == count) {
            scan_range<Exclusive, C>(team, in, out, b, e, carry, op);
            break;
        }
        lane_total<R> total;
        scan_range<Exclusive, C>(team, in, out, b, e, carry, op, total, lo);
        carry = op(carry, group_allreduce<R, 32>(total.acc));
    }
}

/* The offsets layout, in the reduce's two phases (reduce_offsets.cuh):
 * batches of 32 segments per warp, a segment of a few elements scanned by
 * its lane and one up to the call's long length by the warp; longer ones
 * are listed and cut into pieces (the scan's cut, plan.h). Their scan takes
 * two passes over the pieces, each piece one warp: the totals of every
 * piece, then, once every total is written, each piece scanned from the
 * total of the pieces before it. Long segments are read twice, so that no
 * warp waits on a piece another warp has not reached. */
template <class S, class Op, bool Exclusive, class C = carried<S, Op>>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM)
offsets_scan_kernel(const S *in, typename C::out *out, scan_offsets_args a)
{
    using R = scan_totals<S, Op, C>;
    using P = typename R::partial;
    wait_for_previous_kernel();
    allow_next_kernel();
    const Op op;
    const warp_team team;
    const unsigned lane = lane_id();
    wk_seg_board *board = a.board;
    wk_seg_counters &c = board->counters;
    const unsigned long long batches = (a.count + 31) / 32;
    bool builder = false;
    for (;;) {
        unsigned long long first = 0;
        if (lane == 0)
            first = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(c.next_batch)
                        .fetch_add(a.batches_per_claim, cuda::memory_order_relaxed);
        first = shfl(full_mask, first, 0);
        if (first >= batches)
            break;
        const unsigned long long stop = first + a.batches_per_claim < batches ? first + a.batches_per_claim : batches;
        for (unsigned long long b = first; b < stop; ++b) {
            const size_t seg = b * 32 + lane;
            const bool valid = seg < a.count;
            long long lo = 0, hi = 0;
            if (valid) {
                lo = clamp_offset(a.begin[seg], a.n);
                hi = clamp_offset(a.end[seg], a.n);
                if (hi < lo)
                    hi = lo;
            }
            if (valid && hi - lo <= tiny_len)
                scan_alone<C, S, Op, Exclusive>(in, out, lo, hi, a.init, op);
            unsigned rest = __ballot_sync(full_mask, valid && hi - lo > tiny_len);
            while (rest) {
                const int j = __ffs(rest) - 1;
                rest &= rest - 1;
                const long long jlo = shfl(full_mask, lo, j), jhi = shfl(full_mask, hi, j);
                unsigned slot = WK_SEG_LIST_CAPACITY;
                if (jhi - jlo > a.cut.long_len && lane == 0) {
                    slot = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.listed).fetch_add(
                        1u, cuda::memory_order_relaxed);
                    if (slot < WK_SEG_LIST_CAPACITY) {
                        board->segment[slot] = b * 32 + j;
                        board->begin[slot] = jlo;
                        board->end[slot] = jhi;
                    }
                }
                if (shfl(full_mask, slot, 0) >= WK_SEG_LIST_CAPACITY)
                    scan_in_pieces<Exclusive, R>(team, in, out, jlo, jhi, scan_start<C, S, Op, Exclusive>(a.init, op), op, a.cut);
            }
        }
        if (lane == 0) {
            const unsigned long long before =
                cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(c.batches_done)
                    .fetch_add(stop - first, cuda::memory_order_acq_rel);
            builder = before + (stop - first) == batches;
        }
    }
    if (shfl(full_mask, builder, 0))
        build_piece_table(board, a.cut);
    wait_for_count(&c.table_ready, 1u);

    /* The totals of the split entries' pieces. */
    P *totals = reinterpret_cast<P *>(board->partials);
    const unsigned pieces = __ldcg(&c.pieces), split = __ldcg(&c.split_entries), entries = __ldcg(&c.entries);
    for (;;) {
        unsigned item = 0;
        if (lane == 0)
            item = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.next_item).fetch_add(
                1u, cuda::memory_order_relaxed);
        item = shfl(full_mask, item, 0);
        if (item >= pieces)
            break;
        unsigned lo_e = 0, hi_e = split - 1;
        while (lo_e < hi_e) {
            const unsigned mid = (lo_e + hi_e + 1) / 2;
            if (__ldcg(&board->first_piece[mid]) <= item)
                lo_e = mid;
            else
                hi_e = mid - 1;
        }
        const P total = warp_piece<R>(in, __ldcg(&board->begin[lo_e]), __ldcg(&board->end[lo_e]),
                                      item - __ldcg(&board->first_piece[lo_e]), a.cut);
        if (lane == 0) {
            totals[item] = total;
            cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.aggregated).fetch_add(1u,
                                                                                         cuda::memory_order_release);
        }
    }
    wait_for_count(&c.aggregated, pieces);

    /* Each piece from the totals before it; then the entries that were not
     * split, a warp each. */
    const unsigned items = pieces + (entries - split);
    for (;;) {
        unsigned item = 0;
        if (lane == 0)
            item = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.next_scan_item).fetch_add(
                1u, cuda::memory_order_relaxed);
        item = shfl(full_mask, item, 0);
        if (item >= items)
            break;
        if (item >= pieces) {
            const unsigned e = split + (item - pieces);
            scan_in_pieces<Exclusive, R>(team, in, out, __ldcg(&board->begin[e]), __ldcg(&board->end[e]),
                                         scan_start<C, S, Op, Exclusive>(a.init, op), op, a.cut);
            continue;
        }
        unsigned lo_e = 0, hi_e = split - 1;
        while (lo_e < hi_e) {
            const unsigned mid = (lo_e + hi_e + 1) / 2;
            if (__ldcg(&board->first_piece[mid]) <= item)
                lo_e = mid;
            else
                hi_e = mid - 1;
        }
        const unsigned first = __ldcg(&board->first_piece[lo_e]);
        const long long slo = __ldcg(&board->begin[lo_e]), shi = __ldcg(&board->end[lo_e]);
        P carry = scan_start<C, S, Op, Exclusive>(a.init, op);
        for (unsigned q0 = first; q0 < item; q0 += 32) {
            const P t = q0 + lane < item ? R::load_partial(totals + q0 + lane) : R::identity();
            const unsigned here = item - q0 < 32 ? item - q0 : 32;
            for (unsigned q = 0; q < here; ++q)
                carry = op(carry, shfl(full_mask, t, (int)q));
        }
        const long long len = piece_length(shi - slo, a.cut);
        const long long b = slo + (long long)(item - first) * len;
        scan_range<Exclusive, C>(team, in, out, b, b + len < shi ? b + len : shi, carry, op);
    }

    if (lane == 0) {
        const unsigned warps = gridDim.x * (blockDim.x / 32);
        if (cuda::atomic_ref<unsigned, cuda::thread_scope_device>(c.warps_done)
                .fetch_add(1u, cuda::memory_order_acq_rel) == warps - 1) {
            c.next_batch = 0;
            c.batches_done = 0;
            c.listed = 0;
            c.table_ready = 0;
            c.next_item = 0;
            c.pieces = 0;
            c.split_entries = 0;
            c.entries = 0;
            c.aggregated = 0;
            c.next_scan_item = 0;
            c.warps_done = 0;
        }
    }
}

} // namespace seg
} // namespace wk

#endif
