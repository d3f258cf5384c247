"""C statuses reach Python as the right exception, with the C message."""

import pytest

import warpkit
from conftest import FakeArray
from warpkit import _errors as E

CASES = [
    (1, warpkit.InvalidArgumentError, ValueError),
    (2, warpkit.InvalidArgumentError, ValueError),
    (3, warpkit.InvalidArgumentError, ValueError),
    (4, warpkit.UnsupportedError, NotImplementedError),
    (5, warpkit.InvalidPointerError, ValueError),
    (6, warpkit.NoDeviceError, RuntimeError),
    (7, warpkit.OutOfMemoryError, MemoryError),
    (8, warpkit.CudaError, RuntimeError),
    (E.STATUS["WK_ERROR_CAPTURE"][0], warpkit.CaptureError, RuntimeError),
    (E.STATUS["WK_ERROR_LIMIT"][0], warpkit.LimitError, ValueError),
]


@pytest.mark.parametrize("status,cls,builtin", CASES)
@pytest.mark.parametrize("call", ["sum", "cumsum", "select", "compress", "argmax"])
def test_status_maps_to_exception(stub, status, cls, builtin, call):
    stub.fail(status, "detail %d: what the C library said" % status)
    x = FakeArray(0x5000, (8,), "<f4")
    with pytest.raises(cls) as info:
        {"sum": lambda: warpkit.sum(x), "cumsum": lambda: warpkit.cumsum(x),
         "select": lambda: warpkit.select(x, "<", 1.0),
         "compress": lambda: warpkit.compress(FakeArray(0x6000, (8,), "|b1"), x),
         "argmax": lambda: warpkit.argmax(x)}[call]()
    e = info.value
    assert isinstance(e, warpkit.Error) and isinstance(e, builtin)
    assert e.status == status and e.status_name.startswith("WK_ERROR_")
    assert str(e) == "warpkit.%s: detail %d: what the C library said" % (call, status)
    assert e.message == "detail %d: what the C library said" % status


def test_unknown_status_is_base_error(stub):
    stub.fail(42, "")
    with pytest.raises(warpkit.Error) as info:
        warpkit.sum(FakeArray(0x5000, (8,), "<f4"))
    assert type(info.value) is warpkit.Error and info.value.status == 42
    assert "unknown status" in str(info.value) and "42" in str(info.value)


def test_every_status_has_a_distinct_class_per_family():
    classes = {cls for _, cls in E.STATUS.values() if cls}
    assert all(issubclass(c, warpkit.Error) for c in classes)
    assert len(classes) == 8
