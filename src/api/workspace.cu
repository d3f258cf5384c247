/* The context's workspaces: which call uses which, how they are made, grown,
 * handed from stream to stream and returned by graphs (workspace.h). */
#include "api/workspace.h"

#include "api/context.h"
#include "api/error.h"
#include "reduce/launch.h"
#include "repro/launch.h"
#include "segmented/board.h"
#include "scan/plan.h"
#include "api/validate.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace {

size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Tile-status words: one 8-byte word per tile for 4-byte values, then two
 * per tile for 8-byte values; the two families never share memory. */
size_t narrow_bytes(size_t tiles) { return round_up(tiles * 8, 256); }
size_t slot_bytes(size_t tiles) { return narrow_bytes(tiles) + tiles * 16; }

struct buffer {
    void *memory = nullptr;
    bool stream_ordered = false; /* from cudaMallocAsync */
};

enum class owner { none, stream, graph };

} // namespace

struct wk_workspace {
    buffer fixed;  /* partials, ticket, scan state, segmented board */
    buffer slots;  /* tile-status words of `tiles` tiles         */
    size_t tiles = 0;
    std::vector<buffer> retired; /* replaced slot buffers: earlier launches and graphs may use them */
    void *partials = nullptr;
    unsigned *ticket = nullptr;
    wk_tile_state *scan_state = nullptr;
    wk_seg_board *board = nullptr;
    void *host_slot = nullptr; /* pinned and mapped, made by the first read-back */

    owner held_by = owner::none;
    unsigned long long stream_id = 0;  /* the stream that holds it (its handle, in a capture) */
    unsigned long long capture_id = 0; /* and its capture, for a graph                        */
    unsigned in_flight = 0;            /* calls between acquire and release */
    unsigned long long last_touch = 0;
    cudaEvent_t last_use = nullptr;    /* recorded after the last call ... */
    bool covered = false;              /* ... when this is set               */
    std::mutex result_lock;
};

namespace {
struct graph_hold;
}

struct wk_workspaces {
    std::mutex lock;
    std::atomic<int> refs{1}; /* the context's, and one per graph-held workspace */
    /* Workspaces that graphs have given back, pushed by the user objects'
     * destructors without a lock and taken in by the next acquire. */
    std::atomic<graph_hold *> returned{nullptr};
    std::vector<wk_workspace *> all;
    size_t stream_held = 0;   /* workspaces held by streams */
    size_t reserved_tiles = 0;
    unsigned long long clock = 0;
    size_t partial_bytes = 0;
    bool pools = false;       /* the device supports cudaMallocAsync */
    cudaStream_t quiet = nullptr; /* zeroes workspaces made during a capture */
};

