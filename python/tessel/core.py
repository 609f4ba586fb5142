"""Core coordinates: CoreCoord, CoreRange, CoreRangeSet. Every call that takes
cores also accepts plain tuples: (x, y) for a core, a tuple ((x0, y0), (x1, y1))
for the rectangle between two corners, and a list (or set) of cores and ranges
for a set: [(0, 0), (1, 1)] is two cores, ((0, 0), (1, 1)) four.

A pair is an (x, y) coordinate only when neither of its items is a core type
(CoreCoord, CoreRange, CoreRangeSet) or a collection: [r1, r2] and (r1, r2)
are two ranges, [r1, (3, 3)] a range and a core. One predicate
(_is_coord_like) decides this for every conversion here."""

from . import _check

_COORD_MAX = 0xFFFF


class CoreCoord:
    """A logical worker core (x = column, y = row)."""

    __slots__ = ("x", "y")

    def __init__(self, x, y):
        object.__setattr__(self, "x", _check.integer(x, "CoreCoord.x", 0, _COORD_MAX))
        object.__setattr__(self, "y", _check.integer(y, "CoreCoord.y", 0, _COORD_MAX))

    def __setattr__(self, name, value):
        raise AttributeError("CoreCoord is immutable")

    def __iter__(self):
        return iter((self.x, self.y))

    def __eq__(self, other):
        if isinstance(other, CoreCoord):
            return (self.x, self.y) == (other.x, other.y)
        if isinstance(other, tuple):
            return (self.x, self.y) == other
        return NotImplemented

    def __hash__(self):
        return hash((self.x, self.y))

    def __lt__(self, other):
        return (self.y, self.x) < (coord(other, "other").y, coord(other, "other").x)

    def __repr__(self):
        return f"CoreCoord({self.x}, {self.y})"

    def str(self):
        return f"({self.x},{self.y})"


class CoreRange:
    """An inclusive rectangle of cores; the corners may come in any order."""

    __slots__ = ("start_coord", "end_coord")

    def __init__(self, start, end=None):
        a = coord(start, "CoreRange start")
        b = a if end is None else coord(end, "CoreRange end")
        object.__setattr__(self, "start_coord", CoreCoord(min(a.x, b.x), min(a.y, b.y)))
        object.__setattr__(self, "end_coord", CoreCoord(max(a.x, b.x), max(a.y, b.y)))

    def __setattr__(self, name, value):
        raise AttributeError("CoreRange is immutable")

    @property
    def start(self):
        return self.start_coord

    @property
    def end(self):
        return self.end_coord

    def num_cores(self):
        return (self.end_coord.x - self.start_coord.x + 1) * (self.end_coord.y - self.start_coord.y + 1)

    def contains(self, core):
        c = coord(core, "CoreRange.contains core")
        return self.start_coord.x <= c.x <= self.end_coord.x and self.start_coord.y <= c.y <= self.end_coord.y

    def cores(self):
        """Row-major list of the cores."""
        return [
            CoreCoord(x, y)
            for y in range(self.start_coord.y, self.end_coord.y + 1)
            for x in range(self.start_coord.x, self.end_coord.x + 1)
        ]

    def __iter__(self):
        return iter(self.cores())

    def __eq__(self, other):
        if not isinstance(other, CoreRange):
            return NotImplemented
        return (self.start_coord, self.end_coord) == (other.start_coord, other.end_coord)

    def __hash__(self):
        return hash((self.start_coord, self.end_coord))

    def __repr__(self):
        return f"CoreRange({self.start_coord!r}, {self.end_coord!r})"

    def _rect(self):
        return (self.start_coord.x, self.start_coord.y, self.end_coord.x, self.end_coord.y)


class _Ranges(tuple):
    """A CoreRangeSet's ranges: a tuple, also callable as ttnn's ranges()
    method spells it (set.ranges and set.ranges() both give them)."""

    __slots__ = ()

    def __call__(self):
        return list(self)


class CoreRangeSet:
    """A set of core ranges (checked for overlap where the set is used)."""

    __slots__ = ("ranges",)

    def __init__(self, ranges=()):
        object.__setattr__(self, "ranges", _Ranges(_ranges(ranges, "CoreRangeSet")))

    def __setattr__(self, name, value):
        raise AttributeError("CoreRangeSet is immutable")

    def num_cores(self):
        return sum(r.num_cores() for r in self.ranges)

    def contains(self, core):
        return any(r.contains(core) for r in self.ranges)

    def cores(self):
        return [c for r in self.ranges for c in r.cores()]

    def __len__(self):
        return len(self.ranges)

    def __iter__(self):
        return iter(self.ranges)

    def __eq__(self, other):
        if not isinstance(other, CoreRangeSet):
            return NotImplemented
        return self.ranges == other.ranges

    def __hash__(self):
        return hash(self.ranges)

    def __repr__(self):
        return f"CoreRangeSet({list(self.ranges)!r})"


def coord(value, what):
    """A CoreCoord from a CoreCoord or an (x, y) pair."""
    if isinstance(value, CoreCoord):
        return value
    if _is_coord_like(value):
        return CoreCoord(value[0], value[1])
    raise TypeError(f"{what} must be a CoreCoord or an (x, y) tuple, got {_check.describe(value)}")


# What an item of an (x, y) pair never is: a pair holding one of these is a
# pair of cores or ranges (CoreCoord checks the items of a real pair).
_CORE_OR_COLLECTION = (CoreCoord, CoreRange, CoreRangeSet, tuple, list, set, frozenset)


def _is_coord_like(value):
    """A CoreCoord, or a 2-item tuple or list whose items are not cores, ranges or collections."""
    return isinstance(value, CoreCoord) or (
        isinstance(value, (tuple, list)) and len(value) == 2
        and not any(isinstance(v, _CORE_OR_COLLECTION) for v in value)
    )


def _range(value, what):
    if isinstance(value, CoreRange):
        return value
    if _is_coord_like(value):
        return CoreRange(coord(value, what))
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return CoreRange(coord(value[0], f"{what} start"), coord(value[1], f"{what} end"))
    raise TypeError(
        f"{what} must be a CoreRange, a CoreCoord, an (x, y) tuple or a ((x0, y0), (x1, y1)) tuple, "
        f"got {_check.describe(value)}"
    )


def _ranges(value, what):
    if isinstance(value, CoreRangeSet):
        return list(value.ranges)
    if isinstance(value, (CoreRange, CoreCoord)) or _is_coord_like(value):
        return [_range(value, what)]
    if isinstance(value, tuple) and len(value) == 2 and all(_is_coord_like(v) for v in value):
        return [_range(value, what)]  # ((x0, y0), (x1, y1)): one rectangle
    if isinstance(value, (tuple, list, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [_range(v, f"{what}[{i}]") for i, v in enumerate(items)]
    raise TypeError(
        f"{what} must be a CoreRangeSet, a CoreRange, a CoreCoord, a tuple or a list of them, "
        f"got {_check.describe(value)}"
    )


def rects(value, what):
    """The (x0, y0, x1, y1) rectangles of cores given in any accepted form."""
    out = [r._rect() for r in _ranges(value, what)]
    if not out:
        raise ValueError(f"{what} is empty: expected at least one core")
    return out
