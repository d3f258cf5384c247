/* Tests of the select case lists (verify/check/select_cases): they cover what
 * they promise (every dtype x mode, the edge sizes, every compare, the
 * selectivities, unique's run lengths, offsets, in place only where it is
 * allowed, the special values, tile boundaries, sizes over 2^31 in the
 * huge list only), and each case's data keeps exactly the elements its
 * keep pattern says, at about the selectivity the pattern names. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/generate.h"
#include "warpkit.h"
#include "ref/reference.h"
#include "scan/plan.h"
#include "select/plan.h"
#include "check/select_cases.h"
#include "test_util.h"

static wk_tally tally;

#define MODES WK_REF_SELECT_MODE_COUNT
#define SIZE_2_31 ((size_t)1 << 31)

static wk_select_case *list_of(wk_case_level level, uint64_t seed, size_t *count)
{
    *count = wk_select_cases(level, seed, NULL, 0);
    wk_select_case *cases = calloc(*count ? *count : 1, sizeof *cases);
    if (!cases) {
        printf("FAIL cannot allocate %zu cases\n", *count);
        exit(1);
    }
    size_t again = wk_select_cases(level, seed, cases, *count);
    wk_checkf(&tally, again == *count, "the list has the same length when written (%zu, %zu)", *count, again);
    return cases;
}

static int is_float(wk_dtype d) { return wk_dtype_is_float(d); }

/* Tiles as the library plans them. */
static size_t tile_elems(size_t elem, size_t n)
{
    wk_tile_plan p;
    wk_plan_select(0x10000, n, elem, 0, &p);
    return p.tile_elems;
}

/* ------------------------------------------------------------ coverage */

/* What one list covers, gathered in one pass. */
typedef struct coverage {
    int dtype_mode[WK_DTYPE_COUNT][MODES];
    int size_mode[MODES][8];                    /* the edge sizes, per mode                 */
    int size_dtype_mode[WK_DTYPE_COUNT][MODES][8];
    int compare_mode[MODES][WK_COMPARE_COUNT];
    int compare_dtype_mode[WK_DTYPE_COUNT][MODES][WK_COMPARE_COUNT];
    int keep_mode[MODES][WK_KEEP_PATTERN_COUNT];
    int runs[1001];                             /* unique's run lengths                     */
    int in_place_mode[MODES];
    int bad_in_place, bad_nan_test, bad_special, over_2_31, over_2_20;
    int offsets[4][4];                          /* (input, output), apart                   */
    int in_place_offsets[4];
    int flags_offsets[4];
    int special_mode[MODES][WK_SELECT_SPECIAL_COUNT];
    int float_special_mode[MODES][WK_SELECT_SPECIAL_COUNT];
} coverage;

static const size_t edge_sizes[8] = {0, 1, 31, 32, 33, 1023, 1024, 1025};

static void gather(const wk_select_case *cases, size_t count, coverage *cv)
{
    memset(cv, 0, sizeof *cv);
    for (size_t i = 0; i < count; ++i) {
        const wk_select_case *c = &cases[i];
        int m = (int)c->mode, d = (int)c->dtype;
        cv->dtype_mode[d][m]++;
        for (int s = 0; s < 8; ++s)
            if (c->n == edge_sizes[s]) {
                cv->size_mode[m][s]++;
                cv->size_dtype_mode[d][m][s]++;
            }
        if (wk_ref_select_uses_predicate(c->mode)) {
            int cmp = (int)c->predicate.compare;
            cv->compare_mode[m][cmp]++;
            cv->compare_dtype_mode[d][m][cmp]++;
            if ((cmp == WK_IS_NAN || cmp == WK_NOT_NAN) && !is_float(c->dtype))
                cv->bad_nan_test++;
        }
        cv->keep_mode[m][c->keep]++;
        if (c->mode == WK_REF_UNIQUE && c->keep == WK_KEEP_EVERY && c->run_length <= 1000)
            cv->runs[c->run_length]++;
        if (c->in_place) {
            cv->in_place_mode[m]++;
            cv->in_place_offsets[c->in_offset]++;
            if (!wk_ref_select_in_place_ok(c->mode) || c->out_offset != 0)
                cv->bad_in_place++;
        } else {
            cv->offsets[c->in_offset][c->out_offset]++;
        }
        if (c->mode == WK_REF_SELECT_FLAGGED)
            cv->flags_offsets[c->flags_offset]++;
        cv->special_mode[m][c->special]++;
        if (is_float(c->dtype))
            cv->float_special_mode[m][c->special]++;
        else if (c->special != WK_SELECT_PLAIN && c->special != WK_SELECT_EDGE_CONSTANT)
            cv->bad_special++;
        cv->over_2_31 += c->n > SIZE_2_31;
        cv->over_2_20 += c->n > ((size_t)1 << 20);
    }
}

