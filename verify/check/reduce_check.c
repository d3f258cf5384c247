#include "check/reduce_check.h"

#include "ref/half.h"
#include "warpkit.h"
#include "reduce/plan.h"
#include "api/tuning.h"
#include "ref/reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xA5
#define GUARD_BYTE 0xFF
#define WK_CHECK_GUARD_ELEMS 64

void wk_describe_case(const wk_reduce_case *c, char *buf, size_t size)
{
    snprintf(buf, size, "%-4s %-6s n=%-10zu offset=%zu %s%s", wk_dtype_name(c->dtype), wk_op_name(c->op), c->n,
             c->offset, wk_pattern_name(c->pattern), wk_special_name(c->special));
}

/* Small integers (|x| <= 8) summed in an accumulator with p significand
 * bits: while 8 n <= 2^p every partial sum, in any order, is an integer the
 * accumulator holds exactly, so the only error left is the final rounding
 * to the dtype. The check then uses depth 0, and a lost or doubled element
 * shows. */
static int sum_is_exact(const wk_reduce_case *c)
{
    if (c->op != WK_SUM || c->pattern != WK_GEN_SMALL_INTS || c->special != WK_SPECIAL_NONE ||
        !wk_dtype_is_float(c->dtype))
        return 0;
    double exact_limit = c->dtype == WK_F64 ? 0x1p53 : 0x1p24;
    return 8.0 * (double)c->n <= exact_limit;
}

static int fail_msg(char *msg, size_t size, const char *what, const char *detail)
{
    snprintf(msg, size, "%s: %s", what, detail);
    return 0;
}

int wk_check_reduce_case(wk_check_env *env, const wk_reduce_case *c, char *msg, size_t msg_size)
{
    char name[160], detail[384];
    wk_describe_case(c, name, sizeof name);
    size_t elem = wk_dtype_size(c->dtype);
    size_t bytes = (c->n + c->offset + WK_CHECK_GUARD_ELEMS) * elem;
    if (wk_check_reserve(env, bytes > 0 ? bytes : elem, 0, 0, detail, sizeof detail) != WK_CHECK_PASS)
        return fail_msg(msg, msg_size, name, detail);

    char *h = (char *)env->h_in + c->offset * elem;
    char *d = (char *)env->d_in + c->offset * elem;
    wk_generate(h, c->n, c->dtype, c->pattern, c->seed);
    wk_plant_specials(h, c->n, c->dtype, c->special, c->seed);
    unsigned char got[WK_CHECK_OUT_BYTES];
    /* Guards of all-ones bytes before and after the input (NaN for floats,
     * -1 or the largest value for integers) change the result of a kernel
     * that reads outside [d, d + n). */
    if (cudaMemset(env->d_in, GUARD_BYTE, c->offset * elem) != cudaSuccess ||
        cudaMemcpy(d, h, c->n * elem, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemset(d + c->n * elem, GUARD_BYTE, WK_CHECK_GUARD_ELEMS * elem) != cudaSuccess ||
        cudaMemset(env->d_out, POISON_BYTE, WK_CHECK_OUT_BYTES) != cudaSuccess)
        return fail_msg(msg, msg_size, name, "cannot stage the input");

    wk_status st = wk_reduce(env->ctx, d, env->d_out, c->n, c->dtype, c->op, env->stream);
    /* A call the library refuses (a sum of bools) must say so and leave
     * its output as it was. */
    wk_status want = wk_ref_dtype_op_status(c->dtype, c->op);
    if (st != want) {
        snprintf(detail, sizeof detail, "returned %s, want %s (%s)", wk_status_string(st), wk_status_string(want),
                 wk_last_error_message());
        return fail_msg(msg, msg_size, name, detail);
    }
    cudaError_t err = cudaStreamSynchronize(env->stream);
    if (err == cudaSuccess)
        err = cudaMemcpy(got, env->d_out, sizeof got, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return fail_msg(msg, msg_size, name, cudaGetErrorString(err));
    if (want != WK_SUCCESS) {
        for (size_t i = 0; i < sizeof got; ++i)
            if (got[i] != POISON_BYTE)
                return fail_msg(msg, msg_size, name, "refused, but wrote its output");
        snprintf(msg, msg_size, "%s: refused (%s), output untouched: ok", name, wk_status_string(st));
        return 1;
    }

    /* Nothing may be written past the result. */
    size_t result_bytes = wk_reduce_result_size(c->dtype, c->op);
    for (size_t i = result_bytes; i < sizeof got; ++i)
        if (got[i] != POISON_BYTE)
            return fail_msg(msg, msg_size, name, "wrote past the end of its result");

    wk_reduce_plan plan;
    if (wk_reduce_plan_of(env->ctx, d, c->n, c->dtype, &plan) != WK_SUCCESS)
        return fail_msg(msg, msg_size, name, wk_last_error_message());
    size_t depth = sum_is_exact(c) ? 0 : wk_reduce_plan_depth(&plan);
    int ok = wk_ref_check_reduce(h, c->n, c->dtype, c->op, depth, got, detail, sizeof detail);
    snprintf(msg, msg_size, "%s: %s", name, detail);
    return ok;
}
