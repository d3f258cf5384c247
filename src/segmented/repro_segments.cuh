/* The segmented reproducible sum (docs/segmented.md, docs/repro.md): each
 * segment's elements go into the bins of the reproducible sum
 * (repro/binned.h) and are rounded once. The bins do not depend on the order
 * of the additions or on who adds, so each result has the bits of
 * wk_reduce_repro over that segment alone, whatever the shape. An f32
 * segment whose exact sum a double holds (repro/exact_sum.cuh) is summed in
 * that double instead, to the same bits.
 *
 * Five kernels (plan.h):
 *  - tiny: rows of at most 32 bytes, a thread each;
 *  - batches: a warp takes `group` segments; a lane sums a short one alone,
 *    with a top of its own, and the whole warp sums each longer one; the
 *    partials wait in shared memory and each lane rounds one, so that the
 *    rounding, the costliest step of a short segment, runs 32 wide. An
 *    offsets segment over long_len is listed on the board instead;
 *  - listed: the listed segments' pieces, a warp each; the last warp of a
 *    segment to finish combines its pieces' partials and rounds;
 *  - pieces: the same for few long rows, whose pieces the plan knows;
 *  - joined: short f32 offsets segments, 128 a warp, summed at once in
 *    doubles where they lie end to end and prove exact, else as batches. */
#ifndef WARPKIT_SEGMENTED_REPRO_SEGMENTS_CUH
#define WARPKIT_SEGMENTED_REPRO_SEGMENTS_CUH

#include "common/c_launcher.cuh"
#include "segmented/board.h"
#include "segmented/fold.cuh"
#include "segmented/joined_runs.cuh"
#include "segmented/launch.h"
#include "repro/exact_sum.cuh"
#include "repro/repro_kernel.cuh"

#include <cuda/atomic>

