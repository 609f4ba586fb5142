"""tessel.iron.taps: tensor access patterns, sequences and the 2-D tilers.

Each pattern's visits are checked against a reference written here: nested
Python loops for a single pattern, and for the tilers the tile grid of the
tensor taken apart with reshape/transpose (whole groups) or with explicit
loops over groups (partial groups)."""

import itertools
import re

import numpy as np
import pytest

from tessel.iron.taplib import TensorAccessPattern, TensorAccessSequence, TensorTiler2D

TAP = TensorAccessPattern


def loop_visits(tensor_dims, offset, sizes, strides):
    """The pattern rule written as plain nested loops."""
    element_count = int(np.prod(tensor_dims))
    return [(offset + sum(i * s for i, s in zip(index, strides))) % element_count
            for index in itertools.product(*(range(size) for size in sizes))]


def descriptor_walk(offset, sizes, strides):
    """The addresses a data mover running a descriptor produces (no modulo)."""
    return [offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*(range(size) for size in sizes))]


# -- TensorAccessPattern: hand-computed walks ------------------------------------------------------


def test_column_major_walk_of_a_2x4_tensor():
    tap = TAP((2, 4), 0, [4, 2], [1, 4])
    assert tap.flat_indices().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert tap.access_order().tolist() == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert tap.access_count().tolist() == [[1, 1, 1, 1], [1, 1, 1, 1]]
    assert tap.element_count() == 8


@pytest.mark.parametrize(
    "offset, sizes, strides, visits",
    [
        (6, [4], [1], [6, 7, 0, 1]),
        (5, [2, 2], [4, 1], [5, 6, 1, 2]),
        (1, [3], [3], [1, 4, 7]),
        (7, [3], [5], [7, 4, 1]),
    ],
    ids=["past-the-end", "second-row-wraps", "stride-3", "stride-5-wraps-twice"],
)
def test_visits_wrap_modulo_the_tensor_size(offset, sizes, strides, visits):
    assert TAP((2, 4), offset, sizes, strides).flat_indices().tolist() == visits


def test_access_order_of_a_wrapping_walk():
    tap = TAP((2, 4), 6, [4], [1])
    assert tap.access_order().tolist() == [[2, 3, -1, -1], [-1, -1, 0, 1]]
    assert tap.access_count().tolist() == [[1, 1, 0, 0], [0, 0, 1, 1]]


def test_stride_zero_repeats_a_walk():
    tap = TAP((2, 4), 2, [3, 2], [0, 1])
    assert tap.flat_indices().tolist() == [2, 3, 2, 3, 2, 3]
    assert tap.access_count().tolist() == [[0, 0, 3, 3], [0, 0, 0, 0]]
    assert tap.access_order().tolist() == [[-1, -1, 4, 5], [-1, -1, -1, -1]]


def test_access_order_keeps_the_last_visit():
    tap = TAP((1, 4), 0, [2, 3], [1, 1])
    assert tap.flat_indices().tolist() == [0, 1, 2, 1, 2, 3]
    assert tap.access_order().tolist() == [[0, 3, 4, 5]]
    assert tap.access_count().tolist() == [[1, 2, 2, 1]]
    order, count = tap.accesses()
    assert order.dtype == np.int32 and count.dtype == np.int32
    assert np.array_equal(order, tap.access_order()) and np.array_equal(count, tap.access_count())


# -- TensorAccessPattern: properties and value semantics ------------------------------------------


def test_properties():
    tap = TAP((3, 4), 1, (2, 3), (4, 1))
    assert tap.tensor_dims == [3, 4]
    assert tap.offset == 1
    assert tap.sizes == [2, 3]
    assert tap.strides == [4, 1]
    assert tap.transformation_dims == [(2, 4), (3, 1)]
    assert tap.element_count() == 6
    tap.sizes.append(9)  # a copy: the pattern does not change
    assert tap.sizes == [2, 3]


def test_defaults_walk_the_whole_tensor_row_major():
    assert TAP((2, 3)).sizes == [2, 3] and TAP((2, 3)).strides == [3, 1]
    assert TAP((2, 3)).flat_indices().tolist() == list(range(6))
    assert TAP((2, 3), sizes=[3, 2]).strides == [2, 1]
    assert TAP((2, 3), 2, sizes=[2], strides=[2]).flat_indices().tolist() == [2, 4]


