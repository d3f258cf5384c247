/* The distributed calls (include/warpkit_nccl.h): each a short list of
 * steps, local work on the rank's GPU or an exchange through NCCL, so that
 * one thread can interleave the steps of several ranks (wk_dist_run_all). */
#include "dist/exchange.h"
#include "warpkit_nccl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes a rank sends in one exchange: at most a reproducible partial. */
#define RECORD_BYTES 64

/* Per-call values kept on the device between steps. */
typedef struct dist_scratch {
    uint64_t prefix;        /* scan: the ranks below, combined (one element) */
    wk_dist_count place;    /* where: this rank's offset in the whole input  */
    uint64_t previous;      /* unique: the element before this rank's first  */
} dist_scratch;

struct wk_dist {
    wk_context *ctx;
    ncclComm_t comm;
    int rank, ranks, device;
    int owns_ctx_and_comm; /* made by wk_dist_create_all */
    unsigned char *d_send; /* RECORD_BYTES                  */
    unsigned char *d_recv; /* ranks * RECORD_BYTES          */
    dist_scratch *d_scratch;
    pthread_mutex_t lock;
};

/* ------------------------------------------------------------ errors */

static _Thread_local char last_message[512];

static wk_status dist_fail(wk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static wk_status dist_fail(wk_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return status;
}

/* A warpkit call failed: keep its message. */
static wk_status warpkit_failed(wk_status status, const char *fn)
{
    return dist_fail(status, "%s: %s", fn, wk_last_error_message());
}

static wk_status cuda_failed(cudaError_t err, const char *fn, const char *what)
{
    return dist_fail(err == cudaErrorMemoryAllocation ? WK_ERROR_OUT_OF_MEMORY : WK_ERROR_CUDA, "%s: %s: %s", fn,
                     what, cudaGetErrorString(err));
}

static wk_status nccl_failed(ncclResult_t res, const char *fn, const char *what)
{
    return dist_fail(WK_ERROR_CUDA, "%s: %s: NCCL error %d (%s)", fn, what, (int)res, ncclGetErrorString(res));
}

const char *wk_dist_last_error_message(void) { return last_message; }

/* ------------------------------------------------------- handle */

/* Allocates the exchange buffers on the current device. */
static wk_status make_buffers(wk_dist *d, const char *fn)
{
    cudaError_t err = cudaMalloc((void **)&d->d_send, RECORD_BYTES);
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&d->d_recv, (size_t)d->ranks * RECORD_BYTES);
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&d->d_scratch, sizeof(dist_scratch));
    /* Zeroed, so that no step ever reads uninitialized bytes. */
    if (err == cudaSuccess)
        err = cudaMemset(d->d_send, 0, RECORD_BYTES);
    if (err == cudaSuccess)
        err = cudaMemset(d->d_recv, 0, (size_t)d->ranks * RECORD_BYTES);
    if (err == cudaSuccess)
        err = cudaMemset(d->d_scratch, 0, sizeof(dist_scratch));
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    return err == cudaSuccess ? WK_SUCCESS : cuda_failed(err, fn, "allocating the exchange buffers");
}

static void free_handle(wk_dist *d)
{
    if (!d)
        return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(d->device);
    cudaDeviceSynchronize();
    cudaFree(d->d_send);
    cudaFree(d->d_recv);
    cudaFree(d->d_scratch);
    if (d->owns_ctx_and_comm) {
        if (d->comm)
            ncclCommDestroy(d->comm);
        wk_destroy(d->ctx);
    }
    pthread_mutex_destroy(&d->lock);
    cudaSetDevice(previous);
    free(d);
}

