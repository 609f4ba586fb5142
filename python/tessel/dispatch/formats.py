"""Host-side data conversions of the persistent-dispatch API (the spec's
komorebi.formats), by data type name:

    bfloat16 float32 int32 uint32 uint16 uint8 bfloat8_b bfloat4_b

- bf16_bits(values) -> uint16 bfloat16 patterns, rounded to nearest, ties to
  even, from the value itself (float64 input is not rounded to float32
  first). As the device's packer does (tessel.formats, docs/numerics.md),
  a value below the smallest normal float32 (2^-126) becomes zero of its
  sign, NaN stays a quiet NaN, and a value rounding past the largest bfloat16
  becomes infinity.
- bf16_values(bits) -> float32 (exact).
- tilize(x) -> 1-D values in tile order: 32 x 32 tiles, each four 16 x 16
  faces (top-left, top-right, bottom-left, bottom-right) row-major inside; the
  last two dimensions zero-padded to multiples of 32, tiles row-major over
  them, leading dimensions outermost. untilize(tiles, shape) is the inverse
  (shape unpadded: the padding is dropped).
- to_bytes(values, dtype) -> the card's little-endian bytes (uint8, 1-D) of
  values in storage order; from_bytes(data, dtype) -> the values (1-D, of
  dtype_info(dtype)[0]). The block formats (bfloat8_b, bfloat4_b) take whole
  tiles of tile-order values (tilize first) and pack them with the device's
  packer.
- dtype_info(dtype) -> (numpy dtype of host values, bytes per element or None
  for a block format).

Integer dtypes take integers (or floats holding whole numbers) that fit the
type; anything else is a ValueError, never a silent wrap or saturation.
"""

import numpy as np
from numpy.typing import ArrayLike

from .. import _check
from .. import formats as _device_formats

__all__ = ["DTYPES", "TILE", "dtype_info", "tile_bytes", "padded_shape", "bf16_bits", "bf16_values", "tilize",
           "untilize", "to_bytes", "from_bytes"]

TILE = 32
_FACE = 16

# name -> (host numpy dtype, bytes per element or None, card storage dtype or the tessel DataFormat name)
_DTYPES = {
    "bfloat16": (np.float32, 2, "<u2"),
    "float32": (np.float32, 4, "<f4"),
    "int32": (np.int32, 4, "<i4"),
    "uint32": (np.uint32, 4, "<u4"),
    "uint16": (np.uint16, 2, "<u2"),
    "uint8": (np.uint8, 1, "u1"),
    "bfloat8_b": (np.float32, None, "Bfp8_b"),
    "bfloat4_b": (np.float32, None, "Bfp4_b"),
}
DTYPES = tuple(_DTYPES)
_INTEGER_DTYPES = ("int32", "uint32", "uint16", "uint8")
_BLOCK_DTYPES = ("bfloat8_b", "bfloat4_b")


def _dtype(name, what):
    """A dtype name, checked."""
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a data type name ({', '.join(DTYPES)}), got {_check.describe(name)}")
    if name not in _DTYPES:
        raise ValueError(f"{what} must be one of {', '.join(DTYPES)}, got {name!r}")
    return name


def dtype_info(name: str) -> tuple[np.dtype, int | None]:
    """(numpy dtype of the host's values, bytes per element) of a data type name;
    bytes per element is None for the block formats (bfloat8_b, bfloat4_b),
    whose size is per tile (tile_bytes)."""
    host, size, _ = _DTYPES[_dtype(name, "formats.dtype_info: name")]
    return np.dtype(host), size


def tile_bytes(name: str) -> int:
    """Bytes of one 32 x 32 tile of a data type on the card."""
    name = _dtype(name, "formats.tile_bytes: name")
    if name in _BLOCK_DTYPES:
        return _device_formats.tile_size(_DTYPES[name][2])
    return TILE * TILE * _DTYPES[name][1]


def _asarray(values, what):
    """values as a numpy array of real numbers (bool, integers or floats)."""
    try:
        a = np.asarray(values)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what} must be an array of numbers: numpy cannot make one ({e})") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{what} must hold real numbers, got an array of {a.dtype}")
    return a


