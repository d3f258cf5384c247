/* What the PyTorch and CuPy routes share: finding their library's array
 * type again after sys.modules changed, reading an array's dtype, and
 * checking a caller's output. */
#include "native.h"

int wkn_route_retype(PyObject *x, PyObject *name, PyObject *cached, wkn_route_build build)
{
    PyObject *module = wkn_module_if_loaded(name);
    if (!module || module == cached)
        return 0;
    PyTypeObject *type = build(module);
    return type && Py_TYPE(x) == type;
}

int wkn_dtype_code(PyObject *x, PyObject *const *dtypes, int *code)
{
    PyObject *dt = PyObject_GetAttr(x, wkn_name.dtype);
    if (!dt)
        return -1;
    *code = -1;
    for (int i = 0; i < WKN_DTYPES && *code < 0; i++)
        if (dtypes[i] == dt)
            *code = i;
    Py_DECREF(dt);
    return *code >= 0;
}

int wkn_out_fits(int taken, const wkn_view *o, unsigned dtypes, size_t n, int device, void **ptr)
{
    if (taken <= 0)
        return taken;
    if (!(dtypes & (1u << o->dtype)) || o->n != n || o->device != device)
        return 0;
    *ptr = o->ptr;
    return 1;
}
