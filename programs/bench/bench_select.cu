/* `warpkit bench --op select`: warpkit's stream compaction beside CUB's
 * DeviceSelect and DevicePartition, in one process, on the same inputs,
 * timed the same way as the scan bench.
 *
 * Four ops, on f32 and i32, each at three selectivities (the fraction of
 * the input kept: 1 %, 50 %, 99 %):
 *   select_if       wk_select_if, x < a       DeviceSelect::If, x < a
 *   select_flagged  wk_select_flagged         DeviceSelect::Flagged, byte flags
 *   select_unique   wk_unique                 DeviceSelect::Unique
 *   partition_if    wk_partition_if, x < a    DevicePartition::If, x < a
 * For unique, the selectivity is the fraction of elements that start a run
 * of equal elements (the ones it keeps).
 *
 * Bytes: a select reads n elements and writes the ones it keeps, a flagged
 * select reads the n flag bytes as well, and a partition reads n and writes
 * n. The bandwidth is those bytes over warpkit's time, reported against the
 * copy ceiling. Both libraries write their count to a uint64_t in device
 * memory.
 *
 * Inputs are built on the GPU (2^30 elements would take a while on the
 * host), so that the fraction kept is the case's selectivity: element i is
 * u_i, a uniform 24-bit draw, as an i32, or u_i 2^-24 as an f32 (both exact),
 * and the predicate's constant is c = selectivity 2^24 in the same form, so
 * x < a exactly when u < c, and f32 and i32 keep the same elements. Flags
 * are a second draw compared with c; unique's input is runs whose lengths
 * are drawn the same way. Every slot of the rotation holds the same input,
 * so that each timed call keeps exactly what the check run kept, and its
 * bytes are known.
 *
 * Before a case is timed, both libraries run once on the same input: the
 * counts must be equal and the kept outputs (all n for a partition) the
 * same bits, compared on the GPU; otherwise the run stops with exit status
 * 1, as the scan bench's does. Selection only copies elements, so there is
 * no rounding for the two to differ by. */
#include "bench/bench_common.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace {

using wk::bench::checker;
using wk::bench::rotation;
using wk::bench::row;

enum class select_kind { select_if, flagged, unique, partition_if };

using select_case = wk::bench::op_case<select_kind>;

constexpr select_case select_cases[] = {
    {"select_if", select_kind::select_if},
    {"select_flagged", select_kind::flagged},
    {"select_unique", select_kind::unique},
    {"partition_if", select_kind::partition_if},
};

/* The fractions of the input that a case keeps. */
const double selectivities[] = {0.01, 0.5, 0.99};

constexpr int op_width = wk::bench::op_column_width(select_cases);

/* ------------------------------------------------------------ the inputs */

/* A uniform draw in [0, 2^24) for element i: 24 bits, which f32 and i32
 * both hold exactly. */
__device__ inline uint32_t draw24(uint64_t seed, size_t i)
{
    return (uint32_t)(wk::bench::mix(seed ^ (i * 0x2545f4914f6cdd1dull)) >> 40);
}

/* u in [0, 2^24) as an element: u itself for i32, u 2^-24 in [0, 1) for
 * f32. Exact either way, and ordered as u is, so that x < element(c)
 * exactly when u < c. */
template <class T> __host__ __device__ inline T element(uint32_t u)
{
    if constexpr (std::is_floating_point<T>::value)
        return (T)u * (T)0x1p-24;
    else
        return (T)u;
}

/* The draw below which an element is kept: selectivity 2^24. */
uint32_t cut_of(double selectivity) { return (uint32_t)std::lround(selectivity * 0x1p24); }

template <class T> __global__ void fill_uniform(T *p, size_t n, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = element<T>(draw24(seed, i));
}

__global__ void fill_flags(uint8_t *f, size_t n, uint32_t cut, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        f[i] = draw24(seed, i) < cut;
}

/* Whether element i of unique's input starts a run: element 0 does, every
 * other one with probability cut / 2^24, so that unique keeps that
 * fraction. */