namespace wk {
namespace seg {

using device_atomic_u32 = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
using device_atomic_u64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

struct repro_args {
    const void *in;
    void *out;
    int format;          /* the output dtype's code (repro/launch.h)       */
    size_t elem;         /* bytes per element                              */
    size_t count, size, stride;
    const long long *begin, *end; /* offsets layout, else null */
    unsigned group;      /* batches: segments a warp takes                 */
    long long lane_len;  /* batches: longest segment a lane sums alone     */
    long long long_len;  /* batches: longest one the warp sums (0: any)     */
    size_t pieces;       /* pieces: per row                                */
    size_t piece_len;    /* pieces, listed: elements a piece               */
    wk_seg_board *board;
};

/* Segment i's elements [lo, hi), clamped into the input for offsets. */
__device__ inline void repro_bounds(const repro_args &a, size_t i, long long &lo, long long &hi)
{
    if (a.begin) {
        lo = clamp_offset(a.begin[i], (long long)a.size);
        hi = clamp_offset(a.end[i], (long long)a.size);
        if (hi < lo)
            hi = lo;
    } else {
        lo = (long long)(i * a.stride);
        hi = lo + (long long)a.size;
    }
}

/* ------------------------------------------------------- the two sums */

/* The bins of one lane (Own) or of the warp, its lanes sharing a top. */
template <class E, bool Own> struct bins_sum {
    repro::lane_sum s;
    __device__ bins_sum() { repro::start<E>(s); }
    template <int N> __device__ void add(typename E::raw (&r)[N])
    {
        if constexpr (Own)
            repro::add_own_elements<E>(s, r);
        else
            repro::add_elements<E>(s, r);
    }
};

/* The double sum of f32 elements that may prove itself exact. */
struct double_sum {
    repro::exact_sum x;
    __device__ double_sum() { repro::exact_start(x); }
    template <int N> __device__ void add(const uint32_t (&r)[N])
    {
#pragma unroll
        for (int i = 0; i < N; ++i)
            repro::exact_add(x, r[i]);
    }
};

/* ------------------------------------------------- reading a segment */

/* One round of 16-byte vectors, body[first + u * stride] for u <
 * WK_SEG_UNROLL (those below nvec; the others as fillers), all loaded
 * before any is added, and added 16 elements a call at most (8 of a 16-bit
 * dtype). */
template <class E, class Sum>
__device__ inline void add_round(Sum &sum, const uint4 *body, size_t first, size_t stride, size_t nvec)
{
    uint4 v[WK_SEG_UNROLL];
    bool present[WK_SEG_UNROLL];
    repro::load_vectors(body, first, stride, nvec, v, present);
    repro::for_each_batch<E>(v, present, [&](auto &r) { sum.add(r); });
}

/* The elements before in[lo .. hi)'s first 16-byte boundary. */
template <class E> __device__ inline long long head_length(const void *in, long long lo, long long hi)
{
    constexpr long long per = E::per_vector;
    const long long misaligned =
        (long long)(reinterpret_cast<uintptr_t>(repro::element_at<E>(in, (size_t)lo)) % 16) * per / 16;
    const long long head = misaligned ? per - misaligned : 0;
    return head < hi - lo ? head : hi - lo;
}

/* in[lo .. hi) into one lane's sum: a scalar head, vectors, a scalar tail. */
template <class E, class Sum> __device__ inline void add_own_range(Sum &sum, const void *in, long long lo, long long hi)
{
    using namespace repro;
    constexpr long long per = E::per_vector;
    const long long head = head_length<E>(in, lo, hi);
    typename E::raw r[1];
    for (long long k = lo; k < lo + head; ++k) {
        r[0] = scalar<E>(element_at<E>(in, (size_t)k), true);
        sum.add(r);
    }
    const size_t nvec = (size_t)((hi - lo - head) / per);
    const uint4 *body = reinterpret_cast<const uint4 *>(element_at<E>(in, (size_t)(lo + head)));
    for (size_t i = 0; i < nvec; i += WK_SEG_UNROLL)
        add_round<E>(sum, body, i, 1, nvec);
    for (long long k = lo + head + (long long)nvec * per; k < hi; ++k) {
        r[0] = scalar<E>(element_at<E>(in, (size_t)k), true);
        sum.add(r);
    }
}

/* in[lo .. hi) into the warp's sum, every lane calling: a lane's share of
 * the head, the vectors a warp apart, and the tail. */
template <class E, class Sum>
__device__ inline void add_warp_range(Sum &sum, const void *in, long long lo, long long hi)
{
    using namespace repro;
    constexpr long long per = E::per_vector;
    const unsigned lane = lane_id();
    const long long len = hi - lo, head = head_length<E>(in, lo, hi);
    typename E::raw r[1];
    for (long long k = 0; k < head; k += 32) {
        r[0] = scalar<E>(element_at<E>(in, (size_t)(lo + k + lane)), k + lane < head);
        sum.add(r);
    }
    const size_t nvec = (size_t)((len - head) / per);
    const uint4 *body = reinterpret_cast<const uint4 *>(element_at<E>(in, (size_t)(lo + head)));
    for (size_t i = lane; i - lane < nvec; i += (size_t)WK_SEG_UNROLL * 32)
        add_round<E>(sum, body, i, 32, nvec);
    for (long long k = head + (long long)nvec * per; k < len; k += 32) {
        r[0] = scalar<E>(element_at<E>(in, (size_t)(lo + k + lane)), k + lane < len);
        sum.add(r);
    }
}

/* in[lo .. hi) by the whole warp in the bins; every lane ends with the
 * warp's canonical partial. */
template <class E> __device__ inline wk_rp warp_bins_partial(const void *in, long long lo, long long hi)
{
    bins_sum<E, false> sum;
    add_warp_range<E>(sum, in, lo, hi);
    return repro::lane_partial(sum.s, E::sign_mask);
}

/* ------------------------------------------------- one segment's sum */

/* The f32 bits of in[lo .. hi) summed alone by this lane in a double, in
 * `bits`, if that sum proves exact. */
template <class E> __device__ inline bool own_exact(const void *in, long long lo, long long hi, uint32_t &bits)
{
    if constexpr (E::format == 4) {
        double_sum sum;
        add_own_range<E>(sum, in, lo, hi);
        bits = repro::exact_result(sum.x, hi - lo);
        return repro::exact_holds(sum.x, hi - lo);
    }
    return false;
}

/* The same by the whole warp; every lane gets the answer. Segments longer
 * than WK_SEG_REPRO_EXACT_LEN seldom prove exact (their exponents must
 * span fewer binades the longer they are) and would be read twice. */
template <class E> __device__ inline bool warp_exact(const void *in, long long lo, long long hi, uint32_t &bits)
{
    if constexpr (E::format == 4) {
        if (hi - lo > WK_SEG_REPRO_EXACT_LEN)
            return false;
        double_sum sum;
        add_warp_range<E>(sum, in, lo, hi);
        repro::exact_sum &x = sum.x;
        x.high = __reduce_max_sync(repro::all_lanes, x.high);
        x.low = __reduce_min_sync(repro::all_lanes, x.low);
#pragma unroll
        for (int m = 16; m >= 1; m >>= 1)
            x.sum += __shfl_xor_sync(repro::all_lanes, x.sum, m);
        bits = repro::exact_result(x, hi - lo);
        return repro::exact_holds(x, hi - lo);
    }
    return false;
}

/* Writes segment i's result: the rounded partial, or f32 bits. */
__device__ inline void write_partial(const repro_args &a, size_t i, const wk_rp &p, bool nonempty)
{
    repro::write_result(static_cast<char *>(a.out) + i * a.elem, p, a.format, nonempty);
}
__device__ inline void write_bits(const repro_args &a, size_t i, uint32_t bits)
{
    static_cast<uint32_t *>(a.out)[i] = bits;
}

/* ------------------------------------------ long segments in pieces */

/* Puts segment i = in[lo .. hi) on the board's list with numbers for its
 * pieces; false, in every lane, when the list or the pieces are full. One
 * number counts entries and pieces, so that entries come in the order of
 * their pieces and neither overflows the other; once one does not fit, no
 * later one does, so the entries listed are the first counters.entries. */
__device__ inline bool list_segment(const repro_args &a, size_t i, long long lo, long long hi)
{
    wk_seg_board *board = a.board;
    const unsigned lane = lane_id();
    const long long count = (hi - lo + (long long)a.piece_len - 1) / (long long)a.piece_len;
    const unsigned pieces = count < WK_SEG_REPRO_PIECE_CAPACITY ? (unsigned)count : WK_SEG_REPRO_PIECE_CAPACITY;
    const auto fits = [&](unsigned long long at) {
        return (at >> 32) < WK_SEG_LIST_CAPACITY && (unsigned)at <= WK_SEG_REPRO_PIECE_CAPACITY - pieces;
    };
    unsigned slot = ~0u, first = 0;
    if (lane == 0 && count <= WK_SEG_REPRO_PIECE_CAPACITY) {
        device_atomic_u64 listing(board->counters.listing);
        if (fits(listing.load(cuda::memory_order_relaxed))) {
            const unsigned long long old = listing.fetch_add((1ull << 32) | pieces, cuda::memory_order_relaxed);
            if (fits(old)) {
                slot = (unsigned)(old >> 32);
                first = (unsigned)old;
                board->segment[slot] = i;
                board->begin[slot] = lo;
                board->end[slot] = hi;
                board->first_piece[slot] = first;
                device_atomic_u32(board->counters.entries).fetch_add(1u, cuda::memory_order_relaxed);
            }
        }
    }
    slot = __shfl_sync(repro::all_lanes, slot, 0);
    first = __shfl_sync(repro::all_lanes, first, 0);
    if (slot == ~0u)
        return false;
    for (unsigned q = lane; q < pieces; q += 32)
        board->piece_entry[first + q] = slot + 1;
    return true;
}

/* The warp's partial of piece `unit` of a segment (entry `row` on the
 * done counters) with `pieces` pieces whose partials start at `first`:
 * published with a ticket; the warp that takes the last combines them all
 * and writes the segment's result. */
__device__ inline void finish_piece(const repro_args &a, wk_rp p, size_t unit, unsigned row, size_t first,
                                    size_t pieces, size_t segment)
{
    using namespace repro;
    const unsigned lane = lane_id();
    wk_rp *partials = reinterpret_cast<wk_rp *>(a.board->partials);
    device_atomic_u32 done(a.board->done[row]);
    bool last = false;
    if (lane == 0) {
        partials[unit] = p;
        /* Release publishes the partial; acquire lets the last warp see
         * every other piece's. */
        last = done.fetch_add(1u, cuda::memory_order_acq_rel) == pieces - 1;
    }
    __syncwarp(); /* orders lane 0's acquire before the other lanes' reads */
    if (!__shfl_sync(all_lanes, last, 0))
        return;
    wk_rp_clear(&p);
    for (size_t q = lane; q < pieces; q += 32) {
        wk_rp other = load_partial(partials + first + q);
        wk_rp_combine(&p, &other);
    }
    wk_rp_raise(&p, (int)__reduce_max_sync(all_lanes, (unsigned)p.top));
    p = warp_sum_aligned(p);
    wk_rp_normalize(&p);
    if (lane == 0) {
        write_partial(a, segment, p, true);
        done.store(0u, cuda::memory_order_relaxed); /* ready for the next launch */
    }
}

/* ------------------------------------------------------------ kernels */

/* Rows of at most MaxLen elements (32 bytes at most), a thread each, so
 * that neighbouring threads read neighbouring rows, as the plain reduce's
 * tiny shape does. */
template <class E, int MaxLen>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM) repro_tiny_kernel(repro_args a)
{
    using namespace repro;
    wait_for_previous_kernel();
    allow_next_kernel();
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x; row < a.count; row += threads) {
        typename E::raw r[MaxLen];
#pragma unroll
        for (int k = 0; k < MaxLen; ++k)
            r[k] = scalar<E>(element_at<E>(a.in, row * a.stride + (size_t)k), (size_t)k < a.size);
        if constexpr (E::format == 4) {
            double_sum sum;
            sum.add(r);
            if (exact_holds(sum.x, (long long)a.size)) {
                write_bits(a, row, exact_result(sum.x, (long long)a.size));
                continue;
            }
        }
        bins_sum<E, true> sum;
        sum.add(r);
        write_partial(a, row, own_partial(sum.s, E::sign_mask), a.size > 0);
    }
}

