/* `warpkit bench --op segmented`: warpkit's segmented reduce, reproducible
 * segmented sum and segmented scan beside CUB's, in one process, on the
 * same inputs, timed as the other ops are (CUDA events, warm-up, the median
 * of batches, the contenders' batches in rounds, the cold regime: every call
 * on the next slot of a walk through at least 2 GiB, bench_common.cuh).
 *
 * f32 sums over n = 2^26 and 2^28 elements (those of --min-n .. --max-n;
 * when neither is in that range, --max-n alone, so that --quick runs 2^24),
 * cut into segments in two layouts:
 *  - uniform: n / size segments of `size` elements, back to back;
 *  - offsets: segment lengths drawn from a power law (powerlaw_offsets.h:
 *    P(length >= s) = s^-1.1, capped at 2^24, fixed seed), given as int64
 *    begin and end arrays (end[i] = begin[i + 1]), which every slot of the
 *    rotation holds a copy of, so that they are read cold like the input.
 *
 * segreduce_sum: sizes 1, 2, 4, 8, 32, 128, 1024, 2^14, 2^20 and the offsets.
 * Beside warpkit's wk_segmented_reduce:
 *  - the toolkit's CUB: DeviceSegmentedReduce::Sum(temp, temp_bytes, d_in,
 *    d_out, num_segments, begin, end, stream), its only form (CCCL 3.0 has
 *    no fixed-size one); for uniform segments begin and end are int offsets
 *    computed from a counting iterator, i * size and (i + 1) * size, read
 *    from nowhere; for the offsets case the int64 arrays warpkit reads;
 *  - the newest CUB (cub_latest.h), where it is built in: for uniform
 *    segments its fixed-size Sum(temp, temp_bytes, d_in, d_out, num_segments,
 *    int segment_size, stream) and the offsets form with the computed
 *    offsets; for the offsets case the offsets form on the arrays.
 * Bytes moved: n * 4 read, count * 4 written, and for the offsets case
 * 16 bytes of offsets per segment; against the read ceiling.
 *
 * segreduce_sum_repro: the same layouts, inputs and bytes, each after the
 * segreduce_sum rows of its total. warpkit_us is wk_segmented_reduce_repro;
 * plain_us is wk_segmented_reduce's sum of the same layout, a contender of
 * the same rounds; the CUB columns are the newest CUB's plain segment sums
 * (CUB has no reproducible segmented sum; the toolkit's is not timed, and
 * without the newest CUB the CUB columns are the plain sum's). Every case is
 * timed with time_walk, which is what time_contenders runs for the cold
 * regime, so that the plain sum gets a column of its own.
 *
 * segscan_inclusive_sum: sizes 32, 1024, 2^14, 2^20 and the offsets. Beside
 * warpkit's wk_segmented_inclusive_scan:
 *  - the toolkit's CUB, which has no segmented scan: DeviceScan::
 *    InclusiveSumByKey(temp, temp_bytes, d_keys, d_in, d_out, (int)n,
 *    equal_to, stream), the keys each element's segment number (int32, made
 *    before timing; this form reads 4 bytes of keys per element besides the
 *    values, which the bandwidth below does not count);
 *  - the newest CUB: DeviceSegmentedScan::InclusiveSegmentedSum(temp,
 *    temp_bytes, d_in, d_out, begin, end, num_segments, stream), offsets as
 *    for the reduce, and the same InclusiveSumByKey.
 * Bytes moved: n * 4 read, n * 4 written, and 16 per segment for the offsets
 * case; against the copy ceiling.
 *
 * Columns: cub_us is the fastest CUB form of either version,
 * cub_latest_us the newest CUB's fastest, cub_toolkit_us the toolkit's;
 * speedup is cub_us over warpkit_us; plain_us (segreduce_sum_repro only)
 * warpkit's plain segment sums.
 *
 * Before a case is timed every contender runs once on slot 0; on a sample of
 * segments (for the scan, of positions: the first, middle and last of each
 * sampled segment) the outputs are gathered on the GPU and copied to the
 * host once, beside a double-precision sum of the same elements and of their
 * absolute values. A float sum is right within 1e-4 of that absolute sum:
 * `agree` says warpkit's outputs are right (for segreduce_sum_repro the
 * reproducible ones; the segreduce_sum row of the layout checks the plain
 * ones), `cub_agree` that every CUB form's outputs are within that of
 * warpkit's. A case whose warpkit outputs are wrong is still timed and
 * shows DIFFER (exit status 1). */
