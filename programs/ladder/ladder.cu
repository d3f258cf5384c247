/* `warpkit ladder`: the seeds' reduction kernels, one row each, verified
 * against the CPU reference and timed: kernel time with CUDA events (median
 * of repeats), total time with the input's trip to the device and the
 * result's trip back, bandwidth and its share of the read ceiling. Rows 12
 * (warpkit's production reduce) and cub (CUB's DeviceReduce::Sum) close it.
 * `--op scan` runs the scan ladder instead (ladder_scan.cu). */
#include "api/tuning.h"
#include "bench/bench.h"
#include "ref/generate.h"
#include "ladder/kernels/ladder.h"
#include "ladder/ladder_report.cuh"
#include "ladder/ladder_tolerance.h"
#include "reduce/plan.h"
#include "bench/timing.cuh"
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

using wk_ladder_tool::row;

const wk_ladder_tool::kind reduce_ladder = {"warpkit ladder", "reduce", "read", "01", true};

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

using wk_ladder_tool::load;

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
    r.kernel_us = wk_ladder_tool::kernel_time_us(m.enqueue, repeats, s);

    std::vector<double> totals;
    double got = 0;
    for (int k = 0; k < 5; ++k) {
        in.stage_source();
        WK_BENCH_CHECK(cudaDeviceSynchronize());
        auto t0 = std::chrono::steady_clock::now();
        in.copy_in(s);
        m.enqueue(s);
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
        got = m.fetch();
        auto t1 = std::chrono::steady_clock::now();
        totals.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    nvtxRangePop();
    std::sort(totals.begin(), totals.end());
    r.total_us = totals[totals.size() / 2];
    r.gbs = n * wk_dtype_size(dtype) / (r.kernel_us * 1e3);
    r.pct = 100.0 * r.gbs / read_gbs;
    double tolerance = wk_ladder_tolerance(dtype, m.depth, abs_sum);
    r.pass = std::fabs((long double)got - exact) <= tolerance;
    char detail[96];
    std::snprintf(detail, sizeof detail, "sum %.17g (tolerance %.3g)", got, tolerance);
    r.detail = detail;
    return r;
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
    if (o->primitive == WK_PRIMITIVE_SCAN)
        return wk_ladder_scan_main(o);
    wk_context *ctx;
    if (int status = wk_ladder_tool::open_context(o, reduce_ladder, &ctx))
        return status;
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
    if (wk_reduce_plan_of(ctx, in.device, n, dtype, &plan) != WK_SUCCESS) {
        std::fprintf(stderr, "warpkit ladder: %s\n", wk_last_error_message());
        wk_destroy(ctx);
        return 2;
    }
    production.blocks = plan.grid;
    production.launches = 1;
    production.depth = wk_reduce_plan_depth(&plan);
    methods.push_back(production);

    method cub = dtype == WK_F64   ? cub_method<double>(in, n, d_result)
                 : dtype == WK_F32 ? cub_method<float>(in, n, d_result)
                                   : cub_method<int>(in, n, d_result);
    cub.fetch = production.fetch;
    methods.push_back(cub);

    const std::vector<row> rows = wk_ladder_tool::run_rows(
        o, reduce_ladder, n, o->threads, methods,
        [&](const method &m) { return measure(m, in, dtype, n, o->repeats, c.read_gbs, (double)abs_sum, exact, s); },
        [](const std::string &) { return true; });

    int status = wk_ladder_tool::finish(o, c, rows, reduce_ladder);

    release(in);
    cudaFree(d_scratch);
    cudaFree(d_result);
    cudaStreamDestroy(s);
    wk_destroy(ctx);
    return status;
}
