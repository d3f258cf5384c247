/* Reproducible-sum kernels for f64; one dtype per file so builds run in parallel. */
#include "repro_kernel.cuh"

WK_DEFINE_REPRO_LAUNCHER(f64, wk::repro::f64_elements)

/* The combining kernel lives with one dtype's kernels. */
extern "C" cudaError_t wk_repro_launch_finish(const void *partials, size_t count, void *out, int format,
                                              int overlap_launch, cudaStream_t stream)
{
    return wk::launch_chained(wk::repro::repro_finish_kernel<WK_REPRO_THREADS>, 1, WK_REPRO_THREADS, 0, stream,
                              overlap_launch != 0, static_cast<const wk_rp *>(partials), count, out, format);
}