/* The batch of a.group segments from `first` on, by the whole warp: a
 * lane sums a short one alone, the warp each longer one (or lists it), and
 * each lane rounds its own from `slot` (32 partials, the warp's). */
template <class E> __device__ inline void repro_batch(const repro_args &a, size_t first, wk_rp *slot)
{
    using namespace repro;
    const unsigned lane = lane_id();
    {
        const size_t seg = first + lane;
        const bool mine = lane < a.group && seg < a.count;
        long long lo = 0, hi = 0;
        if (mine)
            repro_bounds(a, seg, lo, hi);
        const bool alone = hi - lo <= a.lane_len;
        bool written = !mine; /* this lane's result is out (or it has none) */
        if (alone && mine) {
            uint32_t bits;
            if (own_exact<E>(a.in, lo, hi, bits)) {
                write_bits(a, seg, bits);
                written = true;
            } else {
                bins_sum<E, true> sum;
                add_own_range<E>(sum, a.in, lo, hi);
                slot[lane] = own_partial(sum.s, E::sign_mask);
            }
        }
        for (unsigned rest = __ballot_sync(all_lanes, !alone); rest; rest &= rest - 1) {
            const int owner = __ffs(rest) - 1;
            const long long olo = __shfl_sync(all_lanes, lo, owner), ohi = __shfl_sync(all_lanes, hi, owner);
            if (a.long_len && ohi - olo > a.long_len && list_segment(a, first + owner, olo, ohi)) {
                if (lane == (unsigned)owner)
                    written = true; /* the listed kernel writes it */
                continue;
            }
            uint32_t bits;
            if (warp_exact<E>(a.in, olo, ohi, bits)) {
                if (lane == (unsigned)owner) {
                    write_bits(a, seg, bits);
                    written = true;
                }
                continue;
            }
            const wk_rp p = warp_bins_partial<E>(a.in, olo, ohi);
            if (lane == (unsigned)owner)
                slot[lane] = p;
        }
        __syncwarp();
        if (!written)
            write_partial(a, seg, slot[lane], hi > lo);
        __syncwarp(); /* the slots are read before the next batch writes them */
    }
}