def test_a_1d_tensor_is_held_as_1_by_n():
    tap = TAP((8,), 2, [3], [2])
    assert tap.tensor_dims == [1, 8]
    assert tap.access_order().shape == (1, 8)
    assert tap.access_order().tolist() == [[-1, -1, 0, -1, 1, -1, 2, -1]]
    assert tap == TAP((1, 8), 2, [3], [2])


@pytest.mark.parametrize(
    "sizes, strides, kept",
    [
        ([1, 1, 4], [7, 9, 1], [0, 0, 1]),
        ([1], [5], [5]),
        ([2, 1, 4], [4, 7, 1], [4, 7, 1]),
        ([1, 2, 1], [3, 4, 5], [0, 4, 5]),
    ],
    ids=["leading-ones", "innermost-kept", "inner-one-kept", "only-leading"],
)
def test_leading_size_one_dimensions_get_stride_zero(sizes, strides, kept):
    assert TAP((4, 4), 0, sizes, strides).strides == kept


def test_equality_hash_and_repr():
    tap = TAP((2, 4), 1, [2, 3], [4, 1])
    assert tap == TAP([2, 4], 1, (2, 3), np.array([4, 1]))
    assert tap != TAP((2, 4), 0, [2, 3], [4, 1])
    assert tap != TAP((4, 2), 1, [2, 3], [4, 1])
    assert tap != "TensorAccessPattern"
    assert TAP((2, 2), 0, [1, 1], [1, 1]) == TAP((2, 2), 0, [1, 1], [0, 1])
    assert len({tap, TAP((2, 4), 1, [2, 3], [4, 1])}) == 1
    assert repr(tap) == "TensorAccessPattern(tensor_dims=[2, 4], offset=1, sizes=[2, 3], strides=[4, 1])"
    assert eval(repr(tap), {"TensorAccessPattern": TAP}) == tap


@pytest.mark.parametrize(
    "args, error, message",
    [
        (((),), ValueError, "TensorAccessPattern: tensor_dims must hold at least one integer, got an empty sequence"),
        (((2, 0),), ValueError, "TensorAccessPattern: tensor_dims[1] must be an integer >= 1, got 0"),
        (("ab",), TypeError, "TensorAccessPattern: tensor_dims must be a sequence of integers, got 'ab' (str)"),
        (((2, 2.0),), TypeError, "TensorAccessPattern: tensor_dims[1] must be an integer >= 1, got 2.0 (float)"),
        (((2, 4), -1), ValueError, "TensorAccessPattern: offset must be an integer >= 0, got -1"),
        (((2, 4), 8), ValueError,
         "TensorAccessPattern: offset must be an element index in 0..7 (tensor_dims [2, 4] hold 8 elements), got 8"),
        (((2, 4), True), TypeError, "TensorAccessPattern: offset must be an integer >= 0, got True (bool)"),
        (((2, 4), 0, [2, 0], [4, 1]), ValueError, "TensorAccessPattern: sizes[1] must be an integer >= 1, got 0"),
        (((2, 4), 0, [2, 4], [-4, 1]), ValueError, "TensorAccessPattern: strides[0] must be an integer >= 0, got -4"),
        (((2, 4), 0, [2, 2], [1]), ValueError,
         "TensorAccessPattern: sizes and strides must have the same length, got 2 sizes [2, 2] and 1 strides [1]"),
        (((2, 4), 0, [], []), ValueError, "TensorAccessPattern: sizes must hold at least one integer"),
        (((2, 4), 0, np.ones((2, 2), dtype=int), [1, 1]), ValueError,
         "TensorAccessPattern: sizes must be a 1-D sequence of integers, got an array of shape (2, 2)"),
        (((2, 4), 0, 4, [1]), TypeError, "TensorAccessPattern: sizes must be a sequence of integers, got 4 (int)"),
    ],
    ids=["empty-dims", "zero-dim", "str-dims", "float-dim", "negative-offset", "offset-past-end", "bool-offset",
         "zero-size", "negative-stride", "length-mismatch", "empty-sizes", "2d-sizes", "int-sizes"],
)
def test_invalid_pattern(args, error, message):
    with pytest.raises(error, match=re.escape(message)):
        TAP(*args)