#include "bench/bench_common.cuh"
#include "bench/powerlaw_offsets.h"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

using wk::bench::rotation;
using wk::bench::row;

/* The width of the op column: the longest op name. */
constexpr int op_width = 21;

const size_t totals[] = {(size_t)1 << 26, (size_t)1 << 28};
const size_t reduce_sizes[] = {1, 2, 4, 8, 32, 128, 1024, (size_t)1 << 14, (size_t)1 << 20};
const size_t scan_sizes[] = {32, 1024, (size_t)1 << 14, (size_t)1 << 20};

enum class seg_op { reduce, reduce_repro, scan };

const char *op_name(seg_op op)
{
    switch (op) {
    case seg_op::reduce: return "segreduce_sum";
    case seg_op::reduce_repro: return "segreduce_sum_repro";
    case seg_op::scan: return "segscan_inclusive_sum";
    }
    return "?";
}

/* One output per segment: the plain and the reproducible sum. */
bool is_reduce(seg_op op) { return op != seg_op::scan; }

/* The segments of one case. */
struct layout {
    size_t n;     /* elements the segments cover */
    size_t size;  /* elements per segment; 0: the power law's offsets */
    size_t count; /* segments */
    const std::vector<int64_t> *offsets; /* offsets: count + 1 on the host */
    const int64_t *d_offsets;            /* offsets: the same on the device */

    int64_t begin(size_t i) const { return size ? (int64_t)(i * size) : (*offsets)[i]; }
    int64_t end(size_t i) const { return size ? (int64_t)((i + 1) * size) : (*offsets)[i + 1]; }
    bool uniform() const { return size != 0; }
};

/* The sizes of a run: 2^26 and 2^28 where the options allow them, else the
 * largest size they allow. */
std::vector<size_t> run_sizes(const wk::bench::session &s)
{
    std::vector<size_t> v;
    for (size_t n : totals)
        if (n >= s.min_n && n <= s.max_n)
            v.push_back(n);
    if (v.empty())
        v.push_back(s.max_n);
    return v;
}

/* The offsets of uniform segments, computed rather than read: element i of
 * uniform_offsets(size) is i * size, so that it serves as the begin offsets
 * and, one further, as the end offsets. int: the bench stays under 2^31
 * elements. */
struct times_size {
    int size;
    __host__ __device__ int operator()(int i) const { return i * size; }
};
inline auto uniform_offsets(size_t size)
{
    return thrust::make_transform_iterator(thrust::counting_iterator<int>(0), times_size{(int)size});
}

/* Each element's segment number, for the scans by key. Uniform: i / size;
 * offsets: the last segment whose begin is at most i (a binary search of
 * the count + 1 offsets). */
__global__ void segment_keys(int32_t *keys, size_t n, size_t size, const int64_t *offsets, size_t count)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        if (size) {
            keys[i] = (int32_t)(i / size);
            continue;
        }
        size_t lo = 0, hi = count; /* offsets[lo] <= i < offsets[hi] */
        while (hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            if (offsets[mid] <= (int64_t)i)
                lo = mid;
            else
                hi = mid;
        }
        keys[i] = (int32_t)lo;
    }
}

/* ------------------------------------------------------------ the check */

/* One checked output: out[at] must be the sum of in[lo .. hi). */
struct sample {
    long long lo, hi, at;
};

constexpr unsigned ref_threads = 256;

/* The sum and the sum of absolute values of each sample's elements, in
 * double: one block per sample. */
__global__ void __launch_bounds__(ref_threads)
    reference_sums(const float *in, const sample *samples, double *sum, double *abs_sum)
{
    __shared__ double s_sum[ref_threads], s_abs[ref_threads];
    const sample q = samples[blockIdx.x];
    double a = 0, b = 0;
    for (long long i = q.lo + threadIdx.x; i < q.hi; i += ref_threads) {
        const double x = in[i];
        a += x;
        b += fabs(x);
    }
    s_sum[threadIdx.x] = a;
    s_abs[threadIdx.x] = b;
    __syncthreads();
    for (unsigned half = ref_threads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + half];
            s_abs[threadIdx.x] += s_abs[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sum[blockIdx.x] = s_sum[0];
        abs_sum[blockIdx.x] = s_abs[0];
    }
}

