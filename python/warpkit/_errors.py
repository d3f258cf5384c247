"""Exceptions, and the one table that maps a C ``wk_status`` to them.

Every status the C library returns reaches Python as a subclass of
:class:`warpkit.Error` carrying ``status`` (the integer code), ``status_name``
(the header's enumerator, e.g. ``"WK_ERROR_UNSUPPORTED"``) and the library's
detail message (``wk_last_error_message()``).  A code this table does not know
(a newer library) becomes a plain :class:`warpkit.Error`.
"""


class Error(Exception):
    """An error reported by the warpkit C library (or by loading it)."""

    def __init__(self, message, status=None, status_name=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name


class InvalidArgumentError(Error, ValueError):
    """WK_ERROR_INVALID_ARGUMENT, WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP."""


class InvalidPointerError(InvalidArgumentError):
    """WK_ERROR_INVALID_POINTER: a host or foreign-device pointer, or misaligned."""


class UnsupportedError(Error, NotImplementedError):
    """WK_ERROR_UNSUPPORTED: an op that makes no sense for the dtype (or size)."""


class NoDeviceError(Error, RuntimeError):
    """WK_ERROR_NO_DEVICE: no CUDA device, or no usable driver."""


class OutOfMemoryError(Error, MemoryError):
    """WK_ERROR_OUT_OF_MEMORY: an allocation failed."""


class CudaError(Error, RuntimeError):
    """WK_ERROR_CUDA: the CUDA runtime reported an error."""


class CaptureError(Error, RuntimeError):
    """WK_ERROR_CAPTURE: a call that waits for the host was made while its
    stream is being captured into a CUDA graph, or the capture is broken."""


class LimitError(Error, ValueError):
    """WK_ERROR_LIMIT: a size or growth limit was reached."""


class LibraryNotFoundError(Error, OSError):
    """libwarpkit.so could not be found or loaded."""


# The C status codes (include/warpkit.h, enum wk_status) and their exception
# classes: the only place they are listed.  tests/test_tables.py checks every
# enumerator of the header against this table.
STATUS = {
    "WK_SUCCESS": (0, None),
    "WK_ERROR_INVALID_ARGUMENT": (1, InvalidArgumentError),
    "WK_ERROR_INVALID_DTYPE": (2, InvalidArgumentError),
    "WK_ERROR_INVALID_OP": (3, InvalidArgumentError),
    "WK_ERROR_UNSUPPORTED": (4, UnsupportedError),
    "WK_ERROR_INVALID_POINTER": (5, InvalidPointerError),
    "WK_ERROR_NO_DEVICE": (6, NoDeviceError),
    "WK_ERROR_OUT_OF_MEMORY": (7, OutOfMemoryError),
    "WK_ERROR_CUDA": (8, CudaError),
    "WK_ERROR_CAPTURE": (9, CaptureError),
    "WK_ERROR_LIMIT": (10, LimitError),
}

_BY_CODE = {code: (name, cls) for name, (code, cls) in STATUS.items()}


def error_for_status(status, detail="", status_string=""):
    """The exception for a nonzero C status (not raised)."""
    name, cls = _BY_CODE.get(status, (None, None))
    if cls is None:
        cls = Error
    text = detail or status_string or (name or "unknown status")
    if name is None:
        text = "%s (wk_status %d)" % (text, status)
    return cls(text, status, name)


def _text(b):
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else (b or "")


def for_call(status, detail, status_string, what):
    """The exception (not raised) for a failed C call made for `what` (the
    Python call, "warpkit.sum: x": the part before the colon names it)."""
    err = error_for_status(status, _text(detail), _text(status_string))
    if what:
        err.args = ("%s: %s" % (what.split(":")[0], err.message),)
    return err


def for_cuda(err, message, what):
    """The exception (not raised) for a failed CUDA runtime call `what`."""
    # cudaErrorInsufficientDriver and cudaErrorNoDevice mean no usable device.
    status = 6 if err in (35, 100) else 8
    return error_for_status(status, "warpkit: %s: %s" % (what, _text(message) or "error %d" % err))
