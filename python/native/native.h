/* warpkit._native: the extension module between Python and libwarpkit.
 *
 * Written against CPython's limited API (one abi3 build serves every Python
 * from 3.10 on) and against include/warpkit.h; it needs neither the CUDA
 * toolkit nor PyTorch or CuPy headers to build. libwarpkit.so is opened
 * with dlopen by the first call (library.c), so importing the module needs
 * no GPU and no library. The public functions (calls.c) take PyTorch
 * tensors and CuPy arrays apart themselves (torch_route.c, cupy_route.c)
 * and hand every other case to the package's Python code, which reaches
 * the C library through the low-level functions of lowlevel.c. */
#ifndef WARPKIT_PY_NATIVE_H
#define WARPKIT_PY_NATIVE_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#include "warpkit.h"

/* ---------------------------------------------------------------- library */

/* The entry points of the loaded libwarpkit, looked up by name, typed from
 * the header's own declarations. The segmented calls, wk_reduce_index,
 * wk_copy_to_host and the sums into a wider dtype are optional (an older
 * library lacks them: NULL). */
typedef struct wkn_api {
    __typeof__(wk_status_string) *status_string;
    __typeof__(wk_last_error_message) *last_error_message;
    __typeof__(wk_create) *create;
    __typeof__(wk_context_sm_count) *context_sm_count;
    __typeof__(wk_reduce) *reduce;
    __typeof__(wk_reduce_repro) *reduce_repro;
    __typeof__(wk_reduce_index) *reduce_index;     /* since 0.2.0 */
    __typeof__(wk_copy_to_host) *copy_to_host;     /* since 0.2.0 */
    __typeof__(wk_inclusive_scan) *inclusive_scan;
    __typeof__(wk_exclusive_scan) *exclusive_scan;
    __typeof__(wk_scan_reserve) *scan_reserve;
    __typeof__(wk_select_if) *select_if;
    __typeof__(wk_select_flagged) *select_flagged;
    __typeof__(wk_partition_if) *partition_if;
    __typeof__(wk_unique) *unique;
    __typeof__(wk_where) *where;
    __typeof__(wk_segmented_reduce) *segmented_reduce;
    __typeof__(wk_segmented_reduce_repro) *segmented_reduce_repro;
    __typeof__(wk_segmented_inclusive_scan) *segmented_inclusive_scan;
    __typeof__(wk_segmented_exclusive_scan) *segmented_exclusive_scan;
    __typeof__(wk_reduce_to) *reduce_to;                     /* since 0.3.0 */
    __typeof__(wk_segmented_reduce_to) *segmented_reduce_to; /* since 0.3.0 */
    __typeof__(wk_inclusive_scan_to) *inclusive_scan_to;     /* since 0.3.0 */
    __typeof__(wk_exclusive_scan_to) *exclusive_scan_to;     /* since 0.3.0 */
    __typeof__(wk_segmented_inclusive_scan_to) *segmented_inclusive_scan_to; /* since 0.3.0 */
    __typeof__(wk_segmented_exclusive_scan_to) *segmented_exclusive_scan_to; /* since 0.3.0 */
    __typeof__(wk_reduce_repro_partial) *reduce_repro_partial;
    __typeof__(wk_repro_finalize) *repro_finalize;
    __typeof__(wk_inclusive_scan_from) *inclusive_scan_from;
    __typeof__(wk_exclusive_scan_from) *exclusive_scan_from;
    __typeof__(wk_unique_from) *unique_from;
    __typeof__(wk_where_from) *where_from;
} wkn_api;

/* The few CUDA runtime functions the package calls itself, from the runtime
 * libwarpkit uses (or another one found on the system). Error codes are
 * cudaError_t's values. */
typedef struct wkn_cudart {
    int (*get_device)(int *device);
    int (*set_device)(int device);
    int (*pointer_get_attributes)(void *attributes, const void *pointer);
    int (*event_create_with_flags)(void **event, unsigned flags);
    int (*event_record)(void *event, void *stream);
    int (*stream_wait_event)(void *stream, void *event, unsigned flags);
    int (*stream_synchronize)(void *stream);
    int (*memcpy_async)(void *dst, const void *src, size_t bytes, int kind, void *stream);
    const char *(*get_error_string)(int err);
    int (*get_last_error)(void);
} wkn_cudart;

extern wkn_api wkn;           /* valid once wkn_ensure_loaded() succeeded */
extern wkn_cudart wkn_cuda;   /* valid once wkn_cudart_ready() */

/* Loads the library through the package's Python code (its search rules);
 * 0, or -1 with an exception set. */
int wkn_ensure_loaded(void);
/* The CUDA runtime functions; 0, or -1 with an exception set. */
int wkn_ensure_cudart(void);

/* The context of `device`, made on first use; NULL with an exception set. */
wk_context *wkn_context(int device);

/* Raises the package's exception for a failed C call: `what` names the
 * Python call ("warpkit.sum"). Returns NULL. */
PyObject *wkn_raise_status(wk_status status, const char *what);
/* Raises the package's exception for a failed CUDA runtime call. */
PyObject *wkn_raise_cuda(int err, const char *what);

/* Whether calls release the GIL around a launching C call (off by default:
 * docs/python.md); waits (trim, reserve, a context's creation) always do. */
extern int wkn_release_gil;

