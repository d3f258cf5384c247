/*
 * warpkit: GPU parallel primitives behind a plain C API.
 *
 * This header compiles as C11 (gcc, clang) and as C++; it needs the CUDA
 * runtime's C header for cudaStream_t only.
 *
 * Conventions shared by every call:
 *  - Pointers named d_* point to memory the context's device can address at
 *    that pointer: device memory of that device (cudaMalloc, cudaMallocAsync),
 *    managed memory, or pinned host memory mapped at the same address
 *    (cudaMallocHost, cudaHostAlloc, cudaHostRegister on a system with unified
 *    addressing). Ordinary (pageable) host memory is refused with
 *    WK_ERROR_INVALID_POINTER. Each is aligned at least to its element size.
 *  - Sizes are size_t; any n works, including 0 and n >= 2^31.
 *  - Calls are asynchronous on the caller's stream: they enqueue work and
 *    return. Nothing allocates or synchronizes in steady state, except the
 *    calls whose comment says they do.
 *  - Every call checks its arguments before it enqueues anything. A call that
 *    fails a check returns an error status, launches nothing and leaves every
 *    output as it was; wk_last_error_message() then says what was wrong.
 *  - Results are the same bits run to run for the same input on the same
 *    device (no floating-point atomics, fixed reduction order).
 */
#ifndef WARPKIT_H
#define WARPKIT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WARPKIT_VERSION_MAJOR 0
#define WARPKIT_VERSION_MINOR 3
#define WARPKIT_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, as wk_version_number() returns it. */
#define WARPKIT_VERSION_NUMBER \
    (WARPKIT_VERSION_MAJOR * 10000 + WARPKIT_VERSION_MINOR * 100 + WARPKIT_VERSION_PATCH)

/* The version of the library that is loaded, which may differ from the
 * header's macros above when a program runs against another build:
 * "MAJOR.MINOR.PATCH" (a static string), and MAJOR * 10000 + MINOR * 100 +
 * PATCH. */
const char *wk_version(void);
int wk_version_number(void);

/* ---------------------------------------------------------------- status */

typedef enum wk_status {
    WK_SUCCESS = 0,
    WK_ERROR_INVALID_ARGUMENT = 1, /* NULL pointer with n > 0, NULL context, ...   */
    WK_ERROR_INVALID_DTYPE = 2,    /* not one of the wk_dtype values                */
    WK_ERROR_INVALID_OP = 3,       /* not one of the wk_op values                   */
    WK_ERROR_UNSUPPORTED = 4,      /* op or compare that makes no sense for the
                                      dtype or the call (bitwise on floats, ...)   */
    WK_ERROR_INVALID_POINTER = 5,  /* memory the device cannot read or write at
                                      that address, or misaligned                  */
    WK_ERROR_NO_DEVICE = 6,        /* no CUDA device, or no usable driver           */
    WK_ERROR_OUT_OF_MEMORY = 7,    /* an allocation failed (wk_create, or a call
                                      that makes or grows a workspace)             */
    WK_ERROR_CUDA = 8,             /* the CUDA runtime reported an error            */
    WK_ERROR_CAPTURE = 9,          /* the call cannot run while its stream is being
                                      captured into a graph (it waits for the
                                      host), or the capture is already broken      */
    WK_ERROR_LIMIT = 10            /* over a size limit: any input, output or array
                                      of more than 2^62 bytes (every call), a scan's
                                      or select's 2^29 tiles, wk_copy_to_host's 256
                                      bytes                                        */
} wk_status;

/* A static, human-readable name for a status ("invalid argument", ...). */
const char *wk_status_string(wk_status status);

/* Detail of the last error returned on the calling thread (empty string if
 * the last call succeeded). The text stays valid until the thread's next
 * warpkit call. */
const char *wk_last_error_message(void);

/* ---------------------------------------------------------------- dtypes */

typedef enum wk_dtype {
    WK_I32 = 0,  /* int32_t                                        */
    WK_U32 = 1,  /* uint32_t                                       */
    WK_I64 = 2,  /* int64_t                                        */
    WK_U64 = 3,  /* uint64_t                                       */
    WK_F32 = 4,  /* float                                          */
    WK_F64 = 5,  /* double                                         */
    WK_F16 = 6,  /* IEEE binary16 (__half), stored as uint16_t     */
    WK_BF16 = 7, /* bfloat16 (__nv_bfloat16), stored as uint16_t   */
    WK_BOOL = 8, /* one byte, 0 or 1 (C's _Bool, PyTorch's and
                    NumPy's bool); since 0.3.0                     */
    WK_U8 = 9,   /* uint8_t; since 0.3.0                          */
    WK_I8 = 10,  /* int8_t; since 0.3.0                           */
    WK_I16 = 11, /* int16_t; since 0.3.0                          */
    WK_U16 = 12  /* uint16_t; since 0.3.0                         */
} wk_dtype;

