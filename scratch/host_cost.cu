#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include "warpkit.h"
__global__ void empty_kernel(int *p) { if (p && threadIdx.x == 1000) *p = 1; }
template <class F> double per_call(F f, int n = 20000) {
    for (int i = 0; i < 100; ++i) f();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
}
int main() {
    cudaStream_t s; cudaStreamCreate(&s);
    float *d; cudaMalloc(&d, 1 << 20); void *out; cudaMalloc(&out, 64);
    wk_context *ctx; wk_create(&ctx, -1);
    cudaPointerAttributes a; int dev;
    printf("cudaGetDevice            %6.2f us\n", per_call([&] { cudaGetDevice(&dev); }));
    printf("cudaPointerGetAttributes %6.2f us\n", per_call([&] { cudaPointerGetAttributes(&a, d); }));
    printf("empty <<<>>>             %6.2f us\n", per_call([&] { empty_kernel<<<1, 32, 0, s>>>(nullptr); }));
    cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {}; c.gridDim = 1; c.blockDim = 32; c.stream = s; c.attrs = &at; c.numAttrs = 1;
    printf("empty LaunchKernelEx+PDL %6.2f us\n", per_call([&] { cudaLaunchKernelEx(&c, empty_kernel, (int *)nullptr); }));
    c.numAttrs = 0;
    printf("empty LaunchKernelEx     %6.2f us\n", per_call([&] { cudaLaunchKernelEx(&c, empty_kernel, (int *)nullptr); }));
    printf("wk_reduce f32 1024       %6.2f us\n", per_call([&] { wk_reduce(ctx, d, out, 1024, WK_F32, WK_SUM, s); }));
    return 0;
}
