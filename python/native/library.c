/* Opening libwarpkit.so, its entry points, the CUDA runtime beside it, the
 * per-device contexts and the exceptions of failed calls. Where the library
 * is looked for is the Python code's business (warpkit/_lib.py): it calls
 * open() below for each candidate. */
#include "native.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

wkn_api wkn;
wkn_cudart wkn_cuda;
int wkn_release_gil = 0;

static void *library;          /* the dlopen handle, NULL until loaded */
static PyObject *library_path; /* its path, as opened                 */
static int cudart_ready;

/* ------------------------------------------------------------ symbols */

typedef struct symbol {
    const char *name;
    void **slot;
    int optional;
} symbol;

#define WKN_SYM(field, name, optional) {name, (void **)&wkn.field, optional}
static const symbol api_symbols[] = {
    WKN_SYM(status_string, "wk_status_string", 0),
    WKN_SYM(last_error_message, "wk_last_error_message", 0),
    WKN_SYM(create, "wk_create", 0),
    WKN_SYM(context_sm_count, "wk_context_sm_count", 0),
    WKN_SYM(reduce, "wk_reduce", 0),
    WKN_SYM(reduce_repro, "wk_reduce_repro", 0),
    WKN_SYM(reduce_index, "wk_reduce_index", 1),
    WKN_SYM(copy_to_host, "wk_copy_to_host", 1),
    WKN_SYM(inclusive_scan, "wk_inclusive_scan", 0),
    WKN_SYM(exclusive_scan, "wk_exclusive_scan", 0),
    WKN_SYM(scan_reserve, "wk_scan_reserve", 0),
    WKN_SYM(select_if, "wk_select_if", 0),
    WKN_SYM(select_flagged, "wk_select_flagged", 0),
    WKN_SYM(partition_if, "wk_partition_if", 0),
    WKN_SYM(unique, "wk_unique", 0),
    WKN_SYM(where, "wk_where", 0),
    WKN_SYM(segmented_reduce, "wk_segmented_reduce", 1),
    WKN_SYM(segmented_reduce_repro, "wk_segmented_reduce_repro", 1),
    WKN_SYM(segmented_inclusive_scan, "wk_segmented_inclusive_scan", 1),
    WKN_SYM(segmented_exclusive_scan, "wk_segmented_exclusive_scan", 1),
    WKN_SYM(reduce_to, "wk_reduce_to", 1),
    WKN_SYM(segmented_reduce_to, "wk_segmented_reduce_to", 1),
    WKN_SYM(inclusive_scan_to, "wk_inclusive_scan_to", 1),
    WKN_SYM(exclusive_scan_to, "wk_exclusive_scan_to", 1),
    WKN_SYM(segmented_inclusive_scan_to, "wk_segmented_inclusive_scan_to", 1),
    WKN_SYM(segmented_exclusive_scan_to, "wk_segmented_exclusive_scan_to", 1),
    WKN_SYM(reduce_repro_partial, "wk_reduce_repro_partial", 1),
    WKN_SYM(repro_finalize, "wk_repro_finalize", 1),
    WKN_SYM(inclusive_scan_from, "wk_inclusive_scan_from", 1),
    WKN_SYM(exclusive_scan_from, "wk_exclusive_scan_from", 1),
    WKN_SYM(unique_from, "wk_unique_from", 1),
    WKN_SYM(where_from, "wk_where_from", 1),
};

#define WKN_CUDA(field, name) {name, (void **)&wkn_cuda.field, 0}
static const symbol cudart_symbols[] = {
    WKN_CUDA(get_device, "cudaGetDevice"),
    WKN_CUDA(set_device, "cudaSetDevice"),
    WKN_CUDA(pointer_get_attributes, "cudaPointerGetAttributes"),
    WKN_CUDA(event_create_with_flags, "cudaEventCreateWithFlags"),
    WKN_CUDA(event_record, "cudaEventRecord"),
    WKN_CUDA(stream_wait_event, "cudaStreamWaitEvent"),
    WKN_CUDA(stream_synchronize, "cudaStreamSynchronize"),
    WKN_CUDA(memcpy_async, "cudaMemcpyAsync"),
    WKN_CUDA(get_error_string, "cudaGetErrorString"),
    WKN_CUDA(get_last_error, "cudaGetLastError"),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Fills the slots from `handle`; the names of required symbols it lacks as
 * a list (empty when none), or NULL with an exception. */
static PyObject *bind(void *handle, const symbol *symbols, size_t count, int fill)
{
    PyObject *missing = PyList_New(0);
    if (!missing)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        void *p = dlsym(handle, symbols[i].name);
        if (fill)
            *symbols[i].slot = p;
        if (!p && !symbols[i].optional) {
            PyObject *name = PyUnicode_FromString(symbols[i].name);
            if (!name || PyList_Append(missing, name) < 0) {
                Py_XDECREF(name);
                Py_DECREF(missing);
                return NULL;
            }
            Py_DECREF(name);
        }
    }
    return missing;
}

