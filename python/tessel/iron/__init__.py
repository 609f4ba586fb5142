"""tessel.iron: IRON's runtime data movement (Runtime, Worker, ObjectFifo,
TaskGroup, Buffer, WorkerRuntimeBarrier, jit with DispatchTime/CompileTime)
over tessel's simulated chip. IRON programs run with only the import changed:

    import tessel.iron as iron
    from tessel.iron import ObjectFifo, Program, Runtime, Worker

The model (docs/sequences.md): a Worker is a persistent kernel on one core,
generated from its core_fn; an ObjectFifo is a pool of objects per endpoint
plus the core's data mover; the Runtime's sequence body is recorded once and
run in order on the card on every call.
"""

from .buffer import Buffer, LocalBuffer
from .buffer import Buffer as GlobalBuffer  # IRON's older name of Buffer
from .controlflow import range_, yield_
from .dataflow import ObjectFifo, ObjectFifoHandle
from .device import (
    NPU1, NPU1Col1, NPU1Col2, NPU1Col3, NPU1Col4, NPU2, NPU2Col1, NPU2Col2, NPU2Col3, NPU2Col4, NPU2Col5, NPU2Col6, NPU2Col7,
    XCVC1902, get_current_device, set_current_device,
)
from .errors import DeadlockError, FlowError, FlowWarning, IronRuntimeError, RaceWarning
from .kernel import CoreFunction, ExternalFunction, Kernel
from .placement import AnyComputeTile, AnyMemTile, AnyShimTile, SequentialPlacer, Tile
from .program import Design, Program
from .runtime import Runtime, Task, TaskGroup
from .taps import TensorAccessPattern, TensorAccessSequence
from .tilers import TensorTiler2D
from .worker import Worker, WorkerRuntimeBarrier
from . import algorithms, kernels

from .markers import Compile, CompileTime, DispatchTime, In, InOut, Out
from .tensor import (
    Tensor, arange, asnumpy, dtype_to_str, full, ones, rand, randint, str_to_dtype, tensor, zeros, zeros_like,
)
from .jit import jit  # the function (iron.jit.clear_memory_cache() stays reachable on it)
