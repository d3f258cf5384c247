"""NumPy arrays in host memory standing in for device arrays, for the CPU
tests whose stub library computes on the memory it is given (its segmented
calls with stub_compute set): inputs through __cuda_array_interface__, and
outputs made by HostOutLib, poisoned first."""

from warpkit import _dtypes as D


class HostArray:
    """A NumPy array presented through __cuda_array_interface__ (the stub
    says every pointer is device memory and computes on it)."""

    def __init__(self, a):
        self.a = a

    @property
    def shape(self):
        return self.a.shape

    @property
    def __cuda_array_interface__(self):
        a = self.a
        return {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, False),
                "strides": None if a.flags.c_contiguous else a.strides, "version": 3}

    def __getitem__(self, k):
        return HostArray(self.a[k])


class HostOutLib:
    """Outputs in host memory (NumPy `np`), filled with a poison byte first."""

    name = "host"

    def __init__(self, np):
        self.np = np

    def alloc(self, shape, dt, dev, stream=None):
        np = self.np
        a = np.empty(shape, dtype=np.dtype(D.NAME[dt]))
        a.reshape(-1).view(np.uint8).fill(0xA5)
        return HostArray(a), a.ctypes.data

    def reinterpret(self, a, dt):
        return HostArray(a.a.view(self.np.dtype(D.NAME[dt])))

    def owns(self, a):
        return isinstance(a, HostArray)
