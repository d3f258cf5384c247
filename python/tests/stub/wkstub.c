/*
 * A stand-in for libwarpkit.so for the CPU tests of the Python package.
 *
 * Compiled against the real include/warpkit.h (with a one-line stand-in for
 * cuda_runtime_api.h), so a signature that drifts from the header fails to
 * build here. Every wk_* call records its arguments in `stub_last`, counts
 * itself in `stub_calls` and returns `stub_status` (setting the error message
 * to `stub_message` when nonzero). It never touches the memory it is given,
 * except the segmented calls (wk_segmented_reduce_to included) while
 * `stub_compute` is set: they then compute on host memory, one element at a
 * time, so that the tests can compare what the Python side asked for with
 * NumPy. The few CUDA runtime functions the Python package calls itself are
 * here too; they log what they were asked to do in `stub_log`.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "warpkit.h"

typedef struct stub_call {
    char fn[32];
    const void *ctx;
    const void *in;
    const void *flags;
    void *out;
    void *count;
    uint64_t n;
    int dtype;
    int op;
    int compare;
    int device;
    uint64_t init;
    uint64_t a;
    uint64_t b;
    void *stream;
    /* the wk_segments of a segmented call */
    uint64_t seg_count;
    uint64_t seg_size;
    uint64_t seg_stride;
    const void *seg_begin;
    const void *seg_end;
    /* the result dtype of the _to calls (-1 for the others), and the
       d_prefix of the _to scans */
    int out_dtype;
    const void *prefix;
} stub_call;

stub_call stub_last;
int stub_calls;
int stub_status;          /* returned by every wk_* call but wk_create */
int stub_create_status;   /* returned by wk_create */
int stub_creates;         /* wk_create calls */
char stub_message[256];   /* detail message for a nonzero status */
int stub_ptr_type = 2;    /* cudaPointerGetAttributes: memory type (2: device) */
int stub_ptr_device = 0;  /* ... and device */
uintptr_t stub_bad_ptr;   /* this pointer is unknown to CUDA */
int stub_current_device;
char stub_log[4096];      /* CUDA runtime calls, "name(args);" each */
int stub_compute;         /* segmented calls compute on host memory */
uint64_t stub_memcpy_value; /* what cudaMemcpyAsync reads from the device (without stub_compute) */

static char last_message[256];
static void logf_(const char *name, uint64_t a, uint64_t b);

static wk_status finish(const char *fn)
{
    strncpy(stub_last.fn, fn, sizeof stub_last.fn - 1);
    stub_calls++;
    if (stub_status) {
        strncpy(last_message, stub_message, sizeof last_message - 1);
    } else {
        last_message[0] = '\0';
    }
    return (wk_status)stub_status;
}

/* Starts the record of a call with the arguments most calls take; compare
 * and device are -1 (not given), as op is for the calls without one. */
static void record(const void *ctx, const void *in, void *out, size_t n, int dtype, int op, cudaStream_t s)
{
    stub_last = (stub_call){.ctx = ctx, .in = in, .out = out, .n = n, .dtype = dtype, .op = op, .compare = -1,
                            .device = -1, .stream = (void *)s, .out_dtype = -1};
}

/* The whole of a call that only records its arguments. */
static wk_status recorded(const char *fn, const void *ctx, const void *in, void *out, size_t n, int dtype, int op,
                          cudaStream_t s)
{
    record(ctx, in, out, n, dtype, op, s);
    return finish(fn);
}

