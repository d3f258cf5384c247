/* CPU test of the scan and select launchers' guard: a plan of a tile shape
 * that the dtype's kernels do not take (the pipelined shapes for 2-byte
 * elements or with the wrong vectors, a chained shape of another element
 * size, 32-bit counts' tiles for an input that needs 64-bit counts), an op
 * the dtype lacks and an unknown select mode get cudaErrorInvalidValue
 * before anything reaches the device. Plans of the library's planners are
 * launched by the GPU tests; these are the ones no planner makes. */
#include "scan/launch.h"
#include "scan/plan.h"
#include "select/launch.h"
#include "select/plan.h"
#include "test_util.h"

#include <string.h>

static wk_tally tally;

/* A plan of `n` elements of `elem` bytes in the given shape, from 16-byte
 * aligned addresses. */
static wk_scan_plan shape(size_t n, size_t elem, unsigned block, unsigned vectors, int pipelined)
{
    wk_scan_plan p;
    memset(&p, 0, sizeof p);
    wk_plan_tiles(0x10000, 0x20000, n, elem, block, vectors, &p);
    p.pipelined = pipelined;
    return p;
}

static void expect_refused(cudaError_t got, const char *what)
{
    wk_checkf(&tally, got == cudaErrorInvalidValue, "%s: cudaErrorInvalidValue (got %d)", what, (int)got);
}

static cudaError_t scan(cudaError_t (*launcher)(const wk_scan_launch *), wk_scan_plan plan, wk_op op)
{
    wk_scan_launch l;
    memset(&l, 0, sizeof l);
    l.in = (const void *)0x10000;
    l.out = (void *)0x20000;
    l.plan = plan;
    l.op = op;
    l.grid = 1;
    return launcher(&l);
}

static cudaError_t select_with(cudaError_t (*launcher)(const wk_select_launch *), wk_scan_plan plan,
                               wk_select_mode mode)
{
    wk_select_launch l;
    memset(&l, 0, sizeof l);
    l.in = (const void *)0x10000;
    l.out = (void *)0x20000;
    l.count = (unsigned long long *)0x30000;
    l.plan = plan;
    l.mode = mode;
    l.grid = 1;
    return launcher(&l);
}

static void check_scan(void)
{
    const size_t big = (size_t)64 << 20;
    expect_refused(scan(wk_scan_launch_f16, shape(big / 2, 2, WK_SCAN_PIPELINED_THREADS, WK_SCAN_PIPELINED_VECTORS, 1),
                        WK_SUM),
                   "scan f16, a pipelined plan");
    expect_refused(scan(wk_scan_launch_f16, shape(big / 2, 2, WK_SCAN_THREADS, WK_SCAN_LARGE_VECTORS, 0), WK_SUM),
                   "scan f16, 64 KiB chained tiles");
    expect_refused(scan(wk_scan_launch_f32, shape(big / 4, 4, WK_SCAN_PIPELINED_THREADS, 7, 1), WK_SUM),
                   "scan f32, pipelined with 7 vectors");
    expect_refused(scan(wk_scan_launch_f64, shape(big / 8, 8, WK_SCAN_THREADS, WK_SCAN_LARGE_VECTORS, 0), WK_MAX),
                   "scan f64, the 4-byte elements' chained shape");
    expect_refused(scan(wk_scan_launch_i32, shape(big / 4, 4, WK_SCAN_WIDE_THREADS, WK_SCAN_WIDE_VECTORS, 0), WK_SUM),
                   "scan i32, the 8-byte elements' chained shape");
    expect_refused(scan(wk_scan_launch_f32, shape(1000, 4, WK_SCAN_THREADS, WK_SCAN_SMALL_VECTORS, 0), WK_XOR),
                   "scan f32, a bitwise op");
}

static void check_select(void)
{
    const size_t big = (size_t)64 << 20, huge = WK_SELECT_WIDE_COUNTS_FROM + 5;
    expect_refused(select_with(wk_select_launch_f16,
                               shape(big / 2, 2, WK_SELECT_PIPELINED_THREADS, WK_SELECT_PIPELINED_VECTORS, 1),
                               WK_SELECT_IF),
                   "select f16, a pipelined plan");
    expect_refused(select_with(wk_select_launch_bf16, shape(big / 2, 2, WK_SCAN_THREADS, WK_SELECT_LARGE_VECTORS, 0),
                               WK_UNIQUE),
                   "select bf16, 64 KiB chained tiles");
    expect_refused(select_with(wk_select_launch_f32, shape(big / 4, 4, WK_SELECT_PIPELINED_THREADS, 4, 1),
                               WK_SELECT_IF),
                   "select f32, pipelined with 4 vectors");
    expect_refused(select_with(wk_select_launch_i32, shape(big / 4, 4, WK_SCAN_THREADS, 5, 0), WK_PARTITION_IF),
                   "select i32, chained tiles of 5 vectors");
    expect_refused(select_with(wk_select_launch_u32,
                               shape(big / 4, 4, WK_SCAN_THREADS, WK_SELECT_STAGED_MID_VECTORS, 0), WK_SELECT_FLAGGED),
                   "select u32, the 48 KiB staged vectors with 512 threads");
    expect_refused(select_with(wk_select_launch_i32, shape(huge, 4, WK_SCAN_THREADS, WK_SELECT_LARGE_VECTORS, 0),
                               WK_SELECT_IF),
                   "select i32 of 2^31 + 5 elements, 64 KiB tiles of 32-bit counts");
    expect_refused(select_with(wk_select_launch_f64, shape(huge, 8, WK_SCAN_THREADS, WK_SELECT_SMALL_VECTORS, 0),
                               WK_WHERE),
                   "select f64 of 2^31 + 5 elements, the small tiles");
    expect_refused(select_with(wk_select_launch_i64, shape(big / 8, 8, WK_SELECT_STAGED_MID_THREADS,
                                                           WK_SELECT_STAGED_MID_VECTORS, 0),
                               WK_SELECT_IF),
                   "select i64, the 4-byte elements' staged shape");
    expect_refused(select_with(wk_select_launch_f32, shape(1000, 4, WK_SCAN_THREADS, WK_SELECT_SMALL_VECTORS, 0),
                               (wk_select_mode)7),
                   "select f32, mode 7");
}

int main(void)
{
    check_scan();
    check_select();
    return wk_tally_finish(&tally);
}
