/* CPU test of the segmented planner: each row length gets the shape its
 * size calls for, groups are powers of two of at most a warp, a split row's
 * pieces cover it in whole vectors and fit the board, a scan's tiles cover
 * every row at any alignment and stride, grids stay within the device, and
 * the depth bound covers every shape's longest chain (for the element
 * sizes of floats). */
#include "scan/plan.h"
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
    case WK_SEG_JOINED:
        /* A chunk of 32 vectors adds one to the carry; a lane's elements
         * before and after the segmented warp scan. */
        return div_up(len, 32 * vec) + 2 + 2 * vec + 6;
    case WK_SEG_TILES: {
        /* The device-wide scan's count (scan/plan.c): one per tile before,
         * and the vector, warp and block scans of two passes. */
        size_t vectors = p->piece_len / ((size_t)WK_SCAN_THREADS * vec);
        return p->pieces + 2 * (vec + 5 + vectors + 5) + 5 + vec;
    }
    default: return 0;
    }
}

/* Whether elements of this size can be floats, whose sums the depth bound
 * covers: 1-byte dtypes are integers, exact in any order. */
static int rounds(size_t elem) { return elem > 1; }

static int check_rows(size_t count, size_t size, size_t elem, int sms, char *why, size_t n)
{
    wk_seg_plan p;
    if (wk_plan_segmented_rows(count, size, elem, sms, &p) != 0)
        return snprintf(why, n, "planning failed"), 0;
    size_t bytes = size * elem;
    /* Rows of a piece or less take lanes; longer ones are split where the
     * board holds their pieces, and rows up to a group row that it does not
     * hold take lanes too. */
    int splits = count <= WK_SEG_SPLIT_ROWS && count * div_up(bytes, WK_SEG_PIECE_BYTES) <= WK_SEG_PIECE_CAPACITY;
    wk_seg_shape want = bytes <= 32                                                ? WK_SEG_TINY
                        : bytes <= WK_SEG_BLOCK_FROM_BYTES                         ? WK_SEG_GROUP
                        : bytes <= WK_SEG_GROUP_MAX_BYTES && !splits ? WK_SEG_GROUP
                                                                     : WK_SEG_BLOCK;
    if (p.shape != want)
        return snprintf(why, n, "shape %d, want %d", (int)p.shape, (int)want), 0;
    if (p.shape == WK_SEG_GROUP && (p.group < 2 || p.group > WK_SEG_GROUP_ONCE_MAX || (p.group & (p.group - 1)) != 0))
        return snprintf(why, n, "group %u", p.group), 0;
    /* The grid covers the work once: every block has some, up to the cap. */
    size_t work = p.shape == WK_SEG_TINY    ? div_up(count, (size_t)WK_SEG_THREADS * WK_SEG_TINY_ROWS)
                  : p.shape == WK_SEG_GROUP ? div_up(count, WK_SEG_THREADS / p.group)
                                            : count * p.pieces;
    size_t want_grid = work < WK_SEG_GRID_MAX ? work : WK_SEG_GRID_MAX;
    if (p.grid != want_grid)
        return snprintf(why, n, "grid %u, want %zu", p.grid, want_grid), 0;
    if (p.shape == WK_SEG_BLOCK) {
        if (p.pieces < 1 || p.piece_len * p.pieces < size || p.piece_len * (p.pieces - 1) >= size)
            return snprintf(why, n, "%zu pieces of %zu do not cover %zu", p.pieces, p.piece_len, size), 0;
        if ((p.piece_len * elem) % 16 != 0)
            return snprintf(why, n, "pieces are not whole vectors"), 0;
        if (p.pieces > 1 && (count > WK_SEG_SPLIT_ROWS || count * p.pieces > WK_SEG_PIECE_CAPACITY))
            return snprintf(why, n, "pieces do not fit the board"), 0;
        if (splits && div_up(bytes, p.pieces) > WK_SEG_PIECE_BYTES + 16)
            return snprintf(why, n, "pieces of %zu bytes where the board holds %u-byte ones",
                            div_up(bytes, p.pieces), WK_SEG_PIECE_BYTES), 0;
    }
    if (rounds(elem) && chain(&p, size, elem) > wk_seg_depth_bound(size))
        return snprintf(why, n, "chain %zu over the bound %zu", chain(&p, size, elem), wk_seg_depth_bound(size)), 0;
    return 1;
}