static uint64_t bits(wk_value v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

void stub_reset(void)
{
    memset(&stub_last, 0, sizeof stub_last);
    stub_calls = stub_status = stub_create_status = stub_creates = 0;
    stub_message[0] = last_message[0] = stub_log[0] = '\0';
    stub_ptr_type = 2;
    stub_ptr_device = 0;
    stub_bad_ptr = 0;
    stub_current_device = 0;
    stub_compute = 0;
    stub_memcpy_value = 0;
}

const char *wk_status_string(wk_status status)
{
    static const char *const names[] = {"success", "invalid argument", "invalid dtype", "invalid op",
                                        "op not supported for this dtype", "invalid pointer",
                                        "no CUDA device", "out of memory", "CUDA error"};
    if ((unsigned)status < sizeof names / sizeof names[0])
        return names[status];
    return "unknown status";
}

const char *wk_last_error_message(void) { return last_message; }

size_t wk_dtype_size(wk_dtype dtype)
{
    static const size_t sizes[WK_DTYPE_COUNT] = {4, 4, 8, 8, 4, 8, 2, 2, 1, 1, 1, 2, 2};
    return (unsigned)dtype < WK_DTYPE_COUNT ? sizes[dtype] : 0;
}

static int is_narrow(int dt) { return dt >= WK_BOOL && dt <= WK_U16; }

int wk_sum_widens(int in, int out)
{
    if ((unsigned)in >= WK_DTYPE_COUNT || (unsigned)out >= WK_DTYPE_COUNT)
        return 0;
    if (in == out)
        return in != WK_BOOL;
    if (is_narrow(in))
        return out == WK_I32 || out == WK_U32 || out == WK_I64 || out == WK_U64;
    if (in == WK_I32 || in == WK_U32)
        return out == WK_I64 || out == WK_U64;
    if (in == WK_F16 || in == WK_BF16)
        return out == WK_F32;
    return in == WK_F32 && out == WK_F64;
}

wk_status wk_create(wk_context **ctx, int device)
{
    stub_creates++;
    if (stub_create_status) {
        strncpy(last_message, stub_message, sizeof last_message - 1);
        return (wk_status)stub_create_status;
    }
    *ctx = (wk_context *)(uintptr_t)(0x1000 + 0x10 * device);
    return WK_SUCCESS;
}

wk_status wk_destroy(wk_context *ctx)
{
    (void)ctx;
    return WK_SUCCESS;
}

int wk_context_device(const wk_context *ctx) { return (int)(((uintptr_t)ctx - 0x1000) / 0x10); }
int wk_context_sm_count(const wk_context *ctx) { (void)ctx; return 132; }

wk_status wk_reduce(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                    cudaStream_t stream)
{
    return recorded("wk_reduce", ctx, d_in, d_out, n, dtype, op, stream);
}

wk_status wk_reduce_repro(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                          cudaStream_t stream)
{
    return recorded("wk_reduce_repro", ctx, d_in, d_out, n, dtype, WK_SUM, stream);
}

#ifndef WK_STUB_WITHOUT_OPTIONAL
wk_status wk_reduce_index(wk_context *ctx, const void *d_in, int64_t *d_index, size_t n, wk_dtype dtype, wk_op op,
                          cudaStream_t stream)
{
    return recorded("wk_reduce_index", ctx, d_in, d_index, n, dtype, op, stream);
}

/* Reads what cudaMemcpyAsync would (stub_memcpy_value, or the memory itself
 * with stub_compute), and logs "copy_to_host(src,stream);". */
wk_status wk_copy_to_host(wk_context *ctx, const void *d_src, void *h_dst, size_t bytes, cudaStream_t stream)
{
    record(ctx, d_src, h_dst, bytes, -1, -1, stream);
    logf_("copy_to_host", (uintptr_t)d_src, (uintptr_t)stream);
    if (!stub_status) {
        if (stub_compute) {
            memcpy(h_dst, d_src, bytes);
        } else {
            memset(h_dst, 0, bytes);
            memcpy(h_dst, &stub_memcpy_value, bytes < sizeof stub_memcpy_value ? bytes : sizeof stub_memcpy_value);
        }
    }
    return finish("wk_copy_to_host");
}
#endif

#ifndef WK_STUB_WITHOUT_OPTIONAL
/* The widening sums (0.3.0): recorded with op WK_SUM and out_dtype. */
wk_status wk_reduce_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                       wk_dtype out_dtype, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, WK_SUM, stream);
    stub_last.out_dtype = out_dtype;
    return finish("wk_reduce_to");
}

wk_status wk_inclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                               wk_dtype out_dtype, const void *d_prefix, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, WK_SUM, stream);
    stub_last.out_dtype = out_dtype;
    stub_last.prefix = d_prefix;
    return finish("wk_inclusive_scan_to");
}

wk_status wk_exclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                               wk_dtype out_dtype, wk_value init, const void *d_prefix, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, WK_SUM, stream);
    stub_last.out_dtype = out_dtype;
    stub_last.init = bits(init);
    stub_last.prefix = d_prefix;
    return finish("wk_exclusive_scan_to");
}
#endif

wk_status wk_reduce_to_host(wk_context *ctx, const void *d_in, void *h_out, size_t n, wk_dtype dtype,
                            wk_op op, cudaStream_t stream)
{
    return recorded("wk_reduce_to_host", ctx, d_in, h_out, n, dtype, op, stream);
}

wk_status wk_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                            wk_op op, cudaStream_t stream)
{
    return recorded("wk_inclusive_scan", ctx, d_in, d_out, n, dtype, op, stream);
}

