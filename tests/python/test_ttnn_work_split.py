"""ttnn.split_work_to_cores: tt-metal's split of work units over a grid."""

import pytest

import tessel.ttnn as ttnn
from tessel.ttnn import CoreCoord, CoreRange, CoreRangeSet


def _set(*ranges):
    return CoreRangeSet([CoreRange(CoreCoord(*a), CoreCoord(*b)) for a, b in ranges])


def test_fewer_units_than_cores_take_one_each_column_by_column():
    n, all_cores, g1, g2, u1, u2 = ttnn.split_work_to_cores(CoreCoord(4, 3), 5)
    assert (n, u1, u2) == (5, 1, 0)
    assert all_cores == g1 == _set(((0, 0), (0, 2)), ((1, 0), (1, 1)))
    assert g2 == CoreRangeSet()


def test_row_wise():
    n, all_cores, g1, g2, u1, u2 = ttnn.split_work_to_cores(CoreCoord(4, 3), 6, row_wise=True)
    assert (n, u1, u2) == (6, 1, 0)
    assert all_cores == _set(((0, 0), (3, 0)), ((0, 1), (1, 1)))


def test_uneven_split_gives_the_first_cores_one_more():
    n, all_cores, g1, g2, u1, u2 = ttnn.split_work_to_cores(CoreCoord(2, 2), 10)
    assert (n, u1, u2) == (4, 3, 2)
    assert all_cores == _set(((0, 0), (1, 1)))
    assert g1 == _set(((0, 0), (0, 1)))
    assert g2 == _set(((1, 0), (1, 1)))
    assert g1.num_cores() * u1 + g2.num_cores() * u2 == 10


def test_even_split_and_no_work():
    n, all_cores, g1, g2, u1, u2 = ttnn.split_work_to_cores(CoreCoord(2, 2), 8)
    assert (n, u1, u2, g1, g2) == (4, 2, 0, all_cores, CoreRangeSet())
    assert ttnn.split_work_to_cores(CoreCoord(2, 2), 0) == (0, CoreRangeSet(), CoreRangeSet(), CoreRangeSet(), 0, 0)


def test_grid_as_core_range_set():
    grid = _set(((0, 0), (7, 7)))
    assert ttnn.split_work_to_cores(grid, 65)[4:] == (2, 1)


def test_errors():
    with pytest.raises(TypeError, match=r"ttnn.split_work_to_cores: grid must be a ttnn.CoreCoord \(x, y\) or a "
                                        r"ttnn.CoreRangeSet, got 8 \(int\)"):
        ttnn.split_work_to_cores(8, 4)
    with pytest.raises(ValueError, match=r"ttnn.split_work_to_cores: grid must be one rectangle of cores from"):
        ttnn.split_work_to_cores(_set(((1, 1), (2, 2))), 4)