/* The reproducible sum's plan: pieces only for rows the device would
 * otherwise leave warps idle for, each of at least WK_SEG_REPRO_PIECE_BYTES
 * in whole vectors, covering the row and fitting the board; batches of a
 * power of two of at most 32 segments, 32 where a lane sums a segment
 * alone; the grid a warp per batch or piece (per unit of
 * WK_SEG_REPRO_JOINED_UNIT for short f32 offsets segments, the joined
 * shape); long offsets segments listed and cut so that segments that do not
 * overlap fit the list and the board. */
static int check_repro(size_t count, size_t size, size_t elem, int offsets, int sms, char *why, size_t n)
{
    wk_seg_plan p;
    if (wk_plan_segmented_repro(count, size, elem, offsets, sms, &p) != 0)
        return snprintf(why, n, "planning failed"), 0;
    const size_t resident = (size_t)sms * WK_SEG_BLOCKS_PER_SM * (WK_SEG_THREADS / 32);
    const size_t bytes = offsets ? size / count * elem : size * elem;
    const size_t warps_per_block = WK_SEG_THREADS / 32;
    if (p.shape == WK_SEG_REPRO_PIECES) {
        if (offsets || count >= resident || count > WK_SEG_SPLIT_ROWS)
            return snprintf(why, n, "pieces for %zu segments", count), 0;
        if (p.pieces < 2 || count * p.pieces > WK_SEG_REPRO_PIECE_CAPACITY || p.piece_len % (16 / elem) != 0 ||
            p.piece_len * elem < WK_SEG_REPRO_PIECE_BYTES || p.piece_len * p.pieces < size ||
            p.piece_len * (p.pieces - 1) >= size)
            return snprintf(why, n, "%zu pieces of %zu", p.pieces, p.piece_len), 0;
        if (p.grid != div_up(count * p.pieces, warps_per_block))
            return snprintf(why, n, "grid %u", p.grid), 0;
        return 1;
    }
    if ((p.shape == WK_SEG_REPRO_TINY) != (!offsets && bytes <= 32))
        return snprintf(why, n, "shape %d for %zu-byte rows", (int)p.shape, bytes), 0;
    if (p.shape == WK_SEG_REPRO_TINY)
        return p.grid == div_up(count, WK_SEG_THREADS) ? 1 : (snprintf(why, n, "grid %u", p.grid), 0);
    const int joined = offsets && elem == 4 && bytes <= WK_SEG_REPRO_LANE_BYTES;
    if (p.shape != (joined ? WK_SEG_REPRO_JOINED : WK_SEG_REPRO_BATCHES))
        return snprintf(why, n, "shape %d", (int)p.shape), 0;
    if (!offsets && bytes >= 4 * (size_t)WK_SEG_REPRO_PIECE_BYTES && count * 4 <= resident)
        return snprintf(why, n, "few long rows not cut"), 0;
    if (p.group < 1 || p.group > 32 || (p.group & (p.group - 1)) != 0)
        return snprintf(why, n, "group %u", p.group), 0;
    if (p.lane_len < WK_SEG_REPRO_LANE_BYTES / elem || (p.lane_len * elem > WK_SEG_REPRO_LANE_BYTES &&
                                                         (offsets || p.lane_len != size || count / 32 < resident)))
        return snprintf(why, n, "lane_len %zu", p.lane_len), 0;
    if (offsets && size * elem > WK_SEG_REPRO_LONG_BYTES
            ? p.long_len * elem < WK_SEG_REPRO_LONG_BYTES || p.long_len * WK_SEG_LIST_CAPACITY < size ||
                  p.piece_len * (WK_SEG_REPRO_PIECE_CAPACITY - WK_SEG_LIST_CAPACITY) < size || p.listed_grid < 1
            : p.long_len != 0)
        return snprintf(why, n, "long_len %zu, pieces of %zu", p.long_len, p.piece_len), 0;
    if (bytes <= p.lane_len * elem ? p.group != 32 : (p.group > 1 && count / p.group < resident))
        return snprintf(why, n, "group %u for %zu segments of %zu bytes", p.group, count, bytes), 0;
    if (p.grid != (joined ? div_up(div_up(count, WK_SEG_REPRO_JOINED_UNIT), WK_SEG_OFFSETS_THREADS / 32)
                          : div_up(div_up(count, p.group), warps_per_block)))
        return snprintf(why, n, "grid %u", p.grid), 0;
    return 1;
}