template <class E>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM) repro_batches_kernel(repro_args a)
{
    __shared__ wk_rp slots[WK_SEG_THREADS];
    wait_for_previous_kernel();
    allow_next_kernel();
    wk_rp *slot = slots + (threadIdx.x & ~31u);
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * a.group; first < a.count;
         first += warps * a.group)
        repro_batch<E>(a, first, slot);
}

/* Writes +0.0 for the empty segments of a joined batch: the exact reducer
 * stored its identity, -0.0, for them. */
template <int K>
__device__ inline void zero_empty(const repro_args &a, size_t first, unsigned nvalid, const long long (&lo)[K],
                                  const long long (&hi)[K])
{
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (lane_id() + 32 * k < nvalid && hi[k] == lo[k])
            write_bits(a, first + lane_id() + 32 * k, 0u);
}

/* Short f32 offsets segments (the joined shape): a unit of
 * WK_SEG_REPRO_JOINED_UNIT segments a warp, folded at once in doubles where
 * they lie end to end and prove exact (segmented/joined_runs.cuh), else
 * batch by batch: joined again where a batch of 32 can be, and otherwise
 * as the batches kernel sums it. The joined stage and the batches' slots
 * share the warp's shared memory. */
template <class E>
__global__ void __launch_bounds__(WK_SEG_OFFSETS_THREADS, WK_SEG_OFFSETS_BLOCKS_PER_SM) repro_joined_kernel(repro_args a)
{
    using R = repro::exact_reducer;
    using Stage = joined_stage<float, double>;
    constexpr int K = WK_SEG_REPRO_JOINED_UNIT / 32;
    union warp_memory {
        Stage stage;
        wk_rp slots[32];
    };
    __shared__ warp_memory memory[WK_SEG_OFFSETS_THREADS / 32];
    wait_for_previous_kernel();
    allow_next_kernel();
    const unsigned lane = lane_id();
    warp_memory &mine = memory[threadIdx.x / 32];
    const float *in = static_cast<const float *>(a.in);
    const long long n = (long long)a.size;
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * WK_SEG_REPRO_JOINED_UNIT;
         first < a.count; first += warps * WK_SEG_REPRO_JOINED_UNIT) {
        if (first + WK_SEG_REPRO_JOINED_UNIT <= a.count) {
            long long lo[K], hi[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                lo[k] = a.begin[first + lane + 32 * k];
                hi[k] = a.end[first + lane + 32 * k];
            }
            if (reduce_joined<R, K>(in, n, a.out, 4, first, WK_SEG_REPRO_JOINED_UNIT, lo, hi, mine.stage)) {
                zero_empty(a, first, WK_SEG_REPRO_JOINED_UNIT, lo, hi);
                continue;
            }
        }
        for (size_t b = first; b < first + WK_SEG_REPRO_JOINED_UNIT && b < a.count; b += 32) {
            const unsigned nvalid = a.count - b < 32 ? (unsigned)(a.count - b) : 32u;
            long long lo[1] = {0}, hi[1] = {0};
            if (lane < nvalid)
                repro_bounds(a, b + lane, lo[0], hi[0]);
            if (reduce_joined<R, 1>(in, n, a.out, 4, b, nvalid, lo, hi, mine.stage)) {
                zero_empty(a, b, nvalid, lo, hi);
                continue;
            }
            __syncwarp(); /* the stage is read before the slots are written */
            repro_batch<E>(a, b, mine.slots);
        }
    }
}