#define WKN_CALL(status, expr)                                                                     \
    do {                                                                                           \
        if (wkn_release_gil) {                                                                     \
            PyThreadState *wkn_ts_ = PyEval_SaveThread();                                          \
            (status) = (expr);                                                                     \
            PyEval_RestoreThread(wkn_ts_);                                                         \
        } else {                                                                                   \
            (status) = (expr);                                                                     \
        }                                                                                          \
    } while (0)

/* --------------------------------------------------------------- dtypes */

/* Dtype codes of the package: the header's wk_dtype values, every one of
 * which it computes on. */
enum { WKN_DTYPES = WK_DTYPE_COUNT };

/* -------------------------------------------------------- array routes */

/* An array taken apart: contiguous data of n elements. */
typedef struct wkn_view {
    void *ptr;
    size_t n;
    int dtype;
    int device;
    void *stream; /* the stream the input's library uses now */
} wkn_view;

/* Routes: 1 when x was taken apart, 0 when it is not theirs or not the
 * common case (the caller then hands the call to the Python code), -1 with
 * an exception set. */
int wkn_torch_view(PyObject *x, wkn_view *v);
int wkn_cupy_view(PyObject *x, wkn_view *v);
/* Whether x is exactly a tensor / array of that library (cached type). */
int wkn_is_torch(PyObject *x);
int wkn_is_cupy(PyObject *x);

/* New outputs in x's library on v's device and stream: `shape` < 0 is 0-d,
 * else 1-D of that many elements. NULL and an exception, or NULL and no
 * exception when the common route does not apply. */
PyObject *wkn_torch_empty(PyObject *x, const wkn_view *v, Py_ssize_t shape, int dtype, void **ptr);
PyObject *wkn_cupy_empty(PyObject *x, const wkn_view *v, Py_ssize_t shape, int dtype, void **ptr);

/* A caller's out= (or count=) array of that library: 1 and its pointer when
 * it is contiguous, of one of `dtypes` (a mask of 1 << dtype), n elements
 * on `device`; 0 when it is not (the Python code then says what is wrong);
 * -1 with an exception. */
int wkn_torch_out(PyObject *out, unsigned dtypes, size_t n, int device, void **ptr);
int wkn_cupy_out(PyObject *out, unsigned dtypes, size_t n, int device, void **ptr);

/* What the two routes share (routes.c). A route's build function makes its
 * cache for a module: the module's array type, or NULL (no exception) when
 * the route cannot serve it. */
typedef PyTypeObject *(*wkn_route_build)(PyObject *module);
/* The slow path of wkn_is_torch / wkn_is_cupy: when sys.modules[name] is a
 * module other than `cached`, the cache is built for it; then whether x is
 * of its array type. */
int wkn_route_retype(PyObject *x, PyObject *name, PyObject *cached, wkn_route_build build);
/* x.dtype's code among a route's dtype objects (those of the wk_dtype
 * codes): 1 and *code, 0 when it is none of them, -1 with an exception. */
int wkn_dtype_code(PyObject *x, PyObject *const *dtypes, int *code);
/* The end of wkn_torch_out / wkn_cupy_out: `taken` is what taking the array
 * apart into *o gave (1, 0 or -1). */
int wkn_out_fits(int taken, const wkn_view *o, unsigned dtypes, size_t n, int device, void **ptr);

/* An int result (a new reference, consumed), or -1 with or without an
 * exception when it is NULL or not an int. */
static inline long long wkn_take_long(PyObject *r)
{
    if (!r)
        return -1;
    long long v = PyLong_AsLongLong(r);
    Py_DECREF(r);
    return v;
}

/* A new output whose data pointer p (an int, consumed) is stored in *ptr;
 * NULL, with the output dropped, when p is NULL. */
static inline PyObject *wkn_output_at(PyObject *out, PyObject *p, void **ptr)
{
    if (!p) {
        Py_DECREF(out);
        return NULL;
    }
    *ptr = PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    return out;
}

/* out[:stop] for a PyTorch tensor (a narrow where that is the same view),
 * or for any other array. */
PyObject *wkn_torch_head(PyObject *out, PyObject *stop);

/* The current stream of a device in PyTorch. */
int wkn_torch_stream(int device, void **stream);

/* time_torch_route(x, reps): the route's steps timed in C. */
PyObject *wkn_time_torch_route(PyObject *self, PyObject *args);

/* Forget what the routes looked up (a new library or a test's stand-in). */
void wkn_routes_clear_torch(void);
void wkn_routes_clear_cupy(void);
void wkn_routes_clear(void);

/* ------------------------------------------------------------- helpers */

/* Interned names, made at import. */
typedef struct wkn_names {
    PyObject *dtype, *data, *ptr, *device_id, *size, *flags, *c_contiguous, *torch, *cupy;
} wkn_names;
extern wkn_names wkn_name;

/* sys.modules[name] or NULL (no exception). Borrowed. */
PyObject *wkn_module_if_loaded(PyObject *name);

/* open() and the other loader functions (library.c). */
extern PyMethodDef wkn_library_methods[];
/* Forget this thread's stream-ordering events (reset(), for the tests). */
void wkn_events_forget(void);
/* Low-level functions for the Python code (lowlevel.c). */
extern PyMethodDef wkn_lowlevel_methods[];
/* The public functions (calls.c). */
extern PyMethodDef wkn_call_methods[];
/* Binds the public functions to the Python fallbacks (calls.c). */
int wkn_calls_setup(PyObject *api);

#endif
