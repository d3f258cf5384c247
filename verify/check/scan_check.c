#include "check/scan_check.h"

#include "warpkit.h"
#include "ref/reference.h"
#include "scan/plan.h"
#include "ref/scan_reference.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

/* The output region is poisoned with POISON_BYTE before the call; the bytes
 * around the input hold GUARD_BYTE (all ones: NaN for floats, -1 or the
 * largest value for integers), which changes the result of a kernel that
 * reads outside [d_in, d_in + n). In place, the guards around the input are
 * those around the output too. */
#define POISON_BYTE 0xA5
#define GUARD_BYTE 0xFF

void wk_describe_scan_case(const wk_scan_case *c, char *buf, size_t size)
{
    char kind[96], where[48];
    if (c->exclusive) {
        char init[64];
        wk_ref_format(c->dtype, WK_SUM, &c->init, init, sizeof init);
        snprintf(kind, sizeof kind, "excl(init %s)", init);
    } else {
        snprintf(kind, sizeof kind, "incl");
    }
    if (c->in_place)
        snprintf(where, sizeof where, "in+%zu in place", c->in_offset);
    else
        snprintf(where, sizeof where, "in+%zu out+%zu", c->in_offset, c->out_offset);
    snprintf(buf, size, "%-4s %-3s n=%-10zu %-14s %s %s%s", wk_dtype_name(c->dtype), wk_op_name(c->op), c->n,
             where, kind, wk_pattern_name(c->pattern), wk_special_name(c->special));
}

static wk_check_result fail_msg(char *msg, size_t size, const char *name, const char *detail)
{
    snprintf(msg, size, "%s: %s", name, detail);
    return WK_CHECK_FAIL;
}

/* Bytes of region[0 .. size) outside [begin, end) that are not `expected`:
 * how many, and the lowest one's position relative to the output (negative:
 * that many bytes before it; from 0: the byte index past its end). */
static size_t stray_bytes(const unsigned char *region, size_t size, size_t begin, size_t end, unsigned char expected,
                          long long *first)
{
    size_t count = 0;
    *first = 0;
    for (size_t b = 0; b < begin; ++b)
        if (region[b] != expected && count++ == 0)
            *first = -(long long)(begin - b);
    for (size_t b = end; b < size; ++b)
        if (region[b] != expected && count++ == 0)
            *first = (long long)(b - end);
    return count;
}