wk_status wk_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                            wk_op op, wk_value init, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, op, stream);
    stub_last.init = bits(init);
    return finish("wk_exclusive_scan");
}

wk_status wk_scan_reserve(wk_context *ctx, size_t n, wk_dtype dtype)
{
    return recorded("wk_scan_reserve", ctx, NULL, NULL, n, dtype, -1, NULL);
}

/* A call of the select family: its arrays, its count and its predicate
 * (NULL for the calls without one). */
static wk_status selected(const char *fn, const void *ctx, const void *in, void *out, uint64_t *count, size_t n,
                          int dtype, const wk_predicate *p, cudaStream_t s)
{
    record(ctx, in, out, n, dtype, -1, s);
    stub_last.count = count;
    if (p) {
        stub_last.compare = p->compare;
        stub_last.a = bits(p->a);
        stub_last.b = bits(p->b);
    }
    return finish(fn);
}

wk_status wk_select_if(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                       wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    return selected("wk_select_if", ctx, d_in, d_out, d_count, n, dtype, &predicate, stream);
}

wk_status wk_select_flagged(wk_context *ctx, const void *d_in, const uint8_t *d_flags, void *d_out,
                            uint64_t *d_count, size_t n, wk_dtype dtype, cudaStream_t stream)
{
    wk_status st = selected("wk_select_flagged", ctx, d_in, d_out, d_count, n, dtype, NULL, stream);
    stub_last.flags = d_flags;
    return st;
}

wk_status wk_partition_if(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                          wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    return selected("wk_partition_if", ctx, d_in, d_out, d_count, n, dtype, &predicate, stream);
}

wk_status wk_unique(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                    wk_dtype dtype, cudaStream_t stream)
{
    return selected("wk_unique", ctx, d_in, d_out, d_count, n, dtype, NULL, stream);
}

wk_status wk_where(wk_context *ctx, const void *d_in, int64_t *d_indices, uint64_t *d_count, size_t n,
                   wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    return selected("wk_where", ctx, d_in, d_indices, d_count, n, dtype, &predicate, stream);
}

/* ------------------------------------------------------------ segments */

/* Left out, with wk_reduce_index, to stand for a library older than the
 * package's optional entry points. */
#ifndef WK_STUB_WITHOUT_OPTIONAL

/* Elements as doubles (floats) or 64-bit patterns (integers). */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float f;
    if (exp == 0x1f)
        return man ? NAN : (sign ? -INFINITY : INFINITY);
    f = exp ? ldexpf((float)(man | 0x400), (int)exp - 25) : ldexpf((float)man, -24);
    return sign ? -f : f;
}

static uint16_t float_to_half(float f)
{
    /* Round to nearest even through the scaled integer significand. */
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    int e;
    if (isnan(f))
        return 0x7e00;
    if (a >= 65520.0f)
        return sign | 0x7c00;
    if (a < ldexpf(1.0f, -14)) {
        long m = lrintf(ldexpf(a, 24)); /* subnormal: units of 2^-24 (may round up to 0x400) */
        return sign | (uint16_t)m;
    }
    frexpf(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
    {
        long m = lrintf(ldexpf(a, 11 - e)); /* 1024 .. 2048 */
        int exp = e - 1 + 15;
        if (m == 2048) {
            m = 1024;
            exp++;
        }
        if (exp >= 31)
            return sign | 0x7c00;
        return sign | (uint16_t)(exp << 10) | (uint16_t)(m - 1024);
    }
}

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t u;
    if (isnan(f))
        return 0x7fc0;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static int is_float(wk_dtype dt) { return dt >= WK_F32 && dt <= WK_BF16; }
static int is_signed(wk_dtype dt) { return dt == WK_I32 || dt == WK_I64 || dt == WK_I8 || dt == WK_I16; }

static double load_f(const void *base, size_t i, wk_dtype dt)
{
    const char *p = (const char *)base;
    switch (dt) {
    case WK_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
    case WK_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
    case WK_F16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return half_to_float(v); }
    default: { uint16_t v; memcpy(&v, p + 2 * i, 2); return bf16_to_float(v); }
    }
}

static uint64_t load_i(const void *base, size_t i, wk_dtype dt)
{
    const char *p = (const char *)base;
    switch (dt) {
    case WK_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return (uint64_t)(int64_t)v; }
    case WK_U32: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case WK_I8: { int8_t v; memcpy(&v, p + i, 1); return (uint64_t)(int64_t)v; }
    case WK_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return (uint64_t)(int64_t)v; }
    case WK_U16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case WK_BOOL: case WK_U8: { uint8_t v; memcpy(&v, p + i, 1); return v; }
    default: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

