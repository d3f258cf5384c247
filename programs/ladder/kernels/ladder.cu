/* The ladder's table, its scratch size and the argument checks that every
 * kernel's enqueue shares. */
#include "ladder/kernels/ladder_internal.cuh"

#include <limits.h>

namespace {

size_t element_size(wk_dtype dtype)
{
    switch (dtype) {
    case WK_F64: return 8;
    case WK_F32: return 4;
    case WK_I32: return 4;
    default: return 0;
    }
}

bool block_size_ok(unsigned threads)
{
    return threads >= 64 && threads <= 1024 && (threads & (threads - 1)) == 0;
}

const wk_ladder_kernel table[] = {
    {"01", "interleaved addressing, divergent %, partials added on the host", wk_ladder_enqueue_01},
    {"02", "interleaved addressing, divergent %, relaunched on the partials", wk_ladder_enqueue_02},
    {"03", "interleaved addressing, strided index (bank conflicts)", wk_ladder_enqueue_03},
    {"04", "sequential addressing", wk_ladder_enqueue_04},
    {"05", "first add during the global load", wk_ladder_enqueue_05},
    {"06", "last warp unrolled (volatile + __syncwarp)", wk_ladder_enqueue_06},
    {"07", "grid-stride accumulation, fixed grid, two launches", wk_ladder_enqueue_07},
    {"08", "warp sums with __shfl_down_sync, passes", wk_ladder_enqueue_08},
    {"09", "warp all-reduce with __shfl_xor_sync, passes", wk_ladder_enqueue_09},
    {"10", "single-warp reduce over volatile shared memory, passes", wk_ladder_enqueue_10},
    {"11", "one cooperative launch with grid.sync()", wk_ladder_enqueue_11},
};

} // namespace

extern "C" const wk_ladder_kernel *wk_ladder_kernels(size_t *count)
{
    if (count)
        *count = sizeof table / sizeof table[0];
    return table;
}

extern "C" size_t wk_ladder_scratch_bytes(size_t n, unsigned threads, wk_dtype dtype)
{
    if (n == 0 || !block_size_ok(threads))
        return 0;
    return 2 * wk_ladder::ceil_div(n, threads) * element_size(dtype);
}

namespace wk_ladder {

cudaError_t by_dtype(wk_ladder_call *call, typed_enqueue f64, typed_enqueue f32, typed_enqueue i32)
{
    if (!call || !call->d_in || !call->d_scratch || !call->d_result || call->n == 0 ||
        !block_size_ok(call->threads) || ceil_div(call->n, call->threads) > (size_t)INT_MAX)
        return cudaErrorInvalidValue;
    call->blocks = 0;
    call->launches = 0;
    call->serial = 1;
    call->host_partials = 0;
    switch (call->dtype) {
    case WK_F64: return f64(call);
    case WK_F32: return f32(call);
    case WK_I32: return i32(call);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace wk_ladder
