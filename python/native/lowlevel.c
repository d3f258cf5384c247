/* One-to-one calls for the package's Python code (the route of every array
 * and argument the public functions do not serve themselves): pointers and
 * streams as ints, a failed call raised as the package's exception naming
 * `what`. Also the CUDA runtime helpers of that route and the reading of
 * DLPack capsules. */
#include "native.h"

#include <string.h>

typedef unsigned long long ull;

#define PTR(v) ((void *)(uintptr_t)(v))
#define STREAM(v) ((cudaStream_t)(uintptr_t)(v))

static PyObject *finish(wk_status st, const char *what)
{
    if (st != WK_SUCCESS)
        return wkn_raise_status(st, what);
    Py_RETURN_NONE;
}

/* Parses args as PyArg_ParseTuple does (a format, then the pointers it
 * fills, `device` among them) and gives that device's context; NULL with
 * an exception set. A macro: the call path stays one PyArg_ParseTuple. */
#define PARSE_CALL(args, device, ...) (PyArg_ParseTuple(args, __VA_ARGS__) ? wkn_context(device) : NULL)

/* Returns from a call_* function what finish() makes of the C call. */
#define RETURN_CALL(call, what)                                                                    \
    do {                                                                                           \
        wk_status st_;                                                                             \
        WKN_CALL(st_, call);                                                                       \
        return finish(st_, what);                                                                  \
    } while (0)

static wk_value value_of(ull bits)
{
    wk_value v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* call_reduce and call_reduce_index (device, in, out, n, dtype, op, stream,
 * what): the same arguments, `out` an index for the second. */
static PyObject *reduce_call(PyObject *args, int index)
{
    int device, dtype, op;
    ull in, out, n, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiiKs", &device, &in, &out, &n, &dtype, &op, &stream, &what);
    if (!ctx)
        return NULL;
    if (index)
        RETURN_CALL(wkn.reduce_index(ctx, PTR(in), (int64_t *)PTR(out), (size_t)n, (wk_dtype)dtype, (wk_op)op,
                                     STREAM(stream)),
                    what);
    RETURN_CALL(wkn.reduce(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, (wk_op)op, STREAM(stream)), what);
}

static PyObject *py_reduce(PyObject *self, PyObject *args)
{
    (void)self;
    return reduce_call(args, 0);
}

static PyObject *py_reduce_index(PyObject *self, PyObject *args)
{
    (void)self;
    return reduce_call(args, 1);
}

static PyObject *py_reduce_repro(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull in, out, n, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiKs", &device, &in, &out, &n, &dtype, &stream, &what);
    if (!ctx)
        return NULL;
    RETURN_CALL(wkn.reduce_repro(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, STREAM(stream)), what);
}

/* Raises the package's LibraryNotFoundError for an entry point the loaded
 * library lacks (one older than the package); returns NULL. */
static PyObject *missing_entry(const char *name)
{
    PyObject *errors = PyImport_ImportModule("warpkit._errors");
    PyObject *type = errors ? PyObject_GetAttrString(errors, "LibraryNotFoundError") : NULL;
    Py_XDECREF(errors);
    if (type) {
        PyErr_Format(type, "warpkit: the loaded libwarpkit lacks %s (an older library than this package)", name);
        Py_DECREF(type);
    }
    return NULL;
}

/* reduce_to(device, in, out, n, dtype, out_dtype, stream, what): wk_reduce_to */
static PyObject *py_reduce_to(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, out_dtype;
    ull in, out, n, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiiKs", &device, &in, &out, &n, &dtype, &out_dtype, &stream, &what);
    if (!ctx)
        return NULL;
    if (!wkn.reduce_to)
        return missing_entry("wk_reduce_to");
    RETURN_CALL(wkn.reduce_to(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, (wk_dtype)out_dtype, STREAM(stream)),
                what);
}

/* scan_to(device, in, out, n, dtype, out_dtype, exclusive, init_bits, stream,
 * what): wk_inclusive_scan_to / wk_exclusive_scan_to, with no prefix. */
static PyObject *py_scan_to(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, out_dtype, exclusive;
    ull in, out, n, init, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiipKKs", &device, &in, &out, &n, &dtype, &out_dtype, &exclusive,
                                 &init, &stream, &what);
    if (!ctx)
        return NULL;
    if (exclusive ? !wkn.exclusive_scan_to : !wkn.inclusive_scan_to)
        return missing_entry(exclusive ? "wk_exclusive_scan_to" : "wk_inclusive_scan_to");
    if (exclusive)
        RETURN_CALL(wkn.exclusive_scan_to(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, (wk_dtype)out_dtype,
                                          value_of(init), NULL, STREAM(stream)),
                    what);
    RETURN_CALL(wkn.inclusive_scan_to(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, (wk_dtype)out_dtype, NULL,
                                      STREAM(stream)),
                what);
}

