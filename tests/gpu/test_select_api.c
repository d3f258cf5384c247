/* GPU test of the selects' contract beyond the values: every bad argument
 * to wk_select_if, wk_select_flagged, wk_partition_if, wk_unique and
 * wk_where returns its status with a message, launches nothing (checked by
 * capturing the stream into a graph) and leaves memory as it was, d_count
 * included; n = 0 is one zero written to d_count and nothing else; a good
 * call is exactly one kernel launch at every size; calls of every mode,
 * dtype and size back to back on one stream,
 * with scans between them on the same tile slots, and a chain of
 * partitions each reading the last one's output, are each right; a call
 * that must grow a workspace during capture grows one beside the graph. The
 * contract every call shares (the same bits twice, graph replays, managed
 * memory) is test_contract.c's. Exits 77 without a device. */
#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "ref/scan_reference.h"
#include "check/select_cases.h"
#include "ref/select_reference.h"
#include "test_util.h"
#include "warpkit.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGION_BYTES 4096

/* Where the default call's buffers sit in the region: n = 100 elements
 * of up to 8 bytes each fit between them. */
#define IN_AT 0
#define FLAGS_AT 1024
#define OUT_AT 2048
#define COUNT_AT 3968
#define N_DEFAULT 100

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;
static unsigned char *d_region; /* poisoned before each rejected call */
static unsigned char host_buf[REGION_BYTES]; /* ordinary host memory, poisoned too */

/* ---------------------------------------------------------------- calls */

/* One call of any of the five. */
typedef struct select_call {
    wk_context *ctx;
    wk_ref_select_mode mode;
    const void *in;
    const uint8_t *flags;
    void *out;
    uint64_t *count;
    size_t n;
    wk_dtype dtype;
    wk_predicate predicate;
} select_call;

/* x < 0, the constant zero in all eight bytes whatever the dtype. */
static const wk_predicate less_than_zero = {.compare = WK_LESS, .a = {.u64 = 0}, .b = {.u64 = 0}};

/* A call of a mode on 100 elements with its buffers at these places
 * (d_count given by the address of its first byte). */
static select_call placed(wk_ref_select_mode mode, wk_dtype dtype, const void *in, const uint8_t *flags, void *out,
                          void *count)
{
    return (select_call){.ctx = ctx, .mode = mode, .in = in, .flags = flags, .out = out, .count = count,
                         .n = N_DEFAULT, .dtype = dtype, .predicate = less_than_zero};
}

/* The default call of a mode: the region's buffers. */
static select_call make_call(wk_ref_select_mode mode, wk_dtype dtype)
{
    return placed(mode, dtype, d_region + IN_AT, d_region + FLAGS_AT, d_region + OUT_AT, d_region + COUNT_AT);
}

static wk_status run_call(const select_call *c, cudaStream_t s)
{
    switch (c->mode) {
    case WK_REF_SELECT_IF: return wk_select_if(c->ctx, c->in, c->out, c->count, c->n, c->dtype, c->predicate, s);
    case WK_REF_SELECT_FLAGGED: return wk_select_flagged(c->ctx, c->in, c->flags, c->out, c->count, c->n, c->dtype, s);
    case WK_REF_PARTITION_IF:
        return wk_partition_if(c->ctx, c->in, c->out, c->count, c->n, c->dtype, c->predicate, s);
    case WK_REF_UNIQUE: return wk_unique(c->ctx, c->in, c->out, c->count, c->n, c->dtype, s);
    case WK_REF_WHERE: return wk_where(c->ctx, c->in, (int64_t *)c->out, c->count, c->n, c->dtype, c->predicate, s);
    }
    return WK_ERROR_INVALID_ARGUMENT;
}

static const char *mode_name(const select_call *c) { return wk_ref_select_mode_name(c->mode); }

static wk_status enqueue_call(const void *c, cudaStream_t s) { return run_call(c, s); }

/* Runs the call under stream capture: see wk_capture_call. */
static wk_status captured(const select_call *c, wk_capture *got)
{
    return wk_capture_call(stream, enqueue_call, c, got, NULL);
}

static void poison_region(void)
{
    wk_poison_device(d_region, REGION_BYTES);
    memset(host_buf, POISON, sizeof host_buf);
}

/* Bytes of the region (and of the host buffer) that are no longer
 * poisoned, other than [skip, skip + skip_bytes) of the region. */
static size_t region_changes(size_t skip, size_t skip_bytes)
{
    size_t changed = wk_device_changes(stream, d_region, REGION_BYTES, skip, skip_bytes);
    for (size_t i = 0; i < REGION_BYTES; ++i)
        changed += host_buf[i] != POISON;
    return changed;
}