__device__ inline bool starts_run(size_t i, uint32_t cut, uint64_t seed) { return i == 0 || draw24(seed, i) < cut; }

/* Unique's input: every element of a run holds the index j of the run's
 * first element (mod 2^24, so that f32 holds it exactly), so neighbouring
 * runs differ and unique keeps one element per run. A run's start is found
 * without a scan: each warp takes 32 consecutive elements and ballots
 * which of them start a run; lanes whose run starts before the warp's
 * first element look back 32 elements per ballot, a few steps even at 1 %
 * (runs of 100 elements on average). Launch with whole warps. */
template <class T> __global__ void fill_runs(T *p, size_t n, uint32_t cut, uint64_t seed)
{
    const unsigned lane = threadIdx.x % 32;
    const size_t stride = (size_t)gridDim.x * blockDim.x; /* a multiple of 32 */
    for (size_t base = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32; base < n; base += stride) {
        const size_t i = base + lane;
        const unsigned starts = __ballot_sync(~0u, i < n && starts_run(i, cut, seed));
        const unsigned upto = starts & (~0u >> (31 - lane)); /* starts at lanes 0 .. lane */
        size_t start = upto ? base + 31 - __clz(upto) : 0;
        if (!(starts & 1u)) { /* the same for the whole warp; base > 0, since element 0 starts a run */
            size_t back = base;
            unsigned found = 0;
            while (!found) {
                back -= 32;
                found = __ballot_sync(~0u, starts_run(back + lane, cut, seed));
            }
            if (!upto)
                start = back + 31 - __clz(found);
        }
        if (i < n)
            p[i] = element<T>((uint32_t)(start & 0xffffff));
    }
}

/* Copies buffer b of slot 0 to buffer b of every other slot, in 16-byte
 * words: far quicker than a cudaMemcpy per slot when 2 GiB holds hundreds
 * of thousands of small slots. Buffers start on 256-byte boundaries and are
 * padded to them, so whole words stay inside their buffer. */
__global__ void copy_to_other_slots(char *base, size_t slot_bytes, size_t slots, size_t offset, size_t words)
{
    const uint4 *src = reinterpret_cast<const uint4 *>(base + offset);
    const size_t total = (slots - 1) * words;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (size_t)gridDim.x * blockDim.x) {
        const size_t k = 1 + t / words, w = t - (k - 1) * words;
        reinterpret_cast<uint4 *>(base + k * slot_bytes + offset)[w] = src[w];
    }
}

void copy_to_other_slots(const rotation &rot, size_t b, size_t bytes, cudaStream_t s)
{
    if (rot.count < 2)
        return;
    copy_to_other_slots<<<1024, 256, 0, s>>>(rot.base, rot.slot_bytes(), rot.count, rot.offset[b], (bytes + 15) / 16);
    WK_BENCH_CHECK(cudaGetLastError());
}

/* The case's input in every slot: buffer 0 the elements, buffer 2 the flags
 * of a flagged select. */
template <class T>
void make_input(const rotation &rot, select_kind kind, size_t n, uint32_t cut, uint64_t seed, cudaStream_t s)
{
    T *in = reinterpret_cast<T *>(rot.buffer(0, 0));
    if (kind == select_kind::unique)
        fill_runs<T><<<1024, 256, 0, s>>>(in, n, cut, seed);
    else
        fill_uniform<T><<<1024, 256, 0, s>>>(in, n, seed);
    WK_BENCH_CHECK(cudaGetLastError());
    copy_to_other_slots(rot, 0, n * sizeof(T), s);
    if (kind == select_kind::flagged) {
        fill_flags<<<1024, 256, 0, s>>>(reinterpret_cast<uint8_t *>(rot.buffer(0, 2)), n, cut, ~seed);
        WK_BENCH_CHECK(cudaGetLastError());
        copy_to_other_slots(rot, 2, n, s);
    }
}

/* ----------------------------------------------------------- the calls */

