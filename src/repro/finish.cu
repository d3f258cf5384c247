/* The kernel that combines partials of reproducible sums (wk_repro_finalize):
 * one for every dtype, so in a translation unit of its own. */
#include "repro/repro_kernel.cuh"

extern "C" cudaError_t wk_repro_launch_finish(const void *partials, size_t count, void *out, int format,
                                              int overlap_launch, cudaStream_t stream)
{
    return wk::launch_chained(wk::repro::repro_finish_kernel<WK_REPRO_THREADS>, 1, WK_REPRO_THREADS, 0, stream,
                              overlap_launch != 0, static_cast<const wk_rp *>(partials), count, out, format);
}