/* ------------------------------------------------------------ rejections */

/* A bad call: the expected status, a message, no launch, memory unchanged. */
static void expect_rejected(const char *what, wk_status want, select_call c)
{
    char label[512], message[256];
    wk_capture got;
    poison_region();
    wk_status st = captured(&c, &got);
    snprintf(message, sizeof message, "%s", wk_last_error_message());
    size_t changed = region_changes(0, 0);
    snprintf(label, sizeof label, "%s %s n=%zu %s: status %s (want %s), message '%s', %zu nodes, %zu bytes changed",
             mode_name(&c), wk_dtype_name(c.dtype), c.n, what, wk_status_string(st), wk_status_string(want), message,
             got.nodes, changed);
    int ok = st == want && strlen(message) > 0 && got.nodes == 0 && changed == 0;
    wk_expect(&tally, ok, label);
    if (ok)
        printf("rejected as expected: %s\n", label);
}

static int has_flags(wk_ref_select_mode m) { return m == WK_REF_SELECT_FLAGGED; }

/* The default f32 call of mode m with each pointer in turn set to `bad`
 * (NULL or host memory, named `kind`), d_count's also with n = 0: each
 * rejected with want. */
static void expect_each_pointer_rejected(wk_ref_select_mode m, void *bad, const char *kind, wk_status want)
{
    const int where = m == WK_REF_WHERE;
    char what[64];
    select_call c = make_call(m, WK_F32);
    c.in = bad;
    snprintf(what, sizeof what, "%s d_in", kind);
    expect_rejected(what, want, c);
    c = make_call(m, WK_F32);
    c.out = bad;
    snprintf(what, sizeof what, "%s %s", kind, where ? "d_indices" : "d_out");
    expect_rejected(what, want, c);
    c = make_call(m, WK_F32);
    c.count = bad;
    snprintf(what, sizeof what, "%s d_count", kind);
    expect_rejected(what, want, c);
    c.n = 0;
    snprintf(what, sizeof what, "%s d_count with n = 0", kind);
    expect_rejected(what, want, c);
    if (has_flags(m)) {
        c = make_call(m, WK_F32);
        c.flags = bad;
        snprintf(what, sizeof what, "%s d_flags", kind);
        expect_rejected(what, want, c);
    }
}

