/* The dtypes the kernels are built for, written once. Each entry is
 * X(name, code, storage): `name` is the suffix of every per-dtype symbol
 * (wk_reduce_launch_f32) and generated source, `code` its wk_dtype,
 * `storage` the type the kernels read. cmake/WarpkitKernels.cmake reads
 * these lines to generate one translation unit per kernel family and dtype;
 * the launchers' declarations and dispatch switches expand them.
 *
 * A new dtype: its entry here and its wk_dtype in include/warpkit.h, then
 * what really differs for it: its arithmetic and limits
 * (include/warpkit/ops.cuh) and, for a float, its reproducible-sum format
 * (src/repro/elements.cuh). */
#ifndef WARPKIT_COMMON_DTYPES_H
#define WARPKIT_COMMON_DTYPES_H

#define WK_INTEGER_DTYPES(X)        \
    X(i32, WK_I32, int)             \
    X(u32, WK_U32, unsigned)        \
    X(i64, WK_I64, long long)       \
    X(u64, WK_U64, unsigned long long)

#define WK_FLOAT_DTYPES(X)          \
    X(f32, WK_F32, float)           \
    X(f64, WK_F64, double)          \
    X(f16, WK_F16, __half)          \
    X(bf16, WK_BF16, __nv_bfloat16)

#define WK_DTYPES(X) WK_INTEGER_DTYPES(X) WK_FLOAT_DTYPES(X)

#endif
