"""ttnn's data types, layouts and tile constants, over tessel's DataFormat.

    ttnn.bfloat16 is ttnn.DataType.BFLOAT16 (DataFormat.Float16_b on the device)
    ttnn.TILE_LAYOUT is ttnn.Layout.TILE

Every DataType names the tessel.DataFormat its tensors hold on the device
(`DataType.format`); bfloat8_b and bfloat4_b are block-float formats and
exist only in tiles.
"""

import enum

from .. import _check
from ..program import DataFormat

__all__ = ["DataType", "Layout", "ROW_MAJOR_LAYOUT", "TILE_LAYOUT", "TILE_SIZE", "bfloat16", "bfloat4_b",
           "bfloat8_b", "data_type", "float32", "int32", "layout", "uint16", "uint32", "uint8"]

TILE_SIZE = 32
"""The height and width of a tile, in elements."""


class DataType(enum.Enum):
    """A tensor's element type (ttnn.DataType)."""

    BFLOAT16 = DataFormat.Float16_b
    FLOAT32 = DataFormat.Float32
    BFLOAT8_B = DataFormat.Bfp8_b
    BFLOAT4_B = DataFormat.Bfp4_b
    UINT8 = DataFormat.UInt8
    UINT16 = DataFormat.UInt16
    UINT32 = DataFormat.UInt32
    INT32 = DataFormat.Int32

    @property
    def format(self) -> DataFormat:
        """The tessel.DataFormat the device holds."""
        return self.value

    @property
    def is_block_float(self) -> bool:
        return self in (DataType.BFLOAT8_B, DataType.BFLOAT4_B)

    def __repr__(self):
        return f"DataType.{self.name}"


class Layout(enum.Enum):
    """How a tensor's elements are laid out in pages (ttnn.Layout)."""

    ROW_MAJOR = 0  # one row of the last dimension per page
    TILE = 1  # one 32x32 tile per page

    def __repr__(self):
        return f"Layout.{self.name}"


bfloat16 = DataType.BFLOAT16
float32 = DataType.FLOAT32
bfloat8_b = DataType.BFLOAT8_B
bfloat4_b = DataType.BFLOAT4_B
uint8 = DataType.UINT8
uint16 = DataType.UINT16
uint32 = DataType.UINT32
int32 = DataType.INT32
TILE_LAYOUT = Layout.TILE
ROW_MAJOR_LAYOUT = Layout.ROW_MAJOR

_BY_FORMAT = {t.value: t for t in DataType}


# torch dtypes programs written for TT-Lang's simulator pass where ttnn takes a DataType.
_TORCH_NAMES = {"bfloat16": DataType.BFLOAT16, "float32": DataType.FLOAT32, "int32": DataType.INT32,
                "uint8": DataType.UINT8, "uint16": DataType.UINT16, "uint32": DataType.UINT32}


def data_type(value, what) -> DataType:
    """A DataType from a DataType, a tessel.DataFormat it holds, or a torch
    dtype of the same name (torch.float32, ...)."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, DataFormat) and value in _BY_FORMAT:
        return _BY_FORMAT[value]
    if type(value).__module__.split(".")[0] == "torch" and str(value).removeprefix("torch.") in _TORCH_NAMES:
        return _TORCH_NAMES[str(value).removeprefix("torch.")]
    names = ", ".join(f"ttnn.{t.name.lower()}" for t in DataType)
    raise TypeError(f"{what} must be a ttnn.DataType ({names}), got {_check.describe(value)}")


def layout(value, what) -> Layout:
    if isinstance(value, Layout):
        return value
    raise TypeError(f"{what} must be ttnn.TILE_LAYOUT or ttnn.ROW_MAJOR_LAYOUT, got {_check.describe(value)}")
