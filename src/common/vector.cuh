/* 16-byte vectors of elements: the unit of every coalesced load and store
 * in the device-wide kernels. */
#ifndef WARPKIT_COMMON_VECTOR_CUH
#define WARPKIT_COMMON_VECTOR_CUH

#include <cstdint>
#include <cstring>

namespace wk {

/* 16 bytes of elements, moved with one instruction. */
template <class S> struct alignas(16) vec {
    static constexpr int size = 16 / sizeof(S);
    S e[size];
};

/* Read-only load through the non-coherent path: the input is not written
 * while a kernel reads it. */
template <class S> __device__ inline vec<S> load_vec(const vec<S> *p)
{
    uint4 raw = __ldg(reinterpret_cast<const uint4 *>(p));
    vec<S> v;
    memcpy(&v, &raw, sizeof v);
    return v;
}

/* Load for data the kernel may also write (an in-place scan): the ordinary
 * coherent path. */
template <class S> __device__ inline vec<S> load_vec_coherent(const vec<S> *p)
{
    uint4 raw = *reinterpret_cast<const uint4 *>(p);
    vec<S> v;
    memcpy(&v, &raw, sizeof v);
    return v;
}

template <class S> __device__ inline void store_vec(vec<S> *p, const vec<S> &v)
{
    uint4 raw;
    memcpy(&raw, &v, sizeof raw);
    *reinterpret_cast<uint4 *>(p) = raw;
}

} // namespace wk

#endif
