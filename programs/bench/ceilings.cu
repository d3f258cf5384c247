/* The memory-bandwidth ceilings that benchmark results are reported against.
 *
 * The read ceiling is the best of several streaming-read kernels (16-byte
 * loads, 2 to 8 in flight per thread, a few persistent grid sizes, and
 * grids of one 16 or 32 KiB tile per block): a single naive kernel
 * undercounts what the memory system delivers. The copy ceiling is a
 * device-to-device cudaMemcpyAsync, counting bytes read plus bytes written. */
#include "bench/bench.h"
#include "bench/timing.cuh"

namespace {

constexpr size_t ceiling_bytes = (size_t)4 << 30; /* far larger than L2 */

/* Reads every 16-byte vector once. The xor of what it read is written only
 * if it matches an impossible key, so the loads cannot be optimised away. */
template <int InFlight>
__global__ void __launch_bounds__(256) read_stream(const uint4 *__restrict__ p, size_t nvec, unsigned key,
                                                   unsigned *sink)
{
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = 0;
    for (; i + (InFlight - 1) * threads < nvec; i += InFlight * threads) {
        uint4 v[InFlight];
#pragma unroll
        for (int u = 0; u < InFlight; ++u)
            v[u] = __ldg(p + i + u * threads);
#pragma unroll
        for (int u = 0; u < InFlight; ++u)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < nvec; i += threads) {
        uint4 v = __ldg(p + i);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == key)
        *sink = x;
}

/* Reads every 16-byte vector once, a tile of Vectors vectors per thread per
 * block and a grid that covers the input once: blocks that start in order
 * read it as a moving window, which streams faster on some GPUs than the
 * grid-stride loop above. */
template <int Vectors>
__global__ void __launch_bounds__(256) read_tiles(const uint4 *__restrict__ p, size_t nvec, unsigned key,
                                                  unsigned *sink)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x * Vectors + threadIdx.x;
    uint4 v[Vectors];
#pragma unroll
    for (int u = 0; u < Vectors; ++u)
        v[u] = first + u * blockDim.x < nvec ? __ldg(p + first + u * blockDim.x) : make_uint4(0, 0, 0, 0);
    unsigned x = 0;
#pragma unroll
    for (int u = 0; u < Vectors; ++u)
        x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    if (x == key)
        *sink = x;
}

template <int Vectors> double tiles_read_gbs(const uint4 *buf, size_t nvec, unsigned *sink, cudaStream_t s)
{
    const unsigned grid = (unsigned)((nvec + 256 * Vectors - 1) / (256 * Vectors));
    double us = wk::bench::median_us(
        [&](long long) {
            read_tiles<Vectors><<<grid, 256, 0, s>>>(buf, nvec, 0xdeadbeefu, sink);
            return cudaGetLastError() == cudaSuccess;
        },
        7, s);
    return nvec * 16.0 / (us * 1e3);
}

__global__ void fill_pattern(uint4 *p, size_t nvec)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_uint4((unsigned)i, (unsigned)(i >> 7), 0x9e3779b9u ^ (unsigned)i, 1u);
}

template <int InFlight>
double best_read_gbs(const uint4 *buf, size_t nvec, unsigned *sink, int sms, cudaStream_t s)
{
    double best = 0;
    for (int blocks_per_sm : {4, 8, 16, 32}) {
        unsigned grid = (unsigned)(sms * blocks_per_sm);
        double us = wk::bench::median_us(
            [&](long long) {
                read_stream<InFlight><<<grid, 256, 0, s>>>(buf, nvec, 0xdeadbeefu, sink);
                return cudaGetLastError() == cudaSuccess;
            },
            7, s);
        best = std::max(best, nvec * 16.0 / (us * 1e3));
    }
    return best;
}

} // namespace

extern "C" int wk_measure_ceilings(wk_ceilings *out)
{
    int device, sms;
    WK_BENCH_CHECK(cudaGetDevice(&device));
    WK_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    cudaStream_t s;
    WK_BENCH_CHECK(cudaStreamCreate(&s));
    uint4 *buf;
    unsigned *sink;
    size_t nvec = ceiling_bytes / 16;
    WK_BENCH_CHECK(cudaMalloc(&buf, ceiling_bytes));
    WK_BENCH_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    fill_pattern<<<sms * 8, 256, 0, s>>>(buf, nvec);
    WK_BENCH_CHECK(cudaGetLastError());

    out->read_gbs = std::max({best_read_gbs<2>(buf, nvec, sink, sms, s), best_read_gbs<4>(buf, nvec, sink, sms, s),
                              best_read_gbs<8>(buf, nvec, sink, sms, s), tiles_read_gbs<4>(buf, nvec, sink, s),
                              tiles_read_gbs<8>(buf, nvec, sink, s)});

    size_t half = ceiling_bytes / 2;
    char *base = reinterpret_cast<char *>(buf);
    double copy_us = wk::bench::median_us(
        [&](long long) { return cudaMemcpyAsync(base + half, base, half, cudaMemcpyDeviceToDevice, s) == cudaSuccess; },
        7, s);
    out->copy_gbs = 2.0 * half / (copy_us * 1e3);

    WK_BENCH_CHECK(cudaStreamSynchronize(s));
    WK_BENCH_CHECK(cudaFree(buf));
    WK_BENCH_CHECK(cudaFree(sink));
    WK_BENCH_CHECK(cudaStreamDestroy(s));
    return 0;
}
