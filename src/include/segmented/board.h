/* The device memory the split shapes coordinate through, in the stream's
 * workspace: counters that every launch leaves at zero, the list of long
 * segments found by the offsets shape, and one partial per piece. */
#ifndef WARPKIT_SEGMENTED_BOARD_H
#define WARPKIT_SEGMENTED_BOARD_H

#include "segmented/plan.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_seg_counters {
    unsigned long long next_batch;   /* batches (reduce: units) handed out         */
    unsigned long long batches_done; /* batches (reduce: units) finished           */
    unsigned long long listing;      /* reduce: entries << 32 | pieces, listed     */
    unsigned listed;                 /* scan: long segments put on the list        */
    unsigned table_ready;            /* 1 once the piece table is written          */
    unsigned next_item;              /* phase-2 items handed out                   */
    unsigned pieces;                 /* pieces of the split entries                */
    unsigned split_entries;          /* entries split into pieces (a prefix)       */
    unsigned entries;                /* entries on the list                        */
    unsigned warps_done;             /* warps that have finished                   */
    unsigned aggregated;             /* scans: pieces whose totals are written     */
    unsigned next_scan_item;         /* scans: second-pass items handed out        */
    unsigned reserved[1];
} wk_seg_counters;

typedef struct wk_seg_board {
    wk_seg_counters counters;                          /* 64 bytes             */
    /* First after the counters, so that 8- and 16-byte partials are aligned. */
    unsigned char partials[WK_SEG_PIECE_CAPACITY][16]; /* one per piece        */
    unsigned long long segment[WK_SEG_LIST_CAPACITY];  /* a listed segment's index */
    long long begin[WK_SEG_LIST_CAPACITY];             /* and its clamped range    */
    long long end[WK_SEG_LIST_CAPACITY];
    unsigned first_piece[WK_SEG_LIST_CAPACITY + 1];    /* its pieces' numbers      */
    unsigned piece_entry[WK_SEG_PIECE_CAPACITY];       /* reduce: a piece's entry + 1, 0 until listed */
    unsigned done[WK_SEG_SPLIT_ROWS];                  /* pieces finished, per segment */
} wk_seg_board;

#ifdef __cplusplus
}
static_assert(WK_SEG_SPLIT_ROWS >= WK_SEG_LIST_CAPACITY, "every listed segment has a counter");
static_assert(sizeof(wk_seg_counters) == 64, "the partials start 16-byte aligned");
static_assert(offsetof(wk_seg_board, partials) % 16 == 0, "the partials start 16-byte aligned");
#endif

#endif
