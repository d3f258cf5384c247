"""Finding and loading libwarpkit.so, the ctypes prototypes, CUDA runtime
helpers and the per-device contexts.

Nothing here runs at import time: the library is loaded by the first call
that needs it (:func:`load`), so ``import warpkit`` works on a machine without
a GPU or without the library.
"""

import ctypes
import ctypes.util
import glob
import os
import re
import sys
import threading

from ._errors import Error, LibraryNotFoundError, error_for_status

c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_size_t = ctypes.c_size_t
c_uint64 = ctypes.c_uint64
c_char_p = ctypes.c_char_p


class Predicate(ctypes.Structure):
    """struct wk_predicate.  wk_value is an 8-byte union; it is declared here
    as its 64 raw bits (same size and alignment), since ctypes cannot pass a
    union by value.  The stub library of the tests is compiled against the
    real header, so a layout drift shows up there."""

    _fields_ = [("compare", c_int), ("a", c_uint64), ("b", c_uint64)]


class Segments(ctypes.Structure):
    """struct wk_segments (passed by pointer): count segments of `size`
    elements, `stride` elements apart (uniform and rows layouts), or the
    offsets layout when d_begin / d_end are set.  The stub library checks its
    layout against the header's."""

    _fields_ = [("count", c_size_t), ("size", c_size_t), ("stride", c_size_t),
                ("d_begin", c_void_p), ("d_end", c_void_p)]


# wk_value passed by value: an 8-byte union whose members include integers,
# so both the x86-64 System V and the AArch64 ABIs pass it in an integer
# register, exactly as a uint64_t holding the same bits.
_VP, _I, _N, _V = c_void_p, c_int, c_size_t, c_uint64
PROTOTYPES = {
    "wk_status_string": (c_char_p, [_I]),
    "wk_last_error_message": (c_char_p, []),
    "wk_dtype_size": (c_size_t, [_I]),
    "wk_create": (c_int, [ctypes.POINTER(c_void_p), _I]),
    "wk_destroy": (c_int, [_VP]),
    "wk_context_device": (c_int, [_VP]),
    "wk_context_sm_count": (c_int, [_VP]),
    "wk_reduce": (c_int, [_VP, _VP, _VP, _N, _I, _I, _VP]),
    "wk_reduce_repro": (c_int, [_VP, _VP, _VP, _N, _I, _VP]),
    "wk_inclusive_scan": (c_int, [_VP, _VP, _VP, _N, _I, _I, _VP]),
    "wk_exclusive_scan": (c_int, [_VP, _VP, _VP, _N, _I, _I, _V, _VP]),
    "wk_scan_reserve": (c_int, [_VP, _N, _I]),
    "wk_select_if": (c_int, [_VP, _VP, _VP, _VP, _N, _I, Predicate, _VP]),
    "wk_select_flagged": (c_int, [_VP, _VP, _VP, _VP, _VP, _N, _I, _VP]),
    "wk_partition_if": (c_int, [_VP, _VP, _VP, _VP, _N, _I, Predicate, _VP]),
    "wk_unique": (c_int, [_VP, _VP, _VP, _VP, _N, _I, _VP]),
    "wk_where": (c_int, [_VP, _VP, _VP, _VP, _N, _I, Predicate, _VP]),
}

# Newer entry points: a library without them still loads, and only the calls
# that need them (axis=) raise, naming what is missing.
_SEG = ctypes.POINTER(Segments)
OPTIONAL_PROTOTYPES = {
    "wk_segmented_reduce": (c_int, [_VP, _VP, _VP, _SEG, _I, _I, _VP]),
    "wk_segmented_reduce_repro": (c_int, [_VP, _VP, _VP, _SEG, _I, _VP]),
    "wk_segmented_inclusive_scan": (c_int, [_VP, _VP, _VP, _SEG, _I, _I, _VP]),
    "wk_segmented_exclusive_scan": (c_int, [_VP, _VP, _VP, _SEG, _I, _I, _V, _VP]),
}

