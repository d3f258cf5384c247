"""The Python tables against include/warpkit.h, and scalar encoding."""

import fractions
import math
import os
import random
import re
import struct

import pytest

from conftest import HEADER
from warpkit import _dtypes as D
from warpkit import _errors as E


def header_enum(name):
    if not os.path.exists(HEADER):
        pytest.skip("include/warpkit.h not found")
    text = open(HEADER).read()
    m = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), text, re.S)
    assert m, name
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return {k: int(v) for k, v in re.findall(r"(WK_\w+)\s*=\s*(\d+)", body)}


def test_status_table_matches_header():
    header = header_enum("wk_status")
    table = {name: code for name, (code, _) in E.STATUS.items()}
    for name, code in header.items():
        assert table.get(name) == code, "%s = %d in the header, %r in warpkit._errors.STATUS" % (
            name, code, table.get(name))
    assert set(table) == set(header), "statuses only one side has: %s" % sorted(set(table) ^ set(header))


def test_dtype_table_matches_header():
    header = header_enum("wk_dtype")
    names = {"WK_I32": "int32", "WK_U32": "uint32", "WK_I64": "int64", "WK_U64": "uint64",
             "WK_F32": "float32", "WK_F64": "float64", "WK_F16": "float16", "WK_BF16": "bfloat16",
             "WK_BOOL": "bool", "WK_U8": "uint8", "WK_I8": "int8", "WK_I16": "int16", "WK_U16": "uint16"}
    assert set(header) == set(names)
    for wk, name in names.items():
        assert D.DTYPES[name][0] == header[wk]
    assert set(D.DTYPES) == set(names.values())
    assert {D.DTYPES[n][1] for n in ("float16", "bfloat16", "int16", "uint16")} == {2}
    assert {D.DTYPES[n][1] for n in ("bool", "uint8", "int8")} == {1}


def test_op_and_compare_tables_match_header():
    ops = header_enum("wk_op")
    assert {"WK_" + name.upper(): code for name, code in D.OPS.items()} == ops
    assert D.HEADER_COMPARES == header_enum("wk_compare")


@pytest.mark.parametrize("text,code", [
    ("<", D.LESS), ("lt", D.LESS), ("<=", D.LESS_EQUAL), (">", D.GREATER), (">=", D.GREATER_EQUAL),
    ("==", D.EQUAL), ("!=", D.NOT_EQUAL), ("isnan", D.IS_NAN), ("notnan", D.NOT_NAN),
    ("not_equal", D.NOT_EQUAL), ("greater_equal", D.GREATER_EQUAL)])
def test_parse_compare(text, code):
    assert D.parse_compare(text, "t") == code


@pytest.mark.parametrize("bad", ["<>", "in_range", "", None, 3, "GT"])
def test_parse_compare_rejects(bad):
    with pytest.raises(ValueError, match="is not one of"):
        D.parse_compare(bad, "warpkit.select")


# -------------------------------------------------------------- encoding
def f16(v):
    return D.encode(v, D.F16, "t")


def bf16(v):
    return D.encode(v, D.BF16, "t")


@pytest.mark.parametrize("v,bits", [
    (1.0, 0x3C00), (-2.0, 0xC000), (65504.0, 0x7BFF), (65519.0, 0x7BFF), (65520.0, 0x7C00),
    (1e6, 0x7C00), (-1e6, 0xFC00), (-0.0, 0x8000), (2.0 ** -24, 0x0001), (2.0 ** -25, 0x0000),
    (3 * 2.0 ** -25, 0x0002), (float("inf"), 0x7C00), (0.1, 0x2E66)])
def test_encode_f16(v, bits):
    assert f16(v) == bits


def test_encode_f16_nan():
    assert f16(float("nan")) & 0x7C00 == 0x7C00 and f16(float("nan")) & 0x3FF


@pytest.mark.parametrize("v,bits", [
    (1.0, 0x3F80), (1 + 2.0 ** -8, 0x3F80), (1 + 3 * 2.0 ** -8, 0x3F82),
    (1 + 2.0 ** -8 + 2.0 ** -30, 0x3F81),  # no double rounding through float32
    (-0.0, 0x8000), (float("inf"), 0x7F80), (3.5e38, 0x7F80), (float("nan"), 0x7FC0)])
def test_encode_bf16(v, bits):
    assert bf16(v) == bits


