/* GPU test of the checks every entry point shares, over all of them (each
 * call of include/warpkit.h that takes a stream, and wk_scan_reserve):
 *
 *  - sizes over the limits (any input, output or array of more than 2^62
 *    bytes; counts and strides whose products overflow; wk_copy_to_host's
 *    256 bytes): WK_ERROR_LIMIT with a message, no graph node when the call
 *    is captured (nothing launched), no byte of the outputs changed;
 *  - capture states: on a capture the application broke, and on the legacy
 *    stream while another stream is captured in global mode, every call
 *    returns WK_ERROR_CAPTURE with a message and changes nothing; the calls
 *    that wait for the host also refuse a capture that is fine, and leave it
 *    fine, with nothing in it.
 *
 * The capture states are not tried at the quick level (the sanitizers'):
 * breaking a capture takes failing CUDA calls, which they count as errors.
 * Exits 77 without a device. */
#include "gpu/api_test_util.h"
#include "test_util.h"
#include "warpkit.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BUF_BYTES 65536
#define SMALL_N 1000

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;
static unsigned char *d_in, *d_out, *h_out;
static int64_t *d_begin, *d_end;

/* What one probe hands a call: a size, or segments. */
typedef struct probe {
    const char *what;
    size_t n;
    wk_segments seg;
} probe;

/* How a call reads its size, and so which sizes are over its limits. */
typedef enum size_kind {
    ELEMENTS,      /* n f32 elements                           */
    PARTIALS,      /* count wk_repro_partial (64 bytes each)    */
    BYTES,         /* wk_copy_to_host's bytes                  */
    SEGMENTS,      /* segments whose input is too large        */
    SEGMENTS_OUT   /* and, for one result each, too many rows  */
} size_kind;

typedef struct entry {
    const char *name;
    wk_status (*call)(const probe *p, cudaStream_t s);
    size_kind kind;
    int waits; /* waits for the host: refuses every capture */
} entry;

static const wk_predicate positive = {WK_GREATER, {0}, {0}};
static uint64_t *count_at(void) { return (uint64_t *)(d_out + BUF_BYTES / 2); }
static const void *partials(void) { return d_in; }

static wk_status c_reduce(const probe *p, cudaStream_t s) { return wk_reduce(ctx, d_in, d_out, p->n, WK_F32, WK_SUM, s); }
static wk_status c_to_host(const probe *p, cudaStream_t s)
{
    return wk_reduce_to_host(ctx, d_in, h_out, p->n, WK_F32, WK_SUM, s);
}
static wk_status c_index(const probe *p, cudaStream_t s)
{
    return wk_reduce_index(ctx, d_in, (int64_t *)d_out, p->n, WK_F32, WK_ARGMAX, s);
}
static wk_status c_repro(const probe *p, cudaStream_t s) { return wk_reduce_repro(ctx, d_in, d_out, p->n, WK_F32, s); }
static wk_status c_partial(const probe *p, cudaStream_t s)
{
    return wk_reduce_repro_partial(ctx, d_in, (wk_repro_partial *)d_out, p->n, WK_F32, s);
}
static wk_status c_finalize(const probe *p, cudaStream_t s)
{
    return wk_repro_finalize(ctx, partials(), p->n, d_out, WK_F32, s);
}
static wk_status c_inclusive(const probe *p, cudaStream_t s)
{
    return wk_inclusive_scan(ctx, d_in, d_out, p->n, WK_F32, WK_SUM, s);
}
static wk_status c_exclusive(const probe *p, cudaStream_t s)
{
    wk_value init = {0};
    return wk_exclusive_scan(ctx, d_in, d_out, p->n, WK_F32, WK_SUM, init, s);
}
static wk_status c_inclusive_from(const probe *p, cudaStream_t s)
{
    return wk_inclusive_scan_from(ctx, d_in, d_out, p->n, WK_F32, WK_SUM, count_at(), s);
}
static wk_status c_exclusive_from(const probe *p, cudaStream_t s)
{
    wk_value init = {0};
    return wk_exclusive_scan_from(ctx, d_in, d_out, p->n, WK_F32, WK_SUM, init, count_at(), s);
}
static wk_status c_select(const probe *p, cudaStream_t s)
{
    return wk_select_if(ctx, d_in, d_out, count_at(), p->n, WK_F32, positive, s);
}
static wk_status c_flagged(const probe *p, cudaStream_t s)
{
    return wk_select_flagged(ctx, d_in, d_in, d_out, count_at(), p->n, WK_F32, s);
}
static wk_status c_partition(const probe *p, cudaStream_t s)
{
    return wk_partition_if(ctx, d_in, d_out, count_at(), p->n, WK_F32, positive, s);
}
static wk_status c_unique(const probe *p, cudaStream_t s)
{
    return wk_unique(ctx, d_in, d_out, count_at(), p->n, WK_F32, s);
}
static wk_status c_where(const probe *p, cudaStream_t s)
{
    return wk_where(ctx, d_in, (int64_t *)d_out, count_at(), p->n, WK_F32, positive, s);
}
static wk_status c_unique_from(const probe *p, cudaStream_t s)
{
    return wk_unique_from(ctx, d_in, d_out, count_at(), p->n, WK_F32, d_in, s);
}
static wk_status c_where_from(const probe *p, cudaStream_t s)
{
    return wk_where_from(ctx, d_in, (int64_t *)d_out, count_at(), p->n, WK_F32, positive, (const int64_t *)d_in, s);
}
static wk_status c_copy(const probe *p, cudaStream_t s) { return wk_copy_to_host(ctx, d_in, h_out, p->n, s); }
static wk_status c_seg_reduce(const probe *p, cudaStream_t s)
{
    return wk_segmented_reduce(ctx, d_in, d_out, &p->seg, WK_F32, WK_SUM, s);
}
static wk_status c_seg_repro(const probe *p, cudaStream_t s)
{
    return wk_segmented_reduce_repro(ctx, d_in, d_out, &p->seg, WK_F32, s);
}
static wk_status c_seg_inclusive(const probe *p, cudaStream_t s)
{
    return wk_segmented_inclusive_scan(ctx, d_in, d_out, &p->seg, WK_F32, WK_SUM, s);
}
static wk_status c_seg_exclusive(const probe *p, cudaStream_t s)
{
    wk_value init = {0};
    return wk_segmented_exclusive_scan(ctx, d_in, d_out, &p->seg, WK_F32, WK_SUM, init, s);
}