#define WK_DTYPE_COUNT 13

/* The narrow dtypes (bool, 8- and 16-bit integers) work in every call that
 * takes integers, with the integer rules: min, max and the bitwise ops in
 * the dtype, sums wrapping modulo 2^bits. A bool is a number 0 or 1 there
 * (MIN and AND are "all", true for no elements; MAX and OR are "any",
 * false for none); a byte other than 0 or 1 gives unspecified results,
 * never a fault. A bool sum or sum scan in bool is refused
 * (WK_ERROR_UNSUPPORTED): count with wk_reduce_to into an integer dtype. */

/* Size in bytes of one element, or 0 for an unknown dtype. */
size_t wk_dtype_size(wk_dtype dtype);
/* Short name ("f32", ...), or "?" for an unknown dtype. */
const char *wk_dtype_name(wk_dtype dtype);
/* 1 if dtype is one of the wk_dtype values, else 0 (an int, so that a value
 * read from a file or another language can be tested before the cast). */
int wk_dtype_valid(int dtype);
/* 1 for the floating-point dtypes (f32, f64, f16, bf16), else 0. */
int wk_dtype_is_float(wk_dtype dtype);
/* 1 if a sum of `in` elements may be kept and written as `out` by
 * wk_reduce_to, wk_segmented_reduce_to and the scans' _to forms: out == in (except bool), or a wider dtype that holds every
 * value: bool, 8- and 16-bit integers into i32, u32, i64, u64; i32, u32
 * into i64, u64; f16, bf16 into f32; f32 into f64. Since 0.3.0. */
int wk_sum_widens(int in, int out);

/* ------------------------------------------------------------------- ops */

typedef enum wk_op {
    WK_SUM = 0,
    WK_MIN = 1,
    WK_MAX = 2,
    WK_AND = 3,    /* bitwise, integer dtypes only */
    WK_OR = 4,     /* bitwise, integer dtypes only */
    WK_XOR = 5,    /* bitwise, integer dtypes only */
    WK_ARGMIN = 6, /* value and index, see wk_arg_result */
    WK_ARGMAX = 7
} wk_op;

#define WK_OP_COUNT 8

/* Short name ("sum", "argmax", ...), or "?" for an unknown op. */
const char *wk_op_name(wk_op op);
/* 1 if op is one of the wk_op values, else 0. */
int wk_op_valid(int op);
/* 1 for WK_ARGMIN and WK_ARGMAX, else 0. */
int wk_op_is_arg(wk_op op);
/* 1 for WK_AND, WK_OR and WK_XOR (integer dtypes only), else 0. */
int wk_op_is_bitwise(wk_op op);

/* One value of any dtype; f16 and bf16 are their raw 16-bit patterns. */
typedef union wk_value {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    uint16_t f16;
    uint16_t bf16;
    uint8_t b;   /* WK_BOOL: 0 or 1 */
    uint8_t u8;
    int8_t i8;
    int16_t i16;
    uint16_t u16;
} wk_value;

/* Result of WK_ARGMIN / WK_ARGMAX: the extreme value, in the input's dtype,
 * and the index of its first occurrence. 16 bytes. */
typedef struct wk_arg_result {
    wk_value value;
    int64_t index;
} wk_arg_result;

/* Bytes that a reduce writes at d_out for this op and dtype: the dtype's size,
 * or sizeof(wk_arg_result) for the arg ops; 0 if either is unknown. */
size_t wk_reduce_result_size(wk_dtype dtype, wk_op op);

/* --------------------------------------------------------------- context */

/* A context belongs to one device. It reads the device's properties once and
 * owns the workspaces of the calls: device memory of about 3.3 MiB each (the
 * reduce's partial results, the tile slots of scans and selects, and the
 * segmented calls' board of long segments), grown only by calls larger than
 * any before (see wk_scan_reserve).
 *
 * Sharing: any number of host threads and streams may call through one
 * context at once. Each stream gets a workspace of its own on its first
 * call (the one made by wk_create, or a new one allocated stream-ordered on
 * that stream, with no synchronization, on devices with memory pools: every
 * CUDA GPU from sm_60 on with a current driver); calls on one stream share
 * it, in stream order. When more than 16 streams have used the context, a new
 * stream takes over the least recently used workspace after an event wait
 * on its last call, so contexts do not grow with programs that create a
 * stream per task.
 *
 * Graphs: a call made while its stream is being captured gets a workspace
 * of its own, held by the graph until the graph and every executable graph
 * made from it are destroyed; so the graph's executable may be replayed on
 * any stream while other calls run (CUDA orders the launches of one
 * executable). Executables instantiated from one graph (or its clones, or a
 * child-graph node of it) share its workspaces: replay only one of them at
 * a time. Such a workspace is allocated outside the graph, once per capture
 * and stream; the host waits for it to be zeroed. No executable graph may be
 * replayed after wk_destroy of the context it captured. */
