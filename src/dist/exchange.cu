/* The small kernels around the ranks' exchange (exchange.h). */
#include "dist/exchange.h"
#include "dist/ranks.h"
#include "reduce/reducers.cuh"

#include <cstring>

namespace {

__global__ void stamp_kernel(uint64_t *dst_n, uint64_t n, uint64_t *dst_last, const unsigned char *src_last,
                             unsigned elem)
{
    *dst_n = n;
    if (src_last) {
        uint64_t bits = 0;
        for (unsigned b = 0; b < elem; ++b)
            bits |= (uint64_t)src_last[b] << (8 * b);
        *dst_last = bits;
    }
}

__global__ void place_kernel(const uint64_t *counts, int ranks, int rank, wk_dist_count *out)
{
    *out = wk_dist_place(counts, ranks, rank);
}

__global__ void previous_kernel(const wk_dist_tail_record *tails, int ranks, int rank, const unsigned char *first,
                                unsigned elem, unsigned char *out)
{
    const int before = wk_dist_rank_before(tails, rank);
    uint64_t bits = 0;
    if (before >= 0) {
        bits = tails[before].last_bits;
    } else if (first) {
        for (unsigned b = 0; b < elem; ++b)
            bits |= (uint64_t)first[b] << (8 * b);
        bits = wk_dist_unequal_bits(bits);
    }
    for (unsigned b = 0; b < elem; ++b)
        out[b] = (unsigned char)(bits >> (8 * b));
}

/* The ranks' results in rank order, through the reduce's own arg combine,
 * which keeps the lower index on ties and the first NaN. */
template <class S, class Op>
__global__ void combine_args_kernel(const wk_dist_arg_record *records, int ranks, void *out)
{
    using R = wk::reduce::arg<S, Op>;
    typename R::partial acc = R::identity();
    uint64_t offset = 0;
    for (int r = 0; r < ranks; ++r) {
        const wk_dist_arg_record rec = records[r];
        if (rec.n > 0 && rec.index >= 0) {
            S value;
            memcpy(&value, &rec.value_bits, sizeof(S));
            acc = R::combine(acc, R::element(value, (long long)(offset + (uint64_t)rec.index)));
        }
        offset += rec.n;
    }
    R::store_result(out, acc);
}

template <class S>
cudaError_t launch_combine(const wk_dist_arg_record *records, int ranks, wk_op op, void *out, cudaStream_t stream)
{
    if (op == WK_ARGMIN)
        combine_args_kernel<S, wk::argmin><<<1, 1, 0, stream>>>(records, ranks, out);
    else
        combine_args_kernel<S, wk::argmax><<<1, 1, 0, stream>>>(records, ranks, out);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t wk_dist_stamp(uint64_t *dst_n, uint64_t n, uint64_t *dst_last, const void *src_last,
                                     size_t elem, cudaStream_t stream)
{
    stamp_kernel<<<1, 1, 0, stream>>>(dst_n, n, dst_last, static_cast<const unsigned char *>(src_last),
                                      (unsigned)elem);
    return cudaGetLastError();
}

extern "C" cudaError_t wk_dist_place_counts(const uint64_t *counts, int ranks, int rank, wk_dist_count *out,
                                            cudaStream_t stream)
{
    place_kernel<<<1, 1, 0, stream>>>(counts, ranks, rank, out);
    return cudaGetLastError();
}

extern "C" cudaError_t wk_dist_previous_element(const wk_dist_tail_record *tails, int ranks, int rank,
                                                const void *first, size_t elem, void *out, cudaStream_t stream)
{
    previous_kernel<<<1, 1, 0, stream>>>(tails, ranks, rank, static_cast<const unsigned char *>(first),
                                         (unsigned)elem, static_cast<unsigned char *>(out));
    return cudaGetLastError();
}

extern "C" cudaError_t wk_dist_combine_args(const wk_dist_arg_record *records, int ranks, wk_dtype dtype, wk_op op,
                                            void *out, cudaStream_t stream)
{
    switch (dtype) {
    case WK_I32: return launch_combine<int>(records, ranks, op, out, stream);
    case WK_U32: return launch_combine<unsigned>(records, ranks, op, out, stream);
    case WK_I64: return launch_combine<long long>(records, ranks, op, out, stream);
    case WK_U64: return launch_combine<unsigned long long>(records, ranks, op, out, stream);
    case WK_F32: return launch_combine<float>(records, ranks, op, out, stream);
    case WK_F64: return launch_combine<double>(records, ranks, op, out, stream);
    case WK_F16: return launch_combine<__half>(records, ranks, op, out, stream);
    case WK_BF16: return launch_combine<__nv_bfloat16>(records, ranks, op, out, stream);
    default: break; /* the narrow dtypes are refused before any launch (dist_api.c) */
    }
    return cudaErrorInvalidValue;
}