# CUDA runtime entry points used by the generic array path (the
# __cuda_array_interface__ stream rule and the pointer's device).
CUDART_PROTOTYPES = {
    "cudaGetDevice": (c_int, [ctypes.POINTER(c_int)]),
    "cudaSetDevice": (c_int, [c_int]),
    "cudaPointerGetAttributes": (c_int, [c_void_p, c_void_p]),
    "cudaEventCreateWithFlags": (c_int, [ctypes.POINTER(c_void_p), ctypes.c_uint]),
    "cudaEventRecord": (c_int, [c_void_p, c_void_p]),
    "cudaStreamWaitEvent": (c_int, [c_void_p, c_void_p, ctypes.c_uint]),
    "cudaStreamSynchronize": (c_int, [c_void_p]),
    "cudaGetErrorString": (c_char_p, [c_int]),
    "cudaGetLastError": (c_int, []),
}


class Library:
    """The loaded library: one attribute per wk_* function, prototypes set."""

    def __init__(self, cdll, path):
        self.cdll = cdll
        self.path = path
        missing = []
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                missing.append(name)
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        if missing:
            raise LibraryNotFoundError(
                "warpkit: %s lacks %s: it is not a warpkit library, or an older one than this "
                "package (%s)" % (path, ", ".join(missing), __name__))
        for name, (restype, argtypes) in OPTIONAL_PROTOTYPES.items():
            fn = getattr(cdll, name, None)
            if fn is None:
                fn = _lacking(path, name)
            else:
                fn.restype = restype
                fn.argtypes = argtypes
            setattr(self, name, fn)
        self._cudart = None

    # --- CUDA runtime ------------------------------------------------------
    def cudart(self):
        """An object with the CUDA runtime functions warpkit's generic array
        path needs: looked up through libwarpkit.so's own dependencies first
        (the same libcudart it uses), else a libcudart found on the system."""
        if self._cudart is None:
            self._cudart = _load_cudart(self.cdll)
        return self._cudart

    def status_text(self, status):
        try:
            return self.wk_status_string(status).decode("utf-8", "replace")
        except Exception:
            return ""

    def error(self, status, what):
        """The exception for a failed call (to raise), with the C detail;
        `what` names the Python call ("warpkit.sum: x": the part before the
        colon is used)."""
        detail = self.wk_last_error_message()
        detail = detail.decode("utf-8", "replace") if detail else ""
        err = error_for_status(status, detail, self.status_text(status))
        if what:
            err.args = ("%s: %s" % (what.split(":")[0], err.message),)
        return err


def _lacking(path, name):
    """Stands for an optional entry point the loaded library does not have."""

    def missing(*args):
        raise LibraryNotFoundError(
            "warpkit: %s lacks %s (an older library than this package): axis= needs a libwarpkit.so "
            "built from the same sources as the package" % (path, name))

    missing.lacking = True
    return missing


class _Cudart:
    def __init__(self, handle, origin):
        self.origin = origin
        for name, (restype, argtypes) in CUDART_PROTOTYPES.items():
            fn = getattr(handle, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def check(self, err, what):
        if err:
            self.cudaGetLastError()
            msg = self.cudaGetErrorString(err)
            msg = msg.decode("utf-8", "replace") if msg else "error %d" % err
            # cudaErrorInsufficientDriver, cudaErrorNoDevice -> WK_ERROR_NO_DEVICE
            status = 6 if err in (35, 100) else 8
            raise error_for_status(status, "warpkit: %s: %s" % (what, msg))


def _load_cudart(cdll):
    try:
        return _Cudart(cdll, "libwarpkit's dependencies")
    except AttributeError:
        pass
    names = []
    try:
        with open("/proc/self/maps") as f:
            names = sorted(set(re.findall(r"(/\S*libcudart\.so[.\d]*)", f.read())))
    except OSError:
        pass
    names += ["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"]
    for name in names:
        try:
            return _Cudart(ctypes.CDLL(name), name)
        except (OSError, AttributeError):
            continue
    raise LibraryNotFoundError("warpkit: no CUDA runtime (libcudart) found for the array-interface path")


# ------------------------------------------------------------------ loading
_lock = threading.Lock()
_library = None
_tried = []


def candidates():
    """Where the library is looked for, in order: $WARPKIT_LIBRARY, next to
    this package, then the system loader."""
    env = os.environ.get("WARPKIT_LIBRARY")
    if env:
        return [env]  # explicit: no fallback that would hide a wrong path
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, n) for n in ("libwarpkit.so", "libwarpkit.so.0")]
    found = ctypes.util.find_library("warpkit")
    if found:
        out.append(found)
    out += ["libwarpkit.so.0", "libwarpkit.so"]
    return out


