"""ttnn's memory configurations: where a tensor's pages live.

    ttnn.DRAM_MEMORY_CONFIG   interleaved over the DRAM banks
    ttnn.L1_MEMORY_CONFIG     interleaved over the worker cores' L1
    ttnn.create_sharded_memory_config((64, 64), ttnn.CoreGrid(y=1, x=2), ttnn.ShardStrategy.WIDTH)

A MemoryConfig becomes a tessel.Buffer of the same kind: interleaved in
the BufferType, or sharded over the shard spec's cores in page units
(tessel.ShardSpec; L1 bank b is logical core (b % grid_x, b / grid_x)).
"""

import enum
from dataclasses import dataclass
from math import prod

from .. import _check
from ..core import CoreCoord, CoreRange, CoreRangeSet
from ..device import BufferType
from ..device import ShardSpec as BufferShardSpec

__all__ = ["BufferType", "CoreGrid", "DRAM_MEMORY_CONFIG", "L1_MEMORY_CONFIG", "MemoryConfig", "ShardOrientation",
           "ShardSpec", "ShardStrategy", "TensorMemoryLayout", "create_sharded_memory_config"]

_TILE = 32


class TensorMemoryLayout(enum.Enum):
    INTERLEAVED = 0
    HEIGHT_SHARDED = 2
    WIDTH_SHARDED = 3
    BLOCK_SHARDED = 4

    def __repr__(self):
        return f"TensorMemoryLayout.{self.name}"


class ShardStrategy(enum.Enum):
    HEIGHT = 0
    WIDTH = 1
    BLOCK = 2


class ShardOrientation(enum.Enum):
    ROW_MAJOR = 0
    COL_MAJOR = 1


@dataclass(frozen=True)
class CoreGrid:
    """A rectangle of worker cores from (0, 0): ttnn.CoreGrid(y=rows, x=columns)."""

    y: int
    x: int

    def __post_init__(self):
        _check.integer(self.y, "ttnn.CoreGrid: y", 1, 0xFFFF, "a core count")
        _check.integer(self.x, "ttnn.CoreGrid: x", 1, 0xFFFF, "a core count")

    @property
    def num_cores(self):
        return self.x * self.y


@dataclass(frozen=True)
class ShardSpec:
    """ttnn.ShardSpec: the cores holding the shards, one shard's (height,
    width) in elements (height over all dimensions but the last), and the
    order the shards take the cores in."""

    grid: CoreRangeSet
    shape: tuple
    orientation: ShardOrientation = ShardOrientation.ROW_MAJOR

    def __post_init__(self):
        grid = self.grid
        if isinstance(grid, CoreRange):
            grid = CoreRangeSet([grid])
        if not isinstance(grid, CoreRangeSet):
            raise TypeError(f"ttnn.ShardSpec: grid must be a ttnn.CoreRangeSet, got {_check.describe(self.grid)}")
        if not isinstance(self.shape, (tuple, list)) or len(self.shape) != 2:
            raise TypeError(f"ttnn.ShardSpec: shape must be a (height, width) pair, got {_check.describe(self.shape)}")
        shape = tuple(_check.integer(v, f"ttnn.ShardSpec: shape[{i}]", 1, _check.WORD_MAX, "a positive integer")
                      for i, v in enumerate(self.shape))
        if not isinstance(self.orientation, ShardOrientation):
            raise TypeError("ttnn.ShardSpec: orientation must be a ttnn.ShardOrientation, got "
                            f"{_check.describe(self.orientation)}")
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "shape", shape)

    def cores(self):
        """The shards' cores, in the order shards take them."""
        cores = set(self.grid.cores())
        key = (lambda c: (c.y, c.x)) if self.orientation == ShardOrientation.ROW_MAJOR else (lambda c: (c.x, c.y))
        return sorted(cores, key=key)


@dataclass(frozen=True)
class MemoryConfig:
    """ttnn.MemoryConfig(memory_layout, buffer_type, shard_spec)."""

    memory_layout: TensorMemoryLayout = TensorMemoryLayout.INTERLEAVED
    buffer_type: BufferType = BufferType.DRAM
    shard_spec: "ShardSpec | None" = None

    def __post_init__(self):
        if not isinstance(self.memory_layout, TensorMemoryLayout):
            raise TypeError("ttnn.MemoryConfig: memory_layout must be a ttnn.TensorMemoryLayout, got "
                            f"{_check.describe(self.memory_layout)}")
        if not isinstance(self.buffer_type, BufferType):
            raise TypeError("ttnn.MemoryConfig: buffer_type must be a ttnn.BufferType (DRAM or L1), got "
                            f"{_check.describe(self.buffer_type)}")
        sharded = self.memory_layout != TensorMemoryLayout.INTERLEAVED
        if sharded and not isinstance(self.shard_spec, ShardSpec):
            raise ValueError(f"ttnn.MemoryConfig: a {self.memory_layout.name} config needs a shard_spec "
                             f"(a ttnn.ShardSpec), got {_check.describe(self.shard_spec)}")
        if not sharded and self.shard_spec is not None:
            raise ValueError("ttnn.MemoryConfig: an INTERLEAVED config takes no shard_spec")

    def is_sharded(self) -> bool:
        return self.memory_layout != TensorMemoryLayout.INTERLEAVED


DRAM_MEMORY_CONFIG = MemoryConfig(TensorMemoryLayout.INTERLEAVED, BufferType.DRAM)
L1_MEMORY_CONFIG = MemoryConfig(TensorMemoryLayout.INTERLEAVED, BufferType.L1)


