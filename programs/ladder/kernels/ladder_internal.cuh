/* What the ladder kernels share (CUDA C++ only): shared memory typed as T,
 * the loop that relaunches a block-reducing kernel on its own partial sums
 * and the per-kernel entry points that ladder.cu puts in its table. The
 * device code that rungs share is in ladder_blocks.cuh.
 *
 * Each kernel is a template over its element type T, instantiated for
 * double, float and unsigned. WK_I32 runs as unsigned: same bits, but
 * unsigned overflow wraps by definition, where signed overflow in C++ is
 * undefined, so sums are exact modulo 2^32 whatever the data. */
#ifndef WARPKIT_LADDER_INTERNAL_CUH
#define WARPKIT_LADDER_INTERNAL_CUH

#include "ladder/kernels/ladder.h"

namespace wk_ladder {

constexpr unsigned full_mask = 0xffffffffu;

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The dynamic shared memory of a launch, seen as T. `extern __shared__ T x[]`
 * inside a template would declare one symbol with a different type per
 * instantiation, which nvcc rejects; a byte array cast per use does not. */
template <class T> __device__ inline T *shared_array()
{
    extern __shared__ __align__(16) unsigned char ladder_shared[];
    return reinterpret_cast<T *>(ladder_shared);
}

/* Half `side` (0 or 1) of d_scratch. A half holds ceil(n / threads)
 * elements: the most partials that any kernel's first launch leaves. */
template <class T> inline T *scratch_half(const wk_ladder_call *call, int side)
{
    return static_cast<T *>(call->d_scratch) + (size_t)side * ceil_div(call->n, call->threads);
}

/* Enqueues launch(in, out, m, blocks), a kernel that sums each block's
 * `per_block` of the m values at `in` into out[blockIdx.x], first over the
 * input and then over its own partials, alternating between the scratch
 * halves, until one block is left: that launch writes d_result. Nothing
 * waits on the GPU, so the host loop only needs the counts, which it knows. */
template <class T, class Launch>
cudaError_t relaunch_until_one(wk_ladder_call *call, size_t per_block, Launch launch)
{
    const T *in = static_cast<const T *>(call->d_in);
    size_t m = call->n;
    for (int side = 0;; side ^= 1) {
        size_t blocks = ceil_div(m, per_block);
        T *out = blocks == 1 ? static_cast<T *>(call->d_result) : scratch_half<T>(call, side);
        launch(in, out, m, (unsigned)blocks);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        if (call->launches++ == 0)
            call->blocks = (unsigned)blocks;
        if (blocks == 1)
            return cudaSuccess;
        in = out;
        m = blocks;
    }
}

/* relaunch_until_one for kernel(in, out, m), launched with call->threads
 * threads and `shared` bytes of dynamic shared memory per block. */
template <class T>
cudaError_t relaunch_kernel(wk_ladder_call *call, size_t per_block, void (*kernel)(const T *, T *, size_t),
                            size_t shared)
{
    return relaunch_until_one<T>(call, per_block, [&](const T *in, T *out, size_t m, unsigned blocks) {
        kernel<<<blocks, call->threads, shared, call->stream>>>(in, out, m);
    });
}

/* Kernel 05's launches, which 06 reuses: a block sums 2 * threads elements,
 * each thread adding its two before the tree (two in a row once n is more
 * than one block's threads). */
template <class T> cudaError_t relaunch_pair_sums(wk_ladder_call *call, void (*kernel)(const T *, T *, size_t))
{
    call->serial = call->n > call->threads ? 2 : 1;
    return relaunch_kernel(call, 2 * (size_t)call->threads, kernel, call->threads * sizeof(T));
}

/* The most elements one thread of a grid-stride loop adds: blocks * threads
 * threads read m values, `per_step` of them (threads apart) each step.
 * Thread 0 of block 0 reads first in every step, so it has the most. */
inline size_t grid_stride_serial(size_t m, unsigned threads, size_t blocks, unsigned per_step)
{
    size_t step = (size_t)per_step * threads * blocks;
    size_t count = m / step * per_step;
    size_t rest = m % step;
    for (unsigned k = 0; k < per_step; ++k)
        count += rest > (size_t)k * threads;
    return count;
}

/* Kernel 01's launch, which kernel 02 relaunches: sums each block's
 * blockDim.x of in[0 .. m) into out[blockIdx.x]. */
template <class T>
void launch_interleaved_divergent(const T *in, T *out, size_t m, unsigned blocks, unsigned threads,
                                  cudaStream_t stream);

/* Checks the call, resets the counters, and runs the instantiation for its
 * dtype (WK_I32 as unsigned). */
typedef cudaError_t (*typed_enqueue)(wk_ladder_call *call);
cudaError_t by_dtype(wk_ladder_call *call, typed_enqueue f64, typed_enqueue f32, typed_enqueue i32);

} // namespace wk_ladder

/* Defines the table's entry wk_ladder_enqueue_<nn>, which runs the file's
 * wk_ladder::enqueue<T> for the call's dtype (by_dtype). */
#define WK_LADDER_ENTRY(nn)                                                                                  \
    extern "C" cudaError_t wk_ladder_enqueue_##nn(wk_ladder_call *call)                                      \
    {                                                                                                        \
        return wk_ladder::by_dtype(call, wk_ladder::enqueue<double>, wk_ladder::enqueue<float>,              \
                                   wk_ladder::enqueue<unsigned>);                                            \
    }

/* The table's entries, one per k*.cu file. C linkage, like the table's
 * function-pointer type. */
extern "C" {
cudaError_t wk_ladder_enqueue_01(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_02(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_03(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_04(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_05(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_06(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_07(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_08(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_09(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_10(wk_ladder_call *call);
cudaError_t wk_ladder_enqueue_11(wk_ladder_call *call);
}

#endif /* WARPKIT_LADDER_INTERNAL_CUH */
