"""Pipes and pipe nets (TT-Lang spec, "Pipe" and "Pipe net"): block
transfers from one node to one node (unicast) or to a range of nodes
(multicast), grouped in a PipeNet whose if_src / if_dst run a kernel's
callback for each pipe the node sends or receives on.

    net = ttl.PipeNet([ttl.Pipe(src=(x, 0), dst=(0, 0)) for x in range(1, 4)])

    @ttl.datamovement()
    def dm():
        with dfb.reserve() as blk:
            def send(pipe):
                ttl.copy(blk, pipe).wait()
            net.if_src(send)

A node is an int (a 1-D node index, ttl.node(dims=1)) or a tuple of ints
(ttl.node(dims=len(tuple))); a destination range is a tuple of ints and
slices, the Cartesian product of its items. The compiler
(compiler_pipes.py) lowers a pipe to semaphore handshakes and NoC writes.
"""

from dataclasses import dataclass

from .. import _check

__all__ = ["DstPipeIdentity", "Pipe", "PipeNet", "SrcPipeIdentity", "expand"]


def _coord(value, what):
    if isinstance(value, (tuple, list)):
        if not value:
            raise ValueError(f"{what} is an empty tuple; a node has at least one coordinate")
        return tuple(_check.integer(v, f"{what}[{i}]", 0, 1 << 16, "a node coordinate") for i, v in enumerate(value))
    return (_check.integer(value, what, 0, 1 << 16, "a node coordinate"),)


def _range(value, what):
    """A destination: a tuple of ints and slices (start/stop, step 1 or more)."""
    items = value if isinstance(value, (tuple, list)) else (value,)
    if not items:
        raise ValueError(f"{what} is an empty tuple; a destination has at least one coordinate")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, slice):
            for part in ("start", "stop", "step"):
                v = getattr(item, part)
                if v is not None:
                    _check.integer(v, f"{what}[{i}].{part}", 0 if part != "step" else 1, 1 << 16,
                                   "a non-negative integer" if part != "step" else "a positive integer")
            if item.start is not None and item.stop is not None and item.stop <= item.start:
                raise ValueError(f"{what}[{i}] is the empty range {item.start}:{item.stop}")
            out.append(item)
        else:
            out.append(_check.integer(item, f"{what}[{i}]", 0, 1 << 16, "a node coordinate or a slice"))
    return tuple(out)


def expand(items, grid):
    """The nodes (tuples) of a range of ints and slices, the Cartesian product
    of its items; `grid` (the operation's grid in the range's rank) bounds
    open slices."""
    ranges = []
    for i, item in enumerate(items):
        if isinstance(item, slice):
            stop = item.stop if item.stop is not None else grid[i]
            ranges.append(range(item.start or 0, stop, item.step or 1))
        else:
            ranges.append(range(item, item + 1))
    out = [()]
    for r in ranges:
        out = [c + (v,) for c in out for v in r]
    return out


@dataclass(frozen=True, eq=False)
class Pipe:
    """A transfer from node `src` to node(s) `dst` (compared by identity)."""

    src: object
    dst: object

    def __post_init__(self):
        object.__setattr__(self, "_src", _coord(self.src, "ttl.Pipe: src"))
        object.__setattr__(self, "_dst", _range(self.dst, "ttl.Pipe: dst"))

    @property
    def multicast(self):
        return any(isinstance(d, slice) for d in self._dst)

    @property
    def rank(self):
        return len(self._src)

    def destinations(self, grid):
        """The destination nodes as tuples, with `grid` (the operation's grid in
        this pipe's rank) bounding open slices."""
        return expand(self._dst, grid)

    def __repr__(self):
        def text(c):
            if isinstance(c, slice):
                return f"{'' if c.start is None else c.start}:{'' if c.stop is None else c.stop}"
            return str(c)
        dst = ", ".join(text(d) for d in self._dst)
        return f"ttl.Pipe({self._src} -> ({dst}))"


class SrcPipeIdentity:
    """What if_src passes its callback: the pipe, seen from its source."""

    def __init__(self, pipe):
        self.pipe = pipe

    @property
    def dst(self):
        return self.pipe.dst


class DstPipeIdentity:
    """What if_dst passes its callback: the pipe, seen from a destination."""

    def __init__(self, pipe):
        self.pipe = pipe

    @property
    def src(self):
        return self.pipe.src


class PipeNet:
    """Pipes grouped for if_src / if_dst: not empty, all unicast or all
    multicast, every coordinate of one rank."""

    def __init__(self, pipes):
        what = "ttl.PipeNet"
        if not isinstance(pipes, (list, tuple)):
            raise TypeError(f"{what} takes a list of ttl.Pipe, got {_check.describe(pipes)}")
        pipes = list(pipes)
        if not pipes:
            raise ValueError(f"{what}: the list of pipes is empty")
        for i, p in enumerate(pipes):
            if not isinstance(p, Pipe):
                raise TypeError(f"{what}: pipes[{i}] must be a ttl.Pipe, got {_check.describe(p)}")
        if len({p.multicast for p in pipes}) > 1:
            raise ValueError(f"{what}: unicast and multicast pipes are mixed; a net holds one kind")
        ranks = {len(p._src) for p in pipes} | {len(p._dst) for p in pipes}
        if len(ranks) > 1:
            raise ValueError(f"{what}: the pipes' coordinates have {sorted(ranks)} dimensions; they must all have one")
        self.pipes = tuple(pipes)

    def _kernel_only(self, what):
        return RuntimeError(f"PipeNet.{what} runs only inside a data-movement kernel function; tessel compiles "
                            "kernel functions to C++ and never calls them in Python")

    def if_src(self, fn):
        raise self._kernel_only("if_src")

    def if_dst(self, fn):
        raise self._kernel_only("if_dst")

    def is_src(self):
        raise self._kernel_only("is_src")

    def is_dst(self):
        raise self._kernel_only("is_dst")

    def is_active(self):
        raise self._kernel_only("is_active")

    def __repr__(self):
        return f"ttl.PipeNet({len(self.pipes)} pipes)"