static const entry entries[] = {
    {"wk_reduce", c_reduce, ELEMENTS, 0},
    {"wk_reduce_to_host", c_to_host, ELEMENTS, 1},
    {"wk_reduce_index", c_index, ELEMENTS, 0},
    {"wk_reduce_repro", c_repro, ELEMENTS, 0},
    {"wk_reduce_repro_partial", c_partial, ELEMENTS, 0},
    {"wk_repro_finalize", c_finalize, PARTIALS, 0},
    {"wk_inclusive_scan", c_inclusive, ELEMENTS, 0},
    {"wk_exclusive_scan", c_exclusive, ELEMENTS, 0},
    {"wk_inclusive_scan_from", c_inclusive_from, ELEMENTS, 0},
    {"wk_exclusive_scan_from", c_exclusive_from, ELEMENTS, 0},
    {"wk_select_if", c_select, ELEMENTS, 0},
    {"wk_select_flagged", c_flagged, ELEMENTS, 0},
    {"wk_partition_if", c_partition, ELEMENTS, 0},
    {"wk_unique", c_unique, ELEMENTS, 0},
    {"wk_where", c_where, ELEMENTS, 0},
    {"wk_unique_from", c_unique_from, ELEMENTS, 0},
    {"wk_where_from", c_where_from, ELEMENTS, 0},
    {"wk_copy_to_host", c_copy, BYTES, 1},
    {"wk_segmented_reduce", c_seg_reduce, SEGMENTS_OUT, 0},
    {"wk_segmented_reduce_repro", c_seg_repro, SEGMENTS_OUT, 0},
    {"wk_segmented_inclusive_scan", c_seg_inclusive, SEGMENTS, 0},
    {"wk_segmented_exclusive_scan", c_seg_exclusive, SEGMENTS, 0},
};
#define ENTRIES (sizeof entries / sizeof entries[0])