typedef struct wk_context wk_context;

/* Creates a context on `device` (-1: the calling thread's current device;
 * other negative numbers are WK_ERROR_INVALID_ARGUMENT). Allocates and
 * synchronizes; do it once, not per call. Returns WK_ERROR_NO_DEVICE when no
 * CUDA device or driver can be used. */
wk_status wk_create(wk_context **ctx, int device);

/* Synchronizes the context's device (cudaDeviceSynchronize: work on every
 * stream may still use a workspace) and frees the context, with the
 * workspaces of graphs that captured its calls. NULL is a no-op. */
wk_status wk_destroy(wk_context *ctx);

/* The context's device ordinal and its multiprocessor count. */
int wk_context_device(const wk_context *ctx);
int wk_context_sm_count(const wk_context *ctx);

/* ---------------------------------------------------------------- reduce */

/*
 * Device-wide reduction of d_in[0 .. n) into d_out, in one kernel launch on
 * `stream`. d_out receives wk_reduce_result_size(dtype, op) bytes and must be
 * aligned to 8 bytes for the arg ops.
 *
 * Semantics:
 *  - Types:  sums of integers wrap modulo 2^bits, as unsigned arithmetic of
 *    the dtype's width does (two's complement for signed dtypes). f32 sums
 *    accumulate in float, f64 in double, f16 and bf16 in float, rounded once
 *    to the dtype at the end.
 *  - Order:  floating-point sums are not left-to-right; the order depends on
 *    n, the pointer's alignment and the device, and is fixed for those, so a
 *    result is the same bits on every run.
 *  - n = 0:  the identity: 0 for SUM, OR, XOR; all ones for AND; for MIN the
 *    largest value (+inf for floats), for MAX the lowest (-inf for floats).
 *    ARGMIN / ARGMAX give that identity with index -1.
 *  - NaN:    SUM follows IEEE arithmetic; a sum that is NaN is stored as
 *    one NaN per dtype, whatever NaNs the input held: 0x7fffffff for f32,
 *    0x7ff8000000000000 for f64, 0x7fff for f16 and bf16. MIN / MAX return
 *    NaN if any element is NaN; ARGMIN / ARGMAX then return the first NaN
 *    and its index (as numpy's argmin / argmax do).
 *  - Zeros:  MIN and MAX are IEEE 754-2019 minimum and maximum: -0.0 is
 *    below +0.0, so MIN of {+0.0, -0.0} is -0.0 and MAX is +0.0, in any
 *    order and for every float dtype. ARGMIN / ARGMAX compare with < and >,
 *    for which the two zeros are equal: a tie, and the lowest index wins.
 *  - Ties:   ARGMIN / ARGMAX return the lowest index among equal extremes.
 *  - Ops:    AND, OR, XOR are for integer dtypes; on float dtypes they return
 *    WK_ERROR_UNSUPPORTED.
 *  - f16 / bf16 arg results carry the element's value; a NaN comes back as
 *    the canonical NaN of the dtype (0x7fff), not the element's payload.
 *  - d_out may not overlap d_in.
 *
 * Launch: on sm_90 and later the kernel is launched with programmatic
 * stream serialization, so that back-to-back calls overlap their launch
 * latency. It waits for the previous kernel in the stream to finish before
 * it reads anything, so stream order holds for its inputs as usual. A kernel
 * of yours that follows it with programmatic serialization enabled must call
 * cudaGridDependencySynchronize() before it reads d_out, as with any such
 * launch; ordinary launches need nothing.
 */
wk_status wk_reduce(wk_context *ctx, const void *d_in, void *d_out, size_t n,
                    wk_dtype dtype, wk_op op, cudaStream_t stream);

/* As wk_reduce, then copies the result to host memory at `h_out` (same layout
 * as d_out). Synchronizes `stream` before it returns, so it cannot be
 * captured into a graph: on a stream being captured it returns
 * WK_ERROR_CAPTURE at once, before touching the stream or the capture. */
wk_status wk_reduce_to_host(wk_context *ctx, const void *d_in, void *h_out,
                            size_t n, wk_dtype dtype, wk_op op,
                            cudaStream_t stream);

/* The index alone of WK_ARGMIN or WK_ARGMAX: d_index[0] receives what
 * wk_reduce writes to wk_arg_result.index (the first extreme, the first NaN;
 * -1 for n = 0), as one int64_t in device memory, 8-byte aligned, apart from
 * d_in. One launch, as wk_reduce; for callers whose arg result is a plain
 * int64 (PyTorch's and NumPy's argmax). Any other op returns
 * WK_ERROR_INVALID_OP. Since 0.2.0. */
