/* The scan's tile-status slots: allocation, growth and release. */
#include "scan_slots.h"

#include "context.h"
#include "internal.h"
#include "scan/plan.h"
#include "validate.h"

#include <cuda_runtime.h>
#include <stdlib.h>

/* Growth is by half again at least, so 48 replacements cover any size the
 * tile limit allows. */
#define RETIRED_MAX 48

typedef struct slot_buffer {
    void *memory;
    int stream_ordered; /* from cudaMallocAsync */
} slot_buffer;

struct wk_scan_slots {
    slot_buffer current;
    size_t tiles;
    slot_buffer retired[RETIRED_MAX];
    size_t retired_count;
};

static size_t narrow_bytes(size_t tiles) { return (tiles * 8 + 255) / 256 * 256; }
static size_t total_bytes(size_t tiles) { return narrow_bytes(tiles) + tiles * 16; }

static void release(const slot_buffer *b)
{
    if (!b->memory)
        return;
    if (b->stream_ordered)
        cudaFreeAsync(b->memory, 0);
    else
        cudaFree(b->memory);
}

extern "C" wk_status wk_scan_slots_create(wk_context *ctx)
{
    ctx->scan_slots = static_cast<wk_scan_slots *>(calloc(1, sizeof(wk_scan_slots)));
    if (!ctx->scan_slots)
        return wk_fail(WK_ERROR_OUT_OF_MEMORY, "wk_create: host allocation failed");
    /* Inputs up to 128 MiB then need no growth. */
    return wk_scan_slots_cover(ctx, wk_scan_max_tiles((size_t)128 << 20, 1), 1, 0, "workspace set-up");
}

extern "C" void wk_scan_slots_destroy(wk_context *ctx)
{
    wk_scan_slots *s = ctx->scan_slots;
    if (!s)
        return;
    release(&s->current);
    for (size_t i = 0; i < s->retired_count; ++i)
        release(&s->retired[i]);
    cudaDeviceSynchronize();
    free(s);
    ctx->scan_slots = NULL;
}

extern "C" wk_status wk_scan_slots_cover(wk_context *ctx, size_t tiles, int may_sync, cudaStream_t stream,
                                         const char *fn)
{
    wk_scan_slots *s = ctx->scan_slots;
    if (tiles <= s->tiles)
        return WK_SUCCESS;
    if (s->current.memory && s->retired_count == RETIRED_MAX)
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: the scan workspace has grown too often", fn);
    size_t grown = s->tiles + s->tiles / 2;
    if (grown > tiles)
        tiles = grown;
    size_t bytes = total_bytes(tiles);
    slot_buffer fresh = {NULL, !may_sync};
    cudaError_t err = may_sync ? cudaMalloc(&fresh.memory, bytes) : cudaMallocAsync(&fresh.memory, bytes, stream);
    if (err != cudaSuccess)
        return wk_cuda_fail(err, fn);
    /* A zero word never matches a call's stamp: nothing published. */
    err = may_sync ? cudaMemset(fresh.memory, 0, bytes) : cudaMemsetAsync(fresh.memory, 0, bytes, stream);
    if (err == cudaSuccess && may_sync)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        release(&fresh);
        return wk_cuda_fail(err, fn);
    }
    if (s->current.memory)
        s->retired[s->retired_count++] = s->current;
    s->current = fresh;
    s->tiles = tiles;
    return WK_SUCCESS;
}

extern "C" wk_tile_slots wk_scan_slots_view(const wk_context *ctx)
{
    const wk_scan_slots *s = ctx->scan_slots;
    char *base = static_cast<char *>(s->current.memory);
    wk_tile_slots v;
    v.state = ctx->scan_state;
    v.narrow = reinterpret_cast<unsigned long long *>(base);
    v.wide = reinterpret_cast<unsigned long long *>(base + narrow_bytes(s->tiles));
    v.capacity = s->tiles;
    return v;
}

wk_status wk_check_tile_count(size_t n, size_t elem, const char *fn)
{
    wk_status status = wk_check_extent(n, elem, fn);
    if (status == WK_SUCCESS && wk_scan_max_tiles(n, elem) > WK_SCAN_MAX_TILES)
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: n = %zu needs more than 2^29 tiles", fn, n);
    return status;
}

/* Growing enqueues an allocation, which a graph being captured must not
 * record behind the caller's back: such a call fails and asks for
 * wk_scan_reserve. */
wk_status wk_scan_slots_ensure(wk_context *ctx, size_t tiles, cudaStream_t stream, const char *fn)
{
    if (tiles <= ctx->scan_slots->tiles)
        return WK_SUCCESS;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err != cudaSuccess)
        return wk_cuda_fail(err, fn);
    if (capture != cudaStreamCaptureStatusNone)
        return wk_fail(WK_ERROR_UNSUPPORTED,
                       "%s: this input needs %zu tile slots and the context has %zu; call wk_scan_reserve "
                       "before capturing",
                       fn, tiles, ctx->scan_slots->tiles);
    return wk_scan_slots_cover(ctx, tiles, 0, stream, fn);
}