/* dst[k] = out[samples[k].at]. */
__global__ void gather_samples(const float *out, const sample *samples, size_t count, float *dst)
{
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        dst[k] = out[samples[k].at];
}

/* Segments checked per case: evenly spread, with the last and the longest. */
constexpr size_t checked_segments = 1000;

std::vector<sample> make_samples(const layout &g, seg_op op)
{
    std::vector<size_t> segs;
    const size_t step = std::max<size_t>(1, g.count / checked_segments);
    for (size_t i = 0; i < g.count; i += step)
        segs.push_back(i);
    segs.push_back(g.count - 1);
    if (!g.uniform()) {
        size_t longest = 0;
        for (size_t i = 1; i < g.count; ++i)
            if (g.end(i) - g.begin(i) > g.end(longest) - g.begin(longest))
                longest = i;
        segs.push_back(longest);
    }
    std::vector<sample> v;
    for (size_t i : segs) {
        const long long b = g.begin(i), e = g.end(i);
        if (is_reduce(op)) {
            v.push_back({b, e, (long long)i});
            continue;
        }
        for (long long p : {b, b + (e - b) / 2, e - 1}) /* an inclusive prefix ends at p */
            v.push_back({b, p + 1, p});
    }
    return v;
}

/* The sampled outputs of each contender, gathered on the GPU as each one
 * runs, then copied to the host once with the references. */
struct output_check {
    std::vector<sample> samples;
    sample *d_samples = nullptr;
    float *d_got = nullptr; /* max_contenders rows of samples.size() */
    double *d_ref = nullptr;
    static constexpr size_t max_contenders = 8;
    size_t contenders = 0;
    std::vector<const char *> names;

    output_check(const layout &g, seg_op op) : samples(make_samples(g, op))
    {
        WK_BENCH_CHECK(cudaMalloc(&d_samples, samples.size() * sizeof(sample)));
        WK_BENCH_CHECK(cudaMalloc(&d_got, max_contenders * samples.size() * sizeof(float)));
        WK_BENCH_CHECK(cudaMalloc(&d_ref, 2 * samples.size() * sizeof(double)));
        WK_BENCH_CHECK(cudaMemcpy(d_samples, samples.data(), samples.size() * sizeof(sample), cudaMemcpyHostToDevice));
    }
    ~output_check()
    {
        cudaFree(d_samples);
        cudaFree(d_got);
        cudaFree(d_ref);
    }
    output_check(const output_check &) = delete;
    output_check &operator=(const output_check &) = delete;

    /* Gathers the samples of an output a contender has just written. */
    void gather(const char *who, const float *out, cudaStream_t s)
    {
        if (contenders == max_contenders) {
            std::fprintf(stderr, "warpkit bench: more than %zu outputs to check\n", max_contenders);
            std::exit(2);
        }
        gather_samples<<<64, 256, 0, s>>>(out, d_samples, samples.size(), d_got + contenders * samples.size());
        WK_BENCH_CHECK(cudaGetLastError());
        names.push_back(who);
        ++contenders;
    }

