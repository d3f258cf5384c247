/* PyTorch tensors without PyTorch's headers: their pointer, size, dtype,
 * device and stream read through torch's own (C-implemented) methods, and
 * outputs made by torch's caching allocator on the current stream. What is
 * looked up once (the Tensor type, dtype objects, unbound methods) is kept
 * per torch module; a different module in sys.modules (a test's stand-in)
 * is looked up afresh. */
#include "native.h"

#include <time.h>

#define WKN_TEMPLATE_DEVICES 64

/* Kinds of template: a 0-d tensor, or the (2,) int64 buffer of an arg
 * result. torch.empty_like of a template is the cheapest allocation torch's
 * Python API offers for a fixed shape. */
enum { TEMPLATE_SCALAR, TEMPLATE_PAIR, TEMPLATE_KINDS };

/* The methods a tensor is read through, called unbound: no bound method
 * is made per call. */
enum { M_DATA_PTR, M_GET_DEVICE, M_NUMEL, M_IS_CONTIGUOUS, METHODS };
static const char *const method_names[METHODS] = {"data_ptr", "get_device", "numel", "is_contiguous"};

typedef struct torch_cache {
    PyObject *module;
    PyTypeObject *tensor;
    PyObject *dtypes[WKN_DTYPES];
    PyObject *dtype_kw[WKN_DTYPES]; /* {"dtype": torch.<dtype>} */
    PyObject *new_empty;  /* Tensor.new_empty, unbound */
    PyObject *methods[METHODS]; /* Tensor.data_ptr and the others, unbound */
    PyObject *narrow;     /* Tensor.narrow, unbound */
    PyObject *empty_like; /* torch.empty_like */
    PyObject *raw_stream; /* torch._C._cuda_getCurrentRawStream */
    PyObject *device_args[WKN_TEMPLATE_DEVICES]; /* (device,), for raw_stream */
    PyObject *templates[WKN_TEMPLATE_DEVICES][WKN_DTYPES][TEMPLATE_KINDS]; /* (template,) */
} torch_cache;

static torch_cache T;

static const char *const dtype_names[WKN_DTYPES] = {"int32",   "uint32",   "int64", "uint64", "float32",
                                                    "float64", "float16",  "bfloat16", "bool", "uint8",
                                                    "int8",    "int16",    "uint16"};

static void clear(void)
{
    Py_CLEAR(T.module);
    T.tensor = NULL;
    for (int i = 0; i < WKN_DTYPES; i++) {
        Py_CLEAR(T.dtypes[i]);
        Py_CLEAR(T.dtype_kw[i]);
    }
    Py_CLEAR(T.new_empty);
    for (int m = 0; m < METHODS; m++)
        Py_CLEAR(T.methods[m]);
    Py_CLEAR(T.narrow);
    Py_CLEAR(T.empty_like);
    Py_CLEAR(T.raw_stream);
    for (int d = 0; d < WKN_TEMPLATE_DEVICES; d++) {
        Py_CLEAR(T.device_args[d]);
        for (int i = 0; i < WKN_DTYPES; i++)
            for (int k = 0; k < TEMPLATE_KINDS; k++)
                Py_CLEAR(T.templates[d][i][k]);
    }
}

/* An attribute that may be missing (a stand-in torch): NULL, no error. */
static PyObject *optional_attr(PyObject *o, const char *name)
{
    PyObject *a = o ? PyObject_GetAttrString(o, name) : NULL;
    if (!a)
        PyErr_Clear();
    return a;
}

/* Drops a cache this route cannot use (and any error of building it). */
static PyTypeObject *forget(void)
{
    PyErr_Clear();
    clear();
    return NULL;
}

/* Builds the cache for `module`: its Tensor type, or NULL (no exception)
 * when it has none this route can serve. */