static void check_coverage(const char *name, const coverage *cv, int full)
{
    size_t missing = 0;
    for (int d = 0; d < WK_DTYPE_COUNT; ++d)
        for (int m = 0; m < MODES; ++m)
            missing += cv->dtype_mode[d][m] == 0;
    wk_checkf(&tally, missing == 0, "%s: every dtype x mode has cases (%zu pairs without)", name, missing);

    missing = 0;
    for (int m = 0; m < MODES; ++m)
        for (int s = 0; s < 8; ++s) {
            if (full)
                for (int d = 0; d < WK_DTYPE_COUNT; ++d)
                    missing += cv->size_dtype_mode[d][m][s] == 0;
            else
                missing += cv->size_mode[m][s] == 0;
        }
    wk_checkf(&tally, missing == 0, "%s: sizes 0, 1, 31, 32, 33, 1023, 1024, 1025 for every %s (%zu missing)", name,
              full ? "dtype x mode" : "mode", missing);

    missing = 0;
    for (int m = 0; m < MODES; ++m) {
        if (!wk_ref_select_uses_predicate((wk_ref_select_mode)m))
            continue;
        for (int c = 0; c < WK_COMPARE_COUNT; ++c) {
            missing += cv->compare_mode[m][c] == 0;
            if (full)
                for (int d = 0; d < WK_DTYPE_COUNT; ++d)
                    if (is_float((wk_dtype)d) || c <= (int)WK_IN_RANGE)
                        missing += cv->compare_dtype_mode[d][m][c] == 0;
        }
    }
    wk_checkf(&tally, missing == 0, "%s: every compare in every predicate mode%s (%zu missing)", name,
              full ? ", for every dtype it applies to" : "", missing);
    wk_checkf(&tally, cv->bad_nan_test == 0, "%s: is_nan / not_nan on float dtypes only (%d on integers)", name,
              cv->bad_nan_test);

    missing = 0;
    static const wk_keep_pattern promised[] = {WK_KEEP_NONE, WK_KEEP_1PCT, WK_KEEP_HALF, WK_KEEP_99PCT, WK_KEEP_ALL,
                                               WK_KEEP_ALTERNATE};
    for (int m = 0; m < MODES; ++m)
        for (size_t k = 0; k < sizeof promised / sizeof promised[0]; ++k)
            if (cv->keep_mode[m][promised[k]] == 0) {
                printf("  no %s keep %s\n", wk_ref_select_mode_name((wk_ref_select_mode)m),
                       wk_keep_pattern_name(promised[k]));
                missing++;
            }
    wk_checkf(&tally, missing == 0, "%s: selectivities 0, 1, 50, 99, 100 %% and alternating in every mode (%zu missing)",
              name, missing);
    int runs_ok = cv->keep_mode[WK_REF_UNIQUE][WK_KEEP_EVERY] > 0 && cv->keep_mode[WK_REF_UNIQUE][WK_KEEP_NONE] > 0;
    if (full) {
        static const unsigned lengths[] = {1, 2, 3, 7, 32, 1000};
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; ++k)
            runs_ok &= cv->runs[lengths[k]] > 0;
    }
    wk_checkf(&tally, runs_ok, "%s: unique has runs of duplicates%s and all-equal data", name,
              full ? " of lengths 1, 2, 3, 7, 32, 1000" : "");

    wk_checkf(&tally,
              cv->bad_in_place == 0 && cv->in_place_mode[WK_REF_SELECT_IF] && cv->in_place_mode[WK_REF_SELECT_FLAGGED] &&
                  cv->in_place_mode[WK_REF_UNIQUE],
              "%s: in place for select_if, select_flagged and unique (%d, %d, %d cases), nowhere else (%d)", name,
              cv->in_place_mode[WK_REF_SELECT_IF], cv->in_place_mode[WK_REF_SELECT_FLAGGED],
              cv->in_place_mode[WK_REF_UNIQUE], cv->bad_in_place);

    int pairs = 0, ins = 0, outs = 0, flags = 0, in_place = 0;
    for (int a = 0; a < 4; ++a) {
        int in_any = 0, out_any = 0;
        for (int b = 0; b < 4; ++b) {
            pairs += cv->offsets[a][b] > 0;
            in_any |= cv->offsets[a][b] > 0;
            out_any |= cv->offsets[b][a] > 0;
        }
        ins += in_any;
        outs += out_any;
        flags += cv->flags_offsets[a] > 0;
        in_place += cv->in_place_offsets[a] > 0;
    }
    wk_checkf(&tally, ins == 4 && outs == 4 && flags == 4 && (!full || (pairs == 16 && in_place == 4)),
              "%s: input offsets 0..3 (%d of 4), output offsets (%d of 4)%s, flags offsets (%d of 4), in place at "
              "offsets (%d of 4), (input, output) pairs (%d of 16)",
              name, ins, outs, "", flags, in_place, pairs);

    missing = 0;
    static const wk_select_special float_only[] = {WK_SELECT_NAN_DATA, WK_SELECT_NAN_CONSTANT, WK_SELECT_SIGNED_ZERO,
                                                   WK_SELECT_INF_CONSTANT};
    for (int m = 0; m < MODES; ++m) {
        int wanted[WK_SELECT_SPECIAL_COUNT] = {0};
        if (wk_ref_select_uses_predicate((wk_ref_select_mode)m)) {
            for (size_t k = 0; k < 4; ++k)
                wanted[float_only[k]] = 1;
            wanted[WK_SELECT_EDGE_CONSTANT] = 1;
        } else if (m == WK_REF_UNIQUE) {
            wanted[WK_SELECT_NAN_DATA] = wanted[WK_SELECT_SIGNED_ZERO] = 1;
        }
        for (int k = 0; k < WK_SELECT_SPECIAL_COUNT; ++k)
            if (wanted[k] && (k == WK_SELECT_EDGE_CONSTANT ? cv->special_mode : cv->float_special_mode)[m][k] == 0) {
                printf("  no %s with%s\n", wk_ref_select_mode_name((wk_ref_select_mode)m),
                       wk_select_special_name((wk_select_special)k));
                missing++;
            }
    }
    wk_checkf(&tally, missing == 0 && cv->bad_special == 0,
              "%s: NaN data, NaN constants, signed zeros, infinite and edge constants in every predicate mode, NaN "
              "data and signed zeros in unique (%zu missing), NaN / zero / inf specials on floats only (%d not)",
              name, missing, cv->bad_special);
    wk_checkf(&tally, cv->over_2_31 == 0, "%s: no case over 2^31 elements (the huge list has them): %d", name,
              cv->over_2_31);
}

