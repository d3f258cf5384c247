/* The public functions. Each one serves the common case here: a contiguous
 * PyTorch tensor or CuPy array of a supported dtype, its library's current
 * stream, no axis, outputs new or given in the same library. Everything
 * else (other arrays, stream=, axis=-1, every error of the arguments) goes
 * to the function of the same name in warpkit/_api.py, with the same
 * arguments, so that both routes share one set of rules and messages. */
#include "native.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ arguments */

enum {
    A_X, A_OP, A_VALUE, A_LO, A_HI, A_AXIS, A_OUT, A_COUNT, A_STREAM, A_REPRO, A_RETURN_VALUE, A_EXCLUSIVE,
    A_INITIAL, A_MASK, A_DTYPE, A_NAMES
};
static const char *const arg_names[A_NAMES] = {"x",      "op",     "value",        "lo",          "hi",
                                               "axis",   "out",    "count",        "stream",      "reproducible",
                                               "return_value", "exclusive", "initial", "mask", "dtype"};
static PyObject *arg_name[A_NAMES];

#define BIT(a) (1u << (a))

enum { F_REDUCE, F_ARG, F_SCAN, F_SELECT, F_TRIM, F_COMPRESS, F_COUNT_NONZERO };
enum { S_IF, S_RANGE, S_PARTITION, S_WHERE, S_UNIQUE };

typedef struct fn_spec fn_spec;
typedef PyObject *(*handler)(const fn_spec *f, PyObject **a);

struct fn_spec {
    const char *name; /* of the public function, and of its Python route */
    const char *what; /* in messages                                     */
    int family;
    int code;         /* wk_op, or for selects the kind; -1: from the op argument */
    int npos;
    int pos[3];       /* positional-or-keyword parameters in order */
    unsigned keywords; /* keyword-only parameters */
    PyObject *fallback;
};

/* Marks a call the common route does not take. */
static int fallback_marker;
#define FALLBACK ((PyObject *)&fallback_marker)

static int name_id(PyObject *name)
{
    for (int i = 0; i < A_NAMES; i++)
        if (arg_name[i] == name)
            return i;
    for (int i = 0; i < A_NAMES; i++)
        if (PyUnicode_Compare(arg_name[i], name) == 0)
            return i;
    PyErr_Clear();
    return -1;
}

/* The arguments in their slots; 0 when they are not the plain form (the
 * Python route then takes them, and raises for what is wrong). */
static int parse(const fn_spec *f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **a)
{
    memset(a, 0, A_NAMES * sizeof *a);
    if (nargs > f->npos)
        return 0;
    unsigned allowed = f->keywords;
    for (int i = 0; i < f->npos; i++) {
        if (i < nargs)
            a[f->pos[i]] = args[i];
        else
            allowed |= BIT(f->pos[i]);
    }
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        int id = name_id(PyTuple_GetItem(kwnames, k));
        if (id < 0 || !(allowed & BIT(id)) || a[id])
            return 0;
        a[id] = args[nargs + k];
    }
    return 1;
}

static PyObject *call_fallback(const fn_spec *f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!f->fallback) {
        PyErr_Format(PyExc_RuntimeError, "warpkit.%s: the package's Python code is not set up", f->name);
        return NULL;
    }
    PyObject *tuple = PyTuple_New(nargs);
    if (!tuple)
        return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SetItem(tuple, i, args[i]);
    }
    PyObject *kwargs = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    if (nkw) {
        kwargs = PyDict_New();
        for (Py_ssize_t k = 0; kwargs && k < nkw; k++)
            if (PyDict_SetItem(kwargs, PyTuple_GetItem(kwnames, k), args[nargs + k]) < 0)
                Py_CLEAR(kwargs);
        if (!kwargs) {
            Py_DECREF(tuple);
            return NULL;
        }
    }
    PyObject *r = PyObject_Call(f->fallback, tuple, kwargs);
    Py_DECREF(tuple);
    Py_XDECREF(kwargs);
    return r;
}

static int absent(PyObject *o) { return !o || o == Py_None; }

/* 1: True, 0: False or absent, -1: anything else (the Python route). */
static int flag(PyObject *o)
{
    if (!o || o == Py_False)
        return 0;
    return o == Py_True ? 1 : -1;
}