/* The raw bits of a value of the dtype (floats rounded to it). */
static uint64_t bits_f(double v, wk_dtype dt)
{
    if (dt == WK_F64) { uint64_t u; memcpy(&u, &v, 8); return u; }
    if (dt == WK_F32) { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); return u; }
    return dt == WK_F16 ? float_to_half((float)v) : float_to_bf16((float)v);
}

static void store_bits(void *base, size_t i, uint64_t u, wk_dtype dt)
{
    size_t k = wk_dtype_size(dt);
    memcpy((char *)base + k * i, &u, k); /* little-endian: the low bytes */
}

static int less_i(uint64_t a, uint64_t b, wk_dtype dt)
{
    return is_signed(dt) ? (int64_t)a < (int64_t)b : a < b;
}

/* Float accumulation: in float below f64, as the library does. */
static double acc_add(double a, double b, wk_dtype dt) { return dt == WK_F64 ? a + b : (double)((float)a + (float)b); }

static double fmin_ieee(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

static double fmax_ieee(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* The bits of the dtype's values (a bool's one bit: its AND and MIN
 * identity is true, 1). */
static uint64_t mask_of(wk_dtype dt)
{
    size_t k = wk_dtype_size(dt);
    if (dt == WK_BOOL)
        return 1;
    return k == 8 ? ~0ull : (1ull << (8 * k)) - 1;
}

static uint64_t identity_i(wk_op op, wk_dtype dt)
{
    int sgn = is_signed(dt);
    uint64_t m = mask_of(dt);
    switch (op) {
    case WK_AND: return m;
    case WK_MIN: case WK_ARGMIN: return sgn ? m >> 1 : m;
    case WK_MAX: case WK_ARGMAX: return sgn ? (uint64_t)(-(int64_t)(m >> 1) - 1) : 0; /* sign-extended */
    default: return 0;
    }
}

static double identity_f(wk_op op)
{
    if (op == WK_MIN || op == WK_ARGMIN) return INFINITY;
    if (op == WK_MAX || op == WK_ARGMAX) return -INFINITY;
    return 0.0;
}

static uint64_t combine_i(uint64_t a, uint64_t b, wk_op op, wk_dtype dt)
{
    switch (op) {
    case WK_SUM: return a + b;
    case WK_MIN: return less_i(b, a, dt) ? b : a;
    case WK_MAX: return less_i(a, b, dt) ? b : a;
    case WK_AND: return a & b;
    case WK_OR: return a | b;
    default: return a ^ b;
    }
}

static double combine_f(double a, double b, wk_op op, wk_dtype dt)
{
    if (op == WK_SUM) return acc_add(a, b, dt);
    return op == WK_MIN ? fmin_ieee(a, b) : fmax_ieee(a, b);
}

/* Segment i: its first element and length. */
static int segment(const wk_segments *sg, size_t i, size_t *first, size_t *len)
{
    if (sg->d_begin) {
        int64_t n = (int64_t)sg->size, b = sg->d_begin[i], e = sg->d_end[i];
        b = b < 0 ? 0 : (b > n ? n : b);
        e = e < 0 ? 0 : (e > n ? n : e);
        *first = (size_t)b;
        *len = e > b ? (size_t)(e - b) : 0;
    } else {
        *first = i * (sg->stride ? sg->stride : sg->size);
        *len = sg->size;
    }
    return 0;
}

static wk_status check(const wk_segments *sg, wk_dtype dt, wk_op op, int scan)
{
    if (!sg)
        return WK_ERROR_INVALID_ARGUMENT;
    if ((unsigned)dt >= WK_DTYPE_COUNT)
        return WK_ERROR_INVALID_DTYPE;
    if ((unsigned)op >= 8 || (scan && op >= WK_ARGMIN))
        return scan && op < 8 ? WK_ERROR_UNSUPPORTED : WK_ERROR_INVALID_OP;
    if (is_float(dt) && (op == WK_AND || op == WK_OR || op == WK_XOR))
        return WK_ERROR_UNSUPPORTED;
    if (dt == WK_BOOL && op == WK_SUM) /* as the library: count with a _to call */
        return WK_ERROR_UNSUPPORTED;
    if (!sg->d_begin && sg->stride && sg->stride < sg->size)
        return WK_ERROR_INVALID_ARGUMENT;
    return WK_SUCCESS;
}

static void seg_reduce_host(const void *in, void *out, const wk_segments *sg, wk_dtype dt, wk_op op)
{
    for (size_t i = 0; i < sg->count; i++) {
        size_t first, len;
        segment(sg, i, &first, &len);
        if (op == WK_ARGMIN || op == WK_ARGMAX) {
            int64_t best = -1;
            uint64_t vbits = is_float(dt) ? bits_f(identity_f(op), dt) : identity_i(op, dt) & mask_of(dt);
            if (is_float(dt)) {
                double bv = 0;
                for (size_t j = 0; j < len; j++) {
                    double v = load_f(in, first + j, dt);
                    if (best < 0 || (!isnan(bv) && (isnan(v) || (op == WK_ARGMIN ? v < bv : v > bv)))) {
                        best = (int64_t)j;
                        bv = v;
                    }
                }
                if (best >= 0)
                    vbits = bits_f(bv, dt);
            } else {
                uint64_t bv = 0;
                for (size_t j = 0; j < len; j++) {
                    uint64_t v = load_i(in, first + j, dt);
                    if (best < 0 || (op == WK_ARGMIN ? less_i(v, bv, dt) : less_i(bv, v, dt))) {
                        best = (int64_t)j;
                        bv = v;
                    }
                }
                if (best >= 0)
                    vbits = bv & mask_of(dt);
            }
            wk_arg_result r;
            memset(&r, 0, sizeof r);
            memcpy(&r.value, &vbits, sizeof vbits);
            r.index = best;
            memcpy((char *)out + i * sizeof r, &r, sizeof r);
        } else if (is_float(dt)) {
            double acc = identity_f(op);
            for (size_t j = 0; j < len; j++)
                acc = combine_f(acc, load_f(in, first + j, dt), op, dt);
            store_bits(out, i, bits_f(acc, dt), dt);
        } else {
            uint64_t acc = identity_i(op, dt);
            for (size_t j = 0; j < len; j++)
                acc = combine_i(acc, load_i(in, first + j, dt), op, dt);
            store_bits(out, i, acc & mask_of(dt), dt);
        }
    }
}

static void seg_scan_host(const void *in, void *out, const wk_segments *sg, wk_dtype dt, wk_op op, int exclusive,
                          uint64_t init)
{
    for (size_t i = 0; i < sg->count; i++) {
        size_t first, len;
        segment(sg, i, &first, &len);
        if (is_float(dt)) {
            double acc = identity_f(op);
            if (exclusive) {
                wk_value v;
                memcpy(&v, &init, sizeof v);
                acc = dt == WK_F32 ? v.f32 : dt == WK_F64 ? v.f64
                    : dt == WK_F16 ? half_to_float((uint16_t)init) : bf16_to_float((uint16_t)init);
            }
            for (size_t j = 0; j < len; j++) {
                double x = load_f(in, first + j, dt); /* read before the write: in place */
                if (exclusive)
                    store_bits(out, first + j, bits_f(acc, dt), dt);
                acc = combine_f(acc, x, op, dt);
                if (!exclusive)
                    store_bits(out, first + j, bits_f(acc, dt), dt);
            }
        } else {
            uint64_t acc = exclusive ? load_i(&init, 0, dt) : identity_i(op, dt); /* init sign-extended */
            for (size_t j = 0; j < len; j++) {
                uint64_t x = load_i(in, first + j, dt);
                if (exclusive)
                    store_bits(out, first + j, acc & mask_of(dt), dt);
                acc = combine_i(acc, x, op, dt);
                if (!exclusive)
                    store_bits(out, first + j, acc & mask_of(dt), dt);
            }
        }
    }
}

/* Records a segmented call; whether to compute it on host memory then
 * (stub_compute, and the call and check() succeed), *st what it returns. */
static int segmented(const char *fn, const void *ctx, const void *in, void *out, const wk_segments *sg, wk_dtype dt,
                     wk_op op, int scan, cudaStream_t s, wk_status *st)
{
    record(ctx, in, out, 0, dt, op, s);
    if (sg) {
        stub_last.seg_count = sg->count;
        stub_last.seg_size = sg->size;
        stub_last.seg_stride = sg->stride;
        stub_last.seg_begin = sg->d_begin;
        stub_last.seg_end = sg->d_end;
    }
    *st = finish(fn);
    return *st == WK_SUCCESS && stub_compute && (*st = check(sg, dt, op, scan)) == WK_SUCCESS;
}

wk_status wk_segmented_reduce(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                              wk_dtype dtype, wk_op op, cudaStream_t stream)
{
    wk_status st;
    if (segmented("wk_segmented_reduce", ctx, d_in, d_out, segments, dtype, op, 0, stream, &st))
        seg_reduce_host(d_in, d_out, segments, dtype, op);
    return st;
}

wk_status wk_segmented_reduce_repro(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                    wk_dtype dtype, cudaStream_t stream)
{
    wk_status st;
    if (segmented("wk_segmented_reduce_repro", ctx, d_in, d_out, segments, dtype, WK_SUM, 0, stream, &st))
        seg_reduce_host(d_in, d_out, segments, dtype, WK_SUM); /* exact for the tests' values */
    return st;
}

/* Segment sums of dt kept and written as odt, as wk_segmented_reduce_to:
 * integers sign- or zero-extended and wrapping in odt, floats added in odt. */
static void seg_reduce_to_host(const void *in, void *out, const wk_segments *sg, wk_dtype dt, wk_dtype odt)
{
    for (size_t i = 0; i < sg->count; i++) {
        size_t first, len;
        segment(sg, i, &first, &len);
        if (is_float(odt)) {
            double acc = 0.0;
            for (size_t j = 0; j < len; j++)
                acc = acc_add(acc, load_f(in, first + j, dt), odt);
            store_bits(out, i, bits_f(acc, odt), odt);
        } else {
            uint64_t acc = 0;
            for (size_t j = 0; j < len; j++)
                acc += load_i(in, first + j, dt);
            store_bits(out, i, acc & mask_of(odt), odt);
        }
    }
}

wk_status wk_segmented_reduce_to(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                 wk_dtype dtype, wk_dtype out_dtype, cudaStream_t stream)
{
    wk_status st;
    /* check() refuses a bool sum; the pairs are checked here instead */
    wk_op op = dtype == WK_BOOL ? WK_OR : WK_SUM;
    int compute = segmented("wk_segmented_reduce_to", ctx, d_in, d_out, segments, dtype, op, 0, stream, &st);
    stub_last.op = WK_SUM;
    stub_last.out_dtype = out_dtype;
    if (compute) {
        if (!wk_sum_widens(dtype, out_dtype))
            return WK_ERROR_UNSUPPORTED;
        seg_reduce_to_host(d_in, d_out, segments, dtype, out_dtype);
    }
    return st;
}

wk_status wk_segmented_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                      wk_dtype dtype, wk_op op, cudaStream_t stream)
{
    wk_status st;
    if (segmented("wk_segmented_inclusive_scan", ctx, d_in, d_out, segments, dtype, op, 1, stream, &st))
        seg_scan_host(d_in, d_out, segments, dtype, op, 0, 0);
    return st;
}