namespace {

struct graph_hold {
    wk_workspaces *set;
    wk_workspace *ws; /* null: return nothing (a hold that never reached its graph) */
    graph_hold *next = nullptr;
};

/* The end of the returned list once wk_destroy has run: nothing is taken in
 * after that, so a destructor that finds it frees its hold at once. */
graph_hold *const closed_list = reinterpret_cast<graph_hold *>(alignof(graph_hold));

void drop_ref(wk_workspaces *set)
{
    if (set->refs.fetch_sub(1) == 1)
        delete set;
}

/* Runs on CUDA's internal thread once the graph and its executables are gone
 * and their work is done. It may make no CUDA call and must not block (host
 * functions of every stream wait behind it), so it only pushes the hold onto
 * the set's returned list. */
void CUDART_CB graph_released(void *p)
{
    graph_hold *h = static_cast<graph_hold *>(p);
    wk_workspaces *set = h->set;
    graph_hold *head = set->returned.load();
    do {
        if (head == closed_list) {
            delete h;
            drop_ref(set);
            return;
        }
        h->next = head;
    } while (!set->returned.compare_exchange_weak(head, h));
}

/* Takes in what graphs gave back (under the set's lock), or, with `close`,
 * ends the list for good. */
void take_returned(wk_workspaces *set, bool close)
{
    graph_hold *h = set->returned.exchange(close ? closed_list : nullptr);
    while (h && h != closed_list) {
        graph_hold *next = h->next;
        if (h->ws && !close) {
            h->ws->held_by = owner::none;
            h->ws->capture_id = 0;
        }
        delete h;
        drop_ref(set);
        h = next;
    }
}

/* While a capture is under way on this thread, CUDA refuses calls that
 * could synchronize (cudaMalloc, cudaFree, ...) unless the thread's mode is
 * relaxed; the mode is the caller's again when this goes out of scope. */
struct relaxed_capture_mode {
    bool active;
    cudaStreamCaptureMode previous = cudaStreamCaptureModeRelaxed;
    explicit relaxed_capture_mode(bool on) : active(on)
    {
        if (active)
            cudaThreadExchangeStreamCaptureMode(&previous);
    }
    ~relaxed_capture_mode()
    {
        if (active)
            cudaThreadExchangeStreamCaptureMode(&previous);
    }
};

/* How a workspace's memory is made: at wk_create and wk_scan_reserve, and
 * on devices without memory pools, with cudaMalloc, zeroed on `stream`; for
 * a call on a stream, stream-ordered on it; during a capture, outside the
 * graph (cudaMalloc, zeroed on the context's own stream, with the thread in
 * relaxed capture mode: see relaxed_capture_mode), so that nothing enters
 * the caller's graph. */
enum class alloc_mode { sync, stream_ordered, beside_capture };

cudaError_t alloc_zeroed(wk_workspaces *set, size_t bytes, alloc_mode mode, cudaStream_t stream, buffer *out)
{
    buffer b;
    cudaError_t err;
    if (mode == alloc_mode::stream_ordered) {
        b.stream_ordered = true;
        err = cudaMallocAsync(&b.memory, bytes, stream);
        if (err == cudaSuccess)
            err = cudaMemsetAsync(b.memory, 0, bytes, stream);
    } else if (mode == alloc_mode::beside_capture) {
        err = cudaMalloc(&b.memory, bytes);
        if (err == cudaSuccess)
            err = cudaMemsetAsync(b.memory, 0, bytes, set->quiet);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(set->quiet);
    } else {
        err = cudaMalloc(&b.memory, bytes);
        if (err == cudaSuccess)
            err = cudaMemsetAsync(b.memory, 0, bytes, stream);
    }
    if (err != cudaSuccess && b.memory) {
        if (b.stream_ordered)
            cudaFreeAsync(b.memory, stream);
        else
            cudaFree(b.memory);
        b.memory = nullptr;
    }
    *out = b;
    return err;
}

/* Stream-ordered memory goes back on `stream`, after the work queued there. */
void release_buffer(const buffer &b, cudaStream_t stream)
{
    if (!b.memory)
        return;
    if (b.stream_ordered)
        cudaFreeAsync(b.memory, stream);
    else
        cudaFree(b.memory);
}

void free_workspace(wk_workspace *ws, cudaStream_t stream)
{
    release_buffer(ws->fixed, stream);
    release_buffer(ws->slots, stream);
    for (const buffer &b : ws->retired)
        release_buffer(b, stream);
    if (ws->last_use)
        cudaEventDestroy(ws->last_use);
    if (ws->host_slot)
        cudaFreeHost(ws->host_slot);
    delete ws;
}

/* Growth is by half again at least, so that a few growths cover any size. */
cudaError_t grow_slots(wk_workspaces *set, wk_workspace *ws, size_t tiles, alloc_mode mode, cudaStream_t stream)
{
    if (tiles <= ws->tiles)
        return cudaSuccess;
    size_t grown = ws->tiles + ws->tiles / 2;
    if (grown > tiles)
        tiles = grown;
    buffer fresh;
    cudaError_t err = alloc_zeroed(set, slot_bytes(tiles), mode, stream, &fresh);
    if (err != cudaSuccess)
        return err;
    if (ws->slots.memory)
        ws->retired.push_back(ws->slots);
    ws->slots = fresh;
    ws->tiles = tiles;
    return cudaSuccess;
}

cudaError_t make_workspace(const wk_context *ctx, wk_workspaces *set, size_t tiles, alloc_mode mode,
                           cudaStream_t stream, wk_workspace **out)
{
    wk_workspace *ws = new (std::nothrow) wk_workspace;
    if (!ws)
        return cudaErrorMemoryAllocation;
    const size_t pb = set->partial_bytes;
    cudaError_t err = alloc_zeroed(set, pb + 2 * 256 + round_up(sizeof(wk_seg_board), 256), mode, stream, &ws->fixed);
    if (err == cudaSuccess) {
        char *base = static_cast<char *>(ws->fixed.memory);
        ws->partials = base;
        ws->ticket = reinterpret_cast<unsigned *>(base + pb);
        ws->scan_state = reinterpret_cast<wk_tile_state *>(base + pb + 256);
        ws->board = reinterpret_cast<wk_seg_board *>(base + pb + 512);
        size_t want = tiles > set->reserved_tiles ? tiles : set->reserved_tiles;
        err = grow_slots(set, ws, want, mode, stream);
    }
    if (err != cudaSuccess) {
        free_workspace(ws, stream);
        return err;
    }
    (void)ctx;
    *out = ws;
    return cudaSuccess;
}

wk_workspace *find_held(const wk_workspaces *set, owner by, unsigned long long stream_id,
                        unsigned long long capture_id)
{
    for (wk_workspace *ws : set->all)
        if (ws->held_by == by && ws->stream_id == stream_id && ws->capture_id == capture_id)
            return ws;
    return nullptr;
}

wk_workspace *find_free(const wk_workspaces *set)
{
    for (wk_workspace *ws : set->all)
        if (ws->held_by == owner::none)
            return ws;
    return nullptr;
}

/* The least recently used stream-held workspace that no call is using and
 * whose event marks the end of its last call. */
wk_workspace *find_idle(const wk_workspaces *set)
{
    wk_workspace *best = nullptr;
    for (wk_workspace *ws : set->all)
        if (ws->held_by == owner::stream && ws->in_flight == 0 && ws->covered &&
            (!best || ws->last_touch < best->last_touch))
            best = ws;
    return best;
}

/* Hands the graph being captured a reference that returns `ws` to the set
 * when the graph is gone. */
cudaError_t hold_for_graph(wk_workspaces *set, wk_workspace *ws, cudaGraph_t graph)
{
    graph_hold *h = new (std::nothrow) graph_hold{set, ws};
    if (!h)
        return cudaErrorMemoryAllocation;
    cudaUserObject_t object;
    cudaError_t err = cudaUserObjectCreate(&object, h, graph_released, 1, cudaUserObjectNoDestructorSync);
    if (err != cudaSuccess) {
        delete h;
        return err;
    }
    set->refs.fetch_add(1);
    /* The graph takes over the one reference: the destructor runs when it
     * and everything instantiated from it are destroyed. */
    err = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
    if (err != cudaSuccess) {
        h->ws = nullptr; /* the graph never held it: its destructor returns nothing */
        cudaUserObjectRelease(object, 1);
    }
    return err;
}

/* The workspace of a call on `stream`, under the set's lock. */
wk_status take_workspace(wk_context *ctx, wk_workspaces *set, cudaStream_t stream, unsigned long long stream_id,
                         bool capturing, unsigned long long capture_id, cudaGraph_t graph, size_t tiles,
                         wk_workspace **out, const char *fn)
{
    const owner by = capturing ? owner::graph : owner::stream;
    const alloc_mode mode = capturing     ? alloc_mode::beside_capture
                            : set->pools ? alloc_mode::stream_ordered
                                         : alloc_mode::sync;
    wk_workspace *ws = find_held(set, by, stream_id, capturing ? capture_id : 0);
    cudaError_t err = cudaSuccess;
    if (!ws) {
        ws = find_free(set);
        if (!ws && !capturing && set->stream_held >= WK_STREAM_WORKSPACES) {
            ws = find_idle(set);
            if (ws) {
                /* Taken over from another stream: start after its last call. */
                if ((err = cudaStreamWaitEvent(stream, ws->last_use, 0)) != cudaSuccess)
                    return wk_cuda_fail(err, fn);
                --set->stream_held;
            }
        }
        if (!ws) {
            if ((err = make_workspace(ctx, set, tiles, mode, stream, &ws)) != cudaSuccess)
                return wk_cuda_fail(err, fn);
            try {
                set->all.push_back(ws);
            } catch (...) {
                free_workspace(ws, stream);
                return wk_fail(WK_ERROR_OUT_OF_MEMORY, "%s: host allocation failed", fn);
            }
        }
        if (capturing && (err = hold_for_graph(set, ws, graph)) != cudaSuccess)
            return wk_cuda_fail(err, fn);
        ws->held_by = by;
        ws->stream_id = stream_id;
        ws->capture_id = capturing ? capture_id : 0;
        ws->covered = false;
        if (!capturing)
            ++set->stream_held;
    }
    if ((err = grow_slots(set, ws, tiles, mode, stream)) != cudaSuccess)
        return wk_cuda_fail(err, fn);
    *out = ws;
    return WK_SUCCESS;
}

} // namespace