/* The pieces of the segments the batches listed (counters.entries), a warp
 * each; every piece's number is cleared as it is taken, and the grid's last
 * warp clears the list: the board is left as the plain offsets reduce
 * expects it. */
template <class E>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM) repro_listed_kernel(repro_args a)
{
    using namespace repro;
    wait_for_previous_kernel();
    allow_next_kernel();
    wk_seg_board *board = a.board;
    const unsigned lane = lane_id();
    /* The entries listed, whose pieces are numbered from 0 on in order. */
    const unsigned entries = board->counters.entries;
    const size_t pieces = entries ? board->first_piece[entries - 1] +
                                        (size_t)((board->end[entries - 1] - board->begin[entries - 1] +
                                                  (long long)a.piece_len - 1) / (long long)a.piece_len)
                                  : 0;
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t unit = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; unit < pieces; unit += warps) {
        const unsigned entry = board->piece_entry[unit] - 1;
        __syncwarp();
        if (lane == 0)
            board->piece_entry[unit] = 0; /* 0 until listed, as the plain reduce expects */
        const long long lo = board->begin[entry], hi = board->end[entry];
        const size_t first = board->first_piece[entry];
        const long long b = lo + (long long)((unit - first) * a.piece_len);
        const long long e = b + (long long)a.piece_len < hi ? b + (long long)a.piece_len : hi;
        const size_t count = (size_t)((hi - lo + (long long)a.piece_len - 1) / (long long)a.piece_len);
        finish_piece(a, warp_bins_partial<E>(a.in, b, e), unit, entry, first, count, board->segment[entry]);
    }
    /* Every warp takes a ticket; the last clears the list. */
    if (lane == 0) {
        device_atomic_u32 finished(board->counters.warps_done);
        if (finished.fetch_add(1u, cuda::memory_order_acq_rel) == warps - 1) {
            device_atomic_u64(board->counters.listing).store(0ull, cuda::memory_order_relaxed);
            device_atomic_u32(board->counters.entries).store(0u, cuda::memory_order_relaxed);
            finished.store(0u, cuda::memory_order_relaxed);
        }
    }
}

