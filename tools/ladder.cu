/* `warpkit ladder`: the seeds' reduction kernels, one row each, verified
 * against the CPU reference and timed: kernel time with CUDA events (median
 * of repeats), total time with the input's trip to the device and the
 * result's trip back, bandwidth and its share of the read ceiling. Rows 12
 * (warpkit's production reduce) and cub (CUB's DeviceReduce::Sum) close it. */
#include "bench.h"
#include "generate.h"
#include "ladder/ladder.h"
#include "ladder_tolerance.h"
#include "reduce/plan.h"
#include "timing.cuh"
#include "warpkit.h"

#include <cub/device/device_reduce.cuh>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct row {
    std::string id, title;
    unsigned blocks = 0, launches = 0;
    double kernel_us = 0, total_us = 0, gbs = 0, pct = 0, speedup = 0;
    double got = 0, tolerance = 0;
    bool pass = false;
};

/* The input, where --memory says it lives, and the device copy kernels read. */
struct input {
    wk_memory_kind kind;
    size_t bytes;
    std::vector<unsigned char> host; /* the generated values */
    void *source = nullptr;          /* pinned or pageable host copy, or managed */
    void *device = nullptr;          /* what the kernels read */

    /* Puts the input where a fresh run finds it: host memory, or managed
     * memory last touched by the host. */
    void stage_source()
    {
        if (kind != WK_MEMORY_DEVICE)
            std::memcpy(source, host.data(), bytes);
    }
    /* The copy to the device that a run starts with (none for device and
     * managed memory). */
    void copy_in(cudaStream_t s)
    {
        if (kind == WK_MEMORY_PINNED || kind == WK_MEMORY_PAGEABLE)
            WK_BENCH_CHECK(cudaMemcpyAsync(device, source, bytes, cudaMemcpyHostToDevice, s));
    }
};

void allocate(input &in)
{
    switch (in.kind) {
    case WK_MEMORY_DEVICE:
        WK_BENCH_CHECK(cudaMalloc(&in.device, in.bytes));
        WK_BENCH_CHECK(cudaMemcpy(in.device, in.host.data(), in.bytes, cudaMemcpyHostToDevice));
        break;
    case WK_MEMORY_MANAGED:
        WK_BENCH_CHECK(cudaMallocManaged(&in.source, in.bytes));
        in.device = in.source;
        break;
    case WK_MEMORY_PINNED:
        WK_BENCH_CHECK(cudaMallocHost(&in.source, in.bytes));
        WK_BENCH_CHECK(cudaMalloc(&in.device, in.bytes));
        break;
    case WK_MEMORY_PAGEABLE:
        in.source = std::malloc(in.bytes);
        WK_BENCH_CHECK(in.source ? cudaSuccess : cudaErrorMemoryAllocation);
        WK_BENCH_CHECK(cudaMalloc(&in.device, in.bytes));
        break;
    }
    in.stage_source();
    in.copy_in(0);
    WK_BENCH_CHECK(cudaDeviceSynchronize());
}

void release(input &in)
{
    if (in.kind == WK_MEMORY_PINNED)
        cudaFreeHost(in.source);
    if (in.kind == WK_MEMORY_PAGEABLE)
        std::free(in.source);
    cudaFree(in.device);
}

double load(const void *p, size_t i, wk_dtype d)
{
    if (d == WK_F64)
        return static_cast<const double *>(p)[i];
    if (d == WK_F32)
        return static_cast<const float *>(p)[i];
    return static_cast<const int32_t *>(p)[i];
}

/* One way to compute the sum: enqueue it, then fetch the value (which, for
 * kernel 01, finishes the sum on the host). */
struct method {
    std::string id, title;
    std::function<void(cudaStream_t)> enqueue;
    std::function<double()> fetch; /* after the stream is synchronized */
    unsigned blocks, launches;
    size_t depth;
};

double fetch_device_value(const void *d_value, wk_dtype dtype)
{
    unsigned char buf[8];
    WK_BENCH_CHECK(cudaMemcpy(buf, d_value, wk_dtype_size(dtype), cudaMemcpyDeviceToHost));
    return load(buf, 0, dtype);
}