    /* The references from `in`, every gathered output to the host, and the
     * verdicts: warpkit's outputs (the first gathered) against the
     * references, every other's against warpkit's. */
    void judge(const float *in, const char *what, bool &warpkit_right, bool &cub_agrees, cudaStream_t s)
    {
        const size_t m = samples.size();
        reference_sums<<<(unsigned)m, ref_threads, 0, s>>>(in, d_samples, d_ref, d_ref + m);
        WK_BENCH_CHECK(cudaGetLastError());
        std::vector<float> got(contenders * m);
        std::vector<double> ref(2 * m);
        WK_BENCH_CHECK(cudaMemcpyAsync(got.data(), d_got, got.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
        WK_BENCH_CHECK(cudaMemcpyAsync(ref.data(), d_ref, ref.size() * sizeof(double), cudaMemcpyDeviceToHost, s));
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
        warpkit_right = cub_agrees = true;
        for (size_t c = 0; c < contenders; ++c) {
            size_t bad = 0, first = 0;
            for (size_t k = 0; k < m; ++k) {
                /* A float sum is within 1e-4 of the sum of |x| of the exact one. */
                const double tol = 1e-4 * ref[m + k];
                const double against = c == 0 ? ref[k] : (double)got[k];
                if (!(std::fabs((double)got[c * m + k] - against) <= tol) && bad++ == 0)
                    first = k;
            }
            if (!bad)
                continue;
            (c == 0 ? warpkit_right : cub_agrees) = false;
            const sample &q = samples[first];
            std::fprintf(stderr,
                         "warpkit bench: %s: %s %s at %zu of %zu sampled outputs; the first: output %lld, "
                         "elements [%lld, %lld): exact %.9g (sum |x| %.9g), warpkit %.9g, %s %.9g\n",
                         what, names[c], c == 0 ? "is wrong" : "differs from warpkit", bad, m, q.at, q.lo, q.hi,
                         ref[first], ref[m + first], (double)got[first], names[c], (double)got[c * m + first]);
        }
    }
};

/* ---------------------------------------------------------- contenders */

/* Where call j finds its buffers: the rotation's slot j holds the input,
 * the output and, for the offsets case, a copy of the begin and end arrays. */
struct buffers {
    const rotation &rot;
    const float *in(long long j) const { return reinterpret_cast<const float *>(rot.buffer(j, 0)); }
    float *out(long long j) const { return reinterpret_cast<float *>(rot.buffer(j, 1)); }
    const int64_t *begin(long long j) const
    {
        return rot.per_slot > 2 ? reinterpret_cast<const int64_t *>(rot.buffer(j, 2)) : nullptr;
    }
    const int64_t *end(long long j) const
    {
        return rot.per_slot > 3 ? reinterpret_cast<const int64_t *>(rot.buffer(j, 3)) : nullptr;
    }
};

wk_status warpkit_call(wk_context *ctx, seg_op op, const layout &g, const buffers &b, long long j, cudaStream_t s)
{
    wk_segments seg;
    seg.count = g.count;
    seg.size = g.uniform() ? g.size : g.n; /* offsets: the input's length */
    seg.stride = 0;
    seg.d_begin = b.begin(j);
    seg.d_end = b.end(j);
    switch (op) {
    case seg_op::reduce: return wk_segmented_reduce(ctx, b.in(j), b.out(j), &seg, WK_F32, WK_SUM, s);
    case seg_op::reduce_repro: return wk_segmented_reduce_repro(ctx, b.in(j), b.out(j), &seg, WK_F32, s);
    case seg_op::scan: break;
    }
    return wk_segmented_inclusive_scan(ctx, b.in(j), b.out(j), &seg, WK_F32, WK_SUM, s);
}

/* The toolkit's CUB. */
struct cub_toolkit : wk::bench::temp_storage {
    seg_op op;
    const layout &g;
    const int32_t *keys;
    cub_toolkit(seg_op o, const layout &l, const int32_t *k) : op(o), g(l), keys(k) {}

    cudaError_t run(const buffers &b, long long j, cudaStream_t s)
    {
        const float *in = b.in(j);
        float *out = b.out(j);
        if (op == seg_op::scan) /* reads the keys besides the values */
            return cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, keys, in, out, (int)g.n,
                                                      cuda::std::equal_to<>{}, s);
        const int64_t count = (int64_t)g.count;
        if (g.uniform()) {
            const auto begin = uniform_offsets(g.size);
            return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, count, begin, begin + 1, s);
        }
        return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, count, b.begin(j), b.end(j), s);
    }
};

#ifdef WK_HAVE_CUB_LATEST
/* One form of the newest CUB's call (cub_latest.h). */
struct cub_latest_form : wk::bench::temp_storage {
    seg_op op;
    int form; /* a wk_cub_latest_segmented_form or wk_cub_latest_segscan_form */
    const layout &g;
    const int32_t *keys;
    const char *name;
    cub_latest_form(seg_op o, int f, const layout &l, const int32_t *k, const char *nm)
        : op(o), form(f), g(l), keys(k), name(nm)
    {
    }

    cudaError_t run(const buffers &b, long long j, cudaStream_t s)
    {
        wk_cub_latest_segments seg;
        seg.count = (int64_t)g.count;
        seg.size = (int)g.size;
        seg.d_begin = b.begin(j);
        seg.d_end = b.end(j);
        if (is_reduce(op))
            return wk_cub_latest_segmented_sum((wk_cub_latest_segmented_form)form, WK_F32, b.in(j), b.out(j), &seg,
                                               temp, &temp_bytes, s);
        return wk_cub_latest_segmented_inclusive_sum((wk_cub_latest_segscan_form)form, WK_F32, b.in(j), b.out(j), g.n,
                                                     &seg, keys, temp, &temp_bytes, s);
    }
};

