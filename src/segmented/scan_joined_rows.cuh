/* The segmented scan of short rows that lie end to end (stride equal to
 * the length): a warp takes a run of whole rows and scans it as one stream
 * of 16-byte vectors, a vector per lane, Unroll rounds in flight. A lane's
 * running value starts afresh where a row starts, and the scan over the
 * lanes is segmented: it carries a value from lane to lane only across
 * lanes where no row starts. So a warp never idles on a row shorter than
 * its vectors, and its loads are 512 contiguous bytes whatever the rows'
 * length. */
#ifndef WARPKIT_SEGMENTED_SCAN_JOINED_ROWS_CUH
#define WARPKIT_SEGMENTED_SCAN_JOINED_ROWS_CUH

#include "common/chained_launch.cuh"
#include "segmented/scan_segments.cuh"

namespace wk {
namespace seg {

struct joined_rows_args {
    size_t count, size;            /* rows, and elements per row (the stride too) */
    size_t rows_per_run;           /* rows a warp scans at a time */
    wk_value init;
};

/* One chunk of the run: this lane's `valid` elements of x, the first one
 * `offset` elements into its row (rows of `size`). Writes the outputs at
 * out and moves `carry` (the running value at the chunk's start) past it.
 * `start` is what a row's running value starts from. */
template <bool Exclusive, class C, class S, class Op>
__device__ inline void scan_joined_chunk(const vec<S> &x, int valid, unsigned offset, unsigned size,
                                         typename C::out *out, bool vector_store, typename C::type &carry,
                                         typename C::type start, Op op)
{
    using P = typename C::type;
    const unsigned lane = lane_id();
    /* This lane's running value from its last row start on, and whether it
     * has one. */
    P mine = neutral<P>(op);
    bool starts = false;
    unsigned at = offset;
    for (int e = 0; e < valid; ++e) {
        if (at == 0) {
            mine = start;
            starts = true;
        }
        mine = op(mine, C::enter(x.e[e]));
        at = at + 1 == size ? 0 : at + 1;
    }
    /* Segmented inclusive scan over the lanes: a lane takes the value
     * before it only while no row has started at or after it. */
    P v = mine;
    bool f = starts;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        const P up = shfl_up(full_mask, v, d);
        const bool up_f = shfl_up(full_mask, f, d);
        if (lane >= d) {
            if (!f)
                v = op(up, v);
            f = f || up_f;
        }
    }
    const P before = shfl_up(full_mask, v, 1);
    const bool before_f = shfl_up(full_mask, f, 1);
    P run = lane == 0 ? carry : (before_f ? before : op(carry, before));
    const P last = shfl(full_mask, v, 31);
    carry = shfl(full_mask, f, 31) ? last : op(carry, last);

    /* The outputs, then one vector store where the whole vector is valid
     * and aligned, else one store an element. */
    at = offset;
    outputs_t<C, S> y;
#pragma unroll
    for (int e = 0; e < vec<S>::size; ++e) {
        if (e < valid) {
            run = at == 0 ? start : run;
            const P next = op(run, C::enter(x.e[e]));
            y.e[e] = C::leave(Exclusive ? run : next);
            run = next;
            at = at + 1 == size ? 0 : at + 1;
        }
    }
    if (valid == vec<S>::size && vector_store)
        store_outputs<C, S>(out, y);
    else
        for (int e = 0; e < valid; ++e)
            out[e] = y.e[e];
}

/* Scans the rows in[begin .. end), which start at begin and every `size`
 * elements after: a scalar chunk up to the input's 16-byte boundary,
 * chunks of a vector per lane (Unroll loaded before the first is scanned),
 * a scalar chunk for the tail, as scan_range does for one row. */
template <bool Exclusive, class C, class S, class Op>
__device__ inline void scan_joined_range(const S *in, typename C::out *out, long long begin, long long end,
                                         unsigned size, typename C::type start, Op op)
{
    using V = vec<S>;
    constexpr int U = WK_SEG_UNROLL;
    const long long len = end - begin;
    const unsigned lane = lane_id();
    const unsigned misaligned = (unsigned)(reinterpret_cast<uintptr_t>(in + begin) % sizeof(V)) / sizeof(S);
    long long head = misaligned ? (long long)(V::size - misaligned) : 0;
    if (head > len)
        head = len;
    const bool vector_store = outputs_aligned<C>(in, out, begin + head);
    typename C::type carry = start; /* the run starts a row */
    V x;
    if (head > 0) { /* fewer elements than a vector: one round */
        const bool mine = lane < head;
        x.e[0] = mine ? in[begin + lane] : S();
        scan_joined_chunk<Exclusive, C>(x, mine ? 1 : 0, (unsigned)(lane % size), size, out + begin + lane, false,
                                        carry, start, op);
    }
    const long long pos = begin + head, nvec = (len - head) / V::size;
    const V *body = reinterpret_cast<const V *>(in + pos);
    for (long long i0 = 0; i0 < nvec; i0 += (long long)U * 32) {
        V xs[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long i = i0 + (long long)u * 32 + lane;
            if (i < nvec)
                xs[u] = load_vec_coherent(body + i);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long chunk = i0 + (long long)u * 32;
            if (chunk >= nvec)
                break; /* the same for every lane */
            const long long i = chunk + lane;
            /* Runs are short (plan.h), so positions within one fit 32 bits. */
            const unsigned offset = (unsigned)(head + i * V::size) % size;
            scan_joined_chunk<Exclusive, C>(xs[u], i < nvec ? V::size : 0, offset, size, out + pos + i * V::size,
                                            vector_store, carry, start, op);
        }
    }
    const long long tail = pos + nvec * V::size;
    if (tail < end) { /* fewer elements than a vector: one round */
        const long long k = tail + lane;
        const bool mine = k < end;
        x.e[0] = mine ? in[k] : S();
        scan_joined_chunk<Exclusive, C>(x, mine ? 1 : 0, (unsigned)((k - begin) % size), size, out + k, false, carry,
                                        start, op);
    }
}

/* A warp per run of rows_per_run rows, a persistent grid; C as
 * tiny_scan_kernel's. */
template <class S, class Op, bool Exclusive, class C = carried<S, Op>>
__global__ void __launch_bounds__(WK_SEG_THREADS) joined_rows_scan_kernel(const S *in, typename C::out *out,
                                                                          joined_rows_args a)
{
    wait_for_previous_kernel();
    allow_next_kernel();
    const Op op;
    const auto start = scan_start<C, S, Op, Exclusive>(a.init, op);
    const size_t runs = (a.count + a.rows_per_run - 1) / a.rows_per_run;
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t r = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; r < runs; r += warps) {
        const size_t first = r * a.rows_per_run;
        const size_t rows = a.count - first < a.rows_per_run ? a.count - first : a.rows_per_run;
        scan_joined_range<Exclusive, C>(in, out, (long long)(first * a.size), (long long)((first + rows) * a.size),
                                     (unsigned)a.size, start, op);
    }
}

} // namespace seg
} // namespace wk

#endif
