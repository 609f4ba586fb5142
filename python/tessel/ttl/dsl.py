"""The TT-Lang DSL at operation scope: what an @ttl.operation body calls
while it runs once per call (ttl.make_dataflow_buffer_like, @ttl.compute,
@ttl.datamovement, ttl.grid_size), and the names kernel functions use
(ttl.copy, ttl.node, ttl.GroupTransfer, ttl.TILE_SHAPE).

    @ttl.operation(grid=(2, 2))
    def add(a, b, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=2)
        ...
        @ttl.compute()
        def compute():
            with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
                o.store(x + z)

Kernel functions are never called in Python: the body records them, and
the compiler (ttl/compiler.py) turns each into a C++ kernel_main from its
source, with the values it captures (DFBs, tensors, numbers) as constants.
The functions here that only make sense inside a kernel raise when Python
calls them.
"""

import enum
import inspect

from .. import _check, formats
from .extern import current_trace
from .records import Kernel, KernelKind
from .tensor import as_tensor

__all__ = ["DFBAddressScope", "DFBAllocationGroup", "DataflowBuffer", "GroupTransfer", "KernelFunction",
           "TILE_SHAPE", "compute", "copy", "datamovement", "grid_size", "make_dataflow_buffer_like", "make_dfb",
           "make_dfb_allocation_group", "max_dfbs", "node", "raw_element_read", "raw_element_write",
           "read_index", "signpost"]

TILE_SHAPE = (formats.TILE_HEIGHT, formats.TILE_WIDTH)

def max_dfbs(device):
    """Circular buffers a core of `device` has (the DFBs an operation may
    make): 32 on Wormhole, 64 on Blackhole (TT-Lang spec, Appendix E)."""
    return 64 if device is not None and device._d.arch() == "blackhole" else 32


def element_size(dtype):
    """Bytes of one element of a row-major tensor of dtype."""
    sizes = {"Float32": 4, "Float16_b": 2, "Float16": 2, "Int32": 4, "UInt32": 4, "UInt16": 2, "UInt8": 1}
    size = sizes.get(dtype.name)
    if size is None:
        raise ValueError(f"a row-major tensor of {dtype.name} has no element size (block-float formats are tiled)")
    return size


def _in_kernel_only(what):
    return RuntimeError(f"{what} runs only inside a kernel function (@ttl.compute() or @ttl.datamovement()); "
                        "tessel compiles kernel functions to C++ and never calls them in Python")


def _site(depth=2):
    """file:line of the caller's caller (the DSL statement)."""
    frame = inspect.currentframe()
    for _ in range(depth):
        frame = frame.f_back if frame is not None else None
    if frame is None:
        return ("<unknown>", 0)
    return (frame.f_code.co_filename, frame.f_lineno)