/* scan(device, in, out, n, dtype, op, exclusive, init_bits, stream, what) */
static PyObject *py_scan(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, op, exclusive;
    ull in, out, n, init, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiipKKs", &device, &in, &out, &n, &dtype, &op, &exclusive, &init,
                                 &stream, &what);
    if (!ctx)
        return NULL;
    if (exclusive)
        RETURN_CALL(wkn.exclusive_scan(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, (wk_op)op,
                                       value_of(init), STREAM(stream)),
                    what);
    RETURN_CALL(wkn.inclusive_scan(ctx, PTR(in), PTR(out), (size_t)n, (wk_dtype)dtype, (wk_op)op, STREAM(stream)),
                what);
}

/* select(kind, device, in, out, count, n, dtype, compare, a, b, stream, what):
 * kind "if", "partition" or "where". */
static PyObject *py_select(PyObject *self, PyObject *args)
{
    (void)self;
    const char *kind, *what;
    int device, dtype, compare;
    ull in, out, count, n, a, b, stream;
    wk_context *ctx = PARSE_CALL(args, device, "siKKKKiiKKKs", &kind, &device, &in, &out, &count, &n, &dtype,
                                 &compare, &a, &b, &stream, &what);
    if (!ctx)
        return NULL;
    wk_predicate p = {.compare = (wk_compare)compare, .a = value_of(a), .b = value_of(b)};
    uint64_t *c = (uint64_t *)PTR(count);
    if (strcmp(kind, "partition") == 0)
        RETURN_CALL(wkn.partition_if(ctx, PTR(in), PTR(out), c, (size_t)n, (wk_dtype)dtype, p, STREAM(stream)),
                    what);
    if (strcmp(kind, "where") == 0)
        RETURN_CALL(wkn.where(ctx, PTR(in), (int64_t *)PTR(out), c, (size_t)n, (wk_dtype)dtype, p, STREAM(stream)),
                    what);
    RETURN_CALL(wkn.select_if(ctx, PTR(in), PTR(out), c, (size_t)n, (wk_dtype)dtype, p, STREAM(stream)), what);
}

static PyObject *py_select_flagged(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull in, flags, out, count, n, stream;
    const char *what;
    wk_context *ctx =
        PARSE_CALL(args, device, "iKKKKKiKs", &device, &in, &flags, &out, &count, &n, &dtype, &stream, &what);
    if (!ctx)
        return NULL;
    RETURN_CALL(wkn.select_flagged(ctx, PTR(in), (const uint8_t *)PTR(flags), PTR(out), (uint64_t *)PTR(count),
                                   (size_t)n, (wk_dtype)dtype, STREAM(stream)),
                what);
}

static PyObject *py_unique(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull in, out, count, n, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKiKs", &device, &in, &out, &count, &n, &dtype, &stream, &what);
    if (!ctx)
        return NULL;
    RETURN_CALL(wkn.unique(ctx, PTR(in), PTR(out), (uint64_t *)PTR(count), (size_t)n, (wk_dtype)dtype, STREAM(stream)),
                what);
}

