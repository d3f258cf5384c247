/* What the benchmarks against CUB share: the session (context, size range,
 * ceilings, stream), the input values, the pool that inputs and outputs
 * rotate through, the GPU comparison of the two libraries' outputs, and the
 * rows with their progress line, table and JSON. */
#ifndef WARPKIT_BENCH_COMMON_CUH
#define WARPKIT_BENCH_COMMON_CUH

#include "bench/bench.h"
#include "ref/splitmix.h"
#include "bench/timing.cuh"
#include "warpkit.h"
#ifdef WK_HAVE_CUB_LATEST
#include "bench/cub_latest/cub_latest.h" /* the newest CUB's calls, a contender where built in */
#endif

#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace wk {
namespace bench {

/* The least memory that calls rotate through: far more than L2, so that no
 * call finds its data in L2 from an earlier call. */
constexpr size_t min_pool_bytes = (size_t)2 << 30;
constexpr size_t default_min_n = (size_t)1 << 10;
constexpr size_t default_max_n = (size_t)1 << 30;

/* How a case's calls meet their data and the host (--regime):
 *  - cold: each call takes the next slot of one walk through at least 2 GiB,
 *    so that nothing it reads or writes is in L2;
 *  - warm: every call takes slot 0, which the previous call left in L2, as in
 *    a pipeline whose previous kernel wrote the data;
 *  - graph: graph_calls calls on consecutive slots are captured into a CUDA
 *    graph, whose replays are timed: what the calls cost on the GPU without
 *    the host's launch cost. Every replay touches the same graph_calls
 *    slots, which below about 2^18 elements fit in L2. */
enum class regime { cold, warm, graph };
const char *regime_name(regime r);
constexpr int graph_calls = 64;

/* One line of the results: the keys of the results file's "bench" list. */
struct row {
    std::string op, dtype;
    std::string out_dtype; /* widening sums: the result's dtype (empty elsewhere) */
    size_t n;
    double warpkit_us, cub_us, speedup, gbs, pct_of_ceiling;
    double warpkit_host_us, cub_host_us; /* enqueue time per call */
    bool agree;
    /* Select rows only (negative elsewhere): the fraction of elements the
     * case is built to keep, and how many its input makes it keep. */
    double selectivity = -1;
    long long kept = -1;
    /* The newest CUB's time where it was built in (cub_latest.h); negative
     * elsewhere. */
    double cub_latest_us = -1, cub_latest_host_us = -1;
    std::string regime = "cold"; /* how the calls were timed (time_contenders) */
    /* Reproducible-sum rows: warpkit's ordinary sum of the same inputs, and
     * whether CUB's reproducible sum gave the right answer (-1 elsewhere). */
    double plain_us = -1;
    int cub_agree = -1;
    /* Segmented rows only (negative elsewhere): the elements per segment of
     * a uniform case, 0 for the case with offsets; and the toolkit CUB's
     * time, where cub_us is the fastest of every CUB form timed. */
    long long segment_size = -1;
    double cub_toolkit_us = -1;
};

/* One kind of row of a bench: the row's op and what its cases run. */
template <class Kind> struct op_case {
    const char *name; /* the row's op */
    Kind kind;
};

/* The op column's width for a table of cases: its longest op. */
template <class Kind, size_t N> constexpr int op_column_width(const op_case<Kind> (&cases)[N])
{
    int widest = 0;
    for (const op_case<Kind> &c : cases) {
        int len = 0;
        while (c.name[len])
            ++len;
        widest = len > widest ? len : widest;
    }
    return widest;
}

/* Fills in the times and the derived columns: speedup is CUB's time over
 * warpkit's, bandwidth is `bytes` moved by one warpkit call over its time. */
row make_row(const char *op, wk_dtype dtype, size_t n, const call_time &warpkit, const call_time &cub, double bytes,
             double ceiling_gbs, bool agree);

/* The context, the sizes to run and the ceilings, shared by every case. */
struct session {
    const char *name = "warpkit bench"; /* for messages */
    wk_context *ctx = nullptr;
    size_t min_n = 0, max_n = 0;
    wk_ceilings ceilings{};
    cudaStream_t stream = nullptr;
    int cub_latest_version = 0; /* CCCL_VERSION of the newest CUB, 0 without it */
};

/* The regimes a run times (--regime; cold alone by default) and the sizes of
 * each: warm and graph stop at 2^24, where the data outgrow L2 and the launch
 * cost is a small part of a call. */
std::vector<regime> regimes(const wk_cli_options *opts);
std::vector<size_t> sizes(const session &s, regime how);

/* Creates the context, reads the size range from the options (--min-n,
 * --max-n, --quick), measures the ceilings and creates the stream. Returns
 * 0, or the exit status to return at once (3 without a device, 2 for bad
 * options). */
int open_session(const wk_cli_options *opts, session &s);
void close_session(session &s);

/* A whole run: opens the session, runs body(opts, session) and closes the
 * session. Returns open_session's status where it fails, else body's. */
int run_session(const wk_cli_options *opts, int (*body)(const wk_cli_options *, session &));

/* The sizes of a run: min_n, 4 min_n, 16 min_n, ... up to max_n. */
std::vector<size_t> sizes(const session &s);

/* Device memory that the calls of a case rotate through. */
struct pool {
    char *base = nullptr;
    size_t bytes = 0;
    void allocate(size_t want);
    void release();
};

inline size_t round_up_256(size_t bytes) { return (bytes + 255) / 256 * 256; }

/* How one case lays out its buffers in the pool: `count` slots, each with
 * `per_slot` buffers (a reduce: its input; a scan: its input and its
 * output; a flagged select: its input, output and flags), filling at least
 * min_pool_bytes. A case whose one slot is larger than that gets a single
 * slot. Buffers start on 256-byte boundaries. */
struct rotation {
    static constexpr size_t max_buffers = 4;
    char *base;
    size_t offset[max_buffers + 1]; /* of each buffer in a slot; the last: the slot's size */
    size_t per_slot, count;

