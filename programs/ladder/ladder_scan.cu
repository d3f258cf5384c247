/* `warpkit ladder --op scan`: the seeds' three-kernel prefix sum
 * (programs/ladder/kernels/scan_three_pass.cu), each kernel timed on its own and the
 * three together, beside warpkit's single-pass scan and CUB's.
 *
 * Rows:
 *   s1    block scans (one thread per element), block sums to scratch
 *   s2    scan of the block sums (recursive when they fill more than a block)
 *   s3    add-back of the scanned block sums
 *   s123  s1, s2 and s3 in a row: the whole three-kernel scan
 *   wk    wk_inclusive_scan
 *   cub   cub::DeviceScan::InclusiveSum
 *
 * Each row's kernel time is the median of --repeats runs timed one by one
 * with CUDA events. Bytes are what the row's kernels must move: n read and n
 * written for s1, s3 and the whole scans, the block sums read and their scan
 * written for s2; bandwidth is reported against the copy ceiling.
 *
 * Each row is then run once more on a poisoned output and compared with a
 * CPU reference: the exact inclusive prefix (wk_ref_exact_sum, restarted at
 * every block for s1), exact for i32 (modulo 2^32), and for floats within
 * depth * eps * (the sum of |x| that the output covers), depth being the
 * most rounded additions on the way from an input to that output. */
#include "ref/generate.h"
#include "ladder/kernels/scan_ladder.h"
#include "ladder/ladder_report.cuh"
#include "ladder/ladder_tolerance.h"
#include "scan/plan.h"
#include "ref/scan_reference.h"
#include "bench/timing.cuh"
#include "warpkit.h"

#include <cub/device/device_scan.cuh>
#include <nvtx3/nvToolsExt.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using wk_ladder_tool::load;
using wk_ladder_tool::row;

const wk_ladder_tool::kind scan_ladder = {"warpkit ladder", "scan", "copy", "s123", false};

/* ---------------------------------------------------------- the checks */

/* Which prefixes a device array should hold: element k is the inclusive
 * prefix ending at input element min((k + 1) stride, n) - 1, restarted every
 * `segment` elements; `depth(i)` bounds the rounded additions behind the
 * output that ends at element i. */
struct expectation {
    const char *what; /* "output", "block sum", ... */
    size_t stride, segment;
    std::function<size_t(size_t)> depth;
};

struct verdict {
    bool pass = true;
    std::string detail;
};

std::vector<unsigned char> fetch(const void *d, size_t count, wk_dtype dtype)
{
    std::vector<unsigned char> h(count * wk_dtype_size(dtype));
    WK_BENCH_CHECK(cudaMemcpy(h.data(), d, h.size(), cudaMemcpyDeviceToHost));
    return h;
}

/* Compares `got` (device, one value per expected prefix) with the CPU's. */
verdict check(const std::vector<unsigned char> &input, size_t n, wk_dtype dtype, const void *d_got,
              const expectation &e)
{
    const size_t count = (n + e.stride - 1) / e.stride;
    std::vector<unsigned char> got = fetch(d_got, count, dtype);
    wk_ref_exact_sum sum = {}; /* floats: the exact prefix and its sum of |x| */
    uint32_t iprefix = 0;      /* i32 wraps as the GPU's unsigned arithmetic does */
    size_t bad = 0, k = 0;
    double worst = 0; /* largest error as a fraction of its tolerance */
    char first[192] = "";
    for (size_t i = 0; i < n; ++i) {
        if (i % e.segment == 0)
            sum = wk_ref_exact_sum{}, iprefix = 0;
        double x = load(input.data(), i, dtype);
        if (dtype == WK_I32)
            iprefix += (uint32_t)(int32_t)x;
        else
            wk_ref_exact_sum_add(&sum, x);
        if ((i + 1) % e.stride != 0 && i + 1 != n)
            continue;
        double g = load(got.data(), k, dtype);
        bool ok;
        double tolerance = 0;
        long double prefix = 0;
        if (dtype == WK_I32) {
            ok = (uint32_t)(int32_t)g == iprefix;
        } else {
            prefix = wk_ref_exact_sum_value(&sum);
            /* depth * eps = 2 depth u: first-order bound, doubled */
            tolerance = wk_ladder_tolerance(dtype, 2 * e.depth(i), (double)wk_ref_exact_sum_abs(&sum));
            double error = (double)std::fabs((long double)g - prefix);
            ok = error <= tolerance; /* false for NaN */
            if (ok && tolerance > 0)
                worst = std::max(worst, error / tolerance);
        }
        if (!ok && bad++ == 0) {
            if (dtype == WK_I32)
                std::snprintf(first, sizeof first, "first at %s %zu (element %zu): got %d, expected %d", e.what, k, i,
                              (int32_t)g, (int32_t)iprefix);
            else
                std::snprintf(first, sizeof first, "first at %s %zu (element %zu): got %.17g, expected %.17Lg, "
                              "tolerance %.3g", e.what, k, i, g, prefix, tolerance);
        }
        k++;
    }
    verdict v;
    char text[320];
    if (bad) {
        v.pass = false;
        std::snprintf(text, sizeof text, "%zu of %zu %ss wrong; %s", bad, count, e.what, first);
    } else if (dtype == WK_I32) {
        std::snprintf(text, sizeof text, "%zu %ss exact", count, e.what);
    } else {
        std::snprintf(text, sizeof text, "%zu %ss within tolerance (largest error %.2g of its tolerance)", count,
                      e.what, worst);
    }
    v.detail = text;
    return v;
}

