"""ttl.utils.block_allocation.split_work_to_cores: work units over a grid
given as a tuple of dimensions, coordinates as tuples (the last entry x,
the one before y), the form tt-lang's helper has.

    total, (start1, end1), group_2, per_core_1, per_core_2 = split_work_to_cores((8, 8), 100)

Returns (cores used, group 1's bounding box (first core, last core,
inclusive), group 2's bounding box or (), units per core of group 1, of
group 2). With fewer units than cores, the first `units` cores take one
each; with more, the first units % cores cores take one more. Cores are
counted row by row (row_wise, the default) or column by column.
ttnn.split_work_to_cores is the ttnn form, with CoreRangeSets.
"""

from math import prod

from ... import _check

__all__ = ["split_work_to_cores"]


def _coord(index, grid, row_wise):
    """Core number `index` as a coordinate tuple of the grid's rank."""
    rows, cols = (grid[-2] if len(grid) > 1 else 1), grid[-1]
    y, x = divmod(index, cols) if row_wise else (index % rows, index // rows)
    prefix = (0,) * (len(grid) - 2)
    return prefix + ((y, x) if len(grid) > 1 else (x,))


def split_work_to_cores(grid_size, units_to_divide, row_wise=True):
    what = "ttl.utils.split_work_to_cores"
    if not isinstance(grid_size, (tuple, list)) or not grid_size:
        raise TypeError(f"{what}: grid_size must be a tuple of dimensions, got {_check.describe(grid_size)}")
    grid = tuple(_check.integer(d, f"{what}: grid_size[{i}]", 1, 0xFFFF, "a core count")
                 for i, d in enumerate(grid_size))
    if any(d != 1 for d in grid[:-2]):
        raise ValueError(f"{what}: only one device's grid (at most two dimensions above 1, the last two) is "
                         f"supported, got {grid}")
    units = _check.integer(units_to_divide, f"{what}: units_to_divide", 0, _check.WORD_MAX, "a unit count")
    row_wise = _check.flag(row_wise, f"{what}: row_wise")
    if units == 0:
        return 0, (), (), 0, 0
    total = prod(grid)
    start = (0,) * len(grid)
    if units <= total:
        return units, (start, _coord(units - 1, grid, row_wise)), (), 1, 0
    per_core, extra = divmod(units, total)
    if extra == 0:
        return total, (start, _coord(total - 1, grid, row_wise)), (), per_core, 0
    group_1 = (start, _coord(extra - 1, grid, row_wise))
    group_2 = (_coord(extra, grid, row_wise), _coord(total - 1, grid, row_wise))
    return total, group_1, group_2, per_core + 1, per_core
