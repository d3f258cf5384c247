/* The dtypes the kernels are built for, written once. Each entry is
 * X(name, code, storage): `name` is the suffix of every per-dtype symbol
 * (wk_reduce_launch_f32) and generated source, `code` its wk_dtype,
 * `storage` the type the kernels read. cmake/WarpkitKernels.cmake reads
 * these lines to generate one translation unit per kernel family and dtype;
 * WK_DECLARE_LAUNCHERS expands them into the launchers' declarations and
 * dispatch switches.
 *
 * A new dtype: its entry here and its wk_dtype in include/warpkit.h, then
 * what really differs for it: its arithmetic and limits
 * (include/warpkit/ops.cuh), the sums it widens into (below) and, for a
 * float, its reproducible-sum format (src/repro/elements.cuh).
 *
 * bool's storage is C++'s bool: its bytes must be 0 or 1. Its kernels are
 * u8's but for the identities (MIN and AND of nothing are true). */
#ifndef WARPKIT_COMMON_DTYPES_H
#define WARPKIT_COMMON_DTYPES_H

#define WK_INTEGER_DTYPES(X)        \
    X(i32, WK_I32, int)             \
    X(u32, WK_U32, unsigned)        \
    X(i64, WK_I64, long long)       \
    X(u64, WK_U64, unsigned long long) \
    X(u8, WK_U8, unsigned char)     \
    X(i8, WK_I8, signed char)       \
    X(i16, WK_I16, short)           \
    X(u16, WK_U16, unsigned short)  \
    X(bool, WK_BOOL, bool)

#define WK_FLOAT_DTYPES(X)          \
    X(f32, WK_F32, float)           \
    X(f64, WK_F64, double)          \
    X(f16, WK_F16, __half)          \
    X(bf16, WK_BF16, __nv_bfloat16)

#define WK_DTYPES(X) WK_INTEGER_DTYPES(X) WK_FLOAT_DTYPES(X)

/* The sums that read one dtype and keep and write a wider one
 * (wk_reduce_to, wk_sum_widens): WK_WIDER_SUMS_<input's code>(Y) lists
 * Y(output's code, the type the kernels add in and store). Signed and
 * unsigned outputs of one width share that type: two's complement sums
 * have the same bits. */
#define WK_TO_LONGS(Y) Y(WK_I64, unsigned long long) Y(WK_U64, unsigned long long)
#define WK_TO_WORDS(Y) Y(WK_I32, unsigned) Y(WK_U32, unsigned) WK_TO_LONGS(Y)
#define WK_WIDER_SUMS_WK_BOOL(Y) WK_TO_WORDS(Y)
#define WK_WIDER_SUMS_WK_U8(Y) WK_TO_WORDS(Y)
#define WK_WIDER_SUMS_WK_I8(Y) WK_TO_WORDS(Y)
#define WK_WIDER_SUMS_WK_I16(Y) WK_TO_WORDS(Y)
#define WK_WIDER_SUMS_WK_U16(Y) WK_TO_WORDS(Y)
#define WK_WIDER_SUMS_WK_I32(Y) WK_TO_LONGS(Y)
#define WK_WIDER_SUMS_WK_U32(Y) WK_TO_LONGS(Y)
#define WK_WIDER_SUMS_WK_I64(Y)
#define WK_WIDER_SUMS_WK_U64(Y)
#define WK_WIDER_SUMS_WK_F16(Y) Y(WK_F32, float)
#define WK_WIDER_SUMS_WK_BF16(Y) Y(WK_F32, float)
#define WK_WIDER_SUMS_WK_F32(Y) Y(WK_F64, double)
#define WK_WIDER_SUMS_WK_F64(Y)

/* The launchers of one kernel family, one per dtype of LIST: declares
 * cudaError_t WK_LAUNCHER(name)(const WK_LAUNCH *) for each, and defines
 * dispatch(dtype, launch), which calls the dtype's launcher
 * (cudaErrorInvalidValue for a dtype not in LIST). Where it is used,
 * WK_LAUNCHER(name) names the family's launcher and WK_LAUNCH its struct. */
#define WK_LAUNCHER_DECLARE_(name, code, storage) cudaError_t WK_LAUNCHER(name)(const WK_LAUNCH *launch);
#define WK_LAUNCHER_CASE_(name, code, storage) \
    case code: return WK_LAUNCHER(name)(launch);
#define WK_DECLARE_LAUNCHERS(LIST, dispatch)                                      \
    LIST(WK_LAUNCHER_DECLARE_)                                                   \
    static inline cudaError_t dispatch(int dtype, const WK_LAUNCH *launch)       \
    {                                                                            \
        switch (dtype) {                                                         \
            LIST(WK_LAUNCHER_CASE_)                                              \
        default: return cudaErrorInvalidValue;                                   \
        }                                                                        \
    }

#endif