verdict both(verdict a, const verdict &b)
{
    a.pass = a.pass && b.pass;
    a.detail += "; " + b.detail;
    return a;
}

/* ------------------------------------------------------------ the rows */

/* One row: `enqueue` is what is timed; `verify` runs the row once more from
 * a poisoned output (with whatever must precede it) and checks it. */
struct scan_method {
    std::string id, title;
    std::function<void(cudaStream_t)> prepare; /* untimed, before timing (may be empty) */
    std::function<void(cudaStream_t)> enqueue;
    std::function<verdict(cudaStream_t)> verify;
    double bytes;
    unsigned blocks, launches;
};

/* CUB's inclusive sum, its temp storage allocated once (at *temp, for the
 * caller to free); i32 runs as unsigned, so that it wraps with defined
 * behaviour as the other rows do. The count is an int where n fits one, as
 * in `warpkit bench`: CUB's 64-bit count is a slower path, and this row
 * should time what the bench compares against. */
template <class T, class Count>
std::function<void(cudaStream_t)> cub_inclusive_sum_with(const void *in, void *out, Count n, void **temp)
{
    size_t temp_bytes = 0;
    WK_BENCH_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, static_cast<const T *>(in),
                                                 static_cast<T *>(out), n));
    WK_BENCH_CHECK(cudaMalloc(temp, std::max<size_t>(temp_bytes, 1)));
    void *t = *temp;
    return [=](cudaStream_t s) {
        size_t bytes = temp_bytes;
        WK_BENCH_CHECK(
            cub::DeviceScan::InclusiveSum(t, bytes, static_cast<const T *>(in), static_cast<T *>(out), n, s));
    };
}

template <class T> std::function<void(cudaStream_t)> cub_inclusive_sum(const void *in, void *out, size_t n, void **temp)
{
    if (n <= (size_t)INT_MAX)
        return cub_inclusive_sum_with<T, int>(in, out, (int)n, temp);
    return cub_inclusive_sum_with<T, int64_t>(in, out, (int64_t)n, temp);
}

} // namespace

