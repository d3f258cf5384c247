/* CPU test of the segmented planner: each row length gets the shape its
 * size calls for, groups are powers of two of at most a warp, a split row's
 * pieces cover it in whole vectors and fit the board, grids stay within the
 * device, and the depth bound covers every shape's longest chain. */
#include "segmented/plan.h"
#include "test_util.h"

#include <stdio.h>

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }

/* The longest chain of roundings a shape gives a row of `len` elements. */
static size_t chain(const wk_seg_plan *p, size_t len, size_t elem)
{
    size_t vec = 16 / elem;
    switch (p->shape) {
    case WK_SEG_TINY: return len;
    case WK_SEG_GROUP: return div_up(len, p->group) + 2 * vec + 5;
    case WK_SEG_BLOCK: return div_up(p->piece_len, WK_SEG_THREADS) + 2 * vec + 8 + div_up(p->pieces, WK_SEG_THREADS) + 8;
    default: return 0;
    }
}

static int check_rows(size_t count, size_t size, size_t elem, int sms, char *why, size_t n)
{
    wk_seg_plan p;
    if (wk_plan_segmented_rows(count, size, elem, sms, &p) != 0)
        return snprintf(why, n, "planning failed"), 0;
    size_t bytes = size * elem;
    wk_seg_shape want = bytes <= 32 ? WK_SEG_TINY : bytes <= WK_SEG_GROUP_MAX_BYTES ? WK_SEG_GROUP : WK_SEG_BLOCK;
    if (p.shape != want)
        return snprintf(why, n, "shape %d, want %d", (int)p.shape, (int)want), 0;
    if (p.shape == WK_SEG_GROUP && (p.group < 2 || p.group > 32 || (p.group & (p.group - 1)) != 0))
        return snprintf(why, n, "group %u", p.group), 0;
    if (p.grid < 1 || p.grid > (unsigned)sms * 8)
        return snprintf(why, n, "grid %u", p.grid), 0;
    if (p.shape == WK_SEG_BLOCK) {
        if (p.pieces < 1 || p.piece_len * p.pieces < size || p.piece_len * (p.pieces - 1) >= size)
            return snprintf(why, n, "%zu pieces of %zu do not cover %zu", p.pieces, p.piece_len, size), 0;
        if ((p.piece_len * elem) % 16 != 0)
            return snprintf(why, n, "pieces are not whole vectors"), 0;
        if (p.pieces > 1 && (count > WK_SEG_LIST_CAPACITY || count * p.pieces > WK_SEG_PIECE_CAPACITY))
            return snprintf(why, n, "pieces do not fit the board"), 0;
    }
    if (chain(&p, size, elem) > wk_seg_depth_bound(size))
        return snprintf(why, n, "chain %zu over the bound %zu", chain(&p, size, elem), wk_seg_depth_bound(size)), 0;
    return 1;
}

int main(void)
{
    wk_tally t = {0, 0};
    const size_t sizes[] = {0, 1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 32, 33, 100, 128, 1000, 1024, 4096,
                            16384, 16385, 65536, 1000000, (size_t)1 << 20, (size_t)1 << 24};
    const size_t counts[] = {1, 2, 7, 100, 4096, 100000, (size_t)1 << 24};
    const size_t elems[] = {2, 4, 8};
    const int sms[] = {1, 132};
    char why[160], label[320];
    for (size_t e = 0; e < 3; ++e)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
                for (int g = 0; g < 2; ++g) {
                    int ok = check_rows(counts[c], sizes[s], elems[e], sms[g], why, sizeof why);
                    snprintf(label, sizeof label, "elem %zu size %zu count %zu sms %d: %s", elems[e], sizes[s],
                             counts[c], sms[g], why);
                    wk_expect(&t, ok, label);
                }

    wk_seg_plan p;
    wk_expect(&t, wk_plan_segmented_rows(0, 10, 4, 132, &p) == -1, "no rows: nothing to plan");
    wk_expect(&t, wk_plan_segmented_rows(10, 10, 3, 132, &p) == -1, "an odd element size is refused");
    wk_expect(&t, wk_plan_segmented_rows(10, 10, 4, 132, NULL) == -1, "NULL plan is refused");

    wk_plan_segmented_rows(256, (size_t)1 << 20, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_BLOCK && p.pieces > 1, "few long rows are split over several blocks");
    wk_plan_segmented_rows((size_t)1 << 14, (size_t)1 << 14, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_GROUP && p.group == 32, "rows of 64 KiB take a warp each");
    wk_plan_segmented_rows((size_t)1 << 26, 32, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_GROUP && p.group == 2, "rows of 32 floats take two lanes each");
    wk_plan_segmented_scan_rows(256, (size_t)1 << 20, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_BLOCK && p.pieces == 1, "a scan never splits a row");
    wk_expect(&t, wk_seg_offsets_grid(1, 132) == 1, "one segment: one block");
    wk_expect(&t, wk_seg_offsets_grid((size_t)1 << 30, 132) == 132 * WK_SEG_BLOCKS_PER_SM,
              "many segments fill the device");
    return wk_tally_finish(&t);
}
