/* The module warpkit._native: its functions from the other files, the
 * interned names they use, and setup(), which the package calls at import
 * to hand over its Python route. */
#include "native.h"

wkn_names wkn_name;

static PyObject *modules_dict; /* sys.modules */

PyObject *wkn_module_if_loaded(PyObject *name)
{
    if (!modules_dict && !(modules_dict = PyImport_GetModuleDict()))
        return NULL;
    PyObject *m = PyDict_GetItemWithError(modules_dict, name);
    if (!m)
        PyErr_Clear();
    return m;
}

void wkn_routes_clear(void)
{
    wkn_routes_clear_torch();
    wkn_routes_clear_cupy();
}

/* setup(api): the module (warpkit._api) whose functions of the same names
 * serve every call the public functions here do not. */
static PyObject *py_setup(PyObject *self, PyObject *api)
{
    (void)self;
    if (wkn_calls_setup(api) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef setup_methods[] = {
    {"setup", py_setup, METH_O, "setup(api): the Python route of the public functions"},
    {NULL, NULL, 0, NULL},
};

static int intern_names(void)
{
    struct {
        PyObject **slot;
        const char *text;
    } names[] = {
        {&wkn_name.dtype, "dtype"},         {&wkn_name.data, "data"},
        {&wkn_name.ptr, "ptr"},             {&wkn_name.device_id, "device_id"},
        {&wkn_name.size, "size"},           {&wkn_name.flags, "flags"},
        {&wkn_name.c_contiguous, "c_contiguous"}, {&wkn_name.torch, "torch"},
        {&wkn_name.cupy, "cupy"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!*names[i].slot && !(*names[i].slot = PyUnicode_InternFromString(names[i].text)))
            return -1;
    return 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "warpkit._native",
    "The extension between warpkit's Python package and libwarpkit (see native/native.h).",
    -1,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (intern_names() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (PyModule_AddFunctions(m, setup_methods) < 0 || PyModule_AddFunctions(m, wkn_library_methods) < 0 ||
        PyModule_AddFunctions(m, wkn_lowlevel_methods) < 0 || PyModule_AddFunctions(m, wkn_call_methods) < 0 ||
        PyModule_AddIntConstant(m, "abi", Py_LIMITED_API) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
