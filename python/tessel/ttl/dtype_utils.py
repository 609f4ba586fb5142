"""ttl.dtype_utils: converting between torch, ttnn and tessel types, and
tile sizes (tt-lang's `ttl.dtype_utils`, over tessel.ttnn; no torch import
is needed: torch dtypes are recognised by name).

    ttl.dtype_utils.torch_dtype_to_ttnn_datatype(torch.bfloat16)   # ttnn.bfloat16
    ttl.dtype_utils.tile_bytes_from_dtype(ttnn.bfloat8_b)          # 1088
"""

from .. import _check, formats
from ..ttnn.types import DataType

__all__ = ["format_name_to_ttnn_dtype", "is_ttnn_tensor", "normalize_tile_dimensions", "tile_bytes_from_dtype",
           "torch_dtype_to_ttnn_datatype", "ttnn_dtype_to_format"]

_TORCH = {"float32": DataType.FLOAT32, "bfloat16": DataType.BFLOAT16, "int32": DataType.INT32,
          "uint32": DataType.UINT32, "uint16": DataType.UINT16, "uint8": DataType.UINT8}
_NAMES = {
    "bfloat16": DataType.BFLOAT16, "bf16": DataType.BFLOAT16, "float16": DataType.BFLOAT16, "f16": DataType.BFLOAT16,
    "bfloat8_b": DataType.BFLOAT8_B, "bfp_bf8": DataType.BFLOAT8_B, "bfloat4_b": DataType.BFLOAT4_B,
    "bfp_bf4": DataType.BFLOAT4_B, "float32": DataType.FLOAT32, "f32": DataType.FLOAT32, "int32": DataType.INT32,
    "i32": DataType.INT32, "si32": DataType.INT32, "uint32": DataType.UINT32, "u32": DataType.UINT32,
    "ui32": DataType.UINT32, "uint16": DataType.UINT16, "u16": DataType.UINT16, "ui16": DataType.UINT16,
    "uint8": DataType.UINT8, "u8": DataType.UINT8, "ui8": DataType.UINT8,
}


def is_ttnn_tensor(tensor) -> bool:
    from ..ttnn.tensor import Tensor

    return isinstance(tensor, Tensor)


def torch_dtype_to_ttnn_datatype(torch_dtype) -> DataType:
    """The ttnn.DataType of a torch dtype (torch.float32, torch.bfloat16, ...)."""
    name = str(torch_dtype).removeprefix("torch.")
    if name not in _TORCH:
        raise ValueError(f"Unsupported torch dtype for ttnn.DataType: {torch_dtype}; expected one of "
                         + ", ".join(f"torch.{n}" for n in _TORCH))
    return _TORCH[name]


def format_name_to_ttnn_dtype(name: str) -> DataType:
    """The ttnn.DataType of a format name ('bfloat16', 'f32', 'bfp_bf8', ...)."""
    _check.text(name, "ttl.dtype_utils.format_name_to_ttnn_dtype: name")
    if name not in _NAMES:
        raise ValueError(f"Unrecognized data format name '{name}' for ttnn.DataType; the names are "
                         + ", ".join(_NAMES))
    return _NAMES[name]


def ttnn_dtype_to_format(dtype):
    """The tessel.DataFormat a ttnn.DataType's tensors hold."""
    if not isinstance(dtype, DataType):
        raise TypeError(f"ttl.dtype_utils.ttnn_dtype_to_format: dtype must be a ttnn.DataType, got "
                        f"{_check.describe(dtype)}")
    return dtype.format


def normalize_tile_dimensions(tile) -> tuple:
    """(height, width) of a tile: tessel's tiles are 32x32, anything else is a ValueError."""
    try:
        height, width = tile
        dims = (int(height), int(width))
    except (TypeError, ValueError):
        raise ValueError(f"Tile must contain exactly two integer dimensions, got {tile!r}") from None
    if dims != (formats.TILE_HEIGHT, formats.TILE_WIDTH):
        raise ValueError(f"tessel's tiles are {formats.TILE_HEIGHT}x{formats.TILE_WIDTH}, got {dims[0]}x{dims[1]}")
    return dims


def tile_bytes_from_dtype(dtype, tile=(32, 32)) -> int:
    """Bytes of one tile of a ttnn.DataType, as the device stores it."""
    normalize_tile_dimensions(tile)
    return formats.tile_size(ttnn_dtype_to_format(dtype))