/* The scan of `count` rows of `size` elements `stride` apart from in_addr:
 * short rows as the reduce plans them, longer ones in tiles that cover
 * each row from the 16-byte boundary below it. */
static int check_scan_rows(size_t count, size_t size, size_t stride, size_t elem, uintptr_t in_addr, int sms,
                           int pipelined_ok, char *why, size_t n)
{
    wk_seg_plan p;
    if (wk_plan_segmented_scan_rows(count, size, stride, elem, in_addr, sms, pipelined_ok, &p) != 0)
        return snprintf(why, n, "planning failed"), 0;
    size_t bytes = size * elem;
    if (stride == size && bytes <= WK_SEG_JOINED_MAX_BYTES) {
        /* Runs of whole rows, each at the first row's offset from a 16-byte
         * boundary, of about WK_SEG_JOINED_RUN_BYTES. */
        if (p.shape != WK_SEG_JOINED)
            return snprintf(why, n, "rows end to end planned as shape %d", (int)p.shape), 0;
        if (p.pieces < 1 || (p.pieces * bytes) % 16 != 0 ||
            (p.pieces * bytes > WK_SEG_JOINED_RUN_BYTES && p.pieces * bytes > 16 * bytes))
            return snprintf(why, n, "runs of %zu rows", p.pieces), 0;
        size_t want_grid = div_up(div_up(count, p.pieces), WK_SEG_THREADS / 32);
        want_grid = want_grid < (size_t)sms * 8 ? want_grid : (size_t)sms * 8;
        if (p.grid != want_grid)
            return snprintf(why, n, "grid %u, want %zu", p.grid, want_grid), 0;
        if (rounds(elem) && chain(&p, size, elem) > wk_seg_depth_bound(size))
            return snprintf(why, n, "chain %zu over the bound", chain(&p, size, elem)), 0;
        return wk_seg_plan_tiles(count, &p) == 0 ? 1 : (snprintf(why, n, "joined rows have tiles"), 0);
    }
    if (bytes <= WK_SEG_GROUP_MAX_BYTES) {
        if (p.shape != (bytes <= 32 ? WK_SEG_TINY : WK_SEG_GROUP))
            return snprintf(why, n, "short rows planned as shape %d", (int)p.shape), 0;
        if (p.grid < 1 || p.grid > (unsigned)sms * 8)
            return snprintf(why, n, "grid %u", p.grid), 0;
        return wk_seg_plan_tiles(count, &p) == 0 ? 1 : (snprintf(why, n, "short rows have tiles"), 0);
    }
    if (p.shape != WK_SEG_TILES)
        return snprintf(why, n, "shape %d, want tiles", (int)p.shape), 0;
    if (p.pipelined != (pipelined_ok && elem > 2))
        return snprintf(why, n, "pipelined %d", p.pipelined), 0;
    size_t vec = 16 / elem, want_len = (size_t)WK_SCAN_THREADS * vec *
                                       (p.pipelined ? WK_SCAN_PIPELINED_VECTORS : WK_SCAN_SMALL_VECTORS);
    if (p.piece_len != want_len)
        return snprintf(why, n, "tiles of %zu elements, want %zu", p.piece_len, want_len), 0;
    /* Every row's offset from the boundary below it. */
    for (size_t row = 0; row < count && row < 64; ++row) {
        size_t offset = ((in_addr + row * stride * elem) % 16) / elem;
        size_t vectors = div_up(offset + size, vec);
        if (p.pieces * (p.piece_len / vec) < vectors)
            return snprintf(why, n, "row %zu: %zu tiles do not cover %zu vectors", row, p.pieces, vectors), 0;
    }
    /* Exactly the tiles of the row at the largest offset a row may have. */
    size_t largest = (stride * elem) % 16 == 0 ? (in_addr % 16) / elem : vec - 1;
    size_t want_pieces = div_up(div_up(largest + size, vec), p.piece_len / vec);
    if (p.pieces != want_pieces)
        return snprintf(why, n, "%zu tiles per row, want %zu", p.pieces, want_pieces), 0;
    size_t tiles = wk_seg_plan_tiles(count, &p);
    if (tiles != count * p.pieces)
        return snprintf(why, n, "tiles %zu", tiles), 0;
    size_t want_grid = p.pipelined ? (tiles < (size_t)sms ? tiles : (size_t)sms) : tiles;
    if (p.grid != want_grid)
        return snprintf(why, n, "grid %u, want %zu", p.grid, want_grid), 0;
    if (rounds(elem) && chain(&p, size, elem) > wk_seg_depth_bound(size))
        return snprintf(why, n, "chain %zu over the bound %zu", chain(&p, size, elem), wk_seg_depth_bound(size)), 0;
    return 1;
}

