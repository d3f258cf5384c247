/* The distributed calls against one GPU: the test starts one process per
 * visible GPU (it skips with fewer than two), plus one process that drives
 * every GPU from one thread (wk_dist_create_all, wk_dist_run_all). Every
 * rank draws the whole input from the shared seed (so rank 0 holds the
 * concatenation, as if gathered), runs each distributed call on its own
 * part, runs the one-GPU call on the whole input, and compares its share
 * bit for bit: small-integer inputs make float sums exact in any order;
 * float sums are checked on random floats too, reproducible ones bit for
 * bit and scans within their bound. Uneven parts: empty, one element, odd,
 * large. Prints its seed; WK_SEED repeats a run. */
#include "gpu/api_test_util.h"
#include "gpu/small_values.h"
#include "test_util.h"
#include "warpkit.h"
#include "warpkit_nccl.h"

#include <cuda_runtime.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_RANKS 16

static wk_tally tally;

/* ------------------------------------------------------------- inputs */

/* The parts' sizes of case `pattern`. */
typedef enum pattern { UNEVEN, FIRST_EMPTY, ALL_EMPTY, ONES, LAST_EMPTY, LARGE, PATTERNS } pattern;
static const char *const pattern_names[PATTERNS] = {"uneven", "first-empty", "all-empty", "ones", "last-empty",
                                                    "large-odd"};

static void part_sizes(pattern p, int ranks, uint64_t seed, size_t *sizes)
{
    for (int r = 0; r < ranks; ++r) {
        const uint64_t x = wk_splitmix64_at(seed, 77 + (uint64_t)r);
        switch (p) {
        case UNEVEN: sizes[r] = (size_t)(x % 200000) + (r % 2 ? 1 : 0); break;
        case FIRST_EMPTY: sizes[r] = r == 0 ? 0 : (size_t)(x % 5000) + 1; break;
        case ALL_EMPTY: sizes[r] = 0; break;
        case ONES: sizes[r] = 1; break;
        case LAST_EMPTY: sizes[r] = r == ranks - 1 ? 0 : (size_t)(x % 70000) + 3; break;
        case LARGE: sizes[r] = ((size_t)1 << 22) + 2 * (size_t)r + 1; break;
        default: sizes[r] = 0;
        }
    }
}

/* The whole input: small integers in runs (unique), a bounded walk (sums),
 * or, with `random_floats`, floats in [-1, 1) with a NaN planted in NaN
 * cases. */
static void fill_whole(void *h, size_t n, wk_dtype t, uint64_t seed, int runs, int random_floats)
{
    if (random_floats) {
        for (size_t i = 0; i < n; ++i) {
            const double u = (double)(wk_splitmix64_at(seed, i) >> 11) * 0x1p-53 * 2.0 - 1.0;
            if (t == WK_F32)
                ((float *)h)[i] = (float)u;
            else
                ((double *)h)[i] = u;
        }
        return;
    }
    if (!runs) {
        small_walk(h, n, t, seed);
        return;
    }
    for (size_t i = 0; i < n; ++i)
        small_put(h, i, t, (int)(wk_splitmix64_at(seed, i / 3) % 5) - 2);
}

/* --------------------------------------------------------- one rank */

/* One rank's part and buffers, and the whole input on its GPU. */
typedef struct rank_state {
    int rank, device;
    wk_dist *dist;
    wk_context *ctx;
    cudaStream_t stream;
    size_t n, offset;      /* this part, and where it starts in the whole */
    void *d_in, *d_out;    /* the part (exact size, so sanitizers see overruns) and its outputs */
    uint8_t *d_flags;
    wk_dist_count *d_count;
    void *d_whole, *d_whole_out; /* the whole input on this GPU, and the one-GPU result */
    uint8_t *d_whole_flags;
    uint64_t *d_whole_count;
} rank_state;

typedef struct world {
    int ranks;             /* in the communicator                        */
    int local;             /* ranks this process drives: 1, or all (--all) */
    rank_state *r;         /* [local]                                    */
} world;