/* A handle for ctx and comm, with its buffers; comm's rank and size read. */
static wk_status new_handle(wk_dist **out, wk_context *ctx, ncclComm_t comm, int owns, const char *fn)
{
    wk_dist *d = (wk_dist *)calloc(1, sizeof *d);
    if (!d)
        return dist_fail(WK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    d->ctx = ctx;
    d->comm = comm;
    d->owns_ctx_and_comm = owns;
    d->device = wk_context_device(ctx);
    pthread_mutex_init(&d->lock, NULL);
    ncclResult_t res = ncclCommUserRank(comm, &d->rank);
    if (res == ncclSuccess)
        res = ncclCommCount(comm, &d->ranks);
    int comm_device = -1;
    if (res == ncclSuccess)
        res = ncclCommCuDevice(comm, &comm_device);
    wk_status status = WK_SUCCESS;
    if (res != ncclSuccess)
        status = nccl_failed(res, fn, "reading the communicator");
    else if (comm_device != d->device)
        status = dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: the communicator is on device %d, the context on %d", fn,
                           comm_device, d->device);
    int previous = 0;
    cudaGetDevice(&previous);
    if (status == WK_SUCCESS && cudaSetDevice(d->device) == cudaSuccess)
        status = make_buffers(d, fn);
    cudaSetDevice(previous);
    if (status != WK_SUCCESS) {
        d->owns_ctx_and_comm = 0; /* the caller frees what it made */
        free_handle(d);
        return status;
    }
    *out = d;
    return WK_SUCCESS;
}

wk_status wk_dist_create(wk_dist **dist, wk_context *ctx, ncclComm_t comm)
{
    const char *fn = "wk_dist_create";
    last_message[0] = '\0';
    if (!dist || !ctx || !comm)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: dist, ctx and comm must not be NULL", fn);
    *dist = NULL;
    return new_handle(dist, ctx, comm, 0, fn);
}

wk_status wk_dist_create_all(wk_dist **dists, int count, const int *devices)
{
    const char *fn = "wk_dist_create_all";
    last_message[0] = '\0';
    if (!dists || !devices || count < 1)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: dists and devices must not be NULL, count >= 1", fn);
    for (int i = 0; i < count; ++i)
        dists[i] = NULL;
    ncclComm_t *comms = (ncclComm_t *)calloc((size_t)count, sizeof *comms);
    if (!comms)
        return dist_fail(WK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    ncclResult_t res = ncclCommInitAll(comms, count, devices);
    if (res != ncclSuccess) {
        free(comms);
        return nccl_failed(res, fn, "ncclCommInitAll");
    }
    wk_status status = WK_SUCCESS;
    int made = 0;
    for (; made < count && status == WK_SUCCESS; ++made) {
        wk_context *ctx = NULL;
        status = wk_create(&ctx, devices[made]);
        if (status != WK_SUCCESS) {
            status = warpkit_failed(status, fn);
            break;
        }
        status = new_handle(&dists[made], ctx, comms[made], 1, fn);
        if (status != WK_SUCCESS) {
            wk_destroy(ctx);
            break;
        }
    }
    if (status != WK_SUCCESS) {
        for (int i = 0; i < count; ++i) {
            if (i < made && dists[i]) {
                wk_dist_destroy(dists[i]);
                dists[i] = NULL;
            } else {
                ncclCommDestroy(comms[i]);
            }
        }
    }
    free(comms);
    return status;
}

wk_status wk_dist_destroy(wk_dist *dist)
{
    free_handle(dist);
    return WK_SUCCESS;
}

int wk_dist_rank(const wk_dist *dist) { return dist ? dist->rank : -1; }
int wk_dist_size(const wk_dist *dist) { return dist ? dist->ranks : 0; }
wk_context *wk_dist_context(const wk_dist *dist) { return dist ? dist->ctx : NULL; }

/* ----------------------------------------------------------- checks */

static const char *kind_name(wk_dist_kind kind)
{
    static const char *const names[WK_DIST_KIND_COUNT] = {
        "wk_dist_reduce",         "wk_dist_inclusive_scan", "wk_dist_exclusive_scan", "wk_dist_select_if",
        "wk_dist_select_flagged", "wk_dist_partition_if",   "wk_dist_unique",         "wk_dist_where"};
    return (unsigned)kind < WK_DIST_KIND_COUNT ? names[kind] : "wk_dist_run";
}

static int is_float(wk_dtype t) { return t == WK_F32 || t == WK_F64 || t == WK_F16 || t == WK_BF16; }
static int is_select(wk_dist_kind k) { return k >= WK_DIST_SELECT_IF; }
static int is_scan(wk_dist_kind k) { return k == WK_DIST_INCLUSIVE_SCAN || k == WK_DIST_EXCLUSIVE_SCAN; }
static int uses_predicate(wk_dist_kind k)
{
    return k == WK_DIST_SELECT_IF || k == WK_DIST_PARTITION_IF || k == WK_DIST_WHERE;
}

/* p is device memory of `device` (or managed, or mapped pinned memory at
 * the same address), aligned to `align`. */
static wk_status check_pointer(const void *p, int device, size_t align, const char *fn, const char *name)
{
    if (!p)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
    if ((uintptr_t)p % align != 0)
        return dist_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) is not aligned to %zu bytes", fn, name, p, align);
    struct cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, p);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return dist_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) is not a CUDA pointer", fn, name, p);
    }
    if (attr.type == cudaMemoryTypeManaged || (attr.type == cudaMemoryTypeHost && attr.devicePointer == p))
        return WK_SUCCESS;
    if (attr.type != cudaMemoryTypeDevice || attr.device != device)
        return dist_fail(WK_ERROR_INVALID_POINTER, "%s: %s (%p) is not memory of device %d", fn, name, p, device);
    return WK_SUCCESS;
}