static PyTypeObject *build(PyObject *module)
{
    clear();
    PyObject *tensor = optional_attr(module, "Tensor");
    if (!tensor || !PyType_Check(tensor)) {
        Py_XDECREF(tensor);
        return NULL;
    }
    Py_INCREF(module);
    T.module = module;
    T.tensor = (PyTypeObject *)tensor; /* the module keeps it alive */
    Py_DECREF(tensor);
    for (int i = 0; i < WKN_DTYPES; i++) {
        T.dtypes[i] = optional_attr(module, dtype_names[i]);
        if (T.dtypes[i]) {
            T.dtype_kw[i] = PyDict_New();
            if (!T.dtype_kw[i] || PyDict_SetItemString(T.dtype_kw[i], "dtype", T.dtypes[i]) < 0)
                return forget();
        }
    }
    T.new_empty = optional_attr(tensor, "new_empty");
    for (int m = 0; m < METHODS; m++)
        if (!(T.methods[m] = optional_attr(tensor, method_names[m])))
            return forget();
    T.narrow = optional_attr(tensor, "narrow");
    T.empty_like = optional_attr(module, "empty_like");
    PyObject *c = optional_attr(module, "_C");
    T.raw_stream = optional_attr(c, "_cuda_getCurrentRawStream");
    Py_XDECREF(c);
    if (!T.new_empty || !T.raw_stream)
        return forget(); /* not a torch this route can serve: the Python code will */
    return T.tensor;
}

int wkn_is_torch(PyObject *x)
{
    if (T.tensor && Py_TYPE(x) == T.tensor)
        return 1;
    return wkn_route_retype(x, wkn_name.torch, T.module, build);
}

void wkn_routes_clear_torch(void) { clear(); }

/* x.<method>(), through the unbound method. */
static PyObject *call0(PyObject *x, int method) { return PyObject_CallFunctionObjArgs(T.methods[method], x, NULL); }

/* An int result of a method, or -1 with or without an exception. */
static long long call_long(PyObject *x, int method) { return wkn_take_long(call0(x, method)); }

int wkn_torch_stream(int device, void **stream)
{
    PyObject *r;
    if (device >= 0 && device < WKN_TEMPLATE_DEVICES) {
        if (!T.device_args[device] && !(T.device_args[device] = Py_BuildValue("(i)", device)))
            return -1;
        r = PyObject_Call(T.raw_stream, T.device_args[device], NULL);
    } else {
        r = PyObject_CallFunction(T.raw_stream, "i", device);
    }
    if (!r)
        return -1;
    *stream = PyLong_AsVoidPtr(r);
    Py_DECREF(r);
    return PyErr_Occurred() ? -1 : 0;
}

static int take_apart(PyObject *x, wkn_view *v, int with_stream)
{
    int code;
    int r = wkn_is_torch(x) ? wkn_dtype_code(x, T.dtypes, &code) : 0;
    if (r <= 0)
        return r; /* not a tensor, or a mask or other dtype: the Python code says why */
    long long device = call_long(x, M_GET_DEVICE);
    if (device < 0)
        return PyErr_Occurred() ? -1 : 0; /* a CPU tensor */
    long long n = call_long(x, M_NUMEL);
    if (n < 0)
        return PyErr_Occurred() ? -1 : 0;
    /* One element lies at its pointer whatever the strides say. */
    if (n > 1) {
        PyObject *contiguous = call0(x, M_IS_CONTIGUOUS);
        if (!contiguous)
            return -1;
        Py_DECREF(contiguous);
        if (contiguous != Py_True)
            return 0;
    }
    PyObject *p = call0(x, M_DATA_PTR);
    if (!p)
        return -1;
    void *ptr = PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    if (PyErr_Occurred())
        return -1;
    *v = (wkn_view){.ptr = ptr, .n = (size_t)n, .dtype = code, .device = (int)device};
    if (with_stream && wkn_torch_stream(v->device, &v->stream) < 0)
        return -1;
    return 1;
}

int wkn_torch_view(PyObject *x, wkn_view *v) { return take_apart(x, v, 1); }

/* (template,): the arguments of torch.empty_like for an output of `kind`
 * and dtype on x's device, made on first use. */
static PyObject *template_for(PyObject *x, int device, int dtype, int kind)
{
    if (device >= WKN_TEMPLATE_DEVICES || !T.empty_like)
        return NULL;
    PyObject **slot = &T.templates[device][dtype][kind];
    if (!*slot) {
        PyObject *shape = kind == TEMPLATE_SCALAR ? PyTuple_New(0) : Py_BuildValue("(i)", 2);
        PyObject *args = shape ? PyTuple_Pack(2, x, shape) : NULL;
        Py_XDECREF(shape);
        if (!args)
            return NULL;
        PyObject *t = PyObject_Call(T.new_empty, args, T.dtype_kw[dtype]);
        Py_DECREF(args);
        if (!t)
            return NULL;
        *slot = PyTuple_Pack(1, t);
        Py_DECREF(t);
    }
    return *slot;
}

