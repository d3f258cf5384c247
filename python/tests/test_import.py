"""Importing warpkit needs neither a GPU, nor the library, nor torch / CuPy."""

import os
import subprocess
import sys

from conftest import PKG


def run(code, **env):
    e = dict(os.environ, PYTHONPATH=PKG + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)


def test_import_is_lazy():
    r = run("import sys, warpkit\n"
            "heavy = [m for m in ('torch', 'cupy', 'jax', 'numpy') if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "assert warpkit._lib._library is None\n"
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
