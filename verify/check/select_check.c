#include "check/select_check.h"

#include "check/select_cases.h"
#include "ref/select_reference.h"

#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The output and the count are poisoned with POISON_BYTE before the call;
 * the bytes around the input and the flags hold GUARD_BYTE (all ones: NaN
 * for floats, -1 or the largest value for integers, a nonzero flag), which
 * changes the result of a kernel that reads outside them. */
#define POISON_BYTE 0xA5
#define GUARD_BYTE 0xFF

/* d_count sits inside env->d_out, with poisoned bytes on both sides. */
#define COUNT_AT 24

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

static wk_check_result fail_msg(char *msg, size_t size, const char *name, const char *detail)
{
    snprintf(msg, size, "%s: %s", name, detail);
    return WK_CHECK_FAIL;
}

/* Bytes of got[0 .. size) outside [begin, end) that differ from the
 * expected image (or from `byte` where image is NULL): how many, and the
 * lowest one's position relative to the range (negative: that many bytes
 * before it; from 0: the byte index past its end). */
static size_t stray_bytes(const unsigned char *got, const unsigned char *image, unsigned char byte, size_t size,
                          size_t begin, size_t end, long long *first)
{
    size_t count = 0;
    *first = 0;
    for (size_t b = 0; b < begin; ++b)
        if (got[b] != (image ? image[b] : byte) && count++ == 0)
            *first = -(long long)(begin - b);
    for (size_t b = end; b < size; ++b)
        if (got[b] != (image ? image[b] : byte) && count++ == 0)
            *first = (long long)(b - end);
    return count;
}

static wk_status call(wk_check_env *env, const wk_select_case *c, const void *d_in, const uint8_t *d_flags,
                      void *d_out, uint64_t *d_count)
{
    switch (c->mode) {
    case WK_REF_SELECT_IF:
        return wk_select_if(env->ctx, d_in, d_out, d_count, c->n, c->dtype, c->predicate, env->stream);
    case WK_REF_SELECT_FLAGGED:
        return wk_select_flagged(env->ctx, d_in, d_flags, d_out, d_count, c->n, c->dtype, env->stream);
    case WK_REF_PARTITION_IF:
        return wk_partition_if(env->ctx, d_in, d_out, d_count, c->n, c->dtype, c->predicate, env->stream);
    case WK_REF_UNIQUE: return wk_unique(env->ctx, d_in, d_out, d_count, c->n, c->dtype, env->stream);
    case WK_REF_WHERE:
        return wk_where(env->ctx, d_in, (int64_t *)d_out, d_count, c->n, c->dtype, c->predicate, env->stream);
    }
    return WK_ERROR_INVALID_ARGUMENT;
}

/* Where everything lies, in bytes from the start of its region. The input
 * region is [guard | offset | n elements | guard], then for select_flagged,
 * from the next 256-byte boundary, [guard | flags offset | n flags | guard];
 * the output region (env->d_big; the input region itself in place) is
 * [guard | offset | capacity outputs | guard]. */
typedef struct layout {
    size_t elem, out_elem;
    size_t in_lead, data_bytes, flags_lead, in_region;
    size_t capacity, out_lead, out_region;
} layout;

static void plan_input(const wk_select_case *c, layout *g)
{
    g->elem = wk_dtype_size(c->dtype);
    g->out_elem = wk_ref_select_out_size(c->mode, c->dtype);
    g->data_bytes = c->n * g->elem;
    g->in_lead = WK_SELECT_GUARD_BYTES + c->in_offset * g->elem;
    g->in_region = g->in_lead + g->data_bytes + WK_SELECT_GUARD_BYTES;
    g->flags_lead = 0;
    if (c->mode == WK_REF_SELECT_FLAGGED) {
        g->flags_lead = round_up(g->in_region, WK_SELECT_GUARD_BYTES) + WK_SELECT_GUARD_BYTES + c->flags_offset;
        g->in_region = g->flags_lead + c->n + WK_SELECT_GUARD_BYTES;
    }
}

/* The output has room for n outputs, as the API asks: the count is known
 * only on the device. */
static void plan_output(const wk_select_case *c, layout *g)
{
    g->capacity = c->n;
    if (c->in_place) {
        g->out_lead = g->in_lead;
        g->out_region = g->in_region;
    } else {
        g->out_lead = WK_SELECT_GUARD_BYTES + c->out_offset * g->out_elem;
        g->out_region = g->out_lead + g->capacity * g->out_elem + WK_SELECT_GUARD_BYTES;
    }
}

/* The input with its guards (and the flags with theirs) in h_in. */
static void stage_input(const wk_select_case *c, const layout *g, unsigned char *h_in)
{
    memset(h_in, GUARD_BYTE, g->in_lead);
    memset(h_in + g->in_lead + g->data_bytes, GUARD_BYTE, g->in_region - g->in_lead - g->data_bytes);
    uint8_t *flags = c->mode == WK_REF_SELECT_FLAGGED ? h_in + g->flags_lead : NULL;
    wk_select_case_data(c, h_in + g->in_lead, flags);
}