# -- TensorAccessPattern: flat_indices as the oracle -----------------------------------------------

PATTERNS = [
    ((2, 4), 0, [4, 2], [1, 4]),
    ((2, 4), 6, [4], [1]),
    ((2, 4), 3, [2, 3, 2], [0, 3, 1]),
    ((3, 5), 4, [3, 2, 2], [5, 1, 7]),
    ((4, 4, 2), 1, [2, 2, 2, 2], [16, 2, 8, 4]),
    ((6,), 5, [2, 3], [0, 2]),
    ((16, 16), 17, [2, 3, 4, 5], [100, 7, 16, 1]),
]


@pytest.mark.parametrize("pattern", PATTERNS, ids=[f"p{i}" for i in range(len(PATTERNS))])
def test_flat_indices_match_nested_loops(pattern):
    tap = TAP(*pattern)
    flat = tap.flat_indices()
    assert flat.dtype == np.int64
    assert flat.tolist() == loop_visits(tap.tensor_dims, *pattern[1:])
    assert list(tap.access_generator()) == flat.tolist()
    count = [0] * int(np.prod(tap.tensor_dims))
    for element in flat.tolist():
        count[element] += 1
    assert tap.access_count().reshape(-1).tolist() == count


@pytest.mark.parametrize("pattern", PATTERNS, ids=[f"p{i}" for i in range(len(PATTERNS))])
def test_access_order_holds_each_elements_last_step(pattern):
    tap = TAP(*pattern)
    expected = [-1] * int(np.prod(tap.tensor_dims))
    for step, element in enumerate(loop_visits(tap.tensor_dims, *pattern[1:])):
        expected[element] = step
    assert tap.access_order().reshape(-1).tolist() == expected


@pytest.mark.parametrize("pattern", [PATTERNS[0], PATTERNS[1], PATTERNS[3], PATTERNS[4]], ids=["p0", "p1", "p3", "p4"])
def test_flat_indices_are_the_order_access_order_implies(pattern):
    tap = TAP(*pattern)
    assert tap.access_count().max() == 1
    order = tap.access_order().reshape(-1)
    visited = np.flatnonzero(order >= 0)
    assert np.array_equal(visited[np.argsort(order[visited])], tap.flat_indices())


def test_compare_access_orders():
    row_major = TAP((2, 4), 0, [8], [1])
    assert row_major.compare_access_orders(TAP((2, 4), 0, [2, 4], [4, 1]))
    assert row_major != TAP((2, 4), 0, [2, 4], [4, 1])
    assert not row_major.compare_access_orders(TAP((2, 4), 0, [4, 2], [1, 4]))
    assert not row_major.compare_access_orders(TAP((2, 4), 0, [7], [1]))
    with pytest.raises(TypeError, match=re.escape("compare_access_orders: other must be a TensorAccessPattern")):
        row_major.compare_access_orders([0, 1])


# -- TensorAccessPattern: the data mover's descriptor ---------------------------------------------


@pytest.mark.parametrize(
    "pattern, descriptor",
    [
        (((2, 4), 0, [1, 1, 2, 4], [0, 0, 4, 1]), (0, (1, 1, 1, 8), (0, 0, 0, 1))),
        (((2, 4), 0, [4, 2], [1, 4]), (0, (1, 1, 4, 2), (0, 0, 1, 4))),
        (((2, 4), 2, [2, 3, 2], [0, 0, 1]), (2, (1, 1, 6, 2), (0, 0, 0, 1))),
        (((2, 4), 0, [3, 4], [1, 0]), (0, (1, 1, 3, 4), (0, 0, 1, 0))),
        (((2, 4), 5, [1], [3]), (5, (1, 1, 1, 1), (0, 0, 0, 0))),
        (((1, 64), 0, [3, 2, 2, 2, 2], [0, 1, 32, 4, 2]), (0, (3, 2, 2, 4), (0, 1, 32, 2))),
        (((1, 256), 0, [2, 1, 2, 1, 2, 1, 2], [100, 9, 1, 9, 20, 9, 3]), (0, (2, 2, 2, 2), (100, 1, 20, 3))),
        (((4, 8), 3, [2, 2, 4], [8, 16, 1]), (3, (1, 2, 2, 4), (0, 8, 16, 1))),
    ],
    ids=["row-major-merges", "column-major", "repeat-run-merges", "inner-stride-zero", "one-element",
         "five-to-four", "unit-dims-dropped", "swapped-rows"],
)
def test_descriptor_merges_and_pads(pattern, descriptor):
    tap = TAP(*pattern)
    result = tap.descriptor()
    assert result == descriptor
    assert all(type(v) is int for v in (result[0],) + result[1] + result[2])
    assert descriptor_walk(*result) == tap.flat_indices().tolist()


