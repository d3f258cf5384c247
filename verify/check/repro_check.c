#include "check/repro_check.h"

#include "ref/repro_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xA5
#define MAX_ROWS 7

void wk_describe_repro_case(const wk_repro_case *c, char *buf, size_t size)
{
    snprintf(buf, size, "repro %-4s n=%-7zu %s", wk_dtype_name(c->dtype), c->n, wk_repro_kind_name(c->kind));
}

static uint64_t model_bits(const void *h, size_t n, wk_dtype dtype)
{
    wk_rp p;
    wk_model_repro(h, n, dtype, &p);
    return wk_model_round(&p, dtype);
}

/* Runs the call already queued on env's stream to its end and reads `bytes`
 * of env->d_out back into out. */
static int read_back(wk_check_env *env, wk_status st, void *out, size_t bytes, char *detail, size_t size)
{
    if (st != WK_SUCCESS) {
        snprintf(detail, size, "%s", wk_last_error_message());
        return 0;
    }
    cudaError_t err = cudaStreamSynchronize(env->stream);
    if (err == cudaSuccess)
        err = cudaMemcpy(out, env->d_out, bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        snprintf(detail, size, "%s", cudaGetErrorString(err));
        return 0;
    }
    return 1;
}

static wk_check_result check(wk_check_env *env, const wk_repro_case *c, const unsigned char *h, uint64_t *bits,
                             char *detail, size_t size)
{
    const size_t elem = wk_dtype_size(c->dtype);
    const uint64_t want = model_bits(h, c->n, c->dtype);
    *bits = 0;
    for (size_t off = 0; off < 2; ++off) {
        unsigned char *d = (unsigned char *)env->d_in + off * elem;
        uint64_t got = 0;
        if (cudaMemcpy(d, h, c->n * elem, cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemset(env->d_out, POISON_BYTE, WK_CHECK_OUT_BYTES) != cudaSuccess) {
            snprintf(detail, size, "cannot stage the input or poison the output");
            return WK_CHECK_FAIL;
        }
        if (!read_back(env, wk_reduce_repro(env->ctx, d, env->d_out, c->n, c->dtype, env->stream), &got, elem, detail,
                       size))
            return WK_CHECK_FAIL;
        if (got != want) {
            snprintf(detail, size, "offset %zu: got %016" PRIx64 ", the model %016" PRIx64, off, got, want);
            return WK_CHECK_FAIL;
        }
        if (off == 0)
            *bits = got;
    }
    /* The same input as rows: 1 to MAX_ROWS rows of n / rows elements, at
     * most n rows so that no row is empty unless n is 0. */
    size_t rows = 1 + (size_t)(c->seed % MAX_ROWS);
    if (c->n > 0 && rows > c->n)
        rows = c->n;
    const size_t len = c->n / rows;
    uint64_t got[MAX_ROWS];
    wk_segments s = {rows, len, 0, NULL, NULL};
    memset(got, 0, sizeof got);
    if (cudaMemcpy(env->d_in, h, c->n * elem, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemset(env->d_out, POISON_BYTE, WK_CHECK_OUT_BYTES) != cudaSuccess) {
        snprintf(detail, size, "cannot stage the input or poison the output");
        return WK_CHECK_FAIL;
    }
    if (!read_back(env, wk_segmented_reduce_repro(env->ctx, env->d_in, env->d_out, &s, c->dtype, env->stream), got,
                   rows * elem, detail, size))
        return WK_CHECK_FAIL;
    for (size_t r = 0; r < rows; ++r) {
        uint64_t row = 0, row_want = model_bits(h + r * len * elem, len, c->dtype);
        memcpy(&row, (const unsigned char *)got + r * elem, elem);
        if (row != row_want) {
            snprintf(detail, size, "segmented, row %zu of %zu (%zu elements): got %016" PRIx64 ", the model %016" PRIx64,
                     r, rows, len, row, row_want);
            return WK_CHECK_FAIL;
        }
    }
    snprintf(detail, size, "%016" PRIx64 " as the model, and %zu rows of %zu", want, rows, len);
    return WK_CHECK_PASS;
}

wk_check_result wk_check_repro_case(wk_check_env *env, const wk_repro_case *c, uint64_t *bits, char *msg,
                                    size_t msg_size)
{
    char name[128], detail[512];
    wk_describe_repro_case(c, name, sizeof name);
    const size_t elem = wk_dtype_size(c->dtype);
    wk_check_result r = wk_check_reserve(env, (c->n + 1) * elem, 0, 0, detail, sizeof detail);
    unsigned char *h = NULL;
    if (r == WK_CHECK_PASS) {
        h = malloc(c->n * elem + 1);
        if (!h) {
            snprintf(detail, sizeof detail, "out of host memory");
            r = WK_CHECK_FAIL;
        } else {
            wk_repro_case_fill(c, h);
            r = check(env, c, h, bits, detail, sizeof detail);
        }
    }
    free(h);
    snprintf(msg, msg_size, "%s: %s", name, detail);
    return r;
}
