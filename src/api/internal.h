/* Library-internal declarations shared by the C and CUDA sources. */
#ifndef WARPKIT_INTERNAL_H
#define WARPKIT_INTERNAL_H

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a detail message for wk_last_error_message() and returns status. */
wk_status wk_fail(wk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void wk_clear_error(void);

int wk_dtype_valid(int dtype);
int wk_compare_valid(int compare);
int wk_op_valid(int op);
int wk_dtype_is_float(wk_dtype dtype);
int wk_op_is_arg(wk_op op);
int wk_op_is_bitwise(wk_op op);

#ifdef __cplusplus
}
#endif

#endif
