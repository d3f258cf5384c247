/*
 * A stand-in for libwarpkit.so for the CPU tests of the Python package.
 *
 * Compiled against the real include/warpkit.h (with a one-line stand-in for
 * cuda_runtime_api.h), so a signature that drifts from the header fails to
 * build here. Every wk_* call records its arguments in `stub_last`, counts
 * itself in `stub_calls` and returns `stub_status` (setting the error message
 * to `stub_message` when nonzero). It never touches the memory it is given.
 * The few CUDA runtime functions the Python package calls itself are here
 * too; they log what they were asked to do in `stub_log`.
 */
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

static char last_message[256];

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

static void record(const void *ctx, const void *in, void *out, size_t n, int dtype, cudaStream_t s)
{
    memset(&stub_last, 0, sizeof stub_last);
    stub_last.ctx = ctx;
    stub_last.in = in;
    stub_last.out = out;
    stub_last.n = n;
    stub_last.dtype = dtype;
    stub_last.op = -1;
    stub_last.compare = -1;
    stub_last.device = -1;
    stub_last.stream = (void *)s;
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
    static const size_t sizes[] = {4, 4, 8, 8, 4, 8, 2, 2};
    return (unsigned)dtype < 8 ? sizes[dtype] : 0;
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
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.op = op;
    return finish("wk_reduce");
}

wk_status wk_reduce_repro(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                          cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.op = WK_SUM;
    return finish("wk_reduce_repro");
}

wk_status wk_reduce_to_host(wk_context *ctx, const void *d_in, void *h_out, size_t n, wk_dtype dtype,
                            wk_op op, cudaStream_t stream)
{
    record(ctx, d_in, h_out, n, dtype, stream);
    stub_last.op = op;
    return finish("wk_reduce_to_host");
}

wk_status wk_inclusive_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                            wk_op op, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.op = op;
    return finish("wk_inclusive_scan");
}

wk_status wk_exclusive_scan(wk_context *ctx, const void *d_in, void *d_out, size_t n, wk_dtype dtype,
                            wk_op op, wk_value init, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.op = op;
    stub_last.init = bits(init);
    return finish("wk_exclusive_scan");
}

wk_status wk_scan_reserve(wk_context *ctx, size_t n, wk_dtype dtype)
{
    record(ctx, NULL, NULL, n, dtype, NULL);
    return finish("wk_scan_reserve");
}

static void record_pred(wk_predicate p)
{
    stub_last.compare = p.compare;
    stub_last.a = bits(p.a);
    stub_last.b = bits(p.b);
}

wk_status wk_select_if(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                       wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.count = d_count;
    record_pred(predicate);
    return finish("wk_select_if");
}

wk_status wk_select_flagged(wk_context *ctx, const void *d_in, const uint8_t *d_flags, void *d_out,
                            uint64_t *d_count, size_t n, wk_dtype dtype, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.flags = d_flags;
    stub_last.count = d_count;
    return finish("wk_select_flagged");
}

wk_status wk_partition_if(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                          wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.count = d_count;
    record_pred(predicate);
    return finish("wk_partition_if");
}

wk_status wk_unique(wk_context *ctx, const void *d_in, void *d_out, uint64_t *d_count, size_t n,
                    wk_dtype dtype, cudaStream_t stream)
{
    record(ctx, d_in, d_out, n, dtype, stream);
    stub_last.count = d_count;
    return finish("wk_unique");
}

wk_status wk_where(wk_context *ctx, const void *d_in, int64_t *d_indices, uint64_t *d_count, size_t n,
                   wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    record(ctx, d_in, d_indices, n, dtype, stream);
    stub_last.count = d_count;
    record_pred(predicate);
    return finish("wk_where");
}

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

const char *cudaGetErrorString(int err) { return err ? "stub CUDA error" : "no error"; }
int cudaGetLastError(void) { return 0; }
