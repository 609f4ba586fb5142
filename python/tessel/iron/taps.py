"""Tensor access patterns ("taps"), IRON's taplib: TensorAccessPattern and
TensorAccessSequence (the TensorTiler2D factory is in tilers.py).

The access rule
    A TensorAccessPattern(tensor_dims, offset, sizes, strides) is len(sizes)
    nested loops, sizes[0] outermost. Step (i_0, ..., i_n) visits the element
    whose row-major flat index is

        (offset + sum(i_d * strides[d])) mod prod(tensor_dims)

    Sizes, strides and the offset count elements, never bytes. Every other
    method is derived from this rule: flat_indices() lists the visits in
    order, access_order() and access_count() fold them onto the tensor.

The data mover's contract
    descriptor() is what a data mover's address generator runs: an offset and
    exactly max_dims (size, stride) pairs, outermost first, padded on the
    outside with size 1 / stride 0. It yields flat_indices() exactly, so
    flat_indices() is the oracle the simulator's movers are checked against.
    A mover has no modulo, so descriptor() refuses a pattern that would run
    past the end of its tensor (IRON's taplib wraps such a pattern).

Kept from IRON on purpose: a 1-D tensor_dims (n,) is held as [1, n];
leading size-1 dimensions get stride 0 (except the innermost), so
TensorAccessPattern((4, 4), 0, [1, 4], [9, 1]).strides == [0, 1];
access_order() keeps the last visit of an element and -1 for elements never
visited; the arrays are int32 and have the shape of tensor_dims.
"""

from __future__ import annotations

import operator
from collections import abc
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .. import _check

__all__ = ["TensorAccessPattern", "TensorAccessSequence"]

# What access_order() and access_count() return, as IRON's taplib does.
_ACCESS_DTYPE = np.int32


def _integer(value, what: str, minimum: int) -> int:
    """An integer-indexable, non-boolean value >= minimum, as a Python int."""
    if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be an integer >= {minimum}, got {_check.describe(value)}")
    number = operator.index(value)
    if number < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}, got {number}")
    return number


def _integers(values, what: str, minimum: int) -> tuple[int, ...]:
    """A non-empty sequence (list, tuple, range or 1-D integer array) of
    integers >= minimum, as a tuple of Python ints."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{what} must be a 1-D sequence of integers, got an array of shape {values.shape}")
    elif isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{what} must be a sequence of integers, got {_check.describe(values)}")
    if len(values) == 0:
        raise ValueError(f"{what} must hold at least one integer, got an empty sequence")
    return tuple(_integer(v, f"{what}[{i}]", minimum) for i, v in enumerate(values))


def _tensor_dims(values, what: str) -> tuple[int, ...]:
    """Positive dimensions; a 1-D shape (n,) becomes (1, n), as in IRON."""
    dims = _integers(values, what, 1)
    return (1, dims[0]) if len(dims) == 1 else dims


def _contiguous_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for d in range(len(sizes) - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1]
    return tuple(strides)


def _zero_leading_unit_strides(sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """IRON's clean-up: the stride of each leading size-1 dimension (all but
    the innermost) is 0, so equal walks compare equal."""
    strides = list(strides)
    for d in range(len(sizes) - 1):
        if sizes[d] != 1:
            break
        strides[d] = 0
    return tuple(strides)


def _merged_dims(sizes: Sequence[int], strides: Sequence[int]) -> list[tuple[int, int]]:
    """The fewest (size, stride) pairs, outermost first, that walk the same
    addresses: size-1 dimensions dropped, and an outer dimension folded into
    the one inside it when outer stride == inner size * inner stride (that
    includes runs of stride-0 repeats)."""
    merged: list[tuple[int, int]] = []  # innermost first while building
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size == 1:
            continue
        if merged and stride == merged[-1][0] * merged[-1][1]:
            inner_size, inner_stride = merged[-1]
            merged[-1] = (inner_size * size, inner_stride)
        else:
            merged.append((size, stride))
    merged.reverse()
    return merged


def _accesses(flat: np.ndarray, tensor_dims: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(access_order, access_count) of a visit list: the step number of each
    element's last visit (-1 if never visited), and its number of visits."""
    element_count = int(np.prod(tensor_dims))
    order = np.full(element_count, -1, dtype=np.int64)
    # Steps increase along the list, so the largest step is the last visit.
    np.maximum.at(order, flat, np.arange(flat.size, dtype=np.int64))
    count = np.bincount(flat, minlength=element_count)
    return (order.astype(_ACCESS_DTYPE).reshape(tensor_dims),
            count.astype(_ACCESS_DTYPE).reshape(tensor_dims))