/* Whether the loaded library lacks an optional entry point (by its name). */
static PyObject *py_missing(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!name || wkn_ensure_loaded() < 0)
        return NULL;
    static const struct {
        const char *name;
        const void *const *fn;
    } optional[] = {
        {"wk_reduce_index", (const void *const *)&wkn.reduce_index},
        {"wk_segmented_reduce", (const void *const *)&wkn.segmented_reduce},
        {"wk_segmented_reduce_repro", (const void *const *)&wkn.segmented_reduce_repro},
        {"wk_segmented_inclusive_scan", (const void *const *)&wkn.segmented_inclusive_scan},
        {"wk_segmented_exclusive_scan", (const void *const *)&wkn.segmented_exclusive_scan},
        {"wk_reduce_to", (const void *const *)&wkn.reduce_to},
        {"wk_segmented_reduce_to", (const void *const *)&wkn.segmented_reduce_to},
        {"wk_inclusive_scan_to", (const void *const *)&wkn.inclusive_scan_to},
        {"wk_exclusive_scan_to", (const void *const *)&wkn.exclusive_scan_to},
        {"wk_segmented_inclusive_scan_to", (const void *const *)&wkn.segmented_inclusive_scan_to},
        {"wk_segmented_exclusive_scan_to", (const void *const *)&wkn.segmented_exclusive_scan_to},
        {"wk_reduce_repro_partial", (const void *const *)&wkn.reduce_repro_partial},
        {"wk_repro_finalize", (const void *const *)&wkn.repro_finalize},
        {"wk_inclusive_scan_from", (const void *const *)&wkn.inclusive_scan_from},
        {"wk_exclusive_scan_from", (const void *const *)&wkn.exclusive_scan_from},
        {"wk_unique_from", (const void *const *)&wkn.unique_from},
        {"wk_where_from", (const void *const *)&wkn.where_from},
    };
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (strcmp(name, optional[i].name) == 0)
            return PyBool_FromLong(*optional[i].fn == NULL);
    return PyBool_FromLong(0);
}

static wk_segments segments_of(ull count, ull size, ull stride)
{
    return (wk_segments){.count = (size_t)count, .size = (size_t)size, .stride = (size_t)stride};
}

/* segmented_reduce(device, in, out, count, size, stride, dtype, op, reproducible, stream, what) */
static PyObject *py_segmented_reduce(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, op, repro;
    ull in, out, count, size, stride, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKKiipKs", &device, &in, &out, &count, &size, &stride, &dtype, &op,
                                 &repro, &stream, &what);
    if (!ctx)
        return NULL;
    wk_segments seg = segments_of(count, size, stride);
    if (repro)
        RETURN_CALL(wkn.segmented_reduce_repro(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype, STREAM(stream)), what);
    RETURN_CALL(wkn.segmented_reduce(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype, (wk_op)op, STREAM(stream)), what);
}

/* repro_partial(device, in, partial, n, dtype, stream, what): wk_reduce_repro_partial */
static PyObject *py_repro_partial(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull in, partial, n, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiKs", &device, &in, &partial, &n, &dtype, &stream, &what);
    if (!ctx)
        return NULL;
    if (!wkn.reduce_repro_partial)
        return missing_entry("wk_reduce_repro_partial");
    RETURN_CALL(wkn.reduce_repro_partial(ctx, PTR(in), (wk_repro_partial *)PTR(partial), (size_t)n, (wk_dtype)dtype,
                                         STREAM(stream)),
                what);
}

/* repro_finalize(device, partials, count, out, dtype, stream, what): wk_repro_finalize */
static PyObject *py_repro_finalize(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull partials, count, out, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiKs", &device, &partials, &count, &out, &dtype, &stream, &what);
    if (!ctx)
        return NULL;
    if (!wkn.repro_finalize)
        return missing_entry("wk_repro_finalize");
    RETURN_CALL(wkn.repro_finalize(ctx, (const wk_repro_partial *)PTR(partials), (size_t)count, PTR(out),
                                   (wk_dtype)dtype, STREAM(stream)),
                what);
}

/* scan_from(device, in, out, n, dtype, out_dtype, op, exclusive, init_bits, prefix, stream, what): the
 * scans continued from a carried prefix in device memory, wk_*_scan_from (out_dtype == dtype) or
 * wk_*_scan_to (a wider sum). */