    /* `buffers_per_slot` buffers of `bytes_per_buffer` each. */
    rotation(const pool &p, size_t bytes_per_buffer, size_t buffers_per_slot) : base(p.base), offset{0}, per_slot(0)
    {
        for (size_t b = 0; b < buffers_per_slot; ++b)
            add(bytes_per_buffer);
        finish(p);
    }
    /* Buffers of their own sizes, in this order. */
    rotation(const pool &p, std::initializer_list<size_t> buffer_bytes) : base(p.base), offset{0}, per_slot(0)
    {
        for (size_t b : buffer_bytes)
            add(b);
        finish(p);
    }
    /* Buffer `b` of the slot that call number k uses. */
    char *buffer(long long k, size_t b) const
    {
        return base + (size_t)(k % (long long)count) * slot_bytes() + offset[b];
    }
    size_t slot_bytes() const { return offset[per_slot]; }
    size_t used_bytes() const { return count * slot_bytes(); }

  private:
    void add(size_t bytes)
    {
        if (per_slot == max_buffers) {
            std::fprintf(stderr, "warpkit bench: more than %zu buffers per slot\n", max_buffers);
            std::exit(2);
        }
        offset[per_slot + 1] = offset[per_slot] + round_up_256(std::max<size_t>(bytes, 1));
        ++per_slot;
    }
    void finish(const pool &p)
    {
        count = std::max(min_pool_bytes, slot_bytes()) / slot_bytes();
        /* A pool sized for a smaller case would hand out memory past its end. */
        if (used_bytes() > p.bytes) {
            std::fprintf(stderr, "warpkit bench: a case needs %zu bytes of a pool of %zu\n", used_bytes(), p.bytes);
            std::exit(2);
        }
    }
};

/* The order in which a case's calls take slots of its rotation: one walk,
 * shared by all contenders, each call taking the next slot whichever
 * contender makes it. Every call then gets the slot left alone the longest,
 * at least min_pool_bytes of other calls' traffic ago, so that it neither
 * reads nor writes lines a recent call left in L2, however the two
 * libraries' batch sizes differ. (Two counters, one per library, started
 * half a pool apart, drift into each other as their batch sizes differ.) */
struct walk {
    long long next = 0;
    long long take() { return next++; }
};

/* Times the contenders' calls in rounds (time_rounds), each call on the next
 * slot of one walk: calls[i](j) makes contender i's call on slot j; the
 * medians come back in the same order. */
inline std::vector<call_time> time_walk(const std::vector<slot_call> &calls, int repeats, cudaStream_t stream)
{
    auto w = std::make_shared<walk>();
    std::vector<slot_call> on_walk;
    for (const auto &c : calls)
        on_walk.push_back([w, c](long long) { return c(w->take()); });
    return time_rounds(on_walk, repeats, stream);
}

/* The calls of one case: warpkit's, the toolkit CUB's, and the newest
 * CUB's where it is built in (`latest`, empty without it: one or more forms
 * of its call, of which the row keeps the fastest), timed in rounds in the
 * given regime. A call `c(j)` makes one call on slot j and says whether it
 * succeeded. */
struct contender_times {
    call_time warpkit, cub, latest;
    bool has_latest = false;
    regime how = regime::cold;
};
contender_times time_contenders(const slot_call &warpkit, const slot_call &cub, const std::vector<slot_call> &latest,
                                int repeats, cudaStream_t stream, regime how = regime::cold);

/* make_row from a case's contender_times, with the newest CUB's time where
 * it ran and the regime. */
row make_row(const char *op, wk_dtype dtype, size_t n, const contender_times &t, double bytes, double ceiling_gbs,
             bool agree);

/* A library call's temporary storage, sized by a first call without any
 * (CUB's convention: the call then only sets temp_bytes) and allocated
 * before timing. */
struct temp_storage {
    void *temp = nullptr;
    size_t temp_bytes = 0;
    template <class Query> void allocate(Query query)
    {
        temp = nullptr;
        WK_BENCH_CHECK(query());
        WK_BENCH_CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    }
    void release_temp()
    {
        WK_BENCH_CHECK(cudaFree(temp));
        temp = nullptr;
    }
};

/* Says on stderr that warpkit's call for case `what` ("scan_inclusive_sum
 * f32 n=1024") returned st, and exits with status 2. */
[[noreturn]] void fail_call(const char *what, wk_status st);

/* true for WK_SUCCESS; any other status stops the run (fail_call). The form
 * of warpkit's call that time_contenders takes. */
inline bool must_succeed(const char *what, wk_status st)
{
    if (st != WK_SUCCESS)
        fail_call(what, st);
    return true;
}

/* Pool bytes for sizes up to max_n of at most 8-byte elements with
 * `buffers_per_slot` buffers per call. */
inline size_t pool_bytes(size_t max_n, size_t buffers_per_slot)
{
    return std::max(min_pool_bytes, buffers_per_slot * round_up_256(max_n * sizeof(double)));
}

/* Pool bytes for cases whose largest slot (rotation::slot_bytes) is
 * `slot_bytes`. */
inline size_t pool_bytes_for_slot(size_t slot_bytes) { return std::max(min_pool_bytes, slot_bytes); }

/* Values a user might reduce or scan: floats in [-1, 1), integers in
 * [-1000, 1000] (cut to the width of 8- and 16-bit types), bools 0 or 1.
 * Element i depends only on (seed, i). */
__device__ inline uint64_t mix(uint64_t x) { return wk_splitmix64_mix(x + WK_SPLITMIX64_GAMMA); }
template <class T> __device__ inline T draw(uint64_t r)
{
    if constexpr (std::is_floating_point<T>::value)
        return (T)((double)(r >> 11) * 0x1p-52 - 1.0);
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        return __float2bfloat16((float)((double)(r >> 11) * 0x1p-52 - 1.0));
    else if constexpr (std::is_same<T, bool>::value)
        return (r >> 40) & 1;
    else
        return (T)((long long)(r % 2001) - 1000);
}
template <class T> __global__ void fill_values(T *p, size_t n, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = draw<T>(mix(seed ^ (i * 0x2545f4914f6cdd1dull)));
}
/* Fills every buffer of the rotation with values from `seed`. */
template <class T> void fill(const rotation &r, uint64_t seed, cudaStream_t s)
{
    fill_values<T><<<1024, 256, 0, s>>>(reinterpret_cast<T *>(r.base), r.used_bytes() / sizeof(T), seed);
    WK_BENCH_CHECK(cudaGetLastError());
}

/* ------------------------------------------------- comparing the outputs */

/* Before a case is timed, both libraries run once on the same input and
 * their outputs are compared on the GPU, so that checking a 2^30-element
 * case costs milliseconds, not a trip of two arrays over PCIe. */
constexpr unsigned check_threads = 256;

struct mismatches {
    unsigned long long count;
    unsigned long long first; /* index of the first bad output, or ~0 */
};

template <class T> __device__ inline bool same_bits(T x, T y)
{
    using U = typename std::conditional<sizeof(T) == 8, unsigned long long, unsigned>::type;
    static_assert(sizeof(T) == sizeof(U), "4- and 8-byte elements");
    U a, b;
    memcpy(&a, &x, sizeof a);
    memcpy(&b, &y, sizeof b);
    return a == b;
}

/* Each output of `a` against the same output of `b`, bit for bit. */
template <class T>
__global__ void __launch_bounds__(check_threads) compare_outputs(const T *a, const T *b, size_t n, mismatches *bad)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (!same_bits(a[i], b[i])) {
            atomicAdd(&bad->count, 1ull);
            atomicMin(&bad->first, (unsigned long long)i);
        }
}