row measure(const method &m, input &in, wk_dtype dtype, size_t n, int repeats, double read_gbs, double abs_sum,
            long double exact, cudaStream_t s)
{
    row r;
    r.id = m.id;
    r.title = m.title;
    r.blocks = m.blocks;
    r.launches = m.launches;
    std::string range = "ladder " + m.id;
    nvtxRangePushA(range.c_str());
    r.kernel_us = wk::bench::median_us(
        [&](long long) {
            m.enqueue(s);
            return cudaGetLastError() == cudaSuccess;
        },
        repeats, s, 0.0 /* one call per batch: each run is timed on its own */);

    std::vector<double> totals;
    for (int k = 0; k < 5; ++k) {
        in.stage_source();
        WK_BENCH_CHECK(cudaDeviceSynchronize());
        auto t0 = std::chrono::steady_clock::now();
        in.copy_in(s);
        m.enqueue(s);
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
        r.got = m.fetch();
        auto t1 = std::chrono::steady_clock::now();
        totals.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    nvtxRangePop();
    std::sort(totals.begin(), totals.end());
    r.total_us = totals[totals.size() / 2];
    r.gbs = n * wk_dtype_size(dtype) / (r.kernel_us * 1e3);
    r.pct = 100.0 * r.gbs / read_gbs;
    r.tolerance = wk_ladder_tolerance(dtype, m.depth, abs_sum);
    r.pass = std::fabs((long double)r.got - exact) <= r.tolerance;
    return r;
}

void print_row(const row &r, size_t n, unsigned threads)
{
    std::printf("Kernel %s: %s\n", r.id.c_str(), r.title.c_str());
    std::printf("  vector size %zu, threads %u, blocks %u, launches %u\n", n, threads, r.blocks, r.launches);
    std::printf("  kernel time %.3f ms, total time %.3f ms\n", r.kernel_us / 1e3, r.total_us / 1e3);
    std::printf("  bandwidth %.1f GB/s (%.1f %% of the read ceiling), speed-up over 01 x%.2f\n", r.gbs, r.pct,
                r.speedup);
    std::printf("  sum %.17g (tolerance %.3g)\n  %s\n\n", r.got, r.tolerance, r.pass ? "TEST PASS" : "TEST FAIL");
}

void write_files(const wk_cli_options *o, const wk_ceilings &c, const std::vector<row> &rows)
{
    if (o->json_path) {
        FILE *f = std::fopen(o->json_path, "w");
        if (!f) {
            std::fprintf(stderr, "warpkit ladder: cannot write %s\n", o->json_path);
            std::exit(2);
        }
        cudaDeviceProp p;
        WK_BENCH_CHECK(cudaGetDeviceProperties(&p, 0));
        std::fprintf(f,
                     "{\n \"device\": \"%s\",\n \"ceilings\": {\"read_gbs\": %.1f, \"copy_gbs\": %.1f},\n"
                     " \"n\": %zu, \"dtype\": \"%s\", \"threads\": %u, \"memory\": \"%s\",\n \"rows\": [\n",
                     p.name, c.read_gbs, c.copy_gbs, o->n, wk_dtype_name(o->dtype), o->threads,
                     wk_memory_name(o->memory));
        for (size_t i = 0; i < rows.size(); ++i) {
            const row &r = rows[i];
            std::fprintf(f,
                         "  {\"id\": \"%s\", \"title\": \"%s\", \"blocks\": %u, \"launches\": %u, \"kernel_us\": %.3f, "
                         "\"total_us\": %.3f, \"gbs\": %.1f, \"pct_of_ceiling\": %.1f, \"speedup_vs_01\": %.3f, "
                         "\"pass\": %s}%s\n",
                         r.id.c_str(), r.title.c_str(), r.blocks, r.launches, r.kernel_us, r.total_us, r.gbs, r.pct,
                         r.speedup, r.pass ? "true" : "false", i + 1 < rows.size() ? "," : "");
        }
        std::fprintf(f, " ]\n}\n");
        std::fclose(f);
    }
    if (o->csv_path) {
        FILE *f = std::fopen(o->csv_path, "w");
        if (!f) {
            std::fprintf(stderr, "warpkit ladder: cannot write %s\n", o->csv_path);
            std::exit(2);
        }
        std::fprintf(f, "id,title,n,dtype,threads,memory,blocks,launches,kernel_us,total_us,gbs,pct_of_ceiling,"
                        "speedup_vs_01,pass\n");
        for (const row &r : rows)
            std::fprintf(f, "%s,\"%s\",%zu,%s,%u,%s,%u,%u,%.3f,%.3f,%.1f,%.1f,%.3f,%s\n", r.id.c_str(),
                         r.title.c_str(), o->n, wk_dtype_name(o->dtype), o->threads, wk_memory_name(o->memory),
                         r.blocks, r.launches, r.kernel_us, r.total_us, r.gbs, r.pct, r.speedup,
                         r.pass ? "PASS" : "FAIL");
        std::fclose(f);
    }
}

template <class T> method cub_method(const input &in, size_t n, void *d_result)
{
    size_t temp_bytes = 0;
    WK_BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, static_cast<const T *>(in.device),
                                          static_cast<T *>(d_result), (int64_t)n));
    void *temp;
    WK_BENCH_CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    method m;
    m.id = "cub";
    m.title = "CUB DeviceReduce::Sum (reference row)";
    m.enqueue = [=](cudaStream_t s) {
        size_t bytes = temp_bytes;
        cub::DeviceReduce::Sum(temp, bytes, static_cast<const T *>(in.device), static_cast<T *>(d_result),
                               (int64_t)n, s);
    };
    m.blocks = 0;
    m.launches = 0; /* CUB decides; not reported here */
    m.depth = n;    /* CUB's order is not known here: the worst case of any order */
    return m;
}

} // namespace