static int overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}

/* Everything that can be checked before the first launch, so that a bad
 * call never leaves the ranks halfway through an exchange. */
static wk_status check_call(const wk_dist *d, const wk_dist_call *c)
{
    const char *fn = c ? kind_name(c->kind) : "wk_dist_run";
    if (!d || !c)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: dist and call must not be NULL", fn);
    if ((unsigned)c->kind >= WK_DIST_KIND_COUNT)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: kind %d is not a wk_dist_kind", fn, (int)c->kind);
    const size_t elem = wk_dtype_size(c->dtype);
    if (elem == 0)
        return dist_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", fn, (int)c->dtype);
    if (elem < 4 && !is_float(c->dtype))
        return dist_fail(WK_ERROR_UNSUPPORTED, "%s: the distributed calls do not take %s (the 32- and 64-bit "
                         "integers and the floats only)", fn, wk_dtype_name(c->dtype));
    if (!is_select(c->kind)) {
        if (wk_reduce_result_size(c->dtype, c->op) == 0)
            return dist_fail(WK_ERROR_INVALID_OP, "%s: op %d is not a wk_op", fn, (int)c->op);
        if ((c->op == WK_AND || c->op == WK_OR || c->op == WK_XOR) && is_float(c->dtype))
            return dist_fail(WK_ERROR_UNSUPPORTED, "%s: %s is for integer dtypes, not %s", fn, wk_op_name(c->op),
                             wk_dtype_name(c->dtype));
        if (is_scan(c->kind) && (c->op == WK_ARGMIN || c->op == WK_ARGMAX))
            return dist_fail(WK_ERROR_UNSUPPORTED, "%s: %s is a reduction; scans take sum, min, max and the "
                             "bitwise ops", fn, wk_op_name(c->op));
    }
    if (uses_predicate(c->kind)) {
        const wk_compare cmp = c->predicate.compare;
        if (strcmp(wk_compare_name(cmp), "?") == 0)
            return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: compare %d is not a wk_compare", fn, (int)cmp);
        if ((cmp == WK_IS_NAN || cmp == WK_NOT_NAN) && !is_float(c->dtype))
            return dist_fail(WK_ERROR_UNSUPPORTED, "%s: %s needs a float dtype, not %s", fn, wk_compare_name(cmp),
                             wk_dtype_name(c->dtype));
    }
    if (c->n > SIZE_MAX / 8)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: n = %zu is too large", fn, c->n);
    wk_status st;
    const size_t in_bytes = c->n * elem;
    if (c->kind == WK_DIST_REDUCE) {
        const size_t out_bytes = wk_reduce_result_size(c->dtype, c->op);
        if ((st = check_pointer(c->out, d->device, out_bytes == elem ? elem : 8, fn, "d_out")) != WK_SUCCESS)
            return st;
        if (c->n > 0 && (st = check_pointer(c->in, d->device, elem, fn, "d_in")) != WK_SUCCESS)
            return st;
        if (c->n > 0 && overlap(c->in, in_bytes, c->out, out_bytes))
            return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_in", fn);
        return WK_SUCCESS;
    }
    if (is_scan(c->kind)) {
        if (c->n == 0)
            return WK_SUCCESS;
        if ((st = check_pointer(c->in, d->device, elem, fn, "d_in")) != WK_SUCCESS ||
            (st = check_pointer(c->out, d->device, elem, fn, "d_out")) != WK_SUCCESS)
            return st;
        if (c->in != c->out && overlap(c->in, in_bytes, c->out, in_bytes))
            return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_out overlaps d_in without being equal to it", fn);
        return WK_SUCCESS;
    }
    /* The selects. */
    if ((st = check_pointer(c->count, d->device, 8, fn, "d_count")) != WK_SUCCESS)
        return st;
    if (c->n == 0)
        return WK_SUCCESS;
    const int where = c->kind == WK_DIST_WHERE;
    const size_t out_bytes = c->n * (where ? 8 : elem);
    if ((st = check_pointer(c->in, d->device, elem, fn, "d_in")) != WK_SUCCESS ||
        (st = check_pointer(c->out, d->device, where ? 8 : elem, fn, where ? "d_indices" : "d_out")) != WK_SUCCESS)
        return st;
    if (c->kind == WK_DIST_SELECT_FLAGGED && (st = check_pointer(c->flags, d->device, 1, fn, "d_flags")) != WK_SUCCESS)
        return st;
    const int in_place_ok =
        c->kind == WK_DIST_SELECT_IF || c->kind == WK_DIST_SELECT_FLAGGED || c->kind == WK_DIST_UNIQUE;
    if (!(in_place_ok && c->in == c->out) && overlap(c->in, in_bytes, c->out, out_bytes))
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: the output overlaps d_in", fn);
    if (c->kind == WK_DIST_SELECT_FLAGGED && overlap(c->flags, c->n, c->out, out_bytes))
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_flags overlaps d_out", fn);
    const size_t count_bytes = sizeof(wk_dist_count);
    if (overlap(c->count, count_bytes, c->in, in_bytes) || overlap(c->count, count_bytes, c->out, out_bytes) ||
        (c->kind == WK_DIST_SELECT_FLAGGED && overlap(c->count, count_bytes, c->flags, c->n)))
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: d_count overlaps an input or output", fn);
    return WK_SUCCESS;
}