class TensorAccessPattern:
    """An access pattern over a row-major tensor: an offset and nested loops
    of (size, stride) pairs, outermost first, in elements (the module
    docstring states the rule). Immutable and hashable; the sizes, strides
    and tensor_dims properties return fresh lists, as IRON's do. Omitted
    sizes walk the whole tensor and omitted strides are contiguous for the
    sizes, so TensorAccessPattern(dims) is a plain row-major read."""

    __slots__ = ("_offset", "_sizes", "_strides", "_tensor_dims")

    def __init__(
        self,
        tensor_dims: Sequence[int],
        offset: int = 0,
        sizes: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
    ):
        dims = _tensor_dims(tensor_dims, "TensorAccessPattern: tensor_dims")
        element_count = int(np.prod(dims))
        offset = _integer(offset, "TensorAccessPattern: offset", 0)
        if offset >= element_count:
            raise ValueError(
                f"TensorAccessPattern: offset must be an element index in 0..{element_count - 1} "
                f"(tensor_dims {list(dims)} hold {element_count} elements), got {offset}"
            )
        sizes = dims if sizes is None else _integers(sizes, "TensorAccessPattern: sizes", 1)
        if strides is None:
            strides = _contiguous_strides(sizes)
        else:
            strides = _integers(strides, "TensorAccessPattern: strides", 0)
        if len(sizes) != len(strides):
            raise ValueError(
                f"TensorAccessPattern: sizes and strides must have the same length, got "
                f"{len(sizes)} sizes {list(sizes)} and {len(strides)} strides {list(strides)}"
            )
        self._tensor_dims = dims
        self._offset = offset
        self._sizes = sizes
        self._strides = _zero_leading_unit_strides(sizes, strides)

    # -- the pattern ------------------------------------------------------------------------------

    @property
    def tensor_dims(self) -> list[int]:
        """The shape of the tensor the pattern walks."""
        return list(self._tensor_dims)

    @property
    def offset(self) -> int:
        """The flat element index of the first visit."""
        return self._offset

    @property
    def sizes(self) -> list[int]:
        """Loop counts, outermost first."""
        return list(self._sizes)

    @property
    def strides(self) -> list[int]:
        """Element strides, outermost first."""
        return list(self._strides)

    @property
    def transformation_dims(self) -> list[tuple[int, int]]:
        """The loops as (size, stride) pairs, outermost first."""
        return list(zip(self._sizes, self._strides))

    def element_count(self) -> int:
        """How many visits the pattern makes: prod(sizes)."""
        return int(np.prod(self._sizes))

    # -- what it visits ---------------------------------------------------------------------------

    def flat_indices(self) -> np.ndarray:
        """The flat element index of every visit, in visit order, as int64:
        the reference a data mover's address stream must equal."""
        addresses = np.array(self._offset, dtype=np.int64)
        for size, stride in zip(self._sizes, self._strides):
            addresses = addresses[..., np.newaxis] + np.arange(size, dtype=np.int64) * stride
        return addresses.reshape(-1) % int(np.prod(self._tensor_dims))

    def access_generator(self) -> Iterator[int]:
        """The flat element indices of flat_indices(), one Python int at a time."""
        return iter(self.flat_indices().tolist())

    def accesses(self) -> tuple[np.ndarray, np.ndarray]:
        """(access_order(), access_count()), computed together."""
        return _accesses(self.flat_indices(), self._tensor_dims)

    def access_order(self) -> np.ndarray:
        """For each element of the tensor (an int32 array of tensor_dims'
        shape), the 0-based step of its last visit, or -1 if never visited."""
        return self.accesses()[0]

    def access_count(self) -> np.ndarray:
        """For each element of the tensor, how many times the pattern visits it."""
        return self.accesses()[1]

    def compare_access_orders(self, other: TensorAccessPattern) -> bool:
        """Whether `other` visits the same elements in the same order, however
        its sizes and strides are written."""
        if not isinstance(other, TensorAccessPattern):
            raise TypeError(
                f"compare_access_orders: other must be a TensorAccessPattern, got {_check.describe(other)}"
            )
        return bool(np.array_equal(self.flat_indices(), other.flat_indices()))

    # -- the data mover's form --------------------------------------------------------------------

    def descriptor(self, max_dims: int = 4) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        """(offset, sizes, strides) for a data mover with max_dims address
        dimensions: adjacent dimensions merged where they walk contiguously,
        size-1 dimensions dropped, then padded on the outside with size 1 /
        stride 0 to exactly max_dims entries (plain int tuples, outermost
        first). Raises ValueError if more than max_dims dimensions remain, or
        if the walk would pass the end of the tensor (a mover has no modulo)."""
        max_dims = _integer(max_dims, "descriptor: max_dims", 1)
        merged = _merged_dims(self._sizes, self._strides)
        if len(merged) > max_dims:
            raise ValueError(
                f"descriptor: {self!r} needs {len(merged)} address dimensions after merging "
                f"contiguous ones ((size, stride) = {merged}), but a data mover descriptor "
                f"has at most {max_dims}"
            )
        last = self._offset + sum((size - 1) * stride for size, stride in merged)
        element_count = int(np.prod(self._tensor_dims))
        if last >= element_count:
            raise ValueError(
                f"descriptor: {self!r} runs past the end of its tensor: its last visit is element "
                f"{last} of {element_count}; a data mover does not wrap, so split the pattern or "
                "move its offset"
            )
        padding = max_dims - len(merged)
        sizes = (1,) * padding + tuple(size for size, _ in merged)
        strides = (0,) * padding + tuple(stride for _, stride in merged)
        return self._offset, sizes, strides

    # -- new patterns from this one (IRON's layout helpers) ---------------------------------------

    def _with(self, offset: int, sizes: Sequence[int], strides: Sequence[int]) -> TensorAccessPattern:
        return TensorAccessPattern(self._tensor_dims, offset, sizes, strides)

    def _dim(self, dim, what: str, extra: int = 0) -> int:
        rank = len(self._sizes)
        dim = _integer(dim, f"{what}: dim", 0)
        if dim >= rank + extra:
            raise ValueError(f"{what}: dim must be in 0..{rank + extra - 1} for {rank} dimensions, got {dim}")
        return dim

    def permute(self, dims: Sequence[int]) -> TensorAccessPattern:
        """The same loops in another nesting order: new loop i is old loop dims[i]."""
        order = _integers(dims, "permute: dims", 0)
        if sorted(order) != list(range(len(self._sizes))):
            raise ValueError(
                f"permute: dims must be a permutation of 0..{len(self._sizes) - 1}, got {list(order)}"
            )
        return self._with(self._offset, [self._sizes[d] for d in order], [self._strides[d] for d in order])

    def split_dim(self, dim: int, outer_size: int) -> TensorAccessPattern:
        """Loop `dim` split into an outer loop of outer_size and an inner loop
        of sizes[dim] // outer_size; the visits are unchanged."""
        dim = self._dim(dim, "split_dim")
        outer_size = _integer(outer_size, "split_dim: outer_size", 1)
        size, stride = self._sizes[dim], self._strides[dim]
        if size % outer_size:
            raise ValueError(f"split_dim: outer_size {outer_size} does not divide dimension {dim} of size {size}")
        inner_size = size // outer_size
        sizes = self._sizes[:dim] + (outer_size, inner_size) + self._sizes[dim + 1:]
        strides = self._strides[:dim] + (stride * inner_size, stride) + self._strides[dim + 1:]
        return self._with(self._offset, sizes, strides)

    def tile(self, tile_sizes: Sequence[int]) -> TensorAccessPattern:
        """Every loop d split into sizes[d] // tile_sizes[d] tiles of
        tile_sizes[d], the tile loops outside the in-tile loops:
        (outer_0, ..., outer_n, inner_0, ..., inner_n)."""
        tiles = _integers(tile_sizes, "tile: tile_sizes", 1)
        if len(tiles) != len(self._sizes):
            raise ValueError(
                f"tile: tile_sizes must have one entry per dimension ({len(self._sizes)}), got {list(tiles)}"
            )
        for d, (size, tile) in enumerate(zip(self._sizes, tiles)):
            if size % tile:
                raise ValueError(f"tile: tile_sizes[{d}] = {tile} does not divide dimension {d} of size {size}")
        sizes = [size // tile for size, tile in zip(self._sizes, tiles)] + list(tiles)
        strides = [stride * tile for stride, tile in zip(self._strides, tiles)] + list(self._strides)
        return self._with(self._offset, sizes, strides)

    def slice(self, dim: int, start: int, length: int, step: int = 1) -> TensorAccessPattern:
        """Loop `dim` restricted to iterations start, start+step, ... (length of them)."""
        dim = self._dim(dim, "slice")
        start = _integer(start, "slice: start", 0)
        length = _integer(length, "slice: length", 1)
        step = _integer(step, "slice: step", 1)
        last = start + (length - 1) * step
        if last >= self._sizes[dim]:
            raise ValueError(
                f"slice: {start}:{last + 1}:{step} does not fit dimension {dim} of size {self._sizes[dim]}"
            )
        sizes = self._sizes[:dim] + (length,) + self._sizes[dim + 1:]
        strides = self._strides[:dim] + (self._strides[dim] * step,) + self._strides[dim + 1:]
        return self._with(self._offset + start * self._strides[dim], sizes, strides)

    def unsqueeze(self, dim: int) -> TensorAccessPattern:
        """A size-1, stride-0 loop inserted at position `dim` (0..rank)."""
        dim = self._dim(dim, "unsqueeze", extra=1)
        return self._with(self._offset, self._sizes[:dim] + (1,) + self._sizes[dim:],
                          self._strides[:dim] + (0,) + self._strides[dim:])

    def broadcast(self, dim: int, size: int) -> TensorAccessPattern:
        """Size-1 loop `dim` grown to `size` repeats (stride 0)."""
        dim = self._dim(dim, "broadcast")
        size = _integer(size, "broadcast: size", 1)
        if self._sizes[dim] != 1:
            raise ValueError(f"broadcast: dimension {dim} must have size 1, got {self._sizes[dim]}")
        return self._with(self._offset, self._sizes[:dim] + (size,) + self._sizes[dim + 1:],
                          self._strides[:dim] + (0,) + self._strides[dim + 1:])

    def squeeze(self, dim: int | None = None) -> TensorAccessPattern:
        """Size-1 loop `dim` removed, or every size-1 loop if dim is None
        (keeping one if all have size 1)."""
        if dim is not None:
            dim = self._dim(dim, "squeeze")
            if self._sizes[dim] != 1:
                raise ValueError(f"squeeze: dimension {dim} must have size 1, got {self._sizes[dim]}")
            keep = [d for d in range(len(self._sizes)) if d != dim]
        else:
            keep = [d for d, size in enumerate(self._sizes) if size != 1]
        if not keep:
            return self._with(self._offset, [1], [0])
        return self._with(self._offset, [self._sizes[d] for d in keep], [self._strides[d] for d in keep])

    # -- value semantics --------------------------------------------------------------------------

    def _key(self) -> tuple:
        return self._tensor_dims, self._offset, self._sizes, self._strides

    def __eq__(self, other):
        if not isinstance(other, TensorAccessPattern):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"TensorAccessPattern(tensor_dims={list(self._tensor_dims)}, offset={self._offset}, "
                f"sizes={list(self._sizes)}, strides={list(self._strides)})")