/* Sizes where the tiles change, and past them. */
static void check_tile_sizes(const wk_select_case *cases, size_t count)
{
    static const size_t elems[] = {1, 2, 4, 8};
    for (size_t e = 0; e < 4; ++e) {
        size_t tile = tile_elems(elems[e], 1), found = 0, want = 0;
        for (size_t t = 1; t <= 2; ++t)
            for (int delta = -1; delta <= 1; ++delta) {
                size_t n = t * tile + (size_t)(ptrdiff_t)delta;
                want++;
                for (size_t i = 0; i < count; ++i)
                    if (wk_dtype_size(cases[i].dtype) == elems[e] && cases[i].n == n && cases[i].in_offset == 0) {
                        found++;
                        break;
                    }
            }
        size_t first_large = WK_SELECT_LARGE_FROM_BYTES / elems[e], large_tile = tile_elems(elems[e], first_large);
        size_t past_16 = WK_SCAN_LARGE_FROM_BYTES / elems[e], multi = 0, edge = 0, over_16 = 0;
        for (size_t i = 0; i < count; ++i) {
            if (wk_dtype_size(cases[i].dtype) != elems[e])
                continue;
            multi += cases[i].n > first_large + 2 * large_tile;
            edge += cases[i].n == first_large - 1 || cases[i].n == first_large + 1;
            over_16 += cases[i].n > past_16 + large_tile / 2;
        }
        wk_checkf(&tally, found == want && multi > 0 && edge > 0 && over_16 > 0,
                  "full: %zu-byte dtypes have one and two tiles and one either side (%zu of %zu), either side of "
                  "the change to large tiles (%zu), sizes over several large tiles (%zu), past 16 MiB (%zu)",
                  elems[e], found, want, edge, multi, over_16);
    }
    size_t powers = 0;
    static const unsigned exps[] = {11, 14, 17, 20};
    for (size_t k = 0; k < 4; ++k)
        for (int delta = -1; delta <= 1; ++delta) {
            size_t n = ((size_t)1 << exps[k]) + (size_t)(ptrdiff_t)delta;
            for (size_t i = 0; i < count; ++i)
                if (cases[i].n == n) {
                    powers++;
                    break;
                }
        }
    wk_checkf(&tally, powers == 12, "full: powers of two 2^11, 2^14, 2^17, 2^20 and their neighbours (%zu of 12)",
              powers);
}

/* The planner's shapes (select/plan.h). Without the pipelined kernel:
 * small tiles below 8 MiB and for 1- and 2-byte elements, large ones from
 * there, and for 4-byte elements 48 KiB staged ones (256 threads) from
 * 256 MiB and 128 KiB ones from 1 GiB. With it (sm_90 and later), 4- and 8-byte
 * elements take the pipelined tiles from 16 MiB on. */