class DataflowBuffer:
    """A dataflow buffer: a ring of block_count blocks of `shape` (tiles for a
    tiled tensor, elements for a row-major one) of the dtype of the tensor it
    was made like; a circular buffer on every core of the operation (its
    index is its creation order)."""

    def __init__(self, index, tensor, shape, block_count, site, dtype=None):
        self.index = index
        self.tensor = tensor  # None for ttl.make_dfb
        self.shape = shape
        self.block_count = block_count
        self.dtype = tensor.dtype if tensor is not None else dtype
        self.tiled = tensor.tiled if tensor is not None else True
        self.site = site
        self.name = None  # the variable the kernels capture it as (set by the compiler)

    @property
    def units(self):
        """Tiles (or elements) in one block."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def page_size(self):
        """Bytes of one CB page: a tile, or one row of a row-major block."""
        if self.tiled:
            return formats.tile_size(self.dtype)
        return self.shape[-1] * element_size(self.dtype)

    @property
    def pages(self):
        """CB pages in one block."""
        return self.units if self.tiled else self.units // self.shape[-1]

    @property
    def block_bytes(self):
        return self.pages * self.page_size

    def reserve(self):
        raise _in_kernel_only("DataflowBuffer.reserve()")

    def wait(self):
        raise _in_kernel_only("DataflowBuffer.wait()")

    def __repr__(self):
        name = f" '{self.name}'" if self.name else ""
        return f"ttl.DataflowBuffer{name}(shape={self.shape}, block_count={self.block_count}, {self.dtype.name})"


def def_line(fn):
    """(file, line) of the `def` of a function (after its decorators)."""
    code = fn.__code__
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return code.co_filename, code.co_firstlineno
    for i, text in enumerate(lines):
        if text.lstrip().startswith(("def ", "async def ")):
            return code.co_filename, start + i
    return code.co_filename, code.co_firstlineno


class DFBAddressScope(enum.Enum):
    """Whether a DFB may sit at a different L1 address on each node (LOCAL)
    or must sit at one address on all (REMOTE_UNIFORM). tessel places every
    DFB of an operation at one address on all its nodes, so both hold."""

    LOCAL = "local"
    REMOTE_UNIFORM = "remote_uniform"


class DFBAllocationGroup:
    """ttl.make_dfb_allocation_group(): DFBs that TT-Lang's compiler may place
    in one L1 allocation when their lifetimes do not overlap. tessel gives
    each DFB of a group its own circular buffer: the results are the same,
    the L1 used is the sum of theirs (docs/ttlang.md)."""

    def __repr__(self):
        return f"<ttl.DFBAllocationGroup at {id(self):#x}>"


def make_dfb_allocation_group():
    return DFBAllocationGroup()


def _placement(allocation_group, address_scope, what):
    if allocation_group is not None and not isinstance(allocation_group, DFBAllocationGroup):
        raise TypeError(f"{what}: allocation_group must be made by ttl.make_dfb_allocation_group(), got "
                        f"{_check.describe(allocation_group)}")
    if address_scope is not None and not isinstance(address_scope, DFBAddressScope):
        try:
            DFBAddressScope(address_scope)
        except ValueError:
            raise ValueError(f"{what}: address_scope must be ttl.DFBAddressScope.LOCAL, "
                             f"ttl.DFBAddressScope.REMOTE_UNIFORM or None, got {address_scope!r}") from None


def make_dataflow_buffer_like(tensor, shape, block_count=2, *, allocation_group=None, address_scope=None):
    """A dataflow buffer of blocks of `shape` (tiles of a tiled tensor, elements
    of a row-major one) with tensor's dtype, block_count blocks deep.
    allocation_group and address_scope: see DFBAllocationGroup and
    DFBAddressScope."""
    what = "ttl.make_dataflow_buffer_like"
    trace = current_trace(what)
    t = as_tensor(tensor, f"{what}: tensor")
    _placement(allocation_group, address_scope, what)
    return _add_dfb(trace, what, t, shape, block_count, None)


def make_dfb(dtype, shape, block_count=2, tile=TILE_SHAPE, *, allocation_group=None, address_scope=None):
    """A dataflow buffer of blocks of `shape` tiles of `dtype` (a format name
    such as "bf16" or "float32", a ttnn.DataType, a tessel.DataFormat or a
    torch dtype) with no tensor it is made like, block_count blocks deep."""
    what = "ttl.make_dfb"
    trace = current_trace(what)
    from . import dtype_utils

    dtype_utils.normalize_tile_dimensions(tile)
    _placement(allocation_group, address_scope, what)
    return _add_dfb(trace, what, None, shape, block_count, dfb_format(dtype, f"{what}: dtype"))


def dfb_format(dtype, what):
    """The tessel.DataFormat of a make_dfb dtype."""
    from ..ttnn.types import DataType
    from . import dtype_utils

    if isinstance(dtype, formats.DataFormat):
        return dtype
    if isinstance(dtype, DataType):
        return dtype.format
    if isinstance(dtype, str):
        return dtype_utils.format_name_to_ttnn_dtype(dtype).format
    if type(dtype).__module__.split(".")[0] == "torch":
        return dtype_utils.torch_dtype_to_ttnn_datatype(dtype).format
    raise TypeError(f"{what} must be a format name ('bf16', 'float32', ...), a ttnn.DataType, a tessel.DataFormat "
                    f"or a torch dtype, got {_check.describe(dtype)}")


def _add_dfb(trace, what, tensor, shape, block_count, dtype):
    if not isinstance(shape, (tuple, list)) or not shape:
        raise TypeError(f"{what}: shape must be a tuple of block dimensions, got {_check.describe(shape)}")
    shape = tuple(_check.integer(d, f"{what}: shape[{i}]", 1, 1 << 16, "a positive integer")
                  for i, d in enumerate(shape))
    if tensor is not None and not tensor.tiled and any(d != 1 for d in shape[:-2]):
        raise ValueError(f"{what}: a block of a row-major tensor is (elements,) or (rows, elements), with any "
                         f"dimensions before those of size 1; got shape {shape}")
    block_count = _check.integer(block_count, f"{what}: block_count", 1, 1 << 16, "a positive integer")
    site = _site(3)
    limit = max_dfbs(trace.tensors[0].buffer.device if trace.tensors else None)
    if len(trace.dfbs) >= limit:
        raise ValueError(f"{site[0]}:{site[1]}: {what}: this would be dataflow buffer number {len(trace.dfbs) + 1}; "
                         f"an operation has at most {limit} on this device (a core's circular buffers)")
    dfb = DataflowBuffer(len(trace.dfbs), tensor, shape, block_count, site, dtype)
    trace.dfbs.append(dfb)
    return dfb


class KernelFunction:
    """A kernel function the body declared: its Python function, its kind and
    the logical kernel it is (a ttl.Kernel, or None for a canonical one)."""

    def __init__(self, fn, kind, selector, site):
        self.fn = fn
        self.kind = kind
        self.selector = selector
        self.site = site
        self.ast = None  # the FunctionDef to compile when it is not fn's source (a unified body's thread)

    @property
    def name(self):
        return self.fn.__name__

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"kernel function '{self.name}' is not called: the operation runs it on every node")

    def __repr__(self):
        return f"<ttl kernel function '{self.name}' ({self.kind.name})>"


def _kernel_decorator(kind, kernel, what):
    if kernel is not None and not isinstance(kernel, Kernel):
        raise TypeError(f"{what}: kernel must be a ttl.Kernel, got {_check.describe(kernel)}")
    if kernel is not None and kernel.kind is not kind:
        raise ValueError(f"{what}: kernel {kernel!r} is a {kernel.kind.name} kernel")
    site = _site(3)

    def wrap(fn):
        trace = current_trace(what)
        if not inspect.isfunction(fn):
            raise TypeError(f"{what} decorates a function, got {_check.describe(fn)}")
        if inspect.signature(fn).parameters:
            file, line = def_line(fn)
            raise TypeError(f"{file}:{line}: {what}: kernel function '{fn.__name__}' must take no parameters (it "
                            "captures what it uses from the operation's body)")
        k = KernelFunction(fn, kind, kernel, site)
        trace.functions.append(k)
        return k

    return wrap


def compute(*, kernel=None):
    """Declare the compute kernel function that follows."""
    return _kernel_decorator(KernelKind.COMPUTE, kernel, "@ttl.compute()")


def datamovement(*, kernel=None):
    """Declare a data-movement kernel function (the first one is the reader
    on RISCV_1, the second the writer on RISCV_0)."""
    return _kernel_decorator(KernelKind.DATA_MOVEMENT, kernel, "@ttl.datamovement()")


def shape_dims(grid, dims, what):
    """The grid as `dims` dimensions: the highest flattened when fewer are
    asked for, padded with 1s when more are."""
    dims = _check.integer(dims, f"{what}: dims", 1, 8, "a positive integer")
    grid = tuple(grid)
    if dims == len(grid):
        out = grid
    elif dims < len(grid):
        n = 1
        for d in grid[dims - 1:]:
            n *= d
        out = grid[:dims - 1] + (n,)
    else:
        out = grid + (1,) * (dims - len(grid))
    return out[0] if dims == 1 else out


def grid_size(dims=2):
    """The operation's grid as `dims` dimensions (an int for dims=1)."""
    trace = current_trace("ttl.grid_size")
    return shape_dims(trace.grid, dims, "ttl.grid_size")


def node(dims=2):
    raise _in_kernel_only("ttl.node()")


def copy(src, dst):
    raise _in_kernel_only("ttl.copy()")


def raw_element_read(block, *coords):
    raise _in_kernel_only("ttl.raw_element_read()")


def raw_element_write(block, *coords_and_value):
    raise _in_kernel_only("ttl.raw_element_write()")


def read_index(block, *coords):
    raise _in_kernel_only("ttl.read_index()")


class signpost:
    """`with ttl.signpost("name"):` in a kernel function marks a profiler
    zone around its body (a DeviceZoneScopedN zone of that name: the device
    profiler's CSV and the trace show it). Outside kernels it does nothing."""

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise TypeError(f"ttl.signpost: the name must be a non-empty str, got {name!r}")
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class GroupTransfer:
    """Copies waited together (add(tx), then wait_all())."""

    def __init__(self):
        raise _in_kernel_only("ttl.GroupTransfer()")
