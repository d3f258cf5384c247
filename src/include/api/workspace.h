/* The context's workspaces. Every call in flight owns one: the reduce's
 * partials and ticket, the tile-status words of scans and selects, and a
 * host slot for results read back. Calls on one stream share its workspace (the stream orders them);
 * calls on other streams, and calls captured into a graph, get their own, so
 * no two kernels that may run at once ever touch the same device words.
 *
 *  - A stream keeps its workspace from its first call on. The context makes
 *    one at wk_create; a stream that finds none free gets a new one, made
 *    stream-ordered on that stream (cudaMallocAsync, no synchronization).
 *  - Once a context has WK_STREAM_WORKSPACES streams' workspaces, each call
 *    records an event after its launch; a new stream then takes over the
 *    least recently used idle workspace after waiting on that event, so a
 *    program that makes a stream per iteration does not grow without bound.
 *  - A call captured into a graph gets a workspace of its own capture and
 *    stream, held by the graph (a CUDA user object) until the graph and its
 *    executables are destroyed and their work is done; it then returns to
 *    the context for any later call.
 */
#ifndef WARPKIT_API_WORKSPACE_H
#define WARPKIT_API_WORKSPACE_H

#include "tiles/slots.h"
#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WK_STREAM_WORKSPACES 16

/* What one call uses; valid from wk_workspace_acquire to _release. */
typedef struct wk_workspace_use {
    struct wk_workspace *ws;
    void *partials;      /* reduce: wk_reduce_partial_slots() slots */
    unsigned *ticket;    /* reduce: last-block ticket (tiles: and the groups') */
    wk_tile_slots slots; /* scan and select: tile-status words      */
    struct wk_seg_board *board; /* segmented: counters, list and pieces */
} wk_workspace_use;

/* Sets up the context's workspaces and makes the first (allocates and
 * synchronizes). */
wk_status wk_workspaces_create(wk_context *ctx);

/* Frees every workspace, those held by graphs too. The caller has
 * synchronized the device. NULL-safe. */
void wk_workspaces_destroy(wk_context *ctx);

/* Takes the workspace of a call on `stream` whose scan or select covers
 * `tiles` tiles (0 for a reduce), growing its tile slots if needed. */
wk_status wk_workspace_acquire(wk_context *ctx, cudaStream_t stream, size_t tiles, wk_workspace_use *use,
                               const char *fn);

/* Ends the call: after its launch (or after a failure), on the same stream. */
void wk_workspace_release(wk_context *ctx, cudaStream_t stream, const wk_workspace_use *use);

/* Bytes of a workspace's host slot. */
#define WK_HOST_SLOT_BYTES 256

/* What a host-waiting call launches: a kernel on the use's stream that
 * stores the result at `slot`; `arg` is the caller's. */
typedef wk_status (*wk_read_back_launch)(const wk_workspace_use *use, void *slot, const void *arg);

/* The read-back of a call that waits for its result: takes the stream's
 * workspace, runs `launch` with the workspace's host slot (pinned host memory
 * that the device maps at the same address, made at the first use; a
 * kernel's store there reaches the host sooner than a cudaMemcpyAsync after
 * the kernel would), waits for the stream and copies `bytes` (at most
 * WK_HOST_SLOT_BYTES) of the slot to h_dst. Calls from several threads on
 * one stream take the slot one at a time. */
wk_status wk_workspace_read_back(wk_context *ctx, cudaStream_t stream, void *h_dst, size_t bytes,
                                 wk_read_back_launch launch, const void *arg, const char *fn);

/* Every workspace made from now on, and every one not held by a graph now,
 * covers `tiles` tiles. Allocates and synchronizes the device. */
wk_status wk_workspaces_reserve(wk_context *ctx, size_t tiles, const char *fn);

/* n elements of elem bytes fit the address space and a grid of at most
 * WK_SCAN_MAX_TILES tiles (one block per tile; the stale-word sweep of
 * tiles/order.cuh needs fewer than 2^30 tiles). */
wk_status wk_check_tile_count(size_t n, size_t elem, const char *fn);

#ifdef __cplusplus
}
#endif

#endif
