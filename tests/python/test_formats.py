"""tessel.formats against independent numpy references, on random data:
bf16 rounding, tile layout, and every packed format's bytes."""

import numpy as np
import pytest

import tessel
from tessel import formats

rng = np.random.default_rng(1234)


def ref_bf16_bits(x):
    """Round to nearest, ties to even; denormals to signed zero; NaN quiet."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    exp = (u >> 23) & 0xFF
    mant = u & 0x7FFFFF
    sign = u & 0x80000000
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    out = np.where(exp == 0, sign >> 16, rounded)
    nan = (exp == 0xFF) & (mant != 0)
    out = np.where(nan, (u >> 16) | 0x40, out)
    return out.astype(np.uint16)


def ref_tilize(m):
    rows, cols = m.shape
    R, C = -(-rows // 32) * 32, -(-cols // 32) * 32
    p = np.zeros((R, C), m.dtype)
    p[:rows, :cols] = m
    # tiles row-major; within a tile four 16x16 faces, each row-major
    t = p.reshape(R // 32, 2, 16, C // 32, 2, 16).transpose(0, 3, 1, 4, 2, 5)
    return t.reshape(-1)


def ref_bfp(values, mant_bits):
    """Bfp8_b (W=7) / Bfp4_b (W=3) bytes of tile-order float32 values (finite, normal)."""
    W = mant_bits
    tiles = values.reshape(-1, 1024)
    out = []
    for t in tiles:
        g = t.reshape(64, 16).astype(np.float32)
        u = g.view(np.uint32)
        e = ((u >> 23) & 0xFF).astype(np.int64)
        shared = e.max(axis=1)
        scale = np.ldexp(1.0, (127 + W - 1 - shared))[:, None]
        mag = np.abs(g.astype(np.float64)) * scale
        m = np.rint(mag)  # ties to even, exact in float64 for these ranges
        m = np.minimum(m, 2**W - 1).astype(np.uint8)
        m = np.where(e == 0, 0, m)
        s = ((u >> 31) & 1).astype(np.uint8)
        s = np.where(m == 0, 0, s)
        vals = (s << W) | m
        if W == 7:
            body = vals.reshape(-1).astype(np.uint8)
        else:
            v = vals.reshape(-1)
            body = (v[0::2] | (v[1::2] << 4)).astype(np.uint8)
        out.append(np.concatenate([shared.astype(np.uint8), body]))
    return np.concatenate(out)


def test_bf16_bits_match_the_reference_on_random_data():
    x = np.concatenate([
        (rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)).astype(np.float32),
        rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        np.array([0.0, -0.0, np.inf, -np.inf, 1.0 + 2**-8, 1.0 + 3 * 2**-8], np.float32),
    ])
    x = x[np.isfinite(x) | np.isinf(x)]  # NaN payload handled below
    np.testing.assert_array_equal(formats.bf16_bits(x), ref_bf16_bits(x))
    nan = np.array([np.nan, -np.nan], np.float32)
    assert np.all(np.isnan(formats.bf16_values(formats.bf16_bits(nan))))
    bits = rng.integers(0, 2**16, 5000, dtype=np.uint16)
    np.testing.assert_array_equal(formats.bf16_values(bits).view(np.uint32), bits.astype(np.uint32) << 16)


@pytest.mark.parametrize("shape", [(32, 32), (64, 96), (33, 70), (1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.uint32, np.int32, np.uint16, np.uint8])
def test_tilize_untilize(shape, dtype):
    m = rng.integers(0, 200, shape).astype(dtype)
    t = formats.tilize(m)
    np.testing.assert_array_equal(t, ref_tilize(m))
    np.testing.assert_array_equal(formats.untilize(t, *shape), m)


def test_float_formats_bytes():
    x = rng.standard_normal(3 * 1024).astype(np.float32)
    np.testing.assert_array_equal(formats.to_bytes(x, "Float32"), x.view(np.uint8))
    np.testing.assert_array_equal(formats.to_bytes(x, "bf16").view(np.uint16), ref_bf16_bits(x))
    np.testing.assert_array_equal(formats.from_bytes(formats.to_bytes(x, "Float32"), "Float32"), x)


@pytest.mark.parametrize("fmt,W", [("Bfp8_b", 7), ("Bfp4_b", 3)])
def test_bfp_bytes_match_the_reference(fmt, W):
    x = (rng.standard_normal(4 * 1024) * 2.0 ** rng.integers(-10, 10, 4 * 1024)).astype(np.float32)
    packed = formats.to_bytes(x, fmt)
    assert packed.size == 4 * formats.tile_size(fmt)
    np.testing.assert_array_equal(packed, ref_bfp(x, W))
    back = formats.from_bytes(packed, fmt)
    group_max = np.repeat(np.abs(x).reshape(-1, 16).max(axis=1), 16)
    assert np.all(np.abs(back - x) <= np.ldexp(group_max, -(W - 1)) + 0)


@pytest.mark.parametrize("fmt,dtype,lo,hi", [("Int32", np.int32, -2**31, 2**31), ("UInt32", np.uint32, 0, 2**32),
                                             ("UInt16", np.uint16, 0, 2**16), ("UInt8", np.uint8, 0, 256)])
def test_integer_formats(fmt, dtype, lo, hi):
    ints = rng.integers(lo, hi, 2048, dtype=np.int64).astype(dtype)
    np.testing.assert_array_equal(formats.to_bytes(ints, fmt), ints.view(np.uint8))
    f = rng.uniform(-1000, 1000, 2048).astype(np.float32)
    expected = np.clip(np.rint(f.astype(np.float64)), lo, hi - 1).astype(dtype)
    np.testing.assert_array_equal(formats.to_bytes(f, fmt).view(dtype), expected)
    assert formats.from_bytes(formats.to_bytes(ints, fmt), fmt).dtype == np.float32


def test_formats_invalid_input():
    with pytest.raises(TypeError) as e:
        formats.bf16_bits(np.zeros(4, np.float64))
    assert str(e.value) == "bf16_bits: values must be an array of float32, got float64"
    with pytest.raises(ValueError) as e:
        formats.to_bytes(np.zeros(100, np.float32), "bf16")
    assert str(e.value) == "to_bytes: 100 values are not a whole number of tiles (1024 values each)"
    with pytest.raises(ValueError) as e:
        formats.to_bytes(np.full(1024, 300, np.int32), "UInt8")
    assert str(e.value) == "to_bytes: a value is outside UInt8's range (0..255)"
    with pytest.raises(ValueError) as e:
        formats.from_bytes(np.zeros(100, np.uint8), tessel.DataFormat.Bfp8_b)
    assert str(e.value) == "from_bytes: 100 bytes are not a whole number of Bfp8_b tiles (1088 B each)"
    with pytest.raises(ValueError) as e:
        formats.tilize(np.zeros(4, np.float32))
    assert str(e.value) == "tilize: matrix must be 2-D (rows x cols), got shape (4,)"