static void test_rejections(void)
{
    unsigned char *in = d_region + IN_AT, *flags = d_region + FLAGS_AT, *out = d_region + OUT_AT;
    unsigned char *count = d_region + COUNT_AT;
    const size_t n = N_DEFAULT;
    for (int mi = 0; mi < WK_REF_SELECT_MODE_COUNT; ++mi) {
        wk_ref_select_mode m = (wk_ref_select_mode)mi;
        int where = m == WK_REF_WHERE;
        select_call c = make_call(m, WK_F32);

        c.ctx = NULL;
        expect_rejected("NULL context", WK_ERROR_INVALID_ARGUMENT, c);
        c.n = 0;
        expect_rejected("NULL context with n = 0", WK_ERROR_INVALID_ARGUMENT, c);

        expect_each_pointer_rejected(m, NULL, "NULL", WK_ERROR_INVALID_ARGUMENT);

        c = make_call(m, (wk_dtype)99);
        expect_rejected("dtype 99", WK_ERROR_INVALID_DTYPE, c);
        c.dtype = (wk_dtype)-1;
        expect_rejected("dtype -1", WK_ERROR_INVALID_DTYPE, c);
        c.n = 0;
        expect_rejected("dtype 99 with n = 0", WK_ERROR_INVALID_DTYPE, c);

        if (wk_ref_select_uses_predicate(m)) {
            c = make_call(m, WK_F32);
            c.predicate.compare = (wk_compare)9;
            expect_rejected("compare 9", WK_ERROR_INVALID_ARGUMENT, c);
            c.predicate.compare = (wk_compare)-1;
            expect_rejected("compare -1", WK_ERROR_INVALID_ARGUMENT, c);
            const wk_dtype ints[] = {WK_I32, WK_U32, WK_I64, WK_U64};
            for (size_t k = 0; k < 4; ++k) {
                c = make_call(m, ints[k]);
                c.predicate.compare = WK_IS_NAN;
                expect_rejected("is_nan on an integer dtype", WK_ERROR_UNSUPPORTED, c);
                c.predicate.compare = WK_NOT_NAN;
                expect_rejected("not_nan on an integer dtype", WK_ERROR_UNSUPPORTED, c);
            }
        }

        expect_each_pointer_rejected(m, host_buf, "host", WK_ERROR_INVALID_POINTER);

        /* Misaligned buffers. */
        expect_rejected("d_in not aligned to its f32 element", WK_ERROR_INVALID_POINTER,
                        placed(m, WK_F32, in + 1, flags, out, count));
        expect_rejected("d_in not aligned to its f16 element", WK_ERROR_INVALID_POINTER,
                        placed(m, WK_F16, in + 1, flags, out, count));
        expect_rejected("d_in not aligned to its f64 element", WK_ERROR_INVALID_POINTER,
                        placed(m, WK_F64, in + 4, flags, out, count));
        expect_rejected(where ? "d_indices not aligned to 8 bytes" : "d_out not aligned to its f32 element",
                        WK_ERROR_INVALID_POINTER, placed(m, WK_F32, in, flags, out + (where ? 4 : 2), count));
        expect_rejected(where ? "d_indices at an odd address" : "d_out not aligned to its bf16 element",
                        WK_ERROR_INVALID_POINTER, placed(m, WK_BF16, in, flags, out + 1, count));
        c = placed(m, WK_F32, in, flags, out, count + 4);
        expect_rejected("d_count not aligned to 8 bytes", WK_ERROR_INVALID_POINTER, c);
        c.n = 0;
        expect_rejected("d_count not aligned to 8 bytes, n = 0", WK_ERROR_INVALID_POINTER, c);

        /* Overlaps. */
        expect_rejected(where ? "d_indices two f32 past d_in" : "d_out one element past d_in",
                        WK_ERROR_INVALID_ARGUMENT, placed(m, WK_F32, in, flags, in + (where ? 8 : 4), count));
        expect_rejected(where ? "d_indices one index before d_in" : "d_out two elements before d_in",
                        WK_ERROR_INVALID_ARGUMENT, placed(m, WK_F32, in + 8, flags, in, count));
        expect_rejected(where ? "d_indices sharing d_in's last element" : "d_out sharing only d_in's last element",
                        WK_ERROR_INVALID_ARGUMENT,
                        placed(m, WK_F32, in, flags, in + (n - 1) * 4 - (where ? 4 : 0), count));
        expect_rejected("f16 output just past d_in's start", WK_ERROR_INVALID_ARGUMENT,
                        placed(m, WK_F16, in, flags, in + (where ? 8 : 2), count));
        if (!wk_ref_select_in_place_ok(m)) {
            expect_rejected("in place, which this mode does not allow", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_F32, in, flags, in, count));
            expect_rejected("in place, 8-byte elements", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_I64, in, flags, in, count));
        } else {
            expect_rejected("in place but misaligned", WK_ERROR_INVALID_POINTER,
                            placed(m, WK_F32, in + 2, flags, in + 2, count));
        }
        expect_rejected("d_count inside d_in", WK_ERROR_INVALID_ARGUMENT, placed(m, WK_F32, in, flags, out, in + 8));
        expect_rejected(where ? "d_count inside d_indices" : "d_count inside d_out", WK_ERROR_INVALID_ARGUMENT,
                        placed(m, WK_F32, in, flags, out, out + 16));
        /* 8-aligned: over the last index, or the last two f32 outputs. */
        expect_rejected("d_count over the last output", WK_ERROR_INVALID_ARGUMENT,
                        placed(m, WK_F32, in, flags, out, out + (where ? 8 * (n - 1) : 4 * (n - 2))));
        if (wk_ref_select_in_place_ok(m))
            expect_rejected("in place, d_count inside the data", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_F32, in, flags, in, in + 200));
        if (has_flags(m)) {
            expect_rejected("d_flags inside d_out", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_F32, in, out + 3, out, count));
            expect_rejected("d_flags' last byte on d_out's first", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_F32, in, out - n + 1, out, count));
            expect_rejected("in place, d_flags inside the data", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_F32, in, in + 8, in, count));
            expect_rejected("d_count inside d_flags", WK_ERROR_INVALID_ARGUMENT,
                            placed(m, WK_F32, in, flags, out, flags + 8));
        }

        c = make_call(m, WK_F32);
        c.n = SIZE_MAX / 2;
        expect_rejected("n * size overflows", WK_ERROR_LIMIT, c);
        c.n = SIZE_MAX;
        expect_rejected("n = SIZE_MAX", WK_ERROR_LIMIT, c);
        c = make_call(m, WK_F16);
        c.n = (size_t)1 << 50;
        expect_rejected("n = 2^50 (more than 2^29 tiles)", WK_ERROR_LIMIT, c);
    }
}

/* ---------------------------------------------------------------- n = 0 */

/* n = 0: success, one zero written to d_count by a memset and nothing
 * else enqueued or touched, whatever the other pointers are. */
