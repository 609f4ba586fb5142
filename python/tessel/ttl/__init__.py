"""tessel.ttl: TT-Lang operations with per-dispatch runtime resources
(spec/operation-runtime-resources), spelled as the spec spells them so its
snippets run with `import tessel.ttl as ttl` and `import tessel.ttnn as ttnn`.

    sender = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    def make_resources(*, tensors, core_ranges, first_free_semaphore_id):
        return ttl.ProgramRuntimeResources(kernel_resources=(
            ttl.KernelRuntimeResources(kernel=sender, runtime_args=(
                ttl.CoreRuntimeArgs(ttnn.CoreCoord(0, 0), (first_free_semaphore_id, 0)),)),))

    @ttl.operation(grid=(2, 1), runtime_resource_factory=make_resources)
    def collective(input_tensor, output_tensor):
        ttl.call_extern_func("collective.hpp", "collective_sender",
                             func_args=[input_tensor, output_tensor], kernel=sender)

    collective(ttl.Tensor.from_numpy(device, a), ttl.Tensor.allocate(device, a.shape, buffer_type="l1"))

- Tensors are ttl.Tensor: a tessel.Buffer holding a tiled tensor (tensor.py).
- call_extern_func records a call while tessel traces the body; each
  logical kernel becomes a generated kernel_main that calls its functions
  with one TensorAccessor per tensor argument (extern.py;
  docs/python.md, "tessel.ttl", has the calling convention).
- The operation runs as a tessel::Operation: the factory's result is
  checked here for its types, then validated, planned, looked up in the
  device's program cache (a structure seen before takes the fast path) and
  dispatched by the C++ core (operation.py).
- emit_runner / load_runner write an operation out and run it again from
  the directory alone (runner.py).

tessel's simulator executes runtime resources (the spec's own simulator
rejects runtime_resource_factory; tessel models descriptors and per-core
runtime arguments).
"""

from ..device import BufferType, ShardSpec
from . import block, dtype_utils, math, utils
from .settings import settings
from .compiler import CompileError
from .dsl import (
    TILE_SHAPE,
    DFBAddressScope,
    DFBAllocationGroup,
    DataflowBuffer,
    GroupTransfer,
    compute,
    copy,
    datamovement,
    grid_size,
    make_dataflow_buffer_like,
    make_dfb,
    make_dfb_allocation_group,
    node,
    raw_element_read,
    raw_element_write,
    read_index,
)
from ..program import DataFormat
from .extern import RawAddress, call_extern_func, raw_addr
from .operation import Operation, operation
from .pipes import DstPipeIdentity, Pipe, PipeNet, SrcPipeIdentity
from .semaphores import RemoteSemaphore, Semaphore
from .records import (
    CoreRuntimeArgs,
    FabricConnectionBinding,
    FabricConnectionRequirement,
    FabricLink,
    FabricManagerClaim,
    FabricTopology,
    Kernel,
    KernelDefine,
    KernelKind,
    KernelRuntimeResources,
    ProgramRuntimeResources,
)
from .runner import Runner, emit_runner, load_runner
from .tensor import Tensor, as_tensor

# The compiler's spellings at the top level: every ttl.math function (ttl.exp, ttl.add, ...) and the block
# functions (ttl.transpose, ...).
from .block import broadcast, fill, transpose, where  # noqa: E402
from .dsl import signpost  # noqa: E402

globals().update({_name: getattr(math, _name) for _name in math.__all__})
__all__ = list(math.__all__) + [
    "DstPipeIdentity",
    "Pipe",
    "PipeNet",
    "RemoteSemaphore",
    "Semaphore",
    "SrcPipeIdentity",
    "TILE_SHAPE",
    "broadcast",
    "signpost",
    "fill",
    "transpose",
    "where",
    "CompileError",
    "DataflowBuffer",
    "GroupTransfer",
    "as_tensor",
    "block",
    "dtype_utils",
    "settings",
    "utils",
    "compute",
    "copy",
    "datamovement",
    "grid_size",
    "make_dataflow_buffer_like",
    "make_dfb",
    "make_dfb_allocation_group",
    "DFBAddressScope",
    "DFBAllocationGroup",
    "math",
    "node",
    "raw_element_read",
    "raw_element_write",
    "read_index",
    "BufferType",
    "CoreRuntimeArgs",
    "DataFormat",
    "FabricConnectionBinding",
    "FabricConnectionRequirement",
    "FabricLink",
    "FabricManagerClaim",
    "FabricTopology",
    "Kernel",
    "KernelDefine",
    "KernelKind",
    "KernelRuntimeResources",
    "Operation",
    "ProgramRuntimeResources",
    "RawAddress",
    "Runner",
    "ShardSpec",
    "Tensor",
    "call_extern_func",
    "emit_runner",
    "load_runner",
    "operation",
    "raw_addr",
]