static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

/* Uploads the case's input on every local rank. */
static void set_up_case(world *w, const size_t *sizes, wk_dtype t, const void *h_whole, const uint8_t *h_flags,
                        size_t total)
{
    const size_t e = wk_dtype_size(t);
    size_t offset = 0;
    int next = 0;
    for (int r = 0; r < w->ranks; ++r) {
        if (next < w->local && w->r[next].rank == r) {
            rank_state *s = &w->r[next++];
            CHECK_CUDA(cudaSetDevice(s->device));
            s->n = sizes[r];
            s->offset = offset;
            s->d_in = device_alloc(s->n * e);
            s->d_out = device_alloc(s->n * 8 + 16);
            s->d_flags = device_alloc(s->n);
            s->d_count = device_alloc(sizeof(wk_dist_count));
            s->d_whole = device_alloc(total * e);
            s->d_whole_out = device_alloc(total * 8 + 16);
            s->d_whole_flags = device_alloc(total);
            s->d_whole_count = device_alloc(8);
            CHECK_CUDA(cudaMemcpy(s->d_in, (const char *)h_whole + offset * e, s->n * e, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(s->d_flags, h_flags + offset, s->n, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(s->d_whole, h_whole, total * e, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(s->d_whole_flags, h_flags, total, cudaMemcpyHostToDevice));
        }
        offset += sizes[r];
    }
}

static void tear_down_case(world *w)
{
    for (int i = 0; i < w->local; ++i) {
        rank_state *s = &w->r[i];
        CHECK_CUDA(cudaSetDevice(s->device));
        CHECK_CUDA(cudaDeviceSynchronize());
        cudaFree(s->d_in);
        cudaFree(s->d_out);
        cudaFree(s->d_flags);
        cudaFree(s->d_count);
        cudaFree(s->d_whole);
        cudaFree(s->d_whole_out);
        cudaFree(s->d_whole_flags);
        cudaFree(s->d_whole_count);
    }
}

/* Runs one distributed call on every local rank (outputs poisoned first),
 * and the matching one-GPU call on each rank's whole input. */
static wk_status run_both(world *w, wk_dist_call proto, size_t total)
{
    wk_dist_call calls[MAX_RANKS];
    wk_dist *dists[MAX_RANKS];
    for (int i = 0; i < w->local; ++i) {
        rank_state *s = &w->r[i];
        CHECK_CUDA(cudaSetDevice(s->device));
        CHECK_CUDA(cudaMemset(s->d_out, 0xA5, s->n * 8 + 16));
        CHECK_CUDA(cudaMemset(s->d_count, 0xA5, sizeof(wk_dist_count)));
        CHECK_CUDA(cudaMemset(s->d_whole_out, 0x5A, total * 8 + 16));
        calls[i] = proto;
        calls[i].in = s->d_in;
        calls[i].flags = s->d_flags;
        calls[i].out = s->d_out;
        calls[i].count = s->d_count;
        calls[i].n = s->n;
        calls[i].stream = s->stream;
        dists[i] = s->dist;
    }
    wk_status st = w->local == 1 ? wk_dist_run(dists[0], &calls[0]) : wk_dist_run_all(dists, calls, w->local);
    if (st != WK_SUCCESS)
        return st;
    for (int i = 0; i < w->local && st == WK_SUCCESS; ++i) {
        rank_state *s = &w->r[i];
        const wk_dist_call *c = &calls[i];
        void *o = s->d_whole_out;
        uint64_t *k = s->d_whole_count;
        switch (c->kind) {
        case WK_DIST_REDUCE:
            st = c->op == WK_SUM && c->dtype >= WK_F32
                     ? wk_reduce_repro(s->ctx, s->d_whole, o, total, c->dtype, s->stream)
                     : wk_reduce(s->ctx, s->d_whole, o, total, c->dtype, c->op, s->stream);
            break;
        case WK_DIST_INCLUSIVE_SCAN:
            st = wk_inclusive_scan(s->ctx, s->d_whole, o, total, c->dtype, c->op, s->stream);
            break;
        case WK_DIST_EXCLUSIVE_SCAN:
            st = wk_exclusive_scan(s->ctx, s->d_whole, o, total, c->dtype, c->op, c->init, s->stream);
            break;
        case WK_DIST_SELECT_IF:
            st = wk_select_if(s->ctx, s->d_whole, o, k, total, c->dtype, c->predicate, s->stream);
            break;
        case WK_DIST_SELECT_FLAGGED:
            st = wk_select_flagged(s->ctx, s->d_whole, s->d_whole_flags, o, k, total, c->dtype, s->stream);
            break;
        case WK_DIST_PARTITION_IF:
            st = wk_partition_if(s->ctx, s->d_whole, o, k, total, c->dtype, c->predicate, s->stream);
            break;
        case WK_DIST_UNIQUE: st = wk_unique(s->ctx, s->d_whole, o, k, total, c->dtype, s->stream); break;
        case WK_DIST_WHERE:
            st = wk_where(s->ctx, s->d_whole, (int64_t *)o, k, total, c->dtype, c->predicate, s->stream);
            break;
        }
    }
    for (int i = 0; i < w->local; ++i) {
        CHECK_CUDA(cudaSetDevice(w->r[i].device));
        CHECK_CUDA(cudaStreamSynchronize(w->r[i].stream));
    }
    return st;
}

static void *fetch(const void *d, size_t bytes)
{
    void *h = malloc(bytes ? bytes : 1);
    CHECK_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    return h;
}

/* The prefix sums' bound for random floats: the local scan's roundings
 * (header: i / tile + 66, tile >= 16 KiB), one per rank below and one for
 * the carried prefix, on both sides of the comparison. */
static int within_scan_bound(const void *got, const void *want, const void *h_whole, size_t offset, size_t n,
                             wk_dtype t, int ranks, size_t *bad)
{
    const double u = t == WK_F32 ? 0x1p-24 : 0x1p-53;
    const size_t tile = 16384 / wk_dtype_size(t);
    long double abs_prefix = 0;
    for (size_t i = 0; i < offset + n; ++i) {
        const double x = t == WK_F32 ? ((const float *)h_whole)[i] : ((const double *)h_whole)[i];
        abs_prefix += fabs(x);
        if (i < offset)
            continue;
        const size_t j = i - offset;
        const double a = t == WK_F32 ? ((const float *)got)[j] : ((const double *)got)[j];
        const double b = t == WK_F32 ? ((const float *)want)[i] : ((const double *)want)[i];
        const double depth = 2.0 * ((double)i / (double)tile + 66) + ranks + 1;
        if (!(fabs(a - b) <= depth * u * (double)abs_prefix)) {
            *bad = j;
            return 0;
        }
    }
    return 1;
}

/* Compares each local rank's share with the one-GPU result. */
static void compare(world *w, const wk_dist_call *c, size_t total, const void *h_whole, const char *what)
{
    const size_t e = wk_dtype_size(c->dtype);
    for (int i = 0; i < w->local; ++i) {
        rank_state *s = &w->r[i];
        CHECK_CUDA(cudaSetDevice(s->device));
        int ok = 1;
        char detail[160] = "";
        if (c->kind == WK_DIST_REDUCE) {
            const size_t bytes = wk_reduce_result_size(c->dtype, c->op);
            unsigned char *a = fetch(s->d_out, bytes), *b = fetch(s->d_whole_out, bytes);
            ok = bytes == e ? small_same(a, b, c->dtype) : memcmp(a, b, bytes) == 0;
            if (!ok && bytes == 16 && small_same(a, b, c->dtype) && memcmp(a + 8, b + 8, 8) == 0)
                ok = 1; /* arg results: NaN values of two payloads, same index */
            snprintf(detail, sizeof detail, "result %s one call's", ok ? "is" : "is NOT");
            free(a);
            free(b);
        } else if (c->kind == WK_DIST_INCLUSIVE_SCAN || c->kind == WK_DIST_EXCLUSIVE_SCAN) {
            unsigned char *a = fetch(s->d_out, s->n * e), *b = fetch(s->d_whole_out, total * e);
            size_t at = s->n;
            if (h_whole) {
                if (!within_scan_bound(a, b, h_whole, s->offset, s->n, c->dtype, w->ranks, &at))
                    ok = 0;
            } else {
                at = small_first_difference(a, b + s->offset * e, s->n, c->dtype);
                ok = at == s->n;
            }
            snprintf(detail, sizeof detail, "outputs [%zu, %zu) %s (first bad %zu)", s->offset, s->offset + s->n,
                     ok ? "match" : "DIFFER", at);
            free(a);
            free(b);
        } else {
            const size_t oe = c->kind == WK_DIST_WHERE ? 8 : e;
            wk_dist_count got;
            uint64_t whole_count;
            CHECK_CUDA(cudaMemcpy(&got, s->d_count, sizeof got, cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(&whole_count, s->d_whole_count, 8, cudaMemcpyDeviceToHost));
            ok = got.total == whole_count && got.offset + got.count <= whole_count && got.count <= s->n;
            if (ok) {
                unsigned char *a = fetch(s->d_out, got.count * oe), *b = fetch(s->d_whole_out, whole_count * oe);
                ok = memcmp(a, b + got.offset * oe, got.count * oe) == 0;
                free(a);
                free(b);
            }
            snprintf(detail, sizeof detail, "count %llu at %llu of %llu (one call: %llu)%s",
                     (unsigned long long)got.count, (unsigned long long)got.offset, (unsigned long long)got.total,
                     (unsigned long long)whole_count, ok ? "" : " DIFFER");
        }
        wk_checkf(&tally, ok, "rank %d/%d %s n=%zu: %s", s->rank, w->ranks, what, s->n, detail);
    }
}

static const char *kind_label(wk_dist_kind k)
{
    static const char *const names[WK_DIST_KIND_COUNT] = {"reduce",          "inclusive_scan", "exclusive_scan",
                                                          "select_if",       "select_flagged", "partition_if",
                                                          "unique",          "where"};
    return names[k];
}

/* Every kind, op and dtype on one pattern of part sizes. */
static void run_pattern(world *w, pattern p, uint64_t seed, int quick)
{
    const wk_dtype dtypes[] = {WK_I32, WK_U32, WK_I64, WK_U64, WK_F32, WK_F64, WK_F16, WK_BF16};
    size_t sizes[MAX_RANKS];
    part_sizes(p, w->ranks, seed, sizes);
    size_t total = 0;
    for (int r = 0; r < w->ranks; ++r)
        total += sizes[r];
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; ++d) {
        const wk_dtype t = dtypes[d];
        if (p == LARGE && t != WK_F32 && t != WK_I64)
            continue; /* the large parts: two dtypes are enough */
        if (quick && d % 3 != 0)
            continue;
        const size_t e = wk_dtype_size(t);
        for (int runs = 0; runs <= 1; ++runs) {
            unsigned char *h_whole = malloc(total * e + 8);
            uint8_t *h_flags = malloc(total + 1);
            fill_whole(h_whole, total, t, seed + (uint64_t)runs, runs, 0);
            for (size_t i = 0; i < total; ++i)
                h_flags[i] = (uint8_t)(wk_splitmix64_at(seed ^ 0xf1a9, i) % 2);
            set_up_case(w, sizes, t, h_whole, h_flags, total);
            wk_dist_call c;
            memset(&c, 0, sizeof c);
            c.dtype = t;
            small_put(&c.predicate.a, 0, t, 0);
            c.predicate.compare = WK_GREATER;
            char what[128];
            if (!runs) { /* the walk: reduce and scans */
                const wk_op ops[] = {WK_SUM, WK_MIN, WK_MAX, WK_ARGMIN, WK_ARGMAX, WK_AND, WK_OR, WK_XOR};
                const int op_count = t >= WK_F32 ? 5 : 8;
                for (int o = 0; o < op_count; ++o) {
                    c.kind = WK_DIST_REDUCE;
                    c.op = ops[o];
                    snprintf(what, sizeof what, "%s reduce %s %s", pattern_names[p], wk_dtype_name(t),
                             wk_op_name(ops[o]));
                    wk_status st = run_both(w, c, total);
                    if (wk_checkf(&tally, st == WK_SUCCESS, "%s runs (%s)", what, wk_dist_last_error_message()))
                        compare(w, &c, total, NULL, what);
                    if (ops[o] == WK_ARGMIN || ops[o] == WK_ARGMAX || ops[o] == WK_AND || ops[o] == WK_OR)
                        continue;
                    for (int k = WK_DIST_INCLUSIVE_SCAN; k <= WK_DIST_EXCLUSIVE_SCAN; ++k) {
                        c.kind = (wk_dist_kind)k;
                        c.init.u64 = 0;
                        if (ops[o] != WK_SUM)
                            small_put(&c.init, 0, t, 1);
                        snprintf(what, sizeof what, "%s %s %s %s", pattern_names[p], kind_label(c.kind),
                                 wk_dtype_name(t), wk_op_name(ops[o]));
                        st = run_both(w, c, total);
                        if (wk_checkf(&tally, st == WK_SUCCESS, "%s runs (%s)", what, wk_dist_last_error_message()))
                            compare(w, &c, total, NULL, what);
                    }
                }
            } else { /* runs: the selects */
                for (int k = WK_DIST_SELECT_IF; k <= WK_DIST_WHERE; ++k) {
                    c.kind = (wk_dist_kind)k;
                    snprintf(what, sizeof what, "%s %s %s", pattern_names[p], kind_label(c.kind), wk_dtype_name(t));
                    wk_status st = run_both(w, c, total);
                    if (wk_checkf(&tally, st == WK_SUCCESS, "%s runs (%s)", what, wk_dist_last_error_message()))
                        compare(w, &c, total, NULL, what);
                }
            }
            tear_down_case(w);
            free(h_whole);
            free(h_flags);
        }
    }
    /* Random floats: reproducible sums bit for bit, scans within bound. */
    for (int d = 0; d < 2 && p != ALL_EMPTY; ++d) {
        const wk_dtype t = d ? WK_F64 : WK_F32;
        const size_t e = wk_dtype_size(t);
        unsigned char *h_whole = malloc(total * e + 8);
        uint8_t *h_flags = calloc(total + 1, 1);
        fill_whole(h_whole, total, t, seed ^ 0xf10a7, 0, 1);
        set_up_case(w, sizes, t, h_whole, h_flags, total);
        wk_dist_call c;
        memset(&c, 0, sizeof c);
        c.dtype = t;
        c.op = WK_SUM;
        char what[128];
        for (int k = WK_DIST_REDUCE; k <= WK_DIST_EXCLUSIVE_SCAN; ++k) {
            c.kind = (wk_dist_kind)k;
            snprintf(what, sizeof what, "%s random %s %s sum", pattern_names[p], kind_label(c.kind), wk_dtype_name(t));
            wk_status st = run_both(w, c, total);
            if (wk_checkf(&tally, st == WK_SUCCESS, "%s runs (%s)", what, wk_dist_last_error_message()))
                compare(w, &c, total, k == WK_DIST_REDUCE ? NULL : h_whole, what);
        }
        tear_down_case(w);
        free(h_whole);
        free(h_flags);
    }
}

/* Calls captured into a CUDA graph on every rank, replayed twice. */
static void run_graph(world *w, uint64_t seed)
{
    if (w->local != 1)
        return; /* one thread capturing several GPUs' streams: not tried */
    rank_state *s = &w->r[0];
    size_t sizes[MAX_RANKS];
    part_sizes(UNEVEN, w->ranks, seed, sizes);
    size_t total = 0;
    for (int r = 0; r < w->ranks; ++r)
        total += sizes[r];
    unsigned char *h_whole = malloc(total * 4 + 8);
    uint8_t *h_flags = calloc(total + 1, 1);
    fill_whole(h_whole, total, WK_F32, seed, 0, 0);
    set_up_case(w, sizes, WK_F32, h_whole, h_flags, total);
    CHECK_CUDA(cudaSetDevice(s->device));
    float *d_sum = device_alloc(4), *d_scan = device_alloc(s->n * 4 + 4);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal));
    wk_status a = wk_dist_reduce(s->dist, s->d_in, d_sum, s->n, WK_F32, WK_SUM, s->stream);
    wk_status b = wk_dist_inclusive_scan(s->dist, s->d_in, d_scan, s->n, WK_F32, WK_SUM, s->stream);
    CHECK_CUDA(cudaStreamEndCapture(s->stream, &graph));
    int ok = a == WK_SUCCESS && b == WK_SUCCESS;
    if (ok) {
        CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        for (int k = 0; k < 2 && ok; ++k) {
            CHECK_CUDA(cudaMemset(d_sum, 0xA5, 4));
            CHECK_CUDA(cudaMemset(d_scan, 0xA5, s->n * 4 + 4));
            CHECK_CUDA(cudaGraphLaunch(exec, s->stream));
            CHECK_CUDA(cudaStreamSynchronize(s->stream));
            CHECK_CUDA(wk_reduce_repro(s->ctx, s->d_whole, s->d_whole_out, total, WK_F32, s->stream) == WK_SUCCESS
                           ? cudaSuccess
                           : cudaErrorUnknown);
            CHECK_CUDA(cudaStreamSynchronize(s->stream));
            float got, want;
            CHECK_CUDA(cudaMemcpy(&got, d_sum, 4, cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(&want, s->d_whole_out, 4, cudaMemcpyDeviceToHost));
            ok = memcmp(&got, &want, 4) == 0;
            CHECK_CUDA(wk_inclusive_scan(s->ctx, s->d_whole, s->d_whole_out, total, WK_F32, WK_SUM, s->stream) ==
                               WK_SUCCESS
                           ? cudaSuccess
                           : cudaErrorUnknown);
            CHECK_CUDA(cudaStreamSynchronize(s->stream));
            float *a_scan = fetch(d_scan, s->n * 4), *b_scan = fetch(s->d_whole_out, total * 4);
            ok = ok && small_first_difference(a_scan, b_scan + s->offset, s->n, WK_F32) == s->n;
            free(a_scan);
            free(b_scan);
        }
        cudaGraphExecDestroy(exec);
    }
    cudaGraphDestroy(graph);
    wk_checkf(&tally, ok, "rank %d: reduce and scan captured into a graph, replayed twice: same as one call (%s)",
              s->rank, wk_dist_last_error_message());
    cudaFree(d_sum);
    cudaFree(d_scan);
    tear_down_case(w);
    free(h_whole);
    free(h_flags);
}

/* Bad calls return at once on every rank, before any exchange (so no rank
 * waits), and write nothing. */
static void run_refusals(world *w)
{
    for (int i = 0; i < w->local; ++i) {
        rank_state *s = &w->r[i];
        CHECK_CUDA(cudaSetDevice(s->device));
        float *d = device_alloc(64);
        CHECK_CUDA(cudaMemset(d, 0x5A, 64));
        wk_dist_count *d_count = device_alloc(sizeof(wk_dist_count));
        wk_status a = wk_dist_inclusive_scan(s->dist, d + 8, d, 8, WK_F32, WK_ARGMIN, s->stream);
        wk_status b = wk_dist_reduce(s->dist, d, d + 4, 8, WK_F32, WK_XOR, s->stream);
        wk_status c = wk_dist_select_if(s->dist, d, d + 8, NULL, 8, WK_F32, (wk_predicate){WK_LESS, {0}, {0}},
                                        s->stream);
        wk_status e = wk_dist_where(s->dist, d, (int64_t *)(d + 8), d_count, 4, WK_I32,
                                    (wk_predicate){WK_IS_NAN, {0}, {0}}, s->stream);
        wk_status f = wk_dist_reduce(s->dist, d, (char *)d + 66, 8, WK_F32, WK_MIN, s->stream);
        CHECK_CUDA(cudaStreamSynchronize(s->stream));
        unsigned char h[64];
        CHECK_CUDA(cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost));
        int untouched = 1;
        for (int k = 0; k < 64; ++k)
            untouched &= h[k] == 0x5A;
        wk_checkf(&tally,
                  a == WK_ERROR_UNSUPPORTED && b == WK_ERROR_UNSUPPORTED && c == WK_ERROR_INVALID_ARGUMENT &&
                      e == WK_ERROR_UNSUPPORTED && f == WK_ERROR_INVALID_POINTER && untouched,
                  "rank %d: bad calls refused before any launch (%d %d %d %d %d): %s", s->rank, a, b, c, e, f,
                  wk_dist_last_error_message());
        cudaFree(d);
        cudaFree(d_count);
    }
}

static int run_world(world *w, uint64_t seed)
{
    const int quick = wk_test_quick();
    for (int p = 0; p < PATTERNS; ++p) {
        if (quick && (p == LARGE || p == LAST_EMPTY))
            continue;
        run_pattern(w, (pattern)p, wk_splitmix64_at(seed, (uint64_t)p), quick);
    }
    run_graph(w, seed);
    run_refusals(w);
    return wk_tally_finish(&tally);
}

/* ------------------------------------------------------ processes */

static int hex_to_id(const char *hex, ncclUniqueId *id)
{
    if (strlen(hex) != 2 * sizeof id->internal)
        return -1;
    for (size_t i = 0; i < sizeof id->internal; ++i) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        id->internal[i] = (char)v;
    }
    return 0;
}

