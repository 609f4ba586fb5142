"""TensorTiler2D, IRON's tiler: lists of TensorAccessPatterns that walk a
2-D tensor tile by tile (simple_tiler), in groups of tiles (group_tiler), or
in strided groups (step_tiler), with IRON's options and their order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .. import _check
from .taps import TensorAccessPattern, TensorAccessSequence, _integer, _tensor_dims, _zero_leading_unit_strides


class _Axis(NamedTuple):
    """One axis of a 2-D tiling. Tiles are tile elements long; a group
    (one pattern's share of the axis) is `repeats` tiles, `step` tiles apart.
    Groups come in blocks of step * repeats tiles: block b holds `step`
    interleaved groups, group j of it starting at tile b * step * repeats + j."""

    length: int
    tile: int
    repeats: int
    step: int

    @property
    def tile_count(self) -> int:
        return self.length // self.tile

    def clamped(self) -> _Axis:
        """Repeats and step no larger than the axis allows."""
        tiles = self.tile_count
        repeats = min(self.repeats, -(-tiles // self.step))
        return self._replace(repeats=repeats, step=1 if self.step > tiles else self.step)

    def group_count(self) -> int:
        """Groups needed to cover the axis; a last, partial block keeps only
        the groups that start inside the axis."""
        full_blocks, leftover = divmod(self.tile_count, self.step * self.repeats)
        return full_blocks * self.step + min(leftover, self.step)

    def group(self, index: int) -> tuple[int, int, int]:
        """(first tile, tile count, step in tiles) of group `index`; a group in
        a partial block is cut at the end of the axis."""
        block, lane = divmod(index, self.step)
        first = block * self.step * self.repeats + lane
        remaining = self.tile_count - first
        repeats = min(self.repeats, -(-remaining // self.step))
        return first, repeats, 1 if self.step > remaining else self.step


class TensorTiler2D:
    """Factories for the TensorAccessSequences of common 2-D tilings of a
    row-major (rows, cols) tensor; never instantiated.

    step_tiler is the general one: each pattern visits a group of
    tile_group_repeats (rows, cols) tiles of tile_dims elements, neighbouring
    tiles of a group tile_group_steps tiles apart. group_tiler is step_tiler
    with adjacent tiles; simple_tiler is group_tiler with one tile per group.
    Options: tile_col_major walks each tile column by column;
    tile_group_col_major walks a group's tiles column by column;
    iter_col_major orders the patterns column by column; pattern_repeat
    repeats each pattern's walk in its outermost loop (stride 0), which needs
    that loop free; allow_partial lets the last groups of an axis be cut
    short; prune_step folds a group into one taller (or wider) tile where
    that walks the same elements in the same order. Every pattern has four
    (size, stride) pairs."""

    def __init__(self):
        raise TypeError(
            "TensorTiler2D cannot be instantiated: call TensorTiler2D.simple_tiler, group_tiler or step_tiler"
        )

    @classmethod
    def simple_tiler(
        cls,
        tensor_dims: Sequence[int],
        tile_dims: Sequence[int] | None = None,
        tile_col_major: bool = False,
        iter_col_major: bool = False,
        pattern_repeat: int = 1,
        prune_step: bool = True,
    ) -> TensorAccessSequence:
        """One pattern per tile of tile_dims (the whole tensor if None)."""
        return cls.group_tiler(
            tensor_dims,
            tensor_dims if tile_dims is None else tile_dims,
            tile_col_major=tile_col_major,
            iter_col_major=iter_col_major,
            pattern_repeat=pattern_repeat,
            prune_step=prune_step,
        )

    @classmethod
    def group_tiler(
        cls,
        tensor_dims: Sequence[int],
        tile_dims: Sequence[int],
        tile_group_dims: Sequence[int] | None = None,
        tile_col_major: bool = False,
        tile_group_col_major: bool = False,
        iter_col_major: bool = False,
        pattern_repeat: int = 1,
        allow_partial: bool = False,
        prune_step: bool = True,
    ) -> TensorAccessSequence:
        """One pattern per group of tile_group_dims (rows, cols) adjacent
        tiles ((1, 1) if None)."""
        return cls.step_tiler(
            tensor_dims,
            tile_dims,
            (1, 1) if tile_group_dims is None else tile_group_dims,
            tile_col_major=tile_col_major,
            tile_group_col_major=tile_group_col_major,
            iter_col_major=iter_col_major,
            allow_partial=allow_partial,
            pattern_repeat=pattern_repeat,
            prune_step=prune_step,
        )

    @classmethod
    def step_tiler(
        cls,
        tensor_dims: Sequence[int],
        tile_dims: Sequence[int],
        tile_group_repeats: Sequence[int],
        tile_group_steps: Sequence[int] | None = None,
        tile_col_major: bool = False,
        tile_group_col_major: bool = False,
        iter_col_major: bool = False,
        allow_partial: bool = False,
        pattern_repeat: int = 1,
        prune_step: bool = True,
    ) -> TensorAccessSequence:
        """One pattern per group of tile_group_repeats (rows, cols) tiles whose
        neighbours are tile_group_steps (rows, cols) tiles apart ((1, 1) if
        None); the interleaved groups of a block follow one another."""
        tensor = cls._pair(tensor_dims, "tensor_dims")
        tile = cls._pair(tile_dims, "tile_dims")
        repeats = cls._pair(tile_group_repeats, "tile_group_repeats")
        steps = cls._pair((1, 1) if tile_group_steps is None else tile_group_steps, "tile_group_steps")
        flags = {name: _check.flag(value, f"TensorTiler2D: {name}") for name, value in (
            ("tile_col_major", tile_col_major), ("tile_group_col_major", tile_group_col_major),
            ("iter_col_major", iter_col_major), ("allow_partial", allow_partial), ("prune_step", prune_step))}
        pattern_repeat = _integer(pattern_repeat, "TensorTiler2D: pattern_repeat", 1)
        axes = [_Axis(*values) for values in zip(tensor, tile, repeats, steps)]
        for d, axis in enumerate(axes):
            if axis.length % axis.tile:
                raise ValueError(
                    f"TensorTiler2D: tensor dimension {d} ({axis.length}) is not a multiple of "
                    f"tile dimension {d} ({axis.tile})"
                )
            span = axis.tile * axis.repeats * axis.step
            if not flags["allow_partial"] and axis.length % span:
                raise ValueError(
                    f"TensorTiler2D: tensor dimension {d} ({axis.length}) is not a whole number of tile "
                    f"groups of {axis.tile} x {axis.repeats} x {axis.step} (tile x repeats x step) elements; "
                    "pass allow_partial=True to allow cut-short groups"
                )
        rows, cols = (axis.clamped() for axis in axes)
        row_groups, col_groups = rows.group_count(), cols.group_count()
        taps = []
        for n in range(row_groups * col_groups):
            if flags["iter_col_major"]:
                col_group, row_group = divmod(n, row_groups)
            else:
                row_group, col_group = divmod(n, col_groups)
            offset, sizes, strides = cls._group_pattern(
                tensor[1], rows, cols, rows.group(row_group), cols.group(col_group), flags, pattern_repeat)
            taps.append(TensorAccessPattern(tensor, offset, sizes, strides))
        return TensorAccessSequence._of(tensor, taps)

    @staticmethod
    def _pair(values, what: str) -> tuple[int, int]:
        pair = _tensor_dims(values, f"TensorTiler2D: {what}")
        if len(pair) != 2:
            raise ValueError(f"TensorTiler2D: {what} must be (rows, cols), got {list(pair)}")
        return pair

    @staticmethod
    def _group_pattern(width, rows, cols, row_group, col_group, flags, pattern_repeat):
        """(offset, sizes, strides) of the pattern for one group of tiles."""
        first_row, row_repeats, row_step = row_group
        first_col, col_repeats, col_step = col_group
        tile_rows, tile_cols = rows.tile, cols.tile
        tile_col_major, group_col_major = flags["tile_col_major"], flags["tile_group_col_major"]
        if flags["prune_step"]:
            # A group walked in the same direction as its tiles, whose tiles
            # touch, is one larger tile.
            if group_col_major and not tile_col_major and row_step == 1 and row_repeats > 1:
                tile_rows, row_repeats = tile_rows * row_repeats, 1
            elif not group_col_major and tile_col_major and col_step == 1 and col_repeats > 1:
                tile_cols, col_repeats = tile_cols * col_repeats, 1
        if tile_col_major:
            sizes, strides = [1, 1, tile_cols, tile_rows], [0, 0, 1, width]
        else:
            sizes, strides = [1, 1, tile_rows, tile_cols], [0, 0, width, 1]
        row_loop = (row_repeats, width * rows.tile * row_step)
        col_loop = (col_repeats, cols.tile * col_step)
        if row_repeats > 1 and col_repeats > 1:
            outer, inner = (col_loop, row_loop) if group_col_major else (row_loop, col_loop)
            (sizes[0], strides[0]), (sizes[1], strides[1]) = outer, inner
        elif row_repeats > 1:
            sizes[1], strides[1] = row_loop
        elif col_repeats > 1:
            sizes[1], strides[1] = col_loop
        if pattern_repeat > 1:
            if sizes[0] != 1:
                raise ValueError(
                    f"TensorTiler2D: pattern_repeat={pattern_repeat} needs the outermost of the 4 dimensions, "
                    f"but a group of {row_repeats} x {col_repeats} tiles uses all of them "
                    f"(sizes {sizes}, strides {list(_zero_leading_unit_strides(sizes, strides))})"
                )
            sizes[0], strides[0] = pattern_repeat, 0
        offset = first_row * rows.tile * width + first_col * cols.tile
        return offset, sizes, strides
