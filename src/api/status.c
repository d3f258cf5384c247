/* Status strings, per-thread error detail, and dtype / op metadata. */
#include "api/error.h"
#include "common/dtypes.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[512];

const char *wk_status_string(wk_status status)
{
    switch (status) {
    case WK_SUCCESS: return "success";
    case WK_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case WK_ERROR_INVALID_DTYPE: return "invalid dtype";
    case WK_ERROR_INVALID_OP: return "invalid op";
    case WK_ERROR_UNSUPPORTED: return "op or compare not supported here";
    case WK_ERROR_INVALID_POINTER: return "invalid pointer";
    case WK_ERROR_NO_DEVICE: return "no CUDA device";
    case WK_ERROR_OUT_OF_MEMORY: return "out of memory";
    case WK_ERROR_CUDA: return "CUDA error";
    case WK_ERROR_CAPTURE: return "not allowed during stream capture";
    case WK_ERROR_LIMIT: return "over a size limit";
    }
    return "unknown status";
}

const char *wk_last_error_message(void) { return last_message; }

void wk_clear_error(void) { last_message[0] = '\0'; }

wk_status wk_fail(wk_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = snprintf(last_message, sizeof last_message, "%s: ", wk_status_string(status));
    if (len < 0 || (size_t)len >= sizeof last_message)
        len = 0;
    vsnprintf(last_message + len, sizeof last_message - (size_t)len, fmt, ap);
    va_end(ap);
    return status;
}

size_t wk_dtype_size(wk_dtype dtype)
{
    switch (dtype) {
    case WK_I32: case WK_U32: case WK_F32: return 4;
    case WK_I64: case WK_U64: case WK_F64: return 8;
    case WK_F16: case WK_BF16: case WK_I16: case WK_U16: return 2;
    case WK_BOOL: case WK_U8: case WK_I8: return 1;
    }
    return 0;
}

const char *wk_dtype_name(wk_dtype dtype)
{
    static const char *const names[WK_DTYPE_COUNT] = {"i32", "u32", "i64", "u64", "f32", "f64", "f16",
                                                      "bf16", "bool", "u8", "i8", "i16", "u16"};
    return wk_dtype_valid(dtype) ? names[dtype] : "?";
}

const char *wk_op_name(wk_op op)
{
    static const char *const names[WK_OP_COUNT] = {"sum", "min", "max", "and",
                                                   "or", "xor", "argmin", "argmax"};
    return wk_op_valid(op) ? names[op] : "?";
}

const char *wk_compare_name(wk_compare compare)
{
    static const char *const names[WK_COMPARE_COUNT] = {"less", "less_equal", "greater", "greater_equal", "equal",
                                                        "not_equal", "in_range", "is_nan", "not_nan"};
    return wk_compare_valid(compare) ? names[compare] : "?";
}

int wk_compare_valid(int compare) { return compare >= 0 && compare < WK_COMPARE_COUNT; }
int wk_dtype_valid(int dtype) { return dtype >= 0 && dtype < WK_DTYPE_COUNT; }
int wk_op_valid(int op) { return op >= 0 && op < WK_OP_COUNT; }

int wk_dtype_is_float(wk_dtype dtype)
{
    return dtype == WK_F32 || dtype == WK_F64 || dtype == WK_F16 || dtype == WK_BF16;
}

/* The pairs come from the lists of common/dtypes.h, which the kernels are
 * built from. */
#define WK_WIDENS_TO_(out_code, type) \
    if (out == out_code)              \
        return 1;
#define WK_WIDENS_FROM_(name, code, storage) \
    if (in == code) {                        \
        WK_WIDER_SUMS_##code(WK_WIDENS_TO_)  \
        return 0;                            \
    }

int wk_sum_widens(int in, int out)
{
    if (!wk_dtype_valid(in) || !wk_dtype_valid(out))
        return 0;
    if (in == out)
        return in != WK_BOOL;
    WK_DTYPES(WK_WIDENS_FROM_)
    return 0;
}

int wk_op_is_arg(wk_op op) { return op == WK_ARGMIN || op == WK_ARGMAX; }
int wk_op_is_bitwise(wk_op op) { return op == WK_AND || op == WK_OR || op == WK_XOR; }

size_t wk_reduce_result_size(wk_dtype dtype, wk_op op)
{
    if (!wk_dtype_valid(dtype) || !wk_op_valid(op))
        return 0;
    return wk_op_is_arg(op) ? sizeof(wk_arg_result) : wk_dtype_size(dtype);
}