def _float32_for_rounding(a):
    """float32 values whose bfloat16 rounding (to nearest, ties to even) is that of
    `a` itself: float64 goes to float32 rounding to odd (truncate, then set the
    last bit if anything was dropped), which keeps the sticky information a
    second rounding needs."""
    if a.dtype == np.float32:
        return a
    if a.dtype.kind == "f" and a.dtype.itemsize < 4:
        return a.astype(np.float32)
    wide = a.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        y = wide.astype(np.float32)
        back = y.astype(np.float64)
    inexact = (back != wide) & np.isfinite(wide)
    if inexact.any():
        away = inexact & (np.abs(back) > np.abs(wide))
        y[away] = np.nextafter(y[away], np.float32(0))
        y.view(np.uint32)[inexact] |= np.uint32(1)
    return y


def bf16_bits(values: ArrayLike) -> np.ndarray:
    """bfloat16 bit patterns (uint16, values' shape) of real values: rounded to
    nearest, ties to even; below 2^-126 to signed zero, as the device's packer."""
    a = _asarray(values, "formats.bf16_bits: values")
    f = np.ascontiguousarray(_float32_for_rounding(a), dtype=np.float32)
    return _device_formats.bf16_bits(f.reshape(-1)).reshape(a.shape)


def bf16_values(bits: ArrayLike) -> np.ndarray:
    """float32 values (bits' shape) of bfloat16 bit patterns (uint16, or integers 0..65535)."""
    a = _asarray(bits, "formats.bf16_values: bits")
    if a.dtype != np.uint16:
        if a.dtype.kind not in "iu":
            raise TypeError(f"formats.bf16_values: bits must be uint16 bit patterns, got an array of {a.dtype}")
        if a.size and (a.min() < 0 or a.max() > 0xFFFF):
            raise ValueError("formats.bf16_values: bits must be uint16 bit patterns (0..65535), got "
                             f"{a.min() if a.min() < 0 else a.max()}")
        a = a.astype(np.uint16)
    return (np.ascontiguousarray(a).astype(np.uint32) << 16).view(np.float32)


def _padded(n):
    return -(-n // TILE) * TILE


def padded_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """shape with its last two dimensions rounded up to multiples of 32."""
    shape = tuple(shape)
    return shape[:-2] + (_padded(shape[-2]), _padded(shape[-1]))


def _tile_axes(lead):
    k = len(lead)
    # (..., tile row, face row, row, tile col, face col, col) -> (..., tile row, tile col, face row, face col, row, col)
    return tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2, k + 5)