extern "C" wk_status wk_workspaces_create(wk_context *ctx)
{
    wk_workspaces *set = new (std::nothrow) wk_workspaces;
    if (!set)
        return wk_fail(WK_ERROR_OUT_OF_MEMORY, "wk_create: host allocation failed");
    ctx->workspaces = set;
    /* Slots for the blocks of a reduce or of a reproducible sum. */
    size_t reduce_bytes = wk_reduce_partial_slots(ctx->sm_count) * WK_REDUCE_PARTIAL_BYTES;
    size_t repro_bytes = (size_t)ctx->sm_count * WK_REPRO_BLOCKS_PER_SM * WK_REPRO_PARTIAL_BYTES;
    set->partial_bytes = round_up(reduce_bytes > repro_bytes ? reduce_bytes : repro_bytes, 256);
    /* Inputs up to 128 MiB then need no growth. */
    set->reserved_tiles = wk_scan_max_tiles((size_t)128 << 20, 1);
    int pools = 0;
    cudaError_t err = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ctx->device);
    set->pools = err == cudaSuccess && pools != 0;
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&set->quiet, cudaStreamNonBlocking);
    wk_workspace *first = nullptr;
    if (err == cudaSuccess)
        err = make_workspace(ctx, set, 0, alloc_mode::sync, 0, &first);
    if (err == cudaSuccess) {
        try {
            set->all.push_back(first);
        } catch (...) {
            free_workspace(first, 0);
            return wk_fail(WK_ERROR_OUT_OF_MEMORY, "wk_create: host allocation failed");
        }
        err = cudaDeviceSynchronize();
    }
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, "workspace set-up");
}

