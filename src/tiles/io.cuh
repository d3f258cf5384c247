/* A launch's view of its input and output: the data seen from the 16-byte
 * boundary at or below d_in, cut into 16-byte vectors (tiles/plan.h), with
 * element-by-element access for the vectors that straddle either end. */
#ifndef WARPKIT_TILES_IO_CUH
#define WARPKIT_TILES_IO_CUH

#include "common/bulk_copy.cuh"
#include "common/vector.cuh"

#include <cstddef>

namespace wk {
namespace tiles {

/* Where a launch reads and writes, seen from the 16-byte boundary below
 * d_in: element e of the virtual array is d_in[e - offset].
 *
 * The kernels reach their data through a tile map: view(tile) is the
 * tile_io a tile lies in, first_vector(tile, tile_vecs) the tile's first
 * vector there, and chain_start(tile) whether the tile begins a chain of
 * prefixes (it looks back no further). A tile_io is the map of one chain
 * over the whole input; the segmented scan's rows (segmented/row_tiles.cuh)
 * are one chain per row. */
template <class S> struct tile_io {
    const S *in;      /* d_in - offset; only [offset, offset + n) is touched */
    S *out;           /* d_out - offset, likewise                            */
    size_t first;     /* offset                                              */
    size_t end;       /* offset + n                                          */
    bool vector_stores;
    bool in_place;

    /* Whether vectors q0 .. q1 all lie inside the data. */
    __device__ bool whole(size_t q0, size_t q1) const
    {
        constexpr size_t V = vec<S>::size;
        return q0 * V >= first && (q1 + 1) * V <= end;
    }

    /* By one thread: asks L2 for vectors q0 .. q0 + count - 1, as far as
     * they lie wholly inside the data (bulk_prefetch_l2). */
    __device__ void prefetch_l2(size_t q0, size_t count) const
    {
        constexpr size_t V = vec<S>::size;
        const size_t data_q0 = (first + V - 1) / V, data_q1 = end / V; /* whole vectors: [data_q0, data_q1) */
        const size_t q_begin = q0 > data_q0 ? q0 : data_q0, q_end = q0 + count < data_q1 ? q0 + count : data_q1;
        if (q_begin < q_end)
            bulk_prefetch_l2(in + q_begin * V, (unsigned)((q_end - q_begin) * sizeof(vec<S>)));
    }

    /* Vector q, known to lie inside the data. */
    __device__ vec<S> load_whole(size_t q) const
    {
        const vec<S> *p = reinterpret_cast<const vec<S> *>(in + q * vec<S>::size);
        return in_place ? load_vec_coherent(p) : load_vec(p);
    }

    /* A lane's `rounds` vectors q0, q0 + 32, ...: when all lie inside the
     * data (every lane of every tile but the first and the last), the loads
     * go out with no test between them, which a test per vector would
     * hold back. */
    template <int rounds> __device__ void load_lane(size_t q0, S fill, vec<S> (&x)[rounds]) const
    {
        if (whole(q0, q0 + 32 * (rounds - 1))) {
#pragma unroll
            for (int k = 0; k < rounds; ++k)
                x[k] = load_whole(q0 + 32 * k);
        } else {
#pragma unroll
            for (int k = 0; k < rounds; ++k)
                x[k] = load(q0 + 32 * k, fill);
        }
    }

    /* Vector q; its elements outside the data read as `fill`. */
    __device__ vec<S> load(size_t q, S fill) const
    {
        constexpr size_t V = vec<S>::size;
        size_t e0 = q * V;
        if (e0 >= first && e0 + V <= end)
            return load_whole(q);
        vec<S> v;
#pragma unroll
        for (int e = 0; e < vec<S>::size; ++e)
            v.e[e] = (e0 + e >= first && e0 + e < end) ? in[e0 + e] : fill;
        return v;
    }

    /* As a tile map (below): the whole input is one chain of tiles. */
    __device__ const tile_io &view(unsigned long long) const { return *this; }
    __device__ size_t first_vector(unsigned long long tile, size_t tile_vecs) const { return (size_t)tile * tile_vecs; }
    __device__ bool chain_start(unsigned long long tile) const { return tile == 0; }

    __device__ void store(size_t q, const vec<S> &v) const
    {
        constexpr size_t V = vec<S>::size;
        size_t e0 = q * V;
        if (vector_stores && e0 >= first && e0 + V <= end) {
            store_vec(reinterpret_cast<vec<S> *>(out + e0), v);
            return;
        }
#pragma unroll
        for (int e = 0; e < vec<S>::size; ++e)
            if (e0 + e >= first && e0 + e < end)
                out[e0 + e] = v.e[e];
    }
};

} // namespace tiles
} // namespace wk

#endif
