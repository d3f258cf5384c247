// Where the launch-to-completion time of a small call goes: a call, an 8-byte read back, a wait.
// Each row: host time per call issued; with a stream synchronization; with an
// 8-byte cudaMemcpyAsync to pinned or pageable memory first; with a one-block
// kernel storing the 8 bytes into mapped host memory first; one call between
// CUDA events; and per call of 16 back to back between events.
//   nvcc -O2 -arch=sm_90 -std=c++17 -Iinclude scripts/readback_latency.cu -o readback_latency \
//        -Lbuild/src -lwarpkit && LD_LIBRARY_PATH=build/src ./readback_latency [s|y|b]
// (s, y, b: cudaDeviceScheduleSpin, Yield or BlockingSync instead of the default).
#include <warpkit.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <algorithm>

__global__ void k_empty(const float *, float *, size_t) {}
__global__ void k_write(const float *, float *o, size_t) { if (threadIdx.x == 0) o[0] = 1.f; }
__global__ void k_pdl_write(const float *, float *o, size_t) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (threadIdx.x == 0) o[0] = 1.f;
}
__global__ void k_pdl_only_wait(const float *, float *o, size_t) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (threadIdx.x == 0) o[0] = 1.f;
}
__global__ void k_pdl_only_dep(const float *, float *o, size_t) {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (threadIdx.x == 0) o[0] = 1.f;
}
template <bool Pdl>
__global__ void k_sum(const float *x, float *o, size_t n) {
    if (Pdl) asm volatile("griddepcontrol.wait;" ::: "memory");
    float a = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) a += x[i];
    if (Pdl) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    for (int d = 16; d; d >>= 1) a += __shfl_down_sync(~0u, a, d);
    __shared__ float s[32];
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x < 32) {
        a = threadIdx.x < blockDim.x / 32 ? s[threadIdx.x] : 0;
        for (int d = 16; d; d >>= 1) a += __shfl_down_sync(~0u, a, d);
        if (threadIdx.x == 0) o[0] = a;
    }
}
__global__ void k_to_host(const uint64_t *c, uint64_t *h) { *h = *c; }

static double per_call(const std::function<void()> &f, int reps = 5000) {
    for (int i = 0; i < 500; i++) f();
    cudaDeviceSynchronize();
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        auto t = std::chrono::steady_clock::now();
        for (int i = 0; i < reps; i++) f();
        double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count() / reps;
        best = std::min(best, us);
        cudaDeviceSynchronize();
    }
    return best;
}

template <class K>
static void launch(K kernel, bool pdl, unsigned grid, unsigned block, cudaStream_t s, const float *x, float *o, size_t n) {
    cudaLaunchAttribute a; a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {}; c.gridDim = dim3(grid); c.blockDim = dim3(block); c.stream = s; c.attrs = &a; c.numAttrs = pdl ? 1 : 0;
    cudaLaunchKernelEx(&c, kernel, x, o, n);
}