extern "C" void wk_workspaces_destroy(wk_context *ctx)
{
    wk_workspaces *set = ctx->workspaces;
    if (!set)
        return;
    {
        std::lock_guard<std::mutex> g(set->lock);
        take_returned(set, true);
        for (wk_workspace *ws : set->all)
            free_workspace(ws, 0);
        set->all.clear();
        if (set->quiet)
            cudaStreamDestroy(set->quiet);
    }
    cudaDeviceSynchronize(); /* the stream-ordered frees */
    ctx->workspaces = nullptr;
    drop_ref(set);
}

extern "C" wk_status wk_workspace_acquire(wk_context *ctx, cudaStream_t stream, size_t tiles, wk_workspace_use *use,
                                          const char *fn)
{
    wk_workspaces *set = ctx->workspaces;
    unsigned long long stream_id = 0, capture_id = 0;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaGraph_t graph = nullptr;
    cudaError_t err = cudaStreamGetCaptureInfo(stream, &capture, &capture_id, &graph);
    /* A stream's id cannot be asked for during a capture; there the
     * handle, with the capture's id, names the branch. */
    if (err == cudaSuccess && capture == cudaStreamCaptureStatusNone)
        err = cudaStreamGetId(stream, &stream_id);
    else
        stream_id = (unsigned long long)(uintptr_t)stream;
    wk_status status = wk_capture_status(err, capture, fn);
    if (status != WK_SUCCESS)
        return status;
    const bool capturing = capture == cudaStreamCaptureStatusActive;

    std::lock_guard<std::mutex> g(set->lock);
    take_returned(set, false);
    relaxed_capture_mode mode(capturing);
    wk_workspace *ws = nullptr;
    status = take_workspace(ctx, set, stream, stream_id, capturing, capture_id, graph, tiles, &ws, fn);
    if (status != WK_SUCCESS)
        return status;
    ++ws->in_flight;
    ws->last_touch = ++set->clock;
    use->ws = ws;
    use->partials = ws->partials;
    use->ticket = ws->ticket;
    use->board = ws->board;
    char *base = static_cast<char *>(ws->slots.memory);
    use->slots.state = ws->scan_state;
    use->slots.narrow = reinterpret_cast<unsigned long long *>(base);
    use->slots.wide = reinterpret_cast<unsigned long long *>(base + narrow_bytes(ws->tiles));
    use->slots.capacity = ws->tiles;
    return WK_SUCCESS;
}

