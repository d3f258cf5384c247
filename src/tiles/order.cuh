/* How the blocks of a chained launch (scan, select) get their tile numbers
 * and their call's stamp, and how the status words stay fresh without an
 * initialisation launch. */
#ifndef WARPKIT_TILES_ORDER_CUH
#define WARPKIT_TILES_ORDER_CUH

#include "tiles/slots.h"

#include <cuda/atomic>

namespace wk {
namespace tiles {

/* The context's tile-status words and their state (tiles/slots.h). */
using tile_slots = wk_tile_slots;

/* Status words keep 30 bits of stamp, so a word left untouched for 2^30
 * calls could look current. Each call clears, in both families, the words
 * of tile stamp % capacity, unless it uses them itself; every word is then
 * rewritten or cleared at least once in `capacity` calls, whichever family
 * the calls in between used, and capacity stays below 2^30: at most
 * WK_SCAN_MAX_TILES (2^29) grown by half. */
__device__ inline void sweep_stale(const tile_slots &slots, unsigned long long stamp, unsigned long long tiles,
                                   bool wide)
{
    unsigned long long k = stamp % slots.capacity;
    bool in_use = k < tiles;
    if (!(in_use && !wide))
        slots.narrow[k] = 0ull;
    if (!(in_use && wide)) {
        slots.wide[2 * k] = 0ull;
        slots.wide[2 * k + 1] = 0ull;
    }
}

/* Run by one thread of a block for each tile number it claims. Numbers
 * come from a counter, in the order they are claimed, so every tile a
 * block waits on is held by a block that is already running. Tile and
 * stamp come from one relaxed atomic add on `ticket`: one word needs no
 * ordering between two, and a fenced add costs more. A call makes `claims` claims in all: one per block
 * for the chained kernels, and for the pipelined ones (pipeline.cuh)
 * one per tile plus one per block that finds no tile left. The claim that
 * takes the last number knows every claim of the call has been made; it
 * advances the epoch, resets the ticket and sweeps. The next call's blocks
 * wait for this kernel to finish (griddepcontrol.wait, or plain stream
 * order) before they touch either word. `tiles`: the call's tiles; `wide`:
 * the call's values take two words per tile. */
__device__ inline unsigned long long claim_tile(const tile_slots &slots, bool wide, unsigned long long tiles,
                                                unsigned long long claims, unsigned long long *stamp_out)
{
    constexpr unsigned long long stamp_mask = 0x3fffffffull;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ticket(slots.state->ticket);
    const unsigned long long taken_word = ticket.fetch_add(1ull, cuda::memory_order_relaxed);
    const unsigned long long taken = taken_word & 0xffffffffull;
    *stamp_out = ((taken_word >> 32) + 1) & stamp_mask;
    if (taken == claims - 1) {
        const unsigned long long stamp = slots.state->epoch + 1; /* this call's, in full */
        slots.state->epoch = stamp;
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slots.state->ticket)
            .store((stamp & stamp_mask) << 32, cuda::memory_order_relaxed);
        sweep_stale(slots, stamp, tiles, wide);
    }
    return taken;
}

} // namespace tiles
} // namespace wk

#endif
