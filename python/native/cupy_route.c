/* CuPy arrays without CuPy's headers: pointer, size, dtype, device and
 * contiguity read from the array's attributes, the stream from CuPy's
 * current stream, outputs from cupy.empty (CuPy's memory pool). Outputs are
 * made here only when the array's device is the current one; otherwise the
 * Python code makes them inside the device's context. */
#include "native.h"

typedef struct cupy_cache {
    PyObject *module;
    PyTypeObject *ndarray;
    PyObject *dtypes[WKN_DTYPES]; /* numpy dtype objects; bfloat16 has none */
    PyObject *get_current_stream; /* cupy.cuda.get_current_stream           */
    int stream_takes_device;      /* get_current_stream(device) works       */
    PyObject *get_device;         /* cupy.cuda.runtime.getDevice            */
    PyObject *empty;              /* cupy.empty                             */
    PyObject *c_contiguous_attr;  /* "_c_contiguous" where arrays have it   */
} cupy_cache;

static cupy_cache C;

static const char *const dtype_names[WKN_DTYPES] = {"int32",   "uint32",  "int64", "uint64", "float32",
                                                    "float64", "float16", NULL,    "bool",   "uint8",
                                                    "int8",    "int16",   "uint16"};

static void clear(void)
{
    Py_CLEAR(C.module);
    C.ndarray = NULL;
    for (int i = 0; i < WKN_DTYPES; i++)
        Py_CLEAR(C.dtypes[i]);
    Py_CLEAR(C.get_current_stream);
    Py_CLEAR(C.get_device);
    Py_CLEAR(C.empty);
    Py_CLEAR(C.c_contiguous_attr);
}

void wkn_routes_clear_cupy(void) { clear(); }

static PyObject *attr_path(PyObject *o, const char *a, const char *b)
{
    PyObject *first = PyObject_GetAttrString(o, a);
    if (!first || !b)
        return first;
    PyObject *second = PyObject_GetAttrString(first, b);
    Py_DECREF(first);
    return second;
}

/* Builds the cache for `module`: its ndarray type, or NULL (no exception)
 * when it lacks what this route uses. */
static PyTypeObject *build(PyObject *module)
{
    clear();
    PyObject *ndarray = PyObject_GetAttrString(module, "ndarray");
    PyObject *dtype = PyObject_GetAttrString(module, "dtype");
    PyObject *cuda = PyObject_GetAttrString(module, "cuda");
    int ok = ndarray && PyType_Check(ndarray) && dtype && cuda;
    if (ok) {
        Py_INCREF(module);
        C.module = module;
        C.ndarray = (PyTypeObject *)ndarray;
        for (int i = 0; i < WKN_DTYPES && ok; i++)
            if (dtype_names[i])
                ok = (C.dtypes[i] = PyObject_CallFunction(dtype, "s", dtype_names[i])) != NULL;
        ok = ok && (C.get_current_stream = PyObject_GetAttrString(cuda, "get_current_stream")) != NULL;
        ok = ok && (C.get_device = attr_path(cuda, "runtime", "getDevice")) != NULL;
        ok = ok && (C.empty = PyObject_GetAttrString(module, "empty")) != NULL;
    }
    Py_XDECREF(ndarray);
    Py_XDECREF(dtype);
    Py_XDECREF(cuda);
    if (!ok) {
        PyErr_Clear();
        clear();
        return NULL;
    }
    /* Older CuPy: get_current_stream() takes no device. */
    PyObject *s = PyObject_CallFunction(C.get_current_stream, "i", 0);
    C.stream_takes_device = s != NULL;
    Py_XDECREF(s);
    PyErr_Clear();
    C.c_contiguous_attr = PyUnicode_InternFromString("_c_contiguous");
    return C.ndarray;
}

int wkn_is_cupy(PyObject *x)
{
    if (C.ndarray && Py_TYPE(x) == C.ndarray)
        return 1;
    return wkn_route_retype(x, wkn_name.cupy, C.module, build);
}

/* An integer attribute, or -1 with or without an exception. */
static long long long_attr(PyObject *o, PyObject *name) { return wkn_take_long(PyObject_GetAttr(o, name)); }

static int contiguous(PyObject *x)
{
    PyObject *r = PyObject_GetAttr(x, C.c_contiguous_attr);
    if (!r) {
        PyErr_Clear();
        PyObject *flags = PyObject_GetAttr(x, wkn_name.flags);
        if (!flags)
            return -1;
        r = PyObject_GetAttr(flags, wkn_name.c_contiguous);
        Py_DECREF(flags);
        if (!r)
            return -1;
    }
    int yes = PyObject_IsTrue(r);
    Py_DECREF(r);
    return yes;
}

static int current_device(void) { return (int)wkn_take_long(PyObject_CallObject(C.get_device, NULL)); }

static int take_apart(PyObject *x, wkn_view *v, int with_stream)
{
    int code;
    int r = wkn_is_cupy(x) ? wkn_dtype_code(x, C.dtypes, &code) : 0;
    if (r <= 0)
        return r;
    int c = contiguous(x);
    if (c <= 0)
        return c;
    PyObject *data = PyObject_GetAttr(x, wkn_name.data);
    if (!data)
        return -1;
    PyObject *p = PyObject_GetAttr(data, wkn_name.ptr);
    long long device = long_attr(data, wkn_name.device_id);
    Py_DECREF(data);
    if (!p || device < 0) {
        Py_XDECREF(p);
        return PyErr_Occurred() ? -1 : 0;
    }
    void *ptr = PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    long long n = long_attr(x, wkn_name.size);
    if (n < 0)
        return PyErr_Occurred() ? -1 : 0;
    *v = (wkn_view){.ptr = ptr, .n = (size_t)n, .dtype = code, .device = (int)device};
    if (!with_stream)
        return 1;
    PyObject *s;
    if (C.stream_takes_device) {
        s = PyObject_CallFunction(C.get_current_stream, "i", v->device);
    } else {
        int cur = current_device();
        if (cur != v->device)
            return cur < 0 ? -1 : 0;
        s = PyObject_CallObject(C.get_current_stream, NULL);
    }
    if (!s)
        return -1;
    long long h = long_attr(s, wkn_name.ptr);
    Py_DECREF(s);
    if (h < 0 && PyErr_Occurred())
        return -1;
    v->stream = (void *)(uintptr_t)h;
    return 1;
}

int wkn_cupy_view(PyObject *x, wkn_view *v) { return take_apart(x, v, 1); }

int wkn_cupy_out(PyObject *out, unsigned dtypes, size_t n, int device, void **ptr)
{
    wkn_view o;
    return wkn_out_fits(take_apart(out, &o, 0), &o, dtypes, n, device, ptr);
}

PyObject *wkn_cupy_empty(PyObject *x, const wkn_view *v, Py_ssize_t shape, int dtype, void **ptr)
{
    (void)x;
    if (!C.dtypes[dtype])
        return NULL; /* bfloat16: the Python code says what to do */
    int cur = current_device();
    if (cur != v->device)
        return NULL;
    PyObject *size = shape < 0 ? PyTuple_New(0) : Py_BuildValue("(n)", shape);
    if (!size)
        return NULL;
    PyObject *out = PyObject_CallFunctionObjArgs(C.empty, size, C.dtypes[dtype], NULL);
    Py_DECREF(size);
    if (!out)
        return NULL;
    PyObject *data = PyObject_GetAttr(out, wkn_name.data);
    PyObject *p = data ? PyObject_GetAttr(data, wkn_name.ptr) : NULL;
    Py_XDECREF(data);
    return wkn_output_at(out, p, ptr);
}