static void test_empty(void)
{
    for (int mi = 0; mi < WK_REF_SELECT_MODE_COUNT; ++mi) {
        wk_ref_select_mode m = (wk_ref_select_mode)mi;
        for (int nulls = 0; nulls < 2; ++nulls) {
            select_call c = make_call(m, WK_F64);
            c.n = 0;
            if (nulls) {
                c.in = NULL;
                c.out = NULL;
                c.flags = NULL;
            }
            poison_region();
            wk_capture got;
            wk_status st = captured(&c, &got);
            char label[256];
            snprintf(label, sizeof label, "%s n = 0%s, captured: status %s, %zu nodes (%zu memsets, %zu kernels)",
                     mode_name(&c), nulls ? " with NULL data pointers" : "", wk_status_string(st), got.nodes,
                     got.memsets, got.kernels);
            wk_expect(&tally, st == WK_SUCCESS && got.nodes == 1 && got.memsets == 1 && got.kernels == 0, label);

            poison_region();
            st = run_call(&c, stream);
            size_t changed = region_changes(COUNT_AT, sizeof(uint64_t));
            uint64_t count = 99;
            CHECK_CUDA(cudaMemcpy(&count, c.count, sizeof count, cudaMemcpyDeviceToHost));
            snprintf(label, sizeof label, "%s n = 0%s: status %s, count %" PRIu64 ", %zu other bytes changed",
                     mode_name(&c), nulls ? " with NULL data pointers" : "", wk_status_string(st), count, changed);
            wk_expect(&tally, st == WK_SUCCESS && count == 0 && changed == 0 && strlen(wk_last_error_message()) == 0,
                      label);
        }
    }
}

/* ------------------------------------------------------- one launch each */

/* A good call, captured: success, no message, and one kernel. */
static void expect_one_launch(const char *what, select_call c)
{
    char label[512];
    wk_capture got;
    wk_status st = captured(&c, &got);
    snprintf(label, sizeof label, "%s %s n=%zu %s: status %s (%s), %zu nodes, %zu kernels (want 1)", mode_name(&c),
             wk_dtype_name(c.dtype), c.n, what, wk_status_string(st), wk_last_error_message(), got.nodes,
             got.kernels);
    wk_expect(&tally, st == WK_SUCCESS && got.nodes == 1 && got.kernels == 1, label);
    if (st == WK_SUCCESS)
        wk_expect(&tally, strlen(wk_last_error_message()) == 0, "a successful call leaves no error message");
}

/* Calls that are right though they look odd: in place, ranges that touch
 * but do not overlap, flags at any byte, d_count right next to the data. */
static void test_accepted_shapes(void)
{
    unsigned char *a = d_region, *in = d_region + IN_AT, *flags = d_region + FLAGS_AT, *out = d_region + OUT_AT;
    unsigned char *count = d_region + COUNT_AT;
    const size_t n = N_DEFAULT;
    for (int mi = 0; mi < WK_REF_SELECT_MODE_COUNT; ++mi) {
        wk_ref_select_mode m = (wk_ref_select_mode)mi;
        int where = m == WK_REF_WHERE;
        if (wk_ref_select_in_place_ok(m)) {
            expect_one_launch("in place", placed(m, WK_F32, in, flags, in, count));
            expect_one_launch("in place at an odd element", placed(m, WK_F16, a + 6, flags, a + 6, count));
        }
        expect_one_launch("output right after d_in, d_count right after the output",
                          placed(m, WK_F32, in, flags, a + n * 4, a + n * 4 + n * (where ? 8 : 4)));
        expect_one_launch("output right before d_in, d_count right after d_in",
                          placed(m, WK_I64, a + n * 8, a + 2048, a, a + 2 * n * 8));
        expect_one_launch("d_in +4 bytes, output +8 bytes", placed(m, WK_F32, a + 4, flags, a + 2048 + 8, count));
        expect_one_launch("bf16 at odd elements",
                          placed(m, WK_BF16, a + 2, flags, a + 2048 + (where ? 8 : 14), count));
        if (has_flags(m)) {
            expect_one_launch("d_flags at an odd byte", placed(m, WK_U32, in, a + FLAGS_AT + 3, out, count));
            expect_one_launch("d_flags right after d_in, d_out right after d_flags",
                              placed(m, WK_U32, in, a + n * 4, a + n * 5, a + 2048));
        }
    }
}

/* Exactly one kernel launch for n > 0 at every size: captured, not run.
 * The workspaces are reserved first, so that the captures allocate
 * nothing. Sizes up to 2^34 are in place in a small
 * buffer, with d_count in a buffer below it so that no size makes them
 * overlap; the modes that cannot run in place take sizes up to 2^20 in
 * buffers of their own. */