template <class E>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM) repro_pieces_kernel(repro_args a)
{
    wait_for_previous_kernel();
    allow_next_kernel();
    const size_t units = a.count * a.pieces, warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t unit = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; unit < units; unit += warps) {
        const size_t row = unit / a.pieces, piece = unit % a.pieces;
        const long long origin = (long long)(row * a.stride);
        const long long lo = origin + (long long)(piece * a.piece_len);
        long long hi = lo + (long long)a.piece_len;
        if (hi > origin + (long long)a.size)
            hi = origin + (long long)a.size;
        finish_piece(a, warp_bins_partial<E>(a.in, lo, hi), unit, (unsigned)row, row * a.pieces, a.pieces, row);
    }
}

/* The tiny kernel for the shortest power of two at or above the rows'
 * length, MaxLen at most: rows of one element load one. */
template <class E, int MaxLen>
inline cudaError_t launch_tiny(const repro_args &a, unsigned grid, cudaStream_t stream, bool overlap)
{
    if constexpr (MaxLen > 1) {
        if (a.size <= MaxLen / 2)
            return launch_tiny<E, MaxLen / 2>(a, grid, stream, overlap);
    }
    return launch_chained(repro_tiny_kernel<E, MaxLen>, grid, WK_SEG_THREADS, 0, stream, overlap, a);
}

template <class E> inline cudaError_t launch_repro_segments(const wk_seg_launch *l, int format, size_t elem)
{
    const wk_seg_plan &plan = l->plan;
    repro_args a;
    a.in = l->in;
    a.out = l->out;
    a.format = format;
    a.elem = elem;
    a.count = l->count;
    a.size = l->size;
    a.stride = l->stride;
    a.begin = reinterpret_cast<const long long *>(l->begin);
    a.end = reinterpret_cast<const long long *>(l->end);
    a.group = plan.group;
    a.lane_len = (long long)plan.lane_len;
    a.long_len = (long long)plan.long_len;
    a.pieces = plan.pieces;
    a.piece_len = plan.piece_len;
    a.board = l->board;
    const bool overlap = l->overlap_launch != 0;
    if (plan.shape == WK_SEG_REPRO_TINY)
        return launch_tiny<E, 2 * E::per_vector>(a, plan.grid, l->stream, overlap);
    if (plan.shape == WK_SEG_REPRO_PIECES)
        return launch_chained(repro_pieces_kernel<E>, plan.grid, WK_SEG_THREADS, 0, l->stream, overlap, a);
    cudaError_t err;
    if constexpr (E::format == 4) {
        if (plan.shape == WK_SEG_REPRO_JOINED)
            err = launch_chained(repro_joined_kernel<E>, plan.grid, WK_SEG_OFFSETS_THREADS, 0, l->stream, overlap, a);
        else
            err = launch_chained(repro_batches_kernel<E>, plan.grid, WK_SEG_THREADS, 0, l->stream, overlap, a);
    } else {
        err = launch_chained(repro_batches_kernel<E>, plan.grid, WK_SEG_THREADS, 0, l->stream, overlap, a);
    }
    if (err != cudaSuccess || !plan.long_len)
        return err;
    return launch_chained(repro_listed_kernel<E>, plan.listed_grid, WK_SEG_THREADS, 0, l->stream, overlap, a);
}

/* The launcher of one float dtype S: its elements, format and size. */
template <class S> inline cudaError_t launch_repro_dtype(const wk_seg_launch *l)
{
    using E = typename repro::elements_for<S>::type;
    return launch_repro_segments<E>(l, E::format, sizeof(S));
}

} // namespace seg
} // namespace wk

/* wk_seg_repro_launch_<name> of a float dtype (common/c_launcher.cuh). */
#define WK_DEFINE_SEG_REPRO_LAUNCHER(name, code, storage)                                                \
    WK_DEFINE_C_LAUNCHER(wk_seg_repro_launch_##name, wk_seg_launch, wk::seg::launch_repro_dtype<storage>)

#endif