static PyObject *dl_error(const char *path)
{
    const char *why = dlerror();
    PyErr_SetString(PyExc_OSError, why ? why : path);
    return NULL;
}

/* open(path): opens a warpkit library and takes its entry points. Returns
 * the list of required entry points it lacks (then nothing is kept), or []
 * once it is the package's library; OSError when it cannot be opened. */
static PyObject *py_open(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t len;
    const char *path = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!path)
        return NULL;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return dl_error(path);
    PyObject *missing = bind(handle, api_symbols, COUNT(api_symbols), 0);
    if (!missing || PyList_Size(missing) > 0) {
        dlclose(handle);
        return missing;
    }
    Py_DECREF(missing);
    bind(handle, api_symbols, COUNT(api_symbols), 1);
    /* The runtime libwarpkit itself uses, where its dependencies export it. */
    PyObject *lacking = bind(handle, cudart_symbols, COUNT(cudart_symbols), 0);
    if (!lacking)
        return NULL;
    if (PyList_Size(lacking) == 0) {
        Py_XDECREF(bind(handle, cudart_symbols, COUNT(cudart_symbols), 1));
        cudart_ready = 1;
    }
    Py_DECREF(lacking);
    library = handle;
    Py_INCREF(arg);
    Py_XDECREF(library_path);
    library_path = arg;
    return PyList_New(0);
}

/* open_global(path): loads a shared library for every later one to use
 * (a libcudart the loader did not find). True when it loaded. */
static PyObject *py_open_global(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *path = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!path)
        return NULL;
    return PyBool_FromLong(dlopen(path, RTLD_NOW | RTLD_GLOBAL) != NULL);
}

/* open_cudart(path): takes the CUDA runtime functions from this library.
 * True when it has them all. */
static PyObject *py_open_cudart(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *path = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!path)
        return NULL;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        Py_RETURN_FALSE;
    PyObject *missing = bind(handle, cudart_symbols, COUNT(cudart_symbols), 0);
    if (!missing)
        return NULL;
    int ok = PyList_Size(missing) == 0;
    Py_DECREF(missing);
    if (!ok) {
        dlclose(handle);
        Py_RETURN_FALSE;
    }
    Py_XDECREF(bind(handle, cudart_symbols, COUNT(cudart_symbols), 1));
    cudart_ready = 1;
    Py_RETURN_TRUE;
}

static PyObject *py_loaded_path(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (!library)
        Py_RETURN_NONE;
    Py_INCREF(library_path);
    return library_path;
}

static PyObject *py_cudart_ready(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(cudart_ready);
}

/* ------------------------------------------------------------ contexts */

/* One context per device, created on first use and never destroyed:
 * wk_destroy synchronizes the device, which is not safe while the
 * interpreter and the array libraries shut down. */
#define WKN_MAX_DEVICES 1024
static wk_context *contexts[WKN_MAX_DEVICES];
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;

wk_context *wkn_context(int device)
{
    if (device >= 0 && device < WKN_MAX_DEVICES && contexts[device])
        return contexts[device];
    if (wkn_ensure_loaded() < 0)
        return NULL;
    if (device < 0 || device >= WKN_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "warpkit: device %d is not a CUDA device ordinal", device);
        return NULL;
    }
    /* wk_create allocates and synchronizes: without the GIL, one at a time. */
    wk_status status = WK_SUCCESS;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&contexts_lock);
    if (!contexts[device]) {
        wk_context *ctx = NULL;
        status = wkn.create(&ctx, device);
        if (status == WK_SUCCESS)
            contexts[device] = ctx;
    }
    pthread_mutex_unlock(&contexts_lock);
    Py_END_ALLOW_THREADS
    if (status != WK_SUCCESS) {
        char what[80];
        snprintf(what, sizeof what, "warpkit (creating the context of device %d)", device);
        return (wk_context *)wkn_raise_status(status, what);
    }
    return contexts[device];
}

