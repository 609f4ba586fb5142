"""tessel.dispatch.formats against independent numpy and exact-arithmetic
references: bfloat16 rounding (from float32 and from float64), tile layout of
N-D arrays, and every dtype's bytes both ways."""

import math

import numpy as np
import pytest

import tessel
from tessel.dispatch import formats

rng = np.random.default_rng(20261113)


def ref_bf16_bits_f32(x):
    """float32 -> bf16: round to nearest, ties to even; float32 denormals to signed zero; NaN quiet."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    exp, mant, sign = (u >> 23) & 0xFF, u & 0x7FFFFF, u & 0x80000000
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    out = np.where(exp == 0, sign >> 16, rounded)
    out = np.where((exp == 0xFF) & (mant != 0), (u >> 16) | 0x40, out)
    return out.astype(np.uint16)


def ref_bf16_bits_exact(x):
    """bf16 bits of a Python float, rounded once from its exact value (frexp: no float32 step)."""
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if math.isinf(a):
        return sign | 0x7F80
    if a < 2.0**-126:
        return sign
    m, e = math.frexp(a)  # a = m * 2^e, 0.5 <= m < 1: m * 256 is exact
    value = math.ldexp(round(m * 256), e - 8)  # round(): to nearest, ties to even
    if value >= 2.0**128:
        return sign | 0x7F80
    return sign | int(np.float32(value).view(np.uint32)) >> 16


def ref_tilize(m):
    *lead, rows, cols = m.shape
    R, C = -(-rows // 32) * 32, -(-cols // 32) * 32
    p = np.zeros((*lead, R, C), m.dtype)
    p[..., :rows, :cols] = m
    flat = p.reshape(-1, R, C)
    tiles = [t.reshape(R // 32, 2, 16, C // 32, 2, 16).transpose(0, 3, 1, 4, 2, 5).reshape(-1) for t in flat]
    return np.concatenate(tiles)


def ref_bfp(values, mant_bits):
    """Bfp8_b (W=7) / Bfp4_b (W=3) bytes of tile-order float32 values (finite, normal)."""
    W = mant_bits
    out = []
    for t in values.reshape(-1, 1024):
        g = t.reshape(64, 16).astype(np.float32)
        u = g.view(np.uint32)
        e = ((u >> 23) & 0xFF).astype(np.int64)
        shared = e.max(axis=1)
        m = np.rint(np.abs(g.astype(np.float64)) * np.ldexp(1.0, (127 + W - 1 - shared))[:, None])
        m = np.where(e == 0, 0, np.minimum(m, 2**W - 1)).astype(np.uint8)
        s = np.where(m == 0, 0, ((u >> 31) & 1)).astype(np.uint8)
        v = ((s << W) | m).reshape(-1)
        body = v if W == 7 else (v[0::2] | (v[1::2] << 4))
        out.append(np.concatenate([shared.astype(np.uint8), body.astype(np.uint8)]))
    return np.concatenate(out)


def ref_bfp_values(data, mant_bits):
    W = mant_bits
    out = []
    for t in data.reshape(-1, 64 + 1024 * (W + 1) // 8):
        shared, body = t[:64].astype(np.int64), t[64:]
        v = body if W == 7 else np.stack([body & 0xF, body >> 4], axis=1).reshape(-1)
        s, m = (v >> W) & 1, (v & (2**W - 1)).astype(np.float64)
        scale = np.ldexp(1.0, np.repeat(shared, 16) - 127 - (W - 1))
        out.append(np.where(s == 1, -m, m) * scale)
    return np.concatenate(out).astype(np.float32)


def test_dtype_info():
    assert formats.DTYPES == ("bfloat16", "float32", "int32", "uint32", "uint16", "uint8", "bfloat8_b", "bfloat4_b")
    table = {name: formats.dtype_info(name) for name in formats.DTYPES}
    assert table == {"bfloat16": (np.float32, 2), "float32": (np.float32, 4), "int32": (np.int32, 4),
                     "uint32": (np.uint32, 4), "uint16": (np.uint16, 2), "uint8": (np.uint8, 1),
                     "bfloat8_b": (np.float32, None), "bfloat4_b": (np.float32, None)}
    assert [formats.tile_bytes(n) for n in formats.DTYPES] == [2048, 4096, 4096, 4096, 2048, 1024, 1088, 576]


def test_bf16_bits_from_float32():
    x = np.concatenate([
        (rng.standard_normal(20000) * 10.0 ** rng.integers(-38, 38, 20000)).astype(np.float32),
        rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        np.array([0.0, -0.0, np.inf, -np.inf, 1.0 + 2**-8, 1.0 + 3 * 2**-8, 3.3961e38, -1e-40], np.float32),
    ])
    x = x[~np.isnan(x)]
    x = x[:x.size // 8 * 8]
    bits = formats.bf16_bits(x.reshape(-1, 8))
    assert bits.dtype == np.uint16 and bits.shape == (x.size // 8, 8)
    np.testing.assert_array_equal(bits.reshape(-1), ref_bf16_bits_f32(x))
    nan = formats.bf16_bits(np.array([np.nan, -np.nan], np.float32))
    assert np.all(np.isnan(formats.bf16_values(nan)))


def test_bf16_bits_round_once_from_float64():
    # float64 values near bf16 ties, where rounding to float32 first would round twice.
    base = rng.integers(1 << 7, 1 << 8, 3000).astype(np.float64) / 128.0  # bf16 significands in [1, 2)
    offsets = rng.choice([2**-8, 2**-8 + 2**-30, 2**-8 - 2**-30, 2**-9, 2**-30, 0.0], 3000)
    signs = rng.choice([-1.0, 1.0], 3000)
    x = np.ldexp(signs * (base + offsets), rng.integers(-126, 127, 3000))
    wide = rng.standard_normal(3000) * 10.0 ** rng.integers(-45, 40, 3000)
    x = np.concatenate([x, wide, [1.0 + 2**-8 + 2**-30, 2.0**-126 * (1 - 2**-30), 2.0**-127, 3.4e38, 1e300, -1e300]])
    got = formats.bf16_bits(x)
    want = np.array([ref_bf16_bits_exact(float(v)) for v in x], np.uint16)
    np.testing.assert_array_equal(got, want)
    # The case a float32 step gets wrong: 1 + 2^-8 + 2^-30 rounds up to 1 + 2^-7, not to the tie's even 1.0.
    tie = np.array([1.0 + 2**-8 + 2**-30])
    assert formats.bf16_bits(tie)[0] == 0x3F81
    assert ref_bf16_bits_f32(tie.astype(np.float32))[0] == 0x3F80


def test_bf16_bits_takes_lists_and_integers():
    np.testing.assert_array_equal(formats.bf16_bits([1.0, -2.0, 0.5]), [0x3F80, 0xC000, 0x3F00])
    np.testing.assert_array_equal(formats.bf16_bits(np.array([3, 257, 1 << 20])), [0x4040, 0x4380, 0x4980])
    assert formats.bf16_bits(1.0).shape == ()


def test_bf16_values_are_exact():
    bits = rng.integers(0, 2**16, 5000, dtype=np.uint16)
    values = formats.bf16_values(bits)
    assert values.dtype == np.float32
    np.testing.assert_array_equal(values.view(np.uint32), bits.astype(np.uint32) << 16)
    np.testing.assert_array_equal(formats.bf16_values([0x3F80, 0xC000]), [1.0, -2.0])


@pytest.mark.parametrize("shape", [(32, 32), (64, 96), (33, 70), (1, 1), (2, 40, 70), (2, 3, 32, 64)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint16, np.uint8, np.float64])
def test_tilize_untilize(shape, dtype):
    m = rng.integers(0, 200, shape).astype(dtype)
    t = formats.tilize(m)
    assert t.dtype == dtype and t.ndim == 1
    np.testing.assert_array_equal(t, ref_tilize(m))
    np.testing.assert_array_equal(formats.untilize(t, shape), m)
    if len(shape) == 2 and dtype is not np.float64:
        np.testing.assert_array_equal(t, tessel.formats.tilize(m))  # the C++ tile layout
        np.testing.assert_array_equal(formats.untilize(t, *shape), m)


def test_tile_faces():
    m = np.arange(32 * 32, dtype=np.int32).reshape(32, 32)
    t = formats.tilize(m).reshape(4, 16, 16)
    np.testing.assert_array_equal(t[0], m[:16, :16])
    np.testing.assert_array_equal(t[1], m[:16, 16:])
    np.testing.assert_array_equal(t[2], m[16:, :16])
    np.testing.assert_array_equal(t[3], m[16:, 16:])


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32", "uint16", "uint8"])
def test_plain_bytes(dtype):
    host = np.dtype(formats.dtype_info(dtype)[0])
    if host.kind == "f":
        x = rng.standard_normal((7, 5)).astype(np.float32) * 1e3
    else:
        info = np.iinfo(host)
        x = rng.integers(info.min, info.max, (7, 5), endpoint=True, dtype=np.int64)
    data = formats.to_bytes(x, dtype)
    assert data.dtype == np.uint8 and data.shape == (x.size * host.itemsize,)
    assert data.tobytes() == x.astype(host.newbyteorder("<")).tobytes()
    back = formats.from_bytes(data, dtype)
    assert back.dtype == host
    np.testing.assert_array_equal(back, x.reshape(-1))
    np.testing.assert_array_equal(formats.from_bytes(data.tobytes(), dtype), back)


def test_integer_dtypes_take_whole_floats_and_bools():
    np.testing.assert_array_equal(formats.from_bytes(formats.to_bytes([1.0, -2.0, 3e9 - 3e9], "int32"), "int32"),
                                  [1, -2, 0])
    assert formats.to_bytes(np.array([True, False]), "uint8").tolist() == [1, 0]
    assert formats.to_bytes([4294967295], "uint32").tolist() == [255, 255, 255, 255]


def test_bfloat16_bytes():
    x = rng.standard_normal(3000).astype(np.float32)
    data = formats.to_bytes(x, "bfloat16")
    assert data.tobytes() == ref_bf16_bits_f32(x).astype("<u2").tobytes()
    back = formats.from_bytes(data, "bfloat16")
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back.view(np.uint32), ref_bf16_bits_f32(x).astype(np.uint32) << 16)


@pytest.mark.parametrize("dtype,mant_bits", [("bfloat8_b", 7), ("bfloat4_b", 3)])
def test_block_format_bytes(dtype, mant_bits):
    # Normal values with a spread of magnitudes inside each 16-value group.
    x = (rng.standard_normal((2, 40, 70)) * 2.0 ** rng.integers(-20, 20, (2, 40, 1))).astype(np.float32)
    x[x == 0] = 1.0
    tiles = formats.tilize(x)
    data = formats.to_bytes(tiles, dtype)
    want = ref_bfp(tiles, mant_bits)
    assert data.tobytes() == want.tobytes()
    np.testing.assert_array_equal(formats.from_bytes(data, dtype), ref_bfp_values(want, mant_bits))