wk_status wk_reduce_index(wk_context *ctx, const void *d_in, int64_t *d_index,
                          size_t n, wk_dtype dtype, wk_op op,
                          cudaStream_t stream);

/* A sum of d_in[0 .. n) of dtype `dtype`, kept and written as `out_dtype`:
 * one element of out_dtype at d_out (aligned to its size). For the pairs
 * that wk_sum_widens accepts; others return WK_ERROR_UNSUPPORTED. Each
 * element is converted exactly to out_dtype, and the sum follows
 * out_dtype's rules in wk_reduce: an integer sum wraps modulo 2^bits of
 * out_dtype (a bool counts its ones, a signed input is sign-extended), an
 * f16 / bf16 sum is the float accumulation wk_reduce rounds at its end,
 * here not rounded back; f32 into f64 adds in double. Reads the input once:
 * a u8 or bool sum reads one byte an element. out_dtype == dtype is
 * wk_reduce's sum. One launch on `stream`, as wk_reduce. Since 0.3.0. */
wk_status wk_reduce_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                       wk_dtype out_dtype, cudaStream_t stream);

/* ---------------------------------------------------- reproducible sums */

/*
 * Float sums whose bits depend only on the multiset of input values: not on
 * the GPU, its SM count, the launch shape, the pointer's alignment, the order
 * of the elements, or how the input is split into parts whose partials are
 * combined (wk_reduce_repro_partial, wk_repro_finalize). The same bits come
 * from every device and from the host functions below.
 *
 * Method: binned accumulation (Ahrens, Demmel and Nguyen, ACM TOMS 2020) in
 * double-precision bins for every float dtype. Each element is split exactly
 * into three bins 40 bits apart that sit on a fixed grid of exponents; the
 * top bin is the lowest one above every |x| of the input. Parts below the
 * third bin are dropped; bins are added exactly, and their total is rounded
 * once, to nearest even, to the dtype. So:
 *
 *   |result - exact sum| <= half an ulp of the result + n * 2^-80 * max|x|
 *
 * which is never worse than the bound of wk_reduce's sum for f32, f16 and
 * bf16, and for f64 inputs of up to 2^32 elements. Overflow of the exact
 * total gives +-inf.
 *  - NaN or both infinities in the input: the dtype's quiet NaN (0x7fc00000
 *    for f32, 0x7ff8000000000000 for f64, 0x7e00 for f16, 0x7fc0 for bf16).
 *    Infinities of one sign: that infinity.
 *  - Zeros: -0.0 if every element is -0.0 (n >= 1), else +0.0; n = 0 gives
 *    +0.0.
 *  - One kernel launch on `stream`, as wk_reduce (programmatic dependent
 *    launch on sm_90 and later). Integer dtypes are exact in wk_reduce
 *    already: wk_reduce_repro runs wk_reduce's sum for them.
 *  - d_out receives one element of dtype and may not overlap d_in.
 */
wk_status wk_reduce_repro(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                          cudaStream_t stream);

/* The state of a reproducible sum of part of an input: exact, 64 bytes,
 * 8-byte aligned. Partials of any float dtypes combine in any order and any
 * grouping to the same state; the dtype of the result is chosen when it is
 * rounded. The layout may change between versions: store or send it only
 * between programs of one warpkit version. */
typedef struct wk_repro_partial {
    uint64_t opaque[8];
} wk_repro_partial;

/* The partial of d_in[0 .. n) (float dtypes; integers return
 * WK_ERROR_UNSUPPORTED), written to device memory at d_partial, in one
 * launch on `stream`. n = 0 gives the empty partial. */
wk_status wk_reduce_repro_partial(wk_context *ctx, const void *d_in, wk_repro_partial *d_partial, size_t n,
                                  wk_dtype dtype, cudaStream_t stream);

/* Combines d_partials[0 .. count) (device memory) and writes the rounded sum
 * as one element of the float dtype at d_out, in one launch on `stream`:
 * the same bits as wk_reduce_repro over the concatenation of the parts.
 * count = 0 gives +0.0. */
wk_status wk_repro_finalize(wk_context *ctx, const wk_repro_partial *d_partials, size_t count, void *d_out,
                            wk_dtype dtype, cudaStream_t stream);

/* Host-side: the empty partial; acc += p (exact; WK_ERROR_INVALID_ARGUMENT
 * if either is not a partial); the rounded sum of p as one element of the
 * float dtype at h_out. These touch no device and never synchronize. */
void wk_repro_partial_clear(wk_repro_partial *p);
wk_status wk_repro_combine_host(wk_repro_partial *acc, const wk_repro_partial *p);
wk_status wk_repro_round_host(const wk_repro_partial *p, wk_dtype dtype, void *h_out);

/* ------------------------------------------------------------- segments */

