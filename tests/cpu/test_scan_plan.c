/* CPU test of the scan planner: the offset is the input's position in its
 * 16-byte vector, the tiles cover the input and its leading vector lanes
 * with no tile to spare, whole-vector stores only when input and output
 * share that position, the workspace bound covers every alignment (and no
 * more than the worst), bad arguments are refused, and the rounding depth
 * that the float tolerances use grows with the tile index. */
#include "scan/plan.h"
#include "test_util.h"

#include <stdint.h>

/* The shape plan.h gives `bytes` of input of elem-byte elements on a
 * device with the pipelined kernel (pipelined_ok) or without: small tiles
 * below WK_SCAN_LARGE_FROM_BYTES (for 8-byte elements, narrow ones below
 * WK_SCAN_NARROW_BELOW_BYTES), 1- and 2-byte elements always; from there on
 * pipelined tiles, in a wider shape from WK_SCAN_PIPELINED_WIDE_FROM_BYTES,
 * or without the pipelined kernel large chained ones, in their own shape
 * for 8-byte elements. */
static void expected_shape(size_t bytes, size_t elem, int pipelined_ok, unsigned *block, unsigned *vectors,
                           int *pipelined)
{
    *block = WK_SCAN_THREADS;
    *vectors = WK_SCAN_SMALL_VECTORS;
    *pipelined = 0;
    if (elem == 8 && bytes < WK_SCAN_NARROW_BELOW_BYTES)
        *block = WK_SCAN_NARROW_THREADS;
    else if (bytes < WK_SCAN_LARGE_FROM_BYTES || elem <= 2)
        return;
    else if (pipelined_ok && bytes >= WK_SCAN_PIPELINED_WIDE_FROM_BYTES)
        *block = WK_SCAN_PIPELINED_WIDE_THREADS, *vectors = WK_SCAN_PIPELINED_WIDE_VECTORS, *pipelined = 1;
    else if (pipelined_ok)
        *block = WK_SCAN_PIPELINED_THREADS, *vectors = WK_SCAN_PIPELINED_VECTORS, *pipelined = 1;
    else if (elem == 8)
        *block = WK_SCAN_WIDE_THREADS, *vectors = WK_SCAN_WIDE_VECTORS;
    else
        *vectors = WK_SCAN_LARGE_VECTORS;
}

static int check_plan(uintptr_t in, uintptr_t out, size_t n, size_t elem, int pipelined_ok, char *why,
                      size_t why_size)
{
    wk_tile_plan p;
    if (wk_plan_scan_for(in, out, n, elem, pipelined_ok, &p) != 0)
        return snprintf(why, why_size, "planning failed"), 0;
    size_t vec = WK_TILE_VECTOR_BYTES / elem;
    if (p.n != n)
        return snprintf(why, why_size, "n %zu, want %zu", p.n, n), 0;
    if (p.vec_elems != vec || p.vec_elems * elem != WK_TILE_VECTOR_BYTES)
        return snprintf(why, why_size, "vector of %u elements is not 16 bytes", p.vec_elems), 0;
    /* The tile shape follows the input's size (plan.h). */
    unsigned want_block, want_vectors;
    int want_pipelined;
    expected_shape(n * elem, elem, pipelined_ok, &want_block, &want_vectors, &want_pipelined);
    if (p.pipelined != want_pipelined)
        return snprintf(why, why_size, "pipelined %d, want %d", p.pipelined, want_pipelined), 0;
    if (p.vectors != want_vectors)
        return snprintf(why, why_size, "%u vectors per thread, want %u", p.vectors, want_vectors), 0;
    if (p.block != want_block)
        return snprintf(why, why_size, "block %u, want %u", p.block, want_block), 0;
    if (p.tile_elems != p.block * p.vectors * p.vec_elems)
        return snprintf(why, why_size, "tile of %u elements is not block x vectors x vector", p.tile_elems), 0;
    if (p.offset != (in % WK_TILE_VECTOR_BYTES) / elem || p.offset >= vec)
        return snprintf(why, why_size, "offset %zu", p.offset), 0;
    /* The tiles cover the lanes from the vector boundary below d_in to the
     * last element, and the last tile holds at least one element. */
    if (n == 0 && p.tiles != 0)
        return snprintf(why, why_size, "%zu tiles for n = 0", p.tiles), 0;
    if (n > 0 && (p.tiles * p.tile_elems < p.offset + n || (p.tiles - 1) * p.tile_elems >= p.offset + n))
        return snprintf(why, why_size, "%zu tiles of %u for %zu lanes", p.tiles, p.tile_elems, p.offset + n), 0;
    int same = in % WK_TILE_VECTOR_BYTES == out % WK_TILE_VECTOR_BYTES;
    if (!p.vector_stores != !same)
        return snprintf(why, why_size, "vector_stores %d with in %% 16 = %zu, out %% 16 = %zu", p.vector_stores,
                        (size_t)(in % 16), (size_t)(out % 16)), 0;
    if (wk_scan_max_tiles(n, elem) < p.tiles)
        return snprintf(why, why_size, "max tiles %zu below the plan's %zu", wk_scan_max_tiles(n, elem), p.tiles), 0;
    return 1;
}

