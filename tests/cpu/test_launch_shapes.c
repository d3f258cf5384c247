/* CPU test of the scan and select launchers' guard: a plan of a named shape
 * that the dtype's kernels do not take (the pipelined shapes for 2-byte
 * elements, a chained shape of another element size, the partition's
 * shape in another mode, 32-bit counts' tiles for an input that needs
 * 64-bit counts, a shape number no planner has), an op the dtype lacks and
 * an unknown select mode get cudaErrorInvalidValue before anything reaches
 * the device. Plans of the library's planners are launched by the GPU
 * tests; these are the ones no planner makes. */
#include "scan/launch.h"
#include "scan/plan.h"
#include "select/launch.h"
#include "select/plan.h"
#include "test_util.h"

#include <string.h>

static wk_tally tally;

/* A plan of `n` elements of `elem` bytes in a scan shape or a select shape,
 * from 16-byte aligned addresses. A shape number past the table keeps the
 * tiles of the first shape. */
static wk_tile_plan shape_of(const wk_tile_shape *table, int count, size_t n, size_t elem, int shape)
{
    wk_tile_plan p;
    memset(&p, 0, sizeof p);
    wk_plan_tiles(0x10000, 0x20000, n, elem, &table[shape < count ? shape : 0], shape, &p);
    return p;
}

static wk_tile_plan scan_shape(size_t n, size_t elem, int shape)
{
    return shape_of(wk_scan_shapes, WK_SCAN_SHAPE_COUNT, n, elem, shape);
}

static wk_tile_plan select_shape(size_t n, size_t elem, int shape)
{
    return shape_of(wk_select_shapes, WK_SELECT_SHAPE_COUNT, n, elem, shape);
}

static void expect_refused(cudaError_t got, const char *what)
{
    wk_checkf(&tally, got == cudaErrorInvalidValue, "%s: cudaErrorInvalidValue (got %d)", what, (int)got);
}

static cudaError_t scan(cudaError_t (*launcher)(const wk_scan_launch *), wk_tile_plan plan, wk_op op)
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

static cudaError_t select_with(cudaError_t (*launcher)(const wk_select_launch *), wk_tile_plan plan,
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
    expect_refused(scan(wk_scan_launch_f16, scan_shape(big / 2, 2, WK_SCAN_SHAPE_PIPELINED), WK_SUM),
                   "scan f16, a pipelined plan");
    expect_refused(scan(wk_scan_launch_bf16, scan_shape(big / 2, 2, WK_SCAN_SHAPE_PIPELINED_WIDE), WK_SUM),
                   "scan bf16, the wide pipelined plan");
    expect_refused(scan(wk_scan_launch_f16, scan_shape(big / 2, 2, WK_SCAN_SHAPE_LARGE), WK_SUM),
                   "scan f16, 64 KiB chained tiles");
    expect_refused(scan(wk_scan_launch_f32, scan_shape(big / 4, 4, WK_SCAN_SHAPE_COUNT), WK_SUM),
                   "scan f32, a shape number past the list");
    expect_refused(scan(wk_scan_launch_f64, scan_shape(big / 8, 8, WK_SCAN_SHAPE_LARGE), WK_MAX),
                   "scan f64, the 4-byte elements' chained shape");
    expect_refused(scan(wk_scan_launch_i32, scan_shape(big / 4, 4, WK_SCAN_SHAPE_WIDE), WK_SUM),
                   "scan i32, the 8-byte elements' chained shape");
    expect_refused(scan(wk_scan_launch_u32, scan_shape(1000, 4, WK_SCAN_SHAPE_NARROW), WK_SUM),
                   "scan u32, the 8-byte elements' narrow shape");
    expect_refused(scan(wk_scan_launch_f32, scan_shape(1000, 4, WK_SCAN_SHAPE_SMALL), WK_XOR),
                   "scan f32, a bitwise op");
}

static void check_select(void)
{
    const size_t big = (size_t)64 << 20, huge = WK_SELECT_WIDE_COUNTS_FROM + 5;
    expect_refused(select_with(wk_select_launch_f16, select_shape(big / 2, 2, WK_SELECT_SHAPE_PIPELINED), WK_SELECT_IF),
                   "select f16, a pipelined plan");
    expect_refused(select_with(wk_select_launch_bf16, select_shape(big / 2, 2, WK_SELECT_SHAPE_LARGE), WK_UNIQUE),
                   "select bf16, 64 KiB chained tiles");
    expect_refused(select_with(wk_select_launch_f32, select_shape(big / 4, 4, WK_SELECT_SHAPE_PIPELINED_PARTITION),
                               WK_SELECT_IF),
                   "select f32, the partition's pipelined shape");
    expect_refused(select_with(wk_select_launch_i64, select_shape(big / 8, 8, WK_SELECT_SHAPE_PIPELINED_PARTITION),
                               WK_PARTITION_IF),
                   "partition i64, the 4-byte partition's pipelined shape");
    expect_refused(select_with(wk_select_launch_i32, select_shape(big / 4, 4, WK_SELECT_SHAPE_COUNT), WK_PARTITION_IF),
                   "select i32, a shape number past the list");
    expect_refused(select_with(wk_select_launch_i32, select_shape(huge, 4, WK_SELECT_SHAPE_LARGE), WK_SELECT_IF),
                   "select i32 of 2^31 + 5 elements, 64 KiB tiles of 32-bit counts");
    expect_refused(select_with(wk_select_launch_u32, select_shape(huge, 4, WK_SELECT_SHAPE_STAGED_MID),
                               WK_SELECT_FLAGGED),
                   "select u32 of 2^31 + 5 elements, the 48 KiB staged tiles of 32-bit counts");
    expect_refused(select_with(wk_select_launch_f64, select_shape(huge, 8, WK_SELECT_SHAPE_SMALL), WK_WHERE),
                   "select f64 of 2^31 + 5 elements, the small tiles");
    expect_refused(select_with(wk_select_launch_i64, select_shape(big / 8, 8, WK_SELECT_SHAPE_STAGED_MID),
                               WK_SELECT_IF),
                   "select i64, the 4-byte elements' staged shape");
    expect_refused(select_with(wk_select_launch_f32, select_shape(1000, 4, WK_SELECT_SHAPE_SMALL), (wk_select_mode)7),
                   "select f32, mode 7");
}

int main(void)
{
    check_scan();
    check_select();
    return wk_tally_finish(&tally);
}
