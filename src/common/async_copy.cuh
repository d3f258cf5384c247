/* 16-byte copies from global to shared memory that do not pass through
 * registers (`cp.async`, sm_80+): a thread starts as many as it has, then
 * waits for all of them. On older GPUs the copy is a plain load and store. */
#ifndef WARPKIT_COMMON_ASYNC_COPY_CUH
#define WARPKIT_COMMON_ASYNC_COPY_CUH

#include "common/vector.cuh"

namespace wk {

/* Starts copying the 16 bytes at src (global) to dst (shared), both
 * 16-byte aligned. */
template <class S> __device__ inline void copy_vec_async(vec<S> *dst, const vec<S> *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src)
                 : "memory");
#else
    *dst = load_vec(src);
#endif
}

/* Waits for this thread's copies; the warp's or block's barrier after it
 * makes them visible to the other threads. */
__device__ inline void wait_copies()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

} // namespace wk

#endif
