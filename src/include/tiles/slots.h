/* The tile-status workspace that chained launches (scan, select) share:
 * the words a tile publishes its value in, and the counter that orders
 * their use. Plain C: the host API owns them (src/api). */
#ifndef WARPKIT_TILES_SLOTS_H
#define WARPKIT_TILES_SLOTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Device words that let every call start without an initialisation launch.
 * A call's stamp is epoch + 1. `ticket` holds the low 30 bits of epoch in
 * its high half and the next tile number in its low half, so that one
 * relaxed atomic add gives a block both its tile and its call's stamp,
 * with no fence. The block that takes the last number advances epoch and
 * resets ticket for the next call, whose blocks cannot start before this
 * kernel has finished (tiles/order.cuh). Zero at context creation. */
typedef struct wk_tile_state {
    unsigned long long ticket;
    unsigned long long epoch;
} wk_tile_state;

/* One workspace's tile-status words and the state that orders their use
 * (src/api/workspace.h). The scans and selects of one stream share them, in
 * stream order, and every call stamps its words with a stamp no earlier
 * call used. */
typedef struct wk_tile_slots {
    wk_tile_state *state;
    unsigned long long *narrow;   /* one 8-byte word per tile: 4-byte values */
    unsigned long long *wide;     /* two 8-byte words per tile: 8-byte values */
    unsigned long long capacity;  /* tiles each family covers (>= plan.tiles) */
} wk_tile_slots;

#ifdef __cplusplus
}
#endif

#endif