static int rank_main(int rank, int ranks, const char *hex, uint64_t seed)
{
    ncclUniqueId id;
    if (hex_to_id(hex, &id) != 0) {
        printf("FAIL rank %d: bad id\n", rank);
        return 1;
    }
    rank_state s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    s.device = rank;
    CHECK_CUDA(cudaSetDevice(s.device));
    ncclComm_t comm;
    ncclResult_t res = ncclCommInitRank(&comm, ranks, id, rank);
    if (res != ncclSuccess) {
        printf("FAIL rank %d: ncclCommInitRank: %s\n", rank, ncclGetErrorString(res));
        return 1;
    }
    if (wk_create(&s.ctx, s.device) != WK_SUCCESS || wk_dist_create(&s.dist, s.ctx, comm) != WK_SUCCESS) {
        printf("FAIL rank %d: %s %s\n", rank, wk_last_error_message(), wk_dist_last_error_message());
        return 1;
    }
    CHECK_CUDA(cudaStreamCreate(&s.stream));
    world w = {ranks, 1, &s};
    const int rc = run_world(&w, seed);
    wk_dist_destroy(s.dist);
    ncclCommDestroy(comm);
    wk_destroy(s.ctx);
    return rc;
}

/* One process, every GPU, one thread. */
static int all_main(int ranks, uint64_t seed)
{
    int devices[MAX_RANKS] = {0};
    wk_dist *dists[MAX_RANKS];
    for (int i = 0; i < ranks; ++i)
        devices[i] = i;
    if (wk_dist_create_all(dists, ranks, devices) != WK_SUCCESS) {
        printf("FAIL wk_dist_create_all: %s\n", wk_dist_last_error_message());
        return 1;
    }
    rank_state s[MAX_RANKS];
    memset(s, 0, sizeof s);
    for (int i = 0; i < ranks; ++i) {
        s[i].rank = wk_dist_rank(dists[i]);
        s[i].device = devices[i];
        s[i].dist = dists[i];
        s[i].ctx = wk_dist_context(dists[i]);
        CHECK_CUDA(cudaSetDevice(devices[i]));
        CHECK_CUDA(cudaStreamCreate(&s[i].stream));
    }
    world w = {ranks, ranks, s};
    const int rc = run_world(&w, seed);
    for (int i = 0; i < ranks; ++i)
        wk_dist_destroy(dists[i]);
    return rc;
}

