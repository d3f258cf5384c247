/* The ladders' shared pieces: context, timing, text, JSON and CSV. */
#include "ladder/ladder_report.cuh"
#include "bench/timing.cuh"

#include <cstdio>

namespace wk_ladder_tool {

double load(const void *p, size_t i, wk_dtype d)
{
    if (d == WK_F64)
        return static_cast<const double *>(p)[i];
    if (d == WK_F32)
        return static_cast<const float *>(p)[i];
    return static_cast<const int32_t *>(p)[i];
}

int open_context(const wk_cli_options *o, const kind &k, wk_context **ctx)
{
    if (o->dtype != WK_F64 && o->dtype != WK_F32 && o->dtype != WK_I32) {
        std::fprintf(stderr, "%s: --dtype is f64, f32 or i32\n", k.name);
        return 2;
    }
    wk_status st = wk_create(ctx, o->device);
    if (st != WK_SUCCESS) {
        std::fprintf(stderr, "%s: %s\n", k.name, wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    WK_BENCH_CHECK(cudaSetDevice(wk_context_device(*ctx)));
    return 0;
}

double kernel_time_us(const std::function<void(cudaStream_t)> &enqueue, int repeats, cudaStream_t s)
{
    return wk::bench::median_us(
        [&](long long) {
            enqueue(s);
            return cudaGetLastError() == cudaSuccess;
        },
        repeats, s, 0.0 /* one call per batch: each run is timed on its own */);
}

void print_ncu_line(const wk_cli_options *o, const kind &k, const std::string &id)
{
    std::string op = std::string(k.op) == "reduce" ? "" : std::string(" --op ") + k.op;
    std::printf("ncu --nvtx --nvtx-include \"ladder %s/\" --set full warpkit ladder%s --only %s --n %zu "
                "--dtype %s --threads %u --repeats 1\n",
                id.c_str(), op.c_str(), id.c_str(), o->n, wk_dtype_name(o->dtype), o->threads);
}

bool runs_row(const wk_cli_options *o, const kind &k, const std::string &id)
{
    if (!wk_cli_selected(o->only, id.c_str()))
        return false;
    if (o->ncu) {
        print_ncu_line(o, k, id);
        return false;
    }
    return true;
}

void print_row(const row &r, size_t n, unsigned threads, const kind &k)
{
    std::printf("Kernel %s: %s\n", r.id.c_str(), r.title.c_str());
    std::printf("  vector size %zu, threads %u, blocks %u, launches %u\n", n, threads, r.blocks, r.launches);
    if (r.total_us >= 0)
        std::printf("  kernel time %.3f ms, total time %.3f ms\n", r.kernel_us / 1e3, r.total_us / 1e3);
    else
        std::printf("  kernel time %.3f ms\n", r.kernel_us / 1e3);
    std::printf("  bandwidth %.1f GB/s (%.1f %% of the %s ceiling)", r.gbs, r.pct, k.ceiling);
    if (r.speedup > 0)
        std::printf(", speed-up over %s x%.2f", k.baseline, r.speedup);
    std::printf("\n  %s\n  %s\n\n", r.detail.c_str(), r.pass ? "TEST PASS" : "TEST FAIL");
}

int print_table(const std::vector<row> &rows, const wk_ceilings &c, const kind &k)
{
    std::string pct = std::string("%") + k.ceiling, vs = std::string("vs ") + k.baseline;
    if (k.total_time)
        std::printf("%-4s %-48s %8s %11s %11s %9s %7s %8s %s\n", "id", "kernel", "blocks", "kernel_ms", "total_ms",
                    "GB/s", pct.c_str(), vs.c_str(), "test");
    else
        std::printf("%-4s %-48s %8s %11s %9s %7s %8s %s\n", "id", "kernel", "blocks", "kernel_ms", "GB/s",
                    pct.c_str(), vs.c_str(), "test");
    int failed = 0;
    for (const row &r : rows) {
        std::printf("%-4s %-48.48s %8u %11.4f ", r.id.c_str(), r.title.c_str(), r.blocks, r.kernel_us / 1e3);
        if (k.total_time)
            std::printf("%11.4f ", r.total_us / 1e3);
        std::printf("%9.1f %7.1f ", r.gbs, r.pct);
        if (r.speedup > 0)
            std::printf("%8.2f", r.speedup);
        else
            std::printf("%8s", "");
        std::printf(" %s\n", r.pass ? "TEST PASS" : "TEST FAIL");
        failed += !r.pass;
    }
    std::printf("ceilings: read %.1f GB/s, copy %.1f GB/s\n", c.read_gbs, c.copy_gbs);
    return failed;
}

namespace {

FILE *open_or_exit(const char *path, const kind &k)
{
    FILE *f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "%s: cannot write %s\n", k.name, path);
        std::exit(2);
    }
    return f;
}

} // namespace

void write_files(const wk_cli_options *o, const wk_ceilings &c, const std::vector<row> &rows, const kind &k)
{
    std::string speedup_key = std::string("speedup_vs_") + k.baseline;
    if (o->json_path) {
        FILE *f = open_or_exit(o->json_path, k);
        cudaDeviceProp p;
        int device;
        WK_BENCH_CHECK(cudaGetDevice(&device));
        WK_BENCH_CHECK(cudaGetDeviceProperties(&p, device));
        std::fprintf(f, "{\n \"device\": \"%s\",\n \"ceilings\": {\"read_gbs\": %.1f, \"copy_gbs\": %.1f},\n", p.name,
                     c.read_gbs, c.copy_gbs);
        if (k.total_time)
            std::fprintf(f, " \"n\": %zu, \"dtype\": \"%s\", \"threads\": %u, \"memory\": \"%s\",\n \"rows\": [\n",
                         o->n, wk_dtype_name(o->dtype), o->threads, wk_memory_name(o->memory));
        else
            std::fprintf(f, " \"op\": \"%s\", \"n\": %zu, \"dtype\": \"%s\", \"threads\": %u,\n \"rows\": [\n", k.op,
                         o->n, wk_dtype_name(o->dtype), o->threads);
        for (size_t i = 0; i < rows.size(); ++i) {
            const row &r = rows[i];
            std::fprintf(f,
                         "  {\"id\": \"%s\", \"title\": \"%s\", \"blocks\": %u, \"launches\": %u, "
                         "\"kernel_us\": %.3f, ",
                         r.id.c_str(), r.title.c_str(), r.blocks, r.launches, r.kernel_us);
            if (k.total_time)
                std::fprintf(f, "\"total_us\": %.3f, ", r.total_us);
            std::fprintf(f, "\"gbs\": %.1f, \"pct_of_ceiling\": %.1f, \"%s\": %.3f, \"pass\": %s}%s\n", r.gbs, r.pct,
                         speedup_key.c_str(), r.speedup, r.pass ? "true" : "false", i + 1 < rows.size() ? "," : "");
        }
        std::fprintf(f, " ]\n}\n");
        std::fclose(f);
    }
    if (o->csv_path) {
        FILE *f = open_or_exit(o->csv_path, k);
        if (k.total_time)
            std::fprintf(f, "id,title,n,dtype,threads,memory,blocks,launches,kernel_us,total_us,gbs,pct_of_ceiling,%s,"
                            "pass\n",
                         speedup_key.c_str());
        else
            std::fprintf(f, "id,title,n,dtype,threads,blocks,launches,kernel_us,gbs,pct_of_ceiling,%s,pass\n",
                         speedup_key.c_str());
        for (const row &r : rows) {
            std::fprintf(f, "%s,\"%s\",%zu,%s,%u,", r.id.c_str(), r.title.c_str(), o->n, wk_dtype_name(o->dtype),
                         o->threads);
            if (k.total_time)
                std::fprintf(f, "%s,", wk_memory_name(o->memory));
            std::fprintf(f, "%u,%u,%.3f,", r.blocks, r.launches, r.kernel_us);
            if (k.total_time)
                std::fprintf(f, "%.3f,", r.total_us);
            std::fprintf(f, "%.1f,%.1f,%.3f,%s\n", r.gbs, r.pct, r.speedup, r.pass ? "PASS" : "FAIL");
        }
        std::fclose(f);
    }
}

int finish(const wk_cli_options *o, const wk_ceilings &c, const std::vector<row> &rows, const kind &k)
{
    int failed = rows.empty() ? 0 : print_table(rows, c, k);
    write_files(o, c, rows, k);
    return failed ? 1 : 0;
}

} // namespace wk_ladder_tool