/* reset(): forgets the library and the contexts (the tests load a stub). */
static PyObject *py_reset(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    memset(contexts, 0, sizeof contexts);
    memset(&wkn, 0, sizeof wkn);
    memset(&wkn_cuda, 0, sizeof wkn_cuda);
    library = NULL;
    cudart_ready = 0;
    Py_CLEAR(library_path);
    wkn_routes_clear();
    wkn_events_forget();
    Py_RETURN_NONE;
}

/* ----------------------------------------------- Python-side helpers */

static PyObject *lib_module;    /* warpkit._lib                   */
static PyObject *errors_module; /* warpkit._errors                */

static PyObject *package_attr(PyObject **module, const char *module_name, const char *attr)
{
    if (!*module && !(*module = PyImport_ImportModule(module_name)))
        return NULL;
    return PyObject_GetAttrString(*module, attr);
}

static int library_loaded(void) { return library != NULL; }
static int cudart_loaded(void) { return cudart_ready; }

/* Calls warpkit._lib.<fn>(), which is to leave done() true; 0, or -1 with
 * an exception (RuntimeError `failure` when it returned without). */
static int run_loader(const char *fn, int (*done)(void), const char *failure)
{
    PyObject *loader = package_attr(&lib_module, "warpkit._lib", fn);
    if (!loader)
        return -1;
    PyObject *r = PyObject_CallObject(loader, NULL);
    Py_DECREF(loader);
    if (!r)
        return -1;
    Py_DECREF(r);
    if (!done()) {
        PyErr_SetString(PyExc_RuntimeError, failure);
        return -1;
    }
    return 0;
}

int wkn_ensure_loaded(void)
{
    if (library)
        return 0;
    return run_loader("load", library_loaded, "warpkit: the library loader returned without a library");
}

int wkn_ensure_cudart(void)
{
    if (cudart_ready)
        return 0;
    if (wkn_ensure_loaded() < 0)
        return -1;
    if (cudart_ready)
        return 0;
    return run_loader("find_cudart", cudart_loaded, "warpkit: no CUDA runtime was loaded");
}

/* Raises the exception that _errors.for_call builds. */
static PyObject *raise_built(PyObject *exc)
{
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *wkn_raise_status(wk_status status, const char *what)
{
    const char *detail = wkn.last_error_message ? wkn.last_error_message() : NULL;
    const char *text = wkn.status_string ? wkn.status_string(status) : NULL;
    PyObject *build = package_attr(&errors_module, "warpkit._errors", "for_call");
    if (!build)
        return NULL;
    PyObject *exc = PyObject_CallFunction(build, "iyys", (int)status, detail ? detail : "", text ? text : "",
                                          what);
    Py_DECREF(build);
    return raise_built(exc);
}

PyObject *wkn_raise_cuda(int err, const char *what)
{
    const char *text = wkn_cuda.get_error_string ? wkn_cuda.get_error_string(err) : NULL;
    if (wkn_cuda.get_last_error)
        wkn_cuda.get_last_error();
    PyObject *build = package_attr(&errors_module, "warpkit._errors", "for_cuda");
    if (!build)
        return NULL;
    PyObject *exc = PyObject_CallFunction(build, "iys", err, text ? text : "", what);
    Py_DECREF(build);
    return raise_built(exc);
}

static PyObject *py_set_release_gil(PyObject *self, PyObject *arg)
{
    (void)self;
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    int was = wkn_release_gil;
    wkn_release_gil = on;
    return PyBool_FromLong(was);
}

static PyObject *py_releases_gil(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(wkn_release_gil);
}

PyMethodDef wkn_library_methods[] = {
    {"open", py_open, METH_O, "open(path): take libwarpkit's entry points from this library; [] or the missing ones"},
    {"open_global", py_open_global, METH_O, "open_global(path): load a shared library globally"},
    {"open_cudart", py_open_cudart, METH_O, "open_cudart(path): take the CUDA runtime functions from it"},
    {"loaded_path", py_loaded_path, METH_NOARGS, "the path of the loaded library, or None"},
    {"cudart_ready", py_cudart_ready, METH_NOARGS, "whether the CUDA runtime functions are there"},
    {"reset", py_reset, METH_NOARGS, "forget the library and the contexts (tests)"},
    {"set_release_gil", py_set_release_gil, METH_O,
     "set_release_gil(on): release the GIL around C calls; returns the previous setting"},
    {"releases_gil", py_releases_gil, METH_NOARGS, "whether calls release the GIL around the C call"},
    {NULL, NULL, 0, NULL},
};