wk_status wk_segmented_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                      wk_dtype dtype, wk_op op, wk_value init, cudaStream_t stream)
{
    wk_status st;
    int compute = segmented("wk_segmented_exclusive_scan", ctx, d_in, d_out, segments, dtype, op, 1, stream, &st);
    stub_last.init = bits(init);
    if (compute)
        seg_scan_host(d_in, d_out, segments, dtype, op, 1, bits(init));
    return st;
}

/* Segment prefix sums of dt kept and written as odt, as
 * wk_segmented_inclusive_scan_to: integers sign- or zero-extended and
 * wrapping in odt, floats added in odt; the exclusive scan's init is of odt. */
static void seg_scan_to_host(const void *in, void *out, const wk_segments *sg, wk_dtype dt, wk_dtype odt,
                             int exclusive, uint64_t init)
{
    for (size_t i = 0; i < sg->count; i++) {
        size_t first, len;
        segment(sg, i, &first, &len);
        if (is_float(odt)) {
            wk_value v;
            memcpy(&v, &init, sizeof v);
            double acc = !exclusive ? 0.0 : odt == WK_F32 ? v.f32 : v.f64;
            for (size_t j = 0; j < len; j++) {
                if (exclusive)
                    store_bits(out, first + j, bits_f(acc, odt), odt);
                acc = acc_add(acc, load_f(in, first + j, dt), odt);
                if (!exclusive)
                    store_bits(out, first + j, bits_f(acc, odt), odt);
            }
        } else {
            uint64_t acc = exclusive ? load_i(&init, 0, odt) : 0;
            for (size_t j = 0; j < len; j++) {
                if (exclusive)
                    store_bits(out, first + j, acc & mask_of(odt), odt);
                acc += load_i(in, first + j, dt);
                if (!exclusive)
                    store_bits(out, first + j, acc & mask_of(odt), odt);
            }
        }
    }
}