static void check_shapes(void)
{
    static const size_t elems[] = {1, 2, 4, 8};
    const size_t GiB = (size_t)1 << 30;
    for (int pipelined_ok = 0; pipelined_ok <= 1; ++pipelined_ok)
        for (size_t e = 0; e < 4; ++e) {
            size_t elem = elems[e];
            const size_t sizes[] = {WK_SELECT_LARGE_FROM_BYTES / elem - 1,      WK_SELECT_LARGE_FROM_BYTES / elem,
                                    WK_SELECT_PIPELINED_FROM_BYTES / elem - 1,  WK_SELECT_PIPELINED_FROM_BYTES / elem,
                                    WK_SELECT_STAGED_MID_FROM_BYTES / elem - 1, WK_SELECT_STAGED_MID_FROM_BYTES / elem,
                                    WK_SELECT_STAGED_FROM_BYTES / elem - 1,     WK_SELECT_STAGED_FROM_BYTES / elem,
                                    64 * GiB / elem};
            enum { SIZES = sizeof sizes / sizeof sizes[0] };
            unsigned got[SIZES], want[SIZES];
            for (size_t s = 0; s < SIZES; ++s) {
                wk_tile_plan p;
                wk_plan_select_for(0x10000, sizes[s], elem, 0, pipelined_ok, &p);
                const int want_pipelined = pipelined_ok && elem > 2 && s >= 3;
                got[s] = p.vectors;
                want[s] = elem <= 2 || s == 0  ? WK_SELECT_SMALL_VECTORS
                          : want_pipelined     ? WK_SELECT_PIPELINED_VECTORS
                          : elem != 4 || s < 5 ? WK_SELECT_LARGE_VECTORS
                          : s < 7              ? WK_SELECT_STAGED_MID_VECTORS
                                               : WK_SELECT_STAGED_VECTORS;
                unsigned want_block = want_pipelined                   ? WK_SELECT_PIPELINED_THREADS
                                      : elem == 4 && s >= 5 && s < 7 ? WK_SELECT_STAGED_MID_THREADS
                                                                     : WK_SELECT_THREADS;
                wk_checkf(&tally,
                          p.block == want_block && p.tile_elems == p.block * p.vectors * (16 / elem) &&
                              p.pipelined == want_pipelined,
                          "%s: %zu-byte elements, n %zu: %u threads with %u vectors, tile of %u elements, "
                          "pipelined %d (want %u threads, pipelined %d)",
                          pipelined_ok ? "sm_90" : "before sm_90", elem, sizes[s], p.block, p.vectors, p.tile_elems,
                          p.pipelined, want_block, want_pipelined);
            }
            wk_checkf(&tally, memcmp(got, want, sizeof got) == 0,
                      "%s: %zu-byte elements: vectors per thread %u %u | %u %u | %u %u | %u %u | %u either side of "
                      "8 MiB, 16 MiB, 256 MiB and 1 GiB, and at 64 GiB (want %u %u | %u %u | %u %u | %u %u | %u)",
                      pipelined_ok ? "sm_90" : "before sm_90", elem, got[0], got[1], got[2], got[3], got[4], got[5],
                      got[6], got[7], got[8], want[0], want[1], want[2], want[3], want[4], want[5], want[6], want[7],
                      want[8]);
        }
}

/* The 4-byte partition takes 32 KiB pipelined tiles from 16 MiB to below
 * 128 MiB; other sizes, element sizes and devices plan as the other
 * modes do. */
static void check_partition_shapes(void)
{
    static const size_t elems[] = {1, 2, 4, 8};
    const size_t sizes[] = {WK_SELECT_PIPELINED_FROM_BYTES - 16, WK_SELECT_PIPELINED_FROM_BYTES,
                            WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES - 16, WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES,
                            WK_SELECT_STAGED_FROM_BYTES};
    for (int pipelined_ok = 0; pipelined_ok <= 1; ++pipelined_ok)
        for (size_t e = 0; e < 4; ++e)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                const size_t elem = elems[e], n = sizes[s] / elem;
                wk_tile_plan other, part;
                /* One element past a 16-byte boundary. */
                wk_plan_select_for(0x10000 + elem, n, elem, 0, pipelined_ok, &other);
                wk_plan_select_for(0x10000 + elem, n, elem, 1, pipelined_ok, &part);
                const int short_tiles = pipelined_ok && elem == 4 && s >= 1 && s <= 2;
                const unsigned want_vectors = short_tiles ? WK_SELECT_PIPELINED_PARTITION_VECTORS : other.vectors;
                wk_checkf(&tally,
                          part.vectors == want_vectors && part.block == other.block &&
                              part.pipelined == other.pipelined && part.offset == other.offset &&
                              part.tile_elems == part.block * part.vectors * (16 / elem) &&
                              part.tiles == (part.offset + n + part.tile_elems - 1) / part.tile_elems,
                          "%s: partition of %zu %zu-byte elements: %u threads x %u vectors, %zu tiles (want %u "
                          "vectors; other modes %u x %u)",
                          pipelined_ok ? "sm_90" : "before sm_90", n, elem, part.block, part.vectors, part.tiles,
                          want_vectors, other.block, other.vectors);
            }
    /* The context's status words cover the partition's tiles. */
    const size_t n = WK_SELECT_PIPELINED_FROM_BYTES / 4;
    wk_tile_plan part;
    wk_plan_select_for(0x1000c, n, 4, 1, 1, &part);
    wk_checkf(&tally, wk_select_max_tiles(n, 4) >= part.tiles, "the most tiles of %zu 4-byte elements, %zu, cover "
              "the partition's %zu", n, wk_select_max_tiles(n, 4), part.tiles);
}