/* The offsets shapes' cut for an input of n elements: never shorter than
 * the defaults, and every layout of segments that do not overlap fits the
 * board (its list and its pieces), whatever their lengths; a listed
 * segment's chain (a warp folds each piece, the pieces combine in order)
 * and a segment that a warp folds whole stay within the depth bound. */
static int check_cut(size_t n, size_t elem, int scan, char *why, size_t len)
{
    const wk_seg_cut c = wk_seg_offsets_cut(n, elem, scan);
    const long long min_piece = (long long)((scan ? WK_SEG_PIECE_MIN_BYTES : WK_SEG_REDUCE_PIECE_MIN_BYTES) / elem);
    if (c.long_len < (long long)(WK_SEG_GROUP_MAX_BYTES / elem) || c.piece_len < min_piece || c.most != (scan ? 256 : 1024))
        return snprintf(why, len, "cut %lld / %lld / %lld below the defaults", c.long_len, c.piece_len, c.most), 0;
    if ((size_t)c.long_len > div_up(n, WK_SEG_LIST_CAPACITY) && c.long_len != (long long)(WK_SEG_GROUP_MAX_BYTES / elem))
        return snprintf(why, len, "long length %lld longer than needed", c.long_len), 0;
    const size_t vec = 16 / elem;
    /* Segments of one length L, as many as fit n: the lengths just past the
     * long length and past each piece boundary are the worst. */
    for (int k = 0; k < 64; ++k) {
        const size_t L = k == 0 ? (size_t)c.long_len + 1 : (size_t)c.long_len + (size_t)k * k * k * (size_t)c.piece_len + 1;
        if (L > n)
            break;
        const size_t count = n / L;
        size_t pieces = div_up(L, (size_t)c.piece_len);
        if (pieces > (size_t)c.most)
            pieces = (size_t)c.most;
        if (count > WK_SEG_LIST_CAPACITY || count * pieces > WK_SEG_PIECE_CAPACITY)
            return snprintf(why, len, "%zu segments of %zu: %zu pieces do not fit", count, L, count * pieces), 0;
        const size_t piece = div_up(div_up(L, pieces), 32) * 32;
        const size_t chain = div_up(piece, 32) + 2 * vec + 5 + pieces;
        if (chain > wk_seg_depth_bound(L))
            return snprintf(why, len, "segments of %zu: chain %zu over the bound", L, chain), 0;
    }
    if (div_up((size_t)c.long_len, 32) + 2 * vec + 5 > wk_seg_depth_bound((size_t)c.long_len))
        return snprintf(why, len, "a segment of the long length folded by a warp: over the bound"), 0;
    return 1;
}