/*
 * Segments of an input for the segmented reduce and scan: three layouts in
 * one description. Fill every field; the layout is chosen by d_begin.
 *
 *  - Uniform:  count segments of `size` elements, back to back:
 *              segment i is d_in[i * size .. i * size + size).
 *              stride = size (or 0, which means size), d_begin = d_end = NULL.
 *  - Rows:     the rows of a matrix with a leading dimension: segment i is
 *              d_in[i * stride .. i * stride + size), stride >= size.
 *              d_begin = d_end = NULL.
 *  - Offsets:  segment i is d_in[d_begin[i] .. d_end[i]) (int64_t offsets in
 *              device memory, in elements). `size` is then the input's
 *              length in elements and `stride` is unused: offsets are
 *              clamped into [0, size), so no offset reads or writes outside
 *              the input, and a segment with d_end[i] <= d_begin[i] is empty.
 *              Segments may overlap and come in any order for a reduce;
 *              a scan writes every position of every segment, so its
 *              segments must not overlap (overlapping ones race).
 */
typedef struct wk_segments {
    size_t count;           /* number of segments (0: the call does nothing) */
    size_t size;            /* uniform, rows: elements per segment;
                               offsets: elements in d_in                      */
    size_t stride;          /* rows: elements from a segment's start to the
                               next one's (0: same as size)                   */
    const int64_t *d_begin; /* offsets: first element of each segment        */
    const int64_t *d_end;   /* offsets: one past the last element            */
} wk_segments;

/*
 * Reduces every segment of d_in into d_out[i], in one kernel launch on
 * `stream`: every op and dtype of wk_reduce, with its semantics segment by
 * segment (identity for an empty segment; arg ops give the index within the
 * segment, -1 for an empty one). d_out receives count results of
 * wk_reduce_result_size(dtype, op) bytes each, aligned as for wk_reduce, and
 * may not overlap the input's extent or the offsets.
 *
 * Float sums are the same bits run to run for one input, layout and device;
 * the order of the additions follows the segment's length and alignment
 * (and the device's SM count for rows over 64 KiB; for offsets over an
 * input of more than 1 GiB, the input's size). Each float result is
 * within ceil(len / 8) + 64 roundings of its segment's exact sum: the error
 * is at most that times the unit roundoff of the accumulator times
 * sum |x| over the segment (f16 and bf16: plus the final rounding).
 * Segments are spread over the GPU by their length (docs/segmented.md):
 * several per warp when short, a warp or a block each when longer, and a
 * long segment's pieces over many warps, so that a few long segments among
 * many short ones do not wait on one warp. Needs no allocation per call;
 * the offsets layout uses the stream's workspace.
 */
wk_status wk_segmented_reduce(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                              wk_dtype dtype, wk_op op, cudaStream_t stream);

/* Segment sums kept and written as `out_dtype` (the pairs wk_sum_widens
 * accepts; WK_ERROR_UNSUPPORTED for others): d_out receives count elements
 * of out_dtype, aligned to its size, each the sum wk_reduce_to gives for
 * its segment alone (0 for an empty one). As wk_segmented_reduce otherwise:
 * layouts, one launch, no allocation. Since 0.3.0. */
wk_status wk_segmented_reduce_to(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                 wk_dtype dtype, wk_dtype out_dtype, cudaStream_t stream);

/*
 * Reproducible segment sums: d_out[i] gets the bits wk_reduce_repro gives
 * for segment i alone (float dtypes; its error bound and NaN, infinity and
 * zero rules apply per segment; an empty segment gives +0.0). Integer
 * dtypes run wk_segmented_reduce's sum, which is exact. On `stream`: one
 * launch, two for offsets whose input is over 64 KiB (segments longer than
 * that are cut into pieces that many warps sum); rows too few to fill the
 * device are cut into pieces too. Takes the stream's workspace, as
 * wk_reduce does. d_out receives count elements of dtype.
 */
wk_status wk_segmented_reduce_repro(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                    wk_dtype dtype, cudaStream_t stream);

/*
 * Segmented prefix scans: each segment scanned as wk_inclusive_scan /
 * wk_exclusive_scan would scan it alone (the exclusive scan starts every
 * segment at `init`), the outputs written at the same positions of d_out as
 * the inputs' in d_in (for rows, the elements between rows are left as they
 * are). Ops: SUM, MIN, MAX, and AND, OR, XOR on integers. One launch on
 * `stream`. d_out == d_in (in place) is allowed; any other overlap returns
 * WK_ERROR_INVALID_ARGUMENT. Float prefixes within a segment are summed in
 * a fixed order that depends on the segment's length and alignment (rows of
 * up to 512 bytes that lie end to end, on the row's place too: a warp scans
 * several at once; offsets over an input of more than 1 GiB, on the input's
 * size); output i of a segment is within ceil((i + 1) / 8) + 64 roundings of
 * its exact prefix, as for the reduce.
 */