static PyObject *py_scan_from(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, out_dtype, op, exclusive;
    ull in, out, n, init, prefix, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKiiipKKKs", &device, &in, &out, &n, &dtype, &out_dtype, &op,
                                 &exclusive, &init, &prefix, &stream, &what);
    if (!ctx)
        return NULL;
    const wk_dtype dt = (wk_dtype)dtype, odt = (wk_dtype)out_dtype;
    if (odt != dt) {
        if (exclusive ? !wkn.exclusive_scan_to : !wkn.inclusive_scan_to)
            return missing_entry(exclusive ? "wk_exclusive_scan_to" : "wk_inclusive_scan_to");
        if (exclusive)
            RETURN_CALL(wkn.exclusive_scan_to(ctx, PTR(in), PTR(out), (size_t)n, dt, odt, value_of(init), PTR(prefix),
                                              STREAM(stream)),
                        what);
        RETURN_CALL(wkn.inclusive_scan_to(ctx, PTR(in), PTR(out), (size_t)n, dt, odt, PTR(prefix), STREAM(stream)),
                    what);
    }
    if (exclusive ? !wkn.exclusive_scan_from : !wkn.inclusive_scan_from)
        return missing_entry(exclusive ? "wk_exclusive_scan_from" : "wk_inclusive_scan_from");
    if (exclusive)
        RETURN_CALL(wkn.exclusive_scan_from(ctx, PTR(in), PTR(out), (size_t)n, dt, (wk_op)op, value_of(init),
                                            PTR(prefix), STREAM(stream)),
                    what);
    RETURN_CALL(wkn.inclusive_scan_from(ctx, PTR(in), PTR(out), (size_t)n, dt, (wk_op)op, PTR(prefix), STREAM(stream)),
                what);
}

/* unique_from(device, in, out, count, n, dtype, previous, stream, what): wk_unique_from */
static PyObject *py_unique_from(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull in, out, count, n, previous, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKiKKs", &device, &in, &out, &count, &n, &dtype, &previous,
                                 &stream, &what);
    if (!ctx)
        return NULL;
    if (!wkn.unique_from)
        return missing_entry("wk_unique_from");
    RETURN_CALL(wkn.unique_from(ctx, PTR(in), PTR(out), (uint64_t *)PTR(count), (size_t)n, (wk_dtype)dtype,
                                PTR(previous), STREAM(stream)),
                what);
}

/* where_from(device, in, indices, count, n, dtype, compare, a, b, index_base, stream, what): wk_where_from */
static PyObject *py_where_from(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, compare;
    ull in, indices, count, n, a, b, base, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKiiKKKKs", &device, &in, &indices, &count, &n, &dtype, &compare,
                                 &a, &b, &base, &stream, &what);
    if (!ctx)
        return NULL;
    if (!wkn.where_from)
        return missing_entry("wk_where_from");
    wk_predicate p = {.compare = (wk_compare)compare, .a = value_of(a), .b = value_of(b)};
    RETURN_CALL(wkn.where_from(ctx, PTR(in), (int64_t *)PTR(indices), (uint64_t *)PTR(count), (size_t)n,
                               (wk_dtype)dtype, p, (const int64_t *)PTR(base), STREAM(stream)),
                what);
}

/* segmented_reduce_to(device, in, out, count, size, stride, dtype, out_dtype, stream, what) */
static PyObject *py_segmented_reduce_to(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, out_dtype;
    ull in, out, count, size, stride, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKKiiKs", &device, &in, &out, &count, &size, &stride, &dtype,
                                 &out_dtype, &stream, &what);
    if (!ctx)
        return NULL;
    if (!wkn.segmented_reduce_to)
        return missing_entry("wk_segmented_reduce_to");
    wk_segments seg = segments_of(count, size, stride);
    RETURN_CALL(wkn.segmented_reduce_to(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype, (wk_dtype)out_dtype,
                                        STREAM(stream)),
                what);
}

/* segmented_scan(device, in, out, count, size, stride, dtype, op, exclusive, init_bits, stream, what) */
static PyObject *py_segmented_scan(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, op, exclusive;
    ull in, out, count, size, stride, init, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKKiipKKs", &device, &in, &out, &count, &size, &stride, &dtype,
                                 &op, &exclusive, &init, &stream, &what);
    if (!ctx)
        return NULL;
    wk_segments seg = segments_of(count, size, stride);
    if (exclusive)
        RETURN_CALL(wkn.segmented_exclusive_scan(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype, (wk_op)op,
                                                 value_of(init), STREAM(stream)),
                    what);
    RETURN_CALL(wkn.segmented_inclusive_scan(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype, (wk_op)op, STREAM(stream)),
                what);
}

/* segmented_scan_to(device, in, out, count, size, stride, dtype, out_dtype, exclusive, init_bits, stream,
 * what): wk_segmented_inclusive_scan_to / wk_segmented_exclusive_scan_to. */
