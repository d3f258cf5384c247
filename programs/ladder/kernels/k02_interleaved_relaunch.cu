/* Kernel 02: kernel 01's code, launched again on its own partial sums.
 *
 * Instead of copying one partial per block to the host, the partials stay on
 * the GPU and become the input of the next launch, which has threads times
 * fewer blocks; the launch with a single block writes the sum. The kernel
 * itself is unchanged: this rung only removes the host's share of the work
 * and the copy. */
#include "ladder/kernels/ladder_internal.cuh"

namespace wk_ladder {

template <class T> static cudaError_t enqueue(wk_ladder_call *call)
{
    return relaunch_until_one<T>(call, call->threads, [&](const T *in, T *out, size_t m, unsigned blocks) {
        launch_interleaved_divergent<T>(in, out, m, blocks, call->threads, call->stream);
    });
}

} // namespace wk_ladder

WK_LADDER_ENTRY(02)
