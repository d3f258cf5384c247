/* The scan's tile-status slots: one per tile of the largest scan so far,
 * owned by the context. */
#ifndef WARPKIT_SCAN_SLOTS_H
#define WARPKIT_SCAN_SLOTS_H

#include "scan/launch.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates the slots for inputs up to 128 MiB (synchronizes). */
wk_status wk_scan_slots_create(wk_context *ctx);

/* Frees every slot buffer the context ever had (synchronizes). NULL-safe. */
void wk_scan_slots_destroy(wk_context *ctx);

/* Makes the slots cover `tiles` tiles. With `may_sync` it allocates with
 * cudaMalloc and synchronizes; otherwise with stream-ordered allocation on
 * `stream`. Buffers replaced by a larger one are kept until the context is
 * destroyed: a CUDA graph captured earlier may still use them. */
wk_status wk_scan_slots_cover(wk_context *ctx, size_t tiles, int may_sync, cudaStream_t stream, const char *fn);

/* Where a launch finds its slots and their state: `capacity` 8-byte words
 * for dtypes whose values take 4 bytes, and `capacity` 16-byte words for
 * those whose values take 8. The two never share memory, so neither can
 * mistake the other's words for its own. */
wk_tile_slots wk_scan_slots_view(const wk_context *ctx);

/* Makes the slots cover `tiles` tiles before a call on `stream`, growing
 * them stream-ordered if needed; a stream being captured cannot grow them
 * (WK_ERROR_UNSUPPORTED). */
wk_status wk_scan_slots_ensure(wk_context *ctx, size_t tiles, cudaStream_t stream, const char *fn);

/* n elements of elem bytes fit the address space and a grid of at most
 * WK_SCAN_MAX_TILES tiles (one block per tile; the stale-word sweep of
 * scan/tile_order.cuh needs fewer than 2^30 tiles). */
wk_status wk_check_tile_count(size_t n, size_t elem, const char *fn);

#ifdef __cplusplus
}
#endif

#endif
