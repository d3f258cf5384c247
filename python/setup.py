"""Build step of the warpkit Python package.

Builds the C library with CMake (the project is the repository root, one
level above this folder: only the `warpkit` shared library target, tests and
tools off) and copies libwarpkit.so into the package, and builds the
extension module warpkit._native (native/*.c) against CPython's limited API
of Python 3.10: one wheel, tagged cp310-abi3-<platform>, serves every Python
from 3.10 on.  The extension needs a C compiler and Python's headers, not the
CUDA toolkit: it opens libwarpkit.so at run time.

Environment:
  WARPKIT_BUNDLE_LIBRARY=/path/libwarpkit.so  bundle this file instead of building
  WARPKIT_BUNDLE_LIBRARY=none                 bundle nothing (the wheel finds the
                                              library at run time)
  CMAKE_ARGS="..."                            extra arguments for the CMake configure
  WARPKIT_CMAKE_BUILD_DIR=DIR                 CMake build folder (default: build/cmake here)
  CMAKE_BUILD_PARALLEL_LEVEL=N                parallel build jobs (read by CMake)
"""

import os
import re
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUNDLE = os.environ.get("WARPKIT_BUNDLE_LIBRARY", "")


def version():
    try:
        text = open(os.path.join(ROOT, "include", "warpkit.h")).read()
        parts = [re.search(r"#define WARPKIT_VERSION_%s (\d+)" % k, text).group(1)
                 for k in ("MAJOR", "MINOR", "PATCH")]
        return ".".join(parts)
    except (OSError, AttributeError):
        return "0.1.0"


def build_library():
    """Configure and build the `warpkit` target; the path of libwarpkit.so."""
    if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
        raise RuntimeError(
            "warpkit: the CMake project (%s) is not there. Build from the repository checkout "
            "(pip >= 21.3 builds in place: pip install ./python), or set WARPKIT_BUNDLE_LIBRARY to a "
            "built libwarpkit.so (or to 'none')." % os.path.join(ROOT, "CMakeLists.txt"))
    cmake = shutil.which("cmake")
    if not cmake:
        raise RuntimeError("warpkit: cmake is needed to build libwarpkit.so (or set WARPKIT_BUNDLE_LIBRARY)")
    build = os.environ.get("WARPKIT_CMAKE_BUILD_DIR") or os.path.join(HERE, "build", "cmake")
    configure = [cmake, "-S", ROOT, "-B", build, "-DWARPKIT_BUILD_TESTS=OFF", "-DWARPKIT_BUILD_TOOLS=OFF"]
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += ["-DCMAKE_BUILD_TYPE=Release"]
    configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
    subprocess.check_call(configure)
    subprocess.check_call([cmake, "--build", build, "--target", "warpkit"])
    lib = os.path.join(build, "src", "libwarpkit.so")
    if not os.path.exists(lib):
        raise RuntimeError("warpkit: the build did not produce %s" % lib)
    return lib


def bundled_path(path):
    """WARPKIT_BUNDLE_LIBRARY as a file: a relative path is taken from the
    directory pip was started in ($PWD), else the repository root."""
    if os.path.isabs(path):
        return path
    for base in (os.environ.get("PWD", ""), ROOT, HERE):
        p = os.path.join(base, path)
        if base and os.path.exists(p):
            return p
    raise RuntimeError("warpkit: WARPKIT_BUNDLE_LIBRARY=%s: no such file" % path)


class BuildPy(build_py):
    def run(self):
        super().run()
        if BUNDLE.lower() == "none":
            return
        lib = bundled_path(BUNDLE) if BUNDLE else build_library()
        dest = os.path.join(self.build_lib, "warpkit", "libwarpkit.so")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.realpath(lib), dest)  # the file, not the symlink chain


class StableAbiWheel(bdist_wheel):
    """cp310-abi3-<platform>: every CPython from 3.10, one platform."""

    def finalize_options(self):
        self.py_limited_api = "cp310"
        super().finalize_options()


def native_extension():
    header = os.path.join(ROOT, "include", "warpkit.h")
    if not os.path.exists(header):
        raise RuntimeError("warpkit: %s is not there: the extension is built against the C header; build "
                           "from the repository checkout" % header)
    sources = sorted(os.path.join("native", f) for f in os.listdir(os.path.join(HERE, "native")) if f.endswith(".c"))
    return Extension(
        "warpkit._native", sources=sources, py_limited_api=True,
        define_macros=[("Py_LIMITED_API", "0x030A0000"), ("_GNU_SOURCE", None)],
        include_dirs=[os.path.join(HERE, "native", "include"), os.path.join(ROOT, "include")],
        depends=[os.path.join("native", f) for f in ("native.h", "docs.h")] + [header],
        extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
        libraries=["dl"])


setup(version=version(), ext_modules=[native_extension()],
      cmdclass={"build_py": BuildPy, "bdist_wheel": StableAbiWheel})