/* wk_scan_max_tiles is the most tiles any alignment gives on either kind
 * of device: no fewer (the workspace would be short), no more (it would be
 * oversized). */
static int max_tiles_is_tight(size_t n, size_t elem)
{
    size_t most = 0;
    for (int variant = 0; variant <= 2; ++variant)
        for (size_t k = 0; k < WK_TILE_VECTOR_BYTES / elem; ++k) {
            wk_tile_plan p;
            uintptr_t in = 0x7f0000000000u + k * elem;
            if (variant < 2) {
                wk_plan_scan_for(in, 0x7f0000000000u, n, elem, variant, &p);
                most = p.tiles > most ? p.tiles : most;
            }
            for (size_t out = elem < 4 ? 4 : 2 * elem; variant == 2 && out <= 8; out *= 2) {
                /* a widening scan into every output size it has */
                wk_plan_widening_scan(in, 0x7e0000000000u, n, elem, out, &p);
                most = p.tiles > most ? p.tiles : most;
            }
        }
    return wk_scan_max_tiles(n, elem) == most;
}

/* Depth never falls from one output to the next, grows by at least one per
 * tile, and is at least the levels of one tile's own scan (log2 of the
 * block's threads at the least). */
static int check_depth(size_t n, size_t elem, size_t offset, char *why, size_t why_size)
{
    wk_tile_plan p;
    wk_plan_scan(0x7f0000000000u + offset * elem, 0x7f0000000000u, n, elem, &p);
    size_t previous = 0, tile_start_depth = 0, previous_tile = 0;
    for (size_t i = 0; i < n; i += (i < 5000 ? 1 : 997)) {
        size_t d = wk_scan_plan_depth(&p, i);
        size_t tile = (p.offset + i) / p.tile_elems;
        if (d < 8)
            return snprintf(why, why_size, "depth %zu at %zu is below one tile's scan", d, i), 0;
        if (d < previous)
            return snprintf(why, why_size, "depth falls from %zu to %zu at %zu", previous, d, i), 0;
        if (i > 0 && tile > previous_tile) {
            if (d < tile_start_depth + (tile - previous_tile))
                return snprintf(why, why_size, "depth %zu in tile %zu does not grow from %zu in tile %zu", d, tile,
                                tile_start_depth, previous_tile), 0;
        }
        if (i == 0 || tile > previous_tile) {
            tile_start_depth = d;
            previous_tile = tile;
        }
        previous = d;
    }
    return 1;
}