class TensorAccessSequence(abc.MutableSequence):
    """An ordered, mutable list of TensorAccessPatterns over one tensor shape
    (a tiler's output, or the transfers of one buffer), applied one after
    another: access_order() numbers every visit of every pattern with one
    counter, access_count() sums the visits.

    The constructor builds num_steps patterns from fixed values or from
    functions of (step, previous value): offset_fn(step, offset) -> offset,
    sizes_fn(step, sizes) -> sizes, strides_fn(step, strides) -> strides;
    each of offset, sizes, strides needs a value or a function, and
    num_steps=0 takes neither. from_taps() wraps existing patterns."""

    def __init__(
        self,
        tensor_dims: Sequence[int],
        num_steps: int,
        offset: int | None = None,
        sizes: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        offset_fn: Callable[[int, int | None], int] | None = None,
        sizes_fn: Callable[[int, Sequence[int] | None], Sequence[int]] | None = None,
        strides_fn: Callable[[int, Sequence[int] | None], Sequence[int]] | None = None,
    ):
        self._tensor_dims = _tensor_dims(tensor_dims, "TensorAccessSequence: tensor_dims")
        num_steps = _integer(num_steps, "TensorAccessSequence: num_steps", 0)
        given = {"offset": offset, "sizes": sizes, "strides": strides, "offset_fn": offset_fn,
                 "sizes_fn": sizes_fn, "strides_fn": strides_fn}
        if num_steps == 0:
            named = [name for name, value in given.items() if value is not None]
            if named:
                raise ValueError(
                    f"TensorAccessSequence: num_steps=0 builds no patterns, so it takes no {', '.join(named)}"
                )
            self._taps: list[TensorAccessPattern] = []
            return
        for name in ("offset", "sizes", "strides"):
            function = given[f"{name}_fn"]
            if function is None and given[name] is None:
                raise ValueError(f"TensorAccessSequence: give {name} or {name}_fn (both are None)")
            if function is not None and not callable(function):
                raise TypeError(f"TensorAccessSequence: {name}_fn must be callable, got {_check.describe(function)}")
        taps = []
        for step in range(num_steps):
            offset = offset if offset_fn is None else offset_fn(step, offset)
            sizes = sizes if sizes_fn is None else sizes_fn(step, sizes)
            strides = strides if strides_fn is None else strides_fn(step, strides)
            taps.append(TensorAccessPattern(self._tensor_dims, offset, sizes, strides))
        self._taps = taps

    @classmethod
    def from_taps(cls, taps: Sequence[TensorAccessPattern]) -> TensorAccessSequence:
        """A sequence of existing patterns, which must share tensor_dims."""
        if isinstance(taps, (str, bytes)) or not isinstance(taps, abc.Iterable):
            raise TypeError(f"from_taps: taps must be a sequence of TensorAccessPatterns, got {_check.describe(taps)}")
        taps = list(taps)
        if not taps:
            raise ValueError("from_taps: taps must hold at least one TensorAccessPattern, got none")
        for i, tap in enumerate(taps):
            if not isinstance(tap, TensorAccessPattern):
                raise TypeError(f"from_taps: taps[{i}] must be a TensorAccessPattern, got {_check.describe(tap)}")
        return cls._of(taps[0]._tensor_dims, taps)

    @classmethod
    def _of(cls, tensor_dims: tuple[int, ...], taps: list[TensorAccessPattern]) -> TensorAccessSequence:
        sequence = cls(tensor_dims, 0)
        for i, tap in enumerate(taps):
            sequence._check_tap(tap, f"from_taps: taps[{i}]")
        sequence._taps = list(taps)
        return sequence

    def _check_tap(self, tap, what: str) -> TensorAccessPattern:
        if not isinstance(tap, TensorAccessPattern):
            raise TypeError(f"{what} must be a TensorAccessPattern, got {_check.describe(tap)}")
        if tap._tensor_dims != self._tensor_dims:
            raise ValueError(
                f"{what} has tensor_dims {tap.tensor_dims}, but this sequence's patterns walk "
                f"tensor_dims {list(self._tensor_dims)}"
            )
        return tap

    @property
    def tensor_dims(self) -> list[int]:
        """The shape every pattern in the sequence walks."""
        return list(self._tensor_dims)

    # -- what it visits ---------------------------------------------------------------------------

    def flat_indices(self) -> np.ndarray:
        """The flat element index of every visit of every pattern, in order (int64)."""
        if not self._taps:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([tap.flat_indices() for tap in self._taps])

    def accesses(self) -> tuple[np.ndarray, np.ndarray]:
        """(access_order(), access_count()), computed together."""
        return _accesses(self.flat_indices(), self._tensor_dims)

    def access_order(self) -> np.ndarray:
        """For each element, the step of its last visit counting the visits
        of all patterns in order (-1 if never visited)."""
        return self.accesses()[0]

    def access_count(self) -> np.ndarray:
        """For each element, how many times the patterns visit it in total."""
        return self.accesses()[1]

    def compare_access_orders(self, other: TensorAccessSequence) -> bool:
        """Whether `other` has as many patterns and each visits what the
        matching pattern here visits, in the same order."""
        if not isinstance(other, TensorAccessSequence):
            raise TypeError(
                f"compare_access_orders: other must be a TensorAccessSequence, got {_check.describe(other)}"
            )
        return len(self) == len(other) and all(a.compare_access_orders(b) for a, b in zip(self, other))

    # -- the list -----------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._taps)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return TensorAccessSequence._of(self._tensor_dims, self._taps[index])
        return self._taps[index]

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            values = [self._check_tap(tap, f"TensorAccessSequence[{index}]: item {i}") for i, tap in enumerate(value)]
            self._taps[index] = values
        else:
            self._taps[index] = self._check_tap(value, f"TensorAccessSequence[{index}]")

    def __delitem__(self, index):
        del self._taps[index]

    def insert(self, index: int, value: TensorAccessPattern) -> None:
        """Insert a pattern before position `index`."""
        self._taps.insert(index, self._check_tap(value, "TensorAccessSequence.insert: value"))

    def __eq__(self, other):
        if not isinstance(other, TensorAccessSequence):
            return NotImplemented
        return self._tensor_dims == other._tensor_dims and self._taps == other._taps

    __hash__ = None  # mutable

    def __repr__(self):
        shown = ", ".join(repr(tap) for tap in self._taps[:2])
        more = f", ... ({len(self._taps)} patterns)" if len(self._taps) > 2 else ""
        return f"TensorAccessSequence(tensor_dims={list(self._tensor_dims)}, taps=[{shown}{more}])"
