"""Tile layout and data formats (include/tessel/tile.hpp), on the C++ packers
themselves, so the bits are the device's.

- bf16_bits(values) -> uint16 bfloat16 patterns (round to nearest, ties to even)
- bf16_values(bits) -> float32
- tilize(matrix) -> 1-D values in tile order (32x32 tiles of four 16x16
  faces, zero padding); untilize(tiles, rows, cols) is the inverse
- to_bytes(tilized, format) -> uint8 device bytes (tile_size(format) per tile);
  from_bytes(data, format) -> float32 tilized values
Formats: Float32, Float16_b (bf16), Bfp8_b, Bfp4_b, Int32, UInt32, UInt16, UInt8.
"""

import numpy as np

from . import _check, _tessel
from .program import DataFormat, data_format

_f = _tessel.formats

TILE_HEIGHT = 32
TILE_WIDTH = 32
TILE_HW = TILE_HEIGHT * TILE_WIDTH

_LAYOUT_DTYPES = (np.float32, np.uint32, np.int32, np.uint16, np.uint8)
_INTEGER_FORMATS = {DataFormat.Int32: np.int32, DataFormat.UInt32: np.uint32, DataFormat.UInt16: np.uint16,
                    DataFormat.UInt8: np.uint8}


def _array(a, what, dtype=None):
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{what} must be a numpy array, got {_check.describe(a)}")
    if dtype is not None and a.dtype != dtype:
        raise TypeError(f"{what} must be an array of {np.dtype(dtype)}, got {a.dtype}")
    return np.ascontiguousarray(a)


def tile_size(format):
    """Bytes of one 32x32 tile in `format`."""
    return _f.tile_size(int(data_format(format, "tile_size: format")))


def bf16_bits(values):
    """float32 values -> uint16 bfloat16 bits (nearest, ties to even; see docs/numerics.md)."""
    a = _array(values, "bf16_bits: values", np.float32)
    return _f.bf16_bits(a.reshape(-1)).reshape(a.shape)


def bf16_values(bits):
    """uint16 bfloat16 bits -> float32 values (exact)."""
    a = _array(bits, "bf16_values: bits", np.uint16)
    return _f.bf16_values(a.reshape(-1)).reshape(a.shape)


def tilize(matrix):
    """A 2-D (rows x cols) array to 1-D values in tile order, zero-padded to whole tiles."""
    a = _array(matrix, "tilize: matrix")
    if a.ndim != 2:
        raise ValueError(f"tilize: matrix must be 2-D (rows x cols), got shape {a.shape}")
    if a.dtype.type not in _LAYOUT_DTYPES:
        raise TypeError(f"tilize: matrix must be float32, uint32, int32, uint16 or uint8, got {a.dtype}")
    return _f.tilize(a.reshape(-1), a.shape[0], a.shape[1])


def untilize(tiles, rows, cols):
    """The inverse of tilize: a rows x cols array from tile-order values."""
    a = _array(tiles, "untilize: tiles")
    rows = _check.word(rows, "untilize: rows")
    cols = _check.word(cols, "untilize: cols")
    if a.dtype.type not in _LAYOUT_DTYPES:
        raise TypeError(f"untilize: tiles must be float32, uint32, int32, uint16 or uint8, got {a.dtype}")
    return _f.untilize(a.reshape(-1), rows, cols).reshape(rows, cols)


def to_bytes(tilized, format):
    """Tile-order values (a whole number of 1024-value tiles) to the device
    bytes of `format`. float32 input goes through the C++ packer (integer
    formats round to nearest even and saturate); integer input to an integer
    format is stored as is, after a range check."""
    fmt = data_format(format, "to_bytes: format")
    a = _array(tilized, "to_bytes: tilized").reshape(-1)
    if a.size % TILE_HW:
        raise ValueError(f"to_bytes: {a.size} values are not a whole number of tiles ({TILE_HW} values each)")
    if fmt in _INTEGER_FORMATS and a.dtype.kind in "iu":
        target = np.dtype(_INTEGER_FORMATS[fmt])
        info = np.iinfo(target)
        if a.size and (a.min() < info.min or a.max() > info.max):
            raise ValueError(f"to_bytes: a value is outside {fmt.name}'s range ({info.min}..{info.max})")
        return a.astype(target.newbyteorder("<")).view(np.uint8)
    if a.dtype != np.float32:
        raise TypeError(f"to_bytes: tilized must be float32 (or integers for an integer format), got {a.dtype}")
    return _f.pack_tiles(a, int(fmt))


def from_bytes(data, format):
    """Device bytes of `format` (a whole number of tiles) to float32 tile-order values."""
    fmt = data_format(format, "from_bytes: format")
    a = _array(data, "from_bytes: data", np.uint8).reshape(-1)
    size = tile_size(fmt)
    if a.size % size:
        raise ValueError(f"from_bytes: {a.size} bytes are not a whole number of {fmt.name} tiles ({size} B each)")
    return _f.unpack_tiles(a, int(fmt))


__all__ = ["DataFormat", "tile_size", "bf16_bits", "bf16_values", "tilize", "untilize", "to_bytes", "from_bytes"]
