"""Buffer: a named region on a worker's core that the sequence body writes
(runtime parameters, use_write_rtp=True) and the core_fn reads."""

import numpy as np

from . import trace
from .errors import IronRuntimeError
from .types import array_type, c_type


class Buffer:
    def __init__(self, type=None, initial_value=None, name=None, placement=None, use_write_rtp=False):
        self.shape, self.dtype = array_type(type, "Buffer type")
        if self.dtype.itemsize != 4 or self.dtype.kind not in "iu":
            raise TypeError("Buffer: runtime parameters here are 32-bit integers (np.int32 / np.uint32)")
        if initial_value is not None:
            raise NotImplementedError("Buffer: initial_value is not supported yet; write it from the sequence")
        self.type = type
        self.name = name or "buffer"
        self.use_write_rtp = use_write_rtp
        self.count = int(np.prod(self.shape))
        self.worker = None  # the one worker it is given to
        self.index = None  # its RTP number on that worker

    def __getitem__(self, i):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError(f"Buffer '{self.name}' is read inside a Worker's core_fn")
        if not isinstance(i, int) or not 0 <= i < self.count:
            raise IndexError(f"Buffer '{self.name}' has elements 0 to {self.count - 1}, not {i!r}")
        t.rtp_reads.append((self, i, trace.user_site(), dict(t.waited), dict(t.passed)))
        return _RtpRead(self, i)

    def __setitem__(self, i, value):
        from .runtime import write_rtp

        write_rtp(self, i, value)

    def __repr__(self):
        return f"Buffer({self.name})"


class _RtpRead:
    def __init__(self, buffer, i):
        self.buffer, self.i = buffer, i

    def c_expr(self):
        return f"reinterpret_cast<volatile {c_type(self.buffer.dtype)}*>(iron::rtp({self.buffer.index}))[{self.i}]"
