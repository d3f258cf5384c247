/* What the reduce ladder and the scan ladder share: opening the context,
 * timing a row, and printing and writing its results. */
#ifndef WARPKIT_LADDER_REPORT_CUH
#define WARPKIT_LADDER_REPORT_CUH

#include "bench/bench.h"
#include "warpkit.h"

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace wk_ladder_tool {

/* One row: a kernel or library call, its shape, its times and its check. */
struct row {
    std::string id, title;
    unsigned blocks = 0, launches = 0;
    double kernel_us = 0;
    double total_us = -1; /* with the input's copy in and the result's copy out; < 0: not measured */
    double gbs = 0, pct = 0;
    double speedup = 0;   /* baseline row's kernel time over this row's; 0: none */
    std::string detail;   /* what the check compared, e.g. "sum 1.5 (tolerance 1e-9)" */
    bool pass = false;
};

/* What differs between the ladders' reports. */
struct kind {
    const char *name;     /* "warpkit ladder", for messages                  */
    const char *op;       /* the --op value: "reduce" or "scan"              */
    const char *ceiling;  /* the ceiling that percentages refer to: "read" or "copy" */
    const char *baseline; /* the row that speed-ups are measured against     */
    bool total_time;      /* rows carry a total time (and the run a --memory) */
};

/* Element i of an array of dtype (f64, f32 or i32) as a double. */
double load(const void *p, size_t i, wk_dtype d);

/* Checks --dtype (f64, f32 or i32), creates the context and makes its device
 * current. Returns 0, or the exit status to return (2 for a bad option or
 * failure, 3 without a device). */
int open_context(const wk_cli_options *o, const kind &k, wk_context **ctx);

/* Median kernel time of `enqueue` over `repeats` runs, each timed on its
 * own with CUDA events. */
double kernel_time_us(const std::function<void(cudaStream_t)> &enqueue, int repeats, cudaStream_t s);

/* The ncu command line that profiles row `id` alone (--ncu). */
void print_ncu_line(const wk_cli_options *o, const kind &k, const std::string &id);

/* Whether row `id` is to run: --only selects it and --ncu is off. Under
 * --ncu, prints the row's ncu line instead. */
bool runs_row(const wk_cli_options *o, const kind &k, const std::string &id);

/* The row as a block of text on stdout, ending in TEST PASS or TEST FAIL. */
void print_row(const row &r, size_t n, unsigned threads, const kind &k);

/* All rows as a table on stdout, then the ceilings. Returns the rows that
 * failed. */
int print_table(const std::vector<row> &rows, const wk_ceilings &c, const kind &k);

/* The rows of `methods` that are to run (runs_row), in order: measure(m)
 * times and checks method m and returns its row, whose speed-up over the
 * baseline row (k.baseline, once it has run) is set where compared(m.id)
 * says so. Each row is printed as it comes (print_row). */
template <class Method, class Measure, class Compared>
std::vector<row> run_rows(const wk_cli_options *o, const kind &k, size_t n, unsigned threads,
                          const std::vector<Method> &methods, Measure measure, Compared compared)
{
    std::vector<row> rows;
    double base_us = 0;
    for (const Method &m : methods) {
        if (!runs_row(o, k, m.id))
            continue;
        row r = measure(m);
        if (m.id == k.baseline)
            base_us = r.kernel_us;
        r.speedup = compared(m.id) && base_us > 0 ? base_us / r.kernel_us : 0;
        print_row(r, n, threads, k);
        rows.push_back(r);
    }
    return rows;
}

/* --json and --csv. Exits with status 2 if a file cannot be written. */
void write_files(const wk_cli_options *o, const wk_ceilings &c, const std::vector<row> &rows, const kind &k);

/* The end of a run: the table (when any row ran), then --json and --csv.
 * Returns the exit status, 1 if a row failed and 0 otherwise. */
int finish(const wk_cli_options *o, const wk_ceilings &c, const std::vector<row> &rows, const kind &k);

} // namespace wk_ladder_tool

#endif