/* A 4-byte partition in the short tiles with one element in its last tile
 * (both lists), and the full list's partitions either side of 128 MiB. */
static void check_partition_edges(const wk_select_case *cases, size_t count, int full)
{
    const size_t change = WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES / 4;
    int one_in_last = 0, below = 0, at = 0;
    for (size_t i = 0; i < count; ++i) {
        const wk_select_case *c = &cases[i];
        if (c->mode != WK_REF_PARTITION_IF || wk_dtype_size(c->dtype) != 4)
            continue;
        wk_tile_plan p;
        wk_plan_select(0x10000 + c->in_offset * 4, c->n, 4, 1, &p);
        one_in_last |= p.pipelined && p.vectors == WK_SELECT_PIPELINED_PARTITION_VECTORS && p.offset != 0 &&
                       p.offset + c->n - (p.tiles - 1) * p.tile_elems == 1;
        below |= c->n == change - 1;
        at |= c->n == change;
    }
    wk_checkf(&tally, one_in_last, "%s: a 4-byte partition in the short pipelined tiles with one element in its last "
              "tile", full ? "full" : "quick");
    if (full)
        wk_checkf(&tally, below && at, "full: 4-byte partitions of 128 MiB less one element (%d) and of 128 MiB (%d)",
                  below, at);
}

/* Per mode, a case one element below the pipelined tiles, one at their
 * first size (in place where the mode allows, starting inside a vector
 * for 4-byte dtypes), and one that starts inside a vector, has more than
 * twice the first size's tiles (more than blocks claim at their start on
 * a GPU of up to 170 SMs) and whose last tile holds a single element; the
 * quick list has the last for the flagged select and unique, on 4-byte
 * dtypes. */
static void check_pipelined_edges(const wk_select_case *cases, size_t count, int full)
{
    int below[MODES] = {0}, at[MODES] = {0}, one_in_last[MODES] = {0}, four_byte[MODES] = {0};
    for (size_t i = 0; i < count; ++i) {
        const wk_select_case *c = &cases[i];
        size_t elem = wk_dtype_size(c->dtype), edge = WK_SELECT_PIPELINED_FROM_BYTES / elem;
        if (elem <= 2)
            continue;
        wk_tile_plan p;
        wk_plan_select(0x10000 + c->in_offset * elem, c->n, elem, c->mode == WK_REF_PARTITION_IF, &p);
        const int in_place_ok = wk_ref_select_in_place_ok(c->mode);
        below[c->mode] |= c->n == edge - 1 && !p.pipelined;
        at[c->mode] |= c->n == edge && p.pipelined && c->in_place == in_place_ok && (elem == 8 || p.offset != 0);
        const int last = p.pipelined && p.offset != 0 && c->n > 2 * edge &&
                         p.offset + c->n - (p.tiles - 1) * p.tile_elems == 1;
        one_in_last[c->mode] |= last;
        four_byte[c->mode] |= last && elem == 4;
    }
    int modes_below = 0, modes_at = 0, modes_last = 0;
    for (int m = 0; m < MODES; ++m) {
        modes_below += below[m];
        modes_at += at[m];
        modes_last += one_in_last[m];
    }
    if (full)
        wk_checkf(&tally, modes_below == MODES && modes_at == MODES && modes_last == MODES,
                  "full: per mode, a select one element below the pipelined tiles (%d of %d modes), at their first "
                  "size (%d), and one of more than twice its tiles starting inside a vector with one element in "
                  "its last tile (%d)",
                  modes_below, MODES, modes_at, modes_last);
    else
        wk_checkf(&tally, four_byte[WK_REF_SELECT_FLAGGED] && four_byte[WK_REF_UNIQUE],
                  "quick: a 4-byte flagged select (%d) and unique (%d) of more than twice the first pipelined "
                  "size's tiles with one element in the last tile",
                  four_byte[WK_REF_SELECT_FLAGGED], four_byte[WK_REF_UNIQUE]);
}

/* Either side of the change to staged tiles, per mode on a 4-byte dtype,
 * and inputs whose last tile ends inside its shared-memory part (after the
 * register part, before the tile's end), in either staged shape; and the
 * last size before the 128 KiB staged tiles. */