static void test_single_launch(void)
{
    const size_t largest = (size_t)1 << 34;
    const wk_dtype dtypes[] = {WK_F32, WK_F16, WK_U64};
    for (size_t d = 0; d < 3; ++d) {
        wk_status st = wk_scan_reserve(ctx, largest, dtypes[d]);
        char label[128];
        snprintf(label, sizeof label, "wk_scan_reserve for 2^34 %s elements: %s", wk_dtype_name(dtypes[d]),
                 wk_status_string(st));
        wk_expect(&tally, st == WK_SUCCESS, label);
    }
    unsigned char *x, *y, *lo, *hi;
    CHECK_CUDA(cudaMalloc((void **)&x, 4096));
    CHECK_CUDA(cudaMalloc((void **)&y, 4096));
    lo = x < y ? x : y;
    hi = x < y ? y : x;
    const size_t in_place_sizes[] = {1, 1000, (size_t)1 << 20, ((size_t)1 << 31) + 5, largest};
    for (size_t s = 0; s < 5; ++s)
        for (size_t d = 0; d < 3; ++d) {
            const wk_ref_select_mode modes[2] = {WK_REF_SELECT_IF, WK_REF_UNIQUE};
            for (int k = 0; k < 2; ++k) {
                select_call c = make_call(modes[k], dtypes[d]);
                c.in = c.out = hi;
                c.count = (uint64_t *)lo;
                c.n = in_place_sizes[s];
                expect_one_launch("in place", c);
            }
        }

    const size_t big = (size_t)1 << 20;
    unsigned char *d_in, *d_out, *d_flags;
    CHECK_CUDA(cudaMalloc((void **)&d_in, big * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_out, big * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_flags, big));
    const size_t sizes[] = {1, 1000, 65537, big};
    for (size_t s = 0; s < 4; ++s)
        for (size_t d = 0; d < 3; ++d)
            for (int mi = 0; mi < WK_REF_SELECT_MODE_COUNT; ++mi) {
                select_call c = make_call((wk_ref_select_mode)mi, dtypes[d]);
                c.in = d_in;
                c.out = d_out;
                c.flags = d_flags;
                c.count = (uint64_t *)lo;
                c.n = sizes[s];
                expect_one_launch("apart", c);
            }
    WK_FREE_DEVICE(x, y, d_in, d_out, d_flags);
}

/* --------------------------------------------------------- output checks */

/* A case of the quick list with this mode and dtype and plain data: its
 * predicate keeps some values and drops others. The caller sets the rest. */
static wk_select_case template_case(wk_ref_select_mode m, wk_dtype d, uint64_t seed)
{
    size_t count = wk_select_cases(WK_CASES_QUICK, seed, NULL, 0);
    wk_select_case *all = malloc(count * sizeof *all), found;
    wk_select_cases(WK_CASES_QUICK, seed, all, count);
    memset(&found, 0, sizeof found);
    for (size_t i = 0; i < count; ++i)
        if (all[i].mode == m && all[i].dtype == d && all[i].special == WK_SELECT_PLAIN) {
            found = all[i];
            break;
        }
    free(all);
    found.mode = m;
    found.dtype = d;
    found.seed = seed;
    found.in_place = 0;
    found.in_offset = found.out_offset = found.flags_offset = 0;
    return found;
}

/* The call of case c on context `on`, with these buffers. */
static select_call call_of(const wk_select_case *c, wk_context *on, const void *in, const uint8_t *flags, void *out,
                           uint64_t *count)
{
    return (select_call){.ctx = on, .mode = c->mode, .in = in, .flags = flags, .out = out, .count = count,
                         .n = c->n, .dtype = c->dtype, .predicate = c->predicate};
}

/* Checks a call's results from host copies: the count and every output
 * against the reference, and slot[0 .. slot_bytes) (the output buffer,
 * whose outputs start at byte `lead`) unchanged past the outputs: still
 * `poison`, or equal to `image` (in place: the input as it was). Prints a
 * failure; returns 1 when all is right. */