/* The sizes over the limits, by kind; `count` gets how many. */
static size_t probes_of(size_kind kind, probe *out)
{
    const size_t two62 = (size_t)1 << 62;
    size_t k = 0;
    switch (kind) {
    case ELEMENTS:
        out[k++] = (probe){"n = 2^60 + 1 (2^62 + 4 bytes)", two62 / 4 + 1, {0}};
        out[k++] = (probe){"n = 2^63 (n x 4 wraps)", SIZE_MAX / 2 + 1, {0}};
        out[k++] = (probe){"n = SIZE_MAX", SIZE_MAX, {0}};
        break;
    case PARTIALS:
        out[k++] = (probe){"count = 2^56 + 1 partials (over 2^62 bytes)", two62 / 64 + 1, {0}};
        out[k++] = (probe){"count = SIZE_MAX partials", SIZE_MAX, {0}};
        break;
    case BYTES:
        out[k++] = (probe){"bytes = 257", WK_COPY_TO_HOST_MAX_BYTES + 1, {0}};
        out[k++] = (probe){"bytes = SIZE_MAX", SIZE_MAX, {0}};
        break;
    case SEGMENTS_OUT:
        out[k++] = (probe){"2^62 rows of 0 elements (the output over 2^62 bytes)", 0, {two62, 0, 0, NULL, NULL}};
        out[k++] = (probe){"SIZE_MAX rows of 0 elements", 0, {SIZE_MAX, 0, 0, NULL, NULL}};
        k += probes_of(SEGMENTS, out + k);
        break;
    case SEGMENTS:
        out[k++] = (probe){"2^62 - 1 rows of 8 (count x size over 2^62)", 0, {SIZE_MAX / 4, 8, 0, NULL, NULL}};
        out[k++] = (probe){"2 rows of stride 2^62 (count x stride)", 0, {2, 1, two62, NULL, NULL}};
        out[k++] = (probe){"rows of SIZE_MAX elements", 0, {1, SIZE_MAX, 0, NULL, NULL}};
        out[k++] = (probe){"2^61 + 1 offsets (over 2^62 bytes of them)", 0, {two62 / 2 + 1, 10, 0, d_begin, d_end}};
        out[k++] = (probe){"offsets into 2^61 elements (2^63 bytes)", 0, {10, two62 / 2, 0, d_begin, d_end}};
        break;
    }
    return k;
}

static wk_status enqueue(const void *arg, cudaStream_t s)
{
    const struct {
        const entry *e;
        const probe *p;
    } *a = arg;
    return a->e->call(a->p, s);
}

static void poison_outputs(void)
{
    wk_poison_device(d_out, BUF_BYTES);
    memset(h_out, POISON, BUF_BYTES);
}

static int outputs_untouched(cudaStream_t s)
{
    for (size_t i = 0; i < BUF_BYTES; ++i)
        if (h_out[i] != POISON)
            return 0;
    return wk_device_changes(s, d_out, BUF_BYTES, 0, 0) == 0;
}

/* --------------------------------------------------------------- sizes */

static void test_sizes(void)
{
    int before = tally.failed, tried = 0;
    for (size_t i = 0; i < ENTRIES; ++i) {
        const entry *e = &entries[i];
        probe probes[8];
        size_t count = probes_of(e->kind, probes);
        for (size_t k = 0; k < count; ++k) {
            poison_outputs();
            struct {
                const entry *e;
                const probe *p;
            } arg = {e, &probes[k]};
            /* Run, then (where it may be captured) captured: the first shows
             * that nothing is written, the second that nothing is enqueued. */
            wk_capture got = {0, 0, 0};
            wk_status st = e->call(&probes[k], stream), captured = st;
            char message[256];
            snprintf(message, sizeof message, "%s", wk_last_error_message());
            CHECK_CUDA(cudaStreamSynchronize(stream));
            int untouched = outputs_untouched(stream);
            if (!e->waits)
                captured = wk_capture_call(stream, enqueue, &arg, &got, NULL);
            int ok = st == WK_ERROR_LIMIT && captured == WK_ERROR_LIMIT && strlen(message) > 0 && got.nodes == 0 &&
                     untouched;
            wk_expect(&tally, ok, "size check");
            tried++;
            if (!ok) {
                char nodes[48];
                snprintf(nodes, sizeof nodes, got.nodes == SIZE_MAX ? "the capture broke" : "%zu graph nodes",
                         got.nodes);
                printf("FAIL %s, %s: %s '%s', captured %s, %s, outputs %s\n", e->name, probes[k].what,
                       wk_status_string(st), message, wk_status_string(captured), nodes,
                       untouched ? "untouched" : "changed");
            }
        }
    }
    wk_status st = wk_scan_reserve(ctx, SIZE_MAX / 2 + 1, WK_F32);
    wk_checkf(&tally, st == WK_ERROR_LIMIT, "wk_scan_reserve of 2^63 f32 elements: %s", wk_status_string(st));
    wk_checkf(&tally, tally.failed == before,
              "%d sizes over the limits across %zu entry points: WK_ERROR_LIMIT, a message, nothing launched or "
              "written",
              tried, ENTRIES);
}

/* ------------------------------------------------------ capture states */

/* A small call that works outside a capture. */
static probe small_probe(const entry *e)
{
    probe p = {"small", SMALL_N, {4, 100, 0, NULL, NULL}};
    if (e->kind == PARTIALS)
        p.n = 0;
    if (e->kind == BYTES)
        p.n = 8;
    return p;
}

/* The capture on `s` broken by a synchronization, which is illegal there. */
static void break_capture(cudaStream_t s)
{
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    (void)cudaStreamSynchronize(s);
    (void)cudaGetLastError();
}