static void check_staged_edges(const wk_select_case *cases, size_t count, int full)
{
    const size_t edge = WK_SELECT_STAGED_MID_FROM_BYTES / 4, deep_edge = WK_SELECT_STAGED_FROM_BYTES / 4;
    int before[MODES] = {0}, at_edge[MODES] = {0}, ends_in_stage[2][MODES] = {{0}}, before_deep = 0;
    for (size_t i = 0; i < count; ++i) {
        const wk_select_case *c = &cases[i];
        if (wk_dtype_size(c->dtype) != 4)
            continue;
        wk_tile_plan p; /* the staged tiles come before sm_90 only */
        wk_plan_select_for(0x10000 + c->in_offset * 4, c->n, 4, 0, 0, &p);
        size_t last = p.offset + c->n - (p.tiles - 1) * p.tile_elems;
        size_t in_registers = (size_t)p.block * WK_SELECT_STAGED_REGISTER_VECTORS * 4;
        int in_stage = last > in_registers && last < p.tile_elems;
        before[c->mode] |= c->n == edge - 1;
        at_edge[c->mode] |= c->n == edge && p.vectors == WK_SELECT_STAGED_MID_VECTORS;
        ends_in_stage[0][c->mode] |= p.vectors == WK_SELECT_STAGED_MID_VECTORS && in_stage;
        ends_in_stage[1][c->mode] |= p.vectors == WK_SELECT_STAGED_VECTORS && in_stage;
        before_deep |= c->n == deep_edge - 1 && p.vectors == WK_SELECT_STAGED_MID_VECTORS;
    }
    int modes_before = 0, modes_at = 0, modes_mid = 0, modes_deep = 0;
    for (int m = 0; m < MODES; ++m) {
        modes_before += before[m];
        modes_at += at_edge[m];
        modes_mid += ends_in_stage[0][m];
        modes_deep += ends_in_stage[1][m];
    }
    if (full)
        wk_checkf(&tally,
                  modes_before == MODES && modes_at == MODES && modes_mid == MODES && modes_deep == MODES &&
                      before_deep,
                  "full: per mode, a 4-byte select one element below the staged tiles (%d of %d modes), at their "
                  "first size (%d), with its last tile ending in its shared-memory part in 48 KiB tiles (%d) and "
                  "in 128 KiB ones (%d); one element below the 128 KiB tiles (%d)",
                  modes_before, MODES, modes_at, modes_mid, modes_deep, before_deep);
    else
        wk_checkf(&tally, modes_mid >= 1,
                  "quick: a 4-byte select whose last staged tile ends in its shared-memory part (%d modes)",
                  modes_mid);
}

static void check_huge(uint64_t seed)
{
    size_t count = wk_select_huge_cases(seed, NULL, 0);
    wk_select_case cases[8];
    wk_checkf(&tally, count == 4, "huge: 4 cases (%zu)", count);
    if (count != 4)
        return;
    wk_select_huge_cases(seed, cases, count);
    int if_ok = 0, unique_ok = 0, where_ok = 0, staged_ok = 0;
    for (size_t i = 0; i < count; ++i) {
        const wk_select_case *c = &cases[i];
        staged_ok |= c->dtype == WK_I32 && c->mode == WK_REF_SELECT_IF && c->n == SIZE_2_31 + 7 && c->in_place;
        if (c->dtype != WK_F16)
            continue;
        if_ok |= c->mode == WK_REF_SELECT_IF && c->n == SIZE_2_31 + 9 && c->keep == WK_KEEP_HALF;
        unique_ok |= c->mode == WK_REF_UNIQUE && c->n == SIZE_2_31 + 3 && c->in_place;
        where_ok |= c->mode == WK_REF_WHERE && c->n == SIZE_2_31 + 5 && c->keep == WK_KEEP_1PCT;
    }
    wk_checkf(&tally, if_ok && unique_ok && where_ok && staged_ok,
              "huge: select_if f16 2^31 + 9 at 50 %% (%d), unique f16 in place 2^31 + 3 (%d), where f16 2^31 + 5 at "
              "1 %% (%d), select_if i32 in place 2^31 + 7 (%d)",
              if_ok, unique_ok, where_ok, staged_ok);
}

/* ---------------------------------------------------------------- data */

/* What the data of a list holds, across its cases. */
typedef struct data_tally {
    size_t cases, elements, wrong_cases;
    size_t nan[WK_DTYPE_COUNT][MODES], neg_zero[WK_DTYPE_COUNT][MODES], pos_zero[WK_DTYPE_COUNT][MODES];
    size_t off_fraction, bad_constant;
    size_t bools, bad_bools; /* bool cases, and those with a byte or constant other than 0 or 1 */
} data_tally;

static int element_is_nan(const void *h, size_t i, wk_dtype d) { return is_float(d) && isnan(wk_ref_load(h, i, d)); }

/* Whether the reference keeps element i of the case's data: the predicate,
 * the flag, or unequal to the element before it (by value: -0.0 == +0.0,
 * NaN equal to nothing). */