static int check_results(const char *what, const wk_select_case *c, const void *h_in, const uint8_t *h_flags,
                         const unsigned char *slot, size_t lead, size_t slot_bytes, const unsigned char *image,
                         uint64_t got_count)
{
    wk_ref_select_spec spec = wk_select_case_spec(c);
    char msg[1536], name[256];
    uint64_t want = 0;
    size_t bad = wk_ref_check_select(h_in, h_flags, c->n, &spec, slot + lead, got_count, &want, msg, sizeof msg);
    size_t oelem = wk_ref_select_out_size(c->mode, c->dtype);
    size_t end = lead + (c->mode == WK_REF_PARTITION_IF ? c->n : (size_t)want) * oelem, stray = 0;
    for (size_t b = 0; b < slot_bytes; ++b)
        if ((b < lead || b >= end) && slot[b] != (image ? image[b] : POISON))
            stray++;
    if (bad != 0 || stray != 0) {
        wk_describe_select_case(c, name, sizeof name);
        printf("FAIL %s: %s: %zu bytes changed outside the outputs; %s\n", what, name, stray, msg);
    }
    return bad == 0 && stray == 0;
}

/* ------------------------------------------------------------ back to back */

/* One call of the back-to-back test: its case, and where its buffers are. */
typedef struct b2b_call {
    wk_select_case c;
    size_t in_lead, out_lead; /* bytes into the call's slots */
    int scan;                 /* 1: an i32 inclusive sum scan instead */
} b2b_call;

/* 60 calls enqueued back to back with no synchronization between them:
 * every mode, eight dtypes, sizes from 0 to 300007 elements (one tile to
 * dozens), offsets, in place where allowed, keep patterns from 0 to 100 %,
 * and every sixth an i32 scan on the same context (the select and the scan
 * share the tile slots, so each must find the other's statuses out of its
 * way). Then 6 partitions each reading the one before's output. Every
 * output, count and the bytes around them are checked. */