/* Waits for `count` processes. When one fails, the others are ended at
 * once: a rank left alone in an exchange would wait until its deadline.
 * Returns 1 if any failed. */
static int wait_all(pid_t *pids, int count)
{
    int failed = 0;
    for (int left = count; left > 0; --left) {
        int status = 0;
        const pid_t done = waitpid(-1, &status, 0);
        if (done < 0)
            return 1;
        for (int i = 0; i < count; ++i)
            if (pids[i] == done)
                pids[i] = 0; /* reaped: never signalled again */
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            for (int i = 0; i < count && !failed; ++i)
                if (pids[i] > 0)
                    kill(pids[i], SIGKILL);
            failed = 1;
        }
    }
    return failed;
}

/* Starts the rank processes, then the one that drives every GPU, each
 * with the unique id and the seed. */
static int launch(int ranks, uint64_t seed)
{
    ncclUniqueId id;
    ncclResult_t res = ncclGetUniqueId(&id);
    if (res != ncclSuccess) {
        printf("FAIL ncclGetUniqueId: %s\n", ncclGetErrorString(res));
        return 1;
    }
    char hex[2 * sizeof id.internal + 1], seed_text[32], ranks_text[16], rank_text[MAX_RANKS][16];
    for (size_t i = 0; i < sizeof id.internal; ++i)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)id.internal[i]);
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
    snprintf(ranks_text, sizeof ranks_text, "%d", ranks);
    pid_t pids[MAX_RANKS];
    int started = 0, failed = 0;
    for (; started < ranks; ++started) {
        snprintf(rank_text[started], sizeof rank_text[started], "%d", started);
        char *argv[] = {"/proc/self/exe", "--rank", rank_text[started], ranks_text, hex, seed_text, NULL};
        if (posix_spawn(&pids[started], "/proc/self/exe", NULL, NULL, argv, environ) != 0) {
            printf("FAIL posix_spawn\n");
            failed = 1;
            break;
        }
    }
    if (failed) { /* the ranks started would wait for the missing one */
        for (int i = 0; i < started; ++i)
            kill(pids[i], SIGKILL);
    }
    failed = wait_all(pids, started) || failed;
    if (!failed) { /* then one process for every GPU: the ranks held them */
        char *argv[] = {"/proc/self/exe", "--all", "0", ranks_text, hex, seed_text, NULL};
        pid_t all;
        failed = posix_spawn(&all, "/proc/self/exe", NULL, NULL, argv, environ) != 0 || wait_all(&all, 1);
    }
    printf("%s\n", failed ? "FAIL: a process failed (its lines are above)" : "every process passed");
    return failed;
}

/* A watchdog: this process group ends after `seconds`, so that a rank
 * stuck in an exchange cannot hang the test run. */
static void arm_deadline(unsigned seconds) { alarm(seconds); }

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 6 && (strcmp(argv[1], "--rank") == 0 || strcmp(argv[1], "--all") == 0)) {
        arm_deadline(600);
        const int ranks = atoi(argv[3]);
        if (ranks < 1 || ranks > MAX_RANKS)
            return 2;
        const uint64_t seed = strtoull(argv[5], NULL, 10);
        if (strcmp(argv[1], "--all") == 0)
            return all_main(ranks, seed);
        return rank_main(atoi(argv[2]), ranks, argv[4], seed);
    }
    const char *env = getenv("WK_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    printf("seed %llu (WK_SEED=%llu repeats this run)\n", (unsigned long long)seed, (unsigned long long)seed);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2) {
        printf("SKIP: %d GPU(s); the distributed test needs 2 or more\n", devices);
        return WK_TEST_SKIP;
    }
    if (devices > MAX_RANKS)
        devices = MAX_RANKS;
    return launch(devices, seed);
}
