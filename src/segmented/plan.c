/* Shape and grid choice for the segmented kernels (plan.h). */
#include "segmented/plan.h"

#include "scan/plan.h"

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }

static unsigned pow2_at_most(size_t x)
{
    unsigned p = 1;
    while ((size_t)p * 2 <= x && p < 32)
        p *= 2;
    return p;
}

static unsigned clamp_grid(size_t want, int sm_count, unsigned per_sm)
{
    size_t cap = (size_t)sm_count * per_sm;
    if (want < 1)
        want = 1;
    return (unsigned)(want < cap ? want : cap);
}

/* A grid that covers `want` blocks' work once (the reduce's). */
static unsigned whole_grid(size_t want)
{
    if (want < 1)
        want = 1;
    return (unsigned)(want < WK_SEG_GRID_MAX ? want : WK_SEG_GRID_MAX);
}

/* Tiny and group shapes, the grid covering the rows once when `once`, else
 * a persistent grid (the scan's); returns 0 when the row is too long for
 * them. */
static int plan_short_rows(size_t count, size_t size, size_t elem_size, int sm_count, int once, wk_seg_plan *plan)
{
    const size_t bytes = size * elem_size;
    const size_t vec_elems = 16 / elem_size;
    if (bytes <= 32) {
        plan->shape = WK_SEG_TINY;
        plan->group = 1;
        const size_t blocks = div_up(count, (size_t)WK_SEG_THREADS * WK_SEG_TINY_ROWS);
        plan->grid = once ? whole_grid(blocks) : clamp_grid(blocks, sm_count, 8);
        return 1;
    }
    if (bytes <= WK_SEG_GROUP_MAX_BYTES) {
        /* About WK_SEG_UNROLL vectors per lane: enough loads in flight, and
         * short rows still fill whole warps. */
        size_t vectors = div_up(size, vec_elems);
        unsigned g = pow2_at_most(vectors / WK_SEG_UNROLL);
        /* The reduce's grid that covers the rows once streams faster with
         * half warps than with whole ones on long rows (docs/segmented.md). */
        if (once && g > WK_SEG_GROUP_ONCE_MAX)
            g = WK_SEG_GROUP_ONCE_MAX;
        plan->shape = WK_SEG_GROUP;
        plan->group = g < 2 ? 2 : g;
        const size_t blocks = div_up(count, WK_SEG_THREADS / plan->group);
        plan->grid = once ? whole_grid(blocks) : clamp_grid(blocks, sm_count, 8);
        return 1;
    }
    return 0;
}

/* Whether the board holds the pieces of `count` rows of `bytes` bytes cut
 * into pieces of WK_SEG_PIECE_BYTES. */
static int board_splits(size_t count, size_t bytes)
{
    return count <= WK_SEG_SPLIT_ROWS && div_up(bytes, WK_SEG_PIECE_BYTES) <= WK_SEG_PIECE_CAPACITY / count;
}

int wk_plan_segmented_rows(size_t count, size_t size, size_t elem_size, int sm_count, wk_seg_plan *plan)
{
    if (!plan || sm_count < 1 || (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) || count == 0)
        return -1;
    plan->pieces = 1;
    plan->piece_len = size;
    plan->pipelined = 0;
    const size_t bytes = size * elem_size;
    /* Rows longer than WK_SEG_BLOCK_FROM_BYTES are cut into pieces of a
     * block each where the board holds them; rows up to a group row are
     * otherwise taken by groups. */
    if ((bytes <= WK_SEG_BLOCK_FROM_BYTES || !board_splits(count, bytes)) &&
        plan_short_rows(count, size, elem_size, sm_count, 1, plan))
        return 0;
    plan->shape = WK_SEG_BLOCK;
    plan->group = WK_SEG_THREADS;
    size_t pieces = 1;
    if (count <= WK_SEG_SPLIT_ROWS) {
        pieces = div_up(bytes, WK_SEG_PIECE_BYTES);
        if (pieces > WK_SEG_PIECE_CAPACITY / count)
            pieces = WK_SEG_PIECE_CAPACITY / count; /* longer pieces; at least one */
    }
    /* Pieces of whole 16-byte vectors keep every piece's loads aligned
     * alike. */
    size_t vec_elems = 16 / elem_size;
    plan->piece_len = div_up(div_up(size, pieces), vec_elems) * vec_elems;
    plan->pieces = div_up(size, plan->piece_len);
    plan->grid = whole_grid(count * plan->pieces);
    return 0;
}

