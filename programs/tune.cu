/* `warpkit tune`: the seeds' advice to find the best launch parameters with
 * the profiler, automated. For each size it times kernel 07 over block sizes
 * and grid sizes, kernel 08 over block sizes (its grid follows from n), and
 * the production reduce over its three launch shapes and grid sizes, and
 * prints every combination and the best per kernel. */
#include "api/tuning.h"
#include "bench/bench.h"
#include "ref/generate.h"
#include "ladder/kernels/ladder.h"
#include "bench/timing.cuh"
#include "warpkit.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

struct trial {
    std::string kernel, setting;
    double us;
    bool planner_choice; /* the shape and grid wk_reduce would pick */
};

void print_best(const std::vector<trial> &trials, const char *kernel, size_t n, double bytes)
{
    const trial *best = nullptr;
    for (const trial &t : trials)
        if (t.kernel == kernel && (!best || t.us < best->us))
            best = &t;
    if (best)
        std::printf("best %-3s n=%-10zu %-40s %9.2f us  %7.1f GB/s\n", kernel, n, best->setting.c_str(), best->us,
                    bytes / (best->us * 1e3));
}

} // namespace

extern "C" int wk_tune_main(const wk_cli_options *o)
{
    if (o->dtype != WK_F64 && o->dtype != WK_F32 && o->dtype != WK_I32) {
        std::fprintf(stderr, "warpkit tune: --dtype is f64, f32 or i32\n");
        return 2;
    }
    wk_context *ctx;
    wk_status st = wk_create(&ctx, o->device);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "warpkit tune: %s\n", wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    WK_BENCH_CHECK(cudaSetDevice(wk_context_device(ctx)));
    const int sms = wk_context_sm_count(ctx);
    const wk_dtype dtype = o->dtype;
    const size_t elem = wk_dtype_size(dtype);
    /* --n picks one size; by default three: mid, large, and the seeds'. */
    std::vector<size_t> sizes;
    if (o->n_given)
        sizes.push_back(o->n);
    else
        sizes = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 26};

    size_t largest = 0;
    for (size_t n : sizes)
        largest = std::max(largest, n);
    std::vector<unsigned char> host(largest * elem);
    wk_generate(host.data(), largest, dtype, dtype == WK_I32 ? WK_GEN_SMALL_INTS : WK_GEN_UNIFORM,
                wk_seed_from_time());
    void *d_in, *d_scratch, *d_result;
    WK_BENCH_CHECK(cudaMalloc(&d_in, largest * elem));
    WK_BENCH_CHECK(cudaMemcpy(d_in, host.data(), largest * elem, cudaMemcpyHostToDevice));
    WK_BENCH_CHECK(cudaMalloc(&d_scratch, wk_ladder_scratch_bytes(largest, 64, dtype)));
    WK_BENCH_CHECK(cudaMalloc(&d_result, sizeof(wk_arg_result)));
    cudaStream_t s;
    WK_BENCH_CHECK(cudaStreamCreate(&s));

    size_t count;
    const wk_ladder_kernel *kernels = wk_ladder_kernels(&count);
    const unsigned block_sizes[] = {64, 128, 256, 512, 1024};
    const unsigned grid_per_sm[] = {1, 2, 4, 8, 16};

    std::printf("warpkit tune: %s, %d SMs; kernel time in us (median of %d)\n\n", wk_dtype_name(dtype), sms,
                o->repeats);
    std::printf("%-4s %-11s %-40s %10s\n", "row", "n", "setting", "us");
    for (size_t n : sizes) {
        std::vector<trial> trials;
        auto time_ladder = [&](const wk_ladder_kernel &k, unsigned threads, unsigned grid) {
            return wk::bench::median_us(
                [&](long long) {
                    wk_ladder_call call = {d_in, n, dtype, threads, d_scratch, d_result, s, 0, 0, 0, 0, grid};
                    return k.enqueue(&call) == cudaSuccess;
                },
                o->repeats, s);
        };
        for (unsigned threads : block_sizes) {
            std::vector<unsigned> grids;
            for (unsigned g : grid_per_sm)
                grids.push_back(g * (unsigned)sms);
            grids.push_back(2048); /* the seeds' choice */
            for (unsigned grid : grids) {
                char setting[64];
                std::snprintf(setting, sizeof setting, "threads %4u, grid %5u", threads, grid);
                trials.push_back({"07", setting, time_ladder(kernels[6], threads, grid), false});
            }
            char setting[64];
            std::snprintf(setting, sizeof setting, "threads %4u", threads);
            trials.push_back({"08", setting, time_ladder(kernels[7], threads, 0), false});
        }
        wk_reduce_plan plan;
        if (wk_reduce_plan_of(ctx, d_in, n, dtype, &plan) != WK_SUCCESS) {
            std::fprintf(stderr, "warpkit tune: %s\n", wk_last_error_message());
            wk_destroy(ctx);
            return 2;
        }
        const wk_reduce_shape shapes[] = {WK_SHAPE_WIDE, WK_SHAPE_DEEP};
        for (wk_reduce_shape shape : shapes) {
            unsigned per_sm = shape == WK_SHAPE_DEEP ? WK_DEEP_BLOCKS_PER_SM : WK_WIDE_BLOCKS_PER_SM;
            for (unsigned g : grid_per_sm) {
                if (g > per_sm)
                    break;
                unsigned grid = g * (unsigned)sms;
                double us = wk::bench::median_us(
                    [&](long long) {
                        return wk_reduce_shaped(ctx, d_in, d_result, n, dtype, WK_SUM, shape, grid, s) == WK_SUCCESS;
                    },
                    o->repeats, s);
                char setting[64];
                std::snprintf(setting, sizeof setting, "%s x %u, grid %5u", shape == WK_SHAPE_DEEP ? "deep" : "wide",
                              shape == WK_SHAPE_DEEP ? WK_DEEP_THREADS : WK_WIDE_THREADS, grid);
                trials.push_back({"12", setting, us, shape == plan.shape && grid == plan.grid});
            }
        }
        /* The tiles shape: one 32 KiB tile a block, as many blocks as tiles,
         * then grids that give each block 2 to 16 consecutive tiles. */
        for (unsigned per_block = 1; per_block <= 16; per_block *= 2) {
            wk_reduce_plan tiled = plan;
            wk_plan_reduce_tiles(&tiled, WK_TILES_MAX_BLOCKS);
            unsigned cap = per_block == 1 ? WK_TILES_MAX_BLOCKS : std::max(1u, tiled.grid / per_block);
            if (per_block > 1 && cap == 1)
                break;
            wk_plan_reduce_tiles(&tiled, cap);
            double us = wk::bench::median_us(
                [&](long long) {
                    return wk_reduce_shaped(ctx, d_in, d_result, n, dtype, WK_SUM, WK_SHAPE_TILES, cap, s) ==
                           WK_SUCCESS;
                },
                o->repeats, s);
            char setting[64];
            std::snprintf(setting, sizeof setting, "tiles x %u, grid %6u (%u a block)", WK_TILES_THREADS, tiled.grid,
                          tiled.tiles_per_block);
            trials.push_back({"12", setting, us,
                              plan.shape == WK_SHAPE_TILES && tiled.grid == plan.grid &&
                                  tiled.tiles_per_block == plan.tiles_per_block});
        }
        if (wk_reduce_shaped(ctx, d_in, d_result, n, dtype, WK_SUM, WK_SHAPE_CLUSTER, WK_CLUSTER_BLOCKS, s) ==
            WK_SUCCESS) {
            /* The cluster shape, on devices that launch clusters. */
            double us = wk::bench::median_us(
                [&](long long) {
                    return wk_reduce_shaped(ctx, d_in, d_result, n, dtype, WK_SUM, WK_SHAPE_CLUSTER,
                                            WK_CLUSTER_BLOCKS, s) == WK_SUCCESS;
                },
                o->repeats, s);
            char setting[64];
            std::snprintf(setting, sizeof setting, "cluster %u x %u", WK_CLUSTER_BLOCKS, WK_CLUSTER_THREADS);
            trials.push_back({"12", setting, us, plan.shape == WK_SHAPE_CLUSTER});
        }
        double planned_us = wk::bench::median_us(
            [&](long long) { return wk_reduce(ctx, d_in, d_result, n, dtype, WK_SUM, s) == WK_SUCCESS; }, o->repeats,
            s);
        char setting[64];
        std::snprintf(setting, sizeof setting, "as planned: %s, grid %u",
                      plan.shape == WK_SHAPE_DEEP      ? "deep"
                      : plan.shape == WK_SHAPE_TILES   ? "tiles"
                      : plan.shape == WK_SHAPE_CLUSTER ? "cluster"
                                                       : "wide",
                      plan.grid);
        trials.push_back({"12", setting, planned_us, true});

        for (const trial &t : trials)
            std::printf("%-4s %-11zu %-40s %10.2f%s\n", t.kernel.c_str(), n, t.setting.c_str(), t.us,
                        t.planner_choice ? "  (wk_reduce's choice)" : "");
        std::printf("\n");
        for (const char *k : {"07", "08", "12"})
            print_best(trials, k, n, (double)n * elem);
        std::printf("\n");
    }
    WK_BENCH_CHECK(cudaFree(d_in));
    WK_BENCH_CHECK(cudaFree(d_scratch));
    WK_BENCH_CHECK(cudaFree(d_result));
    WK_BENCH_CHECK(cudaStreamDestroy(s));
    wk_destroy(ctx);
    return 0;
}