wk_status wk_segmented_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                      wk_dtype dtype, wk_op op, cudaStream_t stream);
wk_status wk_segmented_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                      wk_dtype dtype, wk_op op, wk_value init, cudaStream_t stream);

/* Segmented sum scans of dtype `dtype` kept and written as `out_dtype` (the
 * pairs wk_sum_widens accepts; WK_ERROR_UNSUPPORTED for others): each
 * segment scanned as wk_inclusive_scan_to / wk_exclusive_scan_to would scan
 * it alone, the outputs, of out_dtype and aligned to its size, at the same
 * positions of d_out as the inputs' in d_in. init is of out_dtype. d_out may
 * not overlap d_in when the dtypes differ. As the segmented scans above
 * otherwise: layouts, one launch, workspace. out_dtype == dtype is
 * wk_segmented_inclusive_scan / wk_segmented_exclusive_scan with WK_SUM.
 * Since 0.3.0. */
wk_status wk_segmented_inclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                         wk_dtype dtype, wk_dtype out_dtype, cudaStream_t stream);
wk_status wk_segmented_exclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                         wk_dtype dtype, wk_dtype out_dtype, wk_value init, cudaStream_t stream);

/* ------------------------------------------------------------------ scan */

/*
 * Device-wide prefix scans of d_in[0 .. n) into d_out[0 .. n), in one kernel
 * launch on `stream` (none for n = 0):
 *   inclusive:  d_out[i] = d_in[0] op d_in[1] op ... op d_in[i]
 *   exclusive:  d_out[0] = init, d_out[i] = init op d_in[0] op ... op d_in[i-1]
 *
 * Ops: SUM, MIN, MAX for every dtype; AND, OR, XOR for integer dtypes.
 * ARGMIN and ARGMAX return WK_ERROR_UNSUPPORTED.
 *
 * Semantics:
 *  - Types:  as wk_reduce: integer sums wrap modulo 2^bits; f32 accumulates in
 *    float, f64 in double; f16 and bf16 accumulate in float and each output
 *    is that float prefix rounded once to the dtype (round to nearest even).
 *  - init:   the exclusive scan's first output and the start of every
 *    prefix, in the dtype's member of wk_value (raw bits for f16 / bf16).
 *    Pass the op's identity for a plain exclusive scan (0 for SUM).
 *  - NaN:    SUM follows IEEE arithmetic, and an output that is NaN is the
 *    dtype's one NaN, as wk_reduce stores it; only an f32, f16 or bf16
 *    exclusive scan's output that is init itself (before any element) keeps
 *    init's bits. MIN / MAX outputs are NaN from the first NaN on.
 *  - Zeros:  MIN / MAX take -0.0 below +0.0, as wk_reduce does.
 *  - Order:  float prefixes are not left-to-right sums; the order depends on
 *    n, the pointers' alignment and the device, and is fixed for those, so
 *    results are the same bits on every run. Prefixes are chained tile by
 *    tile, so float output i carries at most i / tile + 66 roundings, where a
 *    tile holds 16 KiB of input or more (its size follows n and the dtype):
 *    its error is at most that times the unit roundoff times sum |x_j|,
 *    j <= i.
 *    Integer scans are exact.
 *  - Memory: d_out == d_in (in place) is allowed; any other overlap returns
 *    WK_ERROR_INVALID_ARGUMENT. d_in and d_out need only the element
 *    alignment; when they share their offset from a 16-byte boundary the
 *    stores are 16 bytes wide.
 *
 * Workspace: the scan keeps a status slot per tile of input (24 bytes per
 * tile of 16 to 128 KiB of input) in the stream's workspace. Workspaces
 * cover 128 MiB of input when made; a call on a larger input grows its
 * stream's slots with stream-ordered allocation (cudaMallocAsync on
 * `stream`, which does not synchronize; outside the graph, for a call being
 * captured) and may then return WK_ERROR_OUT_OF_MEMORY. wk_scan_reserve
 * does that up front. Replaced slots are kept until wk_destroy, so work
 * queued or captured before a growth stays valid. Inputs are limited to
 * 2^29 tiles (WK_ERROR_LIMIT beyond).
 * With n = 0 nothing is read or written and the pointers are not checked.
 *
 * Launch: programmatic dependent launch on sm_90 and later, as wk_reduce.
 */
wk_status wk_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out,
                            size_t n, wk_dtype dtype, wk_op op,
                            cudaStream_t stream);

wk_status wk_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out,
                            size_t n, wk_dtype dtype, wk_op op, wk_value init,
                            cudaStream_t stream);