static int reference_keeps(const wk_select_case *c, const unsigned char *h, const uint8_t *flags, size_t i)
{
    size_t elem = wk_dtype_size(c->dtype);
    switch (c->mode) {
    case WK_REF_SELECT_FLAGGED: return flags[i] != 0;
    case WK_REF_UNIQUE: return i == 0 || !(wk_ref_load(h, i, c->dtype) == wk_ref_load(h, i - 1, c->dtype));
    default: return wk_ref_predicate_holds(h + i * elem, c->dtype, &c->predicate);
    }
}

/* The fraction kept, for the patterns that draw per element, within
 * bounds a correct draw misses with probability far below 1e-9. */
static int fraction_plausible(const wk_select_case *c, size_t kept)
{
    double p = c->keep == WK_KEEP_1PCT ? 0.01 : c->keep == WK_KEEP_HALF ? 0.5 : c->keep == WK_KEEP_99PCT ? 0.99 : -1;
    if (p < 0 || c->n < 10000)
        return 1;
    double mean = p * (double)c->n, sd = sqrt((double)c->n * p * (1 - p));
    return fabs((double)kept - mean) <= 7 * sd + 1;
}

static void check_data(const wk_select_case *c, data_tally *t)
{
    size_t elem = wk_dtype_size(c->dtype);
    unsigned char *h = malloc(c->n * elem + 1);
    uint8_t *flags = malloc(c->n + 1);
    if (!h || !flags) {
        printf("FAIL cannot allocate the data of a case of %zu elements\n", c->n);
        exit(1);
    }
    wk_select_case_data(c, h, flags);
    size_t kept = 0, first_wrong = SIZE_MAX;
    int m = (int)c->mode, d = (int)c->dtype;
    for (size_t i = 0; i < c->n; ++i) {
        int want = wk_select_case_keeps(c, i), got = reference_keeps(c, h, flags, i);
        kept += (size_t)got;
        if (want != got && first_wrong == SIZE_MAX)
            first_wrong = i;
        if (element_is_nan(h, i, c->dtype))
            t->nan[d][m]++;
        else if (is_float(c->dtype) && wk_ref_load(h, i, c->dtype) == 0)
            (signbit(wk_ref_load(h, i, c->dtype)) ? t->neg_zero : t->pos_zero)[d][m]++;
    }
    /* The keep pattern of a NaN constant follows from the compare. */
    int constant_ok = 1;
    if (wk_ref_select_uses_predicate(c->mode) && c->predicate.compare <= WK_IN_RANGE) {
        int a_nan = element_is_nan(&c->predicate.a, 0, c->dtype);
        long double a = wk_ref_load(&c->predicate.a, 0, c->dtype);
        int b_nan = c->predicate.compare == WK_IN_RANGE && element_is_nan(&c->predicate.b, 0, c->dtype);
        if (c->special == WK_SELECT_NAN_CONSTANT)
            constant_ok = (a_nan || b_nan) &&
                          c->keep == (c->predicate.compare == WK_NOT_EQUAL ? WK_KEEP_ALL : WK_KEEP_NONE);
        if (c->special == WK_SELECT_INF_CONSTANT)
            constant_ok = isinf(a);
        if (c->special == WK_SELECT_SIGNED_ZERO)
            constant_ok = c->predicate.compare == WK_IN_RANGE
                              ? (a == 0 || wk_ref_load(&c->predicate.b, 0, c->dtype) == 0)
                              : a == 0;
    }
    t->bad_constant += !constant_ok;
    if (c->dtype == WK_BOOL) {
        int bytes_ok = 1;
        for (size_t i = 0; i < c->n; ++i)
            bytes_ok &= h[i] <= 1;
        if (wk_ref_select_uses_predicate(c->mode))
            bytes_ok &= c->predicate.a.b <= 1 && (c->predicate.compare != WK_IN_RANGE || c->predicate.b.b <= 1);
        t->bools++;
        t->bad_bools += !bytes_ok;
    }
    int plausible = fraction_plausible(c, kept);
    t->off_fraction += !plausible;
    t->cases++;
    t->elements += c->n;
    if (first_wrong != SIZE_MAX || !plausible || !constant_ok) {
        char name[256];
        wk_describe_select_case(c, name, sizeof name);
        if (t->wrong_cases++ < 10)
            printf("  data of %s: %s%zu kept of %zu%s%s\n", name,
                   first_wrong != SIZE_MAX ? "keep pattern not met, " : "", kept, c->n,
                   plausible ? "" : ", implausible for its selectivity", constant_ok ? "" : ", wrong constant");
        if (first_wrong != SIZE_MAX)
            printf("    first at element %zu: drawn to %s\n", first_wrong,
                   wk_select_case_keeps(c, first_wrong) ? "keep" : "drop");
    }
    free(h);
    free(flags);
}