static PyObject *py_segmented_scan_to(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype, out_dtype, exclusive;
    ull in, out, count, size, stride, init, stream;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKKKKKiipKKs", &device, &in, &out, &count, &size, &stride, &dtype,
                                 &out_dtype, &exclusive, &init, &stream, &what);
    if (!ctx)
        return NULL;
    if (exclusive ? !wkn.segmented_exclusive_scan_to : !wkn.segmented_inclusive_scan_to)
        return missing_entry(exclusive ? "wk_segmented_exclusive_scan_to" : "wk_segmented_inclusive_scan_to");
    wk_segments seg = segments_of(count, size, stride);
    if (exclusive)
        RETURN_CALL(wkn.segmented_exclusive_scan_to(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype,
                                                    (wk_dtype)out_dtype, value_of(init), STREAM(stream)),
                    what);
    RETURN_CALL(wkn.segmented_inclusive_scan_to(ctx, PTR(in), PTR(out), &seg, (wk_dtype)dtype, (wk_dtype)out_dtype,
                                                STREAM(stream)),
                what);
}

/* scan_reserve(device, n, dtype, what): synchronizes the device. */
static PyObject *py_scan_reserve(PyObject *self, PyObject *args)
{
    (void)self;
    int device, dtype;
    ull n;
    const char *what;
    wk_context *ctx = PARSE_CALL(args, device, "iKis", &device, &n, &dtype, &what);
    if (!ctx)
        return NULL;
    wk_status st;
    Py_BEGIN_ALLOW_THREADS
    st = wkn.scan_reserve(ctx, (size_t)n, (wk_dtype)dtype);
    Py_END_ALLOW_THREADS
    return finish(st, what);
}

/* The context of a (device) argument tuple; NULL with an exception set. */
static wk_context *device_context(PyObject *args)
{
    int device;
    return PARSE_CALL(args, device, "i", &device);
}

static PyObject *py_context(PyObject *self, PyObject *args)
{
    (void)self;
    wk_context *ctx = device_context(args);
    return ctx ? PyLong_FromVoidPtr(ctx) : NULL;
}

static PyObject *py_sm_count(PyObject *self, PyObject *args)
{
    (void)self;
    wk_context *ctx = device_context(args);
    return ctx ? PyLong_FromLong(wkn.context_sm_count(ctx)) : NULL;
}

/* ------------------------------------------------------- CUDA runtime */

static PyObject *cuda_fail(int err, const char *what) { return wkn_raise_cuda(err, what); }

/* The one handle (a pointer or a stream) a runtime helper takes, once the
 * CUDA runtime functions are there; 0, or -1 with an exception set. */
static int parse_handle(PyObject *args, ull *handle)
{
    if (!PyArg_ParseTuple(args, "K", handle))
        return -1;
    return wkn_ensure_cudart();
}

static PyObject *py_current_device(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (wkn_ensure_cudart() < 0)
        return NULL;
    int d = 0;
    int err = wkn_cuda.get_device(&d);
    return err ? cuda_fail(err, "cudaGetDevice") : PyLong_FromLong(d);
}

/* pointer_attributes(ptr): (memory type, device), or None for a pointer
 * CUDA does not know (cudaErrorInvalidValue). */
static PyObject *py_pointer_attributes(PyObject *self, PyObject *args)
{
    (void)self;
    ull p;
    if (parse_handle(args, &p) < 0)
        return NULL;
    int attrs[32] = {0}; /* cudaPointerAttributes: type, device, ... (room to spare) */
    int err = wkn_cuda.pointer_get_attributes(attrs, PTR(p));
    if (err == 1) {
        wkn_cuda.get_last_error();
        Py_RETURN_NONE;
    }
    if (err)
        return cuda_fail(err, "cudaPointerGetAttributes");
    return Py_BuildValue("(ii)", attrs[0], attrs[1]);
}

/* One event per thread and device, for stream_wait. */
#define WKN_EVENT_DEVICES 64
static _Thread_local void *events[WKN_EVENT_DEVICES];

void wkn_events_forget(void) { memset(events, 0, sizeof events); }

/* stream_wait(producer, consumer, device): the consumer stream waits for
 * the work enqueued so far on the producer (an event, no host sync), with
 * the device current so that the event and the default-stream handles
 * belong to it. */
