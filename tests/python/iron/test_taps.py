"""tessel.iron.taps: tensor access patterns and sequences, each pattern's
visits checked against nested Python loops written here (the tilers:
test_tilers.py)."""

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