static wk_status segmented_scan_to(const char *fn, const void *d_in, void *d_out, const wk_segments *segments,
                                   wk_dtype dtype, wk_dtype out_dtype, int exclusive, wk_value init,
                                   const void *ctx, cudaStream_t stream)
{
    wk_status st;
    /* check() refuses a bool sum; the pairs are checked here instead */
    wk_op op = dtype == WK_BOOL ? WK_OR : WK_SUM;
    int compute = segmented(fn, ctx, d_in, d_out, segments, dtype, op, 1, stream, &st);
    stub_last.op = WK_SUM;
    stub_last.out_dtype = out_dtype;
    stub_last.init = exclusive ? bits(init) : 0;
    if (compute) {
        if (!wk_sum_widens(dtype, out_dtype))
            return WK_ERROR_UNSUPPORTED;
        seg_scan_to_host(d_in, d_out, segments, dtype, out_dtype, exclusive, bits(init));
    }
    return st;
}

wk_status wk_segmented_inclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                         wk_dtype dtype, wk_dtype out_dtype, cudaStream_t stream)
{
    wk_value zero;
    memset(&zero, 0, sizeof zero);
    return segmented_scan_to("wk_segmented_inclusive_scan_to", d_in, d_out, segments, dtype, out_dtype, 0, zero, ctx,
                             stream);
}