/* Device memory for the comparison, sized once for the largest case. */
struct checker {
    void *cub_out = nullptr; /* CUB's output for the comparison */
    mismatches *bad = nullptr;

    /* Room for outputs of up to max_n elements of `element_bytes`. */
    void allocate(size_t max_n, size_t element_bytes = sizeof(double));
    void release();

    /* Compares warpkit's output `wk_out` with CUB's (in cub_out). */
    template <class T> mismatches compare(const T *wk_out, size_t n, cudaStream_t s)
    {
        mismatches none = {0, ~0ull};
        WK_BENCH_CHECK(cudaMemcpyAsync(bad, &none, sizeof none, cudaMemcpyHostToDevice, s));
        if (n) {
            compare_outputs<T><<<1024, check_threads, 0, s>>>(wk_out, static_cast<const T *>(cub_out), n, bad);
            WK_BENCH_CHECK(cudaGetLastError());
        }
        mismatches got;
        WK_BENCH_CHECK(cudaMemcpyAsync(&got, bad, sizeof got, cudaMemcpyDeviceToHost, s));
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
        return got;
    }
};

/* Prints element i of device array d_p on stderr, labelled `who`. */
template <class T> void print_value(const char *who, const T *d_p, size_t i)
{
    T v;
    WK_BENCH_CHECK(cudaMemcpy(&v, d_p + i, sizeof v, cudaMemcpyDeviceToHost));
    if (std::is_floating_point<T>::value)
        std::fprintf(stderr, "    %-8s %.17g\n", who, (double)v);
    else
        std::fprintf(stderr, "    %-8s %lld\n", who, (long long)v);
}