static void end_capture(cudaStream_t s, cudaError_t *end, size_t *nodes)
{
    cudaGraph_t graph = NULL;
    *end = cudaStreamEndCapture(s, &graph);
    (void)cudaGetLastError();
    *nodes = 0;
    if (graph) {
        wk_capture got;
        wk_count_graph_nodes(graph, &got);
        *nodes = got.nodes;
        CHECK_CUDA(cudaGraphDestroy(graph));
    }
}

static void test_capture_states(void)
{
    if (wk_test_quick()) {
        printf("capture states: not tried at the quick level\n");
        return;
    }
    /* A blocking stream: the legacy stream waits for it, which its capture forbids. */
    cudaStream_t other;
    CHECK_CUDA(cudaStreamCreate(&other));
    int before = tally.failed;
    for (size_t i = 0; i < ENTRIES; ++i) {
        const entry *e = &entries[i];
        probe p = small_probe(e);
        char message[256];
        cudaError_t end;
        size_t nodes;

        /* A capture the application broke. */
        poison_outputs();
        break_capture(stream);
        wk_status st = e->call(&p, stream);
        snprintf(message, sizeof message, "%s", wk_last_error_message());
        end_capture(stream, &end, &nodes);
        wk_checkf(&tally, st == WK_ERROR_CAPTURE && strlen(message) > 0 && outputs_untouched(stream),
                  "%s on a broken capture: %s, '%s'", e->name, wk_status_string(st), message);

        /* The legacy stream while another stream is captured in global mode. */
        poison_outputs();
        CHECK_CUDA(cudaStreamBeginCapture(other, cudaStreamCaptureModeGlobal));
        st = e->call(&p, 0);
        snprintf(message, sizeof message, "%s", wk_last_error_message());
        end_capture(other, &end, &nodes);
        /* The other stream's capture survives the refused call, empty. */
        wk_checkf(&tally,
                  st == WK_ERROR_CAPTURE && strlen(message) > 0 && end == cudaSuccess && nodes == 0 &&
                      outputs_untouched(stream),
                  "%s on the legacy stream during a global capture: %s, '%s'; the other capture ended with %s, "
                  "%zu nodes",
                  e->name, wk_status_string(st), message, cudaGetErrorString(end), nodes);

        /* A call that waits for the host, in a capture that is fine. */
        if (e->waits) {
            poison_outputs();
            CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
            st = e->call(&p, stream);
            snprintf(message, sizeof message, "%s", wk_last_error_message());
            end_capture(stream, &end, &nodes);
            wk_checkf(&tally,
                      st == WK_ERROR_CAPTURE && end == cudaSuccess && nodes == 0 && outputs_untouched(stream),
                      "%s in a capture: %s, '%s'; the capture ended with %s, %zu nodes", e->name,
                      wk_status_string(st), message, cudaGetErrorString(end), nodes);
        }
    }
    /* And every call still works on the stream afterwards. */
    for (size_t i = 0; i < ENTRIES; ++i) {
        probe p = small_probe(&entries[i]);
        wk_status st = entries[i].call(&p, stream);
        cudaError_t err = cudaStreamSynchronize(stream);
        wk_checkf(&tally, st == WK_SUCCESS && err == cudaSuccess, "%s afterwards: %s (%s)", entries[i].name,
                  wk_status_string(st), cudaGetErrorString(err));
    }
    wk_checkf(&tally, tally.failed == before, "capture states across %zu entry points", ENTRIES);
    CHECK_CUDA(cudaStreamDestroy(other));
}

int main(void)
{
    uint64_t seed;
    unsigned char *region;
    int rc = wk_api_test_start(&ctx, &seed, &stream, &region, BUF_BYTES);
    if (rc >= 0)
        return rc;
    CHECK_CUDA(cudaMalloc((void **)&d_in, BUF_BYTES));
    CHECK_CUDA(cudaMalloc((void **)&d_out, BUF_BYTES));
    CHECK_CUDA(cudaMalloc((void **)&d_begin, 16 * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void **)&d_end, 16 * sizeof(int64_t)));
    CHECK_CUDA(cudaMallocHost((void **)&h_out, BUF_BYTES));
    /* Small values, flags of 1 and offsets of 0: every small call is valid. */
    CHECK_CUDA(cudaMemset(d_in, 1, BUF_BYTES));
    CHECK_CUDA(cudaMemset(d_begin, 0, 16 * sizeof(int64_t)));
    CHECK_CUDA(cudaMemset(d_end, 0, 16 * sizeof(int64_t)));

    test_sizes();
    test_capture_states();

    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaFree(d_begin));
    CHECK_CUDA(cudaFree(d_end));
    CHECK_CUDA(cudaFreeHost(h_out));
    CHECK_CUDA(cudaFree(d_in));
    return wk_api_test_finish(ctx, stream, region, &tally);
}