wk_status warpkit_select(wk_context *ctx, select_kind kind, const void *in, const uint8_t *flags, void *out,
                         uint64_t *count, size_t n, wk_dtype dtype, const wk_predicate &pred, cudaStream_t s)
{
    switch (kind) {
    case select_kind::select_if: return wk_select_if(ctx, in, out, count, n, dtype, pred, s);
    case select_kind::flagged: return wk_select_flagged(ctx, in, flags, out, count, n, dtype, s);
    case select_kind::unique: return wk_unique(ctx, in, out, count, n, dtype, s);
    case select_kind::partition_if: return wk_partition_if(ctx, in, out, count, n, dtype, pred, s);
    }
    return WK_ERROR_INVALID_ARGUMENT;
}

/* CUB's side of warpkit's WK_LESS predicate. */
template <class T> struct less_than {
    T a;
    __host__ __device__ bool operator()(const T &x) const { return x < a; }
};

/* A select's count (a uint64_t, as warpkit's) and temp storage, allocated
 * before timing. */
struct select_buffers : wk::bench::temp_storage {
    uint64_t *d_count = nullptr;

    template <class Query> void prepare(Query query)
    {
        WK_BENCH_CHECK(cudaMalloc(&d_count, sizeof(uint64_t)));
        allocate(query); /* the size query */
    }
    void release()
    {
        release_temp();
        WK_BENCH_CHECK(cudaFree(d_count));
    }
};

/* One CUB select or partition. */
template <class T> struct cub_select : select_buffers {
    select_kind kind;
    T threshold;
    cub_select(select_kind k, T t) : kind(k), threshold(t) {}

    cudaError_t run(const T *in, const uint8_t *flags, T *out, size_t n, cudaStream_t s)
    {
        /* DeviceSelect counts in int64 whatever type it is given; for
         * DevicePartition the count's type picks the offsets, and int is its
         * fastest path (the bench stays under 2^31). */
        const int64_t items = (int64_t)n;
        switch (kind) {
        case select_kind::select_if:
            return cub::DeviceSelect::If(temp, temp_bytes, in, out, d_count, items, less_than<T>{threshold}, s);
        case select_kind::flagged:
            return cub::DeviceSelect::Flagged(temp, temp_bytes, in, flags, out, d_count, items, s);
        case select_kind::unique: return cub::DeviceSelect::Unique(temp, temp_bytes, in, out, d_count, items, s);
        case select_kind::partition_if:
            return cub::DevicePartition::If(temp, temp_bytes, in, out, d_count, (int)n, less_than<T>{threshold}, s);
        }
        return cudaErrorInvalidValue;
    }
    void prepare(const T *in, const uint8_t *flags, T *out, size_t n, cudaStream_t s)
    {
        select_buffers::prepare([&] { return run(in, flags, out, n, s); });
    }
};

#ifdef WK_HAVE_CUB_LATEST
/* The newest CUB's select or partition (cub_latest.h). */
template <class T> struct cub_latest_select : select_buffers {
    select_kind kind;
    wk_dtype dtype;
    T threshold;
    cub_latest_select(select_kind k, wk_dtype d, T t) : kind(k), dtype(d), threshold(t) {}

    cudaError_t run(const T *in, const uint8_t *flags, T *out, size_t n, cudaStream_t s)
    {
        wk_cub_latest_select_kind k = WK_CUB_LATEST_SELECT_IF;
        switch (kind) {
        case select_kind::select_if: k = WK_CUB_LATEST_SELECT_IF; break;
        case select_kind::flagged: k = WK_CUB_LATEST_SELECT_FLAGGED; break;
        case select_kind::unique: k = WK_CUB_LATEST_SELECT_UNIQUE; break;
        case select_kind::partition_if: k = WK_CUB_LATEST_PARTITION_IF; break;
        }
        return wk_cub_latest_select(k, dtype, in, flags, out, d_count, n, &threshold, temp, &temp_bytes, s);
    }
    void prepare(const T *in, const uint8_t *flags, T *out, size_t n, cudaStream_t s)
    {
        select_buffers::prepare([&] { return run(in, flags, out, n, s); });
    }
};
#endif

