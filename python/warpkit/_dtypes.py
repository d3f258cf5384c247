"""The dtype, op and compare tables (values of include/warpkit.h), and the
encoding of Python scalars into a ``wk_value`` (passed as its 64 raw bits)."""

import math
import struct

# wk_dtype: name -> (code, itemsize, kind); kind "i" signed, "u" unsigned,
# "f" float, "b" bool.
DTYPES = {
    "int32": (0, 4, "i"),
    "uint32": (1, 4, "u"),
    "int64": (2, 8, "i"),
    "uint64": (3, 8, "u"),
    "float32": (4, 4, "f"),
    "float64": (5, 8, "f"),
    "float16": (6, 2, "f"),
    "bfloat16": (7, 2, "f"),
    "bool": (8, 1, "b"),
    "uint8": (9, 1, "u"),
    "int8": (10, 1, "i"),
    "int16": (11, 2, "i"),
    "uint16": (12, 2, "u"),
}
I32, U32, I64, U64, F32, F64, F16, BF16, BOOL, UINT8, INT8, INT16, UINT16 = range(13)

NAME = {code: name for name, (code, _, _) in DTYPES.items()}
ITEMSIZE = {code: size for _, (code, size, _) in DTYPES.items()}
KIND = {code: kind for _, (code, _, kind) in DTYPES.items()}
FLOATS = frozenset((F32, F64, F16, BF16))
INTEGERS = frozenset(code for code, kind in KIND.items() if kind in "iu")
SUPPORTED = ", ".join(DTYPES)
# The narrow dtypes came with the C library's 0.3.0.
NARROW = frozenset((BOOL, UINT8, INT8, INT16, UINT16))

# The sums the C library keeps in a wider dtype than its input's
# (wk_sum_widens): input -> the result dtypes wk_reduce_to takes.
_WIDER_INTS = frozenset((I32, U32, I64, U64))
WIDER_SUMS = {
    BOOL: _WIDER_INTS, UINT8: _WIDER_INTS, INT8: _WIDER_INTS, INT16: _WIDER_INTS, UINT16: _WIDER_INTS,
    I32: frozenset((I64, U64)), U32: frozenset((I64, U64)),
    F16: frozenset((F32,)), BF16: frozenset((F32,)), F32: frozenset((F64,)),
}


def sum_dtype(dtype, rule):
    """The dtype of a sum (and sum scan) of `dtype` without dtype= or out=:
    rule "torch" (torch.sum: bool and every integer into int64), "numpy"
    (numpy.sum: bool and signed integers into int64, unsigned into uint64)
    or "jax32" (jnp.sum with 64-bit types off: int32 / uint32 instead).
    Floats keep their dtype."""
    kind = KIND[dtype]
    if kind == "f":
        return dtype
    if rule == "torch":
        return I64
    unsigned = kind == "u"
    if rule == "jax32":
        return U32 if unsigned else I32
    return U64 if unsigned else I64


def sum_plan(dtype, result):
    """How a sum of `dtype` written as `result` is computed: "plain" (in the
    input's dtype: the same dtype, or integers of one width, whose sums have
    the same bits), "or" (bool into bool: a logical or, as PyTorch and NumPy
    add bools), "widen" (wk_reduce_to and the _to scans) or "convert" (the
    input converted to `result` by its own library first: one more pass)."""
    if dtype == result:
        return "or" if dtype == BOOL else "plain"
    if result in WIDER_SUMS.get(dtype, ()):
        return "widen"
    if KIND[dtype] in "iu" and KIND[result] in "iu" and ITEMSIZE[dtype] == ITEMSIZE[result]:
        return "plain"
    return "convert"


# __cuda_array_interface__ typestr -> dtype code (bfloat16 has no typestr).
TYPESTR = {
    "<i4": I32, "<u4": U32, "<i8": I64, "<u8": U64,
    "<f4": F32, "<f8": F64, "<f2": F16,
    "|b1": BOOL, "|u1": UINT8, "<b1": BOOL, "<u1": UINT8, "|i1": INT8, "<i1": INT8,
    "<i2": INT16, "<u2": UINT16,
}
# DLPack (type code, bits, lanes) -> dtype code.
DLPACK = {
    (0, 32, 1): I32, (1, 32, 1): U32, (0, 64, 1): I64, (1, 64, 1): U64,
    (2, 32, 1): F32, (2, 64, 1): F64, (2, 16, 1): F16, (4, 16, 1): BF16,
    (6, 8, 1): BOOL, (1, 8, 1): UINT8, (0, 8, 1): INT8, (0, 16, 1): INT16, (1, 16, 1): UINT16,
}

# wk_op
OPS = {"sum": 0, "min": 1, "max": 2, "and": 3, "or": 4, "xor": 5, "argmin": 6, "argmax": 7}
SUM, MIN, MAX, AND, OR, XOR, ARGMIN, ARGMAX = range(8)
OP_NAME = {code: name for name, code in OPS.items()}