/* The bytes around the count: poisoned before, and still poisoned after. */
static int count_guards_intact(const unsigned char *block)
{
    for (size_t b = 0; b < WK_CHECK_OUT_BYTES; ++b)
        if ((b < COUNT_AT || b >= COUNT_AT + sizeof(uint64_t)) && block[b] != POISON_BYTE)
            return 0;
    return 1;
}

wk_check_result wk_check_select_case(wk_check_env *env, const wk_select_case *c, char *msg, size_t msg_size)
{
    char name[256], detail[1024];
    wk_describe_select_case(c, name, sizeof name);
    if (wk_ref_select_out_size(c->mode, c->dtype) == 0)
        return fail_msg(msg, msg_size, name, "unknown dtype or mode");
    wk_ref_select_spec spec = wk_select_case_spec(c);

    layout g;
    plan_input(c, &g);
    wk_check_result r = wk_check_reserve_case(env, g.in_region, 0, 0, name, msg, msg_size);
    if (r != WK_CHECK_PASS)
        return r;
    unsigned char *h_in = env->h_in;
    stage_input(c, &g, h_in);
    const uint8_t *h_flags = c->mode == WK_REF_SELECT_FLAGGED ? h_in + g.flags_lead : NULL;

    plan_output(c, &g);
    size_t readback = g.in_region > g.out_region ? g.in_region : g.out_region;
    r = wk_check_reserve_case(env, g.in_region, c->in_place ? 0 : g.out_region, readback, name, msg, msg_size);
    if (r != WK_CHECK_PASS)
        return r;

    unsigned char *h_back = env->h_big;
    unsigned char *d_in = (unsigned char *)env->d_in + g.in_lead;
    const uint8_t *d_flags = h_flags ? (const uint8_t *)env->d_in + g.flags_lead : NULL;
    unsigned char *d_out_region = c->in_place ? (unsigned char *)env->d_in : (unsigned char *)env->d_big;
    unsigned char *d_out = d_out_region + g.out_lead;
    uint64_t *d_count = (uint64_t *)((unsigned char *)env->d_out + COUNT_AT);
    if (cudaMemcpy(env->d_in, h_in, g.in_region, cudaMemcpyHostToDevice) != cudaSuccess ||
        (!c->in_place && cudaMemset(d_out_region, POISON_BYTE, g.out_region) != cudaSuccess) ||
        cudaMemset(env->d_out, POISON_BYTE, WK_CHECK_OUT_BYTES) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
        return fail_msg(msg, msg_size, name, "cannot stage the input");

    wk_status st = call(env, c, d_in, d_flags, d_out, d_count);
    if (st != WK_SUCCESS) {
        snprintf(detail, sizeof detail, "%s: %s", wk_status_string(st), wk_last_error_message());
        return fail_msg(msg, msg_size, name, detail);
    }
    unsigned char count_block[WK_CHECK_OUT_BYTES];
    cudaError_t err = cudaStreamSynchronize(env->stream);
    if (err == cudaSuccess)
        err = cudaMemcpy(h_back, d_out_region, g.out_region, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess)
        err = cudaMemcpy(count_block, env->d_out, WK_CHECK_OUT_BYTES, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return fail_msg(msg, msg_size, name, cudaGetErrorString(err));

    uint64_t got_count, want = 0;
    memcpy(&got_count, count_block + COUNT_AT, sizeof got_count);
    size_t bad = wk_ref_check_select(h_in + g.in_lead, h_flags, c->n, &spec, h_back + g.out_lead, got_count, &want,
                                     detail, sizeof detail);
    if (bad == WK_REF_SELECT_INVALID)
        return fail_msg(msg, msg_size, name, detail);
    if (!count_guards_intact(count_block)) {
        snprintf(msg, msg_size, "%s: wrote next to d_count; %s", name, detail);
        return WK_CHECK_FAIL;
    }

    /* Outputs past the count are left alone (partition writes all n), and
     * so is everything around the output: poison apart from the input; in
     * place, the input as it was, flags and guards included. Reported
     * with the outputs' verdict, which helps tell a misplaced store from a
     * stray one. */
    size_t written = (c->mode == WK_REF_PARTITION_IF ? c->n : (size_t)want) * g.out_elem;
    long long first;
    size_t stray = stray_bytes(h_back, c->in_place ? h_in : NULL, POISON_BYTE, g.out_region, g.out_lead,
                               g.out_lead + written, &first);
    if (stray > 0) {
        snprintf(msg, msg_size, "%s: wrote %zu bytes outside its %zu outputs, the first %s %lld %s; %s", name, stray,
                 written / g.out_elem, first < 0 ? "at" : "at byte", first < 0 ? -first : first,
                 first < 0 ? "bytes before d_out" : "past them", detail);
        return WK_CHECK_FAIL;
    }
    if (bad != 0)
        return fail_msg(msg, msg_size, name, detail);

    /* The input is const: it comes back as it went in, guards and all. */
    if (!c->in_place) {
        err = cudaMemcpy(h_back, env->d_in, g.in_region, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess)
            return fail_msg(msg, msg_size, name, cudaGetErrorString(err));
        if (memcmp(h_back, h_in, g.in_region) != 0)
            return fail_msg(msg, msg_size, name, "changed its input, its flags or the guards around them");
    }
    snprintf(msg, msg_size, "%s: %s", name, detail);
    return WK_CHECK_PASS;
}