int wk_plan_segmented_scan_rows(size_t count, size_t size, size_t stride, size_t elem_size, uintptr_t in_addr,
                                int sm_count, int pipelined_ok, wk_seg_plan *plan)
{
    if (!plan || sm_count < 1 || (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) || count == 0 ||
        stride < size || in_addr % elem_size != 0)
        return -1;
    plan->pieces = 1;
    plan->piece_len = size;
    plan->pipelined = 0;
    const size_t bytes = size * elem_size;
    if (stride == size && bytes <= WK_SEG_JOINED_MAX_BYTES) {
        /* Runs of about WK_SEG_JOINED_RUN_BYTES, whole rows, each starting
         * at the first row's offset from a 16-byte boundary. */
        size_t period = 1;
        while ((period * bytes) % 16 != 0)
            period *= 2;
        size_t rows = WK_SEG_JOINED_RUN_BYTES / bytes / period * period;
        plan->shape = WK_SEG_JOINED;
        plan->group = 32;
        plan->pieces = rows > period ? rows : period;
        const size_t runs = div_up(count, plan->pieces);
        plan->grid = clamp_grid(div_up(runs, WK_SEG_THREADS / 32), sm_count, 8);
        return 0;
    }
    if (plan_short_rows(count, size, elem_size, sm_count, 0, plan))
        return 0;
    /* The device-wide scan's tiles (scan/plan.h): the pipelined ones where
     * the device runs them (not for 2-byte elements), else the small
     * chained ones. */
    const size_t vec_elems = 16 / elem_size;
    plan->shape = WK_SEG_TILES;
    plan->group = WK_SCAN_THREADS;
    plan->pipelined = pipelined_ok && elem_size > 2;
    const size_t tile_vecs = (size_t)WK_SCAN_THREADS *
                             (plan->pipelined ? WK_SCAN_PIPELINED_VECTORS : WK_SCAN_SMALL_VECTORS);
    plan->piece_len = tile_vecs * vec_elems;
    /* A row seen from the 16-byte boundary at or below it: every row
     * starts at the first one's offset when the stride is whole vectors,
     * and at any offset otherwise. */
    const size_t offset = (stride * elem_size) % 16 == 0 ? (in_addr % 16) / elem_size : vec_elems - 1;
    plan->pieces = div_up(div_up(offset + size, vec_elems), tile_vecs);
    if (plan->pieces > WK_SCAN_MAX_TILES / count)
        return -1;
    const size_t tiles = count * plan->pieces;
    plan->grid = plan->pipelined ? (unsigned)(tiles < (size_t)sm_count ? tiles : (size_t)sm_count) : (unsigned)tiles;
    return 0;
}

int wk_plan_segmented_repro(size_t count, size_t size, size_t elem_size, int offsets, int sm_count,
                            wk_seg_plan *plan)
{
    if (!plan || sm_count < 1 || (elem_size != 2 && elem_size != 4 && elem_size != 8) || count == 0)
        return -1;
    const size_t resident = (size_t)sm_count * WK_SEG_BLOCKS_PER_SM * (WK_SEG_THREADS / 32); /* warps */
    const size_t vec_elems = 16 / elem_size;
    /* The bytes of a segment: a row's, or the offsets' mean. */
    const size_t bytes = offsets ? size / count * elem_size : size * elem_size;
    plan->shape = WK_SEG_REPRO_BATCHES;
    plan->pieces = 1;
    plan->piece_len = 0;
    plan->pipelined = 0;
    plan->lane_len = WK_SEG_REPRO_LANE_BYTES / elem_size;
    plan->long_len = 0;
    plan->listed_grid = 0;
    if (!offsets && bytes >= 2 * (size_t)WK_SEG_REPRO_PIECE_BYTES && count <= WK_SEG_SPLIT_ROWS) {
        /* Rows too few for a warp each: pieces of at least
         * WK_SEG_REPRO_PIECE_BYTES, about one for every warp the device
         * holds (one wave), as many as the board holds. */
        size_t pieces = resident / count;
        const size_t most_by_len = bytes / WK_SEG_REPRO_PIECE_BYTES, most_by_board = WK_SEG_REPRO_PIECE_CAPACITY / count;
        if (pieces > most_by_len)
            pieces = most_by_len;
        if (pieces > most_by_board)
            pieces = most_by_board;
        if (pieces >= 2) {
            plan->shape = WK_SEG_REPRO_PIECES;
            plan->group = 32;
            plan->piece_len = div_up(div_up(size, pieces), vec_elems) * vec_elems;
            plan->pieces = div_up(size, plan->piece_len);
            plan->grid = whole_grid(div_up(count * plan->pieces, WK_SEG_THREADS / 32));
            return 0;
        }
    }
    if (!offsets && bytes <= 32) {
        plan->shape = WK_SEG_REPRO_TINY;
        plan->group = 1;
        plan->grid = whole_grid(div_up(count, WK_SEG_THREADS));
        return 0;
    }
    /* Rows of up to WK_SEG_REPRO_LANE_ROW_BYTES a lane each when there are
     * enough of them for every warp the device holds. */
    if (!offsets && bytes <= WK_SEG_REPRO_LANE_ROW_BYTES && count / 32 >= resident && size > plan->lane_len)
        plan->lane_len = size;
    /* Segments a lane sums alone fill the warp's 32 lanes; longer ones
     * take the whole warp, a batch only as large as keeps every warp the
     * device holds busy. */
    unsigned group = 32;
    if (bytes > plan->lane_len * elem_size)
        group = pow2_at_most(count / resident);
    plan->group = group;
    plan->grid = whole_grid(div_up(div_up(count, group), WK_SEG_THREADS / 32));
    if (offsets && elem_size == 4 && bytes <= plan->lane_len * elem_size) {
        /* Short f32 segments: units of WK_SEG_REPRO_JOINED_UNIT a warp. */
        plan->shape = WK_SEG_REPRO_JOINED;
        plan->grid = whole_grid(div_up(div_up(count, WK_SEG_REPRO_JOINED_UNIT), WK_SEG_OFFSETS_THREADS / 32));
    }
    if (offsets && size * elem_size > WK_SEG_REPRO_LONG_BYTES) {
        /* Segments longer than long_len are fewer than the list holds when
         * they do not overlap, and their pieces fewer than the board's
         * room: n / piece_len pieces and one more a segment. */
        const size_t by_list = div_up(size, WK_SEG_LIST_CAPACITY);
        const size_t by_board = div_up(size, WK_SEG_REPRO_PIECE_CAPACITY - WK_SEG_LIST_CAPACITY);
        const size_t long_len = WK_SEG_REPRO_LONG_BYTES / elem_size, piece_len = WK_SEG_REPRO_PIECE_BYTES / elem_size;
        plan->long_len = by_list > long_len ? by_list : long_len;
        plan->piece_len = by_board > piece_len ? by_board : piece_len;
        plan->listed_grid = (unsigned)(resident / (WK_SEG_THREADS / 32));
    }
    return 0;
}

