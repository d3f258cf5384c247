/* The session, the pool, and the output of the benchmarks against CUB. */
#include "bench/bench_common.cuh"

#include <cstring>

#include <algorithm>
#include <cstdio>

namespace wk {
namespace bench {

row make_row(const char *op, wk_dtype dtype, size_t n, const call_time &warpkit, const call_time &cub, double bytes,
             double ceiling_gbs, bool agree)
{
    row r;
    r.op = op;
    r.dtype = wk_dtype_name(dtype);
    r.n = n;
    r.warpkit_us = warpkit.gpu_us;
    r.cub_us = cub.gpu_us;
    r.warpkit_host_us = warpkit.host_us;
    r.cub_host_us = cub.host_us;
    r.speedup = r.cub_us / r.warpkit_us;
    r.gbs = bytes / (r.warpkit_us * 1e3);
    r.pct_of_ceiling = 100.0 * r.gbs / ceiling_gbs;
    r.agree = agree;
    return r;
}

row make_row(const char *op, wk_dtype dtype, size_t n, const contender_times &t, double bytes, double ceiling_gbs,
             bool agree)
{
    row r = make_row(op, dtype, n, t.warpkit, t.cub, bytes, ceiling_gbs, agree);
    if (t.has_latest) {
        r.cub_latest_us = t.latest.gpu_us;
        r.cub_latest_host_us = t.latest.host_us;
    }
    r.regime = regime_name(t.how);
    return r;
}

const char *regime_name(regime r)
{
    switch (r) {
    case regime::cold: return "cold";
    case regime::warm: return "warm";
    case regime::graph: return "graph";
    }
    return "?";
}

/* A CUDA graph of graph_calls calls of `call`, on the slots `slot` hands
 * out; launching it is one timed call of the graph regime. */
struct captured_calls {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;