extern "C" int wk_ladder_main(const wk_cli_options *o)
{
    if (o->dtype != WK_F64 && o->dtype != WK_F32 && o->dtype != WK_I32) {
        std::fprintf(stderr, "warpkit ladder: --dtype is f64, f32 or i32\n");
        return 2;
    }
    wk_context *ctx;
    wk_status st = wk_create(&ctx, o->device);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "warpkit ladder: %s\n", wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    WK_BENCH_CHECK(cudaSetDevice(wk_context_device(ctx)));
    const size_t n = o->n;
    const wk_dtype dtype = o->dtype;

    input in;
    in.kind = o->memory;
    in.bytes = n * wk_dtype_size(dtype);
    in.host.resize(in.bytes);
    uint64_t seed = wk_seed_from_time();
    /* Integers small enough that no partial sum of any kernel overflows. */
    wk_generate(in.host.data(), n, dtype, dtype == WK_I32 ? WK_GEN_SMALL_INTS : WK_GEN_UNIFORM, seed);
    long double exact = 0, abs_sum = 0;
    for (size_t i = 0; i < n; ++i) {
        double x = load(in.host.data(), i, dtype);
        exact += x;
        abs_sum += std::fabs(x);
    }
    allocate(in);

    std::printf("warpkit ladder: n = %zu %s, %u threads, input in %s memory, seed %llu\n\n", n,
                wk_dtype_name(dtype), o->threads, wk_memory_name(o->memory), (unsigned long long)seed);
    wk_ceilings c;
    wk_measure_ceilings(&c);

    void *d_scratch, *d_result;
    WK_BENCH_CHECK(cudaMalloc(&d_scratch, wk_ladder_scratch_bytes(n, o->threads, dtype)));
    WK_BENCH_CHECK(cudaMalloc(&d_result, sizeof(wk_arg_result)));
    cudaStream_t s;
    WK_BENCH_CHECK(cudaStreamCreate(&s));

    std::vector<method> methods;
    size_t count;
    const wk_ladder_kernel *kernels = wk_ladder_kernels(&count);
    for (size_t k = 0; k < count; ++k) {
        const wk_ladder_kernel *kern = &kernels[k];
        wk_ladder_call probe = {in.device, n, dtype, o->threads, d_scratch, d_result, s, 0, 0, 0, 0};
        WK_BENCH_CHECK(kern->enqueue(&probe)); /* learns its shape; the run is timed later */
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
        method m;
        m.id = kern->id;
        m.title = kern->title;
        m.blocks = probe.blocks;
        m.launches = probe.launches;
        m.depth = wk_ladder_depth(n, probe.serial);
        m.enqueue = [=](cudaStream_t st) {
            wk_ladder_call call = {in.device, n, dtype, o->threads, d_scratch, d_result, st, 0, 0, 0, 0};
            kern->enqueue(&call);
        };
        size_t partials = probe.host_partials;
        m.fetch = [=]() {
            if (partials == 0)
                return fetch_device_value(d_result, dtype);
            /* Kernel 01: the host adds the blocks' partial sums. */
            std::vector<unsigned char> h(partials * wk_dtype_size(dtype));
            WK_BENCH_CHECK(cudaMemcpy(h.data(), d_scratch, h.size(), cudaMemcpyDeviceToHost));
            long double sum = 0;
            for (size_t i = 0; i < partials; ++i)
                sum += load(h.data(), i, dtype);
            if (dtype == WK_I32)
                return (double)(int32_t)(uint32_t)(long long)sum;
            return (double)sum;
        };
        methods.push_back(m);
    }

    method production;
    production.id = "12";
    production.title = "warpkit production reduce (wk_reduce)";
    production.enqueue = [=](cudaStream_t st) { wk_reduce(ctx, in.device, d_result, n, dtype, WK_SUM, st); };
    production.fetch = [=]() { return fetch_device_value(d_result, dtype); };
    wk_reduce_plan plan;
    wk_plan_reduce((uintptr_t)in.device, n, wk_dtype_size(dtype), wk_context_sm_count(ctx), &plan);
    production.blocks = plan.grid;
    production.launches = 1;
    production.depth = wk_reduce_plan_depth(&plan);
    methods.push_back(production);

    method cub = dtype == WK_F64   ? cub_method<double>(in, n, d_result)
                 : dtype == WK_F32 ? cub_method<float>(in, n, d_result)
                                   : cub_method<int>(in, n, d_result);
    cub.fetch = production.fetch;
    methods.push_back(cub);

    std::vector<row> rows;
    double base_us = 0;
    for (const method &m : methods) {
        if (!wk_cli_selected(o->only, m.id.c_str()))
            continue;
        if (o->ncu) {
            std::printf("ncu --nvtx --nvtx-include \"ladder %s/\" --set full warpkit ladder --only %s --n %zu "
                        "--dtype %s --threads %u --repeats 1\n",
                        m.id.c_str(), m.id.c_str(), n, wk_dtype_name(dtype), o->threads);
            continue;
        }
        row r = measure(m, in, dtype, n, o->repeats, c.read_gbs, (double)abs_sum, exact, s);
        if (m.id == "01")
            base_us = r.kernel_us;
        r.speedup = base_us > 0 ? base_us / r.kernel_us : 0;
        print_row(r, n, o->threads);
        rows.push_back(r);
    }

    int failed = 0;
    if (!rows.empty()) {
        std::printf("%-4s %-48s %8s %11s %11s %9s %7s %8s %s\n", "id", "kernel", "blocks", "kernel_ms", "total_ms",
                    "GB/s", "%read", "vs 01", "test");
        for (const row &r : rows) {
            std::printf("%-4s %-48.48s %8u %11.4f %11.4f %9.1f %7.1f %8.2f %s\n", r.id.c_str(), r.title.c_str(),
                        r.blocks, r.kernel_us / 1e3, r.total_us / 1e3, r.gbs, r.pct, r.speedup,
                        r.pass ? "TEST PASS" : "TEST FAIL");
            failed += !r.pass;
        }
        std::printf("ceilings: read %.1f GB/s, copy %.1f GB/s\n", c.read_gbs, c.copy_gbs);
    }
    write_files(o, c, rows);

    release(in);
    cudaFree(d_scratch);
    cudaFree(d_result);
    cudaStreamDestroy(s);
    wk_destroy(ctx);
    return failed ? 1 : 0;
}