static int is_float(int dtype) { return dtype == WK_F32 || dtype == WK_F64 || dtype == WK_F16 || dtype == WK_BF16; }

/* ---------------------------------------------------------- the arrays */

enum { LIB_TORCH = 1, LIB_CUPY = 2 };

static int view_input(PyObject *x, wkn_view *v, int *lib)
{
    int r = wkn_torch_view(x, v);
    if (r) {
        *lib = LIB_TORCH;
        return r;
    }
    r = wkn_cupy_view(x, v);
    *lib = LIB_CUPY;
    return r;
}

/* A new output, or FALLBACK when this route cannot make it. */
static PyObject *new_output(int lib, PyObject *x, const wkn_view *v, Py_ssize_t shape, int dtype, void **ptr)
{
    PyObject *out = lib == LIB_TORCH ? wkn_torch_empty(x, v, shape, dtype, ptr) : wkn_cupy_empty(x, v, shape, dtype, ptr);
    if (!out && !PyErr_Occurred())
        return FALLBACK;
    return out;
}

/* A caller's output (a new reference), or FALLBACK, or NULL. */
static PyObject *given_output(int lib, PyObject *out, unsigned dtypes, size_t n, int device, void **ptr)
{
    int r = lib == LIB_TORCH ? wkn_torch_out(out, dtypes, n, device, ptr) : wkn_cupy_out(out, dtypes, n, device, ptr);
    if (r < 0)
        return NULL;
    if (r == 0)
        return FALLBACK;
    Py_INCREF(out);
    return out;
}

static PyObject *output(int lib, PyObject *given, PyObject *x, const wkn_view *v, Py_ssize_t shape, int dtype,
                        unsigned dtypes, void **ptr)
{
    if (absent(given))
        return new_output(lib, x, v, shape, dtype, ptr);
    return given_output(lib, given, dtypes, shape < 0 ? 1 : (size_t)shape, v->device, ptr);
}

/* Drops a partly made result on the way to FALLBACK or an error. */
static PyObject *drop(PyObject *r, PyObject *keep)
{
    if (r && r != FALLBACK)
        Py_DECREF(r);
    return keep;
}

/* What a family returns for a step that gave r <= 0: NULL (an exception is
 * set) or FALLBACK. */
static PyObject *untaken(int r) { return r < 0 ? NULL : FALLBACK; }

/* A call in the making: the input taken apart, its array library, its
 * device's context, and the first output (a new reference) with its pointer. */
typedef struct call {
    wkn_view v;
    int lib;
    wk_context *ctx;
    PyObject *res;
    void *out;
} call;

/* The input a[A_X] taken apart and its device's context: 1, 0 when this
 * route does not take it, -1 with an exception set. */
static int open_input(PyObject **a, call *c)
{
    int r = view_input(a[A_X], &c->v, &c->lib);
    if (r <= 0)
        return r;
    c->ctx = wkn_context(c->v.device);
    return c->ctx ? 1 : -1;
}

/* The output of an open_input call: out=, or a new one (0-d, or of n
 * elements with per_element) of `dtype`. 1, 0 or -1 as open_input. */
static int open_output(PyObject **a, call *c, int per_element, int dtype)
{
    Py_ssize_t shape = per_element ? (Py_ssize_t)c->v.n : -1;
    c->res = output(c->lib, a[A_OUT], a[A_X], &c->v, shape, dtype, BIT(dtype), &c->out);
    if (!c->res)
        return -1;
    return c->res != FALLBACK;
}

static int is_unsigned(int dtype)
{
    return dtype == WK_U32 || dtype == WK_U64 || dtype == WK_U8 || dtype == WK_U16;
}

/* Whether a sum of dtype written as sum_dtype's odt needs the _to calls:
 * odt is dtype or a 64-bit integer, and a 64-bit integer's sum in the
 * other 64-bit integer has the same bits. */
static int widens(int dtype, int odt) { return odt != dtype && dtype != WK_I64 && dtype != WK_U64; }

