"""Finding and loading libwarpkit.so for the extension module, and the CUDA
runtime beside it.

Nothing here runs at import time: the extension asks for the library at
its first call (:func:`load`), so ``import warpkit`` works on a machine
without a GPU or without the library.  The extension (``warpkit._native``)
opens the file and takes its entry points; this module decides where to
look and says what went wrong.
"""

import glob
import os
import re
import sys
import threading

from ._errors import LibraryNotFoundError

try:
    from . import _native
except ImportError as e:  # a source tree where the extension is not built
    _native = None
    NATIVE_ERROR = e
else:
    NATIVE_ERROR = None


def native():
    """The extension module; LibraryNotFoundError (at a call, not at import)
    when it is not built."""
    if _native is None:
        raise LibraryNotFoundError(
            "warpkit: the extension module warpkit._native is not built (%s). Install the package "
            "(pip install ./python from the repository), or build it in place: "
            "python python/setup.py build_ext --inplace" % NATIVE_ERROR)
    return _native


_lock = threading.Lock()


def candidates():
    """Where the library is looked for, in order: $WARPKIT_LIBRARY, next to
    this package, then the system loader."""
    env = os.environ.get("WARPKIT_LIBRARY")
    if env:
        return [env]  # explicit: no fallback that would hide a wrong path
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, n) for n in ("libwarpkit.so", "libwarpkit.so.0")] + ["libwarpkit.so.0",
                                                                                     "libwarpkit.so"]


def _cuda_dirs():
    dirs = []
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(var):
            dirs += [os.path.join(os.environ[var], "lib64"), os.path.join(os.environ[var], "lib")]
    dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
             "/usr/local/cuda/targets/sbsa-linux/lib"]
    for p in sys.path:
        dirs += glob.glob(os.path.join(p, "nvidia", "cuda_runtime", "lib"))
        dirs += glob.glob(os.path.join(p, "nvidia", "cu*", "lib"))
    return dirs


def _preload_cudart(message):
    """libwarpkit.so needs a libcudart the loader did not find: look for it in
    the usual places (CUDA_HOME, /usr/local/cuda, the nvidia-cuda-runtime
    wheel) and load it globally.  True if something was loaded."""
    m = re.search(r"(libcudart\.so[.\d]*)", message)
    if not m:
        return False
    for d in _cuda_dirs():
        path = os.path.join(d, m.group(1))
        if os.path.exists(path) and native().open_global(path):
            return True
    return False


def load():
    """The path of the loaded library (loading it on first use)."""
    nat = native()
    path = nat.loaded_path()
    if path is not None:
        return path
    with _lock:
        path = nat.loaded_path()
        if path is not None:
            return path
        errors = []
        for path in candidates():
            if os.sep in path and not os.path.exists(path):
                errors.append("%s: no such file" % path)
                continue
            try:
                try:
                    missing = nat.open(path)
                except OSError as e:
                    if "libcudart" in str(e) and _preload_cudart(str(e)):
                        missing = nat.open(path)
                    else:
                        raise
            except OSError as e:
                errors.append(str(e))
                continue
            if missing:
                raise LibraryNotFoundError(
                    "warpkit: %s lacks %s: it is not a warpkit library, or an older one than this "
                    "package (%s)" % (path, ", ".join(missing), __name__))
            return path
        raise LibraryNotFoundError(
            "warpkit: cannot load libwarpkit.so. Tried:\n  " + "\n  ".join(errors) +
            "\nSet WARPKIT_LIBRARY=/path/to/libwarpkit.so, or install the package with the "
            "library bundled (pip install ./python from the repository).")


def find_cudart():
    """Gives the extension a CUDA runtime when libwarpkit's dependencies do
    not export one: the libcudart already in the process, then the usual
    names."""
    nat = native()
    names = []
    try:
        with open("/proc/self/maps") as f:
            names = sorted(set(re.findall(r"(/\S*libcudart\.so[.\d]*)", f.read())))
    except OSError:
        pass
    names += ["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"]
    for d in _cuda_dirs():
        names += sorted(glob.glob(os.path.join(d, "libcudart.so*")))
    for name in names:
        if nat.open_cudart(name):
            return
    raise LibraryNotFoundError("warpkit: no CUDA runtime (libcudart) found for the array-interface path")


def _reset_for_tests():
    """Forget the loaded library and contexts (tests load a stub library)."""
    if _native is not None:
        _native.reset()


__all__ = ["load", "candidates", "native", "find_cudart"]