int main(void)
{
    wk_tally t = {0, 0};
    const size_t sizes[] = {0, 1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 32, 33, 100, 128, 1000, 1024, 4096,
                            16384, 16385, 65536, 1000000, (size_t)1 << 20, (size_t)1 << 24};
    const size_t counts[] = {1, 2, 7, 100, 4096, 100000, (size_t)1 << 24};
    const size_t elems[] = {1, 2, 4, 8};
    const int sms[] = {1, 132};
    char why[160], label[320];
    for (size_t e = 0; e < 4; ++e)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
                for (int g = 0; g < 2; ++g) {
                    int ok = check_rows(counts[c], sizes[s], elems[e], sms[g], why, sizeof why);
                    snprintf(label, sizeof label, "elem %zu size %zu count %zu sms %d: %s", elems[e], sizes[s],
                             counts[c], sms[g], why);
                    wk_expect(&t, ok, label);
                }

    const size_t scan_sizes[] = {1, 3, 8, 33, 1000, 2048, 2049, 16384, 16385, 40000, 1000000, (size_t)1 << 20};
    const size_t scan_counts[] = {1, 3, 256, 4096, 1000000};
    for (size_t e = 0; e < 4; ++e)
        for (size_t s = 0; s < sizeof scan_sizes / sizeof scan_sizes[0]; ++s)
            for (size_t c = 0; c < sizeof scan_counts / sizeof scan_counts[0]; ++c)
                for (int pad = 0; pad < 6; ++pad)
                    for (int pipe = 0; pipe < 2; ++pipe) {
                        /* Strides of whole vectors and not, each from an
                         * aligned and a misaligned first row. */
                        size_t stride = scan_sizes[s] + (size_t)(pad % 3) * (16 / elems[e]) / 2;
                        uintptr_t addr = (uintptr_t)4096 + (uintptr_t)(pad / 3) * elems[e];
                        int ok = check_scan_rows(scan_counts[c], scan_sizes[s], stride, elems[e], addr, 132, pipe, why,
                                                 sizeof why);
                        snprintf(label, sizeof label, "scan: elem %zu size %zu stride %zu count %zu pipelined %d: %s",
                                 elems[e], scan_sizes[s], stride, scan_counts[c], pipe, why);
                        wk_expect(&t, ok, label);
                    }

    wk_seg_plan p;
    wk_expect(&t, wk_plan_segmented_rows(0, 10, 4, 132, &p) == -1, "no rows: nothing to plan");
    wk_expect(&t, wk_plan_segmented_rows(10, 10, 3, 132, &p) == -1, "an odd element size is refused");
    wk_expect(&t, wk_plan_segmented_rows(10, 10, 4, 132, NULL) == -1, "NULL plan is refused");

    wk_plan_segmented_rows(256, (size_t)1 << 20, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_BLOCK && p.pieces == 128 && p.grid == 256 * 128,
              "rows of 4 MiB are cut into 32 KiB pieces, a block each");
    wk_plan_segmented_rows((size_t)1 << 14, (size_t)1 << 14, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_BLOCK && p.pieces == 2, "2^14 rows of 64 KiB: two pieces each");
    wk_plan_segmented_rows(100, 6000, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_BLOCK && p.pieces == 1, "rows of 24 KiB: a block each");
    wk_plan_segmented_rows((size_t)1 << 16, (size_t)1 << 14, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_GROUP && p.group == WK_SEG_GROUP_ONCE_MAX,
              "rows of 64 KiB beyond the board take a half warp each");
    wk_plan_segmented_rows((size_t)1 << 26, 32, 4, 132, &p);
    wk_expect(&t, p.shape == WK_SEG_GROUP && p.group == 2, "rows of 32 floats take two lanes each");
    wk_plan_segmented_scan_rows((size_t)1 << 23, 32, 32, 4, 0, 132, 1, &p);
    wk_expect(&t, p.shape == WK_SEG_JOINED && p.pieces == 64, "rows of 32 floats end to end: 64 a warp's run");
    wk_plan_segmented_scan_rows((size_t)1 << 23, 32, 33, 4, 0, 132, 1, &p);
    wk_expect(&t, p.shape == WK_SEG_GROUP, "rows of 32 floats with gaps: a warp each");
    wk_plan_segmented_scan_rows(1000, 3, 3, 4, 0, 132, 1, &p);
    wk_expect(&t, p.shape == WK_SEG_JOINED && p.pieces % 4 == 0, "rows of 12 bytes: runs of a multiple of 4 rows");
    wk_plan_segmented_scan_rows(256, (size_t)1 << 20, (size_t)1 << 20, 4, 0, 132, 1, &p);
    wk_expect(&t, p.shape == WK_SEG_TILES && p.pipelined && p.pieces == 64,
              "rows of 2^20 floats are scanned in 64 pipelined tiles each");
    wk_expect(&t, wk_plan_segmented_scan_rows(4, 100, 99, 4, 0, 132, 1, &p) == -1, "a stride below the size is refused");
    wk_expect(&t, wk_plan_segmented_scan_rows((size_t)1 << 40, 20000, 20000, 4, 0, 132, 1, &p) == -1,
              "more tiles than a scan may have are refused");
    const size_t cut_ns[] = {1, 1000, (size_t)1 << 20, (size_t)1 << 26, (size_t)1 << 28, ((size_t)1 << 30) + 7,
                             ((size_t)1 << 31) + 1000, (size_t)1 << 34, (size_t)1 << 37};
    for (size_t k = 0; k < sizeof cut_ns / sizeof cut_ns[0]; ++k)
        for (size_t e = 0; e < 4; ++e)
            for (int scan = 0; scan < 2; ++scan) {
                char why[160], label[256];
                int ok = check_cut(cut_ns[k], elems[e], scan, why, sizeof why);
                snprintf(label, sizeof label, "offsets cut: n %zu elem %zu %s: %s", cut_ns[k], elems[e],
                         scan ? "scan" : "reduce", ok ? "fits the board" : why);
                wk_expect(&t, ok, label);
            }
    const wk_seg_cut f32_28 = wk_seg_offsets_cut((size_t)1 << 28, 4, 0), f32_30 = wk_seg_offsets_cut((size_t)1 << 30, 4, 0);
    wk_expect(&t, f32_28.long_len == 16384 && f32_28.piece_len == 4096,
              "2^28 floats: segments over 64 KiB listed, pieces of 16 KiB");
    wk_expect(&t, f32_30.long_len == 65536 && f32_30.piece_len > 4096,
              "2^30 floats: segments over 256 KiB listed, longer pieces");
    for (int scan = 0; scan <= 1; ++scan) {
        /* The reduce's blocks are of four warps, six an SM; the scan's of eight, four an SM. */
        const unsigned per_sm = scan ? WK_SEG_BLOCKS_PER_SM : WK_SEG_OFFSETS_BLOCKS_PER_SM;
        const unsigned warps = (scan ? WK_SEG_THREADS : WK_SEG_OFFSETS_THREADS) / 32;
        wk_expect(&t, wk_seg_offsets_grid(1, 3, 4, 132, scan) == 1, "one short segment: one block");
        wk_expect(&t, wk_seg_offsets_grid((size_t)1 << 30, (size_t)1 << 30, 4, 132, scan) == 132 * per_sm,
                  "many segments fill the device");
        wk_expect(&t, wk_seg_offsets_grid(256, (size_t)1 << 28, 4, 132, scan) == 132 * per_sm,
                  "a few long segments fill the device too");
        wk_expect(&t, wk_seg_offsets_grid(256, (size_t)1 << 20, 2, 132, scan) == 128 / warps,
                  "2 MiB of input: a warp per 16 KiB");
    }
    const size_t repro_counts[] = {1, 3, 64, 1000, 4224, 30000, (size_t)1 << 21, (size_t)1 << 26};
    const size_t repro_sizes[] = {0, 1, 33, 64, 65, 1024, 16384, 150000, (size_t)1 << 20, (size_t)1 << 24};
    const int repro_sms[] = {1, 16, 132, 264};
    for (size_t m = 0; m < sizeof repro_sms / sizeof repro_sms[0]; ++m)
        for (size_t c = 0; c < sizeof repro_counts / sizeof repro_counts[0]; ++c)
            for (size_t z = 0; z < sizeof repro_sizes / sizeof repro_sizes[0]; ++z)
                for (size_t e = 1; e < 4; ++e) /* the float sizes */
                    for (int offsets = 0; offsets < 2; ++offsets) {
                        char why[160], label[256];
                        const size_t size = offsets ? repro_sizes[z] * repro_counts[c] : repro_sizes[z];
                        int ok = check_repro(repro_counts[c], size, elems[e], offsets, repro_sms[m], why, sizeof why);
                        snprintf(label, sizeof label, "repro plan, %d SMs: %zu %s of %zu, elem %zu: %s", repro_sms[m],
                                 repro_counts[c], offsets ? "offsets segments" : "rows", repro_sizes[z], elems[e],
                                 ok ? "ok" : why);
                        wk_expect(&t, ok, label);
                    }
    wk_seg_plan rp;
    wk_plan_segmented_repro((size_t)1 << 21, 32, 4, 0, 132, &rp);
    wk_expect(&t, rp.shape == WK_SEG_REPRO_BATCHES && rp.group == 32, "rows of 32 floats: a lane each");
    wk_plan_segmented_repro((size_t)1 << 26, 8, 4, 0, 132, &rp);
    wk_expect(&t, rp.shape == WK_SEG_REPRO_TINY && rp.grid == (1u << 18), "rows of 8 floats: a thread each");
    wk_plan_segmented_repro(256, (size_t)1 << 20, 4, 0, 132, &rp);
    wk_expect(&t, rp.shape == WK_SEG_REPRO_PIECES && rp.pieces == 16,
              "256 rows of 2^20 floats: 16 pieces each, one for each warp the device holds");
    wk_plan_segmented_repro((size_t)1 << 19, 128, 4, 0, 132, &rp);
    wk_expect(&t, rp.shape == WK_SEG_REPRO_BATCHES && rp.group == 32 && rp.lane_len == 128,
              "2^19 rows of 128 floats: a lane each");
    wk_plan_segmented_repro((size_t)1 << 20, (size_t)1 << 28, 4, 1, 132, &rp);
    wk_expect(&t, rp.long_len == 16384 && rp.piece_len == 16384 && rp.listed_grid == 528,
              "offsets over 2^28 floats: segments over 64 KiB cut into pieces of 64 KiB");
    wk_expect(&t, rp.shape == WK_SEG_REPRO_BATCHES, "offsets segments of 256 floats on average: batches");
    wk_plan_segmented_repro((size_t)1 << 23, (size_t)1 << 26, 4, 1, 132, &rp);
    wk_expect(&t, rp.shape == WK_SEG_REPRO_JOINED && rp.grid == 16384 && rp.long_len == 16384,
              "2^23 offsets segments over 2^26 floats: joined, 128 a warp, long ones still listed");
    wk_expect(&t, wk_plan_segmented_repro(0, 5, 4, 0, 132, &rp) == -1 && wk_plan_segmented_repro(5, 5, 3, 0, 132, &rp) == -1,
              "no segments or a bad element size: refused");
    wk_expect(&t, wk_seg_vector_rows_grid((size_t)1 << 26, 1) == 131072 && wk_seg_vector_rows_grid((size_t)1 << 24, 2) == 32768 &&
                      wk_seg_vector_rows_grid((size_t)1 << 23, 8) == 65536 && wk_seg_vector_rows_grid(1, 8) == 1,
              "rows of whole vectors: two vectors a thread for rows of one, else four, the rows covered once");
    return wk_tally_finish(&t);
}