def _round_exact(v, p, emin, big):
    """Reference: round v to p significant bits (nearest even) with fractions."""
    if v == 0:
        return v
    q = fractions.Fraction(v)
    e = math.floor(math.log2(abs(v)))
    while fractions.Fraction(2) ** e > abs(q):
        e -= 1
    while fractions.Fraction(2) ** (e + 1) <= abs(q):
        e += 1
    quantum = fractions.Fraction(2) ** (max(e, emin) - (p - 1))
    r = round(q / quantum) * quantum  # Fraction round: half to even
    return math.copysign(math.inf if abs(r) > big else float(r), v)


def test_encode_floats_random_against_references():
    rng = random.Random(1234)
    for _ in range(3000):
        v = rng.uniform(-1, 1) * 2.0 ** rng.randint(-140, 130)
        assert D.encode(v, D.F32, "t") == struct.unpack("<I", struct.pack("<f", v))[0] if abs(v) < 3e38 else True
        if abs(v) < 65504:
            assert f16(v) == struct.unpack("<H", struct.pack("<e", v))[0], v
        ref = _round_exact(v, 8, -126, float.fromhex("0x1.fep127"))
        assert bf16(v) == struct.unpack("<I", struct.pack("<f", ref))[0] >> 16, v


@pytest.mark.parametrize("dt,v,bits", [
    (D.I32, -1, 0xFFFFFFFF), (D.I32, 2 ** 31 - 1, 0x7FFFFFFF), (D.U32, 2 ** 32 - 1, 0xFFFFFFFF),
    (D.I64, -2, 2 ** 64 - 2), (D.U64, 2 ** 64 - 1, 2 ** 64 - 1), (D.I32, 3.0, 3), (D.I64, True, 1),
    (D.F64, 0.1, struct.unpack("<Q", struct.pack("<d", 0.1))[0]), (D.F32, 7, 0x40E00000)])
def test_encode_values(dt, v, bits):
    assert D.encode(v, dt, "t") == bits


class Index:
    def __index__(self):
        return 5


def test_encode_index_objects():
    assert D.encode(Index(), D.U32, "t") == 5


@pytest.mark.parametrize("dt,v,exc", [
    (D.I32, 2 ** 31, ValueError), (D.U32, -1, ValueError), (D.U64, 2 ** 64, ValueError),
    (D.I32, 0.5, ValueError), (D.I64, float("nan"), ValueError), (D.I32, "3", TypeError),
    (D.F32, "x", TypeError), (D.F32, None, TypeError)])
def test_encode_rejects(dt, v, exc):
    with pytest.raises(exc, match="warpkit.select: value"):
        D.encode(v, dt, "warpkit.select: value")


def test_identity_bits():
    assert D.identity_bits(D.SUM, D.F32) == 0
    assert D.identity_bits(D.MIN, D.F32) == 0x7F800000
    assert D.identity_bits(D.MAX, D.F64) == 0xFFF0000000000000
    assert D.identity_bits(D.MAX, D.BF16) == 0xFF80
    assert D.identity_bits(D.MIN, D.F16) == 0x7C00
    assert D.identity_bits(D.MIN, D.I32) == 0x7FFFFFFF
    assert D.identity_bits(D.MAX, D.I32) == 0x80000000
    assert D.identity_bits(D.MAX, D.U64) == 0
    assert D.identity_bits(D.MIN, D.U32) == 0xFFFFFFFF
    assert D.identity_bits(D.AND, D.I64) == 2 ** 64 - 1
    assert D.identity_bits(D.XOR, D.U32) == 0
    # The narrow dtypes: bool holds 0 or 1, the others their own width.
    assert D.identity_bits(D.AND, D.BOOL) == 1 and D.identity_bits(D.MIN, D.BOOL) == 1
    assert D.identity_bits(D.MAX, D.BOOL) == 0 and D.identity_bits(D.AND, D.UINT8) == 0xFF
    assert D.identity_bits(D.MIN, D.INT8) == 0x7F and D.identity_bits(D.MAX, D.INT16) == 0x8000
    assert D.identity_bits(D.MIN, D.UINT16) == 0xFFFF


def test_error_for_status():
    e = E.error_for_status(4, "op not supported for this dtype: wk_reduce: and is for integer dtypes")
    assert isinstance(e, E.UnsupportedError) and isinstance(e, NotImplementedError)
    assert e.status == 4 and e.status_name == "WK_ERROR_UNSUPPORTED"
    e = E.error_for_status(77, "", "unknown status")
    assert type(e) is E.Error and "77" in str(e) and e.status == 77