/* The newest CUB's forms for a case's op and layout. */
std::vector<std::unique_ptr<cub_latest_form>> latest_forms(seg_op op, const layout &g, const int32_t *keys)
{
    std::vector<std::unique_ptr<cub_latest_form>> v;
    if (is_reduce(op)) {
        if (g.uniform())
            v.emplace_back(new cub_latest_form(op, WK_CUB_LATEST_SEGMENTED_FIXED, g, keys, "CUB latest fixed-size"));
        v.emplace_back(new cub_latest_form(op, WK_CUB_LATEST_SEGMENTED_OFFSETS, g, keys, "CUB latest offsets"));
    } else {
        v.emplace_back(
            new cub_latest_form(op, WK_CUB_LATEST_SEGSCAN_SEGMENTED_SCAN, g, keys, "CUB latest segmented scan"));
        v.emplace_back(new cub_latest_form(op, WK_CUB_LATEST_SEGSCAN_BY_KEY, g, keys, "CUB latest by key"));
    }
    return v;
}
#endif

/* ------------------------------------------------------------- one case */

/* The bytes a case moves: its input read, its outputs written, and the
 * offsets read (16 bytes per segment) for the offsets case. */
double case_bytes(seg_op op, const layout &g)
{
    double bytes = 4.0 * (double)g.n + 4.0 * (double)(is_reduce(op) ? g.count : g.n);
    if (!g.uniform())
        bytes += 16.0 * (double)g.count;
    return bytes;
}

/* The buffers of a case's slot: input, output, and begin and end for the
 * offsets case. */
std::vector<size_t> slot_buffers(seg_op op, const layout &g)
{
    std::vector<size_t> v = {g.n * sizeof(float), (is_reduce(op) ? g.count : g.n) * sizeof(float)};
    if (!g.uniform()) {
        v.push_back(g.count * sizeof(int64_t));
        v.push_back(g.count * sizeof(int64_t));
    }
    return v;
}

size_t slot_bytes(seg_op op, const layout &g)
{
    size_t bytes = 0;
    for (size_t b : slot_buffers(op, g))
        bytes += wk::bench::round_up_256(std::max<size_t>(b, 1));
    return bytes;
}