int main(void)
{
    wk_tally t = {0, 0};
    char why[160], label[320];
    const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193,
                            16383, 16384, 16385, 1000003, ((size_t)1 << 21) - 1, (size_t)1 << 21,
                            ((size_t)1 << 22) - 1, (size_t)1 << 22, ((size_t)1 << 23) - 1, (size_t)1 << 23, (size_t)1 << 24,
                            ((size_t)1 << 26) + 3,
                            ((size_t)1 << 27) - 1, (size_t)1 << 27, ((size_t)1 << 27) + 1, (size_t)1 << 31,
                            ((size_t)1 << 31) + 5, (size_t)1 << 40};
    const size_t elems[] = {1, 2, 4, 8};
    for (size_t e = 0; e < 4; ++e)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            int all = 1;
            for (size_t k = 0; k < WK_TILE_VECTOR_BYTES / elems[e] && all; ++k)
                for (size_t j = 0; j < WK_TILE_VECTOR_BYTES / elems[e] && all; ++j) {
                    uintptr_t in = 0x7f0000000000u + k * elems[e], out = 0x7e0000000000u + j * elems[e];
                    for (int ok = 0; ok <= 1 && all; ++ok)
                        if (!check_plan(in, out, sizes[s], elems[e], ok, why, sizeof why)) {
                            snprintf(label, sizeof label, "elem %zu n %zu in+%zu out+%zu pipelined_ok %d: %s",
                                     elems[e], sizes[s], k, j, ok, why);
                            wk_expect(&t, 0, label);
                            all = 0;
                        }
                }
            snprintf(label, sizeof label, "elem %zu n %zu: every alignment plans right", elems[e], sizes[s]);
            wk_expect(&t, all, label);
            snprintf(label, sizeof label, "elem %zu n %zu: wk_scan_max_tiles is the worst alignment's tiles",
                     elems[e], sizes[s]);
            wk_expect(&t, max_tiles_is_tight(sizes[s], elems[e]), label);
        }

    /* Tile boundaries move with the offset: the (tile_elems - offset)-th
     * element still fits the first tile, the next one opens a second. */
    wk_tile_plan p;
    for (size_t k = 0; k < 4; ++k) {
        wk_plan_scan(0x1000 + 4 * k, 0x2000, 1, 4, &p);
        size_t edge = p.tile_elems - p.offset;
        wk_plan_scan(0x1000 + 4 * k, 0x2000, edge, 4, &p);
        size_t one = p.tiles;
        wk_plan_scan(0x1000 + 4 * k, 0x2000, edge + 1, 4, &p);
        snprintf(label, sizeof label,
                 "f32 at offset %zu: %zu elements take 1 tile (got %zu), one more takes 2 (got %zu)", k, edge, one,
                 p.tiles);
        wk_expect(&t, one == 1 && p.tiles == 2, label);
    }

    wk_expect(&t, wk_plan_scan(0x1001, 0x2000, 10, 4, &p) == -1, "an input not aligned to the element is refused");
    wk_expect(&t, wk_plan_scan(0x1000, 0x2002, 10, 4, &p) == -1, "an output not aligned to the element is refused");
    wk_expect(&t, wk_plan_scan(0x1000, 0x2000, 10, 3, &p) == -1, "an element size that does not divide 16 is refused");
    wk_expect(&t, wk_plan_scan(0x1000, 0x2000, 10, 0, &p) == -1, "element size 0 is refused");
    wk_expect(&t, wk_plan_scan(0x1000, 0x2000, 10, 32, &p) == -1, "an element larger than a vector is refused");
    wk_expect(&t, wk_plan_scan(0x1000, 0x2000, 10, 4, NULL) == -1, "NULL plan is refused");
    wk_expect(&t, wk_plan_scan(0, 0, 0, 4, &p) == 0 && p.tiles == 0, "n = 0 at address 0 plans no tiles");
    wk_expect(&t, wk_scan_max_tiles(0, 4) == 0 && wk_scan_max_tiles(10, 0) == 0, "no tiles for n = 0 or size 0");

    /* The shape changes at WK_SCAN_LARGE_FROM_BYTES of input: one element
     * below it plans small tiles, the first at it pipelined ones, or
     * without the pipelined kernel large chained ones (no fewer elements
     * per tile either way, so no more tiles than just below); 1- and
     * 2-byte elements keep small tiles. */
    for (size_t e = 0; e < 4; ++e)
        for (int ok = 0; ok <= 1; ++ok) {
            size_t first_large = WK_SCAN_LARGE_FROM_BYTES / elems[e];
            wk_tile_plan below, at;
            wk_plan_scan_for(0x1000, 0x1000, first_large - 1, elems[e], ok, &below);
            wk_plan_scan_for(0x1000, 0x1000, first_large, elems[e], ok, &at);
            snprintf(label, sizeof label,
                     "elem %zu pipelined_ok %d: %zu elements plan %u vectors per thread in %zu tiles, %zu plan %u "
                     "in %zu (pipelined %d)",
                     elems[e], ok, first_large - 1, below.vectors, below.tiles, first_large, at.vectors, at.tiles,
                     at.pipelined);
            unsigned large = elems[e] <= 2 ? WK_SCAN_SMALL_VECTORS
                             : ok          ? WK_SCAN_PIPELINED_VECTORS
                             : elems[e] == 8 ? WK_SCAN_WIDE_VECTORS
                                             : WK_SCAN_LARGE_VECTORS;
            wk_expect(&t, below.vectors == WK_SCAN_SMALL_VECTORS && !below.pipelined && at.vectors == large &&
                              at.pipelined == (ok && elems[e] > 2) && at.tile_elems >= below.tile_elems &&
                              at.tiles <= below.tiles,
                      label);
        }
    /* 8-byte elements below WK_SCAN_NARROW_BELOW_BYTES: narrow tiles (half
     * the elements of the small ones) just below, small ones from there on. */
    {
        size_t first_small = WK_SCAN_NARROW_BELOW_BYTES / 8;
        wk_tile_plan below, at;
        wk_plan_scan(0x1000, 0x1000, first_small - 1, 8, &below);
        wk_plan_scan(0x1000, 0x1000, first_small, 8, &at);
        snprintf(label, sizeof label, "f64: %zu elements plan %u threads, %zu plan %u", first_small - 1, below.block,
                 first_small, at.block);
        wk_expect(&t, below.block == WK_SCAN_NARROW_THREADS && at.block == WK_SCAN_THREADS &&
                          below.vectors == WK_SCAN_SMALL_VECTORS && at.vectors == WK_SCAN_SMALL_VECTORS &&
                          2 * below.tile_elems == at.tile_elems,
                  label);
    }
    /* Widening scans: the narrow tiles below WK_SCAN_WIDENING_NARROW_BELOW_BYTES
     * of output, then the chained shape of the input's size, never a
     * pipelined one; a bool mask's scan into i64 at 2^20 spreads over
     * twice the tiles of the plain scan's. */
    for (size_t e = 0; e < 3; ++e)
        for (size_t out = elems[e] < 4 ? 4 : 8; out <= 8; out *= 2) {
            size_t first = WK_SCAN_WIDENING_NARROW_BELOW_BYTES / out;
            wk_tile_plan below, at, plain;
            wk_plan_widening_scan(0x1000, 0x2000, first - 1, elems[e], out, &below);
            wk_plan_widening_scan(0x1000, 0x2000, first, elems[e], out, &at);
            wk_plan_scan_for(0x1000, 0x2000, first, elems[e], 0, &plain);
            snprintf(label, sizeof label, "widening %zu into %zu bytes: %zu elements plan %u threads, %zu plan %u x %u",
                     elems[e], out, first - 1, below.block, first, at.block, at.vectors);
            wk_expect(&t, below.block == WK_SCAN_NARROW_THREADS && below.vectors == WK_SCAN_SMALL_VECTORS &&
                              !below.pipelined && at.block == plain.block && at.vectors == plain.vectors &&
                              at.tiles == plain.tiles && !at.pipelined,
                      label);
        }
    {
        wk_tile_plan wide, plain;
        wk_plan_widening_scan(0x1000, 0x2000, (size_t)1 << 20, 1, 8, &wide);
        wk_plan_scan(0x1000, 0x2000, (size_t)1 << 20, 1, &plain);
        snprintf(label, sizeof label, "bool into i64 at 2^20: %zu tiles, the plain scan %zu", wide.tiles, plain.tiles);
        wk_expect(&t, wide.tiles == 2 * plain.tiles, label);
        wk_plan_widening_scan(0x1000, 0x2000, (size_t)1 << 28, 4, 8, &wide);
        wk_expect(&t, !wide.pipelined && wide.vectors == WK_SCAN_LARGE_VECTORS,
                  "i32 into i64 at 2^28: large chained tiles, not pipelined ones");
    }
    /* At the wide pipelined edge: the narrower pipelined shape just below,
     * the wide one from there on, each with the tiles it needs; without
     * the pipelined kernel, the large chained tiles on both sides. */
    for (size_t e = 2; e < 4; ++e)
        for (int ok = 0; ok <= 1; ++ok) {
            size_t first = WK_SCAN_PIPELINED_WIDE_FROM_BYTES / elems[e], vec = WK_TILE_VECTOR_BYTES / elems[e];
            wk_tile_plan below, at;
            wk_plan_scan_for(0x1000, 0x1000, first - 1, elems[e], ok, &below);
            wk_plan_scan_for(0x1000, 0x1000, first, elems[e], ok, &at);
            snprintf(label, sizeof label,
                     "elem %zu pipelined_ok %d: %zu elements plan %u x %u in %zu tiles, %zu plan %u x %u in %zu",
                     elems[e], ok, first - 1, below.block, below.vectors, below.tiles, first, at.block, at.vectors,
                     at.tiles);
            int shapes = ok ? below.block == WK_SCAN_PIPELINED_THREADS && below.vectors == WK_SCAN_PIPELINED_VECTORS &&
                                  at.block == WK_SCAN_PIPELINED_WIDE_THREADS &&
                                  at.vectors == WK_SCAN_PIPELINED_WIDE_VECTORS && below.pipelined && at.pipelined
                            : below.block == at.block && below.vectors == at.vectors && !at.pipelined;
            wk_expect(&t, shapes && below.tiles == (first - 1 + below.tile_elems - 1) / below.tile_elems &&
                              at.tiles == (first + at.tile_elems - 1) / at.tile_elems &&
                              at.tile_elems == at.block * at.vectors * vec,
                      label);
        }
    wk_expect(&t, wk_scan_max_tiles((size_t)1 << 40, 2) <= WK_SCAN_MAX_TILES,
              "2^40 f16 elements fit in WK_SCAN_MAX_TILES tiles");
    wk_expect(&t, wk_scan_max_tiles((size_t)1 << 60, 2) > WK_SCAN_MAX_TILES,
              "2^60 f16 elements do not");

    /* The depth the tolerances use. */
    const size_t depth_sizes[] = {1, 100, 8192 * 3 + 5, 1000003, 5000 * 16384 + 7};
    for (size_t e = 0; e < 4; ++e)
        for (size_t s = 0; s < sizeof depth_sizes / sizeof depth_sizes[0]; ++s)
            for (size_t k = 0; k < 2; ++k) {
                size_t offset = k * (WK_TILE_VECTOR_BYTES / elems[e] - 1);
                int ok = check_depth(depth_sizes[s], elems[e], offset, why, sizeof why);
                snprintf(label, sizeof label, "depth elem %zu n %zu offset %zu: %s", elems[e], depth_sizes[s], offset,
                         ok ? "ok" : why);
                wk_expect(&t, ok, label);
            }
    wk_plan_scan(0x1000, 0x1000, (size_t)1 << 30, 4, &p);
    size_t first = wk_scan_plan_depth(&p, 0), last = wk_scan_plan_depth(&p, ((size_t)1 << 30) - 1);
    snprintf(label, sizeof label, "depth grows with the tile index: %zu in tile 0, %zu in tile %zu", first, last,
             p.tiles - 1);
    wk_expect(&t, last >= first + (p.tiles - 1), label);
    return wk_tally_finish(&t);
}