def _preload_cudart(message):
    """libwarpkit.so needs a libcudart the loader did not find: look for it in
    the usual places (CUDA_HOME, /usr/local/cuda, the nvidia-cuda-runtime
    wheel) and load it globally.  True if something was loaded."""
    m = re.search(r"(libcudart\.so[.\d]*)", message)
    if not m:
        return False
    name = m.group(1)
    dirs = []
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(var):
            dirs += [os.path.join(os.environ[var], "lib64"), os.path.join(os.environ[var], "lib")]
    dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
             "/usr/local/cuda/targets/sbsa-linux/lib"]
    for p in sys.path:
        dirs += glob.glob(os.path.join(p, "nvidia", "cuda_runtime", "lib"))
        dirs += glob.glob(os.path.join(p, "nvidia", "cu*", "lib"))
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.exists(path):
            try:
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                return True
            except OSError:
                continue
    return False


def load():
    """The loaded library (loading it on first use)."""
    global _library
    if _library is not None:
        return _library
    with _lock:
        if _library is not None:
            return _library
        errors = []
        for path in candidates():
            is_path = os.sep in path
            if is_path and not os.path.exists(path):
                errors.append("%s: no such file" % path)
                continue
            try:
                try:
                    cdll = ctypes.CDLL(path)
                except OSError as e:
                    if "libcudart" in str(e) and _preload_cudart(str(e)):
                        cdll = ctypes.CDLL(path)
                    else:
                        raise
            except OSError as e:
                errors.append(str(e))
                continue
            _library = Library(cdll, getattr(cdll, "_name", path))
            return _library
        _tried[:] = errors
        raise LibraryNotFoundError(
            "warpkit: cannot load libwarpkit.so. Tried:\n  " + "\n  ".join(errors) +
            "\nSet WARPKIT_LIBRARY=/path/to/libwarpkit.so, or install the package with the "
            "library bundled (pip install ./python from the repository).")


def _reset_for_tests():
    """Forget the loaded library and contexts (tests load a stub library)."""
    global _library
    with _lock:
        _library = None
        _contexts.clear()


# ----------------------------------------------------------------- contexts
# One C context per device, created on first use and kept for the life of the
# process.  They are deliberately never destroyed: wk_destroy synchronizes the
# device, and at interpreter exit the CUDA runtime (or PyTorch / CuPy, whose
# streams may still run warpkit kernels) may already be shutting down; the
# process exit returns the memory (a few hundred KiB per device).
_contexts = {}
_ctx_lock = threading.Lock()


def context(device):
    """The context handle (an int) for `device` (create it on first use)."""
    ctx = _contexts.get(device)
    if ctx is not None:
        return ctx
    lib = load()
    with _ctx_lock:
        ctx = _contexts.get(device)
        if ctx is None:
            handle = c_void_p()
            status = lib.wk_create(ctypes.byref(handle), device)
            if status:
                raise lib.error(status, "warpkit (creating the context of device %d)" % device)
            ctx = handle.value
            _contexts[device] = ctx
    return ctx


__all__ = ["Error", "load", "context", "candidates"]