/* The scans of one part of a longer input, continued from the parts before
 * it: d_prefix points to one element of dtype in device memory, the op's
 * combination of every element before d_in[0] (a previous part's last
 * inclusive output, a total from wk_reduce, or a value from another GPU).
 *   inclusive:  d_out[i] = *d_prefix op d_in[0] op ... op d_in[i]
 *   exclusive:  d_out[i] = init op *d_prefix op d_in[0] op ... op d_in[i-1]
 * It is read on the device after the previous work in `stream`, so it may be
 * written by the kernel just before; it may lie in d_in but not in d_out.
 * d_prefix = NULL gives wk_inclusive_scan / wk_exclusive_scan. Otherwise as
 * those: one launch, same semantics and error bound, counting the prefix as
 * one more rounding. */
wk_status wk_inclusive_scan_from(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 wk_op op, const void *d_prefix, cudaStream_t stream);

wk_status wk_exclusive_scan_from(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 wk_op op, wk_value init, const void *d_prefix, cudaStream_t stream);

/* Sum scans of d_in[0 .. n) of dtype `dtype`, kept and written as
 * `out_dtype`: d_out[0 .. n) of out_dtype (aligned to its size), for the
 * pairs wk_sum_widens accepts (WK_ERROR_UNSUPPORTED for others). As
 * wk_reduce_to for a sum: each element converted exactly, integer prefixes
 * wrapping modulo 2^bits of out_dtype, f16 / bf16 prefixes kept in f32, f32
 * ones added in double. init and *d_prefix (NULL: none, as the _from forms
 * take it) are of out_dtype. d_out may not overlap d_in when the dtypes
 * differ. The input is read once and each output written once: the
 * positions of a bool mask's Trues are wk_exclusive_scan_to(mask, WK_BOOL,
 * WK_I64). out_dtype == dtype is wk_inclusive_scan_from / wk_exclusive_scan_from
 * with WK_SUM. One launch on `stream`; workspace and limits as the scans
 * above, by the input's dtype. Since 0.3.0. */
wk_status wk_inclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                               wk_dtype out_dtype, const void *d_prefix, cudaStream_t stream);
wk_status wk_exclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                               wk_dtype out_dtype, wk_value init, const void *d_prefix, cudaStream_t stream);

/* Grows the context's workspaces, and those it makes later, to cover scans
 * and selects of up to n elements of dtype at any alignment. Allocates and
 * synchronizes the context's device; do it once, before timing. Never
 * shrinks. */
wk_status wk_scan_reserve(wk_context *ctx, size_t n, wk_dtype dtype);

/* ---------------------------------------------------------------- select */

/* How a predicate compares an element x with its constants a and b. */
typedef enum wk_compare {
    WK_LESS = 0,          /* x <  a                                  */
    WK_LESS_EQUAL = 1,    /* x <= a                                  */
    WK_GREATER = 2,       /* x >  a                                  */
    WK_GREATER_EQUAL = 3, /* x >= a                                  */
    WK_EQUAL = 4,         /* x == a                                  */
    WK_NOT_EQUAL = 5,     /* x != a                                  */
    WK_IN_RANGE = 6,      /* a <= x && x < b (half-open)             */
    WK_IS_NAN = 7,        /* x is a NaN; float dtypes only           */
    WK_NOT_NAN = 8        /* x is not a NaN; float dtypes only       */
} wk_compare;

#define WK_COMPARE_COUNT 9

/* Short name ("less", "in_range", ...), or "?" for an unknown compare. */
const char *wk_compare_name(wk_compare compare);
/* 1 if compare is one of the wk_compare values, else 0. */
int wk_compare_valid(int compare);

/* A built-in predicate: keep x when `compare` holds for x and the constants.
 * a and b are in the dtype's member of wk_value (raw bits for f16 / bf16);
 * b is used by WK_IN_RANGE only, and neither by the NaN tests.
 *
 * Comparisons are those of the dtype: signed or unsigned integers, IEEE
 * floats (f16 and bf16 compared exactly, as their float values). A NaN,
 * in x or in a constant, makes every comparison false except WK_NOT_EQUAL,
 * which it makes true, as in C. -0.0 and +0.0 are equal. */
typedef struct wk_predicate {
    wk_compare compare;
    wk_value a;
    wk_value b;
} wk_predicate;

