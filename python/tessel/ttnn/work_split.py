"""ttnn.split_work_to_cores: how tt-metal splits work units over a grid.

    num_cores, all_cores, group_1, group_2, units_1, units_2 = ttnn.split_work_to_cores(grid, units)

With fewer units than cores, the first `units` cores take one each; with
more, every core works, and when the units do not divide evenly the first
units % cores cores (group 1) take one more than the rest (group 2). Cores
are counted column by column (x outer, y inner), or row by row when
row_wise (y outer, x inner).
"""

from .. import _check
from ..core import CoreCoord, CoreRange, CoreRangeSet

__all__ = ["num_cores_to_corerangeset", "split_work_to_cores"]


def _grid(value, what):
    if isinstance(value, CoreRangeSet):
        if len(value.ranges) != 1 or value.ranges[0].start_coord != CoreCoord(0, 0):
            raise ValueError(f"{what}: grid must be one rectangle of cores from (0, 0), got {value!r}")
        end = value.ranges[0].end_coord
        return end.x + 1, end.y + 1
    if isinstance(value, CoreCoord) or (isinstance(value, (tuple, list)) and len(value) == 2):
        x, y = value
        return (_check.integer(x, f"{what}: grid.x", 1, 0xFFFF, "a core count"),
                _check.integer(y, f"{what}: grid.y", 1, 0xFFFF, "a core count"))
    raise TypeError(f"{what}: grid must be a ttnn.CoreCoord (x, y) or a ttnn.CoreRangeSet, got "
                    f"{_check.describe(value)}")


def _core(index, gx, gy, row_wise):
    return CoreCoord(index % gx, index // gx) if row_wise else CoreCoord(index // gy, index % gy)


def _ranges(first, count, gx, gy, row_wise):
    """The CoreRangeSet of `count` cores from core number `first`: a partial
    line, whole lines, a partial line."""
    out, i, end = [], first, first + count
    line = gx if row_wise else gy
    while i < end:
        pos = i % line
        if pos == 0 and end - i >= line:
            lines = (end - i) // line
            start, last = _core(i, gx, gy, row_wise), _core(i + lines * line - 1, gx, gy, row_wise)
            i += lines * line
        else:
            n = min(line - pos, end - i)
            start, last = _core(i, gx, gy, row_wise), _core(i + n - 1, gx, gy, row_wise)
            i += n
        out.append(CoreRange(start, last))
    return CoreRangeSet(out)


def num_cores_to_corerangeset(target_num_cores, grid_size, row_wise=False) -> CoreRangeSet:
    """The first target_num_cores cores of the grid, as ttnn counts them."""
    gx, gy = _grid(grid_size, "ttnn.num_cores_to_corerangeset")
    n = _check.integer(target_num_cores, "ttnn.num_cores_to_corerangeset: target_num_cores", 0, gx * gy,
                       "a core count within the grid")
    return _ranges(0, n, gx, gy, _check.flag(row_wise, "ttnn.num_cores_to_corerangeset: row_wise"))


def split_work_to_cores(grid, units_to_divide, row_wise=False):
    """(num_cores, all_cores, core_group_1, core_group_2,
    units_per_core_group_1, units_per_core_group_2) for `units_to_divide`
    units over `grid` (a CoreCoord of the grid's size, or a CoreRangeSet of
    one rectangle from (0, 0))."""
    what = "ttnn.split_work_to_cores"
    gx, gy = _grid(grid, what)
    units = _check.integer(units_to_divide, f"{what}: units_to_divide", 0, _check.WORD_MAX, "a unit count")
    row_wise = _check.flag(row_wise, f"{what}: row_wise")
    if units == 0:
        return 0, CoreRangeSet(), CoreRangeSet(), CoreRangeSet(), 0, 0
    cores = min(units, gx * gy)
    all_cores = _ranges(0, cores, gx, gy, row_wise)
    per_core, extra = divmod(units, cores)
    if extra == 0:
        return cores, all_cores, all_cores, CoreRangeSet(), per_core, 0
    group_1 = _ranges(0, extra, gx, gy, row_wise)
    group_2 = _ranges(extra, cores - extra, gx, gy, row_wise)
    return cores, all_cores, group_1, group_2, per_core + 1, per_core
