/* `warpkit info`: what the device is, and what its memory delivers. */
#include "bench/bench.h"
#include "warpkit.h"

#include <cuda_runtime.h>
#include <cstdio>

extern "C" int wk_info_main(const wk_cli_options *opts)
{
    wk_context *ctx;
    wk_status st = wk_create(&ctx, opts->device);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "warpkit info: %s\n", wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    int device = wk_context_device(ctx);
    cudaDeviceProp p;
    int driver = 0, runtime = 0, mem_clock_khz = 0, bus_bits = 0;
    if (cudaSetDevice(device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) {
        std::fprintf(stderr, "warpkit info: cannot read the device's properties\n");
        return 2;
    }
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, device);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);

    std::printf("device            %d: %s (compute capability %d.%d)\n", device, p.name, p.major, p.minor);
    std::printf("multiprocessors   %d\n", p.multiProcessorCount);
    std::printf("L2 cache          %.1f MiB\n", p.l2CacheSize / 1048576.0);
    std::printf("memory            %.1f GiB, %d-bit bus, %.0f MHz\n", p.totalGlobalMem / 1073741824.0, bus_bits,
                mem_clock_khz / 1000.0);
    /* Double data rate: two transfers per clock. */
    std::printf("memory (datasheet) %.0f GB/s\n", 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8) / 1e9);
    std::printf("CUDA              driver %d.%d, runtime %d.%d\n", driver / 1000, driver % 1000 / 10, runtime / 1000,
                runtime % 1000 / 10);

    wk_ceilings c;
    wk_measure_ceilings(&c);
    std::printf("read ceiling      %.1f GB/s (measured: best streaming read)\n", c.read_gbs);
    std::printf("copy ceiling      %.1f GB/s (measured: device-to-device copy, read + write)\n", c.copy_gbs);
    wk_destroy(ctx);
    return 0;
}