static PyObject *py_stream_wait(PyObject *self, PyObject *args)
{
    (void)self;
    ull producer, consumer;
    int device;
    if (!PyArg_ParseTuple(args, "KKi", &producer, &consumer, &device))
        return NULL;
    if (device < 0 || device >= WKN_EVENT_DEVICES) {
        PyErr_Format(PyExc_ValueError, "warpkit: device %d is out of range for stream ordering", device);
        return NULL;
    }
    if (wkn_ensure_cudart() < 0)
        return NULL;
    int previous = -1;
    int err = wkn_cuda.get_device(&previous);
    if (err)
        return cuda_fail(err, "cudaGetDevice");
    if (previous != device && (err = wkn_cuda.set_device(device)) != 0)
        return cuda_fail(err, "cudaSetDevice");
    const char *what = NULL;
    if (!events[device] && (err = wkn_cuda.event_create_with_flags(&events[device], 2 /* disable timing */)) != 0)
        what = "cudaEventCreateWithFlags";
    else if ((err = wkn_cuda.event_record(events[device], PTR(producer))) != 0)
        what = "cudaEventRecord";
    else if ((err = wkn_cuda.stream_wait_event(PTR(consumer), events[device], 0)) != 0)
        what = "cudaStreamWaitEvent";
    if (what)
        cuda_fail(err, what);
    if (previous != device)
        wkn_cuda.set_device(previous);
    if (what)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_stream_synchronize(PyObject *self, PyObject *args)
{
    (void)self;
    ull stream;
    if (parse_handle(args, &stream) < 0)
        return NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = wkn_cuda.stream_synchronize(PTR(stream));
    Py_END_ALLOW_THREADS
    if (err)
        return cuda_fail(err, "cudaStreamSynchronize");
    Py_RETURN_NONE;
}

/* ----------------------------------------------------------- DLPack */

/* The structures of the DLPack standard (dlpack.h, v0.8 and v1). */
typedef struct {
    int32_t device_type;
    int32_t device_id;
} dl_device;
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} dl_data_type;
typedef struct {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_data_type dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} dl_tensor;
typedef struct {
    dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(void *self);
} dl_managed_tensor;
typedef struct {
    struct {
        uint32_t major, minor;
    } version;
    void *manager_ctx;
    void (*deleter)(void *self);
    uint64_t flags;
    dl_tensor dl_tensor;
} dl_managed_tensor_versioned;

/* dlpack(capsule): (pointer, device_type, device_id, (code, bits, lanes),
 * shape, strides or None) of an unconsumed capsule, which keeps its name:
 * when it is dropped its own destructor calls the producer's deleter, the
 * protocol's rule for a capsule left unconsumed. */
