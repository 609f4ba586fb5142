"""tessel.iron.tilers: TensorTiler2D's walks checked against the tile grid
of the tensor taken apart with reshape/transpose (whole groups) or with
explicit loops over groups (partial groups), and the single-core matmul's
taps."""

import itertools
import re

import numpy as np
import pytest

from tessel.iron.taplib import TensorAccessPattern, TensorAccessSequence, TensorTiler2D

TAP = TensorAccessPattern


# -- TensorTiler2D: references ----------------------------------------------------------------------


def reshape_reference(tensor_dims, tile_dims, repeats, steps, *, tile_col_major=False, tile_group_col_major=False,
                      iter_col_major=False, pattern_repeat=1):
    """Each pattern's visits for whole groups. A tile row index is
    (block * repeats + repeat) * steps + lane: block and lane pick the
    pattern, repeat the tile within its group (likewise for columns)."""
    (rows, cols), (tile_rows, tile_cols), (rh, rw), (sh, sw) = tensor_dims, tile_dims, repeats, steps
    grid = np.arange(rows * cols).reshape(rows // (tile_rows * rh * sh), rh, sh, tile_rows,
                                          cols // (tile_cols * rw * sw), rw, sw, tile_cols)
    pattern_axes = [4, 6, 0, 2] if iter_col_major else [0, 2, 4, 6]
    group_axes = [5, 1] if tile_group_col_major else [1, 5]
    tile_axes = [7, 3] if tile_col_major else [3, 7]
    walks = grid.transpose(pattern_axes + group_axes + tile_axes).reshape(-1, rh * rw * tile_rows * tile_cols)
    return np.tile(walks, (1, pattern_repeat))


def loop_reference(tensor_dims, tile_dims, repeats, steps, *, tile_col_major=False, tile_group_col_major=False,
                   iter_col_major=False, pattern_repeat=1):
    """Each pattern's visits, partial groups included: along an axis, blocks
    of repeats * steps tiles each hold `steps` interleaved groups, cut at the
    end of the axis; groups left empty are dropped."""
    (rows, cols), (tile_rows, tile_cols) = tensor_dims, tile_dims

    def groups(tile_count, repeat, step):
        found = []
        for start in range(0, tile_count, repeat * step):
            for lane in range(step):
                group = [t for t in range(start + lane, start + repeat * step, step) if t < tile_count]
                if group:
                    found.append(group)
        return found

    row_groups = groups(rows // tile_rows, repeats[0], steps[0])
    col_groups = groups(cols // tile_cols, repeats[1], steps[1])
    if iter_col_major:
        patterns = [(r, c) for c in col_groups for r in row_groups]
    else:
        patterns = [(r, c) for r in row_groups for c in col_groups]
    grid = np.arange(rows * cols).reshape(rows // tile_rows, tile_rows, cols // tile_cols, tile_cols)
    walks = []
    for row_group, col_group in patterns:
        if tile_group_col_major:
            tiles = [(r, c) for c in col_group for r in row_group]
        else:
            tiles = [(r, c) for r in row_group for c in col_group]
        walk = [(grid[r, :, c, :].T if tile_col_major else grid[r, :, c, :]).reshape(-1) for r, c in tiles]
        walks.append(np.tile(np.concatenate(walk), pattern_repeat))
    return walks


def assert_walks(taps, walks, tensor_dims):
    assert len(taps) == len(walks)
    for tap, walk in zip(taps, walks):
        assert tap.tensor_dims == list(tensor_dims)
        assert len(tap.sizes) == 4
        assert np.array_equal(tap.flat_indices(), walk), tap


FLAGS = list(itertools.product([False, True], repeat=4))
FLAG_IDS = ["-".join(name for name, on in zip(("tcm", "gcm", "icm", "prune"), flags) if on) or "default"
            for flags in FLAGS]


def flag_kwargs(flags):
    return dict(zip(("tile_col_major", "tile_group_col_major", "iter_col_major", "prune_step"), flags))


# -- TensorTiler2D: simple, group and step tilers ---------------------------------------------------


SIMPLE_FLAGS = [flags for flags in FLAGS if not flags[1]]  # simple_tiler has no tile_group_col_major


@pytest.mark.parametrize("pattern_repeat", [1, 3], ids=["once", "repeat3"])
@pytest.mark.parametrize("flags", SIMPLE_FLAGS, ids=[FLAG_IDS[FLAGS.index(flags)] for flags in SIMPLE_FLAGS])
def test_simple_tiler(flags, pattern_repeat):
    options = flag_kwargs(flags)
    del options["tile_group_col_major"]
    taps = TensorTiler2D.simple_tiler((6, 8), (2, 4), pattern_repeat=pattern_repeat, **options)
    del options["prune_step"]
    assert_walks(taps, reshape_reference((6, 8), (2, 4), (1, 1), (1, 1), pattern_repeat=pattern_repeat, **options),
                 (6, 8))
    assert np.array_equal(taps.access_count(), np.full((6, 8), pattern_repeat))


def test_simple_tiler_values():
    taps = TensorTiler2D.simple_tiler((6, 8), (2, 4), tile_col_major=True)
    assert [tap.offset for tap in taps] == [0, 4, 16, 20, 32, 36]
    assert {(tuple(tap.sizes), tuple(tap.strides)) for tap in taps} == {((1, 1, 4, 2), (0, 0, 1, 8))}
    whole = TensorTiler2D.simple_tiler((6, 8))
    assert list(whole) == [TAP((6, 8), 0, [1, 1, 6, 8], [0, 0, 8, 1])]
    assert whole[0].descriptor() == (0, (1, 1, 1, 48), (0, 0, 0, 1))
    column_order = TensorTiler2D.simple_tiler((6, 8), (2, 4), iter_col_major=True)
    assert [tap.offset for tap in column_order] == [0, 16, 32, 4, 20, 36]


def test_simple_tiler_on_a_1d_tensor():
    taps = TensorTiler2D.simple_tiler((8,), (4,))
    assert list(taps) == [TAP((1, 8), 0, [1, 1, 1, 4], [0, 0, 0, 1]), TAP((1, 8), 4, [1, 1, 1, 4], [0, 0, 0, 1])]


@pytest.mark.parametrize("group", [(2, 3), (1, 3), (2, 1), (4, 6)], ids=["2x3", "1x3", "2x1", "whole"])
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_group_tiler(flags, group):
    options = flag_kwargs(flags)
    taps = TensorTiler2D.group_tiler((8, 12), (2, 2), group, **options)
    del options["prune_step"]
    expected = reshape_reference((8, 12), (2, 2), group, (1, 1), **options)
    assert_walks(taps, expected, (8, 12))
    assert_walks(taps, loop_reference((8, 12), (2, 2), group, (1, 1), **options), (8, 12))
    assert np.array_equal(taps.access_order().reshape(-1)[np.concatenate(expected)], np.arange(96))


@pytest.mark.parametrize("group", [(2, 3), (1, 3), (2, 1)], ids=["2x3", "1x3", "2x1"])
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_group_tiler_pattern_repeat(flags, group):
    options = flag_kwargs(flags)
    # The repeat takes the outermost dimension: a group with more than one
    # tile each way leaves it free only where prune_step folds the group
    # into one tile, which needs the group walked the way its tiles are.
    folds = options["prune_step"] and options["tile_col_major"] != options["tile_group_col_major"]
    if group == (2, 3) and not folds:
        with pytest.raises(ValueError, match=re.escape("TensorTiler2D: pattern_repeat=2 needs the outermost")):
            TensorTiler2D.group_tiler((8, 12), (2, 2), group, pattern_repeat=2, **options)
        return
    taps = TensorTiler2D.group_tiler((8, 12), (2, 2), group, pattern_repeat=2, **options)
    del options["prune_step"]
    assert_walks(taps, reshape_reference((8, 12), (2, 2), group, (1, 1), pattern_repeat=2, **options), (8, 12))
    assert all(tap.sizes[0] == 2 and tap.strides[0] == 0 for tap in taps)


def test_group_tiler_prune_step_folds_a_group_into_one_tile():
    folded = TensorTiler2D.group_tiler((8, 12), (2, 2), (2, 3), tile_group_col_major=True)
    assert (folded[0].sizes, folded[0].strides) == ([1, 3, 4, 2], [0, 2, 12, 1])
    unfolded = TensorTiler2D.group_tiler((8, 12), (2, 2), (2, 3), tile_group_col_major=True, prune_step=False)
    assert (unfolded[0].sizes, unfolded[0].strides) == ([3, 2, 2, 2], [2, 24, 12, 1])
    assert folded.compare_access_orders(unfolded)
    assert [tap.offset for tap in folded] == [0, 6, 48, 54]
    wide = TensorTiler2D.group_tiler((8, 12), (2, 2), (2, 3), tile_col_major=True)
    assert (wide[1].offset, wide[1].sizes, wide[1].strides) == (6, [1, 2, 6, 2], [0, 24, 1, 12])


def test_group_tiler_repeat_error_names_the_group():
    message = ("TensorTiler2D: pattern_repeat=2 needs the outermost of the 4 dimensions, but a group of 2 x 3 tiles "
               "uses all of them (sizes [2, 3, 2, 2], strides [24, 2, 12, 1])")
    with pytest.raises(ValueError, match=re.escape(message)):
        TensorTiler2D.group_tiler((8, 12), (2, 2), (2, 3), pattern_repeat=2)


@pytest.mark.parametrize("shape", [((12, 16), (2, 2), (2, 2), (3, 2)), ((8, 18), (1, 3), (4, 3), (2, 2)),
                                   ((6, 6), (1, 1), (3, 1), (2, 3))],
                         ids=["12x16", "8x18", "6x6"])
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_step_tiler(flags, shape):
    options = flag_kwargs(flags)
    taps = TensorTiler2D.step_tiler(*shape, **options)
    del options["prune_step"]
    assert_walks(taps, reshape_reference(*shape, **options), shape[0])
    assert_walks(taps, loop_reference(*shape, **options), shape[0])
    assert (taps.access_count() == 1).all()


def test_step_tiler_values():
    taps = TensorTiler2D.step_tiler((12, 16), (2, 2), (2, 2), (3, 2))
    assert len(taps) == 12
    assert [tap.offset for tap in taps[:5]] == [0, 2, 8, 10, 32]
    assert (taps[0].sizes, taps[0].strides) == ([2, 2, 2, 2], [96, 4, 16, 1])
    assert TensorTiler2D.step_tiler((8, 12), (2, 2), (2, 3)) == TensorTiler2D.group_tiler((8, 12), (2, 2), (2, 3))


PARTIAL_SHAPES = [
    ((45, 28), (3, 2), (5, 7), (3, 3)),
    ((10, 9), (1, 1), (3, 2), (2, 3)),
    ((7, 10), (1, 2), (2, 3), (1, 1)),
    ((13, 8), (1, 4), (3, 1), (3, 1)),
    ((5, 4), (1, 1), (8, 1), (1, 9)),
]


@pytest.mark.parametrize("shape", PARTIAL_SHAPES, ids=["45x28", "10x9", "7x10", "13x8", "clamped"])
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_step_tiler_partial(flags, shape):
    options = flag_kwargs(flags)
    taps = TensorTiler2D.step_tiler(*shape, allow_partial=True, **options)
    del options["prune_step"]
    assert_walks(taps, loop_reference(*shape, **options), shape[0])
    assert (taps.access_count() == 1).all()


def test_step_tiler_partial_values():
    # Tiles of 3x2 in a 15x14 tile grid, groups of 5x7 tiles 3 apart: the
    # third group of each row is cut to 4 columns of tiles.
    taps = TensorTiler2D.step_tiler((45, 28), (3, 2), (5, 7), (3, 3), allow_partial=True)
    assert [tap.offset for tap in taps] == [0, 2, 4, 84, 86, 88, 168, 170, 172]
    assert [tap.sizes for tap in taps] == [[5, 5, 3, 2], [5, 5, 3, 2], [5, 4, 3, 2]] * 3
    assert {tuple(tap.strides) for tap in taps} == {(252, 6, 28, 1)}
    assert taps.access_order()[0, :8].tolist() == [0, 1, 150, 151, 300, 301, 6, 7]
    group = TensorTiler2D.group_tiler((7, 10), (1, 2), (2, 3), allow_partial=True)
    assert len(group) == 8
    assert [(tap.offset, tap.sizes) for tap in group[:2]] == [(0, [2, 3, 1, 2]), (6, [2, 2, 1, 2])]
    assert [(tap.offset, tap.sizes) for tap in group[-2:]] == [(60, [1, 3, 1, 2]), (66, [1, 2, 1, 2])]


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: TensorTiler2D.simple_tiler((6, 8), (4, 4)), ValueError,
         "TensorTiler2D: tensor dimension 0 (6) is not a multiple of tile dimension 0 (4)"),
        (lambda: TensorTiler2D.group_tiler((8, 12), (2, 2), (3, 1)), ValueError,
         ("TensorTiler2D: tensor dimension 0 (8) is not a whole number of tile groups of 2 x 3 x 1 "
          "(tile x repeats x step) elements; pass allow_partial=True")),
        (lambda: TensorTiler2D.step_tiler((8, 12), (2, 2), (1, 2), (1, 4)), ValueError,
         "TensorTiler2D: tensor dimension 1 (12) is not a whole number of tile groups of 2 x 2 x 4"),
        (lambda: TensorTiler2D.simple_tiler((2, 4, 4), (2, 2, 2)), ValueError,
         "TensorTiler2D: tensor_dims must be (rows, cols), got [2, 4, 4]"),
        (lambda: TensorTiler2D.simple_tiler((4, 4), (0, 2)), ValueError,
         "TensorTiler2D: tile_dims[0] must be an integer >= 1, got 0"),
        (lambda: TensorTiler2D.simple_tiler((4, 4), pattern_repeat=0), ValueError,
         "TensorTiler2D: pattern_repeat must be an integer >= 1, got 0"),
        (lambda: TensorTiler2D.simple_tiler((4, 4), tile_col_major="yes"), TypeError,
         "TensorTiler2D: tile_col_major must be True or False, got 'yes' (str)"),
        (lambda: TensorTiler2D(), TypeError, "TensorTiler2D cannot be instantiated"),
    ],
    ids=["tile-does-not-divide", "partial-group", "partial-step", "3d", "zero-tile", "zero-repeat", "str-flag",
         "instantiate"],
)
def test_invalid_tiling(build, error, message):
    with pytest.raises(error, match=re.escape(message)):
        build()


# -- The single-core matmul example's taps -----------------------------------------------------------


def matmul_taps(M, K, N, m, k, n, rows_per_block=4):
    a_tiles = TensorTiler2D.group_tiler((M, K), (m, k), (1, K // k), pattern_repeat=N // n)
    b_tap = TensorTiler2D.group_tiler((K, N), (k, n), (K // k, N // n), tile_group_col_major=True)[0]
    c_tiles = TensorTiler2D.group_tiler((M, N), (m, n), (rows_per_block // 2, N // n))
    return a_tiles, b_tap, c_tiles


def test_matmul_taps_at_the_examples_size():
    a_tiles, b_tap, c_tiles = matmul_taps(256, 256, 256, 64, 64, 32)
    assert len(a_tiles) == 4
    assert a_tiles[1] == TAP((256, 256), 16384, [8, 4, 64, 64], [0, 64, 256, 1])
    assert b_tap == TAP((256, 256), 0, [1, 8, 256, 32], [0, 32, 256, 1])
    assert list(c_tiles) == [TAP((256, 256), offset, [2, 8, 64, 32], [16384, 32, 256, 1]) for offset in (0, 32768)]
    for tap in list(a_tiles) + [b_tap] + list(c_tiles):
        offset, sizes, strides = tap.descriptor()
        assert (offset, list(sizes), list(strides)) == (tap.offset, tap.sizes, tap.strides)
    assert (TensorAccessSequence.from_taps(list(a_tiles)).access_count() == 8).all()
    assert (c_tiles.access_count() == 1).all()


def test_matmul_taps_stream_the_tiles_the_core_multiplies():
    M, K, N, m, k, n = 32, 48, 40, 8, 16, 10
    a_tiles, b_tap, c_tiles = matmul_taps(M, K, N, m, k, n)
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 8, size=(M, K))
    b = rng.integers(-8, 8, size=(K, N))
    c = np.zeros(M * N, dtype=a.dtype)
    for block, c_tap in enumerate(c_tiles):
        produced = []
        for tile_row in (2 * block, 2 * block + 1):
            # The core takes, per output tile j, K/k (A tile, B tile) pairs.
            a_stream = a.reshape(-1)[a_tiles[tile_row].flat_indices()].reshape(N // n, K // k, m, k)
            b_stream = b.reshape(-1)[b_tap.flat_indices()].reshape(N // n, K // k, k, n)
            produced += [sum(a_stream[j, kk] @ b_stream[j, kk] for kk in range(K // k)) for j in range(N // n)]
        c[c_tap.flat_indices()] = np.concatenate([tile.reshape(-1) for tile in produced])
    assert np.array_equal(c.reshape(M, N), a @ b)