wk_check_result wk_check_scan_case(wk_check_env *env, const wk_scan_case *c, char *msg, size_t msg_size)
{
    char name[192], detail[1024];
    wk_describe_scan_case(c, name, sizeof name);
    size_t elem = wk_dtype_size(c->dtype);
    if (elem == 0)
        return fail_msg(msg, msg_size, name, "unknown dtype");

    /* [guard | offset | n elements | guard], for the input and (unless in
     * place) for the output, each starting at a 256-byte boundary. */
    size_t data_bytes = c->n * elem;
    size_t in_lead = WK_SCAN_GUARD_BYTES + c->in_offset * elem;
    size_t in_region = in_lead + data_bytes + WK_SCAN_GUARD_BYTES;
    size_t out_lead = c->in_place ? in_lead : WK_SCAN_GUARD_BYTES + c->out_offset * elem;
    size_t out_region = c->in_place ? in_region : out_lead + data_bytes + WK_SCAN_GUARD_BYTES;
    size_t readback = in_region > out_region ? in_region : out_region;
    wk_check_result r =
        wk_check_reserve_case(env, in_region, c->in_place ? 0 : out_region, readback, name, msg, msg_size);
    if (r != WK_CHECK_PASS)
        return r;

    unsigned char *h_in = env->h_in, *h_back = env->h_big;
    unsigned char *d_in = (unsigned char *)env->d_in + in_lead;
    unsigned char *d_out_region = c->in_place ? (unsigned char *)env->d_in : (unsigned char *)env->d_big;
    unsigned char *d_out = d_out_region + out_lead;
    memset(h_in, GUARD_BYTE, in_lead);
    memset(h_in + in_lead + data_bytes, GUARD_BYTE, WK_SCAN_GUARD_BYTES);
    wk_generate(h_in + in_lead, c->n, c->dtype, c->pattern, c->seed);
    wk_plant_specials(h_in + in_lead, c->n, c->dtype, c->special, c->seed);
    if (cudaMemcpy(env->d_in, h_in, in_region, cudaMemcpyHostToDevice) != cudaSuccess ||
        (!c->in_place && cudaMemset(d_out_region, POISON_BYTE, out_region) != cudaSuccess) ||
        cudaDeviceSynchronize() != cudaSuccess)
        return fail_msg(msg, msg_size, name, "cannot stage the input");

    wk_status st = c->exclusive
                       ? wk_exclusive_scan(env->ctx, d_in, d_out, c->n, c->dtype, c->op, c->init, env->stream)
                       : wk_inclusive_scan(env->ctx, d_in, d_out, c->n, c->dtype, c->op, env->stream);
    /* A scan the library refuses (a sum of bools) must say so and leave
     * its output as it was. */
    wk_status want = wk_ref_dtype_op_status(c->dtype, c->op);
    if (st != want) {
        snprintf(detail, sizeof detail, "returned %s, want %s (%s)", wk_status_string(st), wk_status_string(want),
                 wk_last_error_message());
        return fail_msg(msg, msg_size, name, detail);
    }
    cudaError_t err = cudaStreamSynchronize(env->stream);
    if (err == cudaSuccess)
        err = cudaMemcpy(h_back, d_out_region, out_region, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return fail_msg(msg, msg_size, name, cudaGetErrorString(err));
    if (want != WK_SUCCESS) {
        long long first;
        int kept = c->in_place ? memcmp(h_back, h_in, out_region) == 0
                               : stray_bytes(h_back, out_region, 0, 0, POISON_BYTE, &first) == 0;
        if (!kept)
            return fail_msg(msg, msg_size, name, "refused, but wrote its output");
        snprintf(msg, msg_size, "%s: refused (%s), output untouched", name, wk_status_string(st));
        return WK_CHECK_PASS;
    }

    wk_ref_scan_spec spec = {c->dtype, c->op, c->exclusive, c->init};
    /* The plan the library made on this device (scan_api.cu). */
    const int pipelined_ok = wk_check_pipelined_ok(WK_SCAN_PIPELINED_SHARED_BYTES);
    if (pipelined_ok < 0)
        return fail_msg(msg, msg_size, name, "cannot read the device's attributes");
    wk_tile_plan plan;
    if (wk_plan_scan_for((uintptr_t)d_in, (uintptr_t)d_out, c->n, wk_dtype_size(c->dtype), pipelined_ok, &plan) != 0)
        return fail_msg(msg, msg_size, name, "cannot plan the scan for its tolerance");
    size_t bad = wk_ref_check_scan(h_in + in_lead, h_back + out_lead, c->n, &spec, &plan, detail, sizeof detail);

    /* Nothing may change around the output (for n = 0: nothing at all).
     * Reported with the outputs' verdict, which helps tell a misplaced
     * store from a stray one. */
    long long first;
    size_t stray = stray_bytes(h_back, out_region, out_lead, out_lead + data_bytes,
                               c->in_place ? GUARD_BYTE : POISON_BYTE, &first);
    if (stray > 0) {
        snprintf(msg, msg_size, "%s: wrote %zu bytes outside its output, the first %s %lld %s; %s", name, stray,
                 first < 0 ? "at" : "at byte", first < 0 ? -first : first,
                 first < 0 ? "bytes before d_out" : "past its end", detail);
        return WK_CHECK_FAIL;
    }
    if (bad != 0)
        return fail_msg(msg, msg_size, name, detail);

    /* The input is const: it must come back as it went in, guards and all. */
    if (!c->in_place) {
        err = cudaMemcpy(h_back, env->d_in, in_region, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess)
            return fail_msg(msg, msg_size, name, cudaGetErrorString(err));
        if (memcmp(h_back, h_in, in_region) != 0)
            return fail_msg(msg, msg_size, name, "changed its input or the guards around it");
    }
    snprintf(msg, msg_size, "%s: %s", name, detail);
    return WK_CHECK_PASS;
}
