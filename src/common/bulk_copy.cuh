/* One-block bulk copies from global to shared memory (sm_90+): a single
 * thread starts the copy (`cp.async.bulk`) and the copy engine moves the
 * bytes while the block goes on; the block's threads then wait on an
 * mbarrier that counts the bytes in (PTX ISA, "Data Movement and
 * Conversion Instructions: cp.async.bulk" and "Parallel Synchronization
 * and Communication Instructions: mbarrier"). On older GPUs bulk_copy_ok
 * is false and callers load the data themselves. */
#ifndef WARPKIT_COMMON_BULK_COPY_CUH
#define WARPKIT_COMMON_BULK_COPY_CUH

#include <cstdint>

namespace wk {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
constexpr bool bulk_copy_ok = true;
#else
constexpr bool bulk_copy_ok = false;
#endif

__device__ inline unsigned shared_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* By one thread, before any other thread uses the barrier (a
 * __syncthreads() after it publishes the initialisation). The fence makes
 * it visible to the copy engine too. */
__device__ inline void bulk_barrier_init(unsigned long long *barrier)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* By one thread: copies `bytes` (a multiple of 16, both addresses 16-byte
 * aligned) from src to dst and completes the barrier's current phase when
 * they have all arrived. */
__device__ inline void bulk_copy_start(void *dst, const void *src, unsigned bytes, unsigned long long *barrier)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(shared_address(barrier))
                 : "memory");
#endif
}

/* By one thread: asks for `bytes` (a multiple of 16, from a 16-byte
 * aligned address) to be brought into L2 (cp.async.bulk.prefetch). A hint
 * only: it changes no data and orders nothing, so it may run while another
 * kernel is still writing those bytes. */
__device__ inline void bulk_prefetch_l2(const void *src, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
#endif
}

/* By each thread that wrote shared memory with ordinary stores which a
 * later bulk copy will overwrite: orders those writes before the copy,
 * which writes through the async proxy. */
__device__ inline void bulk_copy_fence_writes()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* Waits until the barrier's phase `parity` (0 for the first copy, 1 for
 * the second) has completed: the copied bytes are then visible. */
__device__ inline void bulk_copy_wait(unsigned long long *barrier, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned done = 0;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(shared_address(barrier)), "r"(parity)
                     : "memory");
    } while (!done);
#endif
}

} // namespace wk

#endif
