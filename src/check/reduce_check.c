#include "reduce_check.h"

#include "half.h"
#include "internal.h"
#include "plan.h"
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xA5
#define GUARD_BYTE 0xFF
#define WK_CHECK_GUARD_ELEMS 64

wk_status wk_check_env_init(wk_check_env *env, int device)
{
    memset(env, 0, sizeof *env);
    wk_status st = wk_create(&env->ctx, device);
    if (st != WK_SUCCESS)
        return st;
    if (cudaSetDevice(wk_context_device(env->ctx)) != cudaSuccess ||
        cudaStreamCreate(&env->stream) != cudaSuccess ||
        cudaMalloc(&env->d_out, WK_CHECK_OUT_BYTES) != cudaSuccess) {
        wk_check_env_free(env);
        return WK_ERROR_CUDA;
    }
    return WK_SUCCESS;
}

void wk_check_env_free(wk_check_env *env)
{
    if (env->stream)
        cudaStreamDestroy(env->stream);
    cudaFree(env->d_in);
    cudaFree(env->d_out);
    free(env->h_in);
    wk_destroy(env->ctx);
    memset(env, 0, sizeof *env);
}

static int reserve(wk_check_env *env, size_t bytes)
{
    if (bytes <= env->in_bytes)
        return 0;
    cudaFree(env->d_in);
    free(env->h_in);
    env->d_in = NULL;
    env->h_in = malloc(bytes);
    env->in_bytes = 0;
    if (!env->h_in || cudaMalloc(&env->d_in, bytes) != cudaSuccess)
        return -1;
    env->in_bytes = bytes;
    return 0;
}

static long double largest(wk_dtype d)
{
    switch (d) {
    case WK_I32: return 2147483647.0L;
    case WK_U32: return 4294967295.0L;
    case WK_I64: return 9223372036854775807.0L;
    case WK_U64: return 18446744073709551615.0L;
    case WK_F32: return 3.4028234663852886e38L;
    case WK_F64: return 1.7976931348623157e308L;
    case WK_F16: return 65504.0L;
    case WK_BF16: return 3.3895313892515355e38L;
    }
    return 0;
}

static long double lowest(wk_dtype d)
{
    switch (d) {
    case WK_I32: return -2147483648.0L;
    case WK_I64: return -9223372036854775808.0L;
    case WK_U32: case WK_U64: return 0;
    default: return -largest(d);
    }
}

/* Plants the case's special values at places drawn from the seed. */
static void plant_specials(void *h, const wk_reduce_case *c)
{
    if (c->n == 0 || c->special == WK_SPECIAL_NONE)
        return;
    long double values[4];
    int count = 0;
    switch (c->special) {
    case WK_SPECIAL_NAN: values[0] = values[1] = values[2] = NAN; count = 3; break;
    case WK_SPECIAL_INF: values[0] = INFINITY; values[1] = -INFINITY; count = 2; break;
    case WK_SPECIAL_POS_INF: values[0] = values[1] = INFINITY; count = 2; break;
    case WK_SPECIAL_EXTREMES:
        values[0] = values[2] = largest(c->dtype);
        values[1] = values[3] = lowest(c->dtype);
        count = 4;
        break;
    case WK_SPECIAL_AT_END:
        wk_ref_store(h, c->n - 1, c->dtype, largest(c->dtype));
        if (c->n > 1)
            wk_ref_store(h, c->n - 2, c->dtype, lowest(c->dtype));
        return;
    case WK_SPECIAL_NONE: break;
    }
    for (int k = 0; k < count; ++k)
        wk_ref_store(h, wk_rand64(c->seed ^ 0x51ec1a1ull, (uint64_t)k) % c->n, c->dtype, values[k]);
}

void wk_describe_case(const wk_reduce_case *c, char *buf, size_t size)
{
    static const char *const patterns[] = {"uniform", "small-ints", "constant", "positive"};
    static const char *const specials[] = {"", " +nan", " +inf/-inf", " +inf x2", " +extremes", " +extremes at end"};
    snprintf(buf, size, "%-4s %-6s n=%-10zu offset=%zu %s%s", wk_dtype_name(c->dtype), wk_op_name(c->op), c->n,
             c->offset, patterns[c->pattern], specials[c->special]);
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
    if (reserve(env, bytes > 0 ? bytes : elem) != 0)
        return fail_msg(msg, msg_size, name, "cannot allocate the input");

    char *h = (char *)env->h_in + c->offset * elem;
    char *d = (char *)env->d_in + c->offset * elem;
    wk_generate(h, c->n, c->dtype, c->pattern, c->seed);
    plant_specials(h, c);
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
    if (st != WK_SUCCESS)
        return fail_msg(msg, msg_size, name, wk_last_error_message());
    cudaError_t err = cudaStreamSynchronize(env->stream);
    if (err == cudaSuccess)
        err = cudaMemcpy(got, env->d_out, sizeof got, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return fail_msg(msg, msg_size, name, cudaGetErrorString(err));

    /* Nothing may be written past the result. */
    size_t result_bytes = wk_reduce_result_size(c->dtype, c->op);
    for (size_t i = result_bytes; i < sizeof got; ++i)
        if (got[i] != POISON_BYTE)
            return fail_msg(msg, msg_size, name, "wrote past the end of its result");

    wk_reduce_plan plan;
    wk_plan_reduce(c->n > 0 ? (uintptr_t)d : 0, c->n, elem, wk_context_sm_count(env->ctx), &plan);
    size_t depth = sum_is_exact(c) ? 0 : wk_reduce_plan_depth(&plan);
    int ok = wk_ref_check_reduce(h, c->n, c->dtype, c->op, depth, got, detail, sizeof detail);
    snprintf(msg, msg_size, "%s: %s", name, detail);
    return ok;
}