extern "C" int wk_ladder_scan_main(const wk_cli_options *o)
{
    if (o->memory != WK_MEMORY_DEVICE) {
        std::fprintf(stderr, "warpkit ladder: --memory is for the reduce ladder; the scan ladder's input is in "
                             "device memory\n");
        return 2;
    }
    wk_context *ctx;
    if (int status = wk_ladder_tool::open_context(o, scan_ladder, &ctx))
        return status;
    const size_t n = o->n;
    const wk_dtype dtype = o->dtype;
    const unsigned threads = o->threads;
    const size_t elem = wk_dtype_size(dtype), bytes = n * elem;
    const size_t blocks = (n + threads - 1) / threads;

    std::vector<unsigned char> host(bytes);
    uint64_t seed = wk_seed_from_time();
    /* Integers: small, as in the reduce ladder; sums wrap modulo 2^32 anyway. */
    wk_generate(host.data(), n, dtype, dtype == WK_I32 ? WK_GEN_SMALL_INTS : WK_GEN_UNIFORM, seed);
    std::printf("warpkit ladder --op scan: n = %zu %s, %u threads, %zu blocks, seed %llu\n\n", n, wk_dtype_name(dtype),
                threads, blocks, (unsigned long long)seed);

    wk_ceilings c;
    wk_measure_ceilings(&c);

    void *d_in, *d_out, *d_scratch;
    size_t scratch_bytes = wk_scan_ladder_scratch_bytes(n, threads, dtype);
    WK_BENCH_CHECK(cudaMalloc(&d_in, bytes));
    WK_BENCH_CHECK(cudaMalloc(&d_out, bytes));
    WK_BENCH_CHECK(cudaMalloc(&d_scratch, scratch_bytes));
    WK_BENCH_CHECK(cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice));
    cudaStream_t s;
    WK_BENCH_CHECK(cudaStreamCreate(&s));
    /* s1 leaves the block sums at the start of the scratch, s2 their scan
     * right after them (scan_ladder.h). */
    void *d_block_sums = d_scratch;
    void *d_block_prefixes = static_cast<char *>(d_scratch) + blocks * elem;

    /* The three steps, as the library's teaching entry points run them. */
    typedef cudaError_t (*ladder_step)(wk_scan_ladder_call *);
    auto step = [=](ladder_step f, unsigned *blocks_out, unsigned *launches_out) {
        return [=](cudaStream_t st) {
            wk_scan_ladder_call call = {d_in, d_out, n, dtype, threads, d_scratch, st, 0, 0};
            WK_BENCH_CHECK(f(&call));
            if (blocks_out)
                *blocks_out = call.blocks, *launches_out = call.launches;
        };
    };
    auto s1 = step(wk_scan_ladder_block_scan, nullptr, nullptr);
    auto s2 = step(wk_scan_ladder_scan_block_sums, nullptr, nullptr);
    auto s3 = step(wk_scan_ladder_add_back, nullptr, nullptr);
    auto s123 = step(wk_scan_ladder_inclusive_sum, nullptr, nullptr);
    auto shape = [&](ladder_step f, unsigned &b, unsigned &l) {
        step(f, &b, &l)(s);
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
    };
    auto poison = [=](void *p, size_t size, cudaStream_t st) { WK_BENCH_CHECK(cudaMemsetAsync(p, 0xff, size, st)); };

    const size_t block_depth = wk_scan_ladder_block_depth(threads);
    const size_t full_depth = wk_scan_ladder_depth(n, threads);
    auto fixed = [](size_t d) { return std::function<size_t(size_t)>([d](size_t) { return d; }); };
    const expectation full = {"output", 1, n, fixed(full_depth)};
    /* Runs `run` once more on a poisoned output and checks the output. */
    auto verify_output = [&](const std::function<void(cudaStream_t)> &run, const expectation &e) {
        return [&, run, e](cudaStream_t st) {
            poison(d_out, bytes, st);
            run(st);
            WK_BENCH_CHECK(cudaStreamSynchronize(st));
            return check(host, n, dtype, d_out, e);
        };
    };

    std::vector<scan_method> methods;
    scan_method m;

    m = scan_method{"s1", "block scans: __shfl_up_sync + shared warp sums", {}, s1, {}, 2.0 * bytes, 0, 0};
    shape(wk_scan_ladder_block_scan, m.blocks, m.launches);
    m.verify = [&, s1](cudaStream_t st) {
        poison(d_out, bytes, st);
        poison(d_scratch, scratch_bytes, st);
        s1(st);
        WK_BENCH_CHECK(cudaStreamSynchronize(st));
        verdict v = check(host, n, dtype, d_out, {"output", 1, threads, fixed(block_depth)});
        if (blocks > 1)
            v = both(v, check(host, n, dtype, d_block_sums, {"block sum", threads, threads, fixed(block_depth)}));
        return v;
    };
    methods.push_back(m);

    if (blocks > 1) {
        /* The scan of the block sums starts from s1's block sums and leaves
         * them as they were, so it may be repeated. */
        size_t depth = block_depth + wk_scan_ladder_depth(blocks, threads);
        m = scan_method{"s2", "scan of the block sums (s1, s2, s3 on them)", s1, s2, {}, 2.0 * blocks * elem, 0, 0};
        shape(wk_scan_ladder_scan_block_sums, m.blocks, m.launches);
        m.verify = [&, s1, s2, depth](cudaStream_t st) {
            poison(d_scratch, scratch_bytes, st);
            s1(st);
            s2(st);
            WK_BENCH_CHECK(cudaStreamSynchronize(st));
            return check(host, n, dtype, d_block_prefixes, {"block prefix", threads, n, fixed(depth)});
        };
        methods.push_back(m);

        /* The add-back adds into d_out each time it runs: the timed runs
         * leave d_out wrong, and the check runs s1, s2, s3 afresh. */
        m = scan_method{"s3", "add-back of the scanned block sums", {}, s3, {}, 2.0 * bytes, 0, 0};
        m.prepare = [=](cudaStream_t st) {
            s1(st);
            s2(st);
        };
        m.prepare(s);
        shape(wk_scan_ladder_add_back, m.blocks, m.launches);
        m.verify = verify_output(
            [=](cudaStream_t st) {
                s1(st);
                s2(st);
                s3(st);
            },
            full);
        methods.push_back(m);
    } else {
        std::printf("n fits one block: s2 and s3 have nothing to do, and are left out\n\n");
    }

    m = scan_method{"s123", "three-kernel scan: s1, s2, s3", {}, s123, {}, 2.0 * bytes, 0, 0};
    shape(wk_scan_ladder_inclusive_sum, m.blocks, m.launches);
    m.verify = verify_output(s123, full);
    methods.push_back(m);

    /* warpkit's single-pass scan, its tile workspace reserved up front. */
    wk_status st = wk_scan_reserve(ctx, n, dtype);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "warpkit ladder: wk_scan_reserve: %s\n", wk_last_error_message());
        return 2;
    }
    wk_tile_plan plan;
    wk_plan_scan((uintptr_t)d_in, (uintptr_t)d_out, n, wk_dtype_size(dtype), &plan);
    auto wk_run = [=](cudaStream_t stream) {
        wk_status status = wk_inclusive_scan(ctx, d_in, d_out, n, dtype, WK_SUM, stream);
        if (status != WK_SUCCESS) {
            std::fprintf(stderr, "warpkit ladder: wk_inclusive_scan: %s\n", wk_last_error_message());
            std::exit(2);
        }
    };
    m = scan_method{"wk", "warpkit single-pass scan (wk_inclusive_scan)", {}, wk_run, {}, 2.0 * bytes,
                    (unsigned)plan.tiles, 1};
    const expectation wk_expected = {"output", 1, n, [plan](size_t i) { return wk_scan_plan_depth(&plan, i); }};
    m.verify = verify_output(wk_run, wk_expected);
    methods.push_back(m);

    void *cub_temp = nullptr;
    auto cub_run = dtype == WK_F64   ? cub_inclusive_sum<double>(d_in, d_out, n, &cub_temp)
                   : dtype == WK_F32 ? cub_inclusive_sum<float>(d_in, d_out, n, &cub_temp)
                                     : cub_inclusive_sum<unsigned>(d_in, d_out, n, &cub_temp);
    m = scan_method{"cub", "CUB DeviceScan::InclusiveSum (reference row)", {}, cub_run, {}, 2.0 * bytes, 0, 0};
    /* CUB's order is not known here. A decoupled look-back scan folds the
     * aggregates of at most all earlier tiles into a tile's prefix, and
     * CUB's tiles hold at least 128 elements; 64 more covers the steps
     * inside a tile. */
    const expectation cub_expected = {"output", 1, n, [](size_t i) { return i / 128 + 64; }};
    m.verify = verify_output(cub_run, cub_expected);
    methods.push_back(m);

    auto measure = [&](const scan_method &sm) {
        row r;
        r.id = sm.id;
        r.title = sm.title;
        r.blocks = sm.blocks;
        r.launches = sm.launches;
        if (sm.prepare)
            sm.prepare(s);
        std::string range = "ladder " + sm.id;
        nvtxRangePushA(range.c_str());
        r.kernel_us = wk_ladder_tool::kernel_time_us(sm.enqueue, o->repeats, s);
        nvtxRangePop();
        r.gbs = sm.bytes / (r.kernel_us * 1e3);
        r.pct = 100.0 * r.gbs / c.copy_gbs;
        verdict v = sm.verify(s);
        r.pass = v.pass;
        r.detail = v.detail;
        return r;
    };
    /* A speed-up over the whole three-kernel scan means something for the
     * other whole scans only. */
    auto whole = [](const std::string &id) { return id == "s123" || id == "wk" || id == "cub"; };
    const std::vector<row> rows = wk_ladder_tool::run_rows(o, scan_ladder, n, threads, methods, measure, whole);

    int status = wk_ladder_tool::finish(o, c, rows, scan_ladder);

    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_scratch);
    cudaFree(cub_temp);
    cudaStreamDestroy(s);
    wk_destroy(ctx);
    return status;
}
