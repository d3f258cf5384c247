"""Importing warpkit needs neither a GPU, nor the library, nor torch / CuPy."""

import os
import subprocess
import sys

import warpkit
from conftest import PKG


def run(code, **env):
    """`code` in a new interpreter that imports the warpkit these tests use
    (installed, or the source tree with its extension built in place)."""
    where = os.path.dirname(os.path.dirname(os.path.abspath(warpkit.__file__)))
    e = dict(os.environ, PYTHONPATH=where + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)


def test_import_is_lazy():
    r = run("import sys, warpkit\n"
            "heavy = [m for m in ('torch', 'cupy', 'jax', 'numpy') if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "assert warpkit._lib._native.loaded_path() is None\n"
            "print(len(warpkit.__all__))", WARPKIT_LIBRARY="/nonexistent/libwarpkit.so")
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) > 20


def test_first_call_without_library_raises_clearly():
    r = run("import warpkit\n"
            "try:\n"
            "    warpkit.sum(object())\n"
            "except warpkit.LibraryNotFoundError as e:\n"
            "    assert isinstance(e, OSError) and isinstance(e, warpkit.Error)\n"
            "    print(e)\n", WARPKIT_LIBRARY="/nonexistent/libwarpkit.so")
    assert r.returncode == 0, r.stderr
    assert "/nonexistent/libwarpkit.so" in r.stdout and "WARPKIT_LIBRARY" in r.stdout


def test_not_a_library(tmp_path):
    bogus = tmp_path / "libwarpkit.so"
    bogus.write_bytes(b"not an ELF file")
    r = run("import warpkit\n"
            "try:\n"
            "    warpkit.library_path()\n"
            "except warpkit.LibraryNotFoundError as e:\n"
            "    print('ok', e)\n", WARPKIT_LIBRARY=str(bogus))
    assert r.stdout.startswith("ok"), r.stdout + r.stderr


def test_public_functions_are_the_extensions():
    import warpkit._native as native
    for name in ("sum", "min", "max", "reduce", "argmax", "cumsum", "scan", "select", "compress", "trim"):
        fn = getattr(warpkit, name)
        assert fn is getattr(native, name), name
        assert fn.__doc__ and "--" not in fn.__doc__.split("\n")[0], name
    import inspect
    assert list(inspect.signature(warpkit.sum).parameters) == ["x", "axis", "dtype", "out", "stream", "reproducible"]


def test_no_ctypes_in_the_package():
    pkg = os.path.join(PKG, "warpkit")
    for name in os.listdir(pkg):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name)) as f:
                text = f.read()
            assert "import ctypes" not in text and "from ctypes" not in text, name


def test_without_the_extension_the_first_call_raises():
    r = run("import sys\n"
            "sys.modules['warpkit._native'] = None  # as in a source tree where it is not built\n"
            "import warpkit\n"
            "try:\n"
            "    warpkit.sum(object())\n"
            "except warpkit.LibraryNotFoundError as e:\n"
            "    print('ok', e)\n")
    assert r.returncode == 0 and r.stdout.startswith("ok"), r.stdout + r.stderr
    assert "warpkit._native is not built" in r.stdout and "pip install ./python" in r.stdout