/* ------------------------------------------------------------ steps */

/* The reduce's three forms: reproducible float sums, arg ops, the rest. */
typedef enum reduce_form { FORM_REPRO, FORM_ARG, FORM_PLAIN } reduce_form;

static reduce_form form_of(const wk_dist_call *c)
{
    if (c->op == WK_SUM && is_float(c->dtype))
        return FORM_REPRO;
    return c->op == WK_ARGMIN || c->op == WK_ARGMAX ? FORM_ARG : FORM_PLAIN;
}

/* unique and where exchange twice; the others once. Steps alternate
 * local, exchange, local, ... */
static int step_count(const wk_dist_call *c)
{
    return c->kind == WK_DIST_UNIQUE || c->kind == WK_DIST_WHERE ? 5 : 3;
}

static int step_is_exchange(int step) { return step % 2 == 1; }

/* Bytes each rank sends in the exchange after `step`. */
static size_t exchange_bytes(const wk_dist_call *c, int step)
{
    const size_t elem = wk_dtype_size(c->dtype);
    switch (c->kind) {
    case WK_DIST_REDUCE:
        switch (form_of(c)) {
        case FORM_REPRO: return sizeof(wk_repro_partial);
        case FORM_ARG: return sizeof(wk_dist_arg_record);
        case FORM_PLAIN: return elem;
        }
        return 0;
    case WK_DIST_INCLUSIVE_SCAN:
    case WK_DIST_EXCLUSIVE_SCAN: return elem;
    case WK_DIST_UNIQUE: return step == 1 ? sizeof(wk_dist_tail_record) : sizeof(uint64_t);
    default: return sizeof(uint64_t);
    }
}