wk_status wk_segmented_exclusive_scan_to(wk_context *ctx, const void *d_in, void *d_out, const wk_segments *segments,
                                         wk_dtype dtype, wk_dtype out_dtype, wk_value init, cudaStream_t stream)
{
    return segmented_scan_to("wk_segmented_exclusive_scan_to", d_in, d_out, segments, dtype, out_dtype, 1, init, ctx,
                             stream);
}

/* The selects continued from a carried value: recorded, the carried
 * pointer in stub_last.prefix. */
wk_status wk_unique_from(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                         wk_dtype dtype, const void *d_previous, cudaStream_t stream)
{
    wk_status st = selected("wk_unique_from", ctx, d_in, d_out, d_count, n, dtype, NULL, stream);
    stub_last.prefix = d_previous;
    return st;
}

wk_status wk_where_from(wk_context *ctx, const void *d_in, int64_t *d_indices, uint64_t *d_count, size_t n,
                        wk_dtype dtype, wk_predicate predicate, const int64_t *d_index_base, cudaStream_t stream)
{
    wk_status st = selected("wk_where_from", ctx, d_in, d_indices, d_count, n, dtype, &predicate, stream);
    stub_last.prefix = d_index_base;
    return st;
}

/* The reproducible partials: with stub_compute, a partial is a tag, the
 * double sum of its part (exact for the tests' values) and its length;
 * wk_repro_finalize adds the sums of the partials it is given. */
#define STUB_PARTIAL_TAG 0x7061727469616c31ull
wk_status wk_reduce_repro_partial(wk_context *ctx, const void *d_in, wk_repro_partial *d_partial, size_t n,
                                  wk_dtype dtype, cudaStream_t stream)
{
    record(ctx, d_in, d_partial, n, dtype, WK_SUM, stream);
    wk_status st = finish("wk_reduce_repro_partial");
    if (st != WK_SUCCESS || !stub_compute)
        return st;
    if (!is_float(dtype))
        return WK_ERROR_UNSUPPORTED;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += load_f(d_in, i, dtype);
    memset(d_partial, 0, sizeof *d_partial);
    d_partial->opaque[0] = STUB_PARTIAL_TAG;
    memcpy(&d_partial->opaque[1], &sum, sizeof sum);
    d_partial->opaque[2] = n;
    return st;
}

wk_status wk_repro_finalize(wk_context *ctx, const wk_repro_partial *d_partials, size_t count, void *d_out,
                            wk_dtype dtype, cudaStream_t stream)
{
    record(ctx, d_partials, d_out, count, dtype, WK_SUM, stream);
    wk_status st = finish("wk_repro_finalize");
    if (st != WK_SUCCESS || !stub_compute)
        return st;
    if (!is_float(dtype))
        return WK_ERROR_UNSUPPORTED;
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        if (d_partials[i].opaque[0] != STUB_PARTIAL_TAG)
            return WK_ERROR_INVALID_ARGUMENT;
        double part;
        memcpy(&part, &d_partials[i].opaque[1], sizeof part);
        sum += part;
    }
    store_bits(d_out, 0, bits_f(sum, dtype), dtype);
    return st;
}

/* A scan of one part continued from *prefix (NULL: none), as the _from
 * calls define it, on host memory. */
