"""Buffer: a named array on one worker's core. Its core_fn reads and writes
its elements (buf[i], buf[i, j]) and passes it to kernels; with
use_write_rtp=True the sequence body writes it too (runtime parameters).
initial_value is what the array holds when the design is loaded."""

import numpy as np

from . import trace
from .errors import IronRuntimeError
from .types import array_type, c_type
from .values import Elements, kind_of


class Buffer(Elements):
    def __init__(self, type=None, initial_value=None, name=None, placement=None, use_write_rtp=False):
        if type is None and initial_value is not None:  # the type of the initial value
            init = np.asarray(initial_value)
            type = np.ndarray[init.shape or (1,), np.dtype[init.dtype.type]]
        self.shape, self.dtype = array_type(type, "Buffer type")
        kind_of(self.dtype)  # an element type a core_fn computes with
        self.type = type
        self.name = name or "buffer"
        self.use_write_rtp = use_write_rtp
        self.volatile = use_write_rtp
        self.count = int(np.prod(self.shape))
        self.nbytes = self.count * self.dtype.itemsize
        self.initial_value = None
        if initial_value is not None:
            try:
                init = np.asarray(initial_value)
                if init.dtype != self.dtype and not np.can_cast(init.dtype, self.dtype, casting="same_kind"):
                    raise TypeError
                init = np.broadcast_to(init, self.shape).astype(self.dtype)
            except (TypeError, ValueError):
                raise ValueError(f"Buffer '{self.name}': initial_value must be a {self.dtype} array of shape "
                                 f"{self.shape} (or a value broadcast to it), got {initial_value!r}") from None
            self.initial_value = np.ascontiguousarray(init)
        self.worker = None  # the one worker it is given to
        self.index = None  # its number on that worker

    def initial_bytes(self):
        return b"" if self.initial_value is None else self.initial_value.tobytes()

    def _elements(self):
        if self.worker is None or trace.worker_trace().worker is not self.worker:
            raise IronRuntimeError(f"Buffer '{self.name}' is used in the core_fn of the worker it is given to in "
                                   "fn_args")
        return f"iron::rtp({self.index})", self.shape, kind_of(self.dtype), f"Buffer '{self.name}'"

    def c_arg(self, dtype):
        self._elements()
        return f"reinterpret_cast<{c_type(dtype)}*>(iron::rtp({self.index}))"

    def __getitem__(self, i):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError(f"Buffer '{self.name}' is read inside a Worker's core_fn")
        site = trace.user_site()
        v = self._element_read(i)
        t.rtp_reads.append((self, _constant_element(i, self.shape), site, dict(t.waited), dict(t.passed)))
        return v

    def __setitem__(self, i, value):
        if trace.worker_trace() is not None:
            self._element_write(i, value)
            return
        from .runtime import write_rtp

        if self.dtype.itemsize != 4 or self.dtype.kind not in "iu":
            raise TypeError(f"Buffer '{self.name}': the sequence writes runtime parameters as 32-bit integers "
                            f"(np.int32 / np.uint32); this Buffer holds {self.dtype}")
        write_rtp(self, i, value)

    def __repr__(self):
        return f"Buffer({self.name})"


class LocalBuffer(Buffer):
    """A Buffer a core_fn declares for itself (IRON's LocalBuffer): an array
    on the worker's core, holding initial_value when the design is loaded and
    kept from one pass of the body (and one call) to the next."""

    def __init__(self, type=None, initial_value=None, name=None, **kwargs):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError("LocalBuffer is declared inside a Worker's core_fn (give a Buffer in fn_args "
                                   "otherwise)")
        super().__init__(type, initial_value, name or f"local{len(t.local_buffers)}", **kwargs)
        self.worker = t.worker
        self.index = t.next_buffer + len(t.local_buffers)
        t.local_buffers.append(self)


def _constant_element(index, shape):
    """The element number of an index known while tracing (None: a value)."""
    parts = index if isinstance(index, tuple) else (index,)
    if not all(isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in parts):
        return None
    return int(np.ravel_multi_index(tuple(int(p) for p in parts), shape))