def tilize(x: ArrayLike) -> np.ndarray:
    """x's values in tile order (1-D, x's dtype): the last two dimensions
    zero-padded to multiples of 32, cut into 32 x 32 tiles (row-major, leading
    dimensions outermost), each tile four 16 x 16 faces, row-major inside."""
    a = _asarray(x, "formats.tilize: x")
    if a.ndim < 2:
        raise ValueError(f"formats.tilize: x must have at least two dimensions (rows x cols), got shape {a.shape}")
    lead, (rows, cols) = a.shape[:-2], a.shape[-2:]
    rp, cp = _padded(rows), _padded(cols)
    if (rp, cp) != (rows, cols):
        p = np.zeros(lead + (rp, cp), a.dtype)
        p[..., :rows, :cols] = a
        a = p
    t = a.reshape(lead + (rp // TILE, 2, _FACE, cp // TILE, 2, _FACE))
    return np.ascontiguousarray(t.transpose(_tile_axes(lead))).reshape(-1)


def untilize(tiles: ArrayLike, *shape) -> np.ndarray:
    """The inverse of tilize: an array of `shape` (a tuple, or rows, cols) from
    tile-order values of the padded shape; the padding is dropped."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(_check.count(d, f"formats.untilize: shape[{i}]") for i, d in enumerate(shape))
    if len(shape) < 2:
        raise ValueError(f"formats.untilize: shape must have at least two dimensions (rows x cols), got {shape}")
    a = _asarray(tiles, "formats.untilize: tiles").reshape(-1)
    lead, (rows, cols) = shape[:-2], shape[-2:]
    rp, cp = _padded(rows), _padded(cols)
    need = int(np.prod(lead, dtype=np.int64)) * rp * cp
    if a.size != need:
        raise ValueError(f"formats.untilize: shape {shape} takes {need} tile-order values (padded to "
                         f"{lead + (rp, cp)}), got {a.size}")
    k = len(lead)
    t = a.reshape(lead + (rp // TILE, cp // TILE, 2, 2, _FACE, _FACE))
    # (..., tile row, tile col, face row, face col, row, col) -> (..., tile row, face row, row, tile col, face col, col)
    m = t.transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3, k + 5)).reshape(lead + (rp, cp))
    return np.ascontiguousarray(m[..., :rows, :cols])


def _integers(a, name, what):
    """a as the integer dtype `name`, every value checked to be a whole number in range."""
    target = np.dtype(_DTYPES[name][0])
    info = np.iinfo(target)
    if a.dtype.kind == "b":
        return a.astype(target)
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.trunc(np.where(np.isfinite(a), a, 0)))
        if bad.any():
            raise ValueError(f"{what}: {name} data must be whole numbers, got {a[bad].flat[0].item()!r}")
    if a.size:
        low, high = a.min(), a.max()
        if low < info.min or high > info.max:
            value = (low if low < info.min else high).item()
            raise ValueError(f"{what}: {name} data must fit {info.min}..{info.max}, got {value!r}")
    return a.astype(target)


def _stored(a, name, what):
    """a (any shape) as the card's element values: bfloat16 bits (uint16),
    little-endian numbers, or float32 for a block format (rounding kept exact)."""
    if name == "bfloat16":
        return bf16_bits(a).astype("<u2")
    if name == "float32":
        return a.astype("<f4")
    if name in _BLOCK_DTYPES:
        return np.ascontiguousarray(_float32_for_rounding(a), dtype=np.float32)
    return _integers(a, name, what).astype(_DTYPES[name][2])


def _pack(stored, name, what):
    """The card's bytes (uint8, 1-D) of stored element values, in storage order."""
    flat = np.ascontiguousarray(stored).reshape(-1)
    if name in _BLOCK_DTYPES:
        if flat.size % (TILE * TILE):
            raise ValueError(f"{what}: {name} values must be whole 32 x 32 tiles in tile order (a multiple of 1024 "
                             f"values; tilize first), got {flat.size}")
        return _device_formats.to_bytes(flat, _DTYPES[name][2])
    return flat.view(np.uint8)


def to_bytes(values: ArrayLike, dtype: str) -> np.ndarray:
    """The card's bytes (uint8, 1-D, little-endian) of `values` (any shape, taken
    in C order) as `dtype`; block formats take whole tiles of tile-order values."""
    name = _dtype(dtype, "formats.to_bytes: dtype")
    a = _asarray(values, "formats.to_bytes: values")
    return _pack(_stored(a, name, "formats.to_bytes"), name, "formats.to_bytes")


def _unpack(data, name, what):
    size = _DTYPES[name][1]
    if name in _BLOCK_DTYPES:
        tile = tile_bytes(name)
        if data.size % tile:
            raise ValueError(f"{what}: {data.size} bytes are not whole {name} tiles ({tile} B each)")
        return _device_formats.from_bytes(data, _DTYPES[name][2])
    if data.size % size:
        raise ValueError(f"{what}: {data.size} bytes are not whole {name} values ({size} B each)")
    stored = data.view(_DTYPES[name][2])
    if name == "bfloat16":
        return bf16_values(stored.astype(np.uint16))
    return stored.astype(_DTYPES[name][0])


def from_bytes(data: "np.ndarray | bytes | bytearray | memoryview", dtype: str) -> np.ndarray:
    """The values (1-D, of dtype_info(dtype)[0]) of the card's bytes of `dtype`:
    a uint8 array or a bytes-like object; block formats are whole tiles, in tile order."""
    name = _dtype(dtype, "formats.from_bytes: dtype")
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = np.frombuffer(data, np.uint8)
    elif isinstance(data, np.ndarray):
        if data.dtype != np.uint8:
            raise TypeError(f"formats.from_bytes: data must be uint8 bytes, got an array of {data.dtype}")
        raw = np.ascontiguousarray(data).reshape(-1)
    else:
        raise TypeError(f"formats.from_bytes: data must be a uint8 numpy array or bytes, got {_check.describe(data)}")
    return _unpack(raw, name, "formats.from_bytes")