/* ------------------------------------------------------------- one case */

template <class T>
row bench_case(wk_context *ctx, const wk::bench::pool &p, checker &chk, uint64_t *wk_count, const select_case &sc,
               wk_dtype dtype, size_t n, double selectivity, int repeats, double copy_gbs, cudaStream_t s,
               wk::bench::regime how)
{
    const size_t bytes = n * sizeof(T);
    /* The case, for messages: without and with its selectivity ("1 %"). */
    char what[96], what_keep[128];
    std::snprintf(what, sizeof what, "%s %s n=%zu", sc.name, wk_dtype_name(dtype), n);
    std::snprintf(what_keep, sizeof what_keep, "%s keep %g %%", what, 100.0 * selectivity);
    const bool flagged = sc.kind == select_kind::flagged;
    /* buffer 0: input, 1: output, 2: flags (flagged only) */
    const rotation rot = flagged ? rotation(p, {bytes, bytes, n}) : rotation(p, {bytes, bytes});
    auto input = [&](long long k) { return reinterpret_cast<const T *>(rot.buffer(k, 0)); };
    auto output = [&](long long k) { return reinterpret_cast<T *>(rot.buffer(k, 1)); };
    auto flags = [&](long long k) { return flagged ? reinterpret_cast<const uint8_t *>(rot.buffer(k, 2)) : nullptr; };

    /* The same seed for f32 and i32, so that both keep the same elements. */
    const uint32_t cut = cut_of(selectivity);
    make_input<T>(rot, sc.kind, n, cut, 0x5e1ec7ull + n + ((uint64_t)sc.kind << 40), s);
    const T threshold = element<T>(cut);
    wk_predicate pred;
    std::memset(&pred, 0, sizeof pred);
    pred.compare = WK_LESS;
    std::memcpy(&pred.a, &threshold, sizeof threshold); /* the dtype's member of wk_value */

    cub_select<T> cub(sc.kind, threshold);
    cub.prepare(input(0), flags(0), output(0), n, s);

    /* Both libraries on the same input, before anything is timed. The counts
     * are poisoned first, so that each library must write its own. */
    WK_BENCH_CHECK(cudaMemsetAsync(wk_count, 0xff, sizeof(uint64_t), s));
    WK_BENCH_CHECK(cudaMemsetAsync(cub.d_count, 0xff, sizeof(uint64_t), s));
    wk::bench::must_succeed(what,
                            warpkit_select(ctx, sc.kind, input(0), flags(0), output(0), wk_count, n, dtype, pred, s));
    WK_BENCH_CHECK(cub.run(input(0), flags(0), static_cast<T *>(chk.cub_out), n, s));
    uint64_t wk_kept = 0, cub_kept = 0;
    WK_BENCH_CHECK(cudaMemcpyAsync(&wk_kept, wk_count, sizeof wk_kept, cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaMemcpyAsync(&cub_kept, cub.d_count, sizeof cub_kept, cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaStreamSynchronize(s));
    if (wk_kept != cub_kept || cub_kept > n) {
        std::fprintf(stderr, "warpkit bench: %s: warpkit keeps %llu elements, CUB %llu\n", what_keep,
                     (unsigned long long)wk_kept, (unsigned long long)cub_kept);
        std::fprintf(stderr, "warpkit bench: stopping: a wrong answer is not timed\n");
        std::exit(1);
    }
    const size_t kept = (size_t)cub_kept;
    /* A partition writes all n outputs; a select only the kept ones. */
    const size_t written = sc.kind == select_kind::partition_if ? n : kept;
    /* warpkit's output against the toolkit CUB's, then the newest CUB's
     * (where it is built in) in the same place. */
    wk::bench::expect_same<T>(chk, what_keep, "warpkit", output(0), written, nullptr, s);
#ifdef WK_HAVE_CUB_LATEST
    cub_latest_select<T> latest(sc.kind, dtype, threshold);
    latest.prepare(input(0), flags(0), output(0), n, s);
    WK_BENCH_CHECK(cudaMemsetAsync(latest.d_count, 0xff, sizeof(uint64_t), s));
    WK_BENCH_CHECK(latest.run(input(0), flags(0), output(0), n, s));
    uint64_t latest_kept = 0;
    WK_BENCH_CHECK(cudaMemcpyAsync(&latest_kept, latest.d_count, sizeof latest_kept, cudaMemcpyDeviceToHost, s));
    WK_BENCH_CHECK(cudaStreamSynchronize(s));
    if (latest_kept != cub_kept) {
        std::fprintf(stderr, "warpkit bench: %s: the newest CUB keeps %llu elements, CUB %llu\n", what_keep,
                     (unsigned long long)latest_kept, (unsigned long long)cub_kept);
        std::exit(1);
    }
    wk::bench::expect_same<T>(chk, what_keep, "CUB latest", output(0), written, nullptr, s);
#endif

    /* Both libraries take the next slot from one walk through the pool
     * (bench_common.cuh), so that no call finds its data in L2. */
    std::vector<wk::bench::slot_call> latest_calls;
#ifdef WK_HAVE_CUB_LATEST
    latest_calls.push_back(
        [&](long long j) { return latest.run(input(j), flags(j), output(j), n, s) == cudaSuccess; });
#endif
    const wk::bench::contender_times times = wk::bench::time_contenders(
        [&](long long j) {
            return wk::bench::must_succeed(
                what, warpkit_select(ctx, sc.kind, input(j), flags(j), output(j), wk_count, n, dtype, pred, s));
        },
        [&](long long j) { return cub.run(input(j), flags(j), output(j), n, s) == cudaSuccess; }, latest_calls,
        repeats, s, how);
#ifdef WK_HAVE_CUB_LATEST
    latest.release();
#endif
    cub.release();

    double moved = (double)(n + written) * sizeof(T); /* elements read and written */
    if (flagged)
        moved += (double)n; /* and the flags read */
    row r = wk::bench::make_row(sc.name, dtype, n, times, moved, copy_gbs, true);
    r.selectivity = selectivity;
    r.kept = (long long)kept;
    return r;
}

/* Every case of every size, on one session. */
int run_selects(const wk_cli_options *opts, wk::bench::session &ses)
{
    wk_context *ctx = ses.ctx;
    cudaStream_t s = ses.stream;
    if (!wk::bench::reserve_tiles(ses, {WK_F32, WK_I32}))
        return 2;
    /* The largest slot: a flagged select of max_n 4-byte elements, with its
     * input, output and flags (9 GiB at 2^30). */
    using wk::bench::round_up_256;
    const size_t largest_slot = 2 * round_up_256(ses.max_n * sizeof(float)) + round_up_256(ses.max_n);
    wk::bench::pool p;
    p.allocate(wk::bench::pool_bytes_for_slot(largest_slot));
    checker chk;
    chk.allocate(ses.max_n, sizeof(float));
    uint64_t *wk_count;
    WK_BENCH_CHECK(cudaMalloc(&wk_count, sizeof(uint64_t)));

    const int reps = opts->repeats;
    const double copy = ses.ceilings.copy_gbs;
    /* A disagreement has stopped the run already (bench_case). */
    wk::bench::run_cases(ses, opts, op_width, "%copy", [&](wk::bench::report &rep, size_t n, wk::bench::regime how) {
        for (const select_case &sc : select_cases)
            for (double sel : selectivities) {
                rep.add(bench_case<float>(ctx, p, chk, wk_count, sc, WK_F32, n, sel, reps, copy, s, how));
                rep.add(bench_case<int32_t>(ctx, p, chk, wk_count, sc, WK_I32, n, sel, reps, copy, s, how));
            }
    });

    WK_BENCH_CHECK(cudaFree(wk_count));
    chk.release();
    p.release();
    return 0;
}

} // namespace

extern "C" int wk_bench_select_main(const wk_cli_options *opts)
{
    return wk::bench::run_session(opts, run_selects);
}