static void test_back_to_back(uint64_t seed)
{
    enum { CALLS = 60, CHAIN = 6 };
    const size_t sizes[] = {1, 1000, 8191, 8193, 70001, 300007, 16385, 33, 0, 65537};
    const wk_dtype dtypes[] = {WK_F32, WK_I32, WK_F16, WK_U64, WK_F64, WK_BF16, WK_I64, WK_U32};
    const wk_keep_pattern keeps[] = {WK_KEEP_HALF, WK_KEEP_1PCT, WK_KEEP_99PCT, WK_KEEP_NONE, WK_KEEP_ALL,
                                     WK_KEEP_ALTERNATE, WK_KEEP_BLOCKS};
    const size_t max_n = 300007, slot = round_up((max_n + 8) * 8 + 256, 256);
    unsigned char *h_in = malloc(slot * CALLS), *h_out = malloc(slot * CALLS), *h_flags = malloc(slot * CALLS);
    uint64_t *h_counts = malloc(CALLS * 4 * sizeof *h_counts);
    unsigned char *d_in, *d_out, *d_flags;
    uint64_t *d_counts;
    if (!h_in || !h_out || !h_flags || !h_counts) {
        printf("FAIL back to back: out of host memory\n");
        exit(1);
    }
    CHECK_CUDA(cudaMalloc((void **)&d_in, slot * CALLS));
    CHECK_CUDA(cudaMalloc((void **)&d_out, slot * CALLS));
    CHECK_CUDA(cudaMalloc((void **)&d_flags, slot * CALLS));
    CHECK_CUDA(cudaMalloc((void **)&d_counts, CALLS * 4 * sizeof *d_counts));
    memset(h_in, POISON, slot * CALLS);
    memset(h_flags, 0, slot * CALLS);

    b2b_call calls[CALLS];
    for (int k = 0; k < CALLS; ++k) {
        b2b_call *b = &calls[k];
        memset(b, 0, sizeof *b);
        b->scan = k % 6 == 5;
        wk_ref_select_mode m = (wk_ref_select_mode)(k % WK_REF_SELECT_MODE_COUNT);
        b->c = template_case(m, b->scan ? WK_I32 : dtypes[k % 8], seed + (uint64_t)k);
        b->c.n = sizes[k % 10];
        b->c.keep = keeps[k % 7];
        b->c.in_offset = (size_t)k % 4;
        b->c.out_offset = (size_t)k / 4 % 4;
        b->c.flags_offset = (size_t)k / 3 % 4;
        b->c.in_place = !b->scan && k % 4 == 1 && wk_ref_select_in_place_ok(m);
        size_t elem = wk_dtype_size(b->c.dtype), oelem = wk_ref_select_out_size(m, b->c.dtype);
        b->in_lead = 128 + b->c.in_offset * elem;
        b->out_lead = b->c.in_place ? b->in_lead : 128 + b->c.out_offset * oelem;
        unsigned char *in = h_in + (size_t)k * slot;
        wk_select_case_data(&b->c, in + b->in_lead, h_flags + (size_t)k * slot + b->c.flags_offset);
    }
    CHECK_CUDA(cudaMemcpy(d_in, h_in, slot * CALLS, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_flags, h_flags, slot * CALLS, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_out, POISON, slot * CALLS));
    CHECK_CUDA(cudaMemset(d_counts, POISON, CALLS * 4 * sizeof *d_counts));
    CHECK_CUDA(cudaDeviceSynchronize());

    int launched = 1;
    for (int k = 0; k < CALLS; ++k) {
        b2b_call *b = &calls[k];
        unsigned char *in = d_in + (size_t)k * slot + b->in_lead;
        unsigned char *out = b->c.in_place ? in : d_out + (size_t)k * slot + b->out_lead;
        if (b->scan) {
            launched &= wk_inclusive_scan(ctx, in, out, b->c.n, WK_I32, WK_SUM, stream) == WK_SUCCESS;
            continue;
        }
        select_call s = call_of(&b->c, ctx, in, d_flags + (size_t)k * slot + b->c.flags_offset, out,
                                d_counts + 4 * k + 1);
        launched &= run_call(&s, stream) == WK_SUCCESS;
    }

    /* The chain: y[0] random i32, y[j + 1] = partition(y[j]) with its own
     * constant. Each reads what the one before wrote. */
    const size_t chain_n = 300007;
    int32_t *h_chain[CHAIN + 1], *d_chain[CHAIN + 1];
    wk_ref_select_spec chain_spec[CHAIN];
    uint64_t *d_chain_counts;
    CHECK_CUDA(cudaMalloc((void **)&d_chain_counts, CHAIN * sizeof(uint64_t)));
    for (int j = 0; j <= CHAIN; ++j) {
        h_chain[j] = malloc(chain_n * 4);
        CHECK_CUDA(cudaMalloc((void **)&d_chain[j], chain_n * 4));
    }
    wk_generate(h_chain[0], chain_n, WK_I32, WK_GEN_UNIFORM, seed + 1000);
    CHECK_CUDA(cudaMemcpy(d_chain[0], h_chain[0], chain_n * 4, cudaMemcpyHostToDevice));
    for (int j = 0; j < CHAIN; ++j) {
        memset(&chain_spec[j], 0, sizeof chain_spec[j]);
        chain_spec[j].mode = WK_REF_PARTITION_IF;
        chain_spec[j].dtype = WK_I32;
        chain_spec[j].predicate.compare = j % 2 ? WK_LESS : WK_GREATER_EQUAL;
        chain_spec[j].predicate.a.i32 = (int32_t)wk_rand64(seed, (uint64_t)j + 5000);
        launched &= wk_partition_if(ctx, d_chain[j], d_chain[j + 1], d_chain_counts + j, chain_n, WK_I32,
                                    chain_spec[j].predicate, stream) == WK_SUCCESS;
    }
    wk_expect(&tally, launched, "66 calls enqueued back to back are accepted");

    CHECK_CUDA(cudaMemcpyAsync(h_out, d_out, slot * CALLS, cudaMemcpyDeviceToHost, stream));
    unsigned char *h_in_after = malloc(slot * CALLS);
    CHECK_CUDA(cudaMemcpyAsync(h_in_after, d_in, slot * CALLS, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaMemcpyAsync(h_counts, d_counts, CALLS * 4 * sizeof *h_counts, cudaMemcpyDeviceToHost, stream));
    int32_t *h_chain_got = malloc(chain_n * 4);
    uint64_t chain_count_got = 0;
    CHECK_CUDA(cudaMemcpyAsync(h_chain_got, d_chain[CHAIN], chain_n * 4, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaMemcpyAsync(&chain_count_got, d_chain_counts + CHAIN - 1, 8, cudaMemcpyDeviceToHost, stream));
    wait_stream(stream, HANG_SECONDS, "back to back");

    int ok = 1, scans_ok = 1, counts_ok = 1;
    unsigned char poison8[8];
    memset(poison8, POISON, 8);
    for (int k = 0; k < CALLS; ++k) {
        const b2b_call *b = &calls[k];
        const unsigned char *in = h_in + (size_t)k * slot;
        if (b->scan) {
            /* The scan of small-range data is exact: compare it whole. */
            int32_t *want = malloc(b->c.n * 4 + 4);
            wk_ref_scan_spec spec;
            memset(&spec, 0, sizeof spec);
            spec.dtype = WK_I32;
            spec.op = WK_SUM;
            wk_ref_scan(in + b->in_lead, want, b->c.n, &spec);
            const unsigned char *got = (b->c.in_place ? h_in_after : h_out) + (size_t)k * slot + b->out_lead;
            scans_ok &= memcmp(got, want, b->c.n * 4) == 0;
            free(want);
            continue;
        }
        const unsigned char *slot_got = (b->c.in_place ? h_in_after : h_out) + (size_t)k * slot;
        ok &= check_results("back to back", &b->c, in + b->in_lead, h_flags + (size_t)k * slot + b->c.flags_offset,
                            slot_got, b->out_lead, slot, b->c.in_place ? in : NULL, h_counts[4 * k + 1]);
        /* The count's neighbours keep their poison. */
        counts_ok &= memcmp(&h_counts[4 * k], poison8, 8) == 0 && memcmp(&h_counts[4 * k + 2], poison8, 8) == 0;
    }
    wk_expect(&tally, ok, "60 calls back to back on one stream: every count and output right, nothing else written");
    wk_expect(&tally, counts_ok, "back to back: nothing written next to any d_count");
    wk_expect(&tally, scans_ok, "back to back: the scans between the selects, on the same tile slots, are right");

    for (int j = 0; j < CHAIN; ++j)
        wk_ref_select(h_chain[j], NULL, h_chain[j + 1], chain_n, &chain_spec[j], NULL);
    wk_select_case last;
    memset(&last, 0, sizeof last);
    last.mode = WK_REF_PARTITION_IF;
    last.dtype = WK_I32;
    last.n = chain_n;
    last.predicate = chain_spec[CHAIN - 1].predicate;
    ok = check_results("chain", &last, h_chain[CHAIN - 1], NULL, (const unsigned char *)h_chain_got, 0, chain_n * 4,
                       NULL, chain_count_got);
    wk_expect(&tally, ok, "6 partitions each reading the previous one's output, launched back to back: the last is right");

    for (int j = 0; j <= CHAIN; ++j) {
        free(h_chain[j]);
        CHECK_CUDA(cudaFree(d_chain[j]));
    }
    WK_FREE_DEVICE(d_chain_counts, d_in, d_out, d_flags, d_counts);
    WK_FREE_HOST(h_chain_got, h_in_after, h_in, h_out, h_flags, h_counts);
}

/* --------------------------------------------------------- capture growth */

/* A select on an input larger than the workspaces cover, while the stream
 * is being captured, gets a workspace grown beside the graph: the capture is
 * one kernel, and the graph, launched, selects right. A context of its own,
 * so that the earlier tests' growth does not cover the size already. */
static void test_capture_growth(uint64_t seed)
{
    wk_context *fresh = wk_fresh_context(&tally, "a second context");
    if (!fresh)
        return;
    /* 1 GiB of input: far beyond the slots wk_create reserves (warpkit.h:
     * for 128 MiB). In place, so that one buffer does. */
    wk_select_case c = template_case(WK_REF_UNIQUE, WK_I32, seed);
    c.n = ((size_t)1 << 28) + 5;
    c.keep = WK_KEEP_EVERY;
    c.run_length = 3;
    int32_t *h = malloc(c.n * 4), *got = malloc(c.n * 4);
    unsigned char *d;
    uint64_t *d_count;
    CHECK_CUDA(cudaMalloc((void **)&d, c.n * 4 + 16));
    CHECK_CUDA(cudaMalloc((void **)&d_count, 8));
    wk_select_case_data(&c, h, NULL);
    CHECK_CUDA(cudaMemcpy(d + 4, h, c.n * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_count, POISON, 8));

    select_call call = call_of(&c, fresh, d + 4, NULL, d + 4, d_count);
    cudaGraph_t graph;
    wk_capture_one_kernel(&tally, stream, enqueue_call, &call, "a capture that grows the workspace", &graph);
    if (graph) {
        uint64_t count = 0;
        wk_launch_graph_once(stream, graph, "captured unique");
        CHECK_CUDA(cudaMemcpy(got, d + 4, c.n * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(&count, d_count, 8, cudaMemcpyDeviceToHost));
        int ok = check_results("captured graph", &c, h, NULL, (const unsigned char *)got, 0, c.n * 4,
                               (const unsigned char *)h, count);
        wk_expect(&tally, ok, "the captured in-place unique of 2^28 + 5 elements, launched, is right");
        CHECK_CUDA(cudaGraphDestroy(graph));
    }
    WK_FREE_DEVICE(d, d_count);
    WK_FREE_HOST(h, got);
    wk_destroy(fresh);
}

int main(void)
{
    uint64_t seed;
    int start = wk_api_test_start(&ctx, &seed, &stream, &d_region, REGION_BYTES);
    if (start >= 0)
        return start;

    test_rejections();
    test_empty();
    test_accepted_shapes();
    test_single_launch();
    test_back_to_back(seed + 10);
    test_capture_growth(seed + 20);

    return wk_api_test_finish(ctx, stream, d_region, &tally);
}