static wk_status check_warpkit(wk_status st, const char *fn)
{
    return st == WK_SUCCESS ? st : warpkit_failed(st, fn);
}

static wk_status check_cuda(cudaError_t err, const char *fn, const char *what)
{
    return err == cudaSuccess ? WK_SUCCESS : cuda_failed(err, fn, what);
}

/* The local work of the reduce after the exchange or before it. */
static wk_status reduce_step(wk_dist *d, const wk_dist_call *c, int step, const char *fn)
{
    const reduce_form form = form_of(c);
    uint64_t *send = (uint64_t *)d->d_send;
    if (step == 0) {
        if (form == FORM_REPRO)
            return check_warpkit(
                wk_reduce_repro_partial(d->ctx, c->in, (wk_repro_partial *)send, c->n, c->dtype, c->stream), fn);
        wk_status st = check_warpkit(wk_reduce(d->ctx, c->in, send, c->n, c->dtype, c->op, c->stream), fn);
        if (st == WK_SUCCESS && form == FORM_ARG)
            st = check_cuda(wk_dist_stamp(send + 2, c->n, NULL, NULL, 0, c->stream), fn, "recording n");
        return st;
    }
    switch (form) {
    case FORM_REPRO:
        return check_warpkit(wk_repro_finalize(d->ctx, (const wk_repro_partial *)d->d_recv, (size_t)d->ranks, c->out,
                                               c->dtype, c->stream),
                             fn);
    case FORM_ARG:
        return check_cuda(wk_dist_combine_args((const wk_dist_arg_record *)d->d_recv, d->ranks, c->dtype, c->op,
                                               c->out, c->stream),
                          fn, "combining the ranks' results");
    case FORM_PLAIN:
        return check_warpkit(wk_reduce(d->ctx, d->d_recv, c->out, (size_t)d->ranks, c->dtype, c->op, c->stream),
                             fn);
    }
    return WK_SUCCESS;
}

static wk_status scan_step(wk_dist *d, const wk_dist_call *c, int step, const char *fn)
{
    if (step == 0)
        return check_warpkit(wk_reduce(d->ctx, c->in, d->d_send, c->n, c->dtype, c->op, c->stream), fn);
    /* The ranks below, combined as one reduce would: none for rank 0. */
    const void *prefix = NULL;
    if (d->rank > 0) {
        wk_status st = check_warpkit(
            wk_reduce(d->ctx, d->d_recv, &d->d_scratch->prefix, (size_t)d->rank, c->dtype, c->op, c->stream), fn);
        if (st != WK_SUCCESS)
            return st;
        prefix = &d->d_scratch->prefix;
    }
    if (c->kind == WK_DIST_INCLUSIVE_SCAN)
        return check_warpkit(
            wk_inclusive_scan_from(d->ctx, c->in, c->out, c->n, c->dtype, c->op, prefix, c->stream), fn);
    return check_warpkit(
        wk_exclusive_scan_from(d->ctx, c->in, c->out, c->n, c->dtype, c->op, c->init, prefix, c->stream), fn);
}