PyObject *wkn_torch_empty(PyObject *x, const wkn_view *v, Py_ssize_t shape, int dtype, void **ptr)
{
    if (!T.dtypes[dtype]) {
        PyErr_Format(PyExc_TypeError, "warpkit: this PyTorch has no %s dtype", dtype_names[dtype]);
        return NULL;
    }
    PyObject *out;
    int kind = shape < 0 ? TEMPLATE_SCALAR : shape == 2 && dtype == WK_I64 ? TEMPLATE_PAIR : -1;
    PyObject *t = kind >= 0 ? template_for(x, v->device, dtype, kind) : NULL;
    if (t) {
        out = PyObject_Call(T.empty_like, t, NULL);
    } else {
        if (PyErr_Occurred())
            return NULL;
        PyObject *size = shape < 0 ? PyTuple_New(0) : PyLong_FromSsize_t(shape);
        PyObject *args = size ? PyTuple_Pack(2, x, size) : NULL;
        Py_XDECREF(size);
        if (!args)
            return NULL;
        out = PyObject_Call(T.new_empty, args, dtype == v->dtype ? NULL : T.dtype_kw[dtype]);
        Py_DECREF(args);
    }
    if (!out)
        return NULL;
    return wkn_output_at(out, call0(out, M_DATA_PTR), ptr);
}

PyObject *wkn_torch_head(PyObject *out, PyObject *stop)
{
    /* narrow(0, 0, k) is out[:k] wherever it succeeds (0 <= k <= out's
     * first extent); where it fails the slice says what it means. */
    if (T.narrow && wkn_is_torch(out) && PyLong_AsLongLong(stop) >= 0) {
        PyObject *zero = PyLong_FromLong(0);
        PyObject *view = zero ? PyObject_CallFunctionObjArgs(T.narrow, out, zero, zero, stop, NULL) : NULL;
        Py_XDECREF(zero);
        if (view)
            return view;
    }
    PyErr_Clear();
    PyObject *slice = PySlice_New(NULL, stop, NULL);
    if (!slice)
        return NULL;
    PyObject *view = PyObject_GetItem(out, slice);
    Py_DECREF(slice);
    return view;
}

int wkn_torch_out(PyObject *out, unsigned dtypes, size_t n, int device, void **ptr)
{
    wkn_view o;
    return wkn_out_fits(take_apart(out, &o, 0), &o, dtypes, n, device, ptr);
}

/* ------------------------------------------------------------ profile */

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

/* time_torch_route(x, reps): µs per step of this route on tensor x, timed
 * here in C (scripts/profile_python_call.py prints them). */
PyObject *wkn_time_torch_route(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *x;
    int reps;
    if (!PyArg_ParseTuple(args, "Oi", &x, &reps))
        return NULL;
    wkn_view v;
    int r = wkn_torch_view(x, &v);
    if (r <= 0) {
        if (r == 0)
            PyErr_SetString(PyExc_TypeError, "time_torch_route: x is not a contiguous CUDA tensor");
        return NULL;
    }
    PyObject *result = PyDict_New();
    if (!result)
        return NULL;
    const char *names[] = {"take apart (input, with stream)", "take apart (1-element output)",
                           "current stream", "0-d output (empty_like of a template)",
                           "(2,) int64 output (empty_like of a template)", "n-element output (new_empty)"};
    for (int step = 0; step < 6; step++) {
        double t0 = now_us();
        for (int i = 0; i < reps; i++) {
            wkn_view w;
            void *p, *s;
            PyObject *o = NULL;
            int ok = 1;
            switch (step) {
            case 0: ok = take_apart(x, &w, 1) > 0; break;
            case 1: ok = take_apart(x, &w, 0) > 0; break;
            case 2: ok = wkn_torch_stream(v.device, &s) == 0; break;
            case 3: ok = (o = wkn_torch_empty(x, &v, -1, v.dtype, &p)) != NULL; break;
            case 4: ok = (o = wkn_torch_empty(x, &v, 2, WK_I64, &p)) != NULL; break;
            default: ok = (o = wkn_torch_empty(x, &v, (Py_ssize_t)v.n, v.dtype, &p)) != NULL; break;
            }
            Py_XDECREF(o);
            if (!ok) {
                Py_DECREF(result);
                return NULL;
            }
        }
        PyObject *us = PyFloat_FromDouble((now_us() - t0) / reps);
        if (!us || PyDict_SetItemString(result, names[step], us) < 0) {
            Py_XDECREF(us);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(us);
    }
    return result;
}
