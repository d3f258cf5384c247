/* The grid's last block: every block publishes its partial and takes a
 * ticket, and the block that takes the last ticket goes on to combine the
 * partials, all of them visible to it. */
#ifndef WARPKIT_COMMON_BLOCK_TICKET_CUH
#define WARPKIT_COMMON_BLOCK_TICKET_CUH

#include <cuda/atomic>

namespace wk {

/* Thread 0 stores the block's partial `p` at `slot` and takes one of
 * `count` tickets; true, in every thread of the block, for the block that
 * takes the last. Release publishes the partial with its ticket; acquire
 * lets the last block see every partial published before it. `last` is
 * the block's flag in shared memory. */
template <class P>
__device__ inline bool publish_and_take_ticket(P *slot, const P &p, unsigned &ticket, unsigned count, bool &last)
{
    if (threadIdx.x == 0) {
        *slot = p;
        last = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(ticket).fetch_add(
                   1u, cuda::memory_order_acq_rel) == count - 1;
    }
    __syncthreads();
    return last;
}

/* The last block, once done: the tickets start from zero at the next
 * launch. */
__device__ inline void reset_ticket(unsigned &ticket)
{
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(ticket).store(0u, cuda::memory_order_relaxed);
}

} // namespace wk

#endif