extern "C" void wk_workspace_release(wk_context *ctx, cudaStream_t stream, const wk_workspace_use *use)
{
    wk_workspaces *set = ctx->workspaces;
    wk_workspace *ws = use->ws;
    std::lock_guard<std::mutex> g(set->lock);
    if (ws->held_by == owner::stream) {
        /* Events only once another stream may need to take this one over. */
        bool record = set->stream_held >= WK_STREAM_WORKSPACES;
        if (record && !ws->last_use &&
            cudaEventCreateWithFlags(&ws->last_use, cudaEventDisableTiming) != cudaSuccess)
            ws->last_use = nullptr;
        ws->covered = record && ws->last_use && cudaEventRecord(ws->last_use, stream) == cudaSuccess;
    }
    --ws->in_flight;
}

/* The workspace's host slot, made at its first use; under the result lock. */
static wk_status host_slot(const wk_workspace_use *use, void **slot, const char *fn)
{
    wk_workspace *ws = use->ws;
    if (!ws->host_slot) {
        void *p = nullptr;
        cudaError_t err = cudaHostAlloc(&p, WK_HOST_SLOT_BYTES, cudaHostAllocMapped | cudaHostAllocPortable);
        void *mapped = nullptr;
        if (err == cudaSuccess)
            err = cudaHostGetDevicePointer(&mapped, p, 0);
        /* The kernels store through the host address itself (unified addressing). */
        if (err == cudaSuccess && mapped != p)
            err = cudaErrorNotSupported;
        if (err != cudaSuccess) {
            if (p)
                cudaFreeHost(p);
            return wk_cuda_fail(err, fn);
        }
        ws->host_slot = p;
    }
    *slot = ws->host_slot;
    return WK_SUCCESS;
}

extern "C" wk_status wk_workspace_read_back(wk_context *ctx, cudaStream_t stream, void *h_dst, size_t bytes,
                                             wk_read_back_launch launch, const void *arg, const char *fn)
{
    if (bytes > WK_HOST_SLOT_BYTES)
        return wk_fail(WK_ERROR_LIMIT, "%s: a read-back of %zu bytes is more than the host slot's %d", fn, bytes,
                       WK_HOST_SLOT_BYTES);
    wk_workspace_use use;
    wk_status status = wk_workspace_acquire(ctx, stream, 0, &use, fn);
    if (status != WK_SUCCESS)
        return status;
    {
        std::lock_guard<std::mutex> g(use.ws->result_lock);
        void *slot = nullptr;
        status = host_slot(&use, &slot, fn);
        if (status == WK_SUCCESS)
            status = launch(&use, slot, arg);
        if (status == WK_SUCCESS) {
            cudaError_t err = cudaStreamSynchronize(stream);
            if (err == cudaSuccess)
                memcpy(h_dst, slot, bytes);
            else
                status = wk_cuda_fail(err, fn);
        }
    }
    wk_workspace_release(ctx, stream, &use);
    return status;
}

extern "C" wk_status wk_workspaces_reserve(wk_context *ctx, size_t tiles, const char *fn)
{
    wk_workspaces *set = ctx->workspaces;
    std::lock_guard<std::mutex> g(set->lock);
    if (tiles > set->reserved_tiles)
        set->reserved_tiles = tiles;
    for (wk_workspace *ws : set->all) {
        if (ws->held_by == owner::graph)
            continue;
        cudaError_t err = grow_slots(set, ws, tiles, alloc_mode::sync, 0);
        if (err != cudaSuccess)
            return wk_cuda_fail(err, fn);
    }
    cudaError_t err = cudaDeviceSynchronize();
    return err == cudaSuccess ? WK_SUCCESS : wk_cuda_fail(err, fn);
}

wk_status wk_check_tile_count(size_t n, size_t elem, const char *fn)
{
    wk_status status = wk_check_extent(n, elem, fn);
    if (status == WK_SUCCESS && wk_scan_max_tiles(n, elem) > WK_SCAN_MAX_TILES)
        return wk_fail(WK_ERROR_LIMIT, "%s: n = %zu needs more than 2^29 tiles", fn, n);
    return status;
}
