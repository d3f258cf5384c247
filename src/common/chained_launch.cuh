/* Launching with programmatic dependent launch (sm_90+), shared by every
 * device-wide kernel: back-to-back calls overlap their launch latency, and
 * each kernel waits for its predecessor's memory before it reads anything. */
#ifndef WARPKIT_COMMON_CHAINED_LAUNCH_CUH
#define WARPKIT_COMMON_CHAINED_LAUNCH_CUH

#include <cuda_runtime.h>

namespace wk {

/* Launches `kernel` on `grid` blocks of `block` threads with
 * `shared_bytes` of dynamic shared memory on `stream`, with programmatic
 * stream serialization when `overlap` is set. */
template <class... Params, class... Args>
inline cudaError_t launch_chained(void (*kernel)(Params...), unsigned grid, unsigned block, size_t shared_bytes,
                                  cudaStream_t stream, bool overlap, Args... args)
{
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = overlap ? 1 : 0;
    return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

/* In the kernel: wait until the previous kernel in the stream has finished
 * and its memory is visible. */
__device__ inline void wait_for_previous_kernel()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* In the kernel: let the next kernel in the stream start its launch. */
__device__ inline void allow_next_kernel()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

} // namespace wk

#endif