static void scan_from_host(const void *in, void *out, size_t n, wk_dtype dt, wk_op op, int exclusive, uint64_t init,
                           const void *prefix)
{
    if (is_float(dt)) {
        double acc = identity_f(op);
        if (exclusive) {
            wk_value v;
            memcpy(&v, &init, sizeof v);
            acc = dt == WK_F32 ? v.f32 : dt == WK_F64 ? v.f64
                : dt == WK_F16 ? half_to_float((uint16_t)init) : bf16_to_float((uint16_t)init);
        }
        if (prefix)
            acc = combine_f(acc, load_f(prefix, 0, dt), op, dt);
        for (size_t j = 0; j < n; j++) {
            double x = load_f(in, j, dt);
            if (exclusive)
                store_bits(out, j, bits_f(acc, dt), dt);
            acc = combine_f(acc, x, op, dt);
            if (!exclusive)
                store_bits(out, j, bits_f(acc, dt), dt);
        }
        return;
    }
    uint64_t acc = exclusive ? load_i(&init, 0, dt) : identity_i(op, dt);
    if (prefix)
        acc = combine_i(acc, load_i(prefix, 0, dt), op, dt);
    for (size_t j = 0; j < n; j++) {
        uint64_t x = load_i(in, j, dt);
        if (exclusive)
            store_bits(out, j, acc & mask_of(dt), dt);
        acc = combine_i(acc, x, op, dt);
        if (!exclusive)
            store_bits(out, j, acc & mask_of(dt), dt);
    }
}

/* The scans from a carried prefix: recorded (prefix in stub_last.prefix),
 * computed with stub_compute. */
wk_status wk_inclusive_scan_from(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 wk_op op, const void *d_prefix, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, op, stream);
    stub_last.prefix = d_prefix;
    wk_status st = finish("wk_inclusive_scan_from");
    if (st == WK_SUCCESS && stub_compute)
        scan_from_host(d_in, d_out, n, dtype, op, 0, 0, d_prefix);
    return st;
}

wk_status wk_exclusive_scan_from(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                                 wk_op op, wk_value init, const void *d_prefix, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, op, stream);
    stub_last.init = bits(init);
    stub_last.prefix = d_prefix;
    wk_status st = finish("wk_exclusive_scan_from");
    if (st == WK_SUCCESS && stub_compute)
        scan_from_host(d_in, d_out, n, dtype, op, 1, bits(init), d_prefix);
    return st;
}

#endif

/* ------------------------------------------------ CUDA runtime stand-ins */
static void logf_(const char *name, uint64_t a, uint64_t b)
{
    size_t len = strlen(stub_log);
    snprintf(stub_log + len, sizeof stub_log - len, "%s(0x%llx,0x%llx);", name, (unsigned long long)a,
             (unsigned long long)b);
}

int cudaGetDevice(int *device)
{
    *device = stub_current_device;
    return 0;
}

int cudaSetDevice(int device)
{
    logf_("setdevice", (uint64_t)device, 0);
    stub_current_device = device;
    return 0;
}

int cudaPointerGetAttributes(void *attr, const void *p)
{
    int *a = (int *)attr;
    if ((uintptr_t)p == stub_bad_ptr && stub_bad_ptr)
        return 1; /* cudaErrorInvalidValue */
    a[0] = stub_ptr_type;
    a[1] = stub_ptr_device;
    return 0;
}

int cudaEventCreateWithFlags(void **event, unsigned flags)
{
    static uintptr_t next = 0xe0;
    *event = (void *)(next++);
    logf_("eventcreate", (uintptr_t)*event, flags);
    return 0;
}

int cudaEventRecord(void *event, void *stream)
{
    logf_("record", (uintptr_t)event, (uintptr_t)stream);
    return 0;
}

int cudaStreamWaitEvent(void *stream, void *event, unsigned flags)
{
    (void)flags;
    logf_("wait", (uintptr_t)stream, (uintptr_t)event);
    return 0;
}

int cudaStreamSynchronize(void *stream)
{
    logf_("sync", (uintptr_t)stream, 0);
    return 0;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, void *stream)
{
    logf_("memcpy", (uintptr_t)src, (uintptr_t)stream);
    (void)kind;
    if (stub_compute) {
        memcpy(dst, src, bytes);
    } else {
        memset(dst, 0, bytes);
        memcpy(dst, &stub_memcpy_value, bytes < sizeof stub_memcpy_value ? bytes : sizeof stub_memcpy_value);
    }
    return 0;
}

const char *cudaGetErrorString(int err) { return err ? "stub CUDA error" : "no error"; }
int cudaGetLastError(void) { return 0; }