/* Selects: the local pass writes its count to the send buffer. */
static wk_status local_select(wk_dist *d, const wk_dist_call *c, const char *fn)
{
    uint64_t *count = (uint64_t *)d->d_send;
    wk_status st = WK_SUCCESS;
    switch (c->kind) {
    case WK_DIST_SELECT_IF:
        st = wk_select_if(d->ctx, c->in, c->out, count, c->n, c->dtype, c->predicate, c->stream);
        break;
    case WK_DIST_SELECT_FLAGGED:
        st = wk_select_flagged(d->ctx, c->in, c->flags, c->out, count, c->n, c->dtype, c->stream);
        break;
    case WK_DIST_PARTITION_IF:
        st = wk_partition_if(d->ctx, c->in, c->out, count, c->n, c->dtype, c->predicate, c->stream);
        break;
    case WK_DIST_UNIQUE:
        st = wk_unique_from(d->ctx, c->in, c->out, count, c->n, c->dtype, &d->d_scratch->previous, c->stream);
        break;
    case WK_DIST_WHERE:
        st = wk_where_from(d->ctx, c->in, (int64_t *)c->out, count, c->n, c->dtype, c->predicate,
                           (const int64_t *)&d->d_scratch->place.offset, c->stream);
        break;
    default: break;
    }
    return check_warpkit(st, fn);
}

static wk_status select_step(wk_dist *d, const wk_dist_call *c, int step, const char *fn)
{
    const size_t elem = wk_dtype_size(c->dtype);
    const int carries = c->kind == WK_DIST_UNIQUE || c->kind == WK_DIST_WHERE;
    uint64_t *send = (uint64_t *)d->d_send;
    if (step == 0 && !carries)
        return local_select(d, c, fn);
    if (step == 0) /* what the ranks after this one need first */
        return check_cuda(wk_dist_stamp(send, c->n, send + 1,
                                        c->kind == WK_DIST_UNIQUE && c->n > 0
                                            ? (const unsigned char *)c->in + (c->n - 1) * elem
                                            : NULL,
                                        elem, c->stream),
                          fn, "recording the part's size");
    if (step == 2 && carries) {
        cudaError_t err =
            c->kind == WK_DIST_WHERE
                ? wk_dist_place_counts((const uint64_t *)d->d_recv, d->ranks, d->rank, &d->d_scratch->place,
                                       c->stream)
                : wk_dist_previous_element((const wk_dist_tail_record *)d->d_recv, d->ranks, d->rank,
                                           c->n > 0 ? c->in : NULL, elem, &d->d_scratch->previous, c->stream);
        wk_status st = check_cuda(err, fn, "reading what the ranks below sent");
        return st == WK_SUCCESS ? local_select(d, c, fn) : st;
    }
    /* The last step: the counts of every rank give this rank's place. */
    return check_cuda(wk_dist_place_counts((const uint64_t *)d->d_recv, d->ranks, d->rank, c->count, c->stream), fn,
                      "placing the counts");
}

static wk_status run_step(wk_dist *d, const wk_dist_call *c, int step)
{
    const char *fn = kind_name(c->kind);
    wk_status st = check_cuda(cudaSetDevice(d->device), fn, "cudaSetDevice");
    if (st != WK_SUCCESS)
        return st;
    if (step_is_exchange(step)) {
        const size_t bytes = exchange_bytes(c, step);
        ncclResult_t res = ncclAllGather(d->d_send, d->d_recv, bytes, ncclUint8, d->comm, c->stream);
        return res == ncclSuccess ? WK_SUCCESS : nccl_failed(res, fn, "ncclAllGather");
    }
    if (c->kind == WK_DIST_REDUCE)
        return reduce_step(d, c, step, fn);
    if (is_scan(c->kind))
        return scan_step(d, c, step, fn);
    return select_step(d, c, step, fn);
}

/* ------------------------------------------------------------- calls */