row bench_case(wk_context *ctx, const wk::bench::pool &p, seg_op op, const layout &g, int32_t *d_keys, int repeats,
               const wk_ceilings &c, cudaStream_t s)
{
    char what[96];
    std::snprintf(what, sizeof what, "%s f32 n=%zu %s%zu", op_name(op), g.n, g.uniform() ? "size " : "offsets, ",
                  g.uniform() ? g.size : g.count);
    if (!g.uniform())
        std::strncat(what, " segments", sizeof what - std::strlen(what) - 1);

    const std::vector<size_t> sizes = slot_buffers(op, g);
    const rotation rot = sizes.size() == 2 ? rotation(p, {sizes[0], sizes[1]})
                                           : rotation(p, {sizes[0], sizes[1], sizes[2], sizes[3]});
    const buffers b{rot};
    wk::bench::fill<float>(rot, 0x5eedull + g.n + g.size, s);
    if (!g.uniform()) /* every slot's copy of the offsets, over the values fill wrote there */
        for (size_t k = 0; k < rot.count; ++k) {
            WK_BENCH_CHECK(cudaMemcpyAsync(rot.buffer(k, 2), g.d_offsets, g.count * sizeof(int64_t),
                                           cudaMemcpyDeviceToDevice, s));
            WK_BENCH_CHECK(cudaMemcpyAsync(rot.buffer(k, 3), g.d_offsets + 1, g.count * sizeof(int64_t),
                                           cudaMemcpyDeviceToDevice, s));
        }
    if (op == seg_op::scan) {
        segment_keys<<<1024, 256, 0, s>>>(d_keys, g.n, g.size, g.d_offsets, g.count);
        WK_BENCH_CHECK(cudaGetLastError());
    }

    cub_toolkit cub(op, g, d_keys);
    cub.allocate([&] { return cub.run(b, 0, s); });
#ifdef WK_HAVE_CUB_LATEST
    std::vector<std::unique_ptr<cub_latest_form>> latest = latest_forms(op, g, d_keys);
    for (auto &f : latest)
        f->allocate([&] { return f->run(b, 0, s); });
#endif

    /* Every contender once on slot 0, its sampled outputs kept. */
    bool agree, cub_agree;
    {
        output_check chk(g, op);
        wk::bench::must_succeed(what, warpkit_call(ctx, op, g, b, 0, s));
        chk.gather("warpkit", b.out(0), s);
        WK_BENCH_CHECK(cub.run(b, 0, s));
        chk.gather(is_reduce(op) ? "CUB" : "CUB by key", b.out(0), s);
#ifdef WK_HAVE_CUB_LATEST
        for (auto &f : latest) {
            WK_BENCH_CHECK(f->run(b, 0, s));
            chk.gather(f->name, b.out(0), s);
        }
#endif
        chk.judge(b.in(0), what, agree, cub_agree, s);
    }

    /* The calls timed in rounds on one walk: warpkit's, then the toolkit
     * CUB's (for segreduce_sum_repro warpkit's plain sum instead: the
     * toolkit's segment sums of one to eight elements take milliseconds,
     * and the segreduce_sum row of the layout times them already), then the
     * newest CUB's forms. */
    char plain_what[128];
    std::snprintf(plain_what, sizeof plain_what, "%s, the plain sum", what);
    const bool repro = op == seg_op::reduce_repro;
    std::vector<wk::bench::slot_call> calls = {
        [&](long long j) { return wk::bench::must_succeed(what, warpkit_call(ctx, op, g, b, j, s)); }};
    if (repro)
        calls.push_back([&](long long j) {
            return wk::bench::must_succeed(plain_what, warpkit_call(ctx, seg_op::reduce, g, b, j, s));
        });
    else
        calls.push_back([&](long long j) { return cub.run(b, j, s) == cudaSuccess; });
    const size_t first_latest = calls.size();
#ifdef WK_HAVE_CUB_LATEST
    for (auto &f : latest) {
        cub_latest_form *form = f.get();
        calls.push_back([form, &b, s](long long j) { return form->run(b, j, s) == cudaSuccess; });
    }
#endif
    const std::vector<wk::bench::call_time> all = wk::bench::time_walk(calls, repeats, s);
    /* As time_contenders gives them: the newest CUB's fastest form as latest
     * (for segreduce_sum_repro also as the CUB column). */
    wk::bench::contender_times t{};
    t.warpkit = all[0];
    t.cub = all[1];
    for (size_t i = first_latest; i < all.size(); ++i)
        if (!t.has_latest || all[i].gpu_us < t.latest.gpu_us) {
            t.latest = all[i];
            t.has_latest = true;
        }
    if (repro && t.has_latest)
        t.cub = t.latest;
#ifdef WK_HAVE_CUB_LATEST
    for (auto &f : latest)
        f->release_temp();
#endif
    cub.release_temp();

    const double ceiling = is_reduce(op) ? c.read_gbs : c.copy_gbs;
    row r = wk::bench::make_row(op_name(op), WK_F32, g.n, t, case_bytes(op, g), ceiling, agree);
    /* cub_us: the fastest CUB form of either version (cub_latest_us: the
     * newest's fastest); the toolkit's time kept apart. */
    r.cub_toolkit_us = t.cub.gpu_us;
    if (t.has_latest && t.latest.gpu_us < r.cub_us) {
        r.cub_us = t.latest.gpu_us;
        r.cub_host_us = t.latest.host_us;
    }
    r.speedup = r.cub_us > 0 ? r.cub_us / r.warpkit_us : 0;
    r.segment_size = (long long)g.size;
    r.cub_agree = cub_agree ? 1 : 0;
    if (repro) {
        r.plain_us = all[1].gpu_us;
        r.cub_toolkit_us = -1; /* not timed: see above */
    }
    return r;
}

