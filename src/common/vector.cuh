/* 16-byte vectors of elements: the unit of every coalesced load and store
 * in the device-wide kernels. */
#ifndef WARPKIT_COMMON_VECTOR_CUH
#define WARPKIT_COMMON_VECTOR_CUH

#include <cstdint>
#include <cstring>
#include <type_traits>

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

/* Streaming access (ld.global.cs / st.global.cs: evict first from the
 * caches) for inputs too large to stay in L2, each byte touched once. On an
 * H100 the large scans ran faster with it, 8-byte ones by a third
 * (docs/scan.md); the data would leave L2 before any reuse anyway. The
 * load is coherent, so it is also right for data the kernel writes in
 * place. */
template <class S> __device__ inline vec<S> load_vec_streaming(const vec<S> *p)
{
    uint4 raw = __ldcs(reinterpret_cast<const uint4 *>(p));
    vec<S> v;
    memcpy(&v, &raw, sizeof v);
    return v;
}

template <class S> __device__ inline void store_vec_streaming(vec<S> *p, const vec<S> &v)
{
    uint4 raw;
    memcpy(&raw, &v, sizeof raw);
    __stcs(reinterpret_cast<uint4 *>(p), raw);
}

/* One element of 1, 2, 4 or 8 bytes, stored streaming. */
template <class T> __device__ inline void store_streaming(T *p, T value)
{
    using U = typename std::conditional<
        sizeof(T) == 1, unsigned char,
        typename std::conditional<sizeof(T) == 2, unsigned short,
                                  typename std::conditional<sizeof(T) == 4, unsigned, unsigned long long>::type>::type>::type;
    static_assert(sizeof(U) == sizeof(T), "elements of 1, 2, 4 or 8 bytes");
    U bits;
    memcpy(&bits, &value, sizeof bits);
    __stcs(reinterpret_cast<U *>(p), bits);
}

} // namespace wk

#endif