static PyObject *py_dlpack(PyObject *self, PyObject *capsule)
{
    (void)self;
    const dl_tensor *t;
    if (PyCapsule_IsValid(capsule, "dltensor"))
        t = &((const dl_managed_tensor *)PyCapsule_GetPointer(capsule, "dltensor"))->dl_tensor;
    else if (PyCapsule_IsValid(capsule, "dltensor_versioned"))
        t = &((const dl_managed_tensor_versioned *)PyCapsule_GetPointer(capsule, "dltensor_versioned"))->dl_tensor;
    else
        Py_RETURN_NONE;
    if (t->ndim < 0 || (t->ndim > 0 && !t->shape)) {
        PyErr_SetString(PyExc_ValueError, "warpkit: a DLPack tensor with a malformed shape");
        return NULL;
    }
    PyObject *shape = PyTuple_New(t->ndim);
    PyObject *strides = t->strides ? PyTuple_New(t->ndim) : (Py_INCREF(Py_None), Py_None);
    if (!shape || !strides) {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    for (int i = 0; i < t->ndim; i++) {
        PyTuple_SetItem(shape, i, PyLong_FromLongLong(t->shape[i]));
        if (t->strides)
            PyTuple_SetItem(strides, i, PyLong_FromLongLong(t->strides[i]));
    }
    if (PyErr_Occurred()) {
        Py_DECREF(shape);
        Py_DECREF(strides);
        return NULL;
    }
    uintptr_t p = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    return Py_BuildValue("(Kii(iii)NN)", (ull)(t->data ? p : 0), t->device.device_type, t->device.device_id,
                         t->dtype.code, t->dtype.bits, t->dtype.lanes, shape, strides);
}

PyMethodDef wkn_lowlevel_methods[] = {
    {"call_reduce", py_reduce, METH_VARARGS, "call_reduce(device, in, out, n, dtype, op, stream, what): wk_reduce"},
    {"call_reduce_index", py_reduce_index, METH_VARARGS,
     "call_reduce_index(device, in, index, n, dtype, op, stream, what): wk_reduce_index"},
    {"call_reduce_repro", py_reduce_repro, METH_VARARGS, "call_reduce_repro(device, in, out, n, dtype, stream, what)"},
    {"call_scan", py_scan, METH_VARARGS, "call_scan(device, in, out, n, dtype, op, exclusive, init, stream, what)"},
    {"call_reduce_to", py_reduce_to, METH_VARARGS,
     "call_reduce_to(device, in, out, n, dtype, out_dtype, stream, what): wk_reduce_to"},
    {"call_scan_to", py_scan_to, METH_VARARGS,
     "call_scan_to(device, in, out, n, dtype, out_dtype, exclusive, init, stream, what): wk_*_scan_to"},
    {"call_repro_partial", py_repro_partial, METH_VARARGS,
     "call_repro_partial(device, in, partial, n, dtype, stream, what): wk_reduce_repro_partial"},
    {"call_repro_finalize", py_repro_finalize, METH_VARARGS,
     "call_repro_finalize(device, partials, count, out, dtype, stream, what): wk_repro_finalize"},
    {"call_scan_from", py_scan_from, METH_VARARGS,
     "call_scan_from(device, in, out, n, dtype, out_dtype, op, exclusive, init, prefix, stream, what): "
     "wk_*_scan_from, or wk_*_scan_to for a wider sum"},
    {"call_unique_from", py_unique_from, METH_VARARGS,
     "call_unique_from(device, in, out, count, n, dtype, previous, stream, what): wk_unique_from"},
    {"call_where_from", py_where_from, METH_VARARGS,
     "call_where_from(device, in, indices, count, n, dtype, compare, a, b, index_base, stream, what): wk_where_from"},
    {"call_segmented_reduce_to", py_segmented_reduce_to, METH_VARARGS,
     "call_segmented_reduce_to(device, in, out, count, size, stride, dtype, out_dtype, stream, what)"},
    {"call_select", py_select, METH_VARARGS,
     "call_select(kind, device, in, out, count, n, dtype, compare, a, b, stream, what): kind 'if', 'partition', 'where'"},
    {"call_select_flagged", py_select_flagged, METH_VARARGS,
     "call_select_flagged(device, in, flags, out, count, n, dtype, stream, what)"},
    {"call_unique", py_unique, METH_VARARGS, "call_unique(device, in, out, count, n, dtype, stream, what)"},
    {"missing", py_missing, METH_O, "missing(name): whether the loaded library lacks this optional entry point"},
    {"call_segmented_reduce", py_segmented_reduce, METH_VARARGS,
     "call_segmented_reduce(device, in, out, count, size, stride, dtype, op, reproducible, stream, what)"},
    {"call_segmented_scan", py_segmented_scan, METH_VARARGS,
     "call_segmented_scan(device, in, out, count, size, stride, dtype, op, exclusive, init, stream, what)"},
    {"call_segmented_scan_to", py_segmented_scan_to, METH_VARARGS,
     "call_segmented_scan_to(device, in, out, count, size, stride, dtype, out_dtype, exclusive, init, stream, "
     "what): wk_segmented_*_scan_to"},
    {"call_scan_reserve", py_scan_reserve, METH_VARARGS, "call_scan_reserve(device, n, dtype, what); synchronizes"},
    {"context", py_context, METH_VARARGS, "context(device): the C context's address (made on first use)"},
    {"sm_count", py_sm_count, METH_VARARGS, "sm_count(device)"},
    {"current_device", py_current_device, METH_NOARGS, "the CUDA runtime's current device"},
    {"pointer_attributes", py_pointer_attributes, METH_VARARGS,
     "pointer_attributes(ptr): (memory type, device), or None for a pointer CUDA does not know"},
    {"stream_wait", py_stream_wait, METH_VARARGS, "stream_wait(producer, consumer, device): an event wait"},
    {"stream_synchronize", py_stream_synchronize, METH_VARARGS, "stream_synchronize(stream)"},
    {"dlpack", py_dlpack, METH_O, "dlpack(capsule): what the DLPack tensor holds, or None if not a capsule"},
    {"time_torch_route", wkn_time_torch_route, METH_VARARGS,
     "time_torch_route(x, reps): microseconds per step of the PyTorch route, timed in C"},
    {NULL, NULL, 0, NULL},
};
