/* The segmented reproducible sum: a warp per segment, accumulating the
 * segment's elements in the bins of the reproducible sum (repro/binned.h)
 * and rounding once. The bins do not depend on the order of the additions,
 * so each result has the bits of wk_reduce_repro over that segment alone. */
#ifndef WARPKIT_SEGMENTED_REPRO_SEGMENTS_CUH
#define WARPKIT_SEGMENTED_REPRO_SEGMENTS_CUH

#include "common/c_launcher.cuh"
#include "segmented/fold.cuh"
#include "segmented/launch.h"
#include "repro/repro_kernel.cuh"

namespace wk {
namespace seg {

struct repro_args {
    const void *in;
    void *out;
    int format;         /* the output dtype's code (repro/launch.h)     */
    size_t elem;        /* bytes per element                            */
    size_t count, size, stride;
    const long long *begin, *end; /* offsets layout, else null */
};

template <class E>
__global__ void __launch_bounds__(WK_SEG_THREADS, WK_SEG_BLOCKS_PER_SM) repro_segments_kernel(repro_args a)
{
    using namespace repro;
    constexpr int U = WK_SEG_UNROLL;
    wait_for_previous_kernel();
    allow_next_kernel();
    const unsigned lane = lane_id();
    const size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    const long long vec_elems = E::per_vector;
    for (size_t seg = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; seg < a.count; seg += warps) {
        long long lo, hi;
        if (a.begin) {
            lo = clamp_offset(a.begin[seg], (long long)a.size);
            hi = clamp_offset(a.end[seg], (long long)a.size);
            if (hi < lo)
                hi = lo;
        } else {
            lo = (long long)(seg * a.stride);
            hi = lo + (long long)a.size;
        }
        const long long len = hi - lo;
        lane_sum s;
        start<E>(s);
        typename E::raw r[1];
        const uintptr_t first = reinterpret_cast<uintptr_t>(element_at<E>(a.in, (size_t)lo));
        const long long misaligned = (long long)(first % 16 / a.elem);
        long long head = misaligned ? vec_elems - misaligned : 0;
        if (head > len)
            head = len;
        for (long long k = 0; k < head; k += 32) {
            r[0] = scalar<E>(element_at<E>(a.in, (size_t)(lo + k + lane)), k + lane < head);
            add_elements<E>(s, r);
        }
        const size_t nvec = (size_t)((len - head) / vec_elems);
        const uint4 *body = reinterpret_cast<const uint4 *>(element_at<E>(a.in, (size_t)(lo + head)));
        for (size_t i = lane; i - lane < nvec; i += (size_t)U * 32)
            add_vectors<E, U>(s, body, i, 32, nvec);
        for (long long k = head + (long long)nvec * vec_elems; k < len; k += 32) {
            r[0] = scalar<E>(element_at<E>(a.in, (size_t)(lo + k + lane)), k + lane < len);
            add_elements<E>(s, r);
        }
        wk_rp p = lane_partial(s, E::sign_mask);
        if (lane == 0)
            write_result(static_cast<char *>(a.out) + seg * a.elem, p, a.format, len > 0);
    }
}

template <class E> inline cudaError_t launch_repro_segments(const wk_seg_launch *l, int format, size_t elem)
{
    repro_args a = {l->in, l->out, format, elem, l->count, l->size, l->stride,
                    reinterpret_cast<const long long *>(l->begin), reinterpret_cast<const long long *>(l->end)};
    return launch_chained(repro_segments_kernel<E>, l->plan.grid, WK_SEG_THREADS, 0, l->stream, l->overlap_launch != 0,
                          a);
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
