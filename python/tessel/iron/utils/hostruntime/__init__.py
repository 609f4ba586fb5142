"""IRON's host runtime (`aie.utils.hostruntime`) over tessel: `load(xclbin,
insts)` finds the design record the paths stand for and replays its design
(design_record.py); `run(handle, tensors)` runs one dispatch with the host
tensors, in the order of the design's runtime buffers. No XRT: the
simulated device reads host memory.
"""

import dataclasses
import time
from typing import Any, Optional

import numpy as np

from ... import design_record
from ...device import get_current_device, set_current_device
from ...errors import IronRuntimeError
from ...tensor import Tensor

__all__ = ["DEFAULT_IRON_RUNTIME", "DefaultNPURuntime", "HostRuntime", "KernelResult", "NPUKernel", "TesselRuntime",
           "TraceConfig", "get_current_device", "set_current_device"]


@dataclasses.dataclass
class TraceConfig:
    """IRON's trace options, accepted and noted: tessel's event trace is
    written when TESSEL_TRACE names a file (docs/trace.md), and the buffer
    a test program reads back for trace data holds zeros."""

    trace_size: int = 0
    trace_file: str = "trace.txt"
    trace_after_last_tensor: bool = False
    enable_ctrl_pkts: bool = False
    last_tensor_shape: Any = None
    last_tensor_dtype: Any = None
    ddr_id: int = 4
    physical_mlir_path: Optional[str] = None  # set by IRON's jit; tessel has no MLIR

    def trace_to_json(self, *args, output_name="trace.json", **kwargs):
        """Writes an empty Chrome/Perfetto trace (no hardware trace here); returns its name."""
        with open(output_name, "w") as f:
            f.write('{"traceEvents": [], "tessel": "no hardware trace; set TESSEL_TRACE=FILE"}\n')
        return output_name


@dataclasses.dataclass
class KernelResult:
    """What a run returns: the host time of the dispatch, in nanoseconds."""

    npu_time: int
    moved_bytes: int = 0


def _array(value, what):
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    raise TypeError(f"{what} must be a tessel.iron tensor or numpy array, got {type(value).__name__}")


def bind_buffers(design, values):
    """The host arrays to run `design` (a resolved Design) with: one per
    runtime buffer, in order. A value whose dtype differs from the buffer's
    but whose byte size matches is viewed as the buffer's type (test
    programs size buffers in bytes). Buffers the sequence never moves may
    have any size (testbenches pass one-byte placeholders) and, at the end,
    may be left out, as an XRT kernel call may leave them out: they get
    zeroed arrays of their own."""
    layout = design.buffer_layout
    needed = max(design.moved_buffers, default=-1) + 1
    if len(values) < needed:
        listed = ", ".join(f"{count} x {want.name}" for count, want in layout)
        raise TypeError(f"design '{design.spec['name']}' takes {len(layout)} host buffers ({listed}) and moves "
                        f"buffer {needed - 1}; got {len(values)}")
    values = list(values) + [np.zeros(count, dtype=want) for count, want in layout[len(values):]]
    out = []
    for i, ((count, want), value) in enumerate(zip(layout, values)):
        a = _array(value, f"host buffer {i}")
        if i not in design.moved_buffers and a.nbytes != count * want.itemsize:
            out.append(np.zeros(count, dtype=want))  # the sequence never touches it: any placeholder will do
        elif a.dtype == want and a.size == count:
            out.append(a)
        elif a.nbytes == count * want.itemsize and a.flags.c_contiguous:
            out.append(a.reshape(-1).view(np.uint8).view(want))
        else:
            raise TypeError(f"design '{design.spec['name']}': host buffer {i} must hold {count} x {want.name} "
                            f"({count * want.itemsize} bytes), got {a.size} x {a.dtype.name} ({a.nbytes} bytes)")
    return out  # buffers past the design's (trace, control packets) are left as they are


class HostRuntime:
    """IRON's host-runtime interface, as tessel implements it."""

    def load(self, xclbin_path, insts_path=None, kernel_name="MLIR_AIE"):
        """The design the test program's -x/-i paths stand for (a handle for run())."""
        return design_record.load(str(xclbin_path), str(insts_path) if insts_path else None)

    def run(self, handle, tensors, *args, **kwargs):
        """One dispatch of the loaded design with `tensors`; a KernelResult."""
        tensors = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
        start = time.perf_counter_ns()
        moved = 0
        if hasattr(handle, "spec"):  # a resolved Design
            result = handle.run(bind_buffers(handle, tensors))
            moved = int(result[0]) if isinstance(result, tuple) and result else 0
        elif callable(handle):  # a jit design compiled by the record's script
            handle(*tensors)
        else:
            raise IronRuntimeError(f"HostRuntime.run: {handle!r} is not a loaded design")
        return KernelResult(time.perf_counter_ns() - start, moved)

    def load_and_run(self, xclbin_path, insts_path, tensors, *args, **kwargs):
        handle = self.load(xclbin_path, insts_path)
        return handle, self.run(handle, tensors)

    @staticmethod
    def prepare_args_for_trace(buffers, trace_config: Optional[TraceConfig] = None):
        """Accepted: tessel adds no trace buffer (TraceConfig)."""
        return buffers

    @staticmethod
    def extract_trace_from_args(buffers, trace_config: Optional[TraceConfig] = None):
        """The (trace, control) words: zeros of the configured size (TraceConfig)."""
        size = trace_config.trace_size if trace_config else 0
        return np.zeros(size // 4, dtype=np.uint32), None


TesselRuntime = HostRuntime
DefaultNPURuntime = HostRuntime()
DEFAULT_IRON_RUNTIME = DefaultNPURuntime


class NPUKernel:
    """IRON's NPUKernel(xclbin_path, insts_path, ...): the design those paths
    stand for (its record), called with the host tensors of one dispatch."""

    def __init__(self, xclbin_path, insts_path=None, device_index=0, kernel_name="MLIR_AIE", **kwargs):
        self._handle = DEFAULT_IRON_RUNTIME.load(xclbin_path, insts_path, kernel_name)

    def __call__(self, *args, **kwargs):
        return DEFAULT_IRON_RUNTIME.run(self._handle, [a for a in args if not callable(a)])
