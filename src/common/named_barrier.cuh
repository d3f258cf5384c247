/* Named barriers (PTX `bar.sync` / `bar.arrive` with a barrier number and a
 * thread count): barriers among some of a block's warps, and barriers where
 * producers signal without waiting (PTX ISA, "Parallel Synchronization and
 * Communication Instructions: bar, barrier"). Barrier 0 is __syncthreads';
 * callers use 1 to 15. Both order the shared-memory accesses made before
 * them for the threads that wait at the same barrier. */
#ifndef WARPKIT_COMMON_NAMED_BARRIER_CUH
#define WARPKIT_COMMON_NAMED_BARRIER_CUH

namespace wk {

/* Waits until `threads` threads (a multiple of 32) have arrived at barrier `id`. */
__device__ inline void barrier_wait(unsigned id, unsigned threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* Counts the calling warp in at barrier `id` and goes on at once. */
__device__ inline void barrier_signal(unsigned id, unsigned threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

} // namespace wk

#endif