/* Compares the first `count` outputs at `got`, `who`'s ("warpkit"), with
 * CUB's in chk.cub_out, and where any differ stops the run (exit status 1):
 * a benchmark must not time a wrong answer. First it says on stderr how many
 * differ in case `what`, and at the first of them the input (where `input`
 * is not null), `who`'s output and CUB's. */
template <class T>
void expect_same(checker &chk, const char *what, const char *who, const T *got, size_t count, const T *input,
                 cudaStream_t s)
{
    mismatches bad = chk.compare<T>(got, count, s);
    if (!bad.count)
        return;
    std::fprintf(stderr, "warpkit bench: %s: %s and CUB disagree at %llu of %zu outputs; the first at index %llu:\n",
                 what, who, bad.count, count, bad.first);
    if (input)
        print_value("input", input, bad.first);
    print_value(who, got, bad.first);
    print_value("CUB", static_cast<const T *>(chk.cub_out), bad.first);
    std::fprintf(stderr, "warpkit bench: stopping: a wrong answer is not timed\n");
    std::exit(1);
}

/* The progress line of one case on stderr; op_width is the op column's width. */
void print_progress(const row &r, int op_width);

/* The table on stdout: one line per row and the ceilings. `ceiling` names the
 * percent column ("%read", "%copy"). Returns the rows that disagree. */
int print_table(const std::vector<row> &rows, const wk_ceilings &c, int op_width, const char *ceiling);

/* Writes the device, the ceilings, the newest CUB's version where it is built
 * in, and the rows as JSON (the "bench" list of the results file); exits
 * with status 2 if the file cannot be written. */
void write_json(const char *path, const session &s, const std::vector<row> &rows);

/* The rows of a run: each printed as progress when it is added; at the end
 * the table, and the JSON when there is a path. finish returns the rows
 * that disagree. */
struct report {
    int op_width;
    std::vector<row> rows;
    void add(const row &r)
    {
        print_progress(r, op_width);
        rows.push_back(r);
    }
    int finish(const session &s, const char *ceiling, const char *json_path) const;
};

/* The rows of every regime and size of a run (regimes, sizes): case_rows(rep,
 * n, how) adds those of one size to rep. Then finishes the report (`ceiling`
 * names its percent column) and returns the rows that disagree. */
template <class CaseRows>
int run_cases(const session &ses, const wk_cli_options *opts, int op_width, const char *ceiling, CaseRows case_rows)
{
    report rep{op_width, {}};
    for (regime how : regimes(opts))
        for (size_t n : sizes(ses, how))
            case_rows(rep, n, how);
    return rep.finish(ses, ceiling, opts->json_path);
}

/* Grows the context's tile workspace (the scan's and the select's) once
 * for max_n elements of each dtype, so that no timed call allocates.
 * Returns false, having said why, when it cannot. */
bool reserve_tiles(const session &s, std::initializer_list<wk_dtype> dtypes);

} // namespace bench
} // namespace wk

#endif
