"""The compile-time values of the TT-Lang compiler (compiler.py): what a
name in a kernel function stands for while it is compiled.

A constant is ("const", python value). Everything else is one of the
classes here: a device number (Scalar), a held block, a copy's handle, a
GroupTransfer, a tensor slice, a block expression.
"""

import types

from ..errors import ValidationError


class CompileError(ValidationError):
    """A kernel function that tessel cannot compile: the message names the
    Python file and line."""


class Scalar:
    """A runtime number: C++ code and its type ('int', 'float', 'bool')."""

    def __init__(self, code, type_):
        self.code = code
        self.type = type_


class Block:
    """A held block: its dataflow buffer, reserve or wait, and its C++ state."""

    def __init__(self, dfb, reserved, var, name, line):
        self.dfb = dfb
        self.reserved = reserved
        self.var = var  # C++ suffix: a<var> (DM: L1 address), s<var> (state)
        self.name = name
        self.line = line
        self.released = False

    @property
    def shape(self):
        return self.dfb.shape


class Transfer:
    def __init__(self, block, wrote, pipe=None):
        self.block = block
        self.wrote = wrote  # the copy writes the block (tensor or pipe -> block)
        self.pipe = pipe  # (Pipe, its index) for a copy to or from a pipe


class Group:
    def __init__(self):
        self.transfers = []


class Slice:
    """tensor[...] : the tensor's argument index and per-dimension (start, stop) C++ ints (stop None: an index)."""

    def __init__(self, tensor, index, dims, text):
        self.tensor = tensor
        self.index = index
        self.dims = dims
        self.text = text


class Signpost:
    """with ttl.signpost(name): a profiler zone around the body."""

    def __init__(self, name):
        self.name = name


class Expr:
    """A block expression (compute kernels). dims: its shape in all its
    dimensions when that is not node.shape (a squeezed or unsqueezed
    block)."""

    def __init__(self, node, dims=None):
        self.node = node
        self.dims = dims



def _is_const(v):
    return isinstance(v, tuple) and len(v) == 2 and v[0] == "const"


def _const(v):
    return v[1]


def _is_tensor_like(v):
    return _is_const(v) and hasattr(_const(v), "_ttl")


def _two_d(shape):
    """A block shape as (rows, cols) of tiles: leading dimensions fold into the
    rows (a block's tiles are in row-major order over all its dimensions)."""
    shape = tuple(shape)
    if len(shape) == 1:
        return (1, shape[0])
    rows = 1
    for d in shape[:-1]:
        rows *= d
    return (rows, shape[-1])


def _describe(v):
    if _is_const(v):
        v = _const(v)
    if isinstance(v, Block):
        return f"block '{v.name}'"
    if isinstance(v, Scalar):
        return f"a device {v.type}"
    if isinstance(v, Transfer):
        return "a copy handle"
    if isinstance(v, Expr):
        return "a block expression"
    if isinstance(v, Slice):
        return f"the tensor slice {v.text}"
    if isinstance(v, types.ModuleType):
        return f"module {v.__name__}"
    return f"{type(v).__name__} {v!r}"[:120]


def _escape(text):
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Ambiguous:
    """A name an if's branches bound to different compile-time values."""

    def __init__(self, name, line):
        self.name = name
        self.line = line


def refers_to(value, blk):
    """Whether a compile-time value reads or writes block `blk` (the block
    itself, a copy handle on it, a GroupTransfer of such copies, a block
    expression over it)."""
    if value is blk:
        return True
    if isinstance(value, Transfer):
        return value.block is blk
    if isinstance(value, Group):
        return any(t.block is blk for t in value.transfers)
    if isinstance(value, Expr):
        return any(n.kind == "block" and n.block is blk for n in value.node.walk())
    return False


class DeviceSlice:
    """slice(start, stop, step) with bounds known only on the device (each a
    compile-time value); a tensor subscript takes it as a range."""

    def __init__(self, start, stop, step):
        self.start = start
        self.stop = stop
        self.step = step