/* Every case of every size, on one session. */
int run_segmented(const wk_cli_options *opts, wk::bench::session &ses)
{
    if (opts->regime != WK_REGIME_COLD)
        std::fprintf(stderr, "warpkit bench: --op segmented times the cold regime only\n");
    wk_context *ctx = ses.ctx;
    cudaStream_t s = ses.stream;
    const std::vector<size_t> ns = run_sizes(ses);

    /* The power law's offsets for each size, on the host and the device, and
     * the largest slot of any case, which sizes the pool. */
    std::vector<std::vector<int64_t>> offsets(ns.size());
    std::vector<int64_t *> d_offsets(ns.size());
    std::vector<std::vector<layout>> reduce_layouts(ns.size()), scan_layouts(ns.size());
    size_t largest_slot = 0, largest_n = 0;
    for (size_t k = 0; k < ns.size(); ++k) {
        const size_t n = ns[k];
        const size_t count = wk_powerlaw_offsets(n, WK_POWERLAW_SEED, nullptr);
        offsets[k].resize(count + 1);
        wk_powerlaw_offsets(n, WK_POWERLAW_SEED, offsets[k].data());
        WK_BENCH_CHECK(cudaMalloc(&d_offsets[k], offsets[k].size() * sizeof(int64_t)));
        WK_BENCH_CHECK(cudaMemcpy(d_offsets[k], offsets[k].data(), offsets[k].size() * sizeof(int64_t),
                                  cudaMemcpyHostToDevice));
        int64_t longest = 0;
        for (size_t i = 0; i < count; ++i)
            longest = std::max(longest, offsets[k][i + 1] - offsets[k][i]);
        std::fprintf(stderr, "n=%zu: %zu power-law segments, the longest of %lld elements\n", n, count,
                     (long long)longest);
        const layout power_law = {n, 0, count, &offsets[k], d_offsets[k]};
        for (size_t size : reduce_sizes)
            if (n / size)
                reduce_layouts[k].push_back({n / size * size, size, n / size, nullptr, d_offsets[k]});
        reduce_layouts[k].push_back(power_law);
        for (size_t size : scan_sizes)
            if (n / size)
                scan_layouts[k].push_back({n / size * size, size, n / size, nullptr, d_offsets[k]});
        scan_layouts[k].push_back(power_law);
        for (const layout &g : reduce_layouts[k])
            largest_slot = std::max(largest_slot, slot_bytes(seg_op::reduce, g));
        for (const layout &g : scan_layouts[k])
            largest_slot = std::max(largest_slot, slot_bytes(seg_op::scan, g));
        largest_n = std::max(largest_n, n);
    }
    wk::bench::pool p;
    p.allocate(wk::bench::pool_bytes_for_slot(largest_slot));
    /* The scans by key's keys, made for each case and not rotated: 4 n bytes,
     * at least 256 MiB, far more than L2, so that they are read cold too. */
    int32_t *d_keys;
    WK_BENCH_CHECK(cudaMalloc(&d_keys, largest_n * sizeof(int32_t)));

    /* --op segmented-repro: the reproducible rows alone. */
    const bool all_ops = opts->primitive != WK_PRIMITIVE_SEGMENTED_REPRO;
    wk::bench::report reduces{op_width, {}}, scans{op_width, {}};
    for (size_t k = 0; k < ns.size(); ++k) {
        if (all_ops)
            for (const layout &g : reduce_layouts[k])
                reduces.add(bench_case(ctx, p, seg_op::reduce, g, d_keys, opts->repeats, ses.ceilings, s));
        for (const layout &g : reduce_layouts[k])
            reduces.add(bench_case(ctx, p, seg_op::reduce_repro, g, d_keys, opts->repeats, ses.ceilings, s));
        if (all_ops)
            for (const layout &g : scan_layouts[k])
                scans.add(bench_case(ctx, p, seg_op::scan, g, d_keys, opts->repeats, ses.ceilings, s));
    }

    /* Two tables (against the read ceiling, then the copy ceiling), one JSON. */
    int disagreements = wk::bench::print_table(reduces.rows, ses.ceilings, op_width, "%read");
    disagreements += wk::bench::print_table(scans.rows, ses.ceilings, op_width, "%copy");
    if (opts->json_path) {
        std::vector<row> all = reduces.rows;
        all.insert(all.end(), scans.rows.begin(), scans.rows.end());
        wk::bench::write_json(opts->json_path, ses, all);
    }

    WK_BENCH_CHECK(cudaFree(d_keys));
    for (int64_t *d : d_offsets)
        WK_BENCH_CHECK(cudaFree(d));
    p.release();
    return disagreements ? 1 : 0;
}

} // namespace

extern "C" int wk_bench_segmented_main(const wk_cli_options *opts)
{
    return wk::bench::run_session(opts, run_segmented);
}