# wk_compare
LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL, IN_RANGE, IS_NAN, NOT_NAN = range(9)
COMPARES = {
    "<": LESS, "lt": LESS, "less": LESS,
    "<=": LESS_EQUAL, "le": LESS_EQUAL, "less_equal": LESS_EQUAL,
    ">": GREATER, "gt": GREATER, "greater": GREATER,
    ">=": GREATER_EQUAL, "ge": GREATER_EQUAL, "greater_equal": GREATER_EQUAL,
    "==": EQUAL, "eq": EQUAL, "equal": EQUAL,
    "!=": NOT_EQUAL, "ne": NOT_EQUAL, "not_equal": NOT_EQUAL,
    "isnan": IS_NAN, "is_nan": IS_NAN,
    "notnan": NOT_NAN, "not_nan": NOT_NAN,
}
# The names of the header's enumerators (checked against it by the tests).
HEADER_COMPARES = {
    "WK_LESS": LESS, "WK_LESS_EQUAL": LESS_EQUAL, "WK_GREATER": GREATER,
    "WK_GREATER_EQUAL": GREATER_EQUAL, "WK_EQUAL": EQUAL, "WK_NOT_EQUAL": NOT_EQUAL,
    "WK_IN_RANGE": IN_RANGE, "WK_IS_NAN": IS_NAN, "WK_NOT_NAN": NOT_NAN,
}
SELECT_OPS = '"<", "<=", ">", ">=", "==", "!=", "isnan", "notnan"'


def parse_compare(op, what):
    """The wk_compare code of a select op string ("<", "isnan", ...)."""
    code = COMPARES.get(op) if isinstance(op, str) else None
    if code is None:
        raise ValueError("%s: op %r is not one of %s" % (what, op, SELECT_OPS))
    return code


# Float formats: (significand bits incl. the hidden one, lowest normal exponent
# e such that 2**e is the smallest normal, largest finite value).
_FLOAT_FORMAT = {
    F16: (11, -14, 65504.0),
    BF16: (8, -126, float.fromhex("0x1.fep127")),
    F32: (24, -126, float.fromhex("0x1.fffffep127")),
}
_INT_RANGE = {
    BOOL: (0, 1),
    UINT8: (0, (1 << 8) - 1),
    INT8: (-(1 << 7), (1 << 7) - 1),
    INT16: (-(1 << 15), (1 << 15) - 1),
    UINT16: (0, (1 << 16) - 1),
    I32: (-(1 << 31), (1 << 31) - 1),
    U32: (0, (1 << 32) - 1),
    I64: (-(1 << 63), (1 << 63) - 1),
    U64: (0, (1 << 64) - 1),
}


def round_float(v, dtype):
    """v rounded to nearest-even in the float dtype, as a Python float
    (+-inf past the largest finite value, as IEEE conversion does)."""
    if dtype == F64 or v != v or v in (math.inf, -math.inf) or v == 0.0:
        return v
    p, emin, big = _FLOAT_FORMAT[dtype]
    _, e = math.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1
    quantum = math.ldexp(1.0, max(e - 1, emin) - (p - 1))
    r = float(round(v / quantum) * quantum)  # exact scaling; round() is half-even
    if abs(r) > big:
        return math.copysign(math.inf, v)
    return math.copysign(r, v)  # keeps the sign of a result rounded to zero


def _float_bits(v, dtype):
    v = round_float(v, dtype)
    if dtype == F64:
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    if dtype == F32:
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if dtype == F16:
        return struct.unpack("<H", struct.pack("<e", v))[0]
    # bfloat16: the top half of the float32 that holds the rounded value.
    if v != v:
        return 0x7FC0
    return struct.unpack("<I", struct.pack("<f", v))[0] >> 16


def encode(value, dtype, what):
    """The 64 raw bits of a wk_value holding `value` in `dtype` (little-endian:
    the dtype's member occupies the low bytes, the rest are zero).

    Float constants are rounded to the dtype (nearest even), as NumPy 2 does
    with a Python scalar beside an array; integer constants must be integral
    and in the dtype's range."""
    if isinstance(value, bool):
        value = int(value)
    elif isinstance(value, (str, bytes, bytearray)):
        raise TypeError("%s: %r is not a number (the input is %s)" % (what, value, NAME[dtype]))
    if dtype in FLOATS:
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise TypeError("%s: %r is not a number (the input is %s)" % (what, value, NAME[dtype])) from None
        return _float_bits(v, dtype)
    lo, hi = _INT_RANGE[dtype]
    if hasattr(value, "__index__"):
        v = value.__index__()
    else:
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise TypeError("%s: %r is not a number (the input is %s)" % (what, value, NAME[dtype])) from None
        if not (f == f and f not in (math.inf, -math.inf) and f == int(f)):
            raise ValueError("%s: %r is not an integer (the input is %s)" % (what, value, NAME[dtype]))
        v = int(f)
    if not lo <= v <= hi:
        raise ValueError("%s: %d is out of range for %s [%d, %d]" % (what, v, NAME[dtype], lo, hi))
    return v & ((1 << (8 * ITEMSIZE[dtype])) - 1)


_INF_BITS = {F32: 0x7F800000, F64: 0x7FF0000000000000, F16: 0x7C00, BF16: 0x7F80}
_NEG_INF_BITS = {F32: 0xFF800000, F64: 0xFFF0000000000000, F16: 0xFC00, BF16: 0xFF80}


def identity_bits(op, dtype):
    """The identity of a scan op in dtype, as wk_value bits."""
    if op in (SUM, OR, XOR):
        return 0
    if op == AND:
        return 1 if dtype == BOOL else (1 << (8 * ITEMSIZE[dtype])) - 1  # a bool holds 0 or 1
    if dtype in FLOATS:
        return _INF_BITS[dtype] if op == MIN else _NEG_INF_BITS[dtype]
    lo, hi = _INT_RANGE[dtype]
    return encode(hi if op == MIN else lo, dtype, "identity")