def test_descriptor_pads_to_max_dims():
    assert TAP((2, 4), 0, [4, 2], [1, 4]).descriptor(max_dims=6) == (0, (1, 1, 1, 1, 4, 2), (0, 0, 0, 0, 1, 4))
    assert TAP((2, 4)).descriptor(max_dims=1) == (0, (8,), (1,))


def test_descriptor_refuses_more_dimensions_than_the_mover_has():
    tap = TAP((1, 256), 0, [2, 2, 2, 2, 2], [100, 40, 1, 10, 3])
    message = (
        "descriptor: TensorAccessPattern(tensor_dims=[1, 256], offset=0, sizes=[2, 2, 2, 2, 2], "
        "strides=[100, 40, 1, 10, 3]) needs 5 address dimensions after merging contiguous ones "
        "((size, stride) = [(2, 100), (2, 40), (2, 1), (2, 10), (2, 3)]), but a data mover descriptor has at most 4"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        tap.descriptor()
    assert tap.descriptor(max_dims=5) == (0, (2, 2, 2, 2, 2), (100, 40, 1, 10, 3))
    with pytest.raises(ValueError, match=re.escape("needs 2 address dimensions after merging")):
        TAP((2, 4), 0, [4, 2], [1, 4]).descriptor(max_dims=1)


def test_descriptor_refuses_a_walk_that_wraps():
    message = (
        "descriptor: TensorAccessPattern(tensor_dims=[2, 4], offset=6, sizes=[4], strides=[1]) runs past the end "
        "of its tensor: its last visit is element 9 of 8"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        TAP((2, 4), 6, [4], [1]).descriptor()


@pytest.mark.parametrize("max_dims, error", [(0, ValueError), ("4", TypeError), (2.0, TypeError)])
def test_descriptor_max_dims_is_a_positive_integer(max_dims, error):
    with pytest.raises(error, match="descriptor: max_dims must be an integer >= 1"):
        TAP((2, 4)).descriptor(max_dims=max_dims)


# -- TensorAccessPattern: layout helpers ----------------------------------------------------------


def test_permute_reorders_the_loops():
    assert TAP((2, 4)).permute([1, 0]) == TAP((2, 4), 0, [4, 2], [1, 4])
    with pytest.raises(ValueError, match=re.escape("permute: dims must be a permutation of 0..1, got [0, 0]")):
        TAP((2, 4)).permute([0, 0])


def test_split_dim_keeps_the_visits():
    tap = TAP((1, 8)).split_dim(1, 2)
    assert (tap.sizes, tap.strides) == ([1, 2, 4], [0, 4, 1])
    assert tap.flat_indices().tolist() == list(range(8))
    with pytest.raises(ValueError, match=re.escape("split_dim: outer_size 3 does not divide dimension 1 of size 8")):
        TAP((1, 8)).split_dim(1, 3)
    with pytest.raises(ValueError, match=re.escape("split_dim: dim must be in 0..1 for 2 dimensions, got 2")):
        TAP((1, 8)).split_dim(2, 1)


def test_tile_walks_tile_by_tile():
    tap = TAP((4, 6)).tile([2, 3])
    assert (tap.sizes, tap.strides) == ([2, 2, 2, 3], [12, 3, 6, 1])
    expected = np.arange(24).reshape(2, 2, 2, 3).transpose(0, 2, 1, 3).reshape(-1)
    assert np.array_equal(tap.flat_indices(), expected)
    with pytest.raises(ValueError, match=re.escape("tile: tile_sizes[1] = 4 does not divide dimension 1 of size 6")):
        TAP((4, 6)).tile([2, 4])


def test_slice_picks_loop_iterations():
    tap = TAP((4, 6)).slice(0, 1, 2, 2)
    assert tap == TAP((4, 6), 6, [2, 6], [12, 1])
    assert tap.flat_indices().tolist() == list(range(6, 12)) + list(range(18, 24))
    with pytest.raises(ValueError, match=re.escape("slice: 1:6:2 does not fit dimension 0 of size 4")):
        TAP((4, 6)).slice(0, 1, 3, 2)


def test_unsqueeze_broadcast_and_squeeze():
    repeated = TAP((2, 4)).unsqueeze(0).broadcast(0, 3)
    assert (repeated.sizes, repeated.strides) == ([3, 2, 4], [0, 4, 1])
    assert repeated.flat_indices().tolist() == list(range(8)) * 3
    assert TAP((2, 4)).unsqueeze(2) == TAP((2, 4), 0, [2, 4, 1], [4, 1, 0])
    assert TAP((2, 4), 0, [2, 1, 4], [4, 7, 1]).squeeze() == TAP((2, 4))
    assert TAP((2, 4), 0, [2, 1, 4], [4, 7, 1]).squeeze(1) == TAP((2, 4))
    assert TAP((2, 4), 3, [1, 1], [0, 0]).squeeze() == TAP((2, 4), 3, [1], [0])
    with pytest.raises(ValueError, match=re.escape("squeeze: dimension 0 must have size 1, got 2")):
        TAP((2, 4)).squeeze(0)
    with pytest.raises(ValueError, match=re.escape("broadcast: dimension 1 must have size 1, got 4")):
        TAP((2, 4)).broadcast(1, 2)


# -- TensorAccessSequence ---------------------------------------------------------------------------


def test_sequence_built_from_an_offset_function():
    taps = TensorAccessSequence((2, 2), 4, sizes=[1, 1], strides=[1, 1], offset_fn=lambda step, _: step)
    assert len(taps) == 4
    assert [tap.offset for tap in taps] == [0, 1, 2, 3]
    tap = TAP((2, 2), offset=2, sizes=[1, 1], strides=[1, 1])
    assert tap in taps and taps[2] == tap and list(iter(taps))[2] == tap and taps[-1].offset == 3
    del taps[2]
    assert tap not in taps and len(taps) == 3
    taps.insert(2, tap)
    assert taps == TensorAccessSequence((2, 2), 4, sizes=[1, 1], strides=[1, 1], offset_fn=lambda step, _: step)
    assert taps != TensorAccessSequence((2, 2), 3, sizes=[1, 1], strides=[1, 1], offset_fn=lambda step, _: step)
    assert TAP((3, 3), offset=2, sizes=[1, 1], strides=[1, 1]) not in taps


def test_sequence_functions_receive_the_previous_value():
    taps = TensorAccessSequence((4, 4), 4, offset=1, sizes=[2], strides=[1],
                                offset_fn=lambda step, previous: previous + step,
                                sizes_fn=lambda step, previous: [previous[0] + 1])
    assert [tap.offset for tap in taps] == [1, 2, 4, 7]
    assert [tap.sizes for tap in taps] == [[3], [4], [5], [6]]


def test_sequence_accesses_number_every_visit_in_order():
    taps = TensorAccessSequence.from_taps([TAP((2, 4), 4, [4], [1]), TAP((2, 4), 0, [2, 2], [1, 0])])
    assert taps.flat_indices().tolist() == [4, 5, 6, 7, 0, 0, 1, 1]
    assert taps.access_order().tolist() == [[5, 7, -1, -1], [0, 1, 2, 3]]
    assert taps.access_count().tolist() == [[2, 2, 0, 0], [1, 1, 1, 1]]
    order, count = taps.accesses()
    assert np.array_equal(order, taps.access_order()) and np.array_equal(count, taps.access_count())


def test_sequence_of_one_pattern_twice_keeps_the_second_pass():
    tap = TAP((1, 4))
    taps = TensorAccessSequence.from_taps([tap, tap])
    assert taps.access_order().tolist() == [[4, 5, 6, 7]]
    assert taps.access_count().tolist() == [[2, 2, 2, 2]]


def test_sequence_slices_and_assignment():
    taps = TensorTiler2D.simple_tiler((4, 4), (2, 2))
    head = taps[:2]
    assert isinstance(head, TensorAccessSequence) and list(head) == [taps[0], taps[1]]
    assert head.tensor_dims == [4, 4]
    taps[0] = taps[3]
    assert taps[0].offset == 10
    taps[1:3] = [taps[3]]
    assert [tap.offset for tap in taps] == [10, 10, 10]
    assert taps.access_count().tolist() == [[0, 0, 0, 0]] * 2 + [[0, 0, 3, 3]] * 2
    taps.append(TAP((4, 4)))
    assert len(taps) == 4 and taps[3] == TAP((4, 4))


def test_empty_sequence():
    taps = TensorAccessSequence((2, 3), 0)
    assert len(taps) == 0 and taps.flat_indices().tolist() == []
    assert taps.access_order().tolist() == [[-1] * 3] * 2
    assert taps.access_count().tolist() == [[0] * 3] * 2


def test_sequence_compare_access_orders_and_repr():
    by_rows = TensorTiler2D.simple_tiler((4, 4), (2, 4))
    by_rows_again = TensorAccessSequence.from_taps([TAP((4, 4), 0, [8], [1]), TAP((4, 4), 8, [8], [1])])
    assert by_rows != by_rows_again and by_rows.compare_access_orders(by_rows_again)
    assert not by_rows.compare_access_orders(by_rows_again[:1])
    assert repr(by_rows_again) == (
        "TensorAccessSequence(tensor_dims=[4, 4], taps=[TensorAccessPattern(tensor_dims=[4, 4], offset=0, "
        "sizes=[8], strides=[1]), TensorAccessPattern(tensor_dims=[4, 4], offset=8, sizes=[8], strides=[1])])")
    assert repr(TensorTiler2D.simple_tiler((4, 4), (1, 4))).endswith(", ... (4 patterns)])")


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: TensorAccessSequence((2, 2), -1, 0, [1], [1]), ValueError,
         "TensorAccessSequence: num_steps must be an integer >= 0, got -1"),
        (lambda: TensorAccessSequence((2, 2), 2, offset=0, strides=[1]), ValueError,
         "TensorAccessSequence: give sizes or sizes_fn (both are None)"),
        (lambda: TensorAccessSequence((2, 2), 0, sizes=[1], strides=[1]), ValueError,
         "TensorAccessSequence: num_steps=0 builds no patterns, so it takes no sizes, strides"),
        (lambda: TensorAccessSequence((2, 2), 1, offset=0, sizes=[1], strides=[1], offset_fn=3), TypeError,
         "TensorAccessSequence: offset_fn must be callable, got 3 (int)"),
        (lambda: TensorAccessSequence((2, 2), 1, offset=4, sizes=[1], strides=[1]), ValueError,
         "TensorAccessPattern: offset must be an element index in 0..3"),
        (lambda: TensorAccessSequence.from_taps([]), ValueError,
         "from_taps: taps must hold at least one TensorAccessPattern, got none"),
        (lambda: TensorAccessSequence.from_taps([TAP((2, 2)), TAP((4, 1))]), ValueError,
         "from_taps: taps[1] has tensor_dims [4, 1], but this sequence's patterns walk tensor_dims [2, 2]"),
        (lambda: TensorAccessSequence.from_taps([TAP((2, 2)), (0, [1], [1])]), TypeError,
         "from_taps: taps[1] must be a TensorAccessPattern, got (0, [1], [1]) (tuple)"),
        (lambda: TensorTiler2D.simple_tiler((2, 2)).insert(0, TAP((1, 4))), ValueError,
         "TensorAccessSequence.insert: value has tensor_dims [1, 4], but this sequence's patterns walk"),
        (lambda: TensorTiler2D.simple_tiler((2, 2)).__setitem__(0, "tap"), TypeError,
         "TensorAccessSequence[0] must be a TensorAccessPattern, got 'tap' (str)"),
    ],
    ids=["negative-steps", "no-sizes", "zero-steps-with-values", "fn-not-callable", "bad-offset", "no-taps",
         "mixed-dims", "not-a-tap", "insert-mixed-dims", "set-not-a-tap"],
)
def test_invalid_sequence(build, error, message):
    with pytest.raises(error, match=re.escape(message)):
        build()


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