def memory_config(value, what) -> MemoryConfig:
    if value is None:
        return DRAM_MEMORY_CONFIG
    if not isinstance(value, MemoryConfig):
        raise TypeError(f"{what} must be a ttnn.MemoryConfig (ttnn.DRAM_MEMORY_CONFIG, ttnn.L1_MEMORY_CONFIG, a "
                        f"sharded config), got {_check.describe(value)}")
    return value


def create_sharded_memory_config(shape, core_grid, strategy, orientation=None,
                                 use_height_and_width_as_shard_shape=False) -> MemoryConfig:
    """An L1 sharded MemoryConfig for a tensor of `shape` over `core_grid`
    (a ttnn.CoreGrid or a CoreRangeSet): HEIGHT splits the rows (all
    dimensions but the last) over the cores, WIDTH the last dimension,
    BLOCK the rows over the grid's rows and the columns over its columns.
    With use_height_and_width_as_shard_shape, shape[-2:] is the shard shape."""
    what = "ttnn.create_sharded_memory_config"
    if not isinstance(shape, (tuple, list)) or not shape:
        raise TypeError(f"{what}: shape must be a tuple of dimensions, got {_check.describe(shape)}")
    dims = tuple(_check.integer(d, f"{what}: shape[{i}]", 1) for i, d in enumerate(shape))
    if isinstance(core_grid, CoreGrid):
        grid = CoreRangeSet([CoreRange(CoreCoord(0, 0), CoreCoord(core_grid.x - 1, core_grid.y - 1))])
        gx, gy = core_grid.x, core_grid.y
    elif isinstance(core_grid, CoreRangeSet):
        grid = core_grid
        if len(grid.ranges) != 1 and strategy == ShardStrategy.BLOCK:
            raise ValueError(f"{what}: BLOCK sharding needs one rectangle of cores, got {grid!r}")
        r = grid.ranges[0]
        gx, gy = r.end_coord.x - r.start_coord.x + 1, r.end_coord.y - r.start_coord.y + 1
    else:
        raise TypeError(f"{what}: core_grid must be a ttnn.CoreGrid or a ttnn.CoreRangeSet, got "
                        f"{_check.describe(core_grid)}")
    if not isinstance(strategy, ShardStrategy):
        raise TypeError(f"{what}: strategy must be a ttnn.ShardStrategy (HEIGHT, WIDTH or BLOCK), got "
                        f"{_check.describe(strategy)}")
    if orientation is None:
        orientation = ShardOrientation.ROW_MAJOR
    if not isinstance(orientation, ShardOrientation):
        raise TypeError(f"{what}: orientation must be a ttnn.ShardOrientation or None, got "
                        f"{_check.describe(orientation)}")
    height, width = prod(dims[:-1]), dims[-1]
    cores = grid.num_cores()
    if use_height_and_width_as_shard_shape:
        if len(dims) < 2:
            raise ValueError(f"{what}: use_height_and_width_as_shard_shape needs a (height, width) shape, got {dims}")
        shard = dims[-2:]
    elif strategy == ShardStrategy.HEIGHT:
        shard = (-(-height // cores), width)
    elif strategy == ShardStrategy.WIDTH:
        shard = (height, -(-width // cores))
    else:
        rows, cols = (gy, gx) if orientation == ShardOrientation.ROW_MAJOR else (gx, gy)
        shard = (-(-height // rows), -(-width // cols))
    layout = {ShardStrategy.HEIGHT: TensorMemoryLayout.HEIGHT_SHARDED,
              ShardStrategy.WIDTH: TensorMemoryLayout.WIDTH_SHARDED,
              ShardStrategy.BLOCK: TensorMemoryLayout.BLOCK_SHARDED}[strategy]
    return MemoryConfig(layout, BufferType.L1, ShardSpec(grid, shard, orientation))


def buffer_shard(config, shape, tiled, device, what):
    """The tessel.ShardSpec (in pages) of a tensor of `shape` (padded to
    whole tiles when tiled) under a sharded `config`."""
    spec = config.shard_spec
    height, width = prod(shape[:-1]), shape[-1]
    sh, sw = spec.shape
    unit = _TILE if tiled else 1
    if tiled and (sh % _TILE or sw % _TILE):
        raise ValueError(f"{what}: a tiled tensor's shard shape must be whole tiles (multiples of {_TILE}), got "
                         f"{spec.shape}")
    if not tiled and sw != width:
        raise ValueError(f"{what}: a row-major tensor has one page per row, so a shard must hold whole rows "
                         f"(width {width}), got shard shape {spec.shape}")
    pages = (height // unit, width // unit) if tiled else (height,)
    shard = (sh // unit, sw // unit) if tiled else (sh,)
    shards = prod(-(-p // s) for p, s in zip(pages, shard))
    cores = spec.cores()
    if shards > len(cores):
        raise ValueError(f"{what}: a {shape} tensor in shards of {spec.shape} is {shards} shards, but the shard "
                         f"spec has {len(cores)} cores")
    gx = device.grid.x
    for c in cores:
        if c.x >= device.grid.x or c.y >= device.grid.y:
            raise ValueError(f"{what}: shard core {c} is outside the device's {device.grid.x}x{device.grid.y} "
                             "worker grid")
    banks = tuple(c.y * gx + c.x for c in cores[:shards])
    return BufferShardSpec(pages, shard, banks)