wk_status wk_dist_run_all(wk_dist *const *dists, const wk_dist_call *calls, int count)
{
    last_message[0] = '\0';
    if (!dists || !calls || count < 1)
        return dist_fail(WK_ERROR_INVALID_ARGUMENT, "wk_dist_run_all: dists and calls must not be NULL, count >= 1");
    for (int i = 0; i < count; ++i) {
        wk_status st = check_call(dists[i], &calls[i]);
        if (st != WK_SUCCESS)
            return st;
        if (calls[i].kind != calls[0].kind || calls[i].dtype != calls[0].dtype ||
            (calls[i].kind <= WK_DIST_EXCLUSIVE_SCAN && calls[i].op != calls[0].op))
            return dist_fail(WK_ERROR_INVALID_ARGUMENT, "%s: every rank's call must have the same kind, dtype and op",
                             kind_name(calls[0].kind));
    }
    int previous = 0;
    cudaGetDevice(&previous);
    for (int i = 0; i < count; ++i)
        pthread_mutex_lock(&dists[i]->lock);
    wk_status st = WK_SUCCESS;
    const int steps = step_count(&calls[0]);
    for (int step = 0; step < steps && st == WK_SUCCESS; ++step) {
        const int grouped = step_is_exchange(step) && count > 1;
        if (grouped)
            ncclGroupStart();
        for (int i = 0; i < count && st == WK_SUCCESS; ++i)
            st = run_step(dists[i], &calls[i], step);
        if (grouped) {
            ncclResult_t res = ncclGroupEnd();
            if (st == WK_SUCCESS && res != ncclSuccess)
                st = nccl_failed(res, kind_name(calls[0].kind), "ncclGroupEnd");
        }
    }
    for (int i = count - 1; i >= 0; --i)
        pthread_mutex_unlock(&dists[i]->lock);
    cudaSetDevice(previous);
    return st;
}

wk_status wk_dist_run(wk_dist *dist, const wk_dist_call *call) { return wk_dist_run_all(&dist, call, 1); }

wk_status wk_dist_reduce(wk_dist *dist, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                         cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_REDUCE, .in = d_in, .out = d_out, .n = n, .dtype = dtype, .op = op,
                            .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_inclusive_scan(wk_dist *dist, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                                 cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_INCLUSIVE_SCAN, .in = d_in, .out = d_out, .n = n, .dtype = dtype,
                            .op = op, .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_exclusive_scan(wk_dist *dist, const void *d_in, void *d_out, size_t n, wk_dtype dtype, wk_op op,
                                 wk_value init, cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_EXCLUSIVE_SCAN, .in = d_in, .out = d_out, .n = n, .dtype = dtype,
                            .op = op, .init = init, .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_select_if(wk_dist *dist, const void *d_in, void *d_out, wk_dist_count *d_count, size_t n,
                            wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_SELECT_IF, .in = d_in, .out = d_out, .count = d_count, .n = n,
                            .dtype = dtype, .predicate = predicate, .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_select_flagged(wk_dist *dist, const void *d_in, const uint8_t *d_flags, void *d_out,
                                 wk_dist_count *d_count, size_t n, wk_dtype dtype, cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_SELECT_FLAGGED, .in = d_in, .flags = d_flags, .out = d_out,
                            .count = d_count, .n = n, .dtype = dtype, .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_partition_if(wk_dist *dist, const void *d_in, void *d_out, wk_dist_count *d_count, size_t n,
                               wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_PARTITION_IF, .in = d_in, .out = d_out, .count = d_count, .n = n,
                            .dtype = dtype, .predicate = predicate, .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_unique(wk_dist *dist, const void *d_in, void *d_out, wk_dist_count *d_count, size_t n,
                         wk_dtype dtype, cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_UNIQUE, .in = d_in, .out = d_out, .count = d_count, .n = n,
                            .dtype = dtype, .stream = stream};
    return wk_dist_run(dist, &c);
}

wk_status wk_dist_where(wk_dist *dist, const void *d_in, int64_t *d_indices, wk_dist_count *d_count, size_t n,
                        wk_dtype dtype, wk_predicate predicate, cudaStream_t stream)
{
    const wk_dist_call c = {.kind = WK_DIST_WHERE, .in = d_in, .out = d_indices, .count = d_count, .n = n,
                            .dtype = dtype, .predicate = predicate, .stream = stream};
    return wk_dist_run(dist, &c);
}
