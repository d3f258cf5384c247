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

/* Sizes of the plans below: 64 MiB of input, and 2^31 + 5 elements. */
#define BIG ((size_t)64 << 20)
#define OVER_2_31 (WK_SELECT_WIDE_COUNTS_FROM + 5)

/* A launch the guard must refuse, and what is wrong with it: a scan (scan
 * set) or a select (select set) of n elements of elem bytes in a plan of
 * the named shape, with op the scan's wk_op or the select's wk_select_mode. */
typedef struct refusal {
    cudaError_t (*scan)(const wk_scan_launch *);
    cudaError_t (*select)(const wk_select_launch *);
    size_t n, elem;
    int shape;
    int op;
    const char *what;
} refusal;

static const refusal refusals[] = {
    {wk_scan_launch_f16, NULL, BIG / 2, 2, WK_SCAN_SHAPE_PIPELINED, WK_SUM, "scan f16, a pipelined plan"},
    {wk_scan_launch_bf16, NULL, BIG / 2, 2, WK_SCAN_SHAPE_PIPELINED_WIDE, WK_SUM, "scan bf16, the wide pipelined plan"},
    {wk_scan_launch_f16, NULL, BIG / 2, 2, WK_SCAN_SHAPE_LARGE, WK_SUM, "scan f16, 64 KiB chained tiles"},
    {wk_scan_launch_f32, NULL, BIG / 4, 4, WK_SCAN_SHAPE_COUNT, WK_SUM, "scan f32, a shape number past the list"},
    {wk_scan_launch_f64, NULL, BIG / 8, 8, WK_SCAN_SHAPE_LARGE, WK_MAX, "scan f64, the 4-byte elements' chained shape"},
    {wk_scan_launch_i32, NULL, BIG / 4, 4, WK_SCAN_SHAPE_WIDE, WK_SUM, "scan i32, the 8-byte elements' chained shape"},
    {wk_scan_launch_u32, NULL, 1000, 4, WK_SCAN_SHAPE_NARROW, WK_SUM, "scan u32, the 8-byte elements' narrow shape"},
    {wk_scan_launch_f32, NULL, 1000, 4, WK_SCAN_SHAPE_SMALL, WK_XOR, "scan f32, a bitwise op"},
    {NULL, wk_select_launch_f16, BIG / 2, 2, WK_SELECT_SHAPE_PIPELINED, WK_SELECT_IF, "select f16, a pipelined plan"},
    {NULL, wk_select_launch_bf16, BIG / 2, 2, WK_SELECT_SHAPE_LARGE, WK_UNIQUE, "select bf16, 64 KiB chained tiles"},
    {NULL, wk_select_launch_f32, BIG / 4, 4, WK_SELECT_SHAPE_PIPELINED_PARTITION, WK_SELECT_IF,
     "select f32, the partition's pipelined shape"},
    {NULL, wk_select_launch_i64, BIG / 8, 8, WK_SELECT_SHAPE_PIPELINED_PARTITION, WK_PARTITION_IF,
     "partition i64, the 4-byte partition's pipelined shape"},
    {NULL, wk_select_launch_i32, BIG / 4, 4, WK_SELECT_SHAPE_COUNT, WK_PARTITION_IF,
     "select i32, a shape number past the list"},
    {NULL, wk_select_launch_i32, OVER_2_31, 4, WK_SELECT_SHAPE_LARGE, WK_SELECT_IF,
     "select i32 of 2^31 + 5 elements, 64 KiB tiles of 32-bit counts"},
    {NULL, wk_select_launch_u32, OVER_2_31, 4, WK_SELECT_SHAPE_STAGED_MID, WK_SELECT_FLAGGED,
     "select u32 of 2^31 + 5 elements, the 48 KiB staged tiles of 32-bit counts"},
    {NULL, wk_select_launch_f64, OVER_2_31, 8, WK_SELECT_SHAPE_SMALL, WK_WHERE,
     "select f64 of 2^31 + 5 elements, the small tiles"},
    {NULL, wk_select_launch_i64, BIG / 8, 8, WK_SELECT_SHAPE_STAGED_MID, WK_SELECT_IF,
     "select i64, the 4-byte elements' staged shape"},
    {NULL, wk_select_launch_f32, 1000, 4, WK_SELECT_SHAPE_SMALL, 7, "select f32, mode 7"},
};

static void check_refusals(void)
{
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; ++i) {
        const refusal *r = &refusals[i];
        if (r->scan)
            expect_refused(scan(r->scan, scan_shape(r->n, r->elem, r->shape), (wk_op)r->op), r->what);
        else
            expect_refused(select_with(r->select, select_shape(r->n, r->elem, r->shape), (wk_select_mode)r->op),
                           r->what);
    }
}

int main(void)
{
    check_refusals();
    return wk_tally_finish(&tally);
}