    captured_calls(const slot_call &call, const std::function<long long()> &slot, cudaStream_t s)
    {
        /* One call outside the capture first: the kernels are then loaded
         * and the library's workspaces made. */
        if (!call(slot())) {
            std::fprintf(stderr, "warpkit bench: a call failed before capture\n");
            std::exit(2);
        }
        WK_BENCH_CHECK(cudaStreamSynchronize(s));
        WK_BENCH_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < graph_calls; ++i)
            if (!call(slot())) {
                std::fprintf(stderr, "warpkit bench: a call failed during capture\n");
                std::exit(2);
            }
        WK_BENCH_CHECK(cudaStreamEndCapture(s, &graph));
        WK_BENCH_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    }
    ~captured_calls()
    {
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
    }
};

contender_times time_contenders(const slot_call &warpkit, const slot_call &cub, const std::vector<slot_call> &latest,
                                int repeats, cudaStream_t stream, regime how)
{
    std::vector<slot_call> calls = {warpkit, cub};
    calls.insert(calls.end(), latest.begin(), latest.end());
    std::vector<call_time> all;
    if (how == regime::cold) {
        all = time_walk(calls, repeats, stream);
    } else if (how == regime::warm) {
        std::vector<slot_call> on_slot_0;
        for (const auto &c : calls)
            on_slot_0.push_back([c](long long) { return c(0); });
        all = time_rounds(on_slot_0, repeats, stream);
    } else {
        /* Each contender's graph takes the next graph_calls slots of one walk. */
        walk w;
        std::vector<std::unique_ptr<captured_calls>> graphs;
        std::vector<slot_call> replays;
        for (const auto &c : calls) {
            graphs.emplace_back(new captured_calls(c, [&w] { return w.take(); }, stream));
            cudaGraphExec_t exec = graphs.back()->exec;
            replays.push_back([exec, stream](long long) { return cudaGraphLaunch(exec, stream) == cudaSuccess; });
        }
        all = time_rounds(replays, repeats, stream);
        for (call_time &t : all) {
            t.gpu_us /= graph_calls;
            t.host_us /= graph_calls;
        }
        WK_BENCH_CHECK(cudaStreamSynchronize(stream));
    }
    contender_times t;
    t.how = how;
    t.warpkit = all[0];
    t.cub = all[1];
    if (all.size() > 2) {
        t.latest = all[2];
        for (size_t i = 3; i < all.size(); ++i)
            if (all[i].gpu_us < t.latest.gpu_us)
                t.latest = all[i];
        t.has_latest = true;
    }
    return t;
}

std::vector<regime> regimes(const wk_cli_options *opts)
{
    switch (opts->regime) {
    case WK_REGIME_WARM: return {regime::warm};
    case WK_REGIME_GRAPH: return {regime::graph};
    case WK_REGIME_ALL: return {regime::cold, regime::warm, regime::graph};
    default: return {regime::cold};
    }
}

std::vector<size_t> sizes(const session &s, regime how)
{
    std::vector<size_t> v;
    const size_t top = how == regime::cold ? s.max_n : std::min(s.max_n, (size_t)1 << 24);
    for (size_t n : sizes(s))
        if (n <= top)
            v.push_back(n);
    return v;
}

int open_session(const wk_cli_options *opts, session &s)
{
    wk_status st = wk_create(&s.ctx, opts->device);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "%s: %s\n", s.name, wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    WK_BENCH_CHECK(cudaSetDevice(wk_context_device(s.ctx)));
    s.min_n = opts->min_n ? opts->min_n : default_min_n;
    s.max_n = opts->max_n ? opts->max_n : (opts->quick ? (size_t)1 << 24 : default_max_n);
    if (s.max_n > default_max_n) {
        std::fprintf(stderr, "%s: sizes are limited to 2^30 (CUB is run with int counts)\n", s.name);
        wk_destroy(s.ctx);
        return 2;
    }

    std::fprintf(stderr, "measuring the bandwidth ceilings...\n");
    wk_measure_ceilings(&s.ceilings);
    std::fprintf(stderr, "read ceiling %.1f GB/s, copy ceiling %.1f GB/s\n", s.ceilings.read_gbs,
                 s.ceilings.copy_gbs);
    WK_BENCH_CHECK(cudaStreamCreate(&s.stream));
#ifdef WK_HAVE_CUB_LATEST
    s.cub_latest_version = wk_cub_latest_version();
#endif
    return 0;
}

void close_session(session &s)
{
    WK_BENCH_CHECK(cudaStreamDestroy(s.stream));
    wk_destroy(s.ctx);
}

int run_session(const wk_cli_options *opts, int (*body)(const wk_cli_options *, session &))
{
    session s;
    if (int status = open_session(opts, s))
        return status;
    int status = body(opts, s);
    close_session(s);
    return status;
}

void fail_call(const char *what, wk_status st)
{
    std::fprintf(stderr, "warpkit bench: %s: warpkit returned '%s': %s\n", what, wk_status_string(st),
                 wk_last_error_message());
    std::exit(2);
}

std::vector<size_t> sizes(const session &s)
{
    std::vector<size_t> v;
    for (size_t n = s.min_n; n <= s.max_n; n *= 4)
        v.push_back(n);
    return v;
}

void pool::allocate(size_t want)
{
    bytes = want;
    WK_BENCH_CHECK(cudaMalloc(&base, bytes));
}

void pool::release()
{
    WK_BENCH_CHECK(cudaFree(base));
    base = nullptr;
}

void checker::allocate(size_t max_n, size_t element_bytes)
{
    WK_BENCH_CHECK(cudaMalloc(&cub_out, round_up_256(max_n * element_bytes)));
    WK_BENCH_CHECK(cudaMalloc(&bad, sizeof(mismatches)));
}

void checker::release()
{
    WK_BENCH_CHECK(cudaFree(cub_out));
    WK_BENCH_CHECK(cudaFree(bad));
    cub_out = nullptr;
    bad = nullptr;
}

/* A select row's selectivity as a percent ("1 %", "50 %"), or "" for the
 * rows that have none. */
static std::string selectivity_label(const row &r)
{
    if (r.selectivity < 0)
        return "";
    char text[32];
    std::snprintf(text, sizeof text, "%g %%", 100.0 * r.selectivity);
    return text;
}

/* A segmented row's segments (elements per segment: "32", "2^14"; or
 * "offsets"), or "" for the rows that have none. */
static std::string segment_label(const row &r)
{
    if (r.segment_size < 0)
        return "";
    if (r.segment_size == 0)
        return "offsets";
    char text[32];
    const unsigned long long s = (unsigned long long)r.segment_size;
    if ((s & (s - 1)) == 0 && s >= 1024)
        std::snprintf(text, sizeof text, "2^%d", __builtin_ctzll(s));
    else
        std::snprintf(text, sizeof text, "%llu", s);
    return text;
}

void print_progress(const row &r, int op_width)
{
    std::string sel = selectivity_label(r);
    if (!sel.empty())
        sel = " keep " + sel;
    if (r.segment_size >= 0)
        sel += " seg " + segment_label(r);
    char latest[64] = "";
    if (r.cub_latest_us >= 0)
        std::snprintf(latest, sizeof latest, "  cub latest %9.2f us (host %5.2f)", r.cub_latest_us,
                      r.cub_latest_host_us);
    std::fprintf(stderr,
                 "  %-5s %-*s %-4s%s n=%-11zu warpkit %9.2f us (host %5.2f)  cub %9.2f us (host %5.2f)%s  x%.2f  %s\n",
                 r.regime.c_str(), op_width, r.op.c_str(), r.dtype.c_str(), sel.c_str(), r.n, r.warpkit_us,
                 r.warpkit_host_us,
                 r.cub_us, r.cub_host_us, latest, r.speedup, r.agree ? "" : "RESULTS DIFFER");
}

int print_table(const std::vector<row> &rows, const wk_ceilings &c, int op_width, const char *ceiling)
{
    /* The selectivity column only where some row has one, so that the
     * reduce and scan tables read as before. */
    bool any_selectivity = false, any_latest = false, any_regime = false, any_segments = false;
    for (const row &r : rows) {
        any_selectivity |= r.selectivity >= 0;
        any_segments |= r.segment_size >= 0;
        any_latest |= r.cub_latest_us >= 0;
        any_regime |= r.regime != "cold";
    }
    /* The segments column takes the selectivity's place: no row has both. */
    const int sel_width = any_segments ? 8 : any_selectivity ? 6 : 0, latest_width = any_latest ? 14 : 0,
              regime_width = any_regime ? 7 : 0;
    std::printf("%-*s%-*s %-5s%*s %12s %11s %11s%*s %8s %9s %7s %s\n", regime_width, any_regime ? "regime" : "",
                op_width, "op", "dtype", sel_width, any_segments ? "segment" : any_selectivity ? "keep" : "", "n",
                "warpkit_us", "cub_us",
                latest_width, any_latest ? "cub_latest_us" : "", "speedup", "GB/s", ceiling, "check");
    int disagreements = 0;
    for (const row &r : rows) {
        char latest[32] = "";
        if (r.cub_latest_us >= 0)
            std::snprintf(latest, sizeof latest, "%.2f", r.cub_latest_us);
        const std::string dtype = r.out_dtype.empty() ? r.dtype : r.dtype + ">" + r.out_dtype;
        std::printf("%-*s%-*s %-5s%*s %12zu %11.2f %11.2f%*s %8.2f %9.1f %7.1f %s\n", regime_width,
                    any_regime ? r.regime.c_str() : "", op_width, r.op.c_str(), dtype.c_str(), sel_width,
                    (r.segment_size >= 0 ? segment_label(r) : selectivity_label(r)).c_str(), r.n, r.warpkit_us, r.cub_us,
                    latest_width, latest, r.speedup, r.gbs, r.pct_of_ceiling, r.agree ? "ok" : "DIFFER");
        disagreements += !r.agree;
    }
    std::printf("ceilings: read %.1f GB/s, copy %.1f GB/s\n", c.read_gbs, c.copy_gbs);
    return disagreements;
}

void write_json(const char *path, const session &s, const std::vector<row> &rows)
{
    const wk_ceilings &c = s.ceilings;
    FILE *f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "%s: cannot write %s\n", s.name, path);
        std::exit(2);
    }
    cudaDeviceProp prop;
    int device;
    WK_BENCH_CHECK(cudaGetDevice(&device));
    WK_BENCH_CHECK(cudaGetDeviceProperties(&prop, device));
    std::fprintf(f, "{\n  \"device\": \"%s\",\n", prop.name);
    std::fprintf(f, "  \"ceilings\": {\"read_gbs\": %.1f, \"copy_gbs\": %.1f},\n", c.read_gbs, c.copy_gbs);
    if (s.cub_latest_version)
        std::fprintf(f, "  \"cub_latest_version\": \"%d.%d.%d\",\n", s.cub_latest_version / 1000000,
                     s.cub_latest_version / 1000 % 1000, s.cub_latest_version % 1000);
    std::fprintf(f, "  \"bench\": [\n");
    for (size_t i = 0; i < rows.size(); ++i) {
        const row &r = rows[i];
        /* A select row names its case's selectivity and the elements its
         * input makes it keep; the other rows have neither key. */
        char select_keys[96] = "", latest_keys[224] = "", out_key[32] = "";
        if (!r.out_dtype.empty())
            std::snprintf(out_key, sizeof out_key, ", \"out_dtype\": \"%s\"", r.out_dtype.c_str());
        if (r.selectivity >= 0)
            std::snprintf(select_keys, sizeof select_keys, ", \"selectivity\": %g, \"kept\": %lld", r.selectivity,
                          r.kept);
        if (r.segment_size >= 0)
            std::snprintf(select_keys, sizeof select_keys, ", \"segment_size\": %lld", r.segment_size);
        if (r.cub_latest_us >= 0)
            std::snprintf(latest_keys, sizeof latest_keys, ", \"cub_latest_us\": %.3f, \"cub_latest_host_us\": %.3f",
                          r.cub_latest_us, r.cub_latest_host_us);
        if (r.plain_us >= 0)
            std::snprintf(latest_keys + std::strlen(latest_keys), sizeof latest_keys - std::strlen(latest_keys),
                          ", \"plain_us\": %.3f", r.plain_us);
        if (r.cub_toolkit_us >= 0)
            std::snprintf(latest_keys + std::strlen(latest_keys), sizeof latest_keys - std::strlen(latest_keys),
                          ", \"cub_toolkit_us\": %.3f", r.cub_toolkit_us);
        if (r.cub_agree >= 0)
            std::snprintf(latest_keys + std::strlen(latest_keys), sizeof latest_keys - std::strlen(latest_keys),
                          ", \"cub_agree\": %s", r.cub_agree ? "true" : "false");
        std::fprintf(f,
                     "    {\"op\": \"%s\", \"regime\": \"%s\", \"dtype\": \"%s\"%s, \"n\": %zu%s, \"warpkit_us\": %.3f, \"cub_us\": %.3f, "
                     "\"speedup\": %.3f, \"gbs\": %.1f, \"pct_of_ceiling\": %.1f, \"agree\": %s, "
                     "\"warpkit_host_us\": %.3f, \"cub_host_us\": %.3f%s}%s\n",
                     r.op.c_str(), r.regime.c_str(), r.dtype.c_str(), out_key, r.n, select_keys, r.warpkit_us, r.cub_us, r.speedup, r.gbs,
                     r.pct_of_ceiling, r.agree ? "true" : "false", r.warpkit_host_us, r.cub_host_us, latest_keys,
                     i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
}

int report::finish(const session &s, const char *ceiling, const char *json_path) const
{
    int disagreements = print_table(rows, s.ceilings, op_width, ceiling);
    if (json_path)
        write_json(json_path, s, rows);
    return disagreements;
}

bool reserve_tiles(const session &s, std::initializer_list<wk_dtype> dtypes)
{
    for (wk_dtype d : dtypes)
        if (wk_scan_reserve(s.ctx, s.max_n, d) != WK_SUCCESS) {
            std::fprintf(stderr, "%s: wk_scan_reserve: %s\n", s.name, wk_last_error_message());
            return false;
        }
    return true;
}

} // namespace bench
} // namespace wk