int main(int argc, char **argv) {
    if (argc > 1 && argv[1][0] == 's') cudaSetDeviceFlags(cudaDeviceScheduleSpin);
    if (argc > 1 && argv[1][0] == 'y') cudaSetDeviceFlags(cudaDeviceScheduleYield);
    if (argc > 1 && argv[1][0] == 'b') cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    wk_context *ctx;
    if (wk_create(&ctx, 0)) { printf("wk_create failed: %s\n", wk_last_error_message()); return 1; }
    size_t n = 1024;
    float *x, *o; uint64_t *cnt, *h, *mapped, pageable = 0;
    cudaMalloc(&x, 1 << 22); cudaMalloc(&o, 1 << 22); cudaMalloc(&cnt, 8);
    cudaMemset(x, 0, 1 << 22); cudaMemset(cnt, 0, 8);
    cudaMallocHost(&h, 64);
    cudaHostAlloc(&mapped, 64, cudaHostAllocMapped);
    uint64_t *mapped_dev; cudaHostGetDevicePointer(&mapped_dev, mapped, 0);
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    wk_predicate p = {}; p.compare = WK_GREATER; p.a.f32 = 0.5f;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);

    struct V { const char *name; std::function<void()> f; };
    V calls[] = {
        {"nothing", [&] {}},
        {"empty <<<1,256>>>", [&] { launch(k_empty, false, 1, 256, s, x, o, n); }},
        {"empty PDL", [&] { launch(k_empty, true, 1, 256, s, x, o, n); }},
        {"write", [&] { launch(k_write, false, 1, 256, s, x, o, n); }},
        {"write PDL", [&] { launch(k_write, true, 1, 256, s, x, o, n); }},
        {"wait+dep+write PDL", [&] { launch(k_pdl_write, true, 1, 256, s, x, o, n); }},
        {"wait+dep+write no attr", [&] { launch(k_pdl_write, false, 1, 256, s, x, o, n); }},
        {"wait+write PDL", [&] { launch(k_pdl_only_wait, true, 1, 256, s, x, o, n); }},
        {"dep+write PDL", [&] { launch(k_pdl_only_dep, true, 1, 256, s, x, o, n); }},
        {"sum1024 plain", [&] { launch(k_sum<false>, false, 1, 256, s, x, o, n); }},
        {"sum1024 PDL", [&] { launch(k_sum<true>, true, 1, 256, s, x, o, n); }},
        {"empty <<<132,256>>> PDL", [&] { launch(k_empty, true, 132, 256, s, x, o, n); }},
        {"wk_reduce 1024", [&] { wk_reduce(ctx, x, o, n, WK_F32, WK_SUM, s); }},
        {"wk_reduce 2^20", [&] { wk_reduce(ctx, x, o, 1 << 20, WK_F32, WK_SUM, s); }},
        {"wk_select_if 1024", [&] { wk_select_if(ctx, x, o, cnt, n, WK_F32, p, s); }},
        {"wk_inclusive_scan 1024", [&] { wk_inclusive_scan(ctx, x, o, n, WK_F32, WK_SUM, s); }},
    };
    printf("%-28s %9s %9s %9s %9s %9s %9s %9s\n", "call", "issue", "+sync", "+pinned", "+pageable", "+mapped_k", "gpu_ev", "batch16");
    for (auto &c : calls) {
        double issue = per_call(c.f, 20000);
        double sync = per_call([&] { c.f(); cudaStreamSynchronize(s); });
        double pin = per_call([&] { c.f(); cudaMemcpyAsync(h, cnt, 8, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); });
        double pag = per_call([&] { c.f(); cudaMemcpyAsync(&pageable, cnt, 8, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); });
        double mk = per_call([&] { c.f(); k_to_host<<<1, 1, 0, s>>>(cnt, mapped_dev); cudaStreamSynchronize(s); });
        // GPU time of 16 back-to-back calls between events, per call
        float best = 1e9;
        for (int r = 0; r < 20; r++) {
            cudaEventRecord(e0, s);
            for (int i = 0; i < 16; i++) c.f();
            cudaEventRecord(e1, s);
            cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); best = std::min(best, ms);
        }
        float one = 1e9;
        for (int r = 0; r < 50; r++) {
            cudaStreamSynchronize(s);
            cudaEventRecord(e0, s); c.f(); cudaEventRecord(e1, s); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); one = std::min(one, ms);
        }
        printf("%-28s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", c.name, issue, sync, pin, pag, mk, one * 1e3, best * 1e3 / 16);
        fflush(stdout);
    }
    printf("cudaStreamQuery idle %.2f\n", per_call([&] { cudaStreamQuery(s); }, 20000));
    printf("memcpy-only pinned+sync %.2f\n", per_call([&] { cudaMemcpyAsync(h, cnt, 8, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); }));
    printf("event record+sync idle %.2f\n", per_call([&] { cudaEventRecord(e0, s); cudaEventSynchronize(e0); }));
    return 0;
}