/* The dtype of a sum and a sum scan without dtype= (_dtypes.sum_dtype):
 * PyTorch's rule for its tensors (bool and integers into int64), NumPy's
 * for CuPy arrays (unsigned integers into uint64). Floats keep theirs. */
static int sum_dtype(const call *c)
{
    if (is_float(c->v.dtype))
        return c->v.dtype;
    return c->lib == LIB_CUPY && is_unsigned(c->v.dtype) ? WK_U64 : WK_I64;
}

/* res after the C call, or NULL once a failure's exception is raised. */
static PyObject *result(const fn_spec *f, wk_status st, PyObject *res)
{
    if (st != WK_SUCCESS)
        return drop(res, wkn_raise_status(st, f->what));
    return res;
}

/* ------------------------------------------------------------- tables */

static PyObject *reduce_ops;  /* _api._REDUCE_OPS: "sum" -> wk_op */
static PyObject *scan_ops;    /* _api._SCAN_OPS                   */
static PyObject *compares;    /* _dtypes.COMPARES                 */
static PyObject *zero, *one;

/* The int value of `key` in a table of the Python code, or -1. */
static int table_code(PyObject *table, PyObject *key)
{
    if (!key || !PyUnicode_Check(key))
        return -1;
    PyObject *v = PyDict_GetItemWithError(table, key);
    if (!v) {
        PyErr_Clear();
        return -1;
    }
    return (int)PyLong_AsLong(v);
}

/* The wk_value bits of a Python int or float constant in `dtype`, rounded
 * as the Python code rounds it (_dtypes.encode); 0 for what only the
 * Python code handles (other types, f16 / bf16, NaN, values out of range). */