/*
 * Stream compaction of d_in[0 .. n), in one kernel launch on `stream`. Each
 * call writes the number of elements it keeps to d_count[0] (a uint64_t in
 * device memory, 8-byte aligned) and keeps their order (stable):
 *
 *   wk_select_if:      the elements the predicate keeps, to d_out[0 .. count).
 *   wk_select_flagged: the elements whose byte in d_flags[0 .. n) is
 *                      nonzero, to d_out[0 .. count).
 *   wk_partition_if:   the kept elements to d_out[0 .. count) in order, and
 *                      the others to d_out[count .. n) in reverse order: the
 *                      last rejected element first (as CUB's
 *                      DevicePartition::If). Writes all n outputs.
 *   wk_unique:         the first element of every run of equal consecutive
 *                      elements, to d_out[0 .. count). Elements are equal when
 *                      == says so: -0.0 equals +0.0, and a NaN equals nothing,
 *                      so every NaN is kept.
 *   wk_where:          the indices i (int64_t) of the elements the predicate
 *                      keeps, to d_indices[0 .. count), as numpy's nonzero.
 *
 * Outputs past `count` are not written (except by wk_partition_if, which
 * fills all n). With n = 0 the only work is a zero written to d_count
 * (cudaMemsetAsync on `stream`); the other pointers are then not checked.
 *
 * Memory: d_out (d_indices) must have room for n outputs whatever the
 * count: the count is known only on the device, and the overlap checks
 * below take the whole n. d_out == d_in (in place) is allowed for
 * wk_select_if, wk_select_flagged and wk_unique: each output lands at or
 * before the input it comes from, and a tile writes only after every
 * earlier tile has read its input. wk_partition_if and wk_where need
 * outputs apart from the input.
 * Any other overlap of an output or d_count with anything returns
 * WK_ERROR_INVALID_ARGUMENT (d_flags may overlap d_in: both are only read). d_in and d_out need only the element
 * alignment, d_flags none.
 *
 * Errors: an unknown compare returns WK_ERROR_INVALID_ARGUMENT; WK_IS_NAN and
 * WK_NOT_NAN on an integer dtype return WK_ERROR_UNSUPPORTED.
 *
 * Workspace: the same tile-status slots as the scan (24 bytes per tile of
 * 16 KiB of input below 8 MiB, of 64 KiB from there on): a call on an input
 * larger than any before may grow them, under the same rules;
 * wk_scan_reserve(ctx, n, dtype) covers selects of up to n elements of
 * dtype as well.
 *
 * Launch: programmatic dependent launch on sm_90 and later, as wk_reduce.
 */
wk_status wk_select_if(wk_context *ctx, const void *d_in, void *d_out,
                       uint64_t *d_count, size_t n, wk_dtype dtype,
                       wk_predicate predicate, cudaStream_t stream);

wk_status wk_select_flagged(wk_context *ctx, const void *d_in,
                            const uint8_t *d_flags, void *d_out,
                            uint64_t *d_count, size_t n, wk_dtype dtype,
                            cudaStream_t stream);

wk_status wk_partition_if(wk_context *ctx, const void *d_in, void *d_out,
                          uint64_t *d_count, size_t n, wk_dtype dtype,
                          wk_predicate predicate, cudaStream_t stream);

wk_status wk_unique(wk_context *ctx, const void *d_in, void *d_out,
                    uint64_t *d_count, size_t n, wk_dtype dtype,
                    cudaStream_t stream);

wk_status wk_where(wk_context *ctx, const void *d_in, int64_t *d_indices,
                   uint64_t *d_count, size_t n, wk_dtype dtype,
                   wk_predicate predicate, cudaStream_t stream);

/* wk_unique and wk_where on one part of a longer input, continued from the
 * parts before it; each reads its carried value on the device, after the
 * previous work in `stream`:
 *   wk_unique_from: d_previous points to the element just before d_in[0]
 *                   (one element of dtype in device memory); d_in[0] is kept
 *                   only if it differs from it (as == says).
 *   wk_where_from:  *d_index_base (an int64_t in device memory) is added to
 *                   every index: the part's offset in the whole input.
 * NULL gives wk_unique / wk_where. The carried values may not lie in d_out,
 * d_indices or d_count. */
wk_status wk_unique_from(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                         wk_dtype dtype, const void *d_previous, cudaStream_t stream);

wk_status wk_where_from(wk_context *ctx, const void *d_in, int64_t *d_indices, uint64_t *d_count, size_t n,
                        wk_dtype dtype, wk_predicate predicate, const int64_t *d_index_base,
                        cudaStream_t stream);

/* ------------------------------------------------------------ read-back */

/* Copies `bytes` (1 to WK_COPY_TO_HOST_MAX_BYTES) from d_src to host memory
 * at h_dst once the work queued before it on `stream` is done, and waits for
 * it: a select's count or a result, read back. A one-block kernel stores the
 * bytes into pinned host memory that the device maps (one slot per
 * workspace), and h_dst gets them after the stream's synchronization: on
 * sm_90 this reaches the host sooner after a kernel than cudaMemcpyAsync
 * followed by a synchronization (docs/results.md). d_src is device, managed
 * or mapped pinned memory of ctx's device, with any alignment; h_dst any host
 * memory. Synchronizes `stream`, so on a stream being captured it returns
 * WK_ERROR_CAPTURE at once. Since 0.2.0. */
#define WK_COPY_TO_HOST_MAX_BYTES 256
wk_status wk_copy_to_host(wk_context *ctx, const void *d_src, void *h_dst,
                          size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* WARPKIT_H */