size_t wk_seg_plan_tiles(size_t count, const wk_seg_plan *plan)
{
    return plan && plan->shape == WK_SEG_TILES ? count * plan->pieces : 0;
}

unsigned wk_seg_vector_rows_grid(size_t count, unsigned vectors)
{
    const unsigned unroll = vectors <= 1 ? WK_SEG_ONE_VECTOR_UNROLL : WK_SEG_UNROLL;
    const size_t rows_per_block = (size_t)WK_SEG_THREADS * unroll / (vectors ? vectors : 1);
    return whole_grid(div_up(count, rows_per_block));
}

unsigned wk_seg_offsets_grid(size_t count, size_t n, size_t elem_size, int sm_count, int scan)
{
    /* A warp per batch of 32 segments, or per 16 KiB of the input where
     * that is more: a few long segments need every SM too. */
    size_t warps = div_up(count, 32);
    const size_t by_bytes = div_up(n, (16u << 10) / (elem_size ? elem_size : 1));
    if (by_bytes > warps)
        warps = by_bytes;
    if (scan)
        return clamp_grid(div_up(warps, WK_SEG_THREADS / 32), sm_count, WK_SEG_BLOCKS_PER_SM);
    return clamp_grid(div_up(warps, WK_SEG_OFFSETS_THREADS / 32), sm_count, WK_SEG_OFFSETS_BLOCKS_PER_SM);
}

wk_seg_plan wk_seg_offsets_plan(unsigned grid)
{
    wk_seg_plan plan = {WK_SEG_OFFSETS, 32, grid, 1, 0, 0, 0, 0, 0};
    return plan;
}

wk_seg_cut wk_seg_offsets_cut(size_t n, size_t elem_size, int scan)
{
    /* Segments that do not overlap: fewer than n / long_len are longer than
     * long_len, so they fit the list; each has at most len / piece_len + 1
     * pieces, so together at most n / piece_len + WK_SEG_LIST_CAPACITY,
     * which fits the board's pieces. */
    const size_t es = elem_size ? elem_size : 1;
    size_t long_len = WK_SEG_GROUP_MAX_BYTES / es;
    size_t piece_len = (scan ? WK_SEG_PIECE_MIN_BYTES : WK_SEG_REDUCE_PIECE_MIN_BYTES) / es;
    const size_t by_list = div_up(n, WK_SEG_LIST_CAPACITY);
    const size_t by_pieces = div_up(n, WK_SEG_PIECE_CAPACITY - WK_SEG_LIST_CAPACITY);
    wk_seg_cut cut;
    cut.long_len = (long long)(by_list > long_len ? by_list : long_len);
    cut.piece_len = (long long)(by_pieces > piece_len ? by_pieces : piece_len);
    cut.most = scan ? 256 : 1024;
    return cut;
}

size_t wk_seg_depth_bound(size_t len) { return div_up(len, 8) + 64; }