static int encode(PyObject *value, int dtype, uint64_t *bits)
{
    double d;
    if (PyFloat_CheckExact(value)) {
        d = PyFloat_AsDouble(value);
    } else if (PyLong_CheckExact(value)) {
        if (!is_float(dtype)) {
            int overflow = 0;
            if (dtype == WK_U64) {
                unsigned long long u = PyLong_AsUnsignedLongLong(value);
                if (PyErr_Occurred()) {
                    PyErr_Clear();
                    return 0;
                }
                *bits = u;
                return 1;
            }
            long long i = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (overflow || (i == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return 0;
            }
            /* Out of the dtype's range: the Python code says so. */
            long long lo, hi;
            int bytes;
            switch (dtype) {
            case WK_I32: lo = INT32_MIN, hi = INT32_MAX, bytes = 4; break;
            case WK_U32: lo = 0, hi = UINT32_MAX, bytes = 4; break;
            case WK_BOOL: lo = 0, hi = 1, bytes = 1; break;
            case WK_U8: lo = 0, hi = UINT8_MAX, bytes = 1; break;
            case WK_I8: lo = INT8_MIN, hi = INT8_MAX, bytes = 1; break;
            case WK_I16: lo = INT16_MIN, hi = INT16_MAX, bytes = 2; break;
            case WK_U16: lo = 0, hi = UINT16_MAX, bytes = 2; break;
            default: lo = INT64_MIN, hi = INT64_MAX, bytes = 8; break; /* WK_I64 */
            }
            if (i < lo || i > hi)
                return 0;
            *bits = bytes == 8 ? (uint64_t)i : (uint64_t)i & ((1ull << (8 * bytes)) - 1);
            return 1;
        }
        d = PyLong_AsDouble(value);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    } else {
        return 0;
    }
    if (dtype == WK_F64) {
        memcpy(bits, &d, sizeof d);
        return 1;
    }
    if (dtype != WK_F32 || isnan(d) || (isfinite(d) && fabs(d) > FLT_MAX))
        return 0;
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    *bits = u;
    return 1;
}

/* ------------------------------------------------------------ families */

/* A sum's output dtype is sum_dtype's; out= of another dtype, dtype= and
 * a library without the widening calls go to the Python route. An integer
 * sum into an integer of its own width is its own sum (the same bits). */
static PyObject *do_reduce(const fn_spec *f, PyObject **a)
{
    if (!absent(a[A_AXIS]) || !absent(a[A_STREAM]) || !absent(a[A_DTYPE]))
        return FALLBACK;
    int op = f->code >= 0 ? f->code : table_code(reduce_ops, a[A_OP]);
    int repro = flag(a[A_REPRO]);
    if (op < 0 || repro < 0)
        return FALLBACK;
    call c;
    int r = open_input(a, &c);
    if (r <= 0)
        return untaken(r);
    const int odt = op == WK_SUM ? sum_dtype(&c) : c.v.dtype;
    const int widen = widens(c.v.dtype, odt);
    if (widen && !wkn.reduce_to)
        return FALLBACK;
    if ((r = open_output(a, &c, 0, odt)) <= 0)
        return untaken(r);
    const wk_dtype dt = (wk_dtype)c.v.dtype;
    const cudaStream_t s = (cudaStream_t)c.v.stream;
    wk_status st;
    if (widen)
        WKN_CALL(st, wkn.reduce_to(c.ctx, c.v.ptr, c.out, c.v.n, dt, (wk_dtype)odt, s));
    else if (repro)
        WKN_CALL(st, wkn.reduce_repro(c.ctx, c.v.ptr, c.out, c.v.n, dt, s));
    else
        WKN_CALL(st, wkn.reduce(c.ctx, c.v.ptr, c.out, c.v.n, dt, (wk_op)op, s));
    return result(f, st, c.res);
}

/* count_nonzero of a bool mask: its sum into int64. Other dtypes go to the
 * Python route, which compares with zero first. */
static PyObject *do_count_nonzero(const fn_spec *f, PyObject **a)
{
    if (!absent(a[A_AXIS]) || !absent(a[A_STREAM]) || !wkn.reduce_to)
        return FALLBACK;
    call c;
    int r = open_input(a, &c);
    if (r <= 0)
        return untaken(r);
    if (c.v.dtype != WK_BOOL)
        return FALLBACK;
    if ((r = open_output(a, &c, 0, WK_I64)) <= 0)
        return untaken(r);
    wk_status st;
    WKN_CALL(st, wkn.reduce_to(c.ctx, c.v.ptr, c.out, c.v.n, WK_BOOL, WK_I64, (cudaStream_t)c.v.stream));
    return result(f, st, c.res);
}

static PyObject *do_arg(const fn_spec *f, PyObject **a)
{
    if (!absent(a[A_AXIS]) || !absent(a[A_STREAM]) || flag(a[A_RETURN_VALUE]) != 0)
        return FALLBACK;
    call c;
    int r = open_input(a, &c);
    if (r <= 0)
        return untaken(r);
    wk_status st;
    if (wkn.reduce_index) {
        PyObject *index = new_output(c.lib, a[A_X], &c.v, -1, WK_I64, &c.out);
        if (!index || index == FALLBACK)
            return index;
        WKN_CALL(st, wkn.reduce_index(c.ctx, c.v.ptr, (int64_t *)c.out, c.v.n, (wk_dtype)c.v.dtype, (wk_op)f->code,
                                      (cudaStream_t)c.v.stream));
        return result(f, st, index);
    }
    /* A library older than wk_reduce_index writes a 16-byte wk_arg_result
     * {value, int64 index}: two int64s, of which the second is returned as a
     * 0-d view. */
    PyObject *buf = new_output(c.lib, a[A_X], &c.v, 2, WK_I64, &c.out);
    if (!buf || buf == FALLBACK)
        return buf;
    WKN_CALL(st, wkn.reduce(c.ctx, c.v.ptr, c.out, c.v.n, (wk_dtype)c.v.dtype, (wk_op)f->code,
                            (cudaStream_t)c.v.stream));
    if (!result(f, st, buf))
        return NULL;
    PyObject *index = PyObject_GetItem(buf, one);
    Py_DECREF(buf);
    return index;
}

static PyObject *do_scan(const fn_spec *f, PyObject **a)
{
    if (!absent(a[A_AXIS]) || !absent(a[A_STREAM]) || !absent(a[A_INITIAL]))
        return FALLBACK;
    int op = f->code >= 0 ? f->code : a[A_OP] ? table_code(scan_ops, a[A_OP]) : WK_SUM;
    int exclusive = flag(a[A_EXCLUSIVE]);
    /* An exclusive scan starts at the op's identity: 0 for a sum; the
     * others' identities are the Python code's. */
    if (op < 0 || exclusive < 0 || (exclusive && op != WK_SUM) || !absent(a[A_DTYPE]))
        return FALLBACK;
    call c;
    int r = open_input(a, &c);
    if (r <= 0)
        return untaken(r);
    /* Sums keep do_reduce's output dtype. */
    const int odt = op == WK_SUM ? sum_dtype(&c) : c.v.dtype;
    const int widen = widens(c.v.dtype, odt);
    if (widen && !(wkn.inclusive_scan_to && wkn.exclusive_scan_to))
        return FALLBACK;
    if ((r = open_output(a, &c, 1, odt)) <= 0)
        return untaken(r);
    const wk_value zero_init = {.u64 = 0};
    const wk_dtype dt = (wk_dtype)c.v.dtype;
    const cudaStream_t s = (cudaStream_t)c.v.stream;
    wk_status st;
    if (widen && exclusive)
        WKN_CALL(st, wkn.exclusive_scan_to(c.ctx, c.v.ptr, c.out, c.v.n, dt, (wk_dtype)odt, zero_init, NULL, s));
    else if (widen)
        WKN_CALL(st, wkn.inclusive_scan_to(c.ctx, c.v.ptr, c.out, c.v.n, dt, (wk_dtype)odt, NULL, s));
    else if (exclusive)
        WKN_CALL(st, wkn.exclusive_scan(c.ctx, c.v.ptr, c.out, c.v.n, dt, (wk_op)op, zero_init, s));
    else
        WKN_CALL(st, wkn.inclusive_scan(c.ctx, c.v.ptr, c.out, c.v.n, dt, (wk_op)op, s));
    return result(f, st, c.res);
}

/* The predicate of a select; 0 when only the Python route can make it. */
static int predicate(const fn_spec *f, PyObject **a, int dtype, wk_predicate *p)
{
    memset(p, 0, sizeof *p);
    if (f->code == S_UNIQUE)
        return 1;
    if (f->code == S_RANGE) {
        uint64_t lo, hi;
        if (!a[A_LO] || !a[A_HI] || !encode(a[A_LO], dtype, &lo) || !encode(a[A_HI], dtype, &hi))
            return 0;
        p->compare = WK_IN_RANGE;
        memcpy(&p->a, &lo, sizeof lo);
        memcpy(&p->b, &hi, sizeof hi);
        return 1;
    }
    PyObject *op = a[A_OP];
    PyObject *value = a[A_VALUE];
    if (f->code == S_WHERE) { /* nonzero(x, op="!=", value=0) */
        static PyObject *not_equal;
        if (!not_equal && !(not_equal = PyUnicode_InternFromString("!=")))
            return -1;
        op = op ? op : not_equal;
        value = value ? value : zero;
    }
    int compare = table_code(compares, op);
    if (compare < 0)
        return 0;
    p->compare = (wk_compare)compare;
    if (compare == WK_IS_NAN || compare == WK_NOT_NAN) {
        int zero_default = f->code == S_WHERE && value == zero;
        return (absent(value) || zero_default) && is_float(dtype);
    }
    uint64_t bits;
    if (absent(value) || !encode(value, dtype, &bits))
        return 0;
    memcpy(&p->a, &bits, sizeof bits);
    return 1;
}

static PyObject *do_select(const fn_spec *f, PyObject **a)
{
    if (!absent(a[A_STREAM]))
        return FALLBACK;
    wkn_view v;
    wk_predicate pred;
    int lib;
    int r = view_input(a[A_X], &v, &lib);
    if (r <= 0 || (r = predicate(f, a, v.dtype, &pred)) <= 0)
        return untaken(r);
    wk_context *ctx = wkn_context(v.device);
    if (!ctx)
        return NULL;
    int odt = f->code == S_WHERE ? WK_I64 : v.dtype;
    void *out, *count;
    PyObject *res = output(lib, a[A_OUT], a[A_X], &v, (Py_ssize_t)v.n, odt, BIT(odt), &out);
    if (!res || res == FALLBACK)
        return res;
    PyObject *cnt = output(lib, a[A_COUNT], a[A_X], &v, -1, WK_I64, BIT(WK_I64) | BIT(WK_U64), &count);
    if (!cnt || cnt == FALLBACK)
        return drop(res, cnt);
    wk_status st;
    const wk_dtype dt = (wk_dtype)v.dtype;
    cudaStream_t s = (cudaStream_t)v.stream;
    switch (f->code) {
    case S_IF:
    case S_RANGE: WKN_CALL(st, wkn.select_if(ctx, v.ptr, out, (uint64_t *)count, v.n, dt, pred, s)); break;
    case S_PARTITION: WKN_CALL(st, wkn.partition_if(ctx, v.ptr, out, (uint64_t *)count, v.n, dt, pred, s)); break;
    case S_WHERE: WKN_CALL(st, wkn.where(ctx, v.ptr, (int64_t *)out, (uint64_t *)count, v.n, dt, pred, s)); break;
    default: WKN_CALL(st, wkn.unique(ctx, v.ptr, out, (uint64_t *)count, v.n, dt, s)); break;
    }
    if (st != WK_SUCCESS) {
        Py_DECREF(cnt);
        return drop(res, wkn_raise_status(st, f->what));
    }
    PyObject *pair = PyTuple_Pack(2, res, cnt);
    Py_DECREF(res);
    Py_DECREF(cnt);
    return pair;
}

/* trim(out, count): reads a PyTorch count on its device's current stream,
 * as count.item() does (through wk_copy_to_host where the library has it:
 * sooner after the select's kernel than a copy), and slices out[:count]. */
static PyObject *do_trim(const fn_spec *f, PyObject **a)
{
    (void)f;
    if (!absent(a[A_STREAM]) || !a[A_OUT] || !a[A_COUNT])
        return FALLBACK;
    wkn_view c;
    int r = wkn_torch_view(a[A_COUNT], &c);
    if (r <= 0)
        return untaken(r);
    if ((c.dtype != WK_I64 && c.dtype != WK_U64) || c.n != 1)
        return FALLBACK;
    if (wkn_ensure_cudart() < 0)
        return NULL;
    int current = -1;
    if (wkn_cuda.get_device(&current) != 0 || current != c.device) {
        wkn_cuda.get_last_error();
        return FALLBACK;
    }
    uint64_t k = 0;
    if (wkn.copy_to_host) {
        wk_context *ctx = wkn_context(c.device);
        if (!ctx)
            return NULL;
        wk_status st;
        Py_BEGIN_ALLOW_THREADS
        st = wkn.copy_to_host(ctx, c.ptr, &k, sizeof k, c.stream);
        Py_END_ALLOW_THREADS
        if (st != WK_SUCCESS)
            return wkn_raise_status(st, "warpkit.trim");
    } else {
        int err;
        Py_BEGIN_ALLOW_THREADS
        err = wkn_cuda.memcpy_async(&k, c.ptr, sizeof k, 2 /* cudaMemcpyDeviceToHost */, c.stream);
        if (err == 0)
            err = wkn_cuda.stream_synchronize(c.stream);
        Py_END_ALLOW_THREADS
        if (err != 0)
            return wkn_raise_cuda(err, "warpkit.trim: reading count");
    }
    PyObject *stop = c.dtype == WK_I64 ? PyLong_FromLongLong((long long)k) : PyLong_FromUnsignedLongLong(k);
    if (!stop)
        return NULL;
    PyObject *view = wkn_torch_head(a[A_OUT], stop);
    Py_DECREF(stop);
    return view;
}

static const handler handlers[] = {do_reduce, do_arg, do_scan, do_select, do_trim, NULL, do_count_nonzero};

/* ------------------------------------------------------------ the table */

#define KW_REDUCE (BIT(A_AXIS) | BIT(A_OUT) | BIT(A_STREAM))
#define KW_SCAN (BIT(A_AXIS) | BIT(A_EXCLUSIVE) | BIT(A_INITIAL) | BIT(A_OUT) | BIT(A_STREAM))
#define KW_SUM (BIT(A_DTYPE) | BIT(A_REPRO))
#define KW_SELECT (BIT(A_OUT) | BIT(A_COUNT) | BIT(A_STREAM))

enum {
    P_SUM, P_MIN, P_MAX, P_REDUCE_AND, P_REDUCE_OR, P_REDUCE_XOR, P_REDUCE, P_ARGMIN, P_ARGMAX, P_CUMSUM, P_CUMMIN,
    P_CUMMAX, P_SCAN, P_SELECT, P_SELECT_RANGE, P_PARTITION, P_NONZERO, P_UNIQUE, P_COMPRESS, P_TRIM,
    P_COUNT_NONZERO, P_COUNT
};

static fn_spec specs[P_COUNT] = {
    [P_SUM] = {"sum", "warpkit.sum", F_REDUCE, WK_SUM, 1, {A_X}, KW_REDUCE | KW_SUM, NULL},
    [P_MIN] = {"min", "warpkit.min", F_REDUCE, WK_MIN, 1, {A_X}, KW_REDUCE, NULL},
    [P_MAX] = {"max", "warpkit.max", F_REDUCE, WK_MAX, 1, {A_X}, KW_REDUCE, NULL},
    [P_REDUCE_AND] = {"reduce_and", "warpkit.reduce_and", F_REDUCE, WK_AND, 1, {A_X}, KW_REDUCE, NULL},
    [P_REDUCE_OR] = {"reduce_or", "warpkit.reduce_or", F_REDUCE, WK_OR, 1, {A_X}, KW_REDUCE, NULL},
    [P_REDUCE_XOR] = {"reduce_xor", "warpkit.reduce_xor", F_REDUCE, WK_XOR, 1, {A_X}, KW_REDUCE, NULL},
    [P_REDUCE] = {"reduce", "warpkit.reduce", F_REDUCE, -1, 2, {A_X, A_OP}, KW_REDUCE, NULL},
    [P_ARGMIN] = {"argmin", "warpkit.argmin", F_ARG, WK_ARGMIN, 1, {A_X}, BIT(A_AXIS) | BIT(A_RETURN_VALUE) | BIT(A_STREAM), NULL},
    [P_ARGMAX] = {"argmax", "warpkit.argmax", F_ARG, WK_ARGMAX, 1, {A_X}, BIT(A_AXIS) | BIT(A_RETURN_VALUE) | BIT(A_STREAM), NULL},
    [P_CUMSUM] = {"cumsum", "warpkit.cumsum", F_SCAN, WK_SUM, 1, {A_X}, KW_SCAN | BIT(A_DTYPE), NULL},
    [P_CUMMIN] = {"cummin", "warpkit.cummin", F_SCAN, WK_MIN, 1, {A_X}, KW_SCAN, NULL},
    [P_CUMMAX] = {"cummax", "warpkit.cummax", F_SCAN, WK_MAX, 1, {A_X}, KW_SCAN, NULL},
    [P_SCAN] = {"scan", "warpkit.scan", F_SCAN, -1, 2, {A_X, A_OP}, KW_SCAN, NULL},
    [P_SELECT] = {"select", "warpkit.select", F_SELECT, S_IF, 3, {A_X, A_OP, A_VALUE}, KW_SELECT, NULL},
    [P_SELECT_RANGE] = {"select_range", "warpkit.select_range", F_SELECT, S_RANGE, 3, {A_X, A_LO, A_HI}, KW_SELECT, NULL},
    [P_PARTITION] = {"partition", "warpkit.partition", F_SELECT, S_PARTITION, 3, {A_X, A_OP, A_VALUE}, KW_SELECT, NULL},
    [P_NONZERO] = {"nonzero", "warpkit.nonzero", F_SELECT, S_WHERE, 3, {A_X, A_OP, A_VALUE}, KW_SELECT, NULL},
    [P_UNIQUE] = {"unique_consecutive", "warpkit.unique_consecutive", F_SELECT, S_UNIQUE, 1, {A_X}, KW_SELECT, NULL},
    [P_COMPRESS] = {"compress", "warpkit.compress", F_COMPRESS, -1, 2, {A_MASK, A_X}, KW_SELECT, NULL},
    [P_TRIM] = {"trim", "warpkit.trim", F_TRIM, -1, 2, {A_OUT, A_COUNT}, BIT(A_STREAM), NULL},
    [P_COUNT_NONZERO] = {"count_nonzero", "warpkit.count_nonzero", F_COUNT_NONZERO, -1, 1, {A_X},
                         BIT(A_AXIS) | BIT(A_STREAM), NULL},
};

static PyObject *entry(const fn_spec *f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[A_NAMES];
    PyObject *r = FALLBACK;
    handler h = handlers[f->family];
    if (h && parse(f, args, nargs, kwnames, a))
        r = h(f, a);
    if (r == FALLBACK)
        return call_fallback(f, args, nargs, kwnames);
    return r;
}

#define PUBLIC(fn, index)                                                                                   \
    static PyObject *py_##fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)     \
    {                                                                                                       \
        (void)self;                                                                                         \
        return entry(&specs[index], args, nargs, kwnames);                                                  \
    }
PUBLIC(sum, P_SUM)
PUBLIC(min, P_MIN)
PUBLIC(max, P_MAX)
PUBLIC(reduce_and, P_REDUCE_AND)
PUBLIC(reduce_or, P_REDUCE_OR)
PUBLIC(reduce_xor, P_REDUCE_XOR)
PUBLIC(reduce, P_REDUCE)
PUBLIC(argmin, P_ARGMIN)
PUBLIC(argmax, P_ARGMAX)
PUBLIC(cumsum, P_CUMSUM)
PUBLIC(cummin, P_CUMMIN)
PUBLIC(cummax, P_CUMMAX)
PUBLIC(scan, P_SCAN)
PUBLIC(select, P_SELECT)
PUBLIC(select_range, P_SELECT_RANGE)
PUBLIC(partition, P_PARTITION)
PUBLIC(nonzero, P_NONZERO)
PUBLIC(unique_consecutive, P_UNIQUE)
PUBLIC(compress, P_COMPRESS)
PUBLIC(trim, P_TRIM)
PUBLIC(count_nonzero, P_COUNT_NONZERO)

#include "docs.h"

#define METHOD(fn) {#fn, (PyCFunction)(void (*)(void))py_##fn, METH_FASTCALL | METH_KEYWORDS, doc_##fn}
PyMethodDef wkn_call_methods[] = {
    METHOD(sum),          METHOD(min),       METHOD(max),     METHOD(reduce_and),   METHOD(reduce_or),
    METHOD(reduce_xor),   METHOD(reduce),    METHOD(argmin),  METHOD(argmax),       METHOD(cumsum),
    METHOD(cummin),       METHOD(cummax),    METHOD(scan),    METHOD(select),       METHOD(select_range),
    METHOD(partition),    METHOD(nonzero),   METHOD(unique_consecutive),            METHOD(compress),
    METHOD(trim),         METHOD(count_nonzero), {NULL, NULL, 0, NULL},
};

int wkn_calls_setup(PyObject *api)
{
    for (int i = 0; i < A_NAMES; i++)
        if (!arg_name[i] && !(arg_name[i] = PyUnicode_InternFromString(arg_names[i])))
            return -1;
    if (!zero && !(zero = PyLong_FromLong(0)))
        return -1;
    if (!one && !(one = PyLong_FromLong(1)))
        return -1;
    for (int i = 0; i < P_COUNT; i++) {
        PyObject *fn = PyObject_GetAttrString(api, specs[i].name);
        if (!fn)
            return -1;
        Py_XDECREF(specs[i].fallback);
        specs[i].fallback = fn;
    }
    PyObject *d = PyImport_ImportModule("warpkit._dtypes");
    if (!d)
        return -1;
    Py_XDECREF(compares);
    compares = PyObject_GetAttrString(d, "COMPARES");
    Py_DECREF(d);
    Py_XDECREF(reduce_ops);
    reduce_ops = PyObject_GetAttrString(api, "_REDUCE_OPS");
    Py_XDECREF(scan_ops);
    scan_ops = PyObject_GetAttrString(api, "_SCAN_OPS");
    if (!compares || !reduce_ops || !scan_ops)
        return -1;
    if (!PyDict_Check(compares) || !PyDict_Check(reduce_ops) || !PyDict_Check(scan_ops)) {
        PyErr_SetString(PyExc_TypeError, "warpkit._native.setup: the op tables are not dicts");
        return -1;
    }
    return 0;
}