/* Every case up to `limit` elements. */
static void check_list_data(const char *name, const wk_select_case *cases, size_t count, size_t limit)
{
    data_tally t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < count; ++i)
        if (cases[i].n <= limit)
            check_data(&cases[i], &t);
    wk_checkf(&tally, t.wrong_cases == 0,
              "%s: the data of %zu cases (%zu elements) keeps exactly what its pattern says, at a plausible "
              "fraction, with the constant its special names (%zu cases not)",
              name, t.cases, t.elements, t.wrong_cases);
    wk_checkf(&tally, t.bools > 0 && t.bad_bools == 0,
              "%s: the %zu bool cases hold bytes 0 and 1 only, and constants 0 or 1 (%zu not)", name, t.bools,
              t.bad_bools);

    size_t missing = 0;
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        if (!is_float((wk_dtype)d))
            continue;
        for (int m = 0; m < MODES; ++m) {
            if (m == WK_REF_SELECT_FLAGGED)
                continue;
            int nan_cases = 0, zero_cases = 0;
            for (size_t i = 0; i < count; ++i) {
                if ((int)cases[i].dtype != d || (int)cases[i].mode != m || cases[i].n > limit)
                    continue;
                nan_cases |= cases[i].special == WK_SELECT_NAN_DATA;
                zero_cases |= cases[i].special == WK_SELECT_SIGNED_ZERO;
            }
            if (nan_cases && t.nan[d][m] == 0) {
                printf("  %s %s: NaN-data cases without a NaN\n", wk_dtype_name((wk_dtype)d),
                       wk_ref_select_mode_name((wk_ref_select_mode)m));
                missing++;
            }
            if (zero_cases && (t.neg_zero[d][m] == 0 || t.pos_zero[d][m] == 0)) {
                printf("  %s %s: signed-zero cases without both zeros\n", wk_dtype_name((wk_dtype)d),
                       wk_ref_select_mode_name((wk_ref_select_mode)m));
                missing++;
            }
        }
    }
    wk_checkf(&tally, missing == 0, "%s: NaN-data cases hold NaNs, signed-zero cases both zeros (%zu without)", name,
              missing);
}

/* Element i depends on the case and i alone: the same case gives the same
 * bytes, another seed others. */
static void check_repeatable(const wk_select_case *c)
{
    size_t elem = wk_dtype_size(c->dtype), bytes = c->n * elem;
    unsigned char *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    uint8_t *fa = malloc(c->n + 1), *fb = malloc(c->n + 1);
    wk_select_case_data(c, a, fa);
    wk_select_case_data(c, b, fb);
    int same = memcmp(a, b, bytes) == 0 && (c->mode != WK_REF_SELECT_FLAGGED || memcmp(fa, fb, c->n) == 0);
    wk_select_case other = *c;
    other.seed ^= 1;
    wk_select_case_data(&other, b, fb);
    int differs = memcmp(a, b, bytes) != 0;
    char name[256];
    wk_describe_select_case(c, name, sizeof name);
    wk_checkf(&tally, same && differs, "the data of %s repeats for its seed and differs for another", name);
    free(a);
    free(b);
    free(fa);
    free(fb);
}

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed %" PRIu64 " (set WK_SEED to repeat)\n", seed);

    size_t quick_count, full_count;
    wk_select_case *quick = list_of(WK_CASES_QUICK, seed, &quick_count);
    wk_select_case *full = list_of(WK_CASES_FULL, seed, &full_count);
    coverage cv;

    gather(quick, quick_count, &cv);
    wk_checkf(&tally, quick_count >= 150 && quick_count <= 300 && cv.over_2_20 <= WK_DTYPE_COUNT + 4,
              "quick: %zu cases (150 to 300), %d of them over 2^20 elements (at most one per dtype, the staged "
              "tiles' one, the pipelined tiles' two and the partition's short tiles' one)",
              quick_count, cv.over_2_20);
    check_coverage("quick", &cv, 0);
    check_list_data("quick", quick, quick_count, (size_t)1 << 20);

    gather(full, full_count, &cv);
    wk_checkf(&tally, full_count > quick_count, "full: %zu cases, %d of them over 2^20 elements", full_count,
              cv.over_2_20);
    check_coverage("full", &cv, 1);
    check_tile_sizes(full, full_count);
    check_shapes();
    check_staged_edges(quick, quick_count, 0);
    check_staged_edges(full, full_count, 1);
    check_pipelined_edges(quick, quick_count, 0);
    check_pipelined_edges(full, full_count, 1);
    check_partition_shapes();
    check_partition_edges(quick, quick_count, 0);
    check_partition_edges(full, full_count, 1);
    check_list_data("full", full, full_count, 200000);

    check_huge(seed);
    /* Cases whose data two seeds cannot reasonably draw alike: many
     * elements, half from each side of the predicate. */
    for (size_t i = 0; i < quick_count; i += 3)
        if (quick[i].n >= 1000 && quick[i].keep == WK_KEEP_HALF)
            check_repeatable(&quick[i]);

    free(quick);
    free(full);
    return wk_tally_finish(&tally);
}
